/*
 * bvh.c — stage S4 as BVH x BVH traversal (`--midphase bvh`).
 *
 * Every object keeps a wide BVH over its faces (bvh.h) in the run.  The
 * first step builds it from the S1 face boxes (binned SAH, or Morton with
 * run->mid->bvh_builder).  On every later step S1 itself is the refit
 * (clash_bvh_stage_boxes, called by the pipeline's S1): each tree computes
 * its face boxes straight from the vertex positions in leaf order with the
 * S1 kernel and refits its nodes bottom-up (bvh.c), and the object boxes are
 * the roots' boxes, the same values S1 computes; the face-order boxes
 * run->boxes->lox.. are then not written, nothing in this midphase reads them.  So
 * rigid and deforming objects are handled alike and the refit is counted in
 * the step (in S1).  In a swept step where an object turns, S1 computes the
 * face boxes as usual, grown by the arc margins (stages/facetest.h), and the
 * trees are refitted from them.
 *
 * Work.  For each object pair (a, b) of S2 with overlap region R (already
 * grown by delta) the two trees are traversed simultaneously from their
 * roots (the roots' children masked by the ones that meet R): a pair of
 * inner nodes (A, B) tests each child box of A, grown by 2*delta, against
 * all W child boxes of B with packed compares.  Overlapping child pairs are
 * pushed (inner, inner), or resolved at once: a leaf against an inner node
 * descends that node with the leaf's box, two leaves test their up to 4 x 4
 * face boxes (the trees' leaf-order boxes) with packed compares and emit the
 * overlapping pairs.  With self-collision each object's tree is also
 * traversed against itself: a node against itself recurses into each child
 * against itself and into each overlapping pair of distinct children.  A
 * face pair becomes a candidate when it is eligible and its face boxes
 * overlap grown by 2*delta, exactly clash_faceboxes_overlap's predicate (the
 * oracle's) on the same box values, so the candidate set contains every
 * pair the oracle would test.
 *
 * Parallelism: with more than one thread the root pairs are expanded a few
 * levels serially into units of (node, node) pairs that the coarse-grain
 * strategy hands out; each worker appends to its own buffer, and the
 * buffers are merged, sorted and de-duplicated (clash_mid_gather).  The
 * refits of S1 run over the objects in parallel.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bvh.h"
#include "base/error.h"
#include "stages/mid/bvh_leaf.h"
#include "stages/mid/midphase.h"
#include "base/sort.h"

#define W CLASH_BVH_WIDTH

typedef struct item {
    int32_t oa, ob;  /* objects (equal for self-collision work) */
    int32_t na, nb;  /* nodes of bvh[oa], bvh[ob] */
    int32_t self;    /* 1: node na against itself */
    int32_t pair;    /* index into run->broad->op, or -1: no region (self) */
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

/* Slot k of node n grown by g. */
static inline void slot_query(const clash_bvh_node *n, int k, float g, float q[6])
{
    q[0] = n->lox[k] - g, q[1] = n->loy[k] - g, q[2] = n->loz[k] - g;
    q[3] = n->hix[k] + g, q[4] = n->hiy[k] + g, q[5] = n->hiz[k] + g;
}

/* The faces of leaf (ta, offset oa, count ca) against those of leaf (tb, ob,
 * cb), by their leaf-order copies of S1's face boxes (bvh_leaf.h). */
static int leaf_leaf(tctx *c, const clash_bvh *ta, int32_t oa, int ca, const clash_bvh *tb, int32_t ob, int cb,
                     int same)
{
    return bvh_leaf_pairs(c->run, c->kb, clash_bvh_leaf_rows(ta, oa), CLASH_BVH_LCHUNK, ta->prim + oa, ca,
                          clash_bvh_leaf_rows(tb, ob), CLASH_BVH_LCHUNK, tb->prim + ob, cb, same, NULL);
}

/* Leaf (tl, ol, cl) with box q (grown) against the subtree `node` of tree tn. */
static int leaf_vs_node(tctx *c, const clash_bvh *tl, int32_t ol, int cl, const float q[6], const clash_bvh *tn,
                        int32_t node, int same)
{
    int32_t stk[64 * W];
    int sp = 0;
    stk[sp++] = node;
    while (sp) {
        const clash_bvh_node *n = &tn->node[stk[--sp]];
        unsigned m = bvh_node_overlap(n, q);
        for (unsigned u = m; u; u &= u - 1) bvh_prefetch_child(tn, n->child[__builtin_ctz(u)]);
        while (m) {
            const int k = __builtin_ctz(m);
            m &= m - 1;
            const int32_t ch = n->child[k];
            if (ch > 0) {
                if (sp < (int)(sizeof stk / sizeof *stk)) stk[sp++] = ch;
                else if (leaf_vs_node(c, tl, ol, cl, q, tn, ch, same)) return -1;
            } else if (leaf_leaf(c, tl, ol, cl, tn, -ch - 1, n->count[k], same)) {
                return -1;
            }
        }
    }
    return 0;
}

/* Child slot i of node A (tree ta, qa: its box grown) against child slot j
 * of node B (tree tb). */
static int slot_pair(tctx *c, item it, const clash_bvh *ta, const clash_bvh_node *A, int i, const float qa[6],
                     const clash_bvh *tb, const clash_bvh_node *B, int j, int same)
{
    const int32_t ca = A->child[i], cb = B->child[j];
    if (ca > 0 && cb > 0) {
        it.na = ca, it.nb = cb, it.self = 0;
        return push(c->st, it);
    }
    if (ca < 0 && cb < 0) return leaf_leaf(c, ta, -ca - 1, A->count[i], tb, -cb - 1, B->count[j], same);
    if (ca < 0) return leaf_vs_node(c, ta, -ca - 1, A->count[i], qa, tb, cb, same);
    float qb[6];
    slot_query(B, j, c->g, qb);
    return leaf_vs_node(c, tb, -cb - 1, B->count[j], qb, ta, ca, same);
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
            } else if (ch < 0 && leaf_leaf(c, ta, -ch - 1, A->count[i], ta, -ch - 1, A->count[i], 1)) {
                return -1; /* both orders of each pair: merged by the gather */
            }
        }
        for (int i = 0; i < W; ++i) {
            if (!A->child[i]) continue;
            float q[6];
            slot_query(A, i, g, q);
            unsigned m = bvh_node_overlap(A, q) & ~((2u << i) - 1); /* slots j > i */
            while (m) {
                const int j = __builtin_ctz(m);
                m &= m - 1;
                if (slot_pair(c, it, ta, A, i, q, ta, A, j, 1)) return -1;
            }
        }
        return 0;
    }
    const clash_bvh_node *B = &tb->node[it.nb];
    const int same = it.oa == it.ob;
    unsigned ma = (1u << W) - 1, mb = ma;
    if (it.pair >= 0 && it.na == 0 && it.nb == 0) { /* the roots' children meeting the overlap region */
        const float *rlo = r->broad->op[it.pair].region.lo, *rhi = r->broad->op[it.pair].region.hi;
        const float R[6] = {rlo[0], rlo[1], rlo[2], rhi[0], rhi[1], rhi[2]};
        ma = bvh_node_overlap(A, R), mb = bvh_node_overlap(B, R);
    }
    /* the overlapping child pairs first, and their children's lines asked
     * for (a node is two cache lines, a leaf's boxes six, met at random),
     * then the pairs */
    float q[W][6];
    unsigned mm[W] = {0}, used_a = 0, used_b = 0;
    while (ma) {
        const int i = __builtin_ctz(ma);
        ma &= ma - 1;
        slot_query(A, i, g, q[i]);
        mm[i] = bvh_node_overlap(B, q[i]) & mb;
        if (mm[i]) used_a |= 1u << i, used_b |= mm[i];
    }
    for (unsigned u = used_a; u; u &= u - 1)
        bvh_prefetch_child(ta, A->child[__builtin_ctz(u)]);
    for (unsigned u = used_b; u; u &= u - 1)
        bvh_prefetch_child(tb, B->child[__builtin_ctz(u)]);
    for (int i = 0; i < W; ++i)
        for (unsigned m = mm[i]; m; m &= m - 1)
            if (slot_pair(c, it, ta, A, i, q[i], tb, B, __builtin_ctz(m), same)) return -1;
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
    tctx c = {u->run, u->run->mid->bvh, &u->run->mid->wbuf[worker], &u->st[worker], 2 * u->run->boxes->delta};
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

void clash_midphase_free(clash_run *run)
{
    clash_bvh_frames_free(run);
    if (run->mid->bvh)
        for (int o = 0; o < run->sc->nobj; ++o) clash_bvh_free(&run->mid->bvh[o]);
    free(run->mid->bvh);
    run->mid->bvh = NULL;
    run->mid->bvh_built = 0;
}

/* Refit of the objects [begin, end) straight from the vertex positions; the
 * object boxes are the roots' boxes (the union of the face boxes, as S1's). */
static void refit_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    clash_run *run = p;
    const clash_scene *sc = run->sc;
    const int swept = run->cfg.mode == CLASH_MODE_SWEPT;
    for (int64_t o = begin; o < end; o += step) {
        clash_bvh *t = &run->mid->bvh[o];
        clash_bvh_refit_faces(t, sc->x, sc->y, sc->z, swept ? sc->px : NULL, sc->py, sc->pz);
        for (int d = 0; d < 3; ++d) run->boxes->obox[o].lo[d] = t->lo[d], run->boxes->obox[o].hi[d] = t->hi[d];
    }
}

int clash_bvh_stage_boxes(clash_run *run)
{
    if (clash_bvh_frames_apply(run)) return clash_bvh_frames_boxes(run);
    if (!run->mid->bvh || !run->mid->bvh_built) return 1;
    /* swept, an object turning: S1 grows its faces' boxes by their arc margins, and the trees refit from those */
    if (run->cfg.mode == CLASH_MODE_SWEPT && run->sc->nturning) return 1;
    clash_par_for(&run->exec, run->sc->nobj, refit_range, run);
    run->mid->bvh_built = 2; /* refitted this step */
    return 0;
}

/* Builds (first step) every object's BVH from S1's face boxes; later steps
 * were refitted by S1 (clash_bvh_stage_boxes). */
static int update_trees(clash_run *run)
{
    const clash_scene *sc = run->sc;
    const clash_boxes_soa bx = {run->boxes->lox, run->boxes->loy, run->boxes->loz, run->boxes->hix, run->boxes->hiy, run->boxes->hiz};
    if (!run->mid->bvh) {
        run->mid->bvh = calloc((size_t)sc->nobj, sizeof(clash_bvh));
        if (!run->mid->bvh) return -1;
        run->mid->bvh_built = 0;
    }
    if (run->mid->bvh_built == 2) {
        run->mid->bvh_built = 1;
        return 0;
    }
    if (run->mid->bvh_built) { /* S1 computed the face boxes (not through clash_bvh_stage_boxes) */
        for (int o = 0; o < sc->nobj; ++o) clash_bvh_refit(&run->mid->bvh[o], bx);
        return 0;
    }
    uint32_t *ids = malloc(sizeof(uint32_t) * (size_t)(sc->nf ? sc->nf : 1));
    if (!ids) return -1;
    for (int64_t f = 0; f < sc->nf; ++f) ids[f] = (uint32_t)f;
    for (int o = 0; o < sc->nobj; ++o)
        if (clash_bvh_build(&run->mid->bvh[o], run->mid->bvh_builder, ids + sc->fofs[o], (int32_t)(sc->fofs[o + 1] - sc->fofs[o]),
                            bx) ||
            clash_bvh_set_faces(&run->mid->bvh[o], sc->f0, sc->f1, sc->f2)) {
            free(ids);
            return -1;
        }
    free(ids);
    run->mid->bvh_built = 1;
    return 0;
}

int clash_bvh_candidates(clash_run *run, clash_error *err)
{
    const clash_scene *sc = run->sc;
    if (clash_bvh_frames_apply(run)) return clash_bvh_frames_candidates(run, err);
    run->mid->cand.n = 0;
    if (update_trees(run)) return clash_fail(err, CLASH_EFAIL, "out of memory building the BVHs");
    stack units = {0};
    uctx u = {.run = run};
    int rc = CLASH_OK;
    for (size_t i = 0; i < run->broad->nop; ++i)
        if (push(&units, (item){run->broad->op[i].a, run->broad->op[i].b, 0, 0, 0, (int32_t)i})) goto oom;
    if (run->cfg.self_collision)
        for (int o = 0; o < sc->nobj; ++o)
            if (sc->fofs[o + 1] - sc->fofs[o] > 1 && clash_obj_self(run, o) && push(&units, (item){o, o, 0, 0, 1, -1}))
                goto oom;
    for (int w = 0; w < run->threads; ++w) run->mid->wbuf[w].n = 0;
    u.st = calloc(clash_team(run), sizeof(stack));
    if (!u.st) goto oom;
    if (run->threads > 1) {
        /* Expand the top levels into more units; leaf work met on the way is done here (worker 0). */
        tctx c = {run, run->mid->bvh, &run->mid->wbuf[0], &u.st[0], 2 * run->boxes->delta};
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
