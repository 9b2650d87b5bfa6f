# cython: language_level=3
"""The expected-case optimum: the strategy with the least total number of guesses over a
candidate set (so the least average over its secrets), by depth-first branch and bound.

T({x}) = 1, and T(S) = |S| + min over guesses g of the sum of T(P) over the non-winning
parts P of g on S; with d guesses left, the least total among trees of depth <= d
(infinite when none).  ``_solve(S, d, limit)`` returns T_d(S) when it is below ``limit``,
and otherwise a lower bound of T_d(S) that is at least ``limit`` (fail-soft).

The cuts, each proved in docs/optimal.md:

* ``_est(m, b, d)``: if no guess makes more than b non-winning parts on S (nor on any
  subset: part counts only shrink on subsets), T_d(S) >= the total of the complete b-ary
  tree (1 code found at depth 1, b at depth 2, b^2 at depth 3 ...), and T_d(S) is
  infinite when m > 1 + b + ... + b^(d-1).  The node's best part count b_node bounds
  every descendant.
* A guess's bound |S| + sum of _est over its parts: guesses are tried by increasing bound,
  and once a bound reaches the best total found, no later guess can do better.
* Parts are solved one at a time, each with the slack the others' bounds leave; a guess
  stops as soon as its bound (solved parts exact, the others estimated) reaches the best.
* Obvious sets: a candidate putting every code of S in a part of its own gives 2|S| - 1,
  the least any set of |S| codes can cost; failing that, any guess doing so gives 2|S|,
  the least when no candidate does.
* Totals before guesses: below the root, a set no candidate splits apart is answered 2|S|
  at once when a candidate leaves one pair or a remembered guess (OData.killers) splits it
  into singletons; its guess is chosen only when the tree is built (OData.want).
* A part's own floor: before a guess's parts are solved, each part's estimate is raised
  to what the memo knows of it and, for a few codes, to 2|P| when no candidate splits it
  apart; a guess whose parts' floors reach the best is refuted without a search.
* A large part's depth-1 floor (_scan_floors): at a node of hundreds of codes with a best
  total, a guess's parts of at least SCAN_FLOOR codes are bounded by their own scans (|P|
  plus the best guess's parts at their estimates), kept in the memo, and each scan handed
  to the node that solves the part (_node_adopt).
* Symmetry: one guess per orbit of the group fixing the history (_symmetry.pyx's Sym),
  colours absent from S merged when every code may be guessed.
* Memo (_memo.pyx): exact sets (and guesses left) -> the exact total, or a proved bound;
  in a symmetric encoded game also each set's image under a colour and position
  permutation (_optimal_canon.pxi) -> the same total or bound, with no guess (an
  equivalent set has the same total), looked up before a set of at least CANON_MIN codes
  is scanned and for a part of at least CANON_FLOOR codes before its guess is explored.

Ties: among the optimal guesses the one played is the first in the order (bound, sum of
squared part sizes, candidates first, index).  That order depends on the set alone, and
equivalent guesses come in it smallest index first, so the tree found never depends on
the symmetry, the memo's contents, the limits or the order in which sets are solved.

The caller guarantees: candidate sets sorted, non-empty and guessable; a guess list
ascending (closed under colour and position permutations when symmetry is on, every code
when absent colours are merged); encoded codes for symmetry.
"""

from libc.stdint cimport int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc, qsort
from libc.string cimport memcpy, memset
from cython.parallel cimport prange, threadid

import numpy as np

from mastermind.kernel._core cimport free_structs, new_structs
from mastermind.kernel._core cimport (DUMMY, MAX_SLOTS, PAD_ONES, REC, SCORE_TABLE, STOP_CANCELLED,
                                      STOP_DEADLINE, STOP_MEMORY, STOP_NONE, TWO_WORDS, Hist64,
                                      KData, Kernel, StopFlag, vread, popcount,
                                      _absent_but_smallest, _append_record, _bytes_of, _cell,
                                      _cells_of_bytes, _counts64b, _halted, _hist, _hist_packed,
                                      _masks8, _new_pack, _now, _slot, _split_by_slot, _splits_all,
                                      _stop_reason, _with_stop)
from mastermind.kernel._memo cimport Memo, MemoEntry, _hash_set, _memo_find, _memo_free, _memo_init
from mastermind.kernel._symmetry cimport (Sym, _canonical, _canonical_guesses, _sym_child,
                                          _sym_root, _sym_trivial)

# The search's rooms (each a file of this module, its routines inline), each using only
# those before it: the lower bounds and part rows, the search's state and the small steps
# on it, the memo of sets up to symmetry, the scans of a node's guesses, the floors of a
# part before it is searched.
include "_optimal_bounds.pxi"
include "_optimal_node.pxi"
include "_optimal_canon.pxi"
include "_optimal_scan.pxi"
include "_optimal_floors.pxi"


# How Optimizer.run ended (its ``status``; exported to Python).
cpdef enum:
    RUN_OPTIMUM = 0         # finished: the optimum, below the limit
    RUN_ABOVE_LIMIT = 1     # finished: nothing below the limit (a lower bound >= it)
    RUN_STOPPED = 2         # stopped (the flag, its deadline): the best found so far

FEW_CODES_MAX = MASKS_MAX
"""Codes up to which a node of an encoded game (two-word codes, every score a slot of its
own) scans its guesses by their part counts first, eight at a time, and settles the
few-code rules in that scan; larger nodes scan every guess's part sizes."""
GUESSES_UNLIMITED = NO_LIMIT
"""The guesses left the search counts with when there is no limit."""

cdef extern from *:
    int64_t __atomic_add_fetch(int64_t* p, int64_t x, int order) noexcept nogil
    int __ATOMIC_RELAXED


cdef inline int64_t _stopped(OData* o, bint root, int64_t lb0, int64_t limit) noexcept nogil:
    """A stop before a set's guesses are explored: at the root its proved lower bound is
    the one known so far, ``lb0`` (o.root_lower); returns ``limit`` (a value meaning
    nothing, as after any stop)."""
    if root:
        o.root_lower = lb0
    return limit


cdef int64_t _solve(OData* o, const int32_t* c, Py_ssize_t m, int dl, int64_t limit,
                    int b, Guesses* gs, int32_t* out, bint root) noexcept nogil:
    """T_dl(c) if it is below ``limit``, else a lower bound >= limit; ``out`` receives the
    guess of the optimum (when found).  ``b`` bounds the non-winning parts any guess
    makes here; ``gs`` the guesses to scan (made on demand).  After a stop (o.aborted)
    the value means nothing (at the root, o.root_lower holds a proved lower bound)."""
    cdef int64_t lb0, v
    cdef MemoEntry* e
    cdef uint64_t h = 0
    cdef int32_t tag = dl if o.limited else 0, pair = -1
    cdef bint fixed = root and o.first >= 0
    cdef Node* ready = o.ready              # (for this call only)
    o.ready = NULL
    out[0] = -1
    if m == 1:
        out[0] = c[0]
        return 1 if dl >= 1 else INF
    if dl <= 1:
        return INF
    if m == 2:
        out[0] = c[0]
        return 3
    lb0 = _est(m, b, dl)
    if lb0 >= limit and not root:
        return lb0
    h = _hash_set(c, m, tag)
    e = _memo_find(&o.memo, c, m, tag, h, False)
    if e == NULL and o.shared != NULL:
        e = _memo_find(<Memo*>o.shared, c, m, tag, h, False)
    if e != NULL and not root:
        if e.value >= 0:
            o.hits += 1
            out[0] = e.guess
            return e.value
        if e.lower >= limit:
            o.hits += 1
            return e.lower
        if e.lower > lb0:
            lb0 = e.lower
    if _halted(o.d):
        o.aborted = _stop_reason(o.d)
        return _stopped(o, root, lb0, limit)
    if o.cancel != NULL and vread(o.cancel):
        o.aborted = STOP_CANCELLED          # a worker's part that no longer matters
        return limit
    if not fixed:
        v = _cand_rules(o, c, m, out, &pair)
        if v >= 0:
            o.obvious += 1
            return v
        # no candidate puts every other code in a part of its own: T >= 2m (rule 5b of
        # docs/optimal.md; for m > nslots no guess has the parts to do so)
        if 2 * m > lb0:
            lb0 = 2 * m
            if lb0 >= limit and not root:
                return lb0
        if not root and m <= o.d.nslots:
            v = _pair_rules(o, c, m, dl, b, pair)
            if v == 2 * m and out != o.want:
                o.obvious += 1              # its guess chosen when the tree is built
                return v
            if v > lb0:
                lb0 = v
                if lb0 >= limit:
                    return lb0
    if _few(o, m):                          # the other rules in the node's own scan
        if _ensure(o, gs) != 0:
            return _stopped(o, root, lb0, limit)
        return _node(o, c, m, dl, limit, b, gs, out, root, lb0, h, tag, pair, ready)
    if not fixed and m <= o.d.nslots:
        v = _noncand_rule(o, c, m, gs, out)
        if o.aborted:
            return _stopped(o, root, lb0, limit)
        if v < 0 and pair >= 0 and dl >= 3:
            v = 2 * m
            out[0] = pair
        if v >= 0:
            o.obvious += 1
            return v
        if o.cands_only or m <= o.d.nslots - 1:     # every better guess was tried
            if 2 * m + 1 > lb0:
                lb0 = 2 * m + 1
            if lb0 >= limit and not root:
                return lb0
    if dl == 2 and not fixed:               # only a guess splitting S apart works
        return INF
    if _ensure(o, gs) != 0:
        return _stopped(o, root, lb0, limit)
    return _node(o, c, m, dl, limit, b, gs, out, root, lb0, h, tag, -1, ready)


NO_STRATEGY = INF
"""The total the search gives a set that cannot be solved within the guesses left."""


def est_table(Py_ssize_t m, int64_t b, int dl):
    """[_est(p, b, dl) for p in 0..m]: the least total of p codes when no guess makes more
    than b non-winning parts and dl guesses are left (NO_STRATEGY past them), as the
    search's bounds use it (for the plans that order units as the search does)."""
    if m < 0 or dl < 0:
        raise ValueError("est_table needs m >= 0 and dl >= 0")
    cdef int64_t* out = <int64_t*>malloc((m + 1) * sizeof(int64_t))
    if out == NULL:
        raise MemoryError()
    try:
        _est_table(out, m, b, dl)
        return [out[p] for p in range(m + 1)]
    finally:
        free(out)


cdef int64_t _parts_side_by_side(OData* o, const int32_t* parts, const Py_ssize_t* off,
                                 const uint32_t* row, const int* order, int nparts, int dl,
                                 int64_t best, int64_t lb, int bnode, const int64_t* pre,
                                 Guesses* child) noexcept nogil:
    """The parts of one guess (its bound ``lb``: every part at its estimate pre[slot]) solved side by
    side by the worker searches, the largest of those above SMALL_PART first, each below the limit the others'
    estimates leave it; the first total proving the guess no better than ``best``
    cancels the rest.  Returns the guess's total (exact when below ``best``, else a
    bound), after the workers' memos are adopted by the main one."""
    cdef int64_t excess = 0, v
    cdef int cancel = 0, a, s, w
    cdef int finished[MAX_SLOTS]
    cdef int64_t vals[MAX_SLOTS]
    cdef int32_t sub
    cdef OData* wk
    if _ensure(o, child) != 0:              # (read by every worker: made before)
        return lb
    for w in range(o.threads):
        wk = &o.workers[w]
        wk.cancel = &cancel
        wk.aborted = STOP_NONE
        wk.limited = o.limited
    for a in prange(nparts, num_threads=o.threads, schedule="dynamic", chunksize=1):
        s = order[nparts - 1 - a]
        wk = &o.workers[threadid()]
        finished[a] = 0
        vals[a] = _solve(wk, parts + off[s], row[s], dl - 1, best - (lb - pre[s]),
                         bnode, child, &sub, False)
        if wk.aborted == STOP_CANCELLED:    # the part keeps its estimate
            wk.aborted = STOP_NONE
        elif not wk.aborted:
            finished[a] = 1
            v = __atomic_add_fetch(&excess, vals[a] - pre[s], __ATOMIC_RELAXED)
            if lb + v >= best:
                cancel = 1
    v = lb
    for a in range(nparts):
        if finished[a]:
            v += vals[a] - pre[order[nparts - 1 - a]]
    for w in range(o.threads):              # stops, statistics, and what they learnt
        wk = &o.workers[w]
        if wk.aborted and not o.aborted:
            o.aborted = wk.aborted
        wk.cancel = NULL
        o.nodes += wk.nodes
        o.obvious += wk.obvious
        o.hits += wk.hits
        o.scanned += wk.scanned
        o.explored += wk.explored
        o.canon_hits += wk.canon_hits
        wk.nodes = wk.obvious = wk.hits = wk.scanned = wk.explored = wk.canon_hits = 0
        _adopt(&o.memo, &wk.memo)
    return v


cdef int64_t _solve_parts(OData* o, Node* nd, const uint32_t* row, const Py_ssize_t* off,
                          const int* order, int nparts, int64_t running, const int64_t* pre,
                          Guesses* child, Node* kept) noexcept nogil:
    """The total of one guess: its bound ``running`` (every part at its estimate pre[slot]), each
    part's estimate replaced by its total in turn, in the order of _parts_by_slot, each solved
    below the limit the best total leaves it; stops as soon as the total reaches the best
    (then it is a bound), or at a stop (the stopped part keeps its estimate)."""
    cdef int a, s
    cdef int64_t v, part_est
    cdef int32_t sub
    for a in range(nparts):
        if o.aborted:
            break
        s = order[a]
        part_est = pre[s]
        if kept != NULL:
            o.ready = &kept[a]              # (its floor's scan, if it made one)
        v = _solve(o, nd.parts + off[s], row[s], nd.dl - 1, nd.best - (running - part_est),
                   nd.bnode, child, &sub, False)
        if o.aborted:
            break
        running += v - part_est
        if running >= nd.best:
            break
    return running


cdef int64_t _explore_guess(OData* o, Node* nd, Py_ssize_t i, Guesses* gs) noexcept nogil:
    """The total of guess info[i] (exact when below the best, else a bound): its parts
    solved one after the other, or side by side on the workers for a big node."""
    cdef const KData* d = o.d
    cdef uint32_t row[MAX_SLOTS]
    cdef Py_ssize_t off[MAX_SLOTS + 1]
    cdef int order[MAX_SLOTS]
    cdef int nparts, a, s
    cdef int64_t running = nd.info[i].lb
    cdef int64_t pre[MAX_SLOTS]
    cdef Node* kept = NULL
    cdef Guesses child
    o.explored += 1
    nparts = _parts_by_slot(d, nd.info[i].g, nd.c, nd.m, row, off, nd.parts, order)
    for a in range(nparts):                 # each part's own floor (memo, rules)
        s = order[a]
        pre[s] = _part_floor(o, nd.parts + off[s], row[s], nd.dl - 1, nd.bnode,
                             nd.estt[row[s]])
        running += pre[s] - nd.estt[row[s]]
        if running >= nd.best:              # refuted: the other floors are not needed
            return running
    memset(&child, 0, sizeof(child))
    if o.use_sym and _sym_child(d, &gs.sym, nd.info[i].g, &child.sym) != 0:
        o.aborted = STOP_MEMORY
    if (not o.aborted and nparts and nd.m >= FLOOR_NODE and nd.best_g >= 0
            and (nd.m >= FLOOR_ALWAYS or nd.bnode <= FLOOR_PARTS)
            and row[order[nparts - 1]] >= SCAN_FLOOR):
        kept = <Node*>new_structs(nparts, sizeof(Node), True)
        if kept == NULL:
            o.aborted = STOP_MEMORY
        else:
            running = _scan_floors(o, nd, row, off, order, nparts, running, pre, &child, kept)
    if not o.aborted and running < nd.best:
        if o.workers != NULL and nd.m >= o.par_min and nparts >= 2:
            running = _parts_side_by_side(o, nd.parts, off, row, order, nparts, nd.dl,
                                          nd.best, running, nd.bnode, pre, &child)
        else:
            running = _solve_parts(o, nd, row, off, order, nparts, running, pre, &child,
                                   kept)
    if kept != NULL:
        for a in range(nparts):             # (the scans no node took)
            _node_close(&kept[a])
        free_structs(kept)
    free(child.own)
    free(child.sym.el)
    return running


cdef inline void _least_left(Node* nd, Py_ssize_t i) noexcept nogil:
    """Lower nd.node_lb to the least bound of the guesses info[i..] not yet tried.  Every
    one of them counts, not the next alone: _bring_next is a selection (it brings the
    least to the front and leaves the rest in any order), so info[i] need not be the
    least of them."""
    cdef Py_ssize_t j
    for j in range(i, nd.ninfo):
        if nd.info[j].lb < nd.node_lb:
            nd.node_lb = nd.info[j].lb


cdef void _explore(OData* o, Node* nd, Guesses* gs) noexcept nogil:
    """Try the guesses kept in the order (_bring_next) until one's bound reaches the best
    total: the best total and its guess (nd.best, nd.best_g), and a bound of the totals
    ruled out (nd.node_lb).  After a stop at the root, nd.node_lb bounds every guess: the
    totals of those explored, the bound of the one stopped (its parts solved to the end
    at their totals, the others at their floors: nothing from a stopped search), and the
    bounds of all those not yet tried (the dropped ones' are in it already)."""
    cdef Py_ssize_t i = 0
    cdef int64_t running
    while i < nd.ninfo and not o.aborted:
        _bring_next(o, nd, i)
        if nd.info[i].lb >= nd.best:        # neither this guess nor any after it
            if nd.info[i].lb < nd.node_lb:
                nd.node_lb = nd.info[i].lb
            break
        running = _explore_guess(o, nd, i, gs)
        if running < nd.node_lb:
            nd.node_lb = running
        if o.aborted:
            if nd.root:                     # every guess not yet tried keeps its bound
                _least_left(nd, i + 1)
            break
        if running < nd.best:
            nd.best = running
            nd.best_g = nd.info[i].g
        i += 1
        if nd.root:
            o.root_done = i


cdef void _remember(MemoEntry* e, int64_t value, int32_t guess, int64_t lower) noexcept nogil:
    """Store in a memo entry (if any) the exact total ``value`` (>= 0) and its guess, or
    else the proved lower bound ``lower``."""
    if e == NULL:
        return
    if value >= 0:
        e.value = value
        e.guess = guess
    elif lower > e.lower:
        e.lower = lower


cdef int64_t _node_answer(OData* o, Node* nd, int32_t* out, uint64_t h, int32_t tag,
                          const int32_t* key, uint64_t ch) noexcept nogil:
    """The node's value for _solve (see there), stored in the memo (under the set's image
    too, ``key``, when not NULL: the total only, no guess): the optimum when one was found
    below the limit, else the proved lower bound."""
    cdef int64_t value = -1
    if o.aborted:
        if nd.root:
            o.root_lower = nd.node_lb if nd.node_lb > nd.lb0 else nd.lb0
        out[0] = nd.best_g
        return nd.best if nd.best_g >= 0 else nd.limit
    if nd.best_g >= 0:                      # the optimum (below the limit)
        out[0] = nd.best_g
        value = nd.best
    elif nd.node_lb < nd.lb0:
        nd.node_lb = nd.lb0
    _remember(_memo_find(&o.memo, nd.c, nd.m, tag, h, True), value, nd.best_g, nd.node_lb)
    if key != NULL:
        _remember(_canon_entry(o, key, nd.m, tag, ch, True), value, -1, nd.node_lb)
    return value if value >= 0 else nd.node_lb


cdef int64_t _canon_find(OData* o, const int32_t* c, Py_ssize_t m, int32_t tag, int32_t* key,
                         uint64_t* ch, int64_t limit, int64_t* lb0) noexcept nogil:
    """Look c up under its image (written to ``key``, its hash to ``ch``): the exact total,
    or a proved bound >= ``limit``, when the memo knows one (any set with that image has
    the same total: the search's value for c), else -1, ``lb0`` raised to the bound."""
    cdef MemoEntry* e
    _canon_image(o.d, c, m, key)
    ch[0] = _hash_set(key, m, tag | CANON_TAG)
    e = _canon_entry(o, key, m, tag, ch[0], False)
    if e == NULL:
        return -1
    if e.value >= 0 or e.lower >= limit:
        o.canon_hits += 1
        return e.value if e.value >= 0 else e.lower
    if e.lower > lb0[0]:
        lb0[0] = e.lower
    return -1


cdef int64_t _node(OData* o, const int32_t* c, Py_ssize_t m, int dl, int64_t limit, int b,
                   Guesses* gs, int32_t* out, bint root, int64_t lb0, uint64_t h,
                   int32_t tag, int32_t pair, Node* ready) noexcept nogil:
    """_solve's general case: looked up under the set's image first (_canon_find; not at
    the root, nor for the set whose guess the tree wants), then searched (_node_search)
    and remembered under it too."""
    cdef int32_t few[CANON_STACK]
    cdef int32_t* key = NULL
    cdef uint64_t ch = 0
    cdef int64_t v
    if o.canon and not root and out != o.want and m >= CANON_MIN:
        key = &few[0]
        if m > CANON_STACK:
            key = <int32_t*>malloc(m * sizeof(int32_t))
        if key == NULL:
            o.aborted = STOP_MEMORY
            return limit
        v = _canon_find(o, c, m, tag, key, &ch, limit, &lb0)
        if v < 0:
            v = _node_search(o, c, m, dl, limit, b, gs, out, root, lb0, h, tag, pair, ready,
                             key, ch)
        if key != &few[0]:
            free(key)
        return v
    return _node_search(o, c, m, dl, limit, b, gs, out, root, lb0, h, tag, pair, ready, NULL, 0)


cdef int64_t _node_search(OData* o, const int32_t* c, Py_ssize_t m, int dl, int64_t limit,
                          int b, Guesses* gs, int32_t* out, bint root, int64_t lb0,
                          uint64_t h, int32_t tag, int32_t pair, Node* ready,
                          const int32_t* key, uint64_t ch) noexcept nogil:
    """Scan the guesses (_scan_few for a node of few codes, which also settles the rules
    _solve leaves to it, else _scan_general; or take the scan its floor made, ``ready``),
    then try them by increasing bound (_explore)."""
    cdef Node nd
    o.nodes += 1
    if (ready != NULL and ready.info != NULL and ready.c == c and ready.m == m
            and ready.dl == dl and ready.b == b and not root):
        _node_adopt(&nd, ready, limit, lb0)
    elif _node_open(o, &nd, c, m, dl, limit, b, gs, root, lb0):
        if _few(o, m) and not nd.fixed:
            _scan_few(o, &nd, gs, pair)
        else:
            _scan_general(o, &nd, gs)
    if root:
        o.root_total = nd.ninfo
    if nd.settled >= 0:                     # decided by the rules: no exploration
        nd.ninfo = 0
        if nd.settled >= INF or nd.best_g < 0:
            nd.node_lb = nd.settled
        else:
            nd.best = nd.settled
            o.obvious += 1
    _explore(o, &nd, gs)
    if root and not o.aborted:
        o.root_done = o.root_total
    _node_close(&nd)
    return _node_answer(o, &nd, out, h, tag, key, ch)


def canon_image(Kernel kernel, cands):
    """The code indices, sorted, of the image of ``cands`` (code indices held by the
    kernel, at least one) under which the optimal search remembers the set: its image
    under a colour and position permutation chosen from its own counts.  Raises
    ValueError for a kernel without the codes' colours (a table of scores) or a game too
    large for images (more than 8 positions or 16 colours, or codes past an int32)."""
    codes = np.asarray(cands, dtype=np.int32)
    if not _canon_game(&kernel.d, kernel.mode != SCORE_TABLE):
        raise ValueError("canon_image needs an encoded game of at most 8 positions and "
                         "16 colours")
    rows = np.ascontiguousarray(kernel.rows(codes), dtype=np.int32)
    if (codes.ndim != 1 or codes.size < 1 or rows.min() < 0 or rows.max() >= kernel.ncodes
            or not np.array_equal(kernel.codes(rows), codes)):
        raise ValueError("canon_image needs one code or more, each held by the kernel")
    cdef const int32_t[::1] cv = rows
    cdef Py_ssize_t m = cv.shape[0]
    key = np.empty(m, dtype=np.int32)
    cdef int32_t[::1] kv = key
    _canon_image(&kernel.d, &cv[0], m, &kv[0])
    return key


def root_order(Kernel kernel, guesses, cands, history, *, bint cands_only, bint symmetry,
               bint blanks, int max_guesses=0, int64_t limit=0):
    """The guesses the optimal search explores first at the root of ``cands``, in the
    order it tries them, with their bounds, made by the very code the search runs there
    (_node_open, _scan_general, the order of _bring_next): one guess per orbit of the
    history's group, the guesses using an absent colour merged away (``blanks``), those
    giving no information (one part, not a candidate) dropped, each bounded by |S| plus
    the estimate of each non-winning part with the root's best part count, sorted by
    (bound, sum of squared part sizes, candidates first, index), and only those whose
    bound is below ``limit`` (0: no limit): the ones the search explores until a total
    is known.

    The arguments are :class:`Optimizer`'s and its :meth:`~Optimizer.run`'s
    (``guesses``: every guess, ascending; ``history``: the guesses played before, for
    the symmetry; ``max_guesses`` 0: no limit).  Returns ``(guesses, bounds, key2,
    notcand, bnode)``: int32 code indices, int64 bounds, int64 sums of squared part
    sizes, a bool array (True: not a candidate), and the root's best part count, with
    which a part of p codes is estimated at ``est_table(p, bnode, dl - 1)[p]`` (dl the
    guesses left).  Raises ValueError for a set the search does not scan this way:
    FEW_CODES_MAX codes or fewer on an encoded game (scanned by part counts), no more
    codes than slots (the obvious rules may settle it), or two guesses left or fewer."""
    cdef const int32_t[::1] gv = kernel.rows(guesses)
    cdef const int32_t[::1] cv = kernel.rows(cands)
    cdef const int32_t[::1] hv = kernel.rows(history)
    cdef Py_ssize_t m = cv.shape[0], nh = hv.shape[0], n = 0, i
    cdef int dl = max_guesses if max_guesses > 0 else NO_LIMIT
    cdef int64_t lim = limit if limit > 0 else INF
    cdef bint ok = True
    cdef OData o
    cdef Guesses gs
    cdef Node nd
    memset(&o, 0, sizeof(OData))
    memset(&gs, 0, sizeof(Guesses))
    memset(&nd, 0, sizeof(Node))
    o.d = &kernel.d
    o.guesses = &gv[0] if gv.shape[0] else NULL
    o.ng = gv.shape[0]
    o.cands_only = cands_only
    o.by_blacks = _scored_by_blacks(o.d)
    o.use_sym = symmetry and kernel.mode != SCORE_TABLE
    o.blanks_ok = blanks and kernel.mode != SCORE_TABLE
    o.limited = max_guesses > 0
    o.first = -1
    if m <= kernel.nslots or _few(&o, m) or dl <= 2:
        raise ValueError("root_order needs more codes than slots and than FEW_CODES_MAX "
                         "(on an encoded game), and three guesses left or more")
    try:
        with nogil:
            if o.use_sym and _sym_root(o.d, &hv[0] if nh else NULL, nh, &gs.sym) != 0:
                ok = False
            if ok and _ensure(&o, &gs) != 0:
                ok = False
            if ok and _node_open(&o, &nd, &cv[0], m, dl, lim, o.d.nslots - 1, &gs, True, 0):
                _scan_general(&o, &nd, &gs)
                while n < nd.ninfo:
                    _bring_next(&o, &nd, n)
                    if nd.info[n].lb >= nd.best:
                        break
                    n += 1
            else:
                ok = False
        if not ok:
            raise MemoryError("out of memory in root_order")
        out = np.empty(n, dtype=np.int32)
        bounds = np.empty(n, dtype=np.int64)
        key2 = np.empty(n, dtype=np.int64)
        notcand = np.empty(n, dtype=bool)
        for i in range(n):
            out[i] = nd.info[i].g
            bounds[i] = nd.info[i].lb
            key2[i] = nd.info[i].key2
            notcand[i] = nd.info[i].notcand != 0
        return kernel.codes(out), bounds, key2, notcand, nd.bnode
    finally:
        _node_close(&nd)
        free(gs.own)
        free(gs.sym.el)


cdef void _build(OData* o, const int32_t* c, Py_ssize_t m, int dl, Py_ssize_t parent,
                 int pslot, int depth, Guesses* gs, int32_t guess) noexcept nogil:
    """Record the optimal tree of c (its root's guess given, else solved; the memo holds
    most answers), depth-first: rows (parent, slot, guess, size, depth)."""
    cdef const KData* d = o.d
    cdef int ns = d.nslots, s
    cdef Py_ssize_t node
    cdef Py_ssize_t off[MAX_SLOTS + 1]
    cdef uint32_t cnt[MAX_SLOTS]
    cdef int32_t* parts
    cdef Guesses child
    if o.aborted:
        return
    if guess < 0:
        o.want = &guess
        _solve(o, c, m, dl, INF, ns - 1, gs, &guess, False)
        o.want = NULL
        if o.aborted or guess < 0:
            if o.aborted == STOP_NONE:
                o.aborted = STOP_MEMORY
            return
    node = _record(o, parent, pslot, guess, m, depth)
    if m == 1 and c[0] == guess:
        return
    parts = <int32_t*>malloc(m * sizeof(int32_t))
    if parts == NULL:
        o.aborted = STOP_MEMORY
        return
    _split_by_slot(d, guess, c, m, cnt, off, parts, NULL, NULL)
    memset(&child, 0, sizeof(child))
    if o.use_sym and _sym_child(d, &gs.sym, guess, &child.sym) != 0:
        o.aborted = STOP_MEMORY
    for s in range(ns):
        if cnt[s] and s != d.win:
            _build(o, parts + off[s], cnt[s], dl - 1, node, s, depth + 1, &child, -1)
    free(child.own)
    free(child.sym.el)
    free(parts)


# --------------------------------------------------------------------------- Python API

cdef class Optimizer:
    """The optimal search over a game (its memo kept between calls).  Trusts its
    arguments (validated by :mod:`mastermind.optimum.solver`).

    ``guesses``: every guess, ascending (ignored with ``cands_only``); ``symmetry`` needs
    them closed under colour and position permutations (an encoded game); ``blanks``
    needs them to be every code; ``mem_limit``: bytes the memo may use.
    """
    cdef OData o
    cdef KData dd
    cdef Kernel kernel
    cdef object _refs
    cdef public object last     # what the last run returned (kept for a caller stopped
                                # by Ctrl-C in the meantime)
    cdef public double rebuild_seconds  # a stopped run's time to rebuild its best tree
                                        # (< 0: 1 s + 1% of the search's time, <= 30 s)

    def __cinit__(self):
        memset(&self.o, 0, sizeof(OData))
        self.rebuild_seconds = -1.0

    def __init__(self, Kernel kernel, guesses, *, bint cands_only, bint symmetry, bint blanks,
                 Py_ssize_t mem_limit, int threads=1):
        cdef const int32_t[::1] gv = kernel.rows(guesses)
        self.kernel = kernel
        self._refs = (guesses, gv)
        self.dd = kernel.d
        self.o.d = &self.dd
        self.o.guesses = &gv[0] if gv.shape[0] else NULL
        self.o.ng = gv.shape[0]
        self.o.cands_only = cands_only
        self.o.by_blacks = _scored_by_blacks(self.o.d)
        self.o.use_sym = symmetry and kernel.mode != SCORE_TABLE
        self.o.blanks_ok = blanks and kernel.mode != SCORE_TABLE
        self.o.first = -1
        self.o.par_min = PAR_MIN
        self.o.canon = _canon_game(self.o.d, self.o.use_sym)
        if _memo_init(&self.o.memo, mem_limit) != 0:
            raise MemoryError("out of memory preparing the search")
        cdef int w
        if threads > 1:
            self.o.threads = threads
            self.o.workers = <OData*>new_structs(threads, sizeof(OData), True)
            if self.o.workers == NULL:
                raise MemoryError("out of memory preparing the search")
            for w in range(threads):
                self.o.workers[w] = self.o
                self.o.workers[w].workers = NULL
                self.o.workers[w].threads = 1
                self.o.workers[w].shared = &self.o.memo
                self.o.workers[w].rec = NULL
                if _memo_init(&self.o.workers[w].memo, mem_limit // threads) != 0:
                    raise MemoryError("out of memory preparing the search")

    def __dealloc__(self):
        cdef int w
        _memo_free(&self.o.memo)
        if self.o.workers != NULL:
            for w in range(self.o.threads):
                _memo_free(&self.o.workers[w].memo)
            free_structs(self.o.workers)
        free(self.o.rec)

    property par_min:
        """Nodes of at least this many codes have their parts solved side by side (with
        more than one thread); the answers never depend on it, only the time."""
        def __get__(self):
            return self.o.par_min

        def __set__(self, Py_ssize_t value):
            self.o.par_min = max(1, value)

    property canon:
        """Whether the search also remembers sets under their images and looks them up
        there (True by default on a symmetric encoded game, which alone can: the
        answers never depend on it, only the work)."""
        def __get__(self):
            return bool(self.o.canon)

        def __set__(self, bint value):
            cdef int w
            self.o.canon = value and _canon_game(self.o.d, self.o.use_sym)
            for w in range(self.o.threads if self.o.workers != NULL else 0):
                self.o.workers[w].canon = self.o.canon

    @property
    def progress(self):
        """(the root's guesses done, of how many): read from another thread while
        :meth:`run` works (0, 0 until the root's guesses are scanned)."""
        return self.o.root_done, self.o.root_total

    @property
    def stats(self):
        """dict: nodes (general nodes), obvious (sets settled by the obvious rules), memo
        hits, guesses scanned, memo entries and bytes."""
        return {"nodes": self.o.nodes, "obvious": self.o.obvious, "hits": self.o.hits,
                "scanned": self.o.scanned, "memo_entries": self.o.memo.used,
                "explored": self.o.explored,
                "memo_bytes": self.o.memo.mem, "floors": self.o.floors,
                "floor_cuts": self.o.floor_cuts, "canon_hits": self.o.canon_hits}

    def floor(self, cands, *, int max_guesses=0, int parts=-1, bint scan=False):
        """The floor the search gives a part before solving it (_part_floor): a lower
        bound of the least total of ``cands`` (sorted, non-empty) within ``max_guesses``
        (0: no limit) when no guess makes more than ``parts`` non-winning parts on it
        (-1: the slots' count), from what this search's memo knows and the rules; with
        ``scan``, at least its depth-1 bound (_scan_floor, every guess tried: no
        symmetry is assumed), which the memo then keeps."""
        cdef const int32_t[::1] cv = self.kernel.rows(cands)
        cdef Py_ssize_t m = cv.shape[0]
        cdef int dl = max_guesses if max_guesses > 0 else NO_LIMIT
        cdef int b = parts if parts >= 0 else self.o.d.nslots - 1
        cdef int64_t f
        cdef Guesses gs
        if m < 1 or max_guesses < 0:
            raise ValueError("floor needs a non-empty set and max_guesses >= 0")
        self.o.limited = max_guesses > 0
        self.o.aborted = STOP_NONE
        f = _part_floor(&self.o, &cv[0], m, dl, b, _est(m, b, dl))
        if scan and m > 2:
            memset(&gs, 0, sizeof(gs))
            gs.sym.nel = 1                  # the identity alone
            gs.sym.played = ((<uint32_t>1) << self.o.d.k) - 1
            f = max(f, _scan_floor(&self.o, &cv[0], m, dl, b, &gs, NULL))
            free(gs.own)
            if self.o.aborted == STOP_MEMORY:
                raise MemoryError("out of memory in floor")
        return f

    def run(self, cands, history, int max_guesses, int64_t limit, int32_t first=-1,
            StopFlag stop=None):
        """Search the optimum of ``cands`` (sorted, non-empty, guessable) after the guesses
        ``history`` (for symmetry), within ``max_guesses`` (0: no limit), below ``limit``
        (0: none); ``first`` >= 0 fixes the root's guess.

        Returns ``(status, value, lower, records)``: status RUN_OPTIMUM (``value`` the
        optimum, ``records`` its tree: rows (parent, slot, guess, size, depth)),
        RUN_ABOVE_LIMIT (nothing below ``limit``: ``value`` is a lower bound >= limit),
        RUN_STOPPED (``value`` the best total found, with its tree, or -1: none found,
        or its tree not rebuilt within the short deadline the rebuilding gets; ``lower``
        proved)."""
        cdef const int32_t[::1] cv = self.kernel.rows(cands)
        cdef const int32_t[::1] hv = self.kernel.rows(history)
        cdef Py_ssize_t m = cv.shape[0]
        cdef int dl = max_guesses if max_guesses > 0 else NO_LIMIT
        cdef int64_t lim = limit if limit > 0 else INF
        cdef int64_t v = 0, lower = 0
        cdef int32_t g = -1
        cdef int status = RUN_OPTIMUM
        cdef double start = _now()
        cdef Guesses root
        self.dd = _with_stop(&self.kernel.d, stop)
        self.o.aborted = STOP_NONE
        self.o.root_lower = 0
        self.o.root_done = 0
        self.o.root_total = 0
        self.last = None
        self.o.limited = max_guesses > 0
        self.o.first = self.kernel.rows(first) if first >= 0 else -1
        self.o.nrec = 0
        memset(&root, 0, sizeof(root))
        try:
            with nogil:
                if self.o.use_sym:
                    if _sym_root(self.o.d, &hv[0] if hv.shape[0] else NULL, hv.shape[0],
                                 &root.sym) != 0:
                        self.o.aborted = STOP_MEMORY
                if not self.o.aborted:
                    v = _solve(&self.o, &cv[0], m, dl, lim, self.o.d.nslots - 1, &root, &g,
                               True)
                status = (RUN_STOPPED if self.o.aborted
                          else RUN_OPTIMUM if v < lim else RUN_ABOVE_LIMIT)
                lower = self.o.root_lower if status == RUN_STOPPED else v
                if status != RUN_ABOVE_LIMIT and g >= 0:
                    status = self._tree(&cv[0], m, dl, &root, &g, status, start)
            if self.o.aborted == STOP_MEMORY:
                raise MemoryError("out of memory in the optimal search")
            if status == RUN_STOPPED and g < 0:
                v = -1
            recs = np.empty((self.o.nrec, REC), dtype=np.int32)
            if self.o.nrec:
                memcpy(<void*><size_t>recs.ctypes.data, self.o.rec,
                       self.o.nrec * REC * sizeof(int32_t))
                if self.kernel.universe is not None:
                    recs[:, 2] = self.kernel.codes(recs[:, 2])
            self.last = (status, v, lower, recs)
            return self.last
        finally:
            free(root.own)
            free(root.sym.el)

    cdef int _tree(self, const int32_t* c, Py_ssize_t m, int dl, Guesses* root, int32_t* g,
                   int status, double start) noexcept nogil:
        """The tree of a run that ended with ``status`` (not RUN_ABOVE_LIMIT) and the root
        guess ``g[0]``, its parts from the memo; the run's status after it.

        An optimum's is built whatever time it takes (a part the memo let go is searched
        again), but a stop the caller asks for meanwhile (Ctrl-C; not its deadline: the
        optimum is found) ends it: the run is then stopped, the optimum its proved bound,
        with no tree.  A stopped search's may need parts it never finished storing, or
        that the memo let go, searched again from nothing and to the end: that gets a
        deadline of its own (rebuild_seconds; by default 1 s + 1% of the search's time,
        30 s at most, from ``start``), past which the run gives no tree (``g[0]`` = -1;
        the caller's seed stands)."""
        cdef int stopped = self.o.aborted, build_stop = 0
        cdef int* asked = self.dd.stop
        cdef double grace
        self.o.aborted = STOP_NONE
        self.dd.stop = NULL
        self.dd.deadline = 0
        if status == RUN_OPTIMUM and asked != NULL:
            self.dd.stop = asked    # (its polls kept: tests stop it there)
        else:
            self.dd.polls = NULL
        if status == RUN_STOPPED:
            grace = self.rebuild_seconds
            if grace < 0:
                grace = min(30.0, 1.0 + 0.01 * (_now() - start))
            self.dd.stop = &build_stop
            self.dd.deadline = _now() + grace
            if grace <= 0:
                build_stop = STOP_DEADLINE
        _build(&self.o, c, m, dl, -1, -1, 1, root, g[0])
        if (status == RUN_OPTIMUM and self.o.aborted != STOP_NONE
                and self.o.aborted != STOP_MEMORY):
            status = RUN_STOPPED    # asked to stop: no tree, the optimum
            stopped = self.o.aborted    # its proved bound (``lower``)
        if status == RUN_STOPPED and self.o.aborted != STOP_MEMORY:
            if self.o.aborted != STOP_NONE:
                g[0] = -1               # out of time: no tree
                self.o.nrec = 0
            self.o.aborted = stopped
        self.dd.stop = NULL
        self.dd.deadline = 0
        self.dd.polls = NULL
        return status
