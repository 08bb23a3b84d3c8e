/*
 * motion.c — stage S0: the world positions of state s.
 *
 * Rigid objects follow CONTRACT.md's pose formula to the letter:
 *   world = R(rotation_deg + s * angular_velocity_deg) * (scale * local)
 *           + position + s * velocity,
 *   R([a, b, c]) = Rz(c) * Ry(b) * Rx(a), angles in degrees.
 * Deforming scenes copy frame s.  The previous state moves to px/py/pz by
 * swapping pointers, so a step computes only one new state.  The new state is
 * computed in parallel over vertices (clash_par_for: chunk or stride).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "kernels/kernels.h"
#include "store/scene.h"
#include "sched/sched.h"

void clash_pose_at(const clash_pose *p, int s, double R[9], double *scale, double t[3])
{
    const double deg = 3.14159265358979323846 / 180.0;
    const double a = (p->rotation_deg[0] + s * p->angular_velocity_deg[0]) * deg;
    const double b = (p->rotation_deg[1] + s * p->angular_velocity_deg[1]) * deg;
    const double c = (p->rotation_deg[2] + s * p->angular_velocity_deg[2]) * deg;
    const double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cc = cos(c), sc = sin(c);
    /* Rz(c) * Ry(b) * Rx(a) */
    R[0] = cc * cb, R[1] = cc * sb * sa - sc * ca, R[2] = cc * sb * ca + sc * sa;
    R[3] = sc * cb, R[4] = sc * sb * sa + cc * ca, R[5] = sc * sb * ca - cc * sa;
    R[6] = -sb, R[7] = cb * sa, R[8] = cb * ca;
    *scale = p->scale;
    for (int d = 0; d < 3; ++d) t[d] = p->position[d] + s * p->velocity[d];
}

/* ---- S0 in parallel ----------------------------------------------------------------
 * The vertex range [0, nv) is split by the fine-grain partition.  A worker's
 * range (begin, end, step) may cross object boundaries: it is cut at each
 * object's [vofs[o], vofs[o+1]) and each piece is transformed with that
 * object's pose (ck_transform on a contiguous piece, ck_transform_strided
 * under the stride partition).  Every vertex is computed by exactly the same
 * operations whichever worker takes it, so results are bit-identical for
 * every team size, backend and partition. */

typedef struct obj_pose {
    double R[9], s, t[3];
} obj_pose;

typedef struct state_ctx {
    const clash_scene *sc;
    const obj_pose *pose;   /* rigid: nobj poses of state s */
    const float *frame;     /* deforming: frame s (x block, y block, z block) */
    float *wx, *wy, *wz;
} state_ctx;

/* Object holding vertex v: the last o with vofs[o] <= v. */
static int object_of_vertex(const clash_scene *sc, int64_t v)
{
    int lo = 0, hi = sc->nobj - 1;
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (sc->vofs[mid] <= v) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

static void state_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    const state_ctx *c = p;
    const clash_scene *sc = c->sc;
    if (c->frame) {
        const size_t n = (size_t)sc->nv;
        const float *fx = c->frame, *fy = c->frame + n, *fz = c->frame + 2 * n;
        if (step == 1) {
            const size_t b = (size_t)begin, len = (size_t)(end - begin) * sizeof(float);
            memcpy(c->wx + b, fx + b, len), memcpy(c->wy + b, fy + b, len), memcpy(c->wz + b, fz + b, len);
        } else {
            for (int64_t i = begin; i < end; i += step) c->wx[i] = fx[i], c->wy[i] = fy[i], c->wz[i] = fz[i];
        }
        return;
    }
    int o = object_of_vertex(sc, begin);
    int64_t i = begin;
    while (i < end && o < sc->nobj) {
        const int64_t oe = sc->vofs[o + 1] < end ? sc->vofs[o + 1] : end;
        if (i < oe) {
            const obj_pose *q = &c->pose[o];
            ck_transform_strided(i, oe, step, q->R, q->s, q->t, sc->lx, sc->ly, sc->lz, c->wx, c->wy, c->wz);
            i += (oe - i + step - 1) / step * step; /* first item of the range at or past oe */
        }
        ++o;
        while (o < sc->nobj && sc->vofs[o + 1] <= i) ++o;
    }
}

/* Writes state s of every vertex into wx/wy/wz.  Returns -1 when out of memory. */
static int compute_state(clash_scene *sc, int s, const clash_exec *ex, float *wx, float *wy, float *wz)
{
    state_ctx c = {.sc = sc, .wx = wx, .wy = wy, .wz = wz};
    obj_pose *pose = NULL;
    if (sc->deforming) {
        c.frame = sc->frames[s];
    } else {
        if (sc->nobj == 0) return 0;
        pose = malloc((size_t)sc->nobj * sizeof *pose);
        if (!pose) return -1;
        for (int o = 0; o < sc->nobj; ++o) clash_pose_at(&sc->pose[o], s, pose[o].R, &pose[o].s, pose[o].t);
        c.pose = pose;
    }
    clash_par_for(ex, sc->nv, state_range, &c);
    free(pose);
    return 0;
}

int clash_scene_set_state(clash_scene *sc, int s, clash_error *err)
{
    const clash_exec serial = {.backend = CLASH_BACKEND_OMP, .threads = 1, .partition = CLASH_PART_CHUNK};
    return clash_scene_set_state_par(sc, s, &serial, err);
}

int clash_scene_set_state_par(clash_scene *sc, int s, const clash_exec *ex, clash_error *err)
{
    if (s < 1) return clash_fail(err, CLASH_EINPUT, "%s: step %d: steps are numbered from 1", sc->name, s);
    if (sc->deforming && s >= sc->nframes)
        return clash_fail(err, CLASH_EINPUT, "%s: step %d needs frame %d, but the scene has %d frames", sc->name, s, s,
                          sc->nframes);
    if (sc->state == s) return CLASH_OK;
    if (sc->state == s - 1) {
        float *t;
        t = sc->px, sc->px = sc->x, sc->x = t;
        t = sc->py, sc->py = sc->y, sc->y = t;
        t = sc->pz, sc->pz = sc->z, sc->z = t;
    } else if (compute_state(sc, s - 1, ex, sc->px, sc->py, sc->pz)) {
        sc->state = -1;
        return clash_fail(err, CLASH_EFAIL, "out of memory in the motion stage");
    }
    if (compute_state(sc, s, ex, sc->x, sc->y, sc->z)) {
        sc->state = -1;
        return clash_fail(err, CLASH_EFAIL, "out of memory in the motion stage");
    }
    sc->state = s;
    return CLASH_OK;
}

int clash_scene_vertex_at(const clash_scene *sc, int obj, int64_t v, int s, double out[3])
{
    if (obj < 0 || obj >= sc->nobj || v < 0 || v >= sc->vofs[obj + 1] - sc->vofs[obj] || s < 0) return CLASH_EINPUT;
    const int64_t g = clash_vert_store(sc, sc->vofs[obj] + v);
    if (sc->deforming) {
        if (s >= sc->nframes) return CLASH_EINPUT;
        for (int d = 0; d < 3; ++d) out[d] = sc->frames[s][(size_t)d * (size_t)sc->nv + (size_t)g];
        return CLASH_OK;
    }
    double R[9], scale, t[3];
    clash_pose_at(&sc->pose[obj], s, R, &scale, t);
    const double l[3] = {sc->lx[g], sc->ly[g], sc->lz[g]};
    for (int d = 0; d < 3; ++d)
        out[d] = R[3 * d] * scale * l[0] + R[3 * d + 1] * scale * l[1] + R[3 * d + 2] * scale * l[2] + t[d];
    return CLASH_OK;
}
