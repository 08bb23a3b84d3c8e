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
#include <math.h>

#include "stages/finegrain.h"
#include "stages/stages.h"

/* Parallel over faces with per-worker object boxes (finegrain.c). */
int clash_stage_boxes(clash_run *run, int face_boxes)
{
    clash_scene *sc = run->sc;
    if (face_boxes && (run->boxes_deferred ? clash_fg_object_boxes(run) : clash_fg_boxes(run))) return -1;
    /* Culling inflation: 8 float ulps of the largest coordinate magnitude. */
    float m = 0;
    for (int o = 0; o < sc->nobj; ++o)
        for (int d = 0; d < 3; ++d) m = fmaxf(m, fmaxf(fabsf(run->obox[o].lo[d]), fabsf(run->obox[o].hi[d])));
    for (int o = 0; o < sc->nobj; ++o) /* the local meshes' reach (see the top) */
        m = fmaxf(m, (float)(fabs(sc->obj_scale[o]) * sc->mesh[sc->obj_mesh[o]].radius));
    run->delta = m * 8.0f * 1.1920929e-7f + 1e-30f;
    /* --min-separation D: the S5 test keeps pairs within D, so every box
     * is grown by D/2 more (two boxes D apart then overlap) */
    run->delta += (float)(0.5 * run->cfg.min_separation);
    return 0;
}
