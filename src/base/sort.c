/*
 * sort.c — LSD radix sort of uint64 keys, 8 bits per pass, skipping passes
 * whose digit is the same for every key (common: face ids use few bits);
 * insertion sort under 64 keys, one histogram per varying digit under
 * 2048 (sort_small_radix), all eight histograms in one read above.
 */
#include "base/sort.h"

#include <stdlib.h>
#include <string.h>

/* One stable pass on digit p (bits 8p..8p+7): c[] holds the digit counts
 * on entry, becomes the running offsets, and src is scattered into dst. */
static inline void scatter_digit(const uint64_t *src, uint64_t *dst, size_t n, int p, size_t c[256])
{
    size_t sum = 0;
    for (int d = 0; d < 256; ++d) {
        const size_t t = c[d];
        c[d] = sum;
        sum += t;
    }
    for (size_t i = 0; i < n; ++i) dst[c[(src[i] >> (8 * p)) & 0xff]++] = src[i];
}

/* A few hundred keys (the octree merge sorts thousands of buckets of this
 * size): the digits that vary are found first (the OR against the AND of
 * the keys), and only those are counted, each pass clearing 256 counts;
 * clearing and filling the eight histograms of the large-n path cost more
 * than the keys themselves at this size. */
static int sort_small_radix(uint64_t *a, size_t n, uint64_t *tmp)
{
    uint64_t any = 0, all = ~(uint64_t)0;
    for (size_t i = 0; i < n; ++i) any |= a[i], all &= a[i];
    const uint64_t diff = any ^ all;
    uint64_t *own = NULL;
    if (!tmp) {
        tmp = own = malloc(n * sizeof *tmp);
        if (!tmp) return -1;
    }
    uint64_t *src = a, *dst = tmp;
    for (int p = 0; p < 8; ++p) {
        if (!(diff >> (8 * p) & 0xff)) continue;
        size_t c[256] = {0};
        for (size_t i = 0; i < n; ++i) c[(src[i] >> (8 * p)) & 0xff]++;
        scatter_digit(src, dst, n, p, c);
        uint64_t *t = src;
        src = dst, dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
    free(own);
    return 0;
}

int clash_sort_u64(uint64_t *a, size_t n, uint64_t *tmp)
{
    if (n < 2) return 0;
    if (n < 64) { /* insertion sort */
        for (size_t i = 1; i < n; ++i) {
            uint64_t v = a[i];
            size_t j = i;
            while (j > 0 && a[j - 1] > v) a[j] = a[j - 1], --j;
            a[j] = v;
        }
        return 0;
    }
    uint64_t *own = NULL;
    if (n < 2048) /* small: one pass per digit that varies, 2 KiB of counts each */
        return sort_small_radix(a, n, tmp);
    if (!tmp) {
        tmp = own = malloc(n * sizeof *tmp);
        if (!tmp) return -1;
    }
    /* 8 digits of 8 bits: the histograms (16 KiB) live on the stack, so
     * sorting many small buckets costs no allocation or clearing of
     * large tables. */
    size_t count[8][256];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; ++i) {
        const uint64_t k = a[i];
        for (int p = 0; p < 8; ++p) count[p][(k >> (8 * p)) & 0xff]++;
    }
    uint64_t *src = a, *dst = tmp;
    for (int p = 0; p < 8; ++p) {
        size_t *c = count[p];
        if (c[(a[0] >> (8 * p)) & 0xff] == n) continue; /* all keys share this digit */
        scatter_digit(src, dst, n, p, c);
        uint64_t *t = src;
        src = dst, dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
    free(own);
    return 0;
}

size_t clash_sort_unique_u64(uint64_t *a, size_t n) { return clash_sort_unique_u64_tmp(a, n, NULL); }

size_t clash_sort_unique_u64_tmp(uint64_t *a, size_t n, uint64_t *tmp)
{
    if (clash_sort_u64(a, n, tmp)) return (size_t)-1;
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
        if (m == 0 || a[m - 1] != a[i]) a[m++] = a[i];
    return m;
}
