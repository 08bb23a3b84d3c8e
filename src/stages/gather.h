/*
 * gather.h — S6's state (stages/gather.c): on one rank the hit keys, in
 * their own buffer kept from step to step (their sort's scratch is S4's
 * candidate array, which S6 is the last to read).
 */
#ifndef CLASH_STAGES_GATHER_H
#define CLASH_STAGES_GATHER_H

#include <stddef.h>
#include <stdint.h>

typedef struct clash_gather_state {
    uint64_t *gkeys;
    size_t cap_gkeys;
} clash_gather_state;

void clash_gather_free(clash_gather_state *g);

#endif
