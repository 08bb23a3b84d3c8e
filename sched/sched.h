/*
 * sched.h — how work is divided and run.  Knows nothing of geometry.
 *
 * Everything rests on one primitive, SPMD: run fn(worker, nworkers, ctx) on
 * every worker of a team, on the backend of the execution descriptor
 * (OpenMP, or a persistent pthreads pool of pool.c, one per run), and return
 * when all are done.  Partitions and strategies are arithmetic on top of it, so they
 * behave the same on every backend.
 *
 * A loop body sees a range of items as (begin, end, step) and the number of
 * the worker running it, so per-worker results can go into padded slots:
 *
 *     for (int64_t i = begin; i < end; i += step) ...
 *
 * Fine grain (clash_par_for): the items are split once by a partition.
 *   chunk : worker w of T takes the contiguous block [w*n/T, (w+1)*n/T)
 *           (or, with chunk_size > 0, blocks of chunk_size dealt round-robin).
 *   stride: worker w takes w, w+T, w+2T, ...  (begin = w, step = T).
 * Coarse grain (clash_par_tasks): units of uneven cost handed out by a
 * strategy (clash_schedule): static chunk, static stride (the report's SPMD,
 * [Smith94] §4.4.1), dynamic (batches of `batch` units from a shared atomic counter),
 * producer-consumer and work stealing (strategies.c).
 *
 * Callers never depend on which worker ran what: results are merged in a
 * fixed order afterwards, so output is the same for any team and strategy.
 */
#ifndef CLASH_SCHED_H
#define CLASH_SCHED_H

#include <stdint.h>

#include "base/tuning.h"

#define CLASH_CACHE_LINE 64

typedef struct clash_pool clash_pool;

typedef struct clash_exec {
    int backend;        /* clash_backend */
    int threads;        /* team size, >= 1 */
    int partition;      /* clash_partition, for clash_par_for */
    int64_t chunk;      /* fine-grain block size (0: one block per worker) */
    int schedule;       /* clash_schedule, for clash_par_tasks */
    int64_t batch;      /* dynamic: units per grab (0: a default) */
    double *worker_seconds; /* optional per-worker busy-time slots, one cache line
                               (CLASH_CACHE_LINE/sizeof(double) doubles) per worker:
                               clash_spmd adds each worker's time to its slot (a team
                               of one or an inline team adds nothing: serial time) */
    clash_pool *pool;   /* the pthreads backend's workers (a run's own pool); NULL: a team
                           started and joined for the call */
    int inline_team;    /* 1: clash_spmd runs the team's shares one after another on the
                           calling thread (worker 0, then 1, ...): work too small to pay
                           for waking a team.  Set by clash_exec_sized, and by
                           clash_par_tasks for a dynamic schedule of one batch. */
} clash_exec;

/* Small work runs on the caller.  Waking a team of 2 and joining it costs
 * microseconds (more when the other core is busy), which is the whole step
 * on two 968-face meshes; below CLASH_SMALL_WORK items of the
 * cheapest kind (a vertex, a face box, a face culled) a team is not woken.
 * Every worker's share is still run, with the team's worker numbers, so
 * results and per-worker layouts are those of the team.  The threshold,
 * CLASH_TUNE_SMALL_WORK, says in base/tuning.h how it was chosen. */
enum { CLASH_SMALL_WORK = CLASH_TUNE_SMALL_WORK };
static inline clash_exec clash_exec_sized(const clash_exec *ex, int64_t work)
{
    clash_exec e = *ex;
    if (work < CLASH_SMALL_WORK) e.inline_team = 1;
    return e;
}

typedef void (*clash_spmd_fn)(int worker, int nworkers, void *ctx);
typedef void (*clash_range_fn)(int64_t begin, int64_t end, int64_t step, int worker, void *ctx);

/* Worker count for a request (<= 0: every core the process may run on). */
int clash_sched_threads(int requested);
/* Cores the process may run on. */
int clash_sched_cores(void);
/* Gives this process back the CPUs of all its OpenMP places (OMP_PROC_BIND binds the
 * initial thread to one place at start): for a program that starts timed runs as children. */
void clash_sched_unbind_initial(void);
/* 1 when the backend exists in this build. */
int clash_sched_backend_available(int backend);

/* Runs fn on every worker of the team. */
void clash_spmd(const clash_exec *ex, clash_spmd_fn fn, void *ctx);

/* Fine grain: n items split by ex->partition / ex->chunk. */
void clash_par_for(const clash_exec *ex, int64_t n, clash_range_fn fn, void *ctx);
/* clash_par_for, except under the default partition (chunk, no chunk
 * size): blocks of `block` items handed out as the workers ask, so that a
 * worker on a slowed CPU takes fewer instead of holding the loop for its
 * fixed share.  For loops whose items do not depend on who ran them; an
 * explicit chunk size or stride keeps its static shares (the partition
 * study). */
void clash_par_for_blocks(const clash_exec *ex, int64_t n, int64_t block, clash_range_fn fn, void *ctx);

/* Coarse grain: n units handed out by ex->schedule, `batch` overriding
 * ex->batch when > 0.  Returns -1 for a strategy this build does not have. */
int clash_par_tasks(const clash_exec *ex, int64_t n, int64_t batch, clash_range_fn fn, void *ctx);

/* Coarse grain, one item a unit: fn(ctx, i) for every i of [0, n) (each
 * object's tree, say, of uneven cost).  0 when every call returned 0; -1
 * when one did not (the others still ran) or the strategy is missing. */
typedef int (*clash_item_fn)(void *ctx, int64_t i);
int clash_par_each(const clash_exec *ex, int64_t n, clash_item_fn fn, void *ctx);

/* The persistent pthreads pool (pool.c): `threads` workers, the calling
 * thread being worker 0 and the pool holding 1..threads-1 (NULL when they
 * cannot be started).  clash_pool_run runs fn on the first `threads` workers
 * (at most the pool's team); it returns -1 when the pool is busy (another
 * thread's call, or a nested call from a worker) or too small, and the caller
 * then runs the team another way.  Destroy joins the workers. */
clash_pool *clash_pool_create(int threads);
void clash_pool_destroy(clash_pool *p);
int clash_pool_threads(const clash_pool *p);
int clash_pool_run(clash_pool *p, int threads, clash_spmd_fn fn, void *ctx);

/* Coarse-grain strategies beyond a shared counter (strategies.c); return -1
 * when out of memory.  Work stealing: per-worker deques of unit ranges. */
int clash_tasks_stealing(const clash_exec *ex, int64_t n, int64_t batch, clash_range_fn fn, void *ctx);
/* Producer-consumer over n units: worker 0 pushes batches, the others
 * consume; the producer joins them when done. */
int clash_tasks_prodcons(const clash_exec *ex, int64_t n, int64_t batch, clash_range_fn fn, void *ctx);
/* General producer-consumer ([Smith94] §4.4.2): worker 0 runs produce(), which
 * calls clash_pcq_push() for each item; workers 1..T-1 (and worker 0 once
 * produce() returns) call consume(item, worker, ctx).  The ring holds at
 * most `capacity` items; a push into a full ring consumes the oldest item
 * on the producer. */
typedef struct clash_pcq clash_pcq;
typedef void (*clash_produce_fn)(clash_pcq *q, void *ctx);
typedef void (*clash_consume_fn)(void *item, int worker, void *ctx);
int clash_pcq_push(clash_pcq *q, void *item);
int clash_par_prodcons(const clash_exec *ex, int capacity, clash_produce_fn produce, clash_consume_fn consume,
                       void *ctx);

#endif
