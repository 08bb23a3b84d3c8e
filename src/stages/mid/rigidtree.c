/*
 * rigidtree.c — the frames, margins and traversal driver shared by the two
 * object-space hierarchies of Zachmann's thesis ([Zachmann00] §3.5): the BoxTree
 * (boxtree.c, §3.5.4–3.5.7) and the DOP-tree (doptree.c, §3.5.9).
 *
 * Object space.  A rigid object's vertices are fixed in its local frame
 * (the store's lx, ly, lz); state s places them in the world by
 *     A_s(l) = s_A R_A(s) l + t_A(s)        (store/motion.c).
 * So a hierarchy built once over the local coordinates stays valid for the
 * whole run; only the relation between two objects changes.  For a pair
 * (A, B) the query is done in A's frame at state s (§3.5.6: "by choosing
 * O's object space, we need to re-align only Q's nodes"):
 *     M  = A_s^-1 B_s      maps B's frame into A's,
 * and in swept mode, where the narrow test asks whether the hulls of each
 * face's positions at s-1 and s meet,
 *     Q  = A_s^-1 A_{s-1}  where A's faces were at s-1, seen from A at s,
 *     M' = A_s^-1 B_{s-1}  where B's faces were at s-1.
 * An affine map carries convex hulls to convex hulls, so the two swept hulls
 * seen from A lie in (node ∪ Q node) and (M node ∪ M' node): each side's
 * bound is the union of its "views".  Self-collision is the pair (A, A):
 * views I, Q against M = I, M' = Q.
 *
 * Margin.  The narrow test reads the float world positions of S0, which
 * differ from the exact A_s(l) by the rounding of one float: at most half an
 * ulp of the largest coordinate m of the step, per component.  S1's delta is
 * 8 ulps of m (stages/boxes.c), so a world point is within
 * sqrt(3)/16 delta < delta/8 (Euclidean) of the exact image of its face.
 * Seen from A, distances shrink by s_A.  Every box or DOP of a side is
 * therefore grown by grow = delta / s_A (eight times what the rounding
 * needs), plus a relative 1e-12 (or more, as the method says) of the
 * magnitudes involved (|t|, s r) for the double arithmetic of the views and
 * the traversal, whose error is ~1e-15 of them per operation.
 * Swept mode, turning objects: a face's path leaves its hull by up to its
 * arc margin (store/turn.c), and the narrow test accepts hulls up to the
 * sum of the two faces' margins apart; each side grows by half the sum of
 * the two objects' bounds on those margins (world units, / s_A).
 * A pair of faces the narrow test accepts thus always has overlapping
 * grown bounds at every level, and the leaves hand it on: the pair sets
 * equal the oracle's exactly.
 *
 * Leaves.  Two leaves meeting give the face pairs between them, kept when
 * eligible and when their world face boxes of S1 overlap grown by delta:
 * the oracle's own predicate, so the candidates are a subset of the
 * oracle's and a superset of the hits.
 *
 * Work.  The units of a step are the object pairs of S2 and, with
 * self-collision, each object against itself; each is traversed from its
 * roots with an explicit stack.  With more than one thread the units' top
 * levels are first expanded serially (up to 64 items per thread, a few
 * rounds), so that one big pair (two meshes) spreads over the team; the
 * coarse-grain strategy hands out the items and each worker appends to its
 * own buffer, merged, sorted and de-duplicated by clash_mid_gather.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "stages/mid/midphase.h"
#include "stages/mid/rigidtree.h"

double rt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void clash_rigidtree_free(clash_run *run)
{
    clash_rtrees *t = run->mid->rtrees;
    if (!t) return;
    if (t->destroy) t->destroy(t->trees, run->sc->nobj);
    free(t);
    run->mid->rtrees = NULL;
}

/* Pose of object o in the current state (k = 0) or the one before (k = 1)
 * as a matrix sR and translation t (the store's poses: scene-file laws and
 * host-set poses alike). */
static void pose(const clash_scene *sc, int o, int k, double sR[9], double t[3], double *scale)
{
    const clash_xform *x = k ? &sc->prev[o] : &sc->cur[o];
    *scale = sc->obj_scale[o];
    for (int i = 0; i < 9; ++i) sR[i] = *scale * x->R[i];
    for (int d = 0; d < 3; ++d) t[d] = x->t[d];
}

double rt_inverse3(const double M[9], double Mi[9])
{
    const double c0 = M[4] * M[8] - M[5] * M[7], c1 = M[5] * M[6] - M[3] * M[8], c2 = M[3] * M[7] - M[4] * M[6];
    const double id = 1.0 / (M[0] * c0 + M[1] * c1 + M[2] * c2);
    Mi[0] = c0 * id, Mi[1] = (M[2] * M[7] - M[1] * M[8]) * id, Mi[2] = (M[1] * M[5] - M[2] * M[4]) * id;
    Mi[3] = c1 * id, Mi[4] = (M[0] * M[8] - M[2] * M[6]) * id, Mi[5] = (M[2] * M[3] - M[0] * M[5]) * id;
    Mi[6] = c2 * id, Mi[7] = (M[1] * M[6] - M[0] * M[7]) * id, Mi[8] = (M[0] * M[4] - M[1] * M[3]) * id;
    double f = 0;
    for (int i = 0; i < 9; ++i) f += Mi[i] * Mi[i];
    return sqrt(f);
}

/* v = A^-1 B, for A = (aR, tA), B = (bR, tB) (scale included): V = aR^-1 bR,
 * o = aR^-1 (tB - tA).  aR^-1 is the true inverse, not the transpose over
 * the scale squared: a host's rotation is a rotation within 1e-6 only
 * (clash_check_rotation), and the transpose would be off by as much, above
 * the margin of a few float ulps. */
static void relative(const double aR[9], const double at[3], const double bR[9], const double bt[3], rt_view *v)
{
    double ai[9];
    rt_inverse3(aR, ai);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j)
            v->V[3 * i + j] = ai[3 * i] * bR[j] + ai[3 * i + 1] * bR[3 + j] + ai[3 * i + 2] * bR[6 + j];
        v->o[i] = ai[3 * i] * (bt[0] - at[0]) + ai[3 * i + 1] * (bt[1] - at[1]) + ai[3 * i + 2] * (bt[2] - at[2]);
    }
}

/* The views and the margin of unit (a, b); radius[o]: the largest |local coordinate| of object o. */
static void setup(const clash_run *run, int a, int b, const double *radius, double rel, rt_pair *p)
{
    const clash_scene *sc = run->sc;
    const int swept = run->cfg.mode == CLASH_MODE_SWEPT;
    double aR[9], at[3], as, bR[9], bt[3], bs;
    pose(sc, a, 0, aR, at, &as);
    pose(sc, b, 0, bR, bt, &bs);
    p->a = a, p->b = b;
    p->nva = p->nvb = swept ? 2 : 1;
    memset(&p->va[0], 0, sizeof p->va[0]);
    p->va[0].V[0] = p->va[0].V[4] = p->va[0].V[8] = 1;
    relative(aR, at, bR, bt, &p->vb[0]);
    double mag = fabs(at[0]) + fabs(at[1]) + fabs(at[2]) + fabs(bt[0]) + fabs(bt[1]) + fabs(bt[2]);
    if (swept) {
        double pR[9], pt[3], ps;
        pose(sc, a, 1, pR, pt, &ps);
        relative(aR, at, pR, pt, &p->va[1]);
        mag += fabs(pt[0]) + fabs(pt[1]) + fabs(pt[2]);
        pose(sc, b, 1, pR, pt, &ps);
        relative(aR, at, pR, pt, &p->vb[1]);
        mag += fabs(pt[0]) + fabs(pt[1]) + fabs(pt[2]);
    }
    mag += 3 * (as * radius[a] + bs * radius[b]);
    /* swept, turning objects: the faces' arc margins (stages/facetest.h), at most each object's bound */
    const double arc = swept ? 0.5 * (sc->turn[a].bound + sc->turn[b].bound) : 0;
    p->grow = (run->boxes->delta + rel * mag + arc) / as;
}

rt_pair *rt_pairs(const clash_run *run, const double *radius, double rel, size_t *n)
{
    const clash_scene *sc = run->sc;
    const int self = run->cfg.self_collision;
    size_t m = run->broad->nop + (self ? (size_t)sc->nobj : 0);
    rt_pair *p = malloc((m ? m : 1) * sizeof *p);
    *n = 0;
    if (!p) return NULL;
    for (size_t i = 0; i < run->broad->nop; ++i) setup(run, run->broad->op[i].a, run->broad->op[i].b, radius, rel, &p[(*n)++]);
    if (self)
        for (int o = 0; o < sc->nobj; ++o)
            if (sc->fofs[o + 1] - sc->fofs[o] > 1 && clash_obj_self(run, o)) setup(run, o, o, radius, rel, &p[(*n)++]);
    return p;
}

void rt_view_box(const rt_view *v, const double lo[3], const double hi[3], double olo[3], double ohi[3])
{
    const double c[3] = {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])};
    const double h[3] = {0.5 * (hi[0] - lo[0]), 0.5 * (hi[1] - lo[1]), 0.5 * (hi[2] - lo[2])};
    for (int i = 0; i < 3; ++i) {
        const double *r = v->V + 3 * i;
        const double cc = r[0] * c[0] + r[1] * c[1] + r[2] * c[2] + v->o[i];
        const double e = fabs(r[0]) * h[0] + fabs(r[1]) * h[1] + fabs(r[2]) * h[2];
        olo[i] = cc - e, ohi[i] = cc + e;
    }
}

int rt_leaf_pairs(const clash_run *run, clash_keybuf *kb, const uint32_t *fa, int na, const uint32_t *fb, int nb)
{
    const int one = fa == fb;
    for (int i = 0; i < na; ++i)
        for (int j = one ? i + 1 : 0; j < nb; ++j) {
            const uint32_t x = fa[i] < fb[j] ? fa[i] : fb[j], y = fa[i] < fb[j] ? fb[j] : fa[i];
            if (x == y || !clash_faceboxes_overlap(run->boxes, x, y) || !clash_pair_eligible(run, x, y)) continue;
            if (clash_keybuf_push(kb, (uint64_t)x << 32 | y)) return -1;
        }
    return 0;
}

int rt_push(rt_stack *s, const void *item)
{
    if (s->n == s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 256;
        unsigned char *v = realloc(s->v, cap * s->isz);
        if (!v) return -1;
        s->v = v, s->cap = cap;
    }
    memcpy(s->v + s->n++ * s->isz, item, s->isz);
    return 0;
}

typedef struct drive {
    clash_run *run;
    const rt_stack *units;
    rt_stack *st; /* per worker */
    rt_step_fn step;
    const void *ctx;
    unsigned char *item; /* per worker: the item being processed */
    int failed;
} drive;

static void run_units(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    drive *d = p;
    rt_stack *st = &d->st[worker];
    unsigned char *it = d->item + (size_t)worker * st->isz;
    clash_keybuf *kb = &d->run->mid->wbuf[worker];
    for (int64_t u = begin; u < end; u += step) {
        st->n = 0;
        if (rt_push(st, d->units->v + (size_t)u * st->isz)) goto fail;
        while (st->n) {
            memcpy(it, st->v + --st->n * st->isz, st->isz);
            if (d->step(d->ctx, it, st, kb)) goto fail;
        }
    }
    return;
fail:
    d->failed = 1;
}

int rt_traverse(clash_run *run, rt_stack *units, rt_step_fn step, rt_flush_fn flush, const void *ctx,
                const char *name, clash_error *err)
{
    const size_t isz = units->isz, team = clash_team(run);
    int rc = CLASH_OK;
    for (int w = 0; w < run->threads; ++w) run->mid->wbuf[w].n = 0;
    drive d = {run, units, calloc(team, sizeof(rt_stack)), step, ctx, malloc(team * isz), 0};
    if (!d.st || !d.item) goto oom;
    for (size_t w = 0; w < team; ++w) d.st[w].isz = isz;
    if (run->threads > 1) { /* expand the top levels into more units; leaf work met here goes to worker 0 */
        for (int round = 0; round < 6 && units->n && units->n < 64 * team; ++round) {
            rt_stack next = {.isz = isz};
            for (size_t k = 0; k < units->n; ++k) {
                memcpy(d.item, units->v + k * isz, isz);
                if (step(ctx, d.item, &next, &run->mid->wbuf[0])) {
                    free(next.v);
                    goto oom;
                }
            }
            free(units->v);
            *units = next;
        }
    }
    if (clash_par_tasks(&run->exec, (int64_t)units->n, 1, run_units, &d) < 0) {
        rc = clash_fail(err, CLASH_EINPUT, "schedule not available for the %s midphase", name);
        goto done;
    }
    for (int w = 0; flush && !d.failed && w < run->threads; ++w)
        if (flush(ctx, w, &run->mid->wbuf[w])) d.failed = 1;
    if (d.failed || clash_mid_gather(run)) goto oom;
    goto done;
oom:
    rc = clash_fail(err, CLASH_EFAIL, "out of memory in the %s midphase", name);
done:
    if (d.st)
        for (size_t w = 0; w < team; ++w) free(d.st[w].v);
    free(d.st), free(d.item);
    return rc;
}
