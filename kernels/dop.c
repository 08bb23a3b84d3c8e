/*
 * dop.c — the two inner steps of the DOP-tree traversal (Zachmann [Zachmann00]
 * §3.5.9, --midphase doptree): re-aligning a tumbled k-DOP and the k-DOP
 * overlap test.
 *
 * A k-DOP is stored by its k plane offsets d: slab i (i < k/2) has the fixed
 * unit orientation N_i, d[i] = max N_i·x and d[i + k/2] = max (-N_i)·x over
 * the set it bounds, so the set lies in -d[i + k/2] <= N_i·x <= d[i].
 *
 * Re-alignment (the thesis's eq. 3.2).  A DOP of object B, seen in the frame
 * of object A, is no longer a DOP of A's orientations; the aligned DOP that
 * encloses it has offsets
 *     out[i] = lam[i][0] d[j[i][0]] + lam[i][1] d[j[i][1]] + lam[i][2] d[j[i][2]] + c[i],
 * where the three orientations j[i][.] of B (and lam >= 0) express A's
 * orientation i in B's frame, and c[i] = N_i·o carries the translation.  The
 * caller finds j and lam once per object pair and step (doptree.c); here it
 * is 3 multiply-adds per offset, 3k for the DOP.
 *
 * Overlap.  Two DOPs in one frame, a and b, are disjoint when some slab
 * separates them: max_a N_i·x < min_b N_i·x, i.e. a[i] + b[i ± k/2] < 0.
 * Grown by g (>= 0) in all: they overlap iff a[i] + b[opp(i)] + g >= 0 for
 * every i < k.  The orientations are listed most-perpendicular-first (the
 * thesis's footnote 11), so a miss usually shows in the first slabs.
 *
 * ck_dop_overlap tests four offsets per early exit; ck_dop_align unrolls the
 * three terms.  Both compute every value with the operations of their _ref
 * versions in the same order, so the results are identical.
 */
#include "kernels/kernels.h"

void ck_dop_align_ref(int k, const int32_t *j, const double *lam, const double *c, const float *d, double *out)
{
    for (int i = 0; i < k; ++i) {
        double s = c[i];
        for (int l = 0; l < 3; ++l) s += lam[3 * i + l] * (double)d[j[3 * i + l]];
        out[i] = s;
    }
}

void ck_dop_align(int k, const int32_t *restrict j, const double *restrict lam, const double *restrict c,
                  const float *restrict d, double *restrict out)
{
    for (int i = 0; i < k; ++i) {
        const int32_t *ji = j + 3 * i;
        const double *li = lam + 3 * i;
        out[i] = ((c[i] + li[0] * (double)d[ji[0]]) + li[1] * (double)d[ji[1]]) + li[2] * (double)d[ji[2]];
    }
}

int ck_dop_overlap_ref(int k, const double *a, const double *b, double g)
{
    const int h = k / 2;
    for (int i = 0; i < k; ++i)
        if (!(a[i] + b[i < h ? i + h : i - h] + g >= 0)) return 0;
    return 1;
}

int ck_dop_overlap(int k, const double *restrict a, const double *restrict b, double g)
{
    const int h = k / 2;
    int i = 0;
    for (; i + 4 <= h; i += 4) { /* slabs i..i+3, both sides: one branch */
        const int ok = (a[i] + b[i + h] + g >= 0) & (a[i + 1] + b[i + 1 + h] + g >= 0) &
                       (a[i + 2] + b[i + 2 + h] + g >= 0) & (a[i + 3] + b[i + 3 + h] + g >= 0) &
                       (a[i + h] + b[i] + g >= 0) & (a[i + 1 + h] + b[i + 1] + g >= 0) &
                       (a[i + 2 + h] + b[i + 2] + g >= 0) & (a[i + 3 + h] + b[i + 3] + g >= 0);
        if (!ok) return 0;
    }
    for (; i < h; ++i)
        if (!((a[i] + b[i + h] + g >= 0) & (a[i + h] + b[i] + g >= 0))) return 0;
    return 1;
}
