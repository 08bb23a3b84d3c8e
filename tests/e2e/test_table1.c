/*
 * test_table1.c — the two papers' Table 1 scenes (presets ktk94-table1 and
 * ktak94-table1) run to the end in swept mode, and only objects 0 and 1 (A
 * and B) ever collide.  The first collision step is printed (it is recorded
 * in bench/RESULTS.md) and must come at or after the step where the centres
 * of A and B first come within one diameter (3.8): the 168-face spheres lie
 * inside their circumscribed sphere, so faces can only meet later.
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "store/scene.h"

static void run_preset(const char *name, int centre_step)
{
    clash_error err;
    clash_scene *sc;
    if (clash_scene_preset(name, NULL, &sc, &err)) {
        CHECK(0, "%s: %s", name, err.msg);
        return;
    }
    clash_config cfg = clash_config_default();
    clash_scene_apply_defaults(sc, &cfg);
    CHECK(cfg.mode == CLASH_MODE_SWEPT, "%s: swept by default", name);
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run != NULL, "%s: %s", name, err.msg);
    int first = -1, others = 0;
    long pairs = 0;
    for (int s = 1; run && s <= cfg.steps; ++s) {
        clash_pairs p;
        if (clash_step(run, s, &p, NULL, &err)) {
            CHECK(0, "%s step %d: %s", name, s, err.msg);
            break;
        }
        for (size_t i = 0; i < p.count; ++i) others += !(p.pairs[i].obj_a == 0 && p.pairs[i].obj_b == 1);
        if (p.count && first < 0) first = s;
        pairs += (long)p.count;
    }
    /* centre distance of A and B at the first collision step */
    double a[3], b[3], ca[3] = {0, 0, 0}, cb[3] = {0, 0, 0};
    const int64_t nv = sc->vofs[1] - sc->vofs[0];
    for (int64_t v = 0; first > 0 && v < nv; ++v) {
        clash_scene_vertex_at(sc, 0, v, first, a, NULL);
        clash_scene_vertex_at(sc, 1, v, first, b, NULL);
        for (int d = 0; d < 3; ++d) ca[d] += a[d] / (double)nv, cb[d] += b[d] / (double)nv;
    }
    const double dist = sqrt((ca[0] - cb[0]) * (ca[0] - cb[0]) + (ca[1] - cb[1]) * (ca[1] - cb[1]) +
                             (ca[2] - cb[2]) * (ca[2] - cb[2]));
    printf("%s: %d steps, first collision at step %d (centre distance %.4f), %ld pairs\n", name, cfg.steps, first,
           dist, pairs);
    CHECK(first > 0, "%s: A and B never collide", name);
    CHECK(first >= centre_step && dist <= 3.8, "%s: first collision at step %d, centres %.4f apart", name, first, dist);
    CHECK(others == 0, "%s: %d pairs involve objects other than A and B", name, others);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
}

int main(void)
{
    run_preset("ktk94-table1", 196);
    run_preset("ktak94-table1", 116);
    return check_finish("test_table1");
}
