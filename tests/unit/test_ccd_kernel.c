/*
 * test_ccd_kernel.c — the CCD kernel (kernels/ccd.c, kernels/ccd_filter.c)
 * against ground truth and closed-form first contacts.
 *
 * 1. Every query of ../shared/data/ccd-queries (Wang et al., TOG 2021), read
 *    with the shared reader (src/io/ccd_csv.c): zero false negatives, asserted
 *    per set and kind, for ck_ccd and for the reference search
 *    ck_ccd_exact_ref (with how often the two disagree on the hit, or on the
 *    toi by more than the tolerance); false positives printed per set (bench/RESULTS.md
 *    keeps them beside the swept-hull test's, from test_ccd_queries).
 *    ck_ccd_batch must give what ck_ccd gives, query by query, bit for bit
 *    (toi included), and the AVX2 filter what the portable one decides.
 *    Skipped with a message when the data is missing.
 * 2. Generated cases whose first contact is known in closed form (a vertex
 *    falling onto a face, two edges crossing, a grazing pass at distance d
 *    with min_sep just above and below d, a vertex reaching distance d of a
 *    face), at random positions, scales and times: a hit with toi within
 *    the tolerance of the truth and never later; or no hit; the same for
 *    the reference search.
 * 3. Degenerate cases: zero-length edges, zero-area faces, parallel and
 *    coplanar edges, a vertex on the face at t = 0 (toi 0), bad options.
 * 4. Random queries (NaN and infinities among them): the AVX2 filter decides
 *    as the portable one, ck_ccd_batch answers as ck_ccd, bit for bit, and
 *    the reference search finds no contact where ck_ccd says none.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "io/ccd_csv.h"
#include "kernels/ccd.h"

/* ---- 1. the benchmark ------------------------------------------------------ */

typedef struct {
    long queries, pos, fn, fp, filtered, batch_diff, filter_diff, inexact, ref_fn, ref_fp, ref_diff, toi_diff;
} tally;

static void run_file(const char *path, int kind, tally *r)
{
    clash_ccd_query_file q;
    clash_error err = {0};
    const int rc = clash_ccd_read(path, &q, &err);
    CHECK(rc == 0, "%s", err.msg);
    if (rc) return;
    const ck_ccd_opts o = ck_ccd_defaults();
    uint8_t *hit = malloc((size_t)q.n + 1), *keep = malloc((size_t)q.n + 1), *keep_ref = malloc((size_t)q.n + 1);
    double *toi = malloc(((size_t)q.n + 1) * sizeof *toi);
    ck_ccd_counts cb = {0}, cs = {0};
    ck_ccd_batch(kind, q.n, (const double(*)[4][3])q.x0, (const double(*)[4][3])q.x1, &o, hit, toi, &cb);
    ck_ccd_filter(kind, q.n, (const double(*)[4][3])q.x0, (const double(*)[4][3])q.x1, 0.0, keep);
    ck_ccd_filter_ref(kind, q.n, (const double(*)[4][3])q.x0, (const double(*)[4][3])q.x1, 0.0, keep_ref);
    for (int64_t i = 0; i < q.n; ++i) {
        double t1;
        const int h = ck_ccd(kind, (const double(*)[3])q.x0[i], (const double(*)[3])q.x1[i], &o, &t1, &cs);
        const int truth = q.truth[i];
        r->queries++;
        r->pos += truth == 1;
        r->fn += truth == 1 && !h;
        r->fp += truth == 0 && h;
        r->filtered += !keep[i];
        r->batch_diff += h != hit[i] || memcmp(&t1, &toi[i], sizeof t1) != 0;
        r->filter_diff += keep[i] != keep_ref[i];
        if (truth == 1 && !h) fprintf(stderr, "%s: query %lld: false negative\n", path, (long long)i);
        /* the reference search, without the filter */
        double t2;
        const int g = ck_ccd_exact_ref(kind, (const double(*)[3])q.x0[i], (const double(*)[3])q.x1[i], &o, &t2, NULL);
        r->ref_fn += truth == 1 && !g;
        r->ref_fp += truth == 0 && g;
        r->ref_diff += g != h;
        r->toi_diff += g && h && fabs(t2 - t1) > o.tolerance;
    }
    r->inexact += q.inexact;
    CHECK(cb.tests == cs.tests && cb.hits == cs.hits && cb.filter_no == cs.filter_no &&
              cb.exact_calls == cs.exact_calls,
          "%s: batch counts differ from single-query counts", path);
    CHECK(cb.tests == q.n && cb.filter_no + cb.exact_calls == cb.tests, "%s: counts do not add up", path);
    free(hit), free(keep), free(keep_ref), free(toi);
    clash_ccd_free(&q);
}

static int test_benchmark(void)
{
    const char *data = check_data_dir();
    if (!data) {
        printf("SKIP part 1: ../shared/data missing: no ccd-queries to test against\n");
        return 0;
    }
    char root[1024];
    snprintf(root, sizeof root, "%s/ccd-queries", data);
    char *sets[64];
    const int nsets = clash_ccd_list_dir(root, sets, 64);
    if (nsets == 0) {
        printf("SKIP part 1: ../shared/data/ccd-queries missing\n");
        return 0;
    }
    printf("ccd-queries: ck_ccd (tolerance 1e-6, min_sep 0) against the ground truth\n");
    printf("%-28s %-12s %7s %5s %4s %5s %8s %8s | %5s %5s %6s %6s\n", "set", "kind", "queries", "pos", "FN", "FP",
           "FP rate", "filtered", "refFN", "refFP", "differ", "toi>tol");
    tally all = {0};
    int files = 0;
    for (int i = 0; i < nsets; ++i) {
        static const char *kinds[2] = {"vertex-face", "edge-edge"};
        for (int k = 0; k < 2; ++k) {
            char *f[64];
            const int nf = clash_ccd_kind_files(root, sets[i], k, f, 64);
            tally r = {0};
            for (int j = 0; j < nf; ++j) {
                run_file(f[j], k == 0 ? CK_CCD_VF : CK_CCD_EE, &r);
                ++files;
                free(f[j]);
            }
            if (!r.queries) continue;
            const long neg = r.queries - r.pos;
            printf("%-28s %-12s %7ld %5ld %4ld %5ld %7.1f%% %8ld | %5ld %5ld %6ld %6ld\n", sets[i], kinds[k], r.queries,
                   r.pos, r.fn, r.fp, neg ? 100.0 * (double)r.fp / (double)neg : 0.0, r.filtered, r.ref_fn, r.ref_fp,
                   r.ref_diff, r.toi_diff);
            CHECK(r.fn == 0, "%s/%s: %ld false negatives", sets[i], kinds[k], r.fn);
            CHECK(r.ref_fn == 0, "%s/%s: %ld false negatives (reference search)", sets[i], kinds[k], r.ref_fn);
            CHECK(r.batch_diff == 0, "%s/%s: ck_ccd_batch differs from ck_ccd on %ld queries", sets[i], kinds[k],
                  r.batch_diff);
            CHECK(r.filter_diff == 0, "%s/%s: AVX2 and portable filters differ on %ld queries", sets[i], kinds[k],
                  r.filter_diff);
            all.queries += r.queries, all.pos += r.pos, all.fn += r.fn, all.fp += r.fp, all.filtered += r.filtered;
            all.inexact += r.inexact;
        }
        free(sets[i]);
    }
    printf("%-28s %-12s %7ld %5ld %4ld %5ld %7.1f%% %8ld\n", "all", "", all.queries, all.pos, all.fn, all.fp,
           all.queries > all.pos ? 100.0 * (double)all.fp / (double)(all.queries - all.pos) : 0.0, all.filtered);
    printf("coordinates not exact in double: %ld\n", all.inexact);
    CHECK(files > 0 && all.queries > 0, "no queries under %s", root);
    CHECK(all.inexact == 0, "%ld coordinates not exact", all.inexact);
    return 0;
}


/* ---- 2. closed-form first contacts ------------------------------------------ */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static double rnd(void) /* uniform in [0, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}
static double rnd_in(double a, double b) { return a + (b - a) * rnd(); }

static void unit_vec(double r[3])
{
    double n;
    do {
        for (int k = 0; k < 3; ++k) r[k] = rnd_in(-1, 1);
        n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    } while (n < 0.2 || n > 1);
    for (int k = 0; k < 3; ++k) r[k] /= n;
}
static void cross(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1], r[1] = a[2] * b[0] - a[0] * b[2], r[2] = a[0] * b[1] - a[1] * b[0];
}
static void normalize(double r[3])
{
    const double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    for (int k = 0; k < 3; ++k) r[k] /= n;
}

/* One query's verdict against the truth: a hit with toi in [lo - tol, hi]
 * (hi: the true first contact plus `late` for rounding of the inputs; lo:
 * the earliest the contract allows), or no hit when lo < 0. */
static long case_fail;
static int ref_strict = 1; /* 0: only "never later" asked of the reference (see expect) */
static void expect(const char *what, int kind, const double x0[4][3], const double x1[4][3], const ck_ccd_opts *o,
                   double lo, double hi)
{
    double toi, toi_b;
    uint8_t hb;
    const int h = ck_ccd(kind, x0, x1, o, &toi, NULL);
    ck_ccd_batch(kind, 1, (const double(*)[4][3])x0, (const double(*)[4][3])x1, o, &hb, &toi_b, NULL);
    double toi_r;
    const int hr = ck_ccd_exact_ref(kind, x0, x1, o, &toi_r, NULL);
    int ok = h == hb && toi == toi_b;
    /* the reference: the same contract without min_sep; with it, or where
     * the contacts form a surface or volume in (t, u, w) (the degenerate
     * cases), its plain search can spend its budget (then a hit at t = 0):
     * only "never later" */
    if (lo < 0) ok = ok && !hr;
    else ok = ok && hr && toi_r <= hi && (o->min_sep > 0 || !ref_strict || toi_r >= lo - o->tolerance);
    if (lo < 0) ok = ok && !h && toi == 1.0;
    else ok = ok && h && toi <= hi && toi >= lo - o->tolerance;
    if (!ok && case_fail++ < 10)
        fprintf(stderr, "%s: hit %d toi %.17g (reference %d %.17g), expected %s [%.17g, %.17g] (tol %g, min_sep %g)\n",
                what, h, toi, hr, toi_r, lo < 0 ? "no hit" : "a hit in", lo, hi, o->tolerance, o->min_sep);
    CHECK(ok, "%s", what);
}

/* A vertex falling onto the interior of a translating face at t*. */
static void vf_falling(const ck_ccd_opts *o)
{
    double n[3], e1[3], e2[3], vel[3], c[3];
    const double s = pow(10, rnd_in(-2, 2)), ts = rnd(), h = s * rnd_in(0.2, 3);
    unit_vec(n), unit_vec(e1), unit_vec(vel);
    cross(e2, n, e1), normalize(e2), cross(e1, e2, n), normalize(e1);
    for (int k = 0; k < 3; ++k) c[k] = s * rnd_in(-5, 5), vel[k] *= s * rnd_in(0, 2);
    double f[3][3]; /* corners at t = 0 around c */
    const double ang[3] = {0.0, 2.1 + rnd_in(-0.3, 0.3), 4.2 + rnd_in(-0.3, 0.3)};
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) f[i][k] = c[k] + s * (cos(ang[i]) * e1[k] + sin(ang[i]) * e2[k]);
    const double b1 = rnd_in(0.1, 0.4), b2 = rnd_in(0.1, 0.4), b0 = 1 - b1 - b2;
    double x0[4][3], x1[4][3];
    for (int k = 0; k < 3; ++k) {
        const double p = b0 * f[0][k] + b1 * f[1][k] + b2 * f[2][k]; /* the contact point at t = 0 */
        x0[0][k] = p + ts * h * n[k];
        x1[0][k] = p + vel[k] + (ts - 1) * h * n[k];
        for (int i = 0; i < 3; ++i) x0[1 + i][k] = f[i][k], x1[1 + i][k] = f[i][k] + vel[k];
    }
    expect("vertex falling onto a face", CK_CCD_VF, (const double(*)[3])x0, (const double(*)[3])x1, o, ts,
           ts + 1e-12);
}

/* Two edges crossing at t*: b moves along a x b relative to a. */
static void ee_crossing(const ck_ccd_opts *o)
{
    double da[3], db[3], n[3], p[3], vel[3];
    const double s = pow(10, rnd_in(-2, 2)), ts = rnd(), h = s * rnd_in(0.2, 3);
    unit_vec(da), unit_vec(db), unit_vec(vel);
    cross(n, da, db);
    if (sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) < 0.3) { /* nearly parallel: draw again */
        ee_crossing(o);
        return;
    }
    normalize(n);
    const double ua = rnd_in(0.2, 0.8), ub = rnd_in(0.2, 0.8), la = s * rnd_in(1, 3), lb = s * rnd_in(1, 3);
    double x0[4][3], x1[4][3];
    for (int k = 0; k < 3; ++k) {
        p[k] = s * rnd_in(-5, 5), vel[k] *= s * rnd_in(0, 2);
        x0[0][k] = p[k] - ua * la * da[k], x0[1][k] = p[k] + (1 - ua) * la * da[k];
        x0[2][k] = p[k] - ub * lb * db[k] - ts * h * n[k], x0[3][k] = p[k] + (1 - ub) * lb * db[k] - ts * h * n[k];
        for (int i = 0; i < 4; ++i) x1[i][k] = x0[i][k] + vel[k] + (i >= 2 ? h * n[k] : 0);
    }
    expect("two edges crossing", CK_CCD_EE, (const double(*)[3])x0, (const double(*)[3])x1, o, ts, ts + 1e-12);
}

/* Axis-aligned frames (so that the L-infinity gap the kernel measures with
 * min_sep equals the Euclidean one where it matters): a random permutation
 * and signs of the axes, a scale and a translation, all exact in binary. */
typedef struct { int perm[3]; double sign[3], scale, shift[3]; } frame;
static frame rnd_frame(void)
{
    frame f;
    const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    const int pi = (int)(rnd() * 6);
    for (int k = 0; k < 3; ++k) {
        f.perm[k] = perms[pi][k], f.sign[k] = rnd() < 0.5 ? -1 : 1;
        f.shift[k] = ldexp(floor(rnd_in(-64, 64)), -3);
    }
    f.scale = ldexp(1, (int)floor(rnd_in(-6, 6)));
    return f;
}
static void place(const frame *f, const double in[4][3], double out[4][3])
{
    for (int i = 0; i < 4; ++i)
        for (int k = 0; k < 3; ++k) out[i][f->perm[k]] = f->sign[k] * f->scale * in[i][k] + f->shift[k] * f->scale;
}

/* Edge a along x from -1 to 1; edge b along y at height d, sweeping from
 * x = -2 to x = 2: over a for t in [1/4, 3/4].  Its L2 distance first
 * reaches m > d when x_b + 1 = -sqrt(m^2 - d^2), its L-inf distance when
 * x_b + 1 = -m; with m < d they never come that close. */
static void ee_grazing(ck_ccd_opts o)
{
    const frame fr = rnd_frame();
    const double d = ldexp(floor(rnd_in(16, 128)), -10); /* 1/64 .. 1/8 */
    const double a[4][3] = {{-1, 0, 0}, {1, 0, 0}, {-2, -1, d}, {-2, 1, d}};
    const double b[4][3] = {{-1, 0, 0}, {1, 0, 0}, {2, -1, d}, {2, 1, d}};
    double x0[4][3], x1[4][3];
    place(&fr, a, x0), place(&fr, b, x1);
    const double s = fr.scale;
    o.min_sep = 1.25 * d * s;
    const double m = 1.25 * d;
    expect("grazing edges, min_sep above the gap", CK_CCD_EE, (const double(*)[3])x0, (const double(*)[3])x1, &o,
           0.25 - m / 4, 0.25 - sqrt(m * m - d * d) / 4);
    o.min_sep = 0.8 * d * s;
    expect("grazing edges, min_sep below the gap", CK_CCD_EE, (const double(*)[3])x0, (const double(*)[3])x1, &o,
           -1, -1);
}

/* A vertex above the interior of the face z = 0, falling at speed h: it is
 * at distance m when t = (z0 - m) / h (the gap is along z, where L2 and
 * L-inf agree). */
static void vf_min_sep(ck_ccd_opts o)
{
    const frame fr = rnd_frame();
    const double m = ldexp(floor(rnd_in(1, 64)), -8), z0 = ldexp(floor(rnd_in(64, 512)), -8) + m;
    const double h = ldexp(floor(rnd_in(1, 8)), -1) + z0 - m; /* > z0 - m: reaches it before t = 1 */
    const double x = ldexp(floor(rnd_in(-32, 32)), -8), y = ldexp(floor(rnd_in(-32, 32)), -8);
    const double a[4][3] = {{x, y, z0}, {-1, -1, 0}, {1, -1, 0}, {0, 1, 0}};
    double b[4][3];
    memcpy(b, a, sizeof b);
    b[0][2] = z0 - h;
    double x0[4][3], x1[4][3];
    place(&fr, a, x0), place(&fr, b, x1);
    o.min_sep = m * fr.scale;
    const double ts = (z0 - m) / h;
    expect("vertex reaching min_sep of a face", CK_CCD_VF, (const double(*)[3])x0, (const double(*)[3])x1, &o, ts,
           ts + 1e-15);
    o.min_sep = 0;
    expect("the same vertex reaching the face", CK_CCD_VF, (const double(*)[3])x0, (const double(*)[3])x1, &o,
           z0 / h, z0 / h + 1e-15);
}

static void test_closed_form(void)
{
    const double tols[3] = {1e-6, 1e-4, 1e-9};
    for (int ti = 0; ti < 3; ++ti) {
        ck_ccd_opts o = ck_ccd_defaults();
        o.tolerance = tols[ti];
        for (int r = 0; r < 300; ++r) {
            vf_falling(&o);
            ee_crossing(&o);
            ee_grazing(o);
            vf_min_sep(o);
        }
    }
    printf("closed-form cases: %ld failures\n", case_fail);
}

/* ---- 3. degenerate cases ------------------------------------------------------ */

static void both(const char *what, int kind, const double x0[4][3], const double x1[4][3], double lo, double hi)
{
    const ck_ccd_opts o = ck_ccd_defaults();
    expect(what, kind, x0, x1, &o, lo, hi);
}

static void test_degenerate(void)
{
    ref_strict = 0;
    /* a zero-length edge (a point) falling onto an edge: contact at t = 1/2 */
    const double p0[4][3] = {{0.25, 0, 1}, {0.25, 0, 1}, {-1, 0, 0}, {1, 0, 0}};
    const double p1[4][3] = {{0.25, 0, -1}, {0.25, 0, -1}, {-1, 0, 0}, {1, 0, 0}};
    both("zero-length edge onto an edge", CK_CCD_EE, p0, p1, 0.5, 0.5);
    /* both edges points, meeting at t = 3/5 */
    const double q0[4][3] = {{0, 0, 0}, {0, 0, 0}, {3, 0, 0}, {3, 0, 0}};
    const double q1[4][3] = {{1, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {-1, 0, 0}};
    both("two points meeting", CK_CCD_EE, q0, q1, 0.6, 0.6 + 1e-15);
    /* ... and two points passing at distance 1/2 */
    const double r0[4][3] = {{0, 0, 0}, {0, 0, 0}, {3, 0.5, 0}, {3, 0.5, 0}};
    const double r1[4][3] = {{1, 0, 0}, {1, 0, 0}, {-1, 0.5, 0}, {-1, 0.5, 0}};
    both("two points passing", CK_CCD_EE, r0, r1, -1, -1);
    /* a zero-area face (a segment along x at z = 0) hit by a falling vertex at t = 1/4 */
    const double s0[4][3] = {{0.5, 0, 1}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}};
    const double s1[4][3] = {{0.5, 0, -3}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}};
    both("vertex onto a zero-area face", CK_CCD_VF, s0, s1, 0.25, 0.25);
    /* ... and falling beside it (y = 1/4) */
    const double u0[4][3] = {{0.5, 0.25, 1}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}};
    const double u1[4][3] = {{0.5, 0.25, -3}, {-1, 0, 0}, {0, 0, 0}, {1, 0, 0}};
    both("vertex beside a zero-area face", CK_CCD_VF, u0, u1, -1, -1);
    /* a face collapsed to a point, the vertex reaching it at t = 1/2 */
    const double w0[4][3] = {{2, 2, 2}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
    const double w1[4][3] = {{0, 0, 0}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
    both("vertex onto a point face", CK_CCD_VF, w0, w1, 0.5, 0.5);
    /* parallel edges, b moving onto a at t = 1/2 (overlapping in x) */
    const double a0[4][3] = {{0, 0, 0}, {2, 0, 0}, {1, 1, 0}, {3, 1, 0}};
    const double a1[4][3] = {{0, 0, 0}, {2, 0, 0}, {1, -1, 0}, {3, -1, 0}};
    both("parallel edges meeting", CK_CCD_EE, a0, a1, 0.5, 0.5);
    /* parallel edges sliding past each other at distance 1/8 */
    const double b0[4][3] = {{0, 0, 0}, {2, 0, 0}, {-5, 0, 0.125}, {-3, 0, 0.125}};
    const double b1[4][3] = {{0, 0, 0}, {2, 0, 0}, {5, 0, 0.125}, {7, 0, 0.125}};
    both("parallel edges sliding apart", CK_CCD_EE, b0, b1, -1, -1);
    /* collinear edges, b sliding onto a: the ends meet at t = 1/3 */
    const double c0[4][3] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {3, 0, 0}};
    const double c1[4][3] = {{0, 0, 0}, {1, 0, 0}, {-1, 0, 0}, {0, 0, 0}};
    both("collinear edges", CK_CCD_EE, c0, c1, 1.0 / 3 - 1e-15, 1.0 / 3 + 1e-15);
    /* coplanar edges (z = 0), b translating in the plane: b's end reaches a at t = 1/2 */
    const double d0[4][3] = {{0, 0, 0}, {2, 0, 0}, {1, 1, 0}, {1.5, 3, 0}};
    const double d1[4][3] = {{0, 0, 0}, {2, 0, 0}, {1, -1, 0}, {1.5, 1, 0}};
    both("coplanar edges", CK_CCD_EE, d0, d1, 0.5, 0.5);
    /* coplanar edges that stay apart (b above a's end in the plane) */
    const double e0[4][3] = {{0, 0, 0}, {2, 0, 0}, {3, 1, 0}, {3, 3, 0}};
    const double e1[4][3] = {{0, 0, 0}, {2, 0, 0}, {3, -1, 0}, {3, 1, 0}};
    both("coplanar edges apart", CK_CCD_EE, e0, e1, -1, -1);
    /* a vertex on the face at t = 0 (moving off it): toi 0 */
    const double f0[4][3] = {{0.25, 0.25, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const double f1[4][3] = {{0.25, 0.25, 1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    both("vertex on the face at t = 0", CK_CCD_VF, f0, f1, 0, 0);
    /* a vertex on a face edge at t = 0, and one at a corner */
    const double g0[4][3] = {{0.5, 0, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    both("vertex on a face edge at t = 0", CK_CCD_VF, g0, g0, 0, 0);
    const double h0[4][3] = {{0, 1, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    both("vertex on a face corner at t = 0", CK_CCD_VF, h0, h0, 0, 0);
    /* a vertex sliding in the face's plane, entering the face at t = 1/2 */
    const double i0[4][3] = {{-1, 0.25, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    const double i1[4][3] = {{1, 0.25, 0}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    both("vertex sliding into a coplanar face", CK_CCD_VF, i0, i1, 0.5, 0.5);
    /* everything still and apart; everything on one point */
    const double j0[4][3] = {{0, 0, 1}, {0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    both("still and apart", CK_CCD_VF, j0, j0, -1, -1);
    const double k0[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
    both("all on one point", CK_CCD_EE, k0, k0, 0, 0);

    /* bad options and coordinates: a conservative hit at t = 0 */
    ck_ccd_opts o = ck_ccd_defaults();
    double toi = -1;
    o.tolerance = 0;
    CHECK(ck_ccd(CK_CCD_VF, j0, j0, &o, &toi, NULL) == 1 && toi == 0, "tolerance 0");
    o.tolerance = NAN;
    CHECK(ck_ccd(CK_CCD_VF, j0, j0, &o, &toi, NULL) == 1 && toi == 0, "tolerance NaN");
    o = ck_ccd_defaults(), o.min_sep = -1;
    CHECK(ck_ccd(CK_CCD_VF, j0, j0, &o, &toi, NULL) == 1 && toi == 0, "min_sep < 0");
    double n0[4][3];
    memcpy(n0, j0, sizeof n0);
    n0[2][1] = NAN;
    CHECK(ck_ccd(CK_CCD_VF, n0, j0, NULL, &toi, NULL) == 1 && toi == 0, "NaN coordinate");
    n0[2][1] = INFINITY;
    CHECK(ck_ccd(CK_CCD_VF, n0, j0, NULL, &toi, NULL) == 1 && toi == 0, "infinite coordinate");
    /* max_iter reached: a hit at the lower bound so far, never later than the contact */
    o = ck_ccd_defaults(), o.max_iter = 3;
    CHECK(ck_ccd(CK_CCD_VF, s0, s1, &o, &toi, NULL) == 1 && toi <= 0.25, "max_iter 3: toi %g", toi);
    /* a vertex sliding 1e-3 above the tilted face z = y: no hit; with min_sep
     * 2e-3 a hit, once it is over the face (t = 1/2) or a little before (the
     * L-inf distance reaches 2e-3 at x = -2e-3, t = 1/2 - 1e-3); the swept
     * boxes overlap, but the coplanarity filter sets the first apart (the
     * vertex stays 1e-3 above the face's plane), not the second */
    const double zz = 0.25 + sqrt(2) * 1e-3;
    const double m0[4][3] = {{-1, 0.25, zz}, {0, 0, 0}, {1, 0, 0}, {0, 1, 1}};
    const double m1[4][3] = {{1, 0.25, zz}, {0, 0, 0}, {1, 0, 0}, {0, 1, 1}};
    both("vertex sliding 1e-3 above a face", CK_CCD_VF, m0, m1, -1, -1);
    o = ck_ccd_defaults(), o.min_sep = 2e-3;
    expect("the same within min_sep 2e-3", CK_CCD_VF, m0, m1, &o, 0.5 - 1e-3 - 1e-9, 0.5);
    ck_ccd_counts c = {0};
    uint8_t hit;
    ck_ccd_batch(CK_CCD_VF, 1, (const double(*)[4][3])m0, (const double(*)[4][3])m1, NULL, &hit, &toi, &c);
    CHECK(c.tests == 1 && c.exact_calls == 0 && c.filter_no == 1 && c.hits == 0 && hit == 0, "counts of one query");
    c = (ck_ccd_counts){0};
    ck_ccd_batch(CK_CCD_VF, 1, (const double(*)[4][3])m0, (const double(*)[4][3])m1, &o, &hit, &toi, &c);
    CHECK(c.tests == 1 && c.exact_calls == 1 && c.filter_no == 0 && c.hits == 1 && hit == 1,
          "counts of one query within min_sep");
    printf("degenerate cases: %ld failures so far in all generated cases\n", case_fail);
}

/* ---- 4. random inputs: the two filters, the batch, the two searches ---------------- */

static void test_random(void)
{
    enum { N = 4003 }; /* not a multiple of 4: the AVX2 tail too */
    static double x0[N][4][3], x1[N][4][3];
    static uint8_t keep[N], keep_ref[N], hit[N];
    static double toi[N];
    long differ = 0, batch_diff = 0, ref_fn = 0, hits = 0;
    for (int kind = 0; kind < 2; ++kind) {
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < 4; ++j)
                for (int k = 0; k < 3; ++k) {
                    /* clustered points, so that many queries overlap; some exact ties and specials */
                    const double c = floor(rnd_in(0, 4)) * 0.5;
                    x0[i][j][k] = c + rnd_in(-1, 1), x1[i][j][k] = c + rnd_in(-1, 1);
                    const double r = rnd();
                    if (r < 0.02) x1[i][j][k] = x0[i][j][k];
                    else if (r < 0.021) x0[i][j][k] = NAN;
                    else if (r < 0.022) x1[i][j][k] = -INFINITY;
                }
        for (int m = 0; m < 3; ++m) {
            const double ms = m == 0 ? 0.0 : m == 1 ? 0.01 : 0.5;
            ck_ccd_filter(kind, N, (const double(*)[4][3])x0, (const double(*)[4][3])x1, ms, keep);
            ck_ccd_filter_ref(kind, N, (const double(*)[4][3])x0, (const double(*)[4][3])x1, ms, keep_ref);
            for (int i = 0; i < N; ++i) differ += keep[i] != keep_ref[i];
            ck_ccd_opts o = ck_ccd_defaults();
            o.min_sep = ms, o.tolerance = 1e-4;
            ck_ccd_batch(kind, N, (const double(*)[4][3])x0, (const double(*)[4][3])x1, &o, hit, toi, NULL);
            for (int i = 0; i < N; i += (m == 0 ? 1 : 7)) {
                double t, tr;
                const int h = ck_ccd(kind, (const double(*)[3])x0[i], (const double(*)[3])x1[i], &o, &t, NULL);
                batch_diff += h != hit[i] || memcmp(&t, &toi[i], sizeof t) != 0;
                hits += h;
                if (m == 0 && i % 4 == 0) { /* the reference agrees on "no contact" being safe */
                    const int g = ck_ccd_exact_ref(kind, (const double(*)[3])x0[i], (const double(*)[3])x1[i], &o,
                                                   &tr, NULL);
                    ref_fn += g && !h; /* the reference finds a contact ck_ccd says cannot be */
                }
            }
        }
    }
    printf("random queries: %d x 2 kinds x 3 min_sep: filters differ on %ld, batch differs on %ld, %ld hits; "
           "reference hits that ck_ccd misses: %ld\n", N, differ, batch_diff, hits, ref_fn);
    CHECK(differ == 0, "AVX2 and portable filters differ on %ld random queries", differ);
    CHECK(batch_diff == 0, "ck_ccd_batch differs from ck_ccd on %ld random queries", batch_diff);
    CHECK(ref_fn == 0, "the reference reports contact on %ld queries ck_ccd certifies apart", ref_fn);
    CHECK(hits > 0, "no random query hits");
}

int main(void)
{
    test_benchmark();
    test_closed_form();
    test_degenerate();
    test_random();
    return check_finish("test_ccd_kernel");
}
