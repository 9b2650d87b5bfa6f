# The worst-case search's label rows and matrices (included in _search.pyx, whose
# cimports it uses: a room of the module, not a module; its routines stay out of line, as
# the search's hot path measured fastest):
# a code's slots against every guess (``_label_row``, made once a code), the matrix of a
# d = 3 node (``_build_lmat``), and the separation checks at two guesses left, the plain way
# (``_separating``) or through the matrix (``_sep_matrix``): is there a guess that puts every
# code of the set in a part of its own?
#
# Trusts its caller for everything, as the search does: sets sorted and non-empty, buffers
# large enough.
#



cdef int32_t _separating(SData* s, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """A guess that puts each code of c in its own slot, or -1 (-2: out of memory).
    Candidates first, then one guess per symmetry orbit (see :func:`_bcanonical`).

    Plain Python: ``next((g for g in pool if len({slot(g, v) for v in c}) == m), -1)``.
    """
    cdef const KData* d = s.d
    cdef Py_ssize_t i, npool
    cdef int32_t g, res = -1
    cdef const int32_t* pool
    cdef bint check
    cdef SetSym y
    s.leaves += 1
    if m > d.nslots:
        return -1
    for i in range(m):
        if _splits_all(d, c[i], c, m):
            return c[i]
    if s.cands_only or m == d.nslots:      # m = nslots: only a candidate can do it
        return -1
    if _set_sym_init(&s.sym, &y, c, m) < 0:
        return -2
    pool = _guesses_of(s, &y, &npool, &check)
    for i in range(npool):
        g = pool[i]
        if check and not _set_canonical(&s.sym, &y, g):
            continue
        if _splits_all(d, g, c, m):
            res = g
            break
    free(y.perms)
    return res


cdef int32_t _sep_matrix(const SData* s, uint8_t* const* lptr, const int32_t* idx,
                        Py_ssize_t b) noexcept nogil:
    """:func:`_separating` on the codes idx[0..b-1] of a d = 3 node, through its label
    matrix: a guess separates them iff its b labels differ pairwise.  Blocks of 64
    guesses (``mm_separates64``: a vector compare per pair of codes, the block given up
    as soon as no guess of it is left), then the last ones one by one: the first
    separating guess in the matrix's column order (s.colg).  With the node's classes (``s.ncls_ok``) only the
    guesses giving its codes b labels or more are looked at: the others cannot separate
    b of them (a block with none of them is skipped)."""
    cdef Py_ssize_t g0 = 0, t, j, ng = s.ng
    cdef uint64_t alive, seen, bit
    cdef const uint8_t* ncls = s.ncls if s.ncls_ok else NULL
    if b > s.d.nslots:
        return -1
    while g0 + 64 <= ng:
        alive = _at_least64(ncls + g0, <int>b) if ncls != NULL else ~(<uint64_t>0)
        if alive:
            alive = _separates64(lptr, idx, b, g0, alive)
            if alive:
                return s.guesses[s.colg[g0 + __builtin_ctzll(alive)]]
        g0 += 64
    for t in range(g0, ng):
        if ncls != NULL and ncls[t] < b:
            continue
        seen = 0
        for j in range(b):
            bit = (<uint64_t>1) << lptr[idx[j]][t]
            if seen & bit:
                break
            seen |= bit
        else:
            return s.guesses[s.colg[t]]
    return -1


cdef inline void _label_row(const SData* s, int32_t v, uint8_t* row) noexcept nogil:
    """row[i] = slot(guesses[colg[i]], v) for every column."""
    cdef Py_ssize_t i
    for i in range(s.ng):
        row[i] = <uint8_t>_slot(s.d, s.guesses[s.colg[i]], v)


cdef bint _build_lmat(SData* s, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """Point s.lptr at the label rows of the node c's codes, making the rows not made
    yet (kept while the rows fit in lrow_cap bytes, else made in lmat); False when
    memory is short."""
    cdef Py_ssize_t t, spare = 0
    cdef uint8_t* row
    cdef uint8_t** grown
    cdef uint8_t* more
    cdef size_t ng = <size_t>s.ng
    if m > s.lptr_cap:
        grown = <uint8_t**>realloc(s.lptr, m * sizeof(uint8_t*))
        if grown == NULL:
            return False
        s.lptr = grown
        s.lptr_cap = m
    cdef size_t kept = s.lrow_bytes
    for t in range(m):                      # the rows that will not be kept
        if s.lrow[c[t]] == NULL:
            if kept + ng <= s.lrow_cap:
                kept += ng
            else:
                spare += 1
    if <size_t>spare * ng > s.lmat_cap:
        if <size_t>spare * ng > (<size_t>64 << 20):
            return False
        more = <uint8_t*>realloc(s.lmat, spare * ng)
        if more == NULL:
            return False
        s.lmat = more
        s.lmat_cap = spare * ng
    spare = 0
    for t in range(m):
        row = s.lrow[c[t]]
        if row == NULL:
            if s.lrow_bytes + ng <= s.lrow_cap:
                row = <uint8_t*>malloc(ng)
                if row == NULL:
                    return False
                s.lrow[c[t]] = row
                s.lrow_bytes += ng
            else:
                row = s.lmat + spare * ng
                spare += 1
            _label_row(s, c[t], row)
        s.lptr[t] = row
    return True
