/*
 * main.c — the `clash` command, a thin client of the C API.
 *
 *   clash run [SCENE.json] [options]   run a scene, write pairs and report
 *   clash profile [SCENE.json] [opts]  the same with per-stage cache-miss counters
 *                                      (hardware, or callgrind's simulation: profile_cmd.c)
 *   clash info                         what this build and machine have
 *
 * Exit status: 0 success (collisions or not); 2 bad usage or bad input,
 * with "clash: error: ..." naming the file and place; 1 any other failure.
 * Output files are written atomically, so a failed run leaves none behind.
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench.h"
#include "cli/options.h"
#include "base/error.h"
#include "out/report.h"
#include "sched/bind.h"
#include "core/run.h"
#include "sched/ranks.h"
#include "sched/sched.h"
#include "sched/topology.h"
#include "out/vtk.h"
#include "cli/profile_cmd.h"
#include "profile/profile.h"

static volatile sig_atomic_t interrupted;
static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* Prints the error on the rank that met it ("rank R: " when there are several). */
static int die(const clash_error *err)
{
    clash_ranks w;
    clash_ranks_world(&w);
    if (w.size > 1) fprintf(stderr, "clash: error: rank %d: %s\n", w.rank, err->msg);
    else fprintf(stderr, "clash: error: %s\n", err->msg);
    return err->code ? err->code : CLASH_EFAIL;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmd_info(void)
{
    const clash_build_info *b = clash_build();
    clash_topology t;
    char desc[256];
    clash_topology_get(&t);
    clash_topology_describe(&t, desc, sizeof desc);
    printf("clash %s\n", b->version);
    printf("build:    %s, %s, flags \"%s\"\n", b->build_type, b->compiler, b->flags);
    printf("parts:    openmp %s, pthreads yes, mpi %s, hwloc %s, likwid %s, papi %s, callgrind client requests %s\n",
           b->openmp ? "yes" : "no", b->mpi ? "yes" : "no", b->hwloc ? "yes" : "no", b->likwid ? "yes" : "no",
           b->papi ? "yes" : "no", b->valgrind ? "yes" : "no");
    printf("threads:  %d by default (cores of this process's binding)\n", clash_sched_threads(0));
    printf("machine:  %s (from %s)\n", desc, t.source);
    printf("presets: ");
    for (const char *const *p = clash_preset_names(); *p; ++p) printf(" %s", *p);
    printf("\n");
    return 0;
}

static void progress_line(int s, int steps, size_t pairs_total, double elapsed)
{
    const int width = 30, done = (int)((double)width * s / steps);
    fprintf(stderr, "\r[%.*s%*s] step %d/%d, %zu pairs, %.1f s", done, "==============================",
            width - done, "", s, steps, pairs_total, elapsed);
    fflush(stderr);
}

static int cmd_run(const clash_cli *cli)
{
    clash_ranks world; /* the command's ranks, to agree on exit codes and totals (the run has its own) */
    clash_ranks_world(&world);
    const clash_ranks *W = &world;
    clash_error err = {0};
    clash_scene *sc = NULL;
    int rc;
    if (cli->scene) rc = clash_scene_load(cli->scene, &sc, &err);
    else rc = clash_scene_preset(cli->preset ? cli->preset : "default", &cli->preset_params, &sc, &err);
    clash_config cfg = cli->cfg;
    clash_run *run = NULL;
    /* Under MPI every rank must learn that one failed before any collective
     * (creating a run is one: it duplicates the communicator). */
    int code = clash_ranks_max_int(W, rc);
    if (!code) {
        clash_scene_apply_defaults(sc, &cfg);
        if (!(run = clash_run_create(sc, &cfg, &err))) rc = err.code ? err.code : CLASH_EFAIL;
        code = clash_ranks_max_int(W, rc);
    }
    if (code != 0) {
        clash_run_destroy(run);
        clash_scene_destroy(sc);
        return rc ? die(&err) : code;
    }
    const int threads = clash_sched_threads(cfg.threads);
    /* MPI (ranks.h): every rank runs the steps; only rank 0 writes and prints. */
    const int root = W->rank == 0, ranks = W->size;
    clash_outfile pairs_out = {0};
    clash_vtk *vtk = NULL;
    if (cli->pairs_path && root) {
        if ((rc = clash_outfile_open(&pairs_out, cli->pairs_path, &err))) goto setup_done;
        clash_pairs_csv_header(pairs_out.f);
    }
    if (cli->vtk_dir && root && !(vtk = clash_vtk_open(cli->vtk_dir, sc, &err))) {
        rc = err.code;
        goto setup_done;
    }
setup_done:
    if ((code = clash_ranks_max_int(W, rc)) != 0) { /* a rank could not open its outputs */
        clash_outfile_abort(&pairs_out);
        clash_vtk_abort(vtk);
        clash_run_destroy(run);
        clash_scene_destroy(sc);
        return rc ? die(&err) : code;
    }
    const int progress = root && !cli->quiet && (cli->progress == 1 || (cli->progress == -1 && isatty(2)));
    signal(SIGINT, on_sigint);
    signal(SIGTERM, on_sigint); /* batch systems stop jobs with SIGTERM: leave no partial file either */
    clash_run_totals tot;
    clash_totals_init(&tot);
    clash_counters ctr; /* profile.h: live for the steps' regions */
    clash_counters_open(cli->counters, &ctr);
    clash_run_set_counters(run, &ctr);
    const double t0 = now();
    int s, in_steps = 1;
    for (s = 1; s <= cfg.steps; ++s) {
        if (ranks > 1 ? clash_ranks_any(W, interrupted) : interrupted) {
            interrupted = 1;
            break;
        }
        clash_pairs pairs;
        clash_step_stats st;
        if ((rc = clash_step(run, s, &pairs, &st, &err))) goto fail;
        clash_totals_add(&tot, s, &pairs, &st);
        if (pairs_out.f && clash_pairs_csv_rows(pairs_out.f, s, &pairs)) {
            rc = clash_fail(&err, CLASH_EFAIL, "%s: write failed", cli->pairs_path);
            goto fail;
        }
        if (vtk && (rc = clash_vtk_step(vtk, s, &pairs, &err))) goto fail;
        if (progress) progress_line(s, cfg.steps, (size_t)tot.pairs_total, now() - t0);
        if (cfg.stop_at_first && clash_ranks_any(W, pairs.count > 0)) break;
    }
    tot.wall_s = now() - t0;
    in_steps = 0;
    if (ranks > 1) { /* stage times: the slowest rank's (CONTRACT.md); counts of shared work: summed */
        clash_ranks_max_f64(W, tot.stage_total, CLASH_NSTAGES);
        clash_ranks_max_f64(W, tot.stage_max, CLASH_NSTAGES);
        clash_ranks_min_f64(W, tot.stage_min, CLASH_NSTAGES);
        clash_ranks_max_f64(W, &tot.wall_s, 1);
        int64_t shared[2] = {tot.candidates, tot.tests};
        clash_ranks_sum_i64(W, shared, 2);
        tot.candidates = shared[0], tot.tests = shared[1];
    }
    clash_counters_finish(&ctr);
    clash_run_set_counters(run, NULL);
    if (progress) fputc('\n', stderr);
    if (interrupted) {
        rc = clash_fail(&err, CLASH_EFAIL, "interrupted after step %d of %d; no output written", s - 1, cfg.steps);
        if (!root) {
            clash_run_destroy(run);
            clash_scene_destroy(sc);
            return rc;
        }
        goto fail;
    }
    if ((rc = clash_outfile_commit(&pairs_out, &err))) goto fail;
    if (vtk) {
        rc = clash_vtk_commit(vtk, &err);
        vtk = NULL;
        if (rc) goto fail;
    }
    if (cli->report_path && root) {
        clash_outfile rep;
        if ((rc = clash_outfile_open(&rep, cli->report_path, &err))) goto fail;
        clash_report_info ri = {sc, &cfg, threads, ranks, clash_bind_name(cfg.bind), &ctr};
        if (clash_report_write_yaml(rep.f, &ri, &tot)) {
            clash_outfile_abort(&rep);
            rc = clash_fail(&err, CLASH_EFAIL, "%s: write failed", cli->report_path);
            goto fail;
        }
        if ((rc = clash_outfile_commit(&rep, &err))) goto fail;
    }
    if (!cli->quiet && root) {
        fprintf(stderr, "%s: %d objects, %lld faces, %d steps (%s%s), %llu colliding pairs",
                clash_scene_name(sc), clash_scene_objects(sc), (long long)clash_scene_faces(sc), tot.steps_run,
                cfg.mode == CLASH_MODE_SWEPT ? "swept" : "static", cfg.self_collision ? ", self" : "",
                (unsigned long long)tot.pairs_total);
        if (tot.first_collision_step >= 0) fprintf(stderr, ", first at step %d", tot.first_collision_step);
        fprintf(stderr, "; %.3g ms per step on %d thread%s\n", 1e3 * tot.wall_s / (tot.steps_run ? tot.steps_run : 1),
                threads, threads == 1 ? "" : "s");
    }
    if (!strcmp(cli->command, "profile")) clash_counters_print(stdout, &ctr, &tot);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return 0;
fail:
    if (in_steps && ranks > 1) { /* the other ranks may wait in a collective of this step: end them all */
        die(&err);
        clash_outfile_abort(&pairs_out);
        clash_vtk_abort(vtk);
        clash_ranks_abort(W, rc);
    }
    clash_counters_close(&ctr);
    clash_outfile_abort(&pairs_out);
    clash_vtk_abort(vtk);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return die(&err);
}

/* clash bench SUITE [options]: the suite parses its own options. */
static int cmd_bench(int argc, char **argv)
{
    clash_error err;
    if (argc < 3 || argv[2][0] == '-') {
        fprintf(stderr, "clash: error: bench: name a suite:");
        for (const clash_bench_suite *s = clash_bench_suites; s->name; ++s) fprintf(stderr, " %s", s->name);
        fprintf(stderr, "%s\n", clash_bench_suites[0].name ? "" : " (none built yet)");
        return CLASH_EINPUT;
    }
    for (const clash_bench_suite *s = clash_bench_suites; s->name; ++s)
        if (!strcmp(s->name, argv[2])) return s->run(argc - 3, argv + 3);
    clash_fail(&err, CLASH_EINPUT, "bench: unknown suite '%s'", argv[2]);
    return die(&err);
}

static int clash_main(int argc, char **argv)
{
    clash_cli cli;
    clash_error err = {0};
    int help, version;
    if (argc >= 2 && !strcmp(argv[1], "bench")) return cmd_bench(argc, argv);
    if (clash_cli_parse(argc, argv, &cli, &help, &version, &err)) {
        int rc = die(&err);
        if (argc < 2) clash_cli_usage(stderr);
        return rc;
    }
    if (help) {
        clash_cli_usage(stdout);
        return 0;
    }
    if (version) {
        printf("clash %s\n", clash_build()->version);
        return 0;
    }
    if (!strcmp(cli.command, "info")) return cmd_info();
    if (!strcmp(cli.command, "profile")) { /* callgrind re-run when no hardware counters (profile_cmd.c) */
        int status;
        if (clash_profile_reexec(&cli, argc, argv, &status)) return status;
    }
    return cmd_run(&cli);
}

/* MPI around the whole command (a no-op without MPI or outside mpirun). */
int main(int argc, char **argv)
{
    const int mpi = clash_ranks_init(&argc, &argv);
    const int rc = clash_main(argc, argv);
    clash_ranks_finalize(mpi);
    return rc;
}
