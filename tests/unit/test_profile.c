/*
 * test_profile.c — counter sources, their detection and their failure path,
 * the callgrind dump parser, per-worker timers, and the `counters:` section
 * of the run report (src/profile/profile.c, src/out/report.c, the profile command).
 *
 * Detection is checked against an independent probe: the test calls
 * perf_event_open itself and expects the perf source exactly when that
 * works.  Where a source is unavailable (on CI VMs: perf, PAPI events,
 * likwid outside likwid-perfctr, callgrind outside valgrind) the counters
 * must say `none` with a reason and carry no number.  The parser reads the
 * committed samples in tests/fixtures/profile (README there).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<hwloc.h>)
#include <hwloc.h>
#define TEST_HWLOC 1
#endif
#endif

#include "check.h"
#include "profile/profile.h"
#include "out/report.h"

static int perf_works(int *err_out)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HW_CACHE;
    a.config = PERF_COUNT_HW_CACHE_L1D | PERF_COUNT_HW_CACHE_OP_READ << 8 |
               (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS << 16;
    a.inherit = 1, a.exclude_kernel = 1, a.exclude_hv = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    *err_out = errno;
    if (fd < 0) return 0;
    close(fd);
    return 1;
}

static int all_zero(const clash_counters *c)
{
    for (int s = 0; s < CLASH_NSTAGES; ++s)
        if (c->stage[s].l1d_misses || c->stage[s].ll_misses || c->stage[s].instructions || c->stage[s].regions)
            return 0;
    return 1;
}

static void test_sources(void)
{
    CHECK(!strcmp(clash_counter_source_names[CLASH_CTR_AUTO], "auto") &&
              !strcmp(clash_counter_source_names[CLASH_CTR_PERF], "perf") &&
              !strcmp(clash_counter_source_names[CLASH_CTR_PAPI], "papi") &&
              !strcmp(clash_counter_source_names[CLASH_CTR_LIKWID], "likwid") &&
              !strcmp(clash_counter_source_names[CLASH_CTR_CALLGRIND], "callgrind") &&
              !strcmp(clash_counter_source_names[CLASH_CTR_NONE], "none") && !clash_counter_source_names[6],
          "source names");
    unsetenv("CLASH_COUNTERS_NOTE");
    clash_counters c;

    clash_counters_open(CLASH_CTR_NONE, &c);
    CHECK(c.source == CLASH_CTR_NONE && c.reason[0] && !c.live, "none: %s", c.reason);
    clash_counters_finish(&c);

    /* perf: exactly when the syscall works here. */
    int e = 0;
    const int pw = perf_works(&e);
    clash_counters_open(CLASH_CTR_PERF, &c);
    if (pw) {
        CHECK(c.source == CLASH_CTR_PERF && c.live, "perf works but source %d: %s", c.source, c.reason);
        CHECK(c.fields == (CLASH_CF_L1D | CLASH_CF_LL), "perf fields %d", c.fields);
    } else {
        CHECK(c.source == CLASH_CTR_NONE && !c.live, "perf fails (%s) but source %d", strerror(e),
              c.source);
        CHECK(!strncmp(c.reason, "perf: perf_event_open", 21) && strstr(c.reason, strerror(e)),
              "perf reason names the syscall and its error (%s): %s", strerror(e), c.reason);
    }
    /* regions: counted only while a source is live, never invented */
    double t0 = clash_region_begin(&c, CLASH_S1_BOXES);
    const double dt = clash_region_end(&c, CLASH_S1_BOXES, t0);
    CHECK(dt >= 0 && dt < 1, "region time %g", dt);
    CHECK(c.stage[CLASH_S1_BOXES].regions == (pw ? 1 : 0), "regions %lld", (long long)c.stage[1].regions);
    clash_counters_finish(&c);
    CHECK(!c.live, "finish ends counting");
    if (!pw) CHECK(all_zero(&c), "no numbers without a source");

    /* PAPI */
    clash_counters_open(CLASH_CTR_PAPI, &c);
    if (!clash_build()->papi)
        CHECK(c.source == CLASH_CTR_NONE && strstr(c.reason, "papi: not built in"), "papi: %s", c.reason);
    else
        CHECK(c.source == CLASH_CTR_PAPI || (c.source == CLASH_CTR_NONE && !strncmp(c.reason, "papi: ", 6)),
              "papi: source %d, %s", c.source, c.reason);
    if (c.source == CLASH_CTR_NONE) CHECK(all_zero(&c), "papi: no numbers");
    clash_counters_finish(&c);

    /* likwid: only under likwid-perfctr */
    unsetenv("LIKWID_MODE"), unsetenv("LIKWID_EVENTS");
    clash_counters_open(CLASH_CTR_LIKWID, &c);
    CHECK(c.source == CLASH_CTR_NONE &&
              strstr(c.reason, clash_build()->likwid ? "not running under likwid-perfctr" : "likwid: not built in"),
          "likwid: %s", c.reason);
    clash_counters_finish(&c);

    /* callgrind: only under valgrind */
    clash_counters_open(CLASH_CTR_CALLGRIND, &c);
    if (clash_running_on_valgrind())
        CHECK(c.source == CLASH_CTR_CALLGRIND, "callgrind under valgrind: %s", c.reason);
    else
        CHECK(c.source == CLASH_CTR_NONE && strstr(c.reason, clash_build()->valgrind ? "not running under valgrind"
                                                                                        : "callgrind: not built in"),
              "callgrind outside valgrind: %s", c.reason);
    clash_counters_finish(&c);

    /* auto: the first that works; when none, every one says why */
    clash_counters_open(CLASH_CTR_AUTO, &c);
    if (pw) CHECK(c.source == CLASH_CTR_PERF, "auto picks perf when it works");
    if (c.source == CLASH_CTR_NONE)
        CHECK(strstr(c.reason, "perf: ") && strstr(c.reason, "papi: ") && strstr(c.reason, "likwid: ") &&
                  strstr(c.reason, "callgrind: "),
              "auto reasons: %s", c.reason);
    clash_counters_finish(&c);

    /* a note from `clash profile` travels into the reason */
    setenv("CLASH_COUNTERS_NOTE", "callgrind: valgrind is not installed (test)", 1);
    clash_counters_open(CLASH_CTR_NONE, &c);
    CHECK(strstr(c.reason, "valgrind is not installed (test)") != NULL, "note: %s", c.reason);
    clash_counters_finish(&c);
    unsetenv("CLASH_COUNTERS_NOTE");
}

static void test_parser(void)
{
    const char *dir = CLASH_TEST_DIR "/fixtures/profile";
    char path[1024];
    clash_error err;
    clash_cg_dump d;
    snprintf(path, sizeof path, "%s/cg.out.2", dir);
    CHECK(clash_callgrind_parse(path, &d, &err) == 0, "parse: %s", err.msg);
    CHECK(!strcmp(d.trigger, "cull"), "trigger '%s'", d.trigger);
    CHECK(d.has_cache_sim && d.counts.l1d_misses == 65537 && d.counts.ll_misses == 0 &&
              d.counts.instructions == 327692 && d.counts.data_refs == 65543,
          "cg.out.2 counts %llu %llu %llu %llu", (unsigned long long)d.counts.l1d_misses,
          (unsigned long long)d.counts.ll_misses, (unsigned long long)d.counts.instructions,
          (unsigned long long)d.counts.data_refs);
    CHECK(strstr(d.caches, "D1 49152 B") && strstr(d.caches, "LL 109051904 B"), "caches '%s'", d.caches);

    clash_counters c;
    memset(&c, 0, sizeof c);
    char base[1024], caches[200] = "";
    snprintf(base, sizeof base, "%s/cg.out", dir);
    const int n = clash_callgrind_collect(base, &c, NULL, NULL, caches, sizeof caches, &err);
    CHECK(n == 3, "3 stage dumps (the termination dump is not a stage), got %d: %s", n, err.msg);
    const clash_stage_counts *b = &c.stage[CLASH_S1_BOXES], *u = &c.stage[CLASH_S3_CULL];
    CHECK(b->regions == 2 && b->l1d_misses == 65537 + 50 && b->ll_misses == 65536 + 10 &&
              b->instructions == 1572879 + 1000 && b->data_refs == 262151 + 300,
          "boxes summed: %lld regions, %llu, %llu", (long long)b->regions, (unsigned long long)b->l1d_misses,
          (unsigned long long)b->ll_misses);
    CHECK(u->regions == 1 && u->l1d_misses == 65537 && u->ll_misses == 0, "cull");
    CHECK(c.stage[CLASH_S0_MOTION].regions == 0 && c.stage[CLASH_S6_GATHER].regions == 0, "unmeasured stages empty");
    CHECK(caches[0] != 0, "cache model taken from the dumps");

    clash_stage_counts one = {0};
    CHECK(clash_callgrind_collect(base, &c, "cull", &one, NULL, 0, &err) == 1 && one.l1d_misses == 65537,
          "one named region");

    snprintf(base, sizeof base, "%s/nosim.out", dir);
    CHECK(clash_callgrind_collect(base, &c, NULL, NULL, NULL, 0, &err) == -1 && strstr(err.msg, "--cache-sim=yes"),
          "no cache events: %s", err.msg);
    snprintf(base, sizeof base, "%s/bad.out", dir);
    CHECK(clash_callgrind_collect(base, &c, NULL, NULL, NULL, 0, &err) == -1 && strstr(err.msg, "summary"),
          "malformed: %s", err.msg);
    snprintf(base, sizeof base, "%s/missing.out", dir);
    CHECK(clash_callgrind_collect(base, &c, NULL, NULL, NULL, 0, &err) == 0, "no dumps: 0");
    snprintf(path, sizeof path, "%s/missing.out.1", dir);
    CHECK(clash_callgrind_parse(path, &d, &err) == CLASH_EINPUT && strstr(err.msg, "missing.out.1"), "missing file");
}

static void spin(int w, int T, void *ctx)
{
    (void)T, (void)ctx;
    const double t0 = clash_prof_now();
    while (clash_prof_now() - t0 < 0.002 * (w + 1)) {
    }
}

static void test_worker_timers(void)
{
    double *wt = clash_wt_create(3);
    CHECK(wt != NULL, "alloc");
    if (!wt) return;
    double lo, hi;
    clash_wt_minmax(wt, 3, 0.5, &lo, &hi);
    CHECK(lo == 0.5 && hi == 0.5, "no parallel loop: the stage's time");
    wt[0] = 0.1, wt[CLASH_WT_STRIDE] = 0.3, wt[2 * CLASH_WT_STRIDE] = 0.2;
    clash_wt_minmax(wt, 3, 0.5, &lo, &hi);
    CHECK(lo == 0.1 && hi == 0.3, "min %g max %g", lo, hi);
    clash_wt_reset(wt, 3);
    clash_exec ex = {.backend = CLASH_BACKEND_OMP, .threads = 3, .worker_seconds = wt};
    clash_spmd(&ex, spin, NULL);
    for (int w = 0; w < 3; ++w)
        CHECK(wt[w * CLASH_WT_STRIDE] >= 0.002 * (w + 1) * 0.9, "worker %d busy %g", w, wt[w * CLASH_WT_STRIDE]);
    clash_wt_minmax(wt, 3, 1.0, &lo, &hi);
    CHECK(lo >= 0.0018 && hi >= 0.0054, "fastest and slowest worker: %g %g", lo, hi);
    free(wt);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char *b = calloc(1, 1 << 20);
    if (b) b[fread(b, 1, (1 << 20) - 1, f)] = 0;
    fclose(f);
    return b;
}

static int sh(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The LL model clash profile should give callgrind here, read from hwloc directly (not through
 * the library's topology code): the first L3's size, ways and line size, its set count rounded
 * down to a power of two and the ways scaled up to match (callgrind's constraint); into want
 * callgrind's own description of that cache ("LL S B, L B, W-way associative"), or "" when
 * hwloc gives no L3 geometry (valgrind's default is then used). */
static void expected_ll(char *want, size_t n, char *hw, size_t hn)
{
    want[0] = hw[0] = 0;
#ifdef TEST_HWLOC
    hwloc_topology_t topo;
    if (!clash_build()->hwloc || hwloc_topology_init(&topo)) return;
    hwloc_obj_t o = hwloc_topology_load(topo) ? NULL : hwloc_get_obj_by_type(topo, HWLOC_OBJ_L3CACHE, 0);
    if (o && o->attr->cache.size && o->attr->cache.linesize && o->attr->cache.associativity > 0) {
        const unsigned long long size = o->attr->cache.size, line = o->attr->cache.linesize,
                                 ways = (unsigned long long)o->attr->cache.associativity, sets = size / (ways * line);
        unsigned long long sets2 = 1;
        while (sets2 * 2 <= sets) sets2 *= 2;
        const unsigned long long ways2 = (unsigned long long)((double)ways * (double)sets / (double)sets2 + 0.5);
        snprintf(want, n, "LL %llu B, %llu B, %llu-way associative", sets2 * ways2 * line, line, ways2);
        snprintf(hw, hn, "LL model: hwloc L3 %llu %s %llu-way %llu B", size % (1ull << 20) ? size >> 10 : size >> 20,
                 size % (1ull << 20) ? "KiB" : "MiB", ways, line);
        if (sets2 == sets)
            CHECK(sets2 * ways2 * line == size && ways2 == ways, "a power-of-two set count is simulated as it is");
    }
    hwloc_topology_destroy(topo);
#else
    (void)n, (void)hn;
#endif
}

/* The per-stage table of clash profile (stdout): for each stage row, the ratio columns are "n/a"
 * exactly when the denominator is 0: the stage's items, the faces boxed (the boxes row's items),
 * the candidates (the mid row's items).  Returns the rows read; *zero: a row had 0 items. */
static int check_table(const char *out, int *zero)
{
    char stage[8][32], r[8][6][32];
    long long items[8], faces = -1, cands = -1;
    int rows = 0;
    *zero = 0;
    const char *p = strstr(out, "L1D/item");
    for (p = p ? strchr(p, '\n') : NULL; p && p[1] && rows < 8; p = strchr(p + 1, '\n')) {
        char item[32];
        unsigned long long l1, ll;
        if (sscanf(p + 1, "%31s %llu %llu %lld %31s %31s %31s %31s %31s %31s %31s", stage[rows], &l1, &ll, &items[rows],
                   item, r[rows][0], r[rows][1], r[rows][2], r[rows][3], r[rows][4], r[rows][5]) != 11)
            break;
        if (!strcmp(stage[rows], "boxes")) faces = items[rows];
        if (!strcmp(stage[rows], "mid")) cands = items[rows];
        *zero |= items[rows] == 0;
        ++rows;
    }
    CHECK(faces >= 0 && cands >= 0, "boxes and mid rows in the table");
    for (int i = 0; i < rows; ++i) {
        const long long den[3] = {items[i], faces, cands};
        for (int k = 0; k < 6; ++k)
            CHECK((den[k / 2] == 0) == !strcmp(r[i][k], "n/a"), "stage %s column %d: '%s' with %lld in the denominator",
                  stage[i], k, r[i][k], den[k / 2]);
    }
    return rows;
}

static void test_command(void)
{
    char cmd[2048], rep[256];
    snprintf(rep, sizeof rep, "/tmp/clash_test_profile_%ld.yaml", (long)getpid());
    int e;
    const int pw = perf_works(&e);
    /* run --counters perf: on a machine without perf events, none and the reason */
    snprintf(cmd, sizeof cmd, "%s run --steps 2 --quiet --counters perf --report %s", CLASH_BIN, rep);
    CHECK(sh(cmd) == 0, "%s", cmd);
    char *y = slurp(rep);
    CHECK(y != NULL, "report written");
    if (y) {
        if (pw) CHECK(strstr(y, "  source: perf\n") && strstr(y, "l1d_misses:"), "perf report");
        else
            CHECK(strstr(y, "  source: none\n") && strstr(y, "reason: \"perf: perf_event_open") &&
                      !strstr(y, "l1d_misses"),
                  "perf unavailable: none, a reason, no numbers:\n%s", strstr(y, "counters:"));
        CHECK(strstr(y, "min_s:") && strstr(y, "max_s:"), "per-worker min/max in the report");
        free(y);
    }
    /* plain run: no counters, says so */
    snprintf(cmd, sizeof cmd, "%s run --steps 1 --quiet --report %s", CLASH_BIN, rep);
    CHECK(sh(cmd) == 0, "%s", cmd);
    if ((y = slurp(rep))) {
        CHECK(strstr(y, "  source: none\n") && strstr(y, "not requested"), "run: counters not requested");
        free(y);
    }
    /* bad values: exit 2 naming the option */
    snprintf(cmd, sizeof cmd, "%s run --counters bogus 2>/dev/null", CLASH_BIN);
    CHECK(sh(cmd) == 2, "--counters bogus exits 2");
    snprintf(cmd, sizeof cmd, "%s profile --sim-ll 1000,3,64 2>/dev/null", CLASH_BIN);
    CHECK(sh(cmd) == 2, "--sim-ll bad geometry exits 2");
    /* profile without valgrind: none (when no hardware source), with the reason */
    snprintf(cmd, sizeof cmd, "CLASH_VALGRIND=/nonexistent/valgrind %s profile --steps 1 --quiet --report %s >/dev/null",
             CLASH_BIN, rep);
    CHECK(sh(cmd) == 0, "%s", cmd);
    if ((y = slurp(rep))) {
        if (!pw)
            CHECK(strstr(y, "  source: none\n") && strstr(y, "valgrind is not installed") && !strstr(y, "l1d_misses"),
                  "profile without valgrind:\n%s", strstr(y, "counters:"));
        free(y);
    }
    /* profile with valgrind (when installed and no hardware source): simulated misses per stage.
     * Not in a sanitizer build: valgrind cannot run an ASan/TSan-instrumented clash. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    const int sanitized = 1;
    printf("test_profile: the callgrind run is checked in the plain build only (this one has sanitizers)\n");
#else
    const int sanitized = 0;
#endif
    if (!pw && !sanitized && clash_build()->valgrind && sh("valgrind --version >/dev/null 2>&1") == 0) {
        char out[300];
        snprintf(out, sizeof out, "%s.out", rep);
        snprintf(cmd, sizeof cmd, "%s profile --preset ktk94-table1 --steps 1 --quiet --report %s >%s 2>&1",
                 CLASH_BIN, rep, out);
        CHECK(sh(cmd) == 0, "%s", cmd);
        char want[160], hw[160];
        expected_ll(want, sizeof want, hw, sizeof hw);
        if ((y = slurp(rep))) {
            CHECK(strstr(y, "  source: callgrind\n") && strstr(y, "    boxes: {regions: 1, l1d_misses: ") &&
                      strstr(y, "    narrow: {regions: 1, l1d_misses: ") && strstr(y, "D1 "),
                  "profile under callgrind:\n%s", strstr(y, "counters:") ? strstr(y, "counters:") : y);
            /* without --sim-ll the simulated LL is the machine's L3 as hwloc gives it, and the model says so */
            if (want[0])
                CHECK(strstr(y, want) && strstr(y, hw), "simulated LL: want '%s' and '%s' in:\n%s", want, hw,
                      strstr(y, "model:") ? strstr(y, "model:") : y);
            else
                CHECK(strstr(y, "LL model: valgrind's default"), "no L3 from hwloc: the model says valgrind's default");
            /* a ratio over no items is n/a in the report too (the scene's first step has no candidates) */
            CHECK(strstr(y, "items: {candidates: 0}") &&
                      strstr(y, "items: candidates, l1d_per_item: n/a, ll_per_item: n/a"),
                  "n/a ratios in the report:\n%s", strstr(y, "mid:") ? strstr(y, "mid:") : y);
            free(y);
        }
        if ((y = slurp(out))) {
            int zero = 0;
            CHECK(check_table(y, &zero) == 7, "seven stage rows in the table:\n%s", y);
            CHECK(zero, "a stage with 0 items in the table (the n/a case is exercised):\n%s", y);
            free(y);
        }
        remove(out);
        /* --sim-ll wins, and the model says so */
        snprintf(cmd, sizeof cmd,
                 "%s profile --preset ktk94-table1 --steps 1 --quiet --sim-ll 2097152,16,64 --report %s "
                 ">/dev/null 2>&1",
                 CLASH_BIN, rep);
        CHECK(sh(cmd) == 0, "%s", cmd);
        if ((y = slurp(rep))) {
            CHECK(strstr(y, "LL 2097152 B, 64 B, 16-way associative; LL model: --sim-ll 2097152,16,64"),
                  "--sim-ll model:\n%s", strstr(y, "model:") ? strstr(y, "model:") : y);
            free(y);
        }
    }
    remove(rep);
}

int main(void)
{
    test_sources();
    test_parser();
    test_worker_timers();
    test_command();
    return check_finish("test_profile");
}
