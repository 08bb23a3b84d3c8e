/*
 * ccd.c — continuous collision detection of a vertex and a triangle, or of
 * two edges, with the time of impact: an inclusion-based root finder with an
 * a-priori floating-point error bound, after Tight Inclusion (Wang, Ferguson,
 * Schneider, Jiang, Attene & Panozzo, "A Large Scale Benchmark and an
 * Inclusion-Based Algorithm for Continuous Collision Detection", ACM TOG 40(5)
 * 2021), which refines Snyder's interval root finding (SIGGRAPH 1992).
 * Written for clash from the paper; no code of theirs is used.
 *
 * The problem as a root of a multilinear function.  Every point moves
 * linearly, p(t) = (1-t) p0 + t p1.  The primitives touch at time t when
 * F(t, u, w) = 0 for some (u, w) in [0,1]^2, with
 *   EE: F = lerp(a0(t), a1(t), u) - lerp(b0(t), b1(t), w)
 *   VF: F = v(t) - lerp(lerp(f0(t), f1(t), u), f2(t), w)
 * where lerp(a, b, s) = (1-s) a + s b.  The vertex-face map is the triangle
 * as a square collapsed at f2 (w = 1): it covers the triangle exactly, so the
 * domain is the whole cube [0,1]^3 with no u + w <= 1 side condition.  Both
 * F are multilinear (degree <= 1 in each of t, u, w), so over a box of
 * parameters each coordinate F_k ranges exactly between the least and the
 * greatest of its values at the box's 8 corners: that is the inclusion
 * function, and it is exact, not an overestimate.
 *
 * Minimum separation.  The primitives come within distance ms of each other
 * when |F|_2 <= ms somewhere, which implies |F_k| <= ms on every axis; so a
 * box is kept while each coordinate's range meets [-ms - e_k, ms + e_k].
 * With ms > 0 the search thus looks for the L-infinity distance reaching ms
 * (conservative: the L-inf distance is never above the Euclidean one).
 *
 * The error bound e_k (derivation).  u = 2^-53 is the unit roundoff,
 * g2 = 2u/(1-2u) (Higham, Accuracy and Stability of Numerical Algorithms,
 * Lemma 3.1).  M_k = the largest |coordinate k| among the 8 input points.
 * Parameters are dyadic k / 2^d with d <= CCD_MAXDEPTH = 40, so 1 - s is
 * exact.  Evaluate lerp as fl(fl((1-s) a) + fl(s b)): then the result is
 * (1-s) a (1+q1) + s b (1+q2) with |q1|, |q2| <= g2 (also when a compiler
 * fuses a multiply-add).  If the inputs carry errors <= al and the exact
 * ones are <= A in magnitude, the lerp's error is <= al + g2 (A + al).
 *   points at t:       al1 = g2 M                  (inputs exact, A = M)
 *   EE edge points:    al2 = al1 + g2 (M + al1) = (2 g2 + g2^2) M
 *   EE  F = ea - eb:   2 al2 + u (2M + 2 al2)                 ~ 10 u M
 *   VF inner lerp:     al2 as above; outer lerp with f2(t) (error al1):
 *                      al3 = al2 + g2 (M + al2)               ~  6 u M
 *   VF  F = v - g:     al1 + al3 + u (2M + al1 + al3)         ~ 10 u M
 * Both are below 10.001 u M_k.  Underflow adds at most 2^-1075 per
 * multiplication (6 on a path, weights <= 1).  We take
 *   e_k = fl(6 DBL_EPSILON M_k) + DBL_MIN   (= 12 u M_k (1 - u) + 2^-1022)
 * and compare against b_k = fl(fl(ms + e_k) (1 + 2 DBL_EPSILON)), which is
 * >= ms + e_k despite its own two roundings.  Computed corner values are each
 * within 10.001 u M_k of the exact ones, so the least computed corner is at
 * most the least exact one plus that: a box where the exact F_k reaches
 * [-ms, ms] is never dropped.  Coordinates above 1e300 in magnitude (where
 * 2M could overflow), NaN or infinities give a conservative hit at t = 0.
 *
 * The search.  Boxes of parameters are kept in a binary heap ordered by
 * their lower time t_lo (ties: the deeper box first, so the search dives).
 * Pop the earliest box and judge it from its corner values:
 *   - drop it when some coordinate's range misses [-b_k, b_k], or when
 *     G = n . F along one of a few directions n chosen for the box stays
 *     beyond ms |n|_1 plus its rounding bound (apart_along, below);
 *   - when every coordinate's range lies within [-ms, ms] (tested as
 *     max + 2 e_k <= ms and 2 e_k - min <= ms, the 2 e_k covering the
 *     evaluation and the sum's rounding), the whole box is contact: toi =
 *     t_lo, exactly the first contact;
 *   - accept it when it is narrow in time (width <= tolerance / 2) and
 *     either the ranges of the other ("open") axes are narrow in space
 *     (each <= delta = max(tolerance L / 8, 4 max e_k), L the largest
 *     extent of the 8 points along an axis), or, with ms > 0, one of its
 *     corners is certainly a contact (|F_k| + 2 e_k <= ms on every axis),
 *     or F certainly has a zero in it (certain_zero: Miranda's theorem on
 *     G = N F, N the rows of J's inverse up to scale; no spatial narrowing
 *     needed);
 *   - otherwise split it in two: along t when only time is left to narrow
 *     (narrow ranges, or a certain corner), else along the dimension whose
 *     halves the inclusion test would drop (judged on corner values and
 *     their midpoint averages, exact for multilinear F), else the one the
 *     open axes vary most along.  The heuristic only orders the work.
 * The time window.  When the first box [0,1]^3 is not settled, the search
 * asks ccd_planes.c for the windows outside which the four points are never
 * coplanar (so never in contact): usually one, a grid step or two wide
 * around the one time the points cross a common plane.  The search then
 * starts from the dyadic time blocks that tile the windows (seed_window),
 * already narrow in time, instead of bisecting time from [0, 1]; with the
 * certain zero a contact is then accepted after a few spatial splits
 * (armadillo-rollers: 127 boxes per contact before, 5 now).
 * Every contact lies in a live box (boxes are only dropped with a
 * certificate), and the accepted box has the least t_lo of all live boxes,
 * so toi = t_lo is never later than the first contact; if the accepted box
 * holds a contact, toi is within tolerance / 2 of it.  Early exits keep that
 * guarantee: after max_iter boxes (default CK_CCD_MAX_ITER), when the heap
 * (CCD_HEAP boxes) is full, or when no dimension may be split further, the
 * query is a hit at the current box's t_lo, the least of all live boxes.
 * Without the "whole box" and "certain corner" rules and the halves rule, a
 * vertex reaching min_sep of a face kept every boundary cell of the contact
 * region in the heap, overflowed it, and answered 1e-3 early.
 *
 * ck_ccd_exact_ref, the reference, judges boxes the same way but searches
 * them by plain recursion (widest varying parameter first, the earlier half
 * of a time split first, branch and bound on the time found): no heap, no
 * heuristic, exponentially slower where contacts form a surface; the tests
 * ask both for zero false negatives.
 *
 * The float filters run first: corner differences beyond ms along an axis
 * at t = 0 and t = 1 (ccd_filter.c), then four points that are never
 * coplanar within what ms allows (ccd_planes.c), decide "no contact".
 */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "kernels/ccd.h"

#define CCD_MAXDEPTH 40 /* per dimension: keeps parameters dyadic with 1 - s exact */
#define CCD_HEAP 1024   /* live boxes (40 bytes each, on the stack) */

typedef struct {
    double tlo;          /* the key: lower time of the box */
    uint64_t k[3];       /* box [k, k+1] / 2^d in t, u, w */
    uint8_t d[3];
    uint8_t depth;       /* d[0] + d[1] + d[2], the tie-break */
} ccd_box;

static inline int box_before(const ccd_box *a, const ccd_box *b)
{
    return a->tlo < b->tlo || (a->tlo == b->tlo && a->depth > b->depth);
}

static void heap_push(ccd_box *h, int *n, ccd_box b)
{
    int i = (*n)++;
    while (i > 0) {
        const int p = (i - 1) / 2;
        if (!box_before(&b, &h[p])) break;
        h[i] = h[p];
        i = p;
    }
    h[i] = b;
}

static ccd_box heap_pop(ccd_box *h, int *n)
{
    const ccd_box top = h[0], last = h[--*n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n) break;
        if (c + 1 < *n && box_before(&h[c + 1], &h[c])) ++c;
        if (!box_before(&h[c], &last)) break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0) h[i] = last;
    return top;
}

/* (1-s) a + s b with s1 = 1 - s (exact) */
static inline double lerp(double a, double b, double s, double s1) { return s1 * a + s * b; }

/* F_k at the 8 corners of the box [t0,t1] x [u0,u1] x [w0,w1] for one axis k:
 * fk[4 it + 2 iu + iw], evaluated exactly as the error bound assumes.  Each
 * axis is computed on its own, so the search can drop a box on the first
 * axis whose range misses [-b_k, b_k] without evaluating the others. */
static void corners_axis(int kind, const double x0[4][3], const double x1[4][3], const double t[2], const double u[2],
                         const double w[2], int k, double fk8[8])
{
    const double u1[2] = {1.0 - u[0], 1.0 - u[1]}, w1[2] = {1.0 - w[0], 1.0 - w[1]};
    for (int it = 0; it < 2; ++it) {
        const double s = t[it], s1 = 1.0 - s;
        const double p0 = lerp(x0[0][k], x1[0][k], s, s1), p1 = lerp(x0[1][k], x1[1][k], s, s1);
        const double p2 = lerp(x0[2][k], x1[2][k], s, s1), p3 = lerp(x0[3][k], x1[3][k], s, s1);
        double *fk = fk8 + 4 * it;
        if (kind == CK_CCD_EE) {
            const double ea0 = lerp(p0, p1, u[0], u1[0]), ea1 = lerp(p0, p1, u[1], u1[1]);
            const double eb0 = lerp(p2, p3, w[0], w1[0]), eb1 = lerp(p2, p3, w[1], w1[1]);
            fk[0] = ea0 - eb0, fk[1] = ea0 - eb1, fk[2] = ea1 - eb0, fk[3] = ea1 - eb1;
        } else {
            const double g0 = lerp(p1, p2, u[0], u1[0]), g1 = lerp(p1, p2, u[1], u1[1]);
            fk[0] = p0 - lerp(g0, p3, w[0], w1[0]), fk[1] = p0 - lerp(g0, p3, w[1], w1[1]);
            fk[2] = p0 - lerp(g1, p3, w[0], w1[0]), fk[3] = p0 - lerp(g1, p3, w[1], w1[1]);
        }
    }
}

/* All three axes: f[k][corner] */
static void corners(int kind, const double x0[4][3], const double x1[4][3], const double t[2], const double u[2],
                    const double w[2], double f[3][8])
{
    for (int k = 0; k < 3; ++k) corners_axis(kind, x0, x1, t, u, w, k, f[k]);
}

/* Axis k's corner range [*mn, *mx]; 1 when it misses [-b_k, b_k]: the box holds no contact */
static inline int axis_out(const double fk[8], double bk, double *mn, double *mx)
{
    double lo = fk[0], hi = fk[0];
    for (int c = 1; c < 8; ++c) lo = fk[c] < lo ? fk[c] : lo, hi = fk[c] > hi ? fk[c] : hi;
    *mn = lo, *mx = hi;
    return lo > bk || hi < -bk;
}

/* 0 when the options are usable (tolerance > 0, 0 <= min_sep < inf) */
static int opts_bad(const ck_ccd_opts *o)
{
    return !(o->tolerance > 0) || !(o->min_sep >= 0) || isinf(o->min_sep);
}

/* M_k and the extent L; 0 when the coordinates are unusable (NaN, inf, > 1e300) */
static int magnitudes(const double x0[4][3], const double x1[4][3], double M[3], double *L)
{
    double ext = 0;
    for (int k = 0; k < 3; ++k) {
        double m = 0, lo = x0[0][k], hi = x0[0][k];
        for (int i = 0; i < 8; ++i) {
            const double x = i < 4 ? x0[i][k] : x1[i - 4][k];
            if (!(fabs(x) <= 1e300)) return 0;
            m = fabs(x) > m ? fabs(x) : m;
            lo = x < lo ? x : lo, hi = x > hi ? x : hi;
        }
        M[k] = m;
        ext = hi - lo > ext ? hi - lo : ext;
    }
    *L = ext;
    return 1;
}

/* Some corner is certainly a contact: |F_k| <= ms there on every axis (the
 * computed value is within e_k of the exact one; 2 e_k also covers the
 * rounding of the sum, as for the "inside" test). */
static int corner_contact(const double f[3][8], const double e[3], double ms)
{
    for (int c = 0; c < 8; ++c) {
        int ok = 1;
        for (int k = 0; k < 3 && ok; ++k) ok = fabs(f[k][c]) + 2 * e[k] <= ms;
        if (ok) return 1;
    }
    return 0;
}

/* How many of the two halves of the box along each dimension j (bit 2 - j
 * of the corner index) the inclusion test would drop, judged on the open
 * axes from the corner values (midpoint values are averages: F is
 * multilinear).  A heuristic for the choice of split only; soundness never
 * depends on it. */
static inline double min2(double a, double b) { return a < b ? a : b; }
static inline double max2(double a, double b) { return a > b ? a : b; }

/* One axis, one dimension: a[] the corners with the bit clear, z[] their
 * partners with it set; bit 0 of the result: the lower half is out, bit 1:
 * the upper half. */
static inline int halves_out(double a0, double a1, double a2, double a3, double z0, double z1, double z2,
                             double z3, double bk)
{
    const double m0 = 0.5 * (a0 + z0), m1 = 0.5 * (a1 + z1), m2 = 0.5 * (a2 + z2), m3 = 0.5 * (a3 + z3);
    const double lm = min2(min2(m0, m1), min2(m2, m3)), hm = max2(max2(m0, m1), max2(m2, m3));
    const double l0 = min2(min2(min2(a0, a1), min2(a2, a3)), lm), h0 = max2(max2(max2(a0, a1), max2(a2, a3)), hm);
    const double l1 = min2(min2(min2(z0, z1), min2(z2, z3)), lm), h1 = max2(max2(max2(z0, z1), max2(z2, z3)), hm);
    return (l0 > bk || h0 < -bk) | (l1 > bk || h1 < -bk) << 1;
}

static void halves_dropped(const double f[3][8], const double b[3], const int open[3], int drop[3])
{
    int out[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
        if (!open[k]) continue;
        const double *v = f[k], bk = b[k];
        out[0] |= halves_out(v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], bk); /* t: bit 4 */
        out[1] |= halves_out(v[0], v[1], v[4], v[5], v[2], v[3], v[6], v[7], bk); /* u: bit 2 */
        out[2] |= halves_out(v[0], v[2], v[4], v[6], v[1], v[3], v[5], v[7], bk); /* w: bit 1 */
    }
    for (int j = 0; j < 3; ++j) drop[j] = (out[j] & 1) + (out[j] >> 1);
}

/* 2^-d, exactly, for 0 <= d <= CCD_MAXDEPTH (built from its exponent bits) */
static inline double pow2_neg(int d)
{
    const uint64_t bits = (uint64_t)(1023 - d) << 52;
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* What a query's search needs to know besides the points */
typedef struct {
    double b[3];    /* keep a box while each F_k's range meets [-b_k, b_k] */
    double e[3];    /* the rounding bound e_k */
    double ms;      /* min_sep */
    double tol_t;   /* accept boxes narrower than this in time ... */
    double delta;   /* ... whose open ranges are narrower than this */
} ccd_query;

/* The bounds of the top comment; 0 when the options or points are unusable */
static int setup(const ck_ccd_opts *o, const double x0[4][3], const double x1[4][3], ccd_query *q)
{
    double M[3], L, emax = 0;
    if (opts_bad(o) || !magnitudes(x0, x1, M, &L)) return 0;
    for (int k = 0; k < 3; ++k) {
        q->e[k] = 6 * DBL_EPSILON * M[k] + DBL_MIN;
        q->b[k] = (o->min_sep + q->e[k]) * (1 + 2 * DBL_EPSILON);
        emax = q->e[k] > emax ? q->e[k] : emax;
    }
    q->ms = o->min_sep;
    q->tol_t = o->tolerance * 0.5;
    q->delta = o->tolerance * L * 0.125;
    q->delta = q->delta > 4 * emax ? q->delta : 4 * emax;
    return 1;
}

/* More axes for the inclusion test: G = n . F along a direction n chosen
 * for the box is multilinear like F, so its range over the box lies between
 * its corner values.  Any n is sound; the choice only decides how much is
 * dropped.  Taken here, from the box's corner values: with J_t, J_u, J_w
 * F's change across the box along t, u, w (sums of corner differences), the
 * three directions J_u x J_w, J_w x J_t, J_t x J_u, the rows of J's
 * inverse up to scale, along which G changes (to first order) with one
 * parameter only; so a box is dropped as soon as it misses the root in
 * that parameter, where the three coordinate axes keep all its neighbours
 * (for EE, J_u x J_w is the edges' common normal; for VF, the face's
 * normal).  And for EE the gap F at the box's centre (the mean of the
 * corners) with edge a's direction at mid-time projected out: for nearly
 * parallel edges a few 1e-6 apart the set where every F_k is near 0 is a
 * long thin strip near u = w which the coordinate axes never cleared (the
 * heap filled and the search answered a conservative hit at toi 0), while
 * the gap across the edges stays away from 0.
 *
 * The bound.  G_c is computed as fl(sum n_k f_k) from the computed corner
 * values; it is within sum |n_k| (e_k + 2 eps m_k) of the exact n . F at
 * that corner (m_k = the largest |f_k| of the box; e_k covers f_k's own
 * rounding, 2 eps = 4u > gamma_3 the dot product's).  If G exceeds
 * ms sum |n_k| on the whole box, then some |F_k| > ms everywhere there
 * (sum n_k F_k <= sum |n_k| max_k |F_k|): no contact, the box is dropped.
 * The bound bn takes ms, e_k and m_k times |n_k| <= 1 (n scaled so),
 * summed and raised by 4 eps for its own roundings, plus DBL_MIN for
 * underflow.  Non-finite values compare false: no drop. */
/* The test along one direction n (any finite n; scaled here so max |n_k| = 1) */
/* (wk[k] = ms + e_k + 2 eps m_k, the same for every direction of a box) */
/* n scaled so max |n_k| = 1, and the bound sum |n_k| wk[k] raised for its
 * roundings; 0 when n is zero or not finite (no test along it). */
static inline int scaled_bound(double n[3], const double wk[3], double *bn)
{
    double s = fabs(n[0]) > fabs(n[1]) ? fabs(n[0]) : fabs(n[1]);
    s = fabs(n[2]) > s ? fabs(n[2]) : s;
    if (!(s > 0) || isinf(s)) return 0;
    double b = 0;
    for (int k = 0; k < 3; ++k) {
        n[k] /= s;
        b += fabs(n[k]) * wk[k];
    }
    *bn = b * (1 + 4 * DBL_EPSILON) + DBL_MIN;
    return 1;
}

static int apart_dir(double n[3], const double wk[3], const double f[3][8])
{
    double bn;
    if (!scaled_bound(n, wk, &bn)) return 0;
    int above = 1, below = 1;
    for (int i = 0; i < 8 && (above || below); ++i) {
        const double g = n[0] * f[0][i] + n[1] * f[1][i] + n[2] * f[2][i];
        above &= g > bn, below &= g < -bn;
    }
    return above || below;
}

static inline void cross(const double a[3], const double b[3], double c[3])
{
    c[0] = a[1] * b[2] - a[2] * b[1], c[1] = a[2] * b[0] - a[0] * b[2], c[2] = a[0] * b[1] - a[1] * b[0];
}

/* J[d]: F's change across the box along t, u, w (sums of corner differences), and m[k] =
 * ms + e_k + 2 eps m_k (apart_dir's wk, the same for every direction of a box) */
static inline void jacobian(const double f[3][8], const ccd_query *q, double J[3][3], double m[3])
{
    for (int k = 0; k < 3; ++k) {
        double mk = 0;
        for (int i = 0; i < 8; ++i) mk = fabs(f[k][i]) > mk ? fabs(f[k][i]) : mk;
        m[k] = q->ms + q->e[k] + 2 * DBL_EPSILON * mk;
        J[0][k] = f[k][4] - f[k][0] + f[k][5] - f[k][1] + f[k][6] - f[k][2] + f[k][7] - f[k][3];
        J[1][k] = f[k][2] - f[k][0] + f[k][3] - f[k][1] + f[k][6] - f[k][4] + f[k][7] - f[k][5];
        J[2][k] = f[k][1] - f[k][0] + f[k][3] - f[k][2] + f[k][5] - f[k][4] + f[k][7] - f[k][6];
    }
}

static int apart_along(int kind, const double x0[4][3], const double x1[4][3], double tm, const double f[3][8],
                       const ccd_query *q)
{
    double n[3], m[3], J[3][3];
    jacobian(f, q, J, m);
    for (int d = 0; d < 3; ++d) {
        cross(J[(d + 1) % 3], J[(d + 2) % 3], n);
        if (apart_dir(n, m, f)) return 1;
    }
    if (kind == CK_CCD_EE) {
        const double tm1 = 1.0 - tm;
        double c[3], d[3], cd = 0, dd = 0;
        for (int k = 0; k < 3; ++k) {
            double s = 0;
            for (int i = 0; i < 8; ++i) s += f[k][i];
            c[k] = 0.125 * s;
            d[k] = tm1 * (x0[1][k] - x0[0][k]) + tm * (x1[1][k] - x1[0][k]);
            cd += c[k] * d[k], dd += d[k] * d[k];
        }
        const double r = dd > 0 ? cd / dd : 0;
        for (int k = 0; k < 3; ++k) n[k] = c[k] - r * d[k];
        if (apart_dir(n, m, f)) return 1;
    }
    return 0;
}

/* A certain zero of F in the box (Miranda's theorem, after Kearfott's use of it for
 * verified roots): with G_d = n_d . F for the directions n_d = J_{d+1} x J_{d+2} of
 * apart_along (the rows of J's inverse up to scale), if for each dimension d, G_d is
 * > bn_d at the 4 corners of one d-face of the box and < -bn_d at the 4 of the opposite
 * one, then F has a zero in the box.  Why: G_d is multilinear, so on each face it lies
 * between that face's corner values, and bn_d (apart_dir's bound: the corner values'
 * rounding, ms added, which only makes the test stricter) makes the signs those of the
 * exact G_d; Miranda's theorem then gives a zero of G = N F (N the matrix of the n_d as
 * computed) in the box.  And N is invertible: the 8 corners show all 8 sign patterns of
 * (G_0, G_1, G_2), so no y != 0 has y . G = 0 at every corner, as y^T N = 0 would give.
 * So F = 0 there: a contact at a time within the box. */
static int certain_zero(const double f[3][8], const ccd_query *q)
{
    double J[3][3], wk[3];
    jacobian(f, q, J, wk);
    for (int d = 0; d < 3; ++d) {
        double n[3];
        cross(J[(d + 1) % 3], J[(d + 2) % 3], n);
        double bn;
        if (!scaled_bound(n, wk, &bn)) return 0;
        const int bit = 4 >> d; /* t: bit 2 of the corner index, u: bit 1, w: bit 0 */
        int lo_pos = 1, lo_neg = 1, hi_pos = 1, hi_neg = 1;
        for (int c = 0; c < 8; ++c) {
            const double g = n[0] * f[0][c] + n[1] * f[1][c] + n[2] * f[2][c];
            if (c & bit) hi_pos &= g > bn, hi_neg &= g < -bn;
            else lo_pos &= g > bn, lo_neg &= g < -bn;
        }
        if (!((lo_pos && hi_neg) || (lo_neg && hi_pos))) return 0;
    }
    return 1;
}

enum { JUDGE_OUT, JUDGE_OPEN, JUDGE_ALL };

static int judge_ranges(const double lo[3], const double hi[3], const ccd_query *q, int open[3], double *range);

/* The inclusion test on a box's corner values: JUDGE_OUT when some axis's
 * range misses [-b_k, b_k] (no contact in the box), JUDGE_ALL when every
 * axis's range lies within [-ms, ms] (the whole box is contact), else
 * JUDGE_OPEN with open[k] = 1 for the axes not wholly within and range =
 * the widest of their ranges.  What only a split needs (open_var) and the
 * certain corner (corner_contact) are asked for apart, after apart_along. */
static int judge(const double f[3][8], const ccd_query *q, int open[3], double *range)
{
    double lo[3], hi[3];
    for (int k = 0; k < 3; ++k)
        if (axis_out(f[k], q->b[k], &lo[k], &hi[k])) return JUDGE_OUT;
    return judge_ranges(lo, hi, q, open, range);
}

/* judge, given each axis's corner range (none of them missing) */
static int judge_ranges(const double lo[3], const double hi[3], const ccd_query *q, int open[3], double *range)
{
    int inside = 0;
    *range = 0;
    for (int k = 0; k < 3; ++k) {
        const double mn = lo[k], mx = hi[k];
        open[k] = 0;
        if (mx + 2 * q->e[k] <= q->ms && 2 * q->e[k] - mn <= q->ms) { /* |F_k| <= ms on the whole box */
            ++inside;
            continue;
        }
        open[k] = 1;
        *range = mx - mn > *range ? mx - mn : *range;
    }
    return inside == 3 ? JUDGE_ALL : JUDGE_OPEN;
}

/* var[d] = the open axes' largest change along dimension d between corner pairs */
static void open_var(const double f[3][8], const int open[3], double var[3])
{
    var[0] = var[1] = var[2] = 0;
    for (int k = 0; k < 3; ++k) {
        if (!open[k]) continue;
        for (int c = 0; c < 4; ++c) { /* corner pairs along t (bit 2), u (bit 1), w (bit 0) */
            const int ct = c, cu = (c & 1) | (c & 2) << 1, cw = c << 1;
            const double dt = fabs(f[k][ct | 4] - f[k][ct]), du = fabs(f[k][cu | 2] - f[k][cu]),
                         dw = fabs(f[k][cw | 1] - f[k][cw]);
            var[0] = dt > var[0] ? dt : var[0], var[1] = du > var[1] ? du : var[1];
            var[2] = dw > var[2] ? dw : var[2];
        }
    }
}

/* The time window (top comment): the dyadic blocks that tile the windows of
 * ccd_planes.c (aligned, as large as fit, at most CCD_TILES in all) go to the
 * heap, each with the whole (u, w) square.  Returns 1 when the heap holds
 * them, else 0 with [*a, *b] the windows' span (children outside it are not
 * pushed), [0, 1] when there are none. */
enum { CCD_TILES = 8 };
static int seed_window(int kind, const double x0[4][3], const double x1[4][3], const ccd_query *q, ccd_box *heap,
                       int *n, double *a, double *b)
{
    int dw = 1;
    while (dw < CCD_MAXDEPTH && pow2_neg(dw) > q->tol_t) ++dw;
    double win[3][2];
    const int nw = ck_ccd_planes_window(kind, x0, x1, q->ms, dw, win);
    if (nw <= 0) return 0;
    *a = win[0][0], *b = win[nw - 1][1];
    const double g = (double)(1ull << dw);
    ccd_box tile[CCD_TILES];
    int nt = 0;
    for (int i = 0; i < nw; ++i) {
        uint64_t kt = (uint64_t)(win[i][0] * g);
        const uint64_t kb = (uint64_t)(win[i][1] * g);
        while (kt < kb) { /* the largest aligned block at kt that ends by kb */
            if (nt == CCD_TILES) return 0;
            int j = 0;
            while (j < dw && !((kt >> j) & 1) && kt + (2ull << j) <= kb) ++j;
            const int d = dw - j;
            tile[nt++] = (ccd_box){(double)(kt >> j) * pow2_neg(d), {kt >> j, 0, 0}, {(uint8_t)d, 0, 0}, (uint8_t)d};
            kt += 1ull << j;
        }
    }
    *n = 0;
    for (int i = 0; i < nt; ++i) heap_push(heap, n, tile[i]);
    return 1;
}

int ck_ccd_exact(int kind, const double x0[4][3], const double x1[4][3], const ck_ccd_opts *o, double *toi,
                 int64_t *iters)
{
    ccd_query q;
    if (iters) *iters = 0;
    if (!setup(o, x0, x1, &q)) {
        *toi = 0.0;
        return 1;
    }
    const int64_t max_iter = o->max_iter > 0 ? o->max_iter : CK_CCD_MAX_ITER;

    ccd_box heap[CCD_HEAP];
    int n = 0;
    heap_push(heap, &n, (ccd_box){0.0, {0, 0, 0}, {0, 0, 0}, 0});
    int64_t it = 0;
    double wa = 0, wb = 1; /* the window: no contact outside */
    while (n > 0) {
        const ccd_box bx = heap_pop(heap, &n);
        double lo[3], hi[3];
        for (int d = 0; d < 3; ++d) {
            const double sc = pow2_neg(bx.d[d]); /* k < 2^40: k 2^-d is exact */
            lo[d] = (double)bx.k[d] * sc;
            hi[d] = (double)(bx.k[d] + 1) * sc;
        }
        const double tt[2] = {lo[0], hi[0]}, uu[2] = {lo[1], hi[1]}, ww[2] = {lo[2], hi[2]};
        ++it;
        double f[3][8], fmn[3], fmx[3];
        int out = 0; /* axis by axis: the first axis that misses drops the box (as judge would) */
        for (int k = 0; k < 3 && !out; ++k) {
            corners_axis(kind, x0, x1, tt, uu, ww, k, f[k]);
            out = axis_out(f[k], q.b[k], &fmn[k], &fmx[k]);
        }
        if (out) continue;
        int open[3];
        double range;
        const int v = judge_ranges(fmn, fmx, &q, open, &range);
        if (v == JUDGE_OPEN && apart_along(kind, x0, x1, 0.5 * (lo[0] + hi[0]), f, &q)) continue;
        if (v == JUDGE_ALL) { /* every point of the box is a contact, t_lo included: the first one */
            *toi = bx.tlo;
            if (iters) *iters = it;
            return 1;
        }
        const int contact = q.ms > 0 && corner_contact(f, q.e, q.ms);
        const double tw = hi[0] - lo[0];
        if ((tw <= q.tol_t && (range <= q.delta || contact || certain_zero(f, &q))) || it >= max_iter) {
            *toi = bx.tlo;
            if (iters) *iters = it;
            return 1;
        }
        /* the dimension to split: t when only time is left to narrow, else the
         * one whose halves the inclusion can drop, else the most varying */
        int d = -1;
        if (range <= q.delta || contact) {
            d = 0;
        } else {
            int best_drop = -1;
            double best = -1, var[3];
            int drops[3];
            open_var(f, open, var);
            halves_dropped(f, q.b, open, drops);
            for (int j = 0; j < 3; ++j) {
                if (bx.d[j] >= CCD_MAXDEPTH) continue;
                const int drop = drops[j];
                if (drop > best_drop || (drop == best_drop && var[j] > best)) best_drop = drop, best = var[j], d = j;
            }
        }
        if (d < 0 || bx.d[d] >= CCD_MAXDEPTH || n + 2 > CCD_HEAP) { /* cannot refine: conservative hit */
            *toi = bx.tlo;
            if (iters) *iters = it;
            return 1;
        }
        if (it == 1) {
            if (seed_window(kind, x0, x1, &q, heap, &n, &wa, &wb)) continue;
        }
        ccd_box c0 = bx, c1 = bx;
        c0.d[d]++, c1.d[d]++, c0.depth++, c1.depth++;
        c0.k[d] = 2 * bx.k[d], c1.k[d] = 2 * bx.k[d] + 1;
        if (d == 0) c1.tlo = (double)c1.k[0] * pow2_neg(c1.d[0]);
        if (d != 0 || wa < (double)(c0.k[0] + 1) * pow2_neg(c0.d[0])) heap_push(heap, &n, c0);
        if (d != 0 || c1.tlo < wb) heap_push(heap, &n, c1);
    }
    *toi = 1.0;
    if (iters) *iters = it;
    return 0;
}

/* ---- the reference search ------------------------------------------------------
 * The same inclusion test and acceptance, searched the plain way: recursion,
 * the widest parameter interval that F changes along split in two (t first
 * among equals; t alone when only time is left to narrow), the earlier half of a time split
 * searched first and its answer kept when it has one (everything in the
 * later half is later), both halves of a u or w split searched, the second
 * only for answers earlier than the first's, and the earlier answer kept.
 * No heap, no heuristics; recursion depth <= 3 x 40. */
typedef struct {
    int kind;
    const double (*x0)[3], (*x1)[3];
    ccd_query q;
    int64_t it, budget;
} ref_ctx;

/* 1 with *t, 0 none (none earlier than `before`), -1 when the budget ran out */
static int ref_box(ref_ctx *c, const double lo[3], const double hi[3], const int depth[3], double before, double *t)
{
    if (lo[0] >= before) return 0; /* cannot beat the answer already found */
    if (++c->it > c->budget) return -1;
    double f[3][8], range, var[3];
    int open[3];
    const double tt[2] = {lo[0], hi[0]}, uu[2] = {lo[1], hi[1]}, ww[2] = {lo[2], hi[2]};
    corners(c->kind, c->x0, c->x1, tt, uu, ww, f);
    const int v = judge(f, &c->q, open, &range);
    if (v == JUDGE_OUT) return 0;
    if (v == JUDGE_OPEN && apart_along(c->kind, c->x0, c->x1, 0.5 * (lo[0] + hi[0]), f, &c->q)) return 0;
    const int contact = v == JUDGE_OPEN && c->q.ms > 0 && corner_contact(f, c->q.e, c->q.ms);
    if (v == JUDGE_OPEN) open_var(f, open, var);
    if (v == JUDGE_ALL ||
        (hi[0] - lo[0] <= c->q.tol_t && (range <= c->q.delta || contact || certain_zero(f, &c->q)))) {
        *t = lo[0];
        return 1;
    }
    int d = -1;
    if (range <= c->q.delta || contact) d = depth[0] < CCD_MAXDEPTH && hi[0] - lo[0] > c->q.tol_t ? 0 : -1;
    else
        for (int j = 0; j < 3; ++j) /* among the dimensions F changes along in this box */
            if (depth[j] < CCD_MAXDEPTH && var[j] > 0 && (d < 0 || hi[j] - lo[j] > hi[d] - lo[d])) d = j;
    if (d < 0) { /* cannot refine: conservative */
        *t = lo[0];
        return 1;
    }
    const double mid = 0.5 * (lo[d] + hi[d]);
    double lo1[3] = {lo[0], lo[1], lo[2]}, hi0[3] = {hi[0], hi[1], hi[2]}, t0 = 1, t1 = 1;
    int dep[3] = {depth[0], depth[1], depth[2]};
    hi0[d] = mid, lo1[d] = mid, dep[d]++;
    const int r0 = ref_box(c, lo, hi0, dep, before, &t0);
    if (r0 < 0) return -1;
    if (r0 == 1 && d == 0) {
        *t = t0;
        return 1;
    }
    const int r1 = ref_box(c, lo1, hi, dep, r0 == 1 ? t0 : before, &t1);
    if (r1 < 0) return -1;
    if (!r0 && !r1) return 0;
    *t = r0 && (!r1 || t0 < t1) ? t0 : t1;
    return 1;
}

int ck_ccd_exact_ref(int kind, const double x0[4][3], const double x1[4][3], const ck_ccd_opts *o, double *toi,
                     int64_t *iters)
{
    ref_ctx c;
    memset(&c, 0, sizeof c);
    c.kind = kind, c.x0 = x0, c.x1 = x1, c.budget = o->max_iter > 0 ? o->max_iter : CK_CCD_MAX_ITER;
    if (iters) *iters = 0;
    if (!setup(o, x0, x1, &c.q)) {
        *toi = 0.0;
        return 1;
    }
    const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    const int depth[3] = {0, 0, 0};
    double t = 1;
    const int r = ref_box(&c, lo, hi, depth, INFINITY, &t);
    if (iters) *iters = c.it;
    *toi = r < 0 ? 0.0 : r ? t : 1.0;
    return r != 0;
}

int ck_ccd_usable(const ck_ccd_opts *o, const double x0[4][3], const double x1[4][3])
{
    double M[3], L;
    return !opts_bad(o) && magnitudes(x0, x1, M, &L);
}
