/*
 * ranks.h — MPI ranks, seen from the rest of clash.  The only file that
 * includes mpi.h is ranks.c; without MPI (or before clash_ranks_init) every
 * function behaves as a single rank: rank 0 of 1, gathers are copies.
 *
 * Model (src/README.md, "Parallel model"): every rank holds the whole
 * scene and computes S0-S3 itself; the S4/S5 work units are shared out by
 * clash_ranks_share(); each rank runs its share on its own threads; rank 0
 * gathers the hits (clash_ranks_gather_u64), merges them and writes.
 * Ranks run the steps in lockstep, so every collective is called by all.
 */
#ifndef CLASH_RANKS_H
#define CLASH_RANKS_H

#include <stddef.h>
#include <stdint.h>

/* The ranks a run works on: its rank and size in its communicator, and the
 * communicator itself (ranks.c keeps an MPI_Comm behind comm; NULL: one rank,
 * or MPI_COMM_WORLD itself for clash_ranks_world).  Plain data, one per run:
 * nothing about ranks is global. */
typedef struct clash_ranks {
    int rank, size;
    void *comm;
} clash_ranks;

/* MPI_Init_thread (funneled: only the main thread calls MPI) when the
 * build has MPI and the process runs under a launcher (OMPI_COMM_WORLD_SIZE,
 * PMI_SIZE or PMIX_RANK set, or CLASH_MPI=1).  Returns 1 when it initialized
 * MPI (the caller then calls clash_ranks_finalize), 0 otherwise. */
int clash_ranks_init(int *argc, char ***argv);
void clash_ranks_finalize(int inited);
/* 1 when this build has MPI. */
int clash_ranks_available(void);

/* The ranks of MPI_COMM_WORLD (one rank when MPI is not initialized); nothing
 * to close. */
void clash_ranks_world(clash_ranks *r);
/* A run's own ranks: a duplicate of the communicator *mpi_comm points at (an
 * MPI_Comm), or of MPI_COMM_WORLD when mpi_comm is NULL and MPI is
 * initialized; one rank when it is NULL and MPI is not.  Collective over the
 * communicator.  Returns 0, or -1 with msg saying why (a communicator given
 * to a build without MPI, or before MPI_Init). */
int clash_ranks_open(clash_ranks *r, const void *mpi_comm, char *msg, size_t msglen);
/* Frees what clash_ranks_open made (collective). */
void clash_ranks_close(clash_ranks *r);
/* A pointer to MPI_COMM_SELF (an MPI_Comm, for clash_config.mpi_comm) when
 * MPI is initialized, NULL otherwise: a run of this rank alone.  The
 * decomposed command (--decompose objects) gives each rank's part of the
 * scene its own one-rank run and merges the pairs itself. */
const void *clash_ranks_self_comm(void);

/* How units are shared between ranks. */
enum { CLASH_RANKS_BY_COST = 0, CLASH_RANKS_STRIDE = 1 };

/* This rank's share of n units: fills mine[] (ascending unit numbers) and
 * returns their count.  BY_COST: longest-processing-time-first by the
 * estimated cost[] (ties by unit number), so ranks get equal estimated
 * work; STRIDE: rank r takes one unit of each R of the list sorted by
 * cost, largest first: the r-th of the first R, the (R-1-r)-th of the next,
 * and so on (without cost: units r, r+R, ... in unit order).
 * Identical on every rank.
 * Returns -1 when out of memory. */
int64_t clash_ranks_share(const clash_ranks *r, int64_t n, const double *cost, int how, int64_t *mine);
/* Sorts the units ids[0..n) by cost[id], largest first, equal costs by id
 * (an order that depends on the costs alone).  Returns 0, or -1 when out of memory. */
int clash_order_by_cost(int64_t *ids, int64_t n, const double *cost);

/* Gathers every rank's v[0..n) to rank 0: on rank 0 *out (malloc'd, caller
 * frees) holds the concatenation in rank order and *nout its length; on
 * the other ranks *out = NULL, *nout = 0.  Returns -1 on failure. */
int clash_ranks_gather_u64(const clash_ranks *r, const uint64_t *v, int64_t n, uint64_t **out, int64_t *nout);

/* Merges every rank's ascending v[0..n) into one ascending sequence on rank
 * 0, handed to emit a chunk at a time (at most 65,536 keys; keys equal
 * across ranks come in rank order).  The other ranks send their keys a
 * chunk at a time as rank 0 needs them (synchronous sends), so rank 0 holds
 * a chunk per rank, never the whole set.  Collective.  Returns 0, or -1 when
 * emit failed (rank 0: the rest is still received) or rank 0 is out of
 * memory (with more than one rank: every rank is ended). */
int clash_ranks_merge_u64(const clash_ranks *r, const uint64_t *v, int64_t n,
                          int (*emit)(void *ctx, const uint64_t *keys, int64_t m), void *ctx);

/* The decomposed API run (src/decomposed.c): every rank's v[0..n) to every
 * rank, concatenated in rank order into out (sum of counts[0..size) doubles,
 * counts[k] the length rank k gives, known to all).  Returns 0; a count
 * past what MPI takes (INT_MAX) aborts the job (every rank has the same
 * counts, so all of them or none). */
int clash_ranks_allgatherv_f64(const clash_ranks *r, const double *v, int64_t n, double *out, const int64_t *counts);
/* Every rank's n int64 to every rank: out[k * n + i] is rank k's v[i]. */
void clash_ranks_allgather_i64(const clash_ranks *r, const int64_t *v, int n, int64_t *out);
/* Personal exchange of bytes: send holds the bytes for rank 0, then rank 1,
 * ... (scount[k] bytes for rank k, this rank included); on return *recv
 * (malloc'd, caller frees) holds what each rank sent here, in rank order,
 * rcount[k] bytes from rank k.  Every rank calls it.  Returns 0, or -1 when
 * a count passes INT_MAX (nothing is then exchanged on this rank: use only
 * where all ranks agree on the failure) or memory ran out. */
int clash_ranks_alltoallv_bytes(const clash_ranks *r, const void *send, const int64_t *scount, void **recv,
                                int64_t *rcount);

/* Element-wise reductions over all ranks, result on every rank. */
void clash_ranks_max_f64(const clash_ranks *r, double *v, int n);
void clash_ranks_min_f64(const clash_ranks *r, double *v, int n);
void clash_ranks_sum_i64(const clash_ranks *r, int64_t *v, int n);
/* 1 when flag is non-zero on any rank. */
int clash_ranks_any(const clash_ranks *r, int flag);
/* Largest v over all ranks, on every rank (used to agree on an exit status). */
int clash_ranks_max_int(const clash_ranks *r, int v);
/* Ends every rank at once (MPI_Abort) when there are several; returns otherwise.
 * For failures in the middle of a step, where the other ranks may already wait
 * in a collective and cannot be told. */
void clash_ranks_abort(const clash_ranks *r, int code);
/* Broadcast of an int from rank 0. */
int clash_ranks_bcast_int(const clash_ranks *r, int v);

#endif
