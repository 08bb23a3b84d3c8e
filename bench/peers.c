/*
 * peers.c — `clash bench peers`: clash against FCL, CGAL and Bullet on the
 * same work, side by side in one run (issue 4's comparisons, as a suite).
 *
 *   boxes  N random boxes with about one overlap per box: all overlapping
 *          pairs; clash's sort-and-sweep (in process) against CGAL
 *          box_self_intersection_d, Bullet btDbvtBroadphase and FCL's
 *          DynamicAABBTreeCollisionManager (bench/peers/peer_boxes.cpp).
 *   mesh   two Stanford bunnies (the second at (0.02, 0.01, 0), rotated
 *          (10, 20, 30) degrees), static, all intersecting triangle pairs:
 *          clash's octree from scratch and kept-and-refitted BVHs against
 *          FCL OBBRSS collide() (query time; FCL's build reported apart).
 *
 * The peers are the programs clash-peer-boxes and clash-peer-fcl-mesh built
 * beside the clash binary when Debian's libfcl-dev, libcgal-dev and
 * libbullet-dev were found; without them the suite says so and exits 2.
 * Every peer's pair count must equal clash's (the peers check it with
 * --expect and the suite fails otherwise).  Writes peers.csv, peers.yaml and
 * peers.png (when gnuplot exists) into --out DIR.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "bench/common.h"

int clash_bench_peers(int argc, char **argv);

typedef struct row {
    char work[16], impl[64];
    long pairs;
    double seconds;
} row;

static int peer_path(const char *name, char *out, size_t n)
{
    char self[PATH_MAX];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) return -1;
    self[k] = 0;
    char *slash = strrchr(self, '/');
    if (!slash) return -1;
    *slash = 0;
    if ((size_t)snprintf(out, n, "%s/%s", self, name) >= n) return -1;
    return access(out, X_OK);
}

/* Runs cmd, appending one row per "KEY=impl pairs=N TIMEKEY=S" line. */
static int run_peer(const char *cmd, const char *work, const char *timekey, row *rows, int *nrows)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[512];
    int bad = 0;
    while (fgets(line, sizeof line, p)) {
        if (strstr(line, "DIFFERS")) bad = 1;
        char impl[48];
        long pairs;
        const char *t = strstr(line, timekey);
        if (strncmp(line, "peer=", 5) || !t || sscanf(line, "peer=%47s pairs=%ld", impl, &pairs) != 2) continue;
        row *r = &rows[(*nrows)++];
        snprintf(r->work, sizeof r->work, "%s", work);
        snprintf(r->impl, sizeof r->impl, "%s", impl);
        r->pairs = pairs;
        r->seconds = atof(t + strlen(timekey));
    }
    const int st = pclose(p);
    return bad || st != 0 ? -1 : 0;
}

/* clash's own numbers, from `clash bench` suites run in a child (same binary). */
static int run_clash(const char *cmd, const char *prefix, const char *work, const char *impl, row *rows, int *nrows)
{
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, p)) {
        long pairs;
        double s;
        if (!strncmp(line, prefix, strlen(prefix)) &&
            sscanf(line + strlen(prefix), " pairs=%ld seconds=%lf", &pairs, &s) == 2) {
            row *r = &rows[(*nrows)++];
            snprintf(r->work, sizeof r->work, "%s", work);
            snprintf(r->impl, sizeof r->impl, "%s", impl);
            r->pairs = pairs, r->seconds = s, found = 1;
        }
    }
    return pclose(p) == 0 && found ? 0 : -1;
}

int clash_bench_peers(int argc, char **argv)
{
    static const char *const extra[] = {NULL};
    bench_opts o;
    int rc = bench_parse("peers", argc, argv, extra,
                         "clash bench peers [--quick] [--out DIR] [--reps N]: clash against FCL, CGAL and Bullet", &o);
    if (rc) return rc < 0 ? 0 : rc;
    char pb[PATH_MAX], pm[PATH_MAX], self[PATH_MAX];
    if (peer_path("clash-peer-boxes", pb, sizeof pb) || peer_path("clash-peer-fcl-mesh", pm, sizeof pm))
        return bench_fail(&o, 2, "the peer programs were not built (install libfcl-dev libcgal-dev libbullet-dev "
                                 "and reconfigure; -DCLASH_WITH_PEERS=ON)");
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) return bench_fail(&o, 1, "cannot find the clash binary");
    self[k] = 0;
    const char *mdir = bench_mesh_dir();
    const long nboxes = o.quick ? 100000 : 1000000;
    row rows[32];
    int nrows = 0;
    char boxes[PATH_MAX], cmd[4 * PATH_MAX];
    snprintf(boxes, sizeof boxes, "%s/boxes-%ld.bin", o.out, nboxes);
    bench_progress(&o, "generating boxes", 0, 4);
    snprintf(cmd, sizeof cmd, "'%s' bench broadphase --generate %ld --out '%s' --seed 1 >/dev/null 2>&1", self, nboxes, boxes);
    if (system(cmd)) return bench_fail(&o, 1, "generating %ld boxes failed", nboxes);
    bench_progress(&o, "clash boxes", 1, 4);
    snprintf(cmd, sizeof cmd, "'%s' bench broadphase --boxes '%s' --repeat %d --threads 1", self, boxes, o.reps);
    if (run_clash(cmd, "", "boxes", "clash-sap", rows, &nrows)) return bench_fail(&o, 1, "clash broadphase failed");
    const long expect = rows[nrows - 1].pairs;
    bench_progress(&o, "FCL, CGAL, Bullet boxes", 2, 4);
    snprintf(cmd, sizeof cmd, "'%s' '%s' --repeat %d --expect %ld 2>&1", pb, boxes, o.quick ? 1 : 3, expect);
    if (run_peer(cmd, "boxes", "median=", rows, &nrows))
        return bench_fail(&o, 1, "a box peer failed or found a different pair count");
    if (mdir) {
        bench_progress(&o, "two bunnies", 3, 4);
        snprintf(cmd, sizeof cmd, "'%s' bench bvh --mesh '%s/stanford-bunny.obj' --repeat %d 2>&1", self, mdir, o.reps);
        FILE *p = popen(cmd, "r");
        long mesh_pairs = -1;
        if (p) {
            char line[512];
            while (fgets(line, sizeof line, p)) {
                /* "  bvh-kept 1T         step 0.048 (0.038)  pairs=2843" (bench/bvh.c) */
                const char *st = strstr(line, " step ");
                long pairs;
                double med;
                if (st && sscanf(st, " step %lf (%*f) pairs=%ld", &med, &pairs) == 2) {
                    char name[40];
                    const char *b = line;
                    while (*b == ' ') ++b;
                    int n = (int)(st - b);
                    while (n > 0 && b[n - 1] == ' ') --n;
                    if (n > (int)sizeof name - 1) n = (int)sizeof name - 1;
                    memcpy(name, b, (size_t)n);
                    name[n] = 0;
                    for (char *c = name; *c; ++c)
                        if (*c == ' ') *c = '-';
                    row *r = &rows[nrows++];
                    snprintf(r->work, sizeof r->work, "bunnies");
                    snprintf(r->impl, sizeof r->impl, "clash-%s", name);
                    r->pairs = mesh_pairs = pairs, r->seconds = med;
                }
            }
            pclose(p);
        }
        snprintf(cmd, sizeof cmd, "'%s' '%s/stanford-bunny.obj' --repeat %d%s%ld 2>&1", pm, mdir, o.reps,
                 mesh_pairs >= 0 ? " --expect " : " --repeat ", mesh_pairs >= 0 ? mesh_pairs : (long)o.reps);
        if (run_peer(cmd, "bunnies", "query_median=", rows, &nrows))
            return bench_fail(&o, 1, "the FCL mesh peer failed or found a different pair count");
    }
    bench_progress(&o, "done", 4, 4);
    clash_outfile cf, yf;
    FILE *csv = bench_open(&o, &cf, "peers.csv");
    if (!csv) return 1;
    fprintf(csv, "work,impl,pairs,median_s\n");
    for (int i = 0; i < nrows; ++i) fprintf(csv, "%s,%s,%ld,%.6g\n", rows[i].work, rows[i].impl, rows[i].pairs, rows[i].seconds);
    if (bench_close(&o, &cf)) return 1;
    FILE *y = bench_open(&o, &yf, "peers.yaml");
    if (!y) return 1;
    bench_yaml_header(y, &o);
    fprintf(y, "params: {boxes: %ld, mesh: stanford-bunny.obj}\nresults:\n", nboxes);
    for (int i = 0; i < nrows; ++i)
        fprintf(y, "  - {work: %s, impl: %s, pairs: %ld, median_s: %.6g}\n", rows[i].work, rows[i].impl, rows[i].pairs,
                rows[i].seconds);
    fprintf(y, "validation: {pair_counts_equal: true}\n");
    if (bench_close(&o, &yf)) return 1;
    bench_plot(&o, "peers",
               "set terminal pngcairo size 900,500\nset output 'peers.png'\nset datafile separator ','\n"
               "set style data histograms\nset style fill solid 0.8\nset logscale y\nset ylabel 'median seconds'\n"
               "set xtics rotate by -30\nset title 'clash against FCL, CGAL, Bullet (1 thread)'\n"
               "plot 'peers.csv' every ::1 using 4:xtic(stringcolumn(1).' '.stringcolumn(2)) notitle\n");
    for (int i = 0; i < nrows; ++i)
        printf("%-8s %-24s pairs=%-8ld median=%.4g s\n", rows[i].work, rows[i].impl, rows[i].pairs, rows[i].seconds);
    return 0;
}
