/*
 * ccd.c — exact continuous collision detection after S5 (--ccd):
 * the step's colliding face pairs become primitive pairs, each tested
 * exactly by the kernel (kernels/ccd.h) for a contact and its time of
 * impact (toi) within the step, t in [0, 1] from state s-1 to state s.
 *
 * Why S5's hits: the swept-hull test is conservative (two faces whose
 * primitives touch during the step have meeting hulls), so the hits are a
 * superset of the face pairs that hold a primitive contact, and the hull test
 * stays the prefilter.  With --min-separation D the hull test runs with
 * tol = D and S1 grows every box by D/2 (boxes.c), so pairs within D survive.
 *
 * From face pairs to primitive pairs.  A face pair (A, B) gives the 3
 * vertices of A against face B and the 3 of B against face A (vf), and the 3
 * edges of A against the 3 of B (ee); pairs whose primitives share a vertex
 * are dropped (self-collision).  A vertex lies in many faces and an edge in
 * two, so the same primitive pair would come from several face pairs, most
 * of which are hits only because their other primitives are close.  So
 * each primitive has an owner, the smallest store face holding it
 * (core/edges.h), and a primitive pair is made only from its owners' face
 * pair: (owner(v), B) for vf, (owner(a), owner(b)) for ee.  That loses no
 * contact: a primitive lies in its owner face at every time of the step
 * (the same vertices, on the same motion), so when the primitives come
 * within min_sep the owner faces' swept hulls (grown by the same
 * tolerance) do too, and S4 and S5, which miss no face pair whose hulls
 * meet, made that face pair a hit.  The one face pair they never test is
 * one clash_pair_eligible refuses: two faces of one object sharing a vertex
 * (self-collision), whose primitives need not share one; a primitive pair
 * whose owners' pair is refused is made from every hit that holds it, as
 * before the owners.  On the scenes of bench/RESULTS.md this takes some
 * half of the primitive pairs away without changing a contact.  Not with
 * --min-separation D > 0: there a contact is a pair within D in the max
 * norm (clash.h), which holds pairs up to sqrt(3) D apart, and S5 keeps
 * the face pairs within D (Euclidean); so a contact in that band is found
 * only where some hit holds it, and the owners' pair need not be one:
 * every hit's pairs are made, and the contacts stay those of every hit.
 * The keys
 * are then sorted and de-duplicated (the refused owners' pairs repeat, and
 * the sort gives the output order).  Keys are in input numbering, so that their
 * order is the output order and does not depend on the store's:
 *   vf: global input vertex << 32 | global input face    (vertex first)
 *   ee: global edge a << 32 | global edge b, a < b        (edges.h numbering)
 * "Global" = object offset + id inside the object, so sorting keys sorts by
 * (obj_a, id_a, obj_b, id_b).
 *
 * Objects that turn.  The kernel moves every point on a straight line from
 * state s-1 to state s, which is the motion of deforming objects and of
 * objects that do not turn.  A primitive pair with a point on an object that
 * turns during the step (S0's turn: the screw between two host poses, or a
 * scene file's pose formula) goes to ck_ccd_rigid instead
 * (kernels/ccd_motion.c): the linear kernel on sub-steps of that motion,
 * the turning object's points computed in double from its local mesh and
 * the pose at each sub-step's ends, the chords' deviation from the paths
 * added to min_sep (each such pair counts once in the report's tests: a hit,
 * filter_no when the filters decided every sub-step, else an exact call).
 * The other pairs, and every pair of a step where nothing turns, take the
 * linear kernel as before, bit for bit.
 *
 * No prefilter of its own: the primitives' swept hulls (ck_hulls_meet) set
 * apart most of armadillo-rollers' primitive pairs before the kernel, but
 * since the kernel's root finder clears a pair that does not touch in a
 * few boxes, the hulls cost more than they spare (bench/RESULTS.md).  So
 * every primitive
 * pair goes to ck_ccd_batch, whose float filter runs first, in blocks; the
 * report's hull_no stays 0.
 *
 * Parallel.  The face pairs are split over the workers (coarse grain, the
 * run's schedule), each into its own key buffers; the buffers are merged,
 * sorted and de-duplicated; then the primitive pairs go to the kernel in
 * blocks (ck_ccd_batch), again by the run's schedule, each result written to
 * the pair's own slot.  So the contacts do not depend on the team or the
 * schedule.  Under MPI each rank treats the hits it tested in S5 and the
 * contacts are gathered to rank 0 as (kind, key, toi) triples, sorted and
 * de-duplicated there (a primitive pair found on two ranks has the same
 * result on both: the same inputs to a deterministic kernel).
 */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/sort.h"
#include "base/tuning.h"
#include "core/edges.h"
#include "kernels/ccd.h"
#include "kernels/ccd_motion.h"
#include "sched/ranks.h"
#include "stages/stages.h"

/* One worker's ccd counts, on its own cache line: the kernel's, and the
 * pairs set apart before the kernel (none since the hull prefilter went: 0). */
typedef struct ccd_slot {
    ck_ccd_counts c;
    int64_t hull_no;
    int64_t oom;        /* the generation ran out of memory */
    char pad_[CLASH_CACHE_LINE - (sizeof(ck_ccd_counts) + 16) % CLASH_CACHE_LINE];
} ccd_slot;

struct clash_ccd {
    clash_keybuf *vfb, *eeb;    /* per-worker key buffers of the generation */
    uint64_t *recent;           /* per worker: 2 * CCD_RECENT keys it pushed lately (vf, ee) */
    uint64_t *hits;             /* this rank's S5 hits (store face keys) */
    size_t cap_hits;
    uint64_t *key;              /* the primitive pairs: nvf vf keys, then nee ee keys */
    size_t nvf, nee, cap_key;
    uint8_t *hit;               /* per primitive pair: the kernel's answer */
    double *toi;
    size_t cap_hit, cap_toi;
    ccd_slot *slot;             /* per worker */
    /* this step's motions of the objects that turn (turning 0: none does) */
    int turning;
    int *motion_of;             /* per object: its motion in motion[], or -1 (moves on straight lines) */
    ck_rigid *motion;
    size_t cap_motion_of, cap_motion;
};

void clash_stage_ccd_free(clash_run *run)
{
    struct clash_ccd *c = run->ccd;
    if (c) {
        for (size_t w = 0; w < clash_team(run); ++w) {
            if (c->vfb) free(c->vfb[w].v);
            if (c->eeb) free(c->eeb[w].v);
        }
        free(c->vfb), free(c->eeb), free(c->recent), free(c->hits), free(c->key), free(c->hit), free(c->toi), free(c->slot);
        free(c->motion_of), free(c->motion);
        free(c);
    }
    run->ccd = NULL;
    clash_edges_free(run->edges);
    run->edges = NULL;
    free(run->contacts);
    run->contacts = NULL, run->ncontacts = run->cap_contacts = 0;
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap) return 0;
    void *q = realloc(*p, (n + n / 4 + 16) * size);
    if (!q) return -1;
    *p = q, *cap = n + n / 4 + 16;
    return 0;
}

/* ---- face pairs to primitive pairs ------------------------------------------------------ */

/* Neighbouring hits give the same primitive pairs again and again (a vertex
 * lies in ~6 faces, an edge in 2), and hits come in store order, which is
 * spatial.  So each worker remembers the keys it pushed lately in a small
 * direct-mapped table and skips a key found there: several times fewer keys
 * to sort on real meshes.  It only thins duplicates; the sort removes the rest,
 * so the result does not depend on what the table caught. */
enum { CCD_RECENT_BITS = 12, CCD_RECENT = 1 << CCD_RECENT_BITS };

static int push_new(clash_keybuf *b, uint64_t *recent, uint64_t key)
{
    uint64_t *slot = recent + ((key * 0x9e3779b97f4a7c15ull) >> (64 - CCD_RECENT_BITS));
    if (*slot == key) return 0;
    *slot = key;
    return clash_keybuf_push(b, key);
}

typedef struct gen_ctx {
    clash_run *run;
} gen_ctx;

static int shares(uint32_t a0, uint32_t a1, uint32_t b0, uint32_t b1)
{
    return a0 == b0 || a0 == b1 || a1 == b0 || a1 == b1;
}

/* Whether two triangles' vertex triples have a vertex in common: each of
 * a's three against o's three (o's last twice) as four-lane compares, no
 * branch (the answers come in no order a branch could learn). */
typedef int32_t tri_v4 __attribute__((vector_size(16)));
static inline int tri_shares(const int32_t a[3], const int32_t o[3])
{
    const tri_v4 w = {o[0], o[1], o[2], o[2]};
    const tri_v4 m = (w == a[0]) | (w == a[1]) | (w == a[2]);
    uint64_t h[2];
    memcpy(h, &m, sizeof h);
    return (h[0] | h[1]) != 0;
}

static inline void face_verts(const clash_scene *sc, uint32_t g, int32_t w[3])
{
    w[0] = sc->f0[g], w[1] = sc->f1[g], w[2] = sc->f2[g];
}

static void gen_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    gen_ctx *g = p;
    clash_run *run = g->run;
    const clash_scene *sc = run->sc;
    const clash_edges *E = run->edges;
    clash_keybuf *vfb = &run->ccd->vfb[worker], *eeb = &run->ccd->eeb[worker];
    uint64_t *rvf = run->ccd->recent + 2 * CCD_RECENT * (size_t)worker, *ree = rvf + CCD_RECENT;
    const int every = run->debug.ccd_every_hit || run->cfg.min_separation > 0; /* (see the top) */
    int bad = 0;
    for (int64_t i = begin; i < end; i += step) {
        const uint64_t k = run->ccd->hits[i];
        const uint32_t f[2] = {(uint32_t)(k >> 32), (uint32_t)k};
        int32_t v[2][3];
        for (int s = 0; s < 2; ++s) v[s][0] = sc->f0[f[s]], v[s][1] = sc->f1[f[s]], v[s][2] = sc->f2[f[s]];
        /* clash_pair_eligible of an owners' pair: the hit's objects are the
         * owners' (a primitive's owner is in its object), so across objects
         * it is the hit's answer, yes; within one, no where the two owner
         * faces share a vertex (or are one face).  A hit shares no vertex
         * (clash_pair_eligible), so neither do its primitives; `adj` only
         * guards that. */
        const int self = run->face_obj[f[0]] == run->face_obj[f[1]];
        const int adj = tri_shares(v[0], v[1]);
        /* vf: each vertex of one face against the other face, from the
         * vertex's owner face (or from any, see the top) */
        for (int s = 0; s < 2; ++s) {
            const uint64_t face_in = (uint64_t)clash_face_orig(sc, f[1 - s]);
            const int32_t *o = v[1 - s];
            for (int c = 0; c < 3; ++c) {
                const int32_t x = v[s][c];
                if (x == o[0] || x == o[1] || x == o[2]) continue;
                const uint32_t own = E->vown[x];
                if (!every && own != f[s]) {
                    if (!self) continue;
                    int32_t w[3];
                    face_verts(sc, own, w);
                    if (!tri_shares(w, o)) continue;
                }
                bad |= push_new(vfb, rvf, (uint64_t)clash_vert_orig(sc, x) << 32 | face_in);
            }
        }
        /* ee: each edge of A against each edge of B, from the edges' owner
         * faces (or from any); each edge's owner and, within one object,
         * the owner's vertices, read once */
        uint32_t e[2][3], own[2][3];
        int32_t ov[2][3][3];
        for (int s = 0; s < 2; ++s)
            for (int c = 0; c < 3; ++c) {
                e[s][c] = E->fe[3 * (size_t)f[s] + c];
                own[s][c] = e[s][c] == CLASH_NO_EDGE ? CLASH_NO_EDGE : E->eown[e[s][c]];
                if (own[s][c] == f[s]) memcpy(ov[s][c], v[s], sizeof v[s]);
                else if (self && !every && own[s][c] != CLASH_NO_EDGE) face_verts(sc, own[s][c], ov[s][c]);
            }
        for (int a = 0; a < 3; ++a) {
            const uint32_t ea = e[0][a];
            if (ea == CLASH_NO_EDGE) continue;
            for (int b = 0; b < 3; ++b) {
                const uint32_t eb = e[1][b];
                if (eb == CLASH_NO_EDGE || (adj && shares(E->ev0[ea], E->ev1[ea], E->ev0[eb], E->ev1[eb]))) continue;
                if (!every && (own[0][a] != f[0] || own[1][b] != f[1]) &&
                    (!self || own[0][a] == own[1][b] || !tri_shares(ov[0][a], ov[1][b])))
                    continue;
                bad |= push_new(eeb, ree, ea < eb ? (uint64_t)ea << 32 | eb : (uint64_t)eb << 32 | ea);
            }
        }
    }
    if (bad) run->ccd->slot[worker].oom = 1;
}

/* The workers' buffers b[] into key[off..), sorted and unique; returns the count or -1. */
static int64_t merge(clash_run *run, clash_keybuf *b, size_t off)
{
    struct clash_ccd *c = run->ccd;
    size_t n = 0;
    for (size_t w = 0; w < clash_team(run); ++w) n += b[w].n;
    if (grow((void **)&c->key, &c->cap_key, off + n, sizeof *c->key)) return -1;
    n = 0;
    for (size_t w = 0; w < clash_team(run); ++w) {
        if (b[w].n) memcpy(c->key + off + n, b[w].v, b[w].n * sizeof(uint64_t));
        n += b[w].n;
        b[w].n = 0;
    }
    const size_t m = clash_sort_unique_u64(c->key + off, n);
    return m == (size_t)-1 ? -1 : (int64_t)m;
}

/* ---- the exact test ------------------------------------------------------------------- */

typedef struct test_ctx {
    clash_run *run;
    ck_ccd_opts opts;
} test_ctx;

/* (pairs go to the kernel CLASH_TUNE_CCD_BLOCK at a time: base/tuning.h) */

/* The 4 store vertices of primitive pair i, in the kernel's order (ccd.h). */
static void pair_verts(const clash_run *run, size_t i, uint32_t v[4])
{
    const clash_scene *sc = run->sc;
    const struct clash_ccd *c = run->ccd;
    const uint64_t k = c->key[i];
    if (i < c->nvf) {
        const int64_t f = clash_face_store(sc, (int64_t)(uint32_t)k);
        v[0] = (uint32_t)clash_vert_store(sc, (int64_t)(k >> 32));
        v[1] = (uint32_t)sc->f0[f], v[2] = (uint32_t)sc->f1[f], v[3] = (uint32_t)sc->f2[f];
    } else {
        const clash_edges *E = run->edges;
        const uint32_t a = (uint32_t)(k >> 32), b = (uint32_t)k;
        v[0] = E->ev0[a], v[1] = E->ev1[a], v[2] = E->ev0[b], v[3] = E->ev1[b];
    }
}

/* The 4 points of primitive pair i at t = 0 (state s-1) and t = 1 (state s). */
static void points(const clash_run *run, size_t i, double x0[4][3], double x1[4][3])
{
    const clash_scene *sc = run->sc;
    uint32_t v[4];
    pair_verts(run, i, v);
    for (int j = 0; j < 4; ++j) {
        x0[j][0] = sc->dpx[v[j]], x0[j][1] = sc->dpy[v[j]], x0[j][2] = sc->dpz[v[j]];
        x1[j][0] = sc->dx[v[j]], x1[j][1] = sc->dy[v[j]], x1[j][2] = sc->dz[v[j]];
    }
}

/* ---- objects that turn ------------------------------------------------------------------ */

/* Store vertex v in its object's own frame: the double local mesh, the
 * host's coordinates as given; a pose places it at (R scale) l + t
 * (ck_rigid_place; S0's R (scale l) + t differs from it by rounding only,
 * which the sub-steps' separation covers, kernels/ccd_motion.c). */
static inline void ccd_local_point(const clash_scene *sc, uint32_t v, double out[3])
{
    out[0] = sc->dlx[v], out[1] = sc->dly[v], out[2] = sc->dlz[v];
}

/* The step's motion of every object that turns (S0's turn): the screw
 * between the two poses the host set, or the law's pose formula; the other
 * objects' vertices move on straight lines, which the store's two states
 * already give. */
static int motions(clash_run *run)
{
    const clash_scene *sc = run->sc;
    struct clash_ccd *c = run->ccd;
    c->turning = 0;
    if (!sc->nturning) return 0;
    if (grow((void **)&c->motion_of, &c->cap_motion_of, (size_t)sc->nobj, sizeof *c->motion_of) ||
        grow((void **)&c->motion, &c->cap_motion, (size_t)sc->nturning, sizeof *c->motion))
        return -1;
    int n = 0;
    for (int o = 0; o < sc->nobj; ++o) {
        const clash_turn *tu = &sc->turn[o];
        const double radius = sc->mesh[sc->obj_mesh[o]].radius, scale = sc->obj_scale[o];
        c->motion_of[o] = -1;
        if (tu->kind == CLASH_TURN_CHORD) {
            ck_rigid_screw(&c->motion[n], sc->prev[o].R, sc->prev[o].t, sc->cur[o].R, sc->cur[o].t, scale, radius);
        } else if (tu->kind == CLASH_TURN_RADIUS) {
            const clash_pose *p = &sc->pose[o];
            ck_rigid_euler(&c->motion[n], p->rotation_deg, p->angular_velocity_deg, p->position, p->velocity, scale,
                           sc->state, radius);
        } else {
            continue;
        }
        c->motion_of[o] = n++;
    }
    c->turning = n > 0;
    return 0;
}

/* Primitive pair i along its objects' motions when one of them turns
 * (ck_ccd_rigid): returns 1 and its answer in hit/toi, else 0 (the linear
 * kernel's pair, unchanged). */
static int turning_pair(const clash_run *run, int kind, size_t i, uint8_t *hit, double *toi, const ck_ccd_opts *o,
                        ck_ccd_counts *k)
{
    const clash_scene *sc = run->sc;
    const struct clash_ccd *c = run->ccd;
    uint32_t v[4];
    pair_verts(run, i, v);
    const int split = kind == CK_CCD_VF ? 1 : 2; /* points [0, split) are primitive a's */
    const int obj[2] = {clash_object_of(sc->vofs, sc->nobj, v[0]), clash_object_of(sc->vofs, sc->nobj, v[split])};
    if (c->motion_of[obj[0]] < 0 && c->motion_of[obj[1]] < 0) return 0;
    ck_ccd_point p[4];
    for (int j = 0; j < 4; ++j) {
        const int m = c->motion_of[obj[j >= split]];
        p[j].m = m >= 0 ? &c->motion[m] : NULL;
        if (m >= 0) {
            ccd_local_point(sc, v[j], p[j].l);
        } else {
            p[j].x0[0] = sc->dpx[v[j]], p[j].x0[1] = sc->dpy[v[j]], p[j].x0[2] = sc->dpz[v[j]];
            p[j].x1[0] = sc->dx[v[j]], p[j].x1[1] = sc->dy[v[j]], p[j].x1[2] = sc->dz[v[j]];
        }
    }
    *hit = (uint8_t)ck_ccd_rigid(kind, p, o, toi, k);
    return 1;
}

static void flush(test_ctx *t, int kind, int n, const double (*x0)[4][3], const double (*x1)[4][3],
                  const size_t *idx, int worker)
{
    struct clash_ccd *c = t->run->ccd;
    uint8_t h[CLASH_TUNE_CCD_BLOCK];
    double toi[CLASH_TUNE_CCD_BLOCK];
    ck_ccd_counts k = {0};
    ck_ccd_batch(kind, n, x0, x1, &t->opts, h, toi, &k);
    for (int j = 0; j < n; ++j) c->hit[idx[j]] = h[j], c->toi[idx[j]] = toi[j];
    ck_ccd_counts *s = &c->slot[worker].c;
    s->tests += k.tests, s->filter_no += k.filter_no, s->filter_yes += k.filter_yes;
    s->exact_calls += k.exact_calls, s->hits += k.hits;
}

static void test_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    test_ctx *t = p;
    struct clash_ccd *c = t->run->ccd;
    const size_t nvf = c->nvf;
    double x0[CLASH_TUNE_CCD_BLOCK][4][3], x1[CLASH_TUNE_CCD_BLOCK][4][3];
    size_t idx[CLASH_TUNE_CCD_BLOCK];
    int n = 0, kind = CK_CCD_VF;
    ck_ccd_counts turned = {0};
    for (int64_t i = begin; i < end; i += step) {
        const int k = (size_t)i < nvf ? CK_CCD_VF : CK_CCD_EE;
        if (c->turning && turning_pair(t->run, k, (size_t)i, &c->hit[i], &c->toi[i], &t->opts, &turned)) continue;
        if (n == CLASH_TUNE_CCD_BLOCK || (n && k != kind)) {
            flush(t, kind, n, (const double(*)[4][3])x0, (const double(*)[4][3])x1, idx, worker);
            n = 0;
        }
        points(t->run, (size_t)i, x0[n], x1[n]);
        kind = k;
        idx[n++] = (size_t)i;
    }
    if (n) flush(t, kind, n, (const double(*)[4][3])x0, (const double(*)[4][3])x1, idx, worker);
    ck_ccd_counts *s = &c->slot[worker].c;
    s->tests += turned.tests, s->filter_no += turned.filter_no, s->filter_yes += turned.filter_yes;
    s->exact_calls += turned.exact_calls, s->hits += turned.hits;
}

int64_t clash_ccd_queries(const clash_run *run) { return run->ccd ? (int64_t)(run->ccd->nvf + run->ccd->nee) : 0; }

int clash_ccd_query(const clash_run *run, int64_t i, double x0[4][3], double x1[4][3])
{
    points(run, (size_t)i, x0, x1);
    return (size_t)i < run->ccd->nvf ? CK_CCD_VF : CK_CCD_EE;
}

/* ---- contacts in input numbering ----------------------------------------------------- */

static int vertex_object(const clash_scene *sc, int64_t v)
{
    int lo = 0, hi = sc->nobj - 1; /* the last o with vofs[o] <= v */
    while (lo < hi) {
        const int m = (lo + hi + 1) / 2;
        if (sc->vofs[m] <= v) lo = m;
        else hi = m - 1;
    }
    return lo;
}

static clash_contact contact_of(const clash_run *run, int kind, uint64_t key, double toi)
{
    const clash_scene *sc = run->sc;
    const uint32_t a = (uint32_t)(key >> 32), b = (uint32_t)key;
    clash_contact q = {.kind = (uint32_t)kind, .toi = toi};
    if (kind == CK_CCD_VF) {
        const int oa = vertex_object(sc, a), ob = run->face_obj[b];
        q.obj_a = (uint32_t)oa, q.id_a = (uint32_t)(a - sc->vofs[oa]);
        q.obj_b = (uint32_t)ob, q.id_b = (uint32_t)(b - sc->fofs[ob]);
    } else {
        const int oa = clash_edges_object(run->edges, a), ob = clash_edges_object(run->edges, b);
        q.obj_a = (uint32_t)oa, q.id_a = (uint32_t)(a - run->edges->eofs[oa]);
        q.obj_b = (uint32_t)ob, q.id_b = (uint32_t)(b - run->edges->eofs[ob]);
    }
    return q;
}

static int triple_cmp(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* The contacts of this rank's primitive pairs into run->contacts (one rank),
 * or gathered to rank 0 as (kind, key, toi bits) triples and merged there. */
static int collect(clash_run *run)
{
    const struct clash_ccd *c = run->ccd;
    const size_t n = c->nvf + c->nee;
    size_t nh = 0;
    for (size_t i = 0; i < n; ++i) nh += c->hit[i] != 0;
    run->ncontacts = 0;
    if (run->ranks.size == 1) {
        if (grow((void **)&run->contacts, &run->cap_contacts, nh, sizeof *run->contacts)) return -1;
        for (size_t i = 0; i < n; ++i)
            if (c->hit[i])
                run->contacts[run->ncontacts++] =
                    contact_of(run, i < c->nvf ? CK_CCD_VF : CK_CCD_EE, c->key[i], c->toi[i]);
        return 0;
    }
    uint64_t *mine = malloc((3 * nh + 1) * sizeof *mine), *all = NULL;
    if (!mine) return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
        if (c->hit[i]) {
            mine[m++] = i < c->nvf ? CK_CCD_VF : CK_CCD_EE;
            mine[m++] = c->key[i];
            memcpy(&mine[m++], &c->toi[i], sizeof(double));
        }
    int64_t na = 0;
    const int rc = clash_ranks_gather_u64(&run->ranks, mine, (int64_t)m, &all, &na);
    free(mine);
    if (rc) return -1;
    if (!all) return 0; /* not rank 0 */
    const size_t nt = (size_t)na / 3;
    qsort(all, nt, 3 * sizeof(uint64_t), triple_cmp);
    if (grow((void **)&run->contacts, &run->cap_contacts, nt, sizeof *run->contacts)) {
        free(all);
        return -1;
    }
    for (size_t i = 0; i < nt; ++i) {
        const uint64_t *t = all + 3 * i;
        if (i && !triple_cmp(t, t - 3)) continue;
        double toi;
        memcpy(&toi, &t[2], sizeof toi);
        run->contacts[run->ncontacts++] = contact_of(run, (int)t[0], t[1], toi);
    }
    free(all);
    return 0;
}

/* ---- the stage ------------------------------------------------------------------------ */

static int setup(clash_run *run)
{
    if (clash_edges_update(&run->edges, run->sc, &run->exec)) return -1;
    if (run->ccd) return 0;
    struct clash_ccd *c = run->ccd = calloc(1, sizeof *c);
    if (!c) return -1;
    c->vfb = calloc(clash_team(run), sizeof *c->vfb);
    c->eeb = calloc(clash_team(run), sizeof *c->eeb);
    c->slot = calloc(clash_team(run), sizeof *c->slot);
    c->recent = malloc(clash_team(run) * 2 * CCD_RECENT * sizeof *c->recent);
    return c->vfb && c->eeb && c->slot && c->recent ? 0 : -1;
}

int clash_stage_ccd(clash_run *run, const clash_candidates *cand, clash_step_stats *st, clash_error *err)
{
    if (setup(run)) return clash_fail(err, CLASH_EFAIL, "out of memory in the ccd stage");
    struct clash_ccd *c = run->ccd;
    /* this rank's hits of S5 (producer-consumer: cand holds the hits) */
    size_t nh = 0;
    if (cand->hits) {
        if (grow((void **)&c->hits, &c->cap_hits, cand->n, sizeof *c->hits)) goto oom;
        if (cand->n) memcpy(c->hits, cand->keys, cand->n * sizeof *c->hits);
        nh = cand->n;
    } else {
        if (grow((void **)&c->hits, &c->cap_hits, (size_t)(run->narrow->test_end - run->narrow->test_begin), sizeof *c->hits))
            goto oom;
        for (int64_t i = run->narrow->test_begin; i < run->narrow->test_end; ++i)
            if (run->narrow->hit[i]) c->hits[nh++] = clash_cand_faces(run, cand, cand->keys[i]);
    }
    /* no key is all ones (a vf key's face, an ee key's second edge < 2^32 - 1) */
    memset(c->recent, 0xff, clash_team(run) * 2 * CCD_RECENT * sizeof *c->recent);
    memset(c->slot, 0, clash_team(run) * sizeof *c->slot);
    gen_ctx g = {run};
    clash_par_tasks(&run->exec, (int64_t)nh, 0, gen_range, &g);
    for (size_t w = 0; w < clash_team(run); ++w)
        if (c->slot[w].oom) goto oom;
    const int64_t nvf = merge(run, c->vfb, 0);
    if (nvf < 0) goto oom;
    c->nvf = (size_t)nvf;
    const int64_t nee = merge(run, c->eeb, c->nvf);
    if (nee < 0) goto oom;
    c->nee = (size_t)nee;
    const size_t n = c->nvf + c->nee;
    if (grow((void **)&c->hit, &c->cap_hit, n, 1) || grow((void **)&c->toi, &c->cap_toi, n, sizeof *c->toi)) goto oom;
    if (motions(run)) goto oom;
    test_ctx t = {run, {run->cfg.ccd_tolerance, run->cfg.min_separation, 0}};
    clash_par_tasks(&run->exec, (int64_t)n, 0, test_range, &t);
    ck_ccd_counts k = {0};
    st->ccd_hull_no = 0;
    for (size_t w = 0; w < clash_team(run); ++w) {
        const ck_ccd_counts *s = &c->slot[w].c;
        st->ccd_hull_no += c->slot[w].hull_no;
        k.tests += s->tests, k.filter_no += s->filter_no, k.filter_yes += s->filter_yes;
        k.exact_calls += s->exact_calls, k.hits += s->hits;
    }
    st->ccd_tests = (int64_t)n, st->ccd_vf_tests = (int64_t)c->nvf;
    st->ccd_filter_no = k.filter_no, st->ccd_filter_yes = k.filter_yes, st->ccd_exact_calls = k.exact_calls;
    if (collect(run)) goto oom;
    st->ccd_contacts = (int64_t)run->ncontacts;
    st->ccd_first_toi = -1;
    for (size_t i = 0; i < run->ncontacts; ++i)
        if (st->ccd_first_toi < 0 || run->contacts[i].toi < st->ccd_first_toi) st->ccd_first_toi = run->contacts[i].toi;
    return CLASH_OK;
oom:
    return clash_fail(err, CLASH_EFAIL, "out of memory in the ccd stage");
}
