/*
 * narrow.h — S5's state (stages/narrow.c): a hit flag per candidate, and
 * which candidates this rank tested, which --ccd and S6 read.
 */
#ifndef CLASH_STAGES_NARROW_H
#define CLASH_STAGES_NARROW_H

#include <stddef.h>
#include <stdint.h>

typedef struct clash_narrow_state {
    uint8_t *hit;                 /* a flag per candidate (pages-renewed, base/mem.h) */
    size_t cap_hit;
    int64_t test_begin, test_end; /* the candidates this rank tested */
} clash_narrow_state;

void clash_narrow_free(clash_narrow_state *n);

#endif
