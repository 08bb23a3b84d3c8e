/*
 * test_ccd_contacts.c — exact CCD in the pipeline (--ccd, issue 15): the
 * swept-mode hits turned into vertex-face and edge-edge contacts.
 *
 *  1. The two ccd-frames scenes (../shared/data/ccd-frames, Belgrod et al.;
 *     one deforming object, self-collision): every ground-truth true vf and
 *     ee pair must be among the contacts.  The truth covers only the
 *     candidate pairs of boxes/, so a contact that is not true is counted two
 *     ways: (a) absent from the candidate list (unknown to the truth, not
 *     asserted), (b) listed with truth false; (b) must stay under 1% of the
 *     true pairs.  Ids there index vertices, then edges (i<j, by j then i),
 *     then faces: the contacts' numbering, so this also checks it, through
 *     the store's Morton reordering.
 *  2. Generated scenes from memory (set_vertices): a vertex falling onto one
 *     face of a grid at a known t gives that vf contact, its toi not later
 *     than t and within the tolerance of it, and the earliest of the step;
 *     two edges crossing at a known t give that ee contact.
 *  3. The same contacts for 1 and 2 threads, every schedule, both backends,
 *     and reordering on or off (cloth-funnel).
 *  4. --min-separation D: two faces a gap g apart, moving side by side: a
 *     pair and contacts at toi 0 when D > g, none when D < g; and on
 *     cloth-funnel with D the octree keeps exactly the oracle's pairs (S4
 *     keeps what the S5 test with tol D accepts).
 *  5. Bad options: refused by clash_config_set / clash_run_create, and by
 *     the command with exit status 2.
 * The MPI half (ranks 1 and 2 write the same contacts CSV) is
 * tests/mpi/ccd_mpi_compare.cmake.
 */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "base/sort.h"
#include "check.h"
#include "contacts_cmp.h"
#include "io/mesh_io.h"
#include "io/scene_desc.h"
#include "store/scene.h"

/* ---- helpers -------------------------------------------------------------------------- */

static cJSON *load_json(const char *path)
{
    char *s = check_read_file(path);
    cJSON *j = s ? cJSON_Parse(s) : NULL;
    free(s);
    return j;
}

static int has_key(const uint64_t *k, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t m = (lo + hi) / 2;
        if (k[m] < key) lo = m + 1;
        else hi = m;
    }
    return lo < n && k[lo] == key;
}

/* A copy of a step's contacts (they live until the run's next step). */
typedef struct contacts {
    clash_contact *c;
    size_t n;
} contacts;

static contacts copy_contacts(clash_run *run)
{
    clash_contacts cs;
    contacts r = {NULL, 0};
    CHECK(clash_run_contacts(run, &cs, NULL) == 0, "clash_run_contacts failed");
    r.n = cs.count;
    r.c = malloc((r.n + 1) * sizeof *r.c);
    if (r.n) memcpy(r.c, cs.contacts, r.n * sizeof *r.c);
    return r;
}

static int contact_less(const clash_contact *a, const clash_contact *b)
{
    const uint32_t x[5] = {a->kind, a->obj_a, a->id_a, a->obj_b, a->id_b};
    const uint32_t y[5] = {b->kind, b->obj_a, b->id_a, b->obj_b, b->id_b};
    for (int i = 0; i < 5; ++i)
        if (x[i] != y[i]) return x[i] < y[i];
    return 0;
}

static int same_contacts(const contacts *a, const contacts *b)
{
    return check_same_contacts(a->c, a->n, b->c, b->n);
}

/* Sorted, unique, toi in [0, 1], ee canonical. */
static void check_well_formed(const contacts *c, const char *what)
{
    size_t bad = 0;
    for (size_t i = 0; i < c->n; ++i) {
        const clash_contact *q = &c->c[i];
        if (i && !contact_less(&c->c[i - 1], q)) ++bad;
        if (!(q->toi >= 0 && q->toi <= 1)) ++bad;
        if (q->kind == CLASH_CONTACT_EE && (q->obj_a > q->obj_b || (q->obj_a == q->obj_b && q->id_a >= q->id_b))) ++bad;
        if (q->kind > CLASH_CONTACT_EE) ++bad;
    }
    CHECK(bad == 0, "%s: %zu contacts out of order, duplicated, or with toi outside [0, 1]", what, bad);
}

/* ---- 1. the ccd-frames scenes against their ground truth ------------------------------- */

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

/* Contacts of one step of a frames scene under cfg (ccd on). */
static contacts frames_contacts(clash_scene *sc, clash_config cfg, clash_step_stats *st, const char *what)
{
    clash_error err;
    contacts r = {NULL, 0};
    cfg.mode = CLASH_MODE_SWEPT, cfg.self_collision = 1, cfg.ccd = 1;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    clash_pairs pairs;
    clash_step_stats local;
    CHECK(run && clash_step(run, 1, &pairs, st ? st : &local, &err) == 0, "%s: %s", what, err.msg);
    if (run) r = copy_contacts(run);
    clash_run_destroy(run);
    return r;
}

static int64_t count_edges(const clash_mesh *m)
{
    uint64_t *k = malloc(sizeof(uint64_t) * 3 * (size_t)m->nfaces + 8);
    size_t n = 0;
    for (int64_t f = 0; f < m->nfaces; ++f)
        for (int c = 0; c < 3; ++c) {
            const uint32_t a = (uint32_t)m->tri[3 * f + c], b = (uint32_t)m->tri[3 * f + (c + 1) % 3];
            if (a != b) k[n++] = a < b ? (uint64_t)b << 32 | a : (uint64_t)a << 32 | b;
        }
    const int64_t e = (int64_t)clash_sort_unique_u64(k, n);
    free(k);
    return e;
}

static void check_frames(const char *data, const char *scene, int f0)
{
    char path[512], p0[512];
    clash_error err;
    clash_mesh m;
    snprintf(p0, sizeof p0, "%s/ccd-frames/%s/frames/%d.ply", data, scene, f0);
    clash_scene *sc = frames_scene(data, scene, f0, &err);
    if (!sc || clash_mesh_load(p0, &m, &err)) {
        CHECK(0, "%s: %s", scene, err.msg);
        clash_scene_destroy(sc);
        return;
    }
    const int64_t V = m.nverts, E = count_edges(&m);
    clash_step_stats st;
    contacts c = frames_contacts(sc, clash_config_default(), &st, scene);
    check_well_formed(&c, scene);
    /* the contacts as keys in the truth's terms: vf (v << 32 | f), ee (min << 32 | max) */
    uint64_t *ck[2] = {malloc((c.n + 1) * 8), malloc((c.n + 1) * 8)};
    size_t cn[2] = {0, 0};
    for (size_t i = 0; i < c.n; ++i) {
        const clash_contact *q = &c.c[i];
        CHECK(q->obj_a == 0 && q->obj_b == 0, "%s: one object, got objects %u, %u", scene, q->obj_a, q->obj_b);
        ck[q->kind][cn[q->kind]++] = (uint64_t)q->id_a << 32 | q->id_b;
    }
    long truth_true[2] = {0, 0}, missed[2] = {0, 0}, absent[2] = {0, 0}, listed_false[2] = {0, 0};
    for (int kind = 0; kind < 2; ++kind) {
        const char *k = kind ? "ee" : "vf";
        snprintf(path, sizeof path, "%s/ccd-frames/%s/boxes/%d%s.json", data, scene, f0, k);
        cJSON *boxes = load_json(path);
        snprintf(path, sizeof path, "%s/ccd-frames/%s/mma_bool/%d%s_mma_bool.json", data, scene, f0, k);
        cJSON *truth = load_json(path);
        CHECK(boxes && truth && cJSON_GetArraySize(boxes) == cJSON_GetArraySize(truth), "%s %s: ground truth", scene, k);
        const size_t nb = boxes ? (size_t)cJSON_GetArraySize(boxes) : 0;
        uint64_t *listed = malloc((nb + 1) * 8), *falses = malloc((nb + 1) * 8);
        size_t nl = 0, nfalse = 0;
        for (cJSON *b = boxes ? boxes->child : NULL, *tr = truth ? truth->child : NULL; b && tr;
             b = b->next, tr = tr->next) {
            int64_t a = (int64_t)cJSON_GetArrayItem(b, 0)->valuedouble, d = (int64_t)cJSON_GetArrayItem(b, 1)->valuedouble;
            uint64_t key;
            if (!kind) key = (uint64_t)a << 32 | (uint64_t)(d - V - E);
            else {
                a -= V, d -= V;
                key = a < d ? (uint64_t)a << 32 | (uint64_t)d : (uint64_t)d << 32 | (uint64_t)a;
            }
            listed[nl++] = key;
            if (cJSON_IsTrue(tr)) {
                truth_true[kind]++;
                if (!has_key(ck[kind], cn[kind], key)) ++missed[kind];
            } else {
                falses[nfalse++] = key;
            }
        }
        nl = clash_sort_unique_u64(listed, nl);
        nfalse = clash_sort_unique_u64(falses, nfalse);
        for (size_t i = 0; i < cn[kind]; ++i) {
            if (!has_key(listed, nl, ck[kind][i])) ++absent[kind];
            else if (has_key(falses, nfalse, ck[kind][i])) ++listed_false[kind];
        }
        free(listed), free(falses);
        cJSON_Delete(boxes), cJSON_Delete(truth);
    }
    const long T = truth_true[0] + truth_true[1];
    printf("%s: V=%lld E=%lld; %lld primitive pairs (%lld vf), %lld set apart by their hulls, %lld by the "
           "kernel's filter, %lld exact calls; %zu contacts (%zu vf, %zu ee)\n",
           scene, (long long)V, (long long)E, (long long)st.ccd_tests, (long long)st.ccd_vf_tests,
           (long long)st.ccd_hull_no, (long long)st.ccd_filter_no, (long long)st.ccd_exact_calls, c.n, cn[0], cn[1]);
    printf("%s: true pairs %ld vf + %ld ee, missed %ld vf + %ld ee; contacts not true: (a) absent from the "
           "candidate list %ld vf + %ld ee, (b) listed with truth false %ld vf + %ld ee (%.3f%% of the true)\n",
           scene, truth_true[0], truth_true[1], missed[0], missed[1], absent[0], absent[1], listed_false[0],
           listed_false[1], T ? 100.0 * (double)(listed_false[0] + listed_false[1]) / (double)T : 0.0);
    CHECK(T > 0, "%s: no true pairs in the ground truth?", scene);
    CHECK(missed[0] + missed[1] == 0, "%s: %ld true vf and %ld true ee pairs are not among the contacts", scene,
          missed[0], missed[1]);
    CHECK(100 * (listed_false[0] + listed_false[1]) < T, "%s: %ld contacts with truth false, 1%% of %ld true is less",
          scene, listed_false[0] + listed_false[1], T);
    CHECK(st.ccd_contacts == (int64_t)c.n && st.ccd_tests >= (int64_t)c.n, "%s: stats", scene);
    free(ck[0]), free(ck[1]), free(c.c);
    clash_mesh_free(&m);
    clash_scene_destroy(sc);
}

/* ---- 3. the same contacts for every team, schedule, backend, store order ---------------- */

static void check_determinism(const char *data)
{
    clash_error err;
    clash_scene *sc = frames_scene(data, "cloth-funnel", 227, &err);
    CHECK(sc, "cloth-funnel: %s", err.msg);
    if (!sc) return;
    clash_config cfg = clash_config_default();
    cfg.threads = 1;
    contacts ref = frames_contacts(sc, cfg, NULL, "reference");
    CHECK(ref.n > 0, "cloth-funnel: no contacts; the comparison could not fail");
    int runs = 0, differ = 0;
    for (int backend = 0; backend < 2; ++backend)
        for (int sch = CLASH_SCHED_STATIC_CHUNK; sch <= CLASH_SCHED_STEALING; ++sch)
            for (int t = 1; t <= 2; ++t) {
                cfg.backend = backend, cfg.schedule = sch, cfg.threads = t;
                contacts c = frames_contacts(sc, cfg, NULL, "variant");
                ++runs;
                if (!same_contacts(&ref, &c)) {
                    ++differ;
                    CHECK(0, "backend %d schedule %d threads %d: %zu contacts, the reference %zu, or other ones",
                          backend, sch, t, c.n, ref.n);
                }
                free(c.c);
            }
    clash_scene_destroy(sc);
    /* a store in input order (no Morton reordering) */
    sc = frames_scene(data, "cloth-funnel", 227, &err);
    cfg = clash_config_default();
    cfg.reorder = CLASH_REORDER_NONE;
    contacts c = sc ? frames_contacts(sc, cfg, NULL, "reorder none") : (contacts){NULL, 0};
    CHECK(same_contacts(&ref, &c), "reorder none: %zu contacts, reordered %zu, or other ones", c.n, ref.n);
    printf("determinism: %d runs (backends, schedules, 1-2 threads) and reorder none: %d differ; %zu contacts\n",
           runs, differ, ref.n);
    free(c.c), free(ref.c);
    clash_scene_destroy(sc);
}

/* ---- 2. generated scenes: a vertex onto a face, two edges crossing --------------------- */

/* The n x n grid on [0,1]^2 at z = 0, two triangles a cell. */
static void grid(int n, double *xyz, int32_t *tri)
{
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
            double *p = xyz + 3 * (j * (n + 1) + i);
            p[0] = (double)i / n, p[1] = (double)j / n, p[2] = 0;
        }
    int32_t *t = tri;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const int32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
            t[0] = a, t[1] = b, t[2] = d, t[3] = a, t[4] = d, t[5] = c;
            t += 6;
        }
}

/* 1 when (x, y) is strictly inside the xy projection of triangle p0 p1 p2. */
static int inside(const double *p0, const double *p1, const double *p2, double x, double y)
{
    const double d1 = (p1[0] - p0[0]) * (y - p0[1]) - (p1[1] - p0[1]) * (x - p0[0]);
    const double d2 = (p2[0] - p1[0]) * (y - p1[1]) - (p2[1] - p1[1]) * (x - p1[0]);
    const double d3 = (p0[0] - p2[0]) * (y - p2[1]) - (p0[1] - p2[1]) * (x - p2[0]);
    return (d1 > 0 && d2 > 0 && d3 > 0) || (d1 < 0 && d2 < 0 && d3 < 0);
}

/* Scene of mesh A (object 0, left in place) and mesh B (object 1, deforming,
 * moved by set_vertices to b1); one swept step with ccd; the contacts. */
static contacts two_objects(const double *a, int64_t na, const int32_t *ta, int64_t nfa, const double *b0,
                            const double *b1, const int32_t *tb, double z_of[2], clash_config cfg)
{
    clash_error err;
    clash_scene *sc = NULL;
    contacts r = {NULL, 0};
    CHECK(clash_scene_create(&sc, &err) == 0, "scene: %s", err.msg);
    const int ma = clash_scene_add_mesh(sc, a, na, ta, nfa, &err), mb = clash_scene_add_mesh(sc, b0, 3, tb, 1, &err);
    CHECK(ma >= 0 && mb >= 0, "meshes: %s", err.msg);
    CHECK(clash_scene_add_object(sc, ma, NULL, NULL, 1, &err) == 0, "object A: %s", err.msg);
    CHECK(clash_scene_add_object(sc, mb, NULL, NULL, 1, &err) == 1, "object B: %s", err.msg);
    cfg.mode = CLASH_MODE_SWEPT, cfg.ccd = 1;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run != NULL, "run: %s", err.msg);
    clash_pairs pairs;
    if (run && clash_run_set_vertices(run, 1, b1, &err) == 0 && clash_run_advance(run, &pairs, NULL, &err) == 0) {
        r = copy_contacts(run);
        /* B's vertex 0 as stored (floats) in the two states: the reference times use these */
        double p0[3], p1[3];
        clash_scene_vertex_at(sc, 1, 0, 0, p0, NULL), clash_scene_vertex_at(sc, 1, 0, 1, p1, NULL);
        z_of[0] = p0[2], z_of[1] = p1[2];
    } else {
        CHECK(0, "step: %s", err.msg);
    }
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return r;
}

static const clash_contact *find_contact(const contacts *c, uint32_t kind, uint32_t oa, uint32_t ia, uint32_t ob,
                                         uint32_t ib)
{
    for (size_t i = 0; i < c->n; ++i) {
        const clash_contact *q = &c->c[i];
        if (q->kind == kind && q->obj_a == oa && q->id_a == ia && q->obj_b == ob && q->id_b == ib) return q;
    }
    return NULL;
}

static double earliest(const contacts *c)
{
    double t = 2;
    for (size_t i = 0; i < c->n; ++i) t = c->c[i].toi < t ? c->c[i].toi : t;
    return t;
}

static void check_generated(void)
{
    enum { N = 6 };
    static double g[3 * (N + 1) * (N + 1)];
    static int32_t gt[6 * N * N];
    grid(N, g, gt);
    const double tol = 1e-6;
    clash_config cfg = clash_config_default();
    cfg.ccd_tolerance = tol;
    /* a vertex falling onto face F of the grid from z = 0.6 to z = -0.4: t = 0.6 */
    const double x = 0.37, y = 0.61;
    const double b0[9] = {x, y, 0.6, x + 0.05, y, 1.6, x, y + 0.05, 1.6};
    const double b1[9] = {x, y, -0.4, x + 0.05, y, 0.6, x, y + 0.05, 0.6};
    const int32_t tb[3] = {0, 1, 2};
    int face = -1;
    for (int f = 0; f < 2 * N * N; ++f)
        if (inside(g + 3 * gt[3 * f], g + 3 * gt[3 * f + 1], g + 3 * gt[3 * f + 2], x, y)) face = f;
    double z[2];
    for (int threads = 1; threads <= 2; ++threads) {
        cfg.threads = threads;
        contacts c = two_objects(g, (N + 1) * (N + 1), gt, 2 * N * N, b0, b1, tb, z, cfg);
        check_well_formed(&c, "vertex onto a face");
        const double t = z[0] / (z[0] - z[1]); /* the stored positions' contact time */
        const clash_contact *q = find_contact(&c, CLASH_CONTACT_VF, 1, 0, 0, (uint32_t)face);
        CHECK(q != NULL, "vertex onto face %d: no vf contact (1, 0, 0, %d) among %zu", face, face, c.n);
        if (q) {
            CHECK(q->toi <= t + 1e-12 && q->toi >= t - tol - 1e-12, "vf toi %.17g, the contact is at %.17g", q->toi, t);
            CHECK(earliest(&c) == q->toi, "an earlier contact (%.17g) than the vertex's (%.17g)", earliest(&c), q->toi);
        }
        printf("vertex onto face %d at t = %.9g: %zu contacts, vf toi %.9g\n", face, t, c.n, q ? q->toi : -1.0);
        free(c.c);
    }
    /* edge (-1,0,0)-(1,0,0) of A against edge (0,-1,z)-(0,1,z) of B, z from 0.5 to -0.5: t = 0.5.
     * A's edges (i<j by j, then i): (0,1) = 0; B's likewise. */
    const double a[9] = {-1, 0, 0, 1, 0, 0, 0, 0, -1};
    const int32_t ta[3] = {0, 1, 2};
    const double e0[9] = {0, -1, 0.5, 0, 1, 0.5, 0, 0, 1.5}, e1[9] = {0, -1, -0.5, 0, 1, -0.5, 0, 0, 0.5};
    cfg.threads = 1;
    contacts c = two_objects(a, 3, ta, 1, e0, e1, tb, z, cfg);
    check_well_formed(&c, "edges crossing");
    const double t = z[0] / (z[0] - z[1]);
    const clash_contact *q = find_contact(&c, CLASH_CONTACT_EE, 0, 0, 1, 0);
    CHECK(q != NULL, "edges crossing: no ee contact (0, 0, 1, 0) among %zu", c.n);
    if (q) {
        CHECK(q->toi <= t + 1e-12 && q->toi >= t - tol - 1e-12, "ee toi %.17g, the crossing is at %.17g", q->toi, t);
        CHECK(earliest(&c) == q->toi, "an earlier contact (%.17g) than the edges' (%.17g)", earliest(&c), q->toi);
    }
    printf("edges crossing at t = %.9g: %zu contacts, ee toi %.9g\n", t, c.n, q ? q->toi : -1.0);
    free(c.c);
}

/* ---- 4. --min-separation ------------------------------------------------------------------ */

/* Two unit triangles a gap 0.01 apart (z), B sliding along x: the pairs and
 * contacts of one step with min-separation d. */
static void gap_step(double d, size_t *npairs, contacts *c)
{
    const double a[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    const double b0[9] = {0, 0, 0.01, 1, 0, 0.01, 0, 1, 0.01}, b1[9] = {0.1, 0, 0.01, 1.1, 0, 0.01, 0.1, 1, 0.01};
    const int32_t t[3] = {0, 1, 2};
    clash_error err;
    clash_scene *sc = NULL;
    clash_scene_create(&sc, &err);
    const int ma = clash_scene_add_mesh(sc, a, 3, t, 1, &err), mb = clash_scene_add_mesh(sc, b0, 3, t, 1, &err);
    clash_scene_add_object(sc, ma, NULL, NULL, 1, &err), clash_scene_add_object(sc, mb, NULL, NULL, 1, &err);
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_SWEPT, cfg.ccd = 1, cfg.min_separation = d;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    clash_pairs pairs = {NULL, 0};
    CHECK(run && clash_run_set_vertices(run, 1, b1, &err) == 0 && clash_run_advance(run, &pairs, NULL, &err) == 0,
          "min-separation %g: %s", d, err.msg);
    *npairs = pairs.count;
    *c = run ? copy_contacts(run) : (contacts){NULL, 0};
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

static void check_min_separation(void)
{
    size_t np;
    contacts c;
    gap_step(0, &np, &c);
    CHECK(np == 0 && c.n == 0, "gap 0.01, no min-separation: %zu pairs, %zu contacts, expected none", np, c.n);
    free(c.c);
    gap_step(0.005, &np, &c);
    CHECK(np == 0 && c.n == 0, "gap 0.01, min-separation 0.005: %zu pairs, %zu contacts, expected none", np, c.n);
    free(c.c);
    gap_step(0.02, &np, &c);
    CHECK(np == 1 && c.n > 0, "gap 0.01, min-separation 0.02: %zu pairs, %zu contacts, expected 1 and some", np, c.n);
    for (size_t i = 0; i < c.n; ++i) CHECK(c.c[i].toi == 0, "within 0.02 from the start: toi %.17g", c.c[i].toi);
    printf("min-separation 0.02 over a gap of 0.01: %zu pair, %zu contacts at toi 0\n", np, c.n);
    free(c.c);
}

/* With min-separation D the octree and the BVH keep the oracle's pairs. */
static void check_min_separation_oracle(const char *data)
{
    clash_error err;
    const int mids[3] = {CLASH_MID_BRUTE, CLASH_MID_OCTREE, CLASH_MID_BVH};
    uint64_t *ref = NULL;
    size_t nref = 0, nzero = 0;
    for (int d = 0; d < 2; ++d)
        for (int k = 0; k < 3; ++k) {
            if (d == 0 && k > 0) continue; /* D = 0: the brute pair count only, to see D matter */
            clash_scene *sc = frames_scene(data, "cloth-funnel", 227, &err);
            clash_config cfg = clash_config_default();
            cfg.mode = CLASH_MODE_SWEPT, cfg.self_collision = 1, cfg.midphase = mids[k];
            cfg.min_separation = d ? 2e-3 : 0; /* the cloth spans 2.5 units */
            clash_run *run = sc ? clash_run_create(sc, &cfg, &err) : NULL;
            clash_pairs p = {NULL, 0};
            CHECK(run && clash_step(run, 1, &p, NULL, &err) == 0, "midphase %d: %s", mids[k], err.msg);
            uint64_t *keys = malloc((p.count + 1) * 8);
            for (size_t i = 0; i < p.count; ++i) keys[i] = (uint64_t)p.pairs[i].face_a << 32 | p.pairs[i].face_b;
            if (d == 0) nzero = p.count, free(keys);
            else if (k == 0) ref = keys, nref = p.count;
            else {
                CHECK(p.count == nref && !memcmp(keys, ref, nref * 8),
                      "min-separation 2e-3: midphase %d keeps %zu pairs, the oracle %zu (or other ones)", mids[k],
                      p.count, nref);
                free(keys);
            }
            clash_run_destroy(run);
            clash_scene_destroy(sc);
        }
    CHECK(nref > nzero, "min-separation 2e-3 adds no pair (%zu, %zu without): the check could not fail", nref, nzero);
    printf("cloth-funnel, min-separation 2e-3: octree and bvh keep the oracle's %zu pairs (%zu without it)\n", nref,
           nzero);
    free(ref);
}

/* The same on a rigid scene (the default preset, 3 steps) for every
 * midphase, the object trees included: each keeps the oracle's pairs. */
static void check_min_separation_rigid(void)
{
    const int mids[] = {CLASH_MID_BRUTE,     CLASH_MID_OCTREE,    CLASH_MID_BVH,     CLASH_MID_BBOXPIPE,
                        CLASH_MID_OBJOCTREE, CLASH_MID_SPHERICAL, CLASH_MID_BOXTREE, CLASH_MID_DOPTREE};
    uint64_t *ref = NULL;
    size_t nref = 0, nzero = 0;
    for (int k = -1; k < (int)(sizeof mids / sizeof *mids); ++k) {
        clash_error err;
        clash_scene *sc = NULL;
        CHECK(clash_scene_preset("default", NULL, &sc, &err) == 0, "preset: %s", err.msg);
        clash_config cfg = clash_config_default();
        cfg.mode = CLASH_MODE_SWEPT, cfg.steps = 3, cfg.midphase = mids[k < 0 ? 0 : k];
        cfg.min_separation = k < 0 ? 0 : 0.05;
        clash_run *run = sc ? clash_run_create(sc, &cfg, &err) : NULL;
        uint64_t *keys = NULL;
        size_t n = 0;
        for (int step = 1; run && step <= 3; ++step) {
            clash_pairs p = {NULL, 0};
            CHECK(clash_step(run, step, &p, NULL, &err) == 0, "midphase %d: %s", cfg.midphase, err.msg);
            keys = realloc(keys, (n + p.count + 1) * 2 * sizeof *keys);
            for (size_t i = 0; i < p.count; ++i, ++n) {
                keys[2 * n] = (uint64_t)step << 32 | p.pairs[i].obj_a, keys[2 * n + 1] = (uint64_t)p.pairs[i].face_a << 40 |
                    (uint64_t)p.pairs[i].obj_b << 20 | p.pairs[i].face_b;
            }
        }
        if (k < 0) nzero = n, free(keys);
        else if (k == 0) ref = keys, nref = n;
        else {
            CHECK(n == nref && (!n || !memcmp(keys, ref, 2 * n * sizeof *keys)),
                  "rigid, min-separation 0.05: midphase %d keeps %zu pairs, the oracle %zu (or other ones)", mids[k], n,
                  nref);
            free(keys);
        }
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
    CHECK(nref > nzero, "rigid: min-separation 0.05 adds no pair (%zu, %zu without)", nref, nzero);
    printf("default preset, 3 steps, min-separation 0.05: every midphase keeps the oracle's %zu pairs (%zu without)\n",
           nref, nzero);
    free(ref);
}

/* ---- 5. bad options ----------------------------------------------------------------------- */

static int run_cli(const char *args)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s run %s >/dev/null 2>&1", CLASH_BIN, args);
    const int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void check_bad_options(void)
{
    clash_error err;
    clash_config cfg = clash_config_default();
    const char *bad[][2] = {{"ccd", "2"}, {"ccd-tolerance", "0"}, {"ccd-tolerance", "-1e-6"}, {"ccd-tolerance", "nan"},
                            {"ccd-tolerance", "abc"}, {"ccd-tolerance", "2"}, {"min-separation", "-0.1"},
                            {"min-separation", "inf"}, {"min-separation", ""}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        clash_config before = cfg;
        CHECK(clash_config_set(&cfg, bad[i][0], bad[i][1], &err) == CLASH_EINPUT && strstr(err.msg, bad[i][0]),
              "config_set %s '%s' accepted, or the message does not name it: %s", bad[i][0], bad[i][1], err.msg);
        CHECK(!memcmp(&before, &cfg, sizeof cfg), "a refused %s changed the config", bad[i][0]);
    }
    CHECK(clash_config_set(&cfg, "ccd", "1", &err) == 0 && cfg.ccd == 1, "ccd 1: %s", err.msg);
    CHECK(clash_config_set(&cfg, "ccd-tolerance", "1e-8", &err) == 0 && cfg.ccd_tolerance == 1e-8, "tol: %s", err.msg);
    CHECK(clash_config_set(&cfg, "min-separation", "0.25", &err) == 0 && cfg.min_separation == 0.25, "D: %s", err.msg);
    /* clash_run_create checks the struct too */
    clash_scene *sc = NULL;
    CHECK(clash_scene_preset("default", NULL, &sc, &err) == 0, "preset: %s", err.msg);
    const struct { int mode, ccd; double tol, d; const char *what; } runs[] = {
        {CLASH_MODE_STATIC, 1, 1e-6, 0, "ccd in static mode"}, {CLASH_MODE_SWEPT, 1, 0, 0, "tolerance 0"},
        {CLASH_MODE_SWEPT, 1, NAN, 0, "tolerance NaN"}, {CLASH_MODE_SWEPT, 1, 1e-6, -1, "min-separation -1"},
        {CLASH_MODE_STATIC, 0, 1e-6, 0.1, "min-separation in static mode"}};
    for (size_t i = 0; sc && i < sizeof runs / sizeof *runs; ++i) {
        cfg = clash_config_default();
        cfg.mode = runs[i].mode, cfg.ccd = runs[i].ccd, cfg.ccd_tolerance = runs[i].tol, cfg.min_separation = runs[i].d;
        clash_run *r = clash_run_create(sc, &cfg, &err);
        CHECK(!r && err.code == CLASH_EINPUT, "run_create accepted %s", runs[i].what);
        clash_run_destroy(r);
    }
    cfg = clash_config_default();
    clash_run *r = sc ? clash_run_create(sc, &cfg, &err) : NULL;
    clash_contacts cs;
    CHECK(r && clash_run_contacts(r, &cs, NULL) == CLASH_EINPUT && cs.count == 0, "contacts of a run without ccd");
    clash_run_destroy(r);
    clash_scene_destroy(sc);
    /* the command: exit status 2 */
    const char *cli[] = {"--steps 1 --quiet --ccd --mode static", "--steps 1 --quiet --ccd --ccd-tolerance 0",
                         "--steps 1 --quiet --ccd --ccd-tolerance abc", "--steps 1 --quiet --ccd --ccd-tolerance -1",
                         "--steps 1 --quiet --ccd --min-separation -0.5",
                         "--steps 1 --quiet --mode static --min-separation 0.1",
                         "--steps 1 --quiet --contacts /dev/null", "--steps 1 --quiet --ccd --ccd-tolerance"};
    for (size_t i = 0; i < sizeof cli / sizeof *cli; ++i) {
        const int rc = run_cli(cli[i]);
        CHECK(rc == 2, "clash run %s: exit %d, expected 2", cli[i], rc);
    }
    CHECK(run_cli("--steps 2 --quiet --ccd --ccd-tolerance 1e-5 --min-separation 0.001 --contacts -") == 0,
          "clash run --ccd with good options failed");
}


int main(void)
{
    check_generated();
    check_min_separation();
    check_min_separation_rigid();
    check_bad_options();
    const char *data = check_data_dir();
    if (!data) {
        printf("SKIP (part): ../shared/data is missing: the ccd-frames checks need it\n");
        return check_finish("test_ccd_contacts");
    }
    check_frames(data, "cloth-funnel", 227);
    check_frames(data, "armadillo-rollers", 326);
    check_determinism(data);
    check_min_separation_oracle(data);
    return check_finish("test_ccd_contacts");
}
