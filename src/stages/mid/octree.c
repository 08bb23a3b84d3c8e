/*
 * octree.c — stage S4, the face octree of the report ([Smith94] §3.3.5).
 *
 * The faces kept by S3 are sorted into the cells of an octree whose root is
 * the cube around their boxes.  A cell is subdivided into its 8 children
 * only while it holds faces that could still form a pair (faces of two or
 * more objects; with self-collision, two or more faces of one object).
 * Nothing is allocated for the tree: a cell is a cube on the recursion stack
 * and its face list a slice of a per-worker scratch stack.  A cell is split
 * in one pass over its faces: each face's grown box is compared with the
 * three mid-planes, giving the mask of the children it reaches, the count of
 * each child and whether a child holds two objects; a second pass scatters
 * the faces into the slices of the children that may pair (lists stay
 * ascending).
 *
 * In each leaf voxel every eligible pair whose (slightly grown) face boxes
 * overlap, and, in static mode, whose two faces pass the report's exact
 * triangle/box test against the voxel, becomes a candidate.  The exact test
 * runs at the leaves only, and lazily: once per face and leaf, for a face
 * that has a partner there.  A face that meets a leaf meets every ancestor
 * cell, so the candidates are those of the test at every level, for far
 * fewer tests (on two bunnies, under 75,000 per step for 99,512 kept faces
 * at level 7).  In swept mode a face is in a voxel when its swept box is
 * (the box of its six positions): the exact test there, the hull of the six
 * positions against the voxel (a GJK), passes nearly every face it tests
 * and removes very few candidates for a large share of the run's
 * instructions on the cluttered spheres (bench/RESULTS.md);
 * the report (§4) does not say how a swept face meets a voxel.
 *
 * Swept mode tests more than the boxes: a pair must also overlap in ten
 * diagonal slabs, each face's 26-DOP (kernels/face_dops.c, made with S5's rows
 * before the descent, stages/face_rows.c), widened by the face's share of the
 * tolerance S5 tests with, so that a pair dropped there is one S5 would
 * find apart.  A swept face is a long slanted prism when its object moves
 * far in a step, and its box mostly empty: on the large cluttered scenes
 * the slabs drop most of the box test's candidates, with the same pairs,
 * and the step is shorter (bench/RESULTS.md).
 *
 * Swept mode also makes each pair once, in one leaf of one unit.  A face
 * carries, per axis, whether it also meets the cell below its cell (set
 * when it goes to an upper child and its mask reaches the lower one; a
 * lower child keeps its cell's bit).  Two faces that both meet the lower
 * half on an axis meet in a lower leaf too (each one's interval on that
 * axis holds points on both sides of the plane, so holds the plane), where
 * the same box test holds, so a leaf makes a pair only when their bits
 * share no axis: the lowest common child at every split, one leaf in all.
 * (Not in static mode, where the exact voxel test may fail in that leaf and
 * pass in another.)  At a unit's root the bits come from the binning
 * (octree_units.c): set on an axis where the binning also put the face in
 * the grid cell below.  Two faces that both have it are both in that cell,
 * which may then pair (two objects) and so is a unit; its descent sends
 * both to the leaves beside the shared border, as it tests the mid-planes
 * only (a face just above the cell goes to its upper children); and on the
 * two other axes its planes are the same doubles as this unit's, so the
 * leaf column they share here is there too.  The pair is made in the
 * lowest such unit and nowhere else; a unit split further (big units,
 * octree_units.c's split_cell) passes the bits on as a descent does.  On
 * the swept cluttered spheres a good part of the keys had been repeats
 * across units, and S4 spends fewer instructions without them
 * (bench/RESULTS.md).  The report puts a pair in the
 * check list "only if it was not previously put there"; here each worker
 * appends to its own buffer and the buffers are merged (octree_merge.c):
 * grouped by first face, and in static mode, under MPI and for
 * producer-consumer de-duplicated or sorted (no shared hash, and an order
 * that never depends on the schedule).
 *
 * Work units are the cells of level U = level - 2 (at most 5: 32^3 cells;
 * under MPI one level further down, octree_units.c) that may pair, found by binning in parallel rather than by descending:
 * every worker bins its block of the kept faces into the grid (the cells of
 * each face from an AVX2 kernel, kernels/octree_cells.c; count, and note
 * whether two objects came to each cell, which says whether it may
 * pair; then scatter into the cells that may, at positions ordered by cell
 * and then by worker, so every cell's list is ascending whatever the team
 * size).  A unit holding more than 1/32
 * of the kept faces (at least 256) is split further: a big object pair is
 * spread over many subtrees and cannot starve the others (Zachmann §3.10:
 * often one pair of objects holds almost all candidates).  The unit list
 * depends on the scene and on whether there are several ranks, never on
 * the thread or rank count.
 *
 * Keys.  With the rows made (swept mode), a leaf keys its pairs
 * by the faces' places in run->cull->kept, which it reads for the DOPs anyway
 * (run->mid->cand.by_place; the same order as the face numbers): the merge's
 * buckets and S5's rows then need no place looked up a key, and S6 and
 * the CCD stage map the hits back to faces (clash_cand_faces).  On 1,000
 * x 3,024 swept spheres the step took 0.98 of its time (bench/RESULTS.md).
 *
 * Distribution.  Under MPI each rank takes its share of the units
 * (ranks.h: by estimated cost, the pairs of two objects' faces a unit
 * holds, octree_units.c; static-stride deals them out in the order of that
 * cost) and makes and tests only their candidates (run->mid->cand.local), on
 * the same kind of rows and keys as one rank (the rows of its own units'
 * faces alone); S6 sorts each rank's hits and rank 0 merges
 * the ranks' sorted hits, so no rank goes over the others' work.
 * Inside a rank the coarse-grain strategy hands the units to the threads;
 * for dynamic, stealing and producer-consumer the units go largest first.
 * Each worker appends candidates to its own buffer (run->mid->wbuf), and the
 * buffers are merged in parallel (octree_merge.c): counted and scattered by
 * the first face's place among the kept faces, then each bucket
 * de-duplicated by stamps (left unsorted, S6 sorts the hits) or sorted
 * (producer-consumer).  The unique set is the same whatever ran where.
 *
 * Producer-consumer ([Smith94] §4.4.2, clash_octree_prodcons): worker 0 walks the
 * octree and pushes each unit's de-duplicated candidates, in batches, into
 * a bounded queue; the other workers run the narrow test on them as they
 * arrive and keep the hits; the producer joins them when the tree is done.
 * In static mode a pair met in two units is tested twice there (the price
 * of not waiting for a global de-duplication; swept mode makes each pair
 * in one unit); the hits are merged and de-duplicated.
 *
 * Resolution: cfg.octree_level when set, else automatic: the level whose
 * voxel edge is closest to four times the mean edge of the kept faces'
 * boxes (the report used level 6 for 168-face spheres of diameter 3.8 in a
 * 32-voxel world: leaf 0.5, face edge ~0.4).  Coarser leaves hold more
 * faces, but a leaf compares a face with all the others eight at a time
 * (ck_leaf_overlaps) and makes each pair once (swept mode), so the shorter
 * descent pays: four times the mean edge gives S4 the shortest times on
 * every mesh pair, frames scene and cluttered scene measured, with the same
 * pairs, against once and twice the edge; eight times is no better or
 * slower (bench/RESULTS.md).
 */
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/tuning.h"
#include "kernels/kernels.h"
#include "stages/facetest.h"
#include "core/run.h"
#include "stages/mid/midphase.h"
#include "stages/mid/octree.h"
#include "stages/stages.h"
#include "sched/ranks.h"
#include "base/sort.h"

typedef struct octx {
    clash_run *run;
    int max_level;
    const unit *units;
    const uint32_t *unit_faces;
    const uint8_t *unit_flags; /* swept: each face's flags at its unit's root (octree_units.c) */
    const int64_t *order;  /* this rank's units, in the order handed out */
    int64_t order_n;
    scratch *ws;           /* per worker */
    _Atomic int failed;
} octx;

/* Leaf test state of a face: not yet known, meets the leaf cube, misses it. */
enum { LEAF_UNKNOWN = 0, LEAF_MEETS = 1, LEAF_MISSES = 2 };

/* The exact face/cube test of the report, run lazily: only for a face that
 * has a partner in the leaf (an eligible face whose grown box overlaps its
 * own), once per face and leaf.  A face whose box lies inside the cube meets
 * it.  Since a face that meets a leaf meets every ancestor cell, testing at
 * the leaf alone keeps exactly the faces that the test at every level
 * would keep, at a fraction of the cost: most faces of a leaf have no
 * partner there and are never tested. */
static int leaf_meets(clash_run *run, uint8_t *st, uint32_t f, const double lo[3], const double hi[3])
{
    if (*st == LEAF_UNKNOWN) {
        const int inside = run->boxes->lox[f] >= lo[0] && run->boxes->hix[f] <= hi[0] && run->boxes->loy[f] >= lo[1] &&
                           run->boxes->hiy[f] <= hi[1] && run->boxes->loz[f] >= lo[2] && run->boxes->hiz[f] <= hi[2];
        /* (the full test: a leaf cube is small, few faces have a point in
         * it, and the in-line prefix of clash_face_meets_box costs more here
         * than it saves: more S4 instructions on the swept spheres) */
        *st = inside || clash_face_meets_box_full(run, f, lo, hi) ? LEAF_MEETS : LEAF_MISSES;
    }
    return *st == LEAF_MEETS;
}

/* The candidates of a leaf.  The leaf's boxes are copied into local arrays
 * first (the upper corners already grown by 2 delta), so that one face is
 * compared with all its possible partners in a vector loop that writes a
 * bitmap of the overlaps; only the overlapping pairs, its set bits, then
 * take the branches of the lazy exact tests.  (Tested pair by pair, with
 * the boxes read through the face numbers, the box test was a large part
 * of the octree's time on two bunnies: loads from across the box arrays and a
 * mispredicted branch each; a byte flag a box, tested one by one, was a
 * fifth of S4 on 300 x 3,024 swept spheres.)  The comparisons are
 * clash_faceboxes_overlap's, operand for operand. */
static int emit_leaf(clash_run *run, scratch *s, clash_keybuf *kb, size_t ofs, size_t n, const double lo[3],
                     double size)
{
    /* (+ 40: ck_leaf_overlaps reads 7 floats past a row; its bitmap, of
     * ceil(n / 64) words, fits in n + 8 bytes; then the flags, read 64 at
     * a time: n + 64 bytes) */
    if (scratch_bytes(s, n) ||
        grow_bytes(&s->lb, &s->lbcap, n * (6 * sizeof(float) + 2 * sizeof(int32_t) + 2) + 40 + 64))
        return -1;
    const double hi[3] = {lo[0] + size, lo[1] + size, lo[2] + size};
    const uint32_t *f = s->v + ofs;
    const uint8_t *fl = s->fl + ofs;
    uint8_t *st = s->st;
    memset(st, LEAF_UNKNOWN, n);
    float *restrict lx = s->lb, *restrict ly = lx + n, *restrict lz = ly + n;
    float *restrict hx = lz + n, *restrict hy = hx + n, *restrict hz = hy + n; /* + 2 delta */
    int32_t *restrict ob = (int32_t *)(hz + n), *restrict pl = ob + n; /* pl: places in run->cull->kept */
    uint8_t *restrict ov = (uint8_t *)(pl + n), *restrict flc = ov + n + 40; /* flc: the flags, 64 past n */
    const float d = 2 * run->boxes->delta;
    const float *dop = run->rows->dops ? run->rows->fdop : NULL; /* swept: the faces' DOPs (stages/face_rows.c) */
    for (size_t k = 0; k < n; ++k) {
        const uint32_t g = f[k];
        lx[k] = run->boxes->lox[g], ly[k] = run->boxes->loy[g], lz[k] = run->boxes->loz[g];
        hx[k] = run->boxes->hix[g] + d, hy[k] = run->boxes->hiy[g] + d, hz[k] = run->boxes->hiz[g] + d;
        ob[k] = run->face_obj[g];
    }
    if (dop)
        for (size_t k = 0; k < n; ++k) {
            pl[k] = run->rows->fplace[f[k]];
            /* its DOP (two lines), read by the pairs below: under way while the boxes are compared */
            const float *D = dop + (size_t)CK_FDOP * (size_t)pl[k];
            __builtin_prefetch(D), __builtin_prefetch(D + CK_FDOP - 1);
        }
    /* Face numbers ascend and every object owns one range of them, so the
     * faces of one object form one run of the list: without self-collision
     * a face's partners start after its run, and all of them are eligible. */
    const int self = run->cfg.self_collision, exact = run->cfg.mode != CLASH_MODE_SWEPT; /* see the top */
    const int filt = run->filt != NULL; /* the host's filter: pairs of two objects are checked one by one */
    if (!exact) {
        memcpy(flc, fl, n);
        memset(flc + n, 0, 64);
    }
    const int pk = run->mid->cand.by_place && dop; /* keys by places (pl: the same order as the faces) */
    size_t run_end = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t a = f[i];
        if (!self && run_end <= i)
            for (run_end = i + 1; run_end < n && ob[run_end] == ob[i];) ++run_end;
        const size_t j0 = self ? i + 1 : run_end;
        const float a6[6] = {lx[i], ly[i], lz[i], hx[i], hy[i], hz[i]};
        if (j0 >= n) continue;
        /* the overlaps of boxes j0.. as a bitmap, read 64 a word: only the
         * set bits are visited, in ascending order */
        ck_leaf_overlaps(n - j0, lx + j0, ly + j0, lz + j0, hx + j0, hy + j0, hz + j0, a6, ov);
        for (size_t w = 0; w < n - j0; w += 64) {
            uint64_t bits;
            memcpy(&bits, ov + w / 8, 8);
            if (!exact && fl[i] && bits) /* pairs met again in a lower leaf of the unit: dropped here */
                bits &= ck_flags_clear(flc + j0 + w, fl[i]);
            if (dop && bits) bits = ck_fdop_mask(dop, pl[i], pl + j0 + w, bits); /* and the DOPs overlap */
            if (!self && !exact && !filt && bits) { /* (swept, no self-collision, no filter: every pair kept) */
                if (clash_keybuf_room(kb, 64)) return -1; /* (a word holds 64 at most: no popcount call) */
                uint64_t *restrict out = kb->v + kb->n;
                const uint32_t *restrict second = pk ? (const uint32_t *)pl + j0 + w : f + j0 + w;
                const uint64_t first = (uint64_t)(pk ? (uint32_t)pl[i] : a) << 32;
                for (; bits; bits &= bits - 1) *out++ = first | second[__builtin_ctzll(bits)];
                kb->n = (size_t)(out - kb->v);
            }
            for (; bits; bits &= bits - 1) {
                const size_t j = j0 + w + (size_t)__builtin_ctzll(bits);
                const uint32_t b = f[j]; /* lists stay ascending */
                if ((self || filt) && !clash_pair_eligible(run, a, b)) continue;
                if (exact && !leaf_meets(run, st + i, a, lo, hi)) goto next_i; /* a misses the leaf */
                if (exact && !leaf_meets(run, st + j, b, lo, hi)) continue;
                const uint64_t key = pk ? (uint64_t)pl[i] << 32 | (uint32_t)pl[j] : (uint64_t)a << 32 | b;
                if (clash_keybuf_push(kb, key)) return -1;
            }
        }
    next_i:;
    }
    return 0;
}

/* (ck_child_masks, kernels/octree_cells.c, makes the children's masks; octree.h
 * has CLASH_LOW_AXES for swept mode's flags.) */

/* The end of the run of faces V[i..) below face number lim (V ascends):
 * the first j > i with j == n or V[j] >= lim, by doubling steps, then
 * halving (a run costs the log of its length, not its length). */
static inline size_t run_end(const uint32_t *V, size_t i, size_t n, int64_t lim)
{
    size_t a = i + 1, b = i + 1, step = 1; /* V[a - 1] < lim */
    while (b < n && (int64_t)V[b] < lim) a = b + 1, b += step, step *= 2;
    if (b > n) b = n;
    while (a < b) {
        const size_t m = a + (b - a) / 2;
        if ((int64_t)V[m] < lim) a = m + 1;
        else b = m;
    }
    return a;
}

/* Descends cell (lo, size, level) holding faces [ofs, ofs+n) of s, which may
 * pair.  One pass gives each face the mask of the children its grown box
 * reaches (box test against the three mid-planes), with the count of each
 * child and whether it holds two objects; a second pass scatters the faces
 * into the children's slices, which stay ascending.  The exact face/cube
 * test runs at the leaves (emit_leaf). */
static int visit(clash_run *run, int max_level, scratch *s, clash_keybuf *kb, const double lo[3], double size,
                 int level, size_t ofs, size_t n)
{
    if (level >= max_level) return emit_leaf(run, s, kb, ofs, n, lo, size);
    const double h = size * 0.5, d = run->boxes->delta;
    const double m[3] = {lo[0] + h, lo[1] + h, lo[2] + h};
    const double up[3] = {m[0] + d, m[1] + d, m[2] + d}, dn[3] = {m[0] - d, m[1] - d, m[2] - d};
    if (scratch_bytes(s, n)) return -1;
    uint8_t *mk = s->st;
    /* The masks first, eight faces at a time (ck_child_masks), with the
     * planes as floats that give the double comparisons' answers exactly: a
     * float b has b <= up iff b <= upf, the largest float <= up, and b >= dn
     * iff b >= dnf, the smallest float >= dn.  Then each child's count, 32
     * masks at a time (ck_mask_counts), and "two objects": the list is
     * ascending and each object owns one range of face numbers, so its
     * faces are one run, found by its end (run_end); a child is mixed when
     * the ORs of two runs' masks reach it. */
    size_t cnt[8] = {0};
    uint8_t mixed = 0;
    const int self = run->cfg.self_collision;
    const uint32_t *restrict V = s->v + ofs;
    float upf[3], dnf[3];
    for (int a = 0; a < 3; ++a) upf[a] = ck_f32_down(up[a]), dnf[a] = ck_f32_up(dn[a]);
    const float *const LO[3] = {run->boxes->lox, run->boxes->loy, run->boxes->loz}, *const HI[3] = {run->boxes->hix, run->boxes->hiy, run->boxes->hiz};
    ck_child_masks(n, V, LO, HI, upf, dnf, mk); /* eight faces at a time (kernels/octree_cells.c) */
    const uint8_t reached = ck_mask_counts(n, mk, cnt);
    if (!self) {
        const int64_t *fofs = run->sc->fofs;
        uint8_t seen = 0;
        for (size_t i = 0; i < n && mixed != reached;) { /* (stops once every child reached is mixed) */
            const size_t e = run_end(V, i, n, fofs[run->face_obj[V[i]] + 1]);
            const uint8_t runm = ck_mask_or(e - i, mk + i);
            mixed |= seen & runm, seen |= runm;
            i = e;
        }
    }
    size_t total = 0, at[8];
    for (int c = 0; c < 8; ++c) {
        const int pairs = self ? cnt[c] >= 2 : (mixed >> c) & 1;
        at[c] = total;
        if (!pairs) cnt[c] = 0; /* nothing to pair there: not copied, not visited */
        total += cnt[c];
    }
    if (total == 0) return 0;
    if (scratch_reserve(s, total) || scratch_flags(s)) return -1;
    const size_t base = s->n;
    uint32_t *v = s->v;
    uint8_t *fl = s->fl;
    mk = s->st;
    uint8_t keep = 0;
    for (int c = 0; c < 8; ++c) keep |= (uint8_t)((cnt[c] > 0) << c), at[c] += base;
    if (run->cfg.mode != CLASH_MODE_SWEPT) { /* static: no flags (emit_leaf keeps every leaf's pairs) */
        for (size_t i = 0; i < n; ++i) {
            const uint32_t f = v[ofs + i];
            for (unsigned b = mk[i] & keep; b; b &= b - 1) v[at[__builtin_ctz(b)]++] = f;
        }
    } else
        for (size_t i = 0; i < n; ++i) {
            const uint32_t f = v[ofs + i];
            const unsigned mi = mk[i], old = fl[ofs + i];
            /* the axes on which the face also meets the lower half (child
             * bit clear): an upper child (bit set) takes that, a lower one
             * keeps the cell's own (see emit_leaf) */
            const unsigned low = CLASH_LOW_AXES[mi];
            for (unsigned b = mi & keep; b; b &= b - 1) {
                const unsigned c = (unsigned)__builtin_ctz(b);
                fl[at[c]] = clash_child_flags(old, low, c);
                v[at[c]++] = f;
            }
        }
    s->n = base + total;
    for (int c = 0; c < 8; ++c) {
        if (!cnt[c]) continue;
        const double clo[3] = {lo[0] + ((c & 1) ? h : 0), lo[1] + ((c & 2) ? h : 0), lo[2] + ((c & 4) ? h : 0)};
        if (visit(run, max_level, s, kb, clo, h, level + 1, at[c] - cnt[c], cnt[c])) return -1;
    }
    s->n = base;
    return 0;
}

/* Runs unit `order[u]` on the worker into kb. */
static int run_one_unit(octx *c, int worker, int64_t u, clash_keybuf *kb)
{
    scratch *s = &c->ws[worker];
    const unit *un = &c->units[c->order[u]];
    s->n = 0;
    if (scratch_reserve(s, un->n) || scratch_flags(s)) return -1;
    memcpy(s->v, c->unit_faces + un->ofs, un->n * sizeof(uint32_t));
    if (c->run->cfg.mode == CLASH_MODE_SWEPT) memcpy(s->fl, c->unit_flags + un->ofs, un->n); /* see the top */
    s->n = un->n;
    return visit(c->run, c->max_level, s, kb, un->lo, un->size, un->level, 0, un->n);
}

static void run_units(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    octx *c = p;
    for (int64_t u = begin; u < end; u += step)
        if (run_one_unit(c, worker, u, &c->run->mid->wbuf[worker])) atomic_store(&c->failed, 1);
}

static oct_ws *get_ws(clash_run *run)
{
    if (!run->mid->oct_ws) {
        oct_ws *W = calloc(1, sizeof *W);
        if (W && !(W->w = calloc(clash_team(run), sizeof(scratch)))) free(W), W = NULL;
        run->mid->oct_ws = W;
    }
    return run->mid->oct_ws;
}

size_t clash_octree_bytes(const clash_run *run)
{
    const oct_ws *W = run->mid->oct_ws;
    if (!W) return 0;
    size_t b = sizeof *W + clash_team(run) * sizeof(scratch) + W->uf.cap * sizeof(uint32_t) + W->uf.stcap +
               W->uf.lbcap + W->uf.flcap;
    for (int w = 0; w < run->threads; ++w)
        b += W->w[w].cap * sizeof(uint32_t) + W->w[w].stcap + W->w[w].lbcap + W->w[w].flcap;
    b += W->cntcap * sizeof(size_t) + W->startcap * sizeof(size_t) + W->rngcap * sizeof(uint32_t) + W->paircap +
         clash_oct_stat_bytes(W->statcap) + W->sorttmpcap * sizeof(uint64_t) + clash_oct_cc_bytes(W->cccap) +
         W->mcntcap * sizeof(uint32_t) + W->needcap;
    return b;
}

void clash_octree_free(clash_run *run)
{
    oct_ws *W = run->mid->oct_ws;
    if (W) {
        for (int w = 0; w < run->threads; ++w) free(W->w[w].v), free(W->w[w].st), free(W->w[w].lb), free(W->w[w].fl);
        free(W->w), free(W->uf.v), free(W->uf.st), free(W->uf.lb), free(W->uf.fl), free(W->cnt), free(W->start), free(W->rng), free(W->pair), free(W->stat), free(W->sorttmp), free(W->cc);
        free(W->mcnt), free(W->need);
    }
    free(W);
    run->mid->oct_ws = NULL;
}


typedef struct need_ctx {
    const unitset *us;
    const int32_t *place;
    uint8_t *need;
} need_ctx;

/* This rank's units [begin, end) by step: their faces' places marked (the
 * same byte from every worker that meets a face: relaxed stores). */
static void mark_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    const need_ctx *c = p;
    for (int64_t u = begin; u < end; u += step) {
        const unit *un = &c->us->u[c->us->order[u]];
        const uint32_t *f = c->us->faces->v + un->ofs;
        for (size_t i = 0; i < un->n; ++i) __atomic_store_n(&c->need[c->place[f[i]]], 1, __ATOMIC_RELAXED);
    }
}

/* Swept mode: the kept faces' rows and DOPs, for the leaves and S5
 * (stages/face_rows.c; out of memory: the boxes alone, and S5 gathers).  Under
 * MPI only those of the faces in this rank's units: the rest are never
 * read here, and making them all was work of S4 that no rank shared. */
static void make_rows(clash_run *run, oct_ws *W, const unitset *us)
{
    if (run->cfg.mode != CLASH_MODE_SWEPT) return;
    if (run->ranks.size == 1) {
        (void)clash_rows_make(run, 1);
        return;
    }
    if (clash_rows_places(run) || ws_grow(&W->need, &W->needcap, run->cull->nkept, 1)) return;
    memset(W->need, 0, run->cull->nkept);
    need_ctx c = {us, run->rows->fplace, W->need};
    const clash_exec ex = clash_exec_sized(&run->exec, (int64_t)us->faces->n);
    clash_par_for(&ex, us->norder, mark_range, &c);
    (void)clash_rows_make_some(run, 1, W->need);
}

int clash_octree_candidates(clash_run *run, clash_error *err)
{
    run->mid->cand.n = 0;
    run->mid->cand.local = run->ranks.size > 1;
    run->rows->ready = run->rows->dops = 0;
    unitset us;
    oct_ws *W = get_ws(run);
    if (!W) return clash_fail(err, CLASH_EFAIL, "out of memory in the octree midphase");
    int rc = clash_oct_build_units(run, W, &us);
    if (rc == 1) return CLASH_OK;
    if (rc == 0) make_rows(run, W, &us);
    /* the rows made: the keys are the faces' places, which S5's rows and the
     * merge's buckets go by (no place looked up a key); under MPI too, where
     * every rank has the same kept faces in the same places (S3 is the same
     * on every rank) and tests only its own units' keys */
    run->mid->cand.by_place = run->rows->dops;
    octx c = {.run = run, .max_level = run->mid->level_used, .ws = W->w};
    atomic_init(&c.failed, 0);
    if (rc < 0) goto oom;
    c.units = us.u, c.unit_faces = us.faces->v, c.unit_flags = us.faces->fl, c.order = us.order;
    for (int w = 0; w < run->threads; ++w) run->mid->wbuf[w].n = 0;
    /* few faces in the units (a face in a unit costs several cheap items: its
     * cells, its tests): on the caller */
    run->mid->rank_units = us.norder;
    const clash_exec ex = clash_exec_sized(&run->exec, 4 * (int64_t)us.faces->n);
    if (clash_par_tasks(&ex, us.norder, 1, run_units, &c) < 0 || atomic_load(&c.failed)) goto oom;
    run->mid->cand.unsorted = 1; /* S6 sorts the hits (under MPI each rank its own, before rank 0 merges them) */
    rc = clash_oct_merge_keys(run, run->mid->wbuf, run->threads, !run->mid->cand.unsorted, run->cfg.mode == CLASH_MODE_SWEPT,
                              &run->mid->cand.keys, &run->mid->cand.cap, &run->mid->cand.n);
    clash_oct_unitset_free(&us);
    if (rc == -2) return clash_fail(err, CLASH_EFAIL, "internal error: a candidate of a face that S3 did not keep");
    return rc ? clash_fail(err, CLASH_EFAIL, "out of memory in the octree midphase") : CLASH_OK;
oom:
    clash_oct_unitset_free(&us);
    return clash_fail(err, CLASH_EFAIL, "out of memory in the octree midphase");
}

/* ---- producer-consumer: S4 and S5 together ----------------------------------------------- */
/* (batches of CLASH_TUNE_PC_BATCH candidates, CLASH_TUNE_PC_QUEUE in the queue: base/tuning.h) */

typedef struct pc_batch {
    size_t n;
    uint64_t k[];
} pc_batch;

typedef struct pc_ctx {
    octx oc;
    clash_keybuf stage;         /* the producer's candidates of one unit */
    int64_t *tested;            /* per worker, padded */
} pc_ctx;

static void pc_consume(void *item, int worker, void *p)
{
    pc_ctx *c = p;
    pc_batch *b = item;
    clash_run *run = c->oc.run;
    clash_keybuf *hits = &run->mid->wbuf[worker];
    for (size_t i = 0; i < b->n; ++i)
        if (clash_narrow_test(run, (uint32_t)(b->k[i] >> 32), (uint32_t)b->k[i]))
            if (clash_keybuf_push(hits, b->k[i])) atomic_store(&c->oc.failed, 1);
    c->tested[(size_t)worker * 8] += (int64_t)b->n;
    free(b);
}

static void pc_produce(clash_pcq *q, void *p)
{
    pc_ctx *c = p;
    for (int64_t u = 0; u < c->oc.order_n; ++u) {
        c->stage.n = 0;
        if (run_one_unit(&c->oc, 0, u, &c->stage)) {
            atomic_store(&c->oc.failed, 1);
            return;
        }
        const size_t n = clash_sort_unique_u64(c->stage.v, c->stage.n);
        if (n == (size_t)-1) {
            atomic_store(&c->oc.failed, 1);
            return;
        }
        for (size_t b = 0; b < n; b += CLASH_TUNE_PC_BATCH) {
            const size_t m = n - b < CLASH_TUNE_PC_BATCH ? n - b : CLASH_TUNE_PC_BATCH;
            pc_batch *item = malloc(sizeof *item + m * sizeof(uint64_t));
            if (!item) {
                atomic_store(&c->oc.failed, 1);
                return;
            }
            item->n = m;
            memcpy(item->k, c->stage.v + b, m * sizeof(uint64_t));
            clash_pcq_push(q, item);
        }
    }
}

int clash_octree_prodcons(clash_run *run, int64_t *tested, clash_error *err)
{
    run->mid->cand.n = 0;
    run->mid->cand.local = run->ranks.size > 1;
    *tested = 0;
    unitset us;
    oct_ws *W = get_ws(run);
    if (!W) return clash_fail(err, CLASH_EFAIL, "out of memory in the producer-consumer midphase");
    run->rows->ready = run->rows->dops = 0;
    int rc = clash_oct_build_units(run, W, &us);
    if (rc == 1) return CLASH_OK;
    if (rc == 0) make_rows(run, W, &us);
    pc_ctx c = {.oc = {.run = run, .max_level = run->mid->level_used, .ws = W->w}};
    atomic_init(&c.oc.failed, 0);
    c.tested = calloc(clash_team(run) * 8, sizeof(int64_t));
    if (rc < 0 || !c.tested) goto oom;
    c.oc.units = us.u, c.oc.unit_faces = us.faces->v, c.oc.unit_flags = us.faces->fl, c.oc.order = us.order;
    c.oc.order_n = run->mid->rank_units = us.norder;
    for (int w = 0; w < run->threads; ++w) run->mid->wbuf[w].n = 0;
    if (clash_par_prodcons(&run->exec, CLASH_TUNE_PC_QUEUE, pc_produce, pc_consume, &c) < 0 ||
        atomic_load(&c.oc.failed))
        goto oom;
    rc = clash_oct_merge_keys(run, run->mid->wbuf, run->threads, 1, 0, &run->mid->cand.keys, &run->mid->cand.cap, &run->mid->cand.n);
    if (rc == -2) {
        free(c.tested), free(c.stage.v);
        clash_oct_unitset_free(&us);
        return clash_fail(err, CLASH_EFAIL, "internal error: a candidate of a face that S3 did not keep");
    }
    if (rc) goto oom;
    for (int w = 0; w < run->threads; ++w) *tested += c.tested[(size_t)w * 8];
    free(c.tested), free(c.stage.v);
    clash_oct_unitset_free(&us);
    return CLASH_OK;
oom:
    free(c.tested), free(c.stage.v);
    clash_oct_unitset_free(&us);
    return clash_fail(err, CLASH_EFAIL, "out of memory in the producer-consumer midphase");
}
