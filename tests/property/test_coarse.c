/*
 * test_coarse.c — determinism of the coarse-grain distribution (issue 6).
 *
 * Two scenes (a cluttered preset with many object pairs, and two 3968-face
 * spheres pressed together, where one object pair holds every candidate)
 * are run for a few swept and static steps with threads 1..4 × every
 * schedule (static-chunk, static-stride, dynamic, producer-consumer,
 * stealing) × every backend this build has, batch sizes 1 and 7.  Every
 * run must give exactly the pair list and checksum of the serial run, and
 * the serial run must find pairs (so the comparison can fail).  Also: the
 * work-stealing and producer-consumer strategies of sched/ must visit every
 * unit exactly once for any team and batch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "clash/clash.h"
#include "out/report.h"
#include "sched/sched.h"

typedef struct result {
    clash_pair *p;
    size_t n;
    uint64_t sum;
} result;

static int run_scene(const char *preset, int objects, int mode, const clash_config *base, result *r)
{
    clash_error err;
    clash_scene *sc;
    clash_preset_params pp = {objects, 7, 0, 0};
    if (preset[0] == '/' ? clash_scene_load(preset, &sc, &err) : clash_scene_preset(preset, &pp, &sc, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    clash_config c = *base;
    c.mode = mode;
    c.steps = 3;
    clash_scene_apply_defaults(sc, &c);
    clash_run *run = clash_run_create(sc, &c, &err);
    if (!run) {
        fprintf(stderr, "%s\n", err.msg);
        clash_scene_destroy(sc);
        return -1;
    }
    memset(r, 0, sizeof *r);
    int rc = 0;
    for (int s = 1; s <= c.steps && !rc; ++s) {
        clash_pairs pr;
        if ((rc = clash_step(run, s, &pr, NULL, &err))) break;
        clash_pair *q = realloc(r->p, (r->n + pr.count + 1) * sizeof *q);
        if (!q) { rc = -1; break; }
        r->p = q;
        if (pr.count) memcpy(r->p + r->n, pr.pairs, pr.count * sizeof *q);
        r->n += pr.count;
        for (size_t i = 0; i < pr.count; ++i) r->sum += clash_pair_hash(s, &pr.pairs[i]);
    }
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return rc;
}

/* ---- the strategies alone: every unit exactly once ---------------------------------- */
static int visits[1000];
static void count_range(int64_t b, int64_t e, int64_t step, int worker, void *ctx)
{
    (void)worker, (void)ctx;
    for (int64_t i = b; i < e; i += step) __atomic_fetch_add(&visits[i], 1, __ATOMIC_RELAXED);
}

int main(void)
{
    const int nb = clash_sched_backend_available(CLASH_BACKEND_PTHREADS) ? 2 : 1;
    for (int be = 0; be < nb; ++be)
        for (int sch = 0; sch <= CLASH_SCHED_STEALING; ++sch)
            for (int T = 1; T <= 4; ++T)
                for (int64_t batch = 1; batch <= 7; batch += 6) {
                    memset(visits, 0, sizeof visits);
                    clash_exec ex = {.backend = be, .threads = T, .schedule = sch};
                    ex.pool = be == CLASH_BACKEND_PTHREADS ? clash_pool_create(T) : NULL; /* as a run has */
                    CHECK(clash_par_tasks(&ex, 997, batch, count_range, NULL) == 0, "par_tasks sch %d", sch);
                    clash_pool_destroy(ex.pool);
                    int bad = 0;
                    for (int i = 0; i < 997; ++i) bad += visits[i] != 1;
                    CHECK(bad == 0 && visits[997] == 0, "schedule %d T %d batch %lld backend %d: %d units not once",
                          sch, T, (long long)batch, be, bad);
                }

    const struct { const char *preset; int objects, mode; } scenes[] = {
        {"cluttered", 60, CLASH_MODE_SWEPT}, {"cluttered", 60, CLASH_MODE_STATIC},
        {CLASH_TEST_DIR "/fixtures/coarse_spheres.json", 0, CLASH_MODE_SWEPT}};
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; ++k) {
        clash_config base = clash_config_default();
        base.threads = 1;
        result ref;
        const char *preset = scenes[k].preset;
        if (run_scene(preset, scenes[k].objects ? scenes[k].objects : 8, scenes[k].mode, &base, &ref)) {
            CHECK(0, "reference run failed");
            continue;
        }
        CHECK(ref.n > 0, "scene %zu: the reference run finds no pairs, so the test could not fail", k);
        for (int be = 0; be < nb; ++be)
            for (int sch = 0; sch <= CLASH_SCHED_STEALING; ++sch)
                for (int T = 1; T <= 4; ++T) {
                    clash_config c = base;
                    c.backend = be, c.schedule = sch, c.threads = T, c.batch = T == 3 ? 7 : 0;
                    result r;
                    if (run_scene(preset, scenes[k].objects ? scenes[k].objects : 8, scenes[k].mode, &c, &r)) {
                        CHECK(0, "run failed: scene %zu schedule %d threads %d", k, sch, T);
                        continue;
                    }
                    CHECK(r.n == ref.n && r.sum == ref.sum && !memcmp(r.p, ref.p, r.n * sizeof *r.p),
                          "scene %zu backend %d schedule %d threads %d: %zu pairs (checksum %016llx), serial %zu "
                          "(%016llx)", k, be, sch, T, r.n, (unsigned long long)r.sum, ref.n,
                          (unsigned long long)ref.sum);
                    free(r.p);
                }
        free(ref.p);
    }
    return check_finish("test_coarse");
}
