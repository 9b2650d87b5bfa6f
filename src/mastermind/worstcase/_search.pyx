# cython: language_level=3
"""The worst-case search behind :func:`mastermind.worstcase.bounds.solution_exists`.

The question: can every candidate of a set S be found within d guesses (the winning
guess counts)?  Answers are exact: every cut below is a theorem (docs/bounds.md proves
each), and a False is only returned when every guess (up to a symmetry that maps S onto
itself) has been refuted.

Facts used (P = the number of non-winning slots a guess can fill):

* |S| <= 1: solvable iff d >= 1 (or S empty); |S| = 2 and d >= 2: guess one of them.
* d guesses find at most N_P(d) = 1 + P + ... + P^(d-1) codes (one per leaf).
* The number of non-empty non-winning parts a guess makes on a subset never exceeds the
  number it makes on the set, so the best count Pnode over all guesses at a node bounds
  every descendant: a part needs |part| <= N_Pnode(d-1).
* d = 2: solvable iff some guess puts every code of S in its own slot.
* A non-candidate guess leaving S in a single part wastes a guess: skipped.
* Symmetry (_symmetry.pyx, ``SetSym``): only the smallest code of each orbit of guesses
  under the permutations mapping S onto itself is tried.
* Memo (_memo.pyx): exact candidate sets -> (largest d proved False, smallest d proved
  True, the guess that proved it); a False for d holds for every smaller d, a True for
  larger.

The caller (:mod:`mastermind.worstcase.bounds`) guarantees: candidate sets sorted, non-empty and
guessable; a guess set closed under colour and position permutations when symmetry is
on, and equal to every code when absent colours may be merged.
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memcpy, memset

import numpy as np

from mastermind.kernel._core cimport free_structs, new_structs
from mastermind.kernel._core cimport (KIND_ENTROPY, KIND_EXPECTED, KIND_MINMAX, TWO_WORDS, KData,
                                      Kernel, MAX_SLOTS, PAD_ONES, STOP_MEMORY, STOP_NODE_LIMIT,
                                      STOP_NONE, StopFlag, __builtin_ctzll, _at_least64,
                                      _bytes_of, _count64b, _hist, _hist_packed, _label_parts,
                                      _label_scan, _new_pack, _separates64, popcount, _slot,
                                      _split_by_slot, _splits_all, _stop_reason, _value,
                                      _with_stop)
from mastermind.kernel._memo cimport (Memo, MemoEntry, _hash_set, _memo_find, _memo_free,
                                      _memo_init)
from mastermind.kernel._symmetry cimport (B_MAXK, B_MAXN, CanonCache, SetSym, SymCtx,
                                          _canon_cache_free, _canonical_pool, _set_canonical,
                                          _set_sym_init)

# The search's rooms (each a file of this module): its scans of one guess, and its state
# and the small steps on it (their routines inline); the label rows and matrices of d = 3
# nodes and the separation checks at d = 2, the colour-multiset counts of d = 3 nodes,
# then the ranking of a node's guesses (phases 1 and 2; these rooms' routines out of line).
include "_search_scan.pxi"
include "_search_state.pxi"
include "_search_labels.pxi"
include "_search_multisets.pxi"
include "_search_rank.pxi"


LROW_BYTES = 256 << 20
"""Bytes of label rows a search keeps (a row per code: its slots against every guess,
32 KiB a code for [5,8]); the label matrices of d = 3 nodes are made of them, so a code's
row is made once however many matrices hold it."""


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
    h = _hash_set(c, m, 0)
    e = _memo_find(&s.memo, c, m, 0, h, False)
    if e != NULL:
        if e.hi <= d:
            s.hits += 1
            found[0] = e.guess
            return 1
        if e.lo >= d:
            s.hits += 1
            return 0
    if _check_abort(s, d >= 3):
        return -1
    s.at_depth[d if d < B_MAXD else B_MAXD - 1] += 1
    if d == 2:
        if s.hint != NULL and _sep_matrix(s, s.lptr, s.hint, m) < 0:
            s.leaves += 1                   # (what _separating counts)
            g = -1                          # no guess separates c: the scan is spared
        else:
            g = _separating(s, c, m)
        if g == -2:
            s.aborted = STOP_MEMORY
            return -1
        r = g >= 0
        found[0] = g
    else:
        r = _expand(s, c, m, d, pbound, found)
    if r >= 0 and not (r == 0 and c == s.root_c):
        _memo_store(s, c, m, h, d, r, found[0])
    return r


cdef inline bint _known_false(SData* s, const int32_t* c, Py_ssize_t m,
                              int d) noexcept nogil:
    cdef MemoEntry* e
    if m <= 2:
        return False
    e = _memo_find(&s.memo, c, m, 0, _hash_set(c, m, 0), False)
    return e != NULL and e.lo >= d


cdef int _expand(SData* s, const int32_t* c, Py_ssize_t m, int d, int pbound,
                 int32_t* found) noexcept nogil:
    """Try every useful guess (d >= 3, m >= 3): the buffers, then :func:`_try_guesses`."""
    cdef Py_ssize_t npool = m if s.cands_only else s.ng
    cdef SetSym y
    cdef int r
    cdef GuessInfo* info
    cdef int32_t* parts
    cdef int32_t* pidx
    cdef uint8_t* lab
    if _set_sym_init(&s.sym, &y, c, m) < 0:
        s.aborted = STOP_MEMORY
        return -1
    info = <GuessInfo*>new_structs(npool, sizeof(GuessInfo), False)
    parts = <int32_t*>malloc(m * sizeof(int32_t))
    pidx = <int32_t*>malloc(m * sizeof(int32_t))
    lab = <uint8_t*>malloc(m)
    if info == NULL or parts == NULL or lab == NULL or pidx == NULL:
        s.aborted = STOP_MEMORY
        r = -1
    else:
        r = _try_guesses(s, c, m, d, pbound, found, &y, info, parts, pidx, lab)
    free_structs(info)
    free(parts)
    free(pidx)
    free(lab)
    free(y.perms)
    return r


cdef struct LeafMatrix:
    # A d = 3 node's switch from plain separation checks to its label matrix.
    bint allowed            # the node may still switch to its matrix
    bint built              # it has: the remaining checks read the matrix
    bint ready              # the matrix and its classes are made (s.ncls_ok): the plain
                            # checks look there first whether any guess can separate
    int leaves              # separation checks made the plain way so far


cdef int _try_guesses(SData* s, const int32_t* c, Py_ssize_t m, int d, int pbound,
                      int32_t* found, const SetSym* y, GuessInfo* info, int32_t* parts,
                      int32_t* pidx, uint8_t* lab) noexcept nogil:
    """Score every canonical guess, drop the hopeless ones, then try the rest by
    decreasing entropy, each part largest first.

    Phase 1 scans each guess with an early exit as soon as a non-winning part exceeds
    N_pbound(d-1); if no guess survives, c is refuted cheaply.  Otherwise phase 2 finishes
    the scans that exited early, to get the exact best part count pmax of this node,
    which tightens the cap and bounds every descendant (:func:`_rank`).

    At d = 3 the children are separation checks; after a few of them the node builds its
    label matrix (every guess against every code, :func:`_build_lmat`) and checks the
    rest with :func:`_sep_matrix`, exactly and much faster (no memo needed for them).
    Phase 1 reads 64 codes at a time through their byte forms where the game has them
    (:func:`_scan_capped`; the cap is looked at after each 64: same answers).
    """
    cdef const int32_t* pool = c if s.cands_only else s.guesses
    cdef Py_ssize_t npool = m if s.cands_only else s.ng
    cdef Py_ssize_t ninfo
    cdef uint64_t* pk = NULL
    cdef int pmax = 0, r
    cdef bint root = s.root_track           # (the first node to rank is the run's root)
    if s.root_pool != NULL:                 # the root of a run given its guesses: those
        pool = s.root_pool                  # of them canonical under the set's symmetry
        npool = s.root_npool
        s.root_pool = NULL
    if _packs(s.d, m):
        pk = _new_pack(s.d, c, m)
        if pk == NULL:
            s.aborted = STOP_MEMORY
            return -1
    s.sizes += m
    ninfo = _rank(s, c, m, d, pbound, pool, npool, y, info, pk, &pmax)
    if ninfo == RANK_STOPPED:
        r = -1
    elif ninfo == RANK_REFUTED:
        r = 0
    else:
        if root and s.root_tries != NULL:   # ranked (and pmax made) over every guess,
            ninfo = _keep_tries(s, info, ninfo)     # only the run's own tried
        r = _try_ranked(s, c, m, d, found, info, ninfo, pmax, parts, pidx, lab)
    free(pk)
    return r


cdef Py_ssize_t _keep_tries(SData* s, GuessInfo* info, Py_ssize_t ninfo) noexcept nogil:
    """info[0..ninfo) cut down, in order, to the guesses of s.root_tries; how many."""
    cdef Py_ssize_t i, j = 0, lo, hi, mid
    cdef int32_t g
    for i in range(ninfo):
        g = info[i].guess
        lo, hi = 0, s.root_ntries
        while lo < hi:
            mid = (lo + hi) >> 1
            if s.root_tries[mid] < g:
                lo = mid + 1
            else:
                hi = mid
        if lo < s.root_ntries and s.root_tries[lo] == g:
            info[j] = info[i]
            j += 1
    return j


cdef int _parts_to_try(SData* s, const int32_t* parts, const Py_ssize_t* off,
                       const uint32_t* h, int d, int* order) noexcept nogil:
    """order = the non-winning parts of three codes or more, largest first; returns how
    many, or -1 as soon as one is known unsolvable within d - 1 guesses (it fails fast)."""
    cdef int sl, a, b, tmp, nparts = 0
    for sl in range(s.d.nslots):
        if sl != s.d.win and h[sl] >= 3:
            if _known_false(s, parts + off[sl], h[sl], d - 1):
                return -1
            order[nparts] = sl
            nparts += 1
    for a in range(1, nparts):
        b = a
        while b > 0 and h[order[b - 1]] < h[order[b]]:
            tmp = order[b - 1]
            order[b - 1] = order[b]
            order[b] = tmp
            b -= 1
    return nparts


cdef int _solve_parts(SData* s, const int32_t* c, Py_ssize_t m, int d, int pmax,
                      const int32_t* parts, const int32_t* pidx, const Py_ssize_t* off,
                      const uint32_t* h, const int* order, int nparts,
                      LeafMatrix* lm) noexcept nogil:
    """1 when every part order[0..nparts) of one guess can be solved within d - 1
    guesses, 0 as soon as one cannot, -1 when stopped.  At d = 3 (``lm``), after
    s.matrix_after plain separation checks the node builds its label matrix and checks
    the rest through it."""
    cdef int a, sl, rr
    cdef int32_t sub
    for a in range(nparts):
        sl = order[a]
        if lm.built:
            if _check_abort(s, False):
                return -1
            s.leaves += 1
            s.at_depth[2] += 1
            rr = _sep_matrix(s, s.lptr, pidx + off[sl], h[sl]) >= 0
        else:
            s.hint = pidx + off[sl] if lm.ready else NULL
            rr = _exists(s, parts + off[sl], h[sl], d - 1, pmax, &sub)
            s.hint = NULL
            if rr < 0:
                return -1
            if lm.allowed:
                lm.leaves += 1
                if lm.leaves >= s.matrix_after:
                    lm.allowed = False
                    lm.built = lm.ready or _build_lmat(s, c, m)
        if rr == 0:
            return 0
    return 1


cdef bint _node_classes(SData* s, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """Make the label matrix of the d = 3 node c and the number of labels each guess
    gives its codes (s.ncls), or take them from its ranking (s.gstats_ok: its parts and
    whether it wins); False when memory is short (then neither is used)."""
    cdef uint8_t* grown
    cdef Py_ssize_t i, ng = s.ng
    s.ncls_ok = False
    if s.ncls == NULL:
        grown = <uint8_t*>malloc(2 * ng + 1)
        if grown == NULL:
            return False
        s.ncls = grown
    if s.gstats_ok:
        for i in range(ng):
            s.ncls[i] = s.gstats[ng + i] + s.gstats[2 * ng + i]
    elif _build_lmat(s, c, m):
        _label_parts(s.lptr, m, 0, ng, s.d.nslots, s.d.win, s.ncls, s.ncls + ng)
        for i in range(ng):
            s.ncls[i] += s.ncls[ng + i]
    else:
        return False
    s.ncls_ok = True
    return True


cdef int _try_ranked(SData* s, const int32_t* c, Py_ssize_t m, int d, int32_t* found,
                     const GuessInfo* info, Py_ssize_t ninfo, int pmax, int32_t* parts,
                     int32_t* pidx, uint8_t* lab) noexcept nogil:
    """Try the ranked guesses info[0..ninfo) in turn: 1 (``found``: the first whose every
    part can be solved within d - 1 guesses), 0 when none can, -1 when stopped."""
    cdef uint32_t h[MAX_SLOTS]
    cdef Py_ssize_t off[MAX_SLOTS + 1]
    cdef int order[MAX_SLOTS]
    cdef Py_ssize_t i
    cdef int nparts, r
    cdef LeafMatrix lm
    cdef bint tracked = _track_root(s, info, ninfo)
    lm.allowed = d == 3 and not s.cands_only
    lm.built = False
    lm.ready = False
    lm.leaves = 0
    if d == 3:
        s.ncls_ok = False
    if lm.allowed and ninfo > 0 and not s.classes_off:
        lm.ready = _node_classes(s, c, m)
    if lm.allowed and s.matrix_after == 0 and ninfo > 0:
        lm.allowed = False
        lm.built = lm.ready or _build_lmat(s, c, m)
    for i in range(ninfo):
        _split_by_slot(s.d, info[i].guess, c, m, h, off, parts, lab, pidx)
        nparts = _parts_to_try(s, parts, off, h, d, order)
        if nparts >= 0:
            r = _solve_parts(s, c, m, d, pmax, parts, pidx, off, h, order, nparts, &lm)
            if r < 0:
                return -1
            if r:
                found[0] = info[i].guess
                return 1
        if tracked:
            s.root_refuted = i + 1
    return 0


cdef bint _track_root(SData* s, const GuessInfo* info, Py_ssize_t ninfo) noexcept nogil:
    """The root's ranked guesses kept (s.root_ranked) when the run asked for them
    (s.root_track, cleared: the root is the first node to rank its guesses); whether
    they were (then the root counts the guesses it refutes in s.root_refuted)."""
    cdef Py_ssize_t i
    if not s.root_track:
        return False
    s.root_track = False
    free(s.root_ranked)
    s.root_ranked = <int32_t*>malloc((ninfo + 1) * sizeof(int32_t))
    if s.root_ranked == NULL:
        return False
    for i in range(ninfo):
        s.root_ranked[i] = info[i].guess
    s.root_nranked = ninfo
    s.root_refuted = 0
    return True


cdef class Searcher:
    """The exact search behind :func:`mastermind.worstcase.bounds.solution_exists`; keeps its memo
    between calls.  Trusts its arguments (validated by :mod:`mastermind.worstcase.bounds`).

    ``digits``: (ncodes, n) uint8 colours 0..k-1 of every code; ``guesses``: the sorted
    guess set (ignored when ``cands_only``); ``symmetry`` needs a guess set closed under
    colour and position permutations; ``merge_dead`` needs the guess set to be every code
    (or ``cands_only``); ``mem_limit``: bytes the memo may use.
    """
    cdef SData s
    cdef KData dd               # the kernel's data with the stop flag of the current run
    cdef object _refs
    cdef object _cmask
    cdef Kernel _kernel
    cdef uint8_t* _mark

    def __cinit__(self):
        memset(&self.s, 0, sizeof(SData))
        self._mark = NULL

    def __init__(self, Kernel kernel, const uint8_t[:, ::1] digits, int n, int k,
                 guesses, bint cands_only, bint symmetry, bint merge_dead,
                 Py_ssize_t mem_limit):
        cdef int p
        cdef uint32_t[::1] mv
        if n > B_MAXN or k > B_MAXK:
            raise ValueError(f"the search handles at most {B_MAXN} pegs and {B_MAXK} colours")
        guesses = kernel.rows(guesses)
        cdef const int32_t[::1] gv = guesses
        self.dd = _with_stop(&kernel.d, None)
        self.s.d = &self.dd
        self.s.sym.n = n
        self.s.sym.k = k
        self.s.sym.code_of = kernel.d.code_of
        # the symmetry marks codes by their index in the whole code space
        self.s.ncodes = k ** n if kernel.d.code_of != NULL else digits.shape[0]
        self.s.sym.digits = &digits[0, 0]
        self.s.sym.pw[n - 1] = 1
        for p in range(n - 2, -1, -1):
            self.s.sym.pw[p] = self.s.sym.pw[p + 1] * k
        self.s.guesses = &gv[0] if gv.shape[0] else NULL
        self.s.ng = gv.shape[0]
        self.s.cands_only = cands_only
        self.s.sym.use_sym = symmetry
        self.s.sym.merge_dead = merge_dead
        self.s.order = KIND_ENTROPY
        self.s.matrix_after = 8
        self.s.nonwin = kernel.nslots - 1
        self.s.rows_are_guesses = (gv.shape[0] == digits.shape[0]
                                   and bool(np.array_equal(guesses, np.arange(gv.shape[0]))))
        columns = self._columns(kernel, gv.shape[0])
        self._mark = <uint8_t*>calloc(self.s.ncodes, 1)
        self.s.nrows = digits.shape[0]
        self.s.lrow = <uint8_t**>calloc(self.s.nrows, sizeof(uint8_t*))
        self.s.lrow_cap = LROW_BYTES
        self.s.sym.mark = self._mark
        masks = np.zeros(digits.shape[0], dtype=np.uint32)
        for p in range(n):
            masks |= np.left_shift(np.uint32(1), np.asarray(digits)[:, p].astype(np.uint32))
        self._cmask = masks
        mv = masks
        self.s.sym.cmask = &mv[0]
        if (self._mark == NULL or self.s.lrow == NULL
                or _memo_init(&self.s.memo, mem_limit) != 0):
            raise MemoryError("out of memory preparing the search")
        self.s.memo.evicts = True
        self._kernel = kernel
        self._refs = (kernel, digits, guesses, columns)

    def _columns(self, Kernel kernel, Py_ssize_t ng):
        """The label columns' order (colg, colof, and the multiset scratch): the guesses
        grouped by colour multiset where the label counts can rule multisets out (every
        code a guess, the standard score), so that a multiset ruled out spares whole
        groups of 32 columns; else the guesses' own order."""
        cdef const int32_t[::1] cg
        cdef const int32_t[::1] co
        cdef const int32_t[::1] cm
        cdef const int32_t[::1] ms
        cdef int32_t[::1] mc
        cdef int nms = kernel.d.nms
        self.s.ms_cols = (self.s.rows_are_guesses and ng > 0 and kernel.d.msid != NULL
                          and kernel.d.injective and kernel.d.mode == TWO_WORDS)
        if self.s.ms_cols:
            msid = np.asarray(<const int32_t[:ng]>kernel.d.msid)
            colg = np.argsort(msid, kind="stable").astype(np.int32)
            colms = np.ascontiguousarray(msid[colg], dtype=np.int32)
            mstart = np.searchsorted(colms, np.arange(nms + 1)).astype(np.int32)
        else:
            colg = np.arange(ng, dtype=np.int32)
            colms = mstart = np.zeros(1, dtype=np.int32)
        colof = np.empty(ng, dtype=np.int32)
        colof[colg] = np.arange(ng, dtype=np.int32)
        scratch = np.zeros(2 * nms + 1, dtype=np.int32)
        cg, co, cm, ms, mc = colg, colof, colms, mstart, scratch
        if ng > 0:
            self.s.colg = &cg[0]
            self.s.colof = &co[0]
        self.s.colms = &cm[0]
        self.s.mstart = &ms[0]
        self.s.mcount = &mc[0]
        self.s.mseen = &mc[nms]
        self.s.mkill = <uint8_t*>calloc(2 * nms + 2, 1)
        if self.s.mkill == NULL:
            raise MemoryError("out of memory preparing the search")
        self.s.mub = self.s.mkill + nms + 1
        return colg, colof, colms, mstart, scratch

    def __dealloc__(self):
        cdef Py_ssize_t v
        _memo_free(&self.s.memo)
        _canon_cache_free(&self.s.canon)
        free(self.s.lmat)
        free(self.s.lptr)
        free(self.s.ncls)
        free(self.s.gstats)
        free(self.s.gwant)
        free(self.s.gscan)
        free(self.s.gfull)
        free(self.s.root_ranked)
        free(self.s.mkill)
        if self.s.lrow != NULL:
            for v in range(self.s.nrows):
                free(self.s.lrow[v])
            free(self.s.lrow)
        free(self._mark)

    property order:
        """The valuation (VAL_ENTROPY by default) that orders the guesses tried at a node;
        answers never depend on it, only the time to find them."""
        def __get__(self):
            return self.s.order

        def __set__(self, int kind):
            if kind < KIND_MINMAX or kind > KIND_EXPECTED:
                raise ValueError("order must be VAL_MINMAX, VAL_ENTROPY, VAL_PARTS or VAL_EXPECTED")
            self.s.order = kind

    property matrix_after:
        """Separation checks a d = 3 node makes the plain way before it builds its label
        matrix (default 8; the answers never depend on it)."""
        def __get__(self):
            return self.s.matrix_after

        def __set__(self, int value):
            self.s.matrix_after = max(0, value)

    property canonical_lists:
        """Whether nodes with symmetry read their canonical guesses from lists kept for
        the classes seen last (True by default) or test every guess; the answers, nodes
        and guesses scanned never depend on it, only the time."""
        def __get__(self):
            return not self.s.canon_off

        def __set__(self, bint value):
            self.s.canon_off = not value

    property label_classes:
        """Whether a d = 3 node counts the labels each guess gives its codes (True by
        default) and, in its separation checks, looks only at the guesses giving at
        least as many labels as the part has codes (no other can separate it); the
        answers, nodes and leaves never depend on it, only the time."""
        def __get__(self):
            return not self.s.classes_off

        def __set__(self, bint value):
            self.s.classes_off = not value

    property label_counts:
        """Whether a d = 3 node ranks its guesses by counting their parts in its label
        matrix (True by default, when every guess is a label column) instead of scoring
        them; the answers, nodes, leaves and guesses scanned never depend on it, only
        the time."""
        def __get__(self):
            return not self.s.counts_off

        def __set__(self, bint value):
            self.s.counts_off = not value

    property multiset_counts:
        """Whether a d = 3 node rules out the guesses whose colour multiset alone proves a
        part past the cap, and bounds the parts of the others, before it reads its label
        matrix (True by default, when every guess is a label column and the score is
        blacks and whites); the answers, nodes, leaves and guesses scanned never depend
        on it, only the time."""
        def __get__(self):
            return not self.s.ms_off

        def __set__(self, bint value):
            self.s.ms_off = not value

    def multiset_bounds(self, cands, int cap):
        """(ruled_out, parts_bound): per guess, as a d = 3 node's count of its colour
        multisets makes them for the set ``cands`` (the very routine the search runs):
        whether the guess's multiset proves a non-winning part of more than ``cap``
        codes, and a bound on its non-winning parts; None when the rule does not apply
        to this search.  For tests."""
        cdef const int32_t[::1] cv = self._kernel.rows(cands)
        cdef Py_ssize_t m = cv.shape[0]
        if m == 0 or not self.s.ms_cols:
            return None
        _kill_multisets(&self.s, &cv[0], m, cap)
        msid = np.asarray(<const int32_t[:self.s.ng]>self.s.d.msid)
        kill = np.asarray(<const uint8_t[:self.s.d.nms]>self.s.mkill).astype(bool)
        bound = np.asarray(<const uint8_t[:self.s.d.nms]>self.s.mub).astype(np.int64)
        return kill[msid], bound[msid]

    property memo_evicts:
        """Whether the memo, once it holds its ``mem_limit`` bytes, lets go of entries to
        make room (True by default: the shallowest questions, and those not found again
        since the last time, first) or stores nothing new; an entry only caches a proved
        answer, so the answers never depend on it, only the nodes and the time."""
        def __get__(self):
            return self.s.memo.evicts

        def __set__(self, bint value):
            self.s.memo.evicts = value

    @property
    def root_progress(self):
        """What the last run did at its root, when it ranked guesses there: (the guesses
        it tries, as codes, in its order; how many of the first it refuted), else None.
        For a run stopped before its answer, every guess before the count is refuted
        (a split question need not ask them again)."""
        if self.s.root_nranked <= 0 or self.s.root_ranked == NULL:
            return None
        ranked = np.asarray(<const int32_t[:self.s.root_nranked]>self.s.root_ranked).copy()
        return self._kernel.codes(ranked), int(self.s.root_refuted)

    property row_cap:
        """Bytes of label rows the search keeps between the matrices of its d = 3 nodes
        (LROW_BYTES by default; rows past it are made again for each matrix; the
        answers never depend on it).  Lowering it lets go of no row already kept."""
        def __get__(self):
            return self.s.lrow_cap

        def __set__(self, Py_ssize_t value):
            self.s.lrow_cap = max(0, value)

    @property
    def stats(self):
        """dict: nodes (expanded), leaves (d = 2 checks), memo hits, entries and bytes,
        the times the memo let entries go and how many (memo_evictions, memo_evicted),
        the canonical guess lists read from the cache and made (canon_hits, canon_misses),
        the groups of 32 label columns that colour multisets spared (ms_groups)."""
        return {"nodes": self.s.nodes, "leaves": self.s.leaves, "hits": self.s.hits,
                "memo_entries": self.s.memo.used, "memo_bytes": self.s.memo.mem,
                "memo_evictions": self.s.memo.evictions, "memo_evicted": self.s.memo.evicted,
                "false_cheap": self.s.false_cheap, "scanned": self.s.scanned,
                "scores": self.s.scores, "sizes": self.s.sizes,
                "canon_hits": self.s.canon.hits, "canon_misses": self.s.canon.misses,
                "ms_groups": self.s.ms_groups, "at_depth": {d: self.s.at_depth[d] for d in range(B_MAXD)
                             if self.s.at_depth[d]}}

    @property
    def aborted(self):
        """Why the last search stopped: STOP_NONE (it did not), STOP_REQUESTED,
        STOP_DEADLINE (the stop flag's), STOP_NODE_LIMIT or STOP_MEMORY (_core's names)."""
        return self.s.aborted

    def run(self, cands, int d, int64_t node_limit=0, StopFlag stop=None, pool=None,
            tries=None):
        """(answer, guess): answer 1 solvable within d guesses, 0 not, -1 stopped (see
        :attr:`aborted`); ``guess`` a guess that works at the root (or -1).  ``cands``
        sorted, non-empty, all guessable; ``node_limit`` 0 means unlimited; ``stop``: a
        flag (with a deadline, perhaps) that stops the search.  ``pool`` (int32 codes of
        the guess set, ascending): the guesses the root picks its own canonical ones
        from (the caller vouches that they are the least of their orbit under a group
        of permutations mapping ``cands`` onto itself: those canonical under the
        guesses played before, say; the least of each orbit of the group both groups
        make passes both tests); ignored when only candidates are played.  ``tries``
        (int32 codes, ascending): the root ranks its guesses as always but tries only
        these (the answer 0 then says only that none of them works; the memo keeps
        nothing false of the root)."""
        cdef const int32_t[::1] cv = self._kernel.rows(cands)
        cdef const int32_t[::1] pv
        cdef const int32_t[::1] tv
        cdef int r
        cdef int32_t g = -1
        self.dd = _with_stop(&self._kernel.d, stop)
        self.s.aborted = STOP_NONE
        self.s.node_limit = self.s.nodes + node_limit if node_limit > 0 else 0
        self.s.root_track = True
        self.s.root_nranked = 0
        self.s.root_refuted = 0
        if pool is not None and not self.s.cands_only:
            pv = self._kernel.rows(pool)
            self.s.root_pool = &pv[0] if pv.shape[0] else &cv[0]
            self.s.root_npool = pv.shape[0]
        if tries is not None:
            tv = np.sort(self._kernel.rows(np.ascontiguousarray(tries, dtype=np.int32)))
            self.s.root_tries = &tv[0] if tv.shape[0] else &cv[0]
            self.s.root_ntries = tv.shape[0]
            self.s.root_c = &cv[0]
        try:
            with nogil:
                r = _exists(&self.s, &cv[0], cv.shape[0], d, self.s.nonwin, &g)
        finally:
            self.s.root_pool = NULL             # (unused when the root was not expanded)
            self.s.root_tries = NULL
            self.s.root_c = NULL
            self.s.root_track = False
        self.dd = _with_stop(&self._kernel.d, None)     # (the flag may go away)
        if r < 0 and self.s.aborted == STOP_MEMORY:
            raise MemoryError("out of memory in the search")
        return r, (self._kernel.codes(g) if g >= 0 else -1)


def separable(int64_t p, int d):
    """N_p(d) = 1 + p + ... + p^(d-1), capped at 2**50: the most codes d guesses can tell
    apart when no guess makes more than p non-winning parts (the counting cut of every
    search node; p >= 0 and d >= 0, checked by the caller)."""
    return _ncount(p, d)


def root_openings(Kernel kernel, pool, cands, int d, int order, int nonwin):
    """The guesses of ``pool`` the worst-case search tries at a node of ``cands`` with d
    guesses left, in the order it tries them, ranked by the very code the search runs at
    every node (:func:`_rank`): each guess scanned with the cap N_nonwin(d-1) on its
    parts, the node's best part count pmax made exact, the guesses leaving a part larger
    than N_pmax(d-1) or giving no information (one part, not a candidate) dropped, the
    rest sorted by (the key of valuation ``order``, candidates first, the largest part,
    the index).  Returns an int32 array of code indices, or None when the node is refuted
    before any guess is tried: when counting does (more codes than 1 + pmax *
    N_pmax(d-1)), or when every guess leaves a part larger than N_nonwin(d-1) (no
    guess survives the first scan: none can work).

    ``pool``: the guesses to rank (int32, ascending): no symmetry is applied to them (the
    search's root tries one guess per symmetry class: pass those); ``cands``: sorted,
    non-empty; ``order``: a scanning valuation (VAL_MINMAX .. VAL_EXPECTED, the
    search's :attr:`Searcher.order`); ``nonwin``: the most non-winning parts any guess
    can make (the root: nslots - 1)."""
    cdef const int32_t[::1] pv = kernel.rows(pool)
    cdef const int32_t[::1] cv = kernel.rows(cands)
    cdef Py_ssize_t m = cv.shape[0], npool = pv.shape[0], n = 0, i
    cdef SData s
    cdef SetSym y
    cdef GuessInfo* info
    cdef uint64_t* pk = NULL
    cdef int pmax = 0
    cdef bint oom = False
    if order < KIND_MINMAX or order > KIND_EXPECTED:
        raise ValueError("order must be VAL_MINMAX, VAL_ENTROPY, VAL_PARTS or "
                         "VAL_EXPECTED")
    if m == 0 or d < 1:
        raise ValueError("root_openings needs candidates and d >= 1")
    memset(&s, 0, sizeof(SData))
    memset(&y, 0, sizeof(SetSym))
    s.d = &kernel.d
    s.order = order
    y.trivial = 1                           # every guess of the pool is tried
    info = <GuessInfo*>new_structs(npool + 1, sizeof(GuessInfo), False)
    if info == NULL:
        raise MemoryError()
    try:
        with nogil:
            if _packs(s.d, m):
                pk = _new_pack(s.d, &cv[0], m)
                oom = pk == NULL
            if not oom:
                n = _rank(&s, &cv[0], m, d, nonwin, &pv[0] if npool else NULL, npool, &y,
                          info, pk, &pmax)
        if oom:
            raise MemoryError()
        if n == RANK_REFUTED or (n == 0 and s.false_cheap):
            return None
        out = np.empty(n, dtype=np.int32)
        for i in range(n):
            out[i] = info[i].guess
        return kernel.codes(out)
    finally:
        free(pk)
        free_structs(info)


def label_counts(Kernel kernel, cands, int cap, want=None):
    """What the d = 3 nodes read from their label matrix, for the set ``cands`` and every
    code as a guess (a kernel holding every code): (most, parts, won, full, classes),
    arrays over the guesses made by the very routines the search runs (_label_scan,
    _label_parts).  most: the largest non-winning part, parts: how many, won: 1 when
    the guess is in the set; full: per group of 32 guesses, 0 when the scan gave it up
    (every guess ``want`` names, a uint32 bit mask per group, all by default, has a part
    past ``cap``: its most is then 255, its parts and won unmade); classes: the labels
    each guess gives (from _label_parts).  For tests."""
    cdef const int32_t[::1] cv = kernel.rows(cands)
    cdef Py_ssize_t m = cv.shape[0], ng = kernel.ncodes, t, ngrp
    cdef SData s
    if kernel.universe is not None:
        raise ValueError("label_counts needs a kernel of every code")
    if m == 0 or not 0 <= cap < 255:
        raise ValueError("label_counts needs candidates and 0 <= cap < 255")
    ngrp = ng >> 5
    if want is not None and len(want) < ngrp:
        raise ValueError("want needs a mask per group of 32 guesses")
    wv = np.full(ngrp + 1, 0xFFFFFFFF, dtype=np.uint32)
    if want is not None:
        wv[:ngrp] = np.asarray(want, dtype=np.uint32)[:ngrp]
    cdef const uint32_t[::1] wm = wv
    mat = np.empty((m, ng), dtype=np.uint8)
    most = np.empty(ng, dtype=np.uint8)
    parts = np.zeros(ng, dtype=np.uint8)
    won = np.zeros(ng, dtype=np.uint8)
    full = np.ones(ngrp + 1, dtype=np.uint8)
    cparts = np.empty(ng, dtype=np.uint8)
    cwon = np.empty(ng, dtype=np.uint8)
    guesses = np.arange(ng, dtype=np.int32)
    cdef uint8_t[:, ::1] mv = mat
    cdef uint8_t[::1] mo = most, pa = parts, wo = won, fu = full, cp = cparts, cw = cwon
    cdef const int32_t[::1] gv = guesses
    memset(&s, 0, sizeof(SData))
    s.d = &kernel.d
    s.guesses = &gv[0]
    s.colg = &gv[0]                         # the columns in the guesses' own order
    s.ng = ng
    rows = <uint8_t**>malloc(m * sizeof(uint8_t*))
    if rows == NULL:
        raise MemoryError()
    try:
        for t in range(m):
            rows[t] = &mv[t, 0]
            _label_row(&s, cv[t], rows[t])
        _label_scan(rows, m, 0, ng, kernel.d.nslots, kernel.d.win, cap, &wm[0], &mo[0],
                    &pa[0], &wo[0], &fu[0])
        _label_parts(rows, m, 0, ng, kernel.d.nslots, kernel.d.win, &cp[0], &cw[0])
    finally:
        free(rows)
    return most, parts, won, full[:ngrp], cparts + cwon
