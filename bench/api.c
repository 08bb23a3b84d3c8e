/*
 * api.c — `clash bench api`: the in-memory path (a host sets every object's
 * pose, clash_run_set_pose, then clash_run_advance) against the file path
 * (clash_step, the scene's own velocities), side by side on the same scene
 * (issue 14: the in-memory path may cost at most 5% more).
 *
 *   clash bench api [SCENE.json] [--objects N] [--seed S] [--density D]
 *                   [--steps K] [--threads T] [--repeat R] [--block B]
 *                   [--mode static|swept] [--backend omp|pthreads]
 *
 * No SCENE: the cluttered preset (default 500 objects, seed 3).  The scene
 * is built twice.  The file scene is stepped by clash_step.  The memory scene
 * is driven as a host drives it: its poses for every step are computed
 * beforehand from the scene's laws (the host owns its motion; computing them
 * is timed apart and reported, not counted), and each step sets all of them
 * with clash_run_set_pose (checked: a rotation, finite) and advances.  When
 * every object has scale 1, the memory scene is built from arrays through
 * the public API (clash_scene_add_mesh/add_object, the meshes taken from the
 * file scene's store); objects with a scale keep it as part of the object,
 * so such scenes are built from the same description through the same
 * adding path (io/scene_build.c) and only driven through the API.
 *
 * Timing as `clash bench cull`: the two runs are stepped side by side in
 * blocks of B steps (default 10), the order swapped every block, so a slow
 * second of a shared machine falls on both; the first step of each block is
 * left out (its caches are the other run's).  A first pass warms up; of the
 * next R passes (fresh runs) the summed step times are reported, median
 * and range, with the ratio memory/file: of the medians, of the best passes,
 * and the median of the same-step ratios (on a loaded machine the last two
 * are the steadier).  The pairs of every step must be identical on both
 * paths (else exit 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "clash/clash.h"
#include "clash_internal.h"

int clash_bench_api(int argc, char **argv);

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t pairs_hash(const clash_pairs *p)
{
    uint64_t h = 1469598103934665603ULL ^ p->count;
    const unsigned char *b = (const unsigned char *)p->pairs;
    for (size_t i = 0; i < p->count * sizeof *p->pairs; ++i) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* An object's pose as a host holds it: rotation (row-major) and translation. */
typedef struct host_pose {
    double R[9], t[3];
} host_pose;

/* The memory scene from arrays, through the public API only (objects of scale 1). */
static clash_scene *from_arrays(const clash_scene *a, clash_error *err)
{
    clash_scene *sc;
    if (clash_scene_create(&sc, err)) return NULL;
    for (int m = 0; m < clash_internal_scene_meshes(a); ++m) {
        int64_t nv, nf;
        const double *mxyz;
        const int32_t *tri;
        clash_internal_scene_mesh(a, m, &nv, &mxyz, &nf, &tri);
        double *xyz = malloc(3 * sizeof(double) * (size_t)nv);
        if (!xyz) {
            clash_scene_destroy(sc);
            return NULL;
        }
        for (int64_t i = 0; i < 3 * nv; ++i) xyz[i] = mxyz[i];
        const int id = clash_scene_add_mesh(sc, xyz, nv, tri, nf, err);
        free(xyz);
        if (id != m) {
            clash_scene_destroy(sc);
            return NULL;
        }
    }
    for (int o = 0; o < clash_scene_objects(a); ++o) {
        int mesh;
        double scale, R[9], t[3];
        clash_internal_scene_object(a, o, &mesh, &scale, R, t);
        if (clash_scene_add_object(sc, mesh, R, t, 0, err) != o) {
            clash_scene_destroy(sc);
            return NULL;
        }
    }
    return sc;
}

static int load(const char *scene, const clash_preset_params *pp, clash_scene **out, clash_error *err)
{
    return scene ? clash_scene_load(scene, out, err) : clash_scene_preset("cluttered", pp, out, err);
}

int clash_bench_api(int argc, char **argv)
{
    int objects = 500, steps = 30, repeat = 5, block = 10, threads = 0, mode = -1, backend = CLASH_BACKEND_OMP;
    long long seed = 3;
    double density = 0;
    const char *scene = NULL, *a = "";
    for (int i = 0; i < argc; ++i) {
        a = argv[i];
        if (a[0] != '-' && !scene) {
            scene = a;
            continue;
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) goto bad;
        ++i;
        if (!strcmp(a, "--objects") && atoi(v) >= 2) objects = atoi(v);
        else if (!strcmp(a, "--seed")) seed = atoll(v);
        else if (!strcmp(a, "--density") && atof(v) > 0) density = atof(v);
        else if (!strcmp(a, "--steps") && atoi(v) >= 2) steps = atoi(v);
        else if (!strcmp(a, "--repeat") && atoi(v) >= 1) repeat = atoi(v);
        else if (!strcmp(a, "--block") && atoi(v) >= 2) block = atoi(v);
        else if (!strcmp(a, "--threads") && atoi(v) >= 1) threads = atoi(v);
        else if (!strcmp(a, "--mode") && (!strcmp(v, "static") || !strcmp(v, "swept")))
            mode = !strcmp(v, "static") ? CLASH_MODE_STATIC : CLASH_MODE_SWEPT;
        else if (!strcmp(a, "--backend") && (!strcmp(v, "omp") || !strcmp(v, "pthreads")))
            backend = !strcmp(v, "omp") ? CLASH_BACKEND_OMP : CLASH_BACKEND_PTHREADS;
        else
            goto bad;
    }
    clash_preset_params pp = {.objects = objects, .seed = (uint64_t)seed, .density = density};
    clash_scene *fs = NULL, *ms = NULL;
    clash_error err;
    if (load(scene, &pp, &fs, &err)) {
        fprintf(stderr, "clash: error: bench api: %s\n", err.msg);
        return 2;
    }
    int unit_scale = 1;
    for (int o = 0; o < clash_scene_objects(fs); ++o) {
        int mesh;
        double scale, R[9], t[3];
        if (clash_internal_scene_pose_at(fs, o, 0, R, t)) {
            fprintf(stderr, "clash: error: bench api: %s: rigid scenes only (object %d has no pose law)\n",
                    clash_scene_name(fs), o);
            clash_scene_destroy(fs);
            return 2;
        }
        clash_internal_scene_object(fs, o, &mesh, &scale, R, t);
        unit_scale &= scale == 1.0;
    }
    const int nobj = clash_scene_objects(fs);
    ms = unit_scale ? from_arrays(fs, &err) : NULL;
    if (!unit_scale && load(scene, &pp, &ms, &err)) ms = NULL;
    /* the host's poses for states 1..steps (what a simulation would compute) */
    host_pose *pose = malloc(sizeof *pose * (size_t)nobj * (size_t)(steps + 1));
    double *tf = calloc((size_t)repeat, sizeof(double)), *tm = calloc((size_t)repeat, sizeof(double));
    double *ratio = calloc((size_t)repeat * (size_t)steps, sizeof(double));
    double *sec = calloc(2 * (size_t)block, sizeof(double));
    uint64_t *hash = calloc(2 * (size_t)steps, sizeof(uint64_t));
    size_t *count = calloc((size_t)steps, sizeof(size_t));
    clash_run *run[2] = {NULL, NULL};
    int rc = 0, nratio = 0;
    if (!ms || !pose || !tf || !tm || !ratio || !sec || !hash || !count) {
        fprintf(stderr, "clash: error: bench api: %s\n", ms ? "out of memory" : err.msg);
        rc = 1;
        goto out;
    }
    double t0 = clash_bench_now();
    for (int s = 1; s <= steps; ++s)
        for (int o = 0; o < nobj; ++o) {
            host_pose *x = &pose[(size_t)s * (size_t)nobj + (size_t)o];
            clash_internal_scene_pose_at(fs, o, s, x->R, x->t);
        }
    const double host_poses = (clash_bench_now() - t0) / steps;
    clash_config cfg = clash_config_default();
    cfg.threads = threads, cfg.backend = backend, cfg.steps = steps, cfg.mode = mode;
    clash_scene_apply_defaults(fs, &cfg); /* the file's mode and self-collision for both */
    for (int pass = 0; pass <= repeat && !rc; ++pass) {
        run[0] = clash_run_create(fs, &cfg, &err);
        run[1] = run[0] ? clash_run_create(ms, &cfg, &err) : NULL;
        if (!run[1]) {
            fprintf(stderr, "clash: error: bench api: %s\n", err.msg);
            rc = 1;
            break;
        }
        for (int b = 1; b <= steps && !rc; b += block) {
            const int e = b + block - 1 < steps ? b + block - 1 : steps;
            for (int k = 0; k < 2 && !rc; ++k) {
                const int p = (b / block) % 2 ? 1 - k : k; /* 0: file path, 1: memory path */
                for (int s = b; s <= e && !rc; ++s) {
                    clash_pairs pr;
                    const double ts = clash_bench_now();
                    if (p == 0) {
                        rc = clash_step(run[0], s, &pr, NULL, &err);
                    } else {
                        const host_pose *x = &pose[(size_t)s * (size_t)nobj];
                        for (int o = 0; o < nobj && !rc; ++o) rc = clash_run_set_pose(run[1], o, x[o].R, x[o].t, &err);
                        if (!rc) rc = clash_run_advance(run[1], &pr, NULL, &err);
                    }
                    sec[p * block + (s - b)] = clash_bench_now() - ts;
                    if (rc) {
                        fprintf(stderr, "clash: error: bench api: step %d: %s\n", s, err.msg);
                        break;
                    }
                    hash[2 * (s - 1) + p] = pairs_hash(&pr);
                    if (p == 0) count[s - 1] = pr.count;
                }
            }
            if (pass == 0 || rc) continue;
            for (int s = b + (e > b); s <= e; ++s) {
                tf[pass - 1] += sec[s - b], tm[pass - 1] += sec[block + s - b];
                ratio[nratio++] = sec[block + s - b] / sec[s - b];
            }
        }
        for (int s = 1; s <= steps && !rc; ++s)
            if (hash[2 * (s - 1)] != hash[2 * (s - 1) + 1]) {
                fprintf(stderr, "clash: error: bench api: step %d: the memory path's pairs differ from the file's\n", s);
                rc = 1;
            }
        clash_run_destroy(run[0]), clash_run_destroy(run[1]);
        run[0] = run[1] = NULL;
    }
    if (rc) goto out;
    size_t total = 0;
    for (int s = 0; s < steps; ++s) total += count[s];
    printf("api: %s, %d objects, %lld faces, %d steps in blocks of %d, %s, %d threads (%s); memory scene built %s\n",
           clash_scene_name(fs), nobj, (long long)clash_scene_faces(fs), steps, block, cfg.mode == CLASH_MODE_STATIC ? "static" : "swept",
           threads ? threads : clash_internal_threads(0), backend == CLASH_BACKEND_OMP ? "omp" : "pthreads",
           unit_scale ? "from arrays through the public API" : "from the description (objects with a scale)");
    printf("  pairs identical on both paths at every step: %zu in all\n", total);
    const double mf = median(tf, repeat), mm = median(tm, repeat);
    printf("  file   (clash_step)               %.6f s (%.6f-%.6f), %.1f us/step\n", mf, tf[0], tf[repeat - 1],
           1e6 * mf / steps);
    printf("  memory (set_pose x %d + advance) %.6f s (%.6f-%.6f), %.1f us/step\n", nobj, mm, tm[0], tm[repeat - 1],
           1e6 * mm / steps);
    printf("  host's own pose computation (not counted): %.1f us/step\n", 1e6 * host_poses);
    const double sr = median(ratio, nratio);
    printf("ratio memory/file: %.4f (medians of %d passes), %.4f (best passes), %.4f (median of %d same-step ratios)\n",
           mm / mf, repeat, tm[0] / tf[0], sr, nratio);
out:
    clash_run_destroy(run[0]), clash_run_destroy(run[1]);
    free(pose), free(tf), free(tm), free(ratio), free(sec), free(hash), free(count);
    clash_scene_destroy(fs), clash_scene_destroy(ms);
    return rc;
bad:
    fprintf(stderr,
            "clash: error: bench api: bad option '%s' (SCENE.json, --objects N >= 2, --seed S, --density D > 0, "
            "--steps K >= 2, --threads T >= 1, --repeat R >= 1, --block B >= 2, --mode static|swept, "
            "--backend omp|pthreads)\n",
            a);
    return 2;
}
