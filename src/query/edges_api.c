/*
 * edges_api.c — the public edge tables (clash_scene_edges): each mesh's
 * unique undirected edges (i, j), i < j in its own vertex numbering, ordered
 * by j, then by i: core/edges.c's keys of the mesh (clash_edges_mesh_keys),
 * the numbering --ccd gives every object of that mesh.  The tables hang off the scene
 * (sc->edge_tables, freed by clash_scene_destroy through the function
 * given beside it), one allocation per mesh, made on first use: a table
 * stays where it is while meshes are added after it.
 */
#include <stdlib.h>

#include "core/edges.h"
#include "query/query.h"

typedef struct edge_tables {
    int n;            /* meshes covered by the arrays below */
    int32_t **ij;     /* n: the mesh's table, or NULL until made */
    int64_t *count;   /* n */
} edge_tables;

static void tables_free(void *p)
{
    edge_tables *t = p;
    if (!t) return;
    for (int m = 0; m < t->n; ++m) free(t->ij[m]);
    free(t->ij), free(t->count), free(t);
}

/* Mesh m's table, made now if needed (core/edges.c's keys: the same
 * numbering --ccd gives): 0, or -1 when out of memory. */
static int make_table(const clash_store_mesh *mesh, int32_t **ij, int64_t *count)
{
    uint64_t *k;
    const size_t m = clash_edges_mesh_keys(mesh, &k);
    int32_t *e = m == (size_t)-1 ? NULL : malloc((2 * m + 1) * sizeof *e);
    if (!e) {
        free(k);
        return -1;
    }
    for (size_t q = 0; q < m; ++q) e[2 * q] = (int32_t)(k[q] & 0xffffffffu), e[2 * q + 1] = (int32_t)(k[q] >> 32);
    free(k);
    *ij = e, *count = (int64_t)m;
    return 0;
}

int clash_scene_edges(const clash_scene *csc, int obj, const int32_t **ij, int64_t *count)
{
    if (ij) *ij = NULL;
    if (count) *count = 0;
    if (!csc || !ij || !count || obj < 0 || obj >= csc->nobj) return CLASH_EINPUT;
    /* the cache is the scene's own bookkeeping, not its content: the scene is const for the caller */
    clash_scene *sc = (clash_scene *)csc;
    edge_tables *t = sc->edge_tables;
    if (!t) {
        if (!(t = calloc(1, sizeof *t))) return CLASH_EFAIL;
        sc->edge_tables = t, sc->edge_tables_free = tables_free;
    }
    const int m = sc->obj_mesh[obj];
    if (m >= t->n) {
        int32_t **nij = realloc(t->ij, (size_t)sc->nmesh * sizeof *nij);
        if (!nij) return CLASH_EFAIL;
        t->ij = nij;
        int64_t *nc = realloc(t->count, (size_t)sc->nmesh * sizeof *nc);
        if (!nc) return CLASH_EFAIL;
        t->count = nc;
        for (int q = t->n; q < sc->nmesh; ++q) t->ij[q] = NULL, t->count[q] = 0;
        t->n = sc->nmesh;
    }
    if (!t->ij[m] && make_table(&sc->mesh[m], &t->ij[m], &t->count[m])) return CLASH_EFAIL;
    *ij = t->ij[m], *count = t->count[m];
    return CLASH_OK;
}
