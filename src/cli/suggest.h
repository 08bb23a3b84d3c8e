/*
 * suggest.h — "did you mean" for the command line: the known name nearest
 * to a mistyped one, by edit distance.
 */
#ifndef CLASH_CLI_SUGGEST_H
#define CLASH_CLI_SUGGEST_H

#include <stddef.h>

/* Edit distance between a and b: insertions, deletions, substitutions and
 * transpositions of two neighbouring characters each cost 1 (the
 * "optimal string alignment" distance).  Strings longer than 63 characters
 * count as far from everything (returns a large number). */
int clash_edit_distance(const char *a, const char *b);

/* The name in the NULL-terminated list nearest to word, when it is near
 * enough to be a slip of the keyboard: distance at most 2, and at most a
 * third of the longer word's length (so "--ccd" suggests nothing, "--thread"
 * suggests "--threads").  NULL when none is. */
const char *clash_suggest(const char *word, const char *const *names);

/* Writes "; did you mean 'NAME'?" into buf when clash_suggest finds a
 * name, else "" — ready to append to an error message.  Returns buf. */
const char *clash_suggest_hint(const char *word, const char *const *names, char *buf, size_t n);

#endif
