/*
 * sort.h — sorting 64-bit keys: the de-duplication of candidate face pairs
 * (S4) and the ordering of results (S6) go through here, so that output
 * never depends on which worker produced what.
 */
#ifndef CLASH_SORT_H
#define CLASH_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts a[0..n) ascending (LSD radix sort, 8-bit digits; tmp holds n keys,
 * or NULL to allocate it).  Returns 0, or -1 when tmp could not be allocated. */
int clash_sort_u64(uint64_t *a, size_t n, uint64_t *tmp);
/* Sorts, then removes duplicates; returns the new length (or (size_t)-1 on allocation failure). */
size_t clash_sort_unique_u64(uint64_t *a, size_t n);
/* The same with a scratch array of n keys (NULL: allocated). */
size_t clash_sort_unique_u64_tmp(uint64_t *a, size_t n, uint64_t *tmp);

#endif
