/*
 * test_cddl.h - the front end run in process on a text, for the tests and
 * benchmarks that time it or feed it hostile input (library
 * cddlgen_test_cddl, test_cddl.c; it links the compiler, cddlgen_core).
 */
#ifndef CDDLGEN_TEST_CDDL_H
#define CDDLGEN_TEST_CDDL_H

#include <stddef.h>
#include <stdio.h>

/*
 * Parses text[0, len) (named `name` in diagnostics, which go to `sink`) and,
 * if it parsed without errors, checks it. Returns the number of errors; when
 * `nrules` is not NULL, the rules parsed go there (0 if it did not parse).
 * Running out of memory counts as one error and sets *oom (if not NULL).
 */
unsigned test_cddl_check(FILE *sink, const char *name, const char *text, size_t len, size_t *nrules,
                         int *oom);

#endif
