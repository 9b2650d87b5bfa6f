# cython: language_level=3
"""What the kernel's modules share: a game's scoring data (``KData``), the C helpers of
``_kernel.h``, and the scoring primitives.

The primitives are ``inline`` here so that every module cimporting them compiles them
into its own loops (a call through another module's function pointer could not be
inlined).  The few larger routines (``_hist``, ``_hist_packed``, ``_new_pack``) are
defined in ``_core.pyx`` and reached through Cython's exported function pointers; they
are called once per guess, never per pair.

Everything trusts its caller: code indices are in range, arrays hold what the comments
say, candidates are sorted.  ``mastermind.game`` and ``mastermind.custom`` check that
before building a :class:`Kernel`, and every caller above checks its own arguments.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t, INT64_MAX
from libc.stdlib cimport realloc
from libc.string cimport memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

cdef extern from "_kernel.h" nogil:
    int popcount "MM_POPCOUNT"(uint64_t x)
    void _atomic_add "MM_ATOMIC_ADD"(int64_t* p, int64_t x)
    void _sort_u64 "mm_sort_u64"(uint64_t* v, Py_ssize_t m)
    Py_ssize_t vread_ssize "MM_VREAD_SSIZE"(Py_ssize_t* p)
    int vread "MM_VREAD"(int* p)
    void _atomic_min_ssize "mm_atomic_min_ssize"(Py_ssize_t* p, Py_ssize_t x)
    void MM_COUNT(long long x)
    long long MM_PAIRS()
    long long MM_EVALS()
    ctypedef struct Hist64 "mm_hist64":
        uint32_t c[64]
    # every heap array of structs: 64-byte aligned, freed by free_structs only
    void* new_structs "mm_new_structs"(size_t count, size_t size, int zeroed)
    void free_structs "mm_free_structs"(void* p)
    # the sanitizer build's read, by a twin, of what only its AVX-512 kernel reads
    void _twin_read "MM_TWIN_READ"(const void* p, size_t bytes)
    bint HAVE_LANES "MM_HAVE_LANES"
    bint HAVE_COUNT64 "MM_HAVE_COUNT64"
    const char* SIMD_NAME "MM_SIMD"
    uint64_t PAD_ONES "MM_PAD_ONES"(int n)
    void _count64b "mm_count64b"(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                                 const uint64_t* K, const uint64_t* H, Py_ssize_t n,
                                 const uint8_t* cl, int ncl, uint32_t* h)
    void _counts64b "mm_counts64b"(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                                   const uint64_t* K, const uint64_t* H, Py_ssize_t n,
                                   const uint8_t* cl, int ncl, uint32_t* out)
    void _count64 "mm_count64"(uint64_t g0, uint64_t g1, const uint64_t* pk, Py_ssize_t n,
                               const uint8_t* cl, int ncl, uint32_t* h)
    void _masks8 "mm_masks8"(const uint64_t* enc, const int32_t* gs, int nl,
                             const uint64_t* pk, Py_ssize_t m, uint64_t* out)
    unsigned _lanes "mm_lanes"(const uint64_t* enc, const int32_t* gs, int nl,
                               const uint64_t* pk, Py_ssize_t m, int kind, int64_t lim,
                               const int64_t* dx)
    uint64_t _separates64 "mm_separates64"(
        uint8_t* const* rows, const int32_t* idx, Py_ssize_t b, Py_ssize_t g0, uint64_t alive)
    uint64_t _at_least64 "mm_at_least64"(const uint8_t* a, int b)
    void _label_parts "mm_label_parts"(uint8_t* const* rows, Py_ssize_t m, Py_ssize_t g0,
                                       Py_ssize_t n, int nl, int win, uint8_t* parts,
                                       uint8_t* won)
    void _label_scan "mm_label_scan"(uint8_t* const* rows, Py_ssize_t m, Py_ssize_t g0,
                                     Py_ssize_t n, int nl, int win, int cap,
                                     const uint32_t* want, uint8_t* most, uint8_t* parts,
                                     uint8_t* won, uint8_t* full)
    int __builtin_ctz(unsigned int x)
    int __builtin_ctzll(unsigned long long x)


cdef enum:
    MAX_SLOTS = 48          # >= (8+1)(8+2)/2 - 1 = 44 slots for n = 8, rounded up
    MAX_DEPTH = 64          # deepest strategy tree the walk records
    DUMMY = MAX_SLOTS - 1   # where impossible cells fold to (never read)
    CHUNK = 256             # candidates packed at a time by the index-based histogram
    REC = 5                 # a tree record: parent, slot, guess, size, depth


# How a game's codes are held (``KData.mode``; the Python constants MODE_* of _core.pyx).
cdef enum:
    TWO_WORDS = 0           # encoded codes of two 64-bit words (n*k <= 64)
    FOUR_WORDS = 1          # encoded codes of four words (n*k <= 128)
    SCORE_TABLE = 2         # a table of score slots (custom games)


# Valuation kinds (``kind`` everywhere; the Python constants VAL_* of _core.pyx), named
# once in _kernel.h for its C and here: each is an integer key, lower is better.  The scans take the first four; KIND_FIRST (the
# first candidate) needs no scan.
cdef extern from "_kernel.h":
    cdef enum:
        KIND_MINMAX "MM_KIND_MINMAX"
        KIND_ENTROPY "MM_KIND_ENTROPY"
        KIND_PARTS "MM_KIND_PARTS"
        KIND_EXPECTED "MM_KIND_EXPECTED"
        KIND_FIRST "MM_KIND_FIRST"


# Why a kernel call stopped: one vocabulary for the StopFlag's value (STOP_NONE,
# STOP_REQUESTED, STOP_DEADLINE) and for every module's own reasons (the searches'
# ``aborted``, the walk's ``error``).  ``cpdef``: _core also exports them to Python.
cpdef enum:
    STOP_NONE = 0           # not stopped: running, or finished
    STOP_REQUESTED = 1      # StopFlag.set() (Ctrl-C, a unit no longer needed)
    STOP_DEADLINE = 2       # the StopFlag's deadline passed
    STOP_NODE_LIMIT = 3     # the worst-case search's node budget ran out
    STOP_MEMORY = 4         # out of memory
    STOP_TOO_DEEP = 5       # the walk's tree is deeper than MAX_DEPTH
    STOP_CANCELLED = 6      # an optimal-search worker's part no longer matters


cdef struct KData:
    int mode            # TWO_WORDS, FOUR_WORDS or SCORE_TABLE
    int n
    int k
    int nslots
    int win             # the winning slot (n, 0)
    int words           # uint64 words per encoded code: 2 or 4
    int shift           # histogram cell of a pair: (blacks << shift) | (blacks + whites)
    int cells           # (n + 1) << shift: histogram cells in use
    int injective       # every cell is a slot of its own (all but black-peg)
    const uint64_t* enc # encoded codes, ``words`` words each
    const uint8_t* digits # (N, n) colours 0..k-1 of every code (encoded modes)
    const uint32_t* colmask # bit c set when code i uses colour c (encoded modes)
    const uint8_t* table  # SCORE_TABLE: table[u * stride + v] = slot of s(u, v)
    Py_ssize_t stride
    const int64_t* xlogx  # xlogx[t] ~ t*log2(t) * 2^S, additive over prime factors
    const int64_t* dxlogx # xlogx[t + 1] - xlogx[t]
    Py_ssize_t ndx        # entries of dxlogx
    uint8_t slot_tab[256] # slot of (blacks << 4) | (blacks + whites)
    uint8_t fold[256]     # slot of cell (blacks << shift) | (blacks + whites); DUMMY if none
    const int32_t* msid   # two-word codes: the colour multiset of every code (NULL: none)
    const uint64_t* msw   # the count word of every multiset
    int nms               # multisets
    int tcells[16]        # cells (scores) of each total blacks + whites
    uint8_t clist[64]     # shift 3: the cells a pair can land in
    int ncl
    const uint64_t* benc  # byte forms (D, K[, H]) of every code (AVX2 or AVX-512, k <= 16)
    int bw                # words per code in benc: 2 (k <= 8) or 3
    const int32_t* code_of  # the code index of each row when the kernel holds only some
                          # codes (a variant's playable ones); NULL: rows are code indices
    # Per call (set on a copy of the Kernel's data by _with_stop, never on the Kernel's):
    int* stop             # a flag another thread may set (NULL: none): scans and walks
                          # that see it nonzero return at once, their results void;
                          # STOP_REQUESTED, or STOP_DEADLINE once the deadline passed
    double deadline       # CLOCK_MONOTONIC seconds after which scans stop (0: none)
    int64_t* polls        # looks at the flag left before it is set as by a deadline
                          # (NULL: no such count; StopFlag.stop_after_polls, for tests)


cdef class Kernel:
    cdef KData d
    cdef object _refs
    cdef object _dx
    cdef readonly int mode
    cdef readonly int nslots
    cdef readonly int win
    cdef readonly Py_ssize_t ncodes
    cdef readonly object universe   # the code index of each row (int32), or None: all codes
    cdef void _init(self, int nslots, int win, const int64_t[::1] xlogx)
    cdef void _benc_ptr(self, const uint64_t[:, ::1] benc)
    cdef void _ms_ptrs(self, const uint64_t[::1] msw, const int32_t[::1] msid)
    cdef void _code_of_ptr(self, const int32_t[::1] universe)
    cdef void _score_cells(self, const uint8_t[::1] slot_tab, int n)


cdef class StopFlag:
    cdef int flag
    cdef double deadline
    cdef int64_t polls


# ------------------------------------------------------------------ defined in _core.pyx
cdef uint64_t* _new_pack(const KData* d, const int32_t* c, Py_ssize_t m) noexcept nogil
cdef void _hist_packed(const KData* d, int32_t g, const uint64_t* pk, Py_ssize_t m,
                       uint32_t* h) noexcept nogil
cdef void _hist(const KData* d, int32_t g, const int32_t* c, Py_ssize_t m,
                uint32_t* h) noexcept nogil


# ------------------------------------------------------------------ stopping
cdef inline double _now() noexcept nogil:
    """CLOCK_MONOTONIC seconds."""
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


cdef inline KData _with_stop(const KData* d, StopFlag stop):
    """A copy of a Kernel's data for one call, with the caller's stop flag (or none)."""
    cdef KData out = d[0]
    out.stop = NULL
    out.deadline = 0
    out.polls = NULL
    if stop is not None:
        out.stop = &stop.flag
        out.deadline = stop.deadline
        if stop.polls >= 0:
            out.polls = &stop.polls
    return out


cdef inline bint _halted(const KData* d) noexcept nogil:
    """The caller asked to stop, or its deadline passed (then the flag is set to
    STOP_DEADLINE).  (Read every few guesses in the scans' loops: kept this small.)"""
    if d.stop == NULL:
        return False
    if vread(d.stop):
        return True
    if d.deadline > 0 and _now() > d.deadline:
        d.stop[0] = STOP_DEADLINE
        return True
    if d.polls != NULL:                 # (tests: a deadline at an exact look)
        if d.polls[0] <= 0:
            d.stop[0] = STOP_DEADLINE
            return True
        d.polls[0] -= 1
    return False


cdef inline int _stop_reason(const KData* d) noexcept nogil:
    """Why the caller wants the call to end: STOP_REQUESTED, STOP_DEADLINE (see
    _halted), or STOP_NONE when it does not."""
    if _halted(d):
        return vread(d.stop)
    return STOP_NONE


# ------------------------------------------------------------------ inline primitives
cdef inline int _slot(const KData* d, int32_t g, int32_t s) noexcept nogil:
    """The slot of s(g, s).  Plain Python: ``slots.index(score(code(g), code(s)))``."""
    cdef const uint64_t* a
    cdef const uint64_t* b
    if d.mode == TWO_WORDS:
        a = d.enc + 2 * <Py_ssize_t>g
        b = d.enc + 2 * <Py_ssize_t>s
        return d.slot_tab[(popcount(a[0] & b[0]) << 4) | popcount(a[1] & b[1])]
    elif d.mode == FOUR_WORDS:
        a = d.enc + 4 * <Py_ssize_t>g
        b = d.enc + 4 * <Py_ssize_t>s
        return d.slot_tab[((popcount(a[0] & b[0]) + popcount(a[1] & b[1])) << 4)
                          | (popcount(a[2] & b[2]) + popcount(a[3] & b[3]))]
    return d.table[<Py_ssize_t>g * d.stride + s]


cdef inline void _split_by_slot(const KData* d, int32_t g, const int32_t* c, Py_ssize_t m,
                                uint32_t* cnt, Py_ssize_t* off, int32_t* parts,
                                uint8_t* lab, int32_t* pidx) noexcept nogil:
    """The parts of guess g on c, by score slot (every family splits a set this way):
    cnt[slot] their sizes, off[slot] where each starts in parts (off holds nslots + 1
    entries), parts[off[slot]...] their codes in the order of c (a stable counting sort:
    the parts of a sorted c stay sorted), and pidx[...], when not NULL, each code's
    position in c.  lab (m bytes), when not NULL, keeps each code's slot between the
    two passes; without it each slot is computed twice.  Plain Python:
    ``parts = [x for sl in range(nslots) for x in c if slot(g, x) == sl]``."""
    cdef Py_ssize_t t
    cdef int sl, ns = d.nslots
    memset(cnt, 0, MAX_SLOTS * sizeof(uint32_t))
    if lab != NULL:
        for t in range(m):
            sl = _slot(d, g, c[t])
            lab[t] = <uint8_t>sl
            cnt[sl] += 1
    else:
        for t in range(m):
            cnt[_slot(d, g, c[t])] += 1
    off[0] = 0
    for sl in range(ns):
        off[sl + 1] = off[sl] + cnt[sl]
    for t in range(m):
        sl = lab[t] if lab != NULL else _slot(d, g, c[t])
        parts[off[sl]] = c[t]
        if pidx != NULL:
            pidx[off[sl]] = <int32_t>t
        off[sl] += 1
    for sl in range(ns):                    # back to the part starts
        off[sl] -= cnt[sl]


cdef inline uint32_t _cell(uint64_t p0, uint64_t p1, const uint64_t* v) noexcept nogil:
    """The histogram cell (blacks << 3) + blacks + whites of guess words (p0, p1)
    against the two-word code at v."""
    return (popcount(p0 & v[0]) << 3) + popcount(p1 & v[1])


cdef inline const uint64_t* _bytes_of(const KData* d, const uint64_t* pk,
                                      Py_ssize_t m) noexcept nogil:
    """The byte forms in an array made by _new_pack (NULL if none): D, then K (then H),
    each padded to a multiple of 8 codes."""
    if d.benc == NULL:
        return NULL
    return pk + 2 * ((m + 7) & ~(<Py_ssize_t>7))


cdef inline uint32_t _absent_but_smallest(const KData* d, const int32_t* c,
                                          Py_ssize_t m) noexcept nogil:
    """The colours no code of c has, but the smallest of them (a bit per colour): such a
    colour scores like a blank against every code of c, so a guess using it partitions c
    as the same guess with the smallest absent colour in its place (a smaller index)."""
    cdef uint32_t present = 0, absent
    cdef Py_ssize_t i
    for i in range(m):
        present |= d.colmask[c[i]]
    absent = ((1u << d.k) - 1) & ~present
    return absent & (absent - 1)


cdef inline Py_ssize_t _append_record(int32_t** rec, Py_ssize_t* nrec, Py_ssize_t* caprec,
                                      Py_ssize_t parent, int slot, int32_t guess,
                                      Py_ssize_t size, int depth) noexcept nogil:
    """Append (parent, slot, guess, size, depth) to a growing array of tree records (the
    form the walk and the optimal search hand their trees back in); its index, or -1 when
    memory runs out (the array is then unchanged)."""
    cdef int32_t* grown
    cdef Py_ssize_t cap
    if nrec[0] == caprec[0]:
        cap = 2 * caprec[0] + 64
        grown = <int32_t*>realloc(rec[0], cap * REC * sizeof(int32_t))
        if grown == NULL:
            return -1
        rec[0] = grown
        caprec[0] = cap
    cdef int32_t* r = rec[0] + nrec[0] * REC
    r[0] = <int32_t>parent
    r[1] = slot
    r[2] = guess
    r[3] = <int32_t>size
    r[4] = depth
    nrec[0] += 1
    return nrec[0] - 1


cdef inline void _cells_of_bytes(const KData* d, int32_t g, const uint64_t* pb, Py_ssize_t m,
                                 uint32_t* h) noexcept nogil:
    """Add to h[cell] the cells of the m codes in byte form pb (from _bytes_of) against
    guess g, 64 codes at a time."""
    cdef Py_ssize_t i = 0, padded = (m + 7) & ~(<Py_ssize_t>7)
    while i < m:
        _count64b(d.benc[d.bw * <Py_ssize_t>g] - PAD_ONES(d.n),
                  d.benc[d.bw * <Py_ssize_t>g + 1],
                  d.benc[d.bw * <Py_ssize_t>g + 2] if d.bw == 3 else 0,
                  pb + i, pb + padded + i, pb + 2 * padded + i if d.bw == 3 else NULL,
                  m - i if m - i < 64 else 64, d.clist, d.ncl, h)
        i += 64


cdef inline bint _splits_all(const KData* d, int32_t g, const int32_t* c,
                             Py_ssize_t m) noexcept nogil:
    """True when guess g gives every code of c a different score."""
    cdef uint64_t seen = 0, bit
    cdef Py_ssize_t j
    for j in range(m):
        bit = (<uint64_t>1) << _slot(d, g, c[j])
        if seen & bit:
            return False
        seen |= bit
    return True


cdef inline int64_t _value(const KData* d, const uint32_t* h, int kind) noexcept nogil:
    """The valuation of a partition table as an integer key, *lower is better* for all.

    minmax: max part; entropy: sum t*log2(t) (exact integer image, see build_xlogx);
    parts: minus the number of non-empty parts; expected-size: sum t^2.
    """
    cdef int64_t v = 0
    cdef int j
    cdef uint32_t t
    if kind == KIND_MINMAX:
        for j in range(d.nslots):
            if h[j] > v:
                v = h[j]
    elif kind == KIND_ENTROPY:
        for j in range(d.nslots):
            v += d.xlogx[h[j]]
    elif kind == KIND_PARTS:
        for j in range(d.nslots):
            v -= h[j] != 0
    else:
        for j in range(d.nslots):
            t = h[j]
            v += <int64_t>t * t
    return v


cdef inline int64_t _even_spread(const KData* d, int64_t N, int64_t cells,
                                 int kind) noexcept nogil:
    """The key of N candidates spread as evenly as can be over ``cells`` parts (cells >=
    1): the least key of any table of N candidates in that many parts, since every
    valuation is convex."""
    cdef int64_t q = N // cells
    cdef int64_t r = N % cells
    if kind == KIND_MINMAX:
        return q + (r != 0)
    if kind == KIND_ENTROPY:
        return r * d.xlogx[q + 1] + (cells - r) * d.xlogx[q]
    if kind == KIND_PARTS:
        return -(N if N < cells else cells)
    return r * (q + 1) * (q + 1) + (cells - r) * q * q
