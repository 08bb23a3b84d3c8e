/*
 * test_tritri8.c — the eight-lane triangle/triangle test (kernels/tritri8.c)
 * against the exact one-pair test it stands in for (ck_tritri).
 *
 *   test_tritri8 [N]     N = pairs per family (default 400000)
 *
 * ck_tritri_f32x8 must give ck_tritri's answer in every lane, whatever the
 * lane's neighbours hold, on
 *   - random triangles at scales 10^-3..10^3, far from the origin or not,
 *     meeting and apart (general position: the lanes' own path must settle
 *     nearly all of them, or it saves nothing);
 *   - pairs in contact: a shared vertex, a vertex on the other's face or on
 *     its plane (rounded to float: on it or a hair off), a shared edge,
 *     coplanar pairs, one triangle crossing the other's plane just barely;
 *   - integer grid pairs (small coordinates: exact zeros everywhere,
 *     degenerate triangles, collinear and coplanar configurations), and the
 *     same under a large integer shear (exact in float, not in double
 *     products: the zeros come out as small non-zero determinants);
 *   - lanes holding NaN or infinity.
 * The AVX2 path (where the CPU has it) and the portable one must agree lane
 * by lane and leave the same lanes to ck_tritri.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/kernels.h"
#include "rng.h"

enum { FAM_RANDOM, FAM_CONTACT, FAM_GRID, FAM_SHEAR, FAM_NONFINITE, NFAM };
static const char *const FAM_NAME[NFAM] = {"random", "contact", "grid", "sheared", "non-finite"};

/* One pair of family fam into a, b (floats). */
static void gen_pair(int fam, float a[3][3], float b[3][3])
{
    if (fam == FAM_SHEAR) { /* a grid pair under x -> M x, M integer up to 2^20: float-exact coordinates up to
                             * 2^24, products past 2^53, so the exact zeros of the grid's contacts are computed
                             * as small non-zero determinants, which only their bounds keep from being believed */
        gen_pair(FAM_GRID, a, b);
        int64_t M[3][3];
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) M[r][c] = rng_int(-(1 << 20), 1 << 20);
        for (int t = 0; t < 2; ++t)
            for (int i = 0; i < 3; ++i) {
                float *x = t ? b[i] : a[i];
                const int64_t v[3] = {(int64_t)x[0], (int64_t)x[1], (int64_t)x[2]};
                for (int r = 0; r < 3; ++r) x[r] = (float)(M[r][0] * v[0] + M[r][1] * v[1] + M[r][2] * v[2]);
            }
        return;
    }
    if (fam == FAM_GRID) {
        const int G = rng_int(0, 1) ? 1 : 3;
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) a[i][k] = (float)rng_int(-G, G), b[i][k] = (float)rng_int(-G, G);
        const int mode = rng_int(0, 5);
        if (mode == 1) /* coplanar in a coordinate plane */
            for (int i = 0, k = rng_int(0, 2); i < 3; ++i) a[i][k] = b[i][k] = 1;
        else if (mode == 2) /* a shared vertex */
            memcpy(b[rng_int(0, 2)], a[rng_int(0, 2)], sizeof a[0]);
        else if (mode == 3) /* A degenerate: a2 on the line a0 a1 */
            for (int k = 0, s = rng_int(-1, 2); k < 3; ++k) a[2][k] = a[0][k] + (float)s * (a[1][k] - a[0][k]);
        else if (mode == 4) /* b0 on A's plane: a0 + s e1 + t e2 */
            for (int k = 0, s = rng_int(-1, 2), t = rng_int(-1, 2); k < 3; ++k)
                b[0][k] = a[0][k] + (float)s * (a[1][k] - a[0][k]) + (float)t * (a[2][k] - a[0][k]);
        return;
    }
    const double s = pow(10.0, rng_range(-3, 3)), far = rng_int(0, 3) == 0 ? pow(10.0, rng_range(0, 4)) : 0;
    double c[3];
    for (int k = 0; k < 3; ++k) c[k] = far * rng_range(-1, 1);
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k)
            a[i][k] = (float)(c[k] + s * rng_range(-1, 1)), b[i][k] = (float)(c[k] + s * rng_range(-1, 1));
    if (fam == FAM_NONFINITE) {
        const float bad[3] = {NAN, INFINITY, -INFINITY};
        (rng_int(0, 1) ? a : b)[rng_int(0, 2)][rng_int(0, 2)] = bad[rng_int(0, 2)];
        return;
    }
    if (fam != FAM_CONTACT) return;
    const double u = rng_range(0, 1), v = rng_range(0, 1 - u);
    switch (rng_int(0, 5)) {
    case 0: memcpy(b[rng_int(0, 2)], a[rng_int(0, 2)], sizeof a[0]); break; /* shared vertex */
    case 1: /* a vertex of B in A's face */
        for (int k = 0; k < 3; ++k) b[0][k] = (float)(a[0][k] + u * (a[1][k] - a[0][k]) + v * (a[2][k] - a[0][k]));
        break;
    case 2: /* a shared edge */
        memcpy(b[0], a[0], sizeof a[0]), memcpy(b[1], a[1], sizeof a[0]);
        break;
    case 3: /* coplanar: B's vertices in A's plane (rounded) */
        for (int i = 0; i < 3; ++i) {
            const double x = rng_range(-1, 2), y = rng_range(-1, 2);
            for (int k = 0; k < 3; ++k) b[i][k] = (float)(a[0][k] + x * (a[1][k] - a[0][k]) + y * (a[2][k] - a[0][k]));
        }
        break;
    case 4: /* a vertex of B on A's plane, outside or inside the face */
        for (int k = 0; k < 3; ++k)
            b[1][k] = (float)(a[0][k] + 3 * (u - 0.3) * (a[1][k] - a[0][k]) + 3 * (v - 0.3) * (a[2][k] - a[0][k]));
        break;
    default: { /* B barely across A's plane: one vertex moved along the normal by 2^-20 of the scale */
        const double e1[3] = {a[1][0] - a[0][0], a[1][1] - a[0][1], a[1][2] - a[0][2]};
        const double e2[3] = {a[2][0] - a[0][0], a[2][1] - a[0][1], a[2][2] - a[0][2]};
        double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        const double ln = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; ++k)
            b[2][k] = (float)(a[0][k] + u * e1[k] + v * e2[k] + (rng_int(0, 1) ? 1 : -1) * 0x1p-20 * s * n[k] / ln);
        break;
    }
    }
}

int main(int argc, char **argv)
{
    rng_seed(0x2545F4914F6CDD1Dull);
    long n = argc > 1 ? atol(argv[1]) : 400000;
    if (n < 800) n = 800;
    for (int fam = 0; fam < NFAM; ++fam) {
        long wrong = 0, differ = 0, left = 0, left_plain = 0, meets = 0, pairs = 0;
        for (long it = 0; it < n; it += 8) {
            float a[8][3][3], b[8][3][3], p[3][3][8], q[3][3][8];
            /* families mixed within a batch too: a lane's answer must not depend on its neighbours */
            for (int l = 0; l < 8; ++l) gen_pair(l == 7 && fam != FAM_GRID ? FAM_GRID : fam, a[l], b[l]);
            const int nl = (int)(it / 8 % 8) + 1; /* 1..8 lanes asked for */
            for (int l = 0; l < 8; ++l)
                for (int i = 0; i < 3; ++i)
                    for (int k = 0; k < 3; ++k) p[i][k][l] = a[l][i][k], q[i][k][l] = b[l][i][k];
            uint8_t m8[8], mp[8];
            memset(m8, 9, sizeof m8), memset(mp, 9, sizeof mp);
            left += ck_tritri_f32x8((const float(*)[3][8])p, (const float(*)[3][8])q, nl, m8);
            left_plain += ck_tritri_f32x8_plain((const float(*)[3][8])p, (const float(*)[3][8])q, nl, mp);
            for (int l = 0; l < nl; ++l) {
                double da[3][3], db[3][3];
                for (int i = 0; i < 3; ++i)
                    for (int k = 0; k < 3; ++k) da[i][k] = a[l][i][k], db[i][k] = b[l][i][k];
                const int t = ck_tritri(da[0], da[1], da[2], db[0], db[1], db[2]);
                ++pairs, meets += t;
                if (m8[l] != t && ++wrong <= 5)
                    fprintf(stderr,
                            "%s lane %d: x8 %d, ck_tritri %d: A (%a %a %a)(%a %a %a)(%a %a %a) B (%a %a %a)(%a %a "
                            "%a)(%a %a %a)\n",
                            FAM_NAME[fam], l, m8[l], t, da[0][0], da[0][1], da[0][2], da[1][0], da[1][1], da[1][2],
                            da[2][0], da[2][1], da[2][2], db[0][0], db[0][1], db[0][2], db[1][0], db[1][1], db[1][2],
                            db[2][0], db[2][1], db[2][2]);
                differ += m8[l] != mp[l];
            }
        }
        printf("tritri x8 %-10s %ld pairs (%ld meet): %ld answers differ from ck_tritri, %ld between the paths; "
               "%ld (%.2f%%) left to ck_tritri (portable path %ld)\n",
               FAM_NAME[fam], pairs, meets, wrong, differ, left, 100.0 * (double)left / (double)pairs, left_plain);
        CHECK(wrong == 0, "%s: %ld lanes answer otherwise than ck_tritri", FAM_NAME[fam], wrong);
        CHECK(differ == 0 && left == left_plain, "%s: the AVX2 and portable paths differ (%ld lanes, left %ld/%ld)",
              FAM_NAME[fam], differ, left, left_plain);
        CHECK(meets > 0 && meets < pairs, "%s: the family should hold both answers (%ld of %ld meet)", FAM_NAME[fam],
              meets, pairs);
        /* random pairs are in general position (lane 7 of a batch is a grid pair: at most 1/8 of them left) */
        if (fam == FAM_RANDOM)
            CHECK(left * 7 < pairs, "random: %ld of %ld pairs left to ck_tritri: the lanes settle too few", left, pairs);
        if (fam == FAM_NONFINITE) CHECK(left * 2 > pairs, "non-finite: only %ld of %ld lanes deferred", left, pairs);
    }
    return check_finish("test_tritri8");
}
