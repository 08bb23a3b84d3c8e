/*
 * triangles.h — the triangle/box and triangle/triangle cases of test_kernels
 * (tribox.c, tritri.c) against the exact oracle
 *
 * A part of test_kernels.c, included there once: its functions are static
 * and the whole test is one translation unit, so check.h's counters and
 * the random stream (rng.h) are shared by every case.  Uses the oracle of
 * oracle.h where it says so.
 */
/* ============================================================================
 * triangle / box
 * ========================================================================= */

/* weak separation (<=) on the 13 axes: the closed triangle misses the open box */
static int tribox_misses_open(const double *const v[3], const double lo[3], const double hi[3])
{
    double E[6][3] = {{0}}, d[3];
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) E[i][k] = v[(i + 1) % 3][k] - v[i][k];
    E[3][0] = E[4][1] = E[5][2] = 1;
    double ax[13][3];
    int na = 0;
    for (int k = 3; k < 6; ++k) memcpy(ax[na++], E[k], sizeof d);
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 6; ++j) {
            if (j < 3 && !(i == 0 && j == 1)) continue;
            d[0] = E[i][1] * E[j][2] - E[i][2] * E[j][1];
            d[1] = E[i][2] * E[j][0] - E[i][0] * E[j][2];
            d[2] = E[i][0] * E[j][1] - E[i][1] * E[j][0];
            memcpy(ax[na++], d, sizeof d);
        }
    for (int a = 0; a < na; ++a) {
        const double *x = ax[a];
        if (x[0] == 0 && x[1] == 0 && x[2] == 0) continue;
        double tmin = INFINITY, tmax = -INFINITY, bmin = 0, bmax = 0;
        for (int i = 0; i < 3; ++i) {
            const double t = x[0] * v[i][0] + x[1] * v[i][1] + x[2] * v[i][2];
            tmin = fmin(tmin, t), tmax = fmax(tmax, t);
        }
        for (int k = 0; k < 3; ++k) {
            bmin += x[k] > 0 ? x[k] * lo[k] : x[k] * hi[k];
            bmax += x[k] > 0 ? x[k] * hi[k] : x[k] * lo[k];
        }
        if (tmax <= bmin || tmin >= bmax) return 1;
    }
    return 0;
}

/* a random integer grid triangle / box case */
static void gen_tribox_grid(double v[3][3], double lo[3], double hi[3])
{
    const int G = 5;
    for (int k = 0; k < 3; ++k) {
        int a = rng_int(-G, G), b = rng_int(-G, G);
        if (rng_int(0, 19) == 0) b = a; /* flat box now and then */
        lo[k] = a < b ? a : b, hi[k] = a < b ? b : a;
    }
    const int mode = rng_int(0, 9);
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) v[i][k] = rng_int(-G - 2, G + 2);
    if (mode == 1 || mode == 2) { /* vertices on box faces */
        for (int i = 0; i < 3; ++i)
            if (rng_int(0, 1)) {
                const int k = rng_int(0, 2);
                v[i][k] = rng_int(0, 1) ? lo[k] : hi[k];
            }
    } else if (mode == 3) { /* degenerate: collinear */
        const int s = rng_int(-2, 2);
        for (int k = 0; k < 3; ++k) v[2][k] = v[0][k] + s * (v[1][k] - v[0][k]);
    } else if (mode == 4) { /* degenerate: repeated vertex or point */
        memcpy(v[1], v[0], sizeof v[0]);
        if (rng_int(0, 1)) memcpy(v[2], v[0], sizeof v[0]);
    } else if (mode == 5) { /* triangle in a face plane of the box */
        const int k = rng_int(0, 2);
        const double c = rng_int(0, 1) ? lo[k] : hi[k];
        for (int i = 0; i < 3; ++i) v[i][k] = c;
    } else if (mode == 6) { /* all vertices outside one face, touching it */
        const int k = rng_int(0, 2);
        for (int i = 0; i < 3; ++i) v[i][k] = hi[k] + rng_int(0, 2);
        v[rng_int(0, 2)][k] = hi[k];
    } else if (mode == 7) { /* small triangles near the box boundary */
        for (int k = 0; k < 3; ++k) v[0][k] = rng_int(0, 1) ? lo[k] + rng_int(-1, 1) : hi[k] + rng_int(-1, 1);
        for (int i = 1; i < 3; ++i)
            for (int k = 0; k < 3; ++k) v[i][k] = v[0][k] + rng_int(-2, 2);
    }
}

static void test_tribox(long n)
{
    /* fixed cases */
    {
        const double lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        const double a[3] = {2, 0, 0}, b[3] = {0, 2, 0}, c[3] = {0, 0, 2}; /* plane x+y+z=2 cuts the box */
        CHECK(ck_tribox(a, b, c, lo, hi) == 1 && ck_tribox_ref(a, b, c, lo, hi) == 1, "plane x+y+z=2");
        const double a2[3] = {3, 0, 0}, b2[3] = {0, 3, 0}, c2[3] = {0, 0, 3}; /* touches the corner (1,1,1) */
        CHECK(ck_tribox(a2, b2, c2, lo, hi) == 1 && ck_tribox_ref(a2, b2, c2, lo, hi) == 1, "corner touch");
        const double a3[3] = {3.5, 0, 0}, b3[3] = {0, 3.5, 0}, c3[3] = {0, 0, 3.5};
        CHECK(ck_tribox(a3, b3, c3, lo, hi) == 0 && ck_tribox_ref(a3, b3, c3, lo, hi) == 0, "corner miss");
        const double a4[3] = {-1, 0.5, 0.5}, b4[3] = {2, 0.5, 0.5}, c4[3] = {2, 0.5, 0.5}; /* segment through */
        CHECK(ck_tribox(a4, b4, c4, lo, hi) == 1 && ck_tribox_ref(a4, b4, c4, lo, hi) == 1, "segment through");
        const double a5[3] = {-1, 2, 0.5}, b5[3] = {2, -1, 0.5}, c5[3] = {5, -4, 0.5}; /* collinear, touches edge at (1,0)? */
        CHECK(ck_tribox(a5, b5, c5, lo, hi) == 1 && ck_tribox_ref(a5, b5, c5, lo, hi) == 1, "collinear through");
        const double a6[3] = {-1, 3, 0.5}, b6[3] = {3, -1, 0.5}, c6[3] = {3, -1, 0.5}; /* x+y=2 touches (1,1) */
        CHECK(ck_tribox(a6, b6, c6, lo, hi) == 1 && ck_tribox_ref(a6, b6, c6, lo, hi) == 1, "segment touches edge");
        const double a7[3] = {-1, 3.25, 0.5}, b7[3] = {3.25, -1, 0.5}, c7[3] = {3.25, -1, 0.5};
        CHECK(ck_tribox(a7, b7, c7, lo, hi) == 0 && ck_tribox_ref(a7, b7, c7, lo, hi) == 0, "segment misses edge");
        /* big triangle enclosing the box's cross-section: no vertex inside, no edge crossing a face */
        const double a8[3] = {-10, -10, 0.5}, b8[3] = {10, -10, 0.5}, c8[3] = {0, 10, 0.5};
        CHECK(ck_tribox(a8, b8, c8, lo, hi) == 1 && ck_tribox_ref(a8, b8, c8, lo, hi) == 1, "big triangle");
        const double a9[3] = {-10, -10, 1}, b9[3] = {10, -10, 1}, c9[3] = {0, 10, 1}; /* on top face */
        CHECK(ck_tribox(a9, b9, c9, lo, hi) == 1 && ck_tribox_ref(a9, b9, c9, lo, hi) == 1, "big triangle on top");
        const double a10[3] = {-10, -10, 1.5}, b10[3] = {10, -10, 1.5}, c10[3] = {0, 10, 1.5};
        CHECK(ck_tribox(a10, b10, c10, lo, hi) == 0 && ck_tribox_ref(a10, b10, c10, lo, hi) == 0, "big triangle above");
    }

    /* grid cases: exact; oracle on a subset */
    const long ngrid = n / 2, nfloat = n - n / 2;
    long dis = 0, touching = 0, pos = 0, deg = 0, flat = 0, oracle_n = 0, oracle_bad = 0;
    for (long it = 0; it < ngrid; ++it) {
        double v[3][3], lo[3], hi[3];
        gen_tribox_grid(v, lo, hi);
        const int f = ck_tribox(v[0], v[1], v[2], lo, hi), r = ck_tribox_ref(v[0], v[1], v[2], lo, hi);
        const double *vp[3] = {v[0], v[1], v[2]};
        double e1[3], e2[3];
        for (int k = 0; k < 3; ++k) e1[k] = v[1][k] - v[0][k], e2[k] = v[2][k] - v[0][k];
        const int isdeg = e1[1] * e2[2] - e1[2] * e2[1] == 0 && e1[2] * e2[0] - e1[0] * e2[2] == 0 &&
                          e1[0] * e2[1] - e1[1] * e2[0] == 0;
        const int isflat = !(lo[0] < hi[0] && lo[1] < hi[1] && lo[2] < hi[2]);
        deg += isdeg, flat += isflat, pos += r;
        if (f != r) {
            ++dis;
            if (dis <= 5)
                fprintf(stderr, "tribox grid mismatch fast=%d ref=%d: (%g %g %g) (%g %g %g) (%g %g %g) box (%g %g %g)-(%g %g %g)\n",
                        f, r, v[0][0], v[0][1], v[0][2], v[1][0], v[1][1], v[1][2], v[2][0], v[2][1], v[2][2],
                        lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
        }
        if (!isflat && r && tribox_misses_open(vp, lo, hi)) {
            ++touching;
            CHECK(f == 1 && r == 1, "exact touching case must meet");
        }
        if (it % 20 == 0) {
            double bc[8][3];
            i64 ti[3][3], bi[8][3];
            box_corners(lo, hi, bc);
            to_i64((const double(*)[3])v, 3, ti);
            to_i64((const double(*)[3])bc, 8, bi);
            const int truth = exact_meet((const i64(*)[3])ti, 3, (const i64(*)[3])bi, 8);
            ++oracle_n;
            if (truth != r || truth != f) ++oracle_bad;
        }
    }
    printf("tribox grid:  %ld cases (%ld meet, %ld exactly touching, %ld degenerate triangles, %ld flat boxes): "
           "%ld fast/ref disagreements; exact oracle on %ld of them: %ld wrong\n",
           ngrid, pos, touching, deg, flat, dis, oracle_n, oracle_bad);
    CHECK(dis == 0, "tribox grid: %ld disagreements", dis);
    CHECK(oracle_bad == 0, "tribox grid: %ld oracle mismatches", oracle_bad);
    CHECK(touching > ngrid / 100, "tribox grid: too few touching cases (%ld)", touching);

    /* float cases: varied sizes, near touching by construction */
    long fdis = 0, fpos = 0, fnear_bad = 0;
    double worst = 0;
    for (long it = 0; it < nfloat; ++it) {
        double lo[3], hi[3], v[3][3];
        const double scale = pow(10.0, rng_range(-3, 2));
        const double off = rng_range(-100, 100);
        for (int k = 0; k < 3; ++k) {
            lo[k] = off + scale * rng_range(-1, 1);
            hi[k] = lo[k] + scale * pow(10.0, rng_range(-2, 0.5));
        }
        const double ts = scale * pow(10.0, rng_range(-2, 1));
        double c[3];
        for (int k = 0; k < 3; ++k) c[k] = rng_range(lo[k] - ts, hi[k] + ts);
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) v[i][k] = c[k] + ts * rng_range(-1, 1);
        const int mode = rng_int(0, 5);
        if (mode == 1) { /* a vertex exactly on a face value */
            const int k = rng_int(0, 2);
            v[rng_int(0, 2)][k] = rng_int(0, 1) ? lo[k] : hi[k];
        } else if (mode == 2) { /* shift so that the triangle's min along k is hi[k] (rounded) */
            const int k = rng_int(0, 2);
            const double mn = fmin(v[0][k], fmin(v[1][k], v[2][k]));
            for (int i = 0; i < 3; ++i) v[i][k] += hi[k] - mn;
        } else if (mode == 3) { /* degenerate: collinear in floats (approximately) */
            const double t = rng_range(-2, 2);
            for (int k = 0; k < 3; ++k) v[2][k] = v[0][k] + t * (v[1][k] - v[0][k]);
        } else if (mode == 4) { /* the plane through a box corner: v2 chosen on the plane of v0, v1, corner */
            double corner[3] = {rng_int(0, 1) ? lo[0] : hi[0], rng_int(0, 1) ? lo[1] : hi[1],
                                rng_int(0, 1) ? lo[2] : hi[2]};
            const double s = rng_range(-1, 2), t = rng_range(-1, 2);
            for (int k = 0; k < 3; ++k) v[2][k] = v[0][k] + s * (v[1][k] - v[0][k]) + t * (corner[k] - v[0][k]);
        }
        const int f = ck_tribox(v[0], v[1], v[2], lo, hi), r = ck_tribox_ref(v[0], v[1], v[2], lo, hi);
        fpos += r;
        if (f != r) {
            ++fdis;
            double bc[8][3];
            box_corners(lo, hi, bc);
            const double s = signed_sat((const double(*)[3])v, 3, (const double(*)[3])bc, 8);
            double mag = 0;
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k) mag = fmax(mag, fabs(v[i][k]));
            for (int k = 0; k < 3; ++k) mag = fmax(mag, fmax(fabs(lo[k]), fabs(hi[k])));
            const double rel = fabs(s) / mag;
            worst = fmax(worst, rel);
            if (!(rel <= 1e-12)) {
                ++fnear_bad;
                if (fnear_bad <= 5) fprintf(stderr, "tribox float disagreement not near touching: rel %g\n", rel);
            }
        }
    }
    printf("tribox float: %ld cases (%ld meet): %ld fast/ref disagreements, all within %.2e (relative) of touching\n",
           nfloat, fpos, fdis, worst);
    CHECK(fnear_bad == 0, "tribox float: %ld disagreements not near touching", fnear_bad);
}

/* ============================================================================
 * triangle / triangle
 * ========================================================================= */

static int tt_both(const double a[3][3], const double b[3][3], int *f, int *r)
{
    *f = ck_tritri(a[0], a[1], a[2], b[0], b[1], b[2]);
    *r = ck_tritri_ref(a[0], a[1], a[2], b[0], b[1], b[2]);
    /* symmetric and permuted calls must agree too */
    const int f2 = ck_tritri(b[1], b[2], b[0], a[2], a[1], a[0]);
    const int r2 = ck_tritri_ref(b[0], b[2], b[1], a[1], a[2], a[0]);
    return *f == f2 && *r == r2;
}

static void tt_case(const char *name, const double a[3][3], const double b[3][3], int expect)
{
    int f, r;
    const int sym = tt_both(a, b, &f, &r);
    CHECK(f == expect && r == expect && sym, "tritri %s: fast %d ref %d expected %d", name, f, r, expect);
}

/* a random grid triangle pair, many of them degenerate or touching */
static void gen_tritri_grid(double a[3][3], double b[3][3])
{
    const int G = rng_int(0, 1) ? 2 : 4;
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) a[i][k] = rng_int(-G, G), b[i][k] = rng_int(-G, G);
    const int mode = rng_int(0, 11);
    if (mode == 1) { /* coplanar: both in a coordinate plane */
        const int k = rng_int(0, 2);
        const int c = rng_int(-1, 1);
        for (int i = 0; i < 3; ++i) a[i][k] = c, b[i][k] = c;
    } else if (mode == 2) { /* coplanar: both in the plane x + y + z = c (third coordinate solved) */
        const int c = rng_int(-2, 2);
        for (int i = 0; i < 3; ++i) a[i][2] = c - a[i][0] - a[i][1], b[i][2] = c - b[i][0] - b[i][1];
    } else if (mode == 3) { /* shared vertex */
        memcpy(b[rng_int(0, 2)], a[rng_int(0, 2)], sizeof a[0]);
    } else if (mode == 4) { /* shared edge line: b0 on a's edge, b1 on its extension */
        const int s = rng_int(-1, 2);
        for (int k = 0; k < 3; ++k) b[0][k] = a[0][k] + s * (a[1][k] - a[0][k]);
    } else if (mode == 5) { /* A degenerate (collinear or repeated) */
        const int s = rng_int(-1, 2);
        for (int k = 0; k < 3; ++k) a[2][k] = a[0][k] + s * (a[1][k] - a[0][k]);
    } else if (mode == 6) { /* both degenerate */
        const int s = rng_int(-1, 2), t = rng_int(-1, 2);
        for (int k = 0; k < 3; ++k) a[2][k] = a[0][k] + s * (a[1][k] - a[0][k]);
        for (int k = 0; k < 3; ++k) b[2][k] = b[0][k] + t * (b[1][k] - b[0][k]);
        if (rng_int(0, 3) == 0)
            for (int k = 0; k < 3; ++k) b[1][k] = a[1][k] + t * (a[1][k] - a[0][k]); /* collinear-ish */
    } else if (mode == 7) { /* B = A translated by a small vector (often touching / parallel) */
        const int dx = rng_int(-1, 1), dy = rng_int(-1, 1), dz = rng_int(-1, 1);
        for (int i = 0; i < 3; ++i) b[i][0] = a[i][0] + dx, b[i][1] = a[i][1] + dy, b[i][2] = a[i][2] + dz;
    } else if (mode == 8) { /* a vertex of B on the plane of A: b0 = a0 + s e1 + t e2 */
        const int s = rng_int(-1, 2), t = rng_int(-1, 2);
        for (int k = 0; k < 3; ++k) b[0][k] = a[0][k] + s * (a[1][k] - a[0][k]) + t * (a[2][k] - a[0][k]);
    } else if (mode == 9) { /* all of B on one side of A's plane, touching it */
        const int k = rng_int(0, 2);
        for (int i = 0; i < 3; ++i) a[i][k] = 0, b[i][k] = rng_int(0, 2);
        b[rng_int(0, 2)][k] = 0;
    }
}

static void test_tritri(long n)
{
    /* specific cases */
    {
        const double A[3][3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
        const double B1[3][3] = {{1, 1, 0}, {5, 1, 0}, {1, 5, 0}};
        tt_case("coplanar overlapping", A, B1, 1);
        const double B2[3][3] = {{4, 0, 0}, {6, 0, 0}, {5, 2, 0}};
        tt_case("coplanar touching at a vertex", A, B2, 1);
        const double B3[3][3] = {{5, 0, 0}, {7, 0, 0}, {6, 2, 0}};
        tt_case("coplanar disjoint", A, B3, 0);
        const double B3b[3][3] = {{3, 3, 0}, {6, 0, 0}, {6, 6, 0}}; /* vertex on the hypotenuse? (3,3): x+y=6 > 4 */
        tt_case("coplanar disjoint near hypotenuse", A, B3b, 0);
        const double B3c[3][3] = {{2, 2, 0}, {6, 0, 0}, {6, 6, 0}}; /* (2,2) is on the hypotenuse x+y=4 */
        tt_case("coplanar vertex on edge", A, B3c, 1);
        const double B3d[3][3] = {{-1, -1, 0}, {6, -1, 0}, {-1, 6, 0}}; /* contains A */
        tt_case("coplanar containing", A, B3d, 1);
        const double B4[3][3] = {{2, -1, 1}, {2, 1, -1}, {2, 3, 5}}; /* edge of B crosses edge of A? */
        int f, r;
        tt_both(A, B4, &f, &r);
        CHECK(f == r, "tritri crossing: fast %d ref %d", f, r);
        const double B5[3][3] = {{1, 1, 0}, {1, 1, 3}, {3, 3, 3}}; /* vertex (1,1,0) on face of A */
        tt_case("vertex on face", A, B5, 1);
        const double B6[3][3] = {{2, 0, 0}, {2, -3, 3}, {2, 3, 3}}; /* vertex (2,0,0) on edge of A, B above */
        tt_case("vertex on edge", A, B6, 1);
        const double B7[3][3] = {{2, -1, 0}, {2, 1, 0}, {2, 0, 3}}; /* edge crossing A's edge y=0 at (2,0,0) */
        tt_case("edge through edge", A, B7, 1);
        /* B meets the plane z = 0 in the segment (2,0,0)-(2,-2,0): only its end touches A's edge */
        const double B8[3][3] = {{2, -1, 1}, {2, 1, -1}, {2, -3, -1}};
        tt_case("edge-edge touching", A, B8, 1);
        const double B8b[3][3] = {{2, -1, 1}, {2, 1, -1}, {3, -2, 0}}; /* z = 0 cut (2,0,0)-(3,-2,0) */
        tt_case("edge-edge touching, skew", A, B8b, 1);
        const double B8c[3][3] = {{2, -1, 1}, {2, 1, -1}, {3, -2, 0}};
        double B8d[3][3];
        for (int i = 0; i < 3; ++i) B8d[i][0] = B8c[i][0], B8d[i][1] = B8c[i][1] - 0.25, B8d[i][2] = B8c[i][2];
        tt_case("edge-edge just apart", A, (const double(*)[3])B8d, 0);
        const double B9[3][3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}};
        tt_case("identical", A, B9, 1);
        const double B10[3][3] = {{0, 0, 1}, {4, 0, 1}, {0, 4, 1}};
        tt_case("disjoint parallel", A, B10, 0);
        const double B11[3][3] = {{1, 1, -1}, {1, 1, 1}, {1, 1, 3}}; /* segment crossing A */
        tt_case("degenerate segment crossing", A, B11, 1);
        const double B12[3][3] = {{3, 3, -1}, {3, 3, 1}, {3, 3, 1}}; /* segment missing A (x+y=6>4) */
        tt_case("degenerate segment missing", A, B12, 0);
        const double B13[3][3] = {{1, 1, 0}, {1, 1, 0}, {1, 1, 0}}; /* point inside A */
        tt_case("point in triangle", A, B13, 1);
        const double B14[3][3] = {{-1, 2, 0}, {5, 2, 0}, {2, 2, 0}}; /* coplanar segment across */
        tt_case("coplanar segment across", A, B14, 1);
        const double S1[3][3] = {{0, 0, 0}, {2, 2, 0}, {4, 4, 0}};
        const double S2[3][3] = {{0, 4, 0}, {4, 0, 0}, {2, 2, 0}};
        tt_case("two segments crossing", S1, S2, 1);
        const double S3[3][3] = {{0, 4, 1}, {4, 0, 1}, {2, 2, 1}};
        tt_case("two segments skew", S1, S3, 0);
        const double S4[3][3] = {{5, 5, 0}, {6, 6, 0}, {5, 5, 0}};
        tt_case("collinear segments apart", S1, S4, 0);
        const double S5[3][3] = {{4, 4, 0}, {6, 6, 0}, {5, 5, 0}};
        tt_case("collinear segments touching", S1, S5, 1);
    }

    /* grid: exact, all three must agree with the oracle */
    long pos = 0, bad = 0, asym = 0;
    for (long it = 0; it < n; ++it) {
        double a[3][3], b[3][3];
        gen_tritri_grid(a, b);
        int f, r;
        if (!tt_both((const double(*)[3])a, (const double(*)[3])b, &f, &r)) ++asym;
        i64 ai[3][3], bi[3][3];
        to_i64((const double(*)[3])a, 3, ai);
        to_i64((const double(*)[3])b, 3, bi);
        const int truth = exact_meet((const i64(*)[3])ai, 3, (const i64(*)[3])bi, 3);
        pos += truth;
        if (f != truth || r != truth) {
            ++bad;
            if (bad <= 5)
                fprintf(stderr,
                        "tritri grid: truth %d fast %d ref %d: A (%g %g %g)(%g %g %g)(%g %g %g) B (%g %g %g)(%g %g "
                        "%g)(%g %g %g)\n",
                        truth, f, r, a[0][0], a[0][1], a[0][2], a[1][0], a[1][1], a[1][2], a[2][0], a[2][1], a[2][2],
                        b[0][0], b[0][1], b[0][2], b[1][0], b[1][1], b[1][2], b[2][0], b[2][1], b[2][2]);
        }
    }
    printf("tritri grid:  %ld pairs (%ld meet): %ld wrong against the exact oracle, %ld permutation asymmetries\n", n,
           pos, bad, asym);
    CHECK(bad == 0 && asym == 0, "tritri grid: %ld wrong, %ld asymmetric", bad, asym);

    /* sheared grid: x -> S x + o with an integer matrix S of entries ~2^26
     * (det != 0) keeps every coordinate exact in double and every answer
     * unchanged (intersection is affine-invariant), but the determinants are
     * no longer exact in double: this drives the exact-expansion fallback of
     * the orientation predicates with non-zero rounding terms. */
    static const double S[3][3] = {{67108865.0, 3, -7}, {5, 33554429.0, 11}, {-2, 9, 16777221.0}};
    static const double o[3] = {0.5, -0.25, 0.125};
    long sbad = 0, spos = 0;
    const long ns = n / 2;
    for (long it = 0; it < ns; ++it) {
        double a[3][3], b[3][3], sa[3][3], sb[3][3];
        gen_tritri_grid(a, b);
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) {
                sa[i][k] = o[k] + S[k][0] * a[i][0] + S[k][1] * a[i][1] + S[k][2] * a[i][2];
                sb[i][k] = o[k] + S[k][0] * b[i][0] + S[k][1] * b[i][1] + S[k][2] * b[i][2];
            }
        i64 ai[3][3], bi[3][3];
        to_i64((const double(*)[3])a, 3, ai);
        to_i64((const double(*)[3])b, 3, bi);
        const int truth = exact_meet((const i64(*)[3])ai, 3, (const i64(*)[3])bi, 3);
        const int f = ck_tritri(sa[0], sa[1], sa[2], sb[0], sb[1], sb[2]);
        const int f2 = ck_tritri(sb[2], sb[0], sb[1], sa[1], sa[0], sa[2]);
        spos += truth;
        if (f != truth || f2 != truth) ++sbad;
    }
    printf("tritri sheared grid: %ld pairs (%ld meet; coordinates up to 2^29, determinants not exact in double): "
           "%ld wrong against the exact oracle\n",
           ns, spos, sbad);
    CHECK(sbad == 0, "tritri sheared grid: %ld wrong", sbad);

    /* floats */
    const long nf = n / 2;
    long fdis = 0, fpos = 0, fbad = 0, fdis_mode[4] = {0}, n_mode[4] = {0};
    double worst = 0;
    for (long it = 0; it < nf; ++it) {
        double a[3][3], b[3][3];
        const double scale = pow(10.0, rng_range(-3, 2)), off = rng_range(-50, 50);
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) a[i][k] = off + scale * rng_range(-1, 1), b[i][k] = off + scale * rng_range(-1, 1);
        const int mode = rng_int(0, 3);
        if (mode == 1) { /* B's vertex on A's plane (rounded) */
            const double s = rng_range(-0.5, 1.5), t = rng_range(-0.5, 1.5);
            for (int k = 0; k < 3; ++k) b[0][k] = a[0][k] + s * (a[1][k] - a[0][k]) + t * (a[2][k] - a[0][k]);
        } else if (mode == 2) { /* nearly coplanar */
            for (int i = 0; i < 3; ++i) {
                const double s = rng_range(-0.5, 1.5), t = rng_range(-0.5, 1.5);
                for (int k = 0; k < 3; ++k) b[i][k] = a[0][k] + s * (a[1][k] - a[0][k]) + t * (a[2][k] - a[0][k]);
            }
        } else if (mode == 3) { /* shared vertex */
            memcpy(b[0], a[rng_int(0, 2)], sizeof a[0]);
        }
        int f, r;
        tt_both((const double(*)[3])a, (const double(*)[3])b, &f, &r);
        fpos += r;
        ++n_mode[mode];
        if (f != r) {
            ++fdis;
            ++fdis_mode[mode];
            const double s = signed_sat((const double(*)[3])a, 3, (const double(*)[3])b, 3);
            double mag = 0;
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k) mag = fmax(mag, fmax(fabs(a[i][k]), fabs(b[i][k])));
            const double rel = fabs(s) / mag;
            worst = fmax(worst, rel);
            if (!(rel <= 1e-12)) {
                ++fbad;
                if (fbad <= 5) fprintf(stderr, "tritri float disagreement not near touching: rel %g\n", rel);
            }
        }
    }
    printf("tritri float: %ld pairs (%ld meet): %ld fast/ref disagreements, all within %.2e (relative) of touching\n"
           "              by construction: random %ld/%ld, B vertex on A's plane %ld/%ld, B in A's plane (rounded) "
           "%ld/%ld, shared vertex %ld/%ld\n",
           nf, fpos, fdis, worst, fdis_mode[0], n_mode[0], fdis_mode[1], n_mode[1], fdis_mode[2], n_mode[2],
           fdis_mode[3], n_mode[3]);
    CHECK(fbad == 0, "tritri float: %ld disagreements not near touching", fbad);
}
