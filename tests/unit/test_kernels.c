/*
 * test_kernels.c — the exact geometry kernels (tribox.c, tritri.c, hull.c) and
 * the octree's binning and descent passes (octree_cells.c).
 *
 *   test_kernels [N]     N = number of random tribox / tritri cases (default
 *                        1000000); the hull tests scale with N/10.  Use a
 *                        small N under sanitizers.
 *   test_kernels CASE... [N]   only the named cases (e.g. `test_kernels tritri 1000`)
 *   test_kernels --list        the cases, one a line, with what each checks
 *
 * The cases are in tests/unit/kernel_cases/ by kernel family (oracle.h: the
 * exact ground truth; triangles.h, hulls.h, cells.h, filters.h), included
 * below: one translation unit, so check.h's counters are shared.
 *
 * Ground truth.  On integer data (coordinates on a small grid, so every
 * product the kernels form is exact in double) the truth is computed exactly
 * in int64 by an oracle that shares no code with the kernels: two convex
 * hulls meet iff 0 is in conv{p - q}; the oracle first looks for an exact
 * separating axis (the complete axis set for the dimension of conv{p - q},
 * computed exactly), and when none separates it looks for a simplex of
 * points p - q (point, segment, triangle or tetrahedron, Carathéodory) that
 * contains 0 exactly.  A separating axis is a certificate of "apart", a
 * simplex one of "meet"; when neither is found the oracle reports its own
 * incompleteness, which is checked never to happen.
 *
 * Float data: the fast kernels are compared with the references, and every
 * disagreement must come from rounding near touching: the signed
 * separating-axis distance of the configuration (long double) must be within
 * 1e-12 of the scale.  The swept-hull kernels are checked for conservativeness:
 * they may say "meet" for apart sets, never "apart" for sets that meet.
 *
 * Timings (ns per call) are printed, not asserted.
 */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/mem.h"
#include "check.h"
#include "kernels/kernels.h"
#include "rng.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The cases, by kernel family (tests/unit/kernel_cases/). */
#include "kernel_cases/oracle.h"
#include "kernel_cases/triangles.h"
#include "kernel_cases/hulls.h"
#include "kernel_cases/cells.h"
#include "kernel_cases/filters.h"
#include "kernel_cases/boxes.h"

/* ============================================================================
 * timings
 * ========================================================================= */

static volatile long sink;

static void timings(void)
{
    enum { NP = 4096 };
    static double A[NP][6][3], B[NP][6][3], lo[NP][3], hi[NP][3];
    /* candidate-like pairs: triangles of size ~1 whose centres are ~0.4 apart, moving by ~0.1 */
    for (int i = 0; i < NP; ++i) {
        double c[3];
        for (int k = 0; k < 3; ++k) c[k] = rng_range(-50, 50);
        for (int j = 0; j < 3; ++j)
            for (int k = 0; k < 3; ++k) {
                A[i][j][k] = c[k] + rng_range(-0.5, 0.5);
                B[i][j][k] = c[k] + 0.25 + rng_range(-0.5, 0.5);
            }
        for (int j = 3; j < 6; ++j)
            for (int k = 0; k < 3; ++k) {
                A[i][j][k] = A[i][j - 3][k] + rng_range(-0.1, 0.1);
                B[i][j][k] = B[i][j - 3][k] + rng_range(-0.1, 0.1);
            }
        const double h = rng_range(0.05, 0.5);
        for (int k = 0; k < 3; ++k) {
            lo[i][k] = c[k] + rng_range(-0.8, 0.3);
            hi[i][k] = lo[i][k] + h;
        }
    }
    const int R = 50;
    long acc = 0;
    double t0;
    long meets;

#define TIME_IT(label, call)                                                                          \
    do {                                                                                              \
        meets = 0;                                                                                    \
        t0 = now_s();                                                                                 \
        for (int r = 0; r < R; ++r)                                                                   \
            for (int i = 0; i < NP; ++i) meets += (call);                                             \
        const double dt = now_s() - t0;                                                               \
        acc += meets;                                                                                 \
        printf("  %-34s %8.1f ns/call  (%.0f%% meet)\n", label, 1e9 * dt / ((double)R * NP),          \
               100.0 * (double)meets / ((double)R * NP));                                             \
    } while (0)

    printf("timings (4096 candidate-like pairs x %d):\n", R);
    TIME_IT("ck_hulls_meet 6 vs 6", ck_hulls_meet((const double(*)[3])A[i], 6, (const double(*)[3])B[i], 6, 0.0));
    TIME_IT("ck_hulls_meet_ref 6 vs 6",
            ck_hulls_meet_ref((const double(*)[3])A[i], 6, (const double(*)[3])B[i], 6, 0.0));
    TIME_IT("ck_hulls_meet 2 vs 6 (vertex-face)",
            ck_hulls_meet((const double(*)[3])A[i], 2, (const double(*)[3])B[i], 6, 0.0));
    TIME_IT("ck_tritri", ck_tritri(A[i][0], A[i][1], A[i][2], B[i][0], B[i][1], B[i][2]));
    TIME_IT("ck_tritri_ref", ck_tritri_ref(A[i][0], A[i][1], A[i][2], B[i][0], B[i][1], B[i][2]));
    TIME_IT("ck_tribox", ck_tribox(A[i][0], A[i][1], A[i][2], lo[i], hi[i]));
    TIME_IT("ck_tribox_ref", ck_tribox_ref(A[i][0], A[i][1], A[i][2], lo[i], hi[i]));
    TIME_IT("ck_hull_box 6 points", ck_hull_box((const double(*)[3])A[i], 6, lo[i], hi[i], 0.0));
    sink = acc;
#undef TIME_IT
}

static void test_timings(long n)
{
    (void)n;
    timings();
}

/* The cases, in the order a plain run takes them; `div` scales the run's N
 * down for the slower cases (N / div, at least `min`). */
static const struct kernel_case {
    const char *name;
    void (*run)(long n);
    long div, min;
    const char *what;
} cases[] = {
    {"tribox", test_tribox, 1, 0, "triangle/box overlap against the exact oracle"},
    {"tritri", test_tritri, 1, 0, "triangle/triangle intersection against the exact oracle"},
    {"hulls_grid", test_hulls_grid, 10, 0, "convex-hull overlap on integer sets (exact oracle)"},
    {"hulls_float", test_hulls_float, 10, 0, "convex-hull overlap on float sets (rounding near touching only)"},
    {"hulls_bool_tol", test_hulls_bool_tol, 500, 10, "the boolean GJK with a tolerance against brute-force distances"},
    {"hulls_rows", test_hulls_rows, 10, 0, "ck_hulls_meet_rows (S5's rows) against ck_hulls_meet"},
    {"hulls_gjk8", test_hulls_gjk8, 10, 0, "the eight-lane GJK: AVX2 and portable paths, certified answers"},
    {"hulls_filter", test_hulls_filter, 4, 0, "the swept hulls' eight-lane filter is conservative"},
    {"tris_filter", test_tris_filter, 4, 0, "the triangles' eight-lane filter says apart only where ck_tritri does"},
    {"rows8", test_rows8, 100, 0, "ck_rows8: the rows' floats in the filter's lanes"},
    {"hull_box", test_hull_box, 10, 0, "ck_hull_box against the exact tribox reference"},
    {"cells", test_cells, 1, 0, "the cell ranges of boxes: AVX2 against portable, against exact ranges"},
    {"leaf_overlaps", test_leaf_overlaps, 1, 0, "a leaf's overlap bitmap against the plain comparison"},
    {"flags_clear", test_flags_clear, 1, 0, "ck_flags_clear against the portable form and the definition"},
    {"slabs_clear", test_slabs_clear, 1, 0, "ck_slabs_clear (S3) against ck_box_meets_slabs box by box"},
    {"classify", test_classify, 1, 0, "ck_classify_boxes (S3) against the classes box by box"},
    {"mask_counts", test_mask_counts, 1, 0, "ck_mask_counts and ck_mask_or against counts mask by mask"},
    {"child_masks", test_child_masks, 1, 0, "ck_child_masks against the children box by box"},
    {"face_boxes", test_face_boxes, 1, 0, "S1's face boxes on the index patterns of every path, against the reference"},
    {"grow_boxes", test_grow_boxes, 1, 0, "a turning object's face boxes grown by their arc margins"},
    {"f32_round", test_f32_round, 1, 0, "ck_f32_up / ck_f32_down against nextafterf"},
    {"timings", test_timings, 1, 0, "ns per call of each kernel (printed, not asserted)"},
};
enum { NCASES = (int)(sizeof cases / sizeof cases[0]) };

static void usage(FILE *f)
{
    fprintf(f, "usage: test_kernels [--list] [CASE...] [N]\n"
               "  CASE  run only the named cases (default: all, in order); --list names them\n"
               "  N     random cases of the fastest kernels (default 1000000; the slower scale down)\n");
}

int main(int argc, char **argv)
{
    long n = 1000000;
    int chosen[NCASES] = {0}, any = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--list") == 0) {
            for (int c = 0; c < NCASES; c++) printf("%-16s %s\n", cases[c].name, cases[c].what);
            return 0;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        char *end;
        long v = strtol(a, &end, 10);
        if (end != a && *end == '\0') {
            n = v;
            continue;
        }
        int c = 0;
        while (c < NCASES && strcmp(cases[c].name, a) != 0) c++;
        if (c == NCASES) {
            fprintf(stderr, "test_kernels: no case '%s' (test_kernels --list names them)\n", a);
            return 2;
        }
        chosen[c] = any = 1;
    }
    if (n < 100) n = 100;
    for (int c = 0; c < NCASES; c++) {
        if (any && !chosen[c]) continue;
        long m = n / cases[c].div;
        if (m < cases[c].min) m = cases[c].min;
        double t = now_s();
        cases[c].run(m);
        printf("  %s (%.1f s)\n", cases[c].name, now_s() - t);
    }
    return check_finish("test_kernels");
}
