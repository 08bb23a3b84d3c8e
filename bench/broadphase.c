/*
 * broadphase.c — `clash bench broadphase`: all overlapping pairs among N
 * boxes, the object-level broad phase at scale (issue 4, target 2).
 *
 *   clash bench broadphase --generate N --out FILE [--seed S]
 *   clash bench broadphase --boxes FILE [--threads T] [--repeat R] [--method sap|bvh|all]
 *
 * FILE holds N boxes as little-endian float32 lo_x lo_y lo_z hi_x hi_y hi_z
 * (24 bytes per box, no header).  --generate writes N boxes with centres
 * uniform in the cube [0, L)^3 and edges uniform in [0.5, 1.5) per axis,
 * L = 2 N^(1/3), so a box overlaps about one other on average (about N/2
 * pairs): the workload the peers in bench/peers run on the same file.
 *
 * --boxes times each method R times (default 5) on T threads (default 1):
 *   sap  sort-and-sweep in y-z columns (src/stages/broad_sap.c),
 *   bvh  Morton-built object BVH, one query per box (src/stages/broad_bvh.c);
 * prints one line per method (best, median), checks that all methods find
 * the same pair set (sorted keys compared), and ends with the line
 *   pairs=<count> seconds=<best of R>
 * for the fastest method.  Bad options or a bad file: exit 2.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "clash/clash.h"
#include "clash_internal.h"

int clash_bench_broadphase(int argc, char **argv);

static int usage_error(const char *msg, const char *arg)
{
    fprintf(stderr, "clash: error: bench broadphase: %s%s%s\n", msg, arg ? " " : "", arg ? arg : "");
    return 2;
}

static int parse_long(const char *opt, const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || errno || *end || end == v || x < lo || x > hi) {
        fprintf(stderr, "clash: error: bench broadphase: %s: expected an integer in [%ld, %ld], got '%s'\n", opt, lo,
                hi, v ? v : "");
        return 2;
    }
    *out = x;
    return 0;
}

static uint64_t rng_state;
static double urand(void)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static int generate(long n, const char *path, long seed)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) return usage_error("--out: path too long", NULL);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "clash: error: --out %s: %s\n", path, strerror(errno));
        return 2;
    }
    rng_state = 0x9e3779b97f4a7c15u ^ (uint64_t)seed * 0xbf58476d1ce4e5b9u;
    if (!rng_state) rng_state = 1;
    const double L = 2.0 * cbrt((double)n);
    int ok = 1;
    for (long i = 0; i < n && ok; ++i) {
        float b[6];
        for (int d = 0; d < 3; ++d) {
            const double c = L * urand(), e = 0.5 + urand();
            b[d] = (float)(c - 0.5 * e), b[3 + d] = (float)(c + 0.5 * e);
        }
        unsigned char le[24];
        for (int k = 0; k < 6; ++k) {
            uint32_t u;
            memcpy(&u, &b[k], 4);
            for (int j = 0; j < 4; ++j) le[4 * k + j] = (unsigned char)(u >> (8 * j));
        }
        ok = fwrite(le, 24, 1, f) == 1;
    }
    if (fclose(f) || !ok || rename(tmp, path)) {
        remove(tmp);
        fprintf(stderr, "clash: error: --out %s: write failed\n", path);
        return 1;
    }
    fprintf(stderr, "wrote %ld boxes to %s (cube edge %.3f)\n", n, path, L);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int clash_bench_broadphase(int argc, char **argv)
{
    const char *boxes = NULL, *out = NULL, *method = "all";
    long gen = -1, seed = 1, threads = 1, repeat = 5;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int rc = 0;
        if (!strcmp(a, "--boxes") && v) boxes = v, ++i;
        else if (!strcmp(a, "--out") && v) out = v, ++i;
        else if (!strcmp(a, "--method") && v) method = v, ++i;
        else if (!strcmp(a, "--generate")) rc = parse_long(a, v, 0, 2000000000L, &gen), ++i;
        else if (!strcmp(a, "--seed")) rc = parse_long(a, v, 0, 1L << 62, &seed), ++i;
        else if (!strcmp(a, "--threads")) rc = parse_long(a, v, 1, 4096, &threads), ++i;
        else if (!strcmp(a, "--repeat")) rc = parse_long(a, v, 1, 100000, &repeat), ++i;
        else return usage_error("unknown option or missing value:", a);
        if (rc) return rc;
    }
    if (strcmp(method, "sap") && strcmp(method, "bvh") && strcmp(method, "all"))
        return usage_error("--method: expected sap, bvh or all, got", method);
    if (gen >= 0) {
        if (!out) return usage_error("--generate needs --out FILE", NULL);
        return generate(gen, out, seed);
    }
    if (!boxes) return usage_error("give --boxes FILE (or --generate N --out FILE)", NULL);
    FILE *f = fopen(boxes, "rb");
    if (!f) {
        fprintf(stderr, "clash: error: --boxes %s: %s\n", boxes, strerror(errno));
        return 2;
    }
    fseek(f, 0, SEEK_END);
    const long bytes = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (bytes < 0 || bytes % 24 || bytes / 24 > 0xfffffffeL) {
        fclose(f);
        fprintf(stderr, "clash: error: --boxes %s: size %ld is not a multiple of 24 bytes (6 float32 per box)\n", boxes,
                bytes);
        return 2;
    }
    const int64_t n = bytes / 24;
    unsigned char *raw = malloc((size_t)(bytes ? bytes : 1));
    float *soa = malloc(sizeof(float) * 6 * (size_t)(n ? n : 1));
    if (!raw || !soa || fread(raw, 1, (size_t)bytes, f) != (size_t)bytes) {
        fclose(f), free(raw), free(soa);
        fprintf(stderr, "clash: error: --boxes %s: read failed\n", boxes);
        return 2;
    }
    fclose(f);
    for (int64_t i = 0; i < n; ++i)
        for (int k = 0; k < 6; ++k) {
            const unsigned char *p = raw + 24 * i + 4 * k;
            const uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            memcpy(&soa[(size_t)k * (size_t)n + (size_t)i], &u, 4);
        }
    free(raw);
    const float *const bx[6] = {soa, soa + n, soa + 2 * n, soa + 3 * n, soa + 4 * n, soa + 5 * n};
    const char *names[2] = {"sap", "bvh"};
    const int methods[2] = {CLASH_INTERNAL_BROAD_SAP, CLASH_INTERNAL_BROAD_BVH};
    clash_internal_broad *kb = clash_internal_broad_create((int)threads);
    double *t = malloc(sizeof(double) * (size_t)repeat), best_all = INFINITY;
    uint64_t *ref = NULL;
    size_t nref = 0;
    int rc = 0;
    long long best_pairs = -1;
    fprintf(stderr, "%lld boxes, %ld thread(s), best and median of %ld\n", (long long)n, threads, repeat);
    for (int m = 0; m < 2 && !rc; ++m) {
        if (strcmp(method, "all") && strcmp(method, names[m])) continue;
        size_t np = 0;
        for (long r = 0; r < repeat; ++r) {
            const double t0 = clash_bench_now();
            if (!kb || clash_internal_broad_run(kb, methods[m], n, bx, 0.0f)) {
                fprintf(stderr, "clash: error: bench broadphase: out of memory\n");
                rc = 1;
                break;
            }
            t[r] = clash_bench_now() - t0;
            np = clash_internal_broad_pairs(kb, NULL);
        }
        if (rc) break;
        qsort(t, (size_t)repeat, sizeof *t, cmp_double);
        printf("method=%s pairs=%zu best=%.6f median=%.6f\n", names[m], np, t[0], t[repeat / 2]);
        /* validation after timing: every method the same pair set */
        uint64_t *all = malloc(sizeof(uint64_t) * (np ? np : 1));
        clash_internal_broad_pairs(kb, all);
        const size_t u = clash_internal_sort_unique_u64(all, np);
        if (u != np) {
            fprintf(stderr, "clash: error: bench broadphase: %s reported %zu duplicate pairs\n", names[m], np - u);
            rc = 1;
        }
        if (!ref) {
            ref = all, nref = u;
        } else {
            if (u != nref || memcmp(all, ref, u * sizeof *all)) {
                fprintf(stderr, "clash: error: bench broadphase: %s found %zu pairs, %s %zu (or different ones)\n",
                        names[m], u, names[0], nref);
                rc = 1;
            }
            free(all);
        }
        if (t[0] < best_all) best_all = t[0], best_pairs = (long long)np;
    }
    if (!rc) printf("pairs=%lld seconds=%.6f\n", best_pairs, best_all);
    clash_internal_broad_destroy(kb);
    free(t), free(ref), free(soa);
    return rc;
}
