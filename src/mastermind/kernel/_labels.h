/* _labels.h: the worst-case search's label-matrix kernels (included by _kernel.h).

   A d = 3 node of the search keeps a label row per code: one byte per column (a guess
   of the game), the slot of the code's score against that guess (below 64).  Its
   guesses are tested by reading those rows 32 or 64 columns at a time, without scoring:
   whether a guess puts some codes in pairwise different slots (mm_separates64), how many
   labels each guess gives (mm_label_parts), and each guess's largest part
   (mm_label_scan).

   Every function trusts its caller: the rows hold at least g0 + 64 bytes, the counts
   are in range.  Nothing here allocates or calls Python. */
#ifndef MASTERMIND_LABELS_H
#define MASTERMIND_LABELS_H

/* The worst-case search's separation test through label rows (a row per code: one
   byte per guess, its score slot, below 64): a bit per guess g0..g0+63 of ``alive``
   (the guesses still to test) that gives the b codes rows[idx[0..b)] pairwise
   different labels (0: none).  Each row holds at least g0 + 64 bytes: bytes
   [g0, g0 + 64) are read unaligned, of rows idx[0..b) in order, until no guess is left
   (the AVX-512 kernel two rows at a time, its twins one). */
/* The twins of the AVX-512 mm_separates64 give up after the row l that leaves no guess;
   the AVX-512 kernel compares rows j + 1, j + 2, ... two at a time, so it has read row
   l + 1 too when l is the first of a pair: under the sanitizer build the twins read it. */
#define MM_SEPARATES_PAIR(rows, idx, b, g0, j, l) do { \
        if ((((l) - (j) - 1) & 1) == 0 && (l) + 1 < (b)) \
            MM_TWIN_READ((rows)[(idx)[(l) + 1]] + (g0), 64); \
    } while (0)
static inline uint64_t mm_separates64(uint8_t* const* rows, const int32_t* idx,
                                      Py_ssize_t b, Py_ssize_t g0, uint64_t alive) {
#if defined(__AVX512BW__)
    /* two compares per test of what is left: they do not wait for each other */
    for (Py_ssize_t j = 0; j + 1 < b; j++) {
        __m512i a = _mm512_loadu_si512((const void*)(rows[idx[j]] + g0));
        Py_ssize_t l = j + 1;
        for (; l + 1 < b; l += 2) {
            __m512i c0 = _mm512_loadu_si512((const void*)(rows[idx[l]] + g0));
            __m512i c1 = _mm512_loadu_si512((const void*)(rows[idx[l + 1]] + g0));
            alive &= _mm512_cmpneq_epi8_mask(a, c0) & _mm512_cmpneq_epi8_mask(a, c1);
            if (!alive)
                return 0;
        }
        if (l < b) {
            alive &= _mm512_cmpneq_epi8_mask(
                a, _mm512_loadu_si512((const void*)(rows[idx[l]] + g0)));
            if (!alive)
                return 0;
        }
    }
#elif defined(__AVX2__)
    for (Py_ssize_t j = 0; j + 1 < b; j++) {
        const uint8_t* rj = rows[idx[j]] + g0;
        __m256i a0 = _mm256_loadu_si256((const __m256i*)rj);
        __m256i a1 = _mm256_loadu_si256((const __m256i*)(rj + 32));
        for (Py_ssize_t l = j + 1; l < b; l++) {
            const uint8_t* rl = rows[idx[l]] + g0;
            uint32_t e0 = (uint32_t)_mm256_movemask_epi8(
                _mm256_cmpeq_epi8(a0, _mm256_loadu_si256((const __m256i*)rl)));
            uint32_t e1 = (uint32_t)_mm256_movemask_epi8(
                _mm256_cmpeq_epi8(a1, _mm256_loadu_si256((const __m256i*)(rl + 32))));
            alive &= ~((uint64_t)e0 | ((uint64_t)e1 << 32));
            if (!alive) {
                MM_SEPARATES_PAIR(rows, idx, b, g0, j, l);
                return 0;
            }
        }
    }
#else
    uint8_t acc[64];                /* (a loop the compiler makes SSE2's) */
    for (int t = 0; t < 64; t++)    /* the guesses still to test, as the vector kernels */
        acc[t] = (uint8_t)((alive >> t) & 1);
    for (Py_ssize_t j = 0; j + 1 < b; j++) {
        const uint8_t* rj = rows[idx[j]] + g0;
        for (Py_ssize_t l = j + 1; l < b; l++) {
            const uint8_t* rl = rows[idx[l]] + g0;
            uint8_t any = 0;
            for (int t = 0; t < 64; t++) {
                acc[t] &= rj[t] != rl[t];
                any |= acc[t];
            }
            if (!any) {
                MM_SEPARATES_PAIR(rows, idx, b, g0, j, l);
                return 0;
            }
        }
    }
    alive = 0;
    for (int t = 0; t < 64; t++)
        alive |= (uint64_t)acc[t] << t;
#endif
    return alive;
}
/* A bit per byte of a[0..64) that is at least b (b <= 255). */
static inline uint64_t mm_at_least64(const uint8_t* a, int b) {
#if defined(__AVX2__)
    const __m256i t = _mm256_set1_epi8((char)b);
    __m256i x0 = _mm256_loadu_si256((const __m256i*)a);
    __m256i x1 = _mm256_loadu_si256((const __m256i*)(a + 32));
    uint32_t m0 = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(x0, t), x0));
    uint32_t m1 = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(x1, t), x1));
    return (uint64_t)m0 | ((uint64_t)m1 << 32);
#else
    uint64_t out = 0;
    for (int t = 0; t < 64; t++)
        out |= (uint64_t)(a[t] >= b) << t;
    return out;
#endif
}
/* The labels each guess g0..g0+n-1 gives the m codes of the label rows rows[0..m)
   (labels below nl <= 64, win the winning one): parts[g - g0] how many other than win,
   won[g - g0] whether win (the guess is one of the codes).  A guess giving fewer labels
   than a set has codes cannot separate the set, nor any subset of it that large.
   (AVX2, labels below 32: 32 guesses at a time, a 32-bit mask of the labels seen per
   guess.) */
static inline void mm_label_parts(uint8_t* const* rows, Py_ssize_t m, Py_ssize_t g0,
                                  Py_ssize_t n, int nl, int win, uint8_t* parts,
                                  uint8_t* won) {
    Py_ssize_t g = g0;
#if defined(__AVX2__)
    if (nl <= 32) {
        const __m256i one = _mm256_set1_epi32(1);
        uint32_t seen[32] __attribute__((aligned(32)));
        for (; g + 32 <= g0 + n; g += 32) {
            __m256i acc[4];
            for (int q = 0; q < 4; q++)
                acc[q] = _mm256_setzero_si256();
            for (Py_ssize_t t = 0; t < m; t++) {
                const uint8_t* r = rows[t] + g;
                if (!(g & 63))              /* the rows' next lines, ahead */
                    __builtin_prefetch(r + 192);
                for (int q = 0; q < 4; q++)
                    acc[q] = _mm256_or_si256(acc[q], _mm256_sllv_epi32(one, _mm256_cvtepu8_epi32(
                        _mm_loadl_epi64((const __m128i*)(r + 8 * q)))));
            }
            for (int q = 0; q < 4; q++)
                _mm256_store_si256((__m256i*)(seen + 8 * q), acc[q]);
            for (int q = 0; q < 32; q++) {
                parts[g - g0 + q] = (uint8_t)__builtin_popcount(seen[q] & ~(1u << win));
                won[g - g0 + q] = (uint8_t)((seen[q] >> win) & 1);
            }
        }
    }
#endif
    for (; g < g0 + n; g++) {
        uint64_t seen = 0;
        for (Py_ssize_t t = 0; t < m; t++)
            seen |= (uint64_t)1 << rows[t][g];
        parts[g - g0] = (uint8_t)__builtin_popcountll(seen & ~((uint64_t)1 << win));
        won[g - g0] = (uint8_t)((seen >> win) & 1);
    }
}
/* What each guess g0..g0+n-1 makes of the m codes of the label rows rows[0..m) (labels
   below nl <= 64, win the winning one), counted, not scored: most[g - g0] the largest
   count of a label other than win (at most 255), parts[g - g0] how many labels other
   than win it gives, won[g - g0] whether it gives win.  Under AVX2, 32 guesses at a
   time (a byte counter per label, ten labels per pass over a block of codes), and
   full[j] = 1 for each such group j done; want[j] (a bit per guess of group j) the
   guesses that matter: a group is given up (full[j] = 0, most 255, parts and won not
   made) as soon as every guess it wants has a label other than win counted more than
   cap times (cap < 255), looked at every 32 codes.  The guesses past the last whole
   group are counted one by one, in full. */
static inline void mm_label_scan(uint8_t* const* rows, Py_ssize_t m, Py_ssize_t g0,
                                 Py_ssize_t n, int nl, int win, int cap,
                                 const uint32_t* want, uint8_t* most, uint8_t* parts,
                                 uint8_t* won, uint8_t* full) {
    Py_ssize_t g = g0;
#if defined(__AVX2__)
    const __m256i zero = _mm256_setzero_si256(), one = _mm256_set1_epi8(1);
    const __m256i over = _mm256_set1_epi8((char)(cap + 1));
    for (; g + 32 <= g0 + n; g += 32) {
        Py_ssize_t j = (g - g0) >> 5;
        __m256i cnt[64];
        int stopped = !want[j];
        for (int l = 0; l < nl; l++)
            cnt[l] = zero;
        for (Py_ssize_t t0 = 0; t0 < m && !stopped; t0 += 32) {
            Py_ssize_t t1 = t0 + 32 < m ? t0 + 32 : m;
            for (int lg = 0; lg < nl; lg += 10) {
                __m256i acc[10];
                for (int l = 0; l < 10; l++)
                    acc[l] = zero;
                for (Py_ssize_t t = t0; t < t1; t++) {
                    __m256i v = _mm256_loadu_si256((const __m256i*)(rows[t] + g));
                    if (lg == 0 && !(g & 63))   /* the rows' next lines, ahead */
                        __builtin_prefetch(rows[t] + g + 192);
                    for (int l = 0; l < 10; l++)
                        acc[l] = _mm256_sub_epi8(acc[l], _mm256_cmpeq_epi8(
                            v, _mm256_set1_epi8((char)(lg + l))));
                }
                for (int l = 0; l < 10 && lg + l < nl; l++)
                    cnt[lg + l] = _mm256_adds_epu8(cnt[lg + l], acc[l]);
            }
            if (t1 < m) {
                __m256i mx = zero;
                for (int l = 0; l < nl; l++)
                    if (l != win)
                        mx = _mm256_max_epu8(mx, cnt[l]);
                uint32_t dead = (uint32_t)_mm256_movemask_epi8(
                    _mm256_cmpeq_epi8(_mm256_max_epu8(mx, over), mx));
                stopped = (want[j] & ~dead) == 0;
            }
        }
        full[j] = (uint8_t)!stopped;
        if (stopped) {
            _mm256_storeu_si256((__m256i*)(most + (g - g0)), _mm256_set1_epi8((char)255));
            continue;
        }
        __m256i mx = zero, np = zero, wn = zero;
        for (int l = 0; l < nl; l++) {
            if (l == win) {
                wn = _mm256_min_epu8(cnt[l], one);
            } else {
                mx = _mm256_max_epu8(mx, cnt[l]);
                np = _mm256_add_epi8(np, _mm256_min_epu8(cnt[l], one));
            }
        }
        _mm256_storeu_si256((__m256i*)(most + (g - g0)), mx);
        _mm256_storeu_si256((__m256i*)(parts + (g - g0)), np);
        _mm256_storeu_si256((__m256i*)(won + (g - g0)), wn);
    }
#endif
    for (Py_ssize_t j = (g - g0) >> 5; j < (n + 31) >> 5; j++)
        full[j] = 1;                        /* the guesses left: counted in full below */
    for (; g < g0 + n; g++) {
        uint32_t cnt[64] = {0};
        uint32_t mxs = 0, nps = 0;
        for (Py_ssize_t t = 0; t < m; t++)
            cnt[rows[t][g]] += 1;
        for (int l = 0; l < nl; l++) {
            if (l == win)
                continue;
            if (cnt[l] > mxs)
                mxs = cnt[l];
            nps += cnt[l] != 0;
        }
        most[g - g0] = (uint8_t)(mxs < 255 ? mxs : 255);
        parts[g - g0] = (uint8_t)nps;
        won[g - g0] = (uint8_t)(cnt[win] != 0);
    }
}

#endif /* MASTERMIND_LABELS_H */
