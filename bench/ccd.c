/*
 * ccd.c — `clash bench ccd`: time per query of the CCD kernel (kernels/ccd.h)
 * on the benchmark queries of Wang et al. (TOG 2021), per data set and kind
 * (../shared/data/ccd-queries/SET/{vertex-face,edge-edge}/ NAME.csv).
 *
 * Each query is timed alone through ck_ccd (filter, then root finder): R
 * back-to-back calls (--repeat R, default 20) under one pair of clock reads,
 * the time divided by R, the best of three such rounds kept (the first
 * warms the caches).  The set's figure is the median of its queries' times,
 * beside the mean, the 90th percentile and the maximum; the batch column is
 * the whole set through ck_ccd_batch (AVX2 filter over four queries at a
 * time) per query, best of three.  Validation before any time is printed:
 * every query's answer is the same in every repetition and in the batch,
 * and no query with truth 1 is missed (exit 1 otherwise).
 *
 * Options: --data DIR (the ccd-queries folder; default: beside the shared
 * meshes), --repeat R, --ccd-tolerance T, --min-separation D.  Prints only.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/common.h"
#include "clash_internal.h"

int clash_bench_ccd(int argc, char **argv);

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
/* One set and kind: all its files' queries in one array. */
typedef struct {
    int64_t n;
    double (*x0)[4][3], (*x1)[4][3];
    int8_t *truth;
} qset;

static int load_set(const char *dir, qset *s)
{
    memset(s, 0, sizeof *s);
    char *f[64];
    const int nf = clash_ccd_list_dir(dir, f, 64);
    int rc = 0;
    for (int j = 0; j < nf; ++j) {
        const size_t L = strlen(f[j]);
        if (!rc && L > 4 && !strcmp(f[j] + L - 4, ".csv")) {
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", dir, f[j]);
            clash_ccd_query_file q;
            clash_error err = {0};
            if (clash_ccd_read(p, &q, &err)) {
                fprintf(stderr, "clash: error: bench ccd: %s\n", err.msg);
                rc = 2;
            } else {
                const size_t n = (size_t)(s->n + q.n);
                s->x0 = realloc(s->x0, (n + 1) * sizeof *s->x0);
                s->x1 = realloc(s->x1, (n + 1) * sizeof *s->x1);
                s->truth = realloc(s->truth, n + 1);
                if (!s->x0 || !s->x1 || !s->truth) rc = 1;
                else {
                    memcpy(s->x0 + s->n, q.x0, (size_t)q.n * sizeof *q.x0);
                    memcpy(s->x1 + s->n, q.x1, (size_t)q.n * sizeof *q.x1);
                    memcpy(s->truth + s->n, q.truth, (size_t)q.n);
                    s->n = (int64_t)n;
                }
                clash_ccd_free(&q);
            }
        }
        free(f[j]);
    }
    return rc;
}

static int run_set(const char *name, const char *kind_dir, int kind, const qset *s, const clash_internal_ccd_opts *o,
                   int repeat)
{
    double *ns = malloc(((size_t)s->n + 1) * sizeof *ns), *toi = malloc(((size_t)s->n + 1) * sizeof *toi);
    uint8_t *hit = malloc((size_t)s->n + 1), *hb = malloc((size_t)s->n + 1);
    double *tb = malloc(((size_t)s->n + 1) * sizeof *tb);
    int bad = 0;
    long fn = 0, fp = 0, filtered = 0;
    clash_internal_ccd_counts c = {0};
    for (int64_t i = 0; i < s->n; ++i) {
        const double(*a)[3] = (const double(*)[3])s->x0[i], (*b)[3] = (const double(*)[3])s->x1[i];
        double best = INFINITY, t = 0;
        int h = clash_internal_ccd(kind, a, b, o, &t, &c);
        hit[i] = (uint8_t)h, toi[i] = t;
        for (int round = 0; round < 3; ++round) {
            const double t0 = clash_bench_now();
            for (int r = 0; r < repeat; ++r) {
                h = clash_internal_ccd(kind, a, b, o, &t, NULL);
                bad |= h != hit[i] || t != toi[i];
            }
            const double dt = (clash_bench_now() - t0) / repeat;
            best = dt < best ? dt : best;
        }
        ns[i] = best * 1e9;
        fn += s->truth[i] == 1 && !hit[i], fp += s->truth[i] == 0 && hit[i];
    }
    filtered = (long)c.filter_no;
    double batch = INFINITY;
    for (int round = 0; round < 3; ++round) {
        const double t0 = clash_bench_now();
        clash_internal_ccd_batch(kind, s->n, (const double(*)[4][3])s->x0, (const double(*)[4][3])s->x1, o, hb, tb, NULL);
        const double dt = clash_bench_now() - t0;
        batch = dt < batch ? dt : batch;
        for (int64_t i = 0; i < s->n; ++i) bad |= hb[i] != hit[i] || tb[i] != toi[i];
    }
    double mean = 0;
    for (int64_t i = 0; i < s->n; ++i) mean += ns[i];
    mean /= (double)s->n;
    qsort(ns, (size_t)s->n, sizeof *ns, cmp_d);
    if (bad || fn) {
        fprintf(stderr, "clash: error: bench ccd: %s/%s: %s\n", name, kind_dir,
                fn ? "false negatives" : "answers differ between repetitions or from the batch");
    } else {
        printf("%-28s %-12s %7lld %8ld %4ld %5ld %9.0f %9.0f %9.0f %10.0f %9.0f\n", name, kind_dir, (long long)s->n,
               filtered, fn, fp, ns[s->n / 2], mean, ns[(s->n * 9) / 10], ns[s->n - 1], batch * 1e9 / (double)s->n);
    }
    free(ns), free(toi), free(hit), free(hb), free(tb);
    return bad || fn;
}

int clash_bench_ccd(int argc, char **argv)
{
    const char *data = NULL;
    int repeat = 20;
    clash_internal_ccd_opts o = clash_internal_ccd_defaults();
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (!strcmp(a, "--data") && v) data = v, ++i;
        else if (!strcmp(a, "--repeat") && v && atoi(v) >= 1) repeat = atoi(v), ++i;
        else if (!strcmp(a, "--ccd-tolerance") && v && (o.tolerance = strtod(v, &end)) > 0 && !*end) ++i;
        else if (!strcmp(a, "--min-separation") && v && (o.min_sep = strtod(v, &end)) >= 0 && !*end &&
                 isfinite(o.min_sep))
            ++i;
        else {
            fprintf(stderr, "clash: error: bench ccd: bad option '%s'%s (clash bench ccd --help)\n", a,
                    v ? "" : " or missing value");
            return 2;
        }
    }
    char buf[1024];
    if (!data) {
        const char *m = bench_mesh_dir();
        if (!m) {
            fprintf(stderr, "clash: error: bench ccd: no ../shared/data (give --data DIR)\n");
            return 2;
        }
        snprintf(buf, sizeof buf, "%s", m);
        char *slash = strrchr(buf, '/');
        if (slash) snprintf(slash, sizeof buf - (size_t)(slash - buf), "/ccd-queries");
        data = buf;
    }
    char *sets[64];
    const int nsets = clash_ccd_list_dir(data, sets, 64);
    if (nsets == 0) {
        fprintf(stderr, "clash: error: bench ccd: no data sets in %s\n", data);
        return 2;
    }
    printf("clash bench ccd: ck_ccd per query, tolerance %g, min_sep %g, best of 3 rounds of %d calls\n",
           o.tolerance, o.min_sep, repeat);
    printf("%-28s %-12s %7s %8s %4s %5s %9s %9s %9s %10s %9s\n", "set", "kind", "queries", "filtered", "FN", "FP",
           "median_ns", "mean_ns", "p90_ns", "max_ns", "batch_ns");
    int rc = 0;
    for (int i = 0; i < nsets; ++i) {
        static const char *kinds[2] = {"vertex-face", "edge-edge"};
        for (int k = 0; k < 2 && !rc; ++k) {
            char dir[2048];
            snprintf(dir, sizeof dir, "%s/%s/%s", data, sets[i], kinds[k]);
            qset s;
            rc = load_set(dir, &s);
            if (!rc && s.n > 0) rc = run_set(sets[i], kinds[k], k == 0 ? CLASH_INTERNAL_CCD_VF : CLASH_INTERNAL_CCD_EE, &s, &o, repeat);
            free(s.x0), free(s.x1), free(s.truth);
        }
        free(sets[i]);
    }
    return rc;
}
