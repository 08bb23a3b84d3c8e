/*
 * bvh_leaf.h — the two packed tests the BVH midphase's traversals share
 * (bvh.c: the trees refitted in the world; bvh_frames.c: a rigid scene's
 * trees kept in the objects' own frames): the children of a wide node that
 * meet one box, and the face pairs of two leaves whose face boxes overlap;
 * and the world boxes of a leaf's faces, which bvh_frames.c makes on demand.
 *
 * A leaf's face boxes are six float rows (lox loy loz hix hiy hiz), the
 * first 4 places of each aligned to 16 bytes; rows lie `stride` floats
 * apart: CLASH_BVH_LCHUNK in a tree's leaf boxes (bvh.h), 4 in a leaf's
 * boxes made on the stack.  Places past a leaf's count repeat its first
 * face, so the lanes past it are masked off.
 */
#ifndef CLASH_STAGES_MID_BVH_LEAF_H
#define CLASH_STAGES_MID_BVH_LEAF_H

#include "core/bvh.h"
#include "core/run.h"
#include "stages/mid/midphase.h"
#include "kernels/kernels.h"

#if CLASH_BVH_WIDTH == 4 && defined(__SSE2__)
#define MID_SSE 1
#include <emmintrin.h>
#else
#define MID_SSE 0
#endif

/* The slots k < 4 of six rows of boxes (lo x y z, hi x y z) meeting the
 * closed box b = {lo x y z, hi x y z}, as a bit mask. */
static inline unsigned bvh_rows_overlap(const float *lox, const float *loy, const float *loz, const float *hix,
                                        const float *hiy, const float *hiz, const float b[6])
{
#if MID_SSE
    const __m128 p = _mm_cmple_ps(_mm_loadu_ps(lox), _mm_set1_ps(b[3]));
    const __m128 q = _mm_cmple_ps(_mm_set1_ps(b[0]), _mm_loadu_ps(hix));
    const __m128 r = _mm_cmple_ps(_mm_loadu_ps(loy), _mm_set1_ps(b[4]));
    const __m128 s = _mm_cmple_ps(_mm_set1_ps(b[1]), _mm_loadu_ps(hiy));
    const __m128 t = _mm_cmple_ps(_mm_loadu_ps(loz), _mm_set1_ps(b[5]));
    const __m128 u = _mm_cmple_ps(_mm_set1_ps(b[2]), _mm_loadu_ps(hiz));
    return (unsigned)_mm_movemask_ps(_mm_and_ps(_mm_and_ps(_mm_and_ps(p, q), _mm_and_ps(r, s)), _mm_and_ps(t, u)));
#else
    unsigned m = 0;
    for (int k = 0; k < 4; ++k)
        m |= (unsigned)(lox[k] <= b[3] && b[0] <= hix[k] && loy[k] <= b[4] && b[1] <= hiy[k] && loz[k] <= b[5] &&
                        b[2] <= hiz[k])
             << k;
    return m;
#endif
}

/* Children of node n meeting the closed box {lx ly lz, hx hy hz}: the
 * node kernel's predicate (kernels/bvh_node.c), inlined. */
static inline unsigned bvh_node_overlap6(const clash_bvh_node *n, float lx, float ly, float lz, float hx, float hy,
                                         float hz)
{
    const float q[6] = {lx, ly, lz, hx, hy, hz};
#if MID_SSE
    return bvh_rows_overlap(n->lox, n->loy, n->loz, n->hix, n->hiy, n->hiz, q);
#else
    return clash_bvh_overlap(n, q, q + 3);
#endif
}

/* The same for the box q = {lo x y z, hi x y z}. */
static inline unsigned bvh_node_overlap(const clash_bvh_node *n, const float q[6])
{
    return bvh_node_overlap6(n, q[0], q[1], q[2], q[3], q[4], q[5]);
}

/* Asks for the cache lines of a child: a node's two, or a leaf's six rows. */
static inline void bvh_prefetch_child(const clash_bvh *t, int32_t ch)
{
    if (ch > 0) {
        const char *p = (const char *)&t->node[ch];
        __builtin_prefetch(p), __builtin_prefetch(p + 64);
    } else if (ch < 0) {
        const float *r = clash_bvh_leaf_rows(t, -ch - 1);
        for (int d = 0; d < 6; ++d) __builtin_prefetch(r + d * CLASH_BVH_LCHUNK);
    }
}

/* Appends the face pair (a, b) as its key, smaller face first. */
static inline int bvh_push_key(clash_keybuf *kb, uint32_t a, uint32_t b)
{
    const uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
    if (kb->n < kb->cap) {
        kb->v[kb->n++] = key;
        return 0;
    }
    return clash_keybuf_push(kb, key);
}

/* The faces pa[0..ca) of leaf rows A (stride sa) against the faces
 * pb[0..cb) of leaf rows B (stride sb): a pair is a candidate when its face
 * boxes overlap grown by 2*delta, exactly clash_faceboxes_overlap's
 * predicate when the rows are S1's boxes.  same: both leaves of one object,
 * so the pair must also be eligible (self-collision).  kj, when not NULL,
 * gets for each key pushed its two places, 4 k + j (face pa[k], face pb[j]),
 * at the key's index in kb. */
static inline int bvh_leaf_pairs(const clash_run *run, clash_keybuf *kb, const float *A, size_t sa,
                                 const uint32_t *pa, int ca, const float *B, size_t sb, const uint32_t *pb, int cb,
                                 int same, uint8_t *kj)
{
    const float d = 2 * run->boxes->delta;
#if MID_SSE
    const unsigned cm = (1u << cb) - 1;
    const __m128 dv = _mm_set1_ps(d);
    const __m128 blx = _mm_load_ps(B), bly = _mm_load_ps(B + sb), blz = _mm_load_ps(B + 2 * sb);
    const __m128 bhx = _mm_add_ps(_mm_load_ps(B + 3 * sb), dv), bhy = _mm_add_ps(_mm_load_ps(B + 4 * sb), dv),
                 bhz = _mm_add_ps(_mm_load_ps(B + 5 * sb), dv);
#endif
    for (int k = 0; k < ca; ++k) {
        const float alx = A[k], aly = A[sa + k], alz = A[2 * sa + k];
        const float ahx = A[3 * sa + k] + d, ahy = A[4 * sa + k] + d, ahz = A[5 * sa + k] + d;
#if MID_SSE
        const __m128 x = _mm_and_ps(_mm_cmple_ps(blx, _mm_set1_ps(ahx)), _mm_cmple_ps(_mm_set1_ps(alx), bhx));
        const __m128 y = _mm_and_ps(_mm_cmple_ps(bly, _mm_set1_ps(ahy)), _mm_cmple_ps(_mm_set1_ps(aly), bhy));
        const __m128 z = _mm_and_ps(_mm_cmple_ps(blz, _mm_set1_ps(ahz)), _mm_cmple_ps(_mm_set1_ps(alz), bhz));
        unsigned m = (unsigned)_mm_movemask_ps(_mm_and_ps(_mm_and_ps(x, y), z)) & cm;
#else
        unsigned m = 0;
        for (int j = 0; j < cb; ++j)
            m |= (unsigned)(B[j] <= ahx && alx <= B[3 * sb + j] + d && B[sb + j] <= ahy && aly <= B[4 * sb + j] + d &&
                            B[2 * sb + j] <= ahz && alz <= B[5 * sb + j] + d)
                 << j;
#endif
        while (m) {
            const int j = __builtin_ctz(m);
            m &= m - 1;
            const uint32_t fa = pa[k], fb = pb[j];
            if (same && (fa == fb || !clash_pair_eligible(run, fa, fb))) continue;
            if (bvh_push_key(kb, fa, fb)) return -1;
            if (kj) kj[kb->n - 1] = (uint8_t)(4 * k + j);
        }
    }
    return 0;
}

/* bvh_frames.c: the world boxes of the 4 faces of a leaf (vertex indices i0, i1, i2)
 * into rows r of the given stride: ck_face_boxes's values bit for bit (its
 * compare-and-select minimum and maximum in the same operand order, then
 * one ulp outward by the same integer steps), inline and four faces at
 * once; the S1 kernel called for 4 faces cost more than the traversal's
 * own work on a leaf. */
static inline void bvh_box_leaf4(const clash_scene *sc, const int32_t *i0, const int32_t *i1, const int32_t *i2,
                                 float *r, size_t st, float ub[8])
{
#if MID_SSE
    const float *P[3] = {sc->x, sc->y, sc->z};
    const __m128i sign = _mm_set1_epi32((int)0x80000000u), one = _mm_set1_epi32(1), m2 = _mm_set1_epi32(-2);
    const __m128i abs = _mm_set1_epi32(0x7fffffff);
    for (int d = 0; d < 3; ++d) {
        const float *x = P[d];
        const __m128 a = _mm_set_ps(x[i0[3]], x[i0[2]], x[i0[1]], x[i0[0]]);
        const __m128 b = _mm_set_ps(x[i1[3]], x[i1[2]], x[i1[1]], x[i1[0]]);
        const __m128 c = _mm_set_ps(x[i2[3]], x[i2[2]], x[i2[1]], x[i2[0]]);
        const __m128i lo = _mm_castps_si128(_mm_min_ps(_mm_min_ps(c, b), a)); /* mnf(a, mnf(b, c)) */
        const __m128i hi = _mm_castps_si128(_mm_max_ps(_mm_max_ps(c, b), a));
        /* down1: (int)u < 1 ? (u | sign) + 1 : u - 1;  up1: (int)(u - 1) > -2 ? (u & ~sign) + 1 : u - 1 */
        const __m128i ld = _mm_cmplt_epi32(lo, one), lm = _mm_sub_epi32(lo, one);
        const __m128i hm = _mm_sub_epi32(hi, one), hu = _mm_cmpgt_epi32(hm, m2);
        const __m128i l = _mm_or_si128(_mm_and_si128(ld, _mm_add_epi32(_mm_or_si128(lo, sign), one)), _mm_andnot_si128(ld, lm));
        const __m128i h = _mm_or_si128(_mm_and_si128(hu, _mm_add_epi32(_mm_and_si128(hi, abs), one)), _mm_andnot_si128(hu, hm));
        const __m128 lf = _mm_castsi128_ps(l), hf = _mm_castsi128_ps(h);
        _mm_store_ps(r + d * st, lf), _mm_store_ps(r + (3 + d) * st, hf);
        /* the union over the 4 places (past a leaf's count they repeat its first face) */
        const __m128 l2 = _mm_min_ps(lf, _mm_movehl_ps(lf, lf)), h2 = _mm_max_ps(hf, _mm_movehl_ps(hf, hf));
        ub[d] = _mm_cvtss_f32(_mm_min_ss(l2, _mm_shuffle_ps(l2, l2, 1)));
        ub[4 + d] = _mm_cvtss_f32(_mm_max_ss(h2, _mm_shuffle_ps(h2, h2, 1)));
    }
#else
    float olo[3] = {INFINITY, INFINITY, INFINITY}, ohi[3] = {-INFINITY, -INFINITY, -INFINITY};
    ck_face_boxes(0, 4, i0, i1, i2, sc->x, sc->y, sc->z, NULL, NULL, NULL, r, r + st, r + 2 * st, r + 3 * st,
                  r + 4 * st, r + 5 * st, olo, ohi);
    for (int d = 0; d < 3; ++d) ub[d] = olo[d], ub[4 + d] = ohi[d];
#endif
}

#endif
