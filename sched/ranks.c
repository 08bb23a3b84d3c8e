/*
 * ranks.c — MPI behind ranks.h, and its serial fallback.  The only file of
 * clash that includes mpi.h.
 *
 * Sharing units by estimated cost: units are sorted by cost, largest first
 * (ties: lower unit number first), and each goes to the rank with the least
 * estimated work so far (ties: lower rank), the classic LPT rule, within
 * 4/3 of the best static split.  Every rank computes the same split from the
 * same numbers, so no message is needed.
 */
#include "sched/ranks.h"

#include <stdlib.h>
#include <string.h>

#if CLASH_HAVE_MPI
#include <mpi.h>
#endif

static int g_rank = 0, g_size = 1, g_inited = 0;

int clash_ranks_available(void) { return CLASH_HAVE_MPI; }
int clash_ranks_rank(void) { return g_rank; }
int clash_ranks_size(void) { return g_size; }

int clash_ranks_init(int *argc, char ***argv)
{
#if CLASH_HAVE_MPI
    /* Only under a launcher: a plain `clash run` stays a serial process. */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK") && !getenv("CLASH_MPI"))
        return 0;
    int provided = 0, already = 0;
    MPI_Initialized(&already);
    if (!already) {
        if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return 0;
        g_inited = 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
#else
    (void)argc, (void)argv;
#endif
    return 0;
}

void clash_ranks_finalize(void)
{
#if CLASH_HAVE_MPI
    if (g_inited) MPI_Finalize();
#endif
    g_inited = 0;
    g_rank = 0, g_size = 1;
}

typedef struct cost_item {
    double c;
    int64_t u;
} cost_item;

static int cmp_cost(const void *x, const void *y)
{
    const cost_item *a = x, *b = y;
    if (a->c != b->c) return a->c > b->c ? -1 : 1;
    return (a->u > b->u) - (a->u < b->u);
}

int clash_order_by_cost(int64_t *ids, int64_t n, const double *cost)
{
    cost_item *it = malloc(sizeof *it * (size_t)(n > 0 ? n : 1));
    if (!it) return -1;
    for (int64_t i = 0; i < n; ++i) it[i] = (cost_item){cost[ids[i]], ids[i]};
    qsort(it, (size_t)n, sizeof *it, cmp_cost);
    for (int64_t i = 0; i < n; ++i) ids[i] = it[i].u;
    free(it);
    return 0;
}

static int cmp_i64(const void *x, const void *y)
{
    const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

int64_t clash_ranks_share(int64_t n, const double *cost, int how, int64_t *mine)
{
    const int R = g_size, r = g_rank;
    int64_t m = 0;
    if (R == 1) {
        for (int64_t u = 0; u < n; ++u) mine[m++] = u;
        return m;
    }
    if (how == CLASH_RANKS_STRIDE || !cost) {
        for (int64_t u = r; u < n; u += R) mine[m++] = u;
        return m;
    }
    cost_item *it = malloc(sizeof *it * (size_t)(n > 0 ? n : 1));
    double *load = calloc((size_t)R, sizeof *load);
    if (!it || !load) {
        free(it), free(load);
        return -1;
    }
    for (int64_t u = 0; u < n; ++u) it[u] = (cost_item){cost[u], u};
    qsort(it, (size_t)n, sizeof *it, cmp_cost);
    for (int64_t i = 0; i < n; ++i) {
        int best = 0;
        for (int k = 1; k < R; ++k)
            if (load[k] < load[best]) best = k;
        load[best] += it[i].c;
        if (best == r) mine[m++] = it[i].u;
    }
    free(it), free(load);
    qsort(mine, (size_t)m, sizeof *mine, cmp_i64);
    return m;
}

int clash_ranks_gather_u64(const uint64_t *v, int64_t n, uint64_t **out, int64_t *nout)
{
    *out = NULL, *nout = 0;
#if CLASH_HAVE_MPI
    if (g_size > 1) {
        int cnt = (int)n, *counts = NULL, *displs = NULL;
        if (g_rank == 0) {
            counts = malloc(sizeof(int) * (size_t)g_size);
            displs = malloc(sizeof(int) * (size_t)g_size);
            if (!counts || !displs) MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
        uint64_t *all = NULL;
        if (g_rank == 0) {
            int64_t tot = 0;
            for (int k = 0; k < g_size; ++k) displs[k] = (int)tot, tot += counts[k];
            all = malloc(sizeof *all * (size_t)(tot > 0 ? tot : 1));
            if (!all) MPI_Abort(MPI_COMM_WORLD, 1);
            *nout = tot;
        }
        MPI_Gatherv(v, cnt, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        free(counts), free(displs);
        *out = all;
        return 0;
    }
#endif
    uint64_t *all = malloc(sizeof *all * (size_t)(n > 0 ? n : 1));
    if (!all) return -1;
    if (n) memcpy(all, v, sizeof *all * (size_t)n);
    *out = all, *nout = n;
    return 0;
}

void clash_ranks_max_f64(double *v, int n)
{
#if CLASH_HAVE_MPI
    if (g_size > 1) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#else
    (void)v, (void)n;
#endif
}

void clash_ranks_min_f64(double *v, int n)
{
#if CLASH_HAVE_MPI
    if (g_size > 1) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
#else
    (void)v, (void)n;
#endif
}

void clash_ranks_sum_i64(int64_t *v, int n)
{
#if CLASH_HAVE_MPI
    if (g_size > 1) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
#else
    (void)v, (void)n;
#endif
}

int clash_ranks_any(int flag)
{
#if CLASH_HAVE_MPI
    if (g_size > 1) MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
#endif
    return flag != 0;
}

int clash_ranks_max_int(int v)
{
#if CLASH_HAVE_MPI
    if (g_size > 1) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
#endif
    return v;
}

void clash_ranks_abort(int code)
{
#if CLASH_HAVE_MPI
    if (g_size > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
    (void)code;
}

int clash_ranks_bcast_int(int v)
{
#if CLASH_HAVE_MPI
    if (g_size > 1) MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
    return v;
}
