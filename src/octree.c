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
 * Parallelism: the top levels are expanded serially into work units (cells
 * with their face lists), which the coarse-grain strategy hands out; a big
 * object pair is thus split over many subtrees and cannot starve the others.
 *
 * Resolution: cfg.octree_level when set, else automatic: the level whose
 * voxel edge is closest to the mean edge of the kept faces' boxes, so a leaf
 * holds a handful of faces (the report used level 6 for 168-face spheres of
 * diameter 3.8 in a 32-voxel world: leaf 0.5, face edge ~0.4).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "kernels/kernels.h"
#include "pipeline.h"
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
    scratch *ws;   /* per worker */
    int failed;
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

/* Filters faces [ofs, ofs+n) of s into a new slice for child cube c. */
static size_t filter_child(clash_run *run, scratch *s, size_t ofs, size_t n, const double clo[3], const double chi[3])
{
    const size_t out = s->n;
    const float d = run->delta;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t f = s->v[ofs + i];
        if (run->lox[f] > chi[0] + d || run->hix[f] < clo[0] - d || run->loy[f] > chi[1] + d ||
            run->hiy[f] < clo[1] - d || run->loz[f] > chi[2] + d || run->hiz[f] < clo[2] - d)
            continue;
        if (clash_face_meets_box(run, f, clo, chi)) s->v[s->n++] = f;
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
        const size_t m = filter_child(run, s, ofs, n, clo, chi);
        if (visit(run, max_level, s, kb, clo, h, level + 1, mark, m)) return -1;
        s->n = mark;
    }
    return 0;
}

static void run_units(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    octx *c = p;
    scratch *s = &c->ws[worker];
    clash_keybuf *kb = &c->run->wbuf[worker];
    for (int64_t u = begin; u < end; u += step) {
        const unit *un = &c->units[u];
        s->n = 0;
        if (scratch_reserve(s, un->n)) {
            c->failed = 1;
            return;
        }
        memcpy(s->v, c->unit_faces + un->ofs, un->n * sizeof(uint32_t));
        s->n = un->n;
        if (visit(c->run, c->max_level, s, kb, un->lo, un->size, un->level, 0, un->n)) c->failed = 1;
    }
}

int clash_octree_candidates(clash_run *run, clash_error *err)
{
    run->ncand = 0;
    const size_t nk = run->nkept;
    if (nk < 2) return 0;
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

    /* Expand the top levels serially into work units. */
    const int unit_level = level < 3 ? level : 3;
    unit *units = NULL;
    size_t nunits = 0, capu = 0;
    scratch uf = {0}; /* units' faces */
    int rc = CLASH_OK;
    octx c = {.run = run, .max_level = level};
    c.ws = calloc((size_t)run->threads, sizeof(scratch));
    units = malloc(sizeof(unit) * (capu = 64));
    if (!c.ws || !units || scratch_reserve(&uf, nk)) goto oom;
    memcpy(uf.v, run->kept, nk * sizeof(uint32_t));
    uf.n = nk;
    units[nunits++] = (unit){{lo[0], lo[1], lo[2]}, size, 0, 0, nk};
    for (size_t u = 0; u < nunits;) {
        unit un = units[u];
        if (un.level >= unit_level || !node_may_pair(run, uf.v + un.ofs, un.n)) {
            ++u;
            continue;
        }
        /* replace unit u by its children (appended), processing breadth-first */
        units[u] = units[--nunits];
        const double h = un.size * 0.5;
        for (int ch = 0; ch < 8; ++ch) {
            const double clo[3] = {un.lo[0] + ((ch & 1) ? h : 0), un.lo[1] + ((ch & 2) ? h : 0),
                                   un.lo[2] + ((ch & 4) ? h : 0)};
            const double chi[3] = {clo[0] + h, clo[1] + h, clo[2] + h};
            if (scratch_reserve(&uf, un.n)) goto oom;
            const size_t mark = uf.n;
            const size_t m = filter_child(run, &uf, un.ofs, un.n, clo, chi);
            if (!node_may_pair(run, uf.v + mark, m)) {
                uf.n = mark;
                continue;
            }
            if (nunits == capu) {
                unit *nu = realloc(units, sizeof(unit) * (capu *= 2));
                if (!nu) goto oom;
                units = nu;
            }
            units[nunits++] = (unit){{clo[0], clo[1], clo[2]}, h, un.level + 1, mark, m};
        }
    }
    c.units = units;
    c.unit_faces = uf.v;
    for (int w = 0; w < run->threads; ++w) run->wbuf[w].n = 0;
    if (clash_par_tasks(&run->exec, (int64_t)nunits, 1, run_units, &c) < 0) {
        rc = clash_fail(err, CLASH_EINPUT, "schedule not available for the octree midphase");
        goto done;
    }
    if (c.failed) goto oom;
    size_t total = 0;
    for (int w = 0; w < run->threads; ++w) total += run->wbuf[w].n;
    if (total > run->cap_cand) {
        uint64_t *nc = realloc(run->cand, total * sizeof *nc);
        if (!nc) goto oom;
        run->cand = nc, run->cap_cand = total;
    }
    size_t n = 0;
    for (int w = 0; w < run->threads; ++w) {
        if (run->wbuf[w].n) memcpy(run->cand + n, run->wbuf[w].v, run->wbuf[w].n * sizeof(uint64_t));
        n += run->wbuf[w].n;
    }
    n = clash_sort_unique_u64(run->cand, n);
    if (n == (size_t)-1) goto oom;
    run->ncand = n;
    goto done;
oom:
    rc = clash_fail(err, CLASH_EFAIL, "out of memory in the octree midphase");
done:
    if (c.ws)
        for (int w = 0; w < run->threads; ++w) free(c.ws[w].v);
    free(c.ws);
    free(units);
    free(uf.v);
    return rc < 0 ? CLASH_EFAIL : rc;
}
