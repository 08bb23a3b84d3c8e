/*
 * test_merge.c — the face octree's merge of the workers' candidate keys
 * (stages/mid/octree_merge.c): a counting sort on the first face's place
 * among the kept faces, then each bucket de-duplicated by stamps (one rank,
 * unsorted) or sorted.
 *
 * On random kept sets and key buffers (each key a pair of kept faces, a < b,
 * repeated within and across buffers, some first faces with over a hundred
 * keys, empty buffers), for 1, 2, 3, 8, 9 and 17 buffers (beyond 8, and
 * where the keys are fewer than half the kept faces, several places share a
 * bucket and every bucket is sorted):
 *   - sorted: the output equals the sorted unique keys exactly;
 *   - unsorted: the same keys as a set, each once, grouped by first face in
 *     the order of the kept faces;
 *   - both at a team of 1 and of the buffers' count (the same set whatever
 *     ran where);
 *   - a key whose first face has no place among the kept faces is refused
 *     (-2), never written out of bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "random_scenes.h"
#include "core/run.h"
#include "stages/stages.h"
#include "stages/mid/octree.h"
#include "store/scene.h"

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A run over a scene of nf faces with a hand-made kept list and T workers. */
static clash_run *make_run(clash_scene *sc, int T)
{
    clash_config cfg = clash_config_default();
    cfg.threads = T, cfg.mode = CLASH_MODE_STATIC;
    clash_error err;
    clash_run *run = clash_run_create(sc, &cfg, &err);
    CHECK(run != NULL, "run_create: %s", err.msg);
    if (!run) return NULL;
    if (!run->mid->oct_ws) {
        oct_ws *W = calloc(1, sizeof *W);
        W->w = calloc(clash_team(run), sizeof(scratch));
        run->mid->oct_ws = W;
    }
    return run;
}

/* Fills nb buffers with keys of kept faces: returns the number pushed. */
static size_t fill(clash_keybuf *b, int nb, const uint32_t *kept, size_t nk, size_t want)
{
    size_t n = 0;
    for (int w = 0; w < nb; ++w) b[w].n = 0;
    while (n < want) {
        const int w = (int)(urand() * nb);
        if (nb > 2 && w == 1) continue; /* one empty buffer */
        size_t i = (size_t)(urand() * nk), j = (size_t)(urand() * nk);
        if (urand() < 0.3) i = (size_t)(urand() * 4); /* a few first faces with many keys */
        if (urand() < 0.5 && i + 1 < nk) j = i + 1 + (size_t)(urand() * (nk - i - 1 < 20 ? nk - i - 1 : 20));
        if (i == j) continue;
        const uint32_t a = kept[i < j ? i : j], c = kept[i < j ? j : i];
        const uint64_t k = (uint64_t)a << 32 | c;
        const int reps = urand() < 0.4 ? 1 + (int)(urand() * 3) : 1;
        for (int r = 0; r < reps && n < want; ++r, ++n)
            CHECK(clash_keybuf_push(&b[(w + r) % nb], k) == 0, "push");
    }
    return n;
}

int main(void)
{
    clash_error err;
    clash_scene *sc = rs_spheres(0, CLASH_MODE_STATIC, 1, 0.5, 0, 0, &err);
    if (!sc) {
        CHECK(0, "scene: %s", err.msg);
        return check_finish("test_merge");
    }
    const size_t nf = (size_t)sc->nf;
    const int teams[] = {1, 2, 3, 8, 9, 17};
    int cases = 0;
    for (int ti = 0; ti < 6; ++ti) {
        const int nb = teams[ti];
        for (int rep = 0; rep < 4; ++rep) {
            /* the kept faces: a random ascending subset */
            const double frac = rep == 0 ? 0.05 : rep == 1 ? 0.5 : 1.0; /* rep 3: every face, few keys */
            uint32_t *kept = malloc(sizeof(uint32_t) * nf);
            size_t nk = 0;
            for (size_t f = 0; f < nf; ++f)
                if (urand() < frac) kept[nk++] = (uint32_t)f;
            if (nk < 8) {
                free(kept);
                continue;
            }
            clash_keybuf *bufs = calloc((size_t)nb, sizeof *bufs);
            /* rep 3: fewer keys than half the kept faces (static scenes), where
             * several places share a bucket and every bucket is sorted */
            const size_t want = rep == 3 ? 50 + (size_t)(urand() * (double)(nk / 3)) : 200 + (size_t)(urand() * 20000);
            const size_t total = fill(bufs, nb, kept, nk, want);
            /* the reference: sorted unique */
            uint64_t *ref = malloc(sizeof(uint64_t) * total);
            size_t nr = 0;
            for (int w = 0; w < nb; ++w) memcpy(ref + nr, bufs[w].v, bufs[w].n * sizeof(uint64_t)), nr += bufs[w].n;
            qsort(ref, nr, sizeof *ref, cmp_u64);
            size_t nu = 0;
            for (size_t i = 0; i < nr; ++i)
                if (!nu || ref[nu - 1] != ref[i]) ref[nu++] = ref[i];
            for (int team = 0; team < 2; ++team) {
                clash_run *run = make_run(sc, team ? nb : 1);
                if (!run) continue;
                memcpy(run->cull->kept, kept, sizeof(uint32_t) * nk); /* run->cull->kept holds nf */
                run->cull->nkept = nk;
                for (int sorted = 0; sorted < 2; ++sorted) {
                    uint64_t *out = NULL;
                    size_t cap = 0, n = 0;
                    const int rc = clash_oct_merge_keys(run, bufs, nb, sorted, 0, &out, &cap, &n);
                    CHECK(rc == 0, "merge rc %d (buffers %d, team %d, sorted %d)", rc, nb, team, sorted);
                    CHECK(n == nu, "buffers %d sorted %d: %zu unique keys, expected %zu", nb, sorted, n, nu);
                    if (rc == 0 && n == nu) {
                        /* grouped by first face in kept order (sorted: fully ordered) */
                        int grouped = 1, ordered = 1;
                        for (size_t i = 1; i < n; ++i) {
                            grouped &= (out[i - 1] >> 32) <= (out[i] >> 32);
                            ordered &= out[i - 1] < out[i];
                        }
                        CHECK(grouped, "buffers %d sorted %d: not grouped by first face", nb, sorted);
                        if (sorted || nb > 8 || rep == 3) CHECK(ordered, "buffers %d: not sorted", nb);
                        qsort(out, n, sizeof *out, cmp_u64);
                        CHECK(memcmp(out, ref, n * sizeof *out) == 0, "buffers %d sorted %d: keys differ", nb,
                              sorted);
                        ++cases;
                    }
                    free(out);
                }
                {
                    /* buffers that hold no key twice (swept mode's octree): the
                     * same keys, grouped by first face, none dropped */
                    clash_keybuf *ub = calloc((size_t)nb, sizeof *ub);
                    for (size_t i = 0; i < nu; ++i)
                        CHECK(clash_keybuf_push(&ub[(i * 7 + i / 3) % (size_t)nb], ref[nu - 1 - i]) == 0, "push");
                    uint64_t *out = NULL;
                    size_t cap = 0, n = 0;
                    const int rc = clash_oct_merge_keys(run, ub, nb, 0, 1, &out, &cap, &n);
                    CHECK(rc == 0 && n == nu, "unique buffers %d: rc %d, %zu keys, expected %zu", nb, rc, n, nu);
                    if (rc == 0 && n == nu) {
                        int grouped = 1;
                        for (size_t i = 1; i < n; ++i) grouped &= (out[i - 1] >> 32) <= (out[i] >> 32);
                        CHECK(grouped, "unique buffers %d: not grouped by first face", nb);
                        qsort(out, n, sizeof *out, cmp_u64);
                        CHECK(memcmp(out, ref, n * sizeof *out) == 0, "unique buffers %d: keys differ", nb);
                    }
                    free(out);
                    for (int w = 0; w < nb; ++w) free(ub[w].v);
                    free(ub);
                }
                /* a first face without a place among the kept faces: refused */
                if (run->rows->fplace) {
                    uint32_t *k2 = run->cull->kept; /* drop the kept faces' first quarter from the list */
                    const size_t q = nk / 4;
                    memmove(k2, k2 + q, (nk - q) * sizeof *k2);
                    run->cull->nkept = nk - q;
                    for (size_t f = 0; f < nf; ++f) run->rows->fplace[f] = -1; /* no stale places */
                    clash_keybuf one = {0};
                    CHECK(clash_keybuf_push(&one, (uint64_t)kept[0] << 32 | kept[nk - 1]) == 0, "push");
                    uint64_t *out = NULL;
                    size_t cap = 0, n = 0;
                    clash_keybuf bb[1] = {one};
                    const int rc = clash_oct_merge_keys(run, bb, 1, 0, 0, &out, &cap, &n);
                    CHECK(rc == -2, "a key of a face not kept: rc %d, expected -2", rc);
                    free(out), free(one.v);
                }
                clash_run_destroy(run);
            }
            for (int w = 0; w < nb; ++w) free(bufs[w].v);
            free(bufs), free(ref), free(kept);
        }
    }
    CHECK(cases >= 50, "only %d cases ran", cases);
    clash_scene_destroy(sc);
    return check_finish("test_merge");
}
