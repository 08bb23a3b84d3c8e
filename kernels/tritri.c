/*
 * tritri.c — do two closed triangles in space share a point?
 *
 * ck_tritri: Guigue & Devillers, "Fast and robust triangle-triangle overlap
 * test using orientation predicates" (J. Graphics Tools 8(1), 2003).  The
 * only primitive is the orientation [a, b, c, d] = (b - a) x (c - a) . (d - a),
 * the sign of d against the plane through a, b, c (and its 2-d cousin).
 *   1. The signs of T1's vertices against T2's plane: all strictly on one
 *      side -> apart.  The same for T2 against T1's plane.
 *   2. All zero -> coplanar: the 2-d test below.
 *   3. Otherwise permute each triangle circularly so that its first vertex
 *      is alone on its side of the other's plane, swapping the other
 *      triangle's last two vertices when needed so that this side is the
 *      positive one ("canonical form": p1 above P2, q1 and r1 on or below it,
 *      and p2 above P1, q2, r2 on or below).  Each triangle then cuts the
 *      line L = P1 n P2 in a segment, and Guigue & Devillers show that the two
 *      segments overlap iff [p1, q1, p2, q2] <= 0 and [p1, r1, r2, p2] <= 0:
 *      two more orientations, no intersection point is ever constructed.
 * Coplanar case: the triangles are projected on a coordinate plane on which
 * they stay non-degenerate (an affine bijection of their plane, so incidences
 * are kept) and tested in 2-d: they meet iff some pair of edges meets (closed
 * segments, by 2-d orientations, collinear overlaps included) or a vertex of
 * one lies in the other.  (G&D give a decision tree for this case; the edge
 * and containment form is a few more predicates and obviously complete.)
 * Degenerate (zero-area: collinear or repeated vertices, decided exactly by
 * the three projected 2-d orientations) triangles have no plane, so G&D does
 * not apply: such a triangle is the segment between its extreme vertices
 * along the axis of largest spread, and we test segment/triangle (signs of
 * the ends against the plane, then the three orientations [s0, s1, t_i,
 * t_i+1] of the line against the edges, or the 2-d test when the segment lies
 * in the plane) or segment/segment (coplanar by [a, b, c, d] = 0, then 2-d or
 * collinear 1-d overlap).
 *
 * Exact signs.  Only signs of orientations are used, and they are exact for
 * all double inputs.  Each determinant is evaluated in double together with
 * Shewchuk's static error bound ("Adaptive precision floating-point
 * arithmetic and fast robust geometric predicates", 1997): |error| <=
 * (7 + 56u) u * permanent for the 3x3 determinant of differences, (3 + 16u) u
 * * (|l| + |r|) in 2-d, u = 2^-53.  When |det| is within the bound the sign
 * is recomputed exactly: every difference is split exactly into two doubles
 * (Two-Sum), every product of three doubles into four (Two-Product, by fma),
 * and the resulting terms (at most 192) are summed exactly into a
 * nonoverlapping expansion (Grow-Expansion), whose largest component carries
 * the sign.  So the test is exact — touching counts, coplanarity and
 * degeneracy are decided exactly — as long as no product underflows or
 * overflows, which holds for all coordinates of float32 range.  In
 * particular nearly coplanar pairs, where a floating-point G&D can answer
 * anything, are decided correctly.  The exact path runs only for
 * (near-)degenerate configurations.
 *
 * ck_tritri_ref: separating axes.  The triangles are disjoint iff 0 is not in
 * the Minkowski difference D = A - B, i.e. iff some facet-normal of D (or,
 * when D is flat, a normal of its plane or an in-plane normal of one of its
 * edges) separates them.  Facets of D are a face of A plus a vertex of B
 * (normal nA), a vertex plus a face of B (nB), or an edge of each
 * (eA_i x eB_j).  D is flat (dimension 2, normal m) when all six edges lie
 * parallel to one plane: then m is nA, nB or some eA_i x eB_j, and the
 * in-plane normals of D's edges are m x e for e an edge of A or B; so we add
 * nA x e, nB x e for all six e, and (eA_i x eB_j) x eA_i, (eA_i x eB_j) x eB_j.
 * D is a segment (all edges parallel) or a point only for degenerate
 * triangles; then the axes e and e x (w x e) (w = a0 - b0 a point of D) and
 * w itself finish the job.  So 2 + 9 + 12 + 18 + 12 + 1 = 54 axes, each a
 * projection of three points on both sides, zero axes skipped.  Plain double
 * arithmetic: exact on integer inputs whose degree-4 products are exact,
 * otherwise right except within rounding of touching.
 */
#include <float.h>
#include <math.h>

#include "kernels/kernels.h"

static inline void tt_sub(double r[3], const double a[3], const double b[3])
{
    r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}
static inline void tt_cross(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}
static inline double tt_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline int tt_zero(const double a[3]) { return a[0] == 0 && a[1] == 0 && a[2] == 0; }
static inline int tt_samesign(double a, double b) { return (a > 0 && b > 0) || (a < 0 && b < 0); }

/* ---- exact orientation predicates -------------------------------------------- */

#define TT_U (DBL_EPSILON / 2) /* unit roundoff 2^-53 */

static inline void ex_two_sum(double a, double b, double *s, double *e)
{
    const double x = a + b, bv = x - a, av = x - bv;
    *s = x;
    *e = (a - av) + (b - bv);
}
static inline void ex_two_prod(double a, double b, double *p, double *e)
{
    const double x = a * b;
    *p = x;
    *e = fma(a, b, -x);
}
/* e[0..n) += b exactly (Grow-Expansion with zero elimination, in place:
 * e stays nonoverlapping and ordered by increasing magnitude) */
static inline int ex_grow(double *e, int n, double b)
{
    if (b == 0) return n;
    double q = b;
    int h = 0;
    for (int i = 0; i < n; ++i) {
        double qn, hh;
        ex_two_sum(q, e[i], &qn, &hh);
        q = qn;
        if (hh != 0) e[h++] = hh;
    }
    if (q != 0 || h == 0) e[h++] = q;
    return h;
}
/* e += a * b * c exactly */
static inline int ex_add3(double *e, int n, double a, double b, double c)
{
    if (a == 0 || b == 0 || c == 0) return n;
    double p, pe, x, xe;
    ex_two_prod(a, b, &p, &pe);
    ex_two_prod(p, c, &x, &xe);
    n = ex_grow(e, n, xe);
    n = ex_grow(e, n, x);
    if (pe != 0) {
        ex_two_prod(pe, c, &x, &xe);
        n = ex_grow(e, n, xe);
        n = ex_grow(e, n, x);
    }
    return n;
}
/* e += a * b exactly */
static inline int ex_add2(double *e, int n, double a, double b)
{
    if (a == 0 || b == 0) return n;
    double p, pe;
    ex_two_prod(a, b, &p, &pe);
    n = ex_grow(e, n, pe);
    return ex_grow(e, n, p);
}

/* a double with the exact sign of w . (u x v), entries given as exact
 * two-term sums x[i][0] + x[i][1] */
static inline double ex_det3(const double w[3][2], const double u[3][2], const double v[3][2])
{
    /* w . (u x v) = sum over permutations (i j k) of sign * w_i u_j v_k */
    const int P[6][4] = {{0, 1, 2, 1}, {0, 2, 1, -1}, {1, 2, 0, 1}, {1, 0, 2, -1}, {2, 0, 1, 1}, {2, 1, 0, -1}};
    double e[200];
    int n = 0;
    for (int t = 0; t < 6; ++t) {
        const double sg = P[t][3];
        for (int a = 0; a < 2; ++a)
            for (int b = 0; b < 2; ++b)
                for (int c = 0; c < 2; ++c) n = ex_add3(e, n, sg * w[P[t][0]][a], u[P[t][1]][b], v[P[t][2]][c]);
    }
    return n ? e[n - 1] : 0.0;
}

/* [a, b, c, d] = (b - a) x (c - a) . (d - a), exact sign */
static inline double tt_orient3(const double a[3], const double b[3], const double c[3], const double d[3])
{
    const double ux = b[0] - a[0], uy = b[1] - a[1], uz = b[2] - a[2];
    const double vx = c[0] - a[0], vy = c[1] - a[1], vz = c[2] - a[2];
    const double wx = d[0] - a[0], wy = d[1] - a[1], wz = d[2] - a[2];
    const double c0a = uy * vz, c0b = uz * vy, c1a = uz * vx, c1b = ux * vz, c2a = ux * vy, c2b = uy * vx;
    const double det = wx * (c0a - c0b) + wy * (c1a - c1b) + wz * (c2a - c2b);
    const double perm = fabs(wx) * (fabs(c0a) + fabs(c0b)) + fabs(wy) * (fabs(c1a) + fabs(c1b)) +
                        fabs(wz) * (fabs(c2a) + fabs(c2b));
    const double bound = (7.0 + 56.0 * TT_U) * TT_U * perm;
    if (det > bound || -det > bound) return det;
    double U[3][2], V[3][2], W[3][2];
    for (int k = 0; k < 3; ++k) {
        ex_two_sum(b[k], -a[k], &U[k][0], &U[k][1]);
        ex_two_sum(c[k], -a[k], &V[k][0], &V[k][1]);
        ex_two_sum(d[k], -a[k], &W[k][0], &W[k][1]);
    }
    return ex_det3((const double(*)[2])W, (const double(*)[2])U, (const double(*)[2])V);
}

/* The plane through a, b, c, prepared for several orientation queries: the
 * cross product and the per-component magnitudes of the error bound are
 * computed once.  Same value, same bound, same exact fallback as tt_orient3. */
typedef struct {
    const double *a, *b, *c;
    double n[3], m[3];
} tt_plane;

static inline void tt_plane_init(tt_plane *pl, const double a[3], const double b[3], const double c[3])
{
    const double ux = b[0] - a[0], uy = b[1] - a[1], uz = b[2] - a[2];
    const double vx = c[0] - a[0], vy = c[1] - a[1], vz = c[2] - a[2];
    const double c0a = uy * vz, c0b = uz * vy, c1a = uz * vx, c1b = ux * vz, c2a = ux * vy, c2b = uy * vx;
    pl->a = a, pl->b = b, pl->c = c;
    pl->n[0] = c0a - c0b, pl->n[1] = c1a - c1b, pl->n[2] = c2a - c2b;
    pl->m[0] = fabs(c0a) + fabs(c0b), pl->m[1] = fabs(c1a) + fabs(c1b), pl->m[2] = fabs(c2a) + fabs(c2b);
}
static inline double tt_plane_orient(const tt_plane *pl, const double d[3])
{
    const double wx = d[0] - pl->a[0], wy = d[1] - pl->a[1], wz = d[2] - pl->a[2];
    const double det = wx * pl->n[0] + wy * pl->n[1] + wz * pl->n[2];
    const double perm = fabs(wx) * pl->m[0] + fabs(wy) * pl->m[1] + fabs(wz) * pl->m[2];
    const double bound = (7.0 + 56.0 * TT_U) * TT_U * perm;
    if (det > bound || -det > bound) return det;
    return tt_orient3(pl->a, pl->b, pl->c, d);
}

/* (b - a) x (c - a) in 2-d, exact sign */
static inline double tt_orient2(const double a[2], const double b[2], const double c[2])
{
    const double l = (b[0] - a[0]) * (c[1] - a[1]), r = (b[1] - a[1]) * (c[0] - a[0]);
    const double det = l - r, bound = (3.0 + 16.0 * TT_U) * TT_U * (fabs(l) + fabs(r));
    if (det > bound || -det > bound) return det;
    double u0[2], u1[2], v0[2], v1[2], e[40];
    ex_two_sum(b[0], -a[0], &u0[0], &u0[1]);
    ex_two_sum(b[1], -a[1], &u1[0], &u1[1]);
    ex_two_sum(c[0], -a[0], &v0[0], &v0[1]);
    ex_two_sum(c[1], -a[1], &v1[0], &v1[1]);
    int n = 0;
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
            n = ex_add2(e, n, u0[i], v1[j]);
            n = ex_add2(e, n, -u1[i], v0[j]);
        }
    return n ? e[n - 1] : 0.0;
}

/* ---- 2-d tests ------------------------------------------------------------------ */

static inline void tt_proj(double out[2], const double p[3], int drop)
{
    out[0] = p[drop == 0 ? 1 : 0];
    out[1] = p[drop == 2 ? 1 : 2];
}
/* exact orientation of triangle abc projected along axis drop */
static inline double tt_porient(const double a[3], const double b[3], const double c[3], int drop)
{
    double a2[2], b2[2], c2[2];
    tt_proj(a2, a, drop), tt_proj(b2, b, drop), tt_proj(c2, c, drop);
    return tt_orient2(a2, b2, c2);
}
/* an axis along which triangle abc projects to a non-degenerate triangle (the
 * projection is then a bijection of its plane), the largest normal component
 * tried first; -1 when abc is degenerate */
static inline int tt_dropaxis(const double a[3], const double b[3], const double c[3])
{
    double e1[3], e2[3], n[3];
    tt_sub(e1, b, a);
    tt_sub(e2, c, a);
    tt_cross(n, e1, e2);
    const double x = fabs(n[0]), y = fabs(n[1]), z = fabs(n[2]);
    const int k0 = (x >= y && x >= z) ? 0 : (y >= z ? 1 : 2);
    for (int i = 0; i < 3; ++i) {
        const int k = (k0 + i) % 3;
        if (tt_porient(a, b, c, k) != 0) return k;
    }
    return -1;
}

/* closed segments ab and cd in 2-d, any degeneracy */
static inline int tt_seg2(const double a[2], const double b[2], const double c[2], const double d[2])
{
    const double o1 = tt_orient2(a, b, c), o2 = tt_orient2(a, b, d);
    const double o3 = tt_orient2(c, d, a), o4 = tt_orient2(c, d, b);
    if (tt_samesign(o1, o2) || tt_samesign(o3, o4)) return 0;
    if (o1 != 0 || o2 != 0 || o3 != 0 || o4 != 0) return 1;
    /* all on one line (or points): interval overlap on both axes */
    for (int k = 0; k < 2; ++k) {
        const double l1 = fmin(a[k], b[k]), h1 = fmax(a[k], b[k]);
        const double l2 = fmin(c[k], d[k]), h2 = fmax(c[k], d[k]);
        if (h1 < l2 || h2 < l1) return 0;
    }
    return 1;
}

/* x in the closed non-degenerate 2-d triangle abc */
static inline int tt_in2(const double x[2], const double a[2], const double b[2], const double c[2])
{
    const double o1 = tt_orient2(a, b, x), o2 = tt_orient2(b, c, x), o3 = tt_orient2(c, a, x);
    return (o1 >= 0 && o2 >= 0 && o3 >= 0) || (o1 <= 0 && o2 <= 0 && o3 <= 0);
}

/* coplanar triangles, both non-degenerate */
static inline int tt_coplanar(const double *const A[3], const double *const B[3])
{
    int drop = tt_dropaxis(A[0], A[1], A[2]);
    if (drop < 0) drop = 0; /* cannot happen */
    double a[3][2], b[3][2];
    for (int i = 0; i < 3; ++i) tt_proj(a[i], A[i], drop), tt_proj(b[i], B[i], drop);
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (tt_seg2(a[i], a[(i + 1) % 3], b[j], b[(j + 1) % 3])) return 1;
    return tt_in2(a[0], b[0], b[1], b[2]) || tt_in2(b[0], a[0], a[1], a[2]);
}

/* ---- degenerate triangles ------------------------------------------------------ */

/* exactly zero area? */
static inline int tt_degenerate(const double *const T[3])
{
    return tt_porient(T[0], T[1], T[2], 0) == 0 && tt_porient(T[0], T[1], T[2], 1) == 0 &&
           tt_porient(T[0], T[1], T[2], 2) == 0;
}

/* the extreme vertices of a collinear triangle along the axis of largest
 * spread: the segment it is (exact comparisons) */
static inline void tt_ends(const double *const T[3], const double **s0, const double **s1)
{
    int k = 0;
    double best = -1;
    for (int ax = 0; ax < 3; ++ax) {
        const double lo = fmin(T[0][ax], fmin(T[1][ax], T[2][ax])), hi = fmax(T[0][ax], fmax(T[1][ax], T[2][ax]));
        if (hi - lo > best) best = hi - lo, k = ax;
    }
    int imin = 0, imax = 0;
    for (int i = 1; i < 3; ++i) {
        if (T[i][k] < T[imin][k]) imin = i;
        if (T[i][k] > T[imax][k]) imax = i;
    }
    *s0 = T[imin], *s1 = T[imax];
}

/* closed segment s0 s1 against the non-degenerate triangle T */
static inline int tt_segtri(const double s0[3], const double s1[3], const double *const T[3])
{
    const double d0 = tt_orient3(T[0], T[1], T[2], s0), d1 = tt_orient3(T[0], T[1], T[2], s1);
    if (tt_samesign(d0, d1)) return 0;
    if (d0 == 0 && d1 == 0) { /* in the plane: 2-d */
        int drop = tt_dropaxis(T[0], T[1], T[2]);
        if (drop < 0) drop = 0; /* cannot happen */
        double a[2], b[2], t[3][2];
        tt_proj(a, s0, drop), tt_proj(b, s1, drop);
        for (int i = 0; i < 3; ++i) tt_proj(t[i], T[i], drop);
        if (tt_in2(a, t[0], t[1], t[2])) return 1;
        for (int i = 0; i < 3; ++i)
            if (tt_seg2(a, b, t[i], t[(i + 1) % 3])) return 1;
        return 0;
    }
    /* the segment reaches the plane: does its line pass through T? */
    const double o1 = tt_orient3(s0, s1, T[0], T[1]), o2 = tt_orient3(s0, s1, T[1], T[2]),
                 o3 = tt_orient3(s0, s1, T[2], T[0]);
    return (o1 >= 0 && o2 >= 0 && o3 >= 0) || (o1 <= 0 && o2 <= 0 && o3 <= 0);
}

/* closed segments ab and cd in space, any degeneracy */
static inline int tt_segseg(const double a[3], const double b[3], const double c[3], const double d[3])
{
    if (tt_orient3(a, b, c, d) != 0) return 0;
    /* a projection that is a bijection of a plane containing all four points,
     * if they span one: some triple projects to a non-degenerate triangle */
    const double *pts[4] = {a, b, c, d};
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < 4; ++i)
            if (tt_porient(pts[(i + 1) % 4], pts[(i + 2) % 4], pts[(i + 3) % 4], k) != 0) {
                double a2[2], b2[2], c2[2], d2[2];
                tt_proj(a2, a, k), tt_proj(b2, b, k), tt_proj(c2, c, k), tt_proj(d2, d, k);
                return tt_seg2(a2, b2, c2, d2);
            }
    /* all four points on one line: interval overlap on every axis */
    for (int k = 0; k < 3; ++k) {
        const double l1 = fmin(a[k], b[k]), h1 = fmax(a[k], b[k]);
        const double l2 = fmin(c[k], d[k]), h2 = fmax(c[k], d[k]);
        if (h1 < l2 || h2 < l1) return 0;
    }
    return 1;
}

/* ---- Guigue–Devillers ------------------------------------------------------ */

/* both in canonical form: the two segments on L overlap iff ... */
static inline int gd_minmax(const double p1[3], const double q1[3], const double r1[3], const double p2[3],
                            const double q2[3], const double r2[3])
{
    if (tt_orient3(p1, q1, p2, q2) > 0) return 0;
    if (tt_orient3(p1, r1, r2, p2) > 0) return 0;
    return 1;
}

/* T1 canonical; bring T2 to canonical form (dp2.. are T2's signs against P1;
 * swapping q1, r1 flips the sign of P1) */
static inline int gd_3d(const double p1[3], const double q1[3], const double r1[3], const double p2[3],
                        const double q2[3], const double r2[3], double dp2, double dq2, double dr2,
                        const double *const A[3], const double *const B[3])
{
    if (dp2 > 0) {
        if (dq2 > 0) return gd_minmax(p1, r1, q1, r2, p2, q2);
        if (dr2 > 0) return gd_minmax(p1, r1, q1, q2, r2, p2);
        return gd_minmax(p1, q1, r1, p2, q2, r2);
    }
    if (dp2 < 0) {
        if (dq2 < 0) return gd_minmax(p1, q1, r1, r2, p2, q2);
        if (dr2 < 0) return gd_minmax(p1, q1, r1, q2, r2, p2);
        return gd_minmax(p1, r1, q1, p2, q2, r2);
    }
    if (dq2 < 0) {
        if (dr2 >= 0) return gd_minmax(p1, r1, q1, q2, r2, p2);
        return gd_minmax(p1, q1, r1, p2, q2, r2);
    }
    if (dq2 > 0) {
        if (dr2 > 0) return gd_minmax(p1, r1, q1, p2, q2, r2);
        return gd_minmax(p1, q1, r1, q2, r2, p2);
    }
    if (dr2 > 0) return gd_minmax(p1, q1, r1, r2, p2, q2);
    if (dr2 < 0) return gd_minmax(p1, r1, q1, r2, p2, q2);
    return tt_coplanar(A, B); /* unreachable with exact signs */
}

int ck_tritri(const double p1[3], const double q1[3], const double r1[3], const double p2[3], const double q2[3],
              const double r2[3])
{
    const double *A[3] = {p1, q1, r1}, *B[3] = {p2, q2, r2};
    /* 1. T1 against the plane of T2 (all zero when T2 is degenerate) */
    tt_plane pl;
    tt_plane_init(&pl, p2, q2, r2);
    const double dp1 = tt_plane_orient(&pl, p1), dq1 = tt_plane_orient(&pl, q1), dr1 = tt_plane_orient(&pl, r1);
    if (tt_samesign(dp1, dq1) && tt_samesign(dp1, dr1)) return 0;
    /* T2 against the plane of T1 */
    tt_plane_init(&pl, p1, q1, r1);
    const double dp2 = tt_plane_orient(&pl, p2), dq2 = tt_plane_orient(&pl, q2), dr2 = tt_plane_orient(&pl, r2);
    if (tt_samesign(dp2, dq2) && tt_samesign(dp2, dr2)) return 0;
    /* degenerate triangles: segments (or points) */
    const int deg1 = dp2 == 0 && dq2 == 0 && dr2 == 0 && tt_degenerate(A);
    const int deg2 = dp1 == 0 && dq1 == 0 && dr1 == 0 && tt_degenerate(B);
    if (deg1 || deg2) {
        const double *s0 = 0, *s1 = 0, *t0 = 0, *t1 = 0;
        if (deg1 && deg2) {
            tt_ends(A, &s0, &s1);
            tt_ends(B, &t0, &t1);
            return tt_segseg(s0, s1, t0, t1);
        }
        if (deg1) {
            tt_ends(A, &s0, &s1);
            return tt_segtri(s0, s1, B);
        }
        tt_ends(B, &s0, &s1);
        return tt_segtri(s0, s1, A);
    }
    /* 3. canonical form of T1 (swapping q2, r2 flips the sign of P2) */
    if (dp1 > 0) {
        if (dq1 > 0) return gd_3d(r1, p1, q1, p2, r2, q2, dp2, dr2, dq2, A, B);
        if (dr1 > 0) return gd_3d(q1, r1, p1, p2, r2, q2, dp2, dr2, dq2, A, B);
        return gd_3d(p1, q1, r1, p2, q2, r2, dp2, dq2, dr2, A, B);
    }
    if (dp1 < 0) {
        if (dq1 < 0) return gd_3d(r1, p1, q1, p2, q2, r2, dp2, dq2, dr2, A, B);
        if (dr1 < 0) return gd_3d(q1, r1, p1, p2, q2, r2, dp2, dq2, dr2, A, B);
        return gd_3d(p1, q1, r1, p2, r2, q2, dp2, dr2, dq2, A, B);
    }
    if (dq1 < 0) {
        if (dr1 >= 0) return gd_3d(q1, r1, p1, p2, r2, q2, dp2, dr2, dq2, A, B);
        return gd_3d(p1, q1, r1, p2, q2, r2, dp2, dq2, dr2, A, B);
    }
    if (dq1 > 0) {
        if (dr1 > 0) return gd_3d(p1, q1, r1, p2, r2, q2, dp2, dr2, dq2, A, B);
        return gd_3d(q1, r1, p1, p2, q2, r2, dp2, dq2, dr2, A, B);
    }
    if (dr1 > 0) return gd_3d(r1, p1, q1, p2, q2, r2, dp2, dq2, dr2, A, B);
    if (dr1 < 0) return gd_3d(r1, p1, q1, p2, r2, q2, dp2, dr2, dq2, A, B);
    /* 2. coplanar */
    return tt_coplanar(A, B);
}

/* ---- reference: separating axes ------------------------------------------------ */

static inline int tt_sep(const double d[3], const double *const A[3], const double *const B[3])
{
    if (tt_zero(d)) return 0;
    const double a0 = tt_dot(d, A[0]), a1 = tt_dot(d, A[1]), a2 = tt_dot(d, A[2]);
    const double b0 = tt_dot(d, B[0]), b1 = tt_dot(d, B[1]), b2 = tt_dot(d, B[2]);
    const double amin = fmin(a0, fmin(a1, a2)), amax = fmax(a0, fmax(a1, a2));
    const double bmin = fmin(b0, fmin(b1, b2)), bmax = fmax(b0, fmax(b1, b2));
    return amax < bmin || bmax < amin;
}

int ck_tritri_ref(const double a0[3], const double a1[3], const double a2[3], const double b0[3], const double b1[3],
                  const double b2[3])
{
    const double *A[3] = {a0, a1, a2}, *B[3] = {b0, b1, b2};
    double E[6][3]; /* edges of A, then of B */
    for (int i = 0; i < 3; ++i) {
        tt_sub(E[i], A[(i + 1) % 3], A[i]);
        tt_sub(E[3 + i], B[(i + 1) % 3], B[i]);
    }
    double nA[3], nB[3], d[3], c[3], t[3];
    tt_cross(nA, E[0], E[1]);
    tt_cross(nB, E[3], E[4]);
    if (tt_sep(nA, A, B) || tt_sep(nB, A, B)) return 0;
    for (int i = 0; i < 3; ++i)
        for (int j = 3; j < 6; ++j) {
            tt_cross(c, E[i], E[j]);
            if (tt_sep(c, A, B)) return 0;
            tt_cross(d, c, E[i]);
            if (tt_sep(d, A, B)) return 0;
            tt_cross(d, c, E[j]);
            if (tt_sep(d, A, B)) return 0;
        }
    double w[3];
    tt_sub(w, a0, b0);
    for (int k = 0; k < 6; ++k) {
        tt_cross(d, nA, E[k]);
        if (tt_sep(d, A, B)) return 0;
        tt_cross(d, nB, E[k]);
        if (tt_sep(d, A, B)) return 0;
        if (tt_sep(E[k], A, B)) return 0;
        tt_cross(t, w, E[k]);
        tt_cross(d, E[k], t);
        if (tt_sep(d, A, B)) return 0;
    }
    return !tt_sep(w, A, B);
}
