/*
 * test_bunny.c — two Stanford bunnies (69,451 faces each, with degenerate
 * triangles and holes), the second at position (0.02, 0.01, 0) and rotation
 * (10, 20, 30) degrees, static mode, one step: the pipeline's pair set must
 * equal the brute-force oracle's exactly, on 1 and 2 threads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/scene_desc.h"
#include "store/scene.h"

static clash_pair *run_pairs(clash_scene *sc, int midphase, int threads, size_t *n, clash_step_stats *st)
{
    clash_error err;
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_STATIC;
    cfg.self_collision = 0;
    cfg.steps = 1;
    cfg.midphase = midphase;
    cfg.threads = threads;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    clash_pairs p;
    *n = 0;
    if (!run || clash_step(run, 1, &p, st, &err)) {
        CHECK(0, "run: %s", err.msg);
        clash_run_destroy(run);
        return NULL;
    }
    clash_pair *out = malloc(sizeof *out * (p.count + 1));
    memcpy(out, p.pairs, sizeof *out * p.count);
    *n = p.count;
    clash_run_destroy(run);
    return out;
}

int main(void)
{
    const char *data = check_data_dir();
    if (!data) return check_skip("../shared/data is missing: the bunny test needs it");
    char path[512];
    snprintf(path, sizeof path, "%s/meshes/stanford-bunny.obj", data);
    clash_mesh_desc md = {.name = "bunny", .kind = CLASH_MESH_FILE, .path = path, .scale = 1};
    clash_object_desc od[2] = {{.mesh = 0, .scale = 1},
                               {.mesh = 0, .scale = 1, .position = {0.02, 0.01, 0}, .rotation_deg = {10, 20, 30}}};
    clash_scene_desc d = {.name = "two-bunnies", .steps = 1, .mode = CLASH_MODE_STATIC,
                          .nmeshes = 1, .meshes = &md, .nobjects = 2, .objects = od};
    clash_scene *sc;
    clash_error err;
    if (clash_scene_build(&d, &sc, &err)) {
        CHECK(0, "build: %s", err.msg);
        return check_finish("test_bunny");
    }
    size_t no, n1, n2;
    clash_step_stats so, s1, s2;
    clash_pair *o = run_pairs(sc, CLASH_MID_BRUTE, 2, &no, &so);
    clash_pair *p1 = run_pairs(sc, CLASH_MID_OCTREE, 1, &n1, &s1);
    clash_pair *p2 = run_pairs(sc, CLASH_MID_OCTREE, 2, &n2, &s2);
    printf("two bunnies: oracle %zu pairs (%lld candidates); pipeline %zu pairs (%lld faces kept, %lld candidates, "
           "level %d)\n",
           no, (long long)so.candidates, n1, (long long)s1.faces_kept, (long long)s1.candidates, s1.octree_level);
    CHECK(no > 100, "the bunnies should intersect: %zu pairs", no);
    CHECK(o && p1 && n1 == no && memcmp(o, p1, no * sizeof *o) == 0, "1 thread: pipeline differs from the oracle");
    CHECK(o && p2 && n2 == no && memcmp(o, p2, no * sizeof *o) == 0, "2 threads: pipeline differs from the oracle");
    free(o), free(p1), free(p2);
    clash_scene_destroy(sc);
    return check_finish("test_bunny");
}
