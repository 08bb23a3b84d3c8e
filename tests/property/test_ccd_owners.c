/*
 * test_ccd_owners.c — --ccd makes each primitive pair from its owners' face
 * pair alone (stages/ccd.c, core/edges.h), and that loses no contact.
 *
 * For every scene the step runs twice: as the library does, and with the
 * debug switch CLASH_DEBUG_CCD_EVERY_HIT, which makes every hit's primitive
 * pairs (the superset the owners' rule thins).  The contacts must be the
 * same, toi for toi (bit for bit: the same primitive pairs through the same
 * kernel), and the owners' rule must test fewer primitive pairs, or it does
 * nothing.  The scenes are the cases where the rule could go wrong:
 *   - a crumpled sheet (one deforming object, self-collision, every vertex
 *     moved at random by about a cell): most contacts are between faces one
 *     or two rings apart, where a primitive's owner face often shares a
 *     vertex with the other face, a face pair no stage tests, so the rule's
 *     fallback (every hit) must take over; with a minimum separation the
 *     rule is off (the contacts in the max norm, stages/ccd.c) and the
 *     primitive pairs must be every hit's;
 *   - the same sheet stored in input order (other owners);
 *   - rigid objects that turn by a scene's pose formula (the CCD along the
 *     motion, the hull test with arc margins);
 *   - two objects through the API, one deforming, no self-collision;
 *   - the cloth-funnel frames (../shared/data), when present.
 * Each scene must have contacts, so that the comparison can fail.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "contacts_cmp.h"
#include "clash_internal.h"
#include "io/scene_desc.h"

typedef struct outcome {
    clash_contact *c;
    size_t n;
    int64_t tests;
} outcome;

static uint64_t rng = 0x9e3779b97f4a7c15u;
static double urand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

/* One step of sc under cfg (swept, --ccd): the contacts and the primitive
 * pairs tested.  next: the next state's vertices of object 0 (NULL: the
 * scene moves itself). */
static outcome step_of(clash_scene *sc, clash_config cfg, int every, const double *next, const char *what)
{
    clash_error err;
    outcome r = {NULL, 0, 0};
    cfg.mode = CLASH_MODE_SWEPT, cfg.ccd = 1;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run != NULL, "%s: run: %s", what, err.msg);
    if (!run) return r;
    CHECK(clash_internal_set_debug(run, CLASH_DEBUG_CCD_EVERY_HIT, every) == 0, "%s: the debug switch", what);
    clash_pairs pairs;
    clash_step_stats st;
    int rc = next ? clash_run_set_vertices(run, 0, next, &err) : 0;
    if (!rc) rc = next ? clash_run_advance(run, &pairs, &st, &err) : clash_step(run, 1, &pairs, &st, &err);
    CHECK(rc == 0, "%s: step: %s", what, err.msg);
    clash_contacts cs;
    if (!rc && clash_run_contacts(run, &cs, NULL) == 0) {
        r.n = cs.count, r.tests = st.ccd_tests;
        r.c = malloc((r.n + 1) * sizeof *r.c);
        if (r.n) memcpy(r.c, cs.contacts, r.n * sizeof *r.c);
    }
    clash_run_destroy(run);
    return r;
}

static int same(const outcome *a, const outcome *b)
{
    return check_same_contacts(a->c, a->n, b->c, b->n);
}

/* The two ways on one scene: the same contacts, fewer tests (with a
 * minimum separation the library makes every hit's pairs: as many). */
static void compare(clash_scene *sc, clash_config cfg, const double *next, const char *what)
{
    outcome own = step_of(sc, cfg, 0, next, what), all = step_of(sc, cfg, 1, next, what);
    CHECK(all.n > 0, "%s: no contacts: the comparison could not fail", what);
    CHECK(same(&own, &all), "%s: %zu contacts from the owners' face pairs, %zu from every hit, or other ones", what,
          own.n, all.n);
    if (cfg.min_separation > 0)
        CHECK(own.tests == all.tests, "%s: %lld primitive pairs, every hit's %lld: the owners' rule was used", what,
              (long long)own.tests, (long long)all.tests);
    else
        CHECK(own.tests < all.tests, "%s: %lld primitive pairs from the owners, %lld from every hit: none saved",
              what, (long long)own.tests, (long long)all.tests);
    printf("%-34s %6zu contacts, primitive pairs %8lld (every hit: %8lld, %.2f)\n", what, own.n,
           (long long)own.tests, (long long)all.tests, all.tests ? (double)own.tests / (double)all.tests : 0.0);
    free(own.c), free(all.c);
}

/* An n x n grid sheet, and its vertices each moved by up to `amp` cells at random. */
static void sheet(int n, double *xyz, int32_t *tri, double *next, double amp)
{
    const double h = 1.0 / (n - 1);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            double *p = xyz + 3 * (j * n + i), *q = next + 3 * (j * n + i);
            p[0] = i * h, p[1] = j * h, p[2] = 0.02 * sin(7.0 * i * h) * cos(5.0 * j * h);
            for (int d = 0; d < 3; ++d) q[d] = p[d] + amp * h * (2 * urand() - 1);
        }
    int k = 0;
    for (int j = 0; j + 1 < n; ++j)
        for (int i = 0; i + 1 < n; ++i) {
            const int a = j * n + i, b = a + 1, c = a + n, d = c + 1;
            tri[k++] = a, tri[k++] = b, tri[k++] = d;
            tri[k++] = a, tri[k++] = d, tri[k++] = c;
        }
}

static void check_sheet(void)
{
    enum { N = 48 };
    double *xyz = malloc(3 * N * N * sizeof *xyz), *next = malloc(3 * N * N * sizeof *next);
    int32_t *tri = malloc(6 * (N - 1) * (N - 1) * sizeof *tri);
    sheet(N, xyz, tri, next, 0.9);
    for (int variant = 0; variant < 3; ++variant) {
        clash_error err;
        clash_scene *sc = NULL;
        CHECK(clash_scene_create(&sc, &err) == 0, "sheet: %s", err.msg);
        const int m = clash_scene_add_mesh(sc, xyz, N * N, tri, 2 * (N - 1) * (N - 1), &err);
        CHECK(m >= 0 && clash_scene_add_object(sc, m, NULL, NULL, 1, &err) == 0, "sheet: %s", err.msg);
        clash_config cfg = clash_config_default();
        cfg.self_collision = 1, cfg.threads = 2;
        if (variant == 1) cfg.min_separation = 0.2 / N;
        if (variant == 2) cfg.reorder = CLASH_REORDER_NONE;
        compare(sc, cfg, next,
                variant == 0 ? "crumpled sheet, self" : variant == 1 ? "crumpled sheet, min separation"
                                                                     : "crumpled sheet, input order");
        clash_scene_destroy(sc);
    }
    /* two objects, the sheet deforming through a still copy of itself below */
    for (int i = 0; i < N * N; ++i) next[3 * i + 2] = xyz[3 * i + 2] - 0.05 + 0.01 * urand();
    double *below = malloc(3 * N * N * sizeof *below);
    for (int i = 0; i < N * N; ++i)
        below[3 * i] = xyz[3 * i] + 0.3 / N, below[3 * i + 1] = xyz[3 * i + 1], below[3 * i + 2] = xyz[3 * i + 2] - 0.02;
    clash_error err;
    clash_scene *sc = NULL;
    CHECK(clash_scene_create(&sc, &err) == 0, "two sheets: %s", err.msg);
    const int m0 = clash_scene_add_mesh(sc, xyz, N * N, tri, 2 * (N - 1) * (N - 1), &err);
    const int m1 = clash_scene_add_mesh(sc, below, N * N, tri, 2 * (N - 1) * (N - 1), &err);
    CHECK(m0 >= 0 && m1 >= 0, "two sheets: %s", err.msg);
    CHECK(clash_scene_add_object(sc, m0, NULL, NULL, 1, &err) == 0, "two sheets: %s", err.msg);
    CHECK(clash_scene_add_object(sc, m1, NULL, NULL, 1, &err) == 1, "two sheets: %s", err.msg);
    clash_config cfg = clash_config_default();
    cfg.threads = 1;
    compare(sc, cfg, next, "two sheets, one deforming");
    clash_scene_destroy(sc);
    free(xyz), free(next), free(tri), free(below);
}

/* Rigid spheres and boxes turning by their pose formula, crowded. */
static void check_turning(void)
{
    clash_mesh_desc md[2] = {{.name = "s", .kind = CLASH_MESH_SPHERE, .sphere_faces = 224, .scale = 1},
                             {.name = "box", .kind = CLASH_MESH_BOX, .scale = 1.2, .center = 1}};
    enum { NOBJ = 12 };
    clash_object_desc od[NOBJ];
    memset(od, 0, sizeof od);
    for (int o = 0; o < NOBJ; ++o) {
        od[o].mesh = o % 3 == 2;
        od[o].scale = 0.7 + 0.4 * urand();
        for (int d = 0; d < 3; ++d) {
            od[o].position[d] = 2.2 * (2 * urand() - 1);
            od[o].rotation_deg[d] = 180 * (2 * urand() - 1);
            od[o].velocity[d] = 0.4 * (2 * urand() - 1);
            od[o].angular_velocity_deg[d] = o % 4 == 3 ? 0 : 25 * (2 * urand() - 1);
        }
    }
    clash_scene_desc d = {.name = "turning", .steps = 1, .mode = CLASH_MODE_SWEPT, .nmeshes = 2, .meshes = md,
                          .nobjects = NOBJ, .objects = od};
    clash_scene *sc = NULL;
    clash_error err;
    CHECK(clash_scene_build(&d, &sc, &err) == 0, "turning: %s", err.msg);
    if (!sc) return;
    clash_config cfg = clash_config_default();
    cfg.threads = 2;
    compare(sc, cfg, NULL, "turning rigid objects");
    clash_scene_destroy(sc);
}

static void check_frames(const char *data)
{
    static char p0[512], p1[512];
    snprintf(p0, sizeof p0, "%s/ccd-frames/cloth-funnel/frames/227.ply", data);
    snprintf(p1, sizeof p1, "%s/ccd-frames/cloth-funnel/frames/228.ply", data);
    char *files[2] = {p0, p1};
    clash_scene_desc d = {.name = "cloth-funnel", .steps = 1, .mode = CLASH_MODE_SWEPT, .self_collision = 1,
                          .nframes = 2, .frame_files = files, .frames_objects = CLASH_FRAMES_SINGLE};
    clash_scene *sc = NULL;
    clash_error err;
    CHECK(clash_scene_build(&d, &sc, &err) == 0, "cloth-funnel: %s", err.msg);
    if (!sc) return;
    clash_config cfg = clash_config_default();
    cfg.self_collision = 1, cfg.threads = 2;
    compare(sc, cfg, NULL, "cloth-funnel frames");
    clash_scene_destroy(sc);
}

int main(void)
{
    check_sheet();
    check_turning();
    const char *data = check_data_dir();
    if (!data) printf("SKIP (part): ../shared/data is missing: the cloth-funnel frames check needs it\n");
    else check_frames(data);
    return check_finish("test_ccd_owners");
}
