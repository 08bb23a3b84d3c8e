/*
 * scaling.c — `clash bench scaling`: strong and weak scaling over
 * threads x ranks on the `cluttered` preset, with efficiency tables.
 *
 * Every configuration is one `clash run` process (this very executable,
 * /proc/self/exe), started under `mpirun -n R` when R > 1, exactly as the
 * job scripts in jobs/ start it; its time is the run report's wall_s (the
 * step loop, without scene building), its result the report's
 * pairs_checksum.  Each configuration is repeated --reps times, in rounds
 * over all the configurations of a study (interleaved, so that a change in
 * background load falls on all of them alike); the first round is a
 * warm-up (dropped when reps >= 3), the median of the others is reported.
 *
 *   strong   a fixed scene (--objects N, default 200; --quick 60; with
 *            --detail F every object a sphere of about F faces; or
 *            --scene FILE) on p = R x T workers: speedup S(p) = t(1) /
 *            t(p), efficiency E(p) = S(p) / p, and S4+S5 alone
 *            (s45_ms, speedup_s45: the report's mid and narrow total_s,
 *            the slowest rank's: the work the ranks share out under
 *            --decompose replicated).  Every configuration must give the same
 *            checksum as the serial run (clash is deterministic across
 *            thread and rank counts), or the suite fails.  --decompose
 *            objects|replicated is passed to the runs on several ranks
 *            (default: clash run's, objects).
 *   weak     N = n1 x p objects (n1 = N / 2) at the same density, so the
 *            work per worker stays about constant: E(p) = t(1) / t(p)
 *            (not with --scene).
 *
 * Worker grid: thread counts 1, 2, 4, ... up to the cores of this process's
 * binding (--thread-list to choose), rank counts 1 and, when this build has
 * MPI and mpirun is found, 2 (--ranks to choose); by default only
 * configurations with R x T <= cores are run.  The column ranks_reported
 * is the rank count the run report states: a value of 1 under mpirun means
 * the ranks each ran the whole scene (no rank distribution in this build).
 *
 * --weak: the weak study alone, with the scene shared out over the ranks
 * (`clash run --decompose objects`, issue 18): weak.c.
 *
 * Output: scaling_strong.csv, scaling_weak.csv, scaling.yaml,
 * scaling_strong.png (speedup against workers, with the ideal line) and
 * scaling_weak.png (efficiency against workers).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/common.h"
#include "clash_internal.h"

#define MAX_LIST 32

typedef struct config {
    int ranks, threads, objects;
    double seconds, s45; /* medians: wall_s, and S4+S5 (mid + narrow total_s) */
    unsigned long long checksum;
    int ranks_reported;
} config;

static int parse_list(const char *s, int *out)
{
    int n = 0;
    for (const char *p = s; *p && n < MAX_LIST;) {
        char *e;
        out[n++] = (int)strtol(p, &e, 10);
        p = *e ? e + 1 : e;
    }
    return n;
}

/* What the strong study's runs are: the scene (NULL: the cluttered preset),
 * its detail (0: the preset's own objects), the seed, the decomposition on
 * several ranks (NULL: clash run's default). */
typedef struct scene_args {
    const char *scene, *decompose;
    int detail, seed;
} scene_args;

/* Reads wall_s, pairs_checksum, machine.ranks, the scene's objects and
 * S4+S5 (the mid and narrow stages' total_s) from a run report. */
static int read_report(const char *path, double *wall, unsigned long long *sum, int *ranks, int *objects,
                       double *s45)
{
    FILE *f = fopen(path, "r");
    char line[4096];
    int got = 0;
    if (!f) return -1;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "wall_s:", 7)) got |= (sscanf(line + 7, "%lf", wall) == 1) << 0;
        if (!strncmp(line, "pairs_checksum:", 15)) got |= (sscanf(line + 15, " \"%llx\"", sum) == 1) << 1;
        const char *r = strstr(line, "ranks: ");
        if (!strncmp(line, "machine:", 8) && r) got |= (sscanf(r + 7, "%d", ranks) == 1) << 2;
        const char *ob = strstr(line, "objects: ");
        if (!strncmp(line, "scene:", 6) && ob) (void)sscanf(ob + 9, "%d", objects);
        double t;
        if (!strncmp(line, "  mid: {total_s: ", 17) && sscanf(line + 17, "%lf", &t) == 1) *s45 += t, got |= 1 << 3;
        if (!strncmp(line, "  narrow: {total_s: ", 20) && sscanf(line + 20, "%lf", &t) == 1) *s45 += t, got |= 1 << 4;
    }
    fclose(f);
    return got == 31 ? 0 : -1;
}

/* One configuration's command line (into cmd) and report path. */
static void config_cmd(const bench_opts *o, const char *exe, int steps, const scene_args *a, const config *c,
                       char *cmd, size_t cmd_n, char *report, size_t report_n)
{
    char mpi[256] = "", what[1400], more[160] = "", detail[32] = "";
    snprintf(report, report_n, "%s/.scaling-run.%ld.yaml", o->out, (long)getpid());
    if (c->ranks > 1)
        snprintf(mpi, sizeof mpi, "mpirun -n %d --oversubscribe --bind-to none%s ", c->ranks,
                 geteuid() == 0 ? " --allow-run-as-root" : "");
    if (a->detail) snprintf(detail, sizeof detail, " --detail %d", a->detail);
    if (a->scene) snprintf(what, sizeof what, "'%s'", a->scene);
    else snprintf(what, sizeof what, "--preset cluttered --objects %d --seed %d%s", c->objects, a->seed, detail);
    if (a->decompose && c->ranks > 1) snprintf(more, sizeof more, " --decompose %s", a->decompose);
    snprintf(cmd, cmd_n, "%s'%s' run %s --steps %d --threads %d%s --quiet --report '%s'", mpi, exe, what, steps,
             c->threads, more, report);
}

/* Repetition r of configuration c: its wall_s and S4+S5 go to t[r], t45[r]
 * (c->objects is the scene's, read from the first report, with --scene). */
static int run_rep(const bench_opts *o, const char *exe, int steps, const scene_args *a, config *c, int r,
                   double *t, double *t45, char *cmd_out, size_t cmd_n)
{
    char report[1200], full[4200];
    config_cmd(o, exe, steps, a, c, cmd_out, cmd_n, report, sizeof report);
    snprintf(full, sizeof full, "%s >/dev/null 2>&1", cmd_out);
    double wall, s45 = 0;
    unsigned long long sum;
    int ranks, objects = c->objects, rc = 0;
    if (system(full) != 0 || read_report(report, &wall, &sum, &ranks, &objects, &s45)) {
        rc = bench_fail(o, CLASH_EFAIL, "run failed: %s", cmd_out);
    } else if (r == 0) {
        c->checksum = sum, c->ranks_reported = ranks, c->objects = a->scene ? objects : c->objects;
    } else if (sum != c->checksum) {
        rc = bench_fail(o, CLASH_EFAIL, "validation failed: checksum changed between repetitions of %s", cmd_out);
    }
    t[r] = wall, t45[r] = s45;
    remove(report);
    return rc;
}

/* Runs the configurations c[0..n) --reps times each, in rounds over all of
 * them (interleaved, so that a change of background load falls on every
 * configuration alike, as in `bench fig43`); the first round is a warm-up
 * and is dropped when reps >= 3.  Medians go to c[i].seconds and c[i].s45,
 * each configuration's command to cmds[i], every run, in the order run, to
 * the YAML list y (the `runs:` of scaling.yaml). */
static int run_configs(const bench_opts *o, const char *exe, int steps, const scene_args *a, config *c, int n,
                       char (*cmds)[4096], const char *study, int *done, int total, FILE *y)
{
    const int reps = o->reps, first = bench_first_rep(reps);
    double *t = calloc(2 * (size_t)reps * (size_t)n, sizeof *t);
    if (!t) return bench_fail(o, CLASH_EFAIL, "out of memory");
    double *t45 = t + (size_t)reps * (size_t)n;
    int rc = 0;
    for (int r = 0; r < reps && !rc; ++r)
        for (int i = 0; i < n && !rc; ++i) {
            char what[96];
            snprintf(what, sizeof what, "%s %d ranks x %d threads, round %d of %d", study, c[i].ranks, c[i].threads,
                     r + 1, reps);
            bench_progress(o, what, *done, total);
            rc = run_rep(o, exe, steps, a, &c[i], r, t + (size_t)i * reps, t45 + (size_t)i * reps, cmds[i],
                         sizeof cmds[i]);
            if (!rc)
                fprintf(y, "  - {study: %s, round: %d, ranks: %d, threads: %d, objects: %d, wall_s: %.6g, s45_s: %.6g}\n",
                        study, r + 1, c[i].ranks, c[i].threads, c[i].objects, t[(size_t)i * reps + r],
                        t45[(size_t)i * reps + r]);
        }
    for (int i = 0; i < n && !rc; ++i) {
        c[i].seconds = bench_median(t + (size_t)i * reps + first, reps - first);
        c[i].s45 = bench_median(t45 + (size_t)i * reps + first, reps - first);
    }
    ++*done;
    free(t);
    return rc;
}

int clash_bench_scaling_weak(int argc, char **argv, const char *decompose, int control); /* weak.c */
int clash_bench_scaling(int argc, char **argv);
int clash_bench_scaling(int argc, char **argv)
{
    /* --weak [--decompose objects|replicated] [--control]: the decomposed weak-scaling study (weak.c) */
    int weak = 0, control = 0;
    const char *decompose = NULL;
    char *rest[256];
    int nrest = 0;
    for (int i = 0; i < argc && nrest < 255; ++i) {
        if (!strcmp(argv[i], "--weak")) weak = 1;
        else if (!strcmp(argv[i], "--control")) control = 1;
        else if (!strcmp(argv[i], "--decompose") && i + 1 < argc) decompose = argv[++i];
        else rest[nrest++] = argv[i];
    }
    rest[nrest] = NULL;
    if (decompose && strcmp(decompose, "objects") && strcmp(decompose, "replicated")) {
        fprintf(stderr, "clash: error: bench scaling: --decompose: expected objects|replicated, got '%s'\n", decompose);
        return CLASH_EINPUT;
    }
    if (control && !weak) {
        fprintf(stderr, "clash: error: bench scaling: --control applies with --weak only\n");
        return CLASH_EINPUT;
    }
    if (weak) return clash_bench_scaling_weak(nrest, rest, decompose ? decompose : "objects", control);
    /* the strong study's own: --detail F, --scene FILE */
    scene_args sa = {NULL, decompose, 0, 1};
    int nkeep = 0;
    for (int i = 0; i < nrest; ++i) {
        if (!strcmp(rest[i], "--detail") && i + 1 < nrest) {
            char *e;
            const long d = strtol(rest[++i], &e, 10);
            if (*e || d < 8 || d > 4000000) {
                fprintf(stderr, "clash: error: bench scaling: --detail: expected faces per object in [8, 4000000], "
                                "got '%s'\n", rest[i]);
                return CLASH_EINPUT;
            }
            sa.detail = (int)d;
        } else if (!strcmp(rest[i], "--scene") && i + 1 < nrest) {
            sa.scene = rest[++i];
        } else {
            rest[nkeep++] = rest[i];
        }
    }
    rest[nkeep] = NULL;
    static const char *const extra[] = {"--ranks", "--thread-list", "--objects", "--steps", "--seed", NULL};
    bench_opts o;
    int rc = bench_parse("scaling", nkeep, rest, extra,
                         " [--thread-list 1,2,4] [--ranks 1,2] [--objects N] [--seed S] [--detail F | --scene FILE]"
                         " [--steps S] [--decompose objects|replicated] | --weak [--decompose objects|replicated] ...",
                         &o);
    if (rc) return rc < 0 ? 0 : rc;
    if (o.seed) sa.seed = o.seed;
    if (sa.scene && (o.objects || sa.detail || o.seed)) {
        fprintf(stderr, "clash: error: bench scaling: --scene: its objects are the file's "
                        "(no --objects, --detail or --seed)\n");
        return CLASH_EINPUT;
    }
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return bench_fail(&o, CLASH_EFAIL, "cannot find this executable (/proc/self/exe)");
    exe[n] = 0;
    const int cores = clash_internal_threads(0);
    const int objects = o.objects ? o.objects : (o.quick ? 60 : 200);
    const int steps = o.steps ? o.steps : (o.quick ? 30 : 100);
    int tl[MAX_LIST], rl[MAX_LIST], nt = 0, nr = 0;
    if (o.thread_list) nt = parse_list(o.thread_list, tl);
    else
        for (int t = 1; t <= cores && nt < MAX_LIST; t *= 2) tl[nt++] = t;
    if (!o.thread_list && tl[nt - 1] != cores && nt < MAX_LIST) tl[nt++] = cores;
    const int have_mpi = clash_build()->mpi && system("command -v mpirun >/dev/null 2>&1") == 0;
    if (o.ranks) {
        nr = parse_list(o.ranks, rl);
        for (int i = 0; i < nr; ++i)
            if (rl[i] > 1 && !have_mpi)
                return bench_fail(&o, CLASH_EINPUT, "--ranks: %d ranks need MPI (this build: mpi %s, mpirun %s)", rl[i],
                                  clash_build()->mpi ? "yes" : "no", have_mpi ? "found" : "not found");
    } else {
        rl[nr++] = 1;
        if (have_mpi && cores >= 2) rl[nr++] = 2;
    }
    const int explicit_grid = o.ranks || o.thread_list;
    config grid[MAX_LIST * MAX_LIST];
    int ng = 0;
    for (int i = 0; i < nr; ++i)
        for (int j = 0; j < nt; ++j)
            if (explicit_grid || rl[i] * tl[j] <= cores) grid[ng++] = (config){rl[i], tl[j], objects, 0, 0, 0, 0};
    if (!ng || grid[0].ranks * grid[0].threads != 1)
        return bench_fail(&o, CLASH_EINPUT, "the worker grid must start with 1 rank x 1 thread (the baseline)");

    clash_outfile fs, fw, fy;
    FILE *cs = bench_open(&o, &fs, "scaling_strong.csv");
    FILE *cw = cs ? bench_open(&o, &fw, "scaling_weak.csv") : NULL;
    FILE *y = cw ? bench_open(&o, &fy, "scaling.yaml") : NULL;
    if (!y) {
        if (cs) clash_outfile_abort(&fs);
        if (cw) clash_outfile_abort(&fw);
        return CLASH_EFAIL;
    }
    fprintf(cs, "ranks,threads,workers,objects,steps,seconds,speedup,efficiency,checksum,ranks_reported,s45_ms,"
                "speedup_s45\n");
    fprintf(cw, "ranks,threads,workers,objects,steps,seconds,efficiency,checksum,ranks_reported\n");
    bench_yaml_header(y, &o);
    fprintf(y, "params: {scene: \"%s\", preset: cluttered, seed: %d, detail: %d, density: default, steps: %d, "
               "strong_objects: %d, weak_objects_per_worker: %d, decompose: %s, mpi_launcher: %s}\n",
            sa.scene ? sa.scene : "", sa.seed, sa.detail, steps, objects, objects / 2 > 0 ? objects / 2 : 1,
            decompose ? decompose : "default", have_mpi ? "mpirun" : "none");
    fprintf(y, "runs:   # every run in the order run (rounds over the configurations; round 1 the warm-up when reps >= 3)\n");
    const int total = 2;
    int done = 0;
    static char cmds[MAX_LIST * MAX_LIST][4096], wcmds[MAX_LIST * MAX_LIST][4096];
    static config wk[MAX_LIST * MAX_LIST];
    const int n1 = objects / 2 > 1 ? objects / 2 : 2; /* weak: n1 x p objects on p workers */
    for (int g = 0; g < ng; ++g) wk[g] = grid[g], wk[g].objects = n1 * grid[g].ranks * grid[g].threads;
    rc = run_configs(&o, exe, steps, &sa, grid, ng, cmds, "strong", &done, total, y);
    if (!rc && !sa.scene) rc = run_configs(&o, exe, steps, &sa, wk, ng, wcmds, "weak", &done, total, y);
    fprintf(y, "commands:\n");
    for (int g = 0; g < ng && !rc; ++g) {
        fprintf(y, "  - \"%s\"\n", cmds[g]);
        if (g > 0 && grid[g].checksum != grid[0].checksum)
            rc = bench_fail(&o, CLASH_EFAIL, "validation failed: %d x %d gives checksum %016llx, serial %016llx",
                            grid[g].ranks, grid[g].threads, grid[g].checksum, grid[0].checksum);
        const int p = grid[g].ranks * grid[g].threads;
        const double sp = grid[0].seconds / grid[g].seconds;
        fprintf(cs, "%d,%d,%d,%d,%d,%.6g,%.4g,%.4g,%016llx,%d,%.6g,%.4g\n", grid[g].ranks, grid[g].threads, p,
                grid[g].objects,
                steps, grid[g].seconds, sp, sp / p, grid[g].checksum, grid[g].ranks_reported, 1e3 * grid[g].s45,
                grid[g].s45 > 0 ? grid[0].s45 / grid[g].s45 : 0);
    }
    for (int g = 0; g < ng && !rc && !sa.scene; ++g) {
        const config *c = &wk[g];
        fprintf(y, "  - \"%s\"\n", wcmds[g]);
        fprintf(cw, "%d,%d,%d,%d,%d,%.6g,%.4g,%016llx,%d\n", c->ranks, c->threads, c->ranks * c->threads,
                c->objects, steps, c->seconds, wk[0].seconds / c->seconds, c->checksum, c->ranks_reported);
    }
    if (rc) {
        clash_outfile_abort(&fs), clash_outfile_abort(&fw), clash_outfile_abort(&fy);
        return rc;
    }
    bench_progress(&o, "done", total, total);
    fprintf(y, "validation: {strong_checksum: \"%016llx\", all_strong_configs_agree: true}\n", grid[0].checksum);
    if (bench_close(&o, &fs) | bench_close(&o, &fw) | bench_close(&o, &fy)) return CLASH_EFAIL;
    char script[2048];
    snprintf(script, sizeof script,
             "set terminal pngcairo size 800,500\nset output 'scaling_strong.png'\nset datafile separator ','\n"
             "set title 'Strong scaling, cluttered preset (%d objects, %d steps)'\n"
             "set xlabel 'workers (ranks x threads)'\nset ylabel 'speedup'\nset grid\nset key top left\n"
             "set xrange [0.8:*]\nset yrange [0:*]\n"
             "plot x with lines dt 2 lc rgb 'gray' title 'ideal',\\\n"
             "     for [r=1:%d] 'scaling_strong.csv' using 3:($1 == r ? $7 : 1/0) with linespoints lw 2 pt 7"
             " title sprintf('%%d rank%%s', r, r > 1 ? 's' : '')\n",
             objects, steps, rl[nr - 1]);
    bench_plot(&o, "scaling_strong", script);
    snprintf(script, sizeof script,
             "set terminal pngcairo size 800,500\nset output 'scaling_weak.png'\nset datafile separator ','\n"
             "set title 'Weak scaling, cluttered preset (%d objects per worker, %d steps)'\n"
             "set xlabel 'workers (ranks x threads)'\nset ylabel 'efficiency t(1)/t(p)'\nset grid\n"
             "set key bottom left\nset xrange [0.8:*]\nset yrange [0:1.2]\n"
             "plot 1 with lines dt 2 lc rgb 'gray' title 'ideal',\\\n"
             "     for [r=1:%d] 'scaling_weak.csv' using 3:($1 == r ? $7 : 1/0) with linespoints lw 2 pt 7"
             " title sprintf('%%d rank%%s', r, r > 1 ? 's' : '')\n",
             n1, steps, rl[nr - 1]);
    bench_plot(&o, "scaling_weak", script);
    if (!o.quiet) fprintf(stderr, "clash: bench scaling: results in %s\n", o.out);
    return 0;
}
