/*
 * test_midphases_zach.c — Zachmann's BoxTree and DOP-tree midphases
 * (--midphase boxtree, doptree; [Zachmann00] §3.5) against the oracle and the face
 * octree, and the k-DOP kernels they use.
 *
 * 1. Kernels: ck_dop_align and ck_dop_overlap equal their _ref versions on
 *    random DOPs (touching slabs, NaN offsets included), and the overlap
 *    test is symmetric.
 * 2. Random rigid scenes (random_scenes.h, 216 of them: 2–5 spheres and
 *    boxes crowded together with velocities and spins, static and swept,
 *    with and without self-collision): for every step the pair list of each
 *    tree, on 1 and 2 threads, equals the brute-force oracle's.
 * 3. The presets (default, ktk94-table1, ktak94-table1, cluttered), in their
 *    own mode and in the other one (steps capped to keep the test short),
 *    equal --midphase octree, and the run report names the tree's build
 *    time and size.
 * 4. Two copies of a shared mesh (teapot, suzanne: the latter's local frame
 *    is far from its centre) passing through each other while spinning,
 *    static and swept, equal --midphase octree; skipped with a message when
 *    ../shared/data is missing (the rest still runs).
 * 5. Deforming scenes fall back to the face octree: the pairs equal the
 *    oracle's, the step reports the fallback objects, and the report says so.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "kernels/kernels.h"
#include "out/report.h"
#include "random_scenes.h"
#include "stages/mid/midphase.h"
#include "store/scene.h"

static const int MIDS[2] = {CLASH_MID_BOXTREE, CLASH_MID_DOPTREE};
static const char *const MID_NAME[2] = {"boxtree", "doptree"};

static int same_rows(const row *a, size_t na, const row *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

/* ---- 1. kernels -------------------------------------------------------------------------- */

static void test_kernels(void)
{
    long bad = 0, hits = 0;
    for (int t = 0; t < 200000; ++t) {
        const int k = 24;
        float d[24];
        double a[24], b[24], lam[72], c[24], o1[24], o2[24];
        int32_t j[72];
        for (int i = 0; i < k; ++i) {
            d[i] = (float)(int)(8 * srand1());
            a[i] = b[i] = 3; /* overlapping, except on the slabs drawn below (integers: exact touching) */
            c[i] = srand1();
        }
        for (int q = 1 + t % 3; q > 0; --q) {
            const int i = (int)(urand() * k);
            a[i] = (double)(int)(4 * srand1()), b[i < k / 2 ? i + k / 2 : i - k / 2] = (double)(int)(4 * srand1());
        }
        if (t % 97 == 0) a[(int)(urand() * k)] = NAN;
        for (int i = 0; i < 3 * k; ++i) j[i] = (int32_t)(urand() * k), lam[i] = urand();
        ck_dop_align(k, j, lam, c, d, o1);
        ck_dop_align_ref(k, j, lam, c, d, o2);
        if (memcmp(o1, o2, sizeof o1)) ++bad;
        const double g = t % 3 ? 0.0 : 1.0;
        const int r = ck_dop_overlap_ref(k, a, b, g);
        if (ck_dop_overlap(k, a, b, g) != r || ck_dop_overlap(k, b, a, g) != r) ++bad;
        hits += r;
        /* k = 6 (one slab group short of 4): the tail loop */
        if (ck_dop_overlap(6, a, b, g) != ck_dop_overlap_ref(6, a, b, g)) ++bad;
    }
    CHECK(bad == 0, "DOP kernels differ from the reference in %ld cases", bad);
    CHECK(hits > 100 && hits < 190000, "random DOPs should both overlap and miss: %ld overlaps", hits);
}

/* ---- 2. random rigid scenes against the oracle ------------------------------------------- */

static void test_random(void)
{
    static const int faces[4] = {8, 24, 48, 80};
    long total = 0, with_pairs = 0;
    const int nscenes = 216;
    for (int i = 0; i < nscenes; ++i) {
        clash_error err = {0};
        clash_scene *sc = rs_rigid(faces, 1, &err);
        CHECK(sc != NULL, "scene %d: %s", i, err.msg);
        if (!sc) continue;
        clash_config base = clash_config_default();
        base.mode = i % 2 ? CLASH_MODE_STATIC : CLASH_MODE_SWEPT;
        base.self_collision = (i / 2) % 3 == 0;
        base.threads = 1;
        clash_config c = base;
        c.midphase = CLASH_MID_BRUTE;
        size_t no, nv;
        int ok = 1;
        row *ro = rs_run_rows(sc, c, -1, &no, &ok);
        total += (long)no, with_pairs += no > 0;
        for (int v = 0; v < 4 && ok; ++v) {
            c = base;
            c.midphase = MIDS[v / 2];
            c.threads = 1 + v % 2;
            c.schedule = i % 4 == 3 ? CLASH_SCHED_STEALING : CLASH_SCHED_DYNAMIC;
            row *rv = rs_run_rows(sc, c, -1, &nv, &ok);
            CHECK(same_rows(ro, no, rv, nv), "scene %d (%s%s), %s on %d threads: %zu pairs, oracle %zu", i,
                  base.mode ? "swept" : "static", base.self_collision ? ", self" : "", MID_NAME[v / 2], c.threads, nv,
                  no);
            free(rv);
        }
        free(ro);
        clash_scene_destroy(sc);
    }
    printf("random rigid scenes: %ld colliding pairs over %d scenes, %d with collisions\n", total, nscenes,
           (int)with_pairs);
    CHECK(with_pairs >= nscenes / 5 && with_pairs <= nscenes - nscenes / 10,
          "scenes should mix collisions and none: %ld with pairs", with_pairs);
}

/* ---- 3. presets, 4. meshes: against the octree --------------------------------------------- */

/* Runs sc with cfg; rows of every step, and the run report (when rep) written to a string. */
static row *run_report(clash_scene *sc, clash_config cfg, size_t *n, int *ok, char **rep)
{
    clash_error err;
    *n = 0;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    if (!run) {
        CHECK(0, "run_create: %s", err.msg);
        return *ok = 0, NULL;
    }
    clash_scene_apply_defaults(sc, &cfg);
    clash_run_totals tot;
    clash_totals_init(&tot);
    size_t cap = 64;
    row *rows = malloc(cap * sizeof *rows);
    for (int s = 1; s <= cfg.steps; ++s) {
        clash_pairs p;
        clash_step_stats st;
        if (clash_step(run, s, &p, &st, &err)) {
            CHECK(0, "step %d: %s", s, err.msg);
            *ok = 0;
            break;
        }
        clash_totals_add(&tot, s, &p, &st);
        for (size_t i = 0; i < p.count; ++i) {
            if (*n == cap) rows = realloc(rows, (cap *= 2) * sizeof *rows);
            rows[(*n)++] = (row){s, p.pairs[i]};
        }
    }
    if (rep) {
        size_t len = 0;
        FILE *f = open_memstream(rep, &len);
        const clash_report_info ri = {.scene = sc, .cfg = &cfg, .threads = cfg.threads, .ranks = 1,
                                      .midphase = clash_midphase_name(cfg.midphase)};
        clash_report_write_yaml(f, &ri, &tot);
        fclose(f);
    }
    clash_run_destroy(run);
    return rows;
}

/* The trees against the octree on sc, in mode (and the scene's self setting), steps capped. */
static long against_octree(clash_scene *sc, const char *what, int mode, int steps, int threads)
{
    clash_config base = clash_config_default();
    base.mode = mode;
    base.threads = threads;
    if (steps > 0) base.steps = steps;
    clash_config c = base;
    c.midphase = CLASH_MID_OCTREE;
    size_t nt, nv;
    int ok = 1;
    row *rt = run_report(sc, c, &nt, &ok, NULL);
    for (int m = 0; m < 2 && ok; ++m) {
        c = base;
        c.midphase = MIDS[m];
        char *rep = NULL;
        row *rv = run_report(sc, c, &nv, &ok, &rep);
        CHECK(same_rows(rt, nt, rv, nv), "%s (%s): %s %zu pairs, octree %zu", what, mode ? "swept" : "static",
              MID_NAME[m], nv, nt);
        char want[64];
        snprintf(want, sizeof want, "midphase: {name: %s, build_s: ", MID_NAME[m]);
        CHECK(rep && strstr(rep, want) && strstr(rep, ", bytes: ") && !strstr(rep, "midphase_fallback"),
              "%s: the report should give the %s's build time and size:\n%s", what, MID_NAME[m], rep ? rep : "");
        free(rep), free(rv);
    }
    free(rt);
    return (long)nt;
}

static void test_presets(void)
{
    static const char *const names[4] = {"default", "ktk94-table1", "ktak94-table1", "cluttered"};
    static const int caps[4] = {8, 0, 0, 8}; /* steps (0: the preset's) */
    for (int i = 0; i < 4; ++i) {
        clash_scene *sc;
        clash_error err;
        const clash_preset_params pp = {0};
        if (clash_scene_preset(names[i], &pp, &sc, &err)) {
            CHECK(0, "preset %s: %s", names[i], err.msg);
            continue;
        }
        clash_config d = clash_config_default();
        clash_scene_apply_defaults(sc, &d);
        long own = against_octree(sc, names[i], d.mode, caps[i], 2);
        long other = against_octree(sc, names[i], 1 - d.mode, caps[i], 1);
        printf("preset %s: %ld pairs (%s), %ld (%s)\n", names[i], own, d.mode ? "swept" : "static", other,
               d.mode ? "static" : "swept");
        clash_scene_destroy(sc);
    }
}

static void test_meshes(void)
{
    const char *data = check_data_dir();
    if (!data) {
        printf("SKIP part: ../shared/data is missing: no teapot/suzanne pass-through test\n");
        return;
    }
    static const char *const files[2] = {"teapot.obj", "suzanne.obj"};
    static const double size[2] = {6.4, 2.8}; /* about the meshes' widths */
    for (int m = 0; m < 2; ++m) {
        char path[512];
        snprintf(path, sizeof path, "%s/meshes/%s", data, files[m]);
        clash_mesh_desc md = {.name = "mesh", .kind = CLASH_MESH_FILE, .path = path, .scale = 1};
        const double w = size[m];
        /* suzanne is kept in its own (off-centre) frame, the teapot is centred;
         * B passes through A along x in 10 steps, both spinning */
        const double ox = m ? 2.5 : 0, oz = m ? -4.1 : 0;
        md.center = m == 0;
        clash_object_desc od[2] = {
            {.mesh = 0, .scale = 1, .position = {ox, 0, oz}, .angular_velocity_deg = {0, 0, 7}},
            {.mesh = 0, .scale = 0.9, .position = {ox - 1.2 * w, 0.1 * w, oz + 0.05 * w}, .rotation_deg = {20, 30, 40},
             .velocity = {0.24 * w, 0, 0}, .angular_velocity_deg = {11, -5, 3}}};
        clash_scene_desc d = {.name = "pass-through", .steps = 10, .mode = CLASH_MODE_STATIC,
                              .nmeshes = 1, .meshes = &md, .nobjects = 2, .objects = od};
        clash_scene *sc;
        clash_error err;
        if (clash_scene_build(&d, &sc, &err)) {
            CHECK(0, "%s: %s", files[m], err.msg);
            continue;
        }
        const long ns = against_octree(sc, files[m], CLASH_MODE_STATIC, 0, 2);
        const long nw = against_octree(sc, files[m], CLASH_MODE_SWEPT, 0, 1);
        printf("two %s passing through each other: %ld pairs (static), %ld (swept) over 10 steps\n", files[m], ns, nw);
        CHECK(ns > 20 && nw > ns, "%s: the copies should meet, swept more than static: %ld, %ld", files[m], ns, nw);
        clash_scene_destroy(sc);
    }
}

/* ---- 5. deforming scenes fall back ------------------------------------------------------------ */

static void test_deforming(void)
{
    static const int faces[4] = {24, 48, 80, 168};
    char dir[] = "/tmp/clash-zach-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "cannot make a temporary folder");
        return;
    }
    for (int i = 0; i < 6; ++i) {
        clash_error err = {0};
        clash_scene *sc = rs_deforming(faces, dir, i, 3, i % 2, &err);
        CHECK(sc != NULL, "deforming scene %d: %s", i, err.msg);
        if (!sc) continue;
        clash_config base = clash_config_default();
        base.mode = i / 2 % 2 ? CLASH_MODE_STATIC : CLASH_MODE_SWEPT;
        base.self_collision = i >= 3;
        base.threads = 1 + i % 2;
        clash_config c = base;
        c.midphase = CLASH_MID_BRUTE;
        size_t no, nv;
        int ok = 1;
        row *ro = rs_run_rows(sc, c, -1, &no, &ok);
        for (int m = 0; m < 2 && ok; ++m) {
            c = base;
            c.midphase = MIDS[m];
            char *rep = NULL;
            row *rv = run_report(sc, c, &nv, &ok, &rep);
            CHECK(same_rows(ro, no, rv, nv), "deforming scene %d: %s %zu pairs, oracle %zu", i, MID_NAME[m], nv, no);
            char want[96];
            snprintf(want, sizeof want, "midphase_fallback: {objects: %d, reason: deforming, to: octree}",
                     clash_scene_objects(sc));
            CHECK(rep && strstr(rep, want), "deforming scene %d: the report should show the fallback:\n%s", i,
                  rep ? rep : "");
            free(rep), free(rv);
            /* the step's own count */
            clash_run *run = clash_run_create(sc, &c, &err);
            clash_pairs p;
            clash_step_stats st;
            CHECK(run && !clash_step(run, 1, &p, &st, &err) && st.mid_fallback_objects == clash_scene_objects(sc) &&
                      st.mid_bytes == 0,
                  "deforming scene %d: %s step stats: fallback %lld objects", i, MID_NAME[m],
                  (long long)st.mid_fallback_objects);
            clash_run_destroy(run);
        }
        free(ro);
        clash_scene_destroy(sc);
    }
    rmdir(dir);
}

int main(void)
{
    test_kernels();
    test_random();
    test_presets();
    test_meshes();
    test_deforming();
    return check_finish("test_midphases_zach");
}
