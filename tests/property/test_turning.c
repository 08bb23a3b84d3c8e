/*
 * test_turning.c — swept mode is conservative for objects that turn
 * (issue 20; store/turn.c, the arc margin).  A turning object's vertices
 * move on arcs, which leave the hull of a face's two end positions.
 *
 * 1. The rod and cube: a rod 10 long and 0.1 thick turning about z
 *    by 90, 170 and 359 degrees in one step sweeps through a 0.2 cube at
 *    (3.3, 3.3, 0): every midphase reports pairs, the same ones, for every
 *    thread count, backend and partition.
 * 2. Scene-file laws: random rigid scenes turning up to ~200 degrees per
 *    step and axis, against an oracle of 128 static substeps of the exact
 *    pose formula (triangle/triangle at each): no pair the substeps find is
 *    missing from swept mode, under any midphase, and every midphase gives
 *    the oracle's (brute) pairs.
 * 3. Tightness: scenes whose objects do not turn give exactly the pairs of
 *    the margin-free swept test (every eligible face pair's hulls, tol 0).
 * 4. Host poses (the API): random screw motions of up to 179 degrees
 *    between the poses set, against 128 static substeps along each screw.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "screw.h"
#include "core/run.h"
#include "stages/stages.h"
#include "io/scene_desc.h"
#include "kernels/kernels.h"
#include "store/generators.h"
#include "store/mesh.h"
#include "store/scene.h"

enum { SUB = 128 };

static uint64_t rng = 0x9e3779b97f4a7c15u;
static double urand(void)
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}
static double srand1(void) { return 2 * urand() - 1; }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static const int mids[] = {CLASH_MID_OCTREE,    CLASH_MID_BVH,     CLASH_MID_BBOXPIPE, CLASH_MID_OBJOCTREE,
                           CLASH_MID_SPHERICAL, CLASH_MID_BOXTREE, CLASH_MID_DOPTREE,  CLASH_MID_BRUTE};
static const char *const mid_names[] = {"octree", "bvh", "bboxpipe", "objoctree", "spherical", "boxtree", "doptree", "brute"};
enum { NMID = 8 };

/* ---- pair sets: (step, pair) rows, sorted -------------------------------------------- */

typedef struct row {
    int step;
    clash_pair p;
} row;
typedef struct rows {
    row *v;
    size_t n, cap;
} rows;

static void rows_push(rows *r, int step, clash_pair p)
{
    if (r->n == r->cap) r->v = realloc(r->v, (r->cap = r->cap ? 2 * r->cap : 256) * sizeof *r->v);
    r->v[r->n++] = (row){step, p};
}

static int row_cmp(const void *x, const void *y)
{
    const row *a = x, *b = y;
    const uint32_t ka[5] = {(uint32_t)a->step, a->p.obj_a, a->p.face_a, a->p.obj_b, a->p.face_b};
    const uint32_t kb[5] = {(uint32_t)b->step, b->p.obj_a, b->p.face_a, b->p.obj_b, b->p.face_b};
    for (int i = 0; i < 5; ++i)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return 0;
}

static void rows_sort_unique(rows *r)
{
    if (!r->n) return;
    qsort(r->v, r->n, sizeof *r->v, row_cmp);
    size_t m = 1;
    for (size_t i = 1; i < r->n; ++i)
        if (row_cmp(&r->v[i], &r->v[m - 1])) r->v[m++] = r->v[i];
    r->n = m;
}

static int rows_equal(const rows *a, const rows *b)
{
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; ++i)
        if (row_cmp(&a->v[i], &b->v[i])) return 0;
    return 1;
}

/* Rows of `want` missing from `have` (both sorted); prints the first few. */
static size_t rows_missing(const rows *want, const rows *have, const char *what)
{
    size_t j = 0, miss = 0;
    for (size_t i = 0; i < want->n; ++i) {
        while (j < have->n && row_cmp(&have->v[j], &want->v[i]) < 0) ++j;
        if (j < have->n && !row_cmp(&have->v[j], &want->v[i])) continue;
        if (miss++ < 3)
            fprintf(stderr, "%s: step %d pair (%u,%u)-(%u,%u) found by the substeps is missing\n", what,
                    want->v[i].step, want->v[i].p.obj_a, want->v[i].p.face_a, want->v[i].p.obj_b, want->v[i].p.face_b);
    }
    return miss;
}

/* ---- running a scene -------------------------------------------------------------------- */

static clash_config config(int mid, int threads)
{
    clash_config c = clash_config_default();
    c.mode = CLASH_MODE_SWEPT;
    c.self_collision = 0;
    c.midphase = mid;
    c.threads = threads;
    c.reorder = CLASH_REORDER_NONE; /* store numbers = input numbers, for the oracles */
    return c;
}

/* All steps of a scene with laws. */
static rows run_laws(clash_scene *sc, clash_config cfg, int steps)
{
    rows r = {0};
    clash_error err;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run != NULL, "run_create: %s", err.msg);
    if (!run) return r;
    for (int s = 1; s <= steps; ++s) {
        clash_pairs p;
        if (clash_step(run, s, &p, NULL, &err)) {
            CHECK(0, "step %d: %s", s, err.msg);
            break;
        }
        for (size_t i = 0; i < p.count; ++i) rows_push(&r, s, p.pairs[i]);
    }
    clash_run_destroy(run);
    rows_sort_unique(&r);
    return r;
}

/* ---- the substep oracle --------------------------------------------------------------- */

/* Where object o is at the fractional state sigma: world = R local + t (R holds the scale). */
typedef void (*place_fn)(const clash_scene *sc, int o, double sigma, const void *ctx, double R[9], double t[3]);

/* The pairs of faces of different objects that meet at any of the SUB + 1
 * substeps sigma = s - 1 + k / SUB, objects placed by `place`. */
static void substep_pairs(const clash_scene *sc, int s, place_fn place, const void *ctx, rows *out)
{
    double *w = malloc(sizeof(double) * 3 * (size_t)sc->nv);
    double(*bx)[6] = malloc(sizeof *bx * (size_t)sc->nf);
    for (int k = 0; k <= SUB; ++k) {
        const double sigma = s - 1 + (double)k / SUB;
        for (int o = 0; o < sc->nobj; ++o) {
            double R[9], t[3];
            place(sc, o, sigma, ctx, R, t);
            for (int64_t v = sc->vofs[o]; v < sc->vofs[o + 1]; ++v) {
                const double l[3] = {sc->lx[v], sc->ly[v], sc->lz[v]};
                for (int d = 0; d < 3; ++d) w[3 * v + d] = R[3 * d] * l[0] + R[3 * d + 1] * l[1] + R[3 * d + 2] * l[2] + t[d];
            }
        }
        for (int64_t f = 0; f < sc->nf; ++f) {
            const int32_t i[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
            for (int d = 0; d < 3; ++d) {
                bx[f][d] = fmin(w[3 * i[0] + d], fmin(w[3 * i[1] + d], w[3 * i[2] + d]));
                bx[f][3 + d] = fmax(w[3 * i[0] + d], fmax(w[3 * i[1] + d], w[3 * i[2] + d]));
            }
        }
        for (int oa = 0; oa < sc->nobj; ++oa)
            for (int ob = oa + 1; ob < sc->nobj; ++ob)
                for (int64_t a = sc->fofs[oa]; a < sc->fofs[oa + 1]; ++a)
                    for (int64_t b = sc->fofs[ob]; b < sc->fofs[ob + 1]; ++b) {
                        if (bx[a][0] > bx[b][3] || bx[b][0] > bx[a][3] || bx[a][1] > bx[b][4] ||
                            bx[b][1] > bx[a][4] || bx[a][2] > bx[b][5] || bx[b][2] > bx[a][5])
                            continue;
                        const int32_t *F[3] = {sc->f0, sc->f1, sc->f2};
                        if (!ck_tritri(w + 3 * F[0][a], w + 3 * F[1][a], w + 3 * F[2][a], w + 3 * F[0][b],
                                       w + 3 * F[1][b], w + 3 * F[2][b]))
                            continue;
                        const clash_pair p = {(uint32_t)oa, (uint32_t)(a - sc->fofs[oa]), (uint32_t)ob,
                                              (uint32_t)(b - sc->fofs[ob])};
                        rows_push(out, s, p);
                    }
        rows_sort_unique(out);
    }
    free(w), free(bx);
}

/* The pose formula at a fractional state sigma (REFERENCE.md, "Pose"): R(rotation +
 * sigma * angular velocity) * scale, position + sigma * velocity. */
static void place_law(const clash_scene *sc, int o, double sigma, const void *ctx, double R[9], double t[3])
{
    (void)ctx;
    const clash_pose *p = &sc->pose[o];
    clash_pose q = *p;
    for (int d = 0; d < 3; ++d) {
        q.rotation_deg[d] = p->rotation_deg[d] + sigma * p->angular_velocity_deg[d];
        q.position[d] = p->position[d] + sigma * p->velocity[d];
        q.angular_velocity_deg[d] = q.velocity[d] = 0;
    }
    double scale;
    clash_pose_at(&q, 0, R, &scale, t);
    for (int i = 0; i < 9; ++i) R[i] *= scale;
}

/* ---- 1. the rod and the cube ----------------------------------------------------------- */

static clash_scene *rod_scene(const char *dir, double deg_per_step)
{
    char obj[512];
    snprintf(obj, sizeof obj, "%s/rod.obj", dir);
    FILE *f = fopen(obj, "w");
    if (!f) return NULL;
    for (int v = 0; v < 8; ++v) fprintf(f, "v %g %g %g\n", v & 1 ? 5.0 : -5.0, v & 2 ? 0.05 : -0.05, v & 4 ? 0.05 : -0.05);
    static const int tri[12][3] = {{1, 3, 2}, {2, 3, 4}, {5, 6, 7}, {6, 8, 7}, {1, 2, 5}, {2, 6, 5},
                                   {3, 7, 4}, {4, 7, 8}, {1, 5, 3}, {3, 5, 7}, {2, 4, 6}, {4, 8, 6}};
    for (int t = 0; t < 12; ++t) fprintf(f, "f %d %d %d\n", tri[t][0], tri[t][1], tri[t][2]);
    fclose(f);
    clash_mesh_desc md[2] = {{.name = "rod", .kind = CLASH_MESH_FILE, .path = obj, .scale = 1},
                             {.name = "cube", .kind = CLASH_MESH_BOX, .scale = 0.2, .center = 1}};
    clash_object_desc od[2] = {{.mesh = 0, .scale = 1, .angular_velocity_deg = {0, 0, deg_per_step}},
                               {.mesh = 1, .scale = 1, .position = {3.3, 3.3, 0}}};
    clash_scene_desc d = {.name = "rod", .steps = 1, .mode = CLASH_MODE_SWEPT, .nmeshes = 2, .meshes = md,
                          .nobjects = 2, .objects = od};
    clash_scene *sc = NULL;
    clash_error err;
    CHECK(clash_scene_build(&d, &sc, &err) == 0, "rod scene: %s", err.msg);
    remove(obj);
    return sc;
}

static void test_rod(const char *dir)
{
    const double degs[3] = {90, 170, 359};
    for (int i = 0; i < 3; ++i) {
        clash_scene *sc = rod_scene(dir, degs[i]);
        if (!sc) continue;
        rows ref = run_laws(sc, config(CLASH_MID_BRUTE, 1), 1);
        CHECK(ref.n > 0, "rod turning %g deg per step: no pair (it sweeps through the cube)", degs[i]);
        rows sub = {0};
        substep_pairs(sc, 1, place_law, NULL, &sub);
        CHECK(sub.n > 0, "rod %g: the substeps find no contact", degs[i]);
        char what[64];
        snprintf(what, sizeof what, "rod %g brute", degs[i]);
        CHECK(rows_missing(&sub, &ref, what) == 0, "rod %g: swept mode misses contacts", degs[i]);
        for (int m = 0; m < NMID; ++m)
            for (int T = 1; T <= 2; ++T) {
                rows r = run_laws(sc, config(mids[m], T), 1);
                CHECK(rows_equal(&r, &ref), "rod %g: %s, %d threads: %zu pairs, brute %zu", degs[i], mid_names[m], T, r.n,
                      ref.n);
                free(r.v);
            }
        /* backends, partitions, schedules */
        clash_config c = config(CLASH_MID_OCTREE, 2);
        c.backend = CLASH_BACKEND_PTHREADS, c.partition = CLASH_PART_STRIDE;
        rows r = run_laws(sc, c, 1);
        CHECK(rows_equal(&r, &ref), "rod %g: pthreads stride", degs[i]);
        free(r.v);
        c = config(CLASH_MID_OCTREE, 2);
        c.schedule = CLASH_SCHED_PRODUCER_CONSUMER, c.chunk = 3;
        r = run_laws(sc, c, 1);
        CHECK(rows_equal(&r, &ref), "rod %g: producer-consumer, chunk 3", degs[i]);
        free(r.v);
        c = config(CLASH_MID_OCTREE, 2);
        c.reorder = CLASH_REORDER_MORTON;
        r = run_laws(sc, c, 1);
        CHECK(rows_equal(&r, &ref), "rod %g: Morton order", degs[i]);
        free(r.v), free(ref.v), free(sub.v);
        clash_scene_destroy(sc);
    }
}

/* ---- 2, 3. random rigid scenes with laws ------------------------------------------------ */

/* 2-4 objects (spheres of 24-80 faces, boxes) crowded together; spin: the
 * largest angular velocity per axis (degrees per step; 0: none turns);
 * some objects turn about one axis only, some not at all. */
static clash_scene *random_laws(double spin, int steps)
{
    static const int faces[3] = {24, 48, 80};
    clash_mesh_desc md[4] = {{.name = "s24", .kind = CLASH_MESH_SPHERE, .sphere_faces = faces[0], .scale = 1},
                             {.name = "s48", .kind = CLASH_MESH_SPHERE, .sphere_faces = faces[1], .scale = 1},
                             {.name = "s80", .kind = CLASH_MESH_SPHERE, .sphere_faces = faces[2], .scale = 1},
                             {.name = "box", .kind = CLASH_MESH_BOX, .scale = 1.5}};
    const int n = 2 + (int)(urand() * 3);
    clash_object_desc od[4];
    memset(od, 0, sizeof od);
    for (int o = 0; o < n; ++o) {
        od[o].mesh = (int)(urand() * 4);
        od[o].scale = 0.5 + urand();
        const double u = urand();
        const int one_axis = u < 0.3 ? (int)(urand() * 3) : -1, still = u > 0.85;
        for (int d = 0; d < 3; ++d) {
            od[o].position[d] = 1.4 * srand1();
            od[o].rotation_deg[d] = 180 * srand1();
            od[o].velocity[d] = 0.2 * srand1();
            od[o].angular_velocity_deg[d] = still || (one_axis >= 0 && d != one_axis) ? 0 : spin * srand1();
        }
    }
    clash_scene_desc d = {.name = "turning", .steps = steps, .mode = CLASH_MODE_SWEPT, .nmeshes = 4, .meshes = md,
                          .nobjects = n, .objects = od};
    clash_scene *sc = NULL;
    clash_error err;
    CHECK(clash_scene_build(&d, &sc, &err) == 0, "random scene: %s", err.msg);
    return sc;
}

/* The margin-free swept pairs of the state the store holds: every eligible
 * face pair of different objects whose hulls meet with tolerance 0. */
static void hull_pairs(const clash_scene *sc, int s, rows *out)
{
    for (int oa = 0; oa < sc->nobj; ++oa)
        for (int ob = oa + 1; ob < sc->nobj; ++ob)
            for (int64_t a = sc->fofs[oa]; a < sc->fofs[oa + 1]; ++a)
                for (int64_t b = sc->fofs[ob]; b < sc->fofs[ob + 1]; ++b) {
                    double p[6][3], q[6][3];
                    const int32_t ia[3] = {sc->f0[a], sc->f1[a], sc->f2[a]}, ib[3] = {sc->f0[b], sc->f1[b], sc->f2[b]};
                    for (int k = 0; k < 3; ++k) {
                        p[k][0] = sc->x[ia[k]], p[k][1] = sc->y[ia[k]], p[k][2] = sc->z[ia[k]];
                        p[3 + k][0] = sc->px[ia[k]], p[3 + k][1] = sc->py[ia[k]], p[3 + k][2] = sc->pz[ia[k]];
                        q[k][0] = sc->x[ib[k]], q[k][1] = sc->y[ib[k]], q[k][2] = sc->z[ib[k]];
                        q[3 + k][0] = sc->px[ib[k]], q[3 + k][1] = sc->py[ib[k]], q[3 + k][2] = sc->pz[ib[k]];
                    }
                    if (ck_hulls_meet((const double(*)[3])p, 6, (const double(*)[3])q, 6, 0.0))
                        rows_push(out, s, (clash_pair){(uint32_t)oa, (uint32_t)(a - sc->fofs[oa]), (uint32_t)ob,
                                                       (uint32_t)(b - sc->fofs[ob])});
                }
}

static void test_laws(int nscenes, double spin, int *total_sub, int *total_pairs)
{
    for (int i = 0; i < nscenes; ++i) {
        const int steps = 2;
        clash_scene *sc = random_laws(spin, steps);
        if (!sc) continue;
        rows ref = run_laws(sc, config(CLASH_MID_BRUTE, 1), steps);
        rows sub = {0};
        for (int s = 1; s <= steps; ++s) substep_pairs(sc, s, place_law, NULL, &sub);
        char what[64];
        snprintf(what, sizeof what, "laws scene %d (spin %g)", i, spin);
        CHECK(rows_missing(&sub, &ref, what) == 0, "%s: swept mode misses contacts of objects that turn", what);
        *total_sub += (int)sub.n, *total_pairs += (int)ref.n;
        for (int m = 0; m < NMID - 1; ++m) {
            rows r = run_laws(sc, config(mids[m], 1 + (i + m) % 2), steps);
            CHECK(rows_equal(&r, &ref), "%s: %s gives %zu pairs, brute %zu", what, mid_names[m], r.n, ref.n);
            free(r.v);
        }
        if (spin == 0) { /* 3. tightness: the margin-free test's pairs exactly */
            rows old = {0};
            clash_error err;
            clash_config c = config(CLASH_MID_OCTREE, 1);
            clash_run *run = clash_run_create(sc, &c, &err);
            for (int s = 1; run && s <= steps; ++s) {
                clash_pairs p;
                CHECK(clash_step(run, s, &p, NULL, &err) == 0, "step: %s", err.msg);
                CHECK(sc->nturning == 0, "%s: an object turns", what);
                hull_pairs(sc, s, &old);
            }
            clash_run_destroy(run);
            rows_sort_unique(&old);
            CHECK(rows_equal(&old, &ref), "%s: not turning, %zu pairs where the margin-free test gives %zu", what, ref.n,
                  old.n);
            free(old.v);
        }
        free(ref.v), free(sub.v);
        clash_scene_destroy(sc);
    }
}

/* ---- 4. host poses: screw motions ---------------------------------------------------------- */

enum { HSTEPS = 3, HOBJ = 4 };
typedef struct host_plan {
    int nobj;
    double R[HSTEPS + 1][HOBJ][9], t[HSTEPS + 1][HOBJ][3]; /* the poses of states 0..HSTEPS */
    screw w[HSTEPS + 1][HOBJ];                             /* w[s]: from state s-1 to s */
} host_plan;

static void place_host(const clash_scene *sc, int o, double sigma, const void *ctx, double R[9], double t[3])
{
    (void)sc;
    const host_plan *hp = ctx;
    int s = (int)ceil(sigma);
    if (s < 1) s = 1;
    screw_apply(&hp->w[s][o], sigma - (s - 1), hp->R[s - 1][o], hp->t[s - 1][o], R, t);
}

static rows run_host(clash_scene *sc, const host_plan *hp, clash_config cfg)
{
    rows r = {0};
    clash_error err;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run != NULL, "run_create: %s", err.msg);
    if (!run) return r;
    for (int s = 1; s <= HSTEPS; ++s) {
        for (int o = 0; o < hp->nobj; ++o)
            CHECK(clash_run_set_pose(run, o, hp->R[s][o], hp->t[s][o], &err) == 0, "set_pose: %s", err.msg);
        clash_pairs p;
        if (clash_run_advance(run, &p, NULL, &err)) {
            CHECK(0, "advance %d: %s", s, err.msg);
            break;
        }
        for (size_t i = 0; i < p.count; ++i) rows_push(&r, s, p.pairs[i]);
    }
    clash_run_destroy(run);
    rows_sort_unique(&r);
    return r;
}

static void test_host(int nscenes, int *total_sub, int *total_pairs)
{
    clash_mesh m[3];
    clash_error err;
    clash_gen_sphere(48, &m[0], &err), clash_gen_sphere(80, &m[1], &err), clash_gen_box(&m[2], &err);
    for (int i = 0; i < nscenes; ++i) {
        clash_scene *sc = NULL;
        clash_scene_create(&sc, &err);
        int mesh[3];
        for (int k = 0; k < 3; ++k) mesh[k] = clash_scene_add_mesh(sc, m[k].xyz, m[k].nverts, m[k].tri, m[k].nfaces, &err);
        host_plan hp = {.nobj = 2 + (int)(urand() * 3)};
        for (int o = 0; o < hp.nobj; ++o) {
            double u[3] = {srand1(), srand1(), srand1()}, n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            for (int d = 0; d < 3; ++d) u[d] /= n, hp.t[0][o][d] = 1.2 * srand1();
            axis_rot(u, 3 * srand1(), hp.R[0][o]);
            CHECK(clash_scene_add_object(sc, mesh[(int)(urand() * 3)], hp.R[0][o], hp.t[0][o], 0, &err) == o,
                  "add_object: %s", err.msg);
            for (int s = 1; s <= HSTEPS; ++s) {
                screw *w = &hp.w[s][o];
                double v[3] = {srand1(), srand1(), srand1()}, nv = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
                for (int d = 0; d < 3; ++d) w->u[d] = v[d] / nv;
                const double x = urand();
                w->th = x < 0.15 ? 0 : (x < 0.3 ? 179 : 179 * urand()) * 3.14159265358979323846 / 180;
                for (int d = 0; d < 3; ++d) w->c[d] = hp.t[s - 1][o][d] + (urand() < 0.5 ? 0.5 : 3) * srand1();
                w->h = 0.3 * srand1();
                screw_apply(w, 1, hp.R[s - 1][o], hp.t[s - 1][o], hp.R[s][o], hp.t[s][o]);
            }
        }
        rows ref = run_host(sc, &hp, config(CLASH_MID_BRUTE, 1));
        rows sub = {0};
        for (int s = 1; s <= HSTEPS; ++s) substep_pairs(sc, s, place_host, &hp, &sub);
        char what[64];
        snprintf(what, sizeof what, "host scene %d", i);
        CHECK(rows_missing(&sub, &ref, what) == 0, "%s: swept mode misses contacts of screw motions", what);
        *total_sub += (int)sub.n, *total_pairs += (int)ref.n;
        for (int k = 0; k < NMID - 1; ++k) {
            rows r = run_host(sc, &hp, config(mids[k], 1 + (i + k) % 2));
            CHECK(rows_equal(&r, &ref), "%s: %s gives %zu pairs, brute %zu", what, mid_names[k], r.n, ref.n);
            free(r.v);
        }
        free(ref.v), free(sub.v);
        clash_scene_destroy(sc);
    }
    for (int k = 0; k < 3; ++k) clash_mesh_free(&m[k]);
}

int main(void)
{
    double t0 = now();
    char dir[] = "/tmp/clash_turning_XXXXXX";
    if (!mkdtemp(dir)) return check_skip("no temporary folder");
    test_rod(dir);
    rmdir(dir);
    printf("rod: %.1f s\n", now() - t0), t0 = now();
    int sub = 0, pairs = 0;
    test_laws(6, 200, &sub, &pairs);
    test_laws(4, 45, &sub, &pairs);
    CHECK(sub > 0, "the scenes with laws have no contact: the test tests nothing");
    printf("laws: %d substep pairs, %d swept pairs (%.1f s)\n", sub, pairs, now() - t0), t0 = now();
    sub = pairs = 0;
    test_laws(3, 0, &sub, &pairs);
    sub = pairs = 0;
    test_host(5, &sub, &pairs);
    CHECK(sub > 0, "the host scenes have no contact: the test tests nothing");
    printf("host poses: %d substep pairs, %d swept pairs (%.1f s)\n", sub, pairs, now() - t0);
    return check_finish("test_turning");
}
