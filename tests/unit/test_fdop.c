/*
 * test_fdop.c — the swept faces' ten diagonal slabs (kernels/face_dops.c) that
 * the face octree's leaves test beside the boxes.
 *
 *   test_fdop [N]     N = pairs per family (default 200000)
 *
 * A drop (ck_fdop_mask clears the pair's bit) must be a pair whose hulls
 * are farther apart than g_a + g_b, the tolerance S5 would test them with:
 *   - checked in long double on the points themselves: along some one of
 *     the ten directions d, max_a d.x + g_a |d| < min_b d.x - g_b |d| (or
 *     the reverse), with |d| the exact sqrt 3 or sqrt 2;
 *   - checked against the exact hull test: ck_hulls_meet(a, b, g_a + g_b)
 *     says 0.
 * Families: random swept faces at scales 10^-3..10^3 near or far from the
 * origin; pairs set apart along a diagonal by a gap within a relative
 * 10^-7..10^-2 of their tolerance, above or below (the widening must be
 * enough, and the test must still drop the pairs clearly apart); the same
 * with no tolerance and gaps down to 10^-6 of the scale (the rounding
 * slack alone); lanes with NaN, infinite, huge coordinates or a bad g,
 * which must never be dropped.  The AVX2 and portable paths must give the
 * same floats and the same bits, and the drops must include pairs whose
 * boxes overlap (else the slabs would add nothing to the box test).
 * An object's slabs (ck_points_dop) must be its points' exact extents
 * within a float sum's rounding, on both paths, and say so when a point
 * is not finite.  (That S2 and S3 drop no pair with them: the pipeline
 * against its oracle, test_pipeline_oracle.c.)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/kernels.h"
#include "rng.h"

static const int DIR[10][3] = {{1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {-1, 1, 1}, {1, 1, 0},
                               {1, -1, 0}, {1, 0, 1}, {1, 0, -1}, {0, 1, 1}, {0, 1, -1}};

enum { FAM_RANDOM, FAM_EDGE, FAM_EDGE0, FAM_BAD, NFAM };
static const char *const FAM_NAME[NFAM] = {"random", "near the tolerance", "no tolerance, tiny gaps", "non-finite"};

/* A swept face: six points around c at scale s. */
static void face(float p[6][3], const double c[3], double s)
{
    for (int i = 0; i < 6; ++i)
        for (int k = 0; k < 3; ++k) p[i][k] = (float)(c[k] + s * rng_range(-1, 1));
}

static long double proj(const int d[3], const float x[3])
{
    return (long double)d[0] * x[0] + (long double)d[1] * x[1] + (long double)d[2] * x[2];
}

/* 1 when some direction shows a and b farther apart than ga + gb (exactly,
 * in long double). */
static int apart_exact(const float a[6][3], const float b[6][3], double ga, double gb)
{
    for (int d = 0; d < 10; ++d) {
        const long double n = sqrtl(d < 4 ? 3.0L : 2.0L);
        long double amax = -INFINITY, amin = INFINITY, bmax = -INFINITY, bmin = INFINITY;
        for (int i = 0; i < 6; ++i) {
            const long double u = proj(DIR[d], a[i]), v = proj(DIR[d], b[i]);
            amax = fmaxl(amax, u), amin = fminl(amin, u), bmax = fmaxl(bmax, v), bmin = fminl(bmin, v);
        }
        if (amax + ga * n < bmin - gb * n || bmax + gb * n < amin - ga * n) return 1;
    }
    return 0;
}

/* Moves b along diagonal d so that its gap to a along d is gap (long double). */
static void set_gap(const float a[6][3], float b[6][3], int d, long double gap)
{
    const long double n2 = d < 4 ? 3.0L : 2.0L;
    long double amax = -INFINITY, bmin = INFINITY;
    for (int i = 0; i < 6; ++i) amax = fmaxl(amax, proj(DIR[d], a[i])), bmin = fminl(bmin, proj(DIR[d], b[i]));
    const long double t = (amax + gap - bmin) / n2; /* b += t d moves its projections by t |d|^2 */
    for (int i = 0; i < 6; ++i)
        for (int k = 0; k < 3; ++k) b[i][k] = (float)(b[i][k] + t * DIR[d][k]);
}

static int boxes_overlap(const float a[6][3], const float b[6][3], double ga, double gb)
{
    for (int k = 0; k < 3; ++k) {
        double alo = INFINITY, ahi = -INFINITY, blo = INFINITY, bhi = -INFINITY;
        for (int i = 0; i < 6; ++i)
            alo = fmin(alo, a[i][k]), ahi = fmax(ahi, a[i][k]), blo = fmin(blo, b[i][k]), bhi = fmax(bhi, b[i][k]);
        if (ahi + ga < blo - gb || bhi + gb < alo - ga) return 0;
    }
    return 1;
}

/* One pair of family fam: points a, b and their widths ga, gb. */
static void gen_pair(int fam, float a[6][3], float b[6][3], float *ga, float *gb)
{
    const double s = pow(10.0, rng_range(-3, 3)), far = rng_int(0, 2) == 0 ? pow(10.0, rng_range(0, 4)) : 0;
    double c[3], e[3];
    const double spread = fam == FAM_EDGE || fam == FAM_EDGE0 ? 0 : 2 * s; /* (the edge families: one slab apart) */
    for (int k = 0; k < 3; ++k) c[k] = far * rng_range(-1, 1), e[k] = c[k] + spread * rng_range(-1, 1);
    face(a, c, s), face(b, e, s);
    *ga = rng_int(0, 3) ? (float)(s * pow(10.0, rng_range(-4, 0))) : 0.0f;
    *gb = rng_int(0, 3) ? (float)(s * pow(10.0, rng_range(-4, 0))) : 0.0f;
    if (fam == FAM_EDGE || fam == FAM_EDGE0) {
        if (fam == FAM_EDGE0) *ga = *gb = 0;
        const int d = rng_int(0, 9);
        const long double n = sqrtl(d < 4 ? 3.0L : 2.0L), tol = ((long double)*ga + *gb) * n;
        const long double rel = powl(10.0L, rng_range(-7, -2)) * (rng_int(0, 1) ? 1 : -1);
        const long double gap = fam == FAM_EDGE ? tol * (1 + rel) : fabsl(rel) * s * 0.1L;
        set_gap(a, b, d, gap);
    }
    if (fam == FAM_BAD) {
        const float bad[4] = {NAN, INFINITY, -INFINITY, 0x1p110f};
        switch (rng_int(0, 2)) {
        case 0: a[rng_int(0, 5)][rng_int(0, 2)] = bad[rng_int(0, 3)]; break;
        case 1: b[rng_int(0, 5)][rng_int(0, 2)] = bad[rng_int(0, 3)]; break;
        default: *ga = rng_int(0, 1) ? NAN : -1.0f; break;
        }
    }
}

/* Eight faces as the kernel takes them: p[c][lane]. */
static void lanes_of(float (*const f[8])[3], float P[24][8])
{
    memset(P, 0, 24 * 8 * sizeof(float));
    for (int l = 0; l < 8; ++l)
        for (int i = 0; i < 6; ++i)
            for (int k = 0; k < 3; ++k) P[3 * i + k][l] = f[l][i][k];
}

int main(int argc, char **argv)
{
    rng_seed(0x5DEECE66Dull);
    long n = argc > 1 ? atol(argv[1]) : 200000;
    if (n < 800) n = 800;
    long total_drops = 0;
    for (int fam = 0; fam < NFAM; ++fam) {
        long pairs = 0, drops = 0, drops_boxes = 0, unsound = 0, hull_says = 0, differ = 0, bad_dropped = 0;
        long apart_known = 0, apart_found = 0;
        for (long it = 0; it < n; it += 4) {
            /* four pairs: faces 2q and 2q + 1 of eight */
            float F[8][6][3], g[8];
            for (int q = 0; q < 4; ++q) gen_pair(fam, F[2 * q], F[2 * q + 1], &g[2 * q], &g[2 * q + 1]);
            float(*fp[8])[3];
            for (int l = 0; l < 8; ++l) fp[l] = F[l];
            float P[24][8];
            lanes_of(fp, P);
            /* rows of CK_FDOP floats, then the 8 readable floats ck_fdop_mask reads past the last */
            float dop[8 * CK_FDOP + 8], dopp[8 * CK_FDOP + 8];
            float *out[8], *outp[8];
            memset(dop, 0, sizeof dop), memset(dopp, 0, sizeof dopp);
            for (int l = 0; l < 8; ++l) out[l] = dop + CK_FDOP * l, outp[l] = dopp + CK_FDOP * l;
            ck_face_dops8((const float(*)[8])P, g, 8, out);
            ck_face_dops8_plain((const float(*)[8])P, g, 8, outp);
            differ += memcmp(dop, dopp, sizeof dop) != 0;
            for (int q = 0; q < 4; ++q) {
                const int a = 2 * q, b = 2 * q + 1;
                const int32_t idx[1] = {b};
                const uint64_t m = ck_fdop_mask(dop, a, idx, 1), mp = ck_fdop_mask_plain(dop, a, idx, 1);
                differ += m != mp;
                ++pairs;
                const int fine = fam != FAM_BAD;
                const int known = fine && apart_exact((const float(*)[3])F[a], (const float(*)[3])F[b], g[a], g[b]);
                apart_known += known;
                if (m) continue; /* kept */
                ++drops, apart_found += known;
                if (!fine) {
                    ++bad_dropped;
                    continue;
                }
                drops_boxes += boxes_overlap((const float(*)[3])F[a], (const float(*)[3])F[b], g[a], g[b]);
                if (!known) {
                    if (++unsound <= 5)
                        fprintf(stderr, "%s: dropped a pair not apart by its tolerance along any slab\n",
                                FAM_NAME[fam]);
                }
                double da[6][3], db[6][3];
                for (int i = 0; i < 6; ++i)
                    for (int k = 0; k < 3; ++k) da[i][k] = F[a][i][k], db[i][k] = F[b][i][k];
                hull_says += ck_hulls_meet((const double(*)[3])da, 6, (const double(*)[3])db, 6, (double)g[a] + g[b]);
            }
        }
        total_drops += drops;
        printf("%-26s %ld pairs: %ld dropped (%ld with boxes overlapping), %ld apart along a slab in long double "
               "(%ld of them dropped); %ld unsound, %ld said to meet by ck_hulls_meet, %ld bad lanes dropped, "
               "%ld AVX2/portable differences\n",
               FAM_NAME[fam], pairs, drops, drops_boxes, apart_known, apart_found, unsound, hull_says, bad_dropped,
               differ);
        CHECK(unsound == 0, "%s: %ld pairs dropped that are within their tolerance along every slab", FAM_NAME[fam],
              unsound);
        CHECK(hull_says == 0, "%s: %ld pairs dropped that ck_hulls_meet says meet", FAM_NAME[fam], hull_says);
        CHECK(differ == 0, "%s: the AVX2 and portable paths differ %ld times", FAM_NAME[fam], differ);
        CHECK(bad_dropped == 0, "%s: %ld pairs with a non-finite lane dropped", FAM_NAME[fam], bad_dropped);
        if (fam == FAM_RANDOM) /* the slabs must drop pairs the boxes keep */
            CHECK(drops_boxes > pairs / 100, "random: only %ld of %ld pairs dropped with their boxes overlapping",
                  drops_boxes, pairs);
        if (fam == FAM_EDGE || fam == FAM_EDGE0) /* and be tight: most pairs apart by 10^-5 or more are dropped */
            CHECK(apart_found * 10 > apart_known * 6, "%s: only %ld of the %ld pairs apart along a slab dropped",
                  FAM_NAME[fam], apart_found, apart_known);
    }
    /* The mask over a bitmap of many rows: the portable and AVX2 paths agree
     * bit for bit, and a row never drops itself. */
    {
        enum { R = 200 };
        static float dop[R * CK_FDOP + 8];
        for (int r = 0; r < R; r += 8) {
            float F[8][6][3], g[8], P[24][8];
            float(*fp[8])[3];
            float *out[8];
            const double s = pow(10.0, rng_range(-1, 1));
            for (int l = 0; l < 8; ++l) {
                double c[3];
                for (int k = 0; k < 3; ++k) c[k] = rng_range(-3, 3);
                face(F[l], c, s);
                g[l] = (float)(0.01 * rng_unit());
                fp[l] = F[l], out[l] = dop + (size_t)CK_FDOP * (size_t)(r + l);
            }
            lanes_of(fp, P);
            ck_face_dops8((const float(*)[8])P, g, 8, out);
        }
        long differ = 0, self = 0, kept = 0;
        for (int it = 0; it < 20000; ++it) {
            int32_t idx[64];
            for (int k = 0; k < 64; ++k) idx[k] = rng_int(0, R - 1);
            const int32_t a = rng_int(0, R - 1);
            idx[rng_int(0, 63)] = a;
            const uint64_t bits = rng_u64() | rng_u64();
            const uint64_t m = ck_fdop_mask(dop, a, idx, bits), mp = ck_fdop_mask_plain(dop, a, idx, bits);
            differ += m != mp;
            for (int k = 0; k < 64; ++k) self += idx[k] == a && ((bits >> k) & 1) && !((m >> k) & 1);
            kept += m == bits;
            CHECK((m & ~bits) == 0, "the mask set a bit that was clear");
        }
        printf("mask over bitmaps: 20000 words, %ld differ between the paths, %ld rows dropped against themselves, "
               "%ld words kept whole\n", differ, self, kept);
        CHECK(differ == 0, "ck_fdop_mask: the AVX2 and portable paths differ on %ld words", differ);
        CHECK(self == 0, "ck_fdop_mask: a row dropped against itself %ld times", self);
        CHECK(kept < 20000, "ck_fdop_mask never dropped anything in 20000 words");
    }
    /* An object's slabs (ck_points_dop, stages/broad_dop.c): the floats of
     * the exact extents, within the rounding of a float sum (2u of the sum
     * of |coordinates| a point, 6u M); both paths the same floats; a
     * non-finite or huge coordinate says 0. */
    {
        long differ = 0, off = 0, flagged = 0, bad_sets = 0;
        for (int it = 0; it < 3000; ++it) {
            const int64_t np = rng_int(1, 70);
            float x[70], y[70], z[70];
            const double s = pow(10.0, rng_range(-3, 3)), far = rng_int(0, 2) ? pow(10.0, rng_range(0, 5)) : 0;
            double c[3];
            for (int k = 0; k < 3; ++k) c[k] = far * rng_range(-1, 1);
            for (int64_t i = 0; i < np; ++i)
                x[i] = (float)(c[0] + s * rng_range(-1, 1)), y[i] = (float)(c[1] + s * rng_range(-1, 1)),
                z[i] = (float)(c[2] + s * rng_range(-1, 1));
            const int bad = it % 10 == 9;
            if (bad) {
                const float v[3] = {NAN, INFINITY, 0x1p110f};
                (rng_int(0, 1) ? x : z)[rng_int(0, (int)np - 1)] = v[rng_int(0, 2)];
                ++bad_sets;
            }
            float lo[10], hi[10], lop[10], hip[10], M = 0, Mp = 0;
            for (int d = 0; d < 10; ++d) lo[d] = lop[d] = INFINITY, hi[d] = hip[d] = -INFINITY;
            const int ok = ck_points_dop(np, x, y, z, lo, hi, &M);
            const int okp = ck_points_dop_plain(np, x, y, z, lop, hip, &Mp);
            differ += ok != okp || (ok && (memcmp(lo, lop, sizeof lo) || memcmp(hi, hip, sizeof hi) || M != Mp));
            if (bad) {
                flagged += !ok;
                continue;
            }
            long double Me = 0;
            for (int64_t i = 0; i < np; ++i) Me = fmaxl(Me, fmaxl(fabsl(x[i]), fmaxl(fabsl(y[i]), fabsl(z[i]))));
            off += M != (float)Me;
            for (int d = 0; d < 10; ++d) {
                long double el = INFINITY, eh = -INFINITY;
                for (int64_t i = 0; i < np; ++i) {
                    const float q[3] = {x[i], y[i], z[i]};
                    const long double v = proj(DIR[d], q);
                    el = fminl(el, v), eh = fmaxl(eh, v);
                }
                const long double tol = 6 * 0x1p-24L * Me * 1.0001L;
                off += !(fabsl(lo[d] - el) <= tol) + !(fabsl(hi[d] - eh) <= tol);
            }
        }
        printf("object slabs: 3000 point sets, %ld off the exact extents by more than the rounding, %ld of %ld bad "
               "sets flagged, %ld AVX2/portable differences\n", off, flagged, bad_sets, differ);
        CHECK(off == 0, "ck_points_dop: %ld extents off", off);
        CHECK(flagged == bad_sets, "ck_points_dop: %ld of %ld non-finite sets not flagged", bad_sets - flagged,
              bad_sets);
        CHECK(differ == 0, "ck_points_dop: the AVX2 and portable paths differ %ld times", differ);
    }
    CHECK(total_drops > 0, "nothing dropped at all");
    return check_finish("test_fdop");
}
