/*
 * suggest.c — "did you mean" for the command line (see suggest.h): the
 * message tail made from the library's suggester (clash_internal_suggest),
 * which the scene-file reader uses too.
 */
#include "cli/suggest.h"

#include <stdio.h>

const char *clash_suggest_hint(const char *word, const char *const *names, char *buf, size_t n)
{
    const char *s = clash_internal_suggest(word, names);
    if (s) snprintf(buf, n, "; did you mean '%s'?", s);
    else if (n) buf[0] = 0;
    return buf;
}
