/*
 * aps/cbor.h - RFC 8949 CBOR: a pull reader, a writer, diagnostic notation.
 *
 * The CBOR counterpart of aps/json.h, with the same shape: the reader walks
 * one encoded data item (or an RFC 8742 sequence of them) in place, hands
 * out byte and text strings as slices of the input when they are written in
 * one piece (indefinite-length strings are joined in the caller's arena),
 * checks well-formedness (RFC 8949 section 3 and Appendix F), UTF-8 in text
 * strings, nesting depth without recursion, and duplicate map keys in every
 * map it walks, skipped ones included. Errors are located: byte offset plus
 * the path of the item being read, written as an RFC 6901 JSON Pointer
 * whose tokens are array indices and map keys (a text key as its text, an
 * integer key in decimal, any other key in diagnostic notation).
 *
 *     aps_cbor_reader r;
 *     aps_cbor_raw key;
 *     int more;
 *     aps_cbor_reader_init(&r, data, len, &arena, NULL);
 *     if ((st = aps_cbor_read_map(&r, NULL, err))) return st;
 *     while (!(st = aps_cbor_next_entry(&r, &key, &more, err)) && more) {
 *         if (aps_cbor_raw_is_text(key, "alg", 3))
 *             st = aps_cbor_read_int(&r, &alg, err);
 *         else
 *             st = aps_cbor_skip(&r, err);
 *         if (st) return st;
 *     }
 *     if (st || (st = aps_cbor_reader_finish(&r, err))) return st;
 *
 * The writer emits preferred serialization (RFC 8949 section 4.1: the shortest
 * head for every argument, floats in the shortest width that keeps their
 * value) into a growable or a fixed buffer, and on request deterministic
 * encoding (section 4.2.1: also definite lengths only and map entries sorted by
 * their keys' bytes). Its write calls return nothing: the first failure
 * sticks and aps_cbor_writer_finish reports it.
 *
 * Thread-safety: a reader or writer belongs to one thread at a time; the
 * bytes a reader walks must not change while it does. Everything else here
 * is reentrant.
 */
#ifndef APS_CBOR_H
#define APS_CBOR_H

#include <stdbool.h>

#include "aps/arena.h"
#include "aps/common.h"
#include "aps/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One complete, well-formed encoded data item (its head, content and, for a
 * tag, the tagged item). Zero-copy: it points into the input it was read
 * from, or into an arena. Used for CDDL `any` and for map keys.
 */
typedef struct aps_cbor_raw {
    const uint8_t *ptr;
    size_t len;
} aps_cbor_raw;

/* The kind of a data item, as seen from its initial byte. */
typedef enum aps_cbor_type {
    APS_CBOR_INVALID = 0, /* no item here: end of input, a break, or a reserved initial byte */
    APS_CBOR_UINT,        /* major type 0 */
    APS_CBOR_NEGINT,      /* major type 1: -1 - n */
    APS_CBOR_BYTES,       /* major type 2 */
    APS_CBOR_TEXT,        /* major type 3 */
    APS_CBOR_ARRAY,       /* major type 4 */
    APS_CBOR_MAP,         /* major type 5 */
    APS_CBOR_TAG,         /* major type 6 */
    APS_CBOR_BOOL,        /* simple values 20 (false) and 21 (true) */
    APS_CBOR_NULL,        /* simple value 22 */
    APS_CBOR_UNDEFINED,   /* simple value 23 */
    APS_CBOR_SIMPLE,      /* any other simple value (0..19, 32..255) */
    APS_CBOR_FLOAT        /* half, single or double precision */
} aps_cbor_type;

/* Nesting limit used when the options say 0. */
#define APS_CBOR_MAX_DEPTH_DEFAULT 512

/* "Unknown count": what aps_cbor_read_array / _map report for an indefinite-length container. */
#define APS_CBOR_INDEFINITE UINT64_MAX

/* Options of the reader and of aps_cbor_validate. All zero means defaults. */
typedef struct aps_cbor_reader_options {
    size_t max_depth;      /* most nested arrays, maps and tags; 0: APS_CBOR_MAX_DEPTH_DEFAULT */
    bool deterministic;    /* refuse what RFC 8949 section 4.2.1 excludes: a head longer than its
                              argument needs, an indefinite length, a float that a shorter
                              width holds exactly (NaN other than f97e00), map keys not in
                              strictly ascending bytewise order (APS_E_SYNTAX, located) */
    bool allow_duplicates; /* 0: a map key given twice is APS_E_DUPLICATE (RFC 8949 section 5.6 calls
                              such a map invalid); 1: accepted */
    bool sequence;         /* the input is an RFC 8742 CBOR sequence: zero or more items one
                              after the other (aps_cbor_reader_at_end says when it is over) */
} aps_cbor_reader_options;

/* Private: one open array, map, tag or indefinite string (or the root, at depth 0). */
typedef struct aps_cbor_frame {
    uint64_t left;      /* items (a map's keys and values) still to come; definite only */
    uint64_t count;     /* items started so far */
    size_t start;       /* offset of the container's head */
    size_t key_start;   /* a map: offset of the current entry's key */
    size_t key_base;    /* a map: its first key in the reader's key stack */
    uint32_t *hash;     /* a map: key indices (+1, 0 = empty) once it holds many keys */
    size_t hash_cap;    /* power of two, 0 while linear */
    uint8_t indefinite; /* ends with a break (0xff) rather than after `left` items */
    uint8_t is_map;
} aps_cbor_frame;

#define APS_CBOR_INLINE_FRAMES 16
#define APS_CBOR_INLINE_KEYS 32

/*
 * A pull reader over CBOR bytes, in caller storage (about 1.5 KB; fine on
 * the stack). Fields are private. It allocates only from the arena given to
 * aps_cbor_reader_init (joined strings, canonical keys, bookkeeping for deep
 * or wide input), so the arena must not be reset behind its back while it
 * is in use.
 */
typedef struct aps_cbor_reader {
    const uint8_t *begin;
    const uint8_t *cur;
    const uint8_t *end;
    aps_arena *arena;
    size_t depth;
    size_t max_depth;
    aps_cbor_frame *frames;
    size_t frame_cap;
    aps_cbor_raw *keys;      /* the canonical keys of every open map */
    size_t key_top;
    size_t key_cap;
    size_t item_start;       /* offset of the item last read or about to be read */
    uint64_t hash_seed;
    bool deterministic;
    bool allow_duplicates;
    bool sequence;
    aps_cbor_frame inline_frames[APS_CBOR_INLINE_FRAMES];
    aps_cbor_raw inline_keys[APS_CBOR_INLINE_KEYS];
} aps_cbor_reader;

/*
 * Starts reading `len` bytes at `data` (NULL only with len 0). `arena`
 * (required) receives what the reader allocates; everything it returns
 * lives in `data` or `arena`. `options` may be NULL (defaults); it is
 * copied. Cannot fail.
 */
void aps_cbor_reader_init(aps_cbor_reader *r, const void *data, size_t len, aps_arena *arena,
                          const aps_cbor_reader_options *options);

/*
 * Kind of the next item, without consuming it. APS_CBOR_INVALID when no
 * item can start there; the read call then says why. Call it where an item
 * is expected: at the root, after aps_cbor_next_element or
 * aps_cbor_next_entry said there is one, after a tag.
 */
aps_cbor_type aps_cbor_peek(const aps_cbor_reader *r);

/*
 * Reads one item of the named kind. Each returns APS_OK, APS_E_TYPE when the
 * next item is of another kind ("expected a text string, got an unsigned
 * integer"), APS_E_SYNTAX for bytes that are not well-formed (truncated,
 * reserved additional information, a length past the end, in deterministic
 * mode a non-preferred head), APS_E_UTF8 for a text string that is not
 * UTF-8, APS_E_RANGE for a number outside the out-parameter's type,
 * APS_E_NOMEM / APS_E_LIMIT when the arena fails. `err` may be NULL; on
 * failure it receives the byte offset and the path of the item.
 * Out-parameters are written only on success.
 */
APS_NODISCARD aps_status aps_cbor_read_uint(aps_cbor_reader *r, uint64_t *out, aps_error *err);

/* Major type 0 or 1 as int64_t; APS_E_RANGE outside [INT64_MIN, INT64_MAX]. */
APS_NODISCARD aps_status aps_cbor_read_int(aps_cbor_reader *r, int64_t *out, aps_error *err);

/*
 * Major type 0 or 1, the whole 65-bit range: *negative 0 and *value the
 * unsigned integer, or *negative 1 and *value n for the integer -1 - n.
 */
APS_NODISCARD aps_status aps_cbor_read_integer(aps_cbor_reader *r, int *negative,
                                               uint64_t *value, aps_error *err);

/*
 * A byte string (major 2) or a text string (major 3, UTF-8 checked). Points
 * into the input when the string is definite; an indefinite one's chunks
 * are joined in the arena.
 */
APS_NODISCARD aps_status aps_cbor_read_bytes(aps_cbor_reader *r, aps_slice *out, aps_error *err);
APS_NODISCARD aps_status aps_cbor_read_text(aps_cbor_reader *r, aps_slice *out, aps_error *err);

/*
 * A float of any width (major 7, additional information 25, 26, 27) as a
 * double; *width (may be NULL) receives 2, 4 or 8, its size in the input.
 * Integers are not floats here (CDDL keeps them apart).
 */
APS_NODISCARD aps_status aps_cbor_read_float(aps_cbor_reader *r, double *out, int *width,
                                             aps_error *err);

/* false or true; null; undefined; any simple value (bool, null and undefined included). */
APS_NODISCARD aps_status aps_cbor_read_bool(aps_cbor_reader *r, int *out, aps_error *err);
APS_NODISCARD aps_status aps_cbor_read_null(aps_cbor_reader *r, aps_error *err);
APS_NODISCARD aps_status aps_cbor_read_undefined(aps_cbor_reader *r, aps_error *err);
APS_NODISCARD aps_status aps_cbor_read_simple(aps_cbor_reader *r, uint8_t *out, aps_error *err);

/*
 * A tag's number (major 6). The reader then stands at the tagged item,
 * which the caller reads next; the pair counts as one item of its
 * container. Tags nest, and count toward max_depth.
 */
APS_NODISCARD aps_status aps_cbor_read_tag(aps_cbor_reader *r, uint64_t *tag, aps_error *err);

/*
 * Enters an array. *count (may be NULL) receives its length, or
 * APS_CBOR_INDEFINITE. Then call aps_cbor_next_element until it says there
 * is no more; it leaves the array. A definite length longer than the bytes
 * left is APS_E_SYNTAX at once (every item takes at least one byte), so a
 * forged length costs nothing. APS_E_DEPTH beyond max_depth.
 */
APS_NODISCARD aps_status aps_cbor_read_array(aps_cbor_reader *r, uint64_t *count,
                                             aps_error *err);

/* Moves to the next element: *more = 1 and the reader stands at it, or *more = 0 and the array is left. */
APS_NODISCARD aps_status aps_cbor_next_element(aps_cbor_reader *r, int *more, aps_error *err);

/* Enters a map; *count (may be NULL) receives its number of entries, or APS_CBOR_INDEFINITE. */
APS_NODISCARD aps_status aps_cbor_read_map(aps_cbor_reader *r, uint64_t *count, aps_error *err);

/*
 * Moves to the next entry of the innermost map: reads its key (checked as
 * aps_cbor_skip checks) into `key` in canonical form (preferred heads,
 * definite lengths: the same value always gives the same bytes, so keys
 * compare with memcmp against aps_cbor_raw_is_text or precomputed
 * encodings), sets *more to 1 and stands at the value, which the caller
 * must read or skip before calling again. At the end of the map sets *more
 * to 0 and leaves it. A key already given in this map is APS_E_DUPLICATE
 * (linear time whatever the input: big maps use a seeded hash set in the
 * arena); in deterministic mode a key not above the previous one is
 * APS_E_SYNTAX. Container keys are compared as written.
 */
APS_NODISCARD aps_status aps_cbor_next_entry(aps_cbor_reader *r, aps_cbor_raw *key, int *more,
                                             aps_error *err);

/* A saved reader position, from aps_cbor_reader_save. Private fields. */
typedef struct aps_cbor_pos {
    const uint8_t *cur;
    size_t depth;
    aps_cbor_frame frame;
    aps_cbor_frame *frames;
    size_t frame_cap;
    aps_cbor_raw *keys;
    size_t key_top;
    size_t key_cap;
    size_t item_start;
    aps_arena_marker mark;
} aps_cbor_pos;

/*
 * Saves the reader's position, with an arena mark: to look ahead (for a
 * discriminant member that may come last, to try an alternative of a
 * choice) and come back. Cannot fail.
 */
void aps_cbor_reader_save(const aps_cbor_reader *r, aps_cbor_pos *pos);

/*
 * Returns to a position saved on this reader and rolls the arena back to
 * the mark taken then. Valid only while the reader has not left the
 * container that held the saved position.
 */
void aps_cbor_reader_restore(aps_cbor_reader *r, const aps_cbor_pos *pos);

/* Skips the next item, checking it fully (well-formedness, UTF-8, depth, duplicate keys) without recursion. */
APS_NODISCARD aps_status aps_cbor_skip(aps_cbor_reader *r, aps_error *err);

/* aps_cbor_skip that also returns the item's bytes, zero-copy. */
APS_NODISCARD aps_status aps_cbor_read_raw(aps_cbor_reader *r, aps_cbor_raw *out, aps_error *err);

/*
 * Ends the input: every container closed and no byte left (APS_E_SYNTAX
 * "unexpected bytes after the data item" otherwise). For a sequence, call
 * it once aps_cbor_reader_at_end says so.
 */
APS_NODISCARD aps_status aps_cbor_reader_finish(aps_cbor_reader *r, aps_error *err);

/* A sequence: true when no byte is left at the top level (no further item). */
bool aps_cbor_reader_at_end(const aps_cbor_reader *r);

/* Byte offset of the next unread byte. */
size_t aps_cbor_reader_offset(const aps_cbor_reader *r);

/*
 * Records a failure about the item last read (or about to be read) into
 * `err` (NULL-safe; the first error wins): its offset, its path and the
 * message. Returns `code`. For schema errors found by the caller.
 */
aps_status aps_cbor_reader_fail(const aps_cbor_reader *r, aps_error *err, aps_status code,
                                const char *fmt, ...) APS_PRINTF(4, 5);

/* Like aps_cbor_reader_fail, for a member `key` missing from the map just left. */
aps_status aps_cbor_reader_fail_member(const aps_cbor_reader *r, aps_error *err,
                                       aps_status code, const char *key, const char *fmt, ...)
    APS_PRINTF(5, 6);

/*
 * Checks that `data` is exactly one well-formed and valid CBOR item (or,
 * with options->sequence, a sequence of them): every check the reader
 * makes. Uses `arena` only for bookkeeping (NULL: a temporary one).
 */
APS_NODISCARD aps_status aps_cbor_validate(const void *data, size_t len,
                                           const aps_cbor_reader_options *options,
                                           aps_error *err);

/* The kind of an encoded item (APS_CBOR_INVALID for an empty one). */
aps_cbor_type aps_cbor_raw_type(aps_cbor_raw raw);

/*
 * The text of the canonical key `raw` (a definite text string, as
 * aps_cbor_next_entry hands keys out): true and *out set, or false when
 * the key is no text string.
 */
bool aps_cbor_raw_text(aps_cbor_raw raw, aps_slice *out);

/* True when the canonical key `raw` is the text string `text` of `len` bytes. */
bool aps_cbor_raw_is_text(aps_cbor_raw raw, const char *text, size_t len);

/* ---- writer ------------------------------------------------------------- */

/* Deepest nesting the writer supports (APS_E_DEPTH beyond). */
#define APS_CBOR_WRITER_MAX_DEPTH 1024

/* Options of the writer. All zero means preferred serialization, malloc. */
typedef struct aps_cbor_writer_options {
    aps_allocator allocator; /* zero: malloc/free (the buffer, and bookkeeping of open containers) */
    bool deterministic;      /* RFC 8949 section 4.2.1: definite lengths only (an indefinite begin is
                                APS_E_ARGUMENT) and the entries of every map sorted by their
                                keys' bytes when it ends (a key given twice: APS_E_DUPLICATE) */
} aps_cbor_writer_options;

/* Private: one open container of the writer. */
typedef struct aps_cbor_wframe {
    uint64_t left;       /* items still expected (definite) */
    size_t start;        /* offset of the first entry (after the head) */
    size_t entry_base;   /* deterministic maps: first entry in the writer's entry stack */
    uint8_t indefinite;
    uint8_t is_map;
    uint8_t is_string;   /* an indefinite byte or text string: chunks only */
} aps_cbor_wframe;

/*
 * A CBOR writer, in caller storage. Fields are private. Containers are
 * opened with their length (or as indefinite) and closed with the matching
 * _end call, which checks that the announced number of items was written.
 */
typedef struct aps_cbor_writer {
    uint8_t *buf;
    size_t len;
    size_t cap;
    int fixed;
    aps_status status;        /* first failure, sticky */
    aps_allocator allocator;
    bool deterministic;
    int done;                 /* the root item is complete */
    size_t depth;
    aps_cbor_wframe *frames;  /* open containers, grown with the allocator */
    size_t frame_cap;
    size_t *entries;          /* deterministic maps: key and value offsets of their entries */
    size_t entry_top;
    size_t entry_cap;
    size_t pending_tags;      /* tags written whose item has not begun */
} aps_cbor_writer;

/* Initialises a growable writer. `options` may be NULL; it is copied. Allocates nothing yet. */
void aps_cbor_writer_init(aps_cbor_writer *w, const aps_cbor_writer_options *options);

/*
 * Initialises a writer into the caller's `buf` of `cap` bytes, never grown
 * (APS_E_LIMIT when it is full). Open containers are still tracked with
 * options' allocator.
 */
void aps_cbor_writer_init_fixed(aps_cbor_writer *w, void *buf, size_t cap,
                                const aps_cbor_writer_options *options);

/* Frees what the writer holds (a growable buffer, its bookkeeping). NULL-safe. */
void aps_cbor_writer_deinit(aps_cbor_writer *w);

/* Forgets the output and any error, keeping the buffers for the next item. */
void aps_cbor_writer_reset(aps_cbor_writer *w);

/*
 * The write calls. None returns a status: the first failure (APS_E_NOMEM,
 * APS_E_LIMIT, APS_E_STATE for a call out of order such as an _end with
 * items still due or a break outside an indefinite container, APS_E_DEPTH,
 * APS_E_RANGE for a float the asked width cannot hold exactly,
 * APS_E_ARGUMENT) is recorded and every later call does nothing.
 */
void aps_cbor_write_uint(aps_cbor_writer *w, uint64_t v);
void aps_cbor_write_int(aps_cbor_writer *w, int64_t v);
/* The integer -1 - n (major type 1), for the negative half of the 65-bit range. */
void aps_cbor_write_negint(aps_cbor_writer *w, uint64_t n);
void aps_cbor_write_bytes(aps_cbor_writer *w, const void *p, size_t len);
/* A text string; the bytes are written as given (decoded strings are UTF-8 already). */
void aps_cbor_write_text(aps_cbor_writer *w, const char *s, size_t len);
void aps_cbor_write_tag(aps_cbor_writer *w, uint64_t tag);
void aps_cbor_write_bool(aps_cbor_writer *w, int v);
void aps_cbor_write_null(aps_cbor_writer *w);
void aps_cbor_write_undefined(aps_cbor_writer *w);
/* A simple value other than false/true/null/undefined: 0..19 or 32..255 (else APS_E_ARGUMENT). */
void aps_cbor_write_simple(aps_cbor_writer *w, uint8_t v);

/*
 * A float in its preferred form: the shortest of half, single and double
 * precision that holds it exactly; every NaN is written f97e00.
 */
void aps_cbor_write_float(aps_cbor_writer *w, double v);

/*
 * A float in exactly `width` bytes (2, 4 or 8), as CDDL's float16, float32
 * and float64 ask. APS_E_RANGE when the width does not hold v exactly.
 */
void aps_cbor_write_float_width(aps_cbor_writer *w, double v, int width);

/* Containers: a count, or APS_CBOR_INDEFINITE (not in deterministic mode). A map's count is its entries. */
void aps_cbor_write_array_begin(aps_cbor_writer *w, uint64_t count);
void aps_cbor_write_array_end(aps_cbor_writer *w);
void aps_cbor_write_map_begin(aps_cbor_writer *w, uint64_t count);
void aps_cbor_write_map_end(aps_cbor_writer *w);

/* An indefinite-length byte or text string: chunks written with write_bytes / write_text, then _end. */
void aps_cbor_write_bytes_begin(aps_cbor_writer *w);
void aps_cbor_write_text_begin(aps_cbor_writer *w);
void aps_cbor_write_string_end(aps_cbor_writer *w);

/* Inserts one encoded item as is (trusted to be one well-formed item, as every aps_cbor_raw is). */
void aps_cbor_write_raw(aps_cbor_writer *w, aps_cbor_raw raw);

/* The sticky status. */
APS_NODISCARD static inline aps_status aps_cbor_writer_status(const aps_cbor_writer *w)
{
    return w->status;
}

/*
 * Ends the item: the sticky status, or APS_E_STATE when a container is
 * still open or nothing was written. For a sequence, call it after each
 * item and then aps_cbor_writer_next to start the next one.
 */
APS_NODISCARD aps_status aps_cbor_writer_finish(aps_cbor_writer *w, aps_error *err);

/* Allows another top-level item after a complete one (RFC 8742 sequences). */
void aps_cbor_writer_next(aps_cbor_writer *w);

/* The bytes written so far (NULL before the first write) and their count. */
static inline const uint8_t *aps_cbor_writer_data(const aps_cbor_writer *w)
{
    return w->buf;
}
static inline size_t aps_cbor_writer_len(const aps_cbor_writer *w)
{
    return w->len;
}

/* ---- JSON and CBOR ----------------------------------------------------------- */

/*
 * Converts the next item of `r` into JSON written to `w` (RFC 8949 section 6.1,
 * for the items JSON holds): integers of the whole 65-bit range as JSON
 * integers, floats as the shortest decimal that reads back as the same
 * double, always with a '.' or an exponent (1.0, -0.0, 1.0e+300: so that
 * aps_json_to_cbor reads a float back, sign of zero included), text strings, arrays, maps whose keys are all text strings (in
 * their order), false, true, null; and, so that what aps_json_to_cbor
 * wrote comes back digit for digit, a bignum (tags 2 and 3) or a decimal
 * fraction (tag 4) as the exact JSON number it stands for (section 6.1 suggests a
 * base64 string for bignums, which would turn a JSON number into a string).
 * What JSON cannot hold is APS_E_TYPE at the item's offset and path: a
 * byte string, any other tag, undefined, any other simple value, a NaN or
 * an infinity, a key that is not a text string; a bignum of more than 1000
 * digits is APS_E_LIMIT. Recurses once per level, bounded by the reader's
 * max_depth.
 */
APS_NODISCARD aps_status aps_cbor_to_json(aps_cbor_reader *r, aps_json_writer *w, aps_error *err);

/*
 * Converts the next JSON value of `r` into CBOR written to `w` (RFC 8949
 * section 6.2), losing nothing: a number written as an integer becomes a CBOR
 * integer (major type 0 or 1; "-0" is 0), or a bignum (tag 2 or 3) past
 * 65 bits; any other number a float in its preferred width when that
 * double's shortest decimal is the number written, else a decimal fraction
 * (tag 4, [exponent, mantissa]: 1e400, or pi to 36 digits). Strings become
 * text strings, arrays arrays, objects maps with text keys in their order
 * (definite lengths: a first pass counts the containers), and true, false,
 * null themselves. A number of more than 1000 significant digits (the
 * decimal-binary conversion is quadratic) is APS_E_LIMIT. Errors carry the
 * JSON offset and pointer. Recurses once per level, bounded by the
 * reader's max_depth.
 */
APS_NODISCARD aps_status aps_json_to_cbor(aps_json_reader *r, aps_cbor_writer *w, aps_error *err);

/* ---- diagnostic notation -------------------------------------------------- */

/*
 * Writes `data` (one item, or with `sequence` an RFC 8742 sequence, items
 * separated by ", ") in RFC 8949 section 8 diagnostic notation: 1, -1, h'0102',
 * "text" (escaped as a JSON string), [1, [2, 3]], {1: 2}, [_ 1, 2] and
 * (_ h'01', h'02') for indefinite lengths, 1(1363896240), simple(16),
 * false, null, undefined, 1.5, -0.0, 1.0e+300, Infinity, NaN. Floats are
 * the shortest decimal that reads back as the same value. The text goes to
 * *out, NUL-terminated, in `arena`. Malformed input fails as
 * aps_cbor_validate does, with its location; nothing is written then.
 */
APS_NODISCARD aps_status aps_cbor_diag(const void *data, size_t len, bool sequence,
                                       aps_arena *arena, aps_slice *out, aps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* APS_CBOR_H */
