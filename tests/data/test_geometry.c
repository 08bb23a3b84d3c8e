/*
 * test_geometry.c — contact geometry and edge tables (src/query/, clash.h
 * "Contact geometry, distances, proximity, edge tables"), each against an
 * independent computation (tests/unit/geom_oracle.h):
 *
 *  1. Edge tables: clash_scene_edges equals the run's own --ccd table
 *     (core/edges.h) on both ccd-frames scenes, and resolves every ee
 *     contact of their step: both edges are edges of faces of a pair the
 *     step reported; each contact's geometry lies on its primitives at toi;
 *     geometry off gives the same pairs and contacts bit for bit, and the
 *     geometry is the same for 1 and 2 threads.
 *  2. Intersection segments of the static pairs of two shared meshes equal
 *     the piercing points of each triangle's edges through the other.
 *  3. Contact geometry of a vertex falling on a face (from above and from
 *     below) and of two crossing edges (point, normal, parameters), and the
 *     object pairs' summary (penetration of a cube pressed into a slab).
 *  4. Bad arguments: CLASH_EINPUT naming the object or value, out unchanged.
 * Distances and proximity: test_distance.c.  The ccd-frames and shared-mesh
 * parts skip (77) when ../shared/data is missing.
 */
#include "base/sort.h"
#include "core/edges.h"
#include "core/run.h"
#include "stages/stages.h"
#include "geom_oracle.h"
#include "io/scene_desc.h"

/* ---- 1. edge tables on the ccd-frames scenes ---------------------------------------------- */

static clash_scene *frames_scene(const char *data, const char *scene, int f0, clash_error *err)
{
    static char p0[512], p1[512];
    snprintf(p0, sizeof p0, "%s/ccd-frames/%s/frames/%d.ply", data, scene, f0);
    snprintf(p1, sizeof p1, "%s/ccd-frames/%s/frames/%d.ply", data, scene, f0 + 1);
    char *files[2] = {p0, p1};
    clash_scene_desc d = {.name = (char *)scene, .steps = 1, .mode = CLASH_MODE_SWEPT, .self_collision = 1,
                          .nframes = 2, .frame_files = files, .frames_objects = CLASH_FRAMES_SINGLE};
    clash_scene *sc = NULL;
    return clash_scene_build(&d, &sc, err) ? NULL : sc;
}

static size_t lower(const uint64_t *k, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t m = (lo + hi) / 2;
        if (k[m] < key) lo = m + 1;
        else hi = m;
    }
    return lo;
}
static int has(const uint64_t *k, size_t n, uint64_t key)
{
    const size_t i = lower(k, n, key);
    return i < n && k[i] == key;
}

static void check_frames(const char *data, const char *name, int f0)
{
    clash_error err;
    clash_scene *sc = frames_scene(data, name, f0, &err);
    CHECK(sc, "%s: %s", name, err.msg);
    if (!sc) return;
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_SWEPT, cfg.self_collision = 1, cfg.ccd = 1, cfg.threads = 2;
    clash_run *off = clash_run_create(sc, &cfg, &err);
    clash_pairs p0;
    clash_contacts c0;
    CHECK(off && clash_step(off, 1, &p0, NULL, &err) == 0 && clash_run_contacts(off, &c0, &err) == 0, "%s", err.msg);
    clash_pair *keep_p = malloc((p0.count + 1) * sizeof *keep_p);
    clash_contact *keep_c = malloc((c0.count + 1) * sizeof *keep_c);
    memcpy(keep_p, p0.pairs, p0.count * sizeof *keep_p), memcpy(keep_c, c0.contacts, c0.count * sizeof *keep_c);
    const size_t np0 = p0.count, nc0 = c0.count;
    clash_run_destroy(off);
    cfg.geometry = 1;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    clash_pairs P;
    clash_contacts C;
    CHECK(run && clash_step(run, 1, &P, NULL, &err) == 0 && clash_run_contacts(run, &C, &err) == 0, "%s", err.msg);
    if (!run) return;
    CHECK(P.count == np0 && !memcmp(P.pairs, keep_p, np0 * sizeof *keep_p), "%s: geometry changed the pairs", name);
    CHECK(C.count == nc0 && !memcmp(C.contacts, keep_c, nc0 * sizeof *keep_c), "%s: geometry changed the contacts",
          name);
    free(keep_p), free(keep_c);
    /* the table against the run's own (store numbers mapped to input) */
    const int32_t *ij;
    int64_t ne;
    CHECK(clash_scene_edges(sc, 0, &ij, &ne) == 0, "%s: edges", name);
    const clash_edges *E = run->edges;
    CHECK(E && ne == E->eofs[1] - E->eofs[0], "%s: %lld edges, the run has %lld", name, (long long)ne,
          E ? (long long)(E->eofs[1] - E->eofs[0]) : -1LL);
    long bad = 0;
    for (int64_t e = 0; E && e < ne && e < E->eofs[1]; ++e)
        bad += ij[2 * e] != (int32_t)clash_vert_orig(sc, E->ev0[e]) ||
               ij[2 * e + 1] != (int32_t)clash_vert_orig(sc, E->ev1[e]);
    CHECK(bad == 0, "%s: %ld edges differ from the ccd table", name, bad);
    /* every ee contact: both edges are edges of faces of a reported pair */
    const int64_t nf = clash_scene_object_faces(sc, 0);
    uint64_t *ef = malloc((size_t)(3 * nf + 1) * sizeof *ef), *pk = malloc((P.count + 1) * sizeof *pk);
    size_t nef = 0;
    const clash_store_mesh *m = &sc->mesh[sc->obj_mesh[0]];
    for (int64_t f = 0; f < nf; ++f)
        for (int c = 0; c < 3; ++c) {
            const int32_t a = m->tri[3 * f + c], b = m->tri[3 * f + (c + 1) % 3];
            ef[nef++] = (uint64_t)(a < b ? b : a) << 40 | (uint64_t)(a < b ? a : b) << 20 | (uint64_t)f;
        }
    nef = clash_sort_unique_u64(ef, nef);
    for (size_t i = 0; i < P.count; ++i) pk[i] = (uint64_t)P.pairs[i].face_a << 32 | P.pairs[i].face_b;
    const size_t npk = clash_sort_unique_u64(pk, P.count);
    const clash_contact_geom *G;
    size_t ng;
    CHECK(clash_run_contact_geometry(run, &G, &ng, &err) == 0 && ng == C.count, "%s: contact geometry", name);
    long nee = 0, unresolved = 0, off_prim = 0;
    double scale = 0;
    for (int64_t v = 0; v < m->nv; ++v)
        for (int k = 0; k < 3; ++k) scale = fmax(scale, fabs(m->xyz[3 * v + k]));
    for (size_t i = 0; i < C.count; ++i) {
        const clash_contact *q = &C.contacts[i];
        double P0[4][3], P1[4][3];
        int32_t vid[4];
        if (q->kind == CLASH_CONTACT_EE) {
            ++nee;
            if (q->id_a >= ne || q->id_b >= ne) {
                ++unresolved;
                continue;
            }
            int32_t *ea = (int32_t *)ij + 2 * q->id_a, *eb = (int32_t *)ij + 2 * q->id_b;
            vid[0] = ea[0], vid[1] = ea[1], vid[2] = eb[0], vid[3] = eb[1];
            int found = 0;
            const uint64_t ka = (uint64_t)ea[1] << 40 | (uint64_t)ea[0] << 20;
            const uint64_t kb = (uint64_t)eb[1] << 40 | (uint64_t)eb[0] << 20;
            for (size_t x = lower(ef, nef, ka); x < nef && (ef[x] >> 20) == (ka >> 20) && !found; ++x)
                for (size_t y = lower(ef, nef, kb); y < nef && (ef[y] >> 20) == (kb >> 20) && !found; ++y) {
                    const uint64_t fa = ef[x] & 0xfffff, fb = ef[y] & 0xfffff;
                    found = has(pk, npk, fa < fb ? fa << 32 | fb : fb << 32 | fa);
                }
            unresolved += !found;
        } else {
            vid[0] = (int32_t)q->id_a;
            for (int c = 0; c < 3; ++c) vid[1 + c] = m->tri[3 * q->id_b + c];
        }
        for (int j = 0; j < 4; ++j)
            clash_scene_vertex_at(sc, 0, vid[j], 0, P0[j], &err), clash_scene_vertex_at(sc, 0, vid[j], 1, P1[j], &err);
        double X[4][3], pa[3], pb[3];
        for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 3; ++k) X[j][k] = P0[j][k] + q->toi * (P1[j][k] - P0[j][k]);
        const double *w = G[i].w;
        for (int k = 0; k < 3; ++k) {
            if (q->kind == CLASH_CONTACT_EE)
                pa[k] = X[0][k] + w[0] * (X[1][k] - X[0][k]), pb[k] = X[2][k] + w[1] * (X[3][k] - X[2][k]);
            else pa[k] = X[0][k], pb[k] = w[0] * X[1][k] + w[1] * X[2][k] + w[2] * X[3][k];
        }
        off_prim += dst(pa, G[i].pa) > 1e-9 * scale || dst(pb, G[i].pb) > 1e-9 * scale ||
                    fabs(dot(G[i].normal, G[i].normal) - 1) > 1e-12 || fabs(G[i].distance - dst(pa, pb)) > 1e-9 * scale;
    }
    printf("%s: %zu pairs, %zu contacts (%ld ee), %lld edges; %ld ee unresolved, %ld geometries off their primitives\n",
           name, P.count, C.count, nee, (long long)ne, unresolved, off_prim);
    CHECK(nee > 0 && unresolved == 0, "%s: %ld of %ld ee contacts not resolved by the edge table", name, unresolved,
          nee);
    CHECK(off_prim == 0, "%s: %ld contact geometries are not on their primitives at toi", name, off_prim);
    free(ef), free(pk);
    /* the same geometry with one thread, bit for bit */
    const clash_pair_geom *PG;
    size_t npg;
    CHECK(clash_run_pair_geometry(run, &PG, &npg, &err) == 0 && npg == P.count, "%s: pair geometry", name);
    clash_pair_geom *pg2 = malloc((npg + 1) * sizeof *pg2);
    clash_contact_geom *cg2 = malloc((ng + 1) * sizeof *cg2);
    memcpy(pg2, PG, npg * sizeof *pg2), memcpy(cg2, G, ng * sizeof *cg2);
    clash_run_destroy(run);
    cfg.threads = 1;
    run = clash_run_create(sc, &cfg, &err);
    CHECK(run && clash_step(run, 1, &P, NULL, &err) == 0 && clash_run_pair_geometry(run, &PG, &npg, &err) == 0 &&
              clash_run_contact_geometry(run, &G, &ng, &err) == 0, "%s: one thread: %s", name, err.msg);
    CHECK(npg == P.count && !memcmp(PG, pg2, npg * sizeof *pg2) && !memcmp(G, cg2, ng * sizeof *cg2),
          "%s: the geometry differs between 1 and 2 threads", name);
    free(pg2), free(cg2);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

/* ---- 2. intersection segments of static pairs ---------------------------------------------- */

/* Two objects of meshes ma, mb (B turned and shifted) in static mode; each pair's segment against the
 * farthest two piercing points of the pair's edges. */
static void check_segments(const clash_mesh *ma, const clash_mesh *mb, const char *what)
{
    clash_error err;
    clash_scene *sc;
    clash_scene_create(&sc, &err);
    const int ia = clash_scene_add_mesh(sc, ma->xyz, ma->nverts, ma->tri, ma->nfaces, &err);
    const int ib = clash_scene_add_mesh(sc, mb->xyz, mb->nverts, mb->tri, mb->nfaces, &err);
    double R[9];
    rot_axis(R, 1, 2, 3, 0.7);
    const double t[3] = {0.13, 0.07, -0.05};
    clash_scene_add_object(sc, ia, NULL, NULL, 0, &err);
    clash_scene_add_object(sc, ib, R, t, 0, &err);
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_STATIC, cfg.geometry = 1, cfg.threads = 2;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    clash_pairs P;
    const clash_pair_geom *G = NULL;
    size_t ng = 0;
    CHECK(run && !first_step(run, &P) && clash_run_pair_geometry(run, &G, &ng, &err) == 0 && ng == P.count,
          "%s: pair geometry", what);
    long seg = 0, copl = 0, bad = 0;
    for (size_t i = 0; G && i < P.count; ++i) {
        const clash_pair *p = &P.pairs[i];
        double A[3][3], B[3][3], pts[6][3];
        face_at(sc, p->obj_a ? mb : ma, (int)p->obj_a, p->face_a, A);
        face_at(sc, p->obj_b ? mb : ma, (int)p->obj_b, p->face_b, B);
        if (G[i].status == 2) {
            ++copl;
            continue;
        }
        ++seg;
        const int n = piercings(A, B, pts);
        int x = 0, y = 0;
        for (int a = 0; a < n; ++a)
            for (int b = a + 1; b < n; ++b)
                if (dst(pts[a], pts[b]) > dst(pts[x], pts[y])) x = a, y = b;
        const double tol = 1e-9;
        const int ok = G[i].status == 1 && n > 0 &&
                       ((dst(G[i].p, pts[x]) < tol && dst(G[i].q, pts[y]) < tol) ||
                        (dst(G[i].p, pts[y]) < tol && dst(G[i].q, pts[x]) < tol));
        if (!ok && bad++ < 5)
            fprintf(stderr, "%s: pair %zu (%u,%u)-(%u,%u): status %d, %d piercings, p (%g %g %g) q (%g %g %g)\n", what,
                    i, p->obj_a, p->face_a, p->obj_b, p->face_b, G[i].status, n, G[i].p[0], G[i].p[1], G[i].p[2],
                    G[i].q[0], G[i].q[1], G[i].q[2]);
    }
    printf("%s: %zu static pairs, %ld segments, %ld coplanar, %ld differ from the piercing points\n", what, P.count,
           seg,
           copl, bad);
    CHECK(P.count > 100 && bad == 0, "%s: %ld of %zu segments differ", what, bad, P.count);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

/* ---- 3. contact geometry and object pairs of generated scenes --------------------------------- */


static void check_contact_geometry(void)
{
    clash_error err;
    for (int up = 0; up < 2; ++up) { /* a vertex falling onto a face (up: rising from below) */
        const double F[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
        const double z = up ? -0.5 : 0.5, s = up ? -1 : 1;
        const double V[9] = {0.2, 0.3, z, 0.2, 0.35, z + 2 * s, 0.25, 0.3, z + 2 * s};
        clash_scene *sc;
        clash_run *run = two_triangles(&sc, F, V, CLASH_MODE_SWEPT, 1);
        const double t[3] = {0, 0, -s};
        clash_pairs P;
        CHECK(clash_run_set_pose(run, 1, NULL, t, &err) == 0 && !first_step(run, &P), "vf: %s", err.msg);
        clash_contacts C;
        const clash_contact_geom *G;
        size_t ng;
        CHECK(clash_run_contacts(run, &C, &err) == 0 && clash_run_contact_geometry(run, &G, &ng, &err) == 0 &&
              ng == C.count && C.count == 1, "vf: %zu contacts", C.count);
        if (C.count == 1) {
            const double pt[3] = {0.2, 0.3, 0};
            CHECK(C.contacts[0].kind == CLASH_CONTACT_VF && C.contacts[0].obj_a == 1 && C.contacts[0].id_a == 0, "vf");
            CHECK(dst(G[0].pa, pt) < 1e-5 && dst(G[0].pb, pt) < 1e-5 && dst(G[0].point, pt) < 1e-5, "vf point");
            CHECK(fabs(G[0].normal[2] - s) < 1e-12 && fabs(G[0].w[0] - 0.5) < 1e-9 && fabs(G[0].w[1] - 0.2) < 1e-9 &&
                  fabs(G[0].w[2] - 0.3) < 1e-9 && G[0].distance < 1e-5,
                  "vf (%s): normal %g %g %g, w %g %g %g, distance %g", up ? "from below" : "from above",
                  G[0].normal[0], G[0].normal[1], G[0].normal[2], G[0].w[0], G[0].w[1], G[0].w[2], G[0].distance);
        }
        const clash_object_pair *O;
        size_t no;
        CHECK(clash_run_object_pairs(run, &O, &no, &err) == 0 && no == 1 && O[0].obj_a == 0 && O[0].obj_b == 1 &&
              O[0].contacts == 1 && O[0].face_pairs == (int64_t)P.count && C.count == 1 &&
              O[0].first_toi == C.contacts[0].toi, "object pairs of the vf scene");
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
    { /* two edges crossing at t = 0.5: a along x above, b along y */
        const double A[9] = {-1, 0.5, 0.5, 1, 0.5, 0.5, 0, 0.5, 1.5}, B[9] = {0.3, -1, 0, 0.3, 1, 0, 0.3, 0, -1};
        clash_scene *sc;
        clash_run *run = two_triangles(&sc, A, B, CLASH_MODE_SWEPT, 1);
        const double t[3] = {0, 0, -0.75};
        clash_pairs P;
        CHECK(clash_run_set_pose(run, 0, NULL, t, &err) == 0 && !first_step(run, &P), "ee: %s", err.msg);
        clash_contacts C;
        const clash_contact_geom *G;
        size_t ng;
        CHECK(clash_run_contacts(run, &C, &err) == 0 && clash_run_contact_geometry(run, &G, &ng, &err) == 0 &&
              C.count == 1 && ng == 1, "ee: %zu contacts", C.count);
        if (C.count == 1) {
            const double pt[3] = {0.3, 0.5, 0};
            CHECK(C.contacts[0].kind == CLASH_CONTACT_EE && C.contacts[0].id_a == 0 && C.contacts[0].id_b == 0, "ee");
            CHECK(dst(G[0].pa, pt) < 1e-5 && dst(G[0].pb, pt) < 1e-5 && fabs(G[0].w[0] - 0.65) < 1e-9 &&
                  fabs(G[0].w[1] - 0.75) < 1e-9 && fabs(G[0].normal[2] - 1) < 1e-12,
                  "ee: pa %g %g %g, w %g %g, normal %g %g %g", G[0].pa[0], G[0].pa[1], G[0].pa[2], G[0].w[0], G[0].w[1],
                  G[0].normal[0], G[0].normal[1], G[0].normal[2]);
        }
        clash_run_destroy(run);
        clash_scene_destroy(sc);
    }
}

/* A closed box [lo, hi], outward winding. */
static void box_mesh(const double lo[3], const double hi[3], double xyz[24], int32_t tri[36])
{
    for (int i = 0; i < 8; ++i)
        xyz[3 * i] = i & 1 ? hi[0] : lo[0], xyz[3 * i + 1] = i & 2 ? hi[1] : lo[1],
                  xyz[3 * i + 2] = i & 4 ? hi[2] : lo[2];
    const int32_t t[36] = {0, 2, 3, 0, 3, 1, 4, 5, 7, 4, 7, 6, 0, 1, 5, 0, 5, 4,
                           2, 6, 7, 2, 7, 3, 0, 4, 6, 0, 6, 2, 1, 3, 7, 1, 7, 5};
    memcpy(tri, t, sizeof t);
}

static void check_penetration(void)
{
    clash_error err;
    const double h = 0.0625, slo[3] = {-10, -10, -1}, shi[3] = {10, 10, 0}, clo[3] = {0, 0, -h}, chi[3] = {1, 1, 1 - h};
    double S[24], Cb[24];
    int32_t ts[36], tc[36];
    box_mesh(slo, shi, S, ts), box_mesh(clo, chi, Cb, tc);
    clash_scene *sc;
    clash_scene_create(&sc, &err);
    clash_scene_add_mesh(sc, S, 8, ts, 12, &err), clash_scene_add_mesh(sc, Cb, 8, tc, 12, &err);
    clash_scene_add_object(sc, 0, NULL, NULL, 0, &err), clash_scene_add_object(sc, 1, NULL, NULL, 0, &err);
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_STATIC, cfg.geometry = 1;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    clash_pairs P;
    const clash_object_pair *O;
    size_t no;
    CHECK(!first_step(run, &P) && clash_run_object_pairs(run, &O, &no, &err) == 0 && no == 1, "penetration");
    if (no == 1)
        CHECK(O[0].face_pairs == (int64_t)P.count && P.count > 0 && O[0].contacts == 0 && O[0].first_toi == -1 &&
              fabs(O[0].penetration - h) < 1e-15, "penetration %.17g, expected %g (%zu pairs)", O[0].penetration, h,
              P.count);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

/* ---- 4. bad arguments ------------------------------------------------------------------------ */

static void check_bad_arguments(void)
{
    clash_error err;
    const double A[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0}, B[9] = {0, 0, 1, 1, 0, 1, 0, 1, 1};
    clash_scene *sc;
    clash_run *run = two_triangles(&sc, A, B, CLASH_MODE_STATIC, 0);
    clash_distance D, keep;
    memset(&D, 0x5a, sizeof D), keep = D;
    struct {
        int a, b;
        double max;
        const char *needle;
    } bad[] = {{0, 7, INFINITY, "object 7"}, {-1, 1, 1, "object -1"}, {1, 1, 1, "objects 1 and 1"},
               {0, 1, NAN, "max_distance is nan"}, {0, 1, -1e-9, "max_distance is -1e-09"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        err.msg[0] = 0;
        const int rc = clash_run_distance(run, bad[i].a, bad[i].b, bad[i].max, &D, &err);
        CHECK(rc == CLASH_EINPUT && strstr(err.msg, bad[i].needle) && !memcmp(&D, &keep, sizeof D),
              "distance bad argument %zu: rc %d, '%s'", i, rc, err.msg);
    }
    CHECK(clash_run_distance(run, 0, 1, 1, NULL, &err) == CLASH_EINPUT && strstr(err.msg, "out is NULL"), "NULL out");
    CHECK(clash_run_distance(run, 0, 1, INFINITY, &D, &err) == 0 && D.found && fabs(D.distance - 1) < 1e-15,
          "the triangles are 1 apart: %g", D.distance);
    const clash_proximity *Q = (const clash_proximity *)&keep;
    size_t nq = 5;
    const double dh[] = {NAN, -1, INFINITY};
    for (int i = 0; i < 3; ++i)
        CHECK(clash_run_proximity(run, dh[i], &Q, &nq, &err) == CLASH_EINPUT && !Q && !nq && strstr(err.msg, "dhat"),
              "proximity dhat %g: %s", dh[i], err.msg);
    CHECK(clash_run_proximity(run, 1, NULL, &nq, &err) == CLASH_EINPUT, "proximity NULL out");
    CHECK(clash_run_proximity(run, 1.5, &Q, &nq, &err) == 0 && nq == 3 + 3 + 9, "proximity within 1.5: %zu", nq);
    /* geometry calls: without ccd no contact geometry; a run without geometry refuses all three */
    const clash_contact_geom *G;
    const clash_pair_geom *PG;
    const clash_object_pair *O;
    size_t n;
    CHECK(clash_run_contact_geometry(run, &G, &n, &err) == CLASH_EINPUT && strstr(err.msg, "ccd"), "no ccd");
    CHECK(clash_run_pair_geometry(run, &PG, NULL, &err) == CLASH_EINPUT, "NULL count");
    clash_run_destroy(run);
    clash_config cfg = clash_config_default();
    run = clash_run_create(sc, &cfg, &err);
    CHECK(clash_run_pair_geometry(run, &PG, &n, &err) == CLASH_EINPUT && strstr(err.msg, "without geometry") &&
              clash_run_object_pairs(run, &O, &n, &err) == CLASH_EINPUT && !O && !n,
          "geometry off: %s", err.msg);
    CHECK(clash_config_set(&cfg, "geometry", "1", &err) == 0 && cfg.geometry == 1 &&
              clash_config_set(&cfg, "geometry", "2", &err) == CLASH_EINPUT, "config geometry");
    const int32_t *ij = (const int32_t *)&keep;
    int64_t ne = 9;
    CHECK(clash_scene_edges(sc, 2, &ij, &ne) == CLASH_EINPUT && !ij && !ne, "edges of object 2");
    CHECK(clash_scene_edges(sc, 1, &ij, &ne) == 0 && ne == 3 && ij[0] == 0 && ij[1] == 1 && ij[2] == 0 && ij[3] == 2 &&
              ij[4] == 1 && ij[5] == 2, "edges of a triangle: by j, then i");
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

int main(void)
{
    check_contact_geometry();
    check_penetration();
    check_bad_arguments();
    const char *data = check_data_dir();
    if (!data) {
        check_finish("test_geometry");
        return check_skip("../shared/data is missing: the shared-mesh and ccd-frames checks need it");
    }
    check_frames(data, "cloth-funnel", 227);
    check_frames(data, "armadillo-rollers", 326);
    clash_mesh su = load_mesh(data, "suzanne.obj"), sp = load_mesh(data, "spot.obj");
    if (su.nfaces && sp.nfaces) check_segments(&su, &sp, "suzanne/spot"), check_segments(&su, &su, "suzanne/suzanne");
    clash_mesh_free(&su), clash_mesh_free(&sp);
    return check_finish("test_geometry");
}
