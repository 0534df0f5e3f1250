/*
 * validate.h - `cddlgen validate`: instances checked against a rule of any
 * schema by interpreting it (interp.c), with the runtime's schema engine:
 * the same semantics and messages as generated validators.
 */
#ifndef CDDLGEN_VALIDATE_H
#define CDDLGEN_VALIDATE_H

#include <stddef.h>

#include "diag.h"

typedef struct validate_options {
    const char *type;     /* --type RULE */
    const char *format;   /* --format: "json" selects JSON output; "jsonl"/"sse" the input */
    const char *input;    /* --input json|jsonl|sse */
    const char *output;   /* --output text|json */
    const char *key_case; /* --case schema|snake|either */
    int tolerant;         /* --tolerant: accept unknown union variants (validation reports them) */
    int strict;           /* --strict: an SSE stream that ends inside an event is an error, not a warning */
    unsigned long long max_errors; /* --max-errors: reports shown at most (0: all) */
    const char *const *features; /* --feature NAME: RFC 9165 features enabled beside "json" */
    size_t nfeatures;
} validate_options;

/*
 * Validates every record of `files` ("-": standard input; each read as a
 * stream, in bounded memory) against rule o->type of `schema`.
 * Prints `FILE:LINE: error: POINTER: message` per invalid record and
 * `N valid, M invalid` (or one JSON report). A file that is not in its
 * format (SSE whose lines are not SSE fields, bytes of which no line is
 * JSON), that holds no record, or (with o->strict) whose SSE ends inside an
 * event fails, with the reason on stderr. Returns 0 all valid, 1 some
 * invalid or a file failed (or schema errors), 2 usage or I/O errors.
 */
int validate_files(const char *schema, const char *const *files, size_t nfiles,
                   const validate_options *o, diag_ctx *d);

#endif
