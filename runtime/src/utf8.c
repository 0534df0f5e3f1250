/* utf8.c - strict incremental UTF-8 validation (see apr_utf8.h). */
#include "apr_utf8.h"

#include <string.h>

size_t apr_utf8_feed(apr_utf8_state *st, const uint8_t *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        uint8_t c = s[i];
        if (st->need > 0) {
            if (c < st->lo || c > st->hi)
                return i;
            st->need--;
            st->lo = 0x80;
            st->hi = 0xBF;
            i++;
            continue;
        }
        if (c < 0x80) {
            /* ASCII runs dominate real traffic: skip them eight at a time. */
            while (i + 8 <= len) {
                uint64_t w;
                memcpy(&w, s + i, 8);
                if (w & 0x8080808080808080ull)
                    break;
                i += 8;
            }
            while (i < len && s[i] < 0x80)
                i++;
            continue;
        }
        /* Lead byte: sets how many continuation bytes follow and which range
         * the first one may take, which excludes overlongs and surrogates. */
        st->lo = 0x80;
        st->hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            st->need = 1;
        } else if (c == 0xE0) {
            st->need = 2;
            st->lo = 0xA0;
        } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
            st->need = 2;
        } else if (c == 0xED) {
            st->need = 2;
            st->hi = 0x9F;
        } else if (c == 0xF0) {
            st->need = 3;
            st->lo = 0x90;
        } else if (c >= 0xF1 && c <= 0xF3) {
            st->need = 3;
        } else if (c == 0xF4) {
            st->need = 3;
            st->hi = 0x8F;
        } else {
            return i;
        }
        i++;
    }
    return SIZE_MAX;
}

int apr_utf8_complete(const apr_utf8_state *st)
{
    return st->need == 0;
}

size_t apr_utf8_check(const uint8_t *s, size_t len)
{
    apr_utf8_state st = APR_UTF8_STATE_INIT;
    size_t bad = apr_utf8_feed(&st, s, len);
    if (bad != SIZE_MAX)
        return bad;
    if (!apr_utf8_complete(&st)) {
        /* Point at the lead byte of the truncated sequence. */
        size_t i = len;
        while (i > 0 && (s[i - 1] & 0xC0) == 0x80)
            i--;
        return i > 0 ? i - 1 : 0;
    }
    return SIZE_MAX;
}

size_t apr_utf8_encode(uint32_t cp, uint8_t out[4])
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
