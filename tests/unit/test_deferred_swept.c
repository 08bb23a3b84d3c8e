/*
 * test_deferred_swept.c — the face octree's deferred boxes in swept mode
 * (stages/deferred.c): S1 makes each object's box from its vertices at s
 * and at s-1, grown by its largest arc margin, and S3 carries the blocks of
 * 64 faces by both poses, joins the two boxes, grows them for the arc
 * margins, and boxes only the faces of the blocks and sub-blocks that meet
 * a region.
 *
 * On 24 random swept scenes (two or three UV spheres of 1,000 to 6,000
 * faces, scales 0.3 to 3, moving and turning up to 12 degrees a step about
 * each axis, overlapping partly, moved as a whole up to 10^4 from the
 * origin so that float roundings are large), four steps each, in lockstep
 * with the same scene run with every face boxed in S1 (run->debug.eager_boxes):
 *   - every face box S1 makes (the eager run's, grown by the arc margins)
 *     lies inside the joined, grown box S3 gives its block and its
 *     sub-block (both corners meet it, clash_defer_meets);
 *   - every object box holds the eager run's object box;
 *   - the pairs equal the eager run's at every step, at 1 and 2 threads,
 *     and every face the eager run keeps is kept;
 *   - faces are left unboxed in most steps (else the test says nothing);
 *   - ck_carry_meet8_swept gives the bits of its plain path, and the masks
 *     of the joined, grown boxes computed here from ck_carry_boxes8_ref.
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

/* The swept carry kernel against its plain path and against the joined,
 * grown boxes made here. */
static void swept_kernel(void)
{
    long bad = 0, grown_only = 0;
    for (int t = 0; t < 2000; ++t) {
        float S[48], R[18];
        double P[22], P0[22], L[24], H[24], L0[24], H0[24];
        const double mag = t % 3 == 0 ? 1e4 : t % 3 == 1 ? 1 : 1e-3;
        const double g = t % 4 == 0 ? 0 : t % 4 == 1 ? 1e-6 * mag : 0.05 * mag * urand();
        for (int j = 0; j < 8; ++j)
            for (int c = 0; c < 3; ++c) {
                const float a = (float)(mag * srand1()), w = (float)(mag * urand() * 0.1);
                S[8 * c + j] = a, S[24 + 8 * c + j] = a + w;
            }
        for (int k = 0; k < 9; ++k) P[k] = srand1() * (1 + t % 4), P[9 + k] = fabs(P[k]);
        for (int k = 0; k < 9; ++k) P0[k] = P[k] + 0.1 * srand1(), P0[9 + k] = fabs(P0[k]);
        for (int k = 0; k < 3; ++k) P[18 + k] = mag * srand1(), P0[18 + k] = P[18 + k] + 0.2 * mag * srand1();
        P[21] = P0[21] = 1e-12 * mag;
        ck_carry_boxes8_ref(S, P, L, H);
        ck_carry_boxes8_ref(S, P0, L0, H0);
        double Lu[24], Hu[24]; /* joined, not grown */
        for (int i = 0; i < 24; ++i) {
            L[i] = Lu[i] = L0[i] < L[i] ? L0[i] : L[i], H[i] = Hu[i] = H0[i] > H[i] ? H0[i] : H[i];
            if (g > 0) {
                const double A = fabs(H[i]) > fabs(L[i]) ? fabs(H[i]) : fabs(L[i]);
                const double G = (g * (1 + 0x1p-19) + 0x1p-20 * A) + 0x1p-126;
                L[i] -= G, H[i] += G;
            }
        }
        /* region 0: box j's joined box, but past its side on one axis by
         * half the growth (met only when grown); the others anywhere */
        const int jr = (int)(urand() * 8), c0 = (int)(urand() * 3);
        for (int c = 0; c < 3; ++c) {
            R[c] = (float)Lu[8 * c + jr], R[3 + c] = (float)Hu[8 * c + jr];
            if (c == c0) R[c] = R[3 + c] = (float)(Hu[8 * c + jr] + 0.5 * g);
        }
        for (int r = 1; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                const float a = (float)(3 * mag * srand1()), w = (float)(mag * urand());
                R[6 * r + c] = a, R[6 * r + 3 + c] = a + w;
            }
        for (int nr = 0; nr <= 3; ++nr) {
            unsigned want = 0, in_want = 0, in1 = 0, in2 = 0;
            for (int j = 0; j < 8; ++j)
                for (int r = 0; r < nr; ++r) {
                    const float *B = R + 6 * r;
                    want |= (unsigned)(L[j] <= B[3] && H[j] >= B[0] && L[8 + j] <= B[4] && H[8 + j] >= B[1] &&
                                       L[16 + j] <= B[5] && H[16 + j] >= B[2])
                            << j;
                    in_want |= (unsigned)(L[j] >= B[0] && H[j] <= B[3] && L[8 + j] >= B[1] && H[8 + j] <= B[4] &&
                                          L[16 + j] >= B[2] && H[16 + j] <= B[5])
                               << j;
                }
            const unsigned a = ck_carry_meet8_swept(S, P, P0, g, R, nr, &in1);
            const unsigned b = ck_carry_meet8_swept_ref(S, P, P0, g, R, nr, &in2);
            bad += a != want || b != want || in1 != in_want || in2 != in_want;
            if (g > 0 && nr) { /* the growth mattered: without it some mask differs */
                unsigned in3;
                grown_only += ck_carry_meet8_swept(S, P, P0, 0, R, nr, &in3) != want;
            }
        }
    }
    CHECK(bad == 0, "swept carry kernel: %ld of 2000 cases differ from the plain path or the joined boxes", bad);
    CHECK(grown_only > 50, "swept carry kernel: the growth decided only %ld cases", grown_only);
}

static clash_scene *scene(int i)
{
    clash_error err;
    clash_scene *sc = rs_spheres(i, CLASH_MODE_SWEPT, 4, 1.4, 0.1, i % 5 == 4 ? 0 : 12, &err); /* every fifth: no turn */
    CHECK(sc != NULL, "scene %d: %s", i, err.msg);
    return sc;
}

static clash_run *make_run(clash_scene *sc, int threads, int eager)
{
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_SWEPT, cfg.self_collision = 0, cfg.steps = 4, cfg.threads = threads;
    clash_error err;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run != NULL, "run_create: %s", err.msg);
    if (run) run->debug.eager_boxes = eager;
    return run;
}

/* Every face box of the eager run e inside the world box that the deferred
 * run a gives its block and sub-block; returns the blocks carried. */
static long boxes_inside(const clash_scene *sc, const clash_run *e, const clash_run *a, int i, int s)
{
    long outside = 0, carried = 0;
    for (int o = 0; o < sc->nobj; ++o) {
        for (int d = 0; d < 3; ++d)
            outside += a->boxes->obox[o].lo[d] > e->boxes->obox[o].lo[d] || a->boxes->obox[o].hi[d] < e->boxes->obox[o].hi[d];
        for (int64_t k = 0; sc->fofs[o] + k * CLASH_BLOCK < sc->fofs[o + 1]; ++k) {
            const int64_t f0 = sc->fofs[o] + k * CLASH_BLOCK;
            const int64_t f1 = f0 + CLASH_BLOCK < sc->fofs[o + 1] ? f0 + CLASH_BLOCK : sc->fofs[o + 1];
            for (int64_t f = f0; f < f1; ++f) {
                const float lo[6] = {e->boxes->lox[f], e->boxes->loy[f], e->boxes->loz[f], e->boxes->lox[f], e->boxes->loy[f], e->boxes->loz[f]};
                const float hi[6] = {e->boxes->hix[f], e->boxes->hiy[f], e->boxes->hiz[f], e->boxes->hix[f], e->boxes->hiy[f], e->boxes->hiz[f]};
                const int j = (int)((f - f0) / CLASH_SUB);
                const int b0 = clash_defer_meets(a, o, k, -1, lo), b1 = clash_defer_meets(a, o, k, -1, hi);
                if (b0 < 0) break; /* not carried */
                carried += f == f0;
                outside += !b0 + !b1 + !clash_defer_meets(a, o, k, j, lo) + !clash_defer_meets(a, o, k, j, hi);
            }
        }
    }
    CHECK(outside == 0, "scene %d step %d: %ld face box corners outside their block's or sub-block's swept box", i, s,
          outside);
    return carried;
}

int main(void)
{
    swept_kernel();
    int steps = 0, with_pairs = 0, skipping = 0;
    long carried = 0;
    for (int i = 0; i < 24; ++i) {
        /* three copies of one scene (the same draws): eager, deferred at 1
         * and at 2 threads, stepped in lockstep */
        const uint64_t st0 = rs_state;
        clash_scene *sc[3];
        for (int c = 0; c < 3; ++c) rs_state = st0, sc[c] = scene(i);
        clash_run *run[3] = {NULL, NULL, NULL};
        if (sc[0] && sc[1] && sc[2])
            run[0] = make_run(sc[0], 1, 1), run[1] = make_run(sc[1], 1, 0), run[2] = make_run(sc[2], 2, 0);
        for (int s = 1; s <= 4 && run[0] && run[1] && run[2]; ++s) {
            clash_pairs p[3];
            clash_step_stats st[3];
            clash_error err;
            int ok = 1;
            for (int c = 0; c < 3; ++c) {
                const int rc = clash_step(run[c], s, &p[c], &st[c], &err);
                CHECK(rc == 0, "scene %d step %d: %s", i, s, err.msg);
                ok &= rc == 0;
            }
            if (!ok) break;
            CHECK(!run[0]->boxes->deferred && run[1]->boxes->deferred && run[2]->boxes->deferred,
                  "scene %d: boxes deferred %d %d %d", i, run[0]->boxes->deferred, run[1]->boxes->deferred,
                  run[2]->boxes->deferred);
            for (int c = 1; c < 3; ++c) {
                CHECK(p[c].count == p[0].count &&
                          (!p[0].count || !memcmp(p[c].pairs, p[0].pairs, sizeof(clash_pair) * p[0].count)),
                      "scene %d step %d, %d threads: pairs %zu, all boxed %zu", i, s, c, p[c].count, p[0].count);
                size_t missing = 0, at = 0; /* every face the eager run keeps, kept */
                for (size_t q = 0; q < run[0]->cull->nkept; ++q) {
                    while (at < run[c]->cull->nkept && run[c]->cull->kept[at] < run[0]->cull->kept[q]) ++at;
                    missing += at == run[c]->cull->nkept || run[c]->cull->kept[at] != run[0]->cull->kept[q];
                }
                CHECK(missing == 0, "scene %d step %d, %d threads: %zu kept faces missing", i, s, c, missing);
            }
            CHECK(st[1].faces_boxed == st[2].faces_boxed && st[1].faces_boxed <= sc[1]->nf,
                  "scene %d step %d: faces boxed %lld and %lld of %lld", i, s, (long long)st[1].faces_boxed,
                  (long long)st[2].faces_boxed, (long long)sc[1]->nf);
            carried += boxes_inside(sc[0], run[0], run[1], i, s);
            ++steps, with_pairs += p[0].count > 0, skipping += st[1].faces_boxed < sc[1]->nf;
        }
        for (int c = 0; c < 3; ++c) clash_run_destroy(run[c]), clash_scene_destroy(sc[c]);
    }
    printf("deferred swept boxes: %d steps, %d with pairs, faces left unboxed in %d, %ld blocks carried\n", steps,
           with_pairs, skipping, carried);
    CHECK(steps >= 80, "only %d steps ran", steps);
    CHECK(skipping >= steps / 2, "faces left unboxed in only %d of %d steps", skipping, steps);
    CHECK(with_pairs >= steps / 4, "only %d of %d steps have pairs", with_pairs, steps);
    CHECK(carried > 1000, "only %ld blocks carried: the test says nothing", carried);
    return check_finish("test_deferred_swept");
}
