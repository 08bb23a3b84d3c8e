/*
 * pipeline.h — the one-pipeline run of pipeline.c under its internal names,
 * for run_api.c (the public entry points, which choose between this and a
 * decomposed run) and decomposed.c (whose ranks each step a pipeline run of
 * their own part of the scene).  Each does what the public function of the
 * same name in clash.h says, on the whole scene of the run.
 */
#ifndef CLASH_PIPELINE_H
#define CLASH_PIPELINE_H

#include "clash/clash.h"

/* The configuration's checks of clash_run_create, with the scene's defaults
 * filled in (cfg is then resolved).  Returns 0, or CLASH_EINPUT with err. */
int clash_pipe_check_config(clash_scene *sc, clash_config *cfg, clash_error *err);
clash_run *clash_pipe_create(clash_scene *sc, const clash_config *cfg, clash_error *err);
void clash_pipe_destroy(clash_run *run);
int clash_pipe_advance(clash_run *run, clash_pairs *out, clash_step_stats *st, clash_error *err);
int clash_pipe_step(clash_run *run, int s, clash_pairs *out, clash_step_stats *st, clash_error *err);
int clash_pipe_state(const clash_run *run);
size_t clash_pipe_work_bytes(const clash_run *run);
int clash_pipe_set_pose(clash_run *run, int obj, const double rot[9], const double trans[3], clash_error *err);
int clash_pipe_set_vertices(clash_run *run, int obj, const double *xyz, clash_error *err);
/* The argument checks of the two above alone (CLASH_EINPUT naming the
 * object, or 0): an unknown object, a rotation that is not one, a non-finite
 * coordinate, set_vertices on a rigid object. */
int clash_pipe_check_pose(const clash_run *run, int obj, const double rot[9], const double trans[3], clash_error *err);
/* The pose a host gives (rot, trans; NULL: identity, zero) as a transform. */
clash_xform clash_pipe_xform(const double rot[9], const double trans[3]);
int clash_pipe_check_vertices(const clash_run *run, int obj, const double *xyz, clash_error *err);

#endif
