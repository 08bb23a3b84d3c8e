/*
 * hull_filter8.c — a float filter in front of the swept face-pair test: eight pairs
 * of moving triangles at a time, each "certainly apart" or "ask hull.c".
 *
 * In swept mode S5 asks of every candidate whether the convex hulls of two
 * faces' six positions (three vertices at s, three at s-1) meet
 * (ck_hulls_meet, hull.c: exact AABB reject, then boolean GJK in double).
 * On large cluttered scenes most candidates are apart, and GJK needs two or
 * three support steps to show it, well over a thousand instructions a
 * pair.  Most of them are apart along one of three directions that need no
 * search:
 *
 *   c   the centroid difference, sum over k of (q_k - p_k):
 *       GJK's own first direction would be near it;
 *   nP  the normal of P's triangle at s,  (p1 - p0) x (p2 - p0);
 *   nQ  the normal of Q's triangle at s;
 * and, in swept mode, for pairs these three leave open, the sides of each
 * face's swept prism (the hull of a triangle that moves without turning):
 *   e x m  for each edge e of the triangle at s and its vertex 0's motion
 *          m = a_3 - a_0 (s to s-1), six directions.
 *
 * Along d the hulls are apart when max_p d.p < min_q d.q or the reverse (the
 * projections of a hull are the interval of its points' projections).  On
 * the cluttered spheres the first three certify most of the pairs the hull
 * test finds apart, and the prism sides most of the apart pairs those
 * leave, for far fewer instructions than GJK spends on them
 * (bench/RESULTS.md).
 *
 * Input.  The exact test decides on the store's doubles; the lanes are
 * those doubles translated by a per-lane origin and rounded to float32:
 * without rows (stages/narrow.c) the doubles less the pair's first point,
 * in double, rounded once, within u (1 + 2^-28) |x| <= 1.01 u M of the
 * exact translated coordinate (u = 2^-24; M below, of the lanes); from
 * S5's rows (ck_rows8o) a face's float offsets from its origin plus the
 * origins' difference, within 3.01 u M.  Translation changes no distance,
 * so the hulls of the exact translated points are apart exactly when the
 * doubles' are.  A dot product of d with the exact points then differs
 * from its value on the lane points by at most 3.01 u l1 M, below: the
 * certificate's margin keeps room for it.
 *
 * Certificate in float.  Take the lane points as exact first; d is whatever
 * the float arithmetic gives (any d is a valid direction).  A dot product of d with x in float errs by at most
 * gamma_3 sum |d_i||x_i| <= gamma_3 l1 M (u = 2^-24, gamma_3 = 3u/(1-3u)
 * < 1.8e-7; l1 = |d|_1, M = the largest |coordinate| of the 12 points), so
 * a computed gap is at most 2 gamma_3 l1 M + one rounding (relative u) too
 * large.  The filter asks for  gap > FILTER_REL * l1 * M + FLT_MIN  with
 * FILTER_REL = 2^-16 (1.5e-5), some 40 times those errors (l1 and M are
 * themselves rounded by a few u): a 1 means the lane points' hulls are
 * apart by more than 2^-17 l1 M along d, and the exact translated points',
 * each side's projections moved by at most 3.01 u l1 M (both sides: 6.02 u
 * l1 M, under 2^-21 l1 M), by more than 2^-18 l1 M.  NaN or infinity anywhere fails every
 * comparison: "ask hull.c".
 *
 * A tolerance.  Swept mode asks of faces that turn whether their hulls
 * come within tol (their arc margins, stages/facetest.h): ck_hulls_meet says 0
 * only when the hulls are more than tol apart.  The filter takes tol per
 * pair, as a float at least the caller's double, and asks for
 *     gap > (FILTER_REL * M + tol (1 + 2^-18)) * l1 + FLT_MIN:
 * the tol term rounded down by a few u at most stays above tol l1 >= tol
 * |d|_2, so the exact hulls are more than tol apart along d / |d|_2, and the
 * rest is the margin above.  (Until this term, every pair with tol > 0 went
 * to GJK: on the cluttered spheres, whose objects all turn, that was every
 * candidate.)
 *
 * Same answers as hull.c.  A pair the filter calls apart is apart by about
 * 10^10 times the double test's margin (5 DBL_EPSILON l1 M), where GJK
 * certifies it, or, when GJK stalls, the complete axis set of
 * ck_hulls_meet_ref does; the filter only skips work, never changes a
 * result (tests/unit/test_kernels.c checks this on random and touching pairs, and
 * the pipeline's pairs checksum on the bench scenes).
 *
 * Layout: SoA across the eight pairs, p[k][c][lane] for point k = 0..5 (0..2
 * at s, 3..5 at s-1), coordinate c, so that one `omp simd` loop over lanes
 * becomes 8-wide float vector code.  ck_hulls_apart_f32_ref is the same test
 * on one pair, written plainly; the tests compare the two.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>

#include "kernels/kernels.h"
#include "kernels/cpu.h"

#define FILTER_REL 0x1p-16f
#define FILTER_MAXC 1e9f /* |coordinates| up to this: no product overflows (normals ~4 M^2, dots ~1e28) */

static inline float f_abs(float a) { return a < 0 ? -a : a; }
static inline float f_max(float a, float b) { return a > b ? a : b; }
static inline float f_min(float a, float b) { return a < b ? a : b; }

/* 1 when d certainly separates the two six-point sets (see the top). */
static inline int f_apart_along(float d0, float d1, float d2, const float (*p)[3], const float (*q)[3], float M,
                                float tg)
{
    float pmin = d0 * p[0][0] + d1 * p[0][1] + d2 * p[0][2], pmax = pmin;
    float qmin = d0 * q[0][0] + d1 * q[0][1] + d2 * q[0][2], qmax = qmin;
    for (int k = 1; k < 6; ++k) {
        const float tp = d0 * p[k][0] + d1 * p[k][1] + d2 * p[k][2];
        const float tq = d0 * q[k][0] + d1 * q[k][1] + d2 * q[k][2];
        pmin = f_min(pmin, tp), pmax = f_max(pmax, tp);
        qmin = f_min(qmin, tq), qmax = f_max(qmax, tq);
    }
    const float marg = (FILTER_REL * M + tg) * (f_abs(d0) + f_abs(d1) + f_abs(d2)) + FLT_MIN;
    return (qmin - pmax > marg) | (pmin - qmax > marg);
}

/* The tolerance term of the margin (see the top); NaN stays NaN (no pair apart). */
#define TOL_GROW(t) ((t) * (1.0f + 0x1p-18f))

int ck_hulls_apart_f32_ref(const float p[6][3], const float q[6][3], float tol)
{
    const float tg = TOL_GROW(tol);
    float M = 0, dc[3] = {0, 0, 0};
    int ok = 1; /* every coordinate finite and small enough that no product overflows */
    for (int k = 0; k < 6; ++k)
        for (int c = 0; c < 3; ++c) {
            ok &= (int)(f_abs(p[k][c]) <= FILTER_MAXC) & (int)(f_abs(q[k][c]) <= FILTER_MAXC);
            M = f_max(M, f_max(f_abs(p[k][c]), f_abs(q[k][c])));
            dc[c] += q[k][c] - p[k][c]; /* the centroid difference, times 6 */
        }
    if (!ok || !(tol >= 0)) return 0; /* NaN, infinity, or products near overflow: ask hull.c */
    if (f_apart_along(dc[0], dc[1], dc[2], p, q, M, tg)) return 1;
    const float (*t[2])[3] = {p, q};
    for (int s = 0; s < 2; ++s) {
        const float(*a)[3] = t[s];
        const float e1[3] = {a[1][0] - a[0][0], a[1][1] - a[0][1], a[1][2] - a[0][2]};
        const float e2[3] = {a[2][0] - a[0][0], a[2][1] - a[0][1], a[2][2] - a[0][2]};
        if (f_apart_along(e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0],
                          p, q, M, tg))
            return 1;
    }
    for (int s = 0; s < 2; ++s) { /* the sides of each swept prism: edge at s x the motion of vertex 0 */
        const float(*a)[3] = t[s];
        const float m[3] = {a[3][0] - a[0][0], a[3][1] - a[0][1], a[3][2] - a[0][2]};
        for (int i = 0; i < 3; ++i) {
            const int j = i == 2 ? 0 : i + 1;
            const float e[3] = {a[j][0] - a[i][0], a[j][1] - a[i][1], a[j][2] - a[i][2]};
            if (f_apart_along(e[1] * m[2] - e[2] * m[1], e[2] * m[0] - e[0] * m[2], e[0] * m[1] - e[1] * m[0], p, q, M,
                              tg))
                return 1;
        }
    }
    return 0;
}

/* The x8 form: every quantity an array over the eight lanes, every loop
 * over lanes innermost, so that each line is a couple of vector instructions
 * (SSE: two of four lanes; the compiler sees no branch). */
#define LANES for (int l = 0; l < 8; ++l)

/* r[l] |= d (per lane) separates p and q (np points each) by the margin. */
static inline void f8_apart_along(const float d[3][8], const float (*p)[3][8], const float (*q)[3][8], int np,
                                  const float M[8], const float tg[8], int r[8])
{
    float pmin[8], pmax[8], qmin[8], qmax[8];
#pragma omp simd
    LANES
    {
        pmin[l] = pmax[l] = d[0][l] * p[0][0][l] + d[1][l] * p[0][1][l] + d[2][l] * p[0][2][l];
        qmin[l] = qmax[l] = d[0][l] * q[0][0][l] + d[1][l] * q[0][1][l] + d[2][l] * q[0][2][l];
    }
    for (int k = 1; k < np; ++k) {
#pragma omp simd
        LANES
        {
            const float tp = d[0][l] * p[k][0][l] + d[1][l] * p[k][1][l] + d[2][l] * p[k][2][l];
            const float tq = d[0][l] * q[k][0][l] + d[1][l] * q[k][1][l] + d[2][l] * q[k][2][l];
            pmin[l] = f_min(pmin[l], tp), pmax[l] = f_max(pmax[l], tp);
            qmin[l] = f_min(qmin[l], tq), qmax[l] = f_max(qmax[l], tq);
        }
    }
#pragma omp simd
    LANES
    {
        const float marg = (FILTER_REL * M[l] + tg[l]) * (f_abs(d[0][l]) + f_abs(d[1][l]) + f_abs(d[2][l])) + FLT_MIN;
        r[l] |= (qmin[l] - pmax[l] > marg) | (pmin[l] - qmax[l] > marg);
    }
}

/* d = the normal of the triangle a[0..2] in each lane. */
static inline void f8_normal(const float (*a)[3][8], float d[3][8])
{
#pragma omp simd
    LANES
    {
        const float e1x = a[1][0][l] - a[0][0][l], e1y = a[1][1][l] - a[0][1][l], e1z = a[1][2][l] - a[0][2][l];
        const float e2x = a[2][0][l] - a[0][0][l], e2y = a[2][1][l] - a[0][1][l], e2z = a[2][2][l] - a[0][2][l];
        d[0][l] = e1y * e2z - e1z * e2y;
        d[1][l] = e1z * e2x - e1x * e2z;
        d[2][l] = e1x * e2y - e1y * e2x;
    }
}

/* d = (a[j] - a[i]) x (a[3] - a[0]) in each lane: a side of the swept
 * prism of a triangle that moves without turning (edge i, j at s; the
 * motion of vertex 0 from s to s-1). */
static inline void f8_side(const float (*a)[3][8], int i, int j, float d[3][8])
{
#pragma omp simd
    LANES
    {
        const float ex = a[j][0][l] - a[i][0][l], ey = a[j][1][l] - a[i][1][l], ez = a[j][2][l] - a[i][2][l];
        const float mx = a[3][0][l] - a[0][0][l], my = a[3][1][l] - a[0][1][l], mz = a[3][2][l] - a[0][2][l];
        d[0][l] = ey * mz - ez * my;
        d[1][l] = ez * mx - ex * mz;
        d[2][l] = ex * my - ey * mx;
    }
}

/* The x8 test of np points a side (6: swept hulls, 3: triangles), with
 * tolerances tol (NULL: 0). */
static inline __attribute__((always_inline)) void f8_apart(const float (*p)[3][8], const float (*q)[3][8], int np,
                                                           const float *tol, uint8_t apart[8])
{
    float M[8], d[3][8], tg[8];
    int ok[8], r[8];
#pragma omp simd
    LANES
    {
        tg[l] = tol ? TOL_GROW(tol[l]) : 0.0f;
        M[l] = 0, ok[l] = tg[l] >= 0, r[l] = 0;
        d[0][l] = d[1][l] = d[2][l] = 0;
    }
    for (int k = 0; k < np; ++k)
        for (int c = 0; c < 3; ++c) {
#pragma omp simd
            LANES
            {
                const float ap = f_abs(p[k][c][l]), aq = f_abs(q[k][c][l]);
                ok[l] &= (ap <= FILTER_MAXC) & (aq <= FILTER_MAXC);
                M[l] = f_max(M[l], f_max(ap, aq));
                d[c][l] += q[k][c][l] - p[k][c][l]; /* the centroid difference, times np */
            }
        }
    f8_apart_along((const float(*)[8])d, p, q, np, M, tg, r);
    f8_normal(p, d);
    f8_apart_along((const float(*)[8])d, p, q, np, M, tg, r);
    f8_normal(q, d);
    f8_apart_along((const float(*)[8])d, p, q, np, M, tg, r);
    if (np == 6) { /* swept: the prisms' sides, unless every lane is decided */
        int open = 0;
        LANES open |= ok[l] & !r[l];
        for (int s = 0; open && s < 2; ++s)
            for (int i = 0; i < 3; ++i) {
                f8_side(s ? q : p, i, i == 2 ? 0 : i + 1, d);
                f8_apart_along((const float(*)[8])d, p, q, np, M, tg, r);
            }
    }
#pragma omp simd
    LANES apart[l] = (uint8_t)(ok[l] & r[l]);
}

/* The two forms below are also compiled for AVX2 (eight lanes a register),
 * taken where the CPU has it: the same arithmetic lane by lane, so the same
 * answers (tests/unit/test_kernels.c compares them with the reference and the
 * portable path, and both with the exact tests). */
static CK_TARGET_AVX2 void hulls_avx2(const float p[6][3][8], const float q[6][3][8], const float tol[8],
                                      uint8_t apart[8])
{
    f8_apart(p, q, 6, tol, apart);
}
static CK_TARGET_AVX2 void tris_avx2(const float p[3][3][8], const float q[3][3][8], uint8_t apart[8])
{
    f8_apart(p, q, 3, NULL, apart);
}

void ck_hulls_apart_f32x8(const float p[6][3][8], const float q[6][3][8], const float tol[8], uint8_t apart[8])
{
    if (ck_have_avx2()) hulls_avx2(p, q, tol, apart);
    else f8_apart(p, q, 6, tol, apart);
}

/* Triangles: the same three directions over three points a side (a
 * triangle is the hull of its three vertices); _plain: the portable path. */
void ck_tris_apart_f32x8_plain(const float p[3][3][8], const float q[3][3][8], uint8_t apart[8])
{
    f8_apart(p, q, 3, NULL, apart);
}

void ck_tris_apart_f32x8(const float p[3][3][8], const float q[3][3][8], uint8_t apart[8])
{
    if (ck_have_avx2()) tris_avx2(p, q, apart);
    else ck_tris_apart_f32x8_plain(p, q, apart);
}

/* ---- the filter's input from rows (S5, swept: stages/narrow.c) -------------
 * out[c][l] = base[CK_ROW idx[l] + c] for c < 24, l < 8: eight rows (a
 * face's six positions, 18 floats, then 6 of the caller's) turned into the
 * lanes of the filter's layout, three 8 x 8 transposes on AVX2 (unpack,
 * shuffle, swap of halves), the plain path element by element.  Rows
 * 18..23 of out are the caller's floats. */
void ck_rows8_plain(const float *base, const int32_t idx[8], float out[24][8])
{
    for (int l = 0; l < 8; ++l) {
        const float *r = base + (size_t)CK_ROW * (size_t)idx[l];
        for (int c = 0; c < 24; ++c) out[c][l] = r[c];
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
#include "kernels/transpose8.h"
static CK_TARGET_AVX2 void rows8_avx2(const float *base, const int32_t idx[8], float out[24][8])
{
    const float *r[8];
    for (int l = 0; l < 8; ++l) r[l] = base + (size_t)CK_ROW * (size_t)idx[l];
    for (int b = 0; b < 24; b += 8) {
        __m256 a[8];
        for (int l = 0; l < 8; ++l) a[l] = _mm256_loadu_ps(r[l] + b);
        ck_transpose8(a);
        for (int c = 0; c < 8; ++c) _mm256_storeu_ps(out[b + c], a[c]);
    }
}
#endif

void ck_rows8(const float *base, const int32_t idx[8], float out[24][8])
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (ck_have_avx2()) {
        rows8_avx2(base, idx, out);
        return;
    }
#endif
    ck_rows8_plain(base, idx, out);
}

/* ---- the lanes translated by a per-lane origin (ck_rows8o) -----------------
 * The offsets as ck_rows8 lays them out, then each lane's origin
 * difference added in double and the sum rounded once to float (skipped
 * where the origins are the lanes' own: the offsets are then the values).
 * The origins are floats (a row's 18..20), so their difference is exact in
 * double, and every path below computes the same sums, hence the same floats. */
#if defined(__GNUC__) && defined(__x86_64__)
/* Four lanes to a register: widen, subtract the origins, add, round. */
static CK_TARGET_AVX2 void rows8o_avx2(const float org[3][8], float out[24][8])
{
    __m256d d[3][2];
    for (int c = 0; c < 3; ++c)
        for (int h = 0; h < 2; ++h)
            d[c][h] = _mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(out[18 + c] + 4 * h)),
                                    org ? _mm256_cvtps_pd(_mm_loadu_ps(org[c] + 4 * h)) : _mm256_setzero_pd());
    for (int c = 0; c < 18; ++c) {
        const __m256d a = _mm256_add_pd(_mm256_cvtps_pd(_mm_loadu_ps(out[c])), d[c % 3][0]);
        const __m256d b = _mm256_add_pd(_mm256_cvtps_pd(_mm_loadu_ps(out[c] + 4)), d[c % 3][1]);
        _mm_storeu_ps(out[c], _mm256_cvtpd_ps(a)), _mm_storeu_ps(out[c] + 4, _mm256_cvtpd_ps(b));
    }
}
#endif

/* out's lanes (their own origins in rows 18..20) translated by org's
 * origins (NULL: by none, to world coordinates). */
static void rows8o_shift(const float org[3][8], float out[24][8])
{
#if defined(__GNUC__) && defined(__x86_64__)
    /* (no 512-bit path: zmm registers would lower the core's clock for the
     * whole stage, as every AVX-512 kernel here keeps to 256-bit vectors) */
    if (ck_have_avx2()) {
        rows8o_avx2(org, out);
        return;
    }
#endif
    double D[3][8];
    for (int c = 0; c < 3; ++c)
        for (int l = 0; l < 8; ++l) D[c][l] = (double)out[18 + c][l] - (org ? (double)org[c][l] : 0.0);
    for (int c = 0; c < 18; ++c)
        for (int l = 0; l < 8; ++l) out[c][l] = (float)((double)out[c][l] + D[c % 3][l]);
}

void ck_rows8o(const float *base, const int32_t idx[8], const int32_t *org, float out[24][8])
{
    ck_rows8(base, idx, out);
    if (org == idx) return;
    float O[3][8];
    if (org)
        for (int l = 0; l < 8; ++l) {
            const float *g = base + (size_t)CK_ROW * (size_t)org[l];
            for (int c = 0; c < 3; ++c) O[c][l] = g[18 + c];
        }
    rows8o_shift(org ? (const float(*)[8])O : NULL, out);
}

void ck_rows8o_by(const float *base, const int32_t idx[8], const float org[3][8], float out[24][8])
{
    ck_rows8(base, idx, out);
    rows8o_shift(org, out);
}
