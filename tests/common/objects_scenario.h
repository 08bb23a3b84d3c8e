/*
 * objects_scenario.h — a run whose objects come and go, for the tests of
 * clash_run_add_object and its neighbours (test_run_objects.c, and the
 * two-rank comparison test_run_objects_mpi.c): the meshes, the poses of each
 * step, and a scenario of eight steps that adds, removes, disables,
 * filters and excludes, recording every step's pairs (and contacts).
 */
#ifndef CLASH_TESTS_OBJECTS_SCENARIO_H
#define CLASH_TESTS_OBJECTS_SCENARIO_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clash/clash.h"
#include "store/generators.h"
#include "store/mesh.h"

/* Mesh 0: a UV sphere of radius 1 (168 faces); mesh 1: two such spheres
 * 0.8 apart in one mesh, an object that intersects itself. */
static inline int os_meshes(clash_scene *sc, clash_error *err)
{
    clash_mesh s;
    if (clash_gen_sphere(168, &s, err)) return -1;
    int rc = clash_scene_add_mesh(sc, s.xyz, s.nverts, s.tri, s.nfaces, err) == 0 ? 0 : -1;
    double *xyz = malloc(sizeof(double) * 6 * (size_t)s.nverts);
    int32_t *tri = malloc(sizeof(int32_t) * 6 * (size_t)s.nfaces);
    if (!rc && xyz && tri) {
        memcpy(xyz, s.xyz, sizeof(double) * 3 * (size_t)s.nverts);
        for (int64_t i = 0; i < 3 * s.nverts; ++i) xyz[3 * s.nverts + i] = s.xyz[i] + (i % 3 == 0 ? 0.8 : 0);
        memcpy(tri, s.tri, sizeof(int32_t) * 3 * (size_t)s.nfaces);
        for (int64_t i = 0; i < 3 * s.nfaces; ++i) tri[3 * s.nfaces + i] = s.tri[i] + (int32_t)s.nverts;
        rc = clash_scene_add_mesh(sc, xyz, 2 * s.nverts, tri, 2 * s.nfaces, err) == 1 ? 0 : -1;
    } else rc = -1;
    free(xyz), free(tri);
    clash_mesh_free(&s);
    return rc;
}

/* The rotation by angle a about z (row-major). */
static inline void os_rotz(double a, double R[9])
{
    const double c = cos(a), s = sin(a);
    const double r[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(R, r, sizeof r);
}

/* One step's pairs (and contacts) as recorded by os_run. */
typedef struct os_step {
    size_t npairs, ncontacts;
    clash_pair *pairs;
    clash_contact *contacts;
    clash_step_stats st;
} os_step;

enum { OS_STEPS = 8 };

static inline void os_free(os_step *s, int n)
{
    for (int i = 0; i < n; ++i) free(s[i].pairs), free(s[i].contacts);
}

/* The scenario: objects 0 (sphere at 0), 1 (sphere at 1.2, moving to and
 * fro along x), 2 (sphere at 6, turning), 3 (the self-intersecting pair of
 * spheres at 12); before step 3 object 4 joins at 6.8 (beside 2); before
 * step 4 the pair (0, 1) is excluded; before 5, object 2 leaves and object
 * 4 goes into group 2 seeing all but group 2; before 6, object 5 joins at
 * 7.4 in group 2 (so 4 and 5 never pair) and 3 tests itself; before 7, 0 is
 * disabled and the pair (0, 1) let back; before 8, 0 is enabled again.
 * Returns 0 with out[0..OS_STEPS) filled, or -1 (err says why). */
static inline int os_run(const clash_config *cfg, os_step *out, clash_error *err)
{
    memset(out, 0, sizeof(os_step) * OS_STEPS);
    clash_scene *sc = NULL;
    if (clash_scene_create(&sc, err) || os_meshes(sc, err)) {
        clash_scene_destroy(sc);
        return -1;
    }
    const double at[4][3] = {{0, 0, 0}, {1.2, 0, 0}, {6, 0, 0}, {12, 0, 0}};
    int rc = 0;
    for (int o = 0; o < 4 && !rc; ++o) rc = clash_scene_add_object(sc, o == 3, NULL, at[o], 0, err) == o ? 0 : -1;
    clash_run *run = rc ? NULL : clash_run_create(sc, cfg, err);
    if (!run) rc = -1;
    int removed2 = 0;
    for (int s = 1; s <= OS_STEPS && !rc; ++s) {
        const double t4[3] = {6.8, 0.2, 0}, t5[3] = {7.4, -0.1, 0.1};
        if (s == 3) rc = clash_run_add_object(run, 0, NULL, t4, 0, err) == 4 ? 0 : -1;
        if (s == 4 && !rc) rc = clash_run_exclude_pair(run, 1, 0, 1, err);
        if (s == 5 && !rc) {
            rc = clash_run_remove_object(run, 2, err);
            removed2 = 1;
            if (!rc) rc = clash_run_set_filter(run, 4, 2, ~2u, err);
        }
        if (s == 6 && !rc) {
            double R[9];
            os_rotz(0.3, R);
            const int id = clash_run_add_object(run, 0, R, t5, 0, err);
            rc = id == 5 ? clash_run_set_filter(run, 5, 2, ~2u, err) : -1;
            if (!rc) rc = clash_run_set_self(run, 3, 1, err);
        }
        if (s == 7 && !rc) rc = clash_run_set_enabled(run, 0, 0, err) || clash_run_exclude_pair(run, 0, 1, 0, err);
        if (s == 8 && !rc) rc = clash_run_set_enabled(run, 0, 1, err);
        double R[9];
        const double t1[3] = {1.2 + 0.15 * sin(s), 0.05 * s, 0};
        os_rotz(0.05 * s, R);
        if (!rc) rc = clash_run_set_pose(run, 1, R, t1, err);
        if (!rc && !removed2) rc = clash_run_set_pose(run, 2, R, at[2], err);
        if (!rc && s >= 4) {
            const double t4b[3] = {6.8 - 0.05 * s, 0.2, 0};
            rc = clash_run_set_pose(run, 4, R, t4b, err);
        }
        clash_pairs p;
        if (!rc) rc = clash_run_advance(run, &p, &out[s - 1].st, err);
        if (rc) break;
        os_step *o = &out[s - 1];
        o->npairs = p.count;
        o->pairs = malloc(sizeof(clash_pair) * (p.count ? p.count : 1));
        if (p.count) memcpy(o->pairs, p.pairs, sizeof(clash_pair) * p.count);
        clash_contacts c = {0};
        if (cfg->ccd && clash_run_contacts(run, &c, err)) rc = -1;
        o->ncontacts = c.count;
        o->contacts = malloc(sizeof(clash_contact) * (c.count ? c.count : 1));
        if (c.count) memcpy(o->contacts, c.contacts, sizeof(clash_contact) * c.count);
    }
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return rc ? -1 : 0;
}

/* Whether two recordings have the same pairs and contacts at every step. */
static inline int os_same(const os_step *a, const os_step *b)
{
    for (int s = 0; s < OS_STEPS; ++s) {
        if (a[s].npairs != b[s].npairs || a[s].ncontacts != b[s].ncontacts) return 0;
        if (a[s].npairs && memcmp(a[s].pairs, b[s].pairs, sizeof(clash_pair) * a[s].npairs)) return 0;
        for (size_t i = 0; i < a[s].ncontacts; ++i) { /* field by field: the struct has padding */
            const clash_contact *x = &a[s].contacts[i], *y = &b[s].contacts[i];
            if (x->kind != y->kind || x->obj_a != y->obj_a || x->id_a != y->id_a || x->obj_b != y->obj_b ||
                x->id_b != y->id_b || memcmp(&x->toi, &y->toi, sizeof x->toi))
                return 0;
        }
    }
    return 1;
}

#endif
