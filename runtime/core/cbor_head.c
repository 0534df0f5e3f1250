/*
 * cbor_head.c - what every part of the CBOR layer shares (cbor_internal.h):
 * heads decoded and written, the float conversions of preferred
 * serialization, the kind of an item, floats as diagnostic notation prints
 * them.
 */
#include "cbor_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- heads ------------------------------------------------------------------- */

int aps_cbor_impl_head(const uint8_t *p, const uint8_t *end, aps_cbor_head *h)
{
    unsigned ib, n, i;
    memset(h, 0, sizeof *h);
    h->next = p;
    if (p >= end)
        return APS_CBOR_HEAD_TRUNCATED;
    ib = *p;
    h->major = ib >> 5;
    h->ai = ib & 31;
    if (h->ai < 24) {
        h->arg = h->ai;
        h->next = p + 1;
        return 0;
    }
    if (h->ai == 31) {
        if (h->major == 0 || h->major == 1 || h->major == 6)
            return APS_CBOR_HEAD_RESERVED;
        h->indefinite = 1;
        h->next = p + 1;
        return 0;
    }
    if (h->ai > 27)
        return APS_CBOR_HEAD_RESERVED;
    n = 1u << (h->ai - 24);
    if ((size_t)(end - p - 1) < n)
        return APS_CBOR_HEAD_TRUNCATED;
    for (i = 1; i <= n; i++)
        h->arg = (h->arg << 8) | p[i];
    h->next = p + 1 + n;
    if (h->major == 7 && h->ai == 24 && h->arg < 32)
        return APS_CBOR_HEAD_BAD_SIMPLE;
    return 0;
}

aps_cbor_type aps_cbor_impl_type(const uint8_t *p, const uint8_t *end)
{
    aps_cbor_head h;
    if (aps_cbor_impl_head(p, end, &h) != 0)
        return APS_CBOR_INVALID;
    switch (h.major) {
    case 0: return APS_CBOR_UINT;
    case 1: return APS_CBOR_NEGINT;
    case 2: return APS_CBOR_BYTES;
    case 3: return APS_CBOR_TEXT;
    case 4: return APS_CBOR_ARRAY;
    case 5: return APS_CBOR_MAP;
    case 6: return APS_CBOR_TAG;
    default: break;
    }
    switch (h.ai) {
    case 20: case 21: return APS_CBOR_BOOL;
    case 22: return APS_CBOR_NULL;
    case 23: return APS_CBOR_UNDEFINED;
    case 25: case 26: case 27: return APS_CBOR_FLOAT;
    case 31: return APS_CBOR_INVALID;
    default: return APS_CBOR_SIMPLE;
    }
}

size_t aps_cbor_impl_put_head(uint8_t *out, unsigned major, uint64_t arg)
{
    uint8_t mt = (uint8_t)(major << 5);
    size_t n, i;
    if (arg < 24) {
        out[0] = (uint8_t)(mt | arg);
        return 1;
    }
    if (arg <= 0xff) {
        out[0] = mt | 24;
        n = 1;
    } else if (arg <= 0xffff) {
        out[0] = mt | 25;
        n = 2;
    } else if (arg <= 0xffffffffull) {
        out[0] = mt | 26;
        n = 4;
    } else {
        out[0] = mt | 27;
        n = 8;
    }
    for (i = 0; i < n; i++)
        out[1 + i] = (uint8_t)(arg >> (8 * (n - 1 - i)));
    return 1 + n;
}

/* A major-7 head with an argument of exactly `n` bytes (a float's bits). */
size_t aps_cbor_impl_put_bits(uint8_t *out, unsigned ai, uint64_t bits, size_t n)
{
    size_t i;
    out[0] = (uint8_t)(0xe0 | ai);
    for (i = 0; i < n; i++)
        out[1 + i] = (uint8_t)(bits >> (8 * (n - 1 - i)));
    return 1 + n;
}

size_t aps_cbor_impl_put_single(uint8_t *out, double v)
{
    float f = (float)v;
    uint32_t bits;
    if (isnan(v))
        bits = 0x7fc00000u;
    else
        memcpy(&bits, &f, sizeof bits);
    return aps_cbor_impl_put_bits(out, 26, bits, 4);
}

size_t aps_cbor_impl_put_double(uint8_t *out, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (isnan(v))
        bits = 0x7ff8000000000000ull;
    return aps_cbor_impl_put_bits(out, 27, bits, 8);
}

size_t aps_cbor_impl_put_float(uint8_t *out, double v)
{
    uint16_t half;
    if (aps_cbor_impl_to_half(v, &half))
        return aps_cbor_impl_put_bits(out, 25, half, 2);
    if (aps_cbor_impl_fits_single(v))
        return aps_cbor_impl_put_single(out, v);
    return aps_cbor_impl_put_double(out, v);
}

/* ---- floats ------------------------------------------------------------------- */

/* The floats are converted bit by bit: the runtime links no libm. */
double aps_cbor_impl_half(uint16_t h)
{
    uint64_t sign = (uint64_t)(h & 0x8000) << 48, bits;
    unsigned e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0) {
        v = (double)m / 16777216.0; /* m * 2^-24, exact */
        return (h & 0x8000) ? -v : v;
    }
    if (e == 31)
        bits = sign | 0x7ff0000000000000ull | (uint64_t)m << 42;
    else
        bits = sign | (uint64_t)(e - 15 + 1023) << 52 | (uint64_t)m << 42;
    memcpy(&v, &bits, sizeof v);
    return v;
}

int aps_cbor_impl_to_half(double v, uint16_t *out)
{
    uint64_t bits, mant, full;
    uint16_t sign;
    int e;
    unsigned shift;
    memcpy(&bits, &v, sizeof bits);
    sign = (uint16_t)((bits >> 48) & 0x8000);
    e = (int)((bits >> 52) & 0x7ff);
    mant = bits & 0xfffffffffffffull;
    if (e == 0x7ff) {
        *out = mant != 0 ? 0x7e00 : (uint16_t)(sign | 0x7c00);
        return 1;
    }
    if (e == 0 && mant == 0) {
        *out = sign;
        return 1;
    }
    e -= 1023; /* double subnormals land far below half's range */
    if (e > 15 || e < -24)
        return 0;
    if (e >= -14) {
        if (mant & ((1ull << 42) - 1))
            return 0;
        *out = (uint16_t)(sign | (unsigned)(e + 15) << 10 | (unsigned)(mant >> 42));
        return 1;
    }
    full = mant | 1ull << 52; /* half subnormal: a multiple of 2^-24 */
    shift = (unsigned)(28 - e);
    if (full & ((1ull << shift) - 1))
        return 0;
    *out = (uint16_t)(sign | (unsigned)(full >> shift));
    return 1;
}

int aps_cbor_impl_fits_single(double v)
{
    if (isnan(v) || isinf(v))
        return 1;
    if (v > 3.4028234663852886e+38 || v < -3.4028234663852886e+38)
        return 0;
    return (double)(float)v == v;
}

double aps_cbor_impl_float(const aps_cbor_head *h)
{
    if (h->ai == 25)
        return aps_cbor_impl_half((uint16_t)h->arg);
    if (h->ai == 26) {
        uint32_t bits = (uint32_t)h->arg;
        float f;
        memcpy(&f, &bits, sizeof f);
        return (double)f;
    } else {
        uint64_t bits = h->arg;
        double d;
        memcpy(&d, &bits, sizeof d);
        return d;
    }
}

/*
 * Steps the last digit of the mantissa of "d.ddde+x" (as %e writes it) by
 * +1 or -1; 0 when that would carry out of or borrow from the first digit.
 */
static int step_last_digit(char *s, int delta)
{
    char *e = strchr(s, 'e'), *d;
    for (d = e - 1; d > s; d--) {
        if (*d == '.')
            continue;
        if (delta > 0 ? *d < '9' : *d > '0') {
            *d = (char)(*d + delta);
            return 1;
        }
        *d = delta > 0 ? '0' : '9';
    }
    return 0;
}

size_t aps_cbor_impl_format_double(double v, char out[32])
{
    char buf[40], digits[24];
    int prec, exp10, n, k = 0, i;
    size_t len = 0;
    const char *p;
    if (isnan(v))
        return (size_t)snprintf(out, 32, "NaN");
    if (isinf(v))
        return (size_t)snprintf(out, 32, "%s", v < 0 ? "-Infinity" : "Infinity");
    if (signbit(v)) {
        out[len++] = '-';
        v = -v;
    }
    /*
     * The fewest significant digits that read back as v. printf gives the
     * nearest decimal of each length; the one above or below it may be the
     * one that reads back (2^-24 is 5.960464477539063e-8, RFC 8949 Appendix
     * A, where the nearest 16 digits end in ...062).
     */
    for (prec = 1; prec <= 17; prec++) {
        char alt[40];
        snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
        if (strtod(buf, NULL) == v)
            break;
        memcpy(alt, buf, sizeof alt);
        if (step_last_digit(alt, 1) && strtod(alt, NULL) == v) {
            memcpy(buf, alt, sizeof buf);
            break;
        }
        memcpy(alt, buf, sizeof alt);
        if (step_last_digit(alt, -1) && strtod(alt, NULL) == v) {
            memcpy(buf, alt, sizeof buf);
            break;
        }
    }
    for (p = buf; *p != 'e'; p++)
        if (*p != '.')
            digits[k++] = *p;
    exp10 = atoi(p + 1);
    while (k > 1 && digits[k - 1] == '0')
        k--;
    /* ECMAScript's Number::toString layout (what the RFC's examples follow), with ".0" on integers */
    n = exp10 + 1;
    if (k <= n && n <= 21) {
        memcpy(out + len, digits, (size_t)k);
        len += (size_t)k;
        for (i = k; i < n; i++)
            out[len++] = '0';
        memcpy(out + len, ".0", 2);
        len += 2;
    } else if (0 < n && n <= 21) {
        memcpy(out + len, digits, (size_t)n);
        len += (size_t)n;
        out[len++] = '.';
        memcpy(out + len, digits + n, (size_t)(k - n));
        len += (size_t)(k - n);
    } else if (-6 < n && n <= 0) {
        out[len++] = '0';
        out[len++] = '.';
        for (i = n; i < 0; i++)
            out[len++] = '0';
        memcpy(out + len, digits, (size_t)k);
        len += (size_t)k;
    } else {
        out[len++] = digits[0];
        out[len++] = '.';
        if (k == 1) {
            out[len++] = '0';
        } else {
            memcpy(out + len, digits + 1, (size_t)(k - 1));
            len += (size_t)(k - 1);
        }
        len += (size_t)snprintf(out + len, 32 - len, "e%c%d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    }
    out[len] = '\0';
    return len;
}

