/*
 * bvh_node.c — the node test of a wide BVH: which of the W children's
 * boxes (stored SoA inside the node, see bvh_kernels.h) meet a query box.
 *
 * Per node and query: reads 6*W floats (96 bytes for W = 4, 192 for W = 8,
 * one or two cache lines of a 64-byte aligned node) and does 6*W compares.
 * The optimized loop computes every lane without branches and packs the
 * results into a bit mask; with SSE2 that is six packed compares for W = 4.
 */
#include "kernels/bvh_kernels.h"

#define OVERLAP_BODY(W)                                                                                 \
    const float *restrict lx = nb, *restrict ly = nb + (W), *restrict lz = nb + 2 * (W);                \
    const float *restrict hx = nb + 3 * (W), *restrict hy = nb + 4 * (W), *restrict hz = nb + 5 * (W); \
    const float qlx = lo[0], qly = lo[1], qlz = lo[2], qhx = hi[0], qhy = hi[1], qhz = hi[2];           \
    int ok[W];                                                                                          \
    for (int i = 0; i < (W); ++i)                                                                       \
        ok[i] = (lx[i] <= qhx) & (hx[i] >= qlx) & (ly[i] <= qhy) & (hy[i] >= qly) & (lz[i] <= qhz) &    \
                (hz[i] >= qlz);                                                                         \
    unsigned m = 0;                                                                                     \
    for (int i = 0; i < (W); ++i) m |= (unsigned)ok[i] << i;                                           \
    return m;

unsigned ck_bvh4_overlap(const float *nb, const float lo[3], const float hi[3]) { OVERLAP_BODY(4) }
unsigned ck_bvh8_overlap(const float *nb, const float lo[3], const float hi[3]) { OVERLAP_BODY(8) }

static unsigned overlap_ref(int w, const float *nb, const float lo[3], const float hi[3])
{
    unsigned m = 0;
    for (int i = 0; i < w; ++i) {
        int ok = 1;
        for (int d = 0; d < 3 && ok; ++d)
            if (nb[d * w + i] > hi[d] || nb[(3 + d) * w + i] < lo[d]) ok = 0;
        if (ok) m |= 1u << i;
    }
    return m;
}

unsigned ck_bvh4_overlap_ref(const float *nb, const float lo[3], const float hi[3])
{
    return overlap_ref(4, nb, lo, hi);
}
unsigned ck_bvh8_overlap_ref(const float *nb, const float lo[3], const float hi[3])
{
    return overlap_ref(8, nb, lo, hi);
}
