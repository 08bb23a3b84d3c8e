/*
 * bvh.c — `clash bench bvh`: the hierarchies of issue 4 against their
 * targets, every variant side by side in one run, median of --repeat R.
 *
 *   clash bench bvh [--mesh FILE.obj] [--repeat R] [--faces F]
 *                   [--part 1|2] [--only V] [--builder sah|morton]
 *                   [--cache warm|cold|shared]
 *
 * Part 1, two meshes (default ../shared/data/meshes/stanford-bunny.obj; the
 * second copy at position (0.02, 0.01, 0), rotation_deg (10, 20, 30),
 * static, one step, all pairs; tests/data/test_bunny.c's scene).  Times one
 * whole step (S0..S6, the sum of the stage times) for
 *   bvh-kept      --midphase bvh, the run kept, 1 and 2 threads: the two
 *                 rigid objects' BVHs were built by a first step over their
 *                 local faces and are queried through the pose between
 *                 them (stages/mid/bvh_frames.c: no refit; the world face
 *                 boxes of the leaves the traversal reaches are made in S4);
 *                 also the median of each stage (1 thread) and the trees'
 *                 sizes;
 *   octree scratch  the report's method on a new run every time (nothing
 *                 kept: every buffer allocated and faulted in), 1 and 2
 *                 threads;
 *   bvh-scratch   --midphase bvh on a new run (build counted), 1 thread;
 *   bboxpipe      --midphase bboxpipe on a new run, 1 thread;
 *   octree steps  the report's method on a run kept across steps, as a
 *                 deforming scene's steps 2, 3, ... run: every step builds
 *                 its octree from scratch; only memory buffers are reused
 *                 (no tree, no list content), 1 and 2 threads;
 *   bvh-refit     --midphase bvh, the run kept, its trees refitted in the
 *                 world in each timed step (from the vertex positions, in
 *                 S1), 1 thread: what bvh-kept did before the frames path;
 *   bvh-kept plain  bvh-kept with S5 as before issue 17: a stage of its
 *                 own after S4, every candidate to ck_tritri (no float
 *                 filter), 1 thread.
 * Pair counts must agree (else exit 1).  Compare with
 *   clash-peer-fcl-mesh FILE.obj   (FCL OBBRSS query time, bench/peers).
 * --only V times variant V alone (0..9 in the order printed; profiling), or
 * a comma list of variants (--only 0,1,2,4: the issue-4 targets' four),
 * --builder the kept runs' BVH builder (default SAH).
 *
 * The caches (part 1, --cache).  FCL's query (clash-peer-fcl-mesh) runs
 * right after its models are built, so it finds them in cache.  The
 * variants here run in turn, and the two from scratch each allocate and
 * fault in a new run: a kept run's trees and leaf records were then out of
 * cache when its timed step began (on the graded torus its step took 30 %
 * longer than with its steps back to back, 2026-11-27).  So, like for like:
 *   warm    (default) a kept run makes one untimed step just before each
 *           timed one, as FCL builds its models just before its query;
 *   cold    before every timed step of every variant, a buffer of twice the
 *           last-level cache (64 MiB at least) is written and read, and
 *           clash-peer-fcl-mesh --cold does the same between its build and
 *           its query: both start from memory;
 *   shared  neither: each variant finds the caches as the one before left
 *           them (what this bench did before 2026-11-27).
 *
 * Part 2, refit of a deforming mesh: a UV sphere of about --faces F faces
 * (default 10^5) whose vertices are jittered before every repetition; times
 * the face boxes (S1 kernel), both builds (SAH, Morton), and the refits of
 * the Morton tree: from the face boxes (a gather into leaf order), straight
 * from the vertex positions (what the pipeline does: the S1 kernel over the
 * faces in leaf order, then the nodes), the same with the vertices numbered
 * by first use along the leaf order (as the scene store numbers them by
 * default), and the nodes alone.  Layout study
 * (Morton reordering of faces for locality): the refit from the face boxes
 * with the boxes in the generator's order, in a random order, and
 * renumbered along the tree's leaf order (the Morton curve).
 * --part 1 or 2 runs that part alone.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "clash/clash.h"
#include "clash_internal.h"

int clash_bench_bvh(int argc, char **argv);

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static double median(double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    return t[n / 2];
}

static double step_seconds(const clash_step_stats *st)
{
    double s = 0;
    for (int k = 0; k < CLASH_NSTAGES; ++k) s += st->seconds[k];
    return s;
}

static long long last_cand, last_boxed, kept_cand, kept_boxed;

/* --cache cold: every line of a buffer of twice the last-level cache (64
 * MiB at least) written and read, so that what a step reads next comes from
 * memory.  The buffer is made once (its first pass faults it in). */
static void evict_caches(void)
{
    static unsigned char *buf;
    static size_t n;
    if (!buf) {
        long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
        n = llc > 0 && 2 * (size_t)llc > ((size_t)64 << 20) ? 2 * (size_t)llc : (size_t)64 << 20;
        if (!(buf = malloc(n))) {
            fprintf(stderr, "clash: error: bench bvh: out of memory (--cache cold, %zu bytes)\n", n);
            exit(1);
        }
    }
    unsigned acc = 0;
    for (size_t i = 0; i < n; i += 64) buf[i] = (unsigned char)(buf[i] + 1), acc += buf[i];
    __asm__ volatile("" : : "r"(acc) : "memory"); /* the loop is not optimised away */
}

/* One step on run (or on a fresh run when run is NULL); returns its time, sets
 * *pairs, and when stages is not NULL its stage times (stages[k][rep]). */
static double one_step(clash_scene *sc, clash_run *run, int midphase, int threads, size_t *pairs, double **stages,
                       int rep)
{
    clash_error err;
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_STATIC, cfg.self_collision = 0, cfg.steps = 1, cfg.midphase = midphase, cfg.threads = threads;
    clash_run *r = run ? run : clash_run_create(sc, &cfg, &err);
    clash_pairs p;
    clash_step_stats st;
    if (!r || clash_step(r, 1, &p, &st, &err)) {
        fprintf(stderr, "clash: error: bench bvh: %s\n", err.msg);
        exit(1);
    }
    *pairs = p.count;
    if (stages) {
        for (int k = 0; k < CLASH_NSTAGES; ++k) stages[k][rep] = st.seconds[k];
        last_cand = st.candidates, last_boxed = st.faces_boxed;
    }
    if (!run) clash_run_destroy(r);
    return step_seconds(&st);
}

int clash_bench_bvh(int argc, char **argv)
{
    const char *mesh = NULL;
    int repeat = 7, faces = 100000, part = 0, builder = CLASH_INTERNAL_BVH_SAH;
    enum { CACHE_WARM, CACHE_COLD, CACHE_SHARED } cache = CACHE_WARM;
    unsigned want = 0x3ff; /* the variants timed (--only) */
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--mesh") && i + 1 < argc) mesh = argv[++i];
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc && atoi(argv[i + 1]) > 0) repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) { /* one variant (profiling) or a list */
            const char *v = argv[++i];
            want = 0;
            for (const char *c = v; *c; ++c)
                if (*c >= '0' && *c <= '9') want |= 1u << (*c - '0');
            if (!want) want = 0x3ff;
        }
        else if (!strcmp(argv[i], "--part") && i + 1 < argc) part = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--builder") && i + 1 < argc) /* the kept runs' BVH builder */
            builder = !strcmp(argv[++i], "morton") ? CLASH_INTERNAL_BVH_MORTON : CLASH_INTERNAL_BVH_SAH;
        else if (!strcmp(argv[i], "--faces") && i + 1 < argc && atoi(argv[i + 1]) >= 24) faces = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cache") && i + 1 < argc &&
                 (!strcmp(argv[i + 1], "warm") || !strcmp(argv[i + 1], "cold") || !strcmp(argv[i + 1], "shared"))) {
            ++i;
            cache = !strcmp(argv[i], "warm") ? CACHE_WARM : !strcmp(argv[i], "cold") ? CACHE_COLD : CACHE_SHARED;
        } else {
            fprintf(stderr,
                    "clash: error: bench bvh: bad option '%s' (--mesh FILE, --repeat R >= 1, --faces F >= 24, "
                    "--cache warm|cold|shared)\n",
                    argv[i]);
            return 2;
        }
    }
    int rc = 0;
    if (part == 2) goto part2;
    char path[1024];
    if (!mesh) {
        snprintf(path, sizeof path, "%s", "../shared/data/meshes/stanford-bunny.obj");
        mesh = path;
    }
    clash_mesh_desc md = {.name = "m", .kind = CLASH_MESH_FILE, .path = (char *)mesh, .scale = 1};
    clash_object_desc od[2] = {{.mesh = 0, .scale = 1},
                               {.mesh = 0, .scale = 1, .position = {0.02, 0.01, 0}, .rotation_deg = {10, 20, 30}}};
    clash_scene_desc d = {.name = "two-meshes", .steps = 1, .mode = CLASH_MODE_STATIC,
                          .nmeshes = 1, .meshes = &md, .nobjects = 2, .objects = od};
    clash_scene *sc;
    clash_error err;
    if (clash_scene_build(&d, &sc, &err)) {
        fprintf(stderr, "clash: error: %s\n", err.msg);
        return 2;
    }
    static const char *cache_name[] = {"warm", "cold", "shared"};
    printf("part 1: two copies of %s (%lld faces in all), static, one step; median (best) of %d, seconds; caches %s\n",
           mesh, (long long)clash_scene_faces(sc), repeat, cache_name[cache]);
    enum { NV = 10 };
    const char *names[NV] = {"bvh-kept 1T", "octree scratch 1T", "octree scratch 2T", "bvh-scratch 1T", "bvh-kept 2T",
                             "bboxpipe 1T", "octree steps 1T",   "octree steps 2T",   "bvh-refit 1T", "bvh-kept plain 1T"};
    double *t[NV], *sr[4][CLASH_NSTAGES]; /* stage times of bvh-kept 1T, octree steps 2T, octree scratch 2T and 1T */
    size_t np[NV];
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_STATIC, cfg.self_collision = 0, cfg.steps = 1, cfg.midphase = CLASH_MID_BVH, cfg.threads = 1;
    clash_run *keep1 = clash_run_create(sc, &cfg, &err);
    cfg.threads = 2;
    clash_run *keep2 = clash_run_create(sc, &cfg, &err);
    cfg.threads = 1;
    clash_run *refit1 = clash_run_create(sc, &cfg, &err);
    clash_run *plain1 = clash_run_create(sc, &cfg, &err);
    if (!keep1 || !keep2 || !refit1 || !plain1) {
        fprintf(stderr, "clash: error: bench bvh: %s\n", err.msg);
        return 1;
    }
    clash_internal_set_debug(keep1, CLASH_DEBUG_BVH_BUILDER, builder);
    clash_internal_set_debug(keep2, CLASH_DEBUG_BVH_BUILDER, builder);
    clash_internal_set_debug(refit1, CLASH_DEBUG_BVH_BUILDER, builder);
    /* the trees refitted in the world, as before the frames path */
    clash_internal_set_debug(refit1, CLASH_DEBUG_BVH_WORLD, 1);
    clash_internal_set_debug(refit1, CLASH_DEBUG_NARROW_PLAIN, 1);
    clash_internal_set_debug(plain1, CLASH_DEBUG_NARROW_PLAIN, 1);
    cfg.midphase = CLASH_MID_OCTREE, cfg.threads = 1;
    clash_run *oct1 = clash_run_create(sc, &cfg, &err);
    cfg.threads = 2;
    clash_run *oct2 = oct1 ? clash_run_create(sc, &cfg, &err) : NULL;
    if (!oct1 || !oct2) {
        fprintf(stderr, "clash: error: bench bvh: %s\n", err.msg);
        return 1;
    }
    size_t dummy;
    one_step(sc, oct1, 0, 0, &dummy, NULL, 0); /* first steps: the runs' buffers */
    one_step(sc, oct2, 0, 0, &dummy, NULL, 0);
    one_step(sc, keep1, 0, 0, &dummy, NULL, 0); /* builds the BVHs */
    for (int k = 0; k < CLASH_NSTAGES; ++k)
        sr[0][k] = calloc((size_t)repeat, sizeof(double)), sr[1][k] = calloc((size_t)repeat, sizeof(double)),
        sr[2][k] = calloc((size_t)repeat, sizeof(double)), sr[3][k] = calloc((size_t)repeat, sizeof(double));
    one_step(sc, keep2, 0, 0, &dummy, NULL, 0);
    one_step(sc, refit1, 0, 0, &dummy, NULL, 0);
    one_step(sc, plain1, 0, 0, &dummy, NULL, 0);
    for (int v = 0; v < NV; ++v) t[v] = malloc(sizeof(double) * (size_t)repeat);
    clash_run *const kept[NV] = {keep1, NULL, NULL, NULL, keep2, NULL, oct1, oct2, refit1, plain1}; /* --cache warm */
    for (int r = 0; r < repeat; ++r) /* interleaved: every variant sees the same machine load */
        for (int v = 0; v < NV; ++v) {
            if (!(want >> v & 1)) {
                t[v][r] = 0, np[v] = 0;
                continue;
            }
            if (cache == CACHE_WARM && kept[v]) one_step(sc, kept[v], 0, 0, &dummy, NULL, 0); /* untimed */
            if (cache == CACHE_COLD) evict_caches();
            switch (v) {
            case 0:
                t[v][r] = one_step(sc, keep1, 0, 0, &np[v], sr[0], r);
                kept_cand = last_cand, kept_boxed = last_boxed;
                break;
            case 1: t[v][r] = one_step(sc, NULL, CLASH_MID_OCTREE, 1, &np[v], sr[3], r); break;
            case 2: t[v][r] = one_step(sc, NULL, CLASH_MID_OCTREE, 2, &np[v], sr[2], r); break;
            case 3: t[v][r] = one_step(sc, NULL, CLASH_MID_BVH, 1, &np[v], NULL, r); break;
            case 4: t[v][r] = one_step(sc, keep2, 0, 0, &np[v], NULL, r); break;
            case 6: t[v][r] = one_step(sc, oct1, 0, 0, &np[v], NULL, r); break;
            case 7: t[v][r] = one_step(sc, oct2, 0, 0, &np[v], sr[1], r); break;
            case 8: t[v][r] = one_step(sc, refit1, 0, 0, &np[v], NULL, r); break;
            case 9: t[v][r] = one_step(sc, plain1, 0, 0, &np[v], NULL, r); break;
            default: t[v][r] = one_step(sc, NULL, CLASH_MID_BBOXPIPE, 1, &np[v], NULL, r); break;
            }
        }
    const int first = __builtin_ctz(want);
    for (int v = 0; v < NV; ++v) {
        if (!(want >> v & 1)) {
            free(t[v]);
            continue;
        }
        const double med = median(t[v], repeat);
        printf("  %-18s step %.7f (%.7f)  pairs=%zu%s\n", names[v], med, t[v][0], np[v],
               np[v] == np[first] ? "" : "  DIFFERS");
        if (np[v] != np[first]) rc = 1;
        free(t[v]);
    }
    if (want & 1) {
        /* S1 holds the refit (from the vertex positions), S4 the traversal */
        printf("  bvh-kept 1T by stage, medians:");
        for (int k = 0; k < CLASH_NSTAGES; ++k) printf(" %s %.6f", clash_stage_name(k), median(sr[0][k], repeat));
        int nodes[2], places[2];
        clash_internal_run_bvh_size(keep1, 0, &nodes[0], &places[0]);
        clash_internal_run_bvh_size(keep1, 1, &nodes[1], &places[1]);
        printf("; trees: %d + %d nodes, %d + %d leaf places; %lld candidates, %lld faces boxed\n", nodes[0], nodes[1],
               places[0], places[1], kept_cand, kept_boxed);
    }
    if (want >> 7 & 1) { /* where the 2-thread octree step goes */
        printf("  octree steps 2T by stage, medians:");
        for (int k = 0; k < CLASH_NSTAGES; ++k) printf(" %s %.6f", clash_stage_name(k), median(sr[1][k], repeat));
        printf("; %lld candidates\n", last_cand);
    }
    for (int w = 1; w <= 2; ++w) /* where the step from scratch goes, by team size (issue 17: suzanne's fixed
                                  * cost, and the stages that scale least from 1 to 2 threads) */
        if (want >> w & 1) {
            printf("  octree scratch %dT by stage, medians:", w);
            for (int k = 0; k < CLASH_NSTAGES; ++k)
                printf(" %s %.7f", clash_stage_name(k), median(sr[w == 1 ? 3 : 2][k], repeat));
            printf("\n");
        }
    for (int k = 0; k < CLASH_NSTAGES; ++k) free(sr[0][k]), free(sr[1][k]), free(sr[2][k]), free(sr[3][k]);
    clash_run_destroy(keep1), clash_run_destroy(keep2), clash_run_destroy(refit1), clash_run_destroy(plain1),
        clash_run_destroy(oct1),
        clash_run_destroy(oct2);
    clash_scene_destroy(sc);

    if (part == 1) return rc;
part2:;
    /* Part 2: refit of a deforming sphere. */
    int k = (int)floor((1 + sqrt(1 + (double)faces)) / 2 + 0.5);
    if (k < 3) k = 3;
    clash_mesh_arrays m;
    if (clash_internal_gen_sphere(4 * k * (k - 1), &m, &err)) {
        fprintf(stderr, "clash: error: %s\n", err.msg);
        return 1;
    }
    const int64_t nv = m.nv, nf = m.nf;
    float *x = malloc(sizeof(float) * (size_t)nv), *y = malloc(sizeof(float) * (size_t)nv), *z = malloc(sizeof(float) * (size_t)nv);
    int32_t *i0 = malloc(sizeof(int32_t) * (size_t)nf), *i1 = malloc(sizeof(int32_t) * (size_t)nf), *i2 = malloc(sizeof(int32_t) * (size_t)nf);
    float *bb = malloc(sizeof(float) * 6 * (size_t)nf);
    float *lx = bb, *ly = bb + nf, *lz = bb + 2 * nf, *hx = bb + 3 * nf, *hy = bb + 4 * nf, *hz = bb + 5 * nf;
    for (int64_t f = 0; f < nf; ++f) i0[f] = m.tri[3 * f], i1[f] = m.tri[3 * f + 1], i2[f] = m.tri[3 * f + 2];
    uint64_t s = 88172645463325252u;
    double *tb = malloc(sizeof(double) * (size_t)repeat), *tr = malloc(sizeof(double) * (size_t)repeat);
    double *ts = malloc(sizeof(double) * (size_t)repeat), *tmo = malloc(sizeof(double) * (size_t)repeat);
    double *tv = malloc(sizeof(double) * (size_t)repeat), *tn = malloc(sizeof(double) * (size_t)repeat);
    uint32_t *ids = malloc(sizeof(uint32_t) * (size_t)nf);
    for (int64_t f = 0; f < nf; ++f) ids[f] = (uint32_t)f;
    clash_internal_bvh *tree = clash_internal_bvh_create();
    if (!tree) {
        fprintf(stderr, "clash: error: out of memory\n");
        return 1;
    }
    float *const bx[6] = {lx, ly, lz, hx, hy, hz};      /* the face boxes, written by S1's kernel */
    const float *const rbx[6] = {lx, ly, lz, hx, hy, hz}; /* the same, read by the trees */
    for (int r = 0; r < repeat; ++r) {
        for (int64_t v = 0; v < nv; ++v) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            const float j = (float)((s >> 40) * (1.0 / 16777216.0) - 0.5) * 0.01f;
            x[v] = (float)m.xyz[3 * v] + j, y[v] = (float)m.xyz[3 * v + 1] - j, z[v] = (float)m.xyz[3 * v + 2] + 0.5f * j;
        }
        float olo[3] = {INFINITY, INFINITY, INFINITY}, ohi[3] = {-INFINITY, -INFINITY, -INFINITY};
        double t0 = clash_bench_now();
        clash_internal_face_boxes(nf, i0, i1, i2, x, y, z, bx, olo, ohi);
        tb[r] = clash_bench_now() - t0;
        t0 = clash_bench_now();
        clash_internal_bvh_build(tree, CLASH_INTERNAL_BVH_SAH, ids, (int32_t)nf, rbx);
        ts[r] = clash_bench_now() - t0;
        t0 = clash_bench_now();
        clash_internal_bvh_build(tree, CLASH_INTERNAL_BVH_MORTON, ids, (int32_t)nf, rbx);
        tmo[r] = clash_bench_now() - t0;
        for (int64_t f = 0; f < nf; ++f) lx[f] -= 1e-3f, hx[f] += 1e-3f; /* deform, then refit */
        t0 = clash_bench_now();
        clash_internal_bvh_refit(tree, rbx);
        tr[r] = clash_bench_now() - t0;
        if (clash_internal_bvh_set_faces(tree, i0, i1, i2)) {
            fprintf(stderr, "clash: error: out of memory\n");
            return 1;
        }
        for (int64_t v = 0; v < nv; ++v) x[v] += 1e-4f, z[v] -= 1e-4f; /* deform again */
        t0 = clash_bench_now();
        clash_internal_bvh_refit_faces(tree, x, y, z);
        tv[r] = clash_bench_now() - t0;
        t0 = clash_bench_now();
        clash_internal_bvh_refit_nodes(tree);
        tn[r] = clash_bench_now() - t0;
    }
    printf("part 2: deforming UV sphere, %lld faces, %lld vertices; median (best) of %d, milliseconds\n", (long long)nf,
           (long long)nv, repeat);
    printf("  face boxes (S1 kernel) %.3f\n", 1e3 * median(tb, repeat));
    printf("  build SAH %.3f   build Morton %.3f   (Morton: %d nodes of %zu bytes, %d leaf places)\n", 1e3 * median(ts, repeat),
           1e3 * median(tmo, repeat), clash_internal_bvh_nodes(tree), clash_internal_bvh_node_bytes(),
           clash_internal_bvh_places(tree));
    const double tr_med = median(tr, repeat);
    printf("  refit from the face boxes (gather into leaf order + nodes) %.3f (best %.3f)\n", 1e3 * tr_med, 1e3 * tr[0]);
    const double tv_med = median(tv, repeat), tn_med = median(tn, repeat);
    printf("  refit from the vertices (face boxes in leaf order by the S1 kernel + nodes) %.3f (best %.3f)\n",
           1e3 * tv_med, 1e3 * tv[0]);
    printf("  refit, nodes alone (from the leaf-order boxes) %.3f (best %.3f)\n", 1e3 * tn_med, 1e3 * tn[0]);
    {
        /* The same refit with the vertices numbered by first use along the
         * leaf order, as the scene store numbers them by default (reorder.c:
         * faces along the Morton curve, vertices by first use): the gathers
         * of the face boxes then walk the vertex arrays nearly in order. */
        int32_t *vnew = malloc(sizeof(int32_t) * (size_t)nv), *j[3];
        float *xyz2[3];
        for (int c = 0; c < 3; ++c)
            j[c] = malloc(sizeof(int32_t) * (size_t)nf), xyz2[c] = malloc(sizeof(float) * (size_t)nv);
        for (int64_t v = 0; v < nv; ++v) vnew[v] = -1;
        int32_t next = 0;
        const uint32_t *prim = clash_internal_bvh_prims(tree);
        for (int32_t q = 0; q < clash_internal_bvh_places(tree); ++q) {
            const uint32_t f = prim[q];
            const int32_t fv[3] = {i0[f], i1[f], i2[f]};
            for (int c = 0; c < 3; ++c)
                if (vnew[fv[c]] < 0) vnew[fv[c]] = next++;
        }
        for (int64_t v = 0; v < nv; ++v)
            if (vnew[v] < 0) vnew[v] = next++;
        for (int64_t f = 0; f < nf; ++f) j[0][f] = vnew[i0[f]], j[1][f] = vnew[i1[f]], j[2][f] = vnew[i2[f]];
        for (int64_t v = 0; v < nv; ++v) xyz2[0][vnew[v]] = x[v], xyz2[1][vnew[v]] = y[v], xyz2[2][vnew[v]] = z[v];
        if (clash_internal_bvh_set_faces(tree, j[0], j[1], j[2])) {
            fprintf(stderr, "clash: error: out of memory\n");
            return 1;
        }
        for (int r = 0; r < repeat; ++r) {
            for (int64_t v = 0; v < nv; ++v) xyz2[0][v] += 1e-4f, xyz2[2][v] -= 1e-4f; /* deform */
            const double t0 = clash_bench_now();
            clash_internal_bvh_refit_faces(tree, xyz2[0], xyz2[1], xyz2[2]);
            tv[r] = clash_bench_now() - t0;
        }
        const double tv2 = median(tv, repeat);
        printf("  refit from the vertices, vertices in first-use (store) order %.3f (best %.3f)\n", 1e3 * tv2,
               1e3 * tv[0]);
        free(vnew);
        for (int c = 0; c < 3; ++c) free(j[c]), free(xyz2[c]);
    }
    /* layout: face boxes in generator order / random order / leaf (Morton) order; same tree shape */
    float *pb = malloc(sizeof(float) * 6 * (size_t)nf);
    uint32_t *const prim = clash_internal_bvh_prims(tree);
    const int32_t nprim = clash_internal_bvh_places(tree);
    uint32_t *perm = malloc(sizeof(uint32_t) * (size_t)nf), *saved = malloc(sizeof(uint32_t) * (size_t)nprim);
    memcpy(saved, prim, sizeof(uint32_t) * (size_t)nprim);
    const char *lname[3] = {"generator order", "random order", "Morton (leaf) order"};
    for (int L = 0; L < 3; ++L) {
        /* perm[f] = new position of face f */
        for (int64_t f = 0; f < nf; ++f) perm[f] = (uint32_t)f;
        if (L == 1)
            for (int64_t f = nf - 1; f > 0; --f) {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                const int64_t g = (int64_t)(s % (uint64_t)(f + 1));
                const uint32_t tt = perm[f];
                perm[f] = perm[g], perm[g] = tt;
            }
        if (L == 2)
            for (int64_t q = 0, next = 0; q < nprim; ++q) /* the first place of each face */
                if (q % 4 == 0 || saved[q] != saved[q - q % 4]) perm[saved[q]] = (uint32_t)next++;
        for (int c = 0; c < 6; ++c)
            for (int64_t f = 0; f < nf; ++f) pb[(size_t)c * (size_t)nf + perm[f]] = bb[(size_t)c * (size_t)nf + (size_t)f];
        for (int64_t q = 0; q < nprim; ++q) prim[q] = perm[saved[q]];
        const float *const pbx[6] = {pb, pb + nf, pb + 2 * nf, pb + 3 * nf, pb + 4 * nf, pb + 5 * nf};
        for (int r = 0; r < repeat; ++r) {
            const double t0 = clash_bench_now();
            clash_internal_bvh_refit(tree, pbx);
            tr[r] = clash_bench_now() - t0;
        }
        printf("  refit, faces in %-20s %.3f\n", lname[L], 1e3 * median(tr, repeat));
    }
    clash_internal_bvh_destroy(tree);
    free(pb), free(perm), free(saved), free(ids), free(tb), free(tr), free(ts), free(tmo), free(tv), free(tn);
    free(x), free(y), free(z), free(i0), free(i1), free(i2), free(bb);
    clash_mesh_arrays_free(&m);
    return rc;
}
