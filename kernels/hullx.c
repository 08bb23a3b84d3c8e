/*
 * hullx.c — a certificate that two moving faces' swept hulls meet, eight
 * pairs at a time, ahead of the boolean GJK: a vertex's path through the
 * other face.
 *
 * In swept mode S5 asks whether conv(P) and conv(Q) meet, P and Q the six
 * positions of a face (points 0..2 at s, 3..5 at s-1).  The float filter
 * (hullf.c) settles most pairs that are apart; of the pairs it leaves, most
 * meet (on 300 cluttered spheres of 3,024 faces, 10 steps: 78 % of the
 * 615 k pairs that reach the hull test), and the boolean GJK has to close a
 * tetrahedron around the origin to show it, some 1,000 instructions a pair
 * (hull_bool.c).  A segment between two points of P lies in conv(P), a
 * triangle of three points of Q lies in conv(Q): when such a segment
 * crosses such a triangle, the hulls share the crossing point.  The
 * segments tried are the three vertex paths (k at s, k at s-1), against the
 * other face's triangle at s and at s-1, both ways round: twelve
 * segment/triangle tests a pair.  Counted on that scene, they certify 33 %
 * of the pairs that reach the hull test; adding the end triangles' edges
 * (the static triangle/triangle test at both ends) would certify 42 %, for
 * three times the arithmetic.
 *
 * A segment ab crosses the triangle t0 t1 t2 when a and b lie strictly on
 * opposite sides of its plane, det(t1-t0, t2-t0, x-t0) of opposite signs,
 * and the line ab passes strictly inside its three edges,
 * det(b-a, t_k-a, t_k+1 - a) of one sign for k = 0, 1, 2.
 *
 * Certified signs, in float.  The points are the store's float32 values
 * (exact), translated by -p0: each translated coordinate within u M of the
 * true one (u = 2^-24, M the largest |translated coordinate| of the lane),
 * so every difference of two translated points is within 4u M per
 * coordinate of the true one and at most 2M in magnitude.  A determinant of
 * three such vectors is computed within about 5u times its permanent
 * (at most 48 M^3) of the value on the computed vectors, and the vectors'
 * errors move it by at most about 250u M^3: together under 2^-15 M^3.  A
 * sign counts only where the value exceeds CROSS_THR = 2^-10 M^3 in
 * magnitude, 32 times that: then the true determinants have the signs
 * computed, the true path crosses the true triangle's interior, and the
 * hulls share a point.  No certificate of separation can exist, so
 * ck_hulls_meet's answer is 1 whatever the tolerance: a 1 here only skips
 * that work.  A lane with a coordinate that is not finite or above 2^29, or
 * M outside [2^-30, 2^30] (no overflow or underflow in M^3), answers 0:
 * "ask ck_hulls_meet".
 *
 * Layout and paths as in hullf.c: SoA across the eight pairs, p[k][c][lane],
 * every loop over lanes innermost (`omp simd`), compiled twice (AVX2 where
 * the CPU has it, else the portable path), the same arithmetic lane by lane.
 * tests/test_kernels.c checks every pair certified against the exact hull
 * test, pairs built to cross, and the two paths against each other.
 */
#include <stdint.h>

#include "kernels/kernels.h"
#include "kernels/cpu.h"

#define CROSS_THR 0x1p-10f
#define CROSS_MAXC 0x1p29f
#define CROSS_MINM 0x1p-30f
#define CROSS_MAXM 0x1p30f

#define LANES for (int l = 0; l < 8; ++l)

static inline float x_abs(float a) { return a < 0 ? -a : a; }
static inline float x_max(float a, float b) { return a > b ? a : b; }

/* r[l] |= a vertex path of A crosses B's triangle at s or at s-1 (A, B
 * translated; thr the determinants' threshold). */
static inline __attribute__((always_inline)) void x8_paths(const float (*A)[3][8], const float (*B)[3][8],
                                                           const float thr[8], int r[8])
{
    for (int t = 0; t < 6; t += 3) {
        const float(*T)[3][8] = B + t;
        float n[3][8], side[6][8];
#pragma omp simd
        LANES
        {
            const float e1x = T[1][0][l] - T[0][0][l], e1y = T[1][1][l] - T[0][1][l], e1z = T[1][2][l] - T[0][2][l];
            const float e2x = T[2][0][l] - T[0][0][l], e2y = T[2][1][l] - T[0][1][l], e2z = T[2][2][l] - T[0][2][l];
            n[0][l] = e1y * e2z - e1z * e2y;
            n[1][l] = e1z * e2x - e1x * e2z;
            n[2][l] = e1x * e2y - e1y * e2x;
        }
        for (int i = 0; i < 6; ++i) {
#pragma omp simd
            LANES side[i][l] = n[0][l] * (A[i][0][l] - T[0][0][l]) + n[1][l] * (A[i][1][l] - T[0][1][l]) +
                               n[2][l] * (A[i][2][l] - T[0][2][l]);
        }
        for (int k = 0; k < 3; ++k) {
            int opp[8], any = 0;
#pragma omp simd
            LANES
            {
                const float th = thr[l], sa = side[k][l], sb = side[k + 3][l];
                opp[l] = ((sa > th) & (sb < -th)) | ((sa < -th) & (sb > th));
            }
            LANES any |= opp[l];
            if (!any) continue; /* no lane's path crosses the plane: most */
#pragma omp simd
            LANES
            {
                const float th = thr[l];
                const float ax = A[k + 3][0][l] - A[k][0][l], ay = A[k + 3][1][l] - A[k][1][l],
                            az = A[k + 3][2][l] - A[k][2][l]; /* the path */
                const float ux = T[0][0][l] - A[k][0][l], uy = T[0][1][l] - A[k][1][l], uz = T[0][2][l] - A[k][2][l];
                const float vx = T[1][0][l] - A[k][0][l], vy = T[1][1][l] - A[k][1][l], vz = T[1][2][l] - A[k][2][l];
                const float wx = T[2][0][l] - A[k][0][l], wy = T[2][1][l] - A[k][1][l], wz = T[2][2][l] - A[k][2][l];
                const float d0 = ax * (uy * vz - uz * vy) + ay * (uz * vx - ux * vz) + az * (ux * vy - uy * vx);
                const float d1 = ax * (vy * wz - vz * wy) + ay * (vz * wx - vx * wz) + az * (vx * wy - vy * wx);
                const float d2 = ax * (wy * uz - wz * uy) + ay * (wz * ux - wx * uz) + az * (wx * uy - wy * ux);
                const int in = ((d0 > th) & (d1 > th) & (d2 > th)) | ((d0 < -th) & (d1 < -th) & (d2 < -th));
                r[l] |= opp[l] & in;
            }
        }
    }
}

static inline __attribute__((always_inline)) void x8_cross(const float (*p)[3][8], const float (*q)[3][8],
                                                           uint8_t meet[8])
{
    float P[6][3][8], Q[6][3][8], M[8], thr[8];
    int ok[8], r[8];
#pragma omp simd
    LANES M[l] = 0, ok[l] = 1, r[l] = 0;
    for (int k = 0; k < 6; ++k)
        for (int c = 0; c < 3; ++c) {
#pragma omp simd
            LANES
            {
                ok[l] &= (x_abs(p[k][c][l]) <= CROSS_MAXC) & (x_abs(q[k][c][l]) <= CROSS_MAXC);
                P[k][c][l] = p[k][c][l] - p[0][c][l];
                Q[k][c][l] = q[k][c][l] - p[0][c][l];
                M[l] = x_max(M[l], x_max(x_abs(P[k][c][l]), x_abs(Q[k][c][l])));
            }
        }
#pragma omp simd
    LANES
    {
        ok[l] &= (M[l] >= CROSS_MINM) & (M[l] <= CROSS_MAXM);
        thr[l] = CROSS_THR * M[l] * M[l] * M[l];
    }
    x8_paths((const float(*)[3][8])P, (const float(*)[3][8])Q, thr, r);
    x8_paths((const float(*)[3][8])Q, (const float(*)[3][8])P, thr, r);
#pragma omp simd
    LANES meet[l] = (uint8_t)(ok[l] & r[l]);
}

static CK_TARGET_AVX2 void cross_avx2(const float p[6][3][8], const float q[6][3][8], uint8_t meet[8])
{
    x8_cross(p, q, meet);
}

void ck_paths_cross_f32x8_plain(const float p[6][3][8], const float q[6][3][8], uint8_t meet[8])
{
    x8_cross(p, q, meet);
}

void ck_paths_cross_f32x8(const float p[6][3][8], const float q[6][3][8], uint8_t meet[8])
{
    if (ck_have_avx2()) cross_avx2(p, q, meet);
    else ck_paths_cross_f32x8_plain(p, q, meet);
}
