/*
 * cbor_diag.c - RFC 8949 §8 diagnostic notation (see aps/cbor.h).
 *
 * The input is checked by the reader first (aps_cbor_validate's checks), so
 * the printer walks bytes known to be well-formed and bounded in depth; it
 * recurses once per nesting level, at most the reader's depth limit.
 */
#include "aps/cbor.h"
#include "cbor_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* ---- a growable text in an arena ------------------------------------------------ */

typedef struct text {
    char *p;
    size_t len, cap;
    aps_arena *arena;
    aps_status status;
} text;

static void emit(text *t, const char *s, size_t n)
{
    if (t->status != APS_OK)
        return;
    if (t->cap - t->len <= n) { /* keep a byte for the final NUL */
        size_t cap = t->cap ? t->cap : 64;
        char *np;
        while (cap - t->len <= n) {
            if (cap > SIZE_MAX / 2) {
                t->status = APS_E_NOMEM;
                return;
            }
            cap *= 2;
        }
        np = (char *)aps_arena_alloc_aligned(t->arena, cap, 1);
        if (np == NULL) {
            t->status = t->arena->failure ? t->arena->failure : APS_E_NOMEM;
            return;
        }
        if (t->len)
            memcpy(np, t->p, t->len);
        t->p = np;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
}

static void emits(text *t, const char *s)
{
    emit(t, s, strlen(s));
}

static void emit_u64(text *t, const char *prefix, uint64_t v)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%s%llu", prefix, (unsigned long long)v);
    emit(t, b, (size_t)n);
}

/* -1 - n, exactly, for the whole of major type 1. */
static void emit_negative(text *t, uint64_t n)
{
    char b[32];
    int len;
    if (n == UINT64_MAX)
        len = snprintf(b, sizeof b, "-18446744073709551616");
    else
        len = snprintf(b, sizeof b, "-%llu", (unsigned long long)n + 1);
    emit(t, b, (size_t)len);
}

static void emit_hex(text *t, const uint8_t *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    size_t i;
    emit(t, "h'", 2);
    for (i = 0; i < n; i++) {
        char b[2];
        b[0] = digits[p[i] >> 4];
        b[1] = digits[p[i] & 15];
        emit(t, b, 2);
    }
    emit(t, "'", 1);
}

/*
 * A text string as a JSON string in ASCII, as RFC 8949's Appendix A writes
 * them: quote, backslash and control characters escaped, and every
 * character beyond ASCII as \uXXXX (a surrogate pair above U+FFFF), so the
 * notation is safe in any log or terminal. The UTF-8 was checked already.
 */
static void emit_quoted(text *t, const uint8_t *p, size_t n)
{
    size_t i = 0, run = 0;
    emit(t, "\"", 1);
    while (i < n) {
        char b[16];
        const char *esc = NULL;
        size_t step = 1;
        uint8_t c = p[i];
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default:
            if (c < 0x20 || c == 0x7f) {
                snprintf(b, sizeof b, "\\u%04x", c);
                esc = b;
            } else if (c >= 0x80) {
                uint32_t cp;
                if (c >= 0xf0) {
                    cp = (uint32_t)(c & 7) << 18 | (uint32_t)(p[i + 1] & 63) << 12 |
                         (uint32_t)(p[i + 2] & 63) << 6 | (p[i + 3] & 63);
                    step = 4;
                } else if (c >= 0xe0) {
                    cp = (uint32_t)(c & 15) << 12 | (uint32_t)(p[i + 1] & 63) << 6 | (p[i + 2] & 63);
                    step = 3;
                } else {
                    cp = (uint32_t)(c & 31) << 6 | (p[i + 1] & 63);
                    step = 2;
                }
                if (cp >= 0x10000)
                    snprintf(b, sizeof b, "\\u%04x\\u%04x", (unsigned)(0xd800 + ((cp - 0x10000) >> 10)),
                             (unsigned)(0xdc00 + ((cp - 0x10000) & 0x3ff)));
                else
                    snprintf(b, sizeof b, "\\u%04x", (unsigned)cp);
                esc = b;
            }
        }
        if (esc != NULL) {
            emit(t, (const char *)p + run, i - run);
            emits(t, esc);
            run = i + step;
        }
        i += step;
    }
    emit(t, (const char *)p + run, n - run);
    emit(t, "\"", 1);
}

/*
 * Prints the well-formed item at p; returns the byte after it. `brief`
 * abbreviates containers and long strings (error paths); `depth` bounds
 * the recursion there, where the input was not walked by the reader first.
 */
static const uint8_t *print(text *t, const uint8_t *p, const uint8_t *end, int brief, unsigned depth)
{
    aps_cbor_head h;
    uint64_t i;
    if (aps_cbor_impl_head(p, end, &h) != 0 || depth > APS_CBOR_WRITER_MAX_DEPTH) {
        emit(t, "?", 1);
        return end;
    }
    switch (h.major) {
    case 0:
        emit_u64(t, "", h.arg);
        return h.next;
    case 1:
        emit_negative(t, h.arg);
        return h.next;
    case 2:
    case 3:
        if (h.indefinite) {
            const uint8_t *q = h.next;
            int first = 1;
            emit(t, "(_ ", 3);
            while (q < end && *q != 0xff) {
                if (!first)
                    emit(t, ", ", 2);
                first = 0;
                q = print(t, q, end, brief, depth + 1);
            }
            emit(t, ")", 1);
            return q < end ? q + 1 : end;
        }
        if (h.arg > (uint64_t)(end - h.next)) {
            emit(t, "?", 1);
            return end;
        }
        if (brief && h.arg > 32)
            emit(t, h.major == 2 ? "h'...'" : "\"...\"", 6);
        else if (h.major == 2)
            emit_hex(t, h.next, (size_t)h.arg);
        else
            emit_quoted(t, h.next, (size_t)h.arg);
        return h.next + h.arg;
    case 4:
    case 5: {
        const uint8_t *q = h.next;
        uint64_t items = h.major == 5 ? h.arg * 2 : h.arg;
        emit(t, h.major == 4 ? "[" : "{", 1);
        if (brief) {
            emits(t, "...");
            emit(t, h.major == 4 ? "]" : "}", 1);
            return end;
        }
        if (h.indefinite)
            emit(t, "_ ", 2);
        for (i = 0; h.indefinite ? (q < end && *q != 0xff) : i < items; i++) {
            if (i > 0)
                emit(t, h.major == 5 && (i & 1) ? ": " : ", ", 2);
            q = print(t, q, end, brief, depth + 1);
        }
        if (h.indefinite && q < end)
            q++;
        emit(t, h.major == 4 ? "]" : "}", 1);
        return q;
    }
    case 6: {
        const uint8_t *q;
        emit_u64(t, "", h.arg);
        emit(t, "(", 1);
        q = print(t, h.next, end, brief, depth + 1);
        emit(t, ")", 1);
        return q;
    }
    default:
        break;
    }
    switch (h.ai) {
    case 20: emits(t, "false"); break;
    case 21: emits(t, "true"); break;
    case 22: emits(t, "null"); break;
    case 23: emits(t, "undefined"); break;
    case 25: case 26: case 27: {
        char b[32];
        emit(t, b, aps_cbor_impl_format_double(aps_cbor_impl_float(&h), b));
        break;
    }
    default:
        emit_u64(t, "simple(", h.arg);
        emit(t, ")", 1);
    }
    return h.next;
}

size_t aps_cbor_impl_diag_short(aps_cbor_raw item, char *out, size_t cap)
{
    aps_arena arena;
    text t;
    size_t n = 0;
    char buf[256];
    aps_arena_options o;
    memset(&o, 0, sizeof o);
    o.initial = buf;
    o.initial_size = sizeof buf;
    o.limit = 1; /* never more than the stack buffer: a longer rendering is cut */
    aps_arena_init(&arena, &o);
    memset(&t, 0, sizeof t);
    t.arena = &arena;
    (void)print(&t, item.ptr, item.ptr + item.len, 1, 0);
    if (t.status == APS_OK) {
        n = t.len < cap ? t.len : cap;
        memcpy(out, t.p, n);
    } else if (cap >= 3) {
        memcpy(out, "...", 3);
        n = 3;
    }
    aps_arena_deinit(&arena);
    return n;
}

aps_status aps_cbor_diag(const void *data, size_t len, bool sequence, aps_arena *arena,
                         aps_slice *out, aps_error *err)
{
    aps_cbor_reader_options o;
    const uint8_t *p = (const uint8_t *)data, *end = p + len;
    text t;
    aps_status st;
    aps_error_clear(err);
    if (arena == NULL || out == NULL || (data == NULL && len != 0))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "aps_cbor_diag needs data, an arena and out");
    memset(&o, 0, sizeof o);
    o.sequence = sequence;
    o.allow_duplicates = 1; /* diagnostic notation shows what is there */
    if ((st = aps_cbor_validate(data, len, &o, err)))
        return st;
    memset(&t, 0, sizeof t);
    t.arena = arena;
    while (p < end) {
        if (t.len > 0)
            emit(&t, ", ", 2);
        p = print(&t, p, end, 0, 0);
    }
    if (t.status == APS_OK && t.p == NULL) { /* an empty sequence: an empty text */
        t.p = (char *)aps_arena_alloc_aligned(arena, 1, 1);
        if (t.p == NULL)
            t.status = APS_E_NOMEM;
    }
    if (t.status != APS_OK)
        return aps_error_set(err, t.status, SIZE_MAX, "no room for the diagnostic notation");
    t.p[t.len] = '\0';
    out->ptr = t.p;
    out->len = t.len;
    return APS_OK;
}
