/*
 * octree_units.c — the face octree's work units ([Smith94] §3.3.5, §4.4): the
 * cells of level U = level - 2 (at most 5: 32^3 cells) that may pair, found
 * by binning the kept faces in parallel rather than by descending.
 *
 * Every worker bins its block of the kept faces into the grid (the cells of
 * each face from an AVX2 kernel, kernels/octree_cells.c; count, and note whether
 * two objects came to each cell, which says whether it may pair;
 * then scatter into the cells that may, at positions ordered by cell and
 * then by worker, so every cell's list is ascending whatever the team size).
 * A unit holding more than 1/32 of the kept faces (at least 256) is split
 * further: a big object pair is spread over many subtrees and cannot starve
 * the others (Zachmann §3.10).  The unit list depends on the scene and on
 * whether there are several ranks, never on the thread or rank count; under
 * MPI the units are one level finer (a unit's descent being one split) and
 * each rank takes its share (ranks.h) by an estimate of each unit's pairs,
 * so that the ranks' shares of the work are even.  (Swept mode makes each
 * pair in one leaf whatever the units; static mode de-duplicates, so the
 * pairs are the same either way.)
 *
 * The level: cfg.octree_level when set, else the level whose voxel edge is
 * closest to four times the mean edge of the kept faces' boxes (octree.c).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "base/tuning.h"
#include "kernels/kernels.h"
#include "sched/ranks.h"
#include "sched/sched.h"
#include "stages/mid/octree.h"

static int node_may_pair(const clash_run *run, const uint32_t *f, size_t n)
{
    if (n < 2) return 0;
    if (run->cfg.self_collision) return 1;
    const int32_t o = run->face_obj[f[0]];
    for (size_t i = 1; i < n; ++i)
        if (run->face_obj[f[i]] != o) return 1;
    return 0;
}

/* Splits faces [ofs, ofs+n) of s (a cell at lo, edge 2h) into its eight
 * children: child c (= x + 2y + 4z, 1 for the upper half) gets the faces
 * whose box, grown by delta, reaches its side of each mid-plane (the
 * descent's own test, octree.c's visit: the planes lo + h -/+ delta in
 * double, no test against the cell's outer faces), appended to s as eight
 * slices in child order, each ascending; sets at[c], cnt[c].  With flags
 * (swept mode) each face's flags go down as in visit (octree.h).  A face
 * the binning put in the cell, its box just outside, so goes to the
 * children beside that face, as the descent would send it; the unit
 * below then meets the pairs it owns (octree.c, the top).  One pass gives
 * every face the mask of the children it reaches, a second scatters.  mk:
 * n bytes.  Returns -1 when out of memory. */
static int split_cell(clash_run *run, scratch *s, size_t ofs, size_t n, const double lo[3], double h, uint8_t *mk,
                      int flags, size_t at[8], size_t cnt[8])
{
    const double d = run->boxes->delta;
    const float *const L[3] = {run->boxes->lox, run->boxes->loy, run->boxes->loz}, *const H[3] = {run->boxes->hix, run->boxes->hiy, run->boxes->hiz};
    for (int c = 0; c < 8; ++c) cnt[c] = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t f = s->v[ofs + i];
        unsigned m = 0xff;
        for (int a = 0; a < 3; ++a) {
            const double mid = lo[a] + h; /* as visit: m = lo + h, then m + d and m - d */
            const int low = (double)L[a][f] <= mid + d, up = (double)H[a][f] >= mid - d;
            static const uint8_t LOWER[3] = {0x55, 0x33, 0x0F};
            m &= (low ? LOWER[a] : 0) | (up ? (uint8_t)~LOWER[a] : 0);
        }
        mk[i] = (uint8_t)m;
        for (unsigned b = m; b; b &= b - 1) cnt[__builtin_ctz(b)]++;
    }
    size_t total = 0;
    for (int c = 0; c < 8; ++c) total += cnt[c];
    if (scratch_reserve(s, total) || (flags && scratch_flags(s))) return -1;
    size_t pos = s->n;
    for (int c = 0; c < 8; ++c) at[c] = pos, pos += cnt[c];
    size_t put[8];
    for (int c = 0; c < 8; ++c) put[c] = at[c];
    for (size_t i = 0; i < n; ++i) {
        const unsigned old = flags ? s->fl[ofs + i] : 0, low = CLASH_LOW_AXES[mk[i]];
        for (unsigned b = mk[i]; b; b &= b - 1) {
            const unsigned c = (unsigned)__builtin_ctz(b);
            if (flags) s->fl[put[c]] = clash_child_flags(old, low, c);
            s->v[put[c]++] = s->v[ofs + i];
        }
    }
    s->n = pos;
    return 0;
}

void clash_oct_unitset_free(unitset *us)
{
    free(us->u), free(us->cost), free(us->order);
    memset(us, 0, sizeof *us);
}

/* ---- binning the kept faces into the cells of the unit level --------------------------- */

/* Phase 0 works on fixed blocks of the kept list (CLASH_TUNE_OCT_BIN_BLOCK
 * faces, base/tuning.h), whatever the team: the mean edge (which picks the
 * level) is summed block by block and the block sums in block order, so it
 * is the same number for every team size. */

typedef struct bin_stat {
    float lo[3], hi[3];
    double edge;
} bin_stat;

/* Phase 1's count of a cell, per worker: its faces, and its object (the
 * object of its faces, CELL_EMPTY before the first, CELL_MIXED once two
 * objects have come), side by side so that counting a face touches one
 * line (three arrays, count, smallest and largest object, took three). */
typedef struct cell_count {
    uint32_t n;
    int32_t o;
} cell_count;
enum { CELL_EMPTY = -1, CELL_MIXED = -2 };

static inline void cell_add(cell_count *e, int32_t o)
{
    e->n++;
    e->o = e->o == CELL_EMPTY || e->o == o ? o : CELL_MIXED;
}

typedef struct bin_ctx {
    clash_run *run;
    int phase;
    bin_stat *stat;       /* phase 0: per block of CLASH_TUNE_OCT_BIN_BLOCK kept faces */
    size_t nblock;
    double lo[3], cs;     /* grid: origin, cell edge, G cells a side */
    int G, g;             /* G = 2^g */
    size_t ncell;
    cell_count *cc;       /* [worker][cell]: counts and objects (phase 1) */
    size_t *cnt;          /* [worker][cell]: scatter positions (phase 2) */
    uint32_t *faces;      /* cell lists, concatenated */
    uint8_t *flags;       /* swept mode, beside faces: each face's flags at its cell (build_units), else NULL */
    uint8_t *pair;        /* per cell: may hold a pair */
    uint32_t *rng;        /* per kept face: its cell, or its cell ranges (phase 1) */
    double inv;           /* 1 / cs */
    float of[3], invf, widef; /* ck_cell_codes: origin, 1 / cs, widening, in float */
} bin_ctx;

/* A face in more than one cell: its cell ranges r (ck_cell_codes), 1 to 4
 * cells a side in practice.  Plain loops: GCC vectorized the inner one
 * over x, whose checks and tails cost more than the 1-2 cells it updates
 * (bin_worker cost far more instructions that way on two grazing suzannes). */
#if defined(__GNUC__) && !defined(__clang__)
#define SCALAR_LOOPS __attribute__((noinline, optimize("no-tree-vectorize")))
#else
#define SCALAR_LOOPS __attribute__((noinline))
#endif
/* The cell ranges packed in r: lo[a], hi[a] on axis a (x, y, z). */
typedef struct cell_range {
    size_t lo[3], hi[3];
} cell_range;
static inline cell_range range_of(uint32_t r)
{
    return (cell_range){{r & 31, r >> 10 & 31, r >> 20 & 31}, {r >> 5 & 31, r >> 15 & 31, r >> 25 & 31}};
}
static SCALAR_LOOPS void count_multi(uint32_t r, size_t G, int32_t o, cell_count *restrict cc)
{
    const cell_range b = range_of(r);
    for (size_t z = b.lo[2]; z <= b.hi[2]; ++z)
        for (size_t y = b.lo[1]; y <= b.hi[1]; ++y)
            for (size_t c = (z * G + y) * G + b.lo[0], e = c + (b.hi[0] - b.lo[0]); c <= e; ++c) cell_add(&cc[c], o);
}
static SCALAR_LOOPS void scatter_multi(uint32_t r, size_t G, uint32_t f, const uint8_t *restrict pair,
                                       size_t *restrict cnt, uint32_t *restrict out, uint8_t *restrict ofl)
{
    const cell_range b = range_of(r);
    for (size_t z = b.lo[2]; z <= b.hi[2]; ++z)
        for (size_t y = b.lo[1]; y <= b.hi[1]; ++y)
            for (size_t x = b.lo[0], c = (z * G + y) * G + x; x <= b.hi[0]; ++x, ++c)
                if (pair[c]) {
                    if (ofl) ofl[cnt[c]] = (uint8_t)((x > b.lo[0]) | (y > b.lo[1]) << 1 | (z > b.lo[2]) << 2);
                    out[cnt[c]++] = f;
                }
}

/* A face in exactly two cells, neighbours along one axis (on two graded
 * tori, most of the faces in more than one cell): the stride from the
 * lower cell to the other, else 0.  In line, it spares those faces the
 * loops' set-up, dozens of instructions a face and pass. */
static inline size_t two_cells(uint32_t r, size_t G, size_t *c0)
{
    const cell_range b = range_of(r);
    const size_t dx = b.hi[0] - b.lo[0], dy = b.hi[1] - b.lo[1], dz = b.hi[2] - b.lo[2];
    if (dx + dy + dz != 1) return 0;
    *c0 = (b.lo[2] * G + b.lo[1]) * G + b.lo[0];
    return dx ? 1 : dy ? G : G * G;
}

/* rng[i]: the cell number of a face inside one cell (the common case), or
 * CK_CELL_MULTI | its cell ranges (ck_cell_codes). */
static void bin_worker(int w, int T, void *p)
{
    bin_ctx *b = p;
    const clash_run *run = b->run;
    const size_t nk = run->cull->nkept, k0 = nk * (size_t)w / (size_t)T, k1 = nk * (size_t)(w + 1) / (size_t)T;
    const float *const lo[3] = {run->boxes->lox, run->boxes->loy, run->boxes->loz}, *const hi[3] = {run->boxes->hix, run->boxes->hiy, run->boxes->hiz};
    if (b->phase == 0) {
        for (size_t k = b->nblock * (size_t)w / (size_t)T; k < b->nblock * (size_t)(w + 1) / (size_t)T; ++k) {
            const size_t s = k * CLASH_TUNE_OCT_BIN_BLOCK;
            const size_t e = s + CLASH_TUNE_OCT_BIN_BLOCK < nk ? s + CLASH_TUNE_OCT_BIN_BLOCK : nk;
            ck_gather_bounds(e - s, run->cull->kept + s, lo, hi, b->stat[k].lo, b->stat[k].hi, &b->stat[k].edge);
        }
        return;
    }
    const size_t G = (size_t)b->G;
    uint32_t *restrict rng = b->rng;
    const uint32_t *restrict kept = run->cull->kept;
    if (b->phase == 1) {
        /* Counts, and for "may pair" whether two objects came to a cell,
         * without a branch per face but for the faces in more than one
         * cell (a minority).  The cells of the G^3 grid that each face's grown
         * box touches: b->widef, see build_units. */
        cell_count *restrict cc = b->cc + (size_t)w * b->ncell;
        for (size_t c = 0; c < b->ncell; ++c) cc[c] = (cell_count){0, CELL_EMPTY};
        ck_cell_codes(k1 - k0, kept + k0, lo, hi, b->of, b->invf, b->widef, b->g, rng + k0);
        const int32_t *restrict fo = run->face_obj;
        for (size_t i = k0; i < k1; ++i) {
            const uint32_t r = rng[i];
            const int32_t o = fo[kept[i]];
            if (!(r & CK_CELL_MULTI)) {
                cell_add(&cc[r], o);
                continue;
            }
            size_t c0;
            const size_t st = two_cells(r, G, &c0);
            if (st) cell_add(&cc[c0], o), cell_add(&cc[c0 + st], o);
            else count_multi(r, G, o, cc);
        }
        return;
    }
    /* phase 2: scatter the faces of the cells that may pair (swept mode:
     * with their flags, the axes on which the face is in the cell below
     * too; a face in one cell has none) */
    size_t *restrict cnt = b->cnt + (size_t)w * b->ncell;
    const uint8_t *restrict pair = b->pair;
    uint32_t *restrict out = b->faces;
    uint8_t *restrict ofl = b->flags;
    for (size_t i = k0; i < k1; ++i) {
        const uint32_t r = rng[i];
        if (!(r & CK_CELL_MULTI)) {
            if (pair[r]) {
                if (ofl) ofl[cnt[r]] = 0;
                out[cnt[r]++] = kept[i];
            }
            continue;
        }
        size_t c0;
        const size_t st = two_cells(r, G, &c0);
        if (!st) {
            scatter_multi(r, G, kept[i], pair, cnt, out, ofl);
            continue;
        }
        if (pair[c0]) {
            if (ofl) ofl[cnt[c0]] = 0;
            out[cnt[c0]++] = kept[i];
        }
        if (pair[c0 + st]) { /* the upper cell: the face is in the one below on that axis */
            if (ofl) ofl[cnt[c0 + st]] = st == 1 ? 1 : st == G ? 2 : 4;
            out[cnt[c0 + st]++] = kept[i];
        }
    }
}

size_t clash_oct_stat_bytes(size_t n) { return n * sizeof(bin_stat); }
size_t clash_oct_cc_bytes(size_t n) { return n * sizeof(cell_count); }

static int order_units(clash_run *run, unitset *us);

/* Splits, breadth-first, every unit of a level below unit_min, and every
 * one below level - 1 holding more than `big` faces, into those of its eight
 * children that may pair (the children appended, the unit replaced by the
 * last).  Returns 0, or -1 when out of memory. */
static int split_units(clash_run *run, unitset *us, int unit_min, int level, size_t big, int swept)
{
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
        size_t at[8], cnt[8];
        if (scratch_bytes(us->faces, un.n) ||
            split_cell(run, us->faces, un.ofs, un.n, un.lo, h, us->faces->st, swept, at, cnt))
            return -1;
        for (int ch = 0; ch < 8; ++ch) {
            if (!node_may_pair(run, us->faces->v + at[ch], cnt[ch])) continue;
            if (us->n == us->cap) {
                unit *nu = realloc(us->u, sizeof(unit) * (us->cap *= 2));
                if (!nu) return -1;
                us->u = nu;
            }
            const double clo[3] = {un.lo[0] + ((ch & 1) ? h : 0), un.lo[1] + ((ch & 2) ? h : 0),
                                   un.lo[2] + ((ch & 4) ? h : 0)};
            us->u[us->n++] = (unit){{clo[0], clo[1], clo[2]}, h, un.level + 1, at[ch], cnt[ch]};
        }
    }
    return 0;
}

/* Root cube, level, units (see the top of this file) and this rank's share
 * of them.  Returns 0, 1 when there is nothing to do, -1 when out of memory. */
int clash_oct_build_units(clash_run *run, oct_ws *W, unitset *us)
{
    memset(us, 0, sizeof *us);
    const int swept = run->cfg.mode == CLASH_MODE_SWEPT; /* the faces' flags (octree.c) */
    const size_t nk = run->cull->nkept;
    if (nk < 2) return 1;
    const int T = (int)clash_team(run);
    if (ws_grow(&W->rng, &W->rngcap, nk, sizeof(uint32_t))) return -1;
    us->faces = &W->uf;
    W->uf.n = 0;
    bin_ctx b = {.run = run};
    b.nblock = (nk + CLASH_TUNE_OCT_BIN_BLOCK - 1) / CLASH_TUNE_OCT_BIN_BLOCK;
    if (ws_grow(&W->stat, &W->statcap, b.nblock, sizeof(bin_stat))) return -1;
    b.stat = W->stat;
    clash_exec ex = clash_exec_sized(&run->exec, (int64_t)nk); /* few kept faces: on the caller */
    ex.threads = T;
    clash_spmd(&ex, bin_worker, &b);
    /* Root cube around the kept faces' boxes; mean box edge for the level. */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, edge = 0;
    for (size_t k = 0; k < b.nblock; ++k) {
        for (int d = 0; d < 3; ++d) lo[d] = fmin(lo[d], b.stat[k].lo[d]), hi[d] = fmax(hi[d], b.stat[k].hi[d]);
        edge += b.stat[k].edge;
    }
    edge /= (double)nk;
    double size = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    size = size * (1 + 1e-6) + 4.0 * run->boxes->delta + 1e-30;
    for (int d = 0; d < 3; ++d) lo[d] -= 2.0 * run->boxes->delta;
    int level = run->cfg.octree_level;
    if (level <= 0) {
        level = edge > 0 ? (int)lround(log2(size / (4.0 * edge))) : 16;
        if (level < 1) level = 1;
        if (level > 16) level = 16;
    }
    run->mid->level_used = level;

    /* Few kept faces (their units would be descended on the caller anyway,
     * clash_octree_candidates): one unit, the root cube, whose descent
     * splits them as the binning and the unit splits would.  Binning the
     * few kept faces of two grazing suzannes into a 4^3 grid took more
     * instructions than their whole descent. */
    const int ranks = run->ranks.size > 1; /* (see below) */
    if (4 * nk < CLASH_SMALL_WORK && !ranks) {
        if (scratch_reserve(us->faces, nk) || scratch_flags(us->faces) || !(us->u = malloc(sizeof(unit)))) return -1;
        memcpy(us->faces->v, run->cull->kept, nk * sizeof(uint32_t));
        memset(us->faces->fl, 0, nk); /* the root: nothing below it */
        us->faces->n = nk, us->cap = 1, us->n = 1;
        us->u[0] = (unit){{lo[0], lo[1], lo[2]}, size, 0, 0, nk};
        return order_units(run, us);
    }
    /* Under MPI the ranks share the units out before any is run (ranks.h),
     * by an estimate of their cost, so they need many: the cells one level
     * further down (level - 1, where a unit's descent is one split), and
     * the binning even for few kept faces. */
    const int unit_min = level <= 3 ? level : (level - 2 + ranks < 5 ? level - 2 + ranks : 5);
    const size_t big_share = nk / CLASH_TUNE_OCT_BIG_DIV;
    const size_t big = big_share > CLASH_TUNE_OCT_BIG_MIN ? big_share : CLASH_TUNE_OCT_BIG_MIN;
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
    b.widef = (float)(run->boxes->delta * b.inv + 16 * (double)FLT_EPSILON * reach);
    if (ws_grow(&W->start, &W->startcap, b.ncell + 1, sizeof(size_t)) ||
        ws_grow(&W->cnt, &W->cntcap, (size_t)T * b.ncell, sizeof(size_t)) || ws_grow(&W->pair, &W->paircap, b.ncell, 1) ||
        ws_grow(&W->cc, &W->cccap, (size_t)T * b.ncell, sizeof(cell_count)))
        return -1;
    size_t *start = W->start;
    b.cnt = W->cnt, b.pair = W->pair, b.rng = W->rng, b.cc = W->cc;
    us->cap = 1024;
    us->u = malloc(sizeof(unit) * us->cap);
    int rc = -1;
    if (!us->u) goto out;
    b.phase = 1;
    clash_spmd(&ex, bin_worker, &b);
    /* May a cell pair: two objects in it (or, with self-collision, two
     * faces)?  Only those cells get lists. */
    size_t total = 0;
    const int self = run->cfg.self_collision;
    for (size_t c = 0; c < b.ncell; ++c) {
        size_t n = 0;
        int32_t o = CELL_EMPTY; /* the workers' objects, merged as cell_add merges faces' */
        for (int w = 0; w < T; ++w) {
            const cell_count e = b.cc[(size_t)w * b.ncell + c];
            n += e.n;
            if (e.o != CELL_EMPTY) o = o == CELL_EMPTY || o == e.o ? e.o : CELL_MIXED;
        }
        b.pair[c] = (uint8_t)(self ? n >= 2 : n >= 2 && o == CELL_MIXED);
        start[c] = total;
        for (int w = 0; w < T; ++w) {
            const size_t k = (size_t)w * b.ncell + c;
            b.cnt[k] = total, total += b.pair[c] ? b.cc[k].n : 0;
        }
    }
    start[b.ncell] = total;
    if (scratch_reserve(us->faces, total) || (swept && scratch_flags(us->faces))) goto out;
    b.faces = us->faces->v;
    b.flags = swept ? us->faces->fl : NULL;
    us->faces->n = total;
    b.phase = 2;
    clash_spmd(&ex, bin_worker, &b);
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
    if (split_units(run, us, unit_min, level, big, swept)) return -1;
    return order_units(run, us);
}

/* A unit's estimated cost under MPI: the pairs of its faces that may pair
 * (without self-collision, those of two objects: (n^2 - sum of n_o^2) / 2,
 * an object's faces being one run of the ascending list), plus a descent
 * step a face.  |faces|^2 alone counts the pairs of one object's faces too,
 * which no leaf makes: a cell with many faces of one object and a few of
 * another looked costly and was not, and the ranks' shares of the tests
 * came out uneven. */
static double unit_cost(const clash_run *run, const unitset *us, const unit *un)
{
    const double n = (double)un->n;
    if (run->cfg.self_collision) return n * n / 2 + n;
    const uint32_t *f = us->faces->v + un->ofs;
    double same = 0;
    for (size_t i = 0; i < un->n;) {
        const int64_t end = run->sc->fofs[run->face_obj[f[i]] + 1];
        size_t j = i + 1;
        while (j < un->n && (int64_t)f[j] < end) ++j;
        same += (double)(j - i) * (double)(j - i);
        i = j;
    }
    return (n * n - same) / 2 + n;
}

/* This rank's share of the units, in the order handed out. */
static int order_units(clash_run *run, unitset *us)
{
    us->cost = malloc(sizeof(double) * (us->n + 1));
    us->order = malloc(sizeof(int64_t) * (us->n + 1));
    if (!us->cost || !us->order) return -1;
    const int ranks = run->ranks.size > 1;
    for (size_t u = 0; u < us->n; ++u)
        us->cost[u] = ranks ? unit_cost(run, us, &us->u[u]) : (double)us->u[u].n * (double)us->u[u].n;
    const int sch = run->cfg.schedule;
    us->norder = clash_ranks_share(&run->ranks, (int64_t)us->n, us->cost,
                                   sch == CLASH_SCHED_STATIC_STRIDE ? CLASH_RANKS_STRIDE : CLASH_RANKS_BY_COST,
                                   us->order);
    if (us->norder < 0) return -1;
    if (sch != CLASH_SCHED_STATIC_CHUNK && sch != CLASH_SCHED_STATIC_STRIDE) {
        if (clash_order_by_cost(us->order, us->norder, us->cost)) return -1;
    }
    return 0;
}

