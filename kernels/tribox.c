/*
 * tribox.c — does a closed triangle meet a closed axis-aligned box?
 *
 * ck_tribox is the method of the report ([Smith94], section 3.3.7): clipping.
 *   1. Bounding-box reject: if the triangle's box misses [lo, hi] on some
 *      axis, they are apart.
 *   2. Vertex accept: a vertex inside the box means they meet.
 *   3. Sutherland–Hodgman clipping of the triangle against the four planes
 *      x = lo.x, x = hi.x, y = lo.y, y = hi.y (keeping the side towards the
 *      box, points on a plane count as inside).  Every time an edge crosses a
 *      plane the crossing point is computed; if it lies inside the box face on
 *      that plane (its two other coordinates within the box's range) the
 *      triangle meets the box and we stop early.
 *   4. What is left is the triangle cut down to the slab lo.x <= x <= hi.x,
 *      lo.y <= y <= hi.y, a convex polygon; it meets the box unless all its
 *      vertices lie above hi.z or all lie below lo.z.
 *
 * Exactness.  A naive implementation interpolates new vertices from old
 * ones, so the rounding errors of one clip feed the next, and a triangle that
 * touches the box exactly (on an edge of the box, or with its plane through a
 * corner) can be missed.  Here:
 *   - points are kept in homogeneous form (X, Y, Z, W), W > 0, with the
 *     plane coordinate set to exactly c * W;
 *   - a crossing point is never interpolated from the polygon edge's
 *     endpoints but from the endpoints of the line that edge lies on (its
 *     "carrier"): either an original triangle edge, or the chord the
 *     triangle cuts out of an x plane (every edge of the clipped polygon lies
 *     on one of those; the y chords are never cut again);
 *   - with f = X - cW the signed plane value, the crossing of carrier
 *     (A, B) is fA*B - fB*A: degree 2 in the input coordinates for original
 *     edges, degree 4 for x chords; inside tests are sign tests of
 *     X - cW.
 * So when the inputs are small integers (or any data whose products up to
 * degree 4 are exact in double) every decision is exact, and touching counts.
 * With general doubles each crossing is the exact crossing of a plane moved
 * by a relative ~1e-16, i.e. the answer can only differ from the exact one
 * when the triangle is within rounding distance of touching.  Coordinates of
 * float32 magnitude cannot overflow (degree 4 stays below 1e160).  If the
 * rounding ever makes the polygon inconsistent (more than one exit point on
 * a plane) the test answers 1, the conservative answer for a broad phase.
 * Degenerate (zero-area) triangles need no special case: Sutherland–Hodgman
 * clips the closed curve v0 v1 v2, which covers the segment twice.
 *
 * ck_tribox_ref is the separating-axis test (Akenine-Möller, "Fast 3D
 * triangle-box overlap testing", 2001): the sets are disjoint iff their
 * projections on one of 13 axes are disjoint: the 3 box axes, the triangle
 * normal, and edge_i x axis_j.  Completeness: the sets are disjoint iff 0 is
 * outside the Minkowski difference D = T - B; when the box has positive
 * extent on every axis D is 3-dimensional and its facets come from a box
 * face (normal = an axis), a triangle face (normal n, absent when the
 * triangle is degenerate, but then T has no 2-d face either) or a triangle
 * edge plus a box edge (edge_i x axis_j).  Zero axes are skipped.  When the
 * box is flat on some axis D may be flat too, and then we add the in-plane
 * normals m x e (m any of the crosses above, e a triangle edge or an axis),
 * and for the 1- and 0-dimensional cases e and e x (w x e) with w = v0 - lo,
 * and w itself.  Projections use the box corner chosen by the signs of the
 * axis, so on integer data the reference is exact too.
 */
#include "kernels/kernels.h"

/* ---- Sutherland–Hodgman with carriers ------------------------------------- */

#define TB_MAXV 16

typedef struct {
    double h[4]; /* homogeneous point X, Y, Z, W (W > 0) */
    int car;     /* carrier of the edge leaving it: 0..2 triangle edge, 3 + k chord of plane k */
} tb_vert;

/* plane k: axis k/2 (x, x, y, y), value lo or hi, keep side s*(x - c) >= 0 */
static inline double tb_f(const double h[4], int axis, double c, double s) { return s * (h[axis] - c * h[3]); }

/* Crossing of the carrier (A, B) with plane (axis, c, s); fallback (P, Q) when
 * rounding made the carrier's ends not straddle the plane. */
static inline void tb_cross(double I[4], const double A[4], const double B[4], const double P[4], const double Q[4],
                            int axis, double c, double s)
{
    double fa = tb_f(A, axis, c, s), fb = tb_f(B, axis, c, s);
    if (!((fa >= 0 && fb < 0) || (fa < 0 && fb >= 0))) {
        A = P, B = Q;
        fa = tb_f(A, axis, c, s), fb = tb_f(B, axis, c, s);
    }
    for (int k = 0; k < 4; ++k) I[k] = fa * B[k] - fb * A[k];
    if (I[3] < 0)
        for (int k = 0; k < 4; ++k) I[k] = -I[k];
    I[axis] = c * I[3];
}

int ck_tribox(const double v0[3], const double v1[3], const double v2[3], const double lo[3], const double hi[3])
{
    const double *v[3] = {v0, v1, v2};
    /* 1. bounding-box reject */
    for (int k = 0; k < 3; ++k) {
        double mn = v0[k], mx = v0[k];
        mn = v1[k] < mn ? v1[k] : mn, mx = v1[k] > mx ? v1[k] : mx;
        mn = v2[k] < mn ? v2[k] : mn, mx = v2[k] > mx ? v2[k] : mx;
        if (mx < lo[k] || mn > hi[k]) return 0;
    }
    /* 2. vertex-inside accept */
    for (int i = 0; i < 3; ++i)
        if (v[i][0] >= lo[0] && v[i][0] <= hi[0] && v[i][1] >= lo[1] && v[i][1] <= hi[1] && v[i][2] >= lo[2] &&
            v[i][2] <= hi[2])
            return 1;
    /* 3. clip against x = lo.x, x = hi.x, y = lo.y, y = hi.y */
    tb_vert buf[2][TB_MAXV];
    double chord[4][2][4]; /* exit and entry point of each plane */
    tb_vert *in = buf[0], *out = buf[1];
    int n = 3;
    for (int i = 0; i < 3; ++i) {
        in[i].h[0] = v[i][0], in[i].h[1] = v[i][1], in[i].h[2] = v[i][2], in[i].h[3] = 1.0;
        in[i].car = i;
    }
    double tri[3][4];
    for (int i = 0; i < 3; ++i) tri[i][0] = v[i][0], tri[i][1] = v[i][1], tri[i][2] = v[i][2], tri[i][3] = 1.0;

    for (int k = 0; k < 4; ++k) {
        const int axis = k >> 1;
        const double c = (k & 1) ? hi[axis] : lo[axis];
        const double s = (k & 1) ? -1.0 : 1.0;
        const int b1 = axis == 0 ? 1 : 0, b2 = 2; /* the face's other axes */
        int m = 0, nexit = 0, nentry = 0;
        for (int i = 0; i < n; ++i) {
            const tb_vert *P = &in[i], *Q = &in[i + 1 == n ? 0 : i + 1];
            const int pin = tb_f(P->h, axis, c, s) >= 0, qin = tb_f(Q->h, axis, c, s) >= 0;
            if (pin && qin) {
                if (m + 1 > TB_MAXV) return 1;
                out[m++] = *Q;
            } else if (pin != qin) {
                const double *A, *B;
                if (P->car < 3) {
                    A = tri[P->car], B = tri[P->car == 2 ? 0 : P->car + 1];
                } else {
                    A = chord[P->car - 3][0], B = chord[P->car - 3][1];
                }
                if (m + 2 > TB_MAXV) return 1;
                tb_vert *I = &out[m++];
                tb_cross(I->h, A, B, P->h, Q->h, axis, c, s);
                /* early accept: the crossing lies in the box face on this plane */
                const double W = I->h[3];
                if (I->h[b1] >= lo[b1] * W && I->h[b1] <= hi[b1] * W && I->h[b2] >= lo[b2] * W &&
                    I->h[b2] <= hi[b2] * W)
                    return 1;
                if (pin) { /* exit: the next edge runs along this plane's chord */
                    I->car = 3 + k;
                    for (int j = 0; j < 4; ++j) chord[k][0][j] = I->h[j];
                    ++nexit;
                } else { /* entry: the edge continues along P's carrier to Q */
                    I->car = P->car;
                    for (int j = 0; j < 4; ++j) chord[k][1][j] = I->h[j];
                    ++nentry;
                    out[m++] = *Q;
                }
            }
        }
        if (m == 0) return 0;
        if (nexit > 1 || nentry != nexit) return 1; /* inconsistent rounding: stay conservative */
        n = m;
        tb_vert *t = in;
        in = out, out = t;
    }
    /* 4. z range of the clipped polygon */
    int above = 1, below = 1;
    for (int i = 0; i < n; ++i) {
        const double W = in[i].h[3], Z = in[i].h[2];
        if (!(Z > hi[2] * W)) above = 0;
        if (!(Z < lo[2] * W)) below = 0;
    }
    return !(above || below);
}

/* ---- separating axes ------------------------------------------------------- */

static inline void tb_sub(double r[3], const double a[3], const double b[3])
{
    r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}
static inline void tb_crs(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}
static inline double tb_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* 1 when axis d separates the triangle from the box (strictly). */
static inline int tb_sep(const double d[3], const double *const v[3], const double lo[3], const double hi[3])
{
    if (d[0] == 0 && d[1] == 0 && d[2] == 0) return 0;
    double t0 = tb_dot(d, v[0]), t1 = tb_dot(d, v[1]), t2 = tb_dot(d, v[2]);
    double tmin = t0 < t1 ? t0 : t1, tmax = t0 > t1 ? t0 : t1;
    tmin = t2 < tmin ? t2 : tmin, tmax = t2 > tmax ? t2 : tmax;
    double cmin[3], cmax[3];
    for (int k = 0; k < 3; ++k) {
        cmin[k] = d[k] > 0 ? lo[k] : hi[k];
        cmax[k] = d[k] > 0 ? hi[k] : lo[k];
    }
    return tmax < tb_dot(d, cmin) || tmin > tb_dot(d, cmax);
}

int ck_tribox_ref(const double v0[3], const double v1[3], const double v2[3], const double lo[3], const double hi[3])
{
    const double *v[3] = {v0, v1, v2};
    double E[6][3] = {{0}}; /* triangle edges, then the axes */
    tb_sub(E[0], v1, v0);
    tb_sub(E[1], v2, v1);
    tb_sub(E[2], v0, v2);
    E[3][0] = E[4][1] = E[5][2] = 1.0;
    /* the 13 axes: 3 box axes, the normal, edge x axis */
    for (int k = 3; k < 6; ++k)
        if (tb_sep(E[k], v, lo, hi)) return 0;
    double d[3];
    tb_crs(d, E[0], E[1]);
    if (tb_sep(d, v, lo, hi)) return 0;
    for (int i = 0; i < 3; ++i)
        for (int k = 3; k < 6; ++k) {
            tb_crs(d, E[i], E[k]);
            if (tb_sep(d, v, lo, hi)) return 0;
        }
    if (lo[0] < hi[0] && lo[1] < hi[1] && lo[2] < hi[2]) return 1;
    /* flat box: D may be flat; all crosses of the six directions as plane
     * normals m, and the in-plane normals m x e */
    for (int i = 0; i < 6; ++i)
        for (int j = i + 1; j < 6; ++j) {
            double m[3];
            tb_crs(m, E[i], E[j]);
            if (tb_sep(m, v, lo, hi)) return 0;
            for (int k = 0; k < 6; ++k) {
                tb_crs(d, m, E[k]);
                if (tb_sep(d, v, lo, hi)) return 0;
            }
        }
    /* line and point cases */
    double w[3], t[3];
    tb_sub(w, v0, lo);
    if (tb_sep(w, v, lo, hi)) return 0;
    for (int k = 0; k < 6; ++k) {
        if (tb_sep(E[k], v, lo, hi)) return 0;
        tb_crs(t, w, E[k]);
        tb_crs(d, E[k], t);
        if (tb_sep(d, v, lo, hi)) return 0;
    }
    return 1;
}
