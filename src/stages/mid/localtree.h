/*
 * localtree.h — what the two object-frame octrees share: the object
 * octrees of Kitamura et al. (objoctree.c, [KTK94]/[KTAK94]) and the spherical
 * octrees of Tzafestas & Coiffet (spherical.c, [TC96]).  Both are built once
 * per rigid object over its local coordinates (the store's lx, ly, lz) and
 * moved with the object's pose; localtree.c has the object's root cube and
 * tree depth, the linking of each face to one leaf (its "home"), and the
 * candidates of two leaves' faces.
 */
#ifndef CLASH_STAGES_MID_LOCALTREE_H
#define CLASH_STAGES_MID_LOCALTREE_H

#include <math.h>
#include <string.h>

#include "core/run.h"
#include "stages/mid/midphase.h"

/* Seconds on a monotonic clock (build and update times). */
double lt_now(void);

/* Face f's three vertices in its object's local frame. */
static inline void lt_face_local(const clash_scene *sc, uint32_t f, double v[3][3])
{
    const int32_t i[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
    for (int k = 0; k < 3; ++k) v[k][0] = sc->dlx[i[k]], v[k][1] = sc->dly[i[k]], v[k][2] = sc->dlz[i[k]];
}

/* The next float below / above a finite float f (bit steps, no libm call). */
static inline float lt_prev(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    u = f > 0 ? u - 1 : f < 0 ? u + 1 : 0x80000001u; /* below +-0: the smallest negative subnormal */
    memcpy(&f, &u, sizeof f);
    return f;
}
static inline float lt_next(float f) { return -lt_prev(-f); }

/* The float at or below / at or above x (non-finite x passes through). */
static inline float lt_down(double x)
{
    const float f = (float)x;
    return (double)f > x && isfinite(f) ? lt_prev(f) : f;
}
static inline float lt_up(double x)
{
    const float f = (float)x;
    return (double)f < x && isfinite(f) ? lt_next(f) : f;
}

/* min / max without libm calls (no NaN here). */
/* Object o's map local -> world in the current state (k = 0) or the one
 * before (k = 1): world = M local + T, M = scale * R. */
static inline void lt_pose(const clash_scene *sc, int o, int k, double M[9], double T[3])
{
    const clash_xform *x = k ? &sc->prev[o] : &sc->cur[o];
    for (int i = 0; i < 9; ++i) M[i] = sc->obj_scale[o] * x->R[i];
    for (int d = 0; d < 3; ++d) T[d] = x->t[d];
}

static inline double lt_min(double a, double b) { return a < b ? a : b; }
static inline double lt_max(double a, double b) { return a > b ? a : b; }

/* Object o's root cube (centre, edge: the cube around its local vertices,
 * slightly enlarged) and tree depth: req when > 0 (capped so a leaf cube is
 * no smaller than a quarter of the mean face box edge), else the depth whose
 * leaf edge is nearest `faces_per_leaf` mean face box edges.  The result is
 * clamped to [0, 12].  Returns the depth, or -1 when o has no face. */
int lt_root(const clash_scene *sc, int o, int req, double faces_per_leaf, double centre[3], double *edge);

/* Links every face of an object (global numbers f0 .. f0+nf-1) to one leaf.
 * The leaves are given with the faces that meet each (fofs/face, nleaf
 * leaves) and their cubes (cube: centre x, y, z and half edge per leaf).
 * A face's home is the first leaf whose cube holds its centroid (a point of
 * the face, so that leaf lists it), else the first leaf that lists it.
 * Fills hofs (nleaf + 1) and hface (nf): each leaf's home faces, ascending.
 * Returns -1 when out of memory. */
int lt_homes(const clash_scene *sc, int64_t f0, int64_t nf, size_t nleaf, const int32_t *fofs,
             const uint32_t *face, const double *cube, int32_t *hofs, uint32_t *hface);

/* Appends the candidates among fa[0..na) x fb[0..nb): the eligible pairs
 * whose S1 face boxes overlap grown by delta, the oracle's predicate; when
 * one_list (fa == fb, one leaf with itself) each pair once.  -1: out of memory. */
int lt_pairs(const clash_run *run, clash_keybuf *kb, const uint32_t *fa, int32_t na, const uint32_t *fb, int32_t nb,
             int one_list);

#endif
