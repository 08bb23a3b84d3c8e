/*
 * suites.c — the table of `clash bench` suites.  Add a suite by writing
 * bench/NAME.c with `int clash_bench_NAME(int argc, char **argv)`, declaring
 * it below, adding a row, and listing the file in CMakeLists.txt
 * (CLASH_BENCH_SOURCES).
 */
#include <time.h>

#include "bench/bench.h"

double clash_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int clash_bench_bbox(int argc, char **argv);
int clash_bench_broadphase(int argc, char **argv);
int clash_bench_bvh(int argc, char **argv);
int clash_bench_peers(int argc, char **argv);
int clash_bench_cache(int argc, char **argv);
int clash_bench_papers(int argc, char **argv);
int clash_bench_distance(int argc, char **argv);
int clash_bench_scaling(int argc, char **argv);
int clash_bench_fig43(int argc, char **argv);
int clash_bench_cull(int argc, char **argv);
int clash_bench_api(int argc, char **argv);
int clash_bench_seeds(int argc, char **argv);

const clash_bench_suite clash_bench_suites[] = {
    {"bbox", "S1 face boxes vs STREAM bandwidth, chunk vs stride, SoA vs AoS layout", clash_bench_bbox},
    {"broadphase", "all overlapping pairs among N boxes (file of float32 boxes): column SAP and object BVH",
     clash_bench_broadphase},
    {"cull", "S3 (faces in overlap regions) against the team size, runs stepped side by side", clash_bench_cull},
    {"api", "the in-memory path (set_pose + advance) against the file path (clash_step), side by side",
     clash_bench_api},
    {"bvh", "two-mesh step (bvh refit, octree, bboxpipe) and BVH refit of a deforming 1e5-face mesh", clash_bench_bvh},
    {"peers", "clash against FCL, CGAL and Bullet: random boxes and two bunnies (needs the peer programs)",
     clash_bench_peers},
    {"cache", "simulated cache misses per stage under callgrind: face order, chunk/stride, midphase, SoA/AoS",
     clash_bench_cache},
    {"papers", "the papers' experiments: Table 1 scenes, sphere-size sweep, crowd, swept vs static",
     clash_bench_papers},
    {"distance", "Zachmann's procedure (001 3.5.10): query time against distance, one object revolving",
     clash_bench_distance},
    {"scaling", "strong and weak scaling over threads x ranks on the cluttered preset", clash_bench_scaling},
    {"fig43", "the report's Fig. 4.3: collision-step time against workers, every strategy, threads and ranks",
     clash_bench_fig43},
    {"seeds", "every midphase on the seed papers' own experiments, with each paper's claim checked",
     clash_bench_seeds},
    {NULL, NULL, NULL},
};
