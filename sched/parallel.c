/*
 * parallel.c — the OpenMP backend of sched.h, with its serial fallback.
 *
 * One `omp parallel` region per loop; inside it each worker computes its own
 * share from its number, so the partition is explicit and identical for any
 * backend that implements the same arithmetic.
 */
#include "sched/sched.h"

#include <sched.h>
#include <stdatomic.h>
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

int clash_sched_threads(int requested)
{
#if CLASH_HAVE_OPENMP
    return requested > 0 ? requested : clash_sched_cores();
#else
    (void)requested;
    return 1;
#endif
}

static void share(int64_t n, int w, int T, int partition, int64_t chunk, clash_range_fn fn, void *ctx)
{
    if (partition == CLASH_PART_STRIDE) {
        if (chunk <= 1) {
            fn(w, n, T, w, ctx);
        } else {
            for (int64_t b = (int64_t)w * chunk; b < n; b += (int64_t)T * chunk)
                fn(b, b + chunk < n ? b + chunk : n, 1, w, ctx);
        }
    } else {
        const int64_t b = n * w / T, e = n * (w + 1) / T;
        if (b < e) fn(b, e, 1, w, ctx);
    }
}

void clash_par_for(int64_t n, int threads, int partition, int64_t chunk_size, clash_range_fn fn, void *ctx)
{
    if (n <= 0) return;
    int T = threads > 0 ? threads : 1;
    if (T == 1) {
        fn(0, n, 1, 0, ctx);
        return;
    }
#if CLASH_HAVE_OPENMP
#pragma omp parallel num_threads(T)
    {
        const int w = omp_get_thread_num(), nt = omp_get_num_threads();
        share(n, w, nt, partition, chunk_size, fn, ctx);
    }
#else
    share(n, 0, 1, partition, chunk_size, fn, ctx);
#endif
}

int clash_par_tasks(int64_t n, int threads, int schedule, int64_t batch, clash_range_fn fn, void *ctx)
{
    if (schedule != CLASH_SCHED_STATIC_CHUNK && schedule != CLASH_SCHED_STATIC_STRIDE &&
        schedule != CLASH_SCHED_DYNAMIC)
        return -1;
    if (n <= 0) return 0;
    int T = threads > 0 ? threads : 1;
    if (T == 1) {
        fn(0, n, 1, 0, ctx);
        return 0;
    }
    if (batch <= 0) batch = 64;
    _Atomic int64_t next = 0;
#if CLASH_HAVE_OPENMP
#pragma omp parallel num_threads(T)
    {
        const int w = omp_get_thread_num(), nt = omp_get_num_threads();
#else
    {
        const int w = 0, nt = 1;
#endif
        if (schedule == CLASH_SCHED_DYNAMIC) {
            for (;;) {
                int64_t b = atomic_fetch_add_explicit(&next, batch, memory_order_relaxed);
                if (b >= n) break;
                fn(b, b + batch < n ? b + batch : n, 1, w, ctx);
            }
        } else {
            share(n, w, nt, schedule == CLASH_SCHED_STATIC_STRIDE ? CLASH_PART_STRIDE : CLASH_PART_CHUNK, 1, fn,
                  ctx);
        }
    }
    return 0;
}
