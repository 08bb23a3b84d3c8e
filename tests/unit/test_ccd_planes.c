/*
 * test_ccd_planes.c — the coplanarity filter and the time window of the CCD
 * kernel (kernels/ccd_planes.c).
 *
 * 1. Every query of ../shared/data/ccd-queries: the AVX2 filter
 *    (ck_ccd_planes) decides as the portable one (ck_ccd_planes_ref), query
 *    by query; neither says "apart" for a query whose truth is 1, nor for one
 *    where the reference search without any filter (ck_ccd_exact_ref) finds
 *    a contact; and the windows of ck_ccd_planes_window reach the reference's
 *    time of impact (the first window begins no later than toi + tolerance;
 *    where the reference ran out of boxes its toi 0 is no time of contact).
 *    Printed: how many queries the boxes and the planes decide.
 * 2. Random queries, clustered so that many are close, with exact ties, NaN
 *    and infinities, and min_sep 0, 0.01, 0.5: the two filters decide alike,
 *    and a query the filter sets apart is never a contact of the reference.
 * 3. Generated crossings (a vertex through a face, two edges through each
 *    other, at a known time t*): never set apart, and the windows contain t*.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/ccd_csv.h"
#include "kernels/ccd.h"

static uint64_t rng = 0x2545f4914f6cdd1du;
static double rnd(void) /* uniform in [0, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}
static double rnd_in(double a, double b) { return a + (b - a) * rnd(); }

/* the first window's start, or 0 when there is none */
static double window_start(int kind, const double x0[4][3], const double x1[4][3], double ms)
{
    double win[3][2];
    const int n = ck_ccd_planes_window(kind, x0, x1, ms, 21, win);
    CHECK(n <= 3, "more than 3 windows");
    for (int i = 0; i < n; ++i) {
        CHECK(win[i][0] < win[i][1] && win[i][0] >= 0 && win[i][1] <= 1, "window %d [%g, %g]", i, win[i][0],
              win[i][1]);
        if (i) CHECK(win[i - 1][1] < win[i][0], "windows out of order");
    }
    return n > 0 ? win[0][0] : 0.0;
}

/* ---- 1. the benchmark -------------------------------------------------------------- */

typedef struct {
    long queries, boxes_no, planes_no, differ, apart_true, apart_ref, late_window;
} tally;

static void run_file(const char *path, int kind, tally *r)
{
    clash_ccd_query_file q;
    clash_error err = {0};
    const int rc = clash_ccd_read(path, &q, &err);
    CHECK(rc == 0, "%s", err.msg);
    if (rc) return;
    const size_t n = (size_t)q.n + 1;
    uint8_t *keep = malloc(n), *kp = malloc(n), *kr = malloc(n);
    const double (*x0)[4][3] = (const double(*)[4][3])q.x0, (*x1)[4][3] = (const double(*)[4][3])q.x1;
    ck_ccd_filter(kind, q.n, x0, x1, 0.0, keep);
    memset(kp, 1, n), memset(kr, 1, n);
    ck_ccd_planes(kind, q.n, x0, x1, 0.0, kp);
    ck_ccd_planes_ref(kind, q.n, x0, x1, 0.0, kr);
    const ck_ccd_opts o = ck_ccd_defaults();
    for (int64_t i = 0; i < q.n; ++i) {
        r->queries++;
        r->boxes_no += !keep[i];
        r->planes_no += keep[i] && !kp[i];
        r->differ += kp[i] != kr[i];
        r->apart_true += !kp[i] && q.truth[i] == 1;
        double toi;
        int64_t its;
        const int g = ck_ccd_exact_ref(kind, (const double(*)[3])q.x0[i], (const double(*)[3])q.x1[i], &o, &toi, &its);
        r->apart_ref += !kp[i] && g;
        /* (a reference that ran out of boxes answers t = 0, not a time of contact) */
        if (g && kp[i] && its <= CK_CCD_MAX_ITER && window_start(kind, (const double(*)[3])q.x0[i], (const double(*)[3])q.x1[i], 0.0) >
                              toi + o.tolerance) {
            r->late_window++;
            double win[3][2];
            const int nw = ck_ccd_planes_window(kind, (const double(*)[3])q.x0[i], (const double(*)[3])q.x1[i], 0.0, 21, win);
            fprintf(stderr, "%s %lld: truth %d ref toi %.17g (%lld boxes), %d windows, first [%.17g, %.17g]\n", path,
                    (long long)i, q.truth[i], toi, (long long)its, nw, win[0][0], win[0][1]);
        }
    }
    free(keep), free(kp), free(kr);
    clash_ccd_free(&q);
}

static void test_benchmark(void)
{
    const char *data = check_data_dir();
    if (!data) {
        printf("SKIP part 1: ../shared/data missing\n");
        return;
    }
    char root[1024];
    snprintf(root, sizeof root, "%s/ccd-queries", data);
    char *sets[64];
    const int nsets = clash_ccd_list_dir(root, sets, 64);
    if (nsets == 0) {
        printf("SKIP part 1: ../shared/data/ccd-queries missing\n");
        return;
    }
    printf("%-28s %-12s %7s %8s %8s | %6s %9s %9s %9s\n", "set", "kind", "queries", "boxes", "planes", "differ",
           "apart&1", "apart&ref", "late win");
    tally all = {0};
    for (int i = 0; i < nsets; ++i) {
        static const char *kinds[2] = {"vertex-face", "edge-edge"};
        for (int k = 0; k < 2; ++k) {
            char *f[64];
            const int nf = clash_ccd_kind_files(root, sets[i], k, f, 64);
            tally r = {0};
            for (int j = 0; j < nf; ++j) {
                run_file(f[j], k == 0 ? CK_CCD_VF : CK_CCD_EE, &r);
                free(f[j]);
            }
            if (!r.queries) continue;
            printf("%-28s %-12s %7ld %8ld %8ld | %6ld %9ld %9ld %9ld\n", sets[i], kinds[k], r.queries, r.boxes_no,
                   r.planes_no, r.differ, r.apart_true, r.apart_ref, r.late_window);
            CHECK(r.differ == 0, "%s/%s: AVX2 and portable plane filters differ on %ld", sets[i], kinds[k], r.differ);
            CHECK(r.apart_true == 0, "%s/%s: %ld true contacts set apart", sets[i], kinds[k], r.apart_true);
            CHECK(r.apart_ref == 0, "%s/%s: %ld contacts of the reference set apart", sets[i], kinds[k], r.apart_ref);
            CHECK(r.late_window == 0, "%s/%s: %ld windows start after the reference's toi", sets[i], kinds[k],
                  r.late_window);
            all.queries += r.queries, all.boxes_no += r.boxes_no, all.planes_no += r.planes_no;
        }
        free(sets[i]);
    }
    printf("%-28s %-12s %7ld %8ld %8ld\n", "all", "", all.queries, all.boxes_no, all.planes_no);
    CHECK(all.queries > 0, "no queries under %s", root);
}

/* ---- 2. random queries --------------------------------------------------------------- */

static void test_random(void)
{
    enum { N = 4003 }; /* not a multiple of 4: the AVX2 tail too */
    static double x0[N][4][3], x1[N][4][3];
    static uint8_t kp[N], kr[N];
    long differ = 0, apart = 0, bad = 0;
    for (int kind = 0; kind < 2; ++kind) {
        for (int i = 0; i < N; ++i)
            for (int j = 0; j < 4; ++j)
                for (int k = 0; k < 3; ++k) {
                    const double c = floor(rnd_in(0, 4)) * 0.5;
                    x0[i][j][k] = c + rnd_in(-1, 1), x1[i][j][k] = c + rnd_in(-1, 1);
                    const double r = rnd();
                    if (r < 0.02) x1[i][j][k] = x0[i][j][k];
                    else if (r < 0.021) x0[i][j][k] = NAN;
                    else if (r < 0.022) x1[i][j][k] = -INFINITY;
                    else if (r < 0.03) x0[i][j][k] = x0[i][0][k]; /* degenerate: repeated points */
                }
        for (int m = 0; m < 3; ++m) {
            const double ms = m == 0 ? 0.0 : m == 1 ? 0.01 : 0.5;
            memset(kp, 1, N), memset(kr, 1, N);
            ck_ccd_planes(kind, N, (const double(*)[4][3])x0, (const double(*)[4][3])x1, ms, kp);
            ck_ccd_planes_ref(kind, N, (const double(*)[4][3])x0, (const double(*)[4][3])x1, ms, kr);
            ck_ccd_opts o = ck_ccd_defaults();
            o.min_sep = ms, o.tolerance = 1e-4;
            for (int i = 0; i < N; ++i) {
                differ += kp[i] != kr[i];
                apart += !kp[i];
                if (!kp[i] && i % 3 == 0) {
                    double t;
                    bad += ck_ccd_exact_ref(kind, (const double(*)[3])x0[i], (const double(*)[3])x1[i], &o, &t, NULL);
                }
            }
        }
    }
    printf("random queries: %d x 2 kinds x 3 min_sep: %ld set apart, filters differ on %ld, "
           "reference contacts among those apart: %ld\n", N, apart, differ, bad);
    CHECK(differ == 0, "AVX2 and portable plane filters differ on %ld random queries", differ);
    CHECK(bad == 0, "the reference finds contacts on %ld queries the plane filter sets apart", bad);
    CHECK(apart > 0, "no random query set apart: the test tests nothing");
}

/* ---- 3. crossings at a known time ----------------------------------------------------- */

static void test_crossings(void)
{
    long fail = 0;
    for (int c = 0; c < 2000; ++c) {
        const int kind = c & 1;
        const double ts = rnd_in(0.001, 0.999), sc = pow(10, rnd_in(-3, 3)), off = rnd_in(-10, 10) * sc;
        double x0[4][3], x1[4][3], v[3];
        for (int k = 0; k < 3; ++k) v[k] = rnd_in(-1, 1) * sc;
        /* the contact point at time ts: the origin + off; the primitives move by their own velocities */
        double p[4][3];
        if (kind == CK_CCD_VF) { /* a face around the point, the vertex on it */
            const double a = rnd_in(0.1, 0.8), b = rnd_in(0.1, 0.9 - a);
            for (int k = 0; k < 3; ++k) p[1][k] = rnd_in(-1, 1) * sc, p[2][k] = rnd_in(-1, 1) * sc,
                                        p[3][k] = rnd_in(-1, 1) * sc;
            for (int k = 0; k < 3; ++k) p[0][k] = (1 - a - b) * p[1][k] + a * p[2][k] + b * p[3][k];
        } else { /* two edges through one point */
            const double a = rnd_in(0.1, 0.9), b = rnd_in(0.1, 0.9);
            double da[3], db[3], q[3];
            for (int k = 0; k < 3; ++k) da[k] = rnd_in(-1, 1) * sc, db[k] = rnd_in(-1, 1) * sc, q[k] = 0;
            for (int k = 0; k < 3; ++k) p[0][k] = q[k] - a * da[k], p[1][k] = p[0][k] + da[k];
            for (int k = 0; k < 3; ++k) p[2][k] = q[k] - b * db[k], p[3][k] = p[2][k] + db[k];
        }
        for (int i = 0; i < 4; ++i) {
            double w[3];
            for (int k = 0; k < 3; ++k) w[k] = (i == 0 ? v[k] : 0) + rnd_in(-0.05, 0.05) * sc;
            for (int k = 0; k < 3; ++k) x0[i][k] = off + p[i][k] - ts * w[k], x1[i][k] = off + p[i][k] + (1 - ts) * w[k];
        }
        uint8_t keep = 1;
        ck_ccd_planes_ref(kind, 1, (const double(*)[4][3])x0, (const double(*)[4][3])x1, 0.0, &keep);
        double win[3][2];
        const int nw = ck_ccd_planes_window(kind, (const double(*)[3])x0, (const double(*)[3])x1, 0.0, 21, win);
        int inside = nw < 0; /* no window: the whole step is searched */
        for (int i = 0; i < nw; ++i) inside |= win[i][0] <= ts + 1e-12 && ts - 1e-12 <= win[i][1];
        if (!keep || !inside) {
            ++fail;
            fprintf(stderr, "crossing %d (kind %d, t* %.17g): %s\n", c, kind, ts, !keep ? "set apart" : "no window holds it");
        }
    }
    printf("crossings at a known time: %ld failures of 2000\n", fail);
    CHECK(fail == 0, "%ld crossings set apart or outside the windows", fail);
}

int main(void)
{
    test_benchmark();
    test_random();
    test_crossings();
    return check_finish("test_ccd_planes");
}
