/*
 * aps/schema.h - type descriptors and the engine that decodes, encodes and
 * validates JSON against them.
 *
 * cddlgen emits, for every CDDL rule, a C type and a constant descriptor
 * (aps_type) that says how that C type maps to JSON: its members with their
 * wire keys and offsets, ranges, literals, choices. This engine interprets
 * the descriptors, so every generated type gets a decoder, an encoder and a
 * validator that behave identically and report errors identically; and
 * `cddlgen validate` builds the same descriptors in memory from any schema.
 * (The design of nanopb and upb: tables in the generated code, one tested
 * engine in the runtime.)
 *
 * Memory: decoding allocates only from the caller's arena. By default what
 * it can take from the input it borrows, so the input must outlive the
 * value: strings written without escapes (member values, map keys, unknown
 * members' names, enum values outside the list), every `any` value and
 * unknown member's value, and the raw text kept of unions and envelopes.
 * aps_decode_options.copy_strings makes the value independent of the input.
 * Encoding writes to an aps_json_writer and allocates nothing of its own.
 * Validation allocates nothing.
 *
 * Errors: every call that takes an aps_error clears it on entry, so one
 * aps_error can be reused across calls and only ever holds the last call's.
 *
 * Thread-safety: descriptors are immutable; every call is reentrant.
 */
#ifndef APS_SCHEMA_H
#define APS_SCHEMA_H

#include <stdbool.h>

#include "aps/arena.h"
#include "aps/cbor.h"
#include "aps/common.h"
#include "aps/json.h"
#include "aps/regex.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- C representations the generated types are built from ---------------- */

/* An array: `count` elements of the element type's C size at `items`. */
typedef struct aps_array {
    void *items;
    size_t count;
} aps_array;

/*
 * One member of an open map that the schema does not name, kept as raw JSON.
 * Decoded from CBOR it also keeps its CBOR bytes, so a key or value JSON has
 * no form for (COSE's `-2 => h'...'`) comes back byte for byte.
 */
typedef struct aps_json_member {
    aps_slice key;       /* unescaped name; a CBOR integer key's decimal text; empty for other non-text keys */
    aps_json_raw value;  /* empty when the value has no JSON form (a CBOR byte string, a tag) */
    aps_cbor_raw cbor_key;   /* the key as written in CBOR when it is no text string (`-1`, h'01',
                                ["a"]); NULL: the key is the text `key`. In JSON an integer key is
                                its decimal text (RFC 8949 6.1); any other has no JSON form */
    aps_cbor_raw cbor_value; /* the value as written in CBOR, written back as is; NULL: `value`
                                converted (decoded from JSON, or built in C) */
} aps_json_member;

/* The unknown members of an open map (`* text => any`), in input order. */
typedef struct aps_json_members {
    aps_json_member *items;
    size_t count;
} aps_json_members;

/* ---- descriptors ---------------------------------------------------------- */

typedef enum aps_kind {
    APS_K_ANY,     /* aps_json_raw: any JSON value, kept as written */
    APS_K_BOOL,    /* bool */
    APS_K_INT,     /* int64_t within [u.i.min, u.i.max] */
    APS_K_UINT,    /* uint64_t within [u.u.min, u.u.max], none of u.u.forbidden_bits set */
    APS_K_FLOAT,   /* double: any JSON number, within optional bounds */
    APS_K_TEXT,    /* aps_slice: a string, with optional byte-size bounds and pattern */
    APS_K_LITERAL, /* nothing stored: exactly one value (u.lit) */
    APS_K_ENUM,    /* int: 1 + index of the matching literal in u.enm.values; 0 = other */
    APS_K_STRUCT,  /* a C struct for a JSON object with named members */
    APS_K_ARRAY,   /* aps_array of u.arr.elem */
    APS_K_MAP,     /* aps_array of entries { aps_slice key; T value; }: `{* text => T}` */
    APS_K_UNION,   /* a tagged union: int kind at u.un.kind_offset, payload at u.un.payload_offset */
    APS_K_BYTES,   /* aps_slice: a CBOR byte string (`bstr`), with optional size bounds and
                      embedded CBOR (`.cbor T`, `.cborseq T`); no JSON form: refused in JSON */
    APS_K_TAG,     /* the C value of u.tag.content: on the CBOR wire inside tag u.tag.number
                      (`#6.n(T)`); in JSON the content alone, as JSON has no tags */
    APS_K_TUPLE    /* a C struct for an array read by position (`[alg: int, * bstr]`): its
                      entries u.st.fields match consecutive elements in order; docs/cbor.md */
} aps_kind;

/* A literal's kind. APS_LIT_UNDEFINED (CBOR's `undefined`) and APS_LIT_BYTES (`h'0102'`, bytes
 * at text/len) have no JSON form: the JSON codecs refuse them. */
typedef enum aps_literal_kind {
    APS_LIT_TEXT, APS_LIT_INT, APS_LIT_UINT, APS_LIT_FLOAT, APS_LIT_BOOL, APS_LIT_NULL,
    APS_LIT_UNDEFINED, APS_LIT_BYTES
} aps_literal_kind;

/* A literal value: the discriminant `"text-delta"`, an enum member, `null`. */
typedef struct aps_literal {
    aps_literal_kind kind;
    const char *text;    /* APS_LIT_TEXT: the string (UTF-8, unescaped) */
    size_t len;
    int64_t i;           /* APS_LIT_INT, APS_LIT_BOOL (0/1) */
    uint64_t u;          /* APS_LIT_UINT */
    double f;            /* APS_LIT_FLOAT */
} aps_literal;

typedef struct aps_type aps_type;

/*
 * A decoder that cddlgen generated for one type, as straight-line C: reads
 * the value at p into out and returns the position after it, or NULL to
 * give up (aps/fast.h says how it is used; applications do not call it).
 */
typedef struct aps_fast_ctx aps_fast_ctx;
typedef const char *(*aps_fast_decoder)(aps_fast_ctx *c, const char *p, void *out);

/*
 * A validator that cddlgen generated for one type: true when the value at
 * `value`, inside `depth` typed values, is certainly valid; false when it
 * may not be, and the table-driven validator decides and says where.
 */
typedef bool (*aps_fast_validator)(const void *value, bool strict, unsigned depth);

/*
 * An encoder that cddlgen generated for one type, as straight-line C:
 * writes the value at `value`, inside `depth` typed values, into w,
 * checking each part as it writes it unless `trusted`; false on any
 * failure, and aps_schema_encode then rolls w back and takes the tables
 * (aps/fast.h says how it is used; applications do not call it).
 */
typedef bool (*aps_fast_writer)(aps_json_writer *w, const void *value, unsigned depth, bool trusted);

/* Flags of a struct member. */
enum {
    APS_F_OPTIONAL = 1, /* `? key: T`: a `bool` at present_offset says whether it was given */
    APS_F_LITERAL = 2,  /* the value is the member type's literal: checked, never stored */
    APS_F_NULLABLE = 4, /* `T / null`: a `bool` at null_offset says it was null */
    APS_F_PLAIN_NAMES = 8, /* key and snake are printable ASCII without '"' or '\\': input
                              bytes equal to one of them, then '"', are that whole name */
    APS_F_SHARED_NAME = 16 /* another member of the struct shares a spelling of this one's
                              (fooBar and foo_bar are both "foo_bar" in snake_case), so one
                              input name can reach either: the fast path leaves the object to
                              the exact decoder, which finds a name given twice by its text */
};

/* One named member of a struct. */
typedef struct aps_field {
    const char *key;          /* wire name, exactly as in the schema (NUL-terminated too) */
    size_t key_len;           /* its length in bytes: decoders match names without strlen */
    const char *snake;        /* its snake_case spelling (may be the same text) */
    size_t snake_len;
    const aps_type *type;
    size_t offset;            /* of the value in the struct (unused for APS_F_LITERAL) */
    size_t present_offset;    /* of `bool has_...` when APS_F_OPTIONAL */
    size_t null_offset;       /* of `bool ..._is_null` when APS_F_NULLABLE */
    unsigned flags;
    const unsigned char *cbor_key; /* the member's CBOR key when it is no text (`1 => T`, COSE's
                                      labels): one item in canonical form (shortest head), matched
                                      and written as these bytes; `key` is then its JSON name, the
                                      decimal text. NULL: the key is the text `key` */
    size_t cbor_key_len;
} aps_field;

/* How a union chooses its alternative. */
typedef enum aps_union_class {
    APS_U_DISCRIMINATED, /* by the literal value of member u.un.disc_key (all alternatives are structs) */
    APS_U_KIND,          /* by the JSON kind of the value (null, bool, integer, number, string, array, object) */
    APS_U_UNTAGGED,      /* first alternative that decodes, in schema order */
    APS_U_GROUPS         /* a choice of groups inside a positional array (`[+ (1, uint // 2, text)]`):
                            the first alternative whose entries match the elements from the
                            current one; its alternatives are groups (APS_K_TUPLE with
                            u.st.group) or types of one element */
} aps_union_class;

typedef struct aps_type_text {
    size_t min_len, max_len;  /* bytes, from `.size`; max SIZE_MAX when unbounded */
    const char *pattern;      /* `.regexp`, implicitly anchored; NULL when none */
} aps_type_text;

struct aps_type {
    aps_kind kind;
    const char *name;         /* schema rule name, for messages ("Event"); may be NULL */
    size_t size;              /* sizeof the C representation (0 for APS_K_LITERAL) */
    union {
        struct { int64_t min, max; } i;
        struct {
            uint64_t min, max;
            uint64_t forbidden_bits;     /* bits that must be clear: those `.bits` does not list; 0 for none */
        } u;
        struct {
            double min, max;
            bool has_min, has_max, min_exclusive, max_exclusive;
            unsigned char width;         /* CBOR: 2, 4 or 8 writes exactly that width (`float16`,
                                            `float32`, `float64`); 0 the narrowest exact one */
        } f;
        aps_type_text text;
        struct {
            size_t min_len, max_len;     /* bytes, from `.size`; max SIZE_MAX when unbounded */
            const aps_type *embedded;    /* `.cbor T` / `.cborseq T`: the bytes are one item (a
                                            sequence) of T, checked on decode and encode and kept
                                            as bytes; NULL: any bytes */
            bool sequence;               /* `.cborseq`: zero or more items */
        } bytes;
        struct {
            uint64_t number;             /* the tag number, `n` of `#6.n(T)` */
            const aps_type *content;     /* its content's type; its C value is this type's */
        } tag;
        aps_literal lit;
        struct {
            const aps_literal *values;
            size_t count;
            const aps_type *other;       /* an APS_K_TEXT for values outside the list
                                            (`tstr .regexp "custom:.+"`), stored as aps_slice
                                            at other_offset; NULL: none accepted */
            size_t other_offset;
            const unsigned *sorted;      /* indices of `values` ordered as aps_schema_enum_find
                                            searches them (texts by length, then bytes; integers
                                            by value): a wide enum costs log n compares; NULL:
                                            searched in order */
        } enm;
        struct {
            const aps_field *fields;
            size_t nfields;
            bool open;                   /* unknown members kept in an aps_json_members */
            size_t extras_offset;
            const aps_type *extras_type; /* type of the `* text => T` tail (NULL: any) */
            const aps_type *variants;    /* a union of structs whose members are inlined
                                            into this object (Command's CommandData), or NULL */
            size_t variants_offset;
            size_t extras_min, extras_max; /* how many unknown members the tail allows
                                            (`1*3 text => T`); extras_max 0: no bound */
            bool group;                  /* APS_K_TUPLE: a group inside a positional array
                                            (`? (uint, bstr)`): its entries take elements of
                                            the enclosing array, it has no array of its own */
            const aps_type *extras_key;  /* CBOR: the type of the tail's keys when they may be other
                                            than text (`* label => values`, label = int / tstr;
                                            `[tstr] => T`): each key is decoded as it to be
                                            checked. NULL: text keys only */
        } st;
        struct {
            const aps_type *elem;
            size_t min, max;             /* occurrence bounds; max SIZE_MAX when unbounded */
            bool spread;                 /* a repeated entry of a positional array (`* bstr` in
                                            `[int, * bstr]`): its elements are the enclosing
                                            array's, read in order, not an array of their own */
        } arr;
        struct {
            const aps_type *value;
            size_t entry_size;           /* sizeof { aps_slice key; T value; } */
            size_t value_offset;
            size_t min, max;
        } map;
        struct {
            aps_union_class cls;
            const aps_type *const *alts;
            size_t nalts;
            const char *disc_key;        /* APS_U_DISCRIMINATED: the member, e.g. "type" */
            const aps_literal *disc;     /* per alternative: its discriminant literal */
            size_t kind_offset;          /* int: 1 + index of the alternative; 0 = unknown */
            size_t payload_offset;       /* where the alternative's value is stored */
            size_t raw_offset;           /* aps_json_raw of the whole value, as decoded */
        } un;
    } u;
    aps_fast_decoder fast;        /* the generated decoder of this type, tried first; NULL: none */
    aps_fast_validator valid;     /* the generated validator of this type, tried first; NULL: none */
    aps_fast_writer write;        /* the generated encoder of this type, tried first; NULL: none */
};

/* ---- options --------------------------------------------------------------- */

/*
 * Which spelling of member names a decoder accepts or an encoder writes.
 * The default (0) accepts both: real servers (langgraph-api) send snake_case
 * while the schema says camelCase, and a member decoded under the other
 * spelling would otherwise land, silently, among an open map's unknown
 * members. Both spellings cost nothing on input in the schema's spelling
 * (its bytes are compared first) and a second comparison only for a name
 * that is neither. docs/decoding.md has the rules.
 */
typedef enum aps_key_case {
    APS_CASE_EITHER = 0, /* decoding: both spellings; one member given in both is a duplicate.
                            Encoding: the schema's */
    APS_CASE_SCHEMA,     /* only the schema's own (camelCase for the protocol): for a CI gate */
    APS_CASE_SNAKE       /* only snake_case (eventId <-> event_id); encoders write it */
} aps_key_case;

/* Decode options. All zero means: either spelling, tolerant, default depth, strings borrowed. */
typedef struct aps_decode_options {
    aps_key_case key_case;
    bool strict;         /* unknown union variants are errors (CI); else kept as raw JSON */
    size_t max_depth;    /* 0: APS_JSON_MAX_DEPTH_DEFAULT */
    bool copy_strings;   /* every string and raw value of the result lives in the arena, none
                            in the input, which may then be freed or reused: the input text is
                            copied into the arena once (len bytes) and decoded from there */
} aps_decode_options;

/* Encode options. All zero means: the schema's spelling, the value checked first. */
typedef struct aps_encode_options {
    aps_key_case key_case;
    bool trusted;        /* the caller vouches that the value passes aps_schema_validate (it
                            was decoded, or validated already): skip that check, for speed */
} aps_encode_options;

/* ---- the engine ---------------------------------------------------------------- */

/*
 * Most typed containers (structs, arrays, maps, unions) nested inside each
 * other that decode, encode and validate follow: they recurse per level, so
 * this bounds their stack use whatever the reader's max_depth says (APS_E_DEPTH
 * beyond). `any` values are not counted: the reader walks them without recursion.
 */
#define APS_SCHEMA_MAX_DEPTH 1024

/*
 * Decodes the JSON text `json` (`len` bytes) into `out`, a C value of the
 * type described by `type`, zeroing it first. Checks everything the schema
 * says while decoding: on success the value also passes aps_schema_validate.
 * `arena` receives everything allocated; `options` and `err` may be NULL.
 * Returns APS_OK or the first error, with its byte offset, JSON Pointer and a
 * message such as `expected one of "text-delta", "reasoning-delta"; got "txt-delta"`.
 * Under the default key case both spellings of a member name are accepted.
 * A missing member is reported at the pointer of the object lacking it; a
 * choice none of whose alternatives matches reports the error of the one
 * that got furthest into the input. On failure `out` holds a partial value
 * that must not be used; what was allocated stays in the arena until reset.
 * APS_E_ARGUMENT when `type`, `arena` or `out` is missing.
 *
 * Speed: well-formed input of the usual shape is decoded in one pass
 * straight from the bytes; whatever that pass is not sure of (any error, an
 * escaped member name, an unknown variant, very deep or wide input, an
 * untagged choice whose first fitting alternative fails) is decoded again
 * from the start by the decoder that tracks positions for located errors.
 * The result is the same either way; only the time differs.
 */
APS_NODISCARD aps_status aps_schema_decode(const aps_type *type, const char *json, size_t len,
                                           aps_arena *arena, void *out,
                                           const aps_decode_options *options, aps_error *err);

/*
 * Decodes one value from an open reader (for composing: framing, streams),
 * as aps_schema_decode does, leaving the reader after it. The reader's own
 * nesting limit applies; options->max_depth is not used here. The reader's
 * input is the caller's: options->copy_strings is APS_E_ARGUMENT here.
 */
APS_NODISCARD aps_status aps_schema_decode_value(const aps_type *type, aps_json_reader *r,
                                                 void *out, const aps_decode_options *options,
                                                 aps_error *err);

/* Receives one error of aps_schema_check_all; `err` lives only for the call. */
typedef void (*aps_error_fn)(void *user, const aps_error *err);

/*
 * Every error of `json` as `type`, where aps_schema_decode stops at the
 * first: for a report that names them all (a server that breaks two rules
 * in one event is told of both at once). Each goes to on_error (required)
 * in document order, with its pointer and offset, as aps_schema_decode
 * would have reported it had it been the first. After an error in a
 * member's value or an array element, that value is passed over and its
 * siblings are checked; every missing required member of an object is
 * named. An untagged choice reports one error, its closest alternative's.
 * Bad text (syntax, UTF-8, depth, limits) ends the list. The value decoded
 * on the way is scratch in `arena`. Slower than aps_schema_decode: call it
 * on a value that one has rejected. These are decoding's errors: a value
 * that decodes is checked by aps_schema_validate as before. Returns APS_OK
 * when there is no error (then on_error was not called), else the first
 * error's status; APS_E_ARGUMENT (on_error not called) for a NULL type,
 * arena or on_error. Thread-safe as aps_schema_decode.
 */
APS_NODISCARD aps_status aps_schema_check_all(const aps_type *type, const char *json, size_t len,
                                              aps_arena *arena, const aps_decode_options *options,
                                              aps_error_fn on_error, void *user);

/*
 * Decodes `json` as alternative `alt` (0-based) of the union `type`, as the
 * application knows it from context (the result of a `run.start` command).
 * Sets the union's kind and raw; APS_E_ARGUMENT when `type` is no union or
 * `alt` is out of range.
 */
APS_NODISCARD aps_status aps_schema_decode_as(const aps_type *type, size_t alt, const char *json,
                                              size_t len, aps_arena *arena, void *out,
                                              const aps_decode_options *options, aps_error *err);

/*
 * Writes `value` as compact JSON. Members are written in schema order (a
 * variant's after its envelope's own), then the unknown members an open map
 * kept (one kept from CBOR with an integer key named by its decimal text;
 * with another non-text key, or a value of no JSON form, APS_E_TYPE); a
 * union or envelope of unknown kind (0) is written as the raw JSON it was
 * decoded from. `options` and `err` may be NULL (schema spelling, checked).
 *
 * Unless options->trusted, the value is first checked as aps_schema_validate
 * checks it (tolerant of unknown variants): raw `any` values and unknown
 * members must be one valid JSON text each, strings valid UTF-8, integers
 * within the schema's range (`js-uint` is 0..2^53-1), literals, sizes and
 * patterns as the schema says, unions and enums of a known kind or with
 * their raw text. So what the encoder writes, the decoder reads back, and a
 * product that copies received bytes into a value cannot inject into the
 * stream. A failing check writes nothing, returns its status with the JSON
 * Pointer of the failing member in err, and leaves the status in the writer
 * as any failure does. Types with a generated encoder (aps_type.write) are
 * written by it, checking as it writes, in the schema's spelling; on a
 * failure the writer is rolled back and the tables start over.
 *
 * Returns the writer's status, or APS_E_ARGUMENT for a value that cannot be
 * written (an unknown kind without raw JSON, an empty `any`), APS_E_DEPTH
 * past APS_SCHEMA_MAX_DEPTH. A failure part way is also left in the writer
 * (aps_json_writer_finish reports it), so a cut-short text is never taken
 * for a whole one.
 */
APS_NODISCARD aps_status aps_schema_encode(const aps_type *type, const void *value,
                                           aps_json_writer *w, const aps_encode_options *options,
                                           aps_error *err);

/*
 * Decodes the CBOR item `cbor` (`len` bytes) into `out`, as aps_schema_decode
 * decodes JSON: the same descriptors, checks, key spellings and options,
 * the CBOR reader's checks of the bytes (aps/cbor.h: well-formed, UTF-8,
 * no duplicate map keys), errors located by byte offset and the path of
 * the item. Member names are text strings, but for integer keys (`1 => T`)
 * and a tail with a key type (u.st.extras_key). A number is read from an
 * integer or a float of any width (`float` and `number` share the C
 * double). What the C types keep as JSON text is converted to JSON: `any`
 * values, unknown members of open maps, the whole value of an unknown
 * variant (known variants leave the union's raw JSON empty); such an item
 * with no JSON form (a byte string, a tag, undefined, NaN) is APS_E_TYPE,
 * except as an unknown member, which also keeps its CBOR bytes (key and
 * value, as written) and so needs no JSON form.
 * Strings written in one piece are borrowed from the input unless
 * options->copy_strings. Not for JSON-only runs: the fast path and the
 * generated decoders are JSON's; this is the table-driven engine.
 */
APS_NODISCARD aps_status aps_schema_decode_cbor(const aps_type *type, const void *cbor, size_t len,
                                                aps_arena *arena, void *out,
                                                const aps_decode_options *options, aps_error *err);

/*
 * Writes `value` as one CBOR item in preferred serialization (definite
 * lengths, shortest heads, floats in the narrowest exact width), as
 * aps_schema_encode writes JSON: members in schema order, then the unknown
 * members an open map kept (those kept from CBOR as their bytes); `any`
 * values and raw JSON (an unknown variant's) converted from their JSON
 * text (aps_json_to_cbor). The same check first unless options->trusted,
 * the same key spellings. A deterministic writer sorts the maps, and takes
 * kept bytes only when they are deterministic already (else the JSON text
 * is converted; with none, APS_E_TYPE). Returns the writer's status or the
 * check's; a failure part way is left in the writer.
 */
APS_NODISCARD aps_status aps_schema_encode_cbor(const aps_type *type, const void *value,
                                                aps_cbor_writer *w,
                                                const aps_encode_options *options, aps_error *err);

/*
 * Checks a C value (built by an application, or decoded) against every
 * constraint of its type: literals, ranges, sizes, patterns, occurrence
 * bounds, known enum and union kinds (`strict`: an unknown variant is an
 * error), valid UTF-8 in every string, `any` values that are one valid JSON
 * text, unknown members whose names do not clash with the named ones.
 * `err` gets the JSON Pointer of the first failing member (offset SIZE_MAX).
 * Allocates nothing, except that `any` values over 4 KB, unknown members
 * checked against a typed tail (`* text => T`) and unknown members kept as
 * CBOR (checked to be well-formed) may use the heap briefly.
 */
APS_NODISCARD aps_status aps_schema_validate(const aps_type *type, const void *value, bool strict,
                                             aps_error *err);

/*
 * The value of the enumeration `t` (an APS_K_ENUM) spelled by the `len`
 * bytes at `text`: 1 + its index in t->u.enm.values, or 0 when it is none
 * of them. A binary search when the descriptor has its sorted index
 * (cddlgen writes one for wide enumerations), else a scan in order.
 * Thread-safe; allocates nothing.
 */
int aps_schema_enum_find(const aps_type *t, const char *text, size_t len);

#ifdef __cplusplus
}
#endif
#endif /* APS_SCHEMA_H */
