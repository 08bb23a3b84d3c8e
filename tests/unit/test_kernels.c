/*
 * test_kernels.c — the exact geometry kernels (tribox.c, tritri.c, hull.c) and
 * the octree's binning and descent passes (cells.c).
 *
 *   test_kernels [N]     N = number of random tribox / tritri cases (default
 *                        1000000); the hull tests scale with N/10.  Use a
 *                        small N under sanitizers.
 *   test_kernels CASE... [N]   only the named cases (e.g. `test_kernels tritri 1000`)
 *   test_kernels --list        the cases, one a line, with what each checks
 *
 * Ground truth.  On integer data (coordinates on a small grid, so every
 * product the kernels form is exact in double) the truth is computed exactly
 * in int64 by an oracle that shares no code with the kernels: two convex
 * hulls meet iff 0 is in conv{p - q}; the oracle first looks for an exact
 * separating axis (the complete axis set for the dimension of conv{p - q},
 * computed exactly), and when none separates it looks for a simplex of
 * points p - q (point, segment, triangle or tetrahedron, Carathéodory) that
 * contains 0 exactly.  A separating axis is a certificate of "apart", a
 * simplex one of "meet"; when neither is found the oracle reports its own
 * incompleteness, which is checked never to happen.
 *
 * Float data: the fast kernels are compared with the references, and every
 * disagreement must come from rounding near touching: the signed
 * separating-axis distance of the configuration (long double) must be within
 * 1e-12 of the scale.  The swept-hull kernels are checked for conservativeness:
 * they may say "meet" for apart sets, never "apart" for sets that meet.
 *
 * Timings (ns per call) are printed, not asserted.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "kernels/kernels.h"
#include "rng.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- exact oracle (int64) -------------------------------------------------- */

typedef long long i64;

static void icross(i64 r[3], const i64 a[3], const i64 b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}
static i64 idot(const i64 a[3], const i64 b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void isub(i64 r[3], const i64 a[3], const i64 b[3])
{
    r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}
static int izero(const i64 a[3]) { return a[0] == 0 && a[1] == 0 && a[2] == 0; }

/* strict separation of A and B along d */
static int isep(const i64 d[3], const i64 (*A)[3], int na, const i64 (*B)[3], int nb)
{
    if (izero(d)) return 0;
    i64 amin = idot(d, A[0]), amax = amin, bmin = idot(d, B[0]), bmax = bmin;
    for (int i = 1; i < na; ++i) {
        const i64 t = idot(d, A[i]);
        amin = t < amin ? t : amin, amax = t > amax ? t : amax;
    }
    for (int i = 1; i < nb; ++i) {
        const i64 t = idot(d, B[i]);
        bmin = t < bmin ? t : bmin, bmax = t > bmax ? t : bmax;
    }
    return amax < bmin || bmax < amin;
}

/* orientation of d against plane abc, exact */
static i64 iorient(const i64 a[3], const i64 b[3], const i64 c[3], const i64 d[3])
{
    i64 ab[3], ac[3], ad[3], n[3];
    isub(ab, b, a), isub(ac, c, a), isub(ad, d, a);
    icross(n, ab, ac);
    return idot(n, ad);
}

static int isgn(i64 x) { return (x > 0) - (x < 0); }

/* Carathéodory: is 0 in conv S?  Checks every affinely independent subset of
 * up to dim+1 points. */
static int icara(const i64 (*S)[3], int n, int dim)
{
    static const i64 O[3] = {0, 0, 0};
    for (int i = 0; i < n; ++i)
        if (izero(S[i])) return 1;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j) {
            i64 c[3], e[3];
            isub(e, S[j], S[i]);
            if (izero(e)) continue;
            icross(c, S[i], S[j]);
            if (izero(c) && idot(S[i], S[j]) <= 0) return 1;
        }
    if (dim < 2) return 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            for (int k = j + 1; k < n; ++k) {
                i64 e1[3], e2[3], nn[3], t[3];
                isub(e1, S[j], S[i]), isub(e2, S[k], S[i]);
                icross(nn, e1, e2);
                if (izero(nn)) continue;
                if (iorient(O, S[i], S[j], S[k]) != 0) continue;
                icross(t, S[j], S[k]);
                if (idot(nn, t) < 0) continue;
                icross(t, S[k], S[i]);
                if (idot(nn, t) < 0) continue;
                icross(t, S[i], S[j]);
                if (idot(nn, t) < 0) continue;
                return 1;
            }
    if (dim < 3) return 0;
    for (int i = 0; i < n; ++i)
        for (int j = i + 1; j < n; ++j)
            for (int k = j + 1; k < n; ++k)
                for (int l = k + 1; l < n; ++l) {
                    const int sv = isgn(iorient(S[i], S[j], S[k], S[l]));
                    if (!sv) continue;
                    const int s0 = isgn(iorient(O, S[j], S[k], S[l])), s1 = isgn(iorient(S[i], O, S[k], S[l]));
                    const int s2 = isgn(iorient(S[i], S[j], O, S[l])), s3 = isgn(iorient(S[i], S[j], S[k], O));
                    if (s0 != -sv && s1 != -sv && s2 != -sv && s3 != -sv) return 1;
                }
    return 0;
}

static long oracle_incomplete; /* cases where neither certificate was found */

/* exact: do conv(A) and conv(B) meet? */
static int exact_meet(const i64 (*A)[3], int na, const i64 (*B)[3], int nb)
{
    i64 S[64][3];
    int ns = 0;
    for (int i = 0; i < na; ++i)
        for (int j = 0; j < nb; ++j) isub(S[ns++], A[i], B[j]);
    /* affine dimension of S, exactly */
    int dim = 0;
    i64 u[3] = {0, 0, 0}, m[3] = {0, 0, 0};
    for (int i = 1; i < ns && dim == 0; ++i) {
        isub(u, S[i], S[0]);
        if (!izero(u)) dim = 1;
    }
    for (int i = 1; i < ns && dim == 1; ++i) {
        i64 e[3];
        isub(e, S[i], S[0]);
        icross(m, u, e);
        if (!izero(m)) dim = 2;
    }
    for (int i = 1; i < ns && dim == 2; ++i) {
        i64 e[3];
        isub(e, S[i], S[0]);
        if (idot(m, e) != 0) dim = 3;
    }
    /* the edges of both sets */
    i64 E[56][3];
    int ne = 0, nea;
    for (int i = 0; i < na; ++i)
        for (int j = i + 1; j < na; ++j) isub(E[ne++], A[j], A[i]);
    nea = ne;
    for (int i = 0; i < nb; ++i)
        for (int j = i + 1; j < nb; ++j) isub(E[ne++], B[j], B[i]);
    i64 d[3], t[3];
    if (dim == 3) {
        for (int i = 0; i < nea; ++i)
            for (int j = i + 1; j < nea; ++j) {
                icross(d, E[i], E[j]);
                if (isep(d, A, na, B, nb)) return 0;
            }
        for (int i = nea; i < ne; ++i)
            for (int j = i + 1; j < ne; ++j) {
                icross(d, E[i], E[j]);
                if (isep(d, A, na, B, nb)) return 0;
            }
        for (int i = 0; i < nea; ++i)
            for (int j = nea; j < ne; ++j) {
                icross(d, E[i], E[j]);
                if (isep(d, A, na, B, nb)) return 0;
            }
    } else if (dim == 2) {
        if (isep(m, A, na, B, nb)) return 0;
        for (int i = 0; i < ne; ++i) {
            icross(d, m, E[i]);
            if (isep(d, A, na, B, nb)) return 0;
        }
    } else if (dim == 1) {
        if (isep(u, A, na, B, nb)) return 0;
        icross(t, S[0], u);
        icross(d, u, t);
        if (isep(d, A, na, B, nb)) return 0;
    } else {
        if (isep(S[0], A, na, B, nb)) return 0;
    }
    if (icara((const i64(*)[3])S, ns, dim)) return 1;
    ++oracle_incomplete;
    return 0;
}

/* ---- signed separating-axis distance (long double), for float cases ---------
 * max over a complete axis set of (gap along d)/|d|: > 0 (a lower bound of the
 * distance) when apart, -(penetration depth) when the sets overlap.  Near 0
 * means near touching. */
typedef long double ld;

static void lcross(ld r[3], const ld a[3], const ld b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}
static ld ldot(const ld a[3], const ld b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void lgap(const ld d[3], const ld (*A)[3], int na, const ld (*B)[3], int nb, ld *best)
{
    const ld dd = ldot(d, d);
    if (!(dd > 0)) return;
    ld amin = ldot(d, A[0]), amax = amin, bmin = ldot(d, B[0]), bmax = bmin;
    for (int i = 1; i < na; ++i) {
        const ld t = ldot(d, A[i]);
        amin = t < amin ? t : amin, amax = t > amax ? t : amax;
    }
    for (int i = 1; i < nb; ++i) {
        const ld t = ldot(d, B[i]);
        bmin = t < bmin ? t : bmin, bmax = t > bmax ? t : bmax;
    }
    ld g = bmin - amax;
    if (amin - bmax > g) g = amin - bmax;
    g /= sqrtl(dd);
    if (g > *best) *best = g;
}

static double signed_sat(const double (*a)[3], int na, const double (*b)[3], int nb)
{
    ld A[8][3], B[8][3], E[56][3];
    for (int i = 0; i < na; ++i)
        for (int k = 0; k < 3; ++k) A[i][k] = a[i][k];
    for (int i = 0; i < nb; ++i)
        for (int k = 0; k < 3; ++k) B[i][k] = b[i][k];
    int ne = 0;
    for (int i = 0; i < na; ++i)
        for (int j = i + 1; j < na; ++j, ++ne)
            for (int k = 0; k < 3; ++k) E[ne][k] = A[j][k] - A[i][k];
    for (int i = 0; i < nb; ++i)
        for (int j = i + 1; j < nb; ++j, ++ne)
            for (int k = 0; k < 3; ++k) E[ne][k] = B[j][k] - B[i][k];
    ld best = -INFINITY, d[3], t[3], w[3];
    for (int i = 0; i < ne; ++i) {
        lgap(E[i], (const ld(*)[3])A, na, (const ld(*)[3])B, nb, &best);
        for (int j = i + 1; j < ne; ++j) {
            ld c[3];
            lcross(c, E[i], E[j]);
            lgap(c, (const ld(*)[3])A, na, (const ld(*)[3])B, nb, &best);
            for (int k = 0; k < ne; ++k) { /* in-plane normals, for flat D */
                lcross(d, c, E[k]);
                lgap(d, (const ld(*)[3])A, na, (const ld(*)[3])B, nb, &best);
            }
        }
    }
    for (int k = 0; k < 3; ++k) w[k] = A[0][k] - B[0][k];
    lgap(w, (const ld(*)[3])A, na, (const ld(*)[3])B, nb, &best);
    for (int i = 0; i < ne; ++i) {
        lcross(t, w, E[i]);
        lcross(d, E[i], t);
        lgap(d, (const ld(*)[3])A, na, (const ld(*)[3])B, nb, &best);
    }
    return (double)best;
}

static void box_corners(const double lo[3], const double hi[3], double c[8][3])
{
    for (int i = 0; i < 8; ++i) {
        c[i][0] = (i & 1) ? hi[0] : lo[0];
        c[i][1] = (i & 2) ? hi[1] : lo[1];
        c[i][2] = (i & 4) ? hi[2] : lo[2];
    }
}

static void to_i64(const double (*a)[3], int n, i64 (*out)[3])
{
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) out[i][k] = (i64)a[i][k];
}

/* ============================================================================
 * triangle / box
 * ========================================================================= */

/* weak separation (<=) on the 13 axes: the closed triangle misses the open box */
static int tribox_misses_open(const double *const v[3], const double lo[3], const double hi[3])
{
    double E[6][3] = {{0}}, d[3];
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) E[i][k] = v[(i + 1) % 3][k] - v[i][k];
    E[3][0] = E[4][1] = E[5][2] = 1;
    double ax[13][3];
    int na = 0;
    for (int k = 3; k < 6; ++k) memcpy(ax[na++], E[k], sizeof d);
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 6; ++j) {
            if (j < 3 && !(i == 0 && j == 1)) continue;
            d[0] = E[i][1] * E[j][2] - E[i][2] * E[j][1];
            d[1] = E[i][2] * E[j][0] - E[i][0] * E[j][2];
            d[2] = E[i][0] * E[j][1] - E[i][1] * E[j][0];
            memcpy(ax[na++], d, sizeof d);
        }
    for (int a = 0; a < na; ++a) {
        const double *x = ax[a];
        if (x[0] == 0 && x[1] == 0 && x[2] == 0) continue;
        double tmin = INFINITY, tmax = -INFINITY, bmin = 0, bmax = 0;
        for (int i = 0; i < 3; ++i) {
            const double t = x[0] * v[i][0] + x[1] * v[i][1] + x[2] * v[i][2];
            tmin = fmin(tmin, t), tmax = fmax(tmax, t);
        }
        for (int k = 0; k < 3; ++k) {
            bmin += x[k] > 0 ? x[k] * lo[k] : x[k] * hi[k];
            bmax += x[k] > 0 ? x[k] * hi[k] : x[k] * lo[k];
        }
        if (tmax <= bmin || tmin >= bmax) return 1;
    }
    return 0;
}

/* a random integer grid triangle / box case */
static void gen_tribox_grid(double v[3][3], double lo[3], double hi[3])
{
    const int G = 5;
    for (int k = 0; k < 3; ++k) {
        int a = rng_int(-G, G), b = rng_int(-G, G);
        if (rng_int(0, 19) == 0) b = a; /* flat box now and then */
        lo[k] = a < b ? a : b, hi[k] = a < b ? b : a;
    }
    const int mode = rng_int(0, 9);
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) v[i][k] = rng_int(-G - 2, G + 2);
    if (mode == 1 || mode == 2) { /* vertices on box faces */
        for (int i = 0; i < 3; ++i)
            if (rng_int(0, 1)) {
                const int k = rng_int(0, 2);
                v[i][k] = rng_int(0, 1) ? lo[k] : hi[k];
            }
    } else if (mode == 3) { /* degenerate: collinear */
        const int s = rng_int(-2, 2);
        for (int k = 0; k < 3; ++k) v[2][k] = v[0][k] + s * (v[1][k] - v[0][k]);
    } else if (mode == 4) { /* degenerate: repeated vertex or point */
        memcpy(v[1], v[0], sizeof v[0]);
        if (rng_int(0, 1)) memcpy(v[2], v[0], sizeof v[0]);
    } else if (mode == 5) { /* triangle in a face plane of the box */
        const int k = rng_int(0, 2);
        const double c = rng_int(0, 1) ? lo[k] : hi[k];
        for (int i = 0; i < 3; ++i) v[i][k] = c;
    } else if (mode == 6) { /* all vertices outside one face, touching it */
        const int k = rng_int(0, 2);
        for (int i = 0; i < 3; ++i) v[i][k] = hi[k] + rng_int(0, 2);
        v[rng_int(0, 2)][k] = hi[k];
    } else if (mode == 7) { /* small triangles near the box boundary */
        for (int k = 0; k < 3; ++k) v[0][k] = rng_int(0, 1) ? lo[k] + rng_int(-1, 1) : hi[k] + rng_int(-1, 1);
        for (int i = 1; i < 3; ++i)
            for (int k = 0; k < 3; ++k) v[i][k] = v[0][k] + rng_int(-2, 2);
    }
}

static void test_tribox(long n)
{
    /* fixed cases */
    {
        const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        const double a[3] = {2, 0, 0}, b[3] = {0, 2, 0}, c[3] = {0, 0, 2}; /* plane x+y+z=2 cuts the box */
        CHECK(ck_tribox(a, b, c, lo, hi) == 1 && ck_tribox_ref(a, b, c, lo, hi) == 1, "plane x+y+z=2");
        const double a2[3] = {3, 0, 0}, b2[3] = {0, 3, 0}, c2[3] = {0, 0, 3}; /* touches the corner (1,1,1) */
        CHECK(ck_tribox(a2, b2, c2, lo, hi) == 1 && ck_tribox_ref(a2, b2, c2, lo, hi) == 1, "corner touch");
        const double a3[3] = {3.5, 0, 0}, b3[3] = {0, 3.5, 0}, c3[3] = {0, 0, 3.5};
        CHECK(ck_tribox(a3, b3, c3, lo, hi) == 0 && ck_tribox_ref(a3, b3, c3, lo, hi) == 0, "corner miss");
        const double a4[3] = {-1, 0.5, 0.5}, b4[3] = {2, 0.5, 0.5}, c4[3] = {2, 0.5, 0.5}; /* segment through */
        CHECK(ck_tribox(a4, b4, c4, lo, hi) == 1 && ck_tribox_ref(a4, b4, c4, lo, hi) == 1, "segment through");
        const double a5[3] = {-1, 2, 0.5}, b5[3] = {2, -1, 0.5}, c5[3] = {5, -4, 0.5}; /* collinear, touches edge at (1,0)? */
        CHECK(ck_tribox(a5, b5, c5, lo, hi) == 1 && ck_tribox_ref(a5, b5, c5, lo, hi) == 1, "collinear through");
        const double a6[3] = {-1, 3, 0.5}, b6[3] = {3, -1, 0.5}, c6[3] = {3, -1, 0.5}; /* x+y=2 touches (1,1) */
        CHECK(ck_tribox(a6, b6, c6, lo, hi) == 1 && ck_tribox_ref(a6, b6, c6, lo, hi) == 1, "segment touches edge");
        const double a7[3] = {-1, 3.25, 0.5}, b7[3] = {3.25, -1, 0.5}, c7[3] = {3.25, -1, 0.5};
        CHECK(ck_tribox(a7, b7, c7, lo, hi) == 0 && ck_tribox_ref(a7, b7, c7, lo, hi) == 0, "segment misses edge");
        /* big triangle enclosing the box's cross-section: no vertex inside, no edge crossing a face */
        const double a8[3] = {-10, -10, 0.5}, b8[3] = {10, -10, 0.5}, c8[3] = {0, 10, 0.5};
        CHECK(ck_tribox(a8, b8, c8, lo, hi) == 1 && ck_tribox_ref(a8, b8, c8, lo, hi) == 1, "big triangle");
        const double a9[3] = {-10, -10, 1}, b9[3] = {10, -10, 1}, c9[3] = {0, 10, 1}; /* on top face */
        CHECK(ck_tribox(a9, b9, c9, lo, hi) == 1 && ck_tribox_ref(a9, b9, c9, lo, hi) == 1, "big triangle on top");
        const double a10[3] = {-10, -10, 1.5}, b10[3] = {10, -10, 1.5}, c10[3] = {0, 10, 1.5};
        CHECK(ck_tribox(a10, b10, c10, lo, hi) == 0 && ck_tribox_ref(a10, b10, c10, lo, hi) == 0, "big triangle above");
    }

    /* grid cases: exact; oracle on a subset */
    const long ngrid = n / 2, nfloat = n - n / 2;
    long dis = 0, touching = 0, pos = 0, deg = 0, flat = 0, oracle_n = 0, oracle_bad = 0;
    for (long it = 0; it < ngrid; ++it) {
        double v[3][3], lo[3], hi[3];
        gen_tribox_grid(v, lo, hi);
        const int f = ck_tribox(v[0], v[1], v[2], lo, hi), r = ck_tribox_ref(v[0], v[1], v[2], lo, hi);
        const double *vp[3] = {v[0], v[1], v[2]};
        double e1[3], e2[3];
        for (int k = 0; k < 3; ++k) e1[k] = v[1][k] - v[0][k], e2[k] = v[2][k] - v[0][k];
        const int isdeg = e1[1] * e2[2] - e1[2] * e2[1] == 0 && e1[2] * e2[0] - e1[0] * e2[2] == 0 &&
                          e1[0] * e2[1] - e1[1] * e2[0] == 0;
        const int isflat = !(lo[0] < hi[0] && lo[1] < hi[1] && lo[2] < hi[2]);
        deg += isdeg, flat += isflat, pos += r;
        if (f != r) {
            ++dis;
            if (dis <= 5)
                fprintf(stderr, "tribox grid mismatch fast=%d ref=%d: (%g %g %g) (%g %g %g) (%g %g %g) box (%g %g %g)-(%g %g %g)\n",
                        f, r, v[0][0], v[0][1], v[0][2], v[1][0], v[1][1], v[1][2], v[2][0], v[2][1], v[2][2],
                        lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
        }
        if (!isflat && r && tribox_misses_open(vp, lo, hi)) {
            ++touching;
            CHECK(f == 1 && r == 1, "exact touching case must meet");
        }
        if (it % 20 == 0) {
            double bc[8][3];
            i64 ti[3][3], bi[8][3];
            box_corners(lo, hi, bc);
            to_i64((const double(*)[3])v, 3, ti);
            to_i64((const double(*)[3])bc, 8, bi);
            const int truth = exact_meet((const i64(*)[3])ti, 3, (const i64(*)[3])bi, 8);
            ++oracle_n;
            if (truth != r || truth != f) ++oracle_bad;
        }
    }
    printf("tribox grid:  %ld cases (%ld meet, %ld exactly touching, %ld degenerate triangles, %ld flat boxes): "
           "%ld fast/ref disagreements; exact oracle on %ld of them: %ld wrong\n",
           ngrid, pos, touching, deg, flat, dis, oracle_n, oracle_bad);
    CHECK(dis == 0, "tribox grid: %ld disagreements", dis);
    CHECK(oracle_bad == 0, "tribox grid: %ld oracle mismatches", oracle_bad);
    CHECK(touching > ngrid / 100, "tribox grid: too few touching cases (%ld)", touching);

    /* float cases: varied sizes, near touching by construction */
    long fdis = 0, fpos = 0, fnear_bad = 0;
    double worst = 0;
    for (long it = 0; it < nfloat; ++it) {
        double lo[3], hi[3], v[3][3];
        const double scale = pow(10.0, rng_range(-3, 2));
        const double off = rng_range(-100, 100);
        for (int k = 0; k < 3; ++k) {
            lo[k] = off + scale * rng_range(-1, 1);
            hi[k] = lo[k] + scale * pow(10.0, rng_range(-2, 0.5));
        }
        const double ts = scale * pow(10.0, rng_range(-2, 1));
        double c[3];
        for (int k = 0; k < 3; ++k) c[k] = rng_range(lo[k] - ts, hi[k] + ts);
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) v[i][k] = c[k] + ts * rng_range(-1, 1);
        const int mode = rng_int(0, 5);
        if (mode == 1) { /* a vertex exactly on a face value */
            const int k = rng_int(0, 2);
            v[rng_int(0, 2)][k] = rng_int(0, 1) ? lo[k] : hi[k];
        } else if (mode == 2) { /* shift so that the triangle's min along k is hi[k] (rounded) */
            const int k = rng_int(0, 2);
            const double mn = fmin(v[0][k], fmin(v[1][k], v[2][k]));
            for (int i = 0; i < 3; ++i) v[i][k] += hi[k] - mn;
        } else if (mode == 3) { /* degenerate: collinear in floats (approximately) */
            const double t = rng_range(-2, 2);
            for (int k = 0; k < 3; ++k) v[2][k] = v[0][k] + t * (v[1][k] - v[0][k]);
        } else if (mode == 4) { /* the plane through a box corner: v2 chosen on the plane of v0, v1, corner */
            double corner[3] = {rng_int(0, 1) ? lo[0] : hi[0], rng_int(0, 1) ? lo[1] : hi[1],
                                rng_int(0, 1) ? lo[2] : hi[2]};
            const double s = rng_range(-1, 2), t = rng_range(-1, 2);
            for (int k = 0; k < 3; ++k) v[2][k] = v[0][k] + s * (v[1][k] - v[0][k]) + t * (corner[k] - v[0][k]);
        }
        const int f = ck_tribox(v[0], v[1], v[2], lo, hi), r = ck_tribox_ref(v[0], v[1], v[2], lo, hi);
        fpos += r;
        if (f != r) {
            ++fdis;
            double bc[8][3];
            box_corners(lo, hi, bc);
            const double s = signed_sat((const double(*)[3])v, 3, (const double(*)[3])bc, 8);
            double mag = 0;
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k) mag = fmax(mag, fabs(v[i][k]));
            for (int k = 0; k < 3; ++k) mag = fmax(mag, fmax(fabs(lo[k]), fabs(hi[k])));
            const double rel = fabs(s) / mag;
            worst = fmax(worst, rel);
            if (!(rel <= 1e-12)) {
                ++fnear_bad;
                if (fnear_bad <= 5) fprintf(stderr, "tribox float disagreement not near touching: rel %g\n", rel);
            }
        }
    }
    printf("tribox float: %ld cases (%ld meet): %ld fast/ref disagreements, all within %.2e (relative) of touching\n",
           nfloat, fpos, fdis, worst);
    CHECK(fnear_bad == 0, "tribox float: %ld disagreements not near touching", fnear_bad);
}

/* ============================================================================
 * triangle / triangle
 * ========================================================================= */

static int tt_both(const double a[3][3], const double b[3][3], int *f, int *r)
{
    *f = ck_tritri(a[0], a[1], a[2], b[0], b[1], b[2]);
    *r = ck_tritri_ref(a[0], a[1], a[2], b[0], b[1], b[2]);
    /* symmetric and permuted calls must agree too */
    const int f2 = ck_tritri(b[1], b[2], b[0], a[2], a[1], a[0]);
    const int r2 = ck_tritri_ref(b[0], b[2], b[1], a[1], a[2], a[0]);
    return *f == f2 && *r == r2;
}

static void tt_case(const char *name, const double a[3][3], const double b[3][3], int expect)
{
    int f, r;
    const int sym = tt_both(a, b, &f, &r);
    CHECK(f == expect && r == expect && sym, "tritri %s: fast %d ref %d expected %d", name, f, r, expect);
}

/* a random grid triangle pair, many of them degenerate or touching */
static void gen_tritri_grid(double a[3][3], double b[3][3])
{
    const int G = rng_int(0, 1) ? 2 : 4;
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) a[i][k] = rng_int(-G, G), b[i][k] = rng_int(-G, G);
    const int mode = rng_int(0, 11);
    if (mode == 1) { /* coplanar: both in a coordinate plane */
        const int k = rng_int(0, 2);
        const int c = rng_int(-1, 1);
        for (int i = 0; i < 3; ++i) a[i][k] = c, b[i][k] = c;
    } else if (mode == 2) { /* coplanar: both in the plane x + y + z = c (third coordinate solved) */
        const int c = rng_int(-2, 2);
        for (int i = 0; i < 3; ++i) a[i][2] = c - a[i][0] - a[i][1], b[i][2] = c - b[i][0] - b[i][1];
    } else if (mode == 3) { /* shared vertex */
        memcpy(b[rng_int(0, 2)], a[rng_int(0, 2)], sizeof a[0]);
    } else if (mode == 4) { /* shared edge line: b0 on a's edge, b1 on its extension */
        const int s = rng_int(-1, 2);
        for (int k = 0; k < 3; ++k) b[0][k] = a[0][k] + s * (a[1][k] - a[0][k]);
    } else if (mode == 5) { /* A degenerate (collinear or repeated) */
        const int s = rng_int(-1, 2);
        for (int k = 0; k < 3; ++k) a[2][k] = a[0][k] + s * (a[1][k] - a[0][k]);
    } else if (mode == 6) { /* both degenerate */
        const int s = rng_int(-1, 2), t = rng_int(-1, 2);
        for (int k = 0; k < 3; ++k) a[2][k] = a[0][k] + s * (a[1][k] - a[0][k]);
        for (int k = 0; k < 3; ++k) b[2][k] = b[0][k] + t * (b[1][k] - b[0][k]);
        if (rng_int(0, 3) == 0)
            for (int k = 0; k < 3; ++k) b[1][k] = a[1][k] + t * (a[1][k] - a[0][k]); /* collinear-ish */
    } else if (mode == 7) { /* B = A translated by a small vector (often touching / parallel) */
        const int dx = rng_int(-1, 1), dy = rng_int(-1, 1), dz = rng_int(-1, 1);
        for (int i = 0; i < 3; ++i) b[i][0] = a[i][0] + dx, b[i][1] = a[i][1] + dy, b[i][2] = a[i][2] + dz;
    } else if (mode == 8) { /* a vertex of B on the plane of A: b0 = a0 + s e1 + t e2 */
        const int s = rng_int(-1, 2), t = rng_int(-1, 2);
        for (int k = 0; k < 3; ++k) b[0][k] = a[0][k] + s * (a[1][k] - a[0][k]) + t * (a[2][k] - a[0][k]);
    } else if (mode == 9) { /* all of B on one side of A's plane, touching it */
        const int k = rng_int(0, 2);
        for (int i = 0; i < 3; ++i) a[i][k] = 0, b[i][k] = rng_int(0, 2);
        b[rng_int(0, 2)][k] = 0;
    }
}

static void test_tritri(long n)
{
    /* specific cases */
    {
        const double A[3][3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
        const double B1[3][3] = {{1, 1, 0}, {5, 1, 0}, {1, 5, 0}};
        tt_case("coplanar overlapping", A, B1, 1);
        const double B2[3][3] = {{4, 0, 0}, {6, 0, 0}, {5, 2, 0}};
        tt_case("coplanar touching at a vertex", A, B2, 1);
        const double B3[3][3] = {{5, 0, 0}, {7, 0, 0}, {6, 2, 0}};
        tt_case("coplanar disjoint", A, B3, 0);
        const double B3b[3][3] = {{3, 3, 0}, {6, 0, 0}, {6, 6, 0}}; /* vertex on the hypotenuse? (3,3): x+y=6 > 4 */
        tt_case("coplanar disjoint near hypotenuse", A, B3b, 0);
        const double B3c[3][3] = {{2, 2, 0}, {6, 0, 0}, {6, 6, 0}}; /* (2,2) is on the hypotenuse x+y=4 */
        tt_case("coplanar vertex on edge", A, B3c, 1);
        const double B3d[3][3] = {{-1, -1, 0}, {6, -1, 0}, {-1, 6, 0}}; /* contains A */
        tt_case("coplanar containing", A, B3d, 1);
        const double B4[3][3] = {{2, -1, 1}, {2, 1, -1}, {2, 3, 5}}; /* edge of B crosses edge of A? */
        int f, r;
        tt_both(A, B4, &f, &r);
        CHECK(f == r, "tritri crossing: fast %d ref %d", f, r);
        const double B5[3][3] = {{1, 1, 0}, {1, 1, 3}, {3, 3, 3}}; /* vertex (1,1,0) on face of A */
        tt_case("vertex on face", A, B5, 1);
        const double B6[3][3] = {{2, 0, 0}, {2, -3, 3}, {2, 3, 3}}; /* vertex (2,0,0) on edge of A, B above */
        tt_case("vertex on edge", A, B6, 1);
        const double B7[3][3] = {{2, -1, 0}, {2, 1, 0}, {2, 0, 3}}; /* edge crossing A's edge y=0 at (2,0,0) */
        tt_case("edge through edge", A, B7, 1);
        /* B meets the plane z = 0 in the segment (2,0,0)-(2,-2,0): only its end touches A's edge */
        const double B8[3][3] = {{2, -1, 1}, {2, 1, -1}, {2, -3, -1}};
        tt_case("edge-edge touching", A, B8, 1);
        const double B8b[3][3] = {{2, -1, 1}, {2, 1, -1}, {3, -2, 0}}; /* z = 0 cut (2,0,0)-(3,-2,0) */
        tt_case("edge-edge touching, skew", A, B8b, 1);
        const double B8c[3][3] = {{2, -1, 1}, {2, 1, -1}, {3, -2, 0}};
        double B8d[3][3];
        for (int i = 0; i < 3; ++i) B8d[i][0] = B8c[i][0], B8d[i][1] = B8c[i][1] - 0.25, B8d[i][2] = B8c[i][2];
        tt_case("edge-edge just apart", A, (const double(*)[3])B8d, 0);
        const double B9[3][3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
        tt_case("identical", A, B9, 1);
        const double B10[3][3] = {{0, 0, 1}, {4, 0, 1}, {0, 4, 1}};
        tt_case("disjoint parallel", A, B10, 0);
        const double B11[3][3] = {{1, 1, -1}, {1, 1, 1}, {1, 1, 3}}; /* segment crossing A */
        tt_case("degenerate segment crossing", A, B11, 1);
        const double B12[3][3] = {{3, 3, -1}, {3, 3, 1}, {3, 3, 1}}; /* segment missing A (x+y=6>4) */
        tt_case("degenerate segment missing", A, B12, 0);
        const double B13[3][3] = {{1, 1, 0}, {1, 1, 0}, {1, 1, 0}}; /* point inside A */
        tt_case("point in triangle", A, B13, 1);
        const double B14[3][3] = {{-1, 2, 0}, {5, 2, 0}, {2, 2, 0}}; /* coplanar segment across */
        tt_case("coplanar segment across", A, B14, 1);
        const double S1[3][3] = {{0, 0, 0}, {2, 2, 0}, {4, 4, 0}};
        const double S2[3][3] = {{0, 4, 0}, {4, 0, 0}, {2, 2, 0}};
        tt_case("two segments crossing", S1, S2, 1);
        const double S3[3][3] = {{0, 4, 1}, {4, 0, 1}, {2, 2, 1}};
        tt_case("two segments skew", S1, S3, 0);
        const double S4[3][3] = {{5, 5, 0}, {6, 6, 0}, {5, 5, 0}};
        tt_case("collinear segments apart", S1, S4, 0);
        const double S5[3][3] = {{4, 4, 0}, {6, 6, 0}, {5, 5, 0}};
        tt_case("collinear segments touching", S1, S5, 1);
    }

    /* grid: exact, all three must agree with the oracle */
    long pos = 0, bad = 0, asym = 0;
    for (long it = 0; it < n; ++it) {
        double a[3][3], b[3][3];
        gen_tritri_grid(a, b);
        int f, r;
        if (!tt_both((const double(*)[3])a, (const double(*)[3])b, &f, &r)) ++asym;
        i64 ai[3][3], bi[3][3];
        to_i64((const double(*)[3])a, 3, ai);
        to_i64((const double(*)[3])b, 3, bi);
        const int truth = exact_meet((const i64(*)[3])ai, 3, (const i64(*)[3])bi, 3);
        pos += truth;
        if (f != truth || r != truth) {
            ++bad;
            if (bad <= 5)
                fprintf(stderr,
                        "tritri grid: truth %d fast %d ref %d: A (%g %g %g)(%g %g %g)(%g %g %g) B (%g %g %g)(%g %g "
                        "%g)(%g %g %g)\n",
                        truth, f, r, a[0][0], a[0][1], a[0][2], a[1][0], a[1][1], a[1][2], a[2][0], a[2][1], a[2][2],
                        b[0][0], b[0][1], b[0][2], b[1][0], b[1][1], b[1][2], b[2][0], b[2][1], b[2][2]);
        }
    }
    printf("tritri grid:  %ld pairs (%ld meet): %ld wrong against the exact oracle, %ld permutation asymmetries\n", n,
           pos, bad, asym);
    CHECK(bad == 0 && asym == 0, "tritri grid: %ld wrong, %ld asymmetric", bad, asym);

    /* sheared grid: x -> S x + o with an integer matrix S of entries ~2^26
     * (det != 0) keeps every coordinate exact in double and every answer
     * unchanged (intersection is affine-invariant), but the determinants are
     * no longer exact in double: this drives the exact-expansion fallback of
     * the orientation predicates with non-zero rounding terms. */
    static const double S[3][3] = {{67108865.0, 3, -7}, {5, 33554429.0, 11}, {-2, 9, 16777221.0}};
    static const double o[3] = {0.5, -0.25, 0.125};
    long sbad = 0, spos = 0;
    const long ns = n / 2;
    for (long it = 0; it < ns; ++it) {
        double a[3][3], b[3][3], sa[3][3], sb[3][3];
        gen_tritri_grid(a, b);
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) {
                sa[i][k] = o[k] + S[k][0] * a[i][0] + S[k][1] * a[i][1] + S[k][2] * a[i][2];
                sb[i][k] = o[k] + S[k][0] * b[i][0] + S[k][1] * b[i][1] + S[k][2] * b[i][2];
            }
        i64 ai[3][3], bi[3][3];
        to_i64((const double(*)[3])a, 3, ai);
        to_i64((const double(*)[3])b, 3, bi);
        const int truth = exact_meet((const i64(*)[3])ai, 3, (const i64(*)[3])bi, 3);
        const int f = ck_tritri(sa[0], sa[1], sa[2], sb[0], sb[1], sb[2]);
        const int f2 = ck_tritri(sb[2], sb[0], sb[1], sa[1], sa[0], sa[2]);
        spos += truth;
        if (f != truth || f2 != truth) ++sbad;
    }
    printf("tritri sheared grid: %ld pairs (%ld meet; coordinates up to 2^29, determinants not exact in double): "
           "%ld wrong against the exact oracle\n",
           ns, spos, sbad);
    CHECK(sbad == 0, "tritri sheared grid: %ld wrong", sbad);

    /* floats */
    const long nf = n / 2;
    long fdis = 0, fpos = 0, fbad = 0, fdis_mode[4] = {0}, n_mode[4] = {0};
    double worst = 0;
    for (long it = 0; it < nf; ++it) {
        double a[3][3], b[3][3];
        const double scale = pow(10.0, rng_range(-3, 2)), off = rng_range(-50, 50);
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) a[i][k] = off + scale * rng_range(-1, 1), b[i][k] = off + scale * rng_range(-1, 1);
        const int mode = rng_int(0, 3);
        if (mode == 1) { /* B's vertex on A's plane (rounded) */
            const double s = rng_range(-0.5, 1.5), t = rng_range(-0.5, 1.5);
            for (int k = 0; k < 3; ++k) b[0][k] = a[0][k] + s * (a[1][k] - a[0][k]) + t * (a[2][k] - a[0][k]);
        } else if (mode == 2) { /* nearly coplanar */
            for (int i = 0; i < 3; ++i) {
                const double s = rng_range(-0.5, 1.5), t = rng_range(-0.5, 1.5);
                for (int k = 0; k < 3; ++k) b[i][k] = a[0][k] + s * (a[1][k] - a[0][k]) + t * (a[2][k] - a[0][k]);
            }
        } else if (mode == 3) { /* shared vertex */
            memcpy(b[0], a[rng_int(0, 2)], sizeof a[0]);
        }
        int f, r;
        tt_both((const double(*)[3])a, (const double(*)[3])b, &f, &r);
        fpos += r;
        ++n_mode[mode];
        if (f != r) {
            ++fdis;
            ++fdis_mode[mode];
            const double s = signed_sat((const double(*)[3])a, 3, (const double(*)[3])b, 3);
            double mag = 0;
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k) mag = fmax(mag, fmax(fabs(a[i][k]), fabs(b[i][k])));
            const double rel = fabs(s) / mag;
            worst = fmax(worst, rel);
            if (!(rel <= 1e-12)) {
                ++fbad;
                if (fbad <= 5) fprintf(stderr, "tritri float disagreement not near touching: rel %g\n", rel);
            }
        }
    }
    printf("tritri float: %ld pairs (%ld meet): %ld fast/ref disagreements, all within %.2e (relative) of touching\n"
           "              by construction: random %ld/%ld, B vertex on A's plane %ld/%ld, B in A's plane (rounded) "
           "%ld/%ld, shared vertex %ld/%ld\n",
           nf, fpos, fdis, worst, fdis_mode[0], n_mode[0], fdis_mode[1], n_mode[1], fdis_mode[2], n_mode[2],
           fdis_mode[3], n_mode[3]);
    CHECK(fbad == 0, "tritri float: %ld disagreements not near touching", fbad);
}

/* ============================================================================
 * convex hulls of point sets
 * ========================================================================= */

/* n integer points in one of several shapes */
static void gen_set_grid(double (*p)[3], int n, int G)
{
    const int mode = rng_int(0, 7);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) p[i][k] = rng_int(-G, G);
    if (mode == 1) { /* collinear */
        for (int i = 2; i < n; ++i) {
            const int t = rng_int(-1, 2);
            for (int k = 0; k < 3; ++k) p[i][k] = p[0][k] + t * (p[1][k] - p[0][k]);
        }
    } else if (mode == 2) { /* in a coordinate plane */
        const int k = rng_int(0, 2), c = rng_int(-1, 1);
        for (int i = 0; i < n; ++i) p[i][k] = c;
    } else if (mode == 3 && n >= 3) { /* in a general plane */
        for (int i = 3; i < n; ++i) {
            const int s = rng_int(-1, 1), t = rng_int(-1, 1);
            for (int k = 0; k < 3; ++k) p[i][k] = p[0][k] + s * (p[1][k] - p[0][k]) + t * (p[2][k] - p[0][k]);
        }
    } else if (mode == 4) { /* a single point */
        for (int i = 1; i < n; ++i) memcpy(p[i], p[0], sizeof p[0]);
    } else if (mode >= 5 && n % 2 == 0) { /* a moving primitive: second half = first half + d */
        const int h = n / 2;
        const int d[3] = {rng_int(-2, 2), rng_int(-2, 2), rng_int(-2, 2)};
        for (int i = 0; i < h; ++i)
            for (int k = 0; k < 3; ++k) p[h + i][k] = p[i][k] + d[k];
    }
}

static const int set_sizes[] = {1, 2, 3, 4, 6, 6, 6, 8};

static void test_hulls_grid(long n)
{
    long pos = 0, refbad = 0, fastunsound = 0, fastmiss = 0, sep = 0, shared = 0, touch = 0;
    long bool_wrong = 0, bool_paths = 0, bool_meet = 0, bool_apart = 0;
    const long inc0 = oracle_incomplete;
    for (long it = 0; it < n; ++it) {
        const int np = set_sizes[rng_int(0, 7)], nq = set_sizes[rng_int(0, 7)];
        double p[8][3], q[8][3];
        const int mode = rng_int(0, 5);
        int G = rng_int(0, 1) ? 2 : 4;
        gen_set_grid(p, np, G);
        gen_set_grid(q, nq, G);
        if (mode == 1) { /* a shared point: k * (convex combination of P) placed in Q, P scaled by k */
            const int k = rng_int(2, 4);
            int w[8] = {0};
            for (int j = 0; j < k; ++j) w[rng_int(0, np - 1)]++;
            double x[3] = {0, 0, 0};
            for (int i = 0; i < np; ++i)
                for (int c = 0; c < 3; ++c) x[c] += w[i] * p[i][c], p[i][c] *= k;
            for (int i = 0; i < nq; ++i)
                for (int c = 0; c < 3; ++c) q[i][c] = q[i][c] * k / 2;
            memcpy(q[rng_int(0, nq - 1)], x, sizeof x);
            ++shared;
        } else if (mode == 2 || mode == 3) { /* slide Q so that it touches P's support plane along d */
            int d[3] = {rng_int(-1, 1), rng_int(-1, 1), rng_int(-1, 1)};
            if (mode == 2) d[0] = 1, d[1] = 0, d[2] = 0;
            if (d[0] == 0 && d[1] == 0 && d[2] == 0) d[2] = 1;
            double hp = -INFINITY, lq = INFINITY;
            for (int i = 0; i < np; ++i) hp = fmax(hp, d[0] * p[i][0] + d[1] * p[i][1] + d[2] * p[i][2]);
            for (int i = 0; i < nq; ++i) lq = fmin(lq, d[0] * q[i][0] + d[1] * q[i][1] + d[2] * q[i][2]);
            /* translate Q by t (integer) with d.t = hp - lq + extra */
            const double delta = hp - lq + rng_int(-1, 1) * (rng_int(0, 2) == 0);
            int kk = 0;
            while (d[kk] == 0) ++kk;
            for (int i = 0; i < nq; ++i) q[i][kk] += delta / d[kk];
            ++touch;
        }
        i64 pi[8][3], qi[8][3];
        to_i64((const double(*)[3])p, np, pi);
        to_i64((const double(*)[3])q, nq, qi);
        const int truth = exact_meet((const i64(*)[3])pi, np, (const i64(*)[3])qi, nq);
        const int r = ck_hulls_meet_ref((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
        const int f = ck_hulls_meet((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
        pos += truth;
        sep += !truth;
        if (r != truth) {
            ++refbad;
            if (refbad <= 5) {
                fprintf(stderr, "hull ref wrong (truth %d ref %d) np %d nq %d\n P:", truth, r, np, nq);
                for (int i = 0; i < np; ++i) fprintf(stderr, " (%g %g %g)", p[i][0], p[i][1], p[i][2]);
                fprintf(stderr, "\n Q:");
                for (int i = 0; i < nq; ++i) fprintf(stderr, " (%g %g %g)", q[i][0], q[i][1], q[i][2]);
                fprintf(stderr, "\n");
            }
        }
        if (f == 0 && truth == 1) ++fastunsound;
        if (f == 1 && truth == 0) ++fastmiss;
        { /* the boolean GJK alone (hull_bool.c), on the lists translated to p[0] as ck_hulls_meet does */
            double P[8][3], Q[8][3], M = 0;
            for (int i = 0; i < np; ++i)
                for (int k = 0; k < 3; ++k) P[i][k] = p[i][k] - p[0][k], M = fmax(M, fabs(P[i][k]));
            for (int i = 0; i < nq; ++i)
                for (int k = 0; k < 3; ++k) Q[i][k] = q[i][k] - p[0][k], M = fmax(M, fabs(Q[i][k]));
            int l1, l2;
            const int b = ck_hulls_bool((const double(*)[3])P, np, (const double(*)[3])Q, nq, M, 0.0, &l1);
            const int bp = ck_hulls_bool_plain((const double(*)[3])P, np, (const double(*)[3])Q, nq, M, 0.0, &l2);
            bool_wrong += b >= 0 && b != truth, bool_paths += b != bp || l1 != l2;
            bool_meet += b == 1, bool_apart += b == 0;
        }
        if (mode == 1) CHECK(truth == 1 && r == 1 && f == 1, "shared point: truth %d ref %d fast %d", truth, r, f);
    }
    printf("hulls grid:   %ld pairs of 1-8 points (%ld meet, %ld apart; %ld built with a shared point, %ld slid to "
           "touch): ref wrong %ld; fast said apart for meeting sets %ld; fast said meet for apart sets %ld "
           "(%.3f%% of apart)\n",
           n, pos, sep, shared, touch, refbad, fastunsound, fastmiss, sep ? 100.0 * fastmiss / sep : 0.0);
    printf("hulls grid, boolean GJK: decided %ld of %ld meeting pairs and %ld of %ld apart ones; %ld wrong, "
           "%ld differ between the AVX2 and portable paths\n", bool_meet, pos, bool_apart, sep, bool_wrong, bool_paths);
    CHECK(refbad == 0, "hull ref: %ld wrong on exact data", refbad);
    CHECK(fastunsound == 0, "hull fast: %ld unsound answers", fastunsound);
    CHECK(fastmiss == 0, "hull fast: said meet for %ld apart pairs of exact data", fastmiss);
    CHECK(bool_wrong == 0, "boolean GJK: %ld answers differ from the exact truth", bool_wrong);
    CHECK(bool_paths == 0, "boolean GJK: AVX2 and portable paths differ on %ld pairs", bool_paths);
    /* (half the meeting grid pairs only touch, at a point or along a face: left
     * to the distance GJK by design; the rest overlap and must be decided) */
    CHECK(bool_meet > pos / 4, "boolean GJK: decided only %ld of %ld meeting pairs", bool_meet, pos);
    CHECK(oracle_incomplete == inc0, "oracle incomplete %ld times", oracle_incomplete - inc0);
}

static void random_float_set(double (*p)[3], int n, const double c[3], double s)
{
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) p[i][k] = c[k] + s * rng_range(-1, 1);
    if (n == 6 && rng_int(0, 1)) /* moving triangle: small motion */
        for (int i = 3; i < 6; ++i)
            for (int k = 0; k < 3; ++k) p[i][k] = p[i - 3][k] + 0.2 * s * rng_range(-1, 1);
}

static void test_hulls_float(long n)
{
    long big = 0, big_fast0 = 0, big_ref0 = 0, shared_bad = 0, tiny = 0, tiny_fast0 = 0, comb = 0, comb_apart = 0;
    for (long it = 0; it < n; ++it) {
        const int np = set_sizes[rng_int(1, 7)], nq = set_sizes[rng_int(1, 7)];
        double p[8][3], q[8][3], c[3];
        const double s = pow(10.0, rng_range(-3, 1));
        for (int k = 0; k < 3; ++k) c[k] = rng_range(-10, 10);
        random_float_set(p, np, c, s);
        random_float_set(q, nq, c, s);
        if (it % 8 == 0) { /* a point of P in Q: must be "meet" */
            memcpy(q[rng_int(0, nq - 1)], p[rng_int(0, np - 1)], sizeof p[0]);
            const int f = ck_hulls_meet((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
            const int r = ck_hulls_meet_ref((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
            if (!(f == 1 && r == 1)) ++shared_bad;
            continue;
        }
        if (it % 8 == 4) { /* a convex combination of P in Q, rounded: "apart" only if really apart */
            double w[8], ws = 0, x[3] = {0, 0, 0};
            for (int i = 0; i < np; ++i) ws += (w[i] = rng_unit());
            for (int i = 0; i < np; ++i)
                for (int k = 0; k < 3; ++k) x[k] += w[i] / ws * p[i][k];
            memcpy(q[rng_int(0, nq - 1)], x, sizeof x);
            const int f = ck_hulls_meet((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
            const int r = ck_hulls_meet_ref((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
            ++comb;
            if (!f || !r) {
                ++comb_apart;
                const double sd = signed_sat((const double(*)[3])p, np, (const double(*)[3])q, nq);
                if (!(sd > 0)) ++shared_bad;
            }
            continue;
        }
        /* separate along a random unit direction by a relative gap g */
        double d[3], dn = 0;
        do {
            for (int k = 0; k < 3; ++k) d[k] = rng_range(-1, 1);
            dn = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        } while (dn < 0.1 || dn > 1);
        for (int k = 0; k < 3; ++k) d[k] /= dn;
        double hp = -INFINITY, lq = INFINITY;
        for (int i = 0; i < np; ++i) hp = fmax(hp, d[0] * p[i][0] + d[1] * p[i][1] + d[2] * p[i][2]);
        for (int i = 0; i < nq; ++i) lq = fmin(lq, d[0] * q[i][0] + d[1] * q[i][1] + d[2] * q[i][2]);
        const double g = pow(10.0, rng_range(-9, 0));
        const double shift = hp - lq + g * s;
        for (int i = 0; i < nq; ++i)
            for (int k = 0; k < 3; ++k) q[i][k] += shift * d[k];
        const int f = ck_hulls_meet((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
        if (g > 1e-6) {
            const int r = ck_hulls_meet_ref((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
            ++big;
            big_fast0 += f == 0;
            big_ref0 += r == 0;
        } else {
            ++tiny;
            tiny_fast0 += f == 0;
        }
    }
    printf("hulls float:  %ld pairs apart by a gap > 1e-6 (relative): fast certified %.3f%%, ref %.3f%%; "
           "%ld pairs with gap 1e-9..1e-6: fast certified %.2f%%\n"
           "              %ld pairs with a rounded convex combination of P in Q: %ld reported apart (by fast or "
           "ref; all really apart, signed distance > 0 in long double); %ld wrong answers on shared points\n",
           big, 100.0 * big_fast0 / (double)(big ? big : 1), 100.0 * big_ref0 / (double)(big ? big : 1), tiny,
           100.0 * tiny_fast0 / (double)(tiny ? tiny : 1), comb, comb_apart, shared_bad);
    CHECK(big_fast0 >= 0.99 * (double)big, "fast certified only %ld of %ld", big_fast0, big);
    CHECK(shared_bad == 0, "%ld shared-point float pairs reported apart", shared_bad);

    /* tolerance: unit cubes' corners 1 apart along x */
    double a[8][3], b[8][3];
    const double lo0[3] = {0, 0, 0}, hi0[3] = {1, 1, 1}, lo1[3] = {2, 0.5, 0.5}, hi1[3] = {3, 1.5, 1.5};
    box_corners(lo0, hi0, a);
    box_corners(lo1, hi1, b);
    CHECK(ck_hulls_meet((const double(*)[3])a, 8, (const double(*)[3])b, 8, 0.0) == 0, "cubes apart");
    CHECK(ck_hulls_meet((const double(*)[3])a, 8, (const double(*)[3])b, 8, 0.99) == 0, "cubes apart, tol .99");
    CHECK(ck_hulls_meet((const double(*)[3])a, 8, (const double(*)[3])b, 8, 1.0) == 1, "cubes at distance = tol");
    CHECK(ck_hulls_meet_ref((const double(*)[3])a, 8, (const double(*)[3])b, 8, 1.0) == 1, "cubes, ref, tol 1");
    CHECK(ck_hulls_meet_ref((const double(*)[3])a, 8, (const double(*)[3])b, 8, 0.99) == 0, "cubes, ref, tol .99");
    CHECK(ck_hull_box((const double(*)[3])a, 8, lo1, hi1, 0.99) == 0, "hull box tol .99");
    CHECK(ck_hull_box((const double(*)[3])a, 8, lo1, hi1, 1.0) == 1, "hull box tol 1");
    /* a diagonal gap: distance sqrt(2)/2 between the edge x+y=2 region and a point */
    const double tri[3][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, pt[1][3] = {{1.5, 1.5, 0}};
    CHECK(ck_hulls_meet(tri, 3, pt, 1, 0.70) == 0, "diagonal gap, tol .70");
    CHECK(ck_hulls_meet(tri, 3, pt, 1, 0.71) == 1, "diagonal gap, tol .71");
    /* bad input is answered conservatively */
    const double nanp[1][3] = {{NAN, 1.5, 0}};
    CHECK(ck_hulls_meet(nanp, 1, pt, 1, 0.0) == 1 && ck_hulls_meet_ref(nanp, 1, pt, 1, 0.0) == 1, "NaN");
    CHECK(ck_hulls_meet(tri, 0, pt, 1, 0.0) == 1 && ck_hulls_meet(tri, 9, pt, 1, 0.0) == 1, "bad counts");
}

/* The distance from the origin to triangle abc (Ericson, Real-Time Collision
 * Detection 5.1.5, in long double; a degenerate triangle's regions still
 * give a point of it). */
static long double origin_tri_dist(const long double a[3], const long double b[3], const long double c[3])
{
    long double ab[3], ac[3], ap[3], x[3];
    for (int k = 0; k < 3; ++k) ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = -a[k];
#define DOT3(u, v) ((u)[0] * (v)[0] + (u)[1] * (v)[1] + (u)[2] * (v)[2])
    const long double d1 = DOT3(ab, ap), d2 = DOT3(ac, ap);
    long double bp[3], cp[3];
    for (int k = 0; k < 3; ++k) bp[k] = -b[k], cp[k] = -c[k];
    const long double d3 = DOT3(ab, bp), d4 = DOT3(ac, bp), d5 = DOT3(ab, cp), d6 = DOT3(ac, cp);
    const long double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    if (d1 <= 0 && d2 <= 0) {
        for (int k = 0; k < 3; ++k) x[k] = a[k];
    } else if (d3 >= 0 && d4 <= d3) {
        for (int k = 0; k < 3; ++k) x[k] = b[k];
    } else if (vc <= 0 && d1 >= 0 && d3 <= 0 && d1 - d3 > 0) {
        const long double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; ++k) x[k] = a[k] + v * ab[k];
    } else if (d6 >= 0 && d5 <= d6) {
        for (int k = 0; k < 3; ++k) x[k] = c[k];
    } else if (vb <= 0 && d2 >= 0 && d6 <= 0 && d2 - d6 > 0) {
        const long double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; ++k) x[k] = a[k] + w * ac[k];
    } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0 && (d4 - d3) + (d5 - d6) > 0) {
        const long double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; ++k) x[k] = b[k] + w * (c[k] - b[k]);
    } else {
        const long double den = va + vb + vc;
        if (!(den > 0)) return INFINITY; /* degenerate: its edges are other triples' */
        const long double v = vb / den, w = vc / den;
        for (int k = 0; k < 3; ++k) x[k] = a[k] + v * ab[k] + w * ac[k];
    }
    return sqrtl(DOT3(x, x));
#undef DOT3
}

/* The distance between conv(p) and conv(q) (6 points each) by brute force:
 * 0 when the hulls meet (the complete reference at tol 0), else the least
 * distance from the origin to a triangle of the 36 points p_i - q_j: the
 * point of D = conv{p_i - q_j} nearest the origin lies on a face of D, in
 * the hull of three of its points. */
static long double hulls_dist_brute(const double (*p)[3], const double (*q)[3])
{
    if (ck_hulls_meet_ref(p, 6, q, 6, 0.0)) return 0;
    long double w[36][3], best = INFINITY;
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
            for (int k = 0; k < 3; ++k) w[6 * i + j][k] = (long double)p[i][k] - (long double)q[j][k];
    for (int a = 0; a < 36; ++a)
        for (int b = a + 1; b < 36; ++b)
            for (int c = b + 1; c < 36; ++c) {
                const long double t = origin_tri_dist(w[a], w[b], w[c]);
                best = t < best ? t : best;
            }
    return best;
}

/* The boolean GJK with a tolerance (hull_bool.c: it walks D + B(tol)):
 * every "meet" must be a pair within tol of each other and every "apart"
 * one farther, by the brute-force distance; swept faces (six points) set
 * apart by random gaps, tol a multiple of their distance near 1. */
/* Moves the six points q along a random direction d until conv(q) lies
 * beyond conv(p) along d by a gap of 10^U(e, 0) s. */
static void push_apart(const double (*p)[3], double (*q)[3], double s, double e)
{
    double d[3], dn;
    do {
        for (int k = 0; k < 3; ++k) d[k] = rng_range(-1, 1);
        dn = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    } while (dn < 0.1 || dn > 1);
    double hp = -INFINITY, lq = INFINITY;
    for (int i = 0; i < 6; ++i) hp = fmax(hp, (d[0] * p[i][0] + d[1] * p[i][1] + d[2] * p[i][2]) / dn);
    for (int i = 0; i < 6; ++i) lq = fmin(lq, (d[0] * q[i][0] + d[1] * q[i][1] + d[2] * q[i][2]) / dn);
    const double shift = hp - lq + pow(10.0, rng_range(e, 0)) * s;
    for (int i = 0; i < 6; ++i)
        for (int k = 0; k < 3; ++k) q[i][k] += shift * d[k] / dn;
}

static void test_hulls_bool_tol(long n)
{
    static const double factor[] = {0.3, 0.9, 0.999, 1.001, 1.1, 3.0};
    long wrong = 0, paths = 0, within = 0, apart = 0, meet = 0, unsound = 0, far = 0, far_cert = 0, asked = 0;
    for (long it = 0; it < n; ++it) {
        double p[6][3], q[6][3], c[3];
        const double s = pow(10.0, rng_range(-2, 1));
        for (int k = 0; k < 3; ++k) c[k] = rng_range(-10, 10);
        random_float_set(p, 6, c, s);
        random_float_set(q, 6, c, s);
        if (it % 4) { /* three in four set apart along a random direction, by 1e-4 s to s */
            push_apart((const double(*)[3])p, q, s, -4);
            for (int i = 0; i < 6; ++i)
                for (int k = 0; k < 3; ++k) q[i][k] = (float)q[i][k];
        }
        const long double dist = hulls_dist_brute((const double(*)[3])p, (const double(*)[3])q);
        double P[6][3], Q[6][3], M = 0;
        for (int i = 0; i < 6; ++i)
            for (int k = 0; k < 3; ++k) P[i][k] = p[i][k] - p[0][k], M = fmax(M, fabs(P[i][k]));
        for (int i = 0; i < 6; ++i)
            for (int k = 0; k < 3; ++k) Q[i][k] = q[i][k] - p[0][k], M = fmax(M, fabs(Q[i][k]));
        const long double slack = 1e-12L * M; /* the brute force's own rounding, far above */
        for (int f = 0; f < 6; ++f) {
            const double tol = dist > 0 ? (double)(dist * factor[f]) : s * pow(10.0, rng_range(-4, 0));
            int l1, l2;
            const int b = ck_hulls_bool((const double(*)[3])P, 6, (const double(*)[3])Q, 6, M, tol, &l1);
            const int bp = ck_hulls_bool_plain((const double(*)[3])P, 6, (const double(*)[3])Q, 6, M, tol, &l2);
            ++asked;
            paths += b != bp || l1 != l2;
            if (b == 1) {
                ++meet, within += dist > 0;
                if (!(dist <= tol + slack)) {
                    if (++wrong <= 5) fprintf(stderr, "bool tol: said meet, distance %Lg > tol %g\n", dist, tol);
                }
            } else if (b == 0) {
                ++apart;
                if (!(dist >= tol - slack)) {
                    if (++wrong <= 5) fprintf(stderr, "bool tol: said apart, distance %Lg < tol %g\n", dist, tol);
                }
            }
            const int m = ck_hulls_meet((const double(*)[3])p, 6, (const double(*)[3])q, 6, tol);
            if (dist < tol - slack && m == 0) ++unsound;
            if (dist > tol * (1 + 1e-6) + slack) ++far, far_cert += m == 0;
        }
    }
    printf("hulls, boolean GJK within tol: %ld questions on %ld pairs of swept faces: %ld meet (%ld of them apart but "
           "within tol), %ld apart, %ld wrong by the brute-force distance, %ld differ between the AVX2 and portable "
           "paths; ck_hulls_meet: %ld unsound, certified %ld of %ld pairs farther than tol\n",
           asked, n, meet, within, apart, wrong, paths, unsound, far_cert, far);
    CHECK(wrong == 0, "boolean GJK with tol: %ld answers contradict the distance", wrong);
    CHECK(paths == 0, "boolean GJK with tol: AVX2 and portable paths differ on %ld questions", paths);
    CHECK(unsound == 0, "ck_hulls_meet with tol: %ld pairs within tol called apart", unsound);
    /* the pairs apart but within tol are decided here, not left to the distance GJK */
    CHECK(within > asked / 10, "boolean GJK with tol: only %ld of %ld questions met within tol", within, asked);
    CHECK(far_cert >= 0.99 * (double)far, "ck_hulls_meet with tol: certified only %ld of %ld", far_cert, far);
}

/* ck_hulls_meet_rows (S5's rows of 18 doubles) against ck_hulls_meet on the
 * same points, AVX2 and portable paths: swept faces near each
 * other, tolerances 0 to about their distance, and rows with a NaN or an
 * infinity, and a negative or NaN tolerance. */
static void test_hulls_rows(long n)
{
    long differ = 0, meet = 0, odd = 0, differ2 = 0;
    double prev_a[18] = {0}, prev_b[18] = {0};
    double prev_tol = 0;
    for (long it = 0; it < n; ++it) {
        double p[6][3], q[6][3], c[3];
        const double s = pow(10.0, rng_range(-3, 2));
        for (int k = 0; k < 3; ++k) c[k] = rng_range(-100, 100);
        random_float_set(p, 6, c, s);
        for (int k = 0; k < 3; ++k) c[k] += s * rng_range(-1.2, 1.2);
        random_float_set(q, 6, c, s);
        double ra[18], rb[18]; /* rows of doubles (here float values) */
        for (int i = 0; i < 18; ++i) ra[i] = (float)p[i / 3][i % 3], rb[i] = (float)q[i / 3][i % 3];
        double tol = rng_int(0, 2) ? s * pow(10.0, rng_range(-6, 0)) : 0.0;
        if (it % 64 == 1) { /* bad values: a NaN or an infinity in a row, or a bad tolerance */
            const double bad[2] = {NAN, INFINITY};
            (rng_int(0, 1) ? ra : rb)[rng_int(0, 17)] = bad[rng_int(0, 1)] * (rng_int(0, 1) ? 1 : -1);
            ++odd;
        } else if (it % 64 == 2) {
            tol = rng_int(0, 1) ? -1.0 : NAN;
            ++odd;
        }
        double dp[6][3], dq[6][3];
        for (int i = 0; i < 18; ++i) dp[i / 3][i % 3] = ra[i], dq[i / 3][i % 3] = rb[i];
        const int want = ck_hulls_meet((const double(*)[3])dp, 6, (const double(*)[3])dq, 6, tol);
        const int got = ck_hulls_meet_rows(ra, rb, tol), plain = ck_hulls_meet_rows_plain(ra, rb, tol);
        differ += got != want || plain != want;
        meet += want;
        { /* two pairs at once (this one and the one before): the two calls' answers */
            const double *a2[2] = {prev_a, ra}, *b2[2] = {prev_b, rb};
            const double t2[2] = {prev_tol, tol};
            int m2[2];
            ck_hulls_meet_rows2(a2, b2, t2, m2);
            differ2 += m2[0] != ck_hulls_meet_rows(prev_a, prev_b, prev_tol) || m2[1] != want;
            memcpy(prev_a, ra, sizeof ra), memcpy(prev_b, rb, sizeof rb), prev_tol = tol;
        }
    }
    printf("hulls from rows: %ld pairs (%ld meet, %ld with bad values): %ld answers differ from ck_hulls_meet's, "
           "%ld two at a time\n", n, meet, odd, differ, differ2);
    CHECK(differ == 0, "ck_hulls_meet_rows: %ld answers differ from ck_hulls_meet", differ);
    CHECK(differ2 == 0, "ck_hulls_meet_rows2: %ld answers differ from two calls", differ2);
    CHECK(meet > n / 10 && meet < n - n / 10, "hulls from rows: %ld of %ld meet, want a mix", meet, n);
}

/* Lane l's answer, certified: 1, 0, or -1 (not decided: the one-pair path). */
static int gjk8_answer(const ck_gjk8 *g, int l, const float *ra, const float *rb, double tol)
{
    if (g->st[l] == G8_MEET) return 1;
    if (g->st[l] == G8_APART) return 0;
    double da[18], db[18]; /* the rows in double (exactly) */
    for (int i = 0; i < 18; ++i) da[i] = ra[i], db[i] = rb[i];
    return ck_hulls_gjk_check_rows(da, db, tol, g, l);
}

/* Lane l of the outputs takes lane (l + 3) % 8 of the inputs: points,
 * tolerances and walk. */
static void carry_permute(float p8[6][3][8], float q8[6][3][8], const float tolf[8], const ck_g8carry *k,
                          float pp[6][3][8], float qq[6][3][8], float tp[8], ck_g8carry *kk)
{
    for (int l = 0; l < 8; ++l) {
        const int m = (l + 3) % 8;
        for (int i = 0; i < 6; ++i)
            for (int c = 0; c < 3; ++c) pp[i][c][l] = p8[i][c][m], qq[i][c][l] = q8[i][c][m];
        tp[l] = tolf[m];
        for (int j = 0; j < 4; ++j) {
            for (int c = 0; c < 3; ++c) kk->s[j][c][l] = k->s[j][c][m];
            kk->ix[j][l] = k->ix[j][m];
        }
        for (int c = 0; c < 3; ++c) kk->d[c][l] = k->d[c][m];
        kk->n[l] = k->n[m];
    }
}

/* The boolean GJK in float lanes (ck_hulls_gjk_f32x8, hullg.c), walking the
 * hulls and the hulls grown by tol, and its certificates in float and in
 * double (ck_hulls_gjk_check_rows): every certified answer is
 * ck_hulls_meet's, on swept faces that overlap, that lie apart by gaps from
 * 1e-9 to 1 of their size, that face each other across a plane 1e-12 to
 * 1e-6 of their size apart (below float's rounding of the points), that
 * touch on a grid, and rows with a NaN or an infinity; the AVX2 and
 * portable paths steer alike; most meeting pairs are certified, and most of
 * the pairs with a tolerance the first walk leaves (else the lanes would
 * only cost). */
static void test_hulls_gjk8(long n)
{
    long wrong = 0, paths = 0, asked = 0, meet = 0, meet_cert = 0, apart_cert = 0, apart = 0, odd = 0;
    long fl_meet = 0, fl_apart = 0, left = 0, ball_cert = 0, split = 0, carried_cert = 0, carried = 0;
    for (long b = 0; b < n / 8; ++b) {
        float ra[8][18], rb[8][18], p8[6][3][8], q8[6][3][8];
        double tol[8];
        int grid[8];
        for (int l = 0; l < 8; ++l) {
            double p[6][3], q[6][3], c[3];
            const double s = pow(10.0, rng_range(-3, 2));
            const int kind = rng_int(0, 4);
            grid[l] = kind >= 3;
            for (int k = 0; k < 3; ++k) c[k] = rng_range(-100, 100);
            if (kind == 4) { /* face to face across the plane z = c, 1e-12 s to 1e-6 s apart (below float's rounding) */
                const double gap = s * pow(10.0, rng_range(-12, -6));
                for (int i = 0; i < 6; ++i) {
                    for (int k = 0; k < 2; ++k)
                        p[i][k] = c[k] + s * rng_range(-1, 1), q[i][k] = c[k] + s * rng_range(-1, 1);
                    p[i][2] = i < 3 ? c[2] : c[2] - s * rng_range(0, 1);
                    q[i][2] = i < 3 ? c[2] + gap : c[2] + gap + s * rng_range(0, 1);
                }
            } else if (kind == 3) { /* a small grid: shared points, edges and faces */
                for (int i = 0; i < 6; ++i)
                    for (int k = 0; k < 3; ++k)
                        p[i][k] = c[k] + s * rng_int(0, 3) / 4, q[i][k] = c[k] + s * rng_int(0, 3) / 4;
            } else {
                random_float_set(p, 6, c, s);
                for (int k = 0; k < 3; ++k) c[k] += kind == 0 ? s * rng_range(-0.5, 0.5) : 0.0;
                random_float_set(q, 6, c, s);
            }
            if (kind == 1) push_apart((const double(*)[3])p, q, s, -9); /* apart by 1e-9 s to s */
            for (int i = 0; i < 18; ++i) ra[l][i] = (float)p[i / 3][i % 3], rb[l][i] = (float)q[i / 3][i % 3];
            tol[l] = rng_int(0, 2) ? 0.0 : s * pow(10.0, rng_range(-8, -1));
            if ((b * 8 + l) % 97 == 5) { /* a NaN or an infinity */
                const float bad[2] = {NAN, INFINITY};
                (rng_int(0, 1) ? ra[l] : rb[l])[rng_int(0, 17)] = bad[rng_int(0, 1)];
                ++odd;
            }
            for (int i = 0; i < 18; ++i) p8[i / 3][i % 3][l] = ra[l][i], q8[i / 3][i % 3][l] = rb[l][i];
        }
        ck_gjk8 g, gb;
        float tolf[8];
        for (int l = 0; l < 8; ++l) tolf[l] = ck_f32_up(tol[l]);
        ck_hulls_gjk_f32x8((const float(*)[3][8])p8, (const float(*)[3][8])q8, tolf, 0, &g);
        ck_hulls_gjk_f32x8((const float(*)[3][8])p8, (const float(*)[3][8])q8, tolf, 1, &gb);
        for (int isa = 0; isa < 2; ++isa) { /* the portable and AVX2 paths against the one taken */
            ck_gjk8 o, ob;
            ck_hulls_gjk_f32x8_isa(isa, (const float(*)[3][8])p8, (const float(*)[3][8])q8, tolf, 0, &o);
            ck_hulls_gjk_f32x8_isa(isa, (const float(*)[3][8])p8, (const float(*)[3][8])q8, tolf, 1, &ob);
            paths += memcmp(g.st, o.st, sizeof g.st) != 0 || memcmp(g.ix, o.ix, sizeof g.ix) != 0;
            paths += memcmp(gb.st, ob.st, sizeof gb.st) != 0 || memcmp(gb.ix, ob.ix, sizeof gb.ix) != 0 ||
                     memcmp(gb.o, ob.o, sizeof gb.o) != 0;
        }
        /* the walk stopped after K steps and carried on in another lane
         * (lane l takes lane (l + 3) % 8): step for step the same */
        ck_gjk8 gf, gk, gc;
        ck_g8carry kf, kk, kc;
        float pp[6][3][8], qq[6][3][8], tp[8];
        for (int K = 1; K <= 4; K += 3) {
            ck_hulls_gjk_f32x8_carry((const float(*)[3][8])p8, (const float(*)[3][8])q8, tolf, 0, NULL, K, 1, &gf,
                                     &kf);
            carry_permute(p8, q8, tolf, &kf, pp, qq, tp, &kk);
            ck_hulls_gjk_f32x8_carry((const float(*)[3][8])pp, (const float(*)[3][8])qq, tp, 0, &kk, G8_MAXIT - K, 0,
                                     &gk, NULL);
            for (int l = 0; l < 8; ++l) {
                const int m = (l + 3) % 8, more = gf.st[m] == G8_MORE;
                const int8_t st = more ? gk.st[l] : gf.st[m];
                int same = st == g.st[m];
                for (int k = 0; k < 4; ++k) same &= (more ? gk.ix[k][l] : gf.ix[k][m]) == g.ix[k][m];
                split += !same;
            }
        }
        /* the plain walk's ends carried on walking the grown hulls */
        ck_hulls_gjk_f32x8_carry((const float(*)[3][8])p8, (const float(*)[3][8])q8, tolf, 0, NULL, G8_MAXIT, 0, &gf,
                                 &kf);
        carry_permute(p8, q8, tolf, &kf, pp, qq, tp, &kc);
        ck_hulls_gjk_f32x8_carry((const float(*)[3][8])pp, (const float(*)[3][8])qq, tp, 1, &kc, G8_MAXIT, 0, &gc,
                                 NULL);
        for (int l = 0; l < 8; ++l) {
            double dp[6][3], dq[6][3];
            for (int i = 0; i < 18; ++i) dp[i / 3][i % 3] = ra[l][i], dq[i / 3][i % 3] = rb[l][i];
            const int want = ck_hulls_meet((const double(*)[3])dp, 6, (const double(*)[3])dq, 6, tol[l]);
            const int got = gjk8_answer(&g, l, ra[l], rb[l], tol[l]);
            const int lc = (l + 5) % 8; /* the lane that carried lane l on */
            const int gotc = gjk8_answer(&gc, lc, ra[l], rb[l], tol[l]);
            if (gotc >= 0 && gotc != want && ++wrong <= 5)
                fprintf(stderr, "gjk8 carried into the ball: certified %d, ck_hulls_meet says %d (tol %g)\n", gotc,
                        want, tol[l]);
            if (got < 0 && tol[l] > 0 && !grid[l]) ++carried, carried_cert += gotc >= 0;
            fl_meet += g.st[l] == G8_MEET, fl_apart += g.st[l] == G8_APART;
            /* walking the hulls grown by tol: what the first walk left (within tol, mostly) */
            const int gotb = gjk8_answer(&gb, l, ra[l], rb[l], tol[l]);
            if (gotb >= 0 && gotb != want && ++wrong <= 5)
                fprintf(stderr, "gjk8 ball: certified %d, ck_hulls_meet says %d (tol %g)\n", gotb, want, tol[l]);
            if (got < 0 && tol[l] > 0 && !grid[l]) ++left, ball_cert += gotb >= 0;
            ++asked, meet += want, apart += !want;
            if (got >= 0 && got != want && ++wrong <= 5)
                fprintf(stderr, "gjk8: certified %d, ck_hulls_meet says %d (tol %g)\n", got, want, tol[l]);
            meet_cert += want && got == 1, apart_cert += !want && got == 0;
        }
    }
    printf("hulls, boolean GJK in float lanes: %ld pairs (%ld meet, %ld with bad values): certified %ld meeting "
           "(%ld in float) and %ld apart; with tol, walking the grown hulls, %ld of the %ld pairs left (off the grid); "
           "%ld wrong, "
           "%ld batches steered differently by the AVX-512, AVX2 and portable paths; %ld walks ended otherwise "
           "when carried on; walking on into the grown hulls, %ld of the %ld pairs left certified\n",
           asked, meet, odd, meet_cert, fl_meet, apart_cert, ball_cert, left, wrong, paths, split, carried_cert,
           carried);
    CHECK(wrong == 0, "gjk8: %ld certified answers differ from ck_hulls_meet", wrong);
    CHECK(paths == 0, "gjk8: the AVX-512, AVX2 and portable paths steer %ld batches differently", paths);
    CHECK(meet_cert > meet * 7 / 10, "gjk8: certified only %ld of %ld meeting pairs", meet_cert, meet);
    CHECK(apart_cert > apart / 4, "gjk8: certified only %ld of %ld apart pairs", apart_cert, apart);
    CHECK(ball_cert > left / 2, "gjk8 ball: certified only %ld of the %ld pairs with tol left", ball_cert, left);
    CHECK(split == 0, "gjk8: %ld walks stopped and carried on ended otherwise than in one go", split);
    CHECK(carried_cert > carried / 2, "gjk8: walking on into the grown hulls certified only %ld of the %ld pairs left",
          carried_cert, carried);
}

static void test_hull_box(long n)
{
    /* triangles: against the exact tribox reference on grid data */
    long unsound = 0, miss = 0, sep = 0;
    for (long it = 0; it < n; ++it) {
        double v[3][3], lo[3], hi[3];
        gen_tribox_grid(v, lo, hi);
        const int hb = ck_hull_box((const double(*)[3])v, 3, lo, hi, 0.0);
        const int tr = ck_tribox_ref(v[0], v[1], v[2], lo, hi);
        sep += !tr;
        unsound += hb == 0 && tr == 1;
        miss += hb == 1 && tr == 0;
    }
    printf("hull_box/triangles (grid): %ld cases, %ld apart: hull_box said apart for meeting %ld, said meet for "
           "apart %ld (%.3f%%)\n",
           n, sep, unsound, miss, 100.0 * miss / (double)(sep ? sep : 1));
    CHECK(unsound == 0, "hull_box unsound on %ld triangles", unsound);
    CHECK(miss <= sep / 1000, "hull_box missed %ld of %ld separations on exact data", miss, sep);

    /* 2..8-point hulls against boxes, exact oracle */
    long unsound2 = 0, miss2 = 0, sep2 = 0, n2 = n / 4;
    for (long it = 0; it < n2; ++it) {
        const int np = set_sizes[rng_int(1, 7)];
        double p[8][3], lo[3], hi[3], dummy[3][3], bc[8][3];
        gen_set_grid(p, np, 5);
        gen_tribox_grid(dummy, lo, hi);
        const int hb = ck_hull_box((const double(*)[3])p, np, lo, hi, 0.0);
        box_corners(lo, hi, bc);
        i64 pi[8][3], bi[8][3];
        to_i64((const double(*)[3])p, np, pi);
        to_i64((const double(*)[3])bc, 8, bi);
        const int truth = exact_meet((const i64(*)[3])pi, np, (const i64(*)[3])bi, 8);
        sep2 += !truth;
        unsound2 += hb == 0 && truth == 1;
        miss2 += hb == 1 && truth == 0;
    }
    printf("hull_box/hulls (grid): %ld cases, %ld apart: said apart for meeting %ld, said meet for apart %ld (%.3f%%)\n",
           n2, sep2, unsound2, miss2, 100.0 * miss2 / (double)(sep2 ? sep2 : 1));
    CHECK(unsound2 == 0, "hull_box unsound on %ld hulls", unsound2);

    /* floats: triangles vs boxes, agreement with ck_tribox away from touching */
    long fdis = 0, fbad = 0, funsound = 0;
    for (long it = 0; it < n; ++it) {
        double lo[3], hi[3], v[3][3], c[3];
        const double s = pow(10.0, rng_range(-2, 1));
        for (int k = 0; k < 3; ++k) {
            lo[k] = rng_range(-5, 5);
            hi[k] = lo[k] + s * rng_range(0.1, 1);
            c[k] = rng_range(lo[k] - s, hi[k] + s);
        }
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) v[i][k] = c[k] + s * rng_range(-1, 1);
        const int hb = ck_hull_box((const double(*)[3])v, 3, lo, hi, 0.0);
        const int tb = ck_tribox(v[0], v[1], v[2], lo, hi);
        if (hb != tb) {
            ++fdis;
            double bc[8][3];
            box_corners(lo, hi, bc);
            const double sd = signed_sat((const double(*)[3])v, 3, (const double(*)[3])bc, 8);
            if (hb == 0) ++funsound;
            if (fabs(sd) > 1e-9 * s) ++fbad;
        }
    }
    printf("hull_box/triangles (float): %ld cases: %ld differ from ck_tribox (%ld with hull_box saying apart; %ld not "
           "within 1e-9 of touching)\n",
           n, fdis, funsound, fbad);
    CHECK(fbad == 0, "hull_box float: %ld disagreements away from touching", fbad);
}

/* ============================================================================
 * timings
 * ========================================================================= */

static volatile long sink;

static void timings(void)
{
    enum { NP = 4096 };
    static double A[NP][6][3], B[NP][6][3], lo[NP][3], hi[NP][3];
    /* candidate-like pairs: triangles of size ~1 whose centres are ~0.4 apart, moving by ~0.1 */
    for (int i = 0; i < NP; ++i) {
        double c[3];
        for (int k = 0; k < 3; ++k) c[k] = rng_range(-50, 50);
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) {
                A[i][j][k] = c[k] + rng_range(-0.5, 0.5);
                B[i][j][k] = c[k] + 0.25 + rng_range(-0.5, 0.5);
            }
        for (int j = 3; j < 6; ++j)
            for (int k = 0; k < 3; ++k) {
                A[i][j][k] = A[i][j - 3][k] + rng_range(-0.1, 0.1);
                B[i][j][k] = B[i][j - 3][k] + rng_range(-0.1, 0.1);
            }
        const double h = rng_range(0.05, 0.5);
        for (int k = 0; k < 3; ++k) {
            lo[i][k] = c[k] + rng_range(-0.8, 0.3);
            hi[i][k] = lo[i][k] + h;
        }
    }
    const int R = 50;
    long acc = 0;
    double t0;
    long meets;

#define TIME_IT(label, call)                                                                          \
    do {                                                                                              \
        meets = 0;                                                                                    \
        t0 = now_s();                                                                                 \
        for (int r = 0; r < R; ++r)                                                                   \
            for (int i = 0; i < NP; ++i) meets += (call);                                             \
        const double dt = now_s() - t0;                                                               \
        acc += meets;                                                                                 \
        printf("  %-34s %8.1f ns/call  (%.0f%% meet)\n", label, 1e9 * dt / ((double)R * NP),          \
               100.0 * (double)meets / ((double)R * NP));                                             \
    } while (0)

    printf("timings (4096 candidate-like pairs x %d):\n", R);
    TIME_IT("ck_hulls_meet 6 vs 6", ck_hulls_meet((const double(*)[3])A[i], 6, (const double(*)[3])B[i], 6, 0.0));
    TIME_IT("ck_hulls_meet_ref 6 vs 6",
            ck_hulls_meet_ref((const double(*)[3])A[i], 6, (const double(*)[3])B[i], 6, 0.0));
    TIME_IT("ck_hulls_meet 2 vs 6 (vertex-face)",
            ck_hulls_meet((const double(*)[3])A[i], 2, (const double(*)[3])B[i], 6, 0.0));
    TIME_IT("ck_tritri", ck_tritri(A[i][0], A[i][1], A[i][2], B[i][0], B[i][1], B[i][2]));
    TIME_IT("ck_tritri_ref", ck_tritri_ref(A[i][0], A[i][1], A[i][2], B[i][0], B[i][1], B[i][2]));
    TIME_IT("ck_tribox", ck_tribox(A[i][0], A[i][1], A[i][2], lo[i], hi[i]));
    TIME_IT("ck_tribox_ref", ck_tribox_ref(A[i][0], A[i][1], A[i][2], lo[i], hi[i]));
    TIME_IT("ck_hull_box 6 points", ck_hull_box((const double(*)[3])A[i], 6, lo[i], hi[i], 0.0));
    sink = acc;
#undef TIME_IT
}

/* ---- the octree's binning passes (cells.c) -------------------------------------
 * The AVX2 paths against the portable ones, bit for bit, on random index
 * lists of every length mod 8; and the cell ranges against the exact ones
 * (long double) with the widening the octree uses (octree.c build_units):
 * a box must never miss a cell that it, grown by delta, meets. */
static void test_cells(long n)
{
    enum { NF = 4096 };
    float *b = malloc(sizeof(float) * 6 * NF);
    uint32_t *idx = malloc(sizeof(uint32_t) * NF), *c1 = malloc(sizeof(uint32_t) * NF),
             *c2 = malloc(sizeof(uint32_t) * NF);
    const float *lo[3] = {b, b + NF, b + 2 * NF}, *hi[3] = {b + 3 * NF, b + 4 * NF, b + 5 * NF};
    long bad_bits = 0, missed = 0;
    for (long t = 0; t < n / 2000 + 20; ++t) {
        const int g = rng_int(1, 5), G = 1 << g;
        const double origin = rng_int(0, 3) == 0 ? rng_range(-1e4, 1e4) : rng_range(-2, 2);
        const double size = rng_range(1e-3, 10) * (rng_int(0, 1) ? 1 : 100), cs = size / G, inv = 1.0 / cs;
        const double delta = rng_int(0, 1) ? 0 : cs * rng_range(0, 0.3);
        const double O[3] = {origin, origin + rng_range(-1, 1), origin - rng_range(0, 1)};
        for (int f = 0; f < NF; ++f)
            for (int d = 0; d < 3; ++d) {
                /* inside [O + 2 delta, O + size - 2 delta]; often exactly on a cell boundary */
                const double span = size - 4 * delta, e = span * rng_range(0, 0.2);
                double l = O[d] + 2 * delta + (span - e) * rng_unit();
                if (rng_int(0, 3) == 0) l = O[d] + cs * rng_int(1, G - 1) - (rng_int(0, 1) ? delta : 0);
                float lf = (float)l, hf = (float)(l + e * rng_unit());
                if (lf < O[d] + 2 * delta) lf = nextafterf((float)(O[d] + 2 * delta), INFINITY);
                if (hf < lf) hf = lf;
                if (hf > O[d] + size - 2 * delta) hf = lf = (float)(O[d] + size * 0.5);
                b[d * NF + f] = lf, b[(3 + d) * NF + f] = hf;
            }
        const size_t m = (size_t)rng_int(0, 1000);
        for (size_t k = 0; k < m; ++k) idx[k] = (uint32_t)rng_int(0, NF - 1);
        float bl1[3], bh1[3], bl2[3], bh2[3];
        double e1, e2;
        ck_gather_bounds(m, idx, lo, hi, bl1, bh1, &e1);
        ck_gather_bounds_ref(m, idx, lo, hi, bl2, bh2, &e2);
        bad_bits += memcmp(bl1, bl2, sizeof bl1) || memcmp(bh1, bh2, sizeof bh1) || memcmp(&e1, &e2, sizeof e1);
        double reach = G + 2;
        float of[3];
        for (int d = 0; d < 3; ++d) reach += fabs(O[d]) * inv, of[d] = (float)O[d];
        const float wide = (float)(delta * inv + 16 * (double)FLT_EPSILON * reach);
        ck_cell_codes(m, idx, lo, hi, of, (float)inv, wide, g, c1);
        ck_cell_codes_ref(m, idx, lo, hi, of, (float)inv, wide, g, c2);
        bad_bits += memcmp(c1, c2, m * sizeof *c1) != 0;
        for (size_t k = 0; k < m; ++k) {
            const uint32_t c = c1[k], f = idx[k];
            unsigned r0[3], r1[3];
            for (int d = 0; d < 3; ++d)
                if (c & CK_CELL_MULTI) r0[d] = c >> (10 * d) & 31, r1[d] = c >> (10 * d + 5) & 31;
                else r0[d] = r1[d] = c >> (g * d) & (unsigned)(G - 1);
            for (int d = 0; d < 3; ++d) {
                long double x0 = ((long double)lo[d][f] - delta - O[d]) / (long double)cs;
                long double x1 = ((long double)hi[d][f] + delta - O[d]) / (long double)cs;
                long e0 = (long)floorl(x0), e1x = (long)floorl(x1);
                if (e0 < 0) e0 = 0;
                if (e1x > G - 1) e1x = G - 1;
                if ((long)r0[d] > e0 || (long)r1[d] < e1x) {
                    if (missed < 5)
                        fprintf(stderr, "miss: g %d d %d lo %.9g hi %.9g O %.17g cs %.9g delta %.9g x0 %.9Lg x1 %.9Lg r %u..%u code %08x\n", g, d, lo[d][f], hi[d][f], O[d], cs, delta, x0, x1, r0[d], r1[d], c);
                    ++missed;
                }
            }
        }
    }
    CHECK(bad_bits == 0, "cells: AVX2 and portable paths differ in %ld cases", bad_bits);
    CHECK(missed == 0, "cells: %ld cell ranges miss a cell the grown box meets", missed);
    printf("cells: %ld lists, AVX2 == portable, ranges conservative\n", n / 2000 + 20);
    free(b), free(idx), free(c1), free(c2);
}

/* A leaf's overlap bitmap (cells.c): the AVX2 form against the portable
 * one, on rows of every length 0..140 (up to three 64-bit words) with boxes
 * that often touch exactly (shared coordinates), against the plain
 * comparison for each box, and nothing set or written past the words. */
static void test_leaf_overlaps(long n)
{
    enum { M = 144 };
    float a[6][M + 8];
    uint8_t o1[M + 8], o2[M + 8];
    long bad = 0, wrong = 0, pad = 0, rows = 0;
    for (long t = 0; t < n / 200 + 50; ++t) {
        const size_t m = (size_t)(t % 141);
        for (size_t k = 0; k < m + 8; ++k)
            for (int d = 0; d < 3; ++d) {
                const float l = (float)rng_int(0, 8) * 0.25f, h = l + (float)rng_int(0, 4) * 0.25f;
                a[d][k] = l, a[3 + d][k] = h;
            }
        float q[6];
        for (int d = 0; d < 3; ++d) q[d] = (float)rng_int(0, 8) * 0.25f, q[3 + d] = q[d] + (float)rng_int(0, 4) * 0.25f;
        memset(o1, 0xee, sizeof o1), memset(o2, 0xee, sizeof o2);
        ck_leaf_overlaps(m, a[0], a[1], a[2], a[3], a[4], a[5], q, o1);
        ck_leaf_overlaps_ref(m, a[0], a[1], a[2], a[3], a[4], a[5], q, o2);
        const size_t words = (m + 63) / 64 * 8; /* the bytes a caller reads as 64-bit words */
        bad += memcmp(o1, o2, words) != 0;
        for (size_t k = m; k < words * 8; ++k) pad += o1[k >> 3] >> (k & 7) & 1; /* bits past the row */
        for (size_t k = words; k < sizeof o1; ++k) pad += o1[k] != 0xee; /* bytes past the words: untouched */
        for (size_t k = 0; k < m; ++k) {
            int meet = 1;
            for (int d = 0; d < 3; ++d) meet &= q[d] <= a[3 + d][k] && a[d][k] <= q[3 + d];
            wrong += (o1[k >> 3] >> (k & 7) & 1) != meet;
        }
        ++rows;
    }
    CHECK(bad == 0, "leaf overlaps: AVX2 and portable flags differ in %ld rows", bad);
    CHECK(wrong == 0, "leaf overlaps: %ld flags disagree with the box comparison", wrong);
    CHECK(pad == 0, "leaf overlaps: %ld bits set past a row's end or bytes written past its words", pad);
    printf("leaf overlaps: %ld rows, AVX2 == portable == the comparison\n", rows);
}

/* ck_flags_clear (cells.c): the AVX2 form against the portable one and
 * against the definition, flag by flag, on 64 flags at every offset of a
 * buffer (unaligned loads), flags of three bits, mostly zero, as a leaf's
 * faces carry them. */
static void test_flags_clear(long n)
{
    uint8_t buf[64 + 32];
    long bad = 0, wrong = 0, words = 0;
    for (long t = 0; t < n / 100 + 64; ++t) {
        for (size_t k = 0; k < sizeof buf; ++k) buf[k] = (uint8_t)(rng_int(0, 3) ? 0 : rng_int(1, 7));
        const uint8_t f = (uint8_t)rng_int(0, 7);
        for (int o = 0; o < 32; ++o) {
            const uint64_t a = ck_flags_clear(buf + o, f), b = ck_flags_clear_ref(buf + o, f);
            bad += a != b;
            for (int k = 0; k < 64; ++k) wrong += (int)(a >> k & 1) != ((buf[o + k] & f) == 0);
            ++words;
        }
    }
    CHECK(bad == 0, "flags clear: AVX2 and portable masks differ in %ld words", bad);
    CHECK(wrong == 0, "flags clear: %ld bits disagree with the flags", wrong);
    printf("flags clear: %ld words, AVX2 == portable == the flags\n", words);
}

/* ck_slabs_clear (fdop.c, S3): the AVX2 form against the portable one and
 * against ck_box_meets_slabs box by box, every length 0..40 (the steps of
 * four and the tail), slabs and boxes on a quarter grid so that sums meet
 * the slabs exactly, classes 0, 1, 2 mixed (a 0 stays 0), a NaN now and
 * then (it never drops a box). */
static void test_slabs_clear(long n)
{
    enum { M = 40 };
    float a[6][M];
    uint8_t c0[M], c1[M], c2[M];
    long bad = 0, wrong = 0, rows = 0, dropped = 0;
    for (long t = 0; t < n / 100 + 200; ++t) {
        const int m = (int)(t % (M + 1));
        for (int k = 0; k < m; ++k) {
            for (int d = 0; d < 3; ++d) {
                const float l = (float)rng_int(-8, 8) * 0.25f;
                a[d][k] = l, a[3 + d][k] = l + (float)rng_int(0, 4) * 0.25f;
            }
            if (rng_int(0, 49) == 0) a[rng_int(0, 5)][k] = NAN;
            c0[k] = (uint8_t)rng_int(0, 2);
        }
        float S[20];
        for (int d = 0; d < 10; ++d)
            S[d] = (float)rng_int(-12, 4) * 0.25f, S[10 + d] = S[d] + (float)rng_int(0, 16) * 0.25f;
        memcpy(c1, c0, sizeof c1), memcpy(c2, c0, sizeof c2);
        ck_slabs_clear(m, a[0], a[1], a[2], a[3], a[4], a[5], S, c1);
        ck_slabs_clear_ref(m, a[0], a[1], a[2], a[3], a[4], a[5], S, c2);
        bad += memcmp(c1, c2, (size_t)m) != 0;
        for (int k = 0; k < m; ++k) {
            const int meets = ck_box_meets_slabs(a[0][k], a[1][k], a[2][k], a[3][k], a[4][k], a[5][k], S);
            wrong += c1[k] != (meets ? c0[k] : 0);
            dropped += c0[k] && !meets;
        }
        ++rows;
    }
    CHECK(bad == 0, "slabs clear: AVX2 and portable classes differ in %ld rows", bad);
    CHECK(wrong == 0, "slabs clear: %ld classes disagree with the box's slab test", wrong);
    CHECK(dropped > 0, "slabs clear: no box was ever dropped (the test tests nothing)");
    printf("slabs clear: %ld rows, %ld boxes dropped, AVX2 == portable == the slab test\n", rows, dropped);
}

/* ck_classify_boxes (boxes.c, S3) against its portable form and against
 * the classes worked out box by box: boxes on a quarter grid (many touch
 * the region exactly), every length 0..40 at odd offsets, and the classes
 * past m zero up to a whole word of 8 (the arrays end at m: under
 * AddressSanitizer a read past them would be caught). */
static void test_classify(long n)
{
    long bad = 0, wrong = 0, pad = 0, rows = 0, cnt[3] = {0};
    for (long t = 0; t < n / 200 + 50; ++t) {
        const int64_t m = t % 41, off = t % 5;
        float *a[6];
        for (int c = 0; c < 6; ++c) a[c] = malloc(sizeof(float) * (size_t)(m + off + 1));
        for (int64_t k = off; k < m + off; ++k)
            for (int d = 0; d < 3; ++d) {
                const float l = (float)rng_int(0, 8) * 0.25f, h = l + (float)rng_int(0, 4) * 0.25f;
                a[d][k] = l, a[3 + d][k] = h;
            }
        float R6[6];
        for (int d = 0; d < 3; ++d) R6[d] = (float)rng_int(0, 6) * 0.25f, R6[3 + d] = R6[d] + (float)rng_int(0, 6) * 0.25f;
        uint8_t c1[48], c2[48];
        memset(c1, 0xee, sizeof c1), memset(c2, 0xee, sizeof c2);
        ck_classify_boxes(m, a[0] + off, a[1] + off, a[2] + off, a[3] + off, a[4] + off, a[5] + off, R6, c1);
        ck_classify_boxes_ref(m, a[0] + off, a[1] + off, a[2] + off, a[3] + off, a[4] + off, a[5] + off, R6, c2);
        const int64_t w = (m + 7) / 8 * 8;
        bad += memcmp(c1, c2, (size_t)w) != 0;
        for (int64_t k = m; k < w; ++k) pad += c1[k] != 0 || c2[k] != 0;
        for (int64_t k = w; k < 48; ++k) pad += c1[k] != 0xee || c2[k] != 0xee;
        for (int64_t k = 0; k < m; ++k) {
            int meet = 1, in = 1;
            for (int d = 0; d < 3; ++d) {
                const float l = a[d][k + off], h = a[3 + d][k + off];
                meet &= l <= R6[3 + d] && h >= R6[d], in &= l >= R6[d] && h <= R6[3 + d];
            }
            const int want = meet ? (in ? 1 : 2) : 0;
            wrong += c1[k] != want, cnt[want]++;
        }
        for (int c = 0; c < 6; ++c) free(a[c]);
        ++rows;
    }
    CHECK(bad == 0, "classify: AVX2 and portable classes differ in %ld rows", bad);
    CHECK(wrong == 0, "classify: %ld classes disagree with the box comparison", wrong);
    CHECK(pad == 0, "classify: %ld bytes past m not zero up to the word, or written past it", pad);
    CHECK(cnt[0] > 0 && cnt[1] > 0 && cnt[2] > 0, "classify: a class never seen (%ld %ld %ld)", cnt[0], cnt[1], cnt[2]);
    printf("classify: %ld rows, AVX2 == portable == the comparison (%ld apart, %ld inside, %ld straddling)\n", rows,
           cnt[0], cnt[1], cnt[2]);
}

/* ck_mask_counts and ck_mask_or (cells.c, the octree's descent) against
 * the counts made mask by mask: every length 0..100 at odd offsets (the
 * AVX2 steps of 32, the words of 8 and the last partial word), masks
 * sparse and dense, in arrays that end at n (a read past them would be
 * caught under AddressSanitizer). */
static void test_mask_counts(long n)
{
    long bad = 0, rows = 0, set = 0;
    for (long t = 0; t < n / 100 + 200; ++t) {
        const size_t m = (size_t)(t % 101), off = (size_t)(t % 3);
        uint8_t *a = malloc(m + off + 1);
        const int dense = (int)(t % 4);
        uint8_t want_or = 0;
        size_t want[8] = {0}, c1[8] = {1, 2, 3, 4, 5, 6, 7, 8}, c2[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        for (size_t k = 0; k < m; ++k) {
            uint8_t v = (uint8_t)rng_u64();
            if (dense == 0) v &= (uint8_t)rng_u64() & (uint8_t)rng_u64(); /* sparse */
            if (dense == 3) v = (uint8_t)(1u << (rng_u64() % 8));         /* one child each */
            a[off + k] = v, want_or |= v;
            for (int c = 0; c < 8; ++c) want[c] += (size_t)(v >> c & 1), set += v >> c & 1;
        }
        const uint8_t o1 = ck_mask_counts(m, a + off, c1), o2 = ck_mask_counts_ref(m, a + off, c2);
        for (int c = 0; c < 8; ++c) bad += c1[c] != want[c] + (size_t)(c + 1) || c2[c] != want[c] + (size_t)(c + 1);
        bad += o1 != want_or || o2 != want_or || ck_mask_or(m, a + off) != want_or;
        free(a);
        ++rows;
    }
    CHECK(bad == 0, "mask counts: %ld counts or ORs differ from the mask-by-mask ones", bad);
    CHECK(set > 0, "mask counts: no bit set");
    printf("mask counts: %ld lists, AVX2 == portable == mask by mask\n", rows);
}

/* ck_child_masks (cells.c, the octree's descent) against its portable
 * form and against the children worked out box by box: boxes on a quarter
 * grid (so many lie exactly on the planes), read through a shuffled index
 * list, lists of every length 0..40, NaN boxes now and then (no child). */
static void test_child_masks(long n)
{
    enum { NB = 64, M = 40 };
    float b[6][NB];
    uint32_t idx[M];
    uint8_t m1[M + 8], m2[M + 8];
    long bad = 0, wrong = 0, over = 0, lists = 0;
    for (long t = 0; t < n / 200 + 50; ++t) {
        const size_t m = (size_t)(t % (M + 1));
        for (int k = 0; k < NB; ++k)
            for (int d = 0; d < 3; ++d) {
                const float l = (float)rng_int(0, 8) * 0.25f, h = l + (float)rng_int(0, 4) * 0.25f;
                b[d][k] = l, b[3 + d][k] = h;
            }
        if (t % 7 == 0) b[rng_int(0, 5)][rng_int(0, NB - 1)] = NAN;
        for (size_t k = 0; k < m; ++k) idx[k] = (uint32_t)rng_int(0, NB - 1);
        float up[3], dn[3];
        for (int d = 0; d < 3; ++d) dn[d] = (float)rng_int(2, 6) * 0.25f, up[d] = dn[d] + (float)rng_int(0, 1) * 0.25f;
        const float *lo[3] = {b[0], b[1], b[2]}, *hi[3] = {b[3], b[4], b[5]};
        memset(m1, 0xee, sizeof m1), memset(m2, 0xee, sizeof m2);
        ck_child_masks(m, idx, lo, hi, up, dn, m1);
        ck_child_masks_ref(m, idx, lo, hi, up, dn, m2);
        bad += memcmp(m1, m2, m) != 0;
        for (size_t k = m; k < m + 8; ++k) over += m1[k] != 0xee;
        for (size_t k = 0; k < m; ++k) {
            unsigned want = 0;
            for (int c = 0; c < 8; ++c) {
                int reach = 1;
                for (int d = 0; d < 3; ++d)
                    reach &= (c >> d & 1) ? hi[d][idx[k]] >= dn[d] : lo[d][idx[k]] <= up[d];
                want |= (unsigned)reach << c;
            }
            wrong += m1[k] != want;
        }
        ++lists;
    }
    CHECK(bad == 0, "child masks: AVX2 and portable masks differ in %ld lists", bad);
    CHECK(wrong == 0, "child masks: %ld masks disagree with the box comparisons", wrong);
    CHECK(over == 0, "child masks: %ld bytes written past a list's end", over);
    printf("child masks: %ld lists, AVX2 == portable == the comparisons\n", lists);
}

/* ck_f32_up / ck_f32_down (kernels.h, bit tricks) against libm's
 * nextafterf: doubles just around floats of every magnitude and sign,
 * zeros, subnormals, the largest finite floats and the infinities. */
static void test_f32_round(long n)
{
    long bad = 0, cases = 0;
    const double special[] = {0.0, -0.0, 1e-45, -1e-45, 1.4e-45, FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, 1e39, -1e39,
                              INFINITY, -INFINITY, 1.0, -1.0, 0.1, -0.1};
    for (long t = 0; t < n + 400; ++t) {
        double x;
        if (t < (long)(sizeof special / sizeof *special)) x = special[t];
        else {
            const float f = (float)(pow(2, rng_range(-150, 128)) * (rng_int(0, 1) ? -1 : 1));
            const int k = rng_int(0, 3);
            x = k == 0 ? (double)f : k == 1 ? nextafter((double)f, INFINITY) : k == 2 ? nextafter((double)f, -INFINITY)
                                                                                      : (double)f * (1 + 1e-12);
        }
        float up = (float)x, dn = (float)x;
        if ((double)up < x) up = nextafterf(up, INFINITY);
        if ((double)dn > x) dn = nextafterf(dn, -INFINITY);
        const float a = ck_f32_up(x), b = ck_f32_down(x);
        bad += memcmp(&a, &up, 4) != 0 || memcmp(&b, &dn, 4) != 0;
        ++cases;
    }
    CHECK(bad == 0, "f32 rounding: %ld of %ld values differ from nextafterf's", bad, cases);
    printf("f32 rounding: %ld values, ck_f32_up/down == nextafterf\n", cases);
}

/* The boxes of a turning object's faces grown by their arc margins
 * (grow.c): the AVX2 form against the portable one bit for bit, on ranges
 * of every length 0..40 at steps 1..3 (AVX2 at step 1 only), boxes of both
 * signs and magnitudes from 1e-3 to 1e3, radii and turns that give margins
 * from 0 up; each grown side lies outside the side moved by its margin in
 * exact arithmetic (checked in double), and the bounds are the boxes'. */
static void test_grow_boxes(long n)
{
    enum { M = 48 };
    float b1[6][M], b2[6][M], r[M];
    long bad = 0, small = 0, bounds = 0, ranges = 0;
    for (long t = 0; t < n / 200 + 60; ++t) {
        const int64_t f0 = t % 3, f1 = f0 + t % 41, step = 1 + (t / 41) % 3;
        const double k = (t % 5 == 0) ? 0 : rng_unit() * 0.3, eps = (t % 7 == 0) ? 0 : rng_unit() * 1e-3;
        for (int f = 0; f < M; ++f) {
            const double s = pow(10, rng_unit() * 6 - 3);
            r[f] = (float)(rng_unit() * s);
            for (int d = 0; d < 3; ++d) {
                const float l = (float)((rng_unit() - 0.5) * s), h = l + (float)(rng_unit() * s);
                b1[d][f] = b2[d][f] = l, b1[3 + d][f] = b2[3 + d][f] = h;
            }
        }
        float o1[2][3], o2[2][3];
        ck_grow_boxes(f0, f1, step, r, k, eps, b1[0], b1[1], b1[2], b1[3], b1[4], b1[5], o1[0], o1[1]);
        ck_grow_boxes_ref(f0, f1, step, r, k, eps, b2[0], b2[1], b2[2], b2[3], b2[4], b2[5], o2[0], o2[1]);
        bad += memcmp(b1, b2, sizeof b1) != 0 || memcmp(o1, o2, sizeof o1) != 0;
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int64_t f = f0; f < f1; f += step)
            for (int d = 0; d < 3; ++d) lo[d] = fminf(lo[d], b1[d][f]), hi[d] = fmaxf(hi[d], b1[3 + d][f]);
        for (int d = 0; d < 3; ++d) bounds += memcmp(&lo[d], &o1[0][d], 4) != 0 || memcmp(&hi[d], &o1[1][d], 4) != 0;
        ++ranges;
    }
    /* the growth itself: single sides against the margin, in double */
    for (long t = 0; t < n / 20 + 200; ++t) {
        const double s = pow(10, rng_unit() * 6 - 3), k = rng_unit() * 0.3, eps = rng_unit() * 1e-6;
        float l = (float)((rng_unit() - 0.5) * s), h = l + (float)(rng_unit() * s), rr = (float)(rng_unit() * s);
        const double gl = (double)l - (k * rr + eps), gh = (double)h + (k * rr + eps);
        float lx[8] = {l}, ly[8] = {l}, lz[8] = {l}, hx[8] = {h}, hy[8] = {h}, hz[8] = {h}, ol[3], oh[3];
        float rv[8] = {rr};
        ck_grow_boxes(0, 1, 1, rv, k, eps, lx, ly, lz, hx, hy, hz, ol, oh);
        small += !((double)lx[0] <= gl && (double)hx[0] >= gh && (double)lz[0] <= gl && (double)hz[0] >= gh);
    }
    CHECK(bad == 0, "grow boxes: AVX2 and portable results differ in %ld ranges", bad);
    CHECK(bounds == 0, "grow boxes: %ld object bounds differ from the grown boxes' bounds", bounds);
    CHECK(small == 0, "grow boxes: %ld boxes grown by less than their margin", small);
    printf("grow boxes: %ld ranges, AVX2 == portable, grown past the margins\n", ranges);
}

/* The float filter (hullf.c) against the hull test: moving triangles (six
 * float points each) apart by relative gaps from 1e-9 to 1, touching (a
 * shared point) and overlapping; odd lanes with a tolerance (faces that
 * turn) from 1e-6 to 1 of the triangles' size, the same order as the gaps.
 * The filter may say 1 (apart) only where ck_hulls_meet with that
 * tolerance says 0, and its eight-lane form must give the reference's
 * answer in every lane. */
/* A pair of moving triangles near each other, for the float filter's and
 * the crossing certificate's tests: points 0..2 at s, 3..5 at s-1 (moved
 * together, each point a little more), around a random centre; returns
 * their size. */
static double gen_moving_pair(float P[6][3], float Q[6][3])
{
    double c[3], s = pow(10.0, rng_range(-2, 1)), mv = rng_range(0, 1) * s;
    for (int k = 0; k < 3; ++k) c[k] = rng_range(-30, 30);
    double dm[3] = {rng_range(-1, 1) * mv, rng_range(-1, 1) * mv, rng_range(-1, 1) * mv};
    for (int t = 0; t < 2; ++t) {
        float(*a)[3] = t ? Q : P;
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) {
                a[i][k] = (float)(c[k] + s * rng_range(-1, 1));
                a[3 + i][k] = (float)(a[i][k] + dm[k] + 0.1 * s * rng_range(-1, 1));
            }
    }
    return s;
}

/* Q moved off P along a random direction until the two are apart along it
 * by a gap of 10^[lo, 0] times s. */
static void move_off(const float P[6][3], float Q[6][3], double s, double lo)
{
    double d[3], hp = -INFINITY, lq = INFINITY;
    for (int k = 0; k < 3; ++k) d[k] = rng_range(-1, 1);
    for (int i = 0; i < 6; ++i) {
        hp = fmax(hp, d[0] * P[i][0] + d[1] * P[i][1] + d[2] * P[i][2]);
        lq = fmin(lq, d[0] * Q[i][0] + d[1] * Q[i][1] + d[2] * Q[i][2]);
    }
    const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    const double sh = (hp - lq + pow(10.0, rng_range(lo, 0)) * s) / dd;
    for (int i = 0; i < 6; ++i)
        for (int k = 0; k < 3; ++k) Q[i][k] = (float)(Q[i][k] + sh * d[k]);
}

/* n points of one lane as doubles; 0 when some coordinate is not finite. */
static int lane_doubles(const float (*a)[3], int n, double (*out)[3])
{
    int finite = 1;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) out[i][k] = a[i][k], finite &= isfinite(out[i][k]);
    return finite;
}

static void test_hulls_filter(long n)
{
    long apart = 0, filt = 0, wrong = 0, lanes_differ = 0, nonfinite_apart = 0, apart_tol = 0, filt_tol = 0;
    float P[8][6][3], Q[8][6][3], p8[6][3][8], q8[6][3][8], tol[8];
    uint8_t out[8];
    for (long it = 0; it < n; it += 8) {
        for (int l = 0; l < 8; ++l) {
            const double s = gen_moving_pair(P[l], Q[l]);
            const int kind = (int)(it / 8 + l) % 4;
            if (kind == 1) memcpy(Q[l][rng_int(0, 5)], P[l][rng_int(0, 5)], sizeof P[l][0]); /* touching */
            if (kind >= 2) move_off(P[l], Q[l], s, kind == 2 ? -9 : -3); /* apart by a relative gap */
            tol[l] = l & 1 ? (float)(pow(10.0, rng_range(-6, 0)) * s) : 0.0f;
            if (it % 4096 == 0 && l == 7) P[l][2][1] = NAN; /* never "apart" */
            for (int i = 0; i < 6; ++i)
                for (int k = 0; k < 3; ++k) p8[i][k][l] = P[l][i][k], q8[i][k][l] = Q[l][i][k];
        }
        ck_hulls_apart_f32x8((const float(*)[3][8])p8, (const float(*)[3][8])q8, tol, out);
        for (int l = 0; l < 8; ++l) {
            const int r = ck_hulls_apart_f32_ref((const float(*)[3])P[l], (const float(*)[3])Q[l], tol[l]);
            lanes_differ += r != out[l];
            double dp[6][3], dq[6][3];
            const int finite = lane_doubles((const float(*)[3])P[l], 6, dp) & lane_doubles((const float(*)[3])Q[l], 6, dq);
            if (!finite) {
                nonfinite_apart += r;
                continue;
            }
            const int h = ck_hulls_meet((const double(*)[3])dp, 6, (const double(*)[3])dq, 6, tol[l]);
            apart += h == 0;
            filt += r;
            wrong += r && h;
            if (tol[l] > 0) apart_tol += h == 0, filt_tol += r;
        }
    }
    printf("hulls filter: %ld pairs, %ld apart by the hull test, %ld (%.1f%%) of them certified by the float "
           "filter (with a tolerance: %ld of %ld); %ld said apart but meet, %ld lanes differ from the reference\n",
           n, apart, filt, 100.0 * filt / (double)(apart ? apart : 1), filt_tol, apart_tol, wrong, lanes_differ);
    CHECK(wrong == 0, "float filter: %ld pairs called apart that ck_hulls_meet says meet", wrong);
    CHECK(lanes_differ == 0, "float filter: %ld lanes of the x8 form differ from the reference", lanes_differ);
    CHECK(nonfinite_apart == 0, "float filter: NaN input called apart");
    CHECK(filt > apart / 4, "float filter certified only %ld of %ld apart pairs", filt, apart);
    CHECK(filt_tol > apart_tol / 4, "float filter certified only %ld of %ld apart pairs with a tolerance", filt_tol,
          apart_tol);
}

/* The float filter on static triangles (ck_tris_apart_f32x8, hullf.c)
 * against ck_tritri: triangles apart by relative gaps from 1e-9 to 1,
 * touching (a shared vertex, or a vertex on the other's face) and
 * overlapping.  The filter may say 1 (apart) only where ck_tritri says 0,
 * the path the CPU takes must answer as the portable one in every lane, and
 * it must certify most of the apart pairs (it is there to save work). */
static void test_tris_filter(long n)
{
    long apart = 0, filt = 0, wrong = 0, lanes_differ = 0, nonfinite_apart = 0;
    float P[8][3][3], Q[8][3][3], p8[3][3][8], q8[3][3][8];
    uint8_t out[8], ref[8];
    for (long it = 0; it < n; it += 8) {
        for (int l = 0; l < 8; ++l) {
            double c[3], s = pow(10.0, rng_range(-2, 1));
            for (int k = 0; k < 3; ++k) c[k] = rng_range(-30, 30);
            for (int t = 0; t < 2; ++t) {
                float(*a)[3] = t ? Q[l] : P[l];
                for (int i = 0; i < 3; ++i)
                    for (int k = 0; k < 3; ++k) a[i][k] = (float)(c[k] + s * rng_range(-1, 1));
            }
            const int kind = (int)(it / 8 + l) % 5;
            if (kind == 1) memcpy(Q[l][rng_int(0, 2)], P[l][rng_int(0, 2)], sizeof P[l][0]); /* a shared vertex */
            if (kind == 2) { /* a vertex of Q on P's face (rounded to float: on it or a hair off) */
                const double u = rng_range(0, 1), v = rng_range(0, 1 - u);
                for (int k = 0; k < 3; ++k)
                    Q[l][0][k] = (float)(P[l][0][k] + u * (P[l][1][k] - P[l][0][k]) + v * (P[l][2][k] - P[l][0][k]));
            }
            if (kind >= 3) { /* Q moved off P along a random direction by a relative gap */
                double d[3], hp = -INFINITY, lq = INFINITY;
                for (int k = 0; k < 3; ++k) d[k] = rng_range(-1, 1);
                for (int i = 0; i < 3; ++i) {
                    hp = fmax(hp, d[0] * P[l][i][0] + d[1] * P[l][i][1] + d[2] * P[l][i][2]);
                    lq = fmin(lq, d[0] * Q[l][i][0] + d[1] * Q[l][i][1] + d[2] * Q[l][i][2]);
                }
                const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                const double sh = (hp - lq + pow(10.0, rng_range(kind == 3 ? -9 : -3, 0)) * s) / dd;
                for (int i = 0; i < 3; ++i)
                    for (int k = 0; k < 3; ++k) Q[l][i][k] = (float)(Q[l][i][k] + sh * d[k]);
            }
            if (it % 4096 == 0 && l == 7) P[l][2][1] = NAN; /* never "apart" */
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k) p8[i][k][l] = P[l][i][k], q8[i][k][l] = Q[l][i][k];
        }
        ck_tris_apart_f32x8((const float(*)[3][8])p8, (const float(*)[3][8])q8, out);
        ck_tris_apart_f32x8_plain((const float(*)[3][8])p8, (const float(*)[3][8])q8, ref);
        for (int l = 0; l < 8; ++l) {
            lanes_differ += out[l] != ref[l];
            double dp[3][3], dq[3][3];
            const int finite = lane_doubles((const float(*)[3])P[l], 3, dp) & lane_doubles((const float(*)[3])Q[l], 3, dq);
            if (!finite) {
                nonfinite_apart += out[l];
                continue;
            }
            const int h = ck_tritri(dp[0], dp[1], dp[2], dq[0], dq[1], dq[2]);
            apart += h == 0;
            filt += out[l];
            wrong += out[l] && h;
        }
    }
    printf("triangles filter: %ld pairs, %ld apart by ck_tritri, %ld (%.1f%%) of them certified by the float "
           "filter; %ld said apart but meet, %ld lanes differ from the portable path\n",
           n, apart, filt, 100.0 * filt / (double)(apart ? apart : 1), wrong, lanes_differ);
    CHECK(wrong == 0, "triangles filter: %ld pairs called apart that ck_tritri says meet", wrong);
    CHECK(lanes_differ == 0, "triangles filter: %ld lanes differ from the portable path", lanes_differ);
    CHECK(nonfinite_apart == 0, "triangles filter: NaN input called apart");
    CHECK(filt > apart / 2, "triangles filter certified only %ld of %ld apart pairs", filt, apart);
}

/* ck_rows8: the rows' floats in the filter's lanes, AVX2 path and plain
 * path against the definition, rows in any order (repeated, the last one). */
static void test_rows8(long n)
{
    enum { NR = 64 };
    float base[NR * CK_ROW + 8];
    for (int i = 0; i < NR * CK_ROW + 8; ++i) base[i] = (float)rng_range(-1e3, 1e3);
    long bad = 0;
    for (long it = 0; it < n; ++it) {
        int32_t idx[8];
        for (int l = 0; l < 8; ++l) idx[l] = it % 5 == 0 ? NR - 1 : rng_int(0, NR - 1);
        float a[24][8], b[24][8];
        ck_rows8(base, idx, a);
        ck_rows8_plain(base, idx, b);
        for (int c = 0; c < 24; ++c)
            for (int l = 0; l < 8; ++l)
                bad += a[c][l] != base[CK_ROW * idx[l] + c] || b[c][l] != base[CK_ROW * idx[l] + c];
    }
    CHECK(bad == 0, "ck_rows8: %ld values differ from the rows", bad);
    /* ck_rows8o: the offsets plus the origins' difference, in double, rounded once */
    long bado = 0;
    for (long it = 0; it < n; ++it) {
        int32_t idx[8], org[8];
        for (int l = 0; l < 8; ++l) idx[l] = rng_int(0, NR - 1), org[l] = rng_int(0, NR - 1);
        float a[24][8], z[24][8], o[24][8];
        ck_rows8o(base, idx, org, a);
        ck_rows8o(base, idx, NULL, z);
        ck_rows8o(base, idx, idx, o);
        for (int c = 0; c < 18; ++c)
            for (int l = 0; l < 8; ++l) {
                const float *r = base + CK_ROW * idx[l], *g = base + CK_ROW * org[l];
                const double D = (double)r[18 + c % 3] - (double)g[18 + c % 3];
                bado += a[c][l] != (float)((double)r[c] + D) || z[c][l] != (float)((double)r[c] + r[18 + c % 3]) ||
                        o[c][l] != r[c];
            }
    }
    CHECK(bado == 0, "ck_rows8o: %ld values differ from their definition", bado);
}

static void test_timings(long n)
{
    (void)n;
    timings();
}

/* The cases, in the order a plain run takes them; `div` scales the run's N
 * down for the slower cases (N / div, at least `min`). */
static const struct kernel_case {
    const char *name;
    void (*run)(long n);
    long div, min;
    const char *what;
} cases[] = {
    {"tribox", test_tribox, 1, 0, "triangle/box overlap against the exact oracle"},
    {"tritri", test_tritri, 1, 0, "triangle/triangle intersection against the exact oracle"},
    {"hulls_grid", test_hulls_grid, 10, 0, "convex-hull overlap on integer sets (exact oracle)"},
    {"hulls_float", test_hulls_float, 10, 0, "convex-hull overlap on float sets (rounding near touching only)"},
    {"hulls_bool_tol", test_hulls_bool_tol, 500, 10, "the boolean GJK with a tolerance against brute-force distances"},
    {"hulls_rows", test_hulls_rows, 10, 0, "ck_hulls_meet_rows (S5's rows) against ck_hulls_meet"},
    {"hulls_gjk8", test_hulls_gjk8, 10, 0, "the eight-lane GJK: AVX2 and portable paths, certified answers"},
    {"hulls_filter", test_hulls_filter, 4, 0, "the swept hulls' eight-lane filter is conservative"},
    {"tris_filter", test_tris_filter, 4, 0, "the triangles' eight-lane filter says apart only where ck_tritri does"},
    {"rows8", test_rows8, 100, 0, "ck_rows8: the rows' floats in the filter's lanes"},
    {"hull_box", test_hull_box, 10, 0, "ck_hull_box against the exact tribox reference"},
    {"cells", test_cells, 1, 0, "the cell ranges of boxes: AVX2 against portable, against exact ranges"},
    {"leaf_overlaps", test_leaf_overlaps, 1, 0, "a leaf's overlap bitmap against the plain comparison"},
    {"flags_clear", test_flags_clear, 1, 0, "ck_flags_clear against the portable form and the definition"},
    {"slabs_clear", test_slabs_clear, 1, 0, "ck_slabs_clear (S3) against ck_box_meets_slabs box by box"},
    {"classify", test_classify, 1, 0, "ck_classify_boxes (S3) against the classes box by box"},
    {"mask_counts", test_mask_counts, 1, 0, "ck_mask_counts and ck_mask_or against counts mask by mask"},
    {"child_masks", test_child_masks, 1, 0, "ck_child_masks against the children box by box"},
    {"grow_boxes", test_grow_boxes, 1, 0, "a turning object's face boxes grown by their arc margins"},
    {"f32_round", test_f32_round, 1, 0, "ck_f32_up / ck_f32_down against nextafterf"},
    {"timings", test_timings, 1, 0, "ns per call of each kernel (printed, not asserted)"},
};
enum { NCASES = (int)(sizeof cases / sizeof cases[0]) };

static void usage(FILE *f)
{
    fprintf(f, "usage: test_kernels [--list] [CASE...] [N]\n"
               "  CASE  run only the named cases (default: all, in order); --list names them\n"
               "  N     random cases of the fastest kernels (default 1000000; the slower scale down)\n");
}

int main(int argc, char **argv)
{
    long n = 1000000;
    int chosen[NCASES] = {0}, any = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--list") == 0) {
            for (int c = 0; c < NCASES; c++) printf("%-16s %s\n", cases[c].name, cases[c].what);
            return 0;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        char *end;
        long v = strtol(a, &end, 10);
        if (end != a && *end == '\0') {
            n = v;
            continue;
        }
        int c = 0;
        while (c < NCASES && strcmp(cases[c].name, a) != 0) c++;
        if (c == NCASES) {
            fprintf(stderr, "test_kernels: no case '%s' (test_kernels --list names them)\n", a);
            return 2;
        }
        chosen[c] = any = 1;
    }
    if (n < 100) n = 100;
    for (int c = 0; c < NCASES; c++) {
        if (any && !chosen[c]) continue;
        long m = n / cases[c].div;
        if (m < cases[c].min) m = cases[c].min;
        double t = now_s();
        cases[c].run(m);
        printf("  %s (%.1f s)\n", cases[c].name, now_s() - t);
    }
    return check_finish("test_kernels");
}
