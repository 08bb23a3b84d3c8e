/*
 * papers.c — `clash bench papers`: the experiments of the papers clash
 * implements, rerun on this machine (seeds/README.md lists the papers).
 *
 *   table1   the six-sphere scene of Kitamura, Takemura, Kishino 1994 ([KTK94],
 *            Table 1, Fig. 7) and the eight-sphere scene of Kitamura,
 *            Takemura, Ahuja, Kishino 1994 ([KTAK94], Table 1, Fig. 13): the time
 *            of every cycle (step) of the presets ktk94-table1, ktak94-table1.
 *   sweep    the report's Fig. 3.7 ([Smith94] §3.3.7): two identical UV spheres of
 *            8 ... 3968 faces start apart and move toward each other with
 *            translation and rotation until faces collide; the time of the
 *            collision step (the step that finds the first pairs, "the true
 *            measure of the efficiency") against the number of faces.
 *   crowd    the report's Fig. 3.9: 10, 20, 30, 40 spheres of 528 faces;
 *            all move, only two of them collide, at the last cycle; the time
 *            of every cycle.
 *   swept    the report's Fig. 4.2 (§4.2): two spheres of 960 and 3968 faces
 *            moving into contact, the time of every cycle in static and in
 *            swept mode (the swept test finds the contact earlier, and costs
 *            more per cycle).
 *   picture  the collision step of ktk94-table1 rendered with gnuplot: the
 *            two colliding spheres as wire frames, the faces in colliding
 *            pairs filled (papers_collision.png).
 *
 * The experiment scenes.  Spheres are the papers' UV spheres (faces =
 * 4k(k-1)) of diameter 3.8, as in both Table 1s.  Sphere A starts at the
 * origin moving +0.02 per step along x, sphere B starts at
 * x = 3.8 + 0.04 (T - 0.5) (slightly off the axis) moving -0.02, so their
 * bounding spheres touch in step T; both spin (1..3 degrees per step).  T is
 * 72 as in Fig. 3.6 (45 for Fig. 4.2), and 24 with --quick.  In the crowd
 * scene the other spheres stand on a grid 6 apart above the colliding pair
 * and move with the same velocity, so they never meet.  Runs stop at the
 * first step with a collision (stop_at_first), except table1 (the presets'
 * own steps).
 *
 * Runs use one thread unless --threads T is given (the papers timed one
 * processor, and one thread is what a noisy shared machine times best).
 *
 * Output (in --out DIR): papers_table1.csv, papers_sweep.csv,
 * papers_crowd.csv, papers_swept.csv (one row per step or per size; times
 * in milliseconds, medians over repetitions), papers.yaml (build, machine,
 * parameters, per-experiment checksums), PNG plots with their .gp scripts.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/common.h"
#include "clash_internal.h"

static int run_json(const bench_opts *o, const char *json, int mode, bench_series *out, const char *what, int *done,
                    int total)
{
    clash_scene *sc = NULL;
    clash_error err = {0};
    if (bench_scene_json(json, ".", &sc, &err)) return bench_fail(o, CLASH_EFAIL, "%s: %s", what, err.msg);
    clash_config cfg = clash_config_default();
    cfg.threads = o->threads;
    cfg.stop_at_first = 1;
    if (mode >= 0) cfg.mode = mode;
    int rc = bench_measure(o, sc, &cfg, out, what, done, total);
    clash_scene_destroy(sc);
    return rc;
}

static double mean_before(const bench_series *s)
{
    double sum = 0;
    int n = 0;
    for (int i = 0; i < s->steps; ++i)
        if (!s->pairs[i]) sum += s->ms[i], ++n;
    return n ? sum / n : 0;
}

/* The picture: ktk94-table1 at its first collision step. */
static int picture(const bench_opts *o, int *step_out)
{
    clash_scene *sc = NULL;
    clash_error err = {0};
    if (clash_scene_preset("ktk94-table1", NULL, &sc, &err)) return bench_fail(o, CLASH_EFAIL, "%s", err.msg);
    clash_config cfg = clash_config_default();
    cfg.threads = o->threads;
    clash_scene_apply_defaults(sc, &cfg);
    clash_run *run = clash_run_create(sc, &cfg, &err);
    int rc = run ? 0 : bench_fail(o, CLASH_EFAIL, "%s", err.msg);
    clash_pairs p = {NULL, 0};
    int s;
    for (s = 1; !rc && s <= cfg.steps; ++s) {
        clash_step_stats st;
        if (clash_step(run, s, &p, &st, &err)) rc = bench_fail(o, CLASH_EFAIL, "%s", err.msg);
        else if (p.count) break;
    }
    if (!rc && !p.count) rc = bench_fail(o, CLASH_EFAIL, "picture: ktk94-table1 never collides");
    clash_internal_scene_view sv;
    clash_internal_scene_view_get(sc, &sv);
    unsigned char *flag = rc ? NULL : calloc((size_t)sv.nf, 1);
    unsigned char *obj_hit = rc ? NULL : calloc((size_t)sv.nobj, 1);
    if (!rc && (!flag || !obj_hit)) rc = bench_fail(o, CLASH_EFAIL, "out of memory");
    if (!rc) {
        for (size_t i = 0; i < p.count; ++i) {
            /* pairs are in input numbering, flag[] in store order (reorder.c) */
            flag[clash_internal_face_store(sc, p.pairs[i].obj_a, p.pairs[i].face_a)] = 1;
            flag[clash_internal_face_store(sc, p.pairs[i].obj_b, p.pairs[i].face_b)] = 1;
            obj_hit[p.pairs[i].obj_a] = obj_hit[p.pairs[i].obj_b] = 1;
        }
        clash_outfile fw, fh;
        FILE *w = bench_open(o, &fw, "papers_collision_wire.dat");
        FILE *h = w ? bench_open(o, &fh, "papers_collision_hit.dat") : NULL;
        if (!w || !h) {
            if (w) clash_outfile_abort(&fw);
            rc = CLASH_EFAIL;
        } else {
            for (int ob = 0; ob < sv.nobj; ++ob) {
                if (!obj_hit[ob]) continue;
                for (int64_t f = sv.fofs[ob]; f < sv.fofs[ob + 1]; ++f) {
                    const int32_t v[4] = {sv.f0[f], sv.f1[f], sv.f2[f], sv.f0[f]};
                    FILE *dst = flag[f] ? h : w;
                    for (int k = 0; k < (flag[f] ? 3 : 4); ++k)
                        fprintf(dst, "%g %g %g %d\n", sv.x[v[k]], sv.y[v[k]], sv.z[v[k]], ob);
                    fputc('\n', dst);
                }
            }
            rc = bench_close(o, &fw) | bench_close(o, &fh);
        }
    }
    *step_out = rc ? -1 : s;
    free(flag), free(obj_hit);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return rc;
}

int clash_bench_papers(int argc, char **argv);
int clash_bench_papers(int argc, char **argv)
{
    bench_opts o;
    int rc = bench_parse("papers", argc, argv, NULL, NULL, &o);
    if (rc) return rc < 0 ? 0 : rc;
    if (!o.threads) o.threads = 1;   /* the papers timed one processor; --threads T to change */
    static const int sizes_full[] = {8, 24, 48, 80, 120, 168, 224, 360, 528, 728, 960, 3968};
    static const int sizes_quick[] = {8, 48, 168, 528, 960, 3968};
    const int *sizes = o.quick ? sizes_quick : sizes_full;
    const int nsizes = o.quick ? 6 : 12;
    static const int crowds[] = {10, 20, 30, 40};
    static const int swept_sizes[] = {960, 3968};
    const int T = o.quick ? 24 : 72, T42 = o.quick ? 24 : 45;
    const int total = 2 + nsizes + 4 + 4;
    int done = 0;
    clash_outfile fy;
    FILE *y = bench_open(&o, &fy, "papers.yaml");
    if (!y) return CLASH_EFAIL;
    bench_yaml_header(y, &o);
    fprintf(y, "params: {contact_step_T: %d, contact_step_fig42: %d, sphere_diameter: 3.8, speed: 0.02,"
               " sweep_faces: [", T, T42);
    for (int i = 0; i < nsizes; ++i) fprintf(y, "%s%d", i ? ", " : "", sizes[i]);
    fprintf(y, "], crowd_objects: [10, 20, 30, 40], crowd_faces: 528, fig42_faces: [960, 3968]}\nvalidation:\n");

    /* table1 */
    clash_outfile fc;
    FILE *c = bench_open(&o, &fc, "papers_table1.csv");
    if (!c) goto fail;
    fprintf(c, "scene,step,ms,pairs\n");
    const char *presets[] = {"ktk94-table1", "ktak94-table1"};
    fprintf(y, "  table1:\n");
    for (int i = 0; i < 2; ++i) {
        clash_scene *sc = NULL;
        clash_error err = {0};
        bench_series se;
        if (clash_scene_preset(presets[i], NULL, &sc, &err)) {
            bench_fail(&o, CLASH_EFAIL, "%s", err.msg);
            clash_outfile_abort(&fc);
            goto fail;
        }
        clash_config cfg = clash_config_default();
        cfg.threads = o.threads;
        rc = bench_measure(&o, sc, &cfg, &se, presets[i], &done, total);
        clash_scene_destroy(sc);
        if (rc) {
            clash_outfile_abort(&fc);
            goto fail;
        }
        double maxms = 0;
        for (int s = 0; s < se.steps; ++s) {
            fprintf(c, "%s,%d,%.6g,%llu\n", presets[i], s + 1, se.ms[s], (unsigned long long)se.pairs[s]);
            if (se.ms[s] > maxms) maxms = se.ms[s];
        }
        fprintf(y, "    - {scene: %s, faces: %lld, steps: %d, first_collision_step: %d, pairs_total: %llu,"
                   " checksum: \"%016llx\", ms_mean_before_contact: %.4g, ms_max: %.4g}\n",
                presets[i], (long long)se.faces, se.steps, se.first_collision, (unsigned long long)se.pairs_total,
                (unsigned long long)se.checksum, mean_before(&se), maxms);
        bench_series_free(&se);
    }
    if (bench_close(&o, &fc)) goto fail;

    /* sweep (Fig. 3.7) */
    if (!(c = bench_open(&o, &fc, "papers_sweep.csv"))) goto fail;
    fprintf(c, "faces,collision_step,ms_at_collision,ms_mean_before,pairs_at_collision\n");
    fprintf(y, "  sweep:\n");
    for (int i = 0; i < nsizes; ++i) {
        char what[64];
        bench_series se;
        snprintf(what, sizeof what, "sweep, 2 spheres of %d faces", sizes[i]);
        char *json = bench_spheres_json(sizes[i], 2, T);
        rc = json ? run_json(&o, json, -1, &se, what, &done, total) : CLASH_EFAIL;
        free(json);
        if (rc) {
            clash_outfile_abort(&fc);
            goto fail;
        }
        const int hit = se.first_collision > 0;
        fprintf(c, "%d,%d,%.6g,%.6g,%llu\n", sizes[i], se.first_collision, hit ? se.ms[se.steps - 1] : 0.0,
                mean_before(&se), (unsigned long long)(hit ? se.pairs[se.steps - 1] : 0));
        fprintf(y, "    - {faces: %d, collision_step: %d, checksum: \"%016llx\"}\n", sizes[i], se.first_collision,
                (unsigned long long)se.checksum);
        bench_series_free(&se);
    }
    if (bench_close(&o, &fc)) goto fail;

    /* crowd (Fig. 3.9) */
    if (!(c = bench_open(&o, &fc, "papers_crowd.csv"))) goto fail;
    fprintf(c, "objects,step,ms,pairs\n");
    fprintf(y, "  crowd:\n");
    for (int i = 0; i < 4; ++i) {
        char what[64];
        bench_series se;
        snprintf(what, sizeof what, "crowd, %d spheres of 528 faces", crowds[i]);
        char *json = bench_spheres_json(528, crowds[i], T);
        rc = json ? run_json(&o, json, -1, &se, what, &done, total) : CLASH_EFAIL;
        free(json);
        if (rc) {
            clash_outfile_abort(&fc);
            goto fail;
        }
        for (int s = 0; s < se.steps; ++s)
            fprintf(c, "%d,%d,%.6g,%llu\n", crowds[i], s + 1, se.ms[s], (unsigned long long)se.pairs[s]);
        fprintf(y, "    - {objects: %d, collision_step: %d, ms_at_collision: %.4g, checksum: \"%016llx\"}\n", crowds[i],
                se.first_collision, se.steps ? se.ms[se.steps - 1] : 0.0, (unsigned long long)se.checksum);
        bench_series_free(&se);
    }
    if (bench_close(&o, &fc)) goto fail;

    /* swept against static (Fig. 4.2) */
    if (!(c = bench_open(&o, &fc, "papers_swept.csv"))) goto fail;
    fprintf(c, "faces,mode,step,ms,pairs\n");
    fprintf(y, "  swept_vs_static:\n");
    for (int i = 0; i < 4; ++i) {
        const int faces = swept_sizes[i / 2], mode = i % 2 ? CLASH_MODE_SWEPT : CLASH_MODE_STATIC;
        const char *mname = mode == CLASH_MODE_SWEPT ? "swept" : "static";
        char what[64];
        bench_series se;
        snprintf(what, sizeof what, "fig 4.2, %d faces, %s", faces, mname);
        char *json = bench_spheres_json(faces, 2, T42);
        rc = json ? run_json(&o, json, mode, &se, what, &done, total) : CLASH_EFAIL;
        free(json);
        if (rc) {
            clash_outfile_abort(&fc);
            goto fail;
        }
        for (int s = 0; s < se.steps; ++s)
            fprintf(c, "%d,%s,%d,%.6g,%llu\n", faces, mname, s + 1, se.ms[s], (unsigned long long)se.pairs[s]);
        fprintf(y, "    - {faces: %d, mode: %s, collision_step: %d, pairs_at_collision: %llu, ms_at_collision: %.4g,"
                   " checksum: \"%016llx\"}\n",
                faces, mname, se.first_collision, (unsigned long long)(se.steps ? se.pairs[se.steps - 1] : 0),
                se.steps ? se.ms[se.steps - 1] : 0.0, (unsigned long long)se.checksum);
        bench_series_free(&se);
    }
    if (bench_close(&o, &fc)) goto fail;
    bench_progress(&o, "done", total, total);

    int pic_step = -1;
    if (picture(&o, &pic_step)) goto fail;
    fprintf(y, "picture: {scene: ktk94-table1, step: %d, files: [papers_collision_wire.dat, papers_collision_hit.dat]}\n",
            pic_step);
    if (bench_close(&o, &fy)) return CLASH_EFAIL;

    char script[4096];
    bench_plot(&o, "papers_table1",
               "set terminal pngcairo size 900,500\nset output 'papers_table1.png'\nset datafile separator ','\n"
               "set title 'Table 1 scenes: time per cycle ([KTK94] Fig. 7, [KTAK94] Fig. 13)'\n"
               "set xlabel 'cycle (step)'\nset ylabel 'ms per cycle'\nset key top left\nset grid\n"
               "plot 'papers_table1.csv' using 2:(strcol(1) eq 'ktk94-table1' ? $3 : 1/0) with lines lw 2 title 'ktk94, 6 spheres',\\\n"
               "     '' using 2:(strcol(1) eq 'ktak94-table1' ? $3 : 1/0) with lines lw 2 title 'ktak94, 8 spheres'\n");
    bench_plot(&o, "papers_sweep",
               "set terminal pngcairo size 800,500\nset output 'papers_sweep.png'\nset datafile separator ','\n"
               "set title 'Two spheres: time at the collision step ([Smith94] Fig. 3.7)'\n"
               "set xlabel 'faces per sphere'\nset ylabel 'ms at the collision step'\nset logscale x\nset grid\n"
               "set key off\nplot 'papers_sweep.csv' using 1:3 with linespoints lw 2 pt 7\n");
    snprintf(script, sizeof script,
             "set terminal pngcairo size 900,500\nset output 'papers_crowd.png'\nset datafile separator ','\n"
             "set title 'N spheres of 528 faces, two collide at the last cycle ([Smith94] Fig. 3.9)'\n"
             "set xlabel 'cycle (step)'\nset ylabel 'ms per cycle'\nset key top left\nset grid\n"
             "plot for [n in '10 20 30 40'] 'papers_crowd.csv' using 2:($1 == n+0 ? $3 : 1/0)"
             " with lines lw 2 title n.' spheres'\n");
    bench_plot(&o, "papers_crowd", script);
    bench_plot(&o, "papers_swept",
               "set terminal pngcairo size 900,500\nset output 'papers_swept.png'\nset datafile separator ','\n"
               "set title 'Two spheres into contact: static against swept test ([Smith94] Fig. 4.2)'\n"
               "set xlabel 'cycle (step)'\nset ylabel 'ms per cycle'\nset key top left\nset grid\n"
               "plot for [f in '960 3968'] for [m in 'static swept'] 'papers_swept.csv'"
               " using 3:($1 == f+0 && strcol(2) eq m ? $4 : 1/0) with lines lw 2 title f.' faces, '.m\n");
    snprintf(script, sizeof script,
             "set terminal pngcairo size 800,700\nset output 'papers_collision.png'\n"
             "set title 'ktk94-table1, step %d: faces in colliding pairs (red)'\n"
             "set view equal xyz\nset view 65,35,1.6\nunset border\nunset tics\nset key off\n"
             "splot 'papers_collision_wire.dat' using 1:2:3 with lines lc rgb '#8090a0' lw 0.6,\\\n"
             "      'papers_collision_hit.dat' using 1:2:3 with polygons fs solid 1.0 fc rgb '#d62728'\n",
             pic_step);
    bench_plot(&o, "papers_collision", script);
    if (!o.quiet) fprintf(stderr, "clash: bench papers: results in %s\n", o.out);
    return 0;
fail:
    clash_outfile_abort(&fy);
    return CLASH_EFAIL;
}
