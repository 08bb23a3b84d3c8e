/*
 * cull.c — `clash bench cull`: stage S3 (the faces inside overlap regions)
 * against the team size, the runs stepped side by side.
 *
 *   clash bench cull [--objects N] [--seed S] [--scene FILE] [--steps K]
 *                    [--threads T,...] [--repeat R] [--block B]
 *                    [--backend omp|pthreads] [--self]
 *
 * One cluttered scene (default 500 objects, seed 3, swept), or the scene
 * file FILE (clash-scene/1: overlapping copies of a mesh, as
 * bench/scenes/eight-bunnies.json; its own steps unless --steps), and one
 * run per team size (default 1 and 2 threads).  A pass
 * steps every run through steps 1..K in blocks of B (default 10): steps
 * 1..B of every run, then B+1..2B of every run, the order of the runs
 * reversed every block, so that a slow second of this shared machine falls
 * on every team size alike (separate processes a minute apart differed by
 * 15-30% here).  The first step of each block is left out of the sums: the
 * other runs have just filled the caches (stepped one step at a time, the
 * single thread lost its cache contents every step, and the speed-ups came
 * out 5-10% higher than in separate processes).  The first pass is a
 * warm-up; of the next R (fresh runs each) the S3 time summed over the
 * steps is reported, median and range, with the speed-up of each team over
 * the first (of the medians, of the best passes) and the median over all
 * steps of the same-step ratios.  Where the time goes, from the workers'
 * busy times in the stage's parallel loop (clash_step_stats): the slowest
 * and the fastest worker against the stage's wall time (the gap between
 * them is imbalance, the rest of the wall time is spent outside the loop:
 * starting the team, concatenating the kept lists), and for 2 threads the
 * work of both against the single thread's (cache and memory effects, and
 * this VM's varying speed).  The
 * kept-face counts must agree step by step (else exit 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "clash/clash.h"

int clash_bench_cull(int argc, char **argv);

#define MAXT 16

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

int clash_bench_cull(int argc, char **argv)
{
    int objects = 500, steps = 30, repeat = 5, self = 0, nt = 2, backend = CLASH_BACKEND_OMP, block = 10;
    long long seed = 3;
    int threads[MAXT] = {1, 2}, have_steps = 0;
    const char *scene = NULL;
    const char *a = "";
    for (int i = 0; i < argc; ++i) {
        a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--self")) {
            self = 1;
            continue;
        }
        if (!v) goto bad;
        ++i;
        if (!strcmp(a, "--objects") && atoi(v) >= 2) objects = atoi(v);
        else if (!strcmp(a, "--seed")) seed = atoll(v);
        else if (!strcmp(a, "--steps") && atoi(v) >= 1) steps = atoi(v), have_steps = 1;
        else if (!strcmp(a, "--scene")) scene = v;
        else if (!strcmp(a, "--repeat") && atoi(v) >= 1) repeat = atoi(v);
        else if (!strcmp(a, "--block") && atoi(v) >= 1) block = atoi(v);
        else if (!strcmp(a, "--backend") && (!strcmp(v, "omp") || !strcmp(v, "pthreads")))
            backend = !strcmp(v, "omp") ? CLASH_BACKEND_OMP : CLASH_BACKEND_PTHREADS;
        else if (!strcmp(a, "--threads")) {
            nt = 0;
            for (const char *p = v; *p && nt < MAXT;) {
                char *end;
                const long t = strtol(p, &end, 10);
                if (end == p || t < 1 || t > 1024 || (*end && *end != ',')) goto bad;
                threads[nt++] = (int)t;
                p = *end ? end + 1 : end;
            }
            if (!nt) goto bad;
        } else
            goto bad;
    }
    clash_preset_params pp = {.objects = objects, .seed = (uint64_t)seed};
    clash_scene *sc;
    clash_error err;
    if (scene ? clash_scene_load(scene, &sc, &err) : clash_scene_preset("cluttered", &pp, &sc, &err)) {
        fprintf(stderr, "clash: error: bench cull: %s\n", err.msg);
        return 2;
    }
    if (scene && !have_steps) {
        clash_config d = clash_config_default();
        clash_scene_apply_defaults(sc, &d);
        steps = d.steps;
    }
    if (block > steps) block = steps;
    double *tot = calloc((size_t)nt * (size_t)repeat, sizeof(double));
    double *ratio = calloc((size_t)nt * (size_t)repeat * (size_t)steps, sizeof(double));
    double *sec = calloc((size_t)nt * (size_t)block, sizeof(double)); /* one block's S3 times, [team][step] */
    int64_t *nk = calloc((size_t)nt * (size_t)steps, sizeof(int64_t)); /* kept faces, [team][step] */
    clash_run *run[MAXT] = {0};
    double busy[MAXT][3] = {{0}}; /* S3 wall, fastest and slowest worker's busy time */
    int rc = 0, nratio = 0;
    if (!tot || !ratio || !sec || !nk) {
        fprintf(stderr, "clash: error: bench cull: out of memory\n");
        rc = 1;
        goto out;
    }
    for (int pass = 0; pass <= repeat && !rc; ++pass) {
        for (int t = 0; t < nt; ++t) {
            clash_config cfg = clash_config_default();
            if (scene) clash_scene_apply_defaults(sc, &cfg); /* the file's mode and self-collision */
            cfg.threads = threads[t], cfg.backend = backend, cfg.steps = steps;
            cfg.self_collision = self || cfg.self_collision;
            if (!(run[t] = clash_run_create(sc, &cfg, &err))) {
                fprintf(stderr, "clash: error: bench cull: %s\n", err.msg);
                rc = 1;
                goto out;
            }
        }
        /* blocks of `block` steps: every run does steps [b, b + block), then
         * the next run (the order reversed every block) */
        for (int b = 1; b <= steps && !rc; b += block) {
            const int e = b + block - 1 < steps ? b + block - 1 : steps;
            for (int k = 0; k < nt && !rc; ++k) {
                const int t = (b / block) % 2 ? nt - 1 - k : k;
                for (int s = b; s <= e && !rc; ++s) {
                    clash_pairs p;
                    clash_step_stats st;
                    if (clash_step(run[t], s, &p, &st, &err)) {
                        fprintf(stderr, "clash: error: bench cull: %s\n", err.msg);
                        rc = 1;
                        break;
                    }
                    sec[t * block + (s - b)] = st.seconds[CLASH_S3_CULL];
                    if (pass && s > b) /* summed like tot: after the warm-up, not a block's first step */
                        busy[t][0] += st.seconds[CLASH_S3_CULL], busy[t][1] += st.worker_min_s[CLASH_S3_CULL],
                            busy[t][2] += st.worker_max_s[CLASH_S3_CULL];
                    nk[(size_t)t * (size_t)steps + (size_t)(s - 1)] = st.faces_kept;
                }
            }
            if (pass == 0 || rc) continue;
            /* the first step of a block is left out: its caches are the other runs' */
            for (int s = b + (e > b); s <= e; ++s) {
                for (int t = 0; t < nt; ++t) {
                    const double v = sec[t * block + (s - b)];
                    tot[(size_t)t * (size_t)repeat + (size_t)(pass - 1)] += v;
                    if (v > 0) ratio[(size_t)t * (size_t)repeat * (size_t)steps + (size_t)nratio] = sec[s - b] / v;
                }
                ++nratio;
            }
        }
        for (int t = 1; t < nt && !rc; ++t)
            for (int s = 1; s <= steps; ++s)
                if (nk[(size_t)t * (size_t)steps + (size_t)(s - 1)] != nk[s - 1]) {
                    fprintf(stderr, "clash: error: bench cull: step %d: %d threads kept %lld faces, %d kept %lld\n", s,
                            threads[t], (long long)nk[(size_t)t * (size_t)steps + (size_t)(s - 1)], threads[0],
                            (long long)nk[s - 1]);
                    rc = 1;
                    break;
                }
        for (int t = 0; t < nt; ++t) clash_run_destroy(run[t]), run[t] = NULL;
    }
    if (rc) goto out;
    if (scene) printf("cull: %s (%d objects)", scene, clash_scene_objects(sc));
    else printf("cull: cluttered, %d objects, seed %lld", objects, seed);
    printf(", %s, %d steps in blocks of %d, backend %s; S3 seconds over the "
           "steps (but each block's first), median (min-max) of %d passes after a warm-up\n",
           self ? "self-collision" : "no self-collision", steps, block,
           backend == CLASH_BACKEND_OMP ? "omp" : "pthreads", repeat);
    double base = 0, best = 0;
    for (int t = 0; t < nt; ++t) {
        double *v = tot + (size_t)t * (size_t)repeat;
        qsort(v, (size_t)repeat, sizeof *v, cmp_d);
        const double m = median(v, repeat);
        if (t == 0) base = m;
        printf("  T=%-3d S3 %.6f s (%.6f-%.6f), %.1f us/step", threads[t], m, v[0], v[repeat - 1],
               1e6 * m / steps);
        if (t == 0) best = v[0];
        if (t > 0)
            printf("  speed-up %.2f (best passes: %.2f; same-step ratios: median %.2f)", base / m, best / v[0],
                   median(ratio + (size_t)t * (size_t)repeat * (size_t)steps, nratio));
        printf("\n");
        if (t > 0 && busy[t][0] > 0 && busy[0][0] > 0) {
            printf("        where it goes: slowest worker busy %.1f%% of S3, fastest %.1f%% (imbalance), the rest outside "
                   "the loop",
                   100 * busy[t][2] / busy[t][0], 100 * busy[t][1] / busy[t][0]);
            if (threads[t] == 2 && threads[0] == 1) /* the two workers' busy times against the single thread's */
                printf("; work of all workers %+.1f%% against 1 thread", 100 * ((busy[t][1] + busy[t][2]) / busy[0][2] - 1));
            printf("\n");
        }
    }
    long long k = 0;
    for (int s = 0; s < steps; ++s) k += nk[s];
    printf("kept=%lld faces over the steps, equal for every team\n", k);
out:
    for (int t = 0; t < nt; ++t) clash_run_destroy(run[t]);
    free(tot), free(ratio), free(sec), free(nk);
    clash_scene_destroy(sc);
    return rc;
bad:
    fprintf(stderr,
            "clash: error: bench cull: bad option '%s' (--objects N >= 2, --seed S, --scene FILE, --steps K >= 1, --threads T,..., "
            "--repeat R >= 1, --block B >= 1, --backend omp|pthreads, --self)\n",
            a);
    return 2;
}
