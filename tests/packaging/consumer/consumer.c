/* consumer.c — a downstream C program using the installed clash library:
 * builds the ktk94-table1 preset, runs 3 steps and prints what it found. */
#include <clash/clash.h>
#include <stdio.h>

int main(void)
{
    clash_error err;
    clash_scene *sc;
    if (clash_scene_preset("ktk94-table1", NULL, &sc, &err)) {
        fprintf(stderr, "consumer: %s\n", err.msg);
        return 1;
    }
    clash_config cfg = clash_config_default();
    cfg.steps = 3;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    if (!run) {
        fprintf(stderr, "consumer: %s\n", err.msg);
        return 1;
    }
    size_t total = 0;
    for (int s = 1; s <= 3; ++s) {
        clash_pairs p;
        if (clash_step(run, s, &p, NULL, &err)) {
            fprintf(stderr, "consumer: %s\n", err.msg);
            return 1;
        }
        total += p.count;
    }
    printf("consumer: clash %s, %d objects, %lld faces, %zu pairs in 3 steps\n", clash_build()->version,
           clash_scene_objects(sc), (long long)clash_scene_faces(sc), total);
    clash_run_destroy(run);
    clash_scene_destroy(sc);
    return 0;
}
