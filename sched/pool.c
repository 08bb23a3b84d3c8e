/*
 * pool.c — the persistent pthreads pool behind `--backend pthreads`.
 *
 * Threads are created once, on the first parallel call, and reused by every
 * later call (every stage of every step): no thread is created per step.
 * The calling thread is worker 0; the pool holds workers 1..T-1.  A call with
 * a different team size T stops the old workers and starts T-1 new ones
 * (team sizes rarely change within a run).  At process exit (atexit) or on
 * clash_pool_shutdown() the workers are told to quit and joined.
 *
 * One call, "SPMD":
 *   caller: publish (fn, ctx, T), pending = T-1, generation++ , wake workers
 *           run fn(0, T, ctx), then wait until pending == 0
 *   worker w: wait for generation to change, run fn(w, T, ctx), pending--
 * Waiting first spins briefly on the atomic generation / pending counters
 * (a stage of a step takes microseconds to milliseconds, and waking a
 * sleeping thread costs tens of microseconds), then sleeps on a condition
 * variable so idle workers do not burn a core the machine may need.  The
 * publish and the sleep both take the mutex, so no wake-up is lost.
 *
 * Calls are serialised by a lock (one team at a time).  A call from inside a
 * pool worker, or from a second thread while the pool is busy, returns -1 and
 * the caller (clash_spmd) falls back to its other backend rather than
 * deadlocking.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "sched/sched.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define cpu_relax() _mm_pause()
#else
#define cpu_relax() ((void)0)
#endif

enum { SPIN_ITERS = 4000 };

typedef struct worker_arg {
    int w;
    unsigned long gen0;      /* generation when the worker was created: it waits for the next */
} worker_arg;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    pthread_t *tid;
    worker_arg *args;
    int team;                /* team size the running workers belong to (1: no workers) */
    int quit;
    clash_spmd_fn fn;
    void *ctx;
    _Alignas(CLASH_CACHE_LINE) atomic_ulong gen;
    _Alignas(CLASH_CACHE_LINE) atomic_int pending;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER, .go = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER, .team = 1};

static pthread_mutex_t call_mu = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int in_pool;
static int atexit_done;

static void *worker_main(void *p)
{
    const int w = ((worker_arg *)p)->w;
    in_pool = 1;
    unsigned long seen = ((worker_arg *)p)->gen0;
    for (;;) {
        unsigned long g = seen;
        for (int i = 0; i < SPIN_ITERS && (g = atomic_load_explicit(&P.gen, memory_order_acquire)) == seen; ++i)
            cpu_relax();
        pthread_mutex_lock(&P.mu);
        while ((g = atomic_load_explicit(&P.gen, memory_order_acquire)) == seen && !P.quit)
            pthread_cond_wait(&P.go, &P.mu);
        const int quit = P.quit;
        const clash_spmd_fn fn = P.fn;
        void *ctx = P.ctx;
        const int team = P.team;
        pthread_mutex_unlock(&P.mu);
        if (quit) break;
        seen = g;
        fn(w, team, ctx);
        if (atomic_fetch_sub_explicit(&P.pending, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&P.mu);
            pthread_cond_signal(&P.done);
            pthread_mutex_unlock(&P.mu);
        }
    }
    return NULL;
}

/* Stops and joins the workers; call with call_mu held. */
static void stop_workers(void)
{
    if (P.team <= 1) return;
    pthread_mutex_lock(&P.mu);
    P.quit = 1;
    pthread_cond_broadcast(&P.go);
    pthread_mutex_unlock(&P.mu);
    for (int w = 1; w < P.team; ++w) pthread_join(P.tid[w], NULL);
    free(P.tid), free(P.args);
    P.tid = NULL, P.args = NULL;
    P.team = 1;
    P.quit = 0;
}

/* Starts workers 1..T-1; call with call_mu held.  Returns -1 on failure
 * (with no worker left running). */
static int start_workers(int T)
{
    P.tid = calloc((size_t)T, sizeof *P.tid);
    P.args = calloc((size_t)T, sizeof *P.args);
    if (!P.tid || !P.args) {
        free(P.tid), free(P.args);
        P.tid = NULL, P.args = NULL;
        return -1;
    }
    for (int w = 1; w < T; ++w) {
        P.args[w].w = w;
        P.args[w].gen0 = atomic_load_explicit(&P.gen, memory_order_relaxed);
        if (pthread_create(&P.tid[w], NULL, worker_main, &P.args[w])) {
            P.team = w; /* the ones started so far */
            stop_workers();
            return -1;
        }
        P.team = w + 1;
    }
    return 0;
}

int clash_pool_spmd(int threads, clash_spmd_fn fn, void *ctx)
{
    if (threads <= 0) return 0; /* availability probe */
    if (threads == 1) {
        fn(0, 1, ctx);
        return 0;
    }
    if (in_pool || pthread_mutex_trylock(&call_mu)) return -1;
    if (!atexit_done) atexit_done = 1, atexit(clash_pool_shutdown);
    if (P.team != threads) {
        stop_workers();
        if (start_workers(threads)) {
            pthread_mutex_unlock(&call_mu);
            return -1;
        }
    }
    pthread_mutex_lock(&P.mu);
    P.fn = fn, P.ctx = ctx;
    atomic_store_explicit(&P.pending, threads - 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&P.gen, 1, memory_order_release);
    pthread_cond_broadcast(&P.go);
    pthread_mutex_unlock(&P.mu);

    in_pool = 1;
    fn(0, threads, ctx);
    in_pool = 0;

    for (int i = 0; i < SPIN_ITERS && atomic_load_explicit(&P.pending, memory_order_acquire) > 0; ++i) cpu_relax();
    if (atomic_load_explicit(&P.pending, memory_order_acquire) > 0) {
        pthread_mutex_lock(&P.mu);
        while (atomic_load_explicit(&P.pending, memory_order_acquire) > 0) pthread_cond_wait(&P.done, &P.mu);
        pthread_mutex_unlock(&P.mu);
    }
    pthread_mutex_unlock(&call_mu);
    return 0;
}

void clash_pool_shutdown(void)
{
    if (in_pool) return;
    pthread_mutex_lock(&call_mu);
    stop_workers();
    pthread_mutex_unlock(&call_mu);
}
