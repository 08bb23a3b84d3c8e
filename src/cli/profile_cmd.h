/*
 * profile_cmd.h — `clash profile`: find a counter source, or re-run the
 * command under valgrind's callgrind when no hardware source works
 * (profile_cmd.c explains the re-run).
 */
#ifndef CLASH_CLI_PROFILE_CMD_H
#define CLASH_CLI_PROFILE_CMD_H

#include <stddef.h>

#include "cli/options.h"

/* Returns 1 when it ran the profile in a valgrind child (*status: its exit
 * status), 0 when the caller should run it in-process. */
int clash_profile_reexec(const clash_cli *cli, int argc, char **argv, int *status);

/* The last-level cache callgrind simulates: with sim_ll (--sim-ll S,A,L) that one; else the
 * machine's L3 from hwloc (size, ways, line size; the set count rounded down to a power of two,
 * the ways scaled up to match, as callgrind needs); else none.  opt gets valgrind's "--LL=S,A,L"
 * ("" for none: valgrind's own choice), desc where the model came from ("hwloc L3 32 MiB 16-way
 * 64 B", "--sim-ll S,A,L", "valgrind's default (...)").  Returns 1 when opt is set. */
int clash_profile_ll_model(const char *sim_ll, char *opt, size_t on, char *desc, size_t dn);

#endif
