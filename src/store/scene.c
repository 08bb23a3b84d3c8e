/*
 * scene.c — the scene store (scene.h): its allocation, its life and its
 * public accessors.  Filling it from scene files and presets is io/'s
 * (io/scene_build.c).
 */
#include "store/scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

void clash_scene_destroy(clash_scene *sc)
{
    if (!sc) return;
    free(sc->name);
    free(sc->vofs), free(sc->fofs);
    free(sc->x), free(sc->y), free(sc->z), free(sc->px), free(sc->py), free(sc->pz);
    free(sc->lx), free(sc->ly), free(sc->lz);
    free(sc->f0), free(sc->f1), free(sc->f2);
    free(sc->pose);
    free(sc->face_orig), free(sc->face_store), free(sc->vert_orig), free(sc->vert_store);
    if (sc->frames)
        for (int k = 0; k < sc->nframes; ++k) free(sc->frames[k]);
    free(sc->frames);
    free(sc);
}

char *clash_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* Allocates the per-vertex and per-face arrays and the object ranges. */
int clash_store_alloc(clash_scene *sc, int nobj, int64_t nv, int64_t nf, int rigid)
{
    sc->nobj = nobj;
    sc->nv = nv;
    sc->nf = nf;
    sc->vofs = calloc((size_t)nobj + 1, sizeof(int64_t));
    sc->fofs = calloc((size_t)nobj + 1, sizeof(int64_t));
    float **va[] = {&sc->x, &sc->y, &sc->z, &sc->px, &sc->py, &sc->pz, &sc->lx, &sc->ly, &sc->lz};
    int nva = rigid ? 9 : 6;
    for (int i = 0; i < nva; ++i) *va[i] = clash_aligned_calloc((size_t)nv, sizeof(float));
    sc->f0 = clash_aligned_calloc((size_t)nf, sizeof(int32_t));
    sc->f1 = clash_aligned_calloc((size_t)nf, sizeof(int32_t));
    sc->f2 = clash_aligned_calloc((size_t)nf, sizeof(int32_t));
    if (rigid) sc->pose = calloc((size_t)nobj, sizeof(clash_pose));
    int ok = sc->vofs && sc->fofs && sc->f0 && sc->f1 && sc->f2 && (!rigid || sc->pose);
    for (int i = 0; i < nva; ++i) ok = ok && *va[i];
    sc->memory_bytes = 2 * ((size_t)nobj + 1) * sizeof(int64_t) + (size_t)nva * clash_padded_bytes((size_t)nv, sizeof(float)) +
                       3 * clash_padded_bytes((size_t)nf, sizeof(int32_t)) + (rigid ? (size_t)nobj * sizeof(clash_pose) : 0);
    return ok;
}

const char *clash_scene_name(const clash_scene *sc) { return sc->name; }
int clash_scene_objects(const clash_scene *sc) { return sc->nobj; }
int64_t clash_scene_vertices(const clash_scene *sc) { return sc->nv; }
int64_t clash_scene_faces(const clash_scene *sc) { return sc->nf; }
size_t clash_scene_memory_bytes(const clash_scene *sc) { return sc->memory_bytes; }

void clash_scene_apply_defaults(const clash_scene *sc, clash_config *cfg)
{
    if (cfg->steps < 0) cfg->steps = sc->steps;
    if (cfg->mode < 0) cfg->mode = sc->mode;
    if (cfg->self_collision < 0) cfg->self_collision = sc->self_collision;
}
