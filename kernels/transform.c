/*
 * transform.c — rigid transform of SoA vertex arrays (stage S0): the double
 * truth and its float culling copy.
 *
 * w = R * (s * l) + t for the double local mesh l; R row-major.  The matrix
 * is folded with the scale once, then each output is three products summed
 * in order, in double (the exact tests' positions), then rounded once to
 * float (the culling copy).  The AVX2 path does the same operations in the
 * same order (no FMA), so every instruction-set level gives the same bits.
 */
#include "kernels/kernels.h"
#include "kernels/cpu.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define CK_X86 1
#else
#define CK_X86 0
#endif

/* ---- the double truth (S0): w = R * (s * l) + t from double l -------------------------
 * The same products and sums, in the same order, on the double local mesh:
 * the world position in double (the exact tests' truth) and its rounding to
 * float32 (the culling copy).  Items i0, i0 + step, ... < i1. */
#if CK_X86
__attribute__((target("avx2"))) static int64_t transform_d_avx2(int64_t i, int64_t n, const double m[9],
                                                               const double t[3], const double *const L[3],
                                                               double *const W[3], float *const F[3])
{
    const __m256d m0 = _mm256_set1_pd(m[0]), m1 = _mm256_set1_pd(m[1]), m2 = _mm256_set1_pd(m[2]);
    const __m256d m3 = _mm256_set1_pd(m[3]), m4 = _mm256_set1_pd(m[4]), m5 = _mm256_set1_pd(m[5]);
    const __m256d m6 = _mm256_set1_pd(m[6]), m7 = _mm256_set1_pd(m[7]), m8 = _mm256_set1_pd(m[8]);
    const __m256d t0 = _mm256_set1_pd(t[0]), t1 = _mm256_set1_pd(t[1]), t2 = _mm256_set1_pd(t[2]);
    for (; i + 4 <= n; i += 4) {
        const __m256d x = _mm256_loadu_pd(L[0] + i), y = _mm256_loadu_pd(L[1] + i), z = _mm256_loadu_pd(L[2] + i);
        const __m256d a = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(m0, x), _mm256_mul_pd(m1, y)),
                                                      _mm256_mul_pd(m2, z)), t0);
        const __m256d b = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(m3, x), _mm256_mul_pd(m4, y)),
                                                      _mm256_mul_pd(m5, z)), t1);
        const __m256d c = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(m6, x), _mm256_mul_pd(m7, y)),
                                                      _mm256_mul_pd(m8, z)), t2);
        _mm256_storeu_pd(W[0] + i, a), _mm256_storeu_pd(W[1] + i, b), _mm256_storeu_pd(W[2] + i, c);
        _mm_storeu_ps(F[0] + i, _mm256_cvtpd_ps(a));
        _mm_storeu_ps(F[1] + i, _mm256_cvtpd_ps(b));
        _mm_storeu_ps(F[2] + i, _mm256_cvtpd_ps(c));
    }
    return i;
}
#endif

void ck_transform_d(int64_t i0, int64_t i1, int64_t step, const double R[9], double s, const double t[3],
                    const double *const L[3], double *const W[3], float *const F[3])
{
    const double m[9] = {R[0] * s, R[1] * s, R[2] * s, R[3] * s, R[4] * s, R[5] * s, R[6] * s, R[7] * s, R[8] * s};
    int64_t i = i0;
#if CK_X86
    if (step == 1 && i1 - i0 >= 4 && ck_have_avx2()) i = transform_d_avx2(i0, i1, m, t, L, W, F);
#endif
    for (; i < i1; i += step) {
        const double x = L[0][i], y = L[1][i], z = L[2][i];
        const double a = (m[0] * x + m[1] * y + m[2] * z) + t[0];
        const double b = (m[3] * x + m[4] * y + m[5] * z) + t[1];
        const double c = (m[6] * x + m[7] * y + m[8] * z) + t[2];
        W[0][i] = a, W[1][i] = b, W[2][i] = c;
        F[0][i] = (float)a, F[1][i] = (float)b, F[2][i] = (float)c;
    }
}
