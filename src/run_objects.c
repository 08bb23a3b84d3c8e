/*
 * run_objects.c — objects that come and go while a run goes on, and the
 * host's say over which pairs are tested: clash_run_add_object,
 * _remove_object, _set_enabled, _set_filter, _exclude_pair and _set_self
 * (clash.h, "Objects that come and go").
 *
 * The filter (core/run.h, clash_objfilt) is one entry per object, made on
 * the first call that needs it; S2 (stages/broad.c) drops the object pairs
 * it refuses before any face work, cull.c the objects' own regions, and
 * clash_pair_eligible refuses the same pairs in every midphase's leaves.
 *
 * An object added to a running run goes into the store through the same
 * clash_store_add_object as before a run (the store grows by
 * clash_store_reserve), in the current state and the one before it alike
 * (scene_add.c), so the step after it sweeps from where it was put.  The
 * run's arrays sized by the scene's faces and objects grow with it (new
 * arrays first, swapped in only when all exist), and what the run kept
 * between steps, made for the old layout (the BVHs and object trees, the
 * edge tables, the held bounds, the deferred boxes' views, the faces'
 * radii), is let go: the next step makes it again as a first step does.
 * A removed object keeps its place in the store and its id, so ids are
 * never reused; it only takes part in nothing.
 *
 * A decomposed run (run->dist) refuses them all: its objects' owners and
 * its ranks' cells are fixed when it is made.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "core/run.h"
#include "stages/stages.h"
#include "run_objects.h"
#include "stages/deferred.h"
#include "stages/mid/midphase.h"

/* "CALL: ..." for a NULL or decomposed run; 0 when the run takes the call. */
static int run_arg(const clash_run *run, const char *call, clash_error *err)
{
    if (!run) return clash_fail(err, CLASH_EINPUT, "%s: the run is NULL", call);
    if (run->dist)
        return clash_fail(err, CLASH_EINPUT, "%s: not in a decomposed run (decompose = objects): its objects' owners "
                                             "and its ranks' cells are fixed when it is created", call);
    return CLASH_OK;
}

/* An object of the run that was not removed; the message names it. */
static int obj_arg(const clash_run *run, int obj, const char *call, clash_error *err)
{
    const int n = run->sc->nobj;
    if (obj < 0 || obj >= n)
        return clash_fail(err, CLASH_EINPUT, "%s: object %d: no such object (the scene has %d: 0..%d)", call, obj, n,
                          n - 1);
    if (run->filt && (run->filt->off[obj] & CLASH_OBJ_REMOVED))
        return clash_fail(err, CLASH_EINPUT, "%s: object %d was removed (clash_run_remove_object): its id names no "
                                             "object now", call, obj);
    return CLASH_OK;
}

void clash_objfilt_free(struct clash_objfilt *F)
{
    if (!F) return;
    free(F->off), free(F->self), free(F->group), free(F->mask), free(F->excl);
    free(F);
}

/* Room in the filter for cap objects (each array grown on its own: one
 * that grew keeps its contents when a later one fails).  -1: out of memory. */
static int filt_reserve(clash_objfilt *F, int cap)
{
    if (cap <= F->cap) return 0;
    int c = F->cap ? F->cap : 8;
    while (c < cap) c *= 2;
    void **a[] = {(void **)&F->off, (void **)&F->self, (void **)&F->group, (void **)&F->mask};
    const size_t sz[] = {1, 1, sizeof(uint32_t), sizeof(uint32_t)};
    for (int i = 0; i < 4; ++i) {
        void *p = realloc(*a[i], (size_t)c * sz[i]);
        if (!p) return -1;
        *a[i] = p;
    }
    F->cap = c;
    return 0;
}

/* The defaults for objects F->n .. n-1: taking part, in every group and
 * seeing every group, self-collision as configured. */
static void filt_cover(clash_objfilt *F, int n)
{
    for (int o = F->n; o < n; ++o) F->off[o] = 0, F->self[o] = (uint8_t)F->self_cfg, F->group[o] = F->mask[o] = ~0u;
    F->n = n;
}

/* The run's filter, made on first use over every object of the scene. */
static clash_objfilt *filt_get(clash_run *run, const char *call, clash_error *err)
{
    clash_objfilt *F = run->filt;
    if (!F) {
        if (!(F = calloc(1, sizeof *F))) goto oom;
        F->self_cfg = run->cfg.self_collision;
        if (filt_reserve(F, run->sc->nobj)) {
            clash_objfilt_free(F);
            goto oom;
        }
        filt_cover(F, run->sc->nobj);
        run->filt = F;
    }
    return F;
oom:
    clash_fail(err, CLASH_EFAIL, "%s: out of memory for the run's filter", call);
    return NULL;
}

/* cfg.self_collision: on when an object that takes part has it on, so the
 * stages make the own regions (and clash_obj_self picks the objects). */
static void filt_self_sync(clash_run *run)
{
    const clash_objfilt *F = run->filt;
    int any = 0;
    for (int o = 0; o < F->n && !any; ++o) any = F->self[o] && !F->off[o];
    run->cfg.self_collision = any;
}

static void set_off(clash_run *run, int obj, uint8_t bit, int on)
{
    clash_objfilt *F = run->filt;
    const int was = F->off[obj] != 0;
    F->off[obj] = (uint8_t)(on ? F->off[obj] | bit : F->off[obj] & ~bit);
    F->noff += (F->off[obj] != 0) - was;
    filt_self_sync(run);
}

int clash_run_set_enabled(clash_run *run, int obj, int enabled, clash_error *err)
{
    static const char call[] = "set_enabled";
    int rc = run_arg(run, call, err);
    if (rc || (rc = obj_arg(run, obj, call, err))) return rc;
    if (!filt_get(run, call, err)) return CLASH_EFAIL;
    set_off(run, obj, CLASH_OBJ_DISABLED, !enabled);
    return CLASH_OK;
}

int clash_run_remove_object(clash_run *run, int obj, clash_error *err)
{
    static const char call[] = "remove_object";
    int rc = run_arg(run, call, err);
    if (rc || (rc = obj_arg(run, obj, call, err))) return rc;
    if (!filt_get(run, call, err)) return CLASH_EFAIL;
    set_off(run, obj, CLASH_OBJ_REMOVED, 1);
    run->sc->next_kind[obj] = CLASH_NEXT_NONE; /* a state set before the removal: it stays where it is */
    return CLASH_OK;
}

int clash_run_set_filter(clash_run *run, int obj, uint32_t group, uint32_t mask, clash_error *err)
{
    static const char call[] = "set_filter";
    int rc = run_arg(run, call, err);
    if (rc || (rc = obj_arg(run, obj, call, err))) return rc;
    clash_objfilt *F = filt_get(run, call, err);
    if (!F) return CLASH_EFAIL;
    F->group[obj] = group, F->mask[obj] = mask;
    return CLASH_OK;
}

int clash_run_set_self(clash_run *run, int obj, int self, clash_error *err)
{
    static const char call[] = "set_self";
    int rc = run_arg(run, call, err);
    if (rc || (rc = obj_arg(run, obj, call, err))) return rc;
    clash_objfilt *F = filt_get(run, call, err);
    if (!F) return CLASH_EFAIL;
    F->self[obj] = self != 0;
    filt_self_sync(run);
    return CLASH_OK;
}

int clash_run_exclude_pair(clash_run *run, int a, int b, int excluded, clash_error *err)
{
    static const char call[] = "exclude_pair";
    int rc = run_arg(run, call, err);
    if (rc || (rc = obj_arg(run, a, call, err)) || (rc = obj_arg(run, b, call, err))) return rc;
    if (a == b)
        return clash_fail(err, CLASH_EINPUT, "%s: objects %d and %d: a pair needs two objects (an object against "
                                             "itself: clash_run_set_self)", call, a, b);
    clash_objfilt *F = filt_get(run, call, err);
    if (!F) return CLASH_EFAIL;
    const uint64_t key = (uint64_t)(uint32_t)(a < b ? a : b) << 32 | (uint32_t)(a < b ? b : a);
    size_t at = 0;
    while (at < F->nexcl && F->excl[at] < key) ++at; /* (few excluded pairs: a linear scan) */
    const int present = at < F->nexcl && F->excl[at] == key;
    if (excluded && !present) {
        if (F->nexcl == F->cap_excl) {
            const size_t cap = F->cap_excl ? 2 * F->cap_excl : 16;
            uint64_t *p = realloc(F->excl, cap * sizeof *p);
            if (!p) return clash_fail(err, CLASH_EFAIL, "%s: out of memory", call);
            F->excl = p, F->cap_excl = cap;
        }
        memmove(F->excl + at + 1, F->excl + at, (F->nexcl - at) * sizeof *F->excl);
        F->excl[at] = key, F->nexcl++;
    } else if (!excluded && present) {
        memmove(F->excl + at, F->excl + at + 1, (F->nexcl - at - 1) * sizeof *F->excl);
        F->nexcl--;
    }
    return CLASH_OK;
}

/* ---- adding ---------------------------------------------------------------------------- */

/* Lets go of what the run kept between steps for the scene's layout of now
 * (sizes or trees of nobj objects and nf faces); the next step makes it
 * again as a first step does.  Called before the store grows: the frees
 * walk the old object count. */
static void drop_kept(clash_run *run)
{
    clash_midphase_free(run); /* the BVHs, and the rigid static scene's trees in the objects' frames */
    clash_objoct_free(run);
    clash_sphoct_free(run);
    clash_rigidtree_free(run);
    clash_defer_free(run);
    /* (the edge tables stay: the objects there keep their store numbers, and
     * the next --ccd step extends them to the new ones, clash_edges_update) */
    free(run->broad->odop), run->broad->odop = NULL;
    for (int k = 0; k < 2; ++k) {
        free(run->boxes->hbox[k]), free(run->boxes->hdop[k]), free(run->boxes->hdop_has[k]);
        run->boxes->hbox[k] = NULL, run->boxes->hdop[k] = NULL, run->boxes->hdop_has[k] = NULL;
        run->boxes->hbox_gen[k] = run->boxes->hdop_gen[k] = 0;
    }
    free(run->boxes->face_r), run->boxes->face_r = NULL;
    free(run->rows->fplace), run->rows->fplace = NULL;
}

/* A copy of old's first n elements of size sz in a new array of cap (zero
 * beyond), aligned when asked; NULL when out of memory. */
static void *regrown(const void *old, size_t n, size_t cap, size_t sz, int aligned)
{
    void *p = aligned ? clash_aligned_calloc(cap, sz) : calloc(cap ? cap : 1, sz);
    if (p && old && n) memcpy(p, old, n * sz);
    return p;
}

/* The run's per-face and per-object arrays of clash_pipe_create (pipeline.c)
 * for nf faces and nobj objects: all made first, then swapped in, so a
 * failure changes nothing.  -1: out of memory. */
static int grow_arrays(clash_run *run, size_t nf, size_t nobj)
{
    const size_t onf = (size_t)run->sc->nf, onobj = (size_t)run->sc->nobj;
    float **b[] = {&run->boxes->lox, &run->boxes->loy, &run->boxes->loz, &run->boxes->hix, &run->boxes->hiy, &run->boxes->hiz};
    void *nb[6] = {0};
    void *fo = regrown(run->face_obj, onf, nf, sizeof(int32_t), 0);
    void *ob = regrown(run->boxes->obox, onobj, nobj, sizeof(clash_box), 0);
    void *ro = regrown(run->cull->reg_ofs, onobj + 1, nobj + 1, sizeof(int64_t), 0);
    void *ke = regrown(run->cull->keep, onf, nf, 1, 0);
    void *kt = regrown(run->cull->kept, onf, nf, sizeof(uint32_t), 0);
    int ok = fo && ob && ro && ke && kt;
    for (int i = 0; i < 6; ++i) ok = (nb[i] = regrown(*b[i], onf, nf, sizeof(float), 1)) && ok;
    if (!ok) {
        free(fo), free(ob), free(ro), free(ke), free(kt);
        for (int i = 0; i < 6; ++i) free(nb[i]);
        return -1;
    }
    free(run->face_obj), free(run->boxes->obox), free(run->cull->reg_ofs), free(run->cull->keep), free(run->cull->kept);
    run->face_obj = fo, run->boxes->obox = ob, run->cull->reg_ofs = ro, run->cull->keep = ke, run->cull->kept = kt;
    for (int i = 0; i < 6; ++i) free(*b[i]), *b[i] = nb[i];
    return 0;
}

int clash_run_add_object(clash_run *run, int mesh, const double rot[9], const double trans[3], int deforming,
                         clash_error *err)
{
    static const char call[] = "add_object";
    int rc = run_arg(run, call, err);
    if (rc) return -rc;
    clash_scene *sc = run->sc;
    char what[64];
    snprintf(what, sizeof what, "%s: object %d", call, sc->nobj);
    if (sc->nruns > 1) /* the other runs' arrays would not follow */
        return -clash_fail(err, CLASH_EINPUT, "%s: the scene is in use by %d runs (objects join a scene driven by one "
                                              "run)", what, sc->nruns);
    if (mesh < 0 || mesh >= sc->nmesh)
        return -clash_fail(err, CLASH_EINPUT, "%s: mesh %d: no such mesh (the scene has %d: 0..%d)", what, mesh,
                           sc->nmesh, sc->nmesh - 1);
    if ((rc = clash_check_rotation(rot, what, err)) ||
        (rc = clash_check_translation(trans, sc->mesh[mesh].radius, what, err)))
        return -rc;
    const clash_store_mesh *m = &sc->mesh[mesh];
    if (sc->nobj >= INT32_MAX - 1 || sc->nf + m->nf > INT32_MAX || sc->nv + m->nv > INT32_MAX)
        return -clash_fail(err, CLASH_EINPUT, "%s: the scene would hold %lld vertices and %lld faces: too large", what,
                           (long long)(sc->nv + m->nv), (long long)(sc->nf + m->nf));
    if (grow_arrays(run, (size_t)(sc->nf + m->nf), (size_t)sc->nobj + 1) ||
        (run->filt && filt_reserve(run->filt, sc->nobj + 1)))
        return -clash_fail(err, CLASH_EFAIL, "%s: out of memory for the run's arrays", what);
    drop_kept(run);
    clash_xform x0 = {.R = {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    if (rot) memcpy(x0.R, rot, sizeof x0.R);
    if (trans) memcpy(x0.t, trans, sizeof x0.t);
    const int64_t f0 = sc->nf;
    const int o = clash_store_add_object(sc, mesh, &x0, 1.0, deforming, err);
    if (o < 0) return o;
    for (int64_t f = f0; f < sc->nf; ++f) run->face_obj[f] = o;
    /* its faces along the Morton curve, as a run's creation lays out the
     * others; on failure (memory) it keeps the mesh's order, which only
     * locality notices */
    clash_error ignored;
    if (run->cfg.reorder == CLASH_REORDER_MORTON && sc->morton_nobj <= o)
        (void)clash_store_reorder_from(sc, sc->morton_nobj, &ignored);
    if (run->filt) {
        filt_cover(run->filt, sc->nobj);
        filt_self_sync(run);
    }
    return o;
}
