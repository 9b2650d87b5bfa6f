# cython: language_level=3
"""Symmetry: the colour and position permutations that map a node of the game onto
itself, and the guesses that are the smallest of their orbit.

Two flavours, for two kinds of callers:

* ``Sym``: the group fixing every guess of a history, for the strategy walk.  A guess
  and its image under such an element have the same partition table up to relabelling,
  so scanning only the smallest code of every orbit picks exactly the full scan's guess
  (the rule's winner is the smallest index of a union of orbits).  Colours never played
  are interchangeable: they are kept out of sigma (255) and relabelled in first-use
  order.
* ``SetSym``: the colour and position transpositions mapping a candidate set onto
  itself, for the exact searches (worst case, optimum), where one guess per orbit is
  enough; colours absent from the set may be merged when every code may be guessed.

Callers guarantee: encoded codes (``KData.digits`` set), indices in range, candidate
sets sorted, a ``SymCtx`` whose ``mark`` array has one zeroed byte per code.
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memcpy, memset

import numpy as np

from mastermind.kernel._core cimport (KData, Kernel, SCORE_TABLE, StopFlag, __builtin_ctz, _halted,
                                      _with_stop)


# --------------------------------------------------------------------------- the group of a history
# A group element (pi, sigma) maps a code x to y with y[pi[p]] = sigma[x[p]].

cdef inline uint32_t _colours_of(const KData* d, int32_t g) noexcept nogil:
    cdef uint32_t mask = 0
    cdef int p
    cdef const uint8_t* x = d.digits + <Py_ssize_t>g * d.n
    for p in range(d.n):
        mask |= 1u << x[p]
    return mask


cdef bint _next_perm(uint8_t* a, int n) noexcept nogil:
    """Next permutation in lexicographic order; False after the last."""
    cdef int i = n - 2, j
    cdef uint8_t t
    while i >= 0 and a[i] >= a[i + 1]:
        i -= 1
    if i < 0:
        return False
    j = n - 1
    while a[j] <= a[i]:
        j -= 1
    t = a[i]; a[i] = a[j]; a[j] = t
    i += 1
    j = n - 1
    while i < j:
        t = a[i]; a[i] = a[j]; a[j] = t
        i += 1
        j -= 1
    return True


cdef bint _extend(const KData* d, const uint8_t* src, uint32_t played, int32_t g,
                  uint8_t* dst) noexcept nogil:
    """dst = src with sigma extended to the colours g brings in, so that it fixes g;
    False when no extension fixes g."""
    cdef const uint8_t* x = d.digits + <Py_ssize_t>g * d.n
    cdef uint8_t* sg = dst + 8
    cdef uint32_t used = 0
    cdef int p
    cdef uint8_t c, t
    memcpy(dst, src, EL)
    for p in range(d.n):
        c = x[p]
        t = x[src[p]]
        if (played >> c) & 1:
            if sg[c] != t:
                return False
        elif sg[c] == 255:
            if (played >> t) & 1 or (used >> t) & 1:
                return False
            sg[c] = t
            used |= 1u << t
        elif sg[c] != t:
            return False
    return True


cdef int _sym_root(const KData* d, const int32_t* hist, Py_ssize_t t, Sym* out) noexcept nogil:
    """The group fixing every guess of ``hist``: all position permutations with the colour
    maps they force.  Returns -1 when out of memory."""
    cdef uint8_t start[EL]
    cdef uint8_t cur[EL]
    cdef uint8_t tmp[EL]
    cdef Py_ssize_t cap = 1, i
    cdef int p
    cdef uint32_t played
    cdef bint ok
    for p in range(2, d.n + 1):
        cap *= p
    out.el = <uint8_t*>malloc(cap * EL)
    out.nel = 0
    if out.el == NULL:
        return -1
    memset(start, 255, EL)
    for p in range(d.n):
        start[p] = <uint8_t>p
    while True:
        played = 0
        memcpy(cur, start, EL)
        ok = True
        for i in range(t):
            if not _extend(d, cur, played, hist[i], tmp):
                ok = False
                break
            memcpy(cur, tmp, EL)
            played |= _colours_of(d, hist[i])
        if ok:
            memcpy(out.el + out.nel * EL, cur, EL)
            out.nel += 1
        if not _next_perm(start, d.n):
            break
    out.played = 0
    for i in range(t):
        out.played |= _colours_of(d, hist[i])
    return 0


cdef int _sym_child(const KData* d, const Sym* s, int32_t g, Sym* out) noexcept nogil:
    """The subgroup of ``s`` that also fixes g."""
    cdef int e
    out.el = <uint8_t*>malloc(s.nel * EL)
    out.nel = 0
    if out.el == NULL:
        return -1
    for e in range(s.nel):
        if _extend(d, s.el + e * EL, s.played, g, out.el + out.nel * EL):
            out.nel += 1
    out.played = s.played | _colours_of(d, g)
    return 0


cdef inline bint _is_canonical(const KData* d, const Sym* s, int32_t g) noexcept nogil:
    """True when g is the smallest code of its orbit under the group ``s``."""
    cdef const uint8_t* x = d.digits + <Py_ssize_t>g * d.n
    cdef uint32_t fr = ((1u << d.k) - 1) & ~s.played
    cdef uint32_t rem
    cdef uint8_t y[8]
    cdef uint8_t relabel[16]
    cdef const uint8_t* pi
    cdef const uint8_t* sg
    cdef int p, e
    cdef uint8_t c
    # identity: free colours must appear as the smallest free ones, in first-use order
    rem = fr
    memset(relabel, 255, 16)
    for p in range(d.n):
        c = x[p]
        if (fr >> c) & 1 and relabel[c] == 255:
            if c != __builtin_ctz(rem):
                return False
            relabel[c] = c
            rem &= rem - 1
    for e in range(1, s.nel):
        pi = s.el + e * EL
        sg = pi + 8
        for p in range(d.n):
            c = x[p]
            y[pi[p]] = c if (fr >> c) & 1 else sg[c]
        rem = fr
        memset(relabel, 255, 16)
        for p in range(d.n):
            c = y[p]
            if (fr >> c) & 1:
                if relabel[c] == 255:
                    relabel[c] = <uint8_t>__builtin_ctz(rem)
                    rem &= rem - 1
                c = relabel[c]
            if c < x[p]:
                return False
            if c > x[p]:
                break
    return True


cdef bint _canonical(const KData* d, const Sym* s, int32_t g) noexcept nogil:
    """_is_canonical for the other modules; _canonical_guesses calls the inline one (this
    out-of-line copy in its loop measured 24% more instructions there)."""
    return _is_canonical(d, s, g)


cdef Py_ssize_t _canonical_guesses(const KData* d, const Sym* s, const int32_t* guesses,
                                   Py_ssize_t ng, int32_t* out) noexcept nogil:
    """out = the guesses that are the smallest of their orbit; returns how many (0 when
    the caller's stop flag ends it early)."""
    cdef Py_ssize_t j, n = 0
    for j in range(ng):
        if (j & 4095) == 0 and _halted(d):
            return 0
        if _is_canonical(d, s, guesses[j]):
            out[n] = guesses[j]
            n += 1
    return n


# --------------------------------------------------------------------------- the classes of a set
# The transpositions of colours (positions) mapping a set onto itself generate a product
# of symmetric groups on classes of colours (positions); only the smallest code of each
# orbit of guesses needs trying.  Requires a guess set closed under those permutations.

cdef inline int64_t _code(const SymCtx* s, int32_t row) noexcept nogil:
    """The code index of a row (the kernel may hold only some codes)."""
    return s.code_of[row] if s.code_of != NULL else row


cdef bint _fixes(SymCtx* s, const int32_t* c, Py_ssize_t m, int a, int b,
                 bint positions) noexcept nogil:
    """Does swapping colours (or positions) a and b map the marked set c onto itself?"""
    cdef Py_ssize_t i
    cdef int p, x, y
    cdef int64_t idx
    cdef const uint8_t* dg
    for i in range(m):
        dg = s.digits + <Py_ssize_t>c[i] * s.n
        idx = _code(s, c[i])
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


cdef void _gen_perms(SetSym* y, int n, const int8_t* pcls, uint8_t* cur, int pos,
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


cdef void _merge_dead(const SymCtx* s, SetSym* y, const int32_t* c,
                      Py_ssize_t m) noexcept nogil:
    """y.dead_other = the colours no code of c has but the smallest, when there are two or
    more of them.  A colour no candidate has scores like a blank wherever it is played,
    so two absent colours are interchangeable inside one guess: all of them can be
    replaced by the smallest one without changing the partition."""
    cdef uint32_t present = 0, full = (<uint32_t>1 << s.k) - 1, dead
    cdef Py_ssize_t i
    cdef int p
    for i in range(m):
        for p in range(s.n):
            present |= (<uint32_t>1) << s.digits[<Py_ssize_t>c[i] * s.n + p]
        if present == full:
            break
    dead = full & ~present
    if dead & (dead - 1):                   # two or more absent colours
        y.dead_other = dead & (dead - 1)    # all but the lowest bit
        y.trivial = 0


cdef void _colour_classes(SymCtx* s, SetSym* y, const int32_t* c,
                          Py_ssize_t m) noexcept nogil:
    """y's colour classes: colours a and b in one class when swapping them maps c (marked
    in s.mark) onto itself."""
    cdef int a, j
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


cdef int _position_classes(SymCtx* s, const int32_t* c, Py_ssize_t m, int8_t* pcls,
                           double* group) noexcept nogil:
    """pcls[p] = the class of position p (positions p and q in one class when swapping
    them maps c, marked in s.mark, onto itself); returns the number of classes, and in
    ``group`` the size of the group they generate."""
    cdef int8_t prep[B_MAXN]
    cdef int8_t psize[B_MAXN]
    cdef int p, j, ncls = 0
    group[0] = 1
    for p in range(s.n):
        for j in range(ncls):
            if _fixes(s, c, m, prep[j], p, True):
                pcls[p] = <int8_t>j
                psize[j] += 1
                group[0] *= psize[j]
                break
        else:
            pcls[p] = <int8_t>ncls
            prep[ncls] = <int8_t>p
            psize[ncls] = 1
            ncls += 1
    return ncls


cdef int _position_perms(SetSym* y, int n, const int8_t* pcls, double group) noexcept nogil:
    """y.perms: every position permutation within the classes pcls but the identity when
    the group is small enough, else the transpositions within a class (a generating
    subset: sound, see _set_canonical).  Returns -1 when out of memory."""
    cdef uint8_t cur[B_MAXN]
    cdef uint8_t used[B_MAXN]
    cdef int p, q, a
    y.perms = <uint8_t*>malloc(B_MAXPERM * n)
    if y.perms == NULL:
        return -1
    if group <= B_MAXPERM:
        memset(used, 0, sizeof(used))
        _gen_perms(y, n, pcls, cur, 0, used)
        return 0
    for p in range(n):
        for q in range(p + 1, n):
            if pcls[p] == pcls[q]:
                for a in range(n):
                    y.perms[y.nperm * n + a] = <uint8_t>a
                y.perms[y.nperm * n + p] = <uint8_t>q
                y.perms[y.nperm * n + q] = <uint8_t>p
                y.nperm += 1
    return 0


cdef int _set_sym_init(SymCtx* s, SetSym* y, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """The colour and position classes of c (transpositions mapping c onto itself), and
    the absent colours merged when allowed.  Returns -1 when out of memory."""
    cdef int8_t pcls[B_MAXN]
    cdef int ncls
    cdef Py_ssize_t i
    cdef double group
    y.trivial = 1
    y.ncol = 0
    y.nperm = 0
    y.perms = NULL
    y.dead_other = 0
    y.sym_col = 0
    if s.merge_dead:
        _merge_dead(s, y, c, m)
    if not s.use_sym:
        return 0
    for i in range(m):
        s.mark[_code(s, c[i])] = 1
    _colour_classes(s, y, c, m)
    ncls = _position_classes(s, c, m, pcls, &group)
    for i in range(m):
        s.mark[_code(s, c[i])] = 0
    if ncls == s.n:
        return 0
    y.sym_col = 1                           # (the orbit test needs the colour classes)
    y.trivial = 0
    return _position_perms(y, s.n, pcls, group)


cdef inline int64_t _colour_canon(const SymCtx* s, const SetSym* y,
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


cdef bint _set_canonical(const SymCtx* s, const SetSym* y, int32_t g) noexcept nogil:
    """Is g the smallest code of its orbit under (a subset containing the identity of) the
    symmetry group?  Every orbit keeps its smallest code, so skipping the others is sound."""
    cdef const uint8_t* dg = s.digits + <Py_ssize_t>g * s.n
    cdef uint8_t tmp[B_MAXN]
    cdef int i, p
    cdef int64_t gi
    if y.trivial:
        return True
    if y.dead_other and s.cmask[g] & y.dead_other:
        return False
    if not y.sym_col:
        return True
    gi = _code(s, g)
    if _colour_canon(s, y, dg) < gi:
        return False
    for i in range(y.nperm):
        for p in range(s.n):
            tmp[p] = dg[y.perms[i * s.n + p]]
        if _colour_canon(s, y, tmp) < gi:
            return False
    return True


cdef Py_ssize_t _canon_key(const SymCtx* s, const SetSym* y, uint8_t* key) noexcept nogil:
    """What _set_canonical reads of y, as bytes (the classes' members follow from ccls)."""
    cdef Py_ssize_t nk = 0
    cdef int i
    memcpy(key, &y.dead_other, 4)
    key[4] = <uint8_t>y.sym_col
    key[5] = <uint8_t>(y.nperm & 255)
    key[6] = <uint8_t>(y.nperm >> 8)
    key[7] = <uint8_t>y.trivial
    nk = 8
    for i in range(s.k):
        key[nk] = <uint8_t>y.ccls[i]
        nk += 1
    if y.nperm:
        memcpy(key + nk, y.perms, y.nperm * s.n)
        nk += y.nperm * s.n
    return nk


cdef const int32_t* _canonical_pool(CanonCache* cc, const SymCtx* s, const SetSym* y,
                                    const int32_t* pool, Py_ssize_t npool,
                                    Py_ssize_t* n) noexcept nogil:
    """The members of ``pool`` that :func:`_set_canonical` keeps under y, in the pool's
    order (``n`` of them), from the cache or made and put there (the least recently used
    list making way); NULL when not cached (a pool past CANON_MAX_POOL, no memory): the
    caller then tests each guess.  The same pool must be passed with every call."""
    cdef uint8_t key[CANON_KEY_MAX]
    cdef Py_ssize_t nk = _canon_key(s, y, key), i, j, cnt = 0
    cdef CanonEntry* e
    cdef int slot = 0
    if npool > CANON_MAX_POOL:
        return NULL
    cc.tick += 1
    for j in range(CANON_SLOTS):
        e = &cc.e[j]
        if e.key != NULL and e.nkey == nk and memcmp(e.key, key, nk) == 0:
            e.used = cc.tick
            cc.hits += 1
            n[0] = e.n
            return e.guesses
        if e.key == NULL or (cc.e[slot].key != NULL and e.used < cc.e[slot].used):
            slot = j
    cc.misses += 1
    e = &cc.e[slot]
    free(e.key)
    free(e.guesses)
    e.key = <uint8_t*>malloc(nk)
    e.guesses = <int32_t*>malloc(npool * sizeof(int32_t) if npool else 1)
    if e.key == NULL or e.guesses == NULL:
        free(e.key)
        free(e.guesses)
        e.key = NULL
        e.guesses = NULL
        return NULL
    memcpy(e.key, key, nk)
    e.nkey = nk
    for i in range(npool):
        if _set_canonical(s, y, pool[i]):
            e.guesses[cnt] = pool[i]
            cnt += 1
    e.n = cnt
    e.used = cc.tick
    n[0] = cnt
    return e.guesses


cdef void _canon_cache_free(CanonCache* cc) noexcept nogil:
    cdef int j
    for j in range(CANON_SLOTS):
        free(cc.e[j].key)
        free(cc.e[j].guesses)
        cc.e[j].key = NULL
        cc.e[j].guesses = NULL


# --------------------------------------------------------------------------- Python API

def canonical_guesses(Kernel kernel, guesses, history, StopFlag stop=None):
    """The guesses (ascending) that are the smallest of their orbit under the group of
    colour and position permutations fixing every guess of ``history``.  With a ``stop``
    flag it can be stopped (the answer is then void)."""
    cdef const int32_t[::1] gs = kernel.rows(guesses)
    cdef const int32_t[::1] hs = kernel.rows(history)
    cdef Sym sym
    cdef Py_ssize_t n = 0, nh = hs.shape[0], ng = gs.shape[0]
    cdef KData dd = _with_stop(&kernel.d, stop)
    out = np.empty(ng, dtype=np.int32)
    cdef int32_t[::1] o = out
    if kernel.mode == SCORE_TABLE:
        raise ValueError("symmetry needs an encoded game")
    sym.el = NULL
    try:
        with nogil:
            if _sym_root(&dd, &hs[0] if nh else NULL, nh, &sym) == 0:
                n = _canonical_guesses(&dd, &sym, &gs[0] if ng else NULL, ng,
                                       &o[0] if ng else NULL)
        if sym.el == NULL:
            raise MemoryError()
        return kernel.codes(out[:n].copy())
    finally:
        free(sym.el)


def group_size(Kernel kernel, history):
    """Number of (position, played-colour) permutation pairs fixing the history (the
    never-played colours, freely interchangeable, are not counted)."""
    cdef const int32_t[::1] hs = kernel.rows(history)
    cdef Sym sym
    cdef Py_ssize_t nh = hs.shape[0]
    cdef int nel
    sym.el = NULL
    with nogil:
        _sym_root(&kernel.d, &hs[0] if nh else NULL, nh, &sym)
        nel = sym.nel
    free(sym.el)
    return nel
