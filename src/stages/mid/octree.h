/*
 * octree.h — what the face-octree midphase's three files share (internal to
 * stages/mid/): octree.c descends the units and emits candidates,
 * octree_units.c bins the kept faces into the units, octree_merge.c merges
 * the workers' candidate buffers.  The method is described in octree.c.
 *
 * Memory kept between steps lives in the run's workspace (oct_ws,
 * run->mid->oct_ws): per-worker descent stacks, the units' face lists and the
 * binning arrays, grown as needed and never shrunk.
 */
#ifndef CLASH_STAGES_MID_OCTREE_H
#define CLASH_STAGES_MID_OCTREE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/run.h"
#include "stages/mid/midphase.h"

typedef struct scratch {
    uint32_t *v;
    size_t n, cap;
    uint8_t *st; /* per-face bytes of one node: child masks, then leaf test states */
    size_t stcap;
    void *lb;    /* a leaf's boxes, objects and overlap bitmap (emit_leaf) */
    size_t lbcap;
    uint8_t *fl; /* beside v, per face of a cell: the axes on which it also meets the cell below (octree.c) */
    size_t flcap;
} scratch;

static inline int scratch_reserve(scratch *s, size_t extra)
{
    if (s->n + extra <= s->cap) return 0;
    size_t cap = s->cap ? s->cap : 4096;
    while (cap < s->n + extra) cap *= 2;
    uint32_t *v = realloc(s->v, cap * sizeof *v);
    if (!v) return -1;
    s->v = v, s->cap = cap;
    return 0;
}

static inline int grow_bytes(void *pp, size_t *cap, size_t n)
{
    void **p = pp;
    if (n <= *cap) return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < n) c *= 2;
    void *v = realloc(*p, c);
    if (!v) return -1;
    *p = v, *cap = c;
    return 0;
}

static inline int scratch_bytes(scratch *s, size_t n) { return grow_bytes(&s->st, &s->stcap, n); }
static inline int scratch_flags(scratch *s) { return grow_bytes(&s->fl, &s->flcap, s->cap); }

/* The octree's memory kept between steps (run->mid->oct_ws): allocating and
 * releasing it every step made the threads fault in fresh pages (and shoot
 * down each other's TLB entries) on every step. */
typedef struct oct_ws {
    scratch *w;          /* per worker: the descent's stacks */
    scratch uf;          /* the units' face lists */
    size_t *cnt, *start; /* binning: [worker][cell] scatter positions, cell starts */
    uint32_t *rng;       /* binning: cells of each kept face */
    uint8_t *pair;       /* binning: cells that may pair */
    struct bin_stat *stat; /* binning: bounds and edge sum per block */
    uint64_t *sorttmp;   /* merge_keys: the sort's scratch */
    uint32_t *mcnt;      /* merge_keys: the buckets' counts and ends */
    struct cell_count *cc; /* binning: per worker and cell, its faces and objects */
    uint8_t *need;       /* under MPI: the kept places in this rank's units, whose rows are made */
    size_t cntcap, startcap, rngcap, paircap, statcap, sorttmpcap, cccap, mcntcap, needcap;
} oct_ws;

/* Grows *pp (a pointer to a pointer) to n elements of size sz, contents not kept. */
static inline int ws_grow(void *pp, size_t *cap, size_t n, size_t sz)
{
    void **p = pp;
    if (n <= *cap) return 0;
    free(*p);
    *p = malloc(n * sz);
    *cap = *p ? n : 0;
    return *p ? 0 : -1;
}

/* Children of a cell: bit c of a mask is child c = x + 2y + 4z (1 for the
 * upper half).  CLASH_LOW_AXES[m]: bit a set when mask m reaches a child in
 * the lower half on axis a (x: children 0x55, y: 0x33, z: 0x0F).  Swept
 * mode's per-face flags (octree.c, "Swept mode also makes each pair once")
 * go down a split as clash_child_flags says. */
#define CLASH_LA1(m) ((((m) & 0x55) != 0) | (((m) & 0x33) != 0) << 1 | (((m) & 0x0F) != 0) << 2)
#define CLASH_LA4(m) CLASH_LA1(m), CLASH_LA1((m) + 1), CLASH_LA1((m) + 2), CLASH_LA1((m) + 3)
#define CLASH_LA16(m) CLASH_LA4(m), CLASH_LA4((m) + 4), CLASH_LA4((m) + 8), CLASH_LA4((m) + 12)
#define CLASH_LA64(m) CLASH_LA16(m), CLASH_LA16((m) + 16), CLASH_LA16((m) + 32), CLASH_LA16((m) + 48)
static const uint8_t CLASH_LOW_AXES[256] = {CLASH_LA64(0), CLASH_LA64(64), CLASH_LA64(128), CLASH_LA64(192)};
#undef CLASH_LA64
#undef CLASH_LA16
#undef CLASH_LA4
#undef CLASH_LA1
/* A face's flags in child c: old its flags in the cell, low CLASH_LOW_AXES
 * of its mask there (octree.c's visit and octree_units.c's split_cell). */
static inline uint8_t clash_child_flags(unsigned old, unsigned low, unsigned c)
{
    return (uint8_t)((old & ~c) | (low & c));
}

typedef struct unit {
    double lo[3];
    double size;
    int level;
    size_t ofs, n; /* into the units' face array */
} unit;

typedef struct unitset {
    unit *u;
    size_t n, cap;
    scratch *faces;      /* the workspace's (oct_ws.uf); swept mode: faces->fl, each face's flags at its unit's root */
    double *cost;
    int64_t *order, norder;
} unitset;

/* The units of this step: the cells of the unit level that may pair, split
 * further when big, with this rank's share in the order handed out (largest
 * first for the dynamic schedules).  Returns 0, 1 when fewer than two faces
 * were kept (no unit), -1 when out of memory.  Sets run->mid->level_used. */
int clash_oct_build_units(clash_run *run, oct_ws *W, unitset *us);
void clash_oct_unitset_free(unitset *us);
/* Bytes of n per-block binning statistics (their type is octree_units.c's own). */
size_t clash_oct_stat_bytes(size_t n);
size_t clash_oct_cc_bytes(size_t n);
/* Merges nb per-worker key buffers into *out (grown to *cap): unique, *nout
 * keys, sorted when `sorted`, else grouped by first face in kept order
 * (`unique`: the buffers hold no key twice, swept mode: none is dropped).  Returns 0, -1 when out of memory, -2 when a key's
 * first face is not a kept face (a broken invariant, never expected). */
int clash_oct_merge_keys(clash_run *run, clash_keybuf *bufs, int nb, int sorted, int unique, uint64_t **out,
                         size_t *cap, size_t *nout);

#endif
