/*
 * broad.c — stage S2: the overlapping object pairs and their overlap regions
 * box(a) ∩ box(b), grown by 2 delta ([Smith94] §3.3.3; delta holds half the
 * minimum separation, see push_objpair).  Few objects: all pairs;
 * many (or on request): sort-and-sweep (broad_sap.c) or the object BVH
 * (broad_bvh.c), whose pair keys are sorted so run->broad->op is ordered by (a, b).
 */
#include <math.h>
#include <stdlib.h>

#include "base/sort.h"
#include "stages/broad.h"
#include "stages/stages.h"

static int push_objpair(clash_run *run, int a, int b)
{
    const clash_box *A = &run->boxes->obox[a], *B = &run->boxes->obox[b];
    const float d = run->boxes->delta;
    clash_box r;
    for (int k = 0; k < 3; ++k) {
        r.lo[k] = fmaxf(A->lo[k], B->lo[k]) - d;
        r.hi[k] = fminf(A->hi[k], B->hi[k]) + d;
        if (r.lo[k] > r.hi[k]) return 0; /* the boxes, each grown by delta, are apart */
        /* The region: box(a) ∩ box(b) grown by 2 delta.  A face of a within
         * the minimum separation D <= 2 delta of a face of b has a point
         * (of its hull grown by its margin) in box(a) within D of box(b),
         * on each axis within D of their intersection; grown by delta
         * alone it lost such pairs where D was a good part of the faces'
         * size (tests/property/test_pipeline_oracle.c, D 0.15 to 0.3). */
        r.lo[k] -= d, r.hi[k] += d;
    }
    if (run->broad->op_keep && !run->broad->op_keep(run->broad->op_keep_ctx, a, b)) return 0;
    if (run->filt && !clash_filt_keep(run->filt, a, b)) { /* the host's filter: no face work for the pair */
        run->broad->nop_filtered++;
        return 0;
    }
    if (run->broad->nop == run->broad->cap_op) {
        size_t cap = run->broad->cap_op ? 2 * run->broad->cap_op : 64;
        clash_objpair *p = realloc(run->broad->op, cap * sizeof *p);
        if (!p) return -1;
        run->broad->op = p, run->broad->cap_op = cap;
    }
    run->broad->op[run->broad->nop++] = (clash_objpair){a, b, r};
    return 0;
}

/* The face octree's pairs and regions, tightened by the objects' slabs
 * (broad_dop.c); the other midphases keep the boxes' pairs. */
static int dops(clash_run *run)
{
    if (run->cfg.midphase == CLASH_MID_OCTREE) return clash_broad_dops(run); /* (it sets broad->region_dops) */
    run->broad->region_dops = 0;
    return 0;
}

/* S2 for many objects (broad.h): sort-and-sweep in columns, or the object
 * BVH, over the object boxes as SoA grown by 2*delta; the pair keys come back
 * in the per-worker buffers, are sorted, and push_objpair keeps the pairs
 * whose grown boxes meet, so run->broad->op is sorted by (a, b). */
int clash_stage_broad(clash_run *run)
{
    const clash_scene *sc = run->sc;
    const int n = sc->nobj;
    run->broad->nop = 0;
    run->broad->nop_filtered = 0;
    const int bvh = run->cfg.broadphase == CLASH_BROAD_BVH;
    const int sap = run->cfg.broadphase == CLASH_BROAD_SAP || (run->cfg.broadphase == CLASH_BROAD_AUTO && n > 64);
    if (!sap && !bvh) {
        for (int a = 0; a < n; ++a)
            for (int b = a + 1; b < n; ++b)
                if (push_objpair(run, a, b)) return -1;
        return dops(run);
    }
    float *soa = malloc(sizeof(float) * 6 * (size_t)n);
    if (!soa) return -1;
    for (int o = 0; o < n; ++o)
        for (int d = 0; d < 3; ++d) soa[(size_t)d * n + o] = run->boxes->obox[o].lo[d], soa[(size_t)(3 + d) * n + o] = run->boxes->obox[o].hi[d];
    const clash_boxes_soa bx = {soa, soa + n, soa + 2 * n, soa + 3 * n, soa + 4 * n, soa + 5 * n};
    for (int w = 0; w < run->threads; ++w) run->mid->wbuf[w].n = 0;
    int rc = (bvh ? clash_broad_bvh : clash_broad_sap)(&run->exec, n, bx, 2 * run->boxes->delta, run->mid->wbuf);
    free(soa);
    if (rc) return -1;
    for (int w = 1; w < run->threads; ++w)
        for (size_t i = 0; i < run->mid->wbuf[w].n; ++i)
            if (clash_keybuf_push(&run->mid->wbuf[0], run->mid->wbuf[w].v[i])) return -1;
    if (clash_sort_u64(run->mid->wbuf[0].v, run->mid->wbuf[0].n, NULL)) return -1;
    for (size_t i = 0; i < run->mid->wbuf[0].n; ++i) {
        const uint64_t key = run->mid->wbuf[0].v[i];
        if (push_objpair(run, (int)(key >> 32), (int)(uint32_t)key)) return -1;
    }
    return dops(run);
}

void clash_broad_free(clash_broad_state *b)
{
    if (!b) return;
    free(b->op), free(b->odop), free(b->opdop);
    free(b);
}
