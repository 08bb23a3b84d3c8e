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
 *     if (clash_scene_load("scene.json", &sc, &err)) { puts(err.msg); return 1; }
 *     clash_config cfg = clash_config_default();
 *     clash_scene_apply_defaults(sc, &cfg);      // mode/self/steps from scene
 *     clash_run *run = clash_run_create(sc, &cfg, &err);
 *     for (int s = 1; s <= cfg.steps; ++s) {
 *         clash_pairs pairs;                     // valid until the next step
 *         clash_step(run, s, &pairs, NULL, &err); // NULL: no step statistics
 *     }
 *     clash_run_destroy(run); clash_scene_destroy(sc);
 *
 * A host simulation that owns its meshes and motion builds the scene from
 * its arrays instead (vertices xyz[3*nv], triangles tri[3*nf], a pose
 * rot[9], trans[3]) and drives it state by state (see "Scenes from memory"
 * below):
 *
 *     clash_error err;
 *     clash_scene *sc;
 *     clash_scene_create(&sc, &err);
 *     int m = clash_scene_add_mesh(sc, xyz, nv, tri, nf, &err);   // mesh id, or -CLASH_EINPUT
 *     int a = clash_scene_add_object(sc, m, NULL, NULL, 0, &err);  // object id (state 0: as added)
 *     int b = clash_scene_add_object(sc, m, rot, trans, 0, &err);
 *     clash_config cfg = clash_config_default();
 *     cfg.mode = CLASH_MODE_SWEPT;
 *     clash_run *run = clash_run_create(sc, &cfg, &err);
 *     for (;;) {                                  // every step of the host
 *         clash_pairs pairs;
 *         clash_run_set_pose(run, b, rot, trans, &err);           // b's next state
 *         clash_run_advance(run, &pairs, NULL, &err);             // current -> next
 *     }
 *
 * Under MPI a scene too big for one node is decomposed: every rank builds
 * the same scene, sets the states of the objects it owns only, and advances
 * (see "Decomposed runs" below):
 *
 *     clash_error err;
 *     clash_scene *sc;                            // the same on every rank
 *     clash_scene_create(&sc, &err);
 *     int m = clash_scene_add_mesh(sc, xyz, nv, tri, nf, &err);
 *     for (int i = 0; i < 1000; ++i) clash_scene_add_object(sc, m, rot, trans, 0, &err);
 *     clash_config cfg = clash_config_default();
 *     cfg.decompose = CLASH_DECOMPOSE_OBJECTS;   // mpi_comm NULL: MPI_COMM_WORLD
 *     clash_run *run = clash_run_create(sc, &cfg, &err);
 *     int me = 0;                                 // the host's MPI_Comm_rank on that communicator
 *     for (;;) {
 *         clash_pairs pairs;                      // rank 0: the step's pairs
 *         for (int o = 0; o < 1000; ++o)
 *             if (clash_run_owner(run, o) == me) clash_run_set_pose(run, o, rot, trans, &err);
 *         clash_run_advance(run, &pairs, NULL, &err);
 *     }
 *
 * Every function that can fail returns 0 on success or a clash_status code
 * (the add functions: a negative one) and fills a clash_error with a message
 * naming the file, object, mesh and element concerned (queries such as
 * clash_scene_object_faces answer -1 for an unknown object).  Nothing here needs a
 * macro or a header beyond this one: the structs are plain C (ctypes and CFFI
 * can mirror them; clash_struct_size reports their sizes).
 */
#ifndef CLASH_CLASH_H
#define CLASH_CLASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
/* Everything declared here is the shared library's interface: libclash.so is
 * built with hidden visibility and exports these functions only. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
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
    CLASH_MID_OBJOCTREE = 4, CLASH_MID_SPHERICAL = 5, /* object octrees ([KTK94], [KTAK94]), spherical octrees ([TC96]) */
    CLASH_MID_BOXTREE = 6, CLASH_MID_DOPTREE = 7      /* Zachmann's BoxTree, DOP-tree ([Zachmann00]) */
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
    int bind;               /* clash_binding: pin the run's workers (clash_run_create applies it) */
    int reorder;            /* clash_reorder: store order of faces and vertices (default Morton);
                               clash_run_create applies it to the scene once (results keep the
                               input numbering) */
    void *mpi_comm;         /* the MPI communicator the run works on, as a pointer to the host's
                               MPI_Comm variable (so this header needs no mpi.h); the run
                               duplicates it at creation, so the variable need not outlive the
                               call.  NULL: MPI_COMM_WORLD when MPI is initialized, else one rank.
                               Every rank of the communicator makes the same calls on the run. */
    int ccd;                /* exact continuous collision detection after S5 (swept mode only):
                               the step's contacts, clash_run_contacts (see "Exact CCD" below) */
    double ccd_tolerance;   /* accuracy of each contact's time of impact (> 0, default 1e-6) */
    double min_separation;  /* swept mode: pairs and contacts within this distance (>= 0, default 0) */
    int decompose;          /* clash_decompose: with CLASH_DECOMPOSE_OBJECTS and a communicator of more
                               than one rank, each rank stores and moves only the objects it owns
                               (see "Decomposed runs" below); default CLASH_DECOMPOSE_REPLICATED */
    int geometry;           /* 1: each step also makes its pairs' and contacts' geometry and the
                               colliding object pairs (see "Contact geometry" below); default 0 */
} clash_config;

/* How the ranks of a run share the scene: every rank the whole scene, or
 * each rank the objects of its sub-domain ("Decomposed runs" below). */
typedef enum clash_decompose { CLASH_DECOMPOSE_REPLICATED = 0, CLASH_DECOMPOSE_OBJECTS = 1 } clash_decompose;

typedef enum clash_reorder { CLASH_REORDER_NONE = 0, CLASH_REORDER_MORTON = 1 } clash_reorder;

/* Worker pinning (--bind), through hwloc. */
typedef enum clash_binding { CLASH_BINDING_NONE = 0, CLASH_BINDING_CORE = 1, CLASH_BINDING_SOCKET = 2 } clash_binding;

clash_config clash_config_default(void);
/* Sets one option by name, with the command's names and values (without the
 * leading "--"): mode static|swept, self 0|1, steps N, threads N, backend,
 * partition, chunk N, schedule, batch N, midphase, broadphase,
 * octree-level L, reorder, bind, stop-at-first 0|1, ccd 0|1, ccd-tolerance T,
 * min-separation D, decompose replicated|objects, geometry 0|1.  A bad name or value is
 * CLASH_EINPUT naming the option, and cfg is left as it was. */
int clash_config_set(clash_config *cfg, const char *name, const char *value, clash_error *err);
/* For bindings that cannot hold the struct by value (ctypes): its size, and
 * clash_config_default() written into caller memory of that size. */
size_t clash_config_size(void);
void clash_config_init(clash_config *cfg);

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

/* Per-step item counts: what each stage handled in the step. */
typedef struct clash_step_stats {
    double seconds[CLASH_NSTAGES];
    int64_t vertices;        /* S0 */
    int64_t faces_boxed;     /* S1 */
    int64_t object_pairs;    /* S2 */
    int64_t faces_kept;      /* S3 */
    int64_t candidates;      /* S4 */
    int64_t tests;           /* S5 */
    int64_t hits;            /* S5 */
    int octree_level;        /* S4, level used this step (0 when not built; objoctree,
                                spherical: the deepest object tree) */
    /* S4 structures kept between steps (--midphase objoctree, spherical, boxtree,
     * doptree): the
     * build time (the step that built them, else 0) and their size; and the
     * objects whose pairs fell back to the face octree (deforming). */
    double mid_build_s;
    int64_t mid_bytes, mid_fallback_objects;
    /* their per-step update (moving them with the objects) and the
     * interfering octree nodes (objoctree) or leaf pairs (spherical) found */
    double mid_update_s;
    int64_t mid_interfering;
    /* Fastest and slowest worker of each stage: each worker's busy time in
     * the stage's parallel loops (a stage without one: its wall time). */
    double worker_min_s[CLASH_NSTAGES], worker_max_s[CLASH_NSTAGES];
    /* --ccd, between S5 and S6 and timed apart from the seven stages (ccd_s):
     * the primitive pairs this rank tested (all, and of those the vf ones),
     * those the primitives' swept hulls set apart before the kernel, the
     * kernel's filter decisions and exact-path calls, the step's contacts
     * (on rank 0) and their earliest time of impact (-1: none). */
    double ccd_s;
    int64_t ccd_tests, ccd_vf_tests, ccd_hull_no, ccd_filter_no, ccd_filter_yes, ccd_exact_calls, ccd_contacts;
    double ccd_first_toi;
    /* A decomposed run (clash_config.decompose, "Decomposed runs" below), this
     * rank's figures (0 in a replicated run): the objects it owns, those in
     * its sub-run this step (owned or not), the pairs it reported this step,
     * the bytes it sent this step (boxes, states, pair keys and contacts),
     * its sub-run rebuilds and the cells' cuts so far (the first ones
     * included), and the faces of its sub-run's objects; the step's
     * imbalance, the same on every rank: the most faces a rank's sub-run
     * holds over the ranks' mean (the cells are cut again when it stays
     * high). */
    int64_t dist_owned, dist_present, dist_reported, dist_bytes_sent, dist_rebuilds, dist_cuts, dist_faces;
    double dist_imbalance;
    /* This rank's share of the step, in a replicated run (every rank holds
     * the whole scene; one rank: the whole step).  The ranks share out S4's
     * work units and S5's candidates, so on each rank seconds[], candidates
     * and tests above are its own (the command's report sums the counts and
     * takes the slowest rank's times), while hits is the merged step's on
     * rank 0 and 0 on the others.  rank and ranks: this rank and the run's
     * count (a decomposed run's too, whose other figures here are its part's);
     * rank_units: the S4 work units it ran (the face octree's cells;
     * 0 for the other midphases, whose S4 every rank runs whole and whose
     * candidates S5 shares out); rank_hits: the hits among its own tests,
     * before rank 0's merge (a pair made on two ranks, static mode, counts
     * on both). */
    int32_t rank, ranks;
    int64_t rank_units, rank_hits;
    /* The host's filters ("Objects that come and go" below): the object
     * pairs whose boxes met in S2 but that the filters, an excluded pair, a
     * disabled or a removed object kept out (no face work was spent on
     * them), and the objects that took no part this step (disabled or
     * removed). */
    int64_t object_pairs_filtered, objects_off;
} clash_step_stats;

typedef struct clash_scene clash_scene;
typedef struct clash_run clash_run;

/* Scene creation. */
int clash_scene_load(const char *json_path, clash_scene **out, clash_error *err);
typedef struct clash_preset_params {
    int objects;   /* cluttered: object count (<=0: preset default) */
    uint64_t seed; /* cluttered: random seed */
    double density;/* cluttered: volume fraction of object spheres (<=0: default) */
    int detail;    /* cluttered: faces per object, every object then a UV sphere of the
                    * nearest 4k(k-1) faces (<=0: default, spheres of 48..528 faces and boxes) */
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
/* World position of vertex v (0-based within object obj, in the mesh's
 * order) in state s: any state for objects of a scene file (their law), and
 * for objects from memory state 0, the current state and the one before it
 * (CLASH_EINPUT otherwise, with err naming the argument: the object, the
 * vertex or the state). */
int clash_scene_vertex_at(const clash_scene *sc, int obj, int64_t v, int s, double out[3], clash_error *err);

/* ---- Scenes from memory -------------------------------------------------------------
 *
 * A mesh is local geometry: nv vertices (x, y, z interleaved, double) and nf
 * triangles (three 0-based vertex indices each, int32).  The scene copies
 * both; the caller's arrays may be freed or reused at once.  An object is an
 * instance of a mesh; objects are numbered 0, 1, ... in the order they are
 * added, faces within an object in the mesh's order, and pairs use these
 * numbers whatever the store does internally (Morton reordering).
 *
 * States.  State 0 of an object is where it was added:
 *     world = rot · local + trans     (rot row-major 3x3; NULL rot = identity,
 *                                      NULL trans = 0).
 * A run holds a current state (state 0 when it starts).  clash_run_set_pose
 * and clash_run_set_vertices set an object's NEXT state; clash_run_advance
 * makes one step from the current state to the next one and reports the
 * colliding pairs of that step, then the next state becomes current.  An
 * object whose next state was not set stays where it is (it does not move
 * during the step).  Setting an object twice before an advance keeps the
 * last call.  Swept mode (clash_config.mode): pairs whose faces meet at any
 * time during the step; static mode: pairs whose faces meet in the new state.
 *
 * Motion during a step (swept mode).  Between a pose and the next one a
 * rigid object makes the screw motion: the relative rotation
 * rot_next · rot_cur^T, of angle θ in [0, π], about a fixed line, together
 * with the translation along that line, both growing evenly with time (the
 * one rigid motion of least turn between the poses).  A vertex set by
 * clash_run_set_vertices moves on the straight line between its two
 * positions, and so does every vertex of an object that does not turn, or
 * of a deforming object posed right after its vertices were set.  (Objects
 * of a scene file follow their own pose formula, clash_step.)  Swept mode
 * tests the convex hull of each face's positions at the two states, which
 * holds the face's whole path under straight-line motion.  A turning face
 * bulges out of that hull: a point at distance ρ from the screw axis leaves
 * its chord by at most ρ (1 - cos(θ/2)) = |chord| tan(θ/4) / 2, so each
 * face of a turning object is tested with that margin (its vertices' chords
 * times tan(θ/4) / 2, plus a few float ulps).  So swept mode is conservative
 * for the screw motion: it never misses a pair that meets during the step,
 * and may report a pair that comes within the margins.  An object whose
 * rotation is the same at both poses (bit for bit) has no margin.
 *
 * A rigid object (deforming = 0) moves by poses only: world = rot · local +
 * trans.  A deforming object has its own copy of the mesh's vertices and
 * may be moved by a pose (of its mesh as added) or by setting the world
 * position of every vertex.  (Objects of a scene file keep the file's object
 * scale: world = rot · (scale · local) + trans.)
 *
 * Validation.  Bad input is refused with -CLASH_EINPUT (the add functions) or
 * CLASH_EINPUT (the others) and a message in err naming the mesh or object
 * and the element: a NaN, infinite or out-of-float-range coordinate
 * ("mesh 2: vertex 17: y is nan"), a triangle index out of range, nv or nf
 * <= 0, a rotation that is not one (rows orthonormal within 1e-6 and
 * determinant +1: a scale belongs in the mesh), clash_run_set_vertices on a
 * rigid object, an unknown object or mesh id.  A refused call changes
 * nothing: the scene and the run are as they were before it.  Other
 * failures (out of memory) return -CLASH_EFAIL / CLASH_EFAIL.
 *
 * A scene gets its objects before a run is created on it, or from the run
 * (clash_run_add_object, "Objects that come and go" below):
 * clash_scene_add_object on a scene a run uses is refused; meshes may be
 * added at any time.  The state lives in the scene, so a scene
 * is driven by one run at a time; two runs on two scenes are independent and
 * may be used from two threads at once (nothing in clash is global).  Under
 * MPI every rank of the run's communicator makes the same calls with the
 * same arrays; the pairs come back on the communicator's rank 0 (the other
 * ranks get none). */

/* A mesh file (.obj, .ply, .stl, .off) read by clash's own readers into the
 * arrays clash_scene_add_mesh takes (polygons split into triangles in fan
 * order).  On error out is empty and err names the file and line or byte (a triangle with a
 * repeated vertex index, which the store refuses: the file and the face). */
typedef struct clash_mesh_arrays {
    int64_t nv, nf;
    double *xyz;      /* 3 * nv, x y z interleaved */
    int32_t *tri;     /* 3 * nf, 0-based */
} clash_mesh_arrays;
int clash_mesh_read(const char *path, clash_mesh_arrays *out, clash_error *err);
void clash_mesh_arrays_free(clash_mesh_arrays *m);

/* Precision.  The coordinates given (clash_scene_add_mesh,
 * clash_run_set_vertices, mesh and frame files, read as double) are kept
 * as doubles, bit for bit, and a posed object's positions are rot · local +
 * trans evaluated in double from them.  Every exact decision (the static
 * triangle tests, the swept hull tests, ccd's kernel and min_separation)
 * is made on those doubles; float32 copies serve only to cull, with every
 * float bound widened beyond their rounding, so culling never drops a pair
 * the test in double would keep.  Coordinates must be finite and at most
 * 3e38 in magnitude (float culling must bound them): others are refused. */

/* An empty scene (name "scene", swept, no self-collision, 1 step). */
int clash_scene_create(clash_scene **out, clash_error *err);
/* Copies a mesh; returns its id (>= 0), -CLASH_EINPUT or -CLASH_EFAIL.  Refused (-CLASH_EINPUT, err
 * naming the mesh and the element): a coordinate not finite or beyond float range, an index outside
 * 0..nv-1, a triangle whose three indices are not distinct ("mesh 0: face 17: repeated vertex index
 * 3"); triangles of three distinct vertices are kept even when their area is zero. */
int clash_scene_add_mesh(clash_scene *sc, const double *xyz, int64_t nv, const int32_t *tri, int64_t nf,
                         clash_error *err);
/* Adds an object of mesh `mesh` in state 0 world = rot · local + trans;
 * deforming != 0 makes it deforming.  Returns its id (>= 0), -CLASH_EINPUT or
 * -CLASH_EFAIL. */
int clash_scene_add_object(clash_scene *sc, int mesh, const double rot[9], const double trans[3], int deforming,
                           clash_error *err);
/* The object's vertex and face counts (-1 for an unknown object). */
int64_t clash_scene_object_vertices(const clash_scene *sc, int obj);
int64_t clash_scene_object_faces(const clash_scene *sc, int obj);

/* Running steps. */
clash_run *clash_run_create(clash_scene *sc, const clash_config *cfg, clash_error *err);
/* Step s of a scene read from a file or a preset: its objects move by the
 * scene's own law (velocities, or frame files) to state s, then as
 * clash_run_advance.  During the step a rigid object follows its pose
 * formula (angles and position linear in time), and swept mode grows the
 * faces of a turning one by the formula's arc margin (src/store/turn.c), so
 * it stays conservative for that path.  Objects added from memory, which have no law, stay
 * where they are unless set. */
int clash_step(clash_run *run, int s, clash_pairs *out, clash_step_stats *st, clash_error *err);
/* The next state of object obj: world = rot · local + trans (rot NULL =
 * identity, trans NULL = 0).  CLASH_EINPUT when rot is not a rotation or
 * obj is unknown. */
int clash_run_set_pose(clash_run *run, int obj, const double rot[9], const double trans[3], clash_error *err);
/* The next state of deforming object obj: the world positions of its nv
 * vertices (x, y, z interleaved, in the mesh's vertex order).  CLASH_EINPUT
 * for a rigid object, an unknown one, or a non-finite coordinate. */
int clash_run_set_vertices(clash_run *run, int obj, const double *xyz, clash_error *err);
/* One step from the current state to the one set; then the new state is
 * current.  out receives the step's pairs (valid until the next step or
 * advance); st, when not NULL, its statistics. */
int clash_run_advance(clash_run *run, clash_pairs *out, clash_step_stats *st, clash_error *err);
/* The number of the current state (0 before the first step). */
int clash_run_state(const clash_run *run);
/* The rank (in the run's communicator) that sets obj's states: in a
 * decomposed run its owner, in a replicated one the calling rank; -1 for an
 * unknown object or a NULL run. */
int clash_run_owner(const clash_run *run, int obj);
void clash_run_destroy(clash_run *run);

/* ---- Decomposed runs (clash_config.decompose = CLASH_DECOMPOSE_OBJECTS) -----------------
 *
 * For scenes bigger than one node.  Every rank of the run's communicator
 * builds the same scene (the same meshes and objects, added in the same
 * order: the meshes never travel) and creates the run with the same
 * configuration.  clash_run_create then gives each object one owner for the
 * whole run (recursive coordinate bisection of the objects' state-0 boxes,
 * weighted by faces, identical on every rank): each step, every rank sets
 * the next state of the objects it owns, and of no other
 * (clash_run_set_pose and clash_run_set_vertices refuse a non-owned object
 * with CLASH_EINPUT naming its owner, changing nothing), then every rank
 * calls clash_run_advance.  The owners send each object's states to the
 * ranks whose sub-domain its swept box reaches; each rank finds the pairs of
 * its sub-domain, each pair on exactly one rank, and the communicator's
 * rank 0 gets the step's pairs exactly as a one-rank run of the whole scene
 * given every state would return them (the other ranks get none).  An
 * error on any rank makes every rank's clash_run_advance fail, with nothing
 * half-done: the next call starts again from the last good state.  With one
 * rank the run is replicated.  A scene read from a file or a preset may
 * instead move by clash_step on every rank: each owner takes its objects'
 * states from the scene's own laws (the same on every rank, so no more
 * travels than a law's state number, or a frame's vertices), and the pairs
 * are a one-rank clash_step's.  With ccd each rank finds the contacts of
 * the pairs it reports, and rank 0's clash_run_contacts gives them all, as
 * a one-rank run's (sorted, in the whole scene's numbering). */

/* ---- Objects that come and go, filters, self-collision per object --------------------
 *
 * At any step of a run (between two advances, or before the first), a
 * host may add objects, remove them, switch them off and on, and say which
 * pairs are tested.  Every call below is refused with CLASH_EINPUT (the add:
 * -CLASH_EINPUT), err naming the call, the object and the element, and then
 * changes nothing: an unknown object id ("set_filter: object 7: no such
 * object"), a removed one ("object 3 was removed"), an unknown mesh, a rotation that is not
 * one or a NaN, infinite or out-of-range translation, as for
 * clash_scene_add_object.  In a decomposed run (decompose = objects) they
 * are all refused: its objects' owners and its ranks' cells are fixed when
 * it is created.  Under MPI (replicated) every rank makes the same calls,
 * as for the states.
 *
 * clash_run_add_object: a new object of mesh `mesh` (meshes may be added
 * with clash_scene_add_mesh while a run uses the scene) at world = rot ·
 * local + trans in the CURRENT state, and in the state before it too: it
 * enters without sweeping from anywhere, and the next advance moves it from
 * there to the next state set for it (it stays put when none is).  Returns
 * its id (>= 0; ids go on from the scene's last, a removed id is never
 * given again), -CLASH_EINPUT or -CLASH_EFAIL.  The run's kept structures
 * (the midphases' trees, the edge tables, the bounds held from the step
 * before) are made again by the next step, as on a first step.
 *
 * clash_run_remove_object: the object takes part in nothing from the next
 * step on; its id is never reused, and every later call naming it
 * (set_pose, set_vertices and the calls below) is refused: "object N was
 * removed".  Its faces stay in the store (their memory is not given back)
 * and stay out of every pair.
 *
 * clash_run_set_enabled: a disabled object (enabled = 0) takes part in no
 * pair (not even with itself) but keeps moving with the states set; enabled
 * = 1 brings it back.
 *
 * clash_run_set_filter: two objects a and b are tested only when
 * (group_a & mask_b) != 0 and (group_b & mask_a) != 0 (Bullet's rule);
 * every object starts in every group (all bits) and seeing every group.
 * clash_run_exclude_pair: excluded != 0 keeps the pair (a, b), a != b, out
 * of every test (a jointed pair of bodies); 0 lets it back in.
 * clash_run_set_self: object obj is tested against itself (self != 0) or
 * not; every object starts with clash_config.self_collision.
 *
 * Filtered, excluded, disabled and removed pairs cost no face work: stage
 * S2 drops them with the object pairs (clash_step_stats.object_pairs_filtered
 * counts them), so S3 keeps no face for them and S4 and S5 make and test no
 * candidate of them; the pairs, contacts, candidates and tests are those of
 * the scene without them, and so are the faces kept (the midphases that
 * cull inside S4, bvh, bboxpipe and the object trees, report every face
 * there, as always).  Setting a filter costs the face octree's leaves a
 * look-up per face pair of two objects. */
int clash_run_add_object(clash_run *run, int mesh, const double rot[9], const double trans[3], int deforming,
                         clash_error *err);
int clash_run_remove_object(clash_run *run, int obj, clash_error *err);
int clash_run_set_enabled(clash_run *run, int obj, int enabled, clash_error *err);
int clash_run_set_filter(clash_run *run, int obj, uint32_t group, uint32_t mask, clash_error *err);
int clash_run_exclude_pair(clash_run *run, int a, int b, int excluded, clash_error *err);
int clash_run_set_self(clash_run *run, int obj, int self, clash_error *err);

/* ---- Exact CCD (clash_config.ccd, --ccd) ---------------------------------------------
 *
 * In swept mode with ccd set, every step after the face-pair test turns its
 * colliding face pairs into primitive pairs: each vertex of one face against
 * the other face (vf), each edge against each edge (ee), without pairs that
 * share a vertex, de-duplicated; each is tested along the motion between
 * state s-1 (t = 0) and state s (t = 1) that the object's mode defines:
 *   - a rigid object posed by the host (clash_run_set_pose) makes the screw
 *     motion between its two poses: the shortest relative rotation (angle in
 *     [0, pi], so poses 359 degrees apart turn by -1 degree) about a fixed
 *     line, and the translation along it, both growing evenly in t;
 *   - an object of a scene file follows its pose formula at fractional time
 *     (Euler angles rotation_deg + s angular_velocity_deg, position +
 *     s velocity, s from step - 1 to step);
 *   - a deforming object, and any object that does not turn, moves each
 *     vertex on the straight line between its two positions.
 * The test is conservative for each: a contact that happens along that path
 * is reported, and toi is never later than its first contact (within
 * ccd_tolerance of it for head-on contacts; glancing ones may come earlier,
 * and a pair passing within the kernel's slack may be reported).  A contact
 * is a pair that comes within min_separation (touching, when 0; the max norm,
 * never above the Euclidean distance) at some t in [0, 1].  Pairs where an
 * object turns are tested on sub-steps of the motion, the arc's deviation
 * from its chord added to the separation (kernels/ccd_motion.c). 
 *
 * Ids are in input numbering, per object: a vertex and a face as added (or
 * as in the mesh file); an edge is numbered among the object's unique
 * undirected edges (i, j), i < j, ordered by j, then by i.  kind vf: id_a a
 * vertex of obj_a, id_b a face of obj_b (either object may come first; the
 * vertex is always a); kind ee: two edges, (obj_a, id_a) < (obj_b, id_b).
 * Contacts are sorted by (kind: vf before ee, obj_a, id_a, obj_b, id_b),
 * unique, and the same for every thread count, rank count and schedule. */
typedef enum clash_contact_kind { CLASH_CONTACT_VF = 0, CLASH_CONTACT_EE = 1 } clash_contact_kind;
typedef struct clash_contact {
    uint32_t kind, obj_a, id_a, obj_b, id_b;
    double toi;               /* in [0, 1]: the fraction of the step */
} clash_contact;
typedef struct clash_contacts {
    const clash_contact *contacts;  /* owned by the run, valid until its next step */
    size_t count;
} clash_contacts;
/* The contacts of the run's last step (none before the first; on MPI ranks
 * other than 0, none).  CLASH_EINPUT when run or out is NULL or the run was
 * created without ccd (out is then empty; err says which). */
int clash_run_contacts(clash_run *run, clash_contacts *out, clash_error *err);

/* ---- Trial steps, jumps and batched states ----------------------------------------------
 *
 * For hosts that search for a step before taking it (a line search that
 * stops at the time of impact, a barrier method's step size) and hosts
 * that place objects without moving them through the scene.
 *
 * clash_run_query makes the step clash_run_advance would make from the
 * current state to the states set, and takes it back: its pairs and
 * contacts are those that clash_run_advance would return with the same
 * states, bit for bit, and afterwards the current state is still current
 * and the states set are still set, so the host may set others (scale the
 * step) and query again, then advance: that advance returns what it would
 * have returned without the queries (pairs, contacts and step statistics
 * but the times, and mid_bytes: the kept trees' capacities, which a trial
 * of a longer step may have grown).  pairs (required) and contacts (NULL: not wanted) are
 * owned by the run and valid until its next query, advance or step;
 * contacts are those of a ccd run (empty without ccd).  *first_toi (NULL:
 * not wanted) gets the earliest time of impact of the step in [0, 1], 1
 * when none: the hits' primitive pairs through the exact CCD kernel
 * ("Exact CCD" below), in a run without ccd too (then only for first_toi:
 * such a query costs the CCD of its hits; in static mode the hits are the
 * pairs that intersect in the state set, and first_toi is the first contact
 * of their primitives along the motion to it).  Under MPI every rank makes
 * the call; the pairs and contacts come to rank 0, first_toi to every rank.
 *
 * clash_run_jump makes the states set current without a step: no sweep, no
 * pairs, no contacts (placing, resetting, teleporting).  The state number
 * grows by one (clash_run_state), and the next advance sweeps from the state
 * jumped to alone.
 *
 * clash_run_set_poses sets the next state of n objects in one call:
 * objs[i] (objs NULL: objects 0..n-1) gets rot + 9 i (row-major, as
 * clash_run_set_pose; rot NULL: identity for all) and trans + 3 i (NULL: 0
 * for all).  clash_run_set_vertices_many sets n deforming objects: objs[i]
 * gets the world positions xyz[i] (3 nv doubles each, as
 * clash_run_set_vertices).  Both are all-or-nothing: every element is
 * checked before any is set, and a bad one is CLASH_EINPUT naming its
 * index in the batch and the object ("set_poses: [3]: object 7: rot row 0
 * is not a unit vector"), with nothing set.  An object given twice keeps
 * its last element.
 *
 * A decomposed run takes the batched calls (each rank its own objects) and
 * refuses clash_run_query and clash_run_jump with CLASH_EINPUT: its step
 * sends states between ranks and may rebuild its parts, which a trial
 * would have to undo on every rank. */
int clash_run_query(clash_run *run, clash_pairs *pairs, clash_contacts *contacts, double *first_toi,
                    clash_error *err);
int clash_run_jump(clash_run *run, clash_error *err);
int clash_run_set_poses(clash_run *run, int n, const int *objs, const double *rot, const double *trans,
                        clash_error *err);
int clash_run_set_vertices_many(clash_run *run, int n, const int *objs, const double *const *xyz,
                                clash_error *err);

/* ---- Contact geometry, distances, proximity, edge tables ----------------------------
 *
 * Everything here is computed in double from the store's double positions
 * (see "Precision" above), by one thread, in a fixed order: the same for
 * every thread count, rank count, schedule and instruction set.  Ids are the
 * contacts' (see "Exact CCD" above): vertices and faces as added, edges
 * numbered as clash_scene_edges lists them.  A decomposed run refuses these
 * calls (CLASH_EINPUT); under MPI the per-step geometry is rank 0's (the
 * other ranks have no pairs), while clash_run_distance and
 * clash_run_proximity answer on every rank.
 *
 * The object's edge table, in the numbering of ee contacts and proximity
 * pairs: edge k joins the object's vertices ij[2k] < ij[2k+1] (input
 * numbering), the object's unique undirected edges ordered by ij[2k+1], then
 * by ij[2k].  Objects of one mesh share one table, kept by the scene (made on
 * first use, valid until the scene is destroyed; not to be called on one
 * scene from two threads at once).  Returns 0, CLASH_EINPUT for a NULL
 * argument or an unknown object (*ij NULL, *count 0), CLASH_EFAIL when out
 * of memory. */
int clash_scene_edges(const clash_scene *sc, int obj, const int32_t **ij, int64_t *count);

/* Contact geometry (clash_config.geometry = 1, --geometry): made at the end
 * of every step for that step's pairs and contacts, valid until the next
 * step, in the same order as they are.
 *
 * A face pair's intersection in the state the step reached (state s), in
 * world coordinates: status 1, the segment's two ends p and q (p == q where
 * the triangles touch at a point); 0, the faces do not meet in state s
 * (swept mode: they met during the step); 2, coplanar triangles (their
 * common part is a polygon, not a segment).  p and q are NaN unless status
 * is 1.  Each triangle's part in the other's plane is cut from its edges by
 * the signs of its corners' distances to that plane, and the two parts'
 * common stretch along the planes' line is the segment. */
typedef struct clash_pair_geom {
    double p[3], q[3];
    int32_t status;
    int32_t pad_;
} clash_pair_geom;
/* A contact's geometry at its time of impact, on the points' own motions
 * (the paths of "Exact CCD" above): pa on primitive a and pb on primitive b
 * their nearest points at toi (vf: pa the vertex, pb its nearest point of
 * the face), point = (pa + pb) / 2, distance = |pa - pb| (near
 * min_separation for a head-on contact; a glancing one's toi may come
 * earlier, as "Exact CCD" says, and its distance is then larger); w: vf, the barycentric weights
 * of pb on face b's corners in the face's own corner order; ee, w[0] = s and
 * w[1] = t with pa = i_a + s (j_a - i_a) and pb = i_b + t (j_b - i_b) over
 * each edge's ends i < j (clash_scene_edges), w[2] = 0.  normal: unit; vf,
 * the face's normal at toi, turned toward the side of the face where the
 * vertex was at t = 0 (where it lay in the plane then: its side at toi, else
 * the face's winding); ee, the cross product of the edges' directions at
 * toi, turned so that it points from edge b to edge a at t = 0 (parallel
 * edges: pa - pb at toi, or at t = 0, else 0 0 0). */
typedef struct clash_contact_geom {
    double point[3], pa[3], pb[3], normal[3], w[3];
    double distance;
} clash_contact_geom;
/* A colliding object pair of the step (obj_a <= obj_b; equal: self
 * collision), sorted: its face pairs and contacts among the step's, the
 * earliest toi of its contacts (-1: none), and a penetration estimate:
 * over its face pairs whose triangles intersect in state s, for each the
 * lesser of two depths, the deepest corner of triangle a behind the plane
 * of triangle b (the plane's front is the side its corners' winding i, j, k
 * faces by the right-hand rule, outward on a closed mesh wound so) and the
 * deepest corner of b behind a's plane; the largest such figure (0 when no
 * face pair intersects in state s).  An estimate, of the kind of FCL's
 * triangle-pair depth: it is the depth of a convex piece pressed into a face
 * wider than it, but where edges of both objects cross it can exceed the
 * true depth (two overlapping boxes: up to the length of a face). */
typedef struct clash_object_pair {
    uint32_t obj_a, obj_b;
    int64_t face_pairs, contacts;
    double first_toi, penetration;
} clash_object_pair;
/* The step's geometry: *out and *count (count: the step's pairs, contacts,
 * object pairs).  CLASH_EINPUT when an argument is NULL, the run was created
 * without geometry, or (contact geometry) without ccd; out is then NULL. */
int clash_run_pair_geometry(clash_run *run, const clash_pair_geom **out, size_t *count, clash_error *err);
int clash_run_contact_geometry(clash_run *run, const clash_contact_geom **out, size_t *count, clash_error *err);
int clash_run_object_pairs(clash_run *run, const clash_object_pair **out, size_t *count, clash_error *err);

/* The minimum distance between objects a and b (a != b) in the current
 * state, as FCL's distance(): found 1, distance >= 0 and a nearest point on
 * each (pa on face face_a of obj_a = a, pb on face face_b of obj_b = b; 0 and
 * a common point where they intersect), when it is at most max_distance
 * (INFINITY: no bound); found 0 and distance INFINITY otherwise.  Exact in
 * double: the least over face pairs of the triangle distance (q_tri_tri_dist:
 * 0 when the triangles meet, else the least of the six vertex-triangle and
 * nine edge-edge distances), found through a binary tree of each object's
 * faces over double boxes of the current positions (built on first use,
 * refitted when the positions changed), pairs of nodes visited nearest
 * first and cut once their boxes lie farther than the best so far; of equal
 * distances the first in that order.  CLASH_EINPUT (err naming the argument:
 * the object, the distance) for an unknown object, a == b, max_distance NaN
 * or negative, out NULL; out is then left as it was. */
typedef struct clash_distance {
    double distance;
    double pa[3], pb[3];
    uint32_t obj_a, face_a, obj_b, face_b;
    int32_t found;
    int32_t pad_;
} clash_distance;
int clash_run_distance(clash_run *run, int a, int b, double max_distance, clash_distance *out, clash_error *err);

/* Every primitive pair within dhat (distance <= dhat) in the current state,
 * with its distance (the candidate set of barrier methods): vf, a vertex of
 * obj_a and a face of obj_b (vertex-triangle distance); ee, two edges
 * (segment-segment distance), (obj_a, id_a) < (obj_b, id_b), edges numbered
 * as clash_scene_edges.  Pairs of two objects, and with the run's
 * self_collision also pairs inside one object (without pairs whose
 * primitives share a vertex).  Sorted as contacts (vf before ee, then by
 * obj_a, id_a, obj_b, id_b), unique; valid until the next call.  Found
 * through the trees of clash_run_distance.  CLASH_EINPUT for dhat NaN,
 * negative or infinite, or a NULL argument (*out NULL, *count 0). */
typedef struct clash_proximity {
    uint32_t kind, obj_a, id_a, obj_b, id_b;
    double distance;
} clash_proximity;
int clash_run_proximity(clash_run *run, double dhat, const clash_proximity **out, size_t *count, clash_error *err);

/* sizeof of a public struct by name ("clash_config", "clash_error",
 * "clash_pair", "clash_pairs", "clash_step_stats", "clash_preset_params",
 * "clash_mesh_arrays", "clash_contact", "clash_contacts", "clash_pair_geom",
 * "clash_contact_geom", "clash_object_pair", "clash_distance", "clash_proximity"),
 * 0 for another name: for bindings that mirror the structs. */
size_t clash_struct_size(const char *name);

/* Build facts baked in at configure time. */
typedef struct clash_build_info {
    const char *version, *compiler, *flags, *build_type;
    int openmp, mpi, hwloc, likwid, papi, valgrind;
} clash_build_info;
const clash_build_info *clash_build(void);

/* The instruction-set level of the vector kernels in this process:
 * "portable", "avx2" or "avx512" (AVX-512 on 256-bit vectors).  Every kernel
 * that has vector paths takes the same one, for the whole process: the
 * environment variable CLASH_ISA (one of those three names), read once when
 * the library is loaded, else the best level this CPU runs.  Every level
 * gives the same pairs, contacts and times of impact, bit for bit.
 * *level (when level is not NULL) gets the level in force and *cpu (when
 * not NULL) the best level of this CPU.  Returns 0, or CLASH_EINPUT with
 * err's message naming the value and the levels this CPU runs when
 * CLASH_ISA names an unknown level or one the CPU lacks; clash_run_create
 * refuses to create runs then (the kernels, called anyway, run the CPU's
 * best level). */
int clash_isa(const char **level, const char **cpu, clash_error *err);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif
