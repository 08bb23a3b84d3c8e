/*
 * stream.c — STREAM-like copy (a = b) and triad (a = b + s*c) bandwidth,
 * run with the chunk partition on a team of the given backend and size
 * (clash_internal_team_for).  The arrays are first touched in
 * parallel by the same partition (first-touch placement), one warm-up run is
 * discarded, and the median of the timed runs is reported.  As in STREAM,
 * bytes are counted as the arrays named in the loop (copy 16 B, triad 24 B per
 * element); write-allocate traffic is not counted, exactly as it is not
 * counted for the box pipelines that are compared against it.
 */
#include "bench/stream.h"

#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "clash/clash.h"
#include "clash_internal.h"

typedef struct stream_ctx {
    double *a, *b, *c;
    double s;
    int op; /* 0 init, 1 copy, 2 triad */
} stream_ctx;

static void stream_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker, (void)step; /* chunk partition: step 1 */
    stream_ctx *x = p;
    double *restrict a = x->a;
    const double *restrict b = x->b, *restrict c = x->c;
    const double s = x->s;
    if (x->op == 0) {
        for (int64_t i = begin; i < end; ++i) x->a[i] = 1.0, x->b[i] = 2.0, x->c[i] = 0.5;
    } else if (x->op == 1) {
        for (int64_t i = begin; i < end; ++i) a[i] = b[i];
    } else {
        for (int64_t i = begin; i < end; ++i) a[i] = b[i] + s * c[i];
    }
}

static int cmp_double(const void *x, const void *y)
{
    const double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

double clash_bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int clash_stream_run(int backend, int threads, size_t n, int reps, clash_stream_result *out)
{
    clash_internal_team *team = clash_internal_team_create(backend, threads, CLASH_PART_CHUNK, 0, 0);
    stream_ctx x = {aligned_alloc(64, n * 8), aligned_alloc(64, n * 8), aligned_alloc(64, n * 8), 3.0, 0};
    double *tc = malloc((size_t)reps * sizeof *tc), *tt = malloc((size_t)reps * sizeof *tt);
    if (!team || !x.a || !x.b || !x.c || !tc || !tt) {
        clash_internal_team_destroy(team);
        free(x.a), free(x.b), free(x.c), free(tc), free(tt);
        return -1;
    }
    clash_internal_team_for(team, (int64_t)n, stream_range, &x);
    for (int r = -1; r < reps; ++r) {
        x.op = 1;
        double t0 = clash_bench_now();
        clash_internal_team_for(team, (int64_t)n, stream_range, &x);
        double t1 = clash_bench_now();
        x.op = 2;
        clash_internal_team_for(team, (int64_t)n, stream_range, &x);
        double t2 = clash_bench_now();
        if (r >= 0) tc[r] = 16.0 * (double)n / (t1 - t0) * 1e-9, tt[r] = 24.0 * (double)n / (t2 - t1) * 1e-9;
    }
    out->copy_gbs = clash_bench_median(tc, reps);
    out->triad_gbs = clash_bench_median(tt, reps);
    out->copy_max_gbs = tc[reps - 1];
    out->triad_max_gbs = tt[reps - 1];
    clash_internal_team_destroy(team);
    free(x.a), free(x.b), free(x.c), free(tc), free(tt);
    return 0;
}
