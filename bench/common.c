/*
 * common.c — options, progress bar, scene runs, CSV/YAML output and gnuplot
 * for the `clash bench` suites.  See common.h.
 */
#include "bench/common.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench.h"
#include "clash_internal.h"

int bench_fail(const bench_opts *o, int code, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "clash: error: bench %s: ", o && o->suite ? o->suite : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

static int parse_pos_int(const bench_opts *o, const char *opt, const char *v, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi)
        return bench_fail(o, CLASH_EINPUT, "%s: expected an integer in [%d, %d], got '%s'", opt, lo, hi, v);
    *out = (int)x;
    return 0;
}

/* A comma-separated list of positive integers. */
static int check_list(const bench_opts *o, const char *opt, const char *v)
{
    const char *p = v;
    if (!*p) return bench_fail(o, CLASH_EINPUT, "%s: empty list", opt);
    while (*p) {
        char *end;
        long x = strtol(p, &end, 10);
        if (end == p || x < 1 || x > 4096 || (*end && *end != ','))
            return bench_fail(o, CLASH_EINPUT, "%s: expected a comma-separated list of counts, got '%s'", opt, v);
        p = *end ? end + 1 : end;
        if (*end && !*p) return bench_fail(o, CLASH_EINPUT, "%s: trailing comma in '%s'", opt, v);
    }
    return 0;
}

int bench_parse(const char *suite, int argc, char **argv, const char *const *extra, const char *usage,
                bench_opts *o)
{
    static char outbuf[256];
    int reps_given = 0, rc;
    memset(o, 0, sizeof *o);
    o->suite = suite;
    snprintf(outbuf, sizeof outbuf, "bench-out/%s", suite);
    o->out = outbuf;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            printf("usage: clash bench %s [--quick] [--out DIR] [--reps N] [--threads T] [--quiet]%s\n", suite,
                   usage ? usage : "");
            return -1;
        }
        if (!strcmp(a, "--quick")) {
            o->quick = 1;
            continue;
        }
        if (!strcmp(a, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        int allowed = !strcmp(a, "--out") || !strcmp(a, "--reps") || !strcmp(a, "--threads");
        for (int k = 0; extra && extra[k]; ++k) allowed |= !strcmp(a, extra[k]);
        if (!allowed) return bench_fail(o, CLASH_EINPUT, "unknown option '%s' (try 'clash bench %s --help')", a, suite);
        if (i + 1 >= argc) return bench_fail(o, CLASH_EINPUT, "%s: missing value", a);
        const char *v = argv[++i];
        if (!strcmp(a, "--out")) {
            if (!*v) return bench_fail(o, CLASH_EINPUT, "--out: empty folder name");
            o->out = v;
        } else if (!strcmp(a, "--reps")) {
            if ((rc = parse_pos_int(o, a, v, 1, 1000, &o->reps))) return rc;
            reps_given = 1;
        } else if (!strcmp(a, "--threads")) {
            if ((rc = parse_pos_int(o, a, v, 1, 4096, &o->threads))) return rc;
        } else if (!strcmp(a, "--meshes")) {
            if (!*v) return bench_fail(o, CLASH_EINPUT, "--meshes: empty list");
            o->meshes = v;
        } else if (!strcmp(a, "--ranks")) {
            if ((rc = check_list(o, a, v))) return rc;
            o->ranks = v;
        } else if (!strcmp(a, "--thread-list")) {
            if ((rc = check_list(o, a, v))) return rc;
            o->thread_list = v;
        } else if (!strcmp(a, "--objects")) {
            if ((rc = parse_pos_int(o, a, v, 2, 1000000, &o->objects))) return rc;
        } else if (!strcmp(a, "--steps")) {
            if ((rc = parse_pos_int(o, a, v, 1, 10000000, &o->steps))) return rc;
        } else if (!strcmp(a, "--seed")) {
            if ((rc = parse_pos_int(o, a, v, 1, 2000000000, &o->seed))) return rc;
        } else if (!strcmp(a, "--midphases")) {
            if (!*v || *v == ',' || v[strlen(v) - 1] == ',' || strstr(v, ",,"))
                return bench_fail(o, CLASH_EINPUT, "--midphases: expected a comma-separated list of names, got '%s'", v);
            o->midphases = v;
        }
    }
    if (!reps_given) o->reps = o->quick ? 4 : 6;
    /* Create the output folder (one level of parents, like "bench-out/SUITE"). */
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", o->out);
    for (char *p = tmp + 1; *p; ++p)
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0777);
            *p = '/';
        }
    struct stat st;
    if (mkdir(o->out, 0777) != 0 && !(stat(o->out, &st) == 0 && S_ISDIR(st.st_mode)))
        return bench_fail(o, CLASH_EINPUT, "--out: %s: cannot create: %s", o->out, strerror(errno));
    return 0;
}

void bench_progress(const bench_opts *o, const char *what, int done, int total)
{
    /* redrawn with '\r': only where it is seen (2>log would keep every redraw) */
    if (o->quiet || total <= 0 || !isatty(2)) return;
    const int width = 24, fill = (int)((double)width * done / total);
    fprintf(stderr, "\r[%.*s%*s] %s: %-40.40s %d/%d", fill, "========================", width - fill, "", o->suite,
            what, done, total);
    if (done >= total) fputc('\n', stderr);
    fflush(stderr);
}

int bench_scene_json(const char *json, const char *base_dir, clash_scene **out, clash_error *err)
{
    clash_scene_desc d;
    int rc = clash_scene_desc_parse_string(json, base_dir ? base_dir : ".", "bench scene", &d, err);
    if (rc) return rc;
    rc = clash_scene_build(&d, out, err);
    clash_scene_desc_free(&d);
    return rc;
}

int bench_run_scene(clash_scene *sc, const clash_config *cfg_in, bench_run *r, clash_error *err)
{
    clash_config cfg = *cfg_in;
    memset(r, 0, sizeof *r);
    clash_scene_apply_defaults(sc, &cfg);
    clash_totals_init(&r->tot);
    r->step_s = calloc((size_t)cfg.steps + 1, sizeof *r->step_s);
    r->step_pairs = calloc((size_t)cfg.steps + 1, sizeof *r->step_pairs);
    if (!r->step_s || !r->step_pairs) return clash_internal_fail(err, CLASH_EFAIL, "out of memory");
    clash_run *run = clash_run_create(sc, &cfg, err);
    if (!run) return err->code ? err->code : CLASH_EFAIL;
    const double t0 = clash_bench_now();
    for (int s = 1; s <= cfg.steps; ++s) {
        clash_pairs p;
        clash_step_stats st;
        const double a = clash_bench_now();
        int rc = clash_step(run, s, &p, &st, err);
        const double b = clash_bench_now();
        if (rc) {
            clash_run_destroy(run);
            return rc;
        }
        r->step_s[s - 1] = b - a;
        r->step_pairs[s - 1] = p.count;
        r->steps = s;
        const size_t wb = clash_internal_run_work_bytes(run);
        if (wb > r->tot.work_bytes) r->tot.work_bytes = wb;
        clash_totals_add(&r->tot, s, &p, &st);
        if (cfg.stop_at_first && p.count) break;
    }
    r->tot.wall_s = clash_bench_now() - t0;
    clash_run_destroy(run);
    return CLASH_OK;
}

void bench_run_free(bench_run *r)
{
    free(r->step_s);
    free(r->step_pairs);
    memset(r, 0, sizeof *r);
}

void bench_series_free(bench_series *s)
{
    free(s->ms), free(s->pairs);
    memset(s, 0, sizeof *s);
}

int bench_measure(const bench_opts *o, clash_scene *sc, const clash_config *cfg, bench_series *out,
                  const char *what, int *done, int total)
{
    clash_error err = {0};
    bench_run *runs = calloc((size_t)o->reps, sizeof *runs);
    int rc = 0;
    memset(out, 0, sizeof *out);
    if (!runs) return bench_fail(o, CLASH_EFAIL, "out of memory");
    for (int r = 0; r < o->reps && !rc; ++r) {
        bench_progress(o, what, *done, total);
        if ((rc = bench_run_scene(sc, cfg, &runs[r], &err))) bench_fail(o, rc, "%s: %s", what, err.msg);
        else if (runs[r].tot.checksum != runs[0].tot.checksum || runs[r].steps != runs[0].steps)
            rc = bench_fail(o, CLASH_EFAIL, "%s: validation failed: checksum %016llx in repetition %d, %016llx in the first",
                            what, (unsigned long long)runs[r].tot.checksum, r + 1,
                            (unsigned long long)runs[0].tot.checksum);
    }
    ++*done;
    if (!rc) {
        const int first = bench_first_rep(o->reps), n = o->reps - first;
        out->steps = runs[0].steps;
        out->ms = calloc((size_t)out->steps + 1, sizeof *out->ms);
        out->pairs = calloc((size_t)out->steps + 1, sizeof *out->pairs);
        double *v = calloc((size_t)o->reps, sizeof *v);
        if (!out->ms || !out->pairs || !v) rc = bench_fail(o, CLASH_EFAIL, "out of memory");
        for (int s = 0; !rc && s < out->steps; ++s) {
            for (int r = first; r < o->reps; ++r) v[r - first] = 1e3 * runs[r].step_s[s];
            out->ms[s] = bench_median(v, n);
            out->pairs[s] = runs[0].step_pairs[s];
        }
        free(v);
        out->tot = runs[0].tot;
        out->checksum = runs[0].tot.checksum;
        out->pairs_total = runs[0].tot.pairs_total;
        out->first_collision = runs[0].tot.first_collision_step;
        out->faces = clash_scene_faces(sc);
    }
    for (int r = 0; r < o->reps; ++r) bench_run_free(&runs[r]);
    free(runs);
    return rc;
}

char *bench_spheres_json(int faces, int crowd, int T)
{
    size_t cap = 4096 + 256 * (size_t)crowd;
    char *j = malloc(cap);
    if (!j) return NULL;
    const double v = 0.02, xb = 3.8 + 2 * v * (T - 0.5);
    int n = snprintf(j, cap,
                     "{\"format\": \"clash-scene/1\", \"name\": \"spheres-%d-x%d\", \"steps\": %d,"
                     " \"meshes\": {\"s\": {\"sphere\": {\"faces\": %d}}}, \"objects\": ["
                     "{\"mesh\": \"s\", \"scale\": 1.9, \"velocity\": [%g, 0, 0], \"angular_velocity_deg\": [1, 2, 3]},"
                     "{\"mesh\": \"s\", \"scale\": 1.9, \"position\": [%.6f, 0.35, 0.2], \"velocity\": [%g, 0, 0],"
                     " \"angular_velocity_deg\": [-2, 1, 3]}",
                     faces, crowd, 3 * T, faces, v, xb, -v);
    const int others = crowd - 2, side = (int)ceil(sqrt(others > 0 ? others : 1));
    for (int i = 0; i < others; ++i)
        n += snprintf(j + n, cap - (size_t)n,
                      ",{\"mesh\": \"s\", \"scale\": 1.9, \"position\": [%d, %d, %d], \"velocity\": [%g, 0, 0],"
                      " \"angular_velocity_deg\": [%d, %d, 1]}",
                      6 * (i % side) - 6, 8 + 6 * (i / side / side), 6 * ((i / side) % side) - 6, v, 1 + i % 3,
                      2 - i % 2);
    snprintf(j + n, cap - (size_t)n, "]}");
    return j;
}

char *bench_revolve_json(const char *path, double scale, double d, int steps)
{
    const size_t cap = strlen(path) + 1024;
    char *j = malloc(cap);
    if (j)
        snprintf(j, cap,
                 "{\"format\": \"clash-scene/1\", \"name\": \"distance\", \"steps\": %d, \"mode\": \"static\","
                 " \"meshes\": {\"m\": {\"file\": \"%s\", \"center\": true}},"
                 " \"objects\": [{\"mesh\": \"m\", \"scale\": %.9g},"
                 " {\"mesh\": \"m\", \"scale\": %.9g, \"position\": [%.6f, 0, 0],"
                 "  \"angular_velocity_deg\": [0, 0, %.9g]}]}",
                 steps, path, scale, scale, d, 360.0 / steps);
    return j;
}

int bench_mesh_path(const char *name, char *out, size_t n)
{
    struct stat st;
    const char *dir = bench_mesh_dir();
    if (strchr(name, '/')) {
        snprintf(out, n, "%s", name);
        return stat(out, &st) == 0;
    }
    if (!dir) return 0;
    snprintf(out, n, "%s/%s", dir, name);
    if (stat(out, &st) == 0) return 1;
    snprintf(out, n, "%s/%s.obj", dir, name);
    return stat(out, &st) == 0;
}

int bench_mesh_extent(const char *path, double *extent, int64_t *faces, clash_error *err)
{
    char json[2048];
    clash_scene *sc = NULL;
    snprintf(json, sizeof json,
             "{\"format\": \"clash-scene/1\", \"meshes\": {\"m\": {\"file\": \"%s\", \"center\": true}},"
             " \"objects\": [{\"mesh\": \"m\"}]}",
             path);
    int rc = bench_scene_json(json, ".", &sc, err);
    if (rc) return rc;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    clash_internal_scene_view sv;
    clash_internal_scene_view_get(sc, &sv);
    for (int64_t v = 0; v < sv.nv; ++v) {
        const double p[3] = {sv.lx[v], sv.ly[v], sv.lz[v]};
        for (int k = 0; k < 3; ++k) lo[k] = fmin(lo[k], p[k]), hi[k] = fmax(hi[k], p[k]);
    }
    *extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    *faces = sv.nf;
    clash_scene_destroy(sc);
    return CLASH_OK;
}

/* Appends printf output to a growing buffer; *bad set on failure. */
static void grow_printf(char **buf, size_t *len, size_t *cap, int *bad, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
static void grow_printf(char **buf, size_t *len, size_t *cap, int *bad, const char *fmt, ...)
{
    if (*bad) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        const int n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            *bad = 1;
            return;
        }
        if ((size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        char *b = realloc(*buf, 2 * *cap + (size_t)n);
        if (!b) {
            *bad = 1;
            return;
        }
        *buf = b, *cap = 2 * *cap + (size_t)n;
    }
}

char *bench_desc_json(const clash_scene_desc *d, int shift, int steps)
{
    size_t len = 0, cap = 4096;
    int bad = d->nframes > 0;   /* deforming scenes: frames cannot be shifted */
    char *j = malloc(cap);
    if (!j) return NULL;
    j[0] = 0;
    grow_printf(&j, &len, &cap, &bad,
                "{\"format\": \"clash-scene/1\", \"name\": \"%s\", \"steps\": %d, \"mode\": \"%s\","
                " \"self_collision\": %s,\n \"meshes\": {",
                d->name ? d->name : "scene", steps, d->mode == CLASH_MODE_STATIC ? "static" : "swept",
                d->self_collision ? "true" : "false");
    for (int m = 0; m < d->nmeshes; ++m) {
        const clash_mesh_desc *md = &d->meshes[m];
        grow_printf(&j, &len, &cap, &bad, "%s\"%s\": {", m ? ", " : "", md->name);
        if (md->kind == CLASH_MESH_SPHERE) {
            grow_printf(&j, &len, &cap, &bad, "\"sphere\": {\"faces\": %d}", md->sphere_faces);
        } else if (md->kind == CLASH_MESH_BOX) {
            grow_printf(&j, &len, &cap, &bad, "\"box\": {}");
        } else {
            char abs[PATH_MAX];
            grow_printf(&j, &len, &cap, &bad, "\"file\": \"%s\"", realpath(md->path, abs) ? abs : md->path);
        }
        grow_printf(&j, &len, &cap, &bad, ", \"scale\": %.17g, \"center\": %s}", md->scale,
                    md->center ? "true" : "false");
    }
    grow_printf(&j, &len, &cap, &bad, "},\n \"objects\": [");
    for (int i = 0; i < d->nobjects; ++i) {
        const clash_object_desc *ob = &d->objects[i];
        double p[3], r[3];
        for (int k = 0; k < 3; ++k)
            p[k] = ob->position[k] + shift * ob->velocity[k], r[k] = ob->rotation_deg[k] + shift * ob->angular_velocity_deg[k];
        grow_printf(&j, &len, &cap, &bad,
                    "%s\n  {\"mesh\": \"%s\", \"scale\": %.17g, \"position\": [%.17g, %.17g, %.17g],"
                    " \"rotation_deg\": [%.17g, %.17g, %.17g], \"velocity\": [%.17g, %.17g, %.17g],"
                    " \"angular_velocity_deg\": [%.17g, %.17g, %.17g]}",
                    i ? "," : "", d->meshes[ob->mesh].name, ob->scale, p[0], p[1], p[2], r[0], r[1], r[2],
                    ob->velocity[0], ob->velocity[1], ob->velocity[2], ob->angular_velocity_deg[0],
                    ob->angular_velocity_deg[1], ob->angular_velocity_deg[2]);
    }
    grow_printf(&j, &len, &cap, &bad, "]}\n");
    if (bad) {
        free(j);
        return NULL;
    }
    return j;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    if (n <= 0) return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int bench_first_rep(int reps) { return reps >= 3 ? 1 : 0; }

FILE *bench_open(const bench_opts *o, clash_outfile *f, const char *name)
{
    char path[1024];
    clash_error err;
    snprintf(path, sizeof path, "%s/%s", o->out, name);
    if (clash_outfile_open(f, path, &err)) {
        bench_fail(o, CLASH_EFAIL, "%s", err.msg);
        return NULL;
    }
    return f->f;
}

int bench_close(const bench_opts *o, clash_outfile *f)
{
    clash_error err;
    if (clash_outfile_commit(f, &err)) return bench_fail(o, CLASH_EFAIL, "%s", err.msg);
    return 0;
}

void bench_yaml_header(FILE *f, const bench_opts *o)
{
    const clash_build_info *b = clash_build();
    char desc[256];
    clash_internal_machine(desc, sizeof desc);
    fprintf(f, "clash: %s\nsuite: %s\n", b->version, o->suite);
    fprintf(f,
            "build: {compiler: \"%s\", flags: \"%s\", build_type: \"%s\", openmp: %s, mpi: %s, hwloc: %s, "
            "likwid: %s, papi: %s}\n",
            b->compiler, b->flags, b->build_type, b->openmp ? "true" : "false", b->mpi ? "true" : "false",
            b->hwloc ? "true" : "false", b->likwid ? "true" : "false", b->papi ? "true" : "false");
    char host[256] = "unknown";
    gethostname(host, sizeof host - 1);
    fprintf(f, "machine: {host: \"%s\", cores: %d, topology: \"%s\"}\n", host, clash_internal_threads(0), desc);
    fprintf(f, "options: {quick: %s, reps: %d, threads: %d, out: \"%s\"}\n", o->quick ? "true" : "false", o->reps,
            clash_internal_threads(o->threads), o->out);
    fprintf(f, "timing: \"median over repetitions; the first repetition is a warm-up and is dropped when reps >= 3\"\n");
}

int bench_plot(const bench_opts *o, const char *name, const char *script)
{
    char path[256];
    clash_outfile gp;
    snprintf(path, sizeof path, "%.200s.gp", name);
    FILE *f = bench_open(o, &gp, path);
    if (!f) return 0;
    fputs(script, f);
    if (bench_close(o, &gp)) return 0;
    if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
        if (!o->quiet)
            fprintf(stderr, "clash: bench %s: gnuplot not found; plot %s.png skipped (script left in %s/%s.gp)\n",
                    o->suite, name, o->out, name);
        return 0;
    }
    char cmd[1600];
    snprintf(cmd, sizeof cmd, "cd '%.1000s' && gnuplot '%.200s.gp'", o->out, name);
    if (system(cmd) != 0) {
        fprintf(stderr, "clash: bench %s: gnuplot failed on %s/%s.gp; plot skipped\n", o->suite, o->out, name);
        return 0;
    }
    return 1;
}

const char *bench_mesh_dir(void)
{
    static char buf[1024];
    struct stat st;
    const char *env = getenv("CLASH_DATA_DIR");
    if (env) {
        snprintf(buf, sizeof buf, "%s/meshes", env);
        if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) return buf;
    }
    if (stat("../shared/data/meshes", &st) == 0 && S_ISDIR(st.st_mode)) return "../shared/data/meshes";
    /* Beside the source checkout this file was compiled from: SRC/../shared. */
    snprintf(buf, sizeof buf, "%s", __FILE__);
    char *slash = strrchr(buf, '/');
    if (slash && buf[0] == '/') {
        *slash = 0;   /* .../bench */
        slash = strrchr(buf, '/');
        if (slash) {
            *slash = 0;   /* the checkout */
            strncat(buf, "/../shared/data/meshes", sizeof buf - strlen(buf) - 1);
            if (stat(buf, &st) == 0 && S_ISDIR(st.st_mode)) return buf;
        }
    }
    return NULL;
}
