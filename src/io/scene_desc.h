/*
 * scene_desc.h — a scene as described (by a clash-scene/1 JSON file or a
 * preset), before meshes are loaded and the SoA store is built.
 *
 * The description holds only what the user wrote, with defaults filled in;
 * scene.c turns it into a clash_scene (loading mesh files, running
 * generators, building the store).  See CONTRACT.md, "Scene file".
 */
#ifndef CLASH_SCENE_DESC_H
#define CLASH_SCENE_DESC_H

#include "clash/clash.h"

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

#endif
