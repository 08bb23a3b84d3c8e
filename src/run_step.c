/*
 * run_step.c — the host's trial steps, jumps and batched states (clash.h,
 * "Trial steps, jumps and batched states"): clash_run_query,
 * clash_run_jump, clash_run_set_poses, clash_run_set_vertices_many.
 *
 * A query is the advance itself, made and then taken back.  It runs the
 * pipeline's one step (clash_pipe_advance: S0 to S6, and the ccd stage), so
 * its pairs, contacts and times of impact are the advance's bit for bit, and
 * puts back everything the step changes that a later step reads:
 *   - the store's states (store/trial.c: S0 writes the trial state into
 *     spare arrays; the poses, kinds, turns and state numbers are copied
 *     back; content numbers only grow, so nothing derived from the trial
 *     state is taken for the restored one);
 *   - swept mode's bounds held for the step after (stages/held_bounds.c): their
 *     double buffers back in their order and their content numbers, so the
 *     next advance keeps what it would have kept;
 *   - the counters of the stage regions (none are counted in a query).
 * What the other stages keep from step to step is built over the objects'
 * own frames or rebuilt from the positions each step (the BVHs' refits,
 * the object trees' updates, the edge tables), and their results do not
 * depend on the state the trees were built in (the BVH's candidates are the
 * face pairs whose boxes meet, whatever the tree's shape), so a query
 * leaves the next advance's pairs, contacts and counts as they would have
 * been (tests/unit/test_run_query.c compares them, midphase by midphase).
 *
 * With ccd off a query still runs the ccd stage on its hits, for first_toi
 * alone (its contacts are not returned: the advance has none).  A
 * decomposed run refuses a query and a jump: its step moves states between
 * ranks and may cut its cells anew and rebuild its part, which a trial
 * would have to undo on every rank.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "core/run.h"
#include "stages/stages.h"
#include "pipeline.h"
#include "store/trial.h"

static int refuse_dist(const clash_run *run, const char *call, clash_error *err)
{
    return clash_fail(err, CLASH_EINPUT,
                      "%s: %s: not in a decomposed run (its step sends states between ranks and may rebuild "
                      "its parts, which a trial step or a jump would have to undo on every rank); use a "
                      "replicated run", run->sc->name, call);
}

/* Swept mode's held bounds (core/run.h: hbox, hdop): their buffers' order
 * and content numbers before the trial step. */
typedef struct held_saved {
    clash_box *hbox[2];
    float *hdop[2];
    uint8_t *hdop_has[2];
    uint64_t hbox_gen[2], hdop_gen[2];
} held_saved;

static void held_save(const clash_run *run, held_saved *h)
{
    for (int k = 0; k < 2; ++k)
        h->hbox[k] = run->boxes->hbox[k], h->hdop[k] = run->boxes->hdop[k], h->hdop_has[k] = run->boxes->hdop_has[k],
        h->hbox_gen[k] = run->boxes->hbox_gen[k], h->hdop_gen[k] = run->boxes->hdop_gen[k];
}

/* The step swaps each pair of buffers and writes [1]'s only where it was
 * not valid for the current state: so the buffer that was [1] holds what it
 * held whenever its content number still matters.  Buffers the step made
 * (none before) stay, with the content numbers they had (none valid). */
static void held_restore(clash_run *run, const held_saved *h)
{
    if (h->hbox[0] && h->hbox[1]) run->boxes->hbox[0] = h->hbox[0], run->boxes->hbox[1] = h->hbox[1];
    if (h->hdop[0] && h->hdop[1] && h->hdop_has[0] && h->hdop_has[1])
        for (int k = 0; k < 2; ++k) run->boxes->hdop[k] = h->hdop[k], run->boxes->hdop_has[k] = h->hdop_has[k];
    for (int k = 0; k < 2; ++k) run->boxes->hbox_gen[k] = h->hbox_gen[k], run->boxes->hdop_gen[k] = h->hdop_gen[k];
}

int clash_run_query(clash_run *run, clash_pairs *pairs, clash_contacts *contacts, double *first_toi,
                    clash_error *err)
{
    if (pairs) pairs->pairs = NULL, pairs->count = 0;
    if (contacts) contacts->contacts = NULL, contacts->count = 0;
    if (first_toi) *first_toi = 1;
    if (!run || !pairs) return clash_fail(err, CLASH_EINPUT, "query: the %s is NULL", !run ? "run" : "pairs output");
    if (run->dist) return refuse_dist(run, "query", err);
    if (!run->trial && !(run->trial = calloc(1, sizeof *run->trial)))
        return clash_fail(err, CLASH_EFAIL, "query: out of memory");
    clash_scene *sc = run->sc;
    held_saved h;
    held_save(run, &h);
    if (clash_store_trial_begin(sc, run->trial)) return clash_fail(err, CLASH_EFAIL, "query: out of memory");
    struct clash_counters *ctr = run->ctr;
    const int ccd = run->cfg.ccd;
    run->ctr = NULL;
    run->cfg.ccd = 1; /* the hits' primitive pairs for first_toi, with ccd off too */
    clash_step_stats st;
    const int rc = clash_pipe_advance(run, pairs, &st, err);
    run->cfg.ccd = ccd;
    run->ctr = ctr;
    clash_store_trial_end(sc, run->trial);
    held_restore(run, &h);
    if (rc) {
        pairs->pairs = NULL, pairs->count = 0;
        run->ncontacts = 0;
        return rc;
    }
    /* the contacts are gathered on rank 0: every rank gets their earliest toi */
    double toi = st.ccd_first_toi < 0 ? 1 : st.ccd_first_toi;
    clash_ranks_min_f64(&run->ranks, &toi, 1);
    if (first_toi) *first_toi = toi;
    if (!ccd) run->ncontacts = 0; /* the advance has none */
    if (contacts) contacts->contacts = run->contacts, contacts->count = run->ncontacts;
    return CLASH_OK;
}

int clash_run_jump(clash_run *run, clash_error *err)
{
    if (!run) return clash_fail(err, CLASH_EINPUT, "jump: the run is NULL");
    if (run->dist) return refuse_dist(run, "jump", err);
    /* S0 alone: the states set become current and the current state the one
     * before; the next step sweeps from the state jumped to, and nothing kept
     * from the state jumped from matches the new content numbers */
    const int rc = clash_store_advance_par(run->sc, &run->exec, err);
    run->npairs = 0, run->ncontacts = 0;
    return rc;
}

/* err's message prefixed with "CALL: [i]: " (the batch element). */
static int batch_fail(clash_error *err, const char *call, int i)
{
    if (!err) return CLASH_EINPUT;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return clash_fail(err, err->code ? err->code : CLASH_EINPUT, "%s: [%d]: %s", call, i, msg);
}

/* The checks common to both batched calls: n, the run, and in a decomposed
 * run that this rank owns each object (as clash_run_set_pose refuses one). */
static int batch_args(const clash_run *run, int n, const char *call, clash_error *err)
{
    if (!run) return clash_fail(err, CLASH_EINPUT, "%s: the run is NULL", call);
    if (n < 0) return clash_fail(err, CLASH_EINPUT, "%s: n is %d: must be >= 0", call, n);
    return CLASH_OK;
}

static int owned_here(const clash_run *run, int obj, const char *call, int i, clash_error *err)
{
    if (!run->dist) return CLASH_OK;
    const int owner = clash_run_owner(run, obj);
    if (owner == run->ranks.rank) return CLASH_OK;
    return clash_fail(err, CLASH_EINPUT, "%s: [%d]: object %d: owned by rank %d, not this rank %d (a decomposed "
                      "run's ranks set the objects they own)", call, i, obj, owner, run->ranks.rank);
}

int clash_run_set_poses(clash_run *run, int n, const int *objs, const double *rot, const double *trans,
                        clash_error *err)
{
    static const char call[] = "set_poses";
    int rc = batch_args(run, n, call, err);
    if (rc) return rc;
    for (int i = 0; i < n; ++i) { /* every element checked before any is set */
        const int o = objs ? objs[i] : i;
        if ((rc = clash_pipe_check_pose(run, o, rot ? rot + 9 * (size_t)i : NULL, trans ? trans + 3 * (size_t)i : NULL,
                                        err)))
            return batch_fail(err, call, i);
        if ((rc = owned_here(run, o, call, i, err))) return rc;
    }
    for (int i = 0; i < n; ++i) {
        const int o = objs ? objs[i] : i;
        if ((rc = clash_run_set_pose(run, o, rot ? rot + 9 * (size_t)i : NULL, trans ? trans + 3 * (size_t)i : NULL,
                                     err)))
            return rc; /* (cannot fail: checked above) */
    }
    return CLASH_OK;
}

int clash_run_set_vertices_many(clash_run *run, int n, const int *objs, const double *const *xyz, clash_error *err)
{
    static const char call[] = "set_vertices_many";
    int rc = batch_args(run, n, call, err);
    if (rc) return rc;
    if (n > 0 && !xyz) return clash_fail(err, CLASH_EINPUT, "%s: xyz is NULL", call);
    for (int i = 0; i < n; ++i) {
        const int o = objs ? objs[i] : i;
        if ((rc = clash_pipe_check_vertices(run, o, xyz[i], err))) return batch_fail(err, call, i);
        if ((rc = owned_here(run, o, call, i, err))) return rc;
    }
    for (int i = 0; i < n; ++i)
        if ((rc = clash_run_set_vertices(run, objs ? objs[i] : i, xyz[i], err))) return rc;
    return CLASH_OK;
}
