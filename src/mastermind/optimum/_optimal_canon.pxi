# The optimal search's memo of sets up to symmetry (included in _optimal.pyx, whose cimports
# it uses: a room of the module, not a module; its routines inline): a set's image under a
# colour and position permutation chosen from the set's own counts (``_canon_image``), under
# which the memo also keeps what the search learns of the set, so that a set equal to it up
# to such a permutation (the same least total) finds it there.
#
# The image is always the set's image under some permutation of the group, whatever ties
# the counts leave (a tie is broken by the original order), so two sets with the same image
# are equivalent: the key is sound; it is not always the same for two equivalent sets (the
# ties), which costs only missed answers.  Used only where every guess of the search is
# allowed for every set up to those permutations (a symmetric game: every code, or the
# candidates alone) and the codes' colours are at hand (encoded games).
#
# Trusts its caller: sets non-empty, ``key`` of m entries.
#


cdef enum:
    CANON_MIN = 8           # sets of at least this many codes are looked up by their
                            # image before their scan, and remembered under it
    CANON_FLOOR = 15        # ... and a part of this many codes or more before its guess
                            # is explored (its floor: measured, smaller parts cost more
                            # looking up than they save)
    CANON_TAG = 1 << 20     # the memo tag's bit of an entry keyed by an image
    CANON_N = 8             # the most positions ...
    CANON_K = 16            # ... and colours of a game whose sets have images
    CANON_STACK = 64        # images of at most this many codes are made on the stack


cdef inline bint _canon_game(const KData* d, bint use_sym) noexcept nogil:
    """Whether the search keys sets by their images: a symmetric encoded game whose code
    indices fit an int32."""
    cdef int64_t size = 1
    cdef int _p
    if not use_sym or d.mode == SCORE_TABLE or d.digits == NULL:
        return False
    if d.n > CANON_N or d.k > CANON_K:
        return False
    for _p in range(d.n):
        size *= d.k
    return size < (<int64_t>1 << 31)


cdef inline int _cmp_int32(const void* a, const void* b) noexcept nogil:
    cdef int32_t x = (<const int32_t*>a)[0], y = (<const int32_t*>b)[0]
    return (x > y) - (x < y)


cdef inline void _sort_ints(int32_t* v, Py_ssize_t m) noexcept nogil:
    """v[0..m) in increasing order: by insertion for a few, else qsort."""
    cdef Py_ssize_t a, j
    cdef int32_t t
    if m > 48:
        qsort(v, m, sizeof(int32_t), _cmp_int32)
        return
    for a in range(1, m):
        t = v[a]
        j = a
        while j > 0 and v[j - 1] > t:
            v[j] = v[j - 1]
            j -= 1
        v[j] = t


cdef inline bint _col_before(const int32_t* cnt, const int* pos, int n, int a,
                             int b) noexcept nogil:
    """Colour a before colour b: more codes with it at the first position (in the order
    ``pos``), then at the next ..., then the smaller colour."""
    cdef int j
    for j in range(n):
        if cnt[pos[j] * CANON_K + a] != cnt[pos[j] * CANON_K + b]:
            return cnt[pos[j] * CANON_K + a] > cnt[pos[j] * CANON_K + b]
    return a < b


cdef inline bint _pos_before(const int32_t* srt, int k, int a, int b) noexcept nogil:
    """Position a before position b: its colour counts, sorted from the most, larger
    lexicographically, then the smaller position."""
    cdef int j
    for j in range(k):
        if srt[a * CANON_K + j] != srt[b * CANON_K + j]:
            return srt[a * CANON_K + j] > srt[b * CANON_K + j]
    return a < b


cdef inline void _sort_desc(int32_t* v, int k) noexcept nogil:
    cdef int a, j
    cdef int32_t t
    for a in range(1, k):
        j = a
        while j > 0 and v[j - 1] < v[j]:
            t = v[j - 1]
            v[j - 1] = v[j]
            v[j] = t
            j -= 1


cdef inline void _canon_order(const KData* d, const int32_t* c, Py_ssize_t m, int* pos,
                              int* cmap) noexcept nogil:
    """The permutation of c's image: the positions in the order ``pos`` (by their sorted
    colour counts) and the colours renamed by ``cmap`` (by their counts position by
    position in that order)."""
    cdef int32_t cnt[CANON_N * CANON_K]
    cdef int32_t srt[CANON_N * CANON_K]
    cdef int col[CANON_K]
    cdef int n = d.n, k = d.k, p, j, a, t
    cdef Py_ssize_t i
    for p in range(n * CANON_K):
        cnt[p] = 0
    for i in range(m):
        for p in range(n):
            cnt[p * CANON_K + d.digits[<Py_ssize_t>c[i] * n + p]] += 1
    for p in range(n):
        for j in range(k):
            srt[p * CANON_K + j] = cnt[p * CANON_K + j]
        _sort_desc(&srt[p * CANON_K], k)
        pos[p] = p
        for a in range(p, 0, -1):           # insertion: pos[0..p] in order
            if not _pos_before(srt, k, pos[a], pos[a - 1]):
                break
            t = pos[a]
            pos[a] = pos[a - 1]
            pos[a - 1] = t
    for j in range(k):
        col[j] = j
        for a in range(j, 0, -1):
            if not _col_before(cnt, pos, n, col[a], col[a - 1]):
                break
            t = col[a]
            col[a] = col[a - 1]
            col[a - 1] = t
    for j in range(k):
        cmap[col[j]] = j


cdef inline void _canon_image(const KData* d, const int32_t* c, Py_ssize_t m,
                              int32_t* key) noexcept nogil:
    """key = the sorted code indices of c's image (_canon_order's permutation)."""
    cdef int pos[CANON_N]
    cdef int cmap[CANON_K]
    cdef int n = d.n, k = d.k, j
    cdef Py_ssize_t i
    cdef const uint8_t* dg
    cdef int32_t v
    _canon_order(d, c, m, pos, cmap)
    for i in range(m):
        dg = d.digits + <Py_ssize_t>c[i] * n
        v = 0
        for j in range(n):
            v = v * k + cmap[dg[pos[j]]]
        key[i] = v
    _sort_ints(key, m)


cdef inline MemoEntry* _canon_entry(OData* o, const int32_t* key, Py_ssize_t m, int32_t tag,
                                    uint64_t ch, bint insert) noexcept nogil:
    """The memo's entry of an image (this search's, else the main search's when reading)."""
    cdef MemoEntry* e = _memo_find(&o.memo, key, m, tag | CANON_TAG, ch, insert)
    if e == NULL and not insert and o.shared != NULL:
        e = _memo_find(<Memo*>o.shared, key, m, tag | CANON_TAG, ch, False)
    return e
