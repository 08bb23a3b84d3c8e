/*
 * bvh_kernels.h — node tests of wide bounding-volume hierarchies.
 *
 * A wide node stores the boxes of its W children (W = 4 or 8) as six float
 * arrays one after another: lo_x[W] lo_y[W] lo_z[W] hi_x[W] hi_y[W] hi_z[W]
 * (structure of arrays inside the node, src/README.md "Data layout"), so
 * one SIMD compare tests the same coordinate of all W children.  `nb` points
 * at lo_x[0]; an unused child slot holds the empty box (lo = +inf,
 * hi = -inf), which no test accepts.
 *
 * ck_bvhW_overlap returns the bit mask of children whose closed box meets
 * the closed query box [lo, hi] (touching counts).  The optimized versions
 * are branch-free over all W lanes (the compiler turns them into packed
 * compares); the _ref versions are the plain loop with early exits.
 * No allocation, no threads, no I/O.
 */
#ifndef CLASH_BVH_KERNELS_H
#define CLASH_BVH_KERNELS_H

unsigned ck_bvh4_overlap(const float *nb, const float lo[3], const float hi[3]);
unsigned ck_bvh4_overlap_ref(const float *nb, const float lo[3], const float hi[3]);
unsigned ck_bvh8_overlap(const float *nb, const float lo[3], const float hi[3]);
unsigned ck_bvh8_overlap_ref(const float *nb, const float lo[3], const float hi[3]);

#endif
