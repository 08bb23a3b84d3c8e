/*
 * options.c — parsing `clash` command lines.  See options.h.
 */
#include "cli/options.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clash_internal.h"
#include "cli/suggest.h"

void clash_cli_usage(FILE *f)
{
    fputs("usage:\n"
          "  clash run [SCENE.json] [options]   run a scene (no SCENE: the default preset)\n"
          "  clash profile [SCENE.json] [options]  run with per-stage cache-miss counters (hardware, or\n"
          "                         simulated by re-running itself under valgrind's callgrind)\n"
          "  clash bench [SUITE [options]]      run a benchmark suite (alone: list them; SUITE --help)\n"
          "  clash info                         build options, threads, working counter sources, topology\n"
          "  clash ccd vf|ee FILE.csv [options] continuous collision detection with time of impact on raw\n"
          "                         queries, 'hit,toi' per query (clash ccd --help: its options)\n"
          "  clash --help | --version\n"
          "\n"
          "run options:\n"
          "  --preset NAME          default | ktk94-table1 | ktak94-table1 | cluttered\n"
          "  --objects N --seed S --density D --detail F   parameters of the cluttered preset (only);\n"
          "                         F: faces per object, all UV spheres of the nearest 4k(k-1)\n"
          "  --steps N              steps to run (default: the scene's)\n"
          "  --mode static|swept    face-pair test (default: the scene's, else swept)\n"
          "  --self                 also self-collisions\n"
          "  --threads T            worker threads (default: all cores of the binding)\n"
          "  --backend omp|pthreads thread backend (default omp)\n"
          "  --partition chunk|stride   fine-grain partition (default chunk)\n"
          "  --chunk N              fine-grain block size, dealt round-robin (default 0: one block\n"
          "                         per worker for chunk, single items for stride)\n"
          "  --schedule static-chunk|static-stride|dynamic|producer-consumer|stealing (default dynamic)\n"
          "  --batch N              coarse-grain units per grab (dynamic, stealing, producer-consumer)\n"
          "  --bind core|socket|none    pin the worker threads with hwloc (default none)\n"
          "  --midphase octree|bvh|bboxpipe|objoctree|spherical|boxtree|doptree|brute\n"
          "                         candidate generation (default octree; objoctree, spherical:\n"
          "                         object octrees (KTK94, KTAK94) and spherical octrees\n"
          "                         (Tzafestas-Coiffet); boxtree, doptree: Zachmann's trees; all\n"
          "                         four for rigid objects,\n"
          "                         deforming scenes fall back to octree; brute = oracle)\n"
          "  --broadphase auto|all-pairs|sap|bvh    object pairs (default auto: sap above 64 objects)\n"
          "  --octree-level L       face-octree resolution (default: from face size); objoctree and\n"
          "                         spherical: the depth of each object's tree\n"
          "  --reorder morton|none  store faces and vertices along the Morton curve (locality;\n"
          "                         results keep the input numbering; default morton)\n"
          "  --counters auto|perf|papi|likwid|callgrind|none   cache-miss counter source\n"
          "                         (default: none for run, auto for profile)\n"
          "  --sim-ll SIZE,ASSOC,LINE   profile: simulated last-level cache for callgrind (--LL=)\n"
          "  --ccd                  exact continuous collision detection after the face-pair\n"
          "                         test (swept mode): vertex-face and edge-edge contacts with\n"
          "                         their time of impact\n"
          "  --ccd-tolerance T      accuracy of the time of impact, never late (default 1e-6)\n"
          "  --min-separation D     swept mode: pairs and contacts within distance D (default 0)\n"
          "  --contacts FILE.csv    with --ccd: write every contact ('-': standard output)\n"
          "  --geometry             the pairs' intersection segments and the contacts' points,\n"
          "                         normals, parameters and distances as more CSV columns\n"
          "  --decompose objects|replicated   under MPI: each rank owns the objects of its sub-domain\n"
          "                         (recursive coordinate bisection; owners send the states other ranks\n"
          "                         need) or every rank steps the whole scene; pairs and contacts\n"
          "                         identical either way.  Default: objects on more than one rank,\n"
          "                         replicated for frames scenes and with --ccd, --vtk, --steps-csv or\n"
          "                         --counters; objects refuses --geometry, --counters, clash profile\n"
          "  --rebalance-every, --imbalance   no longer taken: the decomposed run cuts its cells\n"
          "                         again itself when the faces its ranks hold stay unbalanced\n"

          "  --pairs FILE.csv       write every colliding pair ('-': standard output)\n"
          "  --report FILE.yaml     write the run report ('-': standard output)\n"
          "  --vtk DIR              write a ParaView time series (DIR/clash.pvd)\n"
          "  --vtk-format binary|ascii   VTK arrays as raw appended binary (default) or text\n"
          "  --vtk-steps all|colliding|every:N   which steps get a VTK file (default all)\n"
          "  --steps-csv FILE       write each step's stage times and counts (CSV)\n"
          "  --stop-at-first        stop after the first step with a collision\n"
          "  --progress | --no-progress   progress line on stderr (default: when a terminal)\n"
          "  --quiet                no progress, summary or warnings on stderr\n"
          "\n"
          "exit status: 0 success, 2 bad usage or input, 130/143 after SIGINT/SIGTERM, 1 other failure\n",
          f);
}

static int parse_int(const char *opt, const char *v, long lo, long hi, long *out, clash_error *err)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi)
        return clash_internal_fail(err, CLASH_EINPUT, "%s: expected an integer in [%ld, %ld], got '%s'", opt, lo, hi, v);
    *out = x;
    return 0;
}

static int parse_enum(const char *opt, const char *v, const char *const *names, int *out, clash_error *err)
{
    char list[256] = "";
    for (int i = 0; names[i]; ++i) {
        if (!strcmp(v, names[i])) {
            *out = i;
            return 0;
        }
        strncat(list, i ? "|" : "", sizeof list - strlen(list) - 1);
        strncat(list, names[i], sizeof list - strlen(list) - 1);
    }
    char hint[96];
    clash_suggest_hint(v, names, hint, sizeof hint);
    return clash_internal_fail(err, CLASH_EINPUT, "%s: expected %s, got '%s'%s", opt, list, v, hint);
}

/* Every option of run/profile/info; the first NFLAGS take no value. */
enum { NFLAGS = 8 };
static const char *const known_options[] = {
    "--self", "--stop-at-first", "--quiet", "--progress", "--no-progress", "--help", "--ccd", "--geometry",
    "--ccd-tolerance", "--min-separation", "--contacts", "--steps", "--mode", "--threads", "--backend", "--partition", "--chunk", "--batch", "--bind", "--schedule",
    "--reorder", "--midphase", "--broadphase", "--octree-level", "--preset", "--objects", "--seed", "--density", "--detail",
    "--pairs", "--report", "--counters", "--decompose", "--rebalance-every", "--imbalance", "--sim-ll", "--vtk", "--vtk-format", "--vtk-steps", "--steps-csv", NULL};

/* 0 when a is an option that takes a value; else "unknown option", with the
 * nearest known one when a looks like a slip ("--thread"), and the split
 * form for "--steps=5". */
static int check_known(const char *a, clash_error *err)
{
    for (int k = NFLAGS; known_options[k]; ++k)
        if (!strcmp(a, known_options[k])) return 0;
    char hint[128];
    const char *eq = strchr(a, '=');
    if (eq) {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(eq - a < 63 ? eq - a : 63), a);
        for (int k = NFLAGS; known_options[k]; ++k)
            if (!strcmp(name, known_options[k]))
                return clash_internal_fail(err, CLASH_EINPUT, "unknown option '%s' (write '%s %s')", a, name, eq + 1);
    }
    if (clash_suggest_hint(a, known_options, hint, sizeof hint)[0])
        return clash_internal_fail(err, CLASH_EINPUT, "unknown option '%s'%s", a, hint);
    return clash_internal_fail(err, CLASH_EINPUT, "unknown option '%s' (try 'clash --help')", a);
}

/* What clash_cli_parse remembers between options, for the checks at the end. */
typedef struct parse_state {
    const char *dec_opt;   /* --rebalance-every or --imbalance: refused (the library cuts its cells itself) */
    const char *param_opt; /* the last of --objects/--seed/--density/--detail given */
    const char *vtk_opt;   /* --vtk-format or --vtk-steps, which need --vtk */
} parse_state;

/* Option a with value v, when it configures the run (cli->cfg); *matched = 0
 * when a is none of those. */
static int parse_config_value(clash_cli *cli, const char *a, const char *v, int *matched, clash_error *err)
{
    static const char *const modes[] = {"static", "swept", NULL};
    static const char *const backends[] = {"omp", "pthreads", NULL};
    static const char *const partitions[] = {"chunk", "stride", NULL};
    static const char *const schedules[] = {"static-chunk", "static-stride", "dynamic", "producer-consumer",
                                            "stealing", NULL};
    static const char *const reorders[] = {"none", "morton", NULL};
    static const char *const broads[] = {"auto", "all-pairs", "sap", "bvh", NULL};
    int rc = 0, e = 0;
    long x = 0;
    *matched = 1;
    if (!strcmp(a, "--steps")) {
        if (!(rc = parse_int(a, v, 1, INT_MAX, &x, err))) cli->cfg.steps = (int)x;
    } else if (!strcmp(a, "--mode")) {
        if (!(rc = parse_enum(a, v, modes, &e, err))) cli->cfg.mode = e;
    } else if (!strcmp(a, "--threads")) {
        if (!(rc = parse_int(a, v, 1, 4096, &x, err))) cli->cfg.threads = (int)x;
    } else if (!strcmp(a, "--backend")) {
        if (!(rc = parse_enum(a, v, backends, &e, err))) cli->cfg.backend = e;
    } else if (!strcmp(a, "--partition")) {
        if (!(rc = parse_enum(a, v, partitions, &e, err))) cli->cfg.partition = e;
    } else if (!strcmp(a, "--chunk")) {
        if (!(rc = parse_int(a, v, 0, 1L << 40, &x, err))) cli->cfg.chunk = x;
    } else if (!strcmp(a, "--batch")) {
        if (!(rc = parse_int(a, v, 1, 1L << 30, &x, err))) cli->cfg.batch = x;
    } else if (!strcmp(a, "--bind")) {
        static const char *const binds[] = {"none", "core", "socket", NULL};
        if (!(rc = parse_enum(a, v, binds, &e, err))) cli->cfg.bind = e;
    } else if (!strcmp(a, "--schedule")) {
        if (!(rc = parse_enum(a, v, schedules, &e, err))) cli->cfg.schedule = e;
    } else if (!strcmp(a, "--reorder")) {
        if (!(rc = parse_enum(a, v, reorders, &e, err))) cli->cfg.reorder = e;
    } else if (!strcmp(a, "--midphase")) {
        if (!(rc = parse_enum(a, v, clash_internal_midphase_names(), &e, err))) cli->cfg.midphase = e;
    } else if (!strcmp(a, "--broadphase")) {
        if (!(rc = parse_enum(a, v, broads, &e, err))) cli->cfg.broadphase = e;
    } else if (!strcmp(a, "--octree-level")) {
        if (!(rc = parse_int(a, v, 1, 16, &x, err))) cli->cfg.octree_level = (int)x;
    } else if (!strcmp(a, "--ccd-tolerance") || !strcmp(a, "--min-separation")) {
        rc = clash_config_set(&cli->cfg, a + 2, v, err); /* the library's own check of the value */
        if (rc) { /* named as the command's option */
            char msg[sizeof err->msg];
            snprintf(msg, sizeof msg, "%s", err->msg);
            snprintf(err->msg, sizeof err->msg, "--%.1000s", msg);
        }
    } else {
        *matched = 0;
    }
    return rc;
}

/* Option a with value v, when it picks the scene (a preset and its
 * parameters) or the decomposition; *matched = 0 when a is none of those. */
static int parse_scene_value(clash_cli *cli, parse_state *st, const char *a, const char *v, int *matched,
                             clash_error *err)
{
    int rc = 0, e = 0;
    long x = 0;
    *matched = 1;
    if (!strcmp(a, "--preset")) {
        if (!(rc = parse_enum(a, v, clash_preset_names(), &e, err))) cli->preset = v;
    } else if (!strcmp(a, "--objects")) {
        if (!(rc = parse_int(a, v, 1, 100000000, &x, err))) cli->preset_params.objects = (int)x;
        cli->have_preset_params = 1, st->param_opt = a;
    } else if (!strcmp(a, "--seed")) {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(v, &end, 10);
        if (!*v || *end || errno || v[0] == '-')
            rc = clash_internal_fail(err, CLASH_EINPUT, "--seed: expected a non-negative integer, got '%s'", v);
        cli->preset_params.seed = s;
        cli->have_preset_params = 1, st->param_opt = a;
    } else if (!strcmp(a, "--density")) {
        char *end;
        errno = 0;
        double d = strtod(v, &end);
        if (!*v || *end || errno || !(d > 0 && d <= 0.3))
            rc = clash_internal_fail(err, CLASH_EINPUT, "--density: expected a number in (0, 0.3], got '%s'", v);
        cli->preset_params.density = d;
        cli->have_preset_params = 1, st->param_opt = a;
    } else if (!strcmp(a, "--detail")) {
        /* the preset checks it again (the API's way in); here for the option's own message */
        if (!(rc = parse_int(a, v, 8, 4000000, &x, err))) cli->preset_params.detail = (int)x;
        cli->have_preset_params = 1, st->param_opt = a;
    } else if (!strcmp(a, "--decompose")) {
        static const char *const decs[] = {"replicated", "objects", NULL}; /* as CLASH_DECOMPOSE_* */
        if (!(rc = parse_enum(a, v, decs, &e, err))) cli->decompose = e;
    } else if (!strcmp(a, "--rebalance-every") || !strcmp(a, "--imbalance")) {
        st->dec_opt = a; /* (refused once all are read: check_combinations) */
    } else {
        *matched = 0;
    }
    return rc;
}

/* Option a with value v, when it names an output (files, counters, the
 * cache simulation, the VTK series); *matched = 0 when a is none of those. */
static int parse_output_value(clash_cli *cli, parse_state *st, const char *a, const char *v, int *matched,
                              clash_error *err)
{
    int rc = 0, e = 0;
    long x = 0;
    *matched = 1;
    if (!strcmp(a, "--contacts")) {
        cli->contacts_path = v;
    } else if (!strcmp(a, "--pairs")) {
        cli->pairs_path = v;
    } else if (!strcmp(a, "--report")) {
        cli->report_path = v;
    } else if (!strcmp(a, "--counters")) {
        if (!(rc = parse_enum(a, v, clash_counter_source_names, &e, err))) cli->counters = e;
    } else if (!strcmp(a, "--sim-ll")) {
        unsigned long sz, as, ln;
        char tail;
        if (sscanf(v, "%lu,%lu,%lu%c", &sz, &as, &ln, &tail) != 3 || !sz || !as || !ln || (ln & (ln - 1)) ||
            sz % (as * ln) || ((sz / (as * ln)) & (sz / (as * ln) - 1)))
            rc = clash_internal_fail(err, CLASH_EINPUT,
                                     "--sim-ll: expected SIZE,ASSOC,LINE in bytes with a power-of-two line size and "
                                     "set count (e.g. 2097152,16,64), got '%s'", v);
        cli->sim_ll = v;
    } else if (!strcmp(a, "--vtk")) {
        cli->vtk_dir = v;
    } else if (!strcmp(a, "--vtk-format")) {
        static const char *const formats[] = {"binary", "ascii", NULL}; /* as CLASH_VTK_BINARY, _ASCII */
        if (!(rc = parse_enum(a, v, formats, &e, err))) cli->vtk_format = e;
        st->vtk_opt = a;
    } else if (!strcmp(a, "--vtk-steps")) {
        if (!strcmp(v, "all")) cli->vtk_every = 1;
        else if (!strcmp(v, "colliding")) cli->vtk_every = 0;
        else if (!strncmp(v, "every:", 6)) {
            char opt[32];
            snprintf(opt, sizeof opt, "%s every:N", a);
            if (!(rc = parse_int(opt, v + 6, 1, INT_MAX, &x, err))) cli->vtk_every = (int)x;
        } else {
            static const char *const kinds[] = {"all", "colliding", "every:", NULL};
            char hint[64];
            rc = clash_internal_fail(err, CLASH_EINPUT, "%s: expected all|colliding|every:N, got '%s'%s", a, v,
                                     clash_suggest_hint(v, kinds, hint, sizeof hint));
        }
        st->vtk_opt = a;
    } else if (!strcmp(a, "--steps-csv")) {
        cli->steps_csv = v;
    } else {
        *matched = 0;
    }
    return rc;
}

/* The options that only make sense together, once all are read. */
static int check_combinations(clash_cli *cli, const parse_state *st, clash_error *err)
{
    if (!strcmp(cli->command, "info")) return 0;
    if (cli->counters < 0)
        cli->counters = strcmp(cli->command, "profile") ? CLASH_CTR_NONE : CLASH_CTR_AUTO;
    if (cli->sim_ll && strcmp(cli->command, "profile"))
        return clash_internal_fail(err, CLASH_EINPUT, "--sim-ll: applies to clash profile only");
    if (st->vtk_opt && !cli->vtk_dir) return clash_internal_fail(err, CLASH_EINPUT, "%s: applies with --vtk DIR only", st->vtk_opt);
    /* what only the replicated run does: the geometry and the counters read
     * the whole scene's positions and the stages' regions of one run, which a
     * decomposed run's ranks do not have */
    const char *no = strcmp(cli->command, "run") ? "clash profile" : cli->cfg.geometry ? "--geometry"
                     : cli->counters != CLASH_CTR_NONE ? "--counters" : NULL;
    /* and what the decomposed run does too, but the default keeps replicated */
    const char *rep = no ? no : cli->cfg.ccd ? "--ccd" : cli->vtk_dir ? "--vtk" : cli->steps_csv ? "--steps-csv" : NULL;
    if (cli->decompose < 0) /* the default (resolved in main.c by the ranks): objects, unless the run asks for that */
        cli->decompose = rep ? 0 : -1;
    if (st->dec_opt) /* the cells are the library's: cut again when the faces its ranks hold grow unbalanced */
        return clash_internal_fail(err, CLASH_EINPUT, "%s: no longer taken: a decomposed run cuts its cells again by itself, "
                                             "when the faces its ranks hold stay unbalanced (the report's "
                                             "decomposition: imbalance_max, cuts)", st->dec_opt);
    if (cli->decompose == 1 && no) /* refused, not ignored */
        return clash_internal_fail(err, CLASH_EINPUT, "--decompose objects: not with %s (use --decompose replicated)", no);
    if (cli->contacts_path && !cli->cfg.ccd)
        return clash_internal_fail(err, CLASH_EINPUT, "--contacts: applies with --ccd only (exact CCD gives the contacts)");
    if (cli->scene && cli->preset)
        return clash_internal_fail(err, CLASH_EINPUT, "give a scene file or --preset, not both");
    if (cli->have_preset_params && cli->scene)
        return clash_internal_fail(err, CLASH_EINPUT,
                                   "--objects/--seed/--density/--detail apply to presets, not to scene files");
    if (cli->have_preset_params && strcmp(cli->preset ? cli->preset : "default", "cluttered"))
        return clash_internal_fail(err, CLASH_EINPUT,
                                   "%s: applies to the cluttered preset only; preset '%s' ignores --objects, --seed, "
                                   "--density and --detail (add --preset cluttered)",
                                   st->param_opt, cli->preset ? cli->preset : "default");
    return 0;
}

int clash_cli_parse(int argc, char **argv, clash_cli *cli, int *help, int *version, clash_error *err)
{
    memset(cli, 0, sizeof *cli);
    cli->cfg = clash_config_default();
    cli->progress = -1;
    cli->counters = -1;
    cli->vtk_every = 1;
    cli->decompose = -1; /* not given */
    *help = *version = 0;
    parse_state st = {NULL, "--objects", NULL};
    int i = 1;
    if (argc < 2) return clash_internal_fail(err, CLASH_EINPUT, "no command given (try 'clash --help')");
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) return *help = 1, 0;
    if (!strcmp(argv[1], "--version")) return *version = 1, 0;
    cli->command = argv[i++];
    if (strcmp(cli->command, "run") && strcmp(cli->command, "info") && strcmp(cli->command, "profile") &&
        strcmp(cli->command, "bench")) {
        static const char *const commands[] = {"run", "profile", "bench", "info", "ccd", NULL};
        char hint[64];
        clash_suggest_hint(cli->command, commands, hint, sizeof hint);
        return clash_internal_fail(err, CLASH_EINPUT, "unknown command '%s' (run, profile, bench, info, ccd)%s", cli->command,
                                   hint);
    }
    for (; i < argc; ++i) {
        const char *a = argv[i];
        int rc = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) return *help = 1, 0;
        if (a[0] != '-' || a[1] == 0) {
            if (!strcmp(cli->command, "info")) return clash_internal_fail(err, CLASH_EINPUT, "info: unexpected argument '%s'", a);
            if (cli->scene) return clash_internal_fail(err, CLASH_EINPUT, "more than one scene given ('%s' and '%s')", cli->scene, a);
            cli->scene = a;
            continue;
        }
        /* flags without a value */
        if (!strcmp(a, "--self")) { cli->cfg.self_collision = 1; continue; }
        if (!strcmp(a, "--stop-at-first")) { cli->cfg.stop_at_first = 1; continue; }
        if (!strcmp(a, "--quiet")) { cli->quiet = 1; continue; }
        if (!strcmp(a, "--progress")) { cli->progress = 1; continue; }
        if (!strcmp(a, "--no-progress")) { cli->progress = 0; continue; }
        if (!strcmp(a, "--ccd")) { cli->cfg.ccd = 1; continue; }
        if (!strcmp(a, "--geometry")) { cli->cfg.geometry = 1; continue; }
        /* an unknown option is named as such wherever it stands, also last */
        if ((rc = check_known(a, err))) return rc;
        if (i + 1 >= argc) return clash_internal_fail(err, CLASH_EINPUT, "%s: missing value", a);
        const char *v = argv[++i];
        int matched = 0;
        if (!(rc = parse_config_value(cli, a, v, &matched, err)) && !matched &&
            !(rc = parse_scene_value(cli, &st, a, v, &matched, err)) && !matched &&
            !(rc = parse_output_value(cli, &st, a, v, &matched, err)) && !matched)
            return clash_internal_fail(err, CLASH_EINPUT, "unknown option '%s' (try 'clash --help')", a);  /* not reached */
        if (rc) return rc;
    }
    return check_combinations(cli, &st, err);
}
