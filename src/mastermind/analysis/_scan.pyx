# cython: language_level=3
"""The choice rule's scan: which guess a one-step strategy plays over a candidate set.

Every guess of a list is offered to a ``Best`` (the rule every strategy follows: the best
key, then a candidate, then the smallest index), and most of them are ruled out before
they are fully scored:

* bounded evaluation (``_eval_narrow``): a guess is given up as soon as its partial
  table proves it worse than the best so far;
* colour-class bounds (``_class_bounds``): a lower bound of every guess's key from the
  colour multisets alone;
* eight guesses at a time on few candidates (``_scan_lanes``, the vector lanes of
  ``_kernel.h``);
* a floor: once every candidate has been offered, a non-candidate reaching the least key
  any non-candidate can have ends the scan;
* threads over blocks of guesses (``_scan_parallel``), merged in the rule's total order so
  that the result never depends on the thread count.

The caller guarantees: guesses ascending, candidates sorted and non-empty, all indices
valid for the kernel, ``kind`` one of the four scanning valuations (KIND_MINMAX,
KIND_ENTROPY, KIND_PARTS, KIND_EXPECTED).
"""

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t, INT32_MAX, INT64_MIN
from libc.stdlib cimport free, malloc
from libc.string cimport memset
from cython.parallel cimport prange

from mastermind.kernel._core cimport free_structs, new_structs
from mastermind.kernel._core cimport (HAVE_LANES, KIND_ENTROPY, KIND_EXPECTED, KIND_MINMAX,
                                      KIND_PARTS, SCORE_TABLE, TWO_WORDS, Hist64, KData, Kernel,
                                      MAX_SLOTS, MM_COUNT, MM_EVALS, MM_PAIRS, PAD_ONES, StopFlag,
                                      __builtin_ctzll, _atomic_min_ssize, _bytes_of, _cell,
                                      _count64b, _even_spread, _halted, _hist, _hist_packed, _lanes,
                                      _new_pack, _sort_u64, _value, _with_stop, popcount,
                                      vread_ssize)


cdef enum:
    BLOCK_MIN = 64          # candidates from which _eval_narrow counts 64 at a time


cdef bint _eval_blocks(const KData* d, int kind, Py_ssize_t g, const uint64_t* pk,
                       Py_ssize_t m, int64_t lim, uint32_t* h, int64_t* out_key,
                       int* out_nc) noexcept nogil:
    """_eval_narrow for m >= BLOCK_MIN candidates, from their byte forms: 64 pairs at a
    time go into ``h`` (zeroed) through mm_count64b, and the same bounds are checked
    after each 64 on the counts so far."""
    cdef const uint64_t* D = _bytes_of(d, pk, m)
    cdef const uint64_t* K = D + ((m + 7) & ~(<Py_ssize_t>7))
    cdef const uint64_t* H = K + ((m + 7) & ~(<Py_ssize_t>7)) if d.bw == 3 else NULL
    cdef uint64_t gD = d.benc[d.bw * g] - PAD_ONES(d.n)
    cdef uint64_t gK = d.benc[d.bw * g + 1]
    cdef uint64_t gH = d.benc[d.bw * g + 2] if d.bw == 3 else 0
    cdef Py_ssize_t i = 0
    cdef int j
    cdef uint32_t t, mx
    cdef int64_t acc
    while i < m:
        _count64b(gD, gK, gH, D + i, K + i, H + i if H != NULL else NULL,
                  m - i if m - i < 64 else 64, d.clist, d.ncl, h)
        i += 64
        if i >= m or kind == KIND_PARTS:
            continue
        if kind == KIND_MINMAX:
            mx = 0
            for j in range(d.ncl):
                t = h[d.clist[j]]
                if t > mx:
                    mx = t
            if mx > lim:
                MM_COUNT(i)
                return False
        else:
            acc = m - i if kind == KIND_EXPECTED else 0
            for j in range(d.ncl):
                t = h[d.clist[j]]
                acc += d.xlogx[t] if kind == KIND_ENTROPY else <int64_t>t * t
            if acc > lim:
                MM_COUNT(i)
                return False
    MM_COUNT(m)
    if d.injective:
        out_key[0] = _value_cells(d, h, kind)
        out_nc[0] = h[(d.n << 3) + d.n] == 0
        return True
    return _key_folded(d, h, kind, out_key, out_nc)


cdef inline bint _key_folded(const KData* d, const uint32_t* h, int kind, int64_t* out_key,
                             int* out_nc) noexcept nogil:
    """Set the key and candidacy from cell counts h of a game whose cells merge into
    slots (black-peg); returns True."""
    cdef uint32_t hs[MAX_SLOTS]
    cdef int j
    memset(hs, 0, sizeof(hs))
    for j in range(d.cells):
        hs[d.fold[j]] += h[j]
    out_key[0] = _value(d, hs, kind)
    out_nc[0] = hs[d.win] == 0
    return True


cdef inline int64_t _value_cells(const KData* d, const uint32_t* h, int kind) noexcept nogil:
    """_value over the cells of an injective game (cells and slots one to one)."""
    cdef int64_t v = 0
    cdef int j
    cdef uint32_t t
    for j in range(d.ncl):
        t = h[d.clist[j]]
        if kind == KIND_MINMAX:
            if t > v:
                v = t
        elif kind == KIND_ENTROPY:
            v += d.xlogx[t]
        elif kind == KIND_PARTS:
            v -= t != 0
        else:
            v += <int64_t>t * t
    return v


cdef inline bint _eval_narrow(const KData* d, int kind, const uint64_t* ge,
                              const uint64_t* pk, Py_ssize_t m, int64_t lim,
                              int64_t* out_key, int* out_nc) noexcept nogil:
    """Score one two-word guess against packed candidates into the histogram of cells
    ``8 * blacks + blacks + whites`` (two-word codes, n <= 7), giving up (False) as soon
    as a lower bound of its key exceeds ``lim``; else set its key and whether it is not a
    candidate.  One histogram, checked after every pair: two interleaved ones checked
    every 32 pairs measured 2-3 times slower, the coarser checks costing more scoring
    than the store-to-load chains they save.  From BLOCK_MIN candidates, when the codes
    have byte forms, _eval_blocks counts 64 pairs at a time instead (no store-to-load
    chain at all, the same bounds checked every 64 pairs).

    Bounds, all valid for partial counts t of the final T: minmax max t <= max T;
    expected-size sum t^2 + (candidates left) <= sum T^2; entropy sum t log t <= sum T
    log T (t log t grows with t).  A cell is part of one slot, so cell sums bound slot
    sums (they are equal when cells and slots correspond one to one, ``d.injective``;
    black-peg slots merge cells and are folded at the end).

    One function of four loops rather than named steps: it is inlined into the scans,
    and each valuation's loop is the hottest code of the package (a call or a shared
    loop with a per-pair test would cost in every pair).
    """
    cdef Hist64 hc
    cdef uint32_t* h = hc.c
    cdef uint32_t hs[MAX_SLOTS]
    cdef uint64_t p0 = ge[0]
    cdef uint64_t p1 = ge[1]
    cdef uint64_t m0 = 0, m1 = 0
    cdef uint32_t a, b, cap, mx = 0
    cdef int64_t acc = 0
    cdef const int64_t* dx = d.dxlogx
    cdef Py_ssize_t i = 0
    cdef int j
    cdef int wc = (d.n << 3) + d.n
    if m >= BLOCK_MIN and d.benc != NULL and kind != KIND_PARTS:  # (parts: its bit mask is faster)
        memset(h, 0, sizeof(hc))
        return _eval_blocks(d, kind, (ge - d.enc) >> 1, pk, m, lim, h, out_key, out_nc)
    if kind == KIND_PARTS:
        while i + 2 <= m:
            m0 |= (<uint64_t>1) << (_cell(p0, p1, pk))
            m1 |= (<uint64_t>1) << (_cell(p0, p1, pk + 2))
            pk += 4
            i += 2
        if i < m:
            m0 |= (<uint64_t>1) << (_cell(p0, p1, pk))
        m0 |= m1
        if d.injective:
            out_key[0] = -popcount(m0)
            out_nc[0] = ((m0 >> wc) & 1) == 0
            MM_COUNT(m)
            return True
        memset(hs, 0, sizeof(hs))
        while m0:
            hs[d.fold[__builtin_ctzll(m0)]] = 1
            m0 &= m0 - 1
        out_key[0] = _value(d, hs, KIND_PARTS)
        out_nc[0] = hs[d.win] == 0
        MM_COUNT(m)
        return True
    memset(h, 0, sizeof(hc))
    if kind == KIND_MINMAX:
        cap = <uint32_t>(lim if lim < m else m)
        while i + 2 <= m:
            a = _cell(p0, p1, pk)
            b = _cell(p0, p1, pk + 2)
            h[a] += 1
            a = h[a]
            h[b] += 1
            b = h[b]
            if (a > cap) | (b > cap):
                MM_COUNT(i)
                return False
            pk += 4
            i += 2
        if i < m:
            a = _cell(p0, p1, pk)
            h[a] += 1
            if h[a] > cap:
                MM_COUNT(i)
                return False
        if d.injective:
            for j in range(d.cells):
                if h[j] > mx:
                    mx = h[j]
            out_key[0] = mx
            out_nc[0] = h[wc] == 0
            MM_COUNT(m)
            return True
    # entropy and expected-size keep a loop each: one shared loop with a per-pair test of
    # the valuation is a branch in the hottest code of the package
    elif kind == KIND_ENTROPY:
        while i + 2 <= m:
            a = _cell(p0, p1, pk)
            acc += dx[h[a]]
            h[a] += 1
            b = _cell(p0, p1, pk + 2)
            acc += dx[h[b]]
            h[b] += 1
            if acc > lim:
                MM_COUNT(i)
                return False
            pk += 4
            i += 2
        if i < m:
            a = _cell(p0, p1, pk)
            acc += dx[h[a]]
            h[a] += 1
    else:
        # acc: sum of 2t over the pairs so far (t the cell's count before), so that
        # acc + m is the bound sum t^2 + (candidates left): one comparison per check
        lim -= m
        while i + 2 <= m:
            a = _cell(p0, p1, pk)
            acc += 2 * h[a]
            h[a] += 1
            b = _cell(p0, p1, pk + 2)
            acc += 2 * h[b]
            h[b] += 1
            if acc > lim:
                MM_COUNT(i)
                return False
            pk += 4
            i += 2
        if i < m:
            a = _cell(p0, p1, pk)
            acc += 2 * h[a]
            h[a] += 1
        acc += m
    MM_COUNT(m)
    if d.injective:                     # acc is the key itself
        out_key[0] = acc
        out_nc[0] = h[wc] == 0
        return True
    return _key_folded(d, h, kind, out_key, out_nc)


cdef enum:
    LANES_MAX = 32          # candidates up to which scans go eight guesses at a time
    LANES_CAP = 7           # largest minmax cap the lanes' count levels can test


cdef enum:
    CLASS_MIN = 33          # candidates from which the scans use _class_bounds
    POLL_PAIRS = 1 << 16    # pairs _scan scores at most between looks at the stop flag


cdef int64_t* _class_bounds(const KData* d, const uint64_t* pk, Py_ssize_t m,
                            int kind) noexcept nogil:
    """A lower bound of the key of every guess, by its colour multiset (a new array of
    d.nms entries: free it), or NULL when not worth it or not possible.

    blacks + whites of a pair depends only on the two codes' colour counts, so for a
    guess of multiset s the candidates with each total t are known from the candidates'
    multisets alone, without scoring them: N_t of them, all in the d.tcells[t] cells of
    total t.  The even spread of every N_t over its cells is the best any guess of s can
    do (every valuation is convex), which bounds the key from below.  The candidates have
    few multisets (a tenth as many at typical nodes), so the table costs little, and it
    rules out most guesses before any pair is scored."""
    cdef uint64_t* cw
    cdef int64_t* cn
    cdef int64_t* out
    cdef Py_ssize_t i, nc = 0
    cdef int s, t
    cdef int64_t N[16]
    cdef int64_t v, x
    cdef uint64_t w
    if d.msid == NULL or not d.injective or d.mode != TWO_WORDS or m < CLASS_MIN:
        return NULL
    cw = <uint64_t*>malloc(m * sizeof(uint64_t))
    cn = <int64_t*>malloc(m * sizeof(int64_t))
    out = <int64_t*>malloc(d.nms * sizeof(int64_t) + 1)
    if cw == NULL or cn == NULL or out == NULL:
        free(cw)
        free(cn)
        free(out)
        return NULL
    for i in range(m):
        cw[i] = pk[2 * i + 1]
    _sort_u64(cw, m)
    for i in range(m):                      # distinct count words, with multiplicities
        if nc > 0 and cw[nc - 1] == cw[i]:
            cn[nc - 1] += 1
        else:
            cw[nc] = cw[i]
            cn[nc] = 1
            nc += 1
    if nc * 3 > m:                          # few repeats: the table would cost too much
        free(cw)
        free(cn)
        free(out)
        return NULL
    for s in range(d.nms):
        w = d.msw[s]
        for t in range(d.n + 1):
            N[t] = 0
        for i in range(nc):
            N[popcount(w & cw[i])] += cn[i]
        v = 0
        for t in range(d.n + 1):
            if N[t] == 0 or d.tcells[t] == 0:
                continue
            x = _even_spread(d, N[t], d.tcells[t], kind)
            if kind != KIND_MINMAX:         # parts of different totals add up ...
                v += x
            elif x > v:                     # ... the largest part is the largest of all
                v = x
        out[s] = v
    free(cw)
    free(cn)
    return out


cdef inline int64_t _limit(const Best* b) noexcept nogil:
    """A guess whose key must exceed this cannot beat ``b`` (nor tie it and win)."""
    if b.nc == 2:
        return INT64_MAX
    return b.key - (b.nc == 0)


ctypedef Py_ssize_t (*ScanFn)(const KData*, int, const int32_t*, Py_ssize_t, const int32_t*,
                             const uint64_t*, Py_ssize_t, Best*, uint32_t, int64_t,
                             const int64_t*, bint) noexcept nogil
# _scan called through a pointer set at import: the compiler cannot inline it into
# _scan_lanes, which would take _eval_narrow out of line in the hot loop (measured 10-20%
# slower scans)
cdef ScanFn _scan_one = NULL


cdef Py_ssize_t _scan_lanes(const KData* d, int kind, const int32_t* guesses, Py_ssize_t ng,
                            const int32_t* c, const uint64_t* pk, Py_ssize_t m, Best* best,
                            uint32_t skip, int64_t floor) noexcept nogil:
    """_scan for few candidates (two-word codes, m <= LANES_MAX): the guesses go eight at
    a time through _lanes, which proves most of them worse than the best so far at a
    fraction of the cost of scoring them one by one; the others are scored by _scan."""
    cdef Py_ssize_t j = 0, poll = 0
    cdef int64_t lim
    cdef int nl, l
    cdef unsigned alive
    cdef int32_t batch[8]
    cdef Py_ssize_t pos[8]
    batch[0] = 0                                # _lanes reads batch[0] even for a batch
    while j < ng:                               # left empty (the last guesses skipped)
        if j >= poll:                           # as in _scan: every POLL_PAIRS pairs
            if _halted(d):
                return ng
            poll = j + POLL_PAIRS // m + 1
        nl = 0
        while j < ng and nl < 8:
            if not (skip and d.colmask[guesses[j]] & skip):
                batch[nl] = guesses[j]
                pos[nl] = j
                nl += 1
            j += 1
        lim = _limit(best)
        if kind == KIND_MINMAX and (lim if lim < m else m) > LANES_CAP:
            alive = (1u << nl) - 1              # counts too high for the lanes' levels
        else:
            alive = _lanes(d.enc, batch, nl, pk, m, kind,
                           lim - m if kind == KIND_EXPECTED else lim, d.dxlogx)
        for l in range(nl):                     # the others: proven worse than the best
            if (alive >> l) & 1:
                _scan_one(d, kind, &batch[l], 1, c, pk, m, best, 0, floor, NULL, False)
                if best.nc == 1 and best.key <= floor:
                    return pos[l] + 1           # this guess reached the floor
    return ng


cdef Py_ssize_t _scan(const KData* d, int kind, const int32_t* guesses, Py_ssize_t ng,
                      const int32_t* c, const uint64_t* pk, Py_ssize_t m, Best* best,
                      uint32_t skip, int64_t floor, const int64_t* lbt,
                      bint lanes) noexcept nogil:
    """Offer every guess of ``guesses`` to ``best`` (see _best), skipping those a bound
    proves worse, and those using a colour of ``skip``.  ``pk``: the packed candidates,
    or NULL to score through indices.  Few candidates: see _scan_lanes (``lanes``).
    ``lbt``: lower bounds of the keys by colour multiset (_class_bounds), or NULL.

    ``floor``: a lower bound on the key of every guess that is not a candidate, given when
    every candidate has been offered already.  A non-candidate reaching it cannot be
    beaten by a later guess (a later non-candidate would tie at best, and lose on the
    index; every candidate is in ``best`` already), so the scan stops there: the position
    after the stop is returned (``ng`` when the scan ran to the end)."""
    cdef uint32_t h[MAX_SLOTS]
    cdef Py_ssize_t j, j0 = 0, j1
    cdef Py_ssize_t step = POLL_PAIRS // m + 1
    cdef int32_t g
    cdef int64_t key
    cdef int nc
    cdef bint fast = pk != NULL and d.mode == TWO_WORDS and d.shift == 3
    if (lanes and fast and HAVE_LANES and m <= LANES_MAX and kind != KIND_PARTS
            and (kind != KIND_ENTROPY or d.ndx >= 9)):  # the lanes read dx[0..8]
        return _scan_lanes(d, kind, guesses, ng, c, pk, m, best, skip, floor)
    # The stop flag is looked at once per run of guesses worth POLL_PAIRS pairs, outside
    # the loop over them: a test in that loop (every 16 guesses) measured 5% slower scans.
    while j0 < ng:
        if _halted(d):
            return ng
        j1 = j0 + step if step < ng - j0 else ng
        for j in range(j0, j1):
            g = guesses[j]
            if skip and d.colmask[g] & skip:
                continue
            if lbt != NULL and lbt[d.msid[g]] > _limit(best):
                continue
            if fast:
                if not _eval_narrow(d, kind, d.enc + 2 * <Py_ssize_t>g, pk, m, _limit(best),
                                    &key, &nc):
                    continue
            else:
                if pk != NULL:
                    _hist_packed(d, g, pk, m, h)
                else:
                    _hist(d, g, c, m, h)
                key = _value(d, h, kind)
                nc = h[d.win] == 0
            if _offer(best, key, nc, g) and nc and key <= floor:
                return j + 1
        j0 = j1
    return ng


_scan_one = _scan


cdef enum:
    BLOCK = 128             # guesses per parallel work item
    PAR_MIN_PAIRS = 1 << 18 # smaller scans are not worth waking threads for


cdef void _scan_parallel(const KData* d, int kind, const int32_t* guesses, Py_ssize_t ng,
                         const int32_t* c, const uint64_t* pk, Py_ssize_t m, Best* best,
                         int threads, uint32_t skip, int64_t floor,
                         const int64_t* lbt) noexcept nogil:
    """_scan split into blocks of guesses over ``threads`` threads.  Every block starts
    from the same seed (``best`` as given, or the best of a sample of the guesses) and
    the blocks' winners are merged in the rule's total order: the result is the
    sequential one whatever the thread count or schedule.  With a ``floor`` (see _scan),
    a block that stops there lets every block after it be skipped: their guesses all
    come later than the one that reached the floor."""
    cdef Py_ssize_t nb = (ng + BLOCK - 1) // BLOCK
    cdef Py_ssize_t b, j, step, stop = nb
    cdef Best seed
    cdef Best* bb
    cdef int32_t sample[16]
    cdef int ns = 0
    if threads <= 1 or ng * m < PAR_MIN_PAIRS or nb < 2:
        _scan(d, kind, guesses, ng, c, pk, m, best, skip, floor, lbt, True)
        return
    bb = <Best*>new_structs(nb, sizeof(Best), False)
    if bb == NULL:
        _scan(d, kind, guesses, ng, c, pk, m, best, skip, floor, lbt, True)
        return
    seed = best[0]
    if seed.nc == 2:                    # no bound yet: the best of a sample
        step = ng // 16 if ng >= 16 else 1
        j = 0
        while j < ng and ns < 16:
            sample[ns] = guesses[j]
            ns += 1
            j += step
        _scan(d, kind, sample, ns, c, pk, m, &seed, skip, INT64_MIN, lbt, True)
        _offer(best, seed.key, seed.nc, seed.g)
        # The sample's best may come later in the order than a block's guesses, so an
        # equal key must stay in play: the blocks start from a stand-in that loses every
        # tie (a non-candidate after every index), the sample's best is merged below.
        seed.nc = 1
        seed.g = INT32_MAX
    for b in prange(nb, num_threads=threads, schedule="dynamic", nogil=True):
        bb[b] = seed
        # a racy read: a stale (larger) stop only costs a block scanned for nothing
        if b <= vread_ssize(&stop):
            if _scan(d, kind, guesses + b * BLOCK,
                     BLOCK if (b + 1) * BLOCK <= ng else ng - b * BLOCK,
                     c, pk, m, &bb[b], skip, floor, lbt, True) < BLOCK:
                _atomic_min_ssize(&stop, b)
    if seed.g != INT32_MAX:
        _offer(best, seed.key, seed.nc, seed.g)
    for b in range(nb):
        if bb[b].nc != 2 and bb[b].g != INT32_MAX:
            _offer(best, bb[b].key, bb[b].nc, bb[b].g)
    free_structs(bb)


cdef int32_t _best(const KData* d, const int32_t* guesses, Py_ssize_t ng,
                   const int32_t* c, Py_ssize_t m, int kind,
                   int64_t* out_key, int* out_cand, int threads) noexcept nogil:
    """The choice rule over ``guesses`` (ascending): best key, then a candidate, then the
    smallest index.  Plain Python::

        min(guesses, key=lambda g: (value(hist(g)), hist(g)[win] == 0, g))

    (a guess is a candidate exactly when it wins against one of the candidates).
    """
    cdef Best best
    cdef uint64_t* pk = NULL
    cdef int64_t* lbt = NULL
    _best_init(&best)
    if d.mode != SCORE_TABLE:
        pk = _new_pack(d, c, m)
        if pk != NULL:
            lbt = _class_bounds(d, pk, m, kind)
    _scan_parallel(d, kind, guesses, ng, c, pk, m, &best, threads, 0, INT64_MIN, lbt)
    free(lbt)
    free(pk)
    out_key[0] = best.key
    out_cand[0] = best.nc == 0
    return best.g



# --------------------------------------------------------------------------- Python API

def best_guess(Kernel kernel, guesses, cands, int kind, int threads=1,
               StopFlag stop=None):
    """(guess, key, is_candidate) by the choice rule; guesses ascending, cands non-empty.
    With a ``stop`` flag the scan can be stopped (then the answer is void) or given a
    deadline (then it is the best of the guesses examined in time, -1 if none)."""
    cdef const int32_t[::1] gs = kernel.rows(guesses)
    cdef const int32_t[::1] c = kernel.rows(cands)
    cdef int64_t key = 0
    cdef int is_cand = 0
    cdef int32_t g
    cdef KData dd = _with_stop(&kernel.d, stop)
    with nogil:
        g = _best(&dd, &gs[0], gs.shape[0], &c[0], c.shape[0], kind, &key, &is_cand,
                  threads if threads > 0 else 1)
    return (kernel.codes(g) if g >= 0 else -1), key, bool(is_cand)


def pairs_scored():
    """Pairs scored by the bounded scans in all threads so far, in a build made with
    ``-DMM_STATS`` (a profiling aid); -1 otherwise."""
    return MM_PAIRS()


def guesses_scored():
    """Guesses the bounded scans started on so far (``-DMM_STATS``
    builds; -1 otherwise): ``pairs_scored() / guesses_scored()`` is the mean scan length."""
    return MM_EVALS()
