/*
 * hull_bool.c — a boolean GJK in front of ck_hulls_meet's distance GJK:
 * does the origin lie in D = conv(P) - conv(Q), yes, no, or "can't tell"?
 *
 * ck_hulls_meet (hull.c) runs GJK as a distance algorithm: each step finds
 * the point of the current simplex closest to the origin, by Voronoi
 * regions, down to the tetrahedron's four triangles.  That is what a pair
 * apart but within the tolerance needs, and it certifies separations the
 * moment they show; but most pairs that reach it on cluttered scenes meet
 * (482 k of 901 k on 300 spheres over 10 steps), and for them the closest
 * points are wasted work: GJK only has to enclose the origin.
 *
 * Here the simplex is kept as the smallest feature (point, segment,
 * triangle, tetrahedron) whose region points at the origin, with the next
 * direction from cross products alone (the "boolean" GJK of game engines,
 * e.g. Ericson, Real-Time Collision Detection 9.5, and Muratori's
 * formulation).  It answers only where it can prove the answer:
 *
 *   0  apart: a search direction d had  min_q d.q - max_p d.p > margin,
 *      the certificate of hull.c (h_margin: rounding and tol included);
 *   1  meet: the tetrahedron of the last four support differences holds
 *      the origin with every one of its barycentric determinants above
 *      2^-36 M^3 in magnitude, of one sign.  The computed differences are
 *      within 4u M per coordinate of the true p - q (M as in hull.c, the
 *      bound of the translated coordinates) and the determinants' rounding
 *      is below 7u times their permanents, together under 2^-40 M^3 for
 *      coordinates up to 2M: so the true determinants have the same signs,
 *      the origin lies in the tetrahedron of true support differences,
 *      which lies in D, and the hulls share a point.  No certificate of
 *      separation can exist then, so ck_hulls_meet's answer would be 1 as
 *      well, whatever the tolerance;
 *  -1  anything else (a degenerate simplex, a stall, the origin near a
 *      face, a separation too thin to certify): the caller goes on with the
 *      distance GJK.
 * A "meet" is the answer the distance GJK would give; an "apart" is a
 * certified fact, which the distance GJK and its reference axes give too
 * except, at most, for pairs apart by a few rounding margins (the pairs'
 * checksums of every scene measured are unchanged, bench/RESULTS.md).
 * tests/unit/test_kernels.c checks every decision against exact rational
 * arithmetic on grid data, and the AVX2 path against the portable one.
 *
 * Within tol.  With tol > 0 (swept mode's arc margins) the question is
 * whether the hulls come within tol: whether the origin lies in D grown by
 * the ball of radius tol, D' = D + B(tol), whose support point along d is
 * the support difference plus tol d/|d|.  Walking D itself instead, a pair
 * apart along d by less than tol (neither certified apart nor shown to
 * meet) would go to the distance GJK, a good part of S5's pairs on the
 * cluttered spheres and each far costlier (bench/RESULTS.md).  Where
 * 0 < tol <= M, the simplex is made of
 * the support points of D':
 *   - "apart" is the certificate above, unchanged (its margin holds tol);
 *   - "meet" is the tetrahedron test above on points of D': each computed
 *     point is within 4u M (the difference) + u 3M (the sum) + 2u tol (the
 *     offset, rounded) < 8u M per coordinate of an exact point of D', and
 *     the coordinates stay below 3M: twice the perturbation on coordinates
 *     1.5 times larger raise the bound above (2^-40 M^3) at most 4.5-fold,
 *     still under the threshold 2^-36 M^3.  The origin then
 *     lies in D', the hulls are within tol of each other, and no
 *     certificate of separation by more than tol exists: ck_hulls_meet's
 *     answer is 1 as well.
 * On that scene the stage's instructions fell 267.3 M -> 251.8 M, with the
 * same pairs (bench/RESULTS.md).  tests/unit/test_kernels.c checks every answer
 * with tol > 0 against the hulls' distance found by brute force.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/hull_inl.h"
#include "kernels/cpu.h"

#define BOOL_MAXIT 32

/* A point list as SoA rows of 8, padded with copies of point 0 (which
 * never change a maximum, nor the first index that attains it). */
typedef struct {
    double c[3][8];
    int n;
} bset;

static inline void b_load(bset *b, const double (*a)[3], int n)
{
    if (n == 6) { /* a swept face's six positions, S5's case: the loops unrolled, no select */
        for (int k = 0; k < 3; ++k) {
            for (int i = 0; i < 6; ++i) b->c[k][i] = a[i][k];
            b->c[k][6] = b->c[k][7] = a[0][k];
        }
    } else
        for (int i = 0; i < 8; ++i)
            for (int k = 0; k < 3; ++k) b->c[k][i] = a[i < n ? i : 0][k];
    b->n = n;
}

/* The first point of b with the largest d.x (sign +1) or the smallest
 * (sign -1), and that value; h_dot's operations in h_dot's order. */
static inline double b_extreme_plain(const bset *b, const double d[3], int sign, int *at)
{
    double best = d[0] * b->c[0][0] + d[1] * b->c[1][0] + d[2] * b->c[2][0];
    int k = 0;
    for (int i = 1; i < b->n; ++i) {
        const double t = d[0] * b->c[0][i] + d[1] * b->c[1][i] + d[2] * b->c[2][i];
        if (sign > 0 ? t > best : t < best) best = t, k = i;
    }
    *at = k;
    return best;
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define B_X86 1
#define B_AVX2 __attribute__((target("avx2")))
/* The same, eight points in two vectors (the same products and sums, no
 * fused multiply-add: the same bits as the loop above). */
static inline B_AVX2 double b_extreme_avx2(const bset *b, const double d[3], int sign, int *at)
{
    const __m256d d0 = _mm256_set1_pd(d[0]), d1 = _mm256_set1_pd(d[1]), d2 = _mm256_set1_pd(d[2]);
    __m256d v[2];
    for (int h = 0; h < 2; ++h) {
        const __m256d x = _mm256_loadu_pd(b->c[0] + 4 * h), y = _mm256_loadu_pd(b->c[1] + 4 * h),
                      z = _mm256_loadu_pd(b->c[2] + 4 * h);
        v[h] = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(d0, x), _mm256_mul_pd(d1, y)), _mm256_mul_pd(d2, z));
        if (sign < 0) v[h] = _mm256_sub_pd(_mm256_setzero_pd(), v[h]); /* exact */
    }
    __m256d m = _mm256_max_pd(v[0], v[1]);
    m = _mm256_max_pd(m, _mm256_permute4x64_pd(m, 0x4e));
    m = _mm256_max_pd(m, _mm256_permute_pd(m, 0x5));
    const int mask = _mm256_movemask_pd(_mm256_cmp_pd(v[0], m, _CMP_EQ_OQ)) |
                     _mm256_movemask_pd(_mm256_cmp_pd(v[1], m, _CMP_EQ_OQ)) << 4;
    *at = mask ? __builtin_ctz((unsigned)mask) : 0;
    const double r = _mm256_cvtsd_f64(m);
    return sign < 0 ? -r : r;
}
#else
#define B_X86 0
#define B_AVX2
#endif

static inline double b_det(const double a[3], const double b[3], const double c[3])
{
    double t[3];
    h_cross(t, b, c);
    return h_dot(a, t);
}

/* d = (a x b) x a: perpendicular to a, toward b's side */
static inline void b_perp(double d[3], const double a[3], const double b[3])
{
    double t[3];
    h_cross(t, a, b);
    h_cross(d, t, a);
}

/* The origin robustly inside tetrahedron s[0..3] (see the top). */
static inline int b_inside(const double (*s)[3], double M)
{
    double e1[3], e2[3], e3[3], na[3];
    h_sub(e1, s[1], s[0]), h_sub(e2, s[2], s[0]), h_sub(e3, s[3], s[0]);
    for (int k = 0; k < 3; ++k) na[k] = -s[0][k];
    const double D[4] = {b_det(s[1], s[2], s[3]), b_det(na, e2, e3), b_det(e1, na, e3), b_det(e1, e2, na)};
    const double T = 0x1p-36 * M * M * M;
    if (!(T > 0) || !(T < INFINITY)) return 0;
    int pos = 0, neg = 0;
    for (int i = 0; i < 4; ++i) pos += D[i] > T, neg += D[i] < -T;
    return pos == 4 || neg == 4;
}

/* The triangle case, s[2] the newest point a, s[1] = b, s[0] = c: keeps
 * the feature whose region holds the origin and sets d toward it; returns
 * the new simplex size.  A kept triangle is stored so that d = (s1 - s2) x
 * (s0 - s2), the side of the origin. */
static inline __attribute__((always_inline)) int b_triangle(double (*s)[3], double d[3])
{
    double a[3], b[3], c[3], ab[3], ac[3], ao[3], abc[3], t[3];
    memcpy(a, s[2], sizeof a), memcpy(b, s[1], sizeof b), memcpy(c, s[0], sizeof c);
    for (int k = 0; k < 3; ++k) ao[k] = -a[k];
    h_sub(ab, b, a), h_sub(ac, c, a);
    h_cross(abc, ab, ac);
    h_cross(t, abc, ac); /* in the plane, away from b, normal to ac */
    if (h_dot(t, ao) > 0) {
        if (h_dot(ac, ao) > 0) { /* edge ac */
            memcpy(s[0], c, sizeof c), memcpy(s[1], a, sizeof a);
            b_perp(d, ac, ao);
            return 2;
        }
        goto edge_ab;
    }
    h_cross(t, ab, abc); /* in the plane, away from c, normal to ab */
    if (h_dot(t, ao) > 0) goto edge_ab;
    if (h_dot(abc, ao) > 0) { /* above the triangle */
        memcpy(s[0], c, sizeof c), memcpy(s[1], b, sizeof b), memcpy(s[2], a, sizeof a);
        memcpy(d, abc, sizeof abc);
    } else { /* below: the other winding */
        memcpy(s[0], b, sizeof b), memcpy(s[1], c, sizeof c), memcpy(s[2], a, sizeof a);
        for (int k = 0; k < 3; ++k) d[k] = -abc[k];
    }
    return 3;
edge_ab:
    if (h_dot(ab, ao) > 0) {
        memcpy(s[0], b, sizeof b), memcpy(s[1], a, sizeof a);
        b_perp(d, ab, ao);
        return 2;
    }
    memcpy(s[0], a, sizeof a), memcpy(d, ao, sizeof ao);
    return 1;
}

/* The tetrahedron s[0..3], s[3] the newest and the triangle s[0..2] wound
 * as b_triangle leaves it (its normal (s1 - s2) x (s0 - s2) toward s3): the
 * three faces through s3, each wound so that its normal points away from
 * the fourth vertex.  The origin beyond one of them: that face, as a
 * triangle case; beyond none: inside (2, to be made sure of), or 0 when
 * degenerate. */
static inline __attribute__((always_inline)) int b_tetra(double (*s)[3], double d[3])
{
    static const int F[3][2] = {{1, 0}, {2, 1}, {0, 2}}; /* (s3 - s_i) x (s3 - s_j) points outward */
    double ao[3], e[3][3];
    for (int k = 0; k < 3; ++k) ao[k] = -s[3][k];
    for (int i = 0; i < 3; ++i) h_sub(e[i], s[i], s[3]);
    for (int f = 0; f < 3; ++f) {
        double nrm[3];
        h_cross(nrm, e[F[f][0]], e[F[f][1]]);
        if (h_dot(nrm, ao) > 0) {
            double t[3][3];
            memcpy(t[0], s[F[f][1]], sizeof t[0]), memcpy(t[1], s[F[f][0]], sizeof t[1]);
            memcpy(t[2], s[3], sizeof t[2]);
            memcpy(s, t, sizeof t);
            return b_triangle(s, d);
        }
    }
    return 4;
}

/* The boolean GJK's state (see the top): the point lists as rows (A, B)
 * and as given (P, Q: the support points are read there), the simplex s
 * (n points), the direction d, the iterations made, the support pair last
 * evaluated (16 ip + iq) and the answer (res: -2 while it runs). */
typedef struct {
    bset A, B;
    const double (*P)[3], (*Q)[3];
    double s[4][3], d[3], M, tol;
    int n, it, ball, last, res;
} bstate;

static inline __attribute__((always_inline)) void b_init(bstate *g, const double (*P)[3], int np,
                                                        const double (*Q)[3], int nq, double M, double tol)
{
    b_load(&g->A, P, np), b_load(&g->B, Q, nq);
    g->P = P, g->Q = Q, g->M = M, g->tol = tol;
    g->ball = tol > 0 && tol <= M; /* walk D + B(tol) (see the top) */
    g->n = 1, g->it = 0, g->last = 0, g->res = -2;
    h_sub(g->s[0], P[0], Q[0]);
    for (int k = 0; k < 3; ++k) g->d[k] = -g->s[0][k];
}

/* One iteration of the boolean GJK; sets g->res when it has its answer.
 * avx (a constant where it is inlined) picks the support search. */
static inline __attribute__((always_inline)) void b_step(bstate *g, int avx)
{
    double(*s)[3] = g->s, *d = g->d;
    const double M = g->M, tol = g->tol;
    if (g->it++ >= BOOL_MAXIT) {
        g->res = -1;
        return;
    }
    const double dd = h_dot(d, d);
    if (!(dd > 0)) { /* the origin on the simplex, or NaN: no direction */
        g->res = -1;
        return;
    }
    int ip, iq;
#if B_X86
    const double pmax = avx ? b_extreme_avx2(&g->A, d, 1, &ip) : b_extreme_plain(&g->A, d, 1, &ip);
    const double qmin = avx ? b_extreme_avx2(&g->B, d, -1, &iq) : b_extreme_plain(&g->B, d, -1, &iq);
#else
    (void)avx;
    const double pmax = b_extreme_plain(&g->A, d, 1, &ip), qmin = b_extreme_plain(&g->B, d, -1, &iq);
#endif
    g->last = ip * 16 + iq;
    const double gap = qmin - pmax;
    if (gap > 0) { /* D lies below the plane d.x = 0: apart if that certifies */
        const double marg = h_margin(d, M, tol, 1);
        if ((marg >= 0 && gap > marg) || !g->ball) {
            g->res = marg >= 0 && gap > marg ? 0 : -1;
            return;
        }
    }
    /* w past the origin by a fair margin (of D': tol |d| further), or no progress to be had */
    const double sd = sqrt(dd), gw = g->ball ? gap - tol * sd : gap;
    if (!(-gw > 1e-12 * sd * M)) {
        g->res = -1;
        return;
    }
    int n = g->n;
    h_sub(s[n], g->P[ip], g->Q[iq]);
    if (g->ball) { /* the support point of D': the difference plus tol d / |d| */
        const double k = tol / sd;
        for (int c = 0; c < 3; ++c) s[n][c] += k * d[c];
    }
    ++n;
    if (n == 2) { /* segment: w was found beyond the origin from s[0] */
        double ab[3], ao[3];
        h_sub(ab, s[0], s[1]);
        for (int k = 0; k < 3; ++k) ao[k] = -s[1][k];
        if (h_dot(ab, ao) > 0) {
            b_perp(d, ab, ao);
        } else {
            memcpy(s[0], s[1], sizeof s[0]), memcpy(d, ao, sizeof ao);
            n = 1;
        }
    } else if (n == 3) {
        n = b_triangle(s, d);
    } else {
        n = b_tetra(s, d);
        if (n == 4) g->res = b_inside((const double(*)[3])s, M) ? 1 : -1;
    }
    g->n = n;
}

/* The boolean GJK (see the top) on one pair. */
static inline __attribute__((always_inline)) int bool_core(const double (*P)[3], int np, const double (*Q)[3],
                                                          int nq, double M, double tol, int *last, int avx)
{
    bstate g;
    b_init(&g, P, np, Q, nq, M, tol);
    while (g.res == -2) b_step(&g, avx);
    *last = g.last;
    return g.res;
}

static int bool_plain(const double (*P)[3], int np, const double (*Q)[3], int nq, double M, double tol, int *last)
{
    return bool_core(P, np, Q, nq, M, tol, last, 0);
}
#if B_X86
static B_AVX2 int bool_avx2(const double (*P)[3], int np, const double (*Q)[3], int nq, double M, double tol,
                            int *last)
{
    return bool_core(P, np, Q, nq, M, tol, last, 1);
}
#endif

int ck_hulls_bool_plain(const double (*P)[3], int np, const double (*Q)[3], int nq, double M, double tol,
                        int *last)
{
    *last = 0;
    if (np < 1 || np > 8 || nq < 1 || nq > 8) return -1;
    return bool_plain(P, np, Q, nq, M, tol, last);
}

int ck_hulls_bool(const double (*P)[3], int np, const double (*Q)[3], int nq, double M, double tol, int *last)
{
    *last = 0;
    if (np < 1 || np > 8 || nq < 1 || nq > 8) return -1;
#if B_X86
    if (ck_have_avx2()) return bool_avx2(P, np, Q, nq, M, tol, last);
#endif
    return bool_plain(P, np, Q, nq, M, tol, last);
}

/* ---- two swept faces' rows (S5) ---------------------------------------------
 * The boolean GJK on the six points of two rows of 18 doubles (x y z of
 * points 0..5, S5's rows: the store's double truth), as ck_hulls_meet would
 * run it on them.  ck_hulls_meet translates them by p[0] (h_shift, SSE2)
 * and the boolean GJK lays them out again, hundreds of instructions a call
 * before the GJK's first step, on every pair the filters leave.  Here one
 * AVX2 pass over the rows translates and takes M: the
 * values h_shift makes (each coordinate one double subtraction; M a
 * maximum, exact in any order), so the answer is the one ck_hulls_bool
 * gives there; -1 (not decided, or a coordinate not finite): ask
 * ck_hulls_meet (ck_hulls_meet_rows, hull.c, does). */
/* Rows ra, rb translated by ra's point 0 into P, Q and their M; 0 when a
 * coordinate is not finite. */
static int rows_prepare_plain(const double *ra, const double *rb, double (*P)[3], double (*Q)[3], double *M)
{
    int finite = 1;
    *M = 0;
    for (int i = 0; i < 18; ++i) {
        const double c = ra[i % 3];
        const double a = ra[i] - c, b = rb[i] - c;
        P[i / 3][i % 3] = a, Q[i / 3][i % 3] = b;
        finite &= fabs(a) <= DBL_MAX && fabs(b) <= DBL_MAX;
        *M = fabs(a) > *M ? fabs(a) : *M, *M = fabs(b) > *M ? fabs(b) : *M;
    }
    return finite;
}

int ck_hulls_bool_rows_plain(const double *ra, const double *rb, double tol)
{
    if (!(tol >= 0)) return -1;
    double P[6][3], Q[6][3], M;
    int last;
    return rows_prepare_plain(ra, rb, P, Q, &M)
               ? bool_plain((const double(*)[3])P, 6, (const double(*)[3])Q, 6, M, tol, &last)
               : -1;
}

#if B_X86
/* Row r (18 doubles) less c, into out (18 doubles): four vectors of four, c's
 * pattern (c0 c1 c2 c0, c1 c2 c0 c1, c2 c0 c1 c2) repeating, and a pair
 * (c1 c2); *vm and *vt: the running maxima of |value|, *ok and *okt: all of
 * them <= DBL_MAX (a NaN fails the comparison). */
static inline B_AVX2 void rows_shift(const double *r, const __m256d c[3], __m128d c12, double *out, __m256d *vm,
                                     __m128d *vt, __m256d *ok, __m128d *okt)
{
    const __m256d mag = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL)), big = _mm256_set1_pd(DBL_MAX);
    for (int v = 0; v < 4; ++v) {
        const __m256d t = _mm256_sub_pd(_mm256_loadu_pd(r + 4 * v), c[v % 3]);
        _mm256_storeu_pd(out + 4 * v, t);
        const __m256d a = _mm256_and_pd(t, mag);
        *ok = _mm256_and_pd(*ok, _mm256_cmp_pd(a, big, _CMP_LE_OQ)), *vm = _mm256_max_pd(*vm, a);
    }
    const __m128d t = _mm_sub_pd(_mm_loadu_pd(r + 16), c12);
    _mm_storeu_pd(out + 16, t);
    const __m128d a = _mm_and_pd(t, _mm256_castpd256_pd128(mag));
    *okt = _mm_and_pd(*okt, _mm_cmple_pd(a, _mm256_castpd256_pd128(big))), *vt = _mm_max_pd(*vt, a);
}

/* Rows ra, rb translated by ra's point 0 into P, Q (h_shift's values) and
 * their M; 0 when a coordinate is not finite. */
static inline B_AVX2 int rows_prepare(const double *ra, const double *rb, double (*P)[3], double (*Q)[3], double *M)
{
    const double x = ra[0], y = ra[1], z = ra[2];
    const __m256d c[3] = {_mm256_setr_pd(x, y, z, x), _mm256_setr_pd(y, z, x, y), _mm256_setr_pd(z, x, y, z)};
    const __m128d c12 = _mm_setr_pd(y, z);
    __m256d vm = _mm256_setzero_pd(), ok = _mm256_castsi256_pd(_mm256_set1_epi64x(-1));
    __m128d vt = _mm_setzero_pd(), okt = _mm_castsi128_pd(_mm_set1_epi64x(-1));
    rows_shift(ra, c, c12, P[0], &vm, &vt, &ok, &okt);
    rows_shift(rb, c, c12, Q[0], &vm, &vt, &ok, &okt);
    __m128d m = _mm_max_pd(_mm_max_pd(_mm256_castpd256_pd128(vm), _mm256_extractf128_pd(vm, 1)), vt);
    m = _mm_max_sd(m, _mm_unpackhi_pd(m, m));
    *M = _mm_cvtsd_f64(m);
    return _mm256_movemask_pd(ok) == 0xf && _mm_movemask_pd(okt) == 3;
}

static B_AVX2 int rows_avx2(const double *ra, const double *rb, double tol)
{
    double P[6][3], Q[6][3], M;
    if (!(tol >= 0) || !rows_prepare(ra, rb, P, Q, &M)) return -1;
    int last;
    return bool_core((const double(*)[3])P, 6, (const double(*)[3])Q, 6, M, tol, &last, 1);
}

/* Two pairs at once, their iterations in turn: each one's chain of
 * dependent operations (support, cross products, the next direction) runs
 * beside the other's.  A call's time is latency and mispredicted branches
 * more than work, so two chains side by side hide some of it (four at
 * once do no better than two; bench/RESULTS.md). */
static B_AVX2 void rows2_avx2(const double *const ra[2], const double *const rb[2], const double tol[2], int out[2])
{
    double P[2][6][3], Q[2][6][3], M;
    bstate g[2];
    for (int t = 0; t < 2; ++t) {
        if (tol[t] >= 0 && rows_prepare(ra[t], rb[t], P[t], Q[t], &M))
            b_init(&g[t], (const double(*)[3])P[t], 6, (const double(*)[3])Q[t], 6, M, tol[t]);
        else
            g[t].res = -1;
    }
    while (g[0].res == -2 || g[1].res == -2) {
        if (g[0].res == -2) b_step(&g[0], 1);
        if (g[1].res == -2) b_step(&g[1], 1);
    }
    out[0] = g[0].res, out[1] = g[1].res;
}
#endif

int ck_hulls_bool_rows(const double *ra, const double *rb, double tol)
{
#if B_X86
    if (ck_have_avx2()) return rows_avx2(ra, rb, tol);
#endif
    return ck_hulls_bool_rows_plain(ra, rb, tol);
}

void ck_hulls_bool_rows2(const double *const ra[2], const double *const rb[2], const double tol[2], int out[2])
{
#if B_X86
    if (ck_have_avx2()) {
        rows2_avx2(ra, rb, tol, out);
        return;
    }
#endif
    for (int t = 0; t < 2; ++t) out[t] = ck_hulls_bool_rows_plain(ra[t], rb[t], tol[t]);
}

/* ---- the float lanes' tetrahedra certified (hull_gjk8.c) -------------------------
 * Lane l of g (G8_TETRA), on its rows: the four support differences
 * p_ip - q_iq, each recomputed in double from the rows as rows_prepare and
 * b_step compute them (translated by ra's point 0), with the origin inside
 * their tetrahedron by b_inside's margin, M the largest |coordinate| of the
 * eight points used (b_inside's bound needs no other): then the hulls share
 * a point, and ck_hulls_meet's answer is 1.  Walking the hulls grown by tol
 * (g->ball), each point also gets its offset, converted exactly and scaled
 * to a length of at most tol: a point of D + B(tol) within 8u max(M, tol)
 * of the one computed, coordinates below 3 max(M, tol), the case the top
 * of this file bounds (with tol <= M there); M is then max(M, tol).  Then
 * the hulls come within tol, and ck_hulls_meet's answer is 1 as well.
 * Anything else: -1.  Only the points used are converted (converting the
 * whole rows would cost more than the check itself). */
int ck_hulls_gjk_check_rows(const double *ra, const double *rb, double tol, const ck_gjk8 *g, int l)
{
    if (g->st[l] != G8_TETRA || !(tol >= 0)) return -1;
    const double c[3] = {ra[0], ra[1], ra[2]};
    double s[4][3], M = 0;
    for (int k = 0; k < 4; ++k) {
        const int ix = g->ix[k][l], ip = ix >> 3, iq = ix & 7;
        if (ix < 0 || ip >= 6 || iq >= 6) return -1;
        for (int j = 0; j < 3; ++j) {
            const double a = ra[3 * ip + j] - c[j], b = rb[3 * iq + j] - c[j];
            s[k][j] = a - b;
            M = fabs(a) > M ? fabs(a) : M, M = fabs(b) > M ? fabs(b) : M;
            M = a == a && b == b ? M : INFINITY; /* a NaN */
        }
    }
    if (!(M <= DBL_MAX)) return -1; /* a NaN or an infinity */
    if (g->ball) {
        for (int k = 0; k < 4; ++k) {
            const double o[3] = {g->o[k][0][l], g->o[k][1][l], g->o[k][2][l]};
            const double len = sqrt(h_dot(o, o));
            if (!(len <= DBL_MAX)) return -1;
            const double f = len > tol ? tol / len * (1.0 - 0x1p-50) : 1.0;
            for (int j = 0; j < 3; ++j) s[k][j] += f * o[j];
        }
        M = tol > M ? tol : M;
    }
    return b_inside((const double(*)[3])s, M) ? 1 : -1;
}
