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
int clash_bench_scale(int argc, char **argv);
int clash_bench_ccd(int argc, char **argv);
int clash_bench_ccdrun(int argc, char **argv);

/* The options common to the suites parsed by bench_parse (common.c). */
#define COMMON "[--quick] [--out DIR] [--reps N] [--threads T] [--quiet]"

const clash_bench_suite clash_bench_suites[] = {
    {"bbox", "S1 face boxes vs STREAM bandwidth, chunk vs stride, SoA vs AoS layout",
     "[--quick] [--out DIR] [--faces N,...] [--threads T,...] [--chunks C,...] [--repeat R]\n"
     "    [--stores normal|streaming|both] [--mode static|swept] [--order input,morton,random] [--reorder none,morton]\n"
     "  writes DIR/bbox.csv, layout.csv, bbox.yaml (default DIR bench/out/bbox)",
     clash_bench_bbox},
    {"broadphase", "all overlapping pairs among N boxes (file of float32 boxes): column SAP and object BVH",
     "--generate N --out FILE [--seed S]\n"
     "  clash bench broadphase --boxes FILE [--threads T] [--repeat R] [--method sap|bvh|all]\n"
     "  prints one line per method and last pairs=<count> seconds=<best>",
     clash_bench_broadphase},
    {"cull", "S3 (faces in overlap regions) against the team size, runs stepped side by side",
     "[--objects N] [--seed S] [--scene FILE] [--steps K] [--threads T,...] [--repeat R]\n"
     "    [--block B] [--backend omp|pthreads] [--self]\n"
     "  prints only",
     clash_bench_cull},
    {"api", "the in-memory path (set_pose + advance) against the file path (clash_step), side by side",
     "[SCENE.json] [--objects N] [--seed S] [--density D] [--steps K] [--threads T] [--repeat R]\n"
     "    [--block B] [--mode static|swept] [--backend omp|pthreads]\n"
     "  prints the ratio of the two paths' step times",
     clash_bench_api},
    {"bvh", "two-mesh step (bvh refit, octree, bboxpipe) and BVH refit of a deforming 1e5-face mesh",
     "[--mesh FILE.obj] [--repeat R] [--faces F] [--part 1|2] [--only V] [--builder sah|morton]\n"
     "    [--cache warm|cold|shared]\n"
     "  prints only",
     clash_bench_bvh},
    {"peers", "clash against FCL, CGAL and Bullet: random boxes and two bunnies (needs the peer programs)",
     COMMON "\n  writes DIR/peers.csv, peers.yaml (default DIR bench-out/peers)", clash_bench_peers},
    {"cache", "simulated cache misses per stage under callgrind: face order, chunk/stride, midphase, SoA/AoS",
     "[--quick] [--out DIR] [--sim-ll SIZE,ASSOC,LINE]\n"
     "  writes DIR/cache.csv (default DIR bench-cache) and prints a table",
     clash_bench_cache},
    {"papers", "the papers' experiments: Table 1 scenes, sphere-size sweep, crowd, swept vs static",
     COMMON "\n  writes DIR/papers_table1.csv, papers_sweep.csv, papers_crowd.csv, papers_swept.csv, papers.yaml\n"
     "  (default DIR bench-out/papers)",
     clash_bench_papers},
    {"distance", "Zachmann's procedure ([Zachmann00] 3.5.10): query time against distance, one object revolving",
     COMMON "\n    [--meshes a,b,...] [--steps N]\n  writes DIR/distance.csv, distance.yaml (default DIR bench-out/distance)",
     clash_bench_distance},
    {"scaling", "strong and weak scaling over threads x ranks on the cluttered preset",
     COMMON "\n    [--thread-list 1,2,4] [--ranks 1,2] [--objects N] [--steps S]\n"
     "  writes DIR/scaling_strong.csv, scaling_weak.csv, scaling.yaml (default DIR bench-out/scaling)\n"
     "  or --weak [--decompose objects|replicated] [--objects N per worker] [--ranks 1,2] [--thread-list 1]\n"
     "  [--seed N] [--control]: weak scaling of tiles of the cluttered preset, one tile per worker, run with\n"
     "  --decompose objects (--control: also R independent one-rank runs at once, the machine's own cost);\n"
     "  writes DIR/scaling_weak_objects.csv, scaling_weak_objects.yaml, weak-pP.json",
     clash_bench_scaling},
    {"scale", "time per step and per face from 10^4 to 10^7 faces (cluttered, density 0.1), 1 and 2 threads",
     COMMON "\n    [--steps S]\n  writes DIR/scale.csv, scale.yaml, scale.png (default DIR bench-out/scale)",
     clash_bench_scale},
    {"fig43", "the report's Fig. 4.3: collision-step time against workers, every strategy, threads and ranks",
     COMMON "\n    [--workers 1,2,...] [--ranks 1,2,...|none] [--repeat R] [--measure K]\n"
     "    [--scene FILE | --preset NAME [--objects N] [--seed S] [--detail D] [--density X]]\n"
     "  writes DIR/fig43.csv, fig43.yaml, fig43_table.md, fig43_scene.json (default DIR bench-out/fig43)",
     clash_bench_fig43},
    {"seeds", "every midphase on the seed papers' own experiments, with each paper's claim checked",
     "[--quick] [--out DIR] [--reps N] [--midphases a,b,...] [--meshes a,b]\n"
     "  writes DIR/seeds_EXP.csv for each experiment, seeds.yaml (claims:) and plots",
     clash_bench_seeds},
    {"ccd", "CCD kernel time per query (median, mean, p90, max; batch) on each set of the CCD benchmark",
     "[--data DIR] [--repeat R] [--ccd-tolerance T] [--min-separation D]\n"
     "  prints only (DIR: the ccd-queries folder, default beside the shared meshes)",
     clash_bench_ccd},
    {"ccd-run", "--ccd in a run on the ccd-frames scenes: the step with and without the CCD, time per primitive pair",
     "[--data DIR] [--repeat R] [--threads T]\n"
     "  prints only (DIR: the shared data folder, default ../shared/data)",
     clash_bench_ccdrun},
    {NULL, NULL, NULL, NULL},
};
