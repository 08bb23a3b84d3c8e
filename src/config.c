/*
 * config.c — run options by name, for hosts that hold their settings as text
 * (the Python module's keywords, a simulation's input deck): the same names
 * and values as the command's options, without the leading "--".
 *
 *   clash_config cfg = clash_config_default();
 *   clash_config_set(&cfg, "mode", "swept", &err);
 *   clash_config_set(&cfg, "threads", "2", &err);
 *
 * Bindings that cannot hold a clash_config by value (ctypes) allocate
 * clash_config_size() bytes and fill them with clash_config_init().  Every
 * value is checked as the command checks it: a bad name or value is
 * CLASH_EINPUT with a message naming the option and the values it takes, and
 * leaves cfg as it was.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "clash/clash.h"
#include "kernels/cpu.h"
#include "stages/mid/midphase.h"

typedef struct opt_enum {
    const char *name;
    size_t offset;
    const char *const *values;
} opt_enum;

typedef struct opt_int {
    const char *name;
    size_t offset;
    int wide; /* int64_t field, else int */
    long long lo, hi;
} opt_int;

static const char *const MODES[] = {"static", "swept", NULL};
static const char *const BACKENDS[] = {"omp", "pthreads", NULL};
static const char *const PARTITIONS[] = {"chunk", "stride", NULL};
static const char *const SCHEDULES[] = {"static-chunk", "static-stride", "dynamic", "producer-consumer", "stealing",
                                        NULL};
static const char *const BROADS[] = {"auto", "all-pairs", "sap", "bvh", NULL};
static const char *const REORDERS[] = {"none", "morton", NULL};
static const char *const BINDS[] = {"none", "core", "socket", NULL};
static const char *const BOOLS[] = {"0", "1", NULL};
static const char *const DECOMPOSES[] = {"replicated", "objects", NULL}; /* as CLASH_DECOMPOSE_* */

static const opt_enum ENUMS[] = {
    {"mode", offsetof(clash_config, mode), MODES},
    {"backend", offsetof(clash_config, backend), BACKENDS},
    {"partition", offsetof(clash_config, partition), PARTITIONS},
    {"schedule", offsetof(clash_config, schedule), SCHEDULES},
    {"midphase", offsetof(clash_config, midphase), clash_midphase_names}, /* midphase.c's table */
    {"broadphase", offsetof(clash_config, broadphase), BROADS},
    {"reorder", offsetof(clash_config, reorder), REORDERS},
    {"bind", offsetof(clash_config, bind), BINDS},
    {"self", offsetof(clash_config, self_collision), BOOLS},
    {"stop-at-first", offsetof(clash_config, stop_at_first), BOOLS},
    {"ccd", offsetof(clash_config, ccd), BOOLS},
    {"decompose", offsetof(clash_config, decompose), DECOMPOSES},
    {"geometry", offsetof(clash_config, geometry), BOOLS},
};

/* Real-valued options: lo < value <= hi (lo_open) or lo <= value <= hi. */
typedef struct opt_real {
    const char *name;
    size_t offset;
    double lo, hi;
    int lo_open;
} opt_real;

static const opt_real REALS[] = {
    {"ccd-tolerance", offsetof(clash_config, ccd_tolerance), 0.0, 1.0, 1},
    {"min-separation", offsetof(clash_config, min_separation), 0.0, 1e30, 0},
};

static const opt_int INTS[] = {
    {"steps", offsetof(clash_config, steps), 0, 1, INT_MAX},
    {"threads", offsetof(clash_config, threads), 0, 1, 4096},
    {"chunk", offsetof(clash_config, chunk), 1, 0, 1LL << 40},
    {"batch", offsetof(clash_config, batch), 1, 1, 1LL << 30},
    {"octree-level", offsetof(clash_config, octree_level), 0, 1, 16},
};

size_t clash_config_size(void) { return sizeof(clash_config); }

void clash_config_init(clash_config *cfg) { *cfg = clash_config_default(); }

static int set_enum(clash_config *cfg, const opt_enum *o, const char *value, clash_error *err)
{
    for (int k = 0; o->values[k]; ++k)
        if (!strcmp(value, o->values[k])) {
            memcpy((char *)cfg + o->offset, &k, sizeof k);
            return CLASH_OK;
        }
    char list[256] = "";
    size_t n = 0;
    for (int k = 0; o->values[k] && n + 1 < sizeof list; ++k)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", k ? ", " : "", o->values[k]);
    return clash_fail(err, CLASH_EINPUT, "%s: '%s' is not one of %s", o->name, value, list);
}

static int set_int(clash_config *cfg, const opt_int *o, const char *value, clash_error *err)
{
    char *end;
    errno = 0;
    const long long x = strtoll(value, &end, 10);
    if (!*value || *end || errno || x < o->lo || x > o->hi)
        return clash_fail(err, CLASH_EINPUT, "%s: expected an integer in [%lld, %lld], got '%s'", o->name, o->lo,
                          o->hi, value);
    if (o->wide) {
        const int64_t v = x;
        memcpy((char *)cfg + o->offset, &v, sizeof v);
    } else {
        const int v = (int)x;
        memcpy((char *)cfg + o->offset, &v, sizeof v);
    }
    return CLASH_OK;
}

static int set_real(clash_config *cfg, const opt_real *o, const char *value, clash_error *err)
{
    char *end;
    errno = 0;
    const double x = strtod(value, &end);
    if (!*value || *end || errno || !(o->lo_open ? x > o->lo : x >= o->lo) || !(x <= o->hi))
        return clash_fail(err, CLASH_EINPUT, "%s: expected a number in %c%g, %g], got '%s'", o->name,
                          o->lo_open ? '(' : '[', o->lo, o->hi, value);
    memcpy((char *)cfg + o->offset, &x, sizeof x);
    return CLASH_OK;
}

int clash_config_set(clash_config *cfg, const char *name, const char *value, clash_error *err)
{
    if (!cfg || !name || !value) return clash_fail(err, CLASH_EINPUT, "clash_config_set: null argument");
    for (size_t i = 0; i < sizeof ENUMS / sizeof *ENUMS; ++i)
        if (!strcmp(name, ENUMS[i].name)) return set_enum(cfg, &ENUMS[i], value, err);
    for (size_t i = 0; i < sizeof INTS / sizeof *INTS; ++i)
        if (!strcmp(name, INTS[i].name)) return set_int(cfg, &INTS[i], value, err);
    for (size_t i = 0; i < sizeof REALS / sizeof *REALS; ++i)
        if (!strcmp(name, REALS[i].name)) return set_real(cfg, &REALS[i], value, err);
    return clash_fail(err, CLASH_EINPUT,
                      "unknown option '%s' (mode, self, steps, threads, backend, partition, chunk, schedule, batch, "
                      "midphase, broadphase, octree-level, reorder, bind, stop-at-first, ccd, ccd-tolerance, "
                      "min-separation, decompose, geometry)",
                      name);
}

/* The level in force and CLASH_ISA's check (kernels/cpu.h holds the level). */
int clash_isa(const char **level, const char **cpu, clash_error *err)
{
    const int have = ck_isa_cpu(), req = ck_isa_requested();
    if (level) *level = ck_isa_name(ck_isa_level);
    if (cpu) *cpu = ck_isa_name(have);
    if (req == -1 || (req >= 0 && req <= have)) return 0;
    char runs[64] = "";
    for (int l = 0; l <= have; ++l)
        snprintf(runs + strlen(runs), sizeof runs - strlen(runs), "%s%s", l ? ", " : "", ck_isa_name(l));
    const char *e = getenv("CLASH_ISA");
    if (req == -2)
        return clash_fail(err, CLASH_EINPUT, "CLASH_ISA=%.40s: unknown instruction-set level (known: portable, avx2, "
                          "avx512; this CPU runs %s)", e ? e : "", runs);
    return clash_fail(err, CLASH_EINPUT, "CLASH_ISA=%s: this CPU lacks it (it runs %s)", ck_isa_name(req), runs);
}
