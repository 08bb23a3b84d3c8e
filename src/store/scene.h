/*
 * scene.h — the scene store: every object's geometry in one global
 * structure-of-arrays.
 *
 * Layout: a double truth beside a float culling store.
 *   dx[], dy[], dz[]     double world positions of state s, all objects' vertices:
 *                        the host's coordinates bit for bit (clash_run_set_vertices,
 *                        frames), or R * (scale * local) + t evaluated in double
 *   dpx[], dpy[], dpz[]  the same for state s-1 (swept mode needs both)
 *   dlx[], dly[], dlz[]  double local-frame copies of each object's mesh (as
 *                        added; scene files: after the mesh's own scale/centre)
 *   x/y/z, px/py/pz,     float32 copies of the above, each the double rounded to
 *   lx/ly/lz             nearest: they only cull (boxes, octree, BVH, DOPs,
 *                        float filters), never decide
 *   f0[], f1[], f2[]     int32 global vertex indices of each face
 *   vofs[o]..vofs[o+1]   vertex range of object o; fofs likewise for faces
 * Every array is 64-byte aligned and padded to a multiple of 64 bytes.
 *
 * Precision.  Every exact decision (triangle/triangle, triangle/box, the
 * swept hull tests, the CCD kernel's inputs, the arc margins) reads the
 * doubles.  A float copy is within 2^-24 |c| of its double c (round to
 * nearest, normal range; the API refuses |c| beyond float range), so a
 * float bound widened by the culling inflation of S1 (stages/boxes.c: 8
 * float ulps of the scene's largest coordinate, and each object's reach
 * scale * radius for the trees built in local frames) holds the double
 * geometry: culling never drops what the exact test in double keeps.  The
 * float lane filters take lanes made from the doubles (translated in double,
 * then rounded), as their files' headers derive.  Why two stores and not a
 * double store alone: every culling loop (S1's boxes, S3, the octree, the
 * BVH refits, the DOPs) stays on half the bytes and on its float vector
 * code; the doubles are read only by S0 (written), the exact tests and
 * S5's rows, some 72 bytes a vertex more.
 * A face's number inside its object (the number users see) is
 * f - fofs[o]; a vertex's is v - vofs[o].
 *
 * Objects: every object is an instance of a mesh
 * added to the scene (scene_add.c, the one way in, for the API and for scene
 * files alike) with its own copy of the vertices in lx/ly/lz.  Its world
 * position in a state is a pose, world = R * (scale * local) + t (rigid
 * objects, and deforming ones moved by a pose), or, for a deforming object,
 * world positions set directly.  The store holds the current state (x/y/z)
 * and the one before it (px/py/pz); the next state is set object by object
 * (clash_store_set_pose, clash_store_set_vertices) and S0 (motion.c,
 * clash_store_advance_par) makes it current.
 *
 * Scenes read from files (or presets) also carry a law per object that gives
 * any state s: the scene file's pose formula (pose[], LAW_FORMULA) or frame
 * s of a deforming scene (frames[], LAW_FRAMES); clash_scene_set_state_par
 * sets every object with a law to its state s and advances.  Objects added
 * from memory have none (LAW_NONE).
 */
#ifndef CLASH_STORE_SCENE_H
#define CLASH_STORE_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "clash/clash.h"
#include "base/mem.h"

/* The scene-file law of a rigid object (src/cli/REFERENCE.md, "Pose of an object"). */
typedef struct clash_pose {
    double scale;
    double position[3], rotation_deg[3], velocity[3], angular_velocity_deg[3];
} clash_pose;

/* A scene-file law checked for states 0..last before any step (scene_add.c): every world
 * coordinate of the object, R * (scale * local) + t, lies within |t_d| + scale * radius of the
 * origin on axis d, and t_d = position_d + s * velocity_d is linear in s, so its magnitude is
 * largest at s = 0 or s = last; the law fails when that bound passes CLASH_COORD_LIMIT at
 * either end (no state between can then overflow), or when an angle or a product is not finite
 * in double.  `what` names the object ("scene.json: objects[2]").  0 or CLASH_EINPUT. */
int clash_check_law(const clash_pose *p, double radius, int last, const char *what, clash_error *err);
/* clash_check_law for every object of sc with a scene-file law, radius its mesh's, last states
 * 0..last: named "SOURCE: objects[o]" when source (the scene file) is given, else "NAME: object o". */
int clash_store_check_laws(const clash_scene *sc, int last, const char *source, clash_error *err);

/* A pose: world = R * (scale * local) + t, R row-major (scale is the object's). */
typedef struct clash_xform {
    double R[9], t[3];
} clash_xform;

/* A mesh added to the scene, kept so objects can be made of it at any time. */
typedef struct clash_store_mesh {
    int64_t nv, nf;
    double *xyz;         /* 3 * nv, interleaved, as given (double) */
    double radius;       /* the largest |xyz| of a vertex (rounded up): how far from the local
                            origin, the centre of a pose's rotation, the mesh reaches */
    int32_t *tri;        /* 3 * nf, 0-based */
} clash_store_mesh;

/* CLASH_NEXT_LAW: a pose that a scene-file law set (its path during the step is the law's, turn.c). */
enum {
    CLASH_NEXT_NONE = 0,
    CLASH_NEXT_POSE = 1,
    CLASH_NEXT_VERTS = 2,
    CLASH_NEXT_FRAME = 3, /* frame next_frame */
    CLASH_NEXT_LAW = 4
};

/* The turn of an object during the step that made its current state
 * (turn.c, set by S0): how far its faces may leave the convex hull of their
 * positions at s-1 and s, the swept test's hull.  Face f's margin is
 *     k * max over its vertices v of r(v)  +  eps
 *   CLASH_TURN_RADIUS  r(v) = |local v|, the vertex's distance from the
 *                      rotation centre in mesh units (scene-file laws);
 *   CLASH_TURN_CHORD   r(v) = |x(v) - px(v)|, the length of the vertex's
 *                      chord (host poses: the screw motion);
 * and `bound` is at least the margin of every face of the object (for the
 * midphases that move whole trees).  CLASH_TURN_NONE: no margin at all
 * (objects that do not turn; deforming objects set by vertices or frames,
 * which move linearly). */
enum { CLASH_TURN_NONE = 0, CLASH_TURN_RADIUS = 1, CLASH_TURN_CHORD = 2 };
typedef struct clash_turn {
    int kind;
    double k, eps, bound;
} clash_turn;
enum { CLASH_LAW_NONE = 0, CLASH_LAW_FORMULA = 1, CLASH_LAW_FRAMES = 2 };

struct clash_scene {
    char *name;
    int steps, mode, self_collision;     /* the scene's defaults */
    int nobj;
    int64_t nv, nf;
    int64_t *vofs, *fofs;                /* nobj + 1 */
    double *dx, *dy, *dz, *dpx, *dpy, *dpz; /* nv each: current state and the one before (the truth) */
    double *dlx, *dly, *dlz;             /* nv each: local-frame copies (the mesh as added, the truth) */
    float *x, *y, *z, *px, *py, *pz;     /* nv each: the above rounded to float32, for culling */
    float *lx, *ly, *lz;                 /* nv each: dlx/dly/dlz rounded to float32, for culling */
    double *nx, *ny, *nz;                /* nv each, only when a deforming object exists: the
                                            next world positions set by clash_store_set_vertices */
    int32_t *f0, *f1, *f2;               /* nf each */
    /* capacities of the arrays above (scene_add.c grows them) */
    int cap_obj;
    int64_t cap_v, cap_f;
    /* per object (cap_obj) */
    int32_t *obj_mesh;                   /* the mesh it was made of */
    uint8_t *obj_deforming;
    double *obj_scale;                   /* 1 for objects from memory; a scene file's object scale */
    clash_xform *pose0, *cur, *next;     /* pose of state 0, of the current state (when posed; R[0] NaN
                                            when its positions were set), and the next one */
    clash_xform *prev;                   /* pose of the state before the current one (the swept
                                            object-tree midphases move their trees from it) */
    uint8_t *next_kind;                  /* CLASH_NEXT_*: what was set for the next state */
    clash_turn *turn;                    /* the turn of the step into the current state (S0) */
    int nturning;                        /* objects whose turn is not CLASH_TURN_NONE */
    uint8_t *law;                        /* CLASH_LAW_* */
    clash_pose *pose;                    /* LAW_FORMULA parameters (NULL until one exists) */
    int has_deforming;                   /* nx/ny/nz exist */
    int nmesh, cap_mesh;
    clash_store_mesh *mesh;
    /* LAW_FRAMES: frame k holds every position of state k of the first
     * frames_nv store vertices (x block, y block, z block, store order), as
     * the file gave them (double; float files promoted exactly) */
    int nframes;
    int64_t frames_nv;
    double **frames;
    int next_frame;                      /* the frame of objects whose next kind is CLASH_NEXT_FRAME */
    int state;                           /* number of the state held in x/y/z (-1: none computed yet) */
    int law_step;                        /* s when x/y/z and px/py/pz hold the laws' states s and s-1
                                            (clash_scene_set_state_par), -1 otherwise */
    int x_held, prev_held;               /* x/y/z, px/py/pz hold their states' positions (0: not
                                            computed, clash_scene_set_state_need without need_prev) */
    int nruns;                           /* runs created on the scene and not destroyed */
    int morton_nobj;                     /* objects covered by the last Morton reordering */
    /* Store order against input order (reorder.c); NULL: the same.  Global
     * numbers; objects keep their ranges, so local = global - fofs[o]. */
    uint32_t *face_orig, *face_store;    /* nf: store -> input, input -> store */
    uint32_t *vert_orig, *vert_store;    /* nv: likewise for vertices */
    size_t memory_bytes;
    uint32_t layout_gen;                 /* bumped when objects are added or faces reordered */
    struct clash_blocks *blocks;         /* blocks.c: the faces' local block boxes, of layout_gen */
    /* Content numbers of the positions in x/y/z and px/py/pz: each state
     * the motion stage computes gets a new one (gen_last counts them), an
     * advance carries x's over to px, and anything else that writes them
     * (an object added, a reordering) sets both to 0, "unknown".  Equal
     * nonzero numbers: the same positions, bit for bit, so a run may keep
     * what it derived from x for the step after, where they are px's
     * (stages/finegrain.c, stages/broad_dop.c). */
    uint64_t xgen, pxgen, gen_last;
    /* Each mesh's public edge table (clash_scene_edges), kept here by the
     * query layer, which alone knows its layout and gives the function that
     * frees it; NULL until first asked. */
    void *edge_tables;
    void (*edge_tables_free)(void *);
};

/* Each object's faces in blocks of CLASH_BLOCK (the last one shorter):
 * block k of object o (bofs[o] <= k < bofs[o+1]) holds faces fofs[o] +
 * (k - bofs[o]) * CLASH_BLOCK onward; tbox[6 CLASH_TILE t + CLASH_TILE c +
 * j]: coordinate c (lo x, y, z, hi x, y, z) of the local bounds of the
 * vertices of block bofs[o] + CLASH_TILE (t - tofs[o]) + j, tiles tofs[o]
 * <= t < tofs[o+1] (0 past the object's last block); sbox[6 CLASH_SUBS k +
 * CLASH_SUBS c + j]: the same of block k's sub-block j, faces j CLASH_SUB
 * onward (0 where the block has fewer faces); radius[o]: the object's
 * largest |local coordinate|.  clash_scene_blocks
 * makes them on first use for the scene's current layout (blocks.c; no
 * lock); NULL when out of memory. */
enum { CLASH_BLOCK = 64, CLASH_SUB = 8, CLASH_SUBS = CLASH_BLOCK / CLASH_SUB, CLASH_TILE = 8 };
typedef struct clash_blocks {
    uint32_t gen;
    int nobj;
    int64_t nf;
    int64_t *bofs, *tofs;
    float *sbox, *tbox;
    double *radius;
    struct clash_blocks *older; /* the copy of the layout before, kept until the scene goes */
} clash_blocks;
const clash_blocks *clash_scene_blocks(clash_scene *sc);
void clash_blocks_free(clash_blocks *b);

/* clash_scene_reorder_morton over objects first..nobj-1 alone (reorder.c),
 * the others keeping their order: for objects added after a reordering,
 * which then lie as they would had they been there before it. */
int clash_store_reorder_from(clash_scene *sc, int first, clash_error *err);
/* The faces of every object in a random order (a fixed function of seed),
 * vertices renumbered by first use, as the Morton reordering does, and the
 * input numbering kept: a scene whose store order has no locality, for
 * benchmarks of input order (`clash bench bbox --order random`) and tests
 * that results do not depend on it.  A run created after it reorders the
 * store again under the default reorder = morton. */
int clash_store_shuffle(clash_scene *sc, uint64_t seed, clash_error *err);
/* An empty scene with the defaults of clash_scene_create (NULL when out of memory). */
clash_scene *clash_store_new(const char *name);
/* Makes room for nobj objects, nv vertices and nf faces in all (scene.c).
 * Returns 0, or -1 when memory ran out (the scene is unchanged). */
int clash_store_reserve(clash_scene *sc, int nobj, int64_t nv, int64_t nf);
/* Adds an object of mesh `mesh` (scene_add.c): state 0 is R * (scale *
 * local) + t, law LAW_NONE.  No validation beyond what can fail internally:
 * the public clash_scene_add_object checks its arguments first.  Returns the
 * object id or -CLASH_EFAIL / -CLASH_EINPUT (err set). */
int clash_store_add_object(clash_scene *sc, int mesh, const clash_xform *x0, double scale, int deforming,
                           clash_error *err);
/* Adds a mesh whose coordinates are known to be good (a reader's or a
 * generator's, already checked): like clash_scene_add_mesh without the
 * per-element checks but a triangle's repeated index, refused as for the API. */
int clash_store_add_mesh(clash_scene *sc, const double *xyz, int64_t nv, const int32_t *tri, int64_t nf,
                         const char *label, clash_error *err);
/* The first corner (3 f + k) of triangles tri[0..3 nf) whose vertex index repeats one of a later
 * corner of the same triangle, -1 when every triangle has three distinct indices (scene_add.c).
 * clash_store_add_mesh refuses such a mesh; the mesh readers name the file and face first. */
int64_t clash_repeated_corner(const int32_t *tri, int64_t nf);
/* memory_bytes recomputed from what is allocated now (after frames or the
 * reordering maps were added). */
void clash_store_recount(clash_scene *sc);
/* The law LAW_FORMULA for object o (allocates pose[] on first use).
 * Returns 0, or -1 when out of memory. */
int clash_store_set_law(clash_scene *sc, int o, const clash_pose *p);
/* The API's argument checks (scene_add.c), each naming `what` ("object 3")
 * in its message: rot NULL or a rotation (rows orthonormal within 1e-6,
 * determinant +1), trans NULL or finite with |trans[d]| + radius (how far the
 * object's vertices lie from its origin) inside float range, 3*nv coordinates
 * finite inside float range (float culling must bound them).  Return 0 or
 * CLASH_EINPUT. */
int clash_check_rotation(const double rot[9], const char *what, clash_error *err);
int clash_check_translation(const double trans[3], double radius, const char *what, clash_error *err);
int clash_check_coordinates(const double *xyz, int64_t nv, const char *what, clash_error *err);
/* Largest magnitude of a coordinate the store takes (scene_add.c): beyond it a value rounds to
 * inf in float32 (FLT_MAX is about 3.4e38; the margin keeps sums of two such values in range). */
#define CLASH_COORD_LIMIT 3.0e38
/* A copy of s (NULL when out of memory). */
char *clash_strdup(const char *s);

/* ---- states (motion.c) ------------------------------------------------------------ */

/* Back to state 0 (every object where it was added); nothing is set for the
 * next state.  A run starts from here. */
void clash_store_rewind(clash_scene *sc);

/* Next state of object o: a pose, or world positions of its vertices in
 * input vertex order (3 * nv interleaved; doubles, or floats).  Arguments
 * are the caller's to check (the public functions do). */
void clash_store_set_pose(clash_scene *sc, int o, const clash_xform *p);
void clash_store_set_vertices(clash_scene *sc, int o, const double *xyz);
/* Next state of object o, which has a formula law: the law's state s, as
 * clash_scene_set_state_par sets it (its path during the step is the law's;
 * the step is numbered s).  For a store stepped by the advance alone (a
 * decomposed run's part), every such object of a step at the same s. */
void clash_store_set_law_state(clash_scene *sc, int o, int s);
/* S0: makes the next state current: px/py/pz take the current state, x/y/z
 * the next one (objects not set stay where they are), in parallel over the
 * vertices by ex's backend and partition; identical results for every team
 * and partition.  Computes state 0 first when no state exists yet. */
struct clash_exec;
int clash_store_advance_par(clash_scene *sc, const struct clash_exec *ex, clash_error *err);
/* S0 of a scene with laws: every object with a law at its state s and the
 * one before (x/y/z state s, px/py/pz state s-1), through the same
 * set-and-advance as above; objects without a law stay where they are. */
int clash_scene_set_state(clash_scene *sc, int s, clash_error *err);
int clash_scene_set_state_par(clash_scene *sc, int s, const struct clash_exec *ex, clash_error *err);
/* The same; need_prev 0: the caller reads no positions of state s-1 (static
 * mode), so on a jump to s they may be left uncomputed (prev_held 0). */
int clash_scene_set_state_need(clash_scene *sc, int s, const struct clash_exec *ex, int need_prev, clash_error *err);

/* Input (file) number of store face f, store number of input face g; vertices likewise. */
/* The piece holding item i of a partition into n pieces by ascending
 * offsets ofs[0..n] (faces: fofs, vertices: vofs): the last o with
 * ofs[o] <= i, by bisection. */
static inline int clash_object_of(const int64_t *ofs, int n, int64_t i)
{
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        const int mid = lo + (hi - lo + 1) / 2;
        if (ofs[mid] <= i) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}
static inline int64_t clash_face_orig(const clash_scene *sc, int64_t f) { return sc->face_orig ? sc->face_orig[f] : f; }
static inline int64_t clash_face_store(const clash_scene *sc, int64_t g) { return sc->face_store ? sc->face_store[g] : g; }
static inline int64_t clash_vert_orig(const clash_scene *sc, int64_t v) { return sc->vert_orig ? sc->vert_orig[v] : v; }
static inline int64_t clash_vert_store(const clash_scene *sc, int64_t g) { return sc->vert_store ? sc->vert_store[g] : g; }

/* The formula law at state s: rotation matrix (row-major), scale and translation. */
void clash_pose_at(const clash_pose *p, int s, double R[9], double *scale, double t[3]);

/* ---- turns (turn.c) -------------------------------------------------------------- */

/* The turn of law p's step from state s-1 to s, for an object of mesh
 * radius `radius` (the law's scale applies). */
void clash_turn_law(const clash_pose *p, int s, double radius, clash_turn *t);
/* The turn of the screw motion from pose a to pose b (world = R * (scale *
 * local) + t), for an object of mesh radius `radius`. */
void clash_turn_screw(const clash_xform *a, const clash_xform *b, double scale, double radius, clash_turn *t);

#endif
