/*
 * pool.c — the persistent pthreads pool behind `--backend pthreads`.
 *
 * A pool is an object: a run creates its own (clash_run_create) with the
 * run's team size, and every parallel call of the run's stages reuses its
 * threads, so no thread is created per step; destroying the run stops and
 * joins them.  Nothing is process-wide, so two runs in two host threads each
 * drive their own workers at the same time.  The calling thread is worker 0;
 * the pool holds workers 1..T-1.
 *
 * One call, "SPMD": the n worker numbers are slots that any thread of the
 * team may claim, so nobody waits for a thread the machine has not run:
 *   caller: publish (fn, ctx, n), pending = n-1, generation++, wake workers,
 *           run fn(0, n, ctx), then claim the slots still free and run them
 *           too, then wait until pending == 0 (the slots others claimed)
 *   worker: wait for the generation to change, then claim free slots of
 *           that generation and run fn(slot, n, ctx), pending-- each
 * A claim is one compare-and-swap on a word holding the generation and the
 * next free slot, so a worker that wakes late (its core given to another
 * process) finds the slots of its generation taken, or a newer generation,
 * and claims nothing: with the pool's threads busy or descheduled a call
 * costs what one thread's work costs, not a scheduler's time slice per
 * call (under CPU contention, waiting for a descheduled worker made a
 * small step at 2 threads far slower than at 1).  Every slot still runs
 * exactly once with its own number, so per-worker results stay where the
 * caller expects them; a slot's function must not wait for another slot
 * (none does: the strategies' queues let the producer, slot 0, consume).
 * Waiting first spins briefly on the atomic generation / pending counters
 * (a stage of a step takes microseconds to milliseconds, and waking a
 * sleeping thread costs tens of microseconds), then sleeps on a condition
 * variable so idle workers do not burn a core the machine may need.  The
 * publish and the sleep both take the mutex, so no wake-up is lost.
 *
 * Calls on one pool are serialised by a lock (one team at a time).  A call
 * that finds the pool busy, whether from another thread or from inside one of
 * its own workers (a nested call), returns -1 at once instead of waiting, and
 * the caller (clash_spmd) runs the team on its other backend rather than
 * deadlocking.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sched.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

enum { SPIN_ITERS = 4000 };

typedef struct worker_arg {
    struct clash_pool *pool;
    int w;
    unsigned long gen0;      /* generation when the worker was created: it waits for the next */
} worker_arg;

struct clash_pool {
    pthread_mutex_t call_mu; /* held for a whole call */
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    pthread_t *tid;
    worker_arg *args;
    int team;                /* workers running, the caller included (1: none) */
    int quit;
    clash_spmd_fn fn;
    void *ctx;
    int n;                   /* workers taking part in the current call */
    _Alignas(CLASH_CACHE_LINE) atomic_ulong gen;
    _Alignas(CLASH_CACHE_LINE) atomic_int pending;
    _Alignas(CLASH_CACHE_LINE) atomic_ullong claim; /* generation << 16 | next free slot */
};

/* Claims a free slot of generation g (n slots), or returns -1. */
static int claim_slot(clash_pool *P, unsigned long g, int n)
{
    unsigned long long c = atomic_load_explicit(&P->claim, memory_order_acquire);
    for (;;) {
        if (c >> 16 != (g & 0xffffffffffffULL) || (int)(c & 0xffff) >= n) return -1;
        if (atomic_compare_exchange_weak_explicit(&P->claim, &c, c + 1, memory_order_acq_rel, memory_order_acquire))
            return (int)(c & 0xffff);
    }
}

/* Runs slot k and counts it done. */
static void run_slot(clash_pool *P, clash_spmd_fn fn, void *ctx, int k, int n)
{
    fn(k, n, ctx);
    if (atomic_fetch_sub_explicit(&P->pending, 1, memory_order_acq_rel) == 1) {
        pthread_mutex_lock(&P->mu);
        pthread_cond_signal(&P->done);
        pthread_mutex_unlock(&P->mu);
    }
}

static void *worker_main(void *arg)
{
    const worker_arg *a = arg;
    clash_pool *P = a->pool;
    unsigned long seen = a->gen0;
    for (;;) {
        unsigned long g = seen;
        for (int i = 0; i < SPIN_ITERS && (g = atomic_load_explicit(&P->gen, memory_order_acquire)) == seen; ++i)
            cpu_relax();
        pthread_mutex_lock(&P->mu);
        while ((g = atomic_load_explicit(&P->gen, memory_order_acquire)) == seen && !P->quit)
            pthread_cond_wait(&P->go, &P->mu);
        const int quit = P->quit;
        const clash_spmd_fn fn = P->fn;
        void *ctx = P->ctx;
        const int n = P->n;
        pthread_mutex_unlock(&P->mu);
        if (quit) break;
        seen = g;
        for (int k; (k = claim_slot(P, g, n)) >= 0;) run_slot(P, fn, ctx, k, n);
    }
    return NULL;
}

/* Stops and joins the running workers. */
static void stop_workers(clash_pool *P)
{
    pthread_mutex_lock(&P->mu);
    P->quit = 1;
    pthread_cond_broadcast(&P->go);
    pthread_mutex_unlock(&P->mu);
    for (int w = 1; w < P->team; ++w) pthread_join(P->tid[w], NULL);
    P->team = 1;
}

clash_pool *clash_pool_create(int threads)
{
    if (threads < 1) threads = 1;
    const size_t bytes = (sizeof(clash_pool) + CLASH_CACHE_LINE - 1) / CLASH_CACHE_LINE * CLASH_CACHE_LINE;
    clash_pool *P = aligned_alloc(CLASH_CACHE_LINE, bytes);
    if (!P) return NULL;
    memset(P, 0, sizeof *P);
    P->tid = calloc((size_t)threads, sizeof *P->tid);
    P->args = calloc((size_t)threads, sizeof *P->args);
    if (!P->tid || !P->args || pthread_mutex_init(&P->call_mu, NULL)) {
        free(P->tid), free(P->args), free(P);
        return NULL;
    }
    pthread_mutex_init(&P->mu, NULL);
    pthread_cond_init(&P->go, NULL);
    pthread_cond_init(&P->done, NULL);
    atomic_init(&P->gen, 0);
    atomic_init(&P->pending, 0);
    atomic_init(&P->claim, 0);
    P->team = 1;
    for (int w = 1; w < threads; ++w) {
        P->args[w] = (worker_arg){.pool = P, .w = w, .gen0 = 0};
        if (pthread_create(&P->tid[w], NULL, worker_main, &P->args[w])) {
            clash_pool_destroy(P); /* the ones started so far */
            return NULL;
        }
        P->team = w + 1;
    }
    return P;
}

void clash_pool_destroy(clash_pool *P)
{
    if (!P) return;
    pthread_mutex_lock(&P->call_mu); /* wait out a call in progress */
    stop_workers(P);
    pthread_mutex_unlock(&P->call_mu);
    pthread_mutex_destroy(&P->call_mu);
    pthread_mutex_destroy(&P->mu);
    pthread_cond_destroy(&P->go);
    pthread_cond_destroy(&P->done);
    free(P->tid), free(P->args);
    free(P);
}

int clash_pool_threads(const clash_pool *P) { return P ? P->team : 0; }

int clash_pool_run(clash_pool *P, int threads, clash_spmd_fn fn, void *ctx)
{
    if (threads == 1) {
        fn(0, 1, ctx);
        return 0;
    }
    if (!P || threads < 1 || threads > P->team || pthread_mutex_trylock(&P->call_mu)) return -1;
    pthread_mutex_lock(&P->mu);
    P->fn = fn, P->ctx = ctx, P->n = threads;
    atomic_store_explicit(&P->pending, threads - 1, memory_order_relaxed);
    const unsigned long g = atomic_load_explicit(&P->gen, memory_order_relaxed) + 1;
    atomic_store_explicit(&P->claim, (unsigned long long)(g & 0xffffffffffffULL) << 16 | 1, memory_order_relaxed);
    atomic_store_explicit(&P->gen, g, memory_order_release);
    pthread_cond_broadcast(&P->go);
    pthread_mutex_unlock(&P->mu);

    fn(0, threads, ctx);
    for (int k; (k = claim_slot(P, g, threads)) >= 0;) run_slot(P, fn, ctx, k, threads);

    for (int i = 0; i < SPIN_ITERS && atomic_load_explicit(&P->pending, memory_order_acquire) > 0; ++i) cpu_relax();
    if (atomic_load_explicit(&P->pending, memory_order_acquire) > 0) {
        pthread_mutex_lock(&P->mu);
        while (atomic_load_explicit(&P->pending, memory_order_acquire) > 0) pthread_cond_wait(&P->done, &P->mu);
        pthread_mutex_unlock(&P->mu);
    }
    pthread_mutex_unlock(&P->call_mu);
    return 0;
}
