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
    memset(run->cull->reg_ofs, 0, sizeof(int64_t) * ((size_t)n + 1));
    for (size_t i = 0; i < run->broad->nop; ++i) run->cull->reg_ofs[run->broad->op[i].a + 1]++, run->cull->reg_ofs[run->broad->op[i].b + 1]++;
    uint8_t *own = NULL; /* with self-collision: the objects whose own box is a region */
    if (self) {
        if (!(own = malloc((size_t)n + 1))) return -1;
        for (int o = 0; o < n; ++o) {
            own[o] = (uint8_t)((!run->broad->op_keep || run->broad->op_keep(run->broad->op_keep_ctx, o, o)) && clash_obj_self(run, o));
            run->cull->reg_ofs[o + 1] += own[o];
        }
    }
    for (int o = 0; o < n; ++o) run->cull->reg_ofs[o + 1] += run->cull->reg_ofs[o];
    free(run->cull->regs);
    run->cull->regs = malloc(sizeof(clash_box) * (size_t)(run->cull->reg_ofs[n] ? run->cull->reg_ofs[n] : 1));
    int64_t *fill = malloc(sizeof(int64_t) * (size_t)n);
    if (!run->cull->regs || !fill) {
        free(fill), free(own);
        return -1;
    }
    memcpy(fill, run->cull->reg_ofs, sizeof(int64_t) * (size_t)n);
    if (self)
        for (int o = 0; o < n; ++o) {
            if (!own[o]) continue;
            clash_box b = run->boxes->obox[o];
            for (int d = 0; d < 3; ++d) b.lo[d] -= run->boxes->delta, b.hi[d] += run->boxes->delta;
            run->cull->regs[fill[o]++] = b;
        }
    for (size_t i = 0; i < run->broad->nop; ++i) {
        run->cull->regs[fill[run->broad->op[i].a]++] = run->broad->op[i].region;
        run->cull->regs[fill[run->broad->op[i].b]++] = run->broad->op[i].region;
    }
    /* the regions' slabs (broad_dop.c; an object's own region: unbounded) */
    free(run->cull->rdop);
    run->cull->rdop = NULL;
    const size_t nreg = (size_t)(run->cull->reg_ofs[n] ? run->cull->reg_ofs[n] : 1);
    if (run->broad->region_dops && !(run->cull->rdop = malloc(sizeof(float) * CK_FDOP * nreg))) {
        free(fill), free(own);
        return -1;
    }
    if (run->broad->region_dops) {
        memcpy(fill, run->cull->reg_ofs, sizeof(int64_t) * (size_t)n);
        if (self)
            for (int o = 0; o < n; ++o) {
                if (!own[o]) continue;
                float *S = run->cull->rdop + (size_t)CK_FDOP * (size_t)fill[o]++;
                for (int d = 0; d < 10; ++d) S[d] = -INFINITY, S[10 + d] = INFINITY;
            }
        for (size_t i = 0; i < run->broad->nop; ++i)
            for (int t = 0; t < 2; ++t) {
                const int32_t o = t ? run->broad->op[i].b : run->broad->op[i].a;
                memcpy(run->cull->rdop + (size_t)CK_FDOP * (size_t)fill[o]++, run->broad->opdop + CK_FDOP * i,
                       CK_FDOP * sizeof(float));
            }
    }
    free(fill), free(own);
    return clash_fg_cull(run);
}

/* ---- S3's state ------------------------------------------------------------------------------ */

clash_cull_state *clash_cull_create(int64_t nf, int nobj)
{
    clash_cull_state *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->reg_ofs = calloc((size_t)nobj + 1, sizeof(int64_t));
    c->keep = calloc((size_t)nf, 1);
    c->kept = malloc((size_t)nf * sizeof(uint32_t));
    if (!c->reg_ofs || !c->keep || !c->kept) clash_cull_free(c), c = NULL;
    return c;
}

void clash_cull_free(clash_cull_state *c)
{
    if (!c) return;
    free(c->reg_ofs), free(c->regs), free(c->rdop), free(c->keep), free(c->kept);
    free(c);
}
