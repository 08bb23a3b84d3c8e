/*
 * sort.c — LSD radix sort of uint64 keys, 16 bits per pass, skipping passes
 * whose digit is the same for every key (common: face ids use few bits).
 */
#include "sort.h"

#include <stdlib.h>
#include <string.h>

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
    if (!tmp) {
        tmp = own = malloc(n * sizeof *tmp);
        if (!tmp) return -1;
    }
    uint64_t *src = a, *dst = tmp;
    size_t *count = calloc(4 * 65536, sizeof(size_t));
    if (!count) {
        free(own);
        return -1;
    }
    for (size_t i = 0; i < n; ++i)
        for (int p = 0; p < 4; ++p) count[p * 65536 + ((a[i] >> (16 * p)) & 0xffff)]++;
    for (int p = 0; p < 4; ++p) {
        size_t *c = count + p * 65536;
        if (c[(a[0] >> (16 * p)) & 0xffff] == n) continue; /* all keys share this digit */
        size_t sum = 0;
        for (int d = 0; d < 65536; ++d) {
            size_t t = c[d];
            c[d] = sum;
            sum += t;
        }
        for (size_t i = 0; i < n; ++i) dst[c[(src[i] >> (16 * p)) & 0xffff]++] = src[i];
        uint64_t *t = src;
        src = dst, dst = t;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
    free(count);
    free(own);
    return 0;
}

size_t clash_sort_unique_u64(uint64_t *a, size_t n)
{
    if (clash_sort_u64(a, n, NULL)) return (size_t)-1;
    size_t m = 0;
    for (size_t i = 0; i < n; ++i)
        if (m == 0 || a[m - 1] != a[i]) a[m++] = a[i];
    return m;
}
