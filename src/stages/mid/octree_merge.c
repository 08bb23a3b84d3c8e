/*
 * octree_merge.c — the face octree's merge of the workers' candidate buffers
 * (003 §3.3.5: a pair goes into the check list "only if it was not
 * previously put there"; here each worker appends to its own buffer and the
 * buffers are merged, sorted and de-duplicated once, in parallel).
 *
 * A parallel bucket sort: count keys per bucket of first face numbers (4096
 * buckets), scatter into place, sort each bucket, de-duplicate each worker's
 * run of buckets, then close the gaps.  The sorted unique set is the same
 * whatever ran where.
 */
#include <stdatomic.h>
#include <string.h>

#include "base/sort.h"
#include "sched/sched.h"
#include "stages/mid/octree.h"

/* Buckets of the first face number: fine enough that a bucket holds a few
 * dozen keys (about 15 a bucket on cluttered-500), which are sorted in
 * place by insertion, and the buckets are already in order: with 256
 * buckets and a radix sort over each worker's run of them, sorting was most
 * of the merge (2 ms a step on cluttered-500, one thread). */
enum { NBUCKET = 4096 };

typedef struct merge_ctx {
    clash_keybuf *bufs;
    int nb;
    uint64_t *out, *tmp;   /* tmp: the sort's scratch, maxb keys per worker */
    size_t maxb;           /* the largest bucket */
    uint64_t mul;          /* bucket_of: floor(2^32 NBUCKET / nf) */
    size_t *cnt;           /* [nb][NBUCKET]: counts, then scatter offsets */
    size_t *rb, *re, *ru;  /* per worker: range of out, unique count */
    size_t *bend;          /* [NBUCKET]: where each bucket ends in out */
    int phase;
    _Atomic int failed;
} merge_ctx;

/* The bucket of a key: its first face a scaled to [0, NBUCKET), by a
 * multiplication (a division per key was half of the merge on cluttered-500).
 * Any bucket function non-decreasing in a keeps the concatenated buckets
 * sorted; a * mul < nf * 2^32 NBUCKET / nf, so it stays below NBUCKET. */
static inline size_t bucket_of(uint64_t key, uint64_t mul) { return (size_t)(((key >> 32) * mul) >> 32); }

static void merge_worker(int w, int T, void *p)
{
    merge_ctx *m = p;
    for (int b = w; b < m->nb; b += T) {
        const clash_keybuf *kb = &m->bufs[b];
        size_t *cnt = m->cnt + (size_t)b * NBUCKET;
        if (m->phase == 0)
            for (size_t i = 0; i < kb->n; ++i) cnt[bucket_of(kb->v[i], m->mul)]++;
        else if (m->phase == 1)
            for (size_t i = 0; i < kb->n; ++i) m->out[cnt[bucket_of(kb->v[i], m->mul)]++] = kb->v[i];
    }
    if (m->phase == 2 && w < m->nb) { /* sort each bucket of the worker's range, then de-duplicate it */
        const size_t rb = m->rb[w], re = m->re[w];
        for (size_t bk = 0, st = 0; bk < NBUCKET; st = m->bend[bk++])
            if (st >= rb && m->bend[bk] <= re && m->bend[bk] - st > 1 &&
                clash_sort_u64(m->out + st, m->bend[bk] - st, m->tmp + (size_t)w * m->maxb))
                atomic_store(&m->failed, 1);
        uint64_t *v = m->out + rb;
        size_t u = 0;
        for (size_t i = 0; i < re - rb; ++i)
            if (u == 0 || v[u - 1] != v[i]) v[u++] = v[i];
        m->ru[w] = u;
    }
}

/* Merges bufs[0..nb) (nb = the team size) into *out, sorted and unique. */
int clash_oct_merge_keys(clash_run *run, clash_keybuf *bufs, int nb, uint64_t **out, size_t *cap, size_t *nout)
{
    size_t total = 0;
    for (int b = 0; b < nb; ++b) total += bufs[b].n;
    *nout = 0;
    if (total == 0) return 0;
    if (total > *cap) {
        uint64_t *v = realloc(*out, total * sizeof *v);
        if (!v) return -1;
        *out = v, *cap = total;
    }
    merge_ctx m = {.bufs = bufs, .nb = nb, .out = *out,
                   .mul = ((uint64_t)NBUCKET << 32) / (uint64_t)run->sc->nf};
    m.cnt = calloc((size_t)nb * NBUCKET + NBUCKET, sizeof(size_t));
    m.rb = calloc((size_t)nb * 3, sizeof(size_t));
    if (!m.cnt || !m.rb) {
        free(m.cnt), free(m.rb);
        return -1;
    }
    m.re = m.rb + nb, m.ru = m.rb + 2 * nb, m.bend = m.cnt + (size_t)nb * NBUCKET;
    atomic_init(&m.failed, 0);
    clash_exec ex = clash_exec_sized(&run->exec, (int64_t)total); /* few keys: on the caller */
    ex.threads = nb;
    clash_spmd(&ex, merge_worker, &m);
    /* bucket starts; worker k takes a contiguous run of buckets of ~total/nb keys */
    size_t pos = 0;
    int k = 0;
    m.rb[0] = 0;
    for (int bk = 0; bk < NBUCKET; ++bk) {
        const size_t st = pos;
        for (int b = 0; b < nb; ++b) {
            const size_t c = m.cnt[(size_t)b * NBUCKET + bk];
            m.cnt[(size_t)b * NBUCKET + bk] = pos;
            pos += c;
        }
        m.bend[bk] = pos;
        if (pos - st > m.maxb) m.maxb = pos - st;
        while (k < nb - 1 && pos >= total * (size_t)(k + 1) / (size_t)nb) {
            m.re[k] = pos;
            m.rb[++k] = pos;
        }
    }
    for (; k < nb; ++k) m.re[k] = pos, m.rb[k] = k ? m.re[k - 1] : 0;
    m.re[nb - 1] = pos;
    /* The sort's scratch: one bucket's worth per worker, not the whole key
     * set (buckets below 64 keys sort by insertion, with none); it lives in
     * the workspace, as a fresh array every step meant page faults.  On a
     * scene that collides a lot this was a third of the merge's memory. */
    oct_ws *W = run->oct_ws;
    if (m.maxb >= 64 && ws_grow(&W->sorttmp, &W->sorttmpcap, (size_t)nb * m.maxb, sizeof(uint64_t))) {
        free(m.cnt), free(m.rb);
        return -1;
    }
    m.tmp = W->sorttmp;
    m.phase = 1;
    clash_spmd(&ex, merge_worker, &m);
    m.phase = 2;
    clash_spmd(&ex, merge_worker, &m);
    int rc = atomic_load(&m.failed) ? -1 : 0;
    size_t n = 0;
    for (int b = 0; b < nb && !rc; ++b) {
        if (m.ru[b] && n != m.rb[b]) memmove(*out + n, *out + m.rb[b], m.ru[b] * sizeof(uint64_t));
        n += m.ru[b];
    }
    *nout = n;
    free(m.cnt), free(m.rb);
    return rc;
}

