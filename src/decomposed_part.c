/*
 * decomposed_part.c — a rank's part of the in-memory decomposed run (the
 * model is decomposed.c's opening comment, steps 5 and 6): the owners'
 * states packed for the ranks whose parts hold their objects, and on the
 * receiving side the part's scene and one-rank run, made again when the
 * rank rebuilds and moved to the states received.
 *
 * On the wire each object is an 8-byte header (its number, the kinds of
 * the two states that follow) then its current state, sent only to a rank
 * that rebuilds (its new part starts from there), and its next state, when
 * one was set: a pose as 12 doubles, vertices as 3 * nv doubles (what the
 * store keeps), a state of the scene's formula law as its number (8 bytes:
 * the part's store holds the law), each padded to 8 bytes.  Which ranks hold an object is
 * known to its owner without a message: every part follows near_cell from
 * the same boxes and cells.
 */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "decomposed_int.h"
#include "pipeline.h"

/* A state on the wire: an 8-byte header per object, then its current state
 * (to a rank that rebuilds) and its next state, each 8-byte aligned. */
typedef struct entry_head {
    int32_t obj;
    uint8_t cur, next, pad_[2];
} entry_head;

static size_t state_bytes(const clash_scene *sc, int o, int kind)
{
    if (kind == K_POSE) return 12 * sizeof(double);
    if (kind == K_LAW) return sizeof(int64_t);
    if (kind == K_VERTS) return 3 * sizeof(double) * (size_t)(sc->vofs[o + 1] - sc->vofs[o]);
    return 0;
}

static char *put_state(char *p, const clash_scene *sc, int o, const dstate *q)
{
    const int64_t s = q->s;
    if (q->kind == K_POSE) memcpy(p, q->x.R, sizeof q->x.R), memcpy(p + sizeof q->x.R, q->x.t, sizeof q->x.t);
    else if (q->kind == K_LAW) memcpy(p, &s, sizeof s);
    else if (q->kind == K_VERTS) memcpy(p, q->v, 3 * sizeof(double) * (size_t)(sc->vofs[o + 1] - sc->vofs[o]));
    return p + state_bytes(sc, o, q->kind);
}

/* Sets the state at p (kind) as the next state of local object l of the part. */
static const char *take_state(clash_dist *D, const clash_scene *sc, int o, int kind, const char *p)
{
    const int l = D->local[o];
    if (kind == K_POSE) {
        clash_xform x;
        memcpy(x.R, p, sizeof x.R), memcpy(x.t, p + sizeof x.R, sizeof x.t);
        clash_store_set_pose(D->sub, l, &x);
    } else if (kind == K_LAW) { /* the part's copy of the law, evaluated as the owner did */
        int64_t s;
        memcpy(&s, p, sizeof s);
        clash_store_set_law_state(D->sub, l, (int)s);
    } else if (kind == K_VERTS) {
        const int64_t nv = sc->vofs[o + 1] - sc->vofs[o];
        memcpy(D->dbuf, p, 3 * sizeof(double) * (size_t)nv); /* (p may lie unaligned for a double) */
        clash_store_set_vertices(D->sub, l, D->dbuf);
    }
    return p + state_bytes(sc, o, kind);
}

/* The S2 filter of the part's run (clash_pipe_keep_pairs, local objects). */
static int keep_pair(void *ctx, int a, int b)
{
    const clash_dist *D = ctx;
    return reports(D, D->present[a], D->present[b]);
}

/* This rank's part made again from inpart[]: its scene (each object of the
 * host's mesh at its state-0 pose, in global order) and its one-rank run. */
int clash_dist_rebuild_part(clash_dist *D, const clash_scene *sc, clash_error *err)
{
    clash_pipe_destroy(D->subrun), clash_scene_destroy(D->sub);
    D->subrun = NULL, D->sub = NULL;
    for (int i = 0; i < D->np; ++i) D->local[D->present[i]] = -1;
    D->np = 0;
    int64_t nv = 0, nf = 0;
    for (int o = 0; o < D->n; ++o)
        if (D->inpart[o]) { /* ascending: local numbers keep the global order, and so the pairs' */
            D->local[o] = D->np, D->present[D->np++] = o;
            nv += sc->vofs[o + 1] - sc->vofs[o], nf += sc->fofs[o + 1] - sc->fofs[o];
        }
    D->rebuilds++;
    if (!D->np) return CLASH_OK;
    int *mesh = malloc(sizeof *mesh * (size_t)(sc->nmesh > 0 ? sc->nmesh : 1));
    clash_scene *p = clash_store_new(sc->name);
    if (!mesh || !p || clash_store_reserve(p, D->np, nv, nf)) {
        free(mesh), clash_scene_destroy(p);
        return clash_fail(err, CLASH_EFAIL, "out of memory building this rank's part of the scene");
    }
    for (int m = 0; m < sc->nmesh; ++m) mesh[m] = -1;
    for (int i = 0; i < D->np; ++i) {
        const int o = D->present[i], m = sc->obj_mesh[o];
        int r = 0;
        if (mesh[m] < 0) {
            const clash_store_mesh *M = &sc->mesh[m];
            for (int64_t j = 0; j < 3 * M->nv; ++j) D->dbuf[j] = M->xyz[j]; /* the host's doubles */
            if ((r = clash_store_add_mesh(p, D->dbuf, M->nv, M->tri, M->nf, sc->name, err)) >= 0) mesh[m] = r;
        }
        if (r >= 0) r = clash_store_add_object(p, mesh[m], &sc->pose0[o], sc->obj_scale[o], sc->obj_deforming[o], err);
        if (r >= 0 && sc->law[o] == CLASH_LAW_FORMULA && clash_store_set_law(p, r, &sc->pose[o]))
            r = -clash_fail(err, CLASH_EFAIL, "out of memory building this rank's part of the scene");
        if (r < 0) {
            free(mesh), clash_scene_destroy(p);
            return -r;
        }
    }
    free(mesh);
    D->sub = p;
    if (!(D->subrun = clash_pipe_create(p, &D->subcfg, err))) return err && err->code ? err->code : CLASH_EFAIL;
    clash_pipe_keep_pairs(D->subrun, keep_pair, D);
    return CLASH_OK;
}

/* Step 5: the owners' states for every rank whose part holds them, packed
 * by rank (flags: each rank's rebuild).  Returns the buffer (NULL with
 * scount all 0 when out of memory). */
char *clash_dist_pack_states(clash_dist *D, const clash_scene *sc)
{
    const int R = D->R;
    for (int r = 0; r < R; ++r) D->scount[r] = 0;
    for (int i = 0; i < D->nown; ++i) {
        const int o = D->own[i];
        for (int r = 0; r < R; ++r) {
            uint8_t *mem = &D->member[(size_t)i * (size_t)R + (size_t)r];
            if (D->flags[2 * r]) *mem = (uint8_t)near_cell(D, o, r);
            if (*mem && (D->flags[2 * r] || D->next[i].kind != K_NONE))
                D->scount[r] += (int64_t)(sizeof(entry_head) + (D->flags[2 * r] ? state_bytes(sc, o, D->cur[i].kind) : 0) +
                                          state_bytes(sc, o, D->next[i].kind));
        }
    }
    int64_t tot = 0;
    for (int r = 0; r < R; ++r) D->cursor[r] = tot, tot += D->scount[r];
    char *buf = malloc((size_t)(tot > 0 ? tot : 1));
    if (!buf) {
        for (int r = 0; r < R; ++r) D->scount[r] = 0;
        return NULL;
    }
    for (int i = 0; i < D->nown; ++i) {
        const int o = D->own[i];
        for (int r = 0; r < R; ++r) {
            const int reb = D->flags[2 * r] != 0;
            if (!D->member[(size_t)i * (size_t)R + (size_t)r] || (!reb && D->next[i].kind == K_NONE)) continue;
            char *p = buf + D->cursor[r];
            const entry_head h = {.obj = o, .cur = (uint8_t)(reb ? D->cur[i].kind : K_NONE),
                                  .next = (uint8_t)D->next[i].kind};
            memcpy(p, &h, sizeof h);
            p += sizeof h;
            if (reb) p = put_state(p, sc, o, &D->cur[i]);
            p = put_state(p, sc, o, &D->next[i]);
            D->cursor[r] = p - buf;
        }
    }
    return buf;
}

/* Step 6: the states received, into this rank's part: when it was rebuilt,
 * the current states first (moved there by S0 alone; the part's store then
 * numbers its state as the run does, which a law's turn in the ccd stage
 * reads), then the next ones. */
int clash_dist_take_states(clash_dist *D, const clash_scene *sc, int rebuilt, int state, const char *recv,
                           int64_t nrecv, clash_error *err)
{
    int64_t ncur = 0;
    for (int pass = rebuilt ? 0 : 1; pass < 2; ++pass) {
        for (const char *p = recv; p < recv + nrecv;) {
            entry_head h;
            memcpy(&h, p, sizeof h);
            p += sizeof h;
            if (h.obj < 0 || h.obj >= D->n || D->local[h.obj] < 0)
                return clash_fail(err, CLASH_EFAIL, "object %d: its state came to a rank whose part lacks it", h.obj);
            if (pass == 0) ncur += h.cur != K_NONE;
            p = pass == 0 ? take_state(D, sc, h.obj, h.cur, p) : p + state_bytes(sc, h.obj, h.cur);
            p = pass == 1 ? take_state(D, sc, h.obj, h.next, p) : p + state_bytes(sc, h.obj, h.next);
        }
        if (pass == 0) {
            if (ncur != D->np)
                return clash_fail(err, CLASH_EFAIL, "this rank's part holds %d objects but got %lld current states",
                                  D->np, (long long)ncur);
            int rc = clash_store_advance_par(D->sub, &D->subrun->exec, err);
            if (rc) return rc;
            D->sub->state = state;
        }
    }
    return CLASH_OK;
}
