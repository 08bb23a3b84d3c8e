/*
 * strategies.c — the two coarse-grain strategies that need more than a
 * shared counter: work stealing and producer-consumer.  See sched.h.
 *
 * Work stealing.  Every worker owns a deque holding one contiguous range of
 * unit numbers [lo, hi), first the worker's static chunk.  The owner takes
 * `batch` units from the low end; a worker whose deque is empty visits the
 * others in order w+1, w+2, ... and steals the upper half of the first
 * non-empty range it finds, which becomes its own.  Units are never added
 * after the start, so a worker that finds every deque empty is done.  Each
 * deque is a mutex and two numbers on its own cache line: the owner and a
 * thief touch it only once per batch or per steal, so the lock is cheap
 * next to a unit of octree or face-pair work, and simple to get right.
 *
 * Producer-consumer ([Smith94] §4.4.2).  Worker 0 is the producer: it runs a
 * caller-supplied function that pushes items (opaque pointers) into a
 * bounded ring; workers 1..T-1 pop and consume them as they arrive.  When
 * the producer is done it becomes a consumer too and helps empty the ring.
 * A push into a full ring does not block: the producer consumes the oldest
 * item itself, so a team of one (or slow consumers) never deadlocks and the
 * queue bound holds.  For a plain range of n units (clash_par_tasks with
 * the producer-consumer schedule) the producer pushes batches of units.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "sched/sched.h"

/* ---- work stealing ------------------------------------------------------------- */

typedef struct deque {
    _Alignas(CLASH_CACHE_LINE) pthread_mutex_t mu;
    int64_t lo, hi;
} deque;

typedef struct steal_ctx {
    deque *dq;
    int64_t batch;
    clash_range_fn fn;
    void *ctx;
} steal_ctx;

static void steal_worker(int w, int T, void *p)
{
    steal_ctx *c = p;
    deque *mine = &c->dq[w];
    for (;;) {
        pthread_mutex_lock(&mine->mu);
        int64_t b = mine->lo, e = mine->lo + c->batch < mine->hi ? mine->lo + c->batch : mine->hi;
        mine->lo = e;
        pthread_mutex_unlock(&mine->mu);
        if (b < e) {
            c->fn(b, e, 1, w, c->ctx);
            continue;
        }
        int got = 0;
        for (int k = 1; k < T && !got; ++k) {
            deque *v = &c->dq[(w + k) % T];
            /* Take the upper half of the victim's range under its lock only,
             * then install it in our own deque: never two locks at once.  Our
             * deque is empty meanwhile, so no thief touches it. */
            int64_t sb = 0, se = 0;
            pthread_mutex_lock(&v->mu);
            const int64_t left = v->hi - v->lo;
            if (left > 0) {
                sb = v->hi - (left + 1) / 2, se = v->hi;
                v->hi = sb;
                got = 1;
            }
            pthread_mutex_unlock(&v->mu);
            if (got) {
                pthread_mutex_lock(&mine->mu);
                mine->lo = sb, mine->hi = se;
                pthread_mutex_unlock(&mine->mu);
            }
        }
        if (!got) return;
    }
}

int clash_tasks_stealing(const clash_exec *ex, int64_t n, int64_t batch, clash_range_fn fn, void *ctx)
{
    const int T = ex->threads > 0 ? ex->threads : 1;
    deque *dq = aligned_alloc(CLASH_CACHE_LINE, sizeof(deque) * (size_t)T); /* sizeof: a multiple of 64 */
    if (!dq) return -1;
    for (int w = 0; w < T; ++w) {
        pthread_mutex_init(&dq[w].mu, NULL);
        dq[w].lo = n * w / T, dq[w].hi = n * (w + 1) / T;
    }
    steal_ctx c = {dq, batch > 0 ? batch : 1, fn, ctx};
    clash_spmd(ex, steal_worker, &c);
    for (int w = 0; w < T; ++w) pthread_mutex_destroy(&dq[w].mu);
    free(dq);
    return 0;
}

/* ---- producer-consumer ---------------------------------------------------------- */

struct clash_pcq {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    void **ring;
    int cap, head, count, done;
    clash_consume_fn consume;
    clash_produce_fn produce;
    void *ctx;
};

int clash_pcq_push(clash_pcq *q, void *item)
{
    pthread_mutex_lock(&q->mu);
    void *own = NULL;
    if (q->count == q->cap) { /* full: the producer consumes the oldest item itself */
        own = q->ring[q->head];
        q->head = (q->head + 1) % q->cap;
        q->count--;
    }
    q->ring[(q->head + q->count) % q->cap] = item;
    q->count++;
    pthread_cond_signal(&q->cv);
    pthread_mutex_unlock(&q->mu);
    if (own) q->consume(own, 0, q->ctx);
    return 0;
}

static void *pcq_pop(clash_pcq *q)
{
    pthread_mutex_lock(&q->mu);
    while (q->count == 0 && !q->done) pthread_cond_wait(&q->cv, &q->mu);
    void *item = NULL;
    if (q->count) {
        item = q->ring[q->head];
        q->head = (q->head + 1) % q->cap;
        q->count--;
    }
    pthread_mutex_unlock(&q->mu);
    return item;
}

static void pc_worker(int w, int T, void *p)
{
    (void)T;
    clash_pcq *q = p;
    if (w == 0) {
        q->produce(q, q->ctx);
        pthread_mutex_lock(&q->mu);
        q->done = 1;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
    }
    for (void *item; (item = pcq_pop(q));) q->consume(item, w, q->ctx);
}

int clash_par_prodcons(const clash_exec *ex, int capacity, clash_produce_fn produce, clash_consume_fn consume,
                       void *ctx)
{
    clash_pcq q = {.cap = capacity > 0 ? capacity : 64, .consume = consume, .produce = produce, .ctx = ctx};
    q.ring = malloc(sizeof(void *) * (size_t)q.cap);
    if (!q.ring) return -1;
    pthread_mutex_init(&q.mu, NULL);
    pthread_cond_init(&q.cv, NULL);
    clash_spmd(ex, pc_worker, &q);
    pthread_cond_destroy(&q.cv);
    pthread_mutex_destroy(&q.mu);
    free(q.ring);
    return 0;
}

/* clash_par_tasks with the producer-consumer schedule: batches of units. */
typedef struct range_item {
    int64_t b, e;
} range_item;

typedef struct pc_tasks {
    range_item *items;
    int64_t nitems;
    clash_range_fn fn;
    void *ctx;
} pc_tasks;

static void pc_tasks_produce(clash_pcq *q, void *p)
{
    pc_tasks *t = p;
    for (int64_t i = 0; i < t->nitems; ++i) clash_pcq_push(q, &t->items[i]);
}

static void pc_tasks_consume(void *item, int worker, void *p)
{
    const pc_tasks *t = p;
    const range_item *r = item;
    t->fn(r->b, r->e, 1, worker, t->ctx);
}

int clash_tasks_prodcons(const clash_exec *ex, int64_t n, int64_t batch, clash_range_fn fn, void *ctx)
{
    if (batch <= 0) batch = 1;
    pc_tasks t = {NULL, (n + batch - 1) / batch, fn, ctx};
    t.items = malloc(sizeof(range_item) * (size_t)t.nitems);
    if (!t.items) return -1;
    for (int64_t i = 0; i < t.nitems; ++i) t.items[i] = (range_item){i * batch, (i + 1) * batch < n ? (i + 1) * batch : n};
    const int rc = clash_par_prodcons(ex, 64, pc_tasks_produce, pc_tasks_consume, &t);
    free(t.items);
    return rc;
}
