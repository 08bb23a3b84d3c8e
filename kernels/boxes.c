/*
 * boxes.c — face boxes over SoA positions (stage S1).
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
 * stepping the bit pattern moves one ulp away from or toward zero. */
static inline float down1(float v)
{
    int32_t i;
    memcpy(&i, &v, sizeof i);
    /* branch-free so the face loop vectorizes: +0/-0 go to -denorm_min */
    i = v > 0 ? i - 1 : (v < 0 ? i + 1 : (int32_t)0x80000001u);
    memcpy(&v, &i, sizeof v);
    return v;
}
static inline float up1(float v)
{
    int32_t i;
    memcpy(&i, &v, sizeof i);
    i = v > 0 ? i + 1 : (v < 0 ? i - 1 : 1);
    memcpy(&v, &i, sizeof v);
    return v;
}

/* Compiled twice, for AVX2 (8-wide gathers) and for the baseline, and picked
 * at load time: the face loop is a gather-min/max-scatter stream. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__) && \
    !defined(__SANITIZE_ADDRESS__)
/* (not under sanitizers: the clone resolver runs before their runtimes start) */
__attribute__((target_clones("avx2", "default")))
#endif
void ck_face_boxes(int64_t f0, int64_t f1, const int32_t *restrict i0, const int32_t *restrict i1,
                   const int32_t *restrict i2, const float *restrict x, const float *restrict y,
                   const float *restrict z, const float *restrict px, const float *restrict py,
                   const float *restrict pz, float *restrict lox, float *restrict loy, float *restrict loz,
                   float *restrict hix, float *restrict hiy, float *restrict hiz, float olo[3], float ohi[3])
{
    float ol0 = olo[0], ol1 = olo[1], ol2 = olo[2], oh0 = ohi[0], oh1 = ohi[1], oh2 = ohi[2];
    if (px) {
#pragma omp simd reduction(min : ol0, ol1, ol2) reduction(max : oh0, oh1, oh2)
        for (int64_t f = f0; f < f1; ++f) {
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
        for (int64_t f = f0; f < f1; ++f) {
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
