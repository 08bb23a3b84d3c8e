/*
 * decomposed_int.h — what the two files of the in-memory decomposed run
 * share (decomposed.c: the run and its step; decomposed_part.c: a rank's
 * part and the states on the wire): the run's own data, clash_dist, and the
 * two rules every rank applies alike, the part's (near_cell) and the
 * reporter's (reports).  The model is in decomposed.c's opening comment.
 */
#ifndef CLASH_DECOMPOSED_INT_H
#define CLASH_DECOMPOSED_INT_H

#include <math.h>
#include <stdint.h>

#include "core/run.h"
#include "dist/rcb.h"

/* What an object's state is: never set (state 0 pose), a pose, vertices,
 * or state s of the scene's formula law (clash_step: a pose that moves along
 * the law's path during the step, which every rank evaluates from the same
 * law, so only s travels). */
enum { K_NONE = 0, K_POSE = 1, K_VERTS = 2, K_LAW = 3 };

typedef struct dstate {
    int kind;       /* cur: K_POSE, K_VERTS or K_LAW; next: K_NONE when not set */
    int s;          /* K_LAW: the law's state */
    clash_xform x;  /* K_POSE, and K_LAW's pose of state s */
    double *v;      /* K_VERTS: 3 * nv world positions as given, input vertex order (deforming objects) */
} dstate;

typedef struct clash_dist clash_dist;
struct clash_dist {
    int R, me, n;
    int *owner;               /* n */
    int nown, *own;           /* this rank's objects, ascending */
    int *byowner;             /* n: objects by owner, then number (the allgather's order) */
    int64_t *bcount;          /* R: doubles of boxes each rank gives (6 per object) */
    dstate *cur, *next;       /* nown */
    double *sendbox, *allbox; /* 6 * nown, 6 * n */
    double (*blo)[3], (*bhi)[3];  /* n: this step's boxes */
    clash_rcb cells;
    int last_cut;             /* state at the last cut */
    double imbalance;         /* the last step's faces present, largest over mean */
    uint8_t *member;          /* nown * R: object own[i] is in rank r's part */
    uint8_t *inpart;          /* n: in this rank's part */
    int np, *present;         /* this rank's part, ascending global numbers */
    int *local;               /* n: local number in the part, or -1 */
    int force;                /* rebuild every part at the next step (first step, after a failure) */
    clash_scene *sub;
    clash_run *subrun;
    clash_config subcfg;
    double *dbuf;             /* 3 * largest nv: vertices handed to the store as doubles */
    uint64_t *keys;
    size_t cap_keys;
    double (*centre)[3], *weight; /* n: a cut's points (the boxes' centres, set at each cut) and weights (faces, set once) */
    int recut_pending;        /* a cut failed on some rank: cut again at the next step */
    int64_t part_faces;       /* faces of this rank's part */
    int64_t *flags;           /* 2 * R: each rank's (rebuilds, part faces) of the step */
    int64_t *scount, *rcount, *cursor; /* R: bytes of states to and from each rank */
    int64_t rebuilds, cuts;
    size_t cap_contacts;      /* rank 0: of run->contacts, the step's contacts gathered (ccd) */
    /* n: where each object's formula law takes it over the next
     * CLASH_TUNE_DIST_AHEAD states (the balls of clash_dist_ahead; empty
     * for an object without one), made for state ahead_at (-1: none) */
    double (*alo)[3], (*ahi)[3];
    int ahead_at;
    int by_law, ahead_last;   /* this step is clash_step's (the laws set the states), up to state ahead_last */
    int now;                  /* the current state of this step (alo/ahi count only when made for it) */
};

/* alo/ahi for the state s (once per state; every rank alike, from the
 * scene's laws).  decomposed.c. */
void clash_dist_ahead(clash_dist *D, const clash_scene *sc, int s);

/* Box of o grown by HYSTERESIS times its largest side, or where its law
 * takes it over the next states (alo/ahi, after clash_dist_ahead): the
 * part's rule.  Only which objects a part holds depends on it, never a
 * pair (a part that lacks a needed object is made again). */
static inline int near_cell(const clash_dist *D, int o, int r)
{
    const double HYSTERESIS = 0.5;
    double side = 0, lo[3], hi[3];
    for (int d = 0; d < 3; ++d) side = fmax(side, D->bhi[o][d] - D->blo[o][d]);
    for (int d = 0; d < 3; ++d) lo[d] = D->blo[o][d] - HYSTERESIS * side, hi[d] = D->bhi[o][d] + HYSTERESIS * side;
    if (clash_box_overlaps(lo, hi, D->cells.lo[r], D->cells.hi[r])) return 1;
    return D->ahead_at == D->now && clash_box_overlaps(D->alo[o], D->ahi[o], D->cells.lo[r], D->cells.hi[r]);
}

/* 1 when this rank reports pairs of global objects a, b (step 7); for the
 * part's run (core/run.h op_keep, local objects) the S2 filter, so that no
 * face work goes to pairs another rank reports. */
static inline int reports(const clash_dist *D, int ga, int gb)
{
    return clash_rcb_reporter(&D->cells, D->blo[ga], D->blo[gb]) == D->me;
}

/* decomposed_part.c: steps 5 and 6 of decomposed.c's comment. */
/* This rank's part made again from inpart[] (its scene and run). */
int clash_dist_rebuild_part(clash_dist *D, const clash_scene *sc, clash_error *err);
/* The owners' states for the ranks whose parts hold them, packed by rank
 * (NULL with scount all 0 when out of memory). */
char *clash_dist_pack_states(clash_dist *D, const clash_scene *sc);
/* The states received, into this rank's part (rebuilt: current ones first,
 * and the part's store numbered state, the run's current state). */
int clash_dist_take_states(clash_dist *D, const clash_scene *sc, int rebuilt, int state, const char *recv,
                           int64_t nrecv, clash_error *err);

#endif
