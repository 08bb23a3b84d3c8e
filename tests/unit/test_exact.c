/*
 * test_exact.c — the host's coordinates are the truth: cases where rounding
 * the positions to float32 flips the answer, each decided on the doubles
 * given, through the API (clash_scene_add_mesh, clash_run_set_vertices), a
 * scene file (OBJ meshes written with 17 digits, objects moved by their
 * law) and a frames scene (PLY frames of doubles), in static and swept mode
 * and with ccd, at coordinates of magnitude M = 1, 10^3 and 10^5.
 *
 * T is a fixed triangle in the plane z = 0, its edge AB slanted so that
 * float rounding moves it by a tenth of an ulp u (u: the float spacing at
 * M) while the moving triangle U, which comes within 1e-9 of it, rounds the
 * other way by 0.4u to 0.5u:
 *   vf     U's lowest vertex passes through T 1e-9 inside AB (static: it
 *          lies on T there);
 *   ee     U's lowest edge, parallel to AB 1e-9 inside it, crosses T's
 *          edges CA and BC within about 1e-9 of T's corners (static: it
 *          lies in T there);
 *   graze  U's lowest vertex passes over T at a height of exactly
 *          --min-separation d = 5/8 u above z = M (swept and ccd only):
 *          within d in double, u apart in float.
 * Every case first checks its own design: the exact test on the float-
 * rounded coordinates gives the opposite answer (so the case fails where
 * positions are rounded).  Then the pipeline must report the pair (and with
 * ccd a contact of the expected kind) on the doubles.
 *
 * Static boxes: two unit boxes 1e-4 apart along x at x = 10^4, 10^5, 10^6
 * give no pair, 1e-4 overlapping give pairs (float rounding closes the gap
 * at these magnitudes), through the API and a scene file.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "clash/clash.h"
#include "kernels/kernels.h"

enum { CASE_VF, CASE_EE, CASE_GRAZE };
static const char *const case_name[] = {"vf", "ee", "graze"};
enum { PATH_API, PATH_SCENE, PATH_FRAMES };
static const char *const path_name[] = {"api", "scene file", "frames"};

static char tmpdir[] = "/tmp/clash-test-exact.XXXXXX";

/* The float spacing at M (above it). */
static double ulp_at(double M)
{
    const float f = (float)M;
    return (double)nextafterf(f, INFINITY) - (double)f;
}

/* A case: T (3 vertices, fixed) and U (3 vertices) at t = 0 and t = 1 (swept)
 * or at rest (static: u0 = u1). */
typedef struct geo {
    double T[3][3], U0[3][3], U1[3][3];
    double d; /* --min-separation */
} geo;

/* U's shape with its lowest vertex or edge at height z (the rest one higher). */
static void shape_u(int kind, double M, double z, double out[3][3])
{
    const double u = ulp_at(M), xp = M + 1.4 * u + 1e-9;
    if (kind == CASE_VF) {
        const double p[3][3] = {{xp, 0.25, z}, {xp - 1, 0.25, z + 1}, {xp - 1, 0.35, z + 1}};
        memcpy(out, p, sizeof p);
    } else if (kind == CASE_EE) { /* the edge x = M + 0.9u + 1e-9 + 2u y, from y = -0.25 to 1.25 */
        const double p[3][3] = {
            {M + 0.4 * u + 1e-9, -0.25, z}, {M + 3.4 * u + 1e-9, 1.25, z}, {M - 1, 0.5, z + 1}};
        memcpy(out, p, sizeof p);
    } else { /* graze: over T = (0,0,M) (1,0,M) (0,1,M) */
        const double p[3][3] = {{0.2, 0.2, z}, {0.2, 0.3, z + 1}, {0.3, 0.2, z + 1}};
        memcpy(out, p, sizeof p);
    }
}

static geo make_case(int kind, double M, int swept)
{
    geo g;
    const double u = ulp_at(M);
    if (kind == CASE_GRAZE) {
        const double T[3][3] = {{0, 0, M}, {1, 0, M}, {0, 1, M}};
        memcpy(g.T, T, sizeof T);
        g.d = 0.625 * u; /* M + d is a double exactly; in float it rounds to M + u */
        shape_u(kind, M, M + g.d, g.U0);
        memcpy(g.U1, g.U0, sizeof g.U0);
        for (int k = 0; k < 3; ++k) g.U1[k][0] += 0.25; /* sliding over T at height d */
        return g;
    }
    const double T[3][3] = {{M + 0.9 * u, 0, 0}, {M + 2.9 * u, 1, 0}, {M + 1, 0.5, 0}};
    memcpy(g.T, T, sizeof T);
    g.d = 0;
    shape_u(kind, M, swept ? -1.0 : 0.0, g.U0);
    shape_u(kind, M, swept ? 1.0 : 0.0, g.U1);
    return g;
}

/* The exact test on the points (r: rounded to float first). */
static int exact_answer(const geo *g, int swept, int r)
{
    double p[6][3], q[6][3];
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c) {
            p[k][c] = p[k + 3][c] = r ? (float)g->T[k][c] : g->T[k][c];
            q[k][c] = r ? (float)g->U1[k][c] : g->U1[k][c];
            q[k + 3][c] = r ? (float)g->U0[k][c] : g->U0[k][c];
        }
    if (!swept) return ck_tritri(p[0], p[1], p[2], q[0], q[1], q[2]);
    return ck_hulls_meet((const double(*)[3])p, 6, (const double(*)[3])q, 6, g->d);
}

static const int32_t tri[3] = {0, 1, 2};

/* ---- the three ways in ----------------------------------------------------------------- */

static int write_obj(const char *path, const double (*v)[3], int nv, const int32_t *t, int nt)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    for (int i = 0; i < nv; ++i) fprintf(f, "v %.17g %.17g %.17g\n", v[i][0], v[i][1], v[i][2]);
    for (int i = 0; i < nt; ++i) fprintf(f, "f %d %d %d\n", t[3 * i] + 1, t[3 * i + 1] + 1, t[3 * i + 2] + 1);
    return fclose(f);
}

/* A PLY frame of doubles holding T (vertices 0..2) and U (3..5). */
static int write_ply(const char *path, const double (*T)[3], const double (*U)[3])
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "ply\nformat ascii 1.0\nelement vertex 6\nproperty double x\nproperty double y\nproperty double z\n"
               "element face 2\nproperty list uchar int vertex_indices\nend_header\n");
    for (int i = 0; i < 6; ++i) {
        const double *p = i < 3 ? T[i] : U[i - 3];
        fprintf(f, "%.17g %.17g %.17g\n", p[0], p[1], p[2]);
    }
    fprintf(f, "3 0 1 2\n3 3 4 5\n");
    return fclose(f);
}

/* The step's result: pairs, and with ccd the contacts of each kind. */
typedef struct result {
    int ok;
    size_t pairs, vf, ee;
} result;

static result run_step(clash_scene *sc, const geo *g, int swept, int ccd, int set_u, clash_error *err)
{
    result r = {0, 0, 0, 0};
    clash_config cfg;
    clash_config_init(&cfg);
    cfg.mode = swept ? CLASH_MODE_SWEPT : CLASH_MODE_STATIC;
    cfg.ccd = ccd;
    cfg.min_separation = g->d;
    cfg.threads = 1;
    clash_run *run = clash_run_create(sc, &cfg, err);
    if (!run) return r;
    clash_pairs pairs;
    int rc = set_u ? clash_run_set_vertices(run, 1, &g->U1[0][0], err) : 0;
    if (!rc) rc = set_u ? clash_run_advance(run, &pairs, NULL, err) : clash_step(run, 1, &pairs, NULL, err);
    if (!rc) {
        r.ok = 1, r.pairs = pairs.count;
        clash_contacts cs;
        if (ccd && clash_run_contacts(run, &cs, NULL) == 0)
            for (size_t i = 0; i < cs.count; ++i) {
                r.vf += cs.contacts[i].kind == CLASH_CONTACT_VF;
                r.ee += cs.contacts[i].kind == CLASH_CONTACT_EE;
            }
    }
    clash_run_destroy(run);
    return r;
}

static result through(int path, const geo *g, int swept, int ccd, const char *what)
{
    clash_error err = {0};
    clash_scene *sc = NULL;
    result r = {0, 0, 0, 0};
    char p[256], a[256], b[256];
    if (path == PATH_API) {
        if (clash_scene_create(&sc, &err) == 0) {
            const int mt = clash_scene_add_mesh(sc, &g->T[0][0], 3, tri, 1, &err);
            const int mu = mt >= 0 ? clash_scene_add_mesh(sc, &g->U0[0][0], 3, tri, 1, &err) : -1;
            if (mu >= 0 && clash_scene_add_object(sc, mt, NULL, NULL, 0, &err) == 0 &&
                clash_scene_add_object(sc, mu, NULL, NULL, 1, &err) == 1)
                r = run_step(sc, g, swept, ccd, 1, &err);
        }
    } else if (path == PATH_SCENE) { /* U's mesh at its t = 0 place, moved by its velocity (U1 - U0 is a translation) */
        snprintf(a, sizeof a, "%s/T.obj", tmpdir), snprintf(b, sizeof b, "%s/U.obj", tmpdir);
        snprintf(p, sizeof p, "%s/scene.json", tmpdir);
        FILE *f = write_obj(a, (const double(*)[3])g->T, 3, tri, 1) || write_obj(b, (const double(*)[3])g->U0, 3, tri, 1)
                      ? NULL
                      : fopen(p, "w");
        if (f) {
            fprintf(f, "{\"format\": \"clash-scene/1\", \"steps\": 1, \"meshes\": {\"T\": {\"file\": \"T.obj\"}, "
                       "\"U\": {\"file\": \"U.obj\"}}, \"objects\": [{\"mesh\": \"T\"}, {\"mesh\": \"U\", "
                       "\"velocity\": [%.17g, %.17g, %.17g]}]}\n",
                    g->U1[0][0] - g->U0[0][0], g->U1[0][1] - g->U0[0][1], g->U1[0][2] - g->U0[0][2]);
            if (!fclose(f) && clash_scene_load(p, &sc, &err) == 0) r = run_step(sc, g, swept, ccd, 0, &err);
        }
    } else {
        snprintf(a, sizeof a, "%s/f0.ply", tmpdir), snprintf(b, sizeof b, "%s/f1.ply", tmpdir);
        snprintf(p, sizeof p, "%s/frames.json", tmpdir);
        FILE *f = write_ply(a, (const double(*)[3])g->T, (const double(*)[3])g->U0) ||
                          write_ply(b, (const double(*)[3])g->T, (const double(*)[3])g->U1)
                      ? NULL
                      : fopen(p, "w");
        if (f) {
            fprintf(f, "{\"format\": \"clash-scene/1\", \"steps\": 1, \"frames\": {\"files\": [\"f0.ply\", \"f1.ply\"]}}\n");
            if (!fclose(f) && clash_scene_load(p, &sc, &err) == 0) r = run_step(sc, g, swept, ccd, 0, &err);
        }
    }
    CHECK(r.ok, "%s: %s", what, err.msg[0] ? err.msg : "could not write or run the case");
    clash_scene_destroy(sc);
    return r;
}

/* Every case, path, mode and magnitude. */
static void test_cases(void)
{
    const double mags[3] = {1, 1e3, 1e5};
    for (int kind = CASE_VF; kind <= CASE_GRAZE; ++kind)
        for (int mode = 0; mode < 3; ++mode) { /* static, swept, swept with ccd */
            const int swept = mode > 0, ccd = mode == 2;
            if (kind == CASE_GRAZE && !swept) continue; /* --min-separation is swept mode's */
            for (int m = 0; m < 3; ++m) {
                const geo g = make_case(kind, mags[m], swept);
                char what[128];
                snprintf(what, sizeof what, "%s, %s%s, M = %g", case_name[kind], swept ? "swept" : "static",
                         ccd ? " with ccd" : "", mags[m]);
                CHECK(exact_answer(&g, swept, 0) == 1 && exact_answer(&g, swept, 1) == 0,
                      "%s: the case's design: in double %d (want 1), rounded to float %d (want 0)", what,
                      exact_answer(&g, swept, 0), exact_answer(&g, swept, 1));
                for (int path = PATH_API; path <= PATH_FRAMES; ++path) {
                    const result r = through(path, &g, swept, ccd, what);
                    CHECK(r.pairs == 1, "%s, %s: %zu face pairs, want 1", what, path_name[path], r.pairs);
                    if (ccd && kind != CASE_EE)
                        CHECK(r.vf >= 1, "%s, %s: %zu vf contacts, want one at least", what, path_name[path], r.vf);
                    if (ccd && kind == CASE_EE)
                        CHECK(r.ee >= 1, "%s, %s: %zu ee contacts, want one at least", what, path_name[path], r.ee);
                }
            }
        }
}

/* ---- static boxes far from the origin ----------------------------------------------- */

/* Vertex i of a box: bit 0 x, bit 1 y, bit 2 z; two triangles a side. */
static const int32_t box_tri[36] = {0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5, 0, 1, 5, 0, 5, 4,
                                    2, 6, 7, 2, 7, 3, 0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6};

/* The unit box [x0, x0 + 1] x [0, 1] x [0, 1]. */
static void unit_box(double x0, double v[8][3])
{
    for (int i = 0; i < 8; ++i) v[i][0] = x0 + (i & 1), v[i][1] = (i >> 1) & 1, v[i][2] = (i >> 2) & 1;
}

static size_t boxes_pairs(int path, double X, double gap, const char *what)
{
    double a[8][3], b[8][3];
    unit_box(X, a), unit_box(X + 1 + gap, b);
    clash_error err = {0};
    clash_scene *sc = NULL;
    const geo g = {.d = 0};
    result r = {0, 0, 0, 0};
    if (path == PATH_API) {
        if (clash_scene_create(&sc, &err) == 0) {
            const int ma = clash_scene_add_mesh(sc, &a[0][0], 8, box_tri, 12, &err);
            const int mb = ma >= 0 ? clash_scene_add_mesh(sc, &b[0][0], 8, box_tri, 12, &err) : -1;
            if (mb >= 0 && clash_scene_add_object(sc, ma, NULL, NULL, 0, &err) == 0 &&
                clash_scene_add_object(sc, mb, NULL, NULL, 0, &err) == 1)
                r = run_step(sc, &g, 0, 0, 0, &err);
        }
    } else {
        char p[256], pa[256], pb[256];
        snprintf(pa, sizeof pa, "%s/A.obj", tmpdir), snprintf(pb, sizeof pb, "%s/B.obj", tmpdir);
        snprintf(p, sizeof p, "%s/boxes.json", tmpdir);
        FILE *f = write_obj(pa, (const double(*)[3])a, 8, box_tri, 12) || write_obj(pb, (const double(*)[3])b, 8, box_tri, 12)
                      ? NULL
                      : fopen(p, "w");
        if (f) {
            fprintf(f, "{\"format\": \"clash-scene/1\", \"mode\": \"static\", \"meshes\": {\"A\": {\"file\": \"A.obj\"}, "
                       "\"B\": {\"file\": \"B.obj\"}}, \"objects\": [{\"mesh\": \"A\"}, {\"mesh\": \"B\"}]}\n");
            if (!fclose(f) && clash_scene_load(p, &sc, &err) == 0) r = run_step(sc, &g, 0, 0, 0, &err);
        }
    }
    CHECK(r.ok, "%s: %s", what, err.msg[0] ? err.msg : "could not write or run the case");
    clash_scene_destroy(sc);
    return r.pairs;
}

static void test_boxes(void)
{
    const double xs[3] = {1e4, 1e5, 1e6};
    for (int i = 0; i < 3; ++i)
        for (int path = PATH_API; path <= PATH_SCENE; ++path) {
            char what[96];
            snprintf(what, sizeof what, "boxes at x = %g, %s", xs[i], path_name[path]);
            /* the design: in float the 1e-4 gap closes */
            CHECK((float)(xs[i] + 1 + 1e-4) == (float)(xs[i] + 1), "%s: the gap survives float rounding", what);
            const size_t apart = boxes_pairs(path, xs[i], 1e-4, what), over = boxes_pairs(path, xs[i], -1e-4, what);
            CHECK(apart == 0, "%s: 1e-4 apart: %zu pairs, want none", what, apart);
            CHECK(over > 0, "%s: 1e-4 overlapping: no pair", what);
        }
}

int main(void)
{
    if (!mkdtemp(tmpdir)) return check_skip("cannot make a temporary folder");
    test_cases();
    test_boxes();
    const char *files[] = {"T.obj", "U.obj", "scene.json", "f0.ply", "f1.ply", "frames.json", "A.obj", "B.obj",
                           "boxes.json"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; ++i) {
        char p[256];
        snprintf(p, sizeof p, "%s/%s", tmpdir, files[i]);
        remove(p);
    }
    rmdir(tmpdir);
    return check_finish("test_exact");
}
