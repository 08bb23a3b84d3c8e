/*
 * stages.h — the entry points of the stages that pipeline.c sequences
 * (src/README.md, "What one step computes").  Each stage's state is a struct
 * in its own header (boxes.h, broad.h, cull.h, mid/midphase.h, face_rows.h,
 * narrow.h, gather.h; ccd.c's is private), held by the run (core/run.h); a
 * stage writes its own and reads the earlier stages' as their outputs.  They
 * use the kernels, sched/ and the store; none calls back into the pipeline.  S0 is the store's (store/motion.c), S4 the midphases'
 * (stages/mid/midphase.h).
 *
 *   S1 boxes.c   face and object boxes, the culling inflation delta
 *   S2 broad.c   run->broad->op: overlapping object pairs with their regions
 *   broad_dop.c  the face octree's: the pairs and regions by the objects' slabs
 *   S3 cull.c    run->cull->kept: faces that meet one of their object's regions
 *   S5 narrow.c  run->narrow->hit: the exact test of each candidate of this rank
 *   face_rows.c       swept, the face octree: the kept faces' rows (S5) and DOPs (S4)
 *   S6 gather.c  the pairs: hits merged over ranks, canonical and sorted
 *   ccd.c        --ccd, between S5 and S6: the hits' primitive pairs tested
 *                exactly, run->contacts with their time of impact
 */
#ifndef CLASH_STAGES_H
#define CLASH_STAGES_H

#include <string.h>

#include "core/run.h"
#include "kernels/kernels.h"
#include "stages/boxes.h"
#include "stages/broad.h"
#include "stages/cull.h"
#include "stages/gather.h"
#include "stages/mid/midphase.h"
#include "stages/narrow.h"
#include "stages/face_rows.h"

/* S1-S3 return 0, or -1 when memory ran out.  S1 computes the face and
 * object boxes when face_boxes is set (else a midphase computed them). */
int clash_stage_boxes(clash_run *run, int face_boxes);
int clash_stage_broad(clash_run *run);
/* broad_dop.c: with the face octree, S2's pairs whose objects' diagonal
 * slabs miss are dropped and the others' region slabs made (run->broad->opdop,
 * run->broad->region_dops); 0, or -1 when memory ran out. */
int clash_broad_dops(clash_run *run);
int clash_stage_cull(clash_run *run);
/* S5 and S6 return a clash_status and fill err. */
int clash_stage_narrow(clash_run *run, const clash_candidates *cand, clash_step_stats *st, clash_error *err);
/* face_rows.c: this step's rows of the kept faces (run->rows->frow, run->rows->fplace) and,
 * with dops, their DOPs (run->rows->fdop; run->rows->dops says whether memory
 * allowed); 0, or -1 when there are none (no kept faces, out of memory). */
int clash_rows_make(clash_run *run, int dops);
/* The same for the kept places k with need[k] set alone (the faces of this
 * rank's units under MPI), after clash_rows_places wrote every kept face's
 * place (run->rows->fplace) and input number (run->rows->korig); 0, or -1 when out of
 * memory or there are no kept faces. */
int clash_rows_places(clash_run *run);
int clash_rows_make_some(clash_run *run, int dops, const uint8_t *need);
/* The bytes past the last row and the last DOP
 * (ck_fdop_mask reads 8 past it), both pages-renewed (base/mem.h). */
#define CLASH_ROWS_PAD (8 * sizeof(float))
/* Kept face k's row (its six positions), and the arc margin in it. */
static inline const float *clash_row(const clash_run *run, int32_t k) { return run->rows->frow + (size_t)CK_ROW * (size_t)k; }
static inline double clash_row_margin(const clash_run *run, int32_t k)
{
    double m;
    memcpy(&m, clash_row(run, k) + 21, sizeof m);
    return m;
}
/* Kept face k's six positions as the store's doubles (x y z at s, then at
 * s-1): what the exact tests read, where a row's floats only steer. */
static inline void clash_row_truth(const clash_run *run, int32_t k, double r[18])
{
    const clash_scene *sc = run->sc;
    const uint32_t f = run->cull->kept[k];
    const int32_t v[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
    for (int j = 0; j < 3; ++j) {
        r[3 * j] = sc->dx[v[j]], r[3 * j + 1] = sc->dy[v[j]], r[3 * j + 2] = sc->dz[v[j]];
        r[9 + 3 * j] = sc->dpx[v[j]], r[10 + 3 * j] = sc->dpy[v[j]], r[11 + 3 * j] = sc->dpz[v[j]];
    }
}
/* A candidate's key in face numbers, and one half of it (a face, or a
 * place) as a place in run->cull->kept: S4 may key them by places
 * (clash_candidates.by_place). */
static inline uint64_t clash_cand_faces(const clash_run *run, const clash_candidates *c, uint64_t k)
{
    return c->by_place ? (uint64_t)run->cull->kept[k >> 32] << 32 | run->cull->kept[(uint32_t)k] : k;
}
static inline int32_t clash_cand_place(const clash_run *run, const clash_candidates *c, uint32_t half)
{
    return c->by_place ? (int32_t)half : run->rows->fplace[half];
}
int clash_stage_gather(clash_run *run, const clash_candidates *cand, clash_pairs *out, clash_step_stats *st,
                       clash_error *err);
/* --ccd: reads this rank's S5 hits (before S6 compacts them), fills
 * run->contacts (rank 0) and the st->ccd_* counts.  clash_stage_ccd_free releases
 * the stage's buffers, the edge table and the contacts. */
int clash_stage_ccd(clash_run *run, const clash_candidates *cand, clash_step_stats *st, clash_error *err);
void clash_stage_ccd_free(clash_run *run);
/* The last --ccd step's primitive pairs on this rank (vf first, then ee),
 * for benchmarks: their count, and pair i's kind (CK_CCD_VF or CK_CCD_EE)
 * with its points at t = 0 and t = 1 as the stage gave them to the kernel
 * (for a pair on an object that turns, the straight-line query between the
 * two states, which the stage replaces by its sub-steps). */
int64_t clash_ccd_queries(const clash_run *run);
int clash_ccd_query(const clash_run *run, int64_t i, double x0[4][3], double x1[4][3]);

#endif
