/*
 * profile.c — counter sources behind one interface, callgrind dump parsing,
 * per-worker timer slots.  See profile.h for the model.
 *
 * A source's state (file descriptors, event set, the counts at region
 * entry) lives in the clash_counters it was opened into, which a run holds:
 * nothing here is process-wide (regions nest nowhere: the stages of a step
 * run one after another on the calling thread).  Each source implements open
 * (may fail with a reason), enter/leave (read or toggle at region bounds,
 * accumulate per stage) and close.
 */
#include "profile/profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/syscall.h>
#endif
#if CLASH_HAVE_VALGRIND
#include <valgrind/callgrind.h>
#endif
#if CLASH_HAVE_PAPI
#include <papi.h>
#endif
#if CLASH_HAVE_LIKWID
#ifndef LIKWID_PERFMON
#define LIKWID_PERFMON 1 /* the marker macros are empty without it */
#endif
#include <likwid-marker.h>
#endif

const char *clash_stage_name(int stage)
{
    static const char *const names[CLASH_NSTAGES] = {"motion", "boxes", "broad", "cull", "mid", "narrow", "gather"};
    return stage >= 0 && stage < CLASH_NSTAGES ? names[stage] : "?";
}

const char *const clash_counter_source_names[] = {"auto", "perf", "papi", "likwid", "callgrind", "none", NULL};


static void add_reason(clash_counters *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_reason(clash_counters *c, const char *fmt, ...)
{
    size_t n = strlen(c->reason);
    if (n && n + 2 < sizeof c->reason) strcat(c->reason, "; "), n += 2;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->reason + n, sizeof c->reason - n, fmt, ap);
    va_end(ap);
}

int clash_running_on_valgrind(void)
{
#if CLASH_HAVE_VALGRIND
    return RUNNING_ON_VALGRIND ? 1 : 0;
#else
    return 0;
#endif
}

/* ---- perf_event_open --------------------------------------------------------------- */

#if defined(__linux__)
static int perf_open_one(uint64_t config)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HW_CACHE;
    a.config = config;
    a.inherit = 1;        /* threads started after this count too */
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}
#endif

static int perf_open(clash_counters *c)
{
#if defined(__linux__)
    const uint64_t l1 = PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
                        (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
    const uint64_t ll = PERF_COUNT_HW_CACHE_LL | PERF_COUNT_HW_CACHE_OP_READ << 8 |
                        (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
    const char *what = "L1D read misses";
    int fd0 = perf_open_one(l1), fd1 = -1;
    if (fd0 >= 0) {
        what = "LL read misses";
        fd1 = perf_open_one(ll);
    }
    if (fd0 < 0 || fd1 < 0) {
        const int e = errno;
        if (fd0 >= 0) close(fd0);
        add_reason(c, "perf: perf_event_open (%s): %s (%s)", what, strerror(e),
                   e == ENOENT || e == EOPNOTSUPP ? "no hardware cache events on this machine, e.g. a VM"
                   : e == EACCES || e == EPERM    ? "see /proc/sys/kernel/perf_event_paranoid"
                                                  : "perf events unavailable");
        return -1;
    }
    c->perf_fd[0] = fd0, c->perf_fd[1] = fd1;
    c->fields = CLASH_CF_L1D | CLASH_CF_LL;
    snprintf(c->model, sizeof c->model,
             "perf events: L1D read misses, LL read misses; process and threads started after it");
    return 0;
#else
    add_reason(c, "perf: perf_event_open exists on Linux only");
    return -1;
#endif
}

static void perf_read(const clash_counters *c, uint64_t v[2])
{
    for (int i = 0; i < 2; ++i)
        if (read(c->perf_fd[i], &v[i], sizeof v[i]) != (ssize_t)sizeof v[i]) v[i] = 0;
}

/* ---- PAPI ---------------------------------------------------------------------------- */

static int papi_open(clash_counters *c)
{
#if CLASH_HAVE_PAPI
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        add_reason(c, "papi: PAPI_library_init: %s", rc > 0 ? "version mismatch" : PAPI_strerror(rc));
        return -1;
    }
    c->papi_set = PAPI_NULL;
    const char *ll_name = "PAPI_L3_TCM";
    if ((rc = PAPI_create_eventset(&c->papi_set)) != PAPI_OK ||
        (rc = PAPI_add_event(c->papi_set, PAPI_L1_DCM)) != PAPI_OK) {
        add_reason(c, "papi: PAPI_L1_DCM: %s", PAPI_strerror(rc));
        PAPI_shutdown();
        return -1;
    }
    if (PAPI_add_event(c->papi_set, PAPI_L3_TCM) != PAPI_OK) {
        ll_name = "PAPI_L2_TCM";
        if ((rc = PAPI_add_event(c->papi_set, PAPI_L2_TCM)) != PAPI_OK) {
            add_reason(c, "papi: PAPI_L3_TCM and PAPI_L2_TCM: %s", PAPI_strerror(rc));
            PAPI_shutdown();
            return -1;
        }
    }
    if ((rc = PAPI_start(c->papi_set)) != PAPI_OK) {
        add_reason(c, "papi: PAPI_start: %s", PAPI_strerror(rc));
        PAPI_shutdown();
        return -1;
    }
    c->fields = CLASH_CF_L1D | CLASH_CF_LL;
    snprintf(c->model, sizeof c->model, "PAPI: PAPI_L1_DCM, %s; calling thread only", ll_name);
    return 0;
#else
    add_reason(c, "papi: not built in (libpapi-dev was not found at configure time)");
    return -1;
#endif
}

/* ---- likwid ---------------------------------------------------------------------------- */

static int likwid_open(clash_counters *c)
{
#if CLASH_HAVE_LIKWID
    if (!getenv("LIKWID_MODE") && !getenv("LIKWID_EVENTS")) {
        add_reason(c, "likwid: not running under likwid-perfctr -m (the marker API counts only there)");
        return -1;
    }
    LIKWID_MARKER_INIT;
    for (int s = 0; s < CLASH_NSTAGES; ++s) LIKWID_MARKER_REGISTER(clash_stage_name(s));
    c->fields = 0;
    snprintf(c->model, sizeof c->model,
             "likwid marker regions named after the stages; likwid-perfctr prints the counts (calling thread)");
    return 0;
#else
    add_reason(c, "likwid: not built in (likwid-marker.h was not found at configure time)");
    return -1;
#endif
}

/* ---- callgrind ------------------------------------------------------------------------- */

static int callgrind_open(clash_counters *c)
{
#if CLASH_HAVE_VALGRIND
    if (!RUNNING_ON_VALGRIND) {
        add_reason(c, "callgrind: not running under valgrind (clash profile re-runs itself under "
                      "valgrind --tool=callgrind --cache-sim=yes)");
        return -1;
    }
    c->fields = CLASH_CF_L1D | CLASH_CF_LL | CLASH_CF_INSTR | CLASH_CF_DREFS;
    snprintf(c->model, sizeof c->model, "callgrind cache simulation");
    return 0;
#else
    add_reason(c, "callgrind: not built in (valgrind/callgrind.h was not found at configure time)");
    return -1;
#endif
}

/* ---- the interface ---------------------------------------------------------------------- */

static int try_source(int s, clash_counters *c)
{
    switch (s) {
    case CLASH_CTR_PERF: return perf_open(c);
    case CLASH_CTR_PAPI: return papi_open(c);
    case CLASH_CTR_LIKWID: return likwid_open(c);
    case CLASH_CTR_CALLGRIND: return callgrind_open(c);
    default: return -1;
    }
}

void clash_counters_open(int requested, clash_counters *c)
{
    memset(c, 0, sizeof *c);
    c->requested = requested;
    c->source = CLASH_CTR_NONE;
    c->perf_fd[0] = c->perf_fd[1] = -1;
    const char *note = getenv("CLASH_COUNTERS_NOTE"); /* why `clash profile` chose this source */
    if (note && *note) add_reason(c, "%s", note);
    if (requested == CLASH_CTR_NONE) {
        if (!c->reason[0]) snprintf(c->reason, sizeof c->reason, "counters not requested (--counters none)");
        return;
    }
    if (requested == CLASH_CTR_AUTO) {
        for (int s = CLASH_CTR_PERF; s <= CLASH_CTR_CALLGRIND; ++s)
            if (try_source(s, c) == 0) {
                c->source = s;
                break;
            }
    } else if (try_source(requested, c) == 0) {
        c->source = requested;
    }
    if (c->source == CLASH_CTR_NONE) return;
    c->live = 1;
}

void clash_prof_enter_(clash_counters *c, int stage)
{
    switch (c->source) {
    case CLASH_CTR_PERF: perf_read(c, c->at_enter); break;
#if CLASH_HAVE_PAPI
    case CLASH_CTR_PAPI: PAPI_read(c->papi_set, c->papi_enter); break;
#endif
#if CLASH_HAVE_LIKWID
    case CLASH_CTR_LIKWID: LIKWID_MARKER_START(clash_stage_name(stage)); break;
#endif
#if CLASH_HAVE_VALGRIND
    case CLASH_CTR_CALLGRIND: CALLGRIND_ZERO_STATS; break;
#endif
    default: break;
    }
    (void)stage;
}

void clash_prof_leave_(clash_counters *c, int stage)
{
    clash_stage_counts *sc = &c->stage[stage];
    switch (c->source) {
    case CLASH_CTR_PERF: {
        uint64_t v[2];
        perf_read(c, v);
        sc->l1d_misses += v[0] - c->at_enter[0];
        sc->ll_misses += v[1] - c->at_enter[1];
        break;
    }
#if CLASH_HAVE_PAPI
    case CLASH_CTR_PAPI: {
        long long v[2];
        PAPI_read(c->papi_set, v);
        sc->l1d_misses += (uint64_t)(v[0] - c->papi_enter[0]);
        sc->ll_misses += (uint64_t)(v[1] - c->papi_enter[1]);
        break;
    }
#endif
#if CLASH_HAVE_LIKWID
    case CLASH_CTR_LIKWID: LIKWID_MARKER_STOP(clash_stage_name(stage)); break;
#endif
#if CLASH_HAVE_VALGRIND
    case CLASH_CTR_CALLGRIND: CALLGRIND_DUMP_STATS_AT(clash_stage_name(stage)); break;
#endif
    default: break;
    }
    sc->regions++;
}

/* Closes the live source; with `read`, a callgrind source's dumps are read. */
static void counters_end(clash_counters *c, int read)
{
    if (!c->live) return;
    c->live = 0;
    switch (c->source) {
    case CLASH_CTR_PERF:
        close(c->perf_fd[0]), close(c->perf_fd[1]);
        c->perf_fd[0] = c->perf_fd[1] = -1;
        break;
#if CLASH_HAVE_PAPI
    case CLASH_CTR_PAPI: {
        long long v[2];
        PAPI_stop(c->papi_set, v);
        PAPI_cleanup_eventset(c->papi_set);
        PAPI_destroy_eventset(&c->papi_set);
        PAPI_shutdown();
        break;
    }
#endif
#if CLASH_HAVE_LIKWID
    case CLASH_CTR_LIKWID: LIKWID_MARKER_CLOSE; break;
#endif
    case CLASH_CTR_CALLGRIND: {
        if (!read) break; /* abandoned: leave the dumps alone */
        char base[4096];
        const char *env = getenv("CLASH_CALLGRIND_OUT");
        if (env && *env) snprintf(base, sizeof base, "%s", env);
        else snprintf(base, sizeof base, "callgrind.out.%ld", (long)getpid());
        int64_t regions[CLASH_NSTAGES];
        for (int k = 0; k < CLASH_NSTAGES; ++k) regions[k] = c->stage[k].regions, c->stage[k].regions = 0;
        clash_error err = {0};
        char caches[200] = "";
        const int n = clash_callgrind_collect(base, c, NULL, NULL, caches, sizeof caches, &err);
        if (n <= 0) {
            for (int k = 0; k < CLASH_NSTAGES; ++k) memset(&c->stage[k], 0, sizeof c->stage[k]);
            c->source = CLASH_CTR_NONE;
            c->fields = 0;
            if (n < 0) add_reason(c, "callgrind: %s", err.msg);
            else
                add_reason(c, "callgrind: no region dumps at %s.1 (run under valgrind --tool=callgrind "
                              "--cache-sim=yes, or use clash profile)", base);
            break;
        }
        /* A region instance with no dump would mean a lost count: say so. */
        for (int k = 0; k < CLASH_NSTAGES; ++k)
            if (c->stage[k].regions != regions[k])
                add_reason(c, "callgrind: %s: %lld regions but %lld dumps", clash_stage_name(k),
                           (long long)regions[k], (long long)c->stage[k].regions);
        /* where the simulated LL came from: clash profile's choice, or valgrind's when run by hand */
        const char *ll = getenv("CLASH_LL_MODEL");
        snprintf(c->model, sizeof c->model, "callgrind cache simulation (--cache-sim=yes): %s; LL model: %s", caches,
                 ll && *ll ? ll : "valgrind's own (not started by clash profile)");
        break;
    }
    default: break;
    }
}

void clash_counters_finish(clash_counters *c) { counters_end(c, 1); }
void clash_counters_close(clash_counters *c) { counters_end(c, 0); }

void clash_callgrind_region_begin(void)
{
#if CLASH_HAVE_VALGRIND
    if (RUNNING_ON_VALGRIND) CALLGRIND_ZERO_STATS;
#endif
}

void clash_callgrind_region_end(const char *name)
{
#if CLASH_HAVE_VALGRIND
    if (RUNNING_ON_VALGRIND) CALLGRIND_DUMP_STATS_AT(name);
#else
    (void)name;
#endif
}

/* ---- callgrind dumps -------------------------------------------------------------------- */

int clash_callgrind_parse(const char *path, clash_cg_dump *out, clash_error *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f) return clash_fail(err, CLASH_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    char line[4096];
    char ev[64][16];
    int nev = 0, have_sum = 0, lineno = 0;
    uint64_t val[64] = {0};
    while (fgets(line, sizeof line, f)) {
        ++lineno;
        line[strcspn(line, "\r\n")] = 0;
        if (!strncmp(line, "desc: Trigger: ", 15)) {
            const char *t = line + 15;
            if (!strncmp(t, "Client Request: ", 16)) t += 16;
            snprintf(out->trigger, sizeof out->trigger, "%.127s", t);
        } else if (!strncmp(line, "desc: D1 cache: ", 16) || !strncmp(line, "desc: LL cache: ", 16)) {
            size_t n = strlen(out->caches);
            snprintf(out->caches + n, sizeof out->caches - n, "%s%.2s %.80s", n ? "; " : "", line + 6, line + 16);
        } else if (!strncmp(line, "events:", 7)) {
            nev = 0;
            for (char *tok = strtok(line + 7, " \t"); tok && nev < 64; tok = strtok(NULL, " \t"))
                snprintf(ev[nev++], sizeof ev[0], "%s", tok);
        } else if (!strncmp(line, "summary:", 8) || (!have_sum && !strncmp(line, "totals:", 7))) {
            if (!nev) {
                fclose(f);
                return clash_fail(err, CLASH_EINPUT, "%s:%d: summary before the events line", path, lineno);
            }
            /* Trailing zero counts may be left out. */
            char *p = line + (line[0] == 's' ? 8 : 7), *end;
            memset(val, 0, sizeof val);
            for (int i = 0; i < nev; ++i) {
                while (*p == ' ' || *p == '\t') ++p;
                if (!*p) break;
                errno = 0;
                unsigned long long v = strtoull(p, &end, 10);
                if (end == p || errno) {
                    fclose(f);
                    return clash_fail(err, CLASH_EINPUT, "%s:%d: bad count '%.20s'", path, lineno, p);
                }
                val[i] = v, p = end;
            }
            have_sum = 1;
        }
    }
    fclose(f);
    if (!nev || !have_sum) return clash_fail(err, CLASH_EINPUT, "%s: no events/summary line (not a callgrind dump?)", path);
    int d1 = 0;
    for (int i = 0; i < nev; ++i) {
        const char *e = ev[i];
        if (!strcmp(e, "Ir")) out->counts.instructions += val[i];
        else if (!strcmp(e, "Dr") || !strcmp(e, "Dw")) out->counts.data_refs += val[i];
        else if (!strcmp(e, "D1mr") || !strcmp(e, "D1mw")) out->counts.l1d_misses += val[i], d1 = 1;
        else if (!strcmp(e, "DLmr") || !strcmp(e, "DLmw")) out->counts.ll_misses += val[i];
    }
    out->has_cache_sim = d1;
    out->counts.regions = 1;
    return CLASH_OK;
}

int clash_callgrind_collect(const char *base, clash_counters *c, const char *region, clash_stage_counts *sum,
                            char *caches, size_t caches_len, clash_error *err)
{
    int n = 0;
    for (int k = 1;; ++k) {
        char path[4200];
        snprintf(path, sizeof path, "%s.%d", base, k);
        if (access(path, F_OK) != 0) break;
        clash_cg_dump d;
        if (clash_callgrind_parse(path, &d, err)) return -1;
        if (!d.has_cache_sim) {
            clash_fail(err, CLASH_EINPUT, "%s: no cache events: valgrind ran without --cache-sim=yes", path);
            return -1;
        }
        if (caches && caches_len && !caches[0]) snprintf(caches, caches_len, "%s", d.caches);
        clash_stage_counts *dst = NULL;
        if (region) {
            if (!strcmp(d.trigger, region)) dst = sum;
        } else {
            for (int s = 0; s < CLASH_NSTAGES; ++s)
                if (!strcmp(d.trigger, clash_stage_name(s))) dst = &c->stage[s];
        }
        if (!dst) continue;
        dst->l1d_misses += d.counts.l1d_misses;
        dst->ll_misses += d.counts.ll_misses;
        dst->instructions += d.counts.instructions;
        dst->data_refs += d.counts.data_refs;
        dst->regions++;
        ++n;
    }
    return n;
}

/* ---- per-worker timers ------------------------------------------------------------------ */

double *clash_wt_create(int threads)
{
    void *p = NULL;
    const size_t n = (size_t)(threads > 0 ? threads : 1) * CLASH_WT_STRIDE;
    if (posix_memalign(&p, CLASH_CACHE_LINE, n * sizeof(double))) return NULL;
    memset(p, 0, n * sizeof(double));
    return p;
}

void clash_wt_reset(double *wt, int threads)
{
    for (int w = 0; w < threads; ++w) wt[(size_t)w * CLASH_WT_STRIDE] = 0;
}

void clash_wt_minmax(const double *wt, int threads, double stage_seconds, double *min_s, double *max_s)
{
    double lo = 0, hi = 0;
    int any = 0;
    for (int w = 0; w < threads && wt; ++w) {
        const double t = wt[(size_t)w * CLASH_WT_STRIDE];
        any |= t > 0;
        if (!w || t < lo) lo = t;
        if (!w || t > hi) hi = t;
    }
    if (!any) lo = hi = stage_seconds;
    *min_s = lo, *max_s = hi;
}
