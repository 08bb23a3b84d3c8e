/*
 * scene.h — the scene store: every object's geometry in one global
 * structure-of-arrays.
 *
 * Layout (ARCHITECTURE.md, "Data layout"):
 *   x[], y[], z[]        float32 world positions of state s, all objects' vertices
 *   px[], py[], pz[]     the same for state s-1 (swept mode needs both)
 *   lx[], ly[], lz[]     local-frame copies (rigid objects: the mesh as read,
 *                        after the mesh's own scale/centre), same indexing
 *   f0[], f1[], f2[]     int32 global vertex indices of each face
 *   vofs[o]..vofs[o+1]   vertex range of object o; fofs likewise for faces
 * Every array is 64-byte aligned and padded to a multiple of 64 bytes.
 * A face's number inside its object (the number users see) is
 * f - fofs[o]; a vertex's is v - vofs[o].
 *
 * Rigid objects carry a pose (object_desc: scale, position, rotation,
 * velocity, angular velocity).  Deforming scenes carry frames: frame k holds
 * every vertex position of state k (already permuted into store order).
 */
#ifndef CLASH_STORE_SCENE_H
#define CLASH_STORE_SCENE_H

#include <stddef.h>
#include <stdint.h>

#include "clash/clash.h"
#include "base/mem.h"

typedef struct clash_pose {
    double scale;
    double position[3], rotation_deg[3], velocity[3], angular_velocity_deg[3];
} clash_pose;

struct clash_scene {
    char *name;
    int steps, mode, self_collision;     /* the scene's defaults */
    int nobj;
    int64_t nv, nf;
    int64_t *vofs, *fofs;                /* nobj + 1 */
    float *x, *y, *z, *px, *py, *pz;     /* nv each */
    float *lx, *ly, *lz;                 /* nv each (rigid scenes) */
    int32_t *f0, *f1, *f2;               /* nf each */
    clash_pose *pose;                    /* nobj (rigid scenes) */
    int deforming;
    int nframes;
    float **frames;                      /* nframes arrays of 3*nv floats: x block, y block, z block */
    int state;                           /* state held in x/y/z (-1: none yet) */
    /* Store order against input order (reorder.c); NULL: the same.  Global
     * numbers; objects keep their ranges, so local = global - fofs[o]. */
    uint32_t *face_orig, *face_store;    /* nf: store -> input, input -> store */
    uint32_t *vert_orig, *vert_store;    /* nv: likewise for vertices */
    size_t memory_bytes;
};

/* Allocates the store's per-vertex and per-face arrays (the local-frame
 * copies and poses too when rigid) and the object ranges, and counts them in
 * memory_bytes.  Returns 1 on success, 0 when memory ran out (the caller
 * destroys the scene). */
int clash_store_alloc(clash_scene *sc, int nobj, int64_t nv, int64_t nf, int rigid);
/* A copy of s (NULL when out of memory). */
char *clash_strdup(const char *s);

/* S0: fill x/y/z with state s (and px/py/pz with state s-1).  Rigid: the
 * pose formula of CONTRACT.md; deforming: frames s-1 and s. */
int clash_scene_set_state(clash_scene *sc, int s, clash_error *err);
/* The same, run in parallel over vertices by ex's backend and partition
 * (motion.c); identical results for every team and partition. */
struct clash_exec;
int clash_scene_set_state_par(clash_scene *sc, int s, const struct clash_exec *ex, clash_error *err);

/* Input (file) number of store face f, store number of input face g; vertices likewise. */
static inline int64_t clash_face_orig(const clash_scene *sc, int64_t f) { return sc->face_orig ? sc->face_orig[f] : f; }
static inline int64_t clash_face_store(const clash_scene *sc, int64_t g) { return sc->face_store ? sc->face_store[g] : g; }
static inline int64_t clash_vert_orig(const clash_scene *sc, int64_t v) { return sc->vert_orig ? sc->vert_orig[v] : v; }
static inline int64_t clash_vert_store(const clash_scene *sc, int64_t g) { return sc->vert_store ? sc->vert_store[g] : g; }

/* Pose of object o in state s: rotation matrix (row-major), scale and translation. */
void clash_pose_at(const clash_pose *p, int s, double R[9], double *scale, double t[3]);

#endif
