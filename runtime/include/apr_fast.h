/*
 * apr_fast.h - what the straight-line decoders that cddlgen generates are
 * made of: byte scans over well-formed JSON, and the calls into the
 * runtime's table-driven fast path for whatever a generated decoder leaves
 * to it.
 *
 * Included by generated PREFIX.c files, not meant for applications: it may
 * change with any release, together with the generated code.
 *
 * The rule of every fast decoder, generated or not: it reads well-formed
 * input of the usual shape with no error bookkeeping, and gives up
 * (returns NULL) on anything it is not sure of; apr_schema_decode then
 * starts over on a slower path, so what a fast decoder accepts, the exact
 * decoder accepts, with the same value (fuzzed by tests/fuzz/decode_fast.c).
 * Every function here returns the position after what it read, or NULL to
 * give up.
 */
#ifndef APR_FAST_H
#define APR_FAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "apr_arena.h"
#include "apr_common.h"
#include "apr_json.h"
#include "apr_schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Forced inline: a call costs more than these bodies. Branch hints: giving
 * up is the rare way out, and compact JSON has no whitespace. */
#if defined(__GNUC__) || defined(__clang__)
#define APR_FAST_INLINE static inline __attribute__((always_inline))
#define APR_FAST_LIKELY(x) __builtin_expect(!!(x), 1)
#define APR_FAST_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define APR_FAST_INLINE static inline
#define APR_FAST_LIKELY(x) (x)
#define APR_FAST_UNLIKELY(x) (x)
#endif

/*
 * What a fast decode carries: the input's end, the arena, the key spelling
 * accepted, and nesting: JSON containers open (`depth`, at most
 * `max_depth`) and typed values open (`typed`, at most APR_FAST_MAX_TYPED),
 * so that recursive schemas recurse boundedly. `generated` says whether the
 * table-driven path may call the generated decoders (apr_type.fast).
 */
struct apr_fast_ctx {
    const char *end;
    apr_arena *arena;
    apr_key_case key_case;
    unsigned depth;
    unsigned max_depth;
    unsigned typed;
    bool generated;
};

#define APR_FAST_MAX_TYPED 128

/* Most members one object's seen-set word tracks (its own plus its variant's): a bit each. */
#define APR_FAST_MAX_FIELDS 64

/* ---- bytes ------------------------------------------------------------------ */

APR_FAST_INLINE uint64_t apr_fast_load64(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

APR_FAST_INLINE uint32_t apr_fast_load32(const char *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/*
 * memcmp(x, y, n) == 0 without a library call: loads overlapping at the
 * ends, 16 bytes a step with SSE2 (8 without). The last 16 bytes are
 * compared first: names of one shape ("model_request:<uuid>") differ there.
 */
APR_FAST_INLINE int apr_fast_bytes_equal(const char *x, const char *y, size_t n)
{
    uint64_t acc;
    size_t i;
    if (n >= 16) {
#if defined(__SSE2__)
        __m128i eq = _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(x + n - 16)),
                                    _mm_loadu_si128((const __m128i *)(const void *)(y + n - 16)));
        for (i = 0; i + 16 < n; i += 16)
            eq = _mm_and_si128(eq, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(x + i)),
                                                  _mm_loadu_si128((const __m128i *)(const void *)(y + i))));
        return _mm_movemask_epi8(eq) == 0xFFFF;
#else
        acc = (apr_fast_load64(x + n - 16) ^ apr_fast_load64(y + n - 16)) |
              (apr_fast_load64(x + n - 8) ^ apr_fast_load64(y + n - 8));
        if (acc != 0)
            return 0;
        for (i = 0; i + 16 < n; i += 16)
            acc |= (apr_fast_load64(x + i) ^ apr_fast_load64(y + i)) |
                   (apr_fast_load64(x + i + 8) ^ apr_fast_load64(y + i + 8));
        return acc == 0;
#endif
    }
    if (n >= 8)
        return ((apr_fast_load64(x) ^ apr_fast_load64(y)) |
                (apr_fast_load64(x + n - 8) ^ apr_fast_load64(y + n - 8))) == 0;
    if (n >= 4)
        return ((apr_fast_load32(x) ^ apr_fast_load32(y)) |
                (apr_fast_load32(x + n - 4) ^ apr_fast_load32(y + n - 4))) == 0;
    for (acc = 0, i = 0; i < n; i++)
        acc |= (unsigned char)x[i] ^ (unsigned char)y[i];
    return acc == 0;
}


/* ---- JSON scans --------------------------------------------------------------- */

/*
 * apr_fast_find_special for the last bytes of a text (fewer than 16,
 * or all of them without SSE2): eight bytes a step with portable word
 * tricks, then byte by byte. Out of line, so that the usual case keeps
 * few registers busy.
 */
const char *apr_fast_find_special_tail(const char *s, const char *end, unsigned *high);

/*
 * Finds the first byte in [s, end) that ends a run of plain string content:
 * '"', '\\' or a control character (end when there is none). ORs into *high
 * the bytes before it, so (*high & 0x80) says whether UTF-8 needs checking.
 * Sixteen bytes a step with SSE2: member names and short values end within
 * one step.
 */
#if defined(__SSE2__)
/* The bits of the bytes of v that are '"', '\\' or a control character. */
APR_FAST_INLINE unsigned apr_fast_special16(__m128i v)
{
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1F);
    /* max(v, 0x1F) == 0x1F exactly for the bytes <= 0x1F, unsigned */
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                                    _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl)));
}
#endif

APR_FAST_INLINE const char *apr_fast_find_special(const char *s, const char *end, unsigned *high)
{
#if defined(__SSE2__)
    while (end - s >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
        unsigned m = apr_fast_special16(v), h = (unsigned)_mm_movemask_epi8(v);
        if (m != 0) {
            /* the bytes before the stop: below its bit in the masks */
            *high |= (h & (m ^ (m - 1u)) & ~m) != 0 ? 0x80u : 0u;
            return s + __builtin_ctz(m);
        }
        *high |= h != 0 ? 0x80u : 0u;
        s += 16;
    }
#endif
    return apr_fast_find_special_tail(s, end, high);
}

/* Skips JSON whitespace from p. Compact JSON has none: then one test. */
APR_FAST_INLINE const char *apr_fast_ws(const char *p, const char *end)
{
    if (APR_FAST_LIKELY(p < end && (unsigned char)*p > ' '))
        return p;
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/*
 * The first byte in [s, end) that plain ASCII string content cannot hold:
 * '"', '\\', a control character or a byte past ASCII (end when none).
 * Sixteen bytes a step with SSE2, then eight with word tricks (on
 * little-endian machines), then one: short strings at the end of a message
 * are the usual case, so none of it is out of line.
 */
APR_FAST_INLINE const char *apr_fast_find_stop(const char *s, const char *end)
{
#if defined(__SSE2__)
    while (end - s >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
        unsigned m = apr_fast_special16(v) | (unsigned)_mm_movemask_epi8(v); /* and bytes past ASCII */
        if (m != 0)
            return s + __builtin_ctz(m);
        s += 16;
    }
#endif
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (end - s >= 8) {
        const uint64_t ones = 0x0101010101010101ull;
        uint64_t w = apr_fast_load64(s), q = w ^ (ones * '"'), b = w ^ (ones * '\\');
        /* A zero byte of q or b, a byte below 0x20 or past 0x7F in w sets its high bit;
         * false flags only sit above a true one, so the lowest flag is exact. */
        uint64_t t = (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w) | w) & (ones * 0x80);
        if (t != 0)
            return s + __builtin_ctzll(t) / 8;
        s += 8;
    }
#endif
    while (s < end && (unsigned char)*s >= 0x20 && (unsigned char)*s < 0x80 && *s != '"' && *s != '\\')
        s++;
    return s;
}

/* apr_fast_scan_string for strings with escapes or bytes past ASCII. */
const char *apr_fast_scan_string_slow(const char *p, const char *end, int *escaped);

/*
 * Checks the string whose '"' is at p (p < end) as the reader does (escapes,
 * surrogates, UTF-8, no control characters); returns the byte after its
 * closing '"', or NULL. *escaped says whether it has escapes: without, its
 * content between the quotes is its text. Plain ASCII is one scan here.
 */
APR_FAST_INLINE const char *apr_fast_scan_string(const char *p, const char *end, int *escaped)
{
    const char *s = apr_fast_find_stop(p + 1, end);
    if (APR_FAST_LIKELY(s < end && *s == '"')) {
        *escaped = 0;
        return s + 1;
    }
    return apr_fast_scan_string_slow(p, end, escaped);
}

/* After a member name: the value's position past the ':', or NULL. */
APR_FAST_INLINE const char *apr_fast_scan_colon(const char *p, const char *end)
{
    /* the ':' right after the name, in compact JSON */
    if (!(p < end && *p == ':')) {
        p = apr_fast_ws(p, end);
        if (!(p < end && *p == ':'))
            return NULL;
    }
    return apr_fast_ws(p + 1, end);
}

/*
 * Reads the member name whose '"' is at p and the ':' after it; returns the
 * value's position, with *name the name's content. Escaped names give up:
 * unescaping them changes what duplicates are.
 */
APR_FAST_INLINE const char *apr_fast_scan_name(const char *p, const char *end, apr_slice *name)
{
    int escaped;
    const char *s;
    if (p >= end || *p != '"' || (s = apr_fast_scan_string(p, end, &escaped)) == NULL || escaped)
        return NULL;
    name->ptr = p + 1;
    name->len = (size_t)(s - p) - 2;
    return apr_fast_scan_colon(s, end);
}

/*
 * After an item of a container: the next item's start (*closed 0), or the
 * byte after `closer` (*closed 1).
 */
APR_FAST_INLINE const char *apr_fast_scan_next(const char *p, const char *end, char closer, int *closed)
{
    /* the ',' right after the item, in compact JSON */
    if (APR_FAST_LIKELY(p < end && *p == ',')) {
        *closed = 0;
        return apr_fast_ws(p + 1, end);
    }
    p = apr_fast_ws(p, end);
    if (p >= end)
        return NULL;
    if (*p == ',') {
        *closed = 0;
        return apr_fast_ws(p + 1, end);
    }
    *closed = 1;
    return *p == closer ? p + 1 : NULL;
}

/* `word` (n bytes: true, false, null) at p, or NULL. */
APR_FAST_INLINE const char *apr_fast_scan_word(const char *p, const char *end, const char *word, size_t n)
{
    return (size_t)(end - p) >= n && memcmp(p, word, n) == 0 ? p + n : NULL;
}


/*
 * Reads an integer at p as sign and magnitude. Numbers with a fraction or
 * exponent and magnitudes of 19 digits or more (near or past 64 bits) are
 * the exact decoder's to judge.
 */
APR_FAST_INLINE const char *apr_fast_integer(const char *p, const char *end, bool *neg, uint64_t *mag)
{
    const char *digits;
    uint64_t v = 0;
    *neg = p < end && *p == '-';
    p += *neg;
    digits = p;
    if (p >= end || (unsigned)(*p - '0') > 9)
        return NULL;
    if (*p == '0') {
        p++;
    } else {
        /* Eight digits at a time when eight bytes are digits (timestamps have 13). */
        while (end - p >= 8 && v < 10000000000ull) {
            uint64_t w = apr_fast_load64(p), lo = w - 0x3030303030303030ull;
            /* every byte a digit: no byte below '0' (borrow) nor above '9' (+6 carries to 0x10) */
            if (((w & 0xF0F0F0F0F0F0F0F0ull) | (((w + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull) >> 4)) !=
                0x3333333333333333ull)
                break;
            /* pairs, quads, then all eight: the first digit is the lowest byte */
            lo = (lo * 2561) >> 8;
            lo = ((lo & 0x00FF00FF00FF00FFull) * 6553601) >> 16;
            lo = ((lo & 0x0000FFFF0000FFFFull) * 42949672960001ull) >> 32;
            v = v * 100000000ull + lo;
            p += 8;
        }
        /* then four, the same way (the 13 digits of a timestamp are 8 + 4 + 1) */
        if (end - p >= 4) {
            uint64_t w = apr_fast_load32(p), lo = w - 0x30303030ull;
            if (((w & 0xF0F0F0F0ull) | (((w + 0x06060606ull) & 0xF0F0F0F0ull) >> 4)) == 0x33333333ull) {
                lo = (lo * 2561) >> 8;
                lo = (((lo & 0x00FF00FFull) * 6553601) >> 16) & 0xFFFFu;
                v = v * 10000u + lo;
                p += 4;
            }
        }
        while (p < end && (unsigned)(*p - '0') <= 9)
            v = v * 10 + (uint64_t)(*p++ - '0');
    }
    if (p - digits > 18 || (p < end && (*p == '.' || *p == 'e' || *p == 'E' || (unsigned)(*p - '0') <= 9)))
        return NULL;
    *mag = v;
    return p;
}

/* ---- what generated decoders call ------------------------------------------------ */

/*
 * Enters the container whose `open` byte ('{' or '[') must stand at p;
 * stands at its first item, or after it with *closed set when it is empty.
 * The caller leaves it with c->depth--.
 */
APR_FAST_INLINE const char *apr_fast_open(apr_fast_ctx *c, const char *p, char open, int *closed)
{
    if (APR_FAST_UNLIKELY(p >= c->end || *p != open || ++c->depth > c->max_depth))
        return NULL;
    p = apr_fast_ws(p + 1, c->end);
    *closed = p < c->end && *p == (open == '{' ? '}' : ']');
    return p + *closed;
}

/*
 * Is the member name k (a name read by apr_fast_scan_name) the member whose
 * schema spelling is `key` and snake_case spelling `snake`, under the key
 * case of the decode? Lengths are compared first: most names differ there.
 */
APR_FAST_INLINE bool apr_fast_named(const apr_fast_ctx *c, apr_slice k, const char *key, size_t key_len,
                                    const char *snake, size_t snake_len)
{
    if (c->key_case != APR_CASE_SNAKE && k.len == key_len && apr_fast_bytes_equal(k.ptr, key, key_len))
        return true;
    return c->key_case != APR_CASE_SCHEMA && k.len == snake_len && apr_fast_bytes_equal(k.ptr, snake, snake_len);
}

/*
 * Is the member at p, compact, the one whose `"name":` in the schema's
 * spelling is `key` (n bytes) and in snake_case `snake` (sn bytes), under
 * the key case of the decode? Then returns its value's position, else
 * NULL (the caller reads the name the long way). The names must be plain
 * printable ASCII, so that equal bytes mean an equal name.
 */
APR_FAST_INLINE const char *apr_fast_key(const apr_fast_ctx *c, const char *p, const char *key, size_t n,
                                         const char *snake, size_t sn)
{
    if (c->key_case != APR_CASE_SNAKE && (size_t)(c->end - p) >= n && apr_fast_bytes_equal(p, key, n))
        return apr_fast_ws(p + n, c->end);
    if (c->key_case != APR_CASE_SCHEMA && (size_t)(c->end - p) >= sn && apr_fast_bytes_equal(p, snake, sn))
        return apr_fast_ws(p + sn, c->end);
    return NULL;
}

/* Marks member number `bit` seen; false if it was seen already (a duplicate). */
APR_FAST_INLINE bool apr_fast_see(uint64_t *seen, unsigned bit)
{
    uint64_t b = (uint64_t)1 << bit;
    if (APR_FAST_UNLIKELY(*seen & b))
        return false;
    *seen |= b;
    return true;
}

/*
 * apr_fast_string for strings with escapes or bytes past ASCII: checks
 * and unescapes them in one pass over the string (out of line).
 */
const char *apr_fast_string_slow(apr_fast_ctx *c, const char *p, apr_slice *out);

/*
 * The string at p: *out is its content, a slice of the input without
 * escapes, else unescaped into the arena.
 */
APR_FAST_INLINE const char *apr_fast_string(apr_fast_ctx *c, const char *p, apr_slice *out)
{
    const char *s;
    if (p >= c->end || *p != '"')
        return NULL;
    s = apr_fast_find_stop(p + 1, c->end);
    if (APR_FAST_LIKELY(s < c->end && *s == '"')) {
        out->ptr = p + 1;
        out->len = (size_t)(s - p) - 1;
        return s + 1;
    }
    return apr_fast_string_slow(c, p, out);
}

/*
 * Is the string at p exactly `lit` (n bytes of printable ASCII without '"'
 * or '\\', so the bytes and a closing '"' decide)? Returns the position
 * after it, or NULL when it is not (or is spelled with escapes).
 */
APR_FAST_INLINE const char *apr_fast_literal(const apr_fast_ctx *c, const char *p, const char *lit, size_t n)
{
    return (size_t)(c->end - p) > n + 1 && p[0] == '"' && p[n + 1] == '"' && apr_fast_bytes_equal(p + 1, lit, n)
               ? p + n + 2
               : NULL;
}

/* An unsigned integer within [min, max]. */
APR_FAST_INLINE const char *apr_fast_uint(const apr_fast_ctx *c, const char *p, uint64_t min, uint64_t max,
                                          uint64_t *out)
{
    bool neg;
    uint64_t mag;
    if ((p = apr_fast_integer(p, c->end, &neg, &mag)) == NULL || (neg && mag != 0) || mag < min || mag > max)
        return NULL;
    *out = mag;
    return p;
}

/* A signed integer within [min, max]. */
APR_FAST_INLINE const char *apr_fast_int(const apr_fast_ctx *c, const char *p, int64_t min, int64_t max,
                                         int64_t *out)
{
    bool neg;
    uint64_t mag;
    int64_t v;
    if ((p = apr_fast_integer(p, c->end, &neg, &mag)) == NULL)
        return NULL;
    v = neg ? -(int64_t)mag : (int64_t)mag; /* mag < 10^18: no overflow */
    if (v < min || v > max)
        return NULL;
    *out = v;
    return p;
}

APR_FAST_INLINE const char *apr_fast_bool(const apr_fast_ctx *c, const char *p, bool *out)
{
    if (p < c->end && *p == 't') {
        *out = true;
        return apr_fast_scan_word(p, c->end, "true", 4);
    }
    *out = false;
    return p < c->end && *p == 'f' ? apr_fast_scan_word(p, c->end, "false", 5) : NULL;
}

/* `null` at p (for `T / null` members: the caller tests *p == 'n' first). */
APR_FAST_INLINE const char *apr_fast_null(const apr_fast_ctx *c, const char *p)
{
    return apr_fast_scan_word(p, c->end, "null", 4);
}

/* A text value of type t: a string within t's size bounds matching its pattern. */
const char *apr_fast_text(apr_fast_ctx *c, const apr_type *t, const char *p, apr_slice *out);

/* An `any` value: one valid JSON text, kept as written. */
const char *apr_fast_any(apr_fast_ctx *c, const char *p, apr_json_raw *out);

/*
 * Looks ahead from the member value at p, through the rest of its object,
 * for the member named `key` (or `snake`, under the key case); returns the
 * position of that member's value, or NULL when the object has none. The
 * values skipped are checked as `any` values are; nothing is decoded.
 */
const char *apr_fast_look_ahead(apr_fast_ctx *c, const char *p, const char *key, size_t key_len, const char *snake,
                                size_t snake_len);

/*
 * Any value of type t, by the runtime's table-driven fast path (which calls
 * back into generated decoders where t's parts have them and c->generated).
 */
const char *apr_fast_value(apr_fast_ctx *c, const apr_type *t, const char *p, void *out);

/*
 * The member `name` of the open struct `owner` (at `base`) that none of its
 * fields has, value at *pp, kept in its list of unknown members; *cap is the
 * list's room (0 at first). Returns 1, or -1 to give up.
 */
int apr_fast_extra(apr_fast_ctx *c, const apr_type *owner, void *base, apr_slice name, const char **pp,
                   size_t *cap);

/* apr_fast_grow when the array is full: doubles it in the arena (out of line: rare). */
void *apr_fast_grow_full(apr_fast_ctx *c, void *items, size_t *cap, size_t size);

/*
 * Makes room for item n (of `size` bytes, zeroed) in the arena array
 * `items` of *cap items; returns the array (moved perhaps when it grew),
 * or NULL when memory runs out. The first room, for four items, is taken
 * here: most arrays in messages are short.
 */
APR_FAST_INLINE void *apr_fast_grow(apr_fast_ctx *c, void *items, size_t n, size_t *cap, size_t size)
{
    if (*cap == 0) {
        if ((items = apr_arena_alloc(c->arena, 4 * size)) == NULL)
            return NULL;
        *cap = 4;
    } else if (n == *cap && (items = apr_fast_grow_full(c, items, cap, size)) == NULL) {
        return NULL;
    }
    memset((char *)items + n * size, 0, size);
    return items;
}

/* ---- what generated validators call ------------------------------------------------ */

/* Is [s, s + n) valid UTF-8? (apr_fast_utf8_ok past ASCII.) */
bool apr_fast_utf8_check(const char *s, size_t n);

/* Are the n bytes at s valid UTF-8? ASCII is checked here, 16 or 8 bytes a step. */
APR_FAST_INLINE bool apr_fast_utf8_ok(const char *s, size_t n)
{
    size_t i = 0; /* indexes, not pointers: s may be NULL when n is 0 */
#if defined(__SSE2__)
    for (; n - i >= 16; i += 16) {
        if (_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i))) != 0)
            return apr_fast_utf8_check(s, n);
    }
#endif
    for (; n - i >= 8; i += 8) {
        if (apr_fast_load64(s + i) & 0x8080808080808080ull)
            return apr_fast_utf8_check(s, n);
    }
    for (; i < n; i++) {
        if ((unsigned char)s[i] & 0x80u)
            return apr_fast_utf8_check(s, n);
    }
    return true;
}

/* A text value as the validator checks it: a pointer if not empty, UTF-8, and no constraint. */
APR_FAST_INLINE bool apr_fast_string_ok(const apr_slice *s)
{
    return (s->ptr != NULL || s->len == 0) && apr_fast_utf8_ok(s->ptr, s->len);
}

/* A text value of type t: apr_fast_string_ok and t's size bounds and pattern. */
bool apr_fast_text_ok(const apr_type *t, const apr_slice *s);

/* An `any` value: one valid JSON text. */
bool apr_fast_any_ok(const apr_json_raw *raw);

/*
 * The unknown members of a value of struct t (which has no variants):
 * names that are valid UTF-8 and no field's, values that are valid JSON
 * (of t's typed tail, if any).
 */
bool apr_fast_extras_ok(const apr_type *t, const apr_json_members *x);

/*
 * A value of type t, inside `depth` typed values, checked by the
 * table-driven validator without a message: for what a generated validator
 * leaves to it.
 */
bool apr_fast_valid(const apr_type *t, const void *value, bool strict, unsigned depth);

#ifdef __cplusplus
}
#endif
#endif /* APR_FAST_H */
