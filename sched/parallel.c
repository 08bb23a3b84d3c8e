/*
 * parallel.c — SPMD on OpenMP or the pthreads pool, and the partitions and
 * strategies built on it.  See sched.h.
 *
 * The OpenMP backend is one `omp parallel` region per call; inside it each
 * worker computes its own share from its number, so the partition is explicit
 * and identical to the pool's.  Without OpenMP (-DCLASH_WITH_OPENMP=OFF) the
 * omp backend runs the team's shares one after another on the caller.
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

int clash_sched_cores(void)
{
#if defined(CPU_COUNT)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n > 0) return n;
    }
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int clash_sched_threads(int requested) { return requested > 0 ? requested : clash_sched_cores(); }

int clash_sched_backend_available(int backend)
{
    return backend == CLASH_BACKEND_OMP || (backend == CLASH_BACKEND_PTHREADS && clash_pool_spmd(0, NULL, NULL) == 0);
}

/* Per-worker busy time (clash_exec.worker_seconds): the worker's function
 * wrapped between two clock reads, added to the worker's own cache line. */
typedef struct timed_ctx {
    clash_spmd_fn fn;
    void *ctx;
    double *slots;
} timed_ctx;

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void timed_worker(int w, int T, void *p)
{
    const timed_ctx *tc = p;
    const double t0 = wall_now();
    tc->fn(w, T, tc->ctx);
    tc->slots[(size_t)w * (CLASH_CACHE_LINE / sizeof(double))] += wall_now() - t0;
}

void clash_spmd(const clash_exec *ex, clash_spmd_fn fn, void *ctx)
{
    const int T = ex->threads > 0 ? ex->threads : 1;
    timed_ctx tc;
    if (ex->worker_seconds) {
        tc = (timed_ctx){fn, ctx, ex->worker_seconds};
        fn = timed_worker, ctx = &tc;
    }
    if (T == 1) {
        fn(0, 1, ctx);
        return;
    }
    if (ex->backend == CLASH_BACKEND_PTHREADS && clash_pool_spmd(T, fn, ctx) == 0) return;
#if CLASH_HAVE_OPENMP
#pragma omp parallel num_threads(T)
    fn(omp_get_thread_num(), omp_get_num_threads(), ctx);
#else
    for (int w = 0; w < T; ++w) fn(w, T, ctx);
#endif
}

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
    clash_spmd(ex, task_worker, &c);
    return 0;
}
