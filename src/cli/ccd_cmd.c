/*
 * ccd_cmd.c — `clash ccd vf|ee FILE.csv [--ccd-tolerance T] [--min-separation D]
 * [--max-iter N]`: continuous collision detection on raw primitive queries.
 *
 * The file holds queries in the format of the CCD benchmark of Wang et al.
 * (TOG 2021; clash_ccd_read): 8 rows of exact rationals a query, points
 * at t = 0 then at t = 1.  Each query goes through ck_ccd_batch
 * (kernels/ccd.h: the axis and coplanarity filters, then the inclusion
 * root finder), and one line "hit,toi" is printed per query in file order: hit 0 or 1, toi the
 * time of impact (never later than the first contact, within the tolerance
 * of it; 1 when there is no hit), printed with 17 significant digits so it
 * reads back to the same double.  With --stats the counts (queries, decided
 * by the filter, sent to the root finder, hits, and the truth column's false
 * negatives and positives when the file has one) go to stderr.
 *
 * Options are checked before the file is read: tolerance > 0 and finite,
 * min-separation >= 0 and finite, max-iter an integer.  Bad input exits 2
 * with "clash: error: FILE:LINE: what".
 */
#include "cli/ccd_cmd.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/suggest.h"
#include "clash_internal.h"

void clash_ccd_usage(FILE *f)
{
    fputs("usage: clash ccd vf|ee FILE.csv [--ccd-tolerance T] [--min-separation D] [--max-iter N] [--stats]\n"
          "  prints 'hit,toi' per query (8 rows of num,den x3[,truth] each, as in the CCD benchmark)\n"
          "  --ccd-tolerance T   accuracy of the time of impact (default 1e-6; > 0)\n"
          "  --min-separation D  contact when within distance D (default 0; >= 0)\n"
          "  --max-iter N        boxes examined per query before answering 'hit' (default 1000000)\n"
          "  --stats             counts (filter, root finder, hits; FN/FP against a truth column) on stderr\n",
          f);
}

static int fail(clash_error *err)
{
    fprintf(stderr, "clash: error: %s\n", err->msg);
    return err->code ? err->code : CLASH_EFAIL;
}

/* the option's value: "--opt V" or "--opt=V" */
static const char *value_of(int argc, char **argv, int *i, const char *opt, clash_error *err)
{
    const size_t L = strlen(opt);
    if (argv[*i][L] == '=') return argv[*i] + L + 1;
    if (*i + 1 >= argc) {
        clash_internal_fail(err, CLASH_EINPUT, "ccd: %s needs a value", opt);
        return NULL;
    }
    return argv[++*i];
}

static int parse_real(const char *opt, const char *v, double *out, clash_error *err)
{
    char *end;
    errno = 0;
    const double x = strtod(v, &end);
    if (end == v || *end || errno == ERANGE || !isfinite(x))
        return clash_internal_fail(err, CLASH_EINPUT, "ccd: %s '%s' is not a finite number", opt, v);
    *out = x;
    return 0;
}

int clash_ccd_cmd(int argc, char **argv)
{
    clash_error err = {0};
    clash_internal_ccd_opts o = clash_internal_ccd_defaults();
    const char *kind_s = NULL, *path = NULL;
    int stats = 0;
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i], *v;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            clash_ccd_usage(stdout);
            return 0;
        }
        if (!strncmp(a, "--ccd-tolerance", 15) && (a[15] == 0 || a[15] == '=')) {
            if (!(v = value_of(argc, argv, &i, "--ccd-tolerance", &err)) || parse_real("--ccd-tolerance", v, &o.tolerance, &err))
                return fail(&err);
            if (!(o.tolerance > 0))
                return clash_internal_fail(&err, CLASH_EINPUT, "ccd: --ccd-tolerance %s: must be > 0", v), fail(&err);
        } else if (!strncmp(a, "--min-separation", 16) && (a[16] == 0 || a[16] == '=')) {
            if (!(v = value_of(argc, argv, &i, "--min-separation", &err)) || parse_real("--min-separation", v, &o.min_sep, &err))
                return fail(&err);
            if (o.min_sep < 0)
                return clash_internal_fail(&err, CLASH_EINPUT, "ccd: --min-separation %s: must be >= 0", v), fail(&err);
        } else if (!strncmp(a, "--max-iter", 10) && (a[10] == 0 || a[10] == '=')) {
            if (!(v = value_of(argc, argv, &i, "--max-iter", &err))) return fail(&err);
            char *end;
            errno = 0;
            const long long n = strtoll(v, &end, 10);
            if (end == v || *end || errno == ERANGE)
                return clash_internal_fail(&err, CLASH_EINPUT, "ccd: --max-iter '%s' is not an integer", v), fail(&err);
            o.max_iter = n;
        } else if (!strcmp(a, "--stats")) {
            stats = 1;
        } else if (a[0] == '-' && a[1] != 0) {
            static const char *const opts[] = {"--ccd-tolerance", "--min-separation", "--max-iter", "--stats",
                                               "--help", NULL};
            char hint[96];
            clash_internal_fail(&err, CLASH_EINPUT, "ccd: unknown option '%s'%s", a,
                                clash_suggest_hint(a, opts, hint, sizeof hint));
            return fail(&err);
        } else if (!kind_s) {
            kind_s = a;
        } else if (!path) {
            path = a;
        } else {
            return clash_internal_fail(&err, CLASH_EINPUT, "ccd: unexpected argument '%s'", a), fail(&err);
        }
    }
    if (!kind_s || !path) {
        clash_ccd_usage(stderr);
        return clash_internal_fail(&err, CLASH_EINPUT, "ccd: needs a kind (vf or ee) and a query file"), fail(&err);
    }
    int kind;
    if (!strcmp(kind_s, "vf") || !strcmp(kind_s, "vertex-face")) kind = CLASH_INTERNAL_CCD_VF;
    else if (!strcmp(kind_s, "ee") || !strcmp(kind_s, "edge-edge")) kind = CLASH_INTERNAL_CCD_EE;
    else return clash_internal_fail(&err, CLASH_EINPUT, "ccd: kind '%s' is not vf or ee", kind_s), fail(&err);

    clash_ccd_query_file q;
    if (clash_ccd_read(path, &q, &err)) return fail(&err);
    uint8_t *hit = malloc((size_t)q.n + 1);
    double *toi = malloc(((size_t)q.n + 1) * sizeof *toi);
    if (!hit || !toi) {
        free(hit), free(toi), clash_ccd_free(&q);
        return clash_internal_fail(&err, CLASH_EFAIL, "%s: out of memory", path), fail(&err);
    }
    clash_internal_ccd_counts c = {0};
    clash_internal_ccd_batch(kind, q.n, (const double(*)[4][3])q.x0, (const double(*)[4][3])q.x1, &o, hit, toi, &c);
    long fn = 0, fp = 0, truths = 0;
    for (int64_t i = 0; i < q.n; ++i) {
        printf("%d,%.17g\n", hit[i], toi[i]);
        if (q.truth[i] >= 0) ++truths, fn += q.truth[i] == 1 && !hit[i], fp += q.truth[i] == 0 && hit[i];
    }
    if (stats) {
        fprintf(stderr, "ccd: %lld queries, %lld decided by the filter, %lld by the root finder, %lld hits",
                (long long)c.tests, (long long)c.filter_no, (long long)c.exact_calls, (long long)c.hits);
        if (truths) fprintf(stderr, "; against the truth column: %ld false negatives, %ld false positives", fn, fp);
        if (q.inexact) fprintf(stderr, "; %lld coordinates rounded to the nearest double", (long long)q.inexact);
        fputc('\n', stderr);
    }
    free(hit), free(toi), clash_ccd_free(&q);
    if (fflush(stdout) || ferror(stdout))
        return clash_internal_fail(&err, CLASH_EFAIL, "ccd: cannot write the results"), fail(&err);
    return 0;
}
