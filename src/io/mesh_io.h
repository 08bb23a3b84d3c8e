/*
 * mesh_io.h — the mesh readers: OBJ, PLY (ASCII, binary little/big endian),
 * STL (ASCII and binary) and OFF, each producing a clash_mesh (store/mesh.h)
 * or an error naming the file and the line or byte offset, with *out left
 * empty.
 */
#ifndef CLASH_IO_MESH_IO_H
#define CLASH_IO_MESH_IO_H

#include "store/mesh.h"

/* Chooses the reader by file extension (.obj .ply .stl .off, any case); refuses a triangle
 * with a repeated vertex index, naming the file and the face. */
int clash_mesh_load(const char *path, clash_mesh *out, clash_error *err);

int clash_mesh_load_obj(const char *path, clash_mesh *out, clash_error *err);
int clash_mesh_load_ply(const char *path, clash_mesh *out, clash_error *err);
int clash_mesh_load_stl(const char *path, clash_mesh *out, clash_error *err);
int clash_mesh_load_off(const char *path, clash_mesh *out, clash_error *err);

#endif
