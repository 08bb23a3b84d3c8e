/*
 * test_ccd_kernel.c — the CCD kernel (kernels/ccd.c, kernels/ccd_filter.c)
 * against ground truth and closed-form first contacts.
 *
 * 1. Every query of ../shared/data/ccd-queries (Wang et al., TOG 2021), read
 *    with the shared reader (src/io/ccd_csv.c): zero false negatives, asserted
 *    per set and kind; false positives printed per set (bench/RESULTS.md
 *    keeps them beside the swept-hull test's, from test_ccd_queries).
 *    ck_ccd_batch must give what ck_ccd gives, query by query, bit for bit
 *    (toi included), and the AVX2 filter what the portable one decides.
 *    Skipped with a message when the data is missing.
 * 2. Generated cases whose first contact is known in closed form (a vertex
 *    falling onto a face, two edges crossing, a grazing pass at distance d
 *    with min_sep just above and below d, a vertex reaching distance d of a
 *    face), at random positions, scales and times: a hit with toi within
 *    the tolerance of the truth and never later; or no hit.
 * 3. Degenerate cases: zero-length edges, zero-area faces, parallel and
 *    coplanar edges, a vertex on the face at t = 0 (toi 0), bad options.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
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

static int cmpstr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int list_dir(const char *dir, char **names, int max)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max)
        if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmpstr);
    return n;
}

typedef struct {
    long queries, pos, fn, fp, filtered, batch_diff, filter_diff, inexact;
} tally;

static void run_file(const char *path, int kind, tally *r)
{
    clash_ccd_queries q;
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
    const int nsets = list_dir(root, sets, 64);
    if (nsets == 0) {
        printf("SKIP part 1: ../shared/data/ccd-queries missing\n");
        return 0;
    }
    printf("ccd-queries: ck_ccd (tolerance 1e-6, min_sep 0) against the ground truth\n");
    printf("%-28s %-12s %7s %5s %4s %5s %8s %8s\n", "set", "kind", "queries", "pos", "FN", "FP", "FP rate",
           "filtered");
    tally all = {0};
    int files = 0;
    for (int i = 0; i < nsets; ++i) {
        static const char *kinds[2] = {"vertex-face", "edge-edge"};
        for (int k = 0; k < 2; ++k) {
            char kp[2048];
            snprintf(kp, sizeof kp, "%s/%s/%s", root, sets[i], kinds[k]);
            char *f[64];
            const int nf = list_dir(kp, f, 64);
            tally r = {0};
            for (int j = 0; j < nf; ++j) {
                const size_t L = strlen(f[j]);
                if (L > 4 && !strcmp(f[j] + L - 4, ".csv")) {
                    char p[4096];
                    snprintf(p, sizeof p, "%s/%s", kp, f[j]);
                    run_file(p, k == 0 ? CK_CCD_VF : CK_CCD_EE, &r);
                    ++files;
                }
                free(f[j]);
            }
            if (!r.queries) continue;
            const long neg = r.queries - r.pos;
            printf("%-28s %-12s %7ld %5ld %4ld %5ld %7.1f%% %8ld\n", sets[i], kinds[k], r.queries, r.pos, r.fn, r.fp,
                   neg ? 100.0 * (double)r.fp / (double)neg : 0.0, r.filtered);
            CHECK(r.fn == 0, "%s/%s: %ld false negatives", sets[i], kinds[k], r.fn);
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

int main(void)
{
    test_benchmark();
    return check_finish("test_ccd_kernel");
}
