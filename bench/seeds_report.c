/*
 * seeds_report.c — the second half of `clash bench seeds` (seeds.c runs
 * the experiments): simulated cache misses, the papers' claims checked on
 * the measurements, and the output files.
 *
 * Cache misses.  For each counted cell this same binary runs as a child
 *
 *   clash profile DIR/callgrind/EXP-I.json --midphase M --steps 3 --threads 1
 *         --report DIR/callgrind/EXP-I-M.yaml --counters callgrind
 *         --sim-ll 1048576,16,64 --quiet
 *
 * which re-runs itself under valgrind's callgrind (profile_cmd.c) and
 * writes the per-stage l1d_misses / ll_misses into the report's
 * `counters:` section; their sum over stages divided by the steps is the
 * cell's L1D / LL misses per step.  The scene file is the point's scene
 * written back as JSON and shifted in time (bench_desc_json) so that its
 * three steps are the window the experiment cares about: the first
 * collision step and the two before it (table1, sweep), or the last three
 * steps (the others).  Two children run at a time, after all timing.
 * Without valgrind (or when a child fails) the cells say NA and the YAML
 * says why.
 *
 * Claims.  Each paper's own claim about its experiment is a measure
 * computed from the cells and a test on it (CLAIMS below), evaluated for
 * every midphase that ran; the line shown first is the paper's own method
 * when this build has it, else a stand-in (marked), else n/a.
 *
 * Output (in --out DIR): seeds_EXP.csv and seeds_EXP.gp/.png for table1,
 * sweep, complexity, distance, cluttered; seeds.yaml (build, machine,
 * parameters, midphases and why any is skipped, per-point checksums and
 * the fastest midphase, claims:); the claims table on stdout.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/seeds.h"
#include "clash_internal.h"

/* ---- callgrind ---------------------------------------------------------------------- */

typedef struct cg_job {
    seeds_cell *cell;
    char report[1400], log[1400];
    const char *scene, *mid;
    int steps;
    pid_t pid;
} cg_job;

static void cg_start(cg_job *j, const char *exe)
{
    char steps[16];
    snprintf(steps, sizeof steps, "%d", j->steps);
    char *av[] = {(char *)exe, "profile", (char *)j->scene, "--midphase", (char *)j->mid, "--steps", steps,
                  "--threads", "1", "--report", j->report, "--counters", "callgrind", "--sim-ll", SEEDS_CG_LL,
                  "--quiet", NULL};
    fflush(NULL);
    j->pid = fork();
    if (j->pid == 0) {
        if (freopen(j->log, "w", stdout)) dup2(fileno(stdout), 2);
        execv(exe, av);
        fprintf(stderr, "cannot run %s: %s\n", exe, strerror(errno));
        _exit(127);
    }
    if (j->pid < 0) snprintf(j->cell->cg_why, sizeof j->cell->cg_why, "fork failed: %s", strerror(errno));
}

/* The report's counters: section: misses per step, or NA and why. */
static void cg_read(cg_job *j, int status)
{
    seeds_cell *k = j->cell;
    FILE *f = status == 0 ? fopen(j->report, "r") : NULL;
    if (!f) {
        snprintf(k->cg_why, sizeof k->cg_why, "clash profile failed (exit %d), see %.150s", status, j->log);
        return;
    }
    char line[4096];
    int in_counters = 0, steps = 0, callgrind = 0, stages = 0;
    double l1d = 0, ll = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "steps: ", 7)) steps = atoi(line + 7);
        if (line[0] != ' ') in_counters = !strncmp(line, "counters:", 9);
        if (!in_counters) continue;
        if (!strncmp(line, "  source: ", 10)) callgrind = !strncmp(line + 10, "callgrind", 9);
        if (!strncmp(line, "  reason: ", 10)) {   /* a YAML string: keep what is inside the quotes */
            char *r = line + 10 + (line[10] == '"');
            r[strcspn(r, "\n")] = 0;
            if (*r && r[strlen(r) - 1] == '"') r[strlen(r) - 1] = 0;
            snprintf(k->cg_why, sizeof k->cg_why, "%.190s", r);
        }
        const char *a = strstr(line, "l1d_misses: "), *b = strstr(line, "ll_misses: ");
        if (a && b) l1d += strtod(a + 12, NULL), ll += strtod(b + 11, NULL), ++stages;
    }
    fclose(f);
    if (callgrind && stages && steps > 0) {
        k->l1d = l1d / steps, k->ll = ll / steps;
        k->cg_why[0] = 0;
        remove(j->log);
    } else if (!k->cg_why[0]) {
        snprintf(k->cg_why, sizeof k->cg_why, "no callgrind counts in %.150s", j->report);
    }
}

void seeds_callgrind(seeds_ctx *c)
{
    char exe[PATH_MAX], dir[1100];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    /* valgrind found, and a build it can run (profile_cmd.c's own test) */
    c->cg_ok = clash_internal_callgrind_usable(c->cg_why, sizeof c->cg_why) == 0;
    if (c->cg_ok && n <= 0) c->cg_ok = 0, snprintf(c->cg_why, sizeof c->cg_why, "cannot find this program (/proc/self/exe)");
    snprintf(dir, sizeof dir, "%s/callgrind", c->o.out);
    if (c->cg_ok && mkdir(dir, 0777) && errno != EEXIST)
        c->cg_ok = 0, snprintf(c->cg_why, sizeof c->cg_why, "cannot create %.200s: %s", dir, strerror(errno));
    if (c->cg_ok) exe[n] = 0;
    int njobs = 0, cap = 0;
    for (int i = 0; i < SEEDS_NEXP; ++i)
        for (int j = 0; j < c->exp[i].npoints; ++j) cap += c->nmid;
    cg_job *jobs = calloc((size_t)cap + 1, sizeof *jobs);
    char(*scenes)[1200] = calloc((size_t)cap + 1, sizeof *scenes);
    if (!jobs || !scenes) c->cg_ok = 0, snprintf(c->cg_why, sizeof c->cg_why, "out of memory");
    for (int i = 0; i < SEEDS_NEXP; ++i)
        for (int j = 0; j < c->exp[i].npoints; ++j) {
            seeds_point *p = &c->exp[i].pt[j];
            for (int m = 0; m < c->nmid; ++m)
                if (p->cell[m].ran)
                    snprintf(p->cell[m].cg_why, sizeof p->cell[m].cg_why, "%.190s",
                             !c->cg_ok ? c->cg_why : p->cg ? "" : "not counted (--quick counts the smallest size only)");
            if (!c->cg_ok || !p->cg || p->cg_steps < 1) continue;
            char name[128], *json = bench_desc_json(&p->desc, p->cg_shift, p->cg_steps);
            clash_outfile fs;
            snprintf(name, sizeof name, "callgrind/%s-%d.json", c->exp[i].name, j + 1);
            FILE *f = json ? bench_open(&c->o, &fs, name) : NULL;
            if (f) fputs(json, f);
            free(json);
            const int ok = f && !bench_close(&c->o, &fs);
            for (int m = 0; m < c->nmid; ++m) {
                if (!p->cell[m].ran) continue;
                if (!ok) {
                    snprintf(p->cell[m].cg_why, sizeof p->cell[m].cg_why, "cannot write the scene %s", name);
                    continue;
                }
                cg_job *jb = &jobs[njobs++];
                snprintf(scenes[njobs - 1], sizeof scenes[0], "%s/%s", c->o.out, name);
                jb->scene = scenes[njobs - 1];
                jb->cell = &p->cell[m], jb->mid = c->mid[m].name, jb->steps = p->cg_steps;
                snprintf(jb->report, sizeof jb->report, "%s/%s-%d-%s.yaml", dir, c->exp[i].name, j + 1, jb->mid);
                snprintf(jb->log, sizeof jb->log, "%s/%s-%d-%s.log", dir, c->exp[i].name, j + 1, jb->mid);
            }
        }
    /* At most two children at a time (each is one valgrind process). */
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const int par = cores >= 2 ? 2 : 1;
    int next = 0, running = 0, finished = 0;
    while (finished < njobs) {
        while (running < par && next < njobs) {
            char what[160];
            snprintf(what, sizeof what, "callgrind %s", jobs[next].report + strlen(dir) + 1);
            bench_progress(&c->o, what, finished, njobs);
            cg_start(&jobs[next], exe);
            if (jobs[next].pid > 0) ++running;
            else ++finished;
            ++next;
        }
        if (!running) continue;
        int st;
        const pid_t pid = waitpid(-1, &st, 0);
        if (pid < 0) break;
        for (int k = 0; k < next; ++k)
            if (jobs[k].pid == pid) {
                cg_read(&jobs[k], WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0));
                jobs[k].pid = 0, --running, ++finished;
            }
    }
    if (njobs) bench_progress(&c->o, "callgrind done", njobs, njobs);
    free(jobs);
    free(scenes);
}

/* ---- claims ------------------------------------------------------------------------- */

typedef double (*measure_fn)(const seeds_ctx *c, const seeds_exp *e, int m);

/* Least-squares slope of log y against log x over the cells that ran,
 * with x >= the fit's lower bound; NAN with fewer than two points. */
static double loglog_slope(const seeds_ctx *c, const seeds_exp *e, int m, int which)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (int j = 0; j < e->npoints; ++j) {
        const seeds_cell *k = &e->pt[j].cell[m];
        const double y = !k->ran ? NAN : which == 0 ? k->ms_mean : which == 1 ? k->ms_before : k->ms_collision;
        if (!k->ran || !(y > 0) || (double)e->pt[j].faces < c->fit_min_faces) continue;
        const double lx = log((double)e->pt[j].faces), ly = log(y);
        sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly, ++n;
    }
    const double den = n * sxx - sx * sx;
    return n >= 2 && den > 0 ? (n * sxy - sx * sy) / den : NAN;
}
static double m_slope_mean(const seeds_ctx *c, const seeds_exp *e, int m) { return loglog_slope(c, e, m, 0); }
static double m_slope_before(const seeds_ctx *c, const seeds_exp *e, int m) { return loglog_slope(c, e, m, 1); }
static double m_slope_collision(const seeds_ctx *c, const seeds_exp *e, int m) { return loglog_slope(c, e, m, 2); }

/* Smallest over the points of ms at the collision step / mean ms before it. */
static double m_coll_over_before(const seeds_ctx *c, const seeds_exp *e, int m)
{
    double v = NAN;
    (void)c;
    for (int j = 0; j < e->npoints; ++j) {
        const seeds_cell *k = &e->pt[j].cell[m];
        if (!k->ran || !(k->ms_before > 0) || isnan(k->ms_collision)) return NAN;
        const double r = k->ms_collision / k->ms_before;
        v = isnan(v) || r < v ? r : v;
    }
    return v;
}

/* Largest over the points of candidates at the collision step / all face pairs. */
static double m_cand_fraction(const seeds_ctx *c, const seeds_exp *e, int m)
{
    double v = NAN;
    (void)c;
    for (int j = 0; j < e->npoints; ++j) {
        const seeds_cell *k = &e->pt[j].cell[m];
        if (!k->ran || k->cand_collision < 0 || !(e->pt[j].all_face_pairs > 0)) return NAN;
        const double r = (double)k->cand_collision / e->pt[j].all_face_pairs;
        v = isnan(v) || r > v ? r : v;
    }
    return v;
}

/* Smallest over the meshes of mean ms over the nearer half of the
 * distances / over the farther half (points are built far to near). */
static double m_near_far(const seeds_ctx *c, const seeds_exp *e, int m)
{
    double v = NAN;
    (void)c;
    for (int a = 0; a < e->npoints;) {
        int b = a;
        while (b < e->npoints && !strcmp(e->pt[b].group, e->pt[a].group)) ++b;
        const int half = (b - a) / 2;
        double far = 0, near = 0;
        for (int j = 0; j < half; ++j) {
            const seeds_cell *kf = &e->pt[a + j].cell[m], *kn = &e->pt[b - 1 - j].cell[m];
            if (!kf->ran || !kn->ran) return NAN;
            far += kf->ms_mean, near += kn->ms_mean;
        }
        if (half < 1 || !(far > 0)) return NAN;
        v = isnan(v) || near / far < v ? near / far : v;
        a = b;
    }
    return v;
}

typedef struct claim_def {
    int exp;                   /* index in seeds_ctx.exp */
    const char *source, *claim, *brief, *measure, *test;   /* brief: the stdout table's words */
    const char *method[2];     /* the paper's own method(s): the first in the build is shown */
    const char *standin;       /* shown when none is (NULL: n/a) */
    measure_fn fn;
    double lo, hi;             /* holds when lo <= v <= hi, or < where open */
    int open_lo, open_hi;
} claim_def;

static const claim_def CLAIMS[] = {
    {0, "[KTK94] 5.1 Fig. 7; [KTAK94] 4.1 Fig. 13", "the collision cycle costs far more than the cycles before contact", "collision cycle >> cycles before contact",
     "ms at the first collision step / mean ms of the steps before it (smaller of the two scenes)", ">= 2",
     {"objoctree", NULL}, "octree", m_coll_over_before, 2, INFINITY, 0, 0},
    {0, "[KTK94] 5.1; [KTAK94] 4.1: 263 ms vs 70 min", "the octree method tests a small fraction of all face pairs", "small fraction of all face pairs tested",
     "candidates at the first collision step / all face pairs of the scene (larger of the two scenes)", "<= 0.01",
     {"objoctree", NULL}, "octree", m_cand_fraction, 0, 0.01, 0, 0},
    {1, "[KTK94] 4.2; [KTAK94] 3 (octree update)",
     "octree update (objects carry their octrees): the cost of a cycle before contact is at most linear in faces", "octree update: pre-contact cycle <= linear in faces",
     "log-log slope of the mean ms before contact against faces", "<= 1.2", {"objoctree", NULL}, NULL,
     m_slope_before, -INFINITY, 1.2, 0, 0},
    {1, "[Smith94] 3.3.7 Fig. 3.7", "the collision-step time grows with faces, sub-quadratically", "collision step grows sub-quadratically",
     "log-log slope of ms at the collision step against faces", "in (0, 2)", {"octree", NULL}, "octree",
     m_slope_collision, 0, 2, 1, 1},
    {2, "[TC96] 4.2 Fig. 5", "time grows linearly with object complexity", "time linear in object complexity",
     "log-log slope of ms per step against faces", "in [0.8, 1.2]", {"spherical", NULL}, "octree", m_slope_mean, 0.8,
     1.2, 0, 0},
    {3, "[Zachmann00] 3.5.10 Figs. 3.38, 3.46", "query time falls as the distance grows", "time falls as distance grows",
     "mean ms over the nearer half of the distances / over the farther half (smallest over meshes)", ">= 1.25",
     {"boxtree", "doptree"}, "bboxpipe", m_near_far, 1.25, INFINITY, 0, 0},
};
#define NCLAIMS ((int)(sizeof CLAIMS / sizeof *CLAIMS))

static int claim_holds(const claim_def *d, double v)
{
    if (isnan(v)) return -1;
    return (d->open_lo ? v > d->lo : v >= d->lo) && (d->open_hi ? v < d->hi : v <= d->hi);
}

/* A number for YAML or CSV: "%.4g", or null / NA when not a number. */
static const char *fmt_num(char *buf, size_t n, double v, const char *none)
{
    if (isnan(v)) snprintf(buf, n, "%s", none);
    else snprintf(buf, n, "%.6g", v);
    return buf;
}
static const char *ynum(char *buf, size_t n, double v) { return fmt_num(buf, n, v, "null"); }

/* Text for a double-quoted YAML string: " and \ escaped (truncated to n). */
static const char *yesc(char *buf, size_t n, const char *s)
{
    size_t k = 0;
    for (; *s && k + 2 < n; ++s) {
        if (*s == '"' || *s == '\\') buf[k++] = '\\';
        buf[k++] = *s == '\n' ? ' ' : *s;
    }
    buf[k] = 0;
    return buf;
}

static const char *yes_no(int h) { return h < 0 ? "n/a" : h ? "yes" : "no"; }

/* The midphase a claim is shown for, and whether it is the paper's own. */
static int claim_method(const seeds_ctx *c, const claim_def *d, int *own)
{
    for (int i = 0; i < 2 && d->method[i]; ++i) {
        const int m = seeds_mid_index(c, d->method[i]);
        if (m >= 0) return *own = 1, m;
    }
    *own = 0;
    return d->standin ? seeds_mid_index(c, d->standin) : -1;
}

static void write_claims(const seeds_ctx *c, FILE *y)
{
    fprintf(y, "claims:\n");
    printf("\nclaims of the papers, checked on this run (* a stand-in: the paper's method is not in this build)\n");
    printf("%-10s  %-34.34s  %-52s  %-11s  %9s  %-5s  %s\n", "experiment", "source", "claim", "midphase", "measured",
           "holds", "all midphases");
    for (int i = 0; i < NCLAIMS; ++i) {
        const claim_def *d = &CLAIMS[i];
        const seeds_exp *e = &c->exp[d->exp];
        int own = 0, m = e->skipped ? -1 : claim_method(c, d, &own);
        const double v = m >= 0 ? d->fn(c, e, m) : NAN;
        char note[sizeof e->why + 64] = ""; /* room for the reason and its prefix */
        if (e->skipped) snprintf(note, sizeof note, "experiment skipped: %s", e->why);
        else if (!own)
            snprintf(note, sizeof note, "%s%s%s not in this build%s%s", d->method[0], d->method[1] ? "/" : "",
                     d->method[1] ? d->method[1] : "", d->standin ? "; shown for " : "", d->standin ? d->standin : "");
        fprintf(y, "  - {experiment: %s, source: \"%s\", claim: \"%s\", measure: \"%s\", test: \"%s\",\n", e->name,
                d->source, d->claim, d->measure, d->test);
        char vbuf[32], esc[600];
        fprintf(y, "     paper_method: %s%s%s, shown_for: %s, paper_method_in_build: %s, measured: %s, holds: %s,%s%s%s\n",
                d->method[0], d->method[1] ? "/" : "", d->method[1] ? d->method[1] : "", m >= 0 ? c->mid[m].name : "none",
                m >= 0 && own ? "true" : "false", ynum(vbuf, sizeof vbuf, v), yes_no(claim_holds(d, v)),
                note[0] ? " note: \"" : "", yesc(esc, sizeof esc, note), note[0] ? "\"," : "");
        fprintf(y, "     per_midphase: {");
        int nev = 0, nyes = 0, first = 1;
        for (int k = 0; k < c->nmid && !e->skipped; ++k) {
            if (!seeds_mid_runs(c, k)) continue;
            const double w = d->fn(c, e, k);
            const int h = claim_holds(d, w);
            nev += h >= 0, nyes += h > 0;
            fprintf(y, "%s%s: {measured: %s, holds: %s}", first ? "" : ", ", c->mid[k].name,
                    ynum(vbuf, sizeof vbuf, w), yes_no(h));
            first = 0;
        }
        fprintf(y, "}}\n");
        char shown[64], meas[32];
        snprintf(shown, sizeof shown, "%s%s", m >= 0 ? c->mid[m].name : "n/a", m >= 0 && !own ? "*" : "");
        snprintf(meas, sizeof meas, isnan(v) ? "n/a" : "%.3g", v);
        printf("%-10s  %-34.34s  %-52.52s  %-11s  %9s  %-5s  %d of %d hold\n", e->name, d->source, d->brief, shown, meas,
               yes_no(claim_holds(d, v)), nyes, nev);
    }
}

/* ---- CSV, YAML, plots -------------------------------------------------------------- */

#define CSV_CORE "faces,midphase,steps,first_collision_step,ms_per_step,ms_max,ms_before_contact,ms_collision," \
                 "candidates_per_step,candidates_collision,pairs_per_step,l1d_per_step,ll_per_step,checksum"
/* 1-based columns after the experiment's parameters */
enum { COL_FACES = 1, COL_MID, COL_STEPS, COL_FC, COL_MS, COL_MAX, COL_BEFORE, COL_COLL };

/* The experiment's figure of merit of a cell (the fastest midphase is the smallest). */
static double figure(const seeds_exp *e, const seeds_cell *k) { return e->stop_at_first ? k->ms_collision : k->ms_mean; }

/* Rows midphase by midphase (each midphase's rows are consecutive: one plotted line). */
static int write_csv(const seeds_ctx *c, const seeds_exp *e)
{
    char name[96], b[10][32];
    clash_outfile fc;
    snprintf(name, sizeof name, "seeds_%s.csv", e->name);
    FILE *f = bench_open(&c->o, &fc, name);
    if (!f) return CLASH_EFAIL;
    fprintf(f, "%s," CSV_CORE "\n", e->params_header);
    for (int m = 0; m < c->nmid; ++m)
        for (int j = 0; j < e->npoints; ++j) {
            const seeds_point *p = &e->pt[j];
            const seeds_cell *k = &p->cell[m];
            if (!k->ran) continue;
            fprintf(f, "%s,%lld,%s,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%016llx\n", p->params, (long long)p->faces,
                    c->mid[m].name, k->steps, k->first_collision, fmt_num(b[0], 32, k->ms_mean, "NA"),
                    fmt_num(b[1], 32, k->ms_max, "NA"), fmt_num(b[2], 32, k->ms_before, "NA"),
                    fmt_num(b[3], 32, k->ms_collision, "NA"), fmt_num(b[4], 32, k->cand_per_step, "NA"),
                    fmt_num(b[5], 32, k->cand_collision < 0 ? NAN : (double)k->cand_collision, "NA"),
                    fmt_num(b[6], 32, k->pairs_per_step, "NA"), fmt_num(b[7], 32, k->l1d, "NA"),
                    fmt_num(b[8], 32, k->ll, "NA"), (unsigned long long)k->checksum);
        }
    return bench_close(&c->o, &fc);
}

static void write_exp_yaml(const seeds_ctx *c, const seeds_exp *e, FILE *y)
{
    char esc[600];
    fprintf(y, "  %s:\n", e->name);
    if (e->skipped) {
        fprintf(y, "    skipped: \"%s\"\n", yesc(esc, sizeof esc, e->why));
        return;
    }
    fprintf(y, "    csv: seeds_%s.csv\n    setup: \"%s\"\n    points:\n", e->name, e->note);
    for (int j = 0; j < e->npoints; ++j) {
        const seeds_point *p = &e->pt[j];
        int ref = -1, best = -1;
        for (int m = 0; m < c->nmid; ++m) {
            const seeds_cell *k = &p->cell[m];
            if (!k->ran) continue;
            if (ref < 0) ref = m;
            if (best < 0 || figure(e, k) < figure(e, &p->cell[best])) best = m;
        }
        fprintf(y, "      - {point: \"%s\", faces: %lld", yesc(esc, sizeof esc, p->label), (long long)p->faces);
        if (ref >= 0)
            fprintf(y, ", first_collision_step: %d, checksum: \"%016llx\", midphases_agree: true, fastest: %s",
                    p->cell[ref].first_collision, (unsigned long long)p->cell[ref].checksum, c->mid[best].name);
        if (p->cg && c->cg_ok) fprintf(y, ", callgrind_steps: [%d, %d]", p->cg_shift + 1, p->cg_shift + p->cg_steps);
        for (int m = 0; m < c->nmid; ++m)
            if (seeds_mid_runs(c, m) && !p->cell[m].ran) fprintf(y, ", skipped_%s: \"%s\"", c->mid[m].name,
                                                             yesc(esc, sizeof esc, p->cell[m].why));
        for (int m = 0; m < c->nmid; ++m)
            if (p->cell[m].ran && p->cg && c->cg_ok && isnan(p->cell[m].l1d))
                fprintf(y, ", counters_NA_%s: \"%s\"", c->mid[m].name, yesc(esc, sizeof esc, p->cell[m].cg_why));
        fprintf(y, "}\n");
    }
}

/* One line per midphase (and per mesh for distance): y against x. */
static void plot_lines(const seeds_ctx *c, const seeds_exp *e, int xcol, int ycol, const char *ylabel)
{
    char script[8192];
    int n = snprintf(script, sizeof script,
                     "set terminal pngcairo size 900,560\nset output 'seeds_%s.png'\nset datafile separator ','\n"
                     "set datafile missing 'NA'\nset title '%s'\nset xlabel '%s'\nset ylabel '%s'\nset grid\n"
                     "set key outside right\n%s%splot ",
                     e->name, e->title, e->xlabel, ylabel, e->logx ? "set logscale x\n" : "",
                     e->logy ? "set logscale y\n" : "");
    int first = 1;
    for (int m = 0; m < c->nmid; ++m)
        for (int j = 0; j < e->npoints; ++j) {
            const seeds_point *p = &e->pt[j];
            if (!p->cell[m].ran || (j > 0 && !strcmp(p->group, e->pt[j - 1].group) && e->pt[j - 1].cell[m].ran))
                continue;   /* one curve per (midphase, group), started at its first point */
            char title[96], cond[160] = "";
            snprintf(title, sizeof title, "%s%s%s", c->mid[m].name, p->group[0] ? ", " : "", p->group);
            if (p->group[0]) snprintf(cond, sizeof cond, " && strcol(1) eq '%s'", p->group);
            n += snprintf(script + n, sizeof script - (size_t)n,
                          "%s'seeds_%s.csv' using %d:(strcol(%d) eq '%s'%s ? column(%d) : 1/0) with linespoints lw 2 "
                          "title '%s'",
                          first ? "" : ", \\\n     ", e->name, xcol, e->nparams + COL_MID, c->mid[m].name, cond, ycol,
                          title);
            first = 0;
            if (n >= (int)sizeof script - 400) break;
        }
    snprintf(script + n, sizeof script - (size_t)n, "\n");
    char name[64];
    snprintf(name, sizeof name, "seeds_%s", e->name);
    if (!first) bench_plot(&c->o, name, script);
}

/* Bars of the mean ms per step with the max as points, one bar per row. */
static void plot_bars(const seeds_ctx *c, const seeds_exp *e)
{
    char script[4096], name[64];
    const int np = e->nparams;
    snprintf(script, sizeof script,
             "set terminal pngcairo size 900,560\nset output 'seeds_%s.png'\nset datafile separator ','\n"
             "set datafile missing 'NA'\nset title '%s'\nset ylabel 'ms per step'\nset grid ytics\nset logscale y\n"
             "set style fill solid 0.6\nset boxwidth 0.7\nset xtics rotate by -40 scale 0\nset key outside top center horizontal\n"
             "plot 'seeds_%s.csv' using 0:%d:xtic(strcol(%d).' '.strcol(1)) with boxes title 'mean', \\\n"
             "     '' using 0:%d with points pt 7 ps 1.2 title 'max'\n",
             e->name, e->title, e->name, np + COL_MS, np + COL_MID, np + COL_MAX);
    snprintf(name, sizeof name, "seeds_%s", e->name);
    bench_plot(&c->o, name, script);
}

int seeds_write(seeds_ctx *c)
{
    char esc[600];
    for (int i = 0; i < SEEDS_NEXP; ++i)
        if (!c->exp[i].skipped && write_csv(c, &c->exp[i])) return CLASH_EFAIL;
    clash_outfile fy;
    FILE *y = bench_open(&c->o, &fy, "seeds.yaml");
    if (!y) return CLASH_EFAIL;
    bench_yaml_header(y, &c->o);
    fprintf(y, "params: {brute_max_faces: %lld, slope_fit_min_faces: %g, callgrind_steps: %d, callgrind_ll: \"%s\"}\n",
            (long long)c->brute_max_faces, c->fit_min_faces, SEEDS_CG_STEPS, SEEDS_CG_LL);
    fprintf(y, "midphases:\n");
    for (int m = 0; m < c->nmid; ++m)
        fprintf(y, "  - {name: %s, status: %s%s%s%s}\n", c->mid[m].name,
                seeds_mid_runs(c, m) ? "run" : !c->mid[m].available ? "skipped" : "not chosen",
                c->mid[m].available ? "" : ", why: \"", c->mid[m].available ? "" : yesc(esc, sizeof esc, c->mid[m].why),
                c->mid[m].available ? "" : "\"");
    fprintf(y, "midphases_run: [");
    for (int m = 0, first = 1; m < c->nmid; ++m)
        if (seeds_mid_runs(c, m)) fprintf(y, "%s%s", first ? "" : ", ", c->mid[m].name), first = 0;
    fprintf(y, "]\n");
    if (c->cg_ok)
        fprintf(y, "counters: {source: callgrind, ll: \"%s\", l1d: \"valgrind's default (the host's)\", window: \"%d "
                   "steps: the first collision step and the ones before it (table1, sweep), else the last steps\"%s}\n",
                SEEDS_CG_LL, SEEDS_CG_STEPS, c->o.quick ? ", quick: \"the smallest size of each experiment only\"" : "");
    else
        fprintf(y, "counters: {source: NA, reason: \"%s\"}\n", yesc(esc, sizeof esc, c->cg_why));
    fprintf(y, "experiments:\n");
    for (int i = 0; i < SEEDS_NEXP; ++i) write_exp_yaml(c, &c->exp[i], y);
    write_claims(c, y);
    fprintf(y, "validation: {all_midphases_agree: true, reference: \"brute where it ran, else the first midphase\"}\n");
    if (bench_close(&c->o, &fy)) return CLASH_EFAIL;

    char ylab[64];
    for (int i = 0; i < SEEDS_NEXP; ++i) {
        const seeds_exp *e = &c->exp[i];
        if (e->skipped) continue;
        const int np = e->nparams;
        if (!strcmp(e->name, "table1") || !strcmp(e->name, "cluttered")) plot_bars(c, e);
        else if (e->stop_at_first) plot_lines(c, e, 1, np + COL_COLL, "ms at the collision step");
        else {
            snprintf(ylab, sizeof ylab, "ms per step");
            plot_lines(c, e, e->logx ? np + COL_FACES : np, np + COL_MS, ylab);
        }
    }
    if (!c->o.quiet) fprintf(stderr, "clash: bench seeds: results in %s\n", c->o.out);
    return 0;
}
