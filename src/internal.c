/*
 * internal.c — clash_internal.h: what the command and the benchmarks use
 * beyond clash/clash.h, each a thin function over the library's own layers.
 *
 * This is the one file where the clients' needs meet the library's internal
 * structures (the run of core/run.h, the store of store/scene.h): every
 * field a benchmark reads or sets is read or set here, so that a change of
 * those structures is followed in one place.  Each function forwards to
 * the layer that does the work, converting between the header's plain types
 * and the layer's; the one thing done here is finding valgrind for `clash
 * profile` and the cache benchmarks, which both ask.  The scene
 * descriptions, CCD query files, outputs and counter sources that the
 * header declares are defined in their own folders (io/, out/, profile/).
 */
#include "clash_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"
#include "base/sort.h"
#include "core/bvh.h"
#include "core/run.h"
#include "kernels/ccd.h"
#include "kernels/kernels.h"
#include "profile/profile.h"
#include "sched/bind.h"
#include "sched/ranks.h"
#include "sched/sched.h"
#include "sched/topology.h"
#include "stages/broad.h"
#include "stages/finegrain.h"
#include "stages/mid/midphase.h"
#include "stages/stages.h"
#include "store/generators.h"
#include "store/mesh.h"
#include "store/scene.h"

/* ---- errors and names ------------------------------------------------------ */

int clash_internal_fail(clash_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    clash_vfail(err, code, fmt, ap);
    va_end(ap);
    return code;
}

const char *clash_internal_suggest(const char *word, const char *const *names)
{
    return clash_suggest(word, names);
}

const char *const *clash_internal_midphase_names(void)
{
    return clash_midphase_names;
}

const char *clash_internal_midphase_name(int midphase)
{
    return clash_midphase_name(midphase);
}

const char *clash_internal_bind_name(int bind)
{
    return clash_bind_name(bind);
}

/* ---- the machine -------------------------------------------------------------- */

int clash_internal_threads(int requested)
{
    return clash_sched_threads(requested);
}

int clash_internal_cores(void)
{
    return clash_sched_cores();
}

int clash_internal_backend_available(int backend)
{
    return clash_sched_backend_available(backend);
}

void clash_internal_unbind_initial(void)
{
    clash_sched_unbind_initial();
}

const char *clash_internal_machine(char *buf, size_t n)
{
    clash_topology t;
    clash_topology_get(&t);
    clash_topology_describe(&t, buf, n);
    return t.source;
}

const char *clash_internal_l3(size_t *bytes, int *line, int *ways)
{
    clash_topology t;
    clash_topology_get(&t);
    *bytes = t.l3, *line = t.l3_line, *ways = t.l3_ways;
    return t.source;
}

int clash_internal_find_valgrind(char *out, size_t n)
{
    const char *over = getenv("CLASH_VALGRIND");
    if (over) {
        snprintf(out, n, "%s", over);
        return *over && access(over, X_OK) == 0 ? 0 : -1;
    }
    const char *path = getenv("PATH");
    if (!path) path = "/usr/bin:/bin";
    while (*path) {
        const size_t len = strcspn(path, ":");
        snprintf(out, n, "%.*s/valgrind", (int)len, path);
        if (len && access(out, X_OK) == 0) return 0;
        path += len + (path[len] == ':');
    }
    return -1;
}

int clash_internal_callgrind_usable(char *out, size_t n)
{
    if (!clash_build()->valgrind) {
        snprintf(out, n, "not built in (valgrind/callgrind.h was not found at configure time)");
        return -1;
    }
    if (clash_internal_find_valgrind(out, n)) {
        snprintf(out, n, "valgrind is not installed (%s)",
                 getenv("CLASH_VALGRIND") ? "CLASH_VALGRIND names no executable" : "not found in PATH");
        return -1;
    }
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    snprintf(out, n, "this build has sanitizers, which valgrind cannot run");
    return -1;
#endif
    return 0;
}

/* ---- hardware counters ----------------------------------------------------------------- */

clash_counters *clash_internal_counters_open(int requested)
{
    clash_counters *c = malloc(sizeof *c);
    if (c) clash_counters_open(requested, c);
    return c;
}

void clash_internal_counters_finish(clash_counters *c)
{
    clash_counters_finish(c);
}

void clash_internal_counters_close(clash_counters *c)
{
    if (!c) return;
    clash_counters_close(c);
    free(c);
}

int clash_internal_counters_source(const clash_counters *c)
{
    return c->source;
}

const char *clash_internal_counters_model(const clash_counters *c)
{
    return c->model;
}

const char *clash_internal_counters_reason(const clash_counters *c)
{
    return c->reason;
}

const clash_stage_counts *clash_internal_counters_stage(const clash_counters *c, int stage)
{
    return &c->stage[stage];
}

/* ---- the command's ranks ------------------------------------------------------ */

/* The world as sched/ranks.c sees it now (one rank before MPI_Init and after
 * MPI_Finalize): cheap enough to ask for at every collective. */
static clash_ranks world(void)
{
    clash_ranks w;
    clash_ranks_world(&w);
    return w;
}

int clash_internal_ranks_init(int *argc, char ***argv)
{
    return clash_ranks_init(argc, argv);
}

void clash_internal_ranks_finalize(int inited)
{
    clash_ranks_finalize(inited);
}

int clash_internal_rank(void)
{
    return world().rank;
}

int clash_internal_nranks(void)
{
    return world().size;
}

int clash_internal_ranks_max_int(int v)
{
    const clash_ranks w = world();
    return clash_ranks_max_int(&w, v);
}

int clash_internal_ranks_any(int v)
{
    const clash_ranks w = world();
    return clash_ranks_any(&w, v);
}

void clash_internal_ranks_max_f64(double *v, int n)
{
    const clash_ranks w = world();
    clash_ranks_max_f64(&w, v, n);
}

void clash_internal_ranks_min_f64(double *v, int n)
{
    const clash_ranks w = world();
    clash_ranks_min_f64(&w, v, n);
}

void clash_internal_ranks_sum_i64(int64_t *v, int n)
{
    const clash_ranks w = world();
    clash_ranks_sum_i64(&w, v, n);
}

void clash_internal_ranks_allgather_i64(const int64_t *v, int n, int64_t *all)
{
    const clash_ranks w = world();
    clash_ranks_allgather_i64(&w, v, n, all);
}

void clash_internal_ranks_abort(int code)
{
    const clash_ranks w = world();
    clash_ranks_abort(&w, code);
}

/* ---- thread teams ---------------------------------------------------------------- */

struct clash_internal_team {
    clash_exec ex; /* its pool owned */
};

static clash_exec exec_of(int backend, int threads, int partition, int64_t chunk, int schedule)
{
    clash_exec ex = {.backend = backend, .threads = threads, .partition = partition, .chunk = chunk,
                     .schedule = schedule};
    ex.pool = backend == CLASH_BACKEND_PTHREADS ? clash_pool_create(threads) : NULL;
    return ex;
}

clash_internal_team *clash_internal_team_create(int backend, int threads, int partition, int64_t chunk,
                                                int schedule)
{
    clash_internal_team *t = malloc(sizeof *t);
    if (t) t->ex = exec_of(backend, threads, partition, chunk, schedule);
    return t;
}

void clash_internal_team_destroy(clash_internal_team *t)
{
    if (!t) return;
    clash_pool_destroy(t->ex.pool);
    free(t);
}

int clash_internal_team_threads(const clash_internal_team *t)
{
    return t->ex.threads;
}

void clash_internal_team_for(const clash_internal_team *t, int64_t n, clash_internal_range_fn fn, void *ctx)
{
    clash_par_for(&t->ex, n, fn, ctx);
}

/* ---- a run's switches and insides ---------------------------------------------------- */

int clash_internal_set_debug(clash_run *run, int which, int value)
{
    switch (which) {
    case CLASH_DEBUG_BVH_BUILDER:
        run->mid->bvh_builder = value == CLASH_INTERNAL_BVH_MORTON ? CLASH_BVH_MORTON : CLASH_BVH_SAH;
        return 0;
    case CLASH_DEBUG_BVH_WORLD: run->debug.bvh_world = value; return 0;
    case CLASH_DEBUG_NARROW_PLAIN: run->debug.narrow_plain = value; return 0;
    case CLASH_DEBUG_CCD_EVERY_HIT: run->debug.ccd_every_hit = value; return 0;
    default: return CLASH_EINPUT;
    }
}

int clash_internal_run_set_team(clash_run *run, int backend, int threads, int partition, int64_t chunk,
                                int schedule)
{
    clash_pool_destroy(run->exec.pool);
    free(run->exec.worker_seconds); /* (sized for the old team: the next step makes the new team's) */
    run->exec = exec_of(backend, threads, partition, chunk, schedule);
    return backend == CLASH_BACKEND_PTHREADS && !run->exec.pool ? CLASH_EFAIL : 0;
}

int clash_internal_run_boxes(clash_run *run, int streaming)
{
    return clash_fg_boxes_stores(run, streaming);
}

int64_t clash_internal_run_face_boxes(clash_run *run, float *box[6])
{
    box[0] = run->boxes->lox, box[1] = run->boxes->loy, box[2] = run->boxes->loz;
    box[3] = run->boxes->hix, box[4] = run->boxes->hiy, box[5] = run->boxes->hiz;
    return run->sc->nf;
}

void clash_internal_run_object_box(const clash_run *run, int obj, float box[6])
{
    for (int k = 0; k < 3; ++k) box[k] = run->boxes->obox[obj].lo[k], box[3 + k] = run->boxes->obox[obj].hi[k];
}

void clash_internal_run_bvh_size(const clash_run *run, int obj, int *nodes, int *places)
{
    *nodes = run->mid->bvh ? run->mid->bvh[obj].nnode : 0;
    *places = run->mid->bvh ? run->mid->bvh[obj].nprim : 0;
}

void clash_internal_run_set_counters(clash_run *run, clash_counters *c)
{
    clash_run_set_counters(run, c);
}

size_t clash_internal_run_work_bytes(const clash_run *run)
{
    return clash_run_work_bytes(run);
}

int64_t clash_internal_run_ccd_queries(const clash_run *run)
{
    return clash_ccd_queries(run);
}

int clash_internal_run_ccd_query(const clash_run *run, int64_t i, double x0[4][3], double x1[4][3])
{
    return clash_ccd_query(run, i, x0, x1) == CK_CCD_EE ? CLASH_INTERNAL_CCD_EE : CLASH_INTERNAL_CCD_VF;
}

/* ---- the scene store --------------------------------------------------------------- */

void clash_internal_scene_view_get(const clash_scene *sc, clash_internal_scene_view *v)
{
    *v = (clash_internal_scene_view){
        .nobj = sc->nobj, .nv = sc->nv, .nf = sc->nf,
        .x = sc->x, .y = sc->y, .z = sc->z, .px = sc->px, .py = sc->py, .pz = sc->pz,
        .lx = sc->lx, .ly = sc->ly, .lz = sc->lz,
        .f0 = sc->f0, .f1 = sc->f1, .f2 = sc->f2, .fofs = sc->fofs,
    };
}

int64_t clash_internal_face_store(const clash_scene *sc, int obj, int64_t face)
{
    return clash_face_store(sc, sc->fofs[obj] + face);
}

int clash_internal_scene_meshes(const clash_scene *sc)
{
    return sc->nmesh;
}

void clash_internal_scene_mesh(const clash_scene *sc, int m, int64_t *nv, const double **xyz, int64_t *nf,
                               const int32_t **tri)
{
    const clash_store_mesh *ms = &sc->mesh[m];
    *nv = ms->nv, *xyz = ms->xyz, *nf = ms->nf, *tri = ms->tri;
}

void clash_internal_scene_object(const clash_scene *sc, int obj, int *mesh, double *scale, double R[9], double t[3])
{
    *mesh = sc->obj_mesh[obj], *scale = sc->obj_scale[obj];
    for (int k = 0; k < 9; ++k) R[k] = sc->pose0[obj].R[k];
    for (int k = 0; k < 3; ++k) t[k] = sc->pose0[obj].t[k];
}

int clash_internal_scene_pose_at(const clash_scene *sc, int obj, int s, double R[9], double t[3])
{
    if (sc->law[obj] != CLASH_LAW_FORMULA) return CLASH_EINPUT;
    double scale;
    clash_pose_at(&sc->pose[obj], s, R, &scale, t);
    return 0;
}

int clash_internal_scene_check_laws(const clash_scene *sc, int last, const char *source, clash_error *err)
{
    return clash_store_check_laws(sc, last, source, err);
}

int clash_internal_scene_set_state(clash_scene *sc, int s, clash_error *err)
{
    return clash_scene_set_state(sc, s, err);
}

int clash_internal_scene_shuffle(clash_scene *sc, uint64_t seed, clash_error *err)
{
    if (sc->nruns) return clash_fail(err, CLASH_EINPUT, "%s: cannot reorder a scene a run uses", sc->name);
    return clash_store_shuffle(sc, seed, err);
}

int clash_internal_gen_sphere(int faces, clash_mesh_arrays *out, clash_error *err)
{
    clash_mesh m = {0};
    const int rc = clash_gen_sphere(faces, &m, err);
    *out = (clash_mesh_arrays){.nv = m.nverts, .nf = m.nfaces, .xyz = m.xyz, .tri = m.tri};
    return rc;
}

/* ---- kernels the micro-benchmarks time ---------------------------------------------- */

void clash_internal_face_boxes(int64_t nf, const int32_t *i0, const int32_t *i1, const int32_t *i2, const float *x,
                               const float *y, const float *z, float *const box[6], float olo[3], float ohi[3])
{
    ck_face_boxes(0, nf, i0, i1, i2, x, y, z, NULL, NULL, NULL, box[0], box[1], box[2], box[3], box[4], box[5], olo,
                  ohi);
}

static clash_boxes_soa soa_of(const float *const box[6])
{
    return (clash_boxes_soa){box[0], box[1], box[2], box[3], box[4], box[5]};
}

struct clash_internal_bvh {
    clash_bvh tree;
};

clash_internal_bvh *clash_internal_bvh_create(void)
{
    return calloc(1, sizeof(clash_internal_bvh));
}

void clash_internal_bvh_destroy(clash_internal_bvh *t)
{
    if (!t) return;
    clash_bvh_free(&t->tree);
    free(t);
}

int clash_internal_bvh_build(clash_internal_bvh *t, int builder, const uint32_t *ids, int32_t n,
                             const float *const box[6])
{
    return clash_bvh_build(&t->tree, builder == CLASH_INTERNAL_BVH_MORTON ? CLASH_BVH_MORTON : CLASH_BVH_SAH, ids, n,
                           soa_of(box));
}

void clash_internal_bvh_refit(clash_internal_bvh *t, const float *const box[6])
{
    clash_bvh_refit(&t->tree, soa_of(box));
}

int clash_internal_bvh_set_faces(clash_internal_bvh *t, const int32_t *i0, const int32_t *i1, const int32_t *i2)
{
    return clash_bvh_set_faces(&t->tree, i0, i1, i2);
}

void clash_internal_bvh_refit_faces(clash_internal_bvh *t, const float *x, const float *y, const float *z)
{
    clash_bvh_refit_faces(&t->tree, x, y, z, NULL, NULL, NULL);
}

void clash_internal_bvh_refit_nodes(clash_internal_bvh *t)
{
    clash_bvh_refit_nodes(&t->tree);
}

int clash_internal_bvh_nodes(const clash_internal_bvh *t)
{
    return t->tree.nnode;
}

int32_t clash_internal_bvh_places(const clash_internal_bvh *t)
{
    return t->tree.nprim;
}

uint32_t *clash_internal_bvh_prims(clash_internal_bvh *t)
{
    return t->tree.prim;
}

size_t clash_internal_bvh_node_bytes(void)
{
    return sizeof(clash_bvh_node);
}

struct clash_internal_broad {
    clash_exec ex;
    clash_keybuf *kb; /* one a worker */
};

clash_internal_broad *clash_internal_broad_create(int threads)
{
    clash_internal_broad *b = malloc(sizeof *b);
    if (!b) return NULL;
    b->ex = (clash_exec){.backend = CLASH_BACKEND_OMP, .threads = threads, .partition = CLASH_PART_CHUNK,
                         .schedule = CLASH_SCHED_DYNAMIC};
    if (!(b->kb = calloc((size_t)threads, sizeof *b->kb))) {
        free(b);
        return NULL;
    }
    return b;
}

void clash_internal_broad_destroy(clash_internal_broad *b)
{
    if (!b) return;
    for (int w = 0; w < b->ex.threads; ++w) free(b->kb[w].v);
    free(b->kb), free(b);
}

int clash_internal_broad_run(clash_internal_broad *b, int method, int64_t n, const float *const box[6], float grow)
{
    for (int w = 0; w < b->ex.threads; ++w) b->kb[w].n = 0;
    return method == CLASH_INTERNAL_BROAD_BVH ? clash_broad_bvh(&b->ex, n, soa_of(box), grow, b->kb)
                                              : clash_broad_sap(&b->ex, n, soa_of(box), grow, b->kb);
}

size_t clash_internal_broad_pairs(const clash_internal_broad *b, uint64_t *out)
{
    size_t k = 0;
    for (int w = 0; w < b->ex.threads; ++w) {
        if (out) memcpy(out + k, b->kb[w].v, b->kb[w].n * sizeof *out);
        k += b->kb[w].n;
    }
    return k;
}

size_t clash_internal_sort_unique_u64(uint64_t *a, size_t n)
{
    return clash_sort_unique_u64(a, n);
}

/* The header's CCD options and counts are the kernel's, field by field. */
static ck_ccd_opts ck_opts(const clash_internal_ccd_opts *o)
{
    return (ck_ccd_opts){.tolerance = o->tolerance, .min_sep = o->min_sep, .max_iter = o->max_iter};
}

static void add_counts(clash_internal_ccd_counts *c, const ck_ccd_counts *k)
{
    c->tests += k->tests, c->filter_no += k->filter_no, c->filter_yes += k->filter_yes;
    c->exact_calls += k->exact_calls, c->hits += k->hits;
}

clash_internal_ccd_opts clash_internal_ccd_defaults(void)
{
    const ck_ccd_opts d = ck_ccd_defaults();
    return (clash_internal_ccd_opts){.tolerance = d.tolerance, .min_sep = d.min_sep, .max_iter = d.max_iter};
}

clash_internal_ccd_opts clash_internal_run_ccd_opts(const clash_run *run)
{
    return (clash_internal_ccd_opts){.tolerance = run->cfg.ccd_tolerance, .min_sep = run->cfg.min_separation};
}

static int ck_kind(int kind)
{
    return kind == CLASH_INTERNAL_CCD_EE ? CK_CCD_EE : CK_CCD_VF;
}

int clash_internal_ccd(int kind, const double x0[4][3], const double x1[4][3], const clash_internal_ccd_opts *o,
                       double *toi, clash_internal_ccd_counts *c)
{
    const ck_ccd_opts k = ck_opts(o);
    ck_ccd_counts n = {0};
    const int hit = ck_ccd(ck_kind(kind), x0, x1, &k, toi, c ? &n : NULL);
    if (c) add_counts(c, &n);
    return hit;
}

void clash_internal_ccd_batch(int kind, int64_t n, const double (*x0)[4][3], const double (*x1)[4][3],
                              const clash_internal_ccd_opts *o, uint8_t *hit, double *toi,
                              clash_internal_ccd_counts *c)
{
    const ck_ccd_opts k = ck_opts(o);
    ck_ccd_counts m = {0};
    ck_ccd_batch(ck_kind(kind), n, x0, x1, &k, hit, toi, c ? &m : NULL);
    if (c) add_counts(c, &m);
}
