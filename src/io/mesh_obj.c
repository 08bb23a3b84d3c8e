/*
 * mesh_obj.c — Wavefront OBJ reader.
 *
 * The format is line based; '#' starts a comment that runs to the end of the
 * line, blank lines are ignored, lines may end in "\n" or "\r\n", and a UTF-8
 * byte-order mark at the start is skipped.  Two statements matter:
 *
 *   v x y z [w]     a vertex; up to four further numbers (w, or the r g b
 *                   colour some exporters append) are read and ignored
 *   f r1 r2 r3 ...  a polygon; each ri is `v`, `v/t`, `v//n` or `v/t/n`
 *
 * Vertex references count from 1; a negative reference counts back from the
 * last vertex defined so far (-1 is the latest).  Texture and normal
 * references are checked to be integers and otherwise ignored.  A polygon of
 * n >= 3 references becomes n-2 triangles in fan order (r1,r2,r3),
 * (r1,r3,r4), ... placed where the polygon was, so triangle numbers follow
 * the file.  Every other statement (vt vn vp o g s usemtl mtllib l p and
 * anything unknown) is ignored.
 *
 * Validation, each failure reported as "FILE:LINE: what" (CLASH_EINPUT):
 *   - an empty file, or one without any face ("no faces");
 *   - a vertex with fewer than 3 coordinates, more than 7 values, a value
 *     that is not a number, or a coordinate that is NaN or infinite;
 *   - a face with fewer than 3 references, a malformed reference, index 0,
 *     or an index outside the vertices defined so far (a face may only refer
 *     to vertices above it, as every exporter writes them);
 *   - more than INT32_MAX vertices or triangles; a NUL byte in the text.
 * Degenerate triangles are read as written; clash_mesh_load (mesh_io.c) then
 * refuses one with a repeated index, naming the face, and keeps zero-area ones.
 */
#include "io/mesh_text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Parses the reference at tok (length tl) into the vertex number; returns 0,
 * -1 when malformed, -2 when the number overflows. */
static int parse_ref(const char *tok, size_t tl, long long *v)
{
    char *e;
    if (!(*tok == '-' || *tok == '+' || (*tok >= '0' && *tok <= '9'))) return -1;
    errno = 0;
    long long a = strtoll(tok, &e, 10);
    if (e == tok) return -1;
    int range = errno == ERANGE;
    if (*e == '/') {
        ++e;
        if (*e != '/') { /* texture reference */
            if (!(*e == '-' || *e == '+' || (*e >= '0' && *e <= '9'))) return -1;
            char *q;
            (void)strtoll(e, &q, 10);
            if (q == e) return -1;
            e = q;
        }
        if (*e == '/') { /* normal reference */
            ++e;
            if (!(*e == '-' || *e == '+' || (*e >= '0' && *e <= '9'))) return -1;
            char *q;
            (void)strtoll(e, &q, 10);
            if (q == e) return -1;
            e = q;
        }
    }
    if (e != tok + tl) return -1;
    if (range) return -2;
    *v = a;
    return 0;
}

int clash_mesh_load_obj(const char *path, clash_mesh *out, clash_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) return clash_fail(err, CLASH_EINPUT, "clash_mesh_load_obj: null argument");

    mio_file f;
    int rc = mio_read_file(path, &f, err);
    if (rc) return rc;
    if (f.size == 0) {
        mio_file_free(&f);
        return clash_fail(err, CLASH_EINPUT, "%s:1: empty file", path);
    }

    mio_vec xyz, tri;
    mio_vec_init(&xyz, sizeof(double));
    mio_vec_init(&tri, sizeof(int32_t));
    char q[64];

    mio_lines L;
    char *begin = f.data;
    if (f.size >= 3 && !memcmp(begin, "\xEF\xBB\xBF", 3)) begin += 3;
    mio_lines_init(&L, begin, f.data + f.size);
    char *s;
    int r;
    while ((r = mio_next_line(&L, &s)) > 0) {
        mio_strip_comment(s);
        char *p = mio_skip_blank(s);
        size_t kl = mio_token_len(p);
        if (kl != 1 || (p[0] != 'v' && p[0] != 'f')) continue; /* blank or ignored */

        if (p[0] == 'v') {
            ++p;
            double c[3], extra;
            for (int i = 0; i < 3; ++i) {
                int pr = mio_parse_double(&p, &c[i]);
                if (pr == 0) {
                    rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: vertex has %d coordinates, need 3",
                                    path, L.line, i);
                    goto fail;
                }
                if (pr < 0) {
                    rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: vertex coordinate '%s' is not a number",
                                    path, L.line, mio_quote(p, mio_token_len(p), q, sizeof q));
                    goto fail;
                }
                if (!isfinite(c[i])) {
                    rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: vertex coordinate %c is not finite",
                                    path, L.line, "xyz"[i]);
                    goto fail;
                }
            }
            for (int i = 0;; ++i) {
                int pr = mio_parse_double(&p, &extra);
                if (pr == 0) break;
                if (pr < 0) {
                    rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: vertex value '%s' is not a number",
                                    path, L.line, mio_quote(p, mio_token_len(p), q, sizeof q));
                    goto fail;
                }
                if (i == 4) {
                    rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: vertex has more than 7 values",
                                    path, L.line);
                    goto fail;
                }
            }
            if ((int64_t)(xyz.n / 3) >= MIO_MAX_COUNT) {
                rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: more than %ld vertices", path, L.line,
                                (long)MIO_MAX_COUNT);
                goto fail;
            }
            if (mio_push3d(&xyz, c[0], c[1], c[2])) goto oom;
            continue;
        }

        /* f r1 r2 r3 ... */
        ++p;
        long long nv = (long long)(xyz.n / 3);
        int32_t first = 0, prev = 0;
        long n = 0;
        for (;;) {
            p = mio_skip_blank(p);
            if (!*p) break;
            size_t tl = mio_token_len(p);
            long long a = 0;
            int pr = parse_ref(p, tl, &a);
            if (pr == -1) {
                rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: malformed face vertex '%s'", path, L.line,
                                mio_quote(p, tl, q, sizeof q));
                goto fail;
            }
            if (pr == 0 && a == 0) {
                rc = clash_fail(err, CLASH_EINPUT,
                                "%s:%ld: face vertex index 0 is invalid (OBJ indices start at 1)",
                                path, L.line);
                goto fail;
            }
            long long idx = a > 0 ? a - 1 : nv + a;
            if (pr == -2 || idx < 0 || idx >= nv) {
                rc = clash_fail(err, CLASH_EINPUT,
                                "%s:%ld: face vertex index '%s' out of range (%lld vertices defined so far)",
                                path, L.line, mio_quote(p, tl, q, sizeof q), nv);
                goto fail;
            }
            if (n == 0) {
                first = (int32_t)idx;
            } else if (n >= 2) {
                if ((int64_t)(tri.n / 3) >= MIO_MAX_COUNT) {
                    rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: more than %ld triangles", path, L.line,
                                    (long)MIO_MAX_COUNT);
                    goto fail;
                }
                if (mio_push3i(&tri, first, prev, (int32_t)idx)) goto oom;
            }
            prev = (int32_t)idx;
            ++n;
            p += tl;
        }
        if (n < 3) {
            rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: face has %ld vertices, need at least 3", path,
                            L.line, n);
            goto fail;
        }
    }
    if (r < 0) {
        rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: NUL byte in text", path, L.line);
        goto fail;
    }
    if (tri.n == 0) {
        rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: no faces in file", path, L.line);
        goto fail;
    }
    mio_finish(&xyz, &tri, out);
    mio_file_free(&f);
    return CLASH_OK;

oom:
    rc = mio_oom(path, err);
fail:
    mio_vec_free(&xyz);
    mio_vec_free(&tri);
    mio_file_free(&f);
    return rc;
}
