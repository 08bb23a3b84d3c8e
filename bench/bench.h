/*
 * bench.h — benchmark suites run by `clash bench SUITE [options]`.
 *
 * A suite is a function taking the arguments after its name; it prints
 * progress to stderr, writes CSV/YAML (and plots where gnuplot exists) into
 * --out DIR, and returns an exit status (2 for bad options).  Suites are
 * listed in suites.c; each lives in its own file in bench/.
 *
 * Conventions (STYLE.md): time each variant several times, skip the first
 * run, report the median and the spread, validate results after timing, and
 * compute figures of merit (faces/s, GB/s, pair tests/s) the same way for
 * every variant.
 */
#ifndef CLASH_BENCH_H
#define CLASH_BENCH_H

typedef struct clash_bench_suite {
    const char *name;
    const char *summary;    /* one line: what it measures */
    const char *usage;      /* its options, as `clash bench NAME --help` prints them */
    int (*run)(int argc, char **argv);
} clash_bench_suite;

/* NULL-terminated table of suites (suites.c). */
extern const clash_bench_suite clash_bench_suites[];

/* Wall-clock seconds (monotonic). */
double clash_bench_now(void);

#endif
