/*
 * test_midphases.c — the object-octree and spherical-octree midphases
 * (--midphase objoctree, spherical; [KTK94]/[KTAK94] and [TC96]) against the oracle and
 * the face octree.  Both are culling methods: the face-pair test decides,
 * so their pair sets must equal the others' exactly.
 *
 * 1. Random rigid scenes (random_scenes.h, 216 of them: 2–5 spheres and
 *    boxes crowded together with velocities and spins, several steps;
 *    static and swept, with and without self-collision): for every step
 *    the pair list of each midphase, on 1 and 2 threads (automatic and
 *    random tree depths, several schedules), equals the brute-force
 *    oracle's.
 * 2. The presets (default, ktk94-table1, ktak94-table1, cluttered), in their
 *    own mode and in the other one (steps capped to keep the test short),
 *    equal --midphase octree; the run report gives the structure's build
 *    time, size and update time.
 * 3. Two copies of a shared mesh (spot, cow: the cow kept in its own frame
 *    and placed far from the origin, where float rounding is coarse)
 *    passing through each other while spinning, static, swept and swept
 *    with self-collision, equal --midphase octree; that part is skipped
 *    with a message when ../shared/data is missing (the rest still runs).
 * 4. The step stats: the build time on the first step only, the size on
 *    every step, interfering nodes once objects meet.
 * 5. Deforming scenes fall back to the face octree: the pairs equal the
 *    oracle's, the step reports the fallback objects, and the report says so.
 * 6. The midphases' table (stages/mid/midphase.c), which the pipeline, the
 *    configuration, the command and the report read: row k is CLASH_MID_k,
 *    its name sets that midphase through clash_config_set, the names are
 *    distinct and listed in table order, the flags are the ones the
 *    pipeline relies on, and after a step of a rigid scene every midphase
 *    that keeps state has it in its slot.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "out/report.h"
#include "random_scenes.h"
#include "stages/mid/midphase.h"
#include "store/scene.h"

static const int MIDS[2] = {CLASH_MID_OBJOCTREE, CLASH_MID_SPHERICAL};
static const char *const NAME[2] = {"objoctree", "spherical"};

static int same_rows(const row *a, size_t na, const row *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

/* Prints the first rows where two row lists differ. */
static void show_diff(const row *a, size_t na, const row *b, size_t nb, const char *an, const char *bn)
{
    int shown = 0;
    for (size_t i = 0, j = 0; (i < na || j < nb) && shown < 8;) {
        const int c = i >= na ? 1 : j >= nb ? -1 : memcmp(&a[i], &b[j], sizeof *a);
        if (!c) {
            ++i, ++j;
            continue;
        }
        const row *r = c < 0 ? &a[i++] : &b[j++];
        fprintf(stderr, "  %s only: step %d (%u,%u)-(%u,%u)\n", c < 0 ? an : bn, r->step, r->p.obj_a, r->p.face_a,
                r->p.obj_b, r->p.face_b);
        ++shown;
    }
}

/* Runs sc with cfg; returns the rows, and the run report in *rep (malloc'd) when asked. */
static row *run_report(clash_scene *sc, clash_config cfg, size_t *n, int *ok, char **rep, clash_run_totals *out)
{
    clash_error err;
    *n = 0;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    if (!run) {
        CHECK(0, "run_create: %s", err.msg);
        *ok = 0;
        return NULL;
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
        const clash_report_info ri = {.scene = sc, .cfg = &cfg, .threads = run->threads, .ranks = 1,
                                      .midphase = clash_midphase_name(cfg.midphase)};
        clash_report_write_yaml(f, &ri, &tot);
        fclose(f);
    }
    if (out) *out = tot;
    clash_run_destroy(run);
    return rows;
}

/* ---- 1. random rigid scenes against the oracle ---------------------------------------------- */

static void test_random(void)
{
    static const int faces[4] = {8, 24, 48, 80};
    long total = 0, with_pairs = 0, runs = 0;
    const int nscenes = 216;
    for (int i = 0; i < nscenes; ++i) {
        clash_error err = {0};
        clash_scene *sc = rs_rigid(faces, 2, &err);
        CHECK(sc != NULL, "scene %d: %s", i, err.msg);
        if (!sc) continue;
        clash_config base = clash_config_default();
        base.mode = (i / 2) % 2 ? CLASH_MODE_STATIC : CLASH_MODE_SWEPT;
        base.self_collision = (i / 4) % 2;
        base.threads = 1;
        clash_config c = base;
        c.midphase = CLASH_MID_BRUTE;
        size_t no, nv;
        int ok = 1;
        row *ro = rs_run_rows(sc, c, -1, &no, &ok);
        total += (long)no, with_pairs += no > 0;
        for (int v = 0; v < 4 && ok; ++v) {
            c = base;
            c.midphase = MIDS[v % 2];
            c.threads = 1 + v / 2;
            c.octree_level = i % 3 == 2 ? 1 + (int)(urand() * 7) : 0;
            c.schedule = v == 3 && i % 2 ? CLASH_SCHED_STATIC_STRIDE : CLASH_SCHED_DYNAMIC;
            c.broadphase = i % 5 == 4 ? CLASH_BROAD_SAP : CLASH_BROAD_AUTO;
            row *rv = rs_run_rows(sc, c, -1, &nv, &ok);
            const int same = same_rows(ro, no, rv, nv);
            CHECK(same, "scene %d (%s%s), %s, %d threads, level %d: %zu pairs, oracle %zu", i,
                  base.mode ? "swept" : "static", base.self_collision ? ", self" : "", NAME[v % 2], c.threads,
                  c.octree_level, nv, no);
            if (!same) show_diff(ro, no, rv, nv, "oracle", NAME[v % 2]);
            free(rv);
            ++runs;
        }
        free(ro);
        clash_scene_destroy(sc);
    }
    printf("random rigid scenes: %ld runs, %ld oracle pairs, %ld of %d scenes with collisions\n", runs, total,
           with_pairs, nscenes);
    CHECK(with_pairs >= nscenes / 4 && with_pairs <= nscenes - nscenes / 48,
          "scenes should mix collisions and none: %ld of %d", with_pairs, nscenes);
}

/* ---- 2./3. against the face octree ------------------------------------------------------------ */

/* Both midphases against the octree on sc in mode, steps capped (0: the scene's). */
static long against_octree(clash_scene *sc, const char *what, int mode, int self, int steps, int threads)
{
    clash_config base = clash_config_default();
    base.mode = mode;
    base.threads = threads;
    if (self >= 0) base.self_collision = self;
    if (steps > 0) base.steps = steps;
    clash_config c = base;
    c.midphase = CLASH_MID_OCTREE;
    size_t nt, nv;
    int ok = 1;
    row *rt = run_report(sc, c, &nt, &ok, NULL, NULL);
    for (int m = 0; m < 2 && ok; ++m) {
        c = base;
        c.midphase = MIDS[m];
        char *rep = NULL;
        row *rv = run_report(sc, c, &nv, &ok, &rep, NULL);
        const int same = same_rows(rt, nt, rv, nv);
        CHECK(same, "%s (%s%s): %s %zu pairs, octree %zu", what, mode ? "swept" : "static", self > 0 ? ", self" : "",
              NAME[m], nv, nt);
        if (!same) show_diff(rt, nt, rv, nv, "octree", NAME[m]);
        char want[64];
        snprintf(want, sizeof want, "midphase: {name: %s, build_s: ", NAME[m]);
        CHECK(rep && strstr(rep, want) && strstr(rep, ", bytes: ") && strstr(rep, ", update_s: ") &&
                  !strstr(rep, "midphase_fallback"),
              "%s: the report should give the %s's build time, size and update:\n%s", what, NAME[m], rep ? rep : "");
        free(rep), free(rv);
    }
    free(rt);
    return (long)nt;
}

static void test_presets(void)
{
    static const char *const names[4] = {"default", "ktk94-table1", "ktak94-table1", "cluttered"};
    static const int caps[4] = {6, 0, 0, 6}; /* steps (0: the preset's) */
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
        const long own = against_octree(sc, names[i], d.mode, -1, caps[i], 2);
        const long other = against_octree(sc, names[i], 1 - d.mode, -1, caps[i], 1);
        printf("preset %s: %ld pairs (%s), %ld (%s)\n", names[i], own, d.mode ? "swept" : "static", other,
               d.mode ? "static" : "swept");
        CHECK(own > 0, "preset %s should collide in its own mode", names[i]);
        clash_scene_destroy(sc);
    }
}

static void test_meshes(void)
{
    const char *data = check_data_dir();
    if (!data) {
        printf("SKIP part: ../shared/data is missing: no spot/cow pass-through test\n");
        return;
    }
    static const char *const files[2] = {"spot.obj", "cow.obj"};
    static const double size[2] = {1.7, 10.4}; /* about the meshes' widths */
    for (int m = 0; m < 2; ++m) {
        char path[512];
        snprintf(path, sizeof path, "%s/meshes/%s", data, files[m]);
        clash_mesh_desc md = {.name = "mesh", .kind = CLASH_MESH_FILE, .path = path, .scale = 1, .center = m == 0};
        const double w = size[m];
        /* B passes into A along x in 8 steps, both spinning; the cow
         * (its own frame, not centred) far from the origin */
        const double o[3] = {m ? 150.0 : 0, m ? -70.0 : 0, m ? 40.0 : 0};
        clash_object_desc od[2] = {
            {.mesh = 0, .scale = 1, .position = {o[0], o[1], o[2]}, .angular_velocity_deg = {0, 3, 6}},
            {.mesh = 0, .scale = 0.8, .position = {o[0] - 1.1 * w, o[1] + 0.05 * w, o[2] + 0.03 * w},
             .rotation_deg = {20, 150, 40}, .velocity = {0.2 * w, 0, 0}, .angular_velocity_deg = {9, -5, 3}}};
        clash_scene_desc d = {.name = "pass-through", .steps = 8, .mode = CLASH_MODE_STATIC,
                              .nmeshes = 1, .meshes = &md, .nobjects = 2, .objects = od};
        clash_scene *sc;
        clash_error err;
        if (clash_scene_build(&d, &sc, &err)) {
            CHECK(0, "%s: %s", files[m], err.msg);
            continue;
        }
        const long ns = against_octree(sc, files[m], CLASH_MODE_STATIC, 0, 0, 2);
        const long nw = against_octree(sc, files[m], CLASH_MODE_SWEPT, 0, 0, 1);
        const long nself = against_octree(sc, files[m], CLASH_MODE_SWEPT, 1, 2, 2);
        printf("two %s passing through each other: %ld pairs (static), %ld (swept) over 8 steps, %ld (swept, self, "
               "2 steps)\n", files[m], ns, nw, nself);
        CHECK(ns > 100 && nw > ns, "%s: the copies should meet, swept more than static: %ld, %ld", files[m], ns, nw);
        clash_scene_destroy(sc);
    }
}

/* ---- 4. the step stats ---------------------------------------------------------------------- */

static void test_stats(void)
{
    clash_scene *sc;
    clash_error err;
    const clash_preset_params pp = {0};
    if (clash_scene_preset("default", &pp, &sc, &err)) {
        CHECK(0, "preset default: %s", err.msg);
        return;
    }
    for (int m = 0; m < 2; ++m) {
        clash_config c = clash_config_default();
        c.midphase = MIDS[m];
        c.threads = 2;
        clash_run *run = clash_run_create(sc, &c, &err);
        CHECK(run != NULL, "%s: %s", NAME[m], err.msg);
        if (!run) continue;
        int64_t bytes = -1, interfering = 0;
        for (int s = 1; s <= 6; ++s) {
            clash_pairs p;
            clash_step_stats st;
            if (clash_step(run, s, &p, &st, &err)) {
                CHECK(0, "%s step %d: %s", NAME[m], s, err.msg);
                break;
            }
            CHECK(s == 1 ? st.mid_build_s > 0 : st.mid_build_s == 0, "%s step %d: build_s %g", NAME[m], s,
                  st.mid_build_s);
            CHECK(st.mid_bytes > 0 && (bytes < 0 || st.mid_bytes >= bytes), "%s step %d: bytes %lld", NAME[m], s,
                  (long long)st.mid_bytes);
            CHECK(st.mid_update_s >= 0 && st.mid_fallback_objects == 0 && st.mid_interfering >= 0,
                  "%s step %d: update %g, fallback %lld", NAME[m], s, st.mid_update_s,
                  (long long)st.mid_fallback_objects);
            CHECK(st.candidates == 0 || st.mid_interfering > 0, "%s step %d: %lld candidates from no interfering node",
                  NAME[m], s, (long long)st.candidates);
            bytes = st.mid_bytes, interfering += st.mid_interfering;
        }
        CHECK(interfering > 0, "%s: the default scene's objects should interfere", NAME[m]);
        clash_run_destroy(run);
    }
    clash_scene_destroy(sc);
}

/* ---- 5. deforming scenes fall back ------------------------------------------------------------ */

static void test_deforming(void)
{
    static const int faces[4] = {24, 48, 80, 168};
    char dir[] = "/tmp/clash-mid-XXXXXX";
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
            row *rv = run_report(sc, c, &nv, &ok, &rep, NULL);
            CHECK(same_rows(ro, no, rv, nv), "deforming scene %d: %s %zu pairs, oracle %zu", i, NAME[m], nv, no);
            char want[96];
            snprintf(want, sizeof want, "midphase_fallback: {objects: %d, reason: deforming, to: octree}",
                     clash_scene_objects(sc));
            CHECK(rep && strstr(rep, want) && !strstr(rep, "midphase: {"),
                  "deforming scene %d: the report should show the fallback:\n%s", i, rep ? rep : "");
            free(rep), free(rv);
            clash_run *run = clash_run_create(sc, &c, &err);
            clash_pairs p;
            clash_step_stats st;
            CHECK(run && !clash_step(run, 1, &p, &st, &err) && st.mid_fallback_objects == clash_scene_objects(sc) &&
                      st.mid_bytes == 0,
                  "deforming scene %d: %s step stats: fallback %lld objects", i, NAME[m],
                  (long long)st.mid_fallback_objects);
            clash_run_destroy(run);
        }
        free(ro);
        clash_scene_destroy(sc);
    }
    rmdir(dir);
}

static void test_table(void)
{
    static const int ids[] = {CLASH_MID_OCTREE, CLASH_MID_BVH, CLASH_MID_BBOXPIPE, CLASH_MID_BRUTE,
                              CLASH_MID_OBJOCTREE, CLASH_MID_SPHERICAL, CLASH_MID_BOXTREE, CLASH_MID_DOPTREE};
    CHECK(sizeof ids / sizeof ids[0] == CLASH_NMIDPHASES, "%d rows for 8 midphases", (int)CLASH_NMIDPHASES);
    for (int k = 0; k < CLASH_NMIDPHASES; ++k) {
        const clash_midphase_ops *m = clash_midphase_of(ids[k]);
        CHECK(m && m->id == ids[k] && m == &clash_midphases[ids[k]], "row %d is not midphase %d", k, ids[k]);
        if (!m) continue;
        CHECK(m->name && clash_midphase_names[k] == m->name, "row %d: the names list is not the table's", k);
        CHECK(m->candidates != NULL, "%s: no candidates operation", m->name);
        for (int j = 0; j < k; ++j) CHECK(strcmp(m->name, clash_midphases[j].name), "%s named twice", m->name);
        clash_config c = clash_config_default();
        clash_error err = {0};
        CHECK(clash_config_set(&c, "midphase", m->name, &err) == CLASH_OK && c.midphase == m->id,
              "clash_config_set midphase %s: %s", m->name, err.msg);
        CHECK(!strcmp(clash_midphase_name(m->id), m->name), "clash_midphase_name(%d)", m->id);
        /* the flags the pipeline's dispatch reads */
        const int rigid = m->id >= CLASH_MID_OBJOCTREE;
        CHECK(m->rigid_only == rigid, "%s: rigid_only %d", m->name, m->rigid_only);
        CHECK(m->culls_itself == (m->id != CLASH_MID_OCTREE), "%s: culls_itself %d", m->name, m->culls_itself);
        CHECK(m->skips_broad == (m->id == CLASH_MID_BRUTE), "%s: skips_broad %d", m->name, m->skips_broad);
        CHECK(m->defers_boxes == (m->id == CLASH_MID_OCTREE), "%s: defers_boxes %d", m->name, m->defers_boxes);
    }
    CHECK(clash_midphase_names[CLASH_NMIDPHASES] == NULL, "the names list is not NULL-terminated");
    CHECK(clash_midphase_of(-1) == NULL && clash_midphase_of(CLASH_NMIDPHASES) == NULL, "ids out of range");
    clash_config bad = clash_config_default();
    clash_error err = {0};
    CHECK(clash_config_set(&bad, "midphase", "octtree", &err) == CLASH_EINPUT && strstr(err.msg, "octree, bvh"),
          "an unknown midphase: %s", err.msg);
    /* every midphase that keeps state has it in its slot after a step of a rigid scene */
    for (int k = 0; k < CLASH_NMIDPHASES; ++k) {
        const clash_midphase_ops *m = &clash_midphases[k];
        clash_scene *sc = NULL;
        clash_error e = {0};
        if (clash_scene_preset("ktk94-table1", NULL, &sc, &e)) {
            CHECK(0, "preset: %s", e.msg);
            return;
        }
        clash_config c = clash_config_default();
        c.midphase = m->id, c.threads = 1, c.steps = 2;
        clash_run *run = clash_run_create(sc, &c, &e);
        CHECK(run != NULL, "%s: %s", m->name, e.msg);
        if (run) {
            clash_pairs p;
            clash_step_stats st;
            CHECK(clash_step(run, 1, &p, &st, &e) == CLASH_OK, "%s step: %s", m->name, e.msg);
            CHECK(clash_midphase_for(run) == m, "%s: a rigid scene runs its own midphase", m->name);
            CHECK(!m->state || clash_midphase_state(run, m) != NULL, "%s: no state in its slot after a step",
                  m->name);
            clash_run_destroy(run);
        }
        clash_scene_destroy(sc);
    }
    printf("midphase table: %d rows, names, flags and state slots as the pipeline reads them\n", CLASH_NMIDPHASES);
}

int main(void)
{
    test_table();
    test_random();
    test_presets();
    test_meshes();
    test_stats();
    test_deforming();
    return check_finish("test_midphases");
}
