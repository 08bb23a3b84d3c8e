/*
 * options.h — the `clash` command's options (src/cli/REFERENCE.md, "The command").
 *
 * Every option is parsed and validated here; a value out of range or an
 * option whose feature this build does not have is an error (exit 2) with a
 * message naming the option: nothing is silently ignored.
 */
#ifndef CLASH_CLI_OPTIONS_H
#define CLASH_CLI_OPTIONS_H

#include <stdio.h>

#include "clash/clash.h"

typedef struct clash_cli {
    const char *command;       /* run | info | profile | bench */
    const char *scene;         /* SCENE.json or NULL */
    const char *preset;        /* --preset NAME or NULL */
    clash_preset_params preset_params;
    int have_preset_params;
    clash_config cfg;
    const char *pairs_path, *report_path, *vtk_dir;
    const char *contacts_path; /* --contacts FILE.csv (needs --ccd) */
    const char *steps_csv;     /* --steps-csv FILE: per-step stage times and counts */
    int vtk_format;            /* --vtk-format: CLASH_VTK_BINARY (default) or CLASH_VTK_ASCII (clash_internal.h) */
    int vtk_every;             /* --vtk-steps: 1 all (default), N every N-th step, 0 the colliding ones */
    int quiet;
    int progress;              /* -1 auto (terminal), 0 off, 1 on */
    int counters;              /* --counters: enum clash_counter_source (clash_internal.h); run: none, profile: auto */
    int decompose;             /* --decompose: CLASH_DECOMPOSE_REPLICATED or _OBJECTS (clash.h); -1: not
                                  given, so objects when the run has more than one rank (main.c) */
    const char *sim_ll;        /* profile --sim-ll SIZE,ASSOC,LINE: valgrind's --LL= (simulated last level) */
} clash_cli;

/* Returns 0, or CLASH_EINPUT with err->msg set.  *help is set for --help. */
int clash_cli_parse(int argc, char **argv, clash_cli *cli, int *help, int *version, clash_error *err);
void clash_cli_usage(FILE *f);

#endif
