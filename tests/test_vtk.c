/*
 * test_vtk.c — the ParaView time series of `clash run --vtk DIR` (src/out/vtk.c).
 *
 * A small two-sphere scene that collides after a few steps is run through
 * the C API with the writer attached; the files are then read back with a
 * small hand-written XML reader (no XML library: the format is simple and
 * regular) and checked against the run itself:
 *   - every step file is PolyData with NumberOfPoints = the scene's vertices,
 *     NumberOfPolys = its faces, 3 connectivity indices per face, offsets
 *     3, 6, 9, ..., points equal to clash_scene_vertex_at in that state;
 *   - CellData "object" and "face" number the faces as the pairs CSV does,
 *     and "colliding" is 1 exactly on the faces of the step's pairs;
 *   - clash.pvd lists one DataSet per step with its timestep and file;
 *   - the command: --vtk writes the series, refuses a folder holding other
 *     files (exit 2, nothing deleted, no temporary folder left), replaces an
 *     earlier series, and a failed or aborted run leaves nothing behind.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "clash/clash.h"
#include "base/error.h"
#include "store/scene.h"
#include "io/scene_desc.h"
#include "out/vtk.h"

#define STEPS 8

static char dir[64];


static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* Value of attribute NAME in the tag starting at tag (up to its '>'), or -1. */
static long attr_long(const char *tag, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *end = strchr(tag, '>');
    const char *p = strstr(tag, key);
    if (!p || (end && p > end)) return -1;
    return strtol(p + strlen(key), NULL, 10);
}

/* The numbers inside <DataArray ... Name="NAME" ...> ... </DataArray>:
 * returns how many (up to max stored in out), -1 when the array is missing.
 * *type receives the type attribute. */
static long data_array(const char *doc, const char *name, double *out, long max, char type[16])
{
    char key[64];
    snprintf(key, sizeof key, "Name=\"%s\"", name);
    const char *p = doc;
    while ((p = strstr(p, "<DataArray"))) {
        const char *end = strchr(p, '>');
        const char *k = strstr(p, key);
        if (end && k && k < end) break;
        p = end ? end : p + 1;
    }
    if (!p) return -1;
    const char *t = strstr(p, "type=\"");
    type[0] = 0;
    if (t && t < strchr(p, '>')) sscanf(t + 6, "%15[^\"]", type);
    const char *q = strchr(p, '>') + 1, *stop = strstr(q, "</DataArray>");
    if (!stop) return -1;
    long n = 0;
    while (q < stop) {
        char *e;
        double v = strtod(q, &e);
        if (e == q) break;
        if (e > stop) break;
        if (n < max) out[n] = v;
        ++n;
        q = e;
        while (q < stop && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t')) ++q;
    }
    return n;
}

static int build_scene(clash_scene **sc)
{
    /* Two 48-face spheres 0.5 apart, the first moving 0.2 per step toward
     * the second: contact from step 3 on (swept mode). */
    const char *json = "{\"format\": \"clash-scene/1\", \"name\": \"vtk-test\", \"steps\": 8,"
                       " \"meshes\": {\"s\": {\"sphere\": {\"faces\": 48}}},"
                       " \"objects\": [{\"mesh\": \"s\", \"velocity\": [0.2, 0, 0],"
                       "   \"angular_velocity_deg\": [0, 0, 7]},"
                       "  {\"mesh\": \"s\", \"position\": [2.5, 0.1, 0]}]}";
    clash_scene_desc d;
    clash_error err = {0};
    if (clash_scene_desc_parse_string(json, ".", "vtk-test", &d, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    int rc = clash_scene_build(&d, sc, &err);
    clash_scene_desc_free(&d);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    return rc;
}

static int run_cmd(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd %s && %s %s >/dev/null 2>&1", dir, CLASH_BIN, args);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int count_entries(const char *path, const char *prefix)
{
    DIR *d = opendir(path);
    int n = 0;
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix))) ++n;
    closedir(d);
    return n;
}

static void check_api_series(void)
{
    clash_scene *sc = NULL;
    clash_error err = {0};
    CHECK(build_scene(&sc) == 0, "scene builds");
    if (!sc) return;
    clash_config cfg = clash_config_default();
    cfg.threads = 1;
    clash_scene_apply_defaults(sc, &cfg);
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run != NULL, "run: %s", err.msg);
    char series[128];
    snprintf(series, sizeof series, "%s/series", dir);
    clash_vtk *v = clash_vtk_open(series, sc, &err);
    CHECK(v != NULL, "open: %s", err.msg);
    if (!run || !v) return;
    const int64_t nv = sc->nv, nf = sc->nf;
    unsigned char *expect[STEPS + 1];
    double pts[STEPS + 1][4][3];   /* a few vertices per step, from the API */
    int hit_steps = 0;
    for (int s = 1; s <= STEPS; ++s) {
        clash_pairs p;
        clash_step_stats st;
        CHECK(clash_step(run, s, &p, &st, &err) == 0, "step %d: %s", s, err.msg);
        expect[s] = calloc((size_t)nf, 1);
        for (size_t i = 0; i < p.count; ++i) {
            expect[s][sc->fofs[p.pairs[i].obj_a] + p.pairs[i].face_a] = 1;
            expect[s][sc->fofs[p.pairs[i].obj_b] + p.pairs[i].face_b] = 1;
        }
        hit_steps += p.count > 0;
        for (int k = 0; k < 4; ++k) {
            int o = k & 1;
            int64_t lv = (k * 7) % (sc->vofs[o + 1] - sc->vofs[o]);
            clash_scene_vertex_at(sc, o, lv, s, pts[s][k]);
        }
        CHECK(clash_vtk_step(v, s, &p, &err) == 0, "vtk step %d: %s", s, err.msg);
    }
    CHECK(hit_steps > 0 && hit_steps < STEPS, "the scene collides in some steps but not all (%d)", hit_steps);
    CHECK(!exists(series), "nothing in place before commit");
    CHECK(clash_vtk_commit(v, &err) == 0, "commit: %s", err.msg);
    CHECK(count_entries(dir, "series.tmp") == 0, "temporary folder gone");

    double *buf = malloc(sizeof(double) * (size_t)(3 * nv + 3 * nf + 16));
    char type[16];
    for (int s = 1; s <= STEPS; ++s) {
        char path[256];
        snprintf(path, sizeof path, "%s/step_%06d.vtp", series, s);
        char *doc = check_read_file(path);
        CHECK(doc != NULL, "%s exists", path);
        if (!doc) continue;
        CHECK(strstr(doc, "<VTKFile type=\"PolyData\"") != NULL, "%s: PolyData", path);
        const char *piece = strstr(doc, "<Piece");
        CHECK(piece && attr_long(piece, "NumberOfPoints") == nv, "%s: NumberOfPoints %ld, want %lld", path,
              piece ? attr_long(piece, "NumberOfPoints") : -1, (long long)nv);
        CHECK(piece && attr_long(piece, "NumberOfPolys") == nf, "%s: NumberOfPolys", path);
        long n = data_array(doc, "Points", buf, 3 * nv, type);
        CHECK(n == 3 * nv && !strcmp(type, "Float32"), "%s: Points %ld values, type %s", path, n, type);
        for (int k = 0; k < 4 && n == 3 * nv; ++k) {
            int o = k & 1;
            int64_t g = sc->vofs[o] + (k * 7) % (sc->vofs[o + 1] - sc->vofs[o]);
            double d = 0;
            for (int c = 0; c < 3; ++c) d = fmax(d, fabs(buf[3 * g + c] - pts[s][k][c]));
            CHECK(d < 1e-4, "%s: vertex %lld off by %g", path, (long long)g, d);
        }
        n = data_array(doc, "connectivity", buf, 3 * nf, type);
        int ok = n == 3 * nf;
        for (long i = 0; ok && i < n; ++i) ok = buf[i] >= 0 && buf[i] < (double)nv;
        CHECK(ok, "%s: connectivity (%ld values) within the points", path, n);
        n = data_array(doc, "offsets", buf, nf, type);
        ok = n == nf;
        for (long i = 0; ok && i < n; ++i) ok = buf[i] == 3.0 * (double)(i + 1);
        CHECK(ok, "%s: offsets 3, 6, ...", path);
        n = data_array(doc, "object", buf, nf, type);
        ok = n == nf;
        for (long i = 0; ok && i < n; ++i) ok = buf[i] == (i < sc->fofs[1] ? 0 : 1);
        CHECK(ok, "%s: object ids (%ld values)", path, n);
        n = data_array(doc, "face", buf, nf, type);
        ok = n == nf;
        for (long i = 0; ok && i < n; ++i) ok = buf[i] == (double)(i < sc->fofs[1] ? i : i - sc->fofs[1]);
        CHECK(ok, "%s: face numbers", path);
        n = data_array(doc, "colliding", buf, nf, type);
        ok = n == nf && !strcmp(type, "UInt8");
        for (long i = 0; ok && i < n; ++i) ok = buf[i] == (double)expect[s][i];
        CHECK(ok, "%s: colliding flags match the step's pairs", path);
        free(doc);
    }
    char path[256];
    snprintf(path, sizeof path, "%s/clash.pvd", series);
    char *pvd = check_read_file(path);
    CHECK(pvd && strstr(pvd, "type=\"Collection\""), "clash.pvd is a Collection");
    int entries = 0;
    for (const char *p = pvd; p && (p = strstr(p, "<DataSet")); ++p) {
        ++entries;
        long ts = attr_long(p, "timestep");
        char want[64];
        snprintf(want, sizeof want, "file=\"step_%06ld.vtp\"", ts);
        const char *f = strstr(p, "file=\"");
        CHECK(ts == entries && f && !strncmp(f, want, strlen(want)), "entry %d: timestep %ld and its file", entries,
              ts);
    }
    CHECK(entries == STEPS, "clash.pvd lists %d steps, want %d", entries, STEPS);
    free(pvd);
    free(buf);
    for (int s = 1; s <= STEPS; ++s) free(expect[s]);

    /* An aborted series leaves nothing. */
    snprintf(series, sizeof series, "%s/aborted", dir);
    v = clash_vtk_open(series, sc, &err);
    CHECK(v != NULL, "open: %s", err.msg);
    clash_pairs none = {NULL, 0};
    if (v) CHECK(clash_vtk_step(v, 1, &none, &err) == 0, "step");
    clash_vtk_abort(v);
    CHECK(!exists(series) && count_entries(dir, "aborted") == 0, "abort leaves nothing");
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

static void check_command(void)
{
    char path[256];
    CHECK(run_cmd("run --preset ktak94-table1 --steps 5 --quiet --vtk cli") == 0, "clash run --vtk");
    snprintf(path, sizeof path, "%s/cli", dir);
    CHECK(count_entries(path, "step_") == 5, "5 step files");
    snprintf(path, sizeof path, "%s/cli/clash.pvd", dir);
    CHECK(exists(path), "clash.pvd written");
    /* Rerun with fewer steps: the earlier series is replaced, not mixed. */
    CHECK(run_cmd("run --preset ktak94-table1 --steps 2 --quiet --vtk cli/") == 0, "rerun over a series");
    snprintf(path, sizeof path, "%s/cli", dir);
    CHECK(count_entries(path, "step_") == 2, "replaced: 2 step files, got %d", count_entries(path, "step_"));
    /* A folder holding other files is refused and left alone. */
    snprintf(path, sizeof path, "%s/mine", dir);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/mine/notes.txt", dir);
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
    CHECK(run_cmd("run --preset ktak94-table1 --steps 2 --quiet --vtk mine") == 2, "foreign folder: exit 2");
    CHECK(exists(path), "user file kept");
    snprintf(path, sizeof path, "%s/mine", dir);
    CHECK(count_entries(path, "step_") == 0, "nothing written into it");
    CHECK(run_cmd("run --preset ktak94-table1 --steps 2 --quiet --vtk nosuch/dir") == 2, "missing parent: exit 2");
    CHECK(run_cmd("run --preset ktak94-table1 --steps 2 --quiet --vtk") == 2, "--vtk without a value: exit 2");
    CHECK(count_entries(dir, "mine.tmp") == 0 && count_entries(dir, "cli.") == 0, "no temporary folders left");
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/clash-test-vtk.XXXXXX");
    if (!mkdtemp(dir)) return check_skip("cannot create a temporary folder");
    check_api_series();
    check_command();
    if (!check_failed_) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
    }
    return check_finish("test_vtk");
}
