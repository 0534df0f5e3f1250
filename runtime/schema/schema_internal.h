/*
 * schema_internal.h - pieces shared by the schema decoder, encoder and
 * validator (see aps/schema.h). Private to the runtime.
 */
#ifndef APS_SCHEMA_INTERNAL_H
#define APS_SCHEMA_INTERNAL_H

#include "aps/schema.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define APS_LIKELY(x) __builtin_expect(!!(x), 1)
#define APS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define APS_NOINLINE __attribute__((noinline))
#else
#define APS_LIKELY(x) (x)
#define APS_UNLIKELY(x) (x)
#define APS_NOINLINE
#endif

/* Typed values as a C struct member: the descriptors give byte offsets. */
#define APS_AT(base, off, T) ((T *)(void *)((char *)(base) + (off)))
#define APS_CAT(base, off, T) ((const T *)(const void *)((const char *)(base) + (off)))

/* The member name a field is written and matched with under `kc` (EITHER: the schema's). */
static inline const char *aps_schema_priv_key(const aps_field *f, aps_key_case kc)
{
    return kc == APS_CASE_SNAKE && f->snake != NULL ? f->snake : f->key;
}

/*
 * The checks and messages below, through aps_schema_priv_kind_fits, are
 * schema_checks.c's: the bottom of the engine's files, which the decoder,
 * its fast path and the validator call and which calls none of them.
 */

/*
 * Writes `s` (`len` bytes) into buf between two `q` characters for a
 * message: `q`, '\\' and control bytes escaped, cut after about 60 bytes
 * (at a character boundary) with "...". Returns buf.
 */
APS_INTERNAL char *aps_schema_priv_quote(char *buf, size_t cap, const char *s, size_t len, char q);

/* Writes a literal as JSON text ("text-delta", 1, true, null) into buf; returns buf. */
APS_INTERNAL char *aps_schema_priv_literal(char *buf, size_t cap, const aps_literal *lit);

/*
 * Writes `expected one of "a", "b", ...` (at most 8 values, then "...")
 * into buf, plus ` or a string matching P` when `other` has a pattern
 * (` or another string` when it has none). Returns buf.
 */
APS_INTERNAL char *aps_schema_priv_one_of(char *buf, size_t cap, const aps_literal *values, size_t n,
                             const aps_type *other);

/*
 * Checks a string against a text type's size bounds and pattern. On
 * failure returns APS_E_RANGE or APS_E_PATTERN with the message in msg.
 */
APS_INTERNAL aps_status aps_schema_priv_check_text(const aps_type *t, const char *s, size_t len, char *msg,
                                      size_t cap);

/* True when the text type constrains anything (the slow check is needed). */
static inline bool aps_schema_priv_text_constrained(const aps_type *t, size_t len)
{
    return t->u.text.pattern != NULL || len < t->u.text.min_len || len > t->u.text.max_len;
}

/* Checks a double against a float type's bounds; message in msg on failure (APS_E_RANGE). */
APS_INTERNAL aps_status aps_schema_priv_check_float(const aps_type *t, double v, char *msg, size_t cap);

/* Message for an integer outside [min, max]: "expected an integer in MIN..MAX; got V". */
APS_INTERNAL void aps_schema_priv_int_range(char *buf, size_t cap, const aps_type *t, const char *got,
                               size_t got_len);

/*
 * The JSON name of an unknown member: its text key, or the decimal text of
 * a CBOR integer key (RFC 8949 6.1), written into buf (24 bytes at least).
 * False when it has none: a CBOR key of another kind (h'01', ["a"]).
 */
APS_INTERNAL bool aps_schema_priv_member_name(const aps_json_member *m, char *buf, size_t cap, aps_slice *out);

/* Equality of a decoded string with a text literal. */
/* An enumeration of integer literals (`200 / 404 / 500`), read and written as JSON numbers. */
static inline bool aps_schema_priv_enum_of_ints(const aps_type *t)
{
    return t->u.enm.count > 0 && t->u.enm.values[0].kind != APS_LIT_TEXT;
}

static inline bool aps_schema_priv_text_is(const aps_literal *lit, const char *s, size_t len)
{
    return lit->kind == APS_LIT_TEXT && lit->len == len && (len == 0 || memcmp(lit->text, s, len) == 0);
}

/*
 * Does a value of JSON kind jk (is_int: written as an integer) fit type t?
 * A value that does not can never decode as t: choices skip such alternatives.
 */
APS_INTERNAL bool aps_schema_priv_kind_fits(const aps_type *t, aps_json_kind jk, bool is_int, int depth);

/* The field of f[0..n) whose CBOR key (not a text: `1 => T`) is the key bytes `k`; SIZE_MAX when none is. */
static inline size_t aps_schema_priv_find_keyed(const aps_field *f, size_t n, aps_cbor_raw k)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (f[i].cbor_key != NULL && f[i].cbor_key_len == k.len && memcmp(f[i].cbor_key, k.ptr, k.len) == 0)
            return i;
    return SIZE_MAX;
}

/* Inside a positional array: a group (APS_K_TUPLE with u.st.group), a repeated entry (an
 * APS_K_ARRAY with u.arr.spread) or a choice of groups (APS_U_GROUPS), whose elements are the
 * enclosing array's; any other type is one element. */
static inline bool aps_schema_priv_in_place(const aps_type *t)
{
    return (t->kind == APS_K_TUPLE && t->u.st.group) || (t->kind == APS_K_ARRAY && t->u.arr.spread) ||
           (t->kind == APS_K_UNION && t->u.un.cls == APS_U_GROUPS);
}

/* How many array elements the entries of the APS_K_TUPLE `t` take in the C value at `value`,
 * for a CBOR array's head; SIZE_MAX when a choice in it holds no alternative. */
APS_INTERNAL size_t aps_schema_priv_elements(const aps_type *t, const void *value);

/*
 * The members of one object (a JSON object, a CBOR map) seen so far, by
 * field index (the envelope's own fields first, then its variant's): one
 * word in the common case, arena words past 64 fields. The JSON and CBOR
 * decoders' duplicate and missing-member checks.
 */
typedef struct aps_seen_set {
    uint64_t small;
    uint64_t *big;
} aps_seen_set;

/* Marks field i seen; true when it already was (one member given in both spellings). */
static inline bool aps_seen_mark(aps_seen_set *s, size_t i)
{
    uint64_t *w = s->big != NULL ? &s->big[i / 64] : &s->small, bit = (uint64_t)1 << (i % 64);
    bool was = (*w & bit) != 0;
    *w |= bit;
    return was;
}

/* Whether field i was seen. */
static inline bool aps_seen_has(const aps_seen_set *s, size_t i)
{
    return ((s->big != NULL ? s->big[i / 64] : s->small) >> (i % 64)) & 1u;
}

/*
 * The decoder's fast path (schema_fast.c): decodes `json` into `out` (zeroed
 * first) when it is well-formed input of the usual shape, and returns true;
 * false means "not here" (anything wrong or unusual), and the exact decoder
 * must start over. What it accepts, the exact decoder accepts with the same
 * resulting value. Arena space it used is the caller's to roll back.
 * `generated`: the types that have generated decoders (aps_type.fast) are
 * read by those; else every type by the tables.
 */
APS_INTERNAL bool aps_schema_priv_decode_fast(const aps_type *type, const char *json, size_t len,
                                 aps_arena *arena, void *out, const aps_decode_options *options,
                                 bool generated);

/*
 * aps_schema_validate by the descriptors alone, never a generated
 * validator: for tests that compare the two. Arguments are checked by the
 * caller.
 */
APS_INTERNAL aps_status aps_schema_priv_validate_tables(const aps_type *type, const void *value, bool strict, aps_error *err);

/*
 * aps_fast_valid, not strict, except that an `any` value (ptr and len set)
 * is left to aps_fast_put_any_checked as the table encoder writes it: one
 * pass over its text instead of a check and a compacting copy.
 */
APS_INTERNAL bool aps_schema_priv_valid_any_later(const aps_type *t, const void *value, unsigned depth);

/*
 * aps_schema_decode without the fast path: the decoder that reads through
 * the pull reader and reports every error located. Arguments are checked
 * by the caller.
 */
APS_INTERNAL aps_status aps_schema_priv_decode_exact(const aps_type *type, const char *json, size_t len,
                                        aps_arena *arena, void *out, const aps_decode_options *options,
                                        aps_error *err);

#endif
