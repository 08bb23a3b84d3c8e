/*
 * turning_boxes.c — swept boxes of the faces of a turning object, grown by their arc
 * margins (stage S1, swept mode).
 *
 * A face of an object that turns during a step leaves the hull of its six
 * positions by up to its arc margin m = k r + eps (stages/facetest.h: r the
 * largest local vertex radius of the face, k and eps the object's turn this
 * step), so its box is grown by m on every side, outward, with slack for
 * the roundings (clash_grow_side):
 *     g = m (1 + 2^-20),   lo' = (float)(lo - (g + 2^-22 |lo|)),
 *                          hi' = (float)(hi + (g + 2^-22 |hi|)),
 * in double, each product and sum rounded on its own (this file is compiled
 * without fused multiply-adds, as the scalar code that it replaces was), so
 * that the AVX2 path and ck_grow_boxes_ref give the same bits.  The object
 * box (olo, ohi) is reset to the bounds of the grown boxes.
 *
 * Before this kernel the growth was a scalar loop per axis after the face
 * boxes, most of S1's instructions on the cluttered scenes, whose spheres
 * all turn.  Here 4 faces go through each double vector, 8 a step.
 * Per face: reads 4 bytes of radius and the 24 bytes of box it rewrites
 * (the piece's boxes were just written by ck_face_boxes: in cache).
 */
#include <math.h>

#include "kernels/kernels.h"
#include "kernels/cpu.h"

static inline float gmn(float a, float b) { return b < a ? b : a; }
static inline float gmx(float a, float b) { return b > a ? b : a; }

/* One face's six sides; the bounds folded as the AVX2 path folds them. */
static inline void grow_one(int64_t f, const float *r, double k, double eps, float *const b[6], float lo[3],
                            float hi[3])
{
    const double g = (k * (double)r[f] + eps) * (1 + 0x1p-20);
    for (int d = 0; d < 3; ++d) {
        const double a = b[d][f], c = b[3 + d][f];
        b[d][f] = (float)(a - (g + 0x1p-22 * fabs(a)));
        b[3 + d][f] = (float)(c + (g + 0x1p-22 * fabs(c)));
        lo[d] = gmn(lo[d], b[d][f]), hi[d] = gmx(hi[d], b[3 + d][f]);
    }
}

void ck_grow_boxes_ref(int64_t f0, int64_t f1, int64_t step, const float *r, double k, double eps, float *lox,
                       float *loy, float *loz, float *hix, float *hiy, float *hiz, float olo[3], float ohi[3])
{
    float *const b[6] = {lox, loy, loz, hix, hiy, hiz};
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int64_t f = f0; f < f1; f += step) grow_one(f, r, k, eps, b, lo, hi);
    for (int d = 0; d < 3; ++d) olo[d] = lo[d], ohi[d] = hi[d];
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define CK_AVX2 __attribute__((target("avx2")))

/* 4 faces of one side: v' = (float)(v -/+ (g + 2^-22 |v|)) */
static inline CK_AVX2 __m128 side4(__m128 v, __m256d g, int up)
{
    const __m256d a = _mm256_cvtps_pd(v), abs_mask = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
    const __m256d t = _mm256_add_pd(g, _mm256_mul_pd(_mm256_set1_pd(0x1p-22), _mm256_and_pd(a, abs_mask)));
    return _mm256_cvtpd_ps(up ? _mm256_add_pd(a, t) : _mm256_sub_pd(a, t));
}

static CK_AVX2 void grow_avx2(int64_t n, const float *r, double k, double eps, float *const b[6], float lo[3],
                              float hi[3])
{
    const __m256d K = _mm256_set1_pd(k), E = _mm256_set1_pd(eps), S = _mm256_set1_pd(1 + 0x1p-20);
    __m256 ml[3], mh[3];
    for (int d = 0; d < 3; ++d) ml[d] = _mm256_set1_ps(INFINITY), mh[d] = _mm256_set1_ps(-INFINITY);
    int64_t f = 0;
    for (; f + 8 <= n; f += 8) {
        const __m128 r0 = _mm_loadu_ps(r + f), r1 = _mm_loadu_ps(r + f + 4);
        const __m256d g0 = _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(K, _mm256_cvtps_pd(r0)), E), S);
        const __m256d g1 = _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(K, _mm256_cvtps_pd(r1)), E), S);
        for (int s = 0; s < 6; ++s) {
            float *p = b[s] + f;
            const __m256 v = _mm256_set_m128(side4(_mm_loadu_ps(p + 4), g1, s >= 3), side4(_mm_loadu_ps(p), g0, s >= 3));
            _mm256_storeu_ps(p, v);
            /* (min_ps(v, m) = v < m ? v : m: gmn(m, v)'s operand order) */
            if (s < 3) ml[s] = _mm256_min_ps(v, ml[s]);
            else mh[s - 3] = _mm256_max_ps(v, mh[s - 3]);
        }
    }
    for (int d = 0; d < 3; ++d) {
        float a[8], c[8];
        _mm256_storeu_ps(a, ml[d]), _mm256_storeu_ps(c, mh[d]);
        for (int i = 0; i < 8; ++i) lo[d] = gmn(lo[d], a[i]), hi[d] = gmx(hi[d], c[i]);
    }
    for (; f < n; ++f) grow_one(f, r, k, eps, b, lo, hi);
}
#define CK_X86 1
#else
#define CK_X86 0
#endif

void ck_grow_boxes(int64_t f0, int64_t f1, int64_t step, const float *r, double k, double eps, float *lox,
                   float *loy, float *loz, float *hix, float *hiy, float *hiz, float olo[3], float ohi[3])
{
#if CK_X86
    if (step == 1 && f1 - f0 >= 8 && ck_have_avx2()) {
        float *const b[6] = {lox + f0, loy + f0, loz + f0, hix + f0, hiy + f0, hiz + f0};
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        grow_avx2(f1 - f0, r + f0, k, eps, b, lo, hi);
        for (int d = 0; d < 3; ++d) olo[d] = lo[d], ohi[d] = hi[d];
        return;
    }
#endif
    ck_grow_boxes_ref(f0, f1, step, r, k, eps, lox, loy, loz, hix, hiy, hiz, olo, ohi);
}
