/*
 * held_bounds.c — bounds of a state kept from one swept step to the next
 * (held_bounds.h).  Each kind is double-buffered in the run: [0] is made this
 * step over x, [1] is the step before's over its x, valid for the
 * positions of content number hbox_gen[1] / hdop_gen[1].
 *
 * On the large cluttered scenes the pass over px was about half of S1 with
 * boxes deferred and half of the objects' DOPs in S2: a pass over every
 * vertex each (bench/RESULTS.md), which keeping the last step's bounds
 * spares.
 */
#include "stages/held_bounds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int held_for(const clash_run *run, uint64_t gen)
{
    return !run->debug.hold_off && run->sc->pxgen && gen == run->sc->pxgen;
}

int clash_held_boxes_begin(clash_run *run)
{
    const size_t n = (size_t)run->sc->nobj;
    for (int k = 0; k < 2; ++k)
        if (!run->boxes->hbox[k] && !(run->boxes->hbox[k] = malloc((n ? n : 1) * sizeof(clash_box)))) return -1;
    memcpy(run->boxes->hbox[0], run->boxes->obox, n * sizeof(clash_box));
    return held_for(run, run->boxes->hbox_gen[1]);
}

void clash_held_boxes_join(clash_run *run, int held)
{
    const size_t n = (size_t)run->sc->nobj;
    if (!held) memcpy(run->boxes->hbox[1], run->boxes->obox, n * sizeof(clash_box));
    for (size_t o = 0; o < n; ++o) {
        clash_box *b = &run->boxes->obox[o];
        const clash_box *x = &run->boxes->hbox[0][o], *p = &run->boxes->hbox[1][o];
        for (int d = 0; d < 3; ++d) b->lo[d] = fminf(x->lo[d], p->lo[d]), b->hi[d] = fmaxf(x->hi[d], p->hi[d]);
    }
    run->boxes->held_boxes = held ? run->sc->nobj : 0;
    clash_box *t = run->boxes->hbox[0];
    run->boxes->hbox[0] = run->boxes->hbox[1], run->boxes->hbox[1] = t;
    run->boxes->hbox_gen[1] = run->sc->xgen;
}

int clash_held_dops_begin(clash_run *run)
{
    const size_t n = (size_t)run->sc->nobj, m = n ? n : 1;
    for (int k = 0; k < 2; ++k) {
        if (!run->boxes->hdop[k] && !(run->boxes->hdop[k] = malloc(m * CLASH_HDOP * sizeof(float)))) return -1;
        if (!run->boxes->hdop_has[k] && !(run->boxes->hdop_has[k] = calloc(m, 1))) return -1;
    }
    memset(run->boxes->hdop_has[0], 0, n);
    return held_for(run, run->boxes->hdop_gen[1]);
}

void clash_held_dops_put(clash_run *run, int32_t o, const float *lo, const float *hi, float M, int ok)
{
    float *H = run->boxes->hdop[0] + (size_t)CLASH_HDOP * (size_t)o;
    memcpy(H, lo, 10 * sizeof(float)), memcpy(H + 10, hi, 10 * sizeof(float));
    H[20] = M, H[21] = ok ? 1.0f : 0.0f;
    run->boxes->hdop_has[0][o] = 1;
}

int clash_held_dops_join(const clash_run *run, int held, int32_t o, float *lo, float *hi, float *M, int *ok)
{
    if (!held || !run->boxes->hdop_has[1][o]) return 0;
    const float *H = run->boxes->hdop[1] + (size_t)CLASH_HDOP * (size_t)o;
    for (int d = 0; d < 10; ++d) lo[d] = fminf(lo[d], H[d]), hi[d] = fmaxf(hi[d], H[10 + d]);
    *M = fmaxf(*M, H[20]);
    *ok &= H[21] != 0.0f;
    return 1;
}

void clash_held_dops_end(clash_run *run)
{
    float *t = run->boxes->hdop[0];
    run->boxes->hdop[0] = run->boxes->hdop[1], run->boxes->hdop[1] = t;
    uint8_t *h = run->boxes->hdop_has[0];
    run->boxes->hdop_has[0] = run->boxes->hdop_has[1], run->boxes->hdop_has[1] = h;
    run->boxes->hdop_gen[1] = run->sc->xgen;
}
