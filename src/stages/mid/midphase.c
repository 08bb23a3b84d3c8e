/*
 * midphase.c — the one table of the S4 midphases (midphase.h): each one's
 * name (the config key's value, `--midphase NAME`, the report's), what it
 * needs and skips, and its operations.  The pipeline's S1 and S4, the run's
 * memory account and its destruction, the configuration's names, the
 * command's option and the report all read this table; adding a midphase
 * is one row here and its file.
 *
 * The rows are in the order of CLASH_MID_* (clash.h): clash_midphases[id]
 * is midphase id (test_midphases checks it).
 *
 * clash_midphases_free frees S4's state too (clash_mid_state, made by
 * candidates.c), after each midphase's own.
 */
#include "stages/mid/midphase.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

/* The face octree's S4: the producer-consumer strategy runs S4 and S5
 * together (octree.c), the others make the candidates for S5. */
static int octree_s4(clash_run *run, clash_error *err)
{
    if (run->cfg.schedule == CLASH_SCHED_PRODUCER_CONSUMER) return (run->mid->cand.hits = 1, clash_octree_prodcons(run, &run->mid->cand.tests, err));
    return clash_octree_candidates(run, err);
}

static int brute_s4(clash_run *run, clash_error *err)
{
    if (clash_brute_candidates(run)) return clash_fail(err, CLASH_EFAIL, "out of memory in the oracle");
    return CLASH_OK;
}

/* The object trees' structure, as they record it (run->mid->bytes). */
static size_t tree_bytes(const clash_run *run) { return run->mid->bytes; }

#define SLOT(field) offsetof(clash_mid_state, field) /* never 0: cand comes first */

/* The rows: id, name, rigid_only, culls_itself, skips_broad, defers_boxes,
 * build, candidates, bytes, free, state (midphase.h says what each means).
 * Both the ops table and the list of names are made from these rows. */
#define MIDPHASE_ROWS(X)                                                                                              \
    X(CLASH_MID_OCTREE, "octree", 0, 0, 0, 1, NULL, octree_s4, clash_octree_bytes, clash_octree_free, SLOT(oct_ws))  \
    X(CLASH_MID_BVH, "bvh", 0, 1, 0, 0, clash_bvh_stage_boxes, clash_bvh_candidates, NULL, clash_midphase_free,      \
      SLOT(bvh))                                                                                                      \
    X(CLASH_MID_BBOXPIPE, "bboxpipe", 0, 1, 0, 0, NULL, clash_bboxpipe_candidates, NULL, NULL, 0)                    \
    X(CLASH_MID_BRUTE, "brute", 0, 1, 1, 0, NULL, brute_s4, NULL, NULL, 0)                                           \
    X(CLASH_MID_OBJOCTREE, "objoctree", 1, 1, 0, 0, NULL, clash_objoct_candidates, tree_bytes, clash_objoct_free,    \
      SLOT(objoct))                                                                                                   \
    X(CLASH_MID_SPHERICAL, "spherical", 1, 1, 0, 0, NULL, clash_sphoct_candidates, tree_bytes, clash_sphoct_free,    \
      SLOT(sphoct))                                                                                                   \
    X(CLASH_MID_BOXTREE, "boxtree", 1, 1, 0, 0, NULL, clash_boxtree_candidates, tree_bytes, clash_rigidtree_free,    \
      SLOT(rtrees))                                                                                                   \
    X(CLASH_MID_DOPTREE, "doptree", 1, 1, 0, 0, NULL, clash_doptree_candidates, tree_bytes, clash_rigidtree_free,    \
      SLOT(rtrees))

#define AS_OPS(id, name, ...) [id] = {name, id, __VA_ARGS__},
#define AS_NAME(id, name, ...) [id] = name,
const clash_midphase_ops clash_midphases[CLASH_NMIDPHASES] = {MIDPHASE_ROWS(AS_OPS)};
const char *const clash_midphase_names[CLASH_NMIDPHASES + 1] = {MIDPHASE_ROWS(AS_NAME) NULL};

const clash_midphase_ops *clash_midphase_of(int id)
{
    return id >= 0 && id < CLASH_NMIDPHASES ? &clash_midphases[id] : NULL;
}

const char *clash_midphase_name(int id)
{
    const clash_midphase_ops *m = clash_midphase_of(id);
    return m ? m->name : "?";
}

const clash_midphase_ops *clash_midphase_for(const clash_run *run)
{
    const clash_midphase_ops *m = clash_midphase_of(run->cfg.midphase);
    if (!m || (m->rigid_only && run->sc->has_deforming)) return &clash_midphases[CLASH_MID_OCTREE];
    return m;
}

void *clash_midphase_state(const clash_run *run, const clash_midphase_ops *m)
{
    if (!m->state || !run->mid) return NULL;
    void *p;
    memcpy(&p, (const char *)run->mid + m->state, sizeof p);
    return p;
}

void clash_midphases_free(clash_run *run)
{
    if (!run->mid) return;
    for (int i = 0; i < CLASH_NMIDPHASES; ++i)
        if (clash_midphases[i].free) clash_midphases[i].free(run); /* each frees its own and leaves NULL */
    if (run->mid->wbuf)
        for (size_t w = 0; w < clash_team(run); ++w) free(run->mid->wbuf[w].v);
    free(run->mid->wbuf);
    free(run->mid->cand.keys);
    free(run->mid);
    run->mid = NULL;
}
