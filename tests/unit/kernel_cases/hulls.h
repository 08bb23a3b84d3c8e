/*
 * hulls.h — the convex-hull cases of test_kernels (hull.c, hull_bool.c,
 * hull_gjk8.c: grid, float, tolerance, rows, eight lanes, hull/box)
 *
 * A part of test_kernels.c, included there once: its functions are static
 * and the whole test is one translation unit, so check.h's counters and
 * the random stream (rng.h) are shared by every case.  Uses the oracle of
 * oracle.h where it says so.
 */
/* ============================================================================
 * convex hulls of point sets
 * ========================================================================= */

/* n integer points in one of several shapes */
static void gen_set_grid(double (*p)[3], int n, int G)
{
    const int mode = rng_int(0, 7);
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) p[i][k] = rng_int(-G, G);
    if (mode == 1) { /* collinear */
        for (int i = 2; i < n; ++i) {
            const int t = rng_int(-1, 2);
            for (int k = 0; k < 3; ++k) p[i][k] = p[0][k] + t * (p[1][k] - p[0][k]);
        }
    } else if (mode == 2) { /* in a coordinate plane */
        const int k = rng_int(0, 2), c = rng_int(-1, 1);
        for (int i = 0; i < n; ++i) p[i][k] = c;
    } else if (mode == 3 && n >= 3) { /* in a general plane */
        for (int i = 3; i < n; ++i) {
            const int s = rng_int(-1, 1), t = rng_int(-1, 1);
            for (int k = 0; k < 3; ++k) p[i][k] = p[0][k] + s * (p[1][k] - p[0][k]) + t * (p[2][k] - p[0][k]);
        }
    } else if (mode == 4) { /* a single point */
        for (int i = 1; i < n; ++i) memcpy(p[i], p[0], sizeof p[0]);
    } else if (mode >= 5 && n % 2 == 0) { /* a moving primitive: second half = first half + d */
        const int h = n / 2;
        const int d[3] = {rng_int(-2, 2), rng_int(-2, 2), rng_int(-2, 2)};
        for (int i = 0; i < h; ++i)
            for (int k = 0; k < 3; ++k) p[h + i][k] = p[i][k] + d[k];
    }
}

static const int set_sizes[] = {1, 2, 3, 4, 6, 6, 6, 8};

static void test_hulls_grid(long n)
{
    long pos = 0, refbad = 0, fastunsound = 0, fastmiss = 0, sep = 0, shared = 0, touch = 0;
    long bool_wrong = 0, bool_paths = 0, bool_meet = 0, bool_apart = 0;
    const long inc0 = oracle_incomplete;
    for (long it = 0; it < n; ++it) {
        const int np = set_sizes[rng_int(0, 7)], nq = set_sizes[rng_int(0, 7)];
        double p[8][3], q[8][3];
        const int mode = rng_int(0, 5);
        int G = rng_int(0, 1) ? 2 : 4;
        gen_set_grid(p, np, G);
        gen_set_grid(q, nq, G);
        if (mode == 1) { /* a shared point: k * (convex combination of P) placed in Q, P scaled by k */
            const int k = rng_int(2, 4);
            int w[8] = {0};
            for (int j = 0; j < k; ++j) w[rng_int(0, np - 1)]++;
            double x[3] = {0, 0, 0};
            for (int i = 0; i < np; ++i)
                for (int c = 0; c < 3; ++c) x[c] += w[i] * p[i][c], p[i][c] *= k;
            for (int i = 0; i < nq; ++i)
                for (int c = 0; c < 3; ++c) q[i][c] = q[i][c] * k / 2;
            memcpy(q[rng_int(0, nq - 1)], x, sizeof x);
            ++shared;
        } else if (mode == 2 || mode == 3) { /* slide Q so that it touches P's support plane along d */
            int d[3] = {rng_int(-1, 1), rng_int(-1, 1), rng_int(-1, 1)};
            if (mode == 2) d[0] = 1, d[1] = 0, d[2] = 0;
            if (d[0] == 0 && d[1] == 0 && d[2] == 0) d[2] = 1;
            double hp = -INFINITY, lq = INFINITY;
            for (int i = 0; i < np; ++i) hp = fmax(hp, d[0] * p[i][0] + d[1] * p[i][1] + d[2] * p[i][2]);
            for (int i = 0; i < nq; ++i) lq = fmin(lq, d[0] * q[i][0] + d[1] * q[i][1] + d[2] * q[i][2]);
            /* translate Q by t (integer) with d.t = hp - lq + extra */
            const double delta = hp - lq + rng_int(-1, 1) * (rng_int(0, 2) == 0);
            int kk = 0;
            while (d[kk] == 0) ++kk;
            for (int i = 0; i < nq; ++i) q[i][kk] += delta / d[kk];
            ++touch;
        }
        i64 pi[8][3], qi[8][3];
        to_i64((const double(*)[3])p, np, pi);
        to_i64((const double(*)[3])q, nq, qi);
        const int truth = exact_meet((const i64(*)[3])pi, np, (const i64(*)[3])qi, nq);
        const int r = ck_hulls_meet_ref((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
        const int f = ck_hulls_meet((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
        pos += truth;
        sep += !truth;
        if (r != truth) {
            ++refbad;
            if (refbad <= 5) {
                fprintf(stderr, "hull ref wrong (truth %d ref %d) np %d nq %d\n P:", truth, r, np, nq);
                for (int i = 0; i < np; ++i) fprintf(stderr, " (%g %g %g)", p[i][0], p[i][1], p[i][2]);
                fprintf(stderr, "\n Q:");
                for (int i = 0; i < nq; ++i) fprintf(stderr, " (%g %g %g)", q[i][0], q[i][1], q[i][2]);
                fprintf(stderr, "\n");
            }
        }
        if (f == 0 && truth == 1) ++fastunsound;
        if (f == 1 && truth == 0) ++fastmiss;
        { /* the boolean GJK alone (hull_bool.c), on the lists translated to p[0] as ck_hulls_meet does */
            double P[8][3], Q[8][3], M = 0;
            for (int i = 0; i < np; ++i)
                for (int k = 0; k < 3; ++k) P[i][k] = p[i][k] - p[0][k], M = fmax(M, fabs(P[i][k]));
            for (int i = 0; i < nq; ++i)
                for (int k = 0; k < 3; ++k) Q[i][k] = q[i][k] - p[0][k], M = fmax(M, fabs(Q[i][k]));
            int l1, l2;
            const int b = ck_hulls_bool((const double(*)[3])P, np, (const double(*)[3])Q, nq, M, 0.0, &l1);
            const int bp = ck_hulls_bool_plain((const double(*)[3])P, np, (const double(*)[3])Q, nq, M, 0.0, &l2);
            bool_wrong += b >= 0 && b != truth, bool_paths += b != bp || l1 != l2;
            bool_meet += b == 1, bool_apart += b == 0;
        }
        if (mode == 1) CHECK(truth == 1 && r == 1 && f == 1, "shared point: truth %d ref %d fast %d", truth, r, f);
    }
    printf("hulls grid:   %ld pairs of 1-8 points (%ld meet, %ld apart; %ld built with a shared point, %ld slid to "
           "touch): ref wrong %ld; fast said apart for meeting sets %ld; fast said meet for apart sets %ld "
           "(%.3f%% of apart)\n",
           n, pos, sep, shared, touch, refbad, fastunsound, fastmiss, sep ? 100.0 * fastmiss / sep : 0.0);
    printf("hulls grid, boolean GJK: decided %ld of %ld meeting pairs and %ld of %ld apart ones; %ld wrong, "
           "%ld differ between the AVX2 and portable paths\n", bool_meet, pos, bool_apart, sep, bool_wrong, bool_paths);
    CHECK(refbad == 0, "hull ref: %ld wrong on exact data", refbad);
    CHECK(fastunsound == 0, "hull fast: %ld unsound answers", fastunsound);
    CHECK(fastmiss == 0, "hull fast: said meet for %ld apart pairs of exact data", fastmiss);
    CHECK(bool_wrong == 0, "boolean GJK: %ld answers differ from the exact truth", bool_wrong);
    CHECK(bool_paths == 0, "boolean GJK: AVX2 and portable paths differ on %ld pairs", bool_paths);
    /* (half the meeting grid pairs only touch, at a point or along a face: left
     * to the distance GJK by design; the rest overlap and must be decided) */
    CHECK(bool_meet > pos / 4, "boolean GJK: decided only %ld of %ld meeting pairs", bool_meet, pos);
    CHECK(oracle_incomplete == inc0, "oracle incomplete %ld times", oracle_incomplete - inc0);
}

static void random_float_set(double (*p)[3], int n, const double c[3], double s)
{
    for (int i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) p[i][k] = c[k] + s * rng_range(-1, 1);
    if (n == 6 && rng_int(0, 1)) /* moving triangle: small motion */
        for (int i = 3; i < 6; ++i)
            for (int k = 0; k < 3; ++k) p[i][k] = p[i - 3][k] + 0.2 * s * rng_range(-1, 1);
}

static void test_hulls_float(long n)
{
    long big = 0, big_fast0 = 0, big_ref0 = 0, shared_bad = 0, tiny = 0, tiny_fast0 = 0, comb = 0, comb_apart = 0;
    for (long it = 0; it < n; ++it) {
        const int np = set_sizes[rng_int(1, 7)], nq = set_sizes[rng_int(1, 7)];
        double p[8][3], q[8][3], c[3];
        const double s = pow(10.0, rng_range(-3, 1));
        for (int k = 0; k < 3; ++k) c[k] = rng_range(-10, 10);
        random_float_set(p, np, c, s);
        random_float_set(q, nq, c, s);
        if (it % 8 == 0) { /* a point of P in Q: must be "meet" */
            memcpy(q[rng_int(0, nq - 1)], p[rng_int(0, np - 1)], sizeof p[0]);
            const int f = ck_hulls_meet((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
            const int r = ck_hulls_meet_ref((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
            if (!(f == 1 && r == 1)) ++shared_bad;
            continue;
        }
        if (it % 8 == 4) { /* a convex combination of P in Q, rounded: "apart" only if really apart */
            double w[8], ws = 0, x[3] = {0, 0, 0};
            for (int i = 0; i < np; ++i) ws += (w[i] = rng_unit());
            for (int i = 0; i < np; ++i)
                for (int k = 0; k < 3; ++k) x[k] += w[i] / ws * p[i][k];
            memcpy(q[rng_int(0, nq - 1)], x, sizeof x);
            const int f = ck_hulls_meet((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
            const int r = ck_hulls_meet_ref((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
            ++comb;
            if (!f || !r) {
                ++comb_apart;
                const double sd = signed_sat((const double(*)[3])p, np, (const double(*)[3])q, nq);
                if (!(sd > 0)) ++shared_bad;
            }
            continue;
        }
        /* separate along a random unit direction by a relative gap g */
        double d[3], dn = 0;
        do {
            for (int k = 0; k < 3; ++k) d[k] = rng_range(-1, 1);
            dn = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        } while (dn < 0.1 || dn > 1);
        for (int k = 0; k < 3; ++k) d[k] /= dn;
        double hp = -INFINITY, lq = INFINITY;
        for (int i = 0; i < np; ++i) hp = fmax(hp, d[0] * p[i][0] + d[1] * p[i][1] + d[2] * p[i][2]);
        for (int i = 0; i < nq; ++i) lq = fmin(lq, d[0] * q[i][0] + d[1] * q[i][1] + d[2] * q[i][2]);
        const double g = pow(10.0, rng_range(-9, 0));
        const double shift = hp - lq + g * s;
        for (int i = 0; i < nq; ++i)
            for (int k = 0; k < 3; ++k) q[i][k] += shift * d[k];
        const int f = ck_hulls_meet((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
        if (g > 1e-6) {
            const int r = ck_hulls_meet_ref((const double(*)[3])p, np, (const double(*)[3])q, nq, 0.0);
            ++big;
            big_fast0 += f == 0;
            big_ref0 += r == 0;
        } else {
            ++tiny;
            tiny_fast0 += f == 0;
        }
    }
    printf("hulls float:  %ld pairs apart by a gap > 1e-6 (relative): fast certified %.3f%%, ref %.3f%%; "
           "%ld pairs with gap 1e-9..1e-6: fast certified %.2f%%\n"
           "              %ld pairs with a rounded convex combination of P in Q: %ld reported apart (by fast or "
           "ref; all really apart, signed distance > 0 in long double); %ld wrong answers on shared points\n",
           big, 100.0 * big_fast0 / (double)(big ? big : 1), 100.0 * big_ref0 / (double)(big ? big : 1), tiny,
           100.0 * tiny_fast0 / (double)(tiny ? tiny : 1), comb, comb_apart, shared_bad);
    CHECK(big_fast0 >= 0.99 * (double)big, "fast certified only %ld of %ld", big_fast0, big);
    CHECK(shared_bad == 0, "%ld shared-point float pairs reported apart", shared_bad);

    /* tolerance: unit cubes' corners 1 apart along x */
    double a[8][3], b[8][3];
    const double lo0[3] = {0, 0, 0}, hi0[3] = {1, 1, 1}, lo1[3] = {2, 0.5, 0.5}, hi1[3] = {3, 1.5, 1.5};
    box_corners(lo0, hi0, a);
    box_corners(lo1, hi1, b);
    CHECK(ck_hulls_meet((const double(*)[3])a, 8, (const double(*)[3])b, 8, 0.0) == 0, "cubes apart");
    CHECK(ck_hulls_meet((const double(*)[3])a, 8, (const double(*)[3])b, 8, 0.99) == 0, "cubes apart, tol .99");
    CHECK(ck_hulls_meet((const double(*)[3])a, 8, (const double(*)[3])b, 8, 1.0) == 1, "cubes at distance = tol");
    CHECK(ck_hulls_meet_ref((const double(*)[3])a, 8, (const double(*)[3])b, 8, 1.0) == 1, "cubes, ref, tol 1");
    CHECK(ck_hulls_meet_ref((const double(*)[3])a, 8, (const double(*)[3])b, 8, 0.99) == 0, "cubes, ref, tol .99");
    CHECK(ck_hull_box((const double(*)[3])a, 8, lo1, hi1, 0.99) == 0, "hull box tol .99");
    CHECK(ck_hull_box((const double(*)[3])a, 8, lo1, hi1, 1.0) == 1, "hull box tol 1");
    /* a diagonal gap: distance sqrt(2)/2 between the edge x+y=2 region and a point */
    const double tri[3][3] = {{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}, pt[1][3] = {{1.5, 1.5, 0}};
    CHECK(ck_hulls_meet(tri, 3, pt, 1, 0.70) == 0, "diagonal gap, tol .70");
    CHECK(ck_hulls_meet(tri, 3, pt, 1, 0.71) == 1, "diagonal gap, tol .71");
    /* bad input is answered conservatively */
    const double nanp[1][3] = {{NAN, 1.5, 0}};
    CHECK(ck_hulls_meet(nanp, 1, pt, 1, 0.0) == 1 && ck_hulls_meet_ref(nanp, 1, pt, 1, 0.0) == 1, "NaN");
    CHECK(ck_hulls_meet(tri, 0, pt, 1, 0.0) == 1 && ck_hulls_meet(tri, 9, pt, 1, 0.0) == 1, "bad counts");
}

/* The distance from the origin to triangle abc (Ericson, Real-Time Collision
 * Detection 5.1.5, in long double; a degenerate triangle's regions still
 * give a point of it). */
static long double origin_tri_dist(const long double a[3], const long double b[3], const long double c[3])
{
    long double ab[3], ac[3], ap[3], x[3];
    for (int k = 0; k < 3; ++k) ab[k] = b[k] - a[k], ac[k] = c[k] - a[k], ap[k] = -a[k];
#define DOT3(u, v) ((u)[0] * (v)[0] + (u)[1] * (v)[1] + (u)[2] * (v)[2])
    const long double d1 = DOT3(ab, ap), d2 = DOT3(ac, ap);
    long double bp[3], cp[3];
    for (int k = 0; k < 3; ++k) bp[k] = -b[k], cp[k] = -c[k];
    const long double d3 = DOT3(ab, bp), d4 = DOT3(ac, bp), d5 = DOT3(ab, cp), d6 = DOT3(ac, cp);
    const long double vc = d1 * d4 - d3 * d2, vb = d5 * d2 - d1 * d6, va = d3 * d6 - d5 * d4;
    if (d1 <= 0 && d2 <= 0) {
        for (int k = 0; k < 3; ++k) x[k] = a[k];
    } else if (d3 >= 0 && d4 <= d3) {
        for (int k = 0; k < 3; ++k) x[k] = b[k];
    } else if (vc <= 0 && d1 >= 0 && d3 <= 0 && d1 - d3 > 0) {
        const long double v = d1 / (d1 - d3);
        for (int k = 0; k < 3; ++k) x[k] = a[k] + v * ab[k];
    } else if (d6 >= 0 && d5 <= d6) {
        for (int k = 0; k < 3; ++k) x[k] = c[k];
    } else if (vb <= 0 && d2 >= 0 && d6 <= 0 && d2 - d6 > 0) {
        const long double w = d2 / (d2 - d6);
        for (int k = 0; k < 3; ++k) x[k] = a[k] + w * ac[k];
    } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0 && (d4 - d3) + (d5 - d6) > 0) {
        const long double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (int k = 0; k < 3; ++k) x[k] = b[k] + w * (c[k] - b[k]);
    } else {
        const long double den = va + vb + vc;
        if (!(den > 0)) return INFINITY; /* degenerate: its edges are other triples' */
        const long double v = vb / den, w = vc / den;
        for (int k = 0; k < 3; ++k) x[k] = a[k] + v * ab[k] + w * ac[k];
    }
    return sqrtl(DOT3(x, x));
#undef DOT3
}

/* The distance between conv(p) and conv(q) (6 points each) by brute force:
 * 0 when the hulls meet (the complete reference at tol 0), else the least
 * distance from the origin to a triangle of the 36 points p_i - q_j: the
 * point of D = conv{p_i - q_j} nearest the origin lies on a face of D, in
 * the hull of three of its points. */
static long double hulls_dist_brute(const double (*p)[3], const double (*q)[3])
{
    if (ck_hulls_meet_ref(p, 6, q, 6, 0.0)) return 0;
    long double w[36][3], best = INFINITY;
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 6; ++j)
            for (int k = 0; k < 3; ++k) w[6 * i + j][k] = (long double)p[i][k] - (long double)q[j][k];
    for (int a = 0; a < 36; ++a)
        for (int b = a + 1; b < 36; ++b)
            for (int c = b + 1; c < 36; ++c) {
                const long double t = origin_tri_dist(w[a], w[b], w[c]);
                best = t < best ? t : best;
            }
    return best;
}

/* The boolean GJK with a tolerance (hull_bool.c: it walks D + B(tol)):
 * every "meet" must be a pair within tol of each other and every "apart"
 * one farther, by the brute-force distance; swept faces (six points) set
 * apart by random gaps, tol a multiple of their distance near 1. */
/* Moves the six points q along a random direction d until conv(q) lies
 * beyond conv(p) along d by a gap of 10^U(e, 0) s. */
static void push_apart(const double (*p)[3], double (*q)[3], double s, double e)
{
    double d[3], dn;
    do {
        for (int k = 0; k < 3; ++k) d[k] = rng_range(-1, 1);
        dn = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    } while (dn < 0.1 || dn > 1);
    double hp = -INFINITY, lq = INFINITY;
    for (int i = 0; i < 6; ++i) hp = fmax(hp, (d[0] * p[i][0] + d[1] * p[i][1] + d[2] * p[i][2]) / dn);
    for (int i = 0; i < 6; ++i) lq = fmin(lq, (d[0] * q[i][0] + d[1] * q[i][1] + d[2] * q[i][2]) / dn);
    const double shift = hp - lq + pow(10.0, rng_range(e, 0)) * s;
    for (int i = 0; i < 6; ++i)
        for (int k = 0; k < 3; ++k) q[i][k] += shift * d[k] / dn;
}

static void test_hulls_bool_tol(long n)
{
    static const double factor[] = {0.3, 0.9, 0.999, 1.001, 1.1, 3.0};
    long wrong = 0, paths = 0, within = 0, apart = 0, meet = 0, unsound = 0, far = 0, far_cert = 0, asked = 0;
    for (long it = 0; it < n; ++it) {
        double p[6][3], q[6][3], c[3];
        const double s = pow(10.0, rng_range(-2, 1));
        for (int k = 0; k < 3; ++k) c[k] = rng_range(-10, 10);
        random_float_set(p, 6, c, s);
        random_float_set(q, 6, c, s);
        if (it % 4) { /* three in four set apart along a random direction, by 1e-4 s to s */
            push_apart((const double(*)[3])p, q, s, -4);
            for (int i = 0; i < 6; ++i)
                for (int k = 0; k < 3; ++k) q[i][k] = (float)q[i][k];
        }
        const long double dist = hulls_dist_brute((const double(*)[3])p, (const double(*)[3])q);
        double P[6][3], Q[6][3], M = 0;
        for (int i = 0; i < 6; ++i)
            for (int k = 0; k < 3; ++k) P[i][k] = p[i][k] - p[0][k], M = fmax(M, fabs(P[i][k]));
        for (int i = 0; i < 6; ++i)
            for (int k = 0; k < 3; ++k) Q[i][k] = q[i][k] - p[0][k], M = fmax(M, fabs(Q[i][k]));
        const long double slack = 1e-12L * M; /* the brute force's own rounding, far above */
        for (int f = 0; f < 6; ++f) {
            const double tol = dist > 0 ? (double)(dist * factor[f]) : s * pow(10.0, rng_range(-4, 0));
            int l1, l2;
            const int b = ck_hulls_bool((const double(*)[3])P, 6, (const double(*)[3])Q, 6, M, tol, &l1);
            const int bp = ck_hulls_bool_plain((const double(*)[3])P, 6, (const double(*)[3])Q, 6, M, tol, &l2);
            ++asked;
            paths += b != bp || l1 != l2;
            if (b == 1) {
                ++meet, within += dist > 0;
                if (!(dist <= tol + slack)) {
                    if (++wrong <= 5) fprintf(stderr, "bool tol: said meet, distance %Lg > tol %g\n", dist, tol);
                }
            } else if (b == 0) {
                ++apart;
                if (!(dist >= tol - slack)) {
                    if (++wrong <= 5) fprintf(stderr, "bool tol: said apart, distance %Lg < tol %g\n", dist, tol);
                }
            }
            const int m = ck_hulls_meet((const double(*)[3])p, 6, (const double(*)[3])q, 6, tol);
            if (dist < tol - slack && m == 0) ++unsound;
            if (dist > tol * (1 + 1e-6) + slack) ++far, far_cert += m == 0;
        }
    }
    printf("hulls, boolean GJK within tol: %ld questions on %ld pairs of swept faces: %ld meet (%ld of them apart but "
           "within tol), %ld apart, %ld wrong by the brute-force distance, %ld differ between the AVX2 and portable "
           "paths; ck_hulls_meet: %ld unsound, certified %ld of %ld pairs farther than tol\n",
           asked, n, meet, within, apart, wrong, paths, unsound, far_cert, far);
    CHECK(wrong == 0, "boolean GJK with tol: %ld answers contradict the distance", wrong);
    CHECK(paths == 0, "boolean GJK with tol: AVX2 and portable paths differ on %ld questions", paths);
    CHECK(unsound == 0, "ck_hulls_meet with tol: %ld pairs within tol called apart", unsound);
    /* the pairs apart but within tol are decided here, not left to the distance GJK */
    CHECK(within > asked / 10, "boolean GJK with tol: only %ld of %ld questions met within tol", within, asked);
    CHECK(far_cert >= 0.99 * (double)far, "ck_hulls_meet with tol: certified only %ld of %ld", far_cert, far);
}

/* ck_hulls_meet_rows (S5's rows of 18 doubles) against ck_hulls_meet on the
 * same points, AVX2 and portable paths: swept faces near each
 * other, tolerances 0 to about their distance, and rows with a NaN or an
 * infinity, and a negative or NaN tolerance. */
static void test_hulls_rows(long n)
{
    long differ = 0, meet = 0, odd = 0, differ2 = 0;
    double prev_a[18] = {0}, prev_b[18] = {0};
    double prev_tol = 0;
    for (long it = 0; it < n; ++it) {
        double p[6][3], q[6][3], c[3];
        const double s = pow(10.0, rng_range(-3, 2));
        for (int k = 0; k < 3; ++k) c[k] = rng_range(-100, 100);
        random_float_set(p, 6, c, s);
        for (int k = 0; k < 3; ++k) c[k] += s * rng_range(-1.2, 1.2);
        random_float_set(q, 6, c, s);
        double ra[18], rb[18]; /* rows of doubles (here float values) */
        for (int i = 0; i < 18; ++i) ra[i] = (float)p[i / 3][i % 3], rb[i] = (float)q[i / 3][i % 3];
        double tol = rng_int(0, 2) ? s * pow(10.0, rng_range(-6, 0)) : 0.0;
        if (it % 64 == 1) { /* bad values: a NaN or an infinity in a row, or a bad tolerance */
            const double bad[2] = {NAN, INFINITY};
            (rng_int(0, 1) ? ra : rb)[rng_int(0, 17)] = bad[rng_int(0, 1)] * (rng_int(0, 1) ? 1 : -1);
            ++odd;
        } else if (it % 64 == 2) {
            tol = rng_int(0, 1) ? -1.0 : NAN;
            ++odd;
        }
        double dp[6][3], dq[6][3];
        for (int i = 0; i < 18; ++i) dp[i / 3][i % 3] = ra[i], dq[i / 3][i % 3] = rb[i];
        const int want = ck_hulls_meet((const double(*)[3])dp, 6, (const double(*)[3])dq, 6, tol);
        const int got = ck_hulls_meet_rows(ra, rb, tol), plain = ck_hulls_meet_rows_plain(ra, rb, tol);
        differ += got != want || plain != want;
        meet += want;
        { /* two pairs at once (this one and the one before): the two calls' answers */
            const double *a2[2] = {prev_a, ra}, *b2[2] = {prev_b, rb};
            const double t2[2] = {prev_tol, tol};
            int m2[2];
            ck_hulls_meet_rows2(a2, b2, t2, m2);
            differ2 += m2[0] != ck_hulls_meet_rows(prev_a, prev_b, prev_tol) || m2[1] != want;
            memcpy(prev_a, ra, sizeof ra), memcpy(prev_b, rb, sizeof rb), prev_tol = tol;
        }
    }
    printf("hulls from rows: %ld pairs (%ld meet, %ld with bad values): %ld answers differ from ck_hulls_meet's, "
           "%ld two at a time\n", n, meet, odd, differ, differ2);
    CHECK(differ == 0, "ck_hulls_meet_rows: %ld answers differ from ck_hulls_meet", differ);
    CHECK(differ2 == 0, "ck_hulls_meet_rows2: %ld answers differ from two calls", differ2);
    CHECK(meet > n / 10 && meet < n - n / 10, "hulls from rows: %ld of %ld meet, want a mix", meet, n);
}

/* Lane l's answer, certified: 1, 0, or -1 (not decided: the one-pair path). */
static int gjk8_answer(const ck_gjk8 *g, int l, const float *ra, const float *rb, double tol)
{
    if (g->st[l] == G8_MEET) return 1;
    if (g->st[l] == G8_APART) return 0;
    double da[18], db[18]; /* the rows in double (exactly) */
    for (int i = 0; i < 18; ++i) da[i] = ra[i], db[i] = rb[i];
    return ck_hulls_gjk_check_rows(da, db, tol, g, l);
}

/* Lane l of the outputs takes lane (l + 3) % 8 of the inputs: points,
 * tolerances and walk. */
static void carry_permute(float p8[6][3][8], float q8[6][3][8], const float tolf[8], const ck_g8carry *k,
                          float pp[6][3][8], float qq[6][3][8], float tp[8], ck_g8carry *kk)
{
    for (int l = 0; l < 8; ++l) {
        const int m = (l + 3) % 8;
        for (int i = 0; i < 6; ++i)
            for (int c = 0; c < 3; ++c) pp[i][c][l] = p8[i][c][m], qq[i][c][l] = q8[i][c][m];
        tp[l] = tolf[m];
        for (int j = 0; j < 4; ++j) {
            for (int c = 0; c < 3; ++c) kk->s[j][c][l] = k->s[j][c][m];
            kk->ix[j][l] = k->ix[j][m];
        }
        for (int c = 0; c < 3; ++c) kk->d[c][l] = k->d[c][m];
        kk->n[l] = k->n[m];
    }
}

/* The boolean GJK in float lanes (ck_hulls_gjk_f32x8, hull_gjk8.c), walking the
 * hulls and the hulls grown by tol, and its certificates in float and in
 * double (ck_hulls_gjk_check_rows): every certified answer is
 * ck_hulls_meet's, on swept faces that overlap, that lie apart by gaps from
 * 1e-9 to 1 of their size, that face each other across a plane 1e-12 to
 * 1e-6 of their size apart (below float's rounding of the points), that
 * touch on a grid, and rows with a NaN or an infinity; the AVX2 and
 * portable paths steer alike; most meeting pairs are certified, and most of
 * the pairs with a tolerance the first walk leaves (else the lanes would
 * only cost). */
static void test_hulls_gjk8(long n)
{
    long wrong = 0, paths = 0, asked = 0, meet = 0, meet_cert = 0, apart_cert = 0, apart = 0, odd = 0;
    long fl_meet = 0, fl_apart = 0, left = 0, ball_cert = 0, split = 0, carried_cert = 0, carried = 0;
    for (long b = 0; b < n / 8; ++b) {
        float ra[8][18], rb[8][18], p8[6][3][8], q8[6][3][8];
        double tol[8];
        int grid[8];
        for (int l = 0; l < 8; ++l) {
            double p[6][3], q[6][3], c[3];
            const double s = pow(10.0, rng_range(-3, 2));
            const int kind = rng_int(0, 4);
            grid[l] = kind >= 3;
            for (int k = 0; k < 3; ++k) c[k] = rng_range(-100, 100);
            if (kind == 4) { /* face to face across the plane z = c, 1e-12 s to 1e-6 s apart (below float's rounding) */
                const double gap = s * pow(10.0, rng_range(-12, -6));
                for (int i = 0; i < 6; ++i) {
                    for (int k = 0; k < 2; ++k)
                        p[i][k] = c[k] + s * rng_range(-1, 1), q[i][k] = c[k] + s * rng_range(-1, 1);
                    p[i][2] = i < 3 ? c[2] : c[2] - s * rng_range(0, 1);
                    q[i][2] = i < 3 ? c[2] + gap : c[2] + gap + s * rng_range(0, 1);
                }
            } else if (kind == 3) { /* a small grid: shared points, edges and faces */
                for (int i = 0; i < 6; ++i)
                    for (int k = 0; k < 3; ++k)
                        p[i][k] = c[k] + s * rng_int(0, 3) / 4, q[i][k] = c[k] + s * rng_int(0, 3) / 4;
            } else {
                random_float_set(p, 6, c, s);
                for (int k = 0; k < 3; ++k) c[k] += kind == 0 ? s * rng_range(-0.5, 0.5) : 0.0;
                random_float_set(q, 6, c, s);
            }
            if (kind == 1) push_apart((const double(*)[3])p, q, s, -9); /* apart by 1e-9 s to s */
            for (int i = 0; i < 18; ++i) ra[l][i] = (float)p[i / 3][i % 3], rb[l][i] = (float)q[i / 3][i % 3];
            tol[l] = rng_int(0, 2) ? 0.0 : s * pow(10.0, rng_range(-8, -1));
            if ((b * 8 + l) % 97 == 5) { /* a NaN or an infinity */
                const float bad[2] = {NAN, INFINITY};
                (rng_int(0, 1) ? ra[l] : rb[l])[rng_int(0, 17)] = bad[rng_int(0, 1)];
                ++odd;
            }
            for (int i = 0; i < 18; ++i) p8[i / 3][i % 3][l] = ra[l][i], q8[i / 3][i % 3][l] = rb[l][i];
        }
        ck_gjk8 g, gb;
        float tolf[8];
        for (int l = 0; l < 8; ++l) tolf[l] = ck_f32_up(tol[l]);
        ck_hulls_gjk_f32x8((const float(*)[3][8])p8, (const float(*)[3][8])q8, tolf, 0, &g);
        ck_hulls_gjk_f32x8((const float(*)[3][8])p8, (const float(*)[3][8])q8, tolf, 1, &gb);
        for (int isa = 0; isa < 2; ++isa) { /* the portable and AVX2 paths against the one taken */
            ck_gjk8 o, ob;
            ck_hulls_gjk_f32x8_isa(isa, (const float(*)[3][8])p8, (const float(*)[3][8])q8, tolf, 0, &o);
            ck_hulls_gjk_f32x8_isa(isa, (const float(*)[3][8])p8, (const float(*)[3][8])q8, tolf, 1, &ob);
            paths += memcmp(g.st, o.st, sizeof g.st) != 0 || memcmp(g.ix, o.ix, sizeof g.ix) != 0;
            paths += memcmp(gb.st, ob.st, sizeof gb.st) != 0 || memcmp(gb.ix, ob.ix, sizeof gb.ix) != 0 ||
                     memcmp(gb.o, ob.o, sizeof gb.o) != 0;
        }
        /* the walk stopped after K steps and carried on in another lane
         * (lane l takes lane (l + 3) % 8): step for step the same */
        ck_gjk8 gf, gk, gc;
        ck_g8carry kf, kk, kc;
        float pp[6][3][8], qq[6][3][8], tp[8];
        for (int K = 1; K <= 4; K += 3) {
            ck_hulls_gjk_f32x8_carry((const float(*)[3][8])p8, (const float(*)[3][8])q8, tolf, 0, NULL, K, 1, &gf,
                                     &kf);
            carry_permute(p8, q8, tolf, &kf, pp, qq, tp, &kk);
            ck_hulls_gjk_f32x8_carry((const float(*)[3][8])pp, (const float(*)[3][8])qq, tp, 0, &kk, G8_MAXIT - K, 0,
                                     &gk, NULL);
            for (int l = 0; l < 8; ++l) {
                const int m = (l + 3) % 8, more = gf.st[m] == G8_MORE;
                const int8_t st = more ? gk.st[l] : gf.st[m];
                int same = st == g.st[m];
                for (int k = 0; k < 4; ++k) same &= (more ? gk.ix[k][l] : gf.ix[k][m]) == g.ix[k][m];
                split += !same;
            }
        }
        /* the plain walk's ends carried on walking the grown hulls */
        ck_hulls_gjk_f32x8_carry((const float(*)[3][8])p8, (const float(*)[3][8])q8, tolf, 0, NULL, G8_MAXIT, 0, &gf,
                                 &kf);
        carry_permute(p8, q8, tolf, &kf, pp, qq, tp, &kc);
        ck_hulls_gjk_f32x8_carry((const float(*)[3][8])pp, (const float(*)[3][8])qq, tp, 1, &kc, G8_MAXIT, 0, &gc,
                                 NULL);
        for (int l = 0; l < 8; ++l) {
            double dp[6][3], dq[6][3];
            for (int i = 0; i < 18; ++i) dp[i / 3][i % 3] = ra[l][i], dq[i / 3][i % 3] = rb[l][i];
            const int want = ck_hulls_meet((const double(*)[3])dp, 6, (const double(*)[3])dq, 6, tol[l]);
            const int got = gjk8_answer(&g, l, ra[l], rb[l], tol[l]);
            const int lc = (l + 5) % 8; /* the lane that carried lane l on */
            const int gotc = gjk8_answer(&gc, lc, ra[l], rb[l], tol[l]);
            if (gotc >= 0 && gotc != want && ++wrong <= 5)
                fprintf(stderr, "gjk8 carried into the ball: certified %d, ck_hulls_meet says %d (tol %g)\n", gotc,
                        want, tol[l]);
            if (got < 0 && tol[l] > 0 && !grid[l]) ++carried, carried_cert += gotc >= 0;
            fl_meet += g.st[l] == G8_MEET, fl_apart += g.st[l] == G8_APART;
            /* walking the hulls grown by tol: what the first walk left (within tol, mostly) */
            const int gotb = gjk8_answer(&gb, l, ra[l], rb[l], tol[l]);
            if (gotb >= 0 && gotb != want && ++wrong <= 5)
                fprintf(stderr, "gjk8 ball: certified %d, ck_hulls_meet says %d (tol %g)\n", gotb, want, tol[l]);
            if (got < 0 && tol[l] > 0 && !grid[l]) ++left, ball_cert += gotb >= 0;
            ++asked, meet += want, apart += !want;
            if (got >= 0 && got != want && ++wrong <= 5)
                fprintf(stderr, "gjk8: certified %d, ck_hulls_meet says %d (tol %g)\n", got, want, tol[l]);
            meet_cert += want && got == 1, apart_cert += !want && got == 0;
        }
    }
    printf("hulls, boolean GJK in float lanes: %ld pairs (%ld meet, %ld with bad values): certified %ld meeting "
           "(%ld in float) and %ld apart; with tol, walking the grown hulls, %ld of the %ld pairs left (off the grid); "
           "%ld wrong, "
           "%ld batches steered differently by the AVX-512, AVX2 and portable paths; %ld walks ended otherwise "
           "when carried on; walking on into the grown hulls, %ld of the %ld pairs left certified\n",
           asked, meet, odd, meet_cert, fl_meet, apart_cert, ball_cert, left, wrong, paths, split, carried_cert,
           carried);
    CHECK(wrong == 0, "gjk8: %ld certified answers differ from ck_hulls_meet", wrong);
    CHECK(paths == 0, "gjk8: the AVX-512, AVX2 and portable paths steer %ld batches differently", paths);
    CHECK(meet_cert > meet * 7 / 10, "gjk8: certified only %ld of %ld meeting pairs", meet_cert, meet);
    CHECK(apart_cert > apart / 4, "gjk8: certified only %ld of %ld apart pairs", apart_cert, apart);
    CHECK(ball_cert > left / 2, "gjk8 ball: certified only %ld of the %ld pairs with tol left", ball_cert, left);
    CHECK(split == 0, "gjk8: %ld walks stopped and carried on ended otherwise than in one go", split);
    CHECK(carried_cert > carried / 2, "gjk8: walking on into the grown hulls certified only %ld of the %ld pairs left",
          carried_cert, carried);
}

static void test_hull_box(long n)
{
    /* triangles: against the exact tribox reference on grid data */
    long unsound = 0, miss = 0, sep = 0;
    for (long it = 0; it < n; ++it) {
        double v[3][3], lo[3], hi[3];
        gen_tribox_grid(v, lo, hi);
        const int hb = ck_hull_box((const double(*)[3])v, 3, lo, hi, 0.0);
        const int tr = ck_tribox_ref(v[0], v[1], v[2], lo, hi);
        sep += !tr;
        unsound += hb == 0 && tr == 1;
        miss += hb == 1 && tr == 0;
    }
    printf("hull_box/triangles (grid): %ld cases, %ld apart: hull_box said apart for meeting %ld, said meet for "
           "apart %ld (%.3f%%)\n",
           n, sep, unsound, miss, 100.0 * miss / (double)(sep ? sep : 1));
    CHECK(unsound == 0, "hull_box unsound on %ld triangles", unsound);
    CHECK(miss <= sep / 1000, "hull_box missed %ld of %ld separations on exact data", miss, sep);

    /* 2..8-point hulls against boxes, exact oracle */
    long unsound2 = 0, miss2 = 0, sep2 = 0, n2 = n / 4;
    for (long it = 0; it < n2; ++it) {
        const int np = set_sizes[rng_int(1, 7)];
        double p[8][3], lo[3], hi[3], dummy[3][3], bc[8][3];
        gen_set_grid(p, np, 5);
        gen_tribox_grid(dummy, lo, hi);
        const int hb = ck_hull_box((const double(*)[3])p, np, lo, hi, 0.0);
        box_corners(lo, hi, bc);
        i64 pi[8][3], bi[8][3];
        to_i64((const double(*)[3])p, np, pi);
        to_i64((const double(*)[3])bc, 8, bi);
        const int truth = exact_meet((const i64(*)[3])pi, np, (const i64(*)[3])bi, 8);
        sep2 += !truth;
        unsound2 += hb == 0 && truth == 1;
        miss2 += hb == 1 && truth == 0;
    }
    printf("hull_box/hulls (grid): %ld cases, %ld apart: said apart for meeting %ld, said meet for apart %ld (%.3f%%)\n",
           n2, sep2, unsound2, miss2, 100.0 * miss2 / (double)(sep2 ? sep2 : 1));
    CHECK(unsound2 == 0, "hull_box unsound on %ld hulls", unsound2);

    /* floats: triangles vs boxes, agreement with ck_tribox away from touching */
    long fdis = 0, fbad = 0, funsound = 0;
    for (long it = 0; it < n; ++it) {
        double lo[3], hi[3], v[3][3], c[3];
        const double s = pow(10.0, rng_range(-2, 1));
        for (int k = 0; k < 3; ++k) {
            lo[k] = rng_range(-5, 5);
            hi[k] = lo[k] + s * rng_range(0.1, 1);
            c[k] = rng_range(lo[k] - s, hi[k] + s);
        }
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) v[i][k] = c[k] + s * rng_range(-1, 1);
        const int hb = ck_hull_box((const double(*)[3])v, 3, lo, hi, 0.0);
        const int tb = ck_tribox(v[0], v[1], v[2], lo, hi);
        if (hb != tb) {
            ++fdis;
            double bc[8][3];
            box_corners(lo, hi, bc);
            const double sd = signed_sat((const double(*)[3])v, 3, (const double(*)[3])bc, 8);
            if (hb == 0) ++funsound;
            if (fabs(sd) > 1e-9 * s) ++fbad;
        }
    }
    printf("hull_box/triangles (float): %ld cases: %ld differ from ck_tribox (%ld with hull_box saying apart; %ld not "
           "within 1e-9 of touching)\n",
           n, fdis, funsound, fbad);
    CHECK(fbad == 0, "hull_box float: %ld disagreements away from touching", fbad);
}
