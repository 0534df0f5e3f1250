/*
 * diag.h - sources, locations and gcc-style diagnostics for cddlgen.
 *
 *   schema.cddl:3:7: error: undefined name 'Foo'; did you mean 'foo'?
 *       3 | a = Foo
 *         |     ^~~
 *
 * Columns count characters (UTF-8 code points) from 1. A location is a byte
 * range in one source; line and column are computed only when a diagnostic
 * is printed, from a line table built on first use.
 */
#ifndef CDDLGEN_DIAG_H
#define CDDLGEN_DIAG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A text being compiled: a file, or the built-in prelude. */
typedef struct cddl_source {
    const char *name;   /* as shown in diagnostics */
    const char *text;   /* not NUL-terminated; may contain NUL bytes */
    size_t len;
    size_t *line_starts;/* lazily built; freed by cddl_source_deinit */
    size_t nlines;
} cddl_source;

typedef struct src_loc {
    const cddl_source *src;
    uint32_t offset;    /* first byte */
    uint32_t end;       /* one past the last byte (== offset for a point) */
} src_loc;

/* Line (1-based) and column (1-based, in characters) of a byte offset. */
void cddl_source_position(cddl_source *src, size_t offset, unsigned *line, unsigned *col);
void cddl_source_deinit(cddl_source *src);

typedef enum diag_level { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } diag_level;

/* Warning groups: each can be enabled and turned into errors on its own. */
typedef enum diag_group {
    DIAG_W_NONE = 0,
    DIAG_W_LOOSE,   /* a loose reading of the schema (errors with --strict) */
    DIAG_W_UNUSED,  /* -Wunused: rules nothing references (off by default) */
    DIAG_W_CHOICE,  /* choices with unreachable or overlapping alternatives */
    DIAG_W_NAMING,  /* C identifier collisions resolved by renaming */
    DIAG_W_SHADOW,  /* a rule that replaces a prelude definition */
    DIAG_W_RANGE,   /* ranges RFC 8610 leaves undefined (int and float bounds mixed) */
    DIAG_W_PEDANTIC,/* what RFC 8610's ABNF excludes but tools accept (tabs) */
    DIAG_W_JSON,    /* a choice alternative or optional member no JSON value can match, dropped */
    DIAG_W_COUNT
} diag_group;

/* How many errors, and how many warnings, are shown by default (cddlgen -fmax-errors=N). */
#define DIAG_MAX_ERRORS 20u
/* max_errors for no limit (-fmax-errors=0). */
#define DIAG_NO_LIMIT ((unsigned)-1)

typedef struct diag_ctx {
    FILE *out;                       /* where diagnostics go (stderr) */
    unsigned errors, warnings;
    unsigned max_errors;             /* 0: DIAG_MAX_ERRORS; shown errors, and shown warnings, each */
    unsigned char enabled[DIAG_W_COUNT];   /* set by diag_init: all but UNUSED */
    unsigned char as_error[DIAG_W_COUNT];
    int suppressed;                  /* errors not shown past max_errors */
    int suppressed_warnings;         /* warnings not shown past max_errors */
    int last_shown;                  /* whether the last error/warning was printed (for its notes) */
    /* Hashes of the diagnostics reported so far (level, place, format): one reported again at
     * the same place for the same reason (a generic instantiated twice or with a growing
     * argument, an argument lowered for its name and for its body) is dropped, not shown
     * (an error is still counted). Open addressing; when full,
     * repeats are no longer recognised, which costs only their repetition. */
    uint64_t seen[1024];
    unsigned nseen;
    unsigned repeats;                /* errors counted in `errors` but not shown as repeats */
} diag_ctx;

void diag_init(diag_ctx *d, FILE *out);

/* Reports at `loc`; a warning of a disabled group is dropped, of an as_error group counts as an error. */
void diag_report(diag_ctx *d, diag_level level, diag_group group, src_loc loc,
                 const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
void diag_vreport(diag_ctx *d, diag_level level, diag_group group, src_loc loc,
                  const char *fmt, va_list ap);

/* Whether an error (or warning) reported now would be shown, not only counted past max_errors. */
int diag_will_show(const diag_ctx *d, diag_level level);

/* A diagnostic with no location (I/O errors): `cddlgen: error: ...` or `FILE: error: ...`. */
void diag_plain(diag_ctx *d, diag_level level, const char *where, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Shortens `s` for a message: at most `max` bytes, then "...". Returns printf precision. */
int diag_clip(size_t len, int max);

#endif /* CDDLGEN_DIAG_H */
