/*
 * hull_gjk8.c — the boolean GJK eight pairs at a time, in float lanes, its
 * answers certified before they count: S5's swept hull test without a
 * branch a lane.
 *
 * S5 asks of each candidate whether conv(P) and conv(Q) meet, P and Q the
 * six positions of two moving faces.  The float filter (hull_filter8.c) settles
 * most pairs that are apart; most of the rest meet, and the boolean GJK of
 * hull_bool.c shows it by closing a tetrahedron of support differences
 * around the origin.  Run one pair at a time, that GJK spends its time
 * waiting more than working: each step's case (segment, triangle,
 * tetrahedron, which Voronoi region) is a branch the CPU guesses wrong
 * about half of the time, and each step waits on the last.  On the large
 * cluttered scenes it was a large part of the run's time.
 *
 * Here eight pairs run the same GJK side by side, one per lane of float
 * vectors: each step computes the cases its lanes are in (support, the
 * segment's, the triangle's, the tetrahedron's updates) and each lane keeps
 * its own by selects, not branches.  The lanes stop as they finish; the
 * loop ends when all have, or after G8_MAXIT steps.  The first point is the
 * support pair along the centroids' difference.  Floats only steer; an
 * answer counts when it is certified (g8_certify):
 *
 *   meet   the origin inside the float tetrahedron by every barycentric
 *          determinant above 2^-10 M^3 (M the largest |coordinate| of the
 *          lane's points, translated by p's point 0 in float).  Each
 *          translated coordinate is within u M of the exact one (u =
 *          2^-24), each support difference within 4u M of the exact p - q,
 *          of size at most 2M; b_inside's four determinants (hull_bool.c)
 *          on those are computed within some 1,000 u M^3 of their value on
 *          the computed points, which are within some 1,500 u M^3 of their
 *          value on the exact ones: under 2^-12 M^3, a quarter of the
 *          threshold.  So the exact tetrahedron holds the origin, its
 *          points lie in conv(P) - conv(Q), the hulls share a point, and
 *          ck_hulls_meet's answer is 1 whatever the tolerance.  A
 *          tetrahedron short of the threshold is G8_TETRA: hull_bool.c
 *          checks it in double (ck_hulls_gjk_check_rows), where the margin
 *          is 2^-36 M^3;
 *   apart  the gap along the last direction d above 2^-16 |d|_1 M + tol
 *          |d|_2 (1 + 2^-18): hull_filter8.c's certificate (its float dot
 *          products err by some 10 u |d|_1 M here), so the hulls are more
 *          than tol apart along d / |d|_2, and ck_hulls_meet's answer is 0.
 *
 * Input.  S5's lanes are made from the store's doubles (the truth the
 * exact tests take) by ck_rows8o: each face's float offsets from its
 * origin, the q face's shifted by the two origins' difference in double,
 * rounded once; p's point 0 is then within u M of 0, and each lane
 * coordinate within 3.01 u M of the exact translated value (kernels.h), so
 * after the float translation above each coordinate is within 5 u M of the
 * exact one, not u M.  The meet bound's coordinate part grows with it, from
 * some 1,500 u M^3 to some 7,500, plus the 1,000 of the arithmetic: 8,500
 * u M^3, about 2^-10.9 M^3, still under the 2^-10 M^3 threshold; the
 * apart certificate is hull_filter8.c's, derived for these lanes; the ball walk's
 * 10 u M becomes 14 u M, under its 2^-7 M^3 threshold with as much room.
 * The tetrahedra left to the double check are recomputed there from the
 * store's doubles, the floats only having picked their support points.
 * So a certified answer is the answer on the host's doubles, whatever
 * their magnitude: far from the origin the lanes hold the faces' offsets.
 *
 * Anything else is G8_ASK.  With a tolerance (faces that turn), a pair
 * apart by less than tol ends apart along d but fails the certificate: the
 * caller carries its walk on with ball = 1 (ck_hulls_gjk_f32x8_carry, from
 * its simplex: points of D, offsets 0), walking D + B(tol) as hull_bool.c
 * does (support points w + tol d / |d|, each point's offset kept for the
 * check in double); there the float tetrahedron's points are within some
 * 10 u M of exact points of D + B(tol) (tol <= M), of size up to 3M, so its
 * meet needs 2^-7 M^3.  What is still undecided goes to the one-pair path
 * (ck_hulls_meet_rows): every answer is the one ck_hulls_meet gives.
 *
 * Layout as in hull_filter8.c: SoA across the lanes, p[k][c][lane]; the lanes are
 * GCC's (and Clang's) generic vectors, so the same source compiles to
 * AVX-512 on eight lanes (VL: 32 registers, so fewer spills, and mask
 * registers for the selects: S5 faster than with AVX2) or AVX2 where the CPU has them, and to SSE elsewhere, without
 * fused multiply-adds (the paths round alike and so steer alike).  tests/unit/test_kernels.c
 * checks every certified answer against ck_hulls_meet on pairs that meet,
 * touch on a grid, or lie apart by 1e-9 to 1 of their size, and the two
 * paths against each other.
 */
#include <stdint.h>

#include "kernels/kernels.h"
#include "kernels/cpu.h"

/* The helpers are inlined into each of gjk_avx512, gjk_avx2 and gjk_plain,
 * which compile the same source for their own targets, at every
 * optimisation level.  A 32-byte vector passed to or returned from a
 * function has one ABI with AVX (a register) and another without (memory):
 * an out-of-line helper compiled for the file's default target and called
 * from an AVX function reads garbage, which is what -O0 (inlining nothing)
 * did.  So no helper takes or returns a vector by value: those are macros
 * (each argument a side-effect-free expression), the rest take g3 structs
 * (always in memory) or pointers and are always_inline. */
#define G_INLINE static inline __attribute__((always_inline))

/* Eight lanes as GCC's (and Clang's) generic vectors: AVX2 registers in
 * gjk_avx2, pairs of SSE registers (or scalars) elsewhere.  A comparison
 * gives -1 or 0 a lane; g_sel picks by such a mask. */
typedef float vf __attribute__((vector_size(32)));
typedef int32_t vi __attribute__((vector_size(32)));
typedef struct {
    vf x, y, z;
} g3;

#define g_self(m, a, b) ((vf)(((vi)(a) & (m)) | ((vi)(b) & ~(m))))
#define g_seli(m, a, b) (((a) & (m)) | ((b) & ~(m)))
#define g_sel(m, a, b) ((g3){g_self(m, (a).x, (b).x), g_self(m, (a).y, (b).y), g_self(m, (a).z, (b).z)})
#define g_sub(a, b) ((g3){(a).x - (b).x, (a).y - (b).y, (a).z - (b).z})
#define g_neg(a) ((g3){-(a).x, -(a).y, -(a).z})
#define g_dot(a, b) ((a).x * (b).x + (a).y * (b).y + (a).z * (b).z)
#define g_cross(a, b) \
    ((g3){(a).y * (b).z - (a).z * (b).y, (a).z * (b).x - (a).x * (b).z, (a).x * (b).y - (a).y * (b).x})
/* (a x b) x a: perpendicular to a, toward b's side */
#define g_perp(a, b) g_cross(g_cross(a, b), a)
#define g_abs(a) ((vf)((vi)(a) & ((vi){0} + 0x7fffffff)))
#define g_max(a, b) g_self((a) > (b), a, b)
#define g_maxi(a, b) g_seli((a) > (b), a, b)
/* The lanes' square roots (x >= 0, or NaN): one vector instruction where
 * the target has it (-fno-math-errno), whatever the lanes hold. */
#define g_sqrt(x)                                                 \
    __extension__({                                               \
        const vf g_x_ = (x);                                      \
        vf g_r_;                                                  \
        for (int g_l_ = 0; g_l_ < 8; ++g_l_) g_r_[g_l_] = __builtin_sqrtf(g_x_[g_l_]); \
        g_r_;                                                     \
    })
#define g_ld(a)                                  \
    __extension__({                              \
        vf g_v_;                                 \
        __builtin_memcpy(&g_v_, (a), sizeof g_v_); \
        g_v_;                                    \
    })
G_INLINE g3 g_ld3(const float a[3][8]) { return (g3){g_ld(a[0]), g_ld(a[1]), g_ld(a[2])}; }

/* The lanes' state: simplex points s (their support pairs ix = 8 ip + iq),
 * its size n, the direction d, the status st (0 while it runs), the bound
 * M of the translated coordinates. */
typedef struct {
    g3 s[4], d;
    vi ix[4], n, st;
    vf M, gap; /* gap: min_q d.q - max_p d.p of a lane that ended apart */
    vi fin;    /* every coordinate finite */
    vf kb;     /* the ball's radius where the lane walks D + B(tol) (tol, 0 < tol <= M), else 0 */
    g3 o[4];   /* walking D + B(tol): each simplex point's offset from its support pair, tol d / |d| */
} g8state;

/* The support pair along d: P's highest point pw (index ip), Q's lowest
 * qw (iq); *gap the gap min_q d.q - max_p d.p. */
G_INLINE void g8_support(const g3 *dp, const g3 P[6], const g3 Q[6], g3 *pw, g3 *qw, vi *ip, vi *iq, vf *gap)
{
    const g3 d = *dp;
    const vi zero = {0};
    *pw = P[0], *qw = Q[0], *ip = *iq = zero;
    vf pm = g_dot(d, P[0]), qm = g_dot(d, Q[0]);
    for (int i = 1; i < 6; ++i) {
        const vf tp = g_dot(d, P[i]), tq = g_dot(d, Q[i]);
        const vi cp = tp > pm, cq = tq < qm;
        pm = g_self(cp, tp, pm), *ip = g_seli(cp, zero + i, *ip), *pw = g_sel(cp, P[i], *pw);
        qm = g_self(cq, tq, qm), *iq = g_seli(cq, zero + i, *iq), *qw = g_sel(cq, Q[i], *qw);
    }
    *gap = qm - pm;
}

/* Eight lanes of int8 to and from int32 lanes (one instruction or a few). */
typedef int8_t vc __attribute__((vector_size(8)));
#define g_st8(dst, v)                                     \
    __extension__({                                       \
        const vc g_c_ = __builtin_convertvector((v), vc); \
        __builtin_memcpy((dst), &g_c_, sizeof g_c_);      \
    })
#define g_ld8(src)                                    \
    __extension__({                                   \
        vc g_c_;                                      \
        __builtin_memcpy(&g_c_, (src), sizeof g_c_);  \
        __builtin_convertvector(g_c_, vi);            \
    })
G_INLINE void g_st3(float dst[3][8], const g3 *a)
{
    __builtin_memcpy(dst[0], &a->x, sizeof a->x);
    __builtin_memcpy(dst[1], &a->y, sizeof a->y);
    __builtin_memcpy(dst[2], &a->z, sizeof a->z);
}

/* Whether some lane of m is set: its two halves ORed, then two words
 * (a loop over the eight lanes compiles to eight extractions and seven
 * ORs, and this runs four times a GJK step). */
typedef int32_t vi4 __attribute__((vector_size(16)));
G_INLINE int g_any_at(const vi *m)
{
    vi4 lo, hi;
    __builtin_memcpy(&lo, m, sizeof lo);
    __builtin_memcpy(&hi, (const char *)m + sizeof lo, sizeof hi);
    const vi4 o = lo | hi;
    uint64_t w[2];
    __builtin_memcpy(w, &o, sizeof w);
    return (w[0] | w[1]) != 0;
}
#define g_any(m)                   \
    __extension__({                \
        const vi g_m_ = (m);       \
        g_any_at(&g_m_);           \
    })

/* One step of every lane still running (the scalar steps of hull_bool.c's
 * b_step, each case's update kept by the lanes in that case).  A case is
 * computed only when some lane is in it: every lane starts at a point, so
 * the first step is all segments, the second mostly triangles, and from
 * then on few lanes fall back to a point, so the segment case is mostly
 * skipped (a branch on the whole batch, which the CPU predicts well). */
G_INLINE void g8_step(g8state *g, const g3 P[6], const g3 Q[6], int ball)
{
    const vi zero = {0}, one = zero + 1, two = zero + 2, three = zero + 3;
    const vi run = g->st == zero;
    /* d scaled to a largest |component| of 1 (no sqrt, and no overflow as the steps go) */
    const g3 d0 = g->d;
    const vf dm = g_max(g_abs(d0.x), g_max(g_abs(d0.y), g_abs(d0.z)));
    const vi dok = dm > (vf){0};
    const vf rm = g_self(dok, (vf){0} + 1.0f / g_self(dok, dm, (vf){0} + 1.0f), (vf){0});
    const g3 d = {d0.x * rm, d0.y * rm, d0.z * rm};
    g3 pw, qw;
    vi ip, iq;
    vf gap;
    g8_support(&d, P, Q, &pw, &qw, &ip, &iq, &gap);
    g3 w = g_sub(pw, qw), ow = {{0}, {0}, {0}};
    vf gb = gap; /* the gap of the walked set: D's, or D + B(tol)'s, tol |d| less */
    if (ball) { /* the support point of D + B(tol): w + tol d / |d| */
        const vf dd = g_dot(d, d);
        const vf sd = g_sqrt(g_self(dd > (vf){0}, dd, (vf){0} + 1.0f));
        const vf k = g->kb / sd;
        ow = (g3){k * d.x, k * d.y, k * d.z};
        w = (g3){w.x + ow.x, w.y + ow.y, w.z + ow.z};
        gb = gap - g->kb * sd;
    }
    /* no direction (or NaN); apart along d; no progress past the origin (|d| <= sqrt 3 < 2) */
    const vi apart = gb > (vf){0}, prog = -gb > 0x1p-19f * g->M;
    const vi st = g_seli(~dok, zero + G8_ASK, g_seli(apart, zero + G8_APART, g_seli(prog, zero, zero + G8_ASK)));
    const vi go = run & (st == zero);
    g->st = g_seli(run, st, g->st);
    g->gap = g_self(run & apart, gap, g->gap);
    g->d = g_sel(run, d, g->d); /* (a lane done keeps the d its gap was measured along) */
    /* the new point w into slot n: the simplex now has n + 1 points */
    const vi n = g->n;
    const vi m2 = go & (n == one), m3 = go & (n == two), m4 = go & (n == three);
    const vi iw = 8 * ip + iq;
    g->s[1] = g_sel(m2, w, g->s[1]), g->ix[1] = g_seli(m2, iw, g->ix[1]);
    g->s[2] = g_sel(m3, w, g->s[2]), g->ix[2] = g_seli(m3, iw, g->ix[2]);
    g->s[3] = g_sel(m4, w, g->s[3]), g->ix[3] = g_seli(m4, iw, g->ix[3]);
    if (ball) g->o[1] = g_sel(m2, ow, g->o[1]), g->o[2] = g_sel(m3, ow, g->o[2]), g->o[3] = g_sel(m4, ow, g->o[3]);
    g->n = g_seli(go, n + 1, n);

    /* the triangle to look at (c, b, a: a the newest) */
    g3 tc = g->s[0], tb = g->s[1], ta = g->s[2], oc = g->o[0], ob = g->o[1], oa = g->o[2];
    vi jc = g->ix[0], jb = g->ix[1], ja = g->ix[2], tri = m3;
    if (g_any(m4)) {
        /* tetrahedron s0 s1 s2 s3 (s3 the newest, s0 s1 s2 wound toward it):
         * the first of its faces through s3 with the origin beyond, else inside */
        const g3 s0 = g->s[0], s1 = g->s[1], s2 = g->s[2], s3 = g->s[3];
        const g3 e0 = g_sub(s0, s3), e1 = g_sub(s1, s3), e2 = g_sub(s2, s3);
        /* (x . -s3 > 0 written as x . s3 < 0) */
        const vi f0 = g_dot(g_cross(e1, e0), s3) < (vf){0}, f1 = g_dot(g_cross(e2, e1), s3) < (vf){0},
                 f2 = g_dot(g_cross(e0, e2), s3) < (vf){0};
        const vi out = m4 & (f0 | f1 | f2);
        g->st = g_seli(m4 & ~out, zero + G8_MEET, g->st);
        /* the face as a triangle (c, b, a): f0 (s0, s1, s3), f1 (s1, s2, s3), f2 (s2, s0, s3) */
        const vi h1 = out & ~f0 & f1, h2 = out & ~f0 & ~f1;
        tc = g_sel(h1, s1, g_sel(h2, s2, tc)), tb = g_sel(h1, s2, g_sel(h2, s0, tb)), ta = g_sel(out, s3, ta);
        jc = g_seli(h1, g->ix[1], g_seli(h2, g->ix[2], jc)), jb = g_seli(h1, g->ix[2], g_seli(h2, g->ix[0], jb));
        ja = g_seli(out, g->ix[3], ja);
        if (ball) {
            oc = g_sel(h1, g->o[1], g_sel(h2, g->o[2], oc)), ob = g_sel(h1, g->o[2], g_sel(h2, g->o[0], ob));
            oa = g_sel(out, g->o[3], oa);
        }
        tri |= out;
    }
    if (g_any(tri)) {
        /* the triangle c b a (b_triangle): an edge, the point a, or the face, from above or below */
        const g3 ab = g_sub(tb, ta), ac = g_sub(tc, ta), abc = g_cross(ab, ac);
        const vi t1 = g_dot(g_cross(abc, ac), ta) < (vf){0}, tac = g_dot(ac, ta) < (vf){0};
        const vi t2 = g_dot(g_cross(ab, abc), ta) < (vf){0}, tab = g_dot(ab, ta) < (vf){0};
        const vi above = g_dot(abc, ta) < (vf){0};
        const vi toab = g_seli(t1, ~tac, t2); /* b_triangle's goto edge_ab */
        const vi eac = t1 & tac, eab = toab & tab, pa = toab & ~tab, face = ~t1 & ~t2;
        const vi fa = face & above, fb = face & ~above;
        const g3 ao = g_neg(ta);
        const g3 r0 = g_sel(eac | fa, tc, g_sel(eab | fb, tb, ta)), r1 = g_sel(fa, tb, g_sel(fb, tc, ta));
        /* (one perpendicular, to the edge the lane left by: the same values) */
        const g3 pe = g_perp(g_sel(eac, ac, ab), ao);
        const g3 rd = g_sel(fa, abc, g_sel(fb, g_neg(abc), g_sel(eac | eab, pe, ao)));
        const vi k0 = g_seli(eac | fa, jc, g_seli(eab | fb, jb, ja)), k1 = g_seli(fa, jb, g_seli(fb, jc, ja));
        g->s[0] = g_sel(tri, r0, g->s[0]), g->s[1] = g_sel(tri, r1, g->s[1]), g->s[2] = g_sel(tri, ta, g->s[2]);
        g->ix[0] = g_seli(tri, k0, g->ix[0]), g->ix[1] = g_seli(tri, k1, g->ix[1]);
        g->ix[2] = g_seli(tri, ja, g->ix[2]);
        g->n = g_seli(tri, g_seli(face, three, g_seli(pa, one, two)), g->n);
        if (ball) {
            g->o[0] = g_sel(tri, g_sel(eac | fa, oc, g_sel(eab | fb, ob, oa)), g->o[0]);
            g->o[1] = g_sel(tri, g_sel(fa, ob, g_sel(fb, oc, oa)), g->o[1]), g->o[2] = g_sel(tri, oa, g->o[2]);
        }
        g->d = g_sel(tri, rd, g->d);
    }
    if (g_any(m2)) {
        /* the segment s0 s1 (s1 the newest) */
        const g3 s0 = g->s[0], s1 = g->s[1], so = g_neg(s1), sb = g_sub(s0, s1);
        const vi sk = g_dot(sb, so) > (vf){0}, pt = m2 & ~sk;
        g->s[0] = g_sel(pt, s1, s0), g->ix[0] = g_seli(pt, g->ix[1], g->ix[0]);
        if (ball) g->o[0] = g_sel(pt, g->o[1], g->o[0]);
        g->n = g_seli(pt, one, g->n);
        g->d = g_sel(m2, g_sel(sk, g_perp(sb, so), so), g->d);
    }
}

#define g_det(a, b, c)                     \
    __extension__({                        \
        const g3 g_bc_ = g_cross((b), (c)); \
        g_dot((a), g_bc_);                 \
    })

/* The lanes' ends certified in float, where the margins allow (the top):
 * a tetrahedron holding the origin by every barycentric determinant above
 * 2^-10 M^3, 2^-7 M^3 walking the ball (G8_MEET), a gap above
 * 2^-16 |d|_1 M + tol |d|_2 (1 + 2^-18) (G8_APART); a tetrahedron short of
 * that: G8_TETRA (for the test in double), else G8_ASK.  M outside
 * [2^-30, 2^30] (M^3 under- or overflows) or a coordinate not finite:
 * nothing is certified. */
G_INLINE void g8_certify(g8state *g, const float tol[8], int ball)
{
    const vi zero = {0};
    const vf M = g->M, T = (ball ? 0x1p-7f : 0x1p-10f) * M * M * M, tl = g_ld(tol);
    const vi mok = g->fin & (M >= (vf){0} + 0x1p-30f) & (M <= (vf){0} + 0x1p30f);
    /* b_inside's four determinants, on the float simplex */
    const g3 s0 = g->s[0], na = g_neg(s0), e1 = g_sub(g->s[1], s0), e2 = g_sub(g->s[2], s0), e3 = g_sub(g->s[3], s0);
    const vf D0 = g_det(g->s[1], g->s[2], g->s[3]), D1 = g_det(na, e2, e3), D2 = g_det(e1, na, e3),
             D3 = g_det(e1, e2, na);
    const vi pos = (D0 > T) & (D1 > T) & (D2 > T) & (D3 > T), neg = (D0 < -T) & (D1 < -T) & (D2 < -T) & (D3 < -T);
    const vi meet = (g->st == zero + G8_MEET) & mok & (pos | neg);
    /* the gap along d */
    const g3 d = g->d;
    const vf l1 = g_abs(d.x) + g_abs(d.y) + g_abs(d.z), dd = g_dot(d, d);
    const vf l2 = g_sqrt(g_self(dd > (vf){0}, dd, (vf){0}));
    const vf need = 0x1p-16f * M * l1 + tl * l2 * (1.0f + 0x1p-18f) + 0x1p-126f;
    const vi apart = (g->st == zero + G8_APART) & mok & (g->gap > need) & (tl >= (vf){0});
    g->st = g_seli(meet, zero + G8_MEET, g_seli(apart, zero + G8_APART,
                                               g_seli(g->st == zero + G8_MEET, zero + G8_TETRA, zero + G8_ASK)));
}

G_INLINE void g8_run(const float (*p)[3][8], const float (*q)[3][8],
                                                        const float tol[8], int ball, const ck_g8carry *in,
                                                        int maxit, int more, ck_gjk8 *out, ck_g8carry *keep)
{
    g3 P[6], Q[6];
    const g3 o = g_ld3(p[0]);
    g8state g;
    /* M and "every coordinate finite" from one maximum: the largest bit
     * pattern of the coordinates' absolute values, as integers.  For
     * floats >= 0 the integer order is the float order, so that maximum
     * is M's bits where every coordinate is finite, and at least
     * 0x7f800000 (infinity's) where one is not (an infinity or a NaN). */
    const vi am = (vi){0} + 0x7fffffff;
    vi mb = {0};
    for (int k = 0; k < 6; ++k) {
        P[k] = g_sub(g_ld3(p[k]), o), Q[k] = g_sub(g_ld3(q[k]), o);
        mb = g_maxi(mb, g_maxi(g_maxi((vi)P[k].x & am, (vi)P[k].y & am), (vi)P[k].z & am));
        mb = g_maxi(mb, g_maxi(g_maxi((vi)Q[k].x & am, (vi)Q[k].y & am), (vi)Q[k].z & am));
    }
    g.fin = mb < (vi){0} + 0x7f800000;
    g.M = (vf)mb;
    const vi zero = {0};
    g.st = zero, g.gap = (vf){0};
    if (ball) {
        const vf tl = g_ld(tol);
        g.kb = g_self((tl > (vf){0}) & (tl <= g.M), tl, (vf){0});
        g.o[0] = g.o[1] = g.o[2] = g.o[3] = (g3){{0}, {0}, {0}}; /* (carried points: points of D) */
    }
    if (in) { /* the walk carried on: its simplex, its direction */
        for (int k = 0; k < 4; ++k) g.s[k] = g_ld3(in->s[k]);
        g.d = g_ld3(in->d), g.n = g_ld8(in->n);
        for (int k = 0; k < 4; ++k) g.ix[k] = g_ld8(in->ix[k]);
    } else { /* the first point: the support pair along the centroids' difference (GJK's usual start) */
        g.n = zero + 1;
        g.s[1] = g.s[2] = g.s[3] = (g3){{0}, {0}, {0}};
        g.ix[1] = g.ix[2] = g.ix[3] = zero;
        g3 c = {{0}, {0}, {0}}, pw, qw;
        vi ip, iq;
        for (int k = 0; k < 6; ++k) c = g_sub(c, g_sub(P[k], Q[k]));
        vf gap0; /* (unused: the first point's gap) */
        g8_support(&c, P, Q, &pw, &qw, &ip, &iq, &gap0);
        g.s[0] = g_sub(pw, qw), g.d = g_neg(g.s[0]), g.ix[0] = 8 * ip + iq;
    }
    for (int it = 0; it < maxit && g_any(g.st == zero); ++it) g8_step(&g, P, Q, ball);
    const vi going = g.st == zero;
    if (keep) {
        for (int k = 0; k < 4; ++k) g_st3(keep->s[k], &g.s[k]), g_st8(keep->ix[k], g.ix[k]);
        g_st3(keep->d, &g.d), g_st8(keep->n, g.n);
    }
    g8_certify(&g, tol, ball);
    if (more) g.st = g_seli(going, zero + G8_MORE, g.st);
    out->ball = (int8_t)ball;
    g_st8(out->st, g.st);
    for (int k = 0; k < 4; ++k) {
        g_st8(out->ix[k], g.ix[k]);
        if (ball) g_st3(out->o[k], &g.o[k]);
    }
}

/* Each path compiled twice, walking the hulls and the grown hulls (ball a
 * constant inside g8_run). */
#define G8_ARGS                                                                                                 \
    const float p[6][3][8], const float q[6][3][8], const float tol[8], int ball, const ck_g8carry *in, int maxit, \
        int more, ck_gjk8 *out, ck_g8carry *keep
#define G8_RUN(b) g8_run(p, q, tol, b, in, maxit, more, out, keep)
static CK_TARGET_AVX2 void gjk_avx2(G8_ARGS)
{
    if (ball) G8_RUN(1);
    else G8_RUN(0);
}

static CK_TARGET_AVX512VL void gjk_avx512(G8_ARGS)
{
    if (ball) G8_RUN(1);
    else G8_RUN(0);
}

static void gjk_plain(G8_ARGS)
{
    if (ball) G8_RUN(1);
    else G8_RUN(0);
}

static void gjk_isa(int isa, G8_ARGS)
{
    if (isa >= 2 && ck_have_avx512vl()) gjk_avx512(p, q, tol, ball, in, maxit, more, out, keep);
    else if (isa >= 1 && ck_have_avx2()) gjk_avx2(p, q, tol, ball, in, maxit, more, out, keep);
    else gjk_plain(p, q, tol, ball, in, maxit, more, out, keep);
}

void ck_hulls_gjk_f32x8_plain(const float p[6][3][8], const float q[6][3][8], const float tol[8], int ball,
                              ck_gjk8 *out)
{
    gjk_plain(p, q, tol, ball, NULL, G8_MAXIT, 0, out, NULL);
}

void ck_hulls_gjk_f32x8_isa(int isa, const float p[6][3][8], const float q[6][3][8], const float tol[8], int ball,
                            ck_gjk8 *out)
{
    gjk_isa(isa, p, q, tol, ball, NULL, G8_MAXIT, 0, out, NULL);
}

void ck_hulls_gjk_f32x8(const float p[6][3][8], const float q[6][3][8], const float tol[8], int ball, ck_gjk8 *out)
{
    gjk_isa(2, p, q, tol, ball, NULL, G8_MAXIT, 0, out, NULL);
}

void ck_hulls_gjk_f32x8_carry(G8_ARGS) { gjk_isa(2, p, q, tol, ball, in, maxit, more, out, keep); }
