/*
 * clash.h — the public C API of clash, a parallel collision-detection back end.
 *
 * A scene is a set of objects, each a triangle mesh.  State s holds every
 * vertex position at time s; step s (numbered from 1) moves the scene from
 * state s-1 to state s and reports the colliding face pairs
 * (object a, face i, object b, face j), canonical (a,i) < (b,j), sorted.
 *
 * Typical use:
 *
 *     clash_error err;
 *     clash_scene *sc;
 *     if (clash_scene_load("scene.json", &sc, &err)) { puts(err.msg); ... }
 *     clash_config cfg = clash_config_default();
 *     clash_scene_apply_defaults(sc, &cfg);      // mode/self/steps from scene
 *     clash_run *run = clash_run_create(sc, &cfg, &err);
 *     for (int s = 1; s <= cfg.steps; ++s) {
 *         clash_pairs pairs;
 *         clash_step(run, s, &pairs, &err);      // pairs valid until next step
 *     }
 *     clash_run_destroy(run); clash_scene_destroy(sc);
 *
 * Every function that can fail returns 0 on success or a clash_status code
 * and fills a clash_error with a message naming the file and place.
 */
#ifndef CLASH_CLASH_H
#define CLASH_CLASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CLASH_VERSION_STRING "0.1.0"

/* Return codes; the values double as the process exit status of the command. */
typedef enum clash_status {
    CLASH_OK = 0,
    CLASH_EFAIL = 1,  /* any other failure (out of memory, I/O write error) */
    CLASH_EINPUT = 2  /* bad usage or bad input: malformed file, bad option */
} clash_status;

typedef struct clash_error {
    int code;        /* clash_status */
    char msg[1024];  /* "FILE:LINE: what" where a file is involved */
} clash_error;

typedef enum clash_mode { CLASH_MODE_STATIC = 0, CLASH_MODE_SWEPT = 1 } clash_mode;
typedef enum clash_midphase {
    CLASH_MID_OCTREE = 0, CLASH_MID_BVH = 1, CLASH_MID_BBOXPIPE = 2,
    CLASH_MID_BRUTE = 3, /* oracle: every face pair through the narrow test */
    CLASH_MID_BOXTREE = 6, CLASH_MID_DOPTREE = 7 /* Zachmann's BoxTree, DOP-tree (rigid objects) */
} clash_midphase;
typedef enum clash_broad {
    CLASH_BROAD_AUTO = 0, CLASH_BROAD_ALLPAIRS = 1, CLASH_BROAD_SAP = 2, CLASH_BROAD_BVH = 3 /* object BVH */
} clash_broad;
typedef enum clash_backend { CLASH_BACKEND_OMP = 0, CLASH_BACKEND_PTHREADS = 1 } clash_backend;
typedef enum clash_partition { CLASH_PART_CHUNK = 0, CLASH_PART_STRIDE = 1 } clash_partition;
typedef enum clash_schedule {
    CLASH_SCHED_STATIC_CHUNK = 0, CLASH_SCHED_STATIC_STRIDE = 1, CLASH_SCHED_DYNAMIC = 2,
    CLASH_SCHED_PRODUCER_CONSUMER = 3, CLASH_SCHED_STEALING = 4
} clash_schedule;

typedef struct clash_config {
    int steps;              /* <0: the scene's */
    int mode;               /* clash_mode, <0: the scene's */
    int self_collision;     /* <0: the scene's */
    int threads;            /* <=0: all cores of the process's binding */
    int backend;            /* clash_backend */
    int partition;          /* clash_partition */
    int schedule;           /* clash_schedule */
    int midphase;           /* clash_midphase */
    int broadphase;         /* clash_broad */
    int octree_level;       /* <=0: automatic, from face size */
    int stop_at_first;      /* stop after the first step with a collision */
    int64_t chunk;          /* fine-grain (S0/S1/S3) block size: 0 one block per worker
                               (chunk) or single items (stride); N > 0 blocks of N
                               dealt round-robin */
    int64_t batch;          /* coarse-grain (S4/S5) units per grab for dynamic, stealing and
                               producer-consumer (0: the strategy's default) */
    int bind;               /* clash_binding: pin the workers (the command applies it) */
    int reorder;            /* clash_reorder: store order of faces and vertices (default Morton);
                               clash_run_create applies it to the scene once (results keep the
                               input numbering) */
} clash_config;

typedef enum clash_reorder { CLASH_REORDER_NONE = 0, CLASH_REORDER_MORTON = 1 } clash_reorder;

/* Worker pinning (--bind), through hwloc. */
typedef enum clash_binding { CLASH_BINDING_NONE = 0, CLASH_BINDING_CORE = 1, CLASH_BINDING_SOCKET = 2 } clash_binding;

clash_config clash_config_default(void);

/* A colliding face pair: canonical (obj_a, face_a) < (obj_b, face_b). */
typedef struct clash_pair {
    uint32_t obj_a, face_a, obj_b, face_b;
} clash_pair;

typedef struct clash_pairs {
    const clash_pair *pairs;  /* sorted, unique; owned by the run */
    size_t count;
} clash_pairs;

/* The stages of one step; each is a profiling region. */
typedef enum clash_stage {
    CLASH_S0_MOTION = 0, CLASH_S1_BOXES, CLASH_S2_BROAD, CLASH_S3_CULL,
    CLASH_S4_MID, CLASH_S5_NARROW, CLASH_S6_GATHER, CLASH_NSTAGES
} clash_stage;

const char *clash_stage_name(int stage);

/* Per-step item counts (ARCHITECTURE.md, "Profiling"). */
typedef struct clash_step_stats {
    double seconds[CLASH_NSTAGES];
    int64_t vertices;        /* S0 */
    int64_t faces_boxed;     /* S1 */
    int64_t object_pairs;    /* S2 */
    int64_t faces_kept;      /* S3 */
    int64_t candidates;      /* S4 */
    int64_t tests;           /* S5 */
    int64_t hits;            /* S5 */
    int octree_level;        /* S4, level used this step (0 when not built) */
    /* S4 structures kept between steps (--midphase boxtree, doptree): the
     * build time (the step that built them, else 0) and their size; and the
     * objects whose pairs fell back to the face octree (deforming). */
    double mid_build_s;
    int64_t mid_bytes, mid_fallback_objects;
    /* Fastest and slowest worker of each stage: each worker's busy time in
     * the stage's parallel loops (a stage without one: its wall time). */
    double worker_min_s[CLASH_NSTAGES], worker_max_s[CLASH_NSTAGES];
} clash_step_stats;

typedef struct clash_scene clash_scene;
typedef struct clash_run clash_run;

/* Scene creation. */
int clash_scene_load(const char *json_path, clash_scene **out, clash_error *err);
typedef struct clash_preset_params {
    int objects;   /* cluttered: object count (<=0: preset default) */
    uint64_t seed; /* cluttered: random seed */
    double density;/* cluttered: volume fraction of object spheres (<=0: default) */
} clash_preset_params;
int clash_scene_preset(const char *name, const clash_preset_params *p, clash_scene **out, clash_error *err);
const char *const *clash_preset_names(void);   /* NULL-terminated */
void clash_scene_destroy(clash_scene *sc);

/* Scene facts. */
const char *clash_scene_name(const clash_scene *sc);
int clash_scene_objects(const clash_scene *sc);
int64_t clash_scene_vertices(const clash_scene *sc);
int64_t clash_scene_faces(const clash_scene *sc);
size_t clash_scene_memory_bytes(const clash_scene *sc);
/* Fills the unset (<0) fields of cfg from the scene: steps, mode, self. */
void clash_scene_apply_defaults(const clash_scene *sc, clash_config *cfg);
/* Reorders the store's faces and vertices along the Morton curve of each
 * object (cache locality).  Results keep the input numbering: pairs, reports
 * and VTK output are the same as without it.  Call before clash_run_create. */
int clash_scene_reorder_morton(clash_scene *sc, clash_error *err);
/* World position of vertex v (0-based within object obj) in state s. */
int clash_scene_vertex_at(const clash_scene *sc, int obj, int64_t v, int s, double out[3]);

/* Running steps. */
clash_run *clash_run_create(clash_scene *sc, const clash_config *cfg, clash_error *err);
int clash_step(clash_run *run, int s, clash_pairs *out, clash_step_stats *st, clash_error *err);
void clash_run_destroy(clash_run *run);

/* Build facts baked in at configure time. */
typedef struct clash_build_info {
    const char *version, *compiler, *flags, *build_type;
    int openmp, mpi, hwloc, likwid, papi, valgrind;
} clash_build_info;
const clash_build_info *clash_build(void);

#ifdef __cplusplus
}
#endif
#endif
