/*
 * pipeline.c — one step of the coarse-to-fine face-pair method ([Smith94] ch. 3–4):
 * it sequences the stages and times each one as a profiling region; the
 * stages themselves live in stages/ and never call back here.
 *
 *   S0 motion  world positions of state s; state s-1 kept (store/motion.c)
 *   S1 boxes   face boxes (swept: over both states), object boxes (stages/boxes.c)
 *   S2 broad   overlapping object pairs and their overlap regions box ∩ box
 *              (stages/broad.c: all pairs for few objects, sort-and-sweep for many)
 *   S3 cull    faces of each object that meet one of its overlap regions
 *              (stages/cull.c, exact face/box test)
 *   S4 mid     candidate face pairs (stages/mid/): the face octree, the BVH,
 *              the bounding-box pipeline, or the brute-force oracle
 *   S5 narrow  the face-pair test (stages/narrow.c): static, triangle/triangle;
 *              swept, the convex hulls of each face's 6 positions at s-1 and s
 *   S6 gather  hits in canonical order, merged over ranks (stages/gather.c)
 * With --ccd, between S5 and S6 and timed apart (stages/ccd.c): the hits'
 * vertex-face and edge-edge pairs through the exact CCD kernel, the contacts.
 *
 * S0 is the same for every client: the next state of each object is set
 * (by a host: clash_run_set_pose / clash_run_set_vertices; by a scene file:
 * its law, clash_step) and store/motion.c makes it current; the stages after
 * it see only positions.  So clash_run_advance and clash_step are one step
 * with two ways of setting the next state, and give the same pairs for the
 * same states.
 *
 * The run's lifetime (create, destroy) is here too: the run context is
 * core/run.h, and the configuration is checked once when the run is created.
 * The public clash_run_create, _destroy, _set_pose, _set_vertices and
 * _advance are run_api.c's: a run is either this pipeline on the whole
 * scene (clash_pipe_*, pipeline.h) or a decomposed run (decomposed.c),
 * whose ranks each step a pipeline of their own on part of the scene.
 * A run owns everything it works with beyond the scene: its thread pool
 * (pthreads backend), its duplicate of the MPI communicator, its counters.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "core/edges.h"
#include "core/run.h"
#include "kernels/kernels.h" /* CK_ROW */
#include "pipeline.h"
#include "run_objects.h"
#include "profile/profile.h"
#include "query/query.h"
#include "sched/bind.h"
#include "stages/deferred.h"
#include "stages/finegrain.h"
#include "stages/mid/midphase.h"
#include "stages/stages.h"
#include "store/trial.h"

clash_config clash_config_default(void)
{
    return (clash_config){.steps = -1,
                          .mode = -1,
                          .self_collision = -1,
                          .threads = 0,
                          .backend = CLASH_BACKEND_OMP, /* the command's default; --backend pthreads: sched/pool.c */
                          .partition = CLASH_PART_CHUNK,
                          .schedule = CLASH_SCHED_DYNAMIC,
                          .midphase = CLASH_MID_OCTREE,
                          .broadphase = CLASH_BROAD_AUTO,
                          .octree_level = 0,
                          .stop_at_first = 0,
                          .chunk = 0,
                          .batch = 0,
                          .bind = CLASH_BINDING_NONE,
                          .reorder = CLASH_REORDER_MORTON,
                          .mpi_comm = NULL,
                          .ccd = 0,
                          .ccd_tolerance = 1e-6,
                          .min_separation = 0,
                          .decompose = CLASH_DECOMPOSE_REPLICATED};
}

/* ---- run lifetime ---------------------------------------------------------------- */

void clash_pipe_destroy(clash_run *run)
{
    if (!run) return;
    clash_query_free(run);
    free(run->face_obj);
    clash_midphases_free(run); /* (reads the boxes: before them) */
    clash_defer_free(run);
    clash_boxes_free(run->boxes), clash_broad_free(run->broad), clash_cull_free(run->cull);
    clash_rows_free(run->rows), clash_narrow_free(run->narrow), clash_gather_free(run->gather);
    clash_pages_free(run->pairs, run->cap_pairs, sizeof *run->pairs, 0);
    free(run->exec.worker_seconds);
    clash_stage_ccd_free(run);
    if (run->trial) clash_store_trial_free(run->trial);
    free(run->trial);
    clash_fg_destroy(run->fg);
    clash_objfilt_free(run->filt);
    clash_pool_destroy(run->exec.pool);
    clash_ranks_close(&run->ranks);
    if (run->sc) run->sc->nruns--;
    free(run);
}

int clash_pipe_check_config(clash_scene *sc, clash_config *cfg, clash_error *err)
{
    clash_config c = *cfg;
    clash_scene_apply_defaults(sc, &c);
    if (c.mode != CLASH_MODE_STATIC && c.mode != CLASH_MODE_SWEPT) {
        clash_fail(err, CLASH_EINPUT, "mode: must be static or swept");
        return CLASH_EINPUT;
    }
    if (!clash_midphase_of(c.midphase)) { /* the names from the table, the oracle last */
        char list[256] = "";
        size_t n = 0;
        for (int pass = 0; pass < 2; ++pass)
            for (int k = 0; k < CLASH_NMIDPHASES && n + 1 < sizeof list; ++k)
                if (clash_midphases[k].skips_broad == pass)
                    n += (size_t)snprintf(list + n, sizeof list - n, "%s%s%s%s", n ? ", " : "", pass ? "or " : "",
                                          clash_midphases[k].name, pass ? " for the oracle" : "");
        clash_fail(err, CLASH_EINPUT, "midphase: unknown (%s)", list);
        return CLASH_EINPUT;
    }
    if (c.chunk < 0) {
        clash_fail(err, CLASH_EINPUT, "chunk: must be >= 0, got %lld", (long long)c.chunk);
        return CLASH_EINPUT;
    }
    if (!clash_sched_backend_available(c.backend)) {
        clash_fail(err, CLASH_EINPUT, "backend: pthreads is not available yet (omp only)");
        return CLASH_EINPUT;
    }
    if (c.schedule < CLASH_SCHED_STATIC_CHUNK || c.schedule > CLASH_SCHED_STEALING) {
        clash_fail(err, CLASH_EINPUT, "schedule: unknown (static-chunk, static-stride, dynamic, producer-consumer, "
                                      "stealing)");
        return CLASH_EINPUT;
    }
    if (c.reorder != CLASH_REORDER_NONE && c.reorder != CLASH_REORDER_MORTON) {
        clash_fail(err, CLASH_EINPUT, "reorder: unknown (none or morton)");
        return CLASH_EINPUT;
    }
    /* exact CCD (stages/ccd.c) follows the swept test; min-separation is its tol */
    if (c.ccd && c.mode != CLASH_MODE_SWEPT) {
        clash_fail(err, CLASH_EINPUT, "ccd: needs swept mode (the static test has no motion to follow)");
        return CLASH_EINPUT;
    }
    if (!(c.ccd_tolerance > 0 && c.ccd_tolerance <= 1)) {
        clash_fail(err, CLASH_EINPUT, "ccd-tolerance: must be in (0, 1], got %g", c.ccd_tolerance);
        return CLASH_EINPUT;
    }
    if (!(c.min_separation >= 0 && c.min_separation < 1e30)) {
        clash_fail(err, CLASH_EINPUT, "min-separation: must be a finite distance >= 0, got %g", c.min_separation);
        return CLASH_EINPUT;
    }
    if (c.min_separation > 0 && c.mode != CLASH_MODE_SWEPT) {
        clash_fail(err, CLASH_EINPUT, "min-separation: needs swept mode");
        return CLASH_EINPUT;
    }
    if (sc->frames && c.steps >= sc->nframes) {
        clash_fail(err, CLASH_EINPUT, "%s: %d steps need %d frames, but the scene has %d", sc->name, c.steps,
                   c.steps + 1, sc->nframes);
        return CLASH_EINPUT;
    }
    if (sc->nf == 0) {
        clash_fail(err, CLASH_EINPUT, "%s: the scene has no faces (add objects first)", sc->name);
        return CLASH_EINPUT;
    }
    /* a scene file's laws must stay in float range over the steps this run makes */
    if (clash_store_check_laws(sc, c.steps, NULL, err)) return CLASH_EINPUT;
    if (c.decompose != CLASH_DECOMPOSE_REPLICATED && c.decompose != CLASH_DECOMPOSE_OBJECTS) {
        clash_fail(err, CLASH_EINPUT, "decompose: unknown (replicated or objects)");
        return CLASH_EINPUT;
    }
    *cfg = c;
    return CLASH_OK;
}

clash_run *clash_pipe_create(clash_scene *sc, const clash_config *cfg, clash_error *err)
{
    if (!sc || !cfg) {
        clash_fail(err, CLASH_EINPUT, "run_create: the %s is NULL", !sc ? "scene" : "config");
        return NULL;
    }
    clash_config c = *cfg;
    if (clash_pipe_check_config(sc, &c, err)) return NULL;
    /* the communicator first: every rank gets here with the same config */
    char msg[256];
    clash_ranks ranks;
    if (clash_ranks_open(&ranks, c.mpi_comm, msg, sizeof msg)) {
        clash_fail(err, CLASH_EINPUT, "%s", msg);
        return NULL;
    }
    if (c.reorder == CLASH_REORDER_MORTON && sc->morton_nobj < sc->nobj && clash_scene_reorder_morton(sc, err)) {
        clash_ranks_close(&ranks);
        return NULL;
    }
    clash_run *run = calloc(1, sizeof *run);
    if (!run) {
        clash_ranks_close(&ranks);
        goto oom;
    }
    run->ranks = ranks;
    run->sc = sc;
    sc->nruns++;
    clash_store_rewind(sc); /* a run starts from state 0 */
    run->cfg = c;
    run->threads = clash_sched_threads(c.threads);
    run->exec = (clash_exec){.backend = c.backend, .threads = run->threads, .partition = c.partition,
                             .chunk = c.chunk,
                             .schedule = c.schedule, .batch = c.batch};
    if (c.backend == CLASH_BACKEND_PTHREADS && run->threads > 1 && !(run->exec.pool = clash_pool_create(run->threads))) {
        clash_fail(err, CLASH_EFAIL, "backend pthreads: could not start %d worker threads", run->threads);
        clash_pipe_destroy(run);
        return NULL;
    }
    if (c.bind != CLASH_BINDING_NONE && clash_bind_team(&run->exec, c.bind, msg, (int)sizeof msg)) {
        clash_fail(err, CLASH_EINPUT, "%s", msg);
        clash_pipe_destroy(run);
        return NULL;
    }
    /* each stage's state: what every step reuses, made now */
    run->face_obj = malloc((size_t)sc->nf * sizeof(int32_t));
    run->boxes = clash_boxes_create(sc->nf, sc->nobj);
    run->broad = calloc(1, sizeof *run->broad);
    run->cull = clash_cull_create(sc->nf, sc->nobj);
    run->mid = clash_mid_create(clash_team(run));
    run->rows = calloc(1, sizeof *run->rows);
    run->narrow = calloc(1, sizeof *run->narrow);
    run->gather = calloc(1, sizeof *run->gather);
    if (!run->face_obj || !run->boxes || !run->broad || !run->cull || !run->mid || !run->rows || !run->narrow ||
        !run->gather)
        goto oom;
    for (int o = 0; o < sc->nobj; ++o)
        for (int64_t f = sc->fofs[o]; f < sc->fofs[o + 1]; ++f) run->face_obj[f] = o;
    /* --ccd: the edge tables (topology only, one sort per mesh) now, not in
     * the first step; objects added later join them in the step after */
    if (run->cfg.ccd && clash_edges_update(&run->edges, sc, &run->exec)) goto oom;
    return run;
oom:
    clash_pipe_destroy(run);
    clash_fail(err, CLASH_EFAIL, "out of memory creating the run");
    return NULL;
}

void clash_pipe_keep_pairs(clash_run *run, int (*keep)(void *ctx, int a, int b), void *ctx)
{
    run->broad->op_keep = keep, run->broad->op_keep_ctx = ctx;
}

size_t clash_pipe_work_bytes(const clash_run *run)
{
    const size_t nf = (size_t)run->sc->nf, nobj = (size_t)run->sc->nobj;
    const clash_broad_state *B = run->broad;
    const clash_cull_state *C = run->cull;
    const clash_rows *R = run->rows;
    const size_t nreg = (size_t)C->reg_ofs[nobj];
    size_t b = sizeof *run + nf * sizeof(int32_t) + clash_boxes_bytes(run->boxes, run->sc->nf, run->sc->nobj)
               + B->cap_op * sizeof(clash_objpair) + (B->odop ? nobj * CK_FDOP * sizeof(float) : 0)
               + B->cap_opdop * CK_FDOP * sizeof(float)                                 /* S2 */
               + nf * (1 + sizeof(uint32_t)) + (nobj + 1) * sizeof(int64_t) + nreg * sizeof(clash_box)
               + (C->rdop ? nreg * CK_FDOP * sizeof(float) : 0)                         /* S3 */
               + run->mid->cand.cap * sizeof(uint64_t) + run->narrow->cap_hit + run->cap_pairs * sizeof(clash_pair)
               + run->gather->cap_gkeys * sizeof(uint64_t)                              /* S4-S6 */
               + R->cap_frow * CK_ROW * sizeof(float) + (R->fplace ? nf * sizeof(int32_t) : 0)
               + R->cap_fdop * CK_FDOP * sizeof(float) + R->cap_korig * sizeof(uint32_t); /* rows */
    for (size_t w = 0; w < clash_team(run); ++w) b += sizeof(clash_keybuf) + run->mid->wbuf[w].cap * sizeof(uint64_t);
    /* (the face octree's scratch whatever the midphase: it is the rigid-only ones' fallback) */
    const clash_midphase_ops *mp = clash_midphase_of(run->cfg.midphase);
    b += clash_fg_bytes(run->fg) + clash_defer_bytes(run) + clash_octree_bytes(run);
    if (mp && mp->id != CLASH_MID_OCTREE && mp->bytes) b += mp->bytes(run);
    return b;
}

/* ---- one step ------------------------------------------------------------------------- */

/* Region bookkeeping of one step (profile.h): the stage's wall time, its
 * counters when a source is live, and its fastest and slowest worker. */
void clash_run_set_counters(clash_run *run, clash_counters *c) { run->ctr = c; }

static double region_open(clash_run *run, int stage)
{
    clash_wt_reset(run->exec.worker_seconds, run->exec.threads);
    return clash_region_begin(run->ctr, stage);
}

static void region_close(clash_run *run, clash_step_stats *st, int stage, double t0)
{
    st->seconds[stage] = clash_region_end(run->ctr, stage, t0);
    clash_wt_minmax(run->exec.worker_seconds, run->exec.threads, st->seconds[stage], &st->worker_min_s[stage],
                    &st->worker_max_s[stage]);
}

/* One step; S0 follows the scene's laws to state s when s > 0, else
 * advances to the next state the host set. */
static int step(clash_run *run, int s, clash_pairs *out, clash_step_stats *st, clash_error *err)
{
    clash_scene *sc = run->sc;
    clash_step_stats local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    out->pairs = NULL, out->count = 0;
    run->ncontacts = 0; /* --ccd: this step's contacts, none until its ccd */
    run->broad->nop_filtered = 0;
    st->objects_off = run->filt ? run->filt->noff : 0;
    if (!run->exec.worker_seconds) { /* per-worker timer slots of the team, filled by clash_spmd */
        if (!(run->exec.worker_seconds = clash_wt_create(run->exec.threads)))
            return clash_fail(err, CLASH_EFAIL, "out of memory");
    }
    double t0 = region_open(run, CLASH_S0_MOTION);
    int rc;
    /* S0 */
    /* (static mode reads no positions of the state before: a jump to s need not make them) */
    if ((rc = s > 0 ? clash_scene_set_state_need(sc, s, &run->exec, run->cfg.mode == CLASH_MODE_SWEPT, err)
                    : clash_store_advance_par(sc, &run->exec, err)))
        return rc;
    st->vertices = sc->nv;
    region_close(run, st, CLASH_S0_MOTION, t0), t0 = region_open(run, CLASH_S1_BOXES);
    /* S1 */
    /* (the configured midphase's row, midphase.c: a rigid-only one on a
     * deforming scene falls back to the face octree in S3 and S4 only) */
    const clash_midphase_ops *mp = clash_midphase_of(run->cfg.midphase);
    /* (--midphase bvh: once its trees exist, their refit computes the boxes) */
    const int fg = mp->build ? mp->build(run) : 1;
    /* (the face octree reads the kept faces' boxes alone: S3 makes those,
     * stages/deferred.c; not with self-collision, where an object's own box
     * is a region and every face is kept) */
    run->boxes->deferred = !run->debug.eager_boxes && mp->defers_boxes && !run->cfg.self_collision;
    if (fg < 0 || clash_stage_boxes(run, fg)) return clash_fail(err, CLASH_EFAIL, "out of memory in the boxes stage");
    st->faces_boxed = run->boxes->deferred ? 0 : sc->nf;
    region_close(run, st, CLASH_S1_BOXES, t0);
    /* S4's product, which S5, --ccd and S6 read: none yet this step (the
     * face octree may make the rows and DOPs in S4, else S5 makes the rows) */
    const clash_candidates *cand = clash_mid_begin(run);
    run->rows->ready = run->rows->dops = 0;
    if (mp->skips_broad) {
        t0 = region_open(run, CLASH_S4_MID);
        if ((rc = mp->candidates(run, err))) return rc;
        st->faces_kept = sc->nf;
    } else {
        /* S2 */
        t0 = region_open(run, CLASH_S2_BROAD);
        if (clash_stage_broad(run)) return clash_fail(err, CLASH_EFAIL, "out of memory in the broad phase");
        st->object_pairs = (int64_t)run->broad->nop;
        st->object_pairs_filtered = run->broad->nop_filtered;
        region_close(run, st, CLASH_S2_BROAD, t0), t0 = region_open(run, CLASH_S3_CULL);
        /* S3 (the bvh, bboxpipe and object-tree midphases cull inside S4 with their own
         * boxes; the object trees are for rigid objects: a deforming scene falls back to
         * the face octree) */
        const clash_midphase_ops *m4 = clash_midphase_for(run);
        if (m4 != mp) st->mid_fallback_objects = sc->nobj;
        const int own_cull = m4->culls_itself;
        if (!own_cull && clash_stage_cull(run)) return clash_fail(err, CLASH_EFAIL, "out of memory in the cull stage");
        st->faces_kept = own_cull ? sc->nf : (int64_t)run->cull->nkept;
        if (run->boxes->deferred) st->faces_boxed = run->boxes->nboxed;
        region_close(run, st, CLASH_S3_CULL, t0), t0 = region_open(run, CLASH_S4_MID);
        /* S4 */
        if ((rc = m4->candidates(run, err))) return rc;
        st->octree_level = run->mid->level_used;
        if (m4->rigid_only) { /* (the object trees report their structure's build and update) */
            st->mid_build_s = run->mid->build_s, st->mid_bytes = (int64_t)run->mid->bytes;
            st->mid_update_s = run->mid->update_s, st->mid_interfering = run->mid->interfering;
        }
    }
    st->candidates = (int64_t)cand->n;
    st->rank = run->ranks.rank, st->ranks = run->ranks.size, st->rank_units = run->mid->rank_units;
    const int64_t boxed = clash_bvh_frames_boxed(run); /* the faces boxed on demand (bvh_frames.c) */
    if (boxed >= 0) st->faces_boxed = boxed;
    region_close(run, st, CLASH_S4_MID, t0), t0 = region_open(run, CLASH_S5_NARROW);
    /* S5 */
    if ((rc = clash_stage_narrow(run, cand, st, err))) return rc;
    region_close(run, st, CLASH_S5_NARROW, t0);
    /* exact CCD of the hits' primitive pairs, timed apart (st->ccd_s): the
     * report's seven stages stay what they are */
    st->ccd_first_toi = -1;
    if (run->cfg.ccd) {
        const double tc = clash_prof_now();
        if ((rc = clash_stage_ccd(run, cand, st, err))) return rc;
        st->ccd_s = clash_prof_now() - tc;
    }
    t0 = region_open(run, CLASH_S6_GATHER);
    /* S6 */
    if ((rc = clash_stage_gather(run, cand, out, st, err))) return rc;
    region_close(run, st, CLASH_S6_GATHER, t0);
    /* the pairs' and contacts' geometry, on request only (outside the stages' times) */
    if (run->cfg.geometry && (rc = clash_query_step(run, err))) return rc;
    return CLASH_OK;
}

int clash_pipe_step(clash_run *run, int s, clash_pairs *out, clash_step_stats *st, clash_error *err)
{
    if (s < 1) {
        out->pairs = NULL, out->count = 0;
        return clash_fail(err, CLASH_EINPUT, "%s: step %d: steps are numbered from 1", run->sc->name, s);
    }
    /* the laws were checked up to the run's steps when it was made; a step past them is checked alone */
    if (s > run->cfg.steps && clash_store_check_laws(run->sc, s, NULL, err)) {
        out->pairs = NULL, out->count = 0;
        return CLASH_EINPUT;
    }
    return step(run, s, out, st, err);
}

int clash_pipe_advance(clash_run *run, clash_pairs *out, clash_step_stats *st, clash_error *err)
{
    return step(run, 0, out, st, err);
}

int clash_pipe_state(const clash_run *run)
{
    return !run || run->sc->state < 0 ? 0 : run->sc->state;
}

int clash_run_contacts(clash_run *run, clash_contacts *out, clash_error *err)
{
    if (!out) return clash_fail(err, CLASH_EINPUT, "run_contacts: out is NULL");
    out->contacts = NULL, out->count = 0;
    if (!run) return clash_fail(err, CLASH_EINPUT, "run_contacts: the run is NULL");
    if (!run->cfg.ccd)
        return clash_fail(err, CLASH_EINPUT, "run_contacts: the run was created without ccd (set clash_config.ccd, "
                                             "swept mode)");
    out->contacts = run->contacts, out->count = run->ncontacts;
    return CLASH_OK;
}

/* ---- the host sets the next state ---------------------------------------------------- */

/* "object N" for messages; CLASH_EINPUT when obj is not an object of the run's scene. */
static int object_arg(const clash_run *run, int obj, char *what, size_t len, clash_error *err)
{
    snprintf(what, len, "object %d", obj);
    if (!run) return clash_fail(err, CLASH_EINPUT, "%s: the run is NULL", what);
    if (obj < 0 || obj >= run->sc->nobj)
        return clash_fail(err, CLASH_EINPUT, "%s: no such object (the scene has %d: 0..%d)", what, run->sc->nobj,
                          run->sc->nobj - 1);
    if (run->filt && (run->filt->off[obj] & CLASH_OBJ_REMOVED))
        return clash_fail(err, CLASH_EINPUT, "%s was removed (clash_run_remove_object): its id names no object now",
                          what);
    return CLASH_OK;
}

int clash_pipe_check_pose(const clash_run *run, int obj, const double rot[9], const double trans[3], clash_error *err)
{
    char what[48];
    int rc = object_arg(run, obj, what, sizeof what, err);
    if (!rc) rc = clash_check_rotation(rot, what, err);
    if (!rc) { /* how far the object's vertices lie from its origin: its mesh's radius times its scale */
        const clash_scene *sc = run->sc;
        rc = clash_check_translation(trans, sc->mesh[sc->obj_mesh[obj]].radius * sc->obj_scale[obj], what, err);
    }
    return rc;
}

int clash_pipe_set_pose(clash_run *run, int obj, const double rot[9], const double trans[3], clash_error *err)
{
    int rc = clash_pipe_check_pose(run, obj, rot, trans, err);
    if (rc) return rc;
    const clash_xform x = clash_pipe_xform(rot, trans);
    clash_store_set_pose(run->sc, obj, &x);
    return CLASH_OK;
}

clash_xform clash_pipe_xform(const double rot[9], const double trans[3])
{
    clash_xform x = {.R = {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    if (rot) memcpy(x.R, rot, sizeof x.R);
    if (trans) memcpy(x.t, trans, sizeof x.t);
    return x;
}

int clash_pipe_check_vertices(const clash_run *run, int obj, const double *xyz, clash_error *err)
{
    char what[48];
    int rc = object_arg(run, obj, what, sizeof what, err);
    if (rc) return rc;
    const clash_scene *sc = run->sc;
    if (!sc->obj_deforming[obj])
        return clash_fail(err, CLASH_EINPUT, "%s: set_vertices on a rigid object (added with deforming = 0): "
                                             "move it with clash_run_set_pose", what);
    if (!xyz) return clash_fail(err, CLASH_EINPUT, "%s: xyz is NULL", what);
    return clash_check_coordinates(xyz, sc->vofs[obj + 1] - sc->vofs[obj], what, err);
}

int clash_pipe_set_vertices(clash_run *run, int obj, const double *xyz, clash_error *err)
{
    int rc = clash_pipe_check_vertices(run, obj, xyz, err);
    if (rc) return rc;
    clash_store_set_vertices(run->sc, obj, xyz);
    return CLASH_OK;
}
