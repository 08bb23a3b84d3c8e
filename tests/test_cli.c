/*
 * test_cli.c — the `clash` command as users and scripts see it: exit
 * status, error messages naming the file and place, no half-written output,
 * the pairs CSV and run report formats, and output independent of thread
 * count, partition and schedule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static char dir[64];
static char out[65536];

/* Runs `clash ARGS` with stderr and stdout captured into out; returns the exit status. */
static int clash(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd %s && %s %s 2>&1", dir, CLASH_BIN, args);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int exists(const char *name)
{
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0;
}

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

static char *read_file(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return check_read_file(path);
}

static void expect_error(const char *args, const char *needle)
{
    int rc = clash(args);
    CHECK(rc == 2, "'clash %s' exited %d, expected 2; output: %s", args, rc, out);
    CHECK(strstr(out, "clash: error: ") != NULL, "'clash %s': no 'clash: error:' prefix: %s", args, out);
    CHECK(strstr(out, needle) != NULL, "'clash %s': message should contain '%s': %s", args, needle, out);
}

int main(void)
{
    strcpy(dir, "/tmp/clash-cli-XXXXXX");
    if (!mkdtemp(dir)) return check_skip("cannot make a temporary folder");

    CHECK(clash("--version") == 0 && strstr(out, "clash 0."), "--version: %s", out);
    CHECK(clash("--help") == 0 && strstr(out, "--schedule"), "--help: %s", out);
    CHECK(clash("info") == 0 && strstr(out, "openmp") && strstr(out, "machine:"), "info: %s", out);

    /* bad usage */
    expect_error("", "no command");
    expect_error("frobnicate", "unknown command");
    expect_error("run --mode fast", "--mode");
    expect_error("run --threads 0", "--threads");
    expect_error("run --threads two", "--threads");
    expect_error("run --steps -3", "--steps");
    expect_error("run --partition diagonal", "--partition");
    expect_error("run --schedule round-robin", "--schedule");
    expect_error("run --midphase kdtree", "--midphase");
    expect_error("run --broadphase grid", "--broadphase");
    expect_error("run --backend tbb", "--backend");
    expect_error("run --chunk -4", "--chunk");
    expect_error("run --vtk", "--vtk");   /* --vtk itself: tests/test_vtk.c */
    expect_error("run --bogus", "--bogus");
    expect_error("run --steps", "--steps");
    expect_error("run --preset nosuch", "nosuch");
    expect_error("run --preset cluttered --density 0.9", "--density");
    expect_error("profile --counters bogus", "--counters"); /* profile itself: test_profile.c */
    expect_error("bench nosuchsuite", "nosuchsuite");
    expect_error("bench cull --threads 0", "--threads");
    expect_error("bench cull --block", "--block");
    /* bench cull: S3 against the team size; kept faces must agree step by step */
    CHECK(clash("bench cull --objects 40 --steps 6 --block 3 --repeat 1 --threads 1,2,3") == 0 &&
              strstr(out, "T=3") && strstr(out, "speed-up") && strstr(out, "equal for every team"),
          "bench cull: %s", out);

    /* bad input: the message names the file and place; no output is left behind */
    expect_error("run missing.json --pairs p.csv", "missing.json");
    CHECK(!exists("p.csv"), "p.csv written on failure");
    write_file("syntax.json", "{\n  \"format\": \"clash-scene/1\",\n  \"objects\": [ }\n");
    expect_error("run syntax.json --pairs p.csv --report r.yaml", "syntax.json");
    CHECK(!exists("p.csv") && !exists("r.yaml"), "output written on failure");
    write_file("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n");
    write_file("badmesh.json",
               "{\"format\": \"clash-scene/1\", \"meshes\": {\"m\": {\"file\": \"bad.obj\"}},"
               " \"objects\": [{\"mesh\": \"m\"}, {\"mesh\": \"m\"}]}");
    expect_error("run badmesh.json --pairs p.csv", "bad.obj:4");
    CHECK(!exists("p.csv"), "p.csv written on failure");
    write_file("nan.obj", "v 0 0 0\nv 1 0 nan\nv 0 1 0\nf 1 2 3\n");
    write_file("nanmesh.json",
               "{\"format\": \"clash-scene/1\", \"meshes\": {\"m\": {\"file\": \"nan.obj\"}},"
               " \"objects\": [{\"mesh\": \"m\"}]}");
    expect_error("run nanmesh.json", "nan.obj:2");

    /* a good run: CSV header, sorted canonical rows, report with all stages in order */
    int rc = clash("run --preset ktk94-table1 --steps 5 --pairs p.csv --report r.yaml --quiet");
    CHECK(rc == 0, "ktk94 run exited %d: %s", rc, out);
    char *csv = read_file("p.csv"), *yaml = read_file("r.yaml");
    CHECK(csv && !strncmp(csv, "step,obj_a,face_a,obj_b,face_b\n", 31), "CSV header");
    CHECK(yaml != NULL, "report written");
    if (yaml) {
        const char *keys[] = {"clash:", "build:", "machine:", "scene:", "config:", "steps: 5", "first_collision_step:",
                              "pairs_total:", "pairs_checksum:", "stages:", "counters:"};
        for (size_t i = 0; i < sizeof keys / sizeof *keys; ++i)
            CHECK(strstr(yaml, keys[i]) != NULL, "report lacks '%s'", keys[i]);
        const char *stages[] = {"  motion:", "  boxes:", "  broad:", "  cull:", "  mid:", "  narrow:", "  gather:"};
        const char *at = yaml;
        for (int i = 0; i < 7; ++i) {
            const char *p = strstr(at, stages[i]);
            CHECK(p != NULL, "stage %s missing or out of order", stages[i]);
            if (p) at = p;
        }
        CHECK(strstr(yaml, "memory_bytes: ") != NULL, "scene memory missing");
    }
    free(csv), free(yaml);

    /* determinism: identical CSV for threads, partitions, schedules, broad phases */
    const char *variants[] = {"--threads 1", "--threads 2 --schedule static-chunk", "--threads 2 --schedule static-stride",
                              "--threads 3 --partition stride --schedule dynamic", "--threads 2 --broadphase sap",
                              "--threads 1 --broadphase all-pairs", "--threads 2 --schedule stealing --backend pthreads",
                              "--threads 2 --schedule producer-consumer", "--threads 2 --midphase bvh",
                              "--threads 2 --midphase bboxpipe --partition stride --chunk 16"};
    char *ref = NULL;
    for (size_t i = 0; i < sizeof variants / sizeof *variants; ++i) {
        char args[512];
        snprintf(args, sizeof args, "run --preset cluttered --objects 30 --seed 7 --steps 40 --quiet --pairs v.csv %s",
                 variants[i]);
        rc = clash(args);
        CHECK(rc == 0, "'%s' exited %d: %s", args, rc, out);
        char *v = read_file("v.csv");
        if (!ref) {
            ref = v;
            CHECK(ref && strlen(ref) > 40, "cluttered run should collide: %s", ref ? ref : "(none)");
        } else {
            CHECK(v && !strcmp(v, ref), "'%s' gives a different pairs CSV", variants[i]);
            free(v);
        }
    }
    free(ref);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "cleanup failed\n");
    return check_finish("test_cli");
}
