# The worst-case search's colour-multiset counts at d = 3 nodes (included in _search.pyx,
# whose cimports it uses: a room of the module, not a module): before a node reads its
# label matrix, the multisets of its codes alone rule out the guesses of every colour
# multiset that must leave a part past the cap (``_kill_multisets``), whose columns the
# scan then skips (``_scan_wants``; the columns are grouped by multiset), and bound the
# parts of the others, which spares reading the groups that cannot raise the node's best
# part count (``_group_bounded``).  docs/bounds.md proves both.
#
# Trusts its caller for everything, as the search does: sets sorted and non-empty, buffers
# large enough.
#



cdef bint _kill_multisets(SData* s, const int32_t* c, Py_ssize_t m,
                          int64_t cap) noexcept nogil:
    """s.mkill[ms] = 1 for each colour multiset ms of which every guess leaves a
    non-winning part of more than ``cap`` of the node's m codes c, and s.mub[ms] at
    least the non-winning parts any guess of ms makes; False when the game has no
    multisets to go by (then none is ruled out, s.mub unmade).

    blacks + whites of a pair depends only on the two codes' colour counts: a guess of
    multiset ms puts the N_t codes of each total t in the tcells[t] scores of that total,
    so one of them holds at least ceil(N_t / tcells[t]) codes (a non-winning one when
    that is 2 or more: the winning score holds one code at most).  Counted from the
    node's multisets alone (few: a code's count word each), without a label read.  And
    at most min(N_t, tcells[t]) of those scores are parts (one fewer at t = n: the
    winning score is not counted)."""
    cdef const KData* kd = s.d
    cdef Py_ssize_t i, nq = 0
    cdef int ms, t, ub, cells
    cdef int64_t N[16]
    cdef int64_t N2[16]
    cdef uint64_t w
    cdef int32_t* seen = s.mseen
    if not s.ms_cols or s.ms_off:
        return False
    for i in range(m):                      # the node's multisets, each once
        ms = kd.msid[c[i]]
        if s.mcount[ms] == 0:
            seen[nq] = ms
            nq += 1
        s.mcount[ms] += 1
    for ms in range(kd.nms):
        w = kd.msw[ms]
        for t in range(kd.n + 1):
            N[t] = 0
            N2[t] = 0
        i = 0
        while i + 1 < nq:                   # two tables: the adds do not wait on each other
            N[popcount(w & kd.msw[seen[i]])] += s.mcount[seen[i]]
            N2[popcount(w & kd.msw[seen[i + 1]])] += s.mcount[seen[i + 1]]
            i += 2
        if i < nq:
            N[popcount(w & kd.msw[seen[i]])] += s.mcount[seen[i]]
        for t in range(kd.n + 1):
            N[t] += N2[t]
        s.mkill[ms] = 0
        ub = 0
        for t in range(kd.n + 1):
            cells = kd.tcells[t]
            if N[t] > cap * cells:          # (ceil(N_t / cells) > cap)
                s.mkill[ms] = 1
            if t == kd.n:
                cells -= 1
            ub += <int>N[t] if N[t] < cells else cells
        s.mub[ms] = <uint8_t>ub
    for i in range(nq):
        s.mcount[seen[i]] = 0
    return True


cdef void _scan_wants(SData* s, bint killed) noexcept nogil:
    """s.gscan: the columns of s.gwant the scan counts, but those of a multiset ruled out
    (``killed``: s.mkill made; a multiset's columns are s.mstart[ms]..s.mstart[ms + 1]);
    a group left with none is not read at all."""
    cdef Py_ssize_t col, end, ngrp = s.ng >> 5
    cdef int ms
    memcpy(s.gscan, s.gwant, ngrp * sizeof(uint32_t))
    if not killed:
        return
    for ms in range(s.d.nms):
        if s.mkill[ms]:
            end = s.mstart[ms + 1] if s.mstart[ms + 1] < (ngrp << 5) else ngrp << 5
            col = s.mstart[ms]
            while col < end and (col & 31):
                s.gscan[col >> 5] &= ~((<uint32_t>1) << (col & 31))
                col += 1
            while col + 32 <= end:
                s.gscan[col >> 5] = 0
                col += 32
            while col < end:
                s.gscan[col >> 5] &= ~((<uint32_t>1) << (col & 31))
                col += 1
    for col in range(ngrp):
        s.ms_groups += s.gwant[col] != 0 and s.gscan[col] == 0


cdef bint _group_bounded(SData* s, Py_ssize_t j, int pmax) noexcept nogil:
    """Whether every canonical guess of the column group j has at most pmax parts by its
    multiset's bound (s.mub); if so, the group's parts and wins are set to the bounds."""
    cdef uint32_t bits = s.gwant[j]
    cdef Py_ssize_t col
    while bits:
        col = (j << 5) + __builtin_ctzll(bits)
        bits &= bits - 1
        if s.mub[s.colms[col]] > pmax:
            return False
    for col in range(j << 5, (j + 1) << 5):
        s.gstats[s.ng + col] = s.mub[s.colms[col]]
        s.gstats[2 * s.ng + col] = 1
    return True
