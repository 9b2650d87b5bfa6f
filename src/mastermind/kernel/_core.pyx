# cython: language_level=3
"""The scoring and partition kernel: a game's codes prepared once (:class:`Kernel`), the
score slot of a pair, partition tables (histograms over the score slots), filters.

Everything here works on *code indices* (``int32``) into a table prepared once per game by
:mod:`mastermind.game` (or :mod:`mastermind.custom`), and trusts its input: dtype, shape,
range and sortedness are checked by the Python layer before any call (the extension is
compiled with bounds checks off).  The other kernel modules build on it: ``_scan`` (the
choice rule), ``_symmetry``, ``_walk`` (the strategy walk), ``_search`` (worst case).

Two ways to score a pair of codes:

* **encoded** (the built-in games): each code is a few 64-bit words.  Bit ``i*k + c`` of the
  *position* word(s) says "position i has colour c"; bits ``c*n .. c*n + m - 1`` of the
  *count* word(s) are set when colour c occurs m times (a thermometer code).  Then
  ``popcount(pos_u & pos_v)`` is the number of blacks and ``popcount(cnt_u & cnt_v)`` is
  ``sum_c min(count_u(c), count_v(c))`` = blacks + whites.  With ``n*k <= 64`` a code is two
  words (``TWO_WORDS``), otherwise four (``FOUR_WORDS``, up to n*k = 128).
* **table** (custom games, ``SCORE_TABLE``): a dense ``uint8`` matrix of score slots over a
  universe of codes.

With AVX-512 or AVX2 and k <= 16, two-word codes also have *byte forms* (``benc``): a byte per
position (its colour) and a byte per colour (its count), from which eight pairs are scored
by one byte compare and one bytewise minimum (``mm_count64b`` in ``_kernel.h``).

A score is reported as its *slot*: ``slot_tab[(blacks << 4) | (blacks + whites)]``.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset
from libc.math cimport log2

import numpy as np

# Public constants (mirrored in _core.pyi).
SIMD = (<bytes>SIMD_NAME).decode()   # the vector kernels compiled in: avx512, avx2 or none
MODE_NARROW = TWO_WORDS
MODE_WIDE = FOUR_WORDS
MODE_TABLE = SCORE_TABLE
VAL_MINMAX = KIND_MINMAX
VAL_ENTROPY = KIND_ENTROPY
VAL_PARTS = KIND_PARTS
VAL_EXPECTED = KIND_EXPECTED
VAL_FIRST = KIND_FIRST
SLOTS_CAPACITY = MAX_SLOTS
DEPTH_CAPACITY = MAX_DEPTH


# --------------------------------------------------------------------------- histograms

cdef inline void _acc_narrow(const uint64_t* ge, const uint64_t* pk, Py_ssize_t m,
                             uint32_t* hh, Py_ssize_t stride, const int S,
                             const uint8_t* cl, int ncl) noexcept nogil:
    """Count the cells of ``m`` packed two-word candidates into four interleaved
    histograms ``hh[0..4*stride)``.  ``S`` is a constant at every call, so the compiler
    makes one loop per shift; four histograms break the store-to-load chain when
    consecutive candidates land in the same cell."""
    cdef uint64_t p0 = ge[0]
    cdef uint64_t p1 = ge[1]
    cdef uint32_t* h1 = hh + stride
    cdef uint32_t* h2 = hh + 2 * stride
    cdef uint32_t* h3 = hh + 3 * stride
    cdef Py_ssize_t i = 0
    if S == 3 and HAVE_COUNT64:         # 64 candidates at a time (AVX-512, mm_count64)
        while i < m:
            _count64(p0, p1, pk, m - i if m - i < 64 else 64, cl, ncl, hh)
            pk += 128
            i += 64
        return
    if S == 3:                          # mm_count64's whole groups of eight codes
        _twin_read(pk + 2 * m, 16 * (((m + 7) & ~(<Py_ssize_t>7)) - m))
    while i + 4 <= m:
        hh[(popcount(p0 & pk[0]) << S) + popcount(p1 & pk[1])] += 1
        h1[(popcount(p0 & pk[2]) << S) + popcount(p1 & pk[3])] += 1
        h2[(popcount(p0 & pk[4]) << S) + popcount(p1 & pk[5])] += 1
        h3[(popcount(p0 & pk[6]) << S) + popcount(p1 & pk[7])] += 1
        pk += 8
        i += 4
    while i < m:
        hh[(popcount(p0 & pk[0]) << S) + popcount(p1 & pk[1])] += 1
        pk += 2
        i += 1


cdef inline void _acc_wide(const uint64_t* ge, const uint64_t* pk, Py_ssize_t m,
                           uint32_t* hh, Py_ssize_t stride) noexcept nogil:
    """As _acc_narrow for four-word codes (shift 4)."""
    cdef Py_ssize_t i
    for i in range(m):
        hh[(i & 3) * stride
           + (((popcount(ge[0] & pk[0]) + popcount(ge[1] & pk[1])) << 4)
              | (popcount(ge[2] & pk[2]) + popcount(ge[3] & pk[3])))] += 1
        pk += 4


cdef inline void _acc(const KData* d, const uint64_t* ge, const uint64_t* pk, Py_ssize_t m,
                      uint32_t* hh) noexcept nogil:
    if d.mode == FOUR_WORDS:
        _acc_wide(ge, pk, m, hh, d.cells)
    elif d.shift == 3:
        _acc_narrow(ge, pk, m, hh, d.cells, 3, d.clist, d.ncl)
    else:
        _acc_narrow(ge, pk, m, hh, d.cells, 4, d.clist, d.ncl)


cdef inline void _fold(const KData* d, const uint32_t* hh, uint32_t* h) noexcept nogil:
    """h[slot] = sum of the four histograms' cells that fold to the slot."""
    cdef int j
    cdef Py_ssize_t c = d.cells
    memset(h, 0, MAX_SLOTS * sizeof(uint32_t))
    for j in range(c):
        h[d.fold[j]] += hh[j] + hh[c + j] + hh[2 * c + j] + hh[3 * c + j]


cdef inline void _pack(const KData* d, const int32_t* c, Py_ssize_t m,
                       uint64_t* out) noexcept nogil:
    """out = the encodings of c[0..m), contiguous (the scans then stream them)."""
    cdef Py_ssize_t i, j, w = d.words
    for i in range(m):
        for j in range(w):
            out[i * w + j] = d.enc[<Py_ssize_t>c[i] * w + j]


cdef uint64_t* _new_pack(const KData* d, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """A new array (free it; NULL when out of memory) of the candidates' encodings
    (_pack), zero-padded to a multiple of 8 codes (the vector kernels read whole groups
    of eight), followed, when the game has them (``d.benc``), by their byte forms (see
    mm_count64b) at ``_bytes_of(pk, m)``.  Nothing more (one word when m = 0): a read past
    the last region's padding is a read past the allocation, which the sanitizer build
    reports."""
    cdef Py_ssize_t padded = (m + 7) & ~(<Py_ssize_t>7)
    cdef Py_ssize_t i, words
    cdef int j, bw = d.bw if d.benc != NULL else 0
    words = padded * (d.words + bw)
    cdef uint64_t* pk = <uint64_t*>calloc(words if words > 0 else 1, sizeof(uint64_t))
    if pk != NULL:
        _pack(d, c, m, pk)
        for j in range(bw):             # then the byte forms: all D, all K (, all H)
            for i in range(m):
                pk[(2 + j) * padded + i] = d.benc[bw * <Py_ssize_t>c[i] + j]
    return pk


cdef void _hist_packed(const KData* d, int32_t g, const uint64_t* pk, Py_ssize_t m,
                       uint32_t* h) noexcept nogil:
    """The partition table of guess g over packed candidate encodings (encoded modes)."""
    cdef uint32_t hh[4 * 144]
    cdef const uint64_t* pb = _bytes_of(d, pk, m)
    memset(hh, 0, 4 * d.cells * sizeof(uint32_t))
    if pb != NULL:
        _cells_of_bytes(d, g, pb, m, hh)
    else:
        _acc(d, d.enc + <Py_ssize_t>g * d.words, pk, m, hh)
    _fold(d, hh, h)


cdef void _hist(const KData* d, int32_t g, const int32_t* c, Py_ssize_t m,
                uint32_t* h) noexcept nogil:
    """h[slot] = number of candidates c[i] with s(g, c[i]) in that slot, for every slot.

    Plain Python: ``for v in c: h[slot(g, v)] += 1``.
    """
    cdef uint32_t hh[4 * 144]
    cdef uint64_t buf[4 * CHUNK]
    cdef Py_ssize_t i, j
    cdef const uint8_t* row
    if d.mode == SCORE_TABLE:
        memset(h, 0, MAX_SLOTS * sizeof(uint32_t))
        row = d.table + <Py_ssize_t>g * d.stride
        for i in range(m):
            h[row[c[i]]] += 1
        return
    memset(hh, 0, 4 * d.cells * sizeof(uint32_t))
    i = 0
    while i < m:
        j = m - i if m - i < CHUNK else CHUNK
        _pack(d, c + i, j, buf)
        _acc(d, d.enc + <Py_ssize_t>g * d.words, buf, j, hh)
        i += j
    _fold(d, hh, h)



# --------------------------------------------------------------------------- Python API

cdef class Kernel:
    """Scoring data of one game, prepared once; every method trusts its arguments.

    Build it with :meth:`from_codes` (encoded codes) or :meth:`from_table` (score table);
    :class:`mastermind.game.Game` does both, after validation.  The strategy scans and
    walks, the symmetry and the searches are functions of the other kernel modules that
    take a Kernel.
    """

    def __cinit__(self):
        self._refs = None

    @staticmethod
    def from_codes(const uint64_t[:, ::1] enc, const uint8_t[:, ::1] digits, int k,
                   const uint8_t[::1] slot_tab, int nslots, int win,
                   const int64_t[::1] xlogx, universe=None):
        """enc: (N, 2) for n*k <= 64, else (N, 4) (``encode_codes``); digits: (N, n)
        colours 0..k-1; slot_tab[(b << 4) | (b + w)]: the slot of score (b, w), 255 where
        impossible.  ``universe``: the code index of each of the N rows (sorted int32),
        when the kernel is to hold only those codes (None: all k**n codes, row = index).
        Every method then takes and returns code indices, converted at its entry."""
        cdef Kernel kr = Kernel.__new__(Kernel)
        cdef int i, n = digits.shape[1]
        cdef Py_ssize_t N = enc.shape[0], r
        kr.mode = TWO_WORDS if enc.shape[1] == 2 else FOUR_WORDS
        kr._init(nslots, win, xlogx)
        kr.d.enc = &enc[0, 0]
        kr.d.digits = &digits[0, 0]
        kr.d.n = n
        kr.d.k = k
        kr.d.words = enc.shape[1]
        kr.d.shift = 3 if (n <= 7 and kr.mode == TWO_WORDS) else 4
        kr.d.cells = (n + 1) << kr.d.shift
        kr.ncodes = N
        if universe is not None:
            kr.universe = universe
            kr._code_of_ptr(universe)
        kr._score_cells(slot_tab, n)
        bw = 0
        if HAVE_LANES and kr.mode == TWO_WORDS and kr.d.shift == 3 and k <= 16:
            bw = 2 if k <= 8 else 3
        cm = np.zeros(N, dtype=np.uint32)
        benc = np.zeros((N, bw), dtype=np.uint64) if bw else None
        cdef uint32_t[::1] cmv = cm
        cdef uint64_t[:, ::1] bv
        cdef uint8_t* by
        if bw:
            bv = benc
        with nogil:
            for r in range(N):
                for i in range(n):
                    cmv[r] |= (<uint32_t>1) << digits[r, i]
                if bw:
                    # D: a byte per position (its colour, 0xFF past n); K (and H): a byte
                    # per colour (its count), colours 0-7 then 8-15
                    by = <uint8_t*>&bv[r, 0]
                    memset(by, 0xFF, 8)
                    for i in range(n):
                        by[i] = digits[r, i]
                        (<uint8_t*>&bv[r, 1])[digits[r, i]] += 1
        kr.d.colmask = &cmv[0]
        if bw:
            kr.d.bw = bw
            kr._benc_ptr(benc)
        msw = msid = None
        if kr.mode == TWO_WORDS:          # colour multisets, for _class_bounds
            msw, msid = _multisets(np.asarray(enc)[:, 1], n, k)
            kr._ms_ptrs(msw, msid)
        kr._refs = (enc, digits, xlogx, cm, msw, msid, benc, universe)
        return kr

    cdef void _score_cells(self, const uint8_t[::1] slot_tab, int n):
        """The slots of an encoded game's scores as the scans read them: by (blacks,
        blacks + whites) (``slot_tab``) and by histogram cell (``fold``), the possible
        scores per total and as cells (``tcells``, ``clist``), and whether each possible
        score has a slot of its own (``injective``).  ``d.shift`` is set."""
        cdef int i, b, t
        self.d.injective = True
        for i in range(256):
            self.d.slot_tab[i] = slot_tab[i]
            self.d.fold[i] = DUMMY
        seen = set()
        for i in range(256):
            if slot_tab[i] != 255:
                if slot_tab[i] in seen:
                    self.d.injective = False
                seen.add(slot_tab[i])
        for b in range(n + 1):
            for t in range(b, n + 1):
                if slot_tab[(b << 4) | t] != 255:
                    self.d.fold[(b << self.d.shift) | t] = slot_tab[(b << 4) | t]
        self.d.ncl = 0                      # possible scores: per total, and as cells
        for b in range(n + 1):
            for t in range(b, n + 1):
                if slot_tab[(b << 4) | t] != 255:
                    self.d.tcells[t] += 1
                    if self.d.shift == 3:
                        self.d.clist[self.d.ncl] = (b << 3) | t
                        self.d.ncl += 1

    cdef void _code_of_ptr(self, const int32_t[::1] universe):
        self.d.code_of = &universe[0]

    cdef void _benc_ptr(self, const uint64_t[:, ::1] benc):
        self.d.benc = &benc[0, 0]

    cdef void _ms_ptrs(self, const uint64_t[::1] msw, const int32_t[::1] msid):
        self.d.msw = &msw[0]
        self.d.msid = &msid[0]
        self.d.nms = msw.shape[0]

    @staticmethod
    def from_table(const uint8_t[:, ::1] table, int nslots, int win,
                   const int64_t[::1] xlogx):
        """table: (U, U) score slots over a universe of U codes."""
        cdef Kernel k = Kernel.__new__(Kernel)
        k.mode = SCORE_TABLE
        k._init(nslots, win, xlogx)
        k.d.table = &table[0, 0]
        k.d.stride = table.shape[1]
        k.ncodes = table.shape[0]
        k._refs = (table, xlogx)
        return k

    cdef void _init(self, int nslots, int win, const int64_t[::1] xlogx):
        dx = np.ascontiguousarray(np.diff(np.asarray(xlogx)), dtype=np.int64)
        cdef const int64_t[::1] dxv = dx
        self._dx = dx
        self.d.dxlogx = &dxv[0] if dxv.shape[0] else NULL
        self.d.ndx = dxv.shape[0]
        self.nslots = nslots
        self.win = win
        self.d.mode = self.mode
        self.d.nslots = nslots
        self.d.win = win
        self.d.xlogx = &xlogx[0]
        self.d.enc = NULL
        self.d.digits = NULL
        self.d.colmask = NULL
        self.d.table = NULL
        self.d.stride = 0
        self.d.words = 0
        self.d.code_of = NULL
        self.d.stop = NULL
        self.d.deadline = 0
        self.d.polls = NULL

    # Code indices <-> rows: the identity unless the kernel holds only some codes.
    def rows(self, codes):
        """The rows of code indices (an int or an int32 array; the codes must be held)."""
        if self.universe is None:
            return codes
        if isinstance(codes, np.ndarray):
            return np.ascontiguousarray(np.searchsorted(self.universe, codes), dtype=np.int32)
        return int(np.searchsorted(self.universe, codes))

    def codes(self, rows):
        """The code indices of rows (an int or an int array)."""
        if self.universe is None:
            return rows
        if isinstance(rows, np.ndarray):
            return np.ascontiguousarray(self.universe[rows], dtype=np.int32)
        return int(self.universe[rows])

    def holds(self, codes):
        """Whether every code index of ``codes`` (int32 array) has a row."""
        if self.universe is None:
            return True
        i = np.searchsorted(self.universe, codes)
        return bool(np.all(i < self.universe.size)
                    and np.array_equal(self.universe[np.minimum(i, self.universe.size - 1)],
                                       codes))

    def slot(self, int32_t u, int32_t v):
        """The score slot of s(u, v)."""
        return _slot(&self.d, self.rows(u), self.rows(v))

    def slots(self, int32_t guess, cands):
        """uint8 array: ``[slot(guess, v) for v in cands]``."""
        cdef const int32_t[::1] c = self.rows(cands)
        cdef int32_t g = self.rows(guess)
        out = np.empty(c.shape[0], dtype=np.uint8)
        cdef uint8_t[::1] o = out
        cdef Py_ssize_t i
        with nogil:
            for i in range(c.shape[0]):
                o[i] = <uint8_t>_slot(&self.d, g, c[i])
        return out

    def histogram(self, int32_t guess, cands):
        """uint32 array of length nslots: the partition table of ``guess`` over ``cands``."""
        cdef const int32_t[::1] c = self.rows(cands)
        cdef int32_t g = self.rows(guess)
        out = np.zeros(self.nslots, dtype=np.uint32)
        cdef uint32_t h[MAX_SLOTS]
        cdef uint32_t[::1] o = out
        cdef int j
        with nogil:
            _hist(&self.d, g, &c[0] if c.shape[0] else NULL, c.shape[0], h)
        for j in range(self.nslots):
            o[j] = h[j]
        return out

    def histograms(self, guesses, cands, StopFlag stop=None):
        """uint32 array (len(guesses), nslots): one partition table per guess.  With a
        ``stop`` flag, returns early (the tables void) once the flag is set."""
        cdef const int32_t[::1] gs = self.rows(guesses)
        cdef const int32_t[::1] c = self.rows(cands)
        out = np.zeros((gs.shape[0], self.nslots), dtype=np.uint32)
        cdef uint32_t[:, ::1] o = out
        cdef uint32_t h[MAX_SLOTS]
        cdef Py_ssize_t i
        cdef int j
        cdef Py_ssize_t m = c.shape[0]
        cdef const int32_t* cp = &c[0] if m else NULL
        cdef uint64_t* pk = NULL
        cdef KData dd = _with_stop(&self.d, stop)
        with nogil:
            if dd.mode != SCORE_TABLE:
                pk = _new_pack(&dd, cp, m)
            for i in range(gs.shape[0]):
                if (i & 15) == 0 and _halted(&dd):
                    break
                if pk != NULL:
                    _hist_packed(&dd, gs[i], pk, m, h)
                else:
                    _hist(&dd, gs[i], cp, m, h)
                for j in range(self.nslots):
                    o[i, j] = h[j]
            free(pk)
        return out

    def keys(self, guesses, cands, int kind):
        """int64 array: the valuation key (lower is better) of every guess."""
        h = self.histograms(guesses, cands)
        out = np.empty(h.shape[0], dtype=np.int64)
        cdef int64_t[::1] o = out
        cdef const uint32_t[:, ::1] hv = h
        cdef uint32_t row[MAX_SLOTS]
        cdef Py_ssize_t i
        cdef int j
        with nogil:
            for i in range(hv.shape[0]):
                for j in range(self.nslots):
                    row[j] = hv[i, j]
                o[i] = _value(&self.d, row, kind)
        return out

    def filter(self, int32_t guess, int slot, cands):
        """int32 array: ``[v for v in cands if slot(guess, v) == slot]``."""
        cdef const int32_t[::1] c = self.rows(cands)
        cdef int32_t g = self.rows(guess)
        out = np.empty(c.shape[0], dtype=np.int32)
        cdef int32_t[::1] o = out
        cdef Py_ssize_t i, n = 0
        with nogil:
            for i in range(c.shape[0]):
                if _slot(&self.d, g, c[i]) == slot:
                    o[n] = c[i]
                    n += 1
        return self.codes(out[:n].copy())


class Stopped(Exception):
    """A kernel call ended by its :class:`StopFlag`: its result is void."""


cdef class StopFlag:
    """A flag by which another thread (or a deadline) stops a kernel call.

    Pass it to a scan, walk or search; :meth:`set` from any thread makes the call return
    within milliseconds (its result void); with a ``deadline`` (CLOCK_MONOTONIC seconds,
    see :meth:`set_time_limit`) the calls stop by themselves and :attr:`value` becomes
    ``STOP_DEADLINE``.
    """

    def __cinit__(self):
        self.flag = STOP_NONE
        self.deadline = 0.0
        self.polls = -1

    def set(self):
        """Ask the call to stop (``STOP_REQUESTED``)."""
        self.flag = STOP_REQUESTED

    def clear(self):
        self.flag = STOP_NONE

    @property
    def value(self):
        """``STOP_NONE`` running, ``STOP_REQUESTED`` stop requested, ``STOP_DEADLINE`` the
        deadline passed."""
        return self.flag

    def set_time_limit(self, double seconds):
        """Stop the calls made with this flag ``seconds`` from now (<= 0: no limit)."""
        self.deadline = _now() + seconds if seconds > 0 else 0.0

    def stop_after_polls(self, int64_t polls):
        """Stop the calls made with this flag at their look at it after ``polls`` looks,
        as a deadline passing then would (``STOP_DEADLINE``); negative: no such count.
        A deadline that falls at any chosen moment of a single-threaded call, for tests
        (the calls look at the flag between runs of guesses and at every node)."""
        self.polls = polls

    @property
    def polls_left(self):
        """The looks left before :meth:`stop_after_polls` stops the calls (-1: none)."""
        return self.polls


def monotonic():
    """The kernel's clock (CLOCK_MONOTONIC seconds), as deadlines use it."""
    return _now()


def _multisets(words, int n, int k):
    """(msw, msid): the count words of the colour multisets present among ``words`` (the
    count words of two-word codes), ascending, and the multiset number of each code.

    The multisets are listed from combinatorics, not sorted out of the codes:
    C(n + k - 1, n) words, then each code found among them by binary search."""
    from itertools import combinations_with_replacement
    every = np.array(sorted(sum(((1 << combo.count(c)) - 1) << (c * n) for c in set(combo))
                            for combo in combinations_with_replacement(range(k), n)),
                     dtype=np.uint64)
    ids = np.searchsorted(every, words)
    present = np.flatnonzero(np.bincount(ids, minlength=every.size))
    renumber = np.zeros(every.size, dtype=np.int32)
    renumber[present] = np.arange(present.size, dtype=np.int32)
    return (np.ascontiguousarray(every[present]),
            np.ascontiguousarray(renumber[ids], dtype=np.int32))


def code_digits(int n, int k, codes=None):
    """(N, n) uint8: the colours 0..k-1 of every code (N = k**n), or of the given code
    indices (int32), most significant first.  Plain Python: ``divmod`` digit by digit."""
    cdef const int32_t[::1] cv
    cdef Py_ssize_t N, i
    cdef int p
    cdef int64_t x
    if codes is None:
        N = k ** n
    else:
        cv = codes
        N = cv.shape[0]
    out = np.empty((N, n), dtype=np.uint8)
    cdef uint8_t[:, ::1] o = out
    cdef bint every = codes is None
    with nogil:
        for i in range(N):
            x = i if every else cv[i]
            for p in range(n - 1, -1, -1):
                o[i, p] = <uint8_t>(x % k)
                x = x // k
    return out


def distinct_codes(int n, int k):
    """int32: the indices (ascending) of the codes that repeat no colour."""
    cdef Py_ssize_t N = k ** n, i, count = 0
    cdef int p
    cdef int64_t x
    cdef uint32_t seen
    cdef bint ok
    out = np.empty(N, dtype=np.int32)
    cdef int32_t[::1] o = out
    with nogil:
        for i in range(N):
            x = i
            seen = 0
            ok = True
            for p in range(n):  # no-cython-lint (a typed counter: n digits)
                if (seen >> (x % k)) & 1:
                    ok = False
                    break
                seen |= (<uint32_t>1) << (x % k)
                x = x // k
            if ok:
                o[count] = <int32_t>i
                count += 1
    return out[:count].copy()


def encode_codes(const uint8_t[:, ::1] digits, int k):
    """The kernel's encoding of every code: (N, 2) uint64 when n*k <= 64, else (N, 4).

    Words 0..W/2-1 hold the positions (bit ``p*k + colour``), the others the colour counts
    as thermometer codes (bits ``c*n .. c*n + count(c) - 1``).  Plain Python::

        pos = sum(1 << (p * k + x[p]) for p in range(n))
        cnt = sum(((1 << x.count(c)) - 1) << (c * n) for c in range(k))
    """
    cdef Py_ssize_t N = digits.shape[0], i
    cdef int n = digits.shape[1], p, c, j, bit
    cdef int half = 1 if n * k <= 64 else 2
    cdef uint8_t counts[16]
    out = np.zeros((N, 2 * half), dtype=np.uint64)
    cdef uint64_t[:, ::1] o = out
    with nogil:
        for i in range(N):
            memset(counts, 0, sizeof(counts))
            for p in range(n):
                bit = p * k + digits[i, p]
                o[i, bit >> 6] |= (<uint64_t>1) << (bit & 63)
                counts[digits[i, p]] += 1
            for c in range(k):
                for j in range(counts[c]):
                    bit = c * n + j
                    o[i, half + (bit >> 6)] |= (<uint64_t>1) << (bit & 63)
    return out


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
    cdef int64_t[::1] x = out
    cdef int32_t[::1] spf = spf_arr
    cdef Py_ssize_t t, q, p
    cdef double scale = 2.0 ** S
    with nogil:
        for t in range(2, nmax + 1):        # smallest prime factor sieve
            if spf[t] == 0:
                q = t
                while q <= nmax:
                    if spf[q] == 0:
                        spf[q] = <int32_t>t
                    q += t
        for t in range(2, nmax + 1):        # IL(t) = x[t] / t, built from smaller t
            p = spf[t]
            if p == t:
                x[t] = t * <int64_t>(log2(<double>t) * scale + 0.5)
            else:
                x[t] = t * (x[p] // p + x[t // p] // (t // p))
    return out, S
