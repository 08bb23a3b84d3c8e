/*
 * cull.c — stage S3: the faces of each object that meet one of its overlap
 * regions, by the exact triangle/box test ([Smith94] §3.3.7; swept mode: the face's
 * swept hull against the box).  This file lays out the regions of each object
 * as CSR (with self-collision an object's own box is one of its regions); the
 * parallel face loop and the ascending kept list are finegrain.c's.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stages/finegrain.h"
#include "stages/stages.h"


/* The face loop and the ascending kept list: per-worker lists merged in parallel (finegrain.c). */
int clash_stage_cull(clash_run *run)
{
    const clash_scene *sc = run->sc;
    const int n = sc->nobj, self = run->cfg.self_collision;
    /* CSR of regions per object */
    memset(run->reg_ofs, 0, sizeof(int64_t) * ((size_t)n + 1));
    for (size_t i = 0; i < run->nop; ++i) run->reg_ofs[run->op[i].a + 1]++, run->reg_ofs[run->op[i].b + 1]++;
    uint8_t *own = NULL; /* with self-collision: the objects whose own box is a region */
    if (self) {
        if (!(own = malloc((size_t)n + 1))) return -1;
        for (int o = 0; o < n; ++o) {
            own[o] = (uint8_t)((!run->op_keep || run->op_keep(run->op_keep_ctx, o, o)) && clash_obj_self(run, o));
            run->reg_ofs[o + 1] += own[o];
        }
    }
    for (int o = 0; o < n; ++o) run->reg_ofs[o + 1] += run->reg_ofs[o];
    free(run->regs);
    run->regs = malloc(sizeof(clash_box) * (size_t)(run->reg_ofs[n] ? run->reg_ofs[n] : 1));
    int64_t *fill = malloc(sizeof(int64_t) * (size_t)n);
    if (!run->regs || !fill) {
        free(fill), free(own);
        return -1;
    }
    memcpy(fill, run->reg_ofs, sizeof(int64_t) * (size_t)n);
    if (self)
        for (int o = 0; o < n; ++o) {
            if (!own[o]) continue;
            clash_box b = run->obox[o];
            for (int d = 0; d < 3; ++d) b.lo[d] -= run->delta, b.hi[d] += run->delta;
            run->regs[fill[o]++] = b;
        }
    for (size_t i = 0; i < run->nop; ++i) {
        run->regs[fill[run->op[i].a]++] = run->op[i].region;
        run->regs[fill[run->op[i].b]++] = run->op[i].region;
    }
    /* the regions' slabs (broad_dop.c; an object's own region: unbounded) */
    free(run->rdop);
    run->rdop = NULL;
    const size_t nreg = (size_t)(run->reg_ofs[n] ? run->reg_ofs[n] : 1);
    if (run->rdop_on && !(run->rdop = malloc(sizeof(float) * CK_FDOP * nreg))) {
        free(fill), free(own);
        return -1;
    }
    if (run->rdop_on) {
        memcpy(fill, run->reg_ofs, sizeof(int64_t) * (size_t)n);
        if (self)
            for (int o = 0; o < n; ++o) {
                if (!own[o]) continue;
                float *S = run->rdop + (size_t)CK_FDOP * (size_t)fill[o]++;
                for (int d = 0; d < 10; ++d) S[d] = -INFINITY, S[10 + d] = INFINITY;
            }
        for (size_t i = 0; i < run->nop; ++i)
            for (int t = 0; t < 2; ++t) {
                const int32_t o = t ? run->op[i].b : run->op[i].a;
                memcpy(run->rdop + (size_t)CK_FDOP * (size_t)fill[o]++, run->opdop + CK_FDOP * i,
                       CK_FDOP * sizeof(float));
            }
    }
    free(fill), free(own);
    return clash_fg_cull(run);
}
