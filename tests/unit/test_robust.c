/*
 * test_robust.c — the geometry kernels on near-degenerate inputs, against
 * exact answers.
 *
 *   test_robust [N]     N = configurations per family (default 20000, or 2000
 *                       when built with ASan or TSan).
 *
 * How the exact answer is known.  Every configuration is first built on a
 * small integer grid (|coordinate| <= 64), where an exact oracle decides it in
 * int64 (below), then shown to the kernels through a transform
 *     x -> s * x + o,   s a power of two, o a vector of integers (or of
 * multiples of s),
 * chosen so that every transformed coordinate is exactly representable in
 * double (the test verifies it: (x' - o) / s must give x back).  Scaling by a
 * positive factor and translating do not change whether two convex sets meet,
 * so the grid answer is the exact answer of what the kernels see.  The
 * transforms put coordinates at the scales the issue names:
 *     grid         s = 1,      o = 0
 *     tiny         s = 2^-23 (~1.2e-7) and 2^-26 (~1.5e-8), o = 0
 *     far          s = 2^-3,   o ~ (1e6, -1e6, 2^20)   (float32-exact)
 *     far-int      s = 1,      o ~ (1e6, -1e6, 2^20) + grid
 *     far-fine     s = 2^-20,  o ~ 1e6  (double-exact only: 40-bit mantissas)
 *
 * Families (each a near-degenerate situation a mesh really produces):
 *     random       general position on the grid (many exact touchings anyway)
 *     coplanar     both triangles in one lattice plane (tilted or not), or in
 *                  two parallel planes one lattice step apart
 *     touching     a vertex of B on a vertex, an edge midpoint or the
 *                  centroid of A; an edge of B through an edge midpoint of A
 *     sliver       triangles of length up to 64 and height 1 (or 0: collinear)
 *                  crossing each other or another triangle's edge
 * Swept (hull) families: each triangle's two states with a motion that is
 * zero, in the triangle's plane, one lattice step, or a deformation; the
 * end states touching.
 *
 * What is required (the documented tolerances):
 *   ck_tritri       exact everywhere: 0 wrong (it promises exact predicates).
 *   ck_tritri_ref   plain double: may be wrong only where the exact
 *                   configuration is touching (meets, and some candidate axis
 *                   has gap exactly 0), and only on the far/tiny transforms.
 *   ck_tribox       never a false negative anywhere (S3 must not drop a face);
 *                   exact on the grid and tiny transforms.
 *   ck_hulls_meet, ck_hulls_meet_ref (swept test, tol 0)
 *                   never a false negative; a false positive only where the
 *                   exact gap along the best candidate axis is below
 *                   1e-9 * (|o| + extent) (rounding of the projections).
 *
 * The oracle.  conv(A) and conv(B) meet iff 0 is in D = conv{a - b}.  It
 * finds the affine dimension of D exactly, then tests the complete candidate
 * axis set for that dimension: dim 3: normals of point triples of A and of B
 * and cross products of point-pair differences of A with those of B (a
 * superset of D's facet normals); dim 2 with normal n: n and n x e for every
 * pair difference e of A and B; dim 1 along u: u and u x (w x u), w in D;
 * dim 0: the point itself.  The sets meet iff no axis separates strictly.
 * This shares no code with kernels/.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/kernels.h"
#include "rng.h"

typedef int64_t i64;

/* ---- exact oracle ------------------------------------------------------- */

static void vsub(i64 r[3], const i64 a[3], const i64 b[3])
{
    r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}
static void vcross(i64 r[3], const i64 a[3], const i64 b[3])
{
    i64 x = a[1] * b[2] - a[2] * b[1], y = a[2] * b[0] - a[0] * b[2], z = a[0] * b[1] - a[1] * b[0];
    r[0] = x, r[1] = y, r[2] = z;
}
static i64 vdot(const i64 a[3], const i64 b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static int vzero(const i64 a[3]) { return !a[0] && !a[1] && !a[2]; }

typedef struct axis_result {
    int separated;  /* some axis separates strictly */
    int touching;   /* some axis has gap exactly 0 (weak separation) */
    double best;    /* largest gap / |axis| over the axes (<= Euclidean distance) */
} axis_result;

static void try_axis(const i64 v[3], const i64 (*A)[3], int na, const i64 (*B)[3], int nb, axis_result *r)
{
    if (vzero(v)) return;
    i64 amin = vdot(v, A[0]), amax = amin, bmin = vdot(v, B[0]), bmax = bmin;
    for (int i = 1; i < na; ++i) {
        i64 d = vdot(v, A[i]);
        if (d < amin) amin = d;
        if (d > amax) amax = d;
    }
    for (int i = 1; i < nb; ++i) {
        i64 d = vdot(v, B[i]);
        if (d < bmin) bmin = d;
        if (d > bmax) bmax = d;
    }
    i64 gap = bmin - amax > amin - bmax ? bmin - amax : amin - bmax;
    if (gap > 0) r->separated = 1;
    if (gap == 0) r->touching = 1;
    double g = (double)gap / sqrt((double)vdot(v, v));
    if (g > r->best) r->best = g;
}

/* Decides whether conv(A) and conv(B) meet; na, nb <= 8. */
static axis_result oracle(const i64 (*A)[3], int na, const i64 (*B)[3], int nb)
{
    axis_result r = {0, 0, -INFINITY};
    i64 D[64][3];
    int nd = 0;
    for (int i = 0; i < na; ++i)
        for (int j = 0; j < nb; ++j) vsub(D[nd++], A[i], B[j]);
    /* affine dimension of D */
    int dim = 0, i1 = -1, i2 = -1;
    i64 u[3] = {0, 0, 0}, n[3] = {0, 0, 0};
    for (int i = 1; i < nd && i1 < 0; ++i) {
        vsub(u, D[i], D[0]);
        if (!vzero(u)) i1 = i, dim = 1;
    }
    for (int i = 1; i1 >= 0 && i < nd && i2 < 0; ++i) {
        i64 e[3];
        vsub(e, D[i], D[0]);
        vcross(n, u, e);
        if (!vzero(n)) i2 = i, dim = 2;
    }
    for (int i = 1; i2 >= 0 && i < nd; ++i) {
        i64 e[3];
        vsub(e, D[i], D[0]);
        if (vdot(n, e) != 0) { dim = 3; break; }
    }
    if (dim == 0) {
        try_axis(D[0], A, na, B, nb, &r);
        if (vzero(D[0])) r.touching = 1;
        return r;
    }
    if (dim == 1) {
        i64 w[3], p[3];
        try_axis(u, A, na, B, nb, &r);
        vcross(w, D[0], u);
        vcross(p, u, w);
        try_axis(p, A, na, B, nb, &r);
        if (vzero(p)) r.touching = 1; /* 0 on the line: any normal is a weak separator */
        return r;
    }
    /* pair differences of A and of B */
    i64 EA[28][3], EB[28][3];
    int nea = 0, neb = 0;
    for (int i = 0; i < na; ++i)
        for (int j = i + 1; j < na; ++j) vsub(EA[nea++], A[j], A[i]);
    for (int i = 0; i < nb; ++i)
        for (int j = i + 1; j < nb; ++j) vsub(EB[neb++], B[j], B[i]);
    if (dim == 2) {
        try_axis(n, A, na, B, nb, &r);
        r.touching |= vdot(n, D[0]) == 0; /* 0 in D's plane: n weakly separates */
        for (int k = 0; k < nea + neb; ++k) {
            i64 v[3];
            vcross(v, n, k < nea ? EA[k] : EB[k - nea]);
            try_axis(v, A, na, B, nb, &r);
        }
        return r;
    }
    for (int i = 0; i < nea; ++i)
        for (int j = i + 1; j < nea; ++j) {
            i64 v[3];
            vcross(v, EA[i], EA[j]);
            try_axis(v, A, na, B, nb, &r);
        }
    for (int i = 0; i < neb; ++i)
        for (int j = i + 1; j < neb; ++j) {
            i64 v[3];
            vcross(v, EB[i], EB[j]);
            try_axis(v, A, na, B, nb, &r);
        }
    for (int i = 0; i < nea; ++i)
        for (int j = 0; j < neb; ++j) {
            i64 v[3];
            vcross(v, EA[i], EB[j]);
            try_axis(v, A, na, B, nb, &r);
        }
    return r;
}

/* ---- transforms --------------------------------------------------------- */

typedef struct xform {
    const char *name;
    double s;     /* power of two */
    double o[3];  /* exactly representable, and o + s*x exact for |x| <= 128 */
    int exact_double_products; /* ref kernels' products exact here */
} xform;

static const xform xforms[] = {
    {"grid", 1.0, {0, 0, 0}, 1},
    {"tiny 2^-23", 0x1p-23, {0, 0, 0}, 1},
    {"tiny 2^-26", 0x1p-26, {0, 0, 0}, 1},
    {"far 1e6 step 2^-3", 0x1p-3, {1e6, -1e6, 1048576.0}, 0},
    {"far-int 1e6", 1.0, {1000003.0, -999999.0, 1048577.0}, 0},
    {"far-fine 1e6 step 2^-20", 0x1p-20, {1e6, -1e6, 1048576.0}, 0},
};
enum { NXF = (int)(sizeof xforms / sizeof xforms[0]) };

static long inexact_coords; /* must stay 0: the transform must be exact */

static void apply(const xform *t, const i64 (*in)[3], int n, double (*out)[3])
{
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) {
            out[i][k] = t->o[k] + t->s * (double)in[i][k];
            if ((out[i][k] - t->o[k]) / t->s != (double)in[i][k]) ++inexact_coords;
        }
}

/* ---- configuration generators (integer grid) ---------------------------- */

static void rand_pt(i64 p[3], int g)
{
    for (int k = 0; k < 3; ++k) p[k] = rng_int(-g, g);
}

/* A lattice plane: origin o and two independent small integer directions. */
static void rand_plane(i64 o[3], i64 u[3], i64 v[3])
{
    i64 n[3];
    do {
        rand_pt(o, 8);
        rand_pt(u, 2);
        rand_pt(v, 2);
        if (rng_int(0, 2) == 0) u[2] = v[2] = 0; /* axis-aligned plane */
        vcross(n, u, v);
    } while (vzero(n));
}
static void plane_pt(i64 p[3], const i64 o[3], const i64 u[3], const i64 v[3], int g)
{
    i64 i = rng_int(-g, g), j = rng_int(-g, g);
    for (int k = 0; k < 3; ++k) p[k] = o[k] + i * u[k] + j * v[k];
}

static const char *const tri_family_names[] = {"random", "coplanar", "touching", "sliver"};
enum { NFAM = 4 };

static void gen_tris(int fam, i64 a[3][3], i64 b[3][3])
{
    switch (fam) {
    case 0:
        for (int i = 0; i < 3; ++i) rand_pt(a[i], 6), rand_pt(b[i], 6);
        break;
    case 1: {
        i64 o[3], u[3], v[3], n[3];
        rand_plane(o, u, v);
        vcross(n, u, v);
        int parallel = rng_int(0, 3) == 0; /* B in the next parallel plane, or one step off */
        for (int i = 0; i < 3; ++i) {
            plane_pt(a[i], o, u, v, 5);
            plane_pt(b[i], o, u, v, 5);
            if (parallel) /* one unit step along an axis the plane is not parallel to */
                for (int k = 0; k < 3; ++k)
                    if (n[k] != 0) { b[i][k] += 1; break; }
        }
        break;
    }
    case 2: {
        /* A with even coordinates, so edge midpoints are integral; centroid
         * integral when coordinates are multiples of 6. */
        int mode = rng_int(0, 3);
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) a[i][k] = 6 * rng_int(-3, 3);
        i64 m[3];
        int e = rng_int(0, 2);
        for (int k = 0; k < 3; ++k) {
            if (mode == 0) m[k] = a[e][k];
            else if (mode == 3) m[k] = (a[0][k] + a[1][k] + a[2][k]) / 3;
            else m[k] = (a[e][k] + a[(e + 1) % 3][k]) / 2;
        }
        for (int i = 0; i < 3; ++i) rand_pt(b[i], 18);
        if (mode == 2) { /* B's edge b0 b1 passes through m */
            i64 w[3];
            rand_pt(w, 9);
            for (int k = 0; k < 3; ++k) b[0][k] = m[k] + w[k], b[1][k] = m[k] - w[k];
        } else {
            memcpy(b[rng_int(0, 2)], m, sizeof m);
        }
        break;
    }
    default: {
        /* slivers: p, p + L u, p + k u + h w, with h in {0, 1} */
        for (int t = 0; t < 2; ++t) {
            i64(*x)[3] = t ? b : a;
            i64 p[3], u[3], w[3];
            rand_pt(p, 8);
            do rand_pt(u, 1); while (vzero(u));
            rand_pt(w, 1);
            int L = rng_int(8, 20), k = rng_int(-2, L + 2), h = rng_int(0, 4) ? 1 : 0;
            for (int c = 0; c < 3; ++c) {
                x[0][c] = p[c];
                x[1][c] = p[c] + L * u[c];
                x[2][c] = p[c] + k * u[c] + h * w[c];
            }
        }
        break;
    }
    }
    /* shuffle the vertex order of both triangles */
    for (int t = 0; t < 2; ++t) {
        i64(*x)[3] = t ? b : a;
        int r = rng_int(0, 2);
        i64 tmp[3];
        memcpy(tmp, x[0], sizeof tmp), memcpy(x[0], x[r], sizeof tmp), memcpy(x[r], tmp, sizeof tmp);
    }
}

/* ---- static triangle / triangle ------------------------------------------ */

static void test_tritri(long n)
{
    printf("static ck_tritri (tolerance: exact) and ck_tritri_ref (wrong only at exact touching):\n");
    for (int fam = 0; fam < NFAM; ++fam) {
        long meet = 0, touch = 0, wrong[NXF] = {0}, refwrong[NXF] = {0}, refbad[NXF] = {0}, asym = 0;
        for (long c = 0; c < n; ++c) {
            i64 a[3][3], b[3][3];
            gen_tris(fam, a, b);
            axis_result tr = oracle((const i64(*)[3])a, 3, (const i64(*)[3])b, 3);
            int truth = !tr.separated;
            meet += truth;
            touch += truth && tr.touching;
            for (int t = 0; t < NXF; ++t) {
                double da[3][3], db[3][3];
                apply(&xforms[t], (const i64(*)[3])a, 3, da);
                apply(&xforms[t], (const i64(*)[3])b, 3, db);
                int f = ck_tritri(da[0], da[1], da[2], db[0], db[1], db[2]);
                int fs = ck_tritri(db[2], db[0], db[1], da[1], da[2], da[0]);
                int r = ck_tritri_ref(da[0], da[1], da[2], db[0], db[1], db[2]);
                wrong[t] += f != truth;
                asym += f != fs;
                if (r != truth) {
                    ++refwrong[t];
                    /* allowed only when touching and the doubles are not exact */
                    if (!(truth && tr.touching) || xforms[t].exact_double_products) ++refbad[t];
                }
            }
        }
        printf("  %-9s %ld configurations (%ld meet, %ld touching):", tri_family_names[fam], n, meet, touch);
        for (int t = 0; t < NXF; ++t) printf(" [%s: %ld wrong, ref %ld]", xforms[t].name, wrong[t], refwrong[t]);
        printf("\n");
        for (int t = 0; t < NXF; ++t) {
            CHECK(wrong[t] == 0, "ck_tritri %s/%s: %ld wrong against the exact answer", tri_family_names[fam],
                  xforms[t].name, wrong[t]);
            CHECK(refbad[t] == 0, "ck_tritri_ref %s/%s: %ld wrong outside the tolerance", tri_family_names[fam],
                  xforms[t].name, refbad[t]);
        }
        CHECK(asym == 0, "ck_tritri %s: %ld answers change with argument order", tri_family_names[fam], asym);
        if (fam == 2) /* built to meet: a check of the generator and the oracle */
            CHECK(meet == n && touch > 0, "touching family: %ld of %ld meet, %ld touch", meet, n, touch);
        else
            CHECK(meet > 0 && meet < n, "family %s must mix meeting and apart cases (%ld of %ld meet)",
                  tri_family_names[fam], meet, n);
    }
}

/* ---- triangle / box ----------------------------------------------------- */

static void test_tribox(long n)
{
    printf("ck_tribox (tolerance: never a false negative; exact on grid and tiny):\n");
    for (int fam = 0; fam < NFAM; ++fam) {
        long meet = 0, fneg[NXF] = {0}, fpos[NXF] = {0}, refneg[NXF] = {0};
        for (long c = 0; c < n; ++c) {
            i64 a[3][3], b[3][3];
            gen_tris(fam, a, b);
            /* the box spanned by B's first two vertices; flat on some axis
             * when they share a coordinate (often, in these families) */
            i64 lo[3], hi[3], corners[8][3];
            for (int k = 0; k < 3; ++k) {
                lo[k] = b[0][k] < b[1][k] ? b[0][k] : b[1][k];
                hi[k] = b[0][k] < b[1][k] ? b[1][k] : b[0][k];
                if (fam == 2 && rng_int(0, 1)) lo[k] = hi[k] = b[0][k]; /* a point or flat box on A */
            }
            for (int i = 0; i < 8; ++i)
                for (int k = 0; k < 3; ++k) corners[i][k] = (i >> k) & 1 ? hi[k] : lo[k];
            axis_result tr = oracle((const i64(*)[3])a, 3, (const i64(*)[3])corners, 8);
            int truth = !tr.separated;
            meet += truth;
            for (int t = 0; t < NXF; ++t) {
                double da[3][3], dc[8][3];
                apply(&xforms[t], (const i64(*)[3])a, 3, da);
                apply(&xforms[t], (const i64(*)[3])corners, 8, dc);
                int f = ck_tribox(da[0], da[1], da[2], dc[0], dc[7]);
                int r = ck_tribox_ref(da[0], da[1], da[2], dc[0], dc[7]);
                fneg[t] += truth && !f;
                fpos[t] += !truth && f;
                refneg[t] += truth && !r;
            }
        }
        printf("  %-9s %ld configurations (%ld meet):", tri_family_names[fam], n, meet);
        for (int t = 0; t < NXF; ++t)
            printf(" [%s: %ld FN, %ld FP, ref %ld FN]", xforms[t].name, fneg[t], fpos[t], refneg[t]);
        printf("\n");
        for (int t = 0; t < NXF; ++t) {
            CHECK(fneg[t] == 0, "ck_tribox %s/%s: %ld false negatives", tri_family_names[fam], xforms[t].name,
                  fneg[t]);
            if (xforms[t].exact_double_products)
                CHECK(fpos[t] == 0, "ck_tribox %s/%s: %ld false positives on exact data", tri_family_names[fam],
                      xforms[t].name, fpos[t]);
        }
    }
}

/* ---- swept: hulls of a triangle's two states ---------------------------- */

static const char *const swept_family_names[] = {"static", "in-plane", "one-step", "deforming", "touching-end"};
enum { NSWEPT = 5 };

/* p[0..2] = triangle at s-1, p[3..5] = at s */
static void gen_swept(int fam, i64 p[6][3], i64 q[6][3])
{
    i64 a[3][3], b[3][3];
    gen_tris(rng_int(0, NFAM - 1), a, b);
    for (int t = 0; t < 2; ++t) {
        i64(*x)[3] = t ? b : a;
        i64(*h)[3] = t ? q : p;
        i64 m[3] = {0, 0, 0}, e1[3], e2[3];
        vsub(e1, x[1], x[0]);
        vsub(e2, x[2], x[0]);
        switch (fam) {
        case 0: break;                                            /* not moving: duplicate points */
        case 1: for (int k = 0; k < 3; ++k) m[k] = e1[k] - e2[k]; /* in the triangle's plane */
                break;
        case 2: m[rng_int(0, 2)] = rng_int(0, 1) ? 1 : -1;         /* one lattice step */
                break;
        default: rand_pt(m, 6);
        }
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) {
                h[i][k] = x[i][k];
                h[3 + i][k] = x[i][k] + m[k] + (fam == 3 ? rng_int(-1, 1) : 0);
            }
    }
    if (fam == 4) { /* B's end state touches A's end state at a vertex */
        int i = rng_int(3, 5), j = rng_int(3, 5);
        i64 d[3];
        vsub(d, p[i], q[j]);
        for (int k = 0; k < 6; ++k) q[k][0] += d[0], q[k][1] += d[1], q[k][2] += d[2];
    }
}

static void test_swept(long n)
{
    printf("swept ck_hulls_meet / ck_hulls_meet_ref, tol 0 (tolerance: no false negative; "
           "FP only below 1e-9 x scale):\n");
    for (int fam = 0; fam < NSWEPT; ++fam) {
        long meet = 0, fneg[NXF] = {0}, fpos[NXF] = {0}, fpbad[NXF] = {0}, rneg[NXF] = {0}, rpbad[NXF] = {0};
        for (long c = 0; c < n; ++c) {
            i64 p[6][3], q[6][3];
            gen_swept(fam, p, q);
            axis_result tr = oracle((const i64(*)[3])p, 6, (const i64(*)[3])q, 6);
            int truth = !tr.separated;
            meet += truth;
            for (int t = 0; t < NXF; ++t) {
                double dp[6][3], dq[6][3];
                apply(&xforms[t], (const i64(*)[3])p, 6, dp);
                apply(&xforms[t], (const i64(*)[3])q, 6, dq);
                int f = ck_hulls_meet((const double(*)[3])dp, 6, (const double(*)[3])dq, 6, 0.0);
                int r = ck_hulls_meet_ref((const double(*)[3])dp, 6, (const double(*)[3])dq, 6, 0.0);
                /* gap allowed to go uncertified, in grid units: 1e-9 * (|o| + extent) / s */
                const xform *x = &xforms[t];
                double omax = fmax(fabs(x->o[0]), fmax(fabs(x->o[1]), fabs(x->o[2])));
                double allow = 1e-9 * (omax / x->s + 128.0);
                fneg[t] += truth && !f;
                rneg[t] += truth && !r;
                fpos[t] += !truth && f;
                fpbad[t] += !truth && f && tr.best > allow;
                rpbad[t] += !truth && r && tr.best > allow;
            }
        }
        printf("  %-12s %ld configurations (%ld meet):", swept_family_names[fam], n, meet);
        for (int t = 0; t < NXF; ++t) printf(" [%s: %ld FN, %ld FP]", xforms[t].name, fneg[t], fpos[t]);
        printf("\n");
        for (int t = 0; t < NXF; ++t) {
            CHECK(fneg[t] == 0, "ck_hulls_meet %s/%s: %ld false negatives", swept_family_names[fam],
                  xforms[t].name, fneg[t]);
            CHECK(rneg[t] == 0, "ck_hulls_meet_ref %s/%s: %ld false negatives", swept_family_names[fam],
                  xforms[t].name, rneg[t]);
            CHECK(fpbad[t] == 0 && rpbad[t] == 0,
                  "hulls %s/%s: %ld (ref %ld) false positives with a gap above the tolerance",
                  swept_family_names[fam], xforms[t].name, fpbad[t], rpbad[t]);
        }
        CHECK(meet > 0, "swept family %s must have meeting cases", swept_family_names[fam]);
    }
}

/* ---- the oracle itself, on hand-made cases ------------------------------ */

static void test_oracle(void)
{
    const i64 a[3][3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
    const i64 touch[3][3] = {{2, 2, 0}, {2, 2, 5}, {6, 6, 3}};   /* vertex on A's hypotenuse */
    const i64 apart[3][3] = {{3, 3, 0}, {3, 3, 5}, {6, 6, 3}};   /* just beyond it */
    const i64 cop[3][3] = {{1, 1, 0}, {9, 1, 0}, {1, 9, 0}};     /* coplanar overlap */
    const i64 above[3][3] = {{1, 1, 1}, {9, 1, 1}, {1, 9, 1}};   /* parallel plane */
    axis_result r = oracle(a, 3, touch, 3);
    CHECK(!r.separated && r.touching, "oracle: touching");
    r = oracle(a, 3, apart, 3);
    CHECK(r.separated, "oracle: apart");
    r = oracle(a, 3, cop, 3);
    CHECK(!r.separated, "oracle: coplanar overlap");
    r = oracle(a, 3, above, 3);
    CHECK(r.separated && fabs(r.best - 1.0) < 1e-12, "oracle: parallel planes at distance 1 (best %g)", r.best);
}

int main(int argc, char **argv)
{
    rng_seed(0x243F6A8885A308D3ull);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    long n = argc > 1 ? atol(argv[1]) : 2000; /* sanitizers: ~20x slower */
#else
    long n = argc > 1 ? atol(argv[1]) : 20000;
#endif
    if (n < 50) n = 50;
    test_oracle();
    test_tritri(n);
    test_tribox(n);
    test_swept(n / 4);
    CHECK(inexact_coords == 0, "%ld transformed coordinates were not exact (test bug)", inexact_coords);
    return check_finish("test_robust");
}
