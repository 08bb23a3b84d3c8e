/*
 * ccd_planes.c — the coplanarity filter in front of the CCD root finder
 * (ccd.c), after the axis separation (ccd_filter.c): several queries at a time.
 *
 * Why coplanarity.  A vertex can only touch a triangle, and an edge another
 * edge, at a moment when the four points lie in one plane.  With the points
 * moving linearly, take three difference vectors that move linearly too:
 *   VF (v, f0, f1, f2):  P = v - f0,   B = f1 - f0,  C = f2 - f0
 *   EE (a0, a1, b0, b1): P = b0 - a0,  B = a1 - a0,  C = b1 - b0
 * and n(t) = B(t) x C(t) (the face normal; the edges' common normal).  Then
 * f(t) = P(t) . n(t) = det(P, B, C) is a cubic in t, zero exactly when the
 * points are coplanar.  Any point q of the first primitive and r of the
 * second satisfy (q - r) . n = +-f (VF: r - f0 lies in the face's plane;
 * EE: q - r = -P + u B - w C), so |f(t)| <= |q - r|_inf |n(t)|_1.  If
 * |f(t)| > ms |n(t)|_1 at every t in [0, 1], no two points ever come within
 * ms in the max norm (the kernel's measure of min_sep, ccd.h): the query is
 * apart.  ms = 0: f never vanishes.
 *
 * The cubic in Bernstein form.  det is linear in each of P, B, C, so with
 * X_ab = B_a x C_b (index 0: t = 0, 1: t = 1) its Bernstein coefficients
 * are b0 = P0.X00, 3 b1 = P1.X00 + P0.X10 + P0.X01,
 * 3 b2 = P1.X10 + P1.X01 + P0.X11, b3 = P1.X11, and f(t) is a convex
 * combination of b0..b3 (the Bernstein weights are >= 0 and sum to 1).  So
 * f > ms N on [0, 1] when every b_i > ms N, with N >= |n(t)|_1; likewise
 * below -ms N.  n(t) is quadratic with Bernstein coefficients X00,
 * (X01 + X10)/2, X11, so |n(t)|_1 <= the largest of their 1-norms <= 6 D'^2
 * where D' is the largest |component| of the exact differences.
 *
 * The error bound (derivation).  u = 2^-53, g_k = k u / (1 - k u) (Higham,
 * Lemma 3.1).  D = the largest |component| of the computed differences
 * (each is the exact one times (1 + d), |d| <= u, so D' <= D / (1 - u)).
 * Each of the 6 terms +-P_i B_j C_k of a determinant passes through at most
 * 10 roundings on its way into c1 = fl(3 b1) or c2: its 3 differences, the
 * product B_j C_k, the subtraction in the cross product, the product with
 * P_i, the 2 additions of the dot product, the 2 additions of the three
 * dots; so |c1 - 3 b1| <= g10 * 18 D'^3 and |c0 - b0| <= g9 * 6 D'^3
 * (likewise c2, c3).  With D^3 computed as fl(fl(D D) D) >= D^3 (1 - u)^2:
 *   e  = 2^-46 fl(D^3) >= 128 u (1 - u)^2 D^3 >= g10 *  6 D'^3  (~ 60 u D^3)
 *   e3 = 2^-44 fl(D^3) >= 512 u (1 - u)^2 D^3 >= g10 * 18 D'^3  (~180 u D^3)
 *   N  = 8 fl(D D) >= 8 (1 - u) D^2 >= 6 D'^2
 * and the thresholds m = fl(fl(fl(ms N) + e) + DBL_MIN) (1 + 4 eps) for c0,
 * c3, m3 = fl(fl(fl(3 fl(ms N)) + e3) + DBL_MIN) (1 + 4 eps) for c1, c2,
 * each at least its exact value despite its own (at most five) roundings
 * (the factor 1 + 4 eps = 1 + 8u outweighs (1 - u)^5; powers of two
 * multiply exactly).  DBL_MIN covers underflow (each of the 36 products
 * loses at most 2^-1075 to it, and D^3 may underflow to 0).  The query is
 * apart when c0 > m, c1 > m3, c2 > m3, c3 > m (then every exact b_i >
 * ms N), or the same below -m, -m3.  Overflow gives infinite thresholds,
 * and NaN coefficients compare false: "keep", the safe side.  A NaN
 * coordinate is skipped by the max that forms D but makes a coefficient
 * NaN; an infinite one makes D infinite.
 *
 * What it catches: pairs not separated along an axis but whose four points
 * stay on one side of a plane all step (neighbouring faces of a surface
 * moving together).  What it misses: pairs that pass through coplanarity
 * away from each other (a vertex crossing the face's plane outside the
 * face); those go on to the root finder.
 *
 * ck_ccd_planes_ref is the portable one-query-at-a-time loop; ck_ccd_planes
 * runs four queries per AVX2 register, the tail on the portable loop.  Both
 * take the same operations in the same order, without fused multiply-adds
 * (the scalar code is built without FMA, the AVX2 code has only AVX2's
 * separate multiplies and adds), max as (x > m ? x : m), what vmaxpd(x, m)
 * computes; so they decide alike bit for bit, which the tests check.  Both
 * only clear keep[i] (never set it): they run on what the boxes left.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "kernels/ccd.h"
#include "kernels/cpu.h"

/* Point indices of P = x[p1] - x[p0], B = x[b1] - x[b0], C = x[c1] - x[c0] */
typedef struct {
    int p1, p0, b1, b0, c1, c0;
} plane_idx;

static plane_idx idx_of(int kind)
{
    const plane_idx vf = {0, 1, 2, 1, 3, 1}, ee = {2, 0, 1, 0, 3, 2};
    return kind == CK_CCD_EE ? ee : vf;
}

static inline double maxd(double x, double m) { return x > m ? x : m; }
static inline double absd(double x) { return x < 0 ? -x : x; }

/* a . (b x c), the cross product's components as b1 c2 - b2 c1 etc. */
static inline void cross3(const double b[3], const double c[3], double x[3])
{
    x[0] = b[1] * c[2] - b[2] * c[1];
    x[1] = b[2] * c[0] - b[0] * c[2];
    x[2] = b[0] * c[1] - b[1] * c[0];
}
static inline double dot3(const double a[3], const double x[3]) { return (a[0] * x[0] + a[1] * x[1]) + a[2] * x[2]; }

static int apart_one(plane_idx q, const double x0[4][3], const double x1[4][3], double ms)
{
    double P[2][3], B[2][3], C[2][3], D = 0;
    for (int s = 0; s < 2; ++s) {
        const double(*x)[3] = s ? x1 : x0;
        for (int k = 0; k < 3; ++k) {
            P[s][k] = x[q.p1][k] - x[q.p0][k];
            B[s][k] = x[q.b1][k] - x[q.b0][k];
            C[s][k] = x[q.c1][k] - x[q.c0][k];
        }
    }
    for (int k = 0; k < 3; ++k)
        for (int s = 0; s < 2; ++s) D = maxd(absd(P[s][k]), D), D = maxd(absd(B[s][k]), D), D = maxd(absd(C[s][k]), D);
    double X00[3], X01[3], X10[3], X11[3];
    cross3(B[0], C[0], X00), cross3(B[0], C[1], X01), cross3(B[1], C[0], X10), cross3(B[1], C[1], X11);
    const double c0 = dot3(P[0], X00), c3 = dot3(P[1], X11);
    const double c1 = (dot3(P[1], X00) + dot3(P[0], X10)) + dot3(P[0], X01);
    const double c2 = (dot3(P[1], X10) + dot3(P[1], X01)) + dot3(P[0], X11);
    const double D2 = D * D, D3 = D2 * D, msN = ms * (8.0 * D2);
    const double m = ((msN + 0x1p-46 * D3) + DBL_MIN) * (1 + 4 * DBL_EPSILON);
    const double m3 = ((3.0 * msN + 0x1p-44 * D3) + DBL_MIN) * (1 + 4 * DBL_EPSILON);
    const int pos = c0 > m && c1 > m3 && c2 > m3 && c3 > m;
    const int neg = c0 < -m && c1 < -m3 && c2 < -m3 && c3 < -m;
    return pos || neg;
}

void ck_ccd_planes_ref(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3], double min_sep,
                       uint8_t *keep)
{
    const plane_idx q = idx_of(kind);
    for (int64_t i = 0; i < n; ++i)
        if (keep[i] && apart_one(q, x0[i], x1[i], min_sep)) keep[i] = 0;
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define CK_AVX2 __attribute__((target("avx2")))


typedef struct {
    __m256d v[3];
} vec4;

/* x[a] - x[b] for four queries (p at the first double of the first, stride 12 doubles) */
static inline CK_AVX2 vec4 diff4(const double *p, __m256i idx, int a, int b)
{
    vec4 r;
    for (int k = 0; k < 3; ++k)
        r.v[k] = _mm256_sub_pd(_mm256_i64gather_pd(p + 3 * a + k, idx, 8), _mm256_i64gather_pd(p + 3 * b + k, idx, 8));
    return r;
}

static inline CK_AVX2 vec4 cross4(vec4 b, vec4 c)
{
    vec4 x;
    x.v[0] = _mm256_sub_pd(_mm256_mul_pd(b.v[1], c.v[2]), _mm256_mul_pd(b.v[2], c.v[1]));
    x.v[1] = _mm256_sub_pd(_mm256_mul_pd(b.v[2], c.v[0]), _mm256_mul_pd(b.v[0], c.v[2]));
    x.v[2] = _mm256_sub_pd(_mm256_mul_pd(b.v[0], c.v[1]), _mm256_mul_pd(b.v[1], c.v[0]));
    return x;
}

static inline CK_AVX2 __m256d dot4(vec4 a, vec4 x)
{
    return _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a.v[0], x.v[0]), _mm256_mul_pd(a.v[1], x.v[1])),
                         _mm256_mul_pd(a.v[2], x.v[2]));
}

static CK_AVX2 void planes_avx2(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3],
                                double ms, uint8_t *keep)
{
    const plane_idx q = idx_of(kind);
    const __m256i idx = _mm256_set_epi64x(36, 24, 12, 0);
    const __m256d vms = _mm256_set1_pd(ms), eight = _mm256_set1_pd(8.0), three = _mm256_set1_pd(3.0);
    const __m256d k46 = _mm256_set1_pd(0x1p-46), k44 = _mm256_set1_pd(0x1p-44), dmin = _mm256_set1_pd(DBL_MIN);
    const __m256d up = _mm256_set1_pd(1 + 4 * DBL_EPSILON), sign = _mm256_set1_pd(-0.0);
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        uint32_t k4;
        __builtin_memcpy(&k4, keep + i, 4);
        if (!k4) continue; /* the boxes set all four apart */
        const double *p0 = &x0[i][0][0], *p1 = &x1[i][0][0];
        const vec4 P0 = diff4(p0, idx, q.p1, q.p0), B0 = diff4(p0, idx, q.b1, q.b0), C0 = diff4(p0, idx, q.c1, q.c0);
        const vec4 P1 = diff4(p1, idx, q.p1, q.p0), B1 = diff4(p1, idx, q.b1, q.b0), C1 = diff4(p1, idx, q.c1, q.c0);
        /* D in the scalar order: per axis k, t = 0 then t = 1, P, B, C */
        __m256d D = _mm256_setzero_pd();
        for (int k = 0; k < 3; ++k) {
            D = _mm256_max_pd(_mm256_andnot_pd(sign, P0.v[k]), D);
            D = _mm256_max_pd(_mm256_andnot_pd(sign, B0.v[k]), D);
            D = _mm256_max_pd(_mm256_andnot_pd(sign, C0.v[k]), D);
            D = _mm256_max_pd(_mm256_andnot_pd(sign, P1.v[k]), D);
            D = _mm256_max_pd(_mm256_andnot_pd(sign, B1.v[k]), D);
            D = _mm256_max_pd(_mm256_andnot_pd(sign, C1.v[k]), D);
        }
        const vec4 X00 = cross4(B0, C0), X01 = cross4(B0, C1), X10 = cross4(B1, C0), X11 = cross4(B1, C1);
        const __m256d c0 = dot4(P0, X00), c3 = dot4(P1, X11);
        const __m256d c1 = _mm256_add_pd(_mm256_add_pd(dot4(P1, X00), dot4(P0, X10)), dot4(P0, X01));
        const __m256d c2 = _mm256_add_pd(_mm256_add_pd(dot4(P1, X10), dot4(P1, X01)), dot4(P0, X11));
        const __m256d D2 = _mm256_mul_pd(D, D), D3 = _mm256_mul_pd(D2, D);
        const __m256d msN = _mm256_mul_pd(vms, _mm256_mul_pd(eight, D2));
        const __m256d m =
            _mm256_mul_pd(_mm256_add_pd(_mm256_add_pd(msN, _mm256_mul_pd(k46, D3)), dmin), up);
        const __m256d m3 = _mm256_mul_pd(
            _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(three, msN), _mm256_mul_pd(k44, D3)), dmin), up);
        const __m256d nm = _mm256_xor_pd(m, sign), nm3 = _mm256_xor_pd(m3, sign);
        const __m256d pos = _mm256_and_pd(
            _mm256_and_pd(_mm256_cmp_pd(c0, m, _CMP_GT_OQ), _mm256_cmp_pd(c1, m3, _CMP_GT_OQ)),
            _mm256_and_pd(_mm256_cmp_pd(c2, m3, _CMP_GT_OQ), _mm256_cmp_pd(c3, m, _CMP_GT_OQ)));
        const __m256d neg = _mm256_and_pd(
            _mm256_and_pd(_mm256_cmp_pd(c0, nm, _CMP_LT_OQ), _mm256_cmp_pd(c1, nm3, _CMP_LT_OQ)),
            _mm256_and_pd(_mm256_cmp_pd(c2, nm3, _CMP_LT_OQ), _mm256_cmp_pd(c3, nm, _CMP_LT_OQ)));
        const int a = _mm256_movemask_pd(_mm256_or_pd(pos, neg));
        for (int j = 0; j < 4; ++j)
            if ((a >> j) & 1) keep[i + j] = 0;
    }
    ck_ccd_planes_ref(kind, n - i, x0 + i, x1 + i, ms, keep + i);
}
#endif

void ck_ccd_planes(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3], double min_sep,
                   uint8_t *keep)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (n >= 4 && ck_have_avx2()) {
        planes_avx2(kind, n, x0, x1, min_sep, keep);
        return;
    }
#endif
    ck_ccd_planes_ref(kind, n, x0, x1, min_sep, keep);
}

/* ---- the window: no coplanarity before a ------------------------------------------------
 * The root finder (ccd.c) asks, for a query the first box did not settle, for a time a
 * before which the four points are certainly never coplanar within what ms allows: no
 * contact before a, so its search may start at a.  The same cubic on a sub-interval
 * [s0, s1] has its Bernstein coefficients from the difference vectors at s0 and s1 (the
 * formulas above, with P(s0), P(s1) for P0, P1).  Those points are now computed,
 * lerp(x0, x1, s) = fl(fl((1 - s) x0) + fl(s x1)) with s dyadic (1 - s exact), each within
 * g2 M of the exact point (M = the largest |coordinate| of the 8 inputs), so the computed
 * differences d^ are within eta = 2 g2 M + u Dh / (1 - u) <= 4.0001 u M + 1.0001 u Dh of
 * the exact d (Dh = the largest |d^|).  A product of three of them then differs from the
 * exact one by at most eta (3 Dh^2 + 3 Dh eta + eta^2) <= 3.01 eta Dh^2 when Dh >= 2^-40 M
 * (then eta <= 5e-4 Dh); the arithmetic adds g5 (c0, c3) or g7 (c1, c2) of Dh^3 per term.
 * So |c0 - b0| <= 18.06 eta Dh^2 + 6 g5 Dh^3 <= u Dh^2 (72.3 M + 48.1 Dh) and
 * |c1 - 3 b1| <= 54.2 eta Dh^2 + 18 g7 Dh^3 <= u Dh^2 (216.9 M + 180.4 Dh); we take
 * e = 2^-45 fl(fl(Dh Dh) fl(M + Dh)) (256 u, three roundings) and e3 = 2^-44 (...), and
 * N = 8 fl(Dh Dh) >= 6 (Dh + eta)^2; the thresholds as for the filter.  Required:
 * 2^-1000 <= M <= 2^300 (no overflow; underflow in the lerps is below 0.0001 u M) and
 * Dh >= 2^-40 M; otherwise the interval is not certified.  Underflow in the products is
 * covered by DBL_MIN, as in the filter. */
static void points_at(const double x0[4][3], const double x1[4][3], double s, double x[4][3])
{
    const double s1 = 1.0 - s;
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 3; ++k) x[i][k] = s1 * x0[i][k] + s * x1[i][k];
}

/* the cubic from its Bernstein coefficients at t */
static inline double bern3(double b0, double b1, double b2, double b3, double t)
{
    const double s = 1 - t;
    return s * s * s * b0 + 3 * t * s * s * b1 + 3 * t * t * s * b2 + t * t * t * b3;
}

/* the coefficients c0..c3 and Dh from the points at the two ends */
static void coeffs(plane_idx q, const double xa[4][3], const double xb[4][3], double c[4], double *Dh)
{
    double P[2][3], B[2][3], C[2][3], D = 0;
    for (int s = 0; s < 2; ++s) {
        const double(*x)[3] = s ? xb : xa;
        for (int k = 0; k < 3; ++k) {
            P[s][k] = x[q.p1][k] - x[q.p0][k];
            B[s][k] = x[q.b1][k] - x[q.b0][k];
            C[s][k] = x[q.c1][k] - x[q.c0][k];
            D = maxd(absd(P[s][k]), D), D = maxd(absd(B[s][k]), D), D = maxd(absd(C[s][k]), D);
        }
    }
    double X00[3], X01[3], X10[3], X11[3];
    cross3(B[0], C[0], X00), cross3(B[0], C[1], X01), cross3(B[1], C[0], X10), cross3(B[1], C[1], X11);
    c[0] = dot3(P[0], X00), c[3] = dot3(P[1], X11);
    c[1] = (dot3(P[1], X00) + dot3(P[0], X10)) + dot3(P[0], X01);
    c[2] = (dot3(P[1], X10) + dot3(P[1], X01)) + dot3(P[0], X11);
    *Dh = D;
}

/* 1 when the points at xa (time s0) and xb (s1) certify no coplanarity within ms in [s0, s1] */
static int clear_between(plane_idx q, const double xa[4][3], const double xb[4][3], double M, double ms)
{
    double c[4], Dh;
    coeffs(q, xa, xb, c, &Dh);
    if (!(Dh >= 0x1p-40 * M)) return 0;
    const double D2 = Dh * Dh, msN = ms * (8.0 * D2), E = D2 * (M + Dh);
    const double m = ((msN + 0x1p-45 * E) + DBL_MIN) * (1 + 4 * DBL_EPSILON);
    const double m3 = ((3.0 * msN + 0x1p-44 * E) + DBL_MIN) * (1 + 4 * DBL_EPSILON);
    return (c[0] > m && c[1] > m3 && c[2] > m3 && c[3] > m) || (c[0] < -m && c[1] < -m3 && c[2] < -m3 && c[3] < -m);
}

/* clear_between on [s0, s1] (dyadic, 0 <= s0 < s1 <= 1), the points at the ends computed */
static int clear_gap(plane_idx q, const double x0[4][3], const double x1[4][3], double s0, double s1, double M,
                     double ms)
{
    double xs[4][3], xe[4][3];
    if (s0 > 0) points_at(x0, x1, s0, xs);
    if (s1 < 1) points_at(x0, x1, s1, xe);
    return clear_between(q, s0 > 0 ? (const double(*)[3])xs : x0, s1 < 1 ? (const double(*)[3])xe : x1, M, ms);
}

/* Bisection of the cubic (in double: only a guess) between lo and hi where its sign changes */
static double bisect(const double c[4], double lo, double hi, int steps)
{
    const double b1 = c[1] / 3, b2 = c[2] / 3;
    const int slo = bern3(c[0], b1, b2, c[3], lo) <= 0;
    for (int j = 0; j < steps; ++j) {
        const double mid = 0.5 * (lo + hi);
        if ((bern3(c[0], b1, b2, c[3], mid) <= 0) == slo) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

int ck_ccd_planes_window(int kind, const double x0[4][3], const double x1[4][3], double ms, int depth,
                         double win[3][2])
{
    const plane_idx q = idx_of(kind);
    double M = 0;
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 3; ++k) M = maxd(absd(x0[i][k]), M), M = maxd(absd(x1[i][k]), M);
    if (!(M >= 0x1p-1000 && M <= 0x1p300) || !(ms >= 0) || depth < 1 || depth > 40) return -1;
    /* guesses of the roots from the cubic in double (any guess is safe: only certified
     * intervals count): the sign changes among 17 samples, each bisected */
    enum { S = 16 };
    double c[4], Dh, prev = 0;
    coeffs(q, x0, x1, c, &Dh);
    double lo[3], hi[3]; /* the grid points around each guess */
    int m = 0;
    const double grid = (double)(1ull << depth);
    for (int j = 0; j <= S; ++j) {
        const double ft = bern3(c[0], c[1] / 3, c[2] / 3, c[3], (double)j / S);
        if (j && (ft <= 0) != (prev <= 0)) {
            if (m == 3) return -1; /* rounding: more changes than a cubic has roots */
            const double r = bisect(c, (double)(j - 1) / S, (double)j / S, depth + 2);
            lo[m] = floor(r * grid) / grid, hi[m] = ceil(r * grid) / grid;
            if (hi[m] == lo[m]) hi[m] += 1 / grid;
            ++m;
        }
        prev = ft;
    }
    if (m == 0) return -1; /* no sign change seen: leave it to the search */
    /* certify the gaps [0, lo_0], [hi_0, lo_1], ..., [hi_last, 1] between the grid
     * intervals around the guesses; a gap that fails joins its neighbours into one window
     * (the outer ones: the window reaches 0 or 1) */
    int nw = 0;
    double start = lo[0] > 0 && clear_gap(q, x0, x1, 0.0, lo[0], M, ms) ? lo[0] : 0.0;
    for (int i = 1; i < m; ++i)
        if (hi[i - 1] < lo[i] && clear_gap(q, x0, x1, hi[i - 1], lo[i], M, ms)) {
            win[nw][0] = start, win[nw][1] = hi[i - 1], ++nw;
            start = lo[i];
        }
    win[nw][0] = start;
    win[nw][1] = hi[m - 1] < 1 && clear_gap(q, x0, x1, hi[m - 1], 1.0, M, ms) ? hi[m - 1] : 1.0;
    return nw + 1;
}
