/*
 * dist_report.h — the report's decomposition section of `clash run
 * --decompose objects`: what each rank's part of the library's decomposed
 * run (clash_config.decompose = CLASH_DECOMPOSE_OBJECTS) held, sent and
 * spent over the steps, tallied from the steps' statistics
 * (clash_step_stats.dist_*) and gathered to rank 0 once, after the steps.
 */
#ifndef CLASH_CLI_DIST_REPORT_H
#define CLASH_CLI_DIST_REPORT_H

#include <stdint.h>

#include "clash/clash.h"

/* One rank's figures over the steps. */
typedef struct clash_dist_tally {
    int steps;
    int64_t owned, present, faces;  /* the last step's */
    int64_t faces_max, rebuilds, cuts;
    int64_t bytes, boxed, kept, cand; /* summed over the steps */
    double steps_s, wait_s;           /* summed: the steps, and their S6 (agreement and merges) */
    double imb_max, imb_sum;          /* the steps' imbalance (the same on every rank) */
} clash_dist_tally;

/* Step st (of step_s seconds) into t.  One rank (the run is then a
 * replicated one, without dist_* figures): the whole scene, nobj objects
 * of nf faces, is its part. */
void clash_dist_tally_add(clash_dist_tally *t, const clash_step_stats *st, double step_s, int nobj, int64_t nf);

/* Every rank calls it (a collective): rank 0 gets the section (malloc'd)
 * for clash_report_info.extra_yaml, the other ranks NULL.  *oom is set on
 * the rank that ran out of memory (rank 0 then gets NULL too). */
char *clash_dist_section(const clash_dist_tally *t, int nobj, int *oom);

#endif
