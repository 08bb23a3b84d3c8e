/*
 * bvh.c — building the wide BVH of bvh.h (refitting it: bvh_refit.c).
 *
 * Build, top-down.  A node covers a range [begin, end) of the primitive
 * array prim[].  The range is cut into at most W parts: start with one
 * part; while fewer than W parts and some part holds more than a leaf,
 * split the part with the largest box surface area in two (binned SAH,
 * below; the Morton builder cuts differently).  Each part becomes a leaf slot (<= CLASH_BVH_LEAF
 * primitives) or a child node built recursively.  The part's box is the
 * union of its primitives' boxes, so it is exact, and refit reproduces it.
 *
 * Binned SAH split: 16 bins along the axis where the centroids spread most;
 * the cut between bins minimizes area(L)*|L| + area(R)*|R|; the range is
 * partitioned in place.  Centroids that coincide fall back to the middle.
 * A range of at most W leaves' worth (16) becomes a node of full leaves of
 * consecutive primitives after sorting its centroids along their widest
 * axis; a range of at most W^2 leaves' worth (64), sorted the same way,
 * parts of W full leaves each: fewer, fuller nodes near the leaves.
 *
 * Morton (linear) builder: prim[] is sorted once by the 30-bit Morton code of
 * each centroid (10 bits per axis in the box around all centroids) and cut
 * into complete subtrees along the curve: a range's parts hold cap = LEAF *
 * W^h primitives each (the last one the rest), cap the largest such power
 * below the range.  Leaves are full and nodes have W children except along
 * the tree's right edge, so there are about n / 12 nodes (W = 4): the
 * cheapest tree to refit.
 *
 * Padded leaves.  After the build sibling leaves that fit in one are
 * merged, the tree is collapsed (a child node whose children fit in its
 * parent's free slots is replaced by them) and every leaf is moved to a
 * multiple of 4 in prim[] (in node order, so a subtree's leaves are
 * contiguous), its unused places repeating its first primitive.  The
 * primitives' boxes are kept in that order as SoA rows in chunks of
 * CLASH_BVH_LCHUNK places (lbb), so a leaf's boxes are one aligned vector
 * of 4 per coordinate, read like a node's, and the copies change no union.
 *
 *
 * Refit: bvh_refit.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/bvh.h"
#include "kernels/bvh_kernels.h"
#include "kernels/kernels.h"
#include "base/sort.h"

/* min/max as compare-and-select: fminf/fmaxf stay library calls in GCC (they
 * must handle NaN), and a refit is nothing but these. Boxes hold no NaN. */
static inline float bmin(float a, float b) { return b < a ? b : a; }
static inline float bmax(float a, float b) { return b > a ? b : a; }

#define W CLASH_BVH_WIDTH
#define NBINS 16

unsigned clash_bvh_overlap(const clash_bvh_node *n, const float lo[3], const float hi[3])
{
#if CLASH_BVH_WIDTH == 4
    return ck_bvh4_overlap(n->lox, lo, hi);
#else
    return ck_bvh8_overlap(n->lox, lo, hi);
#endif
}

typedef struct part {
    int32_t b, e;
    float lo[3], hi[3];
} part;

typedef struct bctx {
    clash_bvh *t;
    clash_boxes_soa bx;
    int builder;
} bctx;

static void range_bounds(const bctx *c, part *p)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    const uint32_t *pr = c->t->prim;
    for (int32_t i = p->b; i < p->e; ++i) {
        const uint32_t f = pr[i];
        lo[0] = bmin(lo[0], c->bx.lox[f]), lo[1] = bmin(lo[1], c->bx.loy[f]), lo[2] = bmin(lo[2], c->bx.loz[f]);
        hi[0] = bmax(hi[0], c->bx.hix[f]), hi[1] = bmax(hi[1], c->bx.hiy[f]), hi[2] = bmax(hi[2], c->bx.hiz[f]);
    }
    memcpy(p->lo, lo, sizeof lo), memcpy(p->hi, hi, sizeof hi);
}

static float area(const float lo[3], const float hi[3])
{
    const float dx = hi[0] - lo[0], dy = hi[1] - lo[1], dz = hi[2] - lo[2];
    if (!(dx >= 0) || !(dy >= 0) || !(dz >= 0)) return 0;
    return dx * dy + dy * dz + dz * dx;
}

static inline float centroid(const clash_boxes_soa *bx, uint32_t f, int axis)
{
    const float *lo = axis == 0 ? bx->lox : axis == 1 ? bx->loy : bx->loz;
    const float *hi = axis == 0 ? bx->hix : axis == 1 ? bx->hiy : bx->hiz;
    return lo[f] + hi[f]; /* twice the centroid: only order matters */
}

/* The axis along which the centroids of prim[b..e) spread most, and their range. */
static int widest_axis(const bctx *c, int32_t b, int32_t e, float cmin[3], float cmax[3])
{
    const uint32_t *pr = c->t->prim;
    for (int d = 0; d < 3; ++d) cmin[d] = INFINITY, cmax[d] = -INFINITY;
    for (int32_t i = b; i < e; ++i)
        for (int d = 0; d < 3; ++d) {
            const float v = centroid(&c->bx, pr[i], d);
            cmin[d] = bmin(cmin[d], v), cmax[d] = bmax(cmax[d], v);
        }
    int ax = 0;
    for (int d = 1; d < 3; ++d)
        if (cmax[d] - cmin[d] > cmax[ax] - cmin[ax]) ax = d;
    return ax;
}

static int32_t split_sah(bctx *c, int32_t b, int32_t e)
{
    uint32_t *pr = c->t->prim;
    float cmin[3], cmax[3];
    const int ax = widest_axis(c, b, e, cmin, cmax);
    const float ext = cmax[ax] - cmin[ax];
    if (!(ext > 0) || !isfinite(ext)) return b + (e - b) / 2;
    const float scale = NBINS / ext * 0.99999f;
    int32_t cnt[NBINS] = {0};
    float blo[NBINS][3], bhi[NBINS][3];
    for (int k = 0; k < NBINS; ++k)
        for (int d = 0; d < 3; ++d) blo[k][d] = INFINITY, bhi[k][d] = -INFINITY;
    for (int32_t i = b; i < e; ++i) {
        const uint32_t f = pr[i];
        int k = (int)((centroid(&c->bx, f, ax) - cmin[ax]) * scale);
        k = k < 0 ? 0 : k >= NBINS ? NBINS - 1 : k;
        cnt[k]++;
        const float fl[3] = {c->bx.lox[f], c->bx.loy[f], c->bx.loz[f]}, fh[3] = {c->bx.hix[f], c->bx.hiy[f], c->bx.hiz[f]};
        for (int d = 0; d < 3; ++d) blo[k][d] = bmin(blo[k][d], fl[d]), bhi[k][d] = bmax(bhi[k][d], fh[d]);
    }
    float left_cost[NBINS];
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    int32_t n = 0;
    for (int k = 0; k < NBINS - 1; ++k) {
        for (int d = 0; d < 3; ++d) lo[d] = bmin(lo[d], blo[k][d]), hi[d] = bmax(hi[d], bhi[k][d]);
        n += cnt[k];
        left_cost[k] = area(lo, hi) * (float)n;
    }
    for (int d = 0; d < 3; ++d) lo[d] = INFINITY, hi[d] = -INFINITY;
    n = 0;
    int best = -1;
    float best_cost = INFINITY;
    for (int k = NBINS - 1; k >= 1; --k) { /* cut between bins k-1 and k */
        for (int d = 0; d < 3; ++d) lo[d] = bmin(lo[d], blo[k][d]), hi[d] = bmax(hi[d], bhi[k][d]);
        n += cnt[k];
        if (n == 0 || n == e - b) continue;
        const float cost = left_cost[k - 1] + area(lo, hi) * (float)n;
        if (cost < best_cost) best_cost = cost, best = k;
    }
    if (best < 0) return b + (e - b) / 2;
    int32_t i = b, j = e - 1;
    while (i <= j) {
        int k = (int)((centroid(&c->bx, pr[i], ax) - cmin[ax]) * scale);
        k = k < 0 ? 0 : k >= NBINS ? NBINS - 1 : k;
        if (k < best) {
            ++i;
        } else {
            const uint32_t t = pr[i];
            pr[i] = pr[j], pr[j] = t;
            --j;
        }
    }
    return i > b && i < e ? i : b + (e - b) / 2;
}

/* prim[b..e) (a few) sorted by centroid along the axis where the centroids spread most */
static void sort_small(bctx *c, int32_t b, int32_t e)
{
    uint32_t *pr = c->t->prim;
    float cmin[3], cmax[3];
    const int ax = widest_axis(c, b, e, cmin, cmax);
    for (int32_t i = b + 1; i < e; ++i) {
        const uint32_t f = pr[i];
        const float v = centroid(&c->bx, f, ax);
        int32_t j = i;
        while (j > b && centroid(&c->bx, pr[j - 1], ax) > v) pr[j] = pr[j - 1], --j;
        pr[j] = f;
    }
}

static int32_t build_node(bctx *c, int32_t b, int32_t e, const float lo[3], const float hi[3])
{
    const int32_t idx = c->t->nnode++;
    part p[W];
    int np = 1;
    p[0].b = b, p[0].e = e;
    memcpy(p[0].lo, lo, 3 * sizeof(float)), memcpy(p[0].hi, hi, 3 * sizeof(float));
    float ar[W];
    if (c->builder == CLASH_BVH_MORTON && e - b > CLASH_BVH_LEAF) {
        /* complete subtrees along the curve: the parts hold cap primitives
         * each (the last the rest), cap = LEAF * W^h the largest such power
         * below the range, so leaves are full and nodes have W children
         * except along the right edge of the tree */
        int64_t cap = CLASH_BVH_LEAF;
        while (cap * W < e - b) cap *= W;
        np = (int)((e - b + cap - 1) / cap);
        for (int i = 0; i < np; ++i) {
            p[i].b = b + (int32_t)(i * cap);
            p[i].e = i == np - 1 ? e : b + (int32_t)((i + 1) * cap);
            range_bounds(c, &p[i]);
        }
    } else if (e - b > W * CLASH_BVH_LEAF && e - b <= W * W * CLASH_BVH_LEAF) {
        /* two levels above the leaves: sorted along the widest axis, parts of
         * W full leaves each, so the nodes below are full too */
        sort_small(c, b, e);
        const int32_t cap = W * CLASH_BVH_LEAF;
        np = (int)((e - b + cap - 1) / cap);
        for (int i = 0; i < np; ++i) {
            p[i].b = b + i * cap;
            p[i].e = i == np - 1 ? e : p[i].b + cap;
            range_bounds(c, &p[i]);
        }
    } else if (e - b > CLASH_BVH_LEAF && e - b <= W * CLASH_BVH_LEAF) {
        /* a node of leaves only: full leaves of consecutive primitives (along
         * the Morton curve; for SAH, after sorting the few centroids along
         * their widest axis), so leaves and nodes are as few as can be */
        if (c->builder != CLASH_BVH_MORTON) sort_small(c, b, e);
        np = (int)((e - b + CLASH_BVH_LEAF - 1) / CLASH_BVH_LEAF);
        for (int i = 0; i < np; ++i) {
            p[i].b = b + i * CLASH_BVH_LEAF;
            p[i].e = i == np - 1 ? e : p[i].b + CLASH_BVH_LEAF;
            range_bounds(c, &p[i]);
        }
    }
    for (int i = 0; i < np; ++i) ar[i] = area(p[i].lo, p[i].hi); /* the parts' own (read unset before) */
    while (np < W) {
        int k = -1;
        for (int i = 0; i < np; ++i)
            if (p[i].e - p[i].b > CLASH_BVH_LEAF && (k < 0 || ar[i] > ar[k])) k = i;
        if (k < 0) break;
        const int32_t m = split_sah(c, p[k].b, p[k].e);
        p[np].b = m, p[np].e = p[k].e;
        p[k].e = m;
        range_bounds(c, &p[k]), range_bounds(c, &p[np]);
        ar[k] = area(p[k].lo, p[k].hi), ar[np] = area(p[np].lo, p[np].hi);
        ++np;
    }
    int32_t child[W];
    for (int i = 0; i < np; ++i)
        child[i] = p[i].e - p[i].b <= CLASH_BVH_LEAF ? -(p[i].b + 1) : build_node(c, p[i].b, p[i].e, p[i].lo, p[i].hi);
    clash_bvh_node *n = &c->t->node[idx];
    for (int i = 0; i < W; ++i) {
        const int used = i < np && p[i].e > p[i].b;
        n->lox[i] = used ? p[i].lo[0] : INFINITY, n->loy[i] = used ? p[i].lo[1] : INFINITY;
        n->loz[i] = used ? p[i].lo[2] : INFINITY, n->hix[i] = used ? p[i].hi[0] : -INFINITY;
        n->hiy[i] = used ? p[i].hi[1] : -INFINITY, n->hiz[i] = used ? p[i].hi[2] : -INFINITY;
        n->child[i] = used ? child[i] : 0;
        n->count[i] = (uint8_t)(used && child[i] < 0 ? p[i].e - p[i].b : 0);
    }
    return idx;
}

#define LC CLASH_BVH_LCHUNK

static inline int slots_used(const clash_bvh_node *n)
{
    int u = 0;
    for (int k = 0; k < W; ++k) u += n->child[k] != 0;
    return u;
}
static inline void copy_slot(clash_bvh_node *d, int i, const clash_bvh_node *s, int j)
{
    d->lox[i] = s->lox[j], d->loy[i] = s->loy[j], d->loz[i] = s->loz[j];
    d->hix[i] = s->hix[j], d->hiy[i] = s->hiy[j], d->hiz[i] = s->hiz[j];
    d->child[i] = s->child[j], d->count[i] = s->count[j];
}

/* Collapse: a child node whose children fit in its parent's free slots plus
 * its own is replaced by them (top-down, so pulled-up nodes are collapsed in
 * turn), then the live nodes are renumbered in preorder.  Fewer, fuller
 * nodes: less to refit and to traverse; every slot box stays exact. */
static int collapse(clash_bvh *b)
{
    const int32_t nn = b->nnode;
    if (nn < 2) return 0;
    uint8_t *dead = calloc((size_t)nn, 1);
    int32_t *map = malloc(sizeof(int32_t) * (size_t)nn), *stk = malloc(sizeof(int32_t) * (size_t)nn);
    clash_bvh_node *out = aligned_alloc(64, (size_t)b->cap_node * sizeof(clash_bvh_node));
    if (!dead || !map || !stk || !out) {
        free(dead), free(map), free(stk), free(out);
        return -1;
    }
    for (int32_t i = 0; i < nn; ++i) {
        if (dead[i]) continue;
        clash_bvh_node *n = &b->node[i];
        for (int again = 1; again;) {
            again = 0;
            const int free_slots = W - slots_used(n);
            for (int k = 0; k < W && !again; ++k) {
                const int32_t ch = n->child[k];
                if (ch <= 0) continue;
                const clash_bvh_node *m = &b->node[ch];
                if (slots_used(m) - 1 > free_slots) continue;
                int dst = k;
                for (int j = 0; j < W; ++j) {
                    if (!m->child[j]) continue;
                    if (dst < 0)
                        for (int e = 0; e < W; ++e)
                            if (!n->child[e]) {
                                dst = e;
                                break;
                            }
                    copy_slot(n, dst, m, j);
                    dst = -1;
                }
                dead[ch] = 1, again = 1;
            }
        }
    }
    /* preorder renumbering of the live nodes */
    int32_t cnt = 0, sp = 0;
    stk[sp++] = 0;
    while (sp) {
        const int32_t i = stk[--sp];
        map[i] = cnt++;
        const clash_bvh_node *n = &b->node[i];
        for (int k = W - 1; k >= 0; --k)
            if (n->child[k] > 0) stk[sp++] = n->child[k];
    }
    for (int32_t i = 0; i < nn; ++i) {
        if (dead[i]) continue;
        clash_bvh_node *o = &out[map[i]];
        *o = b->node[i];
        for (int k = 0; k < W; ++k)
            if (o->child[k] > 0) o->child[k] = map[o->child[k]];
    }
    free(b->node);
    b->node = out, b->nnode = cnt;
    free(dead), free(map), free(stk);
    return 0;
}

/* Every leaf to a multiple of 4 in prim[] (leaves in node order), its
 * unused places filled with its first primitive (sibling leaves that fit in
 * one merged first): a leaf's boxes are then one aligned vector of 4 lanes
 * per coordinate, and the copies change no union. */
static int pad_leaves(clash_bvh *b)
{
    int32_t nleaf = 0;
    for (int32_t i = 0; i < b->nnode; ++i)
        for (int k = 0; k < W; ++k) nleaf += b->node[i].child[k] < 0;
    uint32_t *pp = malloc(sizeof(uint32_t) * 4 * (size_t)(nleaf ? nleaf : 1));
    if (!pp) return -1;
    int32_t L = 0;
    for (int32_t i = 0; i < b->nnode; ++i) {
        clash_bvh_node *n = &b->node[i];
        /* sibling leaves that fit in one (at most CLASH_BVH_LEAF together)
         * are merged, first fit by decreasing count: fewer, fuller leaves
         * and free slots for the collapse; the merged box is the union */
        int ord[W], no = 0;
        for (int k = 0; k < W; ++k)
            if (n->child[k] < 0) ord[no++] = k;
        for (int x = 1; x < no; ++x)
            for (int y = x; y > 0 && n->count[ord[y]] > n->count[ord[y - 1]]; --y) {
                const int t = ord[y];
                ord[y] = ord[y - 1], ord[y - 1] = t;
            }
        int used[W] = {0};
        for (int x = 0; x < no; ++x) {
            const int k = ord[x];
            if (used[x]) continue;
            uint32_t *dst = pp + 4 * L;
            int c = n->count[k];
            memcpy(dst, b->prim + (-n->child[k] - 1), sizeof(uint32_t) * (size_t)c);
            for (int y = x + 1; y < no; ++y) {
                const int m = ord[y];
                if (used[y] || c + n->count[m] > CLASH_BVH_LEAF) continue;
                memcpy(dst + c, b->prim + (-n->child[m] - 1), sizeof(uint32_t) * n->count[m]);
                c += n->count[m], used[y] = 1;
                n->lox[k] = bmin(n->lox[k], n->lox[m]), n->loy[k] = bmin(n->loy[k], n->loy[m]);
                n->loz[k] = bmin(n->loz[k], n->loz[m]), n->hix[k] = bmax(n->hix[k], n->hix[m]);
                n->hiy[k] = bmax(n->hiy[k], n->hiy[m]), n->hiz[k] = bmax(n->hiz[k], n->hiz[m]);
                n->lox[m] = n->loy[m] = n->loz[m] = INFINITY, n->hix[m] = n->hiy[m] = n->hiz[m] = -INFINITY;
                n->child[m] = 0, n->count[m] = 0;
            }
            for (int j = c; j < 4; ++j) dst[j] = dst[0];
            n->child[k] = -(4 * L + 1), n->count[k] = (uint8_t)c;
            ++L;
        }
    }
    free(b->prim);
    b->prim = pp, b->nprim = 4 * L;
    return 0;
}

static inline uint32_t spread10(uint32_t v)
{
    v &= 0x3ff;
    v = (v | (v << 16)) & 0x030000ff;
    v = (v | (v << 8)) & 0x0300f00f;
    v = (v | (v << 4)) & 0x030c30c3;
    v = (v | (v << 2)) & 0x09249249;
    return v;
}

int clash_bvh_build(clash_bvh *b, int builder, const uint32_t *ids, int32_t n, clash_boxes_soa bx)
{
    const int32_t need = n + 1; /* an inner node has >= 2 children, so nodes <= max(1, n - 1) */
    if (need > b->cap_node) {
        free(b->node);
        b->node = aligned_alloc(64, (size_t)need * sizeof(clash_bvh_node));
        b->cap_node = b->node ? need : 0;
        if (!b->node) return -1;
    }
    if (n > b->nprim || !b->prim) {
        free(b->prim);
        b->prim = malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
        if (!b->prim) return -1;
    }
    b->nprim = n, b->nnode = 0;
    bctx c = {.t = b, .bx = bx, .builder = builder};
    part all = {0, n, {0}, {0}};
    memcpy(b->prim, ids, (size_t)n * sizeof(uint32_t));
    range_bounds(&c, &all);
    if (builder == CLASH_BVH_MORTON && n > 1) {
        uint64_t *key = malloc((size_t)n * sizeof(uint64_t));
        if (!key) {
            return -1;
        }
        float s[3];
        for (int d = 0; d < 3; ++d) {
            const float ext = 2 * (all.hi[d] - all.lo[d]); /* centroids are doubled */
            s[d] = ext > 0 && isfinite(ext) ? 1023.0f / ext : 0;
        }
        for (int32_t i = 0; i < n; ++i) {
            const uint32_t f = ids[i];
            uint32_t q[3];
            for (int d = 0; d < 3; ++d) {
                const float v = (centroid(&bx, f, d) - 2 * all.lo[d]) * s[d];
                q[d] = v > 0 && v <= 1023 ? (uint32_t)v : v > 1023 ? 1023 : 0;
            }
            key[i] = (uint64_t)(spread10(q[0]) | spread10(q[1]) << 1 | spread10(q[2]) << 2) << 32 | (uint32_t)i;
        }
        if (clash_sort_u64(key, (size_t)n, NULL)) {
            free(key);
            return -1;
        }
        for (int32_t i = 0; i < n; ++i) b->prim[i] = ids[(uint32_t)key[i]];
        free(key);
    }
    build_node(&c, 0, n, all.lo, all.hi);
    /* merge small sibling leaves, pull children up into the freed slots,
     * then lay the leaves out again in the final node order (preorder, so a
     * subtree's leaves are contiguous) */
    if (pad_leaves(b) || collapse(b) || pad_leaves(b) || clash_bvh_make_blocks(b)) return -1;
    memcpy(b->lo, all.lo, sizeof all.lo), memcpy(b->hi, all.hi, sizeof all.hi);
    /* the leaf boxes, in chunks of LC places */
    free(b->lv), b->lv = NULL;
    free(b->lbb);
    const size_t nch = (size_t)(b->nprim + LC - 1) / LC + 1;
    b->lbb = aligned_alloc(64, nch * 6 * LC * sizeof(float));
    if (!b->lbb) return -1;
    clash_bvh_gather_leaf_boxes(b, bx);
    return 0;
}

