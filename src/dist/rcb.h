/*
 * rcb.h — the cells of a spatial decomposition: recursive
 * coordinate bisection of a set of weighted points into one cell per rank,
 * the rank whose cell holds a point, and the closed box overlap test.
 *
 * For the decomposed run (decomposed.c: the owners' cut at create, the
 * step's cells, each pair's reporter), which `clash run --decompose objects`
 * uses too.  Pure
 * arithmetic on doubles in a fixed order, ties broken by point number: every
 * rank that cuts the same points gets the same cells, with no message.
 *
 * Cells are half-open: a point on a cut belongs to the upper side, so each
 * point of space lies in exactly one cell (clash_rcb_owner).  Overlap tests
 * against a cell use closed intervals (clash_box_overlaps), so a box that
 * holds a point p always overlaps the cell holding p: the rule that makes a
 * pair's reporter a rank where both objects are present.
 */
#ifndef CLASH_DIST_RCB_H
#define CLASH_DIST_RCB_H

typedef struct clash_rcb_node {
    int axis, left, right, rank; /* rank >= 0: a leaf, the cell of that rank */
    double cut;                  /* x[axis] < cut: left */
} clash_rcb_node;

typedef struct clash_rcb {
    int R;                       /* cells (ranks) */
    clash_rcb_node *node;        /* 2R - 1 nodes, root 0 */
    int nnode;
    double (*lo)[3], (*hi)[3];   /* R cells, +-inf at the world's borders */
} clash_rcb;

/* Room for R cells.  Returns 0, or -1 when out of memory. */
int clash_rcb_init(clash_rcb *c, int R);
void clash_rcb_free(clash_rcb *c);
/* Cuts the n points c[0..n) of weights w[0..n) into the R cells: at each
 * node along the longest side of its points' box, where the weights on
 * either side are in the ratio of the ranks on either side.  Returns 0, or
 * -1 when out of memory (the cells are then unchanged). */
int clash_rcb_cut(clash_rcb *c, int n, const double (*centre)[3], const double *w);
/* The rank whose cell holds point p. */
int clash_rcb_owner(const clash_rcb *c, const double p[3]);
/* The rank that reports the pairs of two objects with boxes whose lower
 * corners are alo and blo: the owner of the min corner of the boxes'
 * overlap (it lies in both boxes, so both objects are present there). */
int clash_rcb_reporter(const clash_rcb *c, const double alo[3], const double blo[3]);
/* A value keyed by a point (or object) number, and the qsort order that
 * both decomposed runs sort by: the value, then the number, so every rank
 * gets the same order whatever qsort does with ties. */
typedef struct clash_keyed {
    double v;
    int id;
} clash_keyed;
int clash_keyed_cmp(const void *x, const void *y);
/* Closed boxes [alo, ahi] and [blo, bhi] meet. */
int clash_box_overlaps(const double alo[3], const double ahi[3], const double blo[3], const double bhi[3]);

#endif
