/*
 * objoctree.c — stage S4 as object octrees (`--midphase objoctree`), the
 * mid stage of Kitamura, Takemura & Kishino 1994 ([KTK94] §4.2.2–4.2.3) and
 * Kitamura, Takemura, Ahuja & Kishino 1994 ([KTAK94] §3.2.1–3.2.3).
 *
 * The papers' three stages: a coarse test of bounding shapes (here S2's
 * object pairs); a mid stage that intersects the octrees of the interfering
 * objects to find their interfering parts; a fine stage that tests only the
 * faces in the interfering octree nodes (S5, on the candidates left here).
 *
 * The octree of an object ([KTAK94] §2.2–2.3), built once before the first step
 * in the object's own frame (the store's local coordinates): the cube
 * around the object is divided recursively into octants down to a fixed
 * level L (--octree-level, else a leaf about twice the mean face box edge);
 * a node is gray when a face meets its cube (the exact triangle/box test,
 * kernels/tribox.c) and only gray nodes are divided.  Black (interior) and
 * white nodes are not kept: a black node holds no face, so interfering
 * black nodes (deep interpenetration) give no face pair to test.  The gray
 * leaves keep their faces ([KTAK94] §5's octree "which associates the nodes
 * with the faces ... intersecting them"), each face linked to one leaf,
 * its home, whose box encloses its home faces whole (localtree.c says why).
 *
 * The octree update ([KTAK94] §3.2.1, after Weng & Ahuja): "moves each of the
 * black leaf nodes and constructs subtrees corresponding to the displaced
 * nodes; it tests the intersections of moved cubes with octree
 * tessellation", a voxel being marked "if any part of its boundary is on or
 * inside a displaced cube" — conservatively.  Here every leaf of an object
 * in one of S2's pairs ([KTK94] §4.2.2: the octrees are updated only once the
 * bounding shapes interfere) whose box meets the object's overlap regions
 * is moved by the object's pose at s (and at s-1 in swept mode, the two
 * joined), grown by S1's delta (which covers the float rounding of S0's
 * positions, stages/boxes.c) and, swept, by a turning object's bound on
 * its faces' arc margins (store/turn.c), and rounded outward; the cells of the world
 * tessellation its moved box touches are marked: the object's world
 * octree, a linear octree (its cells' Morton codes, sorted).
 *
 * The world tessellation: one grid of cell edge h0 (a power of two no
 * larger than the smallest world leaf edge, fixed at the build) over
 * ±2^20 cells around the origin (boxes beyond are clamped to the border
 * cells, conservatively); object o marks cells at its own level k_o, of
 * edge h0·2^k_o >= its world leaf edge (coarser for a step when its moved
 * boxes would mark too many).  A level-k cell is the Morton prefix of its
 * level-0 cells, so two objects' octrees are intersected at the coarser of
 * their levels by a merge of their sorted codes: the papers' parallel
 * traversal down to "a predetermined lowest level", where "any pair of
 * corresponding gray nodes is considered to be interfering".
 *
 * Faces in the interfering nodes ([KTK94] §4.2.3): the leaf pairs of each
 * interfering cell whose moved boxes overlap, sorted and de-duplicated,
 * give the face pairs between their home faces; a pair is a candidate when
 * eligible and its S1 face boxes overlap grown by delta (the oracle's
 * predicate).  A contact point (or a point of both swept hulls) lies in
 * the two home leaves' moved boxes, so in a cell both mark: the candidates
 * hold every pair the narrow test accepts, and the pair sets equal the
 * oracle's.  With self-collision each object's own cells are searched the
 * same way (a leaf with itself and with every leaf sharing a cell).
 *
 * Work: the updates run in parallel over the objects; the merges in units
 * of one object pair's code range (or one object's, for self-collision),
 * split at cell boundaries so that a big pair spreads over the team; each
 * worker appends its candidates to its own buffer, and the buffers are
 * merged, sorted and de-duplicated (clash_mid_gather).  Deforming scenes
 * never come here (the pipeline runs the face octree).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/sort.h"
#include "base/tuning.h"
#include "kernels/kernels.h"
#include "stages/mid/localtree.h"
#include "stages/mid/midphase.h"

enum { WBITS = 21, WBIAS = 1 << 20 };

typedef struct oo_obj {
    int depth, wlevel, klevel;  /* octree level; world level (built), level this step */
    int32_t nleaf;              /* gray leaves that are some face's home */
    double leaf_edge;           /* world edge of a leaf cube */
    float *ext;                 /* 6 per leaf: lo[3] hi[3], the box of its home faces (local) */
    int32_t *fofs;              /* nleaf + 1: each leaf's home faces face[fofs[l], fofs[l+1]) */
    uint32_t *face;             /* (global numbers) */
    size_t nent, capent;        /* this step: the marked world cells, sorted by code */
    uint64_t *code;
    uint32_t *lidx;
    float *wbox;                /* 6 per leaf: the moved, grown boxes of this step */
    uint8_t *live;              /* leaf moved this step (meets a region) */
} oo_obj;

typedef struct wscratch {      /* per worker */
    uint64_t *k, *k2;           /* leaf pairs; the sort buffer (leaf pairs or entry codes) */
    uint32_t *l2;               /* the sort buffer of the entries' leaves */
    size_t capk, capk2, capl2;
    int64_t cells;              /* interfering cells met */
} wscratch;

struct clash_objoct {
    oo_obj *o;
    wscratch *ws;               /* per worker, kept between steps */
    double inv_h0;
    size_t bytes;
    int depth;                  /* the deepest object octree (reported as the step's octree level) */
};


/* ---- the build: one octree per object in its local frame ---------------------------- */

typedef struct bctx {
    const clash_scene *sc;
    int L;
    double org[3], edge;
    uint32_t *pool;               /* face lists of the open cells, a stack */
    size_t npool, cappool;
    int32_t *fofs;                /* the gray leaves: the faces meeting each */
    uint32_t *face;
    double *cube;                 /* per leaf: centre[3], half edge */
    size_t nleaf, nface, capface, capfofs, capcube;
    int failed;
} bctx;

/* Cell (level, ix, iy, iz) holding the faces pool[ofs, ofs+n) that meet
 * it: a gray leaf at level L, else divided into the octants its faces meet
 * (the exact triangle/box test). */
static void subdivide(bctx *b, int level, const int64_t ix[3], size_t ofs, size_t n)
{
    const double h = b->edge / (double)(1ll << level);
    if (level == b->L) {
        if (clash_grow((void **)&b->fofs, &b->capfofs, b->nleaf + 2, sizeof(int32_t)) ||
            clash_grow((void **)&b->face, &b->capface, b->nface + n, sizeof(uint32_t)) ||
            clash_grow((void **)&b->cube, &b->capcube, 4 * (b->nleaf + 1), sizeof(double))) {
            b->failed = 1;
            return;
        }
        memcpy(b->face + b->nface, b->pool + ofs, n * sizeof(uint32_t)), b->nface += n;
        for (int d = 0; d < 3; ++d) b->cube[4 * b->nleaf + d] = b->org[d] + ((double)ix[d] + 0.5) * h;
        b->cube[4 * b->nleaf + 3] = 0.5 * h;
        if (b->nleaf == 0) b->fofs[0] = 0;
        b->fofs[++b->nleaf] = (int32_t)b->nface;
        return;
    }
    for (int c = 0; c < 8 && !b->failed; ++c) {
        const int64_t jx[3] = {2 * ix[0] + (c & 1), 2 * ix[1] + (c >> 1 & 1), 2 * ix[2] + (c >> 2)};
        double lo[3], hi[3];
        for (int d = 0; d < 3; ++d) lo[d] = b->org[d] + (double)jx[d] * h / 2, hi[d] = lo[d] + h / 2;
        if (clash_grow((void **)&b->pool, &b->cappool, b->npool + n, sizeof(uint32_t))) {
            b->failed = 1;
            return;
        }
        const size_t top = b->npool;
        for (size_t i = 0; i < n; ++i) {
            double v[3][3];
            lt_face_local(b->sc, b->pool[ofs + i], v);
            if (ck_tribox(v[0], v[1], v[2], lo, hi)) b->pool[b->npool++] = b->pool[ofs + i];
        }
        if (b->npool > top) subdivide(b, level + 1, jx, top, b->npool - top);
        b->npool = top;
    }
}

/* The leaves that are some face's home, with their home faces and the box
 * around them (local, rounded outward); the others are dropped. */
static int keep_homes(bctx *b, oo_obj *t, int64_t f0, int64_t nf)
{
    int32_t *hofs = malloc(sizeof(int32_t) * (b->nleaf + 1));
    t->face = malloc(sizeof(uint32_t) * (size_t)nf);
    t->fofs = malloc(sizeof(int32_t) * (b->nleaf + 1));
    t->ext = malloc(sizeof(float) * 6 * (b->nleaf + 1));
    if (!hofs || !t->face || !t->fofs || !t->ext ||
        lt_homes(b->sc, f0, nf, b->nleaf, b->fofs, b->face, b->cube, hofs, t->face)) {
        free(hofs);
        return -1;
    }
    int32_t n = 0;
    t->fofs[0] = 0;
    for (size_t l = 0; l < b->nleaf; ++l) {
        if (hofs[l + 1] == hofs[l]) continue;
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int32_t x = hofs[l]; x < hofs[l + 1]; ++x) {
            double v[3][3];
            lt_face_local(b->sc, t->face[x], v);
            for (int k = 0; k < 3; ++k)
                for (int d = 0; d < 3; ++d) lo[d] = fmin(lo[d], v[k][d]), hi[d] = fmax(hi[d], v[k][d]);
        }
        for (int d = 0; d < 3; ++d) t->ext[6 * n + d] = lt_down(lo[d]), t->ext[6 * n + 3 + d] = lt_up(hi[d]);
        t->fofs[++n] = hofs[l + 1];
    }
    free(hofs);
    t->nleaf = n;
    return 0;
}

/* Builds object o's octree (its level: lt_root, a leaf about two faces wide). */
static int build_obj(const clash_scene *sc, int o, int req, oo_obj *t)
{
    memset(t, 0, sizeof *t);
    double cx[3], edge;
    const int L = lt_root(sc, o, req, 2.0, cx, &edge);
    if (L < 0) return 0;
    const int64_t nf = sc->fofs[o + 1] - sc->fofs[o];
    t->depth = L;
    bctx b = {.sc = sc, .L = L, .edge = edge};
    for (int d = 0; d < 3; ++d) b.org[d] = cx[d] - 0.5 * edge;
    if (clash_grow((void **)&b.pool, &b.cappool, (size_t)nf, sizeof(uint32_t))) return -1;
    for (int64_t f = 0; f < nf; ++f) b.pool[b.npool++] = (uint32_t)(sc->fofs[o] + f);
    const int64_t root[3] = {0, 0, 0};
    subdivide(&b, 0, root, 0, b.npool);
    free(b.pool);
    t->leaf_edge = edge / (double)(1 << L) * fabs(sc->obj_scale[o]);
    const int bad = b.failed || keep_homes(&b, t, sc->fofs[o], nf);
    free(b.fofs), free(b.face), free(b.cube);
    if (bad) return -1;
    t->wbox = malloc(sizeof(float) * 6 * (size_t)(t->nleaf + 1));
    t->live = malloc((size_t)t->nleaf + 1);
    return t->wbox && t->live ? 0 : -1;
}

static int build_one(void *p, int64_t o)
{
    const clash_run *run = p;
    return build_obj(run->sc, (int)o, run->cfg.octree_level, &run->mid->objoct->o[o]);
}

void clash_objoct_free(clash_run *run)
{
    struct clash_objoct *S = run->mid->objoct;
    if (!S) return;
    for (int o = 0; o < run->sc->nobj; ++o) {
        oo_obj *t = &S->o[o];
        free(t->ext), free(t->fofs), free(t->face), free(t->code), free(t->lidx), free(t->wbox), free(t->live);
    }
    if (S->ws)
        for (size_t w = 0; w < clash_team(run); ++w) free(S->ws[w].k), free(S->ws[w].k2), free(S->ws[w].l2);
    free(S->ws), free(S->o), free(S);
    run->mid->objoct = NULL;
}

static int build_all(clash_run *run)
{
    const clash_scene *sc = run->sc;
    struct clash_objoct *S = calloc(1, sizeof *S);
    if (!S || !(S->o = calloc((size_t)sc->nobj + 1, sizeof(oo_obj))) ||
        !(S->ws = calloc(clash_team(run), sizeof(wscratch)))) {
        if (S) free(S->o);
        free(S);
        return -1;
    }
    run->mid->objoct = S;
    if (clash_par_each(&run->exec, sc->nobj, build_one, run)) return -1;
    double emin = INFINITY;
    for (int o = 0; o < sc->nobj; ++o)
        if (S->o[o].nleaf && S->o[o].leaf_edge > 0) emin = fmin(emin, S->o[o].leaf_edge);
    const int e0 = isfinite(emin) ? (int)floor(log2(emin)) : 0;
    S->inv_h0 = ldexp(1.0, -e0);
    for (int o = 0; o < sc->nobj; ++o) {
        oo_obj *t = &S->o[o];
        const int k = t->nleaf && t->leaf_edge > 0 ? (int)ceil(log2(t->leaf_edge * S->inv_h0) - 1e-12) : 0;
        t->wlevel = k < 0 ? 0 : k > WBITS - 1 ? WBITS - 1 : k;
        if (t->nleaf && t->depth > S->depth) S->depth = t->depth;
        S->bytes += (size_t)t->nleaf * (12 * sizeof(float) + sizeof(int32_t) + 1) +
                    (size_t)(t->nleaf ? t->fofs[t->nleaf] : 0) * sizeof(uint32_t);
    }
    return 0;
}

/* ---- the octree update: the moved leaves marked in the world tessellation ------------ */

static inline uint64_t spread3(uint64_t x)
{
    x &= 0x1fffff;
    x = (x | x << 32) & 0x1f00000000ffffull;
    x = (x | x << 16) & 0x1f0000ff0000ffull;
    x = (x | x << 8) & 0x100f00f00f00f00full;
    x = (x | x << 4) & 0x10c30c30c30c30c3ull;
    x = (x | x << 2) & 0x1249249249249249ull;
    return x;
}

static inline int64_t cell0(double v, double inv)
{
    const double c = floor(v * inv) + WBIAS;
    return c < 0 ? 0 : c > (double)((1 << WBITS) - 1) ? (1 << WBITS) - 1 : (int64_t)c;
}

/* Sorts n entries (code, leaf) by code: LSD radix over the bytes that vary. */
static int sort_entries(wscratch *w, uint64_t *code, uint32_t *leaf, size_t n)
{
    if (n < 2) return 0;
    if (clash_grow((void **)&w->k2, &w->capk2, n, sizeof(uint64_t)) ||
        clash_grow((void **)&w->l2, &w->capl2, n, sizeof(uint32_t)))
        return -1;
    uint64_t diff = 0;
    for (size_t i = 1; i < n; ++i) diff |= code[i] ^ code[0];
    uint64_t *a = code, *b = w->k2;
    uint32_t *la = leaf, *lb = w->l2;
    for (int sh = 0; sh < 64; sh += 8) {
        if (!(diff >> sh & 0xff)) continue;
        size_t cnt[257] = {0};
        for (size_t i = 0; i < n; ++i) cnt[(a[i] >> sh & 0xff) + 1]++;
        for (int d = 0; d < 256; ++d) cnt[d + 1] += cnt[d];
        for (size_t i = 0; i < n; ++i) {
            const size_t j = cnt[a[i] >> sh & 0xff]++;
            b[j] = a[i], lb[j] = la[i];
        }
        uint64_t *t = a;
        a = b, b = t;
        uint32_t *u = la;
        la = lb, lb = u;
    }
    if (a != code) memcpy(code, a, n * sizeof *code), memcpy(leaf, la, n * sizeof *leaf);
    return 0;
}

/* Room for n entries in both arrays (one capacity for the two). */
static int reserve_entries(oo_obj *t, size_t n)
{
    if (n <= t->capent) return 0;
    size_t c = t->capent ? t->capent : 256;
    while (c < n) c *= 2;
    uint64_t *k = realloc(t->code, c * sizeof *k);
    if (!k) return -1;
    t->code = k;
    uint32_t *l = realloc(t->lidx, c * sizeof *l);
    if (!l) return -1;
    t->lidx = l, t->capent = c;
    return 0;
}

typedef struct upd_ctx {
    clash_run *run;
    const int32_t *objs;
    const clash_box *rbox;   /* per object: union of its regions */
    wscratch *ws;
    int failed;
} upd_ctx;

static int update_obj(clash_run *run, wscratch *w, int o, const clash_box *rb)
{
    oo_obj *t = &run->mid->objoct->o[o];
    const clash_scene *sc = run->sc;
    const int np = run->cfg.mode == CLASH_MODE_SWEPT ? 2 : 1;
    /* swept, a turning object: its faces' arc margins (stages/facetest.h) grow the moved boxes too */
    const double inv = run->mid->objoct->inv_h0, dl = run->boxes->delta + (np == 2 ? sc->turn[o].bound : 0);
    double M[2][9], T[2][3];
    for (int k = 0; k < np; ++k) lt_pose(sc, o, k, M[k], T[k]);
    /* moved boxes; cells they would mark at the object's level */
    double cells = 0;
    size_t nlive = 0;
    for (int32_t l = 0; l < t->nleaf; ++l) {
        const float *e = t->ext + 6 * l;
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        const double c[3] = {0.5 * ((double)e[0] + e[3]), 0.5 * ((double)e[1] + e[4]), 0.5 * ((double)e[2] + e[5])};
        const double h[3] = {0.5 * ((double)e[3] - e[0]), 0.5 * ((double)e[4] - e[1]), 0.5 * ((double)e[5] - e[2])};
        for (int k = 0; k < np; ++k)
            for (int d = 0; d < 3; ++d) {
                const double *m = M[k] + 3 * d;
                const double wc = m[0] * c[0] + m[1] * c[1] + m[2] * c[2] + T[k][d];
                const double wh = fabs(m[0]) * h[0] + fabs(m[1]) * h[1] + fabs(m[2]) * h[2];
                lo[d] = lt_min(lo[d], wc - wh), hi[d] = lt_max(hi[d], wc + wh);
            }
        float *b = t->wbox + 6 * l;
        for (int d = 0; d < 3; ++d) b[d] = lt_down(lo[d] - dl), b[3 + d] = lt_up(hi[d] + dl);
        t->live[l] = b[0] <= rb->hi[0] && rb->lo[0] <= b[3] && b[1] <= rb->hi[1] && rb->lo[1] <= b[4] &&
                     b[2] <= rb->hi[2] && rb->lo[2] <= b[5];
        if (!t->live[l]) continue;
        ++nlive;
        double n = 1;
        for (int d = 0; d < 3; ++d)
            n *= (double)((cell0(b[3 + d], inv) >> t->wlevel) - (cell0(b[d], inv) >> t->wlevel) + 1);
        cells += n;
    }
    /* a leaf marks about 8 cells; a fast object's long swept boxes mark
     * many more: then this step marks them at a coarser level */
    int k = t->wlevel;
    while (k < WBITS - 1 && cells > 32.0 * (double)nlive + 4096) cells /= 8, ++k;
    t->klevel = k;
    t->nent = 0;
    if (reserve_entries(t, (size_t)cells + 1)) return -1;
    for (int32_t l = 0; l < t->nleaf; ++l) {
        if (!t->live[l]) continue;
        const float *b = t->wbox + 6 * l;
        int64_t a[3], z[3];
        for (int d = 0; d < 3; ++d) a[d] = cell0(b[d], inv) >> k, z[d] = cell0(b[3 + d], inv) >> k;
        const size_t n = (size_t)((z[0] - a[0] + 1) * (z[1] - a[1] + 1) * (z[2] - a[2] + 1));
        if (reserve_entries(t, t->nent + n)) return -1;
        for (int64_t x = a[0]; x <= z[0]; ++x)
            for (int64_t y = a[1]; y <= z[1]; ++y)
                for (int64_t zz = a[2]; zz <= z[2]; ++zz) {
                    t->code[t->nent] = spread3((uint64_t)x) | spread3((uint64_t)y) << 1 | spread3((uint64_t)zz) << 2;
                    t->lidx[t->nent++] = (uint32_t)l;
                }
    }
    return sort_entries(w, t->code, t->lidx, t->nent);
}

static void update_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    upd_ctx *c = p;
    for (int64_t i = begin; i < end; i += step)
        if (update_obj(c->run, &c->ws[worker], c->objs[i], &c->rbox[c->objs[i]])) c->failed = 1;
}

/* ---- the mid stage: the world octrees intersected, the faces of the interfering nodes -- */

typedef struct unit {
    int32_t a, b;     /* objects (a == b: self-collision) */
    size_t begin, end; /* a's entries */
} unit;

typedef struct join_ctx {
    clash_run *run;
    const unit *u;
    wscratch *ws;
    int failed;
} join_ctx;

static inline int boxes_meet(const float *p, const float *q)
{
    return p[0] <= q[3] && q[0] <= p[3] && p[1] <= q[4] && q[1] <= p[4] && p[2] <= q[5] && q[2] <= p[5];
}

static inline int push_pair(wscratch *w, size_t *n, uint64_t key)
{
    if (clash_grow((void **)&w->k, &w->capk, *n + 1, sizeof(uint64_t))) return -1;
    w->k[(*n)++] = key;
    return 0;
}

/* The candidates among the home faces of the leaf pairs lp[0..n) (sorted, unique). */
static int emit_faces(const clash_run *run, const oo_obj *A, const oo_obj *B, const uint64_t *lp, size_t n,
                      clash_keybuf *kb)
{
    for (size_t i = 0; i < n; ++i) {
        const uint32_t la = (uint32_t)(lp[i] >> 32), lb = (uint32_t)lp[i];
        if (lt_pairs(run, kb, A->face + A->fofs[la], A->fofs[la + 1] - A->fofs[la], B->face + B->fofs[lb],
                     B->fofs[lb + 1] - B->fofs[lb], A == B && la == lb))
            return -1;
    }
    return 0;
}

static int join_unit(clash_run *run, wscratch *w, clash_keybuf *kb, const unit *u)
{
    const oo_obj *A = &run->mid->objoct->o[u->a], *B = &run->mid->objoct->o[u->b];
    size_t n = 0;
    if (u->a == u->b) { /* one object's cells: each leaf with itself and its cell mates */
        for (size_t i = u->begin; i < u->end;) {
            size_t i2 = i + 1;
            while (i2 < u->end && A->code[i2] == A->code[i]) ++i2;
            w->cells += i2 - i > 1;
            for (size_t x = i; x < i2; ++x)
                for (size_t y = x; y < i2; ++y) {
                    const uint32_t p = A->lidx[x], q = A->lidx[y];
                    if (y > x && !boxes_meet(A->wbox + 6 * p, A->wbox + 6 * q)) continue;
                    if (push_pair(w, &n, p < q ? (uint64_t)p << 32 | q : (uint64_t)q << 32 | p)) return -1;
                }
            i = i2;
        }
    } else {
        const int K = A->klevel > B->klevel ? A->klevel : B->klevel;
        const int sa = 3 * (K - A->klevel), sb = 3 * (K - B->klevel);
        const uint64_t first = A->code[u->begin] >> sa;
        size_t lo = 0, hi = B->nent; /* first entry of B at or after `first` */
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (B->code[mid] >> sb < first) lo = mid + 1;
            else hi = mid;
        }
        size_t i = u->begin, j = lo;
        while (i < u->end && j < B->nent) {
            const uint64_t ca = A->code[i] >> sa, cb = B->code[j] >> sb;
            if (ca < cb) {
                ++i;
                continue;
            }
            if (cb < ca) {
                ++j;
                continue;
            }
            size_t i2 = i + 1, j2 = j + 1;
            while (i2 < u->end && A->code[i2] >> sa == ca) ++i2;
            while (j2 < B->nent && B->code[j2] >> sb == ca) ++j2;
            ++w->cells;
            for (size_t x = i; x < i2; ++x)
                for (size_t y = j; y < j2; ++y) {
                    const uint32_t p = A->lidx[x], q = B->lidx[y];
                    if (boxes_meet(A->wbox + 6 * p, B->wbox + 6 * q) && push_pair(w, &n, (uint64_t)p << 32 | q))
                        return -1;
                }
            i = i2, j = j2;
        }
    }
    if (clash_grow((void **)&w->k2, &w->capk2, n, sizeof(uint64_t))) return -1;
    n = clash_sort_unique_u64_tmp(w->k, n, w->k2);
    if (n == (size_t)-1) return -1;
    return emit_faces(run, A, B, w->k, n, kb);
}

static void join_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    join_ctx *c = p;
    for (int64_t i = begin; i < end; i += step)
        if (join_unit(c->run, &c->ws[worker], &c->run->mid->wbuf[worker], &c->u[i])) c->failed = 1;
}

/* Units of one (a, b) merge: a's entries cut into pieces of about `chunk`
 * at cell boundaries of the merge level. */
static int add_units(unit **u, size_t *n, size_t *cap, const struct clash_objoct *S, int32_t a, int32_t b, size_t chunk)
{
    const oo_obj *A = &S->o[a], *B = &S->o[b];
    if (!A->nent || !B->nent) return 0;
    const int K = A->klevel > B->klevel ? A->klevel : B->klevel, sa = 3 * (K - A->klevel);
    for (size_t s = 0; s < A->nent;) {
        size_t e = s + chunk < A->nent ? s + chunk : A->nent;
        while (e < A->nent && A->code[e] >> sa == A->code[e - 1] >> sa) ++e;
        if (clash_grow((void **)u, cap, *n + 1, sizeof(unit))) return -1;
        (*u)[(*n)++] = (unit){a, b, s, e};
        s = e;
    }
    return 0;
}

int clash_objoct_candidates(clash_run *run, clash_error *err)
{
    const clash_scene *sc = run->sc;
    const size_t T = clash_team(run);
    run->mid->cand.n = 0, run->mid->build_s = 0, run->mid->interfering = 0;
    if (sc->has_deforming) return clash_fail(err, CLASH_EINPUT, "objoctree: for rigid scenes only");
    if (!run->mid->objoct) {
        const double t0 = lt_now();
        if (build_all(run)) return clash_fail(err, CLASH_EFAIL, "out of memory building the object octrees");
        run->mid->build_s = lt_now() - t0;
    }
    struct clash_objoct *S = run->mid->objoct;
    const double t1 = lt_now();
    clash_box *rbox = malloc(sizeof(clash_box) * ((size_t)sc->nobj + 1));
    int32_t *objs = malloc(sizeof(int32_t) * ((size_t)sc->nobj + 1));
    wscratch *ws = S->ws;
    unit *u = NULL;
    size_t nu = 0, capu = 0, nobjs = 0;
    int rc = CLASH_OK;
    for (size_t w = 0; w < T; ++w) ws[w].cells = 0;
    if (!rbox || !objs) goto oom;
    for (int o = 0; o < sc->nobj; ++o)
        for (int d = 0; d < 3; ++d) rbox[o].lo[d] = INFINITY, rbox[o].hi[d] = -INFINITY;
    for (size_t i = 0; i < run->broad->nop; ++i) {
        const clash_objpair *p = &run->broad->op[i];
        for (int k = 0; k < 2; ++k) {
            clash_box *r = &rbox[k ? p->b : p->a];
            for (int d = 0; d < 3; ++d)
                r->lo[d] = fminf(r->lo[d], p->region.lo[d] - run->boxes->delta),
                r->hi[d] = fmaxf(r->hi[d], p->region.hi[d] + run->boxes->delta);
        }
    }
    for (int o = 0; o < sc->nobj; ++o) {
        if (run->cfg.self_collision && sc->fofs[o + 1] - sc->fofs[o] > 1 && clash_obj_self(run, o))
            for (int d = 0; d < 3; ++d) rbox[o].lo[d] = -INFINITY, rbox[o].hi[d] = INFINITY;
        S->o[o].nent = 0;
        if (rbox[o].lo[0] <= rbox[o].hi[0]) objs[nobjs++] = o;
    }
    upd_ctx uc = {run, objs, rbox, ws, 0};
    clash_par_tasks(&run->exec, (int64_t)nobjs, 1, update_range, &uc);
    if (uc.failed) goto oom;
    run->mid->update_s = lt_now() - t1;
    size_t total = 0;
    for (size_t i = 0; i < run->broad->nop; ++i) total += S->o[run->broad->op[i].a].nent;
    const size_t share = total / (8 * T) > CLASH_TUNE_OBJOCT_UNIT_MIN ? total / (8 * T) : CLASH_TUNE_OBJOCT_UNIT_MIN;
    const size_t chunk = T > 1 ? share : (size_t)-1 / 2;
    for (size_t i = 0; i < run->broad->nop; ++i)
        if (add_units(&u, &nu, &capu, S, run->broad->op[i].a, run->broad->op[i].b, chunk)) goto oom;
    if (run->cfg.self_collision)
        for (int o = 0; o < sc->nobj; ++o)
            if (sc->fofs[o + 1] - sc->fofs[o] > 1 && clash_obj_self(run, o) &&
                add_units(&u, &nu, &capu, S, o, o, chunk))
                goto oom;
    for (size_t w = 0; w < T; ++w) run->mid->wbuf[w].n = 0;
    join_ctx jc = {run, u, ws, 0};
    if (clash_par_tasks(&run->exec, (int64_t)nu, 1, join_range, &jc) < 0) {
        rc = clash_fail(err, CLASH_EINPUT, "schedule not available for the objoctree midphase");
        goto done;
    }
    if (jc.failed || clash_mid_gather(run)) goto oom;
    size_t bytes = S->bytes;
    for (int o = 0; o < sc->nobj; ++o) bytes += S->o[o].capent * (sizeof(uint64_t) + sizeof(uint32_t));
    run->mid->bytes = bytes, run->mid->level_used = S->depth;
    for (size_t w = 0; w < T; ++w) run->mid->interfering += ws[w].cells;
    goto done;
oom:
    rc = clash_fail(err, CLASH_EFAIL, "out of memory in the objoctree midphase");
done:
    free(u), free(objs), free(rbox);
    return rc;
}
