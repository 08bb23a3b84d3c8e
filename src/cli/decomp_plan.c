/*
 * decomp_plan.c — the plan of a decomposed run (decompose.h): object boxes
 * from the laws, the work model's points (object centres and the overlaps
 * of object pairs' boxes), recursive coordinate bisection of the world
 * into one cell per rank by them, each epoch's owned and ghost objects,
 * and the rule that picks the one rank that reports a pair.
 *
 * Everything here is computed by every rank from the same description with
 * the same double arithmetic in the same order, so every rank holds the
 * same cells and makes the same choices without a message.  Ties are broken
 * by object number, never by anything a rank has alone.
 */
#include "cli/decompose.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"

void clash_decomp_free(clash_decomp *D)
{
    free(D->pose), free(D->mrad), free(D->mnf), free(D->mnv), free(D->gfofs);
    clash_rcb_free(&D->cells), free(D->present), free(D->owner), free(D->blo), free(D->bhi);
    if (D->fl) clash_frames_layout_free(D->fl);
    free(D->fl), free(D->fbox);
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

/* Deforming (frames) scenes: the objects from frame 0 (scene_build.c's
 * own layout), then every frame file read once, one at a time, for every
 * object's box in it: the float minimum and maximum of its vertices, as
 * the store's frames hold them. */
static int init_frames(clash_decomp *D, clash_error *err)
{
    const clash_scene_desc *d = D->d;
    if (!(D->fl = calloc(1, sizeof *D->fl))) return clash_fail(err, CLASH_EFAIL, "out of memory planning");
    clash_frames_layout *L = D->fl;
    int rc = clash_frames_layout_load(d, L, err);
    if (rc) return rc;
    const int n = L->nobj;
    D->nobj = n, D->nv = L->nv;
    D->gfofs = malloc(sizeof *D->gfofs * ((size_t)n + 1));
    D->fbox = malloc(6 * sizeof *D->fbox * (size_t)n * (size_t)d->nframes);
    if (!D->gfofs || !D->fbox || clash_rcb_init(&D->cells, D->R))
        return clash_fail(err, CLASH_EFAIL, "out of memory planning");
    for (int o = 0; o <= n; ++o) D->gfofs[o] = L->fofs[o];
    for (int k = 0; k < d->nframes; ++k) {
        clash_mesh m = {0};
        const clash_mesh *fm = &L->first;
        if ((rc = k > 0 ? clash_frames_load(d, L, k, &m, err) : clash_frames_check(d, L, 0, fm, err))) return rc;
        if (k > 0) fm = &m;
        float *bx = D->fbox + 6 * (size_t)k * (size_t)n;
        for (int o = 0; o < n; ++o)
            for (int c = 0; c < 3; ++c) {
                float l = INFINITY, h = -INFINITY;
                for (int64_t v = L->vofs[o]; v < L->vofs[o + 1]; ++v) {
                    const float x = (float)fm->xyz[3 * (size_t)L->vfile[v] + c];
                    l = x < l ? x : l, h = x > h ? x : h;
                }
                bx[6 * o + c] = l, bx[6 * o + 3 + c] = h;
            }
        clash_mesh_free(&m);
    }
    free(L->first.xyz); /* the faces stay, to check the frames read again */
    L->first.xyz = NULL;
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
    const int nfr = D->d->nframes;
    const int a = s > 0 ? s - 1 : 0, b = s < nfr ? s : nfr - 1;
    double m = 0;
    for (int k = 0; k < 3; ++k) {
        float l = INFINITY, h = -INFINITY; /* the min and max of frames a and b: of their vertices */
        for (int f = a; f <= b; f += (b > a ? b - a : 1)) {
            const float *bx = D->fbox + 6 * ((size_t)f * (size_t)D->nobj + (size_t)o);
            l = bx[k] < l ? bx[k] : l, h = bx[3 + k] > h ? bx[3 + k] : h;
        }
        lo[k] = l, hi[k] = h, m = fmax(m, fmax(fabs(lo[k]), fabs(hi[k])));
    }
    const double r = D->min_sep + 1e-5 * m + 1e-6; /* the faces' own rounding allowances: generous */
    for (int k = 0; k < 3; ++k) lo[k] -= r, hi[k] += r;
}

void clash_decomp_box(const clash_decomp *D, int o, int s, double lo[3], double hi[3])
{
    if (D->fl) {
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

/* The work model the cells are cut by (see decompose.h): per object its
 * centre at s0 weighted by CLASH_DECOMP_FACE_COST x its faces (S0-S3 box
 * and cull every face of a present object), and per object pair whose boxes
 * overlap in a step of the epoch, the min corner of that overlap (where
 * the pair's reporter is found) weighted by the faces of a and of b
 * estimated inside the overlap (a face count times the product over the
 * axes of the overlap's share of the object's box: for a slab of a sphere's
 * box that is the share of its surface, by Archimedes): S3 keeps those
 * faces and S4/S5 work on them, on the reporting rank alone.  The pairs of
 * every step of the epoch count, each with 1/steps of its weight, since the
 * reporter of a pair is found anew each step and the pairs change as the
 * objects move.  Points
 * (malloc'd, n objects first) and weights into *pc, *pw; returns their
 * number, or -1 when out of memory.  Every rank computes the same numbers in
 * the same order. */
static int work_points(const clash_decomp *D, int s0, int s1, const double (*c)[3], double (**pc)[3], double **pw)
{
    const int n = D->nobj, ns = s1 - s0 + 1;
    double(*bl)[3] = malloc(sizeof *bl * (size_t)n), (*bh)[3] = malloc(sizeof *bh * (size_t)n);
    clash_keyed *k = malloc(sizeof *k * (size_t)n);
    size_t cap = 4 * (size_t)n + 16, np = (size_t)n;
    double(*pt)[3] = malloc(sizeof *pt * cap), *w = malloc(sizeof *w * cap);
    int ok = bl && bh && k && pt && w;
    for (int o = 0; ok && o < n; ++o) {
        memcpy(pt[o], c[o], sizeof pt[o]);
        w[o] = CLASH_DECOMP_FACE_COST * (double)(D->gfofs[o + 1] - D->gfofs[o]);
    }
    for (int s = s0; ok && s <= s1; ++s) { /* every step of the epoch: its pairs, each 1/ns of the epoch's work */
        for (int o = 0; o < n; ++o) {
            clash_decomp_box(D, o, s, bl[o], bh[o]);
            k[o] = (clash_keyed){bl[o][0], o};
        }
        qsort(k, (size_t)n, sizeof *k, clash_keyed_cmp);
        for (int i = 0; ok && i < n; ++i) {
            const int a = k[i].id;
            for (int j = i + 1; ok && j < n && k[j].v <= bh[a][0]; ++j) {
                const int b = k[j].id;
                if (!clash_box_overlaps(bl[a], bh[a], bl[b], bh[b])) continue;
                double lo[3], fa = 1, fb = 1;
                for (int q = 0; q < 3; ++q) {
                    lo[q] = fmax(bl[a][q], bl[b][q]);
                    const double e = fmin(bh[a][q], bh[b][q]) - lo[q];
                    fa *= fmin(1.0, e / (bh[a][q] - bl[a][q])), fb *= fmin(1.0, e / (bh[b][q] - bl[b][q]));
                }
                if (np == cap) {
                    cap *= 2;
                    double(*p2)[3] = realloc(pt, sizeof *pt * cap), *w2 = p2 ? realloc(w, sizeof *w * cap) : NULL;
                    if (p2) pt = p2;
                    if (w2) w = w2;
                    if (!(ok = p2 && w2)) break;
                }
                memcpy(pt[np], lo, sizeof lo);
                w[np++] = (fa * (double)(D->gfofs[a + 1] - D->gfofs[a]) + fb * (double)(D->gfofs[b + 1] - D->gfofs[b])) / ns;
            }
        }
    }
    free(bl), free(bh), free(k);
    if (!ok || np > (size_t)INT_MAX) {
        free(pt), free(w);
        return -1;
    }
    *pc = pt, *pw = w;
    return (int)np;
}

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
        double(*pc)[3] = NULL, *w = NULL;
        const int np = work_points(D, s0, s1, (const double(*)[3])c, &pc, &w);
        if (np < 0 || clash_rcb_cut(&D->cells, np, (const double(*)[3])pc, w) < 0) {
            free(pc), free(w), free(c), free(owner), free(present);
            return -1;
        }
        D->recuts++;
        free(pc), free(w);
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
 * mesh (frame 0's, as scene_build.c makes the whole) with its own vertices
 * of the frames this epoch's steps use, s0-1 .. s1, read one file at a time;
 * the part's other frames stay NULL (store/motion.c reads only frames s-1
 * and s in step s). */
static clash_scene *build_frames(const clash_decomp *D, int *rc, clash_error *err)
{
    const clash_scene_desc *d = D->d;
    const char *name = d->name ? d->name : "scene";
    clash_scene *sc = clash_store_new(name);
    if (!sc) {
        *rc = clash_fail(err, CLASH_EFAIL, "out of memory building this rank's part of the scene");
        return NULL;
    }
    sc->steps = d->steps > 0 ? d->steps : 1, sc->mode = d->mode, sc->self_collision = d->self_collision;
    const int k0 = D->s0 > 0 ? D->s0 - 1 : 0, k1 = D->s1 < d->nframes ? D->s1 : d->nframes - 1;
    if ((*rc = clash_frames_fill(d, D->fl, D->present, D->npresent, k0, k1, name, sc, err))) {
        clash_scene_destroy(sc);
        return NULL;
    }
    return sc;
}

clash_scene *clash_decomp_build(const clash_decomp *D, int *rc, clash_error *err)
{
    *rc = CLASH_OK;
    if (D->npresent == 0) return NULL;
    if (D->fl) return build_frames(D, rc, err);
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
    return clash_rcb_reporter(&D->cells, D->blo[a], D->blo[b]) == D->me;
}
