/*
 * hull.c — do the convex hulls of two small point sets meet?  (swept-space test)
 *
 * In swept mode a moving triangle is replaced by the convex hull of its six
 * vertex positions at the two instants (a moving vertex by a segment, a moving
 * edge by four points).  Under linear motion every point the primitive sweeps
 * lies in that hull, so two primitives that touch at some instant have hulls
 * that meet: the test is conservative by construction, and it must stay
 * conservative in floating point.  That is the contract of this file:
 *
 *   A function here returns 0 ("apart") ONLY after it has verified a
 *   certificate: a direction d with   min_{p in P} d.p - max_{q in Q} d.q > margin
 *   (or the same with P and Q swapped), evaluated in double, where margin
 *   bounds every rounding error of that evaluation plus the tolerance.  Any
 *   doubt (no certificate found, NaN, overflow, bad counts) returns 1.
 *
 * Certificate margin (derivation).  All points are first translated by
 * c = p[0]:  x' = fl(x - c), per coordinate |x' - (x - c)| <= u|x - c|, with
 * u = DBL_EPSILON/2 the unit roundoff.  Let M = max |x'_i| over all points
 * and coordinates, and l1 = |d_0| + |d_1| + |d_2|.  The computed projection
 * fl(d.x') = d.x'(1 + ...) obeys |fl(d.x') - d.x'| <= gamma_3 sum|d_i||x'_i|
 * <= gamma_3 l1 M (gamma_3 = 3u/(1-3u), Higham, Accuracy and Stability,
 * Thm 3.1), and |d.x' - d.(x - c)| <= u l1 M/(1-u).  So each computed
 * projection is within (gamma_3 + u/(1-u)) l1 M ~= 4u l1 M of the exact
 * projection of the translated point, and the gap between the two sets is
 * underestimated by at most 8u l1 M = 4 DBL_EPSILON l1 M.  The computed gap
 * g = fl(a - b) is at most (a - b)(1 + u).  We require
 *     g > margin = tol |d|_2 (1 + 2^-40) + 5 DBL_EPSILON l1 M + DBL_MIN
 * (|d|_2 computed by sqrt, relative error < 3u): the extra DBL_EPSILON l1 M and
 * the 2^-40 absorb the relative rounding of computing g, l1, |d|_2 and the
 * margin itself; DBL_MIN absorbs any underflow.  Then the exact gap of the
 * exact sets along d exceeds tol |d|_2, i.e. their Euclidean distance exceeds
 * tol.  Projections cannot overflow while l1 M <= 1e300, which is checked.
 * For the box test the box is grown by tol on every side ([lo-tol, hi+tol]),
 * whose support grows by tol |d|_1, so there the tol term is tol l1 (1 + 2^-40).
 *
 * ck_hulls_meet — first a boolean GJK (hull_bool.c), which decides most pairs
 * and answers only what it proves; for the rest, the exact AABB reject, then
 * GJK (Gilbert, Johnson & Keerthi 1988) on the Minkowski
 * difference D = conv(P) - conv(Q) = conv{p - q}, with the support mapping
 * s_D(-v) = argmin_p v.p - argmax_q v.q evaluated on the point lists, and the
 * closest-point sub-algorithm done by Voronoi-region case analysis on the
 * current simplex (segment, triangle, tetrahedron; Ericson, Real-Time
 * Collision Detection, 5.1.5 and 5.1.6) instead of Johnson's determinants.
 * For the current estimate v, the support evaluation already yields the gap
 * min_p v.p - max_q v.q = v.w, which is both GJK's lower bound and the
 * certificate above: as soon as it beats the margin we return 0 ("boolean
 * GJK").  If GJK reaches the origin, stalls, or converges to a distance too
 * small to certify, a few cheap candidate axes (the AABB axes, the normals of
 * the triangles the lists stand for) are tried, and otherwise 1 is returned.
 *
 * Within tol.  With tol > 0 (swept mode's arc margins) many sets are apart
 * but closer than tol: GJK then converges to their distance without a
 * certificate and would end in the complete axis set.  Instead it stops as
 * soon as its estimate v, a point of D (a convex combination of support
 * differences, each coordinate off by a few u 2M at most), has
 * |v| <= tol - 64 DBL_EPSILON M: then the distance is below tol and the
 * answer "meet" is the reference's too.  With tol = 0 nothing changes.
 *
 * ck_hulls_meet_ref — brute separating-axis test over an axis set that is
 * complete for polytopes, degenerate ones included.  The sets are disjoint iff
 * 0 is not in the polytope D = conv{p - q}.  Cases by the dimension of D:
 *   dim 3: 0 lies outside some facet of D; a facet of D is a sum of faces
 *     F_P + F_Q with dim F_P + dim F_Q >= 2, so its normal is either the
 *     normal of a facet of conv P (spanned by three points of P), of conv Q,
 *     or e_P x e_Q with e_P = p_i - p_j, e_Q = q_k - q_l.      -> axes (a), (b)
 *   dim 2 (D in a plane with normal m): 0 is off the plane (axis m) or outside
 *     an edge of D inside the plane, whose normal is m x e with e an edge of
 *     conv P or conv Q.  m itself is among (a)/(b): if P spans a plane it is a
 *     triple normal of P (likewise Q), else it is e_P x e_Q.  Among the
 *     candidates (a)/(b) the normal of a flat D is the one along which D has
 *     zero width, so we take the flattest candidate m* and add m* x e for every
 *     pair-difference e of P and of Q.                            -> axes (c)
 *   dim 1 (D on a line with direction u, every non-zero e is parallel to u):
 *     0 is off the line (axis u x (w x u) for any w in D, here
 *     w = p_0 - q_0) or beyond an end (axis u).  We take u = the longest e.
 *                                                                 -> axes (d)
 *   dim 0 (P and Q single points): axis w.                         -> axis (e)
 * Besides, the coordinate axes are tried first with exact comparisons   (f):
 * projecting on them involves no rounding, so they certify gaps of any size
 * (data with coordinates 1e-17 off a plane happen, e.g. in the CCD benchmark).
 * In exact arithmetic every case is covered, so the reference says 0 exactly
 * when the hulls are disjoint (up to the margin); in floating point each 0 is
 * still certified as above, so it is sound whatever rounding does to the axes.
 *
 * ck_hull_box — conv(P) against the box [lo - tol, hi + tol]: exact AABB
 * reject, accept when a point of P lies in the grown box, then the same
 * boolean GJK with the box's support mapping (the corner picked by the signs
 * of the direction), then the normals of the triangles P stands for.
 *
 * Cost: a separated 6 x 6 pair usually certifies in one or two support
 * evaluations (12 dot products each); touching pairs run GJK to the origin.
 */
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "kernels/kernels.h"
#include "kernels/hull_inl.h"

#define GJK_MAXIT 48

/* ---- GJK ----------------------------------------------------------------- */

typedef struct {
    double w[3]; /* p - q */
    int id;      /* ip * 16 + iq: detects a support point seen again */
} h_sv;

/* Closest point to the origin on segment (a, b); keeps the feature. */
static inline void h_seg_closest(const h_sv *a, const h_sv *b, h_sv *s, int *n, double v[3])
{
    double ab[3];
    h_sub(ab, b->w, a->w);
    const double t = -h_dot(a->w, ab), den = h_dot(ab, ab);
    if (!(t > 0) || !(den > 0)) {
        s[0] = *a;
        *n = 1;
        v[0] = a->w[0], v[1] = a->w[1], v[2] = a->w[2];
    } else if (t >= den) {
        s[0] = *b;
        *n = 1;
        v[0] = b->w[0], v[1] = b->w[1], v[2] = b->w[2];
    } else {
        h_axpy(v, a->w, t / den, ab);
        s[0] = *a;
        s[1] = *b;
        *n = 2;
    }
}

/* Closest point to the origin on triangle (a, b, c) by Voronoi regions
 * (Ericson 5.1.5); degenerate triangles fall back to their three edges. */
static inline void h_tri_closest(const h_sv *a, const h_sv *b, const h_sv *c, h_sv *s, int *n, double v[3])
{
    double ab[3], ac[3];
    h_sub(ab, b->w, a->w);
    h_sub(ac, c->w, a->w);
    const double d1 = -h_dot(ab, a->w), d2 = -h_dot(ac, a->w);
    if (d1 <= 0 && d2 <= 0) {
        s[0] = *a, *n = 1;
        v[0] = a->w[0], v[1] = a->w[1], v[2] = a->w[2];
        return;
    }
    const double d3 = -h_dot(ab, b->w), d4 = -h_dot(ac, b->w);
    if (d3 >= 0 && d4 <= d3) {
        s[0] = *b, *n = 1;
        v[0] = b->w[0], v[1] = b->w[1], v[2] = b->w[2];
        return;
    }
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0 && d1 - d3 > 0) {
        h_axpy(v, a->w, d1 / (d1 - d3), ab);
        s[0] = *a, s[1] = *b, *n = 2;
        return;
    }
    const double d5 = -h_dot(ab, c->w), d6 = -h_dot(ac, c->w);
    if (d6 >= 0 && d5 <= d6) {
        s[0] = *c, *n = 1;
        v[0] = c->w[0], v[1] = c->w[1], v[2] = c->w[2];
        return;
    }
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0 && d2 - d6 > 0) {
        h_axpy(v, a->w, d2 / (d2 - d6), ac);
        s[0] = *a, s[1] = *c, *n = 2;
        return;
    }
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0 && (d4 - d3) + (d5 - d6) > 0) {
        double bc[3];
        h_sub(bc, c->w, b->w);
        h_axpy(v, b->w, (d4 - d3) / ((d4 - d3) + (d5 - d6)), bc);
        s[0] = *b, s[1] = *c, *n = 2;
        return;
    }
    const double den = va + vb + vc;
    if (den > 0 && va >= 0 && vb >= 0 && vc >= 0) {
        const double tb = vb / den, tc = vc / den;
        v[0] = a->w[0] + tb * ab[0] + tc * ac[0];
        v[1] = a->w[1] + tb * ab[1] + tc * ac[1];
        v[2] = a->w[2] + tb * ab[2] + tc * ac[2];
        s[0] = *a, s[1] = *b, s[2] = *c, *n = 3;
        return;
    }
    /* degenerate (or numerically inconsistent): best of the three edges */
    h_sv ts[2];
    int tn;
    double tv[3];
    h_seg_closest(a, b, s, n, v);
    double best = h_dot(v, v);
    h_seg_closest(b, c, ts, &tn, tv);
    if (h_dot(tv, tv) < best) {
        best = h_dot(tv, tv);
        s[0] = ts[0], s[1] = ts[1], *n = tn;
        v[0] = tv[0], v[1] = tv[1], v[2] = tv[2];
    }
    h_seg_closest(c, a, ts, &tn, tv);
    if (h_dot(tv, tv) < best) {
        s[0] = ts[0], s[1] = ts[1], *n = tn;
        v[0] = tv[0], v[1] = tv[1], v[2] = tv[2];
    }
}

/* Closest point to the origin on tetrahedron s[0..3] (Ericson 5.1.6): the
 * best over the faces whose plane separates the origin from the opposite
 * vertex (all faces when the tetrahedron is flat).  Returns 1 when the origin
 * is inside (no such face). */
static inline int h_tet_closest(h_sv *s, int *n, double v[3])
{
    const int F[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};
    h_sv in[4] = {s[0], s[1], s[2], s[3]};
    double best = INFINITY;
    int any = 0;
    for (int f = 0; f < 4; ++f) {
        const h_sv *a = &in[F[f][0]], *b = &in[F[f][1]], *c = &in[F[f][2]], *d = &in[F[f][3]];
        double ab[3], ac[3], ad[3], nrm[3];
        h_sub(ab, b->w, a->w);
        h_sub(ac, c->w, a->w);
        h_sub(ad, d->w, a->w);
        h_cross(nrm, ab, ac);
        const double so = -h_dot(nrm, a->w), sd = h_dot(nrm, ad);
        if (!((so > 0 && sd < 0) || (so < 0 && sd > 0) || sd == 0)) continue;
        any = 1;
        h_sv ts[3];
        int tn;
        double tv[3];
        h_tri_closest(a, b, c, ts, &tn, tv);
        const double dd = h_dot(tv, tv);
        if (dd < best) {
            best = dd;
            for (int i = 0; i < tn; ++i) s[i] = ts[i];
            *n = tn;
            v[0] = tv[0], v[1] = tv[1], v[2] = tv[2];
        }
    }
    return !any;
}

/* Boolean GJK on D = conv(P) - conv(Q) (Q a point list, or the box [blo, bhi]
 * when nq == 0), on translated coordinates with bound M, starting from the
 * point v0 of D (support pair id v0id, or -1).  Returns 1 when a
 * separating direction was certified, 0 when GJK found the origin in D, and 2
 * when it stalled without deciding (sets closer than the iteration can
 * resolve).  ck_hulls_meet then runs the complete axis set of the reference,
 * so that the fast test certifies a separation whenever the reference does:
 * the pipeline's exact culling (ck_hull_box) relies on that to agree with the
 * brute-force oracle.  ck_hull_box answers 1 (meets) on a stall. */
static inline int h_gjk(const double (*P)[3], int np, const double (*Q)[3], int nq, const double blo[3],
                        const double bhi[3], const double v0[3], int v0id, double M, double tol)
{
    const int box = nq == 0;
    /* the simplex starts as the point v0 of D itself, so that |v| decreases */
    double v[3] = {v0[0], v0[1], v0[2]};
    h_sv s[4];
    s[0].w[0] = v0[0], s[0].w[1] = v0[1], s[0].w[2] = v0[2];
    s[0].id = v0id;
    int n = 1;
    double vv = h_dot(v, v);
    /* tol > 0: v is a point of D, so |v| bounds the distance from above;
     * once it is below tol by far more than its rounding, the sets are
     * within tol: meet (see "Within tol" above) */
    const double acc = tol > 0 ? tol - 64.0 * DBL_EPSILON * M : -1;
    for (int it = 0; it < GJK_MAXIT; ++it) {
        if (!(vv > 0)) return 0; /* origin reached (or NaN) */
        if (acc > 0 && vv <= acc * acc) return 0;
        /* support of D in direction -v, and the certificate for v */
        int ip = 0, iq = 0;
        double minp = h_dot(v, P[0]);
        for (int i = 1; i < np; ++i) {
            const double t = h_dot(v, P[i]);
            if (t < minp) minp = t, ip = i;
        }
        double maxq, qp[3];
        if (box) {
            for (int k = 0; k < 3; ++k) {
                qp[k] = v[k] > 0 ? bhi[k] : blo[k];
                iq |= (v[k] > 0) << k;
            }
            maxq = h_dot(v, qp);
        } else {
            maxq = h_dot(v, Q[0]);
            for (int i = 1; i < nq; ++i) {
                const double t = h_dot(v, Q[i]);
                if (t > maxq) maxq = t, iq = i;
            }
            qp[0] = Q[iq][0], qp[1] = Q[iq][1], qp[2] = Q[iq][2];
        }
        const double gap = minp - maxq;
        if (gap > 0) { /* the margin is positive: no certificate otherwise (and no sqrt) */
            const double marg = h_margin(v, M, tol, !box);
            if (marg >= 0 && gap > marg) return 1;
        }
        /* no progress possible: v.w is already (almost) |v|^2 */
        if (vv - gap <= 1e-13 * vv) return 2;
        const int id = ip * 16 + iq;
        for (int i = 0; i < n; ++i)
            if (s[i].id == id) return 2;
        h_sub(s[n].w, P[ip], qp);
        s[n].id = id;
        ++n;
        double nv[3];
        if (n == 2) {
            h_sv a = s[0], b = s[1];
            h_seg_closest(&a, &b, s, &n, nv);
        } else if (n == 3) {
            h_sv a = s[0], b = s[1], c = s[2];
            h_tri_closest(&a, &b, &c, s, &n, nv);
        } else {
            if (h_tet_closest(s, &n, nv)) return 0; /* origin inside */
        }
        const double nvv = h_dot(nv, nv);
        if (!(nvv < vv)) return 2; /* stalled */
        v[0] = nv[0], v[1] = nv[1], v[2] = nv[2];
        vv = nvv;
    }
    return 2;
}

/* Cheap axes for when GJK gives up: the normals of the triangles the list
 * stands for (first three and last three points), for both lists. */
static inline int h_normal_axes(const double (*a)[3], int na, double out[][3])
{
    int k = 0;
    if (na >= 3) {
        double e1[3], e2[3];
        h_sub(e1, a[1], a[0]);
        h_sub(e2, a[2], a[0]);
        h_cross(out[k++], e1, e2);
        if (na >= 6) {
            h_sub(e1, a[na - 2], a[na - 3]);
            h_sub(e2, a[na - 1], a[na - 3]);
            h_cross(out[k++], e1, e2);
        }
    }
    return k;
}

/* One axis of the reference: 1 when it separates; otherwise remember it as
 * the flattest candidate so far when D is thinnest along it. */
static inline int h_ref_axis(const double d[3], const double (*P)[3], int np, const double (*Q)[3], int nq,
                             double M, double tol, double *mwidth, double mstar[3])
{
    if (h_separates(d, P, np, Q, nq, M, tol)) return 1;
    const double dd = h_dot(d, d);
    if (dd > 0) {
        double a0, a1, b0, b1;
        h_proj(d, P, np, &a0, &a1);
        h_proj(d, Q, nq, &b0, &b1);
        const double w = ((a1 - a0) + (b1 - b0)) / sqrt(dd);
        if (w < *mwidth) *mwidth = w, mstar[0] = d[0], mstar[1] = d[1], mstar[2] = d[2];
    }
    return 0;
}

/* ---- public functions ----------------------------------------------------- */

int ck_hulls_meet(const double (*p)[3], int np, const double (*q)[3], int nq, double tol)
{
    if (np < 1 || np > HULL_MAXN || nq < 1 || nq > HULL_MAXN || !(tol >= 0)) return 1;
    double P[HULL_MAXN][3], Q[HULL_MAXN][3];
    double M = h_shift(p, np, p[0], P, 0.0);
    if (M >= 0) M = h_shift(q, nq, p[0], Q, M);
    /* the boolean GJK first (hull_bool.c): most pairs that get here meet.
     * Its answers are facts (a certificate, or the origin robustly inside),
     * so they need no exact AABB test before them; the distance GJK does */
    int last = 0;
    const int b = M >= 0 ? ck_hulls_bool((const double(*)[3])P, np, (const double(*)[3])Q, nq, M, tol, &last) : -1;
    if (b >= 0) return b;
    /* exact AABB reject on the untranslated coordinates (gaps of any size,
     * such as coordinates 1e-17 off a plane, which GJK could miss) */
    if (h_aabb_apart(p, np, q, nq, tol)) return 0;
    if (!(M >= 0)) return 1;
    /* from the boolean GJK's last support point: the pairs left here are
     * apart along its direction but too thinly to certify (within tol) */
    double v0[3];
    h_sub(v0, P[last >> 4], Q[last & 15]);
    const int g = h_gjk((const double(*)[3])P, np, (const double(*)[3])Q, nq, NULL, NULL, v0, last, M, tol);
    if (g == 1) return 0;
    if (g == 0) return 1; /* the origin is in the Minkowski difference: the hulls meet */
    /* GJK stalled near the boundary: the cheap axes first, then the complete axis set */
    double ax[4][3];
    int na = h_normal_axes((const double(*)[3])P, np, ax);
    na += h_normal_axes((const double(*)[3])Q, nq, ax + na);
    for (int i = 0; i < na; ++i)
        if (h_separates(ax[i], (const double(*)[3])P, np, (const double(*)[3])Q, nq, M, tol)) return 0;
    return ck_hulls_meet_ref(p, np, q, nq, tol);
}

/* ck_hulls_meet on two rows of 18 doubles: the boolean GJK straight from the
 * rows (hull_bool.c), and ck_hulls_meet on the rows for the pairs it
 * leaves. */
static int rows_meet(const double *ra, const double *rb, double tol, int b)
{
    if (b >= 0) return b;
    return ck_hulls_meet((const double(*)[3])ra, 6, (const double(*)[3])rb, 6, tol);
}

int ck_hulls_meet_rows(const double *ra, const double *rb, double tol)
{
    return rows_meet(ra, rb, tol, ck_hulls_bool_rows(ra, rb, tol));
}

int ck_hulls_meet_rows_plain(const double *ra, const double *rb, double tol)
{
    return rows_meet(ra, rb, tol, ck_hulls_bool_rows_plain(ra, rb, tol));
}

void ck_hulls_meet_rows2(const double *const ra[2], const double *const rb[2], const double tol[2], int meet[2])
{
    int b[2];
    ck_hulls_bool_rows2(ra, rb, tol, b);
    for (int t = 0; t < 2; ++t) meet[t] = rows_meet(ra[t], rb[t], tol[t], b[t]);
}

int ck_hulls_meet_ref(const double (*p)[3], int np, const double (*q)[3], int nq, double tol)
{
    if (np < 1 || np > HULL_MAXN || nq < 1 || nq > HULL_MAXN || !(tol >= 0)) return 1;
    /* (f) the coordinate axes, exactly */
    if (h_aabb_apart(p, np, q, nq, tol)) return 0;
    double P[HULL_MAXN][3], Q[HULL_MAXN][3];
    double M = h_shift(p, np, p[0], P, 0.0);
    if (M >= 0) M = h_shift(q, nq, p[0], Q, M);
    if (!(M >= 0)) return 1;
    const double(*cP)[3] = (const double(*)[3])P;
    const double(*cQ)[3] = (const double(*)[3])Q;

    /* pair differences of each list */
    double E[2 * HULL_MAXN * (HULL_MAXN - 1) / 2][3];
    int ne = 0, nep;
    for (int i = 0; i < np; ++i)
        for (int j = i + 1; j < np; ++j) h_sub(E[ne++], P[j], P[i]);
    nep = ne;
    for (int i = 0; i < nq; ++i)
        for (int j = i + 1; j < nq; ++j) h_sub(E[ne++], Q[j], Q[i]);

    /* (a) triple normals of P and of Q, (b) e_P x e_Q; track the flattest */
    double mstar[3] = {0, 0, 0}, mwidth = INFINITY;
    for (int pass = 0; pass < 2; ++pass) {
        const double(*A)[3] = pass ? cQ : cP;
        const int na = pass ? nq : np;
        for (int i = 0; i < na; ++i)
            for (int j = i + 1; j < na; ++j)
                for (int k = j + 1; k < na; ++k) {
                    double e1[3], e2[3], d[3];
                    h_sub(e1, A[j], A[i]);
                    h_sub(e2, A[k], A[i]);
                    h_cross(d, e1, e2);
                    if (h_ref_axis(d, cP, np, cQ, nq, M, tol, &mwidth, mstar)) return 0;
                }
    }
    for (int i = 0; i < nep; ++i)
        for (int j = nep; j < ne; ++j) {
            double d[3];
            h_cross(d, E[i], E[j]);
            if (h_ref_axis(d, cP, np, cQ, nq, M, tol, &mwidth, mstar)) return 0;
        }
    /* (c) in-plane normals of the flattest candidate */
    if (mwidth < INFINITY)
        for (int i = 0; i < ne; ++i) {
            double d[3];
            h_cross(d, mstar, E[i]);
            if (h_separates(d, cP, np, cQ, nq, M, tol)) return 0;
        }
    /* (d) the line case: the longest pair difference u, and u x (w x u) */
    double w[3];
    h_sub(w, P[0], Q[0]);
    int il = -1;
    double ll = 0;
    for (int i = 0; i < ne; ++i) {
        const double t = h_dot(E[i], E[i]);
        if (t > ll) ll = t, il = i;
    }
    if (il >= 0) {
        double t[3], d[3];
        if (h_separates(E[il], cP, np, cQ, nq, M, tol)) return 0;
        h_cross(t, w, E[il]);
        h_cross(d, E[il], t);
        if (h_separates(d, cP, np, cQ, nq, M, tol)) return 0;
    }
    /* (e) the point case */
    if (h_separates(w, cP, np, cQ, nq, M, tol)) return 0;
    return 1;
}

int ck_hull_box(const double (*p)[3], int np, const double lo[3], const double hi[3], double tol)
{
    if (np < 1 || np > HULL_MAXN || !(tol >= 0)) return 1;
    const double ttol = tol * (1.0 + 0x1p-40);
    int inside[HULL_MAXN];
    for (int i = 0; i < np; ++i) inside[i] = 1;
    /* exact AABB reject (as in ck_hulls_meet) and point-in-grown-box accept */
    for (int k = 0; k < 3; ++k) {
        double pl = p[0][k], ph = pl;
        for (int i = 1; i < np; ++i) pl = p[i][k] < pl ? p[i][k] : pl, ph = p[i][k] > ph ? p[i][k] : ph;
        if (lo[k] - ph > ttol || pl - hi[k] > ttol) return 0;
        for (int i = 0; i < np; ++i)
            if (!(p[i][k] >= lo[k] - tol && p[i][k] <= hi[k] + tol)) inside[i] = 0;
    }
    for (int i = 0; i < np; ++i)
        if (inside[i]) return 1;
    double P[HULL_MAXN][3], B[2][3];
    double M = h_shift(p, np, p[0], P, 0.0);
    if (M >= 0) M = h_shift((const double(*)[3])lo, 1, p[0], B, M);
    if (M >= 0) M = h_shift((const double(*)[3])hi, 1, p[0], B + 1, M);
    if (!(M >= 0)) return 1;
    /* the boolean GJK first (hull_bool.c), against the box's eight corners:
     * it answers only with a fact, the hulls sharing a point (then no
     * certificate of separation exists, and the answer below would be 1)
     * or a direction that separates them by more than tol and the
     * rounding margin (which the distance GJK below certifies too, but for
     * gaps within a few rounding margins); else on as before */
    double C[8][3];
    for (int c = 0; c < 8; ++c)
        for (int k = 0; k < 3; ++k) C[c][k] = B[c >> k & 1][k];
    int last;
    const int b = ck_hulls_bool((const double(*)[3])P, np, (const double(*)[3])C, 8, M, tol, &last);
    if (b >= 0) return b;
    /* start from p0 minus its closest box point */
    double v0[3];
    for (int k = 0; k < 3; ++k) {
        const double cl = P[0][k] < B[0][k] ? B[0][k] : (P[0][k] > B[1][k] ? B[1][k] : P[0][k]);
        v0[k] = P[0][k] - cl;
    }
    const int g = h_gjk((const double(*)[3])P, np, NULL, 0, B[0], B[1], v0, -1, M, tol);
    if (g == 1) return 0;
    if (g == 0 && tol > 0) return 1; /* within tol (above), or the origin reached */
    double ax[2][3];
    const int na = h_normal_axes((const double(*)[3])P, np, ax);
    for (int i = 0; i < na; ++i)
        if (h_separates_box(ax[i], (const double(*)[3])P, np, B[0], B[1], M, tol)) return 0;
    return 1;
}
