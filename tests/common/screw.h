/*
 * screw.h — rigid motions for the turning tests (test_turning.c,
 * test_ccd_turning.c): rotations about an axis (Rodrigues), 3x3 products,
 * and screws (a rotation about a line and a slide along it), all row-major
 * doubles, written out independently of the library's own pose code.
 */
#ifndef CLASH_TESTS_SCREW_H
#define CLASH_TESTS_SCREW_H

#include <math.h>

/* Rotation by angle a about unit axis u (Rodrigues), row-major. */
static inline void axis_rot(const double u[3], double a, double R[9])
{
    const double c = cos(a), s = sin(a), k = 1 - c;
    R[0] = c + u[0] * u[0] * k, R[1] = u[0] * u[1] * k - u[2] * s, R[2] = u[0] * u[2] * k + u[1] * s;
    R[3] = u[1] * u[0] * k + u[2] * s, R[4] = c + u[1] * u[1] * k, R[5] = u[1] * u[2] * k - u[0] * s;
    R[6] = u[2] * u[0] * k - u[1] * s, R[7] = u[2] * u[1] * k + u[0] * s, R[8] = c + u[2] * u[2] * k;
}

static inline void mat_mul(const double A[9], const double B[9], double C[9])
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* A screw: rotation by th about the line through c along u, and h along u. */
typedef struct screw {
    double u[3], th, c[3], h;
} screw;

/* Pose (R0, t0) moved by the screw's fraction tau. */
static inline void screw_apply(const screw *w, double tau, const double R0[9], const double t0[3], double R[9],
                               double t[3])
{
    double Q[9];
    axis_rot(w->u, tau * w->th, Q);
    mat_mul(Q, R0, R);
    const double r[3] = {t0[0] - w->c[0], t0[1] - w->c[1], t0[2] - w->c[2]};
    for (int d = 0; d < 3; ++d)
        t[d] = w->c[d] + Q[3 * d] * r[0] + Q[3 * d + 1] * r[1] + Q[3 * d + 2] * r[2] + tau * w->h * w->u[d];
}

#endif
