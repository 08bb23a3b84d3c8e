/*
 * blocks.c — each object's faces in blocks of CLASH_BLOCK consecutive
 * faces, with each block's box in the object's own frame and each object's
 * largest |local coordinate| (the scene store's lx, ly, lz, which never
 * change for an object once added).  Faces lie along the Morton curve in
 * the store (reorder.c), so a block is a compact patch of the surface.  The
 * face octree's S3 carries a rigid object's block boxes into the world by
 * its pose and leaves out the blocks beyond its overlap regions without
 * boxing their faces (stages/deferred.c).  The block boxes are stored
 * eight blocks of one object to a tile, side by side by coordinate (tbox),
 * which S3 carries first; each block also has the boxes of its CLASH_SUBS
 * sub-blocks of CLASH_SUB faces, stored the same way (sbox), which S3
 * carries where a block straddles a region: where two objects graze, a
 * block that reaches a region mostly holds faces that do not.
 *
 * Made on first use for each layout of the scene (objects added or faces
 * reordered bump sc->layout_gen; neither is allowed while a run exists) and
 * published with one atomic exchange, without a lock: two runs made at once
 * may both make them, and one copy is dropped.  A copy of an older layout
 * stays chained to the new one until the scene is destroyed, so a reader
 * never meets freed memory.
 */
#include <math.h>
#include <stdlib.h>

#include "store/scene.h"

void clash_blocks_free(clash_blocks *b)
{
    while (b) {
        clash_blocks *older = b->older;
        free(b->bofs), free(b->tofs), free(b->sbox), free(b->tbox), free(b->radius), free(b);
        b = older;
    }
}

static clash_blocks *make(const clash_scene *sc)
{
    clash_blocks *b = calloc(1, sizeof *b);
    if (!b) return NULL;
    b->gen = sc->layout_gen, b->nobj = sc->nobj, b->nf = sc->nf;
    b->bofs = malloc(sizeof(int64_t) * ((size_t)sc->nobj + 1));
    b->tofs = malloc(sizeof(int64_t) * ((size_t)sc->nobj + 1));
    b->radius = malloc(sizeof(double) * ((size_t)sc->nobj + 1));
    int64_t nb = 0, nt = 0;
    if (b->bofs && b->tofs) {
        for (int o = 0; o < sc->nobj; ++o) {
            const int64_t k = (sc->fofs[o + 1] - sc->fofs[o] + CLASH_BLOCK - 1) / CLASH_BLOCK;
            b->bofs[o] = nb, b->tofs[o] = nt, nb += k, nt += (k + CLASH_TILE - 1) / CLASH_TILE;
        }
        b->bofs[sc->nobj] = nb, b->tofs[sc->nobj] = nt;
    }
    b->sbox = calloc(6 * CLASH_SUBS * (size_t)(nb + 1), sizeof(float)); /* sub-blocks past an object's end: 0 */
    b->tbox = calloc(6 * CLASH_TILE * (size_t)(nt + 1), sizeof(float));  /* blocks past an object's end: 0 */
    if (!b->bofs || !b->tofs || !b->radius || !b->sbox || !b->tbox) {
        clash_blocks_free(b);
        return NULL;
    }
    /* compares, not libm's fminf/fmaxf calls (coordinates are never NaN):
     * a call per coordinate made this loop far costlier on large meshes */
    for (int o = 0; o < sc->nobj; ++o) {
        float r = 0;
        for (int64_t v = sc->vofs[o]; v < sc->vofs[o + 1]; ++v) {
            const float a = fabsf(sc->lx[v]), c = fabsf(sc->ly[v]), e = fabsf(sc->lz[v]);
            r = a > r ? a : r, r = c > r ? c : r, r = e > r ? e : r;
        }
        b->radius[o] = r;
        for (int64_t k = b->bofs[o]; k < b->bofs[o + 1]; ++k) {
            const int64_t f0 = sc->fofs[o] + (k - b->bofs[o]) * CLASH_BLOCK;
            const int64_t f1 = f0 + CLASH_BLOCK < sc->fofs[o + 1] ? f0 + CLASH_BLOCK : sc->fofs[o + 1];
            float B[6], *S = b->sbox + 6 * CLASH_SUBS * k;
            for (int d = 0; d < 3; ++d) B[d] = INFINITY, B[3 + d] = -INFINITY;
            for (int64_t g = f0; g < f1; g += CLASH_SUB) {
                const int64_t g1 = g + CLASH_SUB < f1 ? g + CLASH_SUB : f1;
                float L[3] = {INFINITY, INFINITY, INFINITY}, H[3] = {-INFINITY, -INFINITY, -INFINITY};
                for (int64_t f = g; f < g1; ++f) {
                    const int32_t v[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
                    for (int j = 0; j < 3; ++j) {
                        const float p[3] = {sc->lx[v[j]], sc->ly[v[j]], sc->lz[v[j]]};
                        for (int d = 0; d < 3; ++d) L[d] = p[d] < L[d] ? p[d] : L[d], H[d] = p[d] > H[d] ? p[d] : H[d];
                    }
                }
                const int64_t j = (g - f0) / CLASH_SUB;
                for (int d = 0; d < 3; ++d) {
                    S[d * CLASH_SUBS + j] = L[d], S[(3 + d) * CLASH_SUBS + j] = H[d];
                    B[d] = L[d] < B[d] ? L[d] : B[d], B[3 + d] = H[d] > B[3 + d] ? H[d] : B[3 + d];
                }
            }
            const int64_t kk = k - b->bofs[o], t = b->tofs[o] + kk / CLASH_TILE, j = kk % CLASH_TILE;
            for (int c = 0; c < 6; ++c) b->tbox[6 * CLASH_TILE * t + CLASH_TILE * c + j] = B[c];
        }
    }
    return b;
}

static int fresh(const clash_blocks *b, const clash_scene *sc)
{
    return b && b->gen == sc->layout_gen && b->nobj == sc->nobj && b->nf == sc->nf;
}

const clash_blocks *clash_scene_blocks(clash_scene *sc)
{
    clash_blocks *cur = __atomic_load_n(&sc->blocks, __ATOMIC_ACQUIRE);
    if (fresh(cur, sc)) return cur;
    clash_blocks *b = make(sc);
    if (!b) return NULL;
    for (;;) {
        b->older = cur;
        if (__atomic_compare_exchange_n(&sc->blocks, &cur, b, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return b;
        if (fresh(cur, sc)) { /* another run made them first */
            b->older = NULL;
            clash_blocks_free(b);
            return cur;
        }
    }
}
