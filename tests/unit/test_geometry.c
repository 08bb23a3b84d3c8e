/*
 * test_geometry.c — contact geometry, distances, proximity and edge tables
 * (src/query/, clash.h "Contact geometry, distances, proximity, edge
 * tables"), each against an independent computation written here:
 *
 *  1. Edge tables: clash_scene_edges equals the run's own --ccd table
 *     (core/edges.h) on both ccd-frames scenes, and resolves every ee
 *     contact of their step: both edges are edges of faces of a pair the
 *     step reported; each contact's geometry lies on its primitives at toi;
 *     geometry off gives the same pairs and contacts bit for bit.
 *  2. Intersection segments of the static pairs of two shared meshes equal
 *     the piercing points of each triangle's edges through the other.
 *  3. clash_run_distance equals brute force over every face pair (its own
 *     triangle distance: projection, or the edges) on shared meshes and on
 *     parallel grids 1e-3 ... 1e-9 apart under a common rigid motion.
 *  4. clash_run_proximity equals brute force over every vf and ee pair,
 *     between objects and, with self_collision, inside one.
 *  5. Contact geometry of a vertex falling on a face and of two crossing
 *     edges (point, normal, parameters), and the object pairs' summary
 *     (penetration of a cube pressed into a slab).
 *  6. Bad arguments: CLASH_EINPUT naming the object or value, out unchanged.
 * Shared meshes from ../shared/data (parts 1-4 skip when it is missing).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/sort.h"
#include "check.h"
#include "core/edges.h"
#include "core/run.h"
#include "io/mesh_io.h"
#include "io/scene_desc.h"
#include "store/scene.h"

/* ---- the oracle's own geometry ------------------------------------------------------------ */

typedef double v3[3];
static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void sub(const double *a, const double *b, double *o) { for (int k = 0; k < 3; ++k) o[k] = a[k] - b[k]; }
static void crs(const double *a, const double *b, double *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}
static double dst(const double *a, const double *b)
{
    double d[3];
    sub(a, b, d);
    return sqrt(dot(d, d));
}
static double pt_seg(const double *p, const double *a, const double *b)
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
static double pt_tri(const double *p, const double *a, const double *b, const double *c)
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
static double seg_seg(const double *p1, const double *q1, const double *p2, const double *q2)
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
static int seg_tri(const double *p, const double *q, const double T[3][3], double *x)
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
static int piercings(const double A[3][3], const double B[3][3], double out[6][3])
{
    int n = 0;
    for (int i = 0; i < 3; ++i) n += seg_tri(A[i], A[(i + 1) % 3], B, out[n]);
    for (int i = 0; i < 3; ++i) n += seg_tri(B[i], B[(i + 1) % 3], A, out[n]);
    return n;
}
static double tri_tri(const double A[3][3], const double B[3][3])
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

static clash_mesh load_mesh(const char *data, const char *name)
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
static void face_at(const clash_scene *sc, const clash_mesh *m, int o, int64_t f, double T[3][3])
{
    clash_error err;
    for (int c = 0; c < 3; ++c) clash_scene_vertex_at(sc, o, m->tri[3 * f + c], sc->state < 0 ? 0 : sc->state, T[c], &err);
}
static void rot_axis(double R[9], double ax, double ay, double az, double ang)
{
    const double n = sqrt(ax * ax + ay * ay + az * az), x = ax / n, y = ay / n, z = az / n, c = cos(ang), s = sin(ang),
                 C = 1 - c;
    const double M[9] = {c + x * x * C,     x * y * C - z * s, x * z * C + y * s, y * x * C + z * s, c + y * y * C,
                         y * z * C - x * s, z * x * C - y * s, z * y * C + x * s, c + z * z * C};
    memcpy(R, M, sizeof M);
}
static int first_step(clash_run *run, clash_pairs *p)
{
    clash_error err;
    const int rc = clash_run_advance(run, p, NULL, &err);
    CHECK(rc == 0, "advance: %s", err.msg);
    return rc;
}

/* ---- 1. edge tables on the ccd-frames scenes ---------------------------------------------- */

static clash_scene *frames_scene(const char *data, const char *scene, int f0, clash_error *err)
{
    static char p0[512], p1[512];
    snprintf(p0, sizeof p0, "%s/ccd-frames/%s/frames/%d.ply", data, scene, f0);
    snprintf(p1, sizeof p1, "%s/ccd-frames/%s/frames/%d.ply", data, scene, f0 + 1);
    char *files[2] = {p0, p1};
    clash_scene_desc d = {.name = (char *)scene, .steps = 1, .mode = CLASH_MODE_SWEPT, .self_collision = 1,
                          .nframes = 2, .frame_files = files, .frames_objects = CLASH_FRAMES_SINGLE};
    clash_scene *sc = NULL;
    return clash_scene_build(&d, &sc, err) ? NULL : sc;
}

static size_t lower(const uint64_t *k, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t m = (lo + hi) / 2;
        if (k[m] < key) lo = m + 1;
        else hi = m;
    }
    return lo;
}
static int has(const uint64_t *k, size_t n, uint64_t key)
{
    const size_t i = lower(k, n, key);
    return i < n && k[i] == key;
}

static void check_frames(const char *data, const char *name, int f0)
{
    clash_error err;
    clash_scene *sc = frames_scene(data, name, f0, &err);
    CHECK(sc, "%s: %s", name, err.msg);
    if (!sc) return;
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_SWEPT, cfg.self_collision = 1, cfg.ccd = 1, cfg.threads = 2;
    clash_run *off = clash_run_create(sc, &cfg, &err);
    clash_pairs p0;
    clash_contacts c0;
    CHECK(off && clash_step(off, 1, &p0, NULL, &err) == 0 && clash_run_contacts(off, &c0, &err) == 0, "%s", err.msg);
    clash_pair *keep_p = malloc((p0.count + 1) * sizeof *keep_p);
    clash_contact *keep_c = malloc((c0.count + 1) * sizeof *keep_c);
    memcpy(keep_p, p0.pairs, p0.count * sizeof *keep_p), memcpy(keep_c, c0.contacts, c0.count * sizeof *keep_c);
    const size_t np0 = p0.count, nc0 = c0.count;
    clash_run_destroy(off);
    cfg.geometry = 1;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    clash_pairs P;
    clash_contacts C;
    CHECK(run && clash_step(run, 1, &P, NULL, &err) == 0 && clash_run_contacts(run, &C, &err) == 0, "%s", err.msg);
    if (!run) return;
    CHECK(P.count == np0 && !memcmp(P.pairs, keep_p, np0 * sizeof *keep_p), "%s: geometry changed the pairs", name);
    CHECK(C.count == nc0 && !memcmp(C.contacts, keep_c, nc0 * sizeof *keep_c), "%s: geometry changed the contacts",
          name);
    free(keep_p), free(keep_c);
    /* the table against the run's own (store numbers mapped to input) */
    const int32_t *ij;
    int64_t ne;
    CHECK(clash_scene_edges(sc, 0, &ij, &ne) == 0, "%s: edges", name);
    const clash_edges *E = run->edges;
    CHECK(E && ne == E->eofs[1] - E->eofs[0], "%s: %lld edges, the run has %lld", name, (long long)ne,
          E ? (long long)(E->eofs[1] - E->eofs[0]) : -1LL);
    long bad = 0;
    for (int64_t e = 0; E && e < ne && e < E->eofs[1]; ++e)
        bad += ij[2 * e] != (int32_t)clash_vert_orig(sc, E->ev0[e]) || ij[2 * e + 1] != (int32_t)clash_vert_orig(sc, E->ev1[e]);
    CHECK(bad == 0, "%s: %ld edges differ from the ccd table", name, bad);
    /* every ee contact: both edges are edges of faces of a reported pair */
    const int64_t nf = clash_scene_object_faces(sc, 0);
    uint64_t *ef = malloc((size_t)(3 * nf + 1) * sizeof *ef), *pk = malloc((P.count + 1) * sizeof *pk);
    size_t nef = 0;
    const clash_store_mesh *m = &sc->mesh[sc->obj_mesh[0]];
    for (int64_t f = 0; f < nf; ++f)
        for (int c = 0; c < 3; ++c) {
            const int32_t a = m->tri[3 * f + c], b = m->tri[3 * f + (c + 1) % 3];
            ef[nef++] = (uint64_t)(a < b ? b : a) << 40 | (uint64_t)(a < b ? a : b) << 20 | (uint64_t)f;
        }
    nef = clash_sort_unique_u64(ef, nef);
    for (size_t i = 0; i < P.count; ++i) pk[i] = (uint64_t)P.pairs[i].face_a << 32 | P.pairs[i].face_b;
    const size_t npk = clash_sort_unique_u64(pk, P.count);
    const clash_contact_geom *G;
    size_t ng;
    CHECK(clash_run_contact_geometry(run, &G, &ng, &err) == 0 && ng == C.count, "%s: contact geometry", name);
    long nee = 0, unresolved = 0, off_prim = 0;
    double scale = 0;
    for (int64_t v = 0; v < m->nv; ++v)
        for (int k = 0; k < 3; ++k) scale = fmax(scale, fabs(m->xyz[3 * v + k]));
    for (size_t i = 0; i < C.count; ++i) {
        const clash_contact *q = &C.contacts[i];
        double P0[4][3], P1[4][3];
        int32_t vid[4];
        if (q->kind == CLASH_CONTACT_EE) {
            ++nee;
            if (q->id_a >= ne || q->id_b >= ne) {
                ++unresolved;
                continue;
            }
            int32_t *ea = (int32_t *)ij + 2 * q->id_a, *eb = (int32_t *)ij + 2 * q->id_b;
            vid[0] = ea[0], vid[1] = ea[1], vid[2] = eb[0], vid[3] = eb[1];
            int found = 0;
            const uint64_t ka = (uint64_t)ea[1] << 40 | (uint64_t)ea[0] << 20, kb = (uint64_t)eb[1] << 40 | (uint64_t)eb[0] << 20;
            for (size_t x = lower(ef, nef, ka); x < nef && (ef[x] >> 20) == (ka >> 20) && !found; ++x)
                for (size_t y = lower(ef, nef, kb); y < nef && (ef[y] >> 20) == (kb >> 20) && !found; ++y) {
                    const uint64_t fa = ef[x] & 0xfffff, fb = ef[y] & 0xfffff;
                    found = has(pk, npk, fa < fb ? fa << 32 | fb : fb << 32 | fa);
                }
            unresolved += !found;
        } else {
            vid[0] = (int32_t)q->id_a;
            for (int c = 0; c < 3; ++c) vid[1 + c] = m->tri[3 * q->id_b + c];
        }
        for (int j = 0; j < 4; ++j)
            clash_scene_vertex_at(sc, 0, vid[j], 0, P0[j], &err), clash_scene_vertex_at(sc, 0, vid[j], 1, P1[j], &err);
        double X[4][3], pa[3], pb[3];
        for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 3; ++k) X[j][k] = P0[j][k] + q->toi * (P1[j][k] - P0[j][k]);
        const double *w = G[i].w;
        for (int k = 0; k < 3; ++k) {
            if (q->kind == CLASH_CONTACT_EE)
                pa[k] = X[0][k] + w[0] * (X[1][k] - X[0][k]), pb[k] = X[2][k] + w[1] * (X[3][k] - X[2][k]);
            else pa[k] = X[0][k], pb[k] = w[0] * X[1][k] + w[1] * X[2][k] + w[2] * X[3][k];
        }
        off_prim += dst(pa, G[i].pa) > 1e-9 * scale || dst(pb, G[i].pb) > 1e-9 * scale ||
                    fabs(dot(G[i].normal, G[i].normal) - 1) > 1e-12 || fabs(G[i].distance - dst(pa, pb)) > 1e-9 * scale;
    }
    printf("%s: %zu pairs, %zu contacts (%ld ee), %lld edges; %ld ee unresolved, %ld geometries off their primitives\n",
           name, P.count, C.count, nee, (long long)ne, unresolved, off_prim);
    CHECK(nee > 0 && unresolved == 0, "%s: %ld of %ld ee contacts not resolved by the edge table", name, unresolved, nee);
    CHECK(off_prim == 0, "%s: %ld contact geometries are not on their primitives at toi", name, off_prim);
    free(ef), free(pk);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

/* ---- 2. intersection segments of static pairs ---------------------------------------------- */

/* Two objects of meshes ma, mb (B turned and shifted) in static mode; each pair's segment against the
 * farthest two piercing points of the pair's edges. */
static void check_segments(const clash_mesh *ma, const clash_mesh *mb, const char *what)
{
    clash_error err;
    clash_scene *sc;
    clash_scene_create(&sc, &err);
    const int ia = clash_scene_add_mesh(sc, ma->xyz, ma->nverts, ma->tri, ma->nfaces, &err);
    const int ib = clash_scene_add_mesh(sc, mb->xyz, mb->nverts, mb->tri, mb->nfaces, &err);
    double R[9];
    rot_axis(R, 1, 2, 3, 0.7);
    const double t[3] = {0.13, 0.07, -0.05};
    clash_scene_add_object(sc, ia, NULL, NULL, 0, &err);
    clash_scene_add_object(sc, ib, R, t, 0, &err);
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_STATIC, cfg.geometry = 1, cfg.threads = 2;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    clash_pairs P;
    const clash_pair_geom *G = NULL;
    size_t ng = 0;
    CHECK(run && !first_step(run, &P) && clash_run_pair_geometry(run, &G, &ng, &err) == 0 && ng == P.count,
          "%s: pair geometry", what);
    long seg = 0, copl = 0, bad = 0;
    for (size_t i = 0; G && i < P.count; ++i) {
        const clash_pair *p = &P.pairs[i];
        double A[3][3], B[3][3], pts[6][3];
        face_at(sc, p->obj_a ? mb : ma, (int)p->obj_a, p->face_a, A), face_at(sc, p->obj_b ? mb : ma, (int)p->obj_b, p->face_b, B);
        if (G[i].status == 2) {
            ++copl;
            continue;
        }
        ++seg;
        const int n = piercings(A, B, pts);
        int x = 0, y = 0;
        for (int a = 0; a < n; ++a)
            for (int b = a + 1; b < n; ++b)
                if (dst(pts[a], pts[b]) > dst(pts[x], pts[y])) x = a, y = b;
        const double tol = 1e-9;
        const int ok = G[i].status == 1 && n > 0 &&
                       ((dst(G[i].p, pts[x]) < tol && dst(G[i].q, pts[y]) < tol) ||
                        (dst(G[i].p, pts[y]) < tol && dst(G[i].q, pts[x]) < tol));
        if (!ok && bad++ < 5)
            fprintf(stderr, "%s: pair %zu (%u,%u)-(%u,%u): status %d, %d piercings, p (%g %g %g) q (%g %g %g)\n", what,
                    i, p->obj_a, p->face_a, p->obj_b, p->face_b, G[i].status, n, G[i].p[0], G[i].p[1], G[i].p[2],
                    G[i].q[0], G[i].q[1], G[i].q[2]);
    }
    printf("%s: %zu static pairs, %ld segments, %ld coplanar, %ld differ from the piercing points\n", what, P.count, seg,
           copl, bad);
    CHECK(P.count > 100 && bad == 0, "%s: %ld of %zu segments differ", what, bad, P.count);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

/* ---- 3. distances --------------------------------------------------------------------------- */

typedef struct brute {
    double d;
    int64_t fa, fb;
} brute;
static brute brute_distance(const clash_scene *sc, const clash_mesh *ma, const clash_mesh *mb)
{
    brute r = {INFINITY, -1, -1};
    double (*B)[3][3] = malloc((size_t)mb->nfaces * sizeof *B);
    for (int64_t g = 0; g < mb->nfaces; ++g) face_at(sc, mb, 1, g, B[g]);
    for (int64_t f = 0; f < ma->nfaces; ++f) {
        double A[3][3];
        face_at(sc, ma, 0, f, A);
        for (int64_t g = 0; g < mb->nfaces; ++g) {
            const double d = tri_tri(A, B[g]);
            if (d < r.d) r = (brute){d, f, g};
        }
    }
    free(B);
    return r;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Object b's pose rot (NULL: identity), trans; the distance against brute force. */
static clash_distance check_distance(clash_scene *sc, clash_run *run, const clash_mesh *ma, const clash_mesh *mb,
                                     const double *rot, const double *trans, double expect, const char *what)
{
    clash_error err;
    clash_pairs P;
    CHECK(clash_run_set_pose(run, 1, rot, trans, &err) == 0 && !first_step(run, &P), "%s: %s", what, err.msg);
    clash_distance D;
    double t0 = now();
    int calls = 0;
    do {
        CHECK(clash_run_distance(run, 0, 1, INFINITY, &D, &err) == 0, "%s: %s", what, err.msg);
        ++calls;
    } while (now() - t0 < 0.05);
    const double per_call = (now() - t0) / calls;
    t0 = now();
    const brute b = brute_distance(sc, ma, mb);
    const double brute_s = now() - t0;
    double A[3][3], B[3][3];
    face_at(sc, ma, 0, D.face_a, A), face_at(sc, mb, 1, D.face_b, B);
    const double on_a = pt_tri(D.pa, A[0], A[1], A[2]), on_b = pt_tri(D.pb, B[0], B[1], B[2]);
    printf("%s: distance %.17g, brute force %.17g (faces %lld, %lld; clash %u, %u); %.3g ms a call against %.3g ms "
           "brute force\n", what, D.distance, b.d, (long long)b.fa, (long long)b.fb, D.face_a, D.face_b, per_call * 1e3,
           brute_s * 1e3);
    CHECK(D.found == 1 && fabs(D.distance - b.d) <= 1e-13 + 1e-12 * b.d, "%s: %.17g against brute force %.17g", what,
          D.distance, b.d);
    CHECK(on_a <= 1e-12 && on_b <= 1e-12 && fabs(dst(D.pa, D.pb) - D.distance) <= 1e-13, "%s: nearest points", what);
    if (expect >= 0)
        CHECK(fabs(D.distance - expect) <= 1e-14 + 1e-9 * expect, "%s: %.17g, expected %.17g", what, D.distance,
              expect);
    /* max_distance: below the distance none, at or above it the same answer */
    clash_distance E;
    CHECK(clash_run_distance(run, 0, 1, D.distance * 0.5, &E, &err) == 0 && (D.distance == 0 ? E.found : !E.found),
          "%s: max_distance below", what);
    CHECK(clash_run_distance(run, 1, 0, D.distance * 2 + 1e-300, &E, &err) == 0 && E.found &&
          fabs(E.distance - D.distance) <= 1e-13 + 1e-12 * D.distance && E.obj_a == 1, "%s: max_distance above, objects swapped", what);
    return D;
}

/* A grid of n x n squares (2 n^2 triangles) on [0, 1]^2 at height z. */
static clash_mesh grid(int n, double z)
{
    clash_mesh m = {.nverts = (int64_t)(n + 1) * (n + 1), .nfaces = 2 * (int64_t)n * n};
    m.xyz = malloc((size_t)m.nverts * 3 * sizeof(double)), m.tri = malloc((size_t)m.nfaces * 3 * sizeof(int32_t));
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
            double *v = m.xyz + 3 * (j * (n + 1) + i);
            v[0] = (double)i / n, v[1] = (double)j / n, v[2] = z;
        }
    int64_t f = 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const int32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
            const int32_t t[6] = {a, b, d, a, d, c};
            memcpy(m.tri + 3 * f, t, sizeof t), f += 2;
        }
    return m;
}

static void check_distances(const char *data)
{
    clash_error err;
    /* generated: two grids g apart, under one rigid motion of both (the distance is g) */
    for (int e = 3; e <= 9; ++e) {
        const double g = pow(10, -e);
        clash_mesh a = grid(12, 0), b = grid(12, g);
        clash_scene *sc;
        clash_scene_create(&sc, &err);
        clash_scene_add_mesh(sc, a.xyz, a.nverts, a.tri, a.nfaces, &err);
        clash_scene_add_mesh(sc, b.xyz, b.nverts, b.tri, b.nfaces, &err);
        double R[9];
        rot_axis(R, 0.3, -1, 0.5, 0.4 + e);
        const double t[3] = {0.5, -0.25, 2};
        clash_scene_add_object(sc, 0, R, t, 0, &err);
        clash_scene_add_object(sc, 1, R, t, 0, &err);
        clash_config cfg = clash_config_default();
        cfg.mode = CLASH_MODE_STATIC, cfg.threads = 1;
        clash_run *run = clash_run_create(sc, &cfg, &err);
        char what[64];
        snprintf(what, sizeof what, "grids %g apart", g);
        const double t2[3] = {0.5, -0.25, 2};
        check_distance(sc, run, &a, &b, R, t2, g, what);
        clash_run_destroy(run);
        clash_scene_destroy(sc);
        free(a.xyz), free(a.tri), free(b.xyz), free(b.tri);
    }
    if (!data) return;
    /* shared meshes: suzanne against suzanne and the cow, apart, nearly touching and overlapping */
    clash_mesh su = load_mesh(data, "suzanne.obj"), cow = load_mesh(data, "cow.obj");
    if (!su.nfaces || !cow.nfaces) return;
    const clash_mesh *pairs[2][2] = {{&su, &su}, {&su, &cow}};
    for (int k = 0; k < 2; ++k) {
        const clash_mesh *ma = pairs[k][0], *mb = pairs[k][1];
        clash_scene *sc;
        clash_scene_create(&sc, &err);
        clash_scene_add_mesh(sc, ma->xyz, ma->nverts, ma->tri, ma->nfaces, &err);
        clash_scene_add_mesh(sc, mb->xyz, mb->nverts, mb->tri, mb->nfaces, &err);
        clash_scene_add_object(sc, 0, NULL, NULL, 0, &err);
        clash_scene_add_object(sc, 1, NULL, NULL, 0, &err);
        clash_config cfg = clash_config_default();
        cfg.mode = CLASH_MODE_STATIC, cfg.threads = 1;
        clash_run *run = clash_run_create(sc, &cfg, &err);
        double R[9];
        rot_axis(R, 0, 1, 0.2, 0.3);
        const char *name = k ? "suzanne/cow" : "suzanne/suzanne";
        char what[96];
        /* apart; then b moved toward a along the nearest points' line by all but g: the distance is g (every
         * other face pair was at least as far and came at most as much nearer) */
        const double far[3] = {k ? 6 : 3, 0.01, 0.02};
        snprintf(what, sizeof what, "%s apart", name);
        const clash_distance D = check_distance(sc, run, ma, mb, k ? NULL : R, far, -1, what);
        for (int e = 3; e <= 9; e += k ? 6 : 2) { /* the cow's brute force is the slow one: two gaps */
            const double g = pow(10, -e);
            double t[3];
            for (int c = 0; c < 3; ++c) t[c] = far[c] + (D.pa[c] - D.pb[c]) / D.distance * (D.distance - g);
            snprintf(what, sizeof what, "%s %g apart", name, g);
            check_distance(sc, run, ma, mb, k ? NULL : R, t, g, what);
        }
        const double over[3] = {0.3, 0.01, 0.02};
        snprintf(what, sizeof what, "%s overlapping", name);
        check_distance(sc, run, ma, mb, k ? NULL : R, over, k ? -1 : 0, what); /* suzanne lies inside the cow */
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
    clash_mesh_free(&su), clash_mesh_free(&cow);
}

/* ---- 4. proximity against brute force --------------------------------------------------- */

typedef struct prox {
    uint32_t kind, oa, ia, ob, ib;
    double d;
} prox;
static int prox_cmp(const void *x, const void *y)
{
    const prox *a = x, *b = y;
    const uint32_t ka[5] = {a->kind, a->oa, a->ia, a->ob, a->ib}, kb[5] = {b->kind, b->oa, b->ia, b->ob, b->ib};
    for (int k = 0; k < 5; ++k)
        if (ka[k] != kb[k]) return ka[k] < kb[k] ? -1 : 1;
    return 0;
}

/* Every vf and ee pair of the scene's objects (all of one mesh m) within reach, by brute force. */
static prox *brute_prox(const clash_scene *sc, const clash_mesh *m, int self, double reach, size_t *n)
{
    const int no = clash_scene_objects(sc);
    const int32_t *ij;
    int64_t ne;
    clash_scene_edges(sc, 0, &ij, &ne);
    const int s = sc->state < 0 ? 0 : sc->state;
    clash_error err;
    double (*X)[3] = malloc((size_t)(no * m->nverts) * sizeof *X);
    for (int o = 0; o < no; ++o)
        for (int64_t v = 0; v < m->nverts; ++v) clash_scene_vertex_at(sc, o, v, s, X[o * m->nverts + v], &err);
    size_t cap = 1024, k = 0;
    prox *r = malloc(cap * sizeof *r);
    for (int oa = 0; oa < no; ++oa)
        for (int ob = 0; ob < no; ++ob) {
            if (oa == ob && !self) continue;
            const double(*A)[3] = X + oa * m->nverts, (*B)[3] = X + ob * m->nverts;
            for (int64_t v = 0; v < m->nverts; ++v)
                for (int64_t f = 0; f < m->nfaces; ++f) {
                    const int32_t *t = m->tri + 3 * f;
                    if (oa == ob && (t[0] == v || t[1] == v || t[2] == v)) continue;
                    const double d = pt_tri(A[v], B[t[0]], B[t[1]], B[t[2]]);
                    if (d > reach) continue;
                    if (k == cap) r = realloc(r, (cap *= 2) * sizeof *r);
                    r[k++] = (prox){0, (uint32_t)oa, (uint32_t)v, (uint32_t)ob, (uint32_t)f, d};
                }
            if (ob < oa) continue;
            for (int64_t e = 0; e < ne; ++e)
                for (int64_t g = oa == ob ? e + 1 : 0; g < ne; ++g) {
                    const int32_t *a = ij + 2 * e, *b = ij + 2 * g;
                    if (oa == ob && (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1])) continue;
                    const double d = seg_seg(A[a[0]], A[a[1]], B[b[0]], B[b[1]]);
                    if (d > reach) continue;
                    if (k == cap) r = realloc(r, (cap *= 2) * sizeof *r);
                    r[k++] = (prox){1, (uint32_t)oa, (uint32_t)e, (uint32_t)ob, (uint32_t)g, d};
                }
        }
    free(X);
    qsort(r, k, sizeof *r, prox_cmp);
    *n = k;
    return r;
}

static void check_proximity(const char *data)
{
    clash_error err;
    clash_mesh su = load_mesh(data, "suzanne.obj");
    if (!su.nfaces) return;
    for (int self = 0; self < 2; ++self) {
        clash_scene *sc;
        clash_scene_create(&sc, &err);
        clash_scene_add_mesh(sc, su.xyz, su.nverts, su.tri, su.nfaces, &err);
        double R[9];
        rot_axis(R, 1, 1, 0, 2.5);
        const double t[3] = {1.9, 0.3, 0.1};
        clash_scene_add_object(sc, 0, NULL, NULL, 0, &err);
        clash_scene_add_object(sc, 0, R, t, 0, &err);
        clash_config cfg = clash_config_default();
        cfg.mode = CLASH_MODE_STATIC, cfg.self_collision = self;
        clash_run *run = clash_run_create(sc, &cfg, &err);
        const double dhat = self ? 0.02 : 0.12;
        const clash_proximity *Q;
        size_t nq, nb;
        double t0 = now();
        CHECK(clash_run_proximity(run, dhat, &Q, &nq, &err) == 0, "proximity: %s", err.msg);
        const double fast = now() - t0;
        t0 = now();
        prox *B = brute_prox(sc, &su, self, dhat * (1 + 1e-9), &nb);
        const double slow = now() - t0;
        long missing = 0, extra = 0, off = 0, unsorted = 0;
        size_t j = 0;
        for (size_t i = 0; i < nq; ++i) {
            const prox q = {Q[i].kind, Q[i].obj_a, Q[i].id_a, Q[i].obj_b, Q[i].id_b, Q[i].distance};
            if (i) {
                const prox p = {Q[i - 1].kind, Q[i - 1].obj_a, Q[i - 1].id_a, Q[i - 1].obj_b, Q[i - 1].id_b, 0};
                unsorted += prox_cmp(&p, &q) >= 0;
            }
            while (j < nb && prox_cmp(&B[j], &q) < 0) missing += B[j++].d <= dhat * (1 - 1e-9);
            if (j < nb && !prox_cmp(&B[j], &q)) off += fabs(B[j++].d - q.d) > 1e-13;
            else ++extra;
        }
        for (; j < nb; ++j) missing += B[j].d <= dhat * (1 - 1e-9);
        printf("proximity (self %d, dhat %g): %zu pairs, brute force %zu; %ld missing, %ld extra, %ld distances off; "
               "%.3g ms against %.3g ms brute force\n", self, dhat, nq, nb, missing, extra, off, fast * 1e3, slow * 1e3);
        CHECK(nq > 20 && missing == 0 && extra == 0 && off == 0 && unsorted == 0,
              "proximity (self %d): %ld missing, %ld extra, %ld off, %ld unsorted", self, missing, extra, off, unsorted);
        free(B);
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
    clash_mesh_free(&su);
}

/* ---- 5. contact geometry and object pairs of generated scenes --------------------------------- */

static clash_run *two_triangles(clash_scene **psc, const double *A, const double *B, int mode, int ccd)
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

static void check_contact_geometry(void)
{
    clash_error err;
    for (int up = 0; up < 2; ++up) { /* a vertex falling onto a face (up: rising from below) */
        const double F[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
        const double z = up ? -0.5 : 0.5, s = up ? -1 : 1;
        const double V[9] = {0.2, 0.3, z, 0.2, 0.35, z + 2 * s, 0.25, 0.3, z + 2 * s};
        clash_scene *sc;
        clash_run *run = two_triangles(&sc, F, V, CLASH_MODE_SWEPT, 1);
        const double t[3] = {0, 0, -s};
        clash_pairs P;
        CHECK(clash_run_set_pose(run, 1, NULL, t, &err) == 0 && !first_step(run, &P), "vf: %s", err.msg);
        clash_contacts C;
        const clash_contact_geom *G;
        size_t ng;
        CHECK(clash_run_contacts(run, &C, &err) == 0 && clash_run_contact_geometry(run, &G, &ng, &err) == 0 &&
              ng == C.count && C.count == 1, "vf: %zu contacts", C.count);
        if (C.count == 1) {
            const double pt[3] = {0.2, 0.3, 0};
            CHECK(C.contacts[0].kind == CLASH_CONTACT_VF && C.contacts[0].obj_a == 1 && C.contacts[0].id_a == 0, "vf");
            CHECK(dst(G[0].pa, pt) < 1e-5 && dst(G[0].pb, pt) < 1e-5 && dst(G[0].point, pt) < 1e-5, "vf point");
            CHECK(fabs(G[0].normal[2] - s) < 1e-12 && fabs(G[0].w[0] - 0.5) < 1e-9 && fabs(G[0].w[1] - 0.2) < 1e-9 &&
                  fabs(G[0].w[2] - 0.3) < 1e-9 && G[0].distance < 1e-5,
                  "vf (%s): normal %g %g %g, w %g %g %g, distance %g", up ? "from below" : "from above",
                  G[0].normal[0], G[0].normal[1], G[0].normal[2], G[0].w[0], G[0].w[1], G[0].w[2], G[0].distance);
        }
        const clash_object_pair *O;
        size_t no;
        CHECK(clash_run_object_pairs(run, &O, &no, &err) == 0 && no == 1 && O[0].obj_a == 0 && O[0].obj_b == 1 &&
              O[0].contacts == 1 && O[0].face_pairs == (int64_t)P.count && C.count == 1 &&
              O[0].first_toi == C.contacts[0].toi, "object pairs of the vf scene");
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
    { /* two edges crossing at t = 0.5: a along x above, b along y */
        const double A[9] = {-1, 0.5, 0.5, 1, 0.5, 0.5, 0, 0.5, 1.5}, B[9] = {0.3, -1, 0, 0.3, 1, 0, 0.3, 0, -1};
        clash_scene *sc;
        clash_run *run = two_triangles(&sc, A, B, CLASH_MODE_SWEPT, 1);
        const double t[3] = {0, 0, -0.75};
        clash_pairs P;
        CHECK(clash_run_set_pose(run, 0, NULL, t, &err) == 0 && !first_step(run, &P), "ee: %s", err.msg);
        clash_contacts C;
        const clash_contact_geom *G;
        size_t ng;
        CHECK(clash_run_contacts(run, &C, &err) == 0 && clash_run_contact_geometry(run, &G, &ng, &err) == 0 &&
              C.count == 1 && ng == 1, "ee: %zu contacts", C.count);
        if (C.count == 1) {
            const double pt[3] = {0.3, 0.5, 0};
            CHECK(C.contacts[0].kind == CLASH_CONTACT_EE && C.contacts[0].id_a == 0 && C.contacts[0].id_b == 0, "ee");
            CHECK(dst(G[0].pa, pt) < 1e-5 && dst(G[0].pb, pt) < 1e-5 && fabs(G[0].w[0] - 0.65) < 1e-9 &&
                  fabs(G[0].w[1] - 0.75) < 1e-9 && fabs(G[0].normal[2] - 1) < 1e-12,
                  "ee: pa %g %g %g, w %g %g, normal %g %g %g", G[0].pa[0], G[0].pa[1], G[0].pa[2], G[0].w[0], G[0].w[1],
                  G[0].normal[0], G[0].normal[1], G[0].normal[2]);
        }
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
}

/* A closed box [lo, hi], outward winding. */
static void box_mesh(const double lo[3], const double hi[3], double xyz[24], int32_t tri[36])
{
    for (int i = 0; i < 8; ++i)
        xyz[3 * i] = i & 1 ? hi[0] : lo[0], xyz[3 * i + 1] = i & 2 ? hi[1] : lo[1], xyz[3 * i + 2] = i & 4 ? hi[2] : lo[2];
    const int32_t t[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                           2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    memcpy(tri, t, sizeof t);
}

static void check_penetration(void)
{
    clash_error err;
    const double h = 0.0625, slo[3] = {-10, -10, -1}, shi[3] = {10, 10, 0}, clo[3] = {0, 0, -h}, chi[3] = {1, 1, 1 - h};
    double S[24], Cb[24];
    int32_t ts[36], tc[36];
    box_mesh(slo, shi, S, ts), box_mesh(clo, chi, Cb, tc);
    clash_scene *sc;
    clash_scene_create(&sc, &err);
    clash_scene_add_mesh(sc, S, 8, ts, 12, &err), clash_scene_add_mesh(sc, Cb, 8, tc, 12, &err);
    clash_scene_add_object(sc, 0, NULL, NULL, 0, &err), clash_scene_add_object(sc, 1, NULL, NULL, 0, &err);
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_STATIC, cfg.geometry = 1;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    clash_pairs P;
    const clash_object_pair *O;
    size_t no;
    CHECK(!first_step(run, &P) && clash_run_object_pairs(run, &O, &no, &err) == 0 && no == 1, "penetration");
    if (no == 1)
        CHECK(O[0].face_pairs == (int64_t)P.count && P.count > 0 && O[0].contacts == 0 && O[0].first_toi == -1 &&
              fabs(O[0].penetration - h) < 1e-15, "penetration %.17g, expected %g (%zu pairs)", O[0].penetration, h,
              P.count);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

/* ---- 6. bad arguments ------------------------------------------------------------------------ */

static void check_bad_arguments(void)
{
    clash_error err;
    const double A[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, B[9] = {0, 0, 1, 1, 0, 1, 0, 1, 1};
    clash_scene *sc;
    clash_run *run = two_triangles(&sc, A, B, CLASH_MODE_STATIC, 0);
    clash_distance D, keep;
    memset(&D, 0x5a, sizeof D), keep = D;
    struct {
        int a, b;
        double max;
        const char *needle;
    } bad[] = {{0, 7, INFINITY, "object 7"}, {-1, 1, 1, "object -1"}, {1, 1, 1, "objects 1 and 1"},
               {0, 1, NAN, "max_distance is nan"}, {0, 1, -1e-9, "max_distance is -1e-09"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        err.msg[0] = 0;
        const int rc = clash_run_distance(run, bad[i].a, bad[i].b, bad[i].max, &D, &err);
        CHECK(rc == CLASH_EINPUT && strstr(err.msg, bad[i].needle) && !memcmp(&D, &keep, sizeof D),
              "distance bad argument %zu: rc %d, '%s'", i, rc, err.msg);
    }
    CHECK(clash_run_distance(run, 0, 1, 1, NULL, &err) == CLASH_EINPUT && strstr(err.msg, "out is NULL"), "NULL out");
    CHECK(clash_run_distance(run, 0, 1, INFINITY, &D, &err) == 0 && D.found && fabs(D.distance - 1) < 1e-15,
          "the triangles are 1 apart: %g", D.distance);
    const clash_proximity *Q = (const clash_proximity *)&keep;
    size_t nq = 5;
    const double dh[] = {NAN, -1, INFINITY};
    for (int i = 0; i < 3; ++i)
        CHECK(clash_run_proximity(run, dh[i], &Q, &nq, &err) == CLASH_EINPUT && !Q && !nq && strstr(err.msg, "dhat"),
              "proximity dhat %g: %s", dh[i], err.msg);
    CHECK(clash_run_proximity(run, 1, NULL, &nq, &err) == CLASH_EINPUT, "proximity NULL out");
    CHECK(clash_run_proximity(run, 1.5, &Q, &nq, &err) == 0 && nq == 3 + 3 + 9, "proximity within 1.5: %zu", nq);
    /* geometry calls: without ccd no contact geometry; a run without geometry refuses all three */
    const clash_contact_geom *G;
    const clash_pair_geom *PG;
    const clash_object_pair *O;
    size_t n;
    CHECK(clash_run_contact_geometry(run, &G, &n, &err) == CLASH_EINPUT && strstr(err.msg, "ccd"), "no ccd");
    CHECK(clash_run_pair_geometry(run, &PG, NULL, &err) == CLASH_EINPUT, "NULL count");
    clash_run_destroy(run);
    clash_config cfg = clash_config_default();
    run = clash_run_create(sc, &cfg, &err);
    CHECK(clash_run_pair_geometry(run, &PG, &n, &err) == CLASH_EINPUT && strstr(err.msg, "without geometry") &&
              clash_run_object_pairs(run, &O, &n, &err) == CLASH_EINPUT && !O && !n,
          "geometry off: %s", err.msg);
    CHECK(clash_config_set(&cfg, "geometry", "1", &err) == 0 && cfg.geometry == 1 &&
              clash_config_set(&cfg, "geometry", "2", &err) == CLASH_EINPUT, "config geometry");
    const int32_t *ij = (const int32_t *)&keep;
    int64_t ne = 9;
    CHECK(clash_scene_edges(sc, 2, &ij, &ne) == CLASH_EINPUT && !ij && !ne, "edges of object 2");
    CHECK(clash_scene_edges(sc, 1, &ij, &ne) == 0 && ne == 3 && ij[0] == 0 && ij[1] == 1 && ij[2] == 0 && ij[3] == 2 &&
              ij[4] == 1 && ij[5] == 2, "edges of a triangle: by j, then i");
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

int main(void)
{
    check_contact_geometry();
    check_penetration();
    check_bad_arguments();
    const char *data = check_data_dir();
    check_distances(data);
    if (!data) {
        check_finish("test_geometry");
        return check_skip("../shared/data is missing: the shared-mesh and ccd-frames checks need it");
    }
    check_frames(data, "cloth-funnel", 227);
    check_frames(data, "armadillo-rollers", 326);
    clash_mesh su = load_mesh(data, "suzanne.obj"), sp = load_mesh(data, "spot.obj");
    if (su.nfaces && sp.nfaces) check_segments(&su, &sp, "suzanne/spot"), check_segments(&su, &su, "suzanne/suzanne");
    clash_mesh_free(&su), clash_mesh_free(&sp);
    check_proximity(data);
    return check_finish("test_geometry");
}
