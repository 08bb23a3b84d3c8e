/*
 * report.h — what a run leaves behind: the pairs CSV, the run report YAML
 * (src/cli/REFERENCE.md), and the order-independent checksum of all (step, pair) rows.
 *
 * Output files are written atomically: rows go to "FILE.tmp.PID" and the
 * file is renamed into place only when the run succeeded; on failure the
 * temporary file is removed, so no half-written output is ever left.
 */
#ifndef CLASH_REPORT_H
#define CLASH_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "clash/clash.h"

typedef struct clash_run_totals {
    int steps_run;
    int first_collision_step;    /* -1: none */
    clash_step_stats first_collision; /* the stats of that step (the papers' "time at the collision step") */
    uint64_t pairs_total;
    uint64_t checksum;           /* sum of mix64(row) mod 2^64: order-independent */
    double stage_total[CLASH_NSTAGES];
    /* Sums over steps of each step's fastest / slowest worker in the stage
     * (clash_step_stats.worker_min_s/max_s): min_s/max_s of the report. */
    double stage_min[CLASH_NSTAGES], stage_max[CLASH_NSTAGES];
    int64_t vertices, faces_boxed, object_pairs, faces_kept, candidates, tests, hits;
    double mid_build_s;                       /* S4 structures: build time over the run, */
    int64_t mid_bytes, mid_fallback_objects;  /* largest size, objects that fell back */
    double mid_update_s;                      /* their updates, summed over steps, */
    int64_t mid_interfering;                  /* interfering nodes, summed over steps */
    double wall_s;
    double steps_s;              /* time in clash_step over all steps (the per-step time's numerator) */
    double output_s;             /* time writing the pairs CSV, VTK series, step CSV (not the report itself) */
    size_t work_bytes;           /* the run's working arrays at their largest after a step (clash_run_work_bytes) */
    /* --ccd (clash_step_stats.ccd_*), summed over steps; the earliest toi of
     * every step with contacts (toi_step[i], toi[i]), grown as steps come */
    double ccd_s;
    int64_t ccd_tests, ccd_vf_tests, ccd_hull_no, ccd_filter_no, ccd_filter_yes, ccd_exact_calls, ccd_contacts;
    int *toi_step;
    double *toi;
    int ntoi, cap_toi;
} clash_run_totals;

void clash_totals_init(clash_run_totals *t);
void clash_totals_free(clash_run_totals *t);
/* Returns 0, or -1 when the list of per-step tois could not grow. */
int clash_totals_add(clash_run_totals *t, int step, const clash_pairs *p, const clash_step_stats *st);
uint64_t clash_pair_hash(int step, const clash_pair *p);

/* An output file written atomically.  The path "-" is standard output
 * (tmp NULL): rows are written as they come, and it is flushed, never
 * closed, by commit and abort. */
typedef struct clash_outfile {
    char *path, *tmp;
    FILE *f;
} clash_outfile;
int clash_outfile_open(clash_outfile *o, const char *path, clash_error *err);
int clash_outfile_commit(clash_outfile *o, clash_error *err);  /* close + rename */
void clash_outfile_abort(clash_outfile *o);                    /* close + remove */

int clash_pairs_csv_header(FILE *f);
int clash_pairs_csv_rows(FILE *f, int step, const clash_pairs *p);
/* The contacts CSV (--contacts): step,kind,obj_a,id_a,obj_b,id_b,toi, toi
 * with 17 significant digits (it reads back to the same double). */
int clash_contacts_csv_header(FILE *f);
int clash_contacts_csv_rows(FILE *f, int step, const clash_contacts *c);

typedef struct clash_report_info {
    const clash_scene *scene;
    const clash_config *cfg;   /* resolved */
    int threads, ranks;
    const char *binding;
    const struct clash_counters *counters;  /* profile.h; NULL: not requested */
    /* --decompose objects: `scene` is this rank's part; whole_faces > 0 gives
     * the whole scene's objects, vertices and faces for the scene line, and
     * extra_yaml (NULL: none) is appended: the decomposition section. */
    int whole_objects;
    int64_t whole_vertices, whole_faces;
    const char *extra_yaml;
    const char *isa;           /* the kernels' instruction-set level (clash_isa); NULL: not known */
    const char *midphase;      /* cfg->midphase's name (the midphases' table, clash_midphase_name) */
} clash_report_info;
int clash_report_write_yaml(FILE *f, const clash_report_info *ri, const clash_run_totals *t);

/* Items a stage's misses are divided by ("faces", "candidates", ...) and
 * their count over the run; 0 when the stage has none. */
int64_t clash_stage_items(const clash_run_totals *t, int stage, const char **name);
/* The counters table of `clash profile`: per stage L1D and LL misses, per
 * stage item, per face and per candidate pair; or the source `none` and why. */
void clash_counters_print(FILE *f, const struct clash_counters *c, const clash_run_totals *t);

#endif
