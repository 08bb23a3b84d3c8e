/*
 * seeds.h — the types `clash bench seeds` shares between its two files:
 * seeds.c (the experiments, the midphase runs and their validation) and
 * seeds_report.c (callgrind counts, the papers' claims, CSV, YAML, plots).
 *
 * An experiment is a list of points (scenes); every midphase runs every
 * point, giving one cell.  A cell is either measured (times, candidates,
 * pairs, the pairs checksum, simulated misses) or skipped with a reason.
 */
#ifndef CLASH_BENCH_SEEDS_H
#define CLASH_BENCH_SEEDS_H

#include <stdint.h>

#include "bench/common.h"
#include "clash_internal.h"

#define SEEDS_MAX_MID 16
#define SEEDS_NEXP 5
#define SEEDS_CG_STEPS 3           /* steps counted under callgrind per cell */
#define SEEDS_CG_LL "1048576,16,64" /* simulated last-level cache (the cache suite's) */

typedef struct seeds_cell {
    int ran;                       /* 1 measured, 0 skipped (why) */
    char why[160];
    int steps, first_collision;    /* first_collision: -1 none */
    double ms_mean, ms_max;        /* over the steps' medians */
    double ms_before;              /* mean over the steps before the first collision (NAN: none) */
    double ms_collision;           /* the first collision step (NAN: none) */
    double cand_per_step, pairs_per_step;
    int64_t cand_collision;        /* candidates of the first collision step (-1: none) */
    uint64_t checksum;
    double l1d, ll;                /* simulated misses per step in the callgrind window; NAN: NA */
    char cg_why[200];              /* why NA */
} seeds_cell;

typedef struct seeds_point {
    char label[96];                /* "sweep, 528 faces" (messages) */
    char params[192];              /* the CSV cells of the experiment's parameters */
    char group[64];                /* distance: the mesh (claims and plots are per group) */
    double x;                      /* the plot's x: faces, distance, ... */
    int64_t faces;
    double all_face_pairs;         /* sum over object pairs of F_i F_j: the polyhedral method's work */
    clash_scene_desc desc;
    int has_desc;
    int cg;                        /* counted under callgrind */
    int cg_shift, cg_steps;        /* the window: steps shift+1 .. shift+steps */
    seeds_cell cell[SEEDS_MAX_MID];
} seeds_point;

typedef struct seeds_exp {
    const char *name, *title, *params_header, *xlabel;
    int nparams;                   /* CSV columns before "faces" */
    int logx, logy;
    int stop_at_first;
    int window_at_collision;       /* callgrind window ends at the first collision (else: the last steps) */
    int npoints;
    seeds_point *pt;
    int skipped;                   /* the whole experiment (why) */
    char why[256];
    char note[256];                /* the experiment's parameters in words (YAML) */
} seeds_exp;

typedef struct seeds_mid {
    const char *name;
    int chosen;                    /* in --midphases (all by default) */
    int available;                 /* this build takes it (clash_config_set) */
    int value;                     /* clash_config.midphase */
    char why[256];                 /* not available: what the build said */
} seeds_mid;

typedef struct seeds_ctx {
    bench_opts o;
    int nmid;
    seeds_mid mid[SEEDS_MAX_MID];
    seeds_exp exp[SEEDS_NEXP];
    int64_t brute_max_faces;
    double fit_min_faces;          /* slopes fit over points with at least these faces */
    int cg_ok;                     /* callgrind runs attempted */
    char cg_why[256];              /* why not */
} seeds_ctx;

/* Index of a midphase in c->mid that ran (chosen and available), or -1. */
int seeds_mid_index(const seeds_ctx *c, const char *name);
int seeds_mid_runs(const seeds_ctx *c, int m);

/* seeds_report.c */
/* Runs the callgrind children for the points marked cg (at most two at a
 * time) and fills l1d/ll; cells without counts get NA and a reason. */
void seeds_callgrind(seeds_ctx *c);
/* Writes the CSVs, the YAML (with claims:) and the plots, and prints the
 * claims table on stdout.  Returns 0 or CLASH_EFAIL. */
int seeds_write(seeds_ctx *c);

#endif
