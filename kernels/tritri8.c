/*
 * tritri8.c — the exact triangle/triangle test of tritri.c, eight pairs at
 * a time, for the pairs whose answer needs no exact arithmetic.
 *
 * ck_tritri (tritri.c) decides whether two closed triangles share a point
 * by Guigue & Devillers' orientation tests, each evaluated in double with
 * Shewchuk's static error bound and recomputed exactly when the bound does
 * not settle its sign.  Almost every pair a face-pair stage hands it is in
 * general position: every sign is settled by the bound, and the test is
 * eight orientations and a few branches.  But one pair at a time those
 * branches (which vertex is alone on its side, which pair of vertices to
 * swap) are data-dependent and mispredicted, and the exact fallback inlined
 * into every call keeps the compiler from keeping anything in registers
 * (bench/RESULTS.md has the cost a call).
 *
 * Here the same test runs in lanes, branch-free, in double:
 *   1. the three vertices of each triangle against the other's plane
 *      (tt_plane_orient's arithmetic: the plane's cross product once, then
 *      one determinant and its bound per vertex);
 *   2. a triangle strictly on one side of the other's plane, with its three
 *      signs settled: apart;
 *   3. otherwise, with all six signs settled (none zero), the canonical form
 *      as index arithmetic: the vertex alone on its side starts each
 *      triangle, and the other triangle's last two vertices swap when that
 *      vertex lies below (tritri.c, gd_3d); the points are then picked by
 *      blends;
 *   4. the two orientations [p1, q1, p2, q2] and [p1, r1, r2, p2]: apart when
 *      either is settled positive, meeting when both are settled and neither
 *      is positive.
 * A lane whose answer any unsettled sign could change (a sign within its
 * bound: coplanar, touching, degenerate or nearly so, non-finite input) is
 * left to ck_tritri.  Every sign used is the exact sign (the determinant is
 * tt_orient3's expression, operation for operation, and its bound holds for
 * it; this file is built without fused multiply-adds), so every answer is
 * ck_tritri's: tests/unit/test_tritri8.c compares the two on random, touching,
 * coplanar, degenerate and grid pairs.
 *
 * Layout as hull_filter8.c's filter: p[k][c][lane], point k = 0..2, coordinate c;
 * doubles in (the store's double truth: ck_tritri's bounds hold for any
 * double input, so the answers are exact on the host's coordinates; the
 * float entry points convert exactly, for their tests).  Every quantity an
 * array over the lanes, every loop over lanes innermost (`omp simd`), so the
 * AVX2 build makes each line a couple of 4-wide double instructions.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "kernels/kernels.h"
#include "kernels/cpu.h"

#define LANES for (int l = 0; l < 8; ++l)
#define T8_U (DBL_EPSILON / 2)
#define T8_BOUND ((7.0 + 56.0 * T8_U) * T8_U) /* tritri.c's bound on [a, b, c, d], times its permanent */

typedef double v8[8];

/* The signs of d[0..2] against the plane through a, b, c (tt_plane_init and
 * tt_plane_orient's arithmetic): the determinants, and whether each sign is
 * settled by the bound. */
static inline void t8_plane(const v8 *a, const v8 *b, const v8 *c, const v8 (*d)[3], v8 det[3], v8 set[3])
{
    v8 n[3], m[3];
#pragma omp simd
    LANES
    {
        const double ux = b[0][l] - a[0][l], uy = b[1][l] - a[1][l], uz = b[2][l] - a[2][l];
        const double vx = c[0][l] - a[0][l], vy = c[1][l] - a[1][l], vz = c[2][l] - a[2][l];
        const double c0a = uy * vz, c0b = uz * vy, c1a = uz * vx, c1b = ux * vz, c2a = ux * vy, c2b = uy * vx;
        n[0][l] = c0a - c0b, n[1][l] = c1a - c1b, n[2][l] = c2a - c2b;
        m[0][l] = fabs(c0a) + fabs(c0b), m[1][l] = fabs(c1a) + fabs(c1b), m[2][l] = fabs(c2a) + fabs(c2b);
    }
    for (int k = 0; k < 3; ++k) {
#pragma omp simd
        LANES
        {
            const double wx = d[k][0][l] - a[0][l], wy = d[k][1][l] - a[1][l], wz = d[k][2][l] - a[2][l];
            const double t = wx * n[0][l] + wy * n[1][l] + wz * n[2][l];
            const double bound = T8_BOUND * (fabs(wx) * m[0][l] + fabs(wy) * m[1][l] + fabs(wz) * m[2][l]);
            det[k][l] = t;
            set[k][l] = (t > bound) | (-t > bound);
        }
    }
}

/* [a, b, c, d] = (b - a) x (c - a) . (d - a) (tt_orient3's arithmetic), and
 * whether its sign is settled. */
static inline void t8_orient(const v8 *a, const v8 *b, const v8 *c, const v8 *d, v8 det, v8 set)
{
#pragma omp simd
    LANES
    {
        const double ux = b[0][l] - a[0][l], uy = b[1][l] - a[1][l], uz = b[2][l] - a[2][l];
        const double vx = c[0][l] - a[0][l], vy = c[1][l] - a[1][l], vz = c[2][l] - a[2][l];
        const double wx = d[0][l] - a[0][l], wy = d[1][l] - a[1][l], wz = d[2][l] - a[2][l];
        const double c0a = uy * vz, c0b = uz * vy, c1a = uz * vx, c1b = ux * vz, c2a = ux * vy, c2b = uy * vx;
        const double t = wx * (c0a - c0b) + wy * (c1a - c1b) + wz * (c2a - c2b);
        const double perm = fabs(wx) * (fabs(c0a) + fabs(c0b)) + fabs(wy) * (fabs(c1a) + fabs(c1b)) +
                            fabs(wz) * (fabs(c2a) + fabs(c2b));
        const double bound = T8_BOUND * perm;
        det[l] = t;
        set[l] = (t > bound) | (-t > bound);
    }
}

/* out = the point numbered i[l] (0, 1, 2) of t, lane by lane. */
static inline void t8_pick(const v8 (*t)[3], const v8 i, v8 out[3])
{
    for (int c = 0; c < 3; ++c) {
#pragma omp simd
        LANES
        {
            const double x0 = t[0][c][l], x1 = t[1][c][l], x2 = t[2][c][l], k = i[l];
            out[c][l] = k == 0 ? x0 : k == 1 ? x1 : x2;
        }
    }
}

static inline double t8_or(double a, double b) { return a > b ? a : b; }


/* The lanes' answers where settled: done[l] = 1 and meet[l] the answer, or
 * done[l] = 0 (ck_tritri's to give). */
static inline __attribute__((always_inline)) void t8_test(const double p[3][3][8], const double q[3][3][8],
                                                           uint8_t meet[8], uint8_t done[8])
{
    v8 A[3][3], B[3][3];
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c) {
#pragma omp simd
            LANES A[k][c][l] = p[k][c][l], B[k][c][l] = q[k][c][l];
        }
    v8 d1[3], s1[3], d2[3], s2[3];
    t8_plane(B[0], B[1], B[2], (const v8(*)[3])A, d1, s1); /* T1's vertices against T2's plane */
    t8_plane(A[0], A[1], A[2], (const v8(*)[3])B, d2, s2); /* T2's against T1's */
    v8 i1[3], i2[3], res, fin;
    /* Flags are doubles 0 and 1 (and: a product; or: a maximum) and the
     * vertex numbers doubles 0, 1, 2, computed by arithmetic, so that the
     * lane loops hold no branch and stay vector code.  With the signs u_k
     * of T1's vertices (1: above T2's plane) summing to S, T1 straddles
     * when S is 1 or 2; its lone vertex is then the one above (S = 1:
     * number u_1 + 2 u_2) or the one below (S = 2: 3 - u_1 - 2 u_2). */
#pragma omp simd
    LANES
    {
        const double all1 = s1[0][l] * s1[1][l] * s1[2][l], all2 = s2[0][l] * s2[1][l] * s2[2][l];
        const double u1 = d1[1][l] > 0 ? 1.0 : 0.0, u2 = d1[2][l] > 0 ? 1.0 : 0.0;
        const double w1 = d2[1][l] > 0 ? 1.0 : 0.0, w2 = d2[2][l] > 0 ? 1.0 : 0.0;
        const double S1 = (d1[0][l] > 0 ? 1.0 : 0.0) + u1 + u2, S2 = (d2[0][l] > 0 ? 1.0 : 0.0) + w1 + w2;
        const double side1 = S1 * (3 - S1) == 0 ? 1.0 : 0.0, side2 = S2 * (3 - S2) == 0 ? 1.0 : 0.0;
        const double apart = t8_or(all1 * side1, all2 * side2);
        /* canonical form (both straddle, all six signs settled) */
        const double up1 = S1 == 1 ? 1.0 : 0.0; /* T1's lone vertex above: T2 keeps its order */
        const double lone1 = up1 * (u1 + 2 * u2) + (1 - up1) * (3 - u1 - 2 * u2);
        /* T2 in the order (0, 1, 2), or (0, 2, 1) when T1's lone vertex is below: L_j = j or -j mod 3 */
        const double r1 = up1 * w1 + (1 - up1) * w2, r2 = up1 * w2 + (1 - up1) * w1;
        const double up2 = S2 == 1 ? 1.0 : 0.0;
        const double lone2 = up2 * (r1 + 2 * r2) + (1 - up2) * (3 - r1 - 2 * r2);
        /* T1 from its lone vertex, its last two swapped when T2's lone vertex is below */
        const double a1 = lone1 == 2 ? 0.0 : lone1 + 1, a2 = lone1 == 0 ? 2.0 : lone1 - 1;
        i1[0][l] = lone1, i1[1][l] = up2 * a1 + (1 - up2) * a2, i1[2][l] = up2 * a2 + (1 - up2) * a1;
        /* T2 from its lone vertex in the list L */
        for (int k = 0; k < 3; ++k) {
            const double m0 = lone2 + k, m = m0 >= 3 ? m0 - 3 : m0, n = m == 0 ? 0.0 : 3 - m;
            i2[k][l] = up1 * m + (1 - up1) * n;
        }
        res[l] = apart;
        fin[l] = all1 * all2 * (1.0 - apart); /* both straddle: the last two orientations decide */
    }
    v8 P1[3], Q1[3], R1[3], P2[3], Q2[3], R2[3];
    t8_pick((const v8(*)[3])A, i1[0], P1), t8_pick((const v8(*)[3])A, i1[1], Q1), t8_pick((const v8(*)[3])A, i1[2], R1);
    t8_pick((const v8(*)[3])B, i2[0], P2), t8_pick((const v8(*)[3])B, i2[1], Q2), t8_pick((const v8(*)[3])B, i2[2], R2);
    v8 ea, sa, eb, sb, dn, mt;
    t8_orient(P1, Q1, P2, Q2, ea, sa);
    t8_orient(P1, R1, R2, P2, eb, sb);
#pragma omp simd
    LANES
    {
        const double out_a = ea[l] > 0 ? sa[l] : 0.0, out_b = eb[l] > 0 ? sb[l] : 0.0; /* settled positive */
        const double out = t8_or(out_a, out_b);
        /* apart; or both straddle and one settled positive, or both settled */
        dn[l] = t8_or(res[l], fin[l] * t8_or(out, sa[l] * sb[l]));
        mt[l] = fin[l] * (1.0 - out) * sa[l] * sb[l];
    }
    LANES done[l] = (uint8_t)(dn[l] != 0), meet[l] = (uint8_t)(mt[l] != 0);
}


static CK_TARGET_AVX2 void t8_test_avx2(const double p[3][3][8], const double q[3][3][8], uint8_t meet[8],
                                        uint8_t done[8])
{
    t8_test(p, q, meet, done);
}

/* The lanes' answers: t8_test where it settles them, ck_tritri for the rest
 * (lanes 0..n-1; lanes past n are computed and dropped, so they must hold
 * initialised values).  Returns the lanes left to ck_tritri. */
static int t8_run(int avx2, const double p[3][3][8], const double q[3][3][8], int n, uint8_t meet[8])
{
    uint8_t done[8];
    if (avx2) t8_test_avx2(p, q, meet, done);
    else t8_test(p, q, meet, done);
    int left = 0;
    for (int l = 0; l < n; ++l) {
        if (done[l]) continue;
        double a[3][3], b[3][3];
        for (int k = 0; k < 3; ++k)
            for (int c = 0; c < 3; ++c) a[k][c] = p[k][c][l], b[k][c] = q[k][c][l];
        meet[l] = (uint8_t)ck_tritri(a[0], a[1], a[2], b[0], b[1], b[2]);
        ++left;
    }
    return left;
}

int ck_tritri_d8(const double p[3][3][8], const double q[3][3][8], int n, uint8_t meet[8])
{
    return t8_run(ck_have_avx2(), p, q, n, meet);
}

/* Float lanes converted exactly to double lanes. */
static void t8_widen(const float p[3][3][8], double d[3][3][8])
{
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c)
            for (int l = 0; l < 8; ++l) d[k][c][l] = p[k][c][l];
}

int ck_tritri_f32x8(const float p[3][3][8], const float q[3][3][8], int n, uint8_t meet[8])
{
    double a[3][3][8], b[3][3][8];
    t8_widen(p, a), t8_widen(q, b);
    return t8_run(ck_have_avx2(), (const double(*)[3][8])a, (const double(*)[3][8])b, n, meet);
}

int ck_tritri_f32x8_plain(const float p[3][3][8], const float q[3][3][8], int n, uint8_t meet[8])
{
    double a[3][3][8], b[3][3][8];
    t8_widen(p, a), t8_widen(q, b);
    return t8_run(0, (const double(*)[3][8])a, (const double(*)[3][8])b, n, meet);
}

int ck_tri8_add(ck_tri8_batch *b, const double (*p)[3][8], const double (*q)[3][8], int l)
{
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c) b->p[k][c][b->n] = p[k][c][l], b->q[k][c][b->n] = q[k][c][l];
    return ++b->n;
}

int ck_tri8_flush(ck_tri8_batch *b, uint8_t meet[8])
{
    const int n = b->n;
    if (!n) return 0;
    for (int l = n; l < 8; ++l) /* lanes past n: pair 0 again (their answers are dropped) */
        for (int k = 0; k < 3; ++k)
            for (int c = 0; c < 3; ++c) b->p[k][c][l] = b->p[k][c][0], b->q[k][c][l] = b->q[k][c][0];
    ck_tritri_d8((const double(*)[3][8])b->p, (const double(*)[3][8])b->q, n, meet);
    b->n = 0;
    return n;
}
