/*
 * topology.h — what the machine looks like: packages, cores, PUs, NUMA
 * nodes and cache sizes, through hwloc when the build has it and from
 * sysconf/sysfs otherwise.  The only place besides ranks that includes hwloc.h.
 */
#ifndef CLASH_TOPOLOGY_H
#define CLASH_TOPOLOGY_H

#include <stddef.h>

typedef struct clash_topology {
    int packages, cores, pus, numa_nodes;
    size_t l1d, l2, l3;      /* bytes, 0 when unknown */
    int l3_ways;             /* the L3's associativity: ways, -1 fully associative, 0 unknown (hwloc only) */
    int l3_line;             /* the L3's line size in bytes, 0 unknown (hwloc only) */
    const char *source;      /* "hwloc" or "sysfs" */
} clash_topology;

void clash_topology_get(clash_topology *t);
/* "1 package, 2 cores, 2 PUs, 1 NUMA node, L1d 32 KiB, L2 1 MiB, L3 32 MiB" */
void clash_topology_describe(const clash_topology *t, char *buf, size_t n);

#endif
