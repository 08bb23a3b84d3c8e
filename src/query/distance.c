/*
 * distance.c — the minimum distance between two objects in the current
 * state (clash_run_distance, clash.h), and the per-object trees it and
 * proximity.c traverse.
 *
 * Trees.  One binary tree per object over its faces' boxes in double (each
 * box the exact min and max of its three corners, so a box holds its
 * triangle and the distance of two boxes is a lower bound of their
 * triangles'), built top-down on first use by median splits of the face
 * centroids along the longest axis, leaves of at most Q_LEAF faces, nodes in
 * preorder (children after their parent) so a refit is one backward sweep.
 * The topology stays; the boxes are refitted when the store's positions
 * changed (the content number sc->xgen differs from the one the boxes were
 * made of, or is 0, unknown), O(faces) per object.
 *
 * Distance.  A dual descent of the two trees from the roots: at each node
 * pair the node with more faces is split and its two children visited
 * nearest box first; a pair whose box distance exceeds the best found (or
 * max_distance while none is) is cut; leaf pairs give face pairs, each
 * measured by q_tri_tri_dist in double.  The cut keeps a relative margin of
 * 1e-12 above the best, so a rounding of the box distance cannot drop a
 * face pair the exact comparison would keep.  The order of visits depends on
 * the positions only: the same answer for every thread count.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "kernels/kernels.h"
#include "query/query.h"

enum { Q_LEAF = 4 };

/* ---- build and refit --------------------------------------------------------------------- */

typedef struct build_ctx {
    q_tree *t;
    const double *cen; /* 3 per face of the object, by local face index */
    int64_t f0;        /* the object's first store face */
} build_ctx;

static double key_of(const build_ctx *b, int64_t f, int axis) { return b->cen[3 * (f - b->f0) + axis]; }

/* Puts the k-th smallest (by centroid on axis) of perm[lo..hi) at k, smaller ones before it. */
static void select_k(const build_ctx *b, int64_t *perm, int64_t lo, int64_t hi, int64_t k, int axis)
{
    while (hi - lo > 1) {
        const double pv = key_of(b, perm[lo + (hi - lo) / 2], axis);
        int64_t i = lo, j = hi - 1;
        while (i <= j) {
            while (key_of(b, perm[i], axis) < pv) ++i;
            while (key_of(b, perm[j], axis) > pv) --j;
            if (i <= j) {
                const int64_t s = perm[i];
                perm[i] = perm[j], perm[j] = s;
                ++i, --j;
            }
        }
        if (k <= j) hi = j + 1;
        else if (k >= i) lo = i;
        else return;
    }
}

static void build(build_ctx *b, int64_t node, int64_t first, int64_t count)
{
    q_tree *t = b->t;
    t->node[node].first = first, t->node[node].count = count, t->node[node].left = -1;
    if (count <= Q_LEAF) return;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int64_t i = first; i < first + count; ++i)
        for (int k = 0; k < 3; ++k) {
            const double c = key_of(b, t->perm[i], k);
            if (c < lo[k]) lo[k] = c;
            if (c > hi[k]) hi[k] = c;
        }
    int axis = 0;
    for (int k = 1; k < 3; ++k)
        if (hi[k] - lo[k] > hi[axis] - lo[axis]) axis = k;
    const int64_t half = count / 2;
    select_k(b, t->perm, first, first + count, first + half, axis);
    const int64_t l = t->nnode;
    t->nnode += 2;
    t->node[node].left = l;
    build(b, l, first, half);
    build(b, l + 1, first + half, count - half);
}

static void refit(const clash_scene *sc, q_tree *t)
{
    for (int64_t n = t->nnode - 1; n >= 0; --n) {
        double *B = t->node[n].box;
        for (int k = 0; k < 3; ++k) B[k] = INFINITY, B[3 + k] = -INFINITY;
        if (t->node[n].left < 0) {
            for (int64_t i = t->node[n].first; i < t->node[n].first + t->node[n].count; ++i) {
                double T[3][3];
                q_face_cur(sc, t->perm[i], T);
                for (int c = 0; c < 3; ++c)
                    for (int k = 0; k < 3; ++k) {
                        if (T[c][k] < B[k]) B[k] = T[c][k];
                        if (T[c][k] > B[3 + k]) B[3 + k] = T[c][k];
                    }
            }
        } else {
            const double *L = t->node[t->node[n].left].box, *R = t->node[t->node[n].left + 1].box;
            for (int k = 0; k < 3; ++k) {
                B[k] = L[k] < R[k] ? L[k] : R[k];
                B[3 + k] = L[3 + k] > R[3 + k] ? L[3 + k] : R[3 + k];
            }
        }
    }
    t->gen = sc->xgen;
}

static int tree_build(const clash_scene *sc, int o, q_tree *t)
{
    const int64_t f0 = sc->fofs[o], nf = sc->fofs[o + 1] - f0, cap = 2 * nf + 1;
    memset(t, 0, sizeof *t);
    t->nf = nf;
    t->node = malloc((size_t)cap * sizeof *t->node);
    t->perm = malloc((size_t)(nf + 1) * sizeof *t->perm);
    double *cen = malloc((size_t)(3 * nf + 1) * sizeof *cen);
    if (!t->node || !t->perm || !cen) {
        free(cen);
        return -1;
    }
    for (int64_t f = 0; f < nf; ++f) {
        double T[3][3];
        q_face_cur(sc, f0 + f, T);
        for (int k = 0; k < 3; ++k) cen[3 * f + k] = (T[0][k] + T[1][k] + T[2][k]) / 3;
        t->perm[f] = f0 + f;
    }
    build_ctx b = {.t = t, .cen = cen, .f0 = f0};
    t->nnode = 1;
    build(&b, 0, 0, nf);
    free(cen);
    refit(sc, t);
    return 0;
}

void q_ensure_current(clash_scene *sc)
{
    if (sc->state >= 0) return;
    const double *const L[3] = {sc->dlx, sc->dly, sc->dlz};
    double *const W[3] = {sc->dx, sc->dy, sc->dz};
    float *const F[3] = {sc->x, sc->y, sc->z};
    for (int o = 0; o < sc->nobj; ++o)
        ck_transform_d(sc->vofs[o], sc->vofs[o + 1], 1, sc->cur[o].R, sc->obj_scale[o], sc->cur[o].t, L, W, F);
    sc->xgen = 0; /* not a state S0 numbered: trees refit from it on every use */
}

const q_tree *clash_query_tree(clash_run *run, int o)
{
    struct clash_query *q = clash_query_of(run);
    if (!q) return NULL;
    const clash_scene *sc = run->sc;
    if (q->ntrees < sc->nobj) {
        q_tree *nt = realloc(q->trees, (size_t)sc->nobj * sizeof *nt);
        if (!nt) return NULL;
        memset(nt + q->ntrees, 0, (size_t)(sc->nobj - q->ntrees) * sizeof *nt);
        q->trees = nt, q->ntrees = sc->nobj;
    }
    q_tree *t = &q->trees[o];
    if (!t->node) {
        if (tree_build(sc, o, t)) {
            free(t->node), free(t->perm);
            memset(t, 0, sizeof *t);
            return NULL;
        }
    } else if (!sc->xgen || t->gen != sc->xgen) {
        refit(sc, t);
    }
    return t;
}

/* ---- the distance ------------------------------------------------------------------------ */

typedef struct dist_ctx {
    const clash_scene *sc;
    const q_tree *ta, *tb;
    double limit;        /* max_distance */
    int found;
    double best;
    double pa[3], pb[3];
    int64_t fa, fb;      /* store faces of the best */
} dist_ctx;

static double bound(const dist_ctx *c) { return c->found ? c->best : c->limit; }

/* The box of triangle T (6 doubles, as the tree's). */
static void tri_box(const double T[3][3], double *B)
{
    for (int k = 0; k < 3; ++k) {
        B[k] = fmin(fmin(T[0][k], T[1][k]), T[2][k]);
        B[3 + k] = fmax(fmax(T[0][k], T[1][k]), T[2][k]);
    }
}

static void leaves(dist_ctx *c, int64_t na, int64_t nb)
{
    const q_tree *ta = c->ta, *tb = c->tb;
    double B[Q_LEAF][3][3], bb[Q_LEAF][6];
    const int64_t nbf = tb->node[nb].count;
    for (int64_t j = 0; j < nbf; ++j) q_face_cur(c->sc, tb->perm[tb->node[nb].first + j], B[j]), tri_box(B[j], bb[j]);
    for (int64_t i = ta->node[na].first; i < ta->node[na].first + ta->node[na].count; ++i) {
        double A[3][3], ab[6];
        q_face_cur(c->sc, ta->perm[i], A);
        tri_box(A, ab);
        for (int64_t j = 0; j < nbf; ++j) {
            /* the triangles' own boxes first: a face pair farther apart than the bound cannot win */
            const double bd = q_box_dist(ab, bb[j]);
            if (bd > bound(c) * (1 + 1e-12)) continue;
            double pa[3], pb[3];
            const double d = q_tri_tri_dist_meet(A, B[j], bd == 0, pa, pb); /* boxes apart: no intersection */
            if (c->found ? d < c->best : d <= c->limit) {
                c->found = 1, c->best = d, c->fa = ta->perm[i], c->fb = tb->perm[tb->node[nb].first + j];
                memcpy(c->pa, pa, sizeof pa), memcpy(c->pb, pb, sizeof pb);
                if (d == 0) return;
            }
        }
    }
}

static void descend(dist_ctx *c, int64_t na, int64_t nb, double bd)
{
    if (c->found && c->best == 0) return;
    if (bd > bound(c) * (1 + 1e-12)) return;
    const q_tree *ta = c->ta, *tb = c->tb;
    const int la = ta->node[na].left < 0, lb = tb->node[nb].left < 0;
    if (la && lb) {
        leaves(c, na, nb);
        return;
    }
    const int split_a = !la && (lb || ta->node[na].count >= tb->node[nb].count);
    int64_t x[2], y[2];
    double d[2];
    for (int k = 0; k < 2; ++k) {
        x[k] = split_a ? ta->node[na].left + k : na;
        y[k] = split_a ? nb : tb->node[nb].left + k;
        d[k] = q_box_dist(ta->node[x[k]].box, tb->node[y[k]].box);
    }
    const int first = d[1] < d[0];
    descend(c, x[first], y[first], d[first]);
    descend(c, x[!first], y[!first], d[!first]);
}

int clash_run_distance(clash_run *run, int a, int b, double max_distance, clash_distance *out, clash_error *err)
{
    if (!run) return clash_fail(err, CLASH_EINPUT, "run_distance: the run is NULL");
    if (!out) return clash_fail(err, CLASH_EINPUT, "run_distance: out is NULL");
    if (run->dist) return clash_fail(err, CLASH_EINPUT, "run_distance: not in a decomposed run");
    const clash_scene *sc = run->sc;
    const int ob = a < 0 || a >= sc->nobj ? a : b;
    if (ob < 0 || ob >= sc->nobj)
        return clash_fail(err, CLASH_EINPUT, "run_distance: object %d: no such object (the scene has %d: 0..%d)", ob,
                          sc->nobj, sc->nobj - 1);
    const uint8_t *off = run->filt ? run->filt->off : NULL;
    const int rm = !off ? -1 : off[a] & CLASH_OBJ_REMOVED ? a : off[b] & CLASH_OBJ_REMOVED ? b : -1;
    if (rm >= 0)
        return clash_fail(err, CLASH_EINPUT, "run_distance: object %d was removed (clash_run_remove_object)", rm);
    if (a == b)
        return clash_fail(err, CLASH_EINPUT, "run_distance: objects %d and %d: the distance is between two objects", a,
                          b);
    if (isnan(max_distance) || max_distance < 0)
        return clash_fail(err, CLASH_EINPUT, "run_distance: objects %d and %d: max_distance is %g (a distance >= 0, or "
                                             "INFINITY)", a, b, max_distance);
    q_ensure_current(run->sc);
    const q_tree *ta = clash_query_tree(run, a), *tb = ta ? clash_query_tree(run, b) : NULL;
    if (!ta || !tb) return clash_fail(err, CLASH_EFAIL, "run_distance: out of memory building the objects' trees");
    dist_ctx c = {.sc = sc, .ta = ta, .tb = tb, .limit = max_distance};
    if (ta->nf && tb->nf) descend(&c, 0, 0, q_box_dist(ta->node[0].box, tb->node[0].box));
    clash_distance r = {.distance = INFINITY, .obj_a = (uint32_t)a, .obj_b = (uint32_t)b};
    for (int k = 0; k < 3; ++k) r.pa[k] = r.pb[k] = NAN;
    if (c.found) {
        r.found = 1, r.distance = c.best;
        memcpy(r.pa, c.pa, sizeof r.pa), memcpy(r.pb, c.pb, sizeof r.pb);
        r.face_a = (uint32_t)(clash_face_orig(sc, c.fa) - sc->fofs[a]);
        r.face_b = (uint32_t)(clash_face_orig(sc, c.fb) - sc->fofs[b]);
    }
    *out = r;
    return CLASH_OK;
}
