/*
 * vtk.c — writing a run as a ParaView time series (see vtk.h).
 *
 * A step file is VTK XML PolyData:
 *
 *   <VTKFile type="PolyData" version="1.0" byte_order="LittleEndian" header_type="UInt64">
 *    <PolyData><Piece NumberOfPoints="NV" NumberOfPolys="NF" ...>
 *     <Points>   Float64, 3 components: x y z of every store vertex (the store's
 *                doubles, the host's coordinates bit for bit)
 *     <Polys>    connectivity (3 global vertex indices per face), offsets (3, 6, 9, ...)
 *     <CellData> object, face, colliding (one value per face)
 *
 * in one of two encodings (VTK's "VTK File Formats", XML section):
 *
 *   binary (default)  every DataArray is format="appended" offset="K": its
 *                     bytes sit after the XML in <AppendedData
 *                     encoding="raw">, which opens with '_'; at byte K after
 *                     the '_' comes a UInt64 byte count, then the values in
 *                     the machine's byte order (byte_order says which).  No
 *                     base64, no compression: the file is the arrays' own
 *                     size plus a few hundred bytes of XML, about a quarter
 *                     of the ASCII file, and is written with large fwrite()s.
 *   ascii             the values as decimal text inside each DataArray.
 *
 * Offsets are Int32 while 3 * NF fits, else Int64.
 *
 * The vertices are the scene store's (scene.h), in store order, so the
 * store's face index arrays f0/f1/f2 are the connectivity as they are; a
 * face's object comes from the object face ranges fofs[].  The collision
 * flag marks both faces of every pair of the step.
 *
 * The index (clash.pvd) is a VTK "Collection": one <DataSet timestep="s"
 * file="step_NNNNNN.vtp"/> per step written.
 */
#include "out/vtk.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "store/scene.h"

struct clash_vtk {
    clash_scene *sc;
    char *dir, *tmp;
    int *steps;
    int nsteps, cap;
    int format;           /* CLASH_VTK_BINARY or CLASH_VTK_ASCII */
    unsigned char *flag;  /* nf */
};

/* Staging buffer of the binary writer: values are packed here and written
 * with one fwrite per VTK_BUF bytes. */
#define VTK_BUF 65536
typedef struct vbuf {
    FILE *f;
    size_t n;
    int bad;
    unsigned char b[VTK_BUF];
} vbuf;

static void vb_put(vbuf *w, const void *p, size_t n)
{
    if (w->n + n > VTK_BUF) {
        w->bad |= fwrite(w->b, 1, w->n, w->f) != w->n;
        w->n = 0;
    }
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

static void vb_flush(vbuf *w)
{
    w->bad |= fwrite(w->b, 1, w->n, w->f) != w->n;
    w->n = 0;
}

static void vb_header(vbuf *w, uint64_t bytes) { vb_put(w, &bytes, sizeof bytes); }

static const char *host_byte_order(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c ? "LittleEndian" : "BigEndian";
}

/* "NAME.vtp" or "clash.pvd": the files a series consists of. */
static int series_file(const char *name)
{
    size_t n = strlen(name);
    if (!strcmp(name, "clash.pvd")) return 1;
    return n > 4 && !strcmp(name + n - 4, ".vtp");
}

/* Removes the series files of a flat folder, then the folder (which stays
 * when anything else is in it). */
static void remove_flat(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        char path[4096];
        while ((e = readdir(d))) {
            if (!series_file(e->d_name)) continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            remove(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

static void vtk_free(clash_vtk *v)
{
    if (!v) return;
    free(v->dir), free(v->tmp), free(v->steps), free(v->flag);
    free(v);
}

clash_vtk *clash_vtk_open(const char *dir, clash_scene *sc, clash_error *err)
{
    struct stat st;
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') --n;   /* "out/" names the folder "out" */
    if (n == 0) {
        clash_fail(err, CLASH_EINPUT, "--vtk: empty folder name");
        return NULL;
    }
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            clash_fail(err, CLASH_EINPUT, "--vtk: %s: exists and is not a folder", dir);
            return NULL;
        }
        DIR *d = opendir(dir);
        if (!d) {
            clash_fail(err, CLASH_EINPUT, "--vtk: %s: cannot read: %s", dir, strerror(errno));
            return NULL;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || series_file(e->d_name)) continue;
            clash_fail(err, CLASH_EINPUT,
                       "--vtk: %s: holds '%s', which is not part of a clash series; name a new or empty folder",
                       dir, e->d_name);
            closedir(d);
            return NULL;
        }
        closedir(d);
    }
    clash_vtk *v = calloc(1, sizeof *v);
    if (!v || !(v->dir = malloc(n + 1)) || !(v->tmp = malloc(n + 32)) ||
        !(v->flag = malloc(sc->nf ? (size_t)sc->nf : 1))) {
        vtk_free(v);
        clash_fail(err, CLASH_EFAIL, "out of memory");
        return NULL;
    }
    memcpy(v->dir, dir, n);
    v->dir[n] = 0;
    snprintf(v->tmp, n + 32, "%s.tmp.%ld", v->dir, (long)getpid());
    remove_flat(v->tmp);   /* a leftover of an earlier run with this pid */
    if (mkdir(v->tmp, 0777) != 0) {
        clash_fail(err, CLASH_EINPUT, "--vtk: %s: cannot create: %s", v->tmp, strerror(errno));
        vtk_free(v);
        return NULL;
    }
    v->sc = sc;
    return v;
}

/* The binary (appended, raw) step file; see the header comment. */
static int write_step_binary(FILE *f, const clash_scene *sc, const unsigned char *flag)
{
    const int64_t nv = sc->nv, nf = sc->nf;
    const int wide = 3 * nf > INT32_MAX; /* offsets as Int64 */
    const uint64_t bytes[6] = {24 * (uint64_t)nv, 12 * (uint64_t)nf, (wide ? 8 : 4) * (uint64_t)nf,
                               4 * (uint64_t)nf, 4 * (uint64_t)nf, (uint64_t)nf};
    uint64_t off[6], at = 0;
    for (int k = 0; k < 6; ++k) off[k] = at, at += 8 + bytes[k];
    fprintf(f, "<?xml version=\"1.0\"?>\n"
               "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" header_type=\"UInt64\">\n"
               " <PolyData>\n"
               "  <Piece NumberOfPoints=\"%lld\" NumberOfVerts=\"0\" NumberOfLines=\"0\" NumberOfStrips=\"0\""
               " NumberOfPolys=\"%lld\">\n"
               "   <Points>\n"
               "    <DataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\" format=\"appended\""
               " offset=\"%llu\"/>\n"
               "   </Points>\n   <Polys>\n"
               "    <DataArray type=\"Int32\" Name=\"connectivity\" format=\"appended\" offset=\"%llu\"/>\n"
               "    <DataArray type=\"%s\" Name=\"offsets\" format=\"appended\" offset=\"%llu\"/>\n"
               "   </Polys>\n   <CellData Scalars=\"colliding\">\n"
               "    <DataArray type=\"Int32\" Name=\"object\" format=\"appended\" offset=\"%llu\"/>\n"
               "    <DataArray type=\"Int32\" Name=\"face\" format=\"appended\" offset=\"%llu\"/>\n"
               "    <DataArray type=\"UInt8\" Name=\"colliding\" format=\"appended\" offset=\"%llu\"/>\n"
               "   </CellData>\n  </Piece>\n </PolyData>\n"
               " <AppendedData encoding=\"raw\">\n_",
            host_byte_order(), (long long)nv, (long long)nf, (unsigned long long)off[0], (unsigned long long)off[1],
            wide ? "Int64" : "Int32", (unsigned long long)off[2], (unsigned long long)off[3],
            (unsigned long long)off[4], (unsigned long long)off[5]);
    vbuf *w = malloc(sizeof *w);
    if (!w) return -1;
    w->f = f, w->n = 0, w->bad = 0;
    vb_header(w, bytes[0]);
    for (int64_t i = 0; i < nv; ++i) {
        const int64_t v = clash_vert_store(sc, i);
        const double p[3] = {sc->dx[v], sc->dy[v], sc->dz[v]};
        vb_put(w, p, sizeof p);
    }
    vb_header(w, bytes[1]);
    for (int64_t i = 0; i < nf; ++i) {
        const int64_t g = clash_face_store(sc, i);
        const int32_t t[3] = {(int32_t)clash_vert_orig(sc, sc->f0[g]), (int32_t)clash_vert_orig(sc, sc->f1[g]),
                              (int32_t)clash_vert_orig(sc, sc->f2[g])};
        vb_put(w, t, sizeof t);
    }
    vb_header(w, bytes[2]);
    for (int64_t i = 0; i < nf; ++i) {
        const int64_t o64 = 3 * (i + 1);
        const int32_t o32 = (int32_t)o64;
        if (wide) vb_put(w, &o64, sizeof o64);
        else vb_put(w, &o32, sizeof o32);
    }
    vb_header(w, bytes[3]);
    for (int o = 0; o < sc->nobj; ++o)
        for (int64_t i = sc->fofs[o]; i < sc->fofs[o + 1]; ++i) {
            const int32_t x = o;
            vb_put(w, &x, sizeof x);
        }
    vb_header(w, bytes[4]);
    for (int o = 0; o < sc->nobj; ++o)
        for (int64_t i = sc->fofs[o]; i < sc->fofs[o + 1]; ++i) {
            const int32_t x = (int32_t)(i - sc->fofs[o]);
            vb_put(w, &x, sizeof x);
        }
    vb_header(w, bytes[5]);
    vb_flush(w);
    int bad = w->bad;
    free(w);
    if (nf) bad |= fwrite(flag, 1, (size_t)nf, f) != (size_t)nf;
    fputs("\n </AppendedData>\n</VTKFile>\n", f);
    return bad || ferror(f) ? -1 : 0;
}

static int write_step(FILE *f, const clash_scene *sc, const unsigned char *flag)
{
    const int64_t nv = sc->nv, nf = sc->nf;
    fprintf(f, "<?xml version=\"1.0\"?>\n"
               "<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
               " <PolyData>\n"
               "  <Piece NumberOfPoints=\"%lld\" NumberOfVerts=\"0\" NumberOfLines=\"0\" NumberOfStrips=\"0\""
               " NumberOfPolys=\"%lld\">\n"
               "   <Points>\n"
               "    <DataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\" format=\"ascii\">\n",
            (long long)nv, (long long)nf);
    for (int64_t i = 0; i < nv; ++i) {
        const int64_t v = clash_vert_store(sc, i);
        fprintf(f, "%.17g %.17g %.17g\n", sc->dx[v], sc->dy[v], sc->dz[v]);
    }
    fputs("    </DataArray>\n   </Points>\n   <Polys>\n"
          "    <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n", f);
    for (int64_t i = 0; i < nf; ++i) {
        const int64_t g = clash_face_store(sc, i);
        fprintf(f, "%lld %lld %lld\n", (long long)clash_vert_orig(sc, sc->f0[g]),
                (long long)clash_vert_orig(sc, sc->f1[g]), (long long)clash_vert_orig(sc, sc->f2[g]));
    }
    fprintf(f, "    </DataArray>\n    <DataArray type=\"%s\" Name=\"offsets\" format=\"ascii\">\n",
            3 * nf > INT32_MAX ? "Int64" : "Int32");
    for (int64_t i = 0; i < nf; ++i) fprintf(f, "%lld\n", 3 * (long long)(i + 1));
    fputs("    </DataArray>\n   </Polys>\n   <CellData Scalars=\"colliding\">\n"
          "    <DataArray type=\"Int32\" Name=\"object\" format=\"ascii\">\n", f);
    for (int o = 0; o < sc->nobj; ++o)
        for (int64_t i = sc->fofs[o]; i < sc->fofs[o + 1]; ++i) fprintf(f, "%d\n", o);
    fputs("    </DataArray>\n    <DataArray type=\"Int32\" Name=\"face\" format=\"ascii\">\n", f);
    for (int o = 0; o < sc->nobj; ++o)
        for (int64_t i = sc->fofs[o]; i < sc->fofs[o + 1]; ++i) fprintf(f, "%lld\n", (long long)(i - sc->fofs[o]));
    fputs("    </DataArray>\n    <DataArray type=\"UInt8\" Name=\"colliding\" format=\"ascii\">\n", f);
    for (int64_t i = 0; i < nf; ++i) fprintf(f, "%d\n", flag[i]);
    fputs("    </DataArray>\n   </CellData>\n  </Piece>\n </PolyData>\n</VTKFile>\n", f);
    return ferror(f) ? -1 : 0;
}

static int close_checked(FILE *f)
{
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

int clash_vtk_step(clash_vtk *v, int s, const clash_pairs *pairs, clash_error *err)
{
    clash_scene *sc = v->sc;
    int rc;
    if (sc->state != s && (rc = clash_scene_set_state(sc, s, err))) return rc;
    memset(v->flag, 0, sc->nf ? (size_t)sc->nf : 1);
    for (size_t i = 0; i < pairs->count; ++i) {
        const clash_pair *p = &pairs->pairs[i];
        if (p->obj_a < (uint32_t)sc->nobj && p->obj_b < (uint32_t)sc->nobj) {
            int64_t a = sc->fofs[p->obj_a] + p->face_a, b = sc->fofs[p->obj_b] + p->face_b;
            if (a < sc->fofs[p->obj_a + 1]) v->flag[a] = 1;
            if (b < sc->fofs[p->obj_b + 1]) v->flag[b] = 1;
        }
    }
    if (v->nsteps == v->cap) {
        int cap = v->cap ? 2 * v->cap : 64;
        int *q = realloc(v->steps, (size_t)cap * sizeof *q);
        if (!q) return clash_fail(err, CLASH_EFAIL, "out of memory");
        v->steps = q, v->cap = cap;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/step_%06d.vtp", v->tmp, s);
    FILE *f = fopen(path, "wb");
    if (!f) return clash_fail(err, CLASH_EFAIL, "--vtk: %s: cannot write: %s", path, strerror(errno));
    int bad = v->format == CLASH_VTK_ASCII ? write_step(f, sc, v->flag) : write_step_binary(f, sc, v->flag);
    if (close_checked(f) || bad) return clash_fail(err, CLASH_EFAIL, "--vtk: %s: write failed", path);
    v->steps[v->nsteps++] = s;
    return CLASH_OK;
}

int clash_vtk_commit(clash_vtk *v, clash_error *err)
{
    char path[4200], old[4200];
    snprintf(path, sizeof path, "%s/clash.pvd", v->tmp);
    FILE *f = fopen(path, "w");
    if (!f) {
        int rc = clash_fail(err, CLASH_EFAIL, "--vtk: %s: cannot write: %s", path, strerror(errno));
        clash_vtk_abort(v);
        return rc;
    }
    fputs("<?xml version=\"1.0\"?>\n"
          "<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"LittleEndian\">\n"
          " <Collection>\n", f);
    for (int i = 0; i < v->nsteps; ++i)
        fprintf(f, "  <DataSet timestep=\"%d\" group=\"\" part=\"0\" file=\"step_%06d.vtp\"/>\n", v->steps[i],
                v->steps[i]);
    fputs(" </Collection>\n</VTKFile>\n", f);
    if (close_checked(f)) {
        int rc = clash_fail(err, CLASH_EFAIL, "--vtk: %s: write failed", path);
        clash_vtk_abort(v);
        return rc;
    }
    /* Move an earlier series (checked at open: only series files) aside,
     * put the new one in place, then delete the old one. */
    struct stat st;
    int had_old = 0;
    snprintf(old, sizeof old, "%s.old.%ld", v->dir, (long)getpid());
    if (stat(v->dir, &st) == 0) {
        if (rename(v->dir, old) != 0) {
            int rc = clash_fail(err, CLASH_EFAIL, "--vtk: %s: cannot replace: %s", v->dir, strerror(errno));
            clash_vtk_abort(v);
            return rc;
        }
        had_old = 1;
    }
    if (rename(v->tmp, v->dir) != 0) {
        int rc = clash_fail(err, CLASH_EFAIL, "--vtk: %s: cannot rename into place: %s", v->dir, strerror(errno));
        if (had_old) rename(old, v->dir);
        clash_vtk_abort(v);
        return rc;
    }
    if (had_old) remove_flat(old);
    vtk_free(v);
    return CLASH_OK;
}

void clash_vtk_set_format(clash_vtk *v, int format) { v->format = format; }

void clash_vtk_abort(clash_vtk *v)
{
    if (!v) return;
    remove_flat(v->tmp);
    vtk_free(v);
}
