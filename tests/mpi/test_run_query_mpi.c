/*
 * test_run_query_mpi.c — trial steps and batched states under mpirun -n 2
 * (clash.h, "Trial steps, jumps and batched states").  Outside mpirun, or on
 * one rank, it skips (77).
 *
 *  1. A replicated run with ccd on both ranks: each step queried, then
 *     advanced with the same states; on rank 0 the query's pairs and
 *     contacts are the advance's, and first_toi is the same on every rank and
 *     equals rank 0's ccd_first_toi of the advance (the contacts are gathered
 *     on rank 0 only, first_toi comes to every rank).
 *  2. A decomposed run (CLASH_DECOMPOSE_OBJECTS): query and jump are refused
 *     with CLASH_EINPUT saying why; set_poses of a batch holding an object
 *     another rank owns is refused naming the element and the owner and sets
 *     nothing (the run's pairs then equal a run's that got only the owned
 *     states); a batch of owned objects is taken.
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clash/clash.h"

enum { NOBJ = 6, STEPS = 6 };

static double *g_xyz;
static int32_t *g_tri;
static int64_t g_nv, g_nf;

static void octahedron_sphere(void) /* a coarse sphere: a UV sphere of 6 stacks, 8 slices */
{
    const int st = 6, sl = 8;
    g_nv = 2 + (int64_t)(st - 1) * sl, g_nf = 2 * (int64_t)sl * (st - 1);
    g_xyz = malloc(3 * sizeof(double) * (size_t)g_nv), g_tri = malloc(3 * sizeof(int32_t) * (size_t)g_nf);
    double *v = g_xyz;
    int32_t *t = g_tri;
    v[0] = 0, v[1] = 0, v[2] = 1;
    int64_t k = 1;
    for (int i = 1; i < st; ++i)
        for (int j = 0; j < sl; ++j, ++k) {
            const double th = M_PI * i / st, ph = 2 * M_PI * j / sl;
            v[3 * k] = sin(th) * cos(ph), v[3 * k + 1] = sin(th) * sin(ph), v[3 * k + 2] = cos(th);
        }
    v[3 * k] = 0, v[3 * k + 1] = 0, v[3 * k + 2] = -1;
    const int32_t south = (int32_t)k;
    int64_t f = 0;
    for (int j = 0; j < sl; ++j) {
        t[3 * f] = 0, t[3 * f + 1] = 1 + j, t[3 * f + 2] = 1 + (j + 1) % sl, ++f;
        t[3 * f] = south, t[3 * f + 1] = 1 + (st - 2) * sl + (j + 1) % sl, t[3 * f + 2] = 1 + (st - 2) * sl + j, ++f;
    }
    for (int i = 1; i < st - 1; ++i)
        for (int j = 0; j < sl; ++j) {
            const int32_t a = 1 + (i - 1) * sl + j, b = 1 + (i - 1) * sl + (j + 1) % sl;
            const int32_t c = 1 + i * sl + j, d = 1 + i * sl + (j + 1) % sl;
            t[3 * f] = a, t[3 * f + 1] = c, t[3 * f + 2] = b, ++f;
            t[3 * f] = b, t[3 * f + 1] = c, t[3 * f + 2] = d, ++f;
        }
}

static void pose_at(int o, double u, double R[9], double t[3])
{
    const double r = 3.0 - 0.25 * u, ang = 2 * M_PI * o / NOBJ, th = 0.05 * u * (o + 1);
    const double Rz[9] = {cos(th), -sin(th), 0, sin(th), cos(th), 0, 0, 0, 1};
    memcpy(R, Rz, sizeof Rz);
    t[0] = r * cos(ang), t[1] = r * sin(ang), t[2] = 0;
}

static clash_scene *ring(void)
{
    clash_scene *sc;
    clash_error err;
    clash_scene_create(&sc, &err);
    const int m = clash_scene_add_mesh(sc, g_xyz, g_nv, g_tri, g_nf, &err);
    for (int o = 0; o < NOBJ; ++o) {
        double R[9], t[3];
        pose_at(o, 0, R, t);
        clash_scene_add_object(sc, m, R, t, 0, &err);
    }
    return sc;
}

static void replicated(int rank)
{
    clash_scene *sc = ring();
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_SWEPT, cfg.ccd = 1, cfg.threads = 1;
    clash_error err;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run, "replicated: create: %s", err.msg);
    int touched = 0;
    for (int k = 1; run && k <= STEPS; ++k) {
        double R[NOBJ * 9], t[NOBJ * 3];
        for (int o = 0; o < NOBJ; ++o) pose_at(o, k, R + 9 * o, t + 3 * o);
        CHECK(!clash_run_set_poses(run, NOBJ, NULL, R, t, &err), "replicated: %s", err.msg);
        clash_pairs qp, ap;
        clash_contacts qc, ac;
        double toi = -1;
        CHECK(!clash_run_query(run, &qp, &qc, &toi, &err), "replicated: query: %s", err.msg);
        clash_pair *keep_p = malloc((qp.count + 1) * sizeof *keep_p);
        clash_contact *keep_c = malloc((qc.count + 1) * sizeof *keep_c);
        if (qp.count) memcpy(keep_p, qp.pairs, qp.count * sizeof *keep_p);
        if (qc.count) memcpy(keep_c, qc.contacts, qc.count * sizeof *keep_c);
        const size_t nqp = qp.count, nqc = qc.count;
        clash_step_stats st;
        CHECK(!clash_run_advance(run, &ap, &st, &err), "replicated: advance: %s", err.msg);
        clash_run_contacts(run, &ac, &err);
        double lo = toi, hi = toi;
        MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        CHECK(lo == hi, "replicated: step %d: first_toi %.17g .. %.17g over the ranks", k, lo, hi);
        if (rank == 0) {
            CHECK(nqp == ap.count && (!nqp || !memcmp(keep_p, ap.pairs, nqp * sizeof *keep_p)),
                  "replicated: step %d: query %zu pairs, advance %zu", k, nqp, ap.count);
            CHECK(nqc == ac.count && (!nqc || !memcmp(keep_c, ac.contacts, nqc * sizeof *keep_c)),
                  "replicated: step %d: query %zu contacts, advance %zu", k, nqc, ac.count);
            const double want = st.ccd_first_toi < 0 ? 1 : st.ccd_first_toi;
            CHECK(toi == want, "replicated: step %d: first_toi %.17g, the advance's %.17g", k, toi, want);
            touched += toi < 1;
        }
        free(keep_p), free(keep_c);
    }
    if (rank == 0) CHECK(touched > 0, "replicated: no step has a contact (the first_toi checks test little)");
    clash_run_destroy(run), clash_scene_destroy(sc);
}

static void decomposed(int rank)
{
    clash_scene *sc = ring(), *sr = ring();
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_SWEPT, cfg.threads = 1, cfg.decompose = CLASH_DECOMPOSE_OBJECTS;
    clash_error err;
    clash_run *run = clash_run_create(sc, &cfg, &err), *ref = clash_run_create(sr, &cfg, &err);
    CHECK(run && ref, "decomposed: create: %s", err.msg);
    if (!run || !ref) return;
    clash_pairs p;
    CHECK(clash_run_query(run, &p, NULL, NULL, &err) == CLASH_EINPUT && strstr(err.msg, "decomposed"),
          "decomposed: query: '%s'", err.msg);
    CHECK(clash_run_jump(run, &err) == CLASH_EINPUT && strstr(err.msg, "decomposed"), "decomposed: jump: '%s'",
          err.msg);
    int mine[NOBJ], nm = 0, other = -1;
    for (int o = 0; o < NOBJ; ++o) {
        if (clash_run_owner(run, o) == rank) mine[nm++] = o;
        else other = o;
    }
    double R[(NOBJ + 1) * 9], t[(NOBJ + 1) * 3];
    for (int i = 0; i < nm; ++i) pose_at(mine[i], 4, R + 9 * i, t + 3 * i);
    if (other >= 0) { /* a batch with one object of another rank's at its end: nothing of it is set */
        int objs[NOBJ + 1];
        memcpy(objs, mine, sizeof(int) * (size_t)nm), objs[nm] = other;
        double R2[(NOBJ + 1) * 9], t2[(NOBJ + 1) * 3];
        for (int i = 0; i <= nm; ++i) pose_at(objs[i], 1, R2 + 9 * i, t2 + 3 * i);
        CHECK(clash_run_set_poses(run, nm + 1, objs, R2, t2, &err) == CLASH_EINPUT && strstr(err.msg, "owned by rank"),
              "decomposed: a batch with another rank's object: '%s'", err.msg);
        char at[16];
        snprintf(at, sizeof at, "[%d]", nm);
        CHECK(strstr(err.msg, at) != NULL, "decomposed: '%s' does not name element %s", err.msg, at);
    }
    CHECK(!clash_run_set_poses(run, nm, mine, R, t, &err), "decomposed: an owned batch: %s", err.msg);
    for (int i = 0; i < nm; ++i) clash_run_set_pose(ref, mine[i], R + 9 * i, t + 3 * i, &err);
    clash_pairs pr;
    CHECK(!clash_run_advance(run, &p, NULL, &err), "decomposed: advance: %s", err.msg);
    clash_pair *keep = malloc((p.count + 1) * sizeof *keep);
    if (p.count) memcpy(keep, p.pairs, p.count * sizeof *keep);
    const size_t n = p.count;
    CHECK(!clash_run_advance(ref, &pr, NULL, &err), "decomposed: advance: %s", err.msg);
    if (rank == 0)
        CHECK(n == pr.count && n > 0 && !memcmp(keep, pr.pairs, n * sizeof *keep), "decomposed: %zu pairs after "
              "the refused batch, %zu without it", n, pr.count);
    free(keep);
    clash_run_destroy(run), clash_run_destroy(ref);
    clash_scene_destroy(sc), clash_scene_destroy(sr);
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        MPI_Finalize();
        return check_skip("test_run_query_mpi: needs mpirun -n 2 or more");
    }
    octahedron_sphere();
    replicated(rank);
    decomposed(rank);
    free(g_xyz), free(g_tri);
    int bad = (int)check_failed_;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    const int rc = rank == 0 ? check_finish("test_run_query_mpi") : 0;
    MPI_Finalize();
    return bad ? 1 : rc;
}
