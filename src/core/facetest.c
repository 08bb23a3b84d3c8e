/*
 * facetest.c — the out-of-line face tests of facetest.h: the face/box test
 * of S3 and the octree's leaves, and the face-pair test for callers outside
 * the narrow stage's loop.
 */
#include "core/facetest.h"

int clash_face_meets_box_full(const clash_run *run, uint32_t f, const double lo[3], const double hi[3])
{
    double p[6][3];
    const int np = clash_face_points(run, f, p);
    const double d = run->delta;
    if (np == 3) {
        const double glo[3] = {lo[0] - d, lo[1] - d, lo[2] - d}, ghi[3] = {hi[0] + d, hi[1] + d, hi[2] + d};
        return ck_tribox(p[0], p[1], p[2], glo, ghi);
    }
    const double m = run->sc->nturning ? clash_face_margin(run, f) : 0;
    return ck_hull_box((const double(*)[3])p, np, lo, hi, d + m);
}

int clash_narrow_test(const clash_run *run, uint32_t a, uint32_t b) { return clash_pair_test(run, a, b); }
