/*
 * scene_build.c — a scene described by a clash-scene/1 file or a preset
 * (scene_desc.h), turned into the store (store/scene.h): mesh files read,
 * generators run, the store filled.
 *
 * The store is filled through the same calls a host program makes from
 * memory (store/scene_add.c: add a mesh, add objects of it), so scene files,
 * presets and the API share one path; a file scene's objects also keep their
 * law of motion (store/motion.c), which clash_step follows.
 *
 * Rigid scenes: every object is an instance of a mesh (file or generator),
 * added in the state 0 of its pose formula; the formula moves it.
 * Deforming scenes: a sequence of frame files with the same faces; the
 * objects are the connected components of the mesh (or the whole mesh as
 * one object), each a deforming object made of its own mesh, and frame s is
 * their state s.  Vertices and faces are grouped by object so every object
 * owns a contiguous range; inside an object they keep the file's order, so
 * a face's number inside its object is its rank among the object's faces
 * in the file, and a vertex's number is its rank among the object's
 * vertices in the file.  Vertices referenced by no face are dropped.
 *
 * Nothing is half-built: on any error everything allocated so far is freed
 * and *out stays NULL.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "io/mesh_io.h"
#include "io/scene_desc.h"
#include "store/generators.h"
#include "store/scene.h"

/* Loads or generates mesh desc md, applying its own scale and centre. */
static int load_mesh(const clash_mesh_desc *md, clash_mesh *m, clash_error *err)
{
    int rc;
    switch (md->kind) {
    case CLASH_MESH_SPHERE: rc = clash_gen_sphere(md->sphere_faces, m, err); break;
    case CLASH_MESH_BOX: rc = clash_gen_box(m, err); break;
    default: rc = clash_mesh_load(md->path, m, err); break;
    }
    if (rc) return rc;
    double c[3] = {0, 0, 0};
    if (md->center && m->nverts > 0) {
        double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
        for (int64_t v = 0; v < m->nverts; ++v)
            for (int d = 0; d < 3; ++d) {
                lo[d] = fmin(lo[d], m->xyz[3 * v + d]);
                hi[d] = fmax(hi[d], m->xyz[3 * v + d]);
            }
        for (int d = 0; d < 3; ++d) c[d] = 0.5 * (lo[d] + hi[d]);
    }
    const double s = md->scale > 0 ? md->scale : 1.0;
    for (int64_t v = 0; v < m->nverts; ++v)
        for (int d = 0; d < 3; ++d) {
            double x = (m->xyz[3 * v + d] - c[d]) * s;
            if (!isfinite(x) || fabs(x) > CLASH_COORD_LIMIT) {
                const char *label = md->kind == CLASH_MESH_FILE ? md->path : md->name;
                clash_mesh_free(m);
                return clash_fail(err, CLASH_EINPUT, "%s: vertex %lld: coordinate out of float range after scaling",
                                  label, (long long)v + 1);
            }
            m->xyz[3 * v + d] = x;
        }
    return CLASH_OK;
}

/* Puts "SCENE.json: KEY.PATH: " before the message in err (a mesh or frame
 * file that failed to load names the key that named it); returns rc. */
static int at_key(int rc, clash_error *err, const char *source, const char *key)
{
    if (!err) return rc;
    char msg[sizeof err->msg];
    memcpy(msg, err->msg, sizeof msg);
    msg[sizeof msg - 1] = 0;
    if (source) clash_fail(err, rc, "%s: %s: %s", source, key, msg);
    else clash_fail(err, rc, "%s: %s", key, msg);
    return rc;
}

/* Rigid scenes: each mesh used by an object enters the store once
 * (clash_store_add_mesh), each object is an instance of it in the state 0 of
 * its law (clash_store_add_object, the API's own path) and keeps the law. */
static int build_rigid(const clash_scene_desc *d, clash_scene *sc, clash_error *err)
{
    if (d->nobjects <= 0) return clash_fail(err, CLASH_EINPUT, "%s: scene has no objects", sc->name);
    clash_mesh *meshes = calloc((size_t)d->nmeshes, sizeof(clash_mesh));
    int *id = calloc((size_t)d->nmeshes, sizeof(int));
    int rc = CLASH_OK;
    if (!meshes || !id) {
        rc = clash_fail(err, CLASH_EFAIL, "out of memory");
        goto done;
    }
    for (int o = 0; o < d->nobjects; ++o) {
        const int mi = d->objects[o].mesh;
        if (mi < 0 || mi >= d->nmeshes) {
            rc = clash_fail(err, CLASH_EINPUT, "%s: objects[%d].mesh: no such mesh", sc->name, o);
            goto done;
        }
        id[mi] = 1;
    }
    for (int mi = 0; mi < d->nmeshes; ++mi)
        if (id[mi] && (rc = load_mesh(&d->meshes[mi], &meshes[mi], err))) {
            if (d->meshes[mi].kind == CLASH_MESH_FILE) {
                char key[300];
                snprintf(key, sizeof key, "meshes.%.256s.file", d->meshes[mi].name ? d->meshes[mi].name : "?");
                at_key(rc, err, d->source, key);
            }
            goto done;
        }
    int64_t nv = 0, nf = 0;
    for (int o = 0; o < d->nobjects; ++o) {
        nv += meshes[d->objects[o].mesh].nverts;
        nf += meshes[d->objects[o].mesh].nfaces;
    }
    if (nv > INT32_MAX || nf > UINT32_MAX) {
        rc = clash_fail(err, CLASH_EINPUT, "%s: scene too large (%lld vertices)", sc->name, (long long)nv);
        goto done;
    }
    if (clash_store_reserve(sc, d->nobjects, nv, nf)) {
        rc = clash_fail(err, CLASH_EFAIL, "%s: out of memory for the scene store", sc->name);
        goto done;
    }
    for (int mi = 0; mi < d->nmeshes; ++mi) {
        if (!id[mi]) continue;
        const clash_mesh_desc *md = &d->meshes[mi];
        const int r = clash_store_add_mesh(sc, meshes[mi].xyz, meshes[mi].nverts, meshes[mi].tri, meshes[mi].nfaces,
                                           md->kind == CLASH_MESH_FILE ? md->path : md->name, err);
        if (r < 0) {
            rc = -r;
            goto done;
        }
        id[mi] = r;
        clash_mesh_free(&meshes[mi]); /* the store has its copy */
    }
    for (int o = 0; o < d->nobjects; ++o) {
        const clash_object_desc *od = &d->objects[o];
        clash_pose p = {.scale = od->scale > 0 ? od->scale : 1.0};
        memcpy(p.position, od->position, sizeof p.position);
        memcpy(p.rotation_deg, od->rotation_deg, sizeof p.rotation_deg);
        memcpy(p.velocity, od->velocity, sizeof p.velocity);
        memcpy(p.angular_velocity_deg, od->angular_velocity_deg, sizeof p.angular_velocity_deg);
        clash_xform x0;
        double scale;
        clash_pose_at(&p, 0, x0.R, &scale, x0.t);
        const int r = clash_store_add_object(sc, id[od->mesh], &x0, scale, 0, err);
        if (r < 0) {
            rc = -r;
            goto done;
        }
        if (clash_store_set_law(sc, r, &p)) {
            rc = clash_fail(err, CLASH_EFAIL, "out of memory");
            goto done;
        }
    }
done:
    if (meshes)
        for (int mi = 0; mi < d->nmeshes; ++mi) clash_mesh_free(&meshes[mi]);
    free(meshes);
    free(id);
    return rc;
}

static int64_t uf_find(int64_t *parent, int64_t a)
{
    while (parent[a] != a) {
        parent[a] = parent[parent[a]];
        a = parent[a];
    }
    return a;
}

/* Deforming scenes: the connected components of frame 0 (or the whole mesh)
 * are the objects, each made of its own mesh (its vertices in order of first
 * use by its faces, file order).  This learns them from frame 0 alone;
 * clash_frames_fill then reads the frames one file at a time. */
int clash_frames_layout_load(const clash_scene_desc *d, clash_frames_layout *L, clash_error *err)
{
    memset(L, 0, sizeof *L);
    const char *name = d->name ? d->name : "scene";
    if (d->nframes < 2) return clash_fail(err, CLASH_EINPUT, "%s: frames: at least 2 files needed", name);
    int rc = CLASH_OK;
    int64_t *parent = NULL, *comp_of_root = NULL, *vcount = NULL, *fcount = NULL, *forder = NULL;
    clash_mesh *first = &L->first;
    if ((rc = clash_mesh_load(d->frame_files[0], first, err))) return at_key(rc, err, d->source, "frames.files[0]");
    const int64_t nv_in = first->nverts, nf = first->nfaces;
    L->nv_in = nv_in, L->nf = nf;
    if (nv_in > INT32_MAX || nf > UINT32_MAX) {
        rc = clash_fail(err, CLASH_EINPUT, "%s: mesh too large", d->frame_files[0]);
        goto done;
    }
    parent = malloc(sizeof(int64_t) * (size_t)(nv_in ? nv_in : 1));
    L->vmap = malloc(sizeof(int32_t) * (size_t)(nv_in ? nv_in : 1));
    comp_of_root = malloc(sizeof(int64_t) * (size_t)(nv_in ? nv_in : 1));
    forder = malloc(sizeof(int64_t) * (size_t)(nf ? nf : 1));
    if (!parent || !L->vmap || !comp_of_root || !forder) {
        rc = clash_fail(err, CLASH_EFAIL, "out of memory");
        goto done;
    }
    int32_t *vmap = L->vmap; /* -1: no face uses it; <= -2: object -2 - v's, not yet numbered */
    /* Connected components of faces through shared vertices (union-find). */
    for (int64_t v = 0; v < nv_in; ++v) parent[v] = v, vmap[v] = -1, comp_of_root[v] = -1;
    const int single = d->frames_objects == CLASH_FRAMES_SINGLE;
    for (int64_t f = 0; f < nf && !single; ++f) {
        int64_t a = uf_find(parent, first->tri[3 * f]);
        for (int k = 1; k < 3; ++k) {
            int64_t b = uf_find(parent, first->tri[3 * f + k]);
            if (a != b) parent[b < a ? a : b] = b < a ? b : a;  /* smaller root wins: deterministic */
            a = a < b ? a : b;
        }
    }
    /* Components numbered by their first face in file order. */
    int nobj = 0;
    for (int64_t f = 0; f < nf; ++f) {
        int64_t r = single ? 0 : uf_find(parent, first->tri[3 * f]);
        if (comp_of_root[r] < 0) comp_of_root[r] = nobj++;
    }
    if (nf == 0) {
        rc = clash_fail(err, CLASH_EINPUT, "%s: scene has no faces", name);
        goto done;
    }
    L->nobj = nobj;
    vcount = L->vofs = calloc((size_t)nobj + 1, sizeof(int64_t));
    fcount = L->fofs = calloc((size_t)nobj + 1, sizeof(int64_t));
    if (!vcount || !fcount) {
        rc = clash_fail(err, CLASH_EFAIL, "out of memory");
        goto done;
    }
    /* Vertex order: by object, then file order (unused vertices dropped). */
    for (int64_t f = 0; f < nf; ++f) {
        int64_t o = comp_of_root[single ? 0 : uf_find(parent, first->tri[3 * f])];
        forder[f] = o;
        fcount[o + 1]++;
        for (int k = 0; k < 3; ++k) {
            int64_t v = first->tri[3 * f + k];
            if (vmap[v] == -1) vmap[v] = (int32_t)(-2 - o), vcount[o + 1]++;
        }
    }
    for (int o = 0; o < nobj; ++o) vcount[o + 1] += vcount[o], fcount[o + 1] += fcount[o];
    const int64_t nv = L->nv = vcount[nobj];
    /* every object's mesh, laid out one after another: vertices (frame 0)
     * and triangles numbered inside the object */
    L->xyz = malloc(3 * sizeof(double) * (size_t)nv);
    L->tri = malloc(3 * sizeof(int32_t) * (size_t)nf);
    L->vfile = malloc(sizeof(int32_t) * (size_t)nv);
    if (!L->xyz || !L->tri || !L->vfile) {
        rc = clash_fail(err, CLASH_EFAIL, "out of memory");
        goto done;
    }
    {
        int64_t *vnext = calloc((size_t)nobj, sizeof(int64_t)), *fnext = calloc((size_t)nobj, sizeof(int64_t));
        if (!vnext || !fnext) {
            free(vnext), free(fnext);
            rc = clash_fail(err, CLASH_EFAIL, "out of memory");
            goto done;
        }
        /* inside an object the file's vertex order (so a single-object
         * scene keeps the file's vertex numbers: contacts, --ccd) */
        for (int64_t v = 0; v < nv_in; ++v)
            if (vmap[v] <= -2) {
                int64_t o = -2 - vmap[v];
                vmap[v] = (int32_t)(vcount[o] + vnext[o]++);
                L->vfile[vmap[v]] = (int32_t)v;
                for (int c = 0; c < 3; ++c) L->xyz[3 * vmap[v] + c] = first->xyz[3 * v + c];
            }
        for (int64_t f = 0; f < nf; ++f) {
            int64_t o = forder[f], g = fcount[o] + fnext[o]++;
            for (int k = 0; k < 3; ++k) L->tri[3 * g + k] = (int32_t)(vmap[first->tri[3 * f + k]] - vcount[o]);
        }
        free(vnext), free(fnext);
    }
done:
    free(parent), free(comp_of_root), free(forder);
    if (rc) clash_frames_layout_free(L);
    return rc;
}

void clash_frames_layout_free(clash_frames_layout *L)
{
    clash_mesh_free(&L->first);
    free(L->vmap), free(L->vfile), free(L->vofs), free(L->fofs), free(L->xyz), free(L->tri);
    memset(L, 0, sizeof *L);
}

int clash_frames_check(const clash_scene_desc *d, const clash_frames_layout *L, int k, const clash_mesh *m,
                       clash_error *err)
{
    char key[48];
    snprintf(key, sizeof key, "frames.files[%d]", k);
    if (k > 0) {
        if (m->nverts != L->nv_in || m->nfaces != L->nf) {
            const int rc = clash_fail(err, CLASH_EINPUT,
                                      "%s: frame %d has %lld vertices and %lld faces, but frame 0 (%s) has %lld and %lld",
                                      d->frame_files[k], k, (long long)m->nverts, (long long)m->nfaces,
                                      d->frame_files[0], (long long)L->nv_in, (long long)L->nf);
            return at_key(rc, err, d->source, key);
        }
        for (int64_t i = 0; i < 3 * L->nf; ++i)
            if (m->tri[i] != L->first.tri[i]) {
                const int rc = clash_fail(err, CLASH_EINPUT,
                                          "%s: face %lld (0-based) differs from frame 0 (%s): frames must share faces",
                                          d->frame_files[k], (long long)(i / 3), d->frame_files[0]);
                return at_key(rc, err, d->source, key);
            }
    }
    for (int64_t v = 0; v < L->nv_in; ++v) {
        if (L->vmap[v] < 0) continue;
        for (int c = 0; c < 3; ++c)
            if (fabs(m->xyz[3 * v + c]) > CLASH_COORD_LIMIT) {
                const int rc = clash_fail(err, CLASH_EINPUT, "%s: vertex %lld (1-based, as in OBJ files): coordinate "
                                          "out of float range", d->frame_files[k], (long long)v + 1);
                return at_key(rc, err, d->source, key);
            }
    }
    return CLASH_OK;
}

int clash_frames_load(const clash_scene_desc *d, const clash_frames_layout *L, int k, clash_mesh *m,
                      clash_error *err)
{
    char key[48];
    snprintf(key, sizeof key, "frames.files[%d]", k);
    int rc = clash_mesh_load(d->frame_files[k], m, err);
    if (rc) return at_key(rc, err, d->source, key);
    if ((rc = clash_frames_check(d, L, k, m, err))) clash_mesh_free(m);
    return rc;
}

int clash_frames_fill(const clash_scene_desc *d, const clash_frames_layout *L, const int *objs, int nobjs, int k0,
                      int k1, const char *label, clash_scene *sc, clash_error *err)
{
    if (!objs) nobjs = L->nobj;
    int64_t nv = 0, nf = 0;
    for (int i = 0; i < nobjs; ++i) {
        const int o = objs ? objs[i] : i;
        nv += L->vofs[o + 1] - L->vofs[o], nf += L->fofs[o + 1] - L->fofs[o];
    }
    if (clash_store_reserve(sc, nobjs, nv, nf) || !(sc->frames = calloc((size_t)d->nframes, sizeof(double *))))
        return clash_fail(err, CLASH_EFAIL, "%s: out of memory for the scene store", sc->name);
    const clash_xform identity = {.R = {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    for (int i = 0; i < nobjs; ++i) {
        const int o = objs ? objs[i] : i;
        int r = clash_store_add_mesh(sc, L->xyz + 3 * L->vofs[o], L->vofs[o + 1] - L->vofs[o], L->tri + 3 * L->fofs[o],
                                     L->fofs[o + 1] - L->fofs[o], label, err);
        if (r >= 0) r = clash_store_add_object(sc, r, &identity, 1.0, 1, err);
        if (r < 0) return -r;
        sc->law[r] = CLASH_LAW_FRAMES;
    }
    sc->nframes = d->nframes, sc->frames_nv = nv;
    clash_mesh m = {0};
    int rc = CLASH_OK;
    for (int k = k0; k <= k1 && !rc; ++k) {
        /* frame 0 as the layout read it, while it still holds it */
        const int held = k == 0 && L->first.xyz;
        if ((rc = held ? clash_frames_check(d, L, 0, &L->first, err) : clash_frames_load(d, L, k, &m, err))) break;
        const clash_mesh *fm = held ? &L->first : &m;
        double *fr = sc->frames[k] = clash_aligned_calloc(3 * (size_t)nv, sizeof(double)); /* as read, no rounding */
        if (!fr) rc = clash_fail(err, CLASH_EFAIL, "out of memory for frames");
        for (int i = 0; fr && i < nobjs; ++i) {
            const int o = objs ? objs[i] : i;
            const int64_t v0 = L->vofs[o], n = L->vofs[o + 1] - v0, base = sc->vofs[i];
            for (int c = 0; c < 3; ++c)
                for (int64_t j = 0; j < n; ++j)
                    fr[(size_t)c * (size_t)nv + (size_t)(base + j)] = fm->xyz[3 * (size_t)L->vfile[v0 + j] + c];
        }
        clash_mesh_free(&m);
    }
    if (!rc) clash_store_recount(sc);
    return rc;
}

/* Deforming scenes: the objects of clash_frames_layout_load become deforming
 * objects through the same path as rigid ones; the frames, read one after
 * another, are kept in store order and are the objects' law. */
static int build_deforming(const clash_scene_desc *d, clash_scene *sc, clash_error *err)
{
    clash_frames_layout L;
    int rc = clash_frames_layout_load(d, &L, err);
    if (rc) return rc;
    rc = clash_frames_fill(d, &L, NULL, 0, 0, d->nframes - 1, d->frame_files[0], sc, err);
    clash_frames_layout_free(&L);
    return rc;
}

int clash_scene_build(const clash_scene_desc *d, clash_scene **out, clash_error *err)
{
    *out = NULL;
    clash_scene *sc = clash_store_new(d->name ? d->name : "scene");
    if (!sc) return clash_fail(err, CLASH_EFAIL, "out of memory");
    sc->steps = d->steps > 0 ? d->steps : 1;
    sc->mode = d->mode;
    sc->self_collision = d->self_collision;
    int rc = d->nframes > 0 ? build_deforming(d, sc, err) : build_rigid(d, sc, err);
    if (rc == CLASH_OK && sc->nf == 0) rc = clash_fail(err, CLASH_EINPUT, "%s: scene has no faces", sc->name);
    if (rc) {
        clash_scene_destroy(sc);
        return rc;
    }
    *out = sc;
    return CLASH_OK;
}

int clash_scene_load(const char *json_path, clash_scene **out, clash_error *err)
{
    clash_scene_desc d;
    *out = NULL;
    int rc = clash_scene_desc_parse_file(json_path, &d, err);
    if (rc) return rc;
    d.source = json_path;
    rc = clash_scene_build(&d, out, err);
    clash_scene_desc_free(&d);
    /* the laws over the scene's own steps, named by their keys (a run of other steps checks again) */
    if (!rc && (rc = clash_store_check_laws(*out, (*out)->steps, json_path, err))) {
        clash_scene_destroy(*out);
        *out = NULL;
    }
    return rc;
}

int clash_scene_preset(const char *name, const clash_preset_params *p, clash_scene **out, clash_error *err)
{
    clash_scene_desc d;
    *out = NULL;
    int rc = clash_scene_desc_preset(name, p, &d, err);
    if (rc) return rc;
    rc = clash_scene_build(&d, out, err);
    clash_scene_desc_free(&d);
    return rc;
}

