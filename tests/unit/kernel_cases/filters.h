/*
 * filters.h — the float filters of test_kernels (hull_filter8.c, tritri8 lanes,
 * ck_rows8) against the hull and triangle tests
 *
 * A part of test_kernels.c, included there once: its functions are static
 * and the whole test is one translation unit, so check.h's counters and
 * the random stream (rng.h) are shared by every case.  Uses the oracle of
 * oracle.h where it says so.
 */
/* The float filter (hull_filter8.c) against the hull test: moving triangles (six
 * float points each) apart by relative gaps from 1e-9 to 1, touching (a
 * shared point) and overlapping; odd lanes with a tolerance (faces that
 * turn) from 1e-6 to 1 of the triangles' size, the same order as the gaps.
 * The filter may say 1 (apart) only where ck_hulls_meet with that
 * tolerance says 0, and its eight-lane form must give the reference's
 * answer in every lane. */
/* A pair of moving triangles near each other, for the float filter's and
 * the crossing certificate's tests: points 0..2 at s, 3..5 at s-1 (moved
 * together, each point a little more), around a random centre; returns
 * their size. */
static double gen_moving_pair(float P[6][3], float Q[6][3])
{
    double c[3], s = pow(10.0, rng_range(-2, 1)), mv = rng_range(0, 1) * s;
    for (int k = 0; k < 3; ++k) c[k] = rng_range(-30, 30);
    double dm[3] = {rng_range(-1, 1) * mv, rng_range(-1, 1) * mv, rng_range(-1, 1) * mv};
    for (int t = 0; t < 2; ++t) {
        float(*a)[3] = t ? Q : P;
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) {
                a[i][k] = (float)(c[k] + s * rng_range(-1, 1));
                a[3 + i][k] = (float)(a[i][k] + dm[k] + 0.1 * s * rng_range(-1, 1));
            }
    }
    return s;
}

/* Q moved off P along a random direction until the two are apart along it
 * by a gap of 10^[lo, 0] times s. */
static void move_off(const float P[6][3], float Q[6][3], double s, double lo)
{
    double d[3], hp = -INFINITY, lq = INFINITY;
    for (int k = 0; k < 3; ++k) d[k] = rng_range(-1, 1);
    for (int i = 0; i < 6; ++i) {
        hp = fmax(hp, d[0] * P[i][0] + d[1] * P[i][1] + d[2] * P[i][2]);
        lq = fmin(lq, d[0] * Q[i][0] + d[1] * Q[i][1] + d[2] * Q[i][2]);
    }
    const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    const double sh = (hp - lq + pow(10.0, rng_range(lo, 0)) * s) / dd;
    for (int i = 0; i < 6; ++i)
        for (int k = 0; k < 3; ++k) Q[i][k] = (float)(Q[i][k] + sh * d[k]);
}

/* n points of one lane as doubles; 0 when some coordinate is not finite. */
static int lane_doubles(const float (*a)[3], int n, double (*out)[3])
{
    int finite = 1;
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) out[i][k] = a[i][k], finite &= isfinite(out[i][k]);
    return finite;
}

static void test_hulls_filter(long n)
{
    long apart = 0, filt = 0, wrong = 0, lanes_differ = 0, nonfinite_apart = 0, apart_tol = 0, filt_tol = 0;
    float P[8][6][3], Q[8][6][3], p8[6][3][8], q8[6][3][8], tol[8];
    uint8_t out[8];
    for (long it = 0; it < n; it += 8) {
        for (int l = 0; l < 8; ++l) {
            const double s = gen_moving_pair(P[l], Q[l]);
            const int kind = (int)(it / 8 + l) % 4;
            if (kind == 1) memcpy(Q[l][rng_int(0, 5)], P[l][rng_int(0, 5)], sizeof P[l][0]); /* touching */
            if (kind >= 2) move_off(P[l], Q[l], s, kind == 2 ? -9 : -3); /* apart by a relative gap */
            tol[l] = l & 1 ? (float)(pow(10.0, rng_range(-6, 0)) * s) : 0.0f;
            if (it % 4096 == 0 && l == 7) P[l][2][1] = NAN; /* never "apart" */
            for (int i = 0; i < 6; ++i)
                for (int k = 0; k < 3; ++k) p8[i][k][l] = P[l][i][k], q8[i][k][l] = Q[l][i][k];
        }
        ck_hulls_apart_f32x8((const float(*)[3][8])p8, (const float(*)[3][8])q8, tol, out);
        for (int l = 0; l < 8; ++l) {
            const int r = ck_hulls_apart_f32_ref((const float(*)[3])P[l], (const float(*)[3])Q[l], tol[l]);
            lanes_differ += r != out[l];
            double dp[6][3], dq[6][3];
            const int finite = lane_doubles((const float(*)[3])P[l], 6, dp) & lane_doubles((const float(*)[3])Q[l], 6, dq);
            if (!finite) {
                nonfinite_apart += r;
                continue;
            }
            const int h = ck_hulls_meet((const double(*)[3])dp, 6, (const double(*)[3])dq, 6, tol[l]);
            apart += h == 0;
            filt += r;
            wrong += r && h;
            if (tol[l] > 0) apart_tol += h == 0, filt_tol += r;
        }
    }
    printf("hulls filter: %ld pairs, %ld apart by the hull test, %ld (%.1f%%) of them certified by the float "
           "filter (with a tolerance: %ld of %ld); %ld said apart but meet, %ld lanes differ from the reference\n",
           n, apart, filt, 100.0 * filt / (double)(apart ? apart : 1), filt_tol, apart_tol, wrong, lanes_differ);
    CHECK(wrong == 0, "float filter: %ld pairs called apart that ck_hulls_meet says meet", wrong);
    CHECK(lanes_differ == 0, "float filter: %ld lanes of the x8 form differ from the reference", lanes_differ);
    CHECK(nonfinite_apart == 0, "float filter: NaN input called apart");
    CHECK(filt > apart / 4, "float filter certified only %ld of %ld apart pairs", filt, apart);
    CHECK(filt_tol > apart_tol / 4, "float filter certified only %ld of %ld apart pairs with a tolerance", filt_tol,
          apart_tol);
}

/* The float filter on static triangles (ck_tris_apart_f32x8, hull_filter8.c)
 * against ck_tritri: triangles apart by relative gaps from 1e-9 to 1,
 * touching (a shared vertex, or a vertex on the other's face) and
 * overlapping.  The filter may say 1 (apart) only where ck_tritri says 0,
 * the path the CPU takes must answer as the portable one in every lane, and
 * it must certify most of the apart pairs (it is there to save work). */
static void test_tris_filter(long n)
{
    long apart = 0, filt = 0, wrong = 0, lanes_differ = 0, nonfinite_apart = 0;
    float P[8][3][3], Q[8][3][3], p8[3][3][8], q8[3][3][8];
    uint8_t out[8], ref[8];
    for (long it = 0; it < n; it += 8) {
        for (int l = 0; l < 8; ++l) {
            double c[3], s = pow(10.0, rng_range(-2, 1));
            for (int k = 0; k < 3; ++k) c[k] = rng_range(-30, 30);
            for (int t = 0; t < 2; ++t) {
                float(*a)[3] = t ? Q[l] : P[l];
                for (int i = 0; i < 3; ++i)
                    for (int k = 0; k < 3; ++k) a[i][k] = (float)(c[k] + s * rng_range(-1, 1));
            }
            const int kind = (int)(it / 8 + l) % 5;
            if (kind == 1) memcpy(Q[l][rng_int(0, 2)], P[l][rng_int(0, 2)], sizeof P[l][0]); /* a shared vertex */
            if (kind == 2) { /* a vertex of Q on P's face (rounded to float: on it or a hair off) */
                const double u = rng_range(0, 1), v = rng_range(0, 1 - u);
                for (int k = 0; k < 3; ++k)
                    Q[l][0][k] = (float)(P[l][0][k] + u * (P[l][1][k] - P[l][0][k]) + v * (P[l][2][k] - P[l][0][k]));
            }
            if (kind >= 3) { /* Q moved off P along a random direction by a relative gap */
                double d[3], hp = -INFINITY, lq = INFINITY;
                for (int k = 0; k < 3; ++k) d[k] = rng_range(-1, 1);
                for (int i = 0; i < 3; ++i) {
                    hp = fmax(hp, d[0] * P[l][i][0] + d[1] * P[l][i][1] + d[2] * P[l][i][2]);
                    lq = fmin(lq, d[0] * Q[l][i][0] + d[1] * Q[l][i][1] + d[2] * Q[l][i][2]);
                }
                const double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
                const double sh = (hp - lq + pow(10.0, rng_range(kind == 3 ? -9 : -3, 0)) * s) / dd;
                for (int i = 0; i < 3; ++i)
                    for (int k = 0; k < 3; ++k) Q[l][i][k] = (float)(Q[l][i][k] + sh * d[k]);
            }
            if (it % 4096 == 0 && l == 7) P[l][2][1] = NAN; /* never "apart" */
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k) p8[i][k][l] = P[l][i][k], q8[i][k][l] = Q[l][i][k];
        }
        ck_tris_apart_f32x8((const float(*)[3][8])p8, (const float(*)[3][8])q8, out);
        ck_tris_apart_f32x8_plain((const float(*)[3][8])p8, (const float(*)[3][8])q8, ref);
        for (int l = 0; l < 8; ++l) {
            lanes_differ += out[l] != ref[l];
            double dp[3][3], dq[3][3];
            const int finite = lane_doubles((const float(*)[3])P[l], 3, dp) & lane_doubles((const float(*)[3])Q[l], 3, dq);
            if (!finite) {
                nonfinite_apart += out[l];
                continue;
            }
            const int h = ck_tritri(dp[0], dp[1], dp[2], dq[0], dq[1], dq[2]);
            apart += h == 0;
            filt += out[l];
            wrong += out[l] && h;
        }
    }
    printf("triangles filter: %ld pairs, %ld apart by ck_tritri, %ld (%.1f%%) of them certified by the float "
           "filter; %ld said apart but meet, %ld lanes differ from the portable path\n",
           n, apart, filt, 100.0 * filt / (double)(apart ? apart : 1), wrong, lanes_differ);
    CHECK(wrong == 0, "triangles filter: %ld pairs called apart that ck_tritri says meet", wrong);
    CHECK(lanes_differ == 0, "triangles filter: %ld lanes differ from the portable path", lanes_differ);
    CHECK(nonfinite_apart == 0, "triangles filter: NaN input called apart");
    CHECK(filt > apart / 2, "triangles filter certified only %ld of %ld apart pairs", filt, apart);
}

/* ck_rows8: the rows' floats in the filter's lanes, AVX2 path and plain
 * path against the definition, rows in any order (repeated, the last one). */
static void test_rows8(long n)
{
    enum { NR = 64 };
    float base[NR * CK_ROW + 8];
    for (int i = 0; i < NR * CK_ROW + 8; ++i) base[i] = (float)rng_range(-1e3, 1e3);
    long bad = 0;
    for (long it = 0; it < n; ++it) {
        int32_t idx[8];
        for (int l = 0; l < 8; ++l) idx[l] = it % 5 == 0 ? NR - 1 : rng_int(0, NR - 1);
        float a[24][8], b[24][8];
        ck_rows8(base, idx, a);
        ck_rows8_plain(base, idx, b);
        for (int c = 0; c < 24; ++c)
            for (int l = 0; l < 8; ++l)
                bad += a[c][l] != base[CK_ROW * idx[l] + c] || b[c][l] != base[CK_ROW * idx[l] + c];
    }
    CHECK(bad == 0, "ck_rows8: %ld values differ from the rows", bad);
    /* ck_rows8o: the offsets plus the origins' difference, in double, rounded once */
    long bado = 0;
    for (long it = 0; it < n; ++it) {
        int32_t idx[8], org[8];
        for (int l = 0; l < 8; ++l) idx[l] = rng_int(0, NR - 1), org[l] = rng_int(0, NR - 1);
        float a[24][8], z[24][8], o[24][8];
        ck_rows8o(base, idx, org, a);
        ck_rows8o(base, idx, NULL, z);
        ck_rows8o(base, idx, idx, o);
        float O[3][8], y[24][8]; /* ck_rows8o_by: org's origins handed over as lanes */
        for (int c = 0; c < 3; ++c)
            for (int l = 0; l < 8; ++l) O[c][l] = base[CK_ROW * org[l] + 18 + c];
        ck_rows8o_by(base, idx, (const float(*)[8])O, y);
        for (int c = 0; c < 18; ++c)
            for (int l = 0; l < 8; ++l) bado += y[c][l] != a[c][l];
        for (int c = 0; c < 18; ++c)
            for (int l = 0; l < 8; ++l) {
                const float *r = base + CK_ROW * idx[l], *g = base + CK_ROW * org[l];
                const double D = (double)r[18 + c % 3] - (double)g[18 + c % 3];
                bado += a[c][l] != (float)((double)r[c] + D) || z[c][l] != (float)((double)r[c] + r[18 + c % 3]) ||
                        o[c][l] != r[c];
            }
    }
    CHECK(bado == 0, "ck_rows8o: %ld values differ from their definition", bado);
}
