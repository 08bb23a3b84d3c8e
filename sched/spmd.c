/*
 * spmd.c — SPMD on OpenMP or a pthreads pool (pool.c): a team of workers
 * each running fn(worker, nworkers, ctx), with each worker's busy time
 * added to its slot; and the team size from the cores of the binding.
 * Every partition and strategy of parallel.c and strategies.c is built on it.
 *
 * The OpenMP backend is one `omp parallel` region per call; inside it each
 * worker computes its own share from its number, so the partition is explicit
 * and identical to the pool's.  Without OpenMP (-DCLASH_WITH_OPENMP=OFF) the
 * omp backend runs the team's shares one after another on the caller.  The
 * pthreads backend uses the execution descriptor's pool (a run's own); when
 * that pool is busy (a nested call) the team runs on the omp backend, and
 * without a pool a team is started and joined for the call.
 */
#include "sched/sched.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
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

/* With OMP_PROC_BIND set, libgomp binds the initial thread to the first
 * place as the program starts, so this process's mask shrinks to one core
 * and every run a bench suite starts (system(), fork) inherits it: a scaling
 * study would time all its thread counts on one core.  The places list was
 * built from the mask the process started with, so their union gives that
 * mask back; nothing changes without places, or where the union is empty. */
void clash_sched_unbind_initial(void)
{
#if CLASH_HAVE_OPENMP && defined(CPU_COUNT)
    const int np = omp_get_num_places();
    if (np <= 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int p = 0; p < np; ++p) {
        const int k = omp_get_place_num_procs(p);
        if (k <= 0) continue;
        int *ids = malloc(sizeof *ids * (size_t)k);
        if (!ids) return;
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < k; ++i)
            if (ids[i] >= 0 && ids[i] < CPU_SETSIZE) CPU_SET(ids[i], &set);
        free(ids);
    }
    if (CPU_COUNT(&set) > 0) (void)sched_setaffinity(0, sizeof set, &set);
#endif
}

int clash_sched_threads(int requested) { return requested > 0 ? requested : clash_sched_cores(); }

int clash_sched_backend_available(int backend)
{
    return backend == CLASH_BACKEND_OMP || backend == CLASH_BACKEND_PTHREADS;
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
    /* Worker times only for a team that runs as one: a team of one, or the
     * shares of small work run in turn on the caller, is the caller's own
     * serial time (the stage's), and its two clock reads a worker cost more
     * than such a share (a measurable part of a step of two small meshes). */
    if (ex->worker_seconds && T > 1 && !ex->inline_team) {
        tc = (timed_ctx){fn, ctx, ex->worker_seconds};
        fn = timed_worker, ctx = &tc;
    }
    if (T == 1) {
        fn(0, 1, ctx);
        return;
    }
    if (ex->inline_team) { /* small work (clash_exec_sized): the shares in turn, on the caller */
        for (int w = 0; w < T; ++w) fn(w, T, ctx);
        return;
    }
    if (ex->backend == CLASH_BACKEND_PTHREADS) {
        if (ex->pool) {
            if (clash_pool_run(ex->pool, T, fn, ctx) == 0) return;
        } else { /* no pool of its own: a team for this call only */
            clash_pool *p = clash_pool_create(T);
            const int rc = clash_pool_run(p, T, fn, ctx);
            clash_pool_destroy(p);
            if (rc == 0) return;
        }
    }
#if CLASH_HAVE_OPENMP
#pragma omp parallel num_threads(T)
    fn(omp_get_thread_num(), omp_get_num_threads(), ctx);
#else
    for (int w = 0; w < T; ++w) fn(w, T, ctx);
#endif
}
