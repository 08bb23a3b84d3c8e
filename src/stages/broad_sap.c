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
 *   1. counting sort into columns, walking the boxes in input order (two
 *      streaming passes over the SoA arrays: count, then scatter); each
 *      entry carries a copy of its box (32 bytes), so a column is one
 *      contiguous run of memory and the sweep never gathers;
 *   2. per column (the coarse-grain strategy hands columns out), sort the
 *      column's entries by lo_x (a bucket sort, in cache: sort_column),
 *      then sweep: for each box,
 *      the boxes after it until lo_x exceeds its hi_x; compare y and z;
 *      (sorting every box once by lo_x before the distribution, so that the
 *      columns came out sorted, cost a radix sort of n keys and one random
 *      read per box, where most of the time of a million boxes went;
 *      bench/RESULTS.md)
 *   3. a pair seen in several columns is reported only by the column that
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
    const entry *cent;     /* column entries, in input order within a column */
    int64_t kmax;          /* the longest column */
    uint64_t *skey;        /* per worker: 2 kmax sort keys and scratch */
    entry *sent;           /* per worker: kmax entries, one column sorted by lx */
    uint32_t *scnt;        /* per worker: kmax + 1 bucket counts */
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

/* Sorts the k entries of a column by lo_x into out.  Keys float_key(lo_x)
 * << 32 | place; a column holds a few hundred (10^6 random boxes: about
 * 220), so rather than a radix sort (its count arrays cost more than the
 * keys) the keys are dealt into k buckets by lo_x between the column's
 * smallest and largest, then an insertion sort finishes (each key moves
 * within its bucket).  A bucket over 64 keys (clustered lo_x) sends the
 * column to the radix sort, so no column costs k^2.  cnt: k + 1 slots,
 * tmp: k keys. */
static void sort_column(const entry *e, int64_t k, uint64_t *key, uint64_t *tmp, uint32_t *cnt, entry *out)
{
    float x0 = e[0].lx, x1 = e[0].lx;
    for (int64_t i = 1; i < k; ++i) x0 = e[i].lx < x0 ? e[i].lx : x0, x1 = e[i].lx > x1 ? e[i].lx : x1;
    const float sc = x1 > x0 ? (float)k / (x1 - x0) : 0;
    memset(cnt, 0, (size_t)(k + 1) * sizeof *cnt);
    uint32_t most = 0;
    for (int64_t i = 0; i < k; ++i) {
        int64_t b = (int64_t)((e[i].lx - x0) * sc);
        b = b < 0 ? 0 : b >= k ? k - 1 : b;
        tmp[i] = (uint64_t)b; /* the bucket, for the scatter */
        most = ++cnt[b + 1] > most ? cnt[b + 1] : most;
    }
    for (int64_t b = 0; b < k; ++b) cnt[b + 1] += cnt[b];
    for (int64_t i = 0; i < k; ++i) key[cnt[tmp[i]]++] = (uint64_t)float_key(e[i].lx) << 32 | (uint32_t)i;
    if (most > 64)
        clash_sort_u64(key, (size_t)k, tmp);
    else
        for (int64_t i = 1; i < k; ++i) {
            const uint64_t v = key[i];
            int64_t j = i;
            for (; j > 0 && key[j - 1] > v; --j) key[j] = key[j - 1];
            key[j] = v;
        }
    for (int64_t i = 0; i < k; ++i) out[i] = e[(uint32_t)key[i]];
}

static void sweep_columns(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    sctx *c = p;
    clash_keybuf *kb = &c->out[worker];
    const grid G = c->g;
    uint64_t *key = c->skey + (size_t)worker * 2 * (size_t)c->kmax, *tmp = key + c->kmax;
    uint32_t *cnt = c->scnt + (size_t)worker * (size_t)(c->kmax + 1);
    entry *e = c->sent + (size_t)worker * (size_t)c->kmax;
    for (int64_t col = begin; col < end; col += step) {
        const int64_t k = c->cofs[col + 1] - c->cofs[col];
        if (k < 2) continue;
        sort_column(c->cent + c->cofs[col], k, key, tmp, cnt, e);
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
    int64_t *cofs = NULL, *fill = NULL;
    uint64_t *cells = NULL;
    entry *cent = NULL;
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
        /* compare-and-select: fminf/fmaxf stay library calls (they must handle NaN; these are finite) */
        ylo = bx.loy[i] < ylo ? bx.loy[i] : ylo, yhi = bx.hiy[i] > yhi ? bx.hiy[i] : yhi;
        zlo = bx.loz[i] < zlo ? bx.loz[i] : zlo, zhi = bx.hiz[i] > zhi ? bx.hiz[i] : zhi;
    }
    if (nfin < 2) return 0;
    double e = (ey + ez) / (double)nfin + 2 * grow, span = fmax(yhi - ylo, zhi - zlo);
    if (!(e > 0)) e = span > 0 ? span / 16 : 1;
    double ncell = fmin(span / e + 1, 4096);
    while (ncell > 1 && ncell * ncell > 2.0 * (double)n) ncell *= 0.5;
    const grid G = {ylo, zlo, (float)(span > 0 ? (ncell - 1e-3) / span : 0), (int32_t)ncell, (int32_t)ncell};
    c.g = G;
    const int64_t ncol = (int64_t)G.ny * G.nz;
    cofs = calloc((size_t)ncol + 1, sizeof *cofs);
    isbig = calloc((size_t)n, 1);
    cells = malloc((size_t)n * sizeof *cells); /* each box's column ranges, for the dealing pass */
    if (!cofs || !isbig || !cells) goto done;
    int64_t nbig = 0, total = 0;
    for (int64_t i = 0; i < n; ++i) {
        if (!isfinite(bx.hix[i] - bx.lox[i]) || !isfinite(bx.hiy[i] - bx.loy[i]) || !isfinite(bx.hiz[i] - bx.loz[i])) {
            isbig[i] = 2; /* meets nothing */
            continue;
        }
        const int32_t y0 = cell(bx.loy[i], G.y0, G.inv, G.ny), y1 = cell(bx.hiy[i] + grow, G.y0, G.inv, G.ny);
        const int32_t z0 = cell(bx.loz[i], G.z0, G.inv, G.nz), z1 = cell(bx.hiz[i] + grow, G.z0, G.inv, G.nz);
        if ((int64_t)(y1 - y0 + 1) * (z1 - z0 + 1) > 64) {
            isbig[i] = 1, ++nbig;
            continue;
        }
        cells[i] = (uint64_t)(uint16_t)y0 | (uint64_t)(uint16_t)y1 << 16 | (uint64_t)(uint16_t)z0 << 32 |
                   (uint64_t)(uint16_t)z1 << 48;
        for (int32_t y = y0; y <= y1; ++y)
            for (int32_t z = z0; z <= z1; ++z) cofs[(int64_t)y * G.nz + z + 1]++;
        total += (int64_t)(y1 - y0 + 1) * (z1 - z0 + 1);
    }
    int64_t kmax = 0;
    for (int64_t k = 0; k < ncol; ++k) kmax = cofs[k + 1] > kmax ? cofs[k + 1] : kmax, cofs[k + 1] += cofs[k];
    const size_t T = (size_t)(ex->threads > 0 ? ex->threads : 1);
    cent = malloc((size_t)(total ? total : 1) * sizeof *cent);
    big = malloc((size_t)(nbig ? nbig : 1) * sizeof *big);
    fill = malloc((size_t)(ncol ? ncol : 1) * sizeof *fill);
    c.skey = malloc(T * 2 * (size_t)(kmax ? kmax : 1) * sizeof *c.skey);
    c.sent = malloc(T * (size_t)(kmax ? kmax : 1) * sizeof *c.sent);
    c.scnt = malloc(T * (size_t)(kmax + 1) * sizeof *c.scnt);
    if (!cent || !big || !fill || !c.skey || !c.sent || !c.scnt) goto done;
    c.kmax = kmax;
    memcpy(fill, cofs, (size_t)ncol * sizeof *fill);
    nbig = 0;
    for (int64_t i = 0; i < n; ++i) {
        if (isbig[i]) {
            if (isbig[i] == 1) big[nbig++] = (uint32_t)i;
            continue;
        }
        const entry b = {bx.lox[i], bx.hix[i] + grow, bx.loy[i], bx.hiy[i] + grow, bx.loz[i], bx.hiz[i] + grow,
                         (uint32_t)i, 0};
        const uint64_t cc = cells[i];
        const int32_t y0 = (int32_t)(cc & 0xffff), y1 = (int32_t)(cc >> 16 & 0xffff);
        const int32_t z0 = (int32_t)(cc >> 32 & 0xffff), z1 = (int32_t)(cc >> 48);
        for (int32_t y = y0; y <= y1; ++y)
            for (int32_t z = z0; z <= z1; ++z) cent[fill[(int64_t)y * G.nz + z]++] = b;
    }
    for (int64_t i = 0; i < n; ++i) isbig[i] = isbig[i] == 1; /* sweep_big: 1 for the big boxes only */
    c.cofs = cofs, c.cent = cent, c.big = big, c.nbig = nbig, c.out = out;
    if (clash_par_tasks(ex, ncol, 64, sweep_columns, &c) < 0) goto done;
    if (nbig) {
        /* big boxes against every box (finite ones; a non-finite box meets nothing) */
        c.isbig = isbig;
        if (clash_par_tasks(ex, nbig, 1, sweep_big, &c) < 0) goto done;
    }
    rc = c.failed ? -1 : 0;
done:
    free(cofs), free(fill), free(cells), free(cent), free(big), free(isbig), free(c.skey), free(c.sent), free(c.scnt);
    return rc;
}
