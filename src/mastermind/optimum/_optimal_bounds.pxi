# The optimal search's lower bounds and part rows (included in _optimal.pyx, whose cimports
# it uses: a room of the module, not a module; its routines inline): what a guess's parts
# can cost at least, and the part sizes it makes.
#
# * ``_est(p, b, dl)`` / ``_est_table``: the least total of p codes when no guess makes more
#   than b non-winning parts, within dl guesses (INF when they cannot all be found): the
#   complete b-ary tree (docs/optimal.md proves it a lower bound).
# * ``_bound``: a guess's bound, |S| plus that estimate for each non-winning part.
# * ``_row`` / ``_cell_counts``: the part sizes of a guess on a set, by cell or by slot,
#   through the kernel's byte forms when the set has them.
# * ``_pairs``: how many codes share a part with an earlier one (0, 1 or 2 for more).
#
# Trusts its caller (the search) for everything: sets sorted and non-empty, scratch
# buffers zeroed and large enough, estimate tables of m + 1 entries.
#


cdef extern from *:
    """
    #define MM_OPT_INF ((int64_t)1 << 40)
    """
    int64_t INF "MM_OPT_INF"       # no strategy (beyond the guesses left)


cdef inline int64_t _est(int64_t p, int64_t b, int dl) noexcept nogil:
    """The least total of p codes when no guess makes more than b non-winning parts,
    within dl guesses (INF if they cannot all be found): 1 code at depth 1, b at depth 2,
    b^2 at depth 3...  Plain Python: the sum of depth * min(b**(depth-1), codes left)."""
    cdef int64_t total = 0, level = 1, take
    cdef int depth = 0
    if b < 1:
        b = 1
    while p > 0:
        depth += 1
        if depth > dl:
            return INF
        take = level if level < p else p
        total += take * depth
        p -= take
        if level < (<int64_t>1 << 40):
            level *= b
    return total


cdef inline void _est_table(int64_t* out, Py_ssize_t m, int64_t b, int dl) noexcept nogil:
    """out[p] = _est(p, b, dl) for p = 0..m, in one pass: the p-th code found costs the
    depth of the first level with room left."""
    cdef int64_t level = 1, room = 1, total = 0
    cdef int depth = 1
    cdef Py_ssize_t p
    if b < 1:
        b = 1
    out[0] = 0
    for p in range(1, m + 1):
        if room == 0:
            depth += 1
            if level < (<int64_t>1 << 40):
                level *= b
            room = level
        room -= 1
        if depth > dl or total >= INF:
            total = INF
        else:
            total += depth
        out[p] = total


cdef inline int _cell_counts(const KData* d, int32_t g, const uint64_t* pk,
                             const int32_t* c, Py_ssize_t m, uint32_t* h) noexcept nogil:
    """Add to h[cell] (zeroed, 64 cells) the candidates' cells (blacks << 3) + blacks +
    whites against guess g (two-word codes of an injective game).  Returns 0."""
    cdef const uint64_t* pb = _bytes_of(d, pk, m)
    cdef Py_ssize_t i
    cdef uint64_t p0, p1
    if pb != NULL:
        _cells_of_bytes(d, g, pb, m, h)
        return 0
    p0 = d.enc[2 * <Py_ssize_t>g]
    p1 = d.enc[2 * <Py_ssize_t>g + 1]
    for i in range(m):
        h[_cell(p0, p1, pk + 2 * i)] += 1
    return 0


cdef inline void _row(const KData* d, int32_t g, const uint64_t* pk, const int32_t* c,
                      Py_ssize_t m, bint cells, uint32_t* hh, uint32_t* row) noexcept nogil:
    """row = the part sizes guess g makes on c: by cell (d.clist order) when ``cells``,
    else by slot.  ``hh``: 64 zeroed cells of scratch, zeroed again on return."""
    cdef const uint64_t* pb
    cdef Py_ssize_t padded = (m + 7) & ~(<Py_ssize_t>7), at, n
    cdef uint32_t part[64]
    cdef int j
    if cells:
        pb = _bytes_of(d, pk, m)
        if pb != NULL:                      # the counts straight from the cells, 64
            for at in range(0, m, 64):      # codes at a time
                n = m - at if m - at < 64 else 64
                _counts64b(d.benc[d.bw * <Py_ssize_t>g] - PAD_ONES(d.n),
                           d.benc[d.bw * <Py_ssize_t>g + 1],
                           d.benc[d.bw * <Py_ssize_t>g + 2] if d.bw == 3 else 0,
                           pb + at, pb + padded + at,
                           pb + 2 * padded + at if d.bw == 3 else NULL,
                           n, d.clist, d.ncl, row if at == 0 else part)
                if at:
                    for j in range(d.ncl):
                        row[j] += part[j]
            return
        _cell_counts(d, g, pk, c, m, hh)
        for j in range(d.ncl):
            row[j] = hh[d.clist[j]]
            hh[d.clist[j]] = 0
    elif pk != NULL:
        _hist_packed(d, g, pk, m, row)
    else:
        _hist(d, g, c, m, row)


cdef inline int64_t _bound(const uint32_t* row, int nc, int win_j, Py_ssize_t m,
                           const int64_t* estt, int64_t* key2) noexcept nogil:
    """A guess's bound m + sum of estt over its non-winning parts (INF at most), and in
    ``key2`` the sum of its squared part sizes."""
    cdef int64_t lb = m, k2 = 0
    cdef uint32_t cnt
    cdef int j
    for j in range(nc):
        cnt = row[j]
        k2 += <int64_t>cnt * cnt
        if j != win_j:
            lb += estt[cnt]
    key2[0] = k2
    return lb if lb < INF else INF


cdef inline int _pairs(const KData* d, int32_t g, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """How many codes of c share a score with an earlier one under guess g, up to 2: 0
    when every code has a part of its own, 1 when exactly two share one."""
    cdef uint64_t seen = 0, bit
    cdef Py_ssize_t j
    cdef int dup = 0
    for j in range(m):
        bit = (<uint64_t>1) << _slot(d, g, c[j])
        if seen & bit:
            dup += 1
            if dup > 1:
                return 2
        seen |= bit
    return dup
