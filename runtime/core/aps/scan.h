/*
 * aps/scan.h - byte scans over well-formed JSON, inline: the building blocks
 * the JSON reader, the schema engine's fast path, the assembler and the
 * decoders cddlgen generates all read with.
 *
 * Not meant for applications: it may change with any release, together
 * with the generated code. Every scan returns the position after what it
 * read, or NULL to give up; a caller that gets NULL falls back to an exact
 * reader, so these never judge malformed input, they only refuse it.
 */
#ifndef APS_SCAN_H
#define APS_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__ARM_NEON) && !defined(__SSE2__)
#include <arm_neon.h>
#define APS_SCAN_HAVE_NEON 1
#else
#define APS_SCAN_HAVE_NEON 0
#endif

#include "aps/common.h"
#include "aps/json.h" /* aps_slice */

#ifdef __cplusplus
extern "C" {
#endif

/* Forced inline: a call costs more than these bodies. A build that checks
 * behaviour only may define APS_NO_FORCE_INLINE to leave inlining to the
 * compiler: a large schema's generated C then compiles about eight times
 * faster at -O0 (the project's test-only builds of generated C do, see
 * docs/vendoring.md; the bodies are the same). Branch hints: giving up is
 * the rare way out, and compact JSON has no whitespace. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(APS_NO_FORCE_INLINE)
#define APS_SCAN_INLINE static inline __attribute__((always_inline))
#else
#define APS_SCAN_INLINE static inline
#endif
#if defined(__GNUC__) || defined(__clang__)
#define APS_SCAN_LIKELY(x) __builtin_expect(!!(x), 1)
#define APS_SCAN_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define APS_SCAN_LIKELY(x) (x)
#define APS_SCAN_UNLIKELY(x) (x)
#endif

/* ---- bytes ------------------------------------------------------------------ */

/* 8 (load64) or 4 (load32) bytes at `p`, any alignment, in the machine's byte order. */
APS_SCAN_INLINE uint64_t aps_scan_load64(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* See aps_scan_load64. */
APS_SCAN_INLINE uint32_t aps_scan_load32(const char *p)
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
APS_SCAN_INLINE int aps_scan_bytes_equal(const char *x, const char *y, size_t n)
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
        acc = (aps_scan_load64(x + n - 16) ^ aps_scan_load64(y + n - 16)) |
              (aps_scan_load64(x + n - 8) ^ aps_scan_load64(y + n - 8));
        if (acc != 0)
            return 0;
        for (i = 0; i + 16 < n; i += 16)
            acc |= (aps_scan_load64(x + i) ^ aps_scan_load64(y + i)) |
                   (aps_scan_load64(x + i + 8) ^ aps_scan_load64(y + i + 8));
        return acc == 0;
#endif
    }
    if (n >= 8)
        return ((aps_scan_load64(x) ^ aps_scan_load64(y)) |
                (aps_scan_load64(x + n - 8) ^ aps_scan_load64(y + n - 8))) == 0;
    if (n >= 4)
        return ((aps_scan_load32(x) ^ aps_scan_load32(y)) |
                (aps_scan_load32(x + n - 4) ^ aps_scan_load32(y + n - 4))) == 0;
    for (acc = 0, i = 0; i < n; i++)
        acc |= (unsigned char)x[i] ^ (unsigned char)y[i];
    return acc == 0;
}


#if APS_SCAN_HAVE_NEON
/* NEON has no movemask: each compare's lanes (0x00 or 0xFF) are weighed by
 * their bit and added up, eight lanes a byte. The bits of the 16 lanes of x. */
APS_SCAN_INLINE uint64_t aps_scan_neon_mask(uint8x16_t x)
{
    static const uint8_t weights[16] = { 1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128 };
    uint8x16_t w = vandq_u8(x, vld1q_u8(weights));
    uint8x8_t sum = vpadd_u8(vget_low_u8(w), vget_high_u8(w));
    sum = vpadd_u8(sum, sum);
    sum = vpadd_u8(sum, sum);
    return (uint64_t)vget_lane_u8(sum, 0) | (uint64_t)vget_lane_u8(sum, 1) << 8;
}
#endif

/* ---- JSON scans --------------------------------------------------------------- */

/*
 * aps_scan_find_special for the last bytes of a text (fewer than 16,
 * or all of them without SSE2): eight bytes a step with portable word
 * tricks, then byte by byte. Out of line, so that the usual case keeps
 * few registers busy.
 */
const char *aps_scan_find_special_tail(const char *s, const char *end, unsigned *high);

/*
 * Finds the first byte in [s, end) that ends a run of plain string content:
 * '"', '\\' or a control character (end when there is none). ORs into *high
 * the bytes before it, so (*high & 0x80) says whether UTF-8 needs checking.
 * Sixteen bytes a step with SSE2: member names and short values end within
 * one step.
 */
#if defined(__SSE2__)
/* The bits of the bytes of v that are '"', '\\' or a control character. */
APS_SCAN_INLINE unsigned aps_scan_special16(__m128i v)
{
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1F);
    /* max(v, 0x1F) == 0x1F exactly for the bytes <= 0x1F, unsigned */
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                                    _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl)));
}
#endif

APS_SCAN_INLINE const char *aps_scan_find_special(const char *s, const char *end, unsigned *high)
{
#if defined(__SSE2__)
    while (end - s >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
        unsigned m = aps_scan_special16(v), h = (unsigned)_mm_movemask_epi8(v);
        if (m != 0) {
            /* the bytes before the stop: below its bit in the masks */
            *high |= (h & (m ^ (m - 1u)) & ~m) != 0 ? 0x80u : 0u;
            return s + __builtin_ctz(m);
        }
        *high |= h != 0 ? 0x80u : 0u;
        s += 16;
    }
#endif
    return aps_scan_find_special_tail(s, end, high);
}

/* Skips JSON whitespace from p. Compact JSON has none: then one test. */
APS_SCAN_INLINE const char *aps_scan_ws(const char *p, const char *end)
{
    if (APS_SCAN_LIKELY(p < end && (unsigned char)*p > ' '))
        return p;
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/*
 * The stops of the 8 bytes w (little-endian): the high bit of each byte
 * that is '"', '\\', a control character or past ASCII, exact up to the
 * lowest (false flags only sit above a true one), so the lowest flag says
 * where a plain run ends.
 */
APS_SCAN_INLINE uint64_t aps_scan_stops64(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull;
    uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
    return (((q - ones) & ~q) | ((b - ones) & ~b) | ((w - ones * 0x20) & ~w) | w) & (ones * 0x80);
}
#define APS_SCAN_HAVE_STOPS64 1
#endif

#if defined(__SSE2__)
/* The bits of the 16 bytes at s that plain ASCII string content cannot hold. */
APS_SCAN_INLINE unsigned aps_scan_stops16(const char *s)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
    return aps_scan_special16(v) | (unsigned)_mm_movemask_epi8(v); /* and bytes past ASCII */
}
#endif

/*
 * The first byte in [s, end) that plain ASCII string content cannot hold:
 * '"', '\\', a control character or a byte past ASCII (end when none).
 * Sixteen bytes a step with SSE2, then eight with word tricks (on
 * little-endian machines), then one: short strings at the end of a message
 * are the usual case, so none of it is out of line.
 */
APS_SCAN_INLINE const char *aps_scan_find_stop(const char *s, const char *end)
{
#if defined(__SSE2__)
    unsigned m;
    for (; end - s >= 16; s += 16)
        if ((m = aps_scan_stops16(s)) != 0)
            return s + __builtin_ctz(m);
#endif
#ifdef APS_SCAN_HAVE_STOPS64
    while (end - s >= 8) {
        uint64_t t = aps_scan_stops64(aps_scan_load64(s));
        if (t != 0)
            return s + __builtin_ctzll(t) / 8;
        s += 8;
    }
#endif
    while (s < end && (unsigned char)*s >= 0x20 && (unsigned char)*s < 0x80 && *s != '"' && *s != '\\')
        s++;
    return s;
}

/*
 * aps_scan_find_stop for a string of the input that starts at `begin`:
 * the same result, but where fewer than 16 bytes are left before `end`
 * and the input has 16, those bytes are checked by one load of the
 * input's last 16 bytes, the ones before s shifted out of its mask. A
 * message's last string (a text delta's text) ends there: a loop over its
 * bytes costs a mispredicted branch for about every length, one load none.
 */
APS_SCAN_INLINE const char *aps_scan_find_stop_in(const char *begin, const char *s, const char *end)
{
#if defined(__SSE2__)
    if (end - begin >= 16) {
        unsigned m;
        for (; end - s >= 16; s += 16)
            if ((m = aps_scan_stops16(s)) != 0)
                return s + __builtin_ctz(m);
        if (s == end)
            return s;
        m = aps_scan_stops16(end - 16) >> (16 - (end - s));
        return m != 0 ? s + __builtin_ctz(m) : end;
    }
#else
    (void)begin;
#endif
    return aps_scan_find_stop(s, end);
}

/*
 * The plain string content from s, in a string of the input that starts
 * at `begin`, to its closing '"': the byte after that '"' when the first
 * stop (aps_scan_find_stop_in) is it, else NULL with *stop at that stop.
 * Whether the stop is the '"' comes from the load's masks, not from a
 * load of the byte found: what follows the string waits on this answer.
 */
APS_SCAN_INLINE const char *aps_scan_plain_in(const char *begin, const char *s, const char *end, const char **stop)
{
#if defined(__SSE2__)
    if (end - begin >= 16) {
        __m128i v;
        unsigned m, q;
        for (;; s += 16) {
            if (end - s < 16) {
                if (s == end) {
                    *stop = s;
                    return NULL;
                }
                v = _mm_loadu_si128((const __m128i *)(const void *)(end - 16));
                m = (aps_scan_special16(v) | (unsigned)_mm_movemask_epi8(v)) >> (16 - (end - s));
                q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"'))) >> (16 - (end - s));
                break;
            }
            v = _mm_loadu_si128((const __m128i *)(const void *)s);
            m = aps_scan_special16(v) | (unsigned)_mm_movemask_epi8(v);
            if (m != 0) {
                q = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')));
                break;
            }
        }
        if (m == 0) {
            *stop = end;
            return NULL;
        }
        s += __builtin_ctz(m);
        if ((m & (0u - m) & q) != 0)
            return s + 1;
        *stop = s;
        return NULL;
    }
#endif
    s = aps_scan_find_stop_in(begin, s, end);
    if (s < end && *s == '"')
        return s + 1;
    *stop = s;
    return NULL;
}

/*
 * The UTF-8 character whose first byte, past ASCII or a control character,
 * is at s (s < end): the position after it, or NULL when it is not one
 * valid character of RFC 3629 (no overlong form, surrogate or code point
 * past U+10FFFF) within [s, end). Continuation bytes are never '"' or '\\',
 * so a string's end is not skipped.
 */
APS_SCAN_INLINE const char *aps_scan_utf8_char(const char *s, const char *end)
{
    const unsigned char *u = (const unsigned char *)s;
    unsigned lo, hi;
    if (u[0] < 0xC2 || u[0] > 0xF4)
        return NULL;
    if (u[0] < 0xE0)
        return end - s >= 2 && (u[1] & 0xC0u) == 0x80u ? s + 2 : NULL;
    lo = u[0] == 0xE0 || u[0] == 0xF0 ? (u[0] == 0xE0 ? 0xA0u : 0x90u) : 0x80u;
    hi = u[0] == 0xED ? 0x9Fu : u[0] == 0xF4 ? 0x8Fu : 0xBFu;
    if (u[0] < 0xF0)
        return end - s >= 3 && u[1] >= lo && u[1] <= hi && (u[2] & 0xC0u) == 0x80u ? s + 3 : NULL;
    return end - s >= 4 && u[1] >= lo && u[1] <= hi && (u[2] & 0xC0u) == 0x80u && (u[3] & 0xC0u) == 0x80u ? s + 4
                                                                                                             : NULL;
}

/* Is c the letter of a one-letter JSON escape (\" \\ \/ \b \f \n \r \t)? */
APS_SCAN_INLINE int aps_scan_short_escape(char c)
{
    switch (c) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        return 1;
    default:
        return 0;
    }
}

/*
 * aps_scan_string for strings with escapes or bytes past ASCII, from s,
 * where aps_scan_find_stop stopped before the string's end.
 */
const char *aps_scan_string_slow(const char *s, const char *end, int *escaped);

/*
 * Checks the string whose '"' is at p (p < end) as the reader does (escapes,
 * surrogates, UTF-8, no control characters); returns the byte after its
 * closing '"', or NULL. *escaped says whether it has escapes: without, its
 * content between the quotes is its text. Plain ASCII is one scan here.
 */
APS_SCAN_INLINE const char *aps_scan_string(const char *p, const char *end, int *escaped)
{
    const char *s = aps_scan_find_stop(p + 1, end);
    if (APS_SCAN_LIKELY(s < end && *s == '"')) {
        *escaped = 0;
        return s + 1;
    }
    return aps_scan_string_slow(s, end, escaped);
}

/* After a member name: the value's position past the ':', or NULL. */
APS_SCAN_INLINE const char *aps_scan_colon(const char *p, const char *end)
{
    /* the ':' right after the name, in compact JSON */
    if (!(p < end && *p == ':')) {
        p = aps_scan_ws(p, end);
        if (!(p < end && *p == ':'))
            return NULL;
    }
    return aps_scan_ws(p + 1, end);
}

/*
 * Reads the member name whose '"' is at p and the ':' after it; returns the
 * value's position, with *name the name's content. Escaped names give up:
 * unescaping them changes what duplicates are.
 */
APS_SCAN_INLINE const char *aps_scan_name(const char *p, const char *end, aps_slice *name)
{
    int escaped;
    const char *s;
    if (p >= end || *p != '"' || (s = aps_scan_string(p, end, &escaped)) == NULL || escaped)
        return NULL;
    name->ptr = p + 1;
    name->len = (size_t)(s - p) - 2;
    return aps_scan_colon(s, end);
}

/*
 * After an item of a container: the next item's start (*closed 0), or the
 * byte after `closer` (*closed 1).
 */
APS_SCAN_INLINE const char *aps_scan_next(const char *p, const char *end, char closer, int *closed)
{
    /* the ',' right after the item, in compact JSON */
    if (APS_SCAN_LIKELY(p < end && *p == ',')) {
        *closed = 0;
        return aps_scan_ws(p + 1, end);
    }
    p = aps_scan_ws(p, end);
    if (p >= end)
        return NULL;
    if (*p == ',') {
        *closed = 0;
        return aps_scan_ws(p + 1, end);
    }
    *closed = 1;
    return *p == closer ? p + 1 : NULL;
}

/* `word` (n bytes: true, false, null) at p, or NULL. */
APS_SCAN_INLINE const char *aps_scan_word(const char *p, const char *end, const char *word, size_t n)
{
    return (size_t)(end - p) >= n && memcmp(p, word, n) == 0 ? p + n : NULL;
}


/*
 * Reads an integer at p as sign and magnitude. Numbers with a fraction or
 * exponent and magnitudes of 19 digits or more (near or past 64 bits) are
 * the exact decoder's to judge.
 */
APS_SCAN_INLINE const char *aps_scan_integer(const char *p, const char *end, bool *neg, uint64_t *mag)
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
#ifdef APS_SCAN_HAVE_STOPS64 /* little-endian words: the first digit is the lowest byte */
        /* Eight digits at a time when eight bytes are digits (timestamps have 13). */
        while (end - p >= 8 && v < 10000000000ull) {
            uint64_t w = aps_scan_load64(p), lo = w - 0x3030303030303030ull;
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
            uint64_t w = aps_scan_load32(p), lo = w - 0x30303030ull;
            if (((w & 0xF0F0F0F0ull) | (((w + 0x06060606ull) & 0xF0F0F0F0ull) >> 4)) == 0x33333333ull) {
                lo = (lo * 2561) >> 8;
                lo = (((lo & 0x00FF00FFull) * 6553601) >> 16) & 0xFFFFu;
                v = v * 10000u + lo;
                p += 4;
            }
        }
#endif
        while (p < end && (unsigned)(*p - '0') <= 9)
            v = v * 10 + (uint64_t)(*p++ - '0');
    }
    if (p - digits > 18 || (p < end && (*p == '.' || *p == 'e' || *p == 'E' || (unsigned)(*p - '0') <= 9)))
        return NULL;
    *mag = v;
    return p;
}

#ifdef __cplusplus
}
#endif
#endif /* APS_SCAN_H */
