/*
 * summary.h — the one-line summary `clash run` prints on stderr, the
 * wording it shares with other messages (plurals, durations), and the error
 * line of a refusal, printed once under MPI.
 */
#ifndef CLASH_CLI_SUMMARY_H
#define CLASH_CLI_SUMMARY_H

#include <stddef.h>
#include <stdio.h>

#include "clash/clash.h"

typedef struct clash_summary {
    const char *scene;            /* scene name */
    int objects;
    long long faces;
    int steps;                    /* steps run */
    int swept, self;              /* mode, self-collision */
    unsigned long long pairs;     /* colliding pairs over all steps */
    int first_collision;          /* step, or -1 */
    double steps_s;               /* time in the steps (clash_step), all steps */
    double output_s;              /* time writing outputs; shown when outputs > 0 */
    int outputs;                  /* output files or streams requested */
    int threads, ranks;           /* ranks > 1: under MPI */
} clash_summary;

/* The error line of a refusal the command's ranks agreed on (a collective over the world:
 * every rank calls it, rc its own status, 0 where it did not fail).  When every rank failed with
 * the same message (they read the same input), rank 0 alone prints "clash: error: MSG";
 * otherwise each failing rank prints "clash: error: rank R: MSG".  Returns rc's status to exit
 * with (err's code, else rc).  The command has one set of ranks, the world's (clash_internal_rank). */
int clash_say_refusal(const clash_error *err, int rc);

/* "1 step", "2 steps": count and noun, the noun plural unless count is 1. */
const char *clash_plural(char *buf, size_t n, long long count, const char *noun);
/* A duration in milliseconds below one second, else in seconds, three significant digits ("ms", "s"). */
const char *clash_duration(char *buf, size_t n, double seconds);
/* The summary line, e.g.
 * "two-spheres: 2 objects, 336 faces, 200 steps (swept), 1 colliding pair, first at step 93;
 *  0.21 ms per step on 2 ranks x 2 threads; outputs 12.5 ms". */
void clash_summary_print(FILE *f, const clash_summary *s);

#endif
