/*
 * test_run_objects_mpi.c — objects that come and go under MPI.  Under
 * `mpirun -n 2`, the scenario of tests/unit/objects_scenario.h (objects
 * added, removed, disabled, filtered, excluded, self-collision switched on)
 * run replicated on both ranks (every rank the same calls) gives on rank 0
 * the pairs and contacts of the same scenario run on one rank
 * (mpi_comm = MPI_COMM_SELF), for the face octree and the BVH, with and
 * without ccd; and a decomposed run (decompose = objects) refuses each of
 * the calls with CLASH_EINPUT saying why, changing nothing.  Run outside
 * mpirun, or without 2 ranks, it skips (77).
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "objects_scenario.h"

static void replicated(int midphase, int ccd, int rank)
{
    MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
    clash_config cw = clash_config_default();
    cw.midphase = midphase, cw.mode = CLASH_MODE_SWEPT, cw.threads = 1, cw.self_collision = 0, cw.ccd = ccd;
    clash_config cs = cw;
    cw.mpi_comm = &world, cs.mpi_comm = &self;
    os_step a[OS_STEPS], b[OS_STEPS];
    clash_error err = {0};
    const int ra = os_run(&cw, a, &err);
    CHECK(ra == 0, "rank %d: two-rank scenario: %s", rank, err.msg);
    const int rb = os_run(&cs, b, &err);
    CHECK(rb == 0, "rank %d: one-rank scenario: %s", rank, err.msg);
    if (!ra && !rb && rank == 0) {
        size_t n = 0;
        for (int s = 0; s < OS_STEPS; ++s) n += a[s].npairs;
        CHECK(n > 0, "the scenario has pairs");
        CHECK(os_same(a, b), "midphase %d ccd %d: rank 0's pairs on two ranks differ from one rank's", midphase, ccd);
    }
    if (!ra) os_free(a, OS_STEPS);
    if (!rb) os_free(b, OS_STEPS);
}

static void decomposed(int rank)
{
    clash_error err = {0};
    clash_scene *sc = NULL;
    const double at[2][3] = {{0, 0, 0}, {1.2, 0, 0}};
    int ok = clash_scene_create(&sc, &err) == 0 && os_meshes(sc, &err) == 0 &&
             clash_scene_add_object(sc, 0, NULL, at[0], 0, &err) == 0 &&
             clash_scene_add_object(sc, 0, NULL, at[1], 0, &err) == 1;
    clash_config cfg = clash_config_default();
    cfg.decompose = CLASH_DECOMPOSE_OBJECTS, cfg.threads = 1;
    clash_run *run = ok ? clash_run_create(sc, &cfg, &err) : NULL;
    CHECK(run != NULL, "rank %d: decomposed run: %s", rank, err.msg);
    if (run) {
        CHECK(clash_run_add_object(run, 0, NULL, NULL, 0, &err) == -CLASH_EINPUT && strstr(err.msg, "decomposed"),
              "add_object: %s", err.msg);
        CHECK(clash_run_remove_object(run, 1, &err) == CLASH_EINPUT && strstr(err.msg, "decomposed"), "remove: %s",
              err.msg);
        CHECK(clash_run_set_enabled(run, 1, 0, &err) == CLASH_EINPUT, "set_enabled: %s", err.msg);
        CHECK(clash_run_set_filter(run, 1, 1, 1, &err) == CLASH_EINPUT, "set_filter: %s", err.msg);
        CHECK(clash_run_exclude_pair(run, 0, 1, 1, &err) == CLASH_EINPUT, "exclude_pair: %s", err.msg);
        CHECK(clash_run_set_self(run, 0, 1, &err) == CLASH_EINPUT, "set_self: %s", err.msg);
        CHECK(clash_scene_objects(sc) == 2, "nothing added");
        clash_pairs p;
        CHECK(clash_run_advance(run, &p, NULL, &err) == 0, "advance after the refusals: %s", err.msg);
        CHECK(rank != 0 || p.count > 0, "the pair (0, 1) is still tested: %zu pairs", p.count);
    }
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

int main(int argc, char **argv)
{
    int provided = 0, rank = 0, size = 1;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) printf("SKIP: run under mpirun -n 2 (got %d rank%s)\n", size, size == 1 ? "" : "s");
        MPI_Finalize();
        return 77;
    }
    replicated(CLASH_MID_OCTREE, 0, rank);
    replicated(CLASH_MID_BVH, 0, rank);
    replicated(CLASH_MID_OCTREE, 1, rank);
    decomposed(rank);
    long long failed = check_failed_;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    check_failed_ = failed;
    const int rc = check_finish(rank == 0 ? "test_run_objects_mpi" : "test_run_objects_mpi (rank 1)");
    MPI_Finalize();
    return rc;
}
