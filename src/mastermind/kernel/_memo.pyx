# cython: language_level=3
"""The memo of exact candidate sets (declared in _memo.pxd): a hash table with open
addressing, grown by doubling while its memory allows.

The caller guarantees: sets sorted (the same set is always the same array), hashes made
by ``_hash_set`` with the same tag, one thread at a time.
"""

from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy

from mastermind.kernel._core cimport free_structs, new_structs


cdef enum:
    FIRST_CAP = 1 << 16


cdef int _memo_init(Memo* t, size_t mem_limit) noexcept nogil:
    """An empty memo that may hold ``mem_limit`` bytes (at least its first table);
    -1 when out of memory."""
    t.cap = FIRST_CAP
    t.used = 0
    t.tab = <MemoEntry*>new_structs(t.cap, sizeof(MemoEntry), True)
    t.mem = t.cap * sizeof(MemoEntry)
    t.mem_limit = mem_limit if mem_limit > t.mem else t.mem
    return 0 if t.tab != NULL else -1


cdef void _memo_free(Memo* t) noexcept nogil:
    cdef Py_ssize_t i
    if t.tab != NULL:
        for i in range(t.cap):
            free(t.tab[i].cset)
        free_structs(t.tab)
    t.tab = NULL
    t.cap = 0
    t.used = 0


cdef MemoEntry* _memo_find(Memo* t, const int32_t* c, Py_ssize_t m, int32_t tag, uint64_t h,
                           bint insert) noexcept nogil:
    """The entry of (set c, tag) (created, blank, when ``insert`` and memory allows), or
    NULL.  Plain Python: ``memo.setdefault((tuple(c), tag), blank) if insert else
    memo.get((tuple(c), tag))``."""
    cdef Py_ssize_t i, j, newcap
    cdef MemoEntry* e
    cdef MemoEntry* grown
    if t.cap == 0:
        return NULL
    i = <Py_ssize_t>(h & <uint64_t>(t.cap - 1))
    while True:
        e = &t.tab[i]
        if e.cset == NULL:
            break
        if (e.h == h and e.m == m and e.tag == tag
                and memcmp(e.cset, c, m * sizeof(int32_t)) == 0):
            return e
        i = (i + 1) & (t.cap - 1)
    if not insert or t.mem + m * sizeof(int32_t) > t.mem_limit:
        return NULL
    if 2 * (t.used + 1) > t.cap:            # grow, then look for the free slot again
        newcap = 2 * t.cap
        if t.mem + newcap * sizeof(MemoEntry) > t.mem_limit:
            return NULL
        grown = <MemoEntry*>new_structs(newcap, sizeof(MemoEntry), True)
        if grown == NULL:
            return NULL
        for j in range(t.cap):
            if t.tab[j].cset != NULL:
                i = <Py_ssize_t>(t.tab[j].h & <uint64_t>(newcap - 1))
                while grown[i].cset != NULL:
                    i = (i + 1) & (newcap - 1)
                grown[i] = t.tab[j]
        free_structs(t.tab)
        t.mem += (newcap - t.cap) * sizeof(MemoEntry)
        t.tab = grown
        t.cap = newcap
        i = <Py_ssize_t>(h & <uint64_t>(t.cap - 1))
        while t.tab[i].cset != NULL:
            i = (i + 1) & (t.cap - 1)
    e = &t.tab[i]
    e.cset = <int32_t*>malloc(m * sizeof(int32_t))
    if e.cset == NULL:
        return NULL
    memcpy(e.cset, c, m * sizeof(int32_t))
    e.h = h
    e.m = <int32_t>m
    e.tag = tag
    e.guess = -1
    e.lo = 0
    e.hi = 127
    e.value = -1
    e.lower = 0
    t.used += 1
    t.mem += m * sizeof(int32_t)
    return e
