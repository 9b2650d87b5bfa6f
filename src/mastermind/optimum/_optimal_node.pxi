# The optimal search's state and the small steps on it (included in _optimal.pyx, whose
# cimports it uses: a room of the module, not a module; its routines inline): the search's
# data (``OData``), a node's guess list (``Guesses``), a guess's place in the order
# (``Info``, ``_before``), a general node (``Node``: ``_node_open``, ``_node_close``,
# ``_skipped``, ``_bring_next``), a guess's parts by score (``_parts_by_slot``), the tree's
# records (``_record``) and a worker's memo handed to the main one (``_adopt``).  The
# recursive search itself (``_solve``, ``_node``, ``_explore``, the parts side by side)
# stays in _optimal.pyx.
#
# Trusts its caller for everything, as the search does: sets sorted and non-empty, buffers
# large enough.
#


cdef enum:
    NO_LIMIT = 100          # guesses left when there is no limit
    MASKS_MAX = 40          # codes up to which a node bounds its guesses by parts first
    PAR_MIN = 1500          # codes from which a node's parts are solved side by side
    KILLERS = 8             # splitting guesses remembered (OData.killers)
    SCAN_FLOOR = 60         # parts of at least this many codes get a depth-1 floor
    FLOOR_NODE = 300        # ... when their guess is explored at a node of this many
                            # codes or more that has a best total already, and
    FLOOR_ALWAYS = 2000     # the node has this many codes or more, or no guess makes
    FLOOR_PARTS = 13        # more non-winning parts than this on it (measured)
    SMALL_PART = 20         # parts of at most this many codes are solved first, the
                            # larger of them first (_parts_by_slot)


# The guesses a node scans (one per orbit of its history's group), made when first
# needed and shared by the children of one guess.
cdef struct Guesses:
    Sym sym
    const int32_t* gl
    Py_ssize_t ngl
    int32_t* own            # gl when allocated here (free it)
    int ready


cdef struct Info:
    int64_t lb              # the guess's bound (from its part count alone, until exact)
    int64_t key2            # sum of squared part sizes (when exact)
    int32_t notcand
    int32_t g
    int32_t exact           # lb and key2 from its part sizes
    int32_t row             # its part sizes: hist[row * cells ...]


cdef struct Node


cdef struct OData:
    const KData* d
    const int32_t* guesses  # every guess, ascending
    Py_ssize_t ng
    int cands_only
    int use_sym
    int blanks_ok           # every code may be guessed: colours absent from S merge
    int by_blacks           # a two-word game scored by blacks alone (black-peg): its
                            # cell masks fold to slot masks byte by byte (_fold_blacks)
    int limited             # a limit on the guesses: the memo's tag is the guesses left
    int32_t first           # the root's guess, when fixed (-1: free)
    Memo memo
    int64_t nodes           # general nodes (a scan of the guesses)
    int64_t obvious         # sets settled by the obvious rules
    int64_t hits            # memo answers
    int64_t scanned         # guesses scanned
    int64_t explored        # guesses explored (their parts solved)
    int aborted             # why the search stopped: STOP_NONE (it did not), the stop
                            # flag's reason, STOP_MEMORY, STOP_CANCELLED (a worker)
    int64_t root_lower      # after a stop: a proved lower bound at the root
    int64_t root_done       # progress: the root's guesses tried (or ruled out) so far
    int64_t root_total      # ... of these (0 until the root's scan is done)
    int32_t* rec            # the tree: records of REC ints
    Py_ssize_t nrec
    Py_ssize_t caprec
    int threads             # the main search: workers solving the parts of big nodes
    Py_ssize_t par_min      # ... nodes of at least this many codes
    OData* workers          # (threads of them), NULL: one thread
    const Memo* shared      # a worker: the main search's memo, read besides its own
    int* cancel             # a worker: set when the part it solves no longer matters
    int32_t* want           # the answer whose guess is wanted (_build): no shortcut
    int32_t killers[KILLERS]    # the latest guesses found splitting a set into singletons
    int nkillers
    int64_t floors          # parts bounded by a scan of their own (_scan_floor)
    int64_t floor_cuts      # ... whose floor refuted their guess
    Node* ready             # for the next _solve only: its set's scan, made by its floor
    int canon               # sets are also remembered by their images (_optimal_canon)
    int64_t canon_hits      # answers found under a set's image


cdef inline bint _before(const Info* x, const Info* y) noexcept nogil:
    """The order guesses are tried in: bound, sum of squared part sizes, candidates
    first, index.  A guess whose bound is not exact yet comes before every exact one
    with the same bound (its exact key can only be larger)."""
    if x.lb != y.lb:
        return x.lb < y.lb
    if x.exact != y.exact:
        return x.exact < y.exact
    if x.key2 != y.key2:
        return x.key2 < y.key2
    if x.notcand != y.notcand:
        return x.notcand < y.notcand
    return x.g < y.g


cdef inline int _ensure(OData* o, Guesses* gs) noexcept nogil:
    """Make the canonical guess list of gs when it is first needed; -1 when it cannot be
    made (o.aborted says why: out of memory, or a stop that cut the list short: a short
    list would read as "no guess works", a false proof, so it is never used)."""
    if gs.ready:
        return 0
    if o.use_sym and not o.cands_only and not _sym_trivial(o.d, &gs.sym):
        if gs.own == NULL:
            gs.own = <int32_t*>malloc(o.ng * sizeof(int32_t) + 1)
        if gs.own == NULL:
            o.aborted = STOP_MEMORY
            return -1
        gs.ngl = _canonical_guesses(o.d, &gs.sym, o.guesses, o.ng, gs.own)
        gs.gl = gs.own
        if _halted(o.d):
            o.aborted = _stop_reason(o.d)
            return -1
    else:
        gs.gl = o.guesses
        gs.ngl = o.ng
    gs.ready = 1
    return 0


cdef inline uint32_t _blank_skip(const OData* o, const int32_t* c,
                                 Py_ssize_t m) noexcept nogil:
    """Colours no candidate has, but the smallest: a guess using them is skipped (it
    partitions S as the same guess with the smallest absent colour, a smaller index)."""
    return _absent_but_smallest(o.d, c, m) if o.blanks_ok else 0


cdef inline bint _few(const OData* o, Py_ssize_t m) noexcept nogil:
    """Whether a node of m codes scans its guesses by part counts first (_node)."""
    return ((o.d.injective or o.by_blacks) and o.d.mode == TWO_WORDS and o.d.shift == 3
            and m <= MASKS_MAX and (m if o.cands_only else o.ng) > 8)


cdef inline bint _scored_by_blacks(const KData* d) noexcept nogil:
    """Whether the slot of every possible cell (blacks << 3) + blacks + whites of a
    two-word game is a function of its blacks alone, one slot per number of blacks (the
    black-peg variant): a mask of the cells a guess makes then says its slots by bytes."""
    cdef int c, b, e
    if d.injective or d.mode != TWO_WORDS or d.shift != 3:
        return False
    for c in range(d.cells):
        if d.fold[c] == DUMMY:
            continue
        b = c >> 3
        if d.fold[c] != d.fold[(b << 3) + b]:
            return False
        for e in range(b):
            if d.fold[(e << 3) + e] == d.fold[c]:
                return False
    return True


cdef inline uint64_t _fold_blacks(uint64_t x) noexcept nogil:
    """A mask of cells (bit (blacks << 3) + blacks + whites) as a mask of blacks: bit
    blacks << 3 set when any cell of that many blacks is."""
    x |= x >> 4
    x |= x >> 2
    x |= x >> 1
    return x & 0x0101010101010101ULL


cdef inline void _adopt(Memo* into, Memo* frm) noexcept nogil:
    """Move every entry of ``frm`` into ``into`` (keeping what each knows), emptying frm."""
    cdef Py_ssize_t i
    cdef MemoEntry* src
    cdef MemoEntry* dst
    for i in range(frm.cap):
        src = &frm.tab[i]
        if src.cset == NULL:
            continue
        dst = _memo_find(into, src.cset, src.m, src.tag, src.h, True)
        if dst != NULL:
            if src.value >= 0 and dst.value < 0:
                dst.value = src.value
                dst.guess = src.guess
            if src.lower > dst.lower:
                dst.lower = src.lower
        free(src.cset)
        src.cset = NULL
    frm.used = 0
    frm.mem = frm.cap * sizeof(MemoEntry)


cdef struct Node:
    # One general node of _solve: its set, the guesses its scan kept, its answer so far.
    const int32_t* c
    Py_ssize_t m
    int dl                  # guesses left
    int64_t limit
    int b                   # the parent's bound on the non-winning parts a guess makes
    bint root
    bint fixed              # the root's guess is given (o.first)
    bint cells              # part sizes by cell (an injective two-word game), else by slot
    int nc                  # entries of a row of part sizes: cells or slots
    int win_j               # the winning entry of a row
    const int32_t* pool     # the guesses to scan
    Py_ssize_t npool
    uint32_t skip           # colours whose guesses are skipped (_blank_skip)
    bint csym               # candidates only: one candidate per orbit of the history's group
    Info* info              # the guesses kept: info[0..ninfo)
    Py_ssize_t ninfo
    uint32_t* hist          # their part sizes (the general scan): hist[row * nc ...]
    int64_t* estt           # estt[p]: the estimate of a part of p codes
    int32_t* parts          # the codes of one guess's parts
    uint64_t* pk            # the packed candidates (NULL for a score table)
    Hist64 hc               # 64 zeroed cells of scratch
    int bnode               # the node's best part count
    int64_t lb0             # the node's lower bound before its scan
    int64_t best            # the least total found (the limit until one is)
    int32_t best_g          # its guess (-1: none)
    int64_t node_lb         # a lower bound of the totals the node ruled out
    int64_t settled         # the node's total when a few-code rule decides it (-1: none)


cdef inline bint _node_open(OData* o, Node* nd, const int32_t* c, Py_ssize_t m, int dl,
                            int64_t limit, int b, Guesses* gs, bint root, int64_t lb0) noexcept nogil:
    """Set up the node: its pool of guesses and its buffers; False when memory runs out
    (then o.aborted is set; _node_close frees what was made)."""
    cdef const KData* d = o.d
    cdef bint few = _few(o, m)
    cdef int j
    memset(nd, 0, sizeof(Node))
    nd.c = c
    nd.m = m
    nd.dl = dl
    nd.limit = limit
    nd.b = b
    nd.root = root
    nd.fixed = root and o.first >= 0
    nd.lb0 = lb0
    nd.best = limit
    nd.best_g = -1
    nd.node_lb = INF
    nd.settled = -1
    # the scan counts cells (blacks << 3) + blacks + whites when they are the slots,
    # else the slots themselves
    nd.cells = d.injective and d.mode == TWO_WORDS and d.shift == 3
    nd.nc = d.ncl if nd.cells else d.nslots
    nd.win_j = -1
    for j in range(nd.nc):
        if (nd.cells and d.clist[j] == (d.n << 3) + d.n) or (not nd.cells and j == d.win):
            nd.win_j = j
    nd.pool = c if o.cands_only else gs.gl
    nd.npool = m if o.cands_only else gs.ngl
    nd.skip = 0 if o.cands_only else _blank_skip(o, c, m)
    # candidates only: one candidate per orbit of the history's group (the group maps the
    # set onto itself, so a candidate's orbit holds candidates, all of one total)
    nd.csym = (o.use_sym and o.cands_only and not nd.fixed
               and not _sym_trivial(d, &gs.sym))
    if nd.fixed:                            # the opening is given
        nd.pool = &o.first
        nd.npool = 1
        nd.skip = 0
    nd.info = <Info*>new_structs(nd.npool + 1, sizeof(Info), False)
    nd.hist = <uint32_t*>malloc(((0 if few else nd.npool) + 1) * nd.nc * sizeof(uint32_t))
    nd.estt = <int64_t*>malloc((m + 1) * sizeof(int64_t))
    nd.parts = <int32_t*>malloc(m * sizeof(int32_t) + 1)
    nd.pk = _new_pack(d, c, m) if d.mode != SCORE_TABLE else NULL
    if (nd.info == NULL or nd.hist == NULL or nd.estt == NULL or nd.parts == NULL
            or (d.mode != SCORE_TABLE and nd.pk == NULL)):
        o.aborted = STOP_MEMORY
        return False
    return True


cdef inline void _node_adopt(Node* nd, Node* ready, int64_t limit, int64_t lb0) noexcept nogil:
    """Take the scan a part's floor made (_scan_floor: no limit, the same set, guesses
    left and part bound) as this node's, ``ready`` emptied: its guesses kept only below
    ``limit`` (a guess dropped here would have been dropped, or never explored, by the
    node's own scan)."""
    cdef Py_ssize_t i, j = 0
    nd[0] = ready[0]
    memset(ready, 0, sizeof(Node))
    nd.limit = limit
    nd.best = limit
    nd.lb0 = lb0
    for i in range(nd.ninfo):
        if nd.info[i].lb >= limit:
            if nd.info[i].lb < nd.node_lb:
                nd.node_lb = nd.info[i].lb
        else:
            nd.info[j] = nd.info[i]
            j += 1
    nd.ninfo = j


cdef inline void _node_close(Node* nd) noexcept nogil:
    free(nd.pk)
    free(nd.parts)
    free(nd.estt)
    free(nd.hist)
    free_structs(nd.info)


cdef inline bint _skipped(const OData* o, const Node* nd, Guesses* gs,
                          int32_t g) noexcept nogil:
    """Whether the scan passes over guess g: it uses a colour merged away (nd.skip), or it
    is a candidate that is not the smallest of its orbit (nd.csym)."""
    return ((nd.skip and o.d.colmask[g] & nd.skip)
            or (nd.csym and not _canonical(o.d, &gs.sym, g)))


cdef inline void _bring_next(const OData* o, Node* nd, Py_ssize_t i) noexcept nogil:
    """Move the next guess in the order (_before) to info[i]: the first of info[i..],
    whose bound, when only estimated from its part count and still below the best, is
    first made exact from its part sizes, with every other estimate equal to it (then
    the order is looked at again).  The guesses after i whose bound reaches the best are
    dropped from the list (nd.ninfo shrinks; their least bound goes to nd.node_lb)."""
    cdef uint32_t row[MAX_SLOTS]
    cdef Py_ssize_t t, j, w, n
    cdef Info* info = nd.info
    cdef Info first
    cdef int64_t lb
    while True:
        t = i                               # the smallest key, an unrefined bound first
        first = info[i]                     # at a tie (the first so far held by value:
        w = i + 1                           # compared in registers); the guesses whose
        for j in range(i + 1, nd.ninfo):    # bound reached the best are dropped (none
            if info[j].lb >= nd.best:       # would be tried), their least bound kept
                if info[j].lb < nd.node_lb:
                    nd.node_lb = info[j].lb
                continue
            if j != w:
                info[w] = info[j]
            if _before(&info[w], &first):
                t = w
                first = info[w]
            w += 1
        nd.ninfo = n = w
        if first.exact or first.lb >= nd.best:
            break
        # Every unrefined guess of this least bound L comes before every exact one of
        # bound L, and refining only raises a bound: all of them are refined before a
        # guess of bound L or more is chosen.  So they are refined in one pass (the same
        # guesses as one at a time, one scan of the list instead of one each).
        lb = first.lb
        for j in range(i, n):
            if not info[j].exact and info[j].lb == lb:
                _row(o.d, info[j].g, nd.pk, nd.c, nd.m, nd.cells, nd.hc.c, row)
                info[j].lb = _bound(row, nd.nc, nd.win_j, nd.m, nd.estt, &info[j].key2)
                info[j].exact = 1
    if t != i:
        info[t] = info[i]
        info[i] = first


cdef inline int _part_key(uint32_t size) noexcept nogil:
    """Parts are solved by increasing key: those of at most SMALL_PART codes first, the
    larger of them first (the likeliest to cost more than their floor, each a scan or
    two), then the others, the smaller first (their limits narrowed by the rest)."""
    return <int>size if size > SMALL_PART else -<int>size


cdef inline int _parts_by_slot(const KData* d, int32_t g, const int32_t* c, Py_ssize_t m,
                               uint32_t* row, Py_ssize_t* off, int32_t* parts,
                               int* order) noexcept nogil:
    """The parts of guess g on c (``_split_by_slot``), and order[0..n) the
    non-winning ones in the order they are solved (_part_key); returns n."""
    cdef int s, a, j, nparts = 0, ns = d.nslots
    _split_by_slot(d, g, c, m, row, off, parts, NULL, NULL)
    for s in range(ns):
        if s != d.win and row[s]:
            order[nparts] = s
            nparts += 1
    for a in range(1, nparts):
        j = a
        while j > 0 and _part_key(row[order[j - 1]]) > _part_key(row[order[j]]):
            s = order[j - 1]
            order[j - 1] = order[j]
            order[j] = s
            j -= 1
    return nparts


cdef inline void _remember_split(OData* o, int32_t g) noexcept nogil:
    """Put guess g, just found splitting a set into singletons, first among o.killers."""
    cdef int i = 0, j
    while i < o.nkillers and o.killers[i] != g:
        i += 1
    if i == o.nkillers:
        if o.nkillers < KILLERS:
            o.nkillers += 1
        i = o.nkillers - 1
    for j in range(i, 0, -1):
        o.killers[j] = o.killers[j - 1]
    o.killers[0] = g


cdef inline bint _killed(OData* o, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """Whether one of the splitting guesses remembered splits c into singletons (it is
    then put first)."""
    cdef int i
    cdef int32_t g
    for i in range(o.nkillers):
        g = o.killers[i]
        if _splits_all(o.d, g, c, m):
            if i:
                _remember_split(o, g)
            return True
    return False


cdef inline Py_ssize_t _record(OData* o, Py_ssize_t parent, int slot, int32_t guess,
                               Py_ssize_t size, int depth) noexcept nogil:
    cdef Py_ssize_t i = _append_record(&o.rec, &o.nrec, &o.caprec, parent, slot, guess,
                                       size, depth)
    if i < 0:
        o.aborted = STOP_MEMORY
    return i
