/*
 * geom_oracle.h — what tests/unit/test_geometry.c and test_distance.c share:
 * the oracle's own geometry, written apart from src/query/ (point-triangle
 * by projection or the edges, segment-segment from the unconstrained pair or
 * the endpoints, edges piercing triangles, Moller-Trumbore), and small scene
 * helpers (shared meshes centred on their boxes, faces through the public
 * clash_scene_vertex_at, rotations about an axis).
 */
#ifndef CLASH_TESTS_GEOM_ORACLE_H
#define CLASH_TESTS_GEOM_ORACLE_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "io/mesh_io.h"
#include "store/scene.h"

/* ---- the oracle's own geometry ------------------------------------------------------------ */

static inline double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline void sub(const double *a, const double *b, double *o) { for (int k = 0; k < 3; ++k) o[k] = a[k] - b[k]; }
static inline void crs(const double *a, const double *b, double *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}
static inline double dst(const double *a, const double *b)
{
    double d[3];
    sub(a, b, d);
    return sqrt(dot(d, d));
}
static inline double pt_seg(const double *p, const double *a, const double *b)
{
    double ab[3], ap[3], c[3];
    sub(b, a, ab), sub(p, a, ap);
    const double L = dot(ab, ab);
    double t = L > 0 ? dot(ap, ab) / L : 0;
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    for (int k = 0; k < 3; ++k) c[k] = a[k] + t * ab[k];
    return dst(p, c);
}
/* Point-triangle: the plane's foot when inside (by the signs of three cross products), else the edges. */
static inline double pt_tri(const double *p, const double *a, const double *b, const double *c)
{
    double e1[3], e2[3], n[3], r[3];
    sub(b, a, e1), sub(c, a, e2), crs(e1, e2, n);
    const double nn = dot(n, n);
    if (nn > 0) {
        sub(p, a, r);
        const double h = dot(r, n) / nn;
        double f[3], s[3][3];
        for (int k = 0; k < 3; ++k) f[k] = p[k] - h * n[k];
        const double *V[3] = {a, b, c};
        int inside = 1;
        for (int i = 0; i < 3; ++i) {
            double u[3], w[3];
            sub(V[(i + 1) % 3], V[i], u), sub(f, V[i], w), crs(u, w, s[i]);
            if (dot(s[i], n) < 0) inside = 0;
        }
        if (inside) return fabs(h) * sqrt(nn);
    }
    double d = pt_seg(p, a, b), e = pt_seg(p, b, c), g = pt_seg(p, c, a);
    return d < e ? (d < g ? d : g) : (e < g ? e : g);
}
/* Segment-segment: the unconstrained closest pair when both parameters fall inside, else the four endpoints. */
static inline double seg_seg(const double *p1, const double *q1, const double *p2, const double *q2)
{
    double d1[3], d2[3], r[3];
    sub(q1, p1, d1), sub(q2, p2, d2), sub(p1, p2, r);
    const double a = dot(d1, d1), b = dot(d1, d2), e = dot(d2, d2), c = dot(d1, r), f = dot(d2, r);
    const double den = a * e - b * b;
    double best = INFINITY;
    if (den > 1e-300 * (a * e)) {
        const double s = (b * f - c * e) / den, t = (a * f - b * c) / den;
        if (s >= 0 && s <= 1 && t >= 0 && t <= 1) {
            double x[3], y[3];
            for (int k = 0; k < 3; ++k) x[k] = p1[k] + s * d1[k], y[k] = p2[k] + t * d2[k];
            best = dst(x, y);
        }
    }
    const double m[4] = {pt_seg(p1, p2, q2), pt_seg(q1, p2, q2), pt_seg(p2, p1, q1), pt_seg(q2, p1, q1)};
    for (int i = 0; i < 4; ++i)
        if (m[i] < best) best = m[i];
    return best;
}
/* Where segment (p, q) pierces triangle T (Moller-Trumbore), 1 with the point. */
static inline int seg_tri(const double *p, const double *q, const double T[3][3], double *x)
{
    double d[3], e1[3], e2[3], h[3], s[3], g[3];
    sub(q, p, d), sub(T[1], T[0], e1), sub(T[2], T[0], e2), crs(d, e2, h);
    const double a = dot(e1, h);
    if (a == 0) return 0;
    sub(p, T[0], s);
    const double u = dot(s, h) / a;
    if (u < 0 || u > 1) return 0;
    crs(s, e1, g);
    const double v = dot(d, g) / a, t = dot(e2, g) / a;
    if (v < 0 || u + v > 1 || t < 0 || t > 1) return 0;
    for (int k = 0; k < 3; ++k) x[k] = p[k] + t * d[k];
    return 1;
}
/* Every piercing point of A's edges through B and B's through A (at most 6). */
static inline int piercings(const double A[3][3], const double B[3][3], double out[6][3])
{
    int n = 0;
    for (int i = 0; i < 3; ++i) n += seg_tri(A[i], A[(i + 1) % 3], B, out[n]);
    for (int i = 0; i < 3; ++i) n += seg_tri(B[i], B[(i + 1) % 3], A, out[n]);
    return n;
}
static inline double tri_tri(const double A[3][3], const double B[3][3])
{
    double pts[6][3];
    if (piercings(A, B, pts)) return 0;
    double best = INFINITY;
    for (int i = 0; i < 3; ++i) {
        double d = pt_tri(A[i], B[0], B[1], B[2]), e = pt_tri(B[i], A[0], A[1], A[2]);
        if (d < best) best = d;
        if (e < best) best = e;
        for (int j = 0; j < 3; ++j) {
            const double g = seg_seg(A[i], A[(i + 1) % 3], B[j], B[(j + 1) % 3]);
            if (g < best) best = g;
        }
    }
    return best;
}

/* ---- scenes --------------------------------------------------------------------------------- */

static inline clash_mesh load_mesh(const char *data, const char *name)
{
    char p[512];
    clash_error err;
    clash_mesh m = {0};
    snprintf(p, sizeof p, "%s/meshes/%s", data, name);
    CHECK(clash_mesh_load(p, &m, &err) == 0, "%s: %s", p, err.msg);
    /* centred on its box, so that turns keep the objects together */
    for (int k = 0; k < 3; ++k) {
        double lo = INFINITY, hi = -INFINITY;
        for (int64_t v = 0; v < m.nverts; ++v) lo = fmin(lo, m.xyz[3 * v + k]), hi = fmax(hi, m.xyz[3 * v + k]);
        for (int64_t v = 0; v < m.nverts; ++v) m.xyz[3 * v + k] -= 0.5 * (lo + hi);
    }
    return m;
}
/* Input face f of object o at the current state, through the public vertex call. */
static inline void face_at(const clash_scene *sc, const clash_mesh *m, int o, int64_t f, double T[3][3])
{
    clash_error err;
    const int s = sc->state < 0 ? 0 : sc->state;
    for (int c = 0; c < 3; ++c) clash_scene_vertex_at(sc, o, m->tri[3 * f + c], s, T[c], &err);
}
static inline void rot_axis(double R[9], double ax, double ay, double az, double ang)
{
    const double n = sqrt(ax * ax + ay * ay + az * az), x = ax / n, y = ay / n, z = az / n, c = cos(ang), s = sin(ang),
                 C = 1 - c;
    const double M[9] = {c + x * x * C,     x * y * C - z * s, x * z * C + y * s, y * x * C + z * s, c + y * y * C,
                         y * z * C - x * s, z * x * C - y * s, z * y * C + x * s, c + z * z * C};
    memcpy(R, M, sizeof M);
}
static inline int first_step(clash_run *run, clash_pairs *p)
{
    clash_error err;
    const int rc = clash_run_advance(run, p, NULL, &err);
    CHECK(rc == 0, "advance: %s", err.msg);
    return rc;
}

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Two objects of one triangle each, in mode, with geometry (and ccd when asked). */
static inline clash_run *two_triangles(clash_scene **psc, const double *A, const double *B, int mode, int ccd)
{
    clash_error err;
    const int32_t tri[3] = {0, 1, 2};
    clash_scene_create(psc, &err);
    clash_scene_add_mesh(*psc, A, 3, tri, 1, &err), clash_scene_add_mesh(*psc, B, 3, tri, 1, &err);
    clash_scene_add_object(*psc, 0, NULL, NULL, 0, &err), clash_scene_add_object(*psc, 1, NULL, NULL, 0, &err);
    clash_config cfg = clash_config_default();
    cfg.mode = mode, cfg.ccd = ccd, cfg.geometry = 1, cfg.threads = 1;
    return clash_run_create(*psc, &cfg, &err);
}

#endif
