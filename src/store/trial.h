/*
 * trial.h — a step made and then taken back (trial.c): what clash_run_query
 * needs from the store.  A query runs the very step clash_run_advance would
 * make (S0 included), so that its pairs are the advance's bit for bit, and
 * then puts the store back as it was before S0: the current state stays
 * current and the next states set stay set.
 */
#ifndef CLASH_STORE_TRIAL_H
#define CLASH_STORE_TRIAL_H

#include "store/scene.h"

/* What S0 changes, kept aside for the step: the per-object poses, kinds and
 * turns, the state numbers and flags, the content numbers, and the arrays
 * of the state before (S0 writes the trial state into spare arrays instead,
 * so neither the current nor the previous positions are touched). */
typedef struct clash_store_trial {
    int64_t cap_v;                       /* vertices the spare arrays hold (sc->cap_v when made) */
    double *sd[3];                       /* spare double positions */
    float *sf[3];                        /* spare float positions */
    double *dp[3];                       /* the store's dpx/dpy/dpz while the trial runs */
    float *fp[3];                        /* its px/py/pz */
    int cap_obj;                         /* objects the per-object copies hold */
    clash_xform *cur, *prev;
    uint8_t *next_kind;
    clash_turn *turn;
    int nobj, nturning, state, law_step, x_held, prev_held;
    uint64_t xgen, pxgen;
    int active;
} clash_store_trial;

/* Before the trial step: saves what S0 changes and puts the spare arrays in
 * place of the state before (S0 swaps them in as the trial state).  0, or -1
 * when out of memory (nothing changed). */
int clash_store_trial_begin(clash_scene *sc, clash_store_trial *t);
/* After the trial step (whether it succeeded or not): the store as it was
 * at clash_store_trial_begin, except gen_last, which only grows (so a
 * content number of the trial state is never given to another state, and
 * nothing a run derived from it is taken for the positions restored). */
void clash_store_trial_end(clash_scene *sc, clash_store_trial *t);
void clash_store_trial_free(clash_store_trial *t);

#endif
