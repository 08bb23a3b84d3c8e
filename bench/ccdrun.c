/*
 * ccdrun.c — `clash bench ccd-run`: exact CCD inside a run (--ccd, issue 15)
 * on the two ccd-frames scenes (../shared/data/ccd-frames: cloth-funnel
 * 227 -> 228, armadillo-rollers 326 -> 327; one deforming object each,
 * swept, self-collision), as `clash run SCENE --ccd` runs them.
 *
 * Per scene, R runs of the one step (--repeat R, default 5) with --ccd:
 *   step_s    the face-pair step: the seven stages' times summed
 *   ccd_s     the CCD after S5 (the report's ccd.total_s)
 *   ratio     (step_s + ccd_s) / step_s: the step with --ccd against the
 *             face-pair step of the same run
 * each the median over the R runs.  Then every primitive pair that step
 * gave the kernel is timed alone: ck_ccd (the kernel's filter, then its
 * root finder) in Q back-to-back calls under one pair of clock reads
 * (Q = 3), the best of two rounds; printed are the median, mean, 90th
 * percentile and maximum per query, and the stage's own time per primitive
 * pair (ccd_s / pairs: generation, de-duplication, the hull prefilter, the
 * kernel, the merge).  Validation first: the contacts are the same in every
 * run.
 *
 * --peer PATH (clash-peer-sccd, bench/peers): side by side with SCCD's CPU
 * pipeline instead.  For each scene and thread count, R rounds, each
 * running clash's whole step with --ccd (a new run: the seven stages and
 * the CCD, every contact) and the peer at SCCD's default tolerance 1e-12
 * and at 1e-6 (one counted repetition each, in its own process, on the
 * same two frames), the order turned round every other round.  Printed:
 * the medians of clash's step and of the peer's total (boxes + broad +
 * narrow phase), their ratios clash / SCCD, clash's primitive pairs into
 * the kernel (vf + ee) and contacts, SCCD's vf and ee candidates, each
 * one's earliest toi (1: none; clash's never later than the truth), and
 * the peer's stage medians at 1e-12.  "after-sccd12" marks a scene where
 * clash's earliest toi is later than SCCD's at 1e-12 (both may be below
 * the truth: SCCD's tolerance is not one in time; clash_peer_sccd --which
 * names SCCD's earliest pair).  The contacts must be the same in every
 * round and at every thread count.
 *
 * Scenes: the two ccd-frames scenes by name, or a frames scene file
 * (--scene FILE, repeatable: its first two frames, one swept step with
 * self-collision, as the peer reads them).  Options: --data DIR (the
 * shared data folder), --repeat R, --threads T[,T...], --scene NAME|FILE,
 * --peer PATH.  Prints only.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench.h"
#include "clash_internal.h"

int clash_bench_ccdrun(int argc, char **argv);

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n ? (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2])) : 0;
}

/* A scene of the suite: its description (one swept step with self-collision) and its two frame files. */
typedef struct ccd_scene {
    char name[256], p0[1024], p1[1024];
    char *files[2];
    clash_scene_desc d;
    clash_scene_desc parsed; /* a scene file's own description (freed at the end), else zero */
} ccd_scene;

/* A ccd-frames scene by name (cloth-funnel, armadillo-rollers) or a frames scene file. */
static int ccd_scene_open(const char *data, const char *arg, ccd_scene *s)
{
    memset(s, 0, sizeof *s);
    int f0 = !strcmp(arg, "cloth-funnel") ? 227 : !strcmp(arg, "armadillo-rollers") ? 326 : -1;
    if (f0 >= 0) {
        snprintf(s->name, sizeof s->name, "%s", arg);
        snprintf(s->p0, sizeof s->p0, "%s/ccd-frames/%s/frames/%d.ply", data, arg, f0);
        snprintf(s->p1, sizeof s->p1, "%s/ccd-frames/%s/frames/%d.ply", data, arg, f0 + 1);
    } else {
        clash_error err;
        if (clash_scene_desc_parse_file(arg, &s->parsed, &err)) {
            fprintf(stderr, "clash: error: %s\n", err.msg);
            return CLASH_EINPUT;
        }
        if (s->parsed.nframes < 2) {
            fprintf(stderr, "clash: error: bench ccd-run: %s: not a frames scene (the peer reads two frame files)\n",
                    arg);
            clash_scene_desc_free(&s->parsed);
            return CLASH_EINPUT;
        }
        snprintf(s->name, sizeof s->name, "%s", s->parsed.name ? s->parsed.name : arg);
        snprintf(s->p0, sizeof s->p0, "%s", s->parsed.frame_files[0]);
        snprintf(s->p1, sizeof s->p1, "%s", s->parsed.frame_files[1]);
    }
    s->files[0] = s->p0, s->files[1] = s->p1;
    s->d = (clash_scene_desc){.name = s->name, .steps = 1, .mode = CLASH_MODE_SWEPT, .self_collision = 1,
                              .nframes = 2, .frame_files = s->files,
                              .frames_objects = f0 >= 0 ? CLASH_FRAMES_SINGLE : s->parsed.frames_objects};
    return 0;
}

static int one_scene(const ccd_scene *scn, int repeat, int threads)
{
    const char *name = scn->name;
    clash_error err;
    clash_scene *sc = NULL;
    if (clash_scene_build(&scn->d, &sc, &err)) {
        fprintf(stderr, "clash: error: %s\n", err.msg);
        return CLASH_EINPUT;
    }
    double *step = calloc((size_t)repeat, sizeof *step), *ccd = calloc((size_t)repeat, sizeof *ccd);
    double *ratio = calloc((size_t)repeat, sizeof *ratio);
    clash_step_stats st = {0};
    size_t ncontacts = 0;
    int64_t npairs = 0;
    clash_run *run = NULL;
    int rc = 0;
    for (int r = 0; r < repeat && !rc; ++r) {
        clash_run_destroy(run);
        clash_config cfg = clash_config_default();
        cfg.mode = CLASH_MODE_SWEPT, cfg.self_collision = 1, cfg.ccd = 1, cfg.threads = threads;
        clash_pairs p;
        clash_contacts cs;
        if (!(run = clash_run_create(sc, &cfg, &err)) || clash_step(run, 1, &p, &st, &err) ||
            clash_run_contacts(run, &cs, &err)) {
            fprintf(stderr, "clash: error: %s: %s\n", name, err.msg);
            rc = CLASH_EFAIL;
            break;
        }
        if (r && cs.count != ncontacts) {
            fprintf(stderr, "clash: error: %s: %zu contacts, then %zu\n", name, ncontacts, cs.count);
            rc = CLASH_EFAIL;
        }
        ncontacts = cs.count, npairs = p.count ? (int64_t)p.count : 0;
        for (int s = 0; s < CLASH_NSTAGES; ++s) step[r] += st.seconds[s];
        ccd[r] = st.ccd_s, ratio[r] = (step[r] + ccd[r]) / step[r];
    }
    if (!rc) {
        /* each primitive pair of the last run's step, alone */
        const int64_t n = clash_internal_run_ccd_queries(run);
        double *q = malloc(((size_t)n + 1) * sizeof *q), sum = 0;
        const clash_internal_ccd_opts o = clash_internal_run_ccd_opts(run);
        enum { Q = 3 };
        for (int64_t i = 0; i < n; ++i) {
            double x0[4][3], x1[4][3], toi, best = 1e30;
            const int kind = clash_internal_run_ccd_query(run, i, x0, x1);
            for (int round = 0; round < 2; ++round) {
                const double t0 = now();
                for (int k = 0; k < Q; ++k) clash_internal_ccd(kind, (const double(*)[3])x0, (const double(*)[3])x1, &o, &toi, NULL);
                const double t = (now() - t0) / Q;
                best = t < best ? t : best;
            }
            q[i] = best, sum += best;
        }
        qsort(q, (size_t)n, sizeof *q, cmp_d);
        const double ms = median(ccd, repeat);
        printf("%-18s %8lld %9lld %8zu %10.4f %10.4f %7.2f %11.3g %11.3g %11.3g %11.3g %11.3g\n", name,
               (long long)npairs, (long long)n, ncontacts, median(step, repeat), ms, median(ratio, repeat),
               n ? q[n / 2] : 0, n ? sum / (double)n : 0, n ? q[(size_t)(0.9 * (double)(n - 1))] : 0,
               n ? q[n - 1] : 0, n ? ms / (double)n : 0);
        free(q);
    }
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    free(step), free(ccd), free(ratio);
    return rc;
}


/* ---- side by side with SCCD (--peer) ------------------------------------------------- */

/* The peer's medians: its last line "sccd key=value ...". */
typedef struct peer_row {
    double boxes_ms, broad_ms, narrow_ms, total_ms, vf, ee, toi;
} peer_row;

static double field(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    return p ? strtod(p + strlen(key), NULL) : NAN;
}

/* Runs the peer once on the scene's frames; 0, or CLASH_EFAIL after a message. */
static int run_peer(const char *peer, const ccd_scene *s, double tol, int threads, peer_row *out)
{
    if (strchr(peer, '\'') || strchr(s->p0, '\'') || strchr(s->p1, '\'')) {
        fprintf(stderr, "clash: error: bench ccd-run: a path with a quote (') is not passed to the peer\n");
        return CLASH_EINPUT;
    }
    char cmd[4096], line[2048];
    snprintf(cmd, sizeof cmd, "'%s' '%s' '%s' --tol %.17g --threads %d --repeat 1 --warmup 0", peer, s->p0, s->p1, tol,
             threads);
    FILE *f = popen(cmd, "r");
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "sccd ", 5)) {
            *out = (peer_row){field(line, "boxes_ms="), field(line, "broad_ms="), field(line, "narrow_ms="),
                              field(line, "total_ms="), field(line, " vf="), field(line, " ee="),
                              field(line, " toi=")};
            found = 1;
        }
    const int st = f ? pclose(f) : -1;
    if (!found || st != 0) {
        fprintf(stderr, "clash: error: bench ccd-run: %s: the peer failed (status %d): %s\n", s->name, st, cmd);
        return CLASH_EFAIL;
    }
    return 0;
}

/* One round of clash's whole --ccd step: ms, primitive pairs into the kernel, contacts, earliest toi (1: none). */
static int clash_round(clash_scene *sc, int threads, double *ms, int64_t *prim, size_t *ncontacts, double *toi,
                       uint64_t *digest, const char *name)
{
    clash_error err;
    clash_config cfg = clash_config_default();
    cfg.mode = CLASH_MODE_SWEPT, cfg.self_collision = 1, cfg.ccd = 1, cfg.threads = threads;
    clash_pairs p;
    clash_contacts cs;
    clash_step_stats st = {0};
    clash_run *run = clash_run_create(sc, &cfg, &err);
    if (!run || clash_step(run, 1, &p, &st, &err) || clash_run_contacts(run, &cs, &err)) {
        fprintf(stderr, "clash: error: %s: %s\n", name, err.msg);
        clash_run_destroy(run);
        return CLASH_EFAIL;
    }
    double s = st.ccd_s, t = 1;
    for (int k = 0; k < CLASH_NSTAGES; ++k) s += st.seconds[k];
    uint64_t h = 1469598103934665603ull; /* FNV-1a over the contacts: the same in every round and team */
    for (size_t i = 0; i < cs.count; ++i) {
        const clash_contact *c = &cs.contacts[i];
        const uint64_t w[6] = {c->kind, c->obj_a, c->id_a, c->obj_b, c->id_b, 0};
        uint64_t tb;
        memcpy(&tb, &c->toi, sizeof tb);
        for (int k = 0; k < 6; ++k) h = (h ^ (k < 5 ? w[k] : tb)) * 1099511628211ull;
        t = c->toi < t ? c->toi : t;
    }
    *ms = 1e3 * s, *prim = st.ccd_tests, *ncontacts = cs.count, *toi = t, *digest = h;
    clash_run_destroy(run);
    return 0;
}

static int peer_scene(const ccd_scene *s, const char *peer, int repeat, const int *threads, int nthreads)
{
    clash_error err;
    clash_scene *sc = NULL;
    if (clash_scene_build(&s->d, &sc, &err)) {
        fprintf(stderr, "clash: error: %s\n", err.msg);
        return CLASH_EINPUT;
    }
    double *v = calloc((size_t)repeat * 7, sizeof *v);
    double *cl = v, *p12 = v + repeat, *p6 = v + 2 * repeat, *bx = v + 3 * repeat, *br = v + 4 * repeat;
    double *na = v + 5 * repeat, *tmp = v + 6 * repeat;
    uint64_t digest0 = 0;
    int rc = 0;
    for (int ti = 0; ti < nthreads && !rc; ++ti) {
        int64_t prim = 0;
        size_t nc = 0;
        double toi = 1;
        peer_row a = {0}, b = {0};
        for (int r = 0; r < repeat && !rc; ++r) {
            uint64_t dg = 0;
            for (int k = 0; k < 2 && !rc; ++k) {
                if ((k == 0) == (r % 2 == 0)) {
                    rc = clash_round(sc, threads[ti], &cl[r], &prim, &nc, &toi, &dg, s->name);
                    if (!rc && (ti || r) && dg != digest0) {
                        fprintf(stderr, "clash: error: %s: the contacts differ between rounds or thread counts\n",
                                s->name);
                        rc = CLASH_EFAIL;
                    }
                    digest0 = dg;
                } else {
                    rc = run_peer(peer, s, 1e-12, threads[ti], &a);
                    if (!rc) rc = run_peer(peer, s, 1e-6, threads[ti], &b);
                    p12[r] = a.total_ms, p6[r] = b.total_ms, bx[r] = a.boxes_ms, br[r] = a.broad_ms;
                    na[r] = a.narrow_ms;
                }
            }
        }
        if (rc) break;
        const double c = median(cl, repeat), s12 = median(p12, repeat), s6 = median(p6, repeat);
        memcpy(tmp, cl, (size_t)repeat * sizeof *tmp);
        printf("%-18s %2d %10.2f %10.2f %10.2f %6.3f %6.3f %9lld %8zu %9.0f %9.0f %14.10g %14.10g %14.10g %9.2f %9.2f "
               "%9.2f%s\n", s->name, threads[ti], c, s12, s6, c / s12, c / s6, (long long)prim, nc, a.vf, a.ee, toi,
               a.toi, b.toi, median(bx, repeat), median(br, repeat), median(na, repeat), toi > a.toi ? " after-sccd12" : "");
        fflush(stdout);
    }
    free(v);
    clash_scene_destroy(sc);
    return rc;
}

int clash_bench_ccdrun(int argc, char **argv)
{
    const char *data = "../shared/data", *peer = NULL, *scenes[64];
    int repeat = 5, threads[16] = {0}, nthreads = 1, nscenes = 0;
    for (int i = 0; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL, *arg = argv[i];
        int ok = 1;
        if (!strcmp(argv[i], "--data") && v) data = v, ++i;
        else if (!strcmp(argv[i], "--repeat") && v && (repeat = atoi(v)) > 0) ++i;
        else if (!strcmp(argv[i], "--peer") && v) peer = v, ++i;
        else if (!strcmp(argv[i], "--scene") && v && nscenes < 64) scenes[nscenes++] = v, ++i;
        else if (!strcmp(argv[i], "--threads") && v) {
            nthreads = 0;
            for (const char *p = v; ok && *p;) {
                char *end;
                const long t = strtol(p, &end, 10);
                ok = end != p && t >= 1 && t <= 4096 && nthreads < 16 && (*end == ',' || !*end);
                if (ok) threads[nthreads++] = (int)t, p = *end ? end + 1 : end;
            }
            ok = ok && nthreads > 0, ++i;
        } else ok = 0;
        if (!ok) {
            fprintf(stderr, "clash: error: bench ccd-run: bad option '%s' (--data DIR, --repeat R >= 1, "
                            "--threads T[,T...] >= 1, --scene NAME|FILE, --peer PATH)\n", arg);
            return CLASH_EINPUT;
        }
    }
    if (!nscenes) scenes[nscenes++] = "cloth-funnel", scenes[nscenes++] = "armadillo-rollers";
    if (peer)
        printf("%-18s %2s %10s %10s %10s %6s %6s %9s %8s %9s %9s %14s %14s %14s %9s %9s %9s\n", "scene", "T",
               "clash_ms", "sccd12_ms", "sccd6_ms", "r12", "r6", "prim", "contacts", "sccd_vf", "sccd_ee",
               "toi_clash", "toi_sccd12", "toi_sccd6", "boxes_ms", "broad_ms", "narrow_ms");
    else
        printf("%-18s %8s %9s %8s %10s %10s %7s %11s %11s %11s %11s %11s\n", "scene", "pairs", "prim", "contacts",
               "step_s", "ccd_s", "ratio", "q_median_s", "q_mean_s", "q_p90_s", "q_max_s", "stage/prim");
    int rc = 0;
    for (int k = 0; k < nscenes && !rc; ++k) {
        ccd_scene s;
        if ((rc = ccd_scene_open(data, scenes[k], &s))) break;
        if (peer) rc = peer_scene(&s, peer, repeat, threads, nthreads);
        else
            for (int t = 0; t < nthreads && !rc; ++t) rc = one_scene(&s, repeat, threads[t]);
        clash_scene_desc_free(&s.parsed);
    }
    return rc;
}
