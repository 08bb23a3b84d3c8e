/*
 * deferred.c — face boxes deferred from S1 to S3, for the face octree.
 *
 * The octree (S4) and the pair tests (S5) read the boxes of the kept faces
 * alone, and S3 keeps only faces that meet an overlap region.  So with
 * boxes deferred (run->boxes_deferred: the octree midphase in static mode
 * without self-collision) S1 makes the object boxes straight from the
 * vertices, and S3, for each object with overlap regions,
 *   1. carries the boxes of its blocks of 64 consecutive faces, eight
 *      blocks (a tile) at a time, into the world by the object's pose
 *      (centre and half extents, widened as below; store/blocks.c keeps the
 *      boxes in the object's frame, made once per scene; kernels/boxes.c,
 *      ck_carry_meet8), when the object is rigid and posed;
 *   2. leaves out the blocks whose world box is apart from each of the
 *      object's regions, keeps whole those inside one, and carries the
 *      eight sub-blocks of 8 faces of each other block the same way,
 *      leaving out those apart from each region;
 *   3. boxes the faces kept with S1's kernel (the same bits), which S3
 *      then classes and tests as before.
 * A face of a block or sub-block left out has its box, made by S1, apart
 * from each region too, so S3 would have found it so: the kept faces, and
 * every result after them, are the eager path's (boxing more faces than
 * needed, as for a block inside a region, changes nothing but the time).  The widening: S0's
 * world vertex differs from the exact image of its local one by the double
 * arithmetic (within 1e-12 (|t|_1 + 3 s radius), as bvh_frames.c bounds
 * it) and its float rounding, and S1 rounds a face box outward by one more
 * float ulp; the block's world box is grown by that bound and 2^-20 of its
 * magnitude (eight float ulps) beyond.  An object's box from its vertices is
 * the min/max of its faces' boxes when every vertex belongs to a face
 * (down1/up1 never decrease), and only larger otherwise.
 *
 * On two grazing suzannes (issue 17) about half the blocks of 64 faces
 * are left out, and within those that meet a region most sub-blocks: 320
 * faces are boxed of 1,936 (960 with blocks of 64 alone), for 136 kept.
 * (The stride partition's face-by-face path, clash_defer_face, still
 * tests whole blocks.)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"
#include "stages/deferred.h"
#include "store/scene.h"

/* A posed object's map from its frame to the world this step: x' = V x +
 * o, |V| for the half extents, and the widening's absolute part. */
typedef union pview {
    struct {
        double V[9], aV[9], o[3], pad;
    };
    double P[22]; /* the same, as ck_carry_boxes8 reads it */
} pview;

struct clash_defer {
    int nobj;
    pview *view;            /* per object */
    uint8_t *posed;         /* per object: rigid, its pose known: blocks may be left out */
    const clash_blocks *bl; /* the scene's block boxes */
};

size_t clash_defer_bytes(const clash_run *run)
{
    const struct clash_defer *d = run->defer;
    return d ? sizeof *d + (size_t)d->nobj * (sizeof(pview) + 1) : 0;
}

void clash_defer_free(clash_run *run)
{
    struct clash_defer *d = run->defer;
    if (d) free(d->view), free(d->posed);
    free(d);
    run->defer = NULL;
}

/* ---- S3 ---------------------------------------------------------------------------------- */

int clash_defer_prepare(clash_run *run)
{
    clash_scene *sc = run->sc;
    struct clash_defer *d = run->defer;
    if (!d || d->nobj != sc->nobj) {
        clash_defer_free(run);
        if (!(d = calloc(1, sizeof *d))) return -1;
        run->defer = d;
        d->view = malloc(((size_t)sc->nobj + 1) * sizeof(pview));
        d->posed = malloc((size_t)sc->nobj + 1);
        if (!d->view || !d->posed) {
            clash_defer_free(run);
            return -1;
        }
        d->nobj = sc->nobj;
    }
    d->bl = clash_scene_blocks(sc);
    for (int o = 0; o < sc->nobj; ++o) {
        const clash_xform *x = &sc->cur[o];
        d->posed[o] = d->bl && !sc->obj_deforming[o] && !isnan(x->R[0]) && run->reg_ofs[o + 1] > run->reg_ofs[o];
        if (!d->posed[o]) continue;
        pview *v = &d->view[o];
        const double s = sc->obj_scale[o];
        for (int i = 0; i < 9; ++i) v->V[i] = s * x->R[i], v->aV[i] = fabs(v->V[i]);
        memcpy(v->o, x->t, sizeof v->o);
        v->pad = 1e-12 * (fabs(x->t[0]) + fabs(x->t[1]) + fabs(x->t[2]) + 3 * s * d->bl->radius[o]) + 0x1p-126;
    }
    return 0;
}

/* Block k (within object o) carried into the world (centre V c + o, half
 * extents |V| h, in double; the widening of the top of this file), alone:
 * its lane of its tile (ck_carry_box1). */
static void block_world(const struct clash_defer *d, int o, int64_t k, double lo[3], double hi[3])
{
    ck_carry_box1(d->bl->tbox + 6 * CLASH_TILE * (d->bl->tofs[o] + k / CLASH_TILE), d->view[o].P,
                  (int)(k % CLASH_TILE), lo, hi);
}

/* Block k's sub-blocks carried into the world as block_world carries a
 * block, the same arithmetic in the same order (ck_carry_boxes8), so the
 * same bound holds for each: sub-block j's world box is [L[8i + j],
 * H[8i + j]] on axis i. */
static void subs_world(const struct clash_defer *d, int o, int64_t k, double L[24], double H[24])
{
    ck_carry_boxes8(d->bl->sbox + 6 * CLASH_SUBS * k, d->view[o].P, L, H);
}

/* The mask of block k's first nsub sub-blocks (bit j) whose world box
 * meets some region of o (the regions' boxes: 6 floats each). */
_Static_assert(sizeof(clash_box) == 6 * sizeof(float), "a region is 6 floats, lo then hi");
static unsigned subs_meeting(const clash_run *run, const struct clash_defer *d, int o, int64_t k, int nsub)
{
    const int64_t r0 = run->reg_ofs[o];
    const unsigned m = ck_carry_meet8(d->bl->sbox + 6 * CLASH_SUBS * k, d->view[o].P,
                                      (const float *)(run->regs + r0), run->reg_ofs[o + 1] - r0, NULL);
    return m & ((1u << nsub) - 1);
}

/* Tile t of object o (blocks 8 (t - tofs[o]) onward within o): the mask of
 * its blocks whose world box meets some region of o, and in *inside of
 * those inside one (all their faces are boxed: their sub-blocks meet it
 * too, and boxing more faces than needed changes nothing but the time). */
static unsigned tile_meeting(const clash_run *run, const struct clash_defer *d, int o, int64_t t, unsigned *inside)
{
    const int64_t r0 = run->reg_ofs[o];
    return ck_carry_meet8(d->bl->tbox + 6 * CLASH_TILE * t, d->view[o].P, (const float *)(run->regs + r0),
                          run->reg_ofs[o + 1] - r0, inside);
}

int clash_defer_sub_world(const clash_run *run, int o, int64_t k, int j, double lo[3], double hi[3])
{
    const struct clash_defer *d = run->defer;
    if (!d || !d->posed[o]) return 0;
    double L[24], H[24];
    subs_world(d, o, d->bl->bofs[o] + k, L, H);
    for (int i = 0; i < 3; ++i) lo[i] = L[8 * i + j], hi[i] = H[8 * i + j];
    return 1;
}

int clash_defer_block_world(const clash_run *run, int o, int64_t k, double lo[3], double hi[3])
{
    const struct clash_defer *d = run->defer;
    if (!d || !d->posed[o]) return 0;
    double L[24], H[24], bl[3], bh[3];
    const int j = (int)(k % CLASH_TILE);
    ck_carry_boxes8(d->bl->tbox + 6 * CLASH_TILE * (d->bl->tofs[o] + k / CLASH_TILE), d->view[o].P, L, H);
    block_world(d, o, k, bl, bh); /* the stride path's: one lane in plain double, the same bits */
    int same = 1;
    for (int i = 0; i < 3; ++i)
        lo[i] = L[8 * i + j], hi[i] = H[8 * i + j], same &= lo[i] == bl[i] && hi[i] == bh[i];
    return same ? 1 : -1;
}

/* Block k (within posed object o) lies beyond every region of o: its world
 * box is apart from each of them. */
static int block_beyond(const clash_run *run, const struct clash_defer *d, int o, int64_t k)
{
    double lo[3], hi[3];
    block_world(d, o, k, lo, hi);
    for (int64_t r = run->reg_ofs[o]; r < run->reg_ofs[o + 1]; ++r) {
        const clash_box *R = &run->regs[r];
        if (!(lo[0] > R->hi[0] || hi[0] < R->lo[0] || lo[1] > R->hi[1] || hi[1] < R->lo[1] || lo[2] > R->hi[2] ||
              hi[2] < R->lo[2]))
            return 0;
    }
    return 1;
}

static void box_range(clash_run *run, int64_t a, int64_t b)
{
    const clash_scene *sc = run->sc;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    ck_face_boxes(a, b, sc->f0, sc->f1, sc->f2, sc->x, sc->y, sc->z, NULL, NULL, NULL, run->lox, run->loy, run->loz,
                  run->hix, run->hiy, run->hiz, lo, hi);
}

/* Appends [a, z) to the runs r[0 .. 2 *nr), extending the last one when
 * they touch. */
static inline void add_run(int64_t *r, int *nr, int64_t a, int64_t z)
{
    if (a >= z) return;
    if (*nr && r[2 * *nr - 1] == a) r[2 * *nr - 1] = z;
    else r[2 * *nr] = a, r[2 * *nr + 1] = z, ++*nr;
}

int clash_defer_runs(clash_run *run, int o, int64_t f, int64_t e, int64_t *r, size_t *boxed)
{
    const struct clash_defer *d = run->defer;
    const clash_scene *sc = run->sc;
    int nr = 0;
    if (!d->posed[o]) {
        r[0] = f, r[1] = e, nr = 1;
    } else {
        /* tiles of 8 blocks first: a block apart from every region is left
         * out, a block inside one is boxed whole, the others by sub-block */
        const int64_t base = sc->fofs[o], k0 = d->bl->bofs[o], fe = sc->fofs[o + 1];
        const int64_t kf = (f - base) / CLASH_BLOCK, kl = (e - 1 - base) / CLASH_BLOCK;
        for (int64_t t = kf / CLASH_TILE; t <= kl / CLASH_TILE; ++t) {
            unsigned inside;
            const unsigned meet = tile_meeting(run, d, o, d->bl->tofs[o] + t, &inside);
            const int64_t ka = t * CLASH_TILE > kf ? t * CLASH_TILE : kf;
            const int64_t kb = (t + 1) * CLASH_TILE - 1 < kl ? (t + 1) * CLASH_TILE - 1 : kl;
            for (int64_t k = ka; k <= kb; ++k) {
                const int j = (int)(k % CLASH_TILE);
                if (!(meet >> j & 1)) continue;
                const int64_t b0 = base + k * CLASH_BLOCK, g = b0 > f ? b0 : f;
                const int64_t ge = b0 + CLASH_BLOCK < e ? b0 + CLASH_BLOCK : e;
                if (inside >> j & 1) {
                    add_run(r, &nr, g, ge);
                    continue;
                }
                const int nsub = (int)(((b0 + CLASH_BLOCK < fe ? b0 + CLASH_BLOCK : fe) - b0 + CLASH_SUB - 1) / CLASH_SUB);
                const unsigned mk = subs_meeting(run, d, o, k0 + k, nsub);
                if (mk == (1u << nsub) - 1) { /* every sub-block: one run */
                    add_run(r, &nr, g, ge);
                } else {
                    for (unsigned m = mk; m; m &= m - 1) {
                        const int64_t s0 = b0 + (int64_t)__builtin_ctz(m) * CLASH_SUB;
                        add_run(r, &nr, s0 > g ? s0 : g, s0 + CLASH_SUB < ge ? s0 + CLASH_SUB : ge);
                    }
                }
            }
        }
    }
    for (int i = 0; i < nr; ++i) box_range(run, r[2 * i], r[2 * i + 1]), *boxed += (size_t)(r[2 * i + 1] - r[2 * i]);
    return nr;
}

int clash_defer_face(clash_run *run, int o, int64_t f)
{
    const struct clash_defer *d = run->defer;
    const clash_scene *sc = run->sc;
    if (d->posed[o] && block_beyond(run, d, o, (f - sc->fofs[o]) / CLASH_BLOCK))
        return 0;
    box_range(run, f, f + 1);
    return 1;
}
