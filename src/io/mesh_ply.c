/*
 * mesh_ply.c — PLY (Stanford polygon file) reader: ascii,
 * binary_little_endian and binary_big_endian, on any host.
 *
 * A PLY file is a text header followed by a body:
 *
 *   ply
 *   format ascii 1.0            (or binary_little_endian / binary_big_endian)
 *   comment ...                 (comment and obj_info lines are skipped)
 *   element vertex 8
 *   property float x            (scalar property: TYPE NAME)
 *   property float y
 *   property float z
 *   property uchar red          (any further property, of any type, skipped)
 *   element face 6
 *   property list uchar int vertex_indices   (list: COUNT-TYPE ITEM-TYPE NAME)
 *   end_header
 *   <the elements, in header order, each entry's properties in order>
 *
 * Types: char/int8, uchar/uint8, short/int16, ushort/uint16, int/int32,
 * uint/uint32, float/float32, double/float64.  In an ascii body each entry
 * is one line of blank-separated values (blank lines are skipped); in a
 * binary body the values are packed with no padding, and a list is its
 * count followed by that many items.  Ascii reals keep the precision of
 * their text (a float property is not rounded to float32).
 *
 * What is used: the x, y, z properties of element "vertex" (any scalar type,
 * converted to double) and the "vertex_indices" (or "vertex_index") list of
 * element "face", whose count and items may be of any integer type.
 * Polygons become triangles in fan order (v0,v1,v2),(v0,v2,v3),... in place.
 * Every other property and element (edge, material, ...) is read past, in
 * all three encodings.
 *
 * Validation, all CLASH_EINPUT.  Header and ascii body errors read
 * "FILE:LINE: what"; binary body errors read "FILE: byte OFFSET: what", the
 * offset counted from the start of the file:
 *   - empty file; first line not "ply"; a missing, repeated or unknown format
 *     line; unknown header lines or property types; a property before any
 *     element; a list count or face index of non-integer type; duplicate
 *     element or property names; a missing end_header;
 *   - no vertex element, or one without scalar x, y and z; no face element,
 *     one without a vertex_indices list, or one with zero entries ("no faces");
 *   - vertex or face counts above INT32_MAX, and any element count larger
 *     than the rest of the file could hold (every binary entry takes at
 *     least its fixed bytes, every ascii value at least two characters),
 *     checked against the file size before anything is allocated;
 *   - a body that ends early (also inside a list whose count runs past the
 *     end), an ascii line with too few or too many values, a value that is
 *     not a number or does not fit its type, a negative list count, data
 *     after the last element;
 *   - coordinates that are NaN or infinite, faces with fewer than 3
 *     vertices, indices outside [0, vertex count).
 * Degenerate triangles are read as written; clash_mesh_load (mesh_io.c) then
 * refuses one with a repeated index, naming the face, and keeps zero-area ones.
 */
#include "io/mesh_text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T_NONE, T_I8, T_U8, T_I16, T_U16, T_I32, T_U32, T_F32, T_F64 };
enum { PLY_ASCII, PLY_LE, PLY_BE };

static const int type_size[] = {0, 1, 1, 2, 2, 4, 4, 4, 8};
static const char *const type_label[] = {"?", "int8", "uint8", "int16", "uint16",
                                         "int32", "uint32", "float32", "float64"};
static const double type_min[] = {0, -128, 0, -32768, 0, -2147483648.0, 0, 0, 0};
static const double type_max[] = {0, 127, 255, 32767, 65535, 2147483647.0, 4294967295.0, 0, 0};

static int is_int_type(int t) { return t >= T_I8 && t <= T_U32; }

static int type_from_name(const char *s)
{
    static const struct { const char *name; int type; } names[] = {
        {"char", T_I8},    {"int8", T_I8},     {"uchar", T_U8},   {"uint8", T_U8},
        {"short", T_I16},  {"int16", T_I16},   {"ushort", T_U16}, {"uint16", T_U16},
        {"int", T_I32},    {"int32", T_I32},   {"uint", T_U32},   {"uint32", T_U32},
        {"float", T_F32},  {"float32", T_F32}, {"double", T_F64}, {"float64", T_F64},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (!strcmp(s, names[i].name)) return names[i].type;
    return T_NONE;
}

typedef struct ply_prop {
    const char *name;
    int type;        /* scalar type, or the item type of a list */
    int count_type;  /* T_NONE for a scalar, else the list's count type */
} ply_prop;

typedef struct ply_elem {
    const char *name;
    long long count;
    long line;       /* header line that declared it */
    mio_vec props;   /* ply_prop */
} ply_elem;

/* Where the body is read from, and what is being read (for messages). */
typedef struct ply_in {
    const char *path;
    clash_error *err;
    int enc;
    const unsigned char *file, *p, *end; /* binary: whole file, cursor, end */
    mio_lines L;                         /* ascii: lines, and the unread */
    char *cur;                           /* part of the current one */
    const char *ename;                   /* element being read */
    long long eidx;                      /* its entry number, from 0 */
} ply_in;

/* Fails with "PATH:LINE: what" (ascii) or "PATH: byte OFF: what" (binary,
 * the offset of `at`). */
static int body_fail(ply_in *in, const unsigned char *at, const char *fmt, ...) CLASH_PRINTF(3, 4);
static int body_fail(ply_in *in, const unsigned char *at, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (in->enc == PLY_ASCII)
        return clash_fail(in->err, CLASH_EINPUT, "%s:%ld: %s", in->path, in->L.line, what);
    return clash_fail(in->err, CLASH_EINPUT, "%s: byte %lld: %s", in->path,
                      (long long)(at - in->file), what);
}

/* Decodes one binary value of type t at p. */
static double get_binary(const unsigned char *p, int t, int big)
{
    int n = type_size[t];
    uint64_t u = 0;
    for (int i = 0; i < n; ++i) u |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
    switch (t) {
    case T_I8: return (double)((int64_t)u - (u & 0x80u ? 0x100 : 0));
    case T_I16: return (double)((int64_t)u - (u & 0x8000u ? 0x10000 : 0));
    case T_I32: return (double)((int64_t)u - (u & 0x80000000u ? INT64_C(0x100000000) : 0));
    case T_F32: {
        uint32_t w = (uint32_t)u;
        float f;
        memcpy(&f, &w, sizeof f);
        return f;
    }
    case T_F64: {
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    default: return (double)u; /* unsigned types */
    }
}

/* Reads one value of type t into *v; *at receives its binary position. */
static int read_value(ply_in *in, int t, double *v, const unsigned char **at)
{
    char q[64];
    if (in->enc != PLY_ASCII) {
        *at = in->p;
        if (in->end - in->p < type_size[t])
            return body_fail(in, in->p, "file ends inside %s %lld", in->ename, in->eidx);
        *v = get_binary(in->p, t, in->enc == PLY_BE);
        in->p += type_size[t];
        return 0;
    }
    *at = NULL;
    char *s = in->cur, *tok = mio_skip_blank(in->cur);
    int r;
    if (is_int_type(t)) {
        long long x = 0;
        r = mio_parse_int(&s, &x);
        if (r == 1 && (x < type_min[t] || x > type_max[t])) r = -2;
        *v = (double)x;
    } else {
        r = mio_parse_double(&s, v);
    }
    if (r == 0) return body_fail(in, NULL, "too few values for %s %lld", in->ename, in->eidx);
    if (r < 0) {
        return body_fail(in, NULL, "%s %lld: '%s' is not %s %s", in->ename, in->eidx,
                         mio_quote(tok, mio_token_len(tok), q, sizeof q),
                         r == -1 ? "a valid" : "in the range of", type_label[t]);
    }
    in->cur = s;
    return 0;
}

/* Reads a list's count and checks that its items can be there. */
static int read_count(ply_in *in, const ply_prop *pr, long long *n)
{
    double c;
    const unsigned char *at;
    int rc = read_value(in, pr->count_type, &c, &at);
    if (rc) return rc;
    if (c < 0)
        return body_fail(in, at, "%s %lld: negative list count %.0f", in->ename, in->eidx, c);
    *n = (long long)c;
    if (in->enc != PLY_ASCII && *n > (in->end - in->p) / type_size[pr->type])
        return body_fail(in, at, "%s %lld: list of %lld entries runs past the end of the file",
                         in->ename, in->eidx, *n);
    return 0;
}

/* Reads past one property of the current entry. */
static int skip_prop(ply_in *in, const ply_prop *pr)
{
    double v;
    const unsigned char *at;
    long long n = 1;
    if (pr->count_type != T_NONE) {
        int rc = read_count(in, pr, &n);
        if (rc) return rc;
        if (in->enc != PLY_ASCII) {
            in->p += n * type_size[pr->type];
            return 0;
        }
    }
    for (long long i = 0; i < n; ++i) {
        int rc = read_value(in, pr->type, &v, &at);
        if (rc) return rc;
    }
    return 0;
}

/* Splits a header line in place into at most max tokens; returns the total
 * number of tokens on the line. */
static int split(char *s, char **tok, int max)
{
    int n = 0;
    for (;;) {
        s = mio_skip_blank(s);
        if (!*s) return n;
        size_t len = mio_token_len(s);
        if (n < max) tok[n] = s;
        ++n;
        s += len;
        if (*s) *s++ = '\0';
    }
}

static void free_elems(mio_vec *elems)
{
    ply_elem *e = elems->data;
    for (size_t i = 0; i < elems->n; ++i) mio_vec_free(&e[i].props);
    mio_vec_free(elems);
}

/* The reader's state: the body cursor, the header's elements, the
 * coordinates and triangles read so far, and which elements and properties
 * hold what is used. */
typedef struct ply_read {
    ply_in in;
    mio_vec elems;          /* ply_elem, in header order */
    mio_vec xyz, tri;       /* double x3 per vertex, int32 x3 per triangle */
    ply_elem *vtx, *face;
    size_t ix[3], ifl;      /* vtx's x, y, z properties; face's index list */
    long hdr_end;           /* the end_header line */
} ply_read;

/* The header's "format TYPE VERSION" line. */
static int header_format(ply_in *in, char **tok, int nt, long line)
{
    char q[64];
    if (in->enc >= 0) return clash_fail(in->err, CLASH_EINPUT, "%s:%ld: second format line", in->path, line);
    if (nt != 3)
        return clash_fail(in->err, CLASH_EINPUT, "%s:%ld: format line must be 'format TYPE VERSION'", in->path,
                          line);
    if (!strcmp(tok[1], "ascii")) in->enc = PLY_ASCII;
    else if (!strcmp(tok[1], "binary_little_endian")) in->enc = PLY_LE;
    else if (!strcmp(tok[1], "binary_big_endian")) in->enc = PLY_BE;
    else
        return clash_fail(in->err, CLASH_EINPUT, "%s:%ld: unknown PLY format '%s'", in->path, line,
                          mio_quote(tok[1], strlen(tok[1]), q, sizeof q));
    if (strcmp(tok[2], "1.0"))
        return clash_fail(in->err, CLASH_EINPUT, "%s:%ld: unsupported PLY version '%s' (expected 1.0)",
                          in->path, line, mio_quote(tok[2], strlen(tok[2]), q, sizeof q));
    return CLASH_OK;
}

/* The header's "element NAME COUNT" line: a new element with no properties yet. */
static int header_element(ply_read *R, char **tok, int nt, long line)
{
    const char *path = R->in.path;
    clash_error *err = R->in.err;
    char q[64];
    char *cs = nt == 3 ? tok[2] : NULL;
    long long count = 0;
    int pr = cs ? mio_parse_int(&cs, &count) : -1;
    if (nt != 3 || pr == -1 || count < 0)
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: element line must be 'element NAME COUNT'", path, line);
    if (pr == -2)
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: element count '%s' is too large", path, line,
                          mio_quote(tok[2], strlen(tok[2]), q, sizeof q));
    ply_elem *e = R->elems.data;
    for (size_t i = 0; i < R->elems.n; ++i) {
        if (!strcmp(e[i].name, tok[1]))
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: second element named '%s'", path, line,
                              mio_quote(tok[1], strlen(tok[1]), q, sizeof q));
    }
    if (mio_vec_reserve(&R->elems, R->elems.n + 1)) return mio_oom(path, err);
    e = (ply_elem *)R->elems.data + R->elems.n++;
    e->name = tok[1];
    e->count = count;
    e->line = line;
    mio_vec_init(&e->props, sizeof(ply_prop));
    return CLASH_OK;
}

/* The header's "property TYPE NAME" or "property list COUNT-TYPE ITEM-TYPE
 * NAME" line: one more property of the last element. */
static int header_property(ply_read *R, char **tok, int nt, long line)
{
    const char *path = R->in.path;
    clash_error *err = R->in.err;
    char q[64];
    if (R->elems.n == 0) return clash_fail(err, CLASH_EINPUT, "%s:%ld: property before any element", path, line);
    ply_prop p = {NULL, T_NONE, T_NONE};
    int islist = nt >= 2 && !strcmp(tok[1], "list");
    if (islist ? nt != 5 : nt != 3)
        return clash_fail(err, CLASH_EINPUT,
                          "%s:%ld: property line must be 'property TYPE NAME' or "
                          "'property list COUNT-TYPE ITEM-TYPE NAME'", path, line);
    const char *tname = islist ? tok[3] : tok[1];
    p.name = islist ? tok[4] : tok[2];
    p.type = type_from_name(tname);
    if (p.type == T_NONE)
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: unknown property type '%s'", path, line,
                          mio_quote(tname, strlen(tname), q, sizeof q));
    if (islist) {
        p.count_type = type_from_name(tok[2]);
        if (!is_int_type(p.count_type))
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: list count type '%s' is not an integer type", path,
                              line, mio_quote(tok[2], strlen(tok[2]), q, sizeof q));
    }
    ply_elem *e = (ply_elem *)R->elems.data + R->elems.n - 1;
    ply_prop *ep = e->props.data;
    for (size_t i = 0; i < e->props.n; ++i) {
        if (!strcmp(ep[i].name, p.name))
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: second property named '%s' in element '%s'", path,
                              line, mio_quote(p.name, strlen(p.name), q, sizeof q), e->name);
    }
    if (mio_vec_reserve(&e->props, e->props.n + 1)) return mio_oom(path, err);
    ((ply_prop *)e->props.data)[e->props.n++] = p;
    return CLASH_OK;
}

/* The header, from its "ply" line to end_header: the encoding and the
 * elements with their properties. */
static int read_header(ply_read *R)
{
    ply_in *in = &R->in;
    const char *path = in->path;
    clash_error *err = in->err;
    char q[64];
    char *s, *tok[8];
    int r = mio_next_line(&in->L, &s);
    if (r <= 0 || split(s, tok, 8) != 1 || strcmp(tok[0], "ply"))
        return clash_fail(err, CLASH_EINPUT, "%s:1: not a PLY file (the first line must be 'ply')", path);
    int done = 0, rc = CLASH_OK;
    while (!done && (r = mio_next_line(&in->L, &s)) > 0) {
        long line = in->L.line;
        int nt = split(s, tok, 8);
        if (nt == 0) continue;
        const char *kw = tok[0];
        if (!strcmp(kw, "comment") || !strcmp(kw, "obj_info")) continue;
        if (!strcmp(kw, "end_header")) done = 1;
        else if (!strcmp(kw, "format")) rc = header_format(in, tok, nt, line);
        else if (!strcmp(kw, "element")) rc = header_element(R, tok, nt, line);
        else if (!strcmp(kw, "property")) rc = header_property(R, tok, nt, line);
        else
            rc = clash_fail(err, CLASH_EINPUT, "%s:%ld: unknown header line starting '%s'", path, line,
                            mio_quote(kw, strlen(kw), q, sizeof q));
        if (rc) return rc;
    }
    if (r < 0)
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: NUL byte in the header (is end_header missing?)", path,
                          in->L.line);
    if (!done)
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: file ends in the header (missing end_header)", path,
                          in->L.line);
    R->hdr_end = in->L.line;
    if (in->enc < 0)
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: no format line in the header", path, R->hdr_end);
    return CLASH_OK;
}

/* What the header declares that is used: the vertex element with scalar x,
 * y, z and the face element with an integer index list, within the counts
 * supported. */
static int find_used(ply_read *R)
{
    const char *path = R->in.path;
    clash_error *err = R->in.err;
    ply_elem *el = R->elems.data;
    for (size_t i = 0; i < R->elems.n; ++i) {
        if (!strcmp(el[i].name, "vertex")) R->vtx = &el[i];
        if (!strcmp(el[i].name, "face")) R->face = &el[i];
    }
    ply_elem *vtx = R->vtx, *face = R->face;
    if (!vtx) return clash_fail(err, CLASH_EINPUT, "%s:%ld: no vertex element in the header", path, R->hdr_end);
    for (int c = 0; c < 3; ++c) {
        const char *want = c == 0 ? "x" : c == 1 ? "y" : "z";
        ply_prop *vp = vtx->props.data;
        size_t i = 0;
        while (i < vtx->props.n && strcmp(vp[i].name, want)) ++i;
        if (i == vtx->props.n || vp[i].count_type != T_NONE)
            return clash_fail(err, CLASH_EINPUT, "%s:%ld: vertex element has no scalar property '%s'", path,
                              vtx->line, want);
        R->ix[c] = i;
    }
    if (vtx->count > MIO_MAX_COUNT)
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: %lld vertices is more than the %ld supported", path,
                          vtx->line, vtx->count, (long)MIO_MAX_COUNT);
    if (!face)
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: no face element in the header (no faces)", path,
                          R->hdr_end);
    ply_prop *fp = face->props.data;
    size_t i = 0;
    while (i < face->props.n && strcmp(fp[i].name, "vertex_indices") && strcmp(fp[i].name, "vertex_index")) ++i;
    if (i == face->props.n || fp[i].count_type == T_NONE || !is_int_type(fp[i].type))
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: face element has no integer list property 'vertex_indices'",
                          path, face->line);
    R->ifl = i;
    if (face->count == 0) return clash_fail(err, CLASH_EINPUT, "%s:%ld: no faces (face count is 0)", path, face->line);
    if (face->count > MIO_MAX_COUNT)
        return clash_fail(err, CLASH_EINPUT, "%s:%ld: %lld faces is more than the %ld supported", path,
                          face->line, face->count, (long)MIO_MAX_COUNT);
    return CLASH_OK;
}

/* Every element count against the bytes after the header, before anything
 * is allocated: each binary entry takes at least its fixed bytes, each
 * ascii value at least two characters. */
static int check_counts(ply_read *R, const unsigned char *body, const unsigned char *end)
{
    const ply_in *in = &R->in;
    ply_elem *el = R->elems.data;
    unsigned long long left = (unsigned long long)(end - body);
    if (in->enc == PLY_ASCII) ++left; /* the last line may lack its newline */
    for (size_t i = 0; i < R->elems.n; ++i) {
        ply_prop *ep = el[i].props.data;
        unsigned long long min = 0;
        for (size_t j = 0; j < el[i].props.n; ++j)
            min += in->enc == PLY_ASCII ? 2
                 : (unsigned long long)type_size[ep[j].count_type != T_NONE ? ep[j].count_type : ep[j].type];
        if (min == 0 && el[i].count > 0)
            return clash_fail(in->err, CLASH_EINPUT, "%s:%ld: element '%s' has entries but no properties",
                              in->path, el[i].line, el[i].name);
        unsigned long long cnt = (unsigned long long)el[i].count;
        if (min && cnt > left / min)
            return clash_fail(in->err, CLASH_EINPUT,
                              "%s:%ld: element '%s' declares %lld entries, more than the %llu bytes "
                              "after the header can hold", in->path, el[i].line, el[i].name, el[i].count,
                              (unsigned long long)(end - body));
        left -= cnt * min;
    }
    return CLASH_OK;
}

/* Face k's index list (property pr): its polygon as a fan of triangles. */
static int read_face_list(ply_read *R, const ply_prop *pr, long long k)
{
    ply_in *in = &R->in;
    const long long nv = R->vtx->count;
    long long n;
    const unsigned char *at = in->p;
    int rc;
    if ((rc = read_count(in, pr, &n))) return rc;
    if (n < 3) return body_fail(in, at, "face %lld has %lld vertices, need at least 3", k, n);
    int32_t first = 0, prev = 0;
    for (long long m = 0; m < n; ++m) {
        double v;
        if ((rc = read_value(in, pr->type, &v, &at))) return rc;
        if (v < 0 || v >= (double)nv)
            return body_fail(in, at, "face %lld: vertex index %.0f out of range (%lld vertices)", k, v, nv);
        int32_t idx = (int32_t)v;
        if (m == 0) first = idx;
        else if (m >= 2) {
            if ((int64_t)(R->tri.n / 3) >= MIO_MAX_COUNT)
                return body_fail(in, at, "more than %ld triangles", (long)MIO_MAX_COUNT);
            if (mio_push3i(&R->tri, first, prev, idx)) return mio_oom(in->path, in->err);
        }
        prev = idx;
    }
    return CLASH_OK;
}

/* Entry k of element e: its properties in order, the used ones kept. */
static int read_entry(ply_read *R, ply_elem *e, long long k)
{
    ply_in *in = &R->in;
    const ply_prop *ep = e->props.data;
    const size_t *ix = R->ix;
    int rc;
    in->eidx = k;
    if (in->enc == PLY_ASCII) {
        int r;
        do {
            r = mio_next_line(&in->L, &in->cur);
        } while (r > 0 && mio_line_empty(in->cur));
        if (r < 0) return body_fail(in, NULL, "NUL byte in text");
        if (r == 0) return body_fail(in, NULL, "file ends after %lld of %lld %s entries", k, e->count, e->name);
    }
    double c[3] = {0, 0, 0};
    for (size_t j = 0; j < e->props.n; ++j) {
        const ply_prop *pr = &ep[j];
        if (e == R->face && j == R->ifl) {
            if ((rc = read_face_list(R, pr, k))) return rc;
        } else if (e == R->vtx && (j == ix[0] || j == ix[1] || j == ix[2])) {
            int cj = j == ix[0] ? 0 : j == ix[1] ? 1 : 2;
            const unsigned char *at;
            if ((rc = read_value(in, pr->type, &c[cj], &at))) return rc;
            if (!isfinite(c[cj])) return body_fail(in, at, "vertex %lld: coordinate %s is not finite", k, pr->name);
        } else if ((rc = skip_prop(in, pr))) {
            return rc;
        }
    }
    if (in->enc == PLY_ASCII && !mio_line_empty(in->cur))
        return body_fail(in, NULL, "too many values for %s %lld", e->name, k);
    if (e == R->vtx && mio_push3d(&R->xyz, c[0], c[1], c[2])) return mio_oom(in->path, in->err);
    return CLASH_OK;
}

/* The body: every element in header order (a binary element of fixed size
 * that is not used skipped whole), then nothing but blank lines (ascii) or
 * nothing at all (binary). */
static int read_body(ply_read *R)
{
    ply_in *in = &R->in;
    ply_elem *el = R->elems.data;
    int rc;
    for (size_t i = 0; i < R->elems.n; ++i) {
        ply_elem *e = &el[i];
        const ply_prop *ep = e->props.data;
        const size_t np = e->props.n;
        in->ename = e->name;
        in->eidx = 0;
        if (in->enc != PLY_ASCII && e != R->vtx && e != R->face) {
            unsigned long long sz = 0;
            size_t j = 0;
            while (j < np && ep[j].count_type == T_NONE) sz += (unsigned long long)type_size[ep[j++].type];
            if (j == np) { /* the header check made sz * count fit */
                if ((unsigned long long)(in->end - in->p) < sz * (unsigned long long)e->count)
                    return body_fail(in, in->p, "element '%s' (%lld entries of %llu bytes) runs past the end "
                                     "of the file", e->name, e->count, sz);
                in->p += sz * (unsigned long long)e->count;
                continue;
            }
        }
        for (long long k = 0; k < e->count; ++k)
            if ((rc = read_entry(R, e, k))) return rc;
    }
    if (in->enc == PLY_ASCII) {
        char *s;
        int r;
        while ((r = mio_next_line(&in->L, &s)) > 0 && mio_line_empty(s)) {}
        if (r != 0) return body_fail(in, NULL, "extra data after the last element");
    } else if (in->p != in->end) {
        return body_fail(in, in->p, "%lld bytes of extra data after the last element", (long long)(in->end - in->p));
    }
    return CLASH_OK;
}

int clash_mesh_load_ply(const char *path, clash_mesh *out, clash_error *err)
{
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) return clash_fail(err, CLASH_EINPUT, "clash_mesh_load_ply: null argument");

    mio_file f;
    int rc = mio_read_file(path, &f, err);
    if (rc) return rc;

    ply_read R;
    memset(&R, 0, sizeof R);
    mio_vec_init(&R.elems, sizeof(ply_elem));
    mio_vec_init(&R.xyz, sizeof(double));
    mio_vec_init(&R.tri, sizeof(int32_t));
    R.in.path = path;
    R.in.err = err;
    R.in.enc = -1;

    if (f.size == 0) {
        rc = clash_fail(err, CLASH_EINPUT, "%s:1: empty file", path);
        goto fail;
    }
    mio_lines_init(&R.in.L, f.data, f.data + f.size);
    if ((rc = read_header(&R)) || (rc = find_used(&R))) goto fail;
    const unsigned char *body = (const unsigned char *)R.in.L.p;
    const unsigned char *end = (const unsigned char *)f.data + f.size;
    if ((rc = check_counts(&R, body, end))) goto fail;
    if (mio_vec_reserve(&R.xyz, 3 * (size_t)R.vtx->count) || mio_vec_reserve(&R.tri, 3 * (size_t)R.face->count)) {
        rc = mio_oom(path, err);
        goto fail;
    }
    R.in.file = (const unsigned char *)f.data;
    R.in.p = body;
    R.in.end = end;
    if ((rc = read_body(&R))) goto fail;

    mio_finish(&R.xyz, &R.tri, out);
    free_elems(&R.elems);
    mio_file_free(&f);
    return CLASH_OK;

fail:
    free_elems(&R.elems);
    mio_vec_free(&R.xyz);
    mio_vec_free(&R.tri);
    mio_file_free(&f);
    return rc;
}
