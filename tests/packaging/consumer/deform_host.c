/* deform_host.c — a host whose mesh deforms (cloth, FEM, a skinned body)
 * feeding clash the new vertex positions every step: the example to copy
 * when your simulation moves vertices rather than whole bodies.
 *
 *   deform_host FRAME_A.ply FRAME_B.ply [SUBSTEPS]
 *
 * The two files are consecutive frames of one simulation with the same
 * triangles (e.g. ../shared/data/ccd-frames/cloth-funnel/frames/227.ply and
 * 228.ply).  The mesh is one deforming object (clash_scene_add_object with
 * deforming = 1) added at frame A; the host walks from frame A to frame B in
 * SUBSTEPS steps (default 4), vertices moving on straight lines as the
 * dataset says they do, and gives clash each step's positions
 * (clash_run_set_vertices) before clash_run_advance.  Swept mode with
 * self-collision: a pair is two faces, not sharing a vertex, whose paths
 * during the step meet.  A second run takes the whole way in one step; its
 * pairs hold every pair of the sub-steps (each sub-step's swept hulls lie
 * inside the whole step's), which the program reports.
 * Uses only <clash/clash.h>; exits 0 when both runs worked and found pairs.
 */
#include <clash/clash.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, const clash_error *err)
{
    fprintf(stderr, "deform_host: %s: %s\n", what, err->msg);
    return 1;
}

/* A run of the mesh from frame a to frame b in `steps` steps; every pair
 * seen goes into seen[] as a key face_a * nf + face_b (its length returned
 * in *nseen), or only counted when seen is NULL. */
static int walk(const clash_mesh_arrays *a, const clash_mesh_arrays *b, int steps, uint64_t *seen, size_t *nseen,
                size_t cap)
{
    clash_error err;
    clash_scene *sc;
    if (clash_scene_create(&sc, &err)) return fail("scene", &err);
    const int mesh = clash_scene_add_mesh(sc, a->xyz, a->nv, a->tri, a->nf, &err);
    const int obj = mesh < 0 ? -1 : clash_scene_add_object(sc, mesh, NULL, NULL, 1, &err);
    if (obj < 0) return fail("add", &err);
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_SWEPT;
    cfg.self_collision = 1;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    if (!run) return fail("run", &err);
    double *xyz = malloc(3 * sizeof(double) * (size_t)a->nv);
    *nseen = 0;
    for (int s = 1; s <= steps; ++s) {
        const double t = (double)s / steps; /* straight lines from frame a to frame b */
        for (int64_t i = 0; i < 3 * a->nv; ++i) xyz[i] = s == steps ? b->xyz[i] : (1 - t) * a->xyz[i] + t * b->xyz[i];
        clash_pairs pairs;
        if (clash_run_set_vertices(run, obj, xyz, &err) || clash_run_advance(run, &pairs, NULL, &err))
            return fail("step", &err);
        printf("deform_host: %d step%s, step %d: %zu colliding face pairs\n", steps, steps == 1 ? "" : "s", s,
               pairs.count);
        for (size_t k = 0; k < pairs.count && *nseen < cap; ++k)
            seen[(*nseen)++] = (uint64_t)pairs.pairs[k].face_a * (uint64_t)a->nf + pairs.pairs[k].face_b;
    }
    free(xyz);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return 0;
}

static int cmp_u64(const void *x, const void *y)
{
    const uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: deform_host FRAME_A FRAME_B [SUBSTEPS]\n");
        return 2;
    }
    const int sub = argc > 3 ? atoi(argv[3]) : 4;
    clash_error err;
    clash_mesh_arrays fa, fb;
    if (clash_mesh_read(argv[1], &fa, &err) || clash_mesh_read(argv[2], &fb, &err)) return fail("frames", &err);
    if (fa.nv != fb.nv || fa.nf != fb.nf || memcmp(fa.tri, fb.tri, 3 * sizeof(int32_t) * (size_t)fa.nf)) {
        fprintf(stderr, "deform_host: the frames do not share their triangles\n");
        return 1;
    }
    printf("deform_host: %lld vertices, %lld faces\n", (long long)fa.nv, (long long)fa.nf);
    const size_t cap = 1 << 22;
    uint64_t *many = malloc(cap * sizeof *many), *one = malloc(cap * sizeof *one);
    size_t nmany, none;
    if (walk(&fa, &fb, sub < 1 ? 1 : sub, many, &nmany, cap) || walk(&fa, &fb, 1, one, &none, cap)) return 1;
    qsort(one, none, sizeof *one, cmp_u64);
    qsort(many, nmany, sizeof *many, cmp_u64);
    size_t distinct = 0, inside = 0;
    for (size_t k = 0; k < nmany; ++k)
        if (k == 0 || many[k] != many[k - 1]) {
            ++distinct;
            inside += bsearch(&many[k], one, none, sizeof *one, cmp_u64) != NULL;
        }
    printf("deform_host: %zu distinct pairs over the sub-steps, %zu of them among the %zu of one whole step\n",
           distinct, inside, none);
    free(many), free(one);
    clash_mesh_arrays_free(&fa), clash_mesh_arrays_free(&fb);
    return none > 0 ? 0 : 1;
}
