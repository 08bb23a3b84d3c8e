/*
 * edges.c — building each object's edge table (edges.h): per object, every
 * face edge as the key j << 32 | i of its input-numbered ends (i < j), sorted
 * and de-duplicated, which is exactly "ordered by j, then i"; then each
 * face's three edges found by binary search in its object's sorted keys.
 * O(F log F) once per run.
 */
#include "core/edges.h"

#include <stdlib.h>

#include "base/sort.h"

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

void clash_edges_free(clash_edges *e)
{
    if (!e) return;
    free(e->eofs), free(e->ev0), free(e->ev1), free(e->fe);
    free(e);
}

/* The key of the edge between store vertices a and b of object o (input
 * numbers local to the object), or 0 with *ok = 0 when a and b are one vertex. */
static uint64_t edge_key(const clash_scene *sc, int o, int32_t a, int32_t b, int *ok)
{
    const int64_t ia = clash_vert_orig(sc, a) - sc->vofs[o], ib = clash_vert_orig(sc, b) - sc->vofs[o];
    *ok = ia != ib;
    const uint64_t i = (uint64_t)(ia < ib ? ia : ib), j = (uint64_t)(ia < ib ? ib : ia);
    return j << 32 | i;
}

clash_edges *clash_edges_build(const clash_scene *sc)
{
    const size_t nf = (size_t)sc->nf;
    clash_edges *e = calloc(1, sizeof *e);
    uint64_t *keys = malloc((3 * nf + 1) * sizeof *keys);
    if (!e || !keys) goto oom;
    e->nobj = sc->nobj;
    e->eofs = calloc((size_t)sc->nobj + 1, sizeof *e->eofs);
    e->ev0 = malloc((3 * nf + 1) * sizeof *e->ev0);
    e->ev1 = malloc((3 * nf + 1) * sizeof *e->ev1);
    e->fe = malloc((3 * nf + 1) * sizeof *e->fe);
    if (!e->eofs || !e->ev0 || !e->ev1 || !e->fe) goto oom;
    const int32_t *fv[3] = {sc->f0, sc->f1, sc->f2};
    for (int o = 0; o < sc->nobj; ++o) {
        uint64_t *k = keys + e->eofs[o];
        int64_t n = 0;
        for (int64_t f = sc->fofs[o]; f < sc->fofs[o + 1]; ++f)
            for (int c = 0; c < 3; ++c) {
                int ok;
                const uint64_t key = edge_key(sc, o, fv[c][f], fv[(c + 1) % 3][f], &ok);
                if (ok) k[n++] = key;
            }
        const size_t m = clash_sort_unique_u64(k, (size_t)n);
        if (m == (size_t)-1) goto oom;
        e->eofs[o + 1] = e->eofs[o] + (int64_t)m;
        if (e->eofs[o + 1] >= (int64_t)CLASH_NO_EDGE) goto oom;
        for (size_t q = 0; q < m; ++q) {
            e->ev0[e->eofs[o] + (int64_t)q] = (uint32_t)clash_vert_store(sc, sc->vofs[o] + (int64_t)(k[q] & 0xffffffffu));
            e->ev1[e->eofs[o] + (int64_t)q] = (uint32_t)clash_vert_store(sc, sc->vofs[o] + (int64_t)(k[q] >> 32));
        }
        for (int64_t f = sc->fofs[o]; f < sc->fofs[o + 1]; ++f)
            for (int c = 0; c < 3; ++c) {
                int ok;
                const uint64_t key = edge_key(sc, o, fv[c][f], fv[(c + 1) % 3][f], &ok);
                e->fe[3 * f + c] = ok ? (uint32_t)(e->eofs[o] + find_key(k, (int64_t)m, key)) : CLASH_NO_EDGE;
            }
    }
    e->ne = e->eofs[sc->nobj];
    free(keys);
    return e;
oom:
    free(keys);
    clash_edges_free(e);
    return NULL;
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
