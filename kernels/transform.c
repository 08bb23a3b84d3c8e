/*
 * transform.c — rigid transform of SoA vertex arrays (stage S0).
 *
 * w = R * (s * l) + t for n vertices; R row-major.  The matrix is folded
 * with the scale once, then each output is three fused multiply-adds of
 * float inputs in double, rounded once to float.  Streaming: reads 12 bytes
 * and writes 12 bytes per vertex.  The optimized and reference versions give
 * bit-identical results (same operation order).
 */
#include "kernels/kernels.h"

void ck_transform_ref(int64_t n, const double R[9], double s, const double t[3], const float *lx, const float *ly,
                      const float *lz, float *wx, float *wy, float *wz)
{
    for (int64_t i = 0; i < n; ++i) {
        const double x = lx[i], y = ly[i], z = lz[i];
        wx[i] = (float)(((R[0] * s) * x + (R[1] * s) * y + (R[2] * s) * z) + t[0]);
        wy[i] = (float)(((R[3] * s) * x + (R[4] * s) * y + (R[5] * s) * z) + t[1]);
        wz[i] = (float)(((R[6] * s) * x + (R[7] * s) * y + (R[8] * s) * z) + t[2]);
    }
}

void ck_transform(int64_t n, const double R[9], double s, const double t[3], const float *restrict lx,
                  const float *restrict ly, const float *restrict lz, float *restrict wx, float *restrict wy,
                  float *restrict wz)
{
    const double m0 = R[0] * s, m1 = R[1] * s, m2 = R[2] * s;
    const double m3 = R[3] * s, m4 = R[4] * s, m5 = R[5] * s;
    const double m6 = R[6] * s, m7 = R[7] * s, m8 = R[8] * s;
    const double t0 = t[0], t1 = t[1], t2 = t[2];
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) {
        const double x = lx[i], y = ly[i], z = lz[i];
        wx[i] = (float)((m0 * x + m1 * y + m2 * z) + t0);
        wy[i] = (float)((m3 * x + m4 * y + m5 * z) + t1);
        wz[i] = (float)((m6 * x + m7 * y + m8 * z) + t2);
    }
}

/* ---- strided (stride partition): items i0, i0+step, ... < i1 ---------------------- */

void ck_transform_strided_ref(int64_t i0, int64_t i1, int64_t step, const double R[9], double s, const double t[3],
                              const float *lx, const float *ly, const float *lz, float *wx, float *wy, float *wz)
{
    for (int64_t i = i0; i < i1; i += step)
        ck_transform_ref(1, R, s, t, lx + i, ly + i, lz + i, wx + i, wy + i, wz + i);
}

void ck_transform_strided(int64_t i0, int64_t i1, int64_t step, const double R[9], double s, const double t[3],
                          const float *restrict lx, const float *restrict ly, const float *restrict lz,
                          float *restrict wx, float *restrict wy, float *restrict wz)
{
    if (step == 1) {
        if (i1 > i0) ck_transform(i1 - i0, R, s, t, lx + i0, ly + i0, lz + i0, wx + i0, wy + i0, wz + i0);
        return;
    }
    const double m0 = R[0] * s, m1 = R[1] * s, m2 = R[2] * s;
    const double m3 = R[3] * s, m4 = R[4] * s, m5 = R[5] * s;
    const double m6 = R[6] * s, m7 = R[7] * s, m8 = R[8] * s;
    const double t0 = t[0], t1 = t[1], t2 = t[2];
    for (int64_t i = i0; i < i1; i += step) {
        const double x = lx[i], y = ly[i], z = lz[i];
        wx[i] = (float)((m0 * x + m1 * y + m2 * z) + t0);
        wy[i] = (float)((m3 * x + m4 * y + m5 * z) + t1);
        wz[i] = (float)((m6 * x + m7 * y + m8 * z) + t2);
    }
}
