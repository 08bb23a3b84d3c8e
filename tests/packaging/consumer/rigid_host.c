/* rigid_host.c — a small rigid-body simulation that uses clash as its
 * collision back end: the example to copy when your program owns the
 * meshes and the motion and asks clash, once per step, what its motion
 * would hit before it commits to it.
 *
 *   rigid_host MESH.obj [MESH.obj ...]
 *
 * Six bodies made of the given mesh files fall under gravity onto a floor.
 * The host integrates positions and rotations itself (semi-implicit Euler)
 * and hands clash every body's new pose in one call (clash_run_set_poses).
 * It then asks for the step without taking it (clash_run_query, swept mode
 * with exact CCD: the earliest time of impact along the motion): when a
 * body would hit something, the host shortens the whole step to just
 * before that time and asks again, so that the step it then takes
 * (clash_run_advance) touches nothing; the bodies of the contacts found
 * bounce (restitution 0.5).  So no body ever sinks into another or into the
 * floor, and no advance reports a contact: no phantom pairs to ignore.
 * While it runs, a seventh body is dropped in at step 150 and removed again
 * at step 300 (clash_run_add_object, clash_run_remove_object), and bodies 0
 * and 1 are jointed (clash_run_exclude_pair: they may overlap each other).
 * Uses only <clash/clash.h>.  Exits 0 when contacts were found and every
 * advance was free of them, with no body below the floor.
 */
#include <clash/clash.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BODIES = 7, STEPS = 400, SPAWN = 150, DESPAWN = 300, MAXHIT = 4096 };
static const double dt = 0.01, gravity = -9.81, restitution = 0.5;

typedef struct body {
    int obj;                   /* clash object id */
    const clash_mesh_arrays *mesh;
    double x[3], v[3], w[3];   /* position, velocity, angular velocity */
    double R[9];               /* rotation, row-major */
    double px[3], pR[9];       /* the pose before this step */
} body;

/* R = exp([w] dt) R (Rodrigues), then rows re-orthonormalized (Gram-Schmidt)
 * so that clash accepts it as a rotation (within 1e-6). */
static void rotate(double R[9], const double w[3], double h)
{
    const double th = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]) * h;
    if (th > 0) {
        const double k[3] = {w[0] * h / th, w[1] * h / th, w[2] * h / th}, c = cos(th), s = sin(th), C = 1 - c;
        const double Q[9] = {c + k[0] * k[0] * C,        k[0] * k[1] * C - k[2] * s, k[0] * k[2] * C + k[1] * s,
                             k[1] * k[0] * C + k[2] * s, c + k[1] * k[1] * C,        k[1] * k[2] * C - k[0] * s,
                             k[2] * k[0] * C - k[1] * s, k[2] * k[1] * C + k[0] * s, c + k[2] * k[2] * C};
        double M[9];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) M[3 * i + j] = Q[3 * i] * R[j] + Q[3 * i + 1] * R[3 + j] + Q[3 * i + 2] * R[6 + j];
        memcpy(R, M, sizeof M);
    }
    for (int i = 0; i < 3; ++i) {
        double *r = R + 3 * i;
        for (int j = 0; j < i; ++j) {
            const double *q = R + 3 * j, d = r[0] * q[0] + r[1] * q[1] + r[2] * q[2];
            for (int k = 0; k < 3; ++k) r[k] -= d * q[k];
        }
        const double n = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
        for (int k = 0; k < 3; ++k) r[k] /= n;
    }
}

/* The mesh centred on its box and scaled to radius 0.5 (a scale belongs in the mesh). */
static void normalize(clash_mesh_arrays *m)
{
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, r = 0;
    for (int64_t i = 0; i < 3 * m->nv; ++i) lo[i % 3] = fmin(lo[i % 3], m->xyz[i]), hi[i % 3] = fmax(hi[i % 3], m->xyz[i]);
    for (int64_t i = 0; i < 3 * m->nv; ++i) m->xyz[i] -= 0.5 * (lo[i % 3] + hi[i % 3]);
    for (int64_t v = 0; v < m->nv; ++v) {
        const double *p = m->xyz + 3 * v;
        r = fmax(r, sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]));
    }
    for (int64_t i = 0; i < 3 * m->nv; ++i) m->xyz[i] *= 0.5 / r;
}

/* Lowest world y of a body's vertices. */
static double lowest(const body *b)
{
    double y = INFINITY;
    for (int64_t v = 0; v < b->mesh->nv; ++v) {
        const double *p = b->mesh->xyz + 3 * v;
        y = fmin(y, b->R[3] * p[0] + b->R[4] * p[1] + b->R[5] * p[2] + b->x[1]);
    }
    return y;
}

static int fail(const char *what, const clash_error *err)
{
    fprintf(stderr, "rigid_host: %s: %s\n", what, err->msg);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: rigid_host MESH.obj [MESH.obj ...]\n");
        return 2;
    }
    const int nmesh = argc - 1;
    clash_error err;
    clash_scene *sc;
    clash_mesh_arrays *mesh = calloc((size_t)nmesh, sizeof *mesh);
    if (clash_scene_create(&sc, &err)) return fail("scene", &err);
    /* the floor: a slab 40 x 2 x 40 whose top is y = 0, object 0, never moved */
    const double fx[24] = {-20, -2, -20, 20, -2, -20, -20, 0, -20, 20, 0, -20,
                           -20, -2, 20,  20, -2, 20,  -20, 0, 20,  20, 0, 20};
    const int32_t ft[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                            2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    const int floor_mesh = clash_scene_add_mesh(sc, fx, 8, ft, 12, &err);
    if (floor_mesh < 0 || clash_scene_add_object(sc, floor_mesh, NULL, NULL, 0, &err) < 0) return fail("floor", &err);
    for (int m = 0; m < nmesh; ++m) {
        if (clash_mesh_read(argv[1 + m], &mesh[m], &err)) return fail("mesh", &err);
        normalize(&mesh[m]);
        if (clash_scene_add_mesh(sc, mesh[m].xyz, mesh[m].nv, mesh[m].tri, mesh[m].nf, &err) != 1 + m)
            return fail(argv[1 + m], &err);
    }
    body b[BODIES];
    int live[BODIES] = {0};
    for (int i = 0; i < BODIES; ++i) { /* a loose stack: each body a little off the one below */
        body *q = &b[i];
        memset(q, 0, sizeof *q);
        q->mesh = &mesh[i % nmesh];
        q->x[0] = 0.3 * sin(2.1 * i), q->x[1] = 1.0 + 1.1 * i, q->x[2] = 0.3 * cos(1.7 * i);
        q->w[0] = 0.5 * i, q->w[1] = 1.0, q->w[2] = -0.3 * i;
        q->R[0] = q->R[4] = q->R[8] = 1;
        q->obj = -1;
        if (i == BODIES - 1) continue; /* the late one: added at step SPAWN */
        q->obj = clash_scene_add_object(sc, 1 + i % nmesh, q->R, q->x, 0, &err);
        if (q->obj < 0) return fail("body", &err);
        live[i] = 1;
    }
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_SWEPT, cfg.ccd = 1; /* the motion between the states, exact CCD on it */
    clash_run *run = clash_run_create(sc, &cfg, &err);
    if (!run) return fail("run", &err);
    if (clash_run_exclude_pair(run, b[0].obj, b[1].obj, 1, &err)) return fail("exclude_pair", &err);

    long floor_contacts = 0, body_contacts = 0, shortened = 0, phantom = 0;
    double vsave[BODIES][3];
    static clash_contact hit[MAXHIT];
    for (int s = 1; s <= STEPS; ++s) {
        if (s == SPAWN) { /* dropped in from above: it enters where it is, sweeping from nowhere */
            body *q = &b[BODIES - 1];
            q->x[1] = 4.0;
            if ((q->obj = clash_run_add_object(run, 1 + (BODIES - 1) % nmesh, q->R, q->x, 0, &err)) < 0)
                return fail("add_object", &err);
            live[BODIES - 1] = 1;
        }
        if (s == DESPAWN) {
            if (clash_run_remove_object(run, b[BODIES - 1].obj, &err)) return fail("remove_object", &err);
            live[BODIES - 1] = 0;
        }
        int ids[BODIES], n = 0;
        double rot[9 * BODIES], trans[3 * BODIES];
        for (int i = 0; i < BODIES; ++i) {
            body *q = &b[i];
            memcpy(q->px, q->x, sizeof q->x), memcpy(q->pR, q->R, sizeof q->R), memcpy(vsave[i], q->v, sizeof q->v);
        }
        /* the step the host would take, then shorter ones until clash finds it free */
        size_t nhit = 0;
        double h = dt;
        for (int tries = 0;; ++tries) {
            n = 0;
            for (int i = 0; i < BODIES; ++i) {
                body *q = &b[i];
                if (!live[i]) continue;
                memcpy(q->v, vsave[i], sizeof q->v), memcpy(q->R, q->pR, sizeof q->R);
                q->v[1] += gravity * h;
                for (int d = 0; d < 3; ++d) q->x[d] = q->px[d] + q->v[d] * h;
                rotate(q->R, q->w, h);
                ids[n] = q->obj, memcpy(rot + 9 * n, q->R, sizeof q->R), memcpy(trans + 3 * n, q->x, sizeof q->x), ++n;
            }
            if (clash_run_set_poses(run, n, ids, rot, trans, &err)) return fail("set_poses", &err);
            clash_pairs pairs;
            clash_contacts cs;
            double toi;
            if (clash_run_query(run, &pairs, &cs, &toi, &err)) return fail("query", &err);
            if (!cs.count) break;
            if (!nhit) { /* the full step's contacts: whom to bounce (the run's array lasts until its next call) */
                nhit = cs.count < MAXHIT ? cs.count : MAXHIT;
                memcpy(hit, cs.contacts, nhit * sizeof *hit);
            }
            ++shortened;
            h = tries < 6 ? h * toi * 0.9 : 0; /* just before the impact; at last, no motion at all */
        }
        clash_pairs pairs;
        if (clash_run_advance(run, &pairs, NULL, &err)) return fail("advance", &err);
        clash_contacts after;
        if (clash_run_contacts(run, &after, &err)) return fail("contacts", &err);
        phantom += (long)after.count;
        /* the bodies of the contacts the full step would have made bounce */
        unsigned char touch[BODIES + 1][BODIES + 1] = {{0}};
        for (size_t k = 0; k < nhit; ++k) {
            const uint32_t a = hit[k].obj_a, c = hit[k].obj_b;
            if (a <= BODIES && c <= BODIES) touch[a < c ? a : c][a < c ? c : a] = 1;
        }
        for (int a = 0; a <= BODIES; ++a)
            for (int c = a + 1; c <= BODIES; ++c) {
                if (!touch[a][c]) continue;
                body *q = NULL, *p = NULL;
                for (int i = 0; i < BODIES; ++i) {
                    if (b[i].obj == c) q = &b[i];
                    if (a > 0 && b[i].obj == a) p = &b[i];
                }
                if (!q) continue;
                if (a == 0) { /* on the floor: bounce up */
                    ++floor_contacts;
                    if (q->v[1] < 0) q->v[1] = -restitution * q->v[1];
                    for (int d = 0; d < 3; ++d) q->w[d] *= 0.9, q->v[d] *= d == 1 ? 1 : 0.9;
                } else if (p) { /* two bodies: exchange the normal part of their relative velocity */
                    ++body_contacts;
                    double nn[3], len = 0, vn = 0;
                    for (int d = 0; d < 3; ++d) nn[d] = q->x[d] - p->x[d], len += nn[d] * nn[d];
                    len = sqrt(len) > 1e-12 ? sqrt(len) : 1;
                    for (int d = 0; d < 3; ++d) nn[d] /= len, vn += (q->v[d] - p->v[d]) * nn[d];
                    if (vn < 0)
                        for (int d = 0; d < 3; ++d) {
                            const double j = -(1 + restitution) * vn / 2;
                            q->v[d] += j * nn[d], p->v[d] -= j * nn[d];
                        }
                }
            }
    }
    double low = INFINITY;
    for (int i = 0; i < BODIES; ++i)
        if (live[i]) low = fmin(low, lowest(&b[i]));
    printf("rigid_host: %d bodies (one added at step %d, removed at %d), %d steps, %ld floor contacts, %ld body "
           "contacts, %ld steps shortened to before an impact, %ld contacts in the steps taken, "
           "lowest point y = %.4f\n",
           BODIES, SPAWN, DESPAWN, STEPS, floor_contacts, body_contacts, shortened, phantom, low);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    for (int m = 0; m < nmesh; ++m) clash_mesh_arrays_free(&mesh[m]);
    free(mesh);
    return floor_contacts > 0 && phantom == 0 && low > -1e-3 ? 0 : 1;
}
