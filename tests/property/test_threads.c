/*
 * test_threads.c — nothing in clash is global (issue 14): two runs in two
 * host threads at the same time give the same pairs as the same runs one
 * after the other.
 *
 * Three jobs, each a scene and a run of its own: a cluttered preset stepped
 * by clash_step; a scene built from arrays (generated spheres and a box, one
 * of them deforming) driven by clash_run_set_pose / clash_run_set_vertices /
 * clash_run_advance; and a second cluttered preset with other parameters.
 * Every job records a hash of each step's pairs.  First all jobs run one
 * after the other; then pairs of jobs run at once in two pthreads, on both
 * thread backends (each run has its own pthreads pool; the OpenMP backend
 * makes each host thread its own team), and the hashes must be equal.  CI
 * runs this test under ThreadSanitizer (.ci/run, the pthreads backend there),
 * where a shared variable would show as a race.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "store/generators.h"
#include "store/mesh.h"

enum { STEPS = 6, NJOBS = 3 };

typedef struct job {
    int kind;          /* 0: preset by clash_step, 1: from memory by advance */
    int objects;
    uint64_t seed;
    double density;
    int mode, backend, threads;
    uint64_t hash[STEPS];
    size_t pairs;
    int failed;
    char msg[1100];
} job;

static uint64_t hash_pairs(const clash_pairs *p)
{
    uint64_t h = 1469598103934665603ULL ^ p->count;
    const unsigned char *b = (const unsigned char *)p->pairs;
    for (size_t i = 0; i < p->count * sizeof *p->pairs; ++i) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* A scene from arrays: three spheres and a box; sphere 2 is deforming. */
static clash_scene *memory_scene(clash_error *err)
{
    clash_mesh sph, box;
    if (clash_gen_sphere(440, &sph, err) || clash_gen_box(&box, err)) return NULL;
    clash_scene *sc = NULL;
    int ok = clash_scene_create(&sc, err) == 0;
    const int ms = ok ? clash_scene_add_mesh(sc, sph.xyz, sph.nverts, sph.tri, sph.nfaces, err) : -1;
    const int mb = ok ? clash_scene_add_mesh(sc, box.xyz, box.nverts, box.tri, box.nfaces, err) : -1;
    const double t[4][3] = {{0, 0, 0}, {2.5, 0, 0}, {0, 2.2, 0}, {1.2, 1.2, 0}};
    ok &= ms == 0 && mb == 1;
    for (int o = 0; ok && o < 4; ++o) ok &= clash_scene_add_object(sc, o == 3 ? mb : ms, NULL, t[o], o == 2, err) == o;
    clash_mesh_free(&sph), clash_mesh_free(&box);
    if (!ok) clash_scene_destroy(sc), sc = NULL;
    return sc;
}

static void *run_job(void *p)
{
    job *j = p;
    clash_error err = {0};
    clash_scene *sc = NULL;
    if (j->kind == 0) {
        clash_preset_params pp = {.objects = j->objects, .seed = j->seed, .density = j->density};
        if (clash_scene_preset("cluttered", &pp, &sc, &err)) sc = NULL;
    } else {
        sc = memory_scene(&err);
    }
    clash_config cfg = clash_config_default();
    cfg.mode = j->mode, cfg.backend = j->backend, cfg.threads = j->threads, cfg.steps = STEPS;
    clash_run *run = sc ? clash_run_create(sc, &cfg, &err) : NULL;
    j->failed = !run;
    j->pairs = 0;
    const int64_t nv2 = sc ? clash_scene_object_vertices(sc, 2) : 0;
    double *xyz = j->kind ? malloc(3 * sizeof(double) * (size_t)(nv2 > 0 ? nv2 : 1)) : NULL;
    for (int s = 1; run && s <= STEPS && !j->failed; ++s) {
        clash_pairs pr;
        int rc;
        if (j->kind == 0) {
            rc = clash_step(run, s, &pr, NULL, &err);
        } else {
            const double a = 0.4 * s, c = cos(a), sn = sin(a);
            const double R[9] = {c, -sn, 0, sn, c, 0, 0, 0, 1}, t1[3] = {2.5 - 0.3 * s, 0.1 * s, 0};
            rc = clash_run_set_pose(run, 1, R, t1, &err);
            for (int64_t v = 0; !rc && v < nv2; ++v) { /* a sphere breathing and drifting to the box */
                double w[3];
                clash_scene_vertex_at(sc, 2, v, 0, w, NULL);
                const double k = 1 + 0.05 * s;
                xyz[3 * v] = w[0] * k + 0.1 * s, xyz[3 * v + 1] = (w[1] - 2.2) * k + 2.2 - 0.1 * s, xyz[3 * v + 2] = w[2] * k;
            }
            if (!rc) rc = clash_run_set_vertices(run, 2, xyz, &err);
            if (!rc && s % 2) rc = clash_run_set_pose(run, 3, R, (const double[3]){1.2, 1.2, 0.05 * s}, &err);
            if (!rc) rc = clash_run_advance(run, &pr, NULL, &err);
        }
        if (rc) {
            j->failed = 1;
            break;
        }
        j->hash[s - 1] = hash_pairs(&pr);
        j->pairs += pr.count;
    }
    if (j->failed) snprintf(j->msg, sizeof j->msg, "%s", err.msg);
    free(xyz);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return NULL;
}

int main(void)
{
    for (int backend = 0; backend < 2; ++backend) {
        job ref[NJOBS] = {
            {.kind = 0, .objects = 60, .seed = 1, .mode = CLASH_MODE_SWEPT},
            {.kind = 1, .mode = CLASH_MODE_SWEPT},
            {.kind = 0, .objects = 50, .seed = 7, .density = 0.25, .mode = CLASH_MODE_STATIC},
        };
        for (int k = 0; k < NJOBS; ++k) {
            ref[k].backend = backend, ref[k].threads = 2;
            run_job(&ref[k]);
            CHECK(!ref[k].failed, "backend %d job %d alone: %s", backend, k, ref[k].msg);
            CHECK(ref[k].pairs > 0, "backend %d job %d finds no pairs, so the test could not fail", backend, k);
        }
        /* every pair of jobs (and a job with itself) at once in two host threads */
        for (int a = 0; a < NJOBS; ++a)
            for (int b = a; b < NJOBS; ++b) {
                job ja = ref[a], jb = ref[b];
                memset(ja.hash, 0, sizeof ja.hash), memset(jb.hash, 0, sizeof jb.hash);
                pthread_t ta, tb;
                const int ca = pthread_create(&ta, NULL, run_job, &ja), cb = pthread_create(&tb, NULL, run_job, &jb);
                if (!ca) pthread_join(ta, NULL);
                if (!cb) pthread_join(tb, NULL);
                CHECK(!ca && !cb, "pthread_create");
                CHECK(!ja.failed && !jb.failed, "backend %d jobs %d and %d: %s%s", backend, a, b, ja.msg, jb.msg);
                CHECK(!memcmp(ja.hash, ref[a].hash, sizeof ja.hash) && ja.pairs == ref[a].pairs,
                      "backend %d: job %d beside job %d gave other pairs (%zu, alone %zu)", backend, a, b, ja.pairs,
                      ref[a].pairs);
                CHECK(!memcmp(jb.hash, ref[b].hash, sizeof jb.hash) && jb.pairs == ref[b].pairs,
                      "backend %d: job %d beside job %d gave other pairs (%zu, alone %zu)", backend, b, a, jb.pairs,
                      ref[b].pairs);
            }
    }
    return check_finish("test_threads");
}
