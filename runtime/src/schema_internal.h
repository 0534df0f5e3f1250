/*
 * schema_internal.h - pieces shared by the schema decoder, encoder and
 * validator (see apr_schema.h). Private to the runtime.
 */
#ifndef APR_SCHEMA_INTERNAL_H
#define APR_SCHEMA_INTERNAL_H

#include "apr_schema.h"

#include <stdbool.h>

#if defined(__GNUC__) || defined(__clang__)
#define APR_LIKELY(x) __builtin_expect(!!(x), 1)
#define APR_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define APR_NOINLINE __attribute__((noinline))
#else
#define APR_LIKELY(x) (x)
#define APR_UNLIKELY(x) (x)
#define APR_NOINLINE
#endif

/* Typed values as a C struct member: the descriptors give byte offsets. */
#define APR_AT(base, off, T) ((T *)(void *)((char *)(base) + (off)))
#define APR_CAT(base, off, T) ((const T *)(const void *)((const char *)(base) + (off)))

/* The member name a field is written and matched with under `kc` (EITHER: the schema's). */
static inline const char *apr_schema_priv_key(const apr_field *f, apr_key_case kc)
{
    return kc == APR_CASE_SNAKE && f->snake != NULL ? f->snake : f->key;
}

/*
 * Writes `s` (`len` bytes) into buf between two `q` characters for a
 * message: `q`, '\\' and control bytes escaped, cut after about 60 bytes
 * (at a character boundary) with "...". Returns buf.
 */
char *apr_schema_priv_quote(char *buf, size_t cap, const char *s, size_t len, char q);

/* Writes a literal as JSON text ("text-delta", 1, true, null) into buf; returns buf. */
char *apr_schema_priv_literal(char *buf, size_t cap, const apr_literal *lit);

/*
 * Writes `expected one of "a", "b", ...` (at most 8 values, then "...")
 * into buf, plus ` or a string matching P` when `other` has a pattern
 * (` or another string` when it has none). Returns buf.
 */
char *apr_schema_priv_one_of(char *buf, size_t cap, const apr_literal *values, size_t n,
                             const apr_type *other);

/*
 * Checks a string against a text type's size bounds and pattern. On
 * failure returns APR_E_RANGE or APR_E_PATTERN with the message in msg.
 */
apr_status apr_schema_priv_check_text(const apr_type *t, const char *s, size_t len, char *msg,
                                      size_t cap);

/* True when the text type constrains anything (the slow check is needed). */
static inline bool apr_schema_priv_text_constrained(const apr_type *t, size_t len)
{
    return t->u.text.pattern != NULL || len < t->u.text.min_len || len > t->u.text.max_len;
}

/* Checks a double against a float type's bounds; message in msg on failure (APR_E_RANGE). */
apr_status apr_schema_priv_check_float(const apr_type *t, double v, char *msg, size_t cap);

/* Message for an integer outside [min, max]: "expected an integer in MIN..MAX; got V". */
void apr_schema_priv_int_range(char *buf, size_t cap, const apr_type *t, const char *got,
                               size_t got_len);

/* Equality of a decoded string with a text literal. */
static inline bool apr_schema_priv_text_is(const apr_literal *lit, const char *s, size_t len)
{
    return lit->kind == APR_LIT_TEXT && lit->len == len && (len == 0 || memcmp(lit->text, s, len) == 0);
}

/*
 * Does a value of JSON kind jk (is_int: written as an integer) fit type t?
 * A value that does not can never decode as t: choices skip such alternatives.
 */
bool apr_schema_priv_kind_fits(const apr_type *t, apr_json_kind jk, bool is_int, int depth);

/*
 * The decoder's fast path (schema_fast.c): decodes `json` into `out` (zeroed
 * first) when it is well-formed input of the usual shape, and returns true;
 * false means "not here" (anything wrong or unusual), and the exact decoder
 * must start over. What it accepts, the exact decoder accepts with the same
 * resulting value. Arena space it used is the caller's to roll back.
 * `generated`: the types that have generated decoders (apr_type.fast) are
 * read by those; else every type by the tables.
 */
bool apr_schema_priv_decode_fast(const apr_type *type, const char *json, size_t len,
                                 apr_arena *arena, void *out, const apr_decode_options *options,
                                 bool generated);

/*
 * apr_schema_validate by the descriptors alone, never a generated
 * validator: for tests that compare the two. Arguments are checked by the
 * caller.
 */
apr_status apr_schema_priv_validate_tables(const apr_type *type, const void *value, bool strict, apr_error *err);

/*
 * apr_schema_decode without the fast path: the decoder that reads through
 * the pull reader and reports every error located. Arguments are checked
 * by the caller.
 */
apr_status apr_schema_priv_decode_exact(const apr_type *type, const char *json, size_t len,
                                        apr_arena *arena, void *out, const apr_decode_options *options,
                                        apr_error *err);

#endif
