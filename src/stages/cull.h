/*
 * cull.h — S3's state (stages/cull.c): the regions of each object (the
 * overlap regions of S2's pairs it takes part in) and the faces that meet
 * one of them, which S4 pairs up.
 */
#ifndef CLASH_STAGES_CULL_H
#define CLASH_STAGES_CULL_H

#include "core/run.h"

typedef struct clash_cull_state {
    int64_t *reg_ofs; /* CSR of each object's regions, nobj + 1 */
    clash_box *regs;
    float *rdop;      /* each region's slabs (CK_FDOP floats), when S2's pairs had them */
    uint8_t *keep;    /* a flag per face */
    uint32_t *kept;   /* the kept global faces, ascending */
    size_t nkept;
} clash_cull_state;

/* S3's state for nf faces and nobj objects, NULL when out of memory. */
clash_cull_state *clash_cull_create(int64_t nf, int nobj);
void clash_cull_free(clash_cull_state *c);

#endif
