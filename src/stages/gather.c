/*
 * gather.c — stage S6: the hits of S5 as canonical, sorted pairs in input
 * numbering.  Candidates are sorted and unique, so compacting the hit keys in
 * place keeps them canonical (where S4 left them unsorted, clash_candidates.unsorted,
 * the hits are sorted here); a Morton-reordered store (store/reorder.c)
 * maps its faces back to input numbers and sorts again.  Under MPI each
 * rank does this for its own hits (its share of S4/S5's work), and rank 0
 * merges the ranks' sorted keys as they stream in (clash_ranks_merge_u64),
 * into the pairs: rank 0's part costs what the pairs cost, a heap step a
 * pair, and goes over no rank's candidates.
 */
#include <stdlib.h>

#include "base/error.h"
#include "base/mem.h"
#include "base/sort.h"
#include "base/tuning.h"
#include "sched/ranks.h"
#include "stages/stages.h"

/* ---- one rank: the team does it ------------------------------------------------------
 * On one rank S6 is four passes over the team, each worker on its own
 * contiguous share: count its hits among the tested candidates; write its
 * hit keys (in input numbering, canonical) to gkeys from its offset; sort
 * its run of keys (only when the order changed: a reordered store, or
 * candidates left unsorted), object by object where the candidates come by
 * first face (cand_cut); then, after a merge of the sorted runs where they
 * are not in order already, make the pairs.  The keys and the pairs are those of the
 * serial loop below whatever the team (the runs are contiguous and merged
 * in order).  On the largest scenes the serial loop was the one stage
 * that did not scale (bench/RESULTS.md).
 *
 * The shares are pieces, eight a worker (at most S6_MAXT), handed out as
 * the workers ask: a worker on a slower CPU takes fewer, and no pass waits
 * for its fixed half.  The pieces, their cuts and their runs depend on the
 * team size alone, never on who took which.  With a CPU at half speed (a
 * busy loop pinned beside the second worker) S6 at 2 threads had taken
 * longer than at 1 thread (bench/RESULTS.md). */
typedef struct s6 {
    clash_run *run;
    const clash_candidates *cand; /* S4's */
    int64_t first, last; /* the tested candidates */
    int64_t *off;        /* per piece: its first key; off[P]: all */
    int64_t *cut;        /* per piece: its first tested candidate; cut[P]: last (cand_cut) */
    uint64_t *keys, *tmp;
    int remap;           /* a reordered store: keys to input numbers */
    const uint32_t *kor; /* keys of places with the rows made: each kept face's input number (run->rows->korig) */
} s6;

static void share(int64_t first, int64_t last, int w, int T, int64_t *b, int64_t *e)
{
    *b = first + (last - first) * w / T, *e = first + (last - first) * (w + 1) / T;
}

/* Where the tested candidates are cut between pieces: at the even split,
 * moved on (a little at most) to where the first face's object changes,
 * else (a store not reordered, where the keys ascend with their first
 * faces) to where the first face changes.
 * The octree's candidates come by first face, and a reordered store keeps
 * each object's range of face numbers, so every worker's hits then hold
 * whole objects' key ranges, each worker's above the last's: s6_sort sorts
 * them object by object and the runs need no merge (gather_team checks). */
static int64_t cand_cut(const s6 *g, int w, int T)
{
    int64_t i = g->first + (g->last - g->first) * w / T;
    if (i <= g->first || i >= g->last) return i;
    const clash_run *run = g->run;
    const int64_t lim = i + CLASH_TUNE_GATHER_CUT_REACH + (g->last - g->first) / (8 * (int64_t)T);
    const int32_t o = run->face_obj[clash_cand_faces(run, g->cand, g->cand->keys[i - 1]) >> 32];
    for (int64_t j = i; j < g->last && j < lim; ++j)
        if (run->face_obj[clash_cand_faces(run, g->cand, g->cand->keys[j]) >> 32] != o) return j;
    if (!g->remap) { /* input numbers ascend with the faces: the next first face will do */
        const uint64_t f = clash_cand_faces(run, g->cand, g->cand->keys[i - 1]) >> 32;
        for (int64_t j = i; j < g->last && j < lim; ++j)
            if (clash_cand_faces(run, g->cand, g->cand->keys[j]) >> 32 != f) return j;
    }
    return i; /* one face's candidates go on: the even split, and a merge */
}

/* Every inner cut of the P pieces where the first face's object changes. */
static int cuts_whole(const s6 *g, int P)
{
    const clash_run *run = g->run;
    for (int w = 1; w < P; ++w) {
        const int64_t i = g->cut[w];
        if (i <= g->first || i >= g->last) continue;
        if (run->face_obj[clash_cand_faces(run, g->cand, g->cand->keys[i - 1]) >> 32] ==
            run->face_obj[clash_cand_faces(run, g->cand, g->cand->keys[i]) >> 32])
            return 0;
    }
    return 1;
}

static void s6_count(int w, int T, void *p)
{
    const s6 *g = p;
    (void)T;
    int64_t n = 0;
    for (int64_t i = g->cut[w]; i < g->cut[w + 1]; ++i) n += g->run->narrow->hit[i] != 0;
    g->off[w + 1] = n;
}

static void s6_write(int w, int T, void *p)
{
    const s6 *g = p;
    const clash_run *run = g->run;
    const uint32_t *fo = run->sc->face_orig;
    (void)T;
    int64_t k = g->off[w];
    if (g->kor) { /* keys of places: their faces' input numbers from one small array, made with the rows */
        for (int64_t i = g->cut[w]; i < g->cut[w + 1]; ++i) {
            if (!run->narrow->hit[i]) continue;
            const uint64_t c = g->cand->keys[i], x = g->kor[c >> 32], y = g->kor[(uint32_t)c];
            g->keys[k++] = x < y ? x << 32 | y : y << 32 | x;
        }
        return;
    }
    for (int64_t i = g->cut[w]; i < g->cut[w + 1]; ++i) {
        if (!run->narrow->hit[i]) continue;
        uint64_t key = clash_cand_faces(run, g->cand, g->cand->keys[i]);
        if (g->remap) {
            const uint64_t x = (uint64_t)fo[key >> 32], y = (uint64_t)fo[(uint32_t)key];
            key = x < y ? x << 32 | y : y << 32 | x;
        }
        g->keys[k++] = key;
    }
}

/* Worker w's run of keys sorted: object by object of the first face, each
 * object's keys sorted while they are in cache (some hundreds: a pass or
 * four of the small radix sort), then, if the objects did not come in
 * ascending order, the whole run (candidates in another order). */
static void s6_sort(int w, int T, void *p)
{
    (void)T;
    const s6 *g = p;
    const int32_t *fobj = g->run->face_obj; /* an object's faces: one range in both numberings */
    uint64_t *k = g->keys + g->off[w], *t = g->tmp + g->off[w];
    const int64_t n = g->off[w + 1] - g->off[w];
    int ordered = 1;
    for (int64_t i = 0; i < n && ordered;) {
        const int32_t o = fobj[k[i] >> 32];
        int64_t j = i + 1;
        while (j < n && fobj[k[j] >> 32] == o) ++j;
        clash_sort_u64(k + i, (size_t)(j - i), t + i); /* with scratch: cannot fail */
        ordered = i == 0 || k[i - 1] < k[i];
        i = j;
    }
    if (!ordered && n > 1) clash_sort_u64(k, (size_t)n, t);
}

/* The workers' sorted runs in order already: each one's keys above the
 * last nonempty one's. */
static int runs_ordered(const uint64_t *a, const int64_t *off, int T)
{
    int64_t last = -1; /* the last key's place so far */
    for (int w = 0; w < T; ++w) {
        if (off[w + 1] == off[w]) continue;
        if (last >= 0 && !(a[last] < a[off[w]])) return 0;
        last = off[w + 1] - 1;
    }
    return 1;
}

static void s6_pairs(int w, int T, void *p)
{
    const s6 *g = p;
    clash_run *run = g->run;
    const clash_scene *sc = run->sc;
    int64_t b, e;
    share(0, g->off[T], w, T, &b, &e);
    /* the first faces ascend: their objects by a walk along fofs (an
     * object's faces are one range in both numberings), not a lookup each */
    int32_t ox = b < e ? run->face_obj[(uint32_t)(g->keys[b] >> 32)] : 0;
    for (int64_t i = b; i < e; ++i) {
        const uint32_t x = (uint32_t)(g->keys[i] >> 32), y = (uint32_t)g->keys[i];
        while (x >= (uint64_t)sc->fofs[ox + 1]) ++ox;
        const int32_t oy = run->face_obj[y];
        run->pairs[i] = (clash_pair){(uint32_t)ox, (uint32_t)(x - sc->fofs[ox]), (uint32_t)oy,
                                     (uint32_t)(y - sc->fofs[oy])};
    }
}

/* Merges the sorted a[i .. m) and a[j .. e) into t from o on. */
static void merge_two(const uint64_t *a, int64_t i, int64_t m, int64_t j, int64_t e, uint64_t *t, int64_t o)
{
    while (i < m && j < e) t[o++] = a[j] < a[i] ? a[j++] : a[i++];
    while (i < m) t[o++] = a[i++];
    while (j < e) t[o++] = a[j++];
}

/* Merges the sorted runs a[off[k] .. off[k + 1]) of k < T into one, by
 * rounds of pairwise merges between a and t; returns where it ended. */
static uint64_t *merge_runs(uint64_t *a, uint64_t *t, int64_t *off, int T)
{
    for (int width = 1; width < T; width *= 2) {
        for (int k = 0; k < T; k += 2 * width) {
            const int64_t b = off[k], m = off[k + width < T ? k + width : T], e = off[k + 2 * width < T ? k + 2 * width : T];
            merge_two(a, b, m, m, e, t, b);
        }
        uint64_t *x = a;
        a = t, t = x;
    }
    return a;
}

/* The same merge by the team, the output cut by value: T - 1 splitters from
 * a sample of the keys (every (nh / T^2)-th key of every run, sorted), and
 * worker w takes the keys of every run in [split[w], split[w + 1]) (found
 * by bisection), writes them from the count of smaller keys on and merges
 * its T pieces with a small heap.  The result is the one sorted order,
 * whatever the team.  (merge_runs's log2 T rounds on the calling thread
 * are serial, which shows at many threads on many hits.) */
enum { S6_MAXT = 64 };
typedef struct s6m {
    const uint64_t *a;
    uint64_t *t;
    const int64_t *off; /* the R runs */
    int R;
    const uint64_t *split; /* split[1 .. T - 1] */
} s6m;

static int64_t lower_u64(const uint64_t *a, int64_t n, uint64_t x)
{
    int64_t lo = 0;
    while (n > 0) {
        const int64_t h = n / 2;
        if (a[lo + h] < x) lo += h + 1, n -= h + 1;
        else n = h;
    }
    return lo;
}

static void s6_merge(int w, int T, void *p)
{
    const s6m *m = p;
    int64_t at[S6_MAXT], end[S6_MAXT], o = 0;
    int heap[S6_MAXT], nh = 0;
    const int R = m->R;
    for (int k = 0; k < R; ++k) {
        const int64_t b = m->off[k], n = m->off[k + 1] - b;
        at[k] = w == 0 ? b : b + lower_u64(m->a + b, n, m->split[w]);
        end[k] = w == T - 1 ? b + n : b + lower_u64(m->a + b, n, m->split[w + 1]);
        o += at[k] - b;
    }
    const uint64_t *a = m->a;
    if (R == 2) { /* two runs: the plain merge (the heap cost it twice as much per key) */
        merge_two(a, at[0], end[0], at[1], end[1], m->t, o);
        return;
    }
    /* a min-heap of the runs by their next key */
    for (int k = 0; k < R; ++k) {
        if (at[k] >= end[k]) continue;
        int i = nh++;
        while (i > 0 && a[at[heap[(i - 1) / 2]]] > a[at[k]]) heap[i] = heap[(i - 1) / 2], i = (i - 1) / 2;
        heap[i] = k;
    }
    while (nh > 0) {
        const int k = heap[0];
        m->t[o++] = a[at[k]++];
        const int top = at[k] < end[k] ? k : heap[--nh];
        if (nh == 0) break;
        const uint64_t v = a[at[top]];
        int i = 0;
        for (;;) {
            int c = 2 * i + 1;
            if (c >= nh) break;
            if (c + 1 < nh && a[at[heap[c + 1]]] < a[at[heap[c]]]) ++c;
            if (a[at[heap[c]]] >= v) break;
            heap[i] = heap[c], i = c;
        }
        heap[i] = top;
    }
}

/* merge_runs of the R runs by the team of T (s6_merge) into t; NULL when
 * out of memory. */
static uint64_t *merge_team(const clash_exec *ex, int T, uint64_t *a, uint64_t *t, int64_t *off, int R)
{
    const int64_t n = off[R], step = n / ((int64_t)T * R) > 1 ? n / ((int64_t)T * R) : 1;
    const size_t cap = (size_t)(n / step + R + 1);
    uint64_t *smp = malloc(2 * sizeof *smp * cap), split[S6_MAXT + 1] = {0};
    if (!smp) return NULL;
    size_t ns = 0;
    for (int k = 0; k < R; ++k)
        for (int64_t i = off[k] + step / 2; i < off[k + 1]; i += step) smp[ns++] = a[i];
    clash_sort_u64(smp, ns, smp + cap); /* with scratch: cannot fail */
    for (int w = 1; w < T; ++w) split[w] = ns ? smp[ns * (size_t)w / (size_t)T] : 0;
    free(smp);
    s6m m = {a, t, off, R, split};
    clash_spmd(ex, s6_merge, &m);
    return t;
}

/* S6's passes over the P pieces, handed out as the workers ask. */
typedef struct {
    void (*fn)(int, int, void *);
    int P;
    void *ctx;
} s6_pieces;

static void pieces_range(int64_t begin, int64_t end, int64_t step, int worker, void *p)
{
    (void)worker;
    const s6_pieces *c = p;
    for (int64_t i = begin; i < end; i += step) c->fn((int)i, c->P, c->ctx);
}

static void run_pieces(const clash_exec *ex, int P, void (*fn)(int, int, void *), void *ctx)
{
    s6_pieces c = {fn, P, ctx};
    clash_exec d = *ex;
    d.schedule = CLASH_SCHED_DYNAMIC;
    clash_par_tasks(&d, P, 1, pieces_range, &c);
}

/* ---- several ranks: rank 0 merges the ranks' sorted keys ----------------------------- */

/* Rank 0's side of the merge: the keys, ascending, become pairs as they
 * come; a key met on two ranks (static mode, where a pair may be made in
 * two units) is kept once. */
typedef struct pair_sink {
    clash_run *run;
    size_t m, cap;
    uint64_t last;
} pair_sink;

static int sink_keys(void *ctx, const uint64_t *keys, int64_t n)
{
    pair_sink *k = ctx;
    clash_run *run = k->run;
    const clash_scene *sc = run->sc;
    for (int64_t i = 0; i < n; ++i) {
        if (k->m && keys[i] == k->last) continue;
        if (k->m == k->cap) return -1; /* (cannot happen: cap is every rank's hits) */
        const uint32_t a = (uint32_t)(keys[i] >> 32), b = (uint32_t)keys[i];
        const int32_t oa = run->face_obj[a], ob = run->face_obj[b];
        run->pairs[k->m++] = (clash_pair){(uint32_t)oa, (uint32_t)(a - sc->fofs[oa]), (uint32_t)ob,
                                          (uint32_t)(b - sc->fofs[ob])};
        k->last = keys[i];
    }
    return 0;
}

/* This rank's nh hit keys (input numbering, canonical, ascending, unique)
 * into the step's pairs on rank 0 (none on the others).  Every rank calls
 * it (two collectives: the sum of the counts, which sizes rank 0's pairs,
 * and the merge). */
static int gather_ranks(clash_run *run, const uint64_t *keys, size_t nh, clash_pairs *out, clash_step_stats *st,
                        clash_error *err)
{
    int64_t total = (int64_t)nh;
    clash_ranks_sum_i64(&run->ranks, &total, 1);
    pair_sink k = {run, 0, 0, 0};
    int oom = 0;
    if (run->ranks.rank == 0) {
        oom = clash_pages_renew((void **)&run->pairs, &run->cap_pairs, (size_t)total, sizeof *run->pairs, 0) != 0;
        if (!oom) k.cap = (size_t)total;
    }
    /* (rank 0 out of memory: its sink refuses every key and the merge still receives them all) */
    const int rc = clash_ranks_merge_u64(&run->ranks, keys, (int64_t)nh, sink_keys, &k);
    run->npairs = k.m;
    st->hits = (int64_t)k.m;
    out->pairs = run->pairs;
    out->count = k.m;
    return rc || oom ? clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs") : CLASH_OK;
}

static int gather_team(clash_run *run, const clash_candidates *cand, clash_pairs *out, clash_step_stats *st,
                       clash_error *err)
{
    const int T = run->threads > 0 ? run->threads : 1;
    int P = T == 1 ? 1 : T <= S6_MAXT / 8 ? 8 * T : T > S6_MAXT ? T : S6_MAXT; /* the pieces */
    int64_t offs[2 * (S6_MAXT + 1)], *off = P <= S6_MAXT ? offs : malloc(2 * (size_t)(P + 1) * sizeof *off);
    if (!off) return clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
    s6 g = {run, cand, run->narrow->test_begin, run->narrow->test_end, off, off + P + 1, NULL, NULL,
            run->sc->face_orig != NULL, cand->by_place && run->rows->ready ? run->rows->korig : NULL};
    for (int w = 0; w <= P; ++w) g.cut[w] = cand_cut(&g, w, P);
    /* a reordered store cut inside an object's keys: its runs need a merge,
     * of P runs by a heap; then one piece a worker, as before */
    if (P > T && g.remap && !cuts_whole(&g, P)) {
        P = T;
        g.cut = off + P + 1;
        for (int w = 0; w <= P; ++w) g.cut[w] = cand_cut(&g, w, P);
    }
    const clash_exec ex = clash_exec_sized(&run->exec, g.last - g.first);
    off[0] = 0;
    run_pieces(&ex, P, s6_count, &g);
    for (int w = 0; w < P; ++w) off[w + 1] += off[w];
    const size_t nh = (size_t)off[P];
    int rc = CLASH_OK;
    const int ranks = run->ranks.size > 1; /* rank 0 merges the ranks' keys into the pairs (gather_ranks) */
    if (clash_pages_renew((void **)&run->gather->gkeys, &run->gather->cap_gkeys, nh, sizeof *run->gather->gkeys, 0) ||
        (!ranks && clash_pages_renew((void **)&run->pairs, &run->cap_pairs, nh, sizeof *run->pairs, 0)))
        goto oom;
    /* the sort's scratch and the merge's output: the candidates, read by
     * s6_write before (nh <= the candidates tested), not after */
    g.keys = run->gather->gkeys, g.tmp = cand->keys;
    const clash_exec ek = clash_exec_sized(&run->exec, (int64_t)nh);
    run_pieces(&ex, P, s6_write, &g);
    if ((g.remap || cand->unsorted) && nh > 1) { /* the keys' order changed: sort each run, then merge them */
        run_pieces(&ek, P, s6_sort, &g);
        if (!runs_ordered(g.keys, off, P)) {
            uint64_t *merged = P > 1 && P <= S6_MAXT && T <= S6_MAXT ? merge_team(&ek, T, g.keys, g.tmp, off, P) : NULL;
            g.keys = merged ? merged : merge_runs(g.keys, g.tmp, off, P);
        }
    }
    st->rank_hits = (int64_t)nh;
    if (ranks) {
        rc = gather_ranks(run, g.keys, nh, out, st, err);
        goto done;
    }
    run_pieces(&ek, P, s6_pairs, &g);
    run->npairs = nh;
    st->hits = (int64_t)nh;
    out->pairs = run->pairs;
    out->count = nh;
    goto done;
oom:
    rc = clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
done:
    if (off != offs) free(off);
    return rc;
}

int clash_stage_gather(clash_run *run, const clash_candidates *cand, clash_pairs *out, clash_step_stats *st,
                       clash_error *err)
{
    const clash_scene *sc = run->sc;
    if (!cand->hits) return gather_team(run, cand, out, st, err);
    /* the tests made inside S4 (producer-consumer, bvh_frames.c): cand->keys
     * holds this rank's hits, unique, and sorted unless cand->unsorted (the
     * remap below sorts a reordered store's) */
    size_t nh = cand->n;
    uint64_t *keys = cand->keys;
    if (cand->unsorted && !sc->face_orig && nh > 1 && clash_sort_u64(keys, nh, NULL))
        return clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
    if (sc->face_orig && nh) {
        /* a reordered store (reorder.c): the pairs in input numbering, in
         * canonical order again */
        for (size_t i = 0; i < nh; ++i) {
            const uint64_t a = sc->face_orig[keys[i] >> 32], b = sc->face_orig[(uint32_t)keys[i]];
            keys[i] = a < b ? a << 32 | b : b << 32 | a;
        }
        if (clash_sort_u64(keys, nh, NULL)) return clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
    }
    st->rank_hits = (int64_t)nh;
    if (run->ranks.size > 1) return gather_ranks(run, keys, nh, out, st, err);
    if (clash_pages_renew((void **)&run->pairs, &run->cap_pairs, nh, sizeof *run->pairs, 0))
        return clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
    size_t m = 0;
    for (size_t i = 0; i < nh; ++i) {
        const uint32_t a = (uint32_t)(keys[i] >> 32), b = (uint32_t)keys[i];
        const int32_t oa = run->face_obj[a], ob = run->face_obj[b];
        run->pairs[m++] = (clash_pair){(uint32_t)oa, (uint32_t)(a - sc->fofs[oa]), (uint32_t)ob,
                                       (uint32_t)(b - sc->fofs[ob])};
    }
    run->npairs = m;
    st->hits = (int64_t)m;
    out->pairs = run->pairs;
    out->count = m;
    return CLASH_OK;
}

void clash_gather_free(clash_gather_state *g)
{
    if (!g) return;
    clash_pages_free(g->gkeys, g->cap_gkeys, sizeof *g->gkeys, 0);
    free(g);
}
