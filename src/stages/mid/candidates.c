/*
 * candidates.c — S4's state (clash_mid_state, midphase.h): made with the
 * run, begun afresh each step, and the merge of the workers' key buffers
 * into the step's candidates that every midphase but the face octree (which
 * merges its own buckets in parallel, octree_merge.c) ends with.  Apart from
 * the midphase table (midphase.c), which calls the midphases, so that the
 * midphases call no file that calls them.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/sort.h"
#include "stages/mid/midphase.h"

clash_mid_state *clash_mid_create(size_t T)
{
    clash_mid_state *m = calloc(1, sizeof *m);
    if (m && !(m->wbuf = calloc(T, sizeof *m->wbuf))) free(m), m = NULL;
    return m;
}

const clash_candidates *clash_mid_begin(clash_run *run)
{
    clash_mid_state *m = run->mid;
    m->cand = (clash_candidates){.keys = m->cand.keys, .cap = m->cand.cap};
    m->level_used = 0, m->rank_units = 0;
    return &m->cand;
}

int clash_mid_gather(clash_run *run)
{
    clash_candidates *c = &run->mid->cand;
    const clash_keybuf *wb = run->mid->wbuf;
    size_t total = 0;
    for (int w = 0; w < run->threads; ++w) total += wb[w].n;
    if (clash_renew((void **)&c->keys, &c->cap, total, sizeof *c->keys, 0)) return -1;
    size_t n = 0;
    for (int w = 0; w < run->threads; ++w) {
        if (wb[w].n) memcpy(c->keys + n, wb[w].v, wb[w].n * sizeof(uint64_t));
        n += wb[w].n;
    }
    if (!c->unsorted) n = clash_sort_unique_u64(c->keys, n);
    if (n == (size_t)-1) return -1;
    c->n = n;
    return 0;
}
