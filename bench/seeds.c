/*
 * seeds.c — `clash bench seeds`: every midphase on the seed papers' own
 * experiments, side by side, with each paper's claim checked on our run
 * (issue 16).
 *
 *   clash bench seeds [--quick] [--out DIR] [--midphases a,b,...]
 *                     [--threads T] [--reps N] [--meshes a,b] [--quiet]
 *
 * Experiments (one CSV and one plot each; seeds_report.c writes them):
 *   table1      the presets ktk94-table1 and ktak94-table1 ([KTK94] §5.1
 *               Table 1 / Fig. 7, [KTAK94] §4.1 Table 1 / Fig. 13), every step.
 *   sweep       [Smith94] Fig. 3.7: two UV spheres of 8 ... 3968 faces moving
 *               into contact (the papers suite's scene, bench_spheres_json);
 *               runs stop at the first collision, whose step time is the
 *               figure ("the true measure of the efficiency").
 *   complexity  [TC96] §4.2 Fig. 5: two spheres of 48 ... 30624 faces in a
 *               fixed overlapping configuration (centres 2.4 apart,
 *               diameter 3.8), both spinning: time per step against faces.
 *   distance    [Zachmann00] §3.5.10: two copies of a shared mesh (cow; --quick
 *               suzanne; --meshes) fitted to a cube of edge 2, one revolving,
 *               at distances 3.0 ... 0.2 (the distance suite's scene,
 *               bench_revolve_json): time per step against distance.
 *   cluttered   the cluttered preset (200 objects, seed 1, 20 steps;
 *               --quick 40 objects, 5 steps): no paper's claim, the fastest
 *               midphase is recorded.
 *
 * Midphases: the static list below.  A name the build does not take
 * (clash_config_set refuses it) is skipped with the build's message in the
 * YAML, so adding a midphase to clash needs no change here once its name is
 * in the list.  brute (the oracle) runs only on scenes of at most
 * BRUTE_MAX_FACES faces.
 *
 * Each (point, midphase) cell runs --reps times (default 6, --quick 2; the
 * first is a warm-up from 3 on) through bench_measure: per-step medians,
 * the checksum checked between repetitions.  Then every midphase's pairs
 * checksum at the point must equal the reference (brute where it ran, else
 * the first midphase): they are culling methods and the face-pair test
 * decides, so a mismatch fails the suite (exit 1, nothing written) and
 * names the midphase.  CLASH_BENCH_SEEDS_FAULT=NAME flips NAME's checksum
 * at the first point (the test of that check).
 *
 * One thread unless --threads T (the papers timed one processor).
 */
#include "bench/seeds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/bench.h"

/* Every midphase the suite knows; the last four come from issue 16 and are
 * skipped by builds without them. */
static const char *const MIDPHASES[] = {"octree",    "bvh",       "bboxpipe", "brute",
                                        "objoctree", "spherical", "boxtree",  "doptree"};
#define NMIDPHASES ((int)(sizeof MIDPHASES / sizeof *MIDPHASES))
#define BRUTE_MAX_FACES 20000

int seeds_mid_runs(const seeds_ctx *c, int m) { return c->mid[m].chosen && c->mid[m].available; }

int seeds_mid_index(const seeds_ctx *c, const char *name)
{
    for (int m = 0; m < c->nmid; ++m)
        if (!strcmp(c->mid[m].name, name)) return seeds_mid_runs(c, m) ? m : -1;
    return -1;
}

/* The list, --midphases, and what this build takes.  2 on a bad name. */
static int resolve_midphases(seeds_ctx *c)
{
    c->nmid = NMIDPHASES;
    for (int m = 0; m < NMIDPHASES; ++m) {
        seeds_mid *d = &c->mid[m];
        clash_config cfg = clash_config_default();
        clash_error err = {0};
        d->name = MIDPHASES[m];
        d->chosen = !c->o.midphases;
        d->available = clash_config_set(&cfg, "midphase", d->name, &err) == CLASH_OK;
        d->value = cfg.midphase;
        if (!d->available) snprintf(d->why, sizeof d->why, "not in this build (%.200s)", err.msg);
    }
    if (c->o.midphases) {
        char list[512];
        snprintf(list, sizeof list, "%s", c->o.midphases);
        for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
            int found = 0;
            for (int m = 0; m < NMIDPHASES; ++m)
                if (!strcmp(t, MIDPHASES[m])) c->mid[m].chosen = found = 1;
            if (!found)
                return bench_fail(&c->o, CLASH_EINPUT,
                                  "--midphases: unknown midphase '%s' (known: octree, bvh, bboxpipe, brute, objoctree, "
                                  "spherical, boxtree, doptree)",
                                  t);
        }
    }
    for (int m = 0; m < NMIDPHASES; ++m)
        if (seeds_mid_runs(c, m)) return 0;
    return bench_fail(&c->o, CLASH_EINPUT, "--midphases: none of the chosen midphases is in this build");
}

/* ---- the experiments' points ---------------------------------------------------------- */

static seeds_point *add_point(seeds_exp *e, int cap)
{
    if (!e->pt) e->pt = calloc((size_t)cap, sizeof *e->pt);
    if (!e->pt || e->npoints >= cap) return NULL;
    return &e->pt[e->npoints++];
}

static int desc_from_json(seeds_ctx *c, seeds_point *p, char *json)
{
    clash_error err = {0};
    if (!json) return bench_fail(&c->o, CLASH_EFAIL, "out of memory");
    const int rc = clash_scene_desc_parse_string(json, ".", p->label, &p->desc, &err);
    free(json);
    if (rc) return bench_fail(&c->o, rc, "%s", err.msg);
    p->has_desc = 1;
    return 0;
}

static int build_table1(seeds_ctx *c, seeds_exp *e)
{
    static const char *const presets[] = {"ktk94-table1", "ktak94-table1"};
    *e = (seeds_exp){.name = "table1", .title = "Table 1 scenes: time per step ([KTK94] Fig. 7, [KTAK94] Fig. 13)",
                     .params_header = "scene", .nparams = 1, .xlabel = "scene, midphase", .logy = 1,
                     .window_at_collision = 1};
    snprintf(e->note, sizeof e->note, "the presets' own steps (ktk94 220, ktak94 140), scene mode (swept)");
    for (int i = 0; i < 2; ++i) {
        seeds_point *p = add_point(e, 2);
        if (!p) return bench_fail(&c->o, CLASH_EFAIL, "out of memory");
        clash_error err = {0};
        snprintf(p->label, sizeof p->label, "table1, %s", presets[i]);
        snprintf(p->params, sizeof p->params, "%s", presets[i]);
        p->x = i;
        if (clash_scene_desc_preset(presets[i], NULL, &p->desc, &err)) return bench_fail(&c->o, CLASH_EFAIL, "%s", err.msg);
        p->has_desc = 1;
    }
    return 0;
}

static int build_sweep(seeds_ctx *c, seeds_exp *e)
{
    static const int full[] = {8, 24, 48, 80, 120, 168, 224, 360, 528, 728, 960, 3968}, quick[] = {8, 48, 168, 528};
    const int *sizes = c->o.quick ? quick : full, n = c->o.quick ? 4 : 12, T = c->o.quick ? 24 : 72;
    *e = (seeds_exp){.name = "sweep", .title = "Two spheres into contact: time of the collision step ([Smith94] Fig. 3.7)",
                     .params_header = "faces_per_sphere", .nparams = 1, .xlabel = "faces per sphere", .logx = 1,
                     .logy = 1, .stop_at_first = 1, .window_at_collision = 1};
    snprintf(e->note, sizeof e->note,
             "two UV spheres, diameter 3.8, bounding spheres touching in step %d, stop at the first collision", T);
    for (int i = 0; i < n; ++i) {
        seeds_point *p = add_point(e, n);
        if (!p) return bench_fail(&c->o, CLASH_EFAIL, "out of memory");
        snprintf(p->label, sizeof p->label, "sweep, %d faces", sizes[i]);
        snprintf(p->params, sizeof p->params, "%d", sizes[i]);
        p->x = sizes[i];
        if (desc_from_json(c, p, bench_spheres_json(sizes[i], 2, T))) return CLASH_EFAIL;
    }
    return 0;
}

static int build_complexity(seeds_ctx *c, seeds_exp *e)
{
    static const int full[] = {48, 168, 528, 1848, 3968, 8280, 16128, 30624}, quick[] = {48, 168, 528};
    const int *sizes = c->o.quick ? quick : full, n = c->o.quick ? 3 : 8, steps = c->o.quick ? 4 : 20;
    *e = (seeds_exp){.name = "complexity", .title = "Two overlapping spheres: time per step against faces ([TC96] Fig. 5)",
                     .params_header = "faces_per_sphere", .nparams = 1, .xlabel = "faces (both objects)", .logx = 1,
                     .logy = 1};
    snprintf(e->note, sizeof e->note,
             "two UV spheres, diameter 3.8, centres 2.4 apart (fixed), spinning, %d steps, scene mode (swept)", steps);
    for (int i = 0; i < n; ++i) {
        seeds_point *p = add_point(e, n);
        if (!p) return bench_fail(&c->o, CLASH_EFAIL, "out of memory");
        char *j = malloc(1024);
        snprintf(p->label, sizeof p->label, "complexity, %d faces", sizes[i]);
        snprintf(p->params, sizeof p->params, "%d", sizes[i]);
        p->x = 2.0 * sizes[i];
        if (j)
            snprintf(j, 1024,
                     "{\"format\": \"clash-scene/1\", \"name\": \"complexity-%d\", \"steps\": %d,"
                     " \"meshes\": {\"s\": {\"sphere\": {\"faces\": %d}}}, \"objects\": ["
                     "{\"mesh\": \"s\", \"scale\": 1.9, \"angular_velocity_deg\": [1, 2, 3]},"
                     "{\"mesh\": \"s\", \"scale\": 1.9, \"position\": [2.4, 0.35, 0.2],"
                     " \"angular_velocity_deg\": [-2, 1, 3]}]}",
                     sizes[i], steps, sizes[i]);
        if (desc_from_json(c, p, j)) return CLASH_EFAIL;
    }
    return 0;
}

static int build_distance(seeds_ctx *c, seeds_exp *e)
{
    const int steps = c->o.quick ? 12 : 120;
    const double dstep = c->o.quick ? 0.8 : 0.2;
    int nd = 0;
    double dist[32];
    for (double d = 3.0; d > 0.1 && nd < 32; d -= dstep) dist[nd++] = d;
    *e = (seeds_exp){.name = "distance", .title = "Two copies of a mesh, one revolving: time per step ([Zachmann00] 3.5.10)",
                     .params_header = "mesh,distance", .nparams = 2,
                     .xlabel = "distance between box centres (objects fit a cube of edge 2)"};
    snprintf(e->note, sizeof e->note, "static mode, one revolution in %d steps, distances 3.0 down by %.1f", steps,
             dstep);
    char list[512];
    snprintf(list, sizeof list, "%s", c->o.meshes ? c->o.meshes : c->o.quick ? "suzanne" : "cow");
    int nm = 0;
    char *names[8], paths[8][1024];
    for (char *t = strtok(list, ","); t && nm < 8; t = strtok(NULL, ",")) {
        if (!bench_mesh_path(t, paths[nm], sizeof paths[nm])) {
            if (c->o.meshes)
                return bench_fail(&c->o, CLASH_EINPUT, "--meshes: '%s' not found (shared meshes: %s)", t,
                                  bench_mesh_dir() ? bench_mesh_dir() : "../shared/data/meshes missing");
            e->skipped = 1;
            snprintf(e->why, sizeof e->why, "mesh '%s' not found: ../shared/data/meshes is missing", t);
            return 0;
        }
        names[nm++] = t;
    }
    for (int m = 0; m < nm; ++m) {
        clash_error err = {0};
        double extent;
        int64_t faces;
        if (bench_mesh_extent(paths[m], &extent, &faces, &err)) return bench_fail(&c->o, CLASH_EINPUT, "%s", err.msg);
        for (int k = 0; k < nd; ++k) {
            seeds_point *p = add_point(e, nm * nd);
            if (!p) return bench_fail(&c->o, CLASH_EFAIL, "out of memory");
            snprintf(p->label, sizeof p->label, "distance, %s at %.1f", names[m], dist[k]);
            snprintf(p->params, sizeof p->params, "%s,%.3f", names[m], dist[k]);
            snprintf(p->group, sizeof p->group, "%s", names[m]);
            p->x = dist[k];
            if (desc_from_json(c, p, bench_revolve_json(paths[m], 2.0 / extent, dist[k], steps))) return CLASH_EFAIL;
        }
    }
    return 0;
}

static int build_cluttered(seeds_ctx *c, seeds_exp *e)
{
    const int objects = c->o.quick ? 40 : 200, steps = c->o.quick ? 5 : 20;
    *e = (seeds_exp){.name = "cluttered", .title = "cluttered preset: time per step", .params_header = "objects",
                     .nparams = 1, .xlabel = "midphase", .logy = 1};
    snprintf(e->note, sizeof e->note, "preset cluttered, %d objects, seed 1, default density, %d steps", objects,
             steps);
    seeds_point *p = add_point(e, 1);
    if (!p) return bench_fail(&c->o, CLASH_EFAIL, "out of memory");
    clash_preset_params pp = {.objects = objects, .seed = 1, .density = 0};
    clash_error err = {0};
    snprintf(p->label, sizeof p->label, "cluttered, %d objects", objects);
    snprintf(p->params, sizeof p->params, "%d", objects);
    p->x = objects;
    if (clash_scene_desc_preset("cluttered", &pp, &p->desc, &err)) return bench_fail(&c->o, CLASH_EFAIL, "%s", err.msg);
    p->has_desc = 1;
    p->desc.steps = steps;
    return 0;
}

/* ---- running the cells ----------------------------------------------------------------- */

static double mean_of(const double *v, int a, int b)
{
    double s = 0;
    for (int i = a; i < b; ++i) s += v[i];
    return b > a ? s / (b - a) : NAN;
}

static void fill_cell(seeds_cell *k, const bench_series *se)
{
    k->ran = 1;
    k->steps = se->steps;
    k->first_collision = se->first_collision;
    k->ms_mean = mean_of(se->ms, 0, se->steps);
    k->ms_max = 0;
    for (int s = 0; s < se->steps; ++s) k->ms_max = fmax(k->ms_max, se->ms[s]);
    const int fc = se->first_collision;
    k->ms_before = fc > 1 ? mean_of(se->ms, 0, fc - 1) : NAN;
    k->ms_collision = fc > 0 ? se->ms[fc - 1] : NAN;
    k->cand_collision = fc > 0 ? se->tot.first_collision.candidates : -1;
    k->cand_per_step = se->steps ? (double)se->tot.candidates / se->steps : 0;
    k->pairs_per_step = se->steps ? (double)se->tot.pairs_total / se->steps : 0;
    k->checksum = se->checksum;
    k->l1d = k->ll = NAN;
}

static double face_pairs(const clash_scene *sc)
{
    double s = 0, s2 = 0;
    for (int ob = 0; ob < clash_scene_objects(sc); ++ob) {
        const double f = (double)clash_scene_object_faces(sc, ob);
        s += f, s2 += f * f;
    }
    return 0.5 * (s * s - s2);
}

/* All cells of one point, then their validation against each other. */
static int run_point(seeds_ctx *c, seeds_exp *e, seeds_point *p, int *done, int total, const char *fault)
{
    clash_scene *sc = NULL;
    clash_error err = {0};
    if (clash_scene_build(&p->desc, &sc, &err)) return bench_fail(&c->o, CLASH_EFAIL, "%s: %s", p->label, err.msg);
    p->faces = clash_scene_faces(sc);
    p->all_face_pairs = face_pairs(sc);
    int rc = 0;
    for (int m = 0; m < c->nmid && !rc; ++m) {
        seeds_cell *k = &p->cell[m];
        if (!seeds_mid_runs(c, m)) continue;
        if (!strcmp(c->mid[m].name, "brute") && p->faces > c->brute_max_faces) {
            snprintf(k->why, sizeof k->why, "the oracle is skipped above %lld faces (this scene: %lld)",
                     (long long)c->brute_max_faces, (long long)p->faces);
            continue;
        }
        clash_config cfg = clash_config_default();
        cfg.threads = c->o.threads;
        cfg.midphase = c->mid[m].value;
        cfg.stop_at_first = e->stop_at_first;
        char what[160];
        bench_series se;
        snprintf(what, sizeof what, "%s, %s", p->label, c->mid[m].name);
        if ((rc = bench_measure(&c->o, sc, &cfg, &se, what, done, total))) break;
        fill_cell(k, &se);
        bench_series_free(&se);
        if (fault && !strcmp(fault, c->mid[m].name) && e == &c->exp[0] && p == e->pt) k->checksum ^= 1; /* test hook */
    }
    clash_scene_destroy(sc);
    if (rc) return rc;
    /* Validation: brute (the oracle) where it ran, else the first midphase. */
    int ref = seeds_mid_index(c, "brute");
    if (ref < 0 || !p->cell[ref].ran)
        for (ref = 0; ref < c->nmid && !p->cell[ref].ran; ++ref) {}
    if (ref >= c->nmid) return 0;   /* nothing ran here (brute alone, above its limit) */
    for (int m = 0; m < c->nmid; ++m)
        if (p->cell[m].ran && p->cell[m].checksum != p->cell[ref].checksum)
            rc = bench_fail(&c->o, 1,
                            "%s: validation failed: midphase %s gives pairs checksum %016llx (first collision step "
                            "%d), %s gives %016llx (step %d)",
                            p->label, c->mid[m].name, (unsigned long long)p->cell[m].checksum,
                            p->cell[m].first_collision, c->mid[ref].name, (unsigned long long)p->cell[ref].checksum,
                            p->cell[ref].first_collision);
    /* The callgrind window: SEEDS_CG_STEPS steps, ending at the first
     * collision (table1, sweep) or at the last step. */
    const seeds_cell *r = &p->cell[ref];
    const int end = e->window_at_collision && r->first_collision > 0 ? r->first_collision : r->steps;
    p->cg_steps = end < SEEDS_CG_STEPS ? end : SEEDS_CG_STEPS;
    p->cg_shift = end - p->cg_steps;
    return rc;
}

static void free_exps(seeds_ctx *c)
{
    for (int i = 0; i < SEEDS_NEXP; ++i) {
        seeds_exp *e = &c->exp[i];
        for (int j = 0; j < e->npoints; ++j)
            if (e->pt[j].has_desc) clash_scene_desc_free(&e->pt[j].desc);
        free(e->pt);
        memset(e, 0, sizeof *e);
    }
}

int clash_bench_seeds(int argc, char **argv);
int clash_bench_seeds(int argc, char **argv)
{
    static const char *const extra[] = {"--midphases", "--meshes", NULL};
    seeds_ctx *c = calloc(1, sizeof *c);
    if (!c) return CLASH_EFAIL;
    int rc = bench_parse("seeds", argc, argv, extra, " [--midphases a,b,...] [--meshes a,b]", &c->o);
    if (rc) {
        free(c);
        return rc < 0 ? 0 : rc;
    }
    int reps_given = 0;
    for (int i = 0; i < argc; ++i) reps_given |= !strcmp(argv[i], "--reps");
    if (!reps_given && c->o.quick) c->o.reps = 2;
    if (!c->o.threads) c->o.threads = 1;   /* the papers timed one processor; --threads T to change */
    c->brute_max_faces = BRUTE_MAX_FACES;
    c->fit_min_faces = c->o.quick ? 0 : 300;
    if ((rc = resolve_midphases(c))) {
        free(c);
        return rc;
    }
    int (*const build[SEEDS_NEXP])(seeds_ctx *, seeds_exp *) = {build_table1, build_sweep, build_complexity,
                                                                build_distance, build_cluttered};
    for (int i = 0; i < SEEDS_NEXP && !rc; ++i) rc = build[i](c, &c->exp[i]);
    int total = 0, done = 0;
    for (int i = 0; i < SEEDS_NEXP; ++i)
        for (int m = 0; m < c->nmid; ++m) total += seeds_mid_runs(c, m) * c->exp[i].npoints;
    const char *fault = getenv("CLASH_BENCH_SEEDS_FAULT");
    for (int i = 0; i < SEEDS_NEXP && !rc; ++i)
        for (int j = 0; j < c->exp[i].npoints && !rc; ++j) {
            seeds_point *p = &c->exp[i].pt[j];
            rc = run_point(c, &c->exp[i], p, &done, total, fault);
            /* callgrind: every point, or only the smallest (the first) with --quick */
            p->cg = !c->o.quick || j == 0;
        }
    if (!rc) {
        bench_progress(&c->o, "done", total, total);
        seeds_callgrind(c);
        rc = seeds_write(c);
    }
    free_exps(c);
    free(c);
    return rc;
}
