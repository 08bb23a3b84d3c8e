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
            if (!isfinite(x) || fabs(x) > 3.0e38) {
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
 * become deforming objects through the same path as rigid ones, each made of
 * its own mesh (its vertices in order of first use by its faces, file order);
 * the frames are kept in store order and are the objects' law. */
static int build_deforming(const clash_scene_desc *d, clash_scene *sc, clash_error *err)
{
    if (d->nframes < 2) return clash_fail(err, CLASH_EINPUT, "%s: frames: at least 2 files needed", sc->name);
    int rc = CLASH_OK;
    clash_mesh first = {0}, m = {0};
    int64_t *parent = NULL, *vmap = NULL, *comp_of_root = NULL, *vcount = NULL, *fcount = NULL;
    int64_t *forder = NULL;
    double *gxyz = NULL;
    int32_t *gtri = NULL;
    if ((rc = clash_mesh_load(d->frame_files[0], &first, err))) return at_key(rc, err, d->source, "frames.files[0]");
    const int64_t nv_in = first.nverts, nf = first.nfaces;
    if (nv_in > INT32_MAX || nf > UINT32_MAX) {
        rc = clash_fail(err, CLASH_EINPUT, "%s: mesh too large", d->frame_files[0]);
        goto done;
    }
    parent = malloc(sizeof(int64_t) * (size_t)(nv_in ? nv_in : 1));
    vmap = malloc(sizeof(int64_t) * (size_t)(nv_in ? nv_in : 1));
    comp_of_root = malloc(sizeof(int64_t) * (size_t)(nv_in ? nv_in : 1));
    forder = malloc(sizeof(int64_t) * (size_t)(nf ? nf : 1));
    if (!parent || !vmap || !comp_of_root || !forder) {
        rc = clash_fail(err, CLASH_EFAIL, "out of memory");
        goto done;
    }
    /* Connected components of faces through shared vertices (union-find). */
    for (int64_t v = 0; v < nv_in; ++v) parent[v] = v, vmap[v] = -1, comp_of_root[v] = -1;
    const int single = d->frames_objects == CLASH_FRAMES_SINGLE;
    for (int64_t f = 0; f < nf && !single; ++f) {
        int64_t a = uf_find(parent, first.tri[3 * f]);
        for (int k = 1; k < 3; ++k) {
            int64_t b = uf_find(parent, first.tri[3 * f + k]);
            if (a != b) parent[b < a ? a : b] = b < a ? b : a;  /* smaller root wins: deterministic */
            a = a < b ? a : b;
        }
    }
    /* Components numbered by their first face in file order. */
    int nobj = 0;
    for (int64_t f = 0; f < nf; ++f) {
        int64_t r = single ? 0 : uf_find(parent, first.tri[3 * f]);
        if (comp_of_root[r] < 0) comp_of_root[r] = nobj++;
    }
    if (nf == 0) {
        rc = clash_fail(err, CLASH_EINPUT, "%s: scene has no faces", sc->name);
        goto done;
    }
    vcount = calloc((size_t)nobj + 1, sizeof(int64_t));
    fcount = calloc((size_t)nobj + 1, sizeof(int64_t));
    if (!vcount || !fcount) {
        rc = clash_fail(err, CLASH_EFAIL, "out of memory");
        goto done;
    }
    /* Vertex order: by object, then file order (unused vertices dropped). */
    for (int64_t f = 0; f < nf; ++f) {
        int64_t o = comp_of_root[single ? 0 : uf_find(parent, first.tri[3 * f])];
        forder[f] = o;
        fcount[o + 1]++;
        for (int k = 0; k < 3; ++k) {
            int64_t v = first.tri[3 * f + k];
            if (vmap[v] == -1) vmap[v] = -2 - o, vcount[o + 1]++;
        }
    }
    for (int o = 0; o < nobj; ++o) vcount[o + 1] += vcount[o], fcount[o + 1] += fcount[o];
    const int64_t nv = vcount[nobj];
    /* every object's mesh, laid out one after another: vertices (frame 0)
     * and triangles numbered inside the object */
    gxyz = malloc(3 * sizeof(double) * (size_t)nv);
    gtri = malloc(3 * sizeof(int32_t) * (size_t)nf);
    if (!gxyz || !gtri) {
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
                vmap[v] = vcount[o] + vnext[o]++;
                for (int c = 0; c < 3; ++c) gxyz[3 * vmap[v] + c] = first.xyz[3 * v + c];
            }
        for (int64_t f = 0; f < nf; ++f) {
            int64_t o = forder[f], g = fcount[o] + fnext[o]++;
            for (int k = 0; k < 3; ++k) gtri[3 * g + k] = (int32_t)(vmap[first.tri[3 * f + k]] - vcount[o]);
        }
        free(vnext), free(fnext);
    }
    if (clash_store_reserve(sc, nobj, nv, nf)) {
        rc = clash_fail(err, CLASH_EFAIL, "%s: out of memory for the scene store", sc->name);
        goto done;
    }
    const clash_xform identity = {.R = {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    for (int o = 0; o < nobj; ++o) {
        int r = clash_store_add_mesh(sc, gxyz + 3 * vcount[o], vcount[o + 1] - vcount[o], gtri + 3 * fcount[o],
                                     fcount[o + 1] - fcount[o], d->frame_files[0], err);
        if (r >= 0) r = clash_store_add_object(sc, r, &identity, 1.0, 1, err);
        if (r < 0) {
            rc = -r;
            goto done;
        }
        sc->law[r] = CLASH_LAW_FRAMES;
    }
    sc->frames = calloc((size_t)d->nframes, sizeof(float *));
    if (!sc->frames) {
        rc = clash_fail(err, CLASH_EFAIL, "out of memory");
        goto done;
    }
    sc->nframes = d->nframes;
    sc->frames_nv = nv;
    for (int k = 0; k < d->nframes; ++k) {
        const clash_mesh *fm = &first;
        if (k > 0) {
            char key[48];
            snprintf(key, sizeof key, "frames.files[%d]", k);
            if ((rc = clash_mesh_load(d->frame_files[k], &m, err))) {
                at_key(rc, err, d->source, key);
                goto done;
            }
            if (m.nverts != nv_in || m.nfaces != nf) {
                rc = clash_fail(err, CLASH_EINPUT,
                                "%s: frame %d has %lld vertices and %lld faces, but frame 0 (%s) has %lld and %lld",
                                d->frame_files[k], k, (long long)m.nverts, (long long)m.nfaces, d->frame_files[0],
                                (long long)nv_in, (long long)nf);
                at_key(rc, err, d->source, key);
                goto done;
            }
            for (int64_t i = 0; i < 3 * nf; ++i)
                if (m.tri[i] != first.tri[i]) {
                    rc = clash_fail(err, CLASH_EINPUT,
                                    "%s: face %lld (0-based) differs from frame 0 (%s): frames must share faces",
                                    d->frame_files[k], (long long)(i / 3), d->frame_files[0]);
                    at_key(rc, err, d->source, key);
                    goto done;
                }
            fm = &m;
        }
        float *fr = sc->frames[k] = clash_aligned_calloc(3 * (size_t)nv, sizeof(float));
        if (!fr) {
            rc = clash_fail(err, CLASH_EFAIL, "out of memory for frames");
            goto done;
        }
        for (int64_t v = 0; v < nv_in; ++v) {
            if (vmap[v] < 0) continue;
            for (int c = 0; c < 3; ++c) {
                double x = fm->xyz[3 * v + c];
                if (fabs(x) > 3.0e38) {
                    char key[48];
                    snprintf(key, sizeof key, "frames.files[%d]", k);
                    rc = clash_fail(err, CLASH_EINPUT, "%s: vertex %lld (1-based, as in OBJ files): coordinate out "
                                    "of float range", d->frame_files[k], (long long)v + 1);
                    at_key(rc, err, d->source, key);
                    goto done;
                }
                fr[(size_t)c * (size_t)nv + (size_t)vmap[v]] = (float)x;
            }
        }
        clash_mesh_free(&m);
    }
    clash_store_recount(sc);
done:
    clash_mesh_free(&first);
    clash_mesh_free(&m);
    free(parent), free(vmap), free(comp_of_root), free(vcount), free(fcount), free(forder);
    free(gxyz), free(gtri);
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

