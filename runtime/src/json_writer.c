/* json_writer.c - compact JSON writer with a sticky error (see apr_json.h). */
#include "json_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void apr_json_writer_init(apr_json_writer *w, const apr_allocator *allocator)
{
    memset(w, 0, sizeof *w);
    w->allocator = allocator != NULL && allocator->alloc != NULL ? *allocator : apr_malloc_allocator;
}

void apr_json_writer_init_fixed(apr_json_writer *w, char *buf, size_t cap)
{
    memset(w, 0, sizeof *w);
    w->buf = buf;
    w->cap = buf != NULL ? cap : 0;
    w->fixed = 1;
}

void apr_json_writer_deinit(apr_json_writer *w)
{
    if (w == NULL)
        return;
    if (!w->fixed && w->buf != NULL)
        w->allocator.free(w->allocator.ctx, w->buf, w->cap);
    w->buf = NULL;
    w->cap = w->len = 0;
}

void apr_json_writer_reset(apr_json_writer *w)
{
    w->len = 0;
    w->status = APR_OK;
    w->depth = 0;
    w->state = ST_ROOT;
}

static void fail(apr_json_writer *w, apr_status code)
{
    if (w->status == APR_OK)
        w->status = code;
}

/* Makes room for n more bytes; 0 (and a sticky error) when it cannot. */
static int grow(apr_json_writer *w, size_t n)
{
    size_t cap;
    char *nb;
    if (w->fixed || n > SIZE_MAX / 2 - w->len) {
        fail(w, w->fixed ? APR_E_LIMIT : APR_E_NOMEM);
        return 0;
    }
    cap = w->cap ? w->cap * 2 : 256;
    while (cap < w->len + n)
        cap *= 2;
    nb = (char *)w->allocator.alloc(w->allocator.ctx, cap);
    if (nb == NULL) {
        fail(w, APR_E_NOMEM);
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

static inline int reserve(apr_json_writer *w, size_t n)
{
    if (w->cap - w->len >= n)
        return 1;
    return grow(w, n);
}

/* Accounts for one value about to be written; writes the comma it needs. */
static inline int before_value(apr_json_writer *w)
{
    if (w->status != APR_OK)
        return 0;
    switch (w->state) {
    case ST_OBJ_VALUE:
        w->state = ST_OBJ_NEXT;
        return 1;
    case ST_ARR_NEXT:
        if (!reserve(w, 1))
            return 0;
        w->buf[w->len++] = ',';
        return 1;
    case ST_ARR_FIRST:
        w->state = ST_ARR_NEXT;
        return 1;
    case ST_ROOT:
        w->state = ST_DONE;
        return 1;
    default:
        fail(w, APR_E_STATE);
        return 0;
    }
}

static void put(apr_json_writer *w, const char *s, size_t n)
{
    if (reserve(w, n)) {
        memcpy(w->buf + w->len, s, n);
        w->len += n;
    }
}

static void begin(apr_json_writer *w, int is_object)
{
    if (!before_value(w))
        return;
    if (w->depth >= APR_JSON_WRITER_MAX_DEPTH) {
        fail(w, APR_E_DEPTH);
        return;
    }
    if (is_object)
        w->is_object[w->depth / 64] |= (uint64_t)1 << (w->depth % 64);
    else
        w->is_object[w->depth / 64] &= ~((uint64_t)1 << (w->depth % 64));
    w->depth++;
    w->state = is_object ? ST_OBJ_FIRST : ST_ARR_FIRST;
    put(w, is_object ? "{" : "[", 1);
}

static void end(apr_json_writer *w, int is_object)
{
    if (w->status != APR_OK)
        return;
    if (is_object ? (w->state != ST_OBJ_FIRST && w->state != ST_OBJ_NEXT)
                  : (w->state != ST_ARR_FIRST && w->state != ST_ARR_NEXT)) {
        fail(w, APR_E_STATE);
        return;
    }
    w->depth--;
    if (w->depth == 0)
        w->state = ST_DONE;
    else
        w->state = (w->is_object[(w->depth - 1) / 64] >> ((w->depth - 1) % 64)) & 1 ? ST_OBJ_NEXT
                                                                                   : ST_ARR_NEXT;
    put(w, is_object ? "}" : "]", 1);
}

void apr_json_write_object_begin(apr_json_writer *w)
{
    begin(w, 1);
}

void apr_json_write_object_end(apr_json_writer *w)
{
    end(w, 1);
}

void apr_json_write_array_begin(apr_json_writer *w)
{
    begin(w, 0);
}

void apr_json_write_array_end(apr_json_writer *w)
{
    end(w, 0);
}

static const char hex_digits[] = "0123456789abcdef";

/* Writes s quoted and escaped. */
static void put_string(apr_json_writer *w, const char *s, size_t len)
{
    const char *e = s + len;
    char *o;
    /* Room for the quotes and the whole string unescaped; escapes ask for more. */
    if (!reserve(w, len + 2))
        return;
    w->buf[w->len++] = '"';
    for (;;) {
        const char *run = s;
        size_t n;
        unsigned char c;
        while (e - s >= 8) {
            uint64_t x, q, b, t;
            memcpy(&x, s, 8);
            q = x ^ (ONES * '"');
            b = x ^ (ONES * '\\');
            t = ((q - ONES) & ~q) | ((b - ONES) & ~b) | ((x - ONES * 0x20) & ~x);
            if (t & HIGHS)
                break;
            s += 8;
        }
        while (s < e && (unsigned char)*s >= 0x20 && *s != '"' && *s != '\\')
            s++;
        n = (size_t)(s - run);
        memcpy(w->buf + w->len, run, n);
        w->len += n;
        if (s == e)
            break;
        /* One escape, at most 6 bytes, plus what is left of the string and the quote. */
        if (!reserve(w, 6 + (size_t)(e - s)))
            return;
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
}

void apr_json_write_key(apr_json_writer *w, const char *s, size_t len)
{
    if (w->status != APR_OK)
        return;
    if (w->state == ST_OBJ_NEXT) {
        if (!reserve(w, 1))
            return;
        w->buf[w->len++] = ',';
    } else if (w->state != ST_OBJ_FIRST) {
        fail(w, APR_E_STATE);
        return;
    }
    w->state = ST_OBJ_VALUE;
    put_string(w, s, len);
    put(w, ":", 1);
}

void apr_json_write_string(apr_json_writer *w, const char *s, size_t len)
{
    if (before_value(w))
        put_string(w, s, len);
}

static const char digit_pairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Writes v in decimal, with a '-' first when neg. */
static void put_uint(apr_json_writer *w, uint64_t v, int neg)
{
    char tmp[24];
    char *p = tmp + sizeof tmp;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--p = digit_pairs[d + 1];
        *--p = digit_pairs[d];
    }
    if (v >= 10) {
        *--p = digit_pairs[v * 2 + 1];
        *--p = digit_pairs[v * 2];
    } else {
        *--p = (char)('0' + v);
    }
    if (neg)
        *--p = '-';
    put(w, p, (size_t)(tmp + sizeof tmp - p));
}

void apr_json_write_int64(apr_json_writer *w, int64_t v)
{
    if (before_value(w))
        put_uint(w, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
}

void apr_json_write_uint64(apr_json_writer *w, uint64_t v)
{
    if (before_value(w))
        put_uint(w, v, 0);
}

void apr_json_write_double(apr_json_writer *w, double v)
{
    char tmp[40], out[40];
    int prec;
    size_t n = 0;
    if (w->status != APR_OK)
        return;
    if (!isfinite(v)) {
        fail(w, APR_E_ARGUMENT);
        return;
    }
    if (!before_value(w))
        return;
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
        if (apr_json_priv_to_double(out, out + n, &back) && back == v)
            break;
    }
    put(w, out, n);
}

void apr_json_write_bool(apr_json_writer *w, int v)
{
    if (before_value(w))
        put(w, v ? "true" : "false", v ? 4 : 5);
}

void apr_json_write_null(apr_json_writer *w)
{
    if (before_value(w))
        put(w, "null", 4);
}

/* Offset of the first byte in p[0..n) that is '"', ' ' or below 0x20 (n if none), a word at a time. */
static size_t raw_token_stop(const char *p, size_t n)
{
    size_t i = 0;
    while (n - i >= 8) {
        uint64_t x, q, sp, t;
        memcpy(&x, p + i, 8);
        q = x ^ (ONES * '"');
        sp = x ^ (ONES * ' ');
        t = (((q - ONES) & ~q) | ((sp - ONES) & ~sp) | ((x - ONES * 0x20) & ~x)) & HIGHS;
        if (t != 0)
            break;
        i += 8;
    }
    while (i < n && p[i] != '"' && p[i] != ' ' && (unsigned char)p[i] >= 0x20)
        i++;
    return i;
}

/* Offset of the closing quote of the string whose content starts at p (valid JSON: one exists). */
static size_t raw_string_end(const char *p, size_t n)
{
    size_t i = 0;
    for (;;) {
        while (n - i >= 8) {
            uint64_t x, q, b, t;
            memcpy(&x, p + i, 8);
            q = x ^ (ONES * '"');
            b = x ^ (ONES * '\\');
            t = (((q - ONES) & ~q) | ((b - ONES) & ~b)) & HIGHS;
            if (t != 0)
                break;
            i += 8;
        }
        while (i < n && p[i] != '"' && p[i] != '\\')
            i++;
        if (i >= n || p[i] == '"')
            return i;
        i += 2; /* an escape: the backslash and the character after it */
        if (i > n)
            return n;
    }
}

void apr_json_write_raw(apr_json_writer *w, apr_json_raw raw)
{
    const char *p = raw.ptr, *end = raw.ptr + raw.len;
    if (!before_value(w))
        return;
    /* The writer's output is compact: whitespace between the value's tokens
     * is dropped, strings are copied whole. Runs without whitespace are
     * copied with one put each, found a word at a time. */
    while (p < end) {
        size_t run = raw_token_stop(p, (size_t)(end - p));
        put(w, p, run);
        p += run;
        if (p >= end)
            break;
        if (*p == '"') {
            size_t len = raw_string_end(p + 1, (size_t)(end - p - 1));
            size_t whole = len + 2 <= (size_t)(end - p) ? len + 2 : (size_t)(end - p);
            put(w, p, whole);
            p += whole;
        } else {
            p++; /* whitespace between tokens */
        }
    }
}

apr_status apr_json_writer_finish(apr_json_writer *w, apr_error *err)
{
    if (w->status != APR_OK)
        return apr_error_set(err, w->status, w->len, "JSON writer failed: %s",
                             apr_status_str(w->status));
    if (w->state != ST_DONE) {
        fail(w, APR_E_STATE);
        return apr_error_set(err, APR_E_STATE, w->len,
                             w->state == ST_ROOT ? "nothing was written"
                                                 : "an array or object is still open");
    }
    return APR_OK;
}
