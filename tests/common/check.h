/*
 * check.h — the tiny assertion harness of clash's C tests.
 *
 * CHECK(cond, fmt, ...) records a failure with file and line and carries on;
 * a test's main ends with `return check_finish("name");`, which prints
 * "name: N checks, M failed" and returns non-zero when anything failed.
 * check_skip("why") prints the reason and returns 77, which CTest reports as
 * skipped (SKIP_RETURN_CODE), e.g. when ../shared/data is missing.
 */
#ifndef CLASH_TESTS_CHECK_H
#define CLASH_TESTS_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long check_count_, check_failed_;

#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        ++check_count_;                                                           \
        if (!(cond)) {                                                            \
            ++check_failed_;                                                      \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                         \
            fputc('\n', stderr);                                                  \
        }                                                                         \
    } while (0)

static inline int check_finish(const char *name)
{
    printf("%s: %ld checks, %ld failed\n", name, check_count_, check_failed_);
    return check_failed_ ? 1 : (check_count_ ? 0 : 1);
}

static inline int check_skip(const char *why)
{
    printf("SKIP: %s\n", why);
    return 77;
}

/* Path of ../shared/data (set by CMake as CLASH_DATA_DIR), or NULL when the
 * folder is missing; tests that need it skip with a message. */
#include <sys/stat.h>
static inline const char *check_data_dir(void)
{
#ifdef CLASH_DATA_DIR
    struct stat st;
    if (stat(CLASH_DATA_DIR, &st) == 0 && S_ISDIR(st.st_mode)) return CLASH_DATA_DIR;
#endif
    return NULL;
}

/* The whole file as a NUL-terminated string (malloc'd), or NULL. */
static inline char *check_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) s[fread(s, 1, (size_t)n, f)] = 0;
    fclose(f);
    return s;
}

#endif
