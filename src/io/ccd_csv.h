/*
 * ccd_csv.h — the reader of CCD query files (ccd_csv.c), the format of the
 * benchmark of Wang et al. (TOG 2021), ../shared/data/ccd-queries:
 * 8 rows a query, "x_num,x_den,y_num,y_den,z_num,z_den[,truth]", each
 * coordinate the rational num/den of two decimal integers of any length.
 * Rows 0-3 are the four points at t = 0, rows 4-7 the same at t = 1
 * (vertex-face: v, f0, f1, f2; edge-edge: a0, a1, b0, b1), the layout of
 * kernels/ccd.h.  The queries' type, their reader and the folder lister are
 * declared in clash_internal.h (the command's `clash ccd` and `clash bench
 * ccd` read these files too).
 */
#ifndef CLASH_IO_CCD_CSV_H
#define CLASH_IO_CCD_CSV_H

#include <stdint.h>

#include "base/error.h"
#include "clash_internal.h"

/* num/den of two decimal integer strings (optional sign, digits only, up to
 * 2000 characters): the double nearest to it, exactly when the ratio is a
 * double (numerator of at most 53 significant bits over a power of two).
 * Returns 0 and sets *v, with *exact 1 or 0; -1 when a string is not an
 * integer; -2 for a zero denominator; -3 when the value is not finite. */
int clash_ccd_ratio(const char *num, const char *den, double *v, int *exact);

/* The query files of one set and kind: the paths ROOT/SET/KIND/NAME.csv
 * (KIND "vertex-face" for kind 0, "edge-edge" for 1), at most max, in strcmp
 * order of NAME, each malloc'd into paths[] (the caller frees them).
 * Returns their count; 0 when the folder cannot be opened. */
int clash_ccd_kind_files(const char *root, const char *set, int kind, char **paths, int max);

#endif
