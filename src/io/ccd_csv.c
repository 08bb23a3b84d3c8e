/*
 * ccd_csv.c — reading CCD query files (the format: ccd_csv.h).
 *
 * Exact rationals.  The benchmark writes every coordinate as num/den with
 * integers of 30 digits and more, beyond int64.  In practice each coordinate
 * is a double written as a fraction over a power of two, so it can be read
 * without any rounding: the numerator is converted to binary exactly (a big
 * integer in 32-bit limbs, multiply-by-10-and-add per digit), and when its
 * significant bits (highest set bit to lowest set bit) number at most 53 it
 * is m * 2^z with m < 2^53, an exact double (ldexp).  The same for the
 * denominator; then the quotient n / d is exact exactly when the residual
 * fma(q, d, -n) is zero (fma rounds once, so a zero residual means q d = n).
 * Anything else is rounded to the nearest double through strtold and counted
 * as inexact: the query then stands for a point within half an ulp.
 * (Comparing strtod with strtold, as an earlier test did, is not a proof:
 * 2^100 + 1 reads as 2^100 in both.)
 */
#define _POSIX_C_SOURCE 200809L
#include "io/ccd_csv.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/mesh_text.h"

#define CSV_MAX_DIGITS 2000
#define CSV_LIMBS (CSV_MAX_DIGITS / 9 + 2) /* 10^2000 < 2^(32 * 210) */

/* The integer at s (sign, digits) as a double, exactly when it has at most
 * 53 significant bits: returns 1 exact, 0 not exact (v from strtod), -1 not
 * an integer. */
static int int_value(const char *s, double *v)
{
    const char *p = s;
    int neg = 0;
    if (*p == '+' || *p == '-') neg = *p++ == '-';
    const size_t nd = strspn(p, "0123456789");
    if (nd == 0 || p[nd] != '\0' || nd > CSV_MAX_DIGITS) return -1;
    uint32_t limb[CSV_LIMBS];
    int nl = 0;
    for (size_t i = 0; i < nd; ++i) { /* limb = limb * 10 + digit */
        uint64_t carry = (uint64_t)(p[i] - '0');
        for (int j = 0; j < nl; ++j) {
            const uint64_t x = (uint64_t)limb[j] * 10u + carry;
            limb[j] = (uint32_t)x;
            carry = x >> 32;
        }
        if (carry) limb[nl++] = (uint32_t)carry;
    }
    if (nl == 0) {
        *v = neg ? -0.0 : 0.0;
        return 1;
    }
    int lo = 0;
    while (!((limb[lo / 32] >> (lo % 32)) & 1u)) ++lo;
    int hi = 32 * nl - 1;
    while (!((limb[hi / 32] >> (hi % 32)) & 1u)) --hi;
    if (hi - lo >= 53) {
        *v = strtod(s, NULL);
        return 0;
    }
    uint64_t m = 0;
    for (int b = hi; b >= lo; --b) m = m << 1 | ((limb[b / 32] >> (b % 32)) & 1u);
    *v = ldexp((double)m, lo);
    if (neg) *v = -*v;
    return isfinite(*v) ? 1 : 0;
}

int clash_ccd_ratio(const char *num, const char *den, double *v, int *exact)
{
    double n, d;
    const int en = int_value(num, &n), ed = int_value(den, &d);
    if (en < 0 || ed < 0) return -1;
    if (d == 0) return -2;
    const double q = n / d;
    if (en == 1 && ed == 1 && isfinite(q) && fma(q, d, -n) == 0) {
        *v = q, *exact = 1;
        return 0;
    }
    const long double ql = strtold(num, NULL) / strtold(den, NULL);
    *v = (double)ql, *exact = 0;
    return isfinite(*v) ? 0 : -3;
}

void clash_ccd_free(clash_ccd_query_file *q)
{
    free(q->x0), free(q->x1), free(q->truth);
    memset(q, 0, sizeof *q);
}

/* Splits line at commas into at most 8 fields, trimming blanks; the count */
static int split(char *line, char *f[8])
{
    int n = 0;
    for (char *s = line;;) {
        char *c = strchr(s, ',');
        if (c) *c = '\0';
        s = mio_skip_blank(s);
        char *e = s + strlen(s);
        while (e > s && mio_is_blank(e[-1])) *--e = '\0';
        if (n == 8) return 9;
        f[n++] = s;
        if (!c) return n;
        s = c + 1;
    }
}

int clash_ccd_read(const char *path, clash_ccd_query_file *q, clash_error *err)
{
    memset(q, 0, sizeof *q);
    mio_file file;
    int rc = mio_read_file(path, &file, err);
    if (rc) return rc;
    mio_vec rows, truth;                /* rows of 3 doubles; truth per row */
    mio_vec_init(&rows, 3 * sizeof(double));
    mio_vec_init(&truth, 1);
    mio_lines L;
    mio_lines_init(&L, file.data, file.data + file.size);
    long first_line = 0; /* line of the first row of the current query */
    char *s;
    int got;
    while ((got = mio_next_line(&L, &s)) != 0) {
        if (got < 0) {
            rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: NUL byte in the line", path, L.line);
            goto fail;
        }
        if (mio_line_empty(s)) continue;
        char *f[8];
        const int nf = split(s, f);
        if (nf != 6 && nf != 7) {
            rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: expected 7 comma-separated integers "
                            "(x_num,x_den,y_num,y_den,z_num,z_den,truth), found %d fields", path, L.line, nf > 8 ? 8 : nf);
            goto fail;
        }
        double xyz[3];
        for (int k = 0; k < 3; ++k) {
            int exact;
            const int r = clash_ccd_ratio(f[2 * k], f[2 * k + 1], &xyz[k], &exact);
            if (r) {
                char qa[40], qb[40];
                rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: %c coordinate '%s/%s': %s", path, L.line, "xyz"[k],
                                mio_quote(f[2 * k], strlen(f[2 * k]), qa, sizeof qa),
                                mio_quote(f[2 * k + 1], strlen(f[2 * k + 1]), qb, sizeof qb),
                                r == -1 ? "not an integer ratio (NaN and decimals are refused)"
                                : r == -2 ? "zero denominator" : "not a finite double");
                goto fail;
            }
            q->inexact += !exact;
        }
        int8_t t = -1;
        if (nf == 7) {
            if (strcmp(f[6], "0") && strcmp(f[6], "1")) {
                char qt[40];
                rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: truth '%s' is not 0 or 1", path, L.line,
                                mio_quote(f[6], strlen(f[6]), qt, sizeof qt));
                goto fail;
            }
            t = (int8_t)(f[6][0] - '0');
        }
        if (rows.n % 8 == 0) first_line = L.line;
        else if (t != ((int8_t *)truth.data)[rows.n - 1]) {
            rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: truth differs from the query's first row (line %ld)",
                            path, L.line, first_line);
            goto fail;
        }
        if (mio_vec_reserve(&rows, rows.n + 1) || mio_vec_reserve(&truth, truth.n + 1)) {
            rc = clash_fail(err, CLASH_EFAIL, "%s: out of memory", path);
            goto fail;
        }
        memcpy((double *)rows.data + 3 * rows.n++, xyz, sizeof xyz);
        ((int8_t *)truth.data)[truth.n++] = t;
    }
    if (rows.n % 8) {
        rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: %zu rows, not a multiple of 8: the query starting here is incomplete",
                        path, first_line, rows.n);
        goto fail;
    }
    q->n = (int64_t)(rows.n / 8);
    q->x0 = mio_alloc_array(rows.n / 8 + 1, sizeof *q->x0);
    q->x1 = mio_alloc_array(rows.n / 8 + 1, sizeof *q->x1);
    q->truth = mio_alloc_array(rows.n / 8 + 1, 1);
    if (!q->x0 || !q->x1 || !q->truth) {
        rc = clash_fail(err, CLASH_EFAIL, "%s: out of memory", path);
        goto fail;
    }
    for (int64_t i = 0; i < q->n; ++i) {
        const double *r = (const double *)rows.data + 24 * i;
        memcpy(q->x0[i], r, 12 * sizeof(double));
        memcpy(q->x1[i], r + 12, 12 * sizeof(double));
        q->truth[i] = ((int8_t *)truth.data)[8 * i];
    }
    mio_vec_free(&rows), mio_vec_free(&truth), mio_file_free(&file);
    return 0;
fail:
    mio_vec_free(&rows), mio_vec_free(&truth), mio_file_free(&file);
    clash_ccd_free(q);
    return rc;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int clash_ccd_list_dir(const char *dir, char **names, int max)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while (n < max && (e = readdir(d)))
        if (e->d_name[0] != '.') names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof *names, cmp_name);
    return n;
}

int clash_ccd_kind_files(const char *root, const char *set, int kind, char **paths, int max)
{
    static const char *const kinds[2] = {"vertex-face", "edge-edge"};
    const size_t dl = strlen(root) + strlen(set) + 16;
    char *dir = malloc(dl);
    if (!dir || max < 1) {
        free(dir);
        return 0;
    }
    snprintf(dir, dl, "%s/%s/%s", root, set, kinds[kind != 0]);
    const int nn = clash_ccd_list_dir(dir, paths, max); /* names first, then each replaced by its path */
    int n = 0;
    for (int j = 0; j < nn; ++j) {
        const size_t L = strlen(paths[j]);
        char *p = L > 4 && !strcmp(paths[j] + L - 4, ".csv") ? malloc(dl + L + 1) : NULL;
        if (p) snprintf(p, dl + L + 1, "%s/%s", dir, paths[j]);
        free(paths[j]);
        if (p) paths[n++] = p;
    }
    free(dir);
    return n;
}
