/*
 * ccd_filter.c — the float filter in front of the CCD root finder (ccd.c):
 * swept axis-aligned boxes, several queries at a time.
 *
 * Under linear motion every point of a primitive stays inside the box of its
 * corners' positions at t = 0 and t = 1 (a convex combination of them), so
 * the primitives are more than ms apart at every t in [0, 1] when, along
 * some axis k, one swept box ends more than ms before the other begins:
 *     lo_B[k] - hi_A[k] > ms   or   lo_A[k] - hi_B[k] > ms.
 * A = the vertex (2 positions) or edge a (4), B = the face (6) or edge b (4).
 *
 * Exactness: the bounds are minima and maxima of the inputs (no rounding).
 * The one subtraction rounds monotonically, and ms is a double, so
 * fl(x) > ms implies x > ms: every "apart" is certified with no error term
 * (overflow gives +inf, which is right; NaN compares false, so "keep").
 * The decision is thus exact for the boxes; it only loses the cases where
 * the boxes overlap but the primitives never come close, which the root
 * finder then settles.  Tang, Manocha & Tong's deforming non-penetration
 * filters or Brochu et al.'s exact predicates cut more, at a higher price;
 * on the benchmark (bench/RESULTS.md) the boxes send most non-colliding
 * queries home.
 *
 * ck_ccd_filter_ref is the portable one-query-at-a-time loop; ck_ccd_filter
 * runs four queries per AVX2 register (lane j = query i + j, the 12 inputs
 * gathered with a stride of 12 doubles) and the tail on the portable loop.
 * Both use the same operations in the same order — min as (x < m ? x : m),
 * which is what vminpd(x, m) computes, NaN included — so they decide alike
 * bit for bit; the tests compare them on every benchmark query.
 */
#include <stddef.h>

#include "kernels/ccd.h"

/* Swept boxes of points [i0, i1) of the query, axis k */
static inline void span(const double x0[4][3], const double x1[4][3], int i0, int i1, int k, double *lo,
                        double *hi)
{
    double l = x0[i0][k], h = x0[i0][k];
    for (int i = i0; i < i1; ++i) {
        const double a = x0[i][k], b = x1[i][k];
        l = a < l ? a : l, h = a > h ? a : h;
        l = b < l ? b : l, h = b > h ? b : h;
    }
    *lo = l, *hi = h;
}

static int keep_one(int kind, const double x0[4][3], const double x1[4][3], double ms)
{
    const int na = kind == CK_CCD_EE ? 2 : 1; /* points 0..na-1 are A, the rest B */
    for (int k = 0; k < 3; ++k) {
        double la, ha, lb, hb;
        span(x0, x1, 0, na, k, &la, &ha);
        span(x0, x1, na, 4, k, &lb, &hb);
        if (lb - ha > ms || la - hb > ms) return 0;
    }
    return 1;
}

void ck_ccd_filter_ref(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3], double min_sep,
                       uint8_t *keep)
{
    for (int64_t i = 0; i < n; ++i) keep[i] = (uint8_t)keep_one(kind, x0[i], x1[i], min_sep);
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define CK_AVX2 __attribute__((target("avx2")))

static inline int have_avx2(void) { return __builtin_cpu_supports("avx2"); }

/* span() on four queries: p points at the query's first double, stride 12 */
static inline CK_AVX2 void span4(const double *p0, const double *p1, __m256i idx, int i0, int i1, int k, __m256d *lo,
                                 __m256d *hi)
{
    __m256d l = _mm256_i64gather_pd(p0 + 3 * i0 + k, idx, 8), h = l;
    for (int i = i0; i < i1; ++i) {
        const __m256d a = _mm256_i64gather_pd(p0 + 3 * i + k, idx, 8);
        const __m256d b = _mm256_i64gather_pd(p1 + 3 * i + k, idx, 8);
        l = _mm256_min_pd(a, l), h = _mm256_max_pd(a, h);
        l = _mm256_min_pd(b, l), h = _mm256_max_pd(b, h);
    }
    *lo = l, *hi = h;
}

static CK_AVX2 void filter_avx2(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3], double ms,
                                uint8_t *keep)
{
    const int na = kind == CK_CCD_EE ? 2 : 1;
    const __m256i idx = _mm256_set_epi64x(36, 24, 12, 0);
    const __m256d vms = _mm256_set1_pd(ms);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const double *p0 = &x0[i][0][0], *p1 = &x1[i][0][0];
        __m256d apart = _mm256_setzero_pd();
        for (int k = 0; k < 3; ++k) {
            __m256d la, ha, lb, hb;
            span4(p0, p1, idx, 0, na, k, &la, &ha);
            span4(p0, p1, idx, na, 4, k, &lb, &hb);
            apart = _mm256_or_pd(apart, _mm256_cmp_pd(_mm256_sub_pd(lb, ha), vms, _CMP_GT_OQ));
            apart = _mm256_or_pd(apart, _mm256_cmp_pd(_mm256_sub_pd(la, hb), vms, _CMP_GT_OQ));
        }
        const int m = _mm256_movemask_pd(apart);
        for (int j = 0; j < 4; ++j) keep[i + j] = (uint8_t)!((m >> j) & 1);
    }
    ck_ccd_filter_ref(kind, n - i, x0 + i, x1 + i, ms, keep + i);
}
#endif

void ck_ccd_filter(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3], double min_sep,
                   uint8_t *keep)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (n >= 4 && have_avx2()) {
        filter_avx2(kind, n, x0, x1, min_sep, keep);
        return;
    }
#endif
    ck_ccd_filter_ref(kind, n, x0, x1, min_sep, keep);
}
