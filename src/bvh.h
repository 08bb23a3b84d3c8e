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
 * bottom-up from the primitives' new boxes.
 */
#ifndef CLASH_BVH_H
#define CLASH_BVH_H

#include <stddef.h>
#include <stdint.h>

#ifndef CLASH_BVH_WIDTH
#define CLASH_BVH_WIDTH 4
#endif
#if CLASH_BVH_WIDTH != 4 && CLASH_BVH_WIDTH != 8
#error "CLASH_BVH_WIDTH must be 4 or 8"
#endif
#define CLASH_BVH_LEAF 4

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
    uint32_t *prim;         /* primitive ids in leaf order */
    int32_t nprim;
    float lo[3], hi[3];     /* root box */
} clash_bvh;

/* Builds over primitives ids[0..n) (n >= 0; ids index the boxes).  Replaces
 * any previous tree in b (buffers are reused).  Returns 0, -1 out of memory. */
int clash_bvh_build(clash_bvh *b, int builder, const uint32_t *ids, int32_t n, clash_boxes_soa bx);
/* Recomputes every box of the tree from the primitives' current boxes. */
void clash_bvh_refit(clash_bvh *b, clash_boxes_soa bx);
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
