/*
 * decompose.c — the step loop of `clash run --decompose objects` (the plan
 * is decomp_plan.c; the model is in decompose.h).
 *
 * Every rank, every step s:
 *   1. at an epoch's first step, its part of the scene is planned and built
 *      (owned objects and ghosts, decomp_plan.c) with a one-rank run of its
 *      own (MPI_COMM_SELF): the pipeline is the same as a serial run's;
 *   2. clash_step(s) on its part, then every hit pair (a, b) it is not the
 *      reporter of is dropped (clash_decomp_reports) and the rest become
 *      keys of global face numbers, (first face of a + face) << 32 | ...:
 *      objects keep their global order in the part, so the keys sort as
 *      the pairs CSV does;
 *   3. the ranks agree that the step went well (one small reduction), then
 *      rank 0 merges the ranks' sorted keys as they stream in, a chunk per
 *      rank at a time (clash_ranks_merge_u64), and writes the rows: at 5.5
 *      million pairs a step a whole gather was 44 MB more on rank 0.
 * Because failures are agreed before the gather, an error on one rank makes
 * every rank stop after the same step with nothing written; a rank that dies
 * outright is mpirun's to handle (it ends the others).
 *
 * The report (--report) gets a decomposition section: per rank the objects
 * owned and ghosted in the last epoch, the faces held, the bytes sent, the
 * time in the steps and the peak resident set; the measured imbalance and
 * the number of cuts.
 */
#include "cli/decompose.h"

#include <math.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/sort.h"
#include "cli/options.h"
#include "cli/summary.h"
#include "core/run.h"
#include "out/report.h"
#include "sched/bind.h"
#include "sched/sched.h"
#include "stages/mid/midphase.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int say(const clash_ranks *W, const clash_error *err)
{
    if (W->size > 1) fprintf(stderr, "clash: error: rank %d: %s\n", W->rank, err->msg);
    else fprintf(stderr, "clash: error: %s\n", err->msg);
    return err->code ? err->code : CLASH_EFAIL;
}

/* SIGINT/SIGTERM during a decomposed run: the flag the step loop reads, and
 * the temporary pairs file removed at once (unlink is async-signal-safe).
 * A rank whose peer died waits in a collective that never returns: the
 * launcher then sends SIGTERM before SIGKILL, and this leaves no partial
 * file behind. */
static volatile sig_atomic_t *stop_flag;
static char stop_tmp[1100];
static void on_stop(int sig)
{
    if (stop_tmp[0]) unlink(stop_tmp);
    *stop_flag = sig;
}

/* Per-rank figures gathered to rank 0 for the report, in this order. */
enum { F_OWNED, F_GHOST, F_FACES, F_FACES_MAX, F_BYTES, F_RSS, F_STEPS_S, F_WAIT_S, F_BOXED, F_KEPT, F_CAND, F_NFIG };

static double peak_rss(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? 1024.0 * (double)ru.ru_maxrss : 0.0; /* Linux: KiB */
}

/* The decomposition section of the report (malloc'd, NULL when out of memory). */
static char *section(const clash_cli *cli, const clash_decomp *D, const uint64_t *fig, int steps, int epochs,
                     double imb_max, double imb_mean, double build_s)
{
    const int R = D->R;
    const size_t cap = 1200 + 500 * (size_t)R;
    char *s = malloc(cap);
    if (!s) return NULL;
    double mean_t = 0, bytes_max = 0, bytes_sum = 0, rss_max = 0, wait_max = 0;
    for (int r = 0; r < R; ++r) {
        double t, w;
        memcpy(&t, &fig[r * F_NFIG + F_STEPS_S], sizeof t);
        memcpy(&w, &fig[r * F_NFIG + F_WAIT_S], sizeof w);
        mean_t += t / R, wait_max = fmax(wait_max, w);
        bytes_max = fmax(bytes_max, (double)fig[r * F_NFIG + F_BYTES]);
        bytes_sum += (double)fig[r * F_NFIG + F_BYTES];
        rss_max = fmax(rss_max, (double)fig[r * F_NFIG + F_RSS]);
    }
    const int n = steps > 0 ? steps : 1;
    size_t k = (size_t)snprintf(
        s, cap,
        "decomposition: {mode: objects, ranks: %d, rebalance_every: %d, imbalance_threshold: %g, cuts: %d, "
        "epochs: %d, epoch_build_s: %.6g, migrations: %lld, imbalance_max: %.4g, imbalance_mean: %.4g, ghosts_from: description, "
        "bytes_sent_per_step_max: %.0f, bytes_sent_per_step_total: %.0f, peak_rss_bytes_max: %.0f, "
        "wait_s_per_step_max: %.6g}\n"
        "decomposition_ranks:   # epoch_build_s (slowest rank): planning and building the parts, not in steps_s; objects and faces: the last epoch's (faces_max: the largest epoch's); "
        "bytes: pair keys sent to rank 0; load: steps_s over the ranks' mean; faces_boxed, faces_kept, candidates: this rank's S1, S3, S4 counts over the steps; wait_s: the part of steps_s spent in the "
        "step's agreement and the pairs' merge (waiting for the other ranks, merging, sending)\n",
        R, cli->rebalance_every, cli->imbalance, D->recuts, epochs, build_s, (long long)D->migrations, imb_max, imb_mean, bytes_max / n, bytes_sum / n,
        rss_max, wait_max / n);
    for (int r = 0; r < R && k < cap; ++r) {
        const uint64_t *f = &fig[r * F_NFIG];
        double t, w;
        memcpy(&t, &f[F_STEPS_S], sizeof t);
        memcpy(&w, &f[F_WAIT_S], sizeof w);
        k += (size_t)snprintf(s + k, cap - k,
                              "  - {rank: %d, objects_owned: %llu, objects_ghost: %llu, faces: %llu, faces_max: %llu, "
                              "bytes_sent: %llu, bytes_sent_per_step: %.0f, steps_s: %.6g, wait_s: %.6g, load: %.3f, "
                              "faces_boxed: %llu, faces_kept: %llu, candidates: %llu, peak_rss_bytes: %llu}\n",
                              r, (unsigned long long)f[F_OWNED], (unsigned long long)f[F_GHOST],
                              (unsigned long long)f[F_FACES], (unsigned long long)f[F_FACES_MAX],
                              (unsigned long long)f[F_BYTES], (double)f[F_BYTES] / n, t, w,
                              mean_t > 0 ? t / mean_t : 1.0, (unsigned long long)f[F_BOXED],
                              (unsigned long long)f[F_KEPT], (unsigned long long)f[F_CAND], (unsigned long long)f[F_RSS]);
    }
    return s;
}

/* An epoch's measured imbalance: the slowest rank's time in the steps over
 * the ranks' mean (a collective: every rank calls it). */
static double epoch_imbalance(const clash_ranks *W, double epoch_s)
{
    double tmax = epoch_s;
    int64_t us = (int64_t)(epoch_s * 1e6);
    clash_ranks_max_f64(W, &tmax, 1);
    clash_ranks_sum_i64(W, &us, 1);
    return us > 0 ? tmax * 1e6 * W->size / (double)us : 1.0;
}

/* The run's S2 filter (core/run.h op_keep): local objects a <= b of this
 * rank's part in step s are worked on only when this rank reports their
 * pairs, so no rank spends face work on a pair another one reports.  Out of
 * memory for the step's boxes: kept (the filter after the step decides). */
typedef struct keep_ctx {
    clash_decomp *D;
    int s;
} keep_ctx;
static int keep_pair(void *ctx, int a, int b)
{
    keep_ctx *k = ctx;
    return clash_decomp_reports(k->D, k->D->present[a], k->D->present[b], k->s) != 0;
}

/* Rank 0: the step's pairs as they come out of the ranks' merge
 * (clash_ranks_merge_u64, in key order, a chunk at a time), turned into
 * pairs, counted into the totals (pairs, checksum) and written to f (NULL:
 * none).  No array of all the step's pairs is made on any rank. */
#define CHUNK 65536
typedef struct emit_ctx {
    const clash_decomp *D;
    int s;
    clash_run_totals *tot;
    FILE *f;
    clash_pair *chunk; /* CHUNK pairs */
    size_t ng;         /* pairs of the step */
    double write_s;
} emit_ctx;
static int emit_rows(void *ctx, const uint64_t *keys, int64_t m)
{
    emit_ctx *e = ctx;
    const clash_decomp *D = e->D;
    for (int64_t i = 0; i < m; ++i) {
        const uint32_t fa = (uint32_t)(keys[i] >> 32), fb = (uint32_t)keys[i];
        const int oa = clash_object_of(D->gfofs, D->nobj, fa), ob = clash_object_of(D->gfofs, D->nobj, fb);
        e->chunk[i] = (clash_pair){(uint32_t)oa, (uint32_t)(fa - D->gfofs[oa]), (uint32_t)ob,
                                   (uint32_t)(fb - D->gfofs[ob])};
        e->tot->checksum += clash_pair_hash(e->s, &e->chunk[i]);
    }
    e->tot->pairs_total += (uint64_t)m, e->ng += (size_t)m;
    const clash_pairs p = {e->chunk, (size_t)m};
    const double t = now();
    const int rc = e->f && clash_pairs_csv_rows(e->f, e->s, &p) ? -1 : 0;
    e->write_s += now() - t;
    return rc;
}

/* The epochs so far: their measured imbalance, and this rank's time
 * planning and building parts. */
typedef struct epoch_log {
    double epoch_s;          /* this rank's time in the steps of the current epoch */
    double imb_max, imb_sum; /* over the epochs ended */
    double build_s;          /* planning and building parts */
    uint64_t faces_max;      /* the most faces a part of this rank held */
    int epochs, recut;       /* epochs ended; whether the next one cuts the cells again */
} epoch_log;

/* Ends an epoch: its imbalance (a collective) into the log, and returned. */
static double epoch_end(const clash_ranks *W, epoch_log *L)
{
    const double imb = epoch_imbalance(W, L->epoch_s);
    L->imb_max = fmax(L->imb_max, imb), L->imb_sum += imb, ++L->epochs;
    return imb;
}

/* Starts the epoch at step s: ends the last one (the cells cut again when
 * it was more imbalanced than --imbalance), plans steps s..s1, and builds
 * this rank's part and its one-rank run in *sc and *run (the last part's
 * destroyed first). */
static int epoch_start(const clash_cli *cli, const clash_ranks *W, clash_decomp *D, const clash_config *cfg, int s,
                       epoch_log *L, keep_ctx *kc, clash_scene **sc, clash_run **run, clash_error *err)
{
    if (s > 1) L->recut = epoch_end(W, L) > cli->imbalance;
    const double tb = now();
    clash_run_destroy(*run), clash_scene_destroy(*sc);
    *run = NULL, *sc = NULL;
    const int s1 = cfg->steps - s + 1 > cli->rebalance_every ? s + cli->rebalance_every - 1 : cfg->steps;
    int rc = clash_decomp_epoch(D, s, s1, L->recut) ? clash_fail(err, CLASH_EFAIL, "out of memory planning") : 0;
    if (!rc) *sc = clash_decomp_build(D, &rc, err);
    if (!rc && *sc && !(*run = clash_run_create(*sc, cfg, err))) rc = err->code ? err->code : CLASH_EFAIL;
    if (*run) clash_pipe_keep_pairs(*run, keep_pair, kc);
    if ((uint64_t)D->faces > L->faces_max) L->faces_max = (uint64_t)D->faces;
    L->epoch_s = 0;
    L->build_s += now() - tb;
    return rc;
}

/* The pairs of step s this rank reports (clash_decomp_reports), as sorted
 * keys of global face numbers in (*keys)[0..*nk). */
static int reported_keys(clash_decomp *D, const clash_pairs *lp, int s, uint64_t **keys, size_t *cap, size_t *nk,
                         clash_error *err)
{
    *nk = 0;
    if (lp->count > *cap) {
        uint64_t *k = realloc(*keys, lp->count * sizeof *k);
        if (!k) return clash_fail(err, CLASH_EFAIL, "out of memory");
        *keys = k, *cap = lp->count;
    }
    int la = -1, lb = -1, mine = 0;
    for (size_t i = 0; i < lp->count; ++i) {
        const clash_pair *p = &lp->pairs[i];
        const int ga = D->present[p->obj_a], gb = D->present[p->obj_b];
        if ((int)p->obj_a != la || (int)p->obj_b != lb) { /* pairs come grouped by objects */
            la = (int)p->obj_a, lb = (int)p->obj_b, mine = clash_decomp_reports(D, ga, gb, s);
            if (mine < 0) return clash_fail(err, CLASH_EFAIL, "out of memory");
        }
        if (mine > 0)
            (*keys)[(*nk)++] = (uint64_t)(D->gfofs[ga] + p->face_a) << 32 | (uint64_t)(D->gfofs[gb] + p->face_b);
    }
    return 0;
}

/* Over the ranks (a collective): stage times and build_s become the
 * slowest rank's; counts of the parts' work are summed (ghost pairs count
 * on each rank).  mine: this rank's own faces boxed, kept and candidates. */
static void totals_of_parts(const clash_ranks *W, clash_run_totals *tot, double *build_s, uint64_t mine[3])
{
    clash_ranks_max_f64(W, tot->stage_total, CLASH_NSTAGES);
    clash_ranks_max_f64(W, tot->stage_max, CLASH_NSTAGES);
    clash_ranks_min_f64(W, tot->stage_min, CLASH_NSTAGES);
    clash_ranks_max_f64(W, &tot->wall_s, 1);
    clash_ranks_max_f64(W, &tot->steps_s, 1);
    clash_ranks_max_f64(W, build_s, 1);
    mine[0] = (uint64_t)tot->faces_boxed, mine[1] = (uint64_t)tot->faces_kept, mine[2] = (uint64_t)tot->candidates;
    int64_t cnt[5] = {tot->vertices, tot->faces_boxed, tot->object_pairs, tot->faces_kept, tot->candidates};
    int64_t cnt2 = tot->tests;
    clash_ranks_sum_i64(W, cnt, 5);
    clash_ranks_sum_i64(W, &cnt2, 1);
    tot->vertices = cnt[0], tot->faces_boxed = cnt[1], tot->object_pairs = cnt[2], tot->faces_kept = cnt[3];
    tot->candidates = cnt[4], tot->tests = cnt2;
}

/* Rank 0's report (--report): the run's, with the decomposition section
 * `extra`; sc is the last part (NULL: a scene of that name stands in). */
static int write_report(const clash_cli *cli, const clash_decomp *D, const clash_scene_desc *d, clash_scene *sc,
                        const clash_config *cfg, int threads, int ranks, const clash_run_totals *tot, char *extra,
                        clash_error *err)
{
    int rc = 0;
    clash_scene *rep_sc = sc ? sc : clash_store_new(d->name ? d->name : "scene");
    if (cli->report_path && rep_sc) {
        clash_outfile rep;
        clash_report_info ri = {rep_sc, cfg, threads, ranks, clash_bind_name(cfg->bind), NULL,
                                D->nobj, D->nv, D->gfofs[D->nobj], extra, NULL, NULL};
        clash_isa(&ri.isa, NULL, NULL);
        ri.midphase = clash_midphase_name(cfg->midphase);
        if (!(rc = clash_outfile_open(&rep, cli->report_path, err))) {
            if (clash_report_write_yaml(rep.f, &ri, tot)) {
                clash_outfile_abort(&rep);
                rc = clash_fail(err, CLASH_EFAIL, "%s: write failed", cli->report_path);
            } else rc = clash_outfile_commit(&rep, err);
        }
    }
    if (rep_sc != sc) clash_scene_destroy(rep_sc);
    return rc;
}

/* The scene's description (the file's or the preset's), the plan's
 * state for it, and the configuration with the description's defaults;
 * every motion law checked over the steps before any part is built. */
static int load_plan(const clash_cli *cli, const clash_ranks *W, clash_scene_desc *d, clash_decomp *D,
                     clash_config *cfg, clash_error *err)
{
    int rc = cli->scene ? clash_scene_desc_parse_file(cli->scene, d, err)
                        : clash_scene_desc_preset(cli->preset ? cli->preset : "default", &cli->preset_params, d, err);
    if (!rc && cli->scene) d->source = cli->scene;
    if (!rc) rc = clash_decomp_init(D, d, W, cli->cfg.min_separation > 0 ? cli->cfg.min_separation : 0, err);
    *cfg = cli->cfg;
    if (cfg->steps < 0) cfg->steps = d->steps > 0 ? d->steps : 1;
    if (cfg->mode < 0) cfg->mode = d->mode;
    if (cfg->self_collision < 0) cfg->self_collision = d->self_collision;
    for (int o = 0; !rc && !d->nframes && o < d->nobjects; ++o) {
        char what[1100];
        snprintf(what, sizeof what, "%.1000s: objects[%d]", cli->scene ? cli->scene : d->name ? d->name : "scene", o);
        rc = clash_check_law(&D->pose[o], D->mrad[d->objects[o].mesh], cfg->steps, what, err);
    }
    cfg->mpi_comm = (void *)clash_ranks_self_comm(); /* each part its own one-rank run (read only) */
    return rc;
}

/* Step s into the totals: its stage statistics, with the report's hits
 * the ng merged pairs (rank 0), and the run's working memory. */
static int tally_step(const clash_run *run, clash_run_totals *tot, int s, clash_step_stats *st, size_t ng,
                      clash_error *err)
{
    if (run) {
        const size_t wb = clash_run_work_bytes(run);
        if (wb > tot->work_bytes) tot->work_bytes = wb;
    }
    const clash_pairs none = {NULL, 0};
    st->hits = (int64_t)ng;
    if (clash_totals_add(tot, s, &none, st)) return clash_fail(err, CLASH_EFAIL, "out of memory");
    if (ng && tot->first_collision_step < 0) tot->first_collision_step = s, tot->first_collision = *st;
    return 0;
}

/* Every rank's figures for the report's section (a collective; rank 0
 * gets them all in *figs, malloc'd): objects owned and ghosted, faces held
 * (now and at most), bytes sent, peak resident set, time in the steps and
 * waiting, and its own counts `mine`.  Non-zero when out of memory. */
static int gather_figures(const clash_ranks *W, const clash_decomp *D, const epoch_log *L, uint64_t bytes,
                          double steps_s, double wait_s, const uint64_t mine[3], uint64_t **figs)
{
    uint64_t fig[F_NFIG] = {(uint64_t)D->nowned, (uint64_t)(D->npresent - D->nowned), (uint64_t)D->faces,
                            L->faces_max, bytes, (uint64_t)peak_rss(), 0, 0, mine[0], mine[1], mine[2]};
    memcpy(&fig[F_STEPS_S], &steps_s, sizeof steps_s);
    memcpy(&fig[F_WAIT_S], &wait_s, sizeof wait_s);
    int64_t nfig = 0;
    return clash_ranks_gather_u64(W, fig, F_NFIG, figs, &nfig);
}

/* Rank 0's one-line summary on stderr. */
static void print_summary(const clash_cli *cli, const clash_decomp *D, const clash_scene_desc *d,
                          const clash_config *cfg, const clash_run_totals *tot, int threads, int ranks)
{
    const clash_summary sum = {d->name ? d->name : "scene", D->nobj, (long long)D->gfofs[D->nobj], tot->steps_run,
                               cfg->mode == CLASH_MODE_SWEPT, cfg->self_collision,
                               (unsigned long long)tot->pairs_total, tot->first_collision_step, tot->steps_s,
                               tot->output_s, !!cli->pairs_path, threads, ranks};
    clash_summary_print(stderr, &sum);
}

int clash_cmd_run_decomposed(const clash_cli *cli, volatile sig_atomic_t *interrupted)
{
#ifdef __GLIBC__
    /* A rank's memory is the point of this mode: arrays of 1 MiB and more
     * are mapped on their own and go back to the system when freed.  By
     * default glibc raises that threshold as large blocks are freed (up to
     * 32 MiB), after which the parts' per-epoch arrays and the steps'
     * growing buffers come from the heap and stay resident, which raises the
     * largest rank's peak memory (bench/RESULTS.md). */
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
    clash_ranks world;
    clash_ranks_world(&world);
    const clash_ranks *W = &world;
    const int root = W->rank == 0;
    clash_error err = {0};
    clash_scene_desc d;
    memset(&d, 0, sizeof d);
    clash_decomp D;
    memset(&D, 0, sizeof D);
    clash_config cfg;
    int rc = load_plan(cli, W, &d, &D, &cfg, &err);
    const int threads = clash_sched_threads(cfg.threads);
    clash_outfile pairs_out = {0};
    if (!rc && cli->pairs_path && root && !(rc = clash_outfile_open(&pairs_out, cli->pairs_path, &err)))
        clash_pairs_csv_header(pairs_out.f);
    clash_pair *chunk = root ? malloc(CHUNK * sizeof *chunk) : NULL; /* rank 0: pairs on their way out */
    if (!rc && root && !chunk) rc = clash_fail(&err, CLASH_EFAIL, "out of memory");
    int code = clash_ranks_max_int(W, rc);
    if (code) {
        free(chunk);
        clash_outfile_abort(&pairs_out);
        clash_decomp_free(&D);
        clash_scene_desc_free(&d);
        const int st = clash_say_refusal(W, &err, rc); /* every rank is here: the same refusal printed once */
        return rc ? st : code;
    }
    if (pairs_out.tmp) snprintf(stop_tmp, sizeof stop_tmp, "%s", pairs_out.tmp);
    stop_flag = interrupted;
    signal(SIGINT, on_stop);
    signal(SIGTERM, on_stop);
    const int progress = root && !cli->quiet && (cli->progress == 1 || (cli->progress == -1 && isatty(2)));
    clash_run_totals tot;
    clash_totals_init(&tot);
    clash_scene *sc = NULL;
    clash_run *run = NULL;
    uint64_t *keys = NULL;
    size_t cap_keys = 0;
    uint64_t bytes = 0;
    double my_steps_s = 0, my_wait_s = 0;
    epoch_log L = {0, 0, 0, 0, 0, 0, 1};
    int s, stop_sig = 0;
    keep_ctx kc = {&D, 0};
    const double t0 = now();
    for (s = 1; s <= cfg.steps; ++s) {
        if (s == 1 || s > D.s1) { /* a new epoch: measure, maybe re-cut, build this rank's part */
            rc = epoch_start(cli, W, &D, &cfg, s, &L, &kc, &sc, &run, &err);
            if ((code = clash_ranks_max_int(W, rc))) goto fail;
        }
        const double ts = now();
        clash_pairs lp = {0};
        clash_step_stats st;
        memset(&st, 0, sizeof st);
        kc.s = s;
        if (run) rc = clash_step(run, s, &lp, &st, &err);
        size_t nk = 0;
        if (!rc) rc = reported_keys(&D, &lp, s, &keys, &cap_keys, &nk, &err);
        const double tw = now();
        L.epoch_s += tw - ts;
        /* one agreement a step: an error on any rank (code << 8), else a signal asking to stop */
        const int agreed = clash_ranks_max_int(W, rc ? rc << 8 : (int)(*interrupted & 0xff));
        if (agreed >= 256) { /* every rank stops here, with nothing written */
            code = agreed >> 8;
            goto fail;
        }
        if (agreed) {
            stop_sig = agreed; /* this step is not counted as done */
            break;
        }
        emit_ctx ec = {&D, s, &tot, pairs_out.f, chunk, 0, 0};
        if (clash_ranks_merge_u64(W, keys, (int64_t)nk, emit_rows, &ec)) {
            rc = pairs_out.f ? clash_fail(&err, CLASH_EFAIL, "%s: write failed", cli->pairs_path)
                             : clash_fail(&err, CLASH_EFAIL, "out of memory merging pairs");
            goto fail_alone;
        }
        if (!root) bytes += 8 * nk + sizeof(int64_t); /* the keys and their count */
        const size_t ng = ec.ng;
        const double write_s = ec.write_s;
        const double te = now();
        tot.steps_s += te - ts - write_s, my_steps_s += te - ts - write_s, my_wait_s += te - tw - write_s;
        tot.output_s += write_s;
        if ((rc = tally_step(run, &tot, s, &st, ng, &err))) goto fail_alone;
        if (progress)
            fprintf(stderr, "\rstep %d/%d, %llu pairs, %.1f s", s, cfg.steps, (unsigned long long)tot.pairs_total,
                    now() - t0);
        if (cfg.stop_at_first && clash_ranks_bcast_int(W, ng > 0)) break;
    }
    if (!stop_sig) epoch_end(W, &L); /* the last epoch's imbalance */
    tot.wall_s = now() - t0;
    if (progress) fputc('\n', stderr);
    uint64_t mine[3];
    totals_of_parts(W, &tot, &L.build_s, mine);
    uint64_t *figs = NULL;
    if (gather_figures(W, &D, &L, bytes, my_steps_s, my_wait_s, mine, &figs)) {
        rc = clash_fail(&err, CLASH_EFAIL, "out of memory");
        goto fail_alone;
    }
    if (stop_sig) {
        free(figs);
        rc = clash_fail(&err, CLASH_EFAIL, "interrupted after step %d of %d; no output written", s - 1, cfg.steps);
        if (root) say(W, &err);
        code = 128 + stop_sig;
        goto out;
    }
    if (root) {
        char *extra = section(cli, &D, figs, tot.steps_run, L.epochs, L.imb_max, L.epochs ? L.imb_sum / L.epochs : 1.0,
                              L.build_s);
        free(figs);
        stop_tmp[0] = 0; /* from here the file is the run's result */
        if ((rc = clash_outfile_commit(&pairs_out, &err))) {
            free(extra);
            goto fail_alone;
        }
        rc = write_report(cli, &D, &d, sc, &cfg, threads, W->size, &tot, extra, &err);
        free(extra);
        if (rc) goto fail_alone;
        if (!cli->quiet) print_summary(cli, &D, &d, &cfg, &tot, threads, W->size);
    }
    code = 0;
out:
    clash_outfile_abort(&pairs_out);
    clash_totals_free(&tot);
    free(keys), free(chunk);
    clash_run_destroy(run), clash_scene_destroy(sc);
    clash_decomp_free(&D);
    clash_scene_desc_free(&d);
    return code;
fail: /* agreed by every rank: each stops, the ones that failed say why (once when all alike) */
    {
        const int st = clash_say_refusal(W, &err, rc);
        if (rc) code = st;
    }
    goto out;
fail_alone: /* this rank alone, where the others may wait in a collective: end them all */
    say(W, &err);
    clash_outfile_abort(&pairs_out);
    clash_ranks_abort(W, rc);
    code = rc;
    goto out;
}
