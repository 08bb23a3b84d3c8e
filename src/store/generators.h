/*
 * generators.h — meshes made by code: the papers' UV sphere and the cube.
 */
#ifndef CLASH_GENERATORS_H
#define CLASH_GENERATORS_H

#include "store/mesh.h"

/* The UV sphere of the papers (seeds/README.md): k latitude bands, 2k
 * meridians, radius 1, vertices on the sphere, polar caps as triangle fans,
 * quads split in two: faces = 4k(k-1).  faces must be such a count. */
int clash_gen_sphere(int faces, clash_mesh *out, clash_error *err);
/* 1 when faces = 4k(k-1) for an integer k >= 2 (k returned in *k). */
int clash_sphere_faces_valid(int faces, int *k);
/* The unit cube [-0.5, 0.5]^3: 8 vertices, 12 triangles. */
int clash_gen_box(clash_mesh *out, clash_error *err);

#endif
