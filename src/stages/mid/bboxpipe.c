/*
 * bboxpipe.c — stage S4 as Zachmann's bounding-box pipeline
 * (`--midphase bboxpipe`, [Zachmann00] §3.3), the structure-free path for small or
 * deforming objects: nothing is built or kept between steps.
 *
 * For an object pair (P, Q) with overlap region R = box(P) ∩ box(Q), grown
 * by delta (S2):
 *   1. collect F̄P, the faces of P whose box meets R, and F̄Q likewise
 *      (a face of P can only meet Q inside box(Q), and it lies in box(P));
 *   2. sort both by the left bracket lo_x of their boxes;
 *   3. sweep: for each f of F̄P in order, the faces g of F̄Q that can
 *      overlap f have lo_x(g) in [lo_x(f) - d, hi_x(f)], d the widest
 *      x-slab of F̄Q (plus the 2*delta growth); since F̄P is sorted, the
 *      first such g only moves forward (the dissertation's "sorted outer
 *      loop"), and the scan stops at the first g beyond hi_x(f);
 *   4. the y and z slabs are compared only for the pairs the x-slabs let
 *      through (lazy evaluation, [Zachmann00] Fig. 3.2); eligible pairs whose boxes
 *      overlap grown by delta become candidates.
 * Self-collision sweeps one object's faces against themselves.  Face boxes
 * are world boxes from S1 (the dissertation compares them in either
 * object's frame to save transforms; here S1 computes them anyway).
 *
 * Work units are object pairs and self objects, handed out by the
 * coarse-grain strategy; each worker keeps its own scratch and buffer.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "stages/mid/midphase.h"
#include "base/sort.h"

typedef struct pscratch {
    uint64_t *a, *b, *tmp;  /* (sortable lo_x << 32 | face) */
    size_t cap;
} pscratch;

static inline uint32_t float_key(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

static int reserve(pscratch *s, size_t n)
{
    if (n <= s->cap) return 0;
    free(s->a), free(s->b), free(s->tmp);
    s->a = malloc(n * sizeof(uint64_t)), s->b = malloc(n * sizeof(uint64_t)), s->tmp = malloc(n * sizeof(uint64_t));
    s->cap = s->a && s->b && s->tmp ? n : 0;
    return s->cap ? 0 : -1;
}

/* Faces of object o whose box meets [lo, hi] (NULL: all), sorted by lo_x; returns the count. */
static size_t collect(const clash_run *run, int o, const float *lo, const float *hi, uint64_t *out, uint64_t *tmp,
                      float *maxw)
{
    const clash_scene *sc = run->sc;
    size_t n = 0;
    float w = 0;
    for (int64_t f = sc->fofs[o]; f < sc->fofs[o + 1]; ++f) {
        if (lo && (run->boxes->lox[f] > hi[0] || run->boxes->hix[f] < lo[0])) continue; /* x slab first */
        if (lo && (run->boxes->loy[f] > hi[1] || run->boxes->hiy[f] < lo[1] || run->boxes->loz[f] > hi[2] || run->boxes->hiz[f] < lo[2])) continue;
        out[n++] = (uint64_t)float_key(run->boxes->lox[f]) << 32 | (uint32_t)f;
        w = fmaxf(w, run->boxes->hix[f] - run->boxes->lox[f]);
    }
    clash_sort_u64(out, n, tmp);
    *maxw = w;
    return n;
}

static inline int emit(const clash_run *run, clash_keybuf *kb, uint32_t a, uint32_t b)
{
    const uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    if (!clash_pair_eligible(run, lo, hi) || !clash_faceboxes_overlap(run->boxes, lo, hi)) return 0;
    return clash_keybuf_push(kb, (uint64_t)lo << 32 | hi);
}

static int pair_unit(const clash_run *run, pscratch *s, clash_keybuf *kb, const clash_objpair *op)
{
    const clash_scene *sc = run->sc;
    const size_t na = (size_t)(sc->fofs[op->a + 1] - sc->fofs[op->a]), nb = (size_t)(sc->fofs[op->b + 1] - sc->fofs[op->b]);
    if (reserve(s, na > nb ? na : nb)) return -1;
    float wa, wb;
    const size_t ma = collect(run, op->a, op->region.lo, op->region.hi, s->a, s->tmp, &wa);
    const size_t mb = collect(run, op->b, op->region.lo, op->region.hi, s->b, s->tmp, &wb);
    if (!ma || !mb) return 0;
    const float g = 2 * run->boxes->delta, d = wb + g;
    size_t start = 0;
    for (size_t i = 0; i < ma; ++i) {
        const uint32_t f = (uint32_t)s->a[i];
        const float from = run->boxes->lox[f] - d, to = run->boxes->hix[f] + g;
        while (start < mb && run->boxes->lox[(uint32_t)s->b[start]] < from) ++start;
        for (size_t j = start; j < mb; ++j) {
            const uint32_t h = (uint32_t)s->b[j];
            if (run->boxes->lox[h] > to) break;
            if (run->boxes->hix[h] + g < run->boxes->lox[f]) continue; /* a left bracket left of f's: check the right one */
            if (emit(run, kb, f, h)) return -1;
        }
    }
    return 0;
}

static int self_unit(const clash_run *run, pscratch *s, clash_keybuf *kb, int o)
{
    const clash_scene *sc = run->sc;
    if (!clash_obj_self(run, o)) return 0; /* the host turned its self-collision off */
    if (reserve(s, (size_t)(sc->fofs[o + 1] - sc->fofs[o]))) return -1;
    float w;
    const size_t m = collect(run, o, NULL, NULL, s->a, s->tmp, &w);
    const float g = 2 * run->boxes->delta;
    for (size_t i = 0; i < m; ++i) {
        const uint32_t f = (uint32_t)s->a[i];
        const float to = run->boxes->hix[f] + g;
        for (size_t j = i + 1; j < m; ++j) {
            const uint32_t h = (uint32_t)s->a[j];
            if (run->boxes->lox[h] > to) break;
            if (emit(run, kb, f, h)) return -1;
        }
    }
    return 0;
}

typedef struct bpctx {
    clash_run *run;
    pscratch *ws;
    int failed;
} bpctx;

static void run_units(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    bpctx *c = p;
    const clash_run *run = c->run;
    for (int64_t u = begin; u < end; u += step) {
        const int r = u < (int64_t)run->broad->nop ? pair_unit(run, &c->ws[worker], &run->mid->wbuf[worker], &run->broad->op[u])
                                            : self_unit(run, &c->ws[worker], &run->mid->wbuf[worker], (int)(u - (int64_t)run->broad->nop));
        if (r) c->failed = 1;
    }
}

int clash_bboxpipe_candidates(clash_run *run, clash_error *err)
{
    run->mid->cand.n = 0;
    bpctx c = {run, calloc(clash_team(run), sizeof(pscratch)), 0};
    int rc = CLASH_OK;
    if (!c.ws) return clash_fail(err, CLASH_EFAIL, "out of memory in the bboxpipe midphase");
    for (int w = 0; w < run->threads; ++w) run->mid->wbuf[w].n = 0;
    const int64_t nunits = (int64_t)run->broad->nop + (run->cfg.self_collision ? run->sc->nobj : 0);
    if (clash_par_tasks(&run->exec, nunits, 1, run_units, &c) < 0)
        rc = clash_fail(err, CLASH_EINPUT, "schedule not available for the bboxpipe midphase");
    else if (c.failed || clash_mid_gather(run))
        rc = clash_fail(err, CLASH_EFAIL, "out of memory in the bboxpipe midphase");
    for (int w = 0; w < run->threads; ++w) free(c.ws[w].a), free(c.ws[w].b), free(c.ws[w].tmp);
    free(c.ws);
    return rc;
}
