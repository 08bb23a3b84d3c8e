/*
 * pipeline.c — one step of the coarse-to-fine face-pair method (003 ch. 3–4).
 *
 *   S0 motion  world positions of state s; state s-1 kept (motion.c)
 *   S1 boxes   face boxes (swept: over both states), object boxes
 *   S2 broad   overlapping object pairs and their overlap regions box ∩ box
 *              (all pairs for few objects, sort-and-sweep for many)
 *   S3 cull    faces of each object that meet one of its overlap regions
 *              (exact face/box test); with self-collision an object's own
 *              box is one of its regions
 *   S4 mid     candidate face pairs: the face octree (octree.c), or the
 *              brute-force oracle (every eligible face pair whose boxes
 *              overlap, found by sort-and-sweep over all face boxes)
 *   S5 narrow  the face-pair test: static, triangle/triangle; swept, the
 *              convex hulls of each face's 6 vertex positions at s-1 and s
 *   S6 gather  hits in canonical order (candidates are sorted already)
 *
 * Conservative culling.  Every culling test (boxes, regions, octree cells)
 * works on sets grown by delta, a few float ulps of the scene's coordinate
 * magnitude, far above the rounding margin of the double-precision narrow
 * tests.  So a pair the narrow test accepts always survives S1–S4, and the
 * pipeline's pair set equals the oracle's exactly.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "broad.h"
#include "error.h"
#include "finegrain.h"
#include "kernels/kernels.h"
#include "midphase.h"
#include "pipeline.h"
#include "profile.h"
#include "sched/ranks.h"
#include "sort.h"

clash_config clash_config_default(void)
{
    return (clash_config){.steps = -1,
                          .mode = -1,
                          .self_collision = -1,
                          .threads = 0,
                          .backend = CLASH_BACKEND_OMP,
                          .partition = CLASH_PART_CHUNK,
                          .schedule = CLASH_SCHED_DYNAMIC,
                          .midphase = CLASH_MID_OCTREE,
                          .broadphase = CLASH_BROAD_AUTO,
                          .octree_level = 0,
                          .stop_at_first = 0,
                          .chunk = 0,
                          .batch = 0,
                          .bind = CLASH_BINDING_NONE,
                          .reorder = CLASH_REORDER_MORTON};
}

const char *clash_stage_name(int stage)
{
    static const char *const names[CLASH_NSTAGES] = {"motion", "boxes", "broad", "cull", "mid", "narrow", "gather"};
    return stage >= 0 && stage < CLASH_NSTAGES ? names[stage] : "?";
}

/* Gathers the points of face f's hull: 3 (static) or 6 (swept) points. */
static inline int face_points(const clash_run *run, uint32_t f, double p[6][3])
{
    const clash_scene *sc = run->sc;
    const int32_t v[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
    for (int k = 0; k < 3; ++k) p[k][0] = sc->x[v[k]], p[k][1] = sc->y[v[k]], p[k][2] = sc->z[v[k]];
    if (run->cfg.mode != CLASH_MODE_SWEPT) return 3;
    for (int k = 0; k < 3; ++k) p[3 + k][0] = sc->px[v[k]], p[3 + k][1] = sc->py[v[k]], p[3 + k][2] = sc->pz[v[k]];
    return 6;
}

int clash_face_meets_box(const clash_run *run, uint32_t f, const double lo[3], const double hi[3])
{
    double p[6][3];
    const int np = face_points(run, f, p);
    const double d = run->delta;
    if (np == 3) {
        const double glo[3] = {lo[0] - d, lo[1] - d, lo[2] - d}, ghi[3] = {hi[0] + d, hi[1] + d, hi[2] + d};
        return ck_tribox(p[0], p[1], p[2], glo, ghi);
    }
    return ck_hull_box((const double(*)[3])p, np, lo, hi, d);
}

static int narrow_test(const clash_run *run, uint32_t a, uint32_t b)
{
    double p[6][3], q[6][3];
    const int np = face_points(run, a, p);
    face_points(run, b, q);
    if (np == 3) return ck_tritri(p[0], p[1], p[2], q[0], q[1], q[2]);
    return ck_hulls_meet((const double(*)[3])p, 6, (const double(*)[3])q, 6, 0.0);
}

/* ---- run lifetime ---------------------------------------------------------------- */

void clash_run_destroy(clash_run *run)
{
    if (!run) return;
    free(run->face_obj);
    free(run->lox), free(run->loy), free(run->loz), free(run->hix), free(run->hiy), free(run->hiz);
    free(run->obox), free(run->op), free(run->reg_ofs), free(run->regs), free(run->keep), free(run->kept);
    if (run->wbuf)
        for (int w = 0; w < run->threads; ++w) free(run->wbuf[w].v);
    free(run->wbuf);
    free(run->cand), free(run->hit), free(run->pairs);
    free(run->wsec);
    clash_octree_free(run);
    clash_midphase_free(run);
    clash_fg_destroy(run->fg);
    free(run);
}

clash_run *clash_run_create(clash_scene *sc, const clash_config *cfg, clash_error *err)
{
    clash_config c = *cfg;
    clash_scene_apply_defaults(sc, &c);
    if (c.mode != CLASH_MODE_STATIC && c.mode != CLASH_MODE_SWEPT) {
        clash_fail(err, CLASH_EINPUT, "mode: must be static or swept");
        return NULL;
    }
    if (c.midphase < CLASH_MID_OCTREE || c.midphase > CLASH_MID_BRUTE) {
        clash_fail(err, CLASH_EINPUT, "midphase: unknown (octree, bvh, bboxpipe, or brute for the oracle)");
        return NULL;
    }
    if (c.chunk < 0) {
        clash_fail(err, CLASH_EINPUT, "chunk: must be >= 0, got %lld", (long long)c.chunk);
        return NULL;
    }
    if (!clash_sched_backend_available(c.backend)) {
        clash_fail(err, CLASH_EINPUT, "backend: pthreads is not available yet (omp only)");
        return NULL;
    }
    if (c.schedule < CLASH_SCHED_STATIC_CHUNK || c.schedule > CLASH_SCHED_STEALING) {
        clash_fail(err, CLASH_EINPUT, "schedule: unknown (static-chunk, static-stride, dynamic, producer-consumer, "
                                      "stealing)");
        return NULL;
    }
    if (c.reorder != CLASH_REORDER_NONE && c.reorder != CLASH_REORDER_MORTON) {
        clash_fail(err, CLASH_EINPUT, "reorder: unknown (none or morton)");
        return NULL;
    }
    if (c.reorder == CLASH_REORDER_MORTON && !sc->face_orig && clash_scene_reorder_morton(sc, err)) return NULL;
    if (sc->deforming && c.steps >= sc->nframes) {
        clash_fail(err, CLASH_EINPUT, "%s: %d steps need %d frames, but the scene has %d", sc->name, c.steps,
                   c.steps + 1, sc->nframes);
        return NULL;
    }
    clash_run *run = calloc(1, sizeof *run);
    if (!run) goto oom;
    run->sc = sc;
    run->cfg = c;
    run->threads = clash_sched_threads(c.threads);
    run->exec = (clash_exec){.backend = c.backend, .threads = run->threads, .partition = c.partition,
                             .chunk = c.chunk,
                             .schedule = c.schedule, .batch = c.batch};
    const size_t nf = (size_t)sc->nf;
    run->face_obj = malloc(nf * sizeof(int32_t));
    float **b[] = {&run->lox, &run->loy, &run->loz, &run->hix, &run->hiy, &run->hiz};
    for (int i = 0; i < 6; ++i)
        if (!(*b[i] = clash_aligned_calloc(nf, sizeof(float)))) goto oom;
    run->obox = calloc((size_t)sc->nobj, sizeof(clash_box));
    run->reg_ofs = calloc((size_t)sc->nobj + 1, sizeof(int64_t));
    run->keep = calloc(nf, 1);
    run->kept = malloc(nf * sizeof(uint32_t));
    run->wbuf = calloc(clash_team(run), sizeof(clash_keybuf));
    if (!run->face_obj || !run->obox || !run->reg_ofs || !run->keep || !run->kept || !run->wbuf) goto oom;
    for (int o = 0; o < sc->nobj; ++o)
        for (int64_t f = sc->fofs[o]; f < sc->fofs[o + 1]; ++f) run->face_obj[f] = o;
    return run;
oom:
    clash_run_destroy(run);
    clash_fail(err, CLASH_EFAIL, "out of memory creating the run");
    return NULL;
}

/* ---- S1 ------------------------------------------------------------------------------ */

/* Parallel over faces with per-worker object boxes (finegrain.c). */
static int stage_boxes(clash_run *run)
{
    clash_scene *sc = run->sc;
    /* --midphase bvh: the refit of the kept trees computes the face boxes (mid_bvh.c) */
    const int own = run->cfg.midphase == CLASH_MID_BVH ? clash_bvh_stage_boxes(run) : 1;
    if (own < 0 || (own && clash_fg_boxes(run))) return -1;
    /* Culling inflation: 8 float ulps of the largest coordinate magnitude. */
    float m = 0;
    for (int o = 0; o < sc->nobj; ++o)
        for (int d = 0; d < 3; ++d) m = fmaxf(m, fmaxf(fabsf(run->obox[o].lo[d]), fabsf(run->obox[o].hi[d])));
    run->delta = m * 8.0f * 1.1920929e-7f + 1e-30f;
    return 0;
}

/* ---- S2 ------------------------------------------------------------------------------ */

static int push_objpair(clash_run *run, int a, int b)
{
    const clash_box *A = &run->obox[a], *B = &run->obox[b];
    const float d = run->delta;
    clash_box r;
    for (int k = 0; k < 3; ++k) {
        r.lo[k] = fmaxf(A->lo[k], B->lo[k]) - d;
        r.hi[k] = fminf(A->hi[k], B->hi[k]) + d;
        if (r.lo[k] > r.hi[k]) return 0;
    }
    if (run->nop == run->cap_op) {
        size_t cap = run->cap_op ? 2 * run->cap_op : 64;
        clash_objpair *p = realloc(run->op, cap * sizeof *p);
        if (!p) return -1;
        run->op = p, run->cap_op = cap;
    }
    run->op[run->nop++] = (clash_objpair){a, b, r};
    return 0;
}

/* S2 for many objects (broad.h): sort-and-sweep in columns, or the object
 * BVH, over the object boxes as SoA grown by 2*delta; the pair keys come back
 * in the per-worker buffers, are sorted, and push_objpair keeps the pairs
 * whose grown boxes meet, so run->op is sorted by (a, b). */
static int stage_broad(clash_run *run)
{
    const clash_scene *sc = run->sc;
    const int n = sc->nobj;
    run->nop = 0;
    const int bvh = run->cfg.broadphase == CLASH_BROAD_BVH;
    const int sap = run->cfg.broadphase == CLASH_BROAD_SAP || (run->cfg.broadphase == CLASH_BROAD_AUTO && n > 64);
    if (!sap && !bvh) {
        for (int a = 0; a < n; ++a)
            for (int b = a + 1; b < n; ++b)
                if (push_objpair(run, a, b)) return -1;
        return 0;
    }
    float *soa = malloc(sizeof(float) * 6 * (size_t)n);
    if (!soa) return -1;
    for (int o = 0; o < n; ++o)
        for (int d = 0; d < 3; ++d) soa[(size_t)d * n + o] = run->obox[o].lo[d], soa[(size_t)(3 + d) * n + o] = run->obox[o].hi[d];
    const clash_boxes_soa bx = {soa, soa + n, soa + 2 * n, soa + 3 * n, soa + 4 * n, soa + 5 * n};
    for (int w = 0; w < run->threads; ++w) run->wbuf[w].n = 0;
    int rc = (bvh ? clash_broad_bvh : clash_broad_sap)(&run->exec, n, bx, 2 * run->delta, run->wbuf);
    free(soa);
    if (rc) return -1;
    for (int w = 1; w < run->threads; ++w)
        for (size_t i = 0; i < run->wbuf[w].n; ++i)
            if (clash_keybuf_push(&run->wbuf[0], run->wbuf[w].v[i])) return -1;
    if (clash_sort_u64(run->wbuf[0].v, run->wbuf[0].n, NULL)) return -1;
    for (size_t i = 0; i < run->wbuf[0].n; ++i) {
        const uint64_t key = run->wbuf[0].v[i];
        if (push_objpair(run, (int)(key >> 32), (int)(uint32_t)key)) return -1;
    }
    return 0;
}

/* ---- S3 ------------------------------------------------------------------------------ */

/* The face loop and the ascending kept list: per-worker lists merged in parallel (finegrain.c). */
static int stage_cull(clash_run *run)
{
    const clash_scene *sc = run->sc;
    const int n = sc->nobj, self = run->cfg.self_collision;
    /* CSR of regions per object */
    memset(run->reg_ofs, 0, sizeof(int64_t) * ((size_t)n + 1));
    for (size_t i = 0; i < run->nop; ++i) run->reg_ofs[run->op[i].a + 1]++, run->reg_ofs[run->op[i].b + 1]++;
    if (self)
        for (int o = 0; o < n; ++o) run->reg_ofs[o + 1]++;
    for (int o = 0; o < n; ++o) run->reg_ofs[o + 1] += run->reg_ofs[o];
    free(run->regs);
    run->regs = malloc(sizeof(clash_box) * (size_t)(run->reg_ofs[n] ? run->reg_ofs[n] : 1));
    int64_t *fill = malloc(sizeof(int64_t) * (size_t)n);
    if (!run->regs || !fill) {
        free(fill);
        return -1;
    }
    memcpy(fill, run->reg_ofs, sizeof(int64_t) * (size_t)n);
    if (self)
        for (int o = 0; o < n; ++o) {
            clash_box b = run->obox[o];
            for (int d = 0; d < 3; ++d) b.lo[d] -= run->delta, b.hi[d] += run->delta;
            run->regs[fill[o]++] = b;
        }
    for (size_t i = 0; i < run->nop; ++i) {
        run->regs[fill[run->op[i].a]++] = run->op[i].region;
        run->regs[fill[run->op[i].b]++] = run->op[i].region;
    }
    free(fill);
    return clash_fg_cull(run);
}

/* ---- S4, the oracle: every eligible pair with overlapping face boxes ------------------ */

typedef struct { float lo; uint32_t f; } face_item;
static int cmp_face_item(const void *x, const void *y)
{
    const face_item *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo ? 1 : (a->f > b->f) - (a->f < b->f);
}

static int brute_candidates(clash_run *run)
{
    const size_t nf = (size_t)run->sc->nf;
    face_item *it = malloc(nf * sizeof *it);
    if (!it) return -1;
    for (size_t f = 0; f < nf; ++f) it[f] = (face_item){run->lox[f], (uint32_t)f};
    qsort(it, nf, sizeof *it, cmp_face_item);
    clash_keybuf kb = {0};
    kb.v = run->cand, kb.cap = run->cap_cand;
    for (size_t i = 0; i < nf; ++i) {
        const uint32_t a = it[i].f;
        const float hx = run->hix[a] + 2 * run->delta;
        for (size_t j = i + 1; j < nf && it[j].lo <= hx; ++j) {
            const uint32_t b = it[j].f, lo = a < b ? a : b, hi = a < b ? b : a;
            if (clash_pair_eligible(run, lo, hi) && clash_faceboxes_overlap(run, lo, hi))
                if (clash_keybuf_push(&kb, (uint64_t)lo << 32 | hi)) {
                    run->cand = kb.v, run->cap_cand = kb.cap;
                    free(it);
                    return -1;
                }
        }
    }
    free(it);
    run->cand = kb.v, run->cap_cand = kb.cap;
    size_t n = clash_sort_unique_u64(kb.v, kb.n);
    if (n == (size_t)-1) return -1;
    run->ncand = n;
    return 0;
}

/* ---- S5 ------------------------------------------------------------------------------ */

int clash_narrow_test(const clash_run *run, uint32_t a, uint32_t b) { return narrow_test(run, a, b); }

/* Candidates [off + begin, off + end): under MPI a rank tests only its share
 * of a candidate list that every rank holds (midphases other than the octree). */
typedef struct narrow_ctx {
    clash_run *run;
    int64_t off;
} narrow_ctx;

static void narrow_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    clash_run *run = ((narrow_ctx *)p)->run;
    const int64_t off = ((narrow_ctx *)p)->off;
    const clash_scene *sc = run->sc;
    /* The candidates' faces are scattered over the store: prefetch the
     * vertex indices 16 candidates ahead and the positions 8 ahead. */
    enum { PF_IDX = 16, PF_POS = 8 };
    const int64_t last = end + off;
    for (int64_t i = begin + off; i < last; i += step) {
        if (i + PF_IDX * step < last) {
            const uint32_t b = (uint32_t)run->cand[i + PF_IDX * step];
            __builtin_prefetch(sc->f0 + b), __builtin_prefetch(sc->f1 + b), __builtin_prefetch(sc->f2 + b);
        }
        if (i + PF_POS * step < last) {
            const uint64_t k = run->cand[i + PF_POS * step];
            const uint32_t f[2] = {(uint32_t)(k >> 32), (uint32_t)k};
            for (int t = 0; t < 2; ++t) {
                const int32_t v[3] = {sc->f0[f[t]], sc->f1[f[t]], sc->f2[f[t]]};
                for (int j = 0; j < 3; ++j)
                    __builtin_prefetch(sc->x + v[j]), __builtin_prefetch(sc->y + v[j]), __builtin_prefetch(sc->z + v[j]);
            }
        }
        const uint64_t k = run->cand[i];
        run->hit[i] = (uint8_t)narrow_test(run, (uint32_t)(k >> 32), (uint32_t)k);
    }
}

/* ---- one step ------------------------------------------------------------------------- */

/* Region bookkeeping of one step (profile.h): the stage's wall time, its
 * counters when a source is live, and its fastest and slowest worker. */
static double region_open(clash_run *run, int stage)
{
    clash_wt_reset(run->wsec, run->threads);
    return clash_region_begin(stage);
}

static void region_close(clash_run *run, clash_step_stats *st, int stage, double t0)
{
    st->seconds[stage] = clash_region_end(stage, t0);
    clash_wt_minmax(run->wsec, run->threads, st->seconds[stage], &st->worker_min_s[stage],
                    &st->worker_max_s[stage]);
}

int clash_step(clash_run *run, int s, clash_pairs *out, clash_step_stats *st, clash_error *err)
{
    clash_scene *sc = run->sc;
    clash_step_stats local;
    int64_t pc_tested = -1; /* producer-consumer: pair tests made inside S4 */
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    out->pairs = NULL, out->count = 0;
    if (!run->wsec) { /* per-worker timer slots, filled by clash_spmd */
        if (!(run->wsec = clash_wt_create(run->threads))) return clash_fail(err, CLASH_EFAIL, "out of memory");
        run->exec.worker_seconds = run->wsec;
    }
    double t0 = region_open(run, CLASH_S0_MOTION);
    int rc;
    /* S0 */
    if ((rc = clash_scene_set_state_par(sc, s, &run->exec, err))) return rc;
    st->vertices = sc->nv;
    region_close(run, st, CLASH_S0_MOTION, t0), t0 = region_open(run, CLASH_S1_BOXES);
    /* S1 */
    if (stage_boxes(run)) return clash_fail(err, CLASH_EFAIL, "out of memory in the boxes stage");
    st->faces_boxed = sc->nf;
    region_close(run, st, CLASH_S1_BOXES, t0);
    if (run->cfg.midphase == CLASH_MID_BRUTE) {
        t0 = region_open(run, CLASH_S4_MID);
        if (brute_candidates(run)) return clash_fail(err, CLASH_EFAIL, "out of memory in the oracle");
        st->faces_kept = sc->nf;
    } else {
        /* S2 */
        t0 = region_open(run, CLASH_S2_BROAD);
        if (stage_broad(run)) return clash_fail(err, CLASH_EFAIL, "out of memory in the broad phase");
        st->object_pairs = (int64_t)run->nop;
        region_close(run, st, CLASH_S2_BROAD, t0), t0 = region_open(run, CLASH_S3_CULL);
        /* S3 (the bvh and bboxpipe midphases cull inside S4 with their own boxes) */
        const int own_cull = run->cfg.midphase == CLASH_MID_BVH || run->cfg.midphase == CLASH_MID_BBOXPIPE;
        if (!own_cull && stage_cull(run)) return clash_fail(err, CLASH_EFAIL, "out of memory in the cull stage");
        st->faces_kept = own_cull ? sc->nf : (int64_t)run->nkept;
        region_close(run, st, CLASH_S3_CULL, t0), t0 = region_open(run, CLASH_S4_MID);
        /* S4 */
        run->level_used = 0;
        run->cand_local = 0;
        if (run->cfg.midphase == CLASH_MID_BVH) rc = clash_bvh_candidates(run, err);
        else if (run->cfg.midphase == CLASH_MID_BBOXPIPE) rc = clash_bboxpipe_candidates(run, err);
        else if (run->cfg.schedule == CLASH_SCHED_PRODUCER_CONSUMER) rc = clash_octree_prodcons(run, &pc_tested, err);
        else rc = clash_octree_candidates(run, err);
        if (rc) return rc;
        st->octree_level = run->level_used;
    }
    st->candidates = (int64_t)run->ncand;
    region_close(run, st, CLASH_S4_MID, t0), t0 = region_open(run, CLASH_S5_NARROW);
    /* S5: the candidates of this rank (its units' under the octree, else its
     * contiguous share); producer-consumer tested them inside S4 already. */
    const int R = clash_ranks_size(), rk = clash_ranks_rank();
    int64_t cb = 0, ce = (int64_t)run->ncand;
    if (R > 1 && !run->cand_local && pc_tested < 0)
        cb = (int64_t)run->ncand * rk / R, ce = (int64_t)run->ncand * (rk + 1) / R;
    if (pc_tested >= 0) {
        st->candidates = st->tests = pc_tested;
    } else {
        if (run->ncand > run->cap_hit) {
            uint8_t *h = realloc(run->hit, run->ncand);
            if (!h) return clash_fail(err, CLASH_EFAIL, "out of memory in the narrow phase");
            run->hit = h, run->cap_hit = run->ncand;
        }
        narrow_ctx nc = {run, cb};
        clash_par_tasks(&run->exec, ce - cb, 256, narrow_range, &nc);
        st->tests = ce - cb;
        if (R > 1 && !run->cand_local) st->candidates = ce - cb; /* summed over ranks in the report */
    }
    region_close(run, st, CLASH_S5_NARROW, t0), t0 = region_open(run, CLASH_S6_GATHER);
    /* S6: the hit keys, compacted in place (candidates are sorted and unique,
     * so they come out canonical); under MPI gathered to rank 0 and merged. */
    size_t nh = 0;
    if (pc_tested >= 0) nh = run->ncand; /* run->cand holds the hits */
    else
        for (int64_t i = cb; i < ce; ++i)
            if (run->hit[i]) run->cand[nh++] = run->cand[i];
    uint64_t *keys = run->cand, *gathered = NULL;
    if (R > 1) {
        int64_t ng = 0;
        if (clash_ranks_gather_u64(run->cand, (int64_t)nh, &gathered, &ng))
            return clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
        nh = 0;
        if (gathered) {
            nh = clash_sort_unique_u64(gathered, (size_t)ng);
            if (nh == (size_t)-1) {
                free(gathered);
                return clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
            }
        }
        keys = gathered;
    }
    if (nh > run->cap_pairs) {
        clash_pair *p = realloc(run->pairs, nh * sizeof *p);
        if (!p) {
            free(gathered);
            return clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
        }
        run->pairs = p, run->cap_pairs = nh;
    }
    if (sc->face_orig && nh) {
        /* a reordered store (reorder.c): the pairs in input numbering, in
         * canonical order again */
        for (size_t i = 0; i < nh; ++i) {
            const uint64_t a = sc->face_orig[keys[i] >> 32], b = sc->face_orig[(uint32_t)keys[i]];
            keys[i] = a < b ? a << 32 | b : b << 32 | a;
        }
        if (clash_sort_u64(keys, nh, NULL)) {
            free(gathered);
            return clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
        }
    }
    size_t m = 0;
    for (size_t i = 0; i < nh; ++i) {
        const uint32_t a = (uint32_t)(keys[i] >> 32), b = (uint32_t)keys[i];
        const int32_t oa = run->face_obj[a], ob = run->face_obj[b];
        run->pairs[m++] = (clash_pair){(uint32_t)oa, (uint32_t)(a - sc->fofs[oa]), (uint32_t)ob,
                                       (uint32_t)(b - sc->fofs[ob])};
    }
    free(gathered);
    run->npairs = m;
    st->hits = (int64_t)m;
    out->pairs = run->pairs;
    out->count = m;
    region_close(run, st, CLASH_S6_GATHER, t0);
    return CLASH_OK;
}
