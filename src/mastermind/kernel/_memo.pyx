# cython: language_level=3
"""The memo of exact candidate sets (declared in _memo.pxd): a hash table with open
addressing, grown by doubling while its memory allows; past that, an evicting memo lets
go of the entries least worth keeping (:func:`_memo_evict`), any other stores nothing new.

The caller guarantees: sets sorted (the same set is always the same array), hashes made
by ``_hash_set`` with the same tag, one thread at a time.
"""

from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy, memset

from mastermind.kernel._core cimport free_structs, new_structs


cdef enum:
    FIRST_CAP = 1 << 16
    LEVELS = 64             # the levels _memo_evict tells apart (the d an entry is for)


cdef inline size_t _set_bytes(Py_ssize_t m) noexcept nogil:
    """What a copied set of m codes takes from the allocator (glibc's chunk: the request
    and a word, rounded up to 16 bytes, at least 32)."""
    cdef size_t b = (<size_t>m * sizeof(int32_t) + 8 + 15) & ~(<size_t>15)
    return b if b >= 32 else 32


cdef int _memo_init(Memo* t, size_t mem_limit) noexcept nogil:
    """An empty memo that may hold ``mem_limit`` bytes (at least its first table);
    -1 when out of memory."""
    t.cap = FIRST_CAP
    t.used = 0
    t.tab = <MemoEntry*>new_structs(t.cap, sizeof(MemoEntry), True)
    t.mem = t.cap * sizeof(MemoEntry)
    t.mem_limit = mem_limit if mem_limit > t.mem else t.mem
    t.evicts = False
    t.evictions = 0
    t.evicted = 0
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
    cdef Py_ssize_t i
    cdef MemoEntry* e
    if t.cap == 0:
        return NULL
    i = <Py_ssize_t>(h & <uint64_t>(t.cap - 1))
    while True:
        e = &t.tab[i]
        if e.cset == NULL:
            break
        if (e.h == h and e.m == m and e.tag == tag
                and memcmp(e.cset, c, m * sizeof(int32_t)) == 0):
            e.ref = 1
            return e
        i = (i + 1) & (t.cap - 1)
    if not insert:
        return NULL
    if t.mem + _set_bytes(m) > t.mem_limit or 2 * (t.used + 1) > t.cap:
        if _memo_room(t, m) < 0:
            return NULL
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
    e.ref = 0
    e.value = -1
    e.lower = 0
    t.used += 1
    t.mem += _set_bytes(m)
    return e


cdef int _memo_room(Memo* t, Py_ssize_t m) noexcept nogil:
    """Room for one more entry of a set of m codes: the table grown (doubled) when it is
    half full and its memory allows, else, in an evicting memo, entries let go (down to
    half the memory the sets may take, and a quarter of the table); -1 when there is
    none (the entry is not stored).  Entries may move: the caller looks for its slot
    again."""
    cdef size_t table
    if 2 * (t.used + 1) > t.cap:
        _memo_grow(t)
    if t.evicts and (t.mem + _set_bytes(m) > t.mem_limit or 2 * (t.used + 1) > t.cap):
        table = t.cap * sizeof(MemoEntry)
        _memo_evict(t, table + (t.mem_limit - table) // 2 if t.mem_limit > table else table)
    if t.mem + _set_bytes(m) > t.mem_limit or 2 * (t.used + 1) > t.cap:
        return -1
    return 0


cdef int _memo_grow(Memo* t) noexcept nogil:
    """The table doubled, when its memory allows (0), else -1."""
    cdef Py_ssize_t i, j, newcap = 2 * t.cap
    cdef MemoEntry* grown
    if t.mem + newcap * sizeof(MemoEntry) > t.mem_limit:
        return -1
    grown = <MemoEntry*>new_structs(newcap, sizeof(MemoEntry), True)
    if grown == NULL:
        return -1
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
    return 0


cdef inline int _class_of(const MemoEntry* e) noexcept nogil:
    """The order in which entries are let go (lower first): by level, the d the entry
    is about (the smallest d proved solvable, else the largest proved not: a deeper
    question costs more to answer again), and within a level those not found since the
    last eviction first."""
    cdef int level = e.hi if e.hi < 127 else e.lo
    if level < 0:
        level = 0
    elif level >= LEVELS:
        level = LEVELS - 1
    return 2 * level + (1 if e.ref else 0)


cdef void _memo_evict(Memo* t, size_t keep) noexcept nogil:
    """Let go of entries, the lowest classes (:func:`_class_of`) first, until the memo
    holds at most ``keep`` bytes and a quarter of its table; the others kept (their
    ``ref`` cleared) and put in place again.  Sound for any choice: an entry only caches
    an answer the search proved, found again when it is needed."""
    cdef size_t bytes_of[2 * LEVELS]
    cdef Py_ssize_t count_of[2 * LEVELS]
    cdef Py_ssize_t i, j, kept = 0, want_used = t.cap // 4
    cdef size_t need = t.mem - keep if t.mem > keep else 0, freed = 0
    cdef Py_ssize_t need_n = t.used - want_used if t.used > want_used else 0, gone = 0
    cdef int cl, last = -1
    cdef MemoEntry* e
    cdef MemoEntry* keepers
    memset(bytes_of, 0, sizeof(bytes_of))
    memset(count_of, 0, sizeof(count_of))
    for i in range(t.cap):
        if t.tab[i].cset != NULL:
            cl = _class_of(&t.tab[i])
            bytes_of[cl] += _set_bytes(t.tab[i].m)
            count_of[cl] += 1
    for cl in range(2 * LEVELS):            # the classes let go whole, then the last in part
        if freed >= need and gone >= need_n:
            break
        last = cl
        freed += bytes_of[cl]
        gone += count_of[cl]
    if last < 0:
        return
    freed = gone = 0
    keepers = <MemoEntry*>new_structs(t.used + 1, sizeof(MemoEntry), False)
    for i in range(t.cap):
        e = &t.tab[i]
        if e.cset == NULL:
            continue
        cl = _class_of(e)
        if cl < last or (cl == last and (freed < need or gone < need_n)) or keepers == NULL:
            freed += _set_bytes(e.m)
            gone += 1
            t.mem -= _set_bytes(e.m)
            free(e.cset)
        else:
            keepers[kept] = e[0]
            keepers[kept].ref = 0
            kept += 1
        e.cset = NULL
    t.used = kept
    t.evictions += 1
    t.evicted += gone
    for j in range(kept):
        i = <Py_ssize_t>(keepers[j].h & <uint64_t>(t.cap - 1))
        while t.tab[i].cset != NULL:
            i = (i + 1) & (t.cap - 1)
        t.tab[i] = keepers[j]
    free_structs(keepers)
