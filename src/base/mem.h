/*
 * mem.h — aligned allocation (mem.c).
 */
#ifndef CLASH_BASE_MEM_H
#define CLASH_BASE_MEM_H

#include <stddef.h>

/* 64-byte aligned allocation of n elements of size sz, padded to 64 bytes,
 * zero-filled; NULL on overflow or failure. */
void *clash_aligned_calloc(size_t n, size_t sz);
/* The bytes clash_aligned_calloc takes for n elements of size sz. */
size_t clash_padded_bytes(size_t n, size_t sz);
/* Grows the array *p (capacity *cap elements of `size` bytes, realloc'ed)
 * to hold at least n, doubling from 64; 0, or -1 with *p and *cap as they
 * were when out of memory. */
int clash_grow(void **p, size_t *cap, size_t n, size_t size);
/* The capacity to take for a per-step array that must now hold n: a quarter
 * more.  The kept faces, candidates and hits of a cluttered scene grow step
 * by step as its objects close in; an array grown to exactly n was
 * reallocated (copied, its new pages faulted in) on nearly every step: on
 * 1,000 x 3,024 spheres, 20 steps at 2 threads, 240 k page faults in S4
 * and S5 (bench/RESULTS.md). */
static inline size_t clash_cap_for(size_t n) { return n + n / 4; }
/* A per-step array *p of *cap elements of `size` bytes (plus `extra` bytes
 * past them) made to hold n, its contents not kept: when it must grow, the
 * old block is freed and a new one of clash_cap_for(n) taken, so that
 * nothing is copied and its pages are first touched by the stage that fills
 * it, on every worker at once (a realloc copies on one thread: at 16
 * threads that made S4 and S5 slower on the cluttered spheres).  A block
 * already of 32 MiB or more is realloc'ed instead: glibc maps it by itself
 * and moves it with mremap, its pages and their contents, without copying,
 * so that only the new quarter is faulted in; freed and taken anew, S4's
 * rows and DOPs (a hundred megabytes and more on the large cluttered
 * scenes) would be faulted in again on each step that grew them
 * (bench/RESULTS.md).  0, or -1
 * with *p NULL and *cap 0 when out of memory. */
int clash_renew(void **p, size_t *cap, size_t n, size_t size, size_t extra);
/* clash_renew for a per-step array that a stage fills in parallel, in its
 * own pages: on Linux the block is mapped by itself (mmap) from its first
 * allocation on and grown in place or moved by mremap, which keeps the pages
 * already touched, so a growth faults in only the new quarter.  (The
 * kept faces' rows and DOPs, some 100 MB on 1,000 x 3,024 spheres, stayed
 * under clash_renew's 32 MiB for the first ten steps, were freed and taken
 * anew at each growth and faulted in whole again: 150.5 k page faults in
 * 20 steps, 141.4 k this way, and the steps that grew them no longer take
 * a third longer in S4; bench/RESULTS.md.)  A block of 4 MiB or more
 * is offered to transparent huge pages (madvise MADV_HUGEPAGE, where the
 * kernel has them; Linux's default "madvise" mode uses them only so): one
 * fault fills 2 MiB, far cheaper than 512 faults of 4 KiB (fewer faults
 * and shorter steps on the largest scenes; bench/RESULTS.md).  Elsewhere,
 * and under ThreadSanitizer (mem.c), it is clash_renew.  Free such a block
 * with clash_pages_free (cap and size as renewed), never free(). */
int clash_pages_renew(void **p, size_t *cap, size_t n, size_t size, size_t extra);
void clash_pages_free(void *p, size_t cap, size_t size, size_t extra);

#endif
