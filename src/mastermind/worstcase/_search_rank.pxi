# The worst-case search's ranking of a node's guesses (included in _search.pyx, whose
# cimports it uses: a room of the module, not a module; its routines stay out of line, as
# the search's hot path measured fastest):
# phase 1 scans each canonical guess's part sizes with a cap (through the byte forms, or at
# d = 3 nodes through the label matrix, a group of 32 guesses at a time), phase 2 counts the
# parts of the guesses that survive, and ``_rank`` sorts them by the search's valuation,
# or refutes the node by counting alone (docs/bounds.md proves each cut).  The recursive
# search that tries the ranked guesses stays in _search.pyx.
#
# Trusts its caller for everything, as the search does: sets sorted and non-empty, buffers
# large enough.
#



cdef inline Py_ssize_t _phase1(SData* s, const int32_t* c, Py_ssize_t m,
                               const int32_t* pool, Py_ssize_t npool, const SetSym* y,
                               int64_t cap, GuessInfo* info, const uint64_t* pb,
                               int* pmax_out, Py_ssize_t* nviable_out,
                               bint* early_out) noexcept nogil:
    """Phase 1: each canonical guess of the pool scanned until a non-winning part exceeds
    ``cap``.  info[0..n) receives the guesses finished (key, largest part, candidacy), but
    those with no information and no chance to win, and those given up (largest part
    -1, ``early`` set); ``pmax``: the best part count of the finished scans, ``nviable``:
    how many were kept.  Returns n, or -1 when stopped.  (The counts are kept in locals,
    written out at the end: the loop runs once per guess.)"""
    cdef const KData* kd = s.d
    cdef uint32_t h[MAX_SLOTS]
    cdef uint32_t hc[64]
    cdef Py_ssize_t i, ninfo = 0, nviable = 0, scored
    cdef int nparts, pmax = 0, win = kd.win, order = s.order
    cdef int32_t g, maxpart
    cdef bint ok, early = False, check = not y.trivial
    cdef int64_t scores = 0, scanned = 0
    if pb != NULL:
        memset(hc, 0, sizeof(hc))
    if check and pool == s.guesses and npool == s.ng:   # (not root_openings' own pool)
        pool = _guesses_of(s, y, &npool, &check)
    for i in range(npool):
        if (i & 255) == 255 and m > 256 and _poll(s):
            ninfo = -1
            break
        g = pool[i]
        if check and not _set_canonical(&s.sym, y, g):
            continue
        scanned += 1
        if pb != NULL:
            ok = _scan_capped(kd, g, pb, m, cap, hc, h)
            scores += m
        else:
            ok = _scan_scalar(kd, g, c, m, cap, h, &scored)
            scores += scored
        info[ninfo].guess = g
        if not ok:
            info[ninfo].maxpart = -1        # scan unfinished
            early = True
            ninfo += 1
            continue
        nparts = _parts_of(kd, h, &maxpart)
        if nparts > pmax:
            pmax = nparts
        if h[win] == 0 and nparts == 1:
            continue                        # no information and no chance to win
        info[ninfo].key = _value(kd, h, order)
        info[ninfo].maxpart = maxpart
        info[ninfo].notcand = h[win] == 0
        ninfo += 1
        nviable += 1
    s.scanned += scanned
    s.scores += scores
    pmax_out[0] = pmax
    nviable_out[0] = nviable
    early_out[0] = early
    return ninfo


cdef void _canonical_groups(SData* s, const SetSym* y, const int32_t* pool,
                            Py_ssize_t npool, bint check) noexcept nogil:
    """s.gwant: a bit per column (of a whole group of 32) whose guess is canonical in the
    pool (every guess when each is still to be tested)."""
    cdef Py_ssize_t i, col, ngrp = s.ng >> 5
    if check or y.trivial:
        memset(s.gwant, 0xFF, ngrp * sizeof(uint32_t))
        return
    memset(s.gwant, 0, ngrp * sizeof(uint32_t))
    for i in range(npool):
        col = s.colof[pool[i]]
        if col < (ngrp << 5):
            s.gwant[col >> 5] |= (<uint32_t>1) << (col & 31)


cdef int _groups_pmax(SData* s, Py_ssize_t m, const SetSym* y, bint check,
                      int pmax, bint bounded) noexcept nogil:
    """The groups the scan gave up, made whole (their parts and wins, _label_parts); the
    best part count of their canonical guesses (those ruled out by their multiset too)
    and ``pmax``.  With ``bounded`` (s.mub made), a group whose canonical guesses'
    multisets all bound their parts by pmax is not read: each column's parts and win
    are set to their bounds (the classes only need bounds from above)."""
    cdef Py_ssize_t j, col, ng = s.ng
    cdef uint32_t bits
    cdef uint8_t* nps = s.gstats + ng
    for j in range(ng >> 5):
        if s.gfull[j]:
            continue
        if bounded and _group_bounded(s, j, pmax):
            continue
        _label_parts(s.lptr, m, j << 5, 32, s.d.nslots, s.d.win, nps + (j << 5),
                     s.gstats + 2 * ng + (j << 5))
        bits = s.gwant[j]
        while bits:
            col = (j << 5) + __builtin_ctzll(bits)
            bits &= bits - 1
            if nps[col] > pmax and (not check or _set_canonical(&s.sym, y,
                                                                s.guesses[s.colg[col]])):
                pmax = nps[col]
    return pmax


cdef inline Py_ssize_t _keep(SData* s, const int32_t* c, Py_ssize_t m, int32_t g,
                             Py_ssize_t col, int64_t cap, const uint64_t* pk,
                             GuessInfo* info, Py_ssize_t ninfo, int* pmax) noexcept nogil:
    """What _phase1 makes of the guess g (label column col) of a d = 3 node whose scan
    counted it in full (its group not given up): its parts raise ``pmax``; it is given
    up when a non-winning part exceeds ``cap``, else kept in info[ninfo] (key, largest
    part, candidacy) unless it has no information and no chance to win.  Returns how
    many are kept now."""
    cdef uint32_t h[MAX_SLOTS]
    cdef uint8_t most, nparts, won
    cdef Py_ssize_t ng = s.ng
    if col < ((ng >> 5) << 5) and not s.gfull[col >> 5]:
        return ninfo                        # given up: a part past cap
    most = s.gstats[col]
    nparts = s.gstats[ng + col]
    won = s.gstats[2 * ng + col]
    if nparts > pmax[0]:
        pmax[0] = nparts
    if most > cap or (won == 0 and nparts == 1):
        return ninfo                        # given up, or no information and no win
    if pk != NULL:
        _hist_packed(s.d, g, pk, m, h)
    else:
        _hist(s.d, g, c, m, h)
    info[ninfo].guess = g
    info[ninfo].key = _value(s.d, h, s.order)
    info[ninfo].maxpart = most
    info[ninfo].notcand = won == 0
    return ninfo + 1


cdef Py_ssize_t _phase1_rows(SData* s, const int32_t* c, Py_ssize_t m, const SetSym* y,
                             int64_t cap, GuessInfo* info, const uint64_t* pk,
                             int* pmax_out, Py_ssize_t* nviable_out) noexcept nogil:
    """Phases 1 and 2 at once for a d = 3 node, through its label matrix (s.lptr, made):
    the guesses' parts counted from the rows (_label_scan: no scoring; a group of 32
    columns given up once each of its canonical guesses has a part past ``cap``, and not
    read at all when the multisets of all of them are ruled out, _kill_multisets), then
    for each canonical guess counted in full what _phase1 would make of it (_keep;
    column by column: the ranking sorts them by a total order, so the order they are
    kept in does not matter).  When some are kept, the groups given up are
    made whole and ``pmax`` is the best part count of all canonical guesses, as _phase2
    makes it.  Returns how many were kept (n = nviable), -1 when stopped."""
    cdef const KData* kd = s.d
    cdef Py_ssize_t i, j, npool, ninfo = 0, g0, n, col, ng = s.ng, whole = (s.ng >> 5) << 5
    cdef const int32_t* pool
    cdef bint check, killed
    cdef int32_t g
    cdef uint32_t bits
    cdef int pmax = 0
    cdef int64_t scanned = 0
    pool = _guesses_of(s, y, &npool, &check)
    _canonical_groups(s, y, pool, npool, check)
    killed = _kill_multisets(s, c, m, cap)
    _scan_wants(s, killed)
    g0 = 0
    while g0 < ng:
        if _poll(s):
            return -1
        n = 4096 if ng - g0 > 4096 else ng - g0
        _label_scan(s.lptr, m, g0, n, kd.nslots, kd.win, <int>cap, s.gscan + (g0 >> 5),
                    s.gstats + g0, s.gstats + ng + g0, s.gstats + 2 * ng + g0,
                    s.gfull + (g0 >> 5))
        g0 += n
    if check:
        for i in range(npool):
            g = pool[i]
            if _set_canonical(&s.sym, y, g):
                scanned += 1
                ninfo = _keep(s, c, m, g, s.colof[g], cap, pk, info, ninfo, &pmax)
    else:
        scanned = npool
        for j in range(ng >> 5):            # the groups counted in full, column order
            if s.gfull[j]:
                bits = s.gwant[j]
                while bits:
                    col = (j << 5) + __builtin_ctzll(bits)
                    bits &= bits - 1
                    ninfo = _keep(s, c, m, s.guesses[s.colg[col]], col, cap, pk, info,
                                  ninfo, &pmax)
        for i in range(npool if whole < ng else 0):     # the columns past the groups
            if s.colof[pool[i]] >= whole:
                ninfo = _keep(s, c, m, pool[i], s.colof[pool[i]], cap, pk, info, ninfo,
                              &pmax)
    s.scanned += scanned
    if ninfo > 0:
        pmax = _groups_pmax(s, m, y, check, pmax, killed)
        s.gstats_ok = True
    pmax_out[0] = pmax
    nviable_out[0] = ninfo
    return ninfo


cdef inline bint _rows_scan(SData* s, const int32_t* c, Py_ssize_t m, int d) noexcept nogil:
    """Whether the d-left node c is ranked through its label matrix (_phase1_rows): d = 3,
    the rule on, every guess a label column, the matrix made (False when memory is
    short: the node then scans the plain way)."""
    cdef uint8_t* grown
    if d != 3 or s.counts_off or not s.rows_are_guesses or s.cands_only or s.lrow == NULL:
        return False
    if s.gstats == NULL:
        grown = <uint8_t*>malloc(3 * s.ng + 1)
        s.gwant = <uint32_t*>malloc(((s.ng >> 5) + 1) * sizeof(uint32_t))
        s.gscan = <uint32_t*>malloc(((s.ng >> 5) + 1) * sizeof(uint32_t))
        s.gfull = <uint8_t*>malloc((s.ng >> 5) + 1)
        if grown == NULL or s.gwant == NULL or s.gscan == NULL or s.gfull == NULL:
            free(grown)
            free(s.gwant)
            free(s.gscan)
            free(s.gfull)
            s.gwant = NULL
            s.gscan = NULL
            s.gfull = NULL
            return False
        s.gstats = grown
    return _build_lmat(s, c, m)


cdef int _phase2(SData* s, const int32_t* c, Py_ssize_t m, int pbound,
                 const GuessInfo* info, Py_ssize_t ninfo, const uint64_t* pk,
                 int pmax) noexcept nogil:
    """Phase 2: the scans phase 1 gave up finished, for the node's exact best part count
    (``pmax`` the best so far; at most ``pbound``).  Returns it, or -1 when stopped."""
    cdef uint32_t h[MAX_SLOTS]
    cdef Py_ssize_t i
    cdef int nparts
    cdef int32_t largest
    for i in range(ninfo):
        if (i & 255) == 255 and m > 256 and _poll(s):
            return -1
        if info[i].maxpart < 0 and pmax < pbound:
            if pk != NULL:
                _hist_packed(s.d, info[i].guess, pk, m, h)
            else:
                _hist(s.d, info[i].guess, c, m, h)
            nparts = _parts_of(s.d, h, &largest)
            if nparts > pmax:
                pmax = nparts
    return pmax if pmax < pbound else pbound


cdef Py_ssize_t _rank(SData* s, const int32_t* c, Py_ssize_t m, int d, int pbound,
                      const int32_t* pool, Py_ssize_t npool, const SetSym* y,
                      GuessInfo* info, const uint64_t* pk, int* pmax_out) noexcept nogil:
    """The guesses of ``pool`` worth trying at the node c (d guesses left, no guess making
    more than ``pbound`` non-winning parts), in the order they are tried: info[0..n),
    sorted by (key, candidates first, largest part, index) after phases 1 and 2 and the
    guesses leaving a part larger than N_pmax(d-1) dropped.  Returns n (0 when no guess
    survives phase 1), RANK_REFUTED when counting refutes the node, RANK_STOPPED when
    the search was stopped; ``pmax_out``: the node's best part count (it bounds every
    descendant).  ``pk``: the packed candidates for the vector scans (_packs), or NULL."""
    cdef const uint64_t* pb = _bytes_of(s.d, pk, m) if pk != NULL else NULL
    cdef int64_t cap = _ncount(pbound, d - 1)
    cdef Py_ssize_t ninfo, nviable = 0, i, j
    cdef int pmax = 0
    cdef bint early = False
    s.gstats_ok = False
    if s.lrow != NULL and _rows_scan(s, c, m, d):
        ninfo = _phase1_rows(s, c, m, y, cap, info, pk, &pmax, &nviable)
    else:
        ninfo = _phase1(s, c, m, pool, npool, y, cap, info, pb, &pmax, &nviable, &early)
    if ninfo < 0:
        return RANK_STOPPED
    if nviable == 0:
        s.false_cheap += 1
        return 0
    if early:
        pmax = _phase2(s, c, m, pbound, info, ninfo, pk, pmax)
        if pmax < 0:
            return RANK_STOPPED
    elif pmax > pbound:
        pmax = pbound
    pmax_out[0] = pmax
    cap = _ncount(pmax, d - 1)
    if m > 1 + pmax * cap:
        return RANK_REFUTED
    j = 0
    for i in range(ninfo):                  # parts larger than N_pmax(d-1) are hopeless
        if 0 <= info[i].maxpart <= cap:
            info[j] = info[i]
            j += 1
    qsort(info, j, sizeof(GuessInfo), _cmp_guess)
    return j
