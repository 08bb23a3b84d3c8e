/*
 * test_cli.c — the `clash` command as users and scripts see it: exit
 * status, error messages naming the file and place, no half-written output,
 * the pairs CSV and run report formats, and output independent of thread
 * count, partition and schedule.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity */
#endif
#include <sched.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cli/summary.h"

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

/* A number in the report: the value after "\nKEY: ", or -1. */
static double yaml_num(const char *yaml, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\n%s: ", key);
    const char *p = yaml ? strstr(yaml, k) : NULL;
    return p ? strtod(p + strlen(k), NULL) : -1.0;
}

/* The summary's wording: plurals, milliseconds or seconds, ranks (issue 20). */
static void check_summary_wording(void)
{
    char b[64];
    CHECK(!strcmp(clash_plural(b, sizeof b, 1, "step"), "1 step"), "%s", b);
    CHECK(!strcmp(clash_plural(b, sizeof b, 2, "step"), "2 steps"), "%s", b);
    CHECK(!strcmp(clash_plural(b, sizeof b, 0, "colliding pair"), "0 colliding pairs"), "%s", b);
    CHECK(!strcmp(clash_duration(b, sizeof b, 0.0052), "5.2 ms"), "%s", b);
    CHECK(!strcmp(clash_duration(b, sizeof b, 0.999), "999 ms"), "%s", b);
    CHECK(!strcmp(clash_duration(b, sizeof b, 0.99996), "1 s"), "%s", b);
    CHECK(!strcmp(clash_duration(b, sizeof b, 1.5), "1.5 s"), "%s", b);
    CHECK(!strcmp(clash_duration(b, sizeof b, 2345.0), "2.34e+03 s") || !strcmp(b, "2.35e+03 s"), "%s", b);
    char line[512] = "";
    FILE *f = fmemopen(line, sizeof line - 1, "w");
    const clash_summary one = {"s", 1, 1, 1, 1, 0, 1, 1, 1.5, 0.25, 1, 1, 2};
    clash_summary_print(f, &one);
    fclose(f);
    CHECK(!strcmp(line, "s: 1 object, 1 face, 1 step (swept), 1 colliding pair, first at step 1; 1.5 s per step on "
                        "2 ranks x 1 thread; outputs written in 250 ms\n"),
          "summary of one of everything: %s", line);
    f = fmemopen(line, sizeof line - 1, "w");
    const clash_summary many = {"s", 3, 10, 4, 0, 1, 0, -1, 0.02, 0, 0, 2, 1};
    clash_summary_print(f, &many);
    fclose(f);
    CHECK(!strcmp(line, "s: 3 objects, 10 faces, 4 steps (static, self), 0 colliding pairs; 5 ms per step on "
                        "2 threads\n"),
          "summary of several: %s", line);
}

/* --threads beyond the cores of the binding warns (issue 20): the test binds
 * itself to one core, which the clash it starts inherits. */
static void check_threads_warning(void)
{
    cpu_set_t old, one;
    if (sched_getaffinity(0, sizeof old, &old) != 0) return;
    int cpu = -1;
    for (int c = 0; c < CPU_SETSIZE && cpu < 0; ++c)
        if (CPU_ISSET(c, &old)) cpu = c;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    CHECK(sched_setaffinity(0, sizeof one, &one) == 0, "cannot bind the test to one core");
    int rc = clash("run --preset ktk94-table1 --steps 1 --threads 2");
    CHECK(rc == 0 && strstr(out, "clash: warning: --threads 2 exceeds the 1 core of this process's binding"),
          "--threads 2 on one core should warn: %s", out);
    rc = clash("run --preset ktk94-table1 --steps 1 --threads 1");
    CHECK(rc == 0 && !strstr(out, "warning"), "--threads 1 on one core: no warning: %s", out);
    sched_setaffinity(0, sizeof old, &old);
    rc = clash("run --preset ktk94-table1 --steps 1");
    CHECK(rc == 0 && !strstr(out, "warning"), "the default thread count never warns: %s", out);
}

/* Whether `clash info` says counter source SRC works: 1, 0, or -1 when
 * info has no line for it. */
static int info_says_works(const char *info, const char *src)
{
    char key[64];
    for (const char *l = info; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *p = l;
        if (!strncmp(p, "counters:", 9)) p += 9;
        while (*p == ' ') ++p;
        snprintf(key, sizeof key, "%s ", src);
        if (strncmp(p, key, strlen(key))) continue;
        p += strlen(key);
        while (*p == ' ') ++p;
        if (!strncmp(p, "works: ", 7)) return 1;
        if (!strncmp(p, "not usable: ", 12)) return 0;
        return -1;
    }
    return -1;
}

/* clash info says whether each counter source works here, and it agrees
 * with what clash profile then does; the profile's output holds no
 * valgrind or hwloc chatter (issue 20). */
static void check_counters_info(void)
{
    CHECK(clash("info") == 0, "info: %s", out);
    char *info = strdup(out);
    const char *srcs[] = {"perf", "papi", "likwid", "callgrind"};
    int works[4];
    for (int i = 0; i < 4; ++i) {
        works[i] = info_says_works(info, srcs[i]);
        CHECK(works[i] >= 0, "info has no 'works'/'not usable' line for %s: %s", srcs[i], info);
    }
    for (int i = 0; i < 2; ++i) { /* perf, papi: counted in-process when they work */
        char args[128], want[64];
        snprintf(args, sizeof args, "profile --counters %s --preset ktk94-table1 --steps 1 --quiet", srcs[i]);
        snprintf(want, sizeof want, "counters: %s:", srcs[i]);
        int rc = clash(args);
        CHECK(rc == 0 && (strstr(out, want) != NULL) == (works[i] == 1),
              "info says %s %s, but 'clash %s' printed: %.300s", srcs[i], works[i] ? "works" : "does not", args, out);
    }
    if (works[3] == 1) {
        const int hwloc = strstr(info, "hwloc yes") != NULL;
        char args[160];
        snprintf(args, sizeof args, "profile --counters callgrind --preset ktk94-table1 --steps 2%s",
                 hwloc ? " --bind core" : "");
        int rc = clash(args);
        CHECK(rc == 0 && strstr(out, "counters: callgrind:"), "'clash %s': %.300s", args, out);
        int chatter = 0;
        for (const char *l = out; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
            int pid, n = 0;
            if ((sscanf(l, "==%d==%n", &pid, &n) == 1 || sscanf(l, "--%d--%n", &pid, &n) == 1) && n > 0) ++chatter;
            if (!strncmp(l, "hwloc", 5)) ++chatter;
        }
        CHECK(chatter == 0, "'clash %s' passed %d lines of valgrind/hwloc messages on: %s", args, chatter, out);
    }
    free(info);
}

int main(void)
{
    int rc;
    strcpy(dir, "/tmp/clash-cli-XXXXXX");
    if (!mkdtemp(dir)) return check_skip("cannot make a temporary folder");

    CHECK(clash("--version") == 0 && strstr(out, "clash 0."), "--version: %s", out);
    CHECK(clash("--help") == 0 && strstr(out, "--schedule"), "--help: %s", out);
    CHECK(clash("info") == 0 && strstr(out, "openmp") && strstr(out, "machine:"), "info: %s", out);
    check_counters_info();

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
    expect_error("run --vtk", "--vtk");   /* --vtk itself: tests/e2e/test_vtk.c */
    expect_error("run --bogus", "--bogus");
    expect_error("run --steps", "--steps: missing value");
    /* an unknown option is named as unknown wherever it stands, with the
     * nearest known option for a slip of the keyboard (issue 20) */
    expect_error("run --frobnicate", "unknown option '--frobnicate'");
    expect_error("run --steps 2 --frobnicate", "unknown option '--frobnicate'");
    CHECK(!strstr(out, "missing value"), "'run --steps 2 --frobnicate' should not speak of a missing value: %s", out);
    expect_error("run --thread 2", "unknown option '--thread'; did you mean '--threads'?");
    expect_error("run --tehreads 2", "did you mean '--threads'?");
    expect_error("run --steps=5", "write '--steps 5'");
    expect_error("run --mode swep", "did you mean 'swept'?");
    expect_error("rn", "did you mean 'run'?");
    expect_error("run --frobnicate", "try 'clash --help'");   /* nothing near: no guess */
    CHECK(!strstr(out, "did you mean"), "'--frobnicate' is near no option: %s", out);
    /* --objects/--seed/--density with a preset that ignores them (issue 20) */
    expect_error("run --objects 10", "cluttered preset only");
    expect_error("run --preset ktk94-table1 --seed 3", "--seed: applies to the cluttered preset only");
    expect_error("run --preset ktak94-table1 --density 0.1", "--density");
    expect_error("run --preset default --objects 3", "'default' ignores");
    CHECK(clash("run --preset cluttered --objects 10 --seed 2 --density 0.1 --steps 1 --quiet") == 0,
          "cluttered takes its parameters: %s", out);
    expect_error("run --preset nosuch", "nosuch");
    /* --decompose (issue 18): its values, the options it no longer takes (the library cuts its cells
     * itself, issue 50), and what only a replicated run does */
    expect_error("run --decompose foo", "--decompose: expected replicated|objects, got 'foo'");
    expect_error("run --rebalance-every 5", "--rebalance-every: no longer taken");
    expect_error("run --decompose objects --imbalance 1.5", "--imbalance: no longer taken");
    expect_error("run --decompose objects --geometry --ccd", "--decompose objects: not with --geometry");
    expect_error("run --decompose objects --counters callgrind", "not with --counters");
    expect_error("profile --decompose objects", "not with clash profile");
    CHECK(clash("run --preset cluttered --objects 40 --steps 3 --decompose objects --quiet") == 0,
          "--decompose objects on one rank: %s", out);
    { /* and what it does too: here on one rank (tests/mpi/decompose_ccd.cmake: on two) */
        char a0[300];
        snprintf(a0, sizeof a0, "run --preset cluttered --objects 40 --steps 3 --decompose objects --quiet --ccd "
                 "--steps-csv %s/dec_steps.csv", dir);
        CHECK(clash(a0) == 0, "--decompose objects --ccd --steps-csv on one rank: %s", out);
    }
    { /* a deforming (frames) scene decomposed on one rank: the pairs of the plain run */
        static const char *const tet = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv %g 0.2 0.2\nv %g 0.2 0.2\nv %g 1.2 0.2\n"
                                       "v %g 0.2 1.2\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\nf 5 7 6\nf 5 6 8\nf 5 8 7\n"
                                       "f 6 7 8\n";
        char obj[400], a[300], name[16];
        for (int k = 0; k < 3; ++k) {
            const double x = 2.0 - 0.8 * k;
            snprintf(obj, sizeof obj, tet, x, x + 1, x, x);
            snprintf(name, sizeof name, "tet%d.obj", k);
            write_file(name, obj);
        }
        write_file("tets.json", "{\"format\": \"clash-scene/1\", \"steps\": 2, \"frames\": {\"files\": "
                                "[\"tet0.obj\", \"tet1.obj\", \"tet2.obj\"]}}");
        snprintf(a, sizeof a, "run %s/tets.json --quiet --pairs %s/tets_rep.csv", dir, dir);
        CHECK(clash(a) == 0, "frames scene: %s", out);
        snprintf(a, sizeof a, "run %s/tets.json --quiet --decompose objects --pairs %s/tets_dec.csv", dir, dir);
        CHECK(clash(a) == 0, "frames scene --decompose objects: %s", out);
        char *x = read_file("tets_rep.csv"), *y = read_file("tets_dec.csv");
        CHECK(x && y && strchr(x, '\n') && strchr(x, '\n')[1] && !strcmp(x, y),
              "frames scene: --decompose objects pairs differ or none:\n%s\n%s", x ? x : "", y ? y : "");
        free(x), free(y);
    }
    expect_error("run --preset cluttered --density 0.9", "--density");
    /* --detail F (issue 17): faces per object, nearest 4k(k-1); refused below 8, past 4e6 or 4e8 in all */
    expect_error("run --preset cluttered --detail 7", "--detail");
    expect_error("run --preset cluttered --detail 4000001", "--detail");
    expect_error("run --preset cluttered --detail many", "--detail");
    expect_error("run --preset cluttered --objects 1000 --detail 3000000", "too many faces");
    expect_error("run --preset default --detail 100", "'default' ignores");
    CHECK(clash("run --preset cluttered --objects 10 --detail 3000 --steps 1 --report d.yaml --quiet") == 0,
          "cluttered --detail 3000: %s", out);
    {
        char *y = read_file("d.yaml");
        CHECK(y && strstr(y, " faces: 30240,"), "--detail 3000 x 10 objects: want faces: 30240 in %s", y ? y : "");
        /* the memory account (issue 17): store and working arrays, per face */
        const char *m = y ? strstr(y, "\nmemory: {store_bytes: ") : NULL;
        unsigned long long store = 0, work = 0;
        double per = 0;
        CHECK(m && sscanf(m, "\nmemory: {store_bytes: %llu, work_bytes: %llu, bytes_per_face: %lf", &store, &work,
                          &per) == 3 && store > 30240 * 24 && work > 30240 * 24 && per > 48 && per < 400,
              "report memory: %s", m ? m : "(none)");
        free(y);
    }
    expect_error("profile --counters bogus", "--counters"); /* profile itself: test_profile.c */
    expect_error("bench nosuchsuite", "nosuchsuite");
    expect_error("bench fig4", "did you mean 'fig43'?");
    expect_error("bench cull --threads 0", "--threads");
    expect_error("bench cull --block", "--block");
    /* bench cull: S3 against the team size; kept faces must agree step by step */
    CHECK(clash("bench cull --objects 40 --steps 6 --block 3 --repeat 1 --threads 1,2,3") == 0 &&
              strstr(out, "T=3") && strstr(out, "speed-up") && strstr(out, "equal for every team"),
          "bench cull: %s", out);
    /* bench bvh --cache (issue 17): how the timed steps find the caches, like for like with FCL's query */
    expect_error("bench bvh --cache lukewarm", "--cache warm|cold|shared");
    CHECK(clash("bench bvh --mesh tet0.obj --part 1 --repeat 2 --only 0,1,4 --cache cold") == 0 &&
              strstr(out, "caches cold") && strstr(out, "bvh-kept 2T") && !strstr(out, "DIFFERS"),
          "bench bvh --cache cold: %s", out);
    CHECK(clash("bench bvh --mesh tet0.obj --part 1 --repeat 1 --only 0") == 0 && strstr(out, "caches warm"),
          "bench bvh: the caches warm by default: %s", out);

    /* clash bench alone lists the suites, one line each; every suite has
     * --help; progress redraws only on a terminal (issue 20) */
    CHECK(clash("bench") == 0 && strstr(out, "suites:\n"), "clash bench lists the suites: %s", out);
    {
        char *list = strdup(out);
        int suites = 0;
        for (char *l = strstr(list, "suites:\n") + 8; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
            char name[64], args[128];
            CHECK(sscanf(l, "  %63s ", name) == 1 && strlen(l) > 20, "suite line: %.80s", l);
            ++suites;
            snprintf(args, sizeof args, "bench %s --help", name);
            int hrc = clash(args);
            char want[96];
            snprintf(want, sizeof want, "usage: clash bench %s ", name);
            CHECK(hrc == 0 && !strncmp(out, want, strlen(want)), "'clash %s' exited %d: %.200s", args, hrc, out);
        }
        CHECK(suites >= 10, "clash bench listed %d suites", suites);
        free(list);
    }
    CHECK(clash("bench --help") == 0 && strstr(out, "suites:\n"), "clash bench --help: %s", out);
    rc = clash("bench fig43 --quick --workers 1 --ranks none --repeat 1 --out f43");
    CHECK(rc == 0 && !strchr(out, '\r'), "bench progress redraws ('\\r') written to a pipe (exit %d)", rc);
    /* OMP_PROC_BIND binds the initial thread to one core as clash starts; the runs a suite starts must
     * still get every core of the caller's mask, not that one (the cores a suite reports are its children's) */
    {
        cpu_set_t mine;
        const int ncpu = sched_getaffinity(0, sizeof mine, &mine) == 0 ? CPU_COUNT(&mine) : 0;
        setenv("OMP_PLACES", "cores", 1), setenv("OMP_PROC_BIND", "close", 1);
        rc = clash("bench fig43 --quick --workers 1 --ranks none --repeat 1 --out f43b");
        unsetenv("OMP_PLACES"), unsetenv("OMP_PROC_BIND");
        char *y = rc == 0 ? read_file("f43b/fig43.yaml") : NULL;
        const char *c = y ? strstr(y, "], cores: ") : NULL;
        CHECK(c && ncpu > 0 && atoi(c + 10) == ncpu, "bench under OMP_PROC_BIND=close: cores %d, expected %d (exit %d)",
              c ? atoi(c + 10) : -1, ncpu, rc);
        free(y);
    }

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
    /* a missing mesh or frame file: the scene file and the key that named
     * it; frames that differ: the frame's file and a 0-based face (issue 20) */
    write_file("nomesh.json", "{\"format\": \"clash-scene/1\", \"meshes\": {\"m\": {\"file\": \"nothere.obj\"}},"
                              " \"objects\": [{\"mesh\": \"m\"}]}");
    expect_error("run nomesh.json", "nomesh.json: meshes.m.file: ");
    CHECK(strstr(out, "nothere.obj: cannot open"), "names the mesh file: %s", out);
    write_file("f0.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\n");
    write_file("f1.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 3 4\n");
    write_file("frames.json", "{\"format\": \"clash-scene/1\", \"frames\": {\"files\": [\"f0.obj\", \"f1.obj\"]}}");
    expect_error("run frames.json", "frames.json: frames.files[1]: ");
    CHECK(strstr(out, "f1.obj: face 1 (0-based) differs from frame 0"), "frame error: file and 0-based face: %s",
          out);
    write_file("frames2.json", "{\"format\": \"clash-scene/1\", \"frames\": {\"files\": [\"f0.obj\", \"f0.obj\","
                               " \"f9.obj\"]}}");
    expect_error("run frames2.json", "frames2.json: frames.files[2]: ");
    CHECK(strstr(out, "f9.obj: cannot open"), "missing frame file: %s", out);

    /* a good run: CSV header, sorted canonical rows, report with all stages in order */
    rc = clash("run --preset ktk94-table1 --steps 5 --pairs p.csv --report r.yaml --quiet");
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
    /* --pairs - and --report -: standard output, not files named '-' (issue 20) */
    rc = clash("run --preset ktk94-table1 --steps 5 --pairs - --quiet");
    CHECK(rc == 0 && csv && !strcmp(out, csv), "--pairs - writes the same CSV to standard output (exit %d): %.200s",
          rc, out);
    CHECK(!exists("-"), "--pairs - created a file named '-'");
    rc = clash("run --preset ktk94-table1 --steps 5 --report - --quiet");
    CHECK(rc == 0 && !strncmp(out, "clash: ", 7) && strstr(out, "pairs_checksum:"),
          "--report - writes the report to standard output: %.200s", out);
    CHECK(!exists("-"), "--report - created a file named '-'");
    free(csv), free(yaml);

    /* the summary: plurals; the per-step time is the steps' (the report's
     * steps_s), not the output writing, which the report gives as output_s */
    check_summary_wording();
    check_threads_warning();
    rc = clash("run --preset ktk94-table1 --steps 1");
    CHECK(rc == 0 && strstr(out, ", 1 step (swept), 0 colliding pairs;"), "1 step: %s", out);
    rc = clash("run --preset ktk94-table1 --steps 12 --vtk series --pairs p.csv --report r.yaml");
    yaml = read_file("r.yaml");
    const double steps_s = yaml_num(yaml, "steps_s"), output_s = yaml_num(yaml, "output_s"),
                 wall_s = yaml_num(yaml, "wall_s");
    CHECK(rc == 0 && steps_s > 0 && output_s > 0 && wall_s >= steps_s,
          "report: steps_s %g, output_s %g, wall_s %g", steps_s, output_s, wall_s);
    const char *per = strstr(out, " per step on ");
    double shown = -1;
    if (per) {
        const char *q = per;
        while (q > out && q[-1] != ';') --q;
        shown = strtod(q, NULL) * (strncmp(per - 2, "ms", 2) ? 1.0 : 1e-3);
    }
    CHECK(shown > 0 && fabs(shown - steps_s / 12) <= 0.006 * steps_s / 12,
          "summary's per-step time %g s, the report's steps_s / steps %g s: %s", shown, steps_s / 12, out);
    CHECK(strstr(out, "; outputs written in "), "the summary gives the output time: %s", out);
    free(yaml);

    /* --steps-csv: one row per step, its stage times and counts (issue 20) */
    rc = clash("run --preset ktk94-table1 --steps-csv s.csv --pairs p.csv --report r.yaml --quiet");
    CHECK(rc == 0, "--steps-csv run: %s", out);
    char *scsv = read_file("s.csv");
    csv = read_file("p.csv");
    yaml = read_file("r.yaml");
    const char *hdr = "step,motion_s,boxes_s,broad_s,cull_s,mid_s,narrow_s,gather_s,step_s,object_pairs,faces_kept,"
                      "candidates,tests,hits,pairs\n";
    CHECK(scsv && !strncmp(scsv, hdr, strlen(hdr)), "--steps-csv header: %.200s", scsv ? scsv : "(none)");
    if (scsv && csv && yaml) {
        int rows = 0, in_order = 1, pairs_match = 1;
        double sum_motion = 0, sum_step = 0, sum_pairs = 0;
        for (const char *l = strchr(scsv, '\n') + 1; *l; l = strchr(l, '\n') + 1) {
            double v[15];
            int n = 0;
            const char *q = l;
            for (; n < 15; ++n) {
                char *e;
                v[n] = strtod(q, &e);
                if (e == q) break;
                q = e + (*e == ',');
            }
            CHECK(n == 15, "step row %d has %d columns", rows + 1, n);
            ++rows;
            in_order &= v[0] == rows;
            sum_motion += v[1], sum_step += v[8], sum_pairs += v[14];
            /* the step's pairs: its rows in the pairs CSV */
            char key[32];
            int in_csv = 0;
            snprintf(key, sizeof key, "\n%d,", rows);
            for (const char *c = csv; (c = strstr(c, key)); ++c) ++in_csv;
            pairs_match &= in_csv == (int)v[14];
            if (!strchr(l, '\n')) break;
        }
        CHECK(rows == (int)yaml_num(yaml, "steps"), "%d rows for %g steps", rows, yaml_num(yaml, "steps"));
        CHECK(in_order, "rows numbered 1, 2, ...");
        CHECK(pairs_match, "each row's pairs column counts that step's rows in the pairs CSV");
        CHECK(sum_pairs == yaml_num(yaml, "pairs_total") && sum_pairs > 0, "pairs column sums to %g, report %g",
              sum_pairs, yaml_num(yaml, "pairs_total"));
        const char *m = strstr(yaml, "  motion: {total_s: ");
        const double motion_total = m ? strtod(m + 20, NULL) : -1;
        CHECK(fabs(sum_motion - motion_total) <= 1e-5 * motion_total + 1e-6, "motion_s sums to %g, report %g",
              sum_motion, motion_total);
        CHECK(fabs(sum_step - yaml_num(yaml, "steps_s")) <= 1e-5 * sum_step + 1e-6, "step_s sums to %g, steps_s %g",
              sum_step, yaml_num(yaml, "steps_s"));
    }
    free(scsv), free(csv), free(yaml);

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
