/*
 * cbor_print.c - the diagnostic-notation printer (RFC 8949 section 8) behind
 * aps_cbor_diag and the reader's error paths. It walks bytes known to be
 * well-formed (or, for error paths, stops at the first byte that is not)
 * and recurses once per nesting level, bounded by its depth argument.
 */
#include "cbor_internal.h"

#include <stdio.h>
#include <string.h>

/* ---- a growable text in an arena ------------------------------------------------ */

typedef struct diag_text {
    char *p;
    size_t len, cap;
    aps_arena *arena;
    aps_status status;
} diag_text;

static void emit(diag_text *t, const char *s, size_t n)
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

static void emits(diag_text *t, const char *s)
{
    emit(t, s, strlen(s));
}

static void emit_u64(diag_text *t, const char *prefix, uint64_t v)
{
    char b[32];
    int n = snprintf(b, sizeof b, "%s%llu", prefix, (unsigned long long)v);
    emit(t, b, (size_t)n);
}

/* -1 - n, exactly, for the whole of major type 1. */
static void emit_negative(diag_text *t, uint64_t n)
{
    char b[32];
    int len;
    if (n == UINT64_MAX)
        len = snprintf(b, sizeof b, "-18446744073709551616");
    else
        len = snprintf(b, sizeof b, "-%llu", (unsigned long long)n + 1);
    emit(t, b, (size_t)len);
}

static void emit_hex(diag_text *t, const uint8_t *p, size_t n)
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
static void emit_quoted(diag_text *t, const uint8_t *p, size_t n)
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
static const uint8_t *print(diag_text *t, const uint8_t *p, const uint8_t *end, int brief, unsigned depth)
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
    diag_text t;
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

aps_status aps_cbor_impl_diag_items(const uint8_t *p, const uint8_t *end, aps_arena *arena,
                                    aps_slice *out, aps_error *err)
{
    diag_text t;
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
