/*
 * test_ccd_cmd.c — `clash ccd vf|ee FILE.csv` as users see it: one
 * "hit,toi" line per query in file order, the options, and every kind of bad
 * input refused with exit 2 and a message naming the file and line.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

static char dir[64];
static char out[65536];

/* Runs `clash ARGS` in dir with stdout and stderr captured; the exit status. */
static int clash(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cd %s && %s %s 2>&1", dir, CLASH_BIN, args);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    const size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    const int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_file(const char *name, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* A vertex falling from z = 1 to z = -1 through the face z = 0 (contact at
 * t = 1/2); the same vertex at x = 5 (a miss the filter decides); a vertex on
 * the face at t = 0 moving up (toi 0).  The last query's numbers are 2^100
 * written out, to exercise the exact big-integer reading. */
static const char *vf_file =
    "0,1,0,1,1,1,1\n-1,1,-1,1,0,1,1\n1,1,-1,1,0,1,1\n0,1,1,1,0,1,1\n"
    "0,1,0,1,-1,1,1\n-1,1,-1,1,0,1,1\n1,1,-1,1,0,1,1\n0,1,1,1,0,1,1\n"
    "5,1,0,1,1,1,0\n-1,1,-1,1,0,1,0\n1,1,-1,1,0,1,0\n0,1,1,1,0,1,0\n"
    "5,1,0,1,-1,1,0\n-1,1,-1,1,0,1,0\n1,1,-1,1,0,1,0\n0,1,1,1,0,1,0\n"
    "\n"
    "0,1,0,1,0,1267650600228229401496703205376,1\n-1,1,-1,1,0,1,1\n1,1,-1,1,0,1,1\n0,1,1,1,0,1,1\n"
    "0,1,0,1,1267650600228229401496703205376,1267650600228229401496703205376,1\n"
    "-1,1,-1,1,0,1,1\n1,1,-1,1,0,1,1\n0,1,1,1,0,1,1\n";

/* Edge a along x at z = 0, edge b along y falling from z = 1 to z = -3:
 * they cross at t = 1/4.  Six columns (no truth). */
static const char *ee_file = "-1,1,0,1,0,1\n1,1,0,1,0,1\n0,1,-1,1,1,1\n0,1,1,1,1,1\n"
                             "-1,1,0,1,0,1\n1,1,0,1,0,1\n0,1,-1,1,-3,1\n0,1,1,1,-3,1\n";

static void expect_error(const char *args, const char *needle)
{
    const int rc = clash(args);
    CHECK(rc == 2, "clash %s: exit %d, expected 2 (%s)", args, rc, out);
    CHECK(strstr(out, needle) != NULL, "clash %s: message lacks '%s': %s", args, needle, out);
    CHECK(strstr(out, "clash: error: ") != NULL, "clash %s: no 'clash: error:' prefix: %s", args, out);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/clash_ccd_cmd_XXXXXX");
    if (!mkdtemp(dir)) return check_skip("cannot make a temporary folder");
    write_file("vf.csv", vf_file);
    write_file("ee.csv", ee_file);

    /* the good files */
    int rc = clash("ccd vf vf.csv");
    CHECK(rc == 0, "ccd vf: exit %d: %s", rc, out);
    double t0 = -1, t2 = -1;
    int h0 = -1, h2 = -1;
    char l1[64] = "";
    CHECK(sscanf(out, "%d,%lf\n%63[^\n]\n%d,%lf", &h0, &t0, l1, &h2, &t2) == 5, "ccd vf: output '%s'", out);
    CHECK(h0 == 1 && t0 <= 0.5 && t0 >= 0.5 - 1e-6, "falling vertex: %d,%.17g", h0, t0);
    CHECK(!strcmp(l1, "0,1"), "missing vertex: '%s'", l1);
    CHECK(h2 == 1 && t2 == 0, "vertex on the face at t = 0: %d,%.17g", h2, t2);
    CHECK(strlen(out) > 0 && out[strlen(out) - 1] == '\n', "output ends with a newline");

    rc = clash("ccd ee ee.csv --ccd-tolerance 1e-3");
    double te = -1;
    int he = -1;
    CHECK(rc == 0 && sscanf(out, "%d,%lf", &he, &te) == 2, "ccd ee: exit %d: %s", rc, out);
    CHECK(he == 1 && te <= 0.25 && te >= 0.25 - 1e-3, "crossing edges: %d,%.17g", he, te);

    /* min separation: the edges come within 1/2 at t = 1/8 (z = 1 - 4t); the
     * gap is along z, so the L-inf distance the kernel measures agrees */
    rc = clash("ccd ee ee.csv --min-separation=0.5");
    CHECK(rc == 0 && sscanf(out, "%d,%lf", &he, &te) == 2, "ccd ee --min-separation: exit %d: %s", rc, out);
    CHECK(he == 1 && te <= 0.125 && te >= 0.125 - 1e-6, "crossing edges within 0.5: %d,%.17g", he, te);

    rc = clash("ccd vf vf.csv --stats");
    CHECK(rc == 0 && strstr(out, "3 queries") && strstr(out, "0 false negatives, 0 false positives"),
          "--stats: %s", out);
    rc = clash("ccd --help");
    CHECK(rc == 0 && strstr(out, "usage: clash ccd"), "ccd --help: %d %s", rc, out);
    rc = clash("--help");
    CHECK(rc == 0 && strstr(out, "clash ccd vf|ee"), "clash --help lists ccd: %s", out);

    /* bad input: the file and the line */
    write_file("short.csv", "0,1,0,1,0,1,0\n0,1,0,1,0,1,0\n0,1,0,1,0,1,0\n1,2,3\n");
    expect_error("ccd vf short.csv", "short.csv:4:");
    write_file("nan.csv", "0,1,0,1,0,1,0\nnan,1,0,1,0,1,0\n");
    expect_error("ccd vf nan.csv", "nan.csv:2:");
    write_file("dec.csv", "0,1,0,1,0,1,0\n0,1,0.5,1,0,1,0\n");
    expect_error("ccd vf dec.csv", "dec.csv:2:");
    write_file("zero.csv", "0,1,0,1,0,1,0\n\n0,0,0,1,0,1,0\n");
    expect_error("ccd vf zero.csv", "zero.csv:3: x coordinate '0/0': zero denominator");
    write_file("huge.csv", "1,1,1,1,1,1,0\n1,1,1,1,1,1,0\n1,1,1,1,1,1,0\n1,1,1,1,1,1,0\n"
                           "1,1,1,1,1,1,0\n1,1,1,1,1,1,0\n1,1,1,1,1,1,0\n1,1,1,1,1,1,0\n"
                           "1,1,1,1,1,1,0\n1,1,1,1,1,1,0\n1,1,1,1,1,1,0\n");
    expect_error("ccd vf huge.csv", "huge.csv:9: 11 rows, not a multiple of 8");
    write_file("truth.csv", "1,1,1,1,1,1,0\n1,1,1,1,1,1,1\n");
    expect_error("ccd vf truth.csv", "truth.csv:2: truth differs");
    write_file("truth2.csv", "1,1,1,1,1,1,2\n");
    expect_error("ccd vf truth2.csv", "truth2.csv:1: truth '2'");
    write_file("big.csv", "1e999,1,1,1,1,1,0\n");
    expect_error("ccd vf big.csv", "big.csv:1:");
    char row[600];
    snprintf(row, sizeof row, "0,1,0,1,0,1,0\n1%0400d,1,0,1,0,1,0\n", 0);
    write_file("inf.csv", row);
    expect_error("ccd vf inf.csv", "inf.csv:2: x coordinate");
    expect_error("ccd vf missing.csv", "missing.csv");
    expect_error("ccd xx vf.csv", "kind 'xx'");
    expect_error("ccd vf", "needs a kind");
    expect_error("ccd vf vf.csv --ccd-tolerance 0", "--ccd-tolerance 0: must be > 0");
    expect_error("ccd vf vf.csv --ccd-tolerance -1e-6", "must be > 0");
    expect_error("ccd vf vf.csv --ccd-tolerance nan", "not a finite number");
    expect_error("ccd vf vf.csv --ccd-tolerance", "needs a value");
    expect_error("ccd vf vf.csv --min-separation -0.1", "--min-separation -0.1: must be >= 0");
    expect_error("ccd vf vf.csv --min-separation NaN", "not a finite number");
    expect_error("ccd vf vf.csv --max-iter x", "not an integer");
    expect_error("ccd vf vf.csv --min-sep 1", "unknown option '--min-sep'");
    expect_error("ccd vf vf.csv extra", "unexpected argument 'extra'");

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "cleanup failed\n");
    return check_finish("test_ccd_cmd");
}
