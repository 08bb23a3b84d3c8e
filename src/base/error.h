/*
 * error.h — filling a clash_error.
 *
 * Every failure travels up as a return code plus a message in a caller-owned
 * clash_error.  Messages name the file and the place: "FILE:LINE: what" for
 * text formats, "FILE: byte OFFSET: what" for binary ones, "FILE: KEY.PATH:
 * what" for scene JSON.  The command prints them as "clash: error: MSG".
 */
#ifndef CLASH_ERROR_H
#define CLASH_ERROR_H

#include "clash/clash.h"

#if defined(__GNUC__)
#define CLASH_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define CLASH_PRINTF(a, b)
#endif

/* Sets err (when non-NULL) and returns code, so callers can write
 * `return clash_fail(err, CLASH_EINPUT, "%s:%ld: bad index", path, line);` */
int clash_fail(clash_error *err, int code, const char *fmt, ...) CLASH_PRINTF(3, 4);

#endif
