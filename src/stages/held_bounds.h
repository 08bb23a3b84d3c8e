/*
 * held_bounds.h — swept mode's bounds of one state kept for the step after
 * (held_bounds.c; temporal coherence).  Internal to src/stages.
 *
 * A swept step bounds each object over its positions now (x) and the step
 * before (px).  The step before bounded its own x, which is now px when
 * the scene only advanced in between (the content numbers xgen / pxgen of
 * store/scene.h match), so px's bounds are those, kept, and not another
 * pass over px.  Min and max are exact: a kept bound has the bits a new
 * pass would give, and the step's results do not depend on keeping.
 */
#ifndef CLASH_HELD_H
#define CLASH_HELD_H

#include "core/run.h"
#include "stages/boxes.h"

/* S1 (boxes deferred, finegrain.c), with run->boxes->obox holding x's vertex
 * boxes: keeps them and returns 1 when px's are held from the step
 * before, 0 when the caller must make px's (into run->boxes->obox) and then call
 * clash_held_boxes_join; -1 when out of memory. */
int clash_held_boxes_begin(clash_run *run);
/* run->boxes->obox = x's boxes joined with px's (the held ones when held, else
 * the ones now in run->boxes->obox); x's are then held for the step after.  Sets
 * run->boxes->held_boxes. */
void clash_held_boxes_join(clash_run *run, int held);

/* S2 (broad_dop.c), before the objects' DOPs: 1 when px's DOPs of the
 * step before can be taken (for the objects whose hdop_has[1] is set), 0
 * when not, -1 when out of memory.  Afterwards clash_held_dops_end. */
int clash_held_dops_begin(clash_run *run);
/* Object o's ten lo, ten hi, M and ok over x (H: CLASH_HDOP floats) kept
 * for the step after; o is made by one worker only. */
void clash_held_dops_put(clash_run *run, int32_t o, const float *lo, const float *hi, float M, int ok);
/* 1 and lo/hi/M/ok joined with px's kept DOP of object o when there is one
 * (held is clash_held_dops_begin's answer), else 0. */
int clash_held_dops_join(const clash_run *run, int held, int32_t o, float *lo, float *hi, float *M, int *ok);
/* After the objects' DOPs: this step's become the step before's. */
void clash_held_dops_end(clash_run *run);

#endif
