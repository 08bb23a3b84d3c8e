/*
 * octree_cells.c — the streaming passes of the face octree (S4): for its binning,
 * bounds and mean size of the kept faces' boxes, and the grid cells each
 * box touches.  Both read the boxes through the list of kept faces, so the
 * AVX2 paths gather (vgatherdps) eight boxes at a time, or on AMD build the
 * eight lanes from scalar loads (faster there, see load8); the portable
 * paths compute exactly the same numbers (same operations, same order), so
 * the octree never depends on the CPU it ran on.
 *
 * These replace scalar loops per face (bench/RESULTS.md has their cost).
 * Cells are computed in float: in double (convert, subtract, scale,
 * convert back) the pass costs several times the gathers, in float little
 * more; the caller widens the boxes by the float rounding instead.  The
 * cells pass also decides here, rather than in the counting loop, whether
 * a box lies in one cell (most do), so that counting and scattering such a
 * face is one increment.
 * The descent below the units (octree.c's visit) asks of each face of a
 * cell which of its eight children the face's box reaches: the same
 * gathers, three pairs of compares, a mask byte a face (ck_child_masks).
 */
#include <math.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/cpu.h"

/* ---- portable --------------------------------------------------------------------- */

/* The edge sum: face k of the list goes to lane k % 8, lanes start at 0 and
 * are added in this fixed tree at the end (the AVX2 path's order). */
static double lanes_sum(const double a[8])
{
    return ((a[0] + a[4]) + (a[2] + a[6])) + ((a[1] + a[5]) + (a[3] + a[7]));
}

static void bounds_tail(size_t k, size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                        float bl[3], float bh[3], double lane[8])
{
    for (; k < n; ++k) {
        const uint32_t f = idx[k];
        float e = 0;
        for (int d = 0; d < 3; ++d) {
            const float a = lo[d][f], b = hi[d][f];
            bl[d] = a < bl[d] ? a : bl[d];
            bh[d] = b > bh[d] ? b : bh[d];
            e = b - a > e ? b - a : e;
        }
        lane[k & 7] += (double)e;
    }
}

void ck_gather_bounds_ref(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                          float bl[3], float bh[3], double *edge_sum)
{
    double lane[8] = {0};
    for (int d = 0; d < 3; ++d) bl[d] = INFINITY, bh[d] = -INFINITY;
    bounds_tail(0, n, idx, lo, hi, bl, bh, lane);
    *edge_sum = lanes_sum(lane);
}

/* Cell index of scaled coordinate (v - o) * inv + s, in float, truncated
 * toward zero and clamped to [0, top]. */
static inline uint32_t cell_of(float v, float o, float inv, float s, int top)
{
    const float x = (v - o) * inv;
    const int c = (int)(x + s);
    return (uint32_t)(c > top ? top : c < 0 ? 0 : c);
}

static void codes_tail(size_t k, size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                       const float o[3], float inv, float wide, int g, uint32_t *code)
{
    const int top = (1 << g) - 1;
    for (; k < n; ++k) {
        const uint32_t f = idx[k];
        uint32_t c0[3], c1[3];
        for (int d = 0; d < 3; ++d)
            c0[d] = cell_of(lo[d][f], o[d], inv, -wide, top), c1[d] = cell_of(hi[d][f], o[d], inv, wide, top);
        if ((c0[0] ^ c1[0]) | (c0[1] ^ c1[1]) | (c0[2] ^ c1[2]))
            code[k] = CK_CELL_MULTI | c0[0] | c1[0] << 5 | c0[1] << 10 | c1[1] << 15 | c0[2] << 20 | c1[2] << 25;
        else
            code[k] = c0[0] | c0[1] << g | c0[2] << 2 * g;
    }
}

void ck_cell_codes_ref(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                       const float o[3], float inv, float wide, int g, uint32_t *code)
{
    codes_tail(0, n, idx, lo, hi, o, inv, wide, g, code);
}

/* ---- the children a box reaches (octree.c's visit) ------------------------------------ */

/* Children of a cell by the half they take along each axis: bit c of a mask
 * is child c = x + 2y + 4z (1 for the upper half); an axis code's bit 0
 * says the box reaches the lower half, bit 1 the upper half. */
static const uint8_t CM_X[4] = {0x00, 0x55, 0xAA, 0xFF};
static const uint8_t CM_Y[4] = {0x00, 0x33, 0xCC, 0xFF};
static const uint8_t CM_Z[4] = {0x00, 0x0F, 0xF0, 0xFF};

static void masks_tail(size_t k, size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                       const float up[3], const float dn[3], uint8_t *mask)
{
    for (; k < n; ++k) {
        const uint32_t f = idx[k];
        const unsigned xm = (lo[0][f] <= up[0]) | (hi[0][f] >= dn[0]) << 1;
        const unsigned ym = (lo[1][f] <= up[1]) | (hi[1][f] >= dn[1]) << 1;
        const unsigned zm = (lo[2][f] <= up[2]) | (hi[2][f] >= dn[2]) << 1;
        mask[k] = CM_X[xm] & CM_Y[ym] & CM_Z[zm];
    }
}

void ck_child_masks_ref(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                        const float up[3], const float dn[3], uint8_t *mask)
{
    masks_tail(0, n, idx, lo, hi, up, dn, mask);
}

/* ---- AVX2 --------------------------------------------------------------------------- */

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define CK_AVX2 __attribute__((target("avx2")))

/* Where gathers are slow (ck_gathers_slow, AMD) the lanes are built from
 * scalar loads instead: the same values, faster there (bench/RESULTS.md). */
static inline int slow_gathers(void) { return ck_gathers_slow(); }
#define CK_INLINE __attribute__((always_inline)) inline

/* Eight floats p[idx[0..7]] (vi: the same indices in a vector): a gather,
 * or scalar loads where gathers are slow; the same lanes either way. */
static CK_INLINE CK_AVX2 __m256 load8(const float *p, const uint32_t *idx, __m256i vi, int gather)
{
    if (gather) return _mm256_i32gather_ps(p, vi, 4);
    return _mm256_setr_ps(p[idx[0]], p[idx[1]], p[idx[2]], p[idx[3]], p[idx[4]], p[idx[5]], p[idx[6]], p[idx[7]]);
}

static CK_INLINE CK_AVX2 void bounds_body(size_t n, const uint32_t *idx, const float *const lo[3],
                                          const float *const hi[3], float bl[3], float bh[3], double *edge_sum,
                                          int gather)
{
    __m256 vl[3], vh[3];
    for (int d = 0; d < 3; ++d) vl[d] = _mm256_set1_ps(INFINITY), vh[d] = _mm256_set1_ps(-INFINITY);
    __m256d s0 = _mm256_setzero_pd(), s1 = _mm256_setzero_pd(); /* lanes 0-3, 4-7 */
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        const __m256i vi = _mm256_loadu_si256((const __m256i *)(idx + k));
        __m256 e = _mm256_setzero_ps();
        for (int d = 0; d < 3; ++d) {
            const __m256 a = load8(lo[d], idx + k, vi, gather), b = load8(hi[d], idx + k, vi, gather);
            /* (a < l ? a : l) is minps(a, l); (b - a > e ? b - a : e) is maxps(b - a, e) */
            vl[d] = _mm256_min_ps(a, vl[d]), vh[d] = _mm256_max_ps(b, vh[d]);
            e = _mm256_max_ps(_mm256_sub_ps(b, a), e);
        }
        s0 = _mm256_add_pd(s0, _mm256_cvtps_pd(_mm256_castps256_ps128(e)));
        s1 = _mm256_add_pd(s1, _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)));
    }
    double lane[8];
    float l[8], h[8];
    _mm256_storeu_pd(lane, s0), _mm256_storeu_pd(lane + 4, s1);
    for (int d = 0; d < 3; ++d) {
        _mm256_storeu_ps(l, vl[d]), _mm256_storeu_ps(h, vh[d]);
        bl[d] = INFINITY, bh[d] = -INFINITY;
        for (int j = 0; j < 8; ++j) bl[d] = l[j] < bl[d] ? l[j] : bl[d], bh[d] = h[j] > bh[d] ? h[j] : bh[d];
    }
    bounds_tail(k, n, idx, lo, hi, bl, bh, lane);
    *edge_sum = lanes_sum(lane);
}

/* cell_of, eight lanes */
static inline CK_AVX2 __m256i cells8(__m256 v, __m256 o, __m256 inv, __m256 s, __m256i top)
{
    const __m256 x = _mm256_mul_ps(_mm256_sub_ps(v, o), inv);
    return _mm256_max_epi32(_mm256_min_epi32(_mm256_cvttps_epi32(_mm256_add_ps(x, s)), top), _mm256_setzero_si256());
}

static CK_AVX2 void bounds_gather(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                                  float bl[3], float bh[3], double *edge_sum)
{
    bounds_body(n, idx, lo, hi, bl, bh, edge_sum, 1);
}
static CK_AVX2 void bounds_loads(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                                 float bl[3], float bh[3], double *edge_sum)
{
    bounds_body(n, idx, lo, hi, bl, bh, edge_sum, 0);
}

static CK_INLINE CK_AVX2 void codes_body(size_t n, const uint32_t *idx, const float *const lo[3],
                                         const float *const hi[3], const float o[3], float inv, float wide, int g,
                                         uint32_t *code, int gather)
{
    const __m256 vinv = _mm256_set1_ps(inv), dn = _mm256_set1_ps(-wide), up = _mm256_set1_ps(wide);
    const __m256 vo[3] = {_mm256_set1_ps(o[0]), _mm256_set1_ps(o[1]), _mm256_set1_ps(o[2])};
    const __m256i top = _mm256_set1_epi32((1 << g) - 1), multi = _mm256_set1_epi32((int32_t)CK_CELL_MULTI);
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        const __m256i vi = _mm256_loadu_si256((const __m256i *)(idx + k));
        __m256i c0[3], c1[3], diff = _mm256_setzero_si256();
        for (int d = 0; d < 3; ++d) {
            c0[d] = cells8(load8(lo[d], idx + k, vi, gather), vo[d], vinv, dn, top);
            c1[d] = cells8(load8(hi[d], idx + k, vi, gather), vo[d], vinv, up, top);
            diff = _mm256_or_si256(diff, _mm256_xor_si256(c0[d], c1[d]));
        }
        const __m256i one = _mm256_or_si256(c0[0], _mm256_or_si256(_mm256_slli_epi32(c0[1], g),
                                                                    _mm256_slli_epi32(c0[2], 2 * g)));
        const __m256i many = _mm256_or_si256(
            _mm256_or_si256(multi, _mm256_or_si256(c0[0], _mm256_slli_epi32(c1[0], 5))),
            _mm256_or_si256(_mm256_or_si256(_mm256_slli_epi32(c0[1], 10), _mm256_slli_epi32(c1[1], 15)),
                            _mm256_or_si256(_mm256_slli_epi32(c0[2], 20), _mm256_slli_epi32(c1[2], 25))));
        const __m256i single = _mm256_cmpeq_epi32(diff, _mm256_setzero_si256());
        _mm256_storeu_si256((__m256i *)(code + k), _mm256_blendv_epi8(many, one, single));
    }
    codes_tail(k, n, idx, lo, hi, o, inv, wide, g, code);
}
static CK_AVX2 void codes_gather(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                                 const float o[3], float inv, float wide, int g, uint32_t *code)
{
    codes_body(n, idx, lo, hi, o, inv, wide, g, code, 1);
}
static CK_AVX2 void codes_loads(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                                const float o[3], float inv, float wide, int g, uint32_t *code)
{
    codes_body(n, idx, lo, hi, o, inv, wide, g, code, 0);
}

/* Eight masks a step: each axis's two compares as lane masks, or'ed into
 * the halves' child bits and and'ed over the axes in 32-bit lanes, then
 * byte 0 of each lane stored. */
static CK_INLINE CK_AVX2 void masks_body(size_t n, const uint32_t *idx, const float *const lo[3],
                                         const float *const hi[3], const float up[3], const float dn[3],
                                         uint8_t *mask, int gather)
{
    static const int32_t LOW[3] = {0x55, 0x33, 0x0F}, HIGH[3] = {0xAA, 0xCC, 0xF0};
    const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 4, 8, 12,
                                          -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        const __m256i vi = _mm256_loadu_si256((const __m256i *)(idx + k));
        __m256i m = _mm256_set1_epi32(0xFF);
        for (int d = 0; d < 3; ++d) {
            const __m256 a = _mm256_cmp_ps(load8(lo[d], idx + k, vi, gather), _mm256_set1_ps(up[d]), _CMP_LE_OQ);
            const __m256 b = _mm256_cmp_ps(load8(hi[d], idx + k, vi, gather), _mm256_set1_ps(dn[d]), _CMP_GE_OQ);
            const __m256i h = _mm256_or_si256(_mm256_and_si256(_mm256_castps_si256(a), _mm256_set1_epi32(LOW[d])),
                                              _mm256_and_si256(_mm256_castps_si256(b), _mm256_set1_epi32(HIGH[d])));
            m = _mm256_and_si256(m, h);
        }
        const __m256i by = _mm256_shuffle_epi8(m, pick); /* bytes 0-3 of each 128-bit half */
        const uint32_t w0 = (uint32_t)_mm_cvtsi128_si32(_mm256_castsi256_si128(by));
        const uint32_t w1 = (uint32_t)_mm_cvtsi128_si32(_mm256_extracti128_si256(by, 1));
        const uint64_t w = w0 | (uint64_t)w1 << 32;
        memcpy(mask + k, &w, 8);
    }
    masks_tail(k, n, idx, lo, hi, up, dn, mask);
}
static CK_AVX2 void masks_gather(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                                 const float up[3], const float dn[3], uint8_t *mask)
{
    masks_body(n, idx, lo, hi, up, dn, mask, 1);
}
static CK_AVX2 void masks_loads(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                                const float up[3], const float dn[3], uint8_t *mask)
{
    masks_body(n, idx, lo, hi, up, dn, mask, 0);
}
#endif

void ck_gather_bounds(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3], float bl[3],
                      float bh[3], double *edge_sum)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (n >= 8 && ck_have_avx2()) {
        (slow_gathers() ? bounds_loads : bounds_gather)(n, idx, lo, hi, bl, bh, edge_sum);
        return;
    }
#endif
    ck_gather_bounds_ref(n, idx, lo, hi, bl, bh, edge_sum);
}

void ck_cell_codes(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                   const float o[3], float inv, float wide, int g, uint32_t *code)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (n >= 8 && ck_have_avx2()) {
        (slow_gathers() ? codes_loads : codes_gather)(n, idx, lo, hi, o, inv, wide, g, code);
        return;
    }
#endif
    ck_cell_codes_ref(n, idx, lo, hi, o, inv, wide, g, code);
}

void ck_child_masks(size_t n, const uint32_t *idx, const float *const lo[3], const float *const hi[3],
                    const float up[3], const float dn[3], uint8_t *mask)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (n >= 8 && ck_have_avx2()) {
        (slow_gathers() ? masks_loads : masks_gather)(n, idx, lo, hi, up, dn, mask);
        return;
    }
#endif
    ck_child_masks_ref(n, idx, lo, hi, up, dn, mask);
}

/* ---- a leaf's box overlaps (octree.c's emit_leaf) ---------------------------------------
 * One box a6 = {lo x, y, z, hi x, y, z} against the leaf's boxes k in
 * [0, n): bit k of the bitmap ov (bit k % 8 of byte k / 8) is set where
 * they overlap, by clash_faceboxes_overlap's comparisons (the leaf's upper
 * corners already grown), and the bytes after the last one are zero up to
 * a multiple of 8, so the caller reads the bitmap 64 boxes a word and
 * visits only the set bits; with AVX2 the same comparisons 8 boxes at a
 * time, one byte each.  The plain loop was a third of the octree's
 * instructions on the graded torus, its vector body rarely
 * reached on the short rows of a leaf; byte flags, one a box, cost the
 * caller a test per box (a fifth of S4 on 300 x 3,024 swept spheres). */
#define OV_ARGS                                                                                                  \
    size_t n, const float *restrict lx, const float *restrict ly, const float *restrict lz,                     \
        const float *restrict hx, const float *restrict hy, const float *restrict hz, const float a6[6],        \
        uint8_t *restrict ov
/* zero bytes from byte b up to the next multiple of 8: the word holding
 * byte b read, its bytes from b on cleared, written back (one store, not
 * a byte loop: the loop was a fortieth of the octree's instructions) */
static inline void ov_pad(uint8_t *ov, size_t b)
{
    const unsigned r = (unsigned)(b & 7);
    if (!r) return;
    uint64_t w;
    memcpy(&w, ov + (b - r), 8);
    w &= ((uint64_t)1 << (8 * r)) - 1; /* (little-endian: byte j is bits 8j..8j+7) */
    memcpy(ov + (b - r), &w, 8);
}
void ck_leaf_overlaps_ref(OV_ARGS)
{
    const float al0 = a6[0], al1 = a6[1], al2 = a6[2], ah0 = a6[3], ah1 = a6[4], ah2 = a6[5];
    const size_t nb = (n + 7) / 8;
    for (size_t b = 0; b < nb; ++b) ov[b] = 0;
    for (size_t k = 0; k < n; ++k)
        ov[k >> 3] |= (uint8_t)(((al0 <= hx[k]) & (lx[k] <= ah0) & (al1 <= hy[k]) & (ly[k] <= ah1) &
                                 (al2 <= hz[k]) & (lz[k] <= ah2))
                                << (k & 7));
    ov_pad(ov, nb);
}
#if defined(__GNUC__) && defined(__x86_64__)
/* 8 boxes a step, the compare mask as one byte; the last step's lanes past
 * n read whatever follows the arrays' ends (quiet compares, their bits
 * cleared), so the caller gives each array 7 readable floats past n. */
static CK_AVX2 inline unsigned ov8(const float *lx, const float *ly, const float *lz, const float *hx,
                                   const float *hy, const float *hz, const __m256 al[3], const __m256 ah[3])
{
    __m256 m = _mm256_and_ps(_mm256_cmp_ps(al[0], _mm256_loadu_ps(hx), _CMP_LE_OQ),
                             _mm256_cmp_ps(_mm256_loadu_ps(lx), ah[0], _CMP_LE_OQ));
    m = _mm256_and_ps(m, _mm256_cmp_ps(al[1], _mm256_loadu_ps(hy), _CMP_LE_OQ));
    m = _mm256_and_ps(m, _mm256_cmp_ps(_mm256_loadu_ps(ly), ah[1], _CMP_LE_OQ));
    m = _mm256_and_ps(m, _mm256_cmp_ps(al[2], _mm256_loadu_ps(hz), _CMP_LE_OQ));
    m = _mm256_and_ps(m, _mm256_cmp_ps(_mm256_loadu_ps(lz), ah[2], _CMP_LE_OQ));
    return (unsigned)_mm256_movemask_ps(m);
}
static CK_AVX2 void ov_avx2(OV_ARGS)
{
    const __m256 al[3] = {_mm256_set1_ps(a6[0]), _mm256_set1_ps(a6[1]), _mm256_set1_ps(a6[2])};
    const __m256 ah[3] = {_mm256_set1_ps(a6[3]), _mm256_set1_ps(a6[4]), _mm256_set1_ps(a6[5])};
    size_t b = 0, k = 0;
    for (; k + 8 <= n; k += 8) /* whole steps of 8 */
        ov[b++] = (uint8_t)ov8(lx + k, ly + k, lz + k, hx + k, hy + k, hz + k, al, ah);
    if (k < n) /* the last: the lanes past n get no bit */
        ov[b++] = (uint8_t)(ov8(lx + k, ly + k, lz + k, hx + k, hy + k, hz + k, al, ah) & ((1u << (n - k)) - 1));
    ov_pad(ov, b);
}
#endif
void ck_leaf_overlaps(OV_ARGS)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (ck_have_avx2()) {
        ov_avx2(n, lx, ly, lz, hx, hy, hz, a6, ov);
        return;
    }
#endif
    ck_leaf_overlaps_ref(n, lx, ly, lz, hx, hy, hz, a6, ov);
}

/* ---- a leaf's pairs met again lower down (octree.c's emit_leaf) -------------------------
 * In swept mode a face's flags say on which axes it also meets the cell
 * below; a pair whose flags share a bit is made in a lower leaf, so a leaf
 * drops it.  The pairs' bitmap word by word: 64 flags ANDed with the
 * face's and compared with zero at once (bit by bit, over the set bits of
 * the overlaps, it was a twentieth of the octree's instructions). */
uint64_t ck_flags_clear_ref(const uint8_t *fl, uint8_t f)
{
    uint64_t m = 0;
    for (int k = 0; k < 64; ++k) m |= (uint64_t)((fl[k] & f) == 0) << k;
    return m;
}
#if defined(__GNUC__) && defined(__x86_64__)
static CK_AVX2 uint64_t flags_avx2(const uint8_t *fl, uint8_t f)
{
    const __m256i F = _mm256_set1_epi8((char)f), Z = _mm256_setzero_si256();
    const __m256i a = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)fl), F);
    const __m256i b = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(fl + 32)), F);
    const uint32_t lo = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(a, Z));
    const uint32_t hi = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(b, Z));
    return (uint64_t)hi << 32 | lo;
}
#endif
uint64_t ck_flags_clear(const uint8_t *fl, uint8_t f)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (ck_have_avx2()) return flags_avx2(fl, f);
#endif
    return ck_flags_clear_ref(fl, f);
}

/* ---- the descent's counts (octree.c's visit) --------------------------------------------
 * cnt[c] += the number of masks in mask[0 .. n) with bit c set, and the OR
 * of the masks.  Eight masks a 64-bit word: bit c of every byte at once
 * (w & 0x0101.. << c), counted with popcount; with AVX2 32 masks a step,
 * bit c moved to each byte's top bit and gathered by movemask.  Counts and
 * ORs are exact, so every path gives the same numbers.  (This replaces
 * visit's count mask by mask, a dozen instructions a face.) */
#define MC_ONES 0x0101010101010101ull
static inline uint64_t mc_word(const uint8_t *m, size_t k, size_t n)
{
    uint64_t w = 0;
    memcpy(&w, m + k, n - k < 8 ? n - k : 8); /* the last word: zeros past n */
    return w;
}

uint8_t ck_mask_counts_ref(size_t n, const uint8_t *mask, size_t cnt[8])
{
    uint64_t any = 0;
    for (size_t k = 0; k < n; k += 8) {
        const uint64_t w = mc_word(mask, k, n);
        any |= w;
        for (int c = 0; c < 8; ++c) cnt[c] += (size_t)__builtin_popcountll(w & MC_ONES << c);
    }
    any |= any >> 32, any |= any >> 16, any |= any >> 8;
    return (uint8_t)any;
}

#if defined(__GNUC__) && defined(__x86_64__)
static CK_AVX2 __attribute__((target("popcnt"))) uint8_t counts_avx2(size_t n, const uint8_t *mask, size_t cnt[8])
{
    size_t k = 0;
    __m256i orv = _mm256_setzero_si256();
    for (; k + 32 <= n; k += 32) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(mask + k));
        orv = _mm256_or_si256(orv, v);
        /* bit c of each byte to its top bit: a 16-bit shift by 7 - c moves no bit of the low byte past bit 7 of the
         * high byte's own */
        cnt[7] += (size_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(v));
        cnt[6] += (size_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_slli_epi16(v, 1)));
        cnt[5] += (size_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_slli_epi16(v, 2)));
        cnt[4] += (size_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_slli_epi16(v, 3)));
        cnt[3] += (size_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_slli_epi16(v, 4)));
        cnt[2] += (size_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_slli_epi16(v, 5)));
        cnt[1] += (size_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_slli_epi16(v, 6)));
        cnt[0] += (size_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_slli_epi16(v, 7)));
    }
    __m128i o = _mm_or_si128(_mm256_castsi256_si128(orv), _mm256_extracti128_si256(orv, 1));
    uint64_t any = (uint64_t)_mm_cvtsi128_si64(o) | (uint64_t)_mm_extract_epi64(o, 1);
    for (; k < n; k += 8) {
        const uint64_t w = mc_word(mask, k, n);
        any |= w;
        for (int c = 0; c < 8; ++c) cnt[c] += (size_t)__builtin_popcountll(w & MC_ONES << c);
    }
    any |= any >> 32, any |= any >> 16, any |= any >> 8;
    return (uint8_t)any;
}
#endif

uint8_t ck_mask_counts(size_t n, const uint8_t *mask, size_t cnt[8])
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (ck_have_avx2()) return counts_avx2(n, mask, cnt);
#endif
    return ck_mask_counts_ref(n, mask, cnt);
}

uint8_t ck_mask_or(size_t n, const uint8_t *mask)
{
    uint64_t any = 0;
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, mask + k, 8);
        any |= w;
    }
    if (k < n) any |= mc_word(mask, k, n);
    any |= any >> 32, any |= any >> 16, any |= any >> 8;
    return (uint8_t)any;
}
