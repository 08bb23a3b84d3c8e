/*
 * motion.c — stage S0: the world positions of the next state, made current.
 *
 * One mechanism serves every client (src/README.md, "Public API"): the next state
 * of each object is set (clash_store_set_pose, clash_store_set_vertices, or
 * a scene file's law), then clash_store_advance_par moves the current state
 * to px/py/pz by swapping pointers and computes the next one into x/y/z.
 * Per object, the new positions come from one of:
 *   a pose      world = R * (scale * local) + t, transformed from the double
 *               local mesh dlx/dly/dlz in double (ck_transform_d: matrix
 *               R*scale and translation) into dx/dy/dz, and that rounded to
 *               float32 once into x/y/z;
 *   positions   copied from the deforming staging arrays nx/ny/nz (the
 *               host's clash_run_set_vertices, doubles as given) or from
 *               frame s of a deforming scene file (its law, doubles as
 *               read), and rounded to float32 once;
 *   nothing set the object stays where it is: copied from the state before.
 * With the new state, S0 records each object's turn during the step (turn.c:
 * the arc margin of swept mode): the law's path for a law's pose, the screw
 * motion for a pose the host set, none for positions or objects left alone.
 *
 * Scene-file laws.  Rigid objects follow the scene file's pose formula to the
 * letter:
 *   world = R(rotation_deg + s * angular_velocity_deg) * (scale * local)
 *           + position + s * velocity,
 *   R([a, b, c]) = Rz(c) * Ry(b) * Rx(a), angles in degrees;
 * deforming scenes take frame s.  clash_scene_set_state_par(s) sets every
 * object with a law to its state s and advances; when the store does not
 * hold the laws' state s-1 already, it first advances to s-1 the same way.
 *
 * The new state is computed in parallel over vertices: under the default
 * partition (chunk, no --chunk) in blocks of 16,384 handed out as the
 * workers ask, so that a worker on a slowed CPU takes fewer; else by the
 * run's partition (clash_par_for_blocks: chunk or stride, for the partition
 * study).  A worker's range (begin, end, step) may cross object
 * boundaries: it is cut at each object's [vofs[o], vofs[o+1]) and each piece
 * is done with that object's source.  Every vertex is computed by exactly the
 * same operations whichever worker takes it, so results are bit-identical
 * for every team size, backend and partition.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/tuning.h"
#include "kernels/ccd_motion.h"
#include "kernels/kernels.h"
#include "store/scene.h"
#include "sched/sched.h"

void clash_pose_at(const clash_pose *p, int s, double R[9], double *scale, double t[3])
{
    /* the formula lives with the CCD of turning objects, which evaluates it between states too */
    ck_euler_pose(p->rotation_deg, p->angular_velocity_deg, p->position, p->velocity, (double)s, R, t);
    *scale = p->scale;
}

/* ---- setting the next state ----------------------------------------------------------- */

void clash_store_rewind(clash_scene *sc)
{
    for (int o = 0; o < sc->nobj; ++o)
        sc->cur[o] = sc->prev[o] = sc->pose0[o], sc->next_kind[o] = CLASH_NEXT_NONE,
        sc->turn[o] = (clash_turn){.kind = CLASH_TURN_NONE};
    sc->nturning = 0;
    sc->state = -1;
    sc->law_step = -1;
}

void clash_store_set_pose(clash_scene *sc, int o, const clash_xform *p)
{
    sc->next[o] = *p;
    sc->next_kind[o] = CLASH_NEXT_POSE;
}

void clash_store_set_vertices(clash_scene *sc, int o, const double *xyz)
{
    const int64_t v0 = sc->vofs[o], n = sc->vofs[o + 1] - v0;
    for (int64_t v = 0; v < n; ++v) {
        const int64_t g = clash_vert_store(sc, v0 + v); /* input vertex v0+v lives at store g */
        sc->nx[g] = xyz[3 * v + 0];
        sc->ny[g] = xyz[3 * v + 1];
        sc->nz[g] = xyz[3 * v + 2];
    }
    sc->next_kind[o] = CLASH_NEXT_VERTS;
}

/* ---- S0 in parallel ------------------------------------------------------------------- */

enum { SRC_POSE = 0, SRC_COPY = 1 };

typedef struct obj_src {
    int kind;
    double R[9], s, t[3];           /* SRC_POSE */
    const double *sx, *sy, *sz;     /* SRC_COPY: global-indexed source arrays (doubles) */
} obj_src;

typedef struct state_ctx {
    const clash_scene *sc;
    const obj_src *src;             /* nobj */
    double *W[3];                   /* the doubles written */
    float *F[3];                    /* their float32 roundings */
} state_ctx;

/* Items i, i + step, ... < e of the doubles s into w and rounded into f. */
static void copy_piece(int64_t i, int64_t e, int64_t step, const double *s, double *w, float *f)
{
    if (s != w) {
        if (step == 1) memcpy(w + i, s + i, (size_t)(e - i) * sizeof(double));
        else
            for (int64_t k = i; k < e; k += step) w[k] = s[k];
    }
    for (; i < e; i += step) f[i] = (float)w[i];
}

static void state_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    const state_ctx *c = p;
    const clash_scene *sc = c->sc;
    int o = clash_object_of(sc->vofs, sc->nobj, begin);
    int64_t i = begin;
    while (i < end && o < sc->nobj) {
        const int64_t oe = sc->vofs[o + 1] < end ? sc->vofs[o + 1] : end;
        if (i < oe) {
            const obj_src *q = &c->src[o];
            if (q->kind == SRC_POSE) {
                const double *const L[3] = {sc->dlx, sc->dly, sc->dlz};
                ck_transform_d(i, oe, step, q->R, q->s, q->t, L, c->W, c->F);
            } else {
                copy_piece(i, oe, step, q->sx, c->W[0], c->F[0]);
                copy_piece(i, oe, step, q->sy, c->W[1], c->F[1]);
                copy_piece(i, oe, step, q->sz, c->W[2], c->F[2]);
            }
            i += (oe - i + step - 1) / step * step; /* first item of the range at or past oe */
        }
        ++o;
        while (o < sc->nobj && sc->vofs[o + 1] <= i) ++o;
    }
}

static void pose_src(obj_src *q, const clash_xform *x, double scale)
{
    q->kind = SRC_POSE;
    memcpy(q->R, x->R, sizeof q->R);
    memcpy(q->t, x->t, sizeof q->t);
    q->s = scale;
}

/* Computes into x/y/z: state 0 (every object at its current pose) when
 * initial, else the next state (px/py/pz holding the current one). */
static int compute(clash_scene *sc, int initial, const clash_exec *ex)
{
    if (sc->nobj == 0) return 0;
    obj_src *src = malloc((size_t)sc->nobj * sizeof *src);
    if (!src) return -1;
    const size_t fn = (size_t)sc->frames_nv;
    for (int o = 0; o < sc->nobj; ++o) {
        obj_src *q = &src[o];
        const int kind = initial ? CLASH_NEXT_POSE : sc->next_kind[o];
        if (kind == CLASH_NEXT_POSE || kind == CLASH_NEXT_LAW) {
            pose_src(q, initial ? &sc->cur[o] : &sc->next[o], sc->obj_scale[o]);
        } else if (kind == CLASH_NEXT_VERTS) {
            *q = (obj_src){.kind = SRC_COPY, .sx = sc->nx, .sy = sc->ny, .sz = sc->nz};
        } else if (kind == CLASH_NEXT_FRAME) {
            const double *f = sc->frames[sc->next_frame];
            *q = (obj_src){.kind = SRC_COPY, .sx = f, .sy = f + fn, .sz = f + 2 * fn};
        } else { /* not set: stays where it is */
            *q = (obj_src){.kind = SRC_COPY, .sx = sc->dpx, .sy = sc->dpy, .sz = sc->dpz};
        }
    }
    state_ctx c = {.sc = sc, .src = src, .W = {sc->dx, sc->dy, sc->dz}, .F = {sc->x, sc->y, sc->z}};
    const clash_exec e = clash_exec_sized(ex, sc->nv); /* few vertices: on the caller */
    clash_par_for_blocks(&e, sc->nv, CLASH_TUNE_VERTEX_BLOCK, state_range, &c); /* (see the top) */
    free(src);
    sc->xgen = ++sc->gen_last;
    return 0;
}

/* The per-object work of a step (the laws' poses, the turns and their arc
 * margins: a few sines and cosines each) runs over the objects in parallel
 * too (serial, it shows on scenes of many objects at many threads).  Each
 * object's result depends on that object alone. */
enum { CLASH_OBJ_WORK = CLASH_TUNE_OBJ_WORK }; /* an object's cost, in vertices transformed (clash_exec_sized) */

static void turn_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    clash_scene *sc = p;
    for (int o = (int)begin; o < end; o += (int)step) {
        const int k = sc->next_kind[o];
        const double radius = sc->mesh[sc->obj_mesh[o]].radius;
        /* (a law's pose is its state next_frame, set_laws) */
        if (k == CLASH_NEXT_LAW) clash_turn_law(&sc->pose[o], sc->next_frame, radius, &sc->turn[o]);
        else if (k == CLASH_NEXT_POSE) clash_turn_screw(&sc->cur[o], &sc->next[o], sc->obj_scale[o], radius, &sc->turn[o]);
        else sc->turn[o] = (clash_turn){.kind = CLASH_TURN_NONE};
        sc->prev[o] = sc->cur[o];
        if (k == CLASH_NEXT_POSE || k == CLASH_NEXT_LAW) sc->cur[o] = sc->next[o];
        /* positions set, not posed: no pose to turn from in the next step */
        if (k == CLASH_NEXT_VERTS || k == CLASH_NEXT_FRAME) sc->cur[o].R[0] = NAN;
        sc->next_kind[o] = CLASH_NEXT_NONE;
    }
}

/* keep_initial 0: with no state yet, state 0 is not computed, the caller
 * having checked that every object's next state is set from its own source
 * (none copies from the state before) and that a second advance follows at
 * once, which overwrites what state 0 would have become (px).  positions 0:
 * the poses, turns and state number advance but the positions are not
 * computed (the caller's second advance at once makes them the state
 * before, which its caller then does not read: prev_held says so). */
static int advance(clash_scene *sc, const clash_exec *ex, int keep_initial, int positions, clash_error *err)
{
    if (sc->state < 0) { /* no state yet: state 0, every object where it was added */
        if (keep_initial && compute(sc, 1, ex)) return clash_fail(err, CLASH_EFAIL, "out of memory in the motion stage");
        sc->state = 0;
        sc->x_held = keep_initial;
    }
    float *t;
    t = sc->px, sc->px = sc->x, sc->x = t;
    t = sc->py, sc->py = sc->y, sc->y = t;
    t = sc->pz, sc->pz = sc->z, sc->z = t;
    double *u;
    u = sc->dpx, sc->dpx = sc->dx, sc->dx = u;
    u = sc->dpy, sc->dpy = sc->dy, sc->dy = u;
    u = sc->dpz, sc->dpz = sc->dz, sc->dz = u;
    sc->prev_held = sc->x_held; /* px holds the state before when x held it */
    sc->x_held = positions;
    sc->pxgen = sc->xgen, sc->xgen = 0;
    if (positions && compute(sc, 0, ex)) {
        sc->state = -1, sc->law_step = -1, sc->x_held = sc->prev_held = 0;
        sc->pxgen = 0;
        return clash_fail(err, CLASH_EFAIL, "out of memory in the motion stage");
    }
    const clash_exec e = clash_exec_sized(ex, (int64_t)sc->nobj * CLASH_OBJ_WORK);
    clash_par_for(&e, sc->nobj, turn_range, sc);
    sc->nturning = 0;
    for (int o = 0; o < sc->nobj; ++o) sc->nturning += sc->turn[o].kind != CLASH_TURN_NONE;
    sc->state++;
    sc->law_step = -1;
    return CLASH_OK;
}

int clash_store_advance_par(clash_scene *sc, const clash_exec *ex, clash_error *err) { return advance(sc, ex, 1, 1, err); }

/* ---- scene-file laws ------------------------------------------------------------------- */

typedef struct laws_ctx {
    clash_scene *sc;
    int s;
} laws_ctx;

/* Object o's next state: its formula law's pose of state s. */
static void law_pose(clash_scene *sc, int o, int s)
{
    clash_xform x;
    double scale;
    clash_pose_at(&sc->pose[o], s, x.R, &scale, x.t);
    clash_store_set_pose(sc, o, &x);
    sc->next_kind[o] = CLASH_NEXT_LAW; /* the law's path, not the screw between its poses */
}

void clash_store_set_law_state(clash_scene *sc, int o, int s)
{
    law_pose(sc, o, s);
    sc->next_frame = s; /* (the state of the law's turn, turn_range) */
}

static void laws_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    const laws_ctx *c = p;
    clash_scene *sc = c->sc;
    const int s = c->s;
    for (int o = (int)begin; o < end; o += (int)step) {
        if (sc->law[o] == CLASH_LAW_FORMULA) {
            law_pose(sc, o, s);
        } else if (sc->law[o] == CLASH_LAW_FRAMES) {
            sc->next_kind[o] = CLASH_NEXT_FRAME;
        }
    }
}

/* Sets the next state of every object with a law to the law's state s. */
static void set_laws(clash_scene *sc, int s, const clash_exec *ex)
{
    laws_ctx c = {sc, s};
    const clash_exec e = clash_exec_sized(ex, (int64_t)sc->nobj * CLASH_OBJ_WORK);
    clash_par_for(&e, sc->nobj, laws_range, &c);
    sc->next_frame = s;
}

int clash_scene_set_state(clash_scene *sc, int s, clash_error *err)
{
    const clash_exec serial = {.backend = CLASH_BACKEND_OMP, .threads = 1, .partition = CLASH_PART_CHUNK};
    return clash_scene_set_state_par(sc, s, &serial, err);
}

int clash_scene_set_state_par(clash_scene *sc, int s, const clash_exec *ex, clash_error *err)
{
    return clash_scene_set_state_need(sc, s, ex, 1, err);
}

int clash_scene_set_state_need(clash_scene *sc, int s, const clash_exec *ex, int need_prev, clash_error *err)
{
    if (s < 1) return clash_fail(err, CLASH_EINPUT, "%s: step %d: steps are numbered from 1", sc->name, s);
    if (sc->frames && s >= sc->nframes)
        return clash_fail(err, CLASH_EINPUT, "%s: step %d needs frame %d, but the scene has %d frames", sc->name, s, s,
                          sc->nframes);
    if (sc->law_step == s && (sc->prev_held || !need_prev)) return CLASH_OK;
    const int jump = sc->law_step != s - 1; /* state s-1 first (also at s with its state before not held) */
    /* a scene may hold only some frames (clash_frames_fill's k0..k1) */
    if (sc->frames && (!sc->frames[s] || (jump && !sc->frames[s - 1])))
        return clash_fail(err, CLASH_EINPUT, "%s: step %d needs frames %d and %d, not both held", sc->name, s, s - 1, s);
    int rc, laws = 0;
    for (int o = 0; o < sc->nobj && !laws; ++o) laws = sc->law[o] != CLASH_LAW_NONE;
    if (jump && laws) { /* the laws' state s-1 first */
        set_laws(sc, s - 1, ex);
        /* From no state (a new run's first step) state 0 would only be
         * swapped out by the two advances: skipped when every object
         * follows a law (its S0 was a third of a step from scratch on two
         * 968-face meshes).  So are the positions of state s-1
         * when the caller reads none (static mode): the other half of S0 on
         * such a step. */
        int all = 1;
        for (int o = 0; o < sc->nobj && all; ++o) all = sc->law[o] != CLASH_LAW_NONE;
        if ((rc = advance(sc, ex, !all, need_prev || !all, err))) return rc;
    }
    set_laws(sc, s, ex);
    if ((rc = advance(sc, ex, 1, 1, err))) return rc;
    sc->state = s;
    sc->law_step = s;
    return CLASH_OK;
}

int clash_scene_vertex_at(const clash_scene *sc, int obj, int64_t v, int s, double out[3], clash_error *err)
{
    if (!sc || !out) return clash_fail(err, CLASH_EINPUT, "vertex_at: %s is NULL", !sc ? "the scene" : "out");
    if (obj < 0 || obj >= sc->nobj)
        return clash_fail(err, CLASH_EINPUT, "vertex_at: object %d: no such object (the scene has %d: 0..%d)", obj,
                          sc->nobj, sc->nobj - 1);
    const int64_t nv = sc->vofs[obj + 1] - sc->vofs[obj];
    if (v < 0 || v >= nv)
        return clash_fail(err, CLASH_EINPUT, "vertex_at: object %d: vertex %lld: no such vertex (0..%lld)", obj,
                          (long long)v, (long long)nv - 1);
    if (s < 0)
        return clash_fail(err, CLASH_EINPUT, "vertex_at: object %d: state %d: states are numbered from 0", obj, s);
    const int64_t g = clash_vert_store(sc, sc->vofs[obj] + v);
    if (sc->law[obj] == CLASH_LAW_FRAMES) {
        if (s >= sc->nframes || !sc->frames[s])
            return clash_fail(err, CLASH_EINPUT, "vertex_at: object %d: state %d: %s", obj, s,
                              s >= sc->nframes ? "past the scene's last frame" : "its frame is not held here");
        for (int d = 0; d < 3; ++d) out[d] = sc->frames[s][(size_t)d * (size_t)sc->frames_nv + (size_t)g];
        return CLASH_OK;
    }
    double R[9], scale = sc->obj_scale[obj], t[3];
    if (sc->law[obj] == CLASH_LAW_FORMULA) {
        clash_pose_at(&sc->pose[obj], s, R, &scale, t);
    } else if (s == sc->state || (s == sc->state - 1 && s >= 0)) { /* objects from memory: the states held */
        const double *a[3] = {sc->dx, sc->dy, sc->dz}, *b[3] = {sc->dpx, sc->dpy, sc->dpz};
        for (int d = 0; d < 3; ++d) out[d] = s == sc->state ? a[d][g] : b[d][g];
        return CLASH_OK;
    } else if (s == 0) { /* state 0: where the object was added */
        memcpy(R, sc->pose0[obj].R, sizeof R), memcpy(t, sc->pose0[obj].t, sizeof t);
    } else {
        return clash_fail(err, CLASH_EINPUT, "vertex_at: object %d: state %d: not held (an object from memory has "
                          "state 0, the current state %d and the one before it)", obj, s, sc->state);
    }
    /* S0's arithmetic (ck_transform_d), so a state held and one computed here agree */
    const double l[3] = {sc->dlx[g], sc->dly[g], sc->dlz[g]};
    for (int d = 0; d < 3; ++d)
        out[d] = ((R[3 * d] * scale) * l[0] + (R[3 * d + 1] * scale) * l[1] + (R[3 * d + 2] * scale) * l[2]) + t[d];
    return CLASH_OK;
}
