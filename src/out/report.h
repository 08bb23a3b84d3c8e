/*
 * report.h — what a run leaves behind: the pairs CSV, the run report YAML
 * (src/cli/REFERENCE.md), and the order-independent checksum of all (step, pair) rows.
 *
 * Output files are written atomically: rows go to "FILE.tmp.PID" and the
 * file is renamed into place only when the run succeeded; on failure the
 * temporary file is removed, so no half-written output is ever left.
 *
 * Declared in clash_internal.h, which the command uses too.
 */
#ifndef CLASH_REPORT_H
#define CLASH_REPORT_H

#include "clash_internal.h"

#endif
