/*
 * scale.c — `clash bench scale`: the cost of a step against the scene's
 * size, from 10^4 to 10^7 faces, at a fixed density, on 1 and 2 threads
 * (issue 17: "a 3-million-face step in 100 ms on two cores").
 *
 * Scenes.  The cluttered preset at volume density 0.1 with --detail: every
 * object a UV sphere, so a scene of N objects of detail F has exactly
 * N * 4k(k-1) faces (the count nearest F).  For a target of n faces the
 * objects grow first, with 528-face spheres (the preset's largest default
 * kind), up to 1,000 objects; past that the spheres get finer:
 *   N = min(round(n / 528), 1000),  F = n / N.
 * The targets are 10^4, 3*10^4, ..., 10^7 (--quick: 10^4 to 10^5); 3*10^6
 * is issue 17's scene, 1,000 spheres of 3,024 faces.  Seed 1.
 *
 * Each scene is run in this process through the C API for --steps steps
 * (default 20, --quick 5), at 1 thread and at 2, alternating the two within
 * each repetition (--reps, default 1 here) so that both see the same
 * machine.  The time per step is the median over the steps of all
 * repetitions; per face: that time / n; per face and log: / (n log2 n).
 * Memory per face: the store and the run's working arrays at their largest
 * (clash_run_work_bytes), over n.
 *
 * Validation: the pairs checksum of the run at 2 threads must equal the run
 * at 1 thread, and every repetition's its first's, or the suite fails
 * (exit 1) before writing any time.
 *
 * Output: scale.csv (one row per scene and thread count), scale.yaml, and
 * scale.png: time per step and time per face against faces, log-log (rows
 * alternate 1 and 2 threads, which the plot's `every 2` relies on).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/common.h"

#define SCALE_DENSITY 0.1
#define SCALE_BASE_FACES 528   /* detail of the small scenes */
#define SCALE_MAX_OBJECTS 1000 /* past this, finer spheres */
#define NTHREADS 2

typedef struct scale_row {
    int objects, detail, threads;
    int64_t faces;
    double step_ms, stage_ms[CLASH_NSTAGES];
    double bytes_per_face;
    double candidates_per_step;
    uint64_t checksum, pairs_total;
} scale_row;

/* Objects and detail for a target of n faces (see the top of the file). */
static void scale_shape(double n, int *objects, int *detail)
{
    long no = lround(n / SCALE_BASE_FACES);
    if (no < 2) no = 2;
    if (no > SCALE_MAX_OBJECTS) no = SCALE_MAX_OBJECTS;
    *objects = (int)no;
    *detail = (int)lround(n / (double)no);
}

/* One scene at each thread count, alternated within each repetition. */
static int scale_scene(const bench_opts *o, int objects, int detail, int steps, const int *threads,
                       scale_row *rows, int *done, int total)
{
    clash_error err = {0, ""};
    clash_scene *sc = NULL;
    const clash_preset_params pp = {.objects = objects, .seed = 1, .density = SCALE_DENSITY, .detail = detail};
    if (clash_scene_preset("cluttered", &pp, &sc, &err))
        return bench_fail(o, CLASH_EFAIL, "cluttered %d objects, detail %d: %s", objects, detail, err.msg);
    const int64_t faces = clash_scene_faces(sc);
    const int first = bench_first_rep(o->reps), counted = o->reps - first;
    double *t[NTHREADS];
    int rc = 0;
    for (int k = 0; k < NTHREADS; ++k) {
        t[k] = calloc((size_t)counted * (size_t)steps + 1, sizeof(double));
        rows[k] = (scale_row){.objects = objects, .detail = (int)(faces / objects), .threads = threads[k], .faces = faces};
        if (!t[k]) rc = bench_fail(o, CLASH_EFAIL, "out of memory");
    }
    int nt = 0; /* step times kept per thread count */
    for (int r = 0; r < o->reps && !rc; ++r) {
        int kept_here = 0;
        for (int k = 0; k < NTHREADS && !rc; ++k) {
            char what[96];
            snprintf(what, sizeof what, "%lld faces, %d thread%s", (long long)faces, threads[k],
                     threads[k] > 1 ? "s" : "");
            bench_progress(o, what, (*done)++, total);
            clash_config cfg = clash_config_default();
            cfg.threads = threads[k];
            cfg.steps = steps;
            bench_run br;
            if ((rc = bench_run_scene(sc, &cfg, &br, &err))) {
                rc = bench_fail(o, CLASH_EFAIL, "%lld faces, %d threads: %s", (long long)faces, threads[k], err.msg);
                break;
            }
            scale_row *w = &rows[k];
            if (r == 0) {
                w->checksum = br.tot.checksum, w->pairs_total = br.tot.pairs_total;
                const double n = br.steps > 0 ? br.steps : 1;
                for (int s = 0; s < CLASH_NSTAGES; ++s) w->stage_ms[s] = 1e3 * br.tot.stage_total[s] / n;
                w->candidates_per_step = (double)br.tot.candidates / n;
                w->bytes_per_face =
                    (double)(clash_scene_memory_bytes(sc) + br.tot.work_bytes) / (double)(faces > 0 ? faces : 1);
            } else if (br.tot.checksum != w->checksum) {
                rc = bench_fail(o, CLASH_EFAIL, "validation failed: %lld faces, %d threads: checksum changed between "
                                "repetitions", (long long)faces, threads[k]);
            }
            if (!rc && k > 0 && br.tot.checksum != rows[0].checksum)
                rc = bench_fail(o, CLASH_EFAIL,
                                "validation failed: %lld faces: checksum %016llx at %d threads, %016llx at %d",
                                (long long)faces, (unsigned long long)br.tot.checksum, threads[k],
                                (unsigned long long)rows[0].checksum, threads[0]);
            if (!rc && r >= first)
                for (int s = 0; s < br.steps; ++s) t[k][nt + s] = 1e3 * br.step_s[s];
            kept_here = br.steps;
            bench_run_free(&br);
        }
        if (r >= first) nt += kept_here;
    }
    for (int k = 0; k < NTHREADS; ++k) {
        if (!rc) rows[k].step_ms = bench_median(t[k], nt);
        free(t[k]);
    }
    clash_scene_destroy(sc);
    return rc;
}

int clash_bench_scale(int argc, char **argv);
int clash_bench_scale(int argc, char **argv)
{
    static const char *const extra[] = {"--steps", NULL};
    int reps_given = 0;
    for (int i = 0; i < argc; ++i) reps_given |= !strcmp(argv[i], "--reps");
    bench_opts o;
    int rc = bench_parse("scale", argc, argv, extra, " [--steps S]", &o);
    if (rc) return rc < 0 ? 0 : rc;
    if (!reps_given) o.reps = 1; /* a 10^7-face scene is minutes a run: one, median over its steps */
    const int steps = o.steps ? o.steps : (o.quick ? 5 : 20);
    static const double targets[] = {1e4, 3e4, 1e5, 3e5, 1e6, 3e6, 1e7};
    const int ntarget = o.quick ? 3 : (int)(sizeof targets / sizeof targets[0]);
    const int threads[NTHREADS] = {1, 2};

    clash_outfile fc, fy;
    FILE *c = bench_open(&o, &fc, "scale.csv");
    FILE *y = c ? bench_open(&o, &fy, "scale.yaml") : NULL;
    if (!y) {
        if (c) clash_outfile_abort(&fc);
        return CLASH_EFAIL;
    }
    fprintf(c, "faces,objects,detail,threads,steps,step_ms,ns_per_face,ns_per_face_log2n,speedup,motion_ms,boxes_ms,"
               "broad_ms,cull_ms,mid_ms,narrow_ms,gather_ms,candidates_per_step,bytes_per_face,pairs_total,checksum\n");
    bench_yaml_header(y, &o);
    fprintf(y, "params: {preset: cluttered, seed: 1, density: %g, steps: %d, threads: [1, 2], "
               "shape: \"objects = min(round(n / %d), %d), detail = n / objects\"}\n",
            SCALE_DENSITY, steps, SCALE_BASE_FACES, SCALE_MAX_OBJECTS);
    fprintf(y, "timing: \"time per step: median over the steps of the counted repetitions; 1 and 2 threads "
               "alternated\"\nscenes:\n");
    int done = 0;
    const int total = ntarget * NTHREADS * o.reps;
    scale_row rows[NTHREADS];
    for (int i = 0; i < ntarget && !rc; ++i) {
        int objects, detail;
        scale_shape(targets[i], &objects, &detail);
        if ((rc = scale_scene(&o, objects, detail, steps, threads, rows, &done, total))) break;
        const double n = (double)rows[0].faces;
        for (int k = 0; k < NTHREADS; ++k) {
            const scale_row *w = &rows[k];
            const double ns = 1e6 * w->step_ms / n;
            fprintf(c, "%lld,%d,%d,%d,%d,%.6g,%.5g,%.5g,%.4g", (long long)w->faces, w->objects, w->detail, w->threads,
                    steps, w->step_ms, ns, ns / log2(n), rows[0].step_ms / w->step_ms);
            for (int s = 0; s < CLASH_NSTAGES; ++s) fprintf(c, ",%.5g", w->stage_ms[s]);
            fprintf(c, ",%.0f,%.1f,%llu,%016llx\n", w->candidates_per_step, w->bytes_per_face,
                    (unsigned long long)w->pairs_total, (unsigned long long)w->checksum);
        }
        fprintf(y,
                "  - {faces: %lld, objects: %d, detail: %d, step_ms_1: %.6g, step_ms_2: %.6g, speedup: %.4g, "
                "bytes_per_face: %.1f, checksum: \"%016llx\", command: \"clash run --preset cluttered --objects %d "
                "--detail %d --density %g --seed 1 --steps %d\"}\n",
                (long long)rows[0].faces, objects, detail, rows[0].step_ms, rows[1].step_ms,
                rows[0].step_ms / rows[1].step_ms, rows[1].bytes_per_face, (unsigned long long)rows[0].checksum,
                objects, detail, SCALE_DENSITY, steps);
        if (!o.quiet)
            fprintf(stderr, "scale: %9lld faces  %4d objects x %6d  1 thread %9.2f ms  2 threads %9.2f ms  (%.2fx)"
                            "  %.0f B/face\n",
                    (long long)rows[0].faces, objects, (int)(rows[0].faces / objects), rows[0].step_ms, rows[1].step_ms,
                    rows[0].step_ms / rows[1].step_ms, rows[1].bytes_per_face);
    }
    if (rc) {
        clash_outfile_abort(&fc), clash_outfile_abort(&fy);
        return rc;
    }
    bench_progress(&o, "done", total, total);
    fprintf(y, "validation: {checksums_equal_at_1_and_2_threads: true}\n");
    if (bench_close(&o, &fc) | bench_close(&o, &fy)) return CLASH_EFAIL;
    char script[2048];
    snprintf(script, sizeof script,
             "set terminal pngcairo size 1100,450\nset output 'scale.png'\nset datafile separator ','\n"
             "set multiplot layout 1,2 title 'cluttered, density %g, %d steps (median per step)'\n"
             "set logscale xy\nset grid\nset key top left\nset xlabel 'faces'\n"
             "set ylabel 'ms per step'\n"
             "plot 'scale.csv' every 2::1 using 1:6 with linespoints lw 2 pt 7 title '1 thread',\\\n"
             "     '' every 2::2 using 1:6 with linespoints lw 2 pt 5 title '2 threads'\n"
             "set ylabel 'ns per face'\nset y2tics\nset logscale y2\n"
             "plot 'scale.csv' every 2::1 using 1:7 with linespoints lw 2 pt 7 title '1 thread',\\\n"
             "     '' every 2::2 using 1:7 with linespoints lw 2 pt 5 title '2 threads',\\\n"
             "     '' every 2::1 using 1:8 axes x1y2 with linespoints dt 2 lc rgb 'gray' "
             "title 'ns per face / log2 n, 1 thread (right)'\n"
             "unset multiplot\n",
             SCALE_DENSITY, steps);
    bench_plot(&o, "scale", script);
    if (!o.quiet) fprintf(stderr, "clash: bench scale: results in %s\n", o.out);
    return 0;
}
