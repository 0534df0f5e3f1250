/* utf8.c - strict incremental UTF-8 validation (see aps_utf8.h). */
#include "aps/utf8.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ascii_prefix is all of aps_utf8_check for ASCII text, and only pays off
 * without a call around it; the rest of the check stays out of line. */
#if defined(__GNUC__) || defined(__clang__)
#define APS_UTF8_INLINE inline __attribute__((always_inline))
#define APS_UTF8_NOINLINE __attribute__((noinline))
#else
#define APS_UTF8_INLINE inline
#define APS_UTF8_NOINLINE
#endif

/*
 * A length n <= len such that s[0..n) is all ASCII, and n == len exactly
 * when all of s is. Position n follows an ASCII byte (or is 0), so it is a
 * character boundary where the full check can resume. ASCII dominates real
 * text, so this is most of the work: sixteen bytes a step with SSE2 (and
 * then n is exact), eight with a word, and a last overlapping load instead
 * of a byte loop, which keeps short strings (member names, text deltas) to
 * a few instructions.
 */
static APS_UTF8_INLINE size_t ascii_prefix(const uint8_t *s, size_t len)
{
    const uint64_t highs = 0x8080808080808080ull;
    uint64_t a, b;
    uint32_t c, d;
    size_t i = 0;
#if defined(__SSE2__)
    if (len >= 16) {
        unsigned m;
        for (; i + 16 <= len; i += 16) {
            m = (unsigned)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i)));
            if (m != 0)
                return i + (unsigned)__builtin_ctz(m);
        }
        /* The last load overlaps checked bytes, so its first high bit is the first of s. */
        m = (unsigned)_mm_movemask_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + len - 16)));
        return m != 0 ? len - 16 + (unsigned)__builtin_ctz(m) : len;
    }
#endif
    if (len >= 8) {
        for (; i + 8 <= len; i += 8) {
            memcpy(&a, s + i, 8);
            if (a & highs)
                return i;
        }
        memcpy(&b, s + len - 8, 8);
        return b & highs ? i : len;
    }
    if (len >= 4) {
        memcpy(&c, s, 4);
        memcpy(&d, s + len - 4, 4);
        return (c | d) & 0x80808080u ? 0 : len;
    }
    for (; i < len; i++) {
        if (s[i] & 0x80)
            return i;
    }
    return len;
}

/*
 * For a byte c >= 0x80: how many continuation bytes follow it as a lead
 * byte (0: it cannot lead), and the range [*lo, *hi] of the first of them,
 * narrowed after E0, ED, F0 and F4 to exclude overlong forms, surrogates and
 * code points above U+10FFFF (RFC 3629's table).
 */
static inline uint32_t lead(uint8_t c, uint8_t *lo, uint8_t *hi)
{
    *lo = c == 0xE0 ? 0xA0 : c == 0xF0 ? 0x90 : 0x80;
    *hi = c == 0xED ? 0x9F : c == 0xF4 ? 0x8F : 0xBF;
    return c < 0xC2 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : c < 0xF5 ? 3 : 0;
}

size_t aps_utf8_feed(aps_utf8_state *st, const uint8_t *s, size_t len)
{
    /* The state lives in locals: through st, every byte would be stored and,
     * as uint8_t may alias s, reloaded. */
    uint32_t need = st->need, n;
    uint8_t lo = st->lo, hi = st->hi, l, h;
    size_t i = 0, bad = SIZE_MAX;
    while (i < len) {
        uint8_t c = s[i];
        if (need > 0) {
            if (c < lo || c > hi) {
                bad = i;
                break;
            }
            need--;
            lo = 0x80;
            hi = 0xBF;
            i++;
        } else if (c < 0x80) {
            i += ascii_prefix(s + i, len - i);
            while (i < len && s[i] < 0x80)
                i++;
        } else {
            n = lead(c, &l, &h);
            /* A whole valid sequence in this chunk is taken in one step
             * (leaving the state as the bytes one by one would); any other
             * goes byte by byte, which finds the bad byte. */
            if (n != 0 && len - i > n && s[i + 1] >= l && s[i + 1] <= h &&
                (n < 2 || (s[i + 2] & 0xC0) == 0x80) && (n < 3 || (s[i + 3] & 0xC0) == 0x80)) {
                lo = 0x80;
                hi = 0xBF;
                i += n + 1;
                continue;
            }
            lo = l;
            hi = h;
            if (n == 0) {
                bad = i;
                break;
            }
            need = n;
            i++;
        }
    }
    st->need = need;
    st->lo = lo;
    st->hi = hi;
    return bad;
}

int aps_utf8_complete(const aps_utf8_state *st)
{
    return st->need == 0;
}

/* aps_utf8_check from offset `from`, a character boundary: the full check, out of the ASCII path. */
static APS_UTF8_NOINLINE size_t check_from(const uint8_t *s, size_t len, size_t from)
{
    aps_utf8_state st = APS_UTF8_STATE_INIT;
    size_t i, bad = aps_utf8_feed(&st, s + from, len - from);
    if (bad != SIZE_MAX)
        return from + bad;
    if (!aps_utf8_complete(&st)) {
        /* Point at the lead byte of the truncated sequence. */
        i = len;
        while (i > 0 && (s[i - 1] & 0xC0) == 0x80)
            i--;
        return i > 0 ? i - 1 : 0;
    }
    return SIZE_MAX;
}

size_t aps_utf8_check(const uint8_t *s, size_t len)
{
    size_t i = ascii_prefix(s, len);
    return i == len ? SIZE_MAX : check_from(s, len, i);
}

size_t aps_utf8_encode(uint32_t cp, uint8_t out[4])
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | (cp >> 6));
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp >= 0xD800 && cp <= 0xDFFF)
        return 0;
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (cp >> 12));
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    if (cp <= 0x10FFFF) {
        out[0] = (uint8_t)(0xF0 | (cp >> 18));
        out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (uint8_t)(0x80 | (cp & 0x3F));
        return 4;
    }
    return 0;
}
