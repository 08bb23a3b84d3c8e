/*
 * facetest.c — the out-of-line face tests of facetest.h: the face/box test
 * of S3 and the octree's leaves, and the face-pair test for callers outside
 * the narrow stage's loop; and the growth of turning faces' boxes by their
 * arc margins (S1, and S3's deferred boxes).
 */
#include "stages/facetest.h"

int clash_face_meets_box_full(const clash_run *run, uint32_t f, const double lo[3], const double hi[3])
{
    double p[6][3];
    const int np = clash_face_points(run, f, p);
    const double d = run->boxes->delta;
    if (np == 3) {
        const double glo[3] = {lo[0] - d, lo[1] - d, lo[2] - d}, ghi[3] = {hi[0] + d, hi[1] + d, hi[2] + d};
        return ck_tribox(p[0], p[1], p[2], glo, ghi);
    }
    /* (ck_tribox of the face at s and at s-1 first settles most of the
     * octree's leaf tests on the cluttered spheres, slightly fewer
     * instructions there, but it makes the oracle's random scenes much
     * slower, where faces are coarse and move far: not kept; bench/RESULTS.md) */
    const double m = run->sc->nturning ? clash_face_margin(run, f) : 0;
    return ck_hull_box((const double(*)[3])p, np, lo, hi, d + m);
}

int clash_narrow_test(const clash_run *run, uint32_t a, uint32_t b) { return clash_pair_test(run, a, b); }

/* Swept mode, an object that turns: its faces [f, e) (by step) leave their
 * hulls by up to their arc margins (clash_face_margin), so their boxes grow
 * by them (clash_grow_side, outward); lo/hi become the grown boxes' bounds.
 * The piece is one object's: its turn is read once. */
void clash_grow_turning(clash_run *run, int64_t f, int64_t e, int64_t step, float lo[3], float hi[3])
{
    float *const L[3] = {run->boxes->lox, run->boxes->loy, run->boxes->loz}, *const H[3] = {run->boxes->hix, run->boxes->hiy, run->boxes->hiz};
    const clash_turn *t = &run->sc->turn[run->face_obj[f]];
    const double k = t->k, eps = t->eps;
    const float *r = run->boxes->face_r;
    if (t->kind == CLASH_TURN_RADIUS) { /* a law: one multiply-add per face (kernels/turning_boxes.c) */
        ck_grow_boxes(f, e, step, r, k, eps, L[0], L[1], L[2], H[0], H[1], H[2], lo, hi);
        return;
    }
    for (int d = 0; d < 3; ++d) lo[d] = INFINITY, hi[d] = -INFINITY;
    for (; f < e; f += step) { /* the screw: the margin from the vertices' chords, once per face */
        const double m = clash_face_margin(run, (uint32_t)f);
        for (int d = 0; d < 3; ++d) {
            clash_grow_side(&L[d][f], &H[d][f], m);
            lo[d] = L[d][f] < lo[d] ? L[d][f] : lo[d], hi[d] = H[d][f] > hi[d] ? H[d][f] : hi[d];
        }
    }
}
