/*
 * proximity.c — every vertex-face and edge-edge pair within dhat in the
 * current state (clash_run_proximity, clash.h), the candidate set of barrier
 * methods.
 *
 * Objects: every pair of objects whose trees' root boxes (distance.c) lie
 * within dhat, and each object with itself when the run has self_collision.
 * Faces: a dual descent of the two trees (one tree against itself for a
 * self pair: each node with itself and its two children with each other)
 * keeps the leaf pairs whose boxes lie within dhat, plus a relative margin
 * of 1e-12 so that rounding cannot cut a pair the exact test keeps.  Each
 * face pair gives its primitive pairs as keys in input numbering, as the ccd
 * stage makes them (stages/ccd.c; the global edge ids of core/edges.h):
 *   vf: global input vertex << 32 | global input face  (each corner of either
 *       face against the other face)
 *   ee: global edge a << 32 | global edge b, a < b
 * without pairs whose primitives share a vertex; the keys are sorted and
 * de-duplicated, then each pair's distance is measured once, in double
 * (q_point_tri, q_seg_seg), and kept when it is at most dhat.  Sorted keys
 * are the output order, so the result depends on the positions only.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/sort.h"
#include "core/edges.h"
#include "query/query.h"

typedef struct keys {
    uint64_t *v;
    size_t n, cap;
} keys;

static int push(keys *k, uint64_t key)
{
    if (q_grow((void **)&k->v, &k->cap, k->n + 1, sizeof *k->v)) return -1;
    k->v[k->n++] = key;
    return 0;
}

typedef struct prox_ctx {
    clash_run *run;
    const clash_scene *sc;
    const clash_edges *E;
    const q_tree *ta, *tb;
    double reach;          /* dhat with the margin */
    keys vf, ee;
    int oom;
} prox_ctx;

/* Face fv against store face f: each corner of fv not a corner of f. */
static void vf_keys(prox_ctx *c, const int64_t fv[3], int64_t f)
{
    const clash_scene *sc = c->sc;
    int64_t g[3];
    q_face_verts(sc, f, g);
    const uint64_t face = (uint64_t)clash_face_orig(sc, f);
    for (int i = 0; i < 3; ++i) {
        if (fv[i] == g[0] || fv[i] == g[1] || fv[i] == g[2]) continue;
        c->oom |= push(&c->vf, (uint64_t)clash_vert_orig(sc, fv[i]) << 32 | face);
    }
}

static void face_pair(prox_ctx *c, int64_t fa, int64_t fb)
{
    int64_t va[3], vb[3];
    q_face_verts(c->sc, fa, va), q_face_verts(c->sc, fb, vb);
    vf_keys(c, va, fb), vf_keys(c, vb, fa);
    const clash_edges *E = c->E;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const uint32_t a = E->fe[3 * fa + i], b = E->fe[3 * fb + j];
            if (a == CLASH_NO_EDGE || b == CLASH_NO_EDGE || a == b) continue;
            if (E->ev0[a] == E->ev0[b] || E->ev0[a] == E->ev1[b] || E->ev1[a] == E->ev0[b] || E->ev1[a] == E->ev1[b])
                continue;
            c->oom |= push(&c->ee, a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a);
        }
}

/* The box of store face f (6 doubles, as the tree's). */
static void face_box(const clash_scene *sc, int64_t f, double *B)
{
    double T[3][3];
    q_face_cur(sc, f, T);
    for (int k = 0; k < 3; ++k) {
        B[k] = fmin(fmin(T[0][k], T[1][k]), T[2][k]);
        B[3 + k] = fmax(fmax(T[0][k], T[1][k]), T[2][k]);
    }
}

/* A leaf pair's face pairs whose own boxes lie within reach. */
static void leaves(prox_ctx *c, int64_t na, int64_t nb, int self)
{
    const q_tree *ta = c->ta, *tb = c->tb;
    double bb[64][6]; /* a leaf holds a few faces (distance.c's Q_LEAF) */
    const int64_t nbf = tb->node[nb].count < 64 ? tb->node[nb].count : 64;
    for (int64_t j = 0; j < nbf; ++j) face_box(c->sc, tb->perm[tb->node[nb].first + j], bb[j]);
    for (int64_t i = ta->node[na].first; i < ta->node[na].first + ta->node[na].count; ++i) {
        double ab[6];
        face_box(c->sc, ta->perm[i], ab);
        for (int64_t j = self ? i - ta->node[na].first + 1 : 0; j < tb->node[nb].count; ++j)
            if (j >= nbf || q_box_dist(ab, bb[j]) <= c->reach) face_pair(c, ta->perm[i], tb->perm[tb->node[nb].first + j]);
    }
}

/* Node na of ta against node nb of tb; self: the same node of one tree. */
static void descend(prox_ctx *c, int64_t na, int64_t nb, int self)
{
    const q_tree *ta = c->ta, *tb = c->tb;
    if (!self && q_box_dist(ta->node[na].box, tb->node[nb].box) > c->reach) return;
    const int la = ta->node[na].left < 0, lb = tb->node[nb].left < 0;
    if (la && lb) {
        leaves(c, na, nb, self);
        return;
    }
    if (self) {
        const int64_t l = ta->node[na].left;
        descend(c, l, l, 1), descend(c, l + 1, l + 1, 1), descend(c, l, l + 1, 0);
        return;
    }
    const int split_a = !la && (lb || ta->node[na].count >= tb->node[nb].count);
    for (int k = 0; k < 2; ++k) descend(c, split_a ? ta->node[na].left + k : na, split_a ? nb : tb->node[nb].left + k, 0);
}

static int check_dhat(double dhat, clash_error *err)
{
    if (isnan(dhat) || dhat < 0 || isinf(dhat))
        return clash_fail(err, CLASH_EINPUT, "run_proximity: dhat is %g (a finite distance >= 0)", dhat);
    return CLASH_OK;
}

/* The keys' pairs within dhat, measured, into q->prox. */
static int measure(prox_ctx *c, struct clash_query *q, double dhat)
{
    const clash_scene *sc = c->sc;
    const clash_edges *E = c->E;
    const size_t nvf = clash_sort_unique_u64(c->vf.v, c->vf.n), nee = clash_sort_unique_u64(c->ee.v, c->ee.n);
    if (nvf == (size_t)-1 || nee == (size_t)-1) return -1;
    q->nprox = 0;
    if (q_grow((void **)&q->prox, &q->cap_prox, nvf + nee, sizeof *q->prox)) return -1;
    for (size_t i = 0; i < nvf; ++i) {
        const uint64_t k = c->vf.v[i];
        const int64_t v = (int64_t)(k >> 32), f = (int64_t)(k & 0xffffffffu);
        double p[3], T[3][3], cp[3], w[3];
        q_cur(sc, clash_vert_store(sc, v), p), q_face_cur(sc, clash_face_store(sc, f), T);
        const double d = sqrt(q_point_tri(p, T[0], T[1], T[2], cp, w));
        if (!(d <= dhat)) continue;
        const int oa = clash_object_of(sc->vofs, sc->nobj, v), ob = clash_object_of(sc->fofs, sc->nobj, f);
        q->prox[q->nprox++] = (clash_proximity){.kind = CLASH_CONTACT_VF, .obj_a = (uint32_t)oa,
                                                .id_a = (uint32_t)(v - sc->vofs[oa]), .obj_b = (uint32_t)ob,
                                                .id_b = (uint32_t)(f - sc->fofs[ob]), .distance = d};
    }
    for (size_t i = 0; i < nee; ++i) {
        const uint32_t a = (uint32_t)(c->ee.v[i] >> 32), b = (uint32_t)c->ee.v[i];
        double a0[3], a1[3], b0[3], b1[3], s, t, c1[3], c2[3];
        q_cur(sc, E->ev0[a], a0), q_cur(sc, E->ev1[a], a1), q_cur(sc, E->ev0[b], b0), q_cur(sc, E->ev1[b], b1);
        const double d = sqrt(q_seg_seg(a0, a1, b0, b1, &s, &t, c1, c2));
        if (!(d <= dhat)) continue;
        const int oa = clash_edges_object(E, a), ob = clash_edges_object(E, b);
        q->prox[q->nprox++] = (clash_proximity){.kind = CLASH_CONTACT_EE, .obj_a = (uint32_t)oa,
                                                .id_a = (uint32_t)(a - E->eofs[oa]), .obj_b = (uint32_t)ob,
                                                .id_b = (uint32_t)(b - E->eofs[ob]), .distance = d};
    }
    return 0;
}

int clash_run_proximity(clash_run *run, double dhat, const clash_proximity **out, size_t *count, clash_error *err)
{
    if (out) *out = NULL;
    if (count) *count = 0;
    if (!run || !out || !count)
        return clash_fail(err, CLASH_EINPUT, "run_proximity: the %s is NULL", !run ? "run" : !out ? "output" : "count");
    if (run->dist) return clash_fail(err, CLASH_EINPUT, "run_proximity: not in a decomposed run");
    int rc = check_dhat(dhat, err);
    if (rc) return rc;
    q_ensure_current(run->sc);
    const clash_scene *sc = run->sc;
    struct clash_query *q = clash_query_of(run);
    if (!q) return clash_fail(err, CLASH_EFAIL, "run_proximity: out of memory");
    /* the run's edge table (the one --ccd uses), made now if no ccd step made it */
    if (clash_edges_update(&run->edges, sc, &run->exec)) /* (extended to objects added since) */
        return clash_fail(err, CLASH_EFAIL, "run_proximity: out of memory building the edge tables");
    prox_ctx c = {.run = run, .sc = sc, .E = run->edges, .reach = dhat * (1 + 1e-12)};
    for (int a = 0; a < sc->nobj && !c.oom; ++a) {
        const q_tree *ta = clash_query_tree(run, a);
        if (!ta) c.oom = 1;
        if (c.oom || !ta->nf) continue;
        for (int b = a; b < sc->nobj && !c.oom; ++b) {
            /* the host's filters (run_objects.c) as the step applies them */
            if (b == a ? !clash_obj_self(run, a) : run->filt && !clash_filt_keep(run->filt, a, b)) continue;
            const q_tree *tb = clash_query_tree(run, b);
            if (!tb) {
                c.oom = 1;
                break;
            }
            if (!tb->nf) continue;
            c.ta = ta, c.tb = tb;
            descend(&c, 0, 0, a == b);
        }
    }
    if (c.oom || measure(&c, q, dhat)) {
        free(c.vf.v), free(c.ee.v);
        q->nprox = 0;
        return clash_fail(err, CLASH_EFAIL, "run_proximity: out of memory");
    }
    free(c.vf.v), free(c.ee.v);
    *out = q->prox, *count = q->nprox;
    return CLASH_OK;
}
