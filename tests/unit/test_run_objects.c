/*
 * test_run_objects.c — objects that come and go in a running run, and the
 * host's filters (clash_run_add_object, _remove_object, _set_enabled,
 * _set_filter, _exclude_pair, _set_self; src/run_objects.c):
 *   - filtered, excluded, disabled and removed pairs never appear, and the
 *     S3-S5 work (faces kept, candidates, tests) is that of the scene
 *     without the objects kept out, for every midphase but the oracle (the
 *     face octree, the BVH, the bounding-box pipeline, the object octree,
 *     the spherical octree, the BoxTree and the DOP-tree), swept and static;
 *   - an excluded pair among three objects that all meet: the pairs are
 *     those of the unfiltered run less the excluded pair's, for each midphase;
 *   - an object added at step k meets at step k+1 exactly what a run that had
 *     it from the start at that place meets (no sweep from the origin or
 *     from its mesh's first object), for every midphase and with ccd; a
 *     deforming object added and moved by its vertices likewise; an object
 *     added to a preset moved by its own law changes none of its pairs;
 *   - removal: no pair of it afterwards, "object N was removed" for every
 *     call naming it, its id never given again;
 *   - self-collision per object, against the run with it on for all;
 *   - the scenario of objects_scenario.h gives the same pairs and contacts
 *     at 1 and 2 threads;
 *   - bad arguments are refused with CLASH_EINPUT naming the object and the
 *     element, and change nothing (the pairs after them are as without them).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clash/clash.h"
#include "objects_scenario.h"

static int names(const clash_error *e, const char *what)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", what);
    for (char *tok = strtok(buf, "|"); tok; tok = strtok(NULL, "|"))
        if (!strstr(e->msg, tok)) return 0;
    return 1;
}

/* A scene of spheres (mesh 0) and self-intersecting pairs of spheres (mesh 1). */
static clash_scene *scene_of(int n, const double (*at)[3], const int *mesh, clash_error *err)
{
    clash_scene *sc = NULL;
    if (clash_scene_create(&sc, err) || os_meshes(sc, err)) {
        clash_scene_destroy(sc);
        return NULL;
    }
    for (int o = 0; o < n; ++o)
        if (clash_scene_add_object(sc, mesh ? mesh[o] : 0, NULL, at[o], 0, err) != o) {
            clash_scene_destroy(sc);
            return NULL;
        }
    return sc;
}

static clash_config config(int midphase, int mode, int threads)
{
    clash_config c = clash_config_default();
    c.midphase = midphase, c.mode = mode, c.threads = threads, c.self_collision = 0;
    return c;
}

static const char *mid_name(int m)
{
    static const char *const n[] = {"octree",    "bvh",       "bboxpipe", "brute",
                                    "objoctree", "spherical", "boxtree",  "doptree"};
    return m >= 0 && m < 8 ? n[m] : "?";
}

/* ---- filtered pairs cost nothing ------------------------------------------------------ */

enum { V_FILTER, V_EXCLUDE, V_DISABLE, V_REMOVE, NVARIANT };
static const char *const vname[NVARIANT] = {"filter", "exclude", "disable", "remove"};

/* Scene A: objects 0 and 1 meet near the origin, 2 and 3 meet at x = 10;
 * variant v keeps the pair (0, 1) out.  Scene B: objects 2 and 3 alone.
 * Three steps, the same poses for 2 and 3 in both. */
static void filtered_cost(int midphase, int mode, int v)
{
    const double at[4][3] = {{0, 0, 0}, {1.3, 0, 0}, {10, 0, 0}, {11.4, 0.2, 0}};
    clash_error err = {0};
    clash_scene *A = scene_of(4, at, NULL, &err), *B = scene_of(2, at + 2, NULL, &err);
    const clash_config cfg = config(midphase, mode, 2);
    clash_run *ra = A ? clash_run_create(A, &cfg, &err) : NULL, *rb = B ? clash_run_create(B, &cfg, &err) : NULL;
    CHECK(ra && rb, "runs: %s", err.msg);
    if (!ra || !rb) goto out;
    int rc = 0;
    if (v == V_FILTER) rc = clash_run_set_filter(ra, 0, 1, ~1u, &err) || clash_run_set_filter(ra, 1, 1, ~1u, &err);
    if (v == V_EXCLUDE) rc = clash_run_exclude_pair(ra, 0, 1, 1, &err);
    if (v == V_DISABLE) rc = clash_run_set_enabled(ra, 0, 0, &err);
    if (v == V_REMOVE) rc = clash_run_remove_object(ra, 1, &err);
    CHECK(rc == 0, "%s: %s", vname[v], err.msg);
    for (int s = 1; s <= 3; ++s) {
        double R[9];
        os_rotz(0.07 * s, R);
        const double t0[3] = {0.05 * s, 0, 0}, t3[3] = {11.4 - 0.05 * s, 0.2, 0};
        clash_run_set_pose(ra, 0, R, t0, &err);
        if (v != V_REMOVE) clash_run_set_pose(ra, 1, NULL, at[1], &err);
        clash_run_set_pose(ra, 2, R, at[2], &err), clash_run_set_pose(rb, 0, R, at[2], &err);
        clash_run_set_pose(ra, 3, NULL, t3, &err), clash_run_set_pose(rb, 1, NULL, t3, &err);
        clash_pairs pa, pb;
        clash_step_stats sa, sb;
        const int ea = clash_run_advance(ra, &pa, &sa, &err), eb = clash_run_advance(rb, &pb, &sb, &err);
        CHECK(ea == 0 && eb == 0, "advance: %s", err.msg);
        if (ea || eb) break;
        const char *m = mid_name(midphase), *md = mode ? "swept" : "static";
        int same = pa.count == pb.count;
        for (size_t i = 0; same && i < pa.count; ++i)
            same = pa.pairs[i].obj_a == pb.pairs[i].obj_a + 2 && pa.pairs[i].obj_b == pb.pairs[i].obj_b + 2 &&
                   pa.pairs[i].face_a == pb.pairs[i].face_a && pa.pairs[i].face_b == pb.pairs[i].face_b;
        CHECK(same, "%s %s %s step %d: %zu pairs against %zu without objects 0 and 1", m, md, vname[v], s, pa.count,
              pb.count);
        CHECK(pb.count > 0, "%s %s step %d: objects 2 and 3 meet", m, md, s);
        CHECK(sa.candidates == sb.candidates && sa.tests == sb.tests,
              "%s %s %s step %d: S4/S5 work %lld candidates %lld tests, without them %lld %lld", m, md, vname[v], s,
              (long long)sa.candidates, (long long)sa.tests, (long long)sb.candidates, (long long)sb.tests);
        if (midphase == CLASH_MID_OCTREE) /* (the others cull inside S4: their faces_kept is every face) */
            CHECK(sa.faces_kept == sb.faces_kept, "%s %s %s step %d: faces kept %lld, without them %lld", m, md,
                  vname[v], s, (long long)sa.faces_kept, (long long)sb.faces_kept);
        CHECK(sa.object_pairs == sb.object_pairs && sa.object_pairs_filtered == 1 && sb.object_pairs_filtered == 0,
              "%s %s %s step %d: object pairs %lld (filtered %lld), without them %lld", m, md, vname[v], s,
              (long long)sa.object_pairs, (long long)sa.object_pairs_filtered, (long long)sb.object_pairs);
        CHECK(sa.objects_off == (v >= V_DISABLE), "%s %s step %d: objects off %lld", vname[v], md, s,
              (long long)sa.objects_off);
    }
out:
    clash_run_destroy(ra), clash_run_destroy(rb);
    clash_scene_destroy(A), clash_scene_destroy(B);
}

/* ---- an excluded pair among three that meet -------------------------------------------- */

static void excluded_among_three(int midphase, int mode)
{
    const double at[3][3] = {{0, 0, 0}, {1.2, 0, 0}, {0.6, 1.0, 0}};
    clash_error err = {0};
    clash_scene *A = scene_of(3, at, NULL, &err), *B = scene_of(3, at, NULL, &err);
    const clash_config cfg = config(midphase, mode, 2);
    clash_run *ra = A ? clash_run_create(A, &cfg, &err) : NULL, *rb = B ? clash_run_create(B, &cfg, &err) : NULL;
    CHECK(ra && rb, "runs: %s", err.msg);
    if (!ra || !rb) goto out;
    CHECK(clash_run_exclude_pair(ra, 2, 0, 1, &err) == 0, "exclude: %s", err.msg);
    for (int s = 1; s <= 2; ++s) {
        double R[9];
        os_rotz(0.1 * s, R);
        clash_run_set_pose(ra, 1, R, at[1], &err), clash_run_set_pose(rb, 1, R, at[1], &err);
        clash_pairs pa, pb;
        if (clash_run_advance(ra, &pa, NULL, &err) || clash_run_advance(rb, &pb, NULL, &err)) {
            CHECK(0, "advance: %s", err.msg);
            break;
        }
        size_t k = 0, n02 = 0;
        int same = 1;
        for (size_t i = 0; i < pb.count; ++i) {
            if (pb.pairs[i].obj_a == 0 && pb.pairs[i].obj_b == 2) {
                ++n02;
                continue;
            }
            same = same && k < pa.count && !memcmp(&pa.pairs[k], &pb.pairs[i], sizeof pa.pairs[k]);
            ++k;
        }
        CHECK(n02 > 0, "%s: objects 0 and 2 meet unfiltered", mid_name(midphase));
        CHECK(same && k == pa.count, "%s %s step %d: %zu pairs with (0, 2) excluded, %zu - %zu without the filter",
              mid_name(midphase), mode ? "swept" : "static", s, pa.count, pb.count, n02);
    }
out:
    clash_run_destroy(ra), clash_run_destroy(rb);
    clash_scene_destroy(A), clash_scene_destroy(B);
}

/* ---- an object added at step k ----------------------------------------------------------- */

/* Object 0 at the origin (turning), 1 at x = 10, 2 steps; then object 2
 * joins at x = 10.6, turned (on 1, far from 0 and from the origin, and from
 * its mesh's other objects' poses) and step 3 must give what step 1 of a run
 * with object 2 there from the start gives; then 2 moves, the same in
 * both, for step 4. */
static void added_at_k(int midphase, int mode, int ccd)
{
    const double at[3][3] = {{0, 0, 0}, {10, 0, 0}, {10.6, 0.3, 0}};
    clash_error err = {0};
    double R[9];
    os_rotz(0.1, R);
    clash_scene *A = scene_of(2, at, NULL, &err), *B = scene_of(2, at, NULL, &err);
    if (B && clash_scene_add_object(B, 0, R, at[2], 0, &err) != 2) clash_scene_destroy(B), B = NULL;
    clash_config cfg = config(midphase, mode, 2);
    cfg.ccd = ccd;
    clash_run *ra = A ? clash_run_create(A, &cfg, &err) : NULL, *rb = B ? clash_run_create(B, &cfg, &err) : NULL;
    CHECK(ra && rb, "runs: %s", err.msg);
    if (!ra || !rb) goto out;
    const char *m = mid_name(midphase), *md = mode ? "swept" : "static";
    clash_pairs pa, pb;
    for (int s = 1; s <= 2; ++s) {
        double Q[9];
        os_rotz(0.05 * s, Q);
        clash_run_set_pose(ra, 0, Q, at[0], &err);
        CHECK(clash_run_advance(ra, &pa, NULL, &err) == 0 && pa.count == 0, "%s: steps before: %s", m, err.msg);
    }
    const int id = clash_run_add_object(ra, 0, R, at[2], 0, &err);
    CHECK(id == 2, "%s: add_object gives %d: %s", m, id, err.msg);
    CHECK(clash_scene_objects(A) == 3, "%s: the scene has the object", m);
    for (int s = 0; s < 2; ++s) {
        if (s == 1) { /* (B's first step: 2 stays where A put it, and so does A's) */
            const double t[3] = {10.5, 0.3, 0.1};
            clash_run_set_pose(ra, 2, R, t, &err), clash_run_set_pose(rb, 2, R, t, &err);
        }
        clash_step_stats sa, sb;
        if (clash_run_advance(ra, &pa, &sa, &err) || clash_run_advance(rb, &pb, &sb, &err)) {
            CHECK(0, "%s: advance: %s", m, err.msg);
            break;
        }
        int none0 = 1;
        for (size_t i = 0; i < pa.count; ++i) none0 = none0 && pa.pairs[i].obj_a != 0;
        CHECK(pa.count > 0 && none0, "%s %s: step %d after the add: %zu pairs, none with object 0: %d", m, md, 3 + s,
              pa.count, none0);
        CHECK(pa.count == pb.count && (!pa.count || !memcmp(pa.pairs, pb.pairs, pa.count * sizeof *pa.pairs)),
              "%s %s%s: step %d after the add: %zu pairs, %zu with the object there from the start", m, md,
              ccd ? " ccd" : "", 3 + s, pa.count, pb.count);
        CHECK(sa.candidates == sb.candidates, "%s %s: candidates %lld against %lld", m, md, (long long)sa.candidates,
              (long long)sb.candidates);
        if (ccd) {
            clash_contacts ca, cb;
            clash_run_contacts(ra, &ca, &err), clash_run_contacts(rb, &cb, &err);
            int same = ca.count == cb.count;
            for (size_t i = 0; same && i < ca.count; ++i)
                same = ca.contacts[i].id_a == cb.contacts[i].id_a && ca.contacts[i].id_b == cb.contacts[i].id_b &&
                       ca.contacts[i].kind == cb.contacts[i].kind && ca.contacts[i].toi == cb.contacts[i].toi;
            CHECK(same && ca.count > 0, "%s ccd: step %d: %zu contacts against %zu", m, 3 + s, ca.count, cb.count);
        }
    }
out:
    clash_run_destroy(ra), clash_run_destroy(rb);
    clash_scene_destroy(A), clash_scene_destroy(B);
}

/* An object added before the first advance is as one added to the scene. */
static void added_before_first_step(void)
{
    const double at[3][3] = {{0, 0, 0}, {1.2, 0, 0}, {0.6, 1.0, 0}};
    clash_error err = {0};
    clash_scene *A = scene_of(2, at, NULL, &err), *B = scene_of(3, at, NULL, &err);
    const clash_config cfg = config(CLASH_MID_OCTREE, CLASH_MODE_SWEPT, 2);
    clash_run *ra = A ? clash_run_create(A, &cfg, &err) : NULL, *rb = B ? clash_run_create(B, &cfg, &err) : NULL;
    CHECK(ra && rb, "runs: %s", err.msg);
    if (ra && rb) {
        CHECK(clash_run_add_object(ra, 0, NULL, at[2], 0, &err) == 2, "add before the first step: %s", err.msg);
        clash_pairs pa, pb;
        CHECK(clash_run_advance(ra, &pa, NULL, &err) == 0 && clash_run_advance(rb, &pb, NULL, &err) == 0,
              "advance: %s", err.msg);
        CHECK(pa.count > 0 && pa.count == pb.count && !memcmp(pa.pairs, pb.pairs, pa.count * sizeof *pa.pairs),
              "added before the first step: %zu pairs, %zu with it in the scene", pa.count, pb.count);
    }
    clash_run_destroy(ra), clash_run_destroy(rb);
    clash_scene_destroy(A), clash_scene_destroy(B);
}

/* ---- removal ------------------------------------------------------------------------------ */

static void removal(void)
{
    const double at[3][3] = {{0, 0, 0}, {1.2, 0, 0}, {0.6, 1.0, 0}};
    clash_error err = {0};
    clash_scene *sc = scene_of(3, at, NULL, &err);
    const clash_config cfg = config(CLASH_MID_OCTREE, CLASH_MODE_SWEPT, 2);
    clash_run *run = sc ? clash_run_create(sc, &cfg, &err) : NULL;
    CHECK(run != NULL, "run: %s", err.msg);
    if (!run) goto out;
    clash_pairs p;
    CHECK(clash_run_advance(run, &p, NULL, &err) == 0 && p.count > 0, "step 1: %s", err.msg);
    int with1 = 0;
    for (size_t i = 0; i < p.count; ++i) with1 += p.pairs[i].obj_a == 1 || p.pairs[i].obj_b == 1;
    CHECK(with1 > 0, "object 1 meets the others before its removal");
    CHECK(clash_run_remove_object(run, 1, &err) == 0, "remove: %s", err.msg);
    const double t[3] = {1.1, 0, 0};
    CHECK(clash_run_set_pose(run, 1, NULL, t, &err) == CLASH_EINPUT && names(&err, "object 1 was removed"),
          "set_pose of a removed object: %s", err.msg);
    CHECK(clash_run_remove_object(run, 1, &err) == CLASH_EINPUT && names(&err, "object 1 was removed"),
          "remove twice: %s", err.msg);
    CHECK(clash_run_set_enabled(run, 1, 1, &err) == CLASH_EINPUT && names(&err, "object 1 was removed"),
          "enable a removed object: %s", err.msg);
    CHECK(clash_run_exclude_pair(run, 0, 1, 1, &err) == CLASH_EINPUT && names(&err, "object 1 was removed"),
          "exclude with a removed object: %s", err.msg);
    CHECK(clash_run_set_self(run, 1, 1, &err) == CLASH_EINPUT && names(&err, "object 1 was removed"),
          "set_self of a removed object: %s", err.msg);
    CHECK(clash_run_set_filter(run, 1, 1, 1, &err) == CLASH_EINPUT && names(&err, "object 1 was removed"),
          "set_filter of a removed object: %s", err.msg);
    for (int s = 2; s <= 3; ++s) {
        CHECK(clash_run_advance(run, &p, NULL, &err) == 0, "step %d: %s", s, err.msg);
        with1 = 0;
        for (size_t i = 0; i < p.count; ++i) with1 += p.pairs[i].obj_a == 1 || p.pairs[i].obj_b == 1;
        CHECK(with1 == 0 && p.count > 0, "step %d: %d pairs with removed object 1 (of %zu)", s, with1, p.count);
    }
    const int id = clash_run_add_object(run, 0, NULL, at[1], 0, &err);
    CHECK(id == 3, "the object added after a removal gets id 3, not 1: %d (%s)", id, err.msg);
    CHECK(clash_run_advance(run, &p, NULL, &err) == 0, "step 4: %s", err.msg);
    int with3 = 0;
    for (size_t i = 0; i < p.count; ++i) with3 += p.pairs[i].obj_b == 3, with1 += p.pairs[i].obj_a == 1;
    CHECK(with3 > 0 && with1 == 0, "step 4: object 3 meets the others (%d), 1 stays out (%d)", with3, with1);
out:
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

/* ---- self-collision per object ----------------------------------------------------------- */

/* Objects 0 and 1 each intersect themselves (mesh 1), far apart.  Run S has
 * self-collision for all; run X has it off but on for 0; run Y has it on but
 * off for 1: X and Y give S's pairs less object 1's own. */
static void self_per_object(int midphase, int mode)
{
    const double at[2][3] = {{0, 0, 0}, {10, 0, 0}};
    const int mesh[2] = {1, 1};
    clash_error err = {0};
    clash_scene *sc[3];
    clash_run *r[3];
    for (int k = 0; k < 3; ++k) {
        sc[k] = scene_of(2, at, mesh, &err);
        clash_config c = config(midphase, mode, 2);
        c.self_collision = k != 1;
        r[k] = sc[k] ? clash_run_create(sc[k], &c, &err) : NULL;
        CHECK(r[k] != NULL, "run %d: %s", k, err.msg);
    }
    if (!r[0] || !r[1] || !r[2]) goto out;
    CHECK(clash_run_set_self(r[1], 0, 1, &err) == 0 && clash_run_set_self(r[2], 1, 0, &err) == 0, "set_self: %s",
          err.msg);
    clash_pairs p[3];
    for (int k = 0; k < 3; ++k) CHECK(clash_run_advance(r[k], &p[k], NULL, &err) == 0, "advance %d: %s", k, err.msg);
    size_t own0 = 0, own1 = 0;
    for (size_t i = 0; i < p[0].count; ++i) own0 += p[0].pairs[i].obj_b == 0, own1 += p[0].pairs[i].obj_a == 1;
    CHECK(own0 > 0 && own1 > 0 && own0 + own1 == p[0].count, "%s: both objects meet themselves (%zu, %zu)",
          mid_name(midphase), own0, own1);
    for (int k = 1; k < 3; ++k)
        CHECK(p[k].count == own0 && !memcmp(p[k].pairs, p[0].pairs, own0 * sizeof *p[0].pairs),
              "%s %s run %d: %zu pairs, object 0's own are %zu", mid_name(midphase), mode ? "swept" : "static", k,
              p[k].count, own0);
out:
    for (int k = 0; k < 3; ++k) clash_run_destroy(r[k]), clash_scene_destroy(sc[k]);
}

/* ---- bad arguments ------------------------------------------------------------------------ */

static void bad_arguments(void)
{
    const double at[3][3] = {{0, 0, 0}, {1.2, 0, 0}, {0.6, 1.0, 0}};
    clash_error err = {0};
    clash_scene *A = scene_of(3, at, NULL, &err), *B = scene_of(3, at, NULL, &err);
    const clash_config cfg = config(CLASH_MID_OCTREE, CLASH_MODE_SWEPT, 2);
    clash_run *ra = A ? clash_run_create(A, &cfg, &err) : NULL, *rb = B ? clash_run_create(B, &cfg, &err) : NULL;
    CHECK(ra && rb, "runs: %s", err.msg);
    if (!ra || !rb) goto out;
    const double nan3[3] = {0, NAN, 0}, far3[3] = {0, 0, 3.5e38};
    const double notrot[9] = {1, 0, 0, 0, 2, 0, 0, 0, 1};
    CHECK(clash_run_add_object(ra, 7, NULL, NULL, 0, &err) == -CLASH_EINPUT && names(&err, "object 3|mesh 7"),
          "add_object, bad mesh: %s", err.msg);
    CHECK(clash_run_add_object(ra, -1, NULL, NULL, 0, &err) == -CLASH_EINPUT && names(&err, "object 3|mesh -1"),
          "add_object, mesh -1: %s", err.msg);
    CHECK(clash_run_add_object(ra, 0, NULL, nan3, 0, &err) == -CLASH_EINPUT && names(&err, "object 3|trans[1]|nan"),
          "add_object, NaN translation: %s", err.msg);
    CHECK(clash_run_add_object(ra, 0, NULL, far3, 0, &err) == -CLASH_EINPUT && names(&err, "object 3|trans[2]"),
          "add_object, out of float range: %s", err.msg);
    CHECK(clash_run_add_object(ra, 0, notrot, NULL, 0, &err) == -CLASH_EINPUT && names(&err, "object 3|rot"),
          "add_object, not a rotation: %s", err.msg);
    CHECK(clash_run_add_object(NULL, 0, NULL, NULL, 0, &err) == -CLASH_EINPUT && names(&err, "run is NULL"),
          "add_object, NULL run: %s", err.msg);
    CHECK(clash_scene_objects(A) == 3, "refused adds change nothing: %d objects", clash_scene_objects(A));
    CHECK(clash_run_set_filter(ra, 7, 1, 1, &err) == CLASH_EINPUT && names(&err, "object 7|no such object"),
          "set_filter, unknown object: %s", err.msg);
    CHECK(clash_run_set_enabled(ra, -2, 0, &err) == CLASH_EINPUT && names(&err, "object -2"),
          "set_enabled, unknown object: %s", err.msg);
    CHECK(clash_run_set_self(ra, 3, 1, &err) == CLASH_EINPUT && names(&err, "object 3"), "set_self, unknown: %s",
          err.msg);
    CHECK(clash_run_exclude_pair(ra, 1, 1, 1, &err) == CLASH_EINPUT && names(&err, "objects 1 and 1|set_self"),
          "exclude_pair of one object: %s", err.msg);
    CHECK(clash_run_exclude_pair(ra, 0, 9, 1, &err) == CLASH_EINPUT && names(&err, "object 9"),
          "exclude_pair, unknown object: %s", err.msg);
    CHECK(clash_run_remove_object(ra, 3, &err) == CLASH_EINPUT && names(&err, "object 3"), "remove, unknown: %s",
          err.msg);
    CHECK(clash_scene_add_object(A, 0, NULL, NULL, 0, &err) == -CLASH_EINPUT && names(&err, "clash_run_add_object"),
          "scene_add_object during a run points at clash_run_add_object: %s", err.msg);
    for (int s = 1; s <= 2; ++s) {
        clash_pairs pa, pb;
        clash_step_stats sa;
        CHECK(clash_run_advance(ra, &pa, &sa, &err) == 0 && clash_run_advance(rb, &pb, NULL, &err) == 0, "advance: %s",
              err.msg);
        CHECK(pa.count == pb.count && pa.count > 0 && !memcmp(pa.pairs, pb.pairs, pa.count * sizeof *pa.pairs),
              "step %d after refused calls: %zu pairs, %zu without them", s, pa.count, pb.count);
        CHECK(sa.object_pairs_filtered == 0 && sa.objects_off == 0, "refused calls filter nothing");
    }
out:
    clash_run_destroy(ra), clash_run_destroy(rb);
    clash_scene_destroy(A), clash_scene_destroy(B);
}

/* ---- the scenario at 1 and 2 threads ------------------------------------------------------ */

static void scenario_threads(int midphase, int ccd)
{
    os_step a[OS_STEPS], b[OS_STEPS];
    clash_error err = {0};
    clash_config c1 = config(midphase, CLASH_MODE_SWEPT, 1), c2 = config(midphase, CLASH_MODE_SWEPT, 2);
    c1.ccd = c2.ccd = ccd;
    const int r1 = os_run(&c1, a, &err), r2 = r1 ? -1 : os_run(&c2, b, &err);
    CHECK(r1 == 0 && r2 == 0, "scenario: %s", err.msg);
    if (!r1 && !r2) {
        CHECK(os_same(a, b), "%s%s: the scenario's pairs differ between 1 and 2 threads", mid_name(midphase),
              ccd ? " ccd" : "");
        size_t n = 0, n45 = 0, n2 = 0, n3 = 0;
        for (int s = 0; s < OS_STEPS; ++s)
            for (size_t i = 0; i < a[s].npairs; ++i) {
                const clash_pair *p = &a[s].pairs[i];
                n += 1, n45 += p->obj_a == 4 && p->obj_b == 5, n2 += s >= 4 && (p->obj_a == 2 || p->obj_b == 2);
                n3 += p->obj_a == 3 && p->obj_b == 3;
                CHECK(!(s == 3 || s == 4) || !(p->obj_a == 0 && p->obj_b == 1), "step %d: excluded pair (0, 1)",
                      s + 1);
                CHECK(s != 6 || p->obj_a != 0, "step 7: disabled object 0 in a pair");
            }
        CHECK(n > 0 && n45 == 0 && n2 == 0, "scenario: %zu pairs, %zu of the filtered (4, 5), %zu of removed 2", n,
              n45, n2);
        CHECK(n3 > 0, "scenario: object 3 meets itself once its self-collision is on");
        CHECK(a[7].npairs > 0 && a[2].npairs > 0, "scenario: pairs at steps 3 and 8");
    }
    if (!r1) os_free(a, OS_STEPS);
    if (!r2) os_free(b, OS_STEPS);
}

/* ---- a deforming object added, then moved by its vertices ------------------------------ */

/* Object 0 (rigid) at the origin, 1 at x = 10; after a step a deforming
 * object 2 (the scene's first) joins on 1 and is then squeezed along x by
 * clash_run_set_vertices: each step equals a run that had it from the start. */
static void added_deforming(int midphase)
{
    const double at[3][3] = {{0, 0, 0}, {10, 0, 0}, {10.7, 0.2, 0}};
    clash_error err = {0};
    clash_scene *A = scene_of(2, at, NULL, &err), *B = scene_of(2, at, NULL, &err);
    if (B && clash_scene_add_object(B, 0, NULL, at[2], 1, &err) != 2) clash_scene_destroy(B), B = NULL;
    const clash_config cfg = config(midphase, CLASH_MODE_SWEPT, 2);
    clash_run *ra = A ? clash_run_create(A, &cfg, &err) : NULL, *rb = B ? clash_run_create(B, &cfg, &err) : NULL;
    CHECK(ra && rb, "runs: %s", err.msg);
    if (!ra || !rb) goto out;
    clash_pairs pa, pb;
    CHECK(clash_run_advance(ra, &pa, NULL, &err) == 0 && pa.count == 0, "step 1: %s", err.msg);
    CHECK(clash_run_add_object(ra, 0, NULL, at[2], 1, &err) == 2, "add a deforming object: %s", err.msg);
    const int64_t nv = clash_scene_object_vertices(A, 2);
    double *xyz = malloc(sizeof(double) * 3 * (size_t)nv);
    for (int s = 0; s < 3 && xyz; ++s) {
        if (s > 0) { /* squeezed along x about its centre, nearer to 1 */
            for (int64_t v = 0; v < nv; ++v) {
                double w[3];
                clash_scene_vertex_at(B, 2, v, 0, w, &err);
                xyz[3 * v] = at[2][0] - 0.1 * s + (w[0] - at[2][0]) * (1 - 0.1 * s), xyz[3 * v + 1] = w[1];
                xyz[3 * v + 2] = w[2];
            }
            CHECK(clash_run_set_vertices(ra, 2, xyz, &err) == 0 && clash_run_set_vertices(rb, 2, xyz, &err) == 0,
                  "set_vertices: %s", err.msg);
        }
        if (clash_run_advance(ra, &pa, NULL, &err) || clash_run_advance(rb, &pb, NULL, &err)) {
            CHECK(0, "advance: %s", err.msg);
            break;
        }
        CHECK(pa.count > 0 && pa.count == pb.count && !memcmp(pa.pairs, pb.pairs, pa.count * sizeof *pa.pairs),
              "%s deforming: step %d after the add: %zu pairs, %zu with it there from the start", mid_name(midphase),
              2 + s, pa.count, pb.count);
    }
    free(xyz);
out:
    clash_run_destroy(ra), clash_run_destroy(rb);
    clash_scene_destroy(A), clash_scene_destroy(B);
}

/* ---- an object added to a scene that moves by its own law ------------------------------- */

/* The default preset moved by clash_step; after step 2 a sphere joins where
 * nothing is (far above the preset), and the steps after it give the
 * preset's own pairs (a run without the add) plus none of the new object. */
static void added_to_preset(void)
{
    clash_error err = {0};
    clash_scene *A = NULL, *B = NULL;
    CHECK(clash_scene_preset("default", NULL, &A, &err) == 0 && clash_scene_preset("default", NULL, &B, &err) == 0,
          "preset: %s", err.msg);
    if (!A || !B) goto out0;
    clash_config cfg = clash_config_default();
    cfg.threads = 2;
    clash_scene_apply_defaults(A, &cfg);
    clash_run *ra = clash_run_create(A, &cfg, &err), *rb = clash_run_create(B, &cfg, &err);
    CHECK(ra && rb, "runs: %s", err.msg);
    if (!ra || !rb) goto out;
    const int nobj = clash_scene_objects(A);
    clash_error e2 = {0};
    clash_scene *M = NULL; /* a sphere mesh for A, from the test's own meshes */
    CHECK(clash_scene_create(&M, &e2) == 0 && os_meshes(M, &e2) == 0, "meshes: %s", e2.msg);
    clash_scene_destroy(M);
    clash_mesh s;
    CHECK(clash_gen_sphere(168, &s, &err) == 0, "sphere: %s", err.msg);
    const int mesh = clash_scene_add_mesh(A, s.xyz, s.nverts, s.tri, s.nfaces, &err);
    clash_mesh_free(&s);
    CHECK(mesh >= 0, "a mesh added to a scene a run uses: %s", err.msg);
    size_t total = 0;
    for (int st = 1; st <= 6; ++st) {
        if (st == 3) {
            const double far[3] = {0, 0, 1e4};
            CHECK(clash_run_add_object(ra, mesh, NULL, far, 0, &err) == nobj, "add to the preset: %s", err.msg);
        }
        clash_pairs pa, pb;
        if (clash_step(ra, st, &pa, NULL, &err) || clash_step(rb, st, &pb, NULL, &err)) {
            CHECK(0, "step %d: %s", st, err.msg);
            break;
        }
        total += pb.count;
        CHECK(pa.count == pb.count && (!pa.count || !memcmp(pa.pairs, pb.pairs, pa.count * sizeof *pa.pairs)),
              "preset step %d: %zu pairs with an object added far away, %zu without", st, pa.count, pb.count);
    }
    CHECK(total > 0, "the preset has pairs");
out:
    clash_run_destroy(ra), clash_run_destroy(rb);
out0:
    clash_scene_destroy(A), clash_scene_destroy(B);
}

int main(void)
{
    const int mids[7] = {CLASH_MID_OCTREE, CLASH_MID_BVH, CLASH_MID_OBJOCTREE, CLASH_MID_BBOXPIPE,
                         CLASH_MID_SPHERICAL, CLASH_MID_BOXTREE, CLASH_MID_DOPTREE};
    for (int m = 0; m < 7; ++m) added_deforming(mids[m]);
    added_to_preset();
    for (int m = 0; m < 7; ++m)
        for (int mode = 0; mode < 2; ++mode) {
            for (int v = 0; v < NVARIANT; ++v) filtered_cost(mids[m], mode, v);
            excluded_among_three(mids[m], mode);
            added_at_k(mids[m], mode, 0);
            self_per_object(mids[m], mode);
        }
    added_at_k(CLASH_MID_OCTREE, CLASH_MODE_SWEPT, 1);
    added_before_first_step();
    removal();
    bad_arguments();
    scenario_threads(CLASH_MID_OCTREE, 0);
    scenario_threads(CLASH_MID_BVH, 0);
    scenario_threads(CLASH_MID_OCTREE, 1);
    return check_finish("test_run_objects");
}
