/*
 * ccd_cmd.h — `clash ccd vf|ee FILE.csv`: the CCD kernel (kernels/ccd.h) on
 * raw queries, one "hit,toi" line each (ccd_cmd.c).
 */
#ifndef CLASH_CLI_CCD_CMD_H
#define CLASH_CLI_CCD_CMD_H

#include <stdio.h>

/* argv[1] is "ccd".  Returns the exit status: 0, 2 for bad usage or input
 * (a message "clash: error: ..." on stderr naming the file and line), 1 for
 * other failures. */
int clash_ccd_cmd(int argc, char **argv);

/* The command's usage lines. */
void clash_ccd_usage(FILE *f);

#endif
