/*
 * face_boxes.c — face boxes over SoA positions (stage S1).
 *
 * For each face f in [f0, f1): the axis-aligned box of its three vertices in
 * state s, and in swept mode (px non-NULL) also of its three vertices in
 * state s-1: the box of the face's swept hull.  Each box is rounded outward
 * by one float ulp (nextafterf toward -inf / +inf) so that a box computed in
 * float never excludes a point that the exact (double) tests downstream would
 * count as on the face.  The object box (olo, ohi) is reduced on the way.
 *
 * Per face: reads 12 bytes of indices and 36 (72 swept) bytes of positions
 * (gathered), writes 24 bytes of box.
 */
#include <math.h>
#include <string.h>

#include "kernels/kernels.h"
#include "kernels/cpu.h"

static inline float mn3(float a, float b, float c) { return fminf(a, fminf(b, c)); }
static inline float mx3(float a, float b, float c) { return fmaxf(a, fmaxf(b, c)); }
/* The optimized kernels use compare-and-select min/max (one minss/maxss or a
 * vector lane) instead of fminf/fmaxf, which GCC leaves as libm calls without
 * -ffinite-math-only (~36 calls per face: the loop became compute-bound at a
 * few percent of memory bandwidth).  For non-NaN inputs the result is the
 * same value as fminf/fmaxf (signed zeros aside, which the outward rounding
 * never produces from non-zero data). */
static inline float mnf(float a, float b) { return b < a ? b : a; }
static inline float mxf(float a, float b) { return b > a ? b : a; }
static inline float mn3f(float a, float b, float c) { return mnf(a, mnf(b, c)); }
static inline float mx3f(float a, float b, float c) { return mxf(a, mxf(b, c)); }

void ck_face_boxes_ref(int64_t f0, int64_t f1, const int32_t *i0, const int32_t *i1, const int32_t *i2,
                       const float *x, const float *y, const float *z, const float *px, const float *py,
                       const float *pz, float *lox, float *loy, float *loz, float *hix, float *hiy, float *hiz,
                       float olo[3], float ohi[3])
{
    for (int64_t f = f0; f < f1; ++f) {
        const int32_t a = i0[f], b = i1[f], c = i2[f];
        float lo[3] = {mn3(x[a], x[b], x[c]), mn3(y[a], y[b], y[c]), mn3(z[a], z[b], z[c])};
        float hi[3] = {mx3(x[a], x[b], x[c]), mx3(y[a], y[b], y[c]), mx3(z[a], z[b], z[c])};
        if (px) {
            lo[0] = fminf(lo[0], mn3(px[a], px[b], px[c])), hi[0] = fmaxf(hi[0], mx3(px[a], px[b], px[c]));
            lo[1] = fminf(lo[1], mn3(py[a], py[b], py[c])), hi[1] = fmaxf(hi[1], mx3(py[a], py[b], py[c]));
            lo[2] = fminf(lo[2], mn3(pz[a], pz[b], pz[c])), hi[2] = fmaxf(hi[2], mx3(pz[a], pz[b], pz[c]));
        }
        for (int d = 0; d < 3; ++d) {
            lo[d] = nextafterf(lo[d], -INFINITY);
            hi[d] = nextafterf(hi[d], INFINITY);
            olo[d] = fminf(olo[d], lo[d]);
            ohi[d] = fmaxf(ohi[d], hi[d]);
        }
        lox[f] = lo[0], loy[f] = lo[1], loz[f] = lo[2];
        hix[f] = hi[0], hiy[f] = hi[1], hiz[f] = hi[2];
    }
}

/* Outward rounding by one ulp without a libm call: for finite non-zero x,
 * stepping the bit pattern moves one ulp away from or toward zero.  Integer
 * tests on the bit pattern u only (branch-free, and 5-6 vector instructions
 * in v_down1/v_up1 below, which compute the same bits):
 *   down1: u as int32 <= 0 (v < 0, or v = +0/-0) -> (u | sign) + 1, so
 *          +0/-0 go to -denorm_min; otherwise (v > 0) u - 1;
 *   up1:   u as int32 >= 0 or u = -0 (v > 0, or v = +0/-0) -> (u & ~sign) + 1,
 *          so +0/-0 go to +denorm_min; otherwise (v < 0) u - 1.
 * For every non-NaN v this is nextafterf(v, -/+INFINITY), except
 * up1(+inf) and down1(-inf) (not finite: the bits of a NaN); a NaN stays a
 * NaN (or becomes an infinity: no meaningful box either way). */
static inline float down1(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    u = (int32_t)u < 1 ? (u | 0x80000000u) + 1 : u - 1;
    memcpy(&v, &u, sizeof v);
    return v;
}
static inline float up1(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    u = (int32_t)(u - 1) > -2 ? (u & 0x7fffffffu) + 1 : u - 1;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* The face loop over n faces with pointers already offset to the first
 * face (indices and boxes; positions are gathered through the indices):
 * a gather-min/max-scatter stream.  The portable version, and the tails
 * (n mod 8 faces) of the AVX2 one, into which it is inlined. */
static inline __attribute__((always_inline)) void
boxes_core(int64_t n, const int32_t *restrict i0, const int32_t *restrict i1, const int32_t *restrict i2,
           const float *restrict x, const float *restrict y, const float *restrict z, const float *restrict px,
           const float *restrict py, const float *restrict pz, float *restrict lox, float *restrict loy,
           float *restrict loz, float *restrict hix, float *restrict hiy, float *restrict hiz, float olo[3],
           float ohi[3])
{
    float ol0 = olo[0], ol1 = olo[1], ol2 = olo[2], oh0 = ohi[0], oh1 = ohi[1], oh2 = ohi[2];
    if (px) {
#pragma omp simd reduction(min : ol0, ol1, ol2) reduction(max : oh0, oh1, oh2)
        for (int64_t f = 0; f < n; ++f) {
            const int32_t a = i0[f], b = i1[f], c = i2[f];
            float l0 = mnf(mn3f(x[a], x[b], x[c]), mn3f(px[a], px[b], px[c]));
            float l1 = mnf(mn3f(y[a], y[b], y[c]), mn3f(py[a], py[b], py[c]));
            float l2 = mnf(mn3f(z[a], z[b], z[c]), mn3f(pz[a], pz[b], pz[c]));
            float h0 = mxf(mx3f(x[a], x[b], x[c]), mx3f(px[a], px[b], px[c]));
            float h1 = mxf(mx3f(y[a], y[b], y[c]), mx3f(py[a], py[b], py[c]));
            float h2 = mxf(mx3f(z[a], z[b], z[c]), mx3f(pz[a], pz[b], pz[c]));
            l0 = down1(l0), l1 = down1(l1), l2 = down1(l2), h0 = up1(h0), h1 = up1(h1), h2 = up1(h2);
            lox[f] = l0, loy[f] = l1, loz[f] = l2, hix[f] = h0, hiy[f] = h1, hiz[f] = h2;
            ol0 = mnf(ol0, l0), ol1 = mnf(ol1, l1), ol2 = mnf(ol2, l2);
            oh0 = mxf(oh0, h0), oh1 = mxf(oh1, h1), oh2 = mxf(oh2, h2);
        }
    } else {
#pragma omp simd reduction(min : ol0, ol1, ol2) reduction(max : oh0, oh1, oh2)
        for (int64_t f = 0; f < n; ++f) {
            const int32_t a = i0[f], b = i1[f], c = i2[f];
            float l0 = mn3f(x[a], x[b], x[c]), l1 = mn3f(y[a], y[b], y[c]), l2 = mn3f(z[a], z[b], z[c]);
            float h0 = mx3f(x[a], x[b], x[c]), h1 = mx3f(y[a], y[b], y[c]), h2 = mx3f(z[a], z[b], z[c]);
            l0 = down1(l0), l1 = down1(l1), l2 = down1(l2), h0 = up1(h0), h1 = up1(h1), h2 = up1(h2);
            lox[f] = l0, loy[f] = l1, loz[f] = l2, hix[f] = h0, hiy[f] = h1, hiz[f] = h2;
            ol0 = mnf(ol0, l0), ol1 = mnf(ol1, l1), ol2 = mnf(ol2, l2);
            oh0 = mxf(oh0, h0), oh1 = mxf(oh1, h1), oh2 = mxf(oh2, h2);
        }
    }
    olo[0] = ol0, olo[1] = ol1, olo[2] = ol2, ohi[0] = oh0, ohi[1] = oh1, ohi[2] = oh2;
}

/* ---- AVX2: hardware gathers, 8 faces per step ---------------------------------------
 * GCC's vectorization of boxes_core (generic tuning) builds each 8-wide
 * position vector from 8 scalar loads and inserts, which leaves the loop
 * compute-bound below one core's memory bandwidth.  This version gathers
 * (vgatherdps) and rounds with a few integer instructions per vector,
 * faster where gathers are fast (bench/RESULTS.md, `clash bench bbox`).
 * It computes exactly what boxes_core computes: the
 * min/max operand orders below reproduce mnf/mxf (minps/maxps return their
 * second operand unless the first is strictly smaller/greater), and
 * v_down1/v_up1 are down1/up1 lane by lane.  Picked at run time from the
 * CPU's feature bits (no ifunc resolver, so it also runs under the
 * sanitizers). */
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define CK_X86 1
#define CK_AVX2 __attribute__((target("avx2")))

static inline CK_AVX2 __m256 v_mn(__m256 a, __m256 b) { return _mm256_min_ps(b, a); } /* mnf(a, b) */
static inline CK_AVX2 __m256 v_mx(__m256 a, __m256 b) { return _mm256_max_ps(b, a); } /* mxf(a, b) */
/* down1/up1 lane by lane; m: all ones where the "+1 with the sign forced"
 * case applies, and u - (m | 1) is u + 1 there, u - 1 elsewhere. */
static inline CK_AVX2 __m256 v_down1(__m256 v)
{
    const __m256i one = _mm256_set1_epi32(1), sign = _mm256_set1_epi32((int32_t)0x80000000u);
    const __m256i u = _mm256_castps_si256(v), m = _mm256_cmpgt_epi32(one, u); /* (int)u < 1 */
    return _mm256_castsi256_ps(
        _mm256_sub_epi32(_mm256_or_si256(u, _mm256_and_si256(m, sign)), _mm256_or_si256(m, one)));
}
static inline CK_AVX2 __m256 v_up1(__m256 v)
{
    const __m256i one = _mm256_set1_epi32(1), sign = _mm256_set1_epi32((int32_t)0x80000000u);
    const __m256i u = _mm256_castps_si256(v);
    const __m256i m = _mm256_cmpgt_epi32(_mm256_sub_epi32(u, one), _mm256_set1_epi32(-2)); /* (int)(u-1) > -2 */
    return _mm256_castsi256_ps(
        _mm256_sub_epi32(_mm256_andnot_si256(_mm256_and_si256(m, sign), u), _mm256_or_si256(m, one)));
}

/* min / max over the 8 lanes (a tree: min and max are exact, so only the
 * sign of a zero could depend on the order, and the rounded boxes reduced
 * here are never zero unless a coordinate is +-denorm_min) */
static inline CK_AVX2 float h_mn(__m256 v)
{
    __m128 q = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    q = _mm_min_ps(q, _mm_movehl_ps(q, q));
    return _mm_cvtss_f32(_mm_min_ss(q, _mm_movehdup_ps(q)));
}
static inline CK_AVX2 float h_mx(__m256 v)
{
    __m128 q = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    q = _mm_max_ps(q, _mm_movehl_ps(q, q));
    return _mm_cvtss_f32(_mm_max_ss(q, _mm_movehdup_ps(q)));
}

/* min and max of one coordinate over the three vertices a, b, c */
#define V_G3(P, MN, MX)                                                                                      \
    do {                                                                                                     \
        const __m256 ga = _mm256_i32gather_ps(P, va, 4), gb = _mm256_i32gather_ps(P, vb, 4),                 \
                     gc = _mm256_i32gather_ps(P, vc, 4);                                                     \
        MN = v_mn(ga, v_mn(gb, gc)), MX = v_mx(ga, v_mx(gb, gc));                                            \
    } while (0)

/* n faces, pointers offset to the first; nt: streaming stores (then every
 * box pointer must be 32-byte aligned). */
static CK_AVX2 void boxes_avx2(int64_t n, const int32_t *restrict i0, const int32_t *restrict i1,
                               const int32_t *restrict i2, const float *restrict x, const float *restrict y,
                               const float *restrict z, const float *restrict px, const float *restrict py,
                               const float *restrict pz, float *restrict lox, float *restrict loy,
                               float *restrict loz, float *restrict hix, float *restrict hiy, float *restrict hiz,
                               float olo[3], float ohi[3], int nt)
{
    __m256 ol0 = _mm256_set1_ps(olo[0]), ol1 = _mm256_set1_ps(olo[1]), ol2 = _mm256_set1_ps(olo[2]);
    __m256 oh0 = _mm256_set1_ps(ohi[0]), oh1 = _mm256_set1_ps(ohi[1]), oh2 = _mm256_set1_ps(ohi[2]);
    int64_t f = 0;
    for (; f + 8 <= n; f += 8) {
        const __m256i va = _mm256_loadu_si256((const __m256i *)(i0 + f)),
                      vb = _mm256_loadu_si256((const __m256i *)(i1 + f)),
                      vc = _mm256_loadu_si256((const __m256i *)(i2 + f));
        __m256 l0, l1, l2, h0, h1, h2;
        V_G3(x, l0, h0);
        V_G3(y, l1, h1);
        V_G3(z, l2, h2);
        if (px) {
            __m256 pl, ph;
            V_G3(px, pl, ph);
            l0 = v_mn(l0, pl), h0 = v_mx(h0, ph);
            V_G3(py, pl, ph);
            l1 = v_mn(l1, pl), h1 = v_mx(h1, ph);
            V_G3(pz, pl, ph);
            l2 = v_mn(l2, pl), h2 = v_mx(h2, ph);
        }
        l0 = v_down1(l0), l1 = v_down1(l1), l2 = v_down1(l2), h0 = v_up1(h0), h1 = v_up1(h1), h2 = v_up1(h2);
        if (nt) {
            _mm256_stream_ps(lox + f, l0), _mm256_stream_ps(loy + f, l1), _mm256_stream_ps(loz + f, l2);
            _mm256_stream_ps(hix + f, h0), _mm256_stream_ps(hiy + f, h1), _mm256_stream_ps(hiz + f, h2);
        } else {
            _mm256_storeu_ps(lox + f, l0), _mm256_storeu_ps(loy + f, l1), _mm256_storeu_ps(loz + f, l2);
            _mm256_storeu_ps(hix + f, h0), _mm256_storeu_ps(hiy + f, h1), _mm256_storeu_ps(hiz + f, h2);
        }
        ol0 = v_mn(ol0, l0), ol1 = v_mn(ol1, l1), ol2 = v_mn(ol2, l2);
        oh0 = v_mx(oh0, h0), oh1 = v_mx(oh1, h1), oh2 = v_mx(oh2, h2);
    }
    olo[0] = h_mn(ol0), olo[1] = h_mn(ol1), olo[2] = h_mn(ol2);
    ohi[0] = h_mx(oh0), ohi[1] = h_mx(oh1), ohi[2] = h_mx(oh2);
    if (f < n)
        boxes_core(n - f, i0 + f, i1 + f, i2 + f, x, y, z, px, py, pz, lox + f, loy + f, loz + f, hix + f, hiy + f,
                   hiz + f, olo, ohi);
}
#undef V_G3

/* The same loop as boxes_core, compiled for AVX2: GCC builds each 8-wide
 * position vector from scalar loads and inserts, no gathers.  On AMD
 * (ck_gathers_slow) an 8-lane vgatherdps issues slowly enough that the nine
 * gathers of 8 faces bound boxes_avx2, and this loop is faster there
 * (`clash bench bvh --part 2`); the gathers stay the choice elsewhere. */
static CK_AVX2 void boxes_avx2_loads(int64_t n, const int32_t *restrict i0, const int32_t *restrict i1,
                                     const int32_t *restrict i2, const float *restrict x, const float *restrict y,
                                     const float *restrict z, const float *restrict px, const float *restrict py,
                                     const float *restrict pz, float *restrict lox, float *restrict loy,
                                     float *restrict loz, float *restrict hix, float *restrict hiy,
                                     float *restrict hiz, float olo[3], float ohi[3])
{
    boxes_core(n, i0, i1, i2, x, y, z, px, py, pz, lox, loy, loz, hix, hiy, hiz, olo, ohi);
}

/* ---- AVX-512: vertex windows and two-register permutes, 16 faces per step ----------
 * A mesh's faces in a structured order take their vertices from two short
 * runs of vertex numbers: 16 consecutive faces of a UV sphere in band order
 * use a stretch of one latitude ring and the same stretch of the next.
 * With m0 and m1 the lowest and highest of the 48 vertex numbers, every
 * coordinate of every slot then comes from the 32-float windows [m0, m0 +
 * 32) and [m1 - 31, m1] (one window when m1 - m0 < 32): two vector loads a
 * window and array, and per slot one vpermt2ps (a two-register permute, 16
 * lanes in one instruction) from each window and a blend.  The AVX2 loops
 * spend 16 scalar loads and inserts or a 16-lane gather on a slot's
 * coordinate, which bounds them by the core below the memory's bandwidth
 * (bench/RESULTS.md, "Threads").  When a number lies in neither window,
 * those 16 faces take the AVX2 loop (boxes_avx2_loads where gathers are
 * slow, boxes_avx2 elsewhere: what the AVX2 level would run).
 * The windows hold for nearly every step of a UV sphere in band order and
 * for about half of them in the store's Morton order (vertices numbered by
 * first use: a step's new vertices form one run, the others come from
 * neighbouring cells visited earlier, often far back; bench/RESULTS.md).
 * Every read lies in [m0, m1], numbers the faces use: in the two-window
 * case both windows lie inside it (m0 + 31 < m1), and the one window's
 * loads are masked to its lanes <= m1 (masked-off lanes do not fault).
 * The results are boxes_core's bit for bit: the same min/max operand
 * orders (z_mn(a, b) = mnf(a, b), as v_mn), the rounding of v_down1 /
 * v_up1 in mask form, and object boxes reduced with exact min/max (the
 * order of a min over equal values matters only for the sign of a zero,
 * and no rounded bound is zero). */
#define CK_AVX512 CK_TARGET_AVX512VL
/* The windows are tried on blocks of Z_BLOCK steps; a block where more than
 * 1 / Z_MISS_DEN of them missed sends the next Z_SKIP blocks straight to
 * the AVX2 loop (a miss costs the test and a short call on top of it: in
 * Morton order, tried on every step, the mix ran slower than the AVX2 loop
 * alone, bench/RESULTS.md), and the block after them tries again. */
enum { Z_BLOCK = 32, Z_MISS_DEN = 8, Z_SKIP = 8 };
/* Ranges shorter than this take the AVX2 loop: the miss handling only pays
 * back over blocks, and the short ranges of a BVH refit (a leaf chunk a
 * call, in leaf order: the windows miss about half the time) ran a fifth
 * slower with the windows (`clash bench bvh --part 2`). */
enum { Z_MIN_RANGE = 2 * 16 * Z_BLOCK };

static inline CK_AVX512 __m512 z_mn(__m512 a, __m512 b) { return _mm512_min_ps(b, a); } /* mnf(a, b) */
static inline CK_AVX512 __m512 z_mx(__m512 a, __m512 b) { return _mm512_max_ps(b, a); } /* mxf(a, b) */
/* down1 / up1 lane by lane: u - 1, or in the lanes of mask m the "+1 with
 * the sign forced (down) or cleared (up)" case */
static inline CK_AVX512 __m512 z_down1(__m512 v)
{
    const __m512i one = _mm512_set1_epi32(1), u = _mm512_castps_si512(v);
    const __mmask16 m = _mm512_cmpgt_epi32_mask(one, u); /* (int)u < 1 */
    return _mm512_castsi512_ps(_mm512_mask_add_epi32(_mm512_sub_epi32(u, one), m,
                                                     _mm512_or_si512(u, _mm512_set1_epi32((int32_t)0x80000000u)), one));
}
static inline CK_AVX512 __m512 z_up1(__m512 v)
{
    const __m512i one = _mm512_set1_epi32(1), u = _mm512_castps_si512(v);
    const __mmask16 m = _mm512_cmpgt_epi32_mask(_mm512_sub_epi32(u, one), _mm512_set1_epi32(-2)); /* (int)(u-1) > -2 */
    return _mm512_castsi512_ps(
        _mm512_mask_add_epi32(_mm512_sub_epi32(u, one), m, _mm512_and_si512(u, _mm512_set1_epi32(0x7fffffff)), one));
}

/* The windows of 16 faces: the slots' numbers less m0 (d*) and less b1 =
 * m1 - 31 (e*), the lanes that take window A (k*); one: a single window,
 * loaded under the masks k0 / k1. */
typedef struct z_win {
    int one;
    int32_t m0, b1;
    __mmask16 k0, k1, ka, kb, kc;
    __m512i da, db, dc, ea, eb, ec;
} z_win;

/* Min and max over the faces' three vertices of one coordinate array P. */
static inline CK_AVX512 void z_coord(const float *restrict P, const z_win *w, __m512 *mn, __m512 *mx)
{
    __m512 ga, gb, gc;
    if (w->one) {
        const __m512 A0 = _mm512_maskz_loadu_ps(w->k0, P + w->m0), A1 = _mm512_maskz_loadu_ps(w->k1, P + w->m0 + 16);
        ga = _mm512_permutex2var_ps(A0, w->da, A1), gb = _mm512_permutex2var_ps(A0, w->db, A1);
        gc = _mm512_permutex2var_ps(A0, w->dc, A1);
    } else {
        const __m512 A0 = _mm512_loadu_ps(P + w->m0), A1 = _mm512_loadu_ps(P + w->m0 + 16);
        const __m512 B0 = _mm512_loadu_ps(P + w->b1), B1 = _mm512_loadu_ps(P + w->b1 + 16);
        ga = _mm512_mask_blend_ps(w->ka, _mm512_permutex2var_ps(B0, w->ea, B1), _mm512_permutex2var_ps(A0, w->da, A1));
        gb = _mm512_mask_blend_ps(w->kb, _mm512_permutex2var_ps(B0, w->eb, B1), _mm512_permutex2var_ps(A0, w->db, A1));
        gc = _mm512_mask_blend_ps(w->kc, _mm512_permutex2var_ps(B0, w->ec, B1), _mm512_permutex2var_ps(A0, w->dc, A1));
    }
    *mn = z_mn(ga, z_mn(gb, gc)), *mx = z_mx(ga, z_mx(gb, gc));
}

/* The windows of faces f..f+15; 0 when some number lies in neither. */
static inline CK_AVX512 int z_window(const int32_t *restrict i0, const int32_t *restrict i1,
                                     const int32_t *restrict i2, int64_t f, z_win *w)
{
    const __m512i va = _mm512_loadu_si512(i0 + f), vb = _mm512_loadu_si512(i1 + f), vc = _mm512_loadu_si512(i2 + f);
    const int32_t m0 = _mm512_reduce_min_epi32(_mm512_min_epi32(va, _mm512_min_epi32(vb, vc)));
    const int32_t m1 = _mm512_reduce_max_epi32(_mm512_max_epi32(va, _mm512_max_epi32(vb, vc)));
    const __m512i M0 = _mm512_set1_epi32(m0);
    w->m0 = m0;
    w->da = _mm512_sub_epi32(va, M0), w->db = _mm512_sub_epi32(vb, M0), w->dc = _mm512_sub_epi32(vc, M0);
    if (m1 - m0 < 32) {
        const __m512i lane = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        const __m512i span = _mm512_set1_epi32(m1 - m0);
        w->one = 1;
        w->k0 = _mm512_cmple_epi32_mask(lane, span);
        w->k1 = _mm512_cmple_epi32_mask(_mm512_add_epi32(lane, _mm512_set1_epi32(16)), span);
        return 1;
    }
    const __m512i B = _mm512_set1_epi32(m1 - 31), c32 = _mm512_set1_epi32(32), zero = _mm512_setzero_si512();
    w->one = 0, w->b1 = m1 - 31;
    w->ea = _mm512_sub_epi32(va, B), w->eb = _mm512_sub_epi32(vb, B), w->ec = _mm512_sub_epi32(vc, B);
    w->ka = _mm512_cmplt_epu32_mask(w->da, c32), w->kb = _mm512_cmplt_epu32_mask(w->db, c32);
    w->kc = _mm512_cmplt_epu32_mask(w->dc, c32);
    const __mmask16 ok = (__mmask16)((w->ka | _mm512_cmpge_epi32_mask(w->ea, zero)) &
                                     (w->kb | _mm512_cmpge_epi32_mask(w->eb, zero)) &
                                     (w->kc | _mm512_cmpge_epi32_mask(w->ec, zero)));
    return ok == 0xffff;
}

/* The AVX2 loop for faces the windows do not hold (not inlined: GCC would
 * compile boxes_core inside an AVX-512 function with 16-lane gathers). */
static void boxes_other(int64_t n, const int32_t *restrict i0, const int32_t *restrict i1,
                        const int32_t *restrict i2, const float *restrict x, const float *restrict y,
                        const float *restrict z, const float *restrict px, const float *restrict py,
                        const float *restrict pz, float *restrict lox, float *restrict loy, float *restrict loz,
                        float *restrict hix, float *restrict hiy, float *restrict hiz, float olo[3], float ohi[3]);

/* n faces, pointers offset to the first; nt: streaming stores (then every
 * box pointer must be 64-byte aligned; the faces the AVX2 loop takes are
 * stored ordinarily). */
static CK_AVX512 void boxes_avx512(int64_t n, const int32_t *restrict i0, const int32_t *restrict i1,
                                   const int32_t *restrict i2, const float *restrict x, const float *restrict y,
                                   const float *restrict z, const float *restrict px, const float *restrict py,
                                   const float *restrict pz, float *restrict lox, float *restrict loy,
                                   float *restrict loz, float *restrict hix, float *restrict hiy,
                                   float *restrict hiz, float olo[3], float ohi[3], int nt)
{
    __m512 ol0 = _mm512_set1_ps(olo[0]), ol1 = _mm512_set1_ps(olo[1]), ol2 = _mm512_set1_ps(olo[2]);
    __m512 oh0 = _mm512_set1_ps(ohi[0]), oh1 = _mm512_set1_ps(ohi[1]), oh2 = _mm512_set1_ps(ohi[2]);
    float slo[3] = {INFINITY, INFINITY, INFINITY}, shi[3] = {-INFINITY, -INFINITY, -INFINITY}; /* the AVX2 loop's */
    int64_t f = 0;
    const int64_t n16 = n & ~(int64_t)15;
    int skip = 0; /* blocks left to the AVX2 loop after a block where the windows held too rarely */
    while (f < n16) {
        const int64_t e = f + 16 * Z_BLOCK < n16 ? f + 16 * Z_BLOCK : n16;
        if (skip) {
            boxes_other(e - f, i0 + f, i1 + f, i2 + f, x, y, z, px, py, pz, lox + f, loy + f, loz + f, hix + f,
                        hiy + f, hiz + f, slo, shi);
            f = e, --skip;
            continue;
        }
        int misses = 0;
        for (; f < e; f += 16) {
            z_win w;
            if (!z_window(i0, i1, i2, f, &w)) {
                boxes_other(16, i0 + f, i1 + f, i2 + f, x, y, z, px, py, pz, lox + f, loy + f, loz + f, hix + f,
                            hiy + f, hiz + f, slo, shi);
                ++misses;
                continue;
            }
            __m512 l0, l1, l2, h0, h1, h2;
            z_coord(x, &w, &l0, &h0), z_coord(y, &w, &l1, &h1), z_coord(z, &w, &l2, &h2);
            if (px) {
                __m512 pl, ph;
                z_coord(px, &w, &pl, &ph), l0 = z_mn(l0, pl), h0 = z_mx(h0, ph);
                z_coord(py, &w, &pl, &ph), l1 = z_mn(l1, pl), h1 = z_mx(h1, ph);
                z_coord(pz, &w, &pl, &ph), l2 = z_mn(l2, pl), h2 = z_mx(h2, ph);
            }
            l0 = z_down1(l0), l1 = z_down1(l1), l2 = z_down1(l2), h0 = z_up1(h0), h1 = z_up1(h1), h2 = z_up1(h2);
            if (nt) {
                _mm512_stream_ps(lox + f, l0), _mm512_stream_ps(loy + f, l1), _mm512_stream_ps(loz + f, l2);
                _mm512_stream_ps(hix + f, h0), _mm512_stream_ps(hiy + f, h1), _mm512_stream_ps(hiz + f, h2);
            } else {
                _mm512_storeu_ps(lox + f, l0), _mm512_storeu_ps(loy + f, l1), _mm512_storeu_ps(loz + f, l2);
                _mm512_storeu_ps(hix + f, h0), _mm512_storeu_ps(hiy + f, h1), _mm512_storeu_ps(hiz + f, h2);
            }
            ol0 = z_mn(ol0, l0), ol1 = z_mn(ol1, l1), ol2 = z_mn(ol2, l2);
            oh0 = z_mx(oh0, h0), oh1 = z_mx(oh1, h1), oh2 = z_mx(oh2, h2);
        }
        if (misses * Z_MISS_DEN > Z_BLOCK) skip = Z_SKIP;
    }
    olo[0] = mnf(_mm512_reduce_min_ps(ol0), slo[0]), olo[1] = mnf(_mm512_reduce_min_ps(ol1), slo[1]);
    olo[2] = mnf(_mm512_reduce_min_ps(ol2), slo[2]);
    ohi[0] = mxf(_mm512_reduce_max_ps(oh0), shi[0]), ohi[1] = mxf(_mm512_reduce_max_ps(oh1), shi[1]);
    ohi[2] = mxf(_mm512_reduce_max_ps(oh2), shi[2]);
    if (f < n)
        boxes_other(n - f, i0 + f, i1 + f, i2 + f, x, y, z, px, py, pz, lox + f, loy + f, loz + f, hix + f, hiy + f,
                    hiz + f, olo, ohi);
}

static inline int slow_gathers(void) { return ck_gathers_slow(); }

static void boxes_other(int64_t n, const int32_t *restrict i0, const int32_t *restrict i1,
                        const int32_t *restrict i2, const float *restrict x, const float *restrict y,
                        const float *restrict z, const float *restrict px, const float *restrict py,
                        const float *restrict pz, float *restrict lox, float *restrict loy, float *restrict loz,
                        float *restrict hix, float *restrict hiy, float *restrict hiz, float olo[3], float ohi[3])
{
    if (n >= 8 && !slow_gathers())
        boxes_avx2(n, i0, i1, i2, x, y, z, px, py, pz, lox, loy, loz, hix, hiy, hiz, olo, ohi, 0);
    else
        boxes_avx2_loads(n, i0, i1, i2, x, y, z, px, py, pz, lox, loy, loz, hix, hiy, hiz, olo, ohi);
}
#else
#define CK_X86 0
#endif

int ck_gathers_slow(void)
{
#if defined(__GNUC__) && defined(__x86_64__)
    return __builtin_cpu_is("amd");
#else
    return 0;
#endif
}

void ck_face_boxes(int64_t f0, int64_t f1, const int32_t *restrict i0, const int32_t *restrict i1,
                   const int32_t *restrict i2, const float *restrict x, const float *restrict y,
                   const float *restrict z, const float *restrict px, const float *restrict py,
                   const float *restrict pz, float *restrict lox, float *restrict loy, float *restrict loz,
                   float *restrict hix, float *restrict hiy, float *restrict hiz, float olo[3], float ohi[3])
{
    if (f1 <= f0) return;
#if CK_X86
    if (f1 - f0 >= Z_MIN_RANGE && ck_have_avx512vl()) {
        boxes_avx512(f1 - f0, i0 + f0, i1 + f0, i2 + f0, x, y, z, px, py, pz, lox + f0, loy + f0, loz + f0,
                     hix + f0, hiy + f0, hiz + f0, olo, ohi, 0);
        return;
    }
    if (f1 - f0 >= 8 && ck_have_avx2() && slow_gathers()) {
        boxes_avx2_loads(f1 - f0, i0 + f0, i1 + f0, i2 + f0, x, y, z, px, py, pz, lox + f0, loy + f0, loz + f0,
                         hix + f0, hiy + f0, hiz + f0, olo, ohi);
        return;
    }
    if (f1 - f0 >= 8 && ck_have_avx2()) { /* (shorter: all tail, see boxes_avx2) */
        boxes_avx2(f1 - f0, i0 + f0, i1 + f0, i2 + f0, x, y, z, px, py, pz, lox + f0, loy + f0, loz + f0, hix + f0,
                   hiy + f0, hiz + f0, olo, ohi, 0);
        return;
    }
#endif
    boxes_core(f1 - f0, i0 + f0, i1 + f0, i2 + f0, x, y, z, px, py, pz, lox + f0, loy + f0, loz + f0, hix + f0,
               hiy + f0, hiz + f0, olo, ohi);
}

/* ---- streaming stores ---------------------------------------------------------------
 * With AVX2, the 64-byte lines that lie entirely inside [f0, f1) (face
 * blocks aligned to 16 on 64-byte aligned arrays) are written with
 * non-temporal stores: whole lines go to memory without first being read
 * for ownership, so the box arrays cost their 24 B/face once instead of
 * twice, and do not evict the inputs from the caches.  The partial lines at
 * the ends (shared with a neighbouring range) take ordinary stores.  An
 * sfence at the end orders the weakly ordered streaming stores before
 * whatever publishes the results (the team barrier).
 * Where one core's outstanding misses rather than DRAM bound S1 (as on
 * the development machine, bench/RESULTS.md) this is slower: not the
 * pipeline's default, kept for `clash bench bbox --stores` on other
 * machines. */
void ck_face_boxes_nt(int64_t f0, int64_t f1, const int32_t *restrict i0, const int32_t *restrict i1,
                      const int32_t *restrict i2, const float *restrict x, const float *restrict y,
                      const float *restrict z, const float *restrict px, const float *restrict py,
                      const float *restrict pz, float *restrict lox, float *restrict loy, float *restrict loz,
                      float *restrict hix, float *restrict hiy, float *restrict hiz, float olo[3], float ohi[3])
{
    if (f1 <= f0) return;
#if CK_X86
    const uintptr_t mis = ((uintptr_t)lox | (uintptr_t)loy | (uintptr_t)loz | (uintptr_t)hix | (uintptr_t)hiy |
                           (uintptr_t)hiz) & 63;
    const int64_t a = (f0 + 15) & ~(int64_t)15, e = f1 & ~(int64_t)15;
    if (mis == 0 && e - a >= Z_MIN_RANGE && ck_have_avx512vl()) { /* as below, 16 faces (one line an array) a step */
        if (f0 < a) ck_face_boxes(f0, a, i0, i1, i2, x, y, z, px, py, pz, lox, loy, loz, hix, hiy, hiz, olo, ohi);
        boxes_avx512(e - a, i0 + a, i1 + a, i2 + a, x, y, z, px, py, pz, lox + a, loy + a, loz + a, hix + a, hiy + a,
                     hiz + a, olo, ohi, 1);
        _mm_sfence();
        if (e < f1) ck_face_boxes(e, f1, i0, i1, i2, x, y, z, px, py, pz, lox, loy, loz, hix, hiy, hiz, olo, ohi);
        return;
    }
    if (mis == 0 && a < e && ck_have_avx2()) {
        if (f0 < a)
            boxes_avx2(a - f0, i0 + f0, i1 + f0, i2 + f0, x, y, z, px, py, pz, lox + f0, loy + f0, loz + f0,
                       hix + f0, hiy + f0, hiz + f0, olo, ohi, 0);
        boxes_avx2(e - a, i0 + a, i1 + a, i2 + a, x, y, z, px, py, pz, lox + a, loy + a, loz + a, hix + a, hiy + a,
                   hiz + a, olo, ohi, 1);
        _mm_sfence();
        if (e < f1)
            boxes_avx2(f1 - e, i0 + e, i1 + e, i2 + e, x, y, z, px, py, pz, lox + e, loy + e, loz + e, hix + e,
                       hiy + e, hiz + e, olo, ohi, 0);
        return;
    }
#endif
    ck_face_boxes(f0, f1, i0, i1, i2, x, y, z, px, py, pz, lox, loy, loz, hix, hiy, hiz, olo, ohi);
}

/* ---- strided (stride partition): faces f0, f0+step, ... < f1 ---------------------- */

void ck_face_boxes_strided_ref(int64_t f0, int64_t f1, int64_t step, const int32_t *i0, const int32_t *i1,
                               const int32_t *i2, const float *x, const float *y, const float *z, const float *px,
                               const float *py, const float *pz, float *lox, float *loy, float *loz, float *hix,
                               float *hiy, float *hiz, float olo[3], float ohi[3])
{
    for (int64_t f = f0; f < f1; f += step)
        ck_face_boxes_ref(f, f + 1, i0, i1, i2, x, y, z, px, py, pz, lox, loy, loz, hix, hiy, hiz, olo, ohi);
}

void ck_face_boxes_strided(int64_t f0, int64_t f1, int64_t step, const int32_t *restrict i0,
                           const int32_t *restrict i1, const int32_t *restrict i2, const float *restrict x,
                           const float *restrict y, const float *restrict z, const float *restrict px,
                           const float *restrict py, const float *restrict pz, float *restrict lox,
                           float *restrict loy, float *restrict loz, float *restrict hix, float *restrict hiy,
                           float *restrict hiz, float olo[3], float ohi[3])
{
    if (step == 1) {
        ck_face_boxes(f0, f1, i0, i1, i2, x, y, z, px, py, pz, lox, loy, loz, hix, hiy, hiz, olo, ohi);
        return;
    }
    float ol0 = olo[0], ol1 = olo[1], ol2 = olo[2], oh0 = ohi[0], oh1 = ohi[1], oh2 = ohi[2];
    for (int64_t f = f0; f < f1; f += step) {
        const int32_t a = i0[f], b = i1[f], c = i2[f];
        float l0 = mn3f(x[a], x[b], x[c]), l1 = mn3f(y[a], y[b], y[c]), l2 = mn3f(z[a], z[b], z[c]);
        float h0 = mx3f(x[a], x[b], x[c]), h1 = mx3f(y[a], y[b], y[c]), h2 = mx3f(z[a], z[b], z[c]);
        if (px) {
            l0 = mnf(l0, mn3f(px[a], px[b], px[c])), h0 = mxf(h0, mx3f(px[a], px[b], px[c]));
            l1 = mnf(l1, mn3f(py[a], py[b], py[c])), h1 = mxf(h1, mx3f(py[a], py[b], py[c]));
            l2 = mnf(l2, mn3f(pz[a], pz[b], pz[c])), h2 = mxf(h2, mx3f(pz[a], pz[b], pz[c]));
        }
        l0 = down1(l0), l1 = down1(l1), l2 = down1(l2), h0 = up1(h0), h1 = up1(h1), h2 = up1(h2);
        lox[f] = l0, loy[f] = l1, loz[f] = l2, hix[f] = h0, hiy[f] = h1, hiz[f] = h2;
        ol0 = mnf(ol0, l0), ol1 = mnf(ol1, l1), ol2 = mnf(ol2, l2);
        oh0 = mxf(oh0, h0), oh1 = mxf(oh1, h1), oh2 = mxf(oh2, h2);
    }
    olo[0] = ol0, olo[1] = ol1, olo[2] = ol2, ohi[0] = oh0, ohi[1] = oh1, ohi[2] = oh2;
}

/* ---- the cull's classification (S3) --------------------------------------------------- */

/* Boxes [lo, hi] against R6 = {lo x, y, z, hi x, y, z}: 0 apart, 1 inside,
 * 2 straddling, and 0 in cls[m .. m rounded up to 8).  Plain, and AVX2
 * written out (eight boxes a step, the last step's lanes past m masked:
 * S3 calls it on runs of 8 to 64 faces, where the compiler's vector loop
 * spent more on its prologue and remainder than on the boxes), with the
 * same comparisons, so the same classes, picked at run time. */
#define CLASSIFY_ARGS                                                                                            \
    int64_t m, const float *restrict lx, const float *restrict ly, const float *restrict lz,                    \
        const float *restrict hx, const float *restrict hy, const float *restrict hz, const float R6[6],       \
        uint8_t *restrict cls
void ck_classify_boxes_ref(CLASSIFY_ARGS)
{
    const float l0 = R6[0], l1 = R6[1], l2 = R6[2], h0 = R6[3], h1 = R6[4], h2 = R6[5];
    int64_t k = 0;
    for (; k < m; ++k) {
        /* meets: not apart (the boxes are never NaN) */
        const int32_t meet = (lx[k] <= h0) & (hx[k] >= l0) & (ly[k] <= h1) & (hy[k] >= l1) & (lz[k] <= h2) &
                             (hz[k] >= l2);
        const int32_t inside = (lx[k] >= l0) & (hx[k] <= h0) & (ly[k] >= l1) & (hy[k] <= h1) & (lz[k] >= l2) &
                               (hz[k] <= h2);
        cls[k] = (uint8_t)(meet + (meet & ~inside));
    }
    for (; k & 7; ++k) cls[k] = 0;
}
#if CK_X86
/* Eight classes from eight boxes (lanes where live is all ones; the others
 * class 0), stored as 8 bytes at c. */
static inline CK_AVX2 void classify8(__m256 a, __m256 b, __m256 c, __m256 d, __m256 e, __m256 f, const __m256 R[6],
                                     __m256i live, uint8_t *out)
{
    __m256 meet = _mm256_and_ps(_mm256_cmp_ps(a, R[3], _CMP_LE_OQ), _mm256_cmp_ps(d, R[0], _CMP_GE_OQ));
    meet = _mm256_and_ps(meet, _mm256_and_ps(_mm256_cmp_ps(b, R[4], _CMP_LE_OQ), _mm256_cmp_ps(e, R[1], _CMP_GE_OQ)));
    meet = _mm256_and_ps(meet, _mm256_and_ps(_mm256_cmp_ps(c, R[5], _CMP_LE_OQ), _mm256_cmp_ps(f, R[2], _CMP_GE_OQ)));
    __m256 in = _mm256_and_ps(_mm256_cmp_ps(a, R[0], _CMP_GE_OQ), _mm256_cmp_ps(d, R[3], _CMP_LE_OQ));
    in = _mm256_and_ps(in, _mm256_and_ps(_mm256_cmp_ps(b, R[1], _CMP_GE_OQ), _mm256_cmp_ps(e, R[4], _CMP_LE_OQ)));
    in = _mm256_and_ps(in, _mm256_and_ps(_mm256_cmp_ps(c, R[2], _CMP_GE_OQ), _mm256_cmp_ps(f, R[5], _CMP_LE_OQ)));
    const __m256i mt = _mm256_and_si256(_mm256_castps_si256(meet), live);
    /* -(meet + (meet & ~inside)) with true = -1: 0, 1, 2 in each 32-bit lane, packed to bytes */
    const __m256i cl = _mm256_sub_epi32(_mm256_setzero_si256(),
                                        _mm256_add_epi32(mt, _mm256_andnot_si256(_mm256_castps_si256(in), mt)));
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(cl), _mm256_extracti128_si256(cl, 1));
    _mm_storel_epi64((__m128i *)out, _mm_packus_epi16(w, w));
}

static CK_AVX2 void classify_avx2(CLASSIFY_ARGS)
{
    const __m256 R[6] = {_mm256_set1_ps(R6[0]), _mm256_set1_ps(R6[1]), _mm256_set1_ps(R6[2]),
                         _mm256_set1_ps(R6[3]), _mm256_set1_ps(R6[4]), _mm256_set1_ps(R6[5])};
    const __m256i all = _mm256_set1_epi32(-1);
    int64_t k = 0;
    for (; k + 8 <= m; k += 8)
        classify8(_mm256_loadu_ps(lx + k), _mm256_loadu_ps(ly + k), _mm256_loadu_ps(lz + k), _mm256_loadu_ps(hx + k),
                  _mm256_loadu_ps(hy + k), _mm256_loadu_ps(hz + k), R, all, cls + k);
    if (k < m) { /* the last lanes: those past m are not read */
        const __m256i live = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)(m - k)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        classify8(_mm256_maskload_ps(lx + k, live), _mm256_maskload_ps(ly + k, live), _mm256_maskload_ps(lz + k, live),
                  _mm256_maskload_ps(hx + k, live), _mm256_maskload_ps(hy + k, live), _mm256_maskload_ps(hz + k, live),
                  R, live, cls + k);
    }
}
#endif
void ck_classify_boxes(CLASSIFY_ARGS)
{
#if CK_X86
    if (ck_have_avx2()) {
        classify_avx2(m, lx, ly, lz, hx, hy, hz, R6, cls);
        return;
    }
#endif
    ck_classify_boxes_ref(m, lx, ly, lz, hx, hy, hz, R6, cls);
}

/* ---- deferred boxes: the octree's S1 (stages/deferred.c) -------------------------------- */

/* Bounds of vertices [0, n), rounded outward as the face boxes are, folded
 * into olo/ohi.  down1 and up1 never decrease, so this is the min/max of
 * the faces' boxes whenever every vertex is some face's (a vertex of no
 * face only widens it).  Plain, and compiled for AVX2 (the same min/max:
 * the same bounds). */
#define VBOUNDS_ARGS                                                                                             \
    int64_t n, const float *restrict x, const float *restrict y, const float *restrict z, float olo[3],         \
        float ohi[3]
#define VBOUNDS_BODY                                                                                             \
    float l0 = INFINITY, l1 = INFINITY, l2 = INFINITY, h0 = -INFINITY, h1 = -INFINITY, h2 = -INFINITY;          \
    _Pragma("omp simd reduction(min : l0, l1, l2) reduction(max : h0, h1, h2)")                                 \
    for (int64_t k = 0; k < n; ++k) {                                                                            \
        l0 = mnf(l0, x[k]), l1 = mnf(l1, y[k]), l2 = mnf(l2, z[k]);                                             \
        h0 = mxf(h0, x[k]), h1 = mxf(h1, y[k]), h2 = mxf(h2, z[k]);                                             \
    }                                                                                                            \
    olo[0] = mnf(olo[0], down1(l0)), olo[1] = mnf(olo[1], down1(l1)), olo[2] = mnf(olo[2], down1(l2));         \
    ohi[0] = mxf(ohi[0], up1(h0)), ohi[1] = mxf(ohi[1], up1(h1)), ohi[2] = mxf(ohi[2], up1(h2));
static void vbounds_plain(VBOUNDS_ARGS) { VBOUNDS_BODY }
#if CK_X86
static CK_AVX2 void vbounds_avx2(VBOUNDS_ARGS) { VBOUNDS_BODY }
#endif
void ck_vertex_bounds(VBOUNDS_ARGS)
{
    if (n <= 0) return;
#if CK_X86
    if (ck_have_avx2()) {
        vbounds_avx2(n, x, y, z, olo, ohi);
        return;
    }
#endif
    vbounds_plain(n, x, y, z, olo, ohi);
}

/* ---- deferred boxes: sub-blocks carried into the world (stages/deferred.c) -------------- */

/* Eight local boxes S (S[8c + j]: coordinate c = lo x, y, z, hi x, y, z of
 * box j) carried by the map P = {V[9], |V|[9], o[3], pad}: centre V c + o,
 * half extents |V| h, widened by pad + 2^-20 (|centre| + half extent), in
 * double, in the operations and order of ck_carry_box1 (the AVX2 path does the
 * same four lanes at a time, without contraction: the same bits). */
void ck_carry_box1(const float *S, const double *P, int j, double lo[3], double hi[3])
{
    const double c[3] = {0.5 * ((double)S[j] + S[24 + j]), 0.5 * ((double)S[8 + j] + S[32 + j]),
                         0.5 * ((double)S[16 + j] + S[40 + j])};
    const double h[3] = {0.5 * ((double)S[24 + j] - S[j]), 0.5 * ((double)S[32 + j] - S[8 + j]),
                         0.5 * ((double)S[40 + j] - S[16 + j])};
    for (int i = 0; i < 3; ++i) {
        const double cc = P[3 * i] * c[0] + P[3 * i + 1] * c[1] + P[3 * i + 2] * c[2] + P[18 + i];
        const double e = P[9 + 3 * i] * h[0] + P[10 + 3 * i] * h[1] + P[11 + 3 * i] * h[2];
        const double m = P[21] + 0x1p-20 * (fabs(cc) + e);
        lo[i] = cc - e - m, hi[i] = cc + e + m;
    }
}

#if CK_X86
/* Lanes j0 .. j0+3 of ck_carry_box1: L[i], H[i] per axis. */
static inline CK_AVX2 void carry4(const float *S, const double *P, int j0, __m256d L[3], __m256d H[3])
{
    const __m256d half = _mm256_set1_pd(0.5), sign = _mm256_set1_pd(-0.0), k20 = _mm256_set1_pd(0x1p-20);
    __m256d c[3], h[3];
    for (int a = 0; a < 3; ++a) {
        const __m256d l = _mm256_cvtps_pd(_mm_loadu_ps(S + 8 * a + j0));
        const __m256d u = _mm256_cvtps_pd(_mm_loadu_ps(S + 24 + 8 * a + j0));
        c[a] = _mm256_mul_pd(half, _mm256_add_pd(l, u)), h[a] = _mm256_mul_pd(half, _mm256_sub_pd(u, l));
    }
    const __m256d pad = _mm256_set1_pd(P[21]);
    for (int i = 0; i < 3; ++i) {
        __m256d cc = _mm256_mul_pd(_mm256_set1_pd(P[3 * i]), c[0]);
        cc = _mm256_add_pd(cc, _mm256_mul_pd(_mm256_set1_pd(P[3 * i + 1]), c[1]));
        cc = _mm256_add_pd(cc, _mm256_mul_pd(_mm256_set1_pd(P[3 * i + 2]), c[2]));
        cc = _mm256_add_pd(cc, _mm256_set1_pd(P[18 + i]));
        __m256d e = _mm256_mul_pd(_mm256_set1_pd(P[9 + 3 * i]), h[0]);
        e = _mm256_add_pd(e, _mm256_mul_pd(_mm256_set1_pd(P[10 + 3 * i]), h[1]));
        e = _mm256_add_pd(e, _mm256_mul_pd(_mm256_set1_pd(P[11 + 3 * i]), h[2]));
        const __m256d m = _mm256_add_pd(pad, _mm256_mul_pd(k20, _mm256_add_pd(_mm256_andnot_pd(sign, cc), e)));
        L[i] = _mm256_sub_pd(_mm256_sub_pd(cc, e), m), H[i] = _mm256_add_pd(_mm256_add_pd(cc, e), m);
    }
}

static CK_AVX2 void carry_avx2(const float *S, const double *P, double *L, double *H)
{
    for (int j0 = 0; j0 < 8; j0 += 4) {
        __m256d l[3], u[3];
        carry4(S, P, j0, l, u);
        for (int i = 0; i < 3; ++i) _mm256_storeu_pd(L + 8 * i + j0, l[i]), _mm256_storeu_pd(H + 8 * i + j0, u[i]);
    }
}

static CK_AVX2 unsigned carry_meet_avx2(const float *S, const double *P, const double *P0, double g, const float *R,
                                        int64_t nr, unsigned *inside)
{
    unsigned mask = 0, in = 0;
    const __m256d sign = _mm256_set1_pd(-0.0), gm = _mm256_set1_pd(g * (1 + 0x1p-19)),
                  k20 = _mm256_set1_pd(0x1p-20), tiny = _mm256_set1_pd(0x1p-126);
    for (int j0 = 0; j0 < 8; j0 += 4) {
        __m256d l[3], u[3];
        carry4(S, P, j0, l, u);
        if (P0) { /* swept: joined with the carry by the other pose, grown by g */
            __m256d l0[3], u0[3];
            carry4(S, P0, j0, l0, u0);
            for (int i = 0; i < 3; ++i) {
                l[i] = _mm256_min_pd(l0[i], l[i]), u[i] = _mm256_max_pd(u0[i], u[i]);
                if (g > 0) {
                    const __m256d A = _mm256_max_pd(_mm256_andnot_pd(sign, l[i]), _mm256_andnot_pd(sign, u[i]));
                    const __m256d G = _mm256_add_pd(_mm256_add_pd(gm, _mm256_mul_pd(k20, A)), tiny);
                    l[i] = _mm256_sub_pd(l[i], G), u[i] = _mm256_add_pd(u[i], G);
                }
            }
        }
        for (int64_t r = 0; r < nr; ++r) {
            const float *B = R + 6 * r;
            __m256d m = _mm256_and_pd(_mm256_cmp_pd(l[0], _mm256_set1_pd(B[3]), _CMP_LE_OQ),
                                      _mm256_cmp_pd(u[0], _mm256_set1_pd(B[0]), _CMP_GE_OQ));
            for (int i = 1; i < 3; ++i)
                m = _mm256_and_pd(m, _mm256_and_pd(_mm256_cmp_pd(l[i], _mm256_set1_pd(B[3 + i]), _CMP_LE_OQ),
                                                   _mm256_cmp_pd(u[i], _mm256_set1_pd(B[i]), _CMP_GE_OQ)));
            mask |= (unsigned)_mm256_movemask_pd(m) << j0;
            if (!inside) continue;
            __m256d w = _mm256_and_pd(_mm256_cmp_pd(l[0], _mm256_set1_pd(B[0]), _CMP_GE_OQ),
                                      _mm256_cmp_pd(u[0], _mm256_set1_pd(B[3]), _CMP_LE_OQ));
            for (int i = 1; i < 3; ++i)
                w = _mm256_and_pd(w, _mm256_and_pd(_mm256_cmp_pd(l[i], _mm256_set1_pd(B[i]), _CMP_GE_OQ),
                                                   _mm256_cmp_pd(u[i], _mm256_set1_pd(B[3 + i]), _CMP_LE_OQ)));
            in |= (unsigned)_mm256_movemask_pd(w) << j0;
        }
    }
    if (inside) *inside = in;
    return mask;
}
#endif

void ck_carry_boxes8(const float *restrict S, const double *restrict P, double *restrict L, double *restrict H)
{
#if CK_X86
    if (ck_have_avx2()) {
        carry_avx2(S, P, L, H);
        return;
    }
#endif
    ck_carry_boxes8_ref(S, P, L, H);
}

void ck_carry_boxes8_ref(const float *restrict S, const double *restrict P, double *restrict L, double *restrict H)
{
    for (int j = 0; j < 8; ++j) {
        double lo[3], hi[3];
        ck_carry_box1(S, P, j, lo, hi);
        for (int i = 0; i < 3; ++i) L[8 * i + j] = lo[i], H[8 * i + j] = hi[i];
    }
}

unsigned ck_carry_meet8(const float *restrict S, const double *restrict P, const float *restrict R, int64_t nr,
                        unsigned *inside)
{
#if CK_X86
    if (ck_have_avx2()) return carry_meet_avx2(S, P, NULL, 0, R, nr, inside);
#endif
    return ck_carry_meet8_ref(S, P, R, nr, inside);
}

unsigned ck_carry_meet8_swept(const float *restrict S, const double *restrict P, const double *restrict P0, double g,
                              const float *restrict R, int64_t nr, unsigned *inside)
{
#if CK_X86
    if (ck_have_avx2()) return carry_meet_avx2(S, P, P0, g, R, nr, inside);
#endif
    return ck_carry_meet8_swept_ref(S, P, P0, g, R, nr, inside);
}

unsigned ck_carry_meet8_ref(const float *restrict S, const double *restrict P, const float *restrict R, int64_t nr,
                            unsigned *inside)
{
    return ck_carry_meet8_swept_ref(S, P, NULL, 0, R, nr, inside);
}

unsigned ck_carry_meet8_swept_ref(const float *restrict S, const double *restrict P, const double *restrict P0,
                                  double g, const float *restrict R, int64_t nr, unsigned *inside)
{
    unsigned mask = 0, in = 0;
    const double gm = g * (1 + 0x1p-19);
    for (int j = 0; j < 8; ++j) {
        double lo[3], hi[3], lo0[3], hi0[3];
        ck_carry_box1(S, P, j, lo, hi);
        if (P0) {
            ck_carry_box1(S, P0, j, lo0, hi0);
            for (int i = 0; i < 3; ++i) {
                lo[i] = lo0[i] < lo[i] ? lo0[i] : lo[i], hi[i] = hi0[i] > hi[i] ? hi0[i] : hi[i];
                if (g > 0) {
                    const double A = fabs(hi[i]) > fabs(lo[i]) ? fabs(hi[i]) : fabs(lo[i]);
                    const double G = (gm + 0x1p-20 * A) + 0x1p-126;
                    lo[i] -= G, hi[i] += G;
                }
            }
        }
        for (int64_t r = 0; r < nr; ++r) {
            const float *B = R + 6 * r;
            mask |= (unsigned)(lo[0] <= B[3] && hi[0] >= B[0] && lo[1] <= B[4] && hi[1] >= B[1] && lo[2] <= B[5] &&
                               hi[2] >= B[2])
                    << j;
            in |= (unsigned)(lo[0] >= B[0] && hi[0] <= B[3] && lo[1] >= B[1] && hi[1] <= B[4] && lo[2] >= B[2] &&
                             hi[2] <= B[5])
                  << j;
        }
    }
    if (inside) *inside = in;
    return mask;
}
