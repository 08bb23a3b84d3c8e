/*
 * deferred.h — face boxes deferred from S1 to S3 for the face octree
 * (deferred.c).  Internal to src/stages; finegrain.c calls it in S3 when
 * run->boxes->deferred (S1 then made the object boxes alone,
 * clash_fg_object_boxes).
 */
#ifndef CLASH_DEFERRED_H
#define CLASH_DEFERRED_H

#include "core/run.h"
#include "stages/boxes.h"
#include "stages/broad.h"
#include "stages/cull.h"

/* S1 in swept mode, after the vertices' bounds over both states: each
 * turning object's box grown by the largest arc margin of its faces (which
 * S3's carried blocks are grown by too).  Returns -1 when out of memory. */
int clash_defer_grow_objects(clash_run *run);
/* S3, before the face loop: which objects' blocks can be carried into the
 * world by their pose this step, and the maps that carry them.  Returns -1
 * when out of memory. */
int clash_defer_prepare(clash_run *run);
/* S3: the faces of [f, e) (one object's, which has regions) not in a
 * sub-block beyond the union of its regions, as runs [r[2i], r[2i+1]),
 * boxed (S1's kernel, the same bits); returns the number of runs (at most
 * (e - f) / CLASH_SUB + 2) and adds the faces boxed to *boxed. */
int clash_defer_runs(clash_run *run, int o, int64_t f, int64_t e, int64_t *r, size_t *boxed);
/* Face f of object o (which has regions): 1 when its block is not beyond
 * them, and then boxed. */
int clash_defer_face(clash_run *run, int o, int64_t f);
/* The world box S3 gives block k (0-based within the object) of object o
 * in this step, which holds the boxes S1 would give its faces (the tiles'
 * carry); 1, or -1 when the stride path's carry of the block (block_world)
 * gives other bits; 0 when o's blocks are not carried (deforming, not
 * posed, or without regions). */
int clash_defer_block_world(const clash_run *run, int o, int64_t k, double lo[3], double hi[3]);
/* The same for sub-block j of that block (faces j CLASH_SUB onward). */
int clash_defer_sub_world(const clash_run *run, int o, int64_t k, int j, double lo[3], double hi[3]);
/* 1 when block k of object o (j < 0), or its sub-block j, carried into the
 * world this step as S3 carries it (swept: by both poses, joined and grown
 * for the arc margins), meets the box R6 (lo x, y, z, hi x, y, z), 0 when
 * not; -1 when o's blocks are not carried.  (For the tests: a face box lies
 * in it when its two corners, as boxes, meet it.) */
int clash_defer_meets(const clash_run *run, int o, int64_t k, int j, const float R6[6]);
size_t clash_defer_bytes(const clash_run *run);
void clash_defer_free(clash_run *run);

#endif
