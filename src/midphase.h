/*
 * midphase.h — the alternative S4 midphases (ARCHITECTURE.md, S4):
 *   mid_bvh.c       BVH x BVH traversal over per-object wide BVHs that are
 *                   kept in the run: built on the first step, refitted on
 *                   every later one (refit counted in S4);
 *   mid_bboxpipe.c  Zachmann's bounding-box pipeline (001 §3.3), no
 *                   structure kept between steps.
 * Both take the object pairs of S2 (run->op) and, with self-collision,
 * every object against itself, skip S3, and leave the sorted unique
 * candidate keys in run->cand / run->ncand exactly like octree.c, so S5
 * and S6 are unchanged.  Every box test uses boxes grown by run->delta
 * (pipeline.c, conservative culling), so no pair the narrow test accepts
 * is ever dropped.
 */
#ifndef CLASH_MIDPHASE_H
#define CLASH_MIDPHASE_H

#include "pipeline.h"

int clash_bvh_candidates(clash_run *run, clash_error *err);
int clash_bboxpipe_candidates(clash_run *run, clash_error *err);
/* S1 for the bvh midphase once its trees exist: refits every object's BVH
 * straight from the vertex positions (the face boxes in leaf order, by the S1
 * kernel) and sets the object boxes; the face-order boxes run->lox.. are not
 * written.  Returns 0, or 1 when the trees are not built yet (S1 as usual). */
int clash_bvh_stage_boxes(clash_run *run);
/* Frees the per-run midphase state (the per-object BVHs). */
void clash_midphase_free(clash_run *run);
/* Merges the per-worker buffers run->wbuf into run->cand (sorted, unique). */
int clash_mid_gather(clash_run *run);

#endif
