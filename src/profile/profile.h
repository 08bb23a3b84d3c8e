/*
 * profile.h — profiling regions, per-worker timers and cache-miss counters.
 *
 * Regions.  Every stage of a step (S0 motion .. S6 gather) is a region:
 *
 *     double t0 = clash_region_begin(run->ctr, CLASH_S1_BOXES);
 *     stage_boxes(run);
 *     st->seconds[CLASH_S1_BOXES] = clash_region_end(run->ctr, CLASH_S1_BOXES, t0);
 *
 * The counters are the run's own (a clash_counters the run was given with
 * clash_run_set_counters, NULL for none): with no source live (every plain
 * `clash run`, every host program), a region costs two clock reads and one
 * test.  With a source live, begin and end also read (or toggle) the
 * counters, on the calling thread.  No state is process-wide in clash; the
 * hardware is, though: perf counts the whole process and callgrind
 * simulates one cache, so counting is for one run at a time.
 *
 * Per-worker timers.  The parallel loops of a stage run through sched/'s
 * SPMD primitive; when the execution descriptor carries a per-worker slot
 * array (clash_exec.worker_seconds, CLASH_WT_STRIDE doubles per worker, so
 * each worker owns a cache line), clash_spmd adds each worker's busy time to
 * its slot.  clash_wt_reset / clash_wt_minmax turn the slots into the
 * stage's fastest and slowest worker, which the run report sums over steps.
 *
 * Counter sources (one interface, chosen at run time; `--counters`):
 *   perf       Linux perf events through the perf_event_open syscall (no
 *              library): L1D and last-level read misses, counted for the
 *              process and the threads it starts afterwards (inherit).
 *   papi       PAPI presets PAPI_L1_DCM and PAPI_L3_TCM (else PAPI_L2_TCM),
 *              calling thread only.  Compiled in when libpapi is found.
 *   likwid     the likwid marker API: regions named after the stages; the
 *              counts are printed by `likwid-perfctr -m`, not by clash.
 *              Live only under likwid-perfctr (it sets LIKWID_MODE).
 *   callgrind  cache simulation under `valgrind --tool=callgrind
 *              --cache-sim=yes`: each region zeroes callgrind's counts on
 *              entry (CALLGRIND_ZERO_STATS) and dumps them on exit with the
 *              stage as the dump's trigger (CALLGRIND_DUMP_STATS_AT); both act
 *              on every thread, so the workers' misses count too (toggling
 *              collection would not: its state is per thread).  The cache is
 *              simulated between regions as well, so each region starts from
 *              the cache state the program left.  At the end of the run the
 *              dumps are parsed and summed per stage.
 *   none       no counts; the reason says why each source was not used.
 * `auto` tries perf, papi, likwid, callgrind in that order.  A source that
 * fails says why (the syscall's errno, PAPI's message, "not running under
 * valgrind"), and the report shows `source: none` with that reason: never a
 * made-up number.
 */
#ifndef CLASH_PROFILE_H
#define CLASH_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "clash/clash.h"
#include "clash_internal.h"
#include "sched/sched.h"

/* Which counts a source delivers (clash_counters.fields). */
enum { CLASH_CF_L1D = 1, CLASH_CF_LL = 2, CLASH_CF_INSTR = 4, CLASH_CF_DREFS = 8 };

typedef struct clash_counters {
    int requested;                       /* enum clash_counter_source */
    int source;                          /* the source in use, CLASH_CTR_NONE when none */
    int fields;                          /* CLASH_CF_* the source delivers */
    char reason[768];                    /* why requested/auto sources were not used ("" when all fine) */
    char model[512];                     /* what was counted: events, simulated cache sizes and their source */
    clash_stage_counts stage[CLASH_NSTAGES];
    /* the live source's own state (profile.c) */
    int live;                            /* nonzero while the source counts regions */
    int perf_fd[2];
    uint64_t at_enter[2];
    int papi_set;
    long long papi_enter[2];
} clash_counters;

/* Opens the requested source (auto: the first that works) and makes it
 * live for the regions that follow.  Never fails: a source that cannot be
 * used leaves c->source = CLASH_CTR_NONE and says why in c->reason. */
void clash_counters_open(int requested, clash_counters *c);
/* Ends counting: reads what remains (callgrind: parses the dumps named by
 * the environment variable CLASH_CALLGRIND_OUT, else callgrind.out.PID) and
 * closes the source.  Leaves source NONE with a reason when nothing could
 * be read. */
void clash_counters_finish(clash_counters *c);
/* Closes the source without reading anything (error paths, probes). */
void clash_counters_close(clash_counters *c);

/* ---- callgrind output ------------------------------------------------------------ */

/* One callgrind dump file: its trigger ("Client Request: NAME" gives NAME,
 * else the whole trigger text), the summary counts and the simulated cache
 * description.  Returns 0, or CLASH_EINPUT with err set (missing file,
 * no events/summary line, no cache events because --cache-sim was off). */
typedef struct clash_cg_dump {
    char trigger[128];
    char caches[200];           /* "D1 49152 B 64 B 12-way; LL ..." */
    clash_stage_counts counts;
    int has_cache_sim;
} clash_cg_dump;
int clash_callgrind_parse(const char *path, clash_cg_dump *out, clash_error *err);

/* ---- regions ---------------------------------------------------------------------- */

void clash_prof_enter_(clash_counters *c, int stage);
void clash_prof_leave_(clash_counters *c, int stage);

static inline double clash_prof_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double clash_region_begin(clash_counters *c, int stage)
{
    if (c && c->live) clash_prof_enter_(c, stage);
    return clash_prof_now();
}

/* Returns the region's wall time in seconds. */
static inline double clash_region_end(clash_counters *c, int stage, double t0)
{
    const double dt = clash_prof_now() - t0;
    if (c && c->live) clash_prof_leave_(c, stage);
    return dt;
}

/* ---- per-worker timers ------------------------------------------------------------ */

#define CLASH_WT_STRIDE (CLASH_CACHE_LINE / sizeof(double))

/* Slots for `threads` workers, each on its own cache line; free with free(). */
double *clash_wt_create(int threads);
void clash_wt_reset(double *wt, int threads);
/* Fastest and slowest worker since the last reset; a stage that ran no
 * parallel loop (every slot zero) had one worker, the caller: both are
 * stage_seconds. */
void clash_wt_minmax(const double *wt, int threads, double stage_seconds, double *min_s, double *max_s);

#endif
