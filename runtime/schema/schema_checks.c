/*
 * schema_checks.c - the constraint checks and messages that the decoder
 * (schema_decode.c), its fast path (schema_fast.c) and the validator
 * (schema_validate.c) share: text and float bounds, integer range and
 * literal messages, and which JSON kinds a type can take.
 *
 * It is the bottom of the schema engine's files and calls none of them, so
 * the engine's files call one way: decode -> fast -> checks,
 * validate -> decode, validate -> checks (tests/tooling/layers/calls.sh).
 */
#include "aps/cbor.h"
#include "aps/json_impl.h"
#include "schema_internal.h"

#include <stdio.h>
#include <string.h>

char *aps_schema_priv_quote(char *buf, size_t cap, const char *s, size_t len, char q)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0, i;
    if (cap < 8) {
        if (cap > 0)
            buf[0] = '\0';
        return buf;
    }
    buf[n++] = q;
    for (i = 0; i < len && s != NULL; i++) {
        unsigned char ch = (unsigned char)s[i];
        /* Room for the longest escape, "...", the closing quote and the NUL. */
        if (n + 6 + 3 + 2 > cap || (i >= 60 && (ch & 0xC0) != 0x80)) {
            memcpy(buf + n, "...", 3);
            n += 3;
            break;
        }
        if (ch == (unsigned char)q || ch == '\\') {
            buf[n++] = '\\';
            buf[n++] = (char)ch;
        } else if (ch < 0x20 || ch == 0x7F) {
            memcpy(buf + n, "\\u00", 4);
            buf[n + 4] = hex[ch >> 4];
            buf[n + 5] = hex[ch & 15];
            n += 6;
        } else {
            buf[n++] = (char)ch;
        }
    }
    buf[n++] = q;
    buf[n] = '\0';
    return buf;
}

/* Shortest %g form (of 15 to 17 digits) that reads back as v. */
static void format_double(char *buf, size_t cap, double v)
{
    int prec;
    double back;
    for (prec = 15; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (aps_json_impl_to_double(buf, buf + strlen(buf), &back) && back == v)
            return;
    }
}

char *aps_schema_priv_literal(char *buf, size_t cap, const aps_literal *lit)
{
    switch (lit->kind) {
    case APS_LIT_TEXT: return aps_schema_priv_quote(buf, cap, lit->text, lit->len, '"');
    case APS_LIT_INT: snprintf(buf, cap, "%lld", (long long)lit->i); break;
    case APS_LIT_UINT: snprintf(buf, cap, "%llu", (unsigned long long)lit->u); break;
    case APS_LIT_FLOAT: format_double(buf, cap, lit->f); break;
    case APS_LIT_BOOL: snprintf(buf, cap, "%s", lit->i ? "true" : "false"); break;
    case APS_LIT_NULL: snprintf(buf, cap, "null"); break;
    case APS_LIT_UNDEFINED: snprintf(buf, cap, "undefined"); break;
    case APS_LIT_BYTES: {
        size_t i, n = 0;
        static const char hex[] = "0123456789abcdef";
        if (cap < 4) {
            if (cap > 0)
                buf[0] = '\0';
            break;
        }
        buf[n++] = 'h';
        buf[n++] = '\'';
        for (i = 0; i < lit->len && n + 4 < cap; i++) {
            buf[n++] = hex[((const unsigned char *)lit->text)[i] >> 4];
            buf[n++] = hex[((const unsigned char *)lit->text)[i] & 15];
        }
        buf[n++] = '\'';
        buf[n] = '\0';
        break;
    }
    }
    return buf;
}

char *aps_schema_priv_one_of(char *buf, size_t cap, const aps_literal *values, size_t n,
                             const aps_type *other)
{
    size_t len, i;
    char lit[96];
    int w;
    snprintf(buf, cap, "expected one of ");
    len = strlen(buf);
    for (i = 0; i < n && i < 8 && len < cap; i++) {
        w = snprintf(buf + len, cap - len, "%s%s", i == 0 ? "" : ", ",
                     aps_schema_priv_literal(lit, sizeof lit, &values[i]));
        len += w > 0 ? (size_t)w : 0;
    }
    if (n > 8 && len < cap) {
        w = snprintf(buf + len, cap - len, ", ...");
        len += w > 0 ? (size_t)w : 0;
    }
    if (other != NULL && len < cap) {
        if (other->kind == APS_K_TEXT && other->u.text.pattern != NULL)
            snprintf(buf + len, cap - len, " or a string matching %s", other->u.text.pattern);
        else
            snprintf(buf + len, cap - len, " or another string");
    }
    return buf;
}

aps_status aps_schema_priv_check_text(const aps_type *t, const char *s, size_t len, char *msg,
                                      size_t cap)
{
    char q[96];
    int m;
    if (len < t->u.text.min_len) {
        snprintf(msg, cap, "expected at least %zu byte%s; got %zu", t->u.text.min_len,
                 t->u.text.min_len == 1 ? "" : "s", len);
        return APS_E_RANGE;
    }
    if (len > t->u.text.max_len) {
        snprintf(msg, cap, "expected at most %zu byte%s; got %zu", t->u.text.max_len,
                 t->u.text.max_len == 1 ? "" : "s", len);
        return APS_E_RANGE;
    }
    if (t->u.text.pattern == NULL)
        return APS_OK;
    m = aps_regex_match(t->u.text.pattern, s, len);
    if (m == 1)
        return APS_OK;
    if (m < 0)
        snprintf(msg, cap, "unsupported or malformed pattern %s", t->u.text.pattern);
    else
        snprintf(msg, cap, "%s does not match %s", aps_schema_priv_quote(q, sizeof q, s, len, '"'),
                 t->u.text.pattern);
    return APS_E_PATTERN;
}

aps_status aps_schema_priv_check_float(const aps_type *t, double v, char *msg, size_t cap)
{
    char a[40], b[40];
    if (t->u.f.width != 0) {
        /* `float16` / `float32`: a value that width holds exactly, or CBOR could not write it as asked;
         * the CBOR writer's own test, on a scratch buffer */
        uint8_t buf[16];
        aps_cbor_writer w;
        aps_status st;
        aps_cbor_writer_init_fixed(&w, buf, sizeof buf, NULL);
        aps_cbor_write_float_width(&w, v, t->u.f.width);
        st = aps_cbor_writer_status(&w);
        aps_cbor_writer_deinit(&w);
        if (st != APS_OK) {
            format_double(b, sizeof b, v);
            snprintf(msg, cap, "expected a number a %d-bit float holds exactly; got %s", t->u.f.width * 8, b);
            return APS_E_RANGE;
        }
    }
    if (t->u.f.has_min && (v < t->u.f.min || (t->u.f.min_exclusive && v == t->u.f.min))) {
        format_double(a, sizeof a, t->u.f.min);
        format_double(b, sizeof b, v);
        snprintf(msg, cap, "expected a number %s %s; got %s", t->u.f.min_exclusive ? ">" : ">=", a, b);
        return APS_E_RANGE;
    }
    if (t->u.f.has_max && (v > t->u.f.max || (t->u.f.max_exclusive && v == t->u.f.max))) {
        format_double(a, sizeof a, t->u.f.max);
        format_double(b, sizeof b, v);
        snprintf(msg, cap, "expected a number %s %s; got %s", t->u.f.max_exclusive ? "<" : "<=", a, b);
        return APS_E_RANGE;
    }
    return APS_OK;
}

void aps_schema_priv_int_range(char *buf, size_t cap, const aps_type *t, const char *got,
                               size_t got_len)
{
    int n = (int)(got_len > 40 ? 40 : got_len);
    if (t->kind == APS_K_UINT && t->u.u.forbidden_bits != 0)
        snprintf(buf, cap, "expected an integer in %llu..%llu with no bit of 0x%llx set; got %.*s",
                 (unsigned long long)t->u.u.min, (unsigned long long)t->u.u.max,
                 (unsigned long long)t->u.u.forbidden_bits, n, got);
    else if (t->kind == APS_K_UINT)
        snprintf(buf, cap, "expected an integer in %llu..%llu; got %.*s",
                 (unsigned long long)t->u.u.min, (unsigned long long)t->u.u.max, n, got);
    else
        snprintf(buf, cap, "expected an integer in %lld..%lld; got %.*s", (long long)t->u.i.min,
                 (long long)t->u.i.max, n, got);
}

/* ---- enumerations ------------------------------------------------------- */

/* Order of the sorted index of texts: by length, then bytes (a short compare first). */
static int enum_cmp(const aps_literal *lit, const char *s, size_t len)
{
    if (lit->len != len)
        return lit->len < len ? -1 : 1;
    return len == 0 ? 0 : memcmp(lit->text, s, len);
}

/* A JSON integer's spelling as sign and magnitude; false for anything else (a fraction, 2^64). */
static bool integer_spelling(const char *s, size_t len, bool *neg, uint64_t *mag)
{
    size_t i = 0;
    uint64_t m = 0;
    *neg = len > 0 && s[0] == '-';
    i = *neg;
    if (i >= len || (s[i] == '0' && len > i + 1))
        return false;
    for (; i < len; i++) {
        unsigned d = (unsigned)(unsigned char)s[i] - '0';
        if (d > 9 || m > (UINT64_MAX - d) / 10)
            return false;
        m = m * 10 + d;
    }
    *mag = m;
    return !(*neg && m == 0 && len > 2);
}

/* Order of the sorted index of integers: by value. */
static int enum_int_cmp(const aps_literal *lit, bool neg, uint64_t mag)
{
    bool lneg = lit->kind == APS_LIT_INT && lit->i < 0;
    uint64_t lmag = lneg ? (uint64_t)(-(lit->i + 1)) + 1 : lit->kind == APS_LIT_INT ? (uint64_t)lit->i : lit->u;
    if (lneg != neg)
        return lneg ? -1 : 1;
    if (lmag == mag)
        return 0;
    return (lmag < mag) != lneg ? -1 : 1;
}

static int enum_entry_cmp(const aps_literal *lit, const char *s, size_t len, bool ints, bool neg, uint64_t mag)
{
    return ints ? enum_int_cmp(lit, neg, mag) : enum_cmp(lit, s, len);
}

int aps_schema_enum_find(const aps_type *t, const char *text, size_t len)
{
    const aps_literal *v = t->u.enm.values;
    size_t lo = 0, hi = t->u.enm.count, i;
    bool ints = aps_schema_priv_enum_of_ints(t), neg = false;
    uint64_t mag = 0;
    if (ints && !integer_spelling(text, len, &neg, &mag))
        return 0;
    if (t->u.enm.sorted == NULL) {
        for (i = 0; i < hi; i++)
            if (ints ? enum_int_cmp(&v[i], neg, mag) == 0 : aps_schema_priv_text_is(&v[i], text, len))
                return (int)(i + 1);
        return 0;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        unsigned k = t->u.enm.sorted[mid];
        int c = enum_entry_cmp(&v[k], text, len, ints, neg, mag);
        if (c == 0)
            return (int)k + 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* ---- JSON kinds --------------------------------------------------------- */

bool aps_schema_priv_kind_fits(const aps_type *t, aps_json_kind jk, bool is_int, int depth)
{
    size_t i;
    switch (t->kind) {
    case APS_K_ANY: return jk != APS_JSON_INVALID;
    case APS_K_BOOL: return jk == APS_JSON_BOOL;
    case APS_K_INT:
    case APS_K_UINT: return jk == APS_JSON_NUMBER && is_int;
    case APS_K_FLOAT: return jk == APS_JSON_NUMBER;
    case APS_K_TEXT: return jk == APS_JSON_STRING;
    case APS_K_ENUM: return aps_schema_priv_enum_of_ints(t) ? jk == APS_JSON_NUMBER && is_int : jk == APS_JSON_STRING;
    case APS_K_STRUCT:
    case APS_K_MAP: return jk == APS_JSON_OBJECT;
    case APS_K_ARRAY:
    case APS_K_TUPLE: return jk == APS_JSON_ARRAY;
    case APS_K_LITERAL:
        switch (t->u.lit.kind) {
        case APS_LIT_TEXT: return jk == APS_JSON_STRING;
        case APS_LIT_INT:
        case APS_LIT_UINT: return jk == APS_JSON_NUMBER && is_int;
        case APS_LIT_FLOAT: return jk == APS_JSON_NUMBER;
        case APS_LIT_BOOL: return jk == APS_JSON_BOOL;
        case APS_LIT_NULL: return jk == APS_JSON_NULL;
        case APS_LIT_UNDEFINED:
        case APS_LIT_BYTES: return false; /* no JSON form */
        }
        return false;
    case APS_K_BYTES: return false;
    case APS_K_TAG: return depth <= 16 && aps_schema_priv_kind_fits(t->u.tag.content, jk, is_int, depth + 1);
    case APS_K_UNION:
        if (t->u.un.cls == APS_U_DISCRIMINATED)
            return jk == APS_JSON_OBJECT;
        if (depth > 16)
            return false;
        for (i = 0; i < t->u.un.nalts; i++) {
            if (aps_schema_priv_kind_fits(t->u.un.alts[i], jk, is_int, depth + 1))
                return true;
        }
        return false;
    }
    return false;
}

static size_t entries_elements(const aps_type *t, const char *base, int depth);

/* The elements one value of t takes inside a positional array. */
static size_t value_elements(const aps_type *t, const void *value, int depth)
{
    const char *base = (const char *)value;
    size_t i, n = 0, k;
    if (!aps_schema_priv_in_place(t))
        return 1;
    if (depth > APS_SCHEMA_MAX_DEPTH)
        return SIZE_MAX;
    if (t->kind == APS_K_TUPLE)
        return entries_elements(t, base, depth + 1);
    if (t->kind == APS_K_UNION) {
        int kind = *APS_CAT(base, t->u.un.kind_offset, int);
        if (kind < 1 || (size_t)kind > t->u.un.nalts)
            return SIZE_MAX;
        return value_elements(t->u.un.alts[kind - 1], base + t->u.un.payload_offset, depth + 1);
    }
    {
        const aps_array *a = (const aps_array *)value;
        const aps_type *et = t->u.arr.elem;
        if (!aps_schema_priv_in_place(et))
            return a->count;
        for (i = 0; i < a->count; i++) {
            if ((k = value_elements(et, (const char *)a->items + i * et->size, depth + 1)) == SIZE_MAX)
                return SIZE_MAX;
            n += k;
        }
        return n;
    }
}

static size_t entries_elements(const aps_type *t, const char *base, int depth)
{
    size_t i, n = 0, k;
    for (i = 0; i < t->u.st.nfields; i++) {
        const aps_field *f = &t->u.st.fields[i];
        if ((f->flags & APS_F_OPTIONAL) && !*APS_CAT(base, f->present_offset, bool))
            continue;
        if ((k = value_elements(f->type, base + f->offset, depth)) == SIZE_MAX)
            return SIZE_MAX;
        n += k;
    }
    return n;
}

size_t aps_schema_priv_elements(const aps_type *t, const void *value)
{
    return entries_elements(t, (const char *)value, 0);
}

bool aps_schema_priv_member_name(const aps_json_member *m, char *buf, size_t cap, aps_slice *out)
{
    const unsigned char *p = m->cbor_key.ptr;
    unsigned major, ai, i, n;
    uint64_t v = 0;
    int len;
    if (p == NULL) {
        *out = m->key;
        return true;
    }
    if (m->cbor_key.len == 0)
        return false;
    major = p[0] >> 5;
    ai = p[0] & 31u;
    if (major > 1 || ai > 27)
        return false;
    n = ai < 24 ? 0 : 1u << (ai - 24);
    if (m->cbor_key.len != 1 + (size_t)n)
        return false;
    v = ai < 24 ? ai : 0;
    for (i = 0; i < n; i++)
        v = v << 8 | p[1 + i];
    if (major == 0)
        len = snprintf(buf, cap, "%llu", (unsigned long long)v);
    else if (v == UINT64_MAX)
        len = snprintf(buf, cap, "-18446744073709551616");
    else
        len = snprintf(buf, cap, "-%llu", (unsigned long long)v + 1);
    if (len < 0 || (size_t)len >= cap)
        return false;
    out->ptr = buf;
    out->len = (size_t)len;
    return true;
}
