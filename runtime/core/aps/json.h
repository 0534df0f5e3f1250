/*
 * aps/json.h - strict RFC 8259 JSON: a pull reader, a writer, raw values.
 *
 * The reader walks one JSON text in place. Generated decoders call it in
 * their inner loops: it hands out strings as slices of the input when they
 * have no escapes (unescaped into the caller's arena otherwise), checks UTF-8,
 * escapes, surrogate pairs, number syntax, nesting depth (without recursion)
 * and duplicate member names in every object it walks, skipped ones included.
 * Errors are located: byte offset plus the RFC 6901 JSON Pointer of the
 * value being read.
 *
 *     aps_json_reader r;
 *     aps_slice key;
 *     int more;
 *     aps_json_reader_init(&r, json, len, &arena, NULL);
 *     if (aps_json_read_object(&r, err)) return err->code;
 *     while (!(st = aps_json_next_member(&r, &key, &more, err)) && more) {
 *         if (key.len == 4 && memcmp(key.ptr, "type", 4) == 0)
 *             st = aps_json_read_string(&r, &type, err);
 *         else
 *             st = aps_json_skip(&r, err);
 *         if (st) return st;
 *     }
 *     if (st || (st = aps_json_reader_finish(&r, err))) return st;
 *
 * The writer emits compact JSON into a growable or a fixed buffer, putting
 * commas and colons in by itself. Its write calls return nothing: the first
 * failure sticks and aps_json_writer_finish (or _status) reports it.
 *
 * Thread-safety: a reader or writer belongs to one thread at a time; the
 * JSON text a reader walks must not change while it does.
 */
#ifndef APS_JSON_H
#define APS_JSON_H

#include "aps/arena.h"
#include "aps/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A byte range; not NUL-terminated. Borrowed: it points into the input or an arena. */
typedef struct aps_slice {
    const char *ptr;
    size_t len;
} aps_slice;

/*
 * The aps_slice of a string literal, without its terminating NUL:
 * `ev->text = APS_LIT("Hello");`. Only for literals ("" s refuses a pointer,
 * whose sizeof would be wrong). An expression: a C99 compound literal, a
 * temporary in C++.
 */
#ifdef __cplusplus
#define APS_LIT(s) (aps_slice{"" s, sizeof(s) - 1})
#else
#define APS_LIT(s) ((aps_slice){"" s, sizeof(s) - 1})
#endif

/*
 * The same as an initializer, where C asks for constant expressions (a
 * compound literal is not one): `static const aps_slice hello =
 * APS_LIT_INIT("Hello");`, also inside a larger initializer.
 */
#define APS_LIT_INIT(s) { "" s, sizeof(s) - 1 }

/*
 * One complete JSON value as text, already validated (strict RFC 8259,
 * no duplicate member names), with no surrounding whitespace. Zero-copy: it
 * points into the input it was read from. Numbers inside keep their text as
 * written, whatever their size. Used for CDDL `any` and unknown members.
 */
typedef struct aps_json_raw {
    const char *ptr;
    size_t len;
} aps_json_raw;

/* An aps_json_raw of a literal holding one JSON value: `out = APS_RAW_LIT("{\"hits\":3}");` (not checked). */
#ifdef __cplusplus
#define APS_RAW_LIT(s) (aps_json_raw{"" s, sizeof(s) - 1})
#else
#define APS_RAW_LIT(s) ((aps_json_raw){"" s, sizeof(s) - 1})
#endif

/* The kind of a JSON value, as seen from its first byte. */
typedef enum aps_json_kind {
    APS_JSON_INVALID = 0, /* no value here: end of input, or a byte no value starts with */
    APS_JSON_NULL,
    APS_JSON_BOOL,
    APS_JSON_NUMBER,
    APS_JSON_STRING,
    APS_JSON_ARRAY,
    APS_JSON_OBJECT
} aps_json_kind;

/* Nesting limit used when the options say 0. */
#define APS_JSON_MAX_DEPTH_DEFAULT 512

/* Options of the reader and of aps_json_validate. All zero means defaults. */
typedef struct aps_json_reader_options {
    size_t max_depth;     /* most nested arrays/objects; 0: APS_JSON_MAX_DEPTH_DEFAULT */
    int allow_duplicates; /* 0: a member name given twice in one object is APS_E_DUPLICATE
                             (the protocol's rule); 1: accept it, as RFC 8259's grammar does
                             (only the JSON test suite wants this) */
} aps_json_reader_options;

/* Objects with more members than this check duplicates with a hash set. */
#define APS_JSON_DUP_LINEAR_MAX 16

/* Private: one open array or object (or the root, at depth 0). */
typedef struct aps_json_frame {
    size_t count;    /* members or elements started so far */
    size_t key_base; /* first key of this object in the reader's key stack */
    size_t start;    /* offset of its '{' or '[' */
    uint32_t *hash;  /* key indices (+1, 0 = empty) once count > APS_JSON_DUP_LINEAR_MAX */
    size_t hash_cap; /* power of two, 0 while linear */
    int is_object;
} aps_json_frame;

#define APS_JSON_INLINE_FRAMES 16
#define APS_JSON_INLINE_KEYS 32

/*
 * A pull reader over one JSON text, in caller storage (about 1.5 KB; fine on
 * the stack). Fields are private. It never allocates outside the arena given
 * to aps_json_reader_init; its own bookkeeping for deep or wide input goes
 * there too, so the arena must not be reset or rolled back behind its back
 * while it is in use (aps_json_reader_restore rolls it back consistently).
 */
typedef struct aps_json_reader {
    const char *cur;          /* next byte to look at */
    const char *end;          /* one past the last byte */
    const char *begin;        /* first byte of the text */
    aps_arena *arena;
    size_t depth;             /* open containers; frames[depth] is the innermost */
    size_t max_depth;
    aps_json_frame *frames;   /* inline_frames or an arena copy once deeper */
    size_t frame_cap;
    aps_slice *keys;          /* unescaped member names of every open object */
    size_t key_top;
    size_t key_cap;
    size_t value_start;       /* offset of the value last read or about to be read */
    uint64_t hash_seed;
    int allow_duplicates;
    aps_json_frame inline_frames[APS_JSON_INLINE_FRAMES];
    aps_slice inline_keys[APS_JSON_INLINE_KEYS];
} aps_json_reader;

/*
 * A saved reader position, from aps_json_reader_save. Private fields.
 */
typedef struct aps_json_pos {
    const char *cur;
    size_t depth;
    aps_json_frame frame;
    aps_json_frame *frames;
    size_t frame_cap;
    aps_slice *keys;
    size_t key_top;
    size_t key_cap;
    size_t value_start;
    aps_arena_marker mark;
} aps_json_pos;

/*
 * Starts reading the JSON text `json` of `len` bytes (need not be
 * NUL-terminated; NULL only with len 0). `arena` (required) receives
 * unescaped strings and the reader's bookkeeping for deep or wide input;
 * everything the reader returns lives in `json` or `arena`. `options` may be
 * NULL (defaults); it is copied. Cannot fail.
 */
void aps_json_reader_init(aps_json_reader *r, const char *json, size_t len,
                          aps_arena *arena, const aps_json_reader_options *options);

/*
 * Kind of the next value (leading whitespace is skipped), without consuming
 * it. APS_JSON_INVALID when no value can start there; the read call then
 * reports why. Call it where a value is expected: at the root, after
 * aps_json_next_member / aps_json_next_element said there is one.
 */
aps_json_kind aps_json_peek(aps_json_reader *r);

/*
 * Reads one value of the named kind. Each returns APS_OK, APS_E_TYPE when the
 * next value is of another kind ("expected a string, got a number"),
 * APS_E_SYNTAX / APS_E_UTF8 for malformed text, APS_E_NOMEM / APS_E_LIMIT
 * when the arena fails. `err` may be NULL; on failure it receives the byte
 * offset and the JSON Pointer of the value. Out-parameters are written only
 * on success.
 */
APS_NODISCARD aps_status aps_json_read_null(aps_json_reader *r, aps_error *err);
APS_NODISCARD aps_status aps_json_read_bool(aps_json_reader *r, int *out, aps_error *err);

/*
 * Reads a string, unescaped. `out` points into the input when the string has
 * no escapes, otherwise into the arena. UTF-8 is validated; control
 * characters, bad escapes and lone surrogates are errors (\u0000 is allowed
 * and yields a NUL byte).
 */
APS_NODISCARD aps_status aps_json_read_string(aps_json_reader *r, aps_slice *out, aps_error *err);

/*
 * Reads a number written as a JSON integer (no fraction, no exponent: those
 * are APS_E_TYPE "expected an integer") into int64_t / uint64_t. Values
 * outside the type are APS_E_RANGE ("-0" reads as 0).
 */
APS_NODISCARD aps_status aps_json_read_int64(aps_json_reader *r, int64_t *out, aps_error *err);
APS_NODISCARD aps_status aps_json_read_uint64(aps_json_reader *r, uint64_t *out, aps_error *err);

/*
 * Reads any JSON number as the nearest double (correctly rounded,
 * independent of the C locale). Magnitudes beyond DBL_MAX are APS_E_RANGE;
 * tiny ones round to a subnormal or zero.
 */
APS_NODISCARD aps_status aps_json_read_double(aps_json_reader *r, double *out, aps_error *err);

/* Reads a number and gives its text exactly as written (syntax checked), zero-copy. */
APS_NODISCARD aps_status aps_json_read_number(aps_json_reader *r, aps_slice *out, aps_error *err);

/*
 * Enters an object ('{'). Then call aps_json_next_member until it says there
 * is no more; it leaves the object. APS_E_DEPTH beyond max_depth.
 */
APS_NODISCARD aps_status aps_json_read_object(aps_json_reader *r, aps_error *err);

/*
 * Moves to the next member of the innermost object. When there is one, sets
 * *more to 1 and `key` to its unescaped name (slice of the input or arena;
 * "\u0074ype" reads as "type"); the reader then stands at the member's value,
 * which the caller must read or skip before calling again. At the closing
 * '}' sets *more to 0 and leaves the object. A name already used in this
 * object is APS_E_DUPLICATE (linear time in the member count whatever the
 * input: big objects use a seeded hash set in the arena).
 */
APS_NODISCARD aps_status aps_json_next_member(aps_json_reader *r, aps_slice *key, int *more,
                                              aps_error *err);

/* Enters an array ('['). Then call aps_json_next_element until it says there is no more. */
APS_NODISCARD aps_status aps_json_read_array(aps_json_reader *r, aps_error *err);

/*
 * Moves to the next element of the innermost array: *more = 1 and the reader
 * stands at the element (read or skip it before calling again), or *more = 0
 * at ']' and the array is left.
 */
APS_NODISCARD aps_status aps_json_next_element(aps_json_reader *r, int *more, aps_error *err);

/*
 * Skips the next value, validating it fully (syntax, UTF-8, escapes, depth,
 * duplicate names in its objects) without recursion. Unescaped names of its
 * members may use arena space.
 */
APS_NODISCARD aps_status aps_json_skip(aps_json_reader *r, aps_error *err);

/* aps_json_skip that also returns the value's text as a zero-copy raw value. */
APS_NODISCARD aps_status aps_json_read_raw(aps_json_reader *r, aps_json_raw *out, aps_error *err);

/*
 * Saves the reader position, including an arena mark. Used to scan ahead
 * (for a discriminant member that may come last, or to try an alternative of
 * an untagged choice) and come back. Cannot fail.
 */
void aps_json_reader_save(const aps_json_reader *r, aps_json_pos *pos);

/*
 * Returns to a position saved by aps_json_reader_save on this reader, and
 * rolls the arena back to the mark taken then: everything allocated from the
 * arena since the save (by the reader or by the caller) is released. Valid
 * only while the reader has not left the array or object that contained the
 * saved position.
 */
void aps_json_reader_restore(aps_json_reader *r, const aps_json_pos *pos);

/*
 * Ends the text: every container must be closed and only whitespace may
 * remain (APS_E_SYNTAX "unexpected bytes after the JSON value" otherwise).
 */
APS_NODISCARD aps_status aps_json_reader_finish(aps_json_reader *r, aps_error *err);

/* Byte offset of the next unread byte. */
size_t aps_json_reader_offset(const aps_json_reader *r);

/*
 * Records a failure about the value last read (or about to be read) into
 * `err` (NULL-safe; the first error wins): its byte offset, its JSON Pointer
 * (RFC 6901, "~" and "/" escaped; computed only now) and the formatted
 * message. Returns `code`. Generated decoders use it for schema errors:
 * `return aps_json_reader_fail(r, err, APS_E_UNKNOWN, "expected one of ...");`
 */
aps_status aps_json_reader_fail(const aps_json_reader *r, aps_error *err, aps_status code,
                                const char *fmt, ...) APS_PRINTF(4, 5);

/*
 * Like aps_json_reader_fail, for a member `key` missing from the object just
 * read (call it once aps_json_next_member said there are no more members):
 * the pointer is the object's with "/key" appended, the offset the object's.
 */
aps_status aps_json_reader_fail_member(const aps_json_reader *r, aps_error *err, aps_status code,
                                       const char *key, const char *fmt, ...) APS_PRINTF(5, 6);

/*
 * Checks that `json` (`len` bytes) is exactly one strict RFC 8259 JSON text:
 * UTF-8, escapes, surrogates, numbers, depth, no duplicate member names, no
 * trailing bytes. `options` may be NULL. Uses a stack buffer and, for large
 * or deep input, malloc. Returns APS_OK or the first error, located in `err`
 * (may be NULL).
 */
APS_NODISCARD aps_status aps_json_validate(const char *json, size_t len,
                                           const aps_json_reader_options *options,
                                           aps_error *err);

/* ---- raw values ------------------------------------------------------ */

/* Kind of a raw value (APS_JSON_INVALID for an empty slice). */
aps_json_kind aps_json_raw_kind(aps_json_raw raw);

/*
 * Starts a reader over a raw value, to walk its members or elements with
 * the reader calls above. Same contract as aps_json_reader_init.
 */
void aps_json_raw_reader(aps_json_reader *r, aps_json_raw raw, aps_arena *arena);

/*
 * Finds the member named `name` (`len` bytes, compared with unescaped
 * names) of the raw object `obj`. APS_OK with *out set, APS_E_NOT_FOUND when
 * absent, APS_E_TYPE when `obj` is not an object, APS_E_NOMEM / APS_E_LIMIT
 * when `arena` (used for escaped names) fails.
 */
APS_NODISCARD aps_status aps_json_raw_member(aps_json_raw obj, const char *name, size_t len,
                                             aps_arena *arena, aps_json_raw *out,
                                             aps_error *err);

/*
 * JSON equality of two raw values: object member order ignored, numbers
 * compared by exact decimal value (1.0 == 1 == 10e-1, -0 == 0), strings by
 * unescaped content. Sets *equal to 1 or 0. Allocates nothing; recursion is
 * bounded: APS_E_DEPTH past APS_JSON_MAX_DEPTH_DEFAULT levels, APS_E_SYNTAX
 * if a value is not valid JSON. Objects compare in time quadratic in their
 * member count; meant for tests and round-trip checks.
 */
APS_NODISCARD aps_status aps_json_raw_equal(aps_json_raw a, aps_json_raw b, int *equal);

/* ---- writer ---------------------------------------------------------- */

/* Deepest nesting the writer supports (APS_E_DEPTH beyond). */
#define APS_JSON_WRITER_MAX_DEPTH 1024

/*
 * A JSON writer, in caller storage. Fields are private. Writes compact JSON
 * (no whitespace), inserting commas and colons itself.
 */
typedef struct aps_json_writer {
    char *buf;
    size_t len;
    size_t cap;
    int fixed;              /* caller-owned buffer: never grown or freed */
    aps_status status;      /* first failure, sticky */
    size_t depth;
    unsigned state;         /* what the innermost container expects next */
    aps_allocator allocator;
    uint64_t is_object[APS_JSON_WRITER_MAX_DEPTH / 64];
} aps_json_writer;

/*
 * Initialises a writer into a growable buffer obtained from `allocator`
 * (NULL: malloc/free; copied). Allocates nothing until the first write.
 */
void aps_json_writer_init(aps_json_writer *w, const aps_allocator *allocator);

/*
 * Initialises a writer into the caller's `buf` of `cap` bytes, never grown:
 * output that does not fit is APS_E_LIMIT (sticky).
 */
void aps_json_writer_init_fixed(aps_json_writer *w, char *buf, size_t cap);

/* Frees a growable buffer. NULL-safe. */
void aps_json_writer_deinit(aps_json_writer *w);

/* Forgets the output and any error, keeping the buffer for the next text. */
void aps_json_writer_reset(aps_json_writer *w);

/*
 * The write calls. None returns a status: the first failure (APS_E_NOMEM,
 * APS_E_LIMIT when a fixed buffer is full, APS_E_STATE for a call out of
 * order such as a value where a key is expected, APS_E_DEPTH, APS_E_ARGUMENT
 * for a non-finite double) is recorded and every later call does nothing.
 * Check it with aps_json_writer_status or aps_json_writer_finish.
 */
void aps_json_write_object_begin(aps_json_writer *w);
void aps_json_write_object_end(aps_json_writer *w);
void aps_json_write_array_begin(aps_json_writer *w);
void aps_json_write_array_end(aps_json_writer *w);

/* Member name `s` of `len` bytes (escaped as a string); the value follows. */
void aps_json_write_key(aps_json_writer *w, const char *s, size_t len);

/*
 * String `s` of `len` bytes, escaped: '"', '\\' and control characters
 * (\b \f \n \r \t or \u00XX); every other byte, non-ASCII UTF-8 included, is
 * written as is. The writer does not validate UTF-8 (decoded strings
 * already are).
 */
void aps_json_write_string(aps_json_writer *w, const char *s, size_t len);

/* An integer, in decimal. */
void aps_json_write_int64(aps_json_writer *w, int64_t v);
void aps_json_write_uint64(aps_json_writer *w, uint64_t v);

/* Shortest text that reads back as the same double; NaN and infinities are APS_E_ARGUMENT. */
void aps_json_write_double(aps_json_writer *w, double v);

/* `true` (v non-zero) or `false`; `null`. */
void aps_json_write_bool(aps_json_writer *w, int v);
void aps_json_write_null(aps_json_writer *w);

/* Inserts a raw value, compacted: whitespace between its tokens is dropped, so
 * the writer's output stays compact (it is trusted to be valid JSON, as every
 * aps_json_raw is). */
void aps_json_write_raw(aps_json_writer *w, aps_json_raw raw);

/* The sticky status: APS_OK while every write succeeded. */
APS_NODISCARD static inline aps_status aps_json_writer_status(const aps_json_writer *w)
{
    return w->status;
}

/*
 * Ends the text: returns the sticky status, or APS_E_STATE when a container
 * is still open or nothing was written; details go to `err` (may be NULL).
 */
APS_NODISCARD aps_status aps_json_writer_finish(aps_json_writer *w, aps_error *err);

/* The bytes written so far (not NUL-terminated; NULL before the first write) and their count. */
static inline const char *aps_json_writer_data(const aps_json_writer *w)
{
    return w->buf;
}

/* The number of bytes written so far. */
static inline size_t aps_json_writer_len(const aps_json_writer *w)
{
    return w->len;
}

#ifdef __cplusplus
}
#endif
#endif /* APS_JSON_H */
