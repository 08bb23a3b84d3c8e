/*
 * edges.h — each object's edge table, for exact CCD: the
 * object's unique undirected edges (i, j), i < j in INPUT vertex numbering,
 * numbered in order of j, then of i (the convention of the ccd-frames data:
 * ../shared/data/README.md).  So edge ids do not depend on how the store
 * ordered faces and vertices (Morton, --reorder).
 *
 * Global edge ids run over all objects: object o's edges are
 * eofs[o] .. eofs[o+1]-1, and its local id is global - eofs[o], so sorting
 * global ids sorts by (object, edge).  For each global edge the table keeps
 * its two ends as STORE vertex numbers (ev0: the end with the smaller input
 * number), which is what the CCD stage reads positions with; for each store
 * face its three edges (f0 f1), (f1 f2), (f2 f0) as global ids, or
 * CLASH_NO_EDGE where a degenerate face repeats a vertex.
 *
 * The table depends on the topology only, so a run builds it once
 * (clash_edges_update, on the first --ccd step) and keeps it, extending it
 * for objects added after; objects of one mesh share the mesh's numbering
 * (edges.c), so the work is one sort per mesh and a linear pass per object,
 * which also sets every vertex's and edge's owner face.
 */
#ifndef CLASH_CORE_EDGES_H
#define CLASH_CORE_EDGES_H

#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"
#include "store/scene.h"

#define CLASH_NO_EDGE UINT32_MAX

struct edges_mesh;
typedef struct clash_edges {
    int nobj;             /* objects covered: 0 .. nobj-1 */
    int64_t *eofs;        /* nobj + 1 */
    int64_t ne;           /* all objects' edges */
    uint32_t *ev0, *ev1;  /* ne each: store vertex numbers of the two ends */
    uint32_t *fe;         /* 3 per store face: its edges' global ids */
    /* Each primitive's owner, the smallest store face that holds it
     * (CLASH_NO_EDGE: a vertex in no face): per store vertex and per global
     * edge.  The CCD stage makes a primitive pair from its owners' face pair
     * alone (stages/ccd.c). */
    uint32_t *vown, *eown;
    struct edges_mesh *mesh; /* each mesh's table in its own numbering (edges.c) */
    int nmesh;
} clash_edges;

/* Makes *t (NULL: a new table) cover every object of sc, the objects it
 * covers already unchanged, the new objects filled in parallel over ex's
 * team; 0, or -1 when memory ran out (or the edges outnumber 32-bit ids). */
int clash_edges_update(clash_edges **t, const clash_scene *sc, const clash_exec *ex);
void clash_edges_free(clash_edges *e);

/* Store mesh m's unique edges as the keys j << 32 | i of their ends
 * (i < j, the mesh's own vertex numbers), ascending: the numbering every
 * object of the mesh uses.  *keys is malloc'ed (the caller frees it, also
 * on failure); returns the count, or (size_t)-1 when out of memory. */
size_t clash_edges_mesh_keys(const clash_store_mesh *m, uint64_t **keys);

/* The object of global edge e (binary search over eofs). */
int clash_edges_object(const clash_edges *t, uint32_t e);

#endif
