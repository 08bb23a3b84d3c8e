/*
 * motion.c — stage S0: the world positions of state s.
 *
 * Rigid objects follow CONTRACT.md's pose formula to the letter:
 *   world = R(rotation_deg + s * angular_velocity_deg) * (scale * local)
 *           + position + s * velocity,
 *   R([a, b, c]) = Rz(c) * Ry(b) * Rx(a), angles in degrees.
 * Deforming scenes copy frame s.  The previous state moves to px/py/pz by
 * swapping pointers, so a step computes only one new state.
 */
#include <math.h>
#include <string.h>

#include "error.h"
#include "kernels/kernels.h"
#include "scene.h"

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

/* Writes state s of every vertex into wx/wy/wz. */
static void compute_state(clash_scene *sc, int s, float *wx, float *wy, float *wz)
{
    if (sc->deforming) {
        const float *fr = sc->frames[s];
        const size_t n = (size_t)sc->nv;
        memcpy(wx, fr, n * sizeof(float));
        memcpy(wy, fr + n, n * sizeof(float));
        memcpy(wz, fr + 2 * n, n * sizeof(float));
        return;
    }
    for (int o = 0; o < sc->nobj; ++o) {
        double R[9], scale, t[3];
        clash_pose_at(&sc->pose[o], s, R, &scale, t);
        const int64_t v0 = sc->vofs[o];
        ck_transform(sc->vofs[o + 1] - v0, R, scale, t, sc->lx + v0, sc->ly + v0, sc->lz + v0, wx + v0, wy + v0,
                     wz + v0);
    }
}

int clash_scene_set_state(clash_scene *sc, int s, clash_error *err)
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
    } else {
        compute_state(sc, s - 1, sc->px, sc->py, sc->pz);
    }
    compute_state(sc, s, sc->x, sc->y, sc->z);
    sc->state = s;
    return CLASH_OK;
}

int clash_scene_vertex_at(const clash_scene *sc, int obj, int64_t v, int s, double out[3])
{
    if (obj < 0 || obj >= sc->nobj || v < 0 || v >= sc->vofs[obj + 1] - sc->vofs[obj] || s < 0) return CLASH_EINPUT;
    const int64_t g = sc->vofs[obj] + v;
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
