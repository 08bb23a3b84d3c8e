/*
 * test_ccd_queries.c — the swept-hull test against the ground truth of the CCD
 * benchmark of Wang, Ferguson, Schneider, Jiang, Attene & Panozzo (TOG 2021),
 * ../shared/data/ccd-queries/<set>/{vertex-face,edge-edge}/<file>.csv.
 *
 * Each query is 8 rows "x_num,x_den,y_num,y_den,z_num,z_den,truth"; truth is
 * 1 when the primitives touch at some t in [0, 1] under linear motion.
 *   vertex-face: v, f0, f1, f2 at t0, then at t1 -> P = {v(t0), v(t1)},
 *                Q = {f0, f1, f2 at t0 and t1}
 *   edge-edge:   a0, a1, b0, b1 at t0, then at t1 -> P = {a0, a1 at t0, t1},
 *                Q = {b0, b1 at t0, t1}
 * Everything that moves linearly stays in the hull of its two positions, so a
 * query with truth 1 has meeting hulls, and the conservative ck_hulls_meet
 * (tol 0) must report it: ZERO false negatives, asserted per set.  False
 * positives are allowed; their rate (FP / negatives) is printed for the fast
 * test and for the reference (which runs on every query: they are few).
 *
 * Parsing: the numerators and denominators can have 30+ digits, more than
 * int64 holds.  The shared reader (src/io/ccd_csv.c, also `clash ccd`'s)
 * converts them to binary exactly and takes the ratio without rounding when
 * it is a double (in this data every coordinate is one, over a power of
 * two); the test counts any coordinate that is not.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "check.h"
#include "io/ccd_csv.h"
#include "kernels/kernels.h"

#define MAX_FILES 256

typedef struct {
    char set[128], kind[32];
    long queries, pos, fn, fp, ref_fn, ref_fp, both_fp, fast_only_fp;
} row_t;

static row_t rows[64];
static int nrows;
static long inexact_coords, bad_rows;

static row_t *row_for(const char *set, const char *kind)
{
    for (int i = 0; i < nrows; ++i)
        if (!strcmp(rows[i].set, set) && !strcmp(rows[i].kind, kind)) return &rows[i];
    if (nrows == 64) return NULL;
    row_t *r = &rows[nrows++];
    memset(r, 0, sizeof *r);
    snprintf(r->set, sizeof r->set, "%s", set);
    snprintf(r->kind, sizeof r->kind, "%s", kind);
    return r;
}

static void run_file(const char *path, const char *set, const char *kind)
{
    clash_ccd_query_file q;
    clash_error err = {0};
    const int rc = clash_ccd_read(path, &q, &err);
    CHECK(rc == 0, "%s", err.msg);
    if (rc) {
        ++bad_rows;
        return;
    }
    row_t *r = row_for(set, kind);
    const int vf = !strcmp(kind, "vertex-face");
    inexact_coords += q.inexact;
    for (int64_t i = 0; i < q.n; ++i) {
        const int t = q.truth[i];
        if (t < 0) ++bad_rows;
        double P[4][3], Q[6][3];
        int np, nq;
        if (vf) { /* v, f0, f1, f2 at t0 then t1 */
            memcpy(P[0], q.x0[i][0], sizeof P[0]), memcpy(P[1], q.x1[i][0], sizeof P[0]);
            for (int j = 0; j < 3; ++j)
                memcpy(Q[j], q.x0[i][1 + j], sizeof Q[0]), memcpy(Q[3 + j], q.x1[i][1 + j], sizeof Q[0]);
            np = 2, nq = 6;
        } else { /* a0, a1, b0, b1 at t0 then t1 */
            memcpy(P[0], q.x0[i][0], sizeof P[0]), memcpy(P[1], q.x0[i][1], sizeof P[0]);
            memcpy(P[2], q.x1[i][0], sizeof P[0]), memcpy(P[3], q.x1[i][1], sizeof P[0]);
            memcpy(Q[0], q.x0[i][2], sizeof Q[0]), memcpy(Q[1], q.x0[i][3], sizeof Q[0]);
            memcpy(Q[2], q.x1[i][2], sizeof Q[0]), memcpy(Q[3], q.x1[i][3], sizeof Q[0]);
            np = 4, nq = 4;
        }
        const int f = ck_hulls_meet((const double(*)[3])P, np, (const double(*)[3])Q, nq, 0.0);
        const int g = ck_hulls_meet_ref((const double(*)[3])P, np, (const double(*)[3])Q, nq, 0.0);
        r->queries++;
        r->pos += t == 1;
        r->fn += t == 1 && !f;
        r->fp += t == 0 && f;
        r->ref_fn += t == 1 && !g;
        r->ref_fp += t == 0 && g;
        r->fast_only_fp += t == 0 && f && !g;
    }
    clash_ccd_free(&q);
}

static int is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int main(void)
{
    const char *data = check_data_dir();
    if (!data) return check_skip("../shared/data missing: no ccd-queries to test against");
    char root[1024];
    snprintf(root, sizeof root, "%s/ccd-queries", data);
    if (!is_dir(root)) return check_skip("../shared/data/ccd-queries missing");

    const double t0 = (double)clock() / CLOCKS_PER_SEC;
    char *sets[MAX_FILES];
    const int nsets = clash_ccd_list_dir(root, sets, MAX_FILES);
    int nfiles = 0;
    for (int i = 0; i < nsets; ++i) {
        char sp[2048];
        snprintf(sp, sizeof sp, "%s/%s", root, sets[i]);
        if (is_dir(sp)) {
            static const char *kinds[2] = {"vertex-face", "edge-edge"};
            for (int k = 0; k < 2; ++k) {
                char *files[MAX_FILES];
                const int nf = clash_ccd_kind_files(root, sets[i], k, files, MAX_FILES);
                for (int j = 0; j < nf; ++j) {
                    run_file(files[j], sets[i], kinds[k]);
                    ++nfiles;
                    free(files[j]);
                }
            }
        }
        free(sets[i]);
    }
    const double t1 = (double)clock() / CLOCKS_PER_SEC;

    printf("ccd-queries: %d CSV files; swept-hull test ck_hulls_meet (tol 0) and ck_hulls_meet_ref on every query\n",
           nfiles);
    printf("%-28s %-12s %7s %7s %4s %6s %8s | %4s %6s %8s\n", "set", "kind", "queries", "pos", "FN", "FP", "FP rate",
           "refFN", "refFP", "ref rate");
    long tq = 0, tp = 0, tfn = 0, tfp = 0, trfn = 0, trfp = 0;
    for (int i = 0; i < nrows; ++i) {
        const row_t *r = &rows[i];
        const long neg = r->queries - r->pos;
        printf("%-28s %-12s %7ld %7ld %4ld %6ld %7.1f%% | %4ld %6ld %7.1f%%\n", r->set, r->kind, r->queries, r->pos,
               r->fn, r->fp, neg ? 100.0 * (double)r->fp / (double)neg : 0.0, r->ref_fn, r->ref_fp,
               neg ? 100.0 * (double)r->ref_fp / (double)neg : 0.0);
        CHECK(r->fn == 0, "%s/%s: %ld false negatives", r->set, r->kind, r->fn);
        CHECK(r->ref_fn == 0, "%s/%s: %ld false negatives (ref)", r->set, r->kind, r->ref_fn);
        tq += r->queries, tp += r->pos, tfn += r->fn, tfp += r->fp, trfn += r->ref_fn, trfp += r->ref_fp;
    }
    printf("%-28s %-12s %7ld %7ld %4ld %6ld %7.1f%% | %4ld %6ld %7.1f%%\n", "all", "", tq, tp, tfn, tfp,
           tq > tp ? 100.0 * (double)tfp / (double)(tq - tp) : 0.0, trfn, trfp,
           tq > tp ? 100.0 * (double)trfp / (double)(tq - tp) : 0.0);
    long fast_only = 0;
    for (int i = 0; i < nrows; ++i) fast_only += rows[i].fast_only_fp;
    printf("fast reports meet where the reference certifies apart: %ld queries; coordinates not exact in double: %ld; "
           "malformed rows: %ld; %.2f s\n",
           fast_only, inexact_coords, bad_rows, t1 - t0);
    CHECK(nfiles > 0, "no CSV files under %s", root);
    CHECK(tq > 0, "no queries read");
    CHECK(bad_rows == 0, "%ld malformed rows", bad_rows);
    return check_finish("test_ccd_queries");
}
