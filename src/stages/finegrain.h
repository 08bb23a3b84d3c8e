/*
 * finegrain.h — the fine-grain parallel loops of S1 (face and object boxes)
 * and S3 (faces meeting an overlap region), with per-worker results.
 * Internal to src/; called by stage_boxes and stage_cull in pipeline.c.
 */
#ifndef CLASH_FINEGRAIN_H
#define CLASH_FINEGRAIN_H

#include "core/run.h"
#include "stages/boxes.h"
#include "stages/broad.h"
#include "stages/cull.h"

/* S1: face boxes into run->lo?/hi?, object boxes into run->boxes->obox.
 * Returns -1 when out of memory. */
int clash_fg_boxes(clash_run *run);
/* The same with streaming != 0: the face boxes written with non-temporal
 * stores (ck_face_boxes_nt) on contiguous ranges of 4096 faces or more;
 * clash_fg_boxes uses ordinary stores.  Bit-identical results either way. */
int clash_fg_boxes_stores(clash_run *run, int streaming);
/* S1 with boxes deferred (run->boxes->deferred): the object boxes alone,
 * from the vertices; S3 then boxes the faces it looks at (run->boxes->nboxed of
 * them; deferred.c).  Returns -1 when out of memory. */
int clash_fg_object_boxes(clash_run *run);
/* (In swept mode the vertices' bounds over both states, grown by each
 * turning object's largest arc margin: clash_defer_grow_objects.) */
/* S3: run->cull->kept / run->cull->nkept = the faces f with keep(run, f) != 0, ascending,
 * where keep is the exact face-against-regions test (run->cull->reg_ofs/regs).
 * Returns -1 when out of memory. */
int clash_fg_cull(clash_run *run);
/* Bytes held by the per-worker slots (NULL: 0), for the run's memory account. */
size_t clash_fg_bytes(const struct clash_finegrain *fg);
/* Frees the per-worker slots (NULL is fine). */
void clash_fg_destroy(struct clash_finegrain *fg);

#endif
