/*
 * run.h — the run context: the scene, the resolved configuration, the team,
 * one state struct per stage (each defined in its stage's header under
 * stages/, reused from step to step) and what a step returns.  Internal to
 * src/.  A stage writes its own state and reads only earlier stages'; the
 * run holds no flag one stage sets for another (tests/packaging/
 * check_source.py counts the members and refuses flags).
 *
 * One step (pipeline.c) runs the stages of src/README.md in order:
 *   S0 motion  S1 boxes  S2 broad  S3 cull  S4 mid  S5 narrow  S6 gather
 * Candidate face pairs travel between S4 and S5 as uint64 keys
 *   key = (uint64)global_face_a << 32 | global_face_b,  a < b,
 * where a global face id is the face's index in the store (objects in scene
 * order, faces in file order), so sorting keys sorts pairs canonically.
 */
#ifndef CLASH_CORE_RUN_H
#define CLASH_CORE_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "clash/clash.h"
#include "store/scene.h"
#include "sched/ranks.h"
#include "sched/sched.h"

typedef struct clash_box {
    float lo[3], hi[3];
} clash_box;

enum { CLASH_HDOP = 22 }; /* floats of a kept DOP (run->boxes->hdop): ten lo, ten hi, M, ok */

typedef struct clash_objpair {
    int32_t a, b;      /* a <= b (a == b: self-collision of one object) */
    clash_box region;  /* overlap region: box(a) ∩ box(b) */
} clash_objpair;

/* A growable array of uint64 keys, padded to its own cache lines so
 * workers can each own one without false sharing. */
typedef struct clash_keybuf {
    uint64_t *v;
    size_t n, cap;
    char pad_[CLASH_CACHE_LINE - sizeof(uint64_t *) - 2 * sizeof(size_t)];
} clash_keybuf;

/* Appends key, growing the buffer (clash_keybuf_grow, core/keybuf.c, out
 * of line: the octree's leaves push a key every few instructions).
 * Returns -1 when out of memory. */
int clash_keybuf_grow(clash_keybuf *b);
static inline int clash_keybuf_push(clash_keybuf *b, uint64_t key)
{
    if (b->n == b->cap && clash_keybuf_grow(b)) return -1;
    b->v[b->n++] = key;
    return 0;
}
/* Room for k more keys (grown as clash_keybuf_push grows it); -1 when out
 * of memory.  Then up to k keys may be written at b->v + b->n, and b->n
 * moved past them. */
static inline int clash_keybuf_room(clash_keybuf *b, size_t k)
{
    while (b->cap - b->n < k)
        if (clash_keybuf_grow(b)) return -1;
    return 0;
}

/* Switches the tests and benchmarks set to compare two ways of doing the
 * same work; a host never sets them, and every one left 0 is the library's
 * choice.  The stages read them; none sets them. */
typedef struct clash_debug {
    int hold_off;     /* S1/S2: never take the held bounds of the step before (stages/held_bounds.c) */
    int eager_boxes;  /* S1: box every face, never defer to S3 (stages/deferred.c) */
    int bvh_world;    /* S4 bvh, static rigid: refit the trees in the world, not kept in the frames */
    int narrow_plain; /* S5, static: every candidate straight to the exact test, no float filter */
    int ccd_every_hit; /* --ccd: every hit's primitive pairs, not only from their owners' face pair */
} clash_debug;

/* The run: what it was made with, the team that works for it, each stage's
 * own state (defined in that stage's header, opaque here: core/ sits below
 * stages/), and what a step hands back to its caller.  A stage reads the
 * state of the stages before it, as their outputs, and writes its own. */
struct clash_run {
    clash_scene *sc;
    clash_config cfg;              /* resolved: no field left "scene's" or "auto" except octree_level */
    int threads;
    clash_exec exec;               /* backend, team, partition, schedule, the run's pthreads pool, the
                                      per-worker stage timers (exec.worker_seconds, profile.h) */
    clash_ranks ranks;             /* the run's own communicator (a duplicate of cfg.mpi_comm's) */
    struct clash_counters *ctr;    /* counters of the stage regions (profile.h), NULL: none */
    int32_t *face_obj;             /* object of each global face (made with the run) */
    /* each stage's state, made with the run (pipeline.c), in step order */
    struct clash_boxes_state *boxes;   /* S1 stages/boxes.h: face and object boxes, delta, held bounds */
    struct clash_broad_state *broad;   /* S2 stages/broad.h: object pairs and their regions */
    struct clash_cull_state *cull;     /* S3 stages/cull.h: regions per object, kept faces */
    struct clash_mid_state *mid;       /* S4 stages/mid/midphase.h: candidates, the midphases' structures */
    struct clash_rows *rows;           /* S4/S5 stages/face_rows.h: the kept faces' rows and DOPs (swept) */
    struct clash_narrow_state *narrow; /* S5 stages/narrow.h: the hit flags, this rank's candidates */
    struct clash_gather_state *gather; /* S6 stages/gather.h: the hit keys' scratch */
    struct clash_ccd *ccd;             /* --ccd stages/ccd.c: its buffers (NULL until the first --ccd step) */
    struct clash_finegrain *fg;        /* S1/S3 per-worker slots (stages/finegrain.c) */
    /* what a step gives its caller: the pairs (S6) and, with --ccd, the
     * contacts, sorted and unique, in input numbering (rank 0 only) */
    clash_pair *pairs;
    size_t npairs, cap_pairs;
    clash_contact *contacts;
    size_t ncontacts, cap_contacts;
    /* --ccd and the edge queries: each object's edge table (core/edges.h),
     * made with the run and kept */
    struct clash_edges *edges;
    /* A decomposed run (src/decomposed.c): this run is then a shell over the
     * host's whole scene (sc, cfg, ranks, pairs and nothing per face), and
     * dist holds the rank's part and its own pipeline run; dist_state is the
     * number of its current state.  NULL for a pipeline run. */
    struct clash_dist *dist;
    int dist_state;
    /* Which objects and object pairs take part (run_objects.c): NULL until
     * the host sets a filter, excludes a pair, disables or removes an object,
     * or sets an object's self-collision.  S2 drops the object pairs it
     * refuses; every midphase's face pairs go through clash_pair_eligible. */
    struct clash_objfilt *filt;
    /* clash_run_query (run_step.c): what S0 changes, set aside while a
     * trial step runs (store/trial.h); made on the first query. */
    struct clash_store_trial *trial;
    /* src/query/ (query.h): the step's contact geometry, the distance trees,
     * the proximity pairs; NULL until first used */
    struct clash_query *query;
    clash_debug debug;
};

/* The filter of clash_run_set_filter and its neighbours (run_objects.c),
 * one entry per object of the scene (n; the arrays hold cap):
 * off: CLASH_OBJ_DISABLED and CLASH_OBJ_REMOVED bits (an object with either
 * takes part in no pair); self: the object is tested against itself (the
 * run's cfg.self_collision is then the OR of them, so the stages make the
 * objects' own regions and leave the rest to clash_obj_self); group, mask:
 * Bullet's rule, two objects are tested only when (group_a & mask_b) and
 * (group_b & mask_a) are both nonzero; noff: objects with an off bit; excl: the excluded pairs as a << 32 | b
 * (a < b), ascending, nexcl of them. */
enum { CLASH_OBJ_DISABLED = 1, CLASH_OBJ_REMOVED = 2 };
typedef struct clash_objfilt {
    int n, cap, noff;              /* noff: the objects with an off bit */
    uint8_t *off, *self;
    uint32_t *group, *mask;
    uint64_t *excl;
    size_t nexcl, cap_excl;
    int self_cfg;                  /* the run's configured self_collision: an added object's default */
} clash_objfilt;

/* Whether objects a <= b may pair under the run's filter (a == b: the
 * object against itself), ignoring the configured self-collision when there
 * is no filter (the callers test it). */
static inline int clash_filt_keep(const clash_objfilt *F, int a, int b)
{
    if (F->off[a] | F->off[b]) return 0;
    if (a == b) return F->self[a];
    if (!((F->group[a] & F->mask[b]) && (F->group[b] & F->mask[a]))) return 0;
    if (!F->nexcl) return 1;
    const uint64_t key = (uint64_t)(uint32_t)(a < b ? a : b) << 32 | (uint32_t)(a < b ? b : a);
    size_t lo = 0, hi = F->nexcl; /* binary search of the ascending keys */
    while (lo < hi) {
        const size_t m = lo + (hi - lo) / 2;
        if (F->excl[m] < key) lo = m + 1;
        else hi = m;
    }
    return !(lo < F->nexcl && F->excl[lo] == key);
}

/* Whether object o is tested against itself in this run. */
static inline int clash_obj_self(const clash_run *run, int o)
{
    return run->filt ? clash_filt_keep(run->filt, o, o) : run->cfg.self_collision;
}

/* Eligibility of a face pair for the narrow test: different objects that
 * the run's filter lets pair, or the same object with self-collision on
 * (for it) and no shared vertex. */
static inline int clash_pair_eligible(const clash_run *run, uint32_t fa, uint32_t fb)
{
    const int32_t oa = run->face_obj[fa], ob = run->face_obj[fb];
    if (oa != ob) return !run->filt || clash_filt_keep(run->filt, oa, ob);
    if (!run->cfg.self_collision || fa == fb) return 0;
    if (run->filt && !clash_filt_keep(run->filt, oa, oa)) return 0;
    const clash_scene *sc = run->sc;
    const int32_t a0 = sc->f0[fa], a1 = sc->f1[fa], a2 = sc->f2[fa];
    const int32_t b0 = sc->f0[fb], b1 = sc->f1[fb], b2 = sc->f2[fb];
    return !(a0 == b0 || a0 == b1 || a0 == b2 || a1 == b0 || a1 == b1 || a1 == b2 || a2 == b0 || a2 == b1 ||
             a2 == b2);
}

/* Counts the stage regions of the run's steps with c, opened by
 * clash_counters_open (NULL: none); pipeline.c.  For the command. */
struct clash_counters;
void clash_run_set_counters(clash_run *run, struct clash_counters *c);

/* The object pairs (a <= b; a == b: an object's own region) the run's S2
 * keeps from now on: those keep(ctx, a, b) accepts (NULL: all).  A
 * decomposed run's part drops here the pairs another rank reports. */
void clash_pipe_keep_pairs(clash_run *run, int (*keep)(void *ctx, int a, int b), void *ctx);

/* Bytes of the run's working arrays beyond the store, at their capacities
 * now (they only grow): S1 face and object boxes, S2 object pairs, S3 regions
 * and kept faces, the S1/S3 worker slots, S4 key buffers, candidates and the
 * octree workspace (or another midphase's structure), S5 flags, S6 pairs
 * (pipeline.c); a decomposed run's: its part's run's and its own arrays
 * (decomposed.c).  With clash_scene_memory_bytes: the run's memory per face. */
size_t clash_run_work_bytes(const clash_run *run);

/* The team size as a count for allocations (threads is always >= 1). */
static inline size_t clash_team(const clash_run *r) { return r->threads > 0 ? (size_t)r->threads : 1; }

#endif
