/*
 * ccd_motion.h — exact CCD of primitive pairs whose points move rigidly
 * with objects that turn: the screw motion between two poses, or the
 * Euler-angle pose formula of a scene file, each point either on such a
 * motion or on a straight line.  The linear kernel (ccd.h) runs on dyadic
 * sub-steps of the step, each path's deviation from its chord over the
 * sub-step added to the separation.  Method and bound: the comment opening
 * ccd_motion.c.
 *
 * Rules of kernels/ apply: no allocation, no threads, no globals, no I/O.
 */
#ifndef CLASH_KERNELS_CCD_MOTION_H
#define CLASH_KERNELS_CCD_MOTION_H

#include "kernels/ccd.h"

enum { CK_RIGID_SCREW = 1, CK_RIGID_EULER = 2 };

/* Leaf sub-steps turn by at most this angle (radians); the search starts
 * from sub-steps of at most CK_CCD_SUB_START. */
#define CK_CCD_SUB_ANGLE 0x1p-7
#define CK_CCD_SUB_START 0.5
/* The kernel's tolerance on the sub-steps above the leaves, whose hits only
 * say where to look closer. */
#define CK_CCD_SUB_TOL 1.0
/* A sub-step that hits above the leaves is split into 2^CK_CCD_SUB_SPLIT parts. */
#define CK_CCD_SUB_SPLIT 3

/* Poses kept per motion: at tau = k / CK_RIGID_CACHE, 0 < k < CK_RIGID_CACHE (a power of two). */
#define CK_RIGID_CACHE 8

/* A rigid motion over one step, tau in [0, 1]: world = R(tau) (scale local) + t(tau). */
typedef struct ck_rigid {
    int kind;               /* CK_RIGID_SCREW or CK_RIGID_EULER */
    double scale;
    double R0[9], t0[3], R1[9], t1[3]; /* the poses at tau = 0 and 1, as given */
    /* screw: q0 the unit quaternion (w, x, y, z) of R0's nearest rotation Q0;
     * the relative rotation Q1 Q0^T turns by theta in [0, pi] about n;
     * dt = t1 - Q1 Q0^T t0 = d n + dtp (dtp across n); E0, E1 = R0 - Q0, R1 - Q1;
     * e >= |E1 - E0|_F */
    double q0[4], n[3], theta, d, dtp[3], E0[9], E1[9], e;
    /* Euler: the formula's parameters, at state s0 + tau */
    double rot_deg[3], angvel_deg[3], pos[3], vel[3], s0;
    double turn;            /* bound on the angle turned per step: theta, or |a| + |b| + |c| (radians) */
    double cR[CK_RIGID_CACHE - 1][9], ct[CK_RIGID_CACHE - 1][3]; /* the poses at tau = k / CK_RIGID_CACHE */
    double delta;           /* bound on the rounding of a computed position, 2^-40 M (M bounds |world|) */
} ck_rigid;

/* The scene-file pose formula at (fractional) state s: R = Rz(c) Ry(b) Rx(a) with
 * (a, b, c) = (rot_deg + s angvel_deg) in radians, t = pos + s vel. */
void ck_euler_pose(const double rot_deg[3], const double angvel_deg[3], const double pos[3], const double vel[3],
                   double s, double R[9], double t[3]);

/* The screw motion from pose (R0, t0) to (R1, t1) (rotations within 1e-6 of
 * orthonormal), of an object of the given scale and mesh radius. */
void ck_rigid_screw(ck_rigid *m, const double R0[9], const double t0[3], const double R1[9], const double t1[3],
                    double scale, double radius);
/* The formula's motion from state s - 1 to state s. */
void ck_rigid_euler(ck_rigid *m, const double rot_deg[3], const double angvel_deg[3], const double pos[3],
                    const double vel[3], double scale, int s, double radius);
/* The pose at tau (exactly the given ends at 0 and 1). */
void ck_rigid_pose(const ck_rigid *m, double tau, double R[9], double t[3]);

/* A world position as S0 computes it: (R scale) l + t, the products summed left to right. */
static inline void ck_rigid_place(const double R[9], double scale, const double t[3], const double l[3],
                                  double out[3])
{
    for (int d = 0; d < 3; ++d)
        out[d] = ((R[3 * d] * scale) * l[0] + (R[3 * d + 1] * scale) * l[1] + (R[3 * d + 2] * scale) * l[2]) + t[d];
}

/* One point of a query: on motion m at local position l, or (m NULL) on the
 * straight line from x0 (tau = 0) to x1 (tau = 1). */
typedef struct ck_ccd_point {
    const ck_rigid *m;
    double l[3];
    double x0[3], x1[3];
} ck_ccd_point;

/* The query of ck_ccd (kind, points in its order) along the points' own
 * paths.  Returns 1 when the primitives may come within o->min_sep during
 * the step, with *toi no later than the first such time; 0 when they
 * certainly do not (*toi = 1).  Never a false negative; a pair that comes
 * within min_sep plus the leaf sub-steps' chord deviations may be a hit.
 * c (may be NULL) counts the query once: tests, hits, and filter_no when
 * every sub-step was decided by the filters, else exact_calls. */
int ck_ccd_rigid(int kind, const ck_ccd_point p[4], const ck_ccd_opts *o, double *toi, ck_ccd_counts *c);

#endif
