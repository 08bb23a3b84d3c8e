/*
 * error.h — filling a clash_error, and the nearest known name for a
 * message about an unknown one.
 *
 * Every failure travels up as a return code plus a message in a caller-owned
 * clash_error.  Messages name the file and the place: "FILE:LINE: what" for
 * text formats, "FILE: byte OFFSET: what" for binary ones, "FILE: KEY.PATH:
 * what" for scene JSON.  The command prints them as "clash: error: MSG".
 */
#ifndef CLASH_ERROR_H
#define CLASH_ERROR_H

#include <stdarg.h>

#include "clash/clash.h"

#if defined(__GNUC__)
#define CLASH_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLASH_PRINTF(a, b)
#endif

/* Sets err (when non-NULL) and returns code, so callers can write
 * `return clash_fail(err, CLASH_EINPUT, "%s:%ld: bad index", path, line);` */
int clash_fail(clash_error *err, int code, const char *fmt, ...) CLASH_PRINTF(3, 4);
/* The same with the arguments as a va_list (for other printf-like fronts). */
int clash_vfail(clash_error *err, int code, const char *fmt, va_list ap) CLASH_PRINTF(3, 0);

/* Edit distance between a and b: insertions, deletions, substitutions and
 * transpositions of two neighbouring characters each cost 1 (the
 * "optimal string alignment" distance).  Strings longer than 63 characters
 * count as far from everything (returns a large number). */
int clash_edit_distance(const char *a, const char *b);

/* The name in the NULL-terminated list nearest to word, when it is near
 * enough to be a slip of the keyboard: distance at most 2, and at most a
 * third of the longer word's length, leading dashes not counted (so "--ccd"
 * suggests nothing, "--thread" suggests "--threads", "positon" suggests
 * "position").  NULL when none is.  Used for command-line options and
 * scene-file keys alike. */
const char *clash_suggest(const char *word, const char *const *names);

#endif
