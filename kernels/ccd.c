/*
 * ccd.c — continuous collision detection with time of impact (placeholder).
 *
 * This first version only fixes the interface of ccd.h: every query is
 * reported as a hit at t = 0, which is conservative (never a false negative,
 * never a late toi).  The inclusion-based root finder replaces it.
 */
#include <string.h>

#include "kernels/ccd.h"

void ck_ccd_filter_ref(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3], double min_sep,
                       uint8_t *keep)
{
    (void)kind, (void)x0, (void)x1, (void)min_sep;
    for (int64_t i = 0; i < n; ++i) keep[i] = 1;
}

void ck_ccd_filter(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3], double min_sep,
                   uint8_t *keep)
{
    ck_ccd_filter_ref(kind, n, x0, x1, min_sep, keep);
}

int ck_ccd_exact(int kind, const double x0[4][3], const double x1[4][3], const ck_ccd_opts *o, double *toi,
                 int64_t *iters)
{
    (void)kind, (void)x0, (void)x1, (void)o;
    *toi = 0.0;
    if (iters) *iters = 0;
    return 1;
}

int ck_ccd(int kind, const double x0[4][3], const double x1[4][3], const ck_ccd_opts *o, double *toi,
           ck_ccd_counts *c)
{
    const int h = ck_ccd_exact(kind, x0, x1, o, toi, NULL);
    if (c) c->tests++, c->exact_calls++, c->hits += h;
    return h;
}

void ck_ccd_batch(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3],
                  const ck_ccd_opts *o, uint8_t *hit, double *toi, ck_ccd_counts *c)
{
    for (int64_t i = 0; i < n; ++i) hit[i] = (uint8_t)ck_ccd(kind, x0[i], x1[i], o, &toi[i], c);
}
