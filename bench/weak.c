/*
 * weak.c — `clash bench scaling --weak` (issue 18): weak scaling with the
 * scene itself shared out over the ranks (`clash run --decompose objects`).
 *
 * The work per worker is held fixed by construction: the scene of p = R x T
 * workers is p copies (tiles) of the one-worker scene, the `cluttered`
 * preset with n1 objects (--objects n1, default 1000; --quick 200; seed 1,
 * the preset's density), laid out on a grid as near a cube as p allows
 * (p = a b c, a >= b >= c), written as a clash-scene/1 file.  The tiles are
 * set apart by the distance the fastest object can travel in the run plus
 * the largest object, so no collision crosses tiles: every worker's share
 * of the work is one tile's, the world box grows with the workers at the
 * tiles' own density.  (Growing the preset itself would not do: its speeds
 * scale with its cube's side, so more objects also means more candidates
 * per object; the table's candidates per worker shows the tiles' stay put.)
 * Per configuration the table gives the time per step (the
 * run report's steps_s / steps, the slowest rank's), the efficiency t(1) /
 * t(p), the candidate face pairs per worker and step (S4's, summed over the
 * ranks: a check that the work per worker did stay fixed), the bytes a
 * rank sent per step (the report's decomposition section), the measured
 * imbalance and the largest rank's peak resident set.
 *
 * Ranks are started by `mpirun -n R --oversubscribe --bind-to none`, or by
 * the launcher in $CLASH_MPIRUN followed by "-n R" (the job templates in
 * jobs/ set "srun --cpu-bind=cores" or mpirun with core binding).
 *
 * The wait column is the report's wait_s_per_step_max: the part of a
 * rank's step spent in the step's agreement and the pairs' merge, that is
 * waiting for the slower rank plus rank 0's merge; when R ranks are slower
 * than one it tells whether the ranks waited on each other or each
 * computed slower.  --control runs, beside each R-rank configuration, R
 * independent one-rank runs of one tile at the same time (no MPI, nothing
 * shared but the machine): the slowest of them is what the machine's shared
 * caches, memory and cores cost R busy workers, apart from the
 * decomposition.  --seed picks the preset's seed (default 1), so the study
 * runs on scenes it was not tuned on.
 *
 * Repetitions alternate: rep 1 of every configuration, then rep 2, ...,
 * so a slow spell of the machine falls on all configurations alike; the
 * table holds medians.  --decompose replicated runs the same grid with
 * every rank holding the whole scene, for comparison.
 *
 * Output: scaling_weak_objects.csv, scaling_weak_objects.yaml (the
 * commands), weak-pP.json (the tiled scenes the runs read: on a cluster the
 * folder must be shared by the nodes, as jobs/ arranges).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/common.h"
#include "clash_internal.h"

#define MAX_CFG 64

typedef struct wcfg {
    int ranks, threads, objects;
    double *t, *w, *ctl;          /* per repetition: seconds per step, of it the most a rank waited, the control's */
    double cand_per_worker, bytes, imbalance, rss, build_s;
    unsigned long long checksum;
} wcfg;

static int parse_list(const char *s, int *out)
{
    int n = 0;
    for (const char *p = s; *p && n < MAX_CFG;) {
        char *e;
        out[n++] = (int)strtol(p, &e, 10);
        p = *e ? e + 1 : e;
    }
    return n;
}

/* The number after "key: " in line, or -1. */
static double num_after(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    return p ? strtod(p + strlen(key), NULL) : -1;
}

/* Reads one run report: steps, steps_s, S4 candidates, checksum, and the
 * decomposition's bytes, imbalance and peak memory (replicated: rank 0's). */
static int read_report(const char *path, wcfg *c, double *per_step, double *wait)
{
    FILE *f = fopen(path, "r");
    char line[8192];
    double steps = -1, steps_s = -1, cand = -1;
    int sum = 0;
    if (!f) return -1;
    c->bytes = 0, c->imbalance = 1, c->rss = 0, c->build_s = 0;
    double wait_s = 0; /* per step, the most any rank waited (decomposed runs) */
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "steps: ", 7)) steps = atof(line + 7);
        else if (!strncmp(line, "steps_s: ", 9)) steps_s = atof(line + 9);
        else if (!strncmp(line, "  mid: ", 7)) cand = num_after(line, "candidates: ");
        else if (!strncmp(line, "pairs_checksum:", 15)) sum = sscanf(line + 15, " \"%llx\"", &c->checksum) == 1;
        else if (!strncmp(line, "memory: ", 8) && c->rss == 0) c->rss = num_after(line, "peak_rss_bytes: ");
        else if (!strncmp(line, "decomposition: ", 15)) {
            c->bytes = num_after(line, "bytes_sent_per_step_max: ");
            c->imbalance = num_after(line, "imbalance_max: ");
            c->build_s = num_after(line, "epoch_build_s: ");
            c->rss = num_after(line, "peak_rss_bytes_max: ");
            wait_s = num_after(line, "wait_s_per_step_max: ");
        }
    }
    fclose(f);
    if (steps <= 0 || steps_s < 0 || cand < 0 || !sum) return -1;
    *per_step = steps_s / steps, *wait = wait_s;
    c->cand_per_worker = cand / steps / (c->ranks * c->threads);
    return 0;
}

int clash_bench_scaling_weak(int argc, char **argv, const char *decompose, int control);
/* p as a x b x c, a >= b >= c, as near a cube as its factors allow. */
static void grid_of(int p, int g[3])
{
    g[0] = p, g[1] = g[2] = 1;
    double best = INFINITY;
    for (int c = 1; c * c * c <= p; ++c)
        if (p % c == 0)
            for (int b = c; b * b <= p / c; ++b)
                if ((p / c) % b == 0) {
                    const int a = p / c / b;
                    const double spread = (double)a / c;
                    if (spread < best) best = spread, g[0] = a, g[1] = b, g[2] = c;
                }
}

/* Writes the scene of p tiles of the n1-object cluttered preset (see the top). */
static int write_tiles(const char *path, int n1, int seed, int p, int steps, clash_error *err)
{
    clash_preset_params pp = {.objects = n1, .seed = seed};
    clash_scene_desc d;
    int rc = clash_scene_desc_preset("cluttered", &pp, &d, err);
    if (rc) return rc;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, vmax = 0, rmax = 0;
    for (int o = 0; o < d.nobjects; ++o) {
        const clash_object_desc *od = &d.objects[o];
        const double v = sqrt(od->velocity[0] * od->velocity[0] + od->velocity[1] * od->velocity[1] +
                              od->velocity[2] * od->velocity[2]);
        vmax = fmax(vmax, v), rmax = fmax(rmax, od->scale); /* meshes within radius 1 */
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], od->position[k]), hi[k] = fmax(hi[k], od->position[k]);
    }
    double ext = 0;
    for (int k = 0; k < 3; ++k) ext = fmax(ext, hi[k] - lo[k]);
    const double pitch = ceil(ext + 2 * rmax + 2 * vmax * steps + 2 * rmax + 1);
    int g[3];
    grid_of(p, g);
    FILE *f = fopen(path, "w");
    if (!f) {
        clash_scene_desc_free(&d);
        return clash_internal_fail(err, CLASH_EFAIL, "%s: cannot write", path);
    }
    fprintf(f, "{\"format\": \"clash-scene/1\", \"name\": \"weak-%d-tiles\", \"steps\": %d, \"mode\": \"swept\",\n"
               " \"meshes\": {", p, steps);
    for (int m = 0; m < d.nmeshes; ++m) {
        const clash_mesh_desc *md = &d.meshes[m];
        if (md->kind == CLASH_MESH_SPHERE)
            fprintf(f, "%s\"%s\": {\"sphere\": {\"faces\": %d}}", m ? ", " : "", md->name, md->sphere_faces);
        else fprintf(f, "%s\"%s\": {\"box\": {}, \"center\": %s}", m ? ", " : "", md->name, md->center ? "true" : "false");
    }
    fprintf(f, "},\n \"objects\": [\n");
    for (int t = 0; t < p; ++t) {
        const int tx = t % g[0], ty = t / g[0] % g[1], tz = t / g[0] / g[1];
        const double off[3] = {tx * pitch, ty * pitch, tz * pitch};
        for (int o = 0; o < d.nobjects; ++o) {
            const clash_object_desc *od = &d.objects[o];
            fprintf(f, "  {\"mesh\": \"%s\", \"scale\": %.17g, \"position\": [%.17g, %.17g, %.17g], "
                       "\"rotation_deg\": [%.17g, %.17g, %.17g], \"velocity\": [%.17g, %.17g, %.17g], "
                       "\"angular_velocity_deg\": [%.17g, %.17g, %.17g]}%s\n",
                    d.meshes[od->mesh].name, od->scale, od->position[0] + off[0], od->position[1] + off[1],
                    od->position[2] + off[2], od->rotation_deg[0], od->rotation_deg[1], od->rotation_deg[2],
                    od->velocity[0], od->velocity[1], od->velocity[2], od->angular_velocity_deg[0],
                    od->angular_velocity_deg[1], od->angular_velocity_deg[2],
                    t == p - 1 && o == d.nobjects - 1 ? "" : ",");
        }
    }
    fprintf(f, "]}\n");
    clash_scene_desc_free(&d);
    if (fclose(f)) return clash_internal_fail(err, CLASH_EFAIL, "%s: write failed", path);
    return 0;
}

int clash_bench_scaling_weak(int argc, char **argv, const char *decompose, int control)
{
    static const char *const extra[] = {"--ranks", "--thread-list", "--objects", "--steps", "--seed", NULL};
    bench_opts o;
    int rc = bench_parse("scaling", argc, argv, extra,
                         " --weak [--decompose objects|replicated] [--ranks 1,2] [--thread-list 1] [--objects N per "
                         "worker] [--steps S] [--seed N] [--control]",
                         &o);
    if (rc) return rc < 0 ? 0 : rc;
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return bench_fail(&o, CLASH_EFAIL, "cannot find this executable (/proc/self/exe)");
    exe[n] = 0;
    const int n1 = o.objects ? o.objects : (o.quick ? 200 : 1000);
    const int steps = o.steps ? o.steps : (o.quick ? 10 : 20);
    const int seed = o.seed ? o.seed : 1;
    const int have_mpi = clash_build()->mpi && system("command -v mpirun >/dev/null 2>&1") == 0;
    int rl[MAX_CFG], tl[MAX_CFG], nr = 0, nt = 0;
    if (o.ranks) nr = parse_list(o.ranks, rl);
    else {
        rl[nr++] = 1;
        if (have_mpi) rl[nr++] = 2;
    }
    if (o.thread_list) nt = parse_list(o.thread_list, tl);
    else tl[nt++] = 1;
    for (int i = 0; i < nr; ++i)
        if (rl[i] > 1 && !have_mpi)
            return bench_fail(&o, CLASH_EINPUT, "--ranks: %d ranks need MPI and mpirun", rl[i]);
    wcfg grid[MAX_CFG];
    int ng = 0;
    for (int i = 0; i < nr; ++i)
        for (int j = 0; j < nt && ng < MAX_CFG; ++j)
            grid[ng++] = (wcfg){.ranks = rl[i], .threads = tl[j], .objects = n1 * rl[i] * tl[j]};
    if (grid[0].ranks * grid[0].threads != 1)
        return bench_fail(&o, CLASH_EINPUT, "the worker grid must start with 1 rank x 1 thread (the baseline)");
    clash_outfile fc, fy;
    FILE *c = bench_open(&o, &fc, "scaling_weak_objects.csv");
    FILE *y = c ? bench_open(&o, &fy, "scaling_weak_objects.yaml") : NULL;
    if (!y) {
        if (c) clash_outfile_abort(&fc);
        return CLASH_EFAIL;
    }
    bench_yaml_header(y, &o);
    fprintf(y, "params: {scene: tiles of the cluttered preset, seed: %d, density: default, steps: %d, objects_per_worker: %d, "
               "decompose: %s, alternated_reps: %d}\ncommands:\n",
            seed, steps, n1, decompose, o.reps);
    char report[700], cmds[MAX_CFG][2600], ctl[MAX_CFG][2800];
    snprintf(report, sizeof report, "%.600s/.weak-run.%ld.yaml", o.out, (long)getpid());
    for (int g = 0; g < ng; ++g) {
        char mpi[256] = "";
        const char *launcher = getenv("CLASH_MPIRUN"); /* a batch system's own: "srun --cpu-bind=cores", ... */
        if (grid[g].ranks > 1 && launcher && *launcher)
            snprintf(mpi, sizeof mpi, "%.200s -n %d ", launcher, grid[g].ranks);
        else if (grid[g].ranks > 1)
            snprintf(mpi, sizeof mpi, "mpirun -n %d --oversubscribe --bind-to none%s ", grid[g].ranks,
                     geteuid() == 0 ? " --allow-run-as-root" : "");
        char scene[700];
        clash_error err;
        snprintf(scene, sizeof scene, "%.600s/weak-p%d.json", o.out, grid[g].ranks * grid[g].threads);
        if (!rc && write_tiles(scene, n1, seed, grid[g].ranks * grid[g].threads, steps, &err))
            rc = bench_fail(&o, CLASH_EFAIL, "%s", err.msg);
        if (snprintf(cmds[g], sizeof cmds[g], "%s'%s' run '%s' --steps %d --threads %d --decompose %s --quiet --report '%s'",
                     mpi, exe, scene, steps, grid[g].threads, decompose, report) >= (int)sizeof cmds[g] && !rc)
            rc = bench_fail(&o, CLASH_EINPUT, "the command line for %d ranks is too long (paths: %s, %s)", grid[g].ranks,
                            exe, o.out);
        fprintf(y, "  - \"%s\"\n", cmds[g]);
        ctl[g][0] = 0;
        if (control && grid[g].ranks > 1 && !rc) { /* R one-rank runs of a T-worker tile at once, no MPI */
            snprintf(scene, sizeof scene, "%.600s/weak-p%d.json", o.out, grid[g].threads);
            int have = 0; /* written above for a configuration of as many workers (the grid starts at 1 x 1) */
            for (int h = 0; h < g; ++h) have |= grid[h].ranks * grid[h].threads == grid[g].threads;
            if (!have && write_tiles(scene, n1, seed, grid[g].threads, steps, &err))
                rc = bench_fail(&o, CLASH_EFAIL, "%s", err.msg);
            size_t k = 0;
            for (int i = 0; i < grid[g].ranks && k < sizeof ctl[g] - 1; ++i)
                k += (size_t)snprintf(ctl[g] + k, sizeof ctl[g] - k,
                                      "'%s' run '%s' --steps %d --threads %d --decompose %s --quiet --report '%s.c%d' "
                                      ">/dev/null 2>&1 & ",
                                      exe, scene, steps, grid[g].threads, decompose, report, i);
            if (k < sizeof ctl[g] - 6) snprintf(ctl[g] + k, sizeof ctl[g] - k, "wait");
            else rc = bench_fail(&o, CLASH_EINPUT, "--control: too many ranks for one command line (%d)", grid[g].ranks);
            fprintf(y, "  - \"control: %s\"\n", ctl[g]);
        }
        if (!(grid[g].t = calloc(3 * (size_t)o.reps, sizeof(double)))) rc = bench_fail(&o, CLASH_EFAIL, "out of memory");
        else grid[g].w = grid[g].t + o.reps, grid[g].ctl = grid[g].t + 2 * o.reps;
    }
    const int first = bench_first_rep(o.reps), total = o.reps * ng;
    for (int r = 0; r < o.reps && !rc; ++r) /* alternated: every configuration once per repetition */
        for (int g = 0; g < ng && !rc; ++g) {
            char what[80], full[2700];
            snprintf(what, sizeof what, "weak %d ranks x %d threads, rep %d", grid[g].ranks, grid[g].threads, r + 1);
            bench_progress(&o, what, r * ng + g, total);
            snprintf(full, sizeof full, "%.2600s >/dev/null 2>&1", cmds[g]);
            if (system(full) != 0 || read_report(report, &grid[g], &grid[g].t[r], &grid[g].w[r]))
                rc = bench_fail(&o, CLASH_EFAIL, "run failed: %s", cmds[g]);
            if (!rc && ctl[g][0]) { /* the control: the slowest of the R independent runs */
                if (system(ctl[g]) != 0) rc = bench_fail(&o, CLASH_EFAIL, "control run failed: %s", ctl[g]);
                for (int i = 0; i < grid[g].ranks && !rc; ++i) {
                    char rp[720];
                    wcfg one = {.ranks = 1, .threads = grid[g].threads};
                    double t1, w1;
                    snprintf(rp, sizeof rp, "%s.c%d", report, i);
                    if (read_report(rp, &one, &t1, &w1)) rc = bench_fail(&o, CLASH_EFAIL, "control run failed: %s", ctl[g]);
                    else if (t1 > grid[g].ctl[r]) grid[g].ctl[r] = t1;
                    remove(rp);
                }
            }
        }
    remove(report);
    if (!rc) {
        bench_progress(&o, "done", total, total);
        fprintf(c, "ranks,threads,workers,objects,steps,seconds_per_step,efficiency,candidates_per_worker,"
                   "bytes_sent_per_step,imbalance_max,peak_rss_bytes_max,epoch_build_s,wait_s_per_step,"
                   "control_seconds_per_step,decompose,checksum\n");
        double base = 0;
        for (int g = 0; g < ng; ++g) {
            const double t = bench_median(grid[g].t + first, o.reps - first);
            if (g == 0) base = t;
            const double ct = ctl[g][0] ? bench_median(grid[g].ctl + first, o.reps - first) : 0;
            const double wt = bench_median(grid[g].w + first, o.reps - first);
            fprintf(c, "%d,%d,%d,%d,%d,%.6g,%.4g,%.6g,%.0f,%.4g,%.0f,%.4g,%.4g,%.6g,%s,%016llx\n", grid[g].ranks,
                    grid[g].threads, grid[g].ranks * grid[g].threads, grid[g].objects, steps, t, t > 0 ? base / t : 0,
                    grid[g].cand_per_worker, grid[g].bytes, grid[g].imbalance, grid[g].rss, grid[g].build_s, wt,
                    ct, decompose, grid[g].checksum);
            if (!o.quiet)
                fprintf(stderr, "weak: %d ranks x %d threads, %d objects: %.4g s per step (%.3g s of it waiting), "
                                "efficiency %.3f, %.0f candidates per worker and step, %.0f bytes sent per step\n",
                        grid[g].ranks, grid[g].threads, grid[g].objects, t, wt, t > 0 ? base / t : 0,
                        grid[g].cand_per_worker, grid[g].bytes);
            if (ct > 0 && !o.quiet)
                fprintf(stderr, "weak: control, %d independent one-rank runs of one tile at once: %.4g s per step "
                                "(the slowest; %.3f of the baseline)\n",
                        grid[g].ranks, ct, base > 0 ? ct / base : 0);
        }
    }
    for (int g = 0; g < ng; ++g) free(grid[g].t);
    if (rc) {
        clash_outfile_abort(&fc), clash_outfile_abort(&fy);
        return rc;
    }
    if (bench_close(&o, &fc) | bench_close(&o, &fy)) return CLASH_EFAIL;
    if (!o.quiet) fprintf(stderr, "clash: bench scaling --weak: results in %s\n", o.out);
    return 0;
}
