/*
 * aps/fast.h - what the straight-line decoders that cddlgen generates are
 * made of: the byte scans of aps/scan.h, and the calls into the
 * runtime's table-driven fast path for whatever a generated decoder leaves
 * to it.
 *
 * Included by generated PREFIX.c files, not meant for applications: it may
 * change with any release, together with the generated code.
 *
 * The rule of every fast decoder, generated or not: it reads well-formed
 * input of the usual shape with no error bookkeeping, and gives up
 * (returns NULL) on anything it is not sure of; aps_schema_decode then
 * starts over on a slower path, so what a fast decoder accepts, the exact
 * decoder accepts, with the same value (fuzzed by tests/fuzz/decode_fast.c).
 * Every function here returns the position after what it read, or NULL to
 * give up.
 */
#ifndef APS_FAST_H
#define APS_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "aps/arena.h"
#include "aps/common.h"
#include "aps/json.h"
#include "aps/json_impl.h"
#include "aps/scan.h"
#include "aps/schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Forced inline: a call costs more than these bodies. Branch hints: giving
 * up is the rare way out, and compact JSON has no whitespace. */
#define APS_FAST_INLINE APS_SCAN_INLINE
#define APS_FAST_LIKELY(x) APS_SCAN_LIKELY(x)
#define APS_FAST_UNLIKELY(x) APS_SCAN_UNLIKELY(x)

/*
 * What a fast decode carries: the input's bounds, the arena, the key spelling
 * accepted, and nesting: JSON containers open (`depth`, at most
 * `max_depth`) and typed values open (`typed`, at most APS_FAST_MAX_TYPED),
 * so that recursive schemas recurse boundedly. `generated` says whether the
 * table-driven path may call the generated decoders (aps_type.fast).
 */
struct aps_fast_ctx {
    const char *begin; /* the input's first byte: its last 16 may be read at once (aps_scan_plain_in) */
    const char *end;
    aps_arena *arena;
    aps_key_case key_case;
    unsigned depth;
    unsigned max_depth;
    unsigned typed;
    bool generated;
    unsigned compact_misses;  /* outermost values aps_fast_compact gave up on (tests read it) */
    unsigned compact_retries; /* values inside a compact read, read again member by member (0 or 1) */
};

#define APS_FAST_MAX_TYPED 128

/*
 * Sets c up for a fast decode of the len bytes at json, allocating in
 * arena: the key case and nesting bound of `options` (NULL: the
 * defaults). `generated`: the types' generated decoders (aps_type.fast)
 * may be called.
 */
APS_FAST_INLINE void aps_fast_begin(aps_fast_ctx *c, const char *json, size_t len, aps_arena *arena,
                                    const aps_decode_options *options, bool generated)
{
    size_t max_depth = options != NULL && options->max_depth != 0 ? options->max_depth : APS_JSON_MAX_DEPTH_DEFAULT;
    c->begin = json;
    c->end = json + len;
    c->arena = arena;
    c->key_case = options != NULL ? options->key_case : APS_CASE_EITHER;
    c->depth = 0;
    c->max_depth = max_depth < APS_JSON_FAST_DEPTH ? (unsigned)max_depth : APS_JSON_FAST_DEPTH;
    c->typed = 0;
    c->generated = generated;
    c->compact_misses = 0;
    c->compact_retries = 0;
}

/*
 * memset(out, 0, size), out of line: where the size is a constant (a
 * generated decoder's output), compilers expand memset into `rep stos`,
 * which measured slower than the C library's vector stores on the few
 * hundred bytes of a decoded message.
 */
void aps_fast_zero(void *out, size_t size);

/*
 * What aps_schema_decode does once the generated decoder of `type` gave
 * up on the whole input (aps_fast_decode): the table-driven fast path,
 * then the exact decoder, which says where the input is wrong. The
 * arguments are those aps_fast_decode took its way with.
 */
aps_status aps_fast_decode_rest(const aps_type *type, const char *json, size_t len, aps_arena *arena, void *out,
                                const aps_decode_options *options, aps_error *err);

/*
 * aps_schema_decode(type, ...) for a type whose generated decoder is
 * `fast`: what a generated PREFIX_T_decode_opts is. The usual case (the
 * input read whole by `fast`) runs inline, a direct call with no
 * descriptor walk in between; anything else takes aps_schema_decode's
 * ways, with the same results.
 */
APS_FAST_INLINE aps_status aps_fast_decode(const aps_type *type, aps_fast_decoder fast, const char *json, size_t len,
                                           aps_arena *arena, void *out, const aps_decode_options *options,
                                           aps_error *err)
{
    if (APS_FAST_LIKELY(json != NULL && arena != NULL && out != NULL && (options == NULL || !options->copy_strings))) {
        aps_fast_ctx c;
        aps_arena_marker mark = aps_arena_mark(arena);
        const char *p;
        aps_fast_begin(&c, json, len, arena, options, true);
        aps_fast_zero(out, type->size);
        p = fast(&c, aps_scan_ws(json, c.end), out);
        if (APS_FAST_LIKELY(p != NULL && aps_scan_ws(p, c.end) == c.end)) {
            if (err != NULL)
                aps_error_clear(err);
            return APS_OK;
        }
        aps_arena_rollback(arena, mark);
        return aps_fast_decode_rest(type, json, len, arena, out, options, err);
    }
    return aps_schema_decode(type, json, len, arena, out, options, err);
}

/* Most members one object's seen-set word tracks (its own plus its variant's): a bit each. */
#define APS_FAST_MAX_FIELDS 64

/* ---- what generated decoders call ------------------------------------------------ */

/*
 * Enters the container whose `open` byte ('{' or '[') must stand at p;
 * stands at its first item, or after it with *closed set when it is empty.
 * The caller leaves it with c->depth--.
 */
APS_FAST_INLINE const char *aps_fast_open(aps_fast_ctx *c, const char *p, char open, int *closed)
{
    if (APS_FAST_UNLIKELY(p >= c->end || *p != open || ++c->depth > c->max_depth))
        return NULL;
    p = aps_scan_ws(p + 1, c->end);
    *closed = p < c->end && *p == (open == '{' ? '}' : ']');
    return p + *closed;
}

/*
 * Is the member name k (a name read by aps_scan_name) the member whose
 * schema spelling is `key` and snake_case spelling `snake`, under the key
 * case of the decode? Lengths are compared first: most names differ there.
 */
APS_FAST_INLINE bool aps_fast_named(const aps_fast_ctx *c, aps_slice k, const char *key, size_t key_len,
                                    const char *snake, size_t snake_len)
{
    if (c->key_case != APS_CASE_SNAKE && k.len == key_len && aps_scan_bytes_equal(k.ptr, key, key_len))
        return true;
    return c->key_case != APS_CASE_SCHEMA && k.len == snake_len && aps_scan_bytes_equal(k.ptr, snake, snake_len);
}

/*
 * Is the member at p, compact, the one whose `"name":` in the schema's
 * spelling is `key` (n bytes) and in snake_case `snake` (sn bytes), under
 * the key case of the decode? Then returns its value's position, else
 * NULL (the caller reads the name the long way). The names must be plain
 * printable ASCII, so that equal bytes mean an equal name.
 */
APS_FAST_INLINE const char *aps_fast_key(const aps_fast_ctx *c, const char *p, const char *key, size_t n,
                                         const char *snake, size_t sn)
{
    if (c->key_case != APS_CASE_SNAKE && (size_t)(c->end - p) >= n && aps_scan_bytes_equal(p, key, n))
        return aps_scan_ws(p + n, c->end);
    if (c->key_case != APS_CASE_SCHEMA && (size_t)(c->end - p) >= sn && aps_scan_bytes_equal(p, snake, sn))
        return aps_scan_ws(p + sn, c->end);
    return NULL;
}

/*
 * The compact form: what servers write, and what generated readers of it
 * (PREFIX_T_fast_compact) take in one straight pass: an object's members in
 * the schema's order, each in a spelling the key case accepts (the
 * schema's, or snake_case as servers in Python write it), no whitespace,
 * a discriminant first, and members the schema does not name (of an open
 * type) only after those it does. Anything else makes them give up, and
 * the general generated decoder reads the value from its start.
 */

/*
 * Is the member at p, compact, the token `token` (n bytes): its separator
 * and `"name":`, compared whole? The generated readers call it where the
 * separator is ',' for certain (after a discriminant or a required member).
 */
APS_FAST_INLINE bool aps_fast_compact_next(const aps_fast_ctx *c, const char *p, const char *token, size_t n)
{
    return (size_t)(c->end - p) >= n && aps_scan_bytes_equal(p, token, n);
}

/*
 * aps_fast_compact_next for a member whose token (n bytes) is `token` in
 * the schema's spelling and `snake` (sn bytes) in snake_case, as the
 * decode's key case allows: returns the length of the one at p, 0 when
 * neither is.
 */
APS_FAST_INLINE size_t aps_fast_compact_next_name(const aps_fast_ctx *c, const char *p, const char *token, size_t n,
                                                  const char *snake, size_t sn)
{
    if (c->key_case != APS_CASE_SNAKE && aps_fast_compact_next(c, p, token, n))
        return n;
    if (c->key_case != APS_CASE_SCHEMA && aps_fast_compact_next(c, p, snake, sn))
        return sn;
    return 0;
}

/*
 * Is the member at p, compact, `sep` (the byte before it: '{' for an
 * object's first member, ',' after) then the `"name":` token (n bytes)?
 */
APS_FAST_INLINE bool aps_fast_compact_key(const aps_fast_ctx *c, const char *p, char sep, const char *token,
                                          size_t n)
{
    return p < c->end && *p == sep && aps_fast_compact_next(c, p + 1, token, n);
}

/* aps_fast_compact_next_name after the separator `sep`: the length of the name's token at p + 1, 0 when neither. */
APS_FAST_INLINE size_t aps_fast_compact_name(const aps_fast_ctx *c, const char *p, char sep, const char *token,
                                             size_t n, const char *snake, size_t sn)
{
    return p < c->end && *p == sep ? aps_fast_compact_next_name(c, p + 1, token, n, snake, sn) : 0;
}

/* After an object's members read compactly: its '}', or "{}" when it had none (`sep` still '{'). */
APS_FAST_INLINE const char *aps_fast_compact_close(const aps_fast_ctx *c, const char *p, char sep)
{
    if (sep == '{')
        return c->end - p >= 2 && p[0] == '{' && p[1] == '}' ? p + 2 : NULL;
    return p < c->end && *p == '}' ? p + 1 : NULL;
}

/* After an alternative's compact reader: the union's raw text from start when it read one (end not NULL); returns end. */
APS_FAST_INLINE const char *aps_fast_compact_raw(const char *start, const char *end, aps_json_raw *raw)
{
    if (end != NULL) {
        raw->ptr = start;
        raw->len = (size_t)(end - start);
    }
    return end;
}

/*
 * Tries `compact`, a generated reader of the compact form, on the value at
 * p, but only as the outermost typed value of a decode (nested values are
 * read compactly by their parent's reader, or not at all: one attempt per
 * decode, so giving up costs a pass at most). Returns where it ended;
 * NULL when it gave up, with what it did undone: the arena, the nesting
 * counts, and the `size` bytes at out zeroed again, as the general decoder
 * expects them.
 */
APS_FAST_INLINE const char *aps_fast_compact(aps_fast_ctx *c, const char *p, void *out, size_t size,
                                             const char *(*compact)(aps_fast_ctx *, const char *, void *))
{
    aps_arena_marker mark;
    unsigned depth = c->depth;
    const char *q;
    if (c->typed != 0)
        return NULL;
    mark = aps_arena_mark(c->arena);
    if ((q = compact(c, p, out)) != NULL)
        return q;
    aps_arena_rollback(c->arena, mark);
    c->depth = depth;
    c->typed = 0;
    c->compact_misses++;
    memset(out, 0, size);
    return NULL;
}

/*
 * A generated compact reader that gave up on the object at p. Inside
 * another value (typed, the count of typed values around it, is not 0),
 * and when no object of this decode was read again yet, the object is read
 * again by `full` (member by member, as a value inside another: no compact
 * try), with the nesting counts put back to depth and typed and the `size`
 * bytes at out zeroed (c->compact_retries counts it), and the compact read
 * around it goes on: an object whose members come in another order than
 * the schema's (a real server's content block with `index` before `type`,
 * a `reason` before `usage`) costs a second read of that object, not of
 * the whole message. What the first try allocated stays in the arena until
 * its reset (no more than the bytes it read). NULL otherwise: the
 * outermost value is aps_fast_compact's to undo, and a second give-up goes
 * up to it, so the compact try reads at most one object's bytes twice.
 * Out of line: rare.
 */
const char *aps_fast_compact_retry(aps_fast_ctx *c, const char *p, void *out, size_t size,
                                   const char *(*full)(aps_fast_ctx *, const char *, void *), unsigned depth,
                                   unsigned typed);

/* Marks member number `bit` seen; false if it was seen already (a duplicate). */
APS_FAST_INLINE bool aps_fast_see(uint64_t *seen, unsigned bit)
{
    uint64_t b = (uint64_t)1 << bit;
    if (APS_FAST_UNLIKELY(*seen & b))
        return false;
    *seen |= b;
    return true;
}

/*
 * aps_fast_string for strings with escapes or bytes past ASCII (out of
 * line): the string whose '"' is at p, from s, where aps_scan_plain_in
 * stopped before its end.
 */
const char *aps_fast_string_slow(aps_fast_ctx *c, const char *p, const char *s, aps_slice *out);

/*
 * The string at p: *out is its content, a slice of the input without
 * escapes, else unescaped into the arena.
 */
APS_FAST_INLINE const char *aps_fast_string(aps_fast_ctx *c, const char *p, aps_slice *out)
{
    const char *s, *stop;
    if (p >= c->end || *p != '"')
        return NULL;
    if (APS_FAST_LIKELY((s = aps_scan_plain_in(c->begin, p + 1, c->end, &stop)) != NULL)) {
        out->ptr = p + 1;
        out->len = (size_t)(s - p) - 2;
        return s;
    }
    return aps_fast_string_slow(c, p, stop, out);
}

/*
 * Is the string at p exactly `lit` (n bytes of printable ASCII without '"'
 * or '\\', so the bytes and a closing '"' decide)? Returns the position
 * after it, or NULL when it is not (or is spelled with escapes).
 */
APS_FAST_INLINE const char *aps_fast_literal(const aps_fast_ctx *c, const char *p, const char *lit, size_t n)
{
    return (size_t)(c->end - p) > n + 1 && p[0] == '"' && p[n + 1] == '"' && aps_scan_bytes_equal(p + 1, lit, n)
               ? p + n + 2
               : NULL;
}

/* An unsigned integer within [min, max]. */
APS_FAST_INLINE const char *aps_fast_uint(const aps_fast_ctx *c, const char *p, uint64_t min, uint64_t max,
                                          uint64_t *out)
{
    bool neg;
    uint64_t mag;
    if ((p = aps_scan_integer(p, c->end, &neg, &mag)) == NULL || (neg && mag != 0) || mag < min || mag > max)
        return NULL;
    *out = mag;
    return p;
}

/* A signed integer within [min, max]. */
APS_FAST_INLINE const char *aps_fast_int(const aps_fast_ctx *c, const char *p, int64_t min, int64_t max,
                                         int64_t *out)
{
    bool neg;
    uint64_t mag;
    int64_t v;
    if ((p = aps_scan_integer(p, c->end, &neg, &mag)) == NULL)
        return NULL;
    v = neg ? -(int64_t)mag : (int64_t)mag; /* mag < 10^18: no overflow */
    if (v < min || v > max)
        return NULL;
    *out = v;
    return p;
}

/* Reads `true` or `false` at `p` into *out; NULL (give up) on anything else. */
APS_FAST_INLINE const char *aps_fast_bool(const aps_fast_ctx *c, const char *p, bool *out)
{
    if (p < c->end && *p == 't') {
        *out = true;
        return aps_scan_word(p, c->end, "true", 4);
    }
    *out = false;
    return p < c->end && *p == 'f' ? aps_scan_word(p, c->end, "false", 5) : NULL;
}

/* `null` at p (for `T / null` members: the caller tests *p == 'n' first). */
APS_FAST_INLINE const char *aps_fast_null(const aps_fast_ctx *c, const char *p)
{
    return aps_scan_word(p, c->end, "null", 4);
}

/* A text value of type t: a string within t's size bounds matching its pattern. */
const char *aps_fast_text(aps_fast_ctx *c, const aps_type *t, const char *p, aps_slice *out);

/* An `any` value: one valid JSON text, kept as written. */
const char *aps_fast_any(aps_fast_ctx *c, const char *p, aps_json_raw *out);

/*
 * Looks ahead from the member value at p, through the rest of its object,
 * for the member named `key` (or `snake`, under the key case); returns the
 * position of that member's value, or NULL when the object has none. The
 * values skipped are checked as `any` values are; nothing is decoded.
 */
const char *aps_fast_look_ahead(aps_fast_ctx *c, const char *p, const char *key, size_t key_len, const char *snake,
                                size_t snake_len);

/*
 * Any value of type t, by the runtime's table-driven fast path (which calls
 * back into generated decoders where t's parts have them and c->generated).
 */
const char *aps_fast_value(aps_fast_ctx *c, const aps_type *t, const char *p, void *out);

/*
 * The member `name` of the open struct `owner` (at `base`) that none of its
 * fields has, value at *pp, kept in its list of unknown members; *cap is the
 * list's room (0 at first). Returns 1, or -1 to give up.
 */
int aps_fast_extra(aps_fast_ctx *c, const aps_type *owner, void *base, aps_slice name, const char **pp,
                   size_t *cap);

/* aps_fast_compact_extras past its first test: the members themselves (out of line: rare). */
const char *aps_fast_compact_extras_read(aps_fast_ctx *c, const char *p, char *sep, const aps_type *owner, void *out,
                                         int (*index)(const aps_fast_ctx *, aps_slice));

/*
 * After the named members of an object of the open struct `owner` (at out)
 * were read compactly, `*sep` as they left it: the members its schema does
 * not name (what a server adds), kept by aps_fast_extra as the
 * member-by-member reader keeps them. A name `index` (the struct's own
 * name lookup) knows is a member out of order: NULL, to give up and leave
 * it to that reader.
 */
APS_FAST_INLINE const char *aps_fast_compact_extras(aps_fast_ctx *c, const char *p, char *sep, const aps_type *owner,
                                                    void *out, int (*index)(const aps_fast_ctx *, aps_slice))
{
    if (!(c->end - p > 1 && p[0] == *sep && p[1] == '"'))
        return p;
    return aps_fast_compact_extras_read(c, p, sep, owner, out, index);
}

/* aps_fast_grow when the array is full: doubles it in the arena (out of line: rare). */
void *aps_fast_grow_full(aps_fast_ctx *c, void *items, size_t *cap, size_t size);

/*
 * Makes room for item n (of `size` bytes, zeroed) in the arena array
 * `items` of *cap items; returns the array (moved perhaps when it grew),
 * or NULL when memory runs out. The first room, for four items, is taken
 * here: most arrays in messages are short.
 */
APS_FAST_INLINE void *aps_fast_grow(aps_fast_ctx *c, void *items, size_t n, size_t *cap, size_t size)
{
    if (*cap == 0) {
        if ((items = aps_arena_alloc(c->arena, 4 * size)) == NULL)
            return NULL;
        *cap = 4;
    } else if (n == *cap && (items = aps_fast_grow_full(c, items, cap, size)) == NULL) {
        return NULL;
    }
    memset((char *)items + n * size, 0, size);
    return items;
}

/* ---- what generated validators call ------------------------------------------------ */

/* Is [s, s + n) valid UTF-8? (aps_fast_utf8_ok past ASCII.) */
bool aps_fast_utf8_check(const char *s, size_t n);

/* Are the n bytes at s valid UTF-8? ASCII is checked here, 16 or 8 bytes a step. */
APS_FAST_INLINE bool aps_fast_utf8_ok(const char *s, size_t n)
{
    size_t i = 0; /* indexes, not pointers: s may be NULL when n is 0 */
#if defined(__SSE2__)
    for (; n - i >= 16; i += 16) {
        if (_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i))) != 0)
            return aps_fast_utf8_check(s, n);
    }
#endif
    for (; n - i >= 8; i += 8) {
        if (aps_scan_load64(s + i) & 0x8080808080808080ull)
            return aps_fast_utf8_check(s, n);
    }
    for (; i < n; i++) {
        if ((unsigned char)s[i] & 0x80u)
            return aps_fast_utf8_check(s, n);
    }
    return true;
}

/* A text value as the validator checks it: a pointer if not empty, UTF-8, and no constraint. */
APS_FAST_INLINE bool aps_fast_string_ok(const aps_slice *s)
{
    return (s->ptr != NULL || s->len == 0) && aps_fast_utf8_ok(s->ptr, s->len);
}

/* A text value of type t: aps_fast_string_ok and t's size bounds and pattern. */
bool aps_fast_text_ok(const aps_type *t, const aps_slice *s);

/* An `any` value: one valid JSON text. */
bool aps_fast_any_ok(const aps_json_raw *raw);

/*
 * Writes a raw value (ptr and len set) that aps_fast_any_ok accepts, as
 * aps_json_impl_put_raw writes it; false for one it refuses. A compact
 * value (what a decode of compact JSON points at) is validated and copied
 * in one pass (aps_json_impl_skip_compact), any other as before.
 */
bool aps_fast_put_any_checked(aps_json_writer *w, const aps_json_raw *raw);

/*
 * The unknown members of a value of struct t (which has no variants):
 * names that are valid UTF-8 and no field's, values that are valid JSON
 * (of t's typed tail, if any).
 */
bool aps_fast_extras_ok(const aps_type *t, const aps_json_members *x);

/*
 * A value of type t, inside `depth` typed values, checked by the
 * table-driven validator without a message: for what a generated validator
 * leaves to it.
 */
bool aps_fast_valid(const aps_type *t, const void *value, bool strict, unsigned depth);


/* ---- what generated encoders call ------------------------------------------------
 * A generated encoder (aps_fast_writer) writes its value straight into the
 * writer's buffer with the writer's primitives (aps/json_impl.h): member
 * names and literal values as constant bytes, each value checked as it is
 * written unless `trusted`, with the checks of aps_schema_validate (not
 * strict). It gives up (false) on any failure, a check or the writer's room,
 * and on what it leaves to the tables (an unknown variant); aps_schema_encode
 * then rolls the writer back to where the value began and takes the
 * table-driven path, which writes it or says where it fails. So what a
 * generated encoder writes, the tables would write (fuzzed by
 * tests/fuzz/decode_roundtrip.h).
 */

/* The constant `tok` (n bytes: ',' then a member's `"name":`, and perhaps its literal value), without the comma unless `comma`. */
APS_FAST_INLINE bool aps_fast_put_token(aps_json_writer *w, const char *tok, size_t n, bool comma)
{
    return aps_json_impl_put(w, tok + !comma, n - !comma) != 0;
}

/* Are the n <= 32 bytes at s all ASCII? (At most four loads.) */
APS_FAST_INLINE bool aps_fast_ascii32(const char *s, size_t n)
{
    uint64_t acc = 0;
    size_t i;
    if (n < 8) {
        for (i = 0; i < n; i++)
            acc |= (unsigned char)s[i];
        return (acc & 0x80u) == 0;
    }
    for (i = 0; i + 8 < n; i += 8)
        acc |= aps_scan_load64(s + i);
    acc |= aps_scan_load64(s + n - 8);
    return (acc & 0x8080808080808080ull) == 0;
}

/*
 * A text value, quoted and escaped; unless trusted, checked as the
 * validator checks it (valid UTF-8). Short plain ASCII, most of them, is one
 * copy and a test of the bytes copied.
 */
APS_FAST_INLINE bool aps_fast_put_text(aps_json_writer *w, const aps_slice *s, bool trusted)
{
    size_t n = s->len;
    if (APS_FAST_UNLIKELY(s->ptr == NULL && n != 0))
        return false;
    if (n <= 32) {
        char *o;
        if (!aps_json_impl_reserve(w, n + 2))
            return false;
        o = w->buf + w->len;
        if (aps_json_impl_copy_plain32(o + 1, s->ptr, n) && (trusted || aps_fast_ascii32(s->ptr, n))) {
            o[0] = '"';
            o[n + 1] = '"';
            w->len += n + 2;
            return true;
        }
    }
    return (trusted || aps_fast_utf8_ok(s->ptr, n)) && aps_json_impl_put_string_slow(w, s->ptr, n);
}

/* An `any` value, compacted; unless trusted, checked to be one valid JSON text. */
APS_FAST_INLINE bool aps_fast_put_any(aps_json_writer *w, const aps_json_raw *raw, bool trusted)
{
    if (raw->ptr == NULL || raw->len == 0)
        return false;
    return trusted ? aps_json_impl_put_raw(w, *raw) != 0 : aps_fast_put_any_checked(w, raw);
}

/*
 * A value of type t (at `value`; NULL for a literal), inside `depth` typed
 * values, by the tables: checked by the table-driven validator unless
 * trusted, then written by the table-driven encoder (its `any` values
 * checked as they are written, by aps_fast_put_any_checked: on false the
 * writer holds part of the value, as with any generated encoder's failure).
 * For the parts a generated encoder leaves to them (enums, floats, maps,
 * choices of kinds).
 */
bool aps_fast_put_table(aps_json_writer *w, const aps_type *t, const void *value, unsigned depth, bool trusted);

/*
 * The unknown members of a value of struct t (which has no variants),
 * after the object's members that begin at buffer offset `first`;
 * unless trusted, checked as aps_fast_extras_ok checks them.
 */
bool aps_fast_put_extras(aps_json_writer *w, const aps_type *t, const aps_json_members *x, bool trusted, size_t first);

#ifdef __cplusplus
}
#endif
#endif /* APS_FAST_H */
