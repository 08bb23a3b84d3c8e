/*
 * test_vtk.c — the ParaView time series of `clash run --vtk DIR` (src/out/vtk.c).
 *
 * A small two-sphere scene that collides after a few steps is run through
 * the C API with the writer attached, once in each encoding (binary
 * appended raw data, the default, and ASCII); the files are then read back
 * with a small hand-written reader (no XML library: the format is simple
 * and regular), which decodes the appended data block by block (UInt64
 * byte count, then the values) and checks that the blocks tile the
 * appended section exactly, and checked against the run itself:
 *   - every step file is PolyData with NumberOfPoints = the scene's vertices,
 *     NumberOfPolys = its faces, 3 connectivity indices per face, offsets
 *     3, 6, 9, ..., points equal to clash_scene_vertex_at in that state;
 *   - CellData "object" and "face" number the faces as the pairs CSV does,
 *     and "colliding" is 1 exactly on the faces of the step's pairs;
 *   - clash.pvd lists one DataSet per step with its timestep and file;
 *   - the binary file is smaller than the ASCII one;
 *   - the command: --vtk writes the series, refuses a folder holding other
 *     files (exit 2, nothing deleted, no temporary folder left), replaces an
 *     earlier series, and a failed or aborted run leaves nothing behind;
 *     --vtk-format ascii|binary picks the encoding, --vtk-steps colliding
 *     writes exactly the steps with pairs, every:N the multiples of N.
 */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
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

/* A step file: the whole file (binary-safe), its XML head (everything
 * before the appended data, NUL-terminated) and the appended section. */
typedef struct vtp {
    char *data;         /* the file, NUL-terminated (it may hold NULs) */
    size_t len;
    char *head;         /* the XML before "<AppendedData" (a copy), or the whole file */
    const unsigned char *app;  /* first byte after the '_' of <AppendedData encoding="raw">, or NULL */
    size_t app_len;     /* bytes from app up to "\n </AppendedData>" */
} vtp;

static int vtp_read(const char *path, vtp *v)
{
    memset(v, 0, sizeof *v);
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    v->data = malloc((size_t)n + 1);
    if (!v->data || fread(v->data, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(v->data);
        return -1;
    }
    fclose(f);
    v->data[n] = 0;
    v->len = (size_t)n;
    const char *a = strstr(v->data, "<AppendedData");   /* the XML head has no NUL */
    size_t hl = a ? (size_t)(a - v->data) : v->len;
    v->head = malloc(hl + 1);
    memcpy(v->head, v->data, hl);
    v->head[hl] = 0;
    if (a) {
        const char *tag_end = strchr(a, '>');
        const char *u = tag_end ? strchr(tag_end, '_') : NULL;
        CHECK(strstr(a, "encoding=\"raw\"") == strstr(a, "encoding=") && strstr(a, "encoding=\"raw\"") < tag_end,
              "%s: AppendedData encoding=\"raw\"", path);
        if (u) {
            v->app = (const unsigned char *)u + 1;
            /* the section ends at the last "</AppendedData>" */
            const char *end = NULL;
            for (const char *p = v->data + v->len - 1; p > u; --p)
                if (!strncmp(p, "</AppendedData>", 15)) {
                    end = p;
                    break;
                }
            CHECK(end != NULL, "%s: </AppendedData> closes the appended data", path);
            if (end) {
                while (end > u + 1 && (end[-1] == ' ' || end[-1] == '\n')) --end;  /* the writer's "\n " */
                v->app_len = (size_t)(end - (const char *)v->app);
            }
        }
    }
    return 0;
}

static void vtp_free(vtp *v)
{
    free(v->data);
    free(v->head);
}

/* Byte size of a VTK scalar type, 0 when unknown. */
static size_t type_size(const char *type)
{
    if (!strcmp(type, "Float32") || !strcmp(type, "Int32") || !strcmp(type, "UInt32")) return 4;
    if (!strcmp(type, "Float64") || !strcmp(type, "Int64") || !strcmp(type, "UInt64")) return 8;
    if (!strcmp(type, "UInt8") || !strcmp(type, "Int8")) return 1;
    return 0;
}

static double decode(const unsigned char *p, const char *type)
{
    if (!strcmp(type, "Float32")) {
        float x;
        memcpy(&x, p, 4);
        return x;
    }
    if (!strcmp(type, "Float64")) {
        double x;
        memcpy(&x, p, 8);
        return x;
    }
    if (!strcmp(type, "Int32")) {
        int32_t x;
        memcpy(&x, p, 4);
        return x;
    }
    if (!strcmp(type, "Int64")) {
        int64_t x;
        memcpy(&x, p, 8);
        return (double)x;
    }
    if (!strcmp(type, "UInt8")) return *p;
    return NAN;
}

/* The values of <DataArray ... Name="NAME" ...>: ASCII text between the tag
 * and </DataArray>, or (format="appended") the block at byte "offset" of
 * the appended data: a UInt64 byte count, then the values.  Returns how
 * many (up to max stored in out), -1 when the array is missing or broken.
 * *type receives the type attribute; *block_end the end offset of an
 * appended block (0 for ASCII). */
static long data_array(const vtp *v, const char *name, double *out, long max, char type[16], size_t *block_end)
{
    char key[64];
    snprintf(key, sizeof key, "Name=\"%s\"", name);
    const char *p = v->head;
    while ((p = strstr(p, "<DataArray"))) {
        const char *end = strchr(p, '>');
        const char *k = strstr(p, key);
        if (end && k && k < end) break;
        p = end ? end : p + 1;
    }
    if (!p) return -1;
    const char *tag_end = strchr(p, '>');
    const char *t = strstr(p, "type=\"");
    type[0] = 0;
    if (t && t < tag_end) sscanf(t + 6, "%15[^\"]", type);
    *block_end = 0;
    const char *fmt = strstr(p, "format=\"");
    if (fmt && fmt < tag_end && !strncmp(fmt + 8, "appended\"", 9)) {
        const long off = attr_long(p, "offset");
        const size_t ts = type_size(type);
        if (!v->app || off < 0 || !ts || (size_t)off + 8 > v->app_len) return -1;
        uint64_t bytes;
        memcpy(&bytes, v->app + off, 8);
        if (bytes % ts || (size_t)off + 8 + bytes > v->app_len) return -1;
        const long n = (long)(bytes / ts);
        for (long i = 0; i < n && i < max; ++i) out[i] = decode(v->app + off + 8 + (size_t)i * ts, type);
        *block_end = (size_t)off + 8 + (size_t)bytes;
        return n;
    }
    const char *q = tag_end + 1, *stop = strstr(q, "</DataArray>");
    if (!stop) return -1;
    long n = 0;
    while (q < stop) {
        char *e;
        double x = strtod(q, &e);
        if (e == q) break;
        if (e > stop) break;
        if (n < max) out[n] = x;
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

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static void check_api_series(int format, const char *name)
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
    snprintf(series, sizeof series, "%s/%s", dir, name);
    clash_vtk *v = clash_vtk_open(series, sc, &err);
    CHECK(v != NULL, "open: %s", err.msg);
    if (!run || !v) return;
    if (format >= 0) clash_vtk_set_format(v, format);   /* -1: the default, binary */
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
            clash_scene_vertex_at(sc, o, lv, s, pts[s][k], NULL);
        }
        CHECK(clash_vtk_step(v, s, &p, &err) == 0, "vtk step %d: %s", s, err.msg);
    }
    CHECK(hit_steps > 0 && hit_steps < STEPS, "the scene collides in some steps but not all (%d)", hit_steps);
    CHECK(!exists(series), "nothing in place before commit");
    CHECK(clash_vtk_commit(v, &err) == 0, "commit: %s", err.msg);
    char tmpname[160];
    snprintf(tmpname, sizeof tmpname, "%s.tmp", name);
    CHECK(count_entries(dir, tmpname) == 0, "temporary folder gone");

    double *buf = malloc(sizeof(double) * (size_t)(3 * nv + 3 * nf + 16));
    char type[16];
    for (int s = 1; s <= STEPS; ++s) {
        char path[256];
        snprintf(path, sizeof path, "%s/step_%06d.vtp", series, s);
        vtp doc;
        CHECK(vtp_read(path, &doc) == 0, "%s exists", path);
        if (!doc.data) continue;
        const int binary = format != CLASH_VTK_ASCII;
        CHECK(strstr(doc.head, "<VTKFile type=\"PolyData\"") != NULL, "%s: PolyData", path);
        CHECK(!binary || strstr(doc.head, "header_type=\"UInt64\""), "%s: header_type UInt64", path);
        const uint16_t one = 1;
        CHECK(strstr(doc.head, *(const unsigned char *)&one ? "byte_order=\"LittleEndian\""
                                                              : "byte_order=\"BigEndian\""),
              "%s: byte_order is the machine's", path);
        CHECK(binary == (doc.app != NULL), "%s: appended data %s", path, binary ? "expected" : "unexpected");
        CHECK(binary == (strstr(doc.head, "format=\"ascii\"") == NULL), "%s: DataArray formats", path);
        const char *piece = strstr(doc.head, "<Piece");
        CHECK(piece && attr_long(piece, "NumberOfPoints") == nv, "%s: NumberOfPoints %ld, want %lld", path,
              piece ? attr_long(piece, "NumberOfPoints") : -1, (long long)nv);
        CHECK(piece && attr_long(piece, "NumberOfPolys") == nf, "%s: NumberOfPolys", path);
        size_t blk, last = 0;
        long n = data_array(&doc, "Points", buf, 3 * nv, type, &blk);
        last = blk > last ? blk : last;
        CHECK(n == 3 * nv && !strcmp(type, "Float64"), "%s: Points %ld values, type %s", path, n, type);
        for (int k = 0; k < 4 && n == 3 * nv; ++k) {
            int o = k & 1;
            int64_t g = sc->vofs[o] + (k * 7) % (sc->vofs[o + 1] - sc->vofs[o]);
            double d = 0;
            for (int c = 0; c < 3; ++c) d = fmax(d, fabs(buf[3 * g + c] - pts[s][k][c]));
            CHECK(d == 0, "%s: vertex %lld off by %g (the doubles, bit for bit)", path, (long long)g, d);
        }
        n = data_array(&doc, "connectivity", buf, 3 * nf, type, &blk);
        last = blk > last ? blk : last;
        int ok = n == 3 * nf && !strcmp(type, "Int32");
        for (long i = 0; ok && i < n; ++i) ok = buf[i] >= 0 && buf[i] < (double)nv;
        CHECK(ok, "%s: connectivity (%ld values) within the points", path, n);
        n = data_array(&doc, "offsets", buf, nf, type, &blk);
        last = blk > last ? blk : last;
        ok = n == nf;
        for (long i = 0; ok && i < n; ++i) ok = buf[i] == 3.0 * (double)(i + 1);
        CHECK(ok, "%s: offsets 3, 6, ...", path);
        n = data_array(&doc, "object", buf, nf, type, &blk);
        last = blk > last ? blk : last;
        ok = n == nf;
        for (long i = 0; ok && i < n; ++i) ok = buf[i] == (i < sc->fofs[1] ? 0 : 1);
        CHECK(ok, "%s: object ids (%ld values)", path, n);
        n = data_array(&doc, "face", buf, nf, type, &blk);
        last = blk > last ? blk : last;
        ok = n == nf;
        for (long i = 0; ok && i < n; ++i) ok = buf[i] == (double)(i < sc->fofs[1] ? i : i - sc->fofs[1]);
        CHECK(ok, "%s: face numbers", path);
        n = data_array(&doc, "colliding", buf, nf, type, &blk);
        last = blk > last ? blk : last;
        ok = n == nf && !strcmp(type, "UInt8");
        for (long i = 0; ok && i < n; ++i) ok = buf[i] == (double)expect[s][i];
        CHECK(ok, "%s: colliding flags match the step's pairs", path);
        /* the six blocks tile the appended section: nothing before, between or after */
        const size_t want = 6 * 8 + 24 * (size_t)nv + 12 * (size_t)nf + 4 * (size_t)nf * 3 + (size_t)nf;
        CHECK(!binary || (last == doc.app_len && last == want), "%s: appended blocks end at %zu, section %zu, want %zu",
              path, last, doc.app_len, want);
        CHECK(doc.len > 11 && !strcmp(doc.data + doc.len - 11, "</VTKFile>\n"), "%s: ends with </VTKFile>", path);
        vtp_free(&doc);
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
    snprintf(series, sizeof series, "%s/aborted-%s", dir, name);
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

    /* --vtk-format: binary (appended raw) by default, ascii on request */
    CHECK(run_cmd("run --preset ktk94-table1 --steps 1 --quiet --vtk fb") == 0, "default format");
    CHECK(run_cmd("run --preset ktk94-table1 --steps 1 --quiet --vtk fa --vtk-format ascii") == 0, "ascii");
    CHECK(run_cmd("run --preset ktk94-table1 --steps 1 --quiet --vtk fbb --vtk-format binary") == 0, "binary");
    const char *const fmts[][2] = {{"fb", "appended"}, {"fa", "ascii"}, {"fbb", "appended"}};
    for (int k = 0; k < 3; ++k) {
        snprintf(path, sizeof path, "%s/%s/step_000001.vtp", dir, fmts[k][0]);
        vtp d;
        char want[64];
        snprintf(want, sizeof want, "Name=\"Points\" NumberOfComponents=\"3\" format=\"%s\"", fmts[k][1]);
        CHECK(vtp_read(path, &d) == 0 && strstr(d.head, want), "%s: Points in format %s", path, fmts[k][1]);
        vtp_free(&d);
    }
    char fa[256], fb[256];
    snprintf(fa, sizeof fa, "%s/fa/step_000001.vtp", dir);
    snprintf(fb, sizeof fb, "%s/fb/step_000001.vtp", dir);
    CHECK(file_size(fb) > 0 && file_size(fb) < file_size(fa), "binary %ld bytes, ascii %ld", file_size(fb),
          file_size(fa));
    CHECK(run_cmd("run --preset ktk94-table1 --steps 1 --quiet --vtk fx --vtk-format base64") == 2, "bad format");
    CHECK(run_cmd("run --preset ktk94-table1 --steps 1 --quiet --vtk-format ascii") == 2, "--vtk-format alone");

    /* --vtk-steps colliding: exactly the steps with pairs; every:N: N, 2N, ... */
    CHECK(run_cmd("run --preset ktk94-table1 --quiet --vtk vc --vtk-steps colliding --pairs vc.csv") == 0,
          "--vtk-steps colliding");
    snprintf(path, sizeof path, "%s/vc.csv", dir);
    char *csv = check_read_file(path);
    int colliding = 0, steps_with[4096] = {0};
    for (const char *l = csv ? strchr(csv, '\n') : NULL; l && l[1]; l = strchr(l + 1, '\n')) {
        int st = atoi(l + 1);
        if (st > 0 && st < 4096 && !steps_with[st]) steps_with[st] = 1, ++colliding;
    }
    free(csv);
    snprintf(path, sizeof path, "%s/vc", dir);
    CHECK(colliding > 0 && count_entries(path, "step_") == colliding, "%d step files for %d colliding steps",
          count_entries(path, "step_"), colliding);
    int all_there = 1;
    for (int st = 1; st < 4096; ++st)
        if (steps_with[st]) {
            snprintf(path, sizeof path, "%s/vc/step_%06d.vtp", dir, st);
            all_there &= exists(path);
        }
    CHECK(all_there, "every colliding step has its file");
    CHECK(run_cmd("run --preset ktk94-table1 --steps 7 --quiet --vtk ve --vtk-steps every:3") == 0, "every:3");
    snprintf(path, sizeof path, "%s/ve", dir);
    CHECK(count_entries(path, "step_") == 2, "every:3 of 7 steps: 2 files, got %d", count_entries(path, "step_"));
    snprintf(path, sizeof path, "%s/ve/step_000003.vtp", dir);
    CHECK(exists(path), "every:3 writes step 3");
    snprintf(path, sizeof path, "%s/ve/step_000006.vtp", dir);
    CHECK(exists(path), "every:3 writes step 6");
    snprintf(path, sizeof path, "%s/ve/clash.pvd", dir);
    char *pvd = check_read_file(path);
    CHECK(pvd && strstr(pvd, "timestep=\"3\"") && strstr(pvd, "timestep=\"6\"") && !strstr(pvd, "timestep=\"1\""),
          "every:3: the index lists steps 3 and 6");
    free(pvd);
    CHECK(run_cmd("run --preset ktk94-table1 --steps 2 --quiet --vtk vx --vtk-steps every:0") == 2, "every:0");
    CHECK(run_cmd("run --preset ktk94-table1 --steps 2 --quiet --vtk vx --vtk-steps some") == 2, "bad --vtk-steps");
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/clash-test-vtk.XXXXXX");
    if (!mkdtemp(dir)) return check_skip("cannot create a temporary folder");
    check_api_series(-1, "series");                 /* default: binary */
    check_api_series(CLASH_VTK_ASCII, "series-ascii");
    check_api_series(CLASH_VTK_BINARY, "series-binary");
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/series-ascii/step_000003.vtp", dir);
    snprintf(b, sizeof b, "%s/series/step_000003.vtp", dir);
    CHECK(file_size(b) > 0 && file_size(b) < file_size(a), "binary %ld bytes against ASCII %ld", file_size(b),
          file_size(a));
    check_command();
    if (!check_failed_) {
        char cmd[128];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
    }
    return check_finish("test_vtk");
}
