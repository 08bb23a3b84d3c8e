/*
 * broad_sap.c — all overlapping pairs among n boxes by sort-and-sweep in
 * columns (broad.h).
 *
 * A plain sweep along x is quadratic in disguise for a 3-D cloud: a box's
 * x-interval meets n^(2/3) others when boxes overlap ~once each.  So the
 * y-z plane is cut into a uniform grid of columns whose cell edge is twice
 * the mean box extent (at most 2n columns); every box goes into each column
 * its y-z rectangle touches (1 to 4, 2.25 on average for typical boxes), and
 * each column is swept along x:
 *
 *   1. sort all boxes once by lo_x (radix sort of (key(lo_x) << 32 | i));
 *   2. counting sort into columns, walking boxes in lo_x order, so every
 *      column's list comes out sorted by lo_x;
 *      each entry carries a copy of its box (32 bytes), so a column is one
 *      contiguous run of memory and the sweep never gathers;
 *   3. per column (the coarse-grain strategy hands columns out), sweep: for
 *      each box, the boxes after it until lo_x exceeds its hi_x; compare
 *      y and z;
 *   4. a pair seen in several columns is reported only by the column that
 *      holds the point (max lo_y, max lo_z) of the two boxes (the
 *      "reference point" rule): no de-duplication pass, no shared state.
 * Boxes spanning more than 64 columns (a ground plane among pebbles) are
 * kept out of the grid and tested against all boxes directly.
 * Non-finite boxes meet nothing.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stages/broad.h"
#include "base/sort.h"

static inline uint32_t float_key(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

typedef struct grid {
    float y0, z0, inv;
    int32_t ny, nz;
} grid;

static inline int32_t cell(float v, float o, float inv, int32_t n)
{
    const float c = (v - o) * inv;
    return c <= 0 ? 0 : c >= (float)(n - 1) ? n - 1 : (int32_t)c;
}

/* A box as stored in a column: 32 bytes, written once when distributing. */
typedef struct entry {
    float lx, hx, ly, hy, lz, hz;
    uint32_t id, pad_;
} entry;

typedef struct sctx {
    int64_t n;
    clash_boxes_soa bx;
    float grow;
    grid g;
    const int64_t *cofs;   /* column offsets, ncol + 1 */
    const entry *cent;     /* column entries, each column sorted by lx */
    const uint32_t *big;
    const uint8_t *isbig;
    int64_t nbig;
    clash_keybuf *out;
    int failed;
} sctx;

static inline int meets(const clash_boxes_soa *b, float g, uint32_t i, uint32_t j)
{
    return b->lox[i] <= b->hix[j] + g && b->lox[j] <= b->hix[i] + g && b->loy[i] <= b->hiy[j] + g &&
           b->loy[j] <= b->hiy[i] + g && b->loz[i] <= b->hiz[j] + g && b->loz[j] <= b->hiz[i] + g;
}

static inline int push_pair(clash_keybuf *kb, uint32_t i, uint32_t j)
{
    return clash_keybuf_push(kb, i < j ? (uint64_t)i << 32 | j : (uint64_t)j << 32 | i);
}

static void sweep_columns(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    sctx *c = p;
    clash_keybuf *kb = &c->out[worker];
    const grid G = c->g;
    for (int64_t col = begin; col < end; col += step) {
        const entry *e = c->cent + c->cofs[col];
        const int64_t k = c->cofs[col + 1] - c->cofs[col];
        if (k < 2) continue;
        const int32_t cy = (int32_t)(col / G.nz), cz = (int32_t)(col % G.nz);
        for (int64_t i = 0; i < k; ++i) {
            const float xi = e[i].hx, yl = e[i].ly, yh = e[i].hy, zl = e[i].lz, zh = e[i].hz;
            for (int64_t j = i + 1; j < k && e[j].lx <= xi; ++j) {
                if (!(e[j].ly <= yh && yl <= e[j].hy && e[j].lz <= zh && zl <= e[j].hz)) continue;
                /* reference point: report in the column holding (max lo_y, max lo_z) */
                const float ry = yl > e[j].ly ? yl : e[j].ly, rz = zl > e[j].lz ? zl : e[j].lz;
                if (cell(ry, G.y0, G.inv, G.ny) != cy || cell(rz, G.z0, G.inv, G.nz) != cz) continue;
                if (push_pair(kb, e[i].id, e[j].id)) {
                    c->failed = 1;
                    return;
                }
            }
        }
    }
}

static void sweep_big(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    sctx *c = p;
    clash_keybuf *kb = &c->out[worker];
    for (int64_t t = begin; t < end; t += step) {
        const uint32_t b = c->big[t];
        for (int64_t j = 0; j < c->n; ++j) {
            /* big-small pairs from the big box, big-big pairs from the smaller index */
            if (j == b || (c->isbig[j] && j < b) || !meets(&c->bx, c->grow, b, (uint32_t)j)) continue;
            if (!isfinite(c->bx.hix[j] - c->bx.lox[j]) || !isfinite(c->bx.hiy[j] - c->bx.loy[j]) ||
                !isfinite(c->bx.hiz[j] - c->bx.loz[j]))
                continue;
            if (push_pair(kb, b, (uint32_t)j)) {
                c->failed = 1;
                return;
            }
        }
    }
}

int clash_broad_sap(const clash_exec *ex, int64_t n, clash_boxes_soa bx, float grow, clash_keybuf *out)
{
    if (n < 2) return 0;
    int rc = -1;
    uint64_t *key = NULL, *tmp = NULL;
    int64_t *cofs = NULL;
    entry *cent = NULL, *box = NULL, *sbox = NULL;
    uint32_t *big = NULL;
    uint8_t *isbig = NULL;
    sctx c = {.n = n, .bx = bx, .grow = grow};
    /* grid over y-z: cell edge = twice the mean extent, at most ~2n columns */
    double ey = 0, ez = 0;
    float ylo = INFINITY, yhi = -INFINITY, zlo = INFINITY, zhi = -INFINITY;
    int64_t nfin = 0;
    for (int64_t i = 0; i < n; ++i) {
        const float dy = bx.hiy[i] - bx.loy[i], dz = bx.hiz[i] - bx.loz[i];
        if (!isfinite(dy) || !isfinite(dz) || !isfinite(bx.hix[i] - bx.lox[i])) continue;
        ey += dy, ez += dz, ++nfin;
        ylo = fminf(ylo, bx.loy[i]), yhi = fmaxf(yhi, bx.hiy[i]), zlo = fminf(zlo, bx.loz[i]), zhi = fmaxf(zhi, bx.hiz[i]);
    }
    if (nfin < 2) return 0;
    double e = (ey + ez) / (double)nfin + 2 * grow, span = fmax(yhi - ylo, zhi - zlo);
    if (!(e > 0)) e = span > 0 ? span / 16 : 1;
    double ncell = fmin(span / e + 1, 4096);
    while (ncell > 1 && ncell * ncell > 2.0 * (double)n) ncell *= 0.5;
    const grid G = {ylo, zlo, (float)(span > 0 ? (ncell - 1e-3) / span : 0), (int32_t)ncell, (int32_t)ncell};
    c.g = G;
    const int64_t ncol = (int64_t)G.ny * G.nz;
    key = malloc((size_t)n * sizeof *key);
    tmp = malloc((size_t)n * sizeof *tmp);
    cofs = calloc((size_t)ncol + 1, sizeof *cofs);
    isbig = calloc((size_t)n, 1);
    if (!key || !tmp || !cofs || !isbig) goto done;
    int64_t m = 0, nbig = 0;
    for (int64_t i = 0; i < n; ++i) {
        if (!isfinite(bx.hix[i] - bx.lox[i]) || !isfinite(bx.hiy[i] - bx.loy[i]) || !isfinite(bx.hiz[i] - bx.loz[i]))
            continue;
        const int64_t sy = cell(bx.hiy[i] + grow, G.y0, G.inv, G.ny) - cell(bx.loy[i], G.y0, G.inv, G.ny) + 1;
        const int64_t sz = cell(bx.hiz[i] + grow, G.z0, G.inv, G.nz) - cell(bx.loz[i], G.z0, G.inv, G.nz) + 1;
        if (sy * sz > 64) {
            isbig[i] = 1, ++nbig;
            continue;
        }
        key[m++] = (uint64_t)float_key(bx.lox[i]) << 32 | (uint32_t)i;
    }
    if (clash_sort_u64(key, (size_t)m, tmp)) goto done;
    /* Boxes in lo_x order as one array of entries: one random read per box
     * (from an AoS copy made sequentially), then both passes below stream. */
    box = malloc((size_t)n * sizeof *box);
    sbox = malloc((size_t)(m ? m : 1) * sizeof *sbox);
    if (!box || !sbox) goto done;
    for (int64_t i = 0; i < n; ++i)
        box[i] = (entry){bx.lox[i], bx.hix[i] + grow, bx.loy[i], bx.hiy[i] + grow, bx.loz[i], bx.hiz[i] + grow,
                         (uint32_t)i, 0};
    for (int64_t t = 0; t < m; ++t) sbox[t] = box[(uint32_t)key[t]];
    free(box), box = NULL;
    int64_t total = 0;
    for (int64_t t = 0; t < m; ++t) {
        const entry *b = &sbox[t];
        const int32_t y0 = cell(b->ly, G.y0, G.inv, G.ny), y1 = cell(b->hy, G.y0, G.inv, G.ny);
        const int32_t z0 = cell(b->lz, G.z0, G.inv, G.nz), z1 = cell(b->hz, G.z0, G.inv, G.nz);
        for (int32_t y = y0; y <= y1; ++y)
            for (int32_t z = z0; z <= z1; ++z) cofs[(int64_t)y * G.nz + z + 1]++, ++total;
    }
    for (int64_t k = 0; k < ncol; ++k) cofs[k + 1] += cofs[k];
    cent = malloc((size_t)(total ? total : 1) * sizeof *cent);
    big = malloc((size_t)(nbig ? nbig : 1) * sizeof *big);
    int64_t *fill = (int64_t *)tmp; /* reuse: ncol <= n */
    int64_t *own_fill = NULL;
    if (ncol > n) fill = own_fill = malloc((size_t)ncol * sizeof *fill);
    if (!cent || !big || !fill) {
        free(own_fill);
        goto done;
    }
    memcpy(fill, cofs, (size_t)ncol * sizeof *fill);
    for (int64_t t = 0; t < m; ++t) {
        const entry *b = &sbox[t];
        const int32_t y0 = cell(b->ly, G.y0, G.inv, G.ny), y1 = cell(b->hy, G.y0, G.inv, G.ny);
        const int32_t z0 = cell(b->lz, G.z0, G.inv, G.nz), z1 = cell(b->hz, G.z0, G.inv, G.nz);
        for (int32_t y = y0; y <= y1; ++y)
            for (int32_t z = z0; z <= z1; ++z) cent[fill[(int64_t)y * G.nz + z]++] = *b;
    }
    free(own_fill);
    nbig = 0;
    for (int64_t i = 0; i < n; ++i)
        if (isbig[i]) big[nbig++] = (uint32_t)i;
    c.cofs = cofs, c.cent = cent, c.big = big, c.nbig = nbig, c.out = out;
    if (clash_par_tasks(ex, ncol, 64, sweep_columns, &c) < 0) goto done;
    if (nbig) {
        /* big boxes against every box (finite ones; a non-finite box meets nothing) */
        c.isbig = isbig;
        if (clash_par_tasks(ex, nbig, 1, sweep_big, &c) < 0) goto done;
    }
    rc = c.failed ? -1 : 0;
done:
    free(key), free(tmp), free(cofs), free(cent), free(big), free(isbig), free(box), free(sbox);
    return rc;
}
