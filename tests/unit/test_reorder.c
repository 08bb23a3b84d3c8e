/*
 * test_reorder.c — the Morton reordering of the scene store (reorder.c).
 *
 * 36 random scenes (random_scenes.h: rigid spheres and boxes, deforming
 * jittered spheres), static and swept, with and without self-collision,
 * octree and bvh midphases, built twice from the same random draw; the
 * second copy is reordered.  For each:
 *  - the maps are inverse permutations that keep every object's ranges,
 *    and they really move faces (not the identity);
 *  - every store face of the reordered copy is the input face it claims to
 *    be (same input vertices, same positions);
 *  - every (step, pair) row of a run, on 1 and 2 threads, equals the plain
 *    copy's, and so does clash_scene_vertex_at;
 *  - a second reordering composes (rows still equal, maps consistent).
 * Every fourth scene is also shuffled (clash_store_shuffle): the maps hold,
 * its rows equal the plain copy's as stored and after cfg.reorder = morton
 * reorders it in clash_run_create.
 * On a few scenes the VTK series of both copies must be byte-identical, and
 * cfg.reorder = morton must reorder the scene in clash_run_create.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "random_scenes.h"
#include "out/vtk.h"

static const int FACES[4] = {48, 80, 120, 168};
static char dir[64];

static clash_scene *make(int i, clash_error *err)
{
    if (i % 3 == 2) return rs_deforming(FACES, dir, i, 3, i % 2, err);
    return rs_rigid(FACES, 2, err);
}

static void check_maps(const clash_scene *a, const clash_scene *b, int i)
{
    CHECK(b->face_orig && b->face_store && b->vert_orig && b->vert_store, "scene %d: maps exist", i);
    if (!b->face_orig) return;
    long bad = 0, moved = 0;
    for (int64_t f = 0; f < b->nf; ++f) {
        const int64_t g = b->face_orig[f];
        if (g < 0 || g >= b->nf || b->face_store[g] != f) ++bad;
        moved += g != f;
    }
    for (int64_t v = 0; v < b->nv; ++v) {
        const int64_t g = b->vert_orig[v];
        if (g < 0 || g >= b->nv || b->vert_store[g] != v) ++bad;
    }
    CHECK(bad == 0, "scene %d: maps are inverse permutations (%ld bad)", i, bad);
    if (b->nf >= 96) CHECK(moved > 0, "scene %d: the reordering moved none of %lld faces", i, (long long)b->nf);
    /* objects keep their ranges; faces are the input faces they claim to be */
    long wrong = 0;
    for (int o = 0; o < b->nobj; ++o)
        for (int64_t f = b->fofs[o]; f < b->fofs[o + 1]; ++f) {
            const int64_t g = b->face_orig[f];
            if (g < a->fofs[o] || g >= a->fofs[o + 1]) ++wrong;
            const int32_t fb[3] = {b->f0[f], b->f1[f], b->f2[f]}, fa[3] = {a->f0[g], a->f1[g], a->f2[g]};
            for (int k = 0; k < 3; ++k) {
                if (b->vert_orig[fb[k]] != (uint32_t)fa[k]) ++wrong;
                if (fb[k] < b->vofs[o] || fb[k] >= b->vofs[o + 1]) ++wrong;
                if ((a->lx[fa[k]] != b->lx[fb[k]] || a->ly[fa[k]] != b->ly[fb[k]] ||
                                      a->lz[fa[k]] != b->lz[fb[k]]))
                    ++wrong;
            }
        }
    CHECK(wrong == 0, "scene %d: %ld face/vertex mismatches after reordering", i, wrong);
}

static int rows_equal(const row *x, size_t nx, const row *y, size_t ny)
{
    if (nx != ny) return 0;
    for (size_t k = 0; k < nx; ++k)
        if (x[k].step != y[k].step || memcmp(&x[k].p, &y[k].p, sizeof x[k].p)) return 0;
    return 1;
}

static void check_vertices(clash_scene *a, clash_scene *b, int i, int steps)
{
    long bad = 0;
    for (int o = 0; o < a->nobj; ++o)
        for (int64_t v = 0; v < a->vofs[o + 1] - a->vofs[o]; v += 7)
            for (int s = 0; s <= steps; ++s) {
                double pa[3], pb[3];
                const int ra = clash_scene_vertex_at(a, o, v, s, pa, NULL),
                          rb = clash_scene_vertex_at(b, o, v, s, pb, NULL);
                if (ra != rb || (!ra && memcmp(pa, pb, sizeof pa))) ++bad;
            }
    CHECK(bad == 0, "scene %d: clash_scene_vertex_at differs in %ld cases", i, bad);
}

/* Writes the VTK series of sc under dir/name; returns 0 on success. */
static int write_series(clash_scene *sc, clash_config cfg, const char *name)
{
    clash_error err;
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    clash_run *run = clash_run_create(sc, &cfg, &err);
    clash_vtk *v = run ? clash_vtk_open(path, sc, &err) : NULL;
    int rc = run && v ? 0 : -1;
    for (int s = 1; s <= cfg.steps && !rc; ++s) {
        clash_pairs p;
        rc = clash_step(run, s, &p, NULL, &err) || clash_vtk_step(v, s, &p, &err);
    }
    if (!rc) rc = clash_vtk_commit(v, &err);
    else if (v) clash_vtk_abort(v);
    CHECK(rc == 0, "VTK series %s: %s", name, err.msg);
    clash_run_destroy(run);
    return rc;
}

static void check_vtk(clash_scene *a, clash_scene *b, clash_config cfg, int i)
{
    clash_scene_apply_defaults(a, &cfg);
    char na[32], nb[32];
    snprintf(na, sizeof na, "plain%d", i), snprintf(nb, sizeof nb, "morton%d", i);
    if (write_series(a, cfg, na) || write_series(b, cfg, nb)) return;
    int same = 1;
    for (int s = 1; s <= cfg.steps; ++s) {
        char pa[160], pb[160];
        snprintf(pa, sizeof pa, "%s/%s/step_%06d.vtp", dir, na, s);
        snprintf(pb, sizeof pb, "%s/%s/step_%06d.vtp", dir, nb, s);
        char *x = check_read_file(pa), *y = check_read_file(pb);
        same &= x && y && !strcmp(x, y);
        free(x), free(y);
    }
    CHECK(same, "scene %d: the VTK series of the reordered store differs from the plain one", i);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/clash-test-reorder.XXXXXX");
    if (!mkdtemp(dir)) return check_skip("cannot create a temporary folder");
    int compared = 0, with_hits = 0;
    for (int i = 0; i < 36; ++i) {
        clash_error err;
        const uint64_t seed = rs_state;
        clash_scene *a = make(i, &err);
        rs_state = seed;
        clash_scene *b = make(i, &err);
        CHECK(a && b, "scene %d builds: %s", i, err.msg);
        if (!a || !b) continue;
        CHECK(clash_scene_reorder_morton(b, &err) == 0, "scene %d reorders: %s", i, err.msg);
        check_maps(a, b, i);
        clash_config cfg = clash_config_default();
        cfg.reorder = CLASH_REORDER_NONE; /* scene a stays in input order; b is reordered by hand */
        cfg.mode = i % 2 ? CLASH_MODE_SWEPT : CLASH_MODE_STATIC;
        cfg.self_collision = i % 4 == 1;
        cfg.midphase = i % 5 == 0 ? CLASH_MID_BVH : CLASH_MID_OCTREE;
        int ok = 1;
        for (int t = 1; t <= 2; ++t) {
            cfg.threads = t;
            size_t na, nb;
            row *ra = rs_run_rows(a, cfg, -1, &na, &ok), *rb = rs_run_rows(b, cfg, -1, &nb, &ok);
            CHECK(rows_equal(ra, na, rb, nb), "scene %d, %d threads: %zu rows plain, %zu reordered, or they differ", i,
                  t, na, nb);
            compared++, with_hits += na > 0;
            free(ra), free(rb);
        }
        clash_config d = cfg;
        clash_scene_apply_defaults(a, &d);
        check_vertices(a, b, i, d.steps);
        if (i % 6 == 0) { /* a second reordering composes with the first */
            CHECK(clash_scene_reorder_morton(b, &err) == 0, "scene %d reorders again: %s", i, err.msg);
            check_maps(a, b, i);
            size_t na, nb;
            row *ra = rs_run_rows(a, cfg, -1, &na, &ok), *rb = rs_run_rows(b, cfg, -1, &nb, &ok);
            CHECK(rows_equal(ra, na, rb, nb), "scene %d reordered twice: rows differ", i);
            free(ra), free(rb);
        }
        if (i % 4 == 3) { /* a shuffled store: the same rows, as stored and after the run's own reordering */
            rs_state = seed;
            clash_scene *c = make(i, &err);
            CHECK(c && clash_store_shuffle(c, (uint64_t)i, &err) == 0, "scene %d shuffles: %s", i, err.msg);
            if (c) {
                check_maps(a, c, i);
                CHECK(c->morton_nobj == 0, "scene %d: a shuffled store is not marked as in Morton order", i);
                clash_config cm = cfg;
                cm.reorder = CLASH_REORDER_MORTON;
                size_t na, nc, nm;
                row *ra = rs_run_rows(a, cfg, -1, &na, &ok), *rc = rs_run_rows(c, cfg, -1, &nc, &ok);
                CHECK(rows_equal(ra, na, rc, nc), "scene %d shuffled: rows differ from the plain scene's", i);
                row *rm = rs_run_rows(c, cm, -1, &nm, &ok);
                CHECK(c->morton_nobj == c->nobj && rows_equal(ra, na, rm, nm),
                      "scene %d shuffled, then reordered by the run: not reordered, or rows differ", i);
                free(ra), free(rc), free(rm);
            }
            clash_scene_destroy(c);
        }
        if (i < 6) check_vtk(a, b, cfg, i);
        if (i == 7) { /* through the configuration: clash_run_create reorders */
            clash_config cr = cfg;
            cr.reorder = CLASH_REORDER_MORTON;
            size_t na, nc = 0;
            rs_state = seed;
            clash_scene *c = make(i, &err);
            row *ra = rs_run_rows(a, cfg, -1, &na, &ok), *rc = c ? rs_run_rows(c, cr, -1, &nc, &ok) : NULL;
            CHECK(c && c->face_orig != NULL, "cfg.reorder = morton reorders the scene");
            CHECK(c && rows_equal(ra, na, rc, nc), "cfg.reorder = morton: rows equal the plain scene's");
            free(ra), free(rc);
            clash_scene_destroy(c);
        }
        clash_scene_destroy(a), clash_scene_destroy(b);
    }
    CHECK(with_hits > compared / 3, "enough runs with collisions to compare (%d of %d)", with_hits, compared);
    if (!check_failed_) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
    }
    return check_finish("test_reorder");
}
