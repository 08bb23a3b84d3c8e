/*
 * decomp_plan.c — the plan of a decomposed run (decompose.h): object boxes
 * from the laws, recursive coordinate bisection of the world into one cell
 * per rank, each epoch's owned and ghost objects, and the rule that picks
 * the one rank that reports a pair.
 *
 * Everything here is computed by every rank from the same description with
 * the same double arithmetic in the same order, so every rank holds the
 * same cells and makes the same choices without a message.  Ties are broken
 * by object number, never by anything a rank has alone.
 */
#include "cli/decompose.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

void clash_decomp_free(clash_decomp *D)
{
    free(D->pose), free(D->mrad), free(D->mnf), free(D->mnv), free(D->gfofs);
    clash_rcb_free(&D->cells), free(D->present), free(D->owner), free(D->blo), free(D->bhi);
    clash_scene_destroy(D->full);
    memset(D, 0, sizeof *D);
}

/* The law of object desc od, as scene_build.c gives it to the store. */
static clash_pose law_of(const clash_object_desc *od)
{
    clash_pose p = {.scale = od->scale > 0 ? od->scale : 1.0};
    memcpy(p.position, od->position, sizeof p.position);
    memcpy(p.rotation_deg, od->rotation_deg, sizeof p.rotation_deg);
    memcpy(p.velocity, od->velocity, sizeof p.velocity);
    memcpy(p.angular_velocity_deg, od->angular_velocity_deg, sizeof p.angular_velocity_deg);
    return p;
}

/* Deforming (frames) scenes: the whole scene, its objects' face offsets. */
static int init_frames(clash_decomp *D, clash_error *err)
{
    int rc = clash_scene_build(D->d, &D->full, err);
    if (rc) return rc;
    const clash_scene *F = D->full;
    D->nobj = F->nobj, D->nv = F->nv;
    D->gfofs = malloc(sizeof *D->gfofs * ((size_t)F->nobj + 1));
    if (!D->gfofs || clash_rcb_init(&D->cells, D->R)) return clash_fail(err, CLASH_EFAIL, "out of memory planning");
    for (int o = 0; o <= F->nobj; ++o) D->gfofs[o] = F->fofs[o];
    if (F->nf > UINT32_MAX)
        return clash_fail(err, CLASH_EINPUT, "--decompose objects: %lld faces, more than pair keys hold (2^32)",
                          (long long)F->nf);
    return CLASH_OK;
}

int clash_decomp_init(clash_decomp *D, const clash_scene_desc *d, const clash_ranks *W, double min_sep,
                      clash_error *err)
{
    memset(D, 0, sizeof *D);
    D->d = d, D->R = W->size, D->me = W->rank, D->nobj = d->nobjects, D->min_sep = min_sep;
    D->box_s = -1;
    if (d->nframes > 0) return init_frames(D, err);
    if (d->nobjects <= 0) return clash_fail(err, CLASH_EINPUT, "%s: scene has no objects", d->name ? d->name : "scene");
    const int nm = d->nmeshes, n = d->nobjects;
    D->pose = malloc(sizeof *D->pose * (size_t)n);
    D->gfofs = malloc(sizeof *D->gfofs * ((size_t)n + 1));
    D->mrad = calloc((size_t)nm + 1, sizeof *D->mrad);
    D->mnf = calloc((size_t)nm + 1, sizeof *D->mnf);
    D->mnv = calloc((size_t)nm + 1, sizeof *D->mnv);
    const int cells_ok = clash_rcb_init(&D->cells, D->R) == 0;
    /* a probe scene: the first object of each mesh used, in mesh order (the
     * store adds the used meshes in that order, scene_build.c) */
    clash_scene_desc probe = *d;
    probe.objects = malloc(sizeof *probe.objects * (size_t)(nm + 1));
    int *first = malloc(sizeof *first * (size_t)(nm + 1));
    int rc = CLASH_OK;
    if (!D->pose || !D->gfofs || !D->mrad || !D->mnf || !D->mnv || !cells_ok || !probe.objects ||
        !first) {
        rc = clash_fail(err, CLASH_EFAIL, "out of memory planning the decomposition");
        goto done;
    }
    for (int m = 0; m < nm; ++m) first[m] = -1;
    for (int o = 0; o < n; ++o) {
        const int m = d->objects[o].mesh;
        if (m < 0 || m >= nm) {
            rc = clash_fail(err, CLASH_EINPUT, "%s: objects[%d].mesh: no such mesh", d->name ? d->name : "scene", o);
            goto done;
        }
        if (first[m] < 0) first[m] = o;
        D->pose[o] = law_of(&d->objects[o]);
    }
    probe.nobjects = 0;
    for (int m = 0; m < nm; ++m)
        if (first[m] >= 0) probe.objects[probe.nobjects++] = d->objects[first[m]];
    clash_scene *sc = NULL;
    if ((rc = clash_scene_build(&probe, &sc, err))) goto done;
    for (int m = 0, k = 0; m < nm; ++m)
        if (first[m] >= 0) {
            D->mrad[m] = sc->mesh[k].radius, D->mnf[m] = sc->mesh[k].nf, D->mnv[m] = sc->mesh[k].nv;
            ++k;
        }
    clash_scene_destroy(sc);
    D->gfofs[0] = 0;
    for (int o = 0; o < n; ++o) {
        D->gfofs[o + 1] = D->gfofs[o] + D->mnf[d->objects[o].mesh];
        D->nv += D->mnv[d->objects[o].mesh];
    }
    if (D->gfofs[n] > UINT32_MAX)
        rc = clash_fail(err, CLASH_EINPUT, "--decompose objects: %lld faces, more than pair keys hold (2^32)",
                        (long long)D->gfofs[n]);
done:
    free(probe.objects), free(first);
    return rc;
}

/* Deforming: the box of object o's vertices in frames s-1 and s. */
static void frames_box(const clash_decomp *D, int o, int s, double lo[3], double hi[3])
{
    const clash_scene *F = D->full;
    const int64_t nv = F->frames_nv, v0 = F->vofs[o], v1 = F->vofs[o + 1];
    const int a = s > 0 ? s - 1 : 0, b = s < F->nframes ? s : F->nframes - 1;
    double m = 0;
    for (int k = 0; k < 3; ++k) {
        float l = INFINITY, h = -INFINITY;
        for (int f = a; f <= b; f += (b > a ? b - a : 1))
            for (int64_t v = v0; v < v1; ++v) {
                const float x = F->frames[f][(size_t)k * (size_t)nv + (size_t)v];
                l = x < l ? x : l, h = x > h ? x : h;
            }
        lo[k] = l, hi[k] = h, m = fmax(m, fmax(fabs(lo[k]), fabs(hi[k])));
    }
    const double r = D->min_sep + 1e-5 * m + 1e-6; /* the faces' own rounding allowances: generous */
    for (int k = 0; k < 3; ++k) lo[k] -= r, hi[k] += r;
}

void clash_decomp_box(const clash_decomp *D, int o, int s, double lo[3], double hi[3])
{
    if (D->full) {
        frames_box(D, o, s, lo, hi);
        return;
    }
    const clash_pose *p = &D->pose[o];
    const double rad = D->mrad[D->d->objects[o].mesh];
    double R[9], sc, t0[3], t1[3];
    clash_pose_at(p, s > 0 ? s - 1 : 0, R, &sc, t0);
    clash_pose_at(p, s, R, &sc, t1);
    clash_turn tu;
    clash_turn_law(p, s > 0 ? s : 1, rad, &tu);
    double r = sc * rad + (tu.kind != CLASH_TURN_NONE ? tu.bound : 0) + D->min_sep, m = 0;
    for (int k = 0; k < 3; ++k) m = fmax(m, fmax(fabs(t0[k]), fabs(t1[k])));
    r += 1e-5 * (r + m) + 1e-6; /* float positions, the faces' own rounding allowances: generous */
    for (int k = 0; k < 3; ++k) lo[k] = fmin(t0[k], t1[k]) - r, hi[k] = fmax(t0[k], t1[k]) + r;
}

int clash_decomp_owner(const clash_decomp *D, const double p[3]) { return clash_rcb_owner(&D->cells, p); }

int clash_decomp_epoch(clash_decomp *D, int s0, int s1, int recut)
{
    const int n = D->nobj;
    double(*c)[3] = malloc(sizeof *c * (size_t)n);
    int *owner = malloc(sizeof *owner * (size_t)n);
    int *present = malloc(sizeof *present * (size_t)n);
    if (!c || !owner || !present) {
        free(c), free(owner), free(present);
        return -1;
    }
    for (int o = 0; o < n; ++o) {
        double lo[3], hi[3];
        clash_decomp_box(D, o, s0, lo, hi);
        for (int q = 0; q < 3; ++q) c[o][q] = 0.5 * (lo[q] + hi[q]);
    }
    if (recut || D->cells.nnode == 0) {
        double *w = malloc(sizeof *w * (size_t)n);
        for (int o = 0; w && o < n; ++o) w[o] = (double)(D->gfofs[o + 1] - D->gfofs[o]);
        if (!w || clash_rcb_cut(&D->cells, n, (const double(*)[3])c, w) < 0) {
            free(w), free(c), free(owner), free(present);
            return -1;
        }
        D->recuts++;
        free(w);
    }
    D->s0 = s0, D->s1 = s1;
    D->npresent = D->nowned = 0;
    D->faces = 0;
    const double *clo = D->cells.lo[D->me], *chi = D->cells.hi[D->me];
    for (int o = 0; o < n; ++o) {
        owner[o] = clash_decomp_owner(D, c[o]);
        if (D->owner) D->migrations += owner[o] != D->owner[o];
        const int own = owner[o] == D->me;
        int in = own;
        for (int s = s0; s <= s1 && !in; ++s) {
            double lo[3], hi[3];
            clash_decomp_box(D, o, s, lo, hi);
            in = clash_box_overlaps(lo, hi, clo, chi);
        }
        if (!in) continue;
        present[D->npresent++] = o;
        D->nowned += own;
        D->faces += D->gfofs[o + 1] - D->gfofs[o];
    }
    free(D->present), free(D->owner);
    D->present = present, D->owner = owner;
    free(c);
    return 0;
}

/* Deforming: the part, each present object a deforming object of its own
 * mesh with its own frames, as scene_build.c makes the whole. */
static clash_scene *build_frames(const clash_decomp *D, int *rc, clash_error *err)
{
    const clash_scene *F = D->full;
    int64_t nv = 0, nf = 0, maxv = 1;
    for (int i = 0; i < D->npresent; ++i) {
        const int o = D->present[i];
        nv += F->vofs[o + 1] - F->vofs[o], nf += F->fofs[o + 1] - F->fofs[o];
        if (F->vofs[o + 1] - F->vofs[o] > maxv) maxv = F->vofs[o + 1] - F->vofs[o];
    }
    clash_scene *sc = clash_store_new(F->name);
    double *xyz = malloc(3 * sizeof *xyz * (size_t)maxv);
    *rc = CLASH_OK;
    if (!sc || !xyz || clash_store_reserve(sc, D->npresent, nv, nf) ||
        !(sc->frames = calloc((size_t)F->nframes, sizeof(float *)))) {
        *rc = clash_fail(err, CLASH_EFAIL, "out of memory building this rank's part of the scene");
        goto fail;
    }
    sc->steps = F->steps, sc->mode = F->mode, sc->self_collision = F->self_collision;
    const clash_xform identity = {.R = {1, 0, 0, 0, 1, 0, 0, 0, 1}};
    for (int i = 0; i < D->npresent; ++i) {
        const clash_store_mesh *m = &F->mesh[F->obj_mesh[D->present[i]]];
        for (int64_t j = 0; j < 3 * m->nv; ++j) xyz[j] = m->xyz[j];
        int r = clash_store_add_mesh(sc, xyz, m->nv, m->tri, m->nf, F->name, err);
        if (r >= 0) r = clash_store_add_object(sc, r, &identity, 1.0, 1, err);
        if (r < 0) {
            *rc = -r;
            goto fail;
        }
        sc->law[r] = CLASH_LAW_FRAMES;
    }
    sc->nframes = F->nframes, sc->frames_nv = nv;
    for (int k = 0; k < F->nframes; ++k) {
        float *fr = sc->frames[k] = clash_aligned_calloc(3 * (size_t)nv, sizeof(float));
        if (!fr) {
            *rc = clash_fail(err, CLASH_EFAIL, "out of memory for frames");
            goto fail;
        }
        for (int i = 0; i < D->npresent; ++i) {
            const int o = D->present[i];
            const int64_t n = F->vofs[o + 1] - F->vofs[o];
            for (int c = 0; c < 3; ++c)
                memcpy(fr + (size_t)c * (size_t)nv + (size_t)sc->vofs[i],
                       F->frames[k] + (size_t)c * (size_t)F->frames_nv + (size_t)F->vofs[o], sizeof(float) * (size_t)n);
        }
    }
    clash_store_recount(sc);
    free(xyz);
    return sc;
fail:
    free(xyz);
    clash_scene_destroy(sc);
    return NULL;
}

clash_scene *clash_decomp_build(const clash_decomp *D, int *rc, clash_error *err)
{
    *rc = CLASH_OK;
    if (D->npresent == 0) return NULL;
    if (D->full) return build_frames(D, rc, err);
    clash_scene_desc sub = *D->d;
    sub.objects = malloc(sizeof *sub.objects * (size_t)D->npresent);
    if (!sub.objects) {
        *rc = clash_fail(err, CLASH_EFAIL, "out of memory building this rank's part of the scene");
        return NULL;
    }
    for (int i = 0; i < D->npresent; ++i) sub.objects[i] = D->d->objects[D->present[i]];
    sub.nobjects = D->npresent;
    clash_scene *sc = NULL;
    *rc = clash_scene_build(&sub, &sc, err);
    free(sub.objects);
    return sc;
}

int clash_decomp_reports(clash_decomp *D, int a, int b, int s)
{
    if (D->box_s != s) { /* every object's box in step s, once per step */
        if (!D->blo && (!(D->blo = malloc(sizeof *D->blo * (size_t)D->nobj)) ||
                        !(D->bhi = malloc(sizeof *D->bhi * (size_t)D->nobj))))
            return -1;
        for (int o = 0; o < D->nobj; ++o) clash_decomp_box(D, o, s, D->blo[o], D->bhi[o]);
        D->box_s = s;
    }
    double p[3];
    for (int q = 0; q < 3; ++q) p[q] = fmax(D->blo[a][q], D->blo[b][q]);
    return clash_decomp_owner(D, p) == D->me;
}
