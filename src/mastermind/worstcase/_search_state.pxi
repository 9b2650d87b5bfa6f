# The worst-case search's state (included in _search.pyx, whose cimports it uses: a room of
# the module, not a module; its routines inline): its data (``SData``: the game, the memo,
# the guess pools, the label rows and matrices of d = 3 nodes, the counters), a guess's rank
# (``GuessInfo``), and the small steps every part of the search takes on it: remembering an
# answer (``_memo_store``), polling the stop flag (``_poll``, ``_check_abort``) and the
# guesses a node tries (``_guesses_of``).
#
# Trusts its caller for everything, as the search does: sets sorted and non-empty, buffers
# large enough.
#


cdef enum:
    B_MAXD = 32


cdef struct GuessInfo:
    int64_t key             # entropy key (lower = more informative)
    int32_t guess
    int32_t maxpart         # largest non-winning part
    int32_t notcand         # 0 if the guess is a candidate


cdef struct SData:
    const KData* d          # the game's data, with the stop flag of the current run
    SymCtx sym              # the codes' colours, for the symmetry of each node
    CanonCache canon        # the canonical guesses under the classes seen last
    int canon_off           # test each guess instead (the answers never depend on it)
    Py_ssize_t ncodes
    const int32_t* guesses
    Py_ssize_t ng
    const int32_t* root_pool    # the guesses the next node expanded picks its canonical
    Py_ssize_t root_npool       # ones from (NULL: the whole guess set)
    const int32_t* root_tries   # the root tries only these of its ranked guesses (sorted
    Py_ssize_t root_ntries      # rows; NULL: all), and then proves nothing false of
    const int32_t* root_c       # its set root_c (a guess left out may work there)
    bint root_track             # the next node that tries ranked guesses keeps them in
    int32_t* root_ranked        # root_ranked[0..root_nranked), in the order it tries them,
    Py_ssize_t root_nranked     # and how many of the first it refuted (root_refuted):
    Py_ssize_t root_refuted     # what a run stopped at the root had done there
    int cands_only
    int order               # guess order: a valuation kind (KIND_ENTROPY, KIND_MINMAX...)
    int nonwin              # non-winning slots
    uint8_t** lptr          # d = 3 nodes: lptr[t][i] = slot(guesses[colg[i]], c[t]), a
    Py_ssize_t lptr_cap     # row per code of the node (its label matrix), from the rows below
    const int32_t* colg     # the guess (an index into guesses) of each label column, and
    const int32_t* colof    # the column of each guess: grouped by colour multiset when
    bint ms_cols            # ms_cols (_kill_multisets then rules out whole column groups)
    int ms_off              # no multiset counts (the answers never depend on it)
    const int32_t* colms    # the multiset of each column's guess (ms_cols)
    const int32_t* mstart   # multiset ms's columns: mstart[ms]..mstart[ms + 1] (ms_cols)
    uint8_t* mkill          # per colour multiset: a part past the cap, proved by counting
    uint8_t* mub            # ... and a bound on its guesses' non-winning parts
    int32_t* mcount         # per colour multiset: the node's codes of it (zero between uses)
    int32_t* mseen          # the multisets a node's codes have (scratch, nms entries)
    uint8_t** lrow          # lrow[v]: code v's labels against every guess, made the first
    Py_ssize_t nrows        # time a matrix needs them and kept (nrows: the kernel's rows)
    size_t lrow_bytes       # ... while they take no more than lrow_cap bytes; the rows
    size_t lrow_cap         # past it are made again in lmat at each matrix
    uint8_t* lmat
    size_t lmat_cap
    int matrix_after        # separation checks at a d = 3 node before its matrix is built
    int classes_off         # no classes below (the answers never depend on it)
    uint8_t* ncls           # the d = 3 node being tried: the different labels each guess
    bint ncls_ok            # gives its codes (made with its matrix; ncls_ok: made)
    const int32_t* hint     # the positions in that node's matrix of the part a d = 2
                            # check is about (NULL: none), see _exists
    int counts_off          # d = 3 nodes scan the plain way (the answers never depend on it)
    bint rows_are_guesses   # guesses[i] == i for every row: a guess is its label column
    uint8_t* gstats         # the d = 3 node being ranked, per guess (3 x ng bytes): its
    bint gstats_ok          # largest part, its parts, whether it wins (made from the
                            # node's matrix; gstats_ok: made, the matrix still the node's)
    uint32_t* gwant         # per group of 32 columns: the canonical guesses (a bit each)
    uint32_t* gscan         # ... those the scan counts (not ruled out by their multiset)
    uint8_t* gfull          # ... and whether the group's scan went to the end
    Memo memo               # exact sets: lo = largest d proved false, hi = smallest true
    int64_t nodes
    int64_t leaves          # d = 2 separation checks actually scanned
    int64_t hits
    int64_t at_depth[B_MAXD]    # nodes expanded with d guesses left
    int64_t false_cheap         # expanded nodes refuted in phase 1 (no guess survives)
    int64_t ms_groups           # groups of 32 label columns ruled out by their multisets
    int64_t scanned             # guesses scanned in phase 1
    int64_t scores              # scores computed in phase 1
    int64_t sizes               # sum of m over expanded nodes
    int64_t node_limit
    int aborted             # why the last run stopped: STOP_NONE (it did not), the stop
                            # flag's reason, STOP_NODE_LIMIT or STOP_MEMORY


cdef inline void _memo_store(SData* s, const int32_t* c, Py_ssize_t m, uint64_t h,
                             int d, int r, int32_t guess) noexcept nogil:
    cdef MemoEntry* e = _memo_find(&s.memo, c, m, 0, h, True)
    if e == NULL:
        return
    if r == 1 and d < e.hi:
        e.hi = <int8_t>d
        e.guess = guess
    elif r == 0 and d > e.lo:
        e.lo = <int8_t>d


cdef inline bint _poll(SData* s) noexcept nogil:
    """Look at the stop flag and its deadline (within a node's long scans)."""
    if s.aborted == STOP_NONE:
        s.aborted = _stop_reason(s.d)
    return s.aborted != STOP_NONE


cdef inline bint _check_abort(SData* s, bint expensive) noexcept nogil:
    """Count a node; look at the stop flag, its deadline and the budget at every
    expensive node (a full guess scan) and every 256 cheap ones."""
    s.nodes += 1
    if s.aborted != STOP_NONE:
        return True
    if expensive or (s.nodes & 255) == 0:
        s.aborted = _stop_reason(s.d)
        if s.aborted == STOP_NONE and s.node_limit > 0 and s.nodes >= s.node_limit:
            s.aborted = STOP_NODE_LIMIT
    return s.aborted != STOP_NONE


cdef inline const int32_t* _guesses_of(SData* s, const SetSym* y, Py_ssize_t* n,
                                       bint* check) noexcept nogil:
    """The guesses a node with classes y scans: the whole guess set, or (when y has
    symmetry) its canonical members from the cache; ``check``: whether each must still be
    tested with _set_canonical (no list was cached)."""
    cdef const int32_t* lst
    n[0] = s.ng
    check[0] = False
    if y.trivial:
        return s.guesses
    lst = NULL if s.canon_off else _canonical_pool(&s.canon, &s.sym, y, s.guesses, s.ng, n)
    if lst != NULL:
        return lst
    n[0] = s.ng
    check[0] = True
    return s.guesses


cdef inline int _cmp_guess(const void* a, const void* b) noexcept nogil:
    cdef const GuessInfo* x = <const GuessInfo*>a
    cdef const GuessInfo* y = <const GuessInfo*>b
    if x.key != y.key:
        return -1 if x.key < y.key else 1
    if x.notcand != y.notcand:
        return x.notcand - y.notcand
    if x.maxpart != y.maxpart:
        return x.maxpart - y.maxpart
    return (x.guess > y.guess) - (x.guess < y.guess)


cdef enum:
    RANK_REFUTED = -1       # _rank: counting alone refutes the node
    RANK_STOPPED = -2       # _rank: the search was stopped
