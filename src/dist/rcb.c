/*
 * rcb.c — recursive coordinate bisection into one cell per rank (rcb.h).
 *
 * A node holds some points and some ranks.  With one rank it is a leaf: that
 * rank's cell is the node's box.  Otherwise the points are sorted along the
 * longest side of their box (ties by point number) and cut where the running
 * weight reaches the left ranks' share (nl / nr of the total); the cut sits
 * halfway between the last point on the left and the first on the right
 * (on the point itself when they are equal: half-open cells put it right).
 * Both halves recurse with their points and ranks.  Every step is a fixed
 * sequence of double operations on the given numbers, so every rank builds
 * the same tree.
 */
#include "dist/rcb.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int clash_rcb_init(clash_rcb *c, int R)
{
    memset(c, 0, sizeof *c);
    c->R = R;
    c->node = calloc(2 * (size_t)R, sizeof *c->node);
    c->lo = malloc(sizeof *c->lo * (size_t)R);
    c->hi = malloc(sizeof *c->hi * (size_t)R);
    if (!c->node || !c->lo || !c->hi) {
        clash_rcb_free(c);
        return -1;
    }
    return 0;
}

void clash_rcb_free(clash_rcb *c)
{
    free(c->node), free(c->lo), free(c->hi);
    memset(c, 0, sizeof *c);
}

int clash_rcb_owner(const clash_rcb *c, const double p[3])
{
    int n = 0;
    while (c->node[n].rank < 0) n = p[c->node[n].axis] < c->node[n].cut ? c->node[n].left : c->node[n].right;
    return c->node[n].rank;
}

int clash_rcb_reporter(const clash_rcb *c, const double alo[3], const double blo[3])
{
    const double p[3] = {fmax(alo[0], blo[0]), fmax(alo[1], blo[1]), fmax(alo[2], blo[2])};
    return clash_rcb_owner(c, p);
}

int clash_box_overlaps(const double alo[3], const double ahi[3], const double blo[3], const double bhi[3])
{
    return alo[0] <= bhi[0] && alo[1] <= bhi[1] && alo[2] <= bhi[2] && ahi[0] >= blo[0] && ahi[1] >= blo[1] &&
           ahi[2] >= blo[2];
}

int clash_keyed_cmp(const void *x, const void *y)
{
    const clash_keyed *a = x, *b = y;
    if (a->v != b->v) return a->v < b->v ? -1 : 1;
    return (a->id > b->id) - (a->id < b->id);
}

/* Cuts the points ids[0..n) over ranks r0..r0+nr-1 inside cell [lo, hi];
 * returns the node's number. */
static int rcb(clash_rcb *C, clash_keyed *k, int *ids, int n, const double (*c)[3], const double *w, int r0, int nr,
               const double lo[3], const double hi[3], int depth)
{
    const int me = C->nnode++;
    clash_rcb_node *nd = &C->node[me];
    if (nr == 1) {
        *nd = (clash_rcb_node){.rank = r0, .left = -1, .right = -1};
        memcpy(C->lo[r0], lo, sizeof C->lo[r0]), memcpy(C->hi[r0], hi, sizeof C->hi[r0]);
        return me;
    }
    int axis = depth % 3;
    if (n >= 2) { /* the longest side of the points' box */
        double a[3] = {INFINITY, INFINITY, INFINITY}, b[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int i = 0; i < n; ++i)
            for (int q = 0; q < 3; ++q) a[q] = fmin(a[q], c[ids[i]][q]), b[q] = fmax(b[q], c[ids[i]][q]);
        axis = 0;
        for (int q = 1; q < 3; ++q)
            if (b[q] - a[q] > b[axis] - a[axis]) axis = q;
    }
    for (int i = 0; i < n; ++i) k[i] = (clash_keyed){c[ids[i]][axis], ids[i]};
    qsort(k, (size_t)n, sizeof *k, clash_keyed_cmp);
    const int nl = nr / 2;
    double total = 0, acc = 0, cut = 0;
    for (int i = 0; i < n; ++i) total += w[k[i].id];
    if (n >= 2) {
        int j = 1; /* the first j points go left: their weight reaches the left ranks' share */
        for (acc = w[k[0].id]; j < n - 1 && acc < total * nl / nr; ++j) acc += w[k[j].id];
        cut = k[j - 1].v == k[j].v ? k[j].v : 0.5 * (k[j - 1].v + k[j].v);
    } else if (n == 1) {
        cut = k[0].v + 1.0; /* the lone point goes left */
    }
    int nleft = 0;
    while (nleft < n && k[nleft].v < cut) ++nleft;
    for (int i = 0; i < n; ++i) ids[i] = k[i].id; /* sorted: the left ones first */
    double lhi[3], rlo[3];
    memcpy(lhi, hi, sizeof lhi), memcpy(rlo, lo, sizeof rlo);
    lhi[axis] = fmin(hi[axis], cut), rlo[axis] = fmax(lo[axis], cut);
    const int left = rcb(C, k, ids, nleft, c, w, r0, nl, lo, lhi, depth + 1);
    const int right = rcb(C, k, ids + nleft, n - nleft, c, w, r0 + nl, nr - nl, rlo, hi, depth + 1);
    C->node[me] = (clash_rcb_node){.axis = axis, .cut = cut, .left = left, .right = right, .rank = -1};
    return me;
}

int clash_rcb_cut(clash_rcb *C, int n, const double (*centre)[3], const double *w)
{
    int *ids = malloc(sizeof *ids * (size_t)(n > 0 ? n : 1));
    clash_keyed *k = malloc(sizeof *k * (size_t)(n > 0 ? n : 1));
    if (!ids || !k) {
        free(ids), free(k);
        return -1;
    }
    for (int o = 0; o < n; ++o) ids[o] = o;
    const double lo[3] = {-INFINITY, -INFINITY, -INFINITY}, hi[3] = {INFINITY, INFINITY, INFINITY};
    C->nnode = 0;
    rcb(C, k, ids, n, centre, w, 0, C->R, lo, hi, 0);
    free(ids), free(k);
    return 0;
}
