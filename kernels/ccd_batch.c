/*
 * ccd_batch.c — the CCD kernel's two entry points, ck_ccd (one query) and
 * ck_ccd_batch (many): the parts of ccd.c, ccd_filter.c and ccd_planes.c put
 * in order.
 *
 * A query whose options or coordinates are unusable (ck_ccd_usable: NaN,
 * infinities, magnitudes above 1e300, tolerance <= 0, min_sep < 0) is a hit
 * at toi 0, the conservative answer.  The others go through two filters that
 * can only say "no contact": axis separation (ccd_filter.c: the corner
 * differences beyond min_sep along an axis at t = 0 and 1), then coplanarity (ccd_planes.c: the four
 * points never in one plane within what min_sep allows); what both keep goes
 * to the root finder (ck_ccd_exact, ccd.c), which finds the first contact.
 *
 * ck_ccd runs the portable filters on its one query; ck_ccd_batch runs the
 * AVX2 ones on blocks of 256 queries.  The twins decide alike bit for bit, so
 * both entry points give the same answers and the same counts, which the
 * tests check query by query.
 */
#include <math.h>
#include <stddef.h>

#include "kernels/ccd.h"

/* The filter's verdict on one query for ck_ccd: the scalar twin */
int ck_ccd(int kind, const double x0[4][3], const double x1[4][3], const ck_ccd_opts *o, double *toi,
           ck_ccd_counts *c)
{
    const ck_ccd_opts def = ck_ccd_defaults();
    if (!o) o = &def;
    int h;
    if (c) c->tests++;
    if (!ck_ccd_usable(o, x0, x1)) {
        *toi = 0.0;
        h = 1;
    } else {
        uint8_t keep;
        ck_ccd_filter_ref(kind, 1, (const double(*)[4][3])x0, (const double(*)[4][3])x1, o->min_sep, &keep);
        ck_ccd_planes_ref(kind, 1, (const double(*)[4][3])x0, (const double(*)[4][3])x1, o->min_sep, &keep);
        if (!keep) {
            if (c) c->filter_no++;
            *toi = 1.0;
            return 0;
        }
        if (c) c->exact_calls++;
        h = ck_ccd_exact(kind, x0, x1, o, toi, NULL);
    }
    if (c) c->hits += h;
    return h;
}

void ck_ccd_batch(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3],
                  const ck_ccd_opts *o, uint8_t *hit, double *toi, ck_ccd_counts *c)
{
    const ck_ccd_opts def = ck_ccd_defaults();
    if (!o) o = &def;
    const int bad = !(o->tolerance > 0) || !(o->min_sep >= 0) || isinf(o->min_sep);
    enum { CHUNK = 256 };
    uint8_t keep[CHUNK];
    for (int64_t i0 = 0; i0 < n; i0 += CHUNK) {
        const int64_t m = n - i0 < CHUNK ? n - i0 : CHUNK;
        if (!bad) {
            ck_ccd_filter(kind, m, x0 + i0, x1 + i0, o->min_sep, keep);
            ck_ccd_planes(kind, m, x0 + i0, x1 + i0, o->min_sep, keep);
        }
        for (int64_t j = 0; j < m; ++j) {
            const int64_t i = i0 + j;
            int h;
            if (c) c->tests++;
            if (bad || !ck_ccd_usable(o, x0[i], x1[i])) {
                toi[i] = 0.0;
                h = 1;
            } else if (!keep[j]) {
                if (c) c->filter_no++;
                toi[i] = 1.0;
                h = 0;
            } else {
                if (c) c->exact_calls++;
                h = ck_ccd_exact(kind, x0[i], x1[i], o, &toi[i], NULL);
            }
            if (c) c->hits += h;
            hit[i] = (uint8_t)h;
        }
    }
}
