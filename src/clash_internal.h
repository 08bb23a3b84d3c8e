/*
 * clash_internal.h — the narrow interface that the `clash` command
 * (src/cli/) and its benchmarks (bench/) use beyond clash/clash.h.
 *
 * The command and the benchmarks are clients of the library: they may
 * include clash/clash.h, the headers of their own folder and this header,
 * nothing else of the library (tests/packaging/check_layers.py fails
 * otherwise).  Here is what a host never needs and the command does:
 *
 *   the library's own parts that only the command uses, declared here and
 *   defined in their folders: scene descriptions (io/), the CCD query files
 *   (io/), the run's outputs and its report (out/), the counter sources;
 *
 *   thin functions of internal.c over what the clients may not see: the
 *   machine, the command's MPI ranks, thread teams, a run's debug switches
 *   and insides, read-only views of the store, opaque counters, and the
 *   kernels the micro-benchmarks time, each taking plain arrays.
 *
 * It declares functions, opaque handles and plain value types, never the
 * library's internal structures: a benchmark that needs a field of the run
 * or of the store calls a function here, so every such access is in one
 * file, internal.c.  This header includes clash/clash.h and system headers
 * only (check_layers checks that too), or the rule above would be empty.
 * Not for hosts and not installed: it changes with the command.
 */
#ifndef CLASH_INTERNAL_H
#define CLASH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clash/clash.h"

#if defined(__GNUC__)
#define CLASH_INTERNAL_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLASH_INTERNAL_PRINTF(a, b)
#endif

/* ---- errors and names ------------------------------------------------------------------------ */

/* Sets err (when non-NULL) to code and the formatted message, and returns
 * code: `return clash_internal_fail(err, CLASH_EINPUT, "--steps: %s", v);` */
int clash_internal_fail(clash_error *err, int code, const char *fmt, ...) CLASH_INTERNAL_PRINTF(3, 4);

/* The name in the NULL-terminated list nearest to word when it is near
 * enough to be a slip of the keyboard, else NULL (the scene-file reader's
 * rule, so options and keys are forgiven alike). */
const char *clash_internal_suggest(const char *word, const char *const *names);

/* The midphases' names, NULL-terminated and indexed by clash_midphase, and
 * one of them ("?" for an unknown id). */
const char *const *clash_internal_midphase_names(void);
const char *clash_internal_midphase_name(int midphase);

/* The name of a clash_config.bind value ("none", "core", "socket"). */
const char *clash_internal_bind_name(int bind);

/* ---- scene descriptions (io/: clash-scene/1 files and presets) ------------------------------- */

/* A scene as described, before meshes are loaded and the store is built:
 * only what the user wrote, with defaults filled in (src/cli/REFERENCE.md,
 * "Scene file").  Plain data; clash_scene_desc_free frees what a parser made. */
typedef enum clash_mesh_kind { CLASH_MESH_FILE = 0, CLASH_MESH_SPHERE = 1, CLASH_MESH_BOX = 2 } clash_mesh_kind;

typedef struct clash_mesh_desc {
    char *name;          /* key in "meshes" */
    int kind;            /* clash_mesh_kind */
    char *path;          /* FILE: resolved path (relative paths joined to the scene's folder) */
    int sphere_faces;    /* SPHERE: F = 4k(k-1) */
    double scale;        /* mesh's own scale, default 1 */
    int center;          /* mesh's own "center": translate so its box centre is the origin */
} clash_mesh_desc;

typedef struct clash_object_desc {
    int mesh;            /* index into meshes[] */
    double scale;        /* default 1 */
    double position[3], rotation_deg[3], velocity[3], angular_velocity_deg[3];
} clash_object_desc;

typedef enum clash_frames_objects { CLASH_FRAMES_COMPONENTS = 0, CLASH_FRAMES_SINGLE = 1 } clash_frames_objects;

typedef struct clash_scene_desc {
    char *name;
    int steps;           /* default 1 */
    int mode;            /* clash_mode, default swept */
    int self_collision;  /* default 0 */
    int nmeshes;
    clash_mesh_desc *meshes;
    int nobjects;
    clash_object_desc *objects;
    /* Deforming scenes: frames instead of meshes/objects (nframes > 0). */
    int nframes;
    char **frame_files;  /* resolved paths */
    int frames_objects;  /* clash_frames_objects */
    const char *source;  /* the scene file, for messages (not owned; NULL: a preset or a string) */
} clash_scene_desc;

/* Parses a clash-scene/1 JSON file.  Errors (exit 2) name the file and the
 * key path, e.g. "scene.json: objects[2].velocity: expected an array of 3 numbers". */
int clash_scene_desc_parse_file(const char *path, clash_scene_desc *out, clash_error *err);
/* Same, from a string; base_dir resolves relative paths, label names the source in messages. */
int clash_scene_desc_parse_string(const char *json, const char *base_dir, const char *label,
                                  clash_scene_desc *out, clash_error *err);
void clash_scene_desc_free(clash_scene_desc *d);

/* Builds a scene from a description (scene_build.c): loads mesh files, runs
 * generators, builds the store.  On error *out is NULL. */
int clash_scene_build(const clash_scene_desc *d, clash_scene **out, clash_error *err);

/* Presets (presets.c).  Names: default, ktk94-table1, ktak94-table1, cluttered. */
int clash_scene_desc_preset(const char *name, const clash_preset_params *p,
                            clash_scene_desc *out, clash_error *err);

/* ---- CCD query files (io/ccd_csv.c: the format of Wang et al.'s benchmark) ------------------- */

typedef struct clash_ccd_query_file {
    int64_t n;               /* queries */
    double (*x0)[4][3];      /* n queries at t = 0 */
    double (*x1)[4][3];      /* at t = 1 */
    int8_t *truth;           /* 0/1 from the 7th column, -1 where the file has 6 columns */
    int64_t inexact;         /* coordinates not exactly a double (rounded to nearest) */
} clash_ccd_query_file;

/* Reads path into q.  Bad input fails with CLASH_EINPUT and "PATH:LINE:
 * what": a row that is not 6 or 7 integers, a zero denominator, a coordinate
 * beyond the doubles' range, a truth other than 0/1, rows not a multiple of 8
 * (naming the first row of the incomplete query), a query whose truth differs
 * between its rows.  Blank lines are skipped.  q is empty on failure. */
int clash_ccd_read(const char *path, clash_ccd_query_file *q, clash_error *err);
void clash_ccd_free(clash_ccd_query_file *q);

/* The benchmark's folders: the names of dir's entries (dot files left out),
 * at most max of them, in strcmp order, each strdup'd into names[] (the
 * caller frees them).  Returns their count; 0 when dir cannot be opened. */
int clash_ccd_list_dir(const char *dir, char **names, int max);

/* ---- the run's outputs (out/report.c): totals, atomic files, CSV rows, the report ------------ */

/* What a run leaves behind: the pairs CSV, the run report YAML
 * (src/cli/REFERENCE.md), the order-independent checksum of all (step,
 * pair) rows.  Files are written atomically (out/report.h says how). */
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

/* ---- the VTK time series (out/vtk.c) --------------------------------------------------------- */

/* A ParaView time series of a run (`clash run --vtk DIR`), one file a step
 * and an index, written atomically (out/vtk.h says how). */
typedef struct clash_vtk clash_vtk;

enum { CLASH_VTK_BINARY = 0, CLASH_VTK_ASCII = 1 };

/* Checks DIR and creates the temporary folder.  NULL on error (err set).
 * The step files are binary unless clash_vtk_set_format says ASCII. */
clash_vtk *clash_vtk_open(const char *dir, clash_scene *sc, clash_error *err);
void clash_vtk_set_format(clash_vtk *v, int format);
/* Writes the file of step s: the scene's state s and the step's pairs. */
int clash_vtk_step(clash_vtk *v, int s, const clash_pairs *pairs, clash_error *err);
/* Writes the .pvd index and moves the series into DIR; frees v. */
int clash_vtk_commit(clash_vtk *v, clash_error *err);
/* Removes the temporary folder and everything in it; frees v (NULL: no-op). */
void clash_vtk_abort(clash_vtk *v);

/* ---- hardware counters of the stage regions (profile/) --------------------------------------- */

/* The counter sources (--counters): */
enum clash_counter_source {
    CLASH_CTR_AUTO = 0, CLASH_CTR_PERF, CLASH_CTR_PAPI, CLASH_CTR_LIKWID, CLASH_CTR_CALLGRIND, CLASH_CTR_NONE
};
/* "auto", "perf", "papi", "likwid", "callgrind", "none", NULL */
extern const char *const clash_counter_source_names[];

typedef struct clash_stage_counts {
    uint64_t l1d_misses;     /* callgrind: D1mr + D1mw; perf: L1D read misses; papi: PAPI_L1_DCM */
    uint64_t ll_misses;      /* callgrind: DLmr + DLmw; perf: LL read misses; papi: L3 (or L2) total misses */
    uint64_t instructions;   /* callgrind: Ir */
    uint64_t data_refs;      /* callgrind: Dr + Dw */
    int64_t regions;         /* region instances counted */
} clash_stage_counts;

/* The counters a run's stage regions read: opaque here (profile/profile.h).
 * Opened on the requested source (auto: the first that works) and live for
 * the regions that follow; never fails but for memory (NULL): a source that
 * cannot be used leaves the source CLASH_CTR_NONE and says why in the reason. */
typedef struct clash_counters clash_counters;
clash_counters *clash_internal_counters_open(int requested);
/* Ends counting, reading what remains (callgrind: its dumps). */
void clash_internal_counters_finish(clash_counters *c);
/* Ends counting without reading (error paths, probes) and frees c (NULL: nothing). */
void clash_internal_counters_close(clash_counters *c);
/* The source in use, what was counted (events, simulated caches), why the
 * requested source was not used ("" when it was), and a stage's counts. */
int clash_internal_counters_source(const clash_counters *c);
const char *clash_internal_counters_model(const clash_counters *c);
const char *clash_internal_counters_reason(const clash_counters *c);
const clash_stage_counts *clash_internal_counters_stage(const clash_counters *c, int stage);

/* 1 when the process runs under valgrind (any tool). */
int clash_running_on_valgrind(void);

/* Sums the dumps BASE.1, BASE.2, ... (until one is missing) whose trigger
 * is a stage name into c->stage[]; returns the number of dumps read, or -1
 * with err set when a dump is malformed.  Other triggers are skipped.
 * `region`, when not NULL, instead sums only dumps whose trigger equals it
 * into *sum (used by the cache study). */
int clash_callgrind_collect(const char *base, clash_counters *c, const char *region, clash_stage_counts *sum,
                            char *caches, size_t caches_len, clash_error *err);

/* Named callgrind regions outside the pipeline (the cache study's kernels):
 * begin zeroes the counts, end dumps them with `name` as trigger.  No-ops
 * when not under valgrind. */
void clash_callgrind_region_begin(void);
void clash_callgrind_region_end(const char *name);

/* ---- the machine ----------------------------------------------------------------------------- */

/* The threads a run gets for `requested` (0: the cores of this process's
 * binding), the cores of that binding, and whether a clash_backend is built. */
int clash_internal_threads(int requested);
int clash_internal_cores(void);
int clash_internal_backend_available(int backend);
/* Lets the main thread run on every core again (a bound OpenMP runtime
 * pins it to one), so that the runs a benchmark starts spread. */
void clash_internal_unbind_initial(void);

/* The machine in one line ("1 package, 2 cores, 2 PUs, ..., L3 32 MiB")
 * into buf, and where it was learnt ("hwloc" or "sysfs"). */
const char *clash_internal_machine(char *buf, size_t n);
/* The last-level cache: bytes, line size (0: unknown) and ways (-1: fully
 * associative, 0: unknown); the return is the source, as above. */
const char *clash_internal_l3(size_t *bytes, int *line, int *ways);

/* The valgrind that `clash profile` re-runs the command under (CLASH_VALGRIND,
 * else the first in PATH): 0 with its path in out, -1 when there is none. */
int clash_internal_find_valgrind(char *out, size_t n);
/* Whether that re-run can work here: 0 with the valgrind path in out, or -1
 * with the reason in out (not built in, valgrind missing, a sanitizer
 * build, which valgrind cannot run). */
int clash_internal_callgrind_usable(char *out, size_t n);

/* ---- the command's ranks (MPI_COMM_WORLD; one rank without MPI) ------------------------------ */

/* MPI_Init_thread when the process runs under a launcher: 1 when it
 * initialized MPI (then clash_internal_ranks_finalize(1) before exit). */
int clash_internal_ranks_init(int *argc, char ***argv);
void clash_internal_ranks_finalize(int inited);
/* This rank and the number of ranks. */
int clash_internal_rank(void);
int clash_internal_nranks(void);
/* Collectives over every rank (each returns at once with one rank). */
int clash_internal_ranks_max_int(int v);
int clash_internal_ranks_any(int v);
void clash_internal_ranks_max_f64(double *v, int n);
void clash_internal_ranks_min_f64(double *v, int n);
void clash_internal_ranks_sum_i64(int64_t *v, int n);
/* all[r * n + i] = rank r's v[i]. */
void clash_internal_ranks_allgather_i64(const int64_t *v, int n, int64_t *all);
/* Ends every rank with code (MPI_Abort), or exits with it. */
void clash_internal_ranks_abort(int code);

/* ---- thread teams ---------------------------------------------------------------------------- */

/* A team of workers as a run's stages use it: a clash_backend, its size, a
 * clash_partition of the fine-grain loops with their block (chunk, 0: one
 * block a worker) and a clash_schedule.  The pthreads backend keeps its
 * workers from create to destroy. */
typedef struct clash_internal_team clash_internal_team;
clash_internal_team *clash_internal_team_create(int backend, int threads, int partition, int64_t chunk,
                                                int schedule);
void clash_internal_team_destroy(clash_internal_team *t);
int clash_internal_team_threads(const clash_internal_team *t);
/* fn over [0, n) cut by the team's partition: fn(begin, end, step, worker, ctx). */
typedef void (*clash_internal_range_fn)(int64_t begin, int64_t end, int64_t step, int worker, void *ctx);
void clash_internal_team_for(const clash_internal_team *t, int64_t n, clash_internal_range_fn fn, void *ctx);

/* ---- a run's switches and insides, for the benchmarks ---------------------------------------- */

/* Ways of running a stage that only benchmarks choose, each compared with
 * the default way (0) on the same run. */
enum {
    CLASH_DEBUG_BVH_BUILDER = 0, /* the BVH midphase's builder: CLASH_INTERNAL_BVH_SAH (default) or _MORTON */
    CLASH_DEBUG_BVH_WORLD = 1,   /* 1: rigid objects' trees refitted in the world, not queried in their frames */
    CLASH_DEBUG_NARROW_PLAIN = 2, /* 1: S5 a stage of its own, every candidate to the exact test (no float filter) */
    CLASH_DEBUG_CCD_EVERY_HIT = 3 /* 1: --ccd makes every hit's primitive pairs, not only from their owner faces */
};
enum { CLASH_INTERNAL_BVH_SAH = 0, CLASH_INTERNAL_BVH_MORTON = 1 };
/* Sets switch `which` of run (before its first step); CLASH_EINPUT for an unknown one. */
int clash_internal_set_debug(clash_run *run, int which, int value);

/* The run's thread team replaced by a new one (as clash_internal_team_create). */
int clash_internal_run_set_team(clash_run *run, int backend, int threads, int partition, int64_t chunk,
                                int schedule);
/* S1 alone on the run's current state, with streaming (non-temporal)
 * stores of the face boxes when streaming is 1; nonzero when out of memory. */
int clash_internal_run_boxes(clash_run *run, int streaming);
/* The run's S1 face boxes: box[0..2] the low x, y, z and box[3..5] the high
 * ones, one float a face; returns the number of faces. */
int64_t clash_internal_run_face_boxes(clash_run *run, float *box[6]);
/* Object obj's S1 box: lo x, y, z then hi x, y, z. */
void clash_internal_run_object_box(const clash_run *run, int obj, float box[6]);
/* The BVH midphase's tree of object obj: its nodes and leaf places (0 when none is built). */
void clash_internal_run_bvh_size(const clash_run *run, int obj, int *nodes, int *places);
/* The hardware counters (profile/) that the run's stage regions read, NULL: none. */
void clash_internal_run_set_counters(clash_run *run, clash_counters *c);
/* The run's working arrays at their largest so far, in bytes. */
size_t clash_internal_run_work_bytes(const clash_run *run);
/* The last step's CCD queries (with --ccd): their number, and query i's
 * kind (CLASH_INTERNAL_CCD_VF or _EE) and its four points at both states. */
int64_t clash_internal_run_ccd_queries(const clash_run *run);
int clash_internal_run_ccd_query(const clash_run *run, int64_t i, double x0[4][3], double x1[4][3]);

/* ---- the scene store ------------------------------------------------------------------------- */

/* The store's arrays as they are now, read-only: every vertex's position in
 * float (state s: x, y, z; state s-1: px, py, pz; its object's own frame:
 * lx, ly, lz), the faces' vertices (f0, f1, f2), and each object's first
 * face (fofs[0..nobj], in store order).  Valid until the scene changes. */
typedef struct clash_internal_scene_view {
    int nobj;
    int64_t nv, nf;
    const float *x, *y, *z, *px, *py, *pz, *lx, *ly, *lz;
    const int32_t *f0, *f1, *f2;
    const int64_t *fofs;
} clash_internal_scene_view;
void clash_internal_scene_view_get(const clash_scene *sc, clash_internal_scene_view *v);
/* The store's place of face `face` of object obj as the host numbers it
 * (the store may keep faces in Morton order). */
int64_t clash_internal_face_store(const clash_scene *sc, int obj, int64_t face);

/* The meshes the scene was made of: their number, and mesh m's arrays (not owned). */
int clash_internal_scene_meshes(const clash_scene *sc);
void clash_internal_scene_mesh(const clash_scene *sc, int m, int64_t *nv, const double **xyz, int64_t *nf,
                               const int32_t **tri);
/* Object obj: its mesh, its scale, its pose in state 0. */
void clash_internal_scene_object(const clash_scene *sc, int obj, int *mesh, double *scale, double R[9], double t[3]);
/* The pose a scene file's law gives object obj in state s; CLASH_EINPUT when
 * the object has no such law (frames or host-driven). */
int clash_internal_scene_pose_at(const clash_scene *sc, int obj, int s, double R[9], double t[3]);

/* Every scene-file law of the scene checked for states 0..last (positions
 * that stay in range), messages naming the file `source`. */
int clash_internal_scene_check_laws(const clash_scene *sc, int last, const char *source, clash_error *err);
/* Sets the scene to state s as its laws give it (as a run's S0 would). */
int clash_internal_scene_set_state(clash_scene *sc, int s, clash_error *err);
/* The store's faces in a random order of the seed (no run may exist on the
 * scene): clash_store_shuffle, store/scene.h. */
int clash_internal_scene_shuffle(clash_scene *sc, uint64_t seed, clash_error *err);

/* The papers' UV sphere of `faces` faces (a count 4k(k-1): k latitude
 * bands), radius 1, into out (clash_mesh_arrays_free frees it). */
int clash_internal_gen_sphere(int faces, clash_mesh_arrays *out, clash_error *err);

/* ---- kernels the micro-benchmarks time ------------------------------------------------------- */

/* S1's face-box kernel over faces [0, nf): box[0..5] as for
 * clash_internal_run_face_boxes; olo/ohi widened to the union. */
void clash_internal_face_boxes(int64_t nf, const int32_t *i0, const int32_t *i1, const int32_t *i2, const float *x,
                               const float *y, const float *z, float *const box[6], float olo[3], float ohi[3]);

/* A BVH over boxes given as six arrays (lo x, y, z, hi x, y, z). */
typedef struct clash_internal_bvh clash_internal_bvh;
clash_internal_bvh *clash_internal_bvh_create(void);
void clash_internal_bvh_destroy(clash_internal_bvh *t);
/* Built (again) over the boxes ids[0..n) with builder CLASH_INTERNAL_BVH_*; nonzero when out of memory. */
int clash_internal_bvh_build(clash_internal_bvh *t, int builder, const uint32_t *ids, int32_t n,
                             const float *const box[6]);
/* The boxes changed: the leaves gathered from them, then the nodes. */
void clash_internal_bvh_refit(clash_internal_bvh *t, const float *const box[6]);
/* The faces the leaves stand for (their vertex indices), for refits from
 * the vertices; nonzero when out of memory. */
int clash_internal_bvh_set_faces(clash_internal_bvh *t, const int32_t *i0, const int32_t *i1, const int32_t *i2);
/* Refit from the vertex positions (S1's kernel over the faces in leaf order, then the nodes). */
void clash_internal_bvh_refit_faces(clash_internal_bvh *t, const float *x, const float *y, const float *z);
/* The nodes alone, from the leaf-order boxes. */
void clash_internal_bvh_refit_nodes(clash_internal_bvh *t);
/* Nodes, leaf places, each place's box id (writable: a layout study
 * renumbers them) and the bytes of one node. */
int clash_internal_bvh_nodes(const clash_internal_bvh *t);
int32_t clash_internal_bvh_places(const clash_internal_bvh *t);
uint32_t *clash_internal_bvh_prims(clash_internal_bvh *t);
size_t clash_internal_bvh_node_bytes(void);

/* S2's object-pair methods over n boxes: CLASH_INTERNAL_BROAD_SAP (sort and
 * sweep) or _BVH, on an OpenMP team of `threads` (chunk partition, dynamic
 * schedule).  Each call forgets the pairs of the one before. */
enum { CLASH_INTERNAL_BROAD_SAP = 0, CLASH_INTERNAL_BROAD_BVH = 1 };
typedef struct clash_internal_broad clash_internal_broad;
clash_internal_broad *clash_internal_broad_create(int threads);
void clash_internal_broad_destroy(clash_internal_broad *b);
/* Nonzero when out of memory. */
int clash_internal_broad_run(clash_internal_broad *b, int method, int64_t n, const float *const box[6], float grow);
/* The pairs found (keys lo << 32 | hi, as found: in no order, maybe
 * repeated); out NULL: only their number. */
size_t clash_internal_broad_pairs(const clash_internal_broad *b, uint64_t *out);
/* Sorts a[0..n) and drops repeats; returns the number left. */
size_t clash_internal_sort_unique_u64(uint64_t *a, size_t n);

/* The primitive CCD kernel: vertex-face (CLASH_INTERNAL_CCD_VF: the vertex,
 * then the face's three) or edge-edge (_EE: two points each) at t = 0 (x0)
 * and t = 1 (x1).  Returns 1 on contact with *toi never later than the
 * first contact, within tolerance of it. */
enum { CLASH_INTERNAL_CCD_VF = 0, CLASH_INTERNAL_CCD_EE = 1 };
typedef struct clash_internal_ccd_opts {
    double tolerance; /* of the toi (clash_internal_ccd_defaults: 1e-6) */
    double min_sep;   /* contact within this distance (>= 0) */
    int64_t max_iter; /* the root finder's work bound per query (<= 0: the kernel's) */
} clash_internal_ccd_opts;
typedef struct clash_internal_ccd_counts {
    int64_t tests, filter_no, filter_yes, exact_calls, hits; /* added to, not reset */
} clash_internal_ccd_counts;
clash_internal_ccd_opts clash_internal_ccd_defaults(void);
/* The options a run's CCD stage uses (its tolerance and min separation). */
clash_internal_ccd_opts clash_internal_run_ccd_opts(const clash_run *run);
int clash_internal_ccd(int kind, const double x0[4][3], const double x1[4][3], const clash_internal_ccd_opts *o,
                       double *toi, clash_internal_ccd_counts *c);
/* n queries at once (the kernel's batch path: its filter first). */
void clash_internal_ccd_batch(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3],
                              const clash_internal_ccd_opts *o, uint8_t *hit, double *toi,
                              clash_internal_ccd_counts *c);

#endif
