/*
 * suites.c — the table of `clash bench` suites.  Add a suite by writing
 * bench/NAME.c with `int clash_bench_NAME(int argc, char **argv)`, declaring
 * it below, adding a row, and listing the file in CMakeLists.txt
 * (CLASH_BENCH_SOURCES).
 */
#include <time.h>

#include "bench/bench.h"

double clash_bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const clash_bench_suite clash_bench_suites[] = {
    {NULL, NULL, NULL},
};
