/*
 * sched.h — how work is divided and run.  Knows nothing of geometry.
 *
 * A loop body sees a range of items as (begin, end, step) and the number of
 * the worker running it, so per-worker results can go into padded slots:
 *
 *     for (int64_t i = begin; i < end; i += step) ...
 *
 * Fine grain (clash_par_for): the items are split once by a partition.
 *   chunk : worker w of T takes the contiguous block [w*n/T, (w+1)*n/T).
 *   stride: worker w takes w, w+T, w+2T, ...  (begin = w, step = T).
 * Coarse grain (clash_par_tasks): units of uneven cost handed out by a
 * strategy: static chunk, static stride (the report's SPMD), or dynamic
 * (workers take batches of `batch` units from a shared atomic counter).
 *
 * Threads come from OpenMP when the build has it; without OpenMP every loop
 * runs serially on worker 0 (same results: callers never depend on which
 * worker ran what).
 */
#ifndef CLASH_SCHED_H
#define CLASH_SCHED_H

#include <stdint.h>

#define CLASH_CACHE_LINE 64

typedef void (*clash_range_fn)(int64_t begin, int64_t end, int64_t step, int worker, void *ctx);

/* Worker count for a request (<= 0: every core the process may run on). */
int clash_sched_threads(int requested);
/* Cores the process may run on. */
int clash_sched_cores(void);

/* partition: 0 chunk, 1 stride (clash_partition).  chunk_size > 0 with the
 * stride partition deals blocks of chunk_size round-robin instead of single items. */
void clash_par_for(int64_t n, int threads, int partition, int64_t chunk_size, clash_range_fn fn, void *ctx);

/* schedule: clash_schedule (static-chunk, static-stride, dynamic).  Returns
 * -1 for a strategy this build does not have. */
int clash_par_tasks(int64_t n, int threads, int schedule, int64_t batch, clash_range_fn fn, void *ctx);

#endif
