/*
 * gather.c — stage S6: the hits of S5 as canonical, sorted pairs in input
 * numbering.  Candidates are sorted and unique, so compacting the hit keys in
 * place keeps them canonical (where S4 left them unsorted, cand_unsorted,
 * the hits are sorted here); under MPI every rank's hits are gathered to
 * rank 0 and merged; a Morton-reordered store (store/reorder.c) maps its
 * faces back to input numbers and sorts again.
 */
#include <stdlib.h>

#include "base/error.h"
#include "base/sort.h"
#include "sched/ranks.h"
#include "stages/stages.h"

int clash_stage_gather(clash_run *run, clash_pairs *out, clash_step_stats *st, clash_error *err)
{
    const clash_scene *sc = run->sc;
    const int R = run->ranks.size;
    /* S6: the hit keys, compacted in place (candidates are sorted and unique,
     * so they come out canonical); under MPI gathered to rank 0 and merged. */
    size_t nh = 0;
    if (run->pc_tested >= 0) nh = run->ncand; /* run->cand holds the hits */
    else
        for (int64_t i = run->test_begin; i < run->test_end; ++i)
            if (run->hit[i]) run->cand[nh++] = run->cand[i];
    uint64_t *keys = run->cand, *gathered = NULL;
    /* candidates left in the workers' order (cand_unsorted: one rank, unique
     * keys): the hits sorted here, far fewer keys than the candidates */
    if (run->cand_unsorted && nh > 1 && clash_sort_u64(run->cand, nh, NULL))
        return clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
    if (R > 1) {
        int64_t ng = 0;
        if (clash_ranks_gather_u64(&run->ranks, run->cand, (int64_t)nh, &gathered, &ng))
            return clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
        nh = 0;
        if (gathered) {
            nh = clash_sort_unique_u64(gathered, (size_t)ng);
            if (nh == (size_t)-1) {
                free(gathered);
                return clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
            }
        }
        keys = gathered;
    }
    if (nh > run->cap_pairs) {
        clash_pair *p = realloc(run->pairs, nh * sizeof *p);
        if (!p) {
            free(gathered);
            return clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
        }
        run->pairs = p, run->cap_pairs = nh;
    }
    if (sc->face_orig && nh) {
        /* a reordered store (reorder.c): the pairs in input numbering, in
         * canonical order again */
        for (size_t i = 0; i < nh; ++i) {
            const uint64_t a = sc->face_orig[keys[i] >> 32], b = sc->face_orig[(uint32_t)keys[i]];
            keys[i] = a < b ? a << 32 | b : b << 32 | a;
        }
        if (clash_sort_u64(keys, nh, NULL)) {
            free(gathered);
            return clash_fail(err, CLASH_EFAIL, "out of memory gathering pairs");
        }
    }
    size_t m = 0;
    for (size_t i = 0; i < nh; ++i) {
        const uint32_t a = (uint32_t)(keys[i] >> 32), b = (uint32_t)keys[i];
        const int32_t oa = run->face_obj[a], ob = run->face_obj[b];
        run->pairs[m++] = (clash_pair){(uint32_t)oa, (uint32_t)(a - sc->fofs[oa]), (uint32_t)ob,
                                       (uint32_t)(b - sc->fofs[ob])};
    }
    free(gathered);
    run->npairs = m;
    st->hits = (int64_t)m;
    out->pairs = run->pairs;
    out->count = m;
    return CLASH_OK;
}
