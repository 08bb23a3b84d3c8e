/*
 * test_mesh_io.c — the mesh readers (src/io/mesh_*.c): OBJ, PLY, STL, OFF.
 *
 * Three parts:
 *   1. every mesh of ../shared/data loads with the right vertex and face
 *      counts (skipped, with a message, when the folder is missing);
 *   2. crafted good files load to exactly the expected coordinates and
 *      triangles: the ASCII ones are committed in tests/fixtures/mesh/, the
 *      binary ones (and those whose bytes matter, like CRLF line ends) are
 *      written here at run time into a mkdtemp folder, byte by byte;
 *   3. crafted bad files (tests/fixtures/mesh/bad/ and written here) each fail
 *      with CLASH_EINPUT, a message "PATH:LINE: ..." or "PATH: byte N: ..."
 *      naming the expected place and problem, and *out left zeroed.
 * Owned by the mesh I/O code.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "io/mesh_io.h"

#define GOOD_DIR CLASH_TEST_DIR "/fixtures/mesh"
#define BAD_DIR CLASH_TEST_DIR "/fixtures/mesh/bad"

/* ---- helpers ------------------------------------------------------------------ */

/* Loads path into *m after filling *m with junk, so that the checks below
 * see whether the reader really sets (or zeroes) every field. */
static int load(const char *path, clash_mesh *m, clash_error *e)
{
    memset(m, 0x5a, sizeof *m);
    e->code = -1;
    e->msg[0] = '\0';
    return clash_mesh_load(path, m, e);
}

static int is_zeroed(const clash_mesh *m)
{
    return m->nverts == 0 && m->nfaces == 0 && m->xyz == NULL && m->tri == NULL;
}

/* Loads path and compares with the expected mesh, exactly. */
static void expect_mesh(const char *path, int64_t nv, const double *xyz, int64_t nf, const int32_t *tri)
{
    clash_mesh m;
    clash_error e;
    int rc = load(path, &m, &e);
    CHECK(rc == CLASH_OK, "%s: rc %d: %s", path, rc, e.msg);
    if (rc != CLASH_OK) return;
    CHECK(m.nverts == nv, "%s: %lld vertices, want %lld", path, (long long)m.nverts, (long long)nv);
    CHECK(m.nfaces == nf, "%s: %lld faces, want %lld", path, (long long)m.nfaces, (long long)nf);
    if (m.nverts == nv) {
        for (int64_t i = 0; i < 3 * nv; ++i)
            CHECK(m.xyz[i] == xyz[i], "%s: vertex %lld coordinate %d is %.17g, want %.17g", path,
                  (long long)(i / 3), (int)(i % 3), m.xyz[i], xyz[i]);
    }
    if (m.nfaces == nf) {
        for (int64_t i = 0; i < 3 * nf; ++i)
            CHECK(m.tri[i] == tri[i], "%s: triangle %lld corner %d is %d, want %d", path, (long long)(i / 3),
                  (int)(i % 3), (int)m.tri[i], (int)tri[i]);
    }
    clash_mesh_free(&m);
    CHECK(is_zeroed(&m), "%s: clash_mesh_free left the mesh non-empty", path);
}

static int nbad;

/* Loads a bad file: CLASH_EINPUT, the message is PATH + where (":7:" or
 * ": byte 184:") + something containing `what`, and the mesh is zeroed. */
static void expect_bad(const char *path, const char *where, const char *what)
{
    clash_mesh m;
    clash_error e;
    ++nbad;
    int rc = load(path, &m, &e);
    CHECK(rc == CLASH_EINPUT, "%s: rc %d, want CLASH_EINPUT (%s)", path, rc, e.msg);
    CHECK(e.code == CLASH_EINPUT, "%s: err.code %d", path, e.code);
    size_t pl = strlen(path);
    int starts = !strncmp(e.msg, path, pl);
    CHECK(starts && !strncmp(e.msg + pl, where, strlen(where)),
          "%s: message '%s' should start with the path and '%s'", path, e.msg, where);
    CHECK(strstr(e.msg, what) != NULL, "%s: message '%s' should say '%s'", path, e.msg, what);
    CHECK(is_zeroed(&m), "%s: failed load left the mesh non-empty", path);
    if (rc == CLASH_OK) clash_mesh_free(&m);
}

/* ---- run-time files ------------------------------------------------------------- */

static char tmpdir[512];
static char written[64][640];
static int nwritten;

/* Writes n bytes to tmpdir/name; returns the full path (kept until cleanup). */
static const char *write_tmp(const char *name, const void *data, size_t n)
{
    if (nwritten == 64) {
        CHECK(0, "too many temporary files");
        return "";
    }
    char *path = written[nwritten++];
    snprintf(path, sizeof written[0], "%s/%s", tmpdir, name);
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL, "cannot create %s", path);
    if (fp) {
        CHECK(fwrite(data, 1, n, fp) == n, "cannot write %s", path);
        CHECK(fclose(fp) == 0, "cannot close %s", path);
    }
    return path;
}

static void cleanup_tmp(void)
{
    for (int i = 0; i < nwritten; ++i) remove(written[i]);
    if (tmpdir[0]) rmdir(tmpdir);
}

/* A byte buffer with explicit endianness for binary PLY and STL. */
typedef struct bytes {
    unsigned char b[4096];
    size_t n;
    int big;  /* write multi-byte values big endian */
} bytes;

static void put_raw(bytes *o, const void *p, size_t n)
{
    if (o->n + n > sizeof o->b) {
        CHECK(0, "test buffer overflow");
        return;
    }
    memcpy(o->b + o->n, p, n);
    o->n += n;
}

static void put_text(bytes *o, const char *s) { put_raw(o, s, strlen(s)); }

static void put_uint(bytes *o, uint64_t v, int size)
{
    unsigned char t[8];
    for (int i = 0; i < size; ++i) t[o->big ? size - 1 - i : i] = (unsigned char)(v >> (8 * i));
    put_raw(o, t, (size_t)size);
}

static void put_f32(bytes *o, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_uint(o, u, 4);
}

static void put_f64(bytes *o, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    put_uint(o, u, 8);
}

/* One value of the named PLY type: integers as two's complement of their
 * size, float32/float64 as IEEE bits, all in o's byte order. */
static void put_ply(bytes *o, const char *type, double v)
{
    static const struct { const char *name; int size, isfloat; } types[] = {
        {"char", 1, 0},  {"uchar", 1, 0},  {"int8", 1, 0},    {"uint8", 1, 0},   {"short", 2, 0},
        {"ushort", 2, 0}, {"int16", 2, 0}, {"uint16", 2, 0},  {"int", 4, 0},     {"uint", 4, 0},
        {"int32", 4, 0}, {"uint32", 4, 0}, {"float", 4, 1},   {"float32", 4, 1}, {"double", 8, 1},
        {"float64", 8, 1},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i) {
        if (strcmp(type, types[i].name)) continue;
        if (types[i].isfloat && types[i].size == 4) put_f32(o, (float)v);
        else if (types[i].isfloat) put_f64(o, v);
        else put_uint(o, (uint64_t)(int64_t)v, types[i].size);
        return;
    }
    CHECK(0, "unknown type %s in the test", type);
}

/* ---- 1. the shared data ------------------------------------------------------------- */

static void check_sane(const char *path, const clash_mesh *m)
{
    int64_t bad = 0;
    for (int64_t i = 0; i < 3 * m->nverts; ++i) bad += !isfinite(m->xyz[i]);
    for (int64_t i = 0; i < 3 * m->nfaces; ++i) bad += m->tri[i] < 0 || m->tri[i] >= m->nverts;
    CHECK(bad == 0, "%s: %lld non-finite coordinates or bad indices", path, (long long)bad);
}

static void test_shared_data(void)
{
    const char *dir = check_data_dir();
    if (!dir) {
        printf("test_mesh_io: ../shared/data not found; skipping the shared-data checks\n");
        return;
    }
    /* Counts: `grep -c '^v '` and the triangles after fan triangulation of the
     * `f` lines.  suzanne.obj has 500 polygons (468 quads, 32 triangles), so
     * 968 triangles, where the data README says "500 faces, all triangles". */
    static const struct { const char *file; int64_t nv, nf; } meshes[] = {
        {"meshes/stanford-bunny.obj", 35947, 69451},
        {"meshes/spot.obj", 2930, 5856},
        {"meshes/teapot.obj", 3644, 6320},
        {"meshes/cow.obj", 2903, 5804},
        {"meshes/suzanne.obj", 507, 968},
        {"ccd-frames/cloth-funnel/frames/227.ply", 9450, 18484},
        {"ccd-frames/cloth-funnel/frames/228.ply", 9450, 18484},
        {"ccd-frames/armadillo-rollers/frames/326.ply", 12135, 24242},
        {"ccd-frames/armadillo-rollers/frames/327.ply", 12135, 24242},
    };
    clash_mesh prev = {0, 0, NULL, NULL};
    for (size_t i = 0; i < sizeof meshes / sizeof meshes[0]; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, meshes[i].file);
        clash_mesh m;
        clash_error e;
        int rc = load(path, &m, &e);
        CHECK(rc == CLASH_OK, "%s: %s", path, e.msg);
        if (rc) continue;
        CHECK(m.nverts == meshes[i].nv, "%s: %lld vertices, want %lld", path, (long long)m.nverts,
              (long long)meshes[i].nv);
        CHECK(m.nfaces == meshes[i].nf, "%s: %lld faces, want %lld", path, (long long)m.nfaces,
              (long long)meshes[i].nf);
        check_sane(path, &m);
        if (i == 0) { /* first line "v -0.037830 0.127940 0.004475", first face "f 21217 21216 20400" */
            CHECK(m.xyz[0] == -0.037830 && m.xyz[1] == 0.127940 && m.xyz[2] == 0.004475, "%s: vertex 0", path);
            CHECK(m.tri[0] == 21216 && m.tri[1] == 21215 && m.tri[2] == 20399, "%s: face 0", path);
        }
        if (i == 4) { /* first face "f 1//1 3//3 45//45 47//47", a quad */
            CHECK(m.tri[0] == 0 && m.tri[1] == 2 && m.tri[2] == 44 && m.tri[3] == 0 && m.tri[4] == 44 &&
                  m.tri[5] == 46, "%s: the first quad's two triangles", path);
        }
        /* The two frames of a scene share their topology. */
        if ((i == 6 || i == 8) && prev.tri && prev.nfaces == m.nfaces)
            CHECK(!memcmp(prev.tri, m.tri, (size_t)(3 * m.nfaces) * sizeof *m.tri),
                  "%s: triangles differ from the previous frame", path);
        clash_mesh_free(&prev);
        prev = m;
    }
    clash_mesh_free(&prev);
}

/* ---- 2. good crafted files ------------------------------------------------------------ */

static void test_good_text(void)
{
    {
        static const double xyz[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0,
                                     3, 0, 0, 3, 1, 0, 2.5, 2, 0, 2, 1, 0};
        static const int32_t tri[] = {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7, 4, 7, 8, 0, 1, 2};
        expect_mesh(GOOD_DIR "/obj_polygons.obj", 9, xyz, 6, tri);
    }
    {
        static const double xyz[] = {1.5, -2.25, 300, 0.5, 0.25, -0.125, -1, -1, -1, 4, 5, 6};
        static const int32_t tri[] = {0, 1, 2, 0, 2, 1, 2, 1, 0, 3, 2, 1, 0, 1, 3};
        expect_mesh(GOOD_DIR "/obj_syntax.obj", 4, xyz, 5, tri);
    }
    {
        static const double xyz[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0.5, -2.5, 3.25, 1e-3};
        static const int32_t tri[] = {0, 1, 2, 0, 2, 3, 0, 3, 4, 4, 3, 2};
        expect_mesh(GOOD_DIR "/ply_ascii.ply", 5, xyz, 4, tri);
    }
    {
        static const double xyz[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, -0.5, 2.25, 10, 3, 4, 5, 6, 7, 8,
                                     9, 9, 9, 9, 9, 10, 9, 10, 9};
        static const int32_t tri[] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
        expect_mesh(GOOD_DIR "/stl_ascii.stl", 9, xyz, 3, tri);
    }
    {
        static const double xyz[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5, 1.5, -2.75};
        static const int32_t tri[] = {0, 1, 2, 0, 2, 3, 0, 3, 4, 0, 1, 2, 0, 2, 3, 0, 3, 4};
        expect_mesh(GOOD_DIR "/off_basic.off", 5, xyz, 6, tri);
    }
    {
        static const double xyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
        static const int32_t tri[] = {0, 1, 2};
        expect_mesh(GOOD_DIR "/off_coff.off", 3, xyz, 1, tri);
    }
    {
        static const double xyz[] = {0, 0, 0, 2, 0, 0, 2, 2, 0, 0, 2, 0};
        static const int32_t tri[] = {0, 1, 2, 0, 2, 3};
        expect_mesh(GOOD_DIR "/off_noff_inline.off", 4, xyz, 2, tri);
    }
    {   /* CRLF line ends, a quad, and no newline after the last line. */
        static const char text[] = "# crlf\r\nv 0 0 0\r\nv 1 0 0\r\nv 1 1 0\r\nv 0 1 0\r\n\r\nf 1 2 3 4\r\nf 4 3 1";
        static const double xyz[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
        static const int32_t tri[] = {0, 1, 2, 0, 2, 3, 3, 2, 0};
        expect_mesh(write_tmp("crlf.obj", text, sizeof text - 1), 4, xyz, 3, tri);
        /* The extension is matched in any case. */
        expect_mesh(write_tmp("upper.OBJ", text, sizeof text - 1), 4, xyz, 3, tri);
    }
    {   /* A PLY header with CRLF line ends. */
        static const char text[] = "ply\r\nformat ascii 1.0\r\nelement vertex 3\r\nproperty double x\r\n"
                                   "property double y\r\nproperty double z\r\nelement face 1\r\n"
                                   "property list uchar uint vertex_indices\r\nend_header\r\n"
                                   "0 0 0\r\n1 0 0\r\n0 1 0.125\r\n3 2 1 0\r\n";
        static const double xyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0.125};
        static const int32_t tri[] = {2, 1, 0};
        expect_mesh(write_tmp("crlf.ply", text, sizeof text - 1), 3, xyz, 1, tri);
    }
}

/* The mesh in every binary PLY below: 5 vertices, a triangle, a quad and a
 * pentagon (6 triangles in fan order). */
static const double ply_xyz_real[] = {0, 0, 0, 1.5, 0, 0, 1, 1.25, 0.1, -0.5, 1, 0.75, 0.25, -2.2, -3};
static const double ply_xyz_int[] = {0, 0, 0, 3, 0, 0, 2, 5, 0, -1, 4, 7, 1, 2, -12};
static const int ply_face_n[] = {3, 4, 5};
static const int ply_face_idx[] = {0, 1, 2, /**/ 1, 2, 3, 4, /**/ 0, 1, 2, 3, 4};
static const int32_t ply_tri[] = {0, 1, 2, 1, 2, 3, 1, 3, 4, 0, 1, 2, 0, 2, 3, 0, 3, 4};

/* Writes the test mesh as a binary PLY with the given byte order, coordinate
 * type, face list count and index types and list name, with extra vertex
 * properties (normal, colour, a list, a double), an element "edge" with a
 * list between vertex and face, extra face properties before and after the
 * indices, and a fixed-size element "material" after the faces.  Returns the
 * byte offset where the face element's body starts. */
static size_t make_ply(bytes *o, int big, const char *ctype, const char *count_type, const char *index_type,
                       const char *list_name)
{
    char hdr[1024];
    snprintf(hdr, sizeof hdr,
             "ply\nformat %s 1.0\ncomment written by test_mesh_io.c\nobj_info none\n"
             "element vertex 5\nproperty %s x\nproperty %s y\nproperty %s z\n"
             "property float nx\nproperty float ny\nproperty float nz\n"
             "property uchar red\nproperty uchar green\nproperty uchar blue\n"
             "property list uchar int16 vlist\nproperty double confidence\n"
             "element edge 2\nproperty int vertex1\nproperty int vertex2\nproperty list uint8 uint32 tags\n"
             "element face 3\nproperty uchar flags\nproperty list %s %s %s\n"
             "property list uchar float uv\nproperty double area\n"
             "element material 2\nproperty float shininess\nproperty uchar r\n"
             "end_header\n",
             big ? "binary_big_endian" : "binary_little_endian", ctype, ctype, ctype, count_type, index_type,
             list_name);
    o->n = 0;
    o->big = big;
    put_text(o, hdr);
    const double *xyz = ctype[0] == 'f' || ctype[0] == 'd' ? ply_xyz_real : ply_xyz_int; /* signed types only */
    for (int v = 0; v < 5; ++v) {
        for (int c = 0; c < 3; ++c) put_ply(o, ctype, xyz[3 * v + c]);
        put_ply(o, "float", 0), put_ply(o, "float", 0), put_ply(o, "float", 1);
        put_ply(o, "uchar", 255), put_ply(o, "uchar", v), put_ply(o, "uchar", 0);
        put_ply(o, "uchar", v); /* vlist: v entries */
        for (int k = 0; k < v; ++k) put_ply(o, "int16", -k);
        put_ply(o, "double", 0.5);
    }
    for (int e = 0; e < 2; ++e) {
        put_ply(o, "int", e), put_ply(o, "int", e + 1);
        put_ply(o, "uint8", 2), put_ply(o, "uint32", 7), put_ply(o, "uint32", 8);
    }
    size_t face_at = o->n;
    for (int f = 0, at = 0; f < 3; at += ply_face_n[f], ++f) {
        put_ply(o, "uchar", 9);
        put_ply(o, count_type, ply_face_n[f]);
        for (int k = 0; k < ply_face_n[f]; ++k) put_ply(o, index_type, ply_face_idx[at + k]);
        put_ply(o, "uchar", 1), put_ply(o, "float", 0.5);
        put_ply(o, "double", 1.0);
    }
    for (int m = 0; m < 2; ++m) put_ply(o, "float", 2), put_ply(o, "uchar", 3);
    return face_at;
}

/* A binary STL: the header (padded with spaces), the count, and `records`
 * records cycling through two triangles; record 0 has a NaN normal, which
 * the reader ignores. */
static void make_stl(bytes *o, const char *header, uint32_t count, int records)
{
    static const float v[2][9] = {{0, 0, 0, 1, 0, 0, 0, 1, 0}, {-1.5f, 2.25f, 3, 4, 5, 6, 7, 8, 0.125f}};
    unsigned char h[80];
    memset(h, ' ', sizeof h);
    memcpy(h, header, strlen(header) < 80 ? strlen(header) : 80);
    o->n = 0;
    o->big = 0;
    put_raw(o, h, 80);
    put_uint(o, count, 4);
    for (int r = 0; r < records; ++r) {
        put_f32(o, r == 0 ? NAN : 0), put_f32(o, 0), put_f32(o, 1);
        for (int k = 0; k < 9; ++k) put_f32(o, v[r % 2][k]);
        put_uint(o, 0, 2);
    }
}

static void test_good_binary(void)
{
    /* Byte order (1: big), coordinate type, face list count and index types,
     * list name.  Float32 coordinates come back as the float nearest the
     * value written (0.1 and -2.2 are not exact in float32); float64 ones
     * exactly. */
    static const struct { int big; const char *ctype, *count, *index, *name; } cases[] = {
        {0, "double", "uchar", "uint", "vertex_indices"},
        {1, "double", "ushort", "uint", "vertex_indices"},
        {0, "float", "int", "int", "vertex_indices"},
        {1, "float32", "uint", "ushort", "vertex_index"},
        {0, "int", "char", "uchar", "vertex_index"},
        {1, "short", "uint8", "int8", "vertex_indices"},
        {0, "float64", "int16", "uint16", "vertex_indices"},
        {1, "int32", "int32", "uint32", "vertex_indices"},
    };
    bytes o;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char name[64];
        snprintf(name, sizeof name, "good%zu_%s.ply", i, cases[i].big ? "be" : "le");
        make_ply(&o, cases[i].big, cases[i].ctype, cases[i].count, cases[i].index, cases[i].name);
        const char *ct = cases[i].ctype;
        int real = ct[0] == 'f' || ct[0] == 'd';
        int single = !strcmp(ct, "float") || !strcmp(ct, "float32");
        double want[15];
        for (int k = 0; k < 15; ++k)
            want[k] = !real ? ply_xyz_int[k] : single ? (double)(float)ply_xyz_real[k] : ply_xyz_real[k];
        expect_mesh(write_tmp(name, o.b, o.n), 5, want, 6, ply_tri);
    }

    /* STL: an ordinary header, and one that begins with "solid" (still
     * binary: 84 + 50 * count is the file size). */
    static const double sxyz[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, -1.5, 2.25, 3, 4, 5, 6, 7, 8, 0.125};
    static const int32_t stri[] = {0, 1, 2, 3, 4, 5};
    make_stl(&o, "binary STL written by test_mesh_io.c", 2, 2);
    expect_mesh(write_tmp("plain.stl", o.b, o.n), 6, sxyz, 2, stri);
    make_stl(&o, "solid but binary", 2, 2);
    CHECK(!memcmp(o.b, "solid ", 6) && o.n == 84 + 2 * 50, "STL test file layout");
    expect_mesh(write_tmp("solid_header.stl", o.b, o.n), 6, sxyz, 2, stri);
}

/* ---- 3. bad files --------------------------------------------------------------------- */

static void test_bad_text(void)
{
    static const struct { const char *file, *where, *what; } cases[] = {
        {"obj_index_range.obj", ":4:", "out of range"},
        {"obj_index_zero.obj", ":4:", "index 0"},
        {"obj_negative_range.obj", ":4:", "'-4' out of range"},
        {"obj_forward_reference.obj", ":2:", "out of range"},
        {"obj_huge_index.obj", ":4:", "out of range"},
        {"obj_nan.obj", ":2:", "not finite"},
        {"obj_inf.obj", ":3:", "not finite"},
        {"obj_overflow.obj", ":1:", "not finite"},
        {"obj_garbage_number.obj", ":2:", "'2.o' is not a number"},
        {"obj_garbage_index.obj", ":4:", "malformed face vertex '3x'"},
        {"obj_bad_reference.obj", ":4:", "malformed face vertex"},
        {"obj_two_vertex_face.obj", ":5:", "face has 2 vertices"},
        {"obj_short_vertex.obj", ":2:", "2 coordinates"},
        {"obj_empty.obj", ":1:", "empty file"},
        {"obj_no_faces.obj", ":4:", "no faces"},

        {"ply_empty.ply", ":1:", "empty file"},
        {"ply_not_ply.ply", ":1:", "not a PLY file"},
        {"ply_unknown_format.ply", ":2:", "unknown PLY format 'binary_middle_endian'"},
        {"ply_unknown_type.ply", ":4:", "unknown property type 'float128'"},
        {"ply_missing_end_header.ply", ":8:", "missing end_header"},
        {"ply_no_vertex.ply", ":5:", "no vertex element"},
        {"ply_vertex_without_z.ply", ":3:", "no scalar property 'z'"},
        {"ply_no_face.ply", ":7:", "no face element"},
        {"ply_zero_faces.ply", ":7:", "no faces"},
        {"ply_float_list_count.ply", ":8:", "not an integer type"},
        {"ply_float_indices.ply", ":7:", "no integer list property 'vertex_indices'"},
        {"ply_ascii_huge_count.ply", ":3:", "1000000000 entries"},
        {"ply_ascii_index_range.ply", ":13:", "vertex index 3 out of range"},
        {"ply_ascii_few_faces.ply", ":13:", "file ends after 1 of 2 face"},
        {"ply_ascii_few_vertices.ply", ":13:", "too many values for vertex 3"},
        {"ply_ascii_extra_line.ply", ":14:", "extra data"},
        {"ply_ascii_nan.ply", ":11:", "not finite"},
        {"ply_ascii_garbage.ply", ":11:", "'0.5abc' is not a valid float32"},
        {"ply_ascii_two_vertex_face.ply", ":13:", "face 0 has 2 vertices"},
        {"ply_ascii_short_list.ply", ":13:", "too few values for face 0"},
        {"ply_ascii_uchar_range.ply", ":13:", "'300' is not in the range of uint8"},

        {"off_empty.off", ":1:", "empty file"},
        {"off_bad_header.off", ":1:", "not an OFF file"},
        {"off_index_range.off", ":6:", "'3' out of range"},
        {"off_negative_index.off", ":6:", "'-1' out of range"},
        {"off_few_faces.off", ":8:", "file ends after 1 of 2 faces"},
        {"off_few_vertices.off", ":6:", "vertex 3 has more than 3 values"},
        {"off_extra_lines.off", ":7:", "extra data"},
        {"off_huge_count.off", ":2:", "'1000000000000000000' is more than"},
        {"off_counts_exceed_file.off", ":2:", "cannot fit"},
        {"off_inf.off", ":4:", "not finite"},
        {"off_two_vertex_face.off", ":6:", "face 0 has 2 vertices"},
        {"off_garbage.off", ":4:", "'zero' is not a number"},
        {"off_missing_index.off", ":7:", "3 of its 4 indices"},
        {"off_zero_faces.off", ":2:", "no faces"},
        {"off_vertex_extra_value.off", ":3:", "more than 3 values"},

        {"stl_empty.stl", ": byte 0:", "empty file"},
        {"stl_not_stl.stl", ": byte 6:", "not an STL file"},
        {"stl_ascii_truncated.stl", ":5:", "the file ends"},
        {"stl_ascii_nan.stl", ":5:", "not finite"},
        {"stl_ascii_garbage.stl", ":6:", "expected a number, got 'abc'"},
        {"stl_ascii_two_vertices.stl", ":6:", "facet has 2 vertices"},
        {"stl_ascii_four_vertices.stl", ":7:", "more than 3 vertices"},
        {"stl_ascii_no_endsolid.stl", ":8:", "missing endsolid"},
        {"stl_ascii_no_facets.stl", ":2:", "no faces"},
        {"stl_ascii_trailing_text.stl", ":10:", "got 'this'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", BAD_DIR, cases[i].file);
        expect_bad(path, cases[i].where, cases[i].what);
    }
}

static void test_bad_binary(void)
{
    bytes o;
    char where[64];
    const size_t face_at = make_ply(&o, 0, "double", "uchar", "uint", "vertex_indices");
    const bytes good = o;
    /* face 0 at face_at: flags (1 byte), count (1), 3 uint32 indices, uv
     * count (1) and 1 float, area (8). */
    const size_t face1_at = face_at + 1 + 1 + 12 + 1 + 4 + 8;

    /* Truncated in vertex 0: so few bytes are left that the header's counts
     * cannot fit, which is found before reading the body. */
    const size_t body_at = (size_t)(strstr((const char *)good.b, "end_header\n") - (const char *)good.b) + 11;
    o.n = body_at + 8 + 5;
    expect_bad(write_tmp("truncated_vertex.ply", o.b, o.n), ":5:", "element 'vertex' declares 5 entries");

    /* Truncated in face 2's last property, a double (face 1 holds 4
     * indices, face 2 5; 15 bytes missing is within what the lists add to
     * the minimum size, so the body is read until the data runs out). */
    const size_t face2_at = face1_at + 1 + 1 + 16 + 1 + 4 + 8;
    o.n = face2_at + 1 + 1 + 20 + 1 + 4 + 3;
    snprintf(where, sizeof where, ": byte %zu:", face2_at + 1 + 1 + 20 + 1 + 4);
    expect_bad(write_tmp("truncated_face2.ply", o.b, o.n), where, "file ends inside face 2");

    /* Truncated in the middle of face 1's indices: its count already says
     * the list cannot fit. */
    o.n = face1_at + 1 + 1 + 6;
    snprintf(where, sizeof where, ": byte %zu:", face1_at + 1);
    expect_bad(write_tmp("truncated_face.ply", o.b, o.n), where, "face 1: list of 4 entries runs past the end");

    /* Face 0's list count 255: its indices would run past the end. */
    o = good;
    o.b[face_at + 1] = 255;
    snprintf(where, sizeof where, ": byte %zu:", face_at + 1);
    expect_bad(write_tmp("list255.ply", o.b, o.n), where, "list of 255 entries runs past the end");

    /* Face 0's count 2. */
    o = good;
    o.b[face_at + 1] = 2;
    snprintf(where, sizeof where, ": byte %zu:", face_at + 1);
    expect_bad(write_tmp("two_vertex_face.ply", o.b, o.n), where, "face 0 has 2 vertices");

    /* Face 0's second index 5 (of 5 vertices). */
    o = good;
    o.b[face_at + 2 + 4] = 5;
    snprintf(where, sizeof where, ": byte %zu:", face_at + 2 + 4);
    expect_bad(write_tmp("index_range.ply", o.b, o.n), where, "vertex index 5 out of range");

    /* Three stray bytes after the last element. */
    o = good;
    put_text(&o, "\n\n\n");
    snprintf(where, sizeof where, ": byte %zu:", good.n);
    expect_bad(write_tmp("extra_bytes.ply", o.b, o.n), where, "3 bytes of extra data");

    /* The last (fixed-size, skipped) element cut short. */
    o = good;
    o.n -= 1;
    snprintf(where, sizeof where, ": byte %zu:", good.n - 10);
    expect_bad(write_tmp("material_truncated.ply", o.b, o.n), where, "element 'material'");

    /* NaN and infinite coordinates, little and big endian. */
    {
        const char *hdr = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty double x\n"
                          "property double y\nproperty double z\nelement face 1\n"
                          "property list uchar int vertex_indices\nend_header\n";
        o.n = 0, o.big = 0;
        put_text(&o, hdr);
        size_t body = o.n;
        for (int k = 0; k < 9; ++k) put_f64(&o, k == 4 ? NAN : k);
        put_ply(&o, "uchar", 3), put_ply(&o, "int", 0), put_ply(&o, "int", 1), put_ply(&o, "int", 2);
        snprintf(where, sizeof where, ": byte %zu:", body + 4 * 8);
        expect_bad(write_tmp("nan.ply", o.b, o.n), where, "vertex 1: coordinate y is not finite");

        hdr = "ply\nformat binary_big_endian 1.0\nelement vertex 3\nproperty float x\n"
              "property float y\nproperty float z\nelement face 1\n"
              "property list uchar int vertex_indices\nend_header\n";
        o.n = 0, o.big = 1;
        put_text(&o, hdr);
        body = o.n;
        for (int k = 0; k < 9; ++k) put_f32(&o, k == 8 ? -INFINITY : (float)k);
        put_ply(&o, "uchar", 3), put_ply(&o, "int", 0), put_ply(&o, "int", 1), put_ply(&o, "int", 2);
        snprintf(where, sizeof where, ": byte %zu:", body + 8 * 4);
        expect_bad(write_tmp("inf_be.ply", o.b, o.n), where, "vertex 2: coordinate z is not finite");

        /* A signed list count of -1. */
        hdr = "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
              "property float y\nproperty float z\nelement face 1\n"
              "property list char int vertex_indices\nend_header\n";
        o.n = 0, o.big = 0;
        put_text(&o, hdr);
        body = o.n;
        for (int k = 0; k < 9; ++k) put_f32(&o, (float)k);
        put_ply(&o, "char", -1), put_ply(&o, "int", 0), put_ply(&o, "int", 1), put_ply(&o, "int", 2);
        snprintf(where, sizeof where, ": byte %zu:", body + 36);
        expect_bad(write_tmp("negative_count.ply", o.b, o.n), where, "negative list count");
    }

    /* Absurd counts, refused from the header before allocating: 2^40
     * vertices, and 10^8 vertices (under INT32_MAX) in a 300-byte file. */
    {
        const char *fmt = "ply\nformat binary_little_endian 1.0\nelement vertex %s\nproperty double x\n"
                          "property double y\nproperty double z\nelement face 1\n"
                          "property list uchar int vertex_indices\nend_header\n";
        char hdr[512];
        snprintf(hdr, sizeof hdr, fmt, "1099511627776");
        o.n = 0, o.big = 0;
        put_text(&o, hdr);
        for (int k = 0; k < 9; ++k) put_f64(&o, k);
        put_ply(&o, "uchar", 3), put_ply(&o, "int", 0), put_ply(&o, "int", 1), put_ply(&o, "int", 2);
        expect_bad(write_tmp("huge_vertices.ply", o.b, o.n), ":3:", "1099511627776 vertices is more than");

        snprintf(hdr, sizeof hdr, fmt, "100000000");
        o.n = 0;
        put_text(&o, hdr);
        for (int k = 0; k < 9; ++k) put_f64(&o, k);
        put_ply(&o, "uchar", 3), put_ply(&o, "int", 0), put_ply(&o, "int", 1), put_ply(&o, "int", 2);
        expect_bad(write_tmp("vertices_vs_size.ply", o.b, o.n), ":3:", "100000000 entries");
    }

    /* Binary STL: truncated (3 triangles declared, 2 present); a count of
     * 2^31 in a 100-byte file; a "solid" header, truncated; trailing bytes;
     * a NaN coordinate; a count of 0. */
    make_stl(&o, "binary", 3, 2);
    expect_bad(write_tmp("truncated.stl", o.b, o.n), ": byte 184:", "file ends inside triangle 2 of 3");
    make_stl(&o, "binary", 0x80000000u, 0);
    put_raw(&o, "0123456789abcdef", 16);
    CHECK(o.n == 100, "huge-count STL is 100 bytes");
    expect_bad(write_tmp("huge_count.stl", o.b, o.n), ": byte 84:", "triangle 0 of 2147483648");
    make_stl(&o, "solid truncated binary", 2, 1);
    expect_bad(write_tmp("solid_truncated.stl", o.b, o.n), ": byte 134:", "file ends inside triangle 1 of 2");
    make_stl(&o, "binary", 1, 1);
    put_raw(&o, "0123456789", 10);
    expect_bad(write_tmp("extra.stl", o.b, o.n), ": byte 134:", "10 bytes of extra data");
    make_stl(&o, "binary", 2, 2);
    {
        float nanf_ = NAN;
        uint32_t u;
        memcpy(&u, &nanf_, 4);
        size_t at = 84 + 50 + 12 + 4 * 5; /* triangle 1, vertex 1, z */
        for (int k = 0; k < 4; ++k) o.b[at + (size_t)k] = (unsigned char)(u >> (8 * k));
        snprintf(where, sizeof where, ": byte %zu:", at);
        expect_bad(write_tmp("nan.stl", o.b, o.n), where, "triangle 1: vertex 1 coordinate z is not finite");
    }
    make_stl(&o, "binary", 0, 0);
    expect_bad(write_tmp("zero.stl", o.b, o.n), ": byte 80:", "no faces");

    /* A NUL byte inside OBJ text. */
    static const char nul_obj[] = "v 0 0 0\nv 1\0 0 0\nv 0 1 0\nf 1 2 3\n";
    expect_bad(write_tmp("nul.obj", nul_obj, sizeof nul_obj - 1), ":2:", "NUL byte");

    /* A triangle with a repeated vertex index is refused, naming the face (a polygon's fan
     * triangles counted); zero-area triangles of three distinct vertices are kept. */
    static const char rep_obj[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 2 0 0\nf 1 2 3\nf 1 2 3 3\n";
    expect_bad(write_tmp("repeated.obj", rep_obj, sizeof rep_obj - 1), ": face 2 (0-based",
               "repeated vertex index 2");
    static const char rep_off[] = "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 1 1 2\n";
    expect_bad(write_tmp("repeated.off", rep_off, sizeof rep_off - 1), ": face 1 (0-based",
               "repeated vertex index 1");
    static const char flat_obj[] = "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\n";
    const double flat_xyz[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0};
    const int32_t flat_tri[3] = {0, 1, 2};
    expect_mesh(write_tmp("flat.obj", flat_obj, sizeof flat_obj - 1), 3, flat_xyz, 1, flat_tri);
}

static void test_misc(void)
{
    clash_mesh m;
    clash_error e;
    /* Missing file, unknown extension, a directory. */
    const char *missing = GOOD_DIR "/no_such_file.obj";
    int rc = load(missing, &m, &e);
    CHECK(rc == CLASH_EINPUT && !strncmp(e.msg, missing, strlen(missing)) && strstr(e.msg, ": cannot open: "),
          "missing file: rc %d '%s'", rc, e.msg);
    CHECK(is_zeroed(&m), "missing file: mesh not zeroed");

    const char *unknown = GOOD_DIR "/obj_polygons.xyz";
    rc = load(unknown, &m, &e);
    CHECK(rc == CLASH_EINPUT && !strncmp(e.msg, unknown, strlen(unknown)) && strstr(e.msg, "unknown mesh file type"),
          "unknown extension: rc %d '%s'", rc, e.msg);
    CHECK(is_zeroed(&m), "unknown extension: mesh not zeroed");

    rc = load(GOOD_DIR "/README", &m, &e);
    CHECK(rc == CLASH_EINPUT && strstr(e.msg, "unknown mesh file type"), "no extension: rc %d '%s'", rc, e.msg);

    char dir[700];
    snprintf(dir, sizeof dir, "%s/dir.obj", tmpdir);
    if (mkdir(dir, 0700) == 0) {
        rc = load(dir, &m, &e);
        CHECK(rc == CLASH_EINPUT && !strncmp(e.msg, dir, strlen(dir)), "directory: rc %d '%s'", rc, e.msg);
        CHECK(is_zeroed(&m), "directory: mesh not zeroed");
        rmdir(dir);
    }

    /* The per-format entry points can be called directly, whatever the name. */
    rc = clash_mesh_load_off(GOOD_DIR "/off_basic.off", &m, &e);
    CHECK(rc == CLASH_OK && m.nfaces == 6, "clash_mesh_load_off: rc %d", rc);
    clash_mesh_free(&m);
    clash_mesh_free(NULL);
}

int main(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/clash_mesh_io_XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "test_mesh_io: mkdtemp(%s) failed\n", tmpdir);
        return 1;
    }
    test_shared_data();
    test_good_text();
    test_good_binary();
    test_bad_text();
    test_bad_binary();
    test_misc();
    CHECK(nbad >= 25, "only %d bad-file cases", nbad);
    cleanup_tmp();
    return check_finish("test_mesh_io");
}
