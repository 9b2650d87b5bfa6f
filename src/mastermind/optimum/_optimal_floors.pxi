# The optimal search's floors of a part before it is searched (included in _optimal.pyx,
# whose cimports it uses: a room of the module, not a module; its routines inline): what the
# memo knows of the part up to symmetry (``_canon_floor``), a floor from its candidates'
# part counts (``_count_floor``), and a scan of its guesses at depth one (``_scan_floor``);
# ``_part_floor`` takes the largest, ``_scan_floors`` floors the parts of a guess one by one
# (docs/optimal.md, rules 11 to 13).
#
# Trusts its caller for everything, as the search does: sets sorted and non-empty, buffers
# large enough.
#


cdef inline int64_t _canon_floor(OData* o, const int32_t* c, Py_ssize_t p, int32_t tag,
                                 int64_t v) noexcept nogil:
    """``v`` raised to what the memo knows of c under its image (its exact total, or a
    proved lower bound); ``v`` itself when memory runs out (not needed: a floor)."""
    cdef int32_t few[CANON_STACK]
    cdef int32_t* key = &few[0]
    cdef MemoEntry* e
    if p > CANON_STACK:
        key = <int32_t*>malloc(p * sizeof(int32_t))
    if key == NULL:
        return v
    _canon_image(o.d, c, p, key)
    e = _canon_entry(o, key, p, tag, _hash_set(key, p, tag | CANON_TAG), False)
    if key != &few[0]:
        free(key)
    if e != NULL:
        if e.value >= 0:
            return e.value
        if e.lower > v:
            return e.lower
    return v


cdef inline int64_t _count_floor(OData* o, const int32_t* c, Py_ssize_t p, int b) noexcept nogil:
    """A lower bound of the total of c (p codes) when no guess makes more than b
    non-winning parts on it (rule 13 of docs/optimal.md): a guess making q of them costs
    at least 3p - 2 - q if it is a candidate, 3p - q if not, so the total is at least
    min(3p - 2 - qc, 3p - min(b, p)), qc the most any candidate makes (counted here)."""
    cdef const KData* d = o.d
    cdef Py_ssize_t i, j
    cdef uint64_t mask, nowin = ~((<uint64_t>1) << d.win)
    cdef int q, qc = 0
    for i in range(p):
        mask = 0
        for j in range(p):
            mask |= (<uint64_t>1) << _slot(d, c[i], c[j])
        q = popcount(mask & nowin)
        if q > qc:
            qc = q
            if qc >= b:                     # (then the bound is the estimate's)
                break
    q = b if b < p else <int>p
    if o.cands_only or 3 * p - 2 - qc < 3 * p - q:
        return 3 * p - 2 - qc
    return 3 * p - q


cdef inline int64_t _part_floor(OData* o, const int32_t* c, Py_ssize_t p, int dl, int b,
                                int64_t est) noexcept nogil:
    """A lower bound of T_dl(c), at least ``est`` (one of its own): the memo's exact total
    or bound (under c's image too, for CANON_FLOOR codes or more: rule 12 of
    docs/optimal.md), for at most nslots codes the candidate rules (2p - 1 only when a
    candidate splits c apart, else 2p: rule 5b), and for more, up to MASKS_MAX, the
    bound of the candidates' part counts (_count_floor, rule 13)."""
    cdef int64_t v = est, f
    cdef int32_t tag = dl if o.limited else 0, g, pair
    cdef uint64_t h
    cdef MemoEntry* e
    if p <= 2 or est >= INF:
        return est
    h = _hash_set(c, p, tag)
    e = _memo_find(&o.memo, c, p, tag, h, False)
    if e == NULL and o.shared != NULL:
        e = _memo_find(<Memo*>o.shared, c, p, tag, h, False)
    if e != NULL:
        if e.value >= 0:
            return e.value
        if e.lower > v:
            v = e.lower
    if o.canon and p >= CANON_FLOOR:
        v = _canon_floor(o, c, p, tag, v)
    if p > o.d.nslots and p <= MASKS_MAX:   # (rule 13; larger parts gained little:
        f = _count_floor(o, c, p, b)        # [4,7] 16,322 nodes, 16,117 up to 100 codes)
        if f > v:
            v = f
    if p <= o.d.nslots and 2 * p + 1 > v and _cand_rules(o, c, p, &g, &pair) < 0:
        if pair < 0 or dl < 3:              # (the others need no more than a scan)
            if o.cands_only or p > o.d.nslots - 1 or p > b:
                v = 2 * p + 1
        if 2 * p > v:
            v = 2 * p
    return v


cdef inline int64_t _scan_floors(OData* o, Node* nd, const uint32_t* row, const Py_ssize_t* off,
                                 const int* order, int nparts, int64_t running, int64_t* pre,
                                 Guesses* child, Node* kept) noexcept nogil:
    """Each part of at least SCAN_FLOOR codes, the largest first, its floor raised to its
    depth-1 bound (_scan_floor, remembered in the memo; its scan kept in kept[a], a its
    place in ``order``, for the node solving it), until the guess's bound ``running``
    reaches the best; returns it."""
    cdef int a, s
    cdef int64_t f
    for a in range(nparts - 1, -1, -1):
        s = order[a]
        if row[s] < SCAN_FLOOR or running >= nd.best:
            continue
        f = _scan_floor(o, nd.parts + off[s], row[s], nd.dl - 1, nd.bnode, child, &kept[a])
        if o.aborted:
            break
        if f > pre[s]:
            running += f - pre[s]
            pre[s] = f
            if running >= nd.best:
                o.floor_cuts += 1
    return running


cdef inline int64_t _scan_floor(OData* o, const int32_t* c, Py_ssize_t p, int dl, int b,
                                Guesses* gs, Node* keep) noexcept nogil:
    """The depth-1 bound of c: |c| plus, for the best guess, the estimates of its parts
    with the most parts any guess makes on c (its node's scan, _scan_general, without
    exploring), stored in the memo as a proved lower bound; 0 on a stop.  The scan is
    handed to ``keep`` (when not NULL) for the node that solves c (_node_adopt)."""
    cdef Node nd
    cdef Py_ssize_t i
    cdef int64_t f = INF
    cdef int32_t tag = dl if o.limited else 0
    cdef MemoEntry* e
    if _ensure(o, gs) != 0:
        return 0
    if _node_open(o, &nd, c, p, dl, INF, b, gs, False, 0):
        if _few(o, p):                      # (its rows were not made for a full scan)
            free(nd.hist)
            nd.hist = <uint32_t*>malloc((nd.npool + 1) * nd.nc * sizeof(uint32_t))
        if nd.hist == NULL:
            o.aborted = STOP_MEMORY
        else:
            _scan_general(o, &nd, gs)
        for i in range(nd.ninfo):
            if nd.info[i].lb < f:
                f = nd.info[i].lb
    if keep != NULL and not o.aborted:
        keep[0] = nd
    else:
        _node_close(&nd)
    if o.aborted:
        return 0
    o.floors += 1
    e = _memo_find(&o.memo, c, p, tag, _hash_set(c, p, tag), True)
    if e != NULL and f > e.lower:
        e.lower = f
    return f
