/*
 * fuzz_scene.c — libFuzzer target for the clash-scene/1 JSON parser
 * (clash_scene_desc_parse_string, scene_json.c).
 *
 * The input bytes become a NUL-terminated string (a NUL inside the input
 * simply ends the document early, as it would for a file read as text).
 * Beyond what the sanitizers catch, the target checks the parser's contract:
 * on success every object names an existing mesh, counts are non-negative
 * and the arrays they describe exist; on failure a message is set.  The
 * description is freed either way, so leaks in error paths show up.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "io/scene_desc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';

    clash_scene_desc d;
    clash_error err = {0, ""};
    int rc = clash_scene_desc_parse_string(s, "/nonexistent/base", "fuzz.json", &d, &err);
    if (rc == CLASH_OK) {
        if (d.nmeshes < 0 || d.nobjects < 0 || d.nframes < 0) abort();
        if (d.nmeshes > 0 && !d.meshes) abort();
        if (d.nobjects > 0 && !d.objects) abort();
        if (d.nframes > 0 && !d.frame_files) abort();
        for (int i = 0; i < d.nobjects; ++i)
            if (d.objects[i].mesh < 0 || d.objects[i].mesh >= d.nmeshes) abort();
        for (int i = 0; i < d.nmeshes; ++i)
            if (d.meshes[i].kind == CLASH_MESH_FILE && !d.meshes[i].path) abort();
        clash_scene_desc_free(&d);
    } else if (err.msg[0] == '\0') {
        abort();
    } else {
        clash_scene_desc_free(&d);
    }
    free(s);
    return 0;
}
