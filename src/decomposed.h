/*
 * decomposed.h — the API's decomposed run (clash_config.decompose =
 * CLASH_DECOMPOSE_OBJECTS), for run_api.c.  The model is in
 * decomposed.c's opening comment.  Each function does what the public one of
 * the same purpose says (clash.h, "Decomposed runs"), on a run whose dist is
 * set; clash_dist_create returns a pipeline run instead when the
 * communicator has one rank.
 */
#ifndef CLASH_DECOMPOSED_H
#define CLASH_DECOMPOSED_H

#include "clash/clash.h"

clash_run *clash_dist_create(clash_scene *sc, const clash_config *cfg, clash_error *err);
void clash_dist_destroy(clash_run *run);
int clash_dist_set_pose(clash_run *run, int obj, const double rot[9], const double trans[3], clash_error *err);
int clash_dist_set_vertices(clash_run *run, int obj, const double *xyz, clash_error *err);
int clash_dist_advance(clash_run *run, clash_pairs *out, clash_step_stats *st, clash_error *err);
int clash_dist_step(clash_run *run, int s, clash_pairs *out, clash_step_stats *st, clash_error *err);
int clash_dist_owner(const clash_run *run, int obj);
size_t clash_dist_work_bytes(const clash_run *run);

#endif
