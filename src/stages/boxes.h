/*
 * boxes.h — S1's state (stages/boxes.c, finegrain.c, deferred.c, held_bounds.c):
 * the faces' and objects' boxes of this step, the culling inflation, and
 * swept mode's bounds of a state kept for the step after.  The stages after
 * S1 read the boxes; only S1 (and S3, when S1 deferred the face boxes to it)
 * writes them.
 */
#ifndef CLASH_STAGES_BOXES_H
#define CLASH_STAGES_BOXES_H

#include "core/run.h"

typedef struct clash_boxes_state {
    float *lox, *loy, *loz, *hix, *hiy, *hiz; /* each face's box (SoA), made with the run */
    clash_box *obox;                          /* each object's box */
    float delta;                              /* culling inflation this step (absolute) */
    /* swept mode with a turning object, once per run: each face's largest
     * |local vertex| (rounded up), the radius of its arc margin under a
     * scene-file law (stages/facetest.h) */
    float *face_r;
    /* deferred: this step S1 made the object boxes alone, and S3 boxes the
     * faces near the regions (the face octree; stages/deferred.c), nboxed
     * of them; defer: the objects' poses for their blocks */
    int deferred;
    int64_t nboxed;
    struct clash_defer *defer;
    /* Swept mode's bounds of a state kept for the step after (temporal
     * coherence, stages/held_bounds.c): an object's vertex box (boxes deferred) and
     * its CLASH_HDOP floats (S2: the ten lo, the ten hi, M, ok) over x alone.
     * [0] is being made this step, [1] is the step before's, valid for
     * positions of content number hbox_gen[1] / hdop_gen[1] (store/scene.h);
     * when that is this step's pxgen, px's bounds are taken from it instead
     * of another pass over px.  hdop_has[k][o]: object o's DOP was made.
     * held_boxes, held_dops: objects whose px bounds were kept this step. */
    clash_box *hbox[2];
    float *hdop[2];
    uint8_t *hdop_has[2];
    uint64_t hbox_gen[2], hdop_gen[2];
    int64_t held_boxes, held_dops;
} clash_boxes_state;

/* S1's state for a scene of nf faces and nobj objects (the face boxes
 * zeroed), NULL when out of memory; clash_boxes_free releases it. */
clash_boxes_state *clash_boxes_create(int64_t nf, int nobj);
void clash_boxes_free(clash_boxes_state *b);
/* Its bytes at their capacities now (the run's memory account). */
size_t clash_boxes_bytes(const clash_boxes_state *b, int64_t nf, int nobj);

/* Face boxes a and b overlap, each grown by delta. */
static inline int clash_faceboxes_overlap(const clash_boxes_state *B, uint32_t a, uint32_t b)
{
    const float d = 2 * B->delta;
    return B->lox[a] <= B->hix[b] + d && B->lox[b] <= B->hix[a] + d && B->loy[a] <= B->hiy[b] + d &&
           B->loy[b] <= B->hiy[a] + d && B->loz[a] <= B->hiz[b] + d && B->loz[b] <= B->hiz[a] + d;
}

#endif
