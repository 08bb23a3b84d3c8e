/*
 * topology.c — see topology.h.
 */
#include "sched/topology.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sched/sched.h"

#if CLASH_HAVE_HWLOC
#include <hwloc.h>
#endif

static size_t sysfs_cache(int level, const char *type)
{
    for (int i = 0; i < 8; ++i) {
        char path[128], buf[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f) break;
        int lv = 0;
        if (fscanf(f, "%d", &lv) != 1) lv = 0;
        fclose(f);
        if (lv != level) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (!(f = fopen(path, "r"))) continue;
        int ok = fgets(buf, sizeof buf, f) && (strstr(buf, type) || strstr(buf, "Unified"));
        fclose(f);
        if (!ok) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (!(f = fopen(path, "r"))) continue;
        unsigned long kb = 0;
        char unit = 'K';
        int got = fscanf(f, "%lu%c", &kb, &unit);
        fclose(f);
        if (got >= 1) return unit == 'M' ? kb << 20 : kb << 10;
    }
    return 0;
}

void clash_topology_get(clash_topology *t)
{
    memset(t, 0, sizeof *t);
#if CLASH_HAVE_HWLOC
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0) {
        t->packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
        t->cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        t->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        t->numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        hwloc_obj_t o;
        if ((o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L1CACHE, 0))) t->l1d = o->attr->cache.size;
        if ((o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L2CACHE, 0))) t->l2 = o->attr->cache.size;
        if ((o = hwloc_get_obj_by_type(topo, HWLOC_OBJ_L3CACHE, 0))) {
            t->l3 = o->attr->cache.size;
            t->l3_ways = o->attr->cache.associativity;
            t->l3_line = (int)o->attr->cache.linesize;
        }
        t->source = "hwloc";
        hwloc_topology_destroy(topo);
        if (t->pus > 0) return;
    }
#endif
    t->packages = 1;
    t->pus = clash_sched_cores();
    t->cores = t->pus;
    t->numa_nodes = 1;
    t->l1d = sysfs_cache(1, "Data");
    t->l2 = sysfs_cache(2, "Unified");
    t->l3 = sysfs_cache(3, "Unified");
    t->source = "sysfs";
}

static void size_str(size_t b, char *buf, size_t n)
{
    if (b >= (1u << 20) && b % (1u << 20) == 0) snprintf(buf, n, "%zu MiB", b >> 20);
    else snprintf(buf, n, "%zu KiB", b >> 10);
}

void clash_topology_describe(const clash_topology *t, char *buf, size_t n)
{
    char l1[32], l2[32], l3[32];
    size_str(t->l1d, l1, sizeof l1), size_str(t->l2, l2, sizeof l2), size_str(t->l3, l3, sizeof l3);
    snprintf(buf, n, "%d package%s, %d cores, %d PUs, %d NUMA node%s, L1d %s, L2 %s, L3 %s", t->packages,
             t->packages == 1 ? "" : "s", t->cores, t->pus, t->numa_nodes, t->numa_nodes == 1 ? "" : "s",
             t->l1d ? l1 : "?", t->l2 ? l2 : "?", t->l3 ? l3 : "?");
}
