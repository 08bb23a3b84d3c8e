/*
 * facetest.h — the exact face tests the stages share ([Smith94] §3.3.7, §4.2):
 *   a face against a box   static: the triangle/box test (kernels/tribox.c);
 *                          swept: the convex hull of the face's 6 positions
 *                          at s-1 and s against the box (kernels/hull.c);
 *   a face pair (S5)       static: triangle/triangle (kernels/tritri.c);
 *                          swept: the two faces' swept hulls meet (come
 *                          within --min-separation, when set).
 * Everything here reads the run's store, and every decision its double
 * truth (dx/dy/dz, dpx/dpy/dpz: the host's coordinates, store/scene.h),
 * never the float copies that cull; the pair test is inline so that the
 * narrow stage's loop and the octree's producer-consumer path inline it.
 *
 * Turning objects (swept mode).  A face of an object that turns during the
 * step leaves its hull by up to its arc margin (store/turn.c): every swept
 * test of it takes that margin as its tolerance (a pair: the sum of the
 * two faces' margins), and S1 grew its box by it.  The margin is 0 for the
 * faces of objects that do not turn, and the tests are then the same as
 * without it.
 */
#ifndef CLASH_CORE_FACETEST_H
#define CLASH_CORE_FACETEST_H

#include <math.h>

#include "core/run.h"
#include "stages/boxes.h"
#include "kernels/kernels.h"

/* Gathers the points of face f's hull: 3 (static) or 6 (swept) points. */
static inline int clash_face_points(const clash_run *run, uint32_t f, double p[6][3])
{
    const clash_scene *sc = run->sc;
    const int32_t v[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
    for (int k = 0; k < 3; ++k) p[k][0] = sc->dx[v[k]], p[k][1] = sc->dy[v[k]], p[k][2] = sc->dz[v[k]];
    if (run->cfg.mode != CLASH_MODE_SWEPT) return 3;
    for (int k = 0; k < 3; ++k) p[3 + k][0] = sc->dpx[v[k]], p[3 + k][1] = sc->dpy[v[k]], p[3 + k][2] = sc->dpz[v[k]];
    return 6;
}

/* The arc margin of face f during the step (store/scene.h, clash_turn):
 * how far its swept path may leave the hull of its 6 positions; 0 when its
 * object does not turn.  Swept mode only, after S1 (which fills
 * run->boxes->face_r, the faces' local radii, clash_fg_boxes). */
static inline double clash_face_margin(const clash_run *run, uint32_t f)
{
    const clash_scene *sc = run->sc;
    const clash_turn *t = &sc->turn[run->face_obj[f]];
    if (t->kind == CLASH_TURN_NONE) return 0;
    if (t->kind == CLASH_TURN_RADIUS) return t->k * run->boxes->face_r[f] + t->eps;
    const int32_t v[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
    double r2 = 0;
    for (int k = 0; k < 3; ++k) {
        const double a = sc->dx[v[k]] - sc->dpx[v[k]], b = sc->dy[v[k]] - sc->dpy[v[k]],
                     c = sc->dz[v[k]] - sc->dpz[v[k]];
        const double q = a * a + b * b + c * c;
        r2 = q > r2 ? q : r2;
    }
    return t->k * sqrt(r2) + t->eps;
}

/* A face box's side [l, h] (floats) grown by m >= 0 outward: the result
 * holds [l - m, h + m] without a rounding branch.  fl((double)l - g) with
 * g = m (1 + 2^-20) + 2^-22 |l| is at most l - g + 2^-24 (|l| + g) <= l - m
 * (float rounding is half an ulp, 2^-24 relative), likewise above. */
static inline void clash_grow_side(float *l, float *h, double m)
{
    const double a = *l, b = *h, g = m * (1 + 0x1p-20);
    *l = (float)(a - (g + 0x1p-22 * fabs(a)));
    *h = (float)(b + (g + 0x1p-22 * fabs(b)));
}

/* The S5 face-pair test of faces a and b (global store numbers). */
/* The swept pair test's tolerance: --min-separation plus the two faces'
 * arc margins (0 where nothing turns and no separation is asked for). */
static inline double clash_pair_tol(const clash_run *run, uint32_t a, uint32_t b)
{
    const double d = run->cfg.min_separation;
    return run->sc->nturning ? d + clash_face_margin(run, a) + clash_face_margin(run, b) : d;
}

static inline int clash_pair_test(const clash_run *run, uint32_t a, uint32_t b)
{
    double p[6][3], q[6][3];
    const int np = clash_face_points(run, a, p);
    clash_face_points(run, b, q);
    if (np == 3) return ck_tritri(p[0], p[1], p[2], q[0], q[1], q[2]);
    return ck_hulls_meet((const double(*)[3])p, 6, (const double(*)[3])q, 6, clash_pair_tol(run, a, b));
}

/* Swept mode, faces [f, e) (by step) of one object that turns, boxed by
 * S1's kernel: their boxes grown in place by the arc margins (as
 * clash_grow_side grows a side); lo/hi become the grown boxes' bounds.  S1
 * (stages/finegrain.c) and S3's deferred boxes (stages/deferred.c). */
void clash_grow_turning(clash_run *run, int64_t f, int64_t e, int64_t step, float lo[3], float hi[3]);

/* The same, out of line (for callers outside the hot loops). */
int clash_narrow_test(const clash_run *run, uint32_t a, uint32_t b);

/* Exact test of face f against box [lo, hi] grown by delta: the report's
 * triangle/box test in static mode, the swept hull against the box in swept
 * mode (grown by delta and the face's arc margin).  Out of line; callers use
 * clash_face_meets_box. */
int clash_face_meets_box_full(const clash_run *run, uint32_t f, const double lo[3], const double hi[3]);

/* The same answer, with the exact tests' own first decisions in line: no
 * gather into a point array and no call for most faces that straddle an
 * overlap region's boundary (S3; the octree's leaves call the full test).
 *   static: a vertex inside the grown box (ck_tribox's step 2, on the same
 *     doubles: lo - delta and hi + delta, the double vertex)
 *     means the triangle meets it; two suzannes: every straddler;
 *   swept: ck_hull_box's prefix on the 6 points, operation for operation
 *     (tol = delta + the arc margin): the bounds' reject, then a point
 *     inside the box grown by tol, which settles most of the faces that
 *     pass the reject on the swept cluttered spheres. */
static inline int clash_face_meets_box(const clash_run *run, uint32_t f, const double lo[3], const double hi[3])
{
    const clash_scene *sc = run->sc;
    const double d = run->boxes->delta;
    const int32_t v[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
    if (run->cfg.mode != CLASH_MODE_SWEPT) {
        const double l0 = lo[0] - d, l1 = lo[1] - d, l2 = lo[2] - d, h0 = hi[0] + d, h1 = hi[1] + d, h2 = hi[2] + d;
        int in = 0;
        for (int k = 0; k < 3; ++k) {
            const double x = sc->dx[v[k]], y = sc->dy[v[k]], z = sc->dz[v[k]];
            in |= (x >= l0) & (x <= h0) & (y >= l1) & (y <= h1) & (z >= l2) & (z <= h2);
        }
        if (in) return 1;
    } else {
        const double tol = d + (sc->nturning ? clash_face_margin(run, f) : 0);
        if (tol >= 0) {
            const double ttol = tol * (1.0 + 0x1p-40);
            const double *const C[3] = {sc->dx, sc->dy, sc->dz}, *const Pv[3] = {sc->dpx, sc->dpy, sc->dpz};
            unsigned in = 0x3f;
            for (int k = 0; k < 3; ++k) {
                const double q[6] = {C[k][v[0]], C[k][v[1]], C[k][v[2]], Pv[k][v[0]], Pv[k][v[1]], Pv[k][v[2]]};
                double pl = q[0], ph = pl;
                for (int i = 1; i < 6; ++i) pl = q[i] < pl ? q[i] : pl, ph = q[i] > ph ? q[i] : ph;
                if (lo[k] - ph > ttol || pl - hi[k] > ttol) return 0;
                for (int i = 0; i < 6; ++i) in &= ~((unsigned)!(q[i] >= lo[k] - tol && q[i] <= hi[k] + tol) << i);
            }
            if (in) return 1;
        }
    }
    return clash_face_meets_box_full(run, f, lo, hi);
}

#endif
