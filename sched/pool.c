/*
 * pool.c — the persistent pthreads pool (not written yet: the pthreads
 * backend reports itself unavailable until it is).
 */
#include "sched/sched.h"

int clash_pool_spmd(int threads, clash_spmd_fn fn, void *ctx)
{
    (void)threads, (void)fn, (void)ctx;
    return -1;
}

void clash_pool_shutdown(void) {}
