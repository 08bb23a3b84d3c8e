/*
 * query.h — what the query layer shares (src/query/): contact geometry,
 * distances, proximity and the public edge tables, all computed in double
 * from the store's double truth, after a step, never inside the culling
 * stages.  Internal to src/.
 *
 * Positions.  Every position this layer reads goes through q_cur / q_prev /
 * q_local below: the one place that knows where the store keeps a vertex's
 * current, previous and local double coordinates (store/scene.h), so a
 * change of the store's layout is one edit here.
 *
 * Primitives (closest.c): point-triangle and segment-segment closest points,
 * the intersection segment of two triangles and the distance between two
 * triangles, each in plain double arithmetic (no float, no filter), so the
 * results are the same for every thread count and instruction set.
 *
 * Kept structures (struct clash_query, hung off the run, freed with it):
 * the per-step geometry of pairs and contacts (geometry.c, when
 * clash_config.geometry is set), the per-object trees over double face boxes
 * that distance.c and proximity.c traverse (refitted when the positions
 * changed), and proximity's result buffer.
 */
#ifndef CLASH_QUERY_QUERY_H
#define CLASH_QUERY_QUERY_H

#include <stddef.h>
#include <math.h>
#include <stdint.h>

#include "clash/clash.h"
#include "core/run.h"
#include "store/scene.h"

/* ---- the store's double positions: the one accessor ------------------------------------ */

/* The distance between two boxes (lo x y z, hi x y z: 6 doubles each), 0
 * when they overlap: the trees' pruning bound, for distance and proximity. */
static inline double q_box_dist(const double *A, const double *B)
{
    double s = 0;
    for (int k = 0; k < 3; ++k) {
        const double d = A[k] > B[3 + k] ? A[k] - B[3 + k] : B[k] > A[3 + k] ? B[k] - A[3 + k] : 0;
        s += d * d;
    }
    return sqrt(s);
}

static inline void q_cur(const clash_scene *sc, int64_t v, double p[3])
{
    p[0] = sc->dx[v], p[1] = sc->dy[v], p[2] = sc->dz[v];
}
static inline void q_prev(const clash_scene *sc, int64_t v, double p[3])
{
    p[0] = sc->dpx[v], p[1] = sc->dpy[v], p[2] = sc->dpz[v];
}
static inline void q_local(const clash_scene *sc, int64_t v, double p[3])
{
    p[0] = sc->dlx[v], p[1] = sc->dly[v], p[2] = sc->dlz[v];
}
/* Before a run's first step the store holds no positions yet (sc->state < 0:
 * S0 makes state 0 on the first step).  The current state is then state 0,
 * every object at its current pose, and q_ensure_current writes it where S0
 * will, as S0 will (ck_transform_d: the same bits), so that the query layer
 * may measure it; nothing else of the store changes.  distance.c. */
void q_ensure_current(clash_scene *sc);
/* The three store vertices of store face f. */
static inline void q_face_verts(const clash_scene *sc, int64_t f, int64_t v[3])
{
    v[0] = sc->f0[f], v[1] = sc->f1[f], v[2] = sc->f2[f];
}
/* The current positions of store face f's corners. */
static inline void q_face_cur(const clash_scene *sc, int64_t f, double T[3][3])
{
    q_cur(sc, sc->f0[f], T[0]), q_cur(sc, sc->f1[f], T[1]), q_cur(sc, sc->f2[f], T[2]);
}

/* ---- primitives (closest.c) ------------------------------------------------------------- */

/* The point q of triangle (a, b, c) nearest to p, and its barycentric weights
 * w (q = w0 a + w1 b + w2 c); returns |p - q|^2.  Ericson's Voronoi-region
 * walk; a degenerate triangle falls back to its edges. */
double q_point_tri(const double p[3], const double a[3], const double b[3], const double c[3], double q[3],
                   double w[3]);
/* The nearest points c1 = p1 + s (q1 - p1), c2 = p2 + t (q2 - p2) of two
 * segments, s and t in [0, 1]; returns |c1 - c2|^2 (Ericson, degenerate
 * segments as points). */
double q_seg_seg(const double p1[3], const double q1[3], const double p2[3], const double q2[3], double *s, double *t,
                 double c1[3], double c2[3]);
/* The intersection of triangles A and B: 1 with its segment's two ends p, q
 * (p == q where they touch at a point), 0 when they do not meet, 2 when they
 * are coplanar (p, q then unset).  Decided on the signs of each triangle's
 * corners' distances to the other's plane, in double. */
int q_tri_tri_segment(const double A[3][3], const double B[3][3], double p[3], double q[3]);
/* The distance between triangles A and B and a nearest point on each: 0
 * when they intersect (pa = pb, a common point), else the least of the six
 * vertex-triangle and nine edge-edge distances. */
double q_tri_tri_dist(const double A[3][3], const double B[3][3], double pa[3], double pb[3]);
/* The same; may_meet 0: the caller knows the triangles cannot meet (their
 * boxes are apart), so the intersection test is skipped. */
double q_tri_tri_dist_meet(const double A[3][3], const double B[3][3], int may_meet, double pa[3], double pb[3]);

/* ---- kept structures -------------------------------------------------------------------- */

/* A binary tree over one object's faces, boxes in double (distance.c); a
 * node's box and links side by side, so that a visit reads one place. */
typedef struct q_node {
    double box[6];        /* lo x y z, hi x y z */
    int64_t left;         /* first child (the second is left + 1), or -1 for a leaf */
    int64_t first, count; /* its faces perm[first .. first + count) */
} q_node;
typedef struct q_tree {
    int64_t nf;           /* the object's faces */
    int64_t nnode;
    q_node *node;         /* preorder: children after their parent */
    int64_t *perm;        /* the object's store faces, in leaf order */
    uint64_t gen;         /* the positions the boxes hold (sc->xgen; 0: refit before use) */
} q_tree;

struct clash_query {
    /* geometry.c: this step's pair and contact geometry and object pairs */
    clash_pair_geom *pg;
    size_t npg, cap_pg;
    clash_contact_geom *cg;
    size_t ncg, cap_cg;
    clash_object_pair *opairs;
    size_t nop, cap_op;
    /* distance.c: one tree per object, built on first use */
    q_tree *trees;
    int ntrees;
    /* proximity.c: the last call's pairs */
    clash_proximity *prox;
    size_t nprox, cap_prox;
};

/* The run's query state, made on first use (NULL when out of memory). */
struct clash_query *clash_query_of(clash_run *run);
void clash_query_free(clash_run *run);
/* The step's geometry (geometry.c): called by the pipeline at the end of a
 * step when clash_config.geometry is set. */
int clash_query_step(clash_run *run, clash_error *err);
/* Object o's tree with boxes of the current positions (distance.c), NULL
 * when out of memory. */
const q_tree *clash_query_tree(clash_run *run, int o);
/* Grows *p to hold n items of size bytes (capacity in *cap); -1 when out of memory. */
int q_grow(void **p, size_t *cap, size_t n, size_t size);

#endif
