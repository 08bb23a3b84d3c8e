/*
 * make_frames.c — writes a deforming "frames" scene for the decomposition
 * tests (issue 18): the cluttered preset's objects moved by their laws and
 * each one breathing (scaled about its centre by 1 + 0.15 sin(0.7 s + o)),
 * frame s as DIR/fS.obj, and DIR/frames.json naming them (objects: the
 * connected components, one per preset object).
 *
 *   make_frames DIR OBJECTS FRAMES
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/scene.h"

/* (DIR must exist: make_frames writes into it, it does not make it) */
static int cannot_write(const char *path)
{
    fprintf(stderr, "make_frames: %s: cannot write: %s\n", path, strerror(errno));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: make_frames DIR OBJECTS FRAMES\n");
        return 2;
    }
    const char *dir = argv[1];
    const int n = atoi(argv[2]), frames = atoi(argv[3]);
    clash_error err = {0};
    clash_scene *sc = NULL;
    const clash_preset_params p = {.objects = n, .seed = 5};
    if (clash_scene_preset("cluttered", &p, &sc, &err)) {
        fprintf(stderr, "make_frames: %s\n", err.msg);
        return 1;
    }
    char path[1024];
    for (int s = 0; s < frames; ++s) {
        if (clash_scene_set_state(sc, s + 1, &err)) { /* frame s: the laws' state s + 1 */
            fprintf(stderr, "make_frames: %s\n", err.msg);
            return 1;
        }
        snprintf(path, sizeof path, "%s/f%d.obj", dir, s);
        FILE *f = fopen(path, "w");
        if (!f) return cannot_write(path);
        for (int o = 0; o < sc->nobj; ++o) {
            double c[3] = {0, 0, 0};
            const int64_t v0 = sc->vofs[o], v1 = sc->vofs[o + 1];
            for (int64_t v = v0; v < v1; ++v) c[0] += sc->x[v], c[1] += sc->y[v], c[2] += sc->z[v];
            for (int k = 0; k < 3; ++k) c[k] /= (double)(v1 - v0);
            const double g = 1 + 0.15 * sin(0.7 * s + o);
            for (int64_t v = v0; v < v1; ++v)
                fprintf(f, "v %.9g %.9g %.9g\n", c[0] + g * (sc->x[v] - c[0]), c[1] + g * (sc->y[v] - c[1]),
                        c[2] + g * (sc->z[v] - c[2]));
        }
        for (int64_t t = 0; t < sc->nf; ++t)
            fprintf(f, "f %d %d %d\n", sc->f0[t] + 1, sc->f1[t] + 1, sc->f2[t] + 1);
        if (fclose(f)) return cannot_write(path);
    }
    snprintf(path, sizeof path, "%s/frames.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) return cannot_write(path);
    fprintf(f, "{\"format\": \"clash-scene/1\", \"name\": \"breathing\", \"steps\": %d, \"frames\": {\"files\": [",
            frames - 1);
    for (int s = 0; s < frames; ++s) fprintf(f, "%s\"f%d.obj\"", s ? ", " : "", s);
    fprintf(f, "]}}\n");
    clash_scene_destroy(sc);
    return fclose(f) ? cannot_write(path) : 0;
}
