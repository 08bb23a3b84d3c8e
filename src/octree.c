/*
 * octree.c — stage S4, the face octree of the report (003 §3.3.5).
 *
 * The faces kept by S3 are sorted into the cells of an octree whose root is
 * the cube around their boxes.  A cell is subdivided into its 8 children
 * only while it holds faces that could still form a pair (faces of two or
 * more objects; with self-collision, two or more faces of one object), and
 * only the faces that met the parent are tested against the children, with
 * the exact face/box test (the report's triangle/box test in static mode,
 * the swept hull against the box in swept mode).  Nothing is allocated for
 * the tree: a cell is a cube on the recursion stack and its face list a
 * slice of a per-worker scratch stack.
 *
 * In each leaf voxel every eligible pair whose (slightly grown) face boxes
 * overlap becomes a candidate.  The report puts a pair in the check list
 * "only if it was not previously put there"; here each worker appends to its
 * own buffer and the buffers are merged, sorted and de-duplicated once
 * (no shared hash, and an order that never depends on the schedule).
 *
 * Work units.  The top levels are expanded serially into work units (cells
 * with their face lists).  This expansion uses the cheap box test only (the
 * exact test runs on every deeper level, and a face whose hull misses a cell
 * misses its sub-cells too), so it costs a few comparisons per face and
 * level.  Every cell is expanded to level 3, and a cell holding more than
 * 1/32 of the kept faces (at least 256) is expanded further: a big object
 * pair is split over many subtrees and cannot starve the others (Zachmann
 * §3.10: often one pair of objects holds almost all candidates).  The unit
 * list depends on the scene alone, never on threads or ranks.
 *
 * Distribution.  Under MPI each rank takes its share of the units
 * (ranks.h: by estimated cost, |faces|^2, or by stride for static-stride).
 * Inside a rank the coarse-grain strategy hands the units to the threads;
 * for dynamic, stealing and producer-consumer the units go largest first.
 * Each worker appends candidates to its own buffer (run->wbuf), and the
 * buffers are merged by a parallel bucket sort (merge_keys): count keys per
 * bucket of face numbers, scatter into place, sort and de-duplicate each
 * worker's run of buckets, then close the gaps.  The sorted unique set is
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
 * voxel edge is closest to the mean edge of the kept faces' boxes, so a leaf
 * holds a handful of faces (the report used level 6 for 168-face spheres of
 * diameter 3.8 in a 32-voxel world: leaf 0.5, face edge ~0.4).
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "kernels/kernels.h"
#include "pipeline.h"
#include "sched/ranks.h"
#include "sort.h"

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

static int emit_leaf(clash_run *run, clash_keybuf *kb, const uint32_t *f, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j) {
            const uint32_t a = f[i], b = f[j]; /* lists stay ascending */
            if (clash_pair_eligible(run, a, b) && clash_faceboxes_overlap(run, a, b))
                if (clash_keybuf_push(kb, (uint64_t)a << 32 | b)) return -1;
        }
    return 0;
}

/* Filters faces [ofs, ofs+n) of s into a new slice for child cube [clo, chi]:
 * the faces whose box, grown by delta, overlaps the cube and, when exact is
 * set, that pass the exact face/cube test too.  A face whose box lies inside
 * the cube meets it: no exact test needed (the common case at coarse levels). */
static size_t filter_child(clash_run *run, scratch *s, size_t ofs, size_t n, const double clo[3], const double chi[3],
                           int exact)
{
    const size_t out = s->n;
    const float d = run->delta;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t f = s->v[ofs + i];
        if (run->lox[f] > chi[0] + d || run->hix[f] < clo[0] - d || run->loy[f] > chi[1] + d ||
            run->hiy[f] < clo[1] - d || run->loz[f] > chi[2] + d || run->hiz[f] < clo[2] - d)
            continue;
        const int inside = run->lox[f] >= clo[0] && run->hix[f] <= chi[0] && run->loy[f] >= clo[1] &&
                           run->hiy[f] <= chi[1] && run->loz[f] >= clo[2] && run->hiz[f] <= chi[2];
        if (!exact || inside || clash_face_meets_box(run, f, clo, chi)) s->v[s->n++] = f;
    }
    return s->n - out;
}

static int visit(clash_run *run, int max_level, scratch *s, clash_keybuf *kb, const double lo[3], double size,
                 int level, size_t ofs, size_t n)
{
    if (!node_may_pair(run, s->v + ofs, n)) return 0;
    if (level >= max_level) return emit_leaf(run, kb, s->v + ofs, n);
    const double h = size * 0.5;
    for (int c = 0; c < 8; ++c) {
        const double clo[3] = {lo[0] + ((c & 1) ? h : 0), lo[1] + ((c & 2) ? h : 0), lo[2] + ((c & 4) ? h : 0)};
        const double chi[3] = {clo[0] + h, clo[1] + h, clo[2] + h};
        if (scratch_reserve(s, n)) return -1;
        const size_t mark = s->n;
        const size_t m = filter_child(run, s, ofs, n, clo, chi, 1);
        if (visit(run, max_level, s, kb, clo, h, level + 1, mark, m)) return -1;
        s->n = mark;
    }
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

enum { NBUCKET = 256 };

typedef struct merge_ctx {
    clash_keybuf *bufs;
    int nb;
    uint64_t *out;
    uint64_t nf;
    size_t *cnt;           /* [nb][NBUCKET]: counts, then scatter offsets */
    size_t *rb, *re, *ru;  /* per worker: range of out, unique count */
    int phase;
    _Atomic int failed;
} merge_ctx;

static inline size_t bucket_of(uint64_t key, uint64_t nf) { return (size_t)(((key >> 32) * NBUCKET) / nf); }

static void merge_worker(int w, int T, void *p)
{
    merge_ctx *m = p;
    for (int b = w; b < m->nb; b += T) {
        const clash_keybuf *kb = &m->bufs[b];
        size_t *cnt = m->cnt + (size_t)b * NBUCKET;
        if (m->phase == 0)
            for (size_t i = 0; i < kb->n; ++i) cnt[bucket_of(kb->v[i], m->nf)]++;
        else if (m->phase == 1)
            for (size_t i = 0; i < kb->n; ++i) m->out[cnt[bucket_of(kb->v[i], m->nf)]++] = kb->v[i];
    }
    if (m->phase == 2 && w < m->nb) {
        const size_t n = m->re[w] - m->rb[w];
        const size_t u = n ? clash_sort_unique_u64(m->out + m->rb[w], n) : 0;
        if (u == (size_t)-1) atomic_store(&m->failed, 1);
        else m->ru[w] = u;
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
    merge_ctx m = {.bufs = bufs, .nb = nb, .out = *out, .nf = (uint64_t)run->sc->nf};
    m.cnt = calloc((size_t)nb * NBUCKET, sizeof(size_t));
    m.rb = calloc((size_t)nb * 3, sizeof(size_t));
    if (!m.cnt || !m.rb) {
        free(m.cnt), free(m.rb);
        return -1;
    }
    m.re = m.rb + nb, m.ru = m.rb + 2 * nb;
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
    scratch faces;
    double *cost;
    int64_t *order, norder;
} unitset;

static void unitset_free(unitset *us)
{
    free(us->u), free(us->faces.v), free(us->cost), free(us->order);
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

/* Root cube, level, units and this rank's share of them.  Returns 0, 1 when
 * there is nothing to do, -1 when out of memory. */
static int build_units(clash_run *run, unitset *us)
{
    memset(us, 0, sizeof *us);
    const size_t nk = run->nkept;
    if (nk < 2) return 1;
    /* Root cube around the kept faces' boxes; mean box edge for the level. */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, edge = 0;
    for (size_t i = 0; i < nk; ++i) {
        const uint32_t f = run->kept[i];
        const float bl[3] = {run->lox[f], run->loy[f], run->loz[f]}, bh[3] = {run->hix[f], run->hiy[f], run->hiz[f]};
        double e = 0;
        for (int d = 0; d < 3; ++d) {
            lo[d] = fmin(lo[d], bl[d]);
            hi[d] = fmax(hi[d], bh[d]);
            e = fmax(e, (double)bh[d] - bl[d]);
        }
        edge += e;
    }
    edge /= (double)nk;
    double size = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    size = size * (1 + 1e-6) + 4.0 * run->delta + 1e-30;
    for (int d = 0; d < 3; ++d) lo[d] -= 2.0 * run->delta;
    int level = run->cfg.octree_level;
    if (level <= 0) {
        level = edge > 0 ? (int)lround(log2(size / edge)) : 16;
        if (level < 1) level = 1;
        if (level > 16) level = 16;
    }
    run->level_used = level;

    const int unit_min = level < 4 ? level : 4;
    const size_t big = nk / 32 > 256 ? nk / 32 : 256;
    /* The cells of level unit_min are found by binning, not by descending:
     * each face goes to every cell of the G^3 grid that its grown box
     * touches (index ranges rounded outward, so a face is never missing
     * from a cell its box meets; an extra cell only costs time).  Faces
     * are visited in ascending order, so every cell's list is ascending. */
    const int G = 1 << unit_min;
    const size_t ncell = (size_t)G * G * G;
    const double cs = size / G;
    size_t *cnt = calloc(ncell + 1, sizeof(size_t));
    us->cap = ncell + 64;
    us->u = malloc(sizeof(unit) * us->cap);
    if (!cnt || !us->u) {
        free(cnt);
        return -1;
    }
    int (*rng)[6] = malloc(sizeof *rng * nk);
    if (!rng) {
        free(cnt);
        return -1;
    }
    size_t total = 0;
    for (size_t i = 0; i < nk; ++i) {
        const uint32_t f = run->kept[i];
        const float bl[3] = {run->lox[f], run->loy[f], run->loz[f]}, bh[3] = {run->hix[f], run->hiy[f], run->hiz[f]};
        size_t m = 1;
        for (int d = 0; d < 3; ++d) {
            int a = (int)floor(((double)bl[d] - run->delta - lo[d]) / cs) - 1;
            int b = (int)floor(((double)bh[d] + run->delta - lo[d]) / cs) + 1;
            /* widen by one cell each way, then keep the cells the grown box really overlaps */
            while (a < G - 1 && lo[d] + (a + 1) * cs < (double)bl[d] - run->delta) ++a;
            while (b > 0 && lo[d] + b * cs > (double)bh[d] + run->delta) --b;
            rng[i][2 * d] = a < 0 ? 0 : a;
            rng[i][2 * d + 1] = b > G - 1 ? G - 1 : b;
            m *= (size_t)(rng[i][2 * d + 1] - rng[i][2 * d] + 1);
        }
        for (int z = rng[i][4]; z <= rng[i][5]; ++z)
            for (int y = rng[i][2]; y <= rng[i][3]; ++y)
                for (int x = rng[i][0]; x <= rng[i][1]; ++x) cnt[((size_t)z * G + y) * G + x + 1]++;
        total += m;
    }
    for (size_t c = 0; c < ncell; ++c) cnt[c + 1] += cnt[c];
    if (scratch_reserve(&us->faces, total)) {
        free(cnt), free(rng);
        return -1;
    }
    {
        size_t *fill = malloc(sizeof(size_t) * ncell);
        if (!fill) {
            free(cnt), free(rng);
            return -1;
        }
        memcpy(fill, cnt, sizeof(size_t) * ncell);
        for (size_t i = 0; i < nk; ++i)
            for (int z = rng[i][4]; z <= rng[i][5]; ++z)
                for (int y = rng[i][2]; y <= rng[i][3]; ++y)
                    for (int x = rng[i][0]; x <= rng[i][1]; ++x)
                        us->faces.v[fill[((size_t)z * G + y) * G + x]++] = run->kept[i];
        free(fill);
    }
    us->faces.n = total;
    for (int z = 0; z < G; ++z)
        for (int y = 0; y < G; ++y)
            for (int x = 0; x < G; ++x) {
                const size_t c = ((size_t)z * G + y) * G + x, n = cnt[c + 1] - cnt[c];
                if (!node_may_pair(run, us->faces.v + cnt[c], n)) continue;
                us->u[us->n++] = (unit){{lo[0] + x * cs, lo[1] + y * cs, lo[2] + z * cs}, cs, unit_min, cnt[c], n};
            }
    free(cnt), free(rng);
    for (size_t u = 0; u < us->n;) {
        unit un = us->u[u];
        const int split = un.level < unit_min || (un.level < level - 1 && un.n > big);
        if (!split || !node_may_pair(run, us->faces.v + un.ofs, un.n)) {
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
            if (scratch_reserve(&us->faces, un.n)) return -1;
            const size_t mark = us->faces.n;
            const size_t m = filter_child(run, &us->faces, un.ofs, un.n, clo, chi, 0);
            if (!node_may_pair(run, us->faces.v + mark, m)) {
                us->faces.n = mark;
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

/* The per-worker scratch stacks live as long as the run: allocating and
 * releasing them every step made the threads fault in fresh pages (and
 * shoot down each other's TLB entries) on every step. */
static scratch *get_ws(clash_run *run)
{
    if (!run->oct_ws) run->oct_ws = calloc(clash_team(run), sizeof(scratch));
    return run->oct_ws;
}

void clash_octree_free(clash_run *run)
{
    scratch *ws = run->oct_ws;
    if (ws)
        for (int w = 0; w < run->threads; ++w) free(ws[w].v);
    free(ws);
    run->oct_ws = NULL;
}


int clash_octree_candidates(clash_run *run, clash_error *err)
{
    run->ncand = 0;
    run->cand_local = clash_ranks_size() > 1;
    unitset us;
    int rc = build_units(run, &us);
    if (rc == 1) return CLASH_OK;
    octx c = {.run = run, .max_level = run->level_used};
    atomic_init(&c.failed, 0);
    if (rc < 0 || !(c.ws = get_ws(run))) goto oom;
    c.units = us.u, c.unit_faces = us.faces.v, c.order = us.order;
    for (int w = 0; w < run->threads; ++w) run->wbuf[w].n = 0;
    if (clash_par_tasks(&run->exec, us.norder, 1, run_units, &c) < 0 || atomic_load(&c.failed)) goto oom;
    if (merge_keys(run, run->wbuf, run->threads, &run->cand, &run->cap_cand, &run->ncand)) goto oom;
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
    int rc = build_units(run, &us);
    if (rc == 1) return CLASH_OK;
    pc_ctx c = {.oc = {.run = run, .max_level = run->level_used}};
    atomic_init(&c.oc.failed, 0);
    c.tested = calloc(clash_team(run) * 8, sizeof(int64_t));
    if (rc < 0 || !c.tested || !(c.oc.ws = get_ws(run))) goto oom;
    c.oc.units = us.u, c.oc.unit_faces = us.faces.v, c.oc.order = us.order, c.oc.order_n = us.norder;
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
