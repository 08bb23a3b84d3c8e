/*
 * run_api.c — the public entry points of a run that differ between its two
 * kinds: a pipeline over the whole scene on every rank (pipeline.c, the
 * default, CLASH_DECOMPOSE_REPLICATED) or a decomposed run, each rank
 * stepping a pipeline of its own part of the scene (decomposed.c,
 * CLASH_DECOMPOSE_OBJECTS on more than one rank).  Each function here only
 * chooses; the two files below it never call each other's public names, so
 * neither depends on this one.
 */
#include "base/error.h"
#include "core/run.h"
#include "decomposed.h"
#include "pipeline.h"

clash_run *clash_run_create(clash_scene *sc, const clash_config *cfg, clash_error *err)
{
    if (clash_isa(NULL, NULL, err)) return NULL; /* CLASH_ISA names a level this process cannot run */
    if (cfg && cfg->decompose == CLASH_DECOMPOSE_OBJECTS) return clash_dist_create(sc, cfg, err);
    return clash_pipe_create(sc, cfg, err);
}

void clash_run_destroy(clash_run *run)
{
    if (run && run->dist) clash_dist_destroy(run);
    else clash_pipe_destroy(run);
}

int clash_run_set_pose(clash_run *run, int obj, const double rot[9], const double trans[3], clash_error *err)
{
    if (run && run->dist) return clash_dist_set_pose(run, obj, rot, trans, err);
    return clash_pipe_set_pose(run, obj, rot, trans, err);
}

int clash_run_set_vertices(clash_run *run, int obj, const double *xyz, clash_error *err)
{
    if (run && run->dist) return clash_dist_set_vertices(run, obj, xyz, err);
    return clash_pipe_set_vertices(run, obj, xyz, err);
}

int clash_run_advance(clash_run *run, clash_pairs *out, clash_step_stats *st, clash_error *err)
{
    if (!run || !out) return clash_fail(err, CLASH_EINPUT, "advance: the %s is NULL", !run ? "run" : "pairs output");
    return run->dist ? clash_dist_advance(run, out, st, err) : clash_pipe_advance(run, out, st, err);
}

int clash_run_owner(const clash_run *run, int obj)
{
    if (!run || obj < 0 || obj >= run->sc->nobj) return -1;
    return run->dist ? clash_dist_owner(run, obj) : run->ranks.rank;
}

int clash_step(clash_run *run, int s, clash_pairs *out, clash_step_stats *st, clash_error *err)
{
    if (run && run->dist) return clash_dist_step(run, s, out, st, err);
    return clash_pipe_step(run, s, out, st, err);
}

size_t clash_run_work_bytes(const clash_run *run)
{
    return run->dist ? clash_dist_work_bytes(run) : clash_pipe_work_bytes(run);
}

int clash_run_state(const clash_run *run)
{
    return run && run->dist ? run->dist_state : clash_pipe_state(run);
}
