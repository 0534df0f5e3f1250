/*
 * diff.h - `cddlgen diff OLD NEW`: what changed between two versions of a
 * schema, rule by rule and member by member, and whether each change is
 * compatible backward (the new schema accepts everything the old one did:
 * new readers read old writers) and forward (the old schema accepts
 * everything the new one can produce: old readers read new writers).
 * The policy is written at the top of diff.c.
 */
#ifndef CDDLGEN_DIFF_H
#define CDDLGEN_DIFF_H

#include <stdio.h>

#include "diag.h"

/* Which compatibility decides the exit status. */
typedef enum diff_direction { DIFF_BOTH, DIFF_BACKWARD, DIFF_FORWARD } diff_direction;

/*
 * Loads, checks and lowers both schemas, then prints one line per change to
 * `out`, in schema order:
 *
 *   FILE:LINE: RULE[.member]: added|removed|changed: WHAT; backward: ok|BREAKS; forward: ok|BREAKS
 *
 * (FILE:LINE of the new definition, or of the old one for a removal) and a
 * final `N changes: B break backward, F break forward`. Diagnostics go to `d`
 * (warnings are not shown, and stay switched off in `d`: `cddlgen check` is
 * the place for them).
 * Returns 0 when nothing breaks in the direction(s) `dir` checks, 1 when
 * something does, 2 when a schema cannot be read or has errors (nothing is
 * printed to `out` then).
 */
int diff_schemas(const char *old_path, const char *new_path, diff_direction dir, FILE *out, diag_ctx *d);

/*
 * The command line after the word `diff`:
 * `[--direction backward|forward|both] OLD NEW`. Returns the exit status
 * (2 for a usage error, after printing what was wrong).
 */
int diff_command(int argc, char **argv);

#endif /* CDDLGEN_DIFF_H */
