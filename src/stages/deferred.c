/*
 * deferred.c — face boxes deferred from S1 to S3, for the face octree.
 *
 * The octree (S4) and the pair tests (S5) read the boxes of the kept faces
 * alone, and S3 keeps only faces that meet an overlap region.  So with
 * boxes deferred (run->boxes->deferred: the octree midphase without
 * self-collision) S1 makes the object boxes straight from the vertices,
 * and S3, for each object with overlap regions,
 *   1. carries the boxes of its blocks of 64 consecutive faces, eight
 *      blocks (a tile) at a time, into the world by the object's pose
 *      (centre and half extents, widened as below; store/blocks.c keeps the
 *      boxes in the object's frame, made once per scene; kernels/face_boxes.c,
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
 * arithmetic (within 1e-12 (|t|_1 + 3 * s * radius), as bvh_frames.c bounds
 * it) and its float rounding, and S1 rounds a face box outward by one more
 * float ulp; the block's world box is grown by that bound and 2^-20 of its
 * magnitude (eight float ulps) beyond.  An object's box from its vertices is
 * the min/max of its faces' boxes when every vertex belongs to a face
 * (down1/up1 never decrease), and only larger otherwise.
 *
 * Swept mode.  S1's face box covers the face at s and at s-1 and, where
 * the object turns, is grown by the face's arc margin (clash_grow_side,
 * stages/facetest.h).  So S1 takes the object's vertex bounds over both
 * states and grows them by the largest margin of its faces (k r + eps on
 * the largest face radius, or the largest clash_face_margin); S3 carries
 * each block by both poses, joins the two boxes, and grows the result by
 * that margin and a little more (swept_meet8), which holds every grown
 * face box of the block.  The object boxes can then be larger than the
 * union of their face boxes by the margins' differences (a few thousandths
 * on the cluttered spheres, which changed no region there): S3 may keep a
 * few more faces, the pairs stay the same (tests/unit/test_deferred_swept.c
 * checks both against the eager path, step by step).  On the large
 * cluttered scenes only a small part of the faces is boxed, and S1 + S3
 * take much less time than eagerly (bench/RESULTS.md).
 *
 * On two grazing suzannes about half the blocks of 64 faces
 * are left out, and within those that meet a region most sub-blocks: 320
 * faces are boxed of 1,936 (960 with blocks of 64 alone), for 136 kept.
 * (The stride partition's face-by-face path, clash_defer_face, still
 * tests whole blocks.)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stages/facetest.h"
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
    int swept;              /* this step's mode: blocks carried by both poses */
    pview *view, *view0;    /* per object: its map at s, and at s-1 (swept) */
    double *grow;           /* per object (swept): the largest arc margin of its faces, 0 if it does not turn */
    float *rmax;            /* per object: the largest run->boxes->face_r of its faces */
    const float *rmax_of;   /* the run->boxes->face_r that rmax was read from */
    uint8_t *posed;         /* per object: rigid, its pose(s) known: blocks may be left out */
    const clash_blocks *bl; /* the scene's block boxes */
};

size_t clash_defer_bytes(const clash_run *run)
{
    const struct clash_defer *d = run->boxes->defer;
    return d ? sizeof *d + (size_t)d->nobj * (2 * sizeof(pview) + sizeof(double) + sizeof(float) + 1) : 0;
}

void clash_defer_free(clash_run *run)
{
    struct clash_defer *d = run->boxes->defer;
    if (d) free(d->view), free(d->view0), free(d->grow), free(d->rmax), free(d->posed);
    free(d);
    run->boxes->defer = NULL;
}

static struct clash_defer *defer_get(clash_run *run)
{
    const clash_scene *sc = run->sc;
    struct clash_defer *d = run->boxes->defer;
    if (d && d->nobj == sc->nobj) return d;
    clash_defer_free(run);
    if (!(d = calloc(1, sizeof *d))) return NULL;
    run->boxes->defer = d;
    const size_t n = (size_t)sc->nobj + 1;
    d->view = malloc(n * sizeof(pview)), d->view0 = malloc(n * sizeof(pview));
    d->grow = calloc(n, sizeof(double)), d->rmax = malloc(n * sizeof(float)), d->posed = malloc(n);
    if (!d->view || !d->view0 || !d->grow || !d->rmax || !d->posed) {
        clash_defer_free(run);
        return NULL;
    }
    d->nobj = sc->nobj;
    return d;
}

/* ---- S1, swept ------------------------------------------------------------------------------ */

/* Object o's largest arc margin this step, as S1 grows its faces' boxes:
 * k r + eps on the largest face radius (the same double arithmetic, which
 * is monotone in r), or the largest of clash_face_margin over its faces. */
static double object_margin(clash_run *run, struct clash_defer *d, int o)
{
    const clash_scene *sc = run->sc;
    const clash_turn *t = &sc->turn[o];
    if (t->kind == CLASH_TURN_NONE) return 0;
    if (t->kind == CLASH_TURN_RADIUS) return t->k * (double)d->rmax[o] + t->eps;
    double m = 0;
    for (int64_t f = sc->fofs[o]; f < sc->fofs[o + 1]; ++f) {
        const double g = clash_face_margin(run, (uint32_t)f);
        m = g > m ? g : m;
    }
    return m;
}

int clash_defer_grow_objects(clash_run *run)
{
    const clash_scene *sc = run->sc;
    struct clash_defer *d = defer_get(run);
    if (!d) return -1;
    if (sc->nturning && d->rmax_of != run->boxes->face_r) { /* once a run: the radii never change */
        for (int o = 0; o < sc->nobj; ++o) {
            float r = 0;
            for (int64_t f = sc->fofs[o]; f < sc->fofs[o + 1]; ++f) r = run->boxes->face_r[f] > r ? run->boxes->face_r[f] : r;
            d->rmax[o] = r;
        }
        d->rmax_of = run->boxes->face_r;
    }
    for (int o = 0; o < sc->nobj; ++o) {
        const double m = d->grow[o] = object_margin(run, d, o);
        if (m > 0) /* as S1 grows a face's sides (monotone in the side and in m): holds every grown face box */
            for (int i = 0; i < 3; ++i) clash_grow_side(&run->boxes->obox[o].lo[i], &run->boxes->obox[o].hi[i], m);
    }
    return 0;
}

/* ---- S3 ---------------------------------------------------------------------------------- */

static void view_of(pview *v, const clash_xform *x, double s, double radius)
{
    for (int i = 0; i < 9; ++i) v->V[i] = s * x->R[i], v->aV[i] = fabs(v->V[i]);
    memcpy(v->o, x->t, sizeof v->o);
    v->pad = 1e-12 * (fabs(x->t[0]) + fabs(x->t[1]) + fabs(x->t[2]) + 3 * s * radius) + 0x1p-126;
}

int clash_defer_prepare(clash_run *run)
{
    clash_scene *sc = run->sc;
    struct clash_defer *d = defer_get(run);
    if (!d) return -1;
    d->bl = clash_scene_blocks(sc);
    d->swept = run->cfg.mode == CLASH_MODE_SWEPT;
    for (int o = 0; o < sc->nobj; ++o) {
        const clash_xform *x = &sc->cur[o], *x0 = &sc->prev[o];
        d->posed[o] = d->bl && !sc->obj_deforming[o] && !isnan(x->R[0]) && (!d->swept || !isnan(x0->R[0])) &&
                      run->cull->reg_ofs[o + 1] > run->cull->reg_ofs[o];
        if (!d->posed[o]) continue;
        view_of(&d->view[o], x, sc->obj_scale[o], d->bl->radius[o]);
        if (d->swept) view_of(&d->view0[o], x0, sc->obj_scale[o], d->bl->radius[o]);
    }
    return 0;
}

/* Swept: eight local boxes S (a tile's blocks, or a block's sub-blocks)
 * carried by both poses, joined, and grown for the arc margins
 * (ck_carry_meet8_swept): the mask of those that meet some region of o,
 * and in *inside (when not NULL) of those inside one.  S1's swept face box
 * is its six points' float box rounded outward, inside the union of the
 * two carried boxes (each holds the face's box at its state, as in static
 * mode), then grown by clash_grow_side with m_f <= g = grow[o]: by at most
 * g (1 + 2^-20) + 2^-22 |side| before its rounding to float (2^-24
 * relative), less than the kernel's g (1 + 2^-19) + 2^-20 max(|lo|, |hi|)
 * for every side within the joined box. */
static unsigned swept_meet8(const clash_run *run, const struct clash_defer *d, int o, const float *S,
                            unsigned *inside)
{
    const int64_t r0 = run->cull->reg_ofs[o];
    return ck_carry_meet8_swept(S, d->view[o].P, d->view0[o].P, d->grow[o], (const float *)(run->cull->regs + r0),
                                run->cull->reg_ofs[o + 1] - r0, inside);
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
    const int64_t r0 = run->cull->reg_ofs[o];
    const unsigned m = d->swept ? swept_meet8(run, d, o, d->bl->sbox + 6 * CLASH_SUBS * k, NULL) : ck_carry_meet8(d->bl->sbox + 6 * CLASH_SUBS * k, d->view[o].P,
                                      (const float *)(run->cull->regs + r0), run->cull->reg_ofs[o + 1] - r0, NULL);
    return m & ((1u << nsub) - 1);
}

/* Tile t of object o (blocks 8 (t - tofs[o]) onward within o): the mask of
 * its blocks whose world box meets some region of o, and in *inside of
 * those inside one (all their faces are boxed: their sub-blocks meet it
 * too, and boxing more faces than needed changes nothing but the time). */
static unsigned tile_meeting(const clash_run *run, const struct clash_defer *d, int o, int64_t t, unsigned *inside)
{
    const int64_t r0 = run->cull->reg_ofs[o];
    if (d->swept) return swept_meet8(run, d, o, d->bl->tbox + 6 * CLASH_TILE * t, inside);
    return ck_carry_meet8(d->bl->tbox + 6 * CLASH_TILE * t, d->view[o].P, (const float *)(run->cull->regs + r0),
                          run->cull->reg_ofs[o + 1] - r0, inside);
}

int clash_defer_sub_world(const clash_run *run, int o, int64_t k, int j, double lo[3], double hi[3])
{
    const struct clash_defer *d = run->boxes->defer;
    if (!d || !d->posed[o]) return 0;
    double L[24], H[24];
    subs_world(d, o, d->bl->bofs[o] + k, L, H);
    for (int i = 0; i < 3; ++i) lo[i] = L[8 * i + j], hi[i] = H[8 * i + j];
    return 1;
}

int clash_defer_block_world(const clash_run *run, int o, int64_t k, double lo[3], double hi[3])
{
    const struct clash_defer *d = run->boxes->defer;
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

int clash_defer_meets(const clash_run *run, int o, int64_t k, int j, const float R6[6])
{
    const struct clash_defer *d = run->boxes->defer;
    if (!d || !d->posed[o]) return -1;
    const float *S = j < 0 ? d->bl->tbox + 6 * CLASH_TILE * (d->bl->tofs[o] + k / CLASH_TILE)
                           : d->bl->sbox + 6 * CLASH_SUBS * (d->bl->bofs[o] + k);
    const unsigned m = d->swept ? ck_carry_meet8_swept(S, d->view[o].P, d->view0[o].P, d->grow[o], R6, 1, NULL)
                                : ck_carry_meet8(S, d->view[o].P, R6, 1, NULL);
    return (int)(m >> (j < 0 ? k % CLASH_TILE : j) & 1);
}

/* Block k (within posed object o) lies beyond every region of o: its world
 * box is apart from each of them. */
static int block_beyond(const clash_run *run, const struct clash_defer *d, int o, int64_t k)
{
    if (d->swept)
        return !(swept_meet8(run, d, o, d->bl->tbox + 6 * CLASH_TILE * (d->bl->tofs[o] + k / CLASH_TILE), NULL) >>
                     (k % CLASH_TILE) & 1);
    double lo[3], hi[3];
    block_world(d, o, k, lo, hi);
    for (int64_t r = run->cull->reg_ofs[o]; r < run->cull->reg_ofs[o + 1]; ++r) {
        const clash_box *R = &run->cull->regs[r];
        if (!(lo[0] > R->hi[0] || hi[0] < R->lo[0] || lo[1] > R->hi[1] || hi[1] < R->lo[1] || lo[2] > R->hi[2] ||
              hi[2] < R->lo[2]))
            return 0;
    }
    return 1;
}

/* Faces [a, b) of one object boxed as S1 boxes them (swept: both states,
 * grown by the arc margins where the object turns). */
static void box_range(clash_run *run, int64_t a, int64_t b)
{
    const clash_scene *sc = run->sc;
    const int swept = run->cfg.mode == CLASH_MODE_SWEPT;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    ck_face_boxes(a, b, sc->f0, sc->f1, sc->f2, sc->x, sc->y, sc->z, swept ? sc->px : NULL, sc->py, sc->pz, run->boxes->lox,
                  run->boxes->loy, run->boxes->loz, run->boxes->hix, run->boxes->hiy, run->boxes->hiz, lo, hi);
    if (swept && a < b && sc->turn[run->face_obj[a]].kind != CLASH_TURN_NONE)
        clash_grow_turning(run, a, b, 1, lo, hi);
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
    const struct clash_defer *d = run->boxes->defer;
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
    const struct clash_defer *d = run->boxes->defer;
    const clash_scene *sc = run->sc;
    if (d->posed[o] && block_beyond(run, d, o, (f - sc->fofs[o]) / CLASH_BLOCK))
        return 0;
    box_range(run, f, f + 1);
    return 1;
}
