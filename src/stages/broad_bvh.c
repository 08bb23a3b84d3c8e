/*
 * broad_bvh.c — all overlapping pairs among n boxes with an object BVH
 * (broad.h): a wide BVH over the boxes built with the Morton (LBVH)
 * builder, then one query per box, in the tree's leaf order so that
 * consecutive queries walk nearly the same nodes (cache locality).  A
 * query descends every child whose box meets the query box grown by
 * `grow` (one node kernel call per node) and reports the boxes j > i it
 * meets, so each pair is reported once.  Queries are independent: the
 * coarse-grain strategy hands out batches of them.
 */
#include <math.h>
#include <stdlib.h>

#include "base/tuning.h"
#include "stages/broad.h"

typedef struct qctx {
    const clash_bvh *t;
    clash_boxes_soa bx;
    float grow;
    clash_keybuf *out;
    int failed;
} qctx;

static void query_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    qctx *c = p;
    const clash_bvh *t = c->t;
    clash_keybuf *kb = &c->out[worker];
    const float g = c->grow;
    int32_t stk[256];
    for (int64_t q = begin; q < end; q += step) {
        const uint32_t i = (uint32_t)q; /* prim[] repeats primitives in padded leaves */
        const float lo[3] = {c->bx.lox[i] - g, c->bx.loy[i] - g, c->bx.loz[i] - g};
        const float hi[3] = {c->bx.hix[i] + g, c->bx.hiy[i] + g, c->bx.hiz[i] + g};
        if (!(c->bx.hix[i] - c->bx.lox[i] < INFINITY && c->bx.hiy[i] - c->bx.loy[i] < INFINITY &&
              c->bx.hiz[i] - c->bx.loz[i] < INFINITY))
            continue;
        int sp = 0;
        stk[sp++] = 0;
        while (sp) {
            const clash_bvh_node *n = &t->node[stk[--sp]];
            unsigned m = clash_bvh_overlap(n, lo, hi);
            while (m) {
                const int k = __builtin_ctz(m);
                m &= m - 1;
                const int32_t ch = n->child[k];
                if (ch > 0) {
                    if (sp == (int)(sizeof stk / sizeof *stk)) {
                        c->failed = 1; /* deeper than any Morton tree of 2^32 boxes */
                        return;
                    }
                    stk[sp++] = ch;
                    continue;
                }
                const uint32_t *pr = t->prim + (-ch - 1);
                for (int j = 0; j < n->count[k]; ++j) {
                    const uint32_t b = pr[j];
                    if (b <= i || !(c->bx.hix[b] - c->bx.lox[b] < INFINITY && c->bx.hiy[b] - c->bx.loy[b] < INFINITY &&
                                    c->bx.hiz[b] - c->bx.loz[b] < INFINITY))
                        continue;
                    /* the node box test was on the slot; test the box itself */
                    if (c->bx.lox[b] <= hi[0] && c->bx.hix[b] >= lo[0] && c->bx.loy[b] <= hi[1] &&
                        c->bx.hiy[b] >= lo[1] && c->bx.loz[b] <= hi[2] && c->bx.hiz[b] >= lo[2] &&
                        clash_keybuf_push(kb, (uint64_t)i << 32 | b)) {
                        c->failed = 1;
                        return;
                    }
                }
            }
        }
    }
}

int clash_broad_bvh(const clash_exec *ex, int64_t n, clash_boxes_soa bx, float grow, clash_keybuf *out)
{
    if (n < 2) return 0;
    uint32_t *ids = malloc((size_t)n * sizeof *ids);
    if (!ids) return -1;
    for (int64_t i = 0; i < n; ++i) ids[i] = (uint32_t)i;
    clash_bvh t = {0};
    int rc = clash_bvh_build(&t, CLASH_BVH_MORTON, ids, (int32_t)n, bx);
    free(ids);
    if (!rc) {
        qctx c = {&t, bx, grow, out, 0};
        rc = clash_par_tasks(ex, n, CLASH_TUNE_BROAD_TASK, query_range, &c) < 0 || c.failed ? -1 : 0;
    }
    clash_bvh_free(&t);
    return rc;
}
