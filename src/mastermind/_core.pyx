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
