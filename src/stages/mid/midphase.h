/*
 * midphase.h — the S4 midphases (src/README.md, S4), one file each:
 *   octree.c        the report's face octree ([Smith94] §3.3.5), the default,
 *                   over the faces S3 kept (octree_units.c bins them,
 *                   octree_merge.c merges the workers' candidates);
 *   brute.c         the oracle: every eligible pair with overlapping boxes;
 *   bvh.c           BVH x BVH traversal over per-object wide BVHs that are
 *                   kept in the run: built on the first step, refitted on
 *                   every later one (refit counted in S1); on a rigid
 *   bvh_frames.c    scene in static mode, built once over the local faces
 *                   and queried through the poses instead (no refit);
 *   bboxpipe.c      Zachmann's bounding-box pipeline ([Zachmann00] §3.3), no
 *                   structure kept between steps;
 *   objoctree.c     object octrees built once per rigid object in its own
 *                   frame, updated into the world tessellation each step
 *                   and intersected there ([KTK94] §4.2, [KTAK94] §3.2);
 *   spherical.c     object-centred spherical octrees, built once per rigid
 *                   object and moved with it ([TC96] §2-3);
 *   boxtree.c       Zachmann's BoxTree ([Zachmann00] §3.5.4-3.5.7) and
 *   doptree.c       DOP-tree ([Zachmann00] §3.5.9): one tree per rigid object in its
 *                   own frame, built on the first step (rigidtree.c: the
 *                   frames and the traversal driver they share).
 * The BVH, the bounding-box pipeline and the object trees take the object
 * pairs of S2 (run->broad->op) and, with self-collision, every object against
 * itself, skip S3, and leave the sorted unique
 * candidate keys in run->mid->cand.keys / run->mid->cand.n exactly like octree.c, so S5
 * and S6 are unchanged.  Every box test uses boxes grown by run->boxes->delta
 * (stages/boxes.c, conservative culling), so no pair the narrow test accepts
 * is ever dropped.
 */
#ifndef CLASH_STAGES_MID_MIDPHASE_H
#define CLASH_STAGES_MID_MIDPHASE_H

#include "core/run.h"
#include "stages/boxes.h"
#include "stages/broad.h"
#include "stages/cull.h"
#include "stages/face_rows.h"

/* ---- S4's state ---------------------------------------------------------------------------- */

/* S4's product, which S5, --ccd and S6 read: the candidate face pairs as
 * uint64 keys (core/run.h's numbering), and how to read them. */
typedef struct clash_candidates {
    uint64_t *keys;
    size_t n, cap;
    int by_place;  /* the keys are the faces' places in S3's kept list (pa << 32 | pb), not face numbers
                      (the face octree with the rows, one rank: stages.h clash_cand_faces) */
    int unsorted;  /* unique but in the workers' order: S6 sorts the hits instead */
    int local;     /* under MPI: this rank's units' candidates only (the face octree) */
    int hits;      /* S4 tested them already and kept only the hits (producer-consumer, the fused
                      static BVH): S5 tests nothing; tests counts the tests S4 made */
    int64_t tests;
} clash_candidates;

typedef struct clash_mid_state {
    clash_candidates cand;
    clash_keybuf *wbuf;        /* per-worker candidate buffers (clash_team(run) of them) */
    int level_used;            /* the face octree's level this step */
    int64_t rank_units;        /* under MPI: the work units this rank ran this step (octree.c) */
    void *oct_ws;              /* the face octree's per-worker scratch, kept between steps */
    /* the bvh midphase (bvh.c): per-object BVHs kept between steps, built on
     * the first step and refitted after; bvh_builder: CLASH_BVH_SAH | _MORTON;
     * bvh_frames: on a static rigid scene the trees built once over the
     * objects' local faces and kept in their frames (bvh_frames.c) */
    struct clash_bvh *bvh;
    int bvh_built, bvh_builder;
    struct clash_bvh_frames *bvh_frames;
    /* the per-object trees of objoctree, spherical (objoctree.c, spherical.c)
     * and boxtree/doptree (rigidtree.c), built on the first step */
    struct clash_objoct *objoct;
    struct clash_sphoct *sphoct;
    struct clash_rtrees *rtrees;
    /* the object trees' build time (that step only), size, this step's
     * update time and interfering node pairs, for the step's statistics */
    double build_s, update_s;
    size_t bytes;
    int64_t interfering;
} clash_mid_state;

/* S4's state for a team of T workers, NULL when out of memory; the
 * midphases' structures are made by their first step. */
clash_mid_state *clash_mid_create(size_t T);
/* A step's S4 begins: the candidates none, their buffer kept, the level and
 * units not yet known; returns the candidates, which S4 then makes. */
const clash_candidates *clash_mid_begin(clash_run *run);
/* Merges the per-worker buffers wbuf into cand, sorted and unique; with
 * cand.unsorted, concatenated only.  0, or -1 when out of memory. */
int clash_mid_gather(clash_run *run);

/* ---- the table of midphases (midphase.c) ------------------------------------------------ */

/* One midphase: what the pipeline asks of it and calls.  The pipeline's S1
 * and S4, the run's memory account and destruction, the configuration's
 * names (config.c), `--midphase` (cli/options.c) and the report's name all
 * come from clash_midphases[], indexed by CLASH_MID_* (clash.h). */
typedef struct clash_midphase_ops {
    const char *name;     /* the config value and `--midphase NAME` */
    int id;               /* CLASH_MID_* */
    int rigid_only;       /* needs every object rigid: a scene with a deforming one runs the face octree
                             instead (the report's midphase_fallback) */
    int culls_itself;     /* skips S3: culls inside S4 with its own boxes, every face counted kept */
    int skips_broad;      /* skips S2 and S3 too (the oracle: every eligible face pair) */
    int defers_boxes;     /* reads the kept faces' boxes alone, so S1 may leave the others to S3
                             (stages/deferred.c; not with self-collision) */
    /* S1's hook (NULL: none): builds or refits its structure from the vertices and makes the object
     * boxes; 0 done (no face boxes needed), 1 not this step (S1 as usual), -1 out of memory. */
    int (*build)(clash_run *run);
    /* S4: the sorted unique candidate keys in run->mid->cand.keys / run->mid->cand.n (or, producer-consumer, the hits). */
    int (*candidates)(clash_run *run, clash_error *err);
    size_t (*bytes)(const clash_run *run); /* its memory kept in the run (NULL: none) */
    void (*free)(clash_run *run);          /* frees its state and leaves it NULL (NULL: nothing kept) */
    size_t state;                          /* offsetof(clash_mid_state, its state pointer); 0: none */
} clash_midphase_ops;

enum { CLASH_NMIDPHASES = CLASH_MID_DOPTREE + 1 };
extern const clash_midphase_ops clash_midphases[CLASH_NMIDPHASES];
/* The names in table order, NULL-terminated (for the option parsers and their hints). */
extern const char *const clash_midphase_names[CLASH_NMIDPHASES + 1];
/* Midphase id's row, NULL when id is none; its name, "?" when none. */
const clash_midphase_ops *clash_midphase_of(int id);
const char *clash_midphase_name(int id);
/* The row this run's S4 takes: its configured midphase, or the face octree
 * where that one is rigid-only and the scene has a deforming object. */
const clash_midphase_ops *clash_midphase_for(const clash_run *run);
/* Its state pointer in the run (NULL: none kept, or not built yet). */
void *clash_midphase_state(const clash_run *run, const clash_midphase_ops *m);
/* Every midphase's free (clash_run_destroy). */
void clash_midphases_free(clash_run *run);

/* The face-octree midphase (octree.c): fills run->mid->cand.keys with the sorted,
 * unique candidate pairs among run->cull->kept faces.  Returns the level used. */
int clash_octree_candidates(clash_run *run, clash_error *err);
/* Bytes of the octree's per-run scratch (its stacks, unit face lists, binning
 * and sort arrays, at their capacities), for the run's memory account. */
size_t clash_octree_bytes(const clash_run *run);
/* Frees the octree's per-run scratch (called by clash_run_destroy). */
void clash_octree_free(clash_run *run);
/* S4 and S5 together by producer-consumer (octree.c, [Smith94] §4.4.2): fills
 * run->mid->cand.keys with the sorted unique hits; *tested counts the tests made. */
int clash_octree_prodcons(clash_run *run, int64_t *tested, clash_error *err);
/* The oracle (brute.c): every eligible pair whose face boxes overlap.
 * Returns 0, or -1 when memory ran out. */
int clash_brute_candidates(clash_run *run);
int clash_bvh_candidates(clash_run *run, clash_error *err);
int clash_bboxpipe_candidates(clash_run *run, clash_error *err);
/* S1 for the bvh midphase once its trees exist: refits every object's BVH
 * straight from the vertex positions (the face boxes in leaf order, by the S1
 * kernel) and sets the object boxes; the face-order boxes run->boxes->lox.. are not
 * written.  Returns 0, or 1 when the trees are not built yet (S1 as usual). */
int clash_bvh_stage_boxes(clash_run *run);
/* Frees the per-run midphase state (the per-object BVHs). */
void clash_midphase_free(clash_run *run);
/* The bvh midphase on a rigid scene in static mode (bvh_frames.c): the trees
 * in the objects' own frames.  _apply says whether this run's step takes
 * that path; _boxes is its S1 (builds the trees on the first call, sets the
 * object boxes; no face boxes; 0, or -1 out of memory); _candidates its S4;
 * _boxed the faces whose world boxes the step made (-1: not this path). */
typedef struct clash_bvh_frames clash_bvh_frames;
int clash_bvh_frames_apply(const clash_run *run);
int clash_bvh_frames_boxes(clash_run *run);
int clash_bvh_frames_candidates(clash_run *run, clash_error *err);
int64_t clash_bvh_frames_boxed(const clash_run *run);
void clash_bvh_frames_free(clash_run *run);
/* The object octrees and the spherical octrees (rigid scenes only: the
 * pipeline runs the face octree for deforming ones).  Build their trees on
 * the first call; the _free functions release them (clash_run_destroy). */
int clash_objoct_candidates(clash_run *run, clash_error *err);
void clash_objoct_free(clash_run *run);
int clash_sphoct_candidates(clash_run *run, clash_error *err);
void clash_sphoct_free(clash_run *run);
/* The BoxTree and the DOP-tree (rigid scenes only, likewise).  Build their
 * trees on the first call; clash_rigidtree_free releases them (rigidtree.c). */
int clash_boxtree_candidates(clash_run *run, clash_error *err);
int clash_doptree_candidates(clash_run *run, clash_error *err);
void clash_rigidtree_free(clash_run *run);

#endif
