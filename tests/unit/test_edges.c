/*
 * test_edges.c — the edge tables of --ccd (core/edges.h) against an
 * independent construction.  A scene of several copies each of two random
 * meshes (vertices shuffled, so edge ends come in every order), Morton
 * reordered (so store and input numbering differ), its table made by a
 * --ccd run's creation (the meshes' tables shared by their copies, filled
 * in parallel over two threads) and, separately, covering the first objects
 * and then extended to the rest (clash_edges_update).  For every object the
 * test collects its input-numbered edges itself (each face's three corner
 * pairs, sorted by larger end, then smaller, de-duplicated) and checks:
 * the object's edge count, each edge's two ends as store vertices, and
 * every store face's three edge ids.  The extended table must equal the
 * whole one, id for id.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/edges.h"
#include "core/run.h"
#include "stages/stages.h"
#include "rng.h"

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A random closed-ish triangle soup of nv vertices and nf faces, no face
 * repeating a vertex. */
static int add_random_mesh(clash_scene *sc, int nv, int nf, clash_error *err)
{
    double *xyz = malloc(3 * (size_t)nv * sizeof *xyz);
    int32_t *tri = malloc(3 * (size_t)nf * sizeof *tri);
    for (int i = 0; i < 3 * nv; ++i) xyz[i] = rng_range(-1, 1);
    for (int f = 0; f < nf; ++f) {
        const int a = rng_int(0, nv - 1);
        int b = rng_int(0, nv - 2), c = rng_int(0, nv - 3);
        b += b >= a; /* three distinct vertices, near each other in number now and then */
        if (c >= (a < b ? a : b)) ++c;
        if (c >= (a < b ? b : a)) ++c;
        tri[3 * f] = a, tri[3 * f + 1] = b, tri[3 * f + 2] = c;
        if (f % 3 == 1) tri[3 * f] = tri[3 * f - 2], tri[3 * f + 1] = tri[3 * f - 3]; /* shared edges, reversed */
        if (tri[3 * f + 2] == tri[3 * f] || tri[3 * f + 2] == tri[3 * f + 1]) tri[3 * f + 2] = (tri[3 * f] + 1) % nv;
        if (tri[3 * f + 2] == tri[3 * f + 1]) tri[3 * f + 2] = (tri[3 * f + 2] + 1) % nv;
    }
    const int m = clash_scene_add_mesh(sc, xyz, nv, tri, nf, err);
    free(xyz), free(tri);
    return m;
}

/* The independent check of object o in table E. */
static void check_object(const clash_scene *sc, const clash_edges *E, int o)
{
    const int64_t nf = sc->fofs[o + 1] - sc->fofs[o], v0 = sc->vofs[o];
    uint64_t *k = malloc((3 * (size_t)nf + 1) * sizeof *k);
    int64_t ix[3], n = 0;
    for (int64_t g = 0; g < nf; ++g) {
        const int64_t f = clash_face_store(sc, sc->fofs[o] + g);
        const int32_t v[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
        for (int c = 0; c < 3; ++c) ix[c] = clash_vert_orig(sc, v[c]) - v0;
        for (int c = 0; c < 3; ++c) {
            const int64_t a = ix[c], b = ix[(c + 1) % 3];
            k[n++] = (uint64_t)(a < b ? b : a) << 32 | (uint64_t)(a < b ? a : b);
        }
    }
    qsort(k, (size_t)n, sizeof *k, cmp_u64);
    int64_t m = 0;
    for (int64_t i = 0; i < n; ++i)
        if (!m || k[i] != k[m - 1]) k[m++] = k[i];
    CHECK(E->eofs[o + 1] - E->eofs[o] == m, "object %d: %lld edges, expected %lld", o,
          (long long)(E->eofs[o + 1] - E->eofs[o]), (long long)m);
    long bad = 0;
    for (int64_t q = 0; q < m && q < E->eofs[o + 1] - E->eofs[o]; ++q) {
        const int64_t e = E->eofs[o] + q;
        bad += E->ev0[e] != (uint32_t)clash_vert_store(sc, v0 + (int64_t)(k[q] & 0xffffffffu));
        bad += E->ev1[e] != (uint32_t)clash_vert_store(sc, v0 + (int64_t)(k[q] >> 32));
    }
    CHECK(bad == 0, "object %d: %ld edge ends differ", o, bad);
    bad = 0;
    for (int64_t g = 0; g < nf; ++g) {
        const int64_t f = clash_face_store(sc, sc->fofs[o] + g);
        const int32_t v[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
        for (int c = 0; c < 3; ++c) ix[c] = clash_vert_orig(sc, v[c]) - v0;
        for (int c = 0; c < 3; ++c) {
            const int64_t a = ix[c], b = ix[(c + 1) % 3];
            const uint64_t key = (uint64_t)(a < b ? b : a) << 32 | (uint64_t)(a < b ? a : b);
            const uint64_t *hit = bsearch(&key, k, (size_t)m, sizeof *k, cmp_u64);
            bad += !hit || E->fe[3 * f + c] != (uint32_t)(E->eofs[o] + (hit - k));
        }
    }
    CHECK(bad == 0, "object %d: %ld face edges differ", o, bad);
    free(k);
}

int main(void)
{
    clash_error err;
    clash_scene *sc;
    CHECK(clash_scene_create(&sc, &err) == CLASH_OK, "scene: %s", err.msg);
    const int m0 = add_random_mesh(sc, 300, 500, &err), m1 = add_random_mesh(sc, 120, 200, &err);
    CHECK(m0 >= 0 && m1 >= 0, "meshes: %s", err.msg);
    const int NOBJ = 9;
    for (int o = 0; o < NOBJ; ++o) {
        const double t[3] = {3.0 * o, 0, 0};
        CHECK(clash_scene_add_object(sc, o % 3 == 2 ? m1 : m0, NULL, t, 0, &err) == o, "object %d: %s", o,
              err.msg);
    }
    clash_config cfg = clash_config_default();
    cfg.ccd = 1, cfg.threads = 2, cfg.reorder = CLASH_REORDER_MORTON, cfg.mode = CLASH_MODE_SWEPT;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run != NULL, "run: %s", err.msg);
    if (!run) return check_finish("test_edges");
    CHECK(sc->face_orig != NULL, "the store was not reordered: the test would not tell store from input numbers");
    const clash_edges *E = run->edges;
    CHECK(E && E->nobj == NOBJ, "the --ccd run made no table at creation");
    if (E && E->nobj == NOBJ)
        for (int o = 0; o < NOBJ; ++o) check_object(sc, E, o);
    /* the same table made for the first four objects, then extended */
    clash_edges *X = NULL;
    const int all = sc->nobj;
    sc->nobj = 4;
    CHECK(clash_edges_update(&X, sc, &run->exec) == 0, "update over 4 objects failed");
    sc->nobj = all;
    CHECK(X && X->nobj == 4, "the partial table covers %d objects", X ? X->nobj : -1);
    CHECK(clash_edges_update(&X, sc, &run->exec) == 0 && X->nobj == NOBJ, "extension failed");
    if (E && X && X->nobj == NOBJ) {
        CHECK(X->ne == E->ne, "extended: %lld edges, whole: %lld", (long long)X->ne, (long long)E->ne);
        long bad = 0;
        for (int o = 0; o <= NOBJ; ++o) bad += X->eofs[o] != E->eofs[o];
        for (int64_t e = 0; e < E->ne && e < X->ne; ++e) bad += X->ev0[e] != E->ev0[e] || X->ev1[e] != E->ev1[e];
        for (int64_t i = 0; i < 3 * sc->nf; ++i) bad += X->fe[i] != E->fe[i];
        CHECK(bad == 0, "the extended table differs from the whole one in %ld places", bad);
    }
    clash_edges_free(X);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return check_finish("test_edges");
}
