/*
 * test_run_query.c — trial steps, jumps and batched states (clash.h, "Trial
 * steps, jumps and batched states"): clash_run_query, clash_run_jump,
 * clash_run_set_poses, clash_run_set_vertices_many.
 *
 *  1. Query then advance.  Two identical scenes (eight UV spheres closing in
 *     on a ring while they turn, optionally one deforming sphere that
 *     breathes, set by vertices) driven by the same states: run A only
 *     advances; run B, before each advance, queries the full step and then
 *     the step scaled by 1/2 and 1/4 (a line search), sets the states A
 *     takes, queries them, and advances.  B's last query must give A's
 *     advance (pairs, contacts, first_toi against A's ccd_first_toi) and B's
 *     advance must give A's advance exactly, pairs, contacts and every count
 *     of the step statistics, for static, swept and swept --ccd, every
 *     midphase, 1 and 2 threads.  The final states are sometimes a half step
 *     (then the queries at 1 differ from the advance).  The bounds the advance
 *     keeps from the step before (swept mode) are the same with and without
 *     the queries.
 *  2. Jump: a box jumped through a wall has no pairs; the advance after it
 *     sweeps from the state jumped to (no pairs when it moves on away from
 *     the wall; pairs when it moves back through it), and an advance in
 *     place of the jump does sweep through the wall.
 *  3. Bad arguments to every new call (NULL run or output, n < 0, an unknown
 *     object, a NaN, a rotation that is not one, a rigid object given
 *     vertices, a NULL array): CLASH_EINPUT naming the batch element and the
 *     object, and nothing set: the next advance equals a run's that never
 *     got the call.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "clash/clash.h"
#include "core/run.h"
#include "stages/stages.h" /* held_boxes, held_dops: the bounds an advance kept from the step before */

enum { NOBJ = 8, STEPS = 7 };

/* A UV sphere of radius 1: st stacks, sl slices. */
static void uv_sphere(int st, int sl, double **xyz, int64_t *nv, int32_t **tri, int64_t *nf)
{
    *nv = 2 + (int64_t)(st - 1) * sl;
    *nf = 2 * (int64_t)sl * (st - 1);
    double *v = malloc(3 * sizeof(double) * (size_t)*nv);
    int32_t *t = malloc(3 * sizeof(int32_t) * (size_t)*nf);
    v[0] = 0, v[1] = 0, v[2] = 1;
    int64_t k = 1;
    for (int i = 1; i < st; ++i)
        for (int j = 0; j < sl; ++j, ++k) {
            const double th = M_PI * i / st, ph = 2 * M_PI * j / sl;
            v[3 * k] = sin(th) * cos(ph), v[3 * k + 1] = sin(th) * sin(ph), v[3 * k + 2] = cos(th);
        }
    v[3 * k] = 0, v[3 * k + 1] = 0, v[3 * k + 2] = -1;
    const int32_t south = (int32_t)k;
    int64_t f = 0;
    for (int j = 0; j < sl; ++j) {
        const int32_t a = 1 + j, b = 1 + (j + 1) % sl;
        t[3 * f] = 0, t[3 * f + 1] = a, t[3 * f + 2] = b, ++f;
        const int32_t c = 1 + (st - 2) * sl + j, d = 1 + (st - 2) * sl + (j + 1) % sl;
        t[3 * f] = south, t[3 * f + 1] = d, t[3 * f + 2] = c, ++f;
    }
    for (int i = 1; i < st - 1; ++i)
        for (int j = 0; j < sl; ++j) {
            const int32_t a = 1 + (i - 1) * sl + j, b = 1 + (i - 1) * sl + (j + 1) % sl;
            const int32_t c = 1 + i * sl + j, d = 1 + i * sl + (j + 1) % sl;
            t[3 * f] = a, t[3 * f + 1] = c, t[3 * f + 2] = b, ++f;
            t[3 * f] = b, t[3 * f + 1] = c, t[3 * f + 2] = d, ++f;
        }
    *xyz = v, *tri = t;
}

static double *g_xyz;
static int32_t *g_tri;
static int64_t g_nv, g_nf;

/* Object o's pose at "time" u (the step number, or a fraction between two). */
static void pose_at(int o, double u, double R[9], double t[3])
{
    const double r = 3.5 - 0.25 * u, ang = 2 * M_PI * o / NOBJ, th = 0.04 * u * (o + 1);
    const double c = cos(th), s = sin(th);
    const double Rz[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(R, Rz, sizeof Rz);
    t[0] = r * cos(ang), t[1] = r * sin(ang), t[2] = 0.1 * (o % 3);
}

/* The deforming sphere's world positions at time u: centred, breathing. */
static void breath_at(double u, double *out)
{
    const double k = 0.4 + 0.1 * u;
    for (int64_t v = 0; v < g_nv; ++v)
        out[3 * v] = k * g_xyz[3 * v], out[3 * v + 1] = k * g_xyz[3 * v + 1], out[3 * v + 2] = k * g_xyz[3 * v + 2];
}

static clash_scene *make_scene(int deforming)
{
    clash_scene *sc;
    clash_error err;
    if (clash_scene_create(&sc, &err)) return NULL;
    const int m = clash_scene_add_mesh(sc, g_xyz, g_nv, g_tri, g_nf, &err);
    for (int o = 0; o < NOBJ; ++o) {
        double R[9], t[3];
        pose_at(o, 0, R, t);
        clash_scene_add_object(sc, m, R, t, 0, &err);
    }
    if (deforming) {
        const double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[3] = {0, 0, 0};
        clash_scene_add_object(sc, m, R, t, 1, &err);
        double *w = malloc(3 * sizeof(double) * (size_t)g_nv);
        breath_at(0, w);
        free(w);
    }
    return sc;
}

/* The states of time u set on run (the deforming sphere too when present). */
static int set_states(clash_run *run, int deforming, double u, clash_error *err)
{
    double R[NOBJ * 9], t[NOBJ * 3];
    for (int o = 0; o < NOBJ; ++o) pose_at(o, u, R + 9 * o, t + 3 * o);
    int rc = clash_run_set_poses(run, NOBJ, NULL, R, t, err);
    if (!rc && deforming) {
        double *w = malloc(3 * sizeof(double) * (size_t)g_nv);
        breath_at(u, w);
        const int obj = NOBJ;
        const double *const list[1] = {w};
        rc = clash_run_set_vertices_many(run, 1, &obj, list, err);
        free(w);
    }
    return rc;
}

static int same_pairs(const clash_pairs *a, const clash_pairs *b)
{
    return a->count == b->count && (!a->count || !memcmp(a->pairs, b->pairs, a->count * sizeof *a->pairs));
}

static int same_contacts(const clash_contacts *a, const clash_contacts *b)
{
    if (a->count != b->count) return 0;
    for (size_t i = 0; i < a->count; ++i) {
        const clash_contact *x = &a->contacts[i], *y = &b->contacts[i];
        if (x->kind != y->kind || x->obj_a != y->obj_a || x->id_a != y->id_a || x->obj_b != y->obj_b ||
            x->id_b != y->id_b || memcmp(&x->toi, &y->toi, sizeof x->toi))
            return 0;
    }
    return 1;
}

/* The step statistics but the times and mid_bytes (the kept trees' capacities,
 * which a trial of a longer step may have grown): the name of the first
 * count that differs, or NULL. */
static const char *stats_differ(const clash_step_stats *a, const clash_step_stats *b)
{
#define F(f) if (a->f != b->f) return #f;
    F(vertices) F(faces_boxed) F(object_pairs) F(faces_kept) F(candidates) F(tests) F(hits) F(octree_level)
    F(mid_fallback_objects) F(mid_interfering) F(ccd_tests) F(ccd_vf_tests) F(ccd_hull_no)
    F(ccd_filter_no) F(ccd_filter_yes) F(ccd_exact_calls) F(ccd_contacts) F(rank) F(ranks) F(rank_units)
    F(rank_hits)
#undef F
    if (memcmp(&a->ccd_first_toi, &b->ccd_first_toi, sizeof a->ccd_first_toi)) return "ccd_first_toi";
    return NULL;
}

/* Copies of a step's results, which the run owns only until its next step. */
typedef struct result {
    clash_pair *p;
    size_t np;
    clash_contact *c;
    size_t nc;
} result;

static void keep(result *r, const clash_pairs *p, const clash_contacts *c)
{
    free(r->p), free(r->c);
    r->np = p->count, r->p = malloc((p->count + 1) * sizeof *r->p);
    if (p->count) memcpy(r->p, p->pairs, p->count * sizeof *r->p);
    r->nc = c ? c->count : 0, r->c = malloc((r->nc + 1) * sizeof *r->c);
    if (r->nc) memcpy(r->c, c->contacts, r->nc * sizeof *r->c);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *mid_name[] = {"octree", "bvh", "bboxpipe", "brute", "objoctree", "spherical", "boxtree", "doptree"};

/* Part 1 for one configuration; returns the pairs seen over the steps (so
 * the caller can check that the scene collides at all). */
static size_t query_then_advance(int mode, int ccd, int mid, int threads, int deforming)
{
    char what[96];
    snprintf(what, sizeof what, "%s%s %s, %d thread%s%s", mode ? "swept" : "static", ccd ? " --ccd" : "",
             mid_name[mid], threads, threads > 1 ? "s" : "", deforming ? ", deforming" : "");
    const double t0 = now();
    clash_scene *sa = make_scene(deforming), *sb = make_scene(deforming);
    clash_config cfg = clash_config_default();
    cfg.mode = mode, cfg.ccd = ccd, cfg.midphase = mid, cfg.threads = threads;
    clash_error err;
    clash_run *A = clash_run_create(sa, &cfg, &err), *B = A ? clash_run_create(sb, &cfg, &err) : NULL;
    CHECK(A && B, "%s: run_create: %s", what, err.msg);
    size_t seen = 0;
    result ra = {0};
    for (int k = 1; A && B && k <= STEPS; ++k) {
        const double u = k % 3 == 2 ? k - 0.5 : k; /* some steps only half way */
        /* B: a line search first (the full step to k, then 1/2, 1/4 of it) */
        const double us[3] = {k, k - 0.5, k - 0.75};
        for (int i = 0; i < 3; ++i) {
            clash_pairs qp;
            double toi = -1;
            CHECK(!set_states(B, deforming, us[i], &err), "%s: step %d: set: %s", what, k, err.msg);
            CHECK(!clash_run_query(B, &qp, NULL, &toi, &err), "%s: step %d: query: %s", what, k, err.msg);
            CHECK(toi >= 0 && toi <= 1, "%s: step %d: first_toi %g", what, k, toi);
            CHECK(clash_run_state(B) == k - 1, "%s: step %d: state %d after a query", what, k, clash_run_state(B));
        }
        /* A: the step */
        CHECK(!set_states(A, deforming, u, &err), "%s: step %d: %s", what, k, err.msg);
        clash_pairs pa, pb, qb;
        clash_contacts ca = {0}, cb = {0}, qc = {0};
        clash_step_stats sa_st, sb_st;
        CHECK(!clash_run_advance(A, &pa, &sa_st, &err), "%s: step %d: advance A: %s", what, k, err.msg);
        if (ccd) clash_run_contacts(A, &ca, &err);
        keep(&ra, &pa, &ca);
        const clash_pairs pa_kept = {ra.p, ra.np};
        const clash_contacts ca_kept = {ra.c, ra.nc};
        seen += ra.np;
        /* B: the states A took, queried, then advanced */
        double toi = -1;
        CHECK(!set_states(B, deforming, u, &err), "%s: step %d: %s", what, k, err.msg);
        CHECK(!clash_run_query(B, &qb, &qc, &toi, &err), "%s: step %d: query: %s", what, k, err.msg);
        CHECK(same_pairs(&qb, &pa_kept), "%s: step %d: query's %zu pairs, advance's %zu", what, k, qb.count,
              pa_kept.count);
        CHECK(same_contacts(&qc, &ca_kept), "%s: step %d: query's %zu contacts, advance's %zu", what, k, qc.count,
              ca_kept.count);
        if (ccd)
            CHECK(toi == (sa_st.ccd_first_toi < 0 ? 1 : sa_st.ccd_first_toi), "%s: step %d: first_toi %.17g, "
                  "the advance's %.17g", what, k, toi, sa_st.ccd_first_toi);
        CHECK(!clash_run_advance(B, &pb, &sb_st, &err), "%s: step %d: advance B: %s", what, k, err.msg);
        if (ccd) clash_run_contacts(B, &cb, &err);
        CHECK(same_pairs(&pb, &pa_kept), "%s: step %d: advance after queries: %zu pairs, without: %zu", what, k,
              pb.count, pa_kept.count);
        CHECK(same_contacts(&cb, &ca_kept), "%s: step %d: advance after queries: %zu contacts, without: %zu", what,
              k, cb.count, ca_kept.count);
        const char *d = stats_differ(&sa_st, &sb_st);
        CHECK(!d, "%s: step %d: the step statistics differ after queries: %s", what, k, d ? d : "");
        /* what the advance took from the step before (swept mode's held bounds) is what it takes without queries */
        CHECK(A->boxes->held_boxes == B->boxes->held_boxes && A->boxes->held_dops == B->boxes->held_dops, "%s: step %d: held bounds %lld/%lld "
              "after queries, %lld/%lld without", what, k, (long long)B->boxes->held_boxes, (long long)B->boxes->held_dops,
              (long long)A->boxes->held_boxes, (long long)A->boxes->held_dops);
        if (mode && mid == CLASH_MID_OCTREE && k > 1) CHECK(A->boxes->held_boxes + A->boxes->held_dops > 0, "%s: step %d: nothing "
                                                          "held (the check above tests nothing)", what, k);
        CHECK(clash_run_state(B) == k, "%s: step %d: state %d after the advance", what, k, clash_run_state(B));
    }
    free(ra.p), free(ra.c);
    clash_run_destroy(A), clash_run_destroy(B);
    clash_scene_destroy(sa), clash_scene_destroy(sb);
    if (getenv("VERBOSE")) fprintf(stderr, "%s: %zu pairs, %.2f s\n", what, seen, now() - t0);
    return seen;
}

/* ---- 2. jump --------------------------------------------------------------------------------- */

static const double box_v[] = {-.5, -.5, -.5, .5, -.5, -.5, -.5, .5, -.5, .5, .5, -.5,
                               -.5, -.5, .5,  .5, -.5, .5,  -.5, .5, .5,  .5, .5, .5};
static const int32_t box_f[] = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};

/* A thin wall at x = 0 (object 0) and a unit box at x = -3 (object 1). */
static clash_run *wall_run(clash_scene **sc, int mode)
{
    clash_error err;
    clash_scene_create(sc, &err);
    double wall[24];
    for (int i = 0; i < 8; ++i) wall[3 * i] = 0.1 * box_v[3 * i], wall[3 * i + 1] = 8 * box_v[3 * i + 1],
                                wall[3 * i + 2] = 8 * box_v[3 * i + 2];
    const int mw = clash_scene_add_mesh(*sc, wall, 8, box_f, 12, &err);
    const int mb = clash_scene_add_mesh(*sc, box_v, 8, box_f, 12, &err);
    const double t[3] = {-3, 0, 0};
    clash_scene_add_object(*sc, mw, NULL, NULL, 0, &err);
    clash_scene_add_object(*sc, mb, NULL, t, 0, &err);
    clash_config cfg = clash_config_default();
    cfg.mode = mode;
    return clash_run_create(*sc, &cfg, &err);
}

static void jump_tests(void)
{
    for (int mode = 0; mode < 2; ++mode) {
        clash_scene *sc;
        clash_error err;
        clash_run *run = wall_run(&sc, mode);
        CHECK(run, "jump: run_create");
        if (!run) continue;
        clash_pairs p;
        const double to[3] = {3, 0, 0}, on[3] = {3.5, 0, 0}, back[3] = {-3, 0, 0};
        CHECK(!clash_run_set_pose(run, 1, NULL, to, &err), "jump: %s", err.msg);
        CHECK(!clash_run_jump(run, &err), "jump: %s", err.msg);
        CHECK(clash_run_state(run) == 1, "jump: state %d", clash_run_state(run));
        double v[3];
        CHECK(!clash_scene_vertex_at(sc, 1, 0, 1, v, &err) && v[0] == 2.5, "jump: vertex 0 at x = %g, not 2.5", v[0]);
        /* the advance after the jump sweeps from x = 3 to 3.5: nothing in the way */
        CHECK(!clash_run_set_pose(run, 1, NULL, on, &err), "jump: %s", err.msg);
        CHECK(!clash_run_advance(run, &p, NULL, &err) && p.count == 0, "jump (%s): the advance after a jump "
              "through the wall has %zu pairs", mode ? "swept" : "static", p.count);
        /* and back through the wall: swept mode sees it */
        CHECK(!clash_run_set_pose(run, 1, NULL, back, &err), "jump: %s", err.msg);
        CHECK(!clash_run_advance(run, &p, NULL, &err), "jump: %s", err.msg);
        CHECK(mode == 0 ? p.count == 0 : p.count > 0, "jump (%s): moving back through the wall: %zu pairs",
              mode ? "swept" : "static", p.count);
        clash_run_destroy(run), clash_scene_destroy(sc);
        /* an advance in place of the jump sweeps through the wall (the test above can fail) */
        run = wall_run(&sc, mode);
        clash_run_set_pose(run, 1, NULL, to, &err);
        CHECK(!clash_run_advance(run, &p, NULL, &err), "jump: %s", err.msg);
        CHECK(mode == 0 ? p.count == 0 : p.count > 0, "jump (%s): an advance through the wall: %zu pairs",
              mode ? "swept" : "static", p.count);
        clash_run_destroy(run), clash_scene_destroy(sc);
    }
    clash_error err;
    CHECK(clash_run_jump(NULL, &err) == CLASH_EINPUT, "jump: a NULL run");
}

/* ---- 3. bad arguments ------------------------------------------------------------------------ */

/* The pairs of one advance to time 6 after `bad` was refused on run B,
 * compared with run A's that never saw it. */
static void unchanged(clash_run *A, clash_run *B, int deforming, const char *what)
{
    clash_error err;
    set_states(A, deforming, 6, &err);
    clash_pairs pa, pb;
    clash_run_advance(A, &pa, NULL, &err);
    result r = {0};
    keep(&r, &pa, NULL);
    const clash_pairs kept = {r.p, r.np};
    clash_run_advance(B, &pb, NULL, &err);
    CHECK(same_pairs(&pb, &kept) && kept.count > 0, "%s: the advance after the refused call: %zu pairs, a run "
          "without it: %zu", what, pb.count, kept.count);
    free(r.p), free(r.c);
}

static void expect_refused(int rc, const clash_error *err, const char *what, const char *a, const char *b)
{
    CHECK(rc == CLASH_EINPUT, "%s: status %d, not CLASH_EINPUT", what, rc);
    CHECK(strstr(err->msg, a) && (!b || strstr(err->msg, b)), "%s: the message '%s' does not name '%s'%s%s", what,
          err->msg, a, b ? " and " : "", b ? b : "");
}

static void bad_arguments(void)
{
    /* each case on fresh runs: B gets the states of time 6 for all but the
     * last element first, then the bad batch (which must set nothing, not
     * even its good elements); A gets the same good states */
    enum { CASES = 8 };
    for (int c = 0; c < CASES; ++c) {
        clash_scene *sa = make_scene(1), *sb = make_scene(1);
        clash_config cfg = clash_config_default();
        cfg.mode = CLASH_MODE_SWEPT;
        clash_error err;
        clash_run *A = clash_run_create(sa, &cfg, &err), *B = clash_run_create(sb, &cfg, &err);
        set_states(B, 1, 6, &err); /* B now has the states A will get; the bad call must change none */
        double R[3 * 9], t[3 * 3];
        int objs[3] = {1, 2, 3};
        for (int i = 0; i < 3; ++i) pose_at(objs[i], 0, R + 9 * i, t + 3 * i); /* time 0: a change if applied */
        double *w = malloc(3 * sizeof(double) * (size_t)g_nv);
        breath_at(0, w);
        const double *list[3] = {w, w, w};
        int rc = 0;
        const char *what = "", *a = "", *b = NULL;
        switch (c) {
        case 0: t[3 * 1 + 1] = NAN, what = "set_poses, a NaN";
            rc = clash_run_set_poses(B, 3, objs, R, t, &err), a = "[1]", b = "object 2"; break;
        case 1: objs[2] = 99, what = "set_poses, an unknown object";
            rc = clash_run_set_poses(B, 3, objs, R, t, &err), a = "[2]", b = "object 99"; break;
        case 2: R[9 * 1 + 0] = 2, what = "set_poses, not a rotation";
            rc = clash_run_set_poses(B, 3, objs, R, t, &err), a = "[1]", b = "object 2"; break;
        case 3: what = "set_poses, n < 0";
            rc = clash_run_set_poses(B, -1, objs, R, t, &err), a = "set_poses", b = "n"; break;
        case 4: { what = "set_vertices_many, a rigid object";
            const int o[2] = {NOBJ, 4};
            rc = clash_run_set_vertices_many(B, 2, o, list, &err), a = "[1]", b = "object 4"; break; }
        case 5: { what = "set_vertices_many, a NaN";
            const int o[2] = {NOBJ, NOBJ};
            double *bad = malloc(3 * sizeof(double) * (size_t)g_nv);
            memcpy(bad, w, 3 * sizeof(double) * (size_t)g_nv);
            bad[3 * 5 + 2] = NAN;
            const double *l2[2] = {w, bad};
            rc = clash_run_set_vertices_many(B, 2, o, l2, &err), a = "[1]", b = "object 8";
            CHECK(strstr(err.msg, "vertex 5"), "%s: '%s' does not name vertex 5", what, err.msg);
            free(bad); break; }
        case 6: { what = "set_vertices_many, a NULL array";
            const int o[2] = {NOBJ, NOBJ};
            const double *l2[2] = {w, NULL};
            rc = clash_run_set_vertices_many(B, 2, o, l2, &err), a = "[1]", b = "NULL"; break; }
        case 7: { what = "set_vertices_many, an unknown object";
            const int o[1] = {-1};
            rc = clash_run_set_vertices_many(B, 1, o, list, &err), a = "[0]", b = "object -1"; break; }
        }
        expect_refused(rc, &err, what, a, b);
        unchanged(A, B, 1, what);
        free(w);
        clash_run_destroy(A), clash_run_destroy(B);
        clash_scene_destroy(sa), clash_scene_destroy(sb);
    }
    clash_error err;
    clash_pairs p;
    double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    expect_refused(clash_run_query(NULL, &p, NULL, NULL, &err), &err, "query, a NULL run", "query", "run");
    expect_refused(clash_run_set_poses(NULL, 1, NULL, R, NULL, &err), &err, "set_poses, a NULL run", "set_poses",
                   "run");
    expect_refused(clash_run_set_vertices_many(NULL, 1, NULL, NULL, &err), &err, "set_vertices_many, a NULL run",
                   "set_vertices_many", "run");
    clash_scene *sc = make_scene(0);
    clash_config cfg = clash_config_default();
    clash_run *run = clash_run_create(sc, &cfg, &err);
    expect_refused(clash_run_query(run, NULL, NULL, NULL, &err), &err, "query, NULL pairs", "query", "pairs");
    expect_refused(clash_run_set_vertices_many(run, 1, NULL, NULL, &err), &err, "set_vertices_many, xyz NULL",
                   "set_vertices_many", "xyz");
    clash_run_destroy(run), clash_scene_destroy(sc);
}

int main(void)
{
    uv_sphere(8, 12, &g_xyz, &g_nv, &g_tri, &g_nf);
    for (int threads = 1; threads <= 2; ++threads)
        for (int mode = 0; mode < 3; ++mode)
            for (int mid = 0; mid <= CLASH_MID_DOPTREE; ++mid) {
                const int swept = mode > 0, ccd = mode == 2;
                const size_t seen = query_then_advance(swept, ccd, mid, threads, mid % 2);
                CHECK(seen > 0, "the scene never collides (%d, %d, %d)", mode, mid, threads);
            }
    jump_tests();
    bad_arguments();
    free(g_xyz), free(g_tri);
    return check_finish("test_run_query");
}
