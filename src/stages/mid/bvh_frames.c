/*
 * bvh_frames.c — the kept BVH of a rigid scene in static mode, in the
 * objects' own frames (`--midphase bvh`).
 *
 * Why.  The world-frame BVH (bvh.c) refits every tree on every step: the
 * boxes of all faces from the vertex positions, then every node.  On two
 * 124,000-face meshes that refit was a third of the step, and on two small
 * meshes that barely touch it was nearly all of it (FCL's OBBRSS query, the
 * peer, does no per-face work at all there).  A rigid object's faces never
 * move in its own frame, so its tree is built once over the local faces
 * (the store's lx, ly, lz) and queried through the pose between the two
 * objects, as the BoxTree and the DOP-tree do (rigidtree.c: the frames,
 * called views, and the margin).
 *
 * Query.  For a unit (a, b) of S2 (or a against itself with
 * self-collision) the traversal runs in a's frame: the child boxes of a
 * node of b are carried there by M = A^-1 B (centre V c + o, half extents
 * |V| h; map_rows, in float, four children at once, widened to cover the
 * float roundings), grown by twice the unit's margin (rt_pairs: the world
 * rounding delta and the double arithmetic, in a's units), then tested
 * against the children of a node of a with the packed test the world
 * traversal uses.  For two objects a's children are also carried into b's
 * frame by M^-1 and tested against b's there: the faces of both boxes as
 * separating planes (on the graded torus fewer leaf pairs, 37,491
 * candidates against 38,493 from a's side only).  A face pair whose world
 * triangles meet has its two faces' exact local images within the margin,
 * so its two leaves' boxes overlap at every level, from either side
 * (rigidtree.c's argument).
 *
 * Leaves.  Two leaves meeting give the face pairs whose world face boxes
 * overlap grown by 2*delta: the oracle's predicate on S1's own boxes.  Those
 * boxes are made only for the leaves the traversal reaches, from the world
 * positions of S0 by the S1 kernel (the same values, bit for bit), into a
 * record of the leaf (two cache lines: the boxes, their union, a stamp),
 * once a step: the stamp says "boxed in this step" (2e in step e) or "being
 * boxed" (2e + 1).  A worker that finds a leaf
 * being boxed by another makes its own copy on the stack, so nobody waits.
 * The candidates are thus exactly the world-frame BVH's when both trees
 * prune alike, and always a subset of the oracle's.
 *
 * S5 inside S4.  On one rank without self-collision each candidate is made
 * once, so none needs sorting or merging: the pairs of two leaves go at
 * once to S5's exact test (the float filter eight at a time, then the
 * exact test on the pairs it leaves, eight at a time too), while the
 * faces' vertices are in cache, and only the hits are kept, as
 * producer-consumer does (run->mid->cand.hits, cand.tests counts the tests; S6
 * sorts the hits).  On the graded torus the step takes fewer
 * instructions and less time than with S5 apart (bench/RESULTS.md).
 *
 * S1.  No face boxes: each object's box is its root box carried into the
 * world by its pose (rounded outward, plus the double arithmetic's relative
 * 1e-12), which holds every world vertex S0 computed; S2 and the culling
 * inflation delta (stages/boxes.c) use those boxes.  The boxes are looser
 * than the faces' union, so S2 may pair a few more objects, whose traversal
 * then stops at the roots.
 *
 * Deforming objects and swept mode keep the world-frame refit (bvh.c): a
 * deforming face moves in its own frame, and a swept step's boxes cover two
 * states.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/tuning.h"
#include "core/bvh.h"
#include "kernels/kernels.h"
#include "stages/mid/bvh_leaf.h"
#include "stages/mid/midphase.h"
#include "stages/mid/rigidtree.h"

#define W CLASH_BVH_WIDTH

/* A leaf's world boxes in one record of three cache lines: its 4 places'
 * face boxes as six rows of 4 (lo x y z, hi x y z), their union, the stamp
 * (2e: boxed in step e, 2e + 1: being boxed), and the vertex numbers of its
 * faces (set once), which the boxing reads.  (In the tree's own arrays a
 * leaf spans six lines of boxes and three of vertex numbers, and the stamp
 * and union two more.) */
typedef struct leafrec {
    _Alignas(64) float row[6][4];
    float ub[7];     /* the union: lo x y z, -, hi x y z */
    uint32_t stamp;
    int32_t vi[3][4]; /* vertex k of the face at each place */
} leafrec;

struct clash_bvh_frames {
    leafrec **leaf;   /* per object, per leaf (4 places) */
    double *radius;   /* per object: the largest |local coordinate| (the margin's magnitude) */
    uint32_t epoch;
    int64_t boxed;    /* faces boxed this step (atomic) */
};

int clash_bvh_frames_apply(const clash_run *run)
{
    return run->cfg.midphase == CLASH_MID_BVH && !run->debug.bvh_world && run->cfg.mode == CLASH_MODE_STATIC &&
           !run->sc->has_deforming;
}

int64_t clash_bvh_frames_boxed(const clash_run *run)
{
    return run->mid->bvh_frames && clash_bvh_frames_apply(run) ? __atomic_load_n(&run->mid->bvh_frames->boxed, __ATOMIC_RELAXED)
                                                          : -1;
}

void clash_bvh_frames_free(clash_run *run)
{
    clash_bvh_frames *fr = run->mid->bvh_frames;
    if (!fr) return;
    if (fr->leaf)
        for (int o = 0; o < run->sc->nobj; ++o) free(fr->leaf[o]);
    free(fr->leaf), free(fr->radius), free(fr);
    run->mid->bvh_frames = NULL;
}

/* Float bounds of a double value: below (lo) and above (hi) it, whatever
 * the rounding of the conversion (half a float ulp, less than the shift). */
static inline float down(double x) { return (float)(x - fabs(x) * 0x1p-23 - 0x1p-126); }
static inline float up(double x) { return (float)(x + fabs(x) * 0x1p-23 + 0x1p-126); }

/* Every object's tree over its local face boxes (the S1 kernel on lx, ly,
 * lz), once a run. */
static int build(clash_run *run)
{
    const clash_scene *sc = run->sc;
    const size_t nf = sc->nf ? (size_t)sc->nf : 1;
    clash_bvh_frames *fr = calloc(1, sizeof *fr);
    float *bb = malloc(6 * nf * sizeof(float));
    uint32_t *ids = malloc(nf * sizeof(uint32_t));
    int rc = -1;
    if (!fr || !bb || !ids) goto done;
    run->mid->bvh_frames = fr;
    if (!run->mid->bvh && !(run->mid->bvh = calloc((size_t)sc->nobj, sizeof(clash_bvh)))) goto done;
    fr->leaf = calloc((size_t)sc->nobj, sizeof *fr->leaf);
    fr->radius = calloc((size_t)sc->nobj, sizeof *fr->radius);
    if (!fr->leaf || !fr->radius) goto done;
    float olo[3] = {INFINITY, INFINITY, INFINITY}, ohi[3] = {-INFINITY, -INFINITY, -INFINITY};
    ck_face_boxes(0, sc->nf, sc->f0, sc->f1, sc->f2, sc->lx, sc->ly, sc->lz, NULL, NULL, NULL, bb, bb + nf,
                  bb + 2 * nf, bb + 3 * nf, bb + 4 * nf, bb + 5 * nf, olo, ohi);
    const clash_boxes_soa bx = {bb, bb + nf, bb + 2 * nf, bb + 3 * nf, bb + 4 * nf, bb + 5 * nf};
    for (int64_t f = 0; f < sc->nf; ++f) ids[f] = (uint32_t)f;
    for (int o = 0; o < sc->nobj; ++o) {
        clash_bvh *t = &run->mid->bvh[o];
        if (clash_bvh_build(t, run->mid->bvh_builder, ids + sc->fofs[o], (int32_t)(sc->fofs[o + 1] - sc->fofs[o]), bx) ||
            !(fr->leaf[o] = clash_aligned_calloc((size_t)t->nprim / 4 + 1, sizeof(leafrec))))
            goto done;
        for (int32_t q = 0; q < t->nprim; ++q) { /* the records hold the vertex numbers (no clash_bvh_set_faces) */
            const uint32_t f = t->prim[q];
            leafrec *L = &fr->leaf[o][q >> 2];
            L->vi[0][q & 3] = sc->f0[f], L->vi[1][q & 3] = sc->f1[f], L->vi[2][q & 3] = sc->f2[f];
        }
        double r = 0;
        for (int64_t v = sc->vofs[o]; v < sc->vofs[o + 1]; ++v)
            r = rt_max(r, rt_max(fabs(sc->lx[v]), rt_max(fabs(sc->ly[v]), fabs(sc->lz[v]))));
        fr->radius[o] = r;
    }
    rc = 0;
done:
    free(bb), free(ids);
    if (rc) clash_bvh_frames_free(run); /* out of memory: no half-built state for a later step */
    return rc;
}

int clash_bvh_frames_boxes(clash_run *run)
{
    const clash_scene *sc = run->sc;
    if (!run->mid->bvh_frames && build(run)) return -1;
    clash_bvh_frames *fr = run->mid->bvh_frames;
    if (++fr->epoch >= 0x7fffffffu) { /* the stamps start over */
        for (int o = 0; o < sc->nobj; ++o)
            for (int32_t l = 0; l <= run->mid->bvh[o].nprim / 4; ++l) fr->leaf[o][l].stamp = 0;
        fr->epoch = 1;
    }
    fr->boxed = 0;
    for (int o = 0; o < sc->nobj; ++o) {
        const clash_bvh *t = &run->mid->bvh[o];
        clash_box *b = &run->boxes->obox[o];
        if (!t->nnode) {
            for (int d = 0; d < 3; ++d) b->lo[d] = INFINITY, b->hi[d] = -INFINITY;
            continue;
        }
        const clash_xform *x = &sc->cur[o];
        const double s = sc->obj_scale[o];
        rt_view v;
        for (int i = 0; i < 9; ++i) v.V[i] = s * x->R[i];
        memcpy(v.o, x->t, sizeof v.o);
        const double lo[3] = {t->lo[0], t->lo[1], t->lo[2]}, hi[3] = {t->hi[0], t->hi[1], t->hi[2]};
        double wlo[3], whi[3];
        rt_view_box(&v, lo, hi, wlo, whi);
        const double pad = 1e-12 * (fabs(x->t[0]) + fabs(x->t[1]) + fabs(x->t[2]) + 3 * s * fr->radius[o]);
        for (int d = 0; d < 3; ++d) b->lo[d] = down(wlo[d] - pad), b->hi[d] = up(whi[d] + pad);
    }
    return 0;
}

/* A map between the two frames of a unit, in float for the traversal:
 * x' = V x + o, boxes grown by g. */
typedef struct fview {
    float V[9], aV[9], o[3], g;
} fview;

/* A unit: b's nodes carried into a's frame (ab), and a's into b's (ba) for
 * the test from b's side (not for self-collision). */
typedef struct unit {
    int32_t a, b;
    int queue; /* its leaf pairs through leaf_queue */
    fview ab, ba;
} unit;

typedef struct item {
    int32_t u, na, nb, self; /* self: node na against itself */
} item;

/* A pair of leaves waiting its turn (leaf_queue). */
typedef struct lpair {
    const struct unit *u;
    int32_t qa, qb;
    int32_t ca, cb;
} lpair;

/* leaf_queue's: LQ_REC + LQ_VTX pairs deep, for units of CLASH_TUNE_LQ_MIN_FACES
 * faces or more (two cows were slower with it; bench/RESULTS.md). */
enum { LQ_REC = 6, LQ_VTX = 6, LQ = 16 };

/* S5 inside S4 (fused: one rank, no self-collision): per worker, the face
 * pairs waiting for the filter's eight lanes, and the tests made. */
typedef struct pend {
    lpair q[LQ]; /* the leaf pairs' queue (a ring), q[q0] the oldest of qn */
    int q0, qn;
    uint64_t key[8];
    int32_t v[8][6]; /* the two faces' vertex numbers */
    int n;
    ck_tri8_batch tb; /* the pairs the filter left, for the eight-lane exact test, and their keys */
    uint64_t tkey[8];
    int64_t tests;
    char pad_[CLASH_CACHE_LINE - sizeof(int64_t)];
} pend;

typedef struct ctx {
    clash_run *run;
    const unit *u;
    clash_bvh_frames *fr;
    pend *pd; /* per worker, NULL: candidates to S5 */
} ctx;

static inline unsigned used_slots(const clash_bvh_node *n)
{
#if MID_SSE
    const __m128i c = _mm_loadu_si128((const __m128i *)n->child);
    return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(c, _mm_setzero_si128()))) ^ 0xfu;
#else
    unsigned m = 0;
    for (int k = 0; k < W; ++k) m |= (unsigned)(n->child[k] != 0) << k;
    return m;
#endif
}

/* The float map of x' = V x + o (double), grown by g. */
static void set_view(fview *f, const double V[9], const double o[3], double g)
{
    for (int i = 0; i < 9; ++i) f->V[i] = (float)V[i], f->aV[i] = fabsf(f->V[i]);
    for (int i = 0; i < 3; ++i) f->o[i] = (float)o[i];
    f->g = up(g);
}

/* Boxes {lo x y z, hi x y z} as rows q[0..5][k], k < W, carried by f and
 * grown, each holding its exact image: centre V c + o and half extent
 * |V| h + g per axis in float (the loops over k are vectorized), then
 * widened by 2^-19 of the sum of the magnitudes that entered them (|V||c|,
 * |o|, the extent), far above the few roundings to 2^-24 of those
 * magnitudes each that the float arithmetic and the conversions of V and o
 * to float make.  The rows of a node's child boxes are its lox..hiz. */
static void map_rows(const fview *f, const float *lx, const float *ly, const float *lz, const float *hx,
                     const float *hy, const float *hz, float q[6][W])
{
#if MID_SSE
    const __m128 half = _mm_set1_ps(0.5f), sign = _mm_set1_ps(-0.0f);
    const __m128 l0 = _mm_loadu_ps(lx), l1 = _mm_loadu_ps(ly), l2 = _mm_loadu_ps(lz);
    const __m128 u0 = _mm_loadu_ps(hx), u1 = _mm_loadu_ps(hy), u2 = _mm_loadu_ps(hz);
    const __m128 c0 = _mm_mul_ps(half, _mm_add_ps(l0, u0)), h0 = _mm_mul_ps(half, _mm_sub_ps(u0, l0));
    const __m128 c1 = _mm_mul_ps(half, _mm_add_ps(l1, u1)), h1 = _mm_mul_ps(half, _mm_sub_ps(u1, l1));
    const __m128 c2 = _mm_mul_ps(half, _mm_add_ps(l2, u2)), h2 = _mm_mul_ps(half, _mm_sub_ps(u2, l2));
    const __m128 a0 = _mm_andnot_ps(sign, c0), a1 = _mm_andnot_ps(sign, c1), a2 = _mm_andnot_ps(sign, c2);
    for (int i = 0; i < 3; ++i) {
        const float *v = f->V + 3 * i, *a = f->aV + 3 * i;
        const __m128 av0 = _mm_set1_ps(a[0]), av1 = _mm_set1_ps(a[1]), av2 = _mm_set1_ps(a[2]);
        const __m128 cc = _mm_add_ps(_mm_add_ps(_mm_mul_ps(_mm_set1_ps(v[0]), c0), _mm_mul_ps(_mm_set1_ps(v[1]), c1)),
                                     _mm_add_ps(_mm_mul_ps(_mm_set1_ps(v[2]), c2), _mm_set1_ps(f->o[i])));
        const __m128 e = _mm_add_ps(_mm_add_ps(_mm_mul_ps(av0, h0), _mm_mul_ps(av1, h1)),
                                    _mm_add_ps(_mm_mul_ps(av2, h2), _mm_set1_ps(f->g)));
        const __m128 m = _mm_add_ps(_mm_add_ps(_mm_mul_ps(av0, a0), _mm_mul_ps(av1, a1)),
                                    _mm_add_ps(_mm_mul_ps(av2, a2), _mm_add_ps(_mm_set1_ps(fabsf(f->o[i])), e)));
        const __m128 w = _mm_add_ps(e, _mm_add_ps(_mm_mul_ps(m, _mm_set1_ps(0x1p-19f)), _mm_set1_ps(0x1p-126f)));
        _mm_storeu_ps(q[i], _mm_sub_ps(cc, w)), _mm_storeu_ps(q[3 + i], _mm_add_ps(cc, w));
    }
#else
    float c[3][W], h[3][W];
    for (int k = 0; k < W; ++k) {
        c[0][k] = 0.5f * (lx[k] + hx[k]), h[0][k] = 0.5f * (hx[k] - lx[k]);
        c[1][k] = 0.5f * (ly[k] + hy[k]), h[1][k] = 0.5f * (hy[k] - ly[k]);
        c[2][k] = 0.5f * (lz[k] + hz[k]), h[2][k] = 0.5f * (hz[k] - lz[k]);
    }
    for (int i = 0; i < 3; ++i) {
        const float *v = f->V + 3 * i, *a = f->aV + 3 * i, o = f->o[i], ao = fabsf(o), g = f->g;
        for (int k = 0; k < W; ++k) {
            const float cc = v[0] * c[0][k] + v[1] * c[1][k] + v[2] * c[2][k] + o;
            const float e = a[0] * h[0][k] + a[1] * h[1][k] + a[2] * h[2][k] + g;
            const float m = a[0] * fabsf(c[0][k]) + a[1] * fabsf(c[1][k]) + a[2] * fabsf(c[2][k]) + ao + e;
            const float w = e + m * 0x1p-19f + 0x1p-126f;
            q[i][k] = cc - w, q[3 + i][k] = cc + w;
        }
    }
#endif
}

/* The used child boxes of node n carried by f (map_rows); returns the used slots. */
static inline unsigned map_children(const fview *f, const clash_bvh_node *n, float q[6][W])
{
    map_rows(f, n->lox, n->loy, n->loz, n->hix, n->hiy, n->hiz, q);
    return used_slots(n);
}

/* Slot k of mapped boxes q, as one box {lo, hi}. */
static inline void slot_of(const float q[6][W], int k, float b[6])
{
    for (int d = 0; d < 6; ++d) b[d] = q[d][k];
}

/* bvh_node_overlap of slot k of mapped boxes q, read from the rows in place. */
static inline unsigned overlap_slot(const clash_bvh_node *n, const float q[6][W], int k)
{
    return bvh_node_overlap6(n, q[0][k], q[1][k], q[2][k], q[3][k], q[4][k], q[5][k]);
}

/* The slots k of mapped boxes q that meet the closed box {lo, hi}, the W
 * slots at once. */
static inline unsigned slots_meeting(const float q[6][W], const float box[6])
{
    return bvh_rows_overlap(q[0], q[1], q[2], q[3], q[4], q[5], box);
}

/* The world face boxes of the leaf at place q of object o's tree: its
 * record's rows (boxed now if nobody has this step), or a copy in tmp when
 * another worker is boxing them; *ub: their union (tmp + 24 for a copy).
 * The rows lie 4 floats apart. */
static const float *leaf_rows(const ctx *c, int o, int32_t q, int count, float *tmp, const float **ub)
{
    const clash_scene *sc = c->run->sc;
    leafrec *L = &c->fr->leaf[o][q >> 2];
    const uint32_t ready = 2 * c->fr->epoch;
    uint32_t v = __atomic_load_n(&L->stamp, __ATOMIC_ACQUIRE);
    *ub = L->ub;
    if (v == ready) return L->row[0];
    const int mine =
        v != ready + 1 && __atomic_compare_exchange_n(&L->stamp, &v, ready + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
    float *r = mine ? L->row[0] : tmp, *u = mine ? L->ub : tmp + 24;
    *ub = u;
    bvh_box_leaf4(sc, L->vi[0], L->vi[1], L->vi[2], r, 4, u);
    if (mine) {
        __atomic_store_n(&L->stamp, ready, __ATOMIC_RELEASE);
        __atomic_fetch_add(&c->fr->boxed, (int64_t)count, __ATOMIC_RELAXED);
    }
    return r;
}

/* The exact test of the pairs the filter left (p->tb, eight at a time);
 * the hits go to kb. */
static int test_left(pend *p, clash_keybuf *kb)
{
    uint8_t meet[8];
    const int n = ck_tri8_flush(&p->tb, meet);
    for (int l = 0; l < n; ++l)
        if (meet[l] && clash_keybuf_push(kb, p->tkey[l])) return -1;
    return 0;
}

/* The exact test (S5's: the float filter, then the exact test) of the p->n
 * pending face pairs: the pairs the filter leaves wait in p->tb for the
 * eight-lane exact test; the hits go to kb. */
static int test_pending(const clash_run *run, pend *p, clash_keybuf *kb)
{
    const clash_scene *sc = run->sc;
    /* the doubles (the exact test's); the filter's lanes: them translated by the lane's first point in double */
    double DP[3][3][8], DQ[3][3][8];
    float P[3][3][8], Q[3][3][8];
    uint8_t apart[8];
    for (int l = 0; l < 8; ++l) {
        const int32_t *v = p->v[l < p->n ? l : 0]; /* lanes past n repeat the first pair */
        const double *const X[3] = {sc->dx, sc->dy, sc->dz};
        for (int j = 0; j < 3; ++j) /* (point 0 first: the origin) */
            for (int c = 0; c < 3; ++c) DP[j][c][l] = X[c][v[j]], DQ[j][c][l] = X[c][v[3 + j]],
                P[j][c][l] = (float)(DP[j][c][l] - DP[0][c][l]), Q[j][c][l] = (float)(DQ[j][c][l] - DP[0][c][l]);
    }
    ck_tris_apart_f32x8((const float(*)[3][8])P, (const float(*)[3][8])Q, apart);
    for (int l = 0; l < p->n; ++l) {
        if (apart[l]) continue;
        p->tkey[p->tb.n] = p->key[l];
        if (ck_tri8_add(&p->tb, (const double(*)[3][8])DP, (const double(*)[3][8])DQ, l) == 8 && test_left(p, kb))
            return -1;
    }
    p->tests += p->n;
    p->n = 0;
    return 0;
}

/* The face pairs of two leaves: first their unions, then each face pair
 * (bvh_leaf_pairs), both grown by 2*delta.  Every face box lies in its
 * leaf's union, so a pair of unions apart has no candidate: the candidates
 * are the same, and on the graded torus most of the leaf pairs the
 * traversal reaches stop there. */
static int leaf_leaf(const ctx *c, clash_keybuf *kb, const unit *u, int32_t qa, int ca, int32_t qb, int cb)
{
    _Alignas(16) float ta[32], tb[32];
    const size_t sa = 4, sb = 4;
    const float *ua, *ub;
    const float *A = leaf_rows(c, u->a, qa, ca, ta, &ua), *B = leaf_rows(c, u->b, qb, cb, tb, &ub);
    const float d = 2 * c->run->boxes->delta;
    if (!(ub[0] <= ua[4] + d && ua[0] <= ub[4] + d && ub[1] <= ua[5] + d && ua[1] <= ub[5] + d && ub[2] <= ua[6] + d &&
          ua[2] <= ub[6] + d))
        return 0;
    if (c->pd) { /* fused: the candidates straight to the exact test, their faces still in cache */
        uint64_t k16[16];
        uint8_t kj[16];
        clash_keybuf local = {.v = k16, .n = 0, .cap = 16};
        bvh_leaf_pairs(c->run, &local, A, sa, c->run->mid->bvh[u->a].prim + qa, ca, B, sb, c->run->mid->bvh[u->b].prim + qb, cb,
                       u->a == u->b, kj);
        pend *p = &c->pd[kb - c->run->mid->wbuf];
        const leafrec *LA = &c->fr->leaf[u->a][qa >> 2], *LB = &c->fr->leaf[u->b][qb >> 2];
        for (size_t i = 0; i < local.n; ++i) {
            const int k = kj[i] >> 2, j = kj[i] & 3;
            for (int e = 0; e < 3; ++e) p->v[p->n][e] = LA->vi[e][k], p->v[p->n][3 + e] = LB->vi[e][j];
            p->key[p->n++] = k16[i];
            if (p->n == 8 && test_pending(c->run, p, kb)) return -1;
        }
        return 0;
    }
    return bvh_leaf_pairs(c->run, kb, A, sa, c->run->mid->bvh[u->a].prim + qa, ca, B, sb, c->run->mid->bvh[u->b].prim + qb, cb,
                          u->a == u->b, NULL);
}

/* The pairs of leaves of a big unit go through a queue before leaf_leaf
 * (fused runs: a pend a worker).  A leaf's record, then the world
 * positions of its vertices where it is still to be boxed this step, are
 * met at random: each is prefetched LQ_REC + LQ_VTX, then LQ_VTX pairs
 * before it is read.  The same pairs. */
static void prefetch_record(const ctx *c, int o, int32_t q)
{
    for (int k = 0; k < 3; ++k) __builtin_prefetch((const char *)&c->fr->leaf[o][q >> 2] + 64 * k);
}

static void prefetch_vertices(const ctx *c, int o, int32_t q)
{
    const leafrec *L = &c->fr->leaf[o][q >> 2];
    if (__atomic_load_n(&L->stamp, __ATOMIC_RELAXED) == 2 * c->fr->epoch) return; /* boxed already */
    const clash_scene *sc = c->run->sc;
    for (int e = 0; e < 3; ++e)
        for (int k = 0; k < 4; ++k) {
            const int32_t v = L->vi[e][k];
            __builtin_prefetch(sc->x + v), __builtin_prefetch(sc->y + v), __builtin_prefetch(sc->z + v);
        }
}

static int leaf_queue(const ctx *c, clash_keybuf *kb, const unit *u, int32_t qa, int ca, int32_t qb, int cb)
{
    if (!c->pd || !u->queue) return leaf_leaf(c, kb, u, qa, ca, qb, cb);
    pend *p = &c->pd[kb - c->run->mid->wbuf];
    if (p->qn == LQ_REC + LQ_VTX) { /* the oldest pair's turn */
        const lpair *t = &p->q[p->q0];
        p->q0 = (p->q0 + 1) % LQ, p->qn--;
        if (leaf_leaf(c, kb, t->u, t->qa, t->ca, t->qb, t->cb)) return -1;
    }
    if (p->qn >= LQ_REC) { /* the pair that came LQ_REC pairs ago: its vertices */
        const lpair *t = &p->q[(p->q0 + p->qn - LQ_REC) % LQ];
        prefetch_vertices(c, t->u->a, t->qa), prefetch_vertices(c, t->u->b, t->qb);
    }
    prefetch_record(c, u->a, qa), prefetch_record(c, u->b, qb);
    p->q[(p->q0 + p->qn) % LQ] = (lpair){u, qa, qb, ca, cb};
    p->qn++;
    return 0;
}

/* The queued pairs, oldest first (the end of a worker's traversal). */
static int leaf_queue_drain(const ctx *c, pend *p, clash_keybuf *kb)
{
    for (; p->qn; p->q0 = (p->q0 + 1) % LQ, p->qn--)
        if (leaf_leaf(c, kb, p->q[p->q0].u, p->q[p->q0].qa, p->q[p->q0].ca, p->q[p->q0].qb, p->q[p->q0].cb)) return -1;
    return 0;
}

/* a's leaf (place qa, count ca, box in a's frame) against the subtree of
 * b's node nb, whose boxes are carried into a's frame on the way down.
 * (The test from b's side too, as step_item makes it, costs more here than
 * it saves: more instructions in S4 on the graded torus.) */
static int aleaf_vs_b(const ctx *c, clash_keybuf *kb, const unit *u, int32_t qa, int ca, const float box[6], int32_t nb)
{
    const clash_bvh *tb = &c->run->mid->bvh[u->b];
    int32_t stk[64 * W];
    int sp = 0;
    stk[sp++] = nb;
    while (sp) {
        const clash_bvh_node *n = &tb->node[stk[--sp]];
        float q[6][W];
        const unsigned used = map_children(&u->ab, n, q);
        for (unsigned m = used & slots_meeting((const float(*)[W])q, box); m; m &= m - 1) {
            const int k = __builtin_ctz(m);
            const int32_t ch = n->child[k];
            if (ch > 0) {
                if (sp < (int)(sizeof stk / sizeof *stk)) stk[sp++] = ch;
                else if (aleaf_vs_b(c, kb, u, qa, ca, box, ch)) return -1;
            } else if (leaf_queue(c, kb, u, qa, ca, -ch - 1, n->count[k])) {
                return -1;
            }
        }
    }
    return 0;
}

/* b's leaf (place qb, count cb, box in a's frame, grown) against the
 * subtree of a's node na. */
static int bleaf_vs_a(const ctx *c, clash_keybuf *kb, const unit *u, int32_t qb, int cb, const float box[6], int32_t na)
{
    const clash_bvh *ta = &c->run->mid->bvh[u->a];
    int32_t stk[64 * W];
    int sp = 0;
    stk[sp++] = na;
    while (sp) {
        const clash_bvh_node *n = &ta->node[stk[--sp]];
        for (unsigned m = bvh_node_overlap(n, box) & used_slots(n); m; m &= m - 1) {
            const int k = __builtin_ctz(m);
            const int32_t ch = n->child[k];
            if (ch > 0) {
                if (sp < (int)(sizeof stk / sizeof *stk)) stk[sp++] = ch;
                else if (bleaf_vs_a(c, kb, u, qb, cb, box, ch)) return -1;
            } else if (leaf_queue(c, kb, u, -ch - 1, n->count[k], qb, cb)) {
                return -1;
            }
        }
    }
    return 0;
}

/* Slot i of a's node A against slot j of b's node B (qb: its box in a's frame). */
static int slot_pair(const ctx *c, clash_keybuf *kb, rt_stack *st, int32_t uid, const clash_bvh_node *A, int i,
                     const clash_bvh_node *B, int j, const float qb[6])
{
    const unit *u = &c->u[uid];
    const int32_t ca = A->child[i], cb = B->child[j];
    if (ca > 0 && cb > 0) {
        const item n = {uid, ca, cb, 0};
        return rt_push(st, &n);
    }
    if (ca < 0 && cb < 0) return leaf_queue(c, kb, u, -ca - 1, A->count[i], -cb - 1, B->count[j]);
    if (ca < 0) {
        const float qa[6] = {A->lox[i], A->loy[i], A->loz[i], A->hix[i], A->hiy[i], A->hiz[i]};
        return aleaf_vs_b(c, kb, u, -ca - 1, A->count[i], qa, cb);
    }
    return bleaf_vs_a(c, kb, u, -cb - 1, B->count[j], qb, ca);
}

/* One traversal item (rt_traverse's step). */
static int step_item(const void *cp, const void *ip, rt_stack *st, clash_keybuf *kb)
{
    const ctx *c = cp;
    item it;
    memcpy(&it, ip, sizeof it);
    const unit *u = &c->u[it.u];
    const clash_bvh *ta = &c->run->mid->bvh[u->a], *tb = &c->run->mid->bvh[u->b];
    const clash_bvh_node *A = &ta->node[it.na], *B = it.self ? A : &tb->node[it.nb];
    const unsigned ua = used_slots(A);
    float q[6][W], b[6];
    const unsigned ub = map_children(&u->ab, B, q);
    if (it.self) { /* each child against itself, then each pair of children once (i below j) */
        for (unsigned m = ua; m; m &= m - 1) {
            const int i = __builtin_ctz(m);
            const int32_t ch = A->child[i];
            if (ch > 0) {
                const item n = {it.u, ch, ch, 1};
                if (rt_push(st, &n)) return -1;
            } else if (leaf_queue(c, kb, u, -ch - 1, A->count[i], -ch - 1, A->count[i])) {
                return -1;
            }
        }
        for (unsigned m = ub; m; m &= m - 1) {
            const int j = __builtin_ctz(m);
            slot_of(q, j, b);
            for (unsigned r = bvh_node_overlap(A, b) & ua & ((1u << j) - 1); r; r &= r - 1)
                if (slot_pair(c, kb, st, it.u, A, __builtin_ctz(r), B, j, b)) return -1;
        }
        return 0;
    }
    /* the slot pairs that meet in a's frame first (mm[j]: the slots i of A
     * that slot j of B meets there); none: done, without carrying A's
     * children (a fifth of the items on the graded torus) */
    unsigned mm[W] = {0}, any_i = 0, used_a = 0, used_b = 0;
    for (unsigned m = ub; m; m &= m - 1) {
        const int j = __builtin_ctz(m);
        any_i |= mm[j] = overlap_slot(A, (const float(*)[W])q, j) & ua;
    }
    if (!any_i) return 0;
    /* two-sided: slot pair (i, j) also needs a's child i, carried into b's
     * frame, to meet b's child j there (back[i]: the slots j it meets); only
     * the children i that met some j above are carried */
    if (u->a != u->b) {
        float p[6][W];
        unsigned back[W] = {0};
        map_children(&u->ba, A, p);
        for (unsigned m = any_i; m; m &= m - 1) {
            const int i = __builtin_ctz(m);
            back[i] = overlap_slot(B, (const float(*)[W])p, i);
        }
        for (unsigned m = ub; m; m &= m - 1) {
            const int j = __builtin_ctz(m);
            unsigned keep = 0;
            for (unsigned r = mm[j]; r; r &= r - 1)
                if (back[__builtin_ctz(r)] >> j & 1) keep |= 1u << __builtin_ctz(r);
            mm[j] = keep;
        }
    }
    for (unsigned m = ub; m; m &= m - 1) {
        const int j = __builtin_ctz(m);
        if (mm[j]) used_a |= mm[j], used_b |= 1u << j;
    }
    /* the children's lines asked for before they are read (met at random) */
    for (unsigned r = used_a; r; r &= r - 1) bvh_prefetch_child(ta, A->child[__builtin_ctz(r)]);
    for (unsigned r = used_b; r; r &= r - 1) bvh_prefetch_child(tb, B->child[__builtin_ctz(r)]);
    for (unsigned m = used_b; m; m &= m - 1) {
        const int j = __builtin_ctz(m);
        slot_of(q, j, b);
        for (unsigned r = mm[j]; r; r &= r - 1)
            if (slot_pair(c, kb, st, it.u, A, __builtin_ctz(r), B, j, b)) return -1;
    }
    return 0;
}
static double fr_radius(const clash_run *run, int o) { return run->mid->bvh_frames->radius[o]; }

/* rt_traverse's flush: a worker's pairs still pending, tested. */
static int flush_pending(const void *cp, int w, clash_keybuf *kb)
{
    const ctx *c = cp;
    if (leaf_queue_drain(c, &c->pd[w], kb)) return -1;
    if (c->pd[w].n && test_pending(c->run, &c->pd[w], kb)) return -1;
    return test_left(&c->pd[w], kb);
}

int clash_bvh_frames_candidates(clash_run *run, clash_error *err)
{
    run->mid->cand.n = 0;
    size_t n = 0;
    rt_pair *p = rt_pairs(run, run->mid->bvh_frames->radius, 1e-12, &n);
    unit *u = malloc((n ? n : 1) * sizeof *u);
    rt_stack units = {.isz = sizeof(item)};
    int rc = CLASH_OK;
    if (!p || !u) goto oom;
    for (size_t k = 0; k < n; ++k) {
        unit *x = &u[k];
        const rt_view *v = &p[k].vb[0];
        const double g = 2 * p[k].grow;
        x->a = p[k].a, x->b = p[k].b;
        const int64_t *fofs = run->sc->fofs;
        x->queue = fofs[x->a + 1] - fofs[x->a] + fofs[x->b + 1] - fofs[x->b] >= CLASH_TUNE_LQ_MIN_FACES;
        set_view(&x->ab, v->V, v->o, g);
        if (x->a != x->b) { /* a's frame into b's: x_b = V^-1 (x_a - o), the margin stretched by at most |V^-1| */
            double Vi[9], oi[3];
            const double nv = rt_inverse3(v->V, Vi);
            for (int i = 0; i < 3; ++i) oi[i] = -(Vi[3 * i] * v->o[0] + Vi[3 * i + 1] * v->o[1] + Vi[3 * i + 2] * v->o[2]);
            const double mag = fabs(v->o[0]) + fabs(v->o[1]) + fabs(v->o[2]) + fr_radius(run, x->a);
            set_view(&x->ba, Vi, oi, nv * (g + 1e-12 * mag));
        }
        if (!run->mid->bvh[x->a].nnode || !run->mid->bvh[x->b].nnode) continue;
        const item it = {(int32_t)k, 0, 0, x->a == x->b};
        if (rt_push(&units, &it)) goto oom;
    }
    /* One rank, no self-collision: every key is made once (each face sits in
     * one leaf, and each unit is a distinct object pair), so the candidates
     * need no sort; S6 sorts the hits (a tenth of them on the mesh
     * benchmarks).  A self unit makes both orders of its leaves' pairs, and
     * under MPI the ranks split one list, which must be in the same order on
     * each. */
    run->mid->cand.unsorted = run->ranks.size == 1 && !run->cfg.self_collision;
    /* With the candidates unsorted, S5 is made inside S4 too: the pairs of
     * two leaves go to the exact test (eight at a time) while their faces
     * are in cache, and only the hits are kept (run->mid->cand.hits; cand.tests: the tests). */
    const int fuse = run->mid->cand.unsorted && !run->debug.narrow_plain;
    pend *pd = fuse ? calloc(clash_team(run), sizeof *pd) : NULL;
    if (fuse && !pd) goto oom;
    const ctx c = {run, u, run->mid->bvh_frames, pd};
    rc = rt_traverse(run, &units, step_item, pd ? flush_pending : NULL, &c, "bvh", err);
    if (pd && rc == CLASH_OK) {
        run->mid->cand.hits = 1, run->mid->cand.tests = 0;
        for (size_t w = 0; w < clash_team(run); ++w) run->mid->cand.tests += pd[w].tests;
    }
    free(pd);
    goto done;
oom:
    rc = clash_fail(err, CLASH_EFAIL, "out of memory in the bvh midphase");
done:
    free(p), free(u), free(units.v);
    return rc;
}
