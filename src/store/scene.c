/*
 * scene.c — the scene store (scene.h): its allocation and growth, its life
 * and its public accessors.  Objects enter it through scene_add.c (from
 * memory, and from scene files through io/scene_build.c); their motion is
 * motion.c's.
 *
 * Growth.  The per-vertex and per-face arrays are 64-byte aligned and padded
 * (base/mem.h); clash_store_reserve grows them to a capacity (doubling when
 * objects come one by one, exact when the builder knows the totals) by
 * allocating the new arrays first and moving the contents only when all of
 * them exist, so a failed growth leaves the scene as it was.
 */
#include "store/scene.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

void clash_scene_destroy(clash_scene *sc)
{
    if (!sc) return;
    free(sc->name);
    free(sc->vofs), free(sc->fofs);
    free(sc->x), free(sc->y), free(sc->z), free(sc->px), free(sc->py), free(sc->pz);
    free(sc->lx), free(sc->ly), free(sc->lz), free(sc->nx), free(sc->ny), free(sc->nz);
    free(sc->dx), free(sc->dy), free(sc->dz), free(sc->dpx), free(sc->dpy), free(sc->dpz);
    free(sc->dlx), free(sc->dly), free(sc->dlz);
    free(sc->f0), free(sc->f1), free(sc->f2);
    free(sc->obj_mesh), free(sc->obj_deforming), free(sc->obj_scale), free(sc->pose0), free(sc->cur), free(sc->next),
         free(sc->prev);
    free(sc->next_kind), free(sc->law), free(sc->pose), free(sc->turn);
    for (int m = 0; m < sc->nmesh; ++m) free(sc->mesh[m].xyz), free(sc->mesh[m].tri);
    free(sc->mesh);
    free(sc->face_orig), free(sc->face_store), free(sc->vert_orig), free(sc->vert_store);
    clash_blocks_free(sc->blocks);
    if (sc->edge_tables_free) sc->edge_tables_free(sc->edge_tables);
    if (sc->frames)
        for (int k = 0; k < sc->nframes; ++k) free(sc->frames[k]);
    free(sc->frames);
    free(sc);
}

char *clash_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

clash_scene *clash_store_new(const char *name)
{
    clash_scene *sc = calloc(1, sizeof *sc);
    if (!sc) return NULL;
    sc->name = clash_strdup(name ? name : "scene");
    sc->vofs = calloc(1, sizeof(int64_t));
    sc->fofs = calloc(1, sizeof(int64_t));
    if (!sc->name || !sc->vofs || !sc->fofs) {
        clash_scene_destroy(sc);
        return NULL;
    }
    sc->steps = 1;
    sc->mode = CLASH_MODE_SWEPT;
    sc->state = -1;
    sc->law_step = -1;
    return sc;
}

int clash_scene_create(clash_scene **out, clash_error *err)
{
    *out = clash_store_new("scene");
    return *out ? CLASH_OK : clash_fail(err, CLASH_EFAIL, "out of memory creating a scene");
}

/* ---- growth ------------------------------------------------------------------------ */

/* A new aligned array of cap elements holding the first n of old (zero
 * beyond); NULL when out of memory. */
static void *grown(const void *old, size_t n, size_t cap, size_t sz)
{
    void *p = clash_aligned_calloc(cap, sz);
    if (p && old && n) memcpy(p, old, n * sz);
    return p;
}

static void *grown_plain(const void *old, size_t n, size_t cap, size_t sz)
{
    void *p = calloc(cap ? cap : 1, sz);
    if (p && old && n) memcpy(p, old, n * sz);
    return p;
}

/* The store's memory as allocated now (the report's memory_bytes). */
static size_t store_bytes(const clash_scene *sc)
{
    const size_t cv = (size_t)sc->cap_v, cf = (size_t)sc->cap_f, co = (size_t)sc->cap_obj;
    size_t b = 2 * (co + 1) * sizeof(int64_t);
    b += 9 * clash_padded_bytes(cv, sizeof(float)); /* the float copies */
    b += (size_t)(sc->has_deforming ? 12 : 9) * clash_padded_bytes(cv, sizeof(double)); /* the doubles */
    b += 3 * clash_padded_bytes(cf, sizeof(int32_t));
    b += co * (sizeof(int32_t) + 3 * sizeof(uint8_t) + sizeof(double) + 4 * sizeof(clash_xform) + sizeof(clash_turn));
    if (sc->pose) b += co * sizeof(clash_pose);
    for (int m = 0; m < sc->nmesh; ++m)
        b += 3 * (size_t)sc->mesh[m].nv * sizeof(double) + 3 * (size_t)sc->mesh[m].nf * sizeof(int32_t);
    if (sc->face_orig) b += 2 * (size_t)sc->nf * sizeof(uint32_t) + 2 * (size_t)sc->nv * sizeof(uint32_t);
    for (int k = 0; sc->frames && k < sc->nframes; ++k) /* the frames held (not all are in a decomposed part) */
        if (sc->frames[k]) b += clash_padded_bytes(3 * (size_t)sc->frames_nv, sizeof(double));
    return b;
}

void clash_store_recount(clash_scene *sc) { sc->memory_bytes = store_bytes(sc); }

static int grow_vertices(clash_scene *sc, int64_t cap)
{
    float **a[] = {&sc->x, &sc->y, &sc->z, &sc->px, &sc->py, &sc->pz, &sc->lx, &sc->ly, &sc->lz};
    double **b[] = {&sc->dx, &sc->dy, &sc->dz, &sc->dpx, &sc->dpy, &sc->dpz, &sc->dlx, &sc->dly, &sc->dlz,
                    &sc->nx, &sc->ny, &sc->nz};
    const int nb = sc->has_deforming ? 12 : 9;
    float *n[9] = {0};
    double *m[12] = {0};
    int ok = 1;
    for (int i = 0; i < 9 && ok; ++i) ok = (n[i] = grown(*a[i], (size_t)sc->nv, (size_t)cap, sizeof(float))) != NULL;
    for (int i = 0; i < nb && ok; ++i) ok = (m[i] = grown(*b[i], (size_t)sc->nv, (size_t)cap, sizeof(double))) != NULL;
    if (!ok) {
        for (int i = 0; i < 9; ++i) free(n[i]);
        for (int i = 0; i < nb; ++i) free(m[i]);
        return -1;
    }
    for (int i = 0; i < 9; ++i) free(*a[i]), *a[i] = n[i];
    for (int i = 0; i < nb; ++i) free(*b[i]), *b[i] = m[i];
    sc->cap_v = cap;
    return 0;
}

static int grow_faces(clash_scene *sc, int64_t cap)
{
    int32_t **a[] = {&sc->f0, &sc->f1, &sc->f2};
    int32_t *n[3] = {0};
    int ok = 1;
    for (int i = 0; i < 3 && ok; ++i) ok = (n[i] = grown(*a[i], (size_t)sc->nf, (size_t)cap, sizeof(int32_t))) != NULL;
    if (!ok) {
        for (int i = 0; i < 3; ++i) free(n[i]);
        return -1;
    }
    for (int i = 0; i < 3; ++i) free(*a[i]), *a[i] = n[i];
    sc->cap_f = cap;
    return 0;
}

static int grow_objects(clash_scene *sc, int cap)
{
    const size_t n = (size_t)sc->nobj, c = (size_t)cap;
    int64_t *vofs = grown_plain(sc->vofs, n + 1, c + 1, sizeof(int64_t));
    int64_t *fofs = grown_plain(sc->fofs, n + 1, c + 1, sizeof(int64_t));
    int32_t *mesh = grown_plain(sc->obj_mesh, n, c, sizeof(int32_t));
    uint8_t *def = grown_plain(sc->obj_deforming, n, c, 1);
    double *scale = grown_plain(sc->obj_scale, n, c, sizeof(double));
    clash_xform *pose0 = grown_plain(sc->pose0, n, c, sizeof(clash_xform));
    clash_xform *cur = grown_plain(sc->cur, n, c, sizeof(clash_xform));
    clash_xform *next = grown_plain(sc->next, n, c, sizeof(clash_xform));
    clash_xform *prev = grown_plain(sc->prev, n, c, sizeof(clash_xform));
    uint8_t *nk = grown_plain(sc->next_kind, n, c, 1);
    uint8_t *law = grown_plain(sc->law, n, c, 1);
    clash_turn *turn = grown_plain(sc->turn, n, c, sizeof(clash_turn));
    clash_pose *pose = sc->pose ? grown_plain(sc->pose, n, c, sizeof(clash_pose)) : NULL;
    if (!vofs || !fofs || !mesh || !def || !scale || !pose0 || !cur || !next || !prev || !nk || !law || !turn || (sc->pose && !pose)) {
        free(vofs), free(fofs), free(mesh), free(def), free(scale), free(pose0), free(cur), free(next), free(nk);
        free(prev), free(law), free(pose), free(turn);
        return -1;
    }
    free(sc->vofs), free(sc->fofs), free(sc->obj_mesh), free(sc->obj_deforming), free(sc->obj_scale);
    free(sc->pose0), free(sc->cur), free(sc->next), free(sc->next_kind), free(sc->law), free(sc->pose);
    free(sc->prev), free(sc->turn);
    sc->prev = prev, sc->turn = turn;
    sc->vofs = vofs, sc->fofs = fofs, sc->obj_mesh = mesh, sc->obj_deforming = def, sc->obj_scale = scale;
    sc->pose0 = pose0, sc->cur = cur, sc->next = next, sc->next_kind = nk, sc->law = law, sc->pose = pose;
    sc->cap_obj = cap;
    return 0;
}

int clash_store_reserve(clash_scene *sc, int nobj, int64_t nv, int64_t nf)
{
    if ((nobj > sc->cap_obj && grow_objects(sc, nobj)) || (nv > sc->cap_v && grow_vertices(sc, nv)) ||
        (nf > sc->cap_f && grow_faces(sc, nf)))
        return -1;
    sc->memory_bytes = store_bytes(sc);
    return 0;
}

/* ---- facts ------------------------------------------------------------------------- */

const char *clash_scene_name(const clash_scene *sc) { return sc->name; }
int clash_scene_objects(const clash_scene *sc) { return sc->nobj; }
int64_t clash_scene_vertices(const clash_scene *sc) { return sc->nv; }
int64_t clash_scene_faces(const clash_scene *sc) { return sc->nf; }
size_t clash_scene_memory_bytes(const clash_scene *sc) { return sc->memory_bytes; }

int64_t clash_scene_object_vertices(const clash_scene *sc, int obj)
{
    return sc && obj >= 0 && obj < sc->nobj ? sc->vofs[obj + 1] - sc->vofs[obj] : -1;
}

int64_t clash_scene_object_faces(const clash_scene *sc, int obj)
{
    return sc && obj >= 0 && obj < sc->nobj ? sc->fofs[obj + 1] - sc->fofs[obj] : -1;
}

void clash_scene_apply_defaults(const clash_scene *sc, clash_config *cfg)
{
    if (cfg->steps < 0) cfg->steps = sc->steps;
    if (cfg->mode < 0) cfg->mode = sc->mode;
    if (cfg->self_collision < 0) cfg->self_collision = sc->self_collision;
}

size_t clash_struct_size(const char *name)
{
    static const struct {
        const char *name;
        size_t size;
    } sizes[] = {{"clash_config", sizeof(clash_config)},       {"clash_error", sizeof(clash_error)},
                 {"clash_pair", sizeof(clash_pair)},           {"clash_pairs", sizeof(clash_pairs)},
                 {"clash_step_stats", sizeof(clash_step_stats)}, {"clash_preset_params", sizeof(clash_preset_params)},
                 {"clash_mesh_arrays", sizeof(clash_mesh_arrays)}, {"clash_contact", sizeof(clash_contact)},
                 {"clash_contacts", sizeof(clash_contacts)},   {"clash_pair_geom", sizeof(clash_pair_geom)},
                 {"clash_contact_geom", sizeof(clash_contact_geom)}, {"clash_object_pair", sizeof(clash_object_pair)},
                 {"clash_distance", sizeof(clash_distance)},   {"clash_proximity", sizeof(clash_proximity)}};
    for (size_t i = 0; name && i < sizeof sizes / sizeof sizes[0]; ++i)
        if (!strcmp(name, sizes[i].name)) return sizes[i].size;
    return 0;
}
