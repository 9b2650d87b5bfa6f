# cython: language_level=3
"""The choice-rule scan, shared with the strategy walk (_walk.pyx): the best guess so far
(``Best``) in the rule's order, and the scans defined in _scan.pyx."""

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t, INT64_MAX

from mastermind.kernel._core cimport KData, _even_spread


cdef struct Best:
    int64_t key
    int nc                  # 0: the guess is a candidate, 1: it is not, 2: no guess yet
    int32_t g


cdef inline void _best_init(Best* b) noexcept nogil:
    b.key = INT64_MAX
    b.nc = 2
    b.g = -1


cdef inline bint _offer(Best* b, int64_t key, int nc, int32_t g) noexcept nogil:
    """Keep (key, nc, g) if it beats the best so far in the rule's order."""
    if key < b.key or (key == b.key and (nc < b.nc or (nc == b.nc and g < b.g))):
        b.key = key
        b.nc = nc
        b.g = g
        return True
    return False


cdef inline int64_t _bound_noncandidate(const KData* d, Py_ssize_t m, int kind) noexcept nogil:
    """A lower bound on the key of any guess that is not one of the m candidates: such a
    guess spreads them over at most P = nslots - 1 slots (never the winning one)."""
    if d.nslots < 2:
        return INT64_MAX
    return _even_spread(d, m, d.nslots - 1, kind)


cdef int64_t* _class_bounds(const KData* d, const uint64_t* pk, Py_ssize_t m,
                            int kind) noexcept nogil
cdef Py_ssize_t _scan(const KData* d, int kind, const int32_t* guesses, Py_ssize_t ng,
                      const int32_t* c, const uint64_t* pk, Py_ssize_t m, Best* best,
                      uint32_t skip, int64_t floor, const int64_t* lbt,
                      bint lanes) noexcept nogil
cdef void _scan_parallel(const KData* d, int kind, const int32_t* guesses, Py_ssize_t ng,
                         const int32_t* c, const uint64_t* pk, Py_ssize_t m, Best* best,
                         int threads, uint32_t skip, int64_t floor,
                         const int64_t* lbt) noexcept nogil
cdef int32_t _best(const KData* d, const int32_t* guesses, Py_ssize_t ng,
                   const int32_t* c, Py_ssize_t m, int kind,
                   int64_t* out_key, int* out_cand, int threads) noexcept nogil
