/*
 * bvh_refit.c — refitting the wide BVH of bvh.h: the same tree, its boxes
 * recomputed bottom-up for the primitives' new positions.
 *
 * Refit.  Nodes are allocated parent first, so children have larger indices
 * and the refit is a backward sweep over the node array: each slot's box is
 * the union of the 4 lanes of its child (a node's SoA boxes or a leaf's
 * rows), four slots at once (half a 4x4 transpose, a packed min/max, the
 * other half, a min/max: 6 shuffles and 3 min/max per coordinate, SSE).  It
 * is blocked: the tree is cut into subtrees of at most 128 nodes (their
 * nodes, and their leaves' places, are contiguous), and for each one the
 * leaf boxes are produced in place, then its nodes refitted while all that
 * is in cache; the few nodes above the subtrees come last.  The leaf boxes
 * come from a gather of the given face boxes (clash_bvh_refit) or straight
 * from the vertex positions by the S1 kernel (ck_face_boxes, so the same
 * boxes as S1's) over the faces' vertex indices in leaf order
 * (clash_bvh_refit_faces), written straight into the chunk rows: no
 * face-order boxes, no copies.

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
#define LC CLASH_BVH_LCHUNK

#if CLASH_BVH_WIDTH == 4 && defined(__SSE2__)
#define BVH_SSE 1
#include <emmintrin.h>
#include <xmmintrin.h>
#else
#define BVH_SSE 0
#endif

#if BVH_SSE
/* Rows r0..r3 (one per slot): lane-wise min (max) of each row, as one vector
 * [min r0, min r1, min r2, min r3]: half a transpose, a min, the other half,
 * a min (6 shuffles, 3 min). */
static inline __m128 rows_min(__m128 r0, __m128 r1, __m128 r2, __m128 r3)
{
    const __m128 a = _mm_min_ps(_mm_unpacklo_ps(r0, r1), _mm_unpackhi_ps(r0, r1)); /* r0 02, r1 02, r0 13, r1 13 */
    const __m128 b = _mm_min_ps(_mm_unpacklo_ps(r2, r3), _mm_unpackhi_ps(r2, r3));
    return _mm_min_ps(_mm_movelh_ps(a, b), _mm_movehl_ps(b, a));
}
static inline __m128 rows_max(__m128 r0, __m128 r1, __m128 r2, __m128 r3)
{
    const __m128 a = _mm_max_ps(_mm_unpacklo_ps(r0, r1), _mm_unpackhi_ps(r0, r1));
    const __m128 b = _mm_max_ps(_mm_unpacklo_ps(r2, r3), _mm_unpackhi_ps(r2, r3));
    return _mm_max_ps(_mm_movelh_ps(a, b), _mm_movehl_ps(b, a));
}
#endif

#if BVH_SSE
static const _Alignas(16) float empty_rows[24] = {
    INFINITY,  INFINITY,  INFINITY,  INFINITY,  INFINITY,  INFINITY,  INFINITY,  INFINITY,
    INFINITY,  INFINITY,  INFINITY,  INFINITY,  -INFINITY, -INFINITY, -INFINITY, -INFINITY,
    -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
#endif

/* Node i's slot boxes from its children (nodes of larger index, done before). */
static inline void refit_node(clash_bvh *b, int32_t i)
{
    clash_bvh_node *n = &b->node[i];
#if BVH_SSE
    /* each slot as 6 aligned rows of 4 floats: a child node's SoA boxes, a
     * leaf's boxes, or the empty box */
    const float *p[4];
    size_t s[4];
    for (int k = 0; k < 4; ++k) {
        const int32_t ch = n->child[k];
        p[k] = ch > 0 ? b->node[ch].lox : ch < 0 ? clash_bvh_leaf_rows(b, -ch - 1) : empty_rows;
        s[k] = ch < 0 ? LC : 4;
    }
    float *out = n->lox;
    for (int d = 0; d < 3; ++d)
        _mm_store_ps(out + 4 * d, rows_min(_mm_load_ps(p[0] + d * s[0]), _mm_load_ps(p[1] + d * s[1]),
                                           _mm_load_ps(p[2] + d * s[2]), _mm_load_ps(p[3] + d * s[3])));
    for (int d = 3; d < 6; ++d)
        _mm_store_ps(out + 4 * d, rows_max(_mm_load_ps(p[0] + d * s[0]), _mm_load_ps(p[1] + d * s[1]),
                                           _mm_load_ps(p[2] + d * s[2]), _mm_load_ps(p[3] + d * s[3])));
#else
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
            const float *q = clash_bvh_leaf_rows(b, -ch - 1);
            for (int j = 0; j < n->count[k]; ++j) {
                lx = bmin(lx, q[j]), ly = bmin(ly, q[LC + j]), lz = bmin(lz, q[2 * LC + j]);
                hx = bmax(hx, q[3 * LC + j]), hy = bmax(hy, q[4 * LC + j]), hz = bmax(hz, q[5 * LC + j]);
            }
        }
        n->lox[k] = lx, n->loy[k] = ly, n->loz[k] = lz, n->hix[k] = hx, n->hiy[k] = hy, n->hiz[k] = hz;
    }
#endif
}

static void root_box(clash_bvh *b)
{
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (b->nnode)
        for (int k = 0; k < W; ++k) {
            const clash_bvh_node *r = &b->node[0];
            lo[0] = bmin(lo[0], r->lox[k]), lo[1] = bmin(lo[1], r->loy[k]), lo[2] = bmin(lo[2], r->loz[k]);
            hi[0] = bmax(hi[0], r->hix[k]), hi[1] = bmax(hi[1], r->hiy[k]), hi[2] = bmax(hi[2], r->hiz[k]);
        }
    memcpy(b->lo, lo, sizeof lo), memcpy(b->hi, hi, sizeof hi);
}

void clash_bvh_refit_nodes(clash_bvh *b)
{
    for (int32_t i = b->nnode - 1; i >= 0; --i) refit_node(b, i);
    root_box(b);
}

/* Blocked refit: the leaf boxes of one block (a subtree: its nodes and its
 * leaf places are contiguous ranges) are made by leaves(ctx, p0, p1), then
 * its nodes are refitted while those boxes are still in cache; the nodes
 * above the blocks last. */
static void refit_blocked(clash_bvh *b, void (*leaves)(clash_bvh *, int32_t, int32_t, const void *), const void *ctx)
{
    for (int32_t k = 0; k < b->nblk; ++k) {
        const int32_t *bk = b->blk + 4 * k;
        leaves(b, bk[2], bk[3], ctx);
        for (int32_t i = bk[1] - 1; i >= bk[0]; --i) refit_node(b, i);
    }
    for (int32_t k = 0; k < b->ntop; ++k) refit_node(b, b->top[k]);
    root_box(b);
}

typedef void (*produce_fn)(clash_bvh *b, int32_t c0, int32_t c1, const void *ctx);

/* The leaf boxes of the places [p0, p1), written in place by the producer,
 * one piece per chunk. */
static void fill_leaves(clash_bvh *b, int32_t p0, int32_t p1, produce_fn prod, const void *ctx)
{
    for (int32_t c0 = p0; c0 < p1;) {
        const int32_t end = (c0 / LC + 1) * LC, c1 = p1 < end ? p1 : end;
        prod(b, c0, c1, ctx);
        c0 = c1;
    }
}

/* The primitives' boxes of the places [c0, c1) (within one chunk), a gather. */
static void gather_prod(clash_bvh *b, int32_t c0, int32_t c1, const void *ctx)
{
    const clash_boxes_soa *bx = ctx;
    float *restrict l0 = clash_bvh_leaf_rows(b, c0), *restrict l1 = l0 + LC, *restrict l2 = l1 + LC,
                    *restrict h0 = l2 + LC, *restrict h1 = h0 + LC, *restrict h2 = h1 + LC;
    const uint32_t *restrict pr = b->prim + c0;
    for (int32_t q = 0; q < c1 - c0; ++q) {
        const uint32_t f = pr[q];
        l0[q] = bx->lox[f], l1[q] = bx->loy[f], l2[q] = bx->loz[f];
        h0[q] = bx->hix[f], h1[q] = bx->hiy[f], h2[q] = bx->hiz[f];
    }
}
static void gather_range(clash_bvh *b, int32_t p0, int32_t p1, const void *ctx)
{
    fill_leaves(b, p0, p1, gather_prod, ctx);
}

void clash_bvh_gather_leaf_boxes(clash_bvh *b, clash_boxes_soa bx) { gather_range(b, 0, b->nprim, &bx); }

void clash_bvh_refit(clash_bvh *b, clash_boxes_soa bx) { refit_blocked(b, gather_range, &bx); }

int clash_bvh_set_faces(clash_bvh *b, const int32_t *i0, const int32_t *i1, const int32_t *i2)
{
    free(b->lv);
    const size_t n = (size_t)b->nprim;
    b->lv = malloc(3 * (n ? n : 1) * sizeof(int32_t));
    if (!b->lv) return -1;
    for (size_t q = 0; q < n; ++q) {
        const uint32_t f = b->prim[q];
        b->lv[q] = i0[f], b->lv[n + q] = i1[f], b->lv[2 * n + q] = i2[f];
    }
    return 0;
}

typedef struct vctx {
    const float *x, *y, *z, *px, *py, *pz;
} vctx;

/* The face boxes of the places [c0, c1) (within one chunk) from the vertex
 * positions, by the S1 kernel. */
static void faces_prod(clash_bvh *b, int32_t c0, int32_t c1, const void *ctx)
{
    const vctx *v = ctx;
    const size_t n = (size_t)b->nprim;
    float *r = clash_bvh_leaf_rows(b, c0);
    float olo[3] = {INFINITY, INFINITY, INFINITY}, ohi[3] = {-INFINITY, -INFINITY, -INFINITY};
    ck_face_boxes(0, c1 - c0, b->lv + c0, b->lv + n + c0, b->lv + 2 * n + c0, v->x, v->y, v->z, v->px, v->py, v->pz,
                  r, r + LC, r + 2 * LC, r + 3 * LC, r + 4 * LC, r + 5 * LC, olo, ohi);
}
static void faces_range(clash_bvh *b, int32_t p0, int32_t p1, const void *ctx)
{
    fill_leaves(b, p0, p1, faces_prod, ctx);
}

void clash_bvh_refit_faces(clash_bvh *b, const float *x, const float *y, const float *z, const float *px,
                           const float *py, const float *pz)
{
    const vctx v = {x, y, z, px, py, pz};
    refit_blocked(b, faces_range, &v);
}

/* Blocks for the blocked refit: maximal subtrees of at most BLK_NODES nodes
 * (preorder: a subtree's nodes, and so its leaves' places, are contiguous);
 * the nodes above them in decreasing index order. */
enum { BLK_NODES = 128 };
int clash_bvh_make_blocks(clash_bvh *b)
{
    free(b->blk), free(b->top);
    b->blk = b->top = NULL, b->nblk = b->ntop = 0;
    const int32_t nn = b->nnode;
    if (!nn) return 0;
    int32_t *size = malloc(sizeof(int32_t) * (size_t)nn), *pmin = malloc(sizeof(int32_t) * (size_t)nn);
    int32_t *pmax = malloc(sizeof(int32_t) * (size_t)nn), *stk = malloc(sizeof(int32_t) * (size_t)nn);
    b->blk = malloc(sizeof(int32_t) * 4 * (size_t)(W + 1) * (size_t)nn), b->top = malloc(sizeof(int32_t) * (size_t)nn);
    if (!size || !pmin || !pmax || !stk || !b->blk || !b->top) {
        free(size), free(pmin), free(pmax), free(stk);
        return -1;
    }
    for (int32_t i = nn - 1; i >= 0; --i) {
        const clash_bvh_node *n = &b->node[i];
        size[i] = 1, pmin[i] = INT32_MAX, pmax[i] = -1;
        for (int k = 0; k < W; ++k) {
            const int32_t ch = n->child[k];
            if (ch > 0) {
                size[i] += size[ch];
                pmin[i] = pmin[ch] < pmin[i] ? pmin[ch] : pmin[i], pmax[i] = pmax[ch] > pmax[i] ? pmax[ch] : pmax[i];
            } else if (ch < 0) {
                const int32_t q = -ch - 1;
                pmin[i] = q < pmin[i] ? q : pmin[i], pmax[i] = q + 4 > pmax[i] ? q + 4 : pmax[i];
            }
        }
    }
    int32_t sp = 0, ntop = 0;
    stk[sp++] = 0;
    while (sp) {
        const int32_t i = stk[--sp];
        if (size[i] <= BLK_NODES) {
            int32_t *bk = b->blk + 4 * b->nblk++;
            bk[0] = i, bk[1] = i + size[i];
            bk[2] = pmax[i] < 0 ? 0 : pmin[i], bk[3] = pmax[i] < 0 ? 0 : pmax[i];
            continue;
        }
        b->top[ntop++] = i;
        for (int k = 0; k < W; ++k)
            if (b->node[i].child[k] > 0) stk[sp++] = b->node[i].child[k];
    }
    /* top nodes: children before parents (decreasing index) */
    for (int32_t x = 1; x < ntop; ++x) {
        const int32_t v = b->top[x];
        int32_t y = x;
        while (y > 0 && b->top[y - 1] < v) b->top[y] = b->top[y - 1], --y;
        b->top[y] = v;
    }
    b->ntop = ntop;
    /* leaves hanging directly off top nodes: blocks with no nodes (merged
     * when their places follow each other) */
    for (int32_t x = ntop - 1; x >= 0; --x)
        for (int k = 0; k < W; ++k) {
            const int32_t ch = b->node[b->top[x]].child[k];
            if (ch >= 0) continue;
            int32_t *last = b->nblk ? b->blk + 4 * (b->nblk - 1) : NULL;
            if (last && last[0] == last[1] && last[3] == -ch - 1) {
                last[3] += 4;
                continue;
            }
            int32_t *bk = b->blk + 4 * b->nblk++;
            bk[0] = bk[1] = 0, bk[2] = -ch - 1, bk[3] = -ch - 1 + 4;
        }
    free(size), free(pmin), free(pmax), free(stk);
    return 0;
}

void clash_bvh_free(clash_bvh *b)
{
    free(b->node), free(b->prim), free(b->lbb), free(b->lv), free(b->blk), free(b->top);
    memset(b, 0, sizeof *b);
}
