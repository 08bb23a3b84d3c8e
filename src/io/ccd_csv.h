/*
 * ccd_csv.h — the reader of CCD query files (ccd_csv.c), the format of the
 * benchmark of Wang et al. (TOG 2021), ../shared/data/ccd-queries:
 * 8 rows a query, "x_num,x_den,y_num,y_den,z_num,z_den[,truth]", each
 * coordinate the rational num/den of two decimal integers of any length.
 * Rows 0-3 are the four points at t = 0, rows 4-7 the same at t = 1
 * (vertex-face: v, f0, f1, f2; edge-edge: a0, a1, b0, b1), the layout of
 * kernels/ccd.h.
 */
#ifndef CLASH_IO_CCD_CSV_H
#define CLASH_IO_CCD_CSV_H

#include <stdint.h>

#include "base/error.h"

typedef struct clash_ccd_queries {
    int64_t n;               /* queries */
    double (*x0)[4][3];      /* n queries at t = 0 */
    double (*x1)[4][3];      /* at t = 1 */
    int8_t *truth;           /* 0/1 from the 7th column, -1 where the file has 6 columns */
    int64_t inexact;         /* coordinates not exactly a double (rounded to nearest) */
} clash_ccd_queries;

/* Reads path into q.  Bad input fails with CLASH_EINPUT and "PATH:LINE:
 * what": a row that is not 6 or 7 integers, a zero denominator, a coordinate
 * beyond the doubles' range, a truth other than 0/1, rows not a multiple of 8
 * (naming the first row of the incomplete query), a query whose truth differs
 * between its rows.  Blank lines are skipped.  q is empty on failure. */
int clash_ccd_read(const char *path, clash_ccd_queries *q, clash_error *err);
void clash_ccd_free(clash_ccd_queries *q);

/* num/den of two decimal integer strings (optional sign, digits only, up to
 * 2000 characters): the double nearest to it, exactly when the ratio is a
 * double (numerator of at most 53 significant bits over a power of two).
 * Returns 0 and sets *v, with *exact 1 or 0; -1 when a string is not an
 * integer; -2 for a zero denominator; -3 when the value is not finite. */
int clash_ccd_ratio(const char *num, const char *den, double *v, int *exact);

/* The benchmark's folders: the names of dir's entries (dot files left out),
 * at most max of them, in strcmp order, each strdup'd into names[] (the
 * caller frees them).  Returns their count; 0 when dir cannot be opened. */
int clash_ccd_list_dir(const char *dir, char **names, int max);
/* The query files of one set and kind: the paths ROOT/SET/KIND/NAME.csv
 * (KIND "vertex-face" for kind 0, "edge-edge" for 1), at most max, in strcmp
 * order of NAME, each malloc'd into paths[] (the caller frees them).
 * Returns their count; 0 when the folder cannot be opened. */
int clash_ccd_kind_files(const char *root, const char *set, int kind, char **paths, int max);

#endif
