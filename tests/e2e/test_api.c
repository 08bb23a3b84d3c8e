/*
 * test_api.c — the in-memory API of clash.h (issue 14): a host builds a
 * scene from arrays, moves it state by state, and gets the same pairs as the
 * `clash` command on the equivalent scene file; bad arrays are refused with a
 * message naming the object and element, and change nothing.
 *
 *  1. Rigid: a mesh nobody here made (../shared/data/meshes/spot.obj, read by
 *     the library's reader, then fed through clash_scene_add_mesh) twice; the
 *     second copy moved with clash_run_set_pose for 10 steps, the first left
 *     unset (it must stay).  The poses are the scene file's formula for a
 *     position, rotation, velocity and spin, and the scene file written to a
 *     temporary folder has exactly those, so `clash run FILE --pairs` must
 *     write the same rows as the host collects, in static and in swept mode,
 *     with and without Morton reordering of the API scene.  Between two
 *     states the two paths differ once the object turns (the file: its pose
 *     formula; the host: the screw motion between the poses, clash.h), and
 *     so do the arc margins of swept mode: there, with the spin, each side's
 *     pairs hold the static pairs of every step, and without it (the same
 *     scene, angular velocity 0) the two sides are equal again.
 *  2. Deforming: frame 0 of ../shared/data/ccd-frames/cloth-funnel as one
 *     deforming object, frame 1 given by clash_run_set_vertices, against the
 *     "frames" scene file (objects "single", self-collision), swept and
 *     static.
 *  3. A mix of rigid and deforming objects, some set and some not, some
 *     moved by pose and some by vertices: the octree gives the pairs of the
 *     brute-force oracle on the same states, and every vertex is where the
 *     state semantics of clash.h put it.
 *  4. Every bad input of the issue, one assertion each (the status, the
 *     message naming mesh/object and element), and after each refusal the
 *     scene or run is unchanged.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "io/mesh_io.h"
#include "store/scene.h"

typedef struct row {
    uint32_t step, oa, fa, ob, fb;
} row;

typedef struct rows {
    row *r;
    size_t n, cap;
} rows;

static void rows_add(rows *t, uint32_t step, const clash_pairs *p)
{
    for (size_t i = 0; i < p->count; ++i) {
        if (t->n == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 1024;
            t->r = realloc(t->r, t->cap * sizeof *t->r);
        }
        const clash_pair *q = &p->pairs[i];
        t->r[t->n++] = (row){step, q->obj_a, q->face_a, q->obj_b, q->face_b};
    }
}

/* The rows of a `clash run --pairs` CSV (header skipped); -1 when unreadable. */
static int rows_read(rows *t, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return -1;
    }
    unsigned s, a, b, c, d;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%u,%u,%u,%u,%u", &s, &a, &b, &c, &d) == 5) {
            if (t->n == t->cap) {
                t->cap = t->cap ? 2 * t->cap : 1024;
                t->r = realloc(t->r, t->cap * sizeof *t->r);
            }
            t->r[t->n++] = (row){s, a, b, c, d};
        }
    fclose(f);
    return 0;
}

static int rows_equal(const rows *x, const rows *y)
{
    return x->n == y->n && (x->n == 0 || !memcmp(x->r, y->r, x->n * sizeof *x->r));
}

static int row_cmp(const void *a, const void *b)
{
    const row *x = a, *y = b;
    const uint32_t k[2][5] = {{x->step, x->oa, x->fa, x->ob, x->fb}, {y->step, y->oa, y->fa, y->ob, y->fb}};
    for (int i = 0; i < 5; ++i)
        if (k[0][i] != k[1][i]) return k[0][i] < k[1][i] ? -1 : 1;
    return 0;
}

/* Every row of `small` is in `big` (both sorted here). */
static int rows_contain(rows *big, rows *small)
{
    if (big->n) qsort(big->r, big->n, sizeof *big->r, row_cmp);
    if (small->n) qsort(small->r, small->n, sizeof *small->r, row_cmp);
    size_t j = 0;
    for (size_t i = 0; i < small->n; ++i) {
        while (j < big->n && row_cmp(&big->r[j], &small->r[i]) < 0) ++j;
        if (j == big->n || row_cmp(&big->r[j], &small->r[i])) return 0;
    }
    return 1;
}

static char tmpdir[256];

/* Runs `clash run SCENE ARGS --pairs OUT --quiet`; 0 on success. */
static int run_cli(const char *scene, const char *args, const char *out)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s run '%s' %s --pairs '%s' --quiet", CLASH_BIN, scene, args, out);
    return system(cmd);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) fputs(text, f), fclose(f);
}

/* ---- 1. rigid: poses against the scene file --------------------------------------------- */

enum { RIGID_STEPS = 10 };
static const clash_pose turning = {.scale = 1,
                                  .position = {0.9, 0.15, 0.05},
                                  .rotation_deg = {10, 20, 30},
                                  .velocity = {-0.12, 0.01, 0.0},
                                  .angular_velocity_deg = {2, 4, 6}};
static const clash_pose sliding = {.scale = 1,
                                   .position = {0.9, 0.15, 0.05},
                                   .rotation_deg = {10, 20, 30},
                                   .velocity = {-0.12, 0.01, 0.0}};

static void test_rigid(const char *data, const clash_pose *mv)
{
    const clash_pose moving = *mv;
    const int spin = moving.angular_velocity_deg[0] != 0 || moving.angular_velocity_deg[1] != 0 ||
                     moving.angular_velocity_deg[2] != 0;
    rows stat[2] = {{0}, {0}}; /* static mode: the file's rows, the host's (reorder none) */
    char mesh_path[512], scene[512], csv[512];
    snprintf(mesh_path, sizeof mesh_path, "%s/meshes/spot.obj", data);
    snprintf(scene, sizeof scene, "%s/rigid.json", tmpdir);
    char json[2048];
    snprintf(json, sizeof json,
             "{\"format\": \"clash-scene/1\", \"name\": \"rigid\", \"steps\": %d,\n"
             " \"meshes\": {\"spot\": {\"file\": \"%s\"}},\n"
             " \"objects\": [{\"mesh\": \"spot\"},\n"
             "  {\"mesh\": \"spot\", \"position\": [%.17g, %.17g, %.17g], \"rotation_deg\": [%.17g, %.17g, %.17g],\n"
             "   \"velocity\": [%.17g, %.17g, %.17g], \"angular_velocity_deg\": [%.17g, %.17g, %.17g]}]}\n",
             RIGID_STEPS, mesh_path, moving.position[0], moving.position[1], moving.position[2],
             moving.rotation_deg[0], moving.rotation_deg[1], moving.rotation_deg[2], moving.velocity[0],
             moving.velocity[1], moving.velocity[2], moving.angular_velocity_deg[0], moving.angular_velocity_deg[1],
             moving.angular_velocity_deg[2]);
    write_file(scene, json);
    clash_mesh m;
    clash_error err;
    if (clash_mesh_load(mesh_path, &m, &err)) {
        CHECK(0, "spot.obj: %s", err.msg);
        return;
    }
    for (int mode = 0; mode < 2; ++mode) {
        rows file = {0};
        snprintf(csv, sizeof csv, "%s/rigid_%d.csv", tmpdir, mode);
        const int rc = run_cli(scene, mode ? "--mode swept" : "--mode static", csv);
        CHECK(rc == 0 && rows_read(&file, csv) == 0, "clash run %s (mode %d) failed", scene, mode);
        for (int reorder = 0; reorder < 2; ++reorder) {
            clash_scene *sc;
            CHECK(clash_scene_create(&sc, &err) == 0, "create: %s", err.msg);
            const int mesh = clash_scene_add_mesh(sc, m.xyz, m.nverts, m.tri, m.nfaces, &err);
            CHECK(mesh == 0, "add_mesh: %d %s", mesh, err.msg);
            double R[9], t[3], scale;
            clash_pose_at(&moving, 0, R, &scale, t);
            const int a = clash_scene_add_object(sc, mesh, NULL, NULL, 0, &err);
            const int b = clash_scene_add_object(sc, mesh, R, t, 0, &err);
            CHECK(a == 0 && b == 1, "add_object: %d %d %s", a, b, err.msg);
            clash_config cfg = clash_config_default();
            cfg.mode = mode ? CLASH_MODE_SWEPT : CLASH_MODE_STATIC;
            cfg.reorder = reorder ? CLASH_REORDER_MORTON : CLASH_REORDER_NONE;
            cfg.threads = 2;
            clash_run *run = clash_run_create(sc, &cfg, &err);
            CHECK(run != NULL, "run_create: %s", err.msg);
            rows api = {0};
            for (int s = 1; run && s <= RIGID_STEPS; ++s) {
                clash_pose_at(&moving, s, R, &scale, t);
                clash_pairs p;
                const int r1 = clash_run_set_pose(run, b, R, t, &err);
                const int r2 = r1 ? r1 : clash_run_advance(run, &p, NULL, &err);
                CHECK(r1 == 0 && r2 == 0, "step %d: %s", s, err.msg);
                if (r1 || r2) break;
                CHECK(clash_run_state(run) == s, "state %d after step %d", clash_run_state(run), s);
                rows_add(&api, (uint32_t)s, &p);
            }
            CHECK(file.n > 0, "mode %d: the scene has no collision to compare", mode);
            if (mode && spin) { /* two different paths: both hold every step's static pairs */
                CHECK(rows_contain(&api, &stat[1]) && rows_contain(&file, &stat[0]),
                      "rigid, turning, swept, reorder %s: the static pairs not all in the swept ones",
                      reorder ? "morton" : "none");
            } else {
                CHECK(rows_equal(&api, &file), "rigid, %s%s, reorder %s: %zu pairs from memory, %zu from the file",
                      mode ? "swept" : "static", spin ? "" : ", not turning", reorder ? "morton" : "none", api.n,
                      file.n);
            }
            if (!mode && !reorder) stat[1] = api, api.r = NULL;
            free(api.r);
            clash_run_destroy(run);
            clash_scene_destroy(sc);
        }
        if (!mode) stat[0] = file, file.r = NULL;
        free(file.r);
    }
    free(stat[0].r), free(stat[1].r);
    clash_mesh_free(&m);
}

/* ---- 2. deforming: vertices against the frames scene ------------------------------------ */

static void test_deforming(const char *data)
{
    char f0[512], f1[512], scene[512], csv[512], json[2048];
    snprintf(f0, sizeof f0, "%s/ccd-frames/cloth-funnel/frames/227.ply", data);
    snprintf(f1, sizeof f1, "%s/ccd-frames/cloth-funnel/frames/228.ply", data);
    snprintf(scene, sizeof scene, "%s/frames.json", tmpdir);
    snprintf(json, sizeof json,
             "{\"format\": \"clash-scene/1\", \"name\": \"cloth\", \"steps\": 1, \"self_collision\": true,\n"
             " \"frames\": {\"files\": [\"%s\", \"%s\"], \"objects\": \"single\"}}\n", f0, f1);
    write_file(scene, json);
    clash_mesh m0, m1;
    clash_error err;
    if (clash_mesh_load(f0, &m0, &err) || clash_mesh_load(f1, &m1, &err)) {
        CHECK(0, "frames: %s", err.msg);
        return;
    }
    for (int mode = 0; mode < 2; ++mode) {
        rows file = {0}, api = {0};
        snprintf(csv, sizeof csv, "%s/frames_%d.csv", tmpdir, mode);
        const int rc = run_cli(scene, mode ? "--mode swept --self" : "--mode static --self", csv);
        CHECK(rc == 0 && rows_read(&file, csv) == 0, "clash run %s (mode %d) failed", scene, mode);
        clash_scene *sc;
        CHECK(clash_scene_create(&sc, &err) == 0, "create: %s", err.msg);
        const int mesh = clash_scene_add_mesh(sc, m0.xyz, m0.nverts, m0.tri, m0.nfaces, &err);
        const int o = clash_scene_add_object(sc, mesh, NULL, NULL, 1, &err);
        CHECK(mesh == 0 && o == 0, "add: %s", err.msg);
        clash_config cfg = clash_config_default();
        cfg.mode = mode ? CLASH_MODE_SWEPT : CLASH_MODE_STATIC;
        cfg.self_collision = 1;
        clash_run *run = clash_run_create(sc, &cfg, &err);
        CHECK(run != NULL, "run_create: %s", err.msg);
        clash_pairs p;
        if (run && clash_run_set_vertices(run, o, m1.xyz, &err) == 0 && clash_run_advance(run, &p, NULL, &err) == 0)
            rows_add(&api, 1, &p);
        else
            CHECK(0, "deforming step: %s", err.msg);
        CHECK(file.n > 0, "mode %d: the frames have no collision to compare", mode);
        CHECK(rows_equal(&api, &file), "deforming, %s: %zu pairs from memory, %zu from the frames scene",
              mode ? "swept" : "static", api.n, file.n);
        free(api.r), free(file.r);
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
    clash_mesh_free(&m0), clash_mesh_free(&m1);
}

/* ---- 3. a mix of rigid and deforming objects --------------------------------------------- */

/* A UV-sphere-like mesh: a unit octahedron subdivided k times is plenty here. */
static void octa(double *xyz, int32_t *tri)
{
    static const double v[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    static const int32_t f[8][3] = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4},
                                    {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
    memcpy(xyz, v, sizeof v), memcpy(tri, f, sizeof f);
}

static clash_scene *mixed_scene(const clash_mesh *spot)
{
    clash_error err;
    clash_scene *sc;
    double ox[18];
    int32_t of[24];
    octa(ox, of);
    if (clash_scene_create(&sc, &err)) return NULL;
    const int ms = clash_scene_add_mesh(sc, spot->xyz, spot->nverts, spot->tri, spot->nfaces, &err);
    const int mo = clash_scene_add_mesh(sc, ox, 6, of, 8, &err);
    const double t1[3] = {0.6, 0, 0}, t2[3] = {-0.5, 0.2, 0}, t3[3] = {0, 0.5, 0.3};
    int ok = ms == 0 && mo == 1;
    ok &= clash_scene_add_object(sc, ms, NULL, NULL, 0, &err) == 0;   /* rigid spot, never set */
    ok &= clash_scene_add_object(sc, ms, NULL, t1, 1, &err) == 1;     /* deforming spot, by vertices */
    ok &= clash_scene_add_object(sc, mo, NULL, t2, 0, &err) == 2;     /* rigid octahedron, by pose */
    ok &= clash_scene_add_object(sc, mo, NULL, t3, 1, &err) == 3;     /* deforming octahedron, by pose */
    CHECK(ok, "mixed scene: %s", err.msg);
    if (!ok) clash_scene_destroy(sc), sc = NULL;
    return sc;
}

/* The host's motion of the mixed scene at state s. */
static void mixed_set(clash_run *run, const clash_mesh *spot, int s, double *buf)
{
    clash_error err;
    const double a = 0.3 * s;
    /* object 1: the spot squashed and swept along -x, vertex by vertex */
    for (int64_t v = 0; v < spot->nverts; ++v) {
        buf[3 * v + 0] = spot->xyz[3 * v + 0] * (1 - 0.03 * s) + 0.6 - 0.08 * s;
        buf[3 * v + 1] = spot->xyz[3 * v + 1] + 0.02 * sin(a + (double)v);
        buf[3 * v + 2] = spot->xyz[3 * v + 2] * (1 + 0.02 * s);
    }
    if (s % 3 != 2) CHECK(clash_run_set_vertices(run, 1, buf, &err) == 0, "set_vertices: %s", err.msg);
    const double c = cos(a), sn = sin(a);
    const double R[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1}, t2[3] = {-0.5 + 0.05 * s, 0.2, 0}, t3[3] = {0, 0.5 - 0.06 * s, 0.3};
    CHECK(clash_run_set_pose(run, 2, R, t2, &err) == 0, "set_pose 2: %s", err.msg);
    if (s % 2) CHECK(clash_run_set_pose(run, 3, R, t3, &err) == 0, "set_pose 3: %s", err.msg);
}

static void test_mixed(const char *data)
{
    char path[512];
    snprintf(path, sizeof path, "%s/meshes/spot.obj", data);
    clash_mesh spot;
    clash_error err;
    if (clash_mesh_load(path, &spot, &err)) {
        CHECK(0, "spot.obj: %s", err.msg);
        return;
    }
    double *buf = malloc(3 * sizeof(double) * (size_t)spot.nverts);
    for (int mode = 0; mode < 2; ++mode) {
        clash_scene *s1 = mixed_scene(&spot), *s2 = mixed_scene(&spot);
        if (!s1 || !s2) break;
        clash_config cfg = clash_config_default();
        cfg.mode = mode ? CLASH_MODE_SWEPT : CLASH_MODE_STATIC;
        cfg.self_collision = 1;
        cfg.threads = 2;
        clash_run *r1 = clash_run_create(s1, &cfg, &err);
        cfg.midphase = CLASH_MID_BRUTE;
        cfg.reorder = CLASH_REORDER_NONE;
        clash_run *r2 = clash_run_create(s2, &cfg, &err);
        CHECK(r1 && r2, "runs: %s", err.msg);
        size_t total = 0;
        int ok = 1, stay = 1;
        for (int s = 1; r1 && r2 && s <= 6; ++s) {
            double before[3], after[3];
            clash_scene_vertex_at(s1, 0, 7, s - 1, before, NULL);
            mixed_set(r1, &spot, s, buf);
            mixed_set(r2, &spot, s, buf);
            clash_pairs p1, p2;
            if (clash_run_advance(r1, &p1, NULL, &err) || clash_run_advance(r2, &p2, NULL, &err)) {
                CHECK(0, "advance: %s", err.msg);
                break;
            }
            ok &= p1.count == p2.count && (!p1.count || !memcmp(p1.pairs, p2.pairs, p1.count * sizeof *p1.pairs));
            total += p1.count;
            clash_scene_vertex_at(s1, 0, 7, s, after, NULL);
            stay &= !memcmp(before, after, sizeof before);
            /* object 1 where the host put it (float32), or where it was on the steps it was not set */
            double w[3];
            const int sset = s % 3 != 2 ? s : s - 1;
            if (sset >= 1) {
                clash_scene_vertex_at(s1, 1, 5, s, w, NULL);
                CHECK(fabs(w[0] - (spot.xyz[15] * (1 - 0.03 * sset) + 0.6 - 0.08 * sset)) < 1e-5,
                      "step %d: deforming vertex x %g", s, w[0]);
            }
        }
        CHECK(ok, "mixed scene, %s: octree pairs differ from the oracle's", mode ? "swept" : "static");
        CHECK(total > 0, "mixed scene, %s: no pairs at all", mode ? "swept" : "static");
        CHECK(stay, "mixed scene: the object never set moved");
        clash_run_destroy(r1), clash_run_destroy(r2);
        clash_scene_destroy(s1), clash_scene_destroy(s2);
    }
    free(buf);
    clash_mesh_free(&spot);
}

/* clash_step on a scene from memory (no laws) is one advance: what the host set moves. */
static void test_step_without_laws(void)
{
    double ox[18];
    int32_t of[24];
    octa(ox, of);
    clash_error err;
    size_t counts[2] = {0, 0};
    for (int way = 0; way < 2; ++way) {
        clash_scene *sc;
        const double t1[3] = {3, 0, 0};
        int ok = clash_scene_create(&sc, &err) == 0 && clash_scene_add_mesh(sc, ox, 6, of, 8, &err) == 0 &&
                 clash_scene_add_object(sc, 0, NULL, NULL, 0, &err) == 0 &&
                 clash_scene_add_object(sc, 0, NULL, t1, 0, &err) == 1;
        clash_config cfg = clash_config_default();
        clash_run *run = ok ? clash_run_create(sc, &cfg, &err) : NULL;
        for (int s = 1; run && s <= 4; ++s) {
            const double t[3] = {3 - 0.6 * s, 0, 0};
            clash_pairs p;
            ok &= clash_run_set_pose(run, 1, NULL, t, &err) == 0 &&
                  (way ? clash_step(run, s, &p, NULL, &err) : clash_run_advance(run, &p, NULL, &err)) == 0;
            if (ok) counts[way] += p.count * (size_t)s;
        }
        CHECK(ok && run, "way %d: %s", way, err.msg);
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
    CHECK(counts[0] > 0 && counts[0] == counts[1], "clash_step on a scene from memory: %zu, advance: %zu", counts[1],
          counts[0]);
}

/* ---- 4. bad input ------------------------------------------------------------------------ */

/* err.msg names every word of `words` (separated by '|'). */
static int names(const clash_error *err, const char *words)
{
    char w[256];
    snprintf(w, sizeof w, "%s", words);
    for (char *tok = strtok(w, "|"); tok; tok = strtok(NULL, "|"))
        if (!strstr(err->msg, tok)) return 0;
    return 1;
}

static void test_bad_input(void)
{
    clash_error err;
    clash_scene *sc;
    CHECK(clash_scene_create(&sc, &err) == 0, "create");
    const double cube[24] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1};
    const int32_t tris[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                              2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    double bad[24];
    int32_t badt[36];
    CHECK(clash_scene_add_mesh(sc, cube, 8, tris, 12, &err) == 0, "mesh 0: %s", err.msg);

    /* add_mesh: each refused, naming mesh 1 and the element; the scene keeps one mesh */
    memcpy(bad, cube, sizeof bad), bad[3 * 5 + 1] = NAN;
    CHECK(clash_scene_add_mesh(sc, bad, 8, tris, 12, &err) == -CLASH_EINPUT && names(&err, "mesh 1|vertex 5|y|nan"),
          "NaN coordinate: %s", err.msg);
    memcpy(bad, cube, sizeof bad), bad[3 * 2 + 2] = -INFINITY;
    CHECK(clash_scene_add_mesh(sc, bad, 8, tris, 12, &err) == -CLASH_EINPUT && names(&err, "mesh 1|vertex 2|z|inf"),
          "infinite coordinate: %s", err.msg);
    memcpy(bad, cube, sizeof bad), bad[0] = 1e39;
    CHECK(clash_scene_add_mesh(sc, bad, 8, tris, 12, &err) == -CLASH_EINPUT && names(&err, "mesh 1|vertex 0|x|float"),
          "coordinate beyond float: %s", err.msg);
    memcpy(badt, tris, sizeof badt), badt[3 * 7 + 2] = 8;
    CHECK(clash_scene_add_mesh(sc, cube, 8, badt, 12, &err) == -CLASH_EINPUT && names(&err, "mesh 1|triangle 7|8"),
          "index out of range: %s", err.msg);
    memcpy(badt, tris, sizeof badt), badt[3 * 4] = -1;
    CHECK(clash_scene_add_mesh(sc, cube, 8, badt, 12, &err) == -CLASH_EINPUT && names(&err, "mesh 1|triangle 4|-1"),
          "negative index: %s", err.msg);
    memcpy(badt, tris, sizeof badt), badt[3 * 5 + 2] = badt[3 * 5 + 1];
    CHECK(clash_scene_add_mesh(sc, cube, 8, badt, 12, &err) == -CLASH_EINPUT &&
              names(&err, "mesh 1: face 5: repeated vertex index 5"), "repeated index: %s", err.msg);
    CHECK(clash_scene_add_mesh(sc, cube, 0, tris, 12, &err) == -CLASH_EINPUT && names(&err, "mesh 1|nv"),
          "nv = 0: %s", err.msg);
    CHECK(clash_scene_add_mesh(sc, cube, 8, tris, -3, &err) == -CLASH_EINPUT && names(&err, "mesh 1|nf"),
          "nf < 0: %s", err.msg);
    CHECK(clash_scene_add_mesh(sc, NULL, 8, tris, 12, &err) == -CLASH_EINPUT && names(&err, "mesh 1|xyz"),
          "NULL xyz: %s", err.msg);
    CHECK(clash_scene_add_mesh(sc, cube, 8, tris, 12, &err) == 1, "after refusals the next mesh is 1: %s", err.msg);

    /* add_object: each refused, naming object 0; the scene stays empty */
    const double scale2[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2}, mirror[9] = {1, 0, 0, 0, 1, 0, 0, 0, -1};
    const double skew[9] = {1, 0.01, 0, 0, 1, 0, 0, 0, 1}, nanrot[9] = {1, 0, 0, 0, NAN, 0, 0, 0, 1};
    const double t_nan[3] = {0, NAN, 0};
    CHECK(clash_scene_add_object(sc, 2, NULL, NULL, 0, &err) == -CLASH_EINPUT && names(&err, "object 0|mesh 2"),
          "wrong mesh id: %s", err.msg);
    CHECK(clash_scene_add_object(sc, -1, NULL, NULL, 0, &err) == -CLASH_EINPUT && names(&err, "object 0|mesh -1"),
          "negative mesh id: %s", err.msg);
    CHECK(clash_scene_add_object(sc, 0, scale2, NULL, 0, &err) == -CLASH_EINPUT && names(&err, "object 0|rot|row 0"),
          "a scale is not a rotation: %s", err.msg);
    CHECK(clash_scene_add_object(sc, 0, mirror, NULL, 0, &err) == -CLASH_EINPUT &&
              names(&err, "object 0|rot|determinant"),
          "a reflection is not a rotation: %s", err.msg);
    CHECK(clash_scene_add_object(sc, 0, skew, NULL, 0, &err) == -CLASH_EINPUT && names(&err, "object 0|rot|row 0"),
          "off by 1e-2: %s", err.msg);
    CHECK(clash_scene_add_object(sc, 0, nanrot, NULL, 0, &err) == -CLASH_EINPUT && names(&err, "object 0|rot[4]|nan"),
          "NaN rotation: %s", err.msg);
    CHECK(clash_scene_add_object(sc, 0, NULL, t_nan, 0, &err) == -CLASH_EINPUT && names(&err, "object 0|trans[1]|nan"),
          "NaN translation: %s", err.msg);
    /* the object's extent counts, as for scene files: a mesh reaching 1.7e38 from its origin may not sit
     * at 2.5e38 (its vertices would round to inf in float), though both numbers are in float range */
    double big[24];
    for (int i = 0; i < 24; ++i) big[i] = cube[i] * 1e38;
    const int mbig = clash_scene_add_mesh(sc, big, 8, tris, 12, &err);
    const double t_far[3] = {2.5e38, 0, 0};
    CHECK(mbig == 2 && clash_scene_add_object(sc, mbig, NULL, t_far, 0, &err) == -CLASH_EINPUT &&
              names(&err, "object 0|trans[0] (x) is 2.5e+38|radius 1.73205e+38|out of float range"),
          "a translation that takes the mesh beyond float range: %s", err.msg);
    CHECK(clash_scene_objects(sc) == 0 && clash_scene_faces(sc) == 0, "refused objects left %d objects",
          clash_scene_objects(sc));
    /* a rotation within 1e-6 is one */
    const double c = cos(0.3), s = sin(0.3), near[9] = {c, -s, 0, s, c, 0, 0, 0, 1 + 4e-7};
    const double t0[3] = {3, 0, 0};
    CHECK(clash_scene_add_object(sc, 0, near, NULL, 0, &err) == 0, "rotation within 1e-6: %s", err.msg);
    CHECK(clash_scene_add_object(sc, 1, NULL, t0, 1, &err) == 1, "deforming object: %s", err.msg);

    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_STATIC;
    cfg.threads = 1;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run != NULL, "run: %s", err.msg);
    if (!run) {
        clash_scene_destroy(sc);
        return;
    }
    CHECK(clash_scene_add_mesh(sc, cube, 8, tris, 12, &err) == mbig + 1,
          "add_mesh while a run uses the scene (meshes may join it; objects join through clash_run_add_object): %s",
          err.msg);
    CHECK(clash_scene_add_object(sc, 0, NULL, NULL, 0, &err) == -CLASH_EINPUT && names(&err, "in use by a run"),
          "add_object while a run uses the scene: %s", err.msg);

    /* run calls: a valid next state first, then refusals that must not touch it */
    const double tgood[3] = {0.25, 0, 0}, vgood_shift = 2.0;
    double verts[24], vbad[24];
    for (int i = 0; i < 24; ++i) verts[i] = cube[i] + (i % 3 == 0 ? vgood_shift : 0);
    CHECK(clash_run_set_pose(run, 0, NULL, tgood, &err) == 0, "valid pose: %s", err.msg);
    CHECK(clash_run_set_vertices(run, 1, verts, &err) == 0, "valid vertices: %s", err.msg);
    CHECK(clash_run_set_pose(run, 2, NULL, NULL, &err) == CLASH_EINPUT && names(&err, "object 2|no such object"),
          "set_pose, wrong object id: %s", err.msg);
    CHECK(clash_run_set_pose(run, -1, NULL, NULL, &err) == CLASH_EINPUT && names(&err, "object -1"),
          "set_pose, negative object id: %s", err.msg);
    CHECK(clash_run_set_pose(run, 0, scale2, tgood, &err) == CLASH_EINPUT && names(&err, "object 0|rot"),
          "set_pose, not a rotation: %s", err.msg);
    CHECK(clash_run_set_pose(run, 0, mirror, tgood, &err) == CLASH_EINPUT && names(&err, "object 0|determinant"),
          "set_pose, a reflection: %s", err.msg);
    const double t_inf[3] = {0, 0, INFINITY};
    CHECK(clash_run_set_pose(run, 0, NULL, t_inf, &err) == CLASH_EINPUT && names(&err, "object 0|trans[2]|inf"),
          "set_pose, infinite translation: %s", err.msg);
    CHECK(clash_run_set_vertices(run, 0, verts, &err) == CLASH_EINPUT && names(&err, "object 0|rigid"),
          "set_vertices on a rigid object: %s", err.msg);
    CHECK(clash_run_set_vertices(run, 5, verts, &err) == CLASH_EINPUT && names(&err, "object 5|no such object"),
          "set_vertices, wrong object id: %s", err.msg);
    memcpy(vbad, verts, sizeof vbad), vbad[3 * 6 + 0] = NAN;
    CHECK(clash_run_set_vertices(run, 1, vbad, &err) == CLASH_EINPUT && names(&err, "object 1|vertex 6|x|nan"),
          "set_vertices, NaN: %s", err.msg);
    memcpy(vbad, verts, sizeof vbad), vbad[3 * 3 + 1] = INFINITY;
    CHECK(clash_run_set_vertices(run, 1, vbad, &err) == CLASH_EINPUT && names(&err, "object 1|vertex 3|y|inf"),
          "set_vertices, infinite: %s", err.msg);
    CHECK(clash_run_set_vertices(run, 1, NULL, &err) == CLASH_EINPUT && names(&err, "object 1|xyz"),
          "set_vertices, NULL: %s", err.msg);
    /* the refused calls changed nothing: the valid next states are the ones taken */
    clash_pairs p;
    CHECK(clash_run_advance(run, &p, NULL, &err) == 0, "advance: %s", err.msg);
    double w[3];
    CHECK(clash_scene_vertex_at(sc, 0, 0, 1, w, NULL) == 0 && w[0] == 0.25 && w[1] == 0 && w[2] == 0,
          "object 0 took the valid pose: (%g, %g, %g)", w[0], w[1], w[2]);
    CHECK(clash_scene_vertex_at(sc, 1, 7, 1, w, NULL) == 0 && w[0] == 3.0 && w[1] == 1 && w[2] == 1,
          "object 1 took the valid vertices: (%g, %g, %g)", w[0], w[1], w[2]);
    CHECK(clash_run_state(run) == 1, "state %d", clash_run_state(run));
    /* every refusal says why, naming the argument */
    const struct { int obj; int64_t v; int s; const char *words; } va[] = {
        {2, 0, 1, "vertex_at|object 2|no such object"}, {-1, 0, 1, "vertex_at|object -1"},
        {0, 8, 1, "vertex_at|object 0|vertex 8|no such vertex"}, {1, -1, 1, "vertex_at|object 1|vertex -1"},
        {0, 0, -1, "vertex_at|object 0|state -1"}, {1, 0, 5, "vertex_at|object 1|state 5|not held"},
    };
    for (size_t i = 0; i < sizeof va / sizeof va[0]; ++i) {
        clash_error e = {0, ""};
        CHECK(clash_scene_vertex_at(sc, va[i].obj, va[i].v, va[i].s, w, &e) == CLASH_EINPUT &&
                  e.code == CLASH_EINPUT && names(&e, va[i].words), "vertex_at case %zu: \"%s\"", i, e.msg);
    }
    clash_error e = {0, ""};
    CHECK(clash_scene_vertex_at(NULL, 0, 0, 0, w, &e) == CLASH_EINPUT && names(&e, "vertex_at|scene|NULL"),
          "vertex_at, NULL scene: \"%s\"", e.msg);
    CHECK(clash_scene_vertex_at(sc, 0, 0, 0, NULL, &e) == CLASH_EINPUT && names(&e, "vertex_at|out|NULL"),
          "vertex_at, NULL out: \"%s\"", e.msg);
    clash_contacts cs;
    CHECK(clash_run_contacts(run, &cs, &e) == CLASH_EINPUT && cs.count == 0 && names(&e, "run_contacts|without ccd"),
          "contacts without ccd: \"%s\"", e.msg);
    CHECK(clash_run_contacts(NULL, &cs, &e) == CLASH_EINPUT && names(&e, "run_contacts|run|NULL"),
          "contacts of a NULL run: \"%s\"", e.msg);
    CHECK(clash_run_contacts(run, NULL, &e) == CLASH_EINPUT && names(&e, "run_contacts|out|NULL"),
          "contacts into NULL: \"%s\"", e.msg);
    clash_run_destroy(run);
    /* after the run, the scene takes objects again */
    CHECK(clash_scene_add_object(sc, 0, NULL, NULL, 0, &err) == 2, "add after the run: %s", err.msg);
    clash_scene_destroy(sc);

    /* the communicator handle: without MPI initialized, a given one is refused */
    CHECK(clash_scene_create(&sc, &err) == 0 && clash_scene_add_mesh(sc, cube, 8, tris, 12, &err) == 0 &&
              clash_scene_add_object(sc, 0, NULL, NULL, 0, &err) == 0,
          "scene");
    int fake_comm = 0;
    cfg.mpi_comm = &fake_comm;
    run = clash_run_create(sc, &cfg, &err);
    CHECK(!run && err.code == CLASH_EINPUT && names(&err, "mpi_comm"), "a communicator without MPI: %s", err.msg);
    clash_run_destroy(run);
    cfg.mpi_comm = NULL;
    clash_scene_destroy(sc);
    /* an empty scene cannot run */
    CHECK(clash_scene_create(&sc, &err) == 0, "scene");
    run = clash_run_create(sc, &cfg, &err);
    CHECK(!run && err.code == CLASH_EINPUT && names(&err, "no faces"), "empty scene: %s", err.msg);
    clash_scene_destroy(sc);
    CHECK(clash_struct_size("clash_config") == sizeof(clash_config) && clash_struct_size("nope") == 0,
          "struct sizes");
}

int main(void)
{
    test_bad_input();
    test_step_without_laws();
    const char *data = check_data_dir();
    if (!data) {
        check_finish("test_api");
        return check_skip("../shared/data is missing: the comparisons with files need it");
    }
    snprintf(tmpdir, sizeof tmpdir, "/tmp/clash_api_XXXXXX");
    if (!mkdtemp(tmpdir)) return check_skip("cannot make a temporary folder");
    test_rigid(data, &turning);
    test_rigid(data, &sliding);
    test_deforming(data);
    test_mixed(data);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd)) fprintf(stderr, "cleanup failed\n");
    return check_finish("test_api");
}
