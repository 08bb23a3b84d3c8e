/*
 * scene_add.c — the one way objects enter the store: meshes from arrays
 * (clash_scene_add_mesh) and objects made of them (clash_scene_add_object),
 * used by host programs through the public API and by the scene-file and
 * preset builder (io/scene_build.c) alike.
 *
 * A mesh is kept in the scene (double xyz as given, int32 triangles) so that
 * objects can be made of it at any time.  An object gets its own copy of the
 * mesh's vertices in the store's local-frame arrays dlx/dly/dlz (and their
 * float32 roundings lx/ly/lz, for culling) and of its triangles
 * (as global vertex indices) in f0/f1/f2; its vertex and face ranges follow
 * the ones before it, so every object owns a contiguous range and its
 * vertices and faces keep the mesh's order.  State 0 of the object is the
 * pose it is added with, world = R * (scale * local) + t (scale is 1 for
 * objects from memory: a scale belongs in the mesh; scene files have one per
 * object).
 *
 * Checks come before any change (clash.h: a refused call changes nothing): every
 * coordinate finite and inside float range, every index inside the mesh,
 * the three corners of every triangle distinct vertices (for meshes from
 * files and generators too: a repeated index is refused, naming the face;
 * triangles of three distinct vertices with zero area are kept), counts
 * positive, the rotation a rotation (rows orthonormal within 1e-6,
 * determinant +1).  A refused call leaves the scene exactly as it was: the
 * store grows (scene.c) before anything is copied, and growth itself either
 * succeeds for every array or changes nothing.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "kernels/kernels.h"
#include "store/scene.h"

static const double float_limit = CLASH_COORD_LIMIT;

static const char axis_name[3] = {'x', 'y', 'z'};

/* "nan", "inf", or NULL for a usable coordinate. */
static const char *bad_coordinate(double c)
{
    if (isnan(c)) return "nan";
    if (isinf(c)) return c > 0 ? "inf" : "-inf";
    if (fabs(c) > float_limit) return "out of float range";
    return NULL;
}

/* Checks 3*nv coordinates; "WHAT: vertex V: x is nan" on failure. */
int clash_check_coordinates(const double *xyz, int64_t nv, const char *what, clash_error *err)
{
    for (int64_t i = 0; i < 3 * nv; ++i) {
        const char *bad = bad_coordinate(xyz[i]);
        if (bad)
            return clash_fail(err, CLASH_EINPUT, "%s: vertex %lld: %c is %s (%g)", what, (long long)(i / 3),
                              axis_name[i % 3], bad, xyz[i]);
    }
    return CLASH_OK;
}

int clash_check_rotation(const double rot[9], const char *what, clash_error *err)
{
    if (!rot) return CLASH_OK;
    for (int i = 0; i < 9; ++i)
        if (!isfinite(rot[i]))
            return clash_fail(err, CLASH_EINPUT, "%s: rot[%d] (row %d, column %d) is %s", what, i, i / 3, i % 3,
                              isnan(rot[i]) ? "nan" : "infinite");
    for (int a = 0; a < 3; ++a)
        for (int b = a; b < 3; ++b) {
            const double d = rot[3 * a] * rot[3 * b] + rot[3 * a + 1] * rot[3 * b + 1] + rot[3 * a + 2] * rot[3 * b + 2];
            const double want = a == b ? 1.0 : 0.0;
            if (!(fabs(d - want) <= 1e-6))
                return clash_fail(err, CLASH_EINPUT,
                                  "%s: rot is not a rotation: row %d . row %d = %.9g, must be %g within 1e-6 "
                                  "(a scale belongs in the mesh)", what, a, b, d, want);
        }
    const double det = rot[0] * (rot[4] * rot[8] - rot[5] * rot[7]) - rot[1] * (rot[3] * rot[8] - rot[5] * rot[6]) +
                       rot[2] * (rot[3] * rot[7] - rot[4] * rot[6]);
    if (!(det > 0))
        return clash_fail(err, CLASH_EINPUT, "%s: rot is not a rotation: determinant %.9g (a reflection), must be +1",
                          what, det);
    return CLASH_OK;
}

int clash_check_translation(const double trans[3], double radius, const char *what, clash_error *err)
{
    for (int d = 0; trans && d < 3; ++d) {
        const char *bad = bad_coordinate(trans[d]);
        if (bad) return clash_fail(err, CLASH_EINPUT, "%s: trans[%d] (%c) is %s (%g)", what, d, axis_name[d], bad, trans[d]);
        if (!(fabs(trans[d]) + radius <= float_limit)) /* the object's vertices reach this far from the origin */
            return clash_fail(err, CLASH_EINPUT,
                              "%s: trans[%d] (%c) is %g: with the mesh's radius %g the object reaches %g, out of "
                              "float range (at most %g)", what, d, axis_name[d], trans[d], radius,
                              fabs(trans[d]) + radius, float_limit);
    }
    return CLASH_OK;
}

/* ---- meshes ---------------------------------------------------------------------------- */

int64_t clash_repeated_corner(const int32_t *tri, int64_t nf)
{
    for (int64_t f = 0; f < nf; ++f) {
        const int32_t *t = tri + 3 * f;
        if (t[0] == t[1] || t[0] == t[2]) return 3 * f;
        if (t[1] == t[2]) return 3 * f + 1;
    }
    return -1;
}

int clash_store_add_mesh(clash_scene *sc, const double *xyz, int64_t nv, const int32_t *tri, int64_t nf,
                         const char *label, clash_error *err)
{
    if (sc->nmesh == INT32_MAX) return -clash_fail(err, CLASH_EINPUT, "%s: too many meshes", label);
    if (sc->nmesh == sc->cap_mesh) {
        const int cap = sc->cap_mesh ? 2 * sc->cap_mesh : 8;
        clash_store_mesh *m = realloc(sc->mesh, (size_t)cap * sizeof *m);
        if (!m) return -clash_fail(err, CLASH_EFAIL, "%s: out of memory", label);
        sc->mesh = m, sc->cap_mesh = cap;
    }
    const int64_t bad = clash_repeated_corner(tri, nf);
    if (bad >= 0)
        return -clash_fail(err, CLASH_EINPUT, "%s: face %lld: repeated vertex index %d (a triangle needs three "
                           "distinct vertices)", label, (long long)(bad / 3), tri[bad]);
    clash_store_mesh m = {.nv = nv, .nf = nf};
    m.xyz = malloc(3 * (size_t)(nv ? nv : 1) * sizeof(double));
    m.tri = malloc(3 * (size_t)(nf ? nf : 1) * sizeof(int32_t));
    if (!m.xyz || !m.tri) {
        free(m.xyz), free(m.tri);
        return -clash_fail(err, CLASH_EFAIL, "%s: out of memory for %lld vertices", label, (long long)nv);
    }
    memcpy(m.xyz, xyz, 3 * (size_t)nv * sizeof(double));
    double r2 = 0; /* the radius, from the double coordinates (and their float roundings), rounded up */
    for (int64_t v = 0; v < nv; ++v) {
        const double a = m.xyz[3 * v], b = m.xyz[3 * v + 1], c = m.xyz[3 * v + 2];
        const double fa = (float)a, fb = (float)b, fc = (float)c;
        r2 = fmax(r2, fmax(a * a + b * b + c * c, fa * fa + fb * fb + fc * fc));
    }
    m.radius = sqrt(r2) * (1 + 1e-12);
    memcpy(m.tri, tri, 3 * (size_t)nf * sizeof(int32_t));
    sc->mesh[sc->nmesh] = m;
    clash_store_recount(sc);
    return sc->nmesh++;
}

int clash_scene_add_mesh(clash_scene *sc, const double *xyz, int64_t nv, const int32_t *tri, int64_t nf,
                         clash_error *err)
{
    char what[48];
    if (!sc) return -clash_fail(err, CLASH_EINPUT, "add_mesh: the scene is NULL");
    snprintf(what, sizeof what, "mesh %d", sc->nmesh); /* (a run may be using the scene: meshes are kept apart) */
    if (nv <= 0) return -clash_fail(err, CLASH_EINPUT, "%s: nv = %lld: a mesh needs at least one vertex", what, (long long)nv);
    if (nf <= 0) return -clash_fail(err, CLASH_EINPUT, "%s: nf = %lld: a mesh needs at least one triangle", what, (long long)nf);
    if (nv > INT32_MAX || nf > INT32_MAX)
        return -clash_fail(err, CLASH_EINPUT, "%s: %lld vertices and %lld triangles: too large (at most %d each)", what,
                           (long long)nv, (long long)nf, INT32_MAX);
    if (!xyz || !tri) return -clash_fail(err, CLASH_EINPUT, "%s: %s is NULL", what, !xyz ? "xyz" : "tri");
    int rc = clash_check_coordinates(xyz, nv, what, err);
    if (rc) return -rc;
    for (int64_t i = 0; i < 3 * nf; ++i)
        if (tri[i] < 0 || tri[i] >= nv)
            return -clash_fail(err, CLASH_EINPUT, "%s: triangle %lld: corner %d is vertex %d, out of range 0..%lld", what,
                               (long long)(i / 3), (int)(i % 3), tri[i], (long long)nv - 1);
    return clash_store_add_mesh(sc, xyz, nv, tri, nf, what, err);
}

/* ---- objects --------------------------------------------------------------------------- */

/* Grows n to at least need, doubling. */
static int64_t grow_to(int64_t cap, int64_t need, int64_t least)
{
    int64_t c = cap > least ? cap : least;
    while (c < need) c *= 2;
    return c;
}

/* The reordering maps (reorder.c) extended by identity over the new ranges;
 * -1 when out of memory (maps that did grow keep their contents). */
static int extend_maps(clash_scene *sc, int64_t nv, int64_t nf)
{
    uint32_t **fm[] = {&sc->face_orig, &sc->face_store}, **vm[] = {&sc->vert_orig, &sc->vert_store};
    for (int i = 0; i < 2; ++i) {
        uint32_t *p = realloc(*fm[i], (size_t)nf * sizeof(uint32_t));
        if (!p) return -1;
        *fm[i] = p;
        p = realloc(*vm[i], (size_t)nv * sizeof(uint32_t));
        if (!p) return -1;
        *vm[i] = p;
    }
    for (int64_t f = sc->nf; f < nf; ++f) sc->face_orig[f] = sc->face_store[f] = (uint32_t)f;
    for (int64_t v = sc->nv; v < nv; ++v) sc->vert_orig[v] = sc->vert_store[v] = (uint32_t)v;
    return 0;
}

int clash_store_add_object(clash_scene *sc, int mesh, const clash_xform *x0, double scale, int deforming,
                           clash_error *err)
{
    const clash_store_mesh *m = &sc->mesh[mesh];
    const int o = sc->nobj;
    const int64_t nv = sc->nv + m->nv, nf = sc->nf + m->nf;
    if (o == INT32_MAX - 1 || nv > INT32_MAX || nf > INT32_MAX)
        return -clash_fail(err, CLASH_EINPUT, "object %d: the scene would hold %lld vertices and %lld faces: too large",
                           o, (long long)nv, (long long)nf);
    if (clash_store_reserve(sc, (int)grow_to(sc->cap_obj, o + 1, 8), grow_to(sc->cap_v, nv, 64),
                            grow_to(sc->cap_f, nf, 64)))
        return -clash_fail(err, CLASH_EFAIL, "object %d: out of memory for the scene store", o);
    if (deforming && !sc->has_deforming) {
        double *n[3];
        for (int i = 0; i < 3; ++i) n[i] = clash_aligned_calloc((size_t)sc->cap_v, sizeof(double));
        if (!n[0] || !n[1] || !n[2]) {
            free(n[0]), free(n[1]), free(n[2]);
            return -clash_fail(err, CLASH_EFAIL, "object %d: out of memory for the scene store", o);
        }
        sc->nx = n[0], sc->ny = n[1], sc->nz = n[2];
        sc->has_deforming = 1;
    }
    if (sc->face_orig && extend_maps(sc, nv, nf))
        return -clash_fail(err, CLASH_EFAIL, "object %d: out of memory for the scene store", o);
    /* nothing can fail from here on */
    const int64_t v0 = sc->nv, f0 = sc->nf;
    for (int64_t v = 0; v < m->nv; ++v) {
        sc->dlx[v0 + v] = m->xyz[3 * v + 0], sc->lx[v0 + v] = (float)m->xyz[3 * v + 0];
        sc->dly[v0 + v] = m->xyz[3 * v + 1], sc->ly[v0 + v] = (float)m->xyz[3 * v + 1];
        sc->dlz[v0 + v] = m->xyz[3 * v + 2], sc->lz[v0 + v] = (float)m->xyz[3 * v + 2];
    }
    for (int64_t f = 0; f < m->nf; ++f) {
        sc->f0[f0 + f] = (int32_t)(v0 + m->tri[3 * f + 0]);
        sc->f1[f0 + f] = (int32_t)(v0 + m->tri[3 * f + 1]);
        sc->f2[f0 + f] = (int32_t)(v0 + m->tri[3 * f + 2]);
    }
    sc->vofs[o + 1] = nv;
    sc->fofs[o + 1] = nf;
    sc->obj_mesh[o] = mesh;
    sc->obj_deforming[o] = deforming != 0;
    sc->obj_scale[o] = scale;
    sc->pose0[o] = *x0;
    sc->cur[o] = *x0;
    sc->prev[o] = *x0;
    sc->next[o] = *x0;
    sc->next_kind[o] = CLASH_NEXT_NONE;
    sc->turn[o] = (clash_turn){.kind = CLASH_TURN_NONE};
    sc->law[o] = CLASH_LAW_NONE;
    if (sc->pose) memset(&sc->pose[o], 0, sizeof sc->pose[o]);
    if (sc->state >= 0) { /* a scene that has run already: the new object is in state 0, now and before */
        const double *const L[3] = {sc->dlx, sc->dly, sc->dlz};
        double *const W[3] = {sc->dx, sc->dy, sc->dz};
        float *const F[3] = {sc->x, sc->y, sc->z};
        ck_transform_d(v0, nv, 1, x0->R, scale, x0->t, L, W, F);
        memcpy(sc->px + v0, sc->x + v0, (size_t)m->nv * sizeof(float));
        memcpy(sc->py + v0, sc->y + v0, (size_t)m->nv * sizeof(float));
        memcpy(sc->pz + v0, sc->z + v0, (size_t)m->nv * sizeof(float));
        memcpy(sc->dpx + v0, sc->dx + v0, (size_t)m->nv * sizeof(double));
        memcpy(sc->dpy + v0, sc->dy + v0, (size_t)m->nv * sizeof(double));
        memcpy(sc->dpz + v0, sc->dz + v0, (size_t)m->nv * sizeof(double));
    }
    sc->nobj = o + 1;
    sc->layout_gen++; /* the block boxes (blocks.c) are made again */
    sc->xgen = sc->pxgen = 0; /* positions written here: a run keeps nothing derived from them */
    sc->nv = nv;
    sc->nf = nf;
    clash_store_recount(sc);
    return o;
}

int clash_scene_add_object(clash_scene *sc, int mesh, const double rot[9], const double trans[3], int deforming,
                           clash_error *err)
{
    char what[48];
    if (!sc) return -clash_fail(err, CLASH_EINPUT, "add_object: the scene is NULL");
    snprintf(what, sizeof what, "object %d", sc->nobj);
    if (sc->nruns) return -clash_fail(err, CLASH_EINPUT, "%s: the scene is in use by a run (add objects before "
                                                       "clash_run_create, or to the run: clash_run_add_object)", what);
    if (mesh < 0 || mesh >= sc->nmesh)
        return -clash_fail(err, CLASH_EINPUT, "%s: mesh %d: no such mesh (the scene has %d: 0..%d)", what, mesh,
                           sc->nmesh, sc->nmesh - 1);
    int rc = clash_check_rotation(rot, what, err);
    if (!rc) rc = clash_check_translation(trans, sc->mesh[mesh].radius, what, err);
    if (rc) return -rc;
    clash_xform x0 = {.R = {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    if (rot) memcpy(x0.R, rot, sizeof x0.R);
    if (trans) memcpy(x0.t, trans, sizeof x0.t);
    return clash_store_add_object(sc, mesh, &x0, 1.0, deforming, err);
}

int clash_check_law(const clash_pose *p, double radius, int last, const char *what, clash_error *err)
{
    const double ext = p->scale * radius; /* how far a vertex lies from the object's origin */
    if (!(ext <= float_limit))
        return clash_fail(err, CLASH_EINPUT, "%s: scale %g x mesh radius %g = %g is out of float range (at most %g)",
                          what, p->scale, radius, ext, float_limit);
    for (int d = 0; d < 3; ++d) {
        const int at[2] = {0, last};
        for (int k = 0; k < 2; ++k) {
            const double t = p->position[d] + (double)at[k] * p->velocity[d];
            const double a = p->rotation_deg[d] + (double)at[k] * p->angular_velocity_deg[d];
            if (!(fabs(t) + ext <= float_limit))
                return clash_fail(err, CLASH_EINPUT,
                                  "%s: %c reaches %g at step %d (position %g + %d x velocity %g, plus scale x mesh "
                                  "radius %g): out of float range (at most %g); fewer steps or a smaller velocity",
                                  what, axis_name[d], fabs(t) + ext, at[k], p->position[d], at[k], p->velocity[d],
                                  ext, float_limit);
            if (!isfinite(a))
                return clash_fail(err, CLASH_EINPUT, "%s: angle %c at step %d is not finite", what, axis_name[d],
                                  at[k]);
        }
    }
    return CLASH_OK;
}

int clash_store_check_laws(const clash_scene *sc, int last, const char *source, clash_error *err)
{
    for (int o = 0; o < sc->nobj; ++o) {
        if (sc->law[o] != CLASH_LAW_FORMULA) continue;
        char what[1100];
        if (source) snprintf(what, sizeof what, "%.1000s: objects[%d]", source, o);
        else snprintf(what, sizeof what, "%.1000s: object %d", sc->name, o);
        const int rc = clash_check_law(&sc->pose[o], sc->mesh[sc->obj_mesh[o]].radius, last, what, err);
        if (rc) return rc;
    }
    return CLASH_OK;
}

int clash_store_set_law(clash_scene *sc, int o, const clash_pose *p)
{
    if (!sc->pose && !(sc->pose = calloc((size_t)sc->cap_obj, sizeof *sc->pose))) return -1;
    sc->pose[o] = *p;
    sc->law[o] = CLASH_LAW_FORMULA;
    clash_store_recount(sc);
    return 0;
}
