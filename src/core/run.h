/*
 * run.h — the run context: the scene, the resolved configuration and the
 * per-stage buffers reused from step to step, which the stages (stages/)
 * read and write and pipeline.c sequences.  Internal to src/.  Each field
 * says which stage writes it; a stage reads only what earlier stages wrote.
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

enum { CLASH_HDOP = 22 }; /* floats of a kept DOP (run->hdop): ten lo, ten hi, M, ok */

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

struct clash_run {
    clash_scene *sc;
    clash_config cfg;              /* resolved: no field left "scene's" or "auto" except octree_level */
    int threads;
    clash_exec exec;               /* backend, team, partition, schedule, the run's pthreads pool */
    clash_ranks ranks;             /* the run's own communicator (a duplicate of cfg.mpi_comm's) */
    struct clash_counters *ctr;    /* counters of the stage regions (profile.h), NULL: none */
    int32_t *face_obj;             /* object of each global face */
    float *lox, *loy, *loz, *hix, *hiy, *hiz;  /* S1 face boxes */
    clash_box *obox;               /* S1 object boxes */
    clash_objpair *op;             /* S2 */
    size_t nop, cap_op;
    int64_t *reg_ofs;              /* S3: CSR of region boxes per object, nobj+1 */
    clash_box *regs;
    /* S2 with the face octree (stages/broad_dop.c): each object's slabs
     * along ten diagonal directions (CK_FDOP floats), each pair's region's
     * slabs (opdop, as op), and S3's per region (rdop, as regs); rdop_on:
     * this step's regions have them */
    float *odop, *opdop, *rdop;
    size_t cap_opdop;
    int rdop_on;
    /* Swept mode's bounds of a state kept for the step after (temporal
     * coherence): an object's vertex box (S1, boxes deferred) and
     * its CLASH_HDOP floats (S2: the ten lo, the ten hi, M, ok) over x
     * alone.  [0] is being made this step, [1] is the step before's, valid
     * for positions of content number hbox_gen[1] / hdop_gen[1]
     * (store/scene.h); when that is this step's pxgen, px's bounds are
     * taken from it instead of another pass over px.  hdop_has[k][o]: object
     * o's DOP was made.  hold_off: never (the tests compare both ways);
     * held_boxes, held_dops: objects whose px bounds were kept this step. */
    clash_box *hbox[2];
    float *hdop[2];
    uint8_t *hdop_has[2];
    uint64_t hbox_gen[2], hdop_gen[2];
    int hold_off;
    int64_t held_boxes, held_dops;
    uint8_t *keep;                 /* S3: flag per face */
    uint32_t *kept;                /* S3: kept global faces, ascending */
    size_t nkept;
    clash_keybuf *wbuf;            /* S4: per-worker candidate buffers */
    uint64_t *cand;                /* S4: sorted unique candidates */
    size_t ncand, cap_cand;
    uint8_t *hit;                  /* S5: flag per candidate */
    size_t cap_hit;
    clash_pair *pairs;             /* S6 */
    size_t npairs, cap_pairs;
    uint64_t *gkeys;               /* S6 on one rank: the hit keys (their sort's scratch: cand) */
    size_t cap_gkeys;
    int boxes_deferred;            /* S1 makes the object boxes alone, S3 the boxes of the faces
                                      near the regions (the face octree; stages/deferred.c) */
    int64_t nboxed;                /* faces boxed this step, when deferred */
    int eager_boxes;               /* 1: never deferred (tests and benches compare the two) */
    struct clash_defer *defer;     /* deferred boxes: the objects' poses for their blocks (stages/deferred.c) */
    float delta;                   /* culling inflation this step (absolute) */
    float *face_r;                 /* S1, swept mode with a turning object, once per run: each face's
                                      largest |local vertex| (rounded up), the radius of its arc
                                      margin under a scene-file law (core/facetest.h) */
    int level_used;
    struct clash_finegrain *fg;    /* S1/S3 per-worker slots (finegrain.c) */
    double *wsec;                  /* per-worker stage timers (profile.h), exec.worker_seconds */
    /* BVH midphase (stages/mid/bvh.c): per-object BVHs kept between steps, built on
     * the first step and refitted after; bvh_builder: CLASH_BVH_SAH | _MORTON. */
    struct clash_bvh *bvh;
    int bvh_built, bvh_builder;
    /* ... in a static step of a scene without deforming objects the trees are
     * built once over the objects' local faces and kept in their own frames
     * (stages/mid/bvh_frames.c); bvh_world = 1 refits them in the world
     * instead (bench/bvh.c's bvh-refit, for comparison). */
    struct clash_bvh_frames *bvh_frames;
    int bvh_world;
    int narrow_plain;              /* S5, static mode: every candidate straight to ck_tritri, without
                                      the float filter, and S5 apart from S4 (stages/narrow.c,
                                      bvh_frames.c; bench/bvh.c's comparison) */
    void *oct_ws;                  /* S4: the octree's per-worker scratch stacks, kept between steps */
    /* S4 --midphase objoctree|spherical|boxtree|doptree (stages/mid/objoctree.c, spherical.c):
     * the per-object trees, built on the first step; mid_build_s (that step
     * only), mid_bytes, mid_update_s (this step's update) and mid_interfering:
     * the build time and size of a midphase's structure, its update. */
    struct clash_objoct *objoct;
    struct clash_sphoct *sphoct;
    /* S4 --midphase boxtree|doptree (stages/mid/rigidtree.c): Zachmann's
     * per-object trees, built on the first step. */
    struct clash_rtrees *rtrees;
    double mid_build_s, mid_update_s;
    size_t mid_bytes;
    int64_t mid_interfering;
    /* S2/S3: the object pairs (and, with self-collision, the objects' own
     * regions: a == b) this run works on; NULL: all.  A decomposed run's part
     * (decomposed_part.c) drops here the pairs another rank reports, so no
     * face work is spent on them; its own filter after the step stays the
     * rule. */
    int (*op_keep)(void *ctx, int a, int b);
    void *op_keep_ctx;
    int cand_local;                /* S4 under MPI: cand holds this rank's units' candidates only (octree.c) */
    int64_t rank_units;            /* S4: the work units this rank ran this step (octree.c) */
    int cand_places;               /* S4 (the face octree with the rows, one rank): cand's keys are the
                                      faces' places in run->kept (pa << 32 | pb), not face numbers
                                      (stages.h: clash_cand_faces) */
    int cand_unsorted;             /* S4 (bvh_frames.c, one rank): cand unique but in the workers' order;
                                      clash_mid_gather does not sort it, S6 sorts the hits instead */
    int64_t pc_tested;             /* S4 producer-consumer: pair tests made inside S4 (-1: S5 tests) */
    int64_t test_begin, test_end;  /* S5: the candidates this rank tested, read by S6 */
    /* S5 in swept mode with the face octree on one rank (narrow.c): each
     * kept face's six positions and its arc margin as a row of CK_ROW = 24
     * floats (x y z of the points at s, then at s-1, as float offsets from
     * the face's origin, then the origin; the margin, a double), and each
     * kept face's place in run->kept (read for kept faces only) */
    float *frow;
    int32_t *fplace;
    size_t cap_frow;
    /* ... and beside them each kept face's number in the input's numbering
     * (sc->face_orig's, or its own), at its place: S6 maps hit keys of
     * places through this small array rather than through kept and the
     * store-wide face_orig (stages/gather.c) */
    uint32_t *korig;
    size_t cap_korig;
    /* ... made in S4 by the face octree in swept mode (stages/rows.c), with
     * each kept face's DOP (kernels/fdop.c: CK_FDOP floats at its place),
     * which the leaves test beside the boxes; rows_ready and dops_ready: made
     * this step */
    float *fdop;
    size_t cap_fdop;
    int rows_ready, dops_ready;
    /* --ccd (stages/ccd.c, after S5): each object's edge table (core/edges.h),
     * built on the first step and kept; the stage's buffers; the step's
     * contacts, sorted and unique, in input numbering (rank 0 only). */
    struct clash_edges *edges;
    struct clash_ccd *ccd;
    clash_contact *contacts;
    size_t ncontacts, cap_contacts;
    /* A decomposed run (src/decomposed.c): this run is then a shell over the
     * host's whole scene (sc, cfg, ranks, pairs and nothing per face), and
     * dist holds the rank's part and its own pipeline run; dist_state is the
     * number of its current state.  NULL for a pipeline run. */
    struct clash_dist *dist;
    int dist_state;
    /* Which objects and object pairs take part (run_objects.c): NULL until
     * the host sets a filter, excludes a pair, disables or removes an object, or sets
     * an object's self-collision; then every test below reads it.  S2
     * (stages/broad.c) drops the object pairs it refuses, counted in
     * nop_filtered, so S3-S5 never see them; every midphase's face pairs go
     * through clash_pair_eligible, which refuses the same pairs (the face
     * octree pairs the kept faces of all objects in its leaves). */
    struct clash_objfilt *filt;
    int64_t nop_filtered;
    /* clash_run_query (run_step.c): what S0 changes, set aside while a
     * trial step runs, and the spare positions it is computed into
     * (store/trial.h); made on the first query. */
    struct clash_store_trial *trial;
    /* src/query/ (query.h): the step's contact geometry (clash_config.geometry),
     * the distance trees, the proximity pairs; NULL until first used */
    struct clash_query *query;
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

/* Bytes of the run's working arrays beyond the store, at their capacities
 * now (they only grow): S1 face and object boxes, S2 object pairs, S3 regions
 * and kept faces, the S1/S3 worker slots, S4 key buffers, candidates and the
 * octree workspace (or another midphase's structure), S5 flags, S6 pairs
 * (pipeline.c); a decomposed run's: its part's run's and its own arrays
 * (decomposed.c).  With clash_scene_memory_bytes: the run's memory per face. */
size_t clash_run_work_bytes(const clash_run *run);

/* Merges the per-worker buffers run->wbuf into run->cand, sorted and unique
 * (core/keybuf.c); with run->cand_unsorted, concatenated only. */
int clash_mid_gather(clash_run *run);

/* The team size as a count for allocations (threads is always >= 1). */
static inline size_t clash_team(const clash_run *r) { return r->threads > 0 ? (size_t)r->threads : 1; }

/* Face boxes overlap, each grown by delta. */
static inline int clash_faceboxes_overlap(const clash_run *r, uint32_t a, uint32_t b)
{
    const float d = 2 * r->delta;
    return r->lox[a] <= r->hix[b] + d && r->lox[b] <= r->hix[a] + d && r->loy[a] <= r->hiy[b] + d &&
           r->loy[b] <= r->hiy[a] + d && r->loz[a] <= r->hiz[b] + d && r->loz[b] <= r->hiz[a] + d;
}

#endif
