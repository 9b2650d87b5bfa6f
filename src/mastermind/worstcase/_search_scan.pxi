# The worst-case search's scans of one guess that read only the game's data (no search
# state): a guess's part sizes with an early exit past a cap, through the candidates' byte
# forms 64 codes at a time or one code at a time; the count and largest of its non-winning
# parts; its split into parts; and N_p(d), the most codes d guesses can find when no guess
# fills more than p non-winning slots.  Included in _search.pyx, whose cimports it uses
# (a room of the module, not a module; its routines inline).
#


cdef inline int64_t _ncount(int64_t p, int d) noexcept nogil:
    """N_p(d) = 1 + p + ... + p^(d-1), capped at 2^50."""
    cdef int64_t t = 0
    cdef int i
    for i in range(d):  # no-cython-lint (a typed counter: d levels)
        t = 1 + p * t
        if t > (<int64_t>1 << 50):
            return <int64_t>1 << 50
    return t


cdef inline bint _scan_capped(const KData* kd, int32_t g, const uint64_t* pb, Py_ssize_t m,
                              int64_t cap, uint32_t* hc, uint32_t* h) noexcept nogil:
    """Phase 1 through the byte forms (an injective two-word game, ``pb`` its candidates'
    byte forms, _bytes_of): the cells of 64 codes at a time, the cap looked at after each
    64.  True when no non-winning part exceeds ``cap`` (then ``h`` holds the part sizes
    by slot), False as soon as one does.  ``hc``: 64 zeroed cells, zeroed on return."""
    cdef Py_ssize_t i = 0, padded = (m + 7) & ~(<Py_ssize_t>7)
    cdef uint64_t gD = kd.benc[kd.bw * <Py_ssize_t>g] - PAD_ONES(kd.n)
    cdef uint64_t gK = kd.benc[kd.bw * <Py_ssize_t>g + 1]
    cdef uint64_t gH = kd.benc[kd.bw * <Py_ssize_t>g + 2] if kd.bw == 3 else 0
    cdef int j, cell, win = (kd.n << 3) + kd.n
    cdef bint ok = True
    while i < m and ok:
        _count64b(gD, gK, gH, pb + i, pb + padded + i,
                  pb + 2 * padded + i if kd.bw == 3 else NULL,
                  m - i if m - i < 64 else 64, kd.clist, kd.ncl, hc)
        i += 64
        for j in range(kd.ncl):
            cell = kd.clist[j]
            if hc[cell] > cap and cell != win:
                ok = False
    if ok:
        memset(h, 0, MAX_SLOTS * sizeof(uint32_t))
        for j in range(kd.ncl):
            h[kd.fold[kd.clist[j]]] = hc[kd.clist[j]]
    for j in range(kd.ncl):
        hc[kd.clist[j]] = 0
    return ok


cdef inline bint _packs(const KData* kd, Py_ssize_t m) noexcept nogil:
    """Whether a node of m codes scans through its candidates' byte forms (the vector
    scans: an injective two-word game with byte forms, more than 16 codes)."""
    return (kd.injective and kd.mode == TWO_WORDS and kd.shift == 3 and kd.benc != NULL
            and m > 16)


cdef inline bint _scan_scalar(const KData* kd, int32_t g, const int32_t* c, Py_ssize_t m,
                              int64_t cap, uint32_t* h, Py_ssize_t* scored) noexcept nogil:
    """Phase 1 the plain way: h = the part sizes of guess g on c, given up (False) as soon
    as a non-winning part exceeds ``cap``; ``scored``: the pairs scored."""
    cdef Py_ssize_t t
    cdef int sl, win = kd.win
    memset(h, 0, MAX_SLOTS * sizeof(uint32_t))
    for t in range(m):
        sl = _slot(kd, g, c[t])
        h[sl] += 1
        if h[sl] > cap and sl != win:
            scored[0] = t + 1
            return False
    scored[0] = m
    return True


cdef inline int _parts_of(const KData* kd, const uint32_t* h, int32_t* maxpart) noexcept nogil:
    """The number of non-empty non-winning parts of h, and in ``maxpart`` the largest."""
    cdef int sl, nparts = 0
    cdef int32_t mx = 0
    for sl in range(kd.nslots):
        if sl != kd.win and h[sl]:
            nparts += 1
            if <int32_t>h[sl] > mx:
                mx = h[sl]
    maxpart[0] = mx
    return nparts
