/*
 * transpose8.h — the 8 x 8 float transpose of the lane kernels (AVX2):
 * a[r] holds row r of a block, on return a[c] holds its column c.  Rows of
 * per-face data (S5's rows, the faces' DOPs) become the lanes of the SoA
 * kernels (hull_filter8.c's ck_rows8), and lanes become rows again (face_dops.c).
 * Unpack, shuffle, then a swap of 128-bit halves: 24 shuffles for 64
 * floats, in registers.  Include it from code compiled for AVX2 only.
 */
#ifndef CLASH_KERNELS_TRANSPOSE8_H
#define CLASH_KERNELS_TRANSPOSE8_H

#include <immintrin.h>

static inline __attribute__((always_inline, target("avx2"))) void ck_transpose8(__m256 a[8])
{
    __m256 t[8];
    for (int l = 0; l < 8; l += 2)
        t[l] = _mm256_unpacklo_ps(a[l], a[l + 1]), t[l + 1] = _mm256_unpackhi_ps(a[l], a[l + 1]);
    for (int l = 0; l < 8; l += 4) {
        a[l] = _mm256_shuffle_ps(t[l], t[l + 2], 0x44), a[l + 1] = _mm256_shuffle_ps(t[l], t[l + 2], 0xee);
        a[l + 2] = _mm256_shuffle_ps(t[l + 1], t[l + 3], 0x44), a[l + 3] = _mm256_shuffle_ps(t[l + 1], t[l + 3], 0xee);
    }
    /* a[0..3]: columns 0 1 2 3 of rows 0-3 (low half) and 4 5 6 7 (high
     * half); a[4..7] the same for rows 4-7 */
    for (int c = 0; c < 4; ++c) {
        t[c] = _mm256_permute2f128_ps(a[c], a[4 + c], 0x20);
        t[4 + c] = _mm256_permute2f128_ps(a[c], a[4 + c], 0x31);
    }
    for (int c = 0; c < 8; ++c) a[c] = t[c];
}

#endif
