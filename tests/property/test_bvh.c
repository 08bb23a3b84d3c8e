/*
 * test_bvh.c — the BVH and bounding-box-pipeline midphases against the
 * octree midphase and the brute-force oracle, and the BVH itself.
 *
 * 1. Node kernels: ck_bvh4/8_overlap equal their _ref versions on random
 *    boxes (touching and empty slots included).
 * 2. Trees: both builders (binned SAH, Morton) over random boxes put every
 *    primitive in exactly one leaf, and every slot box is exactly the union
 *    of the primitive boxes under it; after the boxes move, a refit gives
 *    exactly the boxes a rebuild of the same tree computes from scratch.
 * 3. Broad phase: column sort-and-sweep and the object BVH (broad.h) give
 *    the all-pairs answer on random boxes (a few huge ones, integer grids
 *    with exact touching, non-finite boxes), 1 and 2 threads.
 * 4. Pipelines: 90 random scenes as in test_pipeline_oracle.c (rigid:
 *    crowded spheres and boxes with velocities and spins, several steps, so
 *    the per-object BVHs are refitted; deforming: jittered spheres written as
 *    OBJ frames), static and swept, with and without self-collision: for
 *    every step the pair lists of --midphase bvh (SAH and Morton builders,
 *    1 and 2 threads, with the sap and bvh broad phases) and --midphase
 *    bboxpipe (1 and 2 threads) must equal the oracle's and the octree's.
 * 5. The radix sort the broad phases and the octree's merge use
 *    (clash_sort_u64, all three size paths) equals qsort.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stages/broad.h"
#include "core/bvh.h"
#include "check.h"
#include "random_scenes.h"
#include "store/generators.h"
#include "kernels/bvh_kernels.h"
#include "core/run.h"
#include "stages/stages.h"
#include "store/scene.h"
#include "base/sort.h"

static void test_kernels(void)
{
    long bad = 0;
    for (int t = 0; t < 20000; ++t) {
        float nb[48], lo[3], hi[3];
        for (int i = 0; i < 8; ++i)
            for (int d = 0; d < 3; ++d) {
                float a = (float)(int)(8 * urand()), b = a + (float)(int)(3 * urand());
                if (urand() < 0.05) a = INFINITY, b = -INFINITY; /* empty slot */
                nb[d * 8 + i] = a, nb[(3 + d) * 8 + i] = b;
            }
        for (int d = 0; d < 3; ++d) lo[d] = (float)(int)(8 * urand()), hi[d] = lo[d] + (float)(int)(3 * urand());
        if (ck_bvh8_overlap(nb, lo, hi) != ck_bvh8_overlap_ref(nb, lo, hi)) ++bad;
        float n4[24];
        for (int k = 0; k < 6; ++k) memcpy(n4 + 4 * k, nb + 8 * k, 4 * sizeof(float));
        if (ck_bvh4_overlap(n4, lo, hi) != ck_bvh4_overlap_ref(n4, lo, hi)) ++bad;
        if ((ck_bvh8_overlap(nb, lo, hi) & 0xf) != ck_bvh4_overlap(n4, lo, hi)) ++bad;
    }
    CHECK(bad == 0, "node kernels differ from the reference in %ld cases", bad);
}

/* Union of the primitive boxes under slot k of node i, from scratch; also counts primitives seen. */
static void subtree_box(const clash_bvh *t, int32_t child, int count, clash_boxes_soa bx, float lo[3], float hi[3],
                        int *seen)
{
    if (child < 0) {
        for (int j = 0; j < count; ++j) {
            const uint32_t f = t->prim[-child - 1 + j];
            seen[f]++;
            lo[0] = fminf(lo[0], bx.lox[f]), lo[1] = fminf(lo[1], bx.loy[f]), lo[2] = fminf(lo[2], bx.loz[f]);
            hi[0] = fmaxf(hi[0], bx.hix[f]), hi[1] = fmaxf(hi[1], bx.hiy[f]), hi[2] = fmaxf(hi[2], bx.hiz[f]);
        }
        return;
    }
    const clash_bvh_node *n = &t->node[child];
    for (int k = 0; k < CLASH_BVH_WIDTH; ++k)
        if (n->child[k]) subtree_box(t, n->child[k], n->count[k], bx, lo, hi, seen);
}

/* Every slot box equals the union under it; every primitive in one leaf. Returns mismatches. */
static long check_tree(const clash_bvh *t, clash_boxes_soa bx, int n)
{
    long bad = 0;
    int *seen = calloc((size_t)n + 1, sizeof(int));
    for (int32_t i = 0; i < t->nnode; ++i) {
        const clash_bvh_node *nd = &t->node[i];
        for (int k = 0; k < CLASH_BVH_WIDTH; ++k) {
            if (!nd->child[k]) continue;
            float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY}, slo[3], shi[3];
            int *s2 = calloc((size_t)n + 1, sizeof(int));
            subtree_box(t, nd->child[k], nd->count[k], bx, lo, hi, s2);
            free(s2);
            clash_bvh_slot_box(nd, k, slo, shi);
            if (memcmp(lo, slo, sizeof lo) || memcmp(hi, shi, sizeof hi)) ++bad;
            if (nd->child[k] < 0) /* leaves: count primitives */
                for (int j = 0; j < nd->count[k]; ++j) seen[t->prim[-nd->child[k] - 1 + j]]++;
        }
    }
    for (int f = 0; f < n; ++f) bad += seen[f] != 1;
    free(seen);
    return bad;
}

static void test_trees(void)
{
    for (int trial = 0; trial < 40; ++trial) {
        const int n = trial < 4 ? trial : 1 + (int)(urand() * 3000);
        float *b = malloc(sizeof(float) * 6 * (size_t)(n + 1));
        float *lx = b, *ly = b + n, *lz = b + 2 * n, *hx = b + 3 * n, *hy = b + 4 * n, *hz = b + 5 * n;
        const int clumped = trial % 3 == 0; /* many coincident centroids */
        for (int i = 0; i < n; ++i) {
            const float c[3] = {clumped ? (float)(int)(4 * urand()) : (float)urand(), (float)urand(), (float)urand()};
            const float e = (float)(0.05 * urand());
            lx[i] = c[0] - e, ly[i] = c[1] - e, lz[i] = c[2] - e, hx[i] = c[0] + e, hy[i] = c[1], hz[i] = c[2] + 2 * e;
        }
        uint32_t *ids = malloc(sizeof(uint32_t) * (size_t)(n + 1));
        for (int i = 0; i < n; ++i) ids[i] = (uint32_t)i;
        const clash_boxes_soa bx = {lx, ly, lz, hx, hy, hz};
        for (int builder = 0; builder < 2; ++builder) {
            clash_bvh t = {0};
            CHECK(clash_bvh_build(&t, builder, ids, n, bx) == 0, "build");
            CHECK(((uintptr_t)t.node & 63) == 0 && sizeof(clash_bvh_node) % 64 == 0, "nodes 64-byte aligned");
            long bad = check_tree(&t, bx, n);
            CHECK(bad == 0, "trial %d builder %d n %d: %ld mismatches after the build", trial, builder, n, bad);
            for (int i = 0; i < n; ++i) { /* deform */
                const float dx = (float)(0.1 * srand1()), dy = (float)(0.1 * srand1()), dz = (float)(0.1 * srand1());
                lx[i] += dx, hx[i] += dx + (float)(0.01 * urand()), ly[i] += dy, hy[i] += dy, lz[i] += dz, hz[i] += dz;
            }
            clash_bvh_refit(&t, bx);
            bad = check_tree(&t, bx, n);
            CHECK(bad == 0, "trial %d builder %d n %d: refit differs from a rebuild of the tree's boxes in %ld slots",
                  trial, builder, n, bad);
            float rlo[3] = {INFINITY, INFINITY, INFINITY}, rhi[3] = {-INFINITY, -INFINITY, -INFINITY};
            for (int i = 0; i < n; ++i) {
                rlo[0] = fminf(rlo[0], lx[i]), rlo[1] = fminf(rlo[1], ly[i]), rlo[2] = fminf(rlo[2], lz[i]);
                rhi[0] = fmaxf(rhi[0], hx[i]), rhi[1] = fmaxf(rhi[1], hy[i]), rhi[2] = fmaxf(rhi[2], hz[i]);
            }
            CHECK(!memcmp(rlo, t.lo, sizeof rlo) && !memcmp(rhi, t.hi, sizeof rhi), "root box after refit");
            clash_bvh_free(&t);
        }
        free(ids), free(b);
    }
}

/* Broad phase: column SAP and object BVH against all pairs, on 1 and 2 threads. */
static void test_broad(void)
{
    for (int trial = 0; trial < 12; ++trial) {
        const int n = trial < 2 ? trial : 200 + (int)(urand() * 2500);
        const float g = trial % 3 == 0 ? 0.01f : 0.0f;
        float *b = malloc(sizeof(float) * 6 * (size_t)(n + 1));
        float *lx = b, *ly = b + n, *lz = b + 2 * n, *hx = b + 3 * n, *hy = b + 4 * n, *hz = b + 5 * n;
        const double L = 2 * cbrt((double)n + 1);
        for (int i = 0; i < n; ++i) {
            const int big = urand() < 0.01, grid = trial % 2; /* grid: integer coordinates, exact touching */
            for (int d = 0; d < 3; ++d) {
                const double c = grid ? (double)(int)(L * urand()) : L * urand();
                const double e = big ? L * urand() : grid ? 1 : 0.5 + urand();
                (d == 0 ? lx : d == 1 ? ly : lz)[i] = (float)c, (d == 0 ? hx : d == 1 ? hy : hz)[i] = (float)(c + e);
            }
        }
        if (n > 10) lx[3] = NAN, hx[7] = INFINITY; /* non-finite boxes meet nothing */
        size_t nref = 0, cap = 1024;
        uint64_t *ref = malloc(cap * sizeof *ref);
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j) {
                int ok = 1;
                for (int d = 0; d < 3 && ok; ++d) {
                    const float *L0 = d == 0 ? lx : d == 1 ? ly : lz, *H0 = d == 0 ? hx : d == 1 ? hy : hz;
                    ok = L0[i] <= H0[j] + g && L0[j] <= H0[i] + g && isfinite(H0[i] - L0[i]) && isfinite(H0[j] - L0[j]);
                }
                if (!ok) continue;
                if (nref == cap) ref = realloc(ref, (cap *= 2) * sizeof *ref);
                ref[nref++] = (uint64_t)i << 32 | (uint32_t)j;
            }
        const clash_boxes_soa bx = {lx, ly, lz, hx, hy, hz};
        for (int v = 0; v < 4; ++v) {
            const clash_exec ex = {.backend = CLASH_BACKEND_OMP, .threads = 1 + v % 2, .partition = CLASH_PART_CHUNK,
                                   .schedule = CLASH_SCHED_DYNAMIC};
            clash_keybuf kb[2];
            memset(kb, 0, sizeof kb);
            const int rc = (v < 2 ? clash_broad_sap : clash_broad_bvh)(&ex, n, bx, g, kb);
            CHECK(rc == 0, "broad phase failed");
            size_t m = kb[0].n + kb[1].n;
            uint64_t *all = malloc((m + 1) * sizeof *all);
            if (kb[0].n) memcpy(all, kb[0].v, kb[0].n * sizeof *all);
            if (kb[1].n) memcpy(all + kb[0].n, kb[1].v, kb[1].n * sizeof *all);
            clash_sort_u64(all, m, NULL);
            CHECK(m == nref && (m == 0 || !memcmp(all, ref, m * sizeof *all)),
                  "trial %d n %d: %s on %d threads found %zu pairs, all-pairs %zu", trial, n, v < 2 ? "sap" : "bvh",
                  1 + v % 2, m, nref);
            free(all), free(kb[0].v), free(kb[1].v);
        }
        free(ref), free(b);
    }
}

/* ---- pipelines --------------------------------------------------------------------- */

static const int sphere_faces[4] = {24, 48, 80, 168};

static int same_rows(const row *a, size_t na, const row *b, size_t nb)
{
    return na == nb && (na == 0 || memcmp(a, b, na * sizeof *a) == 0);
}

/* clash_sort_u64 (all three of its paths: insertion under 64 keys, one
 * histogram per varying digit under 2048, all eight above) against qsort,
 * on keys that vary in few bytes (octree merge buckets), in all, with
 * repeats, and with a second half that fills 32 bits. */
static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}
static void test_sort(void)
{
    static const size_t sizes[] = {0, 1, 2, 63, 64, 65, 200, 1000, 2047, 2048, 2049, 5000};
    uint64_t s = 0x9E3779B97F4A7C15u;
    for (size_t t = 0; t < sizeof sizes / sizeof *sizes; ++t)
        for (int kind = 0; kind < 5; ++kind) {
            const size_t n = sizes[t];
            uint64_t *a = malloc((n + 1) * sizeof *a), *r = malloc((n + 1) * sizeof *r);
            for (size_t i = 0; i < n; ++i) {
                s ^= s << 13, s ^= s >> 7, s ^= s << 17;
                a[i] = kind == 0   ? (uint64_t)12345 << 32 | (s & 0x3ffff)     /* first face fixed, second 18 bits */
                       : kind == 1 ? s                                         /* every byte varies */
                       : kind == 2 ? (s % 7) << 40 | (s >> 20) % 3             /* few values, many repeats */
                       : kind == 3 ? (uint64_t)7 << 32 | (uint32_t)(s >> 7)    /* the second spans 32 bits */
                                   : (s % 1000 + 5) << 32 | (s >> 40) % 4000000; /* a merge bucket: 10 + 22 bits */
            }
            memcpy(r, a, n * sizeof *a);
            qsort(r, n, sizeof *r, cmp_u64);
            CHECK(clash_sort_u64(a, n, NULL) == 0 && (n == 0 || !memcmp(a, r, n * sizeof *a)),
                  "clash_sort_u64 differs from qsort: %zu keys, kind %d", n, kind);
            free(a), free(r);
        }
}

/* The trees of a rigid scene in static mode kept in the objects' frames
 * (stages/mid/bvh_frames.c): two turned, scaled copies of a sphere that
 * overlap a little, moved over several steps by their laws, with and
 * without self-collision, at 1 and 2 threads: the pairs of every step equal
 * the oracle's and the world-frame BVH's (bvh_world), and without
 * self-collision the step boxed fewer faces than the scene has (the frames
 * path ran, and boxed only the leaves it reached; with self-collision each
 * leaf meets itself, so all); in swept mode the same run takes the world
 * path, whose refit boxes every face. */
/* A static scene of two spheres of `faces` faces, posed and moved by od. */
static clash_scene *two_spheres(char *name, int faces, clash_object_desc od[2], int steps)
{
    clash_mesh_desc md = {.name = "s", .kind = CLASH_MESH_SPHERE, .sphere_faces = faces, .scale = 1};
    clash_scene_desc d = {.name = name, .steps = steps, .mode = CLASH_MODE_STATIC, .nmeshes = 1, .meshes = &md,
                          .nobjects = 2, .objects = od};
    clash_scene *sc = NULL;
    clash_error err;
    CHECK(clash_scene_build(&d, &sc, &err) == 0, "%s scene: %s", name, err.msg);
    return sc;
}

/* Runs r[k] of sc under c with midphase mid[k]; -1 (checked) when one fails. */
static int three_runs(clash_scene *sc, clash_config c, const int mid[3], clash_run *r[3], const char *what)
{
    clash_error err;
    for (int k = 0; k < 3; ++k) {
        c.midphase = mid[k];
        r[k] = clash_run_create(sc, &c, &err);
        CHECK(r[k] != NULL, "%s run: %s", what, err.msg);
        if (!r[k]) return -1;
    }
    return 0;
}

static void test_frames(void)
{
    clash_object_desc od[2] = {{.mesh = 0, .scale = 1, .velocity = {0.02, 0, 0}, .angular_velocity_deg = {0, 3, 1}},
                               {.mesh = 0, .scale = 0.7, .position = {1.55, 0.2, 0.1}, .rotation_deg = {10, 20, 30},
                                .velocity = {-0.03, 0, 0.01}, .angular_velocity_deg = {2, 0, 5}}};
    clash_scene *sc = two_spheres("frames", 3024, od, 6);
    clash_error err;
    if (!sc) return;
    long hits = 0;
    for (int v = 0; v < 6; ++v) {
        clash_config c = clash_config_default();
        c.mode = v < 4 ? CLASH_MODE_STATIC : CLASH_MODE_SWEPT;
        c.self_collision = v % 2, c.threads = 1 + (v / 2) % 2, c.steps = 6;
        clash_run *r[3];
        if (three_runs(sc, c, (const int[3]){CLASH_MID_BRUTE, CLASH_MID_BVH, CLASH_MID_BVH}, r, "frames")) return;
        r[2]->debug.bvh_world = 1;
        for (int s = 1; s <= 6; ++s) {
            clash_pairs p[3];
            clash_step_stats st[3];
            int ok = 1;
            for (int k = 0; k < 3; ++k) ok &= clash_step(r[k], s, &p[k], &st[k], &err) == 0;
            CHECK(ok, "frames step %d: %s", s, err.msg);
            if (!ok) break;
            for (int k = 1; k < 3; ++k)
                CHECK(p[k].count == p[0].count && !memcmp(p[k].pairs, p[0].pairs, p[0].count * sizeof *p[0].pairs),
                      "frames variant %d step %d: %s %zu pairs, oracle %zu", v, s, k == 1 ? "frames" : "world",
                      p[k].count, p[0].count);
            if (c.mode == CLASH_MODE_STATIC && c.self_collision) /* each leaf meets itself */
                CHECK(st[1].faces_boxed == clash_scene_faces(sc), "frames variant %d step %d: %lld faces boxed", v,
                      s, (long long)st[1].faces_boxed);
            else if (c.mode == CLASH_MODE_STATIC)
                CHECK(st[1].faces_boxed > 0 && st[1].faces_boxed < clash_scene_faces(sc),
                      "frames variant %d step %d: %lld faces boxed of %lld (the frames path boxes only the "
                      "leaves it reaches)", v, s, (long long)st[1].faces_boxed, (long long)clash_scene_faces(sc));
            else
                CHECK(st[1].faces_boxed == clash_scene_faces(sc), "frames variant %d: swept mode boxed %lld faces",
                      v, (long long)st[1].faces_boxed);
            hits += (long)p[0].count;
        }
        for (int k = 0; k < 3; ++k) clash_run_destroy(r[k]);
    }
    /* Host poses (clash_run_set_pose, clash_run_advance) instead of laws:
     * both spheres posed every step, with rotations off orthonormal by up
     * to 8e-7 (the API takes 1e-6), the second sliding along the first:
     * the frames path reads each step's poses, and its frames between the
     * objects (the true inverse of a pose) match the oracle's pairs. */
    long host = 0;
    for (int th = 1; th <= 2; ++th) {
        clash_config c = clash_config_default();
        c.mode = CLASH_MODE_STATIC, c.threads = th;
        clash_run *r[2];
        for (int k = 0; k < 2; ++k) {
            c.midphase = k ? CLASH_MID_BVH : CLASH_MID_BRUTE;
            r[k] = clash_run_create(sc, &c, &err);
            CHECK(r[k] != NULL, "frames host run: %s", err.msg);
            if (!r[k]) return;
        }
        for (int s = 1; s <= 8; ++s) {
            const double a = 0.3 * s, ca = cos(a), sa = sin(a), e = 1 + 4e-7 * (s % 3 - 1);
            const double rot[9] = {ca * e, -sa, 0, sa, ca, 0, 0, 0, e};
            const double tr[3] = {1.5 + 0.01 * s, 0.1 * sin(0.7 * s), 0.05 * s};
            clash_pairs p[2];
            int ok = 1;
            const double rot0[9] = {e, 0, 0, 0, cos(0.1 * s), -sin(0.1 * s), 0, sin(0.1 * s), cos(0.1 * s)};
            for (int k = 0; k < 2; ++k)
                ok &= clash_run_set_pose(r[k], 0, rot0, NULL, &err) == 0 && clash_run_set_pose(r[k], 1, rot, tr, &err) == 0 &&
                      clash_run_advance(r[k], &p[k], NULL, &err) == 0;
            CHECK(ok, "frames host step %d: %s", s, err.msg);
            if (!ok) break;
            CHECK(p[1].count == p[0].count && !memcmp(p[1].pairs, p[0].pairs, p[0].count * sizeof *p[0].pairs),
                  "frames host poses, %d threads, step %d: %zu pairs, oracle %zu", th, s, p[1].count, p[0].count);
            host += (long)p[0].count;
        }
        for (int k = 0; k < 2; ++k) clash_run_destroy(r[k]);
    }
    CHECK(host > 0, "frames host poses: the spheres never touch");
    printf("frames: %ld pairs over 6 runs of 6 steps, %ld with host poses\n", hits, host);
    CHECK(hits > 0, "frames scene: the two spheres never touch");
    clash_scene_destroy(sc);
}

/* The frames path on units of 65,536 faces or more, whose leaf pairs go
 * through bvh_frames.c's prefetching queue (LQ_MIN_FACES): two spheres of
 * 33,488 faces overlapping, turned and moved for three steps, at 1 and 2
 * threads: the pairs of every step equal the world-frame BVH's and the
 * face octree's (the brute-force oracle is too slow here; both are held
 * to it on the smaller scenes above). */
static void test_frames_big(void)
{
    clash_object_desc od[2] = {{.mesh = 0, .scale = 1, .velocity = {0.01, 0, 0}, .angular_velocity_deg = {0, 2, 1}},
                               {.mesh = 0, .scale = 0.8, .position = {1.7, 0.1, 0.05}, .rotation_deg = {10, 20, 30},
                                .velocity = {-0.02, 0, 0.01}, .angular_velocity_deg = {1, 0, 3}}};
    clash_scene *sc = two_spheres("frames-big", 33488, od, 3);
    clash_error err;
    if (!sc) return;
    CHECK(clash_scene_faces(sc) >= 65536, "frames-big: %lld faces", (long long)clash_scene_faces(sc));
    long hits = 0;
    for (int th = 1; th <= 2; ++th) {
        clash_config c = clash_config_default();
        c.mode = CLASH_MODE_STATIC, c.threads = th, c.steps = 3;
        clash_run *r[3];
        if (three_runs(sc, c, (const int[3]){CLASH_MID_BVH, CLASH_MID_BVH, CLASH_MID_OCTREE}, r, "frames-big")) return;
        r[1]->debug.bvh_world = 1;
        for (int s = 1; s <= 3; ++s) {
            clash_pairs p[3];
            int ok = 1;
            for (int k = 0; k < 3; ++k) ok &= clash_step(r[k], s, &p[k], NULL, &err) == 0;
            CHECK(ok, "frames-big step %d: %s", s, err.msg);
            if (!ok) break;
            for (int k = 1; k < 3; ++k)
                CHECK(p[k].count == p[0].count && !memcmp(p[k].pairs, p[0].pairs, p[0].count * sizeof *p[0].pairs),
                      "frames-big, %d threads, step %d: frames %zu pairs, %s %zu", th, s, p[0].count,
                      k == 1 ? "world" : "octree", p[k].count);
            hits += (long)p[0].count;
        }
        for (int k = 0; k < 3; ++k) clash_run_destroy(r[k]);
    }
    printf("frames-big: %ld pairs over 2 runs of 3 steps\n", hits);
    CHECK(hits > 0, "frames-big: the two spheres never touch");
    clash_scene_destroy(sc);
}

int main(void)
{
    test_frames();
    test_frames_big();
    test_sort();
    test_kernels();
    test_trees();
    test_broad();
    char dir[] = "/tmp/clash-bvh-XXXXXX";
    if (!mkdtemp(dir)) return check_skip("cannot make a temporary folder");
    long total = 0, with_pairs = 0;
    for (int i = 0; i < 72; ++i) {
        clash_error err = {0};
        const int deforming = i % 3 == 2;
        clash_scene *sc = deforming ? rs_deforming(sphere_faces, dir, i, 2 + i % 3, (i / 3) % 2, &err)
                                    : rs_rigid(sphere_faces, 2, &err);
        CHECK(sc != NULL, "scene %d: %s", i, err.msg);
        if (!sc) continue;
        clash_config base = clash_config_default();
        base.mode = (i / 2) % 2 ? CLASH_MODE_STATIC : CLASH_MODE_SWEPT;
        base.self_collision = (i / 4) % 2 || (deforming && (i / 3) % 2);
        base.threads = 1;
        size_t no, nt, nv;
        int ok = 1;
        clash_config c = base;
        c.midphase = CLASH_MID_BRUTE;
        row *ro = rs_run_rows(sc, c, 0, &no, &ok);
        c.midphase = CLASH_MID_OCTREE;
        row *rt = rs_run_rows(sc, c, 0, &nt, &ok);
        CHECK(same_rows(ro, no, rt, nt), "scene %d: octree %zu pairs, oracle %zu", i, nt, no);
        total += (long)no, with_pairs += no > 0;
        for (int v = 0; v < 6 && ok; ++v) {
            c = base;
            c.midphase = v < 4 ? CLASH_MID_BVH : CLASH_MID_BBOXPIPE;
            c.threads = 1 + v % 2;
            c.broadphase = v == 3 ? CLASH_BROAD_SAP : v == 2 || v == 5 ? CLASH_BROAD_BVH : CLASH_BROAD_AUTO;
            c.schedule = v == 3 ? CLASH_SCHED_STATIC_STRIDE : CLASH_SCHED_DYNAMIC;
            row *rv = rs_run_rows(sc, c, v / 2 % 2 ? CLASH_BVH_MORTON : CLASH_BVH_SAH, &nv, &ok);
            CHECK(same_rows(ro, no, rv, nv), "scene %d (%s, %s%s), %s variant %d: %zu pairs, oracle %zu", i,
                  deforming ? "deforming" : "rigid", base.mode ? "swept" : "static", base.self_collision ? ", self" : "",
                  v < 4 ? "bvh" : "bboxpipe", v, nv, no);
            free(rv);
        }
        free(ro), free(rt);
        clash_scene_destroy(sc);
    }
    rmdir(dir);
    printf("bvh: %ld colliding pairs over 72 scenes, %ld scenes with collisions\n", total, with_pairs);
    CHECK(with_pairs >= 20 && with_pairs <= 88, "scenes should mix collisions and none: %ld", with_pairs);
    return check_finish("test_bvh");
}
