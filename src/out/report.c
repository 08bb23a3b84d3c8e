/*
 * report.c — see report.h.
 */
#include "out/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/error.h"
#include "profile/profile.h"
#include "sched/topology.h"

void clash_totals_init(clash_run_totals *t)
{
    memset(t, 0, sizeof *t);
    t->first_collision_step = -1;
}

static uint64_t mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t clash_pair_hash(int step, const clash_pair *p)
{
    uint64_t h = mix64((uint64_t)(uint32_t)step);
    h = mix64(h ^ p->obj_a);
    h = mix64(h ^ p->face_a);
    h = mix64(h ^ p->obj_b);
    return mix64(h ^ p->face_b);
}

void clash_totals_free(clash_run_totals *t)
{
    free(t->toi_step), free(t->toi);
    t->toi_step = NULL, t->toi = NULL, t->ntoi = t->cap_toi = 0;
}

int clash_totals_add(clash_run_totals *t, int step, const clash_pairs *p, const clash_step_stats *st)
{
    t->steps_run++;
    if (p->count && t->first_collision_step < 0) t->first_collision_step = step, t->first_collision = *st;
    t->pairs_total += p->count;
    for (size_t i = 0; i < p->count; ++i) t->checksum += clash_pair_hash(step, &p->pairs[i]);
    for (int s = 0; s < CLASH_NSTAGES; ++s) {
        t->stage_total[s] += st->seconds[s];
        t->stage_min[s] += st->worker_min_s[s];
        t->stage_max[s] += st->worker_max_s[s];
    }
    t->vertices += st->vertices, t->faces_boxed += st->faces_boxed, t->object_pairs += st->object_pairs;
    t->faces_kept += st->faces_kept, t->candidates += st->candidates, t->tests += st->tests, t->hits += st->hits;
    t->mid_build_s += st->mid_build_s;
    if (st->mid_bytes > t->mid_bytes) t->mid_bytes = st->mid_bytes;
    if (st->mid_fallback_objects > t->mid_fallback_objects) t->mid_fallback_objects = st->mid_fallback_objects;
    t->mid_update_s += st->mid_update_s, t->mid_interfering += st->mid_interfering;
    t->ccd_s += st->ccd_s, t->ccd_tests += st->ccd_tests, t->ccd_vf_tests += st->ccd_vf_tests;
    t->ccd_hull_no += st->ccd_hull_no;
    t->ccd_filter_no += st->ccd_filter_no, t->ccd_filter_yes += st->ccd_filter_yes;
    t->ccd_exact_calls += st->ccd_exact_calls, t->ccd_contacts += st->ccd_contacts;
    if (st->ccd_contacts > 0) {
        if (t->ntoi == t->cap_toi) {
            const int cap = t->cap_toi ? 2 * t->cap_toi : 64;
            int *s = realloc(t->toi_step, (size_t)cap * sizeof *s);
            if (s) t->toi_step = s;
            double *v = realloc(t->toi, (size_t)cap * sizeof *v);
            if (v) t->toi = v;
            if (!s || !v) return -1;
            t->cap_toi = cap;
        }
        t->toi_step[t->ntoi] = step, t->toi[t->ntoi++] = st->ccd_first_toi;
    }
    return 0;
}

int clash_outfile_open(clash_outfile *o, const char *path, clash_error *err)
{
    memset(o, 0, sizeof *o);
    if (!strcmp(path, "-")) { /* standard output: written as it comes, never closed */
        if (!(o->path = malloc(2))) return clash_fail(err, CLASH_EFAIL, "out of memory");
        strcpy(o->path, "-");
        o->f = stdout;
        return CLASH_OK;
    }
    size_t n = strlen(path) + 32;
    o->path = malloc(strlen(path) + 1);
    o->tmp = malloc(n);
    if (!o->path || !o->tmp) {
        free(o->path), free(o->tmp);
        return clash_fail(err, CLASH_EFAIL, "out of memory");
    }
    strcpy(o->path, path);
    snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    o->f = fopen(o->tmp, "w");
    if (!o->f) {
        int e = errno;
        free(o->path), free(o->tmp);
        memset(o, 0, sizeof *o);
        return clash_fail(err, CLASH_EINPUT, "%s: cannot write: %s", path, strerror(e));
    }
    return CLASH_OK;
}

int clash_outfile_commit(clash_outfile *o, clash_error *err)
{
    if (!o->f) return CLASH_OK;
    int rc = CLASH_OK;
    if (!o->tmp) { /* standard output */
        if (fflush(o->f) != 0 || ferror(o->f)) rc = clash_fail(err, CLASH_EFAIL, "standard output: write failed");
        free(o->path);
        memset(o, 0, sizeof *o);
        return rc;
    }
    int bad = ferror(o->f);
    bad |= fclose(o->f) != 0;
    o->f = NULL;
    if (bad || rename(o->tmp, o->path) != 0) {
        rc = clash_fail(err, CLASH_EFAIL, "%s: write failed: %s", o->path, strerror(errno));
        remove(o->tmp);
    }
    free(o->path), free(o->tmp);
    memset(o, 0, sizeof *o);
    return rc;
}

void clash_outfile_abort(clash_outfile *o)
{
    if (!o->f && !o->tmp) return;
    if (o->f && !o->tmp) { /* standard output: what was written stays written */
        fflush(o->f);
        free(o->path);
        memset(o, 0, sizeof *o);
        return;
    }
    if (o->f) fclose(o->f);
    if (o->tmp) remove(o->tmp);
    free(o->path), free(o->tmp);
    memset(o, 0, sizeof *o);
}

int clash_pairs_csv_header(FILE *f) { return fputs("step,obj_a,face_a,obj_b,face_b\n", f) < 0 ? -1 : 0; }

int clash_pairs_csv_rows(FILE *f, int step, const clash_pairs *p)
{
    for (size_t i = 0; i < p->count; ++i) {
        const clash_pair *q = &p->pairs[i];
        if (fprintf(f, "%d,%u,%u,%u,%u\n", step, q->obj_a, q->face_a, q->obj_b, q->face_b) < 0) return -1;
    }
    return 0;
}

int clash_contacts_csv_header(FILE *f) { return fputs("step,kind,obj_a,id_a,obj_b,id_b,toi\n", f) < 0 ? -1 : 0; }

int clash_contacts_csv_rows(FILE *f, int step, const clash_contacts *c)
{
    for (size_t i = 0; i < c->count; ++i) {
        const clash_contact *q = &c->contacts[i];
        if (fprintf(f, "%d,%s,%u,%u,%u,%u,%.17g\n", step, q->kind == CLASH_CONTACT_VF ? "vf" : "ee", q->obj_a,
                    q->id_a, q->obj_b, q->id_b, q->toi) < 0)
            return -1;
    }
    return 0;
}

/* ccd: (--ccd) the exact CCD after S5, timed apart from the seven stages. */
static void write_ccd(FILE *f, const clash_config *c, const clash_run_totals *t)
{
    const int n = t->steps_run > 0 ? t->steps_run : 1;
    fprintf(f, "ccd:   # exact CCD of the narrow stage's hits, timed apart from the seven stages\n");
    fprintf(f, "  tolerance: %.9g\n  min_separation: %.9g\n", c->ccd_tolerance, c->min_separation);
    fprintf(f, "  total_s: %.6g\n  mean_step_s: %.6g\n", t->ccd_s, t->ccd_s / n);
    fprintf(f, "  per_test_s: %.6g   # total_s / tests\n", t->ccd_tests ? t->ccd_s / (double)t->ccd_tests : 0.0);
    fprintf(f, "  tests: {all: %lld, vf: %lld, ee: %lld}   # primitive pairs, de-duplicated per step\n",
            (long long)t->ccd_tests, (long long)t->ccd_vf_tests, (long long)(t->ccd_tests - t->ccd_vf_tests));
    fprintf(f, "  hull_no: %lld   # set apart before the kernel (0: no prefilter; the kernel's filter decides)\n",
            (long long)t->ccd_hull_no);
    fprintf(f, "  filter: {no: %lld, yes: %lld}   # of the rest, decided by the kernel's float filters\n",
            (long long)t->ccd_filter_no, (long long)t->ccd_filter_yes);
    fprintf(f, "  exact_calls: %lld\n  contacts: %lld\n", (long long)t->ccd_exact_calls, (long long)t->ccd_contacts);
    if (t->ntoi > 0) {
        int first = 0;
        for (int i = 1; i < t->ntoi; ++i)
            if (t->toi_step[i] < t->toi_step[first]) first = i;
        fprintf(f, "  first_contact: {step: %d, toi: %.17g}   # the run's earliest: step - 1 + toi\n",
                t->toi_step[first], t->toi[first]);
    } else {
        fprintf(f, "  first_contact: null\n");
    }
    fprintf(f, "  toi_by_step: {");
    for (int i = 0; i < t->ntoi; ++i) fprintf(f, "%s%d: %.17g", i ? ", " : "", t->toi_step[i], t->toi[i]);
    fprintf(f, "}   # each step with contacts: its earliest toi\n");
}

static const char *mode_name(int m) { return m == CLASH_MODE_STATIC ? "static" : "swept"; }
static const char *const backend_names[] = {"omp", "pthreads"};
static const char *const partition_names[] = {"chunk", "stride"};
static const char *const schedule_names[] = {"static-chunk", "static-stride", "dynamic", "producer-consumer",
                                             "stealing"};
static const char *const broad_names[] = {"auto", "all-pairs", "sap", "bvh"};

static void yaml_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        if ((unsigned char)*s < 0x20) fprintf(f, "\\x%02x", (unsigned char)*s);
        else fputc(*s, f);
    }
    fputc('"', f);
}

int64_t clash_stage_items(const clash_run_totals *t, int stage, const char **name)
{
    static const char *const names[CLASH_NSTAGES] = {"vertices", "faces", "object_pairs", "faces",
                                                     "candidates", "tests", "hits"};
    const int64_t v[CLASH_NSTAGES] = {t->vertices, t->faces_boxed, t->object_pairs, t->faces_boxed,
                                      t->candidates, t->tests, t->hits};
    if (stage < 0 || stage >= CLASH_NSTAGES) return 0;
    if (name) *name = names[stage];
    return v[stage];
}

/* x per item as text: "n/a" when there are no items (a stage that had nothing to do has no
 * ratio, and 0 would read as a perfect one); width w and precision like printf's %W.Pg. */
static const char *per(char *buf, size_t n, uint64_t x, int64_t items, int w, int p)
{
    if (items > 0) snprintf(buf, n, "%*.*g", w, p, (double)x / (double)items);
    else snprintf(buf, n, "%*s", w, "n/a");
    return buf;
}

/* counters: source, reason, model, stages (src/cli/REFERENCE.md): only what was measured. */
static void write_counters(FILE *f, const clash_counters *c, const clash_run_totals *t)
{
    fprintf(f, "counters:\n");
    if (!c) {
        fprintf(f, "  source: none\n  reason: \"counters not requested (clash profile, or --counters)\"\n");
        return;
    }
    fprintf(f, "  source: %s\n", clash_counter_source_names[c->source]);
    fprintf(f, "  requested: %s\n", clash_counter_source_names[c->requested]);
    if (c->reason[0]) {
        fprintf(f, "  reason: ");
        yaml_str(f, c->reason);
        fputc('\n', f);
    }
    if (c->source == CLASH_CTR_NONE) return;
    fprintf(f, "  model: ");
    yaml_str(f, c->model);
    fputc('\n', f);
    if (!(c->fields & (CLASH_CF_L1D | CLASH_CF_LL))) {
        fprintf(f, "  stages: {}   # counted by the external tool\n");
        return;
    }
    fprintf(f, "  stages:\n");
    const int64_t faces = t->faces_boxed, cands = t->candidates;
    for (int s = 0; s < CLASH_NSTAGES; ++s) {
        const clash_stage_counts *k = &c->stage[s];
        if (!k->regions) continue;
        const char *iname;
        const int64_t items = clash_stage_items(t, s, &iname);
        fprintf(f, "    %s: {regions: %lld, l1d_misses: %llu, ll_misses: %llu", clash_stage_name(s),
                (long long)k->regions, (unsigned long long)k->l1d_misses, (unsigned long long)k->ll_misses);
        if (c->fields & CLASH_CF_INSTR) fprintf(f, ", instructions: %llu", (unsigned long long)k->instructions);
        if (c->fields & CLASH_CF_DREFS) fprintf(f, ", data_refs: %llu", (unsigned long long)k->data_refs);
        char r[6][32];
        fprintf(f, ", items: %s, l1d_per_item: %s, ll_per_item: %s", iname, per(r[0], 32, k->l1d_misses, items, 0, 4),
                per(r[1], 32, k->ll_misses, items, 0, 4));
        fprintf(f, ", l1d_per_face: %s, ll_per_face: %s", per(r[2], 32, k->l1d_misses, faces, 0, 4),
                per(r[3], 32, k->ll_misses, faces, 0, 4));
        fprintf(f, ", l1d_per_candidate: %s, ll_per_candidate: %s}\n", per(r[4], 32, k->l1d_misses, cands, 0, 4),
                per(r[5], 32, k->ll_misses, cands, 0, 4));
    }
}

void clash_counters_print(FILE *f, const clash_counters *c, const clash_run_totals *t)
{
    if (!c || c->source == CLASH_CTR_NONE) {
        fprintf(f, "counters: none (%s)\n", c && c->reason[0] ? c->reason : "not requested");
        return;
    }
    fprintf(f, "counters: %s: %s\n", clash_counter_source_names[c->source], c->model);
    if (c->reason[0]) fprintf(f, "(other sources: %s)\n", c->reason);
    if (!(c->fields & (CLASH_CF_L1D | CLASH_CF_LL))) {
        fprintf(f, "per-stage counts are printed by the external tool\n");
        return;
    }
    const int64_t faces = t->faces_boxed, cands = t->candidates;
    fprintf(f, "%-7s %14s %12s %18s %10s %10s %10s %10s %10s %10s\n", "stage", "L1D misses", "LL misses", "items",
            "L1D/item", "LL/item", "L1D/face", "LL/face", "L1D/cand", "LL/cand");
    for (int s = 0; s < CLASH_NSTAGES; ++s) {
        const clash_stage_counts *k = &c->stage[s];
        if (!k->regions) continue;
        const char *iname;
        const int64_t items = clash_stage_items(t, s, &iname);
        char it[32];
        snprintf(it, sizeof it, "%lld %s", (long long)items, iname);
        char r[6][32];
        fprintf(f, "%-7s %14llu %12llu %18.18s %s %s %s %s %s %s\n", clash_stage_name(s),
                (unsigned long long)k->l1d_misses, (unsigned long long)k->ll_misses, it,
                per(r[0], 32, k->l1d_misses, items, 10, 3), per(r[1], 32, k->ll_misses, items, 10, 3),
                per(r[2], 32, k->l1d_misses, faces, 10, 3), per(r[3], 32, k->ll_misses, faces, 10, 3),
                per(r[4], 32, k->l1d_misses, cands, 10, 3), per(r[5], 32, k->ll_misses, cands, 10, 3));
    }
}

int clash_report_write_yaml(FILE *f, const clash_report_info *ri, const clash_run_totals *t)
{
    const clash_build_info *b = clash_build();
    const clash_config *c = ri->cfg;
    clash_topology topo;
    char tdesc[256];
    clash_topology_get(&topo);
    clash_topology_describe(&topo, tdesc, sizeof tdesc);
    fprintf(f, "clash: %s\n", b->version);
    fprintf(f, "build: {compiler: ");
    yaml_str(f, b->compiler);
    fprintf(f, ", flags: ");
    yaml_str(f, b->flags);
    fprintf(f, ", build_type: ");
    yaml_str(f, b->build_type);
    fprintf(f, ", openmp: %s, mpi: %s, hwloc: %s, likwid: %s, papi: %s, valgrind: %s}\n",
            b->openmp ? "true" : "false", b->mpi ? "true" : "false", b->hwloc ? "true" : "false",
            b->likwid ? "true" : "false", b->papi ? "true" : "false", b->valgrind ? "true" : "false");
    fprintf(f, "machine: {cores: %d, ranks: %d, threads: %d, binding: %s, isa: %s, topology: ", topo.cores, ri->ranks,
            ri->threads, ri->binding ? ri->binding : "none", ri->isa ? ri->isa : "unknown");
    yaml_str(f, tdesc);
    fprintf(f, "}\n");
    const clash_scene *sc = ri->scene;
    fprintf(f, "scene: {name: ");
    yaml_str(f, clash_scene_name(sc));
    const int whole = ri->whole_faces > 0;
    fprintf(f, ", objects: %d, vertices: %lld, faces: %lld, memory_bytes: %zu%s}\n",
            whole ? ri->whole_objects : clash_scene_objects(sc),
            (long long)(whole ? ri->whole_vertices : clash_scene_vertices(sc)),
            (long long)(whole ? ri->whole_faces : clash_scene_faces(sc)), clash_scene_memory_bytes(sc),
            whole ? ", memory_note: \"memory_bytes: rank 0's part\"" : "");
    const char *mid = ri->midphase ? ri->midphase : "?";
    char lvl[16];
    if (c->octree_level > 0) snprintf(lvl, sizeof lvl, "%d", c->octree_level);
    else snprintf(lvl, sizeof lvl, "auto");
    fprintf(f,
            "config: {mode: %s, self_collision: %s, backend: %s, partition: %s, schedule: %s, midphase: %s, "
            "broadphase: %s, octree_level: %s, stop_at_first: %s, reorder: %s}\n",
            mode_name(c->mode), c->self_collision ? "true" : "false", backend_names[c->backend],
            partition_names[c->partition], schedule_names[c->schedule], mid,
            broad_names[c->broadphase], lvl,
            c->stop_at_first ? "true" : "false", c->reorder == CLASH_REORDER_MORTON ? "morton" : "none");
    fprintf(f, "steps: %d\n", t->steps_run);
    if (t->first_collision_step >= 0) {
        const clash_step_stats *c1 = &t->first_collision;
        fprintf(f, "first_collision_step: %d\n", t->first_collision_step);
        fprintf(f, "first_collision:  # that step alone\n  seconds: {");
        double sum = 0;
        for (int s = 0; s < CLASH_NSTAGES; ++s) {
            fprintf(f, "%s%s: %.6g", s ? ", " : "", clash_stage_name(s), c1->seconds[s]);
            sum += c1->seconds[s];
        }
        fprintf(f, ", total: %.6g}\n", sum);
        fprintf(f,
                "  items: {object_pairs: %lld, faces_kept: %lld, candidates: %lld, tests: %lld, hits: %lld, "
                "octree_level: %d}\n",
                (long long)c1->object_pairs, (long long)c1->faces_kept, (long long)c1->candidates,
                (long long)c1->tests, (long long)c1->hits, c1->octree_level);
    } else {
        fprintf(f, "first_collision_step: null\n");
    }
    /* Memory: the store and the run's working arrays (at most 200
     * bytes per face for both), and the process's peak resident set, which
     * also holds the code, the scene's description and the outputs' buffers. */
    const double nfaces = clash_scene_faces(sc) > 0 ? (double)clash_scene_faces(sc) : 1.0; /* rank 0's, decomposed */
    const size_t store = clash_scene_memory_bytes(sc);
    struct rusage ru;
    const double rss = getrusage(RUSAGE_SELF, &ru) == 0 ? 1024.0 * (double)ru.ru_maxrss : 0.0; /* Linux: KiB */
    fprintf(f,
            "memory: {store_bytes: %zu, work_bytes: %zu, bytes_per_face: %.1f, peak_rss_bytes: %.0f, "
            "peak_rss_per_face: %.1f}\n",
            store, t->work_bytes, (double)(store + t->work_bytes) / nfaces, rss, rss / nfaces);
    fprintf(f, "pairs_total: %llu\n", (unsigned long long)t->pairs_total);
    fprintf(f, "pairs_checksum: \"%016llx\"\n", (unsigned long long)t->checksum);
    fprintf(f, "wall_s: %.6g\n", t->wall_s);
    fprintf(f, "steps_s: %.6g   # in the steps: mean per step = steps_s / steps\n", t->steps_s);
    fprintf(f, "output_s: %.6g   # writing the outputs (pairs, VTK, step CSV), not this report\n", t->output_s);
    fprintf(f, "stages:\n");
    const int n = t->steps_run > 0 ? t->steps_run : 1;
    for (int s = 0; s < CLASH_NSTAGES; ++s) {
        fprintf(f, "  %s: {total_s: %.6g, mean_step_s: %.6g, min_s: %.6g, max_s: %.6g", clash_stage_name(s),
                t->stage_total[s], t->stage_total[s] / n, t->stage_min[s], t->stage_max[s]);
        switch (s) {
        case CLASH_S0_MOTION: fprintf(f, ", items: {vertices: %lld}", (long long)t->vertices); break;
        case CLASH_S1_BOXES: fprintf(f, ", items: {faces: %lld}", (long long)t->faces_boxed); break;
        case CLASH_S2_BROAD: fprintf(f, ", items: {object_pairs: %lld}", (long long)t->object_pairs); break;
        case CLASH_S3_CULL: fprintf(f, ", items: {faces_kept: %lld}", (long long)t->faces_kept); break;
        case CLASH_S4_MID: fprintf(f, ", items: {candidates: %lld}", (long long)t->candidates); break;
        case CLASH_S5_NARROW:
            fprintf(f, ", items: {tests: %lld, hits: %lld}", (long long)t->tests, (long long)t->hits);
            break;
        default: break;
        }
        fprintf(f, "}\n");
    }
    if (t->mid_bytes > 0) /* the midphase's own structure, built once, and its per-step update */
        fprintf(f,
                "midphase: {name: %s, build_s: %.6g, bytes: %lld, update_s: %.6g, mean_update_step_s: %.6g, "
                "interfering: %lld}\n",
                mid, t->mid_build_s, (long long)t->mid_bytes, t->mid_update_s,
                t->mid_update_s / n, (long long)t->mid_interfering);
    if (t->mid_fallback_objects > 0)
        fprintf(f, "midphase_fallback: {objects: %lld, reason: deforming, to: octree}\n",
                (long long)t->mid_fallback_objects);
    fprintf(f, "stage_timer_note: \"min_s/max_s: fastest/slowest worker per step (its time in the stage's "
               "parallel loops; stages run on one thread, one worker or work too small to wake the team: the "
               "stage's time), summed over steps\"\n");
    if (c->ccd) write_ccd(f, c, t);
    if (ri->extra_yaml) fputs(ri->extra_yaml, f);
    write_counters(f, ri->counters, t);
    return ferror(f) ? -1 : 0;
}
