/* error.c — see error.h. */
#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>

int clash_fail(clash_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}
