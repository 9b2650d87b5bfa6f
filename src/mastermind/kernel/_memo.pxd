# cython: language_level=3
"""A memo of exact candidate sets, shared by the exact searches (_search.pyx: can a set be
solved within d guesses; _optimal.pyx: its least total): open addressing on a hash of the
sorted set and a tag (guesses left, or 0), the sets copied, the memory capped.  Past the
cap a memo stores nothing new and the searches go on without, or, when it ``evicts`` (the
worst-case search's), it lets go of entries to make room (``_memo_evict``: every entry
only caches a proved answer, so any can go).  Not thread-safe: one memo per thread."""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t


cdef struct MemoEntry:
    uint64_t h
    int32_t* cset           # NULL: empty slot
    int32_t m
    int32_t tag             # part of the key besides the set
    int32_t guess           # what the search stores: a guess that works, -1 none
    int8_t lo               #   the worst-case search: largest d proved unsolvable (0)
    int8_t hi               #   ... and smallest d proved solvable (127: none)
    uint8_t ref             # found since the last eviction (an evicting memo keeps these
                            # longer)
    int64_t value           #   the optimal search: the exact least total (-1: unknown)
    int64_t lower           #   ... and a proved lower bound of it (0)


cdef struct Memo:
    MemoEntry* tab
    Py_ssize_t cap          # a power of two
    Py_ssize_t used
    size_t mem              # bytes held (the table, each set with the allocator's overhead)
    size_t mem_limit
    bint evicts             # full: entries let go to make room (else nothing new stored)
    int64_t evictions       # times entries were let go
    int64_t evicted         # entries let go


cdef inline uint64_t _hash_set(const int32_t* c, Py_ssize_t m, int32_t tag) noexcept nogil:
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL ^ <uint64_t>m ^ (<uint64_t><uint32_t>tag << 40)
    cdef Py_ssize_t i
    for i in range(m):
        h = (h ^ <uint64_t><uint32_t>c[i]) * 0xBF58476D1CE4E5B9ULL
        h ^= h >> 31
    return h | 1                          # 0 is never a stored hash


cdef int _memo_init(Memo* t, size_t mem_limit) noexcept nogil
cdef void _memo_evict(Memo* t, size_t keep) noexcept nogil
cdef void _memo_free(Memo* t) noexcept nogil
cdef MemoEntry* _memo_find(Memo* t, const int32_t* c, Py_ssize_t m, int32_t tag, uint64_t h,
                           bint insert) noexcept nogil
