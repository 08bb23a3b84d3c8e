/*
 * test_presets.c — the named scenes (src/io/presets.c).
 *
 * Every name of clash_preset_names() builds.  The papers' Table 1 scenes
 * have the right object count, 168-face spheres of scale 1.9 (diameter 3.8),
 * the table's values, and — by the straight-line motion of the sphere
 * centres — only A and B come within one diameter during the run, first at
 * the step the papers report (196 and 116).  The cluttered generator is
 * deterministic in (N, seed, density), changes with the seed, starts with
 * disjoint bounding spheres, uses only valid generators, and brings some
 * bounding spheres together during the run; bad densities and unknown
 * names are rejected with CLASH_EINPUT.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/scene_desc.h"

static int str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static void centre_at(const clash_object_desc *o, int s, double c[3])
{
    for (int a = 0; a < 3; ++a) c[a] = o->position[a] + (double)s * o->velocity[a];
}

static double centre_dist(const clash_object_desc *a, const clash_object_desc *b, int s)
{
    double ca[3], cb[3];
    centre_at(a, s, ca);
    centre_at(b, s, cb);
    return sqrt((ca[0] - cb[0]) * (ca[0] - cb[0]) + (ca[1] - cb[1]) * (ca[1] - cb[1]) +
                (ca[2] - cb[2]) * (ca[2] - cb[2]));
}

/* Bounding-sphere radius of an object about its position: spheres have
 * radius 1, the (centred) unit cube sqrt(3)/2. */
static double bound_radius(const clash_scene_desc *d, const clash_object_desc *o)
{
    const clash_mesh_desc *m = &d->meshes[o->mesh];
    double r = m->kind == CLASH_MESH_BOX ? 0.5 * sqrt(3.0) : 1.0;
    return r * m->scale * o->scale;
}

/* One Table 1 scene: counts, spheres, and the A/B-only contact. */
static void check_paper(const char *name, int nobj, int want_contact, const double rowA[9],
                        const double rowLast[9])
{
    clash_scene_desc d;
    clash_error err = {0, ""};
    int rc = clash_scene_desc_preset(name, NULL, &d, &err);
    CHECK(rc == CLASH_OK, "%s: %s", name, err.msg);
    if (rc) return;
    CHECK(str_eq(d.name, name), "%s: name %s", name, d.name);
    CHECK(d.nobjects == nobj, "%s: %d objects", name, d.nobjects);
    CHECK(d.mode == CLASH_MODE_SWEPT && d.self_collision == 0, "%s: mode/self", name);
    CHECK(d.nframes == 0 && d.frame_files == NULL, "%s: no frames", name);
    CHECK(d.nmeshes == 1 && d.meshes[0].kind == CLASH_MESH_SPHERE && d.meshes[0].sphere_faces == 168 &&
              d.meshes[0].scale == 1.0 && d.meshes[0].center == 0,
          "%s: one 168-face sphere mesh", name);
    for (int i = 0; i < d.nobjects; ++i) {
        const clash_object_desc *o = &d.objects[i];
        CHECK(o->mesh == 0 && o->scale == 1.9, "%s: object %d mesh %d scale %g", name, i, o->mesh, o->scale);
        CHECK(o->rotation_deg[0] == 0 && o->rotation_deg[1] == 0 && o->rotation_deg[2] == 0,
              "%s: object %d initial rotation", name, i);
    }
    const clash_object_desc *first = &d.objects[0], *last = &d.objects[d.nobjects - 1];
    for (int a = 0; a < 3; ++a) {
        CHECK(first->position[a] == rowA[a] && first->velocity[a] == rowA[3 + a] &&
                  first->angular_velocity_deg[a] == rowA[6 + a],
              "%s: row A, axis %d", name, a);
        CHECK(last->position[a] == rowLast[a] && last->velocity[a] == rowLast[3 + a] &&
                  last->angular_velocity_deg[a] == rowLast[6 + a],
              "%s: last row, axis %d", name, a);
    }
    /* A and B: first state within one diameter (3.8). */
    int contact = -1;
    for (int s = 0; s <= d.steps && contact < 0; ++s)
        if (centre_dist(&d.objects[0], &d.objects[1], s) <= 3.8) contact = s;
    CHECK(contact == want_contact, "%s: A/B contact at step %d, want %d", name, contact, want_contact);
    CHECK(d.steps >= want_contact + 10, "%s: %d steps leave no margin after %d", name, d.steps, want_contact);
    /* Every other pair stays apart over the whole run (sampled at tenths of
     * a step: the motion is linear, so this is close to exact). */
    double closest = 1e300;
    for (int i = 0; i < d.nobjects; ++i)
        for (int j = i + 1; j < d.nobjects; ++j) {
            if (i == 0 && j == 1) continue;
            for (int t = 0; t <= 10 * d.steps; ++t) {
                double s = t / 10.0, ci[3], cj[3], q = 0;
                for (int a = 0; a < 3; ++a) {
                    ci[a] = d.objects[i].position[a] + s * d.objects[i].velocity[a];
                    cj[a] = d.objects[j].position[a] + s * d.objects[j].velocity[a];
                    q += (ci[a] - cj[a]) * (ci[a] - cj[a]);
                }
                if (sqrt(q) < closest) closest = sqrt(q);
            }
        }
    CHECK(closest > 3.8, "%s: another pair comes within %g", name, closest);
    printf("%s: %d objects, %d steps, A/B centres within 3.8 from step %d, other pairs >= %.2f apart\n", name,
           d.nobjects, d.steps, contact, closest);
    clash_scene_desc_free(&d);
}

static int desc_equal(const clash_scene_desc *a, const clash_scene_desc *b)
{
    if (!str_eq(a->name, b->name) || a->steps != b->steps || a->mode != b->mode ||
        a->self_collision != b->self_collision || a->nmeshes != b->nmeshes || a->nobjects != b->nobjects ||
        a->nframes != b->nframes || a->frames_objects != b->frames_objects)
        return 0;
    for (int i = 0; i < a->nmeshes; ++i) {
        const clash_mesh_desc *x = &a->meshes[i], *y = &b->meshes[i];
        if (!str_eq(x->name, y->name) || x->kind != y->kind || x->sphere_faces != y->sphere_faces ||
            x->scale != y->scale || x->center != y->center || (x->path != NULL) != (y->path != NULL))
            return 0;
    }
    for (int i = 0; i < a->nobjects; ++i) {
        const clash_object_desc *x = &a->objects[i], *y = &b->objects[i];
        if (x->mesh != y->mesh || x->scale != y->scale) return 0;
        for (int k = 0; k < 3; ++k)
            if (x->position[k] != y->position[k] || x->rotation_deg[k] != y->rotation_deg[k] ||
                x->velocity[k] != y->velocity[k] || x->angular_velocity_deg[k] != y->angular_velocity_deg[k])
                return 0;
    }
    return 1;
}

/* Structure of a cluttered scene, disjoint bounding spheres at state 0, and
 * the first state at which two objects surely overlap (-1: never): their
 * centres closer than half the sum of their bounding radii, well inside
 * both meshes' inscribed balls, so their surfaces (or one inside the
 * other) must meet.  *npairs: pairs whose bounding spheres meet in the run. */
static int check_cluttered(const char *what, const clash_scene_desc *d, int nobj, int *npairs)
{
    *npairs = 0;
    CHECK(d->nobjects == nobj, "%s: %d objects, want %d", what, d->nobjects, nobj);
    CHECK(d->mode == CLASH_MODE_SWEPT && d->self_collision == 0 && d->nframes == 0, "%s: mode", what);
    int *used = calloc((size_t)d->nmeshes + 1, sizeof *used);
    for (int m = 0; m < d->nmeshes; ++m) {
        const clash_mesh_desc *md = &d->meshes[m];
        CHECK(md->name && md->scale == 1.0 && md->path == NULL, "%s: mesh %d", what, m);
        if (md->kind == CLASH_MESH_SPHERE) {
            int k = 2;
            while (4 * k * (k - 1) < md->sphere_faces) ++k;
            const int detail = strstr(what, "detail") != NULL;  /* --detail: any UV sphere */
            CHECK(4 * k * (k - 1) == md->sphere_faces && (detail || (md->sphere_faces >= 48 && md->sphere_faces <= 528)),
                  "%s: sphere faces %d", what, md->sphere_faces);
        } else {
            CHECK(md->kind == CLASH_MESH_BOX && md->center == 1, "%s: mesh %d kind %d", what, m, md->kind);
        }
        for (int q = 0; q < m; ++q)
            CHECK(!(md->kind == d->meshes[q].kind && md->sphere_faces == d->meshes[q].sphere_faces),
                  "%s: meshes %d and %d are the same generator", what, q, m);
    }
    for (int i = 0; i < d->nobjects; ++i) {
        const clash_object_desc *o = &d->objects[i];
        CHECK(o->mesh >= 0 && o->mesh < d->nmeshes, "%s: object %d mesh %d", what, i, o->mesh);
        if (o->mesh < 0 || o->mesh >= d->nmeshes) {
            free(used);
            return -1;
        }
        used[o->mesh] = 1;
        CHECK(o->scale > 0 && isfinite(o->scale), "%s: object %d scale", what, i);
        for (int a = 0; a < 3; ++a)
            CHECK(isfinite(o->position[a]) && isfinite(o->velocity[a]) && isfinite(o->rotation_deg[a]) &&
                      isfinite(o->angular_velocity_deg[a]),
                  "%s: object %d finite", what, i);
    }
    for (int m = 0; m < d->nmeshes; ++m) CHECK(used[m], "%s: mesh %d unused", what, m);
    free(used);

    int overlaps = 0, first = -1;
    for (int i = 0; i < d->nobjects; ++i)
        for (int j = i + 1; j < d->nobjects; ++j) {
            double rr = bound_radius(d, &d->objects[i]) + bound_radius(d, &d->objects[j]);
            if (centre_dist(&d->objects[i], &d->objects[j], 0) < rr) ++overlaps;
            int met = 0;
            for (int s = 1; s <= d->steps; ++s) {
                double cd = centre_dist(&d->objects[i], &d->objects[j], s);
                if (cd <= rr) met = 1;
                if (cd <= 0.5 * rr && (first < 0 || s < first)) first = s;
            }
            *npairs += met;
        }
    CHECK(overlaps == 0, "%s: %d bounding-sphere overlaps at state 0", what, overlaps);
    return first;
}

static void test_cluttered(void)
{
    clash_scene_desc a, b, c;
    clash_error err = {0, ""};
    clash_preset_params p = {0, 0, 0, 0};

    /* Defaults: 100 objects, 100 steps. */
    int rc = clash_scene_desc_preset("cluttered", &p, &a, &err);
    CHECK(rc == CLASH_OK, "cluttered defaults: %s", err.msg);
    CHECK(a.steps == 100 && str_eq(a.name, "cluttered"), "cluttered steps %d", a.steps);
    int npairs, first = check_cluttered("cluttered defaults", &a, 100, &npairs);
    CHECK(first > 0 && first <= a.steps, "cluttered defaults: no objects surely overlap (first %d)", first);
    printf("cluttered N=100 seed=0 D=0.05: %d meshes, %d pairs' bounding spheres meet, first sure overlap at step %d\n",
           a.nmeshes, npairs, first);
    clash_scene_desc_free(&a);
    rc = clash_scene_desc_preset("cluttered", NULL, &a, &err);
    CHECK(rc == CLASH_OK && a.nobjects == 100, "cluttered NULL params: %s", err.msg);
    clash_scene_desc_free(&a);

    /* Deterministic in (N, seed, D); different with another seed. */
    p.objects = 300;
    p.seed = 0x0123456789abcdefULL;
    p.density = 0.1;
    rc = clash_scene_desc_preset("cluttered", &p, &a, &err);
    CHECK(rc == CLASH_OK, "cluttered 300: %s", err.msg);
    rc = clash_scene_desc_preset("cluttered", &p, &b, &err);
    CHECK(rc == CLASH_OK, "cluttered 300 again: %s", err.msg);
    CHECK(desc_equal(&a, &b), "same parameters, different scenes");
    first = check_cluttered("cluttered 300", &a, 300, &npairs);
    CHECK(first > 0, "cluttered 300: no objects surely overlap");
    p.seed ^= 1;
    rc = clash_scene_desc_preset("cluttered", &p, &c, &err);
    CHECK(rc == CLASH_OK, "cluttered 300 seed^1: %s", err.msg);
    CHECK(!desc_equal(&a, &c), "different seeds, same scene");
    CHECK(c.nobjects == 300 && a.objects[0].position[0] != c.objects[0].position[0], "seed changes positions");
    check_cluttered("cluttered 300 seed^1", &c, 300, &npairs);
    clash_scene_desc_free(&a);
    clash_scene_desc_free(&b);
    clash_scene_desc_free(&c);

    /* Fixed values for one configuration, so a change of generator (or a
     * machine that computes differently) shows up. */
    p.objects = 5;
    p.seed = 42;
    p.density = 0.05;
    rc = clash_scene_desc_preset("cluttered", &p, &a, &err);
    CHECK(rc == CLASH_OK, "cluttered 5: %s", err.msg);
    if (rc == CLASH_OK) {
        printf("cluttered N=5 seed=42: object 0 mesh %d scale %.17g position %.17g %.17g %.17g\n",
               a.objects[0].mesh, a.objects[0].scale, a.objects[0].position[0], a.objects[0].position[1],
               a.objects[0].position[2]);
        check_cluttered("cluttered 5", &a, 5, &npairs);
        /* Golden values: integer PRNG and +-*\/sqrt only, so every machine
         * (without FP contraction, as CMake's C11 mode compiles) agrees. */
        CHECK(a.objects[0].mesh == 4 && a.objects[0].scale == 1.6050947208482158 &&
                  a.objects[0].position[0] == -2.8841190458277279 &&
                  a.objects[0].position[1] == -2.2737548970383665 &&
                  a.objects[0].position[2] == -0.45197564980872862,
              "cluttered N=5 seed=42 differs from the recorded values");
    }
    clash_scene_desc_free(&a);

    /* The densest allowed packing still places every object. */
    p.objects = 400;
    p.seed = 7;
    p.density = 0.3;
    rc = clash_scene_desc_preset("cluttered", &p, &a, &err);
    CHECK(rc == CLASH_OK, "cluttered density 0.3: %s", err.msg);
    if (rc == CLASH_OK) check_cluttered("cluttered 0.3", &a, 400, &npairs);
    clash_scene_desc_free(&a);

    /* One object. */
    p.objects = 1;
    rc = clash_scene_desc_preset("cluttered", &p, &a, &err);
    CHECK(rc == CLASH_OK && a.nobjects == 1, "cluttered 1: %s", err.msg);
    clash_scene_desc_free(&a);

    /* Bad densities. */
    const double bad[] = {0.31, 1.0, INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        p.objects = 10;
        p.density = bad[i];
        memset(&a, 0xab, sizeof a);
        rc = clash_scene_desc_preset("cluttered", &p, &a, &err);
        CHECK(rc == CLASH_EINPUT && strstr(err.msg, "density") != NULL, "density %g: rc %d \"%s\"", bad[i], rc,
              err.msg);
        CHECK(a.name == NULL && a.objects == NULL && a.nobjects == 0, "density %g: *out not zeroed", bad[i]);
    }
    p.density = -1; /* <= 0: the default */
    rc = clash_scene_desc_preset("cluttered", &p, &a, &err);
    CHECK(rc == CLASH_OK && a.nobjects == 10, "negative density means default: %s", err.msg);
    clash_scene_desc_free(&a);
}

/* --detail F (issue 17): every object a UV sphere of the nearest 4k(k-1)
 * faces, so the scene has N * 4k(k-1) faces; bad values refused. */
static void test_detail(void)
{
    clash_scene_desc a;
    clash_error err = {0, ""};
    static const int want[][2] = {{8, 8},       {10, 8},       {16, 8} /* tie: the smaller */, {17, 24},
                                  {48, 48},     {3000, 3024},  {3300, 3248},
                                  {528, 528},   {100000, 100488}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; ++i) {
        clash_preset_params p = {.objects = 200, .seed = 3, .density = 0.1, .detail = want[i][0]};
        int rc = clash_scene_desc_preset("cluttered", &p, &a, &err);
        CHECK(rc == CLASH_OK, "detail %d: %s", want[i][0], err.msg);
        if (rc) continue;
        CHECK(a.nmeshes == 1 && a.meshes[0].kind == CLASH_MESH_SPHERE && a.meshes[0].sphere_faces == want[i][1],
              "detail %d: %d meshes, first of %d faces (want one sphere of %d)", want[i][0], a.nmeshes,
              a.meshes[0].sphere_faces, want[i][1]);
        int all = 1, npairs;
        for (int o = 0; o < a.nobjects; ++o) all &= a.objects[o].mesh == 0;
        CHECK(all && a.nobjects == 200, "detail %d: not every object is the sphere", want[i][0]);
        check_cluttered("cluttered detail", &a, 200, &npairs);
        clash_scene_desc_free(&a);
    }
    /* The scene's face count through the public API: 30 x 3024. */
    clash_preset_params p = {.objects = 30, .seed = 1, .density = 0.1, .detail = 3000};
    clash_scene *sc = NULL;
    int rc = clash_scene_preset("cluttered", &p, &sc, &err);
    CHECK(rc == CLASH_OK && clash_scene_faces(sc) == 30 * 3024, "detail 3000, 30 objects: %s, %lld faces", err.msg,
          sc ? (long long)clash_scene_faces(sc) : -1LL);
    clash_scene_destroy(sc);
    /* Refused: below the smallest sphere, absurdly many per object or in all. */
    static const int bad[][2] = {{7, 10}, {1, 10}, {4000001, 10}, {INT32_MAX, 10}, {3000000, 1000}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        clash_preset_params q = {.objects = bad[i][1], .detail = bad[i][0]};
        memset(&a, 0xab, sizeof a);
        rc = clash_scene_desc_preset("cluttered", &q, &a, &err);
        CHECK(rc == CLASH_EINPUT && (strstr(err.msg, "detail") || strstr(err.msg, "faces")),
              "detail %d x %d objects: rc %d \"%s\"", bad[i][0], bad[i][1], rc, err.msg);
        CHECK(a.name == NULL && a.objects == NULL, "detail %d: *out not zeroed", bad[i][0]);
    }
}

int main(void)
{
    clash_scene_desc d;
    clash_error err = {0, ""};

    const char *const *names = clash_preset_names();
    int count = 0, seen_default = 0, seen_ktk = 0, seen_ktak = 0, seen_clut = 0;
    for (; names && names[count]; ++count) {
        int rc = clash_scene_desc_preset(names[count], NULL, &d, &err);
        CHECK(rc == CLASH_OK, "preset %s: %s", names[count], err.msg);
        CHECK(rc || d.nobjects > 0, "preset %s: no objects", names[count]);
        clash_scene_desc_free(&d);
        seen_default += strcmp(names[count], "default") == 0;
        seen_ktk += strcmp(names[count], "ktk94-table1") == 0;
        seen_ktak += strcmp(names[count], "ktak94-table1") == 0;
        seen_clut += strcmp(names[count], "cluttered") == 0;
    }
    CHECK(count == 4 && seen_default && seen_ktk && seen_ktak && seen_clut, "preset names (%d)", count);

    /* Table 1 of each paper: first row (A) and last row, as printed. */
    const double ktk_a[9] = {4.0, 4.0, 4.0, 0.03, 0.015, 0.02, 0.0, 0.05, 0.05};
    const double ktk_f[9] = {25.0, 14.0, 25.0, -0.005, -0.001, -0.001, 0.0, 0.05, 0.05};
    check_paper("ktk94-table1", 6, 196, ktk_a, ktk_f);
    const double ktak_a[9] = {2.5, 2.5, 2.5, 0.015, 0.0075, 0.01, 0.0, 0.25, 0.0};
    const double ktak_h[9] = {6.0, 13.5, 13.5, 0.0005, -0.0005, -0.0005, -0.15, -0.05, -0.1};
    check_paper("ktak94-table1", 8, 116, ktak_a, ktak_h);

    /* The default scene: a fixed small cluttered scene. */
    int rc = clash_scene_desc_preset("default", NULL, &d, &err);
    CHECK(rc == CLASH_OK, "default: %s", err.msg);
    if (rc == CLASH_OK) {
        CHECK(str_eq(d.name, "default") && d.steps == 60, "default name %s steps %d", d.name, d.steps);
        int npairs, first = check_cluttered("default", &d, 40, &npairs);
        CHECK(first > 0 && first <= d.steps, "default: no objects surely overlap");
        printf("default: %d objects, %d meshes, %d steps, %d pairs' bounding spheres meet, first sure overlap at step %d\n",
               d.nobjects, d.nmeshes, d.steps, npairs, first);
        clash_scene_desc free_me = d;
        clash_preset_params ignored = {999, 12345, 0.2, 100};
        rc = clash_scene_desc_preset("default", &ignored, &d, &err);
        CHECK(rc == CLASH_OK && desc_equal(&d, &free_me), "default ignores the parameters");
        clash_scene_desc_free(&free_me);
        clash_scene_desc_free(&d);
    }

    test_cluttered();
    test_detail();

    /* Unknown names. */
    memset(&d, 0xab, sizeof d);
    rc = clash_scene_desc_preset("ktk94", NULL, &d, &err);
    CHECK(rc == CLASH_EINPUT && strstr(err.msg, "ktk94") && strstr(err.msg, "default") &&
              strstr(err.msg, "ktk94-table1") && strstr(err.msg, "ktak94-table1") && strstr(err.msg, "cluttered"),
          "unknown preset: rc %d \"%s\"", rc, err.msg);
    CHECK(d.name == NULL && d.nobjects == 0 && d.objects == NULL, "unknown preset: *out not zeroed");
    rc = clash_scene_desc_preset(NULL, NULL, &d, &err);
    CHECK(rc == CLASH_EINPUT, "NULL preset name: rc %d", rc);

    return check_finish("test_presets");
}
