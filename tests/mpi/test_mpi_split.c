/*
 * test_mpi_split.c — a run works on the communicator its host gives it
 * (clash_config.mpi_comm, issue 14).  Under `mpirun -n 4` the host splits
 * MPI_COMM_WORLD in two halves (ranks 0,2 and 1,3) and runs a different
 * scene on each half at the same time: the even half a cluttered preset
 * stepped by clash_step (swept), the odd half a scene built from arrays and
 * moved by poses (static).  Each half's pairs (on its rank 0) must equal
 * those of a one-rank run of the same scene (mpi_comm = MPI_COMM_SELF) on
 * the same process, and each half's run must see two ranks.  With the runs
 * of both halves in flight together, any collective left on MPI_COMM_WORLD
 * would mix the halves' messages (or hang: CTest's timeout).  Each step's
 * clash_step_stats name the rank and the rank count of its run, and on the
 * swept half the two ranks' S5 tests and hits (rank_hits) add up to the
 * one-rank run's tests and pairs (the ranks share the work out).
 * Run outside mpirun, or without 4 ranks, it skips (77).
 */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/run.h"
#include "stages/stages.h"
#include "store/generators.h"
#include "store/mesh.h"

enum { STEPS = 8 };

static uint64_t hash_pairs(uint64_t h, const clash_pairs *p)
{
    h ^= p->count;
    const unsigned char *b = (const unsigned char *)p->pairs;
    for (size_t i = 0; i < p->count * sizeof *p->pairs; ++i) h = (h ^ b[i]) * 1099511628211ULL;
    return h;
}

/* Two generated spheres from arrays, the second moved through the first. */
static clash_scene *memory_scene(clash_error *err)
{
    clash_mesh sph;
    if (clash_gen_sphere(840, &sph, err)) return NULL;
    clash_scene *sc = NULL;
    const double t1[3] = {2.4, 0.3, 0};
    int ok = clash_scene_create(&sc, err) == 0 && clash_scene_add_mesh(sc, sph.xyz, sph.nverts, sph.tri, sph.nfaces, err) == 0 &&
             clash_scene_add_object(sc, 0, NULL, NULL, 0, err) == 0 && clash_scene_add_object(sc, 0, NULL, t1, 0, err) == 1;
    clash_mesh_free(&sph);
    if (!ok) clash_scene_destroy(sc), sc = NULL;
    return sc;
}

/* This rank's share over the steps (clash_step_stats): its tests and hits. */
typedef struct share {
    long long tests, hits;
} share;

/* Runs scene `kind` on comm; hash and count of the pairs over the steps
 * (on the communicator's rank 0), the run's rank count and this rank's share. */
static int run_scene(int kind, MPI_Comm comm, uint64_t *hash, size_t *count, int *ranks, share *sh,
                     clash_error *err)
{
    clash_scene *sc = NULL;
    if (kind == 0) {
        clash_preset_params pp = {.objects = 120, .seed = 5, .density = 0.12};
        if (clash_scene_preset("cluttered", &pp, &sc, err)) return 1;
    } else if (!(sc = memory_scene(err))) {
        return 1;
    }
    clash_config cfg = clash_config_default();
    cfg.mode = kind == 0 ? CLASH_MODE_SWEPT : CLASH_MODE_STATIC;
    cfg.threads = 1;
    cfg.steps = STEPS;
    cfg.mpi_comm = &comm;
    clash_run *run = clash_run_create(sc, &cfg, err);
    if (!run) {
        clash_scene_destroy(sc);
        return 1;
    }
    *ranks = run->ranks.size;
    *hash = 1469598103934665603ULL, *count = 0;
    *sh = (share){0, 0};
    int rc = 0, me = 0;
    MPI_Comm_rank(comm, &me);
    for (int s = 1; s <= STEPS && !rc; ++s) {
        clash_pairs p;
        clash_step_stats st;
        if (kind == 0) {
            rc = clash_step(run, s, &p, &st, err);
        } else {
            const double a = 0.2 * s, c = cos(a), sn = sin(a);
            const double R[9] = {c, 0, sn, 0, 1, 0, -sn, 0, c}, t[3] = {2.4 - 0.35 * s, 0.3, 0.02 * s};
            rc = clash_run_set_pose(run, 1, R, t, err);
            if (!rc) rc = clash_run_advance(run, &p, &st, err);
        }
        if (rc) break;
        *hash = hash_pairs(*hash, &p), *count += p.count;
        CHECK(st.rank == me && st.ranks == *ranks, "step %d: stats name rank %d of %d, not %d of %d", s, st.rank,
              st.ranks, me, *ranks);
        sh->tests += st.tests, sh->hits += st.rank_hits;
    }
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return rc;
}

int main(int argc, char **argv)
{
    int provided = 0, rank = 0, size = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0) printf("SKIP: run under mpirun -n 4 (got %d rank%s)\n", size, size == 1 ? "" : "s");
        MPI_Finalize();
        return 77;
    }
    const int color = rank % 2;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    int hrank;
    MPI_Comm_rank(half, &hrank);
    clash_error err = {0};
    uint64_t h_half = 0, h_one = 0;
    size_t n_half = 0, n_one = 0;
    int r_half = 0, r_one = 0;
    /* both halves at once, each on its own scene */
    share s_half, s_one;
    const int rc_half = run_scene(color, half, &h_half, &n_half, &r_half, &s_half, &err);
    CHECK(rc_half == 0, "rank %d: half %d: %s", rank, color, err.msg);
    CHECK(r_half == 2, "rank %d: the half's run sees %d ranks, not 2", rank, r_half);
    /* the same scene on this rank alone */
    const int rc_one = run_scene(color, MPI_COMM_SELF, &h_one, &n_one, &r_one, &s_one, &err);
    CHECK(rc_one == 0 && r_one == 1, "rank %d: one-rank run: %s (%d ranks)", rank, err.msg, r_one);
    long long sum[2] = {s_half.tests, s_half.hits};
    MPI_Allreduce(MPI_IN_PLACE, sum, 2, MPI_LONG_LONG, MPI_SUM, half);
    if (color == 0) { /* swept: each pair made in one unit, so on one rank */
        CHECK(s_one.tests > 0 && sum[0] == s_one.tests, "rank %d: the half's ranks tested %lld pairs, one rank %lld",
              rank, sum[0], s_one.tests);
        CHECK(sum[1] == (long long)n_one && s_one.hits == (long long)n_one,
              "rank %d: the half's ranks' hits add up to %lld, one rank's %lld, pairs %zu", rank, sum[1], s_one.hits,
              n_one);
        CHECK(s_half.tests < s_one.tests, "rank %d: this rank tested %lld of the one rank's %lld: no share", rank,
              s_half.tests, s_one.tests);
    }
    if (hrank == 0) {
        CHECK(n_one > 0, "rank %d: scene %d has no pairs, so the test could not fail", rank, color);
        CHECK(h_half == h_one && n_half == n_one, "rank %d: scene %d on 2 ranks: %zu pairs, on 1 rank: %zu (or others)",
              rank, color, n_half, n_one);
        printf("rank %d: scene %d: %zu pairs on its half (2 ranks) and on one rank\n", rank, color, n_half);
    } else {
        CHECK(n_half == 0, "rank %d: pairs come back on the half's rank 0 only (got %zu)", rank, n_half);
    }
    MPI_Comm_free(&half);
    long failed = check_failed_, all = 0;
    MPI_Allreduce(&failed, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    const int status = check_finish("test_mpi_split");
    MPI_Finalize();
    return all ? 1 : status;
}
