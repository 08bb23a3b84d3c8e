/*
 * mid_bvh.c — stage S4 as BVH x BVH traversal (`--midphase bvh`).
 *
 * Every object keeps a wide BVH over its faces (bvh.h) in the run.  The
 * first step builds it from the S1 face boxes (binned SAH, or Morton with
 * run->bvh_builder); every later step refits it from the new face boxes, so
 * rigid and deforming objects are handled alike and the refit is part of
 * S4's time.
 *
 * Work.  For each object pair (a, b) of S2 with overlap region R (already
 * grown by delta) the two trees are traversed simultaneously from their
 * roots: a pair of inner nodes (A, B) tests each child box of A, grown by
 * 2*delta, against all W child boxes of B in one node kernel, masked by the
 * children that meet R.  Overlapping child pairs are pushed (inner, inner),
 * or resolved at once: a leaf against an inner node descends that node with
 * each of the leaf's faces, two leaves emit their face pairs.  With
 * self-collision each object's tree is also traversed against itself: a
 * node against itself recurses into each child against itself and into
 * each overlapping pair of distinct children.  A face pair becomes a
 * candidate when it is eligible and its face boxes overlap grown by delta
 * (clash_faceboxes_overlap), the same predicate as the oracle's, so the
 * candidate set contains every pair the oracle would test.
 *
 * Parallelism: with more than one thread the root pairs are expanded a few
 * levels serially into units of (node, node) pairs that the coarse-grain
 * strategy hands out; each worker appends to its own buffer, and the
 * buffers are merged, sorted and de-duplicated (clash_mid_gather).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvh.h"
#include "error.h"
#include "midphase.h"
#include "sort.h"

#define W CLASH_BVH_WIDTH

typedef struct item {
    int32_t oa, ob;  /* objects (equal for self-collision work) */
    int32_t na, nb;  /* nodes of bvh[oa], bvh[ob] */
    int32_t self;    /* 1: node na against itself */
    int32_t pair;    /* index into run->op, or -1: no region (self) */
} item;

typedef struct stack {
    item *v;
    size_t n, cap;
} stack;

static int push(stack *s, item it)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 256;
        item *v = realloc(s->v, cap * sizeof *v);
        if (!v) return -1;
        s->v = v, s->cap = cap;
    }
    s->v[s->n++] = it;
    return 0;
}

typedef struct tctx {
    clash_run *run;
    const clash_bvh *bvh;
    clash_keybuf *kb;
    stack *st;
    float g;  /* 2 * delta */
} tctx;

static const float inf3[3] = {INFINITY, INFINITY, INFINITY}, ninf3[3] = {-INFINITY, -INFINITY, -INFINITY};

static inline int emit(tctx *c, uint32_t a, uint32_t b)
{
    const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    if (lo == hi || !clash_pair_eligible(c->run, lo, hi) || !clash_faceboxes_overlap(c->run, lo, hi)) return 0;
    return clash_keybuf_push(c->kb, (uint64_t)lo << 32 | hi);
}

/* Face f of one tree against the subtree `node` of tree t. */
static int face_vs_node(tctx *c, uint32_t f, const clash_bvh *t, int32_t node)
{
    const clash_run *r = c->run;
    const float q_lo[3] = {r->lox[f] - c->g, r->loy[f] - c->g, r->loz[f] - c->g};
    const float q_hi[3] = {r->hix[f] + c->g, r->hiy[f] + c->g, r->hiz[f] + c->g};
    int32_t stk[64 * W];
    int sp = 0;
    stk[sp++] = node;
    while (sp) {
        const clash_bvh_node *n = &t->node[stk[--sp]];
        unsigned m = clash_bvh_overlap(n, q_lo, q_hi);
        while (m) {
            const int k = __builtin_ctz(m);
            m &= m - 1;
            const int32_t ch = n->child[k];
            if (ch > 0) {
                if (sp < (int)(sizeof stk / sizeof *stk)) stk[sp++] = ch;
                else if (face_vs_node(c, f, t, ch)) return -1;
            } else {
                const uint32_t *p = t->prim + (-ch - 1);
                for (int j = 0; j < n->count[k]; ++j)
                    if (emit(c, f, p[j])) return -1;
            }
        }
    }
    return 0;
}

static int leaf_vs_leaf(tctx *c, const uint32_t *p, int np, const uint32_t *q, int nq)
{
    for (int i = 0; i < np; ++i)
        for (int j = 0; j < nq; ++j)
            if (emit(c, p[i], q[j])) return -1;
    return 0;
}

/* Child slot i of node A (tree ta) against child slot j of node B (tree tb). */
static int slot_pair(tctx *c, item it, const clash_bvh *ta, const clash_bvh_node *A, int i, const clash_bvh *tb,
                     const clash_bvh_node *B, int j)
{
    const int32_t ca = A->child[i], cb = B->child[j];
    if (ca > 0 && cb > 0) {
        it.na = ca, it.nb = cb, it.self = 0;
        return push(c->st, it);
    }
    if (ca < 0 && cb < 0) return leaf_vs_leaf(c, ta->prim + (-ca - 1), A->count[i], tb->prim + (-cb - 1), B->count[j]);
    if (ca < 0) {
        const uint32_t *p = ta->prim + (-ca - 1);
        for (int k = 0; k < A->count[i]; ++k)
            if (face_vs_node(c, p[k], tb, cb)) return -1;
        return 0;
    }
    const uint32_t *p = tb->prim + (-cb - 1);
    for (int k = 0; k < B->count[j]; ++k)
        if (face_vs_node(c, p[k], ta, ca)) return -1;
    return 0;
}

/* Processes one item: pushes follow-up items on c->st, emits leaf work. */
static int step_item(tctx *c, item it)
{
    const clash_run *r = c->run;
    const clash_bvh *ta = &c->bvh[it.oa], *tb = &c->bvh[it.ob];
    const clash_bvh_node *A = &ta->node[it.na];
    const float g = c->g;
    if (it.self) {
        for (int i = 0; i < W; ++i) {
            const int32_t ch = A->child[i];
            if (ch > 0) {
                item s = it;
                s.na = s.nb = ch;
                if (push(c->st, s)) return -1;
            } else if (ch < 0) {
                const uint32_t *p = ta->prim + (-ch - 1);
                for (int x = 0; x < A->count[i]; ++x)
                    for (int y = x + 1; y < A->count[i]; ++y)
                        if (emit(c, p[x], p[y])) return -1;
            }
        }
        for (int i = 0; i < W; ++i) {
            if (!A->child[i]) continue;
            float lo[3], hi[3];
            clash_bvh_slot_box(A, i, lo, hi);
            for (int d = 0; d < 3; ++d) lo[d] -= g, hi[d] += g;
            unsigned m = clash_bvh_overlap(A, lo, hi) & ~((2u << i) - 1); /* slots j > i */
            while (m) {
                const int j = __builtin_ctz(m);
                m &= m - 1;
                if (slot_pair(c, it, ta, A, i, ta, A, j)) return -1;
            }
        }
        return 0;
    }
    const clash_bvh_node *B = &tb->node[it.nb];
    const float *rlo = inf3, *rhi = ninf3;
    unsigned ma = (1u << W) - 1, mb = ma;
    if (it.pair >= 0) {
        rlo = r->op[it.pair].region.lo, rhi = r->op[it.pair].region.hi;
        ma = clash_bvh_overlap(A, rlo, rhi), mb = clash_bvh_overlap(B, rlo, rhi);
    }
    while (ma) {
        const int i = __builtin_ctz(ma);
        ma &= ma - 1;
        float lo[3], hi[3];
        clash_bvh_slot_box(A, i, lo, hi);
        for (int d = 0; d < 3; ++d) lo[d] -= g, hi[d] += g;
        unsigned m = clash_bvh_overlap(B, lo, hi) & mb;
        while (m) {
            const int j = __builtin_ctz(m);
            m &= m - 1;
            if (slot_pair(c, it, ta, A, i, tb, B, j)) return -1;
        }
    }
    return 0;
}

typedef struct uctx {
    clash_run *run;
    const item *units;
    stack *st;  /* per worker */
    int failed;
} uctx;

static void run_units(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    uctx *u = p;
    tctx c = {u->run, u->run->bvh, &u->run->wbuf[worker], &u->st[worker], 2 * u->run->delta};
    for (int64_t k = begin; k < end; k += step) {
        c.st->n = 0;
        if (push(c.st, u->units[k])) goto fail;
        while (c.st->n)
            if (step_item(&c, c.st->v[--c.st->n])) goto fail;
    }
    return;
fail:
    u->failed = 1;
}

int clash_mid_gather(clash_run *run)
{
    size_t total = 0;
    for (int w = 0; w < run->threads; ++w) total += run->wbuf[w].n;
    if (total > run->cap_cand) {
        uint64_t *nc = realloc(run->cand, total * sizeof *nc);
        if (!nc) return -1;
        run->cand = nc, run->cap_cand = total;
    }
    size_t n = 0;
    for (int w = 0; w < run->threads; ++w) {
        if (run->wbuf[w].n) memcpy(run->cand + n, run->wbuf[w].v, run->wbuf[w].n * sizeof(uint64_t));
        n += run->wbuf[w].n;
    }
    n = clash_sort_unique_u64(run->cand, n);
    if (n == (size_t)-1) return -1;
    run->ncand = n;
    return 0;
}

void clash_midphase_free(clash_run *run)
{
    if (run->bvh)
        for (int o = 0; o < run->sc->nobj; ++o) clash_bvh_free(&run->bvh[o]);
    free(run->bvh);
    run->bvh = NULL;
    run->bvh_built = 0;
}

/* Builds (first step) or refits (later steps) every object's BVH. */
static int update_trees(clash_run *run)
{
    const clash_scene *sc = run->sc;
    const clash_boxes_soa bx = {run->lox, run->loy, run->loz, run->hix, run->hiy, run->hiz};
    if (!run->bvh) {
        run->bvh = calloc((size_t)sc->nobj, sizeof(clash_bvh));
        if (!run->bvh) return -1;
        run->bvh_built = 0;
    }
    if (run->bvh_built) {
        for (int o = 0; o < sc->nobj; ++o) clash_bvh_refit(&run->bvh[o], bx);
        return 0;
    }
    uint32_t *ids = malloc(sizeof(uint32_t) * (size_t)(sc->nf ? sc->nf : 1));
    if (!ids) return -1;
    for (int64_t f = 0; f < sc->nf; ++f) ids[f] = (uint32_t)f;
    for (int o = 0; o < sc->nobj; ++o)
        if (clash_bvh_build(&run->bvh[o], run->bvh_builder, ids + sc->fofs[o], (int32_t)(sc->fofs[o + 1] - sc->fofs[o]),
                            bx)) {
            free(ids);
            return -1;
        }
    free(ids);
    run->bvh_built = 1;
    return 0;
}

int clash_bvh_candidates(clash_run *run, clash_error *err)
{
    const clash_scene *sc = run->sc;
    run->ncand = 0;
    if (update_trees(run)) return clash_fail(err, CLASH_EFAIL, "out of memory building the BVHs");
    stack units = {0};
    uctx u = {.run = run};
    int rc = CLASH_OK;
    for (size_t i = 0; i < run->nop; ++i)
        if (push(&units, (item){run->op[i].a, run->op[i].b, 0, 0, 0, (int32_t)i})) goto oom;
    if (run->cfg.self_collision)
        for (int o = 0; o < sc->nobj; ++o)
            if (sc->fofs[o + 1] - sc->fofs[o] > 1 && push(&units, (item){o, o, 0, 0, 1, -1})) goto oom;
    for (int w = 0; w < run->threads; ++w) run->wbuf[w].n = 0;
    u.st = calloc(clash_team(run), sizeof(stack));
    if (!u.st) goto oom;
    if (run->threads > 1) {
        /* Expand the top levels into more units; leaf work met on the way is done here (worker 0). */
        tctx c = {run, run->bvh, &run->wbuf[0], &u.st[0], 2 * run->delta};
        for (int round = 0; round < 4 && units.n < (size_t)(64 * run->threads); ++round) {
            stack next = {0};
            c.st = &next;
            for (size_t k = 0; k < units.n; ++k)
                if (step_item(&c, units.v[k])) {
                    free(next.v);
                    goto oom;
                }
            free(units.v);
            units = next;
        }
    }
    u.units = units.v;
    if (clash_par_tasks(&run->exec, (int64_t)units.n, 1, run_units, &u) < 0) {
        rc = clash_fail(err, CLASH_EINPUT, "schedule not available for the bvh midphase");
        goto done;
    }
    if (u.failed || clash_mid_gather(run)) goto oom;
    goto done;
oom:
    rc = clash_fail(err, CLASH_EFAIL, "out of memory in the bvh midphase");
done:
    if (u.st)
        for (int w = 0; w < run->threads; ++w) free(u.st[w].v);
    free(u.st);
    free(units.v);
    return rc;
}
