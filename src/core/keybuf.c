/*
 * keybuf.c — the key buffers the stages share: a growable array of uint64
 * keys per worker (core/run.h).  The merge of S4's buffers into its
 * candidates is S4's (stages/mid/midphase.c).
 */
#include <stdlib.h>

#include "base/mem.h"
#include "core/run.h"

int clash_keybuf_grow(clash_keybuf *b)
{
    /* by half again: the buffers are kept from step to step, so the few
     * more copies while they grow cost little, and the capacity left
     * unused (up to a half of it, not all of it) is memory every later
     * step holds (on the largest scenes the workers' buffers hold millions
     * of keys) */
    size_t cap = b->cap ? b->cap + b->cap / 2 : 1024;
    uint64_t *v = realloc(b->v, cap * sizeof *v);
    if (!v) return -1;
    b->v = v, b->cap = cap;
    return 0;
}
