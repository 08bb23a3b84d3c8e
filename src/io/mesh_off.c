/*
 * mesh_off.c — OFF (Object File Format) reader, text only.
 *
 *   OFF                       header keyword (the counts may follow it on
 *   # a comment               the same line); '#' comments run to the end
 *   8 6 12                    of any line; blank lines are skipped
 *   x y z                     one line per vertex
 *   ...
 *   n i1 i2 ... in [colour]   one line per face: n 0-based vertex indices,
 *   ...                       then up to 4 colour values, ignored
 *
 * The counts line is "VERTICES FACES [EDGES]"; the edge count is ignored
 * (edges are never listed).  Header variants [ST][C][N]OFF add per-vertex
 * values after x y z: texture coordinates (ST, 2), a colour (C, 3 or 4), a
 * normal (N, 3); they are read as numbers and ignored.  4OFF, nOFF and
 * binary OFF are not supported.  A face of n vertices becomes n-2 triangles
 * in fan order (i1,i2,i3),(i1,i3,i4),... in place.
 *
 * Validation, each failure "FILE:LINE: what" (CLASH_EINPUT):
 *   - an empty file, a missing or unknown header keyword, a malformed counts
 *     line, counts above INT32_MAX or larger than the rest of the file could
 *     hold (each vertex line takes at least 6 bytes, each face line at least
 *     2), checked before allocating; a face count of 0 ("no faces");
 *   - fewer vertex or face lines than the counts say (the file ends early),
 *     any non-comment text after the last face (too many lines);
 *   - a value that is not a number, a coordinate that is NaN or infinite,
 *     a vertex line with more values than its variant allows (plain OFF:
 *     exactly 3);
 *   - a face with fewer than 3 vertices, fewer indices than it says, an
 *     index outside [0, vertex count), more than 4 values after the indices.
 * Degenerate triangles are read as written; clash_mesh_load (mesh_io.c) then
 * refuses one with a repeated index, naming the face, and keeps zero-area ones.
 */
#include "io/mesh_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Next line that is not blank once its comment is cut; 1, 0 at the end,
 * -1 on a NUL byte. */
static int next_data_line(mio_lines *L, char **s)
{
    int r;
    while ((r = mio_next_line(L, s)) > 0) {
        mio_strip_comment(*s);
        if (!mio_line_empty(*s)) return 1;
    }
    return r;
}

/* Reads the counts (nv, nf, optional ne) from p. */
static int parse_counts(const char *path, long line, char *p, long long *nv, long long *nf, clash_error *err)
{
    long long c[3] = {0, 0, 0};
    int n = 0;
    for (;;) {
        long long v = 0;
        char *at = mio_skip_blank(p), q[64];
        int r = mio_parse_int(&p, &v);
        if (r == 0) break;
        if (r == -2 || (r == 1 && n < 2 && v > MIO_MAX_COUNT))
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: count '%s' is more than the %ld supported", path,
                              line, mio_quote(at, mio_token_len(at), q, sizeof q), (long)MIO_MAX_COUNT);
        if (r < 0 || v < 0 || n == 3)
            return clash_fail(err, CLASH_EINPUT,
                              "%s:%ld: the counts line must be 'VERTICES FACES [EDGES]' (non-negative integers)",
                              path, line);
        c[n++] = v;
    }
    if (n < 2)
        return clash_fail(err, CLASH_EINPUT,
                          "%s:%ld: the counts line must be 'VERTICES FACES [EDGES]' (non-negative integers)",
                          path, line);
    *nv = c[0];
    *nf = c[1];
    return CLASH_OK;
}

/* The header: the keyword ([ST][C][N]OFF; max_extra: the values a vertex
 * line may carry after x y z for the keyword's texture, colour and normal)
 * and the counts, on the keyword's line or the next one. */
static int read_header(const char *path, mio_lines *L, long long *nv, long long *nf, int *max_extra,
                       clash_error *err)
{
    char q[64], *s;
    int r;
    if ((r = next_data_line(L, &s)) <= 0)
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: %s", path, L->line,
                          r < 0 ? "NUL byte in text" : "no OFF header (only comments)");
    char *p = mio_skip_blank(s);
    size_t kl = mio_token_len(p);
    size_t i = 0;
    *max_extra = 0;
    if (kl >= 2 && p[0] == 'S' && p[1] == 'T') i += 2, *max_extra += 2;
    if (i < kl && p[i] == 'C') ++i, *max_extra += 4;
    if (i < kl && p[i] == 'N') ++i, *max_extra += 3;
    if (!mio_token_is(p + i, kl - i, "OFF", 0)) {
        int variant = kl >= 3 && mio_token_is(p + kl - 3, 3, "OFF", 0);
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: %s '%s'", path, L->line,
                          variant ? "unsupported OFF variant" : "not an OFF file: expected 'OFF', got",
                          mio_quote(p, kl, q, sizeof q));
    }
    p += kl;
    if (mio_line_empty(p)) { /* counts on a line of their own */
        if ((r = next_data_line(L, &s)) <= 0)
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: %s", path, L->line,
                              r < 0 ? "NUL byte in text" : "file ends before the counts line");
        p = s;
    } else if (mio_token_is(mio_skip_blank(p), mio_token_len(mio_skip_blank(p)), "BINARY", 0)) {
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: binary OFF is not supported", path, L->line);
    }
    return parse_counts(path, L->line, p, nv, nf, err);
}

/* Vertex k's line s: x y z, then at most max_extra more numbers. */
static int read_vertex(const char *path, long line, char *s, long long k, int max_extra, mio_vec *xyz,
                       clash_error *err)
{
    char q[64], *p = s;
    double c[3], extra;
    for (int i = 0; i < 3; ++i) {
        int pr = mio_parse_double(&p, &c[i]);
        if (pr == 0)
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: vertex %lld has %d coordinates, need 3", path, line, k,
                              i);
        if (pr < 0)
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: vertex %lld: '%s' is not a number", path, line, k,
                              mio_quote(p, mio_token_len(p), q, sizeof q));
        if (!isfinite(c[i]))
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: vertex %lld: coordinate %c is not finite", path, line,
                              k, "xyz"[i]);
    }
    for (int i = 0;; ++i) {
        int pr = mio_parse_double(&p, &extra);
        if (pr == 0) break;
        if (pr < 0)
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: vertex %lld: '%s' is not a number", path, line, k,
                              mio_quote(p, mio_token_len(p), q, sizeof q));
        if (i == max_extra)
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: vertex %lld has more than %d values", path, line, k,
                              3 + max_extra);
    }
    if (mio_push3d(xyz, c[0], c[1], c[2])) return mio_oom(path, err);
    return CLASH_OK;
}

/* Face k's line s: its vertex count n, n indices below nv (a fan of
 * triangles), then at most 4 more numbers (a colour). */
static int read_face(const char *path, long line, char *s, long long k, long long nv, mio_vec *tri,
                     clash_error *err)
{
    char q[64], *p = s;
    long long n = 0;
    int pr = mio_parse_int(&p, &n);
    if (pr < 0)
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: face %lld: vertex count '%s' is not an integer", path,
                          line, k, mio_quote(p, mio_token_len(p), q, sizeof q));
    if (n < 3)
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: face %lld has %lld vertices, need at least 3", path, line,
                          k, n);
    int32_t first = 0, prev = 0;
    for (long long m = 0; m < n; ++m) {
        long long idx = 0;
        const char *at = mio_skip_blank(p);
        pr = mio_parse_int(&p, &idx);
        if (pr == 0)
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: face %lld has %lld of its %lld indices", path, line, k,
                              m, n);
        if (pr == -1)
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: face %lld: index '%s' is not an integer", path, line,
                              k, mio_quote(p, mio_token_len(p), q, sizeof q));
        if (pr == -2 || idx < 0 || idx >= nv)
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: face %lld: vertex index '%s' out of range (%lld "
                              "vertices)", path, line, k, mio_quote(at, mio_token_len(at), q, sizeof q), nv);
        if (m == 0) first = (int32_t)idx;
        else if (m >= 2) {
            if ((int64_t)(tri->n / 3) >= MIO_MAX_COUNT)
                return clash_fail(err, CLASH_EINPUT, "%s:%ld: more than %ld triangles", path, line,
                                  (long)MIO_MAX_COUNT);
            if (mio_push3i(tri, first, prev, (int32_t)idx)) return mio_oom(path, err);
        }
        prev = (int32_t)idx;
    }
    double extra;
    for (int i = 0;; ++i) {
        pr = mio_parse_double(&p, &extra);
        if (pr == 0) break;
        if (pr < 0)
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: face %lld: '%s' is not a number", path, line, k,
                              mio_quote(p, mio_token_len(p), q, sizeof q));
        if (i == 4)
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: face %lld has more than 4 values after its %lld "
                              "indices", path, line, k, n);
    }
    return CLASH_OK;
}

int clash_mesh_load_off(const char *path, clash_mesh *out, clash_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) return clash_fail(err, CLASH_EINPUT, "clash_mesh_load_off: null argument");

    mio_file f;
    int rc = mio_read_file(path, &f, err);
    if (rc) return rc;
    mio_vec xyz, tri;
    mio_vec_init(&xyz, sizeof(double));
    mio_vec_init(&tri, sizeof(int32_t));
    if (f.size == 0) {
        rc = clash_fail(err, CLASH_EINPUT, "%s:1: empty file", path);
        goto fail;
    }

    mio_lines L;
    char *begin = f.data;
    if (f.size >= 3 && !memcmp(begin, "\xEF\xBB\xBF", 3)) begin += 3;
    mio_lines_init(&L, begin, f.data + f.size);
    char *s;
    int r, max_extra = 0;
    long long nv = 0, nf = 0;
    if ((rc = read_header(path, &L, &nv, &nf, &max_extra, err))) goto fail;
    const long counts_line = L.line;

    /* Counts against the bytes left, before allocating (+1: the last line
     * may lack its newline). */
    unsigned long long left = (unsigned long long)(L.end - L.p) + 1;
    if ((unsigned long long)nv * 6 + (unsigned long long)nf * 2 > left) {
        rc = clash_fail(err, CLASH_EINPUT,
                        "%s:%ld: %lld vertices and %lld faces cannot fit in the %llu bytes left in the file",
                        path, counts_line, nv, nf, left - 1);
        goto fail;
    }
    if (nf == 0) {
        rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: no faces (face count is 0)", path, counts_line);
        goto fail;
    }
    if (mio_vec_reserve(&xyz, 3 * (size_t)nv) || mio_vec_reserve(&tri, 3 * (size_t)nf)) {
        rc = mio_oom(path, err);
        goto fail;
    }
    for (long long k = 0; k < nv; ++k) {
        if ((r = next_data_line(&L, &s)) <= 0) {
            rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: %s after %lld of %lld vertices", path, L.line,
                            r < 0 ? "NUL byte in text" : "file ends", k, nv);
            goto fail;
        }
        if ((rc = read_vertex(path, L.line, s, k, max_extra, &xyz, err))) goto fail;
    }
    for (long long k = 0; k < nf; ++k) {
        if ((r = next_data_line(&L, &s)) <= 0) {
            rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: %s after %lld of %lld faces", path, L.line,
                            r < 0 ? "NUL byte in text" : "file ends", k, nf);
            goto fail;
        }
        if ((rc = read_face(path, L.line, s, k, nv, &tri, err))) goto fail;
    }
    if ((r = next_data_line(&L, &s)) != 0) {
        rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: %s", path, L.line,
                        r < 0 ? "NUL byte in text" : "extra data after the last face (more lines than the counts say)");
        goto fail;
    }

    mio_finish(&xyz, &tri, out);
    mio_file_free(&f);
    return CLASH_OK;

fail:
    mio_vec_free(&xyz);
    mio_vec_free(&tri);
    mio_file_free(&f);
    return rc;
}
