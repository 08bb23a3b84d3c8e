/*
 * ccd.h — exact continuous collision detection of primitive pairs, with the
 * time of impact.
 *
 * Two primitives whose four points move linearly from x0 (t = 0) to x1
 * (t = 1): a vertex against a triangle (CK_CCD_VF) or an edge against an
 * edge (CK_CCD_EE).  The kernel (ccd.c) is conservative: it never misses a
 * contact, and its time of impact is never later than the true first
 * contact.  Method, error bound and filter: the comment opening ccd.c.
 *
 * Rules of kernels/ apply: no allocation, no threads, no globals, no I/O.
 */
#ifndef CLASH_KERNELS_CCD_H
#define CLASH_KERNELS_CCD_H

#include <stdint.h>

enum { CK_CCD_VF = 0, CK_CCD_EE = 1 };

typedef struct ck_ccd_opts {
    double tolerance;    /* accuracy of the toi (default 1e-6): the reported toi is within
                            tolerance of the true first contact, and never later than it */
    double min_sep;      /* contact when the primitives come within this distance (>= 0; default 0) */
    int64_t max_iter;    /* bound on the root finder's work per query (<= 0: the kernel's default);
                            when reached the query is reported as a hit at the lower bound found so far
                            (conservative) */
} ck_ccd_opts;
/* (max_iter counts the parameter boxes the root finder examines; its fixed storage of 1024 live
 * boxes filling, or a box that may not be split further, ends the search the same conservative
 * way.) */

typedef struct ck_ccd_counts {  /* summed by the caller over workers */
    int64_t tests;        /* queries */
    int64_t filter_no;    /* decided "no contact" by the float filter */
    int64_t filter_yes;   /* decided by the filter otherwise, if your filter can (else 0) */
    int64_t exact_calls;  /* queries that went to the exact/inclusion path */
    int64_t hits;
} ck_ccd_counts;

/* The defaults: tolerance 1e-6, min_sep 0, max_iter 0 (the kernel's default,
 * CK_CCD_MAX_ITER boxes examined per query). */
#define CK_CCD_TOLERANCE 1e-6
#define CK_CCD_MAX_ITER 1000000
static inline ck_ccd_opts ck_ccd_defaults(void)
{
    ck_ccd_opts o = {CK_CCD_TOLERANCE, 0.0, 0};
    return o;
}

/* One query.  x0[4][3]: the 4 points at t = 0, x1[4][3]: at t = 1, each moving linearly.
 * CK_CCD_VF: points are v, f0, f1, f2 (the vertex, the face's three corners).
 * CK_CCD_EE: points are a0, a1, b0, b1 (two edges).
 * Returns 1 when the primitives come within o->min_sep of each other at some t in [0, 1]
 * (touching counts), with *toi <= the first such t (and within o->tolerance of it, except
 * when max_iter was reached); 0 when they certainly do not.  Never a false negative.
 * o may be NULL (the defaults); c may be NULL (no counts).  *toi is 1.0 when 0 is returned.
 * With min_sep > 0 the distance is measured in the max norm (conservative: never above the
 * Euclidean one), so toi may come before the first Euclidean approach within min_sep, down to
 * the first time the max-norm distance is min_sep.  "Within tolerance" holds when the box the
 * search accepts holds a contact; a pass closer than the rounding bound (~1e-15 of the
 * coordinates' magnitude) or than tolerance x the query's extent / 8 may be a hit (a false
 * positive), with toi that early.  c->filter_yes stays 0: the filters (axis separation, then
 * coplanarity) only say "no"; c->filter_no counts both.
 * Non-finite coordinates, or options out of range (tolerance <= 0 or NaN, min_sep < 0 or
 * NaN), give a hit at toi 0 (conservative). */
int ck_ccd(int kind, const double x0[4][3], const double x1[4][3], const ck_ccd_opts *o, double *toi,
           ck_ccd_counts *c);

/* n queries of one kind, in arrays of 4x3 doubles: hit[i] 0/1, toi[i] (1.0 when no hit).
 * Runs the float filters (axis separation, then coplanarity) over several queries at a time (AVX2
 * where the CPU has it, scalar otherwise), then the exact path on the undecided ones.  Results identical to calling ck_ccd
 * on each query. */
void ck_ccd_batch(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3],
                  const ck_ccd_opts *o, uint8_t *hit, double *toi, ck_ccd_counts *c);

/* ---- the parts, for tests and benchmarks ----------------------------------------
 * ck_ccd_filter / ck_ccd_filter_ref: the float filter on n queries: keep[i] = 0 when query i
 * is certainly apart by more than min_sep (its corner differences along an axis beyond min_sep
 * at t = 0 and t = 1, ccd_filter.c), else 1.  The first uses
 * AVX2 when the CPU has it; the reference is the portable scalar twin; both give identical
 * decisions.
 * ck_ccd_exact: the inclusion root finder alone, without the filter (same contract as
 * ck_ccd; o must not be NULL); *iters (may be NULL) receives the boxes it examined.
 * ck_ccd_exact_ref: the reference search, the same inclusion test and acceptance explored
 * by plain recursion (widest parameter first, no heap, no heuristics): slower, for the tests
 * to compare against.  When o->max_iter boxes are spent it answers a hit at t = 0. */
void ck_ccd_filter(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3], double min_sep,
                   uint8_t *keep);
void ck_ccd_filter_ref(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3], double min_sep,
                       uint8_t *keep);
/* ck_ccd_planes / ck_ccd_planes_ref: the coplanarity filter (ccd_planes.c), run by ck_ccd and
 * ck_ccd_batch after the boxes: clears keep[i] when the four points of query i are never
 * coplanar within the bound that min_sep and rounding allow (so never within min_sep); never
 * sets it.  AVX2 when the CPU has it / the portable twin; identical decisions. */
void ck_ccd_planes(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3], double min_sep,
                   uint8_t *keep);
void ck_ccd_planes_ref(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3], double min_sep,
                       uint8_t *keep);
/* ck_ccd_planes_window: up to 3 windows win[i] = [lo, hi], in order, disjoint, their ends
 * multiples of 2^-depth (1 <= depth <= 40), such that the four points are certainly never
 * coplanar within what min_sep allows outside them, so every contact comes in one of them.
 * Returns their count, or -1 when nothing is certified.  The root finder searches only
 * there. */
int ck_ccd_planes_window(int kind, const double x0[4][3], const double x1[4][3], double min_sep, int depth,
                         double win[3][2]);
int ck_ccd_exact(int kind, const double x0[4][3], const double x1[4][3], const ck_ccd_opts *o, double *toi,
                 int64_t *iters);
/* 1 when the options and the coordinates can be searched (finite, |x| <= 1e300, tolerance > 0,
 * 0 <= min_sep < inf); ck_ccd answers the others with a hit at toi 0 */
int ck_ccd_usable(const ck_ccd_opts *o, const double x0[4][3], const double x1[4][3]);
int ck_ccd_exact_ref(int kind, const double x0[4][3], const double x1[4][3], const ck_ccd_opts *o, double *toi,
                     int64_t *iters);

#endif
