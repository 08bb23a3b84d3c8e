/*
 * ccdrun.c — `clash bench ccd-run`: exact CCD inside a run (--ccd, issue 15)
 * on the two ccd-frames scenes (../shared/data/ccd-frames: cloth-funnel
 * 227 -> 228, armadillo-rollers 326 -> 327; one deforming object each,
 * swept, self-collision), as `clash run SCENE --ccd` runs them.
 *
 * Per scene, R runs of the one step (--repeat R, default 5) with --ccd:
 *   step_s    the face-pair step: the seven stages' times summed
 *   ccd_s     the CCD after S5 (the report's ccd.total_s)
 *   ratio     (step_s + ccd_s) / step_s: the step with --ccd against the
 *             face-pair step of the same run
 * each the median over the R runs.  Then every primitive pair that step
 * gave the kernel is timed alone: ck_ccd (the kernel's filter, then its
 * root finder) in Q back-to-back calls under one pair of clock reads
 * (Q = 3), the best of two rounds; printed are the median, mean, 90th
 * percentile and maximum per query, and the stage's own time per primitive
 * pair (ccd_s / pairs: generation, de-duplication, the hull prefilter, the
 * kernel, the merge).  Validation first: the contacts are the same in every
 * run.  Options: --data DIR (the shared data folder), --repeat R,
 * --threads T.  Prints only.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "io/scene_desc.h"
#include "kernels/ccd.h"
#include "stages/stages.h"

int clash_bench_ccdrun(int argc, char **argv);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n ? (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : 0;
}

static int one_scene(const char *data, const char *name, int f0, int repeat, int threads)
{
    char p0[1024], p1[1024];
    snprintf(p0, sizeof p0, "%s/ccd-frames/%s/frames/%d.ply", data, name, f0);
    snprintf(p1, sizeof p1, "%s/ccd-frames/%s/frames/%d.ply", data, name, f0 + 1);
    char *files[2] = {p0, p1};
    clash_scene_desc d = {.name = (char *)name, .steps = 1, .mode = CLASH_MODE_SWEPT, .self_collision = 1,
                          .nframes = 2, .frame_files = files, .frames_objects = CLASH_FRAMES_SINGLE};
    clash_error err;
    clash_scene *sc = NULL;
    if (clash_scene_build(&d, &sc, &err)) {
        fprintf(stderr, "clash: error: %s\n", err.msg);
        return CLASH_EINPUT;
    }
    double *step = calloc((size_t)repeat, sizeof *step), *ccd = calloc((size_t)repeat, sizeof *ccd);
    double *ratio = calloc((size_t)repeat, sizeof *ratio);
    clash_step_stats st = {0};
    size_t ncontacts = 0;
    int64_t npairs = 0;
    clash_run *run = NULL;
    int rc = 0;
    for (int r = 0; r < repeat && !rc; ++r) {
        clash_run_destroy(run);
        clash_config cfg = clash_config_default();
        cfg.mode = CLASH_MODE_SWEPT, cfg.self_collision = 1, cfg.ccd = 1, cfg.threads = threads;
        clash_pairs p;
        clash_contacts cs;
        if (!(run = clash_run_create(sc, &cfg, &err)) || clash_step(run, 1, &p, &st, &err) ||
            clash_run_contacts(run, &cs, &err)) {
            fprintf(stderr, "clash: error: %s: %s\n", name, err.msg);
            rc = CLASH_EFAIL;
            break;
        }
        if (r && cs.count != ncontacts) {
            fprintf(stderr, "clash: error: %s: %zu contacts, then %zu\n", name, ncontacts, cs.count);
            rc = CLASH_EFAIL;
        }
        ncontacts = cs.count, npairs = p.count ? (int64_t)p.count : 0;
        for (int s = 0; s < CLASH_NSTAGES; ++s) step[r] += st.seconds[s];
        ccd[r] = st.ccd_s, ratio[r] = (step[r] + ccd[r]) / step[r];
    }
    if (!rc) {
        /* each primitive pair of the last run's step, alone */
        const int64_t n = clash_ccd_queries(run);
        double *q = malloc(((size_t)n + 1) * sizeof *q), sum = 0;
        const ck_ccd_opts o = {run->cfg.ccd_tolerance, run->cfg.min_separation, 0};
        enum { Q = 3 };
        for (int64_t i = 0; i < n; ++i) {
            double x0[4][3], x1[4][3], toi, best = 1e30;
            const int kind = clash_ccd_query(run, i, x0, x1);
            for (int round = 0; round < 2; ++round) {
                const double t0 = now();
                for (int k = 0; k < Q; ++k) ck_ccd(kind, (const double(*)[3])x0, (const double(*)[3])x1, &o, &toi, NULL);
                const double t = (now() - t0) / Q;
                best = t < best ? t : best;
            }
            q[i] = best, sum += best;
        }
        qsort(q, (size_t)n, sizeof *q, cmp_d);
        const double ms = median(ccd, repeat);
        printf("%-18s %8lld %9lld %8zu %10.4f %10.4f %7.2f %11.3g %11.3g %11.3g %11.3g %11.3g\n", name,
               (long long)npairs, (long long)n, ncontacts, median(step, repeat), ms, median(ratio, repeat),
               n ? q[n / 2] : 0, n ? sum / (double)n : 0, n ? q[(size_t)(0.9 * (double)(n - 1))] : 0,
               n ? q[n - 1] : 0, n ? ms / (double)n : 0);
        free(q);
    }
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    free(step), free(ccd), free(ratio);
    return rc;
}

int clash_bench_ccdrun(int argc, char **argv)
{
    const char *data = "../shared/data";
    int repeat = 5, threads = 0;
    for (int i = 0; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--data") && v) data = v, ++i;
        else if (!strcmp(argv[i], "--repeat") && v && (repeat = atoi(v)) > 0) ++i;
        else if (!strcmp(argv[i], "--threads") && v && (threads = atoi(v)) > 0) ++i;
        else {
            fprintf(stderr, "clash: error: bench ccd-run: bad option '%s' (--data DIR, --repeat R >= 1, "
                            "--threads T >= 1)\n", argv[i]);
            return CLASH_EINPUT;
        }
    }
    printf("%-18s %8s %9s %8s %10s %10s %7s %11s %11s %11s %11s %11s\n", "scene", "pairs", "prim", "contacts",
           "step_s", "ccd_s", "ratio", "q_median_s", "q_mean_s", "q_p90_s", "q_max_s", "stage/prim");
    int rc = one_scene(data, "cloth-funnel", 227, repeat, threads);
    if (!rc) rc = one_scene(data, "armadillo-rollers", 326, repeat, threads);
    return rc;
}
