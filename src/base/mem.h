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

#endif
