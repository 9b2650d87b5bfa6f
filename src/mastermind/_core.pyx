# cython: language_level=3
"""The Mastermind kernel: scoring, partitions, the best-guess scan and the strategy walk.

Everything here works on *code indices* (``int32``) into a table prepared once per game by
:mod:`mastermind.game`, and trusts its input: dtype, shape, range and sortedness are checked
by the Python layer before any call (module compiled with bounds checks off).

Two ways to score a pair of codes:

* **encoded** (the built-in games): each code is a few 64-bit words.  Bit ``i*k + c`` of the
  *position* word(s) says "position i has colour c"; bits ``c*n .. c*n + m - 1`` of the
  *count* word(s) are set when colour c occurs m times (a thermometer code).  Then
  ``popcount(pos_u & pos_v)`` is the number of blacks and ``popcount(cnt_u & cnt_v)`` is
  ``sum_c min(count_u(c), count_v(c))`` = blacks + whites.  With ``n*k <= 64`` a code is two
  words (``MODE_NARROW``), otherwise four (``MODE_WIDE``, up to n*k = 128).
* **table** (custom games): a dense ``uint8`` matrix of score slots over a universe of codes.

A score is reported as its *slot*: ``slot_tab[(blacks << 4) | (blacks + whites)]``.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t, INT64_MAX
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset
from libc.math cimport log2

import numpy as np

cdef extern from *:
    """
    #define MM_POPCOUNT(x) ((int)__builtin_popcountll(x))
    """
    int popcount "MM_POPCOUNT"(uint64_t x) noexcept nogil

cdef enum:
    MAX_SLOTS = 48          # >= (8+1)(8+2)/2 - 1 = 44 slots for n = 8, rounded up
    MAX_DEPTH = 64          # deepest strategy tree the walk records

# Public constants (mirrored in _core.pyi).
MODE_NARROW = 0
MODE_WIDE = 1
MODE_TABLE = 2
VAL_MINMAX = 0
VAL_ENTROPY = 1
VAL_PARTS = 2
VAL_EXPECTED = 3
VAL_FIRST = 4
SLOTS_CAPACITY = MAX_SLOTS
DEPTH_CAPACITY = MAX_DEPTH


cdef struct KData:
    int mode            # MODE_NARROW, MODE_WIDE or MODE_TABLE
    int nslots
    int win             # the winning slot (n, 0)
    const uint64_t* enc # encoded codes, 2 or 4 words each
    const uint8_t* table  # MODE_TABLE: table[u * stride + v] = slot of s(u, v)
    Py_ssize_t stride
    const int64_t* xlogx  # xlogx[t] ~ t*log2(t) * 2^S, additive over prime factors
    uint8_t slot_tab[256]


# --------------------------------------------------------------------------- scoring

cdef inline int _slot(const KData* d, int32_t g, int32_t s) noexcept nogil:
    cdef const uint64_t* a
    cdef const uint64_t* b
    if d.mode == 0:
        a = d.enc + 2 * <Py_ssize_t>g
        b = d.enc + 2 * <Py_ssize_t>s
        return d.slot_tab[(popcount(a[0] & b[0]) << 4) | popcount(a[1] & b[1])]
    elif d.mode == 1:
        a = d.enc + 4 * <Py_ssize_t>g
        b = d.enc + 4 * <Py_ssize_t>s
        return d.slot_tab[((popcount(a[0] & b[0]) + popcount(a[1] & b[1])) << 4)
                          | (popcount(a[2] & b[2]) + popcount(a[3] & b[3]))]
    return d.table[<Py_ssize_t>g * d.stride + s]


cdef void _hist(const KData* d, int32_t g, const int32_t* c, Py_ssize_t m,
                uint32_t* h) noexcept nogil:
    """h[slot] = number of candidates c[i] with s(g, c[i]) in that slot.

    Plain Python: ``for v in c: h[slot(g, v)] += 1``.  Four partial histograms break the
    store-to-load dependency when consecutive candidates fall in the same slot.
    """
    cdef uint32_t hh[4][MAX_SLOTS]
    cdef Py_ssize_t i, j
    cdef uint64_t p0, p1, p2, p3
    cdef const uint64_t* e = d.enc
    cdef const uint8_t* tab = d.slot_tab
    cdef const uint8_t* row
    memset(hh, 0, sizeof(hh))
    if d.mode == 0:
        p0 = e[2 * <Py_ssize_t>g]
        p1 = e[2 * <Py_ssize_t>g + 1]
        i = 0
        while i + 4 <= m:
            hh[0][tab[(popcount(p0 & e[2 * <Py_ssize_t>c[i]]) << 4)
                      | popcount(p1 & e[2 * <Py_ssize_t>c[i] + 1])]] += 1
            hh[1][tab[(popcount(p0 & e[2 * <Py_ssize_t>c[i + 1]]) << 4)
                      | popcount(p1 & e[2 * <Py_ssize_t>c[i + 1] + 1])]] += 1
            hh[2][tab[(popcount(p0 & e[2 * <Py_ssize_t>c[i + 2]]) << 4)
                      | popcount(p1 & e[2 * <Py_ssize_t>c[i + 2] + 1])]] += 1
            hh[3][tab[(popcount(p0 & e[2 * <Py_ssize_t>c[i + 3]]) << 4)
                      | popcount(p1 & e[2 * <Py_ssize_t>c[i + 3] + 1])]] += 1
            i += 4
        while i < m:
            hh[0][tab[(popcount(p0 & e[2 * <Py_ssize_t>c[i]]) << 4)
                      | popcount(p1 & e[2 * <Py_ssize_t>c[i] + 1])]] += 1
            i += 1
    elif d.mode == 1:
        p0 = e[4 * <Py_ssize_t>g]
        p1 = e[4 * <Py_ssize_t>g + 1]
        p2 = e[4 * <Py_ssize_t>g + 2]
        p3 = e[4 * <Py_ssize_t>g + 3]
        for i in range(m):
            j = 4 * <Py_ssize_t>c[i]
            hh[i & 3][tab[((popcount(p0 & e[j]) + popcount(p1 & e[j + 1])) << 4)
                          | (popcount(p2 & e[j + 2]) + popcount(p3 & e[j + 3]))]] += 1
    else:
        row = d.table + <Py_ssize_t>g * d.stride
        for i in range(m):
            hh[i & 3][row[c[i]]] += 1
    for j in range(d.nslots):
        h[j] = hh[0][j] + hh[1][j] + hh[2][j] + hh[3][j]


cdef inline int64_t _value(const KData* d, const uint32_t* h, int kind) noexcept nogil:
    """The valuation of a partition table as an integer key, *lower is better* for all.

    minmax: max part; entropy: sum t*log2(t) (exact integer image, see build_xlogx);
    parts: minus the number of non-empty parts; expected-size: sum t^2.
    """
    cdef int64_t v = 0
    cdef int j
    cdef uint32_t t
    if kind == 0:
        for j in range(d.nslots):
            if h[j] > v:
                v = h[j]
    elif kind == 1:
        for j in range(d.nslots):
            v += d.xlogx[h[j]]
    elif kind == 2:
        for j in range(d.nslots):
            v -= h[j] != 0
    else:
        for j in range(d.nslots):
            t = h[j]
            v += <int64_t>t * t
    return v


cdef int32_t _best(const KData* d, const int32_t* guesses, Py_ssize_t ng,
                   const int32_t* c, Py_ssize_t m, int kind,
                   int64_t* out_key, int* out_cand) noexcept nogil:
    """The choice rule over ``guesses`` (ascending): best key, then a candidate, then the
    smallest index.  Plain Python::

        min(guesses, key=lambda g: (value(hist(g)), hist(g)[win] == 0, g))
    """
    cdef uint32_t h[MAX_SLOTS]
    cdef int64_t key, best_key = INT64_MAX
    cdef int nc, best_nc = 2
    cdef int32_t g, best_g = -1
    cdef Py_ssize_t j
    for j in range(ng):
        g = guesses[j]
        _hist(d, g, c, m, h)
        key = _value(d, h, kind)
        nc = h[d.win] == 0
        if key < best_key or (key == best_key and nc < best_nc):
            best_key = key
            best_nc = nc
            best_g = g
    out_key[0] = best_key
    out_cand[0] = 1 - best_nc
    return best_g


# --------------------------------------------------------------------------- the walk

cdef struct Walk:
    const KData* d
    const int32_t* guesses
    Py_ssize_t nguesses
    int kind
    int cands_only          # guesses restricted to the node's candidates
    int shortcut_ok         # every secret is also a legal guess (|K| <= 2 shortcut)
    int32_t first           # guess at the walk's root, or -1 for the rule's choice
    int64_t dist[MAX_DEPTH + 2]
    int32_t* rec            # records of REC ints: parent, slot, guess, size, depth
    Py_ssize_t nrec
    Py_ssize_t caprec
    int record
    int error               # 1: out of memory, 2: deeper than MAX_DEPTH


cdef enum:
    REC = 5


cdef Py_ssize_t _record(Walk* w, Py_ssize_t parent, int slot, int32_t guess,
                        Py_ssize_t size, int depth) noexcept nogil:
    cdef int32_t* grown
    cdef Py_ssize_t cap
    if not w.record:
        return -1
    if w.nrec == w.caprec:
        cap = 2 * w.caprec + 64
        grown = <int32_t*>realloc(w.rec, cap * REC * sizeof(int32_t))
        if grown == NULL:
            w.error = 1
            return -1
        w.rec = grown
        w.caprec = cap
    cdef int32_t* r = w.rec + w.nrec * REC
    r[0] = <int32_t>parent
    r[1] = slot
    r[2] = guess
    r[3] = <int32_t>size
    r[4] = depth
    w.nrec += 1
    return w.nrec - 1


cdef void _walk(Walk* w, const int32_t* c, Py_ssize_t m, int depth,
                Py_ssize_t parent, int pslot, bint root) noexcept nogil:
    """Play the strategy against every candidate in ``c`` (sorted); ``depth`` is the number
    of the guess about to be made.  Adds to ``w.dist`` and, when recording, to ``w.rec``."""
    cdef const KData* d = w.d
    cdef int32_t g
    cdef int64_t key
    cdef int is_cand, s
    cdef Py_ssize_t i, node
    cdef uint32_t cnt[MAX_SLOTS]
    cdef Py_ssize_t off[MAX_SLOTS]
    cdef int32_t* parts
    cdef uint8_t* lab
    if w.error:
        return
    if depth > MAX_DEPTH:
        w.error = 2
        return
    if root and w.first >= 0:
        g = w.first
    elif m == 1 or w.kind == 4 or (m == 2 and w.shortcut_ok):
        # One candidate: play it.  Two: the first candidate splits them into a win and a
        # singleton, the best table any guess can give, so the rule picks it.
        g = c[0]
    elif w.cands_only:
        g = _best(d, c, m, c, m, w.kind, &key, &is_cand)
    else:
        g = _best(d, w.guesses, w.nguesses, c, m, w.kind, &key, &is_cand)
    node = _record(w, parent, pslot, g, m, depth)
    if m == 1 and c[0] == g:
        w.dist[depth] += 1
        return
    lab = <uint8_t*>malloc(m * sizeof(uint8_t))
    parts = <int32_t*>malloc(m * sizeof(int32_t))
    if lab == NULL or parts == NULL:
        free(lab)
        free(parts)
        w.error = 1
        return
    memset(cnt, 0, sizeof(cnt))
    for i in range(m):
        s = _slot(d, g, c[i])
        lab[i] = <uint8_t>s
        cnt[s] += 1
    off[0] = 0
    for s in range(1, d.nslots):
        off[s] = off[s - 1] + cnt[s - 1]
    for i in range(m):                      # stable counting sort: parts stay sorted
        parts[off[lab[i]]] = c[i]
        off[lab[i]] += 1
    free(lab)
    for s in range(d.nslots):
        if cnt[s] == 0:
            continue
        if s == d.win:
            w.dist[depth] += cnt[s]
        else:
            _walk(w, parts + off[s] - cnt[s], cnt[s], depth + 1, node, s, False)
    free(parts)


# --------------------------------------------------------------------------- Python API

cdef class Kernel:
    """Scoring data of one game, prepared once; every method trusts its arguments.

    Build it with :meth:`from_codes` (encoded codes) or :meth:`from_table` (score table);
    :class:`mastermind.game.Game` does both, after validation.
    """
    cdef KData d
    cdef object _refs
    cdef readonly int mode
    cdef readonly int nslots
    cdef readonly int win
    cdef readonly Py_ssize_t ncodes

    def __cinit__(self):
        self._refs = None

    @staticmethod
    def from_codes(const uint64_t[:, ::1] enc, const uint8_t[::1] slot_tab, int nslots,
                   int win, const int64_t[::1] xlogx):
        """enc: (N, 2) for n*k <= 64 or (N, 4); slot_tab: 256 slot numbers."""
        cdef Kernel k = Kernel.__new__(Kernel)
        cdef int i
        k.mode = MODE_NARROW if enc.shape[1] == 2 else MODE_WIDE
        k._init(nslots, win, xlogx)
        k.d.enc = &enc[0, 0]
        k.ncodes = enc.shape[0]
        for i in range(256):
            k.d.slot_tab[i] = slot_tab[i]
        k._refs = (enc.base if enc.base is not None else enc, xlogx)
        return k

    @staticmethod
    def from_table(const uint8_t[:, ::1] table, int nslots, int win,
                   const int64_t[::1] xlogx):
        """table: (U, U) score slots over a universe of U codes."""
        cdef Kernel k = Kernel.__new__(Kernel)
        k.mode = MODE_TABLE
        k._init(nslots, win, xlogx)
        k.d.table = &table[0, 0]
        k.d.stride = table.shape[1]
        k.ncodes = table.shape[0]
        k._refs = (table, xlogx)
        return k

    cdef void _init(self, int nslots, int win, const int64_t[::1] xlogx):
        self.nslots = nslots
        self.win = win
        self.d.mode = self.mode
        self.d.nslots = nslots
        self.d.win = win
        self.d.xlogx = &xlogx[0]
        self.d.enc = NULL
        self.d.table = NULL
        self.d.stride = 0

    def slot(self, int32_t u, int32_t v):
        """The score slot of s(u, v)."""
        return _slot(&self.d, u, v)

    def slots(self, int32_t guess, const int32_t[::1] cands):
        """uint8 array: ``[slot(guess, v) for v in cands]``."""
        out = np.empty(cands.shape[0], dtype=np.uint8)
        cdef uint8_t[::1] o = out
        cdef Py_ssize_t i
        with nogil:
            for i in range(cands.shape[0]):
                o[i] = <uint8_t>_slot(&self.d, guess, cands[i])
        return out

    def histogram(self, int32_t guess, const int32_t[::1] cands):
        """uint32 array of length nslots: the partition table of ``guess`` over ``cands``."""
        out = np.zeros(self.nslots, dtype=np.uint32)
        cdef uint32_t h[MAX_SLOTS]
        cdef uint32_t[::1] o = out
        cdef int j
        with nogil:
            _hist(&self.d, guess, &cands[0] if cands.shape[0] else NULL, cands.shape[0], h)
        for j in range(self.nslots):
            o[j] = h[j]
        return out

    def histograms(self, const int32_t[::1] guesses, const int32_t[::1] cands):
        """uint32 array (len(guesses), nslots): one partition table per guess."""
        out = np.zeros((guesses.shape[0], self.nslots), dtype=np.uint32)
        cdef uint32_t[:, ::1] o = out
        cdef uint32_t h[MAX_SLOTS]
        cdef Py_ssize_t i
        cdef int j
        cdef const int32_t* cp = &cands[0] if cands.shape[0] else NULL
        with nogil:
            for i in range(guesses.shape[0]):
                _hist(&self.d, guesses[i], cp, cands.shape[0], h)
                for j in range(self.nslots):
                    o[i, j] = h[j]
        return out

    def keys(self, const int32_t[::1] guesses, const int32_t[::1] cands, int kind):
        """int64 array: the valuation key (lower is better) of every guess."""
        out = np.empty(guesses.shape[0], dtype=np.int64)
        cdef int64_t[::1] o = out
        cdef uint32_t h[MAX_SLOTS]
        cdef Py_ssize_t i
        cdef const int32_t* cp = &cands[0] if cands.shape[0] else NULL
        with nogil:
            for i in range(guesses.shape[0]):
                _hist(&self.d, guesses[i], cp, cands.shape[0], h)
                o[i] = _value(&self.d, h, kind)
        return out

    def filter(self, int32_t guess, int slot, const int32_t[::1] cands):
        """int32 array: ``[v for v in cands if slot(guess, v) == slot]``."""
        out = np.empty(cands.shape[0], dtype=np.int32)
        cdef int32_t[::1] o = out
        cdef Py_ssize_t i, n = 0
        with nogil:
            for i in range(cands.shape[0]):
                if _slot(&self.d, guess, cands[i]) == slot:
                    o[n] = cands[i]
                    n += 1
        return out[:n].copy()

    def best_guess(self, const int32_t[::1] guesses, const int32_t[::1] cands, int kind):
        """(guess, key, is_candidate) by the choice rule; guesses ascending, cands non-empty."""
        cdef int64_t key = 0
        cdef int is_cand = 0
        cdef int32_t g
        with nogil:
            g = _best(&self.d, &guesses[0], guesses.shape[0], &cands[0], cands.shape[0],
                      kind, &key, &is_cand)
        return g, key, bool(is_cand)

    def walk(self, const int32_t[::1] guesses, const int32_t[::1] cands, int kind,
             bint cands_only, bint shortcut_ok, int32_t first, int depth, bint record):
        """Play the strategy against every candidate (sorted, non-empty), starting with
        guess number ``depth``; ``first`` >= 0 fixes the guess at this root.

        Returns ``(dist, records)``: ``dist[d]`` secrets found with guess number d, and
        (when ``record``) an int32 array of rows (parent, slot, guess, size, depth), parent
        -1 at the root, in depth-first order.
        """
        cdef Walk w
        cdef int32_t[:, ::1] rv
        memset(&w, 0, sizeof(w))
        w.d = &self.d
        w.guesses = &guesses[0] if guesses.shape[0] else NULL
        w.nguesses = guesses.shape[0]
        w.kind = kind
        w.cands_only = cands_only
        w.shortcut_ok = shortcut_ok
        w.first = first
        w.record = record
        try:
            with nogil:
                _walk(&w, &cands[0], cands.shape[0], depth, -1, -1, True)
            if w.error == 1:
                raise MemoryError("out of memory while walking the strategy tree")
            if w.error == 2:
                raise OverflowError(f"strategy tree deeper than {MAX_DEPTH} guesses")
            dist = np.array([w.dist[i] for i in range(MAX_DEPTH + 1)], dtype=np.int64)
            recs = None
            if record:
                recs = np.empty((w.nrec, REC), dtype=np.int32)
                if w.nrec:
                    rv = recs
                    memcpy(&rv[0, 0], w.rec, w.nrec * REC * sizeof(int32_t))
            return dist, recs
        finally:
            free(w.rec)


def build_xlogx(Py_ssize_t nmax):
    """int64 table x[t] for t = 0..nmax, an exact-tie image of ``t * log2(t) * 2**S``.

    ``x[t] = t * IL(t)`` where ``IL(t) = sum over prime factors p of t (with multiplicity)
    of round(log2(p) * 2**S)``: IL is exactly additive, so ``sum_i x[T_i]`` depends only on
    the integer ``prod_i T_i**T_i``.  Equal partition multisets, and different multisets
    with the same entropy (such as {4,1,1,1,1} and {2,2,2,2}), get identical keys, while
    the error against the real value stays below 2**-S * nmax * log2(nmax).  S is the
    largest scale that keeps every sum below 2**62.
    """
    if nmax < 1:
        nmax = 1
    cdef double top = nmax * log2(<double>nmax) + nmax + 1.0
    cdef int S = 0
    while S < 52 and top * (2.0 ** (S + 1)) < 2.0 ** 62:
        S += 1
    out = np.zeros(nmax + 1, dtype=np.int64)
    spf_arr = np.zeros(nmax + 1, dtype=np.int32)
    il_arr = np.zeros(nmax + 1, dtype=np.int64)
    cdef int64_t[::1] x = out
    cdef int32_t[::1] spf = spf_arr
    cdef int64_t[::1] il = il_arr
    cdef Py_ssize_t t, q
    cdef double scale = 2.0 ** S
    with nogil:
        for t in range(2, nmax + 1):        # smallest prime factor sieve
            if spf[t] == 0:
                q = t
                while q <= nmax:
                    if spf[q] == 0:
                        spf[q] = <int32_t>t
                    q += t
        for t in range(2, nmax + 1):
            if spf[t] == t:
                il[t] = <int64_t>(log2(<double>t) * scale + 0.5)
            else:
                il[t] = il[spf[t]] + il[t // spf[t]]
            x[t] = t * il[t]
    return out, S


# =========================================================================== bounds
# ---- bounds: solution_exists search (issue 4) -------------------------------------
#
# Everything below belongs to :mod:`mastermind.bounds`; it only *reads* KData and calls
# _slot/_hist/_value.  The question: can every candidate of a set S be found within d
# guesses (the winning guess counts)?  Answers are exact: every cut below is a theorem,
# and a False is only returned when every guess (up to a symmetry that maps S onto
# itself) has been refuted.
#
# Facts used (P = the number of non-winning slots a guess can fill):
#   * |S| <= 1: solvable iff d >= 1 (or S empty); |S| = 2 and d >= 2: guess one of them.
#   * d guesses find at most N_P(d) = 1 + P + ... + P^(d-1) codes (one per leaf).
#   * The number of non-empty non-winning parts a guess makes on a subset never exceeds
#     the number it makes on the set, so the best count Pnode over all guesses at a node
#     bounds every descendant: a part needs |part| <= N_Pnode(d-1).
#   * d = 2: solvable iff some guess puts every code of S in its own slot.
#   * A non-candidate guess leaving S in a single part wastes a guess: skipped.
#   * Symmetry: a colour (position) permutation mapping S onto itself maps strategies for
#     S to strategies for S; the transpositions that fix S generate a product of symmetric
#     groups on classes of colours (positions), and only the smallest code of each orbit
#     of guesses needs trying.  Requires a guess set closed under those permutations.
#   * Memo: exact candidate sets -> (largest d proved False, smallest d proved True, the
#     guess that proved it); a False for d holds for every smaller d, a True for larger.

from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from libc.stdint cimport int8_t
from libc.stdlib cimport calloc, qsort
from libc.string cimport memcmp

cdef extern from *:
    """
    #define MM_VREAD(p) (*(volatile int *)(p))
    """
    int vread "MM_VREAD"(int* p) noexcept nogil

cdef enum:
    B_MAXN = 8
    B_MAXK = 16
    B_MAXPERM = 720         # full position group up to this size, else transpositions
    B_NOT_TRUE = 127
    B_MAXD = 32

cdef struct MemoEntry:
    uint64_t h
    int32_t* cset           # NULL: empty slot
    int32_t m
    int32_t guess           # the guess that proved hi_true
    int8_t lo_false         # largest d proved unsolvable (0: none)
    int8_t hi_true          # smallest d proved solvable (B_NOT_TRUE: none)

cdef struct GuessInfo:
    int64_t key             # entropy key (lower = more informative)
    int32_t guess
    int32_t maxpart         # largest non-winning part
    int32_t notcand         # 0 if the guess is a candidate

cdef struct Sym:
    int trivial
    uint32_t dead_other     # absent colours but the smallest: guesses using them are skipped
    int sym_col             # some colour class has two members or more
    int ncol                # colour classes
    int8_t ccls[B_MAXK]     # class of each colour
    int8_t cmem[B_MAXK][B_MAXK]   # members of each class, ascending
    int8_t csize[B_MAXK]
    int nperm               # position permutations besides the identity
    uint8_t* perms          # nperm * n

cdef struct SData:
    const KData* d
    int n
    int k
    Py_ssize_t ncodes
    const uint8_t* digits   # ncodes * n, colours 0..k-1
    int64_t pw[B_MAXN]      # k^(n-1-p)
    const int32_t* guesses
    Py_ssize_t ng
    int cands_only
    int use_sym
    int merge_dead          # the guess set is every code: absent colours are merged
    int order               # guess order: a valuation kind (VAL_ENTROPY, VAL_MINMAX...)
    int nonwin              # non-winning slots
    uint8_t* mark           # ncodes flags, all 0 between uses
    const uint32_t* cmask   # colours of each code, one bit per colour
    uint8_t* lmat           # d = 3 nodes: lmat[t * ng + i] = slot(guesses[i], c[t])
    size_t lmat_cap
    int matrix_after        # separation checks at a d = 3 node before its matrix is built
    MemoEntry* tab
    Py_ssize_t cap
    Py_ssize_t used
    size_t mem
    size_t mem_limit
    int64_t nodes
    int64_t leaves          # d = 2 separation checks actually scanned
    int64_t hits
    int64_t at_depth[B_MAXD]    # nodes expanded with d guesses left
    int64_t false_cheap         # expanded nodes refuted in phase 1 (no guess survives)
    int64_t scanned             # guesses scanned in phase 1
    int64_t scores              # scores computed in phase 1
    int64_t sizes               # sum of m over expanded nodes
    int64_t node_limit
    double deadline         # CLOCK_MONOTONIC seconds, 0: none
    int stop                # set from another thread (read through vread)
    int aborted             # 1 time, 2 stop request, 3 node budget, 4 out of memory


cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


cdef inline int64_t _ncount(int64_t p, int d) noexcept nogil:
    """N_p(d) = 1 + p + ... + p^(d-1), capped at 2^50."""
    cdef int64_t t = 0
    cdef int i
    for i in range(d):
        t = 1 + p * t
        if t > (<int64_t>1 << 50):
            return <int64_t>1 << 50
    return t


cdef inline uint64_t _hash_set(const int32_t* c, Py_ssize_t m) noexcept nogil:
    cdef uint64_t h = 0x9E3779B97F4A7C15ULL ^ <uint64_t>m
    cdef Py_ssize_t i
    for i in range(m):
        h = (h ^ <uint64_t><uint32_t>c[i]) * 0xBF58476D1CE4E5B9ULL
        h ^= h >> 31
    return h | 1                          # 0 is never a stored hash


cdef MemoEntry* _memo_find(SData* s, const int32_t* c, Py_ssize_t m, uint64_t h,
                           bint insert) noexcept nogil:
    """The entry of set c (created when ``insert`` and memory allows), or NULL."""
    cdef Py_ssize_t i, j, newcap
    cdef MemoEntry* e
    cdef MemoEntry* grown
    if s.cap == 0:
        return NULL
    i = <Py_ssize_t>(h & <uint64_t>(s.cap - 1))
    while True:
        e = &s.tab[i]
        if e.cset == NULL:
            break
        if e.h == h and e.m == m and memcmp(e.cset, c, m * sizeof(int32_t)) == 0:
            return e
        i = (i + 1) & (s.cap - 1)
    if not insert or s.mem + m * sizeof(int32_t) > s.mem_limit:
        return NULL
    if 2 * (s.used + 1) > s.cap:            # grow, then look for the free slot again
        newcap = 2 * s.cap
        if s.mem + newcap * sizeof(MemoEntry) > s.mem_limit:
            return NULL
        grown = <MemoEntry*>calloc(newcap, sizeof(MemoEntry))
        if grown == NULL:
            return NULL
        for j in range(s.cap):
            if s.tab[j].cset != NULL:
                i = <Py_ssize_t>(s.tab[j].h & <uint64_t>(newcap - 1))
                while grown[i].cset != NULL:
                    i = (i + 1) & (newcap - 1)
                grown[i] = s.tab[j]
        free(s.tab)
        s.mem += (newcap - s.cap) * sizeof(MemoEntry)
        s.tab = grown
        s.cap = newcap
        i = <Py_ssize_t>(h & <uint64_t>(s.cap - 1))
        while s.tab[i].cset != NULL:
            i = (i + 1) & (s.cap - 1)
    e = &s.tab[i]
    e.cset = <int32_t*>malloc(m * sizeof(int32_t))
    if e.cset == NULL:
        return NULL
    memcpy(e.cset, c, m * sizeof(int32_t))
    e.h = h
    e.m = <int32_t>m
    e.guess = -1
    e.lo_false = 0
    e.hi_true = B_NOT_TRUE
    s.used += 1
    s.mem += m * sizeof(int32_t)
    return e


cdef inline void _memo_store(SData* s, const int32_t* c, Py_ssize_t m, uint64_t h,
                             int d, int r, int32_t guess) noexcept nogil:
    cdef MemoEntry* e = _memo_find(s, c, m, h, True)
    if e == NULL:
        return
    if r == 1 and d < e.hi_true:
        e.hi_true = <int8_t>d
        e.guess = guess
    elif r == 0 and d > e.lo_false:
        e.lo_false = <int8_t>d


cdef inline bint _check_abort(SData* s, bint expensive) noexcept nogil:
    """Count a node; look at the stop flag, the clock and the budget at every expensive
    node (a full guess scan) and every 256 cheap ones."""
    s.nodes += 1
    if s.aborted:
        return True
    if expensive or (s.nodes & 255) == 0:
        if vread(&s.stop):
            s.aborted = 2
        elif s.deadline > 0 and _now() > s.deadline:
            s.aborted = 1
        elif s.node_limit > 0 and s.nodes >= s.node_limit:
            s.aborted = 3
    return s.aborted != 0


cdef int32_t _separating(SData* s, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """A guess that puts each code of c in its own slot, or -1 (-2: out of memory).
    Candidates first, then one guess per symmetry orbit (see :func:`_canonical`).

    Plain Python: ``next((g for g in pool if len({slot(g, v) for v in c}) == m), -1)``.
    """
    cdef const KData* d = s.d
    cdef Py_ssize_t i, j
    cdef int32_t g, res = -1
    cdef uint64_t seen, bit
    cdef Sym y
    s.leaves += 1
    if m > d.nslots:
        return -1
    for i in range(m):
        g = c[i]
        seen = 0
        for j in range(m):
            bit = (<uint64_t>1) << _slot(d, g, c[j])
            if seen & bit:
                break
            seen |= bit
        else:
            return g
    if s.cands_only or m == d.nslots:      # m = nslots: only a candidate can do it
        return -1
    if _sym_init(s, &y, c, m) < 0:
        return -2
    for i in range(s.ng):
        g = s.guesses[i]
        if not _canonical(s, &y, g):
            continue
        seen = 0
        for j in range(m):
            bit = (<uint64_t>1) << _slot(d, g, c[j])
            if seen & bit:
                break
            seen |= bit
        else:
            res = g
            break
    free(y.perms)
    return res


cdef int32_t _sep_matrix(const SData* s, const uint8_t* lmat, const int32_t* idx,
                        Py_ssize_t b) noexcept nogil:
    """:func:`_separating` on the codes idx[0..b-1] of a d = 3 node, through its label
    matrix: a guess separates them iff its b labels differ pairwise.  Blocks of 256
    guesses, one pass per pair, so the compiler can vectorise the comparisons."""
    cdef uint8_t acc[256]
    cdef Py_ssize_t g0, t, ln, j, l, ng = s.ng
    cdef const uint8_t* cj
    cdef const uint8_t* cl
    cdef uint8_t any_
    if b > s.d.nslots:
        return -1
    g0 = 0
    while g0 < ng:
        ln = ng - g0 if ng - g0 < 256 else 256
        memset(acc, 1, ln)
        for j in range(b - 1):
            cj = lmat + <Py_ssize_t>idx[j] * ng + g0
            for l in range(j + 1, b):
                cl = lmat + <Py_ssize_t>idx[l] * ng + g0
                for t in range(ln):
                    acc[t] &= cj[t] != cl[t]
            any_ = 0
            for t in range(ln):
                any_ |= acc[t]
            if not any_:
                break
        else:
            for t in range(ln):
                if acc[t]:
                    return s.guesses[g0 + t]
        g0 += ln
    return -1


cdef bint _build_lmat(SData* s, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """Fill s.lmat for the node c; False when it would be too big or memory is short."""
    cdef size_t need = <size_t>m * <size_t>s.ng
    cdef Py_ssize_t t, i
    cdef uint8_t* row
    cdef uint8_t* grown
    if need > (<size_t>64 << 20):
        return False
    if need > s.lmat_cap:
        grown = <uint8_t*>realloc(s.lmat, need)
        if grown == NULL:
            return False
        s.lmat = grown
        s.lmat_cap = need
    for t in range(m):
        row = s.lmat + t * s.ng
        for i in range(s.ng):
            row[i] = <uint8_t>_slot(s.d, s.guesses[i], c[t])
    return True


cdef bint _fixes(SData* s, const int32_t* c, Py_ssize_t m, int a, int b,
                 bint positions) noexcept nogil:
    """Does swapping colours (or positions) a and b map the marked set c onto itself?"""
    cdef Py_ssize_t i
    cdef int p, x, y
    cdef int64_t idx
    cdef const uint8_t* dg
    for i in range(m):
        dg = s.digits + <Py_ssize_t>c[i] * s.n
        idx = c[i]
        if positions:
            x = dg[a]
            y = dg[b]
            if x == y:
                continue
            idx += (y - x) * s.pw[a] + (x - y) * s.pw[b]
        else:
            for p in range(s.n):
                if dg[p] == a:
                    idx += (b - a) * s.pw[p]
                elif dg[p] == b:
                    idx += (a - b) * s.pw[p]
        if not s.mark[idx]:
            return False
    return True


cdef void _gen_perms(Sym* y, int n, const int8_t* pcls, uint8_t* cur, int pos,
                     uint8_t* used) noexcept nogil:
    """All position permutations sigma with pcls[sigma[p]] == pcls[p], but the identity."""
    cdef int q
    cdef bint ident
    if pos == n:
        ident = True
        for q in range(n):
            if cur[q] != q:
                ident = False
        if not ident and y.nperm < B_MAXPERM:
            memcpy(y.perms + y.nperm * n, cur, n)
            y.nperm += 1
        return
    for q in range(n):
        if not used[q] and pcls[q] == pcls[pos]:
            used[q] = 1
            cur[pos] = <uint8_t>q
            _gen_perms(y, n, pcls, cur, pos + 1, used)
            used[q] = 0


cdef int _sym_init(SData* s, Sym* y, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """The colour and position classes of c (transpositions mapping c onto itself).
    Returns -1 when out of memory."""
    cdef int a, j, p, q, ncls = 0, n = s.n
    cdef int8_t pcls[B_MAXN]
    cdef int8_t prep[B_MAXN]
    cdef int8_t psize[B_MAXN]
    cdef uint8_t cur[B_MAXN]
    cdef uint8_t used[B_MAXN]
    cdef Py_ssize_t i
    cdef double group = 1
    cdef uint32_t present = 0, full = (<uint32_t>1 << s.k) - 1, dead
    y.trivial = 1
    y.ncol = 0
    y.nperm = 0
    y.perms = NULL
    y.dead_other = 0
    y.sym_col = 0
    if s.merge_dead:
        # A colour no candidate has scores like a blank wherever it is played, so two
        # absent colours are interchangeable inside one guess: all of them can be
        # replaced by the smallest one without changing the partition.
        for i in range(m):
            for p in range(n):
                present |= (<uint32_t>1) << s.digits[<Py_ssize_t>c[i] * n + p]
            if present == full:
                break
        dead = full & ~present
        if dead & (dead - 1):               # two or more absent colours
            y.dead_other = dead & (dead - 1)  # all but the lowest bit
            y.trivial = 0
    if not s.use_sym:
        return 0
    for i in range(m):
        s.mark[c[i]] = 1
    for a in range(s.k):
        for j in range(y.ncol):
            if _fixes(s, c, m, y.cmem[j][0], a, False):
                y.ccls[a] = <int8_t>j
                y.cmem[j][y.csize[j]] = <int8_t>a
                y.csize[j] += 1
                y.sym_col = 1
                y.trivial = 0
                break
        else:
            y.ccls[a] = <int8_t>y.ncol
            y.cmem[y.ncol][0] = <int8_t>a
            y.csize[y.ncol] = 1
            y.ncol += 1
    for p in range(n):
        for j in range(ncls):
            if _fixes(s, c, m, prep[j], p, True):
                pcls[p] = <int8_t>j
                psize[j] += 1
                group *= psize[j]
                break
        else:
            pcls[p] = <int8_t>ncls
            prep[ncls] = <int8_t>p
            psize[ncls] = 1
            ncls += 1
    for i in range(m):
        s.mark[c[i]] = 0
    if ncls == n:
        return 0
    y.sym_col = 1                           # (the orbit test needs the colour classes)
    y.trivial = 0
    y.perms = <uint8_t*>malloc(B_MAXPERM * n)
    if y.perms == NULL:
        return -1
    if group <= B_MAXPERM:
        memset(used, 0, sizeof(used))
        _gen_perms(y, n, pcls, cur, 0, used)
    else:                                  # a generating subset (sound, see _canonical)
        for p in range(n):
            for q in range(p + 1, n):
                if pcls[p] == pcls[q]:
                    for a in range(n):
                        y.perms[y.nperm * n + a] = <uint8_t>a
                    y.perms[y.nperm * n + p] = <uint8_t>q
                    y.perms[y.nperm * n + q] = <uint8_t>p
                    y.nperm += 1
    return 0


cdef inline int64_t _colour_canon(const SData* s, const Sym* y,
                                  const uint8_t* dg) noexcept nogil:
    """The smallest index of the code dg under the colour classes' permutations: each new
    colour becomes the smallest unused member of its class."""
    cdef int8_t img[B_MAXK]
    cdef int8_t nxt[B_MAXK]
    cdef int p, col, j
    cdef int64_t idx = 0
    memset(img, -1, sizeof(img))
    memset(nxt, 0, sizeof(nxt))
    for p in range(s.n):
        col = dg[p]
        if img[col] < 0:
            j = y.ccls[col]
            img[col] = y.cmem[j][nxt[j]]
            nxt[j] += 1
        idx = idx * s.k + img[col]
    return idx


cdef bint _canonical(const SData* s, const Sym* y, int32_t g) noexcept nogil:
    """Is g the smallest code of its orbit under (a subset containing the identity of) the
    symmetry group?  Every orbit keeps its smallest code, so skipping the others is sound."""
    cdef const uint8_t* dg = s.digits + <Py_ssize_t>g * s.n
    cdef uint8_t tmp[B_MAXN]
    cdef int i, p
    cdef uint32_t used = 0
    if y.trivial:
        return True
    if y.dead_other and s.cmask[g] & y.dead_other:
        return False
    if not y.sym_col:
        return True
    if _colour_canon(s, y, dg) < g:
        return False
    for i in range(y.nperm):
        for p in range(s.n):
            tmp[p] = dg[y.perms[i * s.n + p]]
        if _colour_canon(s, y, tmp) < g:
            return False
    return True


cdef int _cmp_guess(const void* a, const void* b) noexcept nogil:
    cdef const GuessInfo* x = <const GuessInfo*>a
    cdef const GuessInfo* y = <const GuessInfo*>b
    if x.key != y.key:
        return -1 if x.key < y.key else 1
    if x.notcand != y.notcand:
        return x.notcand - y.notcand
    if x.maxpart != y.maxpart:
        return x.maxpart - y.maxpart
    return (x.guess > y.guess) - (x.guess < y.guess)


cdef int _exists(SData* s, const int32_t* c, Py_ssize_t m, int d, int pbound,
                 int32_t* found) noexcept nogil:
    """1 if every code of c (sorted) can be found within d guesses, 0 if not, -1 when the
    search was stopped (no answer).  ``pbound`` bounds the non-winning parts any guess
    makes on c (an ancestor's best count).  ``found`` receives a guess that works here
    (when 1 and m >= 2)."""
    cdef uint64_t h
    cdef MemoEntry* e
    cdef int r
    cdef int32_t g
    found[0] = -1
    if m == 0:
        return 1
    if m == 1:
        found[0] = c[0]
        return 1 if d >= 1 else 0
    if d <= 1:
        return 0
    if m == 2:
        found[0] = c[0]
        return 1
    if m > _ncount(pbound, d):
        return 0
    h = _hash_set(c, m)
    e = _memo_find(s, c, m, h, False)
    if e != NULL:
        if e.hi_true <= d:
            s.hits += 1
            found[0] = e.guess
            return 1
        if e.lo_false >= d:
            s.hits += 1
            return 0
    if _check_abort(s, d >= 3):
        return -1
    s.at_depth[d if d < B_MAXD else B_MAXD - 1] += 1
    if d == 2:
        g = _separating(s, c, m)
        if g == -2:
            s.aborted = 4
            return -1
        r = g >= 0
        found[0] = g
    else:
        r = _expand(s, c, m, d, pbound, found)
    if r >= 0:
        _memo_store(s, c, m, h, d, r, found[0])
    return r


cdef inline bint _known_false(SData* s, const int32_t* c, Py_ssize_t m,
                              int d) noexcept nogil:
    cdef MemoEntry* e
    if m <= 2:
        return False
    e = _memo_find(s, c, m, _hash_set(c, m), False)
    return e != NULL and e.lo_false >= d


cdef int _expand(SData* s, const int32_t* c, Py_ssize_t m, int d, int pbound,
                 int32_t* found) noexcept nogil:
    """Try every useful guess (d >= 3, m >= 3): the buffers, then :func:`_try_guesses`."""
    cdef Py_ssize_t npool = m if s.cands_only else s.ng
    cdef Sym y
    cdef int r
    cdef GuessInfo* info
    cdef int32_t* parts
    cdef int32_t* pidx
    cdef uint8_t* lab
    if _sym_init(s, &y, c, m) < 0:
        s.aborted = 4
        return -1
    info = <GuessInfo*>malloc(npool * sizeof(GuessInfo))
    parts = <int32_t*>malloc(m * sizeof(int32_t))
    pidx = <int32_t*>malloc(m * sizeof(int32_t))
    lab = <uint8_t*>malloc(m)
    if info == NULL or parts == NULL or lab == NULL or pidx == NULL:
        s.aborted = 4
        r = -1
    else:
        r = _try_guesses(s, c, m, d, pbound, found, &y, info, parts, pidx, lab)
    free(info)
    free(parts)
    free(pidx)
    free(lab)
    free(y.perms)
    return r


cdef int _try_guesses(SData* s, const int32_t* c, Py_ssize_t m, int d, int pbound,
                      int32_t* found, const Sym* y, GuessInfo* info, int32_t* parts,
                      int32_t* pidx, uint8_t* lab) noexcept nogil:
    """Score every canonical guess, drop the hopeless ones, then try the rest by
    decreasing entropy, each part largest first.

    Phase 1 scans each guess with an early exit as soon as a non-winning part exceeds
    N_pbound(d-1); if no guess survives, c is refuted cheaply.  Otherwise phase 2 finishes
    the scans that exited early, to get the exact best part count pmax of this node,
    which tightens the cap and bounds every descendant.

    At d = 3 the children are separation checks; after a few of them the node builds its
    label matrix (every guess against every code, :func:`_build_lmat`) and checks the
    rest with :func:`_sep_matrix`, exactly and much faster (no memo needed for them).
    """
    cdef const KData* kd = s.d
    cdef const int32_t* pool = c if s.cands_only else s.guesses
    cdef Py_ssize_t npool = m if s.cands_only else s.ng
    cdef Py_ssize_t ninfo = 0, nviable = 0, i, j, t
    cdef uint32_t h[MAX_SLOTS]
    cdef Py_ssize_t off[MAX_SLOTS + 1]
    cdef int order[MAX_SLOTS]
    cdef int nparts, pmax = 0, sl, a, b, rr, tmp, win = kd.win
    cdef int32_t g, maxpart, sub
    cdef int64_t cap = _ncount(pbound, d - 1)
    cdef bint ok, early = False
    cdef int leaves_here = 0
    cdef bint use_mat = False, mat_ok = d == 3 and not s.cands_only
    s.sizes += m
    for i in range(npool):                  # phase 1
        g = pool[i]
        if not _canonical(s, y, g):
            continue
        memset(h, 0, sizeof(h))
        ok = True
        s.scanned += 1
        for t in range(m):
            sl = _slot(kd, g, c[t])
            h[sl] += 1
            if h[sl] > cap and sl != win:
                ok = False
                break
        s.scores += t + 1
        info[ninfo].guess = g
        if not ok:
            info[ninfo].maxpart = -1        # scan unfinished
            early = True
            ninfo += 1
            continue
        nparts = 0
        maxpart = 0
        for sl in range(kd.nslots):
            if sl != win and h[sl]:
                nparts += 1
                if <int32_t>h[sl] > maxpart:
                    maxpart = h[sl]
        if nparts > pmax:
            pmax = nparts
        if h[win] == 0 and nparts == 1:
            continue                        # no information and no chance to win
        info[ninfo].key = _value(kd, h, s.order)
        info[ninfo].maxpart = maxpart
        info[ninfo].notcand = h[win] == 0
        ninfo += 1
        nviable += 1
    if nviable == 0:
        s.false_cheap += 1
        return 0
    if early:                               # phase 2: the exact pmax of this node
        for i in range(ninfo):
            if info[i].maxpart < 0 and pmax < pbound:
                _hist(kd, info[i].guess, c, m, h)
                nparts = 0
                for sl in range(kd.nslots):
                    if sl != win and h[sl]:
                        nparts += 1
                if nparts > pmax:
                    pmax = nparts
    else:
        pmax = pmax if pmax < pbound else pbound
    if early and pmax >= pbound:
        pmax = pbound
    cap = _ncount(pmax, d - 1)
    if m > 1 + pmax * cap:
        return 0
    j = 0
    for i in range(ninfo):                  # parts larger than N_pmax(d-1) are hopeless
        if 0 <= info[i].maxpart <= cap:
            info[j] = info[i]
            j += 1
    ninfo = j
    qsort(info, ninfo, sizeof(GuessInfo), _cmp_guess)
    if mat_ok and s.matrix_after == 0 and ninfo > 0:
        mat_ok = False
        use_mat = _build_lmat(s, c, m)
    for i in range(ninfo):
        g = info[i].guess
        memset(h, 0, sizeof(h))
        for t in range(m):
            sl = _slot(kd, g, c[t])
            lab[t] = <uint8_t>sl
            h[sl] += 1
        off[0] = 0
        for sl in range(kd.nslots):
            off[sl + 1] = off[sl] + h[sl]
        for t in range(m):                  # stable counting sort: parts stay sorted
            parts[off[lab[t]]] = c[t]
            pidx[off[lab[t]]] = <int32_t>t
            off[lab[t]] += 1
        for sl in range(kd.nslots):         # back to part starts
            off[sl] -= h[sl]
        # non-winning parts of size >= 3, largest first; a part known unsolvable fails fast
        nparts = 0
        ok = True
        for sl in range(kd.nslots):
            if sl != win and h[sl] >= 3:
                if _known_false(s, parts + off[sl], h[sl], d - 1):
                    ok = False
                    break
                order[nparts] = sl
                nparts += 1
        if not ok:
            continue
        for a in range(1, nparts):
            b = a
            while b > 0 and h[order[b - 1]] < h[order[b]]:
                tmp = order[b - 1]
                order[b - 1] = order[b]
                order[b] = tmp
                b -= 1
        for a in range(nparts):
            sl = order[a]
            if use_mat:
                if _check_abort(s, False):
                    return -1
                s.leaves += 1
                s.at_depth[2] += 1
                rr = _sep_matrix(s, s.lmat, pidx + off[sl], h[sl]) >= 0
            else:
                rr = _exists(s, parts + off[sl], h[sl], d - 1, pmax, &sub)
                if rr < 0:
                    return -1
                if mat_ok:
                    leaves_here += 1
                    if leaves_here >= s.matrix_after:
                        mat_ok = False
                        use_mat = _build_lmat(s, c, m)
            if rr == 0:
                ok = False
                break
        if ok:
            found[0] = g
            return 1
    return 0


cdef KData* _data(Kernel k) noexcept:
    return &k.d


cdef class Searcher:
    """The exact search behind :func:`mastermind.bounds.solution_exists`; keeps its memo
    between calls.  Trusts its arguments (validated by :mod:`mastermind.bounds`).

    ``digits``: (ncodes, n) uint8 colours 0..k-1 of every code; ``guesses``: the sorted
    guess set (ignored when ``cands_only``); ``symmetry`` needs a guess set closed under
    colour and position permutations; ``merge_dead`` needs the guess set to be every code
    (or ``cands_only``); ``mem_limit``: bytes the memo may use.
    """
    cdef SData s
    cdef object _refs
    cdef object _cmask
    cdef uint8_t* _mark

    def __cinit__(self):
        memset(&self.s, 0, sizeof(SData))
        self._mark = NULL

    def __init__(self, Kernel kernel, const uint8_t[:, ::1] digits, int n, int k,
                 const int32_t[::1] guesses, bint cands_only, bint symmetry,
                 bint merge_dead, Py_ssize_t mem_limit):
        cdef int p
        cdef uint32_t[::1] mv
        if n > B_MAXN or k > B_MAXK:
            raise ValueError(f"the search handles at most {B_MAXN} pegs and {B_MAXK} colours")
        self.s.d = _data(kernel)
        self.s.n = n
        self.s.k = k
        self.s.ncodes = digits.shape[0]
        self.s.digits = &digits[0, 0]
        self.s.pw[n - 1] = 1
        for p in range(n - 2, -1, -1):
            self.s.pw[p] = self.s.pw[p + 1] * k
        self.s.guesses = &guesses[0] if guesses.shape[0] else NULL
        self.s.ng = guesses.shape[0]
        self.s.cands_only = cands_only
        self.s.use_sym = symmetry
        self.s.merge_dead = merge_dead
        self.s.order = 1
        self.s.matrix_after = 8
        self.s.nonwin = kernel.nslots - 1
        self._mark = <uint8_t*>calloc(self.s.ncodes, 1)
        self.s.mark = self._mark
        masks = np.zeros(self.s.ncodes, dtype=np.uint32)
        for p in range(n):
            masks |= np.left_shift(np.uint32(1), np.asarray(digits)[:, p].astype(np.uint32))
        self._cmask = masks
        mv = masks
        self.s.cmask = &mv[0]
        self.s.cap = 1 << 16
        self.s.tab = <MemoEntry*>calloc(self.s.cap, sizeof(MemoEntry))
        if self._mark == NULL or self.s.tab == NULL:
            raise MemoryError("out of memory preparing the search")
        self.s.mem = self.s.cap * sizeof(MemoEntry)
        self.s.mem_limit = max(mem_limit, <Py_ssize_t>self.s.mem)
        self._refs = (kernel, digits, guesses)

    def __dealloc__(self):
        cdef Py_ssize_t i
        if self.s.tab != NULL:
            for i in range(self.s.cap):
                free(self.s.tab[i].cset)
            free(self.s.tab)
        free(self.s.lmat)
        free(self._mark)

    property order:
        """The valuation (VAL_ENTROPY by default) that orders the guesses tried at a node;
        answers never depend on it, only the time to find them."""
        def __get__(self):
            return self.s.order

        def __set__(self, int kind):
            if kind < 0 or kind > 3:
                raise ValueError("order must be VAL_MINMAX, VAL_ENTROPY, VAL_PARTS or VAL_EXPECTED")
            self.s.order = kind

    property matrix_after:
        """Separation checks a d = 3 node makes the plain way before it builds its label
        matrix (default 8; the answers never depend on it)."""
        def __get__(self):
            return self.s.matrix_after

        def __set__(self, int value):
            self.s.matrix_after = max(0, value)

    def request_stop(self):
        """Ask a running search (in another thread) to stop soon; it then returns -1."""
        self.s.stop = 1

    @property
    def stats(self):
        """dict: nodes (expanded), leaves (d = 2 checks), memo hits, entries and bytes."""
        return {"nodes": self.s.nodes, "leaves": self.s.leaves, "hits": self.s.hits,
                "memo_entries": self.s.used, "memo_bytes": self.s.mem,
                "false_cheap": self.s.false_cheap, "scanned": self.s.scanned,
                "scores": self.s.scores, "sizes": self.s.sizes,
                "at_depth": {d: self.s.at_depth[d] for d in range(B_MAXD)
                             if self.s.at_depth[d]}}

    @property
    def aborted(self):
        """Why the last search stopped: 0 finished, 1 time, 2 stop, 3 nodes, 4 memory."""
        return self.s.aborted

    def run(self, const int32_t[::1] cands, int d, double seconds=0.0,
            int64_t node_limit=0):
        """(answer, guess): answer 1 solvable within d guesses, 0 not, -1 stopped;
        ``guess`` a guess that works at the root (or -1).  ``cands`` sorted, non-empty,
        all guessable; ``seconds`` / ``node_limit`` 0 mean unlimited."""
        cdef int r
        cdef int32_t g = -1
        self.s.stop = 0
        self.s.aborted = 0
        self.s.deadline = _now() + seconds if seconds > 0 else 0.0
        self.s.node_limit = self.s.nodes + node_limit if node_limit > 0 else 0
        with nogil:
            r = _exists(&self.s, &cands[0], cands.shape[0], d, self.s.nonwin, &g)
        if r < 0 and self.s.aborted == 4:
            raise MemoryError("out of memory in the search")
        return r, g
