/*
 * mesh_text.h — helpers shared by the mesh readers (mesh_obj.c,
 * mesh_ply.c, mesh_stl.c, mesh_off.c); implemented in mesh_text.c.
 *
 * Every reader reads the whole file into memory first (mio_read_file), which
 * gives it the file size up front (to reject absurd element counts before
 * allocating anything) and lets text parsing work in place:
 *
 *   - mio_lines hands out one line at a time, NUL-terminated in place with
 *     its "\n" or "\r\n" removed, and counts lines for error messages;
 *   - mio_parse_double / mio_parse_int read one blank-delimited number and
 *     insist that the whole token is the number ("1.5x" is an error);
 *   - mio_vec is a growable array whose growth is overflow-checked;
 *   - mio_finish hands the arrays over to a clash_mesh.
 *
 * Numbers go through strtod/strtoll, so they follow the C locale's decimal
 * point; the library never calls setlocale.
 */
#ifndef CLASH_IO_MESH_TEXT_H
#define CLASH_IO_MESH_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "io/mesh_io.h"

/* Largest vertex or triangle count a mesh may have: indices are int32. */
#define MIO_MAX_COUNT ((int64_t)INT32_MAX)

/* ---- the whole file in memory ------------------------------------------- */

typedef struct mio_file {
    char *data;   /* size bytes, followed by one extra NUL byte */
    size_t size;
} mio_file;

/* Reads path into f.  Fails with CLASH_EINPUT "PATH: cannot open: REASON"
 * (or "cannot read"), CLASH_EFAIL when out of memory; f is then empty. */
int mio_read_file(const char *path, mio_file *f, clash_error *err);
void mio_file_free(mio_file *f);

/* ---- lines -------------------------------------------------------------- */

typedef struct mio_lines {
    char *p;    /* next unread byte */
    char *end;  /* one past the last byte; *end == '\0' */
    long line;  /* number of the line last returned, 1-based; 0 before */
} mio_lines;

void mio_lines_init(mio_lines *L, char *begin, char *end);

/* Returns 1 and sets *s to the next line, NUL-terminated in place without its
 * line end; 0 at the end of the data; -1 when the line holds a NUL byte
 * (L->line is then that line's number). */
int mio_next_line(mio_lines *L, char **s);

/* Cuts a line at its first '#' (comment to end of line). */
void mio_strip_comment(char *s);

/* ---- tokens and numbers ------------------------------------------------- */

static inline int mio_is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}

/* Skips blanks; the result points at a token or at the terminating NUL. */
static inline char *mio_skip_blank(char *s)
{
    while (mio_is_blank(*s)) ++s;
    return s;
}

/* Whether the rest of the line is blank. */
static inline int mio_line_empty(char *s) { return *mio_skip_blank(s) == '\0'; }

/* Length of the token at s (up to the next blank or NUL). */
size_t mio_token_len(const char *s);

/* Parse one number after optional blanks and advance *s past it.  Return 1 on
 * success, 0 when the line has no more tokens, -1 when the token is not a
 * number (*s is then left at the token, for the message), and for
 * mio_parse_int -2 when the integer does not fit in long long.  Non-finite
 * reals ("nan", "inf", "1e999") parse; callers check isfinite. */
int mio_parse_double(char **s, double *v);
int mio_parse_int(char **s, long long *v);

/* Whether the token at s is exactly word (length-checked), ASCII
 * case-insensitively when nocase. */
int mio_token_is(const char *s, size_t len, const char *word, int nocase);

/* Copies up to n-1 characters of the token at s into buf, NUL-terminated,
 * appending "..." when cut, for quoting bad input in messages. */
const char *mio_quote(const char *s, size_t len, char *buf, size_t n);

/* ---- memory ------------------------------------------------------------- */

/* malloc(n * esz), NULL on overflow or when out of memory. */
void *mio_alloc_array(size_t n, size_t esz);

/* A growable array of esz-byte elements. */
typedef struct mio_vec {
    void *data;
    size_t n, cap, esz;
} mio_vec;

static inline void mio_vec_init(mio_vec *v, size_t esz)
{
    v->data = NULL;
    v->n = v->cap = 0;
    v->esz = esz;
}

/* Makes room for at least `total` elements; 0 on success, -1 on overflow or
 * out of memory (the contents are then unchanged). */
int mio_vec_reserve(mio_vec *v, size_t total);
void mio_vec_free(mio_vec *v);

/* Append helpers; return -1 when out of memory. */
static inline int mio_push3d(mio_vec *v, double x, double y, double z)
{
    if (v->cap - v->n < 3 && mio_vec_reserve(v, v->n + 3)) return -1;
    double *d = (double *)v->data + v->n;
    d[0] = x, d[1] = y, d[2] = z;
    v->n += 3;
    return 0;
}

static inline int mio_push3i(mio_vec *v, int32_t a, int32_t b, int32_t c)
{
    if (v->cap - v->n < 3 && mio_vec_reserve(v, v->n + 3)) return -1;
    int32_t *t = (int32_t *)v->data + v->n;
    t[0] = a, t[1] = b, t[2] = c;
    v->n += 3;
    return 0;
}

/* Moves xyz (doubles, 3 per vertex) and tri (int32, 3 per triangle) into
 * *out, trimming spare capacity; the vectors are left empty.  Callers have
 * already checked that there is at least one face and that counts fit. */
void mio_finish(mio_vec *xyz, mio_vec *tri, clash_mesh *out);

/* The "out of memory" failure (CLASH_EFAIL). */
int mio_oom(const char *path, clash_error *err);

#endif
