/*
 * broad_dop.c — S2's object pairs and S3's overlap regions tightened by the
 * objects' ten diagonal slabs (the face octree's; kernels/face_dops.c).
 *
 * S2 pairs two objects whose boxes overlap, and S3 keeps the faces of each
 * that meet the overlap region box(a) ∩ box(b).  An object that moves far
 * in a step sweeps a slanted capsule whose box is mostly empty: on 1,000
 * spheres of 3,024 faces (20 steps) only about a third of the kept faces
 * ever made a candidate.  So each object of a pair gets its 26-DOP here:
 * its vertices' extents (at s, and at s-1 in swept mode) along the ten
 * diagonal directions of face_dops.c, widened by
 *     G = g c_d + 2^-16 (M + g),   g = bound + 2 delta,
 * bound the object's largest arc margin (its turn, store/scene.h), delta
 * the culling inflation (at least half the minimum separation), c_d >=
 * |d|_2 (1 + 10^-6) and M its largest |coordinate| (the float rounding of
 * the projections, 6 u M at most, and of the faces' boxes, is far below).
 * A pair whose slabs miss along a direction is dropped: two faces' hulls
 * within their tolerance (their margins, at most the bounds, and the
 * minimum separation, at most 2 delta) come that close along every
 * direction, and each hull lies in its object's slabs.  A kept pair's
 * region gets the slabs' intersection (run->broad->opdop), and S3 keeps a face
 * only where its box, projected on each direction, meets the region's
 * slab too (stages/finegrain.c): a face whose hull comes within the
 * tolerance of the other object has a point inside its own object's slab
 * and within g |d|_2 of the other's, and its box, grown by its margin,
 * holds that point's neighbourhood.
 *
 * Pairs of an object with itself (self-collision) and objects whose
 * coordinates are not finite keep unbounded slabs.  The DOPs are made for
 * the objects of some pair only, in parallel, one object a task.
 */
#include <math.h>
#include <stdlib.h>

#include "base/mem.h"
#include "stages/held_bounds.h"
#include "stages/stages.h"

#define OD_REL 0x1p-16

typedef struct od_ctx {
    clash_run *run;
    const int32_t *objs;
    int held; /* px's DOPs may be taken from the step before's (stages/held_bounds.h) */
} od_ctx;

static void od_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    od_ctx *c = p;
    clash_run *run = c->run;
    const clash_scene *sc = run->sc;
    const int swept = run->cfg.mode == CLASH_MODE_SWEPT;
    const double c3 = sqrt(3.0) * (1 + 1e-6), c2 = sqrt(2.0) * (1 + 1e-6);
    for (int64_t i = begin; i < end; i += step) {
        const int32_t o = c->objs[i];
        const int64_t v0 = sc->vofs[o], nv = sc->vofs[o + 1] - v0;
        float lo[10], hi[10], M = 0;
        for (int d = 0; d < 10; ++d) lo[d] = INFINITY, hi[d] = -INFINITY;
        int ok = ck_points_dop(nv, sc->x + v0, sc->y + v0, sc->z + v0, lo, hi, &M);
        if (swept) { /* and px's: a swept object lies in both states' slabs */
            clash_held_dops_put(run, o, lo, hi, M, ok);
            if (!clash_held_dops_join(run, c->held, o, lo, hi, &M, &ok))
                ok &= ck_points_dop(nv, sc->px + v0, sc->py + v0, sc->pz + v0, lo, hi, &M);
        }
        const clash_turn *t = sc->turn ? &sc->turn[o] : NULL;
        const double g = (t && t->kind != CLASH_TURN_NONE ? t->bound : 0) + 2.0 * run->boxes->delta;
        float *out = run->broad->odop + (size_t)CK_FDOP * (size_t)o;
        ok &= nv > 0 && g >= 0 && g <= 0x1p100;
        for (int d = 0; d < 10; ++d) {
            const double G = g * (d < 4 ? c3 : c2) + OD_REL * ((double)M + g);
            out[d] = ok ? ck_f32_down((double)lo[d] - G) : -INFINITY;
            out[10 + d] = ok ? ck_f32_up((double)hi[d] + G) : INFINITY;
        }
    }
}

int clash_broad_dops(clash_run *run)
{
    const clash_scene *sc = run->sc;
    const int n = sc->nobj;
    run->broad->region_dops = 0;
    if (run->broad->nop == 0) return 0;
    if (!run->broad->odop && !(run->broad->odop = malloc(sizeof(float) * CK_FDOP * (size_t)n))) return -1;
    if (clash_renew((void **)&run->broad->opdop, &run->broad->cap_opdop, run->broad->nop, CK_FDOP * sizeof(float), 0)) return -1;
    /* the objects of some pair, ascending */
    uint8_t *use = calloc((size_t)n, 1);
    int32_t *objs = malloc(sizeof(int32_t) * (size_t)n);
    if (!use || !objs) {
        free(use), free(objs);
        return -1;
    }
    for (size_t i = 0; i < run->broad->nop; ++i) use[run->broad->op[i].a] = use[run->broad->op[i].b] = 1;
    int64_t no = 0, nv = 0;
    for (int o = 0; o < n; ++o)
        if (use[o]) objs[no++] = o, nv += sc->vofs[o + 1] - sc->vofs[o];
    od_ctx c = {run, objs, 0};
    const int swept = run->cfg.mode == CLASH_MODE_SWEPT;
    run->boxes->held_dops = 0;
    if (swept && (c.held = clash_held_dops_begin(run)) < 0) {
        free(use), free(objs);
        return -1;
    }
    for (int64_t i = 0; c.held && i < no; ++i) run->boxes->held_dops += run->boxes->hdop_has[1][objs[i]];
    const clash_exec ex = clash_exec_sized(&run->exec, nv); /* few vertices: on the caller */
    clash_par_tasks(&ex, no, 1, od_range, &c);
    if (swept) clash_held_dops_end(run);
    free(use), free(objs);
    /* the pairs whose slabs meet, in their order, with their regions' slabs */
    size_t k = 0;
    for (size_t i = 0; i < run->broad->nop; ++i) {
        const clash_objpair p = run->broad->op[i];
        float *R = run->broad->opdop + (size_t)CK_FDOP * k;
        int meet = 1;
        if (p.a == p.b) {
            for (int d = 0; d < 10; ++d) R[d] = -INFINITY, R[10 + d] = INFINITY;
        } else {
            const float *A = run->broad->odop + (size_t)CK_FDOP * (size_t)p.a, *B = run->broad->odop + (size_t)CK_FDOP * (size_t)p.b;
            for (int d = 0; d < 10; ++d) {
                R[d] = A[d] > B[d] ? A[d] : B[d], R[10 + d] = A[10 + d] < B[10 + d] ? A[10 + d] : B[10 + d];
                meet &= R[d] <= R[10 + d];
            }
        }
        if (meet) run->broad->op[k++] = p;
    }
    run->broad->nop = k;
    run->broad->region_dops = 1;
    return 0;
}
