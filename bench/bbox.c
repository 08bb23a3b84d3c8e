/*
 * bbox.c — `clash bench bbox`: the fine-grain face-box pipeline (stage S1)
 * against this machine's streaming bandwidth, and the layout study.
 *
 *   clash bench bbox [--quick] [--out DIR] [--faces N,...] [--threads T,...]
 *                    [--repeat R] [--chunks C,...] [--mode static|swept]
 *                    [--stores normal|streaming|both] [--order O,...]
 *                    [--reorder R,...]
 *
 * Part 1, bandwidth.  For each face count (default 10^5, 10^6, 10^7; quick:
 * 10^5, 10^6) one UV sphere of F = 4k(k-1) faces (the nearest valid count) is
 * built in memory, its state set (S0), and S1 — face boxes plus per-worker
 * object boxes, exactly the pipeline's clash_fg_boxes — is timed R times
 * after a warm-up for every backend (omp, pthreads) x partition (chunk,
 * stride) x team size x chunk size.  Figures of merit, the same for every
 * variant: faces/s, and GB/s counting each array the stage must touch once:
 *   indices 12 B/face + positions 12 B/vertex (24 swept) + boxes 24 B/face.
 * Beside them: STREAM copy and triad (stream.c) on the same backend and team,
 * measured in the same run.  Every variant's boxes are hashed and must equal
 * the first variant's (validation after timing; a mismatch exits 1).
 * --stores: how S1 writes the face boxes: ordinary stores (the pipeline's
 * choice, default), non-temporal streaming stores (no read for ownership of
 * the written lines; clash_fg_boxes_stores), or both as separate variants.
 * The byte count is the same for both (each array counted once).
 * --order (default input,morton,random): the faces' order in the scene
 * when the run is created: the UV sphere's own (band by band), Morton
 * (clash_scene_reorder_morton), or a seeded shuffle (clash_store_shuffle);
 * --reorder (morton, the pipeline's default, none, or both as a list):
 * the run's own store reordering (clash_config.reorder), which puts any
 * order into Morton order.  The boxes are hashed in the input numbering,
 * so every order and reordering must give the first variant's hash.
 *
 * Part 2, layout (Zachmann [Zachmann00] §3.10).  Transform n vertices from local to
 * world coordinates and reduce the object box inside the parallel section
 * (per-worker padded slots), in two layouts:
 *   SoA: lx[], ly[], lz[] read, wx[], wy[], wz[] written (clash's store);
 *   AoS: struct {float lx, ly, lz, wx, wy, wz;} per vertex, local and world
 *        coordinates interleaved (Zachmann's layout: 24 B, 2.7 vertices/line).
 * Each with the chunk and the stride partition (chunk size 0), at each team
 * size, n = 10^4 (Zachmann's size, in cache), 10^6 and (not quick) 10^7.
 *
 * Output in DIR (default bench/out/bbox): bbox.csv, layout.csv, bbox.yaml.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench.h"
#include "bench/stream.h"
#include "clash/clash.h"
#include "clash_internal.h"

int clash_bench_bbox(int argc, char **argv);

#define MAXL 16

static int parse_list(const char *opt, const char *v, long long lo, long long hi, long long *out, int *n)
{
    *n = 0;
    const char *p = v;
    while (*p) {
        char *end;
        errno = 0;
        long long x = strtoll(p, &end, 10);
        if (end == p || errno || x < lo || x > hi || (*end && *end != ',') || *n == MAXL) {
            fprintf(stderr, "clash: error: %s: expected a comma-separated list of integers in [%lld, %lld], got '%s'\n",
                    opt, lo, hi, v);
            return -1;
        }
        out[(*n)++] = x;
        p = *end ? end + 1 : end;
    }
    if (!*n) {
        fprintf(stderr, "clash: error: %s: empty list\n", opt);
        return -1;
    }
    return 0;
}

static int mkdirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; ++p)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

static uint64_t hash_floats(uint64_t h, const float *v, int64_t n)
{
    const uint32_t *u = (const uint32_t *)v;
    for (int64_t i = 0; i < n; ++i) h = (h ^ u[i]) * 1099511628211ULL;
    return h;
}

/* ---- layout study kernels --------------------------------------------------------- */

typedef struct aos_vertex {
    float lx, ly, lz, wx, wy, wz;
} aos_vertex;

typedef struct lay_slot {
    _Alignas(64) float lo[3], hi[3]; /* a cache line each: no false sharing between workers */
} lay_slot;

typedef struct lay_ctx {
    int aos;
    const float *lx, *ly, *lz;
    float *wx, *wy, *wz;
    aos_vertex *v;
    double m[9], t[3];
    lay_slot *slot;
} lay_ctx;

/* compare-and-select min/max, as in kernels/face_boxes.c (fminf would be a libm call) */
#define LMIN(a, b) ((b) < (a) ? (b) : (a))
#define LMAX(a, b) ((b) > (a) ? (b) : (a))

static void lay_range(int64_t b, int64_t e, int64_t step, int w, void *p)
{
    lay_ctx *c = p;
    const double *m = c->m, *t = c->t;
    float l0 = INFINITY, l1 = INFINITY, l2 = INFINITY, h0 = -INFINITY, h1 = -INFINITY, h2 = -INFINITY;
    if (c->aos) {
        aos_vertex *v = c->v;
        for (int64_t i = b; i < e; i += step) {
            const double x = v[i].lx, y = v[i].ly, z = v[i].lz;
            const float X = (float)(m[0] * x + m[1] * y + m[2] * z + t[0]);
            const float Y = (float)(m[3] * x + m[4] * y + m[5] * z + t[1]);
            const float Z = (float)(m[6] * x + m[7] * y + m[8] * z + t[2]);
            v[i].wx = X, v[i].wy = Y, v[i].wz = Z;
            l0 = LMIN(l0, X), l1 = LMIN(l1, Y), l2 = LMIN(l2, Z);
            h0 = LMAX(h0, X), h1 = LMAX(h1, Y), h2 = LMAX(h2, Z);
        }
    } else {
        const float *restrict lx = c->lx, *restrict ly = c->ly, *restrict lz = c->lz;
        float *restrict wx = c->wx, *restrict wy = c->wy, *restrict wz = c->wz;
        for (int64_t i = b; i < e; i += step) {
            const double x = lx[i], y = ly[i], z = lz[i];
            const float X = (float)(m[0] * x + m[1] * y + m[2] * z + t[0]);
            const float Y = (float)(m[3] * x + m[4] * y + m[5] * z + t[1]);
            const float Z = (float)(m[6] * x + m[7] * y + m[8] * z + t[2]);
            wx[i] = X, wy[i] = Y, wz[i] = Z;
            l0 = LMIN(l0, X), l1 = LMIN(l1, Y), l2 = LMIN(l2, Z);
            h0 = LMAX(h0, X), h1 = LMAX(h1, Y), h2 = LMAX(h2, Z);
        }
    }
    lay_slot *s = &c->slot[w];
    s->lo[0] = LMIN(s->lo[0], l0), s->lo[1] = LMIN(s->lo[1], l1), s->lo[2] = LMIN(s->lo[2], l2);
    s->hi[0] = LMAX(s->hi[0], h0), s->hi[1] = LMAX(s->hi[1], h1), s->hi[2] = LMAX(s->hi[2], h2);
}

static int layout_study(FILE *csv, const long long *threads, int nthr, int quick, int reps)
{
    const long long sizes[] = {10000, 1000000, 10000000};
    const int nsizes = quick ? 2 : 3;
    fprintf(stderr, "layout study: transform + object box, SoA vs AoS (local and world interleaved)\n");
    for (int si = 0; si < nsizes; ++si) {
        const int64_t n = sizes[si];
        float *a = aligned_alloc(64, (size_t)n * 6 * sizeof(float));
        aos_vertex *v = aligned_alloc(64, (size_t)n * sizeof(aos_vertex));
        lay_slot *slot = aligned_alloc(64, 64 * sizeof(lay_slot));
        double *ts = malloc((size_t)reps * sizeof *ts);
        if (!a || !v || !slot || !ts) {
            free(a), free(v), free(slot), free(ts);
            return -1;
        }
        for (int64_t i = 0; i < n; ++i) {
            const float x = (float)(i % 1000) * 0.01f, y = (float)(i / 1000 % 1000) * 0.01f, z = (float)(i % 7);
            a[i] = x, a[n + i] = y, a[2 * n + i] = z, a[3 * n + i] = a[4 * n + i] = a[5 * n + i] = 0;
            v[i] = (aos_vertex){x, y, z, 0, 0, 0};
        }
        /* batches of calls so a timing is >= ~20 ms even for 10^4 vertices */
        const int batch = n >= 1000000 ? 1 : (int)(2000000 / n);
        for (int ti = 0; ti < nthr; ++ti)
            for (int aos = 0; aos < 2; ++aos)
                for (int part = 0; part < 2; ++part)
                    for (int backend = 0; backend < 2; ++backend) {
                        lay_ctx c = {.aos = aos, .lx = a, .ly = a + n, .lz = a + 2 * n, .wx = a + 3 * n,
                                     .wy = a + 4 * n, .wz = a + 5 * n, .v = v, .slot = slot,
                                     .m = {0.36, 0.48, -0.8, -0.8, 0.6, 0, 0.48, 0.64, 0.6}, .t = {1, 2, 3}};
                        clash_internal_team *team =
                            clash_internal_team_create(backend, (int)threads[ti], part, 0, 0);
                        if (!team) {
                            free(a), free(v), free(slot), free(ts);
                            return -1;
                        }
                        for (int r = -1; r < reps; ++r) {
                            for (int w = 0; w < 64; ++w)
                                for (int d = 0; d < 3; ++d) slot[w].lo[d] = INFINITY, slot[w].hi[d] = -INFINITY;
                            const double t0 = clash_bench_now();
                            for (int k = 0; k < batch; ++k) clash_internal_team_for(team, n, lay_range, &c);
                            const double t1 = clash_bench_now();
                            if (r >= 0) ts[r] = (t1 - t0) / batch;
                        }
                        const int team_threads = clash_internal_team_threads(team);
                        clash_internal_team_destroy(team);
                        const double med = clash_bench_median(ts, reps);
                        /* merged object box: check against the first vertex's expected bounds */
                        float lo0 = INFINITY;
                        for (int w = 0; w < team_threads; ++w) lo0 = fminf(lo0, slot[w].lo[0]);
                        fprintf(csv, "%lld,%s,%s,%s,%d,%.6e,%.6e,%.6e,%.4f,%.6g\n", (long long)n,
                                aos ? "aos" : "soa", part ? "stride" : "chunk", backend ? "pthreads" : "omp",
                                team_threads, med, ts[0], ts[reps - 1], 24.0 * (double)n / med * 1e-9, (double)lo0);
                        fprintf(stderr, "  n=%-9lld %s %-6s %-8s T=%d  %9.3f us  %.2f GB/s\n", (long long)n,
                                aos ? "aos" : "soa", part ? "stride" : "chunk", backend ? "pthreads" : "omp",
                                team_threads, med * 1e6, 24.0 * (double)n / med * 1e-9);
                    }
        free(a), free(v), free(slot), free(ts);
    }
    return 0;
}

/* ---- the suite ---------------------------------------------------------------------- */

/* The face order the scene holds when the run is created (--order), and
 * the run's own store reordering (--reorder, clash_config.reorder). */
enum { ORDER_INPUT = 0, ORDER_MORTON = 1, ORDER_RANDOM = 2 };
static const char *const order_names[] = {"input", "morton", "random"};
static const char *const reorder_names[] = {"none", "morton"}; /* = CLASH_REORDER_NONE, _MORTON */

/* A comma-separated list of distinct names out of names[0..n) into out[]. */
static int parse_names(const char *opt, const char *v, const char *const *names, int n, int *out, int *nout)
{
    *nout = 0;
    for (const char *p = v;;) {
        const char *e = strchr(p, ',');
        const size_t len = e ? (size_t)(e - p) : strlen(p);
        int k = 0;
        while (k < n && (strlen(names[k]) != len || strncmp(p, names[k], len))) ++k;
        int dup = 0;
        for (int j = 0; j < *nout; ++j) dup |= k < n && out[j] == k;
        if (k == n || dup) {
            fprintf(stderr, "clash: error: %s: expected a comma-separated list of distinct names out of", opt);
            for (int j = 0; j < n; ++j) fprintf(stderr, "%s%s", j ? "|" : " ", names[j]);
            fprintf(stderr, ", got '%s'\n", v);
            return -1;
        }
        out[(*nout)++] = k;
        if (!e) return 0;
        p = e + 1;
    }
}

int clash_bench_bbox(int argc, char **argv)
{
    int quick = 0, reps = 5, mode = CLASH_MODE_STATIC, st0 = 0, st1 = 0;
    const char *out = "bench/out/bbox";
    long long faces[MAXL] = {100000, 1000000, 10000000}, thr[MAXL] = {1, 2}, chunks[MAXL] = {0};
    int nfaces = 3, nthr = 2, nchunks = 1, have_faces = 0;
    int orders[3] = {ORDER_INPUT, ORDER_MORTON, ORDER_RANDOM}, norders = 3;
    int reorders[2] = {CLASH_REORDER_MORTON}, nreorders = 1;
    for (int i = 0; i < argc; ++i) { /* argv: the arguments after the suite name */
        const char *a = argv[i];
        if (!strcmp(a, "--quick")) {
            quick = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "clash: error: bench bbox: %s: missing value (or unknown option)\n", a);
            return 2;
        }
        const char *v = argv[++i];
        long long r[MAXL];
        int nr;
        if (!strcmp(a, "--out")) out = v;
        else if (!strcmp(a, "--faces")) {
            if (parse_list(a, v, 100, 100000000, faces, &nfaces)) return 2;
            have_faces = 1;
        } else if (!strcmp(a, "--threads")) {
            if (parse_list(a, v, 1, 64, thr, &nthr)) return 2;
        } else if (!strcmp(a, "--chunks")) {
            if (parse_list(a, v, 0, 1LL << 30, chunks, &nchunks)) return 2;
        } else if (!strcmp(a, "--repeat")) {
            if (parse_list(a, v, 1, 1000, r, &nr) || nr != 1) return 2;
            reps = (int)r[0];
        } else if (!strcmp(a, "--stores")) {
            if (!strcmp(v, "normal")) st0 = st1 = 0;
            else if (!strcmp(v, "streaming")) st0 = st1 = 1;
            else if (!strcmp(v, "both")) st0 = 0, st1 = 1;
            else {
                fprintf(stderr, "clash: error: --stores: expected normal|streaming|both, got '%s'\n", v);
                return 2;
            }
        } else if (!strcmp(a, "--order")) {
            if (parse_names(a, v, order_names, 3, orders, &norders)) return 2;
        } else if (!strcmp(a, "--reorder")) {
            if (parse_names(a, v, reorder_names, 2, reorders, &nreorders)) return 2;
        } else if (!strcmp(a, "--mode")) {
            if (!strcmp(v, "static")) mode = CLASH_MODE_STATIC;
            else if (!strcmp(v, "swept")) mode = CLASH_MODE_SWEPT;
            else {
                fprintf(stderr, "clash: error: --mode: expected static|swept, got '%s'\n", v);
                return 2;
            }
        } else {
            fprintf(stderr, "clash: error: bench bbox: unknown option '%s'\n", a);
            return 2;
        }
    }
    if (quick && !have_faces) nfaces = 2;
    if (mkdirs(out)) {
        fprintf(stderr, "clash: error: --out: cannot create '%s'\n", out);
        return 2;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/bbox.csv", out);
    FILE *csv = fopen(path, "w");
    snprintf(path, sizeof path, "%s/layout.csv", out);
    FILE *lcsv = fopen(path, "w");
    snprintf(path, sizeof path, "%s/bbox.yaml", out);
    FILE *yaml = fopen(path, "w");
    if (!csv || !lcsv || !yaml) {
        fprintf(stderr, "clash: error: --out: cannot write into '%s'\n", out);
        if (csv) fclose(csv);
        if (lcsv) fclose(lcsv);
        if (yaml) fclose(yaml);
        return 2;
    }
    const clash_build_info *bi = clash_build();
    fprintf(yaml, "suite: bbox\nclash: %s\nbuild: {compiler: \"%s\", flags: \"%s\", type: %s, openmp: %s}\n",
            bi->version, bi->compiler, bi->flags, bi->build_type, bi->openmp ? "true" : "false");
    fprintf(yaml, "machine: {cores: %d}\nmode: %s\nrepeat: %d\n", clash_internal_cores(),
            mode == CLASH_MODE_SWEPT ? "swept" : "static", reps);
    fprintf(yaml, "bytes_counted: \"indices 12 B/face + positions %d B/vertex + boxes 24 B/face\"\n",
            mode == CLASH_MODE_SWEPT ? 24 : 12);
    fprintf(yaml, "stores: %s\n", st0 != st1 ? "both" : st0 ? "streaming" : "normal");
    fprintf(yaml, "orders: [");
    for (int k = 0; k < norders; ++k) fprintf(yaml, "%s%s", k ? ", " : "", order_names[orders[k]]);
    fprintf(yaml, "]\nreorders: [");
    for (int k = 0; k < nreorders; ++k) fprintf(yaml, "%s%s", k ? ", " : "", reorder_names[reorders[k]]);
    fprintf(yaml, "]\n");

    /* STREAM on every backend and team size */
    double stream_copy[2][MAXL], stream_triad[2][MAXL];
    const size_t sn = (size_t)(quick ? 1 << 24 : 1 << 25); /* 128 or 256 MiB per array */
    fprintf(yaml, "stream:  # STREAM-like, %zu doubles per array, median GB/s\n", sn);
    for (int b = 0; b < 2; ++b)
        for (int t = 0; t < nthr; ++t) {
            clash_stream_result sr;
            const int src = clash_stream_run(b, (int)thr[t], sn, reps, &sr);
            if (src) {
                fprintf(stderr, "clash: error: bench bbox: out of memory for the stream arrays\n");
                return 1;
            }
            stream_copy[b][t] = sr.copy_gbs, stream_triad[b][t] = sr.triad_gbs;
            fprintf(stderr, "stream %-8s T=%lld: copy %.2f GB/s, triad %.2f GB/s\n", b ? "pthreads" : "omp", thr[t],
                    sr.copy_gbs, sr.triad_gbs);
            fprintf(yaml, "  - {backend: %s, threads: %lld, copy_gbs: %.3f, triad_gbs: %.3f}\n",
                    b ? "pthreads" : "omp", thr[t], sr.copy_gbs, sr.triad_gbs);
        }

    fprintf(csv, "faces,vertices,mode,backend,partition,chunk,threads,median_s,min_s,max_s,faces_per_s,gbs,"
                 "stream_copy_gbs,stream_triad_gbs,pct_of_copy,pct_of_triad,stores,order,reorder\n");
    int status = 0;
    fprintf(yaml, "validation:\n");
    for (int fi = 0; fi < nfaces; ++fi) {
        uint64_t ref_hash = 0;
        int first = 1, fstatus = 0;
        int64_t nf = 0;
        for (int ov = 0; ov < norders * nreorders; ++ov) {
            const int order = orders[ov / nreorders], reorder = reorders[ov % nreorders];
            /* nearest valid UV-sphere count F = 4k(k-1) */
            const double kk = 0.5 * (1.0 + sqrt(1.0 + (double)faces[fi]));
            int k = (int)llround(kk);
            if (k < 2) k = 2;
            clash_mesh_desc md = {.name = "sphere", .kind = CLASH_MESH_SPHERE, .sphere_faces = 4 * k * (k - 1), .scale = 1};
            clash_object_desc od = {.mesh = 0, .scale = 10, .angular_velocity_deg = {1, 2, 3}, .velocity = {0.1, 0, 0}};
            clash_scene_desc d = {.name = "bbox-sphere", .steps = 1, .mode = mode, .nmeshes = 1, .meshes = &md,
                                  .nobjects = 1, .objects = &od};
            clash_scene *sc = NULL;
            clash_error err;
            if (clash_scene_build(&d, &sc, &err)) {
                fprintf(stderr, "clash: error: bench bbox: %s\n", err.msg);
                return 1;
            }
            /* the scene's face order as given to the run */
            if ((order == ORDER_MORTON && clash_scene_reorder_morton(sc, &err)) ||
                (order == ORDER_RANDOM && clash_internal_scene_shuffle(sc, 1, &err))) {
                fprintf(stderr, "clash: error: bench bbox: %s\n", err.msg);
                return 1;
            }
            clash_config cfg = clash_config_default();
            cfg.mode = mode, cfg.steps = 1, cfg.threads = 1, cfg.reorder = reorder;
            clash_run *run = clash_run_create(sc, &cfg, &err);
            if (!run || clash_internal_scene_set_state(sc, 1, &err)) {
                fprintf(stderr, "clash: error: bench bbox: %s\n", err.msg);
                return 1;
            }
            nf = clash_scene_faces(sc);
            const int64_t nv = clash_scene_vertices(sc);
            /* store place of each face in the input numbering: the boxes are
             * hashed in that numbering, so every order must give the same hash */
            int64_t *place = malloc((size_t)nf * sizeof *place);
            float *inorder = malloc((size_t)nf * sizeof *inorder);
            if (!place || !inorder) {
                fprintf(stderr, "clash: error: bench bbox: out of memory\n");
                return 1;
            }
            for (int64_t i = 0; i < nf; ++i) place[i] = clash_internal_face_store(sc, 0, i);
            const double bytes = 12.0 * (double)nf + (mode == CLASH_MODE_SWEPT ? 24.0 : 12.0) * (double)nv + 24.0 * (double)nf;
            double *ts = malloc((size_t)reps * sizeof *ts);
            for (int t = 0; t < nthr; ++t)
                for (int b = 0; b < 2; ++b)
                    for (int part = 0; part < 2; ++part)
                        for (int cv = 0; cv < nchunks * (st1 - st0 + 1); ++cv) {
                            const int c = cv / (st1 - st0 + 1), st = st0 + cv % (st1 - st0 + 1);
                            /* each variant its own team */
                            if (clash_internal_run_set_team(run, b, (int)thr[t], part, chunks[c], CLASH_SCHED_DYNAMIC)) {
                                fprintf(stderr, "clash: error: bench bbox: cannot start %lld threads\n", thr[t]);
                                return 1;
                            }
                            float *box[6];
                            clash_internal_run_face_boxes(run, box);
                            memset(box[0], 0, (size_t)nf * sizeof(float));
                            for (int r = -1; r < reps; ++r) {
                                const double t0 = clash_bench_now();
                                if (clash_internal_run_boxes(run, st)) {
                                    fprintf(stderr, "clash: error: bench bbox: out of memory\n");
                                    return 1;
                                }
                                const double t1 = clash_bench_now();
                                if (r >= 0) ts[r] = t1 - t0;
                            }
                            const double med = clash_bench_median(ts, reps);
                            uint64_t h = 1469598103934665603ULL;
                            float obox[6];
                            clash_internal_run_face_boxes(run, box); /* as S1 left them */
                            clash_internal_run_object_box(run, 0, obox);
                            for (int q = 0; q < 6; ++q) {
                                for (int64_t i = 0; i < nf; ++i) inorder[i] = box[q][place[i]];
                                h = hash_floats(h, inorder, nf);
                            }
                            h = hash_floats(h, obox, 6);
                            if (first) ref_hash = h, first = 0;
                            else if (h != ref_hash) {
                                fprintf(stderr,
                                        "bench bbox: VALIDATION FAILED: boxes differ for %s %s T=%lld chunk=%lld stores=%s "
                                        "order=%s reorder=%s\n",
                                        b ? "pthreads" : "omp", part ? "stride" : "chunk", thr[t], chunks[c],
                                        st ? "streaming" : "normal", order_names[order], reorder_names[reorder]);
                                status = fstatus = 1;
                            }
                            const double gbs = bytes / med * 1e-9;
                            fprintf(csv, "%lld,%lld,%s,%s,%s,%lld,%lld,%.6e,%.6e,%.6e,%.6e,%.4f,%.4f,%.4f,%.1f,%.1f,%s,%s,%s\n",
                                    (long long)nf, (long long)nv, mode == CLASH_MODE_SWEPT ? "swept" : "static",
                                    b ? "pthreads" : "omp", part ? "stride" : "chunk", chunks[c], thr[t], med, ts[0],
                                    ts[reps - 1], (double)nf / med, gbs, stream_copy[b][t], stream_triad[b][t],
                                    100 * gbs / stream_copy[b][t], 100 * gbs / stream_triad[b][t],
                                    st ? "streaming" : "normal", order_names[order], reorder_names[reorder]);
                            fprintf(stderr,
                                    "S1 %9lld faces %-6s/%-6s %-8s %-6s chunk=%-6lld T=%lld%s  %8.3f ms  %7.1f Mfaces/s  "
                                    "%6.2f GB/s  (%3.0f%% of copy, %3.0f%% of triad)\n",
                                    (long long)nf, order_names[order], reorder_names[reorder], b ? "pthreads" : "omp",
                                    part ? "stride" : "chunk", chunks[c], thr[t], st ? " nt" : "",
                                    med * 1e3, (double)nf / med * 1e-6, gbs, 100 * gbs / stream_copy[b][t],
                                    100 * gbs / stream_triad[b][t]);
                        }
            free(ts), free(place), free(inorder);
            clash_run_destroy(run);
            clash_scene_destroy(sc);
        }
        fprintf(yaml, "  - {faces: %lld, boxes_hash: \"%016llx\", identical_for_all_variants: %s}\n", (long long)nf,
                (unsigned long long)ref_hash, fstatus ? "false" : "true");
    }
    fprintf(lcsv, "vertices,layout,partition,backend,threads,median_s,min_s,max_s,gbs,box_lo_x\n");
    if (layout_study(lcsv, thr, nthr, quick, reps)) {
        fprintf(stderr, "clash: error: bench bbox: out of memory in the layout study\n");
        status = 1;
    }
    fprintf(yaml, "files: [bbox.csv, layout.csv]\nstatus: %s\n", status ? "validation-failed" : "ok");
    fclose(csv), fclose(lcsv), fclose(yaml);
    fprintf(stderr, "bench bbox: wrote %s/bbox.csv, layout.csv, bbox.yaml\n", out);
    return status;
}
