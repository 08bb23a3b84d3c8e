/*
 * trial.c — a step made and then taken back (trial.h), for clash_run_query.
 *
 * S0 (motion.c) swaps x/y/z into px/py/pz and computes the next state into
 * the arrays px/py/pz held, and moves the poses, kinds and turns on.  Here
 * the arrays of the state before are set aside and spare arrays put in
 * their place before S0, so S0 computes the trial state into the spares and
 * the current state becomes the trial's state before, read only.  Afterwards
 * the pointers go back (x/y/z the current state, px/py/pz the state before)
 * and the per-object records and numbers are copied back: nothing of the
 * store's positions was written, so no copy of the positions is made.
 */
#include "store/trial.h"

#include <stdlib.h>
#include <string.h>

void clash_store_trial_free(clash_store_trial *t)
{
    for (int d = 0; d < 3; ++d) free(t->sd[d]), free(t->sf[d]);
    free(t->cur), free(t->prev), free(t->next_kind), free(t->turn);
    memset(t, 0, sizeof *t);
}

static int room(clash_scene *sc, clash_store_trial *t)
{
    if (t->cap_v != sc->cap_v) { /* the store's capacity, so the spares can stand in for its arrays */
        for (int d = 0; d < 3; ++d) free(t->sd[d]), free(t->sf[d]), t->sd[d] = NULL, t->sf[d] = NULL;
        t->cap_v = 0;
        const size_t n = (size_t)(sc->cap_v > 0 ? sc->cap_v : 1);
        for (int d = 0; d < 3; ++d)
            if (!(t->sd[d] = clash_aligned_calloc(n, sizeof(double))) ||
                !(t->sf[d] = clash_aligned_calloc(n, sizeof(float))))
                return -1;
        t->cap_v = sc->cap_v;
    }
    if (t->cap_obj < sc->nobj) {
        const size_t n = (size_t)sc->nobj;
        clash_xform *c = realloc(t->cur, n * sizeof *c);
        if (c) t->cur = c;
        clash_xform *p = realloc(t->prev, n * sizeof *p);
        if (p) t->prev = p;
        uint8_t *k = realloc(t->next_kind, n);
        if (k) t->next_kind = k;
        clash_turn *u = realloc(t->turn, n * sizeof *u);
        if (u) t->turn = u;
        if (!c || !p || !k || !u) return -1;
        t->cap_obj = sc->nobj;
    }
    return 0;
}

int clash_store_trial_begin(clash_scene *sc, clash_store_trial *t)
{
    if (room(sc, t)) return -1;
    const size_t n = (size_t)sc->nobj;
    t->nobj = sc->nobj;
    if (n) {
        memcpy(t->cur, sc->cur, n * sizeof *t->cur), memcpy(t->prev, sc->prev, n * sizeof *t->prev);
        memcpy(t->next_kind, sc->next_kind, n), memcpy(t->turn, sc->turn, n * sizeof *t->turn);
    }
    t->nturning = sc->nturning, t->state = sc->state, t->law_step = sc->law_step;
    t->x_held = sc->x_held, t->prev_held = sc->prev_held, t->xgen = sc->xgen, t->pxgen = sc->pxgen;
    t->dp[0] = sc->dpx, t->dp[1] = sc->dpy, t->dp[2] = sc->dpz;
    t->fp[0] = sc->px, t->fp[1] = sc->py, t->fp[2] = sc->pz;
    sc->dpx = t->sd[0], sc->dpy = t->sd[1], sc->dpz = t->sd[2];
    sc->px = t->sf[0], sc->py = t->sf[1], sc->pz = t->sf[2];
    t->active = 1;
    return 0;
}

void clash_store_trial_end(clash_scene *sc, clash_store_trial *t)
{
    if (!t->active) return;
    t->active = 0;
    /* S0 swapped: x/y/z are the spares (the trial state) and px/py/pz the
     * current state; had it failed before its swap, the spares are still in
     * px/py/pz.  Either way the current arrays are the ones not spare. */
    const int swapped = sc->dx == t->sd[0];
    if (swapped) sc->dx = sc->dpx, sc->dy = sc->dpy, sc->dz = sc->dpz, sc->x = sc->px, sc->y = sc->py, sc->z = sc->pz;
    sc->dpx = t->dp[0], sc->dpy = t->dp[1], sc->dpz = t->dp[2];
    sc->px = t->fp[0], sc->py = t->fp[1], sc->pz = t->fp[2];
    const size_t n = (size_t)t->nobj;
    if (n) {
        memcpy(sc->cur, t->cur, n * sizeof *t->cur), memcpy(sc->prev, t->prev, n * sizeof *t->prev);
        memcpy(sc->next_kind, t->next_kind, n), memcpy(sc->turn, t->turn, n * sizeof *t->turn);
    }
    sc->nturning = t->nturning, sc->state = t->state, sc->law_step = t->law_step;
    sc->x_held = t->x_held, sc->prev_held = t->prev_held, sc->xgen = t->xgen, sc->pxgen = t->pxgen;
}
