/*
 * face_rows.c — the kept faces' rows and slabs, shared by S4 and S5 in swept
 * mode with the face octree: made once a step, in parallel, before the
 * octree's descent.
 *
 * Row (S5, stages/narrow.c).  The candidates' faces are kept faces, each in
 * some 5 to 10 candidates, so each kept face's six positions are gathered
 * once, into a row of CK_ROW = 24 floats (kernels.h): the x y z of its
 * vertices at s, then at s-1, as offsets from the face's origin (its first
 * vertex at s rounded to float), each the store's double less the origin in
 * double, rounded once; the origin; its arc margin (a double), at the
 * face's place in run->cull->kept.  The offsets keep the faces' shape to float
 * precision of the face's size, wherever it lies: S5's lanes add the
 * origins' difference in double (ck_rows8o), and its exact tests read the
 * store's doubles (clash_row_truth).  run->rows->fplace gives that place for a face
 * number (written for kept faces only).
 *
 * Slabs (S4, stages/mid/octree.c).  With the rows, each kept face's DOP
 * (kernels/face_dops.c): its six positions' extents along ten diagonal
 * directions, widened by its share of the narrow test's tolerance (its arc
 * margin and half the minimum separation, rounded up: the pair's tolerance
 * is their sum), CK_FDOP = 20 floats at its place in run->rows->fdop.  A leaf
 * keeps a pair of faces only where their boxes and their DOPs overlap: the
 * others are apart by more than their tolerance, and S5 would say so.  The
 * DOPs come from the rows just written, eight faces at a time in the
 * filter's lanes (ck_rows8o: offset plus origin, rounded to float, within
 * 3.01 u M of the doubles), while they are in cache; face_dops.c's margin
 * 2^-18 M covers that rounding (at most 9.1 u M along a diagonal) with the
 * rest of its float error.
 *
 * Under MPI a rank runs only its own share of the octree's units, so it
 * needs the rows and DOPs of their faces alone (clash_rows_make_some): the
 * places and input numbers of every kept face are written first (S6 and the
 * merge read them by place), then the rows of the places marked.
 */
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/tuning.h"
#include "stages/facetest.h"
#include "stages/stages.h"

/* The DOPs of the n (<= 8) kept faces idx[], of arc margins mar[]. */
static void dops8(clash_run *run, int32_t idx[8], double mar[8], int n)
{
    const double half_sep = 0.5 * run->cfg.min_separation;
    float P[24][8], g[8];
    float *out[8];
    for (int l = n; l < 8; ++l) idx[l] = idx[0], mar[l] = mar[0]; /* finite lanes */
    ck_rows8o(run->rows->frow, idx, NULL, P);
    for (int l = 0; l < 8; ++l) {
        /* the face's share of the pair's tolerance, rounded up */
        g[l] = ck_f32_up((mar[l] + half_sep) * (1 + 0x1p-20));
        out[l] = run->rows->fdop + (size_t)CK_FDOP * (size_t)idx[l];
    }
    ck_face_dops8(P, g, n, out);
}

typedef struct rows_ctx {
    clash_run *run;
    const uint8_t *need; /* NULL: every kept face */
} rows_ctx;

/* Kept faces [begin, end) by step: rows, places and (run->rows->fdop) DOPs. */
static void rows_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    clash_run *run = ((rows_ctx *)p)->run;
    const uint8_t *need = ((rows_ctx *)p)->need;
    const clash_scene *sc = run->sc;
    int32_t idx[8];
    double mar[8];
    int n = 0;
    for (int64_t k = begin; k < end; k += step) {
        const uint32_t f = run->cull->kept[k];
        if (need) { /* the places were written (places_range); only the faces of this rank's units */
            if (!need[k]) continue;
        } else {
            run->rows->fplace[f] = (int32_t)k;
            run->rows->korig[k] = sc->face_orig ? sc->face_orig[f] : f;
        }
        const int32_t v[3] = {sc->f0[f], sc->f1[f], sc->f2[f]};
        float *r = run->rows->frow + CK_ROW * k;
        const double *const X[3] = {sc->dx, sc->dy, sc->dz}, *const Xp[3] = {sc->dpx, sc->dpy, sc->dpz};
        for (int c = 0; c < 3; ++c) {
            const float o = (float)X[c][v[0]];
            r[18 + c] = o;
            for (int j = 0; j < 3; ++j)
                r[3 * j + c] = (float)(X[c][v[j]] - (double)o), r[9 + 3 * j + c] = (float)(Xp[c][v[j]] - (double)o);
        }
        const double m = sc->nturning ? clash_face_margin(run, f) : 0;
        memcpy(r + 21, &m, sizeof m);
        r[23] = 0;
        if (!run->rows->dops) continue;
        mar[n] = m, idx[n++] = (int32_t)k;
        if (n == 8) dops8(run, idx, mar, n), n = 0;
    }
    if (n) dops8(run, idx, mar, n);
}

/* Kept faces [begin, end) by step: their places and input numbers. */
static void places_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    clash_run *run = p;
    const uint32_t *fo = run->sc->face_orig;
    for (int64_t k = begin; k < end; k += step) {
        const uint32_t f = run->cull->kept[k];
        run->rows->fplace[f] = (int32_t)k;
        run->rows->korig[k] = fo ? fo[f] : f;
    }
}

int clash_rows_places(clash_run *run)
{
    const size_t n = run->cull->nkept;
    if (n == 0) return -1;
    if (!run->rows->fplace && !(run->rows->fplace = malloc(sizeof(int32_t) * (size_t)run->sc->nf))) return -1;
    if (clash_pages_renew((void **)&run->rows->korig, &run->rows->cap_korig, n, sizeof *run->rows->korig, 0)) return -1;
    const clash_exec ex = clash_exec_sized(&run->exec, (int64_t)n);
    clash_par_for_blocks(&ex, (int64_t)n, CLASH_TUNE_ROWS_BLOCK, places_range, run);
    return 0;
}

int clash_rows_make(clash_run *run, int dops) { return clash_rows_make_some(run, dops, NULL); }

int clash_rows_make_some(clash_run *run, int dops, const uint8_t *need)
{
    const size_t n = run->cull->nkept;
    run->rows->ready = run->rows->dops = 0;
    if (n == 0) return -1;
    if (!run->rows->fplace && !(run->rows->fplace = malloc(sizeof(int32_t) * (size_t)run->sc->nf))) return -1;
    if (n > run->rows->cap_frow) { /* a quarter more than asked (base/mem.h) */
        if (clash_pages_renew((void **)&run->rows->frow, &run->rows->cap_frow, n, CK_ROW * sizeof(float), CLASH_ROWS_PAD)) return -1;
        memset(run->rows->frow + run->rows->cap_frow * CK_ROW, 0, CLASH_ROWS_PAD);
    }
    if (!need && clash_pages_renew((void **)&run->rows->korig, &run->rows->cap_korig, n, sizeof *run->rows->korig, 0)) return -1;
    /* (out of memory for the DOPs: the leaves test the boxes alone) */
    if (dops && n > run->rows->cap_fdop) { /* ck_fdop_mask reads 8 past a row */
        if (clash_pages_renew((void **)&run->rows->fdop, &run->rows->cap_fdop, n, CK_FDOP * sizeof(float), CLASH_ROWS_PAD)) dops = 0;
        else memset(run->rows->fdop + run->rows->cap_fdop * CK_FDOP, 0, CLASH_ROWS_PAD);
    }
    run->rows->dops = dops;
    /* Under the default partition (chunk, no --chunk), blocks of
     * CLASH_TUNE_ROWS_BLOCK faces (base/tuning.h) as the workers ask, as S3
     * does (each row and DOP is its face's alone): a worker on a slowed CPU
     * takes fewer instead of holding S4 for its fixed half (with both CPUs
     * free it costs nothing; bench/RESULTS.md).  --chunk N and
     * --partition stride keep their static partitions, for the partition
     * study. */
    const clash_exec ex = clash_exec_sized(&run->exec, (int64_t)n);
    rows_ctx rc = {run, need};
    clash_par_for_blocks(&ex, (int64_t)n, CLASH_TUNE_ROWS_BLOCK, rows_range, &rc);
    run->rows->ready = 1;
    return 0;
}

void clash_rows_free(clash_rows *r)
{
    if (!r) return;
    clash_pages_free(r->frow, r->cap_frow, CK_ROW * sizeof(float), CLASH_ROWS_PAD);
    clash_pages_free(r->fdop, r->cap_fdop, CK_FDOP * sizeof(float), CLASH_ROWS_PAD);
    clash_pages_free(r->korig, r->cap_korig, sizeof *r->korig, 0);
    free(r->fplace);
    free(r);
}
