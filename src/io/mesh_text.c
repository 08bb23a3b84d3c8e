/*
 * mesh_text.c — the helpers the mesh readers share (mesh_text.h): whole-file
 * reading, a line reader, number parsing, overflow-checked growable arrays.
 */
#include "io/mesh_text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ascii_lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

/* ---- the whole file ----------------------------------------------------------- */

int mio_read_file(const char *path, mio_file *f, clash_error *err)
{
    f->data = NULL;
    f->size = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return clash_fail(err, CLASH_EINPUT, "%s: cannot open: %s", path, strerror(errno));

    /* Start from the size the file reports (when it is seekable) and grow
     * while reading, so pipes and files that change under us still work. */
    size_t cap = 1 << 16;
    if (fseek(fp, 0, SEEK_END) == 0) {
        long sz = ftell(fp);
        if (sz > 0 && (unsigned long)sz < (size_t)-1 / 2) cap = (size_t)sz + 1;
        rewind(fp);
    }
    char *buf = malloc(cap);
    if (!buf && cap > (1 << 16)) buf = malloc(cap = 1 << 16); /* a bogus size (a directory) */
    if (!buf) {
        fclose(fp);
        return mio_oom(path, err);
    }
    size_t n = 0;
    for (;;) {
        if (n + 1 >= cap) {
            if (cap > (size_t)-1 / 2) {
                free(buf);
                fclose(fp);
                return mio_oom(path, err);
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(fp);
                return mio_oom(path, err);
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, fp);
        n += got;
        if (got == 0) break;
    }
    if (ferror(fp)) {
        int e = errno;
        free(buf);
        fclose(fp);
        return clash_fail(err, CLASH_EINPUT, "%s: cannot read: %s", path, strerror(e));
    }
    fclose(fp);
    buf[n] = '\0';
    f->data = buf;
    f->size = n;
    return CLASH_OK;
}

void mio_file_free(mio_file *f)
{
    free(f->data);
    f->data = NULL;
    f->size = 0;
}

/* ---- lines ------------------------------------------------------------------------ */

void mio_lines_init(mio_lines *L, char *begin, char *end)
{
    L->p = begin;
    L->end = end;
    L->line = 0;
}

int mio_next_line(mio_lines *L, char **s)
{
    if (L->p >= L->end) return 0;
    char *b = L->p;
    char *nl = memchr(b, '\n', (size_t)(L->end - b));
    char *e = nl ? nl : L->end;
    L->p = nl ? nl + 1 : L->end;
    ++L->line;
    if (memchr(b, '\0', (size_t)(e - b))) return -1;
    if (e > b && e[-1] == '\r') --e;
    *e = '\0';
    *s = b;
    return 1;
}

void mio_strip_comment(char *s)
{
    char *h = strchr(s, '#');
    if (h) *h = '\0';
}

/* ---- tokens and numbers ----------------------------------------------------------- */

size_t mio_token_len(const char *s)
{
    size_t n = 0;
    while (s[n] && !mio_is_blank(s[n])) ++n;
    return n;
}

int mio_parse_double(char **s, double *v)
{
    char *p = mio_skip_blank(*s);
    if (!*p) {
        *s = p;
        return 0;
    }
    char *end;
    double d = strtod(p, &end);
    if (end == p || (*end && !mio_is_blank(*end))) {
        *s = p;
        return -1;
    }
    *v = d;
    *s = end;
    return 1;
}

int mio_parse_int(char **s, long long *v)
{
    char *p = mio_skip_blank(*s);
    if (!*p) {
        *s = p;
        return 0;
    }
    char *end;
    errno = 0;
    long long x = strtoll(p, &end, 10);
    if (end == p || (*end && !mio_is_blank(*end))) {
        *s = p;
        return -1;
    }
    if (errno == ERANGE) {
        *s = p;
        return -2;
    }
    *v = x;
    *s = end;
    return 1;
}

int mio_token_is(const char *s, size_t len, const char *word, int nocase)
{
    size_t wl = strlen(word);
    if (len != wl) return 0;
    for (size_t i = 0; i < len; ++i) {
        int a = (unsigned char)s[i], b = (unsigned char)word[i];
        if (nocase) a = ascii_lower(a), b = ascii_lower(b);
        if (a != b) return 0;
    }
    return 1;
}

const char *mio_quote(const char *s, size_t len, char *buf, size_t n)
{
    size_t i = 0;
    for (; i < len && i + 1 < n; ++i) {
        unsigned char c = (unsigned char)s[i];
        buf[i] = (char)(c >= 32 && c < 127 ? c : '?');
    }
    buf[i] = '\0';
    if (i < len && n >= 4) memcpy(buf + n - 4, "...", 4);
    return buf;
}

/* ---- memory ------------------------------------------------------------------------- */

void *mio_alloc_array(size_t n, size_t esz)
{
    if (esz && n > (size_t)-1 / esz) return NULL;
    size_t bytes = n * esz;
    return malloc(bytes ? bytes : 1);
}

int mio_vec_reserve(mio_vec *v, size_t total)
{
    if (total <= v->cap) return 0;
    size_t cap = v->cap ? v->cap : 64;
    while (cap < total) {
        if (cap > (size_t)-1 / 2) return -1;
        cap *= 2;
    }
    if (cap > (size_t)-1 / v->esz) return -1;
    void *d = realloc(v->data, cap * v->esz);
    if (!d) return -1;
    v->data = d;
    v->cap = cap;
    return 0;
}

void mio_vec_free(mio_vec *v)
{
    free(v->data);
    v->data = NULL;
    v->n = v->cap = 0;
}

void mio_finish(mio_vec *xyz, mio_vec *tri, clash_mesh *out)
{
    /* Trim spare capacity; keeping the larger block when realloc refuses is fine. */
    if (xyz->n && xyz->n < xyz->cap) {
        void *d = realloc(xyz->data, xyz->n * xyz->esz);
        if (d) xyz->data = d;
    }
    if (tri->n && tri->n < tri->cap) {
        void *d = realloc(tri->data, tri->n * tri->esz);
        if (d) tri->data = d;
    }
    out->nverts = (int64_t)(xyz->n / 3);
    out->nfaces = (int64_t)(tri->n / 3);
    out->xyz = xyz->data;
    out->tri = tri->data;
    xyz->data = tri->data = NULL;
    xyz->n = xyz->cap = tri->n = tri->cap = 0;
}

int mio_oom(const char *path, clash_error *err)
{
    return clash_fail(err, CLASH_EFAIL, "%s: out of memory", path);
}
