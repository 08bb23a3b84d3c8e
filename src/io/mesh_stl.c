/*
 * mesh_stl.c — STL reader, ASCII and binary.
 *
 * Binary STL: an 80-byte header (free text), a little-endian uint32 triangle
 * count at byte 80, then one 50-byte record per triangle: normal (3 float32,
 * ignored), three vertices (3 x 3 float32, little endian), a uint16
 * attribute (ignored).
 *
 * ASCII STL, keywords in any case, tokens separated by any white space:
 *
 *   solid NAME
 *     facet normal nx ny nz
 *       outer loop
 *         vertex x y z      (exactly three)
 *       endloop
 *     endfacet
 *   endsolid NAME
 *
 * Several solids may follow one another; the facets of all are kept.
 *
 * Which kind: a file of at least 84 bytes whose size is exactly
 * 84 + 50 * count is binary, even when its header begins with "solid" (many
 * exporters write that).  Otherwise a file that begins with "solid" and
 * holds no NUL byte is ASCII; anything else of at least 84 bytes is read as
 * binary (and then fails the size check with a byte offset).
 *
 * STL stores every triangle's corners separately.  This reader does NOT weld
 * them: each facet adds 3 new vertices, and triangle i is (3i, 3i+1, 3i+2),
 * in file order.  Normals are ignored (they may be zero or even NaN in real
 * files); only coordinates are checked.
 *
 * Validation, CLASH_EINPUT; binary errors read "FILE: byte OFFSET: what",
 * ASCII ones "FILE:LINE: what":
 *   - an empty file, or one too short for either kind;
 *   - binary: a size other than 84 + 50 * count (truncated, or trailing
 *     data), checked before allocating, so an absurd count in a small file
 *     is a clean error; a count of 0 ("no faces"); more than INT32_MAX
 *     vertices (3 per triangle);
 *   - ASCII: any keyword out of place, a facet with other than 3 vertices,
 *     a number that is not one, a file that ends inside a solid (missing
 *     endsolid), text after the last endsolid that is not another solid,
 *     no facets at all ("no faces");
 *   - NaN or infinite vertex coordinates, in both kinds.
 * Degenerate triangles (zero area) are accepted.
 */
#include "io/mesh_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- binary --------------------------------------------------------------- */

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float lef32(const unsigned char *p)
{
    uint32_t u = le32(p);
    float v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static int load_binary(const char *path, const mio_file *f, clash_mesh *out, clash_error *err)
{
    const unsigned char *d = (const unsigned char *)f->data;
    const unsigned long long count = le32(d + 80);
    const unsigned long long want = 84 + 50 * count;
    if (f->size < want) {
        unsigned long long k = (f->size - 84) / 50;
        return clash_fail(err, CLASH_EINPUT,
                          "%s: byte %llu: file ends inside triangle %llu of %llu (the count at byte 80 "
                          "needs %llu bytes, the file has %zu)", path, 84 + 50 * k, k, count, want, f->size);
    }
    if (f->size > want)
        return clash_fail(err, CLASH_EINPUT,
                          "%s: byte %llu: %llu bytes of extra data after the %llu triangles the count at "
                          "byte 80 declares", path, want, (unsigned long long)f->size - want, count);
    if (count == 0) return clash_fail(err, CLASH_EINPUT, "%s: byte 80: no faces (triangle count is 0)", path);
    if (3 * count > (unsigned long long)MIO_MAX_COUNT)
        return clash_fail(err, CLASH_EINPUT, "%s: byte 80: %llu triangles need more than %ld vertices", path,
                          count, (long)MIO_MAX_COUNT);

    double *xyz = mio_alloc_array(9 * (size_t)count, sizeof *xyz);
    int32_t *tri = mio_alloc_array(3 * (size_t)count, sizeof *tri);
    if (!xyz || !tri) {
        free(xyz);
        free(tri);
        return mio_oom(path, err);
    }
    for (unsigned long long i = 0; i < count; ++i) {
        const unsigned char *rec = d + 84 + 50 * i;
        for (int k = 0; k < 9; ++k) {
            double v = lef32(rec + 12 + 4 * k);
            if (!isfinite(v)) {
                free(xyz);
                free(tri);
                return clash_fail(err, CLASH_EINPUT, "%s: byte %llu: triangle %llu: vertex %d coordinate %c "
                                  "is not finite", path, 84 + 50 * i + 12 + 4 * (unsigned)k, i, k / 3,
                                  "xyz"[k % 3]);
            }
            xyz[9 * i + (unsigned)k] = v;
        }
        for (int k = 0; k < 3; ++k) tri[3 * i + (unsigned)k] = (int32_t)(3 * i + (unsigned)k);
    }
    out->nverts = (int64_t)(3 * count);
    out->nfaces = (int64_t)count;
    out->xyz = xyz;
    out->tri = tri;
    return CLASH_OK;
}

/* ---- ASCII ------------------------------------------------------------------ */

typedef struct stl_text {
    const char *path;
    clash_error *err;
    char *p, *end;
    long line;      /* line of the last token returned */
    char *tok;      /* the last token */
    size_t len;
} stl_text;

/* Moves to the next token; returns its length, 0 at the end of the file
 * (whose line is then the last line, not the empty one after a final
 * newline). */
static size_t next_tok(stl_text *t)
{
    while (t->p < t->end && mio_is_blank(*t->p)) {
        if (*t->p == '\n' && t->p + 1 < t->end) ++t->line;
        ++t->p;
    }
    t->tok = t->p;
    t->len = t->p < t->end ? mio_token_len(t->p) : 0;
    t->p += t->len;
    return t->len;
}

/* Skips the rest of the current line (a solid's name). */
static void skip_line(stl_text *t)
{
    while (t->p < t->end && *t->p != '\n') ++t->p;
}

static int is_kw(const stl_text *t, const char *w) { return mio_token_is(t->tok, t->len, w, 1); }

static int unexpected(stl_text *t, const char *want)
{
    char q[64];
    if (!t->len)
        return clash_fail(t->err, CLASH_EINPUT, "%s:%ld: expected %s, but the file ends (missing endsolid?)",
                          t->path, t->line, want);
    return clash_fail(t->err, CLASH_EINPUT, "%s:%ld: expected %s, got '%s'", t->path, t->line, want,
                      mio_quote(t->tok, t->len, q, sizeof q));
}

static int expect(stl_text *t, const char *w)
{
    next_tok(t);
    if (is_kw(t, w)) return 0;
    char want[32];
    snprintf(want, sizeof want, "'%s'", w);
    return unexpected(t, want);
}

static int number(stl_text *t, double *v)
{
    if (!next_tok(t)) return unexpected(t, "a number");
    char *e;
    *v = strtod(t->tok, &e);
    if (e != t->tok + t->len) return unexpected(t, "a number");
    return 0;
}

static int load_ascii(const char *path, mio_file *f, clash_mesh *out, clash_error *err)
{
    stl_text t = {path, err, f->data, f->data + f->size, 1, NULL, 0};
    mio_vec xyz, tri;
    mio_vec_init(&xyz, sizeof(double));
    mio_vec_init(&tri, sizeof(int32_t));
    int rc;
    if ((rc = expect(&t, "solid"))) goto fail;
    skip_line(&t);
    for (;;) {
        if (!next_tok(&t)) {
            rc = unexpected(&t, "'facet' or 'endsolid'");
            goto fail;
        }
        if (is_kw(&t, "endsolid")) {
            skip_line(&t);
            if (!next_tok(&t)) break;
            if (!is_kw(&t, "solid")) {
                rc = unexpected(&t, "'solid' or the end of the file after 'endsolid'");
                goto fail;
            }
            skip_line(&t);
            continue;
        }
        if (!is_kw(&t, "facet")) {
            rc = unexpected(&t, "'facet' or 'endsolid'");
            goto fail;
        }
        double n[3], c[3];
        if ((rc = expect(&t, "normal"))) goto fail;
        for (int k = 0; k < 3; ++k)
            if ((rc = number(&t, &n[k]))) goto fail;
        if ((rc = expect(&t, "outer")) || (rc = expect(&t, "loop"))) goto fail;
        for (int v = 0; v < 3; ++v) {
            next_tok(&t);
            if (is_kw(&t, "endloop")) {
                rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: facet has %d vertices, need 3", path, t.line, v);
                goto fail;
            }
            if (!is_kw(&t, "vertex")) {
                rc = unexpected(&t, "'vertex'");
                goto fail;
            }
            for (int k = 0; k < 3; ++k) {
                if ((rc = number(&t, &c[k]))) goto fail;
                if (!isfinite(c[k])) {
                    rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: vertex coordinate %c is not finite", path,
                                    t.line, "xyz"[k]);
                    goto fail;
                }
            }
            if ((int64_t)(xyz.n / 3) >= MIO_MAX_COUNT) {
                rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: more than %ld vertices", path, t.line,
                                (long)MIO_MAX_COUNT);
                goto fail;
            }
            if (mio_push3d(&xyz, c[0], c[1], c[2])) goto oom;
        }
        next_tok(&t);
        if (is_kw(&t, "vertex")) {
            rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: facet has more than 3 vertices", path, t.line);
            goto fail;
        }
        if (!is_kw(&t, "endloop")) {
            rc = unexpected(&t, "'endloop'");
            goto fail;
        }
        if ((rc = expect(&t, "endfacet"))) goto fail;
        int32_t b = (int32_t)(xyz.n / 3 - 3);
        if (mio_push3i(&tri, b, b + 1, b + 2)) goto oom;
    }
    if (tri.n == 0) {
        rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: no faces (no facets in the file)", path, t.line);
        goto fail;
    }
    mio_finish(&xyz, &tri, out);
    return CLASH_OK;

oom:
    rc = mio_oom(path, err);
fail:
    mio_vec_free(&xyz);
    mio_vec_free(&tri);
    return rc;
}

/* ---- which kind --------------------------------------------------------------- */

static int starts_with_solid(const mio_file *f)
{
    const char *p = f->data, *end = f->data + f->size;
    while (p < end && mio_is_blank(*p)) ++p;
    return end - p >= 5 && mio_token_is(p, 5, "solid", 1) && (end - p == 5 || mio_is_blank(p[5]));
}

int clash_mesh_load_stl(const char *path, clash_mesh *out, clash_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) return clash_fail(err, CLASH_EINPUT, "clash_mesh_load_stl: null argument");

    mio_file f;
    int rc = mio_read_file(path, &f, err);
    if (rc) return rc;
    if (f.size == 0) {
        rc = clash_fail(err, CLASH_EINPUT, "%s: byte 0: empty file", path);
    } else if (f.size >= 84 && 84 + 50 * (unsigned long long)le32((unsigned char *)f.data + 80) == f.size) {
        rc = load_binary(path, &f, out, err);
    } else if (starts_with_solid(&f) && !memchr(f.data, '\0', f.size)) {
        rc = load_ascii(path, &f, out, err);
    } else if (f.size >= 84) {
        rc = load_binary(path, &f, out, err);
    } else {
        rc = clash_fail(err, CLASH_EINPUT,
                        "%s: byte %zu: not an STL file (shorter than a binary STL header and count, "
                        "and not ASCII STL)", path, f.size);
    }
    mio_file_free(&f);
    return rc;
}
