/*
 * error.c — filling a clash_error, and the "did you mean" of error messages
 * (see error.h).
 *
 * The distance is the optimal-string-alignment variant of Damerau's
 * distance (Damerau 1964; Levenshtein 1966): the usual dynamic programme
 * over prefixes, d[i][j] = min(d[i-1][j] + 1, d[i][j-1] + 1,
 * d[i-1][j-1] + [a_i != b_j]), plus d[i-2][j-2] + 1 when the last two
 * characters are swapped ("--tehreads").  Names (options, scene keys) are
 * short, so the full table (at most 64 x 64) lives on the stack.
 */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int clash_vfail(clash_error *err, int code, const char *fmt, va_list ap)
{
    if (err) {
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        err->code = code;
    }
    return code;
}

int clash_fail(clash_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    clash_vfail(err, code, fmt, ap);
    va_end(ap);
    return code;
}

#define MAXLEN 63

int clash_edit_distance(const char *a, const char *b)
{
    const size_t n = strlen(a), m = strlen(b);
    if (n > MAXLEN || m > MAXLEN) return 1 << 20;
    int d[MAXLEN + 1][MAXLEN + 1];
    for (size_t i = 0; i <= n; ++i) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; ++j) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; ++i)
        for (size_t j = 1; j <= m; ++j) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[n][m];
}

/* Length without leading dashes: "--ccd" is a 3-letter word. */
static size_t core_len(const char *s)
{
    while (*s == '-') ++s;
    return strlen(s);
}

const char *clash_suggest(const char *word, const char *const *names)
{
    const char *best = NULL;
    int bestd = 3;
    for (int i = 0; names[i]; ++i) {
        const int d = clash_edit_distance(word, names[i]);
        size_t len = core_len(word) > core_len(names[i]) ? core_len(word) : core_len(names[i]);
        if (d < bestd && (size_t)(3 * d) <= len) best = names[i], bestd = d;
    }
    /* Else a name the word begins, if only one does ("angular_velocity" for
     * "angular_velocity_deg": the word is right, a suffix is missing). */
    if (!best && core_len(word) >= 3) {
        const size_t n = strlen(word);
        for (int i = 0; names[i]; ++i)
            if (!strncmp(word, names[i], n)) {
                if (best) return NULL; /* more than one: no guess */
                best = names[i];
            }
    }
    return best;
}
