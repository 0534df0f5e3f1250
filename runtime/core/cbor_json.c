/*
 * cbor_json.c - converting between CBOR and JSON (RFC 8949 section 6), for the
 * items both can hold (see aps/cbor.h). The schema engine uses it to keep
 * `any` values and unknown members as JSON text whichever format they came
 * in, so a C value means the same thing decoded from either.
 */
#include "aps/cbor.h"
#include "aps/json_impl.h"
#include "cbor_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- CBOR to JSON ------------------------------------------------------------------ */

/*
 * Numbers. JSON writes a number's exact decimal, CBOR holds integers of 65
 * bits and binary floats; what neither of those holds exactly goes as the
 * tags RFC 8949 has for it (section 3.4.3 bignums, section 3.4.4 decimal fractions), and
 * comes back as the same decimal: JSON -> CBOR -> JSON loses no digit.
 * Converting between decimal and binary digits is quadratic, so a number of
 * more than APS_CBOR_JSON_MAX_DIGITS significant digits is refused.
 */
#define APS_CBOR_JSON_MAX_DIGITS 1000
#define BIG_BYTES (APS_CBOR_JSON_MAX_DIGITS / 2 + 8) /* 10^1000 < 2^3322: 416 bytes */

/*
 * The decimal text of the big-endian magnitude b[0..n) (plus one for a
 * negative bignum, which holds -1 - n) into out, with a '-' when `neg`;
 * returns its length, 0 when it is longer than APS_CBOR_JSON_MAX_DIGITS.
 */
static size_t bytes_to_decimal(const uint8_t *b, size_t n, int neg, char *out, size_t cap)
{
    uint8_t work[BIG_BYTES + 1];
    char rev[APS_CBOR_JSON_MAX_DIGITS + 8];
    size_t len = 0, i, k, start = 0;
    while (n > 0 && *b == 0) {
        b++;
        n--;
    }
    if (n > BIG_BYTES)
        return 0;
    work[0] = 0;
    memcpy(work + 1, b, n);
    n++;
    if (neg) { /* the magnitude is n + 1 */
        for (i = n; i-- > 0 && ++work[i] == 0;)
            ;
    }
    for (;;) { /* divide by ten until nothing is left */
        unsigned rem = 0;
        while (start < n && work[start] == 0)
            start++;
        if (start == n)
            break;
        for (k = start; k < n; k++) {
            unsigned v = rem << 8 | work[k];
            work[k] = (uint8_t)(v / 10);
            rem = v % 10;
        }
        if (len == sizeof rev)
            return 0;
        rev[len++] = (char)('0' + rem);
    }
    if (len == 0)
        rev[len++] = '0';
    if (len > APS_CBOR_JSON_MAX_DIGITS || len + 2 > cap)
        return 0;
    i = 0;
    if (neg)
        out[i++] = '-';
    while (len > 0)
        out[i++] = rev[--len];
    return i;
}

/* A bignum (tag 2 or 3, already read) as decimal text into out; APS_OK or why not. */
static aps_status read_bignum(aps_cbor_reader *r, uint64_t tag, char *out, size_t cap, size_t *len,
                              aps_error *err)
{
    aps_slice b;
    aps_status st;
    if (aps_cbor_peek(r) != APS_CBOR_BYTES)
        return aps_cbor_reader_fail(r, err, APS_E_TYPE, "a bignum (tag %llu) must hold a byte string",
                                    (unsigned long long)tag);
    if ((st = aps_cbor_read_bytes(r, &b, err)))
        return st;
    if ((*len = bytes_to_decimal((const uint8_t *)b.ptr, b.len, tag == 3, out, cap)) == 0)
        return aps_cbor_reader_fail(r, err, APS_E_LIMIT, "a bignum of more than %d digits",
                                    APS_CBOR_JSON_MAX_DIGITS);
    return APS_OK;
}

/* An integer item (major 0 or 1, or a bignum) as decimal text; APS_OK or why not. */
static aps_status read_integer_text(aps_cbor_reader *r, char *out, size_t cap, size_t *len, aps_error *err)
{
    aps_status st;
    if (aps_cbor_peek(r) == APS_CBOR_TAG) {
        uint64_t tag;
        if ((st = aps_cbor_read_tag(r, &tag, err)))
            return st;
        if (tag != 2 && tag != 3)
            return aps_cbor_reader_fail(r, err, APS_E_TYPE, "expected an integer or a bignum, got tag %llu",
                                        (unsigned long long)tag);
        return read_bignum(r, tag, out, cap, len, err);
    } else {
        int neg;
        uint64_t v;
        if ((st = aps_cbor_read_integer(r, &neg, &v, err)))
            return st;
        if (!neg)
            *len = (size_t)snprintf(out, cap, "%llu", (unsigned long long)v);
        else if (v == UINT64_MAX)
            *len = (size_t)snprintf(out, cap, "-18446744073709551616");
        else
            *len = (size_t)snprintf(out, cap, "-%llu", (unsigned long long)v + 1);
        return APS_OK;
    }
}

/*
 * A tag inside a value converted to JSON: a bignum (2, 3) or a decimal
 * fraction (4: [exponent, mantissa]) is the exact JSON number it stands
 * for; no other tag has a JSON form.
 */
static aps_status tag_to_json(aps_cbor_reader *r, aps_json_writer *w, aps_error *err)
{
    char num[APS_CBOR_JSON_MAX_DIGITS + 32];
    aps_json_raw raw;
    uint64_t tag, count;
    size_t len = 0;
    int64_t exp;
    int more;
    aps_status st;
    if ((st = aps_cbor_read_tag(r, &tag, err)))
        return st;
    if (tag == 2 || tag == 3) {
        if ((st = read_bignum(r, tag, num, sizeof num, &len, err)))
            return st;
    } else if (tag == 4) {
        if ((st = aps_cbor_read_array(r, &count, err)))
            return st;
        if (count != 2)
            return aps_cbor_reader_fail(r, err, APS_E_TYPE, "a decimal fraction (tag 4) is [exponent, mantissa]");
        if ((st = aps_cbor_next_element(r, &more, err)) || (st = aps_cbor_read_int(r, &exp, err)) ||
            (st = aps_cbor_next_element(r, &more, err)) ||
            (st = read_integer_text(r, num, sizeof num - 24, &len, err)) ||
            (st = aps_cbor_next_element(r, &more, err)))
            return st;
        len += (size_t)snprintf(num + len, sizeof num - len, "e%lld", (long long)exp);
    } else {
        return aps_cbor_reader_fail(r, err, APS_E_TYPE, "tag %llu has no JSON form", (unsigned long long)tag);
    }
    raw.ptr = num;
    raw.len = len;
    aps_json_write_raw(w, raw);
    return APS_OK;
}


static aps_status no_json_form(aps_cbor_reader *r, aps_error *err, const char *what)
{
    return aps_cbor_reader_fail(r, err, APS_E_TYPE, "%s has no JSON form", what);
}

aps_status aps_cbor_to_json(aps_cbor_reader *r, aps_json_writer *w, aps_error *err)
{
    aps_status st;
    int more;
    r->item_start = aps_cbor_reader_offset(r);
    switch (aps_cbor_peek(r)) {
    case APS_CBOR_UINT:
    case APS_CBOR_NEGINT: {
        char num[24];
        aps_json_raw raw;
        if ((st = read_integer_text(r, num, sizeof num, &raw.len, err)))
            return st;
        raw.ptr = num;
        aps_json_write_raw(w, raw);
        return APS_OK;
    }
    case APS_CBOR_TEXT: {
        aps_slice s;
        if ((st = aps_cbor_read_text(r, &s, err)))
            return st;
        aps_json_write_string(w, s.ptr, s.len);
        return APS_OK;
    }
    case APS_CBOR_FLOAT: {
        double d;
        if ((st = aps_cbor_read_float(r, &d, NULL, err)))
            return st;
        char num[32];
        aps_json_raw raw;
        if (isnan(d) || isinf(d))
            return aps_cbor_reader_fail(r, err, APS_E_TYPE, "%s has no JSON form",
                                        isnan(d) ? "NaN" : "an infinity");
        /* always with a '.' or an exponent ("1.0", "-0.0"): a float stays a float, and -0.0 keeps its sign,
           when aps_json_to_cbor reads it back */
        raw.len = aps_cbor_impl_format_double(d, num);
        raw.ptr = num;
        aps_json_write_raw(w, raw);
        return APS_OK;
    }
    case APS_CBOR_BOOL: {
        int b;
        if ((st = aps_cbor_read_bool(r, &b, err)))
            return st;
        aps_json_write_bool(w, b);
        return APS_OK;
    }
    case APS_CBOR_NULL:
        if ((st = aps_cbor_read_null(r, err)))
            return st;
        aps_json_write_null(w);
        return APS_OK;
    case APS_CBOR_ARRAY:
        if ((st = aps_cbor_read_array(r, NULL, err)))
            return st;
        aps_json_write_array_begin(w);
        while (!(st = aps_cbor_next_element(r, &more, err)) && more)
            if ((st = aps_cbor_to_json(r, w, err)))
                return st;
        aps_json_write_array_end(w);
        return st;
    case APS_CBOR_MAP: {
        aps_cbor_raw key;
        if ((st = aps_cbor_read_map(r, NULL, err)))
            return st;
        aps_json_write_object_begin(w);
        while (!(st = aps_cbor_next_entry(r, &key, &more, err)) && more) {
            aps_slice k;
            if (!aps_cbor_raw_text(key, &k))
                return aps_cbor_reader_fail(r, err, APS_E_TYPE,
                                            "a map key that is not a text string has no JSON form");
            aps_json_write_key(w, k.ptr, k.len);
            if ((st = aps_cbor_to_json(r, w, err)))
                return st;
        }
        aps_json_write_object_end(w);
        return st;
    }
    case APS_CBOR_BYTES: return no_json_form(r, err, "a byte string");
    case APS_CBOR_TAG: return tag_to_json(r, w, err);
    case APS_CBOR_UNDEFINED: return no_json_form(r, err, "undefined");
    case APS_CBOR_SIMPLE: return no_json_form(r, err, "a simple value");
    default:
        return aps_cbor_skip(r, err); /* says why no item starts here */
    }
}

/* ---- JSON to CBOR ------------------------------------------------------------------ */

/* A decimal: (-1)^neg * digits * 10^exp, digits without leading or trailing zeros ("" is zero). */
typedef struct json_decimal {
    int neg;
    char digits[APS_CBOR_JSON_MAX_DIGITS + 1];
    size_t n;
    int64_t exp;
} json_decimal;

/* Parses JSON number text (syntax checked); 0 when it has too many digits or a giant exponent. */
static int parse_decimal(const char *p, const char *e, json_decimal *d)
{
    int64_t exp = 0, frac = 0;
    int seen_dot = 0;
    d->neg = *p == '-';
    p += d->neg;
    d->n = 0;
    for (; p < e && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') {
            seen_dot = 1;
            continue;
        }
        if (seen_dot)
            frac++;
        if (d->n == 0 && *p == '0')
            continue; /* leading zeros */
        if (d->n == APS_CBOR_JSON_MAX_DIGITS)
            return 0;
        d->digits[d->n++] = *p;
    }
    if (p < e) { /* the exponent, refused past +-10^15: no number needs it */
        int eneg = 0;
        p++;
        if (*p == '+' || *p == '-')
            eneg = *p++ == '-';
        for (; p < e; p++) {
            if (exp > 1000000000000000ll)
                return 0;
            exp = exp * 10 + (*p - '0');
        }
        if (eneg)
            exp = -exp;
    }
    while (d->n > 0 && d->digits[d->n - 1] == '0') {
        d->n--;
        exp++;
    }
    d->exp = d->n == 0 ? 0 : exp - frac;
    d->digits[d->n] = '\0';
    return 1;
}

/* Big-endian bytes of the decimal digits s[0..n) into out[BIG_BYTES]; returns the used length. */
static size_t digits_to_bytes(const char *s, size_t n, uint8_t *out)
{
    size_t used = 0, i, k;
    for (i = 0; i < n; i++) {
        unsigned carry = (unsigned)(s[i] - '0');
        for (k = 0; k < used; k++) { /* out[BIG_BYTES-1-k] is byte k from the end */
            unsigned v = out[BIG_BYTES - 1 - k] * 10u + carry;
            out[BIG_BYTES - 1 - k] = (uint8_t)v;
            carry = v >> 8;
        }
        while (carry) {
            out[BIG_BYTES - 1 - used++] = (uint8_t)carry;
            carry >>= 8;
        }
    }
    return used;
}

/* Subtracts one from the big-endian magnitude b[0..n) (not zero). */
static void minus_one(uint8_t *b, size_t n)
{
    size_t i = n;
    while (i-- > 0 && b[i]-- == 0)
        ;
}

/* Writes the integer (-1)^neg * digits as a CBOR integer, or a bignum past 65 bits. */
static void put_big_integer(aps_cbor_writer *w, int neg, const char *digits, size_t n)
{
    uint8_t buf[BIG_BYTES];
    size_t len = digits_to_bytes(digits, n, buf), i;
    const uint8_t *b = buf + BIG_BYTES - len;
    uint64_t v = 0;
    if (neg && len > 0)
        minus_one(buf + BIG_BYTES - len, len); /* a negative bignum holds -1 - n */
    while (len > 0 && *b == 0) {
        b++;
        len--;
    }
    if (len <= 8) {
        for (i = 0; i < len; i++)
            v = v << 8 | b[i];
        if (neg)
            aps_cbor_write_negint(w, v);
        else
            aps_cbor_write_uint(w, v);
        return;
    }
    aps_cbor_write_tag(w, neg ? 3 : 2);
    aps_cbor_write_bytes(w, b, len);
}

/* Writes the JSON number `text` (syntax checked) as CBOR, exactly (see above). */
static aps_status number_to_cbor(aps_json_reader *r, aps_slice text, aps_cbor_writer *w, aps_error *err)
{
    const char *p = text.ptr, *e = text.ptr + text.len;
    json_decimal d, back;
    double v;
    char shortest[32];
    size_t i;
    if (!parse_decimal(p, e, &d))
        return aps_json_reader_fail(r, err, APS_E_LIMIT,
                                    "number %.*s... has more than %d digits or a giant exponent: too long for CBOR",
                                    (int)(text.len > 24 ? 24 : text.len), text.ptr, APS_CBOR_JSON_MAX_DIGITS);
    for (i = 0; i < text.len && p[i] != '.' && p[i] != 'e' && p[i] != 'E'; i++)
        ;
    if (i == text.len) { /* written as an integer: an integer, however big */
        if (d.n == 0)
            aps_cbor_write_uint(w, 0); /* "-0" is the integer 0 */
        else if (d.exp == 0)
            put_big_integer(w, d.neg, d.digits, d.n);
        else { /* trailing zeros went to the exponent: put them back */
            char all[APS_CBOR_JSON_MAX_DIGITS + 1];
            size_t n = d.n + (size_t)d.exp;
            if (n > APS_CBOR_JSON_MAX_DIGITS)
                return aps_json_reader_fail(r, err, APS_E_LIMIT, "integer of %zu digits: too long for CBOR", n);
            memcpy(all, d.digits, d.n);
            memset(all + d.n, '0', (size_t)d.exp);
            put_big_integer(w, d.neg, all, n);
        }
        return APS_OK;
    }
    /* a float when the double's shortest decimal is the same number, else a decimal fraction */
    if (aps_json_impl_to_double(p, e, &v)) {
        size_t n = aps_cbor_impl_format_double(v, shortest);
        if (parse_decimal(shortest, shortest + n, &back) && back.n == d.n && back.exp == d.exp &&
            memcmp(back.digits, d.digits, d.n) == 0) {
            aps_cbor_write_float(w, v);
            return APS_OK;
        }
    }
    aps_cbor_write_tag(w, 4);
    aps_cbor_write_array_begin(w, 2);
    aps_cbor_write_int(w, d.exp);
    if (d.n == 0)
        aps_cbor_write_uint(w, 0);
    else
        put_big_integer(w, d.neg, d.digits, d.n);
    aps_cbor_write_array_end(w);
    return APS_OK;
}


/*
 * CBOR writes a container's length before its items, JSON does not say it:
 * a first pass counts every container of the value, in the order they
 * start, and the second writes, taking the counts in the same order. Two
 * passes whatever the nesting (counting each container as it is met would
 * cost its depth times its size).
 */
typedef struct container_counts {
    uint64_t *n;
    size_t len, cap, next;
} container_counts;

static aps_status count_pass(aps_json_reader *r, container_counts *c, aps_error *err)
{
    aps_status st;
    aps_slice key;
    int more, object;
    size_t at;
    switch (aps_json_peek(r)) {
    case APS_JSON_ARRAY:
    case APS_JSON_OBJECT:
        break;
    default:
        return aps_json_skip(r, err);
    }
    object = aps_json_peek(r) == APS_JSON_OBJECT;
    if (c->len == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        uint64_t *n = (uint64_t *)realloc(c->n, cap * sizeof *n);
        if (n == NULL)
            return aps_json_reader_fail(r, err, APS_E_NOMEM, "out of memory counting containers");
        c->n = n;
        c->cap = cap;
    }
    at = c->len++;
    c->n[at] = 0;
    st = object ? aps_json_read_object(r, err) : aps_json_read_array(r, err);
    while (!st) {
        st = object ? aps_json_next_member(r, &key, &more, err) : aps_json_next_element(r, &more, err);
        if (st || !more)
            break;
        c->n[at]++;
        st = count_pass(r, c, err);
    }
    return st;
}

static aps_status write_pass(aps_json_reader *r, aps_cbor_writer *w, container_counts *c, aps_error *err)
{
    aps_status st;
    int more;
    switch (aps_json_peek(r)) {
    case APS_JSON_NULL:
        if (!(st = aps_json_read_null(r, err)))
            aps_cbor_write_null(w);
        return st;
    case APS_JSON_BOOL: {
        int b;
        if (!(st = aps_json_read_bool(r, &b, err)))
            aps_cbor_write_bool(w, b);
        return st;
    }
    case APS_JSON_NUMBER: {
        aps_slice text;
        if ((st = aps_json_read_number(r, &text, err)))
            return st;
        return number_to_cbor(r, text, w, err);
    }
    case APS_JSON_STRING: {
        aps_slice s;
        if (!(st = aps_json_read_string(r, &s, err)))
            aps_cbor_write_text(w, s.ptr, s.len);
        return st;
    }
    case APS_JSON_ARRAY:
        if ((st = aps_json_read_array(r, err)))
            return st;
        aps_cbor_write_array_begin(w, c->n[c->next++]);
        while (!(st = aps_json_next_element(r, &more, err)) && more)
            if ((st = write_pass(r, w, c, err)))
                return st;
        aps_cbor_write_array_end(w);
        return st;
    case APS_JSON_OBJECT: {
        aps_slice key;
        if ((st = aps_json_read_object(r, err)))
            return st;
        aps_cbor_write_map_begin(w, c->n[c->next++]);
        while (!(st = aps_json_next_member(r, &key, &more, err)) && more) {
            aps_cbor_write_text(w, key.ptr, key.len);
            if ((st = write_pass(r, w, c, err)))
                return st;
        }
        aps_cbor_write_map_end(w);
        return st;
    }
    default:
        return aps_json_skip(r, err); /* says why no value starts here */
    }
}

aps_status aps_json_to_cbor(aps_json_reader *r, aps_cbor_writer *w, aps_error *err)
{
    container_counts c;
    aps_json_pos pos;
    aps_status st;
    memset(&c, 0, sizeof c);
    aps_json_reader_save(r, &pos);
    st = count_pass(r, &c, err);
    aps_json_reader_restore(r, &pos);
    if (!st)
        st = write_pass(r, w, &c, err);
    free(c.n);
    return st;
}
