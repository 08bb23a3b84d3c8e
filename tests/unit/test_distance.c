/*
 * test_distance.c — clash_run_distance and clash_run_proximity (src/query/)
 * against brute force written apart (tests/unit/geom_oracle.h):
 *
 *  1. Distances equal brute force over every face pair (its own triangle
 *     distance) on parallel grids 1e-3 ... 1e-9 apart under a common rigid
 *     motion (the distance is the gap), and on shared meshes (suzanne
 *     against suzanne and the cow): apart, moved along their nearest points'
 *     line to 1e-3 ... 1e-9 apart (the distance is the gap), overlapping;
 *     the nearest points lie on the faces named; max_distance below the
 *     distance finds nothing.  Prints each call's time against brute force.
 *  2. Proximity equals brute force over every vf and ee pair, between
 *     objects and, with self_collision, inside one, distances included.
 * The shared-mesh parts skip (77) when ../shared/data is missing.
 */
#include "geom_oracle.h"

/* ---- 1. distances --------------------------------------------------------------------------- */

typedef struct brute {
    double d;
    int64_t fa, fb;
} brute;
static brute brute_distance(const clash_scene *sc, const clash_mesh *ma, const clash_mesh *mb)
{
    brute r = {INFINITY, -1, -1};
    double (*B)[3][3] = malloc((size_t)mb->nfaces * sizeof *B);
    for (int64_t g = 0; g < mb->nfaces; ++g) face_at(sc, mb, 1, g, B[g]);
    for (int64_t f = 0; f < ma->nfaces; ++f) {
        double A[3][3];
        face_at(sc, ma, 0, f, A);
        for (int64_t g = 0; g < mb->nfaces; ++g) {
            const double d = tri_tri(A, B[g]);
            if (d < r.d) r = (brute){d, f, g};
        }
    }
    free(B);
    return r;
}


/* Object b's pose rot (NULL: identity), trans; the distance against brute force. */
static clash_distance check_distance(clash_scene *sc, clash_run *run, const clash_mesh *ma, const clash_mesh *mb,
                                     const double *rot, const double *trans, double expect, const char *what)
{
    clash_error err;
    clash_pairs P;
    CHECK(clash_run_set_pose(run, 1, rot, trans, &err) == 0 && !first_step(run, &P), "%s: %s", what, err.msg);
    clash_distance D;
    double t0 = now();
    int calls = 0;
    do {
        CHECK(clash_run_distance(run, 0, 1, INFINITY, &D, &err) == 0, "%s: %s", what, err.msg);
        ++calls;
    } while (now() - t0 < 0.05);
    const double per_call = (now() - t0) / calls;
    t0 = now();
    const brute b = brute_distance(sc, ma, mb);
    const double brute_s = now() - t0;
    double A[3][3], B[3][3];
    face_at(sc, ma, 0, D.face_a, A), face_at(sc, mb, 1, D.face_b, B);
    const double on_a = pt_tri(D.pa, A[0], A[1], A[2]), on_b = pt_tri(D.pb, B[0], B[1], B[2]);
    printf("%s: distance %.17g, brute force %.17g (faces %lld, %lld; clash %u, %u); %.3g ms a call against %.3g ms "
           "brute force\n", what, D.distance, b.d, (long long)b.fa, (long long)b.fb, D.face_a, D.face_b, per_call * 1e3,
           brute_s * 1e3);
    CHECK(D.found == 1 && fabs(D.distance - b.d) <= 1e-13 + 1e-12 * b.d, "%s: %.17g against brute force %.17g", what,
          D.distance, b.d);
    CHECK(on_a <= 1e-12 && on_b <= 1e-12 && fabs(dst(D.pa, D.pb) - D.distance) <= 1e-13, "%s: nearest points", what);
    if (expect >= 0)
        CHECK(fabs(D.distance - expect) <= 1e-14 + 1e-9 * expect, "%s: %.17g, expected %.17g", what, D.distance,
              expect);
    /* max_distance: below the distance none, at or above it the same answer */
    clash_distance E;
    CHECK(clash_run_distance(run, 0, 1, D.distance * 0.5, &E, &err) == 0 && (D.distance == 0 ? E.found : !E.found),
          "%s: max_distance below", what);
    CHECK(clash_run_distance(run, 1, 0, D.distance * 2 + 1e-300, &E, &err) == 0 && E.found &&
              fabs(E.distance - D.distance) <= 1e-13 + 1e-12 * D.distance && E.obj_a == 1,
          "%s: max_distance above, objects swapped", what);
    return D;
}

/* A grid of n x n squares (2 n^2 triangles) on [0, 1]^2 at height z. */
static clash_mesh grid(int n, double z)
{
    clash_mesh m = {.nverts = (int64_t)(n + 1) * (n + 1), .nfaces = 2 * (int64_t)n * n};
    m.xyz = malloc((size_t)m.nverts * 3 * sizeof(double)), m.tri = malloc((size_t)m.nfaces * 3 * sizeof(int32_t));
    for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
            double *v = m.xyz + 3 * (j * (n + 1) + i);
            v[0] = (double)i / n, v[1] = (double)j / n, v[2] = z;
        }
    int64_t f = 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const int32_t a = j * (n + 1) + i, b = a + 1, c = a + n + 1, d = c + 1;
            const int32_t t[6] = {a, b, d, a, d, c};
            memcpy(m.tri + 3 * f, t, sizeof t), f += 2;
        }
    return m;
}

static void check_distances(const char *data)
{
    clash_error err;
    /* generated: two grids g apart, under one rigid motion of both (the distance is g) */
    for (int e = 3; e <= 9; ++e) {
        const double g = pow(10, -e);
        clash_mesh a = grid(12, 0), b = grid(12, g);
        clash_scene *sc;
        clash_scene_create(&sc, &err);
        clash_scene_add_mesh(sc, a.xyz, a.nverts, a.tri, a.nfaces, &err);
        clash_scene_add_mesh(sc, b.xyz, b.nverts, b.tri, b.nfaces, &err);
        double R[9];
        rot_axis(R, 0.3, -1, 0.5, 0.4 + e);
        const double t[3] = {0.5, -0.25, 2};
        clash_scene_add_object(sc, 0, R, t, 0, &err);
        clash_scene_add_object(sc, 1, R, t, 0, &err);
        clash_config cfg = clash_config_default();
        cfg.mode = CLASH_MODE_STATIC, cfg.threads = 1;
        clash_run *run = clash_run_create(sc, &cfg, &err);
        char what[64];
        snprintf(what, sizeof what, "grids %g apart", g);
        const double t2[3] = {0.5, -0.25, 2};
        check_distance(sc, run, &a, &b, R, t2, g, what);
        clash_run_destroy(run);
        clash_scene_destroy(sc);
        free(a.xyz), free(a.tri), free(b.xyz), free(b.tri);
    }
    if (!data) return;
    /* shared meshes: suzanne against suzanne and the cow, apart, nearly touching and overlapping */
    clash_mesh su = load_mesh(data, "suzanne.obj"), cow = load_mesh(data, "cow.obj");
    if (!su.nfaces || !cow.nfaces) return;
    const clash_mesh *pairs[2][2] = {{&su, &su}, {&su, &cow}};
    for (int k = 0; k < 2; ++k) {
        const clash_mesh *ma = pairs[k][0], *mb = pairs[k][1];
        clash_scene *sc;
        clash_scene_create(&sc, &err);
        clash_scene_add_mesh(sc, ma->xyz, ma->nverts, ma->tri, ma->nfaces, &err);
        clash_scene_add_mesh(sc, mb->xyz, mb->nverts, mb->tri, mb->nfaces, &err);
        clash_scene_add_object(sc, 0, NULL, NULL, 0, &err);
        clash_scene_add_object(sc, 1, NULL, NULL, 0, &err);
        clash_config cfg = clash_config_default();
        cfg.mode = CLASH_MODE_STATIC, cfg.threads = 1;
        clash_run *run = clash_run_create(sc, &cfg, &err);
        double R[9];
        rot_axis(R, 0, 1, 0.2, 0.3);
        const char *name = k ? "suzanne/cow" : "suzanne/suzanne";
        char what[96];
        /* apart; then b moved toward a along the nearest points' line by all but g: the distance is g (every
         * other face pair was at least as far and came at most as much nearer) */
        const double far[3] = {k ? 6 : 3, 0.01, 0.02};
        snprintf(what, sizeof what, "%s apart", name);
        const clash_distance D = check_distance(sc, run, ma, mb, k ? NULL : R, far, -1, what);
        for (int e = 3; e <= 9; e += k ? 6 : 2) { /* the cow's brute force is the slow one: two gaps */
            const double g = pow(10, -e);
            double t[3];
            for (int c = 0; c < 3; ++c) t[c] = far[c] + (D.pa[c] - D.pb[c]) / D.distance * (D.distance - g);
            snprintf(what, sizeof what, "%s %g apart", name, g);
            check_distance(sc, run, ma, mb, k ? NULL : R, t, g, what);
        }
        const double over[3] = {0.3, 0.01, 0.02};
        snprintf(what, sizeof what, "%s overlapping", name);
        check_distance(sc, run, ma, mb, k ? NULL : R, over, k ? -1 : 0, what); /* suzanne lies inside the cow */
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
    clash_mesh_free(&su), clash_mesh_free(&cow);
}

/* ---- 2. proximity against brute force --------------------------------------------------- */

typedef struct prox {
    uint32_t kind, oa, ia, ob, ib;
    double d;
} prox;
static int prox_cmp(const void *x, const void *y)
{
    const prox *a = x, *b = y;
    const uint32_t ka[5] = {a->kind, a->oa, a->ia, a->ob, a->ib}, kb[5] = {b->kind, b->oa, b->ia, b->ob, b->ib};
    for (int k = 0; k < 5; ++k)
        if (ka[k] != kb[k]) return ka[k] < kb[k] ? -1 : 1;
    return 0;
}

/* Every vf and ee pair of the scene's objects (all of one mesh m) within reach, by brute force. */
static prox *brute_prox(const clash_scene *sc, const clash_mesh *m, int self, double reach, size_t *n)
{
    const int no = clash_scene_objects(sc);
    const int32_t *ij;
    int64_t ne;
    clash_scene_edges(sc, 0, &ij, &ne);
    const int s = sc->state < 0 ? 0 : sc->state;
    clash_error err;
    double (*X)[3] = malloc((size_t)(no * m->nverts) * sizeof *X);
    for (int o = 0; o < no; ++o)
        for (int64_t v = 0; v < m->nverts; ++v) clash_scene_vertex_at(sc, o, v, s, X[o * m->nverts + v], &err);
    size_t cap = 1024, k = 0;
    prox *r = malloc(cap * sizeof *r);
    for (int oa = 0; oa < no; ++oa)
        for (int ob = 0; ob < no; ++ob) {
            if (oa == ob && !self) continue;
            const double(*A)[3] = X + oa * m->nverts, (*B)[3] = X + ob * m->nverts;
            for (int64_t v = 0; v < m->nverts; ++v)
                for (int64_t f = 0; f < m->nfaces; ++f) {
                    const int32_t *t = m->tri + 3 * f;
                    if (oa == ob && (t[0] == v || t[1] == v || t[2] == v)) continue;
                    const double d = pt_tri(A[v], B[t[0]], B[t[1]], B[t[2]]);
                    if (d > reach) continue;
                    if (k == cap) r = realloc(r, (cap *= 2) * sizeof *r);
                    r[k++] = (prox){0, (uint32_t)oa, (uint32_t)v, (uint32_t)ob, (uint32_t)f, d};
                }
            if (ob < oa) continue;
            for (int64_t e = 0; e < ne; ++e)
                for (int64_t g = oa == ob ? e + 1 : 0; g < ne; ++g) {
                    const int32_t *a = ij + 2 * e, *b = ij + 2 * g;
                    if (oa == ob && (a[0] == b[0] || a[0] == b[1] || a[1] == b[0] || a[1] == b[1])) continue;
                    const double d = seg_seg(A[a[0]], A[a[1]], B[b[0]], B[b[1]]);
                    if (d > reach) continue;
                    if (k == cap) r = realloc(r, (cap *= 2) * sizeof *r);
                    r[k++] = (prox){1, (uint32_t)oa, (uint32_t)e, (uint32_t)ob, (uint32_t)g, d};
                }
        }
    free(X);
    qsort(r, k, sizeof *r, prox_cmp);
    *n = k;
    return r;
}

static void check_proximity(const char *data)
{
    clash_error err;
    clash_mesh su = load_mesh(data, "suzanne.obj");
    if (!su.nfaces) return;
    for (int self = 0; self < 2; ++self) {
        clash_scene *sc;
        clash_scene_create(&sc, &err);
        clash_scene_add_mesh(sc, su.xyz, su.nverts, su.tri, su.nfaces, &err);
        double R[9];
        rot_axis(R, 1, 1, 0, 2.5);
        const double t[3] = {1.9, 0.3, 0.1};
        clash_scene_add_object(sc, 0, NULL, NULL, 0, &err);
        clash_scene_add_object(sc, 0, R, t, 0, &err);
        clash_config cfg = clash_config_default();
        cfg.mode = CLASH_MODE_STATIC, cfg.self_collision = self;
        clash_run *run = clash_run_create(sc, &cfg, &err);
        const double dhat = self ? 0.02 : 0.12;
        const clash_proximity *Q;
        size_t nq, nb;
        double t0 = now();
        CHECK(clash_run_proximity(run, dhat, &Q, &nq, &err) == 0, "proximity: %s", err.msg);
        const double fast = now() - t0;
        t0 = now();
        prox *B = brute_prox(sc, &su, self, dhat * (1 + 1e-9), &nb);
        const double slow = now() - t0;
        long missing = 0, extra = 0, off = 0, unsorted = 0;
        size_t j = 0;
        for (size_t i = 0; i < nq; ++i) {
            const prox q = {Q[i].kind, Q[i].obj_a, Q[i].id_a, Q[i].obj_b, Q[i].id_b, Q[i].distance};
            if (i) {
                const prox p = {Q[i - 1].kind, Q[i - 1].obj_a, Q[i - 1].id_a, Q[i - 1].obj_b, Q[i - 1].id_b, 0};
                unsorted += prox_cmp(&p, &q) >= 0;
            }
            while (j < nb && prox_cmp(&B[j], &q) < 0) missing += B[j++].d <= dhat * (1 - 1e-9);
            if (j < nb && !prox_cmp(&B[j], &q)) off += fabs(B[j++].d - q.d) > 1e-13;
            else ++extra;
        }
        for (; j < nb; ++j) missing += B[j].d <= dhat * (1 - 1e-9);
        printf("proximity (self %d, dhat %g): %zu pairs, brute force %zu; %ld missing, %ld extra, %ld distances off; "
               "%.3g ms against %.3g ms brute force\n",
               self, dhat, nq, nb, missing, extra, off, fast * 1e3, slow * 1e3);
        CHECK(nq > 20 && missing == 0 && extra == 0 && off == 0 && unsorted == 0,
              "proximity (self %d): %ld missing, %ld extra, %ld off, %ld unsorted", self, missing, extra, off,
              unsorted);
        free(B);
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
    clash_mesh_free(&su);
}

int main(void)
{
    const char *data = check_data_dir();
    check_distances(data);
    if (!data) {
        check_finish("test_distance");
        return check_skip("../shared/data is missing: the shared-mesh checks need it");
    }
    check_proximity(data);
    return check_finish("test_distance");
}
