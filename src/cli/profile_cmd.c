/*
 * profile_cmd.c — how `clash profile` finds a counter source.
 *
 *   clash profile [SCENE.json] [run options] [--counters SRC] [--sim-ll S,A,L]
 *
 * With --counters auto (the default for profile) it first asks the hardware
 * sources (perf events, PAPI, likwid under likwid-perfctr) whether they work.
 * When none does and the process is not under valgrind already, it re-runs
 * itself as
 *
 *   valgrind --tool=callgrind --cache-sim=yes -q
 *            --callgrind-out-file=TMP/cg.out [--LL=S,A,L]  clash profile ARGS --counters callgrind
 *
 * The simulated last level is --sim-ll's when given, else the machine's L3 as hwloc describes it
 * (clash_profile_ll_model), else valgrind's own choice; which one travels to the child in
 * CLASH_LL_MODEL, and the report's counter model says it.
 *
 * with CLASH_CALLGRIND_OUT=TMP/cg.out in the environment: the child zeroes
 * the counts entering each stage region and dumps them leaving it, with the
 * stage's name as trigger, parses the dumps at the end of its run, prints
 * the per-stage table and writes the report.  The parent passes the
 * child's exit status on and removes TMP.  The reasons the hardware sources
 * failed travel to the child in CLASH_COUNTERS_NOTE, so its report says why
 * the counts are simulated.  When valgrind is not installed (not in PATH, or
 * CLASH_VALGRIND names a missing file) the run goes on in-process with
 * source none and that reason.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/profile_cmd.h"
#include "clash/clash.h"
#include "clash_internal.h"

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char p[PATH_MAX + 256];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(dir);
}

int clash_profile_ll_model(const char *sim_ll, char *opt, size_t on, char *desc, size_t dn)
{
    opt[0] = 0;
    if (sim_ll) {
        snprintf(opt, on, "--LL=%s", sim_ll);
        snprintf(desc, dn, "--sim-ll %s", sim_ll);
        return 1;
    }
    size_t l3;
    int l3_line, l3_ways;
    const char *source = clash_internal_l3(&l3, &l3_line, &l3_ways);
    const unsigned long long size = l3, line = l3_line > 0 ? (unsigned long long)l3_line : 0;
    const unsigned long long ways = l3_ways < 0 && line ? size / line /* fully associative: one set */
                                    : l3_ways > 0   ? (unsigned long long)l3_ways
                                                    : 0;
    if (strcmp(source, "hwloc") || !size || !line || (line & (line - 1)) || !ways || size < ways * line) {
        snprintf(desc, dn, "valgrind's default (hwloc gives no L3 size, associativity and line size here)");
        return 0;
    }
    /* callgrind simulates a power-of-two number of sets: an L3 with another count (a 480 MiB 16-way
     * cache has 491520 sets) is simulated as valgrind itself adapts a cache it detects: the sets
     * rounded down to a power of two, the ways scaled up by the same factor (rounded to nearest),
     * the size the product of the three, so close to the real one */
    const unsigned long long sets = size / (ways * line);
    unsigned long long sets2 = 1, ways2 = ways;
    while (sets2 * 2 <= sets) sets2 *= 2;
    if (sets2 != sets) ways2 = (unsigned long long)((double)ways * (double)sets / (double)sets2 + 0.5);
    const unsigned long long size2 = sets2 * ways2 * line;
    snprintf(opt, on, "--LL=%llu,%llu,%llu", size2, ways2, line);
    char sz[32];
    if (size % (1ull << 20) == 0) snprintf(sz, sizeof sz, "%llu MiB", size >> 20);
    else snprintf(sz, sizeof sz, "%llu KiB", size >> 10);
    const int n = snprintf(desc, dn, "hwloc L3 %s %s%llu-way %llu B", sz, l3_ways < 0 ? "fully associative: " : "",
                           ways, line);
    if ((size2 != size || ways2 != ways) && n > 0 && (size_t)n < dn)
        snprintf(desc + n, dn - (size_t)n, ", simulated as %llu B %llu-way %llu B (callgrind needs a power-of-two "
                 "set count)", size2, ways2, line);
    return 1;
}

/* The signal the parent received while waiting for the valgrind child. */
static volatile sig_atomic_t parent_signal;
static void on_parent_signal(int sig) { parent_signal = sig; }

int clash_profile_reexec(const clash_cli *cli, int argc, char **argv, int *status)
{
    if (cli->counters != CLASH_CTR_AUTO && cli->counters != CLASH_CTR_CALLGRIND) return 0;
    if (clash_running_on_valgrind()) return 0;
    char note[1024] = "";
    if (cli->counters == CLASH_CTR_AUTO) {
        for (int s = CLASH_CTR_PERF; s <= CLASH_CTR_LIKWID; ++s) {
            clash_counters *probe = clash_internal_counters_open(s);
            const int ok = probe && clash_internal_counters_source(probe) != CLASH_CTR_NONE;
            const size_t k = strlen(note);
            if (!ok)
                snprintf(note + k, sizeof note - k, "%s%s", k ? "; " : "",
                         probe ? clash_internal_counters_reason(probe) : "out of memory");
            clash_internal_counters_close(probe);
            if (ok) return 0; /* a hardware source works: count in-process */
        }
    }
    char vg[PATH_MAX];
    if (clash_internal_callgrind_usable(vg, sizeof vg)) {
        const size_t k = strlen(note);
        snprintf(note + k, sizeof note - k, "%scallgrind: %.200s", k ? "; " : "", vg);
        setenv("CLASH_COUNTERS_NOTE", note, 1);
        return 0;
    }
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        const size_t k = strlen(note);
        snprintf(note + k, sizeof note - k, "%scallgrind: cannot find this program (/proc/self/exe)", k ? "; " : "");
        setenv("CLASH_COUNTERS_NOTE", note, 1);
        return 0;
    }
    exe[n] = 0;
    const char *tmp = getenv("TMPDIR");
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/clash-callgrind-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        fprintf(stderr, "clash: error: profile: cannot create a temporary folder in %s: %s\n",
                tmp && *tmp ? tmp : "/tmp", strerror(errno));
        *status = 1;
        return 1;
    }
    char out_opt[PATH_MAX + 64], out_base[PATH_MAX + 16], ll_opt[128], log_opt[PATH_MAX + 32],
        log_path[PATH_MAX + 16], ll_desc[256];
    clash_profile_ll_model(cli->sim_ll, ll_opt, sizeof ll_opt, ll_desc, sizeof ll_desc);
    snprintf(out_base, sizeof out_base, "%s/cg.out", dir);
    snprintf(out_opt, sizeof out_opt, "--callgrind-out-file=%s", out_base);
    snprintf(log_path, sizeof log_path, "%s/valgrind.log", dir);
    snprintf(log_opt, sizeof log_opt, "--log-file=%s", log_path);
    char **av = calloc((size_t)argc + 16, sizeof *av);
    if (!av) {
        remove_dir(dir);
        *status = 1;
        return 1;
    }
    int k = 0;
    av[k++] = vg;
    av[k++] = "--tool=callgrind";
    av[k++] = "--cache-sim=yes";
    av[k++] = "-q";
    av[k++] = out_opt;
    av[k++] = log_opt; /* valgrind's own "--PID-- warning" lines: not in the command's output */
    if (ll_opt[0]) av[k++] = ll_opt;
    av[k++] = exe;
    for (int i = 1; i < argc; ++i) av[k++] = argv[i];
    av[k++] = "--counters";
    av[k++] = "callgrind";
    av[k] = NULL;
    if (!cli->quiet)
        fprintf(stderr, "clash profile: no hardware counters; re-running under valgrind's callgrind "
                        "(cache simulation, LL model: %s; about 50x slower)\n", ll_desc);
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        setenv("CLASH_CALLGRIND_OUT", out_base, 1);
        setenv("CLASH_LL_MODEL", ll_desc, 1); /* the report says where the simulated LL came from */
        if (note[0]) setenv("CLASH_COUNTERS_NOTE", note, 1);
        setenv("OMP_WAIT_POLICY", "passive", 0); /* spinning threads crawl under valgrind */
        /* hwloc's x86 backend cannot read CPUID under valgrind and says so
         * on stderr (three lines); the Linux backend finds the topology. */
        setenv("HWLOC_COMPONENTS", "-x86", 0);
        execv(vg, av);
        fprintf(stderr, "clash: error: profile: cannot run %s: %s\n", vg, strerror(errno));
        _exit(1);
    }
    /* SIGINT/SIGTERM sent to this process (a batch system's SIGTERM goes to
     * the parent only) are passed to the child, which stops cleanly and
     * exits 128 + signal; that status is passed on below. */
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_parent_signal; /* no SA_RESTART: waitpid returns EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int st = 0, w = -1;
    while (pid > 0 && (w = (int)waitpid(pid, &st, 0)) < 0 && errno == EINTR)
        if (parent_signal) kill(pid, parent_signal), parent_signal = 0;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (pid < 0 || w < 0) {
        fprintf(stderr, "clash: error: profile: cannot start valgrind: %s\n", strerror(errno));
        *status = 1;
    } else if (WIFEXITED(st)) {
        *status = WEXITSTATUS(st);
    } else {
        fprintf(stderr, "clash: error: profile: valgrind ended by signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        *status = 1;
    }
    /* A child that failed otherwise than by its own clean stop or a clear
     * input error: valgrind's log may say why. */
    if (*status != 0 && *status != CLASH_EINPUT && *status != 128 + SIGINT && *status != 128 + SIGTERM) {
        FILE *lf = fopen(log_path, "r");
        char line[1024];
        while (lf && fgets(line, sizeof line, lf)) fprintf(stderr, "clash: profile: valgrind: %s", line);
        if (lf) fclose(lf);
    }
    free(av);
    remove_dir(dir);
    return 1;
}
