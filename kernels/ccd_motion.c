/*
 * ccd_motion.c — exact CCD along rigid motions that turn: the linear kernel
 * (ck_ccd) on dyadic sub-steps, with each path's deviation from its chord
 * added to the separation.
 *
 * The paths.  A point of a rigid object is p(tau) = R(tau) (scale l) + t(tau),
 * tau in [0, 1] over the step, l its local position.
 *   Screw (host poses): with Q0, Q1 the nearest rotations of R0, R1 (polar
 *   factors, by Newton's iteration X <- (X + X^-T) / 2) and E_i = R_i - Q_i
 *   (zero for exact rotations), ΔQ = Q1 Q0^T turns by theta in [0, pi] about
 *   the unit axis n (the shortest rotation: two poses 359 degrees apart are
 *   a turn of 1 degree the other way).  Then
 *       R(tau) = ΔQ(tau) Q0 + (1 - tau) E0 + tau E1,
 *       t(tau) = ΔQ(tau) t0 + tau d n + [sin(tau theta/2) / sin(theta/2)] Rot(n, (tau-1) theta/2) dtp,
 *   with ΔQ(tau) the turn by tau theta about n, dt = t1 - ΔQ t0 = d n + dtp
 *   (dtp across n).  Without the residues this is the screw: the rotation
 *   about a fixed line parallel to n through c, (I - ΔQ) c = dtp, with the
 *   translation d n along it, both growing evenly: across n (complex
 *   numbers in the plane across n) the translation is (1 - e^{i tau theta}) c
 *   = (1 - e^{i tau theta}) / (1 - e^{i theta}) dtp, which is the bracket
 *   above, well conditioned down to theta = 0 (where it is tau dtp) unlike
 *   c itself.  The residues blend linearly and bend no path.
 *   Euler (scene files): R(tau) = Rz(c) Ry(b) Rx(a), each angle linear in
 *   tau (rates alpha, beta, gamma per step), t(tau) linear: the formula of
 *   ck_euler_pose at the fractional state s - 1 + tau.
 *   Straight line (deforming objects, objects that do not turn): p(tau) =
 *   (1 - tau) x0 + tau x1, exactly the kernel's own motion.
 *
 * The bound.  On a sub-step [ta, tb] of length h let c(tau) be the chord of
 * a point's path between p(ta) and p(tb).  The kernel tests the primitives
 * whose points move on their chords.  A point of a primitive is an affine
 * (convex) combination of its points with weights fixed in time, and so is
 * its chord point, so it lies within dev = max over the primitive's points
 * of max_tau |p(tau) - c(tau)| of its chord point at every tau.  If the
 * primitives come within ms at some tau along their paths, their chord
 * versions come within ms + dev_a + dev_b at that tau (triangle inequality),
 * so the kernel with min_sep = ms + dev_a + dev_b reports a hit with
 * toi_sub no later than that tau: never a miss, never late.  Its max-norm
 * measure of separation (ccd.h) is never above the Euclidean one, so that
 * holds as well.  The deviations:
 *   Screw: over the sub-step the motion is the screw of angle h theta about
 *   the same line; a point at distance rho from it moves on an arc whose
 *   chord across the line is 2 rho sin(h theta / 2), and leaves that chord
 *   by at most rho (1 - cos(h theta / 2)) (src/store/turn.c derives it), so
 *       dev <= |chord| tan(h theta / 4) / 2,
 *   |chord| the length of the screw part's chord, at most the computed
 *   chord plus the residues' share h e |scale l|.  The axial part is
 *   linear and adds nothing.
 *   Euler: one axis turning, the point turns by h |rate| about a fixed axis
 *   at distance rho <= |scale l|, so dev <= |scale l| (1 - cos(h theta / 2))
 *   (2 beyond a full turn); several axes, the curvature bound of turn.c with
 *   each rate scaled by h: dev <= |scale l| min(2, h^2 (W^2 + P) / 8), W the
 *   sum of the rates' magnitudes and P the sum of their pairwise products.
 *   (1 - cos x is evaluated as 2 sin^2(x / 2): no cancellation for small x.)
 *   Straight line: zero.
 * Rounding: computed positions are within delta = 2^-40 M of the path (M
 * bounds the magnitude of the coordinates; the few operations of a pose and
 * a transform err by some 1e-15 M), which widens each chord by delta at its
 * ends; so every point's dev gets delta, the chords 2 delta, and the factors
 * a relative 1e-9.
 *
 * The search.  Sub-steps are dyadic: [i 2^-k, (i+1) 2^-k], so their ends,
 * their length and toi = ta + h toi_sub are exact (the sum rounded down
 * once more to stay no later).  With Θ the largest turn per step of the
 * pair's motions, the search starts from the sub-steps that turn by at most
 * CK_CCD_SUB_START and takes them in time order, depth first: a sub-step
 * is tested with its deviations; a miss clears it (no contact in it); a hit
 * on a leaf is the answer; a hit above the leaves splits it into
 * 2^CK_CCD_SUB_SPLIT parts, searched earliest first, without the parts that
 * end before the hit's toi (the kernel found nothing there).  The first leaf
 * hit is no later than the first contact: every sub-step before it was
 * cleared, and the leaf that holds the first contact hits no later than it.
 * A sub-step is a leaf when it turns by at most CK_CCD_SUB_ANGLE and either
 *   - its deviations D = dev_a + dev_b are small against the primitives'
 *     relative motion over it, D h <= tolerance rel / 2 (rel the largest
 *     relative displacement of a point of a and one of b over the
 *     sub-step): the widened test reaches D beyond the paths, and rel / h
 *     is the speed at which a gap closes head on, so it fires at most about
 *     D h / rel <= tolerance / 2 before a head-on first contact (more for a
 *     glancing one, never after); or
 *   - it is no longer than the tolerance (primitives that barely move
 *     against each other), or as short as the search goes (2^-30).
 * Above the leaves a hit only says where to look closer, so the kernel runs
 * there with the coarse tolerance CK_CCD_SUB_TOL: it settles a hit in a few
 * boxes, where pinning its toi down with the large separations of long
 * sub-steps costs many.  At a leaf it runs with the step's tolerance in
 * time (tolerance / h, at most 1), but no coarser than makes its spatial
 * slack (ccd.h: a pass within tolerance x extent / 8 may be a hit) 64 D,
 * and no finer than the caller's: a small positive min_sep makes the kernel
 * resolve space down to it, and the deviations are already a slack of that
 * size.  Sub-steps and their tests depend on the query only: the answer
 * does not depend on who asks or in what order.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels/ccd_motion.h"

static const double PI = 3.14159265358979323846;

void ck_euler_pose(const double rot_deg[3], const double angvel_deg[3], const double pos[3], const double vel[3],
                   double s, double R[9], double t[3])
{
    const double deg = 3.14159265358979323846 / 180.0;
    const double a = (rot_deg[0] + s * angvel_deg[0]) * deg;
    const double b = (rot_deg[1] + s * angvel_deg[1]) * deg;
    const double c = (rot_deg[2] + s * angvel_deg[2]) * deg;
    const double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cc = cos(c), sc = sin(c);
    /* Rz(c) * Ry(b) * Rx(a) */
    R[0] = cc * cb, R[1] = cc * sb * sa - sc * ca, R[2] = cc * sb * ca + sc * sa;
    R[3] = sc * cb, R[4] = sc * sb * sa + cc * ca, R[5] = sc * sb * ca - cc * sa;
    R[6] = -sb, R[7] = cb * sa, R[8] = cb * ca;
    for (int d = 0; d < 3; ++d) t[d] = pos[d] + s * vel[d];
}

static double norm3(const double v[3]) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }
/* max and min of finite values (a NaN from bad input reaches the kernel, which answers it with a hit) */
static inline double dmax(double a, double b) { return a > b ? a : b; }
static inline double dmin(double a, double b) { return a < b ? a : b; }
/* 2^-k for 0 <= k <= 62, exactly */
static inline double pow2m(int k) { return 1.0 / (double)((uint64_t)1 << k); }

/* ---- rotations and quaternions ------------------------------------------------------------ */

/* The nearest rotation to R (within 1e-6 of one): Newton's iteration for the polar factor. */
static void polar(const double R[9], double Q[9])
{
    memcpy(Q, R, 9 * sizeof *Q);
    for (int it = 0; it < 8; ++it) {
        const double *X = Q;
        double C[9]; /* cofactors: X^-T = C / det */
        C[0] = X[4] * X[8] - X[5] * X[7], C[1] = X[5] * X[6] - X[3] * X[8], C[2] = X[3] * X[7] - X[4] * X[6];
        C[3] = X[2] * X[7] - X[1] * X[8], C[4] = X[0] * X[8] - X[2] * X[6], C[5] = X[1] * X[6] - X[0] * X[7];
        C[6] = X[1] * X[5] - X[2] * X[4], C[7] = X[2] * X[3] - X[0] * X[5], C[8] = X[0] * X[4] - X[1] * X[3];
        const double det = X[0] * C[0] + X[1] * C[1] + X[2] * C[2];
        double change = 0;
        for (int i = 0; i < 9; ++i) {
            const double y = 0.5 * (Q[i] + C[i] / det);
            change = fmax(change, fabs(y - Q[i]));
            Q[i] = y;
        }
        if (change <= 1e-15) break;
    }
}

/* Unit quaternion (w, x, y, z) of rotation Q (Shepperd's choice of the largest pivot). */
static void quat_of(const double m[9], double q[4])
{
    const double tr = m[0] + m[4] + m[8];
    if (tr > 0) {
        const double s = 2 * sqrt(tr + 1);
        q[0] = s / 4, q[1] = (m[7] - m[5]) / s, q[2] = (m[2] - m[6]) / s, q[3] = (m[3] - m[1]) / s;
    } else if (m[0] > m[4] && m[0] > m[8]) {
        const double s = 2 * sqrt(1 + m[0] - m[4] - m[8]);
        q[0] = (m[7] - m[5]) / s, q[1] = s / 4, q[2] = (m[1] + m[3]) / s, q[3] = (m[2] + m[6]) / s;
    } else if (m[4] > m[8]) {
        const double s = 2 * sqrt(1 + m[4] - m[0] - m[8]);
        q[0] = (m[2] - m[6]) / s, q[1] = (m[1] + m[3]) / s, q[2] = s / 4, q[3] = (m[5] + m[7]) / s;
    } else {
        const double s = 2 * sqrt(1 + m[8] - m[0] - m[4]);
        q[0] = (m[3] - m[1]) / s, q[1] = (m[2] + m[6]) / s, q[2] = (m[5] + m[7]) / s, q[3] = s / 4;
    }
    const double k = 1 / sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; ++i) q[i] *= k;
}

static void mat_of(const double q[4], double m[9])
{
    const double w = q[0], x = q[1], y = q[2], z = q[3];
    m[0] = 1 - 2 * (y * y + z * z), m[1] = 2 * (x * y - z * w), m[2] = 2 * (x * z + y * w);
    m[3] = 2 * (x * y + z * w), m[4] = 1 - 2 * (x * x + z * z), m[5] = 2 * (y * z - x * w);
    m[6] = 2 * (x * z - y * w), m[7] = 2 * (y * z + x * w), m[8] = 1 - 2 * (x * x + y * y);
}

/* Hamilton product a b (the rotation of b, then of a). */
static void quat_mul(const double a[4], const double b[4], double r[4])
{
    r[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    r[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    r[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    r[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

static void mat_vec(const double m[9], const double v[3], double r[3])
{
    for (int i = 0; i < 3; ++i) r[i] = m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2];
}

static void fill_cache(ck_rigid *m);

/* ---- the motions -------------------------------------------------------------------------- */

void ck_rigid_screw(ck_rigid *m, const double R0[9], const double t0[3], const double R1[9], const double t1[3],
                    double scale, double radius)
{
    memset(m, 0, sizeof *m);
    m->kind = CK_RIGID_SCREW;
    m->scale = scale;
    memcpy(m->R0, R0, sizeof m->R0), memcpy(m->R1, R1, sizeof m->R1);
    memcpy(m->t0, t0, sizeof m->t0), memcpy(m->t1, t1, sizeof m->t1);
    double Q0[9], Q1[9], q1[4], Qa[9], Qb[9];
    polar(R0, Q0), polar(R1, Q1);
    quat_of(Q0, m->q0), quat_of(Q1, q1);
    mat_of(m->q0, Qa), mat_of(q1, Qb);
    double e = 0;
    for (int i = 0; i < 9; ++i) {
        m->E0[i] = R0[i] - Qa[i], m->E1[i] = R1[i] - Qb[i];
        e += (m->E1[i] - m->E0[i]) * (m->E1[i] - m->E0[i]);
    }
    m->e = sqrt(e) * (1 + 1e-9);
    const double c0[4] = {m->q0[0], -m->q0[1], -m->q0[2], -m->q0[3]};
    double dq[4];
    quat_mul(q1, c0, dq);
    if (dq[0] < 0) /* the shorter way round */
        for (int i = 0; i < 4; ++i) dq[i] = -dq[i];
    const double v = sqrt(dq[1] * dq[1] + dq[2] * dq[2] + dq[3] * dq[3]);
    m->theta = 2 * atan2(v, dq[0]);
    if (v > 0)
        for (int i = 0; i < 3; ++i) m->n[i] = dq[1 + i] / v;
    double dQ[9], r[3], dt[3];
    mat_of(dq, dQ);
    mat_vec(dQ, t0, r);
    for (int i = 0; i < 3; ++i) dt[i] = t1[i] - r[i];
    m->d = m->n[0] * dt[0] + m->n[1] * dt[1] + m->n[2] * dt[2];
    for (int i = 0; i < 3; ++i) m->dtp[i] = dt[i] - m->d * m->n[i];
    m->turn = m->theta * (1 + 1e-9) + 1e-15;
    /* the path stays within |dt| of the chord of t (an arc of radius |dtp| / (2 sin(theta/2)) at most
     * |dtp| from its chord); the residues are below 1e-5 of scale * radius */
    const double M = 2 * scale * radius + fmax(norm3(t0), norm3(t1)) + 2 * norm3(dt);
    m->delta = 0x1p-40 * M + 1e-300;
    fill_cache(m);
}

void ck_rigid_euler(ck_rigid *m, const double rot_deg[3], const double angvel_deg[3], const double pos[3],
                    const double vel[3], double scale, int s, double radius)
{
    memset(m, 0, sizeof *m);
    m->kind = CK_RIGID_EULER;
    m->scale = scale;
    memcpy(m->rot_deg, rot_deg, sizeof m->rot_deg), memcpy(m->angvel_deg, angvel_deg, sizeof m->angvel_deg);
    memcpy(m->pos, pos, sizeof m->pos), memcpy(m->vel, vel, sizeof m->vel);
    m->s0 = (double)(s - 1);
    ck_euler_pose(rot_deg, angvel_deg, pos, vel, m->s0, m->R0, m->t0);
    ck_euler_pose(rot_deg, angvel_deg, pos, vel, (double)s, m->R1, m->t1);
    double W = 0;
    for (int d = 0; d < 3; ++d) W += fabs(angvel_deg[d] * (PI / 180));
    m->turn = W * (1 + 1e-9);
    const double M = scale * radius + fmax(norm3(m->t0), norm3(m->t1));
    m->delta = 0x1p-40 * M + 1e-300;
    fill_cache(m);
}

/* The pose at 0 < tau < 1, computed. */
static void pose_at(const ck_rigid *m, double tau, double R[9], double t[3])
{
    if (m->kind == CK_RIGID_EULER) {
        ck_euler_pose(m->rot_deg, m->angvel_deg, m->pos, m->vel, m->s0 + tau, R, t);
        return;
    }
    const double half = 0.5 * tau * m->theta, sh = sin(half);
    const double dq[4] = {cos(half), m->n[0] * sh, m->n[1] * sh, m->n[2] * sh};
    double q[4], dQ[9], r[3];
    quat_mul(dq, m->q0, q);
    mat_of(q, R);
    for (int i = 0; i < 9; ++i) R[i] += (1 - tau) * m->E0[i] + tau * m->E1[i];
    mat_of(dq, dQ);
    mat_vec(dQ, m->t0, r);
    /* across n: sin(tau theta/2) / sin(theta/2) times dtp turned by (tau - 1) theta / 2 */
    const double sth = sin(0.5 * m->theta);
    const double ratio = sth > 0 ? sh / sth : tau;
    const double psi = 0.5 * (tau - 1) * m->theta, cp = cos(psi), sp = sin(psi);
    const double *n = m->n, *u = m->dtp;
    const double nu[3] = {n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2], n[0] * u[1] - n[1] * u[0]};
    for (int i = 0; i < 3; ++i) t[i] = r[i] + tau * m->d * n[i] + ratio * (cp * u[i] + sp * nu[i]);
}

/* The poses at tau = k / CK_RIGID_CACHE, which most queries ask for, computed once per motion. */
static void fill_cache(ck_rigid *m)
{
    for (int k = 1; k < CK_RIGID_CACHE; ++k) pose_at(m, (double)k / CK_RIGID_CACHE, m->cR[k - 1], m->ct[k - 1]);
}

void ck_rigid_pose(const ck_rigid *m, double tau, double R[9], double t[3])
{
    if (tau <= 0 || tau >= 1) {
        memcpy(R, tau <= 0 ? m->R0 : m->R1, 9 * sizeof *R);
        memcpy(t, tau <= 0 ? m->t0 : m->t1, 3 * sizeof *t);
        return;
    }
    const double k = tau * CK_RIGID_CACHE; /* exact: a power of two */
    if (k == (double)(int)k) {
        memcpy(R, m->cR[(int)k - 1], 9 * sizeof *R);
        memcpy(t, m->ct[(int)k - 1], 3 * sizeof *t);
        return;
    }
    pose_at(m, tau, R, t);
}

/* ---- the deviations ----------------------------------------------------------------------- */

/* 1 - cos(x), accurately */
static double one_minus_cos(double x)
{
    const double s = sin(0.5 * x);
    return 2 * s * s;
}

/* The factor D(h) of an Euler motion: dev <= D |scale l| over a sub-step of length h. */
static double euler_factor(const ck_rigid *m, double h)
{
    double r[3];
    int axes = 0;
    for (int d = 0; d < 3; ++d) r[d] = fabs(m->angvel_deg[d] * (PI / 180)) * h, axes += r[d] > 0;
    if (!axes) return 0;
    const double W = r[0] + r[1] + r[2];
    if (axes == 1) return W <= 2 * PI ? one_minus_cos(0.5 * W) : 2;
    const double P = r[0] * r[1] + r[0] * r[2] + r[1] * r[2];
    return dmin(2, (W * W + P) / 8);
}

/* ---- the search --------------------------------------------------------------------------- */

typedef struct at_tau {
    double tau;
    double x[4][3];
} at_tau;

typedef struct search {
    const ck_ccd_point *p;
    const ck_rigid *mo[2];      /* the distinct motions among the points */
    int nmo, mo_of[4];          /* the motion of each point (-1: straight line) */
    double wn[4];               /* |scale l| of each point on a motion */
    double lin_delta[4];        /* the rounding of a point on a straight line */
    at_tau cache[2];
    int next;
} search;

static const double (*positions(search *S, double tau))[3]
{
    for (int i = 0; i < 2; ++i)
        if (S->cache[i].tau == tau) return (const double(*)[3])S->cache[i].x;
    at_tau *a = &S->cache[S->next];
    S->next ^= 1;
    a->tau = tau;
    double R[2][9], t[2][3];
    for (int k = 0; k < S->nmo; ++k) ck_rigid_pose(S->mo[k], tau, R[k], t[k]);
    for (int j = 0; j < 4; ++j) {
        const ck_ccd_point *q = &S->p[j];
        const int k = S->mo_of[j];
        if (k >= 0) ck_rigid_place(R[k], S->mo[k]->scale, t[k], q->l, a->x[j]);
        else if (tau <= 0) memcpy(a->x[j], q->x0, sizeof a->x[j]);
        else if (tau >= 1) memcpy(a->x[j], q->x1, sizeof a->x[j]);
        else
            for (int d = 0; d < 3; ++d) a->x[j][d] = (1 - tau) * q->x0[d] + tau * q->x1[d];
    }
    return (const double(*)[3])a->x;
}

/* The factor of motion m's deviations over a sub-step of length h: for an
 * Euler motion dev <= factor |scale l|, for a screw dev <= factor |chord|. */
static double dev_factor(const ck_rigid *m, double h)
{
    const double f = m->kind == CK_RIGID_EULER ? euler_factor(m, h) : 0.5 * tan(0.25 * dmin(h * m->theta, PI));
    return f * (1 + 1e-9);
}

/* The deviation of point j's path from its chord xa -> xb over a sub-step of length h
 * (f: its motion's dev_factor). */
static double deviation(const search *S, int j, double h, double f, const double xa[3], const double xb[3])
{
    const int k = S->mo_of[j];
    if (k < 0) return S->lin_delta[j];
    const ck_rigid *m = S->mo[k];
    if (m->kind == CK_RIGID_EULER) return f * S->wn[j] + m->delta;
    const double ch[3] = {xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]};
    return (norm3(ch) + h * m->e * S->wn[j] + 2 * m->delta) * f + m->delta;
}

/* Tests sub-step [ta, ta + h] with the deviations added: 1 (and *toi_sub) on a
 * hit.  *leaf: whether the sub-step is a leaf, decided before the kernel runs
 * (may_leaf 0: it turns too far to be one; else when it is no longer than
 * the tolerance, or its deviations are within tolerance of the primitives'
 * relative motion over it, or it is as short as it gets). */
static int test_sub(search *S, int kind, double ta, double h, const ck_ccd_opts *o, int may_leaf, int last,
                    int *leaf, double *toi_sub, ck_ccd_counts *c)
{
    double x0[4][3], x1[4][3], dev[4], f[2] = {0, 0};
    memcpy(x0, positions(S, ta), sizeof x0);
    memcpy(x1, positions(S, ta + h), sizeof x1);
    for (int k = 0; k < S->nmo; ++k) f[k] = dev_factor(S->mo[k], h);
    for (int j = 0; j < 4; ++j) dev[j] = deviation(S, j, h, S->mo_of[j] >= 0 ? f[S->mo_of[j]] : 0, x0[j], x1[j]);
    const int split = kind == CK_CCD_VF ? 1 : 2;
    const double da = kind == CK_CCD_VF ? dev[0] : dmax(dev[0], dev[1]);
    const double db = kind == CK_CCD_VF ? dmax(dev[1], dmax(dev[2], dev[3])) : dmax(dev[2], dev[3]);
    double rel = 0; /* the largest relative displacement of a point of a and one of b */
    for (int i = 0; may_leaf && i < split; ++i)
        for (int j = split; j < 4; ++j) {
            double r[3];
            for (int d = 0; d < 3; ++d) r[d] = (x1[i][d] - x0[i][d]) - (x1[j][d] - x0[j][d]);
            rel = dmax(rel, norm3(r));
        }
    *leaf = last || (may_leaf && (h <= o->tolerance || (da + db) * h <= 0.5 * o->tolerance * rel));
    ck_ccd_opts so = *o;
    so.min_sep = (o->min_sep + da + db) * (1 + 4 * DBL_EPSILON);
    /* at a leaf: the step's tolerance in time (tolerance / h, at most 1), but a spatial slack
     * (ccd.h: tolerance x extent / 8) of at most 64 D, and never finer than the caller's */
    so.tolerance = CK_CCD_SUB_TOL;
    if (*leaf) {
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, ext = 0;
        for (int j = 0; j < 4; ++j)
            for (int d = 0; d < 3; ++d)
                lo[d] = dmin(lo[d], dmin(x0[j][d], x1[j][d])), hi[d] = dmax(hi[d], dmax(x0[j][d], x1[j][d]));
        for (int d = 0; d < 3; ++d) ext = dmax(ext, hi[d] - lo[d]);
        const double fit = ext > 0 ? 8 * (da + db) / ext : 0;
        so.tolerance = dmax(o->tolerance, dmin(64 * fit, dmin(o->tolerance / h, 1.0)));
    }
    return ck_ccd(kind, (const double(*)[3])x0, (const double(*)[3])x1, &so, toi_sub, c);
}

enum { MAX_LEVEL = 30 };

int ck_ccd_rigid(int kind, const ck_ccd_point p[4], const ck_ccd_opts *o, double *toi, ck_ccd_counts *c)
{
    const ck_ccd_opts def = ck_ccd_defaults();
    if (!o) o = &def;
    search S = {.p = p, .cache = {{.tau = -1}, {.tau = -1}}};
    double turn = 0;
    for (int j = 0; j < 4; ++j) {
        const ck_rigid *m = p[j].m;
        S.mo_of[j] = -1;
        if (m) {
            int k = 0;
            while (k < S.nmo && S.mo[k] != m) ++k;
            if (k == S.nmo) S.mo[S.nmo++] = m;
            S.mo_of[j] = k;
            S.wn[j] = m->scale * norm3(p[j].l);
            turn = dmax(turn, m->turn);
        } else {
            double mx = 0;
            for (int d = 0; d < 3; ++d) mx = dmax(mx, dmax(fabs(p[j].x0[d]), fabs(p[j].x1[d])));
            S.lin_delta[j] = 0x1p-40 * mx;
        }
    }
    int fine = 0, start = 0; /* sub-steps from level `fine` on turn little enough to be leaves */
    while (fine < MAX_LEVEL && turn * pow2m(fine) > CK_CCD_SUB_ANGLE) ++fine;
    while (start < fine && turn * pow2m(start) > CK_CCD_SUB_START) ++start;
    ck_ccd_counts k = {0};
    int hit = 0;
    double found = 1.0;
    /* depth-first, earliest first: a stack of (level, index) */
    struct {
        int level;
        int64_t i;
    } stack[(1 << CK_CCD_SUB_SPLIT) * MAX_LEVEL + 2];
    const int64_t nstart = (int64_t)1 << start;
    for (int64_t i0 = 0; i0 < nstart && !hit; ++i0) {
        int top = 0;
        stack[top].level = start, stack[top++].i = i0;
        while (top && !hit) {
            const int level = stack[top - 1].level;
            const int64_t i = stack[--top].i;
            const double h = pow2m(level), ta = (double)i * h;
            double ts;
            int leaf;
            if (!test_sub(&S, kind, ta, h, o, level >= fine, level == MAX_LEVEL, &leaf, &ts, &k)) continue;
            const double at = ta + h * ts; /* no contact before it in this sub-step */
            if (leaf) {
                found = dmax(ta, nextafter(at, 0.0));
                hit = 1;
                break;
            }
            /* its parts, the earliest on top, without those that end before the hit */
            const int down = level + CK_CCD_SUB_SPLIT <= MAX_LEVEL ? CK_CCD_SUB_SPLIT : MAX_LEVEL - level;
            const int64_t parts = (int64_t)1 << down;
            for (int64_t q = parts - 1; q >= 0; --q) {
                if (ta + (double)(q + 1) * pow2m(level + down) < at) break;
                stack[top].level = level + down, stack[top++].i = i * parts + q;
            }
        }
    }
    *toi = hit ? found : 1.0;
    if (c) {
        c->tests++;
        c->hits += hit;
        if (k.exact_calls) c->exact_calls++;
        else c->filter_no += !hit;
    }
    return hit;
}
