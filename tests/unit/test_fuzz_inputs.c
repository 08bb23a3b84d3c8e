/*
 * test_fuzz_inputs.c — every committed fuzz input through the readers, in the
 * ordinary build (and under ASan+UBSan in CI), without libFuzzer.
 *
 * Inputs: tests/fuzz/corpus/{obj,ply,stl,off,scene}/ (the seeds) and
 * tests/fuzz/regress/ (inputs that once crashed or misbehaved; the reader is
 * chosen by the file's extension: .obj .ply .stl .off .json).  Each must give
 * CLASH_OK with a valid mesh (indices in range, coordinates finite, at least
 * one face) or an error code with an empty mesh and a message: the same
 * contract the fuzz targets enforce (tests/fuzz/fuzz_mesh.c, fuzz_scene.c).
 * tests/fuzz/regress/README says what each regression input once broke.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "io/mesh_io.h"
#include "io/scene_desc.h"

static long files;

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

static void check_mesh_file(const char *path, int kind)
{
    clash_mesh m;
    clash_error err = {0, ""};
    int rc = kind == 'o' ? clash_mesh_load_obj(path, &m, &err)
           : kind == 'p' ? clash_mesh_load_ply(path, &m, &err)
           : kind == 's' ? clash_mesh_load_stl(path, &m, &err)
                         : clash_mesh_load_off(path, &m, &err);
    ++files;
    if (rc == CLASH_OK) {
        CHECK(m.nverts > 0 && m.nfaces > 0 && m.xyz && m.tri, "%s: empty mesh accepted", path);
        long bad = 0;
        for (int64_t i = 0; i < 3 * m.nverts; ++i) bad += !isfinite(m.xyz[i]);
        for (int64_t i = 0; i < 3 * m.nfaces; ++i) bad += m.tri[i] < 0 || m.tri[i] >= m.nverts;
        CHECK(bad == 0, "%s: %ld bad values in an accepted mesh", path, bad);
    } else {
        CHECK(!m.xyz && !m.tri && !m.nverts && !m.nfaces, "%s: failed but left a mesh", path);
        CHECK(err.msg[0] != '\0', "%s: failed without a message", path);
    }
    clash_mesh_free(&m);
}

static void check_scene_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL, "%s: cannot open", path);
    if (!f) return;
    char *buf = malloc(1 << 20);
    size_t n = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (!buf) return;
    buf[n] = '\0';
    clash_scene_desc d;
    clash_error err = {0, ""};
    ++files;
    int rc = clash_scene_desc_parse_string(buf, "/nonexistent/base", path, &d, &err);
    if (rc == CLASH_OK) {
        long bad = 0;
        for (int i = 0; i < d.nobjects; ++i) bad += d.objects[i].mesh < 0 || d.objects[i].mesh >= d.nmeshes;
        CHECK(bad == 0, "%s: %ld objects name no mesh", path, bad);
    } else {
        CHECK(err.msg[0] != '\0', "%s: failed without a message", path);
    }
    clash_scene_desc_free(&d);
    free(buf);
}

static void run_dir(const char *dir, int kind) /* kind 0: by extension */
{
    DIR *D = opendir(dir);
    CHECK(D != NULL, "%s: cannot open folder", dir);
    if (!D) return;
    struct dirent *e;
    while ((e = readdir(D))) {
        if (e->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int k = kind;
        if (!k) {
            k = ends_with(path, ".obj") ? 'o' : ends_with(path, ".ply") ? 'p' : ends_with(path, ".stl") ? 's'
              : ends_with(path, ".off") ? 'f' : ends_with(path, ".json") ? 'j' : 0;
            if (!k) continue; /* README and the like */
        }
        if (k == 'j') check_scene_file(path);
        else check_mesh_file(path, k);
    }
    closedir(D);
}

int main(void)
{
    static const struct { const char *sub; int kind; } dirs[] = {
        {"obj", 'o'}, {"ply", 'p'}, {"stl", 's'}, {"off", 'f'}, {"scene", 'j'}};
    char path[4096];
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; ++i) {
        snprintf(path, sizeof path, "%s/fuzz/corpus/%s", CLASH_TEST_DIR, dirs[i].sub);
        run_dir(path, dirs[i].kind);
    }
    snprintf(path, sizeof path, "%s/fuzz/regress", CLASH_TEST_DIR);
    run_dir(path, 0);
    printf("test_fuzz_inputs: %ld input files\n", files);
    CHECK(files > 50, "only %ld input files found", files);
    return check_finish("test_fuzz_inputs");
}
