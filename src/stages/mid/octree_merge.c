/*
 * octree_merge.c — the face octree's merge of the workers' candidate buffers
 * ([Smith94] §3.3.5: a pair goes into the check list "only if it was not
 * previously put there"; here each worker appends to its own buffer and the
 * buffers are merged, sorted and de-duplicated once, in parallel).
 *
 * A parallel counting sort on the first face, then a small pass per
 * bucket.  Every key (a << 32 | b, a < b) is a pair of kept faces, so its
 * bucket is the place of a in run->cull->kept (the key's own high half where
 * the keys are places, run->mid->cand.by_place; else run->rows->fplace, filled
 * here for the kept faces, unless swept mode's rows did this step,
 * stages/face_rows.c): a bucket holds one face's keys, some 20 on the
 * cluttered scenes, in the order of the buckets.  Buckets of a fixed count
 * over the face numbers held a thousand keys each on the largest scenes,
 * and sorting them was a visible part of a swept step (bench/RESULTS.md).
 * Beyond 8 workers, 2^s consecutive places share a bucket, so the count
 * tables (a 32-bit count per worker and bucket) stay under 8 counts a kept
 * face; so do they where the keys are fewer than the kept faces (static
 * scenes), so that a bucket holds about a key and the passes over the
 * tables cost no more than the keys.
 *
 * The candidates need not be sorted (run->mid->cand.unsorted: S6
 * sorts the hits, as it does anyway for a Morton-ordered store): in swept
 * mode the buffers hold no key twice (octree.c) and the buckets stay as
 * scattered; otherwise a bucket
 * is de-duplicated in place, without a branch, by stamping each second
 * face's place with the bucket (the count tables, spent by then, hold the
 * stamps).  Buckets are uneven (a face that moves fast has a hundred keys),
 * so a sort or a search per bucket cost as much as the sort it replaced.
 * (Under MPI too: each rank merges the keys of its own units, and S6 sorts
 * its hits before rank 0 merges them.)  Producer-consumer merges hits:
 * every bucket is sorted (by insertion under 64 keys), which sorts the
 * whole list.
 *
 * Phases, each over the team: the places (each worker its share of the
 * kept faces), the counts (each worker its own buffer), the totals of each
 * worker's run of buckets, the offsets, the scatter, then the sort and
 * de-duplication of a run of whole buckets of about total/T keys; the gaps
 * between the runs are closed at the end.  The sorted unique set is the
 * same whatever ran where.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "base/mem.h"
#include "base/sort.h"
#include "sched/sched.h"
#include "stages/mid/octree.h"

typedef struct merge_ctx {
    clash_keybuf *bufs;
    int nb;
    const uint32_t *kept;
    size_t nkept;
    int32_t *place;          /* run->rows->fplace: each kept face's place in kept */
    int placed;              /* the places already written this step (stages/face_rows.c, swept mode) */
    int sorted;              /* sort every bucket (else stamp its repeats, unsorted) */
    int unique;              /* no key twice in the buffers: unsorted buckets left as scattered */
    int shift;               /* 2^shift places a bucket */
    size_t nbk;              /* buckets */
    uint32_t *cnt;           /* [nb][nbk]: counts, then scatter offsets */
    uint32_t *bend;          /* [nbk]: where each bucket ends in out */
    size_t *part;            /* per worker: keys in its run of buckets, then its base; max bucket */
    size_t *rb, *re, *ru;    /* per worker: its range of out (whole buckets), unique count */
    size_t *bb;              /* per worker: first bucket of its sort range (nb + 1) */
    uint64_t *out, *tmp;     /* tmp: the sort's scratch, maxb keys per worker */
    size_t maxb;
    int phase;
    int pk;                  /* the keys are places already (run->mid->cand.by_place) */
    _Atomic int failed;      /* 1 out of memory, 2 a key whose first face is not kept */
} merge_ctx;

/* One half of a key (a face, or with pk a place) as its place in kept. */
static inline uint32_t place_of(const merge_ctx *m, uint32_t half)
{
    return m->pk ? half : (uint32_t)m->place[half];
}

/* Drops the repeats of the n keys at src (bucket bk), writing the unique
 * ones to dst (dst <= src).  Unsorted (one first face a bucket): a key is a
 * repeat when its second face's stamp already holds bk (stamp: the
 * worker's own table, a 32-bit entry per kept face); sorted: a sort, then
 * neighbours compared.  Returns the unique count, or (size_t)-1 when the
 * sort failed or a second face was not kept. */
static size_t bucket_unique(const merge_ctx *m, uint64_t *dst, uint64_t *src, size_t n, uint32_t bk, uint32_t *stamp,
                            uint64_t *tmp)
{
    size_t u = 0;
    if (!m->sorted) {
        for (size_t i = 0; i < n; ++i) {
            const uint64_t k = src[i];
            uint32_t pb = place_of(m, (uint32_t)k);
            pb = pb < m->nkept ? pb : (uint32_t)m->nkept; /* never: b is a kept face; the sentinel */
            dst[u] = k;
            u += stamp[pb] != bk;
            stamp[pb] = bk;
        }
        return stamp[m->nkept] == UINT32_MAX ? u : (size_t)-1;
    }
    if (n > 1 && clash_sort_u64(src, n, tmp)) return (size_t)-1;
    for (size_t i = 0; i < n; ++i)
        if (i == 0 || src[i] != src[i - 1]) dst[u++] = src[i];
    return u;
}

static void merge_worker(int w, int T, void *p)
{
    merge_ctx *m = p;
    switch (m->phase) {
    case 0: { /* the places of the kept faces; the worker's count table cleared */
        const size_t k0 = m->nkept * (size_t)w / (size_t)T, k1 = m->nkept * (size_t)(w + 1) / (size_t)T;
        if (w < m->nb) memset(m->cnt + (size_t)w * m->nbk, 0, m->nbk * sizeof(uint32_t));
        if (!m->placed)
            for (size_t k = k0; k < k1; ++k) m->place[m->kept[k]] = (int32_t)k;
        break;
    }
    case 1: /* counts, each worker its buffer */
        if (w < m->nb) {
            const clash_keybuf *kb = &m->bufs[w];
            uint32_t *cnt = m->cnt + (size_t)w * m->nbk;
            for (size_t i = 0; i < kb->n; ++i) {
                const uint32_t r = place_of(m, (uint32_t)(kb->v[i] >> 32));
                cnt[r < m->nkept ? r >> m->shift : m->nbk - 1]++; /* never the sentinel: a is a kept face */
            }
            if (cnt[m->nbk - 1]) atomic_store(&m->failed, 2);
        }
        break;
    case 2: { /* keys in the worker's run of buckets */
        const size_t b0 = m->nbk * (size_t)w / (size_t)T, b1 = m->nbk * (size_t)(w + 1) / (size_t)T;
        size_t s = 0;
        for (int b = 0; b < m->nb; ++b) {
            const uint32_t *c = m->cnt + (size_t)b * m->nbk;
            for (size_t bk = b0; bk < b1; ++bk) s += c[bk];
        }
        m->part[w] = s;
        break;
    }
    case 3: { /* offsets from the worker's base */
        const size_t b0 = m->nbk * (size_t)w / (size_t)T, b1 = m->nbk * (size_t)(w + 1) / (size_t)T;
        size_t pos = m->part[w], big = 0;
        for (size_t bk = b0; bk < b1; ++bk) {
            const size_t st = pos;
            for (int b = 0; b < m->nb; ++b) {
                uint32_t *c = m->cnt + (size_t)b * m->nbk + bk;
                const uint32_t n = *c;
                *c = (uint32_t)pos;
                pos += n;
            }
            m->bend[bk] = (uint32_t)pos;
            if (pos - st > big) big = pos - st;
        }
        m->part[T + w] = big;
        break;
    }
    case 4: /* scatter */
        if (w < m->nb) {
            const clash_keybuf *kb = &m->bufs[w];
            uint32_t *cnt = m->cnt + (size_t)w * m->nbk;
            for (size_t i = 0; i < kb->n; ++i) {
                const uint64_t k = kb->v[i];
                m->out[cnt[place_of(m, (uint32_t)(k >> 32)) >> m->shift]++] = k;
            }
        }
        break;
    case 5: { /* each bucket of the run, its unique keys packed from the run's start */
        uint64_t *tmp = m->tmp ? m->tmp + (size_t)w * m->maxb : NULL, *v = m->out + m->rb[w];
        uint32_t *stamp = m->cnt + (size_t)w * m->nbk; /* the counts are spent: the stamps */
        if (!m->sorted && m->unique) { /* nothing to drop: the run as scattered */
            m->ru[w] = m->re[w] - m->rb[w];
            break;
        }
        if (!m->sorted && m->bb[w] < m->bb[w + 1]) memset(stamp, 0xff, (m->nkept + 1) * sizeof *stamp);
        size_t u = 0;
        for (size_t bk = m->bb[w]; bk < m->bb[w + 1]; ++bk) {
            const size_t st = bk ? m->bend[bk - 1] : 0;
            const size_t k = bucket_unique(m, v + u, m->out + st, m->bend[bk] - st, (uint32_t)bk, stamp, tmp);
            if (k == (size_t)-1) {
                atomic_store(&m->failed, 1);
                break;
            }
            u += k;
        }
        m->ru[w] = u;
        break;
    }
    }
}

/* Merges bufs[0..nb) (nb = the team size) into *out: unique, and sorted
 * when asked, else grouped by first face. */
int clash_oct_merge_keys(clash_run *run, clash_keybuf *bufs, int nb, int sorted, int unique, uint64_t **out,
                         size_t *cap, size_t *nout)
{
    size_t total = 0;
    for (int b = 0; b < nb; ++b) total += bufs[b].n;
    *nout = 0;
    if (total == 0) return 0;
    if (run->cull->nkept == 0) return -2;
    if (total >= UINT32_MAX || run->cull->nkept >= INT32_MAX) return -1; /* the 32-bit counts and places */
    if (clash_renew((void **)out, cap, total, sizeof **out, 0)) return -1; /* (its contents: this merge's) */
    if (!run->rows->fplace && !(run->rows->fplace = malloc(sizeof(int32_t) * (size_t)run->sc->nf))) return -1;
    oct_ws *W = run->mid->oct_ws;
    merge_ctx m = {.bufs = bufs, .nb = nb, .out = *out, .kept = run->cull->kept, .nkept = run->cull->nkept,
                   .place = run->rows->fplace, .placed = run->rows->ready, .sorted = sorted, .unique = unique,
                   .pk = run->mid->cand.by_place};
    while (((size_t)nb >> m.shift) > 8) ++m.shift; /* tables of nb * nkept / 2^shift counts */
    /* Fewer than half as many keys as kept faces (static scenes such as two
     * graded tori or two bunnies): 2^shift places a bucket, about a key a
     * bucket, every bucket sorted (where keys and faces are about as many,
     * as on two cows, that costs more).  The tables' passes per kept face
     * (clearing, offsets, stamps) would cost more than the keys' own
     * (bench/RESULTS.md). */
    if (m.nkept > 2 * total)
        while ((m.nkept >> m.shift) > total && m.shift < 16) ++m.shift;
    if (m.shift) m.sorted = 1; /* a stamp tells one first face's repeats */
    m.nbk = ((m.nkept - 1) >> m.shift) + 2; /* the last one a sentinel: a first face not kept */
    size_t *part = calloc((size_t)nb * 6 + 1, sizeof(size_t));
    if (!part || ws_grow(&W->mcnt, &W->mcntcap, (size_t)nb * m.nbk + m.nbk, sizeof(uint32_t))) {
        free(part);
        return -1;
    }
    m.cnt = W->mcnt, m.bend = W->mcnt + (size_t)nb * m.nbk;
    m.part = part, m.rb = part + 2 * nb, m.re = part + 3 * nb, m.ru = part + 4 * nb, m.bb = part + 5 * nb;
    atomic_init(&m.failed, 0);
    clash_exec ex = clash_exec_sized(&run->exec, (int64_t)total); /* few keys: on the caller */
    ex.threads = nb;
    for (m.phase = 0; m.phase < 4; ++m.phase) {
        clash_spmd(&ex, merge_worker, &m);
        if (m.phase == 1 && atomic_load(&m.failed) == 2) {
            free(part);
            return -2;
        }
        if (m.phase == 2) /* each worker's base */
            for (size_t w = 0, s = 0; w < (size_t)nb; ++w) {
                const size_t t = m.part[w];
                m.part[w] = s, s += t;
            }
    }
    for (int w = 0; w < nb; ++w)
        if (m.part[nb + w] > m.maxb) m.maxb = m.part[nb + w];
    /* runs of whole buckets of about total/nb keys each */
    m.bb[0] = 0;
    for (int w = 1; w < nb; ++w) {
        size_t lo = m.bb[w - 1], hi = m.nbk;
        const size_t want = total * (size_t)w / (size_t)nb;
        while (lo < hi) { /* first bucket whose end passes want */
            const size_t mid = lo + (hi - lo) / 2;
            if (m.bend[mid] < want) lo = mid + 1;
            else hi = mid;
        }
        m.bb[w] = lo < m.nbk ? lo + 1 : m.nbk;
    }
    m.bb[nb] = m.nbk;
    for (int w = 0; w < nb; ++w) {
        m.rb[w] = m.bb[w] ? m.bend[m.bb[w] - 1] : 0;
        m.re[w] = m.bb[w + 1] ? m.bend[m.bb[w + 1] - 1] : 0;
    }
    /* The sort's scratch: one bucket's worth per worker (buckets below 64
     * keys sort by insertion, with none); it lives in the workspace, as a
     * fresh array every step meant page faults. */
    const int use_tmp = m.sorted && m.maxb >= 64; /* stamps sort nothing */
    if (use_tmp && ws_grow(&W->sorttmp, &W->sorttmpcap, (size_t)nb * m.maxb, sizeof(uint64_t))) {
        free(part);
        return -1;
    }
    m.tmp = use_tmp ? W->sorttmp : NULL;
    for (m.phase = 4; m.phase < 6; ++m.phase) clash_spmd(&ex, merge_worker, &m);
    const int rc = atomic_load(&m.failed) ? -1 : 0;
    size_t n = 0;
    for (int b = 0; b < nb && !rc; ++b) {
        if (m.ru[b] && n != m.rb[b]) memmove(*out + n, *out + m.rb[b], m.ru[b] * sizeof(uint64_t));
        n += m.ru[b];
    }
    *nout = n;
    free(part);
    return rc;
}
