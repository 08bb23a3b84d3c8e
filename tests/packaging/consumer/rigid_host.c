/* rigid_host.c — a small rigid-body simulation that uses clash as its
 * collision back end: the example to copy when your program owns the
 * meshes and the motion and asks clash, once per step, which faces touch.
 *
 *   rigid_host MESH.obj [MESH.obj ...]
 *
 * Six bodies made of the given mesh files fall under gravity onto a floor.
 * The host integrates positions and rotations itself (semi-implicit Euler);
 * every step it hands clash the new pose of every body (clash_run_set_pose)
 * and advances (clash_run_advance, static mode: which faces intersect in
 * the new state).  Every reported pair (object a, face i, object b, face j)
 * says two bodies touch: the host puts both back where they were before the
 * step and bounces them apart (restitution 0.5).  Uses only <clash/clash.h>.
 * Exits 0 when no body ended inside the floor and contacts were found.
 */
#include <clash/clash.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BODIES = 6, STEPS = 400 };
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
    for (int i = 0; i < BODIES; ++i) { /* a loose stack: each body a little off the one below */
        body *q = &b[i];
        memset(q, 0, sizeof *q);
        q->mesh = &mesh[i % nmesh];
        q->x[0] = 0.3 * sin(2.1 * i), q->x[1] = 1.0 + 1.1 * i, q->x[2] = 0.3 * cos(1.7 * i);
        q->w[0] = 0.5 * i, q->w[1] = 1.0, q->w[2] = -0.3 * i;
        q->R[0] = q->R[4] = q->R[8] = 1;
        q->obj = clash_scene_add_object(sc, 1 + i % nmesh, q->R, q->x, 0, &err);
        if (q->obj < 0) return fail("body", &err);
    }
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_STATIC;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    if (!run) return fail("run", &err);

    long floor_contacts = 0, body_contacts = 0;
    for (int s = 1; s <= STEPS; ++s) {
        for (int i = 0; i < BODIES; ++i) { /* the host's own integration */
            body *q = &b[i];
            memcpy(q->px, q->x, sizeof q->x), memcpy(q->pR, q->R, sizeof q->R);
            q->v[1] += gravity * dt;
            for (int d = 0; d < 3; ++d) q->x[d] += q->v[d] * dt;
            rotate(q->R, q->w, dt);
            if (clash_run_set_pose(run, q->obj, q->R, q->x, &err)) return fail("set_pose", &err);
        }
        clash_pairs pairs;
        if (clash_run_advance(run, &pairs, NULL, &err)) return fail("advance", &err);
        /* which objects touch which: one entry per object pair is enough here */
        unsigned char touch[BODIES + 1][BODIES + 1] = {{0}};
        for (size_t k = 0; k < pairs.count; ++k) touch[pairs.pairs[k].obj_a][pairs.pairs[k].obj_b] = 1;
        int back[BODIES] = {0};
        for (int a = 0; a <= BODIES; ++a)
            for (int c = a + 1; c <= BODIES; ++c) {
                if (!touch[a][c]) continue;
                body *q = &b[c - 1];
                back[c - 1] = 1;
                if (a == 0) { /* on the floor: bounce up */
                    ++floor_contacts;
                    if (q->v[1] < 0) q->v[1] = -restitution * q->v[1];
                    for (int d = 0; d < 3; ++d) q->w[d] *= 0.9, q->v[d] *= d == 1 ? 1 : 0.9;
                } else { /* two bodies: exchange the normal part of their relative velocity */
                    ++body_contacts;
                    body *p = &b[a - 1];
                    back[a - 1] = 1;
                    double n[3], len = 0, vn = 0;
                    for (int d = 0; d < 3; ++d) n[d] = q->x[d] - p->x[d], len += n[d] * n[d];
                    len = sqrt(len) > 1e-12 ? sqrt(len) : 1;
                    for (int d = 0; d < 3; ++d) n[d] /= len, vn += (q->v[d] - p->v[d]) * n[d];
                    if (vn < 0)
                        for (int d = 0; d < 3; ++d) {
                            const double j = -(1 + restitution) * vn / 2;
                            q->v[d] += j * n[d], p->v[d] -= j * n[d];
                        }
                }
            }
        for (int i = 0; i < BODIES; ++i) /* bodies that touched go back to before the step */
            if (back[i]) memcpy(b[i].x, b[i].px, sizeof b[i].x), memcpy(b[i].R, b[i].pR, sizeof b[i].R);
    }
    double low = INFINITY;
    for (int i = 0; i < BODIES; ++i) low = fmin(low, lowest(&b[i]));
    printf("rigid_host: %d bodies, %d steps, %ld floor contacts, %ld body contacts, lowest point y = %.4f\n", BODIES,
           STEPS, floor_contacts, body_contacts, low);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    for (int m = 0; m < nmesh; ++m) clash_mesh_arrays_free(&mesh[m]);
    free(mesh);
    return floor_contacts > 0 && low > -1e-3 ? 0 : 1;
}
