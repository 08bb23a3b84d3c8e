/*
 * brute.c — the oracle midphase (--midphase brute): every eligible face pair
 * whose face boxes overlap, found by one sort-and-sweep over all face boxes
 * along x, without S2 and S3.  The property tests hold every other path to
 * its pair set.
 */
#include <stdlib.h>

#include "base/sort.h"
#include "stages/mid/midphase.h"

/* ---- S4, the oracle: every eligible pair with overlapping face boxes ------------------ */

typedef struct { float lo; uint32_t f; } face_item;
static int cmp_face_item(const void *x, const void *y)
{
    const face_item *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo ? 1 : (a->f > b->f) - (a->f < b->f);
}

int clash_brute_candidates(clash_run *run)
{
    const size_t nf = (size_t)run->sc->nf;
    face_item *it = malloc(nf * sizeof *it);
    if (!it) return -1;
    for (size_t f = 0; f < nf; ++f) it[f] = (face_item){run->boxes->lox[f], (uint32_t)f};
    qsort(it, nf, sizeof *it, cmp_face_item);
    clash_keybuf kb = {0};
    kb.v = run->mid->cand.keys, kb.cap = run->mid->cand.cap;
    for (size_t i = 0; i < nf; ++i) {
        const uint32_t a = it[i].f;
        const float hx = run->boxes->hix[a] + 2 * run->boxes->delta;
        for (size_t j = i + 1; j < nf && it[j].lo <= hx; ++j) {
            const uint32_t b = it[j].f, lo = a < b ? a : b, hi = a < b ? b : a;
            if (clash_pair_eligible(run, lo, hi) && clash_faceboxes_overlap(run->boxes, lo, hi))
                if (clash_keybuf_push(&kb, (uint64_t)lo << 32 | hi)) {
                    run->mid->cand.keys = kb.v, run->mid->cand.cap = kb.cap;
                    free(it);
                    return -1;
                }
        }
    }
    free(it);
    run->mid->cand.keys = kb.v, run->mid->cand.cap = kb.cap;
    size_t n = clash_sort_unique_u64(kb.v, kb.n);
    if (n == (size_t)-1) return -1;
    run->mid->cand.n = n;
    return 0;
}
