/*
 * mesh_io.c — clash_mesh_load: chooses the reader (OBJ, PLY, STL, OFF) by the
 * file's extension.  The readers' shared helpers are mesh_text.c's.  The
 * public clash_mesh_read hands the same arrays to host programs, ready for
 * clash_scene_add_mesh.
 */
#include "io/mesh_io.h"

#include "base/error.h"
#include "store/scene.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- loading and freeing -------------------------------------------------- */

static int ascii_lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

int clash_mesh_load(const char *path, clash_mesh *out, clash_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) return clash_fail(err, CLASH_EINPUT, "clash_mesh_load: null argument");

    /* The extension is what follows the last '.' of the last path component. */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    char ext[8] = "";
    if (dot && strlen(dot + 1) < sizeof ext) {
        size_t i = 0;
        for (const char *c = dot + 1; *c; ++c) ext[i++] = (char)ascii_lower((unsigned char)*c);
        ext[i] = '\0';
    }
    int rc;
    if (!strcmp(ext, "obj")) rc = clash_mesh_load_obj(path, out, err);
    else if (!strcmp(ext, "ply")) rc = clash_mesh_load_ply(path, out, err);
    else if (!strcmp(ext, "stl")) rc = clash_mesh_load_stl(path, out, err);
    else if (!strcmp(ext, "off")) rc = clash_mesh_load_off(path, out, err);
    else
        return clash_fail(err, CLASH_EINPUT,
                          "%s: unknown mesh file type (expected extension .obj, .ply, .stl or .off)", path);
    /* the store refuses a triangle with a repeated vertex (store/scene_add.c): named here by the file's face */
    const int64_t bad = rc ? -1 : clash_repeated_corner(out->tri, out->nfaces);
    if (bad >= 0) {
        rc = clash_fail(err, CLASH_EINPUT, "%s: face %lld (0-based, polygons counted as their fan triangles): "
                        "repeated vertex index %d (0-based; a triangle needs three distinct vertices)", path,
                        (long long)(bad / 3), out->tri[bad]);
        clash_mesh_free(out);
    }
    return rc;
}

int clash_mesh_read(const char *path, clash_mesh_arrays *out, clash_error *err)
{
    clash_mesh m;
    if (out) memset(out, 0, sizeof *out);
    if (!out) return clash_fail(err, CLASH_EINPUT, "clash_mesh_read: null argument");
    const int rc = clash_mesh_load(path, &m, err);
    if (rc) return rc;
    *out = (clash_mesh_arrays){.nv = m.nverts, .nf = m.nfaces, .xyz = m.xyz, .tri = m.tri};
    return CLASH_OK;
}

void clash_mesh_arrays_free(clash_mesh_arrays *m)
{
    if (!m) return;
    free(m->xyz), free(m->tri);
    memset(m, 0, sizeof *m);
}
