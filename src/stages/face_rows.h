/*
 * face_rows.h — the kept faces' rows and DOPs (stages/face_rows.c), swept mode: each
 * kept face's six positions as a row of CK_ROW floats, made once a step so
 * that S5's kernels read one line per face, and its diagonal slabs, which
 * the face octree's leaves test beside the boxes.  The face octree makes
 * them in S4 (with its DOPs); S5 makes the rows when S4 did not.
 */
#ifndef CLASH_STAGES_ROWS_H
#define CLASH_STAGES_ROWS_H

#include "core/run.h"

typedef struct clash_rows {
    /* each kept face's row: x y z of the points at s, then at s-1, as float
     * offsets from the face's origin, then the origin; the arc margin, a
     * double (CK_ROW = 24 floats), at the face's place in S3's kept list */
    float *frow;
    size_t cap_frow;
    int32_t *fplace;   /* each face's place in the kept list (read for kept faces only) */
    /* each kept face's number in the input's numbering (sc->face_orig's,
     * or its own), at its place: S6 maps hit keys of places through this
     * small array rather than through kept and the store-wide face_orig */
    uint32_t *korig;
    size_t cap_korig;
    float *fdop;       /* each kept face's DOP (kernels/face_dops.c: CK_FDOP floats at its place) */
    size_t cap_fdop;
    int ready, dops;   /* the rows, and the DOPs, are this step's */
} clash_rows;

void clash_rows_free(clash_rows *r);

#endif
