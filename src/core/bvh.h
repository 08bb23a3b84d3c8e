/*
 * bvh.h — a wide bounding-volume hierarchy over boxes (faces of one object,
 * or whole objects for the broad phase).
 *
 * Node layout.  A node has CLASH_BVH_WIDTH (4, or 8 when built with
 * -DCLASH_BVH_WIDTH=8) child slots.  The children's boxes are stored as
 * structure of arrays inside the node,
 *     lox[W] loy[W] loz[W] hix[W] hiy[W] hiz[W]   then   child[W], count[W]
 * so one packed compare tests all children (kernels/bvh_node.c).  A node is
 * 64-byte aligned and padded to whole cache lines (128 bytes for W = 4).
 * Slot k is
 *     an inner child   child[k] > 0, count[k] == 0: node index
 *     a leaf           child[k] < 0: primitives prim[-child-1 ..][0 .. count[k])
 *     empty            child[k] == 0 (the root is nobody's child), empty box
 * Nodes are stored parent before children (preorder), so a refit is one
 * backward sweep over the node array.
 *
 * Builders (both produce the same kind of tree; only the split differs):
 *   CLASH_BVH_SAH     binned surface-area heuristic (16 bins on the centroid
 *                     axis of largest extent), the quality builder;
 *   CLASH_BVH_MORTON  LBVH: sort centroids along the 30-bit Morton curve and
 *                     split each range at its highest differing code bit,
 *                     the fast builder.  prim[] then lists the primitives in
 *                     Morton order, which is also the order in which leaves
 *                     are visited (locality).
 * A wide node is made by splitting its range, then repeatedly splitting the
 * largest part (by box surface area) until W parts or no part is bigger
 * than a leaf (CLASH_BVH_LEAF primitives).
 *
 * Refit (deforming meshes, moving objects): the same tree, boxes recomputed
 * bottom-up from the primitives' new boxes (clash_bvh_refit), or straight
 * from the vertex positions of a tree over triangles (clash_bvh_refit_faces).
 * Leaves are padded to 4 places in prim[] and their boxes kept in leaf
 * order as SoA rows (lbb), one aligned vector of 4 per coordinate like a
 * node's, so the refit and the traversals treat leaves and nodes alike.
 */
#ifndef CLASH_CORE_BVH_H
#define CLASH_CORE_BVH_H

#include <stddef.h>
#include <stdint.h>

#ifndef CLASH_BVH_WIDTH
#define CLASH_BVH_WIDTH 4
#endif
#if CLASH_BVH_WIDTH != 4 && CLASH_BVH_WIDTH != 8
#error "CLASH_BVH_WIDTH must be 4 or 8"
#endif
#define CLASH_BVH_LEAF 4
#define CLASH_BVH_LCHUNK 1024 /* places per chunk of leaf boxes */

enum { CLASH_BVH_SAH = 0, CLASH_BVH_MORTON = 1 };

typedef struct clash_bvh_node {
    _Alignas(64) float lox[CLASH_BVH_WIDTH];
    float loy[CLASH_BVH_WIDTH], loz[CLASH_BVH_WIDTH];
    float hix[CLASH_BVH_WIDTH], hiy[CLASH_BVH_WIDTH], hiz[CLASH_BVH_WIDTH];
    int32_t child[CLASH_BVH_WIDTH];
    uint8_t count[CLASH_BVH_WIDTH];
} clash_bvh_node;

/* The SoA boxes a hierarchy is built over, indexed by primitive id. */
typedef struct clash_boxes_soa {
    const float *lox, *loy, *loz, *hix, *hiy, *hiz;
} clash_boxes_soa;

typedef struct clash_bvh {
    clash_bvh_node *node;   /* node[0] is the root */
    int32_t nnode, cap_node;
    uint32_t *prim;         /* primitive ids in leaf order; each leaf starts at a
                               multiple of 4, its places past count[] repeat its
                               first primitive */
    int32_t nprim;          /* places in prim[] (4 per leaf) */
    float lo[3], hi[3];     /* root box */
    /* The primitives' boxes in leaf order (prim[] order), in chunks of
     * CLASH_BVH_LCHUNK places, each six float rows lox loy loz hix hiy hiz
     * of CLASH_BVH_LCHUNK (clash_bvh_leaf_rows): a leaf's boxes are one
     * aligned vector of 4 per row (count[] of them, then copies of the
     * first), read like a node's.  Set by the build and by every refit. */
    float *lbb;
    /* Optional (clash_bvh_set_faces): the vertex indices of the faces in
     * leaf order, three arrays of nprim, for clash_bvh_refit_faces. */
    int32_t *lv;
    /* The blocked refit's plan (bvh.c): blocks {first node, end node, first
     * place, end place} of subtrees, and the nodes above them. */
    int32_t *blk, nblk, *top, ntop;
} clash_bvh;

/* Builds over primitives ids[0..n) (n >= 0; ids index the boxes).  Replaces
 * any previous tree in b (buffers are reused).  Returns 0, -1 out of memory. */
int clash_bvh_build(clash_bvh *b, int builder, const uint32_t *ids, int32_t n, clash_boxes_soa bx);
/* Recomputes every box of the tree from the primitives' current boxes. */
void clash_bvh_refit(clash_bvh *b, clash_boxes_soa bx);
/* For trees over triangles: records the vertex indices of every primitive
 * (face) f, (i0[f], i1[f], i2[f]), in leaf order.  Returns 0, -1 out of memory. */
int clash_bvh_set_faces(clash_bvh *b, const int32_t *i0, const int32_t *i1, const int32_t *i2);
/* Refit straight from the vertex positions (after clash_bvh_set_faces): the
 * face boxes are computed in leaf order by the S1 kernel (ck_face_boxes,
 * the same boxes as S1's; px == NULL: static, else swept over both
 * positions) into lb, then the nodes bottom-up.  The root box (the union of
 * the face boxes, S1's object box) ends in b->lo, b->hi. */
void clash_bvh_refit_faces(clash_bvh *b, const float *x, const float *y, const float *z, const float *px,
                           const float *py, const float *pz);
/* The lox row of the leaf boxes from place q on; row d (loy, loz, hix, hiy,
 * hiz) lies d * CLASH_BVH_LCHUNK floats further. */
static inline float *clash_bvh_leaf_rows(const clash_bvh *b, int32_t q)
{
    return b->lbb + (size_t)(q / CLASH_BVH_LCHUNK) * 6 * CLASH_BVH_LCHUNK + (size_t)(q % CLASH_BVH_LCHUNK);
}
/* The bottom-up pass alone: node boxes from the leaf boxes. */
void clash_bvh_refit_nodes(clash_bvh *b);
/* For the builder (bvh.c), from bvh_refit.c: the leaf rows filled from the
 * given boxes, and the refit's blocks (subtrees of at most 128 nodes) made.
 * clash_bvh_make_blocks returns 0, or -1 when out of memory. */
void clash_bvh_gather_leaf_boxes(clash_bvh *b, clash_boxes_soa bx);
int clash_bvh_make_blocks(clash_bvh *b);
void clash_bvh_free(clash_bvh *b);

/* The mask of children of node n meeting [lo, hi] (the width's kernel). */
unsigned clash_bvh_overlap(const clash_bvh_node *n, const float lo[3], const float hi[3]);

/* Box of slot k of node n. */
static inline void clash_bvh_slot_box(const clash_bvh_node *n, int k, float lo[3], float hi[3])
{
    lo[0] = n->lox[k], lo[1] = n->loy[k], lo[2] = n->loz[k];
    hi[0] = n->hix[k], hi[1] = n->hiy[k], hi[2] = n->hiz[k];
}

#endif
