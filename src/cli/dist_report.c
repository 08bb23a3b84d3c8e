/*
 * dist_report.c — the report's decomposition section (dist_report.h).
 *
 * Each rank tallies its own steps' statistics as they come (no message);
 * after the steps one gather brings every rank's figures to rank 0, which
 * writes two parts:
 *   decomposition:        the run's: ranks, cells' cuts, parts' rebuilds,
 *                         ghost copies (objects present on more than one
 *                         rank in the last step, each extra rank counted),
 *                         the faces' imbalance, the bytes sent per step,
 *                         the largest rank's peak resident set and wait;
 *   decomposition_ranks:  a line per rank: objects owned and present, faces
 *                         held, bytes sent, time in the steps and waiting,
 *                         its load (steps_s over the ranks' mean), its S1,
 *                         S3 and S4 counts, its peak resident set.
 * The run's cells, parts and messages are the library's (src/decomposed.c);
 * this file only reads what it reports.
 */
#include "cli/dist_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "clash_internal.h"

void clash_dist_tally_add(clash_dist_tally *t, const clash_step_stats *st, double step_s, int nobj, int64_t nf)
{
    const int one = st->ranks <= 1; /* a one-rank run: the whole scene is its part */
    t->owned = one ? nobj : st->dist_owned, t->present = one ? nobj : st->dist_present;
    t->faces = one ? nf : st->dist_faces;
    if (t->faces > t->faces_max) t->faces_max = t->faces;
    t->rebuilds = st->dist_rebuilds, t->cuts = st->dist_cuts;
    t->bytes += st->dist_bytes_sent;
    t->boxed += st->faces_boxed, t->kept += st->faces_kept, t->cand += st->candidates;
    t->steps_s += step_s, t->wait_s += st->seconds[CLASH_S6_GATHER];
    const double imb = one ? 1.0 : st->dist_imbalance;
    t->imb_max = fmax(t->imb_max, imb), t->imb_sum += imb;
    t->steps++;
}

static double peak_rss(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 ? 1024.0 * (double)ru.ru_maxrss : 0.0; /* Linux: KiB */
}

/* A rank's figures on the wire, in this order (doubles as their bits). */
enum { F_OWNED, F_PRESENT, F_FACES, F_FACES_MAX, F_REBUILDS, F_BYTES, F_BOXED, F_KEPT, F_CAND, F_RSS, F_STEPS_S,
       F_WAIT_S, F_N };

static double fig_d(const uint64_t *f, int k)
{
    double d;
    memcpy(&d, &f[k], sizeof d);
    return d;
}

/* Rank 0's lines from all R ranks' figures (malloc'd; NULL when out of memory). */
static char *section(const clash_dist_tally *t, const uint64_t *fig, int R, int nobj)
{
    const size_t cap = 1200 + 400 * (size_t)R;
    char *s = malloc(cap);
    if (!s) return NULL;
    const double n = t->steps > 0 ? t->steps : 1;
    double mean_t = 0, bytes_max = 0, bytes_sum = 0, rss_max = 0, wait_max = 0;
    int64_t present = 0, rebuilds = 0;
    for (int r = 0; r < R; ++r) {
        const uint64_t *f = &fig[(size_t)r * F_N];
        mean_t += fig_d(f, F_STEPS_S) / R, wait_max = fmax(wait_max, fig_d(f, F_WAIT_S));
        bytes_max = fmax(bytes_max, (double)f[F_BYTES]), bytes_sum += (double)f[F_BYTES];
        rss_max = fmax(rss_max, fig_d(f, F_RSS));
        present += (int64_t)f[F_PRESENT], rebuilds += (int64_t)f[F_REBUILDS];
    }
    size_t k = (size_t)snprintf(
        s, cap,
        "decomposition: {mode: objects, ranks: %d, states_from: owners, cuts: %lld, rebuilds: %lld, ghosts: %lld, "
        "imbalance_max: %.4g, imbalance_mean: %.4g, bytes_sent_per_step_max: %.0f, bytes_sent_per_step_total: %.0f, "
        "peak_rss_bytes_max: %.0f, wait_s_per_step_max: %.6g}\n"
        "decomposition_ranks:   # objects and faces: the last step's part (faces_max: the largest part's); "
        "imbalance: the most faces a part holds over the mean; bytes: boxes, states, pair keys and contacts sent; "
        "load: steps_s over the ranks' mean; faces_boxed, faces_kept, candidates: this rank's S1, S3, S4 counts over "
        "the steps; wait_s: the part of steps_s spent in the step's agreement and the merges on rank 0\n",
        R, (long long)t->cuts, (long long)rebuilds, (long long)(present > nobj ? present - nobj : 0), t->imb_max,
        t->steps ? t->imb_sum / t->steps : 1.0, bytes_max / n, bytes_sum / n, rss_max, wait_max / n);
    for (int r = 0; r < R && k < cap; ++r) {
        const uint64_t *f = &fig[(size_t)r * F_N];
        const double st = fig_d(f, F_STEPS_S);
        k += (size_t)snprintf(s + k, cap - k,
                              "  - {rank: %d, objects_owned: %llu, objects_present: %llu, faces: %llu, faces_max: %llu, "
                              "rebuilds: %llu, bytes_sent: %llu, bytes_sent_per_step: %.0f, steps_s: %.6g, wait_s: %.6g, "
                              "load: %.3f, faces_boxed: %llu, faces_kept: %llu, candidates: %llu, peak_rss_bytes: %.0f}\n",
                              r, (unsigned long long)f[F_OWNED], (unsigned long long)f[F_PRESENT],
                              (unsigned long long)f[F_FACES], (unsigned long long)f[F_FACES_MAX],
                              (unsigned long long)f[F_REBUILDS], (unsigned long long)f[F_BYTES], (double)f[F_BYTES] / n,
                              st, fig_d(f, F_WAIT_S), mean_t > 0 ? st / mean_t : 1.0, (unsigned long long)f[F_BOXED],
                              (unsigned long long)f[F_KEPT], (unsigned long long)f[F_CAND], fig_d(f, F_RSS));
    }
    return s;
}

char *clash_dist_section(const clash_dist_tally *t, int nobj, int *oom)
{
    uint64_t mine[F_N] = {(uint64_t)t->owned, (uint64_t)t->present, (uint64_t)t->faces, (uint64_t)t->faces_max,
                          (uint64_t)t->rebuilds, (uint64_t)t->bytes, (uint64_t)t->boxed, (uint64_t)t->kept,
                          (uint64_t)t->cand};
    const double d[3] = {peak_rss(), t->steps_s, t->wait_s};
    memcpy(&mine[F_RSS], d, sizeof d);
    /* every rank's figures to every rank (a few words a rank, once a run) */
    const int R = clash_internal_nranks();
    uint64_t *all = malloc(sizeof(uint64_t) * F_N * (size_t)R);
    int64_t *got = malloc(sizeof(int64_t) * F_N * (size_t)R);
    *oom = !all || !got;
    if (clash_internal_ranks_any(*oom)) { /* (agreed: the others would wait in the gather) */
        free(all), free(got);
        return NULL;
    }
    int64_t mine_i[F_N];
    memcpy(mine_i, mine, sizeof mine_i);
    clash_internal_ranks_allgather_i64(mine_i, F_N, got);
    memcpy(all, got, sizeof(uint64_t) * F_N * (size_t)R);
    free(got);
    if (clash_internal_rank() != 0) {
        free(all);
        return NULL;
    }
    char *s = section(t, all, R, nobj);
    free(all);
    *oom = !s;
    return s;
}
