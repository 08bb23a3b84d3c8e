/*
 * facetest.h — the exact face tests the stages share (003 §3.3.7, §4.2):
 *   a face against a box   static: the triangle/box test (kernels/tribox.c);
 *                          swept: the convex hull of the face's 6 positions
 *                          at s-1 and s against the box (kernels/hull.c);
 *   a face pair (S5)       static: triangle/triangle (kernels/tritri.c);
 *                          swept: the two faces' swept hulls meet (come
 *                          within --min-separation, when set).
 * Everything here reads the run's store; the pair test is inline so that the
 * narrow stage's loop and the octree's producer-consumer path inline it.
 */
#ifndef CLASH_CORE_FACETEST_H
#define CLASH_CORE_FACETEST_H

#include "core/run.h"
#include "kernels/kernels.h"

/* Gathers the points of face f's hull: 3 (static) or 6 (swept) points. */
/* Gathers the points of face f's hull: 3 (static) or 6 (swept) points. */
static inline int clash_face_points(const clash_run *run, uint32_t f, double p[6][3])
{
    const clash_scene *sc = run->sc;
    const int32_t v[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
    for (int k = 0; k < 3; ++k) p[k][0] = sc->x[v[k]], p[k][1] = sc->y[v[k]], p[k][2] = sc->z[v[k]];
    if (run->cfg.mode != CLASH_MODE_SWEPT) return 3;
    for (int k = 0; k < 3; ++k) p[3 + k][0] = sc->px[v[k]], p[3 + k][1] = sc->py[v[k]], p[3 + k][2] = sc->pz[v[k]];
    return 6;
}

/* The S5 face-pair test of faces a and b (global store numbers). */
static inline int clash_pair_test(const clash_run *run, uint32_t a, uint32_t b)
{
    double p[6][3], q[6][3];
    const int np = clash_face_points(run, a, p);
    clash_face_points(run, b, q);
    if (np == 3) return ck_tritri(p[0], p[1], p[2], q[0], q[1], q[2]);
    return ck_hulls_meet((const double(*)[3])p, 6, (const double(*)[3])q, 6, run->cfg.min_separation);
}

/* The same, out of line (for callers outside the hot loops). */
int clash_narrow_test(const clash_run *run, uint32_t a, uint32_t b);

/* Exact test of face f against box [lo, hi] grown by delta: the report's
 * triangle/box test in static mode, the swept hull against the box in swept mode. */
int clash_face_meets_box(const clash_run *run, uint32_t f, const double lo[3], const double hi[3]);

#endif
