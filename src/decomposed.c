/*
 * decomposed.c — the in-memory decomposed run (clash_config.decompose =
 * CLASH_DECOMPOSE_OBJECTS): each rank of the run's communicator
 * stores and moves only the objects it owns, and finds the pairs of its own
 * sub-domain on a one-rank pipeline run (pipeline.c) of the objects present
 * there; rank 0 merges the pairs, identical to a one-rank run.
 *
 * The host contract: every rank builds the same scene (same meshes and
 * objects in the same order), so meshes never travel; states do.
 *
 * Ownership, fixed for the run (the host's data does not migrate): the
 * objects' state-0 boxes are cut into one cell per rank by recursive
 * coordinate bisection of their centres, weighted by faces (dist/rcb.c);
 * an object belongs to the rank whose cell holds its centre.  Every rank
 * computes the same owners from the same scene, with no message.  Only the
 * owner may set an object's next state; it keeps the object's current state
 * (a pose, its vertices, or a state of the scene's law) and the next one.
 *
 * The next states come from the host (clash_run_set_pose, _set_vertices,
 * then clash_run_advance) or, for a scene read from a file or a preset,
 * from its own laws (clash_step, clash_dist_step): each owner evaluates its
 * objects' laws, which every rank holds alike.  A formula's state travels
 * as its number and the part's store, which holds the law too, evaluates
 * it, so that a turning object follows the law's path in the step (its
 * margin, its ccd motion) as in a one-rank run; a frame travels as the
 * object's vertices.
 *
 * One step (clash_dist_advance), every rank:
 *   1. box(o): the owner's box of each object it owns for the step: its
 *      places at the current and the next state (they move linearly
 *      between them, or by the screw motion of a turning pose, whose margin
 *      store/turn.c bounds), grown by that margin, min_separation and a
 *      rounding allowance; static mode: the next state alone.  A place is
 *      the vertices of a deforming object, and a rigid one's ball about its
 *      pose's translation (its mesh's radius times its scale: no pass over
 *      its vertices).
 *      So two objects with a colliding face pair in the step have
 *      overlapping boxes.
 *   2. the boxes are allgathered: every rank knows every object's box.
 *   3. the cells: first those of the ownership cut; cut again from the
 *      boxes' centres when the faces present on the ranks (the largest over
 *      the mean, known to all after step 4) passed CLASH_TUNE_RECUT_IMBALANCE (1.15),
 *      at most every CLASH_TUNE_RECUT_EVERY (10) steps.  A rank needs the objects
 *      whose box meets its cell (closed boxes: conservative at borders).
 *   4. a rank rebuilds its part when it needs an object its part lacks (or
 *      the cells changed): the new part holds every object whose box, grown
 *      by HYSTERESIS (0.5) times its largest side, meets the cell, so objects
 *      that come near are there before they are needed: rebuilds are rare.
 *      The ranks allgather (rebuilds, faces present).
 *   5. the owners send each object's next state to every rank whose part
 *      holds it (and the current state too, to a rank that rebuilds: its
 *      part starts again from that state): one alltoallv.  Which ranks hold
 *      an object is known to its owner without asking, since every part is
 *      made by the same rule from the same boxes and cells.
 *   6. a rank that rebuilds makes a scene of its part (each object of the
 *      host's mesh, in global order, at its state-0 pose), a pipeline run
 *      on MPI_COMM_SELF, and moves it to the current states without a step
 *      (store/motion.c alone); then every rank sets the next states it got
 *      and steps its run.
 *   7. of its part's pairs a rank keeps those (a, b) it reports: it owns
 *      the cell holding the min corner of box(a) ∩ box(b) (a == b: of
 *      box(a)).  That point is in both boxes, so both objects are needed,
 *      and present, there; a pair's face hits depend on its two objects
 *      alone, so the rank finds all of them; every other rank drops them
 *      (in S2 already: the part's run skips pairs this rank does not report).
 *   8. the ranks agree that the step went well (one reduction: an error on
 *      any rank fails the step on every rank, and the next advance starts
 *      again from the last good states, every part rebuilt); then rank 0
 *      merges the ranks' ascending pair keys (global face numbers) as they
 *      stream in (clash_ranks_merge_u64) into pairs: rank 0's out is the
 *      step's pairs; the other ranks get none, as in a replicated run
 *      (stages/gather.c).  With ccd the part's run finds the contacts of
 *      its pairs; a rank keeps those of the pairs it reports and rank 0
 *      gathers and sorts them (gather_contacts): a one-rank run's contacts.
 * The cells and every part are computed from the same doubles in the same
 * order on every rank; ties go by object number.
 *
 * The part's scene, its run and the states on the wire are
 * decomposed_part.c's; what both files share is decomposed_int.h.
 *
 * Figures (clash_step_stats.dist_*): objects owned, objects present, pairs
 * reported, bytes sent by this rank in the step (boxes to the other ranks,
 * states, pair keys, contacts), rebuilds and cuts so far, the part's faces
 * and the faces' imbalance.  The sub-run's stage times and counts fill the
 * rest; S0's time includes steps 1-6's boxes and messages, S6's the step's
 * agreement and the merges.
 */
#include "decomposed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "decomposed_int.h"
#include "pipeline.h"
#include "base/tuning.h"
#include "profile/profile.h"
#include "sched/ranks.h"



/* ---- boxes ----------------------------------------------------------------------------- */

/* Grows [lo, hi] by the positions of object o in state x (a pose of its
 * local vertices) or v (world positions). */
static void grow_pose(const clash_scene *sc, int o, const clash_xform *x, double lo[3], double hi[3])
{
    const double s = sc->obj_scale[o];
    for (int64_t g = sc->vofs[o]; g < sc->vofs[o + 1]; ++g) {
        const double l[3] = {s * sc->dlx[g], s * sc->dly[g], s * sc->dlz[g]};
        for (int d = 0; d < 3; ++d) {
            const double w = x->R[3 * d] * l[0] + x->R[3 * d + 1] * l[1] + x->R[3 * d + 2] * l[2] + x->t[d];
            lo[d] = fmin(lo[d], w), hi[d] = fmax(hi[d], w);
        }
    }
}

static void grow_verts(const double *v, int64_t nv, double lo[3], double hi[3])
{
    for (int64_t i = 0; i < nv; ++i)
        for (int d = 0; d < 3; ++d) lo[d] = fmin(lo[d], v[3 * i + d]), hi[d] = fmax(hi[d], v[3 * i + d]);
}

/* Grows [lo, hi] by the ball that holds object o under pose x: every
 * vertex lies within scale * radius of the pose's translation (the mesh's
 * radius is about the local origin, the centre of the rotation, rounded
 * up).  A box in O(1) a step, where the vertices' box is a pass over the
 * object: the boxes only decide which ranks need an object and which one
 * reports a pair, and a larger box is as correct (the opening comment). */
static void grow_ball(const clash_scene *sc, int o, const clash_xform *x, double lo[3], double hi[3])
{
    const double r = sc->obj_scale[o] * sc->mesh[sc->obj_mesh[o]].radius;
    for (int d = 0; d < 3; ++d) lo[d] = fmin(lo[d], x->t[d] - r), hi[d] = fmax(hi[d], x->t[d] + r);
}

static void grow_state(const clash_scene *sc, int o, const dstate *q, double lo[3], double hi[3])
{
    if (q->kind == K_VERTS) grow_verts(q->v, sc->vofs[o + 1] - sc->vofs[o], lo, hi);
    else grow_ball(sc, o, &q->x, lo, hi);
}

/* box(o) of the step from cur to next (the opening comment, 1.); static
 * mode tests the new state alone, so its box holds that state only. */
static void step_box(const clash_dist *D, const clash_scene *sc, const clash_config *cfg, int i, double out[6])
{
    const int o = D->own[i], swept = cfg->mode == CLASH_MODE_SWEPT;
    const dstate *c = &D->cur[i], *nx = &D->next[i];
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    if (swept || nx->kind == K_NONE) grow_state(sc, o, c, lo, hi);
    if (nx->kind != K_NONE) grow_state(sc, o, nx, lo, hi);
    double margin = 0, m = 0;
    if (swept && nx->kind == K_LAW) { /* the law's own path, as S0 bounds it (store/turn.c) */
        clash_turn tu;
        clash_turn_law(&sc->pose[o], nx->s, sc->mesh[sc->obj_mesh[o]].radius, &tu);
        if (tu.kind != CLASH_TURN_NONE) margin = tu.bound;
    }
    if (swept && nx->kind == K_POSE) { /* the screw motion's arc margin, as S0 computes it (store/motion.c) */
        clash_xform from = c->x;
        if (c->kind == K_VERTS) from.R[0] = NAN; /* set positions: no pose to turn from */
        clash_turn tu;
        clash_turn_screw(&from, &nx->x, sc->obj_scale[o], sc->mesh[sc->obj_mesh[o]].radius, &tu);
        if (tu.kind != CLASH_TURN_NONE) margin = tu.bound;
    }
    for (int d = 0; d < 3; ++d) m = fmax(m, fmax(fabs(lo[d]), fabs(hi[d])));
    const double r = margin + cfg->min_separation + 1e-5 * (m + margin) + 1e-6; /* float positions: generous */
    for (int d = 0; d < 3; ++d) out[d] = lo[d] - r, out[3 + d] = hi[d] + r;
}


/* ---- create, destroy ----------------------------------------------------------------------- */

static void dist_free(clash_dist *D)
{
    if (!D) return;
    for (int i = 0; i < D->nown && D->cur && D->next; ++i) free(D->cur[i].v), free(D->next[i].v);
    free(D->owner), free(D->own), free(D->byowner), free(D->bcount), free(D->cur), free(D->next);
    free(D->sendbox), free(D->allbox), free(D->blo), free(D->bhi), free(D->member), free(D->inpart);
    free(D->present), free(D->local), free(D->dbuf), free(D->keys);
    free(D->centre), free(D->weight), free(D->flags), free(D->scount), free(D->rcount), free(D->cursor);
    free(D->alo), free(D->ahi);
    clash_rcb_free(&D->cells);
    clash_pipe_destroy(D->subrun);
    clash_scene_destroy(D->sub);
    free(D);
}

void clash_dist_destroy(clash_run *run)
{
    if (!run) return;
    dist_free(run->dist);
    clash_ranks_close(&run->ranks);
    if (run->sc) run->sc->nruns--;
    free(run->pairs), free(run->contacts);
    free(run);
}

/* The fixed part: owners from the state-0 boxes, this rank's objects and
 * their states, the arrays of a step.  Returns 0 or -1 (out of memory). */
static int plan(clash_dist *D, const clash_scene *sc)
{
    const int n = D->n, R = D->R;
    D->owner = malloc(sizeof *D->owner * (size_t)n);
    D->own = malloc(sizeof *D->own * (size_t)n);
    D->byowner = malloc(sizeof *D->byowner * (size_t)n);
    D->bcount = calloc((size_t)R, sizeof *D->bcount);
    D->allbox = malloc(6 * sizeof *D->allbox * (size_t)n);
    D->blo = malloc(sizeof *D->blo * (size_t)n), D->bhi = malloc(sizeof *D->bhi * (size_t)n);
    D->inpart = calloc((size_t)n, 1);
    D->present = malloc(sizeof *D->present * (size_t)n);
    D->local = malloc(sizeof *D->local * (size_t)n);
    int64_t maxv = 1;
    for (int o = 0; o < n; ++o) maxv = sc->vofs[o + 1] - sc->vofs[o] > maxv ? sc->vofs[o + 1] - sc->vofs[o] : maxv;
    D->dbuf = malloc(3 * sizeof *D->dbuf * (size_t)maxv);
    D->centre = malloc(sizeof *D->centre * (size_t)n), D->weight = malloc(sizeof *D->weight * (size_t)n);
    D->flags = malloc(2 * sizeof *D->flags * (size_t)R);
    D->scount = malloc(sizeof *D->scount * (size_t)R), D->rcount = malloc(sizeof *D->rcount * (size_t)R);
    D->cursor = malloc(sizeof *D->cursor * (size_t)R);
    D->alo = malloc(sizeof *D->alo * (size_t)n), D->ahi = malloc(sizeof *D->ahi * (size_t)n);
    D->ahead_at = -1;
    int rc = -1;
    if (!D->centre || !D->weight || !D->flags || !D->scount || !D->rcount || !D->cursor || !D->alo || !D->ahi)
        goto done;
    if (!D->owner || !D->own || !D->byowner || !D->bcount || !D->allbox || !D->blo || !D->bhi ||
        !D->inpart || !D->present || !D->local || !D->dbuf || clash_rcb_init(&D->cells, R))
        goto done;
    for (int o = 0; o < n; ++o) {
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        grow_pose(sc, o, &sc->pose0[o], lo, hi);
        for (int d = 0; d < 3; ++d) D->centre[o][d] = 0.5 * (lo[d] + hi[d]);
        D->weight[o] = (double)(sc->fofs[o + 1] - sc->fofs[o]); /* faces: the same at every cut */
        D->local[o] = -1;
    }
    if (clash_rcb_cut(&D->cells, n, (const double(*)[3])D->centre, D->weight)) goto done;
    D->cuts = 1;
    for (int o = 0; o < n; ++o) {
        D->owner[o] = clash_rcb_owner(&D->cells, D->centre[o]);
        D->bcount[D->owner[o]] += 6;
        if (D->owner[o] == D->me) D->own[D->nown++] = o;
    }
    int64_t *at = calloc((size_t)R + 1, sizeof *at);
    if (!at) goto done;
    for (int r = 0; r < R; ++r) at[r + 1] = at[r] + D->bcount[r] / 6;
    for (int o = 0; o < n; ++o) D->byowner[at[D->owner[o]]++] = o;
    free(at);
    const size_t k = D->nown > 0 ? (size_t)D->nown : 1;
    D->cur = calloc(k, sizeof *D->cur), D->next = calloc(k, sizeof *D->next);
    D->sendbox = malloc(6 * sizeof *D->sendbox * k);
    D->member = calloc(k * (size_t)R, 1);
    if (!D->cur || !D->next || !D->sendbox || !D->member) goto done;
    for (int i = 0; i < D->nown; ++i) {
        const int o = D->own[i];
        D->cur[i] = (dstate){.kind = K_POSE, .x = sc->pose0[o]};
        D->next[i].kind = K_NONE;
        if (sc->obj_deforming[o]) {
            const size_t nv = (size_t)(sc->vofs[o + 1] - sc->vofs[o]);
            if (!(D->cur[i].v = malloc(3 * sizeof(double) * nv)) || !(D->next[i].v = malloc(3 * sizeof(double) * nv)))
                goto done;
        }
    }
    rc = 0;
done:
    return rc;
}

clash_run *clash_dist_create(clash_scene *sc, const clash_config *cfg, clash_error *err)
{
    if (!sc || !cfg) {
        clash_fail(err, CLASH_EINPUT, "run_create: the %s is NULL", !sc ? "scene" : "config");
        return NULL;
    }
    clash_config c = *cfg;
    if (clash_pipe_check_config(sc, &c, err)) return NULL;
    if (sc->nf > UINT32_MAX) {
        clash_fail(err, CLASH_EINPUT, "%s: decompose objects: %lld faces, more than pair keys hold (2^32)", sc->name,
                   (long long)sc->nf);
        return NULL;
    }
    char msg[256];
    clash_ranks ranks;
    if (clash_ranks_open(&ranks, c.mpi_comm, msg, sizeof msg)) {
        clash_fail(err, CLASH_EINPUT, "%s", msg);
        return NULL;
    }
    if (ranks.size == 1) { /* one rank: the whole scene is its part */
        clash_ranks_close(&ranks);
        return clash_pipe_create(sc, cfg, err);
    }
    clash_run *run = calloc(1, sizeof *run);
    clash_dist *D = calloc(1, sizeof *D);
    if (!run || !D) {
        free(run), free(D);
        clash_ranks_close(&ranks);
        clash_fail(err, CLASH_EFAIL, "out of memory creating the run");
        return NULL;
    }
    run->sc = sc, run->cfg = c, run->ranks = ranks, run->threads = 1, run->dist = D;
    sc->nruns++;
    D->R = ranks.size, D->me = ranks.rank, D->n = sc->nobj, D->force = 1;
    D->subcfg = c;
    D->subcfg.mpi_comm = (void *)clash_ranks_self_comm(); /* each part its own one-rank run (read only) */
    D->subcfg.decompose = CLASH_DECOMPOSE_REPLICATED;
    const int bad = plan(D, sc);
    if (clash_ranks_max_int(&run->ranks, bad ? 1 : 0)) { /* every rank fails alike */
        clash_dist_destroy(run);
        clash_fail(err, CLASH_EFAIL, "out of memory planning the decomposition%s", bad ? "" : " (on another rank)");
        return NULL;
    }
    return run;
}

int clash_dist_owner(const clash_run *run, int obj) { return run->dist->owner[obj]; }

size_t clash_dist_work_bytes(const clash_run *run)
{
    const clash_dist *D = run->dist;
    const size_t n = (size_t)D->n, k = (size_t)(D->nown > 0 ? D->nown : 1), R = (size_t)D->R;
    size_t b = sizeof *run + sizeof *D + D->cap_keys * sizeof *D->keys + D->cap_contacts * sizeof *run->contacts +
               run->cap_pairs * sizeof *run->pairs;
    /* per object: owner, own, byowner, present, local; allbox, blo, bhi, centre, weight; inpart */
    b += n * (5 * sizeof(int) + 16 * sizeof(double) + 1);
    /* per owned object: its two states (and a deforming one's vertices), sendbox, member */
    b += k * (2 * sizeof(dstate) + 6 * sizeof(double) + R) + R * 6 * sizeof(int64_t);
    for (int i = 0; i < D->nown; ++i)
        if (D->cur[i].v) b += 6 * sizeof(double) * (size_t)(run->sc->vofs[D->own[i] + 1] - run->sc->vofs[D->own[i]]);
    return b + (D->subrun ? clash_pipe_work_bytes(D->subrun) : 0);
}

/* ---- the host sets the next state ------------------------------------------------------ */

static int owned(const clash_run *run, int obj, clash_error *err)
{
    const clash_dist *D = run->dist;
    if (D->owner[obj] != D->me)
        return clash_fail(err, CLASH_EINPUT,
                          "object %d: owned by rank %d of the run's communicator, not by this rank (%d): a "
                          "decomposed run takes each object's state from its owner only (clash_run_owner)",
                          obj, D->owner[obj], D->me);
    return CLASH_OK;
}

/* Index of owned object obj in own[] (it is owned). */
static int own_index(const clash_dist *D, int obj)
{
    int lo = 0, hi = D->nown - 1;
    while (lo < hi) {
        const int mid = (lo + hi) / 2;
        if (D->own[mid] < obj) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int clash_dist_set_pose(clash_run *run, int obj, const double rot[9], const double trans[3], clash_error *err)
{
    int rc = clash_pipe_check_pose(run, obj, rot, trans, err);
    if (rc || (rc = owned(run, obj, err))) return rc;
    dstate *q = &run->dist->next[own_index(run->dist, obj)];
    q->kind = K_POSE;
    q->x = clash_pipe_xform(rot, trans);
    return CLASH_OK;
}

int clash_dist_set_vertices(clash_run *run, int obj, const double *xyz, clash_error *err)
{
    int rc = clash_pipe_check_vertices(run, obj, xyz, err);
    if (rc || (rc = owned(run, obj, err))) return rc;
    dstate *q = &run->dist->next[own_index(run->dist, obj)];
    const int64_t nv = run->sc->vofs[obj + 1] - run->sc->vofs[obj];
    memcpy(q->v, xyz, 3 * sizeof(double) * (size_t)nv); /* as given: the store's truth */
    q->kind = K_VERTS;
    return CLASH_OK;
}


/* ---- one step ---------------------------------------------------------------------------- */


void clash_dist_ahead(clash_dist *D, const clash_scene *sc, int s)
{
    if (D->ahead_at == s) return;
    const int last = s + CLASH_TUNE_DIST_AHEAD < D->ahead_last ? s + CLASH_TUNE_DIST_AHEAD : D->ahead_last;
    for (int o = 0; o < D->n; ++o) {
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int k = s + 2; k <= last && sc->law[o] == CLASH_LAW_FORMULA; ++k) { /* (s + 1: this step's box) */
            clash_xform x;
            double scale;
            clash_pose_at(&sc->pose[o], k, x.R, &scale, x.t);
            grow_ball(sc, o, &x, lo, hi);
        }
        memcpy(D->alo[o], lo, sizeof lo), memcpy(D->ahi[o], hi, sizeof hi);
    }
    D->ahead_at = s;
}

/* Steps 3-4 of the opening comment: the cells (cut again when due) and
 * whether this rank rebuilds its part (then inpart[] is the new part). */
static int plan_step(clash_run *run, int *rebuild, clash_error *err)
{
    clash_dist *D = run->dist;
    const clash_scene *sc = run->sc;
    int rc = CLASH_OK, cut = D->recut_pending || (D->imbalance > CLASH_TUNE_RECUT_IMBALANCE &&
                                                  run->dist_state - D->last_cut >= CLASH_TUNE_RECUT_EVERY);
    if (cut) { /* every rank decides alike: from the same numbers */
        for (int o = 0; o < D->n; ++o)
            for (int d = 0; d < 3; ++d) D->centre[o][d] = 0.5 * (D->blo[o][d] + D->bhi[o][d]);
        const int failed = clash_rcb_cut(&D->cells, D->n, (const double(*)[3])D->centre, D->weight) != 0;
        D->recut_pending = clash_ranks_any(&run->ranks, failed);
        if (D->recut_pending) rc = clash_fail(err, CLASH_EFAIL, "out of memory cutting the cells");
        D->cuts += !failed, D->last_cut = run->dist_state;
    }
    *rebuild = D->force || cut;
    const double *clo = D->cells.lo[D->me], *chi = D->cells.hi[D->me];
    for (int o = 0; o < D->n && !*rebuild; ++o)
        if (!D->inpart[o] && clash_box_overlaps(D->blo[o], D->bhi[o], clo, chi)) *rebuild = 1;
    if (*rebuild) {
        if (D->by_law) clash_dist_ahead(D, sc, run->dist_state);
        D->part_faces = 0;
        for (int o = 0; o < D->n; ++o)
            if ((D->inpart[o] = (uint8_t)near_cell(D, o, D->me))) D->part_faces += sc->fofs[o + 1] - sc->fofs[o];
    }
    return rc;
}



/* Step 7: the keys of the part's pairs this rank reports. */
static int report_keys(clash_dist *D, const clash_scene *sc, const clash_pairs *lp, size_t *nk, clash_error *err)
{
    *nk = 0;
    if (lp->count > D->cap_keys) {
        uint64_t *k = realloc(D->keys, lp->count * sizeof *k);
        if (!k) return clash_fail(err, CLASH_EFAIL, "out of memory");
        D->keys = k, D->cap_keys = lp->count;
    }
    int la = -1, lb = -1, mine = 0;
    for (size_t i = 0; i < lp->count; ++i) {
        const clash_pair *p = &lp->pairs[i];
        const int ga = D->present[p->obj_a], gb = D->present[p->obj_b];
        if ((int)p->obj_a != la || (int)p->obj_b != lb) /* pairs come grouped by objects */
            la = (int)p->obj_a, lb = (int)p->obj_b, mine = reports(D, ga, gb);
        if (mine) D->keys[(*nk)++] = (uint64_t)(sc->fofs[ga] + p->face_a) << 32 | (uint64_t)(sc->fofs[gb] + p->face_b);
    }
    return CLASH_OK;
}

/* Rank 0: the ranks' ascending keys merged as they stream in
 * (clash_ranks_merge_u64), each chunk appended to the run's pairs. */
static int emit_pairs(void *ctx, const uint64_t *keys, int64_t m)
{
    clash_run *run = ctx;
    const clash_scene *sc = run->sc;
    if (run->npairs + (size_t)m > run->cap_pairs) {
        size_t cap = run->cap_pairs ? run->cap_pairs : 4096;
        while (cap < run->npairs + (size_t)m) cap *= 2;
        clash_pair *p = realloc(run->pairs, cap * sizeof *p);
        if (!p) return -1;
        run->pairs = p, run->cap_pairs = cap;
    }
    for (int64_t i = 0; i < m; ++i) {
        const int64_t fa = (int64_t)(keys[i] >> 32), fb = (int64_t)(uint32_t)keys[i];
        const int a = clash_object_of(sc->fofs, sc->nobj, fa), o = clash_object_of(sc->fofs, sc->nobj, fb);
        run->pairs[run->npairs++] =
            (clash_pair){(uint32_t)a, (uint32_t)(fa - sc->fofs[a]), (uint32_t)o, (uint32_t)(fb - sc->fofs[o])};
    }
    return 0;
}

static int contact_cmp(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;
    for (int k = 0; k < 3; ++k)
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    return 0;
}

/* ccd: the part's contacts of the pairs this rank reports, in global
 * object numbers, as (kind, obj_a << 32 | id_a, obj_b << 32 | id_b, toi's
 * bits) in (*ck)[0..*n) (malloc'd).  A contact's two objects are those of
 * the hit face pair it came from, so exactly one rank reports it, and its
 * ids are per object: the part's are the whole scene's. */
static int contact_keys(const clash_dist *D, uint64_t **ck, size_t *n, clash_error *err)
{
    const size_t nc = D->subrun ? D->subrun->ncontacts : 0;
    size_t m = 0;
    *n = 0;
    if (!(*ck = malloc((4 * nc + 1) * sizeof **ck))) return clash_fail(err, CLASH_EFAIL, "out of memory");
    for (size_t i = 0; i < nc; ++i) {
        const clash_contact *c = &D->subrun->contacts[i];
        const int ga = D->present[c->obj_a], gb = D->present[c->obj_b];
        if (!reports(D, ga < gb ? ga : gb, ga < gb ? gb : ga)) continue;
        (*ck)[m++] = c->kind;
        (*ck)[m++] = (uint64_t)ga << 32 | c->id_a, (*ck)[m++] = (uint64_t)gb << 32 | c->id_b;
        memcpy(&(*ck)[m++], &c->toi, sizeof c->toi);
    }
    *n = m;
    return CLASH_OK;
}

/* The ranks' contact keys gathered to rank 0 and sorted there into the
 * run's contacts: a one-rank run's order (kind, obj_a, id_a, obj_b, id_b).
 * Returns 0, or -1 when out of memory (rank 0 alone: it then has none). */
static int gather_contacts(clash_run *run, const uint64_t *ck, size_t n)
{
    clash_dist *D = run->dist;
    uint64_t *all = NULL;
    int64_t na = 0;
    if (clash_ranks_gather_u64(&run->ranks, ck, (int64_t)n, &all, &na)) return -1;
    if (!all) return 0; /* not rank 0 */
    const size_t nc = (size_t)na / 4;
    qsort(all, nc, 4 * sizeof *all, contact_cmp);
    if (nc > D->cap_contacts) {
        clash_contact *p = realloc(run->contacts, nc * sizeof *p);
        if (!p) {
            free(all);
            return -1;
        }
        run->contacts = p, D->cap_contacts = nc;
    }
    for (size_t i = 0; i < nc; ++i) {
        const uint64_t *t = all + 4 * i;
        clash_contact *c = &run->contacts[i];
        c->kind = (uint32_t)t[0];
        c->obj_a = (uint32_t)(t[1] >> 32), c->id_a = (uint32_t)t[1];
        c->obj_b = (uint32_t)(t[2] >> 32), c->id_b = (uint32_t)t[2];
        memcpy(&c->toi, &t[3], sizeof c->toi);
    }
    run->ncontacts = nc;
    free(all);
    return 0;
}

int clash_dist_advance(clash_run *run, clash_pairs *out, clash_step_stats *st, clash_error *err)
{
    clash_dist *D = run->dist;
    const clash_scene *sc = run->sc;
    const clash_ranks *W = &run->ranks;
    clash_step_stats local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    out->pairs = NULL, out->count = 0;
    run->ncontacts = 0;
    const int R = D->R;
    const double t0 = clash_prof_now();
    D->now = run->dist_state;
    if (!D->by_law) D->ahead_at = -1;
    /* 1-2: boxes */
    for (int i = 0; i < D->nown; ++i) step_box(D, sc, &run->cfg, i, &D->sendbox[6 * i]);
    clash_ranks_allgatherv_f64(W, D->sendbox, 6 * (int64_t)D->nown, D->allbox, D->bcount);
    int64_t bytes = (int64_t)(6 * sizeof(double)) * D->nown * (R - 1);
    for (int k = 0; k < D->n; ++k) {
        const int o = D->byowner[k];
        memcpy(D->blo[o], &D->allbox[6 * k], sizeof D->blo[o]), memcpy(D->bhi[o], &D->allbox[6 * k + 3], sizeof D->bhi[o]);
    }
    /* 3-4: cells, parts */
    int rebuild = 0;
    int rc = plan_step(run, &rebuild, err);
    const int64_t mine[2] = {rebuild, D->part_faces};
    clash_ranks_allgather_i64(W, mine, 2, D->flags);
    bytes += 2 * (int64_t)sizeof(int64_t) * (R - 1);
    for (int r = 0; r < R && D->by_law; ++r) /* (the parts made again now follow the laws' look-ahead) */
        if (D->flags[2 * r]) {
            clash_dist_ahead(D, sc, run->dist_state);
            break;
        }
    double fmax_ = 0, fsum = 0;
    for (int r = 0; r < R; ++r) fmax_ = fmax(fmax_, (double)D->flags[2 * r + 1]), fsum += (double)D->flags[2 * r + 1];
    D->imbalance = fsum > 0 ? fmax_ * R / fsum : 1.0;
    /* 5: states */
    char *buf = clash_dist_pack_states(D, sc);
    if (!buf && !rc) rc = clash_fail(err, CLASH_EFAIL, "out of memory packing the states");
    for (int r = 0; r < R; ++r) bytes += r != D->me ? D->scount[r] : 0;
    void *recv = NULL;
    if (clash_ranks_alltoallv_bytes(W, buf ? buf : "", D->scount, &recv, D->rcount) && !rc)
        rc = clash_fail(err, CLASH_EFAIL, "out of memory receiving the states");
    free(buf);
    int64_t nrecv = 0;
    for (int r = 0; r < R; ++r) nrecv += D->rcount[r];
    /* 6: this rank's part, stepped */
    if (!rc && rebuild) rc = clash_dist_rebuild_part(D, sc, err);
    if (!rc && D->subrun) rc = clash_dist_take_states(D, sc, rebuild, run->dist_state, recv, nrecv, err);
    free(recv);
    const double t1 = clash_prof_now();
    clash_pairs lp = {NULL, 0};
    if (!rc && D->subrun) rc = clash_pipe_advance(D->subrun, &lp, st, err);
    size_t nk = 0, nck = 0;
    uint64_t *ck = NULL; /* ccd: this rank's contacts (contact_keys) */
    if (!rc) rc = report_keys(D, sc, &lp, &nk, err);
    if (!rc && run->cfg.ccd) rc = contact_keys(D, &ck, &nck, err);
    /* 8: agreed, then merged on rank 0 */
    const double t2 = clash_prof_now();
    const int code = clash_ranks_max_int(W, rc);
    if (code) {
        free(ck);
        D->force = 1; /* every part starts again from the owners' states, which stay the last good ones */
        memset(st, 0, sizeof *st);
        if (!rc) clash_fail(err, code, "step into state %d failed on another rank of the run (its clash_run_advance "
                                       "says why)", run->dist_state + 1);
        return code;
    }
    run->npairs = 0;
    if (clash_ranks_merge_u64(W, D->keys, (int64_t)nk, emit_pairs, run)) /* rank 0 alone, out of memory */
        rc = clash_fail(err, CLASH_EFAIL, "out of memory merging pairs");
    if (D->me != 0) bytes += (int64_t)(nk * sizeof(uint64_t));
    if (run->cfg.ccd && gather_contacts(run, ck, nck) && !rc) /* rank 0 alone, out of memory */
        rc = clash_fail(err, CLASH_EFAIL, "out of memory gathering contacts");
    if (D->me != 0) bytes += (int64_t)(nck * sizeof(uint64_t));
    free(ck);
    if (D->me == 0 && !rc) out->pairs = run->pairs, out->count = run->npairs;
    /* the step went well (rank 0 may yet fail to merge, out of memory): the next states become current */
    for (int i = 0; i < D->nown; ++i) {
        dstate *c = &D->cur[i], *nx = &D->next[i];
        if (nx->kind == K_POSE || nx->kind == K_LAW) c->kind = nx->kind, c->x = nx->x, c->s = nx->s;
        if (nx->kind == K_VERTS) {
            double *t = c->v;
            c->v = nx->v, nx->v = t, c->kind = K_VERTS;
        }
        nx->kind = K_NONE;
    }
    D->force = 0;
    run->dist_state++;
    if (rc) return rc;
    st->seconds[CLASH_S0_MOTION] += t1 - t0;
    st->seconds[CLASH_S6_GATHER] += clash_prof_now() - t2;
    st->hits = (int64_t)out->count;
    st->dist_owned = D->nown, st->dist_present = D->np, st->dist_reported = (int64_t)nk, st->dist_bytes_sent = bytes;
    st->dist_rebuilds = D->rebuilds, st->dist_cuts = D->cuts, st->dist_faces = D->part_faces;
    st->dist_imbalance = D->imbalance;
    if (run->cfg.ccd) { /* the step's contacts, as a replicated run gives them: on rank 0 */
        st->ccd_contacts = (int64_t)run->ncontacts, st->ccd_first_toi = -1;
        for (size_t i = 0; i < run->ncontacts; ++i) {
            const double toi = run->contacts[i].toi;
            if (st->ccd_first_toi < 0 || toi < st->ccd_first_toi) st->ccd_first_toi = toi;
        }
    }
    st->rank = D->me, st->ranks = D->R; /* (the part's own run is one rank's) */
    return CLASH_OK;
}

/* ---- a scene's own laws (clash_step) ------------------------------------------------- */

/* Owned object o's state s by the scene's law into q (a formula's pose, a
 * frame's vertices in input order); q unchanged when o has none. */
static void law_state(const clash_scene *sc, int o, int s, dstate *q)
{
    if (sc->law[o] == CLASH_LAW_FORMULA) {
        double scale;
        clash_pose_at(&sc->pose[o], s, q->x.R, &scale, q->x.t);
        q->kind = K_LAW, q->s = s;
    } else if (sc->law[o] == CLASH_LAW_FRAMES && q->v) { /* (a frames object is deforming: q->v is there) */
        const int64_t nv = sc->vofs[o + 1] - sc->vofs[o];
        for (int64_t k = 0; k < nv; ++k) clash_scene_vertex_at(sc, o, k, s, &q->v[3 * k], NULL); /* (s checked) */
        q->kind = K_VERTS;
    }
}

/* clash_step: every owner sets its objects' next states from the scene's
 * laws (every rank holds the same laws: no message), then the step is the
 * advance's.  A step that does not follow the last one (a jump; the first
 * step; the one after a failure) starts every part again from the laws'
 * state s - 1, as a one-rank run's S0 does; every rank decides that alike,
 * from s and the states done. */
int clash_dist_step(clash_run *run, int s, clash_pairs *out, clash_step_stats *st, clash_error *err)
{
    clash_dist *D = run->dist;
    const clash_scene *sc = run->sc;
    out->pairs = NULL, out->count = 0;
    if (s < 1) return clash_fail(err, CLASH_EINPUT, "%s: step %d: steps are numbered from 1", sc->name, s);
    if (s > run->cfg.steps && clash_store_check_laws(sc, s, NULL, err)) return CLASH_EINPUT;
    if (sc->frames && s >= sc->nframes)
        return clash_fail(err, CLASH_EINPUT, "%s: step %d needs frame %d, but the scene has %d frames", sc->name, s, s,
                          sc->nframes);
    if (s != run->dist_state + 1) D->force = 1, run->dist_state = s - 1;
    D->by_law = 1, D->ahead_last = run->cfg.steps > s ? run->cfg.steps : s;
    for (int i = 0; i < D->nown; ++i) {
        if (D->force) law_state(sc, D->own[i], s - 1, &D->cur[i]);
        law_state(sc, D->own[i], s, &D->next[i]);
    }
    const int rc = clash_dist_advance(run, out, st, err);
    D->by_law = 0; /* (a host's own advance looks no further than its states) */
    return rc;
}
