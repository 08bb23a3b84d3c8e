/*
 * summary.c — the run summary of `clash run` (see summary.h).
 *
 * The time per step is the time spent in the steps (clash_step: the stages
 * S0-S6 and their hand-offs) divided by the steps run; writing the pairs
 * CSV, the VTK series, the per-step CSV and committing them is counted
 * apart as "outputs", so that a run with --vtk reports the same per-step
 * time as one without.  Durations of a second or more are given in
 * seconds, shorter ones in milliseconds, three significant digits.
 * A refusal under MPI is printed once when every rank met the same one.
 */
#include "cli/summary.h"

#include "clash_internal.h"

#include <limits.h>
#include <stdint.h>

/* FNV-1a of the message, folded into a positive int: equal messages give equal numbers, and
 * ranks compare the numbers (max and min over the failing ranks) instead of the text. */
static int msg_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; ++s) h = (h ^ (unsigned char)*s) * 16777619u;
    return (int)(h & 0x7fffffff);
}

int clash_say_refusal(const clash_error *err, int rc)
{
    const int code = rc ? (err->code ? err->code : rc) : 0;
    const int rank = clash_internal_rank();
    if (clash_internal_nranks() <= 1) {
        if (rc) fprintf(stderr, "clash: error: %s\n", err->msg);
        return code;
    }
    const int h = rc ? msg_hash(err->msg) : 0;
    const int all = clash_internal_ranks_max_int(rc ? 0 : 1) == 0;     /* every rank failed */
    const int hi = clash_internal_ranks_max_int(rc ? h : -1);
    const int lo = -clash_internal_ranks_max_int(rc ? -h : INT_MIN + 1); /* min over the failing ranks */
    if (all && hi == lo) {
        if (rank == 0) fprintf(stderr, "clash: error: %s\n", err->msg);
    } else if (rc) {
        fprintf(stderr, "clash: error: rank %d: %s\n", rank, err->msg);
    }
    return code;
}

const char *clash_plural(char *buf, size_t n, long long count, const char *noun)
{
    snprintf(buf, n, "%lld %s%s", count, noun, count == 1 ? "" : "s");
    return buf;
}

const char *clash_duration(char *buf, size_t n, double seconds)
{
    if (seconds >= 0.9995) snprintf(buf, n, "%.3g s", seconds); /* from here %.3g of the milliseconds is "1e+03" */
    else snprintf(buf, n, "%.3g ms", 1e3 * seconds);
    return buf;
}

void clash_summary_print(FILE *f, const clash_summary *s)
{
    char a[64], b[64], c[64], d[64];
    fprintf(f, "%s: %s, %s, %s (%s%s), %s", s->scene, clash_plural(a, sizeof a, s->objects, "object"),
            clash_plural(b, sizeof b, s->faces, "face"), clash_plural(c, sizeof c, s->steps, "step"),
            s->swept ? "swept" : "static", s->self ? ", self" : "",
            clash_plural(d, sizeof d, (long long)s->pairs, "colliding pair"));
    if (s->first_collision >= 0) fprintf(f, ", first at step %d", s->first_collision);
    fprintf(f, "; %s per step on ", clash_duration(a, sizeof a, s->steps_s / (s->steps > 0 ? s->steps : 1)));
    if (s->ranks > 1) fprintf(f, "%s x ", clash_plural(b, sizeof b, s->ranks, "rank"));
    fprintf(f, "%s", clash_plural(c, sizeof c, s->threads, "thread"));
    if (s->outputs) fprintf(f, "; outputs written in %s", clash_duration(d, sizeof d, s->output_s));
    fputc('\n', f);
}
