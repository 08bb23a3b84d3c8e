/*
 * keybuf.c — the candidate key buffers the stages share: a growable array of
 * uint64 keys per worker (core/run.h), and the merge of the workers' buffers
 * into the run's sorted, unique candidate list (the BVH and bounding-box
 * midphases; the octree merges its own buckets in parallel).
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/sort.h"
#include "core/run.h"

int clash_keybuf_grow(clash_keybuf *b)
{
    /* by half again: the buffers are kept from step to step, so the few
     * more copies while they grow cost little, and the capacity left
     * unused (up to a half of it, not all of it) is memory every later
     * step holds (on the largest scenes the workers' buffers hold millions
     * of keys) */
    size_t cap = b->cap ? b->cap + b->cap / 2 : 1024;
    uint64_t *v = realloc(b->v, cap * sizeof *v);
    if (!v) return -1;
    b->v = v, b->cap = cap;
    return 0;
}

int clash_mid_gather(clash_run *run)
{
    size_t total = 0;
    for (int w = 0; w < run->threads; ++w) total += run->wbuf[w].n;
    if (clash_renew((void **)&run->cand, &run->cap_cand, total, sizeof *run->cand, 0)) return -1;
    size_t n = 0;
    for (int w = 0; w < run->threads; ++w) {
        if (run->wbuf[w].n) memcpy(run->cand + n, run->wbuf[w].v, run->wbuf[w].n * sizeof(uint64_t));
        n += run->wbuf[w].n;
    }
    if (!run->cand_unsorted) n = clash_sort_unique_u64(run->cand, n);
    if (n == (size_t)-1) return -1;
    run->ncand = n;
    return 0;
}

