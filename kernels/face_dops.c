/*
 * face_dops.c — ten diagonal slabs around each swept face, beside its box, and
 * the test of two faces' slabs: the face octree's leaves keep a pair only
 * when all thirteen slabs of the two faces overlap (stages/mid/octree.c).
 *
 * In swept mode a face is the hull of its six positions (three vertices at
 * s, three at s-1), and a leaf of the face octree makes a candidate of two
 * faces whose boxes overlap.  On cluttered scenes the objects move a good
 * part of their size in a step, so the hulls are long slanted prisms and a
 * box holds much empty space: on the cluttered spheres most candidates of
 * the box test are apart, found so by S5's float filter only after each
 * had been written, merged, gathered and tested.  The hulls' extents along
 * the four body diagonals (1,+-1,+-1) show most of those apart, and with
 * the six face diagonals (1,+-1,0), (1,0,+-1), (0,1,+-1) more still, where
 * the box's own axes show few (bench/RESULTS.md).  That is the 26-DOP
 * of the k-DOP literature (Klosowski et al. 1998; Zachmann's DOP-tree, [Zachmann00]),
 * here one per face and step, not a tree.
 *
 * A face's DOP: for each direction d of the ten (components -1, 0, 1, not
 * normalised), lo = min over the six points of d·x minus G and hi = max
 * plus G, where G covers the pair's tolerance and the float rounding:
 *     G = g c_d + 2^-18 M,
 * g (per face, >= 0, a float the caller rounds up) the face's share of the
 * narrow test's tolerance (its arc margin plus half the minimum
 * separation), c_d >= |d|_2 (1 + 10^-6) (sqrt 3 or sqrt 2), M the largest
 * |coordinate| of the six points.  Two hulls within distance g_a + g_b
 * are within (g_a + g_b) |d|_2 along d; so when hi_a < lo_b along some d
 * (or the reverse), they are farther apart than their tolerance and
 * ck_hulls_meet says 0: the pair can be dropped.
 *
 * The roundings.  The points are the store's floats (exact); d·x is one or
 * two float additions, within 2u (|x| + |y| + |z|) <= 6u M of the exact
 * value (u = 2^-24); lo - G and hi + G round once more, by at most
 * u (3M + G).  So the computed lo is below the exact minimum minus g |d|
 * as long as G (1 - u) >= g |d|_2 + 9.1 u M, which 2^-18 M = 64 u M and the
 * factor 1 + 10^-6 on c_d (three roundings of G: 3u) give with room.  A
 * lane whose coordinates are not finite or above 2^100 (or whose g is not),
 * where sums might overflow, gets G = +inf: lo = -inf and hi = +inf, or NaN
 * where its coordinates are NaN; neither compares below anything, so it
 * overlaps everything, and the box test and S5 decide it.
 *
 * Layout: a face's DOP is CK_FDOP = 20 floats, lo of directions 0..9 then
 * hi of 0..9.  ck_face_dops8 makes eight faces' DOPs from their points in
 * the lanes of ck_rows8 (p[c][lane], c < 18: x y z of points 0..5) and
 * writes each to out[lane]; ck_fdop_mask clears, in a bitmap of a leaf's
 * box overlaps, the bits of the faces whose DOP misses face a's.  Each has
 * an AVX2 path and a portable one (the same float operations in the same
 * order, so the same bits: tests/unit/test_fdop.c checks it, and every drop
 * against the exact hull test and against the slabs in long double).
 */
#include <stdint.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/cpu.h"

#define FDOP_MAXC 0x1p100f
#define FDOP_REL 0x1p-18f
#define C3 1.7320527f /* >= sqrt(3) (1 + 1e-6): sqrt(3) = 1.7320508... */
#define C2 1.4142152f /* >= sqrt(2) (1 + 1e-6): sqrt(2) = 1.4142135... */

#define LANES for (int l = 0; l < 8; ++l)

static inline float d_abs(float a) { return a < 0 ? -a : a; }
static inline float d_min(float a, float b) { return b < a ? b : a; }
static inline float d_max(float a, float b) { return b > a ? b : a; }

/* Lane l of the ten directions' running extents lo, hi with the point
 * (a, b, c): one expression a direction, the directions' order below. */
static inline __attribute__((always_inline)) void d_update(float (*lo)[8], float (*hi)[8], int l, float a, float b,
                                                           float c)
{
    const float t1 = a + b, t2 = a - b;
    const float v[10] = {t1 + c, t1 - c, t2 + c, c - t2, t1, t2, a + c, a - c, b + c, b - c};
    for (int d = 0; d < 10; ++d) lo[d][l] = d_min(lo[d][l], v[d]), hi[d][l] = d_max(hi[d][l], v[d]);
}

/* o[c][lane]: the DOPs of the eight faces as columns (c < 20: lo of
 * directions 0..9, then hi; rows 20..23 are left as they were).
 * Directions 0..3: (1,1,1) (1,1,-1) (1,-1,1) (-1,1,1); 4..9: (1,1,0)
 * (1,-1,0) (1,0,1) (1,0,-1) (0,1,1) (0,1,-1). */
static inline __attribute__((always_inline)) void x8_dops(const float (*p)[8], const float g[8], float (*o)[8])
{
    float lo[10][8], hi[10][8], M[8], G3[8], G2[8];
    int ok[8];
#pragma omp simd
    LANES M[l] = 0, ok[l] = (g[l] >= 0) & (g[l] <= FDOP_MAXC);
    for (int c = 0; c < 18; ++c) {
#pragma omp simd
        LANES
        {
            const float a = d_abs(p[c][l]);
            ok[l] &= a <= FDOP_MAXC; /* NaN fails */
            M[l] = d_max(M[l], a);
        }
    }
    for (int d = 0; d < 10; ++d) {
#pragma omp simd
        LANES lo[d][l] = __builtin_inff(), hi[d][l] = -__builtin_inff();
    }
    for (int k = 0; k < 6; ++k) {
        const float *x = p[3 * k], *y = p[3 * k + 1], *z = p[3 * k + 2];
#pragma omp simd
        LANES d_update(lo, hi, l, x[l], y[l], z[l]);
    }
#pragma omp simd
    LANES
    {
        const float e = FDOP_REL * M[l], bad = ok[l] ? 0.0f : __builtin_inff(); /* inf: -inf / +inf below */
        G3[l] = g[l] * C3 + e + bad, G2[l] = g[l] * C2 + e + bad;
    }
    for (int d = 0; d < 4; ++d) {
#pragma omp simd
        LANES o[d][l] = lo[d][l] - G3[l], o[10 + d][l] = hi[d][l] + G3[l];
    }
    for (int d = 4; d < 10; ++d) {
#pragma omp simd
        LANES o[d][l] = lo[d][l] - G2[l], o[10 + d][l] = hi[d][l] + G2[l];
    }
}

void ck_face_dops8_plain(const float p[24][8], const float g[8], int n, float *const out[8])
{
    float o[24][8];
    x8_dops(p, g, o);
    for (int l = 0; l < n; ++l)
        for (int c = 0; c < CK_FDOP; ++c) out[l][c] = o[c][l];
}

#if defined(__GNUC__) && defined(__x86_64__)
#include "kernels/transpose8.h"
/* The columns back into rows: two 8 x 8 transposes, and a third whose
 * first four floats a row are written (columns 16..19). */
static CK_TARGET_AVX2 void dops_avx2(const float p[24][8], const float g[8], int n, float *const out[8])
{
    float o[24][8];
    for (int c = 20; c < 24; ++c) _mm256_storeu_ps(o[c], _mm256_setzero_ps()); /* (unused lanes) */
    x8_dops(p, g, o);
    for (int b = 0; b < 24; b += 8) {
        __m256 a[8];
        for (int c = 0; c < 8; ++c) a[c] = _mm256_loadu_ps(o[b + c]);
        ck_transpose8(a);
        if (b < 16)
            for (int l = 0; l < n; ++l) _mm256_storeu_ps(out[l] + b, a[l]);
        else
            for (int l = 0; l < n; ++l) _mm_storeu_ps(out[l] + b, _mm256_castps256_ps128(a[l]));
    }
}
#endif

void ck_face_dops8(const float p[24][8], const float g[8], int n, float *const out[8])
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (ck_have_avx2()) {
        dops_avx2(p, g, n, out);
        return;
    }
#endif
    ck_face_dops8_plain(p, g, n, out);
}

/* ---- the pair test ---------------------------------------------------------------- */

uint64_t ck_fdop_mask_plain(const float *dop, int32_t a, const int32_t *b, uint64_t bits)
{
    const float *A = dop + (size_t)CK_FDOP * (size_t)a;
    uint64_t out = bits;
    for (; bits; bits &= bits - 1) {
        const int k = __builtin_ctzll(bits);
        const float *B = dop + (size_t)CK_FDOP * (size_t)b[k];
        int sep = 0;
        for (int d = 0; d < 10; ++d) sep |= (A[10 + d] < B[d]) | (B[10 + d] < A[d]);
        if (sep) out &= ~((uint64_t)1 << k);
    }
    return out;
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
/* Four loads a row: lo 0..7, lo 8..9 (lanes 0-1 of the load at 8), hi
 * 0..7 (at 10), hi 8..9 (lanes 0-1 of the load at 18: it reads 6 floats
 * past the row, the next row's or the caller's padding, masked out). */
static CK_TARGET_AVX2 uint64_t mask_avx2(const float *dop, int32_t a, const int32_t *b, uint64_t bits)
{
    const float *A = dop + (size_t)CK_FDOP * (size_t)a;
    const __m256 al0 = _mm256_loadu_ps(A), al8 = _mm256_loadu_ps(A + 8);
    const __m256 ah0 = _mm256_loadu_ps(A + 10), ah8 = _mm256_loadu_ps(A + 18);
    uint64_t out = bits;
    for (; bits; bits &= bits - 1) {
        const int k = __builtin_ctzll(bits);
        const float *B = dop + (size_t)CK_FDOP * (size_t)b[k];
        const __m256 bl0 = _mm256_loadu_ps(B), bl8 = _mm256_loadu_ps(B + 8);
        const __m256 bh0 = _mm256_loadu_ps(B + 10), bh8 = _mm256_loadu_ps(B + 18);
        const __m256 s0 = _mm256_or_ps(_mm256_cmp_ps(ah0, bl0, _CMP_LT_OQ), _mm256_cmp_ps(bh0, al0, _CMP_LT_OQ));
        const __m256 s8 = _mm256_or_ps(_mm256_cmp_ps(ah8, bl8, _CMP_LT_OQ), _mm256_cmp_ps(bh8, al8, _CMP_LT_OQ));
        const int sep = _mm256_movemask_ps(s0) | (_mm256_movemask_ps(s8) & 3);
        out &= ~((uint64_t)(sep != 0) << k);
    }
    return out;
}
#endif

uint64_t ck_fdop_mask(const float *dop, int32_t a, const int32_t *b, uint64_t bits)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (ck_have_avx2()) return mask_avx2(dop, a, b, bits);
#endif
    return ck_fdop_mask_plain(dop, a, b, bits);
}

/* ---- an object's slabs: its points' extents along the ten directions ----------------
 * (stages/broad_dop.c).  Eight points at a time into lane accumulators,
 * then folded; min and max are exact, so the order does not matter and
 * both paths give the same floats.  Returns 0 when a coordinate is not
 * finite or above 2^100 (then nothing is claimed). */
/* Lane l takes the point (a, b, c): its extents, its largest |coordinate|,
 * whether it is finite and at most 2^100 (NaN fails). */
static inline __attribute__((always_inline)) void x_point(float (*L)[8], float (*H)[8], float *m, int *ok, int l,
                                                          float a, float b, float c)
{
    ok[l] &= (d_abs(a) <= FDOP_MAXC) & (d_abs(b) <= FDOP_MAXC) & (d_abs(c) <= FDOP_MAXC);
    m[l] = d_max(m[l], d_max(d_abs(a), d_max(d_abs(b), d_abs(c))));
    d_update(L, H, l, a, b, c);
}

static inline __attribute__((always_inline)) int x_points(int64_t n, const float *x, const float *y, const float *z,
                                                          float lo[10], float hi[10], float *M)
{
    float L[10][8], H[10][8], m[8];
    int ok[8];
    for (int d = 0; d < 10; ++d) {
#pragma omp simd
        LANES L[d][l] = __builtin_inff(), H[d][l] = -__builtin_inff();
    }
#pragma omp simd
    LANES m[l] = 0, ok[l] = 1;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
#pragma omp simd
        LANES x_point(L, H, m, ok, l, x[i + l], y[i + l], z[i + l]);
    }
    for (int l = 0; i < n; ++i, l = (l + 1) & 7) x_point(L, H, m, ok, l, x[i], y[i], z[i]); /* the tail, in turn */
    int good = 1;
    for (int l = 0; l < 8; ++l) {
        good &= ok[l];
        *M = d_max(*M, m[l]);
        for (int d = 0; d < 10; ++d) lo[d] = d_min(lo[d], L[d][l]), hi[d] = d_max(hi[d], H[d][l]);
    }
    return good;
}

int ck_points_dop_plain(int64_t n, const float *x, const float *y, const float *z, float lo[10], float hi[10],
                        float *M)
{
    return x_points(n, x, y, z, lo, hi, M);
}

static CK_TARGET_AVX2 int points_avx2(int64_t n, const float *x, const float *y, const float *z, float lo[10],
                                      float hi[10], float *M)
{
    return x_points(n, x, y, z, lo, hi, M);
}

int ck_points_dop(int64_t n, const float *x, const float *y, const float *z, float lo[10], float hi[10], float *M)
{
    if (ck_have_avx2()) return points_avx2(n, x, y, z, lo, hi, M);
    return ck_points_dop_plain(n, x, y, z, lo, hi, M);
}

/* ---- the regions' diagonal slabs (S3, stages/finegrain.c) ------------------------------ */
#define SLABS_ARGS                                                                                               \
    int64_t m, const float *restrict lx, const float *restrict ly, const float *restrict lz,                    \
        const float *restrict hx, const float *restrict hy, const float *restrict hz, const float S[20],       \
        uint8_t *restrict cls
void ck_slabs_clear_ref(SLABS_ARGS)
{
    for (int64_t k = 0; k < m; ++k)
        if (cls[k] && !ck_box_meets_slabs(lx[k], ly[k], lz[k], hx[k], hy[k], hz[k], S)) cls[k] = 0;
}
#if defined(__GNUC__) && defined(__x86_64__)
/* Four boxes a step, lane by lane the sums of ck_box_meets_slabs in its
 * order (a sum two directions share is made once: the same value); a step
 * whose four classes are all 0 is skipped (most boxes miss the region). */
static CK_TARGET_AVX2 void slabs_avx2(SLABS_ARGS)
{
    __m256d sl[10], sh[10];
    for (int d = 0; d < 10; ++d) sl[d] = _mm256_set1_pd(S[d]), sh[d] = _mm256_set1_pd(S[10 + d]);
    int64_t k = 0;
    for (; k + 4 <= m; k += 4) {
        uint32_t c4;
        memcpy(&c4, cls + k, 4);
        if (!c4) continue;
        const __m256d Lx = _mm256_cvtps_pd(_mm_loadu_ps(lx + k)), Ly = _mm256_cvtps_pd(_mm_loadu_ps(ly + k));
        const __m256d Lz = _mm256_cvtps_pd(_mm_loadu_ps(lz + k)), Hx = _mm256_cvtps_pd(_mm_loadu_ps(hx + k));
        const __m256d Hy = _mm256_cvtps_pd(_mm_loadu_ps(hy + k)), Hz = _mm256_cvtps_pd(_mm_loadu_ps(hz + k));
        const __m256d lxy = _mm256_add_pd(Lx, Ly), lxmy = _mm256_sub_pd(Lx, Hy), lyz = _mm256_add_pd(Ly, Lz);
        const __m256d hxy = _mm256_add_pd(Hx, Hy), hxmy = _mm256_sub_pd(Hx, Ly), hyz = _mm256_add_pd(Hy, Hz);
        const __m256d l[10] = {_mm256_add_pd(lxy, Lz), _mm256_sub_pd(lxy, Hz), _mm256_add_pd(lxmy, Lz),
                               _mm256_sub_pd(lyz, Hx), lxy, lxmy, _mm256_add_pd(Lx, Lz), _mm256_sub_pd(Lx, Hz),
                               lyz, _mm256_sub_pd(Ly, Hz)};
        const __m256d h[10] = {_mm256_add_pd(hxy, Hz), _mm256_sub_pd(hxy, Lz), _mm256_add_pd(hxmy, Hz),
                               _mm256_sub_pd(hyz, Lx), hxy, hxmy, _mm256_add_pd(Hx, Hz), _mm256_sub_pd(Hx, Lz),
                               hyz, _mm256_sub_pd(Hy, Lz)};
        __m256d miss = _mm256_setzero_pd();
        for (int d = 0; d < 10; ++d)
            miss = _mm256_or_pd(miss, _mm256_or_pd(_mm256_cmp_pd(h[d], sl[d], _CMP_LT_OQ),
                                                   _mm256_cmp_pd(l[d], sh[d], _CMP_GT_OQ)));
        const int mm = _mm256_movemask_pd(miss);
        for (int j = 0; j < 4; ++j)
            if (mm >> j & 1) cls[k + j] = 0;
    }
    ck_slabs_clear_ref(m - k, lx + k, ly + k, lz + k, hx + k, hy + k, hz + k, S, cls + k);
}
#endif
void ck_slabs_clear(SLABS_ARGS)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (ck_have_avx2()) {
        slabs_avx2(m, lx, ly, lz, hx, hy, hz, S, cls);
        return;
    }
#endif
    ck_slabs_clear_ref(m, lx, ly, lz, hx, hy, hz, S, cls);
}
