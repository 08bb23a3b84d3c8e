/*
 * mesh_io.c — clash_mesh_load: chooses the reader (OBJ, PLY, STL, OFF) by the
 * file's extension.  The readers' shared helpers are mesh_text.c's.
 */
#include "io/mesh_io.h"

#include "base/error.h"

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
    if (!strcmp(ext, "obj")) return clash_mesh_load_obj(path, out, err);
    if (!strcmp(ext, "ply")) return clash_mesh_load_ply(path, out, err);
    if (!strcmp(ext, "stl")) return clash_mesh_load_stl(path, out, err);
    if (!strcmp(ext, "off")) return clash_mesh_load_off(path, out, err);
    return clash_fail(err, CLASH_EINPUT,
                      "%s: unknown mesh file type (expected extension .obj, .ply, .stl or .off)", path);
}
