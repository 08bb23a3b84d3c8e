/*
 * distance.c — `clash bench distance`: Zachmann's benchmark procedure
 * (seeds/[Zachmann00], §3.5.10), with the shared meshes (../shared/data/meshes).
 *
 * Two identical objects, scaled uniformly to fit a cube of edge 2 and
 * centred on their bounding-box centres, stand at distance d (between the
 * box centres, along x).  One of them makes a full revolution about the z
 * axis in a fixed number of small steps (2000; --quick: 200), with a
 * collision query (one clash step, static mode) at each step; the mean
 * query time of the revolution is the figure for that distance.  Then d
 * decreases and the revolution is repeated: d = 3.0, 2.8, ..., 0.2
 * (--quick: 3.0, 2.6, ..., 0.2).  Zachmann averages over the "interesting"
 * distances, two steps before to two steps after the contact distance (the
 * largest d at which any step collides); the YAML records that average.
 *
 * Meshes: --meshes a,b,... (names in the shared mesh folder, with or without
 * ".obj", or paths); default suzanne,teapot,cow (--quick: suzanne,teapot).
 * Each revolution is repeated --reps times (median of the means); the pairs
 * checksum must agree between repetitions.
 *
 * One thread unless --threads T is given.
 *
 * Output: distance.csv (mesh, faces, distance, steps, mean query ms,
 * colliding steps, pairs), distance.yaml, distance.png (query time against
 * distance, one curve per mesh, like Zachmann's Fig. 3.38).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/common.h"
#include "clash_internal.h"

#define MAX_MESHES 16
#define MAX_DIST 32

int clash_bench_distance(int argc, char **argv);
int clash_bench_distance(int argc, char **argv)
{
    static const char *const extra[] = {"--meshes", "--steps", NULL};
    bench_opts o;
    int rc = bench_parse("distance", argc, argv, extra, " [--meshes a,b,...] [--steps N (per revolution)]", &o);
    if (rc) return rc < 0 ? 0 : rc;
    if (!o.threads) o.threads = 1;   /* the papers timed one processor; --threads T to change */
    const int steps = o.steps ? o.steps : (o.quick ? 200 : 2000);
    const double dstep = o.quick ? 0.4 : 0.2;
    int nd = 0;
    double dist[MAX_DIST];
    for (double d = 3.0; d > 0.1 && nd < MAX_DIST; d -= dstep) dist[nd++] = d;

    char list[1024];
    snprintf(list, sizeof list, "%s", o.meshes ? o.meshes : (o.quick ? "suzanne,teapot" : "suzanne,teapot,cow"));
    char *names[MAX_MESHES], paths[MAX_MESHES][1024];
    int nm = 0;
    for (char *t = strtok(list, ","); t && nm < MAX_MESHES; t = strtok(NULL, ",")) {
        if (!bench_mesh_path(t, paths[nm], sizeof paths[nm]))
            return bench_fail(&o, CLASH_EINPUT, "--meshes: '%s' not found (shared meshes: %s)", t,
                              bench_mesh_dir() ? bench_mesh_dir() : "../shared/data/meshes missing");
        names[nm++] = t;
    }
    if (!nm) return bench_fail(&o, CLASH_EINPUT, "--meshes: empty list");

    clash_outfile fc, fy;
    FILE *c = bench_open(&o, &fc, "distance.csv");
    if (!c) return CLASH_EFAIL;
    FILE *y = bench_open(&o, &fy, "distance.yaml");
    if (!y) {
        clash_outfile_abort(&fc);
        return CLASH_EFAIL;
    }
    fprintf(c, "mesh,faces,distance,steps,mean_query_ms,colliding_steps,pairs\n");
    bench_yaml_header(y, &o);
    fprintf(y, "params: {procedure: \"Zachmann 2000, section 3.5.10\", mode: static, fit_cube_edge: 2.0,"
               " steps_per_revolution: %d, distance_start: 3.0, distance_step: %g, distances: %d}\n"
               "meshes:\n",
            steps, dstep, nd);
    const int total = nm * nd;
    int done = 0;
    double *v = calloc((size_t)o.reps, sizeof *v);
    for (int m = 0; m < nm && !rc; ++m) {
        clash_error err = {0};
        double extent;
        int64_t faces;
        if ((rc = bench_mesh_extent(paths[m], &extent, &faces, &err))) {
            bench_fail(&o, rc, "%s", err.msg);
            break;
        }
        const double scale = 2.0 / extent;
        double ms[MAX_DIST];
        int coll[MAX_DIST];
        uint64_t sums[MAX_DIST], cks[MAX_DIST];
        int contact = -1;
        for (int k = 0; k < nd && !rc; ++k) {
            char what[96];
            clash_scene *sc = NULL;
            char *json = bench_revolve_json(paths[m], scale, dist[k], steps);
            snprintf(what, sizeof what, "%s at d = %.1f", names[m], dist[k]);
            bench_progress(&o, what, done, total);
            rc = json ? bench_scene_json(json, ".", &sc, &err) : clash_internal_fail(&err, CLASH_EFAIL, "out of memory");
            free(json);
            if (rc) {
                bench_fail(&o, rc, "%s", err.msg);
                break;
            }
            clash_config cfg = clash_config_default();
            cfg.threads = o.threads;
            uint64_t sum0 = 0;
            int first = bench_first_rep(o.reps);
            for (int r = 0; r < o.reps && !rc; ++r) {
                bench_run br;
                if ((rc = bench_run_scene(sc, &cfg, &br, &err))) {
                    bench_fail(&o, rc, "%s: %s", what, err.msg);
                    break;
                }
                if (r == 0) {
                    sum0 = br.tot.checksum;
                    coll[k] = 0;
                    for (int s = 0; s < br.steps; ++s) coll[k] += br.step_pairs[s] > 0;
                    sums[k] = br.tot.pairs_total;
                    cks[k] = br.tot.checksum;
                } else if (br.tot.checksum != sum0) {
                    rc = bench_fail(&o, CLASH_EFAIL, "%s: validation failed: checksum differs between repetitions", what);
                }
                if (r >= first) v[r - first] = 1e3 * br.tot.wall_s / br.steps;
                bench_run_free(&br);
            }
            clash_scene_destroy(sc);
            if (rc) break;
            ms[k] = bench_median(v, o.reps - first);
            if (coll[k] && contact < 0) contact = k;
            fprintf(c, "%s,%lld,%.3f,%d,%.6g,%d,%llu\n", names[m], (long long)faces, dist[k], steps, ms[k], coll[k],
                    (unsigned long long)sums[k]);
            ++done;
        }
        if (rc) break;
        /* Zachmann's average over the interesting distances: contact - 2 .. contact + 2. */
        double avg = 0;
        int n = 0;
        for (int k = contact - 2; contact >= 0 && k <= contact + 2; ++k)
            if (k >= 0 && k < nd) avg += ms[k], ++n;
        fprintf(y, "  - {mesh: \"%s\", file: \"%s\", faces: %lld, scale: %.6g, contact_distance: %.3f,"
                   " mean_query_ms_interesting: %.5g, pairs: [",
                names[m], paths[m], (long long)faces, scale, contact >= 0 ? dist[contact] : -1.0, n ? avg / n : 0.0);
        for (int k = 0; k < nd; ++k) fprintf(y, "%s%llu", k ? ", " : "", (unsigned long long)sums[k]);
        fprintf(y, "], checksums: [");
        for (int k = 0; k < nd; ++k) fprintf(y, "%s\"%016llx\"", k ? ", " : "", (unsigned long long)cks[k]);
        fprintf(y, "]}\n");
    }
    free(v);
    if (rc) {
        clash_outfile_abort(&fc);
        clash_outfile_abort(&fy);
        return rc;
    }
    bench_progress(&o, "done", total, total);
    if (bench_close(&o, &fc) | bench_close(&o, &fy)) return CLASH_EFAIL;
    char script[2048];
    int n = snprintf(script, sizeof script,
                     "set terminal pngcairo size 800,500\nset output 'distance.png'\nset datafile separator ','\n"
                     "set title 'Zachmann 3.5.10: mean query time over one revolution (%d steps)'\n"
                     "set xlabel 'distance between box centres (objects fit a cube of edge 2)'\n"
                     "set ylabel 'ms per query'\nset grid\nset key top right\nplot ",
                     steps);
    for (int m = 0; m < nm; ++m)
        n += snprintf(script + n, sizeof script - (size_t)n,
                      "%s'distance.csv' using 3:(strcol(1) eq '%s' ? $5 : 1/0) with linespoints lw 2 title '%s'",
                      m ? ", " : "", names[m], names[m]);
    snprintf(script + n, sizeof script - (size_t)n, "\n");
    bench_plot(&o, "distance", script);
    if (!o.quiet) fprintf(stderr, "clash: bench distance: results in %s\n", o.out);
    return 0;
}
