/*
 * mesh.h — a triangle mesh as read from a file (io/) or made by a generator
 * (generators.c), before it enters the scene store.
 *
 * Readers for OBJ, PLY (ASCII, binary little/big endian), STL (ASCII and
 * binary) and OFF all produce this one shape: vertex coordinates in double,
 * interleaved xyz (3*nverts), and triangles as 0-based int32 vertex indices
 * (3*nfaces).  Polygons of n vertices become n-2 triangles in fan order, in
 * place, so face numbers follow the file.  The scene store converts this to
 * its float32 structure-of-arrays layout.
 *
 * A reader either returns CLASH_OK with a complete mesh or returns an error
 * code with *out left empty (nothing half-built).  Coordinates are checked to
 * be finite, indices to be in range, counts to agree with the data, and sizes
 * to fit before anything is allocated.
 */
#ifndef CLASH_STORE_MESH_H
#define CLASH_STORE_MESH_H

#include <stdint.h>

#include "clash/clash.h"

typedef struct clash_mesh {
    int64_t nverts;
    int64_t nfaces;
    double *xyz;    /* 3 * nverts */
    int32_t *tri;   /* 3 * nfaces */
} clash_mesh;

void clash_mesh_free(clash_mesh *m);

#endif
