/* api_equiv.c — issue 14's acceptance program, built against an INSTALLED
 * clash with nothing but <clash/clash.h> and `pkg-config --cflags --libs
 * clash`: a host's scene from arrays gives the same pairs as `clash run` on
 * the equivalent scene file.
 *
 *   api_equiv CLASH MESH TMPDIR [FRAME0.ply FRAME1.ply]
 *
 *  1. Rigid: MESH (a mesh nobody here made) read with clash_mesh_read, added
 *     twice; the second copy is moved for 8 steps by clash_run_set_pose, the
 *     first is never set (it must stay).  The poses follow the scene-file
 *     pose formula (README "Scene files"), computed here the same way, and
 *     TMPDIR/rigid.json holds exactly that law, so `CLASH run rigid.json
 *     --pairs` must write the rows this program collects:
 *       static mode: position, rotation, velocity and spin;
 *       swept mode:  position, rotation and velocity (no spin: a turning
 *                    object's swept volume depends on the motion between
 *                    the states, which a file law and two poses define
 *                    differently; README "Motion between states").
 *  2. Deforming (with the two frames): one deforming object in FRAME0, moved
 *     to FRAME1 by clash_run_set_vertices, against a "frames" scene file
 *     with self-collision, static and swept.
 * Prints one line per comparison and exits 0 when all are equal and some
 * pairs were found; 1 otherwise.
 */
#include <clash/clash.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct row {
    unsigned step, oa, fa, ob, fb;
} row;
typedef struct rows {
    row *r;
    size_t n, cap;
} rows;

static void push(rows *t, row x)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        t->r = realloc(t->r, t->cap * sizeof *t->r);
        if (!t->r) exit(1);
    }
    t->r[t->n++] = x;
}

static void add_pairs(rows *t, unsigned step, const clash_pairs *p)
{
    for (size_t i = 0; i < p->count; ++i)
        push(t, (row){step, p->pairs[i].obj_a, p->pairs[i].face_a, p->pairs[i].obj_b, p->pairs[i].face_b});
}

/* The pairs CSV written by `clash run --pairs` (sorted, as the API's). */
static int read_csv(const char *path, rows *t)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[256];
    if (!fgets(line, sizeof line, f) || strncmp(line, "step,obj_a,face_a,obj_b,face_b", 30)) {
        fclose(f);
        return -1;
    }
    row x;
    while (fscanf(f, "%u,%u,%u,%u,%u", &x.step, &x.oa, &x.fa, &x.ob, &x.fb) == 5) push(t, x);
    fclose(f);
    return 0;
}

static int same(const rows *a, const rows *b)
{
    return a->n == b->n && (a->n == 0 || !memcmp(a->r, b->r, a->n * sizeof *a->r));
}

static int run_cli(const char *clash, const char *scene, const char *args, const char *csv)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' run '%s' %s --pairs '%s' --quiet", clash, scene, args, csv);
    return system(cmd);
}

/* The scene-file pose at state s: R = Rz(c) Ry(b) Rx(a) with the angles
 * rotation_deg + s * angular_velocity_deg, t = position + s * velocity. */
typedef struct law {
    double position[3], rotation_deg[3], velocity[3], spin_deg[3];
} law;

static void pose_at(const law *L, int s, double R[9], double t[3])
{
    const double deg = 3.14159265358979323846 / 180.0;
    const double a = (L->rotation_deg[0] + s * L->spin_deg[0]) * deg;
    const double b = (L->rotation_deg[1] + s * L->spin_deg[1]) * deg;
    const double c = (L->rotation_deg[2] + s * L->spin_deg[2]) * deg;
    const double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cc = cos(c), sc = sin(c);
    R[0] = cc * cb, R[1] = cc * sb * sa - sc * ca, R[2] = cc * sb * ca + sc * sa;
    R[3] = sc * cb, R[4] = sc * sb * sa + cc * ca, R[5] = sc * sb * ca - cc * sa;
    R[6] = -sb, R[7] = cb * sa, R[8] = cb * ca;
    for (int d = 0; d < 3; ++d) t[d] = L->position[d] + s * L->velocity[d];
}

enum { STEPS = 8 };

static int rigid(const char *clash, const char *mesh_path, const char *dir, int swept)
{
    law L = {{0.9, 0.15, 0.05}, {10, 20, 30}, {-0.12, 0.01, 0.0}, {2, 4, 6}};
    if (swept) memset(L.spin_deg, 0, sizeof L.spin_deg);
    char scene[1024], csv[1024], json[4096];
    snprintf(scene, sizeof scene, "%s/rigid_%d.json", dir, swept);
    snprintf(csv, sizeof csv, "%s/rigid_%d.csv", dir, swept);
    snprintf(json, sizeof json,
             "{\"format\": \"clash-scene/1\", \"name\": \"rigid\", \"steps\": %d,\n"
             " \"meshes\": {\"m\": {\"file\": \"%s\"}},\n"
             " \"objects\": [{\"mesh\": \"m\"},\n"
             "  {\"mesh\": \"m\", \"position\": [%.17g, %.17g, %.17g], \"rotation_deg\": [%.17g, %.17g, %.17g],\n"
             "   \"velocity\": [%.17g, %.17g, %.17g], \"angular_velocity_deg\": [%.17g, %.17g, %.17g]}]}\n",
             STEPS, mesh_path, L.position[0], L.position[1], L.position[2], L.rotation_deg[0], L.rotation_deg[1],
             L.rotation_deg[2], L.velocity[0], L.velocity[1], L.velocity[2], L.spin_deg[0], L.spin_deg[1],
             L.spin_deg[2]);
    FILE *f = fopen(scene, "w");
    if (!f || fputs(json, f) < 0 || fclose(f)) return fprintf(stderr, "api_equiv: cannot write %s\n", scene), 1;
    rows file = {0}, api = {0};
    if (run_cli(clash, scene, swept ? "--mode swept" : "--mode static", csv) || read_csv(csv, &file))
        return fprintf(stderr, "api_equiv: clash run %s failed\n", scene), 1;

    clash_error err;
    clash_mesh_arrays m;
    clash_scene *sc = NULL;
    if (clash_mesh_read(mesh_path, &m, &err) || clash_scene_create(&sc, &err))
        return fprintf(stderr, "api_equiv: %s\n", err.msg), 1;
    double R[9], t[3];
    pose_at(&L, 0, R, t);
    const int mesh = clash_scene_add_mesh(sc, m.xyz, m.nv, m.tri, m.nf, &err);
    const int a = mesh < 0 ? mesh : clash_scene_add_object(sc, mesh, NULL, NULL, 0, &err);
    const int b = a < 0 ? a : clash_scene_add_object(sc, mesh, R, t, 0, &err);
    clash_mesh_arrays_free(&m);
    if (b < 0) return fprintf(stderr, "api_equiv: %s\n", err.msg), 1;
    clash_config cfg = clash_config_default();
    cfg.mode = swept ? CLASH_MODE_SWEPT : CLASH_MODE_STATIC;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    if (!run) return fprintf(stderr, "api_equiv: %s\n", err.msg), 1;
    for (int s = 1; s <= STEPS; ++s) {
        clash_pairs p;
        pose_at(&L, s, R, t);
        if (clash_run_set_pose(run, b, R, t, &err) || clash_run_advance(run, &p, NULL, &err))
            return fprintf(stderr, "api_equiv: step %d: %s\n", s, err.msg), 1;
        add_pairs(&api, (unsigned)s, &p);
    }
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    const int ok = file.n > 0 && same(&api, &file);
    printf("api_equiv: rigid, %s: %zu pairs from poses, %zu from the scene file: %s\n", swept ? "swept" : "static",
           api.n, file.n, ok ? "equal" : "DIFFERENT");
    free(api.r), free(file.r);
    return !ok;
}

static int deforming(const char *clash, const char *f0, const char *f1, const char *dir, int swept)
{
    char scene[1024], csv[1024], json[4096];
    snprintf(scene, sizeof scene, "%s/frames.json", dir);
    snprintf(csv, sizeof csv, "%s/frames_%d.csv", dir, swept);
    snprintf(json, sizeof json,
             "{\"format\": \"clash-scene/1\", \"name\": \"frames\", \"steps\": 1, \"self_collision\": true,\n"
             " \"frames\": {\"files\": [\"%s\", \"%s\"], \"objects\": \"single\"}}\n", f0, f1);
    FILE *f = fopen(scene, "w");
    if (!f || fputs(json, f) < 0 || fclose(f)) return fprintf(stderr, "api_equiv: cannot write %s\n", scene), 1;
    rows file = {0}, api = {0};
    if (run_cli(clash, scene, swept ? "--mode swept --self" : "--mode static --self", csv) || read_csv(csv, &file))
        return fprintf(stderr, "api_equiv: clash run %s failed\n", scene), 1;

    clash_error err;
    clash_mesh_arrays m0, m1;
    clash_scene *sc = NULL;
    if (clash_mesh_read(f0, &m0, &err) || clash_mesh_read(f1, &m1, &err) || clash_scene_create(&sc, &err))
        return fprintf(stderr, "api_equiv: %s\n", err.msg), 1;
    const int mesh = clash_scene_add_mesh(sc, m0.xyz, m0.nv, m0.tri, m0.nf, &err);
    const int o = mesh < 0 ? mesh : clash_scene_add_object(sc, mesh, NULL, NULL, 1, &err);
    if (o < 0) return fprintf(stderr, "api_equiv: %s\n", err.msg), 1;
    clash_config cfg = clash_config_default();
    cfg.mode = swept ? CLASH_MODE_SWEPT : CLASH_MODE_STATIC;
    cfg.self_collision = 1;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    clash_pairs p;
    if (!run || clash_run_set_vertices(run, o, m1.xyz, &err) || clash_run_advance(run, &p, NULL, &err))
        return fprintf(stderr, "api_equiv: deforming: %s\n", err.msg), 1;
    add_pairs(&api, 1, &p);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    clash_mesh_arrays_free(&m0), clash_mesh_arrays_free(&m1);
    const int ok = file.n > 0 && same(&api, &file);
    printf("api_equiv: deforming, %s: %zu pairs from set_vertices, %zu from the frames scene: %s\n",
           swept ? "swept" : "static", api.n, file.n, ok ? "equal" : "DIFFERENT");
    free(api.r), free(file.r);
    return !ok;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 6) {
        fprintf(stderr, "usage: api_equiv CLASH MESH TMPDIR [FRAME0.ply FRAME1.ply]\n");
        return 2;
    }
    int bad = 0;
    for (int swept = 0; swept < 2; ++swept) bad |= rigid(argv[1], argv[2], argv[3], swept);
    if (argc == 6)
        for (int swept = 0; swept < 2; ++swept) bad |= deforming(argv[1], argv[4], argv[5], argv[3], swept);
    return bad;
}
