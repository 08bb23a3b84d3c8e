/*
 * test_ccd_turning.c — --ccd follows the motion each mode defines when
 * objects turn (issue 49; kernels/ccd_motion.c): the pose formula of a scene
 * file, and the screw motion between two host poses (the shortest rotation).
 *
 * 1. The rod and the cube.  A rod (10 x 0.1 x 0.1 along x, centred on the
 *    origin) turns about z through a 0.2 cube at (3.3, 3.3, 0): by
 *    scene-file spin of 90, 170 and 359 degrees per step, and by host poses
 *    90 and 170 degrees apart.  Two host poses 359 degrees apart are the
 *    screw of -1 degree: the rod then reaches a cube just below its +x end
 *    and not the one at (3.3, 3.3).  Closed form of the first contact: the
 *    rod's cross-section in the xy plane is the slab |y'| <= Y, |x'| <= X of
 *    its own frame, and the cube's z range holds the rod's, so the first
 *    contact is in the plane.  Every cube corner lies within X of the axis
 *    (checked) and the rod's corners beyond it, so no rod corner can touch
 *    the cube first: the first contact is a cube corner (cx, cy) entering
 *    the slab.  With the rod turned by phi, the corner is at
 *        y' = -cx sin(phi) + cy cos(phi) = rho cos(phi + beta),
 *        rho = |(cx, cy)|, beta = atan2(cx, cy),
 *    and it enters when y' = +-Y: phi = +-acos(+-Y / rho) - beta + 2 k pi.
 *    With phi = sign * theta * tau (theta per step), toi* is the least such
 *    tau in [0, 1] over the corners.  The corners, X and Y are read from the
 *    store, so float rounding of the input does not enter.  --ccd must give
 *    a contact with toi <= toi* (+1e-12 for the closed form's own rounding)
 *    and, so that the test can fail on a sloppy method, >= toi* - 1e-5.
 * 2. Random rigid scenes with large turns (scene-file laws up to 200
 *    degrees per axis and step; host screws of up to 330 degrees, which the
 *    library takes as the shorter way round), against an oracle of 2000
 *    static sub-steps along the exact motion: for every face pair apart at
 *    t = 0 whose triangles intersect at sub-step k (ck_tritri), the first
 *    contact of the two faces came no later, and it is a vertex-face or an
 *    edge-edge contact of their primitives; so --ccd must report one of
 *    those primitive pairs with toi <= k / 2000.  Some objects do not turn
 *    (no spin, or the same rotation at both poses); their vertices move on
 *    straight lines between the states the store holds, in the oracle as in
 *    --ccd; the others' positions are computed in double from the local
 *    mesh, by --ccd as by the oracle.
 * 3. The motions themselves: ck_rigid_pose follows the screw (the shorter
 *    way round) and the formula written out here, to rounding, also for a
 *    turn of 1e-9 rad.
 * 4. Pairs of objects that do not turn keep the linear kernel bit for bit:
 *    two translating boxes that collide give the same contacts, toi for toi,
 *    with a third object turning elsewhere as without it.
 * Also the rod by spin with a minimum separation of 0.01: the closed form
 * with the slab widened by it (the max-norm measure may fire from sqrt(3)
 * times it).  argv[1] and argv[2] run more random scenes, from another seed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "screw.h"
#include "core/edges.h"
#include "core/run.h"
#include "stages/stages.h"
#include "io/scene_desc.h"
#include "kernels/ccd_motion.h"
#include "kernels/kernels.h"
#include "store/generators.h"
#include "store/mesh.h"
#include "store/scene.h"

static const double PI = 3.14159265358979323846;

static uint64_t rng = 0x2545f4914f6cdd1du;
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

static clash_config ccd_config(int threads)
{
    clash_config c = clash_config_default();
    c.mode = CLASH_MODE_SWEPT;
    c.self_collision = 0;
    c.ccd = 1;
    c.threads = threads;
    c.reorder = CLASH_REORDER_NONE; /* store numbers = input numbers, for the oracles */
    return c;
}

/* ---- 1. the rod and the cube ----------------------------------------------------------- */

/* The closed form of the file's top: the first tau in [0, 1] at which a
 * corner of object `cube` enters the slab of object `rod` (turning by
 * sign * theta * tau about z from the identity) widened by `grow` on each
 * side (Y + grow: the corner within that distance of the rod's long face),
 * or 2 when none does. */
static double rod_first(const clash_scene *sc, int rod, int cube, double theta, double sign, double grow)
{
    double X = 0, Y = 0;
    for (int64_t v = sc->vofs[rod]; v < sc->vofs[rod + 1]; ++v)
        X = fmax(X, fabs(sc->lx[v])), Y = fmax(Y, fabs(sc->ly[v]));
    Y += grow;
    double best = 2;
    for (int64_t v = sc->vofs[cube]; v < sc->vofs[cube + 1]; ++v) {
        const double cx = sc->x[v], cy = sc->y[v], rho = hypot(cx, cy), beta = atan2(cx, cy);
        CHECK(rho < X && fabs(cy) > Y, "rod test: corner (%g, %g) breaks the closed form's premise", cx, cy);
        for (int k = -2; k <= 2; ++k)
            for (int a = 0; a < 4; ++a) {
                const double phi = (a & 1 ? -1 : 1) * acos((a & 2 ? -Y : Y) / rho) - beta + 2 * k * PI;
                const double tau = sign * phi / theta;
                if (tau >= 0 && tau <= 1 && tau < best) best = tau;
            }
    }
    return best;
}

/* The least toi of the run's contacts involving object obj (2 when none), and their count. */
static double first_toi(clash_run *run, int obj, size_t *count)
{
    clash_contacts cs;
    CHECK(clash_run_contacts(run, &cs, NULL) == 0, "clash_run_contacts");
    double t = 2;
    *count = 0;
    for (size_t i = 0; i < cs.count; ++i)
        if ((int)cs.contacts[i].obj_a == obj || (int)cs.contacts[i].obj_b == obj) {
            ++*count;
            t = fmin(t, cs.contacts[i].toi);
        }
    return t;
}

/* want: the first contact; earliest: the earliest toi allowed (the first time within the max-norm
 * separation), less 1e-5 */
static void check_rod(const char *what, double got, size_t n, double want, double earliest)
{
    CHECK(n > 0, "%s: no contact (closed form: first contact at toi %.9f)", what, want);
    CHECK(got <= want + 1e-12, "%s: toi %.12f is later than the first contact %.12f", what, got, want);
    CHECK(got >= earliest - 1e-5, "%s: toi %.12f is far before the first contact %.12f", what, got, want);
    printf("  %s: %zu contacts, toi %.9f, closed form %.9f\n", what, n, got, want);
}

static const char *const ROD_OBJ = "v -5 -0.05 -0.05\nv 5 -0.05 -0.05\nv -5 0.05 -0.05\nv 5 0.05 -0.05\n"
                                   "v -5 -0.05 0.05\nv 5 -0.05 0.05\nv -5 0.05 0.05\nv 5 0.05 0.05\n"
                                   "f 1 3 2\nf 2 3 4\nf 5 6 7\nf 6 8 7\nf 1 2 5\nf 2 6 5\n"
                                   "f 3 7 4\nf 4 7 8\nf 1 5 3\nf 3 5 7\nf 2 4 6\nf 4 8 6\n";

static void test_rod_law(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/rod.obj", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    fputs(ROD_OBJ, f);
    fclose(f);
    const double degs[3] = {90, 170, 359};
    for (int i = 0; i < 3; ++i) {
        char json[1024];
        snprintf(json, sizeof json,
                 "{\"format\": \"clash-scene/1\", \"name\": \"rod\", \"steps\": 1, \"mode\": \"swept\","
                 " \"meshes\": {\"rod\": {\"file\": \"rod.obj\"},"
                 " \"cube\": {\"box\": {}, \"scale\": 0.2, \"center\": true}},"
                 " \"objects\": [{\"mesh\": \"rod\", \"angular_velocity_deg\": [0, 0, %g]},"
                 " {\"mesh\": \"cube\", \"position\": [3.3, 3.3, 0]}]}",
                 degs[i]);
        clash_scene_desc d;
        clash_scene *sc = NULL;
        clash_error err;
        CHECK(clash_scene_desc_parse_string(json, dir, "rod.json", &d, &err) == 0, "rod scene: %s", err.msg);
        CHECK(clash_scene_build(&d, &sc, &err) == 0, "rod scene: %s", err.msg);
        clash_scene_desc_free(&d);
        if (!sc) continue;
        for (int T = 1; T <= 3; ++T) { /* 1 and 2 threads; 3: 2 threads and a minimum separation */
            clash_config c = ccd_config(T == 1 ? 1 : 2);
            const double ms = T == 3 ? 0.01 : 0;
            c.min_separation = ms;
            clash_run *run = clash_run_create(sc, &c, &err);
            CHECK(run != NULL, "run_create: %s", err.msg);
            if (!run) continue;
            clash_pairs p;
            CHECK(clash_step(run, 1, &p, NULL, &err) == 0, "step: %s", err.msg);
            size_t n;
            const double got = first_toi(run, 1, &n);
            /* with a separation ms (measured in the max norm, ccd.h) a contact may come as early as the
             * Euclidean distance sqrt(3) ms */
            const double want = rod_first(sc, 0, 1, degs[i] * PI / 180, 1, ms);
            const double earliest = rod_first(sc, 0, 1, degs[i] * PI / 180, 1, sqrt(3.0) * ms);
            char what[96];
            snprintf(what, sizeof what, "rod by spin %g deg per step, %d threads, min separation %g", degs[i],
                     T == 1 ? 1 : 2, ms);
            check_rod(what, got, n, want, earliest);
            clash_run_destroy(run);
        }
        clash_scene_destroy(sc);
    }
    remove(path);
}

static void rot_z(double a, double R[9])
{
    const double c = cos(a), s = sin(a);
    const double M[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(R, M, sizeof M);
}

static void test_rod_host(void)
{
    const double rod[24] = {-5, -0.05, -0.05, 5, -0.05, -0.05, -5, 0.05, -0.05, 5, 0.05, -0.05,
                            -5, -0.05, 0.05,  5, -0.05, 0.05,  -5, 0.05, 0.05,  5, 0.05, 0.05};
    const int32_t tri[36] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                             2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
    double cube[24];
    for (int v = 0; v < 8; ++v)
        for (int d = 0; d < 3; ++d) cube[3 * v + d] = v >> d & 1 ? 0.1 : -0.1; /* same corner order as the rod */
    const struct {
        double deg, sign, turn; /* poses deg apart: the screw turns by sign * turn */
    } cases[3] = {{90, 1, 90}, {170, 1, 170}, {359, -1, 1}};
    for (int i = 0; i < 3; ++i) {
        clash_scene *sc = NULL;
        clash_error err;
        CHECK(clash_scene_create(&sc, &err) == 0, "scene: %s", err.msg);
        const int mr = clash_scene_add_mesh(sc, rod, 8, tri, 12, &err);
        const int mc = clash_scene_add_mesh(sc, cube, 8, tri, 12, &err);
        const double ta[3] = {3.3, 3.3, 0}, tb[3] = {4.0, -0.2, 0}; /* b: just below the +x end */
        CHECK(clash_scene_add_object(sc, mr, NULL, NULL, 0, &err) == 0, "rod: %s", err.msg);
        CHECK(clash_scene_add_object(sc, mc, NULL, ta, 0, &err) == 1, "cube a: %s", err.msg);
        CHECK(clash_scene_add_object(sc, mc, NULL, tb, 0, &err) == 2, "cube b: %s", err.msg);
        clash_config c = ccd_config(1 + i % 2);
        clash_run *run = clash_run_create(sc, &c, &err);
        CHECK(run != NULL, "run_create: %s", err.msg);
        if (!run) {
            clash_scene_destroy(sc);
            continue;
        }
        double R[9];
        rot_z(cases[i].deg * PI / 180, R);
        CHECK(clash_run_set_pose(run, 0, R, NULL, &err) == 0, "set_pose: %s", err.msg);
        clash_pairs p;
        CHECK(clash_run_advance(run, &p, NULL, &err) == 0, "advance: %s", err.msg);
        const double theta = cases[i].turn * PI / 180;
        size_t na, nb;
        const double ga = first_toi(run, 1, &na), gb = first_toi(run, 2, &nb);
        const double wa = rod_first(sc, 0, 1, theta, cases[i].sign, 0);
        const double wb = rod_first(sc, 0, 2, theta, cases[i].sign, 0);
        char what[96];
        if (wa <= 1) {
            snprintf(what, sizeof what, "rod by host poses %g deg apart, cube a", cases[i].deg);
            check_rod(what, ga, na, wa, wa);
        } else {
            CHECK(na == 0, "rod by host poses %g deg apart: %zu contacts with cube a, which only the %g-degree turn "
                  "the other way reaches (first at toi %g)", cases[i].deg, na, 360 - cases[i].turn, ga);
        }
        if (wb <= 1) {
            snprintf(what, sizeof what, "rod by host poses %g deg apart, cube b", cases[i].deg);
            check_rod(what, gb, nb, wb, wb);
        } else {
            CHECK(nb == 0, "rod by host poses %g deg apart: %zu contacts with cube b, which it does not reach",
                  cases[i].deg, nb);
        }
        if (cases[i].deg == 359) CHECK(wb <= 1 && wa > 1, "the -1 degree case: the closed form should reach b only");
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
}

/* ---- 2. random rigid scenes against static sub-steps ------------------------------------- */

enum { SUB = 2000 };

/* Where object o is at fraction tau of step s: world = R local + t (R holds the scale). */
typedef void (*place_fn)(const clash_scene *sc, int o, int s, double tau, const void *ctx, double R[9], double t[3]);

/* The scene-file formula at the fractional state s - 1 + tau. */
static void place_law(const clash_scene *sc, int o, int s, double tau, const void *ctx, double R[9], double t[3])
{
    (void)ctx;
    const clash_pose *p = &sc->pose[o];
    const double sigma = s - 1 + tau;
    const double deg = PI / 180;
    const double a = (p->rotation_deg[0] + sigma * p->angular_velocity_deg[0]) * deg;
    const double b = (p->rotation_deg[1] + sigma * p->angular_velocity_deg[1]) * deg;
    const double c = (p->rotation_deg[2] + sigma * p->angular_velocity_deg[2]) * deg;
    const double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cc = cos(c), sc_ = sin(c);
    const double M[9] = {cc * cb, cc * sb * sa - sc_ * ca, cc * sb * ca + sc_ * sa,
                         sc_ * cb, sc_ * sb * sa + cc * ca, sc_ * sb * ca - cc * sa,
                         -sb, cb * sa, cb * ca};
    for (int i = 0; i < 9; ++i) R[i] = M[i] * p->scale;
    for (int d = 0; d < 3; ++d) t[d] = p->position[d] + sigma * p->velocity[d];
}

enum { HSTEPS = 2, HOBJ = 3 };
typedef struct host_plan {
    int nobj;
    double R[HSTEPS + 1][HOBJ][9], t[HSTEPS + 1][HOBJ][3];
    screw set[HSTEPS + 1][HOBJ];   /* set[s]: the screw that made the pose of state s (angle up to 330 deg) */
    screw path[HSTEPS + 1][HOBJ];  /* the same displacement the shorter way round: the motion to expect */
} host_plan;

static void place_host(const clash_scene *sc, int o, int s, double tau, const void *ctx, double R[9], double t[3])
{
    (void)sc;
    const host_plan *hp = ctx;
    screw_apply(&hp->path[s][o], tau, hp->R[s - 1][o], hp->t[s - 1][o], R, t);
}

/* The oracle's answer for one step: first[a * nf + b] (a < b, faces of
 * different objects) = the first sub-step k >= 1 at which faces a and b
 * intersect, when they do not at k = 0; 0 otherwise. */
static void substeps(const clash_scene *sc, int s, place_fn place, const void *ctx, int *first)
{
    const int64_t nf = sc->nf;
    double *w = malloc(sizeof(double) * 3 * (size_t)sc->nv);
    double(*bx)[6] = malloc(sizeof *bx * (size_t)nf);
    double(*ob)[6] = malloc(sizeof *ob * (size_t)sc->nobj);
    uint8_t *at0 = calloc((size_t)(nf * nf), 1);
    memset(first, 0, sizeof *first * (size_t)(nf * nf));
    for (int k = 0; k <= SUB; ++k) {
        for (int o = 0; o < sc->nobj; ++o) {
            double R[9], t[3];
            place(sc, o, s, (double)k / SUB, ctx, R, t);
            const int still = sc->turn[o].kind == CLASH_TURN_NONE; /* straight lines between the states held */
            const double tau = (double)k / SUB;
            for (int d = 0; d < 3; ++d) ob[o][d] = INFINITY, ob[o][3 + d] = -INFINITY;
            for (int64_t v = sc->vofs[o]; v < sc->vofs[o + 1]; ++v) {
                const double l[3] = {sc->lx[v], sc->ly[v], sc->lz[v]};
                const double a[3] = {sc->px[v], sc->py[v], sc->pz[v]}, b[3] = {sc->x[v], sc->y[v], sc->z[v]};
                for (int d = 0; d < 3; ++d) {
                    w[3 * v + d] = still ? (1 - tau) * a[d] + tau * b[d]
                                         : R[3 * d] * l[0] + R[3 * d + 1] * l[1] + R[3 * d + 2] * l[2] + t[d];
                    ob[o][d] = fmin(ob[o][d], w[3 * v + d]), ob[o][3 + d] = fmax(ob[o][3 + d], w[3 * v + d]);
                }
            }
        }
        for (int64_t f = 0; f < nf; ++f) {
            const int32_t i[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
            for (int d = 0; d < 3; ++d) {
                bx[f][d] = fmin(w[3 * i[0] + d], fmin(w[3 * i[1] + d], w[3 * i[2] + d]));
                bx[f][3 + d] = fmax(w[3 * i[0] + d], fmax(w[3 * i[1] + d], w[3 * i[2] + d]));
            }
        }
        for (int oa = 0; oa < sc->nobj; ++oa)
            for (int obj = oa + 1; obj < sc->nobj; ++obj) {
                const double *A = ob[oa], *B = ob[obj];
                if (A[0] > B[3] || B[0] > A[3] || A[1] > B[4] || B[1] > A[4] || A[2] > B[5] || B[2] > A[5]) continue;
                for (int64_t a = sc->fofs[oa]; a < sc->fofs[oa + 1]; ++a)
                    for (int64_t b = sc->fofs[obj]; b < sc->fofs[obj + 1]; ++b) {
                        const size_t ab = (size_t)(a * nf + b);
                        if (first[ab] || at0[ab]) continue;
                        if (bx[a][0] > bx[b][3] || bx[b][0] > bx[a][3] || bx[a][1] > bx[b][4] ||
                            bx[b][1] > bx[a][4] || bx[a][2] > bx[b][5] || bx[b][2] > bx[a][5])
                            continue;
                        const int32_t *F[3] = {sc->f0, sc->f1, sc->f2};
                        if (!ck_tritri(w + 3 * F[0][a], w + 3 * F[1][a], w + 3 * F[2][a], w + 3 * F[0][b],
                                       w + 3 * F[1][b], w + 3 * F[2][b]))
                            continue;
                        if (k == 0) at0[ab] = 1;
                        else first[ab] = k;
                    }
            }
    }
    free(w), free(bx), free(ob), free(at0);
}

/* The least toi of the contacts of each face pair: best[a * nf + b] (a < b), 2 when none. */
static void contact_faces(const clash_scene *sc, const clash_edges *E, const clash_contacts *cs, double *best)
{
    const int64_t nf = sc->nf;
    for (size_t i = 0; i < (size_t)(nf * nf); ++i) best[i] = 2;
    for (size_t i = 0; i < cs->count; ++i) {
        const clash_contact *q = &cs->contacts[i];
        /* the faces of each primitive: those holding the vertex, or both ends of the edge */
        int64_t fa[64], fb[64];
        int na = 0, nb = 0;
        uint32_t va[2], vb[2];
        int ka, kb;
        if (q->kind == CLASH_CONTACT_VF) {
            va[0] = (uint32_t)(sc->vofs[q->obj_a] + q->id_a), ka = 1;
            fb[nb++] = sc->fofs[q->obj_b] + q->id_b, kb = 0;
        } else {
            const int64_t ea = E->eofs[q->obj_a] + q->id_a, eb = E->eofs[q->obj_b] + q->id_b;
            va[0] = E->ev0[ea], va[1] = E->ev1[ea], vb[0] = E->ev0[eb], vb[1] = E->ev1[eb], ka = kb = 2;
        }
        for (int side = 0; side < 2; ++side) {
            const int o = side ? (int)q->obj_b : (int)q->obj_a, k = side ? kb : ka;
            const uint32_t *vv = side ? vb : va;
            int64_t *out = side ? fb : fa;
            int *n = side ? &nb : &na;
            for (int64_t f = sc->fofs[o]; k && f < sc->fofs[o + 1] && *n < 64; ++f) {
                int has = 0;
                for (int j = 0; j < k; ++j)
                    has += (uint32_t)sc->f0[f] == vv[j] || (uint32_t)sc->f1[f] == vv[j] ||
                           (uint32_t)sc->f2[f] == vv[j];
                if (has == k) out[(*n)++] = f;
            }
        }
        for (int x = 0; x < na; ++x)
            for (int y = 0; y < nb; ++y) {
                const int64_t a = fa[x] < fb[y] ? fa[x] : fb[y], b = fa[x] < fb[y] ? fb[y] : fa[x];
                best[a * nf + b] = fmin(best[a * nf + b], q->toi);
            }
    }
}

typedef struct tally {
    long oracle, late, contacts, turning, objects;
} tally;

/* Compares step s's contacts with the oracle's first sub-steps. */
static void compare(const clash_scene *sc, clash_run *run, const int *first, const char *what, int s, tally *t)
{
    clash_contacts cs;
    CHECK(clash_run_contacts(run, &cs, NULL) == 0, "contacts");
    const int64_t nf = sc->nf;
    double *best = malloc(sizeof *best * (size_t)(nf * nf));
    contact_faces(sc, run->edges, &cs, best);
    t->contacts += (long)cs.count;
    for (int64_t a = 0; a < nf; ++a)
        for (int64_t b = a + 1; b < nf; ++b) {
            const int k = first[a * nf + b];
            if (!k) continue;
            t->oracle++;
            if (best[a * nf + b] > (double)k / SUB) {
                if (t->late++ < 5)
                    fprintf(stderr, "%s: step %d: faces %lld and %lld meet at sub-step %d (t = %g); --ccd: %s %g\n",
                            what, s, (long long)a, (long long)b, k, (double)k / SUB,
                            best[a * nf + b] > 1 ? "no contact" : "first toi", best[a * nf + b]);
            }
        }
    free(best);
}

static clash_scene *random_laws(void)
{
    clash_mesh_desc md[3] = {{.name = "s24", .kind = CLASH_MESH_SPHERE, .sphere_faces = 24, .scale = 1},
                             {.name = "s48", .kind = CLASH_MESH_SPHERE, .sphere_faces = 48, .scale = 1},
                             {.name = "box", .kind = CLASH_MESH_BOX, .scale = 1.5, .center = 1}};
    const int n = 2 + (int)(urand() * 2);
    clash_object_desc od[3];
    memset(od, 0, sizeof od);
    for (int o = 0; o < n; ++o) {
        od[o].mesh = (int)(urand() * 3);
        od[o].scale = 0.6 + 0.8 * urand();
        const int one_axis = urand() < 0.4 ? (int)(urand() * 3) : -1, still = urand() < 0.15;
        for (int d = 0; d < 3; ++d) {
            od[o].position[d] = 1.3 * srand1();
            od[o].rotation_deg[d] = 180 * srand1();
            od[o].velocity[d] = 0.3 * srand1();
            od[o].angular_velocity_deg[d] = one_axis >= 0 && d != one_axis ? 0 : 200 * srand1();
        }
        if (one_axis >= 0) od[o].angular_velocity_deg[one_axis] = (urand() < 0.5 ? -1 : 1) * (60 + 300 * urand());
        if (still)
            for (int d = 0; d < 3; ++d) od[o].angular_velocity_deg[d] = 0;
    }
    clash_scene_desc d = {.name = "turning", .steps = 2, .mode = CLASH_MODE_SWEPT, .nmeshes = 3, .meshes = md,
                          .nobjects = n, .objects = od};
    clash_scene *sc = NULL;
    clash_error err;
    CHECK(clash_scene_build(&d, &sc, &err) == 0, "random scene: %s", err.msg);
    return sc;
}

static void test_random_laws(int nscenes, tally *t)
{
    for (int i = 0; i < nscenes; ++i) {
        clash_scene *sc = random_laws();
        if (!sc) continue;
        clash_config c = ccd_config(1 + i % 2);
        clash_error err;
        clash_run *run = clash_run_create(sc, &c, &err);
        CHECK(run != NULL, "run_create: %s", err.msg);
        int *first = malloc(sizeof *first * (size_t)(sc->nf * sc->nf));
        char what[64];
        snprintf(what, sizeof what, "laws scene %d", i);
        for (int s = 1; run && s <= 2; ++s) {
            clash_pairs p;
            CHECK(clash_step(run, s, &p, NULL, &err) == 0, "step: %s", err.msg);
            substeps(sc, s, place_law, NULL, first);
            compare(sc, run, first, what, s, t);
            t->turning += sc->nturning, t->objects += sc->nobj;
        }
        free(first);
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
}

static void test_random_host(int nscenes, tally *t)
{
    clash_mesh m[3];
    clash_error err;
    clash_gen_sphere(24, &m[0], &err), clash_gen_sphere(48, &m[1], &err), clash_gen_box(&m[2], &err);
    for (int i = 0; i < nscenes; ++i) {
        clash_scene *sc = NULL;
        clash_scene_create(&sc, &err);
        int mesh[3];
        for (int k = 0; k < 3; ++k)
            mesh[k] = clash_scene_add_mesh(sc, m[k].xyz, m[k].nverts, m[k].tri, m[k].nfaces, &err);
        host_plan hp = {.nobj = 2 + (int)(urand() * 2)};
        for (int o = 0; o < hp.nobj; ++o) {
            double u[3] = {srand1(), srand1(), srand1()}, n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            for (int d = 0; d < 3; ++d) u[d] /= n, hp.t[0][o][d] = 1.0 * srand1();
            axis_rot(u, 3 * srand1(), hp.R[0][o]);
            CHECK(clash_scene_add_object(sc, mesh[(int)(urand() * 3)], hp.R[0][o], hp.t[0][o], 0, &err) == o,
                  "add_object: %s", err.msg);
            for (int s = 1; s <= HSTEPS; ++s) {
                screw *w = &hp.set[s][o];
                double v[3] = {srand1(), srand1(), srand1()}, nv = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
                for (int d = 0; d < 3; ++d) w->u[d] = v[d] / nv;
                /* a third of the turns are past 180 degrees: the library goes the other way */
                const double x = urand();
                w->th = (x < 0.3 ? 190 + 140 * urand() : x < 0.85 ? 20 + 150 * urand() : 0) * PI / 180;
                for (int d = 0; d < 3; ++d) w->c[d] = hp.t[s - 1][o][d] + (urand() < 0.5 ? 0.5 : 2) * srand1();
                w->h = 0.3 * srand1();
                screw_apply(w, 1, hp.R[s - 1][o], hp.t[s - 1][o], hp.R[s][o], hp.t[s][o]);
                screw *q = &hp.path[s][o];
                *q = *w;
                if (w->th > PI) { /* the same displacement turning 2 pi - th about -u, the same line */
                    q->th = 2 * PI - w->th;
                    for (int d = 0; d < 3; ++d) q->u[d] = -w->u[d];
                    q->h = -w->h;
                }
            }
        }
        clash_config c = ccd_config(1 + i % 2);
        clash_run *run = clash_run_create(sc, &c, &err);
        CHECK(run != NULL, "run_create: %s", err.msg);
        int *first = malloc(sizeof *first * (size_t)(sc->nf * sc->nf));
        char what[64];
        snprintf(what, sizeof what, "host scene %d", i);
        for (int s = 1; run && s <= HSTEPS; ++s) {
            for (int o = 0; o < hp.nobj; ++o)
                CHECK(clash_run_set_pose(run, o, hp.R[s][o], hp.t[s][o], &err) == 0, "set_pose: %s", err.msg);
            clash_pairs p;
            CHECK(clash_run_advance(run, &p, NULL, &err) == 0, "advance: %s", err.msg);
            substeps(sc, s, place_host, &hp, first);
            compare(sc, run, first, what, s, t);
            t->turning += sc->nturning, t->objects += sc->nobj;
        }
        free(first);
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
    for (int k = 0; k < 3; ++k) clash_mesh_free(&m[k]);
}

/* ---- 3. the motions themselves ------------------------------------------------------------ */

/* ck_rigid_pose against the screws and formulas written out here: the same
 * pose at every tau, to rounding (turns past 180 degrees go the other way;
 * a turn of 1e-9 rad keeps its translation). */
static void test_poses(int n)
{
    double worst = 0;
    for (int i = 0; i < n; ++i) {
        double u[3] = {srand1(), srand1(), srand1()}, R0[9], t0[3], R1[9], t1[3];
        const double nu = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
        for (int d = 0; d < 3; ++d) u[d] /= nu, t0[d] = 3 * srand1();
        axis_rot(u, 3 * srand1(), R0);
        screw w = {.th = i % 5 == 0 ? 1e-9 : 2 * PI * urand(), .h = srand1()};
        double v[3] = {srand1(), srand1(), srand1()};
        const double nv = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        for (int d = 0; d < 3; ++d) w.u[d] = v[d] / nv, w.c[d] = t0[d] + 2 * srand1();
        screw_apply(&w, 1, R0, t0, R1, t1);
        screw q = w;
        if (w.th > PI) {
            q.th = 2 * PI - w.th, q.h = -w.h;
            for (int d = 0; d < 3; ++d) q.u[d] = -w.u[d];
        }
        ck_rigid m;
        ck_rigid_screw(&m, R0, t0, R1, t1, 1, 1);
        for (int k = 0; k <= 8; ++k) {
            double Ra[9], ta[3], Rb[9], tb[3];
            ck_rigid_pose(&m, k / 8.0, Ra, ta);
            screw_apply(&q, k / 8.0, R0, t0, Rb, tb);
            for (int j = 0; j < 9; ++j) worst = fmax(worst, fabs(Ra[j] - Rb[j]));
            for (int d = 0; d < 3; ++d) worst = fmax(worst, fabs(ta[d] - tb[d]) / 10);
        }
        /* the formula: the scene-file path at s - 1 + tau */
        clash_pose p = {.scale = 1};
        for (int d = 0; d < 3; ++d)
            p.position[d] = srand1(), p.velocity[d] = srand1(), p.rotation_deg[d] = 180 * srand1(),
            p.angular_velocity_deg[d] = 300 * srand1();
        ck_rigid_euler(&m, p.rotation_deg, p.angular_velocity_deg, p.position, p.velocity, 1, 3, 1);
        for (int k = 0; k <= 8; ++k) {
            double Ra[9], ta[3], Rb[9], tb[3];
            ck_rigid_pose(&m, k / 8.0, Ra, ta);
            clash_scene dummy = {.pose = &p};
            place_law(&dummy, 0, 3, k / 8.0, NULL, Rb, tb);
            for (int j = 0; j < 9; ++j) worst = fmax(worst, fabs(Ra[j] - Rb[j]));
            for (int d = 0; d < 3; ++d) worst = fmax(worst, fabs(ta[d] - tb[d]) / 10);
        }
    }
    CHECK(worst < 1e-12, "ck_rigid_pose: %g from the screw or formula it should follow", worst);
    printf("poses: %d screws and formulas, largest difference %.3g\n", n, worst);
}

/* ---- 4. pairs that do not turn ------------------------------------------------------------- */

static int contacts_of(clash_scene *sc, clash_contact **out, size_t *n)
{
    clash_config c = ccd_config(2);
    clash_error err;
    clash_run *run = clash_run_create(sc, &c, &err);
    CHECK(run != NULL, "run_create: %s", err.msg);
    if (!run) return -1;
    clash_pairs p;
    CHECK(clash_step(run, 1, &p, NULL, &err) == 0, "step: %s", err.msg);
    clash_contacts cs;
    CHECK(clash_run_contacts(run, &cs, &err) == 0, "contacts: %s", err.msg);
    *n = 0;
    *out = malloc(sizeof **out * (cs.count + 1));
    for (size_t i = 0; i < cs.count; ++i)
        if (cs.contacts[i].obj_a < 2 && cs.contacts[i].obj_b < 2) (*out)[(*n)++] = cs.contacts[i];
    clash_run_destroy(run);
    return 0;
}

static void test_not_turning(void)
{
    clash_contact *with = NULL, *without = NULL;
    size_t nw = 0, nwo = 0;
    for (int k = 0; k < 2; ++k) {
        clash_mesh_desc md[2] = {{.name = "box", .kind = CLASH_MESH_BOX, .scale = 1, .center = 1},
                                 {.name = "s48", .kind = CLASH_MESH_SPHERE, .sphere_faces = 48, .scale = 1}};
        clash_object_desc od[3] = {{.mesh = 0, .scale = 1, .position = {0, 0, 0}, .rotation_deg = {10, 20, 30},
                                    .velocity = {0.7, 0.1, 0}},
                                   {.mesh = 0, .scale = 1, .position = {1.6, 0.2, 0.1}, .rotation_deg = {-5, 40, 0},
                                    .velocity = {-0.7, 0, 0.05}},
                                   {.mesh = 1, .scale = 1, .position = {0.8, 3.5, 0},
                                    .angular_velocity_deg = {0, 0, 120}, .velocity = {0, -0.8, 0}}};
        clash_scene_desc d = {.name = "mixed", .steps = 1, .mode = CLASH_MODE_SWEPT, .nmeshes = 2, .meshes = md,
                              .nobjects = k ? 3 : 2, .objects = od};
        clash_scene *sc = NULL;
        clash_error err;
        CHECK(clash_scene_build(&d, &sc, &err) == 0, "mixed scene: %s", err.msg);
        if (!sc) return;
        contacts_of(sc, k ? &with : &without, k ? &nw : &nwo);
        CHECK(!k || sc->nturning == 1, "mixed scene: one object should turn");
        clash_scene_destroy(sc);
    }
    CHECK(nwo > 0, "the two boxes should collide");
    CHECK(nw == nwo, "the boxes' contacts: %zu with a turning object elsewhere, %zu without", nw, nwo);
    for (size_t i = 0; i < nw && i < nwo; ++i)
        CHECK(!memcmp(&with[i], &without[i], sizeof with[i]), "contact %zu differs (toi %.17g against %.17g)", i,
              with[i].toi, without[i].toi);
    free(with), free(without);
}

/* argv[1]: random scenes of each kind (default 6), argv[2]: a seed for them */
int main(int argc, char **argv)
{
    const int nscenes = argc > 1 ? atoi(argv[1]) : 6;
    if (argc > 2) rng ^= strtoull(argv[2], NULL, 10) * 0x9e3779b97f4a7c15u;
    double t0 = now();
    char dir[] = "/tmp/clash_ccd_turning_XXXXXX";
    if (!mkdtemp(dir)) return check_skip("no temporary folder");
    test_rod_law(dir);
    rmdir(dir);
    test_rod_host();
    printf("rod: %.2f s\n", now() - t0), t0 = now();
    tally t = {0};
    test_random_laws(nscenes, &t);
    printf("laws: %ld face pairs meet in the sub-steps, %ld late or missed; %ld contacts; %ld of %ld objects turn "
           "(%.2f s)\n", t.oracle, t.late, t.contacts, t.turning, t.objects, now() - t0);
    CHECK(t.turning > 0 && t.turning < t.objects, "laws: the scenes should mix objects that turn and that do not");
    CHECK(t.late == 0, "laws: --ccd misses or reports late %ld face pairs the sub-steps find", t.late);
    CHECK(t.oracle > 0, "laws: the sub-steps find no contact: the test tests nothing");
    t0 = now();
    t = (tally){0};
    test_random_host(nscenes, &t);
    printf("host poses: %ld face pairs meet in the sub-steps, %ld late or missed; %ld contacts; %ld of %ld objects "
           "turn (%.2f s)\n", t.oracle, t.late, t.contacts, t.turning, t.objects, now() - t0);
    CHECK(t.turning > 0 && t.turning < t.objects, "host poses: the scenes should mix objects that turn and not");
    CHECK(t.late == 0, "host poses: --ccd misses or reports late %ld face pairs the sub-steps find", t.late);
    CHECK(t.oracle > 0, "host poses: the sub-steps find no contact: the test tests nothing");
    test_not_turning();
    test_poses(200);
    return check_finish("test_ccd_turning");
}
