/*
 * parallel.c — the partitions and strategies built on SPMD (spmd.c): the
 * fine-grain loop clash_par_for (chunk or stride) and the coarse-grain task
 * distribution clash_par_tasks, which runs static chunk, static stride and
 * dynamic here and hands stealing and producer-consumer to strategies.c.
 * See sched.h.
 */
#include "sched/sched.h"

#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "clash/clash.h"

#if CLASH_HAVE_OPENMP
#include <omp.h>
#endif

/* ---- fine grain ------------------------------------------------------------------ */

typedef struct for_ctx {
    int64_t n, chunk;
    int partition;
    clash_range_fn fn;
    void *ctx;
} for_ctx;

static void share(int64_t n, int w, int T, int partition, int64_t chunk, clash_range_fn fn, void *ctx)
{
    if (chunk > 0) { /* blocks of `chunk` dealt round-robin */
        for (int64_t b = (int64_t)w * chunk; b < n; b += (int64_t)T * chunk) fn(b, b + chunk < n ? b + chunk : n, 1, w, ctx);
    } else if (partition == CLASH_PART_STRIDE) {
        if (w < n) fn(w, n, T, w, ctx);
    } else {
        const int64_t b = n * w / T, e = n * (w + 1) / T;
        if (b < e) fn(b, e, 1, w, ctx);
    }
}

static void for_worker(int w, int T, void *p)
{
    const for_ctx *c = p;
    share(c->n, w, T, c->partition, c->chunk, c->fn, c->ctx);
}

void clash_par_for(const clash_exec *ex, int64_t n, clash_range_fn fn, void *ctx)
{
    if (n <= 0) return;
    for_ctx c = {n, ex->chunk, ex->partition, fn, ctx};
    clash_spmd(ex, for_worker, &c);
}

void clash_par_for_blocks(const clash_exec *ex, int64_t n, int64_t block, clash_range_fn fn, void *ctx)
{
    if (ex->partition != CLASH_PART_CHUNK || ex->chunk != 0) {
        clash_par_for(ex, n, fn, ctx);
        return;
    }
    clash_exec d = *ex;
    d.schedule = CLASH_SCHED_DYNAMIC;
    clash_par_tasks(&d, n, block, fn, ctx);
}

/* ---- coarse grain ---------------------------------------------------------------- */

typedef struct task_ctx {
    int64_t n, batch;
    int schedule;
    clash_range_fn fn;
    void *ctx;
    _Alignas(CLASH_CACHE_LINE) _Atomic int64_t next;
} task_ctx;

static void task_worker(int w, int T, void *p)
{
    task_ctx *c = p;
    if (c->schedule == CLASH_SCHED_DYNAMIC) {
        for (;;) {
            const int64_t b = atomic_fetch_add_explicit(&c->next, c->batch, memory_order_relaxed);
            if (b >= c->n) break;
            c->fn(b, b + c->batch < c->n ? b + c->batch : c->n, 1, w, c->ctx);
        }
    } else {
        share(c->n, w, T, c->schedule == CLASH_SCHED_STATIC_STRIDE ? CLASH_PART_STRIDE : CLASH_PART_CHUNK, 0, c->fn,
              c->ctx);
    }
}

int clash_par_tasks(const clash_exec *ex, int64_t n, int64_t batch, clash_range_fn fn, void *ctx)
{
    const int s = ex->schedule;
    if (s < CLASH_SCHED_STATIC_CHUNK || s > CLASH_SCHED_STEALING) return -1;
    if (n <= 0) return 0;
    if (s == CLASH_SCHED_STEALING) return clash_tasks_stealing(ex, n, batch > 0 ? batch : ex->batch, fn, ctx);
    if (s == CLASH_SCHED_PRODUCER_CONSUMER)
        return clash_tasks_prodcons(ex, n, batch > 0 ? batch : (ex->batch > 0 ? ex->batch : 64), fn, ctx);
    task_ctx c = {.n = n, .batch = batch > 0 ? batch : (ex->batch > 0 ? ex->batch : 64), .schedule = s, .fn = fn,
                  .ctx = ctx};
    atomic_init(&c.next, 0);
    clash_exec e = *ex;
    if (s == CLASH_SCHED_DYNAMIC && n <= c.batch) e.inline_team = 1; /* one batch: one worker would take it */
    clash_spmd(&e, task_worker, &c);
    return 0;
}

typedef struct each_ctx {
    clash_item_fn fn;
    void *ctx;
    atomic_int failed;
} each_ctx;

static void each_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    each_ctx *c = p;
    for (int64_t i = begin; i < end; i += step)
        if (c->fn(c->ctx, i)) atomic_store_explicit(&c->failed, 1, memory_order_relaxed);
}

int clash_par_each(const clash_exec *ex, int64_t n, clash_item_fn fn, void *ctx)
{
    each_ctx c = {.fn = fn, .ctx = ctx};
    atomic_init(&c.failed, 0);
    if (clash_par_tasks(ex, n, 1, each_range, &c)) return -1;
    return atomic_load(&c.failed) ? -1 : 0;
}
