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
/* Frees the per-run midphase state (the per-object BVHs). */
void clash_midphase_free(clash_run *run);
/* Merges the per-worker buffers run->wbuf into run->cand (sorted, unique). */
int clash_mid_gather(clash_run *run);

#endif
