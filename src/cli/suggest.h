/*
 * suggest.h — "did you mean" for the command line: the known name nearest
 * to a mistyped one, by edit distance (clash_internal_suggest, the rule
 * the scene-file reader uses too).
 */
#ifndef CLASH_CLI_SUGGEST_H
#define CLASH_CLI_SUGGEST_H

#include <stddef.h>

#include "clash_internal.h"

/* Writes "; did you mean 'NAME'?" into buf when clash_suggest finds a
 * name, else "" — ready to append to an error message.  Returns buf. */
const char *clash_suggest_hint(const char *word, const char *const *names, char *buf, size_t n);

#endif
