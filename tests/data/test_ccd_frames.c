/*
 * test_ccd_frames.c — swept-mode self-collision on real deforming data
 * (../shared/data/ccd-frames, Belgrod et al.): every ground-truth colliding
 * vertex-face and edge-edge pair must be covered by the reported face pairs.
 *
 * Each scene is its two frames as a deforming scene, one object, swept mode,
 * self-collision on.  Ids in the ground truth index one list: vertices
 * (0..V-1), then the unique undirected edges (i<j) ordered by j then i
 * (V..V+E-1), then faces (V+E..).  A true vf pair (v, f) requires every face
 * incident to v that shares no vertex with f to be reported with f; a true
 * ee pair (e1, e2) requires every face of e1 paired with every face of e2,
 * skipping pairs that share a vertex.  The store keeps the file's face order
 * for a single-object scene, so reported face numbers are file face numbers.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/mesh_io.h"
#include "io/scene_desc.h"
#include "store/scene.h"
#include "base/sort.h"

static cJSON *load_json(const char *path)
{
    char *s = check_read_file(path);
    cJSON *j = s ? cJSON_Parse(s) : NULL;
    free(s);
    return j;
}

typedef struct topo {
    int64_t V, E, F;
    uint64_t *edges;     /* key j<<32|i, sorted: ordered by j then i */
    int64_t *vf_ofs, *vf; /* faces incident to each vertex (CSR) */
    int64_t *ef_ofs, *ef; /* faces incident to each edge (CSR) */
    const int32_t *tri;
} topo;

static int64_t edge_index(const topo *t, int32_t a, int32_t b)
{
    int32_t i = a < b ? a : b, j = a < b ? b : a;
    uint64_t key = (uint64_t)(uint32_t)j << 32 | (uint32_t)i;
    int64_t lo = 0, hi = t->E - 1;
    while (lo <= hi) {
        int64_t m = (lo + hi) / 2;
        if (t->edges[m] == key) return m;
        if (t->edges[m] < key) lo = m + 1;
        else hi = m - 1;
    }
    return -1;
}

static void build_topo(topo *t, const clash_mesh *m)
{
    t->V = m->nverts, t->F = m->nfaces, t->tri = m->tri;
    t->edges = malloc(sizeof(uint64_t) * 3 * (size_t)t->F);
    for (int64_t f = 0; f < t->F; ++f)
        for (int k = 0; k < 3; ++k) {
            int32_t a = m->tri[3 * f + k], b = m->tri[3 * f + (k + 1) % 3];
            int32_t i = a < b ? a : b, j = a < b ? b : a;
            t->edges[3 * f + k] = (uint64_t)(uint32_t)j << 32 | (uint32_t)i;
        }
    t->E = (int64_t)clash_sort_unique_u64(t->edges, 3 * (size_t)t->F);
    t->vf_ofs = calloc((size_t)t->V + 1, sizeof(int64_t));
    t->ef_ofs = calloc((size_t)t->E + 1, sizeof(int64_t));
    for (int64_t f = 0; f < t->F; ++f)
        for (int k = 0; k < 3; ++k) {
            t->vf_ofs[m->tri[3 * f + k] + 1]++;
            t->ef_ofs[edge_index(t, m->tri[3 * f + k], m->tri[3 * f + (k + 1) % 3]) + 1]++;
        }
    for (int64_t v = 0; v < t->V; ++v) t->vf_ofs[v + 1] += t->vf_ofs[v];
    for (int64_t e = 0; e < t->E; ++e) t->ef_ofs[e + 1] += t->ef_ofs[e];
    t->vf = malloc(sizeof(int64_t) * (size_t)t->vf_ofs[t->V]);
    t->ef = malloc(sizeof(int64_t) * (size_t)t->ef_ofs[t->E]);
    int64_t *fv = calloc((size_t)t->V, sizeof(int64_t)), *fe = calloc((size_t)t->E, sizeof(int64_t));
    for (int64_t f = 0; f < t->F; ++f)
        for (int k = 0; k < 3; ++k) {
            int32_t v = m->tri[3 * f + k];
            t->vf[t->vf_ofs[v] + fv[v]++] = f;
            int64_t e = edge_index(t, v, m->tri[3 * f + (k + 1) % 3]);
            t->ef[t->ef_ofs[e] + fe[e]++] = f;
        }
    free(fv), free(fe);
}

static int share_vertex(const topo *t, int64_t a, int64_t b)
{
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            if (t->tri[3 * a + i] == t->tri[3 * b + j]) return 1;
    return 0;
}

static int reported(const uint64_t *keys, size_t n, int64_t a, int64_t b)
{
    uint64_t key = a < b ? (uint64_t)a << 32 | (uint64_t)b : (uint64_t)b << 32 | (uint64_t)a;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t m = (lo + hi) / 2;
        if (keys[m] < key) lo = m + 1;
        else hi = m;
    }
    return lo < n && keys[lo] == key;
}

static void check_scene(const char *data, const char *scene, int f0)
{
    char p0[512], p1[512], path[512];
    snprintf(p0, sizeof p0, "%s/ccd-frames/%s/frames/%d.ply", data, scene, f0);
    snprintf(p1, sizeof p1, "%s/ccd-frames/%s/frames/%d.ply", data, scene, f0 + 1);
    char *files[2] = {p0, p1};
    clash_scene_desc d = {.name = (char *)scene, .steps = 1, .mode = CLASH_MODE_SWEPT, .self_collision = 1,
                          .nframes = 2, .frame_files = files, .frames_objects = CLASH_FRAMES_SINGLE};
    clash_error err;
    clash_scene *sc;
    clash_mesh m;
    if (clash_scene_build(&d, &sc, &err) || clash_mesh_load(p0, &m, &err)) {
        CHECK(0, "%s: %s", scene, err.msg);
        return;
    }
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_SWEPT;
    cfg.self_collision = 1;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    clash_pairs pairs;
    clash_step_stats st;
    CHECK(run && clash_step(run, 1, &pairs, &st, &err) == 0, "%s: step: %s", scene, err.msg);
    uint64_t *keys = malloc(sizeof(uint64_t) * (pairs.count + 1));
    for (size_t i = 0; i < pairs.count; ++i) keys[i] = (uint64_t)pairs.pairs[i].face_a << 32 | pairs.pairs[i].face_b;
    topo t;
    build_topo(&t, &m);
    long required = 0, missed = 0, positives[2] = {0, 0};
    for (int kind = 0; kind < 2; ++kind) {
        const char *k = kind ? "ee" : "vf";
        snprintf(path, sizeof path, "%s/ccd-frames/%s/boxes/%d%s.json", data, scene, f0, k);
        cJSON *boxes = load_json(path);
        snprintf(path, sizeof path, "%s/ccd-frames/%s/mma_bool/%d%s_mma_bool.json", data, scene, f0, k);
        cJSON *truth = load_json(path);
        CHECK(boxes && truth && cJSON_GetArraySize(boxes) == cJSON_GetArraySize(truth), "%s %s: ground truth", scene, k);
        if (!boxes || !truth) continue;
        int i = 0;
        for (cJSON *b = boxes->child, *tr = truth->child; b && tr; b = b->next, tr = tr->next, ++i) {
            if (!cJSON_IsTrue(tr)) continue;
            positives[kind]++;
            int64_t ida = (int64_t)cJSON_GetArrayItem(b, 0)->valuedouble, idb = (int64_t)cJSON_GetArrayItem(b, 1)->valuedouble;
            if (!kind) { /* vertex ida, face idb */
                int64_t fa = idb - t.V - t.E;
                CHECK(ida >= 0 && ida < t.V && fa >= 0 && fa < t.F, "%s vf %d: ids out of range", scene, i);
                for (int64_t q = t.vf_ofs[ida]; q < t.vf_ofs[ida + 1]; ++q) {
                    int64_t g = t.vf[q];
                    if (share_vertex(&t, g, fa)) continue;
                    ++required;
                    if (!reported(keys, pairs.count, g, fa)) ++missed;
                }
            } else { /* edges ida, idb */
                int64_t ea = ida - t.V, eb = idb - t.V;
                CHECK(ea >= 0 && ea < t.E && eb >= 0 && eb < t.E, "%s ee %d: ids out of range", scene, i);
                for (int64_t qa = t.ef_ofs[ea]; qa < t.ef_ofs[ea + 1]; ++qa)
                    for (int64_t qb = t.ef_ofs[eb]; qb < t.ef_ofs[eb + 1]; ++qb) {
                        int64_t ga = t.ef[qa], gb = t.ef[qb];
                        if (share_vertex(&t, ga, gb)) continue;
                        ++required;
                        if (!reported(keys, pairs.count, ga, gb)) ++missed;
                    }
            }
        }
        cJSON_Delete(boxes);
        cJSON_Delete(truth);
    }
    printf("%s: V=%lld E=%lld F=%lld; ground truth %ld vf + %ld ee colliding; %ld face pairs required, %ld missed; "
           "%zu pairs reported (%lld candidates, %lld faces kept, octree level %d)\n",
           scene, (long long)t.V, (long long)t.E, (long long)t.F, positives[0], positives[1], required, missed,
           pairs.count, (long long)st.candidates, (long long)st.faces_kept, st.octree_level);
    CHECK(positives[0] + positives[1] > 0, "%s: no positives in the ground truth?", scene);
    CHECK(missed == 0, "%s: %ld required face pairs missed", scene, missed);
    free(keys);
    free(t.edges), free(t.vf_ofs), free(t.vf), free(t.ef_ofs), free(t.ef);
    clash_mesh_free(&m);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

int main(void)
{
    const char *data = check_data_dir();
    if (!data) return check_skip("../shared/data is missing: the ccd-frames test needs it");
    check_scene(data, "cloth-funnel", 227);
    check_scene(data, "armadillo-rollers", 326);
    return check_finish("test_ccd_frames");
}
