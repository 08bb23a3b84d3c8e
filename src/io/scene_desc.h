/*
 * scene_desc.h — a scene as described (by a clash-scene/1 JSON file or a
 * preset), before meshes are loaded and the SoA store is built.
 *
 * The description holds only what the user wrote, with defaults filled in;
 * scene.c turns it into a clash_scene (loading mesh files, running
 * generators, building the store).  See src/cli/REFERENCE.md, "Scene file".
 * The description's types, its parsers, presets and clash_scene_build are
 * declared in clash_internal.h (the command and the benchmarks use them);
 * what is here is the library's own: a deforming scene's frames.
 */
#ifndef CLASH_SCENE_DESC_H
#define CLASH_SCENE_DESC_H

#include "clash/clash.h"
#include "clash_internal.h"
#include "store/mesh.h"

/* A deforming (frames) scene's objects, learnt from frame 0 alone
 * (scene_build.c): the connected components of its faces (or one object),
 * vertices and faces grouped by object, file order inside an object;
 * vertices no face uses dropped.  Whoever holds it can then read the frames
 * one file at a time (clash_frames_load) and place each object's vertices. */
typedef struct clash_frames_layout {
    clash_mesh first;     /* frame 0 as read (its tri: the faces every frame must have; xyz may be freed) */
    int nobj;
    int64_t nv_in, nf;    /* frame 0's vertices (as in the file) and faces */
    int64_t nv;           /* vertices kept */
    int64_t *vofs, *fofs; /* nobj + 1: each object's first vertex and face */
    int32_t *vmap;        /* nv_in: file vertex -> kept vertex, -1 when no face uses it */
    int32_t *vfile;       /* nv: kept vertex -> file vertex */
    double *xyz;          /* 3 nv: frame 0's kept vertices, by object (each object's mesh) */
    int32_t *tri;         /* 3 nf: faces by object, vertices numbered inside their object */
} clash_frames_layout;
/* Reads frame 0 and learns the objects.  Errors (exit 2) name the file. */
int clash_frames_layout_load(const clash_scene_desc *d, clash_frames_layout *L, clash_error *err);
void clash_frames_layout_free(clash_frames_layout *L);
/* Frame k read into m (k > 0) and checked against frame 0: the same counts,
 * the same faces, coordinates of the kept vertices in float range; on error
 * m is freed and err names the file and the place. */
int clash_frames_load(const clash_scene_desc *d, const clash_frames_layout *L, int k, clash_mesh *m,
                      clash_error *err);
/* The checks of clash_frames_load on a frame already read (k = 0: its range only). */
int clash_frames_check(const clash_scene_desc *d, const clash_frames_layout *L, int k, const clash_mesh *m,
                       clash_error *err);

/* A store (new, empty: sc) of frames-law objects from the layout: objs[0..
 * nobjs) (ascending; NULL: all of L's), each with its own mesh (frame 0's,
 * label naming it in errors), and the frames k0..k1 read one file at a time
 * (frame 0 from L->first while it holds its coordinates) with those objects'
 * vertices in store order; the other frames stay NULL.  Returns 0 or an
 * error code (err names the file and place). */
int clash_frames_fill(const clash_scene_desc *d, const clash_frames_layout *L, const int *objs, int nobjs, int k0,
                      int k1, const char *label, clash_scene *sc, clash_error *err);

#endif
