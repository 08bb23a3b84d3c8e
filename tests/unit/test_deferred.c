/*
 * test_deferred.c — the face octree's deferred boxes (stages/deferred.c,
 * store/blocks.c): S3 leaves out the blocks of 64 faces whose world box,
 * carried from the object's frame by its pose, is apart from every overlap
 * region, and boxes only the faces of the others.
 *
 * On 40 random static scenes (two or three UV spheres of 1,000 to 6,000
 * faces, scales 0.3 to 3, any rotation, overlapping partly, moved as a
 * whole up to 10^4 from the origin so that float roundings are large):
 *   - every face box S1 would make (ck_face_boxes_ref on S0's positions)
 *     lies inside the world box S3 gives its block and its sub-block;
 *   - S3 boxes no more faces than the blocks that meet a region hold, and
 *     fewer in most scenes (the sub-blocks leave faces out);
 *   - the kept faces, candidates and pairs equal those of the same run with
 *     every face boxed in S1 (run->debug.eager_boxes), at 1 and 2 threads;
 *   - blocks are left out in most scenes (else the test says nothing);
 *   - ck_carry_boxes8 and ck_carry_meet8 give the bits of their plain
 *     paths on random boxes and maps.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "random_scenes.h"
#include "core/run.h"
#include "stages/stages.h"
#include "kernels/kernels.h"
#include "stages/deferred.h"
#include "store/scene.h"

typedef struct result {
    uint32_t *kept;
    size_t nkept, npairs;
    clash_pair *pairs;
    int64_t cand, boxed, in_blocks; /* in_blocks: faces of the blocks that meet a region */
    long carried;                   /* blocks carried into the world */
} result;

static int run_once(clash_scene *sc, int threads, int eager, result *r, int check_blocks)
{
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_STATIC, cfg.self_collision = 0, cfg.steps = 1, cfg.threads = threads;
    clash_error err;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run != NULL, "run_create: %s", err.msg);
    if (!run) return -1;
    run->debug.eager_boxes = eager;
    clash_pairs p;
    clash_step_stats st;
    if (clash_step(run, 1, &p, &st, &err)) {
        CHECK(0, "step: %s", err.msg);
        clash_run_destroy(run);
        return -1;
    }
    CHECK(run->boxes->deferred == !eager, "boxes deferred %d with eager_boxes %d", run->boxes->deferred, eager);
    r->nkept = run->cull->nkept, r->npairs = p.count, r->cand = st.candidates, r->boxed = st.faces_boxed;
    r->kept = malloc(sizeof(uint32_t) * (r->nkept + 1)), r->pairs = malloc(sizeof(clash_pair) * (p.count + 1));
    if (r->nkept) memcpy(r->kept, run->cull->kept, sizeof(uint32_t) * r->nkept);
    if (p.count) memcpy(r->pairs, p.pairs, sizeof(clash_pair) * p.count);
    if (check_blocks) { /* every face box inside its block's world box */
        const int64_t nf = sc->nf;
        float *b = malloc(sizeof(float) * 6 * (size_t)nf);
        long outside = 0, carried = 0;
        for (int o = 0; o < sc->nobj; ++o) {
            float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
            ck_face_boxes_ref(sc->fofs[o], sc->fofs[o + 1], sc->f0, sc->f1, sc->f2, sc->x, sc->y, sc->z, NULL, NULL,
                              NULL, b, b + nf, b + 2 * nf, b + 3 * nf, b + 4 * nf, b + 5 * nf, lo, hi);
            for (int64_t k = 0; sc->fofs[o] + k * CLASH_BLOCK < sc->fofs[o + 1]; ++k) {
                double wl[3], wh[3];
                const int carried_k = clash_defer_block_world(run, o, k, wl, wh);
                if (!carried_k) continue;
                CHECK(carried_k == 1, "object %d block %lld: the tile's and the stride path's carries differ", o,
                      (long long)k);
                ++carried;
                const int64_t f0 = sc->fofs[o] + k * CLASH_BLOCK;
                const int64_t f1 = f0 + CLASH_BLOCK < sc->fofs[o + 1] ? f0 + CLASH_BLOCK : sc->fofs[o + 1];
                for (int64_t f = f0; f < f1; ++f) {
                    double sl[3], sh[3];
                    CHECK(clash_defer_sub_world(run, o, k, (int)((f - f0) / CLASH_SUB), sl, sh), "sub-block world box");
                    for (int d = 0; d < 3; ++d) {
                        const float fl = b[(size_t)d * (size_t)nf + (size_t)f], fh = b[(size_t)(3 + d) * (size_t)nf + (size_t)f];
                        outside += fl < wl[d] || fh > wh[d];
                        outside += fl < sl[d] || fh > sh[d];
                    }
                }
                int meets = 0;
                for (int64_t g = run->cull->reg_ofs[o]; g < run->cull->reg_ofs[o + 1]; ++g) {
                    const clash_box *R = &run->cull->regs[g];
                    meets |= wl[0] <= R->hi[0] && wh[0] >= R->lo[0] && wl[1] <= R->hi[1] && wh[1] >= R->lo[1] &&
                             wl[2] <= R->hi[2] && wh[2] >= R->lo[2];
                }
                r->in_blocks += meets ? f1 - f0 : 0;
            }
            if (run->cull->reg_ofs[o + 1] > run->cull->reg_ofs[o] && clash_defer_block_world(run, o, 0, (double[3]){0}, (double[3]){0}) == 0)
                r->in_blocks += sc->fofs[o + 1] - sc->fofs[o]; /* not carried: every face boxed */
        }
        CHECK(outside == 0, "%ld face box sides outside their block's or sub-block's world box", outside);
        /* (a scene whose objects' slabs miss has no region: nothing to carry) */
        CHECK(carried > 0 || run->cull->reg_ofs[sc->nobj] == 0, "no block carried into the world: the test says nothing");
        r->carried = carried;
        free(b);
    }
    clash_run_destroy(run);
    return 0;
}

/* The carry kernels against their plain paths, bit for bit. */
static void carry_kernels(void)
{
    long bad = 0, insides = 0;
    for (int t = 0; t < 2000; ++t) {
        float S[48], R[18];
        double P[22], L[24], H[24], Lr[24], Hr[24];
        const double mag = t % 3 == 0 ? 1e4 : t % 3 == 1 ? 1 : 1e-3;
        for (int j = 0; j < 8; ++j)
            for (int c = 0; c < 3; ++c) {
                const float a = (float)(mag * srand1()), w = (float)(mag * urand() * 0.1);
                S[8 * c + j] = a, S[24 + 8 * c + j] = a + w;
            }
        for (int k = 0; k < 9; ++k) P[k] = srand1() * (1 + t % 4), P[9 + k] = fabs(P[k]);
        for (int k = 0; k < 3; ++k) P[18 + k] = mag * srand1();
        P[21] = 1e-12 * mag;
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                const float a = (float)(3 * mag * srand1()), w = (float)(mag * urand());
                R[6 * r + c] = a, R[6 * r + 3 + c] = a + w;
            }
        if (t % 4 < 2) /* a region that holds all or some of the boxes (inside masks) */
            for (int c = 0; c < 3; ++c)
                R[c] = (float)(-40 * mag), R[3 + c] = c || t % 4 == 0 ? (float)(40 * mag) : (float)(P[18] * urand());
        ck_carry_boxes8(S, P, L, H);
        ck_carry_boxes8_ref(S, P, Lr, Hr);
        bad += memcmp(L, Lr, sizeof L) != 0 || memcmp(H, Hr, sizeof H) != 0;
        for (int nr = 0; nr <= 3; ++nr) {
            unsigned want = 0;
            for (int j = 0; j < 8; ++j)
                for (int r = 0; r < nr; ++r)
                    want |= (unsigned)(Lr[j] <= R[6 * r + 3] && Hr[j] >= R[6 * r] && Lr[8 + j] <= R[6 * r + 4] &&
                                       Hr[8 + j] >= R[6 * r + 1] && Lr[16 + j] <= R[6 * r + 5] && Hr[16 + j] >= R[6 * r + 2])
                            << j;
            unsigned in_want = 0, in1 = 0, in2 = 0;
            for (int j = 0; j < 8; ++j)
                for (int r = 0; r < nr; ++r)
                    in_want |= (unsigned)(Lr[j] >= R[6 * r] && Hr[j] <= R[6 * r + 3] && Lr[8 + j] >= R[6 * r + 1] &&
                                          Hr[8 + j] <= R[6 * r + 4] && Lr[16 + j] >= R[6 * r + 2] && Hr[16 + j] <= R[6 * r + 5])
                               << j;
            bad += ck_carry_meet8(S, P, R, nr, &in1) != want || ck_carry_meet8_ref(S, P, R, nr, &in2) != want;
            bad += in1 != in_want || in2 != in_want || ck_carry_meet8(S, P, R, nr, NULL) != want;
            insides += in_want != 0;
        }
    }
    CHECK(bad == 0, "carry kernels: %ld of 2000 cases differ from the plain paths", bad);
    CHECK(insides > 100, "carry kernels: only %ld cases with a box inside a region", insides);
}

int main(void)
{
    carry_kernels();
    int skipping = 0, scenes = 0, with_pairs = 0, sub_skipping = 0, carrying = 0;
    for (int i = 0; i < 40; ++i) {
        clash_error err;
        clash_scene *sc = rs_spheres(i, CLASH_MODE_STATIC, 1, 1.2, 0, 0, &err);
        CHECK(sc != NULL, "scene %d: %s", i, err.msg);
        if (!sc) continue;
        result e = {0}, a = {0}, b = {0};
        if (!run_once(sc, 1, 1, &e, 0) && !run_once(sc, 1, 0, &a, 1) && !run_once(sc, 2, 0, &b, 0)) {
            for (int k = 0; k < 2; ++k) {
                const result *r = k ? &b : &a;
                CHECK(r->nkept == e.nkept && !memcmp(r->kept, e.kept, sizeof(uint32_t) * e.nkept),
                      "scene %d, %d threads: kept faces %zu, all boxed %zu", i, k + 1, r->nkept, e.nkept);
                CHECK(r->cand == e.cand, "scene %d, %d threads: candidates %lld, all boxed %lld", i, k + 1,
                      (long long)r->cand, (long long)e.cand);
                CHECK(r->npairs == e.npairs && !memcmp(r->pairs, e.pairs, sizeof(clash_pair) * e.npairs),
                      "scene %d, %d threads: pairs %zu, all boxed %zu", i, k + 1, r->npairs, e.npairs);
            }
            CHECK(e.boxed == sc->nf && a.boxed == b.boxed && a.boxed <= sc->nf,
                  "scene %d: faces boxed %lld (eager), %lld and %lld (deferred) of %lld", i, (long long)e.boxed,
                  (long long)a.boxed, (long long)b.boxed, (long long)sc->nf);
            CHECK(a.boxed <= a.in_blocks, "scene %d: %lld faces boxed, the blocks that meet a region hold %lld", i,
                  (long long)a.boxed, (long long)a.in_blocks);
            skipping += a.boxed < sc->nf, with_pairs += e.npairs > 0, ++scenes, sub_skipping += a.boxed < a.in_blocks;
            carrying += a.carried > 0;
        }
        free(e.kept), free(e.pairs), free(a.kept), free(a.pairs), free(b.kept), free(b.pairs);
        clash_scene_destroy(sc);
    }
    printf("deferred boxes: %d scenes, %d with pairs, blocks carried in %d, left out in %d, sub-blocks of blocks "
           "met in %d\n", scenes, with_pairs, carrying, skipping, sub_skipping);
    CHECK(carrying >= scenes / 2, "blocks carried into the world in only %d of %d scenes", carrying, scenes);
    CHECK(skipping >= scenes / 2, "blocks left out in only %d of %d scenes", skipping, scenes);
    CHECK(sub_skipping >= scenes / 2, "sub-blocks left out in only %d of %d scenes", sub_skipping, scenes);
    CHECK(with_pairs >= scenes / 4, "only %d of %d scenes have pairs", with_pairs, scenes);
    return check_finish("test_deferred");
}
