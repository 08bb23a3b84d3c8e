/*
 * rigidtree.h — what the BoxTree (boxtree.c) and the DOP-tree (doptree.c)
 * midphases share (Zachmann [Zachmann00] §3.5): both build one tree per rigid object
 * in the object's own frame once, and query object B against object A in
 * A's frame.  rigidtree.c has the frames ("views"), the conservative margin,
 * the work units, the leaf pairs and the parallel traversal driver; its
 * opening comment explains the frames and why the margin is enough.
 */
#ifndef CLASH_STAGES_MID_RIGIDTREE_H
#define CLASH_STAGES_MID_RIGIDTREE_H

#include "core/run.h"
#include "stages/mid/midphase.h"

/* Where a local frame lands in A's frame: x_A = V x + o (V row-major). */
typedef struct rt_view {
    double V[9], o[3];
} rt_view;

/* One work unit of a step: object b queried against object a in a's frame
 * at state s.  Static mode: A has the view I, B the view M = A_s^-1 B_s.
 * Swept mode: A has I and Q = A_s^-1 A_{s-1}, B has M and M' = A_s^-1 B_{s-1}:
 * a face's swept hull lies in the union of its images under a side's views. */
typedef struct rt_pair {
    int32_t a, b;     /* a == b: self-collision of a */
    int nva, nvb;     /* 1 (static) or 2 (swept) */
    rt_view va[2], vb[2];
    double grow;      /* margin added to every box or DOP offset, A's local units */
} rt_pair;

/* The per-run trees of one method, kept between steps. */
typedef struct clash_rtrees {
    int midphase;                            /* CLASH_MID_BOXTREE or _DOPTREE */
    void *trees;
    void (*destroy)(void *trees, int nobj);
} clash_rtrees;

/* The units of this step: every object pair of S2 and, with
 * self-collision, every object of two or more faces; radius[o] is the
 * largest |local coordinate| of object o, rel the relative rounding the
 * method's arithmetic may accumulate (>= 1e-12), both for the margin.  NULL
 * when out of memory (*n is then 0). */
rt_pair *rt_pairs(const clash_run *run, const double *radius, double rel, size_t *n);

/* The inverse of the 3 x 3 matrix M (row-major, by cofactors), and a bound
 * on its largest stretch (its Frobenius norm).  M: a scaled rotation, far
 * from singular. */
double rt_inverse3(const double M[9], double Mi[9]);

/* A view's aligned box: the box [lo, hi] of a local frame mapped by v,
 * enclosed by A's axes (exact up to rounding: centre V c + o, half extents
 * |V| h). */
void rt_view_box(const rt_view *v, const double lo[3], const double hi[3], double olo[3], double ohi[3]);

/* Appends the candidates among leaf faces fa[0..na) x fb[0..nb): eligible
 * pairs whose world face boxes (S1) overlap grown by delta, the oracle's
 * predicate.  fa == fb: one leaf against itself (each pair once). */
int rt_leaf_pairs(const clash_run *run, clash_keybuf *kb, const uint32_t *fa, int na, const uint32_t *fb, int nb);

/* A stack of fixed-size traversal items. */
typedef struct rt_stack {
    unsigned char *v;
    size_t n, cap, isz;
} rt_stack;
int rt_push(rt_stack *s, const void *item);

/* One traversal step: reads item, pushes follow-up items on st, appends
 * candidates to kb.  Returns -1 when out of memory. */
typedef int (*rt_step_fn)(const void *ctx, const void *item, rt_stack *st, clash_keybuf *kb);

/* After the traversal, on the calling thread: whatever a worker's step
 * left pending, into its buffer kb (worker w).  Returns -1 when out of memory. */
typedef int (*rt_flush_fn)(const void *ctx, int w, clash_keybuf *kb);

/* Runs the traversal of every root item of `units` (items of units->isz
 * bytes) on the run's team and leaves the sorted unique candidates in
 * run->mid->cand.keys (flush, when not NULL, called for every worker first).  With
 * more than one thread the top levels are first expanded serially into
 * more units.  Returns a clash_status; `name` goes into the error message. */
int rt_traverse(clash_run *run, rt_stack *units, rt_step_fn step, rt_flush_fn flush, const void *ctx,
                const char *name, clash_error *err);

/* Minimum and maximum of finite values, as single compare-and-selects
 * (fmin/fmax are library calls where NaN rules must be kept). */
static inline double rt_min(double a, double b) { return a < b ? a : b; }
static inline double rt_max(double a, double b) { return a > b ? a : b; }
static inline float rt_minf(float a, float b) { return a < b ? a : b; }
static inline float rt_maxf(float a, float b) { return a > b ? a : b; }

/* Seconds on a monotonic clock (build times). */
double rt_now(void);

#endif
