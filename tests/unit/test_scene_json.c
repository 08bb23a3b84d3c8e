/*
 * test_scene_json.c — the clash-scene/1 reader (src/io/scene_json.c).
 *
 * Valid scenes: the reference's example scene (every field, paths joined
 * to the base folder), a deforming "frames" scene, and a minimal scene whose
 * defaults are filled in.  Invalid scenes: one string per mistake, each
 * asserting CLASH_EINPUT, the label, the key path and the gist of the
 * message, and that *out is left zeroed.  A few scenes are written to a
 * temporary folder at run time to check parse_file's label, base folder,
 * default name, syntax-error position, and unreadable files.  Run under
 * ASan, it also checks that nothing leaks on any of those paths.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, truncate, chdir */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "check.h"
#include "io/scene_desc.h"
#include "store/scene.h"

/* A rigid scene with every object key, meshes from files and a generator (REFERENCE.md, "Scene file"). */
static const char contract_example[] =
    "{\n"
    "  \"format\": \"clash-scene/1\",\n"
    "  \"name\": \"two-spheres\",\n"
    "  \"steps\": 200,\n"
    "  \"mode\": \"swept\",\n"
    "  \"self_collision\": false,\n"
    "  \"meshes\": {\n"
    "    \"ball\":  {\"file\": \"meshes/ball.obj\"},\n"
    "    \"s168\":  {\"sphere\": {\"faces\": 168}},\n"
    "    \"bunny\": {\"file\": \"bunny.ply\", \"scale\": 10.0, \"center\": true}\n"
    "  },\n"
    "  \"objects\": [\n"
    "    {\"mesh\": \"s168\", \"scale\": 1.9, \"position\": [4, 4, 4], \"rotation_deg\": [0, 0, 0],\n"
    "     \"velocity\": [0.03, 0.015, 0.02], \"angular_velocity_deg\": [0, 0.05, 0.05]},\n"
    "    {\"mesh\": \"s168\", \"scale\": 1.9, \"position\": [18, 12, 14],\n"
    "     \"velocity\": [-0.03, -0.015, -0.02], \"angular_velocity_deg\": [0.05, 0.05, 0]}\n"
    "  ]\n"
    "}\n";

static int vec_eq(const double *a, double x, double y, double z)
{
    return a[0] == x && a[1] == y && a[2] == z;
}

static int str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static int desc_is_zero(const clash_scene_desc *d)
{
    return !d->name && !d->steps && !d->mode && !d->self_collision && !d->nmeshes && !d->meshes &&
           !d->nobjects && !d->objects && !d->nframes && !d->frame_files && !d->frames_objects;
}

/* Checks the example as parsed with base folder `base` (the joined
 * path is base + "/" + rel, or rel when base is empty). */
static void check_contract_example(const clash_scene_desc *d, const char *base)
{
    char ball[1024], bunny[1024];
    if (base && base[0]) {
        snprintf(ball, sizeof ball, "%s/meshes/ball.obj", base);
        snprintf(bunny, sizeof bunny, "%s/bunny.ply", base);
    } else {
        snprintf(ball, sizeof ball, "meshes/ball.obj");
        snprintf(bunny, sizeof bunny, "bunny.ply");
    }
    CHECK(str_eq(d->name, "two-spheres"), "name %s", d->name ? d->name : "(null)");
    CHECK(d->steps == 200, "steps %d", d->steps);
    CHECK(d->mode == CLASH_MODE_SWEPT, "mode %d", d->mode);
    CHECK(d->self_collision == 0, "self %d", d->self_collision);
    CHECK(d->nframes == 0 && d->frame_files == NULL, "frames %d", d->nframes);
    CHECK(d->nmeshes == 3, "nmeshes %d", d->nmeshes);
    if (d->nmeshes == 3) {
        const clash_mesh_desc *m = d->meshes;
        CHECK(str_eq(m[0].name, "ball") && m[0].kind == CLASH_MESH_FILE, "mesh 0 %s", m[0].name);
        CHECK(str_eq(m[0].path, ball), "ball path %s, want %s", m[0].path, ball);
        CHECK(m[0].scale == 1.0 && m[0].center == 0, "ball scale %g center %d", m[0].scale, m[0].center);
        CHECK(str_eq(m[1].name, "s168") && m[1].kind == CLASH_MESH_SPHERE && m[1].sphere_faces == 168,
              "mesh 1 %s kind %d faces %d", m[1].name, m[1].kind, m[1].sphere_faces);
        CHECK(m[1].path == NULL && m[1].scale == 1.0 && m[1].center == 0, "s168 defaults");
        CHECK(str_eq(m[2].name, "bunny") && m[2].kind == CLASH_MESH_FILE, "mesh 2 %s", m[2].name);
        CHECK(str_eq(m[2].path, bunny), "bunny path %s, want %s", m[2].path, bunny);
        CHECK(m[2].scale == 10.0 && m[2].center == 1, "bunny scale %g center %d", m[2].scale, m[2].center);
    }
    CHECK(d->nobjects == 2, "nobjects %d", d->nobjects);
    if (d->nobjects == 2) {
        const clash_object_desc *o = d->objects;
        CHECK(o[0].mesh == 1 && o[1].mesh == 1, "mesh index %d %d", o[0].mesh, o[1].mesh);
        CHECK(o[0].scale == 1.9 && o[1].scale == 1.9, "scale");
        CHECK(vec_eq(o[0].position, 4, 4, 4), "pos 0");
        CHECK(vec_eq(o[0].rotation_deg, 0, 0, 0), "rot 0");
        CHECK(vec_eq(o[0].velocity, 0.03, 0.015, 0.02), "vel 0");
        CHECK(vec_eq(o[0].angular_velocity_deg, 0, 0.05, 0.05), "angvel 0");
        CHECK(vec_eq(o[1].position, 18, 12, 14), "pos 1");
        CHECK(vec_eq(o[1].rotation_deg, 0, 0, 0), "rot 1 default");
        CHECK(vec_eq(o[1].velocity, -0.03, -0.015, -0.02), "vel 1");
        CHECK(vec_eq(o[1].angular_velocity_deg, 0.05, 0.05, 0), "angvel 1");
    }
}

static void test_valid(void)
{
    clash_scene_desc d;
    clash_error err = {0, ""};

    /* The contract example, base folder with and without a trailing slash,
     * and without one at all. */
    int rc = clash_scene_desc_parse_string(contract_example, "/data/scenes", "scenes/x.json", &d, &err);
    CHECK(rc == CLASH_OK, "contract example: %s", err.msg);
    check_contract_example(&d, "/data/scenes");
    clash_scene_desc_free(&d);
    CHECK(desc_is_zero(&d), "free zeroes the description");
    clash_scene_desc_free(&d); /* twice is harmless */

    rc = clash_scene_desc_parse_string(contract_example, "/data/scenes/", "x", &d, &err);
    CHECK(rc == CLASH_OK, "contract example (trailing slash): %s", err.msg);
    check_contract_example(&d, "/data/scenes");
    clash_scene_desc_free(&d);

    rc = clash_scene_desc_parse_string(contract_example, NULL, NULL, &d, &err);
    CHECK(rc == CLASH_OK, "contract example (no base): %s", err.msg);
    check_contract_example(&d, "");
    clash_scene_desc_free(&d);

    /* Absolute paths are kept as they are. */
    rc = clash_scene_desc_parse_string(
        "{\"format\": \"clash-scene/1\", \"meshes\": {\"m\": {\"file\": \"/abs/m.obj\"}},"
        " \"objects\": [{\"mesh\": \"m\"}]}",
        "/base", "abs.json", &d, &err);
    CHECK(rc == CLASH_OK, "absolute path: %s", err.msg);
    CHECK(d.nmeshes == 1 && str_eq(d.meshes[0].path, "/abs/m.obj"), "absolute path kept: %s",
          d.nmeshes ? d.meshes[0].path : "");
    clash_scene_desc_free(&d);

    /* Defaults: name from the label, steps 1, swept, no self, scale 1, zero vectors. */
    rc = clash_scene_desc_parse_string(
        "{\"format\": \"clash-scene/1\", \"meshes\": {\"b\": {\"box\": {}}, \"s\": {\"sphere\": {\"faces\": 8},"
        " \"scale\": 2, \"center\": false}}, \"objects\": [{\"mesh\": \"b\"}, {\"mesh\": \"s\"}]}",
        "dir", "dir/my-scene.json", &d, &err);
    CHECK(rc == CLASH_OK, "defaults: %s", err.msg);
    CHECK(str_eq(d.name, "my-scene"), "default name %s", d.name ? d.name : "(null)");
    CHECK(d.steps == 1 && d.mode == CLASH_MODE_SWEPT && d.self_collision == 0, "defaults %d %d %d", d.steps,
          d.mode, d.self_collision);
    CHECK(d.nmeshes == 2 && d.meshes[0].kind == CLASH_MESH_BOX && d.meshes[0].scale == 1.0 &&
              d.meshes[0].center == 0 && d.meshes[0].path == NULL,
          "box mesh");
    CHECK(d.nmeshes == 2 && d.meshes[1].kind == CLASH_MESH_SPHERE && d.meshes[1].sphere_faces == 8 &&
              d.meshes[1].scale == 2.0,
          "sphere 8 with scale");
    CHECK(d.nobjects == 2 && d.objects[0].mesh == 0 && d.objects[1].mesh == 1, "object meshes");
    if (d.nobjects == 2) {
        const clash_object_desc *o = &d.objects[0];
        CHECK(o->scale == 1.0 && vec_eq(o->position, 0, 0, 0) && vec_eq(o->rotation_deg, 0, 0, 0) &&
                  vec_eq(o->velocity, 0, 0, 0) && vec_eq(o->angular_velocity_deg, 0, 0, 0),
              "object defaults");
    }
    clash_scene_desc_free(&d);

    /* Static mode, self-collision, integral steps written as 1e3. */
    rc = clash_scene_desc_parse_string(
        "{\"format\": \"clash-scene/1\", \"name\": \"n\", \"steps\": 1e3, \"mode\": \"static\","
        " \"self_collision\": true, \"meshes\": {\"b\": {\"box\": {}}}, \"objects\": [{\"mesh\": \"b\","
        " \"scale\": 0.5, \"rotation_deg\": [90, -45, 1e2]}]}",
        NULL, "s.json", &d, &err);
    CHECK(rc == CLASH_OK, "static: %s", err.msg);
    CHECK(d.steps == 1000 && d.mode == CLASH_MODE_STATIC && d.self_collision == 1, "static fields");
    CHECK(str_eq(d.name, "n"), "explicit name");
    CHECK(d.nobjects == 1 && d.objects[0].scale == 0.5 && vec_eq(d.objects[0].rotation_deg, 90, -45, 100),
          "rotation");
    clash_scene_desc_free(&d);

    /* A deforming scene. */
    rc = clash_scene_desc_parse_string(
        "{\"format\": \"clash-scene/1\", \"steps\": 2,"
        " \"frames\": {\"files\": [\"f/f0.ply\", \"/abs/f1.ply\", \"f2.ply\"], \"objects\": \"single\"}}",
        "/scenes", "/scenes/cloth.json", &d, &err);
    CHECK(rc == CLASH_OK, "frames: %s", err.msg);
    CHECK(str_eq(d.name, "cloth"), "frames name %s", d.name ? d.name : "(null)");
    CHECK(d.nframes == 3, "nframes %d", d.nframes);
    if (d.nframes == 3) {
        CHECK(str_eq(d.frame_files[0], "/scenes/f/f0.ply"), "frame 0 %s", d.frame_files[0]);
        CHECK(str_eq(d.frame_files[1], "/abs/f1.ply"), "frame 1 %s", d.frame_files[1]);
        CHECK(str_eq(d.frame_files[2], "/scenes/f2.ply"), "frame 2 %s", d.frame_files[2]);
    }
    CHECK(d.frames_objects == CLASH_FRAMES_SINGLE, "frames objects %d", d.frames_objects);
    CHECK(d.nmeshes == 0 && d.nobjects == 0 && !d.meshes && !d.objects, "no meshes with frames");
    clash_scene_desc_free(&d);

    rc = clash_scene_desc_parse_string(
        "{\"format\": \"clash-scene/1\", \"frames\": {\"files\": [\"a.off\", \"b.off\"]}}", "", "x.json", &d, &err);
    CHECK(rc == CLASH_OK, "frames default: %s", err.msg);
    CHECK(d.frames_objects == CLASH_FRAMES_COMPONENTS && d.nframes == 2 && str_eq(d.frame_files[0], "a.off"),
          "frames defaults");
    clash_scene_desc_free(&d);

    /* Every valid sphere count up to 3968 is accepted. */
    const int counts[] = {8, 24, 48, 80, 120, 168, 224, 288, 360, 440, 528, 728, 960, 3968};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
        char json[256];
        snprintf(json, sizeof json,
                 "{\"format\": \"clash-scene/1\", \"meshes\": {\"s\": {\"sphere\": {\"faces\": %d}}},"
                 " \"objects\": [{\"mesh\": \"s\"}]}",
                 counts[i]);
        rc = clash_scene_desc_parse_string(json, NULL, "c.json", &d, &err);
        CHECK(rc == CLASH_OK && d.meshes[0].sphere_faces == counts[i], "faces %d: %s", counts[i], err.msg);
        clash_scene_desc_free(&d);
    }
}

/* ---------------------------------------------------------------------------
 * Invalid scenes, from strings.
 */

#define HEAD "{\"format\": \"clash-scene/1\", "
#define MESHES "\"meshes\": {\"s\": {\"sphere\": {\"faces\": 168}}}"

/* Parses json (label "t.json"), expects CLASH_EINPUT with "t.json: " + want
 * in the message (want starts with the key path), and a zeroed *out. */
static void expect_err(int line, const char *json, const char *want)
{
    clash_scene_desc d;
    clash_error err = {0, ""};
    memset(&d, 0xab, sizeof d);
    int rc = clash_scene_desc_parse_string(json, "/base", "t.json", &d, &err);
    char full[1100];
    snprintf(full, sizeof full, "t.json%s%s", want[0] == ':' ? "" : ": ", want);
    CHECK(rc == CLASH_EINPUT, "line %d: rc %d (msg \"%s\")", line, rc, err.msg);
    CHECK(err.code == CLASH_EINPUT, "line %d: err.code %d", line, err.code);
    CHECK(strstr(err.msg, full) != NULL, "line %d: message \"%s\" lacks \"%s\"", line, err.msg, full);
    CHECK(desc_is_zero(&d), "line %d: *out not zeroed on error", line);
    if (rc == CLASH_OK) clash_scene_desc_free(&d);
}
#define EXPECT_ERR(json, want) expect_err(__LINE__, json, want)

static void test_invalid(void)
{
    /* format */
    EXPECT_ERR("{\"format\": \"clash-scene/2\", " MESHES ", \"objects\": [{\"mesh\": \"s\"}]}",
               "format: unsupported format \"clash-scene/2\"");
    EXPECT_ERR("{" MESHES ", \"objects\": [{\"mesh\": \"s\"}]}", "format: missing");
    EXPECT_ERR("{\"format\": 1, " MESHES ", \"objects\": [{\"mesh\": \"s\"}]}", "format: expected");
    EXPECT_ERR("[1, 2]", "expected a JSON object at the top level");
    /* unknown keys, at every level */
    EXPECT_ERR(HEAD "\"stpes\": 3, " MESHES ", \"objects\": [{\"mesh\": \"s\"}]}",
               "stpes: unknown key (known: format, name, steps, mode, self_collision, meshes, objects, frames); "
               "did you mean 'steps'?");
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\"}, {\"mesh\": \"s\", \"postion\": [1, 2, 3]}]}",
               "objects[1].postion: unknown key (known: mesh, scale, position, rotation_deg, velocity, "
               "angular_velocity_deg); did you mean 'position'?");
    /* a known key's beginning: the one key it begins */
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\", \"angular_velocity\": [0, 0, 1]}]}",
               "objects[0].angular_velocity: unknown key (known: mesh, scale, position, rotation_deg, velocity, "
               "angular_velocity_deg); did you mean 'angular_velocity_deg'?");
    EXPECT_ERR(HEAD "\"meshes\": {\"ball\": {\"flie\": \"b.obj\"}}, \"objects\": [{\"mesh\": \"ball\"}]}",
               "meshes.ball.flie: unknown key (known: file, sphere, box, scale, center); did you mean 'file'?");
    EXPECT_ERR(HEAD "\"meshes\": {\"s\": {\"sphere\": {\"faces\": 168, \"k\": 7}}}, \"objects\": [{\"mesh\": \"s\"}]}",
               "meshes.s.sphere.k: unknown key (known: faces)");
    EXPECT_ERR(HEAD "\"meshes\": {\"b\": {\"box\": {\"size\": 2}}}, \"objects\": [{\"mesh\": \"b\"}]}",
               "meshes.b.box.size: unknown key (known: none, the object must be empty)");
    EXPECT_ERR(HEAD "\"frames\": {\"files\": [\"a.ply\", \"b.ply\"], \"fps\": 30}}",
               "frames.fps: unknown key (known: files, objects)");
    EXPECT_ERR(HEAD "\"steps\": 2, \"steps\": 3, " MESHES ", \"objects\": [{\"mesh\": \"s\"}]}",
               "steps: duplicate key");
    /* vectors and numbers */
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\"}, {\"mesh\": \"s\", \"position\": [1, 2]}]}",
               "objects[1].position: expected an array of 3 numbers");
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\", \"velocity\": [1, \"2\", 3]}]}",
               "objects[0].velocity: expected an array of 3 numbers");
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\", \"scale\": \"big\"}]}",
               "objects[0].scale: expected a positive number");
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\", \"scale\": -1.9}]}",
               "objects[0].scale: expected a positive number");
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\", \"scale\": 0}]}",
               "objects[0].scale: expected a positive number");
    EXPECT_ERR(HEAD "\"meshes\": {\"s\": {\"sphere\": {\"faces\": 168}, \"scale\": -2}}, \"objects\": [{\"mesh\": \"s\"}]}",
               "meshes.s.scale: expected a positive number");
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\", \"position\": [1e999, 0, 0]}]}",
               "objects[0].position[0]: number out of range");
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\", \"scale\": 1e999}]}",
               "objects[0].scale: number out of range");
    /* inside float range, where the store keeps the scene */
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\", \"position\": [1e39, 0, 0]}]}",
               "objects[0].position[0]: 1e+39 is out of range (at most 3e+38 in magnitude");
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\", \"velocity\": [0, 0, 1e308]}]}",
               "objects[0].velocity[2]: 1e+308 is out of range");
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\", \"angular_velocity_deg\": [0, -4e38, 0]}]}",
               "objects[0].angular_velocity_deg[1]: -4e+38 is out of range");
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\", \"scale\": 1e39}]}",
               "objects[0].scale: 1e+39 is out of range");
    EXPECT_ERR(HEAD "\"meshes\": {\"s\": {\"box\": {}, \"scale\": 5e38}}, \"objects\": [{\"mesh\": \"s\"}]}",
               "meshes.s.scale: 5e+38 is out of range");
    EXPECT_ERR(HEAD "\"steps\": 1e999, " MESHES ", \"objects\": [{\"mesh\": \"s\"}]}",
               "steps: expected an integer >= 1");
    /* meshes and references */
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\"}, {\"mesh\": \"ball\"}]}",
               "objects[1].mesh: no mesh named \"ball\"");
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"scale\": 2}]}", "objects[0].mesh: missing");
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": 3}]}", "objects[0].mesh: expected a string");
    EXPECT_ERR(HEAD "\"meshes\": {\"s170\": {\"sphere\": {\"faces\": 170}}}, \"objects\": [{\"mesh\": \"s170\"}]}",
               "meshes.s170.sphere.faces: 170 is not a UV-sphere face count (4k(k-1)); nearest: 168 (k=7), 224 (k=8)");
    EXPECT_ERR(HEAD "\"meshes\": {\"s\": {\"sphere\": {\"faces\": 5}}}, \"objects\": [{\"mesh\": \"s\"}]}",
               "meshes.s.sphere.faces: 5 is not a UV-sphere face count (4k(k-1)); nearest: 8 (k=2)");
    EXPECT_ERR(HEAD "\"meshes\": {\"s\": {\"sphere\": {\"faces\": 9}}}, \"objects\": [{\"mesh\": \"s\"}]}",
               "meshes.s.sphere.faces: 9 is not a UV-sphere face count (4k(k-1)); nearest: 8 (k=2), 24 (k=3)");
    EXPECT_ERR(HEAD "\"meshes\": {\"s\": {\"sphere\": {\"faces\": 168.5}}}, \"objects\": [{\"mesh\": \"s\"}]}",
               "meshes.s.sphere.faces: expected an integer");
    EXPECT_ERR(HEAD "\"meshes\": {\"s\": {\"sphere\": {}}}, \"objects\": [{\"mesh\": \"s\"}]}",
               "meshes.s.sphere.faces: missing");
    EXPECT_ERR(HEAD "\"meshes\": {\"s\": {\"sphere\": {\"faces\": 8}, \"box\": {}}}, \"objects\": [{\"mesh\": \"s\"}]}",
               "meshes.s: expected exactly one of");
    EXPECT_ERR(HEAD "\"meshes\": {\"s\": {\"scale\": 2}}, \"objects\": [{\"mesh\": \"s\"}]}",
               "meshes.s: expected exactly one of");
    EXPECT_ERR(HEAD "\"meshes\": {\"f\": {\"file\": \"\"}}, \"objects\": [{\"mesh\": \"f\"}]}",
               "meshes.f.file: expected a non-empty string");
    EXPECT_ERR(HEAD "\"meshes\": {\"f\": {\"file\": \"a.obj\", \"center\": 1}}, \"objects\": [{\"mesh\": \"f\"}]}",
               "meshes.f.center: expected true or false");
    EXPECT_ERR(HEAD "\"meshes\": [], \"objects\": [{\"mesh\": \"f\"}]}", "meshes: expected an object");
    EXPECT_ERR(HEAD "\"meshes\": {\"a\": {\"box\": {}}, \"a\": {\"box\": {}}}, \"objects\": [{\"mesh\": \"a\"}]}",
               "meshes.a: duplicate key");
    /* top-level scalars */
    EXPECT_ERR(HEAD "\"steps\": 0, " MESHES ", \"objects\": [{\"mesh\": \"s\"}]}", "steps: expected an integer >= 1");
    EXPECT_ERR(HEAD "\"steps\": 1.5, " MESHES ", \"objects\": [{\"mesh\": \"s\"}]}", "steps: expected an integer >= 1");
    EXPECT_ERR(HEAD "\"steps\": \"10\", " MESHES ", \"objects\": [{\"mesh\": \"s\"}]}", "steps: expected an integer");
    EXPECT_ERR(HEAD "\"steps\": 3e9, " MESHES ", \"objects\": [{\"mesh\": \"s\"}]}", "steps: expected an integer");
    EXPECT_ERR(HEAD "\"mode\": \"fast\", " MESHES ", \"objects\": [{\"mesh\": \"s\"}]}",
               "mode: expected \"static\" or \"swept\"");
    EXPECT_ERR(HEAD "\"self_collision\": \"yes\", " MESHES ", \"objects\": [{\"mesh\": \"s\"}]}",
               "self_collision: expected true or false");
    EXPECT_ERR(HEAD "\"name\": \"\", " MESHES ", \"objects\": [{\"mesh\": \"s\"}]}", "name: expected a non-empty string");
    /* objects */
    EXPECT_ERR(HEAD MESHES ", \"objects\": []}", "objects: expected at least one object");
    EXPECT_ERR(HEAD MESHES ", \"objects\": {\"mesh\": \"s\"}}", "objects: expected an array");
    EXPECT_ERR(HEAD MESHES ", \"objects\": [{\"mesh\": \"s\"}, 7]}", "objects[1]: expected an object");
    EXPECT_ERR(HEAD MESHES "}", "objects: missing");
    EXPECT_ERR(HEAD "\"objects\": [{\"mesh\": \"s\"}]}", "meshes: missing");
    EXPECT_ERR(HEAD "\"steps\": 3}", "expected \"meshes\" and \"objects\"");
    /* frames */
    EXPECT_ERR(HEAD "\"frames\": {\"files\": [\"a.ply\"]}}", "frames.files: expected an array of at least 2 paths");
    EXPECT_ERR(HEAD "\"frames\": {\"files\": [\"a.ply\", 2]}}", "frames.files[1]: expected a string");
    EXPECT_ERR(HEAD "\"frames\": {\"objects\": \"single\"}}", "frames.files: missing");
    EXPECT_ERR(HEAD "\"frames\": {\"files\": [\"a.ply\", \"b.ply\"], \"objects\": \"all\"}}",
               "frames.objects: expected \"components\" or \"single\"");
    EXPECT_ERR(HEAD "\"frames\": {\"files\": [\"a.ply\", \"b.ply\"]}, \"objects\": [{\"mesh\": \"s\"}]}",
               "objects: not allowed together with \"frames\"");
    EXPECT_ERR(HEAD "\"frames\": {\"files\": [\"a.ply\", \"b.ply\"]}, " MESHES "}",
               "meshes: not allowed together with \"frames\"");
    /* syntax: line and column of where the parser stopped */
    EXPECT_ERR("{\n  \"format\": \"clash-scene/1\",\n  \"steps\": 3,,\n}", ":3:");
    EXPECT_ERR("{\n  \"format\": \"clash-scene/1\",\n  \"steps\": 3,,\n}", ":3:15: JSON syntax error after '\"steps\": 3,,'");
    EXPECT_ERR("{\"format\": \"clash-scene/1\"} trailing", ":1:29: JSON syntax error near 'trailing'");
    EXPECT_ERR("{\"format\": \"clash-scene/1\",\n \"steps\": [1, 2", ":2:");
    EXPECT_ERR("", ":1:1: JSON syntax error");
    EXPECT_ERR("{\"format\": \"clash-scene/1\",\n\n   \"mode\": swept}", ":3:12: JSON syntax error");
}

/* ---------------------------------------------------------------------------
 * Files on disk.
 */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static void test_files(void)
{
    char tmpl[] = "/tmp/clash_test_scene_XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(dir != NULL, "mkdtemp");
    if (!dir) return;
    char sub[600], good[700], bad[700], syn[700], big[700], path[800], cwd[4096];
    snprintf(sub, sizeof sub, "%s/scenes", dir);
    CHECK(mkdir(sub, 0700) == 0, "mkdir %s", sub);
    snprintf(good, sizeof good, "%s/two.json", sub);
    snprintf(bad, sizeof bad, "%s/a.json", sub);
    snprintf(syn, sizeof syn, "%s/syn.json", sub);
    snprintf(big, sizeof big, "%s/big.json", sub);
    write_file(good, contract_example);
    write_file(bad, HEAD MESHES ",\n \"objects\": [{\"mesh\": \"s\"},\n  {\"mesh\": \"s\", \"velocity\": [1, 2, 3, 4]}]}\n");
    write_file(syn, "{\n  \"format\": \"clash-scene/1\",\n  \"objects\": [\n    {\"mesh\": \"s\" \"scale\": 2}\n  ]\n}\n");

    clash_scene_desc d;
    clash_error err = {0, ""};

    /* The contract example from a file: paths joined to the file's folder. */
    int rc = clash_scene_desc_parse_file(good, &d, &err);
    CHECK(rc == CLASH_OK, "file: %s", err.msg);
    check_contract_example(&d, sub);
    clash_scene_desc_free(&d);

    /* Error label is the path as given. */
    rc = clash_scene_desc_parse_file(bad, &d, &err);
    snprintf(path, sizeof path, "%s: objects[1].velocity: expected an array of 3 numbers", bad);
    CHECK(rc == CLASH_EINPUT && strcmp(err.msg, path) == 0, "file error \"%s\", want \"%s\"", err.msg, path);
    CHECK(desc_is_zero(&d), "file error leaves *out zeroed");

    rc = clash_scene_desc_parse_file(syn, &d, &err);
    snprintf(path, sizeof path, "%s:4:", syn);
    CHECK(rc == CLASH_EINPUT && strncmp(err.msg, path, strlen(path)) == 0 && strstr(err.msg, "syntax"),
          "syntax error in file: \"%s\"", err.msg);

    /* Relative scene paths: the label stays relative, and so do the mesh
     * paths, joined to the scene's folder as written. */
    CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    CHECK(chdir(dir) == 0, "chdir %s", dir);
    rc = clash_scene_desc_parse_file("scenes/two.json", &d, &err);
    CHECK(rc == CLASH_OK, "relative file: %s", err.msg);
    check_contract_example(&d, "scenes");
    clash_scene_desc_free(&d);
    rc = clash_scene_desc_parse_file("scenes/a.json", &d, &err);
    CHECK(rc == CLASH_EINPUT && strcmp(err.msg, "scenes/a.json: objects[1].velocity: expected an array of 3 numbers") == 0,
          "relative label: \"%s\"", err.msg);
    CHECK(chdir(sub) == 0, "chdir %s", sub);
    rc = clash_scene_desc_parse_file("two.json", &d, &err);
    CHECK(rc == CLASH_OK, "bare file name: %s", err.msg);
    check_contract_example(&d, "");
    clash_scene_desc_free(&d);

    /* Default name from the file name; frames resolved against the folder. */
    write_file("deform.json", HEAD "\"frames\": {\"files\": [\"f0.off\", \"sub/f1.off\"]}}");
    rc = clash_scene_desc_parse_file("./deform.json", &d, &err);
    CHECK(rc == CLASH_OK, "frames file: %s", err.msg);
    CHECK(str_eq(d.name, "deform"), "name from file: %s", d.name ? d.name : "(null)");
    CHECK(d.nframes == 2 && str_eq(d.frame_files[0], "./f0.off") && str_eq(d.frame_files[1], "./sub/f1.off"),
          "frames joined: %s", d.nframes ? d.frame_files[0] : "");
    clash_scene_desc_free(&d);
    CHECK(chdir(cwd) == 0, "chdir back");

    /* Missing file, a folder, a file over the size limit. */
    snprintf(path, sizeof path, "%s/nope.json", sub);
    rc = clash_scene_desc_parse_file(path, &d, &err);
    CHECK(rc == CLASH_EINPUT && strstr(err.msg, "nope.json: cannot open: ") != NULL, "missing file: \"%s\"", err.msg);
    CHECK(desc_is_zero(&d), "missing file leaves *out zeroed");
    rc = clash_scene_desc_parse_file(sub, &d, &err);
    CHECK(rc == CLASH_EINPUT && strstr(err.msg, "cannot") != NULL, "folder: \"%s\"", err.msg);
    FILE *f = fopen(big, "wb");
    if (f) {
        fclose(f);
        CHECK(truncate(big, (off_t)65 << 20) == 0, "truncate");
        rc = clash_scene_desc_parse_file(big, &d, &err);
        CHECK(rc == CLASH_EINPUT && strstr(err.msg, "too large") != NULL, "big file: \"%s\"", err.msg);
        remove(big);
    }
    /* A NUL byte inside the file. */
    f = fopen(big, "wb");
    if (f) {
        static const char nul[] = "{\"format\": \"clash-scene/1\",\n \"a\0\": 1}";
        fwrite(nul, 1, sizeof nul - 1, f);
        fclose(f);
        rc = clash_scene_desc_parse_file(big, &d, &err);
        CHECK(rc == CLASH_EINPUT && strstr(err.msg, ":2:4: NUL byte") != NULL, "NUL byte: \"%s\"", err.msg);
        remove(big);
    }

    remove(good);
    remove(bad);
    remove(syn);
    snprintf(path, sizeof path, "%s/deform.json", sub);
    remove(path);
    rmdir(sub);
    rmdir(dir);
}

/* Laws of motion whose positions would leave float range over the scene's
 * steps are refused when the scene is loaded, naming the file and object
 * (and nothing is built); the same law over fewer steps loads. */
static void test_laws(void)
{
    char tmpl[] = "/tmp/clash_test_laws_XXXXXX";
    char *dir = mkdtemp(tmpl);
    CHECK(dir != NULL, "mkdtemp");
    if (!dir) return;
    char path[700], want[900];
    snprintf(path, sizeof path, "%s/fly.json", dir);
    static const char *const cases[][3] = {
        /* steps, the object, what the message says */
        {"3", "\"position\": [0, 0, 1e38], \"velocity\": [0, 0, 1e38]", "objects[1]: z reaches 4e+38 at step 3"},
        {"2", "\"position\": [0, 0, 1e38], \"velocity\": [0, 0, 1e38]", NULL},
        {"3", "\"position\": [-2e38, 0, 0], \"velocity\": [1e38, 0, 0]", NULL}, /* |x| shrinks, then grows */
        {"6", "\"position\": [-2e38, 0, 0], \"velocity\": [1e38, 0, 0]", "objects[1]: x reaches 4e+38 at step 6"},
        /* the object's extent counts: scale x the box's radius (sqrt(3)/2) */
        {"1", "\"position\": [0, 2e38, 0], \"scale\": 1.5e38", "objects[1]: y reaches 3.29904e+38 at step 0"},
        {"1", "\"position\": [0, 1e38, 0], \"scale\": 1.5e38", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char json[600];
        snprintf(json, sizeof json, HEAD "\"steps\": %s, \"meshes\": {\"b\": {\"box\": {}}}, "
                 "\"objects\": [{\"mesh\": \"b\"}, {\"mesh\": \"b\", %s}]}", cases[i][0], cases[i][1]);
        write_file(path, json);
        clash_scene *sc = (clash_scene *)1;
        clash_error err = {0, ""};
        const int rc = clash_scene_load(path, &sc, &err);
        if (!cases[i][2]) {
            CHECK(rc == CLASH_OK && sc, "case %zu: %s", i, err.msg);
            if (rc) continue;
            if (i == 1) { /* the scene's 2 steps load; a run's step 3 is refused, by the law's object */
                clash_config cfg = clash_config_default();
                clash_run *run = clash_run_create(sc, &cfg, &err);
                clash_pairs p;
                CHECK(run && clash_step(run, 2, &p, NULL, &err) == CLASH_OK, "step 2: %s", err.msg);
                CHECK(run && clash_step(run, 3, &p, NULL, &err) == CLASH_EINPUT && p.count == 0 &&
                          strstr(err.msg, "fly: object 1: z reaches 4e+38 at step 3"),
                      "step 3: \"%s\"", err.msg);
                cfg.steps = 3;
                clash_run *r3 = clash_run_create(sc, &cfg, &err);
                CHECK(!r3 && strstr(err.msg, "fly: object 1: z reaches 4e+38 at step 3"), "a run of 3 steps: \"%s\"",
                      err.msg);
                clash_run_destroy(r3);
                clash_run_destroy(run);
            }
            clash_scene_destroy(sc);
            continue;
        }
        snprintf(want, sizeof want, "%s: %s", path, cases[i][2]);
        CHECK(rc == CLASH_EINPUT && !sc, "case %zu: rc %d", i, rc);
        CHECK(strncmp(err.msg, want, strlen(want)) == 0 && strstr(err.msg, "out of float range"),
              "case %zu: \"%s\", want \"%s...\"", i, err.msg, want);
        if (!rc) clash_scene_destroy(sc);
    }
    remove(path);
    rmdir(dir);
}

int main(void)
{
    test_laws();
    test_valid();
    test_invalid();
    test_files();
    return check_finish("test_scene_json");
}
