# cython: language_level=3
"""The strategy walk: a one-step strategy played against every candidate at once.

``_walk`` visits the strategy tree depth-first: at each node it chooses the rule's guess
(``_choose``: the candidates first, then the reduced guess list through the scan of
_scan.pyx), splits the candidates by score (a stable counting sort, so every part stays
sorted) and recurses into each part.  It adds each secret's number of guesses to a
distribution and, when asked, records every node.  ``walk_many`` walks many subtrees at
once, one per OpenMP thread; the split of the tree's top levels into subtrees is
:mod:`mastermind.analysis.exhaustive`'s.

Every reduction here (symmetry, merged absent colours, the small-node shortcuts) gives
the tree of the plain scan (``plain``): the tests hold them to it.

The caller guarantees: candidates sorted and non-empty, guesses ascending, histories of
guesses that lead to the candidates, all indices valid for the kernel.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t, INT64_MAX, INT64_MIN
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset
from cython.parallel cimport prange

import numpy as np

from mastermind.kernel._core cimport free_structs, new_structs
from mastermind.kernel._core import Stopped

from mastermind.kernel._core cimport (KIND_FIRST, KData, Kernel, MAX_DEPTH, MAX_SLOTS, REC,
                                      SCORE_TABLE, STOP_DEADLINE, STOP_MEMORY, STOP_NONE,
                                      STOP_REQUESTED, STOP_TOO_DEEP, StopFlag, _absent_but_smallest,
                                      _append_record, _atomic_add, _hist, _halted, _new_pack,
                                      _split_by_slot, _stop_reason, _value, _with_stop)
from mastermind.analysis._scan cimport (Best, _best, _best_init, _bound_noncandidate, _class_bounds,
                                        _offer, _scan, _scan_parallel)
from mastermind.kernel._symmetry cimport (Sym, _canonical_guesses, _sym_child, _sym_root,
                                          _sym_trivial)


cdef struct Walk:
    const KData* d
    const int32_t* guesses  # the whole guess set, ascending
    Py_ssize_t nguesses
    int kind
    int cands_only          # guesses restricted to the node's candidates
    int shortcut_ok         # every secret is also a legal guess (cheap-node shortcuts)
    int use_sym             # reduce the scanned guesses by the history's symmetry group
    int blanks_ok           # the guess set is every code: absent colours merge (_blank_colours)
    int plain               # no reduction at all: every guess scored in full (reference)
    int32_t first           # guess at the walk's root, or -1 for the rule's choice
    int threads             # threads for large guess scans
    int64_t dist[MAX_DEPTH + 2]
    int64_t scanned         # guesses scanned (statistics)
    int32_t* rec            # records of REC ints: parent, slot, guess, size, depth
    Py_ssize_t nrec
    Py_ssize_t caprec
    int record
    int error               # why the walk stopped: STOP_NONE (it did not), STOP_MEMORY,
                            # STOP_TOO_DEEP, or the stop flag's reason


cdef Py_ssize_t _record(Walk* w, Py_ssize_t parent, int slot, int32_t guess,
                        Py_ssize_t size, int depth) noexcept nogil:
    cdef Py_ssize_t i
    if not w.record:
        return -1
    i = _append_record(&w.rec, &w.nrec, &w.caprec, parent, slot, guess, size, depth)
    if i < 0:
        w.error = STOP_MEMORY
    return i


cdef uint32_t _blank_colours(const Walk* w, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """Colours no guess needs to use: a colour no candidate has scores like a blank
    (no black, no white against any candidate), so all such colours are one colour for
    the partition.  When any code may be guessed, the rule's guess uses only the smallest
    of them (replacing the others by it keeps the table and lowers the index)."""
    return _absent_but_smallest(w.d, c, m) if w.blanks_ok else 0


cdef int32_t _best_plain(const KData* d, const int32_t* guesses, Py_ssize_t ng,
                         const int32_t* c, Py_ssize_t m, int kind) noexcept nogil:
    """The choice rule by brute force: every guess's whole partition table, no bound, no
    shortcut; the reference the reduced scans are tested against."""
    cdef uint32_t h[MAX_SLOTS]
    cdef Best best
    cdef Py_ssize_t j
    _best_init(&best)
    if kind == KIND_FIRST:
        return c[0]
    for j in range(ng):
        _hist(d, guesses[j], c, m, h)
        _offer(&best, _value(d, h, kind), h[d.win] == 0, guesses[j])
    return best.g


cdef int32_t _choose(Walk* w, const int32_t* c, Py_ssize_t m, const int32_t* gl,
                     Py_ssize_t ngl) noexcept nogil:
    """The rule's guess for candidates c, scanning the guesses gl (ascending, reduced by
    symmetry).  The candidates are tried first (they are guesses too): their best is a
    bound that lets the scan skip most guesses early, and when no non-candidate can do
    better (_bound_noncandidate), it is the rule's choice outright."""
    cdef int64_t key, floor = INT64_MIN, low = INT64_MAX
    cdef int is_cand, s
    cdef Best best
    cdef uint64_t* pk = NULL
    cdef int64_t* lbt = NULL
    if m == 1 or w.kind == KIND_FIRST or (m == 2 and w.shortcut_ok and not w.plain):
        # One candidate: play it.  Two: the first candidate splits them into a win and a
        # singleton, the best table any guess can give, so the rule picks it.
        return c[0]
    if w.plain:
        return _best_plain(w.d, c if w.cands_only else gl, m if w.cands_only else ngl, c, m,
                           w.kind)
    if w.cands_only:
        return _best(w.d, c, m, c, m, w.kind, &key, &is_cand, w.threads)
    _best_init(&best)
    if w.d.mode != SCORE_TABLE:
        pk = _new_pack(w.d, c, m)
        if pk != NULL:
            lbt = _class_bounds(w.d, pk, m, w.kind)
    if w.shortcut_ok and m < ngl:
        _scan(w.d, w.kind, c, m, c, pk, m, &best, 0, INT64_MIN, lbt, True)
        floor = _bound_noncandidate(w.d, m, w.kind)
        if lbt != NULL:                 # the class bounds hold for every guess
            for s in range(w.d.nms):
                if lbt[s] < low:
                    low = lbt[s]
            if low > floor:
                floor = low
        if best.key <= floor:
            free(lbt)
            free(pk)
            return best.g
    w.scanned += ngl * m
    _scan_parallel(w.d, w.kind, gl, ngl, c, pk, m, &best, w.threads, _blank_colours(w, c, m),
                   floor, lbt)
    free(lbt)
    free(pk)
    return best.g


cdef int32_t* _split_by_score(Walk* w, int32_t g, const int32_t* c, Py_ssize_t m,
                              uint32_t* cnt) noexcept nogil:
    """A new array (free it) of the codes of c by their score against guess g
    (``_split_by_slot``): cnt[slot] codes for each slot, the parts in slot order, each
    sorted; NULL when memory runs out (then w.error is set)."""
    cdef Py_ssize_t off[MAX_SLOTS + 1]
    cdef uint8_t* lab = <uint8_t*>malloc(m * sizeof(uint8_t))
    cdef int32_t* parts = <int32_t*>malloc(m * sizeof(int32_t))
    if lab == NULL or parts == NULL:
        free(lab)
        free(parts)
        w.error = STOP_MEMORY
        return NULL
    _split_by_slot(w.d, g, c, m, cnt, off, parts, lab, NULL)
    free(lab)
    return parts


cdef Py_ssize_t _child_guesses(Walk* w, const Sym* sym, int32_t g, const uint32_t* cnt,
                               Sym* child, int32_t** own,
                               const int32_t** gl) noexcept nogil:
    """The guesses the children of guess g scan, in ``gl`` (their number returned): when
    symmetry is on and some child is large enough to scan the guesses, the canonical
    guesses of their group (the history plus g, made in ``child``), computed once for all
    of them (in a new array ``own``: free it); else every guess."""
    cdef const KData* d = w.d
    cdef bint need_scan = False
    cdef int s
    gl[0] = w.guesses
    own[0] = NULL
    for s in range(d.nslots):               # a child this large will scan the guesses
        if s != d.win and cnt[s] > <uint32_t>d.nslots:
            need_scan = True
    if not (need_scan and w.use_sym and not w.cands_only and w.kind != KIND_FIRST):
        return w.nguesses
    if _sym_child(d, sym, g, child) != 0:
        w.error = STOP_MEMORY
        return w.nguesses
    if _sym_trivial(d, child):
        return w.nguesses
    own[0] = <int32_t*>malloc(w.nguesses * sizeof(int32_t) + 1)
    if own[0] == NULL:
        w.error = STOP_MEMORY
        return w.nguesses
    gl[0] = own[0]
    return _canonical_guesses(d, child, w.guesses, w.nguesses, own[0])


cdef void _walk(Walk* w, const int32_t* c, Py_ssize_t m, int depth,
                Py_ssize_t parent, int pslot, bint root, const Sym* sym,
                const int32_t* gl, Py_ssize_t ngl) noexcept nogil:
    """Play the strategy against every candidate in ``c`` (sorted); ``depth`` is the number
    of the guess about to be made; ``sym`` is the group of the history so far and ``gl``
    its canonical guesses.  Adds to ``w.dist`` and, when recording, to ``w.rec``."""
    cdef const KData* d = w.d
    cdef int32_t g
    cdef int s
    cdef Py_ssize_t node, start = 0
    cdef uint32_t cnt[MAX_SLOTS]
    cdef int32_t* parts
    cdef Sym child
    cdef int32_t* cgl = NULL
    cdef const int32_t* kgl
    cdef Py_ssize_t nkgl
    child.el = NULL
    if w.error != STOP_NONE:
        return
    w.error = _stop_reason(d)
    if w.error != STOP_NONE:
        return
    if depth > MAX_DEPTH:
        w.error = STOP_TOO_DEEP
        return
    if root and w.first >= 0:
        g = w.first
    else:
        g = _choose(w, c, m, gl, ngl)
        if g < 0 or _halted(d):
            # a scan stopped part-way: its guess is void (-1 when it examined none), so
            # nothing is played with it (the walk ends here, as at the next node)
            w.error = _stop_reason(d)
            if w.error == STOP_NONE:
                w.error = STOP_MEMORY       # (no guess without a stop: out of memory)
            return
    node = _record(w, parent, pslot, g, m, depth)
    if m == 1 and c[0] == g:
        w.dist[depth] += 1
        return
    parts = _split_by_score(w, g, c, m, cnt)
    if parts == NULL:
        return
    nkgl = _child_guesses(w, sym, g, cnt, &child, &cgl, &kgl)
    for s in range(d.nslots):
        if cnt[s] == 0:
            continue
        if s == d.win:
            w.dist[depth] += cnt[s]
        else:
            _walk(w, parts + start, cnt[s], depth + 1, node, s, False, &child, kgl, nkgl)
        start += cnt[s]
    free(cgl)
    free(child.el)
    free(parts)


cdef void _run_task(Walk* w, const int32_t* cands, Py_ssize_t m, int depth,
                    const int32_t* history, Py_ssize_t nh, const int32_t* gl,
                    Py_ssize_t ngl) noexcept nogil:
    """Walk one subtree: its root's symmetry group, its canonical guesses (unless given
    in ``gl``), then _walk."""
    cdef Sym sym
    cdef int32_t* own = NULL
    sym.el = NULL
    sym.nel = 0
    sym.played = 0
    if gl == NULL:
        gl = w.guesses
        ngl = w.nguesses
    if w.use_sym:
        if _sym_root(w.d, history, nh, &sym) != 0:
            w.error = STOP_MEMORY
        elif gl == w.guesses and not _sym_trivial(w.d, &sym) and w.nguesses:
            own = <int32_t*>malloc(w.nguesses * sizeof(int32_t))
            if own == NULL:
                w.error = STOP_MEMORY
            else:
                ngl = _canonical_guesses(w.d, &sym, w.guesses, w.nguesses, own)
                gl = own
    if w.error == STOP_NONE:
        _walk(w, cands, m, depth, -1, -1, True, &sym, gl, ngl)
    free(own)
    free(sym.el)


def _raise_walk_error(int error):
    if error == STOP_MEMORY:
        raise MemoryError("out of memory while walking the strategy tree")
    if error == STOP_TOO_DEEP:
        raise OverflowError(f"strategy tree deeper than {MAX_DEPTH} guesses")
    if error != STOP_NONE:
        raise Stopped("the walk was stopped")


cdef object _records(const Walk* w, Kernel kernel):
    """The walk's records as an int32 array, guesses as code indices."""
    cdef int32_t[:, ::1] rv
    recs = np.empty((w.nrec, REC), dtype=np.int32)
    if w.nrec:
        rv = recs
        memcpy(&rv[0, 0], w.rec, w.nrec * REC * sizeof(int32_t))
        if kernel.universe is not None:
            recs[:, 2] = kernel.codes(recs[:, 2])
    return recs


# --------------------------------------------------------------------------- Python API

def choose(Kernel kernel, guesses, cands, int kind, *, bint cands_only, bint shortcut_ok,
           int threads=1, bint blanks=False, StopFlag stop=None):
    """The guess the walk plays at a node with candidates ``cands`` (sorted,
    non-empty), scanning ``guesses`` (ascending; possibly reduced by symmetry).
    ``blanks``: the guess set is every code (see walk).  With a ``stop`` flag the scan can
    be stopped (the answer is then void) or given a deadline (then it is the best of the
    guesses examined in time, the candidates first; -1 if none was)."""
    cdef const int32_t[::1] gs = kernel.rows(guesses)
    cdef const int32_t[::1] c = kernel.rows(cands)
    cdef KData dd = _with_stop(&kernel.d, stop)
    cdef Walk w
    cdef int32_t g
    memset(&w, 0, sizeof(w))
    w.d = &dd
    w.kind = kind
    w.cands_only = cands_only
    w.shortcut_ok = shortcut_ok
    w.threads = threads if threads > 0 else 1
    w.blanks_ok = blanks and kernel.mode != SCORE_TABLE
    with nogil:
        g = _choose(&w, &c[0], c.shape[0], &gs[0] if gs.shape[0] else NULL, gs.shape[0])
    return kernel.codes(g) if g >= 0 else -1


cdef void _setup(const KData* d, Walk* w, const int32_t[::1] guesses, int kind,
                 bint cands_only, bint shortcut_ok, bint record, bint symmetry, bint blanks,
                 bint plain, int threads):
    memset(w, 0, sizeof(Walk))
    w.d = d
    w.guesses = &guesses[0] if guesses.shape[0] else NULL
    w.nguesses = guesses.shape[0]
    w.kind = kind
    w.cands_only = cands_only
    w.shortcut_ok = shortcut_ok
    w.use_sym = symmetry and d.mode != SCORE_TABLE and not plain
    w.blanks_ok = blanks and d.mode != SCORE_TABLE and not plain
    w.plain = plain
    w.first = -1
    w.record = record
    w.threads = threads if threads > 0 else 1


def walk(Kernel kernel, guesses, cands, int kind, *, bint cands_only, bint shortcut_ok,
         int32_t first=-1, int depth=1, bint record=False, history=None,
         bint symmetry=False, int threads=1, bint blanks=False, bint plain=False,
         StopFlag stop=None):
    """Play the strategy against every candidate (sorted, non-empty), starting with
    guess number ``depth``; ``first`` >= 0 fixes the guess at this root.  Every argument
    after ``kind`` is by keyword: ``cands_only``, the guesses are the node's candidates;
    ``shortcut_ok``, every secret is also a legal guess; ``record``, return the tree.

    ``history``: the guesses played before this root (the candidates are those
    consistent with them).  ``symmetry``: scan one guess per orbit of the group fixing
    the history (encoded modes only; the guess and secret sets must be closed under
    colour and position permutations); the results are those of the full scan.
    ``threads`` share the large scans.  ``blanks``: every code is a legal guess, so
    colours absent from all candidates may be merged (encoded modes only).
    ``plain``: no reduction, bound or shortcut whatsoever (the reference for the
    tests).  None of these changes the result.  ``stop``: a flag that ends the walk
    (raising :class:`mastermind.kernel._core.Stopped`).

    Returns ``(dist, records, scanned)``: ``dist[d]`` secrets found with guess number
    d; (when ``record``) an int32 array of rows (parent, slot, guess, size, depth),
    parent -1 at the root, depth-first; the number of (guess, candidate) pairs the
    full scans covered.
    """
    cdef const int32_t[::1] gs = kernel.rows(guesses)
    cdef const int32_t[::1] c = kernel.rows(cands)
    cdef const int32_t[::1] hs = kernel.rows(history) if history is not None else None
    cdef Py_ssize_t nh = hs.shape[0] if hs is not None else 0
    cdef KData dd = _with_stop(&kernel.d, stop)
    cdef Walk w
    _setup(&dd, &w, gs, kind, cands_only, shortcut_ok, record, symmetry, blanks, plain,
           threads)
    w.first = kernel.rows(first) if first >= 0 else -1
    try:
        with nogil:
            _run_task(&w, &c[0], c.shape[0], depth, &hs[0] if nh else NULL, nh, NULL, 0)
        _raise_walk_error(w.error)
        return (np.array([w.dist[i] for i in range(MAX_DEPTH + 1)], dtype=np.int64),
                _records(&w, kernel) if record else None, w.scanned)
    finally:
        free(w.rec)


def walk_many(Kernel kernel, guesses, cands, const int64_t[::1] offsets,
              const int32_t[::1] depths, histories, const int32_t[::1] hlens, int kind, *,
              bint cands_only, bint shortcut_ok, bint record=False, bint symmetry=False,
              bint blanks=False, int threads=1, bint plain=False, glists=None,
              const int64_t[::1] goffsets=None, const int32_t[::1] task_glist=None,
              int64_t[::1] done=None, StopFlag stop=None):
    """``walk`` for many subtrees at once (the arguments after ``kind`` by keyword, as
    ``walk``'s), shared by ``threads`` threads (task i:
    candidates ``cands[offsets[i]:offsets[i+1]]``, first guess number ``depths[i]``,
    history ``histories[i, :hlens[i]]``; optionally its root's canonical guesses,
    ``glists[goffsets[j]:goffsets[j+1]]`` with j = ``task_glist[i]``, computed once
    for the tasks that share a history).  ``done[0]``, if given, grows by each task's
    number of candidates as it finishes (another thread may read it for progress).
    Tasks are taken in the order given (put the largest first); each is walked by one
    thread, so the results do not depend on the thread count.  ``stop``: a flag that
    ends every task (raising :class:`mastermind.kernel._core.Stopped`).  Returns ``(dists,
    records, scanned)`` with ``dists`` of shape (tasks, MAX_DEPTH + 1) and ``records`` a
    list (or None)."""
    cdef const int32_t[::1] gs = kernel.rows(guesses)
    cdef const int32_t[::1] c = kernel.rows(cands)
    cdef const int32_t[:, ::1] hs = kernel.rows(histories)
    cdef const int32_t[::1] gls = kernel.rows(glists) if glists is not None else None
    cdef Py_ssize_t nt = depths.shape[0], t, i
    cdef Walk* ws = <Walk*>new_structs(nt if nt else 1, sizeof(Walk), True)
    cdef Walk tmpl
    cdef int err = STOP_NONE
    cdef int64_t scanned = 0
    cdef bint has_gl = gls is not None and gls.shape[0] > 0
    cdef int64_t* done_p = &done[0] if done is not None else NULL
    cdef KData dd = _with_stop(&kernel.d, stop)
    if ws == NULL:
        raise MemoryError()
    _setup(&dd, &tmpl, gs, kind, cands_only, shortcut_ok, record, symmetry, blanks, plain, 1)
    try:
        for t in range(nt):
            ws[t] = tmpl
        with nogil:
            for t in prange(nt, num_threads=threads if threads > 0 else 1,
                            schedule="dynamic", chunksize=1):
                _run_task(&ws[t], &c[offsets[t]], offsets[t + 1] - offsets[t],
                          depths[t], &hs[t, 0], hlens[t],
                          &gls[goffsets[task_glist[t]]] if has_gl else NULL,
                          goffsets[task_glist[t] + 1] - goffsets[task_glist[t]]
                          if has_gl else 0)
                if done_p != NULL:
                    _atomic_add(done_p, offsets[t + 1] - offsets[t])
        for t in range(nt):
            if ws[t].error != STOP_NONE and (
                    err == STOP_NONE or ws[t].error == STOP_REQUESTED
                    or ws[t].error == STOP_DEADLINE):   # a stop is what to report
                err = ws[t].error
            scanned += ws[t].scanned
        _raise_walk_error(err)
        dists = np.zeros((nt, MAX_DEPTH + 1), dtype=np.int64)
        for t in range(nt):
            for i in range(MAX_DEPTH + 1):
                dists[t, i] = ws[t].dist[i]
        return (dists, [_records(&ws[t], kernel) for t in range(nt)] if record else None,
                scanned)
    finally:
        for t in range(nt):
            free(ws[t].rec)
        free_structs(ws)
