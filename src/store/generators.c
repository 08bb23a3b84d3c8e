/*
 * generators.c — the UV sphere of the papers and the unit cube.
 *
 * UV sphere with k bands and 2k meridians (m = 2k):
 *   vertex 0 is the north pole (0,0,1), then rings i = 1..k-1 at polar angle
 *   theta_i = pi*i/k, each with m vertices at azimuth phi_j = 2*pi*j/m, and
 *   the south pole last.  V = 2 + m(k-1).
 *   Faces: the north cap fan (m triangles), (k-2) bands of m quads each split
 *   into two triangles, the south cap fan (m triangles):
 *   F = 2m + 2m(k-2) = 2m(k-1) = 4k(k-1).
 * Triangles are wound counter-clockwise seen from outside.
 */
#include "store/generators.h"

#include <math.h>
#include <stdlib.h>

#include "base/error.h"

int clash_sphere_faces_valid(int faces, int *k)
{
    for (int kk = 2; 4L * kk * (kk - 1) <= (long)faces; ++kk)
        if (4L * kk * (kk - 1) == (long)faces) {
            if (k) *k = kk;
            return 1;
        }
    return 0;
}

int clash_gen_sphere(int faces, clash_mesh *out, clash_error *err)
{
    int k;
    *out = (clash_mesh){0};
    if (faces > 4 * 4096 * 4095 || !clash_sphere_faces_valid(faces, &k))
        return clash_fail(err, CLASH_EINPUT, "sphere: %d is not a UV-sphere face count 4k(k-1)", faces);
    const int m = 2 * k;
    const int64_t nv = 2 + (int64_t)m * (k - 1);
    double *xyz = malloc(sizeof(double) * 3 * (size_t)nv);
    int32_t *tri = malloc(sizeof(int32_t) * 3 * (size_t)faces);
    if (!xyz || !tri) {
        free(xyz);
        free(tri);
        return clash_fail(err, CLASH_EFAIL, "sphere: out of memory");
    }
    const double pi = 3.14159265358979323846;
    int64_t v = 0;
    xyz[3 * v + 0] = 0, xyz[3 * v + 1] = 0, xyz[3 * v + 2] = 1, ++v;
    for (int i = 1; i < k; ++i) {
        const double th = pi * i / k;
        for (int j = 0; j < m; ++j) {
            const double ph = 2 * pi * j / m;
            xyz[3 * v + 0] = sin(th) * cos(ph);
            xyz[3 * v + 1] = sin(th) * sin(ph);
            xyz[3 * v + 2] = cos(th);
            ++v;
        }
    }
    xyz[3 * v + 0] = 0, xyz[3 * v + 1] = 0, xyz[3 * v + 2] = -1, ++v;
    const int32_t south = (int32_t)(nv - 1);
#define RING(i, j) ((int32_t)(1 + (int64_t)((i) - 1) * m + ((j) % m)))
    int64_t f = 0;
    for (int j = 0; j < m; ++j) { /* north cap */
        tri[3 * f + 0] = 0, tri[3 * f + 1] = RING(1, j), tri[3 * f + 2] = RING(1, j + 1), ++f;
    }
    for (int i = 1; i < k - 1; ++i)
        for (int j = 0; j < m; ++j) {
            const int32_t a = RING(i, j), b = RING(i, j + 1), c = RING(i + 1, j), d = RING(i + 1, j + 1);
            tri[3 * f + 0] = a, tri[3 * f + 1] = c, tri[3 * f + 2] = d, ++f;
            tri[3 * f + 0] = a, tri[3 * f + 1] = d, tri[3 * f + 2] = b, ++f;
        }
    for (int j = 0; j < m; ++j) { /* south cap */
        tri[3 * f + 0] = south, tri[3 * f + 1] = RING(k - 1, j + 1), tri[3 * f + 2] = RING(k - 1, j), ++f;
    }
#undef RING
    out->nverts = nv;
    out->nfaces = f;
    out->xyz = xyz;
    out->tri = tri;
    return CLASH_OK;
}

int clash_gen_box(clash_mesh *out, clash_error *err)
{
    static const int32_t quads[6][4] = {
        {0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    *out = (clash_mesh){0};
    double *xyz = malloc(sizeof(double) * 24);
    int32_t *tri = malloc(sizeof(int32_t) * 36);
    if (!xyz || !tri) {
        free(xyz);
        free(tri);
        return clash_fail(err, CLASH_EFAIL, "box: out of memory");
    }
    for (int v = 0; v < 8; ++v) { /* bit 0: x, bit 1: y, bit 2: z */
        xyz[3 * v + 0] = (v & 1) ? 0.5 : -0.5;
        xyz[3 * v + 1] = (v & 2) ? 0.5 : -0.5;
        xyz[3 * v + 2] = (v & 4) ? 0.5 : -0.5;
    }
    for (int q = 0; q < 6; ++q) {
        tri[6 * q + 0] = quads[q][0], tri[6 * q + 1] = quads[q][1], tri[6 * q + 2] = quads[q][2];
        tri[6 * q + 3] = quads[q][0], tri[6 * q + 4] = quads[q][2], tri[6 * q + 5] = quads[q][3];
    }
    out->nverts = 8;
    out->nfaces = 12;
    out->xyz = xyz;
    out->tri = tri;
    return CLASH_OK;
}
