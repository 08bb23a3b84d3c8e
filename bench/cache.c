/*
 * cache.c — `clash bench cache [--quick] [--out DIR] [--sim-ll SIZE,ASSOC,LINE]`:
 * the cache study.  Every variant runs under valgrind's callgrind with cache
 * simulation, collecting only inside regions, and the suite reports
 * simulated L1D misses (D1mr+D1mw) and last-level misses (DLmr+DLmw) per
 * stage, per stage item and per face, side by side (counts zeroed entering
 * each region and dumped leaving it).
 *
 * Studies (each variant is one child process:
 *   valgrind --tool=callgrind --cache-sim=yes -q
 *            --LL=SIZE,ASSOC,LINE --callgrind-out-file=DIR/cg.VARIANT  clash run SCENE --counters callgrind ...
 * and the parent parses DIR/cg.VARIANT.N, one dump per stage region):
 *   order      the same two-sphere scene with its mesh's faces in input
 *              order (the UV generator's bands), Morton order (faces sorted
 *              by the Morton code of their centroid, vertices renumbered by
 *              first use) and random order (faces and vertices shuffled).
 *              The permuted meshes are written as OBJ files into DIR.  A
 *              fourth variant loads the random file with --reorder morton:
 *              the store itself reordered in memory (reorder.c).
 *   partition  chunk against stride for the fine-grain stages, 2 threads.
 *   midphase   the face octree against the brute-force oracle (and the BVH
 *              when this build has it).
 *   layout     the face-box kernel over the store's SoA arrays against the
 *              same loop over an array-of-structures copy (vertex structs of
 *              x,y,z,px,py,pz; face structs of 3 indices; box structs), in
 *              Morton and random order; the child is this suite itself with
 *              --kernel soa|aos, bracketing the loop with a callgrind region.
 *
 * The simulated last-level cache defaults to 1 MiB (--LL=1048576,16,64), so
 * the scene (a few MiB of vertices, faces and boxes) exceeds it; the L1D is
 * valgrind's default (the host's).  Item counts come from the same run made
 * in-process (they do not depend on valgrind).  Output: DIR/cache.csv and a
 * table on stdout.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/bench.h"
#include "clash/clash.h"
#include "clash_internal.h"

int clash_bench_cache(int argc, char **argv);

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t spread3(uint64_t x) /* 21 bits -> every third bit */
{
    x &= 0x1fffff;
    x = (x | x << 32) & 0x1f00000000ffffull;
    x = (x | x << 16) & 0x1f0000ff0000ffull;
    x = (x | x << 8) & 0x100f00f00f00f00full;
    x = (x | x << 4) & 0x10c30c30c30c30c3ull;
    x = (x | x << 2) & 0x1249249249249249ull;
    return x;
}

typedef struct keyed { uint64_t key; int32_t f; } keyed;
static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key ? 1 : (x->f > y->f) - (x->f < y->f);
}

/* Writes mesh m as OBJ with faces in order fo[] (new -> old face); vertices
 * renumbered by first use (renumber = 1) or by the random permutation. */
static int write_obj(const char *path, const clash_mesh_arrays *m, const int32_t *fo, int mode)
{
    const int64_t nv = m->nv, nf = m->nf;
    int32_t *vnew = malloc((size_t)nv * sizeof *vnew), *vold = malloc((size_t)nv * sizeof *vold);
    FILE *f = fopen(path, "w");
    if (!vnew || !vold || !f) {
        free(vnew), free(vold);
        if (f) fclose(f);
        return -1;
    }
    int32_t next = 0;
    for (int64_t v = 0; v < nv; ++v) vnew[v] = -1;
    if (mode == 0) {
        for (int64_t v = 0; v < nv; ++v) vnew[v] = (int32_t)v;
    } else if (mode == 1) {
        for (int64_t i = 0; i < nf; ++i)
            for (int k = 0; k < 3; ++k)
                if (vnew[m->tri[3 * fo[i] + k]] < 0) vnew[m->tri[3 * fo[i] + k]] = next++;
        for (int64_t v = 0; v < nv; ++v)
            if (vnew[v] < 0) vnew[v] = next++;
    } else {
        for (int64_t v = 0; v < nv; ++v) vold[v] = (int32_t)v;
        for (int64_t v = nv - 1; v > 0; --v) {
            const int64_t j = (int64_t)(rng() % (uint64_t)(v + 1));
            const int32_t t = vold[v];
            vold[v] = vold[j], vold[j] = t;
        }
        for (int64_t v = 0; v < nv; ++v) vnew[vold[v]] = (int32_t)v;
    }
    for (int64_t v = 0; v < nv; ++v) vold[vnew[v]] = (int32_t)v;
    fprintf(f, "# clash bench cache: %s\n", mode == 0 ? "input order" : mode == 1 ? "Morton order" : "random order");
    for (int64_t v = 0; v < nv; ++v)
        fprintf(f, "v %.9g %.9g %.9g\n", m->xyz[3 * vold[v]], m->xyz[3 * vold[v] + 1], m->xyz[3 * vold[v] + 2]);
    for (int64_t i = 0; i < nf; ++i)
        fprintf(f, "f %d %d %d\n", vnew[m->tri[3 * fo[i]]] + 1, vnew[m->tri[3 * fo[i] + 1]] + 1,
                vnew[m->tri[3 * fo[i] + 2]] + 1);
    free(vnew), free(vold);
    return fclose(f) ? -1 : 0;
}

static const char *const order_names[3] = {"input", "morton", "random"};

/* Writes DIR/sphere-ORDER.obj and DIR/scene-ORDER.json for the three orders. */
static int write_scenes(const char *dir, int sphere_faces, int steps)
{
    clash_mesh_arrays m = {0};
    clash_error err;
    if (clash_internal_gen_sphere(sphere_faces, &m, &err)) {
        fprintf(stderr, "clash: error: bench cache: %s\n", err.msg);
        return -1;
    }
    const int64_t nf = m.nf;
    int32_t *fo = malloc((size_t)nf * sizeof *fo);
    keyed *kf = malloc((size_t)nf * sizeof *kf);
    int rc = !fo || !kf;
    for (int o = 0; o < 3 && !rc; ++o) {
        if (o == 0)
            for (int64_t i = 0; i < nf; ++i) fo[i] = (int32_t)i;
        if (o == 1) {
            for (int64_t i = 0; i < nf; ++i) {
                uint64_t key = 0;
                for (int d = 0; d < 3; ++d) {
                    double c = 0;
                    for (int k = 0; k < 3; ++k) c += m.xyz[3 * m.tri[3 * i + k] + d] / 3;
                    const uint64_t q = (uint64_t)fmin(2097151.0, fmax(0.0, (c + 1.0) * 0.5 * 2097152.0));
                    key |= spread3(q) << d;
                }
                kf[i] = (keyed){key, (int32_t)i};
            }
            qsort(kf, (size_t)nf, sizeof *kf, cmp_keyed);
            for (int64_t i = 0; i < nf; ++i) fo[i] = kf[i].f;
        }
        if (o == 2) {
            for (int64_t i = 0; i < nf; ++i) fo[i] = (int32_t)i;
            for (int64_t i = nf - 1; i > 0; --i) {
                const int64_t j = (int64_t)(rng() % (uint64_t)(i + 1));
                const int32_t t = fo[i];
                fo[i] = fo[j], fo[j] = t;
            }
        }
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/sphere-%s.obj", dir, order_names[o]);
        if (write_obj(path, &m, fo, o)) {
            rc = 1;
            break;
        }
        snprintf(path, sizeof path, "%s/scene-%s.json", dir, order_names[o]);
        FILE *f = fopen(path, "w");
        if (!f) {
            rc = 1;
            break;
        }
        fprintf(f,
                "{\"format\": \"clash-scene/1\", \"name\": \"cache-%s\", \"steps\": %d, \"mode\": \"swept\",\n"
                " \"meshes\": {\"m\": {\"file\": \"sphere-%s.obj\"}},\n"
                " \"objects\": [{\"mesh\": \"m\", \"position\": [0, 0, 0], \"velocity\": [0.01, 0, 0]},\n"
                "             {\"mesh\": \"m\", \"position\": [1.6, 0.3, 0], \"velocity\": [-0.01, 0, 0],"
                " \"angular_velocity_deg\": [0, 1, 0]}]}\n",
                order_names[o], steps, order_names[o]);
        rc |= fclose(f) != 0;
    }
    free(fo), free(kf);
    clash_mesh_arrays_free(&m);
    if (rc) fprintf(stderr, "clash: error: bench cache: cannot write the scenes into %s\n", dir);
    return rc ? -1 : 0;
}

/* ---- the layout kernels (child mode: --kernel soa|aos) ----------------------------- */

typedef struct vtx_aos { float x, y, z, px, py, pz; } vtx_aos;
typedef struct tri_aos { int32_t a, b, c; } tri_aos;
typedef struct box_aos { float lo[3], hi[3]; } box_aos;

static int run_kernel(const char *kernel, const char *scene)
{
    clash_error err;
    clash_scene *sc;
    if (clash_scene_load(scene, &sc, &err) || clash_internal_scene_set_state(sc, 1, &err)) {
        fprintf(stderr, "clash: error: %s\n", err.msg);
        return 2;
    }
    clash_internal_scene_view view;
    clash_internal_scene_view_get(sc, &view);
    const clash_internal_scene_view *const sv = &view;
    const int64_t nv = sv->nv, nf = sv->nf;
    const int aos = !strcmp(kernel, "aos");
    float *lo = malloc((size_t)nf * 6 * sizeof(float));
    vtx_aos *V = aos ? malloc((size_t)nv * sizeof *V) : NULL;
    tri_aos *T = aos ? malloc((size_t)nf * sizeof *T) : NULL;
    if (!lo || (aos && (!V || !T))) return 1;
    box_aos *B = (box_aos *)lo;
    if (aos) {
        for (int64_t v = 0; v < nv; ++v)
            V[v] = (vtx_aos){sv->x[v], sv->y[v], sv->z[v], sv->px[v], sv->py[v], sv->pz[v]};
        for (int64_t f = 0; f < nf; ++f) T[f] = (tri_aos){sv->f0[f], sv->f1[f], sv->f2[f]};
    }
    float *lox = lo, *loy = lo + nf, *loz = lo + 2 * nf, *hix = lo + 3 * nf, *hiy = lo + 4 * nf, *hiz = lo + 5 * nf;
    clash_callgrind_region_begin();
    if (!aos) {
        for (int64_t f = 0; f < nf; ++f) {
            const int32_t a = sv->f0[f], b = sv->f1[f], c = sv->f2[f];
            lox[f] = fminf(fminf(fminf(sv->x[a], sv->x[b]), fminf(sv->x[c], sv->px[a])), fminf(sv->px[b], sv->px[c]));
            loy[f] = fminf(fminf(fminf(sv->y[a], sv->y[b]), fminf(sv->y[c], sv->py[a])), fminf(sv->py[b], sv->py[c]));
            loz[f] = fminf(fminf(fminf(sv->z[a], sv->z[b]), fminf(sv->z[c], sv->pz[a])), fminf(sv->pz[b], sv->pz[c]));
            hix[f] = fmaxf(fmaxf(fmaxf(sv->x[a], sv->x[b]), fmaxf(sv->x[c], sv->px[a])), fmaxf(sv->px[b], sv->px[c]));
            hiy[f] = fmaxf(fmaxf(fmaxf(sv->y[a], sv->y[b]), fmaxf(sv->y[c], sv->py[a])), fmaxf(sv->py[b], sv->py[c]));
            hiz[f] = fmaxf(fmaxf(fmaxf(sv->z[a], sv->z[b]), fmaxf(sv->z[c], sv->pz[a])), fmaxf(sv->pz[b], sv->pz[c]));
        }
    } else {
        for (int64_t f = 0; f < nf; ++f) {
            const vtx_aos *a = &V[T[f].a], *b = &V[T[f].b], *c = &V[T[f].c];
            box_aos *o = &B[f];
            o->lo[0] = fminf(fminf(fminf(a->x, b->x), fminf(c->x, a->px)), fminf(b->px, c->px));
            o->lo[1] = fminf(fminf(fminf(a->y, b->y), fminf(c->y, a->py)), fminf(b->py, c->py));
            o->lo[2] = fminf(fminf(fminf(a->z, b->z), fminf(c->z, a->pz)), fminf(b->pz, c->pz));
            o->hi[0] = fmaxf(fmaxf(fmaxf(a->x, b->x), fmaxf(c->x, a->px)), fmaxf(b->px, c->px));
            o->hi[1] = fmaxf(fmaxf(fmaxf(a->y, b->y), fmaxf(c->y, a->py)), fmaxf(b->py, c->py));
            o->hi[2] = fmaxf(fmaxf(fmaxf(a->z, b->z), fmaxf(c->z, a->pz)), fmaxf(b->pz, c->pz));
        }
    }
    clash_callgrind_region_end(kernel);
    double s = 0; /* keep the results alive */
    for (int64_t i = 0; i < 6 * nf; i += 97) s += lo[i];
    printf("checksum %g over %lld faces\n", s, (long long)nf);
    free(lo), free(V), free(T);
    clash_scene_destroy(sc);
    return 0;
}

/* ---- one variant ------------------------------------------------------------------------ */

typedef struct variant {
    const char *study, *name;
    int order;           /* scene: 0 input, 1 morton, 2 random */
    int threads, partition, midphase;
    const char *kernel;  /* layout study: soa | aos; else NULL (pipeline) */
    int reorder;         /* 1: --reorder morton (the store reordered in memory, reorder.c) */
} variant;

static int spawn(char **av, const char *cg_base, const char *log)
{
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        setenv("CLASH_CALLGRIND_OUT", cg_base, 1);
        setenv("OMP_WAIT_POLICY", "passive", 0);
        FILE *l = freopen(log, "w", stdout);
        if (l) dup2(fileno(stdout), 2);
        execvp(av[0], av);
        fprintf(stderr, "cannot run %s: %s\n", av[0], strerror(errno));
        _exit(127);
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void remove_dumps(const char *base)
{
    char p[PATH_MAX + 256];
    for (int k = 1;; ++k) {
        snprintf(p, sizeof p, "%s.%d", base, k);
        if (unlink(p)) break;
    }
    unlink(base);
}

static const char *const partition_arg[] = {"chunk", "stride"};
static const char *const midphase_arg[] = {"octree", "bvh", "bboxpipe", "brute"};

/* In-process run for the item counts; 1 when the variant is not available. */
static int count_items(const char *scene, const variant *v, clash_run_totals *t, char *why, size_t wn)
{
    clash_error err;
    clash_scene *sc;
    if (clash_scene_load(scene, &sc, &err)) {
        snprintf(why, wn, "%s", err.msg);
        return -1;
    }
    clash_config cfg = clash_config_default();
    cfg.threads = v->threads, cfg.partition = v->partition, cfg.midphase = v->midphase;
    cfg.reorder = v->reorder ? CLASH_REORDER_MORTON : CLASH_REORDER_NONE; /* the order study needs the file's order */
    clash_scene_apply_defaults(sc, &cfg);
    clash_run *run = clash_run_create(sc, &cfg, &err);
    if (!run) {
        snprintf(why, wn, "%s", err.msg);
        clash_scene_destroy(sc);
        return 1;
    }
    clash_totals_init(t);
    int rc = 0;
    for (int s = 1; s <= cfg.steps && !rc; ++s) {
        clash_pairs p;
        clash_step_stats st;
        if ((rc = clash_step(run, s, &p, &st, &err))) snprintf(why, wn, "%s", err.msg);
        else clash_totals_add(t, s, &p, &st);
    }
    if (v->kernel) t->faces_boxed = clash_scene_faces(sc), t->vertices = clash_scene_vertices(sc);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return rc ? -1 : 0;
}

int clash_bench_cache(int argc, char **argv)
{
    int quick = 0;
    const char *out = "bench-cache", *sim_ll = "1048576,16,64", *kernel = NULL, *scene = NULL;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--quick")) quick = 1;
        else if (i + 1 < argc && !strcmp(a, "--out")) out = argv[++i];
        else if (i + 1 < argc && !strcmp(a, "--sim-ll")) sim_ll = argv[++i];
        else if (i + 1 < argc && !strcmp(a, "--kernel")) kernel = argv[++i];
        else if (i + 1 < argc && !strcmp(a, "--scene")) scene = argv[++i];
        else {
            fprintf(stderr, "clash: error: bench cache: unknown option '%s' (--quick, --out DIR, --sim-ll S,A,L)\n", a);
            return 2;
        }
    }
    if (kernel) {
        if ((strcmp(kernel, "soa") && strcmp(kernel, "aos")) || !scene) {
            fprintf(stderr, "clash: error: bench cache: --kernel soa|aos needs --scene FILE\n");
            return 2;
        }
        return run_kernel(kernel, scene);
    }
    if (mkdir(out, 0777) && errno != EEXIST) {
        fprintf(stderr, "clash: error: --out: cannot create %s: %s\n", out, strerror(errno));
        return 2;
    }
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        fprintf(stderr, "clash: error: bench cache: cannot find this program (/proc/self/exe)\n");
        return 1;
    }
    exe[n] = 0;
    const int k = quick ? 60 : 120; /* sphere bands: 4k(k-1) faces per sphere */
    const int steps = quick ? 1 : 2;
    if (write_scenes(out, 4 * k * (k - 1), steps)) return 1;
    const variant vs[] = {
        {"order", "input", 0, 1, CLASH_PART_CHUNK, CLASH_MID_OCTREE, NULL, 0},
        {"order", "morton", 1, 1, CLASH_PART_CHUNK, CLASH_MID_OCTREE, NULL, 0},
        {"order", "random", 2, 1, CLASH_PART_CHUNK, CLASH_MID_OCTREE, NULL, 0},
        {"order", "rnd+reorder", 2, 1, CLASH_PART_CHUNK, CLASH_MID_OCTREE, NULL, 1},
        {"partition", "chunk", 1, 2, CLASH_PART_CHUNK, CLASH_MID_OCTREE, NULL, 0},
        {"partition", "stride", 1, 2, CLASH_PART_STRIDE, CLASH_MID_OCTREE, NULL, 0},
        {"midphase", "octree", 1, 1, CLASH_PART_CHUNK, CLASH_MID_OCTREE, NULL, 0},
        {"midphase", "brute", 1, 1, CLASH_PART_CHUNK, CLASH_MID_BRUTE, NULL, 0},
        {"midphase", "bvh", 1, 1, CLASH_PART_CHUNK, CLASH_MID_BVH, NULL, 0},
        {"layout", "soa-morton", 1, 1, CLASH_PART_CHUNK, CLASH_MID_OCTREE, "soa", 0},
        {"layout", "aos-morton", 1, 1, CLASH_PART_CHUNK, CLASH_MID_OCTREE, "aos", 0},
        {"layout", "soa-random", 2, 1, CLASH_PART_CHUNK, CLASH_MID_OCTREE, "soa", 0},
        {"layout", "aos-random", 2, 1, CLASH_PART_CHUNK, CLASH_MID_OCTREE, "aos", 0},
    };
    char csv_path[PATH_MAX];
    snprintf(csv_path, sizeof csv_path, "%s/cache.csv", out);
    FILE *csv = fopen(csv_path, "w");
    if (!csv) {
        fprintf(stderr, "clash: error: --out: cannot write %s: %s\n", csv_path, strerror(errno));
        return 2;
    }
    fprintf(csv, "study,variant,stage,l1d_misses,ll_misses,item,items,l1d_per_item,ll_per_item,faces,l1d_per_face,"
                 "ll_per_face\n");
    printf("cache study: callgrind cache simulation, LL --LL=%s (D1: valgrind's default), %d faces per sphere, "
           "2 spheres, %d step%s\n",
           sim_ll, 4 * k * (k - 1), steps, steps == 1 ? "" : "s");
    printf("%-10s %-11s %-7s %12s %11s %10s %9s %9s %9s %9s\n", "study", "variant", "stage", "L1D misses",
           "LL misses", "items", "L1D/item", "LL/item", "L1D/face", "LL/face");
    int failures = 0;
    for (size_t i = 0; i < sizeof vs / sizeof vs[0]; ++i) {
        const variant *v = &vs[i];
        char sc_path[PATH_MAX], base[PATH_MAX + 64], log[PATH_MAX + 64], ll[128], thr[16], why[1024] = "";
        snprintf(sc_path, sizeof sc_path, "%s/scene-%s.json", out, order_names[v->order]);
        snprintf(base, sizeof base, "%s/cg.%s-%s", out, v->study, v->name);
        snprintf(log, sizeof log, "%s/%s-%s.log", out, v->study, v->name);
        snprintf(ll, sizeof ll, "--LL=%s", sim_ll);
        snprintf(thr, sizeof thr, "%d", v->threads);
        clash_run_totals t;
        const int avail = count_items(sc_path, v, &t, why, sizeof why);
        if (avail) {
            printf("%-10s %-11s (not run: %s)\n", v->study, v->name, why);
            failures += avail < 0;
            continue;
        }
        char out_opt[PATH_MAX + 96];
        snprintf(out_opt, sizeof out_opt, "--callgrind-out-file=%s", base);
        char *av[32];
        int a = 0;
        av[a++] = "valgrind", av[a++] = "--tool=callgrind", av[a++] = "--cache-sim=yes";
        av[a++] = "-q", av[a++] = ll, av[a++] = out_opt, av[a++] = exe;
        if (v->kernel) {
            av[a++] = "bench", av[a++] = "cache", av[a++] = "--kernel", av[a++] = (char *)v->kernel;
            av[a++] = "--scene", av[a++] = sc_path;
        } else {
            av[a++] = "run", av[a++] = sc_path, av[a++] = "--quiet", av[a++] = "--counters", av[a++] = "callgrind";
            av[a++] = "--threads", av[a++] = thr, av[a++] = "--partition", av[a++] = (char *)partition_arg[v->partition];
            av[a++] = "--midphase", av[a++] = (char *)midphase_arg[v->midphase];
            av[a++] = "--reorder", av[a++] = v->reorder ? "morton" : "none";
        }
        av[a] = NULL;
        const int rc = spawn(av, base, log);
        if (rc) {
            printf("%-10s %-11s (failed: exit %d, see %s%s)\n", v->study, v->name, rc, log,
                   rc == 127 ? "; is valgrind installed?" : "");
            ++failures;
            remove_dumps(base);
            continue;
        }
        clash_counters *c = clash_internal_counters_open(CLASH_CTR_NONE); /* to sum the dumps into */
        clash_error err = {0};
        clash_stage_counts kc = {0}, stages[CLASH_NSTAGES] = {{0}};
        int nd = -1;
        if (c) nd = clash_callgrind_collect(base, c, v->kernel, &kc, NULL, 0, &err);
        else clash_internal_fail(&err, CLASH_EFAIL, "out of memory");
        for (int q = 0; c && q < CLASH_NSTAGES; ++q) stages[q] = *clash_internal_counters_stage(c, q);
        clash_internal_counters_close(c);
        remove_dumps(base);
        if (nd <= 0) {
            printf("%-10s %-11s (no dumps: %s)\n", v->study, v->name, nd < 0 ? err.msg : "none written");
            ++failures;
            continue;
        }
        const int64_t faces = t.faces_boxed;
        for (int s = v->kernel ? CLASH_NSTAGES : 0; s <= CLASH_NSTAGES; ++s) {
            clash_stage_counts z = {0};
            const char *stage, *iname = "faces";
            int64_t items = faces;
            if (v->kernel) {
                z = kc, stage = "kernel";
            } else if (s == CLASH_NSTAGES) {
                for (int q = 0; q < CLASH_NSTAGES; ++q)
                    z.l1d_misses += stages[q].l1d_misses, z.ll_misses += stages[q].ll_misses,
                        z.regions += stages[q].regions;
                stage = "all";
            } else {
                z = stages[s], stage = clash_stage_name(s);
                items = clash_stage_items(&t, s, &iname);
            }
            if (!z.regions) continue;
            const double l1i = items ? (double)z.l1d_misses / (double)items : 0,
                         lli = items ? (double)z.ll_misses / (double)items : 0;
            const double l1f = faces ? (double)z.l1d_misses / (double)faces : 0,
                         llf = faces ? (double)z.ll_misses / (double)faces : 0;
            printf("%-10s %-11s %-7s %12llu %11llu %10lld %9.3g %9.3g %9.3g %9.3g\n", v->study, v->name, stage,
                   (unsigned long long)z.l1d_misses, (unsigned long long)z.ll_misses, (long long)items, l1i, lli,
                   l1f, llf);
            fprintf(csv, "%s,%s,%s,%llu,%llu,%s,%lld,%.6g,%.6g,%lld,%.6g,%.6g\n", v->study, v->name, stage,
                    (unsigned long long)z.l1d_misses, (unsigned long long)z.ll_misses, iname, (long long)items, l1i,
                    lli, (long long)faces, l1f, llf);
        }
        fflush(stdout);
    }
    if (fclose(csv)) ++failures;
    printf("wrote %s\n", csv_path);
    return failures ? 1 : 0;
}
