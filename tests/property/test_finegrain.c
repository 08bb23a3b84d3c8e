/*
 * test_finegrain.c — the fine-grain stages S0, S1, S3 give bit-identical
 * results for every backend (omp, pthreads), partition (chunk, stride), team
 * size (1..4) and chunk size (0, 1, 7, 64); and a pthreads pool runs every
 * worker exactly once per call, on all its workers or fewer, and refuses a
 * nested call and a call on more workers than it has.
 *
 * The reference is computed independently of the parallel code: S0 by
 * clash_scene_vertex_at (the scene file's pose formula, double) rounded to float
 * is not bit-exact with the kernel, so S0 is compared against
 * ck_transform_ref run serially per object; S1 against ck_face_boxes_ref per
 * object (grown by the arc margins of turning objects, stages/facetest.h,
 * in swept mode).  S3's kept list and the final pairs are compared against the
 * serial run (1 thread, omp, chunk), and the kept list must be strictly
 * ascending.  Strided kernels are compared with their references.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/kernels.h"
#include "stages/facetest.h"
#include "core/run.h"
#include "stages/stages.h"
#include "store/scene.h"
#include "sched/sched.h"

/* ---- the pool ---------------------------------------------------------------------- */

typedef struct pool_probe {
    _Atomic int calls[8];
    _Atomic int bad_team;
    int team;
} pool_probe;

static void probe_fn(int w, int T, void *p)
{
    pool_probe *q = p;
    if (T != q->team || w < 0 || w >= T) atomic_fetch_add(&q->bad_team, 1);
    else atomic_fetch_add(&q->calls[w], 1);
}

/* A nested call from inside a worker finds the pool busy: -1, no deadlock. */
typedef struct nest_ctx {
    clash_pool *pool;
    _Atomic int refused, ran;
} nest_ctx;

static void nest_inner(int w, int T, void *p)
{
    (void)w, (void)T;
    atomic_fetch_add(&((nest_ctx *)p)->ran, 1);
}

static void nest_outer(int w, int T, void *p)
{
    (void)T;
    nest_ctx *c = p;
    if (w == 1 && clash_pool_run(c->pool, 2, nest_inner, c) != 0) atomic_fetch_add(&c->refused, 1);
}

static void test_pool(void)
{
    CHECK(clash_sched_backend_available(CLASH_BACKEND_PTHREADS), "pthreads backend available");
    const int teams[] = {2, 3, 3, 4, 1, 2, 4};
    for (size_t k = 0; k < sizeof teams / sizeof *teams; ++k) {
        pool_probe q = {.team = teams[k]};
        clash_pool *pool = clash_pool_create(q.team);
        CHECK(pool && clash_pool_threads(pool) == q.team, "team %d: pool of %d", q.team, clash_pool_threads(pool));
        const int reps = 500;
        int rc = 0;
        for (int r = 0; r < reps; ++r) rc |= clash_pool_run(pool, q.team, probe_fn, &q);
        CHECK(rc == 0, "team %d: spmd failed", q.team);
        CHECK(atomic_load(&q.bad_team) == 0, "team %d: wrong worker numbers", q.team);
        for (int w = 0; w < q.team; ++w)
            CHECK(atomic_load(&q.calls[w]) == reps, "team %d worker %d ran %d times, want %d", q.team, w,
                  atomic_load(&q.calls[w]), reps);
        for (int w = q.team; w < 8; ++w) CHECK(atomic_load(&q.calls[w]) == 0, "team %d: worker %d ran", q.team, w);
        /* fewer workers than the pool has: only the first ones run */
        if (q.team > 2) {
            pool_probe q2 = {.team = 2};
            CHECK(clash_pool_run(pool, 2, probe_fn, &q2) == 0 && atomic_load(&q2.calls[0]) == 1 &&
                      atomic_load(&q2.calls[1]) == 1 && atomic_load(&q2.calls[2]) == 0 && !atomic_load(&q2.bad_team),
                  "team %d: a call on 2 workers", q.team);
        }
        CHECK(clash_pool_run(pool, q.team + 1, probe_fn, &q) == -1, "team %d: a call on more workers is refused",
              q.team);
        clash_pool_destroy(pool);
    }
    clash_pool *pool = clash_pool_create(3);
    nest_ctx n = {.pool = pool};
    CHECK(pool && clash_pool_run(pool, 3, nest_outer, &n) == 0, "outer call");
    CHECK(atomic_load(&n.refused) == 1 && atomic_load(&n.ran) == 0, "a nested call is refused (%d refused, %d ran)",
          atomic_load(&n.refused), atomic_load(&n.ran));
    pool_probe q = {.team = 3};
    CHECK(clash_pool_run(pool, 3, probe_fn, &q) == 0 && atomic_load(&q.calls[0]) == 1 && atomic_load(&q.calls[1]) == 1 &&
              atomic_load(&q.calls[2]) == 1,
          "every worker once after the refused nested call");
    clash_pool_destroy(pool);
}

/* ---- items once, through clash_par_for and clash_par_for_blocks ---------------------- */

typedef struct cover_ctx {
    _Atomic int *seen;
    _Atomic int bad;
} cover_ctx;

static void cover_fn(int64_t b, int64_t e, int64_t step, int w, void *p)
{
    cover_ctx *c = p;
    if (w < 0 || step < 1) atomic_fetch_add(&c->bad, 1);
    for (int64_t i = b; i < e; i += step) atomic_fetch_add(&c->seen[i], 1);
}

static void test_cover(void)
{
    enum { N = 1001 };
    _Atomic int seen[N];
    for (int backend = 0; backend < 2; ++backend)
        for (int part = 0; part < 2; ++part)
            for (int T = 1; T <= 4; ++T)
                for (int64_t chunk = 0; chunk <= 7; chunk += 7) {
                    for (int i = 0; i < N; ++i) atomic_init(&seen[i], 0);
                    cover_ctx c = {seen, 0};
                    clash_exec ex = {.backend = backend, .threads = T, .partition = part, .chunk = chunk};
                    clash_par_for(&ex, N, cover_fn, &c);
                    int ok = atomic_load(&c.bad) == 0;
                    for (int i = 0; i < N; ++i) ok &= atomic_load(&seen[i]) == 1;
                    CHECK(ok, "par_for backend %d partition %d T %d chunk %lld: items not covered once", backend,
                          part, T, (long long)chunk);
                    /* and in blocks as the workers ask (blocks of 64: the last one short) */
                    for (int i = 0; i < N; ++i) atomic_init(&seen[i], 0);
                    clash_par_for_blocks(&ex, N, 64, cover_fn, &c);
                    ok = atomic_load(&c.bad) == 0;
                    for (int i = 0; i < N; ++i) ok &= atomic_load(&seen[i]) == 1;
                    CHECK(ok, "par_for_blocks backend %d partition %d T %d chunk %lld: items not covered once",
                          backend, part, T, (long long)chunk);
                }
}

/* ---- strided kernels against references -------------------------------------------- */

static float frand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (float)((double)(*s >> 11) / 9007199254740992.0 * 20.0 - 10.0);
}

/* ck_face_boxes (vector path, 8 faces a step) and ck_face_boxes_nt (streaming
 * stores on whole 64-byte lines, ordinary ones at the ends) against the
 * reference: every range start and length mod 16 on 64-byte aligned arrays,
 * misaligned arrays, coordinates with zeros, subnormals and large values. */
static void test_face_box_stores(void)
{
    enum { NV = 257, NF = 1000, LD = 1024 }; /* LD: box array stride, a multiple of 16 floats */
    const float special[] = {0.0f, -0.0f, 1e-40f, -1e-40f, 3e38f, -3e38f, 1.0f, -1.0f, 1e-30f, 7.25f};
    uint64_t s = 11;
    float *pos = clash_aligned_calloc(6 * NV, sizeof(float));
    int32_t *idx = clash_aligned_calloc(3 * NF, sizeof(int32_t));
    float *b1 = clash_aligned_calloc(6 * LD, sizeof(float)), *b2 = clash_aligned_calloc(6 * NF, sizeof(float));
    if (!pos || !idx || !b1 || !b2) {
        CHECK(0, "out of memory");
        free(pos), free(idx), free(b1), free(b2);
        return;
    }
    for (int i = 0; i < 6 * NV; ++i) pos[i] = i % 5 == 0 ? special[(i / 5) % 10] : frand(&s);
    for (int f = 0; f < NF; ++f)
        idx[f] = (f * 7) % NV, idx[NF + f] = (f * 13 + 1) % NV, idx[2 * NF + f] = (f * 29 + 5) % NV;
    const float *x = pos, *y = pos + NV, *z = pos + 2 * NV, *px = pos + 3 * NV, *py = pos + 4 * NV, *pz = pos + 5 * NV;
    const int32_t *i0 = idx, *i1 = idx + NF, *i2 = idx + 2 * NF;
    for (int swept = 0; swept < 2; ++swept)
        for (int kind = 0; kind < 3; ++kind) /* ck_face_boxes, _nt aligned, _nt misaligned */
            for (int64_t f0 = 0; f0 < 16; f0 += kind ? 1 : 5)
                for (int64_t len = 0; len < 64 + 40; len += 3) {
                    const int64_t fa = f0 + (len % 7) * 16, fb = fa + len + (len > 60 ? 500 : 0);
                    const size_t ofs = kind == 2 ? 1 : 0; /* box arrays one float off the line */
                    float *o1[6], *o2[6];
                    for (int q = 0; q < 6; ++q) o1[q] = b1 + (size_t)q * LD + ofs, o2[q] = b2 + (size_t)q * NF;
                    memset(b1, 0, 6 * LD * sizeof(float)), memset(b2, 0, 6 * NF * sizeof(float));
                    float lo1[3] = {INFINITY, INFINITY, INFINITY}, hi1[3] = {-INFINITY, -INFINITY, -INFINITY};
                    float lo2[3] = {INFINITY, INFINITY, INFINITY}, hi2[3] = {-INFINITY, -INFINITY, -INFINITY};
                    if (kind == 0)
                        ck_face_boxes(fa, fb, i0, i1, i2, x, y, z, swept ? px : NULL, py, pz, o1[0], o1[1], o1[2],
                                      o1[3], o1[4], o1[5], lo1, hi1);
                    else
                        ck_face_boxes_nt(fa, fb, i0, i1, i2, x, y, z, swept ? px : NULL, py, pz, o1[0], o1[1], o1[2],
                                         o1[3], o1[4], o1[5], lo1, hi1);
                    ck_face_boxes_ref(fa, fb, i0, i1, i2, x, y, z, swept ? px : NULL, py, pz, o2[0], o2[1], o2[2],
                                      o2[3], o2[4], o2[5], lo2, hi2);
                    int same = !memcmp(lo1, lo2, sizeof lo1) && !memcmp(hi1, hi2, sizeof hi1);
                    for (int q = 0; q < 6; ++q) same &= !memcmp(o1[q], o2[q], NF * sizeof(float));
                    CHECK(same, "ck_face_boxes%s swept %d faces [%lld, %lld) box offset %zu differs from its reference",
                          kind ? "_nt" : "", swept, (long long)fa, (long long)fb, ofs);
                }
    free(pos), free(idx), free(b1), free(b2);
}

static void test_kernels(void)
{
    enum { NV = 300, NF = 500 };
    uint64_t s = 7;
    float lx[NV], ly[NV], lz[NV], w1[3][NV], w2[3][NV];
    double L[3][NV], d1[3][NV], d2[3][NV];
    for (int i = 0; i < NV; ++i) lx[i] = frand(&s), ly[i] = frand(&s), lz[i] = frand(&s);
    for (int i = 0; i < NV; ++i) L[0][i] = lx[i] + 0x1p-30 * i, L[1][i] = ly[i], L[2][i] = lz[i] - 0x1p-29 * i;
    const double R[9] = {0.36, 0.48, -0.8, -0.8, 0.6, 0, 0.48, 0.64, 0.6}, t[3] = {1.5, -2, 0.25}, sc = 1.3;
    /* S0's kernel (AVX2 at step 1 where the level allows) against the
     * formula written out here, in the same order, at every stride */
    const double *const Lp[3] = {L[0], L[1], L[2]};
    double *const Wp[3] = {d1[0], d1[1], d1[2]};
    float *const Fp[3] = {w1[0], w1[1], w1[2]};
    for (int64_t step = 1; step <= 5; step += 2) {
        memset(w1, 0, sizeof w1), memset(w2, 0, sizeof w2), memset(d1, 0, sizeof d1), memset(d2, 0, sizeof d2);
        ck_transform_d(3, NV, step, R, sc, t, Lp, Wp, Fp);
        for (int64_t i = 3; i < NV; i += step)
            for (int c = 0; c < 3; ++c) {
                const double m0 = R[3 * c] * sc, m1 = R[3 * c + 1] * sc, m2 = R[3 * c + 2] * sc;
                d2[c][i] = (m0 * L[0][i] + m1 * L[1][i] + m2 * L[2][i]) + t[c];
                w2[c][i] = (float)d2[c][i];
            }
        CHECK(!memcmp(d1, d2, sizeof d1) && !memcmp(w1, w2, sizeof w1),
              "ck_transform_d step %lld differs from its formula", (long long)step);
    }
    int32_t i0[NF], i1[NF], i2[NF];
    for (int f = 0; f < NF; ++f) i0[f] = (f * 7) % NV, i1[f] = (f * 13 + 1) % NV, i2[f] = (f * 29 + 5) % NV;
    for (int swept = 0; swept < 2; ++swept)
        for (int64_t step = 1; step <= 4; ++step) {
            float b1[6][NF], b2[6][NF];
            memset(b1, 0, sizeof b1), memset(b2, 0, sizeof b2);
            float lo1[3] = {INFINITY, INFINITY, INFINITY}, hi1[3] = {-INFINITY, -INFINITY, -INFINITY};
            float lo2[3] = {INFINITY, INFINITY, INFINITY}, hi2[3] = {-INFINITY, -INFINITY, -INFINITY};
            ck_face_boxes_strided(2, NF, step, i0, i1, i2, w1[0], w1[1], w1[2], swept ? lx : NULL, ly, lz, b1[0],
                                  b1[1], b1[2], b1[3], b1[4], b1[5], lo1, hi1);
            ck_face_boxes_strided_ref(2, NF, step, i0, i1, i2, w1[0], w1[1], w1[2], swept ? lx : NULL, ly, lz,
                                      b2[0], b2[1], b2[2], b2[3], b2[4], b2[5], lo2, hi2);
            CHECK(!memcmp(b1, b2, sizeof b1) && !memcmp(lo1, lo2, sizeof lo1) && !memcmp(hi1, hi2, sizeof hi1),
                  "ck_face_boxes_strided swept %d step %lld differs from its reference", swept, (long long)step);
        }
    test_face_box_stores();
}

/* ---- the stages across backends, partitions, teams, chunk sizes ------------------- */

typedef struct snapshot {
    float *pos[6];     /* x y z px py pz */
    int prev_held;     /* px py pz hold the state before (a static step from scratch skips it) */
    int deferred;      /* face boxes made in S3, only near the regions (stages/deferred.c) */
    float *box[6];     /* lox .. hiz */
    clash_box *obox;
    uint32_t *kept;
    size_t nkept;
    clash_pair *pairs;
    size_t npairs;
} snapshot;

static void snap_free(snapshot *s)
{
    for (int i = 0; i < 6; ++i) free(s->pos[i]), free(s->box[i]);
    free(s->obox), free(s->kept), free(s->pairs);
    memset(s, 0, sizeof *s);
}

static void *dup(const void *p, size_t n)
{
    void *q = malloc(n ? n : 1);
    if (q && n) memcpy(q, p, n);
    return q;
}

static void snap_take(snapshot *s, const clash_run *run, const clash_pairs *pr)
{
    const clash_scene *sc = run->sc;
    const size_t nv = (size_t)sc->nv * sizeof(float), nf = (size_t)sc->nf * sizeof(float);
    const float *pos[6] = {sc->x, sc->y, sc->z, sc->px, sc->py, sc->pz};
    const float *box[6] = {run->boxes->lox, run->boxes->loy, run->boxes->loz, run->boxes->hix, run->boxes->hiy, run->boxes->hiz};
    for (int i = 0; i < 6; ++i) s->pos[i] = dup(pos[i], nv), s->box[i] = dup(box[i], nf);
    s->prev_held = sc->prev_held;
    s->deferred = run->boxes->deferred;
    s->obox = dup(run->boxes->obox, (size_t)sc->nobj * sizeof(clash_box));
    s->kept = dup(run->cull->kept, run->cull->nkept * sizeof(uint32_t));
    s->nkept = run->cull->nkept;
    s->pairs = dup(pr->pairs, pr->count * sizeof(clash_pair));
    s->npairs = pr->count;
}

/* Independent serial S0/S1 of state s for the first step of a run. */

/* Face f's box (SoA b of nf faces) projected on the ten directions of
 * kernels/face_dops.c, in long double, against slabs S (lo[10], hi[10]). */
static int box_meets_slabs_ref(const float *b, size_t nf, size_t f, const float *S)
{
    static const int D[10][3] = {{1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {-1, 1, 1}, {1, 1, 0},
                                 {1, -1, 0}, {1, 0, 1}, {1, 0, -1}, {0, 1, 1}, {0, 1, -1}};
    for (int d = 0; d < 10; ++d) {
        long double l = 0, h = 0;
        for (int c = 0; c < 3; ++c) {
            const long double lo = b[(size_t)c * nf + f], hi = b[(size_t)(3 + c) * nf + f];
            if (D[d][c] > 0) l += lo, h += hi;
            else if (D[d][c] < 0) l -= hi, h -= lo;
        }
        if (h < S[d] || l > S[10 + d]) return 0;
    }
    return 1;
}

static void check_reference(const clash_run *run, int s, const char *what)
{
    const clash_scene *sc = run->sc;
    const size_t nv = (size_t)sc->nv, nf = (size_t)sc->nf;
    float *w = calloc(3 * nv + 1, sizeof(float)), *b = calloc(6 * nf + 1, sizeof(float));
    long dbad = 0;
    if (!w || !b) {
        CHECK(0, "out of memory");
        free(w), free(b);
        return;
    }
    for (int o = 0; o < sc->nobj; ++o) {
        double R[9], scale, t[3];
        clash_pose_at(&sc->pose[o], s, R, &scale, t);
        /* the double truth from the double local mesh, one vertex at a time, and its float rounding */
        for (int64_t v = sc->vofs[o]; v < sc->vofs[o + 1]; ++v) {
            const double l[3] = {sc->dlx[v], sc->dly[v], sc->dlz[v]}, *const W[3] = {sc->dx, sc->dy, sc->dz};
            for (int d = 0; d < 3; ++d) {
                const double want =
                    ((R[3 * d] * scale) * l[0] + (R[3 * d + 1] * scale) * l[1] + (R[3 * d + 2] * scale) * l[2]) + t[d];
                w[(size_t)d * nv + (size_t)v] = (float)want;
                dbad += memcmp(&want, &W[d][v], sizeof want) != 0;
            }
        }
    }
    CHECK(dbad == 0, "%s: %ld S0 doubles differ from the serial reference", what, dbad);
    CHECK(!memcmp(w, sc->x, nv * 4) && !memcmp(w + nv, sc->y, nv * 4) && !memcmp(w + 2 * nv, sc->z, nv * 4),
          "%s: S0 positions differ from the serial reference", what);
    const int swept = run->cfg.mode == CLASH_MODE_SWEPT;
    if (swept && sc->nturning) { /* the faces' local radii (the arc margins' lever), from the coordinates */
        int r_ok = run->boxes->face_r != NULL;
        for (size_t f = 0; r_ok && f < nf; ++f) {
            const int32_t v[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
            double r2 = 0;
            for (int k = 0; k < 3; ++k) {
                const double a = sc->dlx[v[k]], c = sc->dly[v[k]], e = sc->dlz[v[k]], q = a * a + c * c + e * e;
                r2 = q > r2 ? q : r2;
            }
            r_ok &= run->boxes->face_r[f] == ck_f32_up(sqrt(r2) * (1 + 1e-15));
        }
        CHECK(r_ok, "%s: the faces' radii differ from their definition", what);
    }
    int obox_ok = 1;
    for (int o = 0; o < sc->nobj; ++o) {
        float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        ck_face_boxes_ref(sc->fofs[o], sc->fofs[o + 1], sc->f0, sc->f1, sc->f2, sc->x, sc->y, sc->z,
                          swept ? sc->px : NULL, sc->py, sc->pz, b, b + nf, b + 2 * nf, b + 3 * nf, b + 4 * nf,
                          b + 5 * nf, lo, hi);
        if (swept && sc->turn[o].kind != CLASH_TURN_NONE) /* a turning object: its faces' arc margins */
            for (int64_t f = sc->fofs[o]; f < sc->fofs[o + 1]; ++f) {
                const double m = clash_face_margin(run, (uint32_t)f);
                if (f == sc->fofs[o])
                    for (int d = 0; d < 3; ++d) lo[d] = INFINITY, hi[d] = -INFINITY;
                for (int d = 0; d < 3; ++d) {
                    float *l = b + (size_t)d * nf + f, *h = b + (size_t)(3 + d) * nf + f;
                    const double gl = *l - m, gh = *h + m;
                    clash_grow_side(l, h, m);
                    CHECK(*l <= gl && *h >= gh, "%s: face %lld grown by less than its margin", what, (long long)f);
                    lo[d] = fminf(lo[d], *l), hi[d] = fmaxf(hi[d], *h);
                }
            }
        if (run->boxes->deferred && swept) /* the vertices' bounds grown by the largest margin: they hold the faces' */
            for (int d = 0; d < 3; ++d) obox_ok &= run->boxes->obox[o].lo[d] <= lo[d] && run->boxes->obox[o].hi[d] >= hi[d];
        else
            obox_ok &= !memcmp(lo, run->boxes->obox[o].lo, sizeof lo) && !memcmp(hi, run->boxes->obox[o].hi, sizeof hi);
    }
    const float *box[6] = {run->boxes->lox, run->boxes->loy, run->boxes->loz, run->boxes->hix, run->boxes->hiy, run->boxes->hiz};
    int box_ok = 1;
    if (!run->boxes->deferred)
        for (int i = 0; i < 6; ++i) box_ok &= !memcmp(b + (size_t)i * nf, box[i], nf * 4);
    else /* boxes made in S3 (stages/deferred.c): those of the kept faces, which S4 and S5 read */
        for (size_t k = 0; k < run->cull->nkept; ++k)
            for (int i = 0; i < 6; ++i) box_ok &= b[(size_t)i * nf + run->cull->kept[k]] == box[i][run->cull->kept[k]];
    CHECK(box_ok, "%s: S1 face boxes differ from the serial reference", what);
    CHECK(obox_ok, "%s: S1 object boxes differ from the serial reference", what);
    /* S3 by its definition, face by face on the reference boxes: kept iff
     * some region of the face's object meets its box and the face (inside
     * the region's box, or the exact test) */
    size_t nref = 0, kept_ok = 1;
    for (size_t f = 0; f < nf; ++f) {
        const int32_t o = run->face_obj[f];
        int keep = 0;
        for (int64_t r = run->cull->reg_ofs[o]; !keep && r < run->cull->reg_ofs[o + 1]; ++r) {
            const clash_box *R = &run->cull->regs[r];
            int meet = 1, inside = 1;
            for (int d = 0; d < 3; ++d) {
                const float l = b[(size_t)d * nf + f], h = b[(size_t)(3 + d) * nf + f];
                meet &= l <= R->hi[d] && h >= R->lo[d], inside &= l >= R->lo[d] && h <= R->hi[d];
            }
            const double lo[3] = {R->lo[0], R->lo[1], R->lo[2]}, hi[3] = {R->hi[0], R->hi[1], R->hi[2]};
            if (meet && run->broad->region_dops) /* and the box meets the region's ten diagonal slabs (stages/broad_dop.c) */
                meet &= box_meets_slabs_ref(b, nf, f, run->cull->rdop + (size_t)CK_FDOP * (size_t)r);
            keep = meet && (inside || clash_face_meets_box_full(run, (uint32_t)f, lo, hi));
        }
        if (keep) kept_ok &= nref < run->cull->nkept && run->cull->kept[nref] == f, ++nref;
    }
    CHECK(kept_ok && nref == run->cull->nkept, "%s: S3 kept %zu faces, its definition %zu", what, run->cull->nkept, nref);
    free(w), free(b);
}

static int same(const snapshot *a, const snapshot *b, const clash_scene *sc, const char *what, int step)
{
    const size_t nv = (size_t)sc->nv * 4, nf = (size_t)sc->nf * 4;
    int ok_pos = 1, ok_box = 1;
    CHECK(a->prev_held == b->prev_held, "%s step %d: the state before held in one run only", what, step);
    for (int i = 0; i < 6; ++i) { /* the state before only where held (swept mode, or a step after the first) */
        ok_pos &= (i >= 3 && !a->prev_held) || !memcmp(a->pos[i], b->pos[i], nv);
        if (!a->deferred && !b->deferred)
            ok_box &= !memcmp(a->box[i], b->box[i], nf);
        else /* boxes made in S3 (stages/deferred.c): those of the kept faces (compared below) */
            for (size_t k = 0; k < a->nkept && a->nkept == b->nkept; ++k)
                ok_box &= a->box[i][a->kept[k]] == b->box[i][a->kept[k]];
    }
    CHECK(ok_pos, "%s step %d: S0 positions differ", what, step);
    CHECK(ok_box, "%s step %d: S1 face boxes differ", what, step);
    CHECK(!memcmp(a->obox, b->obox, (size_t)sc->nobj * sizeof(clash_box)), "%s step %d: S1 object boxes differ", what,
          step);
    CHECK(a->nkept == b->nkept && !memcmp(a->kept, b->kept, a->nkept * 4), "%s step %d: S3 kept lists differ (%zu, %zu)",
          what, step, a->nkept, b->nkept);
    CHECK(a->npairs == b->npairs && !memcmp(a->pairs, b->pairs, a->npairs * sizeof(clash_pair)),
          "%s step %d: pairs differ (%zu, %zu)", what, step, a->npairs, b->npairs);
    return ok_pos && ok_box;
}

enum { STEPS = 3 };

static void run_config(clash_scene *sc, clash_config cfg, snapshot out[STEPS], int check_ref, const char *what)
{
    clash_error err;
    /* (a new run starts from state 0: S0 recomputes both states) */
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run != NULL, "%s: run_create: %s", what, err.msg);
    if (!run) return;
    for (int s = 1; s <= STEPS; ++s) {
        clash_pairs pr;
        int rc = clash_step(run, s, &pr, NULL, &err);
        CHECK(rc == 0, "%s step %d: %s", what, s, err.msg);
        if (rc) break;
        int asc = 1;
        for (size_t i = 1; i < run->cull->nkept; ++i) asc &= run->cull->kept[i - 1] < run->cull->kept[i];
        CHECK(asc, "%s step %d: kept list not strictly ascending", what, s);
        if (check_ref) check_reference(run, s, what);
        snap_take(&out[s - 1], run, &pr);
    }
    clash_run_destroy(run);
}

static void test_stages(const char *preset, int objects, double density, int mode, int self)
{
    clash_error err;
    clash_scene *sc = NULL;
    clash_preset_params pp = {.objects = objects, .seed = 5, .density = density};
    if (clash_scene_preset(preset, &pp, &sc, &err)) {
        CHECK(0, "preset %s: %s", preset, err.msg);
        return;
    }
    clash_config base = clash_config_default();
    base.mode = mode, base.self_collision = self, base.steps = STEPS, base.threads = 1;
    snapshot ref[STEPS] = {0};
    run_config(sc, base, ref, 1, preset);
    int pairs_seen = 0, kept_seen = 0;
    for (int s = 0; s < STEPS; ++s) pairs_seen += ref[s].npairs > 0, kept_seen += ref[s].nkept > 0;
    if (strcmp(preset, "ktk94-table1")) /* its spheres meet later; it checks S0/S1 on 8 objects */
        CHECK(kept_seen > 0, "%s: the scene keeps no face in S3, a weak test", preset);
    const int64_t chunks[] = {0, 1, 7, 64};
    for (int backend = 0; backend < 2; ++backend)
        for (int part = 0; part < 2; ++part)
            for (int T = 1; T <= 4; ++T)
                for (size_t k = 0; k < sizeof chunks / sizeof *chunks; ++k) {
                    clash_config c = base;
                    c.backend = backend, c.partition = part, c.threads = T, c.chunk = chunks[k];
                    char what[160];
                    snprintf(what, sizeof what, "%s mode %d self %d: %s %s T=%d chunk=%lld", preset, mode, self,
                             backend ? "pthreads" : "omp", part ? "stride" : "chunk", T, (long long)chunks[k]);
                    snapshot got[STEPS] = {0};
                    run_config(sc, c, got, k == 0 && T == 2, what);
                    for (int s = 0; s < STEPS; ++s) {
                        if (got[s].pos[0]) same(&ref[s], &got[s], sc, what, s + 1);
                        snap_free(&got[s]);
                    }
                }
    printf("%s mode %d self %d: %d/%d steps with pairs, kept %zu faces in step 1\n", preset, mode, self, pairs_seen,
           STEPS, ref[0].nkept);
    for (int s = 0; s < STEPS; ++s) snap_free(&ref[s]);
    clash_scene_destroy(sc);
}

int main(void)
{
    test_pool();
    test_cover();
    test_kernels();
    test_stages("cluttered", 60, 0.3, CLASH_MODE_SWEPT, 0);
    test_stages("cluttered", 25, 0.3, CLASH_MODE_STATIC, 1);
    test_stages("ktk94-table1", 0, 0, CLASH_MODE_STATIC, 0);
    clash_config bad = clash_config_default();
    bad.chunk = -1;
    clash_scene *sc = NULL;
    clash_error err;
    clash_preset_params pp = {0};
    if (clash_scene_preset("default", &pp, &sc, &err) == 0) {
        clash_run *run = clash_run_create(sc, &bad, &err);
        CHECK(run == NULL && err.code == CLASH_EINPUT, "negative chunk must be refused");
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
    return check_finish("test_finegrain");
}
