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

With AVX-512 or AVX2 and k <= 16, two-word codes also have *byte forms* (``benc``): a byte per
position (its colour) and a byte per colour (its count), from which eight pairs are scored
by one byte compare and one bytewise minimum (mm_count64b).

A score is reported as its *slot*: ``slot_tab[(blacks << 4) | (blacks + whites)]``.
"""

from libc.stdint cimport (int32_t, int64_t, uint8_t, uint32_t, uint64_t, INT32_MAX,
                          INT64_MAX, INT64_MIN)
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset
from libc.math cimport log2
from cython.parallel cimport prange

import numpy as np

cdef extern from *:
    """
    #define MM_POPCOUNT(x) ((int)__builtin_popcountll(x))
    #define MM_ATOMIC_ADD(p, x) __atomic_fetch_add((p), (x), __ATOMIC_RELAXED)
    static int mm_cmp_u64(const void* a, const void* b) {
        uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
        return (x > y) - (x < y);
    }
    static void mm_sort_u64(uint64_t* v, Py_ssize_t m) {
        qsort(v, (size_t)m, sizeof(uint64_t), mm_cmp_u64);
    }
    #define MM_VREAD_SSIZE(p) __atomic_load_n((p), __ATOMIC_RELAXED)
    static inline void mm_atomic_min_ssize(Py_ssize_t* p, Py_ssize_t x) {
        Py_ssize_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
        while (x < old && !__atomic_compare_exchange_n(p, &old, x, 1, __ATOMIC_RELAXED,
                                                       __ATOMIC_RELAXED)) {}
    }
    /* Eight guesses scored side by side against the same candidates, one 64-bit lane
       each (AVX-512): the lanes' partition counts are kept bit-sliced, level j being the
       set of cells (one bit each) whose count exceeds j, so a pair costs a few vector
       operations and no memory traffic.  Returns the lanes whose key may still be at most
       lim; the others are proven worse: minmax, a count above cap; entropy and expected
       size, a partial sum above lim (counts beyond 2 taken as 2, which keeps it a lower
       bound since the increments dx grow with the count: two levels measured faster
       than eight, the cheaper steps outweighing the later rejections).  lim is pre-shifted by the
       caller for expected size (see _eval_narrow). */
    #if defined(__AVX512BW__)
    #include <immintrin.h>
    #define MM_HAVE_LANES 1
    static inline __attribute__((always_inline)) unsigned mm_lanes_body(
            const uint64_t* enc, const int32_t* gs, int nl, const uint64_t* pk, Py_ssize_t m,
            int kind, int cap, int64_t lim, const int64_t* dx, const int nlev) {
        const __m512i lut = _mm512_broadcast_i32x4(
            _mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
        const __m512i low = _mm512_set1_epi8(0x0f), zero = _mm512_setzero_si512();
        const __m512i one = _mm512_set1_epi64(1);
        const __m512i limv = _mm512_set1_epi64(lim);
        uint64_t w0[8], w1[8];
        __m512i L[8], dl[8], acc = zero;
        unsigned alive = (1u << nl) - 1;
        for (int l = 0; l < 8; l++) {
            int32_t g = gs[l < nl ? l : 0];
            w0[l] = enc[2 * (Py_ssize_t)g];
            w1[l] = enc[2 * (Py_ssize_t)g + 1];
            L[l] = zero;
            dl[l] = _mm512_set1_epi64(kind == 1 ? dx[l + 1] - dx[l] : 2);
        }
        const __m512i G0 = _mm512_loadu_si512((const void*)w0);
        const __m512i G1 = _mm512_loadu_si512((const void*)w1);
        for (Py_ssize_t i = 0; i < m; i++) {
            __m512i a = _mm512_and_si512(_mm512_set1_epi64((long long)pk[2 * i]), G0);
            __m512i b = _mm512_and_si512(_mm512_set1_epi64((long long)pk[2 * i + 1]), G1);
            __m512i pa = _mm512_add_epi8(
                _mm512_shuffle_epi8(lut, _mm512_and_si512(a, low)),
                _mm512_shuffle_epi8(lut, _mm512_and_si512(_mm512_srli_epi16(a, 4), low)));
            __m512i pb = _mm512_add_epi8(
                _mm512_shuffle_epi8(lut, _mm512_and_si512(b, low)),
                _mm512_shuffle_epi8(lut, _mm512_and_si512(_mm512_srli_epi16(b, 4), low)));
            __m512i cell = _mm512_sad_epu8(_mm512_add_epi8(_mm512_slli_epi16(pa, 3), pb), zero);
            __m512i bit = _mm512_sllv_epi64(one, cell);
            __mmask8 dead;
            if (kind == 0) {
                for (int j = nlev - 1; j >= 1; j--)
                    L[j] = _mm512_or_si512(L[j], _mm512_and_si512(L[j - 1], bit));
                L[0] = _mm512_or_si512(L[0], bit);
                dead = _mm512_test_epi64_mask(L[cap], L[cap]);
            } else {
                for (int j = nlev - 1; j >= 0; j--) {
                    __m512i t = _mm512_and_si512(L[j], bit);
                    acc = _mm512_mask_add_epi64(acc, _mm512_test_epi64_mask(t, t), acc, dl[j]);
                    if (j + 1 < nlev)
                        L[j + 1] = _mm512_or_si512(L[j + 1], t);
                }
                L[0] = _mm512_or_si512(L[0], bit);
                dead = _mm512_cmpgt_epi64_mask(acc, limv);
            }
            alive &= ~(unsigned)dead;
            if (!alive)
                return 0;
        }
        return alive;
    }
    /* The cells (blacks << 3) + blacks + whites of guess (g0, g1) against n two-word
       codes (interleaved, n a multiple of 8), one byte each: byte popcounts by a nibble
       table, the position bytes weighted 8, one sum of absolute differences per word. */
    static inline void mm_cells8(uint64_t g0, uint64_t g1, const uint64_t* pk, Py_ssize_t n,
                                 uint8_t* out) {
        const __m512i lut = _mm512_broadcast_i32x4(
            _mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
        const __m512i low = _mm512_set1_epi8(0x0f), zero = _mm512_setzero_si512();
        const __m512i G = _mm512_set_epi64((long long)g1, (long long)g0, (long long)g1,
                                           (long long)g0, (long long)g1, (long long)g0,
                                           (long long)g1, (long long)g0);
        const __m512i even = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0);
        for (Py_ssize_t i = 0; i < n; i += 8) {
            __m512i s[2];
            for (int h = 0; h < 2; h++) {
                __m512i a = _mm512_and_si512(
                    _mm512_loadu_si512((const void*)(pk + 2 * i + 8 * h)), G);
                __m512i p = _mm512_add_epi8(
                    _mm512_shuffle_epi8(lut, _mm512_and_si512(a, low)),
                    _mm512_shuffle_epi8(lut, _mm512_and_si512(_mm512_srli_epi16(a, 4), low)));
                p = _mm512_mask_slli_epi16(p, 0x0F0F0F0F, p, 3);   /* position words x 8 */
                p = _mm512_sad_epu8(p, zero);
                s[h] = _mm512_add_epi64(p, _mm512_shuffle_epi32(p, (_MM_PERM_ENUM)0x4E));
            }
            _mm_storel_epi64((__m128i*)(out + i),
                             _mm512_cvtepi64_epi8(_mm512_permutex2var_epi64(s[0], even, s[1])));
        }
    }
    /* Add to h the cells of guess (g0, g1) against n <= 64 interleaved two-word codes
       (read in whole groups of eight: the array is padded): the 64 cells are compared
       at once with each of the ncl cells a pair can land in (cl), and the matches
       counted, so no count waits on another. */
    static inline void mm_count64(uint64_t g0, uint64_t g1, const uint64_t* pk, Py_ssize_t n,
                                  const uint8_t* cl, int ncl, uint32_t* h) {
        uint8_t cb[64] __attribute__((aligned(64)));
        mm_cells8(g0, g1, pk, (n + 7) & ~(Py_ssize_t)7, cb);
        const __m512i v = _mm512_load_si512((const void*)cb);
        const __mmask64 valid = n >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
        for (int k = 0; k < ncl; k++)
            h[cl[k]] += (uint32_t)__builtin_popcountll(
                _mm512_mask_cmpeq_epi8_mask(valid, v, _mm512_set1_epi8((char)cl[k])));
    }
    /* As mm_count64 from the byte forms of the codes (k <= 16): D, a byte per position
       (the colour; 0xFF past n, 0xFE in the guess), and K, a byte per colour (its
       count; H for colours 9 to 16, NULL when k <= 8).  Blacks are the equal bytes of D, blacks + whites the sum of the bytewise
       minimum of K: a compare, a masked move, a minimum, an add and one sum of absolute
       differences give the cells of eight codes. */
    static inline void mm_count64b(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                                   const uint64_t* K, const uint64_t* H, Py_ssize_t n,
                                   const uint8_t* cl, int ncl, uint32_t* h) {
        uint8_t cb[64] __attribute__((aligned(64)));
        const __m512i GD = _mm512_set1_epi64((long long)gD);
        const __m512i GK = _mm512_set1_epi64((long long)gK);
        const __m512i GH = _mm512_set1_epi64((long long)gH);
        const __m512i eight = _mm512_set1_epi8(8), zero = _mm512_setzero_si512();
        for (Py_ssize_t i = 0; i < n; i += 8) {
            __mmask64 eq = _mm512_cmpeq_epi8_mask(_mm512_loadu_si512((const void*)(D + i)), GD);
            __m512i t = _mm512_min_epu8(_mm512_loadu_si512((const void*)(K + i)), GK);
            if (H)                      /* colours 9 to 16 */
                t = _mm512_add_epi8(t, _mm512_min_epu8(
                    _mm512_loadu_si512((const void*)(H + i)), GH));
            __m512i cell = _mm512_sad_epu8(_mm512_mask_add_epi8(t, eq, t, eight), zero);
            _mm_storel_epi64((__m128i*)(cb + i), _mm512_cvtepi64_epi8(cell));
        }
        const __m512i v = _mm512_load_si512((const void*)cb);
        const __mmask64 valid = n >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
        for (int k = 0; k < ncl; k++)
            h[cl[k]] += (uint32_t)__builtin_popcountll(
                _mm512_mask_cmpeq_epi8_mask(valid, v, _mm512_set1_epi8((char)cl[k])));
    }
    #define MM_HAVE_COUNT64 1
    #define MM_SIMD "avx512"
    #elif defined(__AVX2__)
    /* The same kernels for AVX2: two 256-bit halves of four lanes, compare results as
       vectors instead of mask registers. */
    #include <immintrin.h>
    #define MM_HAVE_LANES 1
    #define MM_HAVE_COUNT64 0
    #define MM_SIMD "avx2"
    static inline __m256i mm_popbytes256(__m256i a, __m256i lut, __m256i low) {
        return _mm256_add_epi8(
            _mm256_shuffle_epi8(lut, _mm256_and_si256(a, low)),
            _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(a, 4), low)));
    }
    static inline unsigned mm_nonzero4(__m256i v) {   /* lanes of v that are not zero */
        return ~(unsigned)_mm256_movemask_pd(
            _mm256_castsi256_pd(_mm256_cmpeq_epi64(v, _mm256_setzero_si256()))) & 15u;
    }
    static inline __attribute__((always_inline)) unsigned mm_lanes_body(
            const uint64_t* enc, const int32_t* gs, int nl, const uint64_t* pk, Py_ssize_t m,
            int kind, int cap, int64_t lim, const int64_t* dx, const int nlev) {
        const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                             0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
        const __m256i low = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
        const __m256i one = _mm256_set1_epi64x(1);
        const __m256i limv = _mm256_set1_epi64x(lim);
        uint64_t w0[8], w1[8];
        __m256i L[2][8], dl[8], acc[2] = {zero, zero}, G0[2], G1[2];
        unsigned alive = (1u << nl) - 1;
        for (int l = 0; l < 8; l++) {
            int32_t g = gs[l < nl ? l : 0];
            w0[l] = enc[2 * (Py_ssize_t)g];
            w1[l] = enc[2 * (Py_ssize_t)g + 1];
            L[0][l] = zero;
            L[1][l] = zero;
            dl[l] = _mm256_set1_epi64x(kind == 1 ? dx[l + 1] - dx[l] : 2);
        }
        for (int q = 0; q < 2; q++) {
            G0[q] = _mm256_loadu_si256((const __m256i*)(w0 + 4 * q));
            G1[q] = _mm256_loadu_si256((const __m256i*)(w1 + 4 * q));
        }
        for (Py_ssize_t i = 0; i < m; i++) {
            const __m256i x0 = _mm256_set1_epi64x((long long)pk[2 * i]);
            const __m256i x1 = _mm256_set1_epi64x((long long)pk[2 * i + 1]);
            unsigned dead = 0;
            for (int q = 0; q < 2; q++) {
                __m256i pa = mm_popbytes256(_mm256_and_si256(x0, G0[q]), lut, low);
                __m256i pb = mm_popbytes256(_mm256_and_si256(x1, G1[q]), lut, low);
                __m256i cell = _mm256_sad_epu8(_mm256_add_epi8(_mm256_slli_epi16(pa, 3), pb), zero);
                __m256i bit = _mm256_sllv_epi64(one, cell);
                unsigned d4;
                if (kind == 0) {
                    for (int j = nlev - 1; j >= 1; j--)
                        L[q][j] = _mm256_or_si256(L[q][j], _mm256_and_si256(L[q][j - 1], bit));
                    L[q][0] = _mm256_or_si256(L[q][0], bit);
                    d4 = mm_nonzero4(L[q][cap]);
                } else {
                    for (int j = nlev - 1; j >= 0; j--) {
                        __m256i t = _mm256_and_si256(L[q][j], bit);
                        acc[q] = _mm256_add_epi64(acc[q], _mm256_andnot_si256(
                            _mm256_cmpeq_epi64(t, zero), dl[j]));
                        if (j + 1 < nlev)
                            L[q][j + 1] = _mm256_or_si256(L[q][j + 1], t);
                    }
                    L[q][0] = _mm256_or_si256(L[q][0], bit);
                    d4 = (unsigned)_mm256_movemask_pd(
                        _mm256_castsi256_pd(_mm256_cmpgt_epi64(acc[q], limv)));
                }
                dead |= d4 << (4 * q);
            }
            alive &= ~dead;
            if (!alive)
                return 0;
        }
        return alive;
    }
    static inline void mm_count64b(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                                   const uint64_t* K, const uint64_t* H, Py_ssize_t n,
                                   const uint8_t* cl, int ncl, uint32_t* h) {
        uint8_t cb[64] __attribute__((aligned(32)));
        uint64_t t4[4];
        const __m256i GD = _mm256_set1_epi64x((long long)gD);
        const __m256i GK = _mm256_set1_epi64x((long long)gK);
        const __m256i GH = _mm256_set1_epi64x((long long)gH);
        const __m256i eight = _mm256_set1_epi8(8), zero = _mm256_setzero_si256();
        for (Py_ssize_t i = 0; i < n; i += 4) {
            __m256i eq = _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i*)(D + i)), GD);
            __m256i t = _mm256_min_epu8(_mm256_loadu_si256((const __m256i*)(K + i)), GK);
            if (H)                      /* colours 9 to 16 */
                t = _mm256_add_epi8(t, _mm256_min_epu8(
                    _mm256_loadu_si256((const __m256i*)(H + i)), GH));
            __m256i cell = _mm256_sad_epu8(_mm256_add_epi8(t, _mm256_and_si256(eq, eight)), zero);
            _mm256_storeu_si256((__m256i*)t4, cell);
            cb[i] = (uint8_t)t4[0]; cb[i + 1] = (uint8_t)t4[1];
            cb[i + 2] = (uint8_t)t4[2]; cb[i + 3] = (uint8_t)t4[3];
        }
        const __m256i v0 = _mm256_load_si256((const __m256i*)cb);
        const __m256i v1 = _mm256_load_si256((const __m256i*)(cb + 32));
        const uint64_t valid = n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
        for (int k = 0; k < ncl; k++) {
            const __m256i c = _mm256_set1_epi8((char)cl[k]);
            uint64_t hit = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v0, c))
                | ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v1, c)) << 32);
            h[cl[k]] += (uint32_t)__builtin_popcountll(hit & valid);
        }
    }
    #else
    #define MM_HAVE_LANES 0
    #define MM_HAVE_COUNT64 0
    #define MM_SIMD "none"
    static inline void mm_count64b(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                                   const uint64_t* K, const uint64_t* H, Py_ssize_t n,
                                   const uint8_t* cl, int ncl, uint32_t* h) {}
    static unsigned mm_lanes(const uint64_t* enc, const int32_t* gs, int nl,
                             const uint64_t* pk, Py_ssize_t m, int kind, int64_t lim,
                             const int64_t* dx) {
        return (1u << nl) - 1;
    }
    #endif
    #if MM_HAVE_LANES
    static unsigned mm_lanes(const uint64_t* enc, const int32_t* gs, int nl,
                             const uint64_t* pk, Py_ssize_t m, int kind, int64_t lim,
                             const int64_t* dx) {
        if (kind != 0)                  /* two count levels: see mm_lanes_body's comment */
            return mm_lanes_body(enc, gs, nl, pk, m, kind, 0, lim, dx, 2);
        int cap = lim < m ? (int)lim : (int)m;
        if (cap <= 1)
            return mm_lanes_body(enc, gs, nl, pk, m, 0, cap < 0 ? 0 : cap, lim, dx, 2);
        if (cap <= 3)
            return mm_lanes_body(enc, gs, nl, pk, m, 0, cap, lim, dx, 4);
        return mm_lanes_body(enc, gs, nl, pk, m, 0, cap, lim, dx, 8);
    }
    #endif
    #if !MM_HAVE_COUNT64
    static inline void mm_count64(uint64_t g0, uint64_t g1, const uint64_t* pk, Py_ssize_t n,
                                  const uint8_t* cl, int ncl, uint32_t* h) {
        for (Py_ssize_t i = 0; i < n; i++)
            h[((unsigned)__builtin_popcountll(g0 & pk[2 * i]) << 3)
              + (unsigned)__builtin_popcountll(g1 & pk[2 * i + 1])] += 1;
    }
    #endif
    /* a cell histogram on a cache-line boundary (the bounded scans' counts) */
    typedef struct __attribute__((aligned(64))) { uint32_t c[64]; } mm_hist64;
    /* 0x01 in each byte past the n-th: subtracted from a code's D gives the guess's D
       (0xFE there, which no candidate byte 0xFF equals) */
    #define MM_PAD_ONES(n) ((n) >= 8 ? 0ULL : (0x0101010101010101ULL << (8 * (n))))
    /* Build with -DMM_STATS to count the (guess, candidate) pairs the scans score, over
       all threads: a profiling aid, compiled out otherwise. */
    #ifdef MM_STATS
    static long long mm_pairs = 0, mm_evals = 0;
    #define MM_COUNT(x) (__atomic_fetch_add(&mm_pairs, (x), __ATOMIC_RELAXED), \
                         __atomic_fetch_add(&mm_evals, 1, __ATOMIC_RELAXED))
    #define MM_PAIRS() (mm_pairs)
    #define MM_EVALS() (mm_evals)
    #else
    #define MM_COUNT(x) ((void)0)
    #define MM_PAIRS() (-1LL)
    #define MM_EVALS() (-1LL)
    #endif
    """
    int popcount "MM_POPCOUNT"(uint64_t x) noexcept nogil
    void _atomic_add "MM_ATOMIC_ADD"(int64_t* p, int64_t x) noexcept nogil
    void _sort_u64 "mm_sort_u64"(uint64_t* v, Py_ssize_t m) noexcept nogil
    Py_ssize_t vread_ssize "MM_VREAD_SSIZE"(Py_ssize_t* p) noexcept nogil
    void _atomic_min_ssize "mm_atomic_min_ssize"(Py_ssize_t* p, Py_ssize_t x) noexcept nogil
    void MM_COUNT(long long x) noexcept nogil
    long long MM_PAIRS() noexcept nogil
    long long MM_EVALS() noexcept nogil
    ctypedef struct Hist64 "mm_hist64":
        uint32_t c[64]
    bint HAVE_LANES "MM_HAVE_LANES"
    bint HAVE_COUNT64 "MM_HAVE_COUNT64"
    const char* SIMD_NAME "MM_SIMD"
    uint64_t PAD_ONES "MM_PAD_ONES"(int n) noexcept nogil
    void _count64b "mm_count64b"(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                                 const uint64_t* K, const uint64_t* H, Py_ssize_t n,
                                 const uint8_t* cl, int ncl, uint32_t* h) noexcept nogil
    void _count64 "mm_count64"(uint64_t g0, uint64_t g1, const uint64_t* pk, Py_ssize_t n,
                               const uint8_t* cl, int ncl, uint32_t* h) noexcept nogil
    unsigned _lanes "mm_lanes"(const uint64_t* enc, const int32_t* gs, int nl, const uint64_t* pk,
                               Py_ssize_t m, int kind, int64_t lim, const int64_t* dx) noexcept nogil
    int __builtin_ctz(unsigned int x) noexcept nogil
    int __builtin_ctzll(unsigned long long x) noexcept nogil

cdef enum:
    MAX_SLOTS = 48          # >= (8+1)(8+2)/2 - 1 = 44 slots for n = 8, rounded up
    MAX_DEPTH = 64          # deepest strategy tree the walk records

# Public constants (mirrored in _core.pyi).
SIMD = (<bytes>SIMD_NAME).decode()   # the vector kernels compiled in: avx512, avx2 or none
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
    int n
    int k
    int nslots
    int win             # the winning slot (n, 0)
    int words           # uint64 words per encoded code: 2 or 4
    int shift           # histogram cell of a pair: (blacks << shift) | (blacks + whites)
    int cells           # (n + 1) << shift: histogram cells in use
    int injective       # every cell is a slot of its own (all but black-peg)
    const uint64_t* enc # encoded codes, ``words`` words each
    const uint8_t* digits # (N, n) colours 0..k-1 of every code (encoded modes)
    const uint32_t* colmask # bit c set when code i uses colour c (encoded modes)
    const uint8_t* table  # MODE_TABLE: table[u * stride + v] = slot of s(u, v)
    Py_ssize_t stride
    const int64_t* xlogx  # xlogx[t] ~ t*log2(t) * 2^S, additive over prime factors
    const int64_t* dxlogx # xlogx[t + 1] - xlogx[t]
    Py_ssize_t ndx        # entries of dxlogx
    uint8_t slot_tab[256] # slot of (blacks << 4) | (blacks + whites)
    uint8_t fold[256]     # slot of cell (blacks << shift) | (blacks + whites); DUMMY if none
    const int32_t* msid   # two-word codes: the colour multiset of every code (NULL: none)
    const uint64_t* msw   # the count word of every multiset
    int nms               # multisets
    int tcells[16]        # cells (scores) of each total blacks + whites
    uint8_t clist[64]     # shift 3: the cells a pair can land in
    int ncl
    const uint64_t* benc  # byte forms (D, K[, H]) of every code (AVX2 or AVX-512, k <= 16)
    int bw                # words per code in benc: 2 (k <= 8) or 3


cdef enum:
    DUMMY = MAX_SLOTS - 1   # where impossible cells fold to (never read)
    CHUNK = 256             # candidates packed at a time by the index-based histogram


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
    if d.mode == 1:
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
    """out = the encodings of c[0..m), contiguous (the scan then streams them)."""
    cdef Py_ssize_t i, j, w = d.words
    for i in range(m):
        for j in range(w):
            out[i * w + j] = d.enc[<Py_ssize_t>c[i] * w + j]


cdef uint64_t* _new_pack(const KData* d, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """A new array (free it; NULL when out of memory) of the candidates' encodings
    (_pack), zero-padded to a multiple of 8 codes (the vector kernels read whole groups
    of eight), followed, when the game has them (``d.benc``), by their byte forms (see
    mm_count64b) at ``_bytes_of(pk, m)``."""
    cdef Py_ssize_t padded = (m + 7) & ~(<Py_ssize_t>7)
    cdef Py_ssize_t i
    cdef int j, bw = d.bw if d.benc != NULL else 0
    cdef uint64_t* pk = <uint64_t*>calloc(padded * (d.words + bw) + 1, sizeof(uint64_t))
    if pk != NULL:
        _pack(d, c, m, pk)
        for j in range(bw):             # then the byte forms: all D, all K (, all H)
            for i in range(m):
                pk[(2 + j) * padded + i] = d.benc[bw * <Py_ssize_t>c[i] + j]
    return pk


cdef inline const uint64_t* _bytes_of(const KData* d, const uint64_t* pk,
                                      Py_ssize_t m) noexcept nogil:
    """The byte forms in an array made by _new_pack (NULL if none): D, then K (then H),
    each padded to a multiple of 8 codes."""
    if d.benc == NULL:
        return NULL
    return pk + 2 * ((m + 7) & ~(<Py_ssize_t>7))


cdef void _hist_packed(const KData* d, int32_t g, const uint64_t* pk, Py_ssize_t m,
                       uint32_t* h) noexcept nogil:
    """The partition table of guess g over packed candidate encodings (encoded modes)."""
    cdef uint32_t hh[4 * 144]
    cdef const uint64_t* pb = _bytes_of(d, pk, m)
    cdef Py_ssize_t i = 0, padded = (m + 7) & ~(<Py_ssize_t>7)
    memset(hh, 0, 4 * d.cells * sizeof(uint32_t))
    if pb != NULL:
        while i < m:
            _count64b(d.benc[d.bw * <Py_ssize_t>g] - PAD_ONES(d.n),
                      d.benc[d.bw * <Py_ssize_t>g + 1],
                      d.benc[d.bw * <Py_ssize_t>g + 2] if d.bw == 3 else 0,
                      pb + i, pb + padded + i, pb + 2 * padded + i if d.bw == 3 else NULL,
                      m - i if m - i < 64 else 64, d.clist, d.ncl, hh)
            i += 64
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
    if d.mode == 2:
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


cdef inline int64_t _even_spread(const KData* d, int64_t N, int64_t cells,
                                 int kind) noexcept nogil:
    """The key of N candidates spread as evenly as can be over ``cells`` parts (cells >=
    1): the least key of any table of N candidates in that many parts, since every
    valuation is convex."""
    cdef int64_t q = N // cells
    cdef int64_t r = N % cells
    if kind == 0:
        return q + (r != 0)
    if kind == 1:
        return r * d.xlogx[q + 1] + (cells - r) * d.xlogx[q]
    if kind == 2:
        return -(N if N < cells else cells)
    return r * (q + 1) * (q + 1) + (cells - r) * q * q


cdef int64_t _bound_noncandidate(const KData* d, Py_ssize_t m, int kind) noexcept nogil:
    """A lower bound on the key of any guess that is not one of the m candidates: such a
    guess spreads them over at most P = nslots - 1 slots (never the winning one)."""
    if d.nslots < 2:
        return INT64_MAX
    return _even_spread(d, m, d.nslots - 1, kind)


cdef struct Best:
    int64_t key
    int nc                  # 0: the guess is a candidate, 1: it is not
    int32_t g


cdef inline void _best_init(Best* b) noexcept nogil:
    b.key = INT64_MAX
    b.nc = 2
    b.g = -1


cdef inline bint _offer(Best* b, int64_t key, int nc, int32_t g) noexcept nogil:
    """Keep (key, nc, g) if it beats the best so far in the rule's order."""
    if key < b.key or (key == b.key and (nc < b.nc or (nc == b.nc and g < b.g))):
        b.key = key
        b.nc = nc
        b.g = g
        return True
    return False


cdef inline int64_t _limit(const Best* b) noexcept nogil:
    """A guess whose key must exceed this cannot beat ``b`` (nor tie it and win)."""
    if b.nc == 2:
        return INT64_MAX
    return b.key - (b.nc == 0)


cdef inline uint32_t _cell(uint64_t p0, uint64_t p1, const uint64_t* v) noexcept nogil:
    """The histogram cell (blacks << 3) + blacks + whites of guess words (p0, p1)
    against the two-word code at v."""
    return (popcount(p0 & v[0]) << 3) + popcount(p1 & v[1])


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
        if i >= m or kind == 2:
            continue
        if kind == 0:
            mx = 0
            for j in range(d.ncl):
                t = h[d.clist[j]]
                if t > mx:
                    mx = t
            if mx > lim:
                MM_COUNT(i)
                return False
        else:
            acc = m - i if kind == 3 else 0
            for j in range(d.ncl):
                t = h[d.clist[j]]
                acc += d.xlogx[t] if kind == 1 else <int64_t>t * t
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
        if kind == 0:
            if t > v:
                v = t
        elif kind == 1:
            v += d.xlogx[t]
        elif kind == 2:
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
    if m >= BLOCK_MIN and d.benc != NULL and kind != 2:  # (parts: its bit mask is faster)
        memset(h, 0, sizeof(hc))
        return _eval_blocks(d, kind, (ge - d.enc) >> 1, pk, m, lim, h, out_key, out_nc)
    if kind == 2:
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
        out_key[0] = _value(d, hs, 2)
        out_nc[0] = hs[d.win] == 0
        MM_COUNT(m)
        return True
    memset(h, 0, sizeof(hc))
    if kind == 0:
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
    elif kind == 1:
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
    if d.msid == NULL or not d.injective or d.mode != 0 or m < CLASS_MIN:
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
            if kind != 0:                   # parts of different totals add up ...
                v += x
            elif x > v:                     # ... the largest part is the largest of all
                v = x
        out[s] = v
    free(cw)
    free(cn)
    return out


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
    cdef Py_ssize_t j = 0
    cdef int64_t lim
    cdef int nl, l
    cdef unsigned alive
    cdef int32_t batch[8]
    cdef Py_ssize_t pos[8]
    while j < ng:
        nl = 0
        while j < ng and nl < 8:
            if not (skip and d.colmask[guesses[j]] & skip):
                batch[nl] = guesses[j]
                pos[nl] = j
                nl += 1
            j += 1
        lim = _limit(best)
        if kind == 0 and (lim if lim < m else m) > LANES_CAP:
            alive = (1u << nl) - 1              # counts too high for the lanes' levels
        else:
            alive = _lanes(d.enc, batch, nl, pk, m, kind, lim - m if kind == 3 else lim,
                           d.dxlogx)
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
    cdef Py_ssize_t j
    cdef int32_t g
    cdef int64_t key
    cdef int nc
    cdef bint fast = pk != NULL and d.mode == 0 and d.shift == 3
    if (lanes and fast and HAVE_LANES and m <= LANES_MAX and kind != 2
            and (kind != 1 or d.ndx >= 9)):     # the lanes read dx[0..8]
        return _scan_lanes(d, kind, guesses, ng, c, pk, m, best, skip, floor)
    for j in range(ng):
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
    return ng


_scan_one = _scan


cdef enum:
    BLOCK = 128             # guesses per parallel work item
    PAR_MIN_PAIRS = 1 << 18 # smaller scans are not worth waking threads for


cdef void _scan_parallel(const KData* d, int kind, const int32_t* guesses, Py_ssize_t ng,
                         const int32_t* c, const uint64_t* pk, Py_ssize_t m, Best* best,
                         int threads, uint32_t skip=0, int64_t floor=INT64_MIN,
                         const int64_t* lbt=NULL) noexcept nogil:
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
    bb = <Best*>malloc(nb * sizeof(Best))
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
    free(bb)


cdef int32_t _best(const KData* d, const int32_t* guesses, Py_ssize_t ng,
                   const int32_t* c, Py_ssize_t m, int kind,
                   int64_t* out_key, int* out_cand, int threads=1) noexcept nogil:
    """The choice rule over ``guesses`` (ascending): best key, then a candidate, then the
    smallest index.  Plain Python::

        min(guesses, key=lambda g: (value(hist(g)), hist(g)[win] == 0, g))

    (a guess is a candidate exactly when it wins against one of the candidates).
    """
    cdef Best best
    cdef uint64_t* pk = NULL
    cdef int64_t* lbt = NULL
    _best_init(&best)
    if d.mode != 2:
        pk = _new_pack(d, c, m)
        if pk != NULL:
            lbt = _class_bounds(d, pk, m, kind)
    _scan_parallel(d, kind, guesses, ng, c, pk, m, &best, threads, 0, INT64_MIN, lbt)
    free(lbt)
    free(pk)
    out_key[0] = best.key
    out_cand[0] = best.nc == 0
    return best.g


# --------------------------------------------------------------------------- symmetry
# A group element (pi, sigma) maps a code x to y with y[pi[p]] = sigma[x[p]].  The
# elements that fix every guess played so far map the candidate set onto itself, so a
# guess and its image have the same partition table up to relabelling: the same key and
# the same candidacy.  Scanning only the smallest code of every orbit therefore picks
# exactly the guess of the full scan (the rule's winner is the smallest index of a set
# that is a union of orbits).  Colours never played are interchangeable: they are kept
# out of sigma (255) and handled by relabelling them in first-use order.

cdef enum:
    EL = 24                 # bytes per element: pi[0..7], sigma[0..15]


cdef struct Sym:
    int nel                 # elements; element 0 is the identity
    uint8_t* el
    uint32_t played         # colours used by some guess of the history


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


cdef inline bint _sym_trivial(const KData* d, const Sym* s) noexcept nogil:
    cdef uint32_t free_colours = ((1u << d.k) - 1) & ~s.played
    return s.nel == 1 and (free_colours & (free_colours - 1)) == 0


cdef bint _canonical(const KData* d, const Sym* s, int32_t g) noexcept nogil:
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


cdef Py_ssize_t _canonical_guesses(const KData* d, const Sym* s, const int32_t* guesses,
                                   Py_ssize_t ng, int32_t* out) noexcept nogil:
    cdef Py_ssize_t j, n = 0
    for j in range(ng):
        if _canonical(d, s, guesses[j]):
            out[n] = guesses[j]
            n += 1
    return n


# --------------------------------------------------------------------------- the walk

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


cdef uint32_t _blank_colours(const Walk* w, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """Colours no guess needs to use: a colour no candidate has scores like a blank
    (no black, no white against any candidate), so all such colours are one colour for
    the partition.  When any code may be guessed, the rule's guess uses only the smallest
    of them (replacing the others by it keeps the table and lowers the index)."""
    cdef uint32_t present = 0, absent
    cdef Py_ssize_t i
    if not w.blanks_ok:
        return 0
    for i in range(m):
        present |= w.d.colmask[c[i]]
    absent = ((1u << w.d.k) - 1) & ~present
    return absent & (absent - 1)            # all but the smallest


cdef int32_t _best_plain(const KData* d, const int32_t* guesses, Py_ssize_t ng,
                         const int32_t* c, Py_ssize_t m, int kind) noexcept nogil:
    """The choice rule by brute force: every guess's whole partition table, no bound, no
    shortcut; the reference the reduced scans are tested against."""
    cdef uint32_t h[MAX_SLOTS]
    cdef Best best
    cdef Py_ssize_t j
    _best_init(&best)
    if kind == 4:
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
    if m == 1 or w.kind == 4 or (m == 2 and w.shortcut_ok and not w.plain):
        # One candidate: play it.  Two: the first candidate splits them into a win and a
        # singleton, the best table any guess can give, so the rule picks it.
        return c[0]
    if w.plain:
        return _best_plain(w.d, c if w.cands_only else gl, m if w.cands_only else ngl, c, m,
                           w.kind)
    if w.cands_only:
        return _best(w.d, c, m, c, m, w.kind, &key, &is_cand, w.threads)
    _best_init(&best)
    if w.d.mode != 2:
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


cdef void _walk(Walk* w, const int32_t* c, Py_ssize_t m, int depth,
                Py_ssize_t parent, int pslot, bint root, const Sym* sym,
                const int32_t* gl, Py_ssize_t ngl) noexcept nogil:
    """Play the strategy against every candidate in ``c`` (sorted); ``depth`` is the number
    of the guess about to be made; ``sym`` is the group of the history so far and ``gl``
    its canonical guesses.  Adds to ``w.dist`` and, when recording, to ``w.rec``."""
    cdef const KData* d = w.d
    cdef int32_t g
    cdef int s
    cdef Py_ssize_t i, node
    cdef uint32_t cnt[MAX_SLOTS]
    cdef Py_ssize_t off[MAX_SLOTS]
    cdef int32_t* parts
    cdef uint8_t* lab
    cdef Sym child
    cdef int32_t* cgl = NULL
    cdef const int32_t* kgl = w.guesses
    cdef Py_ssize_t nkgl = w.nguesses
    cdef bint need_scan = False
    child.el = NULL
    if w.error:
        return
    if depth > MAX_DEPTH:
        w.error = 2
        return
    if root and w.first >= 0:
        g = w.first
    else:
        g = _choose(w, c, m, gl, ngl)
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
    for s in range(d.nslots):               # a child this large will scan the guesses
        if s != d.win and cnt[s] > d.nslots:
            need_scan = True
    # The children's history adds g: their group, and their canonical guesses computed
    # once for all of them.
    if need_scan and w.use_sym and not w.cands_only and w.kind != 4:
        if _sym_child(d, sym, g, &child) != 0:
            w.error = 1
        elif not _sym_trivial(d, &child):
            cgl = <int32_t*>malloc(w.nguesses * sizeof(int32_t) + 1)
            if cgl == NULL:
                w.error = 1
            else:
                nkgl = _canonical_guesses(d, &child, w.guesses, w.nguesses, cgl)
                kgl = cgl
    for s in range(d.nslots):
        if cnt[s] == 0:
            continue
        if s == d.win:
            w.dist[depth] += cnt[s]
        else:
            _walk(w, parts + off[s] - cnt[s], cnt[s], depth + 1, node, s, False,
                  &child, kgl, nkgl)
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
            w.error = 1
        elif gl == w.guesses and not _sym_trivial(w.d, &sym) and w.nguesses:
            own = <int32_t*>malloc(w.nguesses * sizeof(int32_t))
            if own == NULL:
                w.error = 1
            else:
                ngl = _canonical_guesses(w.d, &sym, w.guesses, w.nguesses, own)
                gl = own
    if not w.error:
        _walk(w, cands, m, depth, -1, -1, True, &sym, gl, ngl)
    free(own)
    free(sym.el)


def pairs_scored():
    """Pairs scored by the bounded scans in all threads so far, in a build made with
    ``-DMM_STATS`` (a profiling aid); -1 otherwise."""
    return MM_PAIRS()


def guesses_scored():
    """Guesses the bounded scans started on so far (``-DMM_STATS``
    builds; -1 otherwise): ``pairs_scored() / guesses_scored()`` is the mean scan length."""
    return MM_EVALS()


def _raise_walk_error(int error):
    if error == 1:
        raise MemoryError("out of memory while walking the strategy tree")
    if error == 2:
        raise OverflowError(f"strategy tree deeper than {MAX_DEPTH} guesses")


cdef object _records(const Walk* w):
    cdef int32_t[:, ::1] rv
    recs = np.empty((w.nrec, REC), dtype=np.int32)
    if w.nrec:
        rv = recs
        memcpy(&rv[0, 0], w.rec, w.nrec * REC * sizeof(int32_t))
    return recs


# --------------------------------------------------------------------------- Python API

cdef class Kernel:
    """Scoring data of one game, prepared once; every method trusts its arguments.

    Build it with :meth:`from_codes` (encoded codes) or :meth:`from_table` (score table);
    :class:`mastermind.game.Game` does both, after validation.
    """
    cdef KData d
    cdef object _refs
    cdef object _dx
    cdef readonly int mode
    cdef readonly int nslots
    cdef readonly int win
    cdef readonly Py_ssize_t ncodes

    def __cinit__(self):
        self._refs = None

    @staticmethod
    def from_codes(const uint64_t[:, ::1] enc, const uint8_t[:, ::1] digits, int k,
                   const uint8_t[::1] slot_tab, int nslots, int win,
                   const int64_t[::1] xlogx):
        """enc: (N, 2) for n*k <= 64, else (N, 4); digits: (N, n) colours 0..k-1;
        slot_tab[(b << 4) | (b + w)]: the slot of score (b, w), 255 where impossible."""
        cdef Kernel kr = Kernel.__new__(Kernel)
        cdef int i, b, t, n = digits.shape[1]
        kr.mode = MODE_NARROW if enc.shape[1] == 2 else MODE_WIDE
        kr._init(nslots, win, xlogx)
        kr.d.enc = &enc[0, 0]
        kr.d.digits = &digits[0, 0]
        cm = np.zeros(enc.shape[0], dtype=np.uint32)
        for i in range(n):
            cm |= np.left_shift(np.uint32(1), np.asarray(digits)[:, i].astype(np.uint32))
        cdef const uint32_t[::1] cmv = cm
        kr.d.colmask = &cmv[0]
        kr.d.n = n
        kr.d.k = k
        kr.d.words = enc.shape[1]
        kr.d.shift = 3 if (n <= 7 and kr.mode == MODE_NARROW) else 4
        kr.d.cells = (n + 1) << kr.d.shift
        kr.ncodes = enc.shape[0]
        kr.d.injective = True
        for i in range(256):
            kr.d.slot_tab[i] = slot_tab[i]
            kr.d.fold[i] = DUMMY
        seen = set()
        for i in range(256):
            if slot_tab[i] != 255:
                if slot_tab[i] in seen:
                    kr.d.injective = False
                seen.add(slot_tab[i])
        for b in range(n + 1):
            for t in range(b, n + 1):
                if slot_tab[(b << 4) | t] != 255:
                    kr.d.fold[(b << kr.d.shift) | t] = slot_tab[(b << 4) | t]
        msw = msid = None
        if kr.mode == MODE_NARROW:          # colour multisets, for _class_bounds
            msw, msid = np.unique(np.asarray(enc)[:, 1], return_inverse=True)
            msw = np.ascontiguousarray(msw, dtype=np.uint64)
            msid = np.ascontiguousarray(msid.reshape(-1), dtype=np.int32)
            kr._ms_ptrs(msw, msid)
        kr.d.ncl = 0                        # possible scores: per total, and as cells
        for b in range(n + 1):
            for t in range(b, n + 1):
                if slot_tab[(b << 4) | t] != 255:
                    kr.d.tcells[t] += 1
                    if kr.d.shift == 3:
                        kr.d.clist[kr.d.ncl] = (b << 3) | t
                        kr.d.ncl += 1
        benc = None
        if HAVE_LANES and kr.mode == MODE_NARROW and kr.d.shift == 3 and k <= 16:
            dg = np.asarray(digits)
            dbytes = np.full((enc.shape[0], 8), 0xFF, dtype=np.uint8)
            dbytes[:, :n] = dg
            kbytes = np.zeros((enc.shape[0], 16), dtype=np.uint8)
            for i in range(k):
                kbytes[:, i] = (dg == i).sum(axis=1)
            cols = [dbytes.view(np.uint64)[:, 0], kbytes[:, :8].copy().view(np.uint64)[:, 0]]
            if k > 8:
                cols.append(kbytes[:, 8:].copy().view(np.uint64)[:, 0])
            benc = np.ascontiguousarray(np.stack(cols, axis=1))
            kr.d.bw = benc.shape[1]
            kr._benc_ptr(benc)
        kr._refs = (enc, digits, xlogx, cm, msw, msid, benc)
        return kr

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
        k.mode = MODE_TABLE
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
        cdef Py_ssize_t m = cands.shape[0]
        cdef const int32_t* cp = &cands[0] if m else NULL
        cdef uint64_t* pk = NULL
        with nogil:
            if self.d.mode != 2:
                pk = _new_pack(&self.d, cp, m)
            for i in range(guesses.shape[0]):
                if pk != NULL:
                    _hist_packed(&self.d, guesses[i], pk, m, h)
                else:
                    _hist(&self.d, guesses[i], cp, m, h)
                for j in range(self.nslots):
                    o[i, j] = h[j]
            free(pk)
        return out

    def keys(self, const int32_t[::1] guesses, const int32_t[::1] cands, int kind):
        """int64 array: the valuation key (lower is better) of every guess."""
        h = self.histograms(guesses, cands)
        out = np.empty(guesses.shape[0], dtype=np.int64)
        cdef int64_t[::1] o = out
        cdef const uint32_t[:, ::1] hv = h
        cdef uint32_t row[MAX_SLOTS]
        cdef Py_ssize_t i
        cdef int j
        with nogil:
            for i in range(guesses.shape[0]):
                for j in range(self.nslots):
                    row[j] = hv[i, j]
                o[i] = _value(&self.d, row, kind)
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

    def best_guess(self, const int32_t[::1] guesses, const int32_t[::1] cands, int kind,
                   int threads=1):
        """(guess, key, is_candidate) by the choice rule; guesses ascending, cands non-empty."""
        cdef int64_t key = 0
        cdef int is_cand = 0
        cdef int32_t g
        with nogil:
            g = _best(&self.d, &guesses[0], guesses.shape[0], &cands[0], cands.shape[0],
                      kind, &key, &is_cand, threads if threads > 0 else 1)
        return g, key, bool(is_cand)

    def choose(self, const int32_t[::1] guesses, const int32_t[::1] cands, int kind,
               bint cands_only, bint shortcut_ok, int threads=1, bint blanks=False):
        """The guess the walk plays at a node with candidates ``cands`` (sorted,
        non-empty), scanning ``guesses`` (ascending; possibly reduced by symmetry).
        ``blanks``: the guess set is every code (see walk)."""
        cdef Walk w
        cdef int32_t g
        memset(&w, 0, sizeof(w))
        w.d = &self.d
        w.kind = kind
        w.cands_only = cands_only
        w.shortcut_ok = shortcut_ok
        w.threads = threads if threads > 0 else 1
        w.blanks_ok = blanks and self.mode != MODE_TABLE
        with nogil:
            g = _choose(&w, &cands[0], cands.shape[0],
                        &guesses[0] if guesses.shape[0] else NULL, guesses.shape[0])
        return g

    cdef void _setup(self, Walk* w, const int32_t[::1] guesses, int kind, bint cands_only,
                     bint shortcut_ok, bint record, bint symmetry, bint blanks, bint plain,
                     int threads):
        memset(w, 0, sizeof(Walk))
        w.d = &self.d
        w.guesses = &guesses[0] if guesses.shape[0] else NULL
        w.nguesses = guesses.shape[0]
        w.kind = kind
        w.cands_only = cands_only
        w.shortcut_ok = shortcut_ok
        w.use_sym = symmetry and self.mode != MODE_TABLE and not plain
        w.blanks_ok = blanks and self.mode != MODE_TABLE and not plain
        w.plain = plain
        w.first = -1
        w.record = record
        w.threads = threads if threads > 0 else 1

    def walk(self, const int32_t[::1] guesses, const int32_t[::1] cands, int kind,
             bint cands_only, bint shortcut_ok, int32_t first, int depth, bint record,
             const int32_t[::1] history=None, bint symmetry=False, int threads=1,
             bint blanks=False, bint plain=False):
        """Play the strategy against every candidate (sorted, non-empty), starting with
        guess number ``depth``; ``first`` >= 0 fixes the guess at this root.

        ``history``: the guesses played before this root (the candidates are those
        consistent with them).  ``symmetry``: scan one guess per orbit of the group fixing
        the history (encoded modes only; the guess and secret sets must be closed under
        colour and position permutations); the results are those of the full scan.
        ``threads`` share the large scans.  ``blanks``: every code is a legal guess, so
        colours absent from all candidates may be merged (encoded modes only).
        ``plain``: no reduction, bound or shortcut whatsoever (the reference for the
        tests).  None of these changes the result.

        Returns ``(dist, records, scanned)``: ``dist[d]`` secrets found with guess number
        d; (when ``record``) an int32 array of rows (parent, slot, guess, size, depth),
        parent -1 at the root, depth-first; the number of (guess, candidate) pairs the
        full scans covered.
        """
        cdef Walk w
        cdef Py_ssize_t nh = history.shape[0] if history is not None else 0
        self._setup(&w, guesses, kind, cands_only, shortcut_ok, record, symmetry, blanks,
                    plain, threads)
        w.first = first
        try:
            with nogil:
                _run_task(&w, &cands[0], cands.shape[0], depth,
                          &history[0] if nh else NULL, nh, NULL, 0)
            _raise_walk_error(w.error)
            return (np.array([w.dist[i] for i in range(MAX_DEPTH + 1)], dtype=np.int64),
                    _records(&w) if record else None, w.scanned)
        finally:
            free(w.rec)

    def walk_many(self, const int32_t[::1] guesses, const int32_t[::1] cands,
                  const int64_t[::1] offsets, const int32_t[::1] depths,
                  const int32_t[:, ::1] histories, const int32_t[::1] hlens, int kind,
                  bint cands_only, bint shortcut_ok, bint record, bint symmetry,
                  bint blanks, int threads=1, bint plain=False,
                  const int32_t[::1] glists=None, const int64_t[::1] goffsets=None,
                  const int32_t[::1] task_glist=None, int64_t[::1] done=None):
        """``walk`` for many subtrees at once, shared by ``threads`` threads (task i:
        candidates ``cands[offsets[i]:offsets[i+1]]``, first guess number ``depths[i]``,
        history ``histories[i, :hlens[i]]``; optionally its root's canonical guesses,
        ``glists[goffsets[j]:goffsets[j+1]]`` with j = ``task_glist[i]``, computed once
        for the tasks that share a history).  ``done[0]``, if given, grows by each task's
        number of candidates as it finishes (another thread may read it for progress).  Tasks are taken in the order given (put the
        largest first); each is walked by one thread, so the results do not depend on the
        thread count.  Returns ``(dists, records, scanned)`` with ``dists`` of shape
        (tasks, MAX_DEPTH + 1) and ``records`` a list (or None)."""
        cdef Py_ssize_t nt = depths.shape[0], t, i
        cdef Walk* ws = <Walk*>calloc(nt if nt else 1, sizeof(Walk))
        cdef Walk tmpl
        cdef int err = 0
        cdef int64_t scanned = 0
        cdef bint has_gl = glists is not None and glists.shape[0] > 0
        cdef int64_t* done_p = &done[0] if done is not None else NULL
        if ws == NULL:
            raise MemoryError()
        self._setup(&tmpl, guesses, kind, cands_only, shortcut_ok, record, symmetry, blanks,
                    plain, 1)
        try:
            for t in range(nt):
                ws[t] = tmpl
            with nogil:
                for t in prange(nt, num_threads=threads if threads > 0 else 1,
                                schedule="dynamic", chunksize=1):
                    _run_task(&ws[t], &cands[offsets[t]], offsets[t + 1] - offsets[t],
                              depths[t], &histories[t, 0], hlens[t],
                              &glists[goffsets[task_glist[t]]] if has_gl else NULL,
                              goffsets[task_glist[t] + 1] - goffsets[task_glist[t]]
                              if has_gl else 0)
                    if done_p != NULL:
                        _atomic_add(done_p, offsets[t + 1] - offsets[t])
            for t in range(nt):
                if ws[t].error and not err:
                    err = ws[t].error
                scanned += ws[t].scanned
            _raise_walk_error(err)
            dists = np.zeros((nt, MAX_DEPTH + 1), dtype=np.int64)
            for t in range(nt):
                for i in range(MAX_DEPTH + 1):
                    dists[t, i] = ws[t].dist[i]
            return dists, [_records(&ws[t]) for t in range(nt)] if record else None, scanned
        finally:
            for t in range(nt):
                free(ws[t].rec)
            free(ws)

    def canonical_guesses(self, const int32_t[::1] guesses, const int32_t[::1] history):
        """The guesses (ascending) that are the smallest of their orbit under the group of
        colour and position permutations fixing every guess of ``history``."""
        cdef Sym sym
        cdef Py_ssize_t n = 0, nh = history.shape[0]
        out = np.empty(guesses.shape[0], dtype=np.int32)
        cdef int32_t[::1] o = out
        if self.mode == MODE_TABLE:
            raise ValueError("symmetry needs an encoded game")
        sym.el = NULL
        try:
            with nogil:
                if _sym_root(&self.d, &history[0] if nh else NULL, nh, &sym) == 0:
                    n = _canonical_guesses(&self.d, &sym, &guesses[0] if guesses.shape[0] else NULL,
                                           guesses.shape[0], &o[0] if guesses.shape[0] else NULL)
            if sym.el == NULL:
                raise MemoryError()
            return out[:n].copy()
        finally:
            free(sym.el)

    def group_size(self, const int32_t[::1] history):
        """Number of (position, played-colour) permutation pairs fixing the history (the
        never-played colours, freely interchangeable, are not counted)."""
        cdef Sym sym
        cdef Py_ssize_t nh = history.shape[0]
        cdef int nel
        sym.el = NULL
        with nogil:
            _sym_root(&self.d, &history[0] if nh else NULL, nh, &sym)
            nel = sym.nel
        free(sym.el)
        return nel


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

cdef struct BSym:
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


cdef inline bint _splits_all(const KData* d, int32_t g, const int32_t* c,
                             Py_ssize_t m) noexcept nogil:
    """True when guess g gives every candidate of c a different score."""
    cdef uint64_t seen = 0, bit
    cdef Py_ssize_t j
    for j in range(m):
        bit = (<uint64_t>1) << _slot(d, g, c[j])
        if seen & bit:
            return False
        seen |= bit
    return True


cdef int32_t _separating(SData* s, const int32_t* c, Py_ssize_t m) noexcept nogil:
    """A guess that puts each code of c in its own slot, or -1 (-2: out of memory).
    Candidates first, then one guess per symmetry orbit (see :func:`_bcanonical`).

    Plain Python: ``next((g for g in pool if len({slot(g, v) for v in c}) == m), -1)``.
    """
    cdef const KData* d = s.d
    cdef Py_ssize_t i
    cdef int32_t g, res = -1
    cdef BSym y
    s.leaves += 1
    if m > d.nslots:
        return -1
    for i in range(m):
        if _splits_all(d, c[i], c, m):
            return c[i]
    if s.cands_only or m == d.nslots:      # m = nslots: only a candidate can do it
        return -1
    if _sym_init(s, &y, c, m) < 0:
        return -2
    for i in range(s.ng):
        g = s.guesses[i]
        if not _bcanonical(s, &y, g):
            continue
        if _splits_all(d, g, c, m):
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


cdef void _gen_perms(BSym* y, int n, const int8_t* pcls, uint8_t* cur, int pos,
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


cdef int _sym_init(SData* s, BSym* y, const int32_t* c, Py_ssize_t m) noexcept nogil:
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
    else:                                  # a generating subset (sound, see _bcanonical)
        for p in range(n):
            for q in range(p + 1, n):
                if pcls[p] == pcls[q]:
                    for a in range(n):
                        y.perms[y.nperm * n + a] = <uint8_t>a
                    y.perms[y.nperm * n + p] = <uint8_t>q
                    y.perms[y.nperm * n + q] = <uint8_t>p
                    y.nperm += 1
    return 0


cdef inline int64_t _colour_canon(const SData* s, const BSym* y,
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


cdef bint _bcanonical(const SData* s, const BSym* y, int32_t g) noexcept nogil:
    """Is g the smallest code of its orbit under (a subset containing the identity of) the
    symmetry group?  Every orbit keeps its smallest code, so skipping the others is sound."""
    cdef const uint8_t* dg = s.digits + <Py_ssize_t>g * s.n
    cdef uint8_t tmp[B_MAXN]
    cdef int i, p
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
    cdef BSym y
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
                      int32_t* found, const BSym* y, GuessInfo* info, int32_t* parts,
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
        if not _bcanonical(s, y, g):
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
