/*
 * finegrain.c — S1 and S3 as fine-grain parallel loops over faces, with
 * per-worker results in cache-line-padded slots merged after the loop.
 * (Swept mode: the boxes of a turning object's faces grow by their arc
 * margins, stages/facetest.h.)
 *
 * The face range [0, nf) is split by the run's partition (sched.h):
 *   chunk  (chunk = 0): worker w takes [w*nf/T, (w+1)*nf/T)
 *   stride (chunk = 0): worker w takes w, w+T, w+2T, ...
 *   any partition with chunk = C > 0: blocks of C faces dealt round-robin.
 * A worker sees its share as one or more ranges (begin, end, step).
 *
 * S1.  A range may cross object boundaries; it is cut at each object's
 * [fofs[o], fofs[o+1]) and each piece goes through ck_face_boxes (or its
 * strided twin), which also reduces the piece's object box.  That partial
 * object box is folded into the worker's own slot (slot w: nobj boxes, only
 * worker w writes it), so there is no shared write but the face boxes
 * themselves.  After the loop the object box of o is the min/max over the
 * slots, in worker order — min and max are exact, so the result does not
 * depend on who computed what.  This is Zachmann's cure ([Zachmann00] §3.10): the
 * object box is reduced inside the parallel section, not by a serial pass
 * over the freshly written (and elsewhere cached) face boxes.
 *
 * S3.  Each worker appends the faces it keeps to its own list and records one
 * segment (begin, end, step, offset, count) per range; within a segment the
 * faces are ascending.  Under the default partition (chunk, no --chunk) S3
 * hands out blocks of faces dynamically instead (cull_dynamic: its cost per
 * face is uneven), and the merge is a concatenation of the blocks' runs in
 * face order.  The merge is parallel too: the face-id space is cut
 * into T pieces; worker p counts the kept faces of piece p in every segment
 * (binary search), a prefix sum over the T counts gives each piece's output
 * offset, and worker p writes piece p: the segments' sub-runs concatenated
 * in face order (chunk: value-disjoint) or merged T ways (stride: each
 * worker's list interleaves with the others').  So run->cull->kept is ascending and
 * identical for every partition, chunk size, backend and team size.
 */
#include "base/tuning.h"
#include "stages/facetest.h"
#include "stages/finegrain.h"
#include "stages/deferred.h"
#include "stages/held_bounds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernels.h"

typedef struct fg_seg {
    int64_t begin, end, step;
    size_t ofs, n;  /* the segment's kept faces: slot->kept[ofs .. ofs+n) */
} fg_seg;

typedef struct fg_slot {
    _Alignas(CLASH_CACHE_LINE) clash_box *obox;  /* nobj partial object boxes */
    int olo, ohi;                                /* obox live for objects [olo, ohi] this step */
    int oom;
    size_t nboxed;                               /* S3, boxes deferred: faces boxed */
    uint32_t *kept;
    size_t nkept, cap;
    fg_seg *seg;
    size_t nseg, capseg;
} fg_slot;                                       /* sizeof is a multiple of the cache line */

typedef struct seg_ref {
    const uint32_t *v;
    size_t n, at; /* at: its place in run->cull->kept */
} seg_ref;

struct clash_finegrain {
    int T, nobj;
    fg_slot *slot;
    int s1_nt;       /* this S1 call writes the face boxes with streaming stores */
    seg_ref *blk;    /* S3, dynamic blocks: each block's kept faces, by block */
    size_t blkcap;
};

size_t clash_fg_bytes(const struct clash_finegrain *fg)
{
    if (!fg) return 0;
    size_t b = sizeof *fg + (size_t)fg->T * sizeof(fg_slot) + fg->blkcap * sizeof(seg_ref);
    for (int w = 0; w < fg->T; ++w)
        b += (size_t)fg->nobj * sizeof(clash_box) + fg->slot[w].cap * sizeof(uint32_t) +
             fg->slot[w].capseg * sizeof(fg_seg);
    return b;
}

void clash_fg_destroy(struct clash_finegrain *fg)
{
    if (!fg) return;
    for (int w = 0; w < fg->T; ++w) free(fg->slot[w].obox), free(fg->slot[w].kept), free(fg->slot[w].seg);
    free(fg->slot), free(fg->blk);
    free(fg);
}

static struct clash_finegrain *fg_get(clash_run *run)
{
    const int T = run->exec.threads > 0 ? run->exec.threads : 1, nobj = run->sc->nobj;
    if (run->fg && run->fg->T == T && run->fg->nobj == nobj) return run->fg;
    clash_fg_destroy(run->fg);
    run->fg = NULL;
    struct clash_finegrain *fg = calloc(1, sizeof *fg);
    if (!fg) return NULL;
    fg->T = T, fg->nobj = nobj;
    fg->slot = aligned_alloc(CLASH_CACHE_LINE, (size_t)T * sizeof(fg_slot));
    if (!fg->slot) {
        free(fg);
        return NULL;
    }
    memset(fg->slot, 0, (size_t)T * sizeof(fg_slot));
    for (int w = 0; w < T; ++w)
        if (!(fg->slot[w].obox = malloc(((size_t)nobj + 1) * sizeof(clash_box)))) {
            clash_fg_destroy(fg);
            return NULL;
        }
    return run->fg = fg;
}

/* ---- S1 ------------------------------------------------------------------------------ */

/* Streaming stores only for ranges of at least CLASH_TUNE_NT_MIN_RANGE
 * faces (base/tuning.h): the ends of a range and its store fence cost more
 * than they save on short blocks such as --chunk 16. */

/* A worker's partial object boxes are live for the objects [olo, ohi] it
 * has touched this step (olo > ohi: none); widening the interval to take
 * [a, b] in empties the boxes it adds.  A worker of the chunk partition
 * touches about nobj / T objects, so neither the emptying nor the fold
 * costs T x nobj (a fold over every slot, each written on another core,
 * is a large part of a step at many threads and objects). */
static void slot_empty(fg_slot *sl, int a, int b)
{
    for (int o = a; o <= b; ++o)
        for (int d = 0; d < 3; ++d) sl->obox[o].lo[d] = INFINITY, sl->obox[o].hi[d] = -INFINITY;
}

static void slot_cover(fg_slot *sl, int a, int b)
{
    if (sl->olo > sl->ohi) {
        slot_empty(sl, a, b);
        sl->olo = a, sl->ohi = b;
        return;
    }
    if (a < sl->olo) slot_empty(sl, a, sl->olo - 1), sl->olo = a;
    if (b > sl->ohi) slot_empty(sl, sl->ohi + 1, b), sl->ohi = b;
}

static void slot_reset(struct clash_finegrain *fg)
{
    for (int w = 0; w < fg->T; ++w) fg->slot[w].olo = 1, fg->slot[w].ohi = 0;
}

static void boxes_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    clash_run *run = p;
    const clash_scene *sc = run->sc;
    fg_slot *sl = &run->fg->slot[worker];
    const int n = sc->nobj;
    if (begin >= end || n == 0) return;
    int o = clash_object_of(sc->fofs, n, begin);
    slot_cover(sl, o, clash_object_of(sc->fofs, n, end - 1));
    const int swept = run->cfg.mode == CLASH_MODE_SWEPT;
    int64_t f = begin;
    while (f < end && o < n) {
        const int64_t oe = sc->fofs[o + 1] < end ? sc->fofs[o + 1] : end;
        if (f < oe) {
            float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
            if (step == 1 && run->fg->s1_nt && oe - f >= CLASH_TUNE_NT_MIN_RANGE)
                ck_face_boxes_nt(f, oe, sc->f0, sc->f1, sc->f2, sc->x, sc->y, sc->z, swept ? sc->px : NULL, sc->py,
                                 sc->pz, run->boxes->lox, run->boxes->loy, run->boxes->loz, run->boxes->hix, run->boxes->hiy, run->boxes->hiz, lo, hi);
            else
                ck_face_boxes_strided(f, oe, step, sc->f0, sc->f1, sc->f2, sc->x, sc->y, sc->z,
                                      swept ? sc->px : NULL, sc->py, sc->pz, run->boxes->lox, run->boxes->loy, run->boxes->loz, run->boxes->hix,
                                      run->boxes->hiy, run->boxes->hiz, lo, hi);
            if (swept && sc->turn[o].kind != CLASH_TURN_NONE) clash_grow_turning(run, f, oe, step, lo, hi);
            clash_box *b = &sl->obox[o];
            for (int d = 0; d < 3; ++d) b->lo[d] = fminf(b->lo[d], lo[d]), b->hi[d] = fmaxf(b->hi[d], hi[d]);
            f += (oe - f + step - 1) / step * step;
        }
        ++o;
        while (o < n && sc->fofs[o + 1] <= f) ++o;
    }
}

int clash_fg_boxes(clash_run *run)
{
    return clash_fg_boxes_stores(run, 0);
}

/* run->boxes->face_r, once per run (the local vertices never change while a run
 * exists; Morton reordering happened at its creation), in parallel: each
 * vertex's squared local norm first, then each face's largest of its
 * three (serial, it showed at many threads on millions of faces; per face
 * from the coordinates, each vertex's norm would be made six times).  Each
 * face's radius is the same
 * whoever computes it. */
typedef struct radii_ctx {
    clash_run *run;
    double *q; /* per vertex: x^2 + y^2 + z^2, local */
} radii_ctx;

static void norms_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    const radii_ctx *c = p;
    const clash_scene *sc = c->run->sc;
    for (int64_t v = begin; v < end; v += step) {
        const double a = sc->dlx[v], b = sc->dly[v], d = sc->dlz[v];
        c->q[v] = a * a + b * b + d * d;
    }
}

static void radii_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    const radii_ctx *c = p;
    const clash_scene *sc = c->run->sc;
    for (int64_t f = begin; f < end; f += step) {
        const double q0 = c->q[sc->f0[f]], q1 = c->q[sc->f1[f]], q2 = c->q[sc->f2[f]];
        double r2 = q0 > 0 ? q0 : 0;
        r2 = q1 > r2 ? q1 : r2;
        r2 = q2 > r2 ? q2 : r2;
        c->run->boxes->face_r[f] = ck_f32_up(sqrt(r2) * (1 + 1e-15));
    }
}

static int face_radii(clash_run *run)
{
    const clash_scene *sc = run->sc;
    radii_ctx c = {run, malloc(sizeof(double) * (size_t)(sc->nv ? sc->nv : 1))};
    if (!c.q || !(run->boxes->face_r = malloc(sizeof(float) * (size_t)(sc->nf ? sc->nf : 1)))) {
        free(c.q);
        return -1;
    }
    const clash_exec ev = clash_exec_sized(&run->exec, sc->nv), ef = clash_exec_sized(&run->exec, sc->nf);
    clash_par_for(&ev, sc->nv, norms_range, &c);
    clash_par_for(&ef, sc->nf, radii_range, &c);
    free(c.q);
    return 0;
}

static void fold_object_boxes(clash_run *run);

/* Ordinary stores by default: where one core's outstanding misses rather
 * than DRAM bound S1 (the development machine, bench/RESULTS.md) streaming
 * stores are slower; `clash bench bbox --stores both` measures both on
 * other machines. */
int clash_fg_boxes_stores(clash_run *run, int streaming)
{
    struct clash_finegrain *fg = fg_get(run);
    if (!fg) return -1;
    if (run->cfg.mode == CLASH_MODE_SWEPT && run->sc->nturning && !run->boxes->face_r && face_radii(run)) return -1;
    fg->s1_nt = streaming != 0;
    slot_reset(fg);
    const clash_exec ex = clash_exec_sized(&run->exec, run->sc->nf); /* few faces: on the caller */
    clash_par_for(&ex, run->sc->nf, boxes_range, run);
    fold_object_boxes(run);
    return 0;
}

/* The object boxes: the min/max over the workers' live slots (exact, so
 * independent of who computed what). */
static void fold_object_boxes(clash_run *run)
{
    struct clash_finegrain *fg = run->fg;
    for (int o = 0; o < fg->nobj; ++o)
        for (int d = 0; d < 3; ++d) run->boxes->obox[o].lo[d] = INFINITY, run->boxes->obox[o].hi[d] = -INFINITY;
    for (int w = 0; w < fg->T; ++w)
        for (int o = fg->slot[w].olo; o <= fg->slot[w].ohi; ++o) {
            const clash_box *s = &fg->slot[w].obox[o];
            clash_box *b = &run->boxes->obox[o];
            for (int d = 0; d < 3; ++d) b->lo[d] = fminf(b->lo[d], s->lo[d]), b->hi[d] = fmaxf(b->hi[d], s->hi[d]);
        }
}

/* S1 with boxes deferred (stages/deferred.c): the object boxes straight
 * from the vertices of x (before 0) or px (1), worker w taking
 * [nv*w/T, (w+1)*nv/T) cut at the objects' ranges into its own slot,
 * folded as the face boxes' are (vertex_boxes: into run->boxes->obox). */
typedef struct vb_ctx { clash_run *run; int before; } vb_ctx;

static void vbounds_worker(int w, int T, void *p)
{
    const vb_ctx *c = p;
    const clash_scene *sc = c->run->sc;
    fg_slot *sl = &c->run->fg->slot[w];
    const float *x = c->before ? sc->px : sc->x, *y = c->before ? sc->py : sc->y, *z = c->before ? sc->pz : sc->z;
    const int64_t a = sc->nv * w / T, e = sc->nv * (w + 1) / T;
    if (a >= e || sc->nobj == 0) return;
    const int first = clash_object_of(sc->vofs, sc->nobj, a);
    slot_cover(sl, first, clash_object_of(sc->vofs, sc->nobj, e - 1));
    for (int o = first; o < sc->nobj && sc->vofs[o] < e; ++o) {
        const int64_t v0 = sc->vofs[o] > a ? sc->vofs[o] : a, v1 = sc->vofs[o + 1] < e ? sc->vofs[o + 1] : e;
        if (v0 < v1) ck_vertex_bounds(v1 - v0, x + v0, y + v0, z + v0, sl->obox[o].lo, sl->obox[o].hi);
    }
}

static void vertex_boxes(clash_run *run, const clash_exec *ex, int before)
{
    vb_ctx c = {run, before};
    slot_reset(run->fg);
    clash_spmd(ex, vbounds_worker, &c);
    fold_object_boxes(run);
}

int clash_fg_object_boxes(clash_run *run)
{
    struct clash_finegrain *fg = fg_get(run);
    if (!fg) return -1;
    const int swept = run->cfg.mode == CLASH_MODE_SWEPT;
    if (swept && run->sc->nturning && !run->boxes->face_r && face_radii(run)) return -1;
    const clash_exec ex = clash_exec_sized(&run->exec, run->sc->nv); /* few vertices: on the caller */
    vertex_boxes(run, &ex, 0);
    if (!swept) return 0;
    /* and px's, a swept box covering both: held from the step before when they can be (held_bounds.h) */
    const int held = clash_held_boxes_begin(run);
    if (held < 0) return -1;
    if (!held) vertex_boxes(run, &ex, 1);
    clash_held_boxes_join(run, held);
    return clash_defer_grow_objects(run);
}

/* ---- S3 ------------------------------------------------------------------------------ */

/* 0 when face f's box misses one of the region's slabs S
 * (ck_box_meets_slabs, kernels/kernels.h). */
static inline int box_meets_slabs(const clash_run *run, int64_t f, const float *S)
{
    return ck_box_meets_slabs(run->boxes->lox[f], run->boxes->loy[f], run->boxes->loz[f], run->boxes->hix[f], run->boxes->hiy[f], run->boxes->hiz[f], S);
}

/* The slabs of region r, or NULL when this step's regions have none. */
static inline const float *region_slabs(const clash_run *run, int64_t r)
{
    return run->broad->region_dops ? run->cull->rdop + (size_t)CK_FDOP * (size_t)r : NULL;
}

static int face_kept(const clash_run *run, int64_t f)
{
    const int32_t o = run->face_obj[f];
    for (int64_t r = run->cull->reg_ofs[o]; r < run->cull->reg_ofs[o + 1]; ++r) {
        const clash_box *R = &run->cull->regs[r];
        if (run->boxes->lox[f] > R->hi[0] || run->boxes->hix[f] < R->lo[0] || run->boxes->loy[f] > R->hi[1] || run->boxes->hiy[f] < R->lo[1] ||
            run->boxes->loz[f] > R->hi[2] || run->boxes->hiz[f] < R->lo[2])
            continue;
        const float *S = region_slabs(run, r);
        if (S && !box_meets_slabs(run, f, S)) continue;
        /* A face (or swept hull) lies inside its box: a box inside the
         * region meets it, no exact test needed (most faces of two deeply
         * overlapping objects). */
        if (run->boxes->lox[f] >= R->lo[0] && run->boxes->hix[f] <= R->hi[0] && run->boxes->loy[f] >= R->lo[1] &&
            run->boxes->hiy[f] <= R->hi[1] && run->boxes->loz[f] >= R->lo[2] && run->boxes->hiz[f] <= R->hi[2])
            return 1;
        const double lo[3] = {R->lo[0], R->lo[1], R->lo[2]}, hi[3] = {R->hi[0], R->hi[1], R->hi[2]};
        if (clash_face_meets_box(run, (uint32_t)f, lo, hi)) return 1;
    }
    return 0;
}

static int keep_push(fg_slot *sl, uint32_t f)
{
    if (sl->nkept == sl->cap) {
        const size_t cap = sl->cap ? 2 * sl->cap : 1024;
        uint32_t *k = realloc(sl->kept, cap * sizeof *k);
        if (!k) {
            sl->oom = 1;
            return -1;
        }
        sl->kept = k, sl->cap = cap;
    }
    sl->kept[sl->nkept++] = f;
    return 0;
}

/* At a multiple of 8, flags c[*k .. *k+8) all zero: *k moves to the last
 * of them and 1 is returned (the caller's loop steps past them); else 0.
 * The flags are padded with zeros to a whole word of 8. */
static inline int skip8(const uint8_t *c, int64_t *k)
{
    if (*k & 7) return 0;
    uint64_t w8;
    memcpy(&w8, c + *k, sizeof w8);
    if (w8) return 0;
    *k += 7;
    return 1;
}

/* Faces [f0, f1) of one object with a single region R: each face's box is
 * classed against R in a vector loop over the contiguous box arrays (0:
 * apart, 1: inside, 2: straddling, exactly face_kept's comparisons), and
 * only the straddling faces take the exact test.  Most faces of a
 * cluttered scene's objects are apart or inside, and the loop has no
 * branch to mispredict.  CLASH_TUNE_CULL_VEC faces a pass (base/tuning.h). */

static int cull_one_region(clash_run *run, fg_slot *sl, int64_t f0, int64_t f1, const clash_box *R)
{
    const float *S = region_slabs(run, R - run->cull->regs);
    const float R6[6] = {R->lo[0], R->lo[1], R->lo[2], R->hi[0], R->hi[1], R->hi[2]};
    const double lo[3] = {R6[0], R6[1], R6[2]}, hi[3] = {R6[3], R6[4], R6[5]};
    uint8_t cls[CLASH_TUNE_CULL_VEC];
    for (int64_t a = f0; a < f1; a += CLASH_TUNE_CULL_VEC) {
        const int64_t m = f1 - a < CLASH_TUNE_CULL_VEC ? f1 - a : CLASH_TUNE_CULL_VEC;
        /* (zeros up to a whole word of 8 classes, for skip8) */
        ck_classify_boxes(m, run->boxes->lox + a, run->boxes->loy + a, run->boxes->loz + a, run->boxes->hix + a, run->boxes->hiy + a, run->boxes->hiz + a, R6,
                          cls);
        if (S) /* outside a diagonal slab of the region: class 0 (four boxes at a time) */
            ck_slabs_clear(m, run->boxes->lox + a, run->boxes->loy + a, run->boxes->loz + a, run->boxes->hix + a, run->boxes->hiy + a, run->boxes->hiz + a, S,
                           cls);
        for (int64_t k = 0; k < m; ++k) {
            if (skip8(cls, &k) || !cls[k]) continue; /* most faces are apart */
            const uint32_t f = (uint32_t)(a + k);
            if ((cls[k] == 1 || clash_face_meets_box(run, f, lo, hi)) && keep_push(sl, f)) return -1;
        }
    }
    return 0;
}

/* Faces [f0, f1) against nreg >= 2 regions R (face_kept's answers): the
 * boxes classed against every region, CLASH_TUNE_CULL_VEC faces at a time (bit 0 of
 * any[k]: inside some region's box, bit 1: straddling one); a face inside
 * one is kept, a face straddling some takes the exact test against those
 * in turn.  A face is kept iff some region keeps it, so the regions' order
 * does not matter, and none is tested exactly where a box already says so. */
static int cull_regions(clash_run *run, fg_slot *sl, int64_t f0, int64_t f1, const clash_box *R, int64_t nreg)
{
    uint8_t cls[CLASH_TUNE_CULL_VEC], any[CLASH_TUNE_CULL_VEC + 8];
    for (int64_t a = f0; a < f1; a += CLASH_TUNE_CULL_VEC) {
        const int64_t m = f1 - a < CLASH_TUNE_CULL_VEC ? f1 - a : CLASH_TUNE_CULL_VEC;
        memset(any, 0, (size_t)m);
        for (int64_t r = 0; r < nreg; ++r) {
            const float R6[6] = {R[r].lo[0], R[r].lo[1], R[r].lo[2], R[r].hi[0], R[r].hi[1], R[r].hi[2]};
            ck_classify_boxes(m, run->boxes->lox + a, run->boxes->loy + a, run->boxes->loz + a, run->boxes->hix + a, run->boxes->hiy + a, run->boxes->hiz + a,
                              R6, cls);
            const float *S = region_slabs(run, (R - run->cull->regs) + r);
            if (S) /* outside a diagonal slab of the region: class 0 */
                ck_slabs_clear(m, run->boxes->lox + a, run->boxes->loy + a, run->boxes->loz + a, run->boxes->hix + a, run->boxes->hiy + a, run->boxes->hiz + a,
                               S, cls);
            for (int64_t k = 0; k < m; ++k) any[k] |= cls[k]; /* classes 1, 2 are bits 0, 1 */
        }
        for (int64_t k = m; k & 7; ++k) any[k] = 0; /* whole words of 8 below */
        for (int64_t k = 0; k < m; ++k) {
            if (skip8(any, &k) || !any[k]) continue; /* most faces are apart from every region */
            const uint32_t f = (uint32_t)(a + k);
            /* inside some region's box (and its slabs), or the straddled
             * regions' exact tests (face_kept's, in turn) */
            if (((any[k] & 1) || face_kept(run, f)) && keep_push(sl, f)) return -1;
        }
    }
    return 0;
}

/* Faces [f, e) of object o, which has nreg >= 1 regions. */
static int cull_faces_of(clash_run *run, fg_slot *sl, int64_t f, int64_t e, int32_t o, int64_t nreg)
{
    const clash_box *R = &run->cull->regs[run->cull->reg_ofs[o]];
    return nreg == 1 ? cull_one_region(run, sl, f, e, R) : cull_regions(run, sl, f, e, R, nreg);
}

/* With boxes deferred, one object's faces are taken CLASH_TUNE_DEFER_PIECE at a time. */

static void cull_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    clash_run *run = p;
    fg_slot *sl = &run->fg->slot[worker];
    if (sl->oom) return;
    if (sl->nseg == sl->capseg) {
        const size_t cap = sl->capseg ? 2 * sl->capseg : 16;
        fg_seg *s = realloc(sl->seg, cap * sizeof *s);
        if (!s) {
            sl->oom = 1;
            return;
        }
        sl->seg = s, sl->capseg = cap;
    }
    const size_t ofs = sl->nkept;
    if (step == 1) { /* by runs of one object's faces */
        const int64_t *fofs = run->sc->fofs;
        for (int64_t f = begin; f < end;) {
            const int32_t o = run->face_obj[f];
            const int64_t e = fofs[o + 1] < end ? fofs[o + 1] : end, nreg = run->cull->reg_ofs[o + 1] - run->cull->reg_ofs[o];
            if (nreg >= 1 && run->boxes->deferred) { /* the faces not left out, boxed, as runs */
                for (int64_t q = f; q < e; q += CLASH_TUNE_DEFER_PIECE) {
                    int64_t r[2 * (CLASH_TUNE_DEFER_PIECE / CLASH_SUB + 2)];
                    const int64_t qe = q + CLASH_TUNE_DEFER_PIECE < e ? q + CLASH_TUNE_DEFER_PIECE : e;
                    const int nr = clash_defer_runs(run, o, q, qe, r, &sl->nboxed);
                    for (int i = 0; i < nr; ++i)
                        if (cull_faces_of(run, sl, r[2 * i], r[2 * i + 1], o, nreg)) return;
                }
            } else if (nreg >= 1 && cull_faces_of(run, sl, f, e, o, nreg)) {
                return;
            }
            f = e; /* nreg == 0: the object overlaps nothing, no face is kept */
        }
    } else {
        const int lazy = run->boxes->deferred;
        for (int64_t f = begin; f < end; f += step) {
            const int32_t o = run->face_obj[f];
            if (lazy && (run->cull->reg_ofs[o + 1] == run->cull->reg_ofs[o] || !clash_defer_face(run, o, f))) continue;
            sl->nboxed += (size_t)lazy;
            if (face_kept(run, f) && keep_push(sl, (uint32_t)f)) return;
        }
    }
    sl->seg[sl->nseg++] = (fg_seg){begin, end, step, ofs, sl->nkept - ofs};
}

/* First position in a[0..n) holding a value >= x. */
static size_t lower_bound_u32(const uint32_t *a, size_t n, int64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if ((int64_t)a[mid] < x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

typedef struct merge_ctx {
    clash_run *run;
    int pieces;
    int64_t nf;
    int write;      /* 0: count pass, 1: write pass */
    size_t *ofs;    /* output offset of each piece (write pass) */
} merge_ctx;

typedef struct subrun {
    const uint32_t *v;
    size_t n;
} subrun;

static int cmp_subrun(const void *x, const void *y)
{
    const subrun *a = x, *b = y;
    return (a->v[0] > b->v[0]) - (a->v[0] < b->v[0]);
}

/* Count or write piece p = face ids [nf*p/P, nf*(p+1)/P). */
static void merge_piece(const merge_ctx *c, int p)
{
    struct clash_finegrain *fg = c->run->fg;
    const int64_t F0 = c->nf * p / c->pieces, F1 = c->nf * (p + 1) / c->pieces;
    size_t count = 0, nruns = 0, strided = 0;
    for (int pass = 0; pass < 2; ++pass) {
        subrun *runs = NULL;
        if (pass == 1) {
            if (!c->write || count == 0) break;
            runs = malloc(nruns * sizeof *runs);
            if (!runs) {
                fg->slot[p % fg->T].oom = 1;
                return;
            }
            nruns = 0;
        }
        for (int w = 0; w < fg->T; ++w) {
            const fg_slot *sl = &fg->slot[w];
            for (size_t s = 0; s < sl->nseg; ++s) {
                const fg_seg *g = &sl->seg[s];
                if (g->n == 0 || g->end <= F0 || g->begin >= F1) continue;
                const uint32_t *v = sl->kept + g->ofs;
                const size_t a = lower_bound_u32(v, g->n, F0), b = lower_bound_u32(v, g->n, F1);
                if (a == b) continue;
                if (pass == 0) count += b - a, ++nruns, strided |= g->step > 1;
                else runs[nruns++] = (subrun){v + a, b - a};
            }
        }
        if (pass == 1) {
            uint32_t *out = c->run->cull->kept + c->ofs[p];
            if (!strided) { /* value-disjoint runs: sort by first face, concatenate */
                qsort(runs, nruns, sizeof *runs, cmp_subrun);
                for (size_t r = 0; r < nruns; ++r) memcpy(out, runs[r].v, runs[r].n * sizeof *out), out += runs[r].n;
            } else { /* interleaved runs (stride): merge, smallest head first */
                for (size_t k = 0; k < count; ++k) {
                    size_t best = nruns;
                    for (size_t r = 0; r < nruns; ++r)
                        if (runs[r].n && (best == nruns || runs[r].v[0] < runs[best].v[0])) best = r;
                    *out++ = *runs[best].v++;
                    runs[best].n--;
                }
            }
            free(runs);
        }
    }
    if (!c->write) c->ofs[p] = count;
}

static void merge_worker(int w, int T, void *p)
{
    const merge_ctx *c = p;
    for (int piece = w; piece < c->pieces; piece += T) merge_piece(c, piece);
}

/* S3 under the default partition (chunk, no --chunk): blocks of
 * CLASH_TUNE_CULL_BLOCK faces (base/tuning.h) handed out dynamically.  A
 * face costs a lookup when its object has no overlap region, a box test per
 * region otherwise, and the exact test when it straddles one, so the cost
 * per face is uneven and moves with the scene: equal face counts leave one
 * worker much more work on the cluttered scenes, and blocks cut by an
 * estimated cost still leave it more.  Each block is one ascending segment;
 * the segments, in block order, are concatenated.  (--chunk N and
 * --partition stride keep the static partitions, for the partition study.) */

static void cull_dynamic(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    clash_run *run = p;
    const int64_t nf = run->sc->nf;
    for (int64_t u = begin; u < end; u += step) {
        const int64_t a = u * CLASH_TUNE_CULL_BLOCK;
        const int64_t e = a + CLASH_TUNE_CULL_BLOCK < nf ? a + CLASH_TUNE_CULL_BLOCK : nf;
        cull_range(a, e, 1, worker, run);
    }
}


/* Copies the blocks whose place falls in worker w's share of run->cull->kept. */
static void copy_worker(int w, int T, void *p)
{
    clash_run *run = p;
    const struct clash_finegrain *fg = run->fg;
    const size_t nb = (size_t)((run->sc->nf + CLASH_TUNE_CULL_BLOCK - 1) / CLASH_TUNE_CULL_BLOCK);
    const size_t lo = run->cull->nkept * (size_t)w / (size_t)T, hi = run->cull->nkept * (size_t)(w + 1) / (size_t)T;
    for (size_t k = 0; k < nb; ++k) {
        const seg_ref *b = &fg->blk[k];
        if (b->n && b->at >= lo && b->at < hi) memcpy(run->cull->kept + b->at, b->v, b->n * sizeof(uint32_t));
    }
}

static int cull_faces(clash_run *run, struct clash_finegrain *fg);

int clash_fg_cull(clash_run *run)
{
    struct clash_finegrain *fg = fg_get(run);
    if (!fg) return -1;
    for (int w = 0; w < fg->T; ++w)
        fg->slot[w].nkept = 0, fg->slot[w].nseg = 0, fg->slot[w].oom = 0, fg->slot[w].nboxed = 0;
    if (run->boxes->deferred && clash_defer_prepare(run)) return -1;
    const int rc = cull_faces(run, fg);
    run->boxes->nboxed = 0;
    for (int w = 0; w < fg->T; ++w) run->boxes->nboxed += (int64_t)fg->slot[w].nboxed;
    return rc;
}

static int cull_faces(clash_run *run, struct clash_finegrain *fg)
{
    const int64_t nf = run->sc->nf;
    const clash_exec ex = clash_exec_sized(&run->exec, nf); /* few faces: every call on the caller */
    if (run->exec.partition == CLASH_PART_CHUNK && run->exec.chunk == 0 && fg->T > 1) {
        clash_exec dyn = ex;
        dyn.schedule = CLASH_SCHED_DYNAMIC;
        const size_t nb = (size_t)((nf + CLASH_TUNE_CULL_BLOCK - 1) / CLASH_TUNE_CULL_BLOCK);
        if (nb > fg->blkcap) {
            seg_ref *b = realloc(fg->blk, nb * sizeof *b);
            if (!b) return -1;
            fg->blk = b, fg->blkcap = nb;
        }
        clash_par_tasks(&dyn, (int64_t)nb, 1, cull_dynamic, run);
        for (int w = 0; w < fg->T; ++w) {
            if (fg->slot[w].oom) return -1;
            for (size_t k = 0; k < fg->slot[w].nseg; ++k) {
                const fg_seg *g = &fg->slot[w].seg[k];
                fg->blk[g->begin / CLASH_TUNE_CULL_BLOCK] = (seg_ref){fg->slot[w].kept + g->ofs, g->n, 0};
            }
        }
        size_t total = 0;
        for (size_t k = 0; k < nb; ++k) fg->blk[k].at = total, total += fg->blk[k].n;
        run->cull->nkept = total;
        /* the copy in parallel when it is long (with --self every face is
         * kept; base/tuning.h) */
        if (total >= CLASH_TUNE_CULL_COPY_PAR) clash_spmd(&dyn, copy_worker, run);
        else copy_worker(0, 1, run);
        return 0;
    }
    clash_par_for(&ex, nf, cull_range, run);
    for (int w = 0; w < fg->T; ++w)
        if (fg->slot[w].oom) return -1;
    const int P = fg->T;
    size_t *ofs = malloc(((size_t)P + 1) * sizeof *ofs);
    if (!ofs) return -1;
    merge_ctx c = {run, P, nf, 0, ofs};
    clash_spmd(&ex, merge_worker, &c); /* ofs[p] = count of piece p */
    size_t total = 0;
    for (int p = 0; p < P; ++p) {
        const size_t n = ofs[p];
        ofs[p] = total, total += n;
    }
    ofs[P] = total;
    c.write = 1;
    clash_spmd(&ex, merge_worker, &c);
    free(ofs);
    for (int w = 0; w < fg->T; ++w)
        if (fg->slot[w].oom) return -1;
    run->cull->nkept = total;
    return 0;
}
