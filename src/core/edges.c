/*
 * edges.c — building each object's edge table (edges.h).  The numbering
 * depends on a mesh's topology alone: every object of a mesh holds the
 * mesh's triangles with its own vertex offset, in input numbering (the
 * store's one way in, scene_add.c, copies them so; a reordering permutes
 * only the store, and the scene's permutations map back).  So the table is
 * made once per mesh from the mesh's triangles: every face edge as the key
 * j << 32 | i of its ends (i < j), sorted and de-duplicated, which is
 * exactly "ordered by j, then i", and each triangle's three edges found by
 * binary search in those keys.  Each object then takes it by a linear pass
 * over its faces (store numbers through the permutations), the objects in
 * parallel over the run's team.  A scene of many copies of one mesh sorts
 * once, not once a copy.  Objects are only ever added at the end
 * (clash_edges_update), so the global ids already given never change.
 */
#include "core/edges.h"

#include <stdlib.h>
#include <string.h>

#include "base/sort.h"

/* One mesh's table in input numbering local to an object: ne edges, their
 * ends lo/hi (lo < hi), and each input face's three edges (CLASH_NO_EDGE
 * where a face repeats a vertex). */
typedef struct edges_mesh {
    int64_t nf, nv, ne;
    uint32_t *lo, *hi, *fe;
} edges_mesh;

static int64_t find_key(const uint64_t *k, int64_t n, uint64_t key)
{
    int64_t lo = 0, hi = n - 1;
    while (lo <= hi) {
        const int64_t m = lo + (hi - lo) / 2;
        if (k[m] == key) return m;
        if (k[m] < key) lo = m + 1;
        else hi = m - 1;
    }
    return -1;
}

static void mesh_free(edges_mesh *m)
{
    if (m) free(m->lo), free(m->hi), free(m->fe);
}

void clash_edges_free(clash_edges *e)
{
    if (!e) return;
    for (int i = 0; i < e->nmesh; ++i) mesh_free(&e->mesh[i]);
    free(e->mesh);
    free(e->eofs), free(e->ev0), free(e->ev1), free(e->fe), free(e->vown), free(e->eown);
    free(e);
}

static uint64_t key_of(int64_t a, int64_t b)
{
    const uint64_t i = (uint64_t)(a < b ? a : b), j = (uint64_t)(a < b ? b : a);
    return j << 32 | i;
}

size_t clash_edges_mesh_keys(const clash_store_mesh *sm, uint64_t **keys)
{
    const int32_t *t = sm->tri;
    uint64_t *k = malloc((3 * (size_t)sm->nf + 1) * sizeof *k);
    *keys = k;
    if (!k) return (size_t)-1;
    size_t n = 0;
    for (int64_t i = 0; i < 3 * sm->nf; ++i) {
        const int64_t a = t[i], b = t[i % 3 == 2 ? i - 2 : i + 1];
        if (a != b) k[n++] = key_of(a, b);
    }
    return clash_sort_unique_u64(k, n);
}

/* The table of store mesh sm; 0, or -1 when memory ran out. */
static int mesh_build(const clash_store_mesh *sm, edges_mesh *m)
{
    const int64_t nf = sm->nf;
    const int32_t *t = sm->tri;
    memset(m, 0, sizeof *m);
    m->nf = nf, m->nv = sm->nv;
    uint64_t *k;
    const size_t ne = clash_edges_mesh_keys(sm, &k);
    m->fe = malloc((3 * (size_t)nf + 1) * sizeof *m->fe);
    if (ne == (size_t)-1 || ne >= CLASH_NO_EDGE || !m->fe) goto oom;
    m->ne = (int64_t)ne;
    m->lo = malloc((ne + 1) * sizeof *m->lo), m->hi = malloc((ne + 1) * sizeof *m->hi);
    if (!m->lo || !m->hi) goto oom;
    for (size_t q = 0; q < ne; ++q) m->lo[q] = (uint32_t)(k[q] & 0xffffffffu), m->hi[q] = (uint32_t)(k[q] >> 32);
    for (int64_t i = 0; i < 3 * nf; ++i) {
        const int64_t a = t[i], b = t[i % 3 == 2 ? i - 2 : i + 1];
        m->fe[i] = a != b ? (uint32_t)find_key(k, (int64_t)ne, key_of(a, b)) : CLASH_NO_EDGE;
    }
    free(k);
    return 0;
oom:
    free(k);
    mesh_free(m);
    memset(m, 0, sizeof *m);
    return -1;
}

/* Objects [begin, end) of the new ones take their mesh's table: ends in
 * store numbers, each store face's three edges (each object writes its
 * own edges and faces alone). */
typedef struct fill_ctx {
    const clash_scene *sc;
    clash_edges *e;
    int first;
} fill_ctx;

static void object_fill(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    const fill_ctx *x = p;
    const clash_scene *sc = x->sc;
    clash_edges *e = x->e;
    for (int64_t i = begin; i < end; i += step) {
        const int o = x->first + (int)i;
        const edges_mesh *m = &e->mesh[sc->obj_mesh[o]];
        const int64_t e0 = e->eofs[o], v0 = sc->vofs[o];
        for (int64_t q = 0; q < m->ne; ++q) {
            e->ev0[e0 + q] = (uint32_t)clash_vert_store(sc, v0 + m->lo[q]);
            e->ev1[e0 + q] = (uint32_t)clash_vert_store(sc, v0 + m->hi[q]);
            e->eown[e0 + q] = CLASH_NO_EDGE;
        }
        for (int64_t v = 0; v < m->nv; ++v) e->vown[clash_vert_store(sc, v0 + v)] = CLASH_NO_EDGE;
        /* the owners: the smallest store face holding each vertex and edge
         * (CLASH_NO_EDGE is above every face, so "smaller" takes the first) */
        for (int64_t g = 0; g < m->nf; ++g) {
            const int64_t f = clash_face_store(sc, sc->fofs[o] + g);
            const int32_t fv[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
            for (int c = 0; c < 3; ++c) {
                const uint32_t l = m->fe[3 * g + c];
                e->fe[3 * f + c] = l == CLASH_NO_EDGE ? CLASH_NO_EDGE : (uint32_t)(e0 + l);
                if (l != CLASH_NO_EDGE && (uint32_t)f < e->eown[e0 + l]) e->eown[e0 + l] = (uint32_t)f;
                if ((uint32_t)f < e->vown[fv[c]]) e->vown[fv[c]] = (uint32_t)f;
            }
        }
    }
}

/* Room for n entries of size sz in *p (realloc; the old entries kept). */
static int grow_to(void **p, size_t n, size_t sz)
{
    void *q = realloc(*p, (n + 1) * sz);
    if (!q) return -1;
    *p = q;
    return 0;
}

int clash_edges_update(clash_edges **tp, const clash_scene *sc, const clash_exec *ex)
{
    clash_edges *e = *tp;
    if (!e) {
        if (!(e = calloc(1, sizeof *e)) || !(e->eofs = calloc(1, sizeof *e->eofs))) {
            free(e);
            return -1;
        }
        *tp = e;
    }
    if (e->nobj == sc->nobj) return 0;
    if (sc->nmesh > e->nmesh) {
        edges_mesh *mm = realloc(e->mesh, (size_t)sc->nmesh * sizeof *mm);
        if (!mm) return -1;
        memset(mm + e->nmesh, 0, (size_t)(sc->nmesh - e->nmesh) * sizeof *mm);
        e->mesh = mm, e->nmesh = sc->nmesh;
    }
    int64_t *ofs = realloc(e->eofs, ((size_t)sc->nobj + 1) * sizeof *ofs);
    if (!ofs) return -1;
    e->eofs = ofs;
    int64_t ne = e->eofs[e->nobj];
    for (int o = e->nobj; o < sc->nobj; ++o) {
        edges_mesh *m = &e->mesh[sc->obj_mesh[o]];
        if (!m->fe && mesh_build(&sc->mesh[sc->obj_mesh[o]], m)) return -1;
        if (ne + m->ne >= (int64_t)CLASH_NO_EDGE) return -1;
        e->eofs[o + 1] = ne += m->ne;
    }
    if (grow_to((void **)&e->ev0, (size_t)ne, sizeof *e->ev0) || grow_to((void **)&e->ev1, (size_t)ne, sizeof *e->ev1) ||
        grow_to((void **)&e->fe, 3 * (size_t)sc->nf, sizeof *e->fe) ||
        grow_to((void **)&e->eown, (size_t)ne, sizeof *e->eown) ||
        grow_to((void **)&e->vown, (size_t)sc->nv, sizeof *e->vown))
        return -1;
    fill_ctx x = {sc, e, e->nobj};
    if (clash_par_tasks(ex, sc->nobj - e->nobj, 1, object_fill, &x)) return -1;
    e->nobj = sc->nobj, e->ne = ne;
    return 0;
}

int clash_edges_object(const clash_edges *t, uint32_t e)
{
    int lo = 0, hi = t->nobj - 1; /* the last o with eofs[o] <= e */
    while (lo < hi) {
        const int m = (lo + hi + 1) / 2;
        if (t->eofs[m] <= (int64_t)e) lo = m;
        else hi = m - 1;
    }
    return lo;
}
