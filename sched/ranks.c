/*
 * ranks.c — MPI behind ranks.h, and its serial fallback.  The only file of
 * clash that includes mpi.h.
 *
 * Every collective works on the communicator of the clash_ranks it is given
 * (a run's own duplicate of the host's communicator, or the world for the
 * command's own agreement on exit codes): the rank and size are the run's,
 * never a process-wide variable, so runs on different communicators (a host
 * that splits MPI_COMM_WORLD) do not meet.
 *
 * Sharing units by estimated cost: units are sorted by cost, largest first
 * (ties: lower unit number first), and each goes to the rank with the least
 * estimated work so far (ties: lower rank), the classic LPT rule, within
 * 4/3 of the best static split.  By stride, the sorted list is dealt out
 * R units at a time, rank r taking the r-th of each group and, every other
 * group, the (R-1-r)-th, so that rank 0 is not always the one with the
 * larger (SPMD: no one's load looked at).  A stride over the units in their
 * own (spatial) order gave one rank the few big cells of a region and the
 * other the small ones beside them.  Every
 * rank computes the same split from the same numbers, so no message is
 * needed.
 */
#include "sched/ranks.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if CLASH_HAVE_MPI
#include <mpi.h>
#endif

int clash_ranks_available(void) { return CLASH_HAVE_MPI; }

#if CLASH_HAVE_MPI
/* The communicator behind r: its own duplicate, or the world. */
static MPI_Comm comm_of(const clash_ranks *r) { return r->comm ? *(const MPI_Comm *)r->comm : MPI_COMM_WORLD; }

/* 64-bit counts as MPI's int counts c[] and displacements d[] (their running
 * sums); -1 when a count or a displacement passes INT_MAX. */
static int int_counts(const int64_t *n, int size, int *c, int *d)
{
    int64_t tot = 0;
    for (int k = 0; k < size; ++k) {
        if (n[k] > INT_MAX || tot > INT_MAX) return -1;
        c[k] = (int)n[k], d[k] = (int)tot, tot += n[k];
    }
    return 0;
}
#endif

int clash_ranks_init(int *argc, char ***argv)
{
#if CLASH_HAVE_MPI
    /* Only under a launcher: a plain `clash run` stays a serial process. */
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("PMIX_RANK") && !getenv("CLASH_MPI"))
        return 0;
    int provided = 0, already = 0;
    MPI_Initialized(&already);
    if (already) return 0;
    return MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) == MPI_SUCCESS;
#else
    (void)argc, (void)argv;
    return 0;
#endif
}

void clash_ranks_finalize(int inited)
{
#if CLASH_HAVE_MPI
    if (inited) MPI_Finalize();
#else
    (void)inited;
#endif
}

void clash_ranks_world(clash_ranks *r)
{
    *r = (clash_ranks){.rank = 0, .size = 1, .comm = NULL};
#if CLASH_HAVE_MPI
    int on = 0, off = 0;
    MPI_Initialized(&on);
    if (on) MPI_Finalized(&off);
    if (on && !off) {
        MPI_Comm_rank(MPI_COMM_WORLD, &r->rank);
        MPI_Comm_size(MPI_COMM_WORLD, &r->size);
    }
#endif
}

int clash_ranks_open(clash_ranks *r, const void *mpi_comm, char *msg, size_t msglen)
{
    *r = (clash_ranks){.rank = 0, .size = 1, .comm = NULL};
#if CLASH_HAVE_MPI
    int on = 0, off = 0;
    MPI_Initialized(&on);
    if (on) MPI_Finalized(&off);
    if (!on || off) {
        if (!mpi_comm) return 0; /* a serial process: one rank */
        snprintf(msg, msglen, "mpi_comm: a communicator was given, but MPI is %s",
                 off ? "finalized" : "not initialized (call MPI_Init first)");
        return -1;
    }
    MPI_Comm *dup = malloc(sizeof *dup);
    if (!dup) {
        snprintf(msg, msglen, "out of memory");
        return -1;
    }
    const MPI_Comm base = mpi_comm ? *(const MPI_Comm *)mpi_comm : MPI_COMM_WORLD;
    if (base == MPI_COMM_NULL || MPI_Comm_dup(base, dup) != MPI_SUCCESS) {
        free(dup);
        snprintf(msg, msglen, "mpi_comm: %s", base == MPI_COMM_NULL ? "MPI_COMM_NULL" : "MPI_Comm_dup failed");
        return -1;
    }
    r->comm = dup;
    MPI_Comm_rank(*dup, &r->rank);
    MPI_Comm_size(*dup, &r->size);
    return 0;
#else
    if (!mpi_comm) return 0;
    snprintf(msg, msglen, "mpi_comm: a communicator was given, but this build of clash has no MPI");
    return -1;
#endif
}

void clash_ranks_close(clash_ranks *r)
{
#if CLASH_HAVE_MPI
    if (r->comm) {
        int off = 0;
        MPI_Finalized(&off);
        if (!off) MPI_Comm_free((MPI_Comm *)r->comm);
        free(r->comm);
    }
#endif
    *r = (clash_ranks){.rank = 0, .size = 1, .comm = NULL};
}

const void *clash_ranks_self_comm(void)
{
#if CLASH_HAVE_MPI
    static const MPI_Comm self = MPI_COMM_SELF; /* read-only: nothing shared is written */
    int on = 0, off = 0;
    MPI_Initialized(&on);
    if (on) MPI_Finalized(&off);
    if (!on || off) return NULL;
    return &self;
#else
    return NULL;
#endif
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
    if (n <= 1) return 0; /* (one unit: a tiny octree's root alone) */
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

int64_t clash_ranks_share(const clash_ranks *rk, int64_t n, const double *cost, int how, int64_t *mine)
{
    const int R = rk->size, r = rk->rank;
    int64_t m = 0;
    if (R == 1) {
        for (int64_t u = 0; u < n; ++u) mine[m++] = u;
        return m;
    }
    if (!cost) {
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
    if (how == CLASH_RANKS_STRIDE) /* one unit of each R of the list by cost, largest first, back and forth */
        for (int64_t b = 0; b < n; b += R) {
            const int64_t i = b + ((b / R) % 2 ? R - 1 - r : r);
            if (i < n) mine[m++] = it[i].u;
        }
    for (int64_t i = 0; i < n && how != CLASH_RANKS_STRIDE; ++i) {
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

int clash_ranks_gather_u64(const clash_ranks *r, const uint64_t *v, int64_t n, uint64_t **out, int64_t *nout)
{
    *out = NULL, *nout = 0;
#if CLASH_HAVE_MPI
    if (r->size > 1) {
        const MPI_Comm comm = comm_of(r);
        const int me = r->rank, size = r->size;
        int cnt = (int)n, *counts = NULL, *displs = NULL;
        if (me == 0) {
            counts = malloc(sizeof(int) * (size_t)size);
            displs = malloc(sizeof(int) * (size_t)size);
            if (!counts || !displs) MPI_Abort(comm, 1);
        }
        MPI_Gather(&cnt, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
        uint64_t *all = NULL;
        if (me == 0) {
            int64_t tot = 0;
            for (int k = 0; k < size; ++k) displs[k] = (int)tot, tot += counts[k];
            all = malloc(sizeof *all * (size_t)(tot > 0 ? tot : 1));
            if (!all) MPI_Abort(comm, 1);
            *nout = tot;
        }
        MPI_Gatherv(v, cnt, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0, comm);
        free(counts), free(displs);
        *out = all;
        return 0;
    }
#else
    (void)r;
#endif
    uint64_t *all = malloc(sizeof *all * (size_t)(n > 0 ? n : 1));
    if (!all) return -1;
    if (n) memcpy(all, v, sizeof *all * (size_t)n);
    *out = all, *nout = n;
    return 0;
}

int clash_ranks_allgatherv_f64(const clash_ranks *r, const double *v, int64_t n, double *out, const int64_t *counts)
{
#if CLASH_HAVE_MPI
    if (r->size > 1) {
        const int size = r->size;
        int *c = malloc(sizeof *c * (size_t)size), *d = malloc(sizeof *d * (size_t)size);
        if (!c || !d || n > INT_MAX || int_counts(counts, size, c, d)) MPI_Abort(comm_of(r), 1); /* every rank has the same counts: all or none get here */
        MPI_Allgatherv(v, (int)n, MPI_DOUBLE, out, c, d, MPI_DOUBLE, comm_of(r));
        free(c), free(d);
        return 0;
    }
#else
    (void)r, (void)counts;
#endif
    if (n) memcpy(out, v, sizeof *out * (size_t)n);
    return 0;
}

void clash_ranks_allgather_i64(const clash_ranks *r, const int64_t *v, int n, int64_t *out)
{
#if CLASH_HAVE_MPI
    if (r->size > 1) {
        MPI_Allgather(v, n, MPI_INT64_T, out, n, MPI_INT64_T, comm_of(r));
        return;
    }
#else
    (void)r;
#endif
    if (n) memcpy(out, v, sizeof *out * (size_t)n);
}

int clash_ranks_alltoallv_bytes(const clash_ranks *r, const void *send, const int64_t *scount, void **recv,
                                int64_t *rcount)
{
    *recv = NULL;
#if CLASH_HAVE_MPI
    if (r->size > 1) {
        const int size = r->size;
        const MPI_Comm comm = comm_of(r);
        int *sc = malloc(sizeof *sc * (size_t)size), *sd = malloc(sizeof *sd * (size_t)size);
        int *rc = malloc(sizeof *rc * (size_t)size), *rd = malloc(sizeof *rd * (size_t)size);
        if (!sc || !sd || !rc || !rd) MPI_Abort(comm, 1);
        if (int_counts(scount, size, sc, sd)) MPI_Abort(comm, 1);
        MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm);
        int64_t tot = 0;
        for (int k = 0; k < size; ++k) {
            if (tot > INT_MAX) MPI_Abort(comm, 1);
            rd[k] = (int)tot, tot += rc[k], rcount[k] = rc[k];
        }
        char *buf = malloc((size_t)(tot > 0 ? tot : 1));
        if (!buf) MPI_Abort(comm, 1);
        MPI_Alltoallv(send, sc, sd, MPI_BYTE, buf, rc, rd, MPI_BYTE, comm);
        free(sc), free(sd), free(rc), free(rd);
        *recv = buf;
        return 0;
    }
#else
    (void)r;
#endif
    char *buf = malloc((size_t)(scount[0] > 0 ? scount[0] : 1));
    if (!buf) return -1;
    if (scount[0]) memcpy(buf, send, (size_t)scount[0]);
    rcount[0] = scount[0];
    *recv = buf;
    return 0;
}

void clash_ranks_max_f64(const clash_ranks *r, double *v, int n)
{
#if CLASH_HAVE_MPI
    if (r->size > 1) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, comm_of(r));
#else
    (void)r, (void)v, (void)n;
#endif
}

void clash_ranks_min_f64(const clash_ranks *r, double *v, int n)
{
#if CLASH_HAVE_MPI
    if (r->size > 1) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MIN, comm_of(r));
#else
    (void)r, (void)v, (void)n;
#endif
}

void clash_ranks_sum_i64(const clash_ranks *r, int64_t *v, int n)
{
#if CLASH_HAVE_MPI
    if (r->size > 1) MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, comm_of(r));
#else
    (void)r, (void)v, (void)n;
#endif
}

int clash_ranks_any(const clash_ranks *r, int flag)
{
#if CLASH_HAVE_MPI
    if (r->size > 1) MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_LOR, comm_of(r));
#else
    (void)r;
#endif
    return flag != 0;
}

int clash_ranks_max_int(const clash_ranks *r, int v)
{
#if CLASH_HAVE_MPI
    if (r->size > 1) MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MAX, comm_of(r));
#else
    (void)r;
#endif
    return v;
}

void clash_ranks_abort(const clash_ranks *r, int code)
{
#if CLASH_HAVE_MPI
    if (r->size > 1) MPI_Abort(comm_of(r), code);
#else
    (void)r;
#endif
    (void)code;
}

int clash_ranks_bcast_int(const clash_ranks *r, int v)
{
#if CLASH_HAVE_MPI
    if (r->size > 1) MPI_Bcast(&v, 1, MPI_INT, 0, comm_of(r));
#else
    (void)r;
#endif
    return v;
}

/* ---- the streamed merge of sorted keys ------------------------------------------------ */

/* A min-heap of ranks by their current key (ties: lower rank), for rank 0's
 * merge: R sorted runs merged with log2(R) comparisons a key. */
typedef struct merge_src {
    const uint64_t *k; /* the current chunk */
    int64_t pos, len;  /* within it */
    int64_t left;      /* keys of this rank not yet received */
} merge_src;

static int src_less(const merge_src *s, int a, int b)
{
    const uint64_t ka = s[a].k[s[a].pos], kb = s[b].k[s[b].pos];
    return ka < kb || (ka == kb && a < b);
}

static void heap_down(int *h, int n, int i, const merge_src *s)
{
    for (;;) {
        int m = i;
        const int l = 2 * i + 1, r = l + 1;
        if (l < n && src_less(s, h[l], h[m])) m = l;
        if (r < n && src_less(s, h[r], h[m])) m = r;
        if (m == i) return;
        const int t = h[i];
        h[i] = h[m], h[m] = t, i = m;
    }
}

#if CLASH_HAVE_MPI
enum { TAG_MERGE = 0x6d67 };

/* Rank 0's next chunk from rank src (src > 0) into buf. */
static void merge_recv(MPI_Comm comm, int src, uint64_t *buf, int64_t chunk, merge_src *s)
{
    const int m = (int)(s->left < chunk ? s->left : chunk);
    MPI_Recv(buf, m, MPI_UINT64_T, src, TAG_MERGE, comm, MPI_STATUS_IGNORE);
    s->k = buf, s->pos = 0, s->len = m, s->left -= m;
}
#endif

int clash_ranks_merge_u64(const clash_ranks *r, const uint64_t *v, int64_t n,
                          int (*emit)(void *ctx, const uint64_t *keys, int64_t m), void *ctx)
{
    int R = 1, me = 0;
#if CLASH_HAVE_MPI
    MPI_Comm comm = MPI_COMM_NULL;
    if (r->size > 1) comm = comm_of(r), R = r->size, me = r->rank;
#else
    (void)r;
#endif
    (void)me; /* read by the MPI branches only */
    /* chunk: keys a message; rank 0 holds R + 1 chunks: 64 Ki keys each up
     * to 64 ranks, fewer beyond (at least 4 Ki), about 32 MiB in all */
    int64_t chunk = R <= 64 ? 65536 : (int64_t)(1 << 22) / R;
    if (chunk < 4096) chunk = 4096;
#if CLASH_HAVE_MPI
    if (me != 0) { /* synchronous sends: each waits for rank 0 to ask, so nothing piles up there */
        MPI_Gather(&n, 1, MPI_INT64_T, NULL, 1, MPI_INT64_T, 0, comm);
        for (int64_t o = 0; o < n; o += chunk)
            MPI_Ssend(v + o, (int)(n - o < chunk ? n - o : chunk), MPI_UINT64_T, 0, TAG_MERGE, comm);
        return 0;
    }
#endif
    int64_t *counts = malloc(sizeof *counts * (size_t)R);
    merge_src *s = calloc((size_t)R, sizeof *s);
    int *heap = malloc(sizeof *heap * (size_t)R);
    uint64_t *bufs = R > 1 ? malloc(sizeof *bufs * (size_t)chunk * (size_t)R) : NULL; /* [R][chunk], row 0 unused */
    uint64_t *out = malloc(sizeof *out * (size_t)chunk);
    const int oom = !counts || !s || !heap || (R > 1 && !bufs) || !out;
#if CLASH_HAVE_MPI
    if (oom && R > 1) MPI_Abort(comm, 1); /* the others wait in the sends: end them all */
    if (R > 1) MPI_Gather(&n, 1, MPI_INT64_T, counts, 1, MPI_INT64_T, 0, comm);
#endif
    int rc = oom ? -1 : 0, nh = 0;
    if (!oom) {
        counts[0] = n;
        s[0] = (merge_src){v, 0, n, 0};
        for (int k = 0; k < R; ++k) {
#if CLASH_HAVE_MPI
            if (k > 0) {
                s[k].left = counts[k];
                if (counts[k] > 0) merge_recv(comm, k, bufs + (size_t)k * (size_t)chunk, chunk, &s[k]);
            }
#endif
            if (s[k].len > 0) heap[nh++] = k;
        }
        for (int i = nh / 2 - 1; i >= 0; --i) heap_down(heap, nh, i, s);
    }
    int64_t no = 0;
    while (nh > 0) {
        const int k = heap[0];
        out[no++] = s[k].k[s[k].pos++];
        if (s[k].pos == s[k].len) { /* this chunk is used up: the next one, or the rank leaves the heap */
#if CLASH_HAVE_MPI
            if (s[k].left > 0) merge_recv(comm, k, bufs + (size_t)k * (size_t)chunk, chunk, &s[k]);
            else
#endif
                heap[0] = heap[--nh];
        }
        if (nh > 0) heap_down(heap, nh, 0, s);
        if (no == chunk || (nh == 0 && no > 0)) {
            if (!rc && emit(ctx, out, no)) rc = -1; /* after a failure the rest is still received, not emitted */
            no = 0;
        }
    }
    free(counts), free(s), free(heap), free(bufs), free(out);
    return rc;
}
