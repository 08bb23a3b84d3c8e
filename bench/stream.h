/*
 * stream.h — a STREAM-like bandwidth kernel (copy and triad over double
 * arrays far larger than the last-level cache), run on clash's own thread
 * backends so the pipelines' GB/s can be set against this machine's
 * streaming bandwidth measured in the same run.
 */
#ifndef CLASH_BENCH_STREAM_H
#define CLASH_BENCH_STREAM_H

#include <stddef.h>


typedef struct clash_stream_result {
    double copy_gbs, triad_gbs;      /* median over repetitions */
    double copy_max_gbs, triad_max_gbs;
} clash_stream_result;

/* n doubles per array (3 arrays), reps timed repetitions after one warm-up,
 * on a team of `threads` of the clash_backend `backend` (chunk partition).
 * Bytes counted as STREAM does: copy 16 n, triad 24 n (no write-allocate).
 * Returns -1 when out of memory. */
int clash_stream_run(int backend, int threads, size_t n, int reps, clash_stream_result *out);

/* Median of n values (sorts v). */
double clash_bench_median(double *v, int n);

#endif
