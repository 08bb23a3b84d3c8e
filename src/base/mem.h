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

#endif
