/*
 * bind.c — see bind.h.  hwloc gives the cores inside the process's allowed
 * cpuset (under mpirun: the rank's binding); worker w is pinned to core
 * w mod ncores (or to that core's package) with hwloc_set_cpubind on the
 * calling thread.
 */
#include "sched/bind.h"

#include <stdatomic.h>
#include <stdio.h>

#if CLASH_HAVE_HWLOC
#include <hwloc.h>
#endif

int clash_bind_available(void) { return CLASH_HAVE_HWLOC; }

const char *clash_bind_name(int how)
{
    return how == CLASH_BIND_CORE ? "core" : how == CLASH_BIND_SOCKET ? "socket" : "none";
}

#if CLASH_HAVE_HWLOC
typedef struct bind_ctx {
    hwloc_topology_t topo;
    hwloc_cpuset_t allowed;
    int how, ncores;
    atomic_int failed;
} bind_ctx;

static void bind_worker(int w, int T, void *p)
{
    (void)T;
    bind_ctx *c = p;
    hwloc_obj_t core =
        hwloc_get_obj_inside_cpuset_by_type(c->topo, c->allowed, HWLOC_OBJ_CORE, (unsigned)(w % c->ncores));
    if (!core) {
        atomic_store(&c->failed, 1);
        return;
    }
    hwloc_obj_t target = core;
    if (c->how == CLASH_BIND_SOCKET) {
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(c->topo, HWLOC_OBJ_PACKAGE, core);
        if (pkg) target = pkg;
    }
    hwloc_cpuset_t set = hwloc_bitmap_dup(target->cpuset);
    hwloc_bitmap_and(set, set, c->allowed);
    if (hwloc_set_cpubind(c->topo, set, HWLOC_CPUBIND_THREAD) != 0) atomic_store(&c->failed, 1);
    hwloc_bitmap_free(set);
}
#endif

int clash_bind_team(const clash_exec *ex, int how, char *msg, int msglen)
{
    if (how == CLASH_BIND_NONE) return 0;
#if CLASH_HAVE_HWLOC
    bind_ctx c = {.how = how};
    atomic_init(&c.failed, 0);
    if (hwloc_topology_init(&c.topo) || hwloc_topology_load(c.topo)) {
        snprintf(msg, (size_t)msglen, "--bind: hwloc could not read the topology");
        return -1;
    }
    c.allowed = hwloc_bitmap_alloc();
    hwloc_get_cpubind(c.topo, c.allowed, HWLOC_CPUBIND_PROCESS);
    c.ncores = hwloc_get_nbobjs_inside_cpuset_by_type(c.topo, c.allowed, HWLOC_OBJ_CORE);
    if (c.ncores <= 0) {
        snprintf(msg, (size_t)msglen, "--bind: no core found in this process's cpu set");
        hwloc_bitmap_free(c.allowed);
        hwloc_topology_destroy(c.topo);
        return -1;
    }
    clash_exec e = *ex;
    e.worker_seconds = NULL;
    clash_spmd(&e, bind_worker, &c);
    const int failed = atomic_load(&c.failed);
    if (failed) snprintf(msg, (size_t)msglen, "--bind %s: hwloc_set_cpubind failed", clash_bind_name(how));
    hwloc_bitmap_free(c.allowed);
    hwloc_topology_destroy(c.topo);
    return failed ? -1 : 0;
#else
    (void)ex;
    snprintf(msg, (size_t)msglen, "--bind %s: binding is unavailable (this build has no hwloc)", clash_bind_name(how));
    return -1;
#endif
}
