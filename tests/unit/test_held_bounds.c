/*
 * test_held_bounds.c — swept bounds kept from one step to the next
 * (stages/held_bounds.c): S1's object boxes and S2's object DOPs over the state
 * before are taken from the step before's when the scene only advanced in
 * between, never when it jumped or its positions were written otherwise.
 *
 * Each scene runs twice in lockstep, with holding (the default) and with
 * run->debug.hold_off, and after every step the two runs must agree bit for bit
 * on the object boxes, the object pairs, every pair's slabs, every paired
 * object's slabs and the face pairs:
 *   - scenes with laws (rs_spheres: two or three spheres moving and
 *     turning), stepped 1 2 3 4 6 7 8 5 6 7 2 3 (jumps back and forward),
 *     at 1 and 2 threads;
 *   - deforming scenes read from frames (rs_deforming), steps 1 to 3;
 *   - scenes a host drives from memory (clash_run_set_pose and
 *     clash_run_set_vertices, then clash_run_advance).
 * A step that follows the step before must have kept every object's box
 * (run->boxes->held_boxes), a step after a jump none; over the test some DOPs must
 * have been kept, or the test says nothing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "random_scenes.h"
#include "core/run.h"
#include "stages/stages.h"
#include "kernels/kernels.h"
#include "store/scene.h"

static long held_dops, dop_steps, box_steps;

static clash_run *make_run(clash_scene *sc, int steps, int threads, int self, int hold_off)
{
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_SWEPT, cfg.self_collision = self, cfg.steps = steps, cfg.threads = threads;
    clash_error err;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run != NULL, "run_create: %s", err.msg);
    if (run) run->debug.hold_off = hold_off;
    return run;
}

/* The two runs agree on everything the kept bounds feed. */
static void same(const char *what, int i, int s, const clash_run *a, const clash_run *b, const clash_pairs *pa,
                 const clash_pairs *pb)
{
    const clash_scene *sc = a->sc;
    CHECK(!memcmp(a->boxes->obox, b->boxes->obox, sizeof(clash_box) * (size_t)sc->nobj), "%s %d step %d: object boxes differ",
          what, i, s);
    CHECK(a->broad->nop == b->broad->nop && (!a->broad->nop || !memcmp(a->broad->op, b->broad->op, sizeof(clash_objpair) * a->broad->nop)),
          "%s %d step %d: object pairs %zu and %zu", what, i, s, a->broad->nop, b->broad->nop);
    CHECK(a->broad->region_dops == b->broad->region_dops, "%s %d step %d: slabs on %d and %d", what, i, s, a->broad->region_dops, b->broad->region_dops);
    if (a->broad->region_dops && b->broad->region_dops && a->broad->nop == b->broad->nop) {
        CHECK(!memcmp(a->broad->opdop, b->broad->opdop, sizeof(float) * CK_FDOP * a->broad->nop), "%s %d step %d: pair slabs differ",
              what, i, s);
        long bad = 0;
        for (size_t k = 0; k < a->broad->nop; ++k) {
            const int32_t o[2] = {a->broad->op[k].a, a->broad->op[k].b};
            for (int j = 0; j < 2; ++j)
                bad += memcmp(a->broad->odop + (size_t)CK_FDOP * (size_t)o[j], b->broad->odop + (size_t)CK_FDOP * (size_t)o[j],
                              sizeof(float) * CK_FDOP) != 0;
        }
        CHECK(bad == 0, "%s %d step %d: %ld objects' slabs differ", what, i, s, bad);
    }
    CHECK(pa->count == pb->count && (!pa->count || !memcmp(pa->pairs, pb->pairs, sizeof(clash_pair) * pa->count)),
          "%s %d step %d: pairs %zu and %zu", what, i, s, pa->count, pb->count);
}

/* After a step that followed the step before (follows 1) every box was
 * kept where S1 makes the object boxes from the vertices (boxes deferred;
 * with self-collision S1 boxes every face); after any other none was, nor
 * any DOP. */
static void kept(const char *what, int i, int s, const clash_run *r, int follows)
{
    const int64_t want = follows && r->boxes->deferred ? r->sc->nobj : 0;
    CHECK(r->boxes->held_boxes == want, "%s %d step %d: %lld object boxes kept, want %lld", what, i, s,
          (long long)r->boxes->held_boxes, (long long)want);
    CHECK(follows || r->boxes->held_dops == 0, "%s %d step %d: %lld DOPs kept after a jump", what, i, s,
          (long long)r->boxes->held_dops);
    held_dops += r->boxes->held_dops, dop_steps += r->boxes->held_dops > 0, box_steps += r->boxes->held_boxes > 0;
}

static int laws(void)
{
    static const int seq[] = {1, 2, 3, 4, 6, 7, 8, 5, 6, 7, 2, 3};
    const int n = (int)(sizeof seq / sizeof seq[0]);
    int steps = 0;
    for (int i = 0; i < 8; ++i) {
        const uint64_t st0 = rs_state;
        clash_scene *sc[2];
        clash_error err;
        for (int c = 0; c < 2; ++c) {
            rs_state = st0;
            sc[c] = rs_spheres(i, CLASH_MODE_SWEPT, 8, 1.4, 0.1, i % 4 == 3 ? 0 : 12, &err);
            CHECK(sc[c] != NULL, "laws %d: %s", i, err.msg);
        }
        clash_run *r[2] = {NULL, NULL};
        if (sc[0] && sc[1])
            r[0] = make_run(sc[0], 8, 1 + i % 2, i / 4, 0), r[1] = make_run(sc[1], 8, 1 + i % 2, i / 4, 1);
        for (int k = 0; k < n && r[0] && r[1]; ++k) {
            clash_pairs p[2];
            int rc = clash_step(r[0], seq[k], &p[0], NULL, &err);
            CHECK(rc == 0, "laws %d step %d: %s", i, seq[k], err.msg);
            rc = rc ? rc : clash_step(r[1], seq[k], &p[1], NULL, &err);
            CHECK(rc == 0, "laws %d step %d: %s", i, seq[k], err.msg);
            if (rc) break;
            same("laws", i, seq[k], r[0], r[1], &p[0], &p[1]);
            kept("laws", i, seq[k], r[0], k > 0 && seq[k] == seq[k - 1] + 1);
            kept("laws (held off)", i, seq[k], r[1], 0);
            ++steps;
        }
        for (int c = 0; c < 2; ++c) clash_run_destroy(r[c]), clash_scene_destroy(sc[c]);
    }
    return steps;
}

static int frames(void)
{
    static const int faces[4] = {120, 168, 224, 288};
    char dir[] = "/tmp/clash_held_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp failed");
    int steps = 0;
    for (int i = 0; i < 6; ++i) {
        const uint64_t st0 = rs_state;
        clash_scene *sc[2];
        clash_error err;
        for (int c = 0; c < 2; ++c) {
            rs_state = st0;
            sc[c] = rs_deforming(faces, dir, i, 4, i % 2, &err); /* 4 frames: at most 4 (random_scenes.h) */
            CHECK(sc[c] != NULL, "frames %d: %s", i, err.msg);
        }
        clash_run *r[2] = {NULL, NULL};
        if (sc[0] && sc[1]) r[0] = make_run(sc[0], 3, 2, i / 3, 0), r[1] = make_run(sc[1], 3, 2, i / 3, 1);
        for (int s = 1; s <= 3 && r[0] && r[1]; ++s) {
            clash_pairs p[2];
            int rc = clash_step(r[0], s, &p[0], NULL, &err);
            rc = rc ? rc : clash_step(r[1], s, &p[1], NULL, &err);
            CHECK(rc == 0, "frames %d step %d: %s", i, s, err.msg);
            if (rc) break;
            same("frames", i, s, r[0], r[1], &p[0], &p[1]);
            kept("frames", i, s, r[0], s > 1);
            ++steps;
        }
        for (int c = 0; c < 2; ++c) clash_run_destroy(r[c]), clash_scene_destroy(sc[c]);
    }
    rmdir(dir);
    return steps;
}

/* A host's scene: a rigid sphere posed every step, a deforming one given
 * its vertices every other step (left where it was in between), and a
 * resting box. */
static int host(void)
{
    int steps = 0;
    for (int i = 0; i < 4; ++i) {
        clash_error err;
        clash_mesh ma, mb;
        CHECK(clash_gen_sphere(4 * (12 + i) * (11 + i), &ma, &err) == 0 && clash_gen_sphere(288, &mb, &err) == 0,
              "sphere: %s", err.msg);
        double *xyz = malloc(sizeof(double) * 3 * (size_t)mb.nverts);
        clash_scene *sc[2] = {NULL, NULL};
        clash_run *r[2] = {NULL, NULL};
        int ob = -1;
        for (int c = 0; c < 2; ++c) {
            CHECK(clash_scene_create(&sc[c], &err) == 0, "create: %s", err.msg);
            const int a = clash_scene_add_mesh(sc[c], ma.xyz, ma.nverts, ma.tri, ma.nfaces, &err);
            const int b = clash_scene_add_mesh(sc[c], mb.xyz, mb.nverts, mb.tri, mb.nfaces, &err);
            const double t1[3] = {1.5, 0, 0}, t2[3] = {0, 1.6, 0};
            CHECK(a >= 0 && b >= 0, "add_mesh: %s", err.msg);
            CHECK(clash_scene_add_object(sc[c], a, NULL, NULL, 0, &err) == 0, "add_object: %s", err.msg);
            ob = clash_scene_add_object(sc[c], b, NULL, t1, 1, &err);
            CHECK(ob == 1 && clash_scene_add_object(sc[c], a, NULL, t2, 0, &err) == 2, "add_object: %s", err.msg);
            r[c] = make_run(sc[c], 10, 1 + i % 2, i / 2, c);
        }
        for (int s = 1; s <= 10 && r[0] && r[1] && xyz; ++s) {
            const double ang = 0.05 * s * (1 + i), R[9] = {cos(ang), -sin(ang), 0, sin(ang), cos(ang), 0, 0, 0, 1};
            const double t[3] = {0.05 * s, 0.02 * s, 0};
            for (int64_t v = 0; v < mb.nverts; ++v)
                for (int d = 0; d < 3; ++d)
                    xyz[3 * v + d] = mb.xyz[3 * v + d] * (1 + 0.02 * sin(s + v)) + (d == 0 ? 1.5 - 0.08 * s : 0);
            clash_pairs p[2];
            int rc = 0;
            for (int c = 0; c < 2 && !rc; ++c) {
                rc = clash_run_set_pose(r[c], 0, R, t, &err);
                if (!rc && s % 2) rc = clash_run_set_vertices(r[c], ob, xyz, &err);
                if (!rc) rc = clash_run_advance(r[c], &p[c], NULL, &err);
            }
            CHECK(rc == 0, "host %d step %d: %s", i, s, err.msg);
            if (rc) break;
            same("host", i, s, r[0], r[1], &p[0], &p[1]);
            kept("host", i, s, r[0], s > 1);
            ++steps;
        }
        for (int c = 0; c < 2; ++c) clash_run_destroy(r[c]), clash_scene_destroy(sc[c]);
        free(xyz), clash_mesh_free(&ma), clash_mesh_free(&mb);
    }
    return steps;
}

int main(void)
{
    const int a = laws(), b = frames(), c = host();
    printf("held bounds: %d law steps, %d frame steps, %d host steps; boxes kept in %ld steps, %ld DOPs in %ld\n", a,
           b, c, box_steps, held_dops, dop_steps);
    CHECK(a >= 80 && b >= 15 && c >= 35, "too few steps ran: %d, %d, %d", a, b, c);
    CHECK(box_steps >= (a + b + c) / 4, "boxes kept in only %ld of %d steps", box_steps, a + b + c);
    CHECK(dop_steps >= (a + b + c) / 4, "DOPs kept in only %ld of %d steps", dop_steps, a + b + c);
    return check_finish("test_held_bounds");
}
