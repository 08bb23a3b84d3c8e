/*
 * ccd_filter.c — the first float filter in front of the CCD root finder
 * (ccd.c): separation along a coordinate axis, several queries at a time.
 *
 * F = (a point of A) - (a point of B) (ccd.c), A = the vertex or edge a,
 * B = the face or edge b.  At a time t each point of A is a convex
 * combination of A's corners and each of B a combination of B's, so F_k(t)
 * is a convex combination of the corner differences d = a_i(t)_k - b_j(t)_k
 * (VF: v - f0, v - f1, v - f2; EE: the four a_i - b_j); and each d is linear
 * in t.  So when along some axis k all those differences exceed ms at t = 0
 * and at t = 1, F_k > ms at every t and every point: more than ms apart in
 * the max norm at every time, no contact.  Likewise all below -ms.  This
 * is the test of swept axis-aligned boxes (which it contains: boxes apart by
 * ms along k make every such difference exceed ms) with the times kept
 * apart: a vertex that stays on one side of a face along an axis while both
 * move a long way is set apart too, which swept boxes cannot do (on
 * armadillo-rollers 468,168 of the 715,928 pairs the boxes and ccd_planes.c
 * left to the root finder, each of which cost it a box).
 *
 * Exactness: each d is one subtraction of two inputs, which rounds
 * monotonically, and ms is a double, so fl(d) > ms implies d > ms: every
 * "apart" is certified with no error term (overflow gives +-inf, which is
 * right; NaN compares false, so "keep").  The coplanarity filter
 * (ccd_planes.c) runs next on what this keeps.
 *
 * ck_ccd_filter_ref is the portable one-query-at-a-time loop; ck_ccd_filter
 * runs four queries per AVX2 register (lane j = query i + j, the 12 inputs
 * gathered with a stride of 12 doubles) and the tail on the portable loop.
 * Both use the same operations (a subtraction and two comparisons per
 * difference), so they decide alike bit for bit; the tests compare them on
 * every benchmark query.
 */
#include <stddef.h>

#include "kernels/ccd.h"
#include "kernels/cpu.h"

/* The point pairs (A's point, B's point) whose differences bound F: VF (v, f_i), EE (a_i, b_j) */
static const int pair_a[2][4] = {{0, 0, 0, 0}, {0, 0, 1, 1}}, pair_b[2][4] = {{1, 2, 3, 3}, {2, 3, 2, 3}};

static int keep_one(int kind, const double x0[4][3], const double x1[4][3], double ms)
{
    const int *pa = pair_a[kind == CK_CCD_EE], *pb = pair_b[kind == CK_CCD_EE];
    for (int k = 0; k < 3; ++k) {
        int above = 1, below = 1;
        for (int s = 0; s < 2; ++s) {
            const double(*x)[3] = s ? x1 : x0;
            for (int i = 0; i < 4; ++i) {
                const double d = x[pa[i]][k] - x[pb[i]][k];
                above &= d > ms, below &= d < -ms;
            }
        }
        if (above || below) return 0;
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


static CK_AVX2 void filter_avx2(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3], double ms,
                                uint8_t *keep)
{
    const int *pa = pair_a[kind == CK_CCD_EE], *pb = pair_b[kind == CK_CCD_EE];
    const __m256i idx = _mm256_set_epi64x(36, 24, 12, 0);
    const __m256d vms = _mm256_set1_pd(ms), nms = _mm256_set1_pd(-ms);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256d apart = _mm256_setzero_pd();
        for (int k = 0; k < 3; ++k) {
            __m256d above = _mm256_castsi256_pd(_mm256_set1_epi64x(-1)), below = above;
            for (int s = 0; s < 2; ++s) {
                const double *p = s ? &x1[i][0][0] : &x0[i][0][0];
                for (int j = 0; j < 4; ++j) {
                    const __m256d d = _mm256_sub_pd(_mm256_i64gather_pd(p + 3 * pa[j] + k, idx, 8),
                                                    _mm256_i64gather_pd(p + 3 * pb[j] + k, idx, 8));
                    above = _mm256_and_pd(above, _mm256_cmp_pd(d, vms, _CMP_GT_OQ));
                    below = _mm256_and_pd(below, _mm256_cmp_pd(d, nms, _CMP_LT_OQ));
                }
            }
            apart = _mm256_or_pd(apart, _mm256_or_pd(above, below));
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
    if (n >= 4 && ck_have_avx2()) {
        filter_avx2(kind, n, x0, x1, min_sep, keep);
        return;
    }
#endif
    ck_ccd_filter_ref(kind, n, x0, x1, min_sep, keep);
}
