/*
 * geometry_csv.h — the command's CSV rows with --geometry (geometry_csv.c):
 * the pairs and contacts files gain the columns of the step's geometry
 * (clash.h, "Contact geometry"), as src/cli/REFERENCE.md lists them.
 */
#ifndef CLASH_CLI_GEOMETRY_CSV_H
#define CLASH_CLI_GEOMETRY_CSV_H

#include <stdio.h>

#include "clash/clash.h"

/* The headers, and one step's rows; 0, or -1 when a write or a geometry call failed. */
int clash_geom_pairs_header(FILE *f);
int clash_geom_contacts_header(FILE *f);
int clash_geom_pairs_rows(FILE *f, int step, clash_run *run, const clash_pairs *p);
int clash_geom_contacts_rows(FILE *f, int step, clash_run *run, const clash_contacts *c);

#endif
