/*
 * boxtree.c — stage S4 as Zachmann's BoxTree (`--midphase boxtree`,
 * [Zachmann00] §3.5.4–3.5.7), for rigid objects.
 *
 * The tree (§3.5.4).  A binary hierarchy of boxes aligned with the object's
 * own axes, built once over the local coordinates.  A child box is its
 * father's box with one side moved inwards along the node's splitting axis
 * α: the left child keeps the father's lower side and ends at the left
 * cutting plane, the right child starts at the right cutting plane.  The
 * two planes may leave the children overlapping (the re-alignment traversal
 * of §3.5.6 allows c_l != c_r, so no face ever "crosses").  A node stores
 * only α and the two cuts, as the distances each child's box moves in from
 * the father's side (rounded towards zero, so a child's box never shrinks
 * below its faces); the boxes themselves are never stored.  A child may be
 * empty: a node can just "split off" an empty slab of its box (§3.5.7,
 * Fig. 3.22), tightening its one child.  Leaves hold up to BT_LEAF faces.
 *
 * Construction (§3.5.7).  Top-down: at a node with faces F inside its box,
 *  1. the largest empty slab between the box and the faces' bounding box,
 *     relative to the box's extent on that axis, is split off when it is
 *     above BT_EMPTY;
 *  2. otherwise, for each axis, F is split greedily: the faces are taken in
 *     the order of their centres, alternately from the lower and the upper
 *     end (the thesis's remedy for sets that come sorted, §3.5.9), and each
 *     joins the side (left box grown upwards from the father's lower side,
 *     right box grown downwards from its upper side) that it extends least,
 *     the smaller set on a tie;
 *  3. the axis is chosen by criterion 1, the thesis's best of 14: minimise
 *     the overlap of the two sub-boxes minus the faces' extent on the axis,
 *     (c_hl - c_lr) - d'_α.  If no axis gives two non-empty sides, the
 *     faces are split at the median of the longest axis.
 * The faces are kept sorted by centre on all three axes and every split
 * partitions the three orders stably, so a level costs O(n) besides the
 * one initial sort (the thesis argues O(n) for the whole build).
 *
 * Traversal by re-alignment (§3.5.6).  Object B is queried against object A
 * in A's frame (rigidtree.c: the views M, and Q, M' in swept mode).  Each
 * of B's boxes is enclosed by the box aligned with A's axes; descending from
 * a father to a child changes only three of its six values: with b¹ the
 * column α of the view's matrix (B's splitting axis seen in A's frame), the
 * left child whose upper side moved in by c has, on each axis x of A,
 *     hi_x -= c b¹_x  when b¹_x > 0,   lo_x -= c b¹_x  otherwise,
 * and the right child, whose lower side moved in by c,
 *     lo_x += c b¹_x  when b¹_x > 0,   hi_x += c b¹_x  otherwise:
 * three multiplications per child and view, instead of transforming eight
 * corners.  A's own boxes are the same formula with the identity view.  A
 * pair of nodes whose aligned boxes (the union over each side's views,
 * each grown by the margin of rigidtree.c) overlap is refined: both inner,
 * the four pairs of children (the thesis's simultaneous traversal); one a
 * leaf, the children of the other.  Two leaves give their face pairs
 * (rt_leaf_pairs).  The aligned boxes travel with the traversal items, so
 * each is computed once from its father's; a pair whose roots' aligned
 * boxes are apart is dropped before traversal.  With self-collision an
 * object's tree is traversed against itself: a node against itself gives
 * each child against itself and the two children against each other.
 *
 * Cost: a box test is 6 comparisons, a child's box 3 multiply-adds per view
 * (the thesis counts 1.5 multiplications, 2 additions and 2.5 comparisons
 * per box-box test).  The trees are built on the first step, timed and
 * measured for the run report; later steps only traverse.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/sort.h"
#include "stages/mid/midphase.h"
#include "stages/mid/rigidtree.h"

enum { BT_LEAF = 4, LEAF_AXIS = 3 };
#define BT_EMPTY 0.2 /* empty slabs wider than this fraction of the box are split off */

typedef struct bt_node {
    float cut[2];    /* inner: how far the left child's upper side / right child's lower side moves in */
    int32_t kid[2];  /* inner: child nodes, -1 for an empty child; leaf: first face in face[], count */
    int32_t axis;    /* 0..2, LEAF_AXIS for a leaf */
} bt_node;

typedef struct bt_tree {
    bt_node *node;
    int32_t nnode, depth;
    size_t cap;
    uint32_t *face;      /* global face numbers in leaf order */
    float lo[3], hi[3];  /* root box, local frame */
} bt_tree;

/* ---- construction --------------------------------------------------------------------- */

typedef struct task {
    int32_t node, b, e, depth;
    float lo[3], hi[3];
} task;

typedef struct builder {
    bt_tree *t;
    int32_t n;
    float *flo[3], *fhi[3];  /* local face boxes, by local face number */
    uint32_t *ord[3];        /* local face numbers sorted by centre on each axis */
    uint32_t *tmp;
    uint8_t *side;           /* 0 left, 1 right */
    task *stk;
    size_t nstk, capstk;
} builder;

static inline uint32_t float_key(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

/* x >= 0 rounded to a float towards zero. */
static float down(double x)
{
    float f = (float)x;
    if ((double)f > x) f = nextafterf(f, 0.0f);
    return f > 0 ? f : 0.0f;
}

static int32_t new_node(bt_tree *t)
{
    if (clash_grow((void **)&t->node, &t->cap, (size_t)t->nnode + 1, sizeof(bt_node))) return -1;
    memset(&t->node[t->nnode], 0, sizeof(bt_node));
    return t->nnode++;
}

static int push_task(builder *B, task k)
{
    if (clash_grow((void **)&B->stk, &B->capstk, B->nstk + 1, sizeof(task))) return -1;
    B->stk[B->nstk++] = k;
    return 0;
}

/* Greedy split of ord[ax][b..e) inside [lo, hi] on axis ax (§3.5.7): fills
 * side[] when mark, returns the counts and the two cutting planes. */
static void greedy(builder *B, int ax, int32_t b, int32_t e, float lo, float hi, int mark, int32_t *nl, int32_t *nr,
                   float *hl, float *lr)
{
    const uint32_t *o = B->ord[ax];
    const float *fl = B->flo[ax], *fh = B->fhi[ax];
    float cl = lo, cr = hi;
    int32_t l = 0, r = 0, i = b, j = e - 1;
    for (int32_t k = 0; k < e - b; ++k) {
        const uint32_t f = k & 1 ? o[j--] : o[i++];
        const float xl = fh[f] > cl ? fh[f] - cl : 0, xr = cr > fl[f] ? cr - fl[f] : 0;
        const int right = xl > xr || (xl == xr && r < l);
        if (right) cr = rt_minf(cr, fl[f]), ++r;
        else cl = rt_maxf(cl, fh[f]), ++l;
        if (mark) B->side[f] = (uint8_t)right;
    }
    *nl = l, *nr = r, *hl = cl, *lr = cr;
}

/* Stable partition of the three orders of [b, e) by side[]: left first. */
static void partition(builder *B, int32_t b, int32_t e)
{
    for (int ax = 0; ax < 3; ++ax) {
        uint32_t *o = B->ord[ax];
        int32_t n = 0;
        for (int32_t k = b; k < e; ++k)
            if (!B->side[o[k]]) o[b + n++] = o[k];
            else B->tmp[k - b - n] = o[k];
        memcpy(o + b + n, B->tmp, (size_t)(e - b - n) * sizeof(uint32_t));
    }
}

static int build_node(builder *B, task k)
{
    bt_tree *t = B->t;
    bt_node *nd = &t->node[k.node];
    if (k.depth > t->depth) t->depth = k.depth;
    float bl[3] = {INFINITY, INFINITY, INFINITY}, bh[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t i = k.b; i < k.e; ++i) {
        const uint32_t f = B->ord[0][i];
        for (int d = 0; d < 3; ++d) bl[d] = rt_minf(bl[d], B->flo[d][f]), bh[d] = rt_maxf(bh[d], B->fhi[d][f]);
    }
    /* 1. the widest empty slab, relative to the box */
    int gax = -1, gside = 0;
    double gbest = BT_EMPTY;
    for (int d = 0; d < 3; ++d) {
        const double ext = (double)k.hi[d] - k.lo[d];
        if (!(ext > 0)) continue;
        const double g0 = ((double)bl[d] - k.lo[d]) / ext, g1 = ((double)k.hi[d] - bh[d]) / ext;
        if (g0 > gbest) gbest = g0, gax = d, gside = 1;
        if (g1 > gbest) gbest = g1, gax = d, gside = 0;
    }
    if (gax >= 0) {
        const int32_t c = new_node(t);
        if (c < 0) return -1;
        nd = &t->node[k.node];
        task ch = k;
        ch.node = c, ch.depth = k.depth + 1;
        nd->axis = gax;
        nd->kid[gside] = c, nd->kid[1 - gside] = -1;
        if (gside == 0) nd->cut[0] = down((double)k.hi[gax] - bh[gax]), ch.hi[gax] = bh[gax];
        else nd->cut[1] = down((double)bl[gax] - k.lo[gax]), ch.lo[gax] = bl[gax];
        return push_task(B, ch);
    }
    if (k.e - k.b <= BT_LEAF) {
        nd->axis = LEAF_AXIS, nd->kid[0] = k.b, nd->kid[1] = k.e - k.b;
        return 0;
    }
    /* 2.-3. the greedy split of each axis, judged by criterion 1 */
    int ax = -1;
    double best = INFINITY;
    for (int d = 0; d < 3; ++d) {
        int32_t nl, nr;
        float hl, lr;
        greedy(B, d, k.b, k.e, k.lo[d], k.hi[d], 0, &nl, &nr, &hl, &lr);
        const double f1 = ((double)hl - lr) - ((double)bh[d] - bl[d]);
        if (nl && nr && f1 < best) best = f1, ax = d;
    }
    int32_t nl, nr;
    float hl, lr;
    if (ax >= 0) {
        greedy(B, ax, k.b, k.e, k.lo[ax], k.hi[ax], 1, &nl, &nr, &hl, &lr);
    } else { /* no greedy split: the median of the longest axis */
        ax = 0;
        for (int d = 1; d < 3; ++d)
            if (bh[d] - bl[d] > bh[ax] - bl[ax]) ax = d;
        nl = (k.e - k.b) / 2, nr = k.e - k.b - nl;
        hl = k.lo[ax], lr = k.hi[ax];
        for (int32_t i = k.b; i < k.e; ++i) {
            const uint32_t f = B->ord[ax][i];
            B->side[f] = i >= k.b + nl;
            if (i < k.b + nl) hl = rt_maxf(hl, B->fhi[ax][f]);
            else lr = rt_minf(lr, B->flo[ax][f]);
        }
    }
    partition(B, k.b, k.e);
    const int32_t c0 = new_node(t), c1 = c0 < 0 ? -1 : new_node(t);
    if (c1 < 0) return -1;
    nd = &t->node[k.node];
    nd->axis = ax, nd->kid[0] = c0, nd->kid[1] = c1;
    nd->cut[0] = down((double)k.hi[ax] - hl), nd->cut[1] = down((double)lr - k.lo[ax]);
    task l = k, r = k;
    l.node = c0, l.e = k.b + nl, l.hi[ax] = hl, l.depth = k.depth + 1;
    r.node = c1, r.b = k.b + nl, r.lo[ax] = lr, r.depth = k.depth + 1;
    return push_task(B, l) || push_task(B, r) ? -1 : 0;
}

/* The tree of object o from its local coordinates. */
static int build_tree(const clash_scene *sc, int o, bt_tree *t)
{
    memset(t, 0, sizeof *t);
    const int64_t f0 = sc->fofs[o];
    const int32_t n = (int32_t)(sc->fofs[o + 1] - f0);
    if (n <= 0) return 0;
    builder B = {.t = t, .n = n};
    float *fb = malloc(sizeof(float) * 6 * (size_t)n);
    uint32_t *ob = malloc(sizeof(uint32_t) * 4 * (size_t)n);
    uint64_t *keys = malloc(sizeof(uint64_t) * 2 * (size_t)n);
    B.side = malloc((size_t)n);
    t->face = malloc(sizeof(uint32_t) * (size_t)n);
    int rc = -1;
    if (!fb || !ob || !keys || !B.side || !t->face) goto done;
    for (int d = 0; d < 3; ++d) B.flo[d] = fb + (size_t)d * n, B.fhi[d] = fb + (size_t)(3 + d) * n;
    for (int d = 0; d < 3; ++d) B.ord[d] = ob + (size_t)d * n;
    B.tmp = ob + 3 * (size_t)n;
    const float *L[3] = {sc->lx, sc->ly, sc->lz};
    for (int d = 0; d < 3; ++d) t->lo[d] = INFINITY, t->hi[d] = -INFINITY;
    for (int32_t i = 0; i < n; ++i) {
        const int32_t v[3] = {sc->f0[f0 + i], sc->f1[f0 + i], sc->f2[f0 + i]};
        for (int d = 0; d < 3; ++d) {
            const float a = L[d][v[0]], b = L[d][v[1]], c = L[d][v[2]];
            B.flo[d][i] = rt_minf(a, rt_minf(b, c)), B.fhi[d][i] = rt_maxf(a, rt_maxf(b, c));
            t->lo[d] = rt_minf(t->lo[d], B.flo[d][i]), t->hi[d] = rt_maxf(t->hi[d], B.fhi[d][i]);
        }
    }
    for (int d = 0; d < 3; ++d) {
        for (int32_t i = 0; i < n; ++i)
            keys[i] = (uint64_t)float_key(0.5f * B.flo[d][i] + 0.5f * B.fhi[d][i]) << 32 | (uint32_t)i;
        if (clash_sort_u64(keys, (size_t)n, keys + n)) goto done;
        for (int32_t i = 0; i < n; ++i) B.ord[d][i] = (uint32_t)keys[i];
    }
    if (new_node(t) < 0) goto done;
    task root = {0, 0, n, 0, {t->lo[0], t->lo[1], t->lo[2]}, {t->hi[0], t->hi[1], t->hi[2]}};
    if (push_task(&B, root)) goto done;
    while (B.nstk)
        if (build_node(&B, B.stk[--B.nstk])) goto done;
    for (int32_t i = 0; i < n; ++i) t->face[i] = (uint32_t)(f0 + B.ord[0][i]);
    if ((size_t)t->nnode < t->cap) { /* the nodes in use only */
        void *v = realloc(t->node, (size_t)t->nnode * sizeof(bt_node));
        if (v) t->node = v, t->cap = (size_t)t->nnode;
    }
    rc = 0;
done:
    free(fb), free(ob), free(keys), free(B.side), free(B.stk);
    return rc;
}

static void destroy_trees(void *p, int nobj)
{
    bt_tree *t = p;
    if (t)
        for (int o = 0; o < nobj; ++o) free(t[o].node), free(t[o].face);
    free(t);
}

static int build_one(void *p, int64_t o)
{
    const clash_run *run = p;
    return build_tree(run->sc, (int)o, &((bt_tree *)run->mid->rtrees->trees)[o]);
}

/* ---- traversal -------------------------------------------------------------------------- */

/* A pair of nodes with their aligned boxes: box[v] for A's views v < nva,
 * box[nva + v] for B's; lo x y z, hi x y z.  Only the first
 * offsetof(box) + (nva + nvb) * 6 doubles travel on the stack. */
typedef struct bt_item {
    int32_t pair, na, nb, self;
    double box[4][6];
} bt_item;

typedef struct bt_ctx {
    clash_run *run;
    const bt_tree *t;
    const rt_pair *p;
} bt_ctx;

/* The boxes of child k of node nd under nv views, from the father's (§3.5.6). */
static inline void child_boxes(const bt_node *nd, int k, const rt_view *views, int nv, const double (*in)[6],
                        double (*out)[6])
{
    const int ax = nd->axis;
    const double c = nd->cut[k];
    for (int v = 0; v < nv; ++v) {
        const double *V = views[v].V;
        double *b = out[v];
        memcpy(b, in[v], 6 * sizeof(double));
        for (int x = 0; x < 3; ++x) {
            const double m = V[3 * x + ax] * c;
            if (k == 0) { /* the upper side moved in */
                if (m > 0) b[3 + x] -= m;
                else b[x] -= m;
            } else { /* the lower side moved in */
                if (m > 0) b[x] += m;
                else b[3 + x] += m;
            }
        }
    }
}

/* The unions of a's nva boxes and b's nvb boxes overlap, each grown by g. */
static inline int boxes_meet(const double (*a)[6], int nva, const double (*b)[6], int nvb, double g)
{
    for (int x = 0; x < 3; ++x) {
        double alo = a[0][x], ahi = a[0][3 + x], blo = b[0][x], bhi = b[0][3 + x];
        if (nva > 1) alo = rt_min(alo, a[1][x]), ahi = rt_max(ahi, a[1][3 + x]);
        if (nvb > 1) blo = rt_min(blo, b[1][x]), bhi = rt_max(bhi, b[1][3 + x]);
        if (alo > bhi + 2 * g || blo > ahi + 2 * g) return 0;
    }
    return 1;
}

/* The nodes one side offers to the next level: its non-empty children with their boxes, or itself when a leaf. */
static inline int offer(const bt_tree *t, int32_t node, const rt_view *views, int nv, const double (*box)[6], int32_t id[2],
                 double (*ob)[2][6])
{
    const bt_node *nd = &t->node[node];
    if (nd->axis == LEAF_AXIS) {
        id[0] = node;
        memcpy(ob[0], box, (size_t)nv * 6 * sizeof(double));
        return 1;
    }
    int n = 0;
    for (int k = 0; k < 2; ++k)
        if (nd->kid[k] >= 0) {
            id[n] = nd->kid[k];
            child_boxes(nd, k, views, nv, box, ob[n++]);
        }
    return n;
}

/* One traversal step with nv views a side (a constant in each caller, so the view loops unroll). */
static inline __attribute__((always_inline)) int step_nv(const void *cp, const void *ip, rt_stack *st,
                                                         clash_keybuf *kb, const int nv)
{
    const bt_ctx *c = cp;
    const bt_item *it = ip;
    const rt_pair *p = &c->p[it->pair];
    const bt_tree *ta = &c->t[p->a], *tb = &c->t[p->b];
    const bt_node *A = &ta->node[it->na], *B = &tb->node[it->nb];
    const int nva = nv, nvb = nv;
    if (A->axis == LEAF_AXIS && B->axis == LEAF_AXIS) {
        const uint32_t *fa = ta->face + A->kid[0], *fb = it->self ? fa : tb->face + B->kid[0];
        return rt_leaf_pairs(c->run, kb, fa, A->kid[1], fb, B->kid[1]);
    }
    int32_t ia[2], ib[2];
    double ba[2][2][6], bb[2][2][6];
    const int na = offer(ta, it->na, p->va, nva, (const double(*)[6])it->box, ia, ba);
    const int nb = offer(tb, it->nb, p->vb, nvb, (const double(*)[6])(it->box + nva), ib, bb);
    bt_item ch = {.pair = it->pair};
    if (it->self) { /* a node against itself: each child against itself, then the two children */
        for (int i = 0; i < na; ++i) {
            ch.na = ch.nb = ia[i], ch.self = 1;
            memcpy(ch.box, ba[i], (size_t)nva * 6 * sizeof(double));
            memcpy(ch.box + nva, bb[i], (size_t)nvb * 6 * sizeof(double));
            if (rt_push(st, &ch)) return -1;
        }
        if (na < 2 || !boxes_meet((const double(*)[6])ba[0], nva, (const double(*)[6])bb[1], nvb, p->grow))
            return 0;
        ch.na = ia[0], ch.nb = ia[1], ch.self = 0;
        memcpy(ch.box, ba[0], (size_t)nva * 6 * sizeof(double));
        memcpy(ch.box + nva, bb[1], (size_t)nvb * 6 * sizeof(double));
        return rt_push(st, &ch);
    }
    ch.self = 0;
    for (int i = 0; i < na; ++i)
        for (int j = 0; j < nb; ++j) {
            if (!boxes_meet((const double(*)[6])ba[i], nva, (const double(*)[6])bb[j], nvb, p->grow)) continue;
            ch.na = ia[i], ch.nb = ib[j];
            __builtin_prefetch(&ta->node[ch.na]), __builtin_prefetch(&tb->node[ch.nb]);
            memcpy(ch.box, ba[i], (size_t)nva * 6 * sizeof(double));
            memcpy(ch.box + nva, bb[j], (size_t)nvb * 6 * sizeof(double));
            if (rt_push(st, &ch)) return -1;
        }
    return 0;
}

static int bt_step1(const void *cp, const void *ip, rt_stack *st, clash_keybuf *kb)
{
    return step_nv(cp, ip, st, kb, 1);
}

static int bt_step2(const void *cp, const void *ip, rt_stack *st, clash_keybuf *kb)
{
    return step_nv(cp, ip, st, kb, 2);
}

/* ---- the midphase ------------------------------------------------------------------------- */

static int build_all(clash_run *run, clash_error *err)
{
    const clash_scene *sc = run->sc;
    const double t0 = rt_now();
    clash_rtrees *r = calloc(1, sizeof *r);
    bt_tree *t = calloc((size_t)(sc->nobj ? sc->nobj : 1), sizeof *t);
    if (!r || !t) {
        free(r), free(t);
        return clash_fail(err, CLASH_EFAIL, "out of memory building the BoxTrees");
    }
    r->midphase = CLASH_MID_BOXTREE, r->trees = t, r->destroy = destroy_trees;
    run->mid->rtrees = r;
    if (clash_par_each(&run->exec, sc->nobj, build_one, run)) return clash_fail(err, CLASH_EFAIL, "out of memory building the BoxTrees");
    size_t bytes = sizeof *r + (size_t)sc->nobj * sizeof *t;
    for (int o = 0; o < sc->nobj; ++o)
        bytes += (size_t)t[o].nnode * sizeof(bt_node) + (size_t)(sc->fofs[o + 1] - sc->fofs[o]) * sizeof(uint32_t);
    run->mid->bytes = bytes;
    run->mid->build_s = rt_now() - t0;
    return CLASH_OK;
}

int clash_boxtree_candidates(clash_run *run, clash_error *err)
{
    const clash_scene *sc = run->sc;
    int rc;
    run->mid->cand.n = 0;
    run->mid->build_s = 0;
    if (!run->mid->rtrees && (rc = build_all(run, err))) return rc;
    const bt_tree *t = run->mid->rtrees->trees;
    double *radius = malloc(sizeof(double) * (size_t)(sc->nobj ? sc->nobj : 1));
    if (!radius) return clash_fail(err, CLASH_EFAIL, "out of memory in the boxtree midphase");
    int32_t depth = 0;
    for (int o = 0; o < sc->nobj; ++o) {
        radius[o] = 0;
        for (int d = 0; d < 3; ++d) radius[o] = rt_max(radius[o], rt_max(fabs(t[o].lo[d]), fabs(t[o].hi[d])));
        if (t[o].depth > depth) depth = t[o].depth;
    }
    size_t np;
    /* each level adds at most three roundings of the box values to their error */
    rt_pair *p = rt_pairs(run, radius, 1e-12 + 1e-15 * depth, &np);
    free(radius);
    if (!p) return clash_fail(err, CLASH_EFAIL, "out of memory in the boxtree midphase");
    const int nv = run->cfg.mode == CLASH_MODE_SWEPT ? 2 : 1;
    rt_stack units = {.isz = offsetof(bt_item, box) + (size_t)(2 * nv) * 6 * sizeof(double)};
    rc = CLASH_OK;
    for (size_t i = 0; i < np && rc == CLASH_OK; ++i) {
        if (!t[p[i].a].nnode || !t[p[i].b].nnode) continue;
        bt_item it = {.pair = (int32_t)i, .na = 0, .nb = 0, .self = p[i].a == p[i].b};
        for (int v = 0; v < nv; ++v) {
            const double lo[3] = {t[p[i].a].lo[0], t[p[i].a].lo[1], t[p[i].a].lo[2]};
            const double hi[3] = {t[p[i].a].hi[0], t[p[i].a].hi[1], t[p[i].a].hi[2]};
            const double blo[3] = {t[p[i].b].lo[0], t[p[i].b].lo[1], t[p[i].b].lo[2]};
            const double bhi[3] = {t[p[i].b].hi[0], t[p[i].b].hi[1], t[p[i].b].hi[2]};
            rt_view_box(&p[i].va[v], lo, hi, it.box[v], it.box[v] + 3);
            rt_view_box(&p[i].vb[v], blo, bhi, it.box[nv + v], it.box[nv + v] + 3);
        }
        if (!it.self && !boxes_meet((const double(*)[6])it.box, nv, (const double(*)[6])(it.box + nv), nv, p[i].grow))
            continue; /* the roots' aligned boxes are apart */
        if (rt_push(&units, &it)) rc = clash_fail(err, CLASH_EFAIL, "out of memory in the boxtree midphase");
    }
    if (rc == CLASH_OK) {
        const bt_ctx c = {run, t, p};
        rc = rt_traverse(run, &units, nv == 1 ? bt_step1 : bt_step2, NULL, &c, "boxtree", err);
    }
    free(units.v), free(p);
    return rc;
}
