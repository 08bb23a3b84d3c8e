/*
 * localtree.c — the parts the object octrees (objoctree.c, [KTK94]/[KTAK94]) and the
 * spherical octrees (spherical.c, [TC96]) share; see localtree.h.
 *
 * One home per face.  In both papers a tree node carries the list of the
 * faces that meet it ([KTAK94] §5, the "special octree which associates the
 * black nodes with the faces inside of or intersecting them"; [TC96] §3.1, the
 * node's f-list), and the fine stage pairs the faces of interfering nodes.
 * A face then sits in every leaf it crosses, and two objects' leaf pairs
 * repeat the same face pairs many times over.  Worse, in swept mode the
 * narrow test intersects the hulls of each face's positions at s-1 and s,
 * and such a hull is not covered by the moved leaves the face crosses: a
 * hull point mixes a point of the face at s-1 with another at s, maybe in
 * another leaf.  So the trees are built as the papers say (nodes kept where
 * a face meets them), and then each face is linked to one leaf only, its
 * home: the leaf whose cube holds its centroid.  A leaf's bounding volume
 * is then enlarged to enclose its home faces whole, so any contact point —
 * static, or in a swept hull — lies in the moved volumes of the two faces'
 * homes.  On two spot meshes passing through each other the spherical
 * octrees' intersecting leaf pairs are far fewer than with the leaves'
 * own cubes, in swept mode most of all (there the f-lists had to take the
 * leaves' whole faces), and S4 takes much less time (bench/RESULTS.md).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stages/mid/localtree.h"

double lt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int lt_root(const clash_scene *sc, int o, int req, double faces_per_leaf, double centre[3], double *edge)
{
    const int64_t nf = sc->fofs[o + 1] - sc->fofs[o];
    if (nf <= 0) return -1;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, m = 0, esum = 0;
    for (int64_t v = sc->vofs[o]; v < sc->vofs[o + 1]; ++v) {
        const double p[3] = {sc->dlx[v], sc->dly[v], sc->dlz[v]};
        for (int d = 0; d < 3; ++d) lo[d] = fmin(lo[d], p[d]), hi[d] = fmax(hi[d], p[d]), m = fmax(m, fabs(p[d]));
    }
    for (int64_t f = sc->fofs[o]; f < sc->fofs[o + 1]; ++f) {
        double v[3][3], e = 0;
        lt_face_local(sc, (uint32_t)f, v);
        for (int d = 0; d < 3; ++d)
            e = fmax(e, fmax(v[0][d], fmax(v[1][d], v[2][d])) - fmin(v[0][d], fmin(v[1][d], v[2][d])));
        esum += e;
    }
    double e = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    e = fmax(e * (1 + 1e-6), 1e-6 * (1 + m));
    const double mean = fmax(esum / (double)nf, e * 1e-6);
    int L = (int)lround(log2(e / (faces_per_leaf * mean)));
    if (req > 0) {
        const int cap = (int)ceil(log2(4 * e / mean));
        L = req < cap ? req : cap;
    }
    for (int d = 0; d < 3; ++d) centre[d] = 0.5 * (lo[d] + hi[d]);
    *edge = e;
    return L < 0 ? 0 : L > 12 ? 12 : L;
}

int lt_homes(const clash_scene *sc, int64_t f0, int64_t nf, size_t nleaf, const int32_t *fofs,
             const uint32_t *face, const double *cube, int32_t *hofs, uint32_t *hface)
{
    int32_t *home = malloc(sizeof(int32_t) * (size_t)(nf + 1));
    if (!home) return -1;
    for (int64_t i = 0; i < nf; ++i) home[i] = -1;
    for (int pass = 0; pass < 2; ++pass)
        for (size_t l = 0; l < nleaf; ++l) {
            const double *cb = cube + 4 * l;
            for (int32_t x = fofs[l]; x < fofs[l + 1]; ++x) {
                const int64_t i = face[x] - f0;
                if (home[i] >= 0) continue;
                double v[3][3];
                lt_face_local(sc, face[x], v);
                int in = 1;
                for (int d = 0; d < 3; ++d) in &= fabs((v[0][d] + v[1][d] + v[2][d]) / 3 - cb[d]) <= cb[3];
                if (in || pass) home[i] = (int32_t)l;
            }
        }
    memset(hofs, 0, sizeof(int32_t) * (nleaf + 1));
    for (int64_t i = 0; i < nf; ++i) hofs[home[i] + 1]++;
    for (size_t l = 0; l < nleaf; ++l) hofs[l + 1] += hofs[l];
    for (int64_t i = 0; i < nf; ++i) hface[hofs[home[i]]++] = (uint32_t)(f0 + i);
    for (size_t l = nleaf; l > 0; --l) hofs[l] = hofs[l - 1];
    hofs[0] = 0;
    free(home);
    return 0;
}

int lt_pairs(const clash_run *run, clash_keybuf *kb, const uint32_t *fa, int32_t na, const uint32_t *fb, int32_t nb,
             int one_list)
{
    const float d = 2 * run->boxes->delta; /* clash_faceboxes_overlap's predicate, a's box loaded once */
    for (int32_t x = 0; x < na; ++x) {
        const uint32_t f = fa[x];
        const float lx = run->boxes->lox[f], ly = run->boxes->loy[f], lz = run->boxes->loz[f];
        const float hx = run->boxes->hix[f] + d, hy = run->boxes->hiy[f] + d, hz = run->boxes->hiz[f] + d;
        for (int32_t y = one_list ? x + 1 : 0; y < nb; ++y) {
            const uint32_t g = fb[y];
            if (!(run->boxes->lox[g] <= hx && lx <= run->boxes->hix[g] + d && run->boxes->loy[g] <= hy && ly <= run->boxes->hiy[g] + d &&
                  run->boxes->loz[g] <= hz && lz <= run->boxes->hiz[g] + d))
                continue;
            const uint32_t lo = f < g ? f : g, hi = f < g ? g : f;
            if (clash_pair_eligible(run, lo, hi) && clash_keybuf_push(kb, (uint64_t)lo << 32 | hi)) return -1;
        }
    }
    return 0;
}
