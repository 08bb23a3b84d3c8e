/*
 * broad.h — object-level broad phase for large object counts (S2 and
 * `clash bench broadphase`): all overlapping pairs among n boxes given as
 * SoA float arrays.  Two methods:
 *   broad_sap.c  sort-and-sweep in columns: a uniform grid over y-z, one
 *                sorted x-sweep per column (no sweep along one axis of a
 *                3-D cloud, where x-overlaps grow like n^(2/3) per box);
 *   broad_bvh.c  an object BVH (Morton build, bvh.h) queried with every box.
 * Boxes meet when lo_a <= hi_b + grow and lo_b <= hi_a + grow on every axis
 * (grow >= 0; the pipeline passes 2*delta, the bench 0).  Each pair (i < j)
 * is reported once, as the key (uint64)i << 32 | j, appended to the buffer
 * of the worker that found it (out[worker], ex->threads buffers); the order
 * inside and across buffers is unspecified (sort to compare).
 * Returns 0, or -1 when memory ran out.
 */
#ifndef CLASH_BROAD_H
#define CLASH_BROAD_H

#include <stdint.h>

#include "core/bvh.h"
#include "core/run.h"

/* S2's state (stages/broad.c, broad_dop.c): this step's overlapping object
 * pairs with their regions, read by S3 and S4. */
typedef struct clash_broad_state {
    clash_objpair *op; /* the pairs, a <= b (a == b: an object's own region, self-collision) */
    size_t nop, cap_op;
    int64_t nop_filtered; /* the pairs the run's filter refused this step */
    /* With the face octree (broad_dop.c): each object's slabs along ten
     * diagonal directions (CK_FDOP floats), each pair's region's slabs
     * (opdop, as op); region_dops: this step's pairs have them (S3 then
     * makes the slabs of its regions) */
    float *odop, *opdop;
    size_t cap_opdop;
    int region_dops;
    /* the object pairs this run works on (NULL: all): a decomposed run's
     * part drops here the pairs another rank reports (decomposed_part.c) */
    int (*op_keep)(void *ctx, int a, int b);
    void *op_keep_ctx;
} clash_broad_state;
void clash_broad_free(clash_broad_state *b);

int clash_broad_sap(const clash_exec *ex, int64_t n, clash_boxes_soa bx, float grow, clash_keybuf *out);
int clash_broad_bvh(const clash_exec *ex, int64_t n, clash_boxes_soa bx, float grow, clash_keybuf *out);

#endif
