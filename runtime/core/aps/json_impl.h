/*
 * aps/json_impl.h - the JSON reader's and writer's inner pieces: number
 * scanning and conversion, unescaping, the validating skip, and the
 * writer's buffer primitives. The reader, the writer and the raw helpers
 * share them, and the schema engine (a layer above) encodes and decodes
 * with them directly, which is why they are exported.
 *
 * Not meant for applications, like aps/scan.h and aps/fast.h: it may change
 * with any release. Applications use aps/json.h.
 */
#ifndef APS_JSON_IMPL_H
#define APS_JSON_IMPL_H

#include "aps/json.h"
#include "aps/scan.h"

#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
/* AVX2 where the compiler can target it function by function (chosen at
 * run time); NEON where the build targets it. */
#if defined(__x86_64__) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#define APS_JSON_HAVE_AVX2 1
#define APS_JSON_HAVE_AVX512 1 /* AVX-512BW, the same way */
#else
#define APS_JSON_HAVE_AVX2 0
#define APS_JSON_HAVE_AVX512 0
#endif
#if defined(__ARM_NEON) && !defined(__SSE2__)
#define APS_JSON_HAVE_NEON 1
#else
#define APS_JSON_HAVE_NEON 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Parses the JSON number text [p, end) (syntax already checked) into the
 * nearest double. Returns 0 when the magnitude exceeds DBL_MAX.
 */
int aps_json_impl_to_double(const char *p, const char *end, double *out);

/*
 * Checks JSON number syntax from p; returns the end of the number or NULL,
 * with *bad at the first offending byte.
 */
const char *aps_json_impl_scan_number(const char *p, const char *end, const char **bad);

/* Kind of the JSON value that byte c starts (APS_JSON_INVALID: none does). */
static inline aps_json_kind aps_json_impl_kind_of(char c)
{
    switch (c) {
    case '"': return APS_JSON_STRING;
    case '{': return APS_JSON_OBJECT;
    case '[': return APS_JSON_ARRAY;
    case 't':
    case 'f': return APS_JSON_BOOL;
    case 'n': return APS_JSON_NULL;
    case '-': return APS_JSON_NUMBER;
    default: return (unsigned)(c - '0') <= 9 ? APS_JSON_NUMBER : APS_JSON_INVALID;
    }
}

/*
 * Decodes the escape at p (p[0] == '\\', p < end) into out (when not NULL,
 * *out_len bytes, at most 4); returns the byte after it, or NULL with *code
 * (APS_E_SYNTAX or APS_E_UTF8), *bad (where) and *why (what) set.
 */
const char *aps_json_impl_unescape_one(const char *p, const char *end, char *out, size_t *out_len,
                                       aps_status *code, const char **bad, const char **why);

/* ---- fast scans ------------------------------------------------------------
 * Straight from the bytes, for well-formed input (the byte scans themselves
 * are in aps/fast.h, shared with generated decoders): the decoder's fast
 * paths and aps_json_validate. No frames, no located errors:
 * each returns the position after what it read, or NULL to give up (on
 * every error, and past its limits), and the caller then asks the pull
 * reader, which accepts everything these accept and locates the error.
 */

/*
 * Skips the JSON value at p, checking what aps_json_skip checks: syntax,
 * UTF-8, escapes, depth (at most `room` more containers open), and unless
 * `allow_duplicates`, duplicate member names. Gives up on escaped member
 * names, on more than APS_JSON_FAST_NAMES names in its open objects and
 * nesting past APS_JSON_FAST_DEPTH. No recursion; allocates nothing.
 */
#define APS_JSON_FAST_DEPTH 64
#define APS_JSON_FAST_NAMES 64
const char *aps_json_impl_skip_fast(const char *p, const char *end, size_t room, int allow_duplicates);

/*
 * aps_json_impl_skip_fast without duplicate names, that also gives up on
 * any whitespace between tokens: where it reaches the end of a value's
 * text, the text is valid and its own compact form, so a checked encoder
 * copies it whole instead of scanning it again to compact it.
 */
const char *aps_json_impl_skip_compact(const char *p, const char *end, size_t room);

/*
 * Which string scan the validating skip uses: string content is checked a
 * block of 16 (SSE2, NEON), 32 (AVX2) or 64 (AVX-512BW) bytes a step, or byte by byte
 * (scalar). The entries above take the widest this build and CPU have;
 * tests hold each to the scalar one with aps_json_impl_skip_with.
 */
typedef enum aps_json_isa {
    APS_JSON_ISA_AUTO = 0, /* the widest available */
    APS_JSON_ISA_SCALAR,   /* no vector step anywhere in the skip */
    APS_JSON_ISA_SSE2,
    APS_JSON_ISA_NEON,
    APS_JSON_ISA_AVX2,
    APS_JSON_ISA_AVX512    /* AVX-512BW, 64 bytes a step */
} aps_json_isa;

/* `isa` when this build and CPU have it (AUTO: the one the skip uses), else APS_JSON_ISA_AUTO. */
aps_json_isa aps_json_impl_skip_isa(aps_json_isa isa);

/*
 * aps_json_impl_skip_fast (compact == 0) or aps_json_impl_skip_compact
 * (compact != 0, allow_duplicates ignored) with the scan `isa`; NULL also
 * when it is not available (aps_json_impl_skip_isa).
 */
const char *aps_json_impl_skip_with(aps_json_isa isa, const char *p, const char *end, size_t room,
                                    int allow_duplicates, int compact);

/* ---- writer --------------------------------------------------------------
 * The writer's primitives, shared by the writer (json_writer.c) and the
 * schema encoder (schema_encode.c). The encoder writes whole typed values
 * whose shape the descriptors give, so it needs neither the writer's per-call
 * state machine nor a call into another translation unit per member name,
 * integer or short string: these helpers put bytes straight at
 * w->buf + w->len and never touch the container state. A caller accounts for
 * its value once (aps_json_impl_before_value) and keeps its own nesting.
 *
 * Each returns 1, or 0 when the output does not fit (the failure recorded in
 * the writer, sticky); after a 0 the caller must stop writing. Every
 * capacity check asks for exactly the bytes about to be written, so a
 * caller-owned buffer holds any text that fits it.
 */

/* Records `code` as the writer's failure unless one is recorded already. */
static inline void aps_json_impl_fail(aps_json_writer *w, aps_status code)
{
    if (w->status == APS_OK)
        w->status = code;
}

/* Grows the buffer for n more bytes (out of line: rare). */
int aps_json_impl_grow(aps_json_writer *w, size_t n);

/* Makes room for n more bytes. */
static inline int aps_json_impl_reserve(aps_json_writer *w, size_t n)
{
    return w->cap - w->len >= n || aps_json_impl_grow(w, n);
}

/* Appends n bytes of s as they are; 0 when the buffer cannot grow. */
static inline int aps_json_impl_put(aps_json_writer *w, const char *s, size_t n)
{
    if (!aps_json_impl_reserve(w, n))
        return 0;
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    return 1;
}

/* Appends one byte; 0 when the buffer cannot grow. */
static inline int aps_json_impl_put_byte(aps_json_writer *w, char c)
{
    if (!aps_json_impl_reserve(w, 1))
        return 0;
    w->buf[w->len++] = c;
    return 1;
}

/* Appends `true` (v non-zero) or `false`; 0 when the buffer cannot grow. */
static inline int aps_json_impl_put_bool(aps_json_writer *w, int v)
{
    return v ? aps_json_impl_put(w, "true", 4) : aps_json_impl_put(w, "false", 5);
}

/*
 * Accounts for one value about to be written where the writer stands
 * (writing the comma it needs), as every aps_json_write_* value call does.
 * 0 when the writer has failed or expects no value here (APS_E_STATE).
 */
int aps_json_impl_before_value(aps_json_writer *w);

/* Writes s quoted and escaped (the general case of aps_json_impl_put_string). */
int aps_json_impl_put_string_slow(aps_json_writer *w, const char *s, size_t len);

/*
 * Copies the n <= 16 bytes at src to dst (not overlapping) with at most four
 * loads and stores, never touching a byte outside either range; returns
 * whether none of them needs escaping in a JSON string ('"', '\\', control
 * characters). Member names and most string values are this short, where
 * memcpy's call and a byte loop cost more than the copy.
 */
static inline int aps_json_impl_copy_plain16(char *dst, const char *src, size_t n)
{
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t a, b, q, k;
    if (n >= 8) {
        memcpy(&a, src, 8);
        memcpy(&b, src + n - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t lo, hi;
        memcpy(&lo, src, 4);
        memcpy(&hi, src + n - 4, 4);
        memcpy(dst, &lo, 4);
        memcpy(dst + n - 4, &hi, 4);
        a = b = lo | (uint64_t)hi << 32;
    } else {
        /* 0 to 3 bytes: first, middle and last, in a word padded with 'a'. */
        a = b = 0x6161616161616161ull;
        if (n > 0) {
            dst[0] = src[0];
            dst[n / 2] = src[n / 2];
            dst[n - 1] = src[n - 1];
            a = b = 0x6161616161000000ull | (uint64_t)(unsigned char)src[0] |
                    (uint64_t)(unsigned char)src[n / 2] << 8 | (uint64_t)(unsigned char)src[n - 1] << 16;
        }
    }
    /* Byte tests a word at a time: a zero byte of q or k ('"' or '\\' in the
     * word) or a byte below 0x20 sets a high bit, and none is set otherwise. */
    q = a ^ (ones * '"');
    k = a ^ (ones * '\\');
    a = ((q - ones) & ~q) | ((k - ones) & ~k) | ((a - ones * 0x20) & ~a);
    q = b ^ (ones * '"');
    k = b ^ (ones * '\\');
    b = ((q - ones) & ~q) | ((k - ones) & ~k) | ((b - ones * 0x20) & ~b);
    return ((a | b) & highs) == 0;
}

/*
 * aps_json_impl_copy_plain16 for n <= 32: two overlapping halves of 16
 * bytes past 16 (discriminants such as "content-block-delta", ids).
 */
static inline int aps_json_impl_copy_plain32(char *dst, const char *src, size_t n)
{
    if (n <= 16)
        return aps_json_impl_copy_plain16(dst, src, n);
    return aps_json_impl_copy_plain16(dst, src, 16) &&
           aps_json_impl_copy_plain16(dst + n - 16, src + n - 16, 16);
}

/* Writes s (len bytes) quoted and escaped. */
static inline int aps_json_impl_put_string(aps_json_writer *w, const char *s, size_t len)
{
    if (len <= 32) {
        char *o;
        if (!aps_json_impl_reserve(w, len + 2))
            return 0;
        o = w->buf + w->len;
        if (aps_json_impl_copy_plain32(o + 1, s, len)) {
            o[0] = '"';
            o[len + 1] = '"';
            w->len += len + 2;
            return 1;
        }
    }
    return aps_json_impl_put_string_slow(w, s, len);
}

/*
 * Writes a member name and its colon, `"s":`, after a comma when `comma`.
 * The name is escaped like any string. Names are short: past 16 bytes the
 * general path costs less than one more length test for every name.
 */
static inline int aps_json_impl_put_key(aps_json_writer *w, const char *s, size_t len, int comma)
{
    size_t c = comma != 0;
    if (len <= 16) {
        char *o;
        if (!aps_json_impl_reserve(w, c + len + 3))
            return 0;
        o = w->buf + w->len;
        if (aps_json_impl_copy_plain16(o + c + 1, s, len)) {
            /* Without a comma the opening quote lands on it: no branch. */
            o[0] = ',';
            o[c] = '"';
            o[c + len + 1] = '"';
            o[c + len + 2] = ':';
            w->len += c + len + 3;
            return 1;
        }
    }
    return (!comma || aps_json_impl_put_byte(w, ',')) && aps_json_impl_put_string_slow(w, s, len) &&
           aps_json_impl_put_byte(w, ':');
}

/* Decimal digits of v. */
static inline size_t aps_json_impl_digits(uint64_t v)
{
    size_t n = 1;
    for (;;) {
        if (v < 10)
            return n;
        if (v < 100)
            return n + 1;
        if (v < 1000)
            return n + 2;
        if (v < 10000)
            return n + 3;
        v /= 10000;
        n += 4;
    }
}

/* Writes v in decimal, with a '-' first when neg; two digits per division, in place. */
static inline int aps_json_impl_put_uint(aps_json_writer *w, uint64_t v, int neg)
{
    static const char pairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    size_t n = aps_json_impl_digits(v) + (neg != 0);
    char *p;
    if (!aps_json_impl_reserve(w, n))
        return 0;
    p = w->buf + w->len;
    w->len += n;
    if (neg)
        *p = '-';
    p += n;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        p -= 2;
        memcpy(p, pairs + d, 2);
    }
    if (v >= 10)
        memcpy(p - 2, pairs + v * 2, 2);
    else
        p[-1] = (char)('0' + v);
    return 1;
}

/* Appends v in decimal; 0 when the buffer cannot grow. */
static inline int aps_json_impl_put_int(aps_json_writer *w, int64_t v)
{
    return aps_json_impl_put_uint(w, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

/* Writes the shortest text that reads back as v; APS_E_ARGUMENT for NaN and infinities. */
int aps_json_impl_put_double(aps_json_writer *w, double v);

/* Writes a raw value, compacted (see aps_json_write_raw). */
int aps_json_impl_put_raw(aps_json_writer *w, aps_json_raw raw);

#ifdef __cplusplus
}
#endif
#endif /* APS_JSON_IMPL_H */
