/*
 * test_motion.c — stage S0 follows the scene file's pose formula to the letter:
 *   world = R(rotation_deg + s*angular_velocity_deg) * (scale*local) + position + s*velocity,
 *   R([a,b,c]) = Rz(c) * Ry(b) * Rx(a).
 * Vertices are checked after 100 steps of combined translation and rotation
 * against positions computed by hand (angles chosen to land on right angles).
 * A static step from scratch leaves the state before uncomputed; the store
 * must say so and make it when a caller then needs it.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "core/run.h"
#include "stages/stages.h"
#include "io/scene_desc.h"
#include "store/scene.h"

static clash_scene *box_scene(const double pos[3], const double rot[3], const double vel[3], const double ang[3],
                              double scale)
{
    clash_mesh_desc md = {.name = "cube", .kind = CLASH_MESH_BOX, .scale = 1};
    clash_object_desc od = {.mesh = 0, .scale = scale};
    memcpy(od.position, pos, sizeof od.position);
    memcpy(od.rotation_deg, rot, sizeof od.rotation_deg);
    memcpy(od.velocity, vel, sizeof od.velocity);
    memcpy(od.angular_velocity_deg, ang, sizeof od.angular_velocity_deg);
    clash_scene_desc d = {.name = "motion", .steps = 100, .mode = CLASH_MODE_STATIC,
                          .nmeshes = 1, .meshes = &md, .nobjects = 1, .objects = &od};
    clash_scene *sc = NULL;
    clash_error err;
    int rc = clash_scene_build(&d, &sc, &err);
    CHECK(rc == 0, "build: %s", err.msg);
    return sc;
}

/* Index of the cube's local vertex (sx, sy, sz) * 0.5 (generators.c: bit 0 x, bit 1 y, bit 2 z). */
static int corner(int sx, int sy, int sz) { return (sx > 0) | (sy > 0) << 1 | (sz > 0) << 2; }

static void expect(clash_scene *sc, int v, int s, double ex, double ey, double ez, const char *what)
{
    double w[3];
    CHECK(clash_scene_vertex_at(sc, 0, v, s, w, NULL) == 0, "%s: vertex_at", what);
    CHECK(fabs(w[0] - ex) < 1e-9 && fabs(w[1] - ey) < 1e-9 && fabs(w[2] - ez) < 1e-9,
          "%s: got (%.12g, %.12g, %.12g), expected (%g, %g, %g)", what, w[0], w[1], w[2], ex, ey, ez);
    if (s < 1) return; /* the store holds states from step 1 on */
    /* the store's S0 (float32) agrees */
    clash_error err;
    CHECK(clash_scene_set_state(sc, s, &err) == 0, "%s: set_state: %s", what, err.msg);
    const int64_t g = sc->vofs[0] + v;
    CHECK(fabs(sc->x[g] - ex) < 1e-5 && fabs(sc->y[g] - ey) < 1e-5 && fabs(sc->z[g] - ez) < 1e-5,
          "%s: store has (%g, %g, %g)", what, sc->x[g], sc->y[g], sc->z[g]);
}

int main(void)
{
    /* 1. Rotation about z: 30 deg + 100 * 0.6 deg = 90 deg; translation
     *    (1,2,3) + 100 * (0.01, 0.02, -0.03) = (2, 4, 0); scale 2.
     *    local (0.5,0.5,0.5) -> scaled (1,1,1) -> Rz(90): (-1,1,1) -> (1,5,1). */
    {
        const double pos[3] = {1, 2, 3}, rot[3] = {0, 0, 30}, vel[3] = {0.01, 0.02, -0.03}, ang[3] = {0, 0, 0.6};
        clash_scene *sc = box_scene(pos, rot, vel, ang, 2.0);
        if (sc) {
            expect(sc, corner(1, 1, 1), 100, 1, 5, 1, "z-rotation");
            /* state 0: Rz(30) (1,1,1) = (cos30 - sin30, sin30 + cos30, 1), + (1,2,3) */
            expect(sc, corner(1, 1, 1), 0, 1 + (cos(M_PI / 6) - sin(M_PI / 6)), 2 + (sin(M_PI / 6) + cos(M_PI / 6)), 4,
                   "state 0");
            clash_scene_destroy(sc);
        }
    }
    /* 2. Combined: angles after 100 steps (90, 0, 90): R = Rz(90) * Rx(90).
     *    local (0.5,-0.5,0.5), scale 2 -> (1,-1,1); Rx(90): (x,y,z) -> (x,-z,y) = (1,-1,-1);
     *    Rz(90): (x,y,z) -> (-y,x,z) = (1,1,-1); + position (0,0,0) + 100*(0.1,-0.2,0.3) = (11,-19,29).
     *    (The other order, Rx(Rz v), would give (1,-1,1) + t: the test tells them apart.) */
    {
        const double pos[3] = {0, 0, 0}, rot[3] = {0, 0, 0}, vel[3] = {0.1, -0.2, 0.3}, ang[3] = {0.9, 0, 0.9};
        clash_scene *sc = box_scene(pos, rot, vel, ang, 2.0);
        if (sc) {
            expect(sc, corner(1, -1, 1), 100, 11, -19, 29, "Rz*Rx");
            clash_scene_destroy(sc);
        }
    }
    /* 3. Ry: angles (0, 90, 0) reached from rotation_deg (0, 45, 0) + 100 * (0, 0.45, 0):
     *    Ry(90): (x,y,z) -> (z, y, -x); local (0.5,0.5,-0.5), scale 1 -> (-0.5, 0.5, -0.5); + (3,0,0). */
    {
        const double pos[3] = {3, 0, 0}, rot[3] = {0, 45, 0}, vel[3] = {0, 0, 0}, ang[3] = {0, 0.45, 0};
        clash_scene *sc = box_scene(pos, rot, vel, ang, 1.0);
        if (sc) {
            expect(sc, corner(1, 1, -1), 100, 2.5, 0.5, -0.5, "Ry");
            clash_scene_destroy(sc);
        }
    }
    /* 4. The state before, skipped by a static step from scratch: after
     *    clash_scene_set_state_need(s, need_prev 0) x holds state s; asked
     *    again for s with need_prev, px must then hold state s-1 (not what
     *    the skipped advance left there); a sequential step after the
     *    skipped one has its state before. */
    {
        const double pos[3] = {1, 2, 3}, rot[3] = {10, 20, 30}, vel[3] = {0.5, -0.25, 0.125}, ang[3] = {1, 2, 3};
        clash_scene *sc = box_scene(pos, rot, vel, ang, 1.5);
        if (sc) {
            const clash_exec serial = {.backend = CLASH_BACKEND_OMP, .threads = 1, .partition = CLASH_PART_CHUNK};
            clash_error err;
            const int steps[3][2] = {{5, 0}, {5, 1}, {6, 0}}; /* (s, need_prev) */
            for (int k = 0; k < 3; ++k) {
                const int s = steps[k][0], need = steps[k][1];
                CHECK(clash_scene_set_state_need(sc, s, &serial, need, &err) == 0, "need: %s", err.msg);
                const int prev_valid = k > 0; /* the first call skips state s-1 */
                CHECK(sc->prev_held == prev_valid, "call %d: prev_held %d, expected %d", k, sc->prev_held, prev_valid);
                for (int v = 0; v < 8; ++v) {
                    double w[3], wp[3];
                    clash_scene_vertex_at(sc, 0, v, s, w, NULL);
                    clash_scene_vertex_at(sc, 0, v, s - 1, wp, NULL);
                    const int64_t g = sc->vofs[0] + v;
                    CHECK(fabs(sc->x[g] - w[0]) < 1e-5 && fabs(sc->y[g] - w[1]) < 1e-5 && fabs(sc->z[g] - w[2]) < 1e-5,
                          "call %d vertex %d: x (%g %g %g), state %d is (%g %g %g)", k, v, sc->x[g], sc->y[g],
                          sc->z[g], s, w[0], w[1], w[2]);
                    if (prev_valid)
                        CHECK(fabs(sc->px[g] - wp[0]) < 1e-5 && fabs(sc->py[g] - wp[1]) < 1e-5 &&
                                  fabs(sc->pz[g] - wp[2]) < 1e-5,
                              "call %d vertex %d: px (%g %g %g), state %d is (%g %g %g)", k, v, sc->px[g], sc->py[g],
                              sc->pz[g], s - 1, wp[0], wp[1], wp[2]);
                }
            }
            clash_scene_destroy(sc);
        }
    }
    return check_finish("test_motion");
}
