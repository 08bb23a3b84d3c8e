/*
 * fig43.c — `clash bench fig43`: the report's Figure 4.3 ([Smith94] §4.3–4.5)
 * rerun on this machine, for every coarse-grain strategy, over threads and
 * over MPI ranks.
 *
 * The experiment.  Two UV spheres of 3968 faces (diameter 3.8) move toward
 * each other with translation and rotation in swept mode until faces
 * collide (bench/scenes/fig43.json; the same scene is built in code, or
 * --scene FILE).  The collision step C is the first step with colliding
 * pairs ("the last cycle", step 45 for the built-in scene).  Its time is
 * measured as the report did, "at the last cycle": S4+S5 (mid + narrow, the
 * report's steps 3 and 4, 97.1 % of its step) and the whole step (S0..S6),
 * against the number of workers, for
 *
 *   strategies  static-stride (the report's SPMD, §4.4.1), producer-consumer
 *               (§4.4.2: one worker builds the octree and publishes
 *               candidates while the others test), static-chunk, dynamic,
 *               stealing (clash run --schedule);
 *   threads     workers 1..W in this process, --backend omp and pthreads;
 *   ranks       `mpirun -n N clash run SCENE --threads 1 --decompose
 *               replicated` (the ranks share the S4/S5 units) of this very
 *               executable (/proc/self/exe), when the build has MPI and
 *               mpirun is found (the stage times are the slowest rank's).
 *
 * Each configuration runs the scene from step 1 to C (a fresh run: nothing
 * is kept between repetitions) 1 + R times, in rounds over all the
 * configurations (interleaved, so that background load falls on all of them
 * alike); the first round is a warm-up and is dropped, the median of the
 * other R is reported (with the S4+S5 min and max).  Every
 * run must find the same pair set at step C (the run checksum, the same
 * hash as `clash run --report`'s pairs_checksum) and C must not move: any
 * disagreement fails the suite (exit 1) and no output is left (not even
 * the scene copy).
 *
 * Options: --workers LIST (default 1..cores; counts above the cores are run
 * and marked oversubscribed), --ranks LIST|none (default: the workers list
 * when MPI works), --repeat R (default 5, --quick 3; --reps N means
 * R = N - 1), --scene FILE, or --preset NAME with the preset's --objects N,
 * --seed S, --detail D, --density X (the rank runs get the same flags).
 * --measure K (default 1): time the K steps C..C+K-1 instead of C alone
 * (S4+S5 and the step summed over steps 1..C+K-1 of the run; before C they
 * find no pairs).  The cluttered preset collides in step 1, whose S4+S5 is
 * a fraction of a millisecond; K steps give the ranks something to share.
 * CLASH_BENCH_FIG43_FAULT=1 in the environment corrupts the checksum of the
 * last configuration (the CTest check that validation fails).
 *
 * Output (--out DIR): fig43.csv (one row per family x backend x strategy x
 * workers; times in ms), fig43.yaml (build, machine, parameters, commands,
 * checksums, the S4+S5 fraction), fig43_table.md (the results table),
 * fig43_scene.json (the scene that ran) and fig43.png (S4+S5 time and
 * speed-up against workers, one line per strategy, a column per backend).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/common.h"
#include "clash_internal.h"

#define MAX_W 64

/* bench/scenes/fig43.json, kept in step with that file. */
static const char fig43_scene_json[] =
    "{\n"
    "  \"format\": \"clash-scene/1\",\n"
    "  \"name\": \"fig43-two-spheres-3968\",\n"
    "  \"steps\": 45,\n"
    "  \"mode\": \"swept\",\n"
    "  \"meshes\": {\"s3968\": {\"sphere\": {\"faces\": 3968}}},\n"
    "  \"objects\": [\n"
    "    {\"mesh\": \"s3968\", \"scale\": 1.9, \"position\": [8, 8, 8], \"velocity\": [0.02, 0.0, 0.0],\n"
    "     \"angular_velocity_deg\": [0.5, 1.0, 0.0]},\n"
    "    {\"mesh\": \"s3968\", \"scale\": 1.9, \"position\": [13.58, 8.1, 8.05], \"velocity\": [-0.02, 0.0, 0.0],\n"
    "     \"angular_velocity_deg\": [0.0, 0.5, 1.0]}\n"
    "  ]\n"
    "}\n";

static const struct strategy {
    const char *name;   /* --schedule name */
    int schedule;
    const char *label;  /* table label */
} strategies[] = {
    {"static-stride", CLASH_SCHED_STATIC_STRIDE, "SPMD (static-stride, [Smith94] §4.4.1)"},
    {"producer-consumer", CLASH_SCHED_PRODUCER_CONSUMER, "producer-consumer ([Smith94] §4.4.2)"},
    {"static-chunk", CLASH_SCHED_STATIC_CHUNK, "static-chunk"},
    {"dynamic", CLASH_SCHED_DYNAMIC, "dynamic"},
    {"stealing", CLASH_SCHED_STEALING, "stealing"},
};
#define NSTRAT ((int)(sizeof strategies / sizeof strategies[0]))

/* The families of the experiment: threads on two backends, MPI ranks. */
enum { FAM_OMP = 0, FAM_PTHREADS = 1, FAM_MPI = 2, NFAM = 3 };
static const char *const fam_family[NFAM] = {"threads", "threads", "ranks"};
static const char *const fam_backend[NFAM] = {"omp", "pthreads", "mpi"};
static const char *const fam_title[NFAM] = {"threads, OpenMP backend", "threads, pthreads pool",
                                            "MPI ranks x 1 thread"};

typedef struct result {
    int fam, strat, workers, ranks, threads, oversubscribed;
    double s45_ms, step_ms, s45_min_ms, s45_max_ms, frac;
    double stage_ms[CLASH_NSTAGES];   /* per-stage medians (thread runs only) */
    int64_t candidates, tests, hits;
    uint64_t pairs, checksum;
    int collision_step;
    int bad;   /* checksum or collision step disagrees */
} result;

typedef struct params {
    int workers[MAX_W], nw;
    int ranks[MAX_W], nr;       /* nr == 0: no rank runs */
    int repeat;                  /* counted repetitions (plus one warm-up) */
    const char *scene_file;      /* NULL: the built-in scene or a preset */
    const char *preset;          /* --preset NAME (NULL: none) */
    int detail;                  /* the preset's --detail, --density (0: its defaults) */
    double density;
    int measure;                 /* --measure K: steps timed from the collision step on */
} params;

/* Appends to a script buffer; never writes past cap (a too-long script is cut). */
static void append(char *buf, size_t cap, size_t *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void append(char *buf, size_t cap, size_t *m, const char *fmt, ...)
{
    if (*m >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *m, cap - *m, fmt, ap);
    va_end(ap);
    if (k > 0) *m += (size_t)k;
    if (*m >= cap) *m = cap;
}

/* A sorted, duplicate-free list of counts in [1, 4096]; returns the count or -1. */
static int parse_counts(const char *s, int *out)
{
    int n = 0;
    const char *p = s;
    if (!*p) return -1;
    while (*p) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p || x < 1 || x > 4096 || (*end && *end != ',') || n >= MAX_W) return -1;
        out[n++] = (int)x;
        p = *end ? end + 1 : end;
        if (*end && !*p) return -1;
    }
    for (int i = 1; i < n; ++i)   /* insertion sort, then drop duplicates */
        for (int j = i; j > 0 && out[j - 1] > out[j]; --j) {
            int t = out[j];
            out[j] = out[j - 1], out[j - 1] = t;
        }
    int m = 0;
    for (int i = 0; i < n; ++i)
        if (!m || out[m - 1] != out[i]) out[m++] = out[i];
    return m;
}

/* What one run of a configuration measured at its collision step. */
typedef struct sample {
    double s45, step, stage[CLASH_NSTAGES];   /* seconds; stage[] only for thread runs */
    uint64_t checksum, pairs;
    int collision_step;
    int64_t candidates, tests, hits;
} sample;

/* One thread configuration, one run of steps 1..C + K - 1 (K = measure) in
 * this process. */
static int run_threads(const bench_opts *o, clash_scene *sc, int C, int K, const result *res, sample *out)
{
    clash_config cfg = clash_config_default();
    cfg.threads = res->threads;
    cfg.backend = res->fam == FAM_PTHREADS ? CLASH_BACKEND_PTHREADS : CLASH_BACKEND_OMP;
    cfg.schedule = strategies[res->strat].schedule;
    cfg.steps = C + K - 1;
    cfg.stop_at_first = K == 1;
    bench_run run;
    clash_error err = {0};
    int rc = bench_run_scene(sc, &cfg, &run, &err);
    if (rc)
        return bench_fail(o, rc, "%s %s %d threads: %s", fam_backend[res->fam], strategies[res->strat].name,
                          res->threads, err.msg);
    const clash_step_stats *fc = &run.tot.first_collision;
    memset(out, 0, sizeof *out);
    out->s45 = fc->seconds[CLASH_S4_MID] + fc->seconds[CLASH_S5_NARROW];
    for (int s = 0; s < CLASH_NSTAGES; ++s) out->step += fc->seconds[s], out->stage[s] = fc->seconds[s];
    out->checksum = run.tot.checksum, out->pairs = run.tot.pairs_total;
    out->collision_step = run.tot.first_collision_step;
    out->candidates = fc->candidates, out->tests = fc->tests, out->hits = fc->hits;
    if (K > 1) { /* the run's totals: steps 1..C+K-1 */
        const clash_run_totals *t = &run.tot;
        out->s45 = t->stage_total[CLASH_S4_MID] + t->stage_total[CLASH_S5_NARROW], out->step = 0;
        for (int s = 0; s < CLASH_NSTAGES; ++s) out->step += t->stage_total[s], out->stage[s] = t->stage_total[s];
        out->candidates = t->candidates, out->tests = t->tests, out->hits = t->hits;
    }
    bench_run_free(&run);
    return 0;
}

/* Reads what a rank run reports about its first collision step (K = 1) or
 * its whole run (K > 1: the stages' totals). */
static int read_report(const char *path, int K, sample *out, int *ranks)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    int got = 0, in_fc = 0;
    if (!f) return -1;
    memset(out, 0, sizeof *out);
    while (fgets(line, sizeof line, f)) {
        unsigned long long u;
        const char *p;
        if (!strncmp(line, "first_collision_step:", 21))
            got |= (sscanf(line + 21, "%d", &out->collision_step) == 1) << 0;
        if (!strncmp(line, "pairs_checksum:", 15) && sscanf(line + 15, " \"%llx\"", &u) == 1)
            out->checksum = u, got |= 1 << 1;
        if (!strncmp(line, "pairs_total:", 12) && sscanf(line + 12, "%llu", &u) == 1) out->pairs = u, got |= 1 << 2;
        if (!strncmp(line, "machine:", 8) && (p = strstr(line, "ranks: ")) && sscanf(p + 7, "%d", ranks) == 1)
            got |= 1 << 3;
        if (!strncmp(line, "first_collision:", 16)) {
            in_fc = 1;
            continue;
        }
        if (in_fc && strncmp(line, "  ", 2)) in_fc = 0;
        if (K > 1) { /* totals: "  mid: {total_s: T, ..., items: {candidates: C}}", "  narrow: ... tests, hits" */
            double t;
            long long c, h;
            const char *q;
            if (!strncmp(line, "steps_s:", 8) && sscanf(line + 8, "%lf", &t) == 1) out->step = t, got |= 1 << 4;
            if (!strncmp(line, "  mid: {total_s: ", 17) && sscanf(line + 17, "%lf", &t) == 1 &&
                (q = strstr(line, "candidates: ")) && sscanf(q + 12, "%lld", &c) == 1)
                out->s45 += t, out->candidates = c, got |= 1 << 5;
            if (!strncmp(line, "  narrow: {total_s: ", 20) && sscanf(line + 20, "%lf", &t) == 1 &&
                (q = strstr(line, "tests: ")) && sscanf(q + 7, "%lld", &c) == 1 && (q = strstr(line, "hits: ")) &&
                sscanf(q + 6, "%lld", &h) == 1)
                out->s45 += t, out->tests = c, out->hits = h, got |= 1 << 6;
            continue;
        }
        if (in_fc && strstr(line, "seconds:")) {
            double mid, narrow, total;
            const char *m = strstr(line, " mid: "), *n = strstr(line, " narrow: "), *t = strstr(line, " total: ");
            if (m && n && t && sscanf(m + 6, "%lf", &mid) == 1 && sscanf(n + 9, "%lf", &narrow) == 1 &&
                sscanf(t + 8, "%lf", &total) == 1)
                out->s45 = mid + narrow, out->step = total, got |= 1 << 4;
        }
        if (in_fc && strstr(line, "items:")) {
            long long c, te, h;
            const char *a = strstr(line, "candidates: "), *b = strstr(line, "tests: "), *d = strstr(line, "hits: ");
            if (a && b && d && sscanf(a + 12, "%lld", &c) == 1 && sscanf(b + 7, "%lld", &te) == 1 &&
                sscanf(d + 6, "%lld", &h) == 1)
                out->candidates = c, out->tests = te, out->hits = h, got |= 1 << 5;
        }
    }
    fclose(f);
    return got == (K > 1 ? 0x7f : 63) ? 0 : -1;
}

/* The mpirun command of a rank configuration (report written to report). */
static int rank_command(const bench_opts *o, const char *exe, const char *scene, int C, int K, const result *res,
                        const char *report, char *cmd, size_t ncmd)
{
    const int len = snprintf(cmd, ncmd,
                             "mpirun -n %d --oversubscribe --bind-to none%s '%s' run %s --steps %d%s"
                             " --threads 1 --schedule %s --decompose replicated --quiet --report '%s'",
                             res->ranks, geteuid() == 0 ? " --allow-run-as-root" : "", exe, scene, C + K - 1,
                             K == 1 ? " --stop-at-first" : "", strategies[res->strat].name, report);
    if (len < 0 || (size_t)len >= ncmd) return bench_fail(o, CLASH_EINPUT, "paths too long for the mpirun command");
    return 0;
}

/* One rank configuration, one `mpirun -n N clash run` of steps 1..C. */
static int run_ranks(const bench_opts *o, const char *cmd, const char *report, int K, const result *res, sample *out)
{
    char full[4200], log[1300];
    int ranks = 0;
    snprintf(log, sizeof log, "%s.log", report);
    snprintf(full, sizeof full, "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 %s >'%s' 2>&1", cmd, log);
    remove(report);
    if (system(full) != 0 || read_report(report, K, out, &ranks))
        return bench_fail(o, CLASH_EFAIL, "rank run failed (its output: %s): %s", log, cmd);
    if (ranks != res->ranks)
        return bench_fail(o, CLASH_EFAIL, "%s: the run reports %d ranks, %d were started (an MPI mismatch?)", cmd,
                          ranks, res->ranks);
    remove(report), remove(log);
    return 0;
}

/* Medians (and the S4+S5 spread) of a configuration's counted samples. */
static void summarise(result *res, const sample *smp, int n)
{
    double *v = calloc((size_t)n + 1, sizeof *v);
    if (!v) return;
    for (int i = 0; i < n; ++i) v[i] = smp[i].s45;
    res->s45_ms = 1e3 * bench_median(v, n);
    res->s45_min_ms = 1e3 * v[0], res->s45_max_ms = 1e3 * v[n - 1];   /* sorted by bench_median */
    for (int i = 0; i < n; ++i) v[i] = smp[i].step;
    res->step_ms = 1e3 * bench_median(v, n);
    for (int i = 0; i < n; ++i) v[i] = smp[i].step > 0 ? smp[i].s45 / smp[i].step : 0;
    res->frac = bench_median(v, n);
    for (int s = 0; s < CLASH_NSTAGES; ++s) {
        for (int i = 0; i < n; ++i) v[i] = smp[i].stage[s];
        res->stage_ms[s] = 1e3 * bench_median(v, n);
    }
    free(v);
}

/* Splits argv into this suite's own options and the common ones. */
static int own_options(const bench_opts *o, int argc, char **argv, params *p, char **rest, int *nrest)
{
    int n = 0;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i];
        const int mine = !strcmp(a, "--workers") || !strcmp(a, "--ranks") || !strcmp(a, "--repeat") ||
                         !strcmp(a, "--scene") || !strcmp(a, "--preset") || !strcmp(a, "--detail") ||
                         !strcmp(a, "--density") || !strcmp(a, "--measure");
        const int valued_common = !strcmp(a, "--objects") || !strcmp(a, "--seed");
        const int valued = !strcmp(a, "--out") || !strcmp(a, "--reps") || !strcmp(a, "--threads");
        if (!mine) {
            rest[n++] = argv[i];
            if ((valued || valued_common) && i + 1 < argc) rest[n++] = argv[++i];
            continue;
        }
        if (i + 1 >= argc) return bench_fail(o, CLASH_EINPUT, "%s: missing value", a);
        const char *v = argv[++i];
        if (!strcmp(a, "--workers")) {
            if ((p->nw = parse_counts(v, p->workers)) < 0)
                return bench_fail(o, CLASH_EINPUT,
                                  "--workers: expected a comma-separated list of counts 1..4096 (at most %d), got '%s'",
                                  MAX_W, v);
        } else if (!strcmp(a, "--ranks")) {
            if (!strcmp(v, "none")) p->nr = 0;
            else if ((p->nr = parse_counts(v, p->ranks)) < 0)
                return bench_fail(o, CLASH_EINPUT,
                                  "--ranks: expected 'none' or a comma-separated list of counts 1..4096, got '%s'", v);
            if (p->nr == 0) p->ranks[0] = -1;   /* explicit none */
        } else if (!strcmp(a, "--repeat")) {
            char *end;
            long x = strtol(v, &end, 10);
            if (!*v || *end || x < 1 || x > 1000)
                return bench_fail(o, CLASH_EINPUT, "--repeat: expected an integer in [1, 1000], got '%s'", v);
            p->repeat = (int)x;
        } else if (!strcmp(a, "--preset")) {
            p->preset = v;
        } else if (!strcmp(a, "--detail") || !strcmp(a, "--measure")) {
            char *end;
            long x = strtol(v, &end, 10);
            if (!*v || *end || x < 1 || x > 100000)
                return bench_fail(o, CLASH_EINPUT, "%s: expected an integer in [1, 100000], got '%s'", a, v);
            if (a[2] == 'd') p->detail = (int)x;
            else p->measure = (int)x;
        } else if (!strcmp(a, "--density")) {
            char *end;
            double x = strtod(v, &end);
            if (!*v || *end || !(x > 0 && x < 1))
                return bench_fail(o, CLASH_EINPUT, "--density: expected a number in (0, 1), got '%s'", v);
            p->density = x;
        } else {
            if (!*v) return bench_fail(o, CLASH_EINPUT, "--scene: empty file name");
            if (access(v, R_OK) != 0) return bench_fail(o, CLASH_EINPUT, "--scene: %s: cannot read", v);
            p->scene_file = v;
        }
    }
    *nrest = n;
    return 0;
}

static int write_table(const bench_opts *o, const result *res, int nres, const params *p, int C, int cores,
                       const char *scene_desc)
{
    clash_outfile ft;
    FILE *t = bench_open(o, &ft, "fig43_table.md");
    if (!t) return CLASH_EFAIL;
    const int K = p->measure;
    if (K == 1) fprintf(t, "Collision step (step %d) of %s", C, scene_desc);
    else fprintf(t, "Steps 1..%d (the collision step %d and the %d after it) of %s, summed", C + K - 1, C, K - 1, scene_desc);
    fprintf(t, ": S4+S5 (mid + narrow) and the whole step (S0..S6), ms, median "
               "of %d (S4+S5: min–max); speed-up against the same strategy on the first count. Counts above "
               "%d cores are oversubscribed (*). Rank runs: each stage's slowest rank, fresh processes.\n\n",
            p->repeat, cores);
    for (int fam = 0; fam < NFAM; ++fam) {
        int any = 0;
        for (int i = 0; i < nres; ++i) any |= res[i].fam == fam;
        if (!any) continue;
        const int *wl = fam == FAM_MPI ? p->ranks : p->workers;
        const int nl = fam == FAM_MPI ? p->nr : p->nw;
        for (int whole = 0; whole < 2; ++whole) {
            fprintf(t, "**%s, %s**\n\n| strategy |", fam_title[fam], whole ? "whole step" : "S4+S5");
            for (int k = 0; k < nl; ++k)
                fprintf(t, " %d %s%s |", wl[k], fam == FAM_MPI ? (wl[k] > 1 ? "ranks" : "rank") : "w",
                        wl[k] > cores ? "*" : "");
            fprintf(t, "\n|---|");
            for (int k = 0; k < nl; ++k) fprintf(t, "---|");
            fputc('\n', t);
            for (int s = 0; s < NSTRAT; ++s) {
                fprintf(t, "| %s |", strategies[s].label);
                double base = 0;
                for (int k = 0; k < nl; ++k)
                    for (int i = 0; i < nres; ++i)
                        if (res[i].fam == fam && res[i].strat == s && res[i].workers == wl[k]) {
                            const double v = whole ? res[i].step_ms : res[i].s45_ms;
                            if (k == 0) base = v;
                            if (whole) fprintf(t, " %.3f", v);
                            else fprintf(t, " %.3f (%.3f–%.3f)", v, res[i].s45_min_ms, res[i].s45_max_ms);
                            if (k > 0 && v > 0) fprintf(t, " %.2f×", base / v);
                            fprintf(t, " |");
                        }
                fputc('\n', t);
            }
            fputc('\n', t);
        }
    }
    for (int i = 0; i < nres; ++i)
        if (res[i].fam == FAM_OMP && res[i].strat == 0 && res[i].workers == p->workers[0]) {
            double sum = 0;
            for (int s = 0; s < CLASH_NSTAGES; ++s) sum += res[i].stage_ms[s];
            fprintf(t, "%s by stage (SPMD, OpenMP, %d worker, medians, ms):", K == 1 ? "Collision step" : "The steps",
                    res[i].workers);
            for (int s = 0; s < CLASH_NSTAGES; ++s)
                fprintf(t, " %s %.3f (%.0f%%)%s", clash_stage_name(s), res[i].stage_ms[s],
                        sum > 0 ? 100 * res[i].stage_ms[s] / sum : 0.0, s + 1 < CLASH_NSTAGES ? "," : "");
            fprintf(t, "; S4+S5 = %.0f%% of the step (median of per-run fractions: %.0f%%; report 003: 97%%).\n",
                    sum > 0 ? 100 * (res[i].stage_ms[CLASH_S4_MID] + res[i].stage_ms[CLASH_S5_NARROW]) / sum : 0.0,
                    100 * res[i].frac);
        }
    return bench_close(o, &ft);
}

/* The suite; *written names the scene copy it wrote into --out (removed on failure). */
static int fig43_suite(int argc, char **argv, char *written, size_t nwritten)
{
    bench_opts o;
    params p;
    memset(&p, 0, sizeof p);
    memset(&o, 0, sizeof o);
    o.suite = "fig43";
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0, rc;
    if (!rest) return bench_fail(&o, CLASH_EFAIL, "out of memory");
    if ((rc = own_options(&o, argc, argv, &p, rest, &nrest))) {
        free(rest);
        return rc;
    }
    static const char *const extra[] = {"--objects", "--seed", NULL};
    rc = bench_parse("fig43", nrest, rest, extra,
                     " [--workers 1,2,...] [--ranks 1,2,...|none] [--repeat R] [--scene FILE |"
                     " --preset NAME [--objects N] [--seed S] [--detail D] [--density X]] [--measure K]", &o);
    free(rest);
    if (rc) return rc < 0 ? 0 : rc;
    if (p.preset && p.scene_file) return bench_fail(&o, CLASH_EINPUT, "--scene and --preset: give one of them");
    if (!p.preset && (o.objects || o.seed || p.detail || p.density > 0))
        return bench_fail(&o, CLASH_EINPUT, "--objects, --seed, --detail and --density need --preset");
    if (!p.measure) p.measure = 1;
    const int K = p.measure;

    const int cores = clash_internal_threads(0);
    int reps_given = 0;
    for (int i = 0; i < argc; ++i) reps_given |= !strcmp(argv[i], "--reps");
    if (!p.repeat) p.repeat = reps_given ? o.reps - bench_first_rep(o.reps) : (o.quick ? 3 : 5);
    if (p.repeat < 1) p.repeat = 1;
    o.reps = p.repeat + 1;   /* as the YAML header states it: one warm-up, then R counted */
    if (!p.nw) {
        const int W = o.threads ? o.threads : cores;
        for (int w = 1; w <= W && p.nw < MAX_W; ++w) p.workers[p.nw++] = w;
    }
    const int mpi_build = clash_build()->mpi, mpirun = system("command -v mpirun >/dev/null 2>&1") == 0;
    const int have_mpi = mpi_build && mpirun;
    const char *ranks_note = "run";
    if (p.nr > 0 && !have_mpi)
        return bench_fail(&o, CLASH_EINPUT, "--ranks: rank runs need MPI (this build: mpi %s; mpirun %s)",
                          mpi_build ? "yes" : "no", mpirun ? "found" : "not found");
    if (p.nr == 0 && p.ranks[0] == 0) {   /* not given: the workers list when MPI works */
        if (have_mpi) {
            memcpy(p.ranks, p.workers, sizeof p.ranks);
            p.nr = p.nw;
        } else {
            ranks_note = mpi_build ? "skipped: mpirun not found" : "skipped: this build has no MPI";
            if (!o.quiet) fprintf(stderr, "clash: bench fig43: rank runs %s\n", ranks_note);
        }
    } else if (p.nr == 0) {
        ranks_note = "skipped: --ranks none";
    }
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return bench_fail(&o, CLASH_EFAIL, "cannot find this executable (/proc/self/exe)");
    exe[n] = 0;
    const int have_pthreads = clash_internal_backend_available(CLASH_BACKEND_PTHREADS);

    /* The scene, and a copy of it in the output folder for the rank runs. */
    clash_scene *sc = NULL;
    clash_error err = {0};
    char scene_path[1200], scene_args[1400]; /* the file, or the preset's flags, as the rank runs get them */
    if (p.scene_file) {
        if (clash_scene_load(p.scene_file, &sc, &err)) return bench_fail(&o, err.code ? err.code : 1, "%s", err.msg);
        snprintf(scene_path, sizeof scene_path, "%s", p.scene_file);
    } else if (p.preset) {
        const clash_preset_params pp = {.objects = o.objects, .seed = (uint64_t)o.seed, .density = p.density,
                                        .detail = p.detail};
        if (clash_scene_preset(p.preset, &pp, &sc, &err)) return bench_fail(&o, err.code ? err.code : 1, "%s", err.msg);
        size_t m = 0;
        append(scene_path, sizeof scene_path, &m, "--preset %s", p.preset);
        if (o.objects) append(scene_path, sizeof scene_path, &m, " --objects %d", o.objects);
        if (o.seed) append(scene_path, sizeof scene_path, &m, " --seed %d", o.seed);
        if (p.detail) append(scene_path, sizeof scene_path, &m, " --detail %d", p.detail);
        if (p.density > 0) append(scene_path, sizeof scene_path, &m, " --density %.17g", p.density);
    } else {
        clash_outfile fs;
        FILE *f = bench_open(&o, &fs, "fig43_scene.json");
        if (!f) return CLASH_EFAIL;
        fputs(fig43_scene_json, f);
        if (bench_close(&o, &fs)) return CLASH_EFAIL;
        snprintf(written, nwritten, "%s/fig43_scene.json", o.out);
        if (bench_scene_json(fig43_scene_json, ".", &sc, &err)) return bench_fail(&o, CLASH_EFAIL, "%s", err.msg);
        snprintf(scene_path, sizeof scene_path, "%s/fig43_scene.json", o.out);
    }
    if (p.preset) snprintf(scene_args, sizeof scene_args, "%s", scene_path);
    else snprintf(scene_args, sizeof scene_args, "'%s'", scene_path);

    /* The collision step: a serial run until the first step with pairs. */
    bench_run ref;
    clash_config cfg = clash_config_default();
    cfg.threads = 1;
    cfg.schedule = CLASH_SCHED_STATIC_STRIDE;
    cfg.stop_at_first = 1;
    bench_progress(&o, "finding the collision step", 0, 1);
    if ((rc = bench_run_scene(sc, &cfg, &ref, &err))) {
        clash_scene_destroy(sc);
        return bench_fail(&o, rc, "%s", err.msg);
    }
    const int C = ref.tot.first_collision_step;
    uint64_t ref_sum = ref.tot.checksum, ref_pairs = ref.tot.pairs_total;
    if (C >= 1 && K > 1) { /* the reference of steps 1..C+K-1 */
        bench_run_free(&ref);
        cfg.stop_at_first = 0, cfg.steps = C + K - 1;
        if ((rc = bench_run_scene(sc, &cfg, &ref, &err))) {
            clash_scene_destroy(sc);
            return bench_fail(&o, rc, "%s", err.msg);
        }
        ref_sum = ref.tot.checksum, ref_pairs = ref.tot.pairs_total;
    }
    const int64_t faces = clash_scene_faces(sc);
    const int objects = clash_scene_objects(sc);
    clash_config scfg = clash_config_default();
    clash_scene_apply_defaults(sc, &scfg);
    const char *mode = scfg.mode == CLASH_MODE_STATIC ? "static" : "swept";
    char scene_desc[300];
    snprintf(scene_desc, sizeof scene_desc, "%s (%d objects, %lld faces)", clash_scene_name(sc), objects,
             (long long)faces);
    bench_run_free(&ref);
    if (C < 1) {
        clash_scene_destroy(sc);
        return bench_fail(&o, CLASH_EFAIL, "%s: no collision in its steps; the experiment needs one", scene_desc);
    }

    /* Every configuration, then 1 + R rounds over all of them (the first a
     * warm-up): interleaving puts every configuration under the same
     * background load, so a burst of it cannot take one configuration's
     * whole sample. */
    const int nthreads_fam = have_pthreads ? 2 : 1;
    const int nres_max = NSTRAT * (nthreads_fam * p.nw + p.nr), R = p.repeat;
    result *res = calloc((size_t)nres_max, sizeof *res);
    sample *smp = calloc((size_t)nres_max * (size_t)(R + 1), sizeof *smp);
    char(*cmds)[2048] = calloc((size_t)nres_max, sizeof *cmds);
    char report[1200];
    snprintf(report, sizeof report, "%s/.fig43-run.%ld.yaml", o.out, (long)getpid());
    if (!res || !smp || !cmds) {
        free(res), free(smp), free(cmds);
        clash_scene_destroy(sc);
        return bench_fail(&o, CLASH_EFAIL, "out of memory");
    }
    int nres = 0, ncmd = 0, bad = 0;
    for (int fam = 0; fam < NFAM && !rc; ++fam) {
        if (fam == FAM_PTHREADS && !have_pthreads) continue;
        const int *wl = fam == FAM_MPI ? p.ranks : p.workers;
        const int nl = fam == FAM_MPI ? p.nr : p.nw;
        for (int s = 0; s < NSTRAT && !rc; ++s)
            for (int k = 0; k < nl && !rc; ++k) {
                result *r = &res[nres++];
                r->fam = fam, r->strat = s, r->workers = wl[k];
                r->ranks = fam == FAM_MPI ? wl[k] : 1;
                r->threads = fam == FAM_MPI ? 1 : wl[k];
                r->oversubscribed = wl[k] > cores;
                if (fam == FAM_MPI) rc = rank_command(&o, exe, scene_args, C, K, r, report, cmds[ncmd++], 2048);
            }
    }
    const char *fault = getenv("CLASH_BENCH_FIG43_FAULT");
    for (int round = 0; round <= R && !rc; ++round)
        for (int i = 0, c = 0; i < nres && !rc; ++i) {
            result *r = &res[i];
            sample *x = &smp[(size_t)i * (size_t)(R + 1) + (size_t)round];
            char what[96];
            snprintf(what, sizeof what, "%s %s %d%s, %s %d", fam_backend[r->fam], strategies[r->strat].name,
                     r->workers, r->oversubscribed ? " (oversub.)" : "", round ? "run" : "warm-up", round);
            bench_progress(&o, what, round * nres + i, (R + 1) * nres);
            if (r->fam == FAM_MPI) rc = run_ranks(&o, cmds[c++], report, K, r, x);
            else rc = run_threads(&o, sc, C, K, r, x);
            if (rc) break;
            if (i == nres - 1 && fault && !strcmp(fault, "1")) x->checksum ^= 1;   /* test hook */
            if (round == 0) {
                r->checksum = x->checksum, r->pairs = x->pairs, r->collision_step = x->collision_step;
                r->candidates = x->candidates, r->tests = x->tests, r->hits = x->hits;
            }
            if (!r->bad && (x->checksum != ref_sum || x->collision_step != C || x->pairs != ref_pairs)) {
                r->bad = 1;
                ++bad;
                if (!o.quiet) fputc('\n', stderr);
                bench_fail(&o, CLASH_EFAIL,
                           "validation failed: %s %s on %d workers (run %d): collision step %d, checksum %016llx, "
                           "%llu pairs; reference: step %d, checksum %016llx, %llu pairs",
                           fam_backend[r->fam], strategies[r->strat].name, r->workers, round + 1, x->collision_step,
                           (unsigned long long)x->checksum, (unsigned long long)x->pairs, C,
                           (unsigned long long)ref_sum, (unsigned long long)ref_pairs);
            }
        }
    clash_scene_destroy(sc);
    remove(report);
    if (rc || bad) {
        free(res), free(smp), free(cmds);
        if (!rc)
            rc = bench_fail(&o, CLASH_EFAIL, "%d configuration%s with the serial pair set; no results written",
                            bad, bad > 1 ? "s disagree" : " disagrees");
        return rc;
    }
    for (int i = 0; i < nres; ++i) summarise(&res[i], &smp[(size_t)i * (size_t)(R + 1) + 1], R);
    free(smp);
    bench_progress(&o, "done", (R + 1) * nres, (R + 1) * nres);

    /* Speed-ups against the first worker count of the same family x strategy. */
    double *sp = calloc((size_t)nres * 2 + 2, sizeof *sp);
    if (!sp) {
        free(res), free(cmds);
        return bench_fail(&o, CLASH_EFAIL, "out of memory");
    }
    for (int i = 0; i < nres; ++i)
        for (int j = 0; j < nres; ++j)
            if (res[j].fam == res[i].fam && res[j].strat == res[i].strat &&
                res[j].workers == (res[i].fam == FAM_MPI ? p.ranks[0] : p.workers[0])) {
                sp[2 * i] = res[i].s45_ms > 0 ? res[j].s45_ms / res[i].s45_ms : 0;
                sp[2 * i + 1] = res[i].step_ms > 0 ? res[j].step_ms / res[i].step_ms : 0;
            }

    /* The S4+S5 fraction of the step on the first worker count (threads, OpenMP). */
    double fr_lo = 1, fr_hi = 0, fr_spmd = 0;
    for (int i = 0; i < nres; ++i)
        if (res[i].fam == FAM_OMP && res[i].workers == p.workers[0]) {
            if (res[i].frac < fr_lo) fr_lo = res[i].frac;
            if (res[i].frac > fr_hi) fr_hi = res[i].frac;
            if (res[i].strat == 0) fr_spmd = res[i].frac;
        }

    clash_outfile fc, fy;
    FILE *c = bench_open(&o, &fc, "fig43.csv");
    FILE *y = c ? bench_open(&o, &fy, "fig43.yaml") : NULL;
    if (!y) {
        if (c) clash_outfile_abort(&fc);
        free(res), free(cmds), free(sp);
        return CLASH_EFAIL;
    }
    fprintf(c, "family,backend,strategy,workers,ranks,threads,oversubscribed,s45_ms,step_ms,s45_fraction,"
               "speedup_s45,speedup_step,s45_ms_min,s45_ms_max,candidates,tests,hits,pairs,checksum\n");
    for (int i = 0; i < nres; ++i) {
        const result *r = &res[i];
        fprintf(c, "%s,%s,%s,%d,%d,%d,%d,%.6g,%.6g,%.4f,%.4g,%.4g,%.6g,%.6g,%lld,%lld,%lld,%llu,%016llx\n",
                fam_family[r->fam], fam_backend[r->fam], strategies[r->strat].name, r->workers, r->ranks,
                r->threads, r->oversubscribed, r->s45_ms, r->step_ms, r->frac, sp[2 * i], sp[2 * i + 1],
                r->s45_min_ms, r->s45_max_ms, (long long)r->candidates, (long long)r->tests, (long long)r->hits,
                (unsigned long long)r->pairs, (unsigned long long)r->checksum);
    }
    bench_yaml_header(y, &o);
    fprintf(y, "params: {scene: \"%s\", scene_file: \"%s\", objects: %d, faces: %lld, mode: %s,"
               " collision_step: %d, repeat: %d, warmup: 1, workers: [",
            scene_desc, p.scene_file ? p.scene_file : p.preset ? scene_path : "built-in (bench/scenes/fig43.json)", objects,
            (long long)faces, mode, C, p.repeat);
    for (int k = 0; k < p.nw; ++k) fprintf(y, "%s%d", k ? ", " : "", p.workers[k]);
    fprintf(y, "], ranks: [");
    for (int k = 0; k < p.nr; ++k) fprintf(y, "%s%d", k ? ", " : "", p.ranks[k]);
    fprintf(y, "], ranks_runs: \"%s\", backends: [omp%s], strategies: [", ranks_note,
            have_pthreads ? ", pthreads" : "");
    for (int s = 0; s < NSTRAT; ++s) fprintf(y, "%s%s", s ? ", " : "", strategies[s].name);
    if (K == 1)
        fprintf(y, "], cores: %d, measure: 1, timed: \"S4+S5 = mid + narrow of the collision step (a fresh run of steps"
                   " 1..%d); step = S0..S6 of that step; ranks: the slowest rank's stage times\"}\n",
                cores, C);
    else
        fprintf(y, "], cores: %d, measure: %d, timed: \"S4+S5 = mid + narrow summed over steps 1..%d (steps %d..%d from"
                   " the collision step on); step = S0..S6 summed likewise; ranks: the slowest rank's stage totals\"}\n",
                cores, K, C + K - 1, C, C + K - 1);
    fprintf(y, "commands:\n  threads: \"in process: clash run %s --steps %d%s --threads T --backend "
               "omp|pthreads --schedule S\"\n  ranks:\n",
            scene_path, C + K - 1, K == 1 ? " --stop-at-first" : "");
    for (int k = 0; k < ncmd; ++k) fprintf(y, "    - \"%s\"\n", cmds[k]);
    fprintf(y, "s45_fraction: {workers: %d, backend: omp, spmd: %.4f, min: %.4f, max: %.4f, report_003: 0.971,"
               " note: \"report [Smith94] sec. 4.3: steps 3 and 4 (octree 13.2%%, face pairs 83.9%%) of the 3968-face"
               " collision step\"}\n",
            p.workers[0], fr_spmd, fr_lo, fr_hi);
    for (int i = 0; i < nres; ++i)
        if (res[i].fam == FAM_OMP && res[i].strat == 0 && res[i].workers == p.workers[0]) {
            double sum = 0;
            fprintf(y, "step_breakdown_ms: {workers: %d, backend: omp, strategy: static-stride", res[i].workers);
            for (int s = 0; s < CLASH_NSTAGES; ++s) {
                fprintf(y, ", %s: %.4g", clash_stage_name(s), res[i].stage_ms[s]);
                sum += res[i].stage_ms[s];
            }
            fprintf(y, ", sum_of_medians: %.4g, report_003_percent: {object_boxes: 0.5, overlap_regions: 2.4,"
                       " octree: 13.2, face_pairs: 83.9}}\n",
                    sum);
        }
    fprintf(y, "results:\n");
    for (int i = 0; i < nres; ++i)
        fprintf(y, "  - {backend: %s, strategy: %s, workers: %d, oversubscribed: %s, s45_ms: %.4g, step_ms: %.4g,"
                   " speedup_s45: %.3g, checksum: \"%016llx\"}\n",
                fam_backend[res[i].fam], strategies[res[i].strat].name, res[i].workers,
                res[i].oversubscribed ? "true" : "false", res[i].s45_ms, res[i].step_ms, sp[2 * i],
                (unsigned long long)res[i].checksum);
    fprintf(y, "validation: {collision_step: %d, pairs: %llu, candidates_at_1_worker: %lld, checksum: \"%016llx\","
               " configurations: %d, all_configs_agree: true}\n",
            C, (unsigned long long)ref_pairs, (long long)res[0].candidates, (unsigned long long)ref_sum, nres);
    rc = bench_close(&o, &fc) | bench_close(&o, &fy);
    if (!rc) rc = write_table(&o, res, nres, &p, C, cores, scene_desc);

    /* Plots: a panel per family, a line per strategy. */
    if (!rc) {
        int fams[NFAM], nf = 0;
        for (int fam = 0; fam < NFAM; ++fam)
            for (int i = 0; i < nres; ++i)
                if (res[i].fam == fam) {
                    fams[nf++] = fam;
                    break;
                }
        const int wmax = p.nr && p.ranks[p.nr - 1] > p.workers[p.nw - 1] ? p.ranks[p.nr - 1] : p.workers[p.nw - 1];
        static const char *const colors[NSTRAT] = {"#9400d3", "#009e73", "#56b4e9", "#e69f00", "#0072b2"};
        char script[16384];
        size_t m = 0;
        append(script, sizeof script, &m,
               "set terminal pngcairo size %d,860\nset output 'fig43.png'\nset datafile separator ','\n"
               "set multiplot layout 2,%d title 'Figure 4.3 ([Smith94]): %s, %s, collision step %d: S4+S5"
               " (mid + narrow) time and speed-up, median of %d'\n"
               "set grid\nset xrange [0.8:%g]\nset xtics 1\n",
               430 * nf, nf, scene_desc, mode, C, p.repeat, wmax + 0.2);
        if (wmax > cores)
            append(script, sizeof script, &m,
                   "set arrow 1 from %g, graph 0 to %g, graph 1 nohead dt 3 lc rgb 'red'\n"
                   "set label 1 'oversubscribed' at %g, graph 0.05 tc rgb 'red' font ',9'\n",
                   cores + 0.5, cores + 0.5, cores + 0.6);
        for (int kind = 0; kind < 2; ++kind)
            for (int f = 0; f < nf; ++f) {
                append(script, sizeof script, &m,
                       "set title '%s'\nset xlabel '%s'\nset ylabel '%s'\n%s\nset key %s font ',9'\nplot %s",
                       fam_title[fams[f]], fams[f] == FAM_MPI ? "ranks" : "workers (threads)",
                       kind ? (p.workers[0] == 1 ? "speed-up t(1)/t(p) of S4+S5" : "S4+S5 speed-up vs the first count")
                            : "S4+S5 ms (log)",
                       kind ? "unset logscale y\nset yrange [0:*]" : "set logscale y\nset yrange [*:*]",
                       kind ? "top left" : "top right",
                       kind ? "x with lines dt 2 lc rgb 'gray' title 'ideal', " : "");
                for (int s = 0; s < NSTRAT; ++s)
                    append(script, sizeof script, &m,
                           "%s'fig43.csv' using 4:(strcol(2) eq '%s' && strcol(3) eq '%s' ? $%d : 1/0)"
                           " with linespoints lw 2 pt %d lc rgb '%s' title '%s'",
                           s ? ", " : "", fam_backend[fams[f]], strategies[s].name, kind ? 11 : 8, 5 + 2 * s,
                           colors[s], s == 0 ? "SPMD (static-stride)" : strategies[s].name);
                append(script, sizeof script, &m, "\n");
            }
        append(script, sizeof script, &m, "unset multiplot\n");
        bench_plot(&o, "fig43", script);
    }
    if (!rc && !o.quiet) {
        fprintf(stderr, "clash: bench fig43: collision step %d, %llu pairs, checksum %016llx in all %d configurations;"
                        " S4+S5 is %.0f%% of the step on %d worker (SPMD; report: 97%%)\n",
                C, (unsigned long long)ref_pairs, (unsigned long long)ref_sum, nres, 100 * fr_spmd, p.workers[0]);
        fprintf(stderr, "clash: bench fig43: results in %s (fig43_table.md, fig43.csv, fig43.yaml, fig43.png)\n", o.out);
    }
    free(res), free(cmds), free(sp);
    return rc;
}

int clash_bench_fig43(int argc, char **argv);
int clash_bench_fig43(int argc, char **argv)
{
    char written[1200] = "";
    const int rc = fig43_suite(argc, argv, written, sizeof written);
    if (rc && written[0]) remove(written);
    return rc;
}
