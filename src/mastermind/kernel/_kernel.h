/* _kernel.h: the C that the kernel's Cython modules share (included through _core.pxd).

   - bit counts, relaxed atomics, a sort of 64-bit words, the racy reads the searches
     use to see a stop request from another thread;
   - the vector kernels: eight guesses scored side by side against the same candidates
     (mm_lanes), and 64 (guess, candidate) pairs counted at a time from the codes' word
     or byte forms (mm_count64, mm_count64b), for AVX-512BW, for AVX2 (two 256-bit
     halves), and as scalar fallbacks when neither is compiled in (MM_SIMD names which:
     the compiler's target decides, and the default x86-64 build compiles every module
     for three targets, setup.py, of which mastermind.simd loads one at run time);
   - the worst-case search's label-matrix kernels (_labels.h, included here);
   - MM_COUNT, a profiling counter of scored pairs compiled in with -DMM_STATS.

   Every function trusts its caller: the arrays it reads are padded as documented, the
   counts it is given are in range.  Nothing here allocates or calls Python. */
#ifndef MASTERMIND_KERNEL_H
#define MASTERMIND_KERNEL_H

#include <Python.h>     /* Py_ssize_t (already included first by Cython's C file) */
#include <stdint.h>
#include <stdlib.h>

/* The valuation kinds, named once here for the C below and for Cython (_core.pxd takes
   its KIND_* names from these): each a key, lower is better. */
enum {
    MM_KIND_MINMAX = 0,     /* the largest part */
    MM_KIND_ENTROPY = 1,    /* sum t log t, in the exact integer image */
    MM_KIND_PARTS = 2,      /* minus the number of parts */
    MM_KIND_EXPECTED = 3,   /* sum t^2 */
    MM_KIND_FIRST = 4       /* the first candidate: no scan */
};

/* helpers some modules do not call: no unused-function warning for them */
#define MM_UNUSED __attribute__((unused))

#define MM_POPCOUNT(x) ((int)__builtin_popcountll(x))
#define MM_ATOMIC_ADD(p, x) __atomic_fetch_add((p), (x), __ATOMIC_RELAXED)
static MM_UNUSED int mm_cmp_u64(const void* a, const void* b) {
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return (x > y) - (x < y);
}
static MM_UNUSED void mm_sort_u64(uint64_t* v, Py_ssize_t m) {
    qsort(v, (size_t)m, sizeof(uint64_t), mm_cmp_u64);
}
/* The one allocator of the kernel's arrays of structs (every heap array whose element is a
   struct: a node, a walk, a memo's entries, a guess's record).  malloc and calloc promise
   only 16-byte alignment, and a struct holding an over-aligned member (mm_hist64, on a
   cache line; an AVX-512 vector) put there is undefined behaviour, which the AVX-512
   build's aligned 64-byte stores turned into a crash.  So every such array starts on a
   64-byte boundary (MM_STRUCT_ALIGN, at least any kernel type's alignment): it is
   allocated 64 bytes larger, from calloc when zeroed (a large zeroed array stays lazily
   zeroed by the system) or malloc, and the start of that block is kept in the 8 bytes
   before the array.  NULL when out of memory (count * size overflowing included); freed
   by mm_free_structs (NULL allowed), never by free. */
#define MM_STRUCT_ALIGN 64
static MM_UNUSED void* mm_new_structs(size_t count, size_t size, int zeroed) {
    if (size && count > (SIZE_MAX - 2 * MM_STRUCT_ALIGN) / size)
        return NULL;
    size_t bytes = count * size + MM_STRUCT_ALIGN;
    char* raw = zeroed ? (char*)calloc(1, bytes) : (char*)malloc(bytes);
    if (raw == NULL)
        return NULL;
    /* raw is at least 8-byte aligned: the array starts 8 to 64 bytes into the block */
    char* at = (char*)(((uintptr_t)raw + MM_STRUCT_ALIGN) & ~(uintptr_t)(MM_STRUCT_ALIGN - 1));
    ((void**)at)[-1] = raw;
    return at;
}
static MM_UNUSED void mm_free_structs(void* p) {
    if (p != NULL)
        free(((void**)p)[-1]);
}
/* The vector kernels' twins under the sanitizers.  Some AVX-512 kernels read more of
   their caller's buffers than their AVX2 or scalar twins do (whole groups of eight codes
   where a twin stops at four, or at the last code), and a sanitizer sees only the code
   that runs: on a CPU without AVX-512, never those reads.  So in the sanitizer build
   (setup.py defines MM_SANITIZE) a twin also reads, through MM_TWIN_READ(p, bytes), the
   bytes [p, p + bytes) (at most 128) only the AVX-512 kernel reads: by memcpy, which
   AddressSanitizer checks whole, into a buffer an empty asm keeps alive.  In every other
   build MM_TWIN_READ is nothing.  MM_NEVER() marks a twin no caller reaches in its
   build: UndefinedBehaviorSanitizer reports reaching it (nothing, elsewhere). */
#ifdef MM_SANITIZE
#include <string.h>
static MM_UNUSED void mm_twin_read(const void* p, size_t bytes) {
    unsigned char sink[128];
    memcpy(sink, p, bytes);
    __asm__ volatile("" : : "r"(sink) : "memory");
}
#define MM_TWIN_READ(p, bytes) mm_twin_read((const void*)(p), (size_t)(bytes))
#define MM_NEVER() __builtin_unreachable()
#else
#define MM_TWIN_READ(p, bytes) ((void)0)
#define MM_NEVER() ((void)0)
#endif
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
   caller for expected size (see _eval_narrow).  0 <= nl <= 8, gs[0] a code even when
   nl = 0 (the lanes past nl repeat it); reads the guesses' words in enc, pk[0..2m) and,
   for entropy, dx[0..9), no more and nothing aligned, as its AVX2 twin (the baseline
   build has no lanes). */
#if defined(__AVX512BW__)
#include <immintrin.h>
/* The 64-byte cell buffers below are filled only up to n (rounded to 8) and then loaded
   whole; the bytes past n are never counted (the `valid` mask).  Reading them is defined
   (unsigned char has no trap values) and zeroing them measured 2-7% slower, so GCC's
   may-be-uninitialized warning is switched off for these kernels. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
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
        dl[l] = _mm512_set1_epi64(kind == MM_KIND_ENTROPY ? dx[l + 1] - dx[l] : 2);
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
        if (kind == MM_KIND_MINMAX) {
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
/* The cells (blacks << 3) + blacks + whites that eight guesses (gs[0..nl), one 64-bit
   lane each) give the m two-word codes pk: out[l] has bit c set when some code lands in
   cell c for guess l (the parts a guess makes, its number of parts by a popcount).
   0 <= nl <= 8, gs[0] a code even when nl = 0 (the lanes past nl repeat it); pk[0..2m)
   and out[0..8) unaligned, as every twin. */
static MM_UNUSED void mm_masks8(const uint64_t* enc, const int32_t* gs, int nl,
                                const uint64_t* pk, Py_ssize_t m, uint64_t* out) {
    const __m512i lut = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
    const __m512i low = _mm512_set1_epi8(0x0f), zero = _mm512_setzero_si512();
    const __m512i one = _mm512_set1_epi64(1);
    uint64_t w0[8], w1[8];
    __m512i acc = zero;
    for (int l = 0; l < 8; l++) {
        int32_t g = gs[l < nl ? l : 0];
        w0[l] = enc[2 * (Py_ssize_t)g];
        w1[l] = enc[2 * (Py_ssize_t)g + 1];
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
        acc = _mm512_or_si512(acc, _mm512_sllv_epi64(one, cell));
    }
    _mm512_storeu_si512((void*)out, acc);
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
/* How many of the first n <= 64 cells of v are each cell cl[k] (k < ncl): added to
   out[cl[k]] (add), or written to out[k]; the 64 cells are compared at once with each
   cell, so no count waits on another.  (add is a constant at every call: the branch
   folds away.) */
static inline __attribute__((always_inline)) void mm_cellcounts512(
        __m512i v, Py_ssize_t n, const uint8_t* cl, int ncl, uint32_t* out, int add) {
    const __mmask64 valid = n >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
    for (int k = 0; k < ncl; k++) {
        uint32_t c = (uint32_t)__builtin_popcountll(
            _mm512_mask_cmpeq_epi8_mask(valid, v, _mm512_set1_epi8((char)cl[k])));
        if (add)
            out[cl[k]] += c;
        else
            out[k] = c;
    }
}
/* Add to h the cells of guess (g0, g1) against n <= 64 interleaved two-word codes
   (read in whole groups of eight, pk[0 .. 16 * round8(n)) bytes unaligned: the array is
   padded; its twin, the scalar loop of _acc_narrow, reads the same under the sanitizer
   build): the 64 cells are compared at once with each of the ncl cells a pair can land
   in (cl), and the matches counted, so no count waits on another. */
static inline void mm_count64(uint64_t g0, uint64_t g1, const uint64_t* pk, Py_ssize_t n,
                              const uint8_t* cl, int ncl, uint32_t* h) {
    uint8_t cb[64] __attribute__((aligned(64)));
    mm_cells8(g0, g1, pk, (n + 7) & ~(Py_ssize_t)7, cb);
    mm_cellcounts512(_mm512_load_si512((const void*)cb), n, cl, ncl, h, 1);
}
/* As mm_count64 from the byte forms of the codes (k <= 16): D, a byte per position
   (the colour; 0xFF past n, 0xFE in the guess), and K, a byte per colour (its
   count; H for colours 9 to 16, NULL when k <= 8).  Blacks are the equal bytes of D, blacks + whites the sum of the bytewise
   minimum of K: a compare, a masked move, a minimum, an add and one sum of absolute
   differences give the cells of eight codes.  D, K and H are read unaligned in whole
   groups of eight words, [0, round8(n)) each (the AVX2 twin reads the same). */
static inline __m512i mm_cellvec64b(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                                    const uint64_t* K, const uint64_t* H, Py_ssize_t n) {
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
    return _mm512_load_si512((const void*)cb);
}
static inline void mm_count64b(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                               const uint64_t* K, const uint64_t* H, Py_ssize_t n,
                               const uint8_t* cl, int ncl, uint32_t* h) {
    mm_cellcounts512(mm_cellvec64b(gD, gK, gH, D, K, H, n), n, cl, ncl, h, 1);
}
/* As mm_count64b for n <= 64 codes, the count of cell cl[k] written to out[k] (no
   read-modify-write of a histogram: the optimal search reads the counts at once). */
static inline void mm_counts64b(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                                const uint64_t* K, const uint64_t* H, Py_ssize_t n,
                                const uint8_t* cl, int ncl, uint32_t* out) {
    mm_cellcounts512(mm_cellvec64b(gD, gK, gH, D, K, H, n), n, cl, ncl, out, 0);
}
#pragma GCC diagnostic pop
#define MM_HAVE_COUNT64 1
#define MM_SIMD "avx512"
#elif defined(__AVX2__)
/* The same kernels for AVX2: two 256-bit halves of four lanes, compare results as
   vectors instead of mask registers.  (The cell buffers are read past n as above.)
   Each reads what its AVX-512 twin reads of the caller's buffers, but mm_cellvec64b:
   groups of four words, so the last group of eight is read under the sanitizer build
   only (MM_TWIN_READ). */
#include <immintrin.h>
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
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
        dl[l] = _mm256_set1_epi64x(kind == MM_KIND_ENTROPY ? dx[l + 1] - dx[l] : 2);
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
            if (kind == MM_KIND_MINMAX) {
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
static MM_UNUSED void mm_masks8(const uint64_t* enc, const int32_t* gs, int nl,
                                const uint64_t* pk, Py_ssize_t m, uint64_t* out) {
    const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                         0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
    const __m256i one = _mm256_set1_epi64x(1);
    uint64_t w0[8], w1[8];
    __m256i acc[2] = {zero, zero}, G0[2], G1[2];
    for (int l = 0; l < 8; l++) {
        int32_t g = gs[l < nl ? l : 0];
        w0[l] = enc[2 * (Py_ssize_t)g];
        w1[l] = enc[2 * (Py_ssize_t)g + 1];
    }
    for (int q = 0; q < 2; q++) {
        G0[q] = _mm256_loadu_si256((const __m256i*)(w0 + 4 * q));
        G1[q] = _mm256_loadu_si256((const __m256i*)(w1 + 4 * q));
    }
    for (Py_ssize_t i = 0; i < m; i++) {
        const __m256i x0 = _mm256_set1_epi64x((long long)pk[2 * i]);
        const __m256i x1 = _mm256_set1_epi64x((long long)pk[2 * i + 1]);
        for (int q = 0; q < 2; q++) {
            __m256i pa = mm_popbytes256(_mm256_and_si256(x0, G0[q]), lut, low);
            __m256i pb = mm_popbytes256(_mm256_and_si256(x1, G1[q]), lut, low);
            __m256i cell = _mm256_sad_epu8(_mm256_add_epi8(_mm256_slli_epi16(pa, 3), pb), zero);
            acc[q] = _mm256_or_si256(acc[q], _mm256_sllv_epi64(one, cell));
        }
    }
    _mm256_storeu_si256((__m256i*)out, acc[0]);
    _mm256_storeu_si256((__m256i*)(out + 4), acc[1]);
}
static inline void mm_cellvec64b(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                                 const uint64_t* K, const uint64_t* H, Py_ssize_t n,
                                 __m256i* v0, __m256i* v1) {
    uint8_t cb[64] __attribute__((aligned(32)));
    uint64_t t4[4];
    const __m256i GD = _mm256_set1_epi64x((long long)gD);
    const __m256i GK = _mm256_set1_epi64x((long long)gK);
    const __m256i GH = _mm256_set1_epi64x((long long)gH);
    const __m256i eight = _mm256_set1_epi8(8), zero = _mm256_setzero_si256();
    Py_ssize_t i;
    for (i = 0; i < n; i += 4) {
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
    if (i & 7) {        /* the AVX-512 kernel's last group of eight: four codes more */
        MM_TWIN_READ(D + i, 32);
        MM_TWIN_READ(K + i, 32);
        if (H)
            MM_TWIN_READ(H + i, 32);
    }
    *v0 = _mm256_load_si256((const __m256i*)cb);
    *v1 = _mm256_load_si256((const __m256i*)(cb + 32));
}
static inline uint32_t mm_cellcount256(__m256i v0, __m256i v1, uint8_t cell, uint64_t valid) {
    const __m256i c = _mm256_set1_epi8((char)cell);
    uint64_t hit = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v0, c))
        | ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(v1, c)) << 32);
    return (uint32_t)__builtin_popcountll(hit & valid);
}
static inline void mm_count64b(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                               const uint64_t* K, const uint64_t* H, Py_ssize_t n,
                               const uint8_t* cl, int ncl, uint32_t* h) {
    __m256i v0, v1;
    mm_cellvec64b(gD, gK, gH, D, K, H, n, &v0, &v1);
    const uint64_t valid = n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
    for (int k = 0; k < ncl; k++)
        h[cl[k]] += mm_cellcount256(v0, v1, cl[k], valid);
}
static inline void mm_counts64b(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                                const uint64_t* K, const uint64_t* H, Py_ssize_t n,
                                const uint8_t* cl, int ncl, uint32_t* out) {
    __m256i v0, v1;
    mm_cellvec64b(gD, gK, gH, D, K, H, n, &v0, &v1);
    const uint64_t valid = n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1);
    for (int k = 0; k < ncl; k++)
        out[k] = mm_cellcount256(v0, v1, cl[k], valid);
}
#pragma GCC diagnostic pop
#else
#define MM_HAVE_LANES 0
#define MM_HAVE_COUNT64 0
#define MM_SIMD "none"
/* No byte forms without vector kernels (Kernel.from_codes makes them only when
   MM_HAVE_LANES): these two are never called. */
static inline void mm_count64b(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                               const uint64_t* K, const uint64_t* H, Py_ssize_t n,
                               const uint8_t* cl, int ncl, uint32_t* h) { MM_NEVER(); }
static inline void mm_counts64b(uint64_t gD, uint64_t gK, uint64_t gH, const uint64_t* D,
                                const uint64_t* K, const uint64_t* H, Py_ssize_t n,
                                const uint8_t* cl, int ncl, uint32_t* out) { MM_NEVER(); }
static MM_UNUSED void mm_masks8(const uint64_t* enc, const int32_t* gs, int nl,
                                const uint64_t* pk, Py_ssize_t m, uint64_t* out) {
    for (int l = 0; l < 8; l++) {
        uint64_t g0 = enc[2 * (Py_ssize_t)gs[l < nl ? l : 0]];
        uint64_t g1 = enc[2 * (Py_ssize_t)gs[l < nl ? l : 0] + 1], acc = 0;
        for (Py_ssize_t i = 0; i < m; i++)
            acc |= (uint64_t)1 << (((unsigned)__builtin_popcountll(g0 & pk[2 * i]) << 3)
                                   + (unsigned)__builtin_popcountll(g1 & pk[2 * i + 1]));
        out[l] = acc;
    }
}
static MM_UNUSED unsigned mm_lanes(const uint64_t* enc, const int32_t* gs, int nl,
                         const uint64_t* pk, Py_ssize_t m, int kind, int64_t lim,
                         const int64_t* dx) {
    return (1u << nl) - 1;
}
#endif
#if MM_HAVE_LANES
static MM_UNUSED unsigned mm_lanes(const uint64_t* enc, const int32_t* gs, int nl,
                         const uint64_t* pk, Py_ssize_t m, int kind, int64_t lim,
                         const int64_t* dx) {
    if (kind != MM_KIND_MINMAX)     /* two count levels: see mm_lanes_body's comment */
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
/* the worst-case search's label-matrix kernels */
#include "_labels.h"
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

/* A racy read of a flag another thread may set (a stop request): volatile, so the
   compiler reads memory every time. */
#define MM_VREAD(p) (*(volatile int *)(p))

#endif /* MASTERMIND_KERNEL_H */
