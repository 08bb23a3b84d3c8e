/*
 * main.c — the `clash` command, a thin client of the C API.
 *
 *   clash run [SCENE.json] [options]   run a scene, write pairs and report
 *   clash profile [SCENE.json] [opts]  the same with per-stage cache-miss counters
 *                                      (hardware, or callgrind's simulation: profile_cmd.c)
 *   clash info                         what this build and machine have
 *   clash ccd vf|ee FILE.csv [opts]    CCD with time of impact on raw queries (ccd_cmd.c)
 *   clash run --decompose objects      the scene shared out over MPI ranks (the library's
 *                                      decomposed run; the report's section: dist_report.c)
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
#include "cli/ccd_cmd.h"
#include "cli/dist_report.h"
#include "cli/geometry_csv.h"
#include "cli/options.h"
#include "cli/profile_cmd.h"
#include "cli/suggest.h"
#include "cli/summary.h"
#include "clash_internal.h"

/* The signal that asked the run to stop (SIGINT, SIGTERM), 0 while none has:
 * the step loop stops cleanly and the command exits with 128 + signal.
 * The outputs' temporary files (rank 0's pairs, contacts and steps CSVs)
 * are removed at once (unlink is async-signal-safe): a rank whose peer
 * died waits in a collective that never returns, the launcher then sends
 * SIGTERM before SIGKILL, and no partial file is left behind. */
static volatile sig_atomic_t interrupted;
static char stop_tmp[3][1100];
static void on_sigint(int sig)
{
    for (int k = 0; k < 3; ++k)
        if (stop_tmp[k][0]) unlink(stop_tmp[k]);
    interrupted = sig;
}

/* The temporaries on_sigint removes: those of o's files (NULL: none). */
static void stop_removes(const clash_outfile *o[3])
{
    for (int k = 0; k < 3; ++k) stop_tmp[k][0] = 0; /* (first: a signal now removes none) */
    for (int k = 0; k < 3; ++k)
        if (o && o[k]->tmp) snprintf(stop_tmp[k], sizeof stop_tmp[k], "%s", o[k]->tmp);
}

/* Prints the error on the rank that met it ("rank R: " when there are several). */
static int die(const clash_error *err)
{
    if (clash_internal_nranks() > 1) fprintf(stderr, "clash: error: rank %d: %s\n", clash_internal_rank(), err->msg);
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
    char desc[256];
    const char *desc_source = clash_internal_machine(desc, sizeof desc);
    printf("clash %s\n", b->version);
    printf("build:    %s, %s, flags \"%s\"\n", b->build_type, b->compiler, b->flags);
    printf("parts:    openmp %s, pthreads yes, mpi %s, hwloc %s, likwid %s, papi %s, callgrind client requests %s\n",
           b->openmp ? "yes" : "no", b->mpi ? "yes" : "no", b->hwloc ? "yes" : "no", b->likwid ? "yes" : "no",
           b->papi ? "yes" : "no", b->valgrind ? "yes" : "no");
    const char *isa, *isa_cpu, *isa_env = getenv("CLASH_ISA");
    clash_isa(&isa, &isa_cpu, NULL);
    printf("isa:      %s (%s; this CPU's best: %s)\n", isa, isa_env && *isa_env ? "CLASH_ISA" : "the CPU's best",
           isa_cpu);
    printf("threads:  %d by default (cores of this process's binding)\n", clash_internal_threads(0));
    /* Whether each counter source works here, tried, not only built: perf
     * opens its events, PAPI initialises and adds its events, likwid needs
     * likwid-perfctr around the run, callgrind needs valgrind. */
    for (int src = CLASH_CTR_PERF; src <= CLASH_CTR_CALLGRIND; ++src) {
        char why[1100] = "";
        int works = 0;
        if (src == CLASH_CTR_CALLGRIND) {
            char vg[1024];
            works = clash_internal_callgrind_usable(vg, sizeof vg) == 0;
            snprintf(why, sizeof why, works ? "%s; clash profile re-runs itself under it (simulated)" : "%s", vg);
        } else {
            clash_counters *probe = clash_internal_counters_open(src);
            if (!probe) {
                printf("counters: out of memory\n");
                return 1;
            }
            works = clash_internal_counters_source(probe) != CLASH_CTR_NONE;
            const char *r = works ? clash_internal_counters_model(probe) : clash_internal_counters_reason(probe);
            const size_t k = strlen(clash_counter_source_names[src]);  /* reasons start "perf: " */
            if (!works && !strncmp(r, clash_counter_source_names[src], k) && r[k] == ':') r += k + 2;
            snprintf(why, sizeof why, "%s", r);
            clash_internal_counters_close(probe);
        }
        printf("%s %-9s %s: %s\n", src == CLASH_CTR_PERF ? "counters:" : "         ", clash_counter_source_names[src],
               works ? "works" : "not usable", why);
    }
    printf("machine:  %s (from %s)\n", desc, desc_source);
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

/* --steps-csv: one row per step for users' own plots (README "Outputs"). */
static void steps_csv_header(FILE *f)
{
    fputs("step", f);
    for (int k = 0; k < CLASH_NSTAGES; ++k) fprintf(f, ",%s_s", clash_stage_name(k));
    fputs(",step_s,object_pairs,faces_kept,candidates,tests,hits,pairs\n", f);
}

/* Under MPI every rank calls this (a collective): stage and step times are
 * the slowest rank's, the shared S4/S5 work is summed; rank 0 writes (f). */
static int steps_csv_row(FILE *f, int step, const clash_step_stats *st, double step_s,
                         size_t pairs)
{
    double t[CLASH_NSTAGES + 1];
    for (int k = 0; k < CLASH_NSTAGES; ++k) t[k] = st->seconds[k];
    t[CLASH_NSTAGES] = step_s;
    int64_t shared[2] = {st->candidates, st->tests};
    if (clash_internal_nranks() > 1) {
        clash_internal_ranks_max_f64(t, CLASH_NSTAGES + 1);
        clash_internal_ranks_sum_i64(shared, 2);
    }
    if (!f) return 0;
    fprintf(f, "%d", step);
    for (int k = 0; k <= CLASH_NSTAGES; ++k) fprintf(f, ",%.9g", t[k]);
    return fprintf(f, ",%lld,%lld,%lld,%lld,%lld,%zu\n", (long long)st->object_pairs, (long long)st->faces_kept,
                   (long long)shared[0], (long long)shared[1], (long long)st->hits, pairs) < 0 ? -1 : 0;
}

/* A replicated run's split (several ranks): each rank's share of S4/S5 over
 * the run (clash_step_stats.rank_units, candidates, tests, rank_hits) and
 * its own time in S4, S5, S6 and the steps, for the report's
 * replicated_ranks section.  The counts as int64, the times as the bits of
 * their doubles, so one allgather carries all. */
enum { RK_UNITS, RK_CAND, RK_TESTS, RK_HITS, RK_MID_S, RK_NARROW_S, RK_GATHER_S, RK_STEPS_S, RK_N };

static void rank_add(int64_t *rk, double *rt, const clash_step_stats *st, double step_s)
{
    rk[RK_UNITS] += st->rank_units, rk[RK_CAND] += st->candidates, rk[RK_TESTS] += st->tests;
    rk[RK_HITS] += st->rank_hits;
    rt[0] += st->seconds[CLASH_S4_MID], rt[1] += st->seconds[CLASH_S5_NARROW], rt[2] += st->seconds[CLASH_S6_GATHER];
    rt[3] += step_s;
}

/* Every rank calls it (a collective); rank 0 gets the section (malloc'd;
 * NULL when out of memory), the others NULL. */
static char *rank_section(int64_t *rk, const double *rt)
{
    for (int i = 0; i < 4; ++i) memcpy(&rk[RK_MID_S + i], &rt[i], sizeof(double));
    const int R = clash_internal_nranks();
    int64_t *all = malloc(sizeof *all * RK_N * (size_t)R);
    if (!all) clash_internal_ranks_abort(1); /* the others wait in the allgather */
    if (!all) return NULL;
    clash_internal_ranks_allgather_i64(rk, RK_N, all);
    const size_t cap = 400 + 260 * (size_t)R;
    char *s = clash_internal_rank() == 0 ? malloc(cap) : NULL;
    if (!s) {
        free(all);
        return NULL;
    }
    size_t k = (size_t)snprintf(s, cap,
                                "replicated_ranks:   # each rank's share over the steps: S4's work units (the face "
                                "octree's; 0: a midphase every rank runs whole), the candidates it made or was "
                                "given, its S5 tests and their hits (before rank 0's merge); its own mid_s, "
                                "narrow_s, gather_s and steps_s (the stages above give the slowest rank's)\n");
    for (int r = 0; r < R && k < cap; ++r) {
        const int64_t *f = all + (size_t)r * RK_N;
        double t[4];
        memcpy(t, &f[RK_MID_S], sizeof t);
        k += (size_t)snprintf(s + k, cap - k,
                              "  - {rank: %d, units: %lld, candidates: %lld, tests: %lld, hits: %lld, mid_s: %.6g, "
                              "narrow_s: %.6g, gather_s: %.6g, steps_s: %.6g}\n",
                              r, (long long)f[RK_UNITS], (long long)f[RK_CAND], (long long)f[RK_TESTS],
                              (long long)f[RK_HITS], t[0], t[1], t[2], t[3]);
    }
    free(all);
    return s;
}

/* This rank's figures over the steps for the report's section of the
 * ranks: a replicated run's share (rk, rt: rank_add) and a decomposed
 * run's part (dt: dist_report.c). */
typedef struct rank_tally {
    int64_t rk[RK_N];
    double rt[4];
    clash_dist_tally dt;
} rank_tally;

static void tally_add(rank_tally *k, const clash_step_stats *st, double step_s, const clash_scene *sc)
{
    rank_add(k->rk, k->rt, st, step_s);
    clash_dist_tally_add(&k->dt, st, step_s, clash_scene_objects(sc), clash_scene_faces(sc));
}

/* The report's section of the ranks (a collective; rank 0 gets it, malloc'd,
 * the others NULL): a decomposed run's, else the replicated ranks' shares
 * (none on one rank).  Out of memory: every rank is ended, as in
 * rank_section (the others may wait in a collective). */
static char *ranks_yaml(const clash_config *cfg, rank_tally *k, const clash_scene *sc)
{
    if (cfg->decompose != CLASH_DECOMPOSE_OBJECTS)
        return clash_internal_nranks() > 1 ? rank_section(k->rk, k->rt) : NULL;
    int oom;
    char *s = clash_dist_section(&k->dt, clash_scene_objects(sc), &oom);
    if (oom) clash_internal_ranks_abort(1);
    return s;
}

/* The files a run writes (rank 0 only): open while the steps run, each
 * committed at the end or removed, so that nothing is left half-written. */
typedef struct run_outputs {
    clash_outfile pairs, steps, contacts;
    clash_vtk *vtk;
} run_outputs;

static void outputs_abort(run_outputs *o)
{
    stop_removes(NULL);
    clash_outfile_abort(&o->pairs);
    clash_outfile_abort(&o->contacts);
    clash_outfile_abort(&o->steps);
    clash_vtk_abort(o->vtk);
    o->vtk = NULL;
}

/* Opens the outputs the options name (on rank 0: root) and writes their headers. */
static int outputs_open(const clash_cli *cli, clash_scene *sc, int root, run_outputs *o, clash_error *err)
{
    int rc;
    memset(o, 0, sizeof *o);
    if (!root) return 0;
    if (cli->pairs_path) {
        if ((rc = clash_outfile_open(&o->pairs, cli->pairs_path, err))) return rc;
        if (cli->cfg.geometry) clash_geom_pairs_header(o->pairs.f);
        else clash_pairs_csv_header(o->pairs.f);
    }
    if (cli->contacts_path) {
        if ((rc = clash_outfile_open(&o->contacts, cli->contacts_path, err))) return rc;
        if (cli->cfg.geometry) clash_geom_contacts_header(o->contacts.f);
        else clash_contacts_csv_header(o->contacts.f);
    }
    if (cli->steps_csv) {
        if ((rc = clash_outfile_open(&o->steps, cli->steps_csv, err))) return rc;
        steps_csv_header(o->steps.f);
    }
    if (cli->vtk_dir && !(o->vtk = clash_vtk_open(cli->vtk_dir, sc, err))) return err->code;
    if (o->vtk) clash_vtk_set_format(o->vtk, cli->vtk_format);
    stop_removes((const clash_outfile *[3]){&o->pairs, &o->contacts, &o->steps});
    return 0;
}

/* Step s's rows in every output: its pairs, its contacts, its VTK frame
 * (as --vtk-steps says) and its line of the steps CSV (step_s: its time). */
static int outputs_step(const clash_cli *cli, clash_run *run, run_outputs *o, int s,
                        const clash_pairs *pairs, const clash_step_stats *st, double step_s, clash_error *err)
{
    int rc;
    const int geom = cli->cfg.geometry; /* --geometry: the rows gain the step's geometry columns */
    if (o->pairs.f &&
        (geom ? clash_geom_pairs_rows(o->pairs.f, s, run, pairs) : clash_pairs_csv_rows(o->pairs.f, s, pairs)))
        return clash_internal_fail(err, CLASH_EFAIL, "%s: write failed", cli->pairs_path);
    clash_contacts contacts;
    if (o->contacts.f && (rc = clash_run_contacts(run, &contacts, err))) return rc;
    if (o->contacts.f && (geom ? clash_geom_contacts_rows(o->contacts.f, s, run, &contacts)
                              : clash_contacts_csv_rows(o->contacts.f, s, &contacts)))
        return clash_internal_fail(err, CLASH_EFAIL, "%s: write failed", cli->contacts_path);
    const int vtk_this = cli->vtk_every ? s % cli->vtk_every == 0 : pairs->count > 0; /* --vtk-steps */
    if (o->vtk && vtk_this && (rc = clash_vtk_step(o->vtk, s, pairs, err))) return rc;
    if (cli->steps_csv && steps_csv_row(o->steps.f, s, st, step_s, pairs->count))
        return clash_internal_fail(err, CLASH_EFAIL, "%s: write failed", cli->steps_csv);
    return 0;
}

/* Commits every output (the VTK series is gone from o afterwards, whatever the result). */
static int outputs_commit(run_outputs *o, clash_error *err)
{
    int rc;
    stop_removes(NULL); /* from here the files are the run's result */
    if ((rc = clash_outfile_commit(&o->pairs, err))) return rc;
    if ((rc = clash_outfile_commit(&o->contacts, err))) return rc;
    if ((rc = clash_outfile_commit(&o->steps, err))) return rc;
    if (o->vtk) {
        rc = clash_vtk_commit(o->vtk, err);
        o->vtk = NULL;
    }
    return rc;
}

/* Over several ranks (a collective): the stage times become the slowest
 * rank's (as REFERENCE.md says), the counts of shared work are summed. */
static void totals_across_ranks(clash_run_totals *tot)
{
    clash_internal_ranks_max_f64(tot->stage_total, CLASH_NSTAGES);
    clash_internal_ranks_max_f64(tot->stage_max, CLASH_NSTAGES);
    clash_internal_ranks_min_f64(tot->stage_min, CLASH_NSTAGES);
    clash_internal_ranks_max_f64(&tot->wall_s, 1);
    clash_internal_ranks_max_f64(&tot->steps_s, 1);
    int64_t shared[2] = {tot->candidates, tot->tests};
    clash_internal_ranks_sum_i64(shared, 2);
    tot->candidates = shared[0], tot->tests = shared[1];
    int64_t ccd[6] = {tot->ccd_tests,      tot->ccd_vf_tests,    tot->ccd_filter_no,
                      tot->ccd_filter_yes, tot->ccd_exact_calls, tot->ccd_hull_no};
    clash_internal_ranks_sum_i64(ccd, 6);
    tot->ccd_tests = ccd[0], tot->ccd_vf_tests = ccd[1], tot->ccd_filter_no = ccd[2], tot->ccd_filter_yes = ccd[3];
    tot->ccd_exact_calls = ccd[4], tot->ccd_hull_no = ccd[5];
    clash_internal_ranks_max_f64(&tot->ccd_s, 1);
}

/* More threads than the cores this process may run on (its affinity, set
 * by taskset, a batch system or mpirun's binding): they take turns, and
 * rank 0 says so unless quiet (a collective over several ranks). */
static void warn_oversubscribed(int threads, int quiet)
{
    const int cores = clash_internal_cores();
    int oversubscribed = threads > cores;
    if (clash_internal_nranks() > 1) oversubscribed = clash_internal_ranks_any(oversubscribed);
    if (oversubscribed && clash_internal_rank() == 0 && !quiet) {
        char cb[64];
        fprintf(stderr, "clash: warning: --threads %d exceeds the %s of %s binding; threads will share cores\n",
                threads, clash_plural(cb, sizeof cb, cores, "core"),
                clash_internal_nranks() > 1 ? "a rank's" : "this process's");
    }
}

static int cmd_run(const clash_cli *cli)
{
    clash_error err = {0};
    clash_scene *sc = NULL;
    int rc;
    if (cli->scene) rc = clash_scene_load(cli->scene, &sc, &err);
    else rc = clash_scene_preset(cli->preset ? cli->preset : "default", &cli->preset_params, &sc, &err);
    clash_config cfg = cli->cfg;
    clash_run *run = NULL;
    /* Under MPI every rank must learn that one failed before any collective
     * (creating a run is one: it duplicates the communicator). */
    int code = clash_internal_ranks_max_int(rc);
    if (!code) {
        clash_scene_apply_defaults(sc, &cfg);
        /* --steps may take a law further than the file's steps: named by the file's keys */
        if (cli->scene && cfg.steps > 0) rc = clash_internal_scene_check_laws(sc, cfg.steps, cli->scene, &err);
        if (!rc && !(run = clash_run_create(sc, &cfg, &err))) rc = err.code ? err.code : CLASH_EFAIL;
        code = clash_internal_ranks_max_int(rc);
    }
    if (code != 0) { /* every rank is here: the same refusal is printed once */
        clash_run_destroy(run);
        clash_scene_destroy(sc);
        const int st = clash_say_refusal(&err, rc);
        return rc ? st : code;
    }
    const int threads = clash_internal_threads(cfg.threads);
    /* MPI: every rank runs the steps (the run has its own communicator); only rank 0 writes and prints. */
    const int root = clash_internal_rank() == 0, ranks = clash_internal_nranks();
    run_outputs out;
    rc = outputs_open(cli, sc, root, &out, &err);
    clash_counters *ctr = rc ? NULL : clash_internal_counters_open(cli->counters); /* of the steps' regions */
    if (!rc && !ctr) rc = clash_internal_fail(&err, CLASH_EFAIL, "out of memory");
    if ((code = clash_internal_ranks_max_int(rc)) != 0) { /* a rank could not open its outputs */
        clash_internal_counters_close(ctr);
        outputs_abort(&out);
        clash_run_destroy(run);
        clash_scene_destroy(sc);
        const int st = clash_say_refusal(&err, rc);
        return rc ? st : code;
    }
    warn_oversubscribed(cfg.threads, cli->quiet);
    const int progress = root && !cli->quiet && (cli->progress == 1 || (cli->progress == -1 && isatty(2)));
    signal(SIGINT, on_sigint);
    signal(SIGTERM, on_sigint); /* batch systems stop jobs with SIGTERM: leave no partial file either */
    clash_run_totals tot;
    clash_totals_init(&tot);
    rank_tally share = {0}; /* this rank's figures (ranks_yaml) */
    char *rank_yaml = NULL; /* the report's replicated_ranks or decomposition section (rank 0) */
    clash_internal_run_set_counters(run, ctr);
    const int outputs = root ? !!cli->pairs_path + !!cli->vtk_dir + !!cli->steps_csv + !!cli->contacts_path : 0;
    const double t0 = now();
    double shown = -1; /* when the progress line was last written (-1: never) */
    int s, in_steps = 1, stop_sig = 0; /* stop_sig: the signal that ended the steps, 0: none */
    for (s = 1; s <= cfg.steps; ++s) {
        const int sig = ranks > 1 ? clash_internal_ranks_max_int(interrupted) : interrupted;
        if (sig) { /* every rank stops after the same step, with the same status */
            stop_sig = sig;
            break;
        }
        clash_pairs pairs;
        clash_step_stats st;
        const double ts = now();
        if ((rc = clash_step(run, s, &pairs, &st, &err))) goto fail;
        const double te = now();
        tot.steps_s += te - ts;  /* the per-step time: the step, not the writing of its outputs */
        const size_t wb = clash_internal_run_work_bytes(run);
        if (wb > tot.work_bytes) tot.work_bytes = wb;
        tally_add(&share, &st, te - ts, sc);
        if (clash_totals_add(&tot, s, &pairs, &st)) {
            rc = clash_internal_fail(&err, CLASH_EFAIL, "out of memory");
            goto fail;
        }
        if ((rc = outputs_step(cli, run, &out, s, &pairs, &st, te - ts, &err))) goto fail;
        if (outputs) tot.output_s += now() - te;
        /* the first step, the last, and at most ten lines a second between
         * (a line a step of a small scene wrote megabytes a second into a
         * redirected stderr, one line long) */
        if (progress && (shown < 0 || s == cfg.steps || now() - shown >= 0.1)) {
            shown = now();
            progress_line(s, cfg.steps, (size_t)tot.pairs_total, shown - t0);
        }
        if (cfg.stop_at_first && clash_internal_ranks_any(pairs.count > 0)) break;
    }
    tot.wall_s = now() - t0;
    in_steps = 0;
    if (!stop_sig) rank_yaml = ranks_yaml(&cfg, &share, sc); /* (before the times are maxed) */
    if (ranks > 1) totals_across_ranks(&tot);
    clash_internal_counters_finish(ctr);
    clash_internal_run_set_counters(run, NULL);
    if (progress) fputc('\n', stderr);
    if (stop_sig) {
        rc = clash_internal_fail(&err, CLASH_EFAIL, "interrupted after step %d of %d; no output written", s - 1,
                                 cfg.steps);
        if (!root) {
            clash_internal_counters_close(ctr);
            clash_totals_free(&tot);
            free(rank_yaml);
            clash_run_destroy(run);
            clash_scene_destroy(sc);
            return 128 + stop_sig;
        }
        goto fail;
    }
    const double tc = now();
    if ((rc = outputs_commit(&out, &err))) goto fail;
    tot.output_s += now() - tc;  /* the report's own writing comes after it and is not counted */
    if (cli->report_path && root) {
        clash_outfile rep;
        if ((rc = clash_outfile_open(&rep, cli->report_path, &err))) goto fail;
        clash_report_info ri = {sc, &cfg, threads, ranks, clash_internal_bind_name(cfg.bind), ctr, 0, 0, 0,
                                rank_yaml, NULL, NULL};
        clash_isa(&ri.isa, NULL, NULL);
        ri.midphase = clash_internal_midphase_name(cfg.midphase);
        if (clash_report_write_yaml(rep.f, &ri, &tot)) {
            clash_outfile_abort(&rep);
            rc = clash_internal_fail(&err, CLASH_EFAIL, "%s: write failed", cli->report_path);
            goto fail;
        }
        if ((rc = clash_outfile_commit(&rep, &err))) goto fail;
    }
    if (!cli->quiet && root) {
        const clash_summary sum = {clash_scene_name(sc), clash_scene_objects(sc), (long long)clash_scene_faces(sc),
                                   tot.steps_run, cfg.mode == CLASH_MODE_SWEPT, cfg.self_collision,
                                   (unsigned long long)tot.pairs_total, tot.first_collision_step, tot.steps_s,
                                   tot.output_s, outputs, threads, ranks};
        clash_summary_print(stderr, &sum);
    }
    if (!strcmp(cli->command, "profile")) clash_counters_print(stdout, ctr, &tot);
    clash_internal_counters_close(ctr);
    clash_totals_free(&tot);
    free(rank_yaml);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return 0;
fail:
    if (in_steps && ranks > 1) { /* the other ranks may wait in a collective of this step: end them all */
        die(&err);
        outputs_abort(&out);
        clash_internal_ranks_abort(rc);
    }
    clash_totals_free(&tot);
    free(rank_yaml);
    outputs_abort(&out);
    clash_run_destroy(run);
    clash_internal_counters_close(ctr); /* after the run, which held it during the steps */
    clash_scene_destroy(sc);
    rc = die(&err);
    return stop_sig ? 128 + stop_sig : rc; /* 130 after SIGINT, 143 after SIGTERM, as shells expect */
}

/* `clash bench` alone (or --help): the suites, one line each. */
static void bench_list(FILE *f)
{
    fprintf(f, "usage: clash bench SUITE [options]   (clash bench SUITE --help: its options)\nsuites:\n");
    for (const clash_bench_suite *s = clash_bench_suites; s->name; ++s) fprintf(f, "  %-11s %s\n", s->name, s->summary);
}

/* clash bench SUITE [options]: the suite parses its own options; --help
 * anywhere after the suite's name prints the suite's usage line. */
static int cmd_bench(int argc, char **argv)
{
    clash_error err;
    if (argc < 3 || !strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) {
        bench_list(stdout);
        return 0;
    }
    const char *names[64];
    int n = 0;
    for (const clash_bench_suite *s = clash_bench_suites; s->name; ++s) {
        if (n < 63) names[n++] = s->name;
        if (strcmp(s->name, argv[2])) continue;
        for (int i = 3; i < argc; ++i)
            if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
                printf("usage: clash bench %s %s\n%s.\n", s->name, s->usage, s->summary);
                return 0;
            }
        clash_internal_unbind_initial(); /* the runs a suite starts inherit this mask (OMP_PROC_BIND: one core) */
        return s->run(argc - 3, argv + 3);
    }
    names[n] = NULL;
    char hint[96];
    clash_internal_fail(&err, CLASH_EINPUT, "bench: unknown suite '%s'%s (clash bench lists them)", argv[2],
                        clash_suggest_hint(argv[2], names, hint, sizeof hint));
    return die(&err);
}

static int clash_main(int argc, char **argv)
{
    clash_cli cli;
    clash_error err = {0};
    int help, version;
    if (clash_isa(NULL, NULL, &err)) return die(&err); /* CLASH_ISA asks for a level this CPU lacks */
    if (argc >= 2 && !strcmp(argv[1], "bench")) return cmd_bench(argc, argv);
    if (argc >= 2 && !strcmp(argv[1], "ccd")) return clash_ccd_cmd(argc, argv); /* ccd_cmd.c */
    if (clash_cli_parse(argc, argv, &cli, &help, &version, &err)) {
        /* under mpirun every rank read the same command line: agreed the way a run's first refusal
         * is (cmd_run), so that the message is printed once and a rank whose own
         * command line was fine (an MPMD launch) takes part and exits with the same status */
        const int several = clash_internal_nranks() > 1;
        if (several) clash_internal_ranks_max_int(err.code);
        const int rc = several ? clash_say_refusal(&err, err.code) : die(&err);
        if (argc < 2 && clash_internal_rank() == 0) clash_cli_usage(stderr);
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
    if (cli.decompose < 0) { /* the default: the scene shared out when there is more than one rank, */
        const int several = clash_internal_nranks() > 1; /* except a frames scene, whose owners send */
        cli.decompose = several ? CLASH_DECOMPOSE_OBJECTS : CLASH_DECOMPOSE_REPLICATED; /* all their vertices */
        clash_scene_desc d;
        clash_error derr = {0};
        memset(&d, 0, sizeof d);
        if (several && cli.scene && !clash_scene_desc_parse_file(cli.scene, &d, &derr) && d.nframes > 0)
            cli.decompose = CLASH_DECOMPOSE_REPLICATED; /* (a scene that does not parse: the run says why) */
        clash_scene_desc_free(&d);
    }
    if (cli.decompose == CLASH_DECOMPOSE_OBJECTS) /* the scene shared out over the ranks (src/decomposed.c) */
        cli.cfg.decompose = CLASH_DECOMPOSE_OBJECTS;
    return cmd_run(&cli);
}

/* MPI around the whole command (a no-op without MPI or outside mpirun). */
int main(int argc, char **argv)
{
    const int mpi = clash_internal_ranks_init(&argc, &argv);
    const int rc = clash_main(argc, argv);
    clash_internal_ranks_finalize(mpi);
    return rc;
}
