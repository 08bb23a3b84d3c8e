/*
 * closest.c — double-precision primitives of the query layer (query.h):
 * the nearest point of a triangle to a point and of two segments to each
 * other (after Ericson, Real-Time Collision Detection, 5.1.5 and 5.1.9), the
 * intersection segment of two triangles, and the distance between two
 * triangles.  Plain double arithmetic on the store's double truth, the same
 * operations in the same order on every machine and thread count.
 */
#include <math.h>

#include "query/query.h"

static inline double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline void sub3(const double a[3], const double b[3], double o[3])
{
    o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2];
}
static inline void cross3(const double a[3], const double b[3], double o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}
static inline double dist2(const double a[3], const double b[3])
{
    double d[3];
    sub3(a, b, d);
    return dot3(d, d);
}
static inline void lerp3(const double a[3], const double b[3], double t, double o[3])
{
    for (int k = 0; k < 3; ++k) o[k] = a[k] + t * (b[k] - a[k]);
}
static inline double clamp01(double x) { return x < 0 ? 0 : x > 1 ? 1 : x; }

double q_seg_seg(const double p1[3], const double q1[3], const double p2[3], const double q2[3], double *s, double *t,
                 double c1[3], double c2[3])
{
    double d1[3], d2[3], r[3];
    sub3(q1, p1, d1), sub3(q2, p2, d2), sub3(p1, p2, r);
    const double a = dot3(d1, d1), e = dot3(d2, d2), f = dot3(d2, r);
    double ss, tt;
    if (a == 0 && e == 0) {
        ss = tt = 0;
    } else if (a == 0) {
        ss = 0, tt = clamp01(f / e);
    } else {
        const double c = dot3(d1, r);
        if (e == 0) {
            tt = 0, ss = clamp01(-c / a);
        } else {
            const double b = dot3(d1, d2), den = a * e - b * b;
            ss = den > 0 ? clamp01((b * f - c * e) / den) : 0;
            tt = (b * ss + f) / e;
            if (tt < 0) tt = 0, ss = clamp01(-c / a);
            else if (tt > 1) tt = 1, ss = clamp01((b - c) / a);
        }
    }
    lerp3(p1, q1, ss, c1), lerp3(p2, q2, tt, c2);
    *s = ss, *t = tt;
    return dist2(c1, c2);
}

/* The nearest point of the segments of a degenerate triangle (zero area). */
static double point_tri_edges(const double p[3], const double *v[3], double q[3], double w[3])
{
    double best = INFINITY;
    for (int e = 0; e < 3; ++e) {
        const double *a = v[e], *b = v[(e + 1) % 3];
        double ab[3], ap[3], c[3];
        sub3(b, a, ab), sub3(p, a, ap);
        const double L = dot3(ab, ab), t = L > 0 ? clamp01(dot3(ap, ab) / L) : 0;
        lerp3(a, b, t, c);
        const double d = dist2(p, c);
        if (d < best) {
            best = d;
            q[0] = c[0], q[1] = c[1], q[2] = c[2];
            w[e] = 1 - t, w[(e + 1) % 3] = t, w[(e + 2) % 3] = 0;
        }
    }
    return best;
}

double q_point_tri(const double p[3], const double a[3], const double b[3], const double c[3], double q[3],
                   double w[3])
{
    double ab[3], ac[3], ap[3], bp[3], cp[3], n[3];
    sub3(b, a, ab), sub3(c, a, ac), sub3(p, a, ap);
    cross3(ab, ac, n);
    if (dot3(n, n) == 0) {
        const double *v[3] = {a, b, c};
        return point_tri_edges(p, v, q, w);
    }
    const double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
    double u, v; /* q = a + u ab + v ac */
    if (d1 <= 0 && d2 <= 0) {
        u = 0, v = 0;
    } else {
        sub3(p, b, bp);
        const double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
        sub3(p, c, cp);
        const double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
        const double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
        if (d3 >= 0 && d4 <= d3) u = 1, v = 0;
        else if (d6 >= 0 && d5 <= d6) u = 0, v = 1;
        else if (vc <= 0 && d1 >= 0 && d3 <= 0) u = d1 / (d1 - d3), v = 0;
        else if (vb <= 0 && d2 >= 0 && d6 <= 0) u = 0, v = d2 / (d2 - d6);
        else if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
            const double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
            u = 1 - t, v = t;
        } else {
            const double den = 1 / (va + vb + vc);
            u = vb * den, v = vc * den;
        }
    }
    for (int k = 0; k < 3; ++k) q[k] = a[k] + u * ab[k] + v * ac[k];
    w[0] = 1 - u - v, w[1] = u, w[2] = v;
    return dist2(p, q);
}

/* The part of triangle T inside the plane of signed corner distances d (T's
 * corners against the other triangle's plane): up to two points, returned as
 * their count (points on an edge that crosses, or corners at distance 0). */
static int plane_cut(const double T[3][3], const double d[3], double out[3][3])
{
    int n = 0;
    for (int i = 0; i < 3; ++i) {
        const int j = (i + 1) % 3;
        if (d[i] == 0) {
            out[n][0] = T[i][0], out[n][1] = T[i][1], out[n][2] = T[i][2], ++n;
        } else if ((d[i] < 0 && d[j] > 0) || (d[i] > 0 && d[j] < 0)) {
            lerp3(T[i], T[j], d[i] / (d[i] - d[j]), out[n]), ++n;
        }
        if (n == 3) break;
    }
    return n;
}

int q_tri_tri_segment(const double A[3][3], const double B[3][3], double p[3], double q[3])
{
    double e1[3], e2[3], nA[3], nB[3], dA[3], dB[3], r[3];
    sub3(B[1], B[0], e1), sub3(B[2], B[0], e2), cross3(e1, e2, nB);
    sub3(A[1], A[0], e1), sub3(A[2], A[0], e2), cross3(e1, e2, nA);
    for (int i = 0; i < 3; ++i) sub3(A[i], B[0], r), dA[i] = dot3(nB, r);
    if ((dA[0] > 0 && dA[1] > 0 && dA[2] > 0) || (dA[0] < 0 && dA[1] < 0 && dA[2] < 0)) return 0;
    for (int i = 0; i < 3; ++i) sub3(B[i], A[0], r), dB[i] = dot3(nA, r);
    if ((dB[0] > 0 && dB[1] > 0 && dB[2] > 0) || (dB[0] < 0 && dB[1] < 0 && dB[2] < 0)) return 0;
    double L[3];
    cross3(nA, nB, L);
    if ((dA[0] == 0 && dA[1] == 0 && dA[2] == 0) || (dB[0] == 0 && dB[1] == 0 && dB[2] == 0) || dot3(L, L) == 0)
        return 2;
    double sa[3][3], sb[3][3];
    const int na = plane_cut(A, dA, sa), nb = plane_cut(B, dB, sb);
    if (!na || !nb) return 0;
    /* each cut's extreme points along L: [lo, hi] intervals on the line of the two planes */
    int alo = 0, ahi = 0, blo = 0, bhi = 0;
    double ta[3] = {0, 0, 0}, tb[3] = {0, 0, 0};
    for (int i = 0; i < na; ++i) {
        ta[i] = dot3(L, sa[i]);
        if (ta[i] < ta[alo]) alo = i;
        if (ta[i] > ta[ahi]) ahi = i;
    }
    for (int i = 0; i < nb; ++i) {
        tb[i] = dot3(L, sb[i]);
        if (tb[i] < tb[blo]) blo = i;
        if (tb[i] > tb[bhi]) bhi = i;
    }
    const double lo = ta[alo] > tb[blo] ? ta[alo] : tb[blo], hi = ta[ahi] < tb[bhi] ? ta[ahi] : tb[bhi];
    if (lo > hi) return 0;
    const double *P = ta[alo] >= tb[blo] ? sa[alo] : sb[blo], *Q = ta[ahi] <= tb[bhi] ? sa[ahi] : sb[bhi];
    for (int k = 0; k < 3; ++k) p[k] = P[k], q[k] = Q[k];
    return 1;
}

double q_tri_tri_dist(const double A[3][3], const double B[3][3], double pa[3], double pb[3])
{
    return q_tri_tri_dist_meet(A, B, 1, pa, pb);
}

double q_tri_tri_dist_meet(const double A[3][3], const double B[3][3], int may_meet, double pa[3], double pb[3])
{
    double p[3], q[3];
    if (may_meet && q_tri_tri_segment(A, B, p, q) == 1) {
        for (int k = 0; k < 3; ++k) pa[k] = pb[k] = p[k];
        return 0;
    }
    double best = INFINITY, c1[3], c2[3], w[3], s, t;
    for (int i = 0; i < 3; ++i) {
        double d = q_point_tri(A[i], B[0], B[1], B[2], c2, w);
        if (d < best) best = d, pa[0] = A[i][0], pa[1] = A[i][1], pa[2] = A[i][2], pb[0] = c2[0], pb[1] = c2[1],
                      pb[2] = c2[2];
        d = q_point_tri(B[i], A[0], A[1], A[2], c1, w);
        if (d < best) best = d, pb[0] = B[i][0], pb[1] = B[i][1], pb[2] = B[i][2], pa[0] = c1[0], pa[1] = c1[1],
                      pa[2] = c1[2];
    }
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const double d = q_seg_seg(A[i], A[(i + 1) % 3], B[j], B[(j + 1) % 3], &s, &t, c1, c2);
            if (d < best) best = d, pa[0] = c1[0], pa[1] = c1[1], pa[2] = c1[2], pb[0] = c2[0], pb[1] = c2[1],
                          pb[2] = c2[2];
        }
    return sqrt(best);
}
