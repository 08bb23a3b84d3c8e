/*
 * scene_json.c — reading a clash-scene/1 JSON file into a clash_scene_desc.
 *
 * The format is specified in src/cli/REFERENCE.md, "Scene file".  This file only
 * turns text into a description: it checks the syntax (via cJSON), the
 * structure (required keys, types, ranges, no unknown keys anywhere, no
 * duplicate keys) and fills in defaults.  Every number lies within the
 * store's CLASH_COORD_LIMIT (float range); an unknown key's message lists the
 * keys its object may have and the nearest one when it looks like a slip
 * (clash_suggest, base/error.h, the suggester of the command's options).  It does not open mesh files; it
 * only resolves their paths against the scene file's folder, and the mesh
 * loader reports missing or malformed files later.
 *
 * Error messages follow error.h: "LABEL: KEY.PATH: what", where LABEL is the
 * scene file's path (or the label given to clash_scene_desc_parse_string) and
 * KEY.PATH names the offending value the way one would address it in
 * JavaScript: "objects[1].velocity", "meshes.ball.scale", "frames.files[0]".
 * Syntax errors say "LABEL:LINE:COL: JSON syntax error" instead, with LINE
 * and COL (both 1-based, COL in bytes) computed from where cJSON stopped.
 *
 * Memory discipline: everything is built into a local description, which is
 * freed on any error; *out is zeroed first and written only on success.
 * The cJSON tree is freed on every path.
 *
 * Shape of the top level (all keys, required ones marked *):
 *   format*  "clash-scene/1"
 *   name     string, default: the label's base name without ".json"
 *   steps    integer >= 1, default 1
 *   mode     "static" | "swept", default "swept"
 *   self_collision  bool, default false
 *   meshes*, objects*   (rigid scenes)        — or —
 *   frames*             (deforming scenes), never together with meshes/objects
 */
#include "io/scene_desc.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "store/scene.h"

/* Largest scene file read (the scenes themselves are tiny; meshes live in
 * their own files). */
#define SCENE_MAX_BYTES ((size_t)64 << 20)

/* Longest key path printed in a message (longer ones are cut). */
#define KEYPATH_MAX 512

/* ---------------------------------------------------------------------------
 * Parsing context: the label for messages, the base folder for paths, and
 * the error sink.
 */
typedef struct ctx {
    const char *label;
    const char *base_dir;  /* NULL or "": relative paths are kept as written */
    clash_error *err;
} ctx;

/* Key paths are built in fixed buffers of KEYPATH_MAX bytes; a path that
 * does not fit is cut (messages stay readable, nothing overflows). */
static void path_set(char *buf, const char *a, const char *b, const char *c)
{
    size_t n = 0;
    const char *parts[3] = {a, b, c};
    for (int i = 0; i < 3; ++i)
        for (const char *s = parts[i]; *s && n + 1 < KEYPATH_MAX; ++s) buf[n++] = *s;
    buf[n] = '\0';
}

/* parent + ".KEY" (or just KEY when parent is empty). */
static void path_key(char *buf, const char *parent, const char *key)
{
    path_set(buf, parent, parent[0] ? "." : "", key);
}

/* parent + "[INDEX]". */
static void path_index(char *buf, const char *parent, int index)
{
    char num[24];
    snprintf(num, sizeof num, "[%d]", index);
    path_set(buf, parent, num, "");
}

/* "LABEL: PATH: what" (PATH omitted when empty). */
static int fail_at(ctx *c, const char *path, const char *fmt, ...) CLASH_PRINTF(3, 4);
static int fail_at(ctx *c, const char *path, const char *fmt, ...)
{
    char what[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (path && path[0])
        return clash_fail(c->err, CLASH_EINPUT, "%s: %s: %s", c->label, path, what);
    return clash_fail(c->err, CLASH_EINPUT, "%s: %s", c->label, what);
}

static int fail_oom(ctx *c)
{
    return clash_fail(c->err, CLASH_EFAIL, "%s: out of memory", c->label);
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* ---------------------------------------------------------------------------
 * Structural checks on JSON objects.
 */

/* Fails on a key not in `allowed` (a NULL-terminated list) or on a key that
 * appears twice (cJSON keeps both; the second would be silently ignored). */
static int check_keys(ctx *c, const cJSON *obj, const char *path, const char *const *allowed)
{
    char kp[KEYPATH_MAX];
    for (const cJSON *it = obj->child; it; it = it->next) {
        const char *k = it->string ? it->string : "";
        int known = 0;
        for (const char *const *a = allowed; *a; ++a)
            if (strcmp(*a, k) == 0) { known = 1; break; }
        path_key(kp, path, k);
        if (!known) { /* the keys this object may have, and the nearest when it looks like a slip */
            char list[512] = "";
            size_t n = 0;
            for (const char *const *a = allowed; *a && n < sizeof list; ++a)
                n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", a == allowed ? "" : ", ", *a);
            const char *near = clash_suggest(k, allowed);
            return fail_at(c, kp, "unknown key (known: %s)%s%s%s",
                           allowed[0] ? list : "none, the object must be empty", near ? "; did you mean '" : "",
                           near ? near : "", near ? "'?" : "");
        }
        for (const cJSON *prev = obj->child; prev != it; prev = prev->next)
            if (prev->string && strcmp(prev->string, k) == 0) return fail_at(c, kp, "duplicate key");
    }
    return CLASH_OK;
}

/* Number value, finite and inside the store's coordinate range (scales,
 * positions, velocities and angles alike: none is meaningful beyond it, and
 * so every law of motion stays finite in double over INT_MAX steps). */
static int get_number(ctx *c, const cJSON *v, const char *path, double *out)
{
    if (!cJSON_IsNumber(v)) return fail_at(c, path, "expected a number");
    if (!isfinite(v->valuedouble)) return fail_at(c, path, "number out of range (must be finite)");
    if (fabs(v->valuedouble) > CLASH_COORD_LIMIT)
        return fail_at(c, path, "%g is out of range (at most %g in magnitude: the scene is kept in float)",
                       v->valuedouble, CLASH_COORD_LIMIT);
    *out = v->valuedouble;
    return CLASH_OK;
}

/* Integer value in [lo, hi]; "what" describes the expectation in messages. */
static int get_int(ctx *c, const cJSON *v, const char *path, int lo, int hi, const char *what,
                   int *out)
{
    if (!cJSON_IsNumber(v)) return fail_at(c, path, "expected %s", what);
    double x = v->valuedouble;
    if (!isfinite(x) || x != floor(x)) return fail_at(c, path, "expected %s", what);
    if (x < (double)lo || x > (double)hi) return fail_at(c, path, "expected %s", what);
    *out = (int)x;
    return CLASH_OK;
}

static int get_positive(ctx *c, const cJSON *v, const char *path, double *out)
{
    double x = 0.0;
    if (!cJSON_IsNumber(v)) return fail_at(c, path, "expected a positive number");
    int rc = get_number(c, v, path, &x);
    if (rc) return rc;
    if (!(x > 0)) return fail_at(c, path, "expected a positive number, got %g", x);
    *out = x;
    return CLASH_OK;
}

static int get_bool(ctx *c, const cJSON *v, const char *path, int *out)
{
    if (!cJSON_IsBool(v)) return fail_at(c, path, "expected true or false");
    *out = cJSON_IsTrue(v) ? 1 : 0;
    return CLASH_OK;
}

static int get_vec3(ctx *c, const cJSON *v, const char *path, double out[3])
{
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
        return fail_at(c, path, "expected an array of 3 numbers");
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, ++i) {
        if (!cJSON_IsNumber(e)) return fail_at(c, path, "expected an array of 3 numbers");
        char ep[KEYPATH_MAX];
        path_index(ep, path, i);
        int rc = get_number(c, e, ep, &out[i]);
        if (rc) return rc;
    }
    return CLASH_OK;
}

/* Non-empty string without control characters cJSON might have decoded. */
static int get_string(ctx *c, const cJSON *v, const char *path, const char **out)
{
    if (!cJSON_IsString(v) || !v->valuestring) return fail_at(c, path, "expected a string");
    if (!v->valuestring[0]) return fail_at(c, path, "expected a non-empty string");
    *out = v->valuestring;
    return CLASH_OK;
}

/* Resolves a path from the scene file against base_dir into a new string. */
static int resolve_path(ctx *c, const char *rel, char **out)
{
    char *p;
    if (rel[0] == '/' || !c->base_dir || !c->base_dir[0]) {
        p = dup_str(rel);
    } else {
        size_t nb = strlen(c->base_dir), nr = strlen(rel);
        int slash = c->base_dir[nb - 1] != '/';
        p = malloc(nb + (size_t)slash + nr + 1);
        if (p) {
            memcpy(p, c->base_dir, nb);
            if (slash) p[nb] = '/';
            memcpy(p + nb + (size_t)slash, rel, nr + 1);
        }
    }
    if (!p) return fail_oom(c);
    *out = p;
    return CLASH_OK;
}

/* ---------------------------------------------------------------------------
 * UV-sphere face counts: F = 4k(k-1), k >= 2.
 */

static int sphere_faces_valid(long long f)
{
    for (long long k = 2; 4 * k * (k - 1) <= f; ++k)
        if (4 * k * (k - 1) == f) return 1;
    return 0;
}

static int parse_sphere(ctx *c, const cJSON *v, const char *path, int *faces)
{
    static const char *const keys[] = {"faces", NULL};
    char kp[KEYPATH_MAX];
    int rc;
    if (!cJSON_IsObject(v)) return fail_at(c, path, "expected an object like {\"faces\": 168}");
    if ((rc = check_keys(c, v, path, keys))) return rc;
    path_key(kp, path, "faces");
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(v, "faces");
    if (!f) return fail_at(c, kp, "missing (the UV sphere's face count, 4k(k-1): 8, 24, 48, 80, 120, 168, ...)");
    if (!cJSON_IsNumber(f) || !isfinite(f->valuedouble) || f->valuedouble != floor(f->valuedouble))
        return fail_at(c, kp, "expected an integer face count 4k(k-1)");
    double x = f->valuedouble;
    if (x >= 8 && x <= (double)INT_MAX && sphere_faces_valid((long long)x)) {
        *faces = (int)x;
        return CLASH_OK;
    }
    if (x < 8) return fail_at(c, kp, "%.0f is not a UV-sphere face count (4k(k-1)); nearest: 8 (k=2)", x);
    if (x > (double)INT_MAX) return fail_at(c, kp, "%.0f faces is too many", x);
    long long k = 2;
    while (4 * (k + 1) * k <= (long long)x) ++k;  /* largest k with 4k(k-1) <= x */
    long long lo = 4 * k * (k - 1), hi = 4 * (k + 1) * k;
    return fail_at(c, kp, "%.0f is not a UV-sphere face count (4k(k-1)); nearest: %lld (k=%lld), %lld (k=%lld)",
                   x, lo, k, hi, k + 1);
}

/* ---------------------------------------------------------------------------
 * Sections.
 */

static int parse_mesh(ctx *c, const cJSON *v, const char *path, clash_mesh_desc *m)
{
    static const char *const keys[] = {"file", "sphere", "box", "scale", "center", NULL};
    char kp[KEYPATH_MAX];
    int rc;
    m->scale = 1.0;
    if (!cJSON_IsObject(v))
        return fail_at(c, path, "expected an object: {\"file\": PATH}, {\"sphere\": {\"faces\": F}} or {\"box\": {}}");
    if ((rc = check_keys(c, v, path, keys))) return rc;
    const cJSON *file = cJSON_GetObjectItemCaseSensitive(v, "file");
    const cJSON *sphere = cJSON_GetObjectItemCaseSensitive(v, "sphere");
    const cJSON *box = cJSON_GetObjectItemCaseSensitive(v, "box");
    if ((file != NULL) + (sphere != NULL) + (box != NULL) != 1)
        return fail_at(c, path, "expected exactly one of \"file\", \"sphere\", \"box\"");
    if (file) {
        const char *s = NULL;
        path_key(kp, path, "file");
        if ((rc = get_string(c, file, kp, &s))) return rc;
        m->kind = CLASH_MESH_FILE;
        if ((rc = resolve_path(c, s, &m->path))) return rc;
    } else if (sphere) {
        path_key(kp, path, "sphere");
        m->kind = CLASH_MESH_SPHERE;
        if ((rc = parse_sphere(c, sphere, kp, &m->sphere_faces))) return rc;
    } else {
        static const char *const nokeys[] = {NULL};
        path_key(kp, path, "box");
        if (!cJSON_IsObject(box)) return fail_at(c, kp, "expected {}");
        if ((rc = check_keys(c, box, kp, nokeys))) return rc;
        m->kind = CLASH_MESH_BOX;
    }
    const cJSON *it;
    if ((it = cJSON_GetObjectItemCaseSensitive(v, "scale"))) {
        path_key(kp, path, "scale");
        if ((rc = get_positive(c, it, kp, &m->scale))) return rc;
    }
    if ((it = cJSON_GetObjectItemCaseSensitive(v, "center"))) {
        path_key(kp, path, "center");
        if ((rc = get_bool(c, it, kp, &m->center))) return rc;
    }
    return CLASH_OK;
}

static int parse_meshes(ctx *c, const cJSON *v, clash_scene_desc *d)
{
    char kp[KEYPATH_MAX];
    int rc;
    if (!cJSON_IsObject(v)) return fail_at(c, "meshes", "expected an object whose keys are mesh names");
    int n = cJSON_GetArraySize(v);
    if (n == 0) return fail_at(c, "meshes", "expected at least one mesh");
    /* check_keys with an "anything goes" list is not possible; check
     * duplicates and empty names here. */
    for (const cJSON *it = v->child; it; it = it->next) {
        if (!it->string || !it->string[0]) return fail_at(c, "meshes", "empty mesh name");
        for (const cJSON *prev = v->child; prev != it; prev = prev->next)
            if (strcmp(prev->string, it->string) == 0) {
                path_key(kp, "meshes", it->string);
                return fail_at(c, kp, "duplicate key");
            }
    }
    d->meshes = calloc((size_t)n, sizeof *d->meshes);
    if (!d->meshes) return fail_oom(c);
    for (const cJSON *it = v->child; it; it = it->next) {
        clash_mesh_desc *m = &d->meshes[d->nmeshes++];
        if (!(m->name = dup_str(it->string))) return fail_oom(c);
        path_key(kp, "meshes", it->string);
        if ((rc = parse_mesh(c, it, kp, m))) return rc;
    }
    return CLASH_OK;
}

static int parse_object(ctx *c, const cJSON *v, const char *path, const clash_scene_desc *d,
                        clash_object_desc *o)
{
    static const char *const keys[] = {"mesh", "scale", "position", "rotation_deg", "velocity",
                                       "angular_velocity_deg", NULL};
    char kp[KEYPATH_MAX];
    int rc;
    const cJSON *it;
    o->scale = 1.0;
    if (!cJSON_IsObject(v)) return fail_at(c, path, "expected an object like {\"mesh\": NAME, ...}");
    if ((rc = check_keys(c, v, path, keys))) return rc;
    path_key(kp, path, "mesh");
    if (!(it = cJSON_GetObjectItemCaseSensitive(v, "mesh"))) return fail_at(c, kp, "missing (a key of \"meshes\")");
    const char *name = NULL;
    if ((rc = get_string(c, it, kp, &name))) return rc;
    o->mesh = -1;
    for (int i = 0; i < d->nmeshes; ++i)
        if (strcmp(d->meshes[i].name, name) == 0) { o->mesh = i; break; }
    if (o->mesh < 0) return fail_at(c, kp, "no mesh named \"%s\" in \"meshes\"", name);
    if ((it = cJSON_GetObjectItemCaseSensitive(v, "scale"))) {
        path_key(kp, path, "scale");
        if ((rc = get_positive(c, it, kp, &o->scale))) return rc;
    }
    static const char *const vecs[] = {"position", "rotation_deg", "velocity", "angular_velocity_deg"};
    double *dst[4] = {o->position, o->rotation_deg, o->velocity, o->angular_velocity_deg};
    for (int i = 0; i < 4; ++i)
        if ((it = cJSON_GetObjectItemCaseSensitive(v, vecs[i]))) {
            path_key(kp, path, vecs[i]);
            if ((rc = get_vec3(c, it, kp, dst[i]))) return rc;
        }
    return CLASH_OK;
}

static int parse_objects(ctx *c, const cJSON *v, clash_scene_desc *d)
{
    char kp[KEYPATH_MAX];
    int rc, n;
    if (!cJSON_IsArray(v)) return fail_at(c, "objects", "expected an array of objects");
    if ((n = cJSON_GetArraySize(v)) == 0) return fail_at(c, "objects", "expected at least one object");
    d->objects = calloc((size_t)n, sizeof *d->objects);
    if (!d->objects) return fail_oom(c);
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, ++i) {
        path_index(kp, "objects", i);
        if ((rc = parse_object(c, it, kp, d, &d->objects[i]))) return rc;
        d->nobjects = i + 1;
    }
    return CLASH_OK;
}

static int parse_frames(ctx *c, const cJSON *v, clash_scene_desc *d)
{
    static const char *const keys[] = {"files", "objects", NULL};
    char kp[KEYPATH_MAX];
    int rc, n;
    const cJSON *it;
    if (!cJSON_IsObject(v))
        return fail_at(c, "frames", "expected an object like {\"files\": [\"f0.ply\", \"f1.ply\"]}");
    if ((rc = check_keys(c, v, "frames", keys))) return rc;
    if (!(it = cJSON_GetObjectItemCaseSensitive(v, "files")))
        return fail_at(c, "frames.files", "missing (an array of at least 2 mesh files)");
    if (!cJSON_IsArray(it)) return fail_at(c, "frames.files", "expected an array of at least 2 paths");
    if ((n = cJSON_GetArraySize(it)) < 2)
        return fail_at(c, "frames.files", "expected an array of at least 2 paths, got %d", n);
    d->frame_files = calloc((size_t)n, sizeof *d->frame_files);
    if (!d->frame_files) return fail_oom(c);
    int i = 0;
    for (const cJSON *f = it->child; f; f = f->next, ++i) {
        const char *s = NULL;
        path_index(kp, "frames.files", i);
        if ((rc = get_string(c, f, kp, &s))) return rc;
        if ((rc = resolve_path(c, s, &d->frame_files[i]))) return rc;
        d->nframes = i + 1;
    }
    d->frames_objects = CLASH_FRAMES_COMPONENTS;
    if ((it = cJSON_GetObjectItemCaseSensitive(v, "objects"))) {
        if (cJSON_IsString(it) && strcmp(it->valuestring, "components") == 0)
            d->frames_objects = CLASH_FRAMES_COMPONENTS;
        else if (cJSON_IsString(it) && strcmp(it->valuestring, "single") == 0)
            d->frames_objects = CLASH_FRAMES_SINGLE;
        else
            return fail_at(c, "frames.objects", "expected \"components\" or \"single\"");
    }
    return CLASH_OK;
}

/* Default scene name: base name of the label without ".json". */
static char *default_name(const char *label)
{
    if (!label || !label[0]) return dup_str("scene");
    const char *b = strrchr(label, '/');
    b = b ? b + 1 : label;
    size_t n = strlen(b);
    if (n > 5 && (strcmp(b + n - 5, ".json") == 0 || strcmp(b + n - 5, ".JSON") == 0)) n -= 5;
    if (n == 0) return dup_str("scene");
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, b, n);
        s[n] = '\0';
    }
    return s;
}

static int parse_root(ctx *c, const cJSON *root, clash_scene_desc *d)
{
    static const char *const keys[] = {"format", "name", "steps", "mode", "self_collision",
                                       "meshes", "objects", "frames", NULL};
    int rc;
    const cJSON *it;
    if (!cJSON_IsObject(root)) return fail_at(c, NULL, "expected a JSON object at the top level");
    /* The format first: a file of another format should say so, not list
     * its keys as unknown. */
    if (!(it = cJSON_GetObjectItemCaseSensitive(root, "format")))
        return fail_at(c, "format", "missing (expected \"format\": \"clash-scene/1\")");
    if (!cJSON_IsString(it)) return fail_at(c, "format", "expected the string \"clash-scene/1\"");
    if (strcmp(it->valuestring, "clash-scene/1") != 0)
        return fail_at(c, "format", "unsupported format \"%.200s\" (expected \"clash-scene/1\")", it->valuestring);
    if ((rc = check_keys(c, root, "", keys))) return rc;

    d->steps = 1;
    d->mode = CLASH_MODE_SWEPT;
    d->self_collision = 0;
    if ((it = cJSON_GetObjectItemCaseSensitive(root, "name"))) {
        const char *s = NULL;
        if ((rc = get_string(c, it, "name", &s))) return rc;
        if (!(d->name = dup_str(s))) return fail_oom(c);
    } else if (!(d->name = default_name(c->label))) {
        return fail_oom(c);
    }
    if ((it = cJSON_GetObjectItemCaseSensitive(root, "steps")) &&
        (rc = get_int(c, it, "steps", 1, INT_MAX, "an integer >= 1", &d->steps)))
        return rc;
    if ((it = cJSON_GetObjectItemCaseSensitive(root, "mode"))) {
        if (cJSON_IsString(it) && strcmp(it->valuestring, "static") == 0)
            d->mode = CLASH_MODE_STATIC;
        else if (cJSON_IsString(it) && strcmp(it->valuestring, "swept") == 0)
            d->mode = CLASH_MODE_SWEPT;
        else
            return fail_at(c, "mode", "expected \"static\" or \"swept\"");
    }
    if ((it = cJSON_GetObjectItemCaseSensitive(root, "self_collision")) &&
        (rc = get_bool(c, it, "self_collision", &d->self_collision)))
        return rc;

    const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(root, "meshes");
    const cJSON *objects = cJSON_GetObjectItemCaseSensitive(root, "objects");
    const cJSON *frames = cJSON_GetObjectItemCaseSensitive(root, "frames");
    if (frames) {
        if (meshes) return fail_at(c, "meshes", "not allowed together with \"frames\"");
        if (objects) return fail_at(c, "objects", "not allowed together with \"frames\"");
        return parse_frames(c, frames, d);
    }
    if (!meshes && !objects)
        return fail_at(c, NULL, "expected \"meshes\" and \"objects\" (rigid scene) or \"frames\" (deforming scene)");
    if (!meshes) return fail_at(c, "meshes", "missing (required with \"objects\")");
    if (!objects) return fail_at(c, "objects", "missing (required with \"meshes\")");
    if ((rc = parse_meshes(c, meshes, d))) return rc;
    return parse_objects(c, objects, d);
}

/* ---------------------------------------------------------------------------
 * Public entry points.
 */

void clash_scene_desc_free(clash_scene_desc *d)
{
    if (!d) return;
    free(d->name);
    for (int i = 0; i < d->nmeshes; ++i) {
        free(d->meshes[i].name);
        free(d->meshes[i].path);
    }
    free(d->meshes);
    free(d->objects);
    for (int i = 0; i < d->nframes; ++i) free(d->frame_files[i]);
    free(d->frame_files);
    memset(d, 0, sizeof *d);
}

/* Line and column (1-based) of byte offset pos in text. */
static void line_col(const char *text, size_t pos, long *line, long *col)
{
    long l = 1;
    size_t start = 0;
    for (size_t i = 0; i < pos; ++i)
        if (text[i] == '\n') {
            ++l;
            start = i + 1;
        }
    *line = l;
    *col = (long)(pos - start) + 1;
}

static int parse_text(const char *json, size_t len, const char *base_dir, const char *label,
                      clash_scene_desc *out, clash_error *err)
{
    ctx c = {label && label[0] ? label : "<string>", base_dir, err};
    const char *end = NULL;
    size_t nul = strlen(json);
    if (nul < len) {
        long line, col;
        line_col(json, nul, &line, &col);
        return clash_fail(err, CLASH_EINPUT, "%s:%ld:%ld: NUL byte in the scene file", c.label, line, col);
    }
    cJSON *root = cJSON_ParseWithLengthOpts(json, len + 1, &end, 1);
    if (!root) {
        size_t pos = len;
        if (end && end >= json && end <= json + len) pos = (size_t)(end - json);
        long line, col;
        line_col(json, pos, &line, &col);
        if (pos >= len)
            return clash_fail(err, CLASH_EINPUT, "%s:%ld:%ld: JSON syntax error: unexpected end of input",
                              c.label, line, col);
        char near[24];
        size_t k = 0;
        while (k < 20 && json[pos + k] && json[pos + k] != '\n' && json[pos + k] != '\r') {
            near[k] = json[pos + k];
            ++k;
        }
        near[k] = '\0';
        if (k == 0) { /* nothing left on the line: show what came before */
            size_t b = pos;
            while (b > 0 && pos - b < 20 && json[b - 1] != '\n' && json[b - 1] != '\r') --b;
            while (b < pos && (json[b] == ' ' || json[b] == '\t')) ++b;
            memcpy(near, json + b, pos - b);
            near[pos - b] = '\0';
            return clash_fail(err, CLASH_EINPUT, "%s:%ld:%ld: JSON syntax error after '%s'", c.label, line, col,
                              near);
        }
        return clash_fail(err, CLASH_EINPUT, "%s:%ld:%ld: JSON syntax error near '%s'", c.label, line, col,
                          near);
    }
    clash_scene_desc d;
    memset(&d, 0, sizeof d);
    int rc = parse_root(&c, root, &d);
    cJSON_Delete(root);
    if (rc) {
        clash_scene_desc_free(&d);
        return rc;
    }
    *out = d;
    return CLASH_OK;
}

int clash_scene_desc_parse_string(const char *json, const char *base_dir, const char *label,
                                  clash_scene_desc *out, clash_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!json || !out) return clash_fail(err, CLASH_EFAIL, "clash_scene_desc_parse_string: NULL argument");
    return parse_text(json, strlen(json), base_dir, label, out, err);
}

int clash_scene_desc_parse_file(const char *path, clash_scene_desc *out, clash_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) return clash_fail(err, CLASH_EFAIL, "clash_scene_desc_parse_file: NULL argument");
    FILE *f = fopen(path, "rb");
    if (!f) return clash_fail(err, CLASH_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        return clash_fail(err, CLASH_EFAIL, "%s: out of memory", path);
    }
    for (;;) {
        if (len == cap) {
            if (cap > SCENE_MAX_BYTES) { /* read more than the limit: too large */
                free(buf);
                fclose(f);
                return clash_fail(err, CLASH_EINPUT, "%s: file too large for a scene (over %zu MiB)", path,
                                  SCENE_MAX_BYTES >> 20);
            }
            size_t ncap = cap * 2;
            if (ncap > SCENE_MAX_BYTES + 1) ncap = SCENE_MAX_BYTES + 1;
            char *nb = realloc(buf, ncap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                return clash_fail(err, CLASH_EFAIL, "%s: out of memory", path);
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    int bad = ferror(f), e = errno;
    fclose(f);
    if (bad) {
        free(buf);
        return clash_fail(err, CLASH_EINPUT, "%s: cannot read: %s", path, strerror(e));
    }
    if (len > SCENE_MAX_BYTES) {
        free(buf);
        return clash_fail(err, CLASH_EINPUT, "%s: file too large for a scene (over %zu MiB)", path,
                          SCENE_MAX_BYTES >> 20);
    }
    buf[len] = '\0';

    /* The base folder: everything before the last '/', "/" for files in the
     * root, "" (keep relative paths as they are) for a bare file name. */
    char *base = dup_str(path);
    if (!base) {
        free(buf);
        return clash_fail(err, CLASH_EFAIL, "%s: out of memory", path);
    }
    char *slash = strrchr(base, '/');
    if (!slash)
        base[0] = '\0';
    else if (slash == base)
        base[1] = '\0';
    else
        *slash = '\0';
    int rc = parse_text(buf, len, base, path, out, err);
    free(base);
    free(buf);
    return rc;
}
