/*
 * apr_schema.h - type descriptors and the engine that decodes, encodes and
 * validates JSON against them.
 *
 * cddlgen emits, for every CDDL rule, a C type and a constant descriptor
 * (apr_type) that says how that C type maps to JSON: its members with their
 * wire keys and offsets, ranges, literals, choices. This engine interprets
 * the descriptors, so every generated type gets a decoder, an encoder and a
 * validator that behave identically and report errors identically; and
 * `cddlgen validate` builds the same descriptors in memory from any schema.
 * (The design of nanopb and upb: tables in the generated code, one tested
 * engine in the runtime.)
 *
 * Memory: decoding allocates only from the caller's arena; strings without
 * escapes and `any` values point into the input, which must outlive the
 * decoded value. Encoding writes to an apr_json_writer and allocates nothing
 * of its own. Validation allocates nothing.
 *
 * Thread-safety: descriptors are immutable; every call is reentrant.
 */
#ifndef APR_SCHEMA_H
#define APR_SCHEMA_H

#include <stdbool.h>

#include "apr_arena.h"
#include "apr_common.h"
#include "apr_json.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- C representations the generated types are built from ---------------- */

/* An array: `count` elements of the element type's C size at `items`. */
typedef struct apr_array {
    void *items;
    size_t count;
} apr_array;

/* One member of an open map that the schema does not name, kept as raw JSON. */
typedef struct apr_json_member {
    apr_slice key;       /* unescaped name */
    apr_json_raw value;
} apr_json_member;

/* The unknown members of an open map (`* text => any`), in input order. */
typedef struct apr_json_members {
    apr_json_member *items;
    size_t count;
} apr_json_members;

/* ---- descriptors ---------------------------------------------------------- */

typedef enum apr_kind {
    APR_K_ANY,     /* apr_json_raw: any JSON value, kept as written */
    APR_K_BOOL,    /* bool */
    APR_K_INT,     /* int64_t within [u.i.min, u.i.max] */
    APR_K_UINT,    /* uint64_t within [u.u.min, u.u.max] */
    APR_K_FLOAT,   /* double: any JSON number, within optional bounds */
    APR_K_TEXT,    /* apr_slice: a string, with optional byte-size bounds and pattern */
    APR_K_LITERAL, /* nothing stored: exactly one value (u.lit) */
    APR_K_ENUM,    /* int: 1 + index of the matching literal in u.enm.values; 0 = other */
    APR_K_STRUCT,  /* a C struct for a JSON object with named members */
    APR_K_ARRAY,   /* apr_array of u.arr.elem */
    APR_K_MAP,     /* apr_array of entries { apr_slice key; T value; }: `{* text => T}` */
    APR_K_UNION    /* a tagged union: int kind at u.un.kind_offset, payload at u.un.payload_offset */
} apr_kind;

typedef enum apr_literal_kind { APR_LIT_TEXT, APR_LIT_INT, APR_LIT_UINT, APR_LIT_FLOAT, APR_LIT_BOOL, APR_LIT_NULL } apr_literal_kind;

/* A literal value: the discriminant `"text-delta"`, an enum member, `null`. */
typedef struct apr_literal {
    apr_literal_kind kind;
    const char *text;    /* APR_LIT_TEXT: the string (UTF-8, unescaped) */
    size_t len;
    int64_t i;           /* APR_LIT_INT, APR_LIT_BOOL (0/1) */
    uint64_t u;          /* APR_LIT_UINT */
    double f;            /* APR_LIT_FLOAT */
} apr_literal;

typedef struct apr_type apr_type;

/*
 * A decoder that cddlgen generated for one type, as straight-line C: reads
 * the value at p into out and returns the position after it, or NULL to
 * give up (apr_fast.h says how it is used; applications do not call it).
 */
typedef struct apr_fast_ctx apr_fast_ctx;
typedef const char *(*apr_fast_decoder)(apr_fast_ctx *c, const char *p, void *out);

/*
 * A validator that cddlgen generated for one type: true when the value at
 * `value`, inside `depth` typed values, is certainly valid; false when it
 * may not be, and the table-driven validator decides and says where.
 */
typedef bool (*apr_fast_validator)(const void *value, bool strict, unsigned depth);

/* Flags of a struct member. */
enum {
    APR_F_OPTIONAL = 1, /* `? key: T`: a `bool` at present_offset says whether it was given */
    APR_F_LITERAL = 2,  /* the value is the member type's literal: checked, never stored */
    APR_F_NULLABLE = 4, /* `T / null`: a `bool` at null_offset says it was null */
    APR_F_PLAIN_NAMES = 8, /* key and snake are printable ASCII without '"' or '\\': input
                              bytes equal to one of them, then '"', are that whole name */
    APR_F_SHARED_NAME = 16 /* another member of the struct shares a spelling of this one's
                              (fooBar and foo_bar are both "foo_bar" in snake_case), so one
                              input name can reach either: the fast path leaves the object to
                              the exact decoder, which finds a name given twice by its text */
};

/* One named member of a struct. */
typedef struct apr_field {
    const char *key;          /* wire name, exactly as in the schema (NUL-terminated too) */
    size_t key_len;           /* its length in bytes: decoders match names without strlen */
    const char *snake;        /* its snake_case spelling (may be the same text) */
    size_t snake_len;
    const apr_type *type;
    size_t offset;            /* of the value in the struct (unused for APR_F_LITERAL) */
    size_t present_offset;    /* of `bool has_...` when APR_F_OPTIONAL */
    size_t null_offset;       /* of `bool ..._is_null` when APR_F_NULLABLE */
    unsigned flags;
} apr_field;

/* How a union chooses its alternative. */
typedef enum apr_union_class {
    APR_U_DISCRIMINATED, /* by the literal value of member u.un.disc_key (all alternatives are structs) */
    APR_U_KIND,          /* by the JSON kind of the value (null, bool, integer, number, string, array, object) */
    APR_U_UNTAGGED       /* first alternative that decodes, in schema order */
} apr_union_class;

typedef struct apr_type_text {
    size_t min_len, max_len;  /* bytes, from `.size`; max SIZE_MAX when unbounded */
    const char *pattern;      /* `.regexp`, implicitly anchored; NULL when none */
} apr_type_text;

struct apr_type {
    apr_kind kind;
    const char *name;         /* schema rule name, for messages ("Event"); may be NULL */
    size_t size;              /* sizeof the C representation (0 for APR_K_LITERAL) */
    union {
        struct { int64_t min, max; } i;
        struct { uint64_t min, max; } u;
        struct { double min, max; bool has_min, has_max, min_exclusive, max_exclusive; } f;
        apr_type_text text;
        apr_literal lit;
        struct {
            const apr_literal *values;
            size_t count;
            const apr_type *other;       /* an APR_K_TEXT for values outside the list
                                            (`tstr .regexp "custom:.+"`), stored as apr_slice
                                            at other_offset; NULL: none accepted */
            size_t other_offset;
        } enm;
        struct {
            const apr_field *fields;
            size_t nfields;
            bool open;                   /* unknown members kept in an apr_json_members */
            size_t extras_offset;
            const apr_type *extras_type; /* type of the `* text => T` tail (NULL: any) */
            const apr_type *variants;    /* a union of structs whose members are inlined
                                            into this object (Command's CommandData), or NULL */
            size_t variants_offset;
        } st;
        struct {
            const apr_type *elem;
            size_t min, max;             /* occurrence bounds; max SIZE_MAX when unbounded */
        } arr;
        struct {
            const apr_type *value;
            size_t entry_size;           /* sizeof { apr_slice key; T value; } */
            size_t value_offset;
            size_t min, max;
        } map;
        struct {
            apr_union_class cls;
            const apr_type *const *alts;
            size_t nalts;
            const char *disc_key;        /* APR_U_DISCRIMINATED: the member, e.g. "type" */
            const apr_literal *disc;     /* per alternative: its discriminant literal */
            size_t kind_offset;          /* int: 1 + index of the alternative; 0 = unknown */
            size_t payload_offset;       /* where the alternative's value is stored */
            size_t raw_offset;           /* apr_json_raw of the whole value, as decoded */
        } un;
    } u;
    apr_fast_decoder fast;        /* the generated decoder of this type, tried first; NULL: none */
    apr_fast_validator valid;     /* the generated validator of this type, tried first; NULL: none */
};

/* ---- options --------------------------------------------------------------- */

/* Which spelling of member names a decoder accepts or an encoder writes. */
typedef enum apr_key_case {
    APR_CASE_SCHEMA = 0, /* the schema's own (camelCase for the protocol) */
    APR_CASE_SNAKE,      /* snake_case: eventId <-> event_id */
    APR_CASE_EITHER      /* decoding only: both; one member given in both spellings is a duplicate */
} apr_key_case;

/* Decode options. All zero means: schema spelling, tolerant, default depth. */
typedef struct apr_decode_options {
    apr_key_case key_case;
    bool strict;         /* unknown union variants are errors (CI); else kept as raw JSON */
    size_t max_depth;    /* 0: APR_JSON_MAX_DEPTH_DEFAULT */
} apr_decode_options;

/* Encode options. All zero means the schema's spelling. */
typedef struct apr_encode_options {
    apr_key_case key_case;
} apr_encode_options;

/* ---- the engine ---------------------------------------------------------------- */

/*
 * Most typed containers (structs, arrays, maps, unions) nested inside each
 * other that decode, encode and validate follow: they recurse per level, so
 * this bounds their stack use whatever the reader's max_depth says (APR_E_DEPTH
 * beyond). `any` values are not counted: the reader walks them without recursion.
 */
#define APR_SCHEMA_MAX_DEPTH 1024

/*
 * Decodes the JSON text `json` (`len` bytes) into `out`, a C value of the
 * type described by `type`, zeroing it first. Checks everything the schema
 * says while decoding: on success the value also passes apr_schema_validate.
 * `arena` receives everything allocated; `options` and `err` may be NULL.
 * Returns APR_OK or the first error, with its byte offset, JSON Pointer and a
 * message such as `expected one of "text-delta", "reasoning-delta"; got "txt-delta"`.
 * A missing member is reported at the pointer of the object lacking it; a
 * choice none of whose alternatives matches reports the error of the one
 * that got furthest into the input. On failure `out` holds a partial value
 * that must not be used; what was allocated stays in the arena until reset.
 * APR_E_ARGUMENT when `type`, `arena` or `out` is missing.
 *
 * Speed: well-formed input of the usual shape is decoded in one pass
 * straight from the bytes; whatever that pass is not sure of (any error, an
 * escaped member name, an unknown variant, very deep or wide input, an
 * untagged choice whose first fitting alternative fails) is decoded again
 * from the start by the decoder that tracks positions for located errors.
 * The result is the same either way; only the time differs.
 */
APR_NODISCARD apr_status apr_schema_decode(const apr_type *type, const char *json, size_t len,
                                           apr_arena *arena, void *out,
                                           const apr_decode_options *options, apr_error *err);

/*
 * Decodes one value from an open reader (for composing: framing, streams),
 * as apr_schema_decode does, leaving the reader after it. The reader's own
 * nesting limit applies; options->max_depth is not used here.
 */
APR_NODISCARD apr_status apr_schema_decode_value(const apr_type *type, apr_json_reader *r,
                                                 void *out, const apr_decode_options *options,
                                                 apr_error *err);

/*
 * Decodes `json` as alternative `alt` (0-based) of the union `type`, as the
 * application knows it from context (the result of a `run.start` command).
 * Sets the union's kind and raw; APR_E_ARGUMENT when `type` is no union or
 * `alt` is out of range.
 */
APR_NODISCARD apr_status apr_schema_decode_as(const apr_type *type, size_t alt, const char *json,
                                              size_t len, apr_arena *arena, void *out,
                                              const apr_decode_options *options, apr_error *err);

/*
 * Writes `value` as compact JSON. Members are written in schema order (a
 * variant's after its envelope's own), then the unknown members an open map
 * kept; a union or envelope of unknown kind (0) is written as the raw JSON it
 * was decoded from. `options` may be NULL (schema spelling). Returns the
 * writer's status, or APR_E_ARGUMENT for a value that cannot be written
 * (an unknown kind without raw JSON, an empty `any`), APR_E_DEPTH past
 * APR_SCHEMA_MAX_DEPTH. A failure part way is also left in the writer
 * (apr_json_writer_finish reports it), so a cut-short text is never taken
 * for a whole one. Call apr_schema_validate first for values an
 * application built: the encoder trusts them.
 */
APR_NODISCARD apr_status apr_schema_encode(const apr_type *type, const void *value,
                                           apr_json_writer *w, const apr_encode_options *options);

/*
 * Checks a C value (built by an application, or decoded) against every
 * constraint of its type: literals, ranges, sizes, patterns, occurrence
 * bounds, known enum and union kinds (`strict`: an unknown variant is an
 * error), valid UTF-8 in every string, `any` values that are one valid JSON
 * text, unknown members whose names do not clash with the named ones.
 * `err` gets the JSON Pointer of the first failing member (offset SIZE_MAX).
 * Allocates nothing, except that `any` values over 4 KB and unknown members
 * checked against a typed tail (`* text => T`) may use the heap briefly.
 */
APR_NODISCARD apr_status apr_schema_validate(const apr_type *type, const void *value, bool strict,
                                             apr_error *err);

/*
 * True when the whole of `s` matches `pattern`, an XSD-style regular
 * expression as `.regexp` uses (implicitly anchored at both ends). Supported:
 * literals, `.`, escapes `\\. \\d \\w \\s` and their negations, classes
 * `[a-z]` `[^...]`, groups `( )`, alternation `|`, and `* + ? {n} {n,} {n,m}`.
 * Characters are code points of UTF-8 (`.` matches one code point except
 * newline and carriage return, as in XSD); `\\d \\w \\s` are ASCII classes
 * ([0-9], [A-Za-z0-9_], [ \\t\\n\\r]). A leading `^` and a trailing `$` are
 * accepted as redundant anchors. Other escapes: `\\n \\r \\t` and any
 * escaped punctuation. Returns 1, 0, or -1 when the pattern itself is
 * malformed or unsupported (`\\p{..}`, class subtraction, or a compiled
 * program over 512 steps). Matching time is O(len x pattern size), with no
 * exponential backtracking and no allocation. `s` may be NULL when len is 0.
 */
int apr_regex_match(const char *pattern, const char *s, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* APR_SCHEMA_H */
