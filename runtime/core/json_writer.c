/* json_writer.c - compact JSON writer with a sticky error (see aps/json.h). */
#include "aps/json_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* What the innermost container (or the root) accepts next. */
enum {
    ST_ROOT,      /* nothing written yet */
    ST_DONE,      /* the root value is complete */
    ST_OBJ_FIRST, /* a key or '}' */
    ST_OBJ_NEXT,  /* ',' key or '}' */
    ST_OBJ_VALUE, /* the value of the key just written */
    ST_ARR_FIRST, /* a value or ']' */
    ST_ARR_NEXT   /* ',' value or ']' */
};

void aps_json_writer_init(aps_json_writer *w, const aps_allocator *allocator)
{
    memset(w, 0, sizeof *w);
    w->allocator = allocator != NULL && allocator->alloc != NULL ? *allocator : aps_malloc_allocator;
}

void aps_json_writer_init_fixed(aps_json_writer *w, char *buf, size_t cap)
{
    memset(w, 0, sizeof *w);
    w->buf = buf;
    w->cap = buf != NULL ? cap : 0;
    w->fixed = 1;
}

void aps_json_writer_deinit(aps_json_writer *w)
{
    if (w == NULL)
        return;
    if (!w->fixed && w->buf != NULL)
        w->allocator.free(w->allocator.ctx, w->buf, w->cap);
    w->buf = NULL;
    w->cap = w->len = 0;
}

void aps_json_writer_reset(aps_json_writer *w)
{
    w->len = 0;
    w->status = APS_OK;
    w->depth = 0;
    w->state = ST_ROOT;
}

int aps_json_impl_grow(aps_json_writer *w, size_t n)
{
    size_t cap;
    char *nb;
    if (w->fixed || n > SIZE_MAX / 2 - w->len) {
        aps_json_impl_fail(w, w->fixed ? APS_E_LIMIT : APS_E_NOMEM);
        return 0;
    }
    cap = w->cap ? w->cap * 2 : 256;
    while (cap < w->len + n)
        cap *= 2;
    nb = (char *)w->allocator.alloc(w->allocator.ctx, cap);
    if (nb == NULL) {
        aps_json_impl_fail(w, APS_E_NOMEM);
        return 0;
    }
    if (w->buf != NULL) {
        memcpy(nb, w->buf, w->len);
        w->allocator.free(w->allocator.ctx, w->buf, w->cap);
    }
    w->buf = nb;
    w->cap = cap;
    return 1;
}

int aps_json_impl_before_value(aps_json_writer *w)
{
    if (w->status != APS_OK)
        return 0;
    switch (w->state) {
    case ST_OBJ_VALUE:
        w->state = ST_OBJ_NEXT;
        return 1;
    case ST_ARR_NEXT:
        return aps_json_impl_put_byte(w, ',');
    case ST_ARR_FIRST:
        w->state = ST_ARR_NEXT;
        return 1;
    case ST_ROOT:
        w->state = ST_DONE;
        return 1;
    default:
        aps_json_impl_fail(w, APS_E_STATE);
        return 0;
    }
}

static void begin(aps_json_writer *w, int is_object)
{
    if (!aps_json_impl_before_value(w))
        return;
    if (w->depth >= APS_JSON_WRITER_MAX_DEPTH) {
        aps_json_impl_fail(w, APS_E_DEPTH);
        return;
    }
    if (is_object)
        w->is_object[w->depth / 64] |= (uint64_t)1 << (w->depth % 64);
    else
        w->is_object[w->depth / 64] &= ~((uint64_t)1 << (w->depth % 64));
    w->depth++;
    w->state = is_object ? ST_OBJ_FIRST : ST_ARR_FIRST;
    aps_json_impl_put_byte(w, is_object ? '{' : '[');
}

static void end(aps_json_writer *w, int is_object)
{
    if (w->status != APS_OK)
        return;
    if (is_object ? (w->state != ST_OBJ_FIRST && w->state != ST_OBJ_NEXT)
                  : (w->state != ST_ARR_FIRST && w->state != ST_ARR_NEXT)) {
        aps_json_impl_fail(w, APS_E_STATE);
        return;
    }
    w->depth--;
    if (w->depth == 0)
        w->state = ST_DONE;
    else
        w->state = (w->is_object[(w->depth - 1) / 64] >> ((w->depth - 1) % 64)) & 1 ? ST_OBJ_NEXT
                                                                                   : ST_ARR_NEXT;
    aps_json_impl_put_byte(w, is_object ? '}' : ']');
}

void aps_json_write_object_begin(aps_json_writer *w)
{
    begin(w, 1);
}

void aps_json_write_object_end(aps_json_writer *w)
{
    end(w, 1);
}

void aps_json_write_array_begin(aps_json_writer *w)
{
    begin(w, 0);
}

void aps_json_write_array_end(aps_json_writer *w)
{
    end(w, 0);
}

static const char hex_digits[] = "0123456789abcdef";

int aps_json_impl_put_string_slow(aps_json_writer *w, const char *s, size_t len)
{
    const char *e = s + len;
    unsigned high = 0; /* UTF-8 is not the writer's concern */
    char *o;
    /* Room for the quotes and the whole string unescaped; escapes ask for more. */
    if (!aps_json_impl_reserve(w, len + 2))
        return 0;
    w->buf[w->len++] = '"';
    for (;;) {
        const char *run = s;
        size_t n;
        unsigned char c;
        s = aps_scan_find_special(s, e, &high);
        n = (size_t)(s - run);
        memcpy(w->buf + w->len, run, n);
        w->len += n;
        if (s == e)
            break;
        /* One escape, at most 6 bytes, plus what is left of the string and the quote. */
        if (!aps_json_impl_reserve(w, 6 + (size_t)(e - s)))
            return 0;
        o = w->buf + w->len;
        c = (unsigned char)*s++;
        o[0] = '\\';
        switch (c) {
        case '"': o[1] = '"'; w->len += 2; break;
        case '\\': o[1] = '\\'; w->len += 2; break;
        case '\b': o[1] = 'b'; w->len += 2; break;
        case '\f': o[1] = 'f'; w->len += 2; break;
        case '\n': o[1] = 'n'; w->len += 2; break;
        case '\r': o[1] = 'r'; w->len += 2; break;
        case '\t': o[1] = 't'; w->len += 2; break;
        default:
            o[1] = 'u';
            o[2] = '0';
            o[3] = '0';
            o[4] = hex_digits[c >> 4];
            o[5] = hex_digits[c & 15];
            w->len += 6;
            break;
        }
    }
    w->buf[w->len++] = '"';
    return 1;
}

void aps_json_write_key(aps_json_writer *w, const char *s, size_t len)
{
    if (w->status != APS_OK)
        return;
    if (w->state != ST_OBJ_FIRST && w->state != ST_OBJ_NEXT) {
        aps_json_impl_fail(w, APS_E_STATE);
        return;
    }
    if (aps_json_impl_put_key(w, s, len, w->state == ST_OBJ_NEXT))
        w->state = ST_OBJ_VALUE;
}

void aps_json_write_string(aps_json_writer *w, const char *s, size_t len)
{
    if (aps_json_impl_before_value(w))
        aps_json_impl_put_string(w, s, len);
}

void aps_json_write_int64(aps_json_writer *w, int64_t v)
{
    if (aps_json_impl_before_value(w))
        aps_json_impl_put_int(w, v);
}

void aps_json_write_uint64(aps_json_writer *w, uint64_t v)
{
    if (aps_json_impl_before_value(w))
        aps_json_impl_put_uint(w, v, 0);
}

int aps_json_impl_put_double(aps_json_writer *w, double v)
{
    char tmp[40], out[40];
    int prec;
    size_t n = 0;
    if (!isfinite(v)) {
        aps_json_impl_fail(w, APS_E_ARGUMENT);
        return 0;
    }
    /* The shortest of 15, 16 or 17 significant digits that reads back as v. */
    for (prec = 15; prec <= 17; prec++) {
        const char *q;
        double back;
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        /* A locale may use another decimal point: write JSON's. */
        n = 0;
        for (q = tmp; *q != '\0'; q++) {
            char c = *q;
            if ((c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e')
                out[n++] = c;
            else if (n == 0 || out[n - 1] != '.')
                out[n++] = '.';
        }
        if (aps_json_impl_to_double(out, out + n, &back) && back == v)
            break;
    }
    return aps_json_impl_put(w, out, n);
}

void aps_json_write_double(aps_json_writer *w, double v)
{
    if (w->status != APS_OK)
        return;
    /* A non-finite value fails before the writer's state moves on. */
    if (!isfinite(v)) {
        aps_json_impl_fail(w, APS_E_ARGUMENT);
        return;
    }
    if (aps_json_impl_before_value(w))
        aps_json_impl_put_double(w, v);
}

void aps_json_write_bool(aps_json_writer *w, int v)
{
    if (aps_json_impl_before_value(w))
        aps_json_impl_put_bool(w, v);
}

void aps_json_write_null(aps_json_writer *w)
{
    if (aps_json_impl_before_value(w))
        aps_json_impl_put(w, "null", 4);
}

/*
 * Offset of the first byte in p[0..n) that is '"' or at most ' ' (n if
 * none): outside strings, where raw values are scanned with it, the bytes up
 * to ' ' that valid JSON allows are exactly its whitespace.
 */
static size_t raw_token_stop(const char *p, size_t n)
{
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), space = _mm_set1_epi8(' ');
    while (n - i >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        /* min(v, ' ') == v exactly for the bytes <= ' ', unsigned */
        unsigned m = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(_mm_min_epu8(v, space), v)));
        if (m != 0)
            return i + (unsigned)__builtin_ctz(m);
        i += 16;
    }
#endif
    while (n - i >= 8) {
        uint64_t x, q;
        memcpy(&x, p + i, 8);
        q = x ^ (ONES * '"');
        if ((((q - ONES) & ~q) | ((x - ONES * 0x21) & ~x)) & HIGHS)
            break;
        i += 8;
    }
    while (i < n && p[i] != '"' && (unsigned char)p[i] > ' ')
        i++;
    return i;
}

/* The end of the string whose content starts at p, after its closing quote (valid JSON: one exists). */
static const char *raw_string_end(const char *p, const char *end)
{
    unsigned high = 0;
    for (;;) {
        p = aps_scan_find_special(p, end, &high);
        if (p == end)
            return end;
        if (*p == '"')
            return p + 1;
        /* An escape: the backslash and the character after it. */
        if (end - p <= 2)
            return end;
        p += 2;
    }
}

/* Length of the longest prefix of p[0..n) without whitespace between tokens. */
static size_t raw_compact_prefix(const char *p, size_t n)
{
    const char *s = p, *end = p + n;
    for (;;) {
        s += raw_token_stop(s, (size_t)(end - s));
        if (s == end || *s != '"')
            return (size_t)(s - p);
        s = raw_string_end(s + 1, end);
    }
}

int aps_json_impl_put_raw(aps_json_writer *w, aps_json_raw raw)
{
    const char *p = raw.ptr, *end = raw.ptr + raw.len;
    /* Compacting never lengthens the text: a growable buffer makes room for
     * all of it at once. A caller-owned one takes each run as it comes, so a
     * value whose compact form fits is written whole. */
    if (!w->fixed && !aps_json_impl_reserve(w, raw.len))
        return 0;
    /* Raw values are mostly compact already: then one scan, one copy. */
    while (p < end) {
        size_t run = raw_compact_prefix(p, (size_t)(end - p));
        if (!aps_json_impl_put(w, p, run))
            return 0;
        p += run;
        if (p < end)
            p++; /* whitespace between tokens */
    }
    return 1;
}

void aps_json_write_raw(aps_json_writer *w, aps_json_raw raw)
{
    if (aps_json_impl_before_value(w))
        aps_json_impl_put_raw(w, raw);
}

aps_status aps_json_writer_finish(aps_json_writer *w, aps_error *err)
{
    if (w->status != APS_OK)
        return aps_error_set(err, w->status, w->len, "JSON writer failed: %s",
                             aps_status_str(w->status));
    if (w->state != ST_DONE) {
        aps_json_impl_fail(w, APS_E_STATE);
        return aps_error_set(err, APS_E_STATE, w->len,
                             w->state == ST_ROOT ? "nothing was written"
                                                 : "an array or object is still open");
    }
    return APS_OK;
}
