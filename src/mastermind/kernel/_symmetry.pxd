# cython: language_level=3
"""Symmetry, shared by the walk and the searches: the group fixing a
history of guesses (``Sym``, for the strategy walk, whose results must equal the full
scan's) and the colour and position classes fixing a candidate set (``SetSym``, for the
exact searches, where any one guess per orbit will do)."""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t

from mastermind.kernel._core cimport KData


cdef enum:
    EL = 24                 # bytes per element of a Sym: pi[0..7], sigma[0..15]
    B_MAXN = 8              # pegs a SetSym handles
    B_MAXK = 16             # colours a SetSym handles
    B_MAXPERM = 720         # full position group up to this size, else transpositions


cdef struct Sym:
    int nel                 # elements; element 0 is the identity
    uint8_t* el             # nel * EL bytes (free it)
    uint32_t played         # colours used by some guess of the history


# What the set symmetry reads about the codes: their colours, the place value of each
# position, and a scratch array of one flag per code index (all 0 between uses).
cdef struct SymCtx:
    const uint8_t* digits   # rows * n, colours 0..k-1
    const uint32_t* cmask   # colours of each row, one bit per colour
    const int32_t* code_of  # the code index of each row (NULL: rows are code indices)
    int n
    int k
    int64_t pw[B_MAXN]      # k^(n-1-p)
    uint8_t* mark           # one flag per code index (k^n), all 0 between uses
    int use_sym             # look for colour and position classes
    int merge_dead          # the guess set is every code: absent colours are merged


cdef struct SetSym:
    int trivial
    uint32_t dead_other     # absent colours but the smallest: guesses using them are skipped
    int sym_col             # some colour class has two members or more
    int ncol                # colour classes
    int8_t ccls[B_MAXK]     # class of each colour
    int8_t cmem[B_MAXK][B_MAXK]   # members of each class, ascending
    int8_t csize[B_MAXK]
    int nperm               # position permutations besides the identity
    uint8_t* perms          # nperm * n (free it)


cdef enum:
    CANON_SLOTS = 16        # canonical guess lists a CanonCache keeps
    CANON_MAX_POOL = 1 << 20    # pools larger than this are not cached (4 MiB a list)
    CANON_KEY_MAX = 8 + B_MAXK + B_MAXPERM * B_MAXN


# The canonical members of a guess pool under a SetSym's classes, kept for the next node
# with the same classes: the nodes of a search share a handful of them (the colours no
# guess above has told apart), so a node's guesses are read from a list instead of
# being tested one by one.
cdef struct CanonEntry:
    uint8_t* key            # the SetSym's classes, serialised (_canon_key); NULL: empty
    Py_ssize_t nkey
    int32_t* guesses        # the canonical guesses, in the pool's order
    Py_ssize_t n
    int64_t used            # the cache's tick when last used


cdef struct CanonCache:
    CanonEntry e[CANON_SLOTS]
    int64_t tick
    int64_t hits
    int64_t misses


cdef inline bint _sym_trivial(const KData* d, const Sym* s) noexcept nogil:
    """Only the identity, and at most one colour never played."""
    cdef uint32_t free_colours = ((1u << d.k) - 1) & ~s.played
    return s.nel == 1 and (free_colours & (free_colours - 1)) == 0


cdef int _sym_root(const KData* d, const int32_t* hist, Py_ssize_t t, Sym* out) noexcept nogil
cdef int _sym_child(const KData* d, const Sym* s, int32_t g, Sym* out) noexcept nogil
cdef bint _canonical(const KData* d, const Sym* s, int32_t g) noexcept nogil
cdef Py_ssize_t _canonical_guesses(const KData* d, const Sym* s, const int32_t* guesses,
                                   Py_ssize_t ng, int32_t* out) noexcept nogil
cdef int _set_sym_init(SymCtx* s, SetSym* y, const int32_t* c, Py_ssize_t m) noexcept nogil
cdef bint _set_canonical(const SymCtx* s, const SetSym* y, int32_t g) noexcept nogil
cdef const int32_t* _canonical_pool(CanonCache* cc, const SymCtx* s, const SetSym* y,
                                    const int32_t* pool, Py_ssize_t npool,
                                    Py_ssize_t* n) noexcept nogil
cdef void _canon_cache_free(CanonCache* cc) noexcept nogil
