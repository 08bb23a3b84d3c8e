/*
 * octree.c — stage S4, the face octree of the report (003 §3.3.5).
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
 * overlap, and whose two faces pass the exact face/voxel test (the report's
 * triangle/box test in static mode, the swept hull against the box in swept
 * mode), becomes a candidate.  The exact test runs at the leaves only, and
 * lazily: once per face and leaf, for a face that has a partner there.  A
 * face that meets a leaf meets every ancestor cell, so the candidates are
 * those of the test at every level, for far fewer tests (on two bunnies,
 * under 75,000 per step for 99,512 kept faces at level 7).  The report puts
 * a pair in the check list "only if it was not previously put there"; here
 * each worker appends to its own buffer and the buffers are merged, sorted
 * and de-duplicated once (no shared hash, and an order that never depends on
 * the schedule).
 *
 * Work units are the cells of level U = level - 2 (at most 5: 32^3 cells)
 * that may pair, found by binning in parallel rather than by descending:
 * every worker bins its block of the kept faces into the grid (the cells of
 * each face from an AVX2 gather kernel, kernels/cells.c; count, with the
 * smallest and largest object of each cell, which says whether it may
 * pair; then scatter into the cells that may, at positions ordered by cell
 * and then by worker, so every cell's list is ascending whatever the team
 * size).  A unit holding more than 1/32
 * of the kept faces (at least 256) is split further: a big object pair is
 * spread over many subtrees and cannot starve the others (Zachmann §3.10:
 * often one pair of objects holds almost all candidates).  The unit list
 * depends on the scene alone, never on threads or ranks.
 *
 * Distribution.  Under MPI each rank takes its share of the units
 * (ranks.h: by estimated cost, |faces|^2, or by stride for static-stride).
 * Inside a rank the coarse-grain strategy hands the units to the threads;
 * for dynamic, stealing and producer-consumer the units go largest first.
 * Each worker appends candidates to its own buffer (run->wbuf), and the
 * buffers are merged by a parallel bucket sort (merge_keys): count keys per
 * bucket of first face numbers (4096 buckets), scatter into place, sort
 * each bucket, de-duplicate each worker's run of buckets, then close the
 * gaps.  The sorted unique set is
 * the same whatever ran where.
 *
 * Producer-consumer (003 §4.4.2, clash_octree_prodcons): worker 0 walks the
 * octree and pushes each unit's de-duplicated candidates, in batches, into
 * a bounded queue; the other workers run the narrow test on them as they
 * arrive and keep the hits; the producer joins them when the tree is done.
 * A pair met in two units is tested twice there (the price of not waiting
 * for a global de-duplication); the hits are merged and de-duplicated.
 *
 * Resolution: cfg.octree_level when set, else automatic: the level whose
 * voxel edge is closest to twice the mean edge of the kept faces' boxes, so
 * a leaf holds a handful of faces (the report used level 6 for 168-face
 * spheres of diameter 3.8 in a 32-voxel world: leaf 0.5, face edge ~0.4).
 * Twice rather than once: one level coarser costs S4+S5 about a fifth
 * fewer instructions on both the two bunnies (static, 6 against 7) and the
 * cluttered preset (swept, 5 against 6), the few extra candidates (+6%,
 * +12%) costing less than the deeper descent (callgrind, bench/RESULTS.md).
 */
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "kernels/kernels.h"
#include "pipeline.h"
#include "sched/ranks.h"
#include "sort.h"
#ifdef S4PROF
#include <stdio.h>
#include <time.h>
static double pnow(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
double s4p[10]; long s4n;
#define PT(k) do{double _t=pnow(); s4p[k]+=_t-_pt; _pt=_t;}while(0)
__attribute__((destructor)) static void s4dump(void){ if(!s4n) return; fprintf(stderr,"S4PROF n=%ld:",s4n); for(int k=0;k<10;k++) fprintf(stderr," %d:%.3fms",k,1e3*s4p[k]/s4n); fprintf(stderr,"\n");}
#else
#define PT(k)
#endif

int clash_keybuf_push(clash_keybuf *b, uint64_t key)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        uint64_t *v = realloc(b->v, cap * sizeof *v);
        if (!v) return -1;
        b->v = v, b->cap = cap;
    }
    b->v[b->n++] = key;
    return 0;
}

typedef struct scratch {
    uint32_t *v;
    size_t n, cap;
    uint8_t *st; /* per-face bytes of one node: child masks, then leaf test states */
    size_t stcap;
    void *lb;    /* a leaf's boxes, objects and overlap flags (emit_leaf) */
    size_t lbcap;
} scratch;

static int scratch_reserve(scratch *s, size_t extra)
{
    if (s->n + extra <= s->cap) return 0;
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < s->n + extra) cap *= 2;
    uint32_t *v = realloc(s->v, cap * sizeof *v);
    if (!v) return -1;
    s->v = v, s->cap = cap;
    return 0;
}

static int grow_bytes(void *pp, size_t *cap, size_t n)
{
    void **p = pp;
    if (n <= *cap) return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < n) c *= 2;
    void *v = realloc(*p, c);
    if (!v) return -1;
    *p = v, *cap = c;
    return 0;
}

static int scratch_bytes(scratch *s, size_t n) { return grow_bytes(&s->st, &s->stcap, n); }

/* The octree's memory kept between steps (run->oct_ws): allocating and
 * releasing it every step made the threads fault in fresh pages (and shoot
 * down each other's TLB entries) on every step. */
typedef struct oct_ws {
    scratch *w;          /* per worker: the descent's stacks */
    scratch uf;          /* the units' face lists */
    size_t *cnt, *start; /* binning: [worker][cell] counts, cell starts */
    uint32_t *rng;       /* binning: cells of each kept face */
    uint8_t *pair;       /* binning: cells that may pair */
    struct bin_stat *stat; /* binning: bounds and edge sum per block */
    uint64_t *sorttmp;   /* merge_keys: the sort's scratch */
    int32_t *omm;        /* binning: per worker and cell, smallest and largest object */
    size_t cntcap, startcap, rngcap, paircap, statcap, sorttmpcap, ommcap;
} oct_ws;

/* Grows *pp (a pointer to a pointer) to n elements of size sz, contents not kept. */
static int ws_grow(void *pp, size_t *cap, size_t n, size_t sz)
{
    void **p = pp;
    if (n <= *cap) return 0;
    free(*p);
    *p = malloc(n * sz);
    *cap = *p ? n : 0;
    return *p ? 0 : -1;
}

typedef struct unit {
    double lo[3];
    double size;
    int level;
    size_t ofs, n; /* into the units' face array */
} unit;

typedef struct octx {
    clash_run *run;
    int max_level;
    const unit *units;
    const uint32_t *unit_faces;
    const int64_t *order;  /* this rank's units, in the order handed out */
    int64_t order_n;
    scratch *ws;           /* per worker */
    _Atomic int failed;
} octx;

static int node_may_pair(const clash_run *run, const uint32_t *f, size_t n)
{
    if (n < 2) return 0;
    if (run->cfg.self_collision) return 1;
    const int32_t o = run->face_obj[f[0]];
    for (size_t i = 1; i < n; ++i)
        if (run->face_obj[f[i]] != o) return 1;
    return 0;
}

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
        const int inside = run->lox[f] >= lo[0] && run->hix[f] <= hi[0] && run->loy[f] >= lo[1] &&
                           run->hiy[f] <= hi[1] && run->loz[f] >= lo[2] && run->hiz[f] <= hi[2];
        *st = inside || clash_face_meets_box(run, f, lo, hi) ? LEAF_MEETS : LEAF_MISSES;
    }
    return *st == LEAF_MEETS;
}

/* The candidates of a leaf.  The leaf's boxes are copied into local arrays
 * first (the upper corners already grown by 2 delta), so that one face is
 * compared with all its possible partners in a vector loop that writes
 * overlap flags; only the overlapping pairs then take the branches of the
 * lazy exact tests.  (Tested pair by pair, with the boxes read through the
 * face numbers, the box test was 40% of the octree's time on two bunnies:
 * loads from across the box arrays and a mispredicted branch each.)  The
 * comparisons are clash_faceboxes_overlap's, operand for operand. */
static int emit_leaf(clash_run *run, scratch *s, clash_keybuf *kb, size_t ofs, size_t n, const double lo[3],
                     double size)
{
    if (scratch_bytes(s, n) || grow_bytes(&s->lb, &s->lbcap, n * (6 * sizeof(float) + sizeof(int32_t) + 1) + 8))
        return -1;
    const double hi[3] = {lo[0] + size, lo[1] + size, lo[2] + size};
    const uint32_t *f = s->v + ofs;
    uint8_t *st = s->st;
    memset(st, LEAF_UNKNOWN, n);
    float *restrict lx = s->lb, *restrict ly = lx + n, *restrict lz = ly + n;
    float *restrict hx = lz + n, *restrict hy = hx + n, *restrict hz = hy + n; /* + 2 delta */
    int32_t *restrict ob = (int32_t *)(hz + n);
    uint8_t *restrict ov = (uint8_t *)(ob + n);
    const float d = 2 * run->delta;
    for (size_t k = 0; k < n; ++k) {
        const uint32_t g = f[k];
        lx[k] = run->lox[g], ly[k] = run->loy[g], lz[k] = run->loz[g];
        hx[k] = run->hix[g] + d, hy[k] = run->hiy[g] + d, hz[k] = run->hiz[g] + d;
        ob[k] = run->face_obj[g];
    }
    memset(ov + n, 0, 8);
    /* Face numbers ascend and every object owns one range of them, so the
     * faces of one object form one run of the list: without self-collision
     * a face's partners start after its run, and all of them are eligible. */
    const int self = run->cfg.self_collision;
    size_t run_end = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t a = f[i];
        if (!self && run_end <= i)
            for (run_end = i + 1; run_end < n && ob[run_end] == ob[i];) ++run_end;
        const size_t j0 = self ? i + 1 : run_end;
        const float al0 = lx[i], al1 = ly[i], al2 = lz[i], ah0 = hx[i], ah1 = hy[i], ah2 = hz[i];
        for (size_t j = j0; j < n; ++j)
            ov[j] = (uint8_t)((al0 <= hx[j]) & (lx[j] <= ah0) & (al1 <= hy[j]) & (ly[j] <= ah1) & (al2 <= hz[j]) &
                              (lz[j] <= ah2));
        for (size_t j = j0; j < n; ++j) {
            if (!(j & 7)) { /* skip 8 flags at a time where none is set */
                uint64_t w;
                memcpy(&w, ov + j, 8);
                if (!w && j + 8 <= n) {
                    j += 7;
                    continue;
                }
            }
            if (!ov[j]) continue;
            const uint32_t b = f[j]; /* lists stay ascending */
            if (self && !clash_pair_eligible(run, a, b)) continue;
            if (!leaf_meets(run, st + i, a, lo, hi)) break;
            if (!leaf_meets(run, st + j, b, lo, hi)) continue;
            if (clash_keybuf_push(kb, (uint64_t)a << 32 | b)) return -1;
        }
    }
    return 0;
}

/* Filters faces [ofs, ofs+n) of s into a new slice for cube [clo, chi]:
 * the faces whose box, grown by delta, overlaps the cube (box test only;
 * used to split oversized work units). */
static size_t filter_child(clash_run *run, scratch *s, size_t ofs, size_t n, const double clo[3], const double chi[3])
{
    const size_t out = s->n;
    const float d = run->delta;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t f = s->v[ofs + i];
        if (run->lox[f] > chi[0] + d || run->hix[f] < clo[0] - d || run->loy[f] > chi[1] + d ||
            run->hiy[f] < clo[1] - d || run->loz[f] > chi[2] + d || run->hiz[f] < clo[2] - d)
            continue;
        s->v[s->n++] = f;
    }
    return s->n - out;
}

/* Children of a cell by the half they take along each axis: bit c of a mask
 * is child c = x + 2y + 4z (1 for the upper half).  For a face that meets
 * the parent, bit 0 of an axis code says its grown box reaches the lower
 * half, bit 1 the upper half. */
static const uint8_t MASK_X[4] = {0x00, 0x55, 0xAA, 0xFF};
static const uint8_t MASK_Y[4] = {0x00, 0x33, 0xCC, 0xFF};
static const uint8_t MASK_Z[4] = {0x00, 0x0F, 0xF0, 0xFF};
/* EXPAND[k]: byte c is bit c of k */
#define EXP1(k)                                                                                              \
    ((uint64_t)((k)&1) | (uint64_t)((k) >> 1 & 1) << 8 | (uint64_t)((k) >> 2 & 1) << 16 |                   \
     (uint64_t)((k) >> 3 & 1) << 24 | (uint64_t)((k) >> 4 & 1) << 32 | (uint64_t)((k) >> 5 & 1) << 40 |     \
     (uint64_t)((k) >> 6 & 1) << 48 | (uint64_t)((k) >> 7 & 1) << 56)
#define EXP4(k) EXP1(k), EXP1((k) + 1), EXP1((k) + 2), EXP1((k) + 3)
#define EXP16(k) EXP4(k), EXP4((k) + 4), EXP4((k) + 8), EXP4((k) + 12)
#define EXP64(k) EXP16(k), EXP16((k) + 16), EXP16((k) + 32), EXP16((k) + 48)
static const uint64_t EXPAND[256] = {EXP64(0), EXP64(64), EXP64(128), EXP64(192)};
#undef EXP64
#undef EXP16
#undef EXP4
#undef EXP1

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
    const double h = size * 0.5, d = run->delta;
    const double m[3] = {lo[0] + h, lo[1] + h, lo[2] + h};
    const double up[3] = {m[0] + d, m[1] + d, m[2] + d}, dn[3] = {m[0] - d, m[1] - d, m[2] - d};
    if (scratch_bytes(s, n)) return -1;
    uint8_t *mk = s->st;
    /* Counts as eight byte counters in one word (EXPAND: bit c of a mask
     * to byte c), folded into cnt every 128 faces; "two objects" from the
     * masks of the runs of one object's faces (the list is ascending, so
     * each object's faces are one run): a child is mixed when two runs
     * reach it.  No branch per child, none per face but the run change. */
    size_t cnt[8] = {0};
    uint64_t acc = 0;
    uint8_t mixed = 0, seen = 0, runm = 0;
    int32_t prev = n ? run->face_obj[s->v[ofs]] : 0;
    const int self = run->cfg.self_collision;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t f = s->v[ofs + i];
        const unsigned xm = (run->lox[f] <= up[0]) | (run->hix[f] >= dn[0]) << 1;
        const unsigned ym = (run->loy[f] <= up[1]) | (run->hiy[f] >= dn[1]) << 1;
        const unsigned zm = (run->loz[f] <= up[2]) | (run->hiz[f] >= dn[2]) << 1;
        const uint8_t k = MASK_X[xm] & MASK_Y[ym] & MASK_Z[zm];
        mk[i] = k;
        const int32_t o = run->face_obj[f];
        if (o != prev) mixed |= seen & runm, seen |= runm, runm = 0, prev = o;
        runm |= k;
        acc += EXPAND[k];
        if ((i & 127) == 127) {
            for (int c = 0; c < 8; ++c) cnt[c] += acc >> 8 * c & 0xff;
            acc = 0;
        }
    }
    for (int c = 0; c < 8; ++c) cnt[c] += acc >> 8 * c & 0xff;
    mixed |= seen & runm;
    size_t total = 0, at[8];
    for (int c = 0; c < 8; ++c) {
        const int pairs = self ? cnt[c] >= 2 : (mixed >> c) & 1;
        at[c] = total;
        if (!pairs) cnt[c] = 0; /* nothing to pair there: not copied, not visited */
        total += cnt[c];
    }
    if (total == 0) return 0;
    if (scratch_reserve(s, total)) return -1;
    const size_t base = s->n;
    uint32_t *v = s->v;
    mk = s->st;
    uint8_t keep = 0;
    for (int c = 0; c < 8; ++c) keep |= (uint8_t)((cnt[c] > 0) << c), at[c] += base;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t f = v[ofs + i];
        for (unsigned b = mk[i] & keep; b; b &= b - 1) v[at[__builtin_ctz(b)]++] = f;
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
    if (scratch_reserve(s, un->n)) return -1;
    memcpy(s->v, c->unit_faces + un->ofs, un->n * sizeof(uint32_t));
    s->n = un->n;
    return visit(c->run, c->max_level, s, kb, un->lo, un->size, un->level, 0, un->n);
}

static void run_units(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    octx *c = p;
    for (int64_t u = begin; u < end; u += step)
        if (run_one_unit(c, worker, u, &c->run->wbuf[worker])) atomic_store(&c->failed, 1);
}

/* ---- parallel merge of per-worker key buffers ------------------------------------------ */

/* Buckets of the first face number: fine enough that a bucket holds a few
 * dozen keys (about 15 a bucket on cluttered-500), which are sorted in
 * place by insertion, and the buckets are already in order: with 256
 * buckets and a radix sort over each worker's run of them, sorting was most
 * of the merge (2 ms a step on cluttered-500, one thread). */
enum { NBUCKET = 4096 };

typedef struct merge_ctx {
    clash_keybuf *bufs;
    int nb;
    uint64_t *out, *tmp;   /* tmp: the sort's scratch, as long as out */
    uint64_t mul;          /* bucket_of: floor(2^32 NBUCKET / nf) */
    size_t *cnt;           /* [nb][NBUCKET]: counts, then scatter offsets */
    size_t *rb, *re, *ru;  /* per worker: range of out, unique count */
    size_t *bend;          /* [NBUCKET]: where each bucket ends in out */
    int phase;
    _Atomic int failed;
} merge_ctx;

/* The bucket of a key: its first face a scaled to [0, NBUCKET), by a
 * multiplication (a division per key was half of the merge on cluttered-500).
 * Any bucket function non-decreasing in a keeps the concatenated buckets
 * sorted; a * mul < nf * 2^32 NBUCKET / nf, so it stays below NBUCKET. */
static inline size_t bucket_of(uint64_t key, uint64_t mul) { return (size_t)(((key >> 32) * mul) >> 32); }

static void merge_worker(int w, int T, void *p)
{
    merge_ctx *m = p;
    for (int b = w; b < m->nb; b += T) {
        const clash_keybuf *kb = &m->bufs[b];
        size_t *cnt = m->cnt + (size_t)b * NBUCKET;
        if (m->phase == 0)
            for (size_t i = 0; i < kb->n; ++i) cnt[bucket_of(kb->v[i], m->mul)]++;
        else if (m->phase == 1)
            for (size_t i = 0; i < kb->n; ++i) m->out[cnt[bucket_of(kb->v[i], m->mul)]++] = kb->v[i];
    }
    if (m->phase == 2 && w < m->nb) { /* sort each bucket of the worker's range, then de-duplicate it */
        const size_t rb = m->rb[w], re = m->re[w];
        for (size_t bk = 0, st = 0; bk < NBUCKET; st = m->bend[bk++])
            if (st >= rb && m->bend[bk] <= re && m->bend[bk] - st > 1 &&
                clash_sort_u64(m->out + st, m->bend[bk] - st, m->tmp + st))
                atomic_store(&m->failed, 1);
        uint64_t *v = m->out + rb;
        size_t u = 0;
        for (size_t i = 0; i < re - rb; ++i)
            if (u == 0 || v[u - 1] != v[i]) v[u++] = v[i];
        m->ru[w] = u;
    }
}

/* Merges bufs[0..nb) (nb = the team size) into *out, sorted and unique. */
static int merge_keys(clash_run *run, clash_keybuf *bufs, int nb, uint64_t **out, size_t *cap, size_t *nout)
{
    size_t total = 0;
    for (int b = 0; b < nb; ++b) total += bufs[b].n;
    *nout = 0;
    if (total == 0) return 0;
    if (total > *cap) {
        uint64_t *v = realloc(*out, total * sizeof *v);
        if (!v) return -1;
        *out = v, *cap = total;
    }
    oct_ws *W = run->oct_ws; /* the sort's scratch lives there: a fresh array every step meant page faults */
    if (ws_grow(&W->sorttmp, &W->sorttmpcap, total, sizeof(uint64_t))) return -1;
    merge_ctx m = {.bufs = bufs, .nb = nb, .out = *out, .tmp = W->sorttmp,
                   .mul = ((uint64_t)NBUCKET << 32) / (uint64_t)run->sc->nf};
    m.cnt = calloc((size_t)nb * NBUCKET + NBUCKET, sizeof(size_t));
    m.rb = calloc((size_t)nb * 3, sizeof(size_t));
    if (!m.cnt || !m.rb) {
        free(m.cnt), free(m.rb);
        return -1;
    }
    m.re = m.rb + nb, m.ru = m.rb + 2 * nb, m.bend = m.cnt + (size_t)nb * NBUCKET;
    atomic_init(&m.failed, 0);
    clash_exec ex = run->exec;
    ex.threads = nb;
    clash_spmd(&ex, merge_worker, &m);
    /* bucket starts; worker k takes a contiguous run of buckets of ~total/nb keys */
    size_t pos = 0;
    int k = 0;
    m.rb[0] = 0;
    for (int bk = 0; bk < NBUCKET; ++bk) {
        for (int b = 0; b < nb; ++b) {
            const size_t c = m.cnt[(size_t)b * NBUCKET + bk];
            m.cnt[(size_t)b * NBUCKET + bk] = pos;
            pos += c;
        }
        m.bend[bk] = pos;
        while (k < nb - 1 && pos >= total * (size_t)(k + 1) / (size_t)nb) {
            m.re[k] = pos;
            m.rb[++k] = pos;
        }
    }
    for (; k < nb; ++k) m.re[k] = pos, m.rb[k] = k ? m.re[k - 1] : 0;
    m.re[nb - 1] = pos;
    m.phase = 1;
    clash_spmd(&ex, merge_worker, &m);
    m.phase = 2;
    clash_spmd(&ex, merge_worker, &m);
    int rc = atomic_load(&m.failed) ? -1 : 0;
    size_t n = 0;
    for (int b = 0; b < nb && !rc; ++b) {
        if (m.ru[b] && n != m.rb[b]) memmove(*out + n, *out + m.rb[b], m.ru[b] * sizeof(uint64_t));
        n += m.ru[b];
    }
    *nout = n;
    free(m.cnt), free(m.rb);
    return rc;
}

/* ---- units ------------------------------------------------------------------------------- */

typedef struct unitset {
    unit *u;
    size_t n, cap;
    scratch *faces;      /* the workspace's (oct_ws.uf) */
    double *cost;
    int64_t *order, norder;
} unitset;

static void unitset_free(unitset *us)
{
    free(us->u), free(us->cost), free(us->order);
    memset(us, 0, sizeof *us);
}

static const unitset *g_cost_us; /* qsort context (serial) */
static int cmp_cost_desc(const void *x, const void *y)
{
    const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    const double ca = g_cost_us->cost[a], cb = g_cost_us->cost[b];
    if (ca != cb) return ca > cb ? -1 : 1;
    return (a > b) - (a < b);
}

/* ---- binning the kept faces into the cells of the unit level --------------------------- */

/* Phase 0 works on fixed blocks of the kept list, whatever the team: the
 * mean edge (which picks the level) is summed block by block and the block
 * sums in block order, so it is the same number for every team size. */
enum { BIN_BLOCK = 4096 };

typedef struct bin_stat {
    float lo[3], hi[3];
    double edge;
} bin_stat;

typedef struct bin_ctx {
    clash_run *run;
    int phase;
    bin_stat *stat;       /* phase 0: per block of BIN_BLOCK kept faces */
    size_t nblock;
    double lo[3], cs;     /* grid: origin, cell edge, G cells a side */
    int G, g;             /* G = 2^g */
    size_t ncell;
    size_t *cnt;          /* [worker][cell]: counts, then scatter positions */
    uint32_t *faces;      /* cell lists, concatenated */
    uint8_t *pair;        /* per cell: may hold a pair */
    int32_t *omin, *omax; /* [worker][cell]: smallest and largest object seen (phase 1) */
    uint32_t *rng;        /* per kept face: its cell, or its cell ranges (phase 1) */
    double inv;           /* 1 / cs */
    float of[3], invf, widef; /* ck_cell_codes: origin, 1 / cs, widening, in float */
} bin_ctx;

/* rng[i]: the cell number of a face inside one cell (the common case), or
 * CK_CELL_MULTI | its cell ranges (ck_cell_codes). */
static void bin_worker(int w, int T, void *p)
{
    bin_ctx *b = p;
    const clash_run *run = b->run;
    const size_t nk = run->nkept, k0 = nk * (size_t)w / (size_t)T, k1 = nk * (size_t)(w + 1) / (size_t)T;
    const float *const lo[3] = {run->lox, run->loy, run->loz}, *const hi[3] = {run->hix, run->hiy, run->hiz};
    if (b->phase == 0) {
        for (size_t k = b->nblock * (size_t)w / (size_t)T; k < b->nblock * (size_t)(w + 1) / (size_t)T; ++k) {
            const size_t e = (k + 1) * BIN_BLOCK < nk ? (k + 1) * BIN_BLOCK : nk;
            ck_gather_bounds(e - k * BIN_BLOCK, run->kept + k * BIN_BLOCK, lo, hi, b->stat[k].lo, b->stat[k].hi,
                             &b->stat[k].edge);
        }
        return;
    }
    size_t *restrict cnt = b->cnt + (size_t)w * b->ncell;
    const size_t G = (size_t)b->G;
    uint32_t *restrict rng = b->rng;
    const uint32_t *restrict kept = run->kept;
    if (b->phase == 1) {
        /* Counts, and for "may pair" the smallest and largest object of
         * each cell (two objects: they differ), without a branch per face
         * but for the faces in more than one cell (30%).  The cells of the
         * G^3 grid that each face's grown box touches: b->widef, see
         * build_units. */
        int32_t *restrict mn = b->omin + (size_t)w * b->ncell, *restrict mx = b->omax + (size_t)w * b->ncell;
        for (size_t c = 0; c < b->ncell; ++c) mn[c] = INT32_MAX, mx[c] = INT32_MIN;
        ck_cell_codes(k1 - k0, kept + k0, lo, hi, b->of, b->invf, b->widef, b->g, rng + k0);
        const int32_t *restrict fo = run->face_obj;
        for (size_t i = k0; i < k1; ++i) {
            const uint32_t r = rng[i];
            const int32_t o = fo[kept[i]];
            if (!(r & CK_CELL_MULTI)) {
                cnt[r]++;
                mn[r] = o < mn[r] ? o : mn[r], mx[r] = o > mx[r] ? o : mx[r];
                continue;
            }
            const size_t x0 = r & 31, x1 = r >> 5 & 31, y0 = r >> 10 & 31, y1 = r >> 15 & 31, z0 = r >> 20 & 31,
                         z1 = r >> 25 & 31;
            for (size_t z = z0; z <= z1; ++z)
                for (size_t y = y0; y <= y1; ++y)
                    for (size_t x = x0; x <= x1; ++x) {
                        const size_t c = (z * G + y) * G + x;
                        cnt[c]++;
                        mn[c] = o < mn[c] ? o : mn[c], mx[c] = o > mx[c] ? o : mx[c];
                    }
        }
        return;
    }
    /* phase 2: scatter the faces of the cells that may pair */
    const uint8_t *restrict pair = b->pair;
    uint32_t *restrict out = b->faces;
    for (size_t i = k0; i < k1; ++i) {
        const uint32_t r = rng[i];
        if (!(r & CK_CELL_MULTI)) {
            if (pair[r]) out[cnt[r]++] = kept[i];
            continue;
        }
        const size_t x0 = r & 31, x1 = r >> 5 & 31, y0 = r >> 10 & 31, y1 = r >> 15 & 31, z0 = r >> 20 & 31,
                     z1 = r >> 25 & 31;
        for (size_t z = z0; z <= z1; ++z)
            for (size_t y = y0; y <= y1; ++y) {
                const size_t row = (z * G + y) * G;
                for (size_t x = x0; x <= x1; ++x)
                    if (pair[row + x]) out[cnt[row + x]++] = kept[i];
            }
    }
}

/* Root cube, level, units (see the top of this file) and this rank's share
 * of them.  Returns 0, 1 when there is nothing to do, -1 when out of memory. */
static int build_units(clash_run *run, oct_ws *W, unitset *us)
{
    memset(us, 0, sizeof *us);
    const size_t nk = run->nkept;
    if (nk < 2) return 1;
    const int T = (int)clash_team(run);
    if (ws_grow(&W->rng, &W->rngcap, nk, sizeof(uint32_t))) return -1;
    us->faces = &W->uf;
    W->uf.n = 0;
#ifdef S4PROF
    double _pt = pnow();
#endif
    bin_ctx b = {.run = run};
    b.nblock = (nk + BIN_BLOCK - 1) / BIN_BLOCK;
    if (ws_grow(&W->stat, &W->statcap, b.nblock, sizeof(bin_stat))) return -1;
    b.stat = W->stat;
    clash_exec ex = run->exec;
    ex.threads = T;
    clash_spmd(&ex, bin_worker, &b);
    PT(0);
    /* Root cube around the kept faces' boxes; mean box edge for the level. */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, edge = 0;
    for (size_t k = 0; k < b.nblock; ++k) {
        for (int d = 0; d < 3; ++d) lo[d] = fmin(lo[d], b.stat[k].lo[d]), hi[d] = fmax(hi[d], b.stat[k].hi[d]);
        edge += b.stat[k].edge;
    }
    edge /= (double)nk;
    double size = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    size = size * (1 + 1e-6) + 4.0 * run->delta + 1e-30;
    for (int d = 0; d < 3; ++d) lo[d] -= 2.0 * run->delta;
    int level = run->cfg.octree_level;
    if (level <= 0) {
        level = edge > 0 ? (int)lround(log2(size / (2.0 * edge))) : 16;
        if (level < 1) level = 1;
        if (level > 16) level = 16;
    }
    run->level_used = level;

    const int unit_min = level <= 3 ? level : (level - 2 < 5 ? level - 2 : 5);
    const size_t big = nk / 32 > 256 ? nk / 32 : 256;
    b.g = unit_min, b.G = 1 << unit_min;
    b.ncell = (size_t)b.G * (size_t)b.G * (size_t)b.G;
    b.cs = size / b.G;
    b.inv = 1.0 / b.cs;
    /* The cell of coordinate v is (v - lo) * inv -/+ widef, computed in
     * float, truncated and clamped to the grid (ck_cell_codes).  Its
     * rounding error is below 4.1u (G + 2) + 1.01u |lo| inv cells (u =
     * 2^-24: the rounding of lo, of inv, of the difference, of the product
     * and of the sum); widef is delta plus 32u times that reach, so a face
     * is never missing from a cell its grown box meets (test_kernels).  An extra cell in a near tie only costs time: the faces of
     * a leaf are tested against it exactly (emit_leaf), so the candidates
     * do not depend on it. */
    double reach = (double)b.G + 2;
    for (int d = 0; d < 3; ++d) reach += fabs(lo[d]) * b.inv, b.lo[d] = lo[d], b.of[d] = (float)lo[d];
    b.invf = (float)b.inv;
    b.widef = (float)(run->delta * b.inv + 16 * (double)FLT_EPSILON * reach);
    if (ws_grow(&W->start, &W->startcap, b.ncell + 1, sizeof(size_t)) ||
        ws_grow(&W->cnt, &W->cntcap, (size_t)T * b.ncell, sizeof(size_t)) || ws_grow(&W->pair, &W->paircap, b.ncell, 1) ||
        ws_grow(&W->omm, &W->ommcap, 2 * (size_t)T * b.ncell, sizeof(int32_t)))
        return -1;
    size_t *start = W->start;
    b.cnt = W->cnt, b.pair = W->pair, b.rng = W->rng, b.omin = W->omm, b.omax = W->omm + (size_t)T * b.ncell;
    memset(b.cnt, 0, (size_t)T * b.ncell * sizeof *b.cnt);
    us->cap = 1024;
    us->u = malloc(sizeof(unit) * us->cap);
    int rc = -1;
    if (!us->u) goto out;
    PT(1);
    b.phase = 1;
    clash_spmd(&ex, bin_worker, &b);
    PT(2);
    /* May a cell pair: two objects in it (or, with self-collision, two
     * faces)?  Only those cells get lists. */
    size_t total = 0;
    const int self = run->cfg.self_collision;
    for (size_t c = 0; c < b.ncell; ++c) {
        size_t n = 0;
        int32_t mn = INT32_MAX, mx = INT32_MIN;
        for (int w = 0; w < T; ++w) {
            const size_t k = (size_t)w * b.ncell + c;
            n += b.cnt[k];
            mn = b.omin[k] < mn ? b.omin[k] : mn, mx = b.omax[k] > mx ? b.omax[k] : mx;
        }
        b.pair[c] = (uint8_t)(self ? n >= 2 : n >= 2 && mn != mx);
        start[c] = total;
        for (int w = 0; w < T; ++w) {
            size_t *k = &b.cnt[(size_t)w * b.ncell + c];
            const size_t m = b.pair[c] ? *k : 0;
            *k = total, total += m;
        }
    }
    start[b.ncell] = total;
    if (scratch_reserve(us->faces, total)) goto out;
    b.faces = us->faces->v;
    us->faces->n = total;
    PT(3);
    b.phase = 2;
    clash_spmd(&ex, bin_worker, &b);
    PT(4);
    const size_t G = (size_t)b.G;
    for (size_t c = 0; c < b.ncell; ++c) {
        if (!b.pair[c]) continue;
        if (us->n == us->cap) {
            unit *nu = realloc(us->u, sizeof(unit) * (us->cap *= 2));
            if (!nu) goto out;
            us->u = nu;
        }
        const size_t x = c % G, y = c / G % G, z = c / (G * G);
        us->u[us->n++] = (unit){{lo[0] + (double)x * b.cs, lo[1] + (double)y * b.cs, lo[2] + (double)z * b.cs},
                                b.cs, unit_min, start[c], start[c + 1] - start[c]};
    }
    rc = 0;
out:
    if (rc) return rc;
    for (size_t u = 0; u < us->n;) {
        unit un = us->u[u];
        const int split = un.level < unit_min || (un.level < level - 1 && un.n > big);
        if (!split || !node_may_pair(run, us->faces->v + un.ofs, un.n)) {
            ++u;
            continue;
        }
        /* replace unit u by its children (appended), breadth-first */
        us->u[u] = us->u[--us->n];
        const double h = un.size * 0.5;
        for (int ch = 0; ch < 8; ++ch) {
            const double clo[3] = {un.lo[0] + ((ch & 1) ? h : 0), un.lo[1] + ((ch & 2) ? h : 0),
                                   un.lo[2] + ((ch & 4) ? h : 0)};
            const double chi[3] = {clo[0] + h, clo[1] + h, clo[2] + h};
            if (scratch_reserve(us->faces, un.n)) return -1;
            const size_t mark = us->faces->n;
            const size_t m = filter_child(run, us->faces, un.ofs, un.n, clo, chi);
            if (!node_may_pair(run, us->faces->v + mark, m)) {
                us->faces->n = mark;
                continue;
            }
            if (us->n == us->cap) {
                unit *nu = realloc(us->u, sizeof(unit) * (us->cap *= 2));
                if (!nu) return -1;
                us->u = nu;
            }
            us->u[us->n++] = (unit){{clo[0], clo[1], clo[2]}, h, un.level + 1, mark, m};
        }
    }
    PT(6);
    us->cost = malloc(sizeof(double) * (us->n + 1));
    us->order = malloc(sizeof(int64_t) * (us->n + 1));
    if (!us->cost || !us->order) return -1;
    for (size_t u = 0; u < us->n; ++u) us->cost[u] = (double)us->u[u].n * (double)us->u[u].n;
    const int sch = run->cfg.schedule;
    us->norder = clash_ranks_share((int64_t)us->n, us->cost,
                                   sch == CLASH_SCHED_STATIC_STRIDE ? CLASH_RANKS_STRIDE : CLASH_RANKS_BY_COST,
                                   us->order);
    if (us->norder < 0) return -1;
    if (sch != CLASH_SCHED_STATIC_CHUNK && sch != CLASH_SCHED_STATIC_STRIDE) {
        g_cost_us = us;
        qsort(us->order, (size_t)us->norder, sizeof(int64_t), cmp_cost_desc);
    }
    return 0;
}

static oct_ws *get_ws(clash_run *run)
{
    if (!run->oct_ws) {
        oct_ws *W = calloc(1, sizeof *W);
        if (W && !(W->w = calloc(clash_team(run), sizeof(scratch)))) free(W), W = NULL;
        run->oct_ws = W;
    }
    return run->oct_ws;
}

void clash_octree_free(clash_run *run)
{
    oct_ws *W = run->oct_ws;
    if (W) {
        for (int w = 0; w < run->threads; ++w) free(W->w[w].v), free(W->w[w].st), free(W->w[w].lb);
        free(W->w), free(W->uf.v), free(W->cnt), free(W->start), free(W->rng), free(W->pair), free(W->stat), free(W->sorttmp), free(W->omm);
    }
    free(W);
    run->oct_ws = NULL;
}


int clash_octree_candidates(clash_run *run, clash_error *err)
{
    run->ncand = 0;
    run->cand_local = clash_ranks_size() > 1;
    unitset us;
    oct_ws *W = get_ws(run);
    if (!W) return clash_fail(err, CLASH_EFAIL, "out of memory in the octree midphase");
#ifdef S4PROF
    s4n++;
#endif
    int rc = build_units(run, W, &us);
#ifdef S4PROF
    double _pt = pnow();
#endif
    if (rc == 1) return CLASH_OK;
    octx c = {.run = run, .max_level = run->level_used, .ws = W->w};
    atomic_init(&c.failed, 0);
    if (rc < 0) goto oom;
    c.units = us.u, c.unit_faces = us.faces->v, c.order = us.order;
    for (int w = 0; w < run->threads; ++w) run->wbuf[w].n = 0;
    if (clash_par_tasks(&run->exec, us.norder, 1, run_units, &c) < 0 || atomic_load(&c.failed)) goto oom;
    PT(7);
    if (merge_keys(run, run->wbuf, run->threads, &run->cand, &run->cap_cand, &run->ncand)) goto oom;
    PT(8);
    unitset_free(&us);
    return CLASH_OK;
oom:
    unitset_free(&us);
    return clash_fail(err, CLASH_EFAIL, "out of memory in the octree midphase");
}

/* ---- producer-consumer: S4 and S5 together ----------------------------------------------- */

enum { PC_BATCH = 2048, PC_QUEUE = 64 };

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
    clash_keybuf *hits = &run->wbuf[worker];
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
        for (size_t b = 0; b < n; b += PC_BATCH) {
            const size_t m = n - b < PC_BATCH ? n - b : PC_BATCH;
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
    run->ncand = 0;
    run->cand_local = clash_ranks_size() > 1;
    *tested = 0;
    unitset us;
    oct_ws *W = get_ws(run);
    if (!W) return clash_fail(err, CLASH_EFAIL, "out of memory in the producer-consumer midphase");
    int rc = build_units(run, W, &us);
    if (rc == 1) return CLASH_OK;
    pc_ctx c = {.oc = {.run = run, .max_level = run->level_used, .ws = W->w}};
    atomic_init(&c.oc.failed, 0);
    c.tested = calloc(clash_team(run) * 8, sizeof(int64_t));
    if (rc < 0 || !c.tested) goto oom;
    c.oc.units = us.u, c.oc.unit_faces = us.faces->v, c.oc.order = us.order, c.oc.order_n = us.norder;
    for (int w = 0; w < run->threads; ++w) run->wbuf[w].n = 0;
    if (clash_par_prodcons(&run->exec, PC_QUEUE, pc_produce, pc_consume, &c) < 0 || atomic_load(&c.oc.failed))
        goto oom;
    if (merge_keys(run, run->wbuf, run->threads, &run->cand, &run->cap_cand, &run->ncand)) goto oom;
    for (int w = 0; w < run->threads; ++w) *tested += c.tested[(size_t)w * 8];
    free(c.tested), free(c.stage.v);
    unitset_free(&us);
    return CLASH_OK;
oom:
    free(c.tested), free(c.stage.v);
    unitset_free(&us);
    return clash_fail(err, CLASH_EFAIL, "out of memory in the producer-consumer midphase");
}
