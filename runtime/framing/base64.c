/* base64.c - RFC 4648 base64 with padding, see base64.h. */
#include "base64.h"

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void aps_base64_encode(const uint8_t *in, size_t len, char *out)
{
    size_t i;
    for (i = 0; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[(v >> 12) & 63];
        *out++ = alphabet[(v >> 6) & 63];
        *out++ = alphabet[v & 63];
    }
    if (len - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[(v >> 12) & 63];
        *out++ = '=';
        *out++ = '=';
    } else if (len - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        *out++ = alphabet[v >> 18];
        *out++ = alphabet[(v >> 12) & 63];
        *out++ = alphabet[(v >> 6) & 63];
        *out++ = '=';
    }
}

static int sextet(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

size_t aps_base64_decode(const char *in, size_t len, uint8_t *out, size_t cap)
{
    size_t i, n = 0;
    if (len % 4 != 0)
        return SIZE_MAX;
    for (i = 0; i < len; i += 4) {
        int last = i + 4 == len;
        int pad = last ? (in[i + 3] == '=') + (in[i + 2] == '=' && in[i + 3] == '=') : 0;
        int s[4], k;
        uint32_t v = 0;
        for (k = 0; k < 4 - pad; k++) {
            s[k] = sextet(in[i + k]);
            if (s[k] < 0)
                return SIZE_MAX;
            v |= (uint32_t)s[k] << (18 - 6 * k);
        }
        /* Canonical form only: the bits a padded group drops must be zero. */
        if ((pad == 1 && (v & 0xFF) != 0) || (pad == 2 && (v & 0xFFFF) != 0))
            return SIZE_MAX;
        if (n + 3 - (size_t)pad > cap)
            return SIZE_MAX;
        out[n++] = (uint8_t)(v >> 16);
        if (pad < 2)
            out[n++] = (uint8_t)(v >> 8);
        if (pad < 1)
            out[n++] = (uint8_t)v;
    }
    return n;
}
