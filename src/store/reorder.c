/*
 * reorder.c — the scene store's faces and vertices along the Morton curve,
 * optionally, for locality.
 *
 * Within each object the faces are sorted by the Morton code (10 bits an
 * axis) of their centroid in the reference geometry (the object's local
 * copy of its mesh, lx/ly/lz: for a deforming scene file that is frame 0),
 * ties kept in the current
 * order; the vertices are then numbered by their first use in the new face
 * order (a vertex no face uses keeps its place after them).  Faces close in
 * space become close in memory, so the gathers of S1, S3, S4 and S5 touch
 * fewer cache lines: the effect is measured by `clash bench cache`
 * (bench/RESULTS.md).
 *
 * clash_store_shuffle puts the faces in a random order instead (the same
 * renumbering of vertices by first use): the no-locality end of the
 * benchmarks of input order.
 *
 * Only the store is permuted.  Everything users see keeps the numbering of
 * the input: the scene keeps both permutations (scene.h, clash_face_orig /
 * clash_face_store and the vertex pair), the pipeline's gather maps every
 * pair back and re-sorts, the VTK writer writes points and faces in input
 * order and clash_scene_vertex_at takes input vertex numbers.  So the pairs,
 * their checksum and the VTK files are byte-identical with and without
 * reordering (tests/unit/test_reorder.c).
 */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "store/scene.h"
#include "base/sort.h"

/* Spreads the low 10 bits of x to every third bit. */
static uint32_t spread3(uint32_t x)
{
    x &= 0x3ff;
    x = (x | x << 16) & 0x030000ff;
    x = (x | x << 8) & 0x0300f00f;
    x = (x | x << 4) & 0x030c30c3;
    x = (x | x << 2) & 0x09249249;
    return x;
}

/* The reference position of store vertex v, coordinate d. */
static float ref_coord(const clash_scene *sc, int64_t v, int d)
{
    const float *a = d == 0 ? sc->lx : d == 1 ? sc->ly : sc->lz;
    return a[v];
}

/* Applies the vertex permutation old -> vnew[old] to one float array. */
static void permute_f(float *a, const int64_t *vnew, int64_t nv, float *tmp)
{
    if (!a) return;
    for (int64_t v = 0; v < nv; ++v) tmp[vnew[v]] = a[v];
    memcpy(a, tmp, (size_t)nv * sizeof *a);
}

/* The same for one double array. */
static void permute_d(double *a, const int64_t *vnew, int64_t nv, double *tmp)
{
    if (!a) return;
    for (int64_t v = 0; v < nv; ++v) tmp[vnew[v]] = a[v];
    memcpy(a, tmp, (size_t)nv * sizeof *a);
}

int clash_scene_reorder_morton(clash_scene *sc, clash_error *err) { return clash_store_reorder_from(sc, 0, err); }

/* The maps between store and input numbering (the identity), made before
 * the first reordering moves anything; 0, or -1 when out of memory. */
static int ensure_maps(clash_scene *sc)
{
    if (sc->face_orig) return 0;
    const int64_t nv = sc->nv, nf = sc->nf;
    sc->face_orig = malloc((size_t)(nf ? nf : 1) * sizeof *sc->face_orig);
    sc->face_store = malloc((size_t)(nf ? nf : 1) * sizeof *sc->face_store);
    sc->vert_orig = malloc((size_t)(nv ? nv : 1) * sizeof *sc->vert_orig);
    sc->vert_store = malloc((size_t)(nv ? nv : 1) * sizeof *sc->vert_store);
    if (sc->face_orig && sc->face_store && sc->vert_orig && sc->vert_store) {
        for (int64_t i = 0; i < nf; ++i) sc->face_orig[i] = sc->face_store[i] = (uint32_t)i;
        for (int64_t v = 0; v < nv; ++v) sc->vert_orig[v] = sc->vert_store[v] = (uint32_t)v;
        clash_store_recount(sc);
        return 0;
    }
    free(sc->face_orig), free(sc->face_store), free(sc->vert_orig), free(sc->vert_store);
    sc->face_orig = sc->face_store = sc->vert_orig = sc->vert_store = NULL;
    return -1;
}

static int apply_order(clash_scene *sc, int first, const int64_t *fold, clash_error *err);

/* fold[new face] = old face: within each object from `first` on, by the
 * Morton code of the face's centroid (ties: current order). */
static int morton_order(clash_scene *sc, int first, int64_t *fold)
{
    const int64_t nf = sc->nf;
    uint64_t *key = malloc((size_t)(nf ? nf : 1) * sizeof *key);
    if (!key) return -1;
    for (int64_t f = 0; f < sc->fofs[first]; ++f) fold[f] = f; /* the objects before first keep their order */
    for (int o = first; o < sc->nobj; ++o) {
        const int64_t a = sc->fofs[o], b = sc->fofs[o + 1];
        if (b == a) continue;
        /* centroids' bounding box, then 10-bit cells per axis */
        double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
        for (int64_t f = a; f < b; ++f)
            for (int d = 0; d < 3; ++d) {
                const double c = ((double)ref_coord(sc, sc->f0[f], d) + ref_coord(sc, sc->f1[f], d) +
                                  ref_coord(sc, sc->f2[f], d)) / 3.0;
                if (f == a || c < lo[d]) lo[d] = c;
                if (f == a || c > hi[d]) hi[d] = c;
            }
        for (int64_t f = a; f < b; ++f) {
            uint32_t code = 0;
            for (int d = 0; d < 3; ++d) {
                const double c = ((double)ref_coord(sc, sc->f0[f], d) + ref_coord(sc, sc->f1[f], d) +
                                  ref_coord(sc, sc->f2[f], d)) / 3.0;
                const double t = hi[d] > lo[d] ? (c - lo[d]) / (hi[d] - lo[d]) * 1023.0 : 0.0;
                code |= spread3((uint32_t)(t < 0 ? 0 : t > 1023 ? 1023 : t)) << d;
            }
            key[f - a] = (uint64_t)code << 32 | (uint64_t)(f - a); /* ties: current order */
        }
        if (clash_sort_u64(key, (size_t)(b - a), NULL)) {
            free(key);
            return -1;
        }
        for (int64_t i = 0; i < b - a; ++i) fold[a + i] = a + (int64_t)(uint32_t)key[i];
    }
    free(key);
    return 0;
}

int clash_store_reorder_from(clash_scene *sc, int first, clash_error *err)
{
    int64_t *fold = malloc((size_t)(sc->nf ? sc->nf : 1) * sizeof *fold); /* new face -> old face */
    int rc = !fold || morton_order(sc, first, fold)
                 ? clash_fail(err, CLASH_EFAIL, "%s: out of memory reordering the scene", sc->name)
                 : apply_order(sc, first, fold, err);
    if (!rc) sc->morton_nobj = sc->nobj;
    free(fold);
    return rc;
}

/* splitmix64: the shuffle's generator (a fixed function of the seed, so the
 * same seed gives the same order on every machine). */
static uint64_t mix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

int clash_store_shuffle(clash_scene *sc, uint64_t seed, clash_error *err)
{
    int64_t *fold = malloc((size_t)(sc->nf ? sc->nf : 1) * sizeof *fold);
    if (!fold) return clash_fail(err, CLASH_EFAIL, "%s: out of memory shuffling the scene", sc->name);
    uint64_t s = seed;
    for (int o = 0; o < sc->nobj; ++o) { /* Fisher-Yates within each object's range */
        const int64_t a = sc->fofs[o], b = sc->fofs[o + 1];
        for (int64_t i = a; i < b; ++i) fold[i] = i;
        for (int64_t i = b - 1; i > a; --i) {
            const int64_t j = a + (int64_t)(mix64(&s) % (uint64_t)(i - a + 1)), t = fold[i];
            fold[i] = fold[j], fold[j] = t;
        }
    }
    const int rc = apply_order(sc, 0, fold, err);
    if (!rc) sc->morton_nobj = 0; /* no longer in Morton order: a run's reordering applies again */
    free(fold);
    return rc;
}

/* Puts the faces of objects first.. in the order fold (new -> old) and
 * renumbers their vertices by first use in it; composes the input maps. */
static int apply_order(clash_scene *sc, int first, const int64_t *fold, clash_error *err)
{
    const int64_t nv = sc->nv, nf = sc->nf;
    int64_t *vnew = malloc((size_t)(nv ? nv : 1) * sizeof *vnew); /* old vertex -> new vertex */
    double *tmpd = malloc((size_t)(nv > nf ? nv : nf ? nf : 1) * sizeof *tmpd); /* (a float's room too) */
    float *tmp = (float *)tmpd;
    uint32_t *forig = malloc((size_t)(nf ? nf : 1) * sizeof *forig);
    uint32_t *vorig = malloc((size_t)(nv ? nv : 1) * sizeof *vorig);
    int32_t *g = malloc((size_t)(nf ? nf : 1) * sizeof *g);
    int rc = CLASH_OK;
    if (ensure_maps(sc) || !vnew || !tmp || !forig || !vorig || !g) {
        rc = clash_fail(err, CLASH_EFAIL, "%s: out of memory reordering the scene", sc->name);
        goto done;
    }
    /* vertices: first use in the new face order, object by object */
    for (int64_t v = 0; v < nv; ++v) vnew[v] = v < sc->vofs[first] ? v : -1;
    for (int o = first; o < sc->nobj; ++o) {
        int64_t next = sc->vofs[o];
        for (int64_t i = sc->fofs[o]; i < sc->fofs[o + 1]; ++i) {
            const int64_t f = fold[i];
            const int32_t fv[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
            for (int k = 0; k < 3; ++k)
                if (vnew[fv[k]] < 0) vnew[fv[k]] = next++;
        }
        for (int64_t v = sc->vofs[o]; v < sc->vofs[o + 1]; ++v)
            if (vnew[v] < 0) vnew[v] = next++;
    }
    /* faces: indices remapped, then permuted; the input numbering composed */
    for (int64_t i = 0; i < nf; ++i) g[i] = (int32_t)vnew[sc->f0[fold[i]]];
    for (int64_t i = 0; i < nf; ++i) forig[i] = sc->face_orig[fold[i]];
    memcpy(sc->f0, g, (size_t)nf * sizeof *g);
    for (int64_t i = 0; i < nf; ++i) g[i] = (int32_t)vnew[sc->f1[fold[i]]];
    memcpy(sc->f1, g, (size_t)nf * sizeof *g);
    for (int64_t i = 0; i < nf; ++i) g[i] = (int32_t)vnew[sc->f2[fold[i]]];
    memcpy(sc->f2, g, (size_t)nf * sizeof *g);
    for (int64_t v = 0; v < nv; ++v) vorig[vnew[v]] = sc->vert_orig[v];
    permute_f(sc->x, vnew, nv, tmp), permute_f(sc->y, vnew, nv, tmp), permute_f(sc->z, vnew, nv, tmp);
    permute_f(sc->px, vnew, nv, tmp), permute_f(sc->py, vnew, nv, tmp), permute_f(sc->pz, vnew, nv, tmp);
    permute_f(sc->lx, vnew, nv, tmp), permute_f(sc->ly, vnew, nv, tmp), permute_f(sc->lz, vnew, nv, tmp);
    permute_d(sc->dx, vnew, nv, tmpd), permute_d(sc->dy, vnew, nv, tmpd), permute_d(sc->dz, vnew, nv, tmpd);
    permute_d(sc->dpx, vnew, nv, tmpd), permute_d(sc->dpy, vnew, nv, tmpd), permute_d(sc->dpz, vnew, nv, tmpd);
    permute_d(sc->dlx, vnew, nv, tmpd), permute_d(sc->dly, vnew, nv, tmpd), permute_d(sc->dlz, vnew, nv, tmpd);
    permute_d(sc->nx, vnew, nv, tmpd), permute_d(sc->ny, vnew, nv, tmpd), permute_d(sc->nz, vnew, nv, tmpd);
    /* frames cover the first frames_nv vertices, which objects' ranges keep together */
    for (int k = 0; k < sc->nframes; ++k) /* (frames not held are NULL) */
        for (int d = 0; d < 3 && sc->frames[k]; ++d)
            permute_d(sc->frames[k] + (size_t)d * (size_t)sc->frames_nv, vnew, sc->frames_nv, tmpd);
    /* the maps both ways, composed with any earlier reordering */
    memcpy(sc->face_orig, forig, (size_t)nf * sizeof *forig);
    memcpy(sc->vert_orig, vorig, (size_t)nv * sizeof *vorig);
    for (int64_t i = 0; i < nf; ++i) sc->face_store[forig[i]] = (uint32_t)i;
    for (int64_t v = 0; v < nv; ++v) sc->vert_store[vorig[v]] = (uint32_t)v;
    sc->layout_gen++; /* the block boxes (blocks.c) are made again */
    sc->xgen = sc->pxgen = 0; /* positions written here: a run keeps nothing derived from them */
done:
    free(vnew), free(tmpd), free(forig), free(vorig), free(g);
    return rc;
}
