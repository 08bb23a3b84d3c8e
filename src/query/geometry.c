/*
 * geometry.c — the step's contact geometry (clash_config.geometry, clash.h
 * "Contact geometry"): made by clash_query_step at the end of a step from
 * the step's pairs and contacts (input numbering, S6's and the ccd stage's
 * outputs) and the store's double positions of states s-1 and s, so that
 * later calls that move the current state cannot change it.  Also the run's
 * query state (struct clash_query, query.h) and its life.
 *
 * Positions at a contact's toi follow the points' own motions, as the ccd
 * stage tests them: a vertex of an object that turns during the step (S0's
 * turn: a screw between host poses or a scene file's formula) is placed by
 * the motion's pose at toi (kernels/ccd_motion.h), any other on the
 * straight line between its positions at s-1 and s.
 *
 * One thread, in the order of the pairs and contacts: the result does not
 * depend on the team, the ranks or the schedule.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/sort.h"
#include "core/edges.h"
#include "kernels/ccd_motion.h"
#include "query/query.h"

int q_grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap) return 0;
    void *q = realloc(*p, (n + n / 4 + 16) * size);
    if (!q) return -1;
    *p = q, *cap = n + n / 4 + 16;
    return 0;
}

struct clash_query *clash_query_of(clash_run *run)
{
    if (!run->query) run->query = calloc(1, sizeof *run->query);
    return run->query;
}

void clash_query_free(clash_run *run)
{
    struct clash_query *q = run->query;
    if (!q) return;
    free(q->pg), free(q->cg), free(q->opairs), free(q->prox);
    for (int o = 0; o < q->ntrees; ++o) {
        q_tree *t = &q->trees[o];
        free(t->node), free(t->perm);
    }
    free(q->trees);
    free(q);
    run->query = NULL;
}

static inline double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline void sub3(const double a[3], const double b[3], double o[3])
{
    o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2];
}
static inline void cross3(const double a[3], const double b[3], double o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}
/* v / |v|; 0 with v unchanged when |v| is 0. */
static int unit3(double v[3])
{
    const double n = sqrt(dot3(v, v));
    if (!(n > 0)) return 0;
    v[0] /= n, v[1] /= n, v[2] /= n;
    return 1;
}

/* ---- pairs ------------------------------------------------------------------------------ */

static void face_of(const clash_scene *sc, uint32_t obj, uint32_t face, double T[3][3])
{
    q_face_cur(sc, clash_face_store(sc, sc->fofs[obj] + face), T);
}

/* Penetration of one face pair (clash.h, clash_object_pair): the lesser of the
 * two triangles' deepest corners behind the other's plane; 0 for a degenerate one. */
static double pair_depth(const double A[3][3], const double B[3][3])
{
    double depth[2] = {0, 0};
    for (int side = 0; side < 2; ++side) {
        const double(*P)[3] = side ? B : A, (*Q)[3] = side ? A : B;
        double e1[3], e2[3], n[3], r[3];
        sub3(Q[1], Q[0], e1), sub3(Q[2], Q[0], e2), cross3(e1, e2, n);
        if (!unit3(n)) return 0;
        for (int i = 0; i < 3; ++i) {
            sub3(P[i], Q[0], r);
            const double d = -dot3(n, r);
            if (d > depth[side]) depth[side] = d;
        }
    }
    return depth[0] < depth[1] ? depth[0] : depth[1];
}

static int pair_geometry(clash_run *run, struct clash_query *q)
{
    const clash_scene *sc = run->sc;
    q->npg = 0;
    if (q_grow((void **)&q->pg, &q->cap_pg, run->npairs, sizeof *q->pg)) return -1;
    for (size_t i = 0; i < run->npairs; ++i) {
        const clash_pair *p = &run->pairs[i];
        double A[3][3], B[3][3];
        face_of(sc, p->obj_a, p->face_a, A), face_of(sc, p->obj_b, p->face_b, B);
        clash_pair_geom *g = &q->pg[q->npg++];
        memset(g, 0, sizeof *g);
        g->status = q_tri_tri_segment(A, B, g->p, g->q);
        if (g->status != 1)
            for (int k = 0; k < 3; ++k) g->p[k] = g->q[k] = NAN;
    }
    return 0;
}

/* ---- contacts ------------------------------------------------------------------------- */

/* The motions of the objects that turn in this step (as the ccd stage makes them). */
typedef struct motions {
    int *of;      /* per object: index into m, -1 for straight lines */
    ck_rigid *m;
} motions;

static int make_motions(const clash_scene *sc, motions *M)
{
    M->of = malloc(((size_t)sc->nobj + 1) * sizeof *M->of);
    M->m = malloc(((size_t)sc->nturning + 1) * sizeof *M->m);
    if (!M->of || !M->m) return -1;
    int n = 0;
    for (int o = 0; o < sc->nobj; ++o) {
        const clash_turn *tu = &sc->turn[o];
        const double radius = sc->mesh[sc->obj_mesh[o]].radius, scale = sc->obj_scale[o];
        M->of[o] = -1;
        if (!sc->nturning || n >= sc->nturning) continue;
        if (tu->kind == CLASH_TURN_CHORD) {
            ck_rigid_screw(&M->m[n], sc->prev[o].R, sc->prev[o].t, sc->cur[o].R, sc->cur[o].t, scale, radius);
        } else if (tu->kind == CLASH_TURN_RADIUS) {
            const clash_pose *p = &sc->pose[o];
            ck_rigid_euler(&M->m[n], p->rotation_deg, p->angular_velocity_deg, p->position, p->velocity, scale,
                           sc->state, radius);
        } else {
            continue;
        }
        M->of[o] = n++;
    }
    return 0;
}

/* Store vertex v of object o at time tau of the step. */
static void at(const clash_scene *sc, const motions *M, int o, int64_t v, double tau, double out[3])
{
    if (M->of[o] >= 0) {
        double R[9], t[3], l[3];
        ck_rigid_pose(&M->m[M->of[o]], tau, R, t);
        q_local(sc, v, l);
        ck_rigid_place(R, sc->obj_scale[o], t, l, out);
        return;
    }
    double a[3], b[3];
    q_prev(sc, v, a), q_cur(sc, v, b);
    for (int k = 0; k < 3; ++k) out[k] = tau == 1 ? b[k] : a[k] + tau * (b[k] - a[k]);
}

static void contact_vf(const clash_scene *sc, const motions *M, const clash_contact *c, clash_contact_geom *g)
{
    const int64_t v = clash_vert_store(sc, sc->vofs[c->obj_a] + c->id_a);
    const int64_t f = clash_face_store(sc, sc->fofs[c->obj_b] + c->id_b);
    int64_t fv[3];
    q_face_verts(sc, f, fv);
    double T[3][3], T0[3][3], p0[3], e1[3], e2[3], n[3], n0[3], r[3];
    for (int j = 0; j < 3; ++j)
        at(sc, M, (int)c->obj_b, fv[j], c->toi, T[j]), at(sc, M, (int)c->obj_b, fv[j], 0, T0[j]);
    at(sc, M, (int)c->obj_a, v, c->toi, g->pa), at(sc, M, (int)c->obj_a, v, 0, p0);
    q_point_tri(g->pa, T[0], T[1], T[2], g->pb, g->w);
    sub3(T[1], T[0], e1), sub3(T[2], T[0], e2), cross3(e1, e2, n);
    unit3(n);
    sub3(T0[1], T0[0], e1), sub3(T0[2], T0[0], e2), cross3(e1, e2, n0);
    sub3(p0, T0[0], r);
    double side = dot3(n0, r) * dot3(n0, n); /* > 0: the vertex was on n's side at t = 0 */
    if (side == 0) sub3(g->pa, T[0], r), side = dot3(n, r);
    if (side < 0) n[0] = -n[0], n[1] = -n[1], n[2] = -n[2];
    memcpy(g->normal, n, sizeof n);
}

static void contact_ee(const clash_run *run, const motions *M, const clash_contact *c, clash_contact_geom *g)
{
    const clash_scene *sc = run->sc;
    const clash_edges *E = run->edges;
    const int64_t ea = E->eofs[c->obj_a] + c->id_a, eb = E->eofs[c->obj_b] + c->id_b;
    double a0[3], a1[3], b0[3], b1[3], s, t;
    at(sc, M, (int)c->obj_a, E->ev0[ea], c->toi, a0), at(sc, M, (int)c->obj_a, E->ev1[ea], c->toi, a1);
    at(sc, M, (int)c->obj_b, E->ev0[eb], c->toi, b0), at(sc, M, (int)c->obj_b, E->ev1[eb], c->toi, b1);
    q_seg_seg(a0, a1, b0, b1, &s, &t, g->pa, g->pb);
    g->w[0] = s, g->w[1] = t, g->w[2] = 0;
    double da[3], db[3], n[3], d0[3];
    sub3(a1, a0, da), sub3(b1, b0, db), cross3(da, db, n);
    /* from b to a at t = 0: the same edge parameters on the edges' positions then */
    at(sc, M, (int)c->obj_a, E->ev0[ea], 0, a0), at(sc, M, (int)c->obj_a, E->ev1[ea], 0, a1);
    at(sc, M, (int)c->obj_b, E->ev0[eb], 0, b0), at(sc, M, (int)c->obj_b, E->ev1[eb], 0, b1);
    for (int k = 0; k < 3; ++k) d0[k] = (a0[k] + s * (a1[k] - a0[k])) - (b0[k] + t * (b1[k] - b0[k]));
    if (!unit3(n)) {
        sub3(g->pa, g->pb, n);
        if (!unit3(n)) {
            memcpy(n, d0, sizeof n);
            if (!unit3(n)) n[0] = n[1] = n[2] = 0;
        }
    }
    if (dot3(n, d0) < 0) n[0] = -n[0], n[1] = -n[1], n[2] = -n[2];
    memcpy(g->normal, n, sizeof n);
}

static int contact_geometry(clash_run *run, struct clash_query *q)
{
    const clash_scene *sc = run->sc;
    q->ncg = 0;
    if (!run->ncontacts) return 0;
    if (q_grow((void **)&q->cg, &q->cap_cg, run->ncontacts, sizeof *q->cg)) return -1;
    motions M = {0};
    if (make_motions(sc, &M)) {
        free(M.of), free(M.m);
        return -1;
    }
    for (size_t i = 0; i < run->ncontacts; ++i) {
        const clash_contact *c = &run->contacts[i];
        clash_contact_geom *g = &q->cg[q->ncg++];
        memset(g, 0, sizeof *g);
        if (c->kind == CLASH_CONTACT_VF) contact_vf(sc, &M, c, g);
        else contact_ee(run, &M, c, g);
        double d[3];
        sub3(g->pa, g->pb, d);
        g->distance = sqrt(dot3(d, d));
        for (int k = 0; k < 3; ++k) g->point[k] = 0.5 * (g->pa[k] + g->pb[k]);
    }
    free(M.of), free(M.m);
    return 0;
}

/* ---- object pairs ----------------------------------------------------------------------- */

static uint64_t okey(uint32_t a, uint32_t b) { return a <= b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a; }

static int64_t find(const uint64_t *k, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t m = (lo + hi) / 2;
        if (k[m] < key) lo = m + 1;
        else hi = m;
    }
    return lo < n && k[lo] == key ? (int64_t)lo : -1;
}

static int object_pairs(clash_run *run, struct clash_query *q)
{
    const clash_scene *sc = run->sc;
    const size_t n = run->npairs + run->ncontacts;
    q->nop = 0;
    if (!n) return 0;
    uint64_t *k = malloc(n * sizeof *k);
    if (!k) return -1;
    for (size_t i = 0; i < run->npairs; ++i) k[i] = okey(run->pairs[i].obj_a, run->pairs[i].obj_b);
    for (size_t i = 0; i < run->ncontacts; ++i)
        k[run->npairs + i] = okey(run->contacts[i].obj_a, run->contacts[i].obj_b);
    const size_t m = clash_sort_unique_u64(k, n);
    if (m == (size_t)-1 || q_grow((void **)&q->opairs, &q->cap_op, m, sizeof *q->opairs)) {
        free(k);
        return -1;
    }
    for (size_t j = 0; j < m; ++j)
        q->opairs[j] = (clash_object_pair){.obj_a = (uint32_t)(k[j] >> 32), .obj_b = (uint32_t)k[j], .first_toi = -1};
    for (size_t i = 0; i < run->npairs; ++i) {
        const clash_pair *p = &run->pairs[i];
        clash_object_pair *o = &q->opairs[find(k, m, okey(p->obj_a, p->obj_b))];
        o->face_pairs++;
        if (q->pg[i].status != 1) continue;
        double A[3][3], B[3][3];
        face_of(sc, p->obj_a, p->face_a, A), face_of(sc, p->obj_b, p->face_b, B);
        const double d = pair_depth(A, B);
        if (d > o->penetration) o->penetration = d;
    }
    for (size_t i = 0; i < run->ncontacts; ++i) {
        const clash_contact *c = &run->contacts[i];
        clash_object_pair *o = &q->opairs[find(k, m, okey(c->obj_a, c->obj_b))];
        o->contacts++;
        if (o->first_toi < 0 || c->toi < o->first_toi) o->first_toi = c->toi;
    }
    q->nop = m;
    free(k);
    return 0;
}

int clash_query_step(clash_run *run, clash_error *err)
{
    struct clash_query *q = clash_query_of(run);
    if (!q || pair_geometry(run, q) || contact_geometry(run, q) || object_pairs(run, q)) {
        if (q) q->npg = q->ncg = q->nop = 0;
        return clash_fail(err, CLASH_EFAIL, "out of memory making the step's contact geometry");
    }
    return CLASH_OK;
}

/* ---- the public calls ------------------------------------------------------------------- */

static int geometry_args(clash_run *run, const void *out, const size_t *count, const char *call, int need_ccd,
                         clash_error *err)
{
    if (!run || !out || !count)
        return clash_fail(err, CLASH_EINPUT, "%s: the %s is NULL", call, !run ? "run" : !out ? "output" : "count");
    if (run->dist) return clash_fail(err, CLASH_EINPUT, "%s: not in a decomposed run", call);
    if (!run->cfg.geometry)
        return clash_fail(err, CLASH_EINPUT, "%s: the run was created without geometry (set clash_config.geometry)",
                          call);
    if (need_ccd && !run->cfg.ccd)
        return clash_fail(err, CLASH_EINPUT, "%s: the run was created without ccd (set clash_config.ccd, swept mode)",
                          call);
    return CLASH_OK;
}

int clash_run_pair_geometry(clash_run *run, const clash_pair_geom **out, size_t *count, clash_error *err)
{
    if (out) *out = NULL;
    if (count) *count = 0;
    int rc = geometry_args(run, out, count, "run_pair_geometry", 0, err);
    if (rc) return rc;
    if (run->query) *out = run->query->pg, *count = run->query->npg;
    return CLASH_OK;
}

int clash_run_contact_geometry(clash_run *run, const clash_contact_geom **out, size_t *count, clash_error *err)
{
    if (out) *out = NULL;
    if (count) *count = 0;
    int rc = geometry_args(run, out, count, "run_contact_geometry", 1, err);
    if (rc) return rc;
    if (run->query) *out = run->query->cg, *count = run->query->ncg;
    return CLASH_OK;
}

int clash_run_object_pairs(clash_run *run, const clash_object_pair **out, size_t *count, clash_error *err)
{
    if (out) *out = NULL;
    if (count) *count = 0;
    int rc = geometry_args(run, out, count, "run_object_pairs", 0, err);
    if (rc) return rc;
    if (run->query) *out = run->query->opairs, *count = run->query->nop;
    return CLASH_OK;
}
