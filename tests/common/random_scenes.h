/*
 * random_scenes.h — the random small scenes the property tests compare
 * midphases on (test_pipeline_oracle.c, test_bvh.c).
 *
 *   rs_spheres    two or three large UV spheres (1,000 to 6,000 faces)
 *                 overlapping partly, anywhere up to 10^4 from the origin,
 *                 at rest or moving and turning (the deferred boxes' tests)
 *   rs_rigid      2–5 spheres and boxes crowded together, random poses,
 *                 velocities and spins
 *   rs_deforming  two jittered spheres as one mesh, frames written as OBJ
 *                 files into dir (removed again once the scene is built),
 *                 objects = components or single
 * Sphere face counts come from the caller's list of four, so each test can
 * choose its sizes; the generator is a fixed xorshift, so runs repeat.
 * rs_run_rows runs a scene and returns every (step, pair) row, so two
 * configurations can be compared row for row.
 */
#ifndef CLASH_TESTS_RANDOM_SCENES_H
#define CLASH_TESTS_RANDOM_SCENES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "store/generators.h"
#include "core/run.h"
#include "stages/stages.h"
#include "io/scene_desc.h"
#include "store/scene.h"

static uint64_t rs_state = 0x1234567u;
static inline double urand(void)
{
    rs_state ^= rs_state << 13, rs_state ^= rs_state >> 7, rs_state ^= rs_state << 17;
    return (double)(rs_state >> 11) * (1.0 / 9007199254740992.0);
}
static inline double srand1(void) { return 2 * urand() - 1; }

static inline int rs_write_obj(const char *path, const clash_mesh *m)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    for (int64_t v = 0; v < m->nverts; ++v)
        fprintf(f, "v %.9g %.9g %.9g\n", m->xyz[3 * v], m->xyz[3 * v + 1], m->xyz[3 * v + 2]);
    for (int64_t t = 0; t < m->nfaces; ++t)
        fprintf(f, "f %d %d %d\n", m->tri[3 * t] + 1, m->tri[3 * t + 1] + 1, m->tri[3 * t + 2] + 1);
    return fclose(f);
}

/* Two spheres (faces[1 + idx % 3] and faces[idx % 4]) in one mesh, jittered per frame. */
static inline clash_scene *rs_deforming(const int faces[4], const char *dir, int idx, int nframes, int single,
                                        clash_error *err)
{
    clash_mesh a, b;
    clash_gen_sphere(faces[1 + idx % 3], &a, err);
    clash_gen_sphere(faces[idx % 4], &b, err);
    clash_mesh m = {a.nverts + b.nverts, a.nfaces + b.nfaces, malloc(sizeof(double) * 3 * (size_t)(a.nverts + b.nverts)),
                    malloc(sizeof(int32_t) * 3 * (size_t)(a.nfaces + b.nfaces))};
    const double off = 0.6 + 1.2 * urand(), jitter = 0.05 + 0.3 * urand();
    char *files[4];
    for (int k = 0; k < nframes; ++k) {
        for (int64_t v = 0; v < a.nverts; ++v)
            for (int d = 0; d < 3; ++d) m.xyz[3 * v + d] = a.xyz[3 * v + d] + jitter * srand1();
        for (int64_t v = 0; v < b.nverts; ++v)
            for (int d = 0; d < 3; ++d)
                m.xyz[3 * (a.nverts + v) + d] = b.xyz[3 * v + d] + (d == 0 ? off - 0.2 * k : 0) + jitter * srand1();
        memcpy(m.tri, a.tri, sizeof(int32_t) * 3 * (size_t)a.nfaces);
        for (int64_t t = 0; t < 3 * b.nfaces; ++t) m.tri[3 * a.nfaces + t] = b.tri[t] + (int32_t)a.nverts;
        files[k] = malloc(strlen(dir) + 32);
        sprintf(files[k], "%s/d%d_f%d.obj", dir, idx, k);
        rs_write_obj(files[k], &m);
    }
    clash_scene_desc d = {.name = "deforming", .steps = nframes - 1, .mode = CLASH_MODE_SWEPT,
                          .nframes = nframes, .frame_files = files, .frames_objects = single};
    clash_scene *sc = NULL;
    int rc = clash_scene_build(&d, &sc, err);
    for (int k = 0; k < nframes; ++k) remove(files[k]), free(files[k]);
    clash_mesh_free(&a), clash_mesh_free(&b), clash_mesh_free(&m);
    return rc ? NULL : sc;
}

/* Scene i of the deferred boxes' tests: 2 + i % 2 UV spheres of 4k(k-1)
 * faces (k 16..39 and 16..31), scales 0.3..3, the others within spread
 * times the first one's scale of it, the whole moved up to 300 (i % 4 ==
 * 2) or 10^4 (i % 4 == 3) from the origin; speed > 0: velocities up to
 * speed times the first scale a step, spin > 0: spins up to spin degrees a
 * step about each axis. */
static inline clash_scene *rs_spheres(int i, int mode, int steps, double spread, double speed, double spin,
                                      clash_error *err)
{
    const int nobj = 2 + i % 2, ka = 16 + (int)(urand() * 24), kb = 16 + (int)(urand() * 16);
    clash_mesh_desc md[2] = {{.name = "a", .kind = CLASH_MESH_SPHERE, .sphere_faces = 4 * ka * (ka - 1), .scale = 1},
                             {.name = "b", .kind = CLASH_MESH_SPHERE, .sphere_faces = 4 * kb * (kb - 1), .scale = 1}};
    clash_object_desc od[3];
    memset(od, 0, sizeof od);
    const double far = i % 4 == 3 ? 1e4 : i % 4 == 2 ? 300 : 0;
    const double shift[3] = {far * srand1(), far * srand1(), far * srand1()};
    for (int o = 0; o < nobj; ++o) {
        od[o].mesh = o % 2;
        od[o].scale = 0.3 + 2.7 * urand();
        for (int d = 0; d < 3; ++d) {
            od[o].position[d] = shift[d] + (o ? spread * srand1() * od[0].scale : 0);
            od[o].rotation_deg[d] = 180 * srand1();
            if (speed > 0) od[o].velocity[d] = speed * od[0].scale * srand1();
            if (spin > 0) od[o].angular_velocity_deg[d] = spin * srand1();
        }
    }
    clash_scene_desc d = {.name = "spheres", .steps = steps, .mode = mode, .nmeshes = 2, .meshes = md,
                          .nobjects = nobj, .objects = od};
    clash_scene *sc = NULL;
    return clash_scene_build(&d, &sc, err) ? NULL : sc;
}

/* 2–5 objects from four spheres (faces[0..3]) and a box; min_steps..min_steps+2 steps. */
static inline clash_scene *rs_rigid(const int faces[4], int min_steps, clash_error *err)
{
    char names[4][16];
    clash_mesh_desc md[5];
    for (int i = 0; i < 4; ++i) {
        snprintf(names[i], sizeof names[i], "s%d", faces[i]);
        md[i] = (clash_mesh_desc){.name = names[i], .kind = CLASH_MESH_SPHERE, .sphere_faces = faces[i], .scale = 1};
    }
    md[4] = (clash_mesh_desc){.name = "box", .kind = CLASH_MESH_BOX, .scale = 1.5};
    const int n = 2 + (int)(urand() * 4);
    clash_object_desc od[5];
    memset(od, 0, sizeof od);
    for (int o = 0; o < n; ++o) {
        od[o].mesh = (int)(urand() * 5);
        od[o].scale = 0.6 + urand();
        for (int d = 0; d < 3; ++d) {
            od[o].position[d] = 1.6 * srand1();
            od[o].rotation_deg[d] = 180 * srand1();
            od[o].velocity[d] = 0.15 * srand1();
            od[o].angular_velocity_deg[d] = 10 * srand1();
        }
    }
    clash_scene_desc d = {.name = "rigid", .steps = min_steps + (int)(urand() * 3), .mode = CLASH_MODE_SWEPT,
                          .nmeshes = 5, .meshes = md, .nobjects = n, .objects = od};
    clash_scene *sc = NULL;
    return clash_scene_build(&d, &sc, err) ? NULL : sc;
}

typedef struct row {
    int step;
    clash_pair p;
} row;

/* Runs the scene with cfg (and, when bvh_builder >= 0, that BVH builder) for
 * all steps; returns the malloc'd (step, pair) rows, *n of them. */
static inline row *rs_run_rows(clash_scene *sc, clash_config cfg, int bvh_builder, size_t *n, int *ok)
{
    clash_error err;
    *n = 0;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    if (!run) {
        CHECK(0, "run_create: %s", err.msg);
        *ok = 0;
        return NULL;
    }
    if (bvh_builder >= 0) run->mid->bvh_builder = bvh_builder;
    size_t cap = 64;
    row *rows = malloc(cap * sizeof *rows);
    clash_scene_apply_defaults(sc, &cfg);
    for (int s = 1; s <= cfg.steps; ++s) {
        clash_pairs p;
        if (clash_step(run, s, &p, NULL, &err)) {
            CHECK(0, "step %d: %s", s, err.msg);
            *ok = 0;
            break;
        }
        for (size_t i = 0; i < p.count; ++i) {
            if (*n == cap) rows = realloc(rows, (cap *= 2) * sizeof *rows);
            rows[(*n)++] = (row){s, p.pairs[i]};
        }
    }
    clash_run_destroy(run);
    return rows;
}

#endif
