/*
 * narrow.c — stage S5: the exact face-pair test on every candidate
 * ([Smith94] §3.3.6, swept: §4.2), distributed as coarse-grain tasks over the
 * workers (sched/, the run's schedule).  Under MPI a rank tests only its
 * share: its own units' candidates under the octree (clash_candidates.local), else a
 * contiguous share of the list every rank holds.  Producer-consumer tested
 * its candidates inside S4 already.
 *
 * Without rows (below), the candidates go eight at a time through a float
 * filter (kernels/hull_filter8.c): gathered in double (the store's truth), the
 * filter's lanes those doubles translated by the lane's first point in
 * double and rounded to float32; the pairs it shows apart along a centroid
 * difference or a face normal are misses without the double-precision
 * test; the rest go to that test (as clash_pair_test in stages/facetest.h)
 * on the doubles already gathered.  The
 * filter only says "apart" where the hulls of the two point sets are apart
 * by a positive gap, so the hits are the same:
 *   swept   the six positions of each face (s and s-1), then ck_hulls_meet;
 *           a pair with a tolerance (the arc margins of faces that turn)
 *           goes to the hull test whatever the filter says;
 *   static  each face's three vertices (ck_tris_apart_f32x8), then
 *           the exact triangle test, on the pairs the filter leaves, eight
 *           at a time (ck_tritri_f32x8: ck_tritri's answers); two triangles
 *           apart by a gap never share a point.
 *
 * Rows (swept, the face octree; under MPI on each rank's own units).  The candidates' faces are
 * then kept faces, each in some 5 to 10 candidates, so each kept face's six
 * positions are gathered once, into a row of 18 floats followed by its arc
 * margin (CK_ROW = 24 floats: offsets from the face's origin, the origin,
 * the margin; stages/face_rows.c, in parallel, made
 * by S4 before its descent, which also tests the faces' DOPs); a candidate
 * reads its two faces' places in run->cull->kept (its key itself where S4 keyed
 * the candidates by places, clash_candidates.by_place) and their rows, eight
 * candidates' rows turned into lanes at once (ck_rows8); the tolerance is
 * the same double sum as clash_pair_tol's, so every answer is the same.
 * The candidates go eight at a time through the boolean GJK in float lanes
 * (kernels/hull_gjk8.c), whose answers are certified in float or, for the
 * tetrahedra that float cannot certify, in double (ck_hulls_gjk_check_rows);
 * a walk still going after four steps is carried on in a batch of such
 * walks (gjk_rows), and the lanes left undecided, nearly all pairs apart by
 * less than their tolerance, walk on from where they stopped on the hulls
 * grown by the tolerance; the few left then go to the one-pair hull test
 * (ck_hulls_meet_rows: the boolean GJK in double, then the distance GJK).
 *
 * Before the lanes the rows went through the float filter first, and the
 * pairs it left through a certificate of a vertex's path crossing the other
 * face (a third settled), then the one-pair test.  With the lanes the
 * stage takes fewer instructions and much less time on the cluttered
 * spheres, and fewer still without the old filter (the lanes show most of
 * its pairs apart in a step or two, and the rows are turned once, not
 * twice): the one-pair GJK's branches, which the CPU guessed wrong half of
 * the time, are gone (bench/RESULTS.md).
 */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/mem.h"
#include "stages/facetest.h"
#include "sched/ranks.h"
#include "stages/stages.h"


/* Candidates [off + begin, off + end): under MPI a rank tests only its share
 * of a candidate list that every rank holds (midphases other than the octree). */
typedef struct narrow_ctx {
    clash_run *run;
    const clash_candidates *cand; /* S4's */
    int64_t off;
    int rows; /* swept, the face octree: this step's rows are made (narrow_rows) */
} narrow_ctx;

/* Static mode: the exact test of the pairs the filter left (b, eight at a
 * time; tat: their candidates). */
static void tris_left(clash_run *run, ck_tri8_batch *b, const int64_t tat[8])
{
    uint8_t meet[8];
    const int n = ck_tri8_flush(b, meet);
    for (int l = 0; l < n; ++l) run->narrow->hit[tat[l]] = meet[l];
}

/* Swept: the exact hull test of lane l (its points gathered from the
 * store's doubles, as clash_pair_test's). */
static uint8_t hull_test_lane(const double (*dp)[6][3], const double (*dq)[6][3], int l, double tol)
{
    return (uint8_t)ck_hulls_meet(dp[l], 6, dq[l], 6, tol);
}

/* Candidates first..last (by step) eight at a time, the filter first.  Each
 * lane's points are gathered in double (the truth the exact tests take);
 * the filter's float lanes are those doubles translated in double by the
 * lane's first point (p's vertex 0 at s) and then rounded, so each float is
 * within u |its value| of the exact translated coordinate, the error
 * hull_filter8.c's certificates allow for (u = 2^-24; kernels/hull_filter8.c). */
static void narrow_filtered(clash_run *run, const clash_candidates *cand, int64_t first, int64_t last, int64_t step)
{
    const clash_scene *sc = run->sc;
    const int swept = run->cfg.mode == CLASH_MODE_SWEPT;
    const int npt = swept ? 6 : 3;
    enum { PF_IDX = 16, PF_POS = 8 }; /* as narrow_range */
    float p[6][3][8] = {{{0}}}, q[6][3][8] = {{{0}}}; /* lanes past a short block keep old (finite) values */
    double dp[8][6][3], dq[8][6][3];                  /* the lanes' points, in double */
    double tp[3][3][8] = {{{0}}}, tq[3][3][8] = {{{0}}}; /* static: the same as lanes, for ck_tri8_add */
    uint8_t apart[8];
    int64_t at[8], tat[8];
    ck_tri8_batch tb = {.n = 0}; /* static: the pairs the filter left */
    double tol[8] = {0};
    float tolf[8] = {0};
    for (int64_t i = first; i < last;) {
        int n = 0;
        for (; n < 8 && i < last; ++n, i += step) {
            if (i + PF_IDX * step < last) {
                const uint32_t b = (uint32_t)cand->keys[i + PF_IDX * step];
                __builtin_prefetch(sc->f0 + b), __builtin_prefetch(sc->f1 + b), __builtin_prefetch(sc->f2 + b);
            }
            if (i + PF_POS * step < last) {
                const uint64_t k = cand->keys[i + PF_POS * step];
                const uint32_t f[2] = {(uint32_t)(k >> 32), (uint32_t)k};
                for (int t = 0; t < 2; ++t) {
                    const int32_t v[3] = {sc->f0[f[t]], sc->f1[f[t]], sc->f2[f[t]]};
                    for (int j = 0; j < 3; ++j) {
                        __builtin_prefetch(sc->dx + v[j]);
                        if (swept) __builtin_prefetch(sc->dpx + v[j]);
                    }
                }
            }
            at[n] = i;
            const uint64_t k = cand->keys[i];
            const uint32_t f[2] = {(uint32_t)(k >> 32), (uint32_t)k};
            if (swept) tol[n] = clash_pair_tol(run, f[0], f[1]), tolf[n] = ck_f32_up(tol[n]);
            for (int t = 0; t < 2; ++t) {
                double(*d)[3] = t ? dq[n] : dp[n];
                const int32_t v[3] = {sc->f0[f[t]], sc->f1[f[t]], sc->f2[f[t]]};
                for (int j = 0; j < 3; ++j) {
                    d[j][0] = sc->dx[v[j]], d[j][1] = sc->dy[v[j]], d[j][2] = sc->dz[v[j]];
                    if (swept) d[3 + j][0] = sc->dpx[v[j]], d[3 + j][1] = sc->dpy[v[j]], d[3 + j][2] = sc->dpz[v[j]];
                }
            }
            const double o[3] = {dp[n][0][0], dp[n][0][1], dp[n][0][2]};
            for (int j = 0; j < npt; ++j)
                for (int c = 0; c < 3; ++c)
                    p[j][c][n] = (float)(dp[n][j][c] - o[c]), q[j][c][n] = (float)(dq[n][j][c] - o[c]);
        }
        if (swept) ck_hulls_apart_f32x8((const float(*)[3][8])p, (const float(*)[3][8])q, tolf, apart);
        else ck_tris_apart_f32x8((const float(*)[3][8])p, (const float(*)[3][8])q, apart); /* points 0..2 */
        for (int l = 0; l < n; ++l) {
            /* the filter proves a gap > tol (faces that turn: their arc margins) */
            if (apart[l]) {
                run->narrow->hit[at[l]] = 0;
                continue;
            }
            if (!swept) { /* static: the pairs left wait for the exact test (in double), eight at a time */
                for (int j = 0; j < 3; ++j)
                    for (int c = 0; c < 3; ++c) tp[j][c][0] = dp[l][j][c], tq[j][c][0] = dq[l][j][c];
                tat[tb.n] = at[l];
                if (ck_tri8_add(&tb, (const double(*)[3][8])tp, (const double(*)[3][8])tq, 0) == 8)
                    tris_left(run, &tb, tat);
                continue;
            }
            /* the exact test on the points gathered (clash_pair_test's, without gathering them again) */
            run->narrow->hit[at[l]] = hull_test_lane((const double(*)[6][3])dp, (const double(*)[6][3])dq, l, tol[l]);
        }
    }
    tris_left(run, &tb, tat);
}

/* A batch of up to eight candidates: their rows, places in the list,
 * tolerances and (a walk carried on) each lane's walk so far. */
typedef struct {
    int32_t a[8], b[8];
    int64_t at[8];
    double tol[8];
    int n;
    ck_g8carry c;
} pair8;

/* S5's batches on one worker: the candidates afresh (x), the walks longer
 * than G8_FIRST steps carried on (xm), the walks of the grown hulls (xb). */
typedef struct {
    pair8 x, xm, xb;
} lanes;
enum { RUN_FRESH, RUN_MORE, RUN_BALL };

/* Lane l's walk of c into lane k of t. */
static void walk_copy(ck_g8carry *t, int k, const ck_g8carry *c, int l)
{
    for (int j = 0; j < 4; ++j) {
        for (int e = 0; e < 3; ++e) t->s[j][e][k] = c->s[j][e][l];
        t->ix[j][k] = c->ix[j][l];
    }
    for (int e = 0; e < 3; ++e) t->d[e][k] = c->d[e][l];
    t->n[k] = c->n[l];
}

/* Lane l of x (its walk: lane l of c) into batch to. */
static void carry_lane(pair8 *to, const pair8 *x, const ck_g8carry *c, int l)
{
    const int k = to->n++;
    to->a[k] = x->a[l], to->b[k] = x->b[l], to->at[k] = x->at[l], to->tol[k] = x->tol[l];
    walk_copy(&to->c, k, c, l);
}

/* The hull test of lanes left[0..nl) of x on the two rows themselves (a row
 * holds the six positions in the lanes' order, contiguous: converted and
 * translated a vector at a time, ck_hulls_meet_rows), two pairs at once. */
static void rows_one_by_one(clash_run *run, const pair8 *x, const int *left, int nl)
{
    for (int i = 0; i + 1 < nl; i += 2) {
        const int l0 = left[i], l1 = left[i + 1];
        double da[2][18], db[2][18];
        clash_row_truth(run, x->a[l0], da[0]), clash_row_truth(run, x->a[l1], da[1]);
        clash_row_truth(run, x->b[l0], db[0]), clash_row_truth(run, x->b[l1], db[1]);
        const double *ra[2] = {da[0], da[1]}, *rb[2] = {db[0], db[1]};
        const double t2[2] = {x->tol[l0], x->tol[l1]};
        int m2[2];
        ck_hulls_meet_rows2(ra, rb, t2, m2);
        run->narrow->hit[x->at[l0]] = (uint8_t)m2[0], run->narrow->hit[x->at[l1]] = (uint8_t)m2[1];
    }
    if (nl & 1) {
        const int l = left[nl - 1];
        double da[18], db[18];
        clash_row_truth(run, x->a[l], da), clash_row_truth(run, x->b[l], db);
        run->narrow->hit[x->at[l]] = (uint8_t)ck_hulls_meet_rows(da, db, x->tol[l]);
    }
}

/* A batch through the boolean GJK in float lanes (kernels/hull_gjk8.c), eight
 * candidates at a time.  Afresh (RUN_FRESH), every walk stops after
 * G8_FIRST steps: three quarters of the walks are done by then (most pairs
 * that meet, in three), and the rest, carried into batches of their own
 * (RUN_MORE, the steps left), no longer keep seven lanes idle each.  A
 * walk of the plain hulls that ends undecided (most are apart by less than
 * their tolerance) goes on walking the hulls grown by the tolerance from
 * where it stopped (RUN_BALL), and the lanes that leaves, to the one-pair
 * test.  Carried or not, a walk steers as it would have; every answer is
 * certified (ck_hulls_meet's). */
enum { G8_FIRST = 4 };

static void gjk_rows(clash_run *run, lanes *L, int kind)
{
    pair8 *x = kind == RUN_FRESH ? &L->x : kind == RUN_MORE ? &L->xm : &L->xb;
    const int n = x->n;
    if (!n) return;
    float P[24][8], Q[24][8], tolf[8];
    for (int l = n; l < 8; ++l) {
        x->a[l] = x->a[0], x->b[l] = x->b[0];
        if (kind != RUN_FRESH) walk_copy(&x->c, l, &x->c, 0); /* (finite lanes) */
    }
    for (int l = 0; l < 8; ++l) tolf[l] = ck_f32_up(x->tol[l < n ? l : 0]);
    /* both faces translated by the first face's origin (ck_rows8o) */
    ck_rows8o(run->rows->frow, x->a, x->a, P);
    ck_rows8o_by(run->rows->frow, x->b, (const float(*)[8])(P + 18), Q);
    ck_gjk8 g;
    ck_g8carry keep;
    const int ball = kind == RUN_BALL;
    const int maxit = kind == RUN_FRESH ? G8_FIRST : kind == RUN_MORE ? G8_MAXIT - G8_FIRST : G8_MAXIT;
    ck_hulls_gjk_f32x8_carry((const float(*)[3][8])P, (const float(*)[3][8])Q, tolf, ball,
                             kind == RUN_FRESH ? NULL : &x->c, maxit, kind == RUN_FRESH, &g, ball ? NULL : &keep);
    /* the lanes certified in float, without a branch a lane (the statuses
     * come in no order the CPU could guess); then the others, in turn */
    unsigned rest = 0;
    for (int l = 0; l < n; ++l) {
        const int st = g.st[l];
        run->narrow->hit[x->at[l]] = (uint8_t)(st == G8_MEET);
        rest |= (unsigned)(st != G8_MEET && st != G8_APART) << l;
    }
    int left[8], nl = 0;
    for (; rest; rest &= rest - 1) {
        const int l = __builtin_ctz(rest), st = g.st[l];
        int c = -1;
        if (st == G8_TETRA) { /* certified in double on the store's doubles */
            double da[18], db[18];
            clash_row_truth(run, x->a[l], da), clash_row_truth(run, x->b[l], db);
            c = ck_hulls_gjk_check_rows(da, db, x->tol[l], &g, l);
        }
        if (c >= 0) {
            run->narrow->hit[x->at[l]] = (uint8_t)c;
        } else if (st == G8_MORE) {
            carry_lane(&L->xm, x, &keep, l);
            if (L->xm.n == 8) gjk_rows(run, L, RUN_MORE);
        } else if (st == G8_ASK && !ball && x->tol[l] > 0) {
            carry_lane(&L->xb, x, &keep, l);
            if (L->xb.n == 8) gjk_rows(run, L, RUN_BALL);
        } else {
            left[nl++] = l;
        }
    }
    rows_one_by_one(run, x, left, nl);
    x->n = 0;
}

/* The swept candidates first..last (by step) from the rows: eight at a time
 * through the lanes (gjk_rows). */
static void narrow_rows(clash_run *run, const clash_candidates *cand, int64_t first, int64_t last, int64_t step)
{
    enum { PF = 16 };
    const double d = run->cfg.min_separation;
    lanes L;
    L.x.n = L.xm.n = L.xb.n = 0;
    pair8 *x = &L.x;
    for (int64_t i = first; i < last; i += step) {
        if (i + PF * step < last) {
            const float *r = clash_row(run, clash_cand_place(run, cand, (uint32_t)cand->keys[i + PF * step]));
            __builtin_prefetch(r), __builtin_prefetch(r + 16);
        }
        const uint64_t k = cand->keys[i];
        const int32_t a = clash_cand_place(run, cand, (uint32_t)(k >> 32)), b = clash_cand_place(run, cand, (uint32_t)k);
        x->a[x->n] = a, x->b[x->n] = b, x->at[x->n] = i;
        x->tol[x->n] = d + clash_row_margin(run, a) + clash_row_margin(run, b); /* clash_pair_tol's sum, in its order */
        if (++x->n == 8) gjk_rows(run, &L, RUN_FRESH);
    }
    gjk_rows(run, &L, RUN_FRESH);
    gjk_rows(run, &L, RUN_MORE);
    gjk_rows(run, &L, RUN_BALL);
}

static void narrow_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    clash_run *run = ((narrow_ctx *)p)->run;
    const clash_candidates *cand = ((narrow_ctx *)p)->cand;
    const int64_t off = ((narrow_ctx *)p)->off;
    const clash_scene *sc = run->sc;
    if (((narrow_ctx *)p)->rows) {
        narrow_rows(run, cand, begin + off, end + off, step);
        return;
    }
    if (run->cfg.mode == CLASH_MODE_SWEPT || !run->debug.narrow_plain) {
        narrow_filtered(run, cand, begin + off, end + off, step);
        return;
    }
    /* The candidates' faces are scattered over the store: prefetch the
     * vertex indices 16 candidates ahead and the positions 8 ahead. */
    enum { PF_IDX = 16, PF_POS = 8 };
    const int64_t last = end + off;
    for (int64_t i = begin + off; i < last; i += step) {
        if (i + PF_IDX * step < last) {
            const uint32_t b = (uint32_t)cand->keys[i + PF_IDX * step];
            __builtin_prefetch(sc->f0 + b), __builtin_prefetch(sc->f1 + b), __builtin_prefetch(sc->f2 + b);
        }
        if (i + PF_POS * step < last) {
            const uint64_t k = cand->keys[i + PF_POS * step];
            const uint32_t f[2] = {(uint32_t)(k >> 32), (uint32_t)k};
            for (int t = 0; t < 2; ++t) {
                const int32_t v[3] = {sc->f0[f[t]], sc->f1[f[t]], sc->f2[f[t]]};
                for (int j = 0; j < 3; ++j)
                    __builtin_prefetch(sc->x + v[j]), __builtin_prefetch(sc->y + v[j]), __builtin_prefetch(sc->z + v[j]);
            }
        }
        const uint64_t k = cand->keys[i];
        run->narrow->hit[i] = (uint8_t)clash_pair_test(run, (uint32_t)(k >> 32), (uint32_t)k);
    }
}


int clash_stage_narrow(clash_run *run, const clash_candidates *cand, clash_step_stats *st, clash_error *err)
{
    const int R = run->ranks.size, rk = run->ranks.rank;
    int64_t cb = 0, ce = (int64_t)cand->n;
    if (R > 1 && !cand->local && !cand->hits)
        cb = (int64_t)cand->n * rk / R, ce = (int64_t)cand->n * (rk + 1) / R;
    run->narrow->test_begin = cb, run->narrow->test_end = ce;
    if (cand->hits) {
        st->candidates = st->tests = cand->tests;
        return CLASH_OK;
    }
    if (clash_pages_renew((void **)&run->narrow->hit, &run->narrow->cap_hit, cand->n, 1, 0))
        return clash_fail(err, CLASH_EFAIL, "out of memory in the narrow phase");
    /* swept, the face octree (asked for, or the one a deforming scene falls
     * back to: it made this step's rows), on one rank or on this rank's own
     * units (cand->local): the candidates' faces are kept faces, gathered once
     * each (keys by places come only with the rows: octree.c sets
     * cand->by_place with them) */
    const int rows = run->cfg.mode == CLASH_MODE_SWEPT && (R == 1 || cand->local) && ce > cb &&
                     (run->rows->ready || (run->cfg.midphase == CLASH_MID_OCTREE && clash_rows_make(run, 0) == 0));
    narrow_ctx nc = {run, cand, cb, rows};
    clash_par_tasks(&run->exec, ce - cb, 256, narrow_range, &nc);
    st->tests = ce - cb;
    if (R > 1 && !cand->local) st->candidates = ce - cb; /* summed over ranks in the report */
    return CLASH_OK;
}

void clash_narrow_free(clash_narrow_state *n)
{
    if (!n) return;
    clash_pages_free(n->hit, n->cap_hit, 1, 0);
    free(n);
}
