/*
 * profile_cmd.h — `clash profile`: find a counter source, or re-run the
 * command under valgrind's callgrind when no hardware source works
 * (profile_cmd.c explains the re-run).
 */
#ifndef CLASH_CLI_PROFILE_CMD_H
#define CLASH_CLI_PROFILE_CMD_H

#include "cli/options.h"

/* Returns 1 when it ran the profile in a valgrind child (*status: its exit
 * status), 0 when the caller should run it in-process. */
int clash_profile_reexec(const clash_cli *cli, int argc, char **argv, int *status);

#endif
