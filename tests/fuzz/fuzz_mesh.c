/*
 * fuzz_mesh.c — libFuzzer target for one mesh reader (OBJ, PLY, STL or OFF).
 *
 * Built four times (tests/fuzz/CMakeLists.txt), with FUZZ_FORMAT set to the
 * reader's letter: 'o' OBJ, 'p' PLY, 's' STL, 'f' OFF.  The readers take a
 * path, so each input is written to an anonymous in-memory file (memfd) and
 * the reader opens it as /proc/self/fd/N: the bytes go through exactly the
 * code a real file goes through (mio_read_file included), without touching
 * the disk.
 *
 * What counts as a bug: anything the sanitizers see (out-of-bounds, use after
 * free, leaks, undefined behaviour), a crash or a hang, and the reader's own
 * contract broken (mesh.h): on success every index is in range, every
 * coordinate finite and there is at least one face; on failure *out is empty
 * and the message is set.  Those are checked with abort(), so libFuzzer
 * records the input.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io/mesh_io.h"

#ifndef FUZZ_FORMAT
#error "FUZZ_FORMAT must be 'o', 'p', 's' or 'f'"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int load(const char *path, clash_mesh *m, clash_error *err)
{
    switch (FUZZ_FORMAT) {
    case 'o': return clash_mesh_load_obj(path, m, err);
    case 'p': return clash_mesh_load_ply(path, m, err);
    case 's': return clash_mesh_load_stl(path, m, err);
    default: return clash_mesh_load_off(path, m, err);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    if (fd < 0) {
        fd = memfd_create("clash-fuzz", 0);
        if (fd < 0) { perror("memfd_create"); abort(); }
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) abort();

    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    clash_mesh m;
    clash_error err = {0, ""};
    int rc = load(path, &m, &err);
    if (rc == CLASH_OK) {
        if (m.nverts < 1 || m.nfaces < 1 || !m.xyz || !m.tri) abort();
        for (int64_t i = 0; i < 3 * m.nverts; ++i)
            if (!isfinite(m.xyz[i])) abort();
        for (int64_t i = 0; i < 3 * m.nfaces; ++i)
            if (m.tri[i] < 0 || m.tri[i] >= m.nverts) abort();
    } else {
        if (m.xyz || m.tri || m.nverts || m.nfaces) abort();
        if (err.msg[0] == '\0') abort();
    }
    clash_mesh_free(&m);
    return 0;
}
