/*
 * mem.c — aligned, padded, zero-filled allocation for the store's and the
 * stages' arrays (src/README.md, "Data layout": every array 64-byte aligned,
 * padded to whole cache lines, so that vector loops may read a full line).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

/* ThreadSanitizer does not follow mremap: a block moved away leaves the
 * history of its old range behind, and another run's later mmap of that
 * range then reads as a race (tests/property/test_threads.c: two runs in two host
 * threads).  Under it the page-mapped blocks are clash_renew's. */
#if defined(__SANITIZE_THREAD__)
#define CLASH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CLASH_TSAN 1
#endif
#endif
#if defined(__linux__) && !defined(CLASH_TSAN)
#define CLASH_PAGES 1
#include <sys/mman.h>
#endif

/* glibc maps every block of 32 MiB or more by itself (its largest mmap
 * threshold on 64-bit systems) and realloc moves such a block with mremap */
#define BIG_BLOCK ((size_t)32 << 20)

void *clash_aligned_calloc(size_t n, size_t sz)
{
    if (sz && n > (SIZE_MAX - 64) / sz) return NULL;
    size_t bytes = (n * sz + 63) & ~(size_t)63;
    if (!bytes) bytes = 64;
    void *p = aligned_alloc(64, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

size_t clash_padded_bytes(size_t n, size_t sz)
{
    size_t b = (n * sz + 63) & ~(size_t)63;
    return b ? b : 64;
}

int clash_grow(void **p, size_t *cap, size_t n, size_t size)
{
    if (n <= *cap) return 0;
    size_t c = *cap ? *cap : 64;
    while (c < n) c *= 2;
    void *q = realloc(*p, c * size);
    if (!q) return -1;
    *p = q, *cap = c;
    return 0;
}

int clash_renew(void **p, size_t *cap, size_t n, size_t size, size_t extra)
{
    if (n <= *cap) return 0;
    const size_t c = clash_cap_for(n);
    if (size && c > (SIZE_MAX - extra) / size) {
        free(*p);
        *p = NULL, *cap = 0;
        return -1;
    }
    if (*p && *cap * size + extra >= BIG_BLOCK) { /* mapped by itself: moved, not copied (see mem.h) */
        void *q = realloc(*p, c * size + extra);
        if (q) {
            *p = q, *cap = c;
            return 0;
        }
    }
    free(*p);
    *p = NULL, *cap = 0;
    if (!(*p = malloc(c * size + extra))) return -1;
    *cap = c;
    return 0;
}

#ifdef CLASH_PAGES
enum { PAGES_HUGE = 4 << 20 };
static size_t pages_bytes(size_t cap, size_t size, size_t extra) { return cap ? cap * size + extra : 0; }

int clash_pages_renew(void **p, size_t *cap, size_t n, size_t size, size_t extra)
{
    if (n <= *cap) return 0;
    const size_t c = clash_cap_for(n);
    const size_t old = pages_bytes(*cap, size, extra);
    if (size && c > (SIZE_MAX - extra) / size) goto fail;
    const size_t bytes = c * size + extra;
    void *q = *p ? mremap(*p, old, bytes, MREMAP_MAYMOVE)
                 : mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED) goto fail;
#ifdef MADV_HUGEPAGE
    if (bytes >= PAGES_HUGE) madvise(q, bytes, MADV_HUGEPAGE);
#endif
    *p = q, *cap = c;
    return 0;
fail:
    clash_pages_free(*p, *cap, size, extra);
    *p = NULL, *cap = 0;
    return -1;
}

void clash_pages_free(void *p, size_t cap, size_t size, size_t extra)
{
    if (p) munmap(p, pages_bytes(cap, size, extra));
}
#else
int clash_pages_renew(void **p, size_t *cap, size_t n, size_t size, size_t extra)
{
    return clash_renew(p, cap, n, size, extra);
}

void clash_pages_free(void *p, size_t cap, size_t size, size_t extra)
{
    (void)cap, (void)size, (void)extra;
    free(p);
}
#endif
