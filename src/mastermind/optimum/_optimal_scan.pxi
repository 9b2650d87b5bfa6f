# The optimal search's scans of a node's guesses (included in _optimal.pyx, whose cimports
# it uses: a room of the module, not a module; its routines inline): the rules that settle a
# set of a few codes from its own candidates, a non-candidate or a pair of guesses
# (``_cand_rules``, ``_noncand_rule``, ``_pair_rules``), and the scans that give each guess
# its bound, eight guesses at a time by their part counts for nodes of a few codes
# (``_scan_few``) or every guess's part sizes (``_scan_general``).  docs/optimal.md proves
# each cut.  The recursive search, which explores the guesses these scans order, stays in
# _optimal.pyx.
#
# Trusts its caller for everything, as the search does: sets sorted and non-empty, buffers
# large enough.
#


cdef inline int64_t _cand_rules(OData* o, const int32_t* c, Py_ssize_t m, int32_t* out,
                                int32_t* pair) noexcept nogil:
    """2m - 1, the least total any m codes can have, when a candidate puts every code of c
    in a part of its own (the first such in ``out``), else -1; ``pair`` receives the first
    candidate leaving exactly one pair and singletons (-1: none).  See docs/optimal.md."""
    cdef const KData* d = o.d
    cdef Py_ssize_t i
    cdef int r
    pair[0] = -1
    if m > d.nslots:
        return -1
    for i in range(m):
        r = _pairs(d, c[i], c, m)
        if r == 0:
            out[0] = c[i]
            return 2 * m - 1
        if r == 1 and pair[0] < 0:
            pair[0] = c[i]
    return -1


cdef inline int64_t _noncand_rule(OData* o, const int32_t* c, Py_ssize_t m, Guesses* gs,
                                  int32_t* out) noexcept nogil:
    """2m when some guess puts every code of c in a part of its own (the first such in
    ``out``), else -1.  (The nodes of few codes of the encoded games find it in their own
    scan, _node; this is the rule for the others.)"""
    cdef const KData* d = o.d
    cdef Py_ssize_t i
    cdef uint32_t skip
    if o.cands_only or m > d.nslots - 1:
        return -1
    if _ensure(o, gs) != 0:
        return -1
    skip = _blank_skip(o, c, m)
    for i in range(gs.ngl):
        if skip and d.colmask[gs.gl[i]] & skip:
            continue
        if _splits_all(d, gs.gl[i], c, m):
            out[0] = gs.gl[i]
            _remember_split(o, gs.gl[i])
            return 2 * m
    return -1


cdef inline int64_t _pair_rules(OData* o, const int32_t* c, Py_ssize_t m, int dl, int b,
                                int32_t pair) noexcept nogil:
    """For a set of m codes (at most nslots) no candidate splits apart: 2m, its total, when
    a candidate leaves one pair (``pair``, dl >= 3) or a remembered guess splits it into
    singletons (_killed); 2m + 1, a lower bound, when no guess can split it (candidates
    only, m above nslots - 1, or above ``b``, the most non-winning parts any guess makes
    on a superset); else -1.  See rules 5 and 8 of docs/optimal.md."""
    if pair >= 0 and dl >= 3:
        return 2 * m
    if o.cands_only or m > o.d.nslots - 1 or m > b:
        return 2 * m + 1
    if _killed(o, c, m):
        return 2 * m
    return -1


cdef inline void _scan_few(OData* o, Node* nd, Guesses* gs, int32_t pair) noexcept nogil:
    """The scan of a node of few codes (_few): a bound from the number of parts alone (a
    part of p codes costs at least 2p - 1), eight guesses at a time; a guess's full part
    sizes (and exact bound) are counted only when it comes to the front of the order
    (_bring_next).  The scan also settles the rules _solve leaves to it (nd.settled): a
    guess splitting c into singletons (2m), else the candidate ``pair`` leaving one pair
    (2m), else the floor 2m + 1.  One function: the batch loop feeds _masks8 and reads
    its eight answers in place."""
    cdef const KData* d = o.d
    cdef Py_ssize_t m = nd.m, t = 0
    cdef int32_t batch[8]
    cdef uint64_t masks[8]
    cdef bint fold = o.by_blacks
    cdef uint64_t winbit = (<uint64_t>1) << ((d.n << 3) + (0 if fold else d.n))
    cdef int nb, a, nparts, cand, ns = d.nslots
    cdef int64_t lbg
    cdef int32_t split = -1
    batch[0] = 0                            # _masks8 reads batch[0] even for a batch
    while t < nd.npool:                     # left empty (the pool's last guesses skipped)
        nb = 0
        while t < nd.npool and nb < 8:
            if not _skipped(o, nd, gs, nd.pool[t]):
                batch[nb] = nd.pool[t]
                nb += 1
            t += 1
        _masks8(d.enc, batch, nb, nd.pk, m, masks)
        if fold:                            # cells to slots (black-peg)
            for a in range(nb):
                masks[a] = _fold_blacks(masks[a])
        for a in range(nb):
            nparts = popcount(masks[a] & ~winbit)
            cand = (masks[a] & winbit) != 0
            if not cand and nparts == m and not o.cands_only and m <= ns - 1:
                split = batch[a]            # the first guess splitting c into singletons
                _remember_split(o, split)
                break
            if nparts <= 1 and not cand:
                continue                    # one part, not a candidate: no information
            if nparts > nd.bnode:
                nd.bnode = nparts
            lbg = 3 * m - 2 * cand - nparts
            if lbg >= nd.limit:
                if lbg < nd.node_lb:
                    nd.node_lb = lbg
                continue
            nd.info[nd.ninfo].g = batch[a]
            nd.info[nd.ninfo].notcand = not cand
            nd.info[nd.ninfo].lb = lbg
            nd.info[nd.ninfo].key2 = 0
            nd.info[nd.ninfo].exact = 0
            nd.ninfo += 1
        if split >= 0:                      # settles the node (see below)
            break
    o.scanned += t
    if split >= 0:
        nd.settled = 2 * m                  # a guess splitting c apart
        nd.best_g = split
    elif pair >= 0 and nd.dl >= 3:
        nd.settled = 2 * m                  # else a candidate leaving one pair
        nd.best_g = pair
    elif m <= ns and (o.cands_only or m <= ns - 1):
        if 2 * m + 1 > nd.lb0:              # every better guess was tried
            nd.lb0 = 2 * m + 1
    if nd.settled < 0 and nd.dl == 2:       # only a guess splitting c apart works
        nd.settled = INF
    if nd.settled < 0 and nd.lb0 >= nd.limit and not nd.root:
        nd.settled = nd.lb0
    _est_table(nd.estt, m, nd.bnode, nd.dl - 1)


cdef inline void _scan_general(OData* o, Node* nd, Guesses* gs) noexcept nogil:
    """The scan of a general node: every guess's part sizes and its bound with the
    parent's part bound b (kept when below the limit), and the node's own best part count
    bnode, which then sharpens the bounds of the guesses kept."""
    cdef const KData* d = o.d
    cdef uint32_t row[MAX_SLOTS]
    cdef Py_ssize_t i
    cdef int j, nparts, nc = nd.nc, win_j = nd.win_j
    cdef int64_t lbg, key2
    cdef int32_t g
    _est_table(nd.estt, nd.m, nd.b, nd.dl - 1)
    for i in range(nd.npool):
        g = nd.pool[i]
        if _skipped(o, nd, gs, g):
            continue
        _row(d, g, nd.pk, nd.c, nd.m, nd.cells, nd.hc.c, row)
        nparts = 0
        for j in range(nc):
            if j != win_j and row[j]:
                nparts += 1
        if nparts <= 1 and row[win_j] == 0:
            continue                        # one part, not a candidate: no information
        if nparts > nd.bnode:
            nd.bnode = nparts
        lbg = _bound(row, nc, win_j, nd.m, nd.estt, &key2)
        if lbg >= nd.limit:
            if lbg < nd.node_lb:
                nd.node_lb = lbg
            continue
        memcpy(&nd.hist[nd.ninfo * nc], row, nc * sizeof(uint32_t))
        nd.info[nd.ninfo].g = g
        nd.info[nd.ninfo].notcand = row[win_j] == 0
        nd.info[nd.ninfo].lb = lbg
        nd.info[nd.ninfo].key2 = key2
        nd.info[nd.ninfo].exact = 1
        nd.info[nd.ninfo].row = <int32_t>nd.ninfo
        nd.ninfo += 1
    o.scanned += nd.npool
    if nd.fixed:                            # the given opening's part count bounds no
        nd.bnode = nd.b                     # other guess's: the children keep b
    elif nd.bnode < nd.b:                   # sharper bounds for the guesses kept
        _est_table(nd.estt, nd.m, nd.bnode, nd.dl - 1)
        for i in range(nd.ninfo):
            nd.info[i].lb = _bound(nd.hist + nd.info[i].row * nc, nc, win_j, nd.m, nd.estt,
                                   &key2)
    else:
        nd.bnode = nd.b
