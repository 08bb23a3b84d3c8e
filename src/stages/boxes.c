/*
 * boxes.c — stage S1: face boxes (swept: over both states) and object boxes
 * (src/README.md, S1; [Smith94] §3.3.2), and the culling inflation delta of the
 * step.  The parallel loop itself is finegrain.c's; the bvh midphase refits
 * its kept trees straight from the vertices instead (stages/mid/bvh.c), and
 * the pipeline then calls this stage for the inflation alone.  With boxes
 * deferred (the face octree) it makes the object boxes from the vertices,
 * and S3 the boxes of the faces near the regions (deferred.c).
 *
 * Conservative culling.  Every culling test (boxes, regions, octree cells)
 * works on sets grown by delta, a few float ulps of the scene's coordinate
 * magnitude, far above the rounding margin of the double-precision narrow
 * tests.  So a pair the narrow test accepts always survives S1–S4, and the
 * pipeline's pair set equals the oracle's exactly.  With --min-separation
 * D the narrow test keeps pairs within D, and delta grows by D/2.
 *
 * The culling floats are the store's doubles rounded to nearest
 * (store/scene.h): each within 2^-24 |c| <= 2^-24 M of the double the exact
 * tests read, M the largest |coordinate|, so a float box (rounded outward
 * one ulp by the S1 kernel) widened by delta >= 2^-20 M holds the double
 * geometry with room for the boxes' own roundings.  The trees built in an
 * object's own frame (bvh_frames.c, boxtree.c, doptree.c, objoctree.c,
 * spherical.c) are of the float local mesh, within 2^-24 scale * radius of
 * the double one: M also takes every object's reach scale * radius, so
 * delta covers that rounding carried into the world as well.
 */
#include "base/mem.h"
#include <stdlib.h>
#include <math.h>

#include "stages/finegrain.h"
#include "stages/stages.h"

/* Parallel over faces with per-worker object boxes (finegrain.c). */
int clash_stage_boxes(clash_run *run, int face_boxes)
{
    clash_scene *sc = run->sc;
    if (face_boxes && (run->boxes->deferred ? clash_fg_object_boxes(run) : clash_fg_boxes(run))) return -1;
    /* Culling inflation: 8 float ulps of the largest coordinate magnitude. */
    float m = 0;
    for (int o = 0; o < sc->nobj; ++o)
        for (int d = 0; d < 3; ++d) m = fmaxf(m, fmaxf(fabsf(run->boxes->obox[o].lo[d]), fabsf(run->boxes->obox[o].hi[d])));
    for (int o = 0; o < sc->nobj; ++o) /* the local meshes' reach (see the top) */
        m = fmaxf(m, (float)(fabs(sc->obj_scale[o]) * sc->mesh[sc->obj_mesh[o]].radius));
    run->boxes->delta = m * 8.0f * 1.1920929e-7f + 1e-30f;
    /* --min-separation D: the S5 test keeps pairs within D, so every box
     * is grown by D/2 more (two boxes D apart then overlap) */
    run->boxes->delta += (float)(0.5 * run->cfg.min_separation);
    return 0;
}

/* ---- S1's state ------------------------------------------------------------------------------ */

clash_boxes_state *clash_boxes_create(int64_t nf, int nobj)
{
    clash_boxes_state *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    float **a[] = {&b->lox, &b->loy, &b->loz, &b->hix, &b->hiy, &b->hiz};
    for (int i = 0; i < 6; ++i)
        if (!(*a[i] = clash_aligned_calloc((size_t)nf, sizeof(float)))) goto oom;
    if (!(b->obox = calloc((size_t)nobj, sizeof(clash_box)))) goto oom;
    return b;
oom:
    clash_boxes_free(b);
    return NULL;
}

void clash_boxes_free(clash_boxes_state *b)
{
    if (!b) return;
    free(b->lox), free(b->loy), free(b->loz), free(b->hix), free(b->hiy), free(b->hiz);
    free(b->obox), free(b->face_r);
    for (int k = 0; k < 2; ++k) free(b->hbox[k]), free(b->hdop[k]), free(b->hdop_has[k]);
    free(b);
}

size_t clash_boxes_bytes(const clash_boxes_state *b, int64_t nf, int nobj)
{
    return (size_t)nf * 6 * sizeof(float) + (size_t)nobj * sizeof(clash_box) +
           (b->hbox[0] ? 2 * (size_t)nobj * sizeof(clash_box) : 0) +
           (b->hdop[0] ? 2 * (size_t)nobj * (CLASH_HDOP * sizeof(float) + 1) : 0);
}
