/*
 * bvh.c — building and refitting the wide BVH of bvh.h.
 *
 * Build, top-down.  A node covers a range [begin, end) of the primitive
 * array prim[].  The range is cut into at most W parts: start with one
 * part; while fewer than W parts and some part holds more than a leaf,
 * split the part with the largest box surface area in two (binned SAH or
 * Morton split, below).  Each part becomes a leaf slot (<= CLASH_BVH_LEAF
 * primitives) or a child node built recursively.  The part's box is the
 * union of its primitives' boxes, so it is exact, and refit reproduces it.
 *
 * Binned SAH split: 16 bins along the axis where the centroids spread most;
 * the cut between bins minimizes area(L)*|L| + area(R)*|R|; the range is
 * partitioned in place.  Centroids that coincide fall back to the middle.
 *
 * Morton split (LBVH): prim[] is sorted once by the 30-bit Morton code of
 * each centroid (10 bits per axis in the box around all centroids); a
 * range is cut where its highest differing code bit turns from 0 to 1
 * (a binary search), or in the middle when all its codes are equal.
 *
 * Nodes are allocated parent first, so children have larger indices and
 * clash_bvh_refit is one backward sweep: leaf slots take the union of their
 * primitives' boxes, inner slots the union of their child's slots.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bvh.h"
#include "kernels/bvh_kernels.h"
#include "sort.h"

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
    uint32_t *code; /* Morton codes in prim[] order */
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

static int32_t split_sah(bctx *c, int32_t b, int32_t e)
{
    uint32_t *pr = c->t->prim;
    float cmin[3] = {INFINITY, INFINITY, INFINITY}, cmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int32_t i = b; i < e; ++i)
        for (int d = 0; d < 3; ++d) {
            const float v = centroid(&c->bx, pr[i], d);
            cmin[d] = bmin(cmin[d], v), cmax[d] = bmax(cmax[d], v);
        }
    int ax = 0;
    for (int d = 1; d < 3; ++d)
        if (cmax[d] - cmin[d] > cmax[ax] - cmin[ax]) ax = d;
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

static int32_t split_morton(bctx *c, int32_t b, int32_t e)
{
    const uint32_t *code = c->code;
    const uint32_t x = code[b] ^ code[e - 1];
    if (!x) return b + (e - b) / 2;
    const uint32_t bit = 1u << (31 - __builtin_clz(x));
    int32_t lo = b + 1, hi = e - 1; /* first index with the bit set lies in [b+1, e-1] */
    while (lo < hi) {
        const int32_t m = lo + (hi - lo) / 2;
        if (code[m] & bit) hi = m;
        else lo = m + 1;
    }
    return lo;
}

static int32_t build_node(bctx *c, int32_t b, int32_t e, const float lo[3], const float hi[3])
{
    const int32_t idx = c->t->nnode++;
    part p[W];
    int np = 1;
    p[0].b = b, p[0].e = e;
    memcpy(p[0].lo, lo, 3 * sizeof(float)), memcpy(p[0].hi, hi, 3 * sizeof(float));
    float ar[W];
    ar[0] = area(lo, hi);
    while (np < W) {
        int k = -1;
        for (int i = 0; i < np; ++i)
            if (p[i].e - p[i].b > CLASH_BVH_LEAF && (k < 0 || ar[i] > ar[k])) k = i;
        if (k < 0) break;
        const int32_t m = c->builder == CLASH_BVH_MORTON ? split_morton(c, p[k].b, p[k].e) : split_sah(c, p[k].b, p[k].e);
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
        c.code = malloc((size_t)n * sizeof(uint32_t));
        if (!key || !c.code) {
            free(key), free(c.code);
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
            free(key), free(c.code);
            return -1;
        }
        for (int32_t i = 0; i < n; ++i) b->prim[i] = ids[(uint32_t)key[i]], c.code[i] = (uint32_t)(key[i] >> 32);
        free(key);
    }
    build_node(&c, 0, n, all.lo, all.hi);
    free(c.code);
    memcpy(b->lo, all.lo, sizeof all.lo), memcpy(b->hi, all.hi, sizeof all.hi);
    return 0;
}

void clash_bvh_refit(clash_bvh *b, clash_boxes_soa bx)
{
    for (int32_t i = b->nnode - 1; i >= 0; --i) {
        clash_bvh_node *n = &b->node[i];
        for (int k = 0; k < W; ++k) {
            const int32_t ch = n->child[k];
            if (!ch) continue;
            float lx = INFINITY, ly = INFINITY, lz = INFINITY, hx = -INFINITY, hy = -INFINITY, hz = -INFINITY;
            if (ch > 0) {
                const clash_bvh_node *m = &b->node[ch];
                for (int j = 0; j < W; ++j) {
                    lx = bmin(lx, m->lox[j]), ly = bmin(ly, m->loy[j]), lz = bmin(lz, m->loz[j]);
                    hx = bmax(hx, m->hix[j]), hy = bmax(hy, m->hiy[j]), hz = bmax(hz, m->hiz[j]);
                }
            } else {
                const uint32_t *p = b->prim + (-ch - 1);
                for (int j = 0; j < n->count[k]; ++j) {
                    const uint32_t f = p[j];
                    lx = bmin(lx, bx.lox[f]), ly = bmin(ly, bx.loy[f]), lz = bmin(lz, bx.loz[f]);
                    hx = bmax(hx, bx.hix[f]), hy = bmax(hy, bx.hiy[f]), hz = bmax(hz, bx.hiz[f]);
                }
            }
            n->lox[k] = lx, n->loy[k] = ly, n->loz[k] = lz, n->hix[k] = hx, n->hiy[k] = hy, n->hiz[k] = hz;
        }
    }
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (b->nnode)
        for (int k = 0; k < W; ++k) {
            const clash_bvh_node *r = &b->node[0];
            lo[0] = bmin(lo[0], r->lox[k]), lo[1] = bmin(lo[1], r->loy[k]), lo[2] = bmin(lo[2], r->loz[k]);
            hi[0] = bmax(hi[0], r->hix[k]), hi[1] = bmax(hi[1], r->hiy[k]), hi[2] = bmax(hi[2], r->hiz[k]);
        }
    memcpy(b->lo, lo, sizeof lo), memcpy(b->hi, hi, sizeof hi);
}

void clash_bvh_free(clash_bvh *b)
{
    free(b->node), free(b->prim);
    memset(b, 0, sizeof *b);
}
