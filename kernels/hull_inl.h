/*
 * hull_inl.h — the certificate arithmetic shared by the hull tests
 * (hull.c: GJK and the reference axis set; hull_bool.c: the boolean GJK
 * in front of them): dot products, the certificate margin of a direction
 * (derived at the top of hull.c), projections, the translation to a local
 * origin with its bound M, and the exact coordinate-axis reject.
 */
#ifndef CLASH_KERNELS_HULL_INL_H
#define CLASH_KERNELS_HULL_INL_H

#include <float.h>
#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define HULL_MAXN 8

static inline double h_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline void h_sub(double r[3], const double a[3], const double b[3])
{
    r[0] = a[0] - b[0];
    r[1] = a[1] - b[1];
    r[2] = a[2] - b[2];
}
static inline void h_cross(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}
static inline void h_axpy(double r[3], const double a[3], double t, const double d[3])
{
    r[0] = a[0] + t * d[0];
    r[1] = a[1] + t * d[1];
    r[2] = a[2] + t * d[2];
}

/* ---- the certificate ------------------------------------------------------ */

/* Margin for direction d (see the derivation at the top).  tol_l2 selects how
 * tol scales: |d|_2 (distance between hulls) or |d|_1 (box grown per side).
 * Returns a negative value when the direction is unusable (zero, NaN, or so
 * large that projections might overflow). */
static inline double h_margin(const double d[3], double M, double tol, int tol_l2)
{
    const double l1 = fabs(d[0]) + fabs(d[1]) + fabs(d[2]);
    if (!(l1 > 0) || !(l1 * M <= 1e300)) return -1.0;
    double tt = 0.0;
    if (tol > 0) tt = tol * (tol_l2 ? sqrt(h_dot(d, d)) : l1) * (1.0 + 0x1p-40);
    return tt + 5.0 * DBL_EPSILON * l1 * M + DBL_MIN;
}

/* Projection interval of a point list onto d. */
static inline void h_proj(const double d[3], const double (*a)[3], int n, double *mn, double *mx)
{
    double lo = h_dot(d, a[0]), hi = lo;
    for (int i = 1; i < n; ++i) {
        const double t = h_dot(d, a[i]);
        lo = t < lo ? t : lo;
        hi = t > hi ? t : hi;
    }
    *mn = lo;
    *mx = hi;
}

/* Projection interval of the box [blo, bhi] onto d: the corners picked by the
 * signs of d, each evaluated as a dot product with a corner (so the same error
 * bound applies). */
static inline void h_proj_box(const double d[3], const double blo[3], const double bhi[3], double *mn, double *mx)
{
    double cmin[3], cmax[3];
    for (int k = 0; k < 3; ++k) {
        cmin[k] = d[k] > 0 ? blo[k] : bhi[k];
        cmax[k] = d[k] > 0 ? bhi[k] : blo[k];
    }
    *mn = h_dot(d, cmin);
    *mx = h_dot(d, cmax);
}

/* 1 when the list a, projected on d, lies apart from [bmin, bmax] by more
 * than marg (marg < 0: d unusable, see h_margin). */
static inline int h_apart_from(const double d[3], const double (*a)[3], int na, double bmin, double bmax, double marg)
{
    if (marg < 0) return 0;
    double amin, amax;
    h_proj(d, a, na, &amin, &amax);
    return (amin - bmax > marg) || (bmin - amax > marg);
}

/* 1 when d verifiably separates the (translated) point lists a and b. */
static inline int h_separates(const double d[3], const double (*a)[3], int na, const double (*b)[3], int nb,
                              double M, double tol)
{
    double bmin, bmax;
    h_proj(d, b, nb, &bmin, &bmax);
    return h_apart_from(d, a, na, bmin, bmax, h_margin(d, M, tol, 1));
}

/* 1 when d verifiably separates the (translated) list a from the box. */
static inline int h_separates_box(const double d[3], const double (*a)[3], int na, const double blo[3],
                                  const double bhi[3], double M, double tol)
{
    double bmin, bmax;
    h_proj_box(d, blo, bhi, &bmin, &bmax);
    return h_apart_from(d, a, na, bmin, bmax, h_margin(d, M, tol, 0));
}

/* Translate n points by -c into out; returns max |coordinate| of out (and
 * of M), or -1 when something is not finite.  Without a branch a
 * coordinate: a NaN fails every comparison, so "finite" is |t| <= DBL_MAX,
 * gathered by AND and tested once.  The rows are contiguous, so with SSE2
 * (every x86-64) six coordinates go as three pairs, c's pattern (c0 c1,
 * c2 c0, c1 c2) repeating: the same subtractions and the same maximum
 * (exact, in any order), in a third of the scalar loop's instructions
 * (S5's hull tests run it on every pair they see). */
static inline double h_shift(const double (*in)[3], int n, const double c[3], double (*out)[3], double M)
{
    const int m = 3 * n;
    const double *x = in[0];
    double *o = out[0];
    int finite = 1, j = 0;
#if defined(__SSE2__)
    if (m >= 6) {
        const __m128d c01 = _mm_setr_pd(c[0], c[1]), c20 = _mm_setr_pd(c[2], c[0]), c12 = _mm_setr_pd(c[1], c[2]);
        const __m128d mag = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL)), big = _mm_set1_pd(DBL_MAX);
        __m128d vm = _mm_set1_pd(M), ok = _mm_cmple_pd(vm, big); /* M is finite: all ones */
        for (; j + 6 <= m; j += 6) {
            const __m128d t0 = _mm_sub_pd(_mm_loadu_pd(x + j), c01), t1 = _mm_sub_pd(_mm_loadu_pd(x + j + 2), c20),
                          t2 = _mm_sub_pd(_mm_loadu_pd(x + j + 4), c12);
            _mm_storeu_pd(o + j, t0), _mm_storeu_pd(o + j + 2, t1), _mm_storeu_pd(o + j + 4, t2);
            const __m128d a0 = _mm_and_pd(t0, mag), a1 = _mm_and_pd(t1, mag), a2 = _mm_and_pd(t2, mag);
            const __m128d f0 = _mm_cmple_pd(a0, big), f1 = _mm_cmple_pd(a1, big), f2 = _mm_cmple_pd(a2, big);
            ok = _mm_and_pd(ok, _mm_and_pd(f0, _mm_and_pd(f1, f2)));
            vm = _mm_max_pd(vm, _mm_max_pd(a0, _mm_max_pd(a1, a2)));
        }
        finite = _mm_movemask_pd(ok) == 3;
        const double m0 = _mm_cvtsd_f64(vm), m1 = _mm_cvtsd_f64(_mm_unpackhi_pd(vm, vm));
        M = m0 > m1 ? m0 : m1;
    }
#endif
    for (; j < m; ++j) {
        const double t = x[j] - c[j % 3];
        o[j] = t;
        const double at = fabs(t);
        finite &= at <= DBL_MAX;
        M = at > M ? at : M;
    }
    return finite ? M : -1.0;
}

/* Exact test on the coordinate axes: projecting on e_k is reading the
 * coordinate, no rounding, so the only margin is tol (fl(a - b) > t with
 * t = tol (1 + 2^-40) implies a - b > tol; for tol = 0 it is a > b). */
static inline int h_aabb_apart(const double (*p)[3], int np, const double (*q)[3], int nq, double tol)
{
    const double ttol = tol * (1.0 + 0x1p-40);
    for (int k = 0; k < 3; ++k) {
        double pl = p[0][k], ph = pl, ql = q[0][k], qh = ql;
        for (int i = 1; i < np; ++i) pl = p[i][k] < pl ? p[i][k] : pl, ph = p[i][k] > ph ? p[i][k] : ph;
        for (int i = 1; i < nq; ++i) ql = q[i][k] < ql ? q[i][k] : ql, qh = q[i][k] > qh ? q[i][k] : qh;
        if (ql - ph > ttol || pl - qh > ttol) return 1;
    }
    return 0;
}

#endif
