/*
 * common.h — what every `clash bench` suite shares.
 *
 *   options      --quick, --out DIR, --reps N, --threads T, --quiet and a few
 *                suite-specific ones, parsed once (bad values: exit 2)
 *   progress     a one-line bar on stderr: "[=====     ] papers: sweep 528 faces  7/20"
 *   scenes       a scene from JSON text (the bench builds its experiment
 *                scenes as clash-scene/1 text, exactly as a user would)
 *   running      one run of a scene through the C API, collecting the wall
 *                time of every step, the pairs and the run's checksum
 *   output       CSV and YAML files written atomically into --out DIR; the
 *                YAML echoes the build, the machine, every parameter and the
 *                validation checksums (CoMD's self-describing run file)
 *   plots        a gnuplot script beside the CSV, run when gnuplot is installed
 *                (PNG); without gnuplot the script stays and a message says so
 *
 * Timing conventions (bench.h): a variant is repeated --reps times, the
 * first repetition is a warm-up and is dropped when there are three or more,
 * the median is reported; the checksum must be the same in every
 * repetition, or the suite fails (exit 1) before reporting any time.
 */
#ifndef CLASH_BENCH_COMMON_H
#define CLASH_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>

#include "clash/clash.h"
#include "clash_internal.h"

typedef struct bench_opts {
    const char *suite;
    int quick;
    const char *out;        /* output folder (created) */
    int reps;               /* repetitions per variant */
    int threads;            /* 0: all cores of the binding */
    int quiet;              /* no progress bar */
    const char *meshes;     /* distance: comma-separated mesh files or names */
    const char *ranks;      /* scaling: comma-separated rank counts */
    const char *thread_list;/* scaling: comma-separated thread counts */
    int objects;            /* scaling: objects of the strong study (0: default) */
    int steps;              /* steps per run where a suite allows it (0: default) */
    const char *midphases;  /* seeds: comma-separated midphase names (NULL: all) */
    int seed;               /* scene seed where a suite allows it (0: the suite's default) */
} bench_opts;

/* Parses the suite's arguments into o (defaults filled: quick 0, out
 * "bench-out/SUITE", reps 6, or 4 when quick: 5 or 3 counted).  extra is a NULL-terminated
 * list of suite-specific options this suite accepts ("--meshes", ...).
 * Returns 0, 2 on a bad option (message printed), or -1 after --help. */
int bench_parse(const char *suite, int argc, char **argv, const char *const *extra, const char *usage,
                bench_opts *o);

/* Progress bar on stderr, only when stderr is a terminal (nothing when
 * o->quiet); done == total ends the line. */
void bench_progress(const bench_opts *o, const char *what, int done, int total);

/* A scene from clash-scene/1 JSON text; relative mesh paths resolve from base_dir. */
int bench_scene_json(const char *json, const char *base_dir, clash_scene **out, clash_error *err);

/* One run: step times and totals. */
typedef struct bench_run {
    int steps;              /* steps run */
    double *step_s;         /* wall time of each step (steps entries) */
    uint64_t *step_pairs;   /* pairs of each step */
    clash_run_totals tot;   /* checksum, first collision, stage totals */
} bench_run;
/* Runs steps 1..cfg->steps (or until the first collision with
 * cfg->stop_at_first); r is filled and must be freed with bench_run_free. */
int bench_run_scene(clash_scene *sc, const clash_config *cfg, bench_run *r, clash_error *err);
void bench_run_free(bench_run *r);

/* Per-step medians of o->reps runs of one scene (papers, seeds): the
 * first repetition is a warm-up when reps >= 3; a checksum or step count
 * that changes between repetitions fails the suite.  what labels the
 * progress bar (done of total, *done advanced by one). */
typedef struct bench_series {
    int steps;
    double *ms;             /* median wall time of each step, ms */
    uint64_t *pairs;        /* pairs of each step */
    uint64_t checksum, pairs_total;
    int first_collision;    /* -1: none */
    int64_t faces;
    clash_run_totals tot;   /* the first repetition's totals (candidates, stage times) */
} bench_series;
int bench_measure(const bench_opts *o, clash_scene *sc, const clash_config *cfg, bench_series *out,
                  const char *what, int *done, int total);
void bench_series_free(bench_series *s);

/* The papers' experiment scenes, as clash-scene/1 text (malloc'd, or NULL).
 * Two UV spheres of the given faces, diameter 3.8, moving into contact so
 * that their bounding spheres touch in step T ([Smith94] Fig. 3.6), plus
 * crowd - 2 bystanders on a grid above them (Fig. 3.9): papers.c. */
char *bench_spheres_json(int faces, int crowd, int T);
/* Zachmann's procedure ([Zachmann00] 3.5.10): two copies of the mesh at path, scaled
 * by scale, box centres d apart along x, the second one revolving about z
 * once in steps steps (static mode): distance.c. */
char *bench_revolve_json(const char *path, double scale, double d, int steps);
/* A mesh named in the shared folder (with or without ".obj") or a path:
 * 1 when found (out is the path), else 0. */
int bench_mesh_path(const char *name, char *out, size_t n);
/* Edge of the mesh's bounding cube (largest box extent) and its faces. */
int bench_mesh_extent(const char *path, double *extent, int64_t *faces, clash_error *err);

/* A rigid scene description written back as clash-scene/1 text (malloc'd,
 * or NULL), started `shift` steps later (positions and angles advanced by
 * shift times their rates: the pose formula is linear in the step) and
 * run for `steps` steps.  Mesh files are written as absolute paths. */
struct clash_scene_desc;
char *bench_desc_json(const struct clash_scene_desc *d, int shift, int steps);

/* Median of n values (the array is sorted in place); 0 when n == 0. */
double bench_median(double *v, int n);
/* Index of the first repetition that counts (1 when reps >= 3: warm-up dropped). */
int bench_first_rep(int reps);

/* Output files in o->out, written atomically (clash_outfile, clash_internal.h). */
FILE *bench_open(const bench_opts *o, clash_outfile *f, const char *name);
int bench_close(const bench_opts *o, clash_outfile *f);   /* 0 or 1 (message printed) */

/* YAML header: suite, build, machine, common parameters.  The suite then
 * adds its own "params:" and "validation:" keys and closes the file. */
void bench_yaml_header(FILE *f, const bench_opts *o);

/* Writes NAME.gp into o->out and runs gnuplot on it there when gnuplot is
 * found.  Returns 1 when a plot was made, 0 when skipped (message printed). */
int bench_plot(const bench_opts *o, const char *name, const char *script);

/* Path of the folder of the shared meshes (../shared/data/meshes), or NULL. */
const char *bench_mesh_dir(void);

/* Fails the suite: prints "clash: error: bench SUITE: MSG" and returns code. */
int bench_fail(const bench_opts *o, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

#endif
