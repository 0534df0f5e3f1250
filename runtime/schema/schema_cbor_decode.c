/*
 * schema_cbor_decode.c - decodes CBOR into C values described by aps_type
 * descriptors (see aps/schema.h, aps_schema_decode_cbor).
 *
 * The same descriptors and the same rules as the JSON decoder, over the
 * CBOR pull reader: members by name in either spelling, choices by their
 * discriminant (wherever it comes in the map), by kind, or by trial,
 * literals, ranges, sizes and patterns checked while decoding. What the C
 * types keep as JSON text (`any` values, unknown members, the value of an
 * unknown variant) is converted to JSON (aps_cbor_to_json), so a value
 * means the same decoded from either format and encodes to either. An
 * item JSON cannot hold there (a byte string inside an `any`) is refused.
 */
#include "aps/cbor.h"
#include "schema_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cbor_dctx {
    aps_cbor_reader *r;
    aps_arena *arena;
    aps_error *err;
    aps_key_case key_case;
    bool strict;
    size_t depth;
    size_t steps, budget; /* elements read to match positional arrays, and how many the input allows */
    aps_json_writer json; /* scratch for JSON conversions (malloc), each copied into the arena */
} cbor_dctx;

static aps_status decode_value(cbor_dctx *c, const aps_type *t, void *out);

static aps_status fail_nomem(cbor_dctx *c)
{
    return aps_cbor_reader_fail(c->r, c->err, APS_E_NOMEM, "out of memory (arena)");
}

/* Grows an arena block of `cap` items of `size` bytes to hold at least one more. */
static void *grow_items(cbor_dctx *c, void *items, size_t *cap, size_t size)
{
    size_t ncap = *cap != 0 ? *cap * 2 : 4;
    void *p;
    if (ncap > SIZE_MAX / size)
        return NULL;
    p = aps_arena_realloc(c->arena, items, *cap * size, ncap * size, APS_ARENA_ALIGN);
    if (p != NULL)
        *cap = ncap;
    return p;
}

/* The next item as JSON text in the arena: what `any` and unknown members keep. */
static aps_status read_as_json(cbor_dctx *c, aps_json_raw *out)
{
    aps_status st;
    char *copy;
    aps_json_writer_reset(&c->json);
    if ((st = aps_cbor_to_json(c->r, &c->json, c->err)) != APS_OK)
        return st;
    if ((st = aps_json_writer_finish(&c->json, NULL)) != APS_OK)
        return aps_cbor_reader_fail(c->r, c->err, st, "converting to JSON failed: %s", aps_status_str(st));
    copy = (char *)aps_arena_alloc_aligned(c->arena, aps_json_writer_len(&c->json), 1);
    if (copy == NULL)
        return fail_nomem(c);
    memcpy(copy, aps_json_writer_data(&c->json), aps_json_writer_len(&c->json));
    out->ptr = copy;
    out->len = aps_json_writer_len(&c->json);
    return APS_OK;
}

/* ---- scalars ------------------------------------------------------------------- */

/* An integer's decimal text, for messages and integer enumerations. */
static size_t integer_text(char *buf, size_t cap, int neg, uint64_t v)
{
    if (!neg)
        return (size_t)snprintf(buf, cap, "%llu", (unsigned long long)v);
    if (v == UINT64_MAX)
        return (size_t)snprintf(buf, cap, "-18446744073709551616");
    return (size_t)snprintf(buf, cap, "-%llu", (unsigned long long)v + 1);
}

static aps_status fail_range(cbor_dctx *c, const aps_type *t, int neg, uint64_t v)
{
    char msg[APS_ERROR_MESSAGE_MAX], num[24];
    size_t n = integer_text(num, sizeof num, neg, v);
    aps_schema_priv_int_range(msg, sizeof msg, t, num, n);
    return aps_cbor_reader_fail(c->r, c->err, APS_E_RANGE, "%s", msg);
}

static aps_status decode_int(cbor_dctx *c, const aps_type *t, int64_t *out)
{
    int neg;
    uint64_t v;
    int64_t i;
    aps_status st = aps_cbor_read_integer(c->r, &neg, &v, c->err);
    if (st != APS_OK)
        return st;
    if (v > (uint64_t)INT64_MAX) {
        char num[24];
        integer_text(num, sizeof num, neg, v);
        return aps_cbor_reader_fail(c->r, c->err, APS_E_RANGE, "integer %s is outside the 64-bit signed range", num);
    }
    i = neg ? -1 - (int64_t)v : (int64_t)v;
    if (i < t->u.i.min || i > t->u.i.max)
        return fail_range(c, t, neg, v);
    *out = i;
    return APS_OK;
}

static aps_status decode_uint(cbor_dctx *c, const aps_type *t, uint64_t *out)
{
    int neg;
    uint64_t v;
    aps_status st = aps_cbor_read_integer(c->r, &neg, &v, c->err);
    if (st != APS_OK)
        return st;
    if (neg || v < t->u.u.min || v > t->u.u.max || (v & t->u.u.forbidden_bits) != 0)
        return fail_range(c, t, neg, v);
    *out = v;
    return APS_OK;
}

/*
 * A number: CDDL's `float` and `number` share the C double, and a JSON
 * number carries no width, so both read a float of any width or an integer
 * (as the nearest double), as the JSON decoder reads any number.
 */
static aps_status read_number(cbor_dctx *c, double *out)
{
    aps_cbor_type k = aps_cbor_peek(c->r);
    if (k == APS_CBOR_UINT || k == APS_CBOR_NEGINT) {
        int neg;
        uint64_t v;
        aps_status st = aps_cbor_read_integer(c->r, &neg, &v, c->err);
        if (st == APS_OK)
            *out = neg ? -1.0 - (double)v : (double)v;
        return st;
    }
    return aps_cbor_read_float(c->r, out, NULL, c->err);
}

static aps_status decode_float(cbor_dctx *c, const aps_type *t, double *out)
{
    double v;
    aps_status st = read_number(c, &v);
    if (st != APS_OK)
        return st;
    if (v != v || v - v != 0) /* NaN or an infinity: no JSON number holds it, nor the C value's checks */
        return aps_cbor_reader_fail(c->r, c->err, APS_E_RANGE, "expected a finite number; got %s",
                                    v != v ? "NaN" : "an infinity");
    if (t->u.f.has_min || t->u.f.has_max || t->u.f.width != 0) {
        char msg[APS_ERROR_MESSAGE_MAX];
        if ((st = aps_schema_priv_check_float(t, v, msg, sizeof msg)) != APS_OK)
            return aps_cbor_reader_fail(c->r, c->err, st, "%s", msg);
    }
    *out = v;
    return APS_OK;
}

static aps_status decode_text(cbor_dctx *c, const aps_type *t, aps_slice *out)
{
    aps_slice s;
    aps_status st = aps_cbor_read_text(c->r, &s, c->err);
    if (st != APS_OK)
        return st;
    if (aps_schema_priv_text_constrained(t, s.len)) {
        char msg[APS_ERROR_MESSAGE_MAX];
        if ((st = aps_schema_priv_check_text(t, s.ptr, s.len, msg, sizeof msg)) != APS_OK)
            return aps_cbor_reader_fail(c->r, c->err, st, "%s", msg);
    }
    *out = s;
    return APS_OK;
}

/*
 * The bytes of a `.cbor T` (`.cborseq T`) byte string: one item of T (a
 * sequence of them), decoded into scratch space in the arena and given
 * back; a failure is reported at the byte string, with the inner error's
 * own offset and path inside it.
 */
static aps_status check_embedded(cbor_dctx *c, const aps_type *t, aps_slice s)
{
    const aps_type *et = t->u.bytes.embedded;
    aps_cbor_reader sub, *outer = c->r;
    aps_cbor_reader_options ro;
    aps_cbor_pos pos;
    aps_error inner, *caller = c->err;
    aps_status st = APS_OK;
    void *scratch = NULL;
    aps_cbor_reader_save(outer, &pos); /* only for its arena mark: the scratch is dropped after */
    if (et->size != 0 && (scratch = aps_arena_alloc(c->arena, et->size)) == NULL)
        return fail_nomem(c);
    memset(&ro, 0, sizeof ro);
    ro.sequence = t->u.bytes.sequence;
    aps_cbor_reader_init(&sub, s.ptr, s.len, c->arena, &ro);
    aps_error_clear(&inner);
    c->r = &sub;
    c->err = &inner;
    while (st == APS_OK && !(t->u.bytes.sequence && aps_cbor_reader_at_end(&sub))) {
        if (scratch != NULL)
            memset(scratch, 0, et->size);
        st = decode_value(c, et, scratch);
        if (!t->u.bytes.sequence)
            break;
    }
    if (st == APS_OK)
        st = aps_cbor_reader_finish(&sub, &inner);
    c->r = outer;
    c->err = caller;
    aps_cbor_reader_restore(outer, &pos);
    /* malformed or too deep bytes inside are a wrong value of this byte string, not bytes the
     * outer reader failed on: a choice goes on to its next alternative (`bstr .cbor M / bstr .size 0`) */
    if (st == APS_E_SYNTAX || st == APS_E_UTF8 || st == APS_E_DEPTH || st == APS_E_LIMIT)
        st = APS_E_TYPE;
    if (st != APS_OK)
        return aps_cbor_reader_fail(c->r, c->err, st, "the embedded CBOR (.%s) is no %s: byte %zu%s%s: %s",
                                    t->u.bytes.sequence ? "cborseq" : "cbor", et->name != NULL ? et->name : "value",
                                    inner.offset, inner.pointer[0] != '\0' ? ", at " : "", inner.pointer,
                                    inner.message);
    return APS_OK;
}

static aps_status decode_bytes(cbor_dctx *c, const aps_type *t, aps_slice *out)
{
    aps_slice s;
    aps_status st = aps_cbor_read_bytes(c->r, &s, c->err);
    if (st != APS_OK)
        return st;
    if (s.len < t->u.bytes.min_len || s.len > t->u.bytes.max_len)
        return aps_cbor_reader_fail(c->r, c->err, APS_E_RANGE, "expected a byte string of %zu to %zu bytes; got %zu",
                                    t->u.bytes.min_len, t->u.bytes.max_len, s.len);
    if (t->u.bytes.embedded != NULL && (st = check_embedded(c, t, s)) != APS_OK)
        return st;
    *out = s;
    return APS_OK;
}

/* `#6.n(T)`: tag n, then T's item, into T's C value. */
static aps_status decode_tag(cbor_dctx *c, const aps_type *t, void *out)
{
    uint64_t n;
    aps_status st;
    if (aps_cbor_peek(c->r) != APS_CBOR_TAG) {
        if ((st = aps_cbor_skip(c->r, c->err)) != APS_OK) /* malformed bytes are a syntax error first */
            return st;
        return aps_cbor_reader_fail(c->r, c->err, APS_E_TYPE, "expected tag %llu", (unsigned long long)t->u.tag.number);
    }
    if ((st = aps_cbor_read_tag(c->r, &n, c->err)) != APS_OK)
        return st;
    if (n != t->u.tag.number)
        return aps_cbor_reader_fail(c->r, c->err, APS_E_TYPE, "expected tag %llu; got tag %llu",
                                    (unsigned long long)t->u.tag.number, (unsigned long long)n);
    return decode_value(c, t->u.tag.content, out);
}

static aps_status fail_one_of(cbor_dctx *c, const aps_literal *values, size_t n, const aps_type *other,
                              const char *got, size_t got_len, bool quote)
{
    char list[APS_ERROR_MESSAGE_MAX], q[96];
    aps_schema_priv_one_of(list, sizeof list, values, n, other);
    if (quote)
        aps_schema_priv_quote(q, sizeof q, got, got_len, '"');
    else
        snprintf(q, sizeof q, "%.*s", (int)got_len, got);
    return aps_cbor_reader_fail(c->r, c->err, APS_E_UNKNOWN, "%s; got %s", list, q);
}

static aps_status decode_enum(cbor_dctx *c, const aps_type *t, void *out)
{
    aps_slice s;
    char num[24];
    int k;
    aps_status st;
    bool ints = aps_schema_priv_enum_of_ints(t);
    if (ints) { /* integer values are found by their decimal text, as JSON writes them */
        int neg;
        uint64_t v;
        if ((st = aps_cbor_read_integer(c->r, &neg, &v, c->err)) != APS_OK)
            return st;
        s.len = integer_text(num, sizeof num, neg, v);
        s.ptr = num;
    } else if ((st = aps_cbor_read_text(c->r, &s, c->err)) != APS_OK) {
        return st;
    }
    if ((k = aps_schema_enum_find(t, s.ptr, s.len)) > 0) {
        *(int *)out = k;
        return APS_OK;
    }
    if (!ints && t->u.enm.other != NULL) {
        char msg[APS_ERROR_MESSAGE_MAX];
        if (aps_schema_priv_check_text(t->u.enm.other, s.ptr, s.len, msg, sizeof msg) == APS_OK) {
            *(int *)out = 0;
            *APS_AT(out, t->u.enm.other_offset, aps_slice) = s;
            return APS_OK;
        }
    }
    return fail_one_of(c, t->u.enm.values, t->u.enm.count, t->u.enm.other, s.ptr, s.len, !ints);
}

static aps_status fail_literal(cbor_dctx *c, const aps_literal *lit, const char *got)
{
    char want[96];
    return aps_cbor_reader_fail(c->r, c->err, APS_E_UNKNOWN, "expected %s; got %s",
                                aps_schema_priv_literal(want, sizeof want, lit), got);
}

static aps_status decode_literal(cbor_dctx *c, const aps_literal *lit)
{
    aps_status st;
    char got[96];
    switch (lit->kind) {
    case APS_LIT_TEXT: {
        aps_slice s;
        if ((st = aps_cbor_read_text(c->r, &s, c->err)) != APS_OK)
            return st;
        if (!aps_schema_priv_text_is(lit, s.ptr, s.len))
            return fail_literal(c, lit, aps_schema_priv_quote(got, sizeof got, s.ptr, s.len, '"'));
        return APS_OK;
    }
    case APS_LIT_INT:
    case APS_LIT_UINT: {
        int neg;
        uint64_t v;
        bool same;
        if ((st = aps_cbor_read_integer(c->r, &neg, &v, c->err)) != APS_OK)
            return st;
        if (lit->kind == APS_LIT_UINT)
            same = !neg && v == lit->u;
        else if (lit->i < 0)
            same = neg && v == (uint64_t)(-1 - lit->i);
        else
            same = !neg && v == (uint64_t)lit->i;
        if (!same)
            integer_text(got, sizeof got, neg, v);
        return same ? APS_OK : fail_literal(c, lit, got);
    }
    case APS_LIT_FLOAT: {
        double v;
        if ((st = read_number(c, &v)) != APS_OK)
            return st;
        snprintf(got, sizeof got, "%.17g", v);
        return v == lit->f ? APS_OK : fail_literal(c, lit, got);
    }
    case APS_LIT_BOOL: {
        int b;
        if ((st = aps_cbor_read_bool(c->r, &b, c->err)) != APS_OK)
            return st;
        return (b != 0) == (lit->i != 0) ? APS_OK : fail_literal(c, lit, b ? "true" : "false");
    }
    case APS_LIT_NULL:
        return aps_cbor_read_null(c->r, c->err);
    case APS_LIT_UNDEFINED:
        return aps_cbor_read_undefined(c->r, c->err);
    case APS_LIT_BYTES: {
        aps_slice s;
        char want[96];
        if ((st = aps_cbor_read_bytes(c->r, &s, c->err)) != APS_OK)
            return st;
        if (s.len == lit->len && (s.len == 0 || memcmp(s.ptr, lit->text, s.len) == 0))
            return APS_OK;
        return aps_cbor_reader_fail(c->r, c->err, APS_E_UNKNOWN, "expected %s; got another byte string of %zu bytes",
                                    aps_schema_priv_literal(want, sizeof want, lit), s.len);
    }
    }
    return aps_cbor_reader_fail(c->r, c->err, APS_E_ARGUMENT, "malformed literal descriptor");
}

/* ---- arrays and maps ---------------------------------------------------------- */

static aps_status fail_count(cbor_dctx *c, size_t n, size_t min, size_t max, const char *what)
{
    if (n < min)
        return aps_cbor_reader_fail(c->r, c->err, APS_E_RANGE, "expected at least %zu %s%s; got %zu", min, what,
                                    min == 1 ? "" : "s", n);
    return aps_cbor_reader_fail(c->r, c->err, APS_E_RANGE, "expected at most %zu %s%s; got %zu", max, what,
                                max == 1 ? "" : "s", n);
}

static aps_status decode_array(cbor_dctx *c, const aps_type *t, aps_array *out)
{
    const aps_type *et = t->u.arr.elem;
    size_t es = et->size, n = 0, cap = 0;
    char *items = NULL;
    size_t start = aps_cbor_reader_offset(c->r);
    int more;
    aps_status st = aps_cbor_read_array(c->r, NULL, c->err);
    if (st != APS_OK)
        return st;
    while ((st = aps_cbor_next_element(c->r, &more, c->err)) == APS_OK && more) {
        if (n >= t->u.arr.max) { /* counted, not stored: the error names the array */
            if ((st = aps_cbor_skip(c->r, c->err)) != APS_OK)
                return st;
            n++;
            continue;
        }
        if (es != 0) {
            if (n == cap && (items = (char *)grow_items(c, items, &cap, es)) == NULL)
                return fail_nomem(c);
            memset(items + n * es, 0, es);
        }
        if ((st = decode_value(c, et, es != 0 ? items + n * es : NULL)) != APS_OK)
            return st;
        n++;
    }
    if (st != APS_OK)
        return st;
    if (n < t->u.arr.min || n > t->u.arr.max) {
        c->r->item_start = start;
        return fail_count(c, n, t->u.arr.min, t->u.arr.max, "element");
    }
    out->items = items;
    out->count = n;
    return APS_OK;
}

static aps_status fail_key(cbor_dctx *c)
{
    return aps_cbor_reader_fail(c->r, c->err, APS_E_TYPE, "expected a text string as the member name");
}

static aps_status decode_map(cbor_dctx *c, const aps_type *t, aps_array *out)
{
    size_t es = t->u.map.entry_size, n = 0, cap = 0;
    size_t start = aps_cbor_reader_offset(c->r);
    char *items = NULL;
    aps_cbor_raw key;
    aps_slice k;
    int more;
    aps_status st = aps_cbor_read_map(c->r, NULL, c->err);
    if (st != APS_OK)
        return st;
    while ((st = aps_cbor_next_entry(c->r, &key, &more, c->err)) == APS_OK && more) {
        if (!aps_cbor_raw_text(key, &k))
            return fail_key(c);
        if (n >= t->u.map.max) {
            if ((st = aps_cbor_skip(c->r, c->err)) != APS_OK)
                return st;
            n++;
            continue;
        }
        if (n == cap && (items = (char *)grow_items(c, items, &cap, es)) == NULL)
            return fail_nomem(c);
        memset(items + n * es, 0, es);
        *(aps_slice *)(void *)(items + n * es) = k;
        if ((st = decode_value(c, t->u.map.value, items + n * es + t->u.map.value_offset)) != APS_OK)
            return st;
        n++;
    }
    if (st != APS_OK)
        return st;
    if (n < t->u.map.min || n > t->u.map.max) {
        c->r->item_start = start;
        return fail_count(c, n, t->u.map.min, t->u.map.max, "member");
    }
    out->items = items;
    out->count = n;
    return APS_OK;
}

/* ---- structs ------------------------------------------------------------------- */

/* The field of f[0..n) named `k` in the key case; SIZE_MAX when none is. */
static size_t find_field(const aps_field *f, size_t n, aps_slice k, aps_key_case kc)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (f[i].cbor_key != NULL)
            continue; /* its key is no text: matched by its bytes (aps_schema_priv_find_keyed) */
        if (kc != APS_CASE_SNAKE && f[i].key_len == k.len && memcmp(f[i].key, k.ptr, k.len) == 0)
            return i;
        if (kc != APS_CASE_SCHEMA && f[i].snake != NULL && f[i].snake_len == k.len &&
            memcmp(f[i].snake, k.ptr, k.len) == 0)
            return i;
    }
    return SIZE_MAX;
}

/* Is `k` the JSON name (decimal text) of a member of f[0..n) keyed by an integer? */
static bool names_keyed(const aps_field *f, size_t n, aps_slice k)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (f[i].cbor_key != NULL && f[i].key_len == k.len && memcmp(f[i].key, k.ptr, k.len) == 0)
            return true;
    return false;
}

/* Is `k` the discriminant `u` chooses by, in the key case? */
static bool is_disc(const aps_type *u, aps_slice k, aps_key_case kc)
{
    const aps_type *a = u->u.un.nalts > 0 ? u->u.un.alts[0] : NULL;
    size_t i;
    if (a != NULL && a->kind == APS_K_STRUCT) {
        for (i = 0; i < a->u.st.nfields; i++) {
            const aps_field *f = &a->u.st.fields[i];
            if (strcmp(f->key, u->u.un.disc_key) == 0)
                return find_field(f, 1, k, kc) == 0;
        }
    }
    return strlen(u->u.un.disc_key) == k.len && memcmp(u->u.un.disc_key, k.ptr, k.len) == 0;
}

/*
 * Finds the alternative of discriminated union `u` for the map being read
 * (entered already), whose discriminant may come anywhere: reads ahead to
 * it and comes back. *kind: 1 + alternative, or 0 for an unknown value
 * (an error when strict).
 */
static aps_status pick_variant(cbor_dctx *c, const aps_type *u, int *kind)
{
    aps_cbor_pos pos;
    aps_cbor_raw key;
    aps_slice k, val;
    int more;
    size_t i;
    aps_status st;
    aps_cbor_reader_save(c->r, &pos);
    for (;;) {
        if ((st = aps_cbor_next_entry(c->r, &key, &more, c->err)) != APS_OK)
            return st;
        if (!more) {
            aps_cbor_reader_restore(c->r, &pos);
            return aps_cbor_reader_fail(c->r, c->err, APS_E_MISSING, "missing required member '%s'",
                                        u->u.un.disc_key);
        }
        if (aps_cbor_raw_text(key, &k) && is_disc(u, k, c->key_case))
            break;
        if ((st = aps_cbor_skip(c->r, c->err)) != APS_OK)
            return st;
    }
    if ((st = aps_cbor_read_text(c->r, &val, c->err)) != APS_OK)
        return st;
    *kind = 0;
    for (i = 0; i < u->u.un.nalts; i++) {
        if (aps_schema_priv_text_is(&u->u.un.disc[i], val.ptr, val.len)) {
            *kind = (int)(i + 1);
            break;
        }
    }
    if (*kind == 0 && c->strict)
        return fail_one_of(c, u->u.un.disc, u->u.un.nalts, NULL, val.ptr, val.len, true);
    aps_cbor_reader_restore(c->r, &pos);
    return APS_OK;
}

static aps_status decode_field(cbor_dctx *c, const aps_field *f, char *base)
{
    aps_status st;
    unsigned fl = f->flags;
    if ((fl & APS_F_NULLABLE) && aps_cbor_peek(c->r) == APS_CBOR_NULL) {
        if ((st = aps_cbor_read_null(c->r, c->err)) != APS_OK)
            return st;
        *APS_AT(base, f->null_offset, bool) = true;
    } else if (fl & APS_F_LITERAL) {
        if ((st = decode_literal(c, &f->type->u.lit)) != APS_OK)
            return st;
    } else if ((st = decode_value(c, f->type, base + f->offset)) != APS_OK) {
        return st;
    }
    if (fl & APS_F_OPTIONAL)
        *APS_AT(base, f->present_offset, bool) = true;
    return APS_OK;
}

/*
 * The JSON text of the item whose bytes are [from, to) of the input, or an
 * empty *raw when it has no JSON form (a byte string, a tag): an unknown
 * member keeps its CBOR bytes anyway, so only the JSON side lacks it.
 */
static aps_status json_if_any(cbor_dctx *c, size_t from, size_t to, aps_json_raw *raw)
{
    aps_cbor_reader sub;
    aps_cbor_reader *outer = c->r;
    aps_error *caller = c->err, none;
    aps_status st;
    aps_error_clear(&none);
    aps_cbor_reader_init(&sub, outer->begin + from, to - from, c->arena, NULL);
    c->r = &sub;
    c->err = &none;
    st = read_as_json(c, raw);
    c->r = outer;
    c->err = caller;
    if (st == APS_E_NOMEM)
        return fail_nomem(c);
    if (st != APS_OK) { /* the bytes were checked already (aps_cbor_read_raw): no JSON form */
        raw->ptr = NULL;
        raw->len = 0;
    }
    return APS_OK;
}

/*
 * Checks an unknown member's key, whose bytes are [from, to) of the input,
 * against the type of the tail's keys (`* label => values`): decoded as it
 * into scratch space given back after; a failure is located at the key.
 */
static aps_status check_extra_key(cbor_dctx *c, const aps_type *kt, size_t from, size_t to)
{
    aps_cbor_reader sub, *outer = c->r;
    aps_cbor_pos pos;
    aps_error inner, *caller = c->err;
    aps_status st;
    void *scratch = NULL;
    aps_cbor_reader_save(outer, &pos); /* for its arena mark: the scratch is dropped after */
    if (kt->size != 0 && (scratch = aps_arena_alloc(c->arena, kt->size)) == NULL)
        return fail_nomem(c);
    if (scratch != NULL)
        memset(scratch, 0, kt->size);
    aps_cbor_reader_init(&sub, outer->begin + from, to - from, c->arena, NULL);
    aps_error_clear(&inner);
    c->r = &sub;
    c->err = &inner;
    st = decode_value(c, kt, scratch);
    c->r = outer;
    c->err = caller;
    aps_cbor_reader_restore(outer, &pos);
    if (st == APS_OK)
        return APS_OK;
    c->r->item_start = from;
    return aps_cbor_reader_fail(c->r, c->err, st == APS_E_NOMEM ? st : APS_E_TYPE, "the key is no %s: %s",
                                kt->name != NULL ? kt->name : "key of this map", inner.message);
}

/* The decimal text of a CBOR integer key (its canonical bytes), in the arena; an empty slice when it is none. */
static aps_status integer_key_name(cbor_dctx *c, aps_cbor_raw k, aps_slice *out)
{
    aps_cbor_reader sub;
    char num[24], *copy;
    size_t n;
    int neg;
    uint64_t v;
    out->ptr = NULL;
    out->len = 0;
    if (aps_cbor_raw_type(k) != APS_CBOR_UINT && aps_cbor_raw_type(k) != APS_CBOR_NEGINT)
        return APS_OK;
    aps_cbor_reader_init(&sub, k.ptr, k.len, c->arena, NULL);
    if (aps_cbor_read_integer(&sub, &neg, &v, NULL) != APS_OK)
        return APS_OK; /* canonical keys are well-formed: not reached */
    n = integer_text(num, sizeof num, neg, v);
    if ((copy = (char *)aps_arena_alloc_aligned(c->arena, n, 1)) == NULL)
        return fail_nomem(c);
    memcpy(copy, num, n);
    out->ptr = copy;
    out->len = n;
    return APS_OK;
}

/*
 * Keeps an unknown member: its value as JSON text when it has a JSON form,
 * and its CBOR bytes as written, so that it goes out again byte for byte;
 * a key that is no text (whose bytes are [kfrom, kto) of the input) too,
 * with `key` its decimal text when it is an integer, else empty. With a
 * typed tail (`* text => T`) the value must also decode as T, into scratch
 * space given back after; with a type of keys (`* label => T`), the key as
 * that type.
 */
static aps_status keep_extra(cbor_dctx *c, const aps_type *t, aps_json_members *x, size_t *cap, aps_slice key,
                             size_t kfrom, size_t kto, bool text)
{
    aps_json_member m;
    aps_status st;
    size_t from;
    memset(&m, 0, sizeof m);
    if (t->u.st.extras_key != NULL && (st = check_extra_key(c, t->u.st.extras_key, kfrom, kto)) != APS_OK)
        return st;
    if (text) {
        m.key = key;
    } else {
        m.cbor_key.ptr = c->r->begin + kfrom;
        m.cbor_key.len = kto - kfrom;
        m.key = key; /* its decimal text when an integer, else empty */
    }
    c->r->item_start = aps_cbor_reader_offset(c->r);
    if (t->u.st.extras_type != NULL) {
        const aps_type *xt = t->u.st.extras_type;
        aps_cbor_pos pos;
        void *scratch;
        aps_cbor_reader_save(c->r, &pos);
        if ((scratch = aps_arena_alloc(c->arena, xt->size)) == NULL)
            return fail_nomem(c);
        memset(scratch, 0, xt->size);
        if ((st = decode_value(c, xt, scratch)) != APS_OK)
            return st;
        aps_cbor_reader_restore(c->r, &pos);
    }
    from = aps_cbor_reader_offset(c->r);
    if ((st = aps_cbor_read_raw(c->r, &m.cbor_value, c->err)) != APS_OK ||
        (st = json_if_any(c, from, aps_cbor_reader_offset(c->r), &m.value)) != APS_OK)
        return st;
    if (x->count == *cap) {
        aps_json_member *items = (aps_json_member *)grow_items(c, x->items, cap, sizeof *items);
        if (items == NULL)
            return fail_nomem(c);
        x->items = items;
    }
    x->items[x->count++] = m;
    return APS_OK;
}

/* Is `k` an integer's decimal text as integer_text writes it (no '+', no leading zero)? */
static bool is_decimal(aps_slice k)
{
    size_t i = k.len > 0 && k.ptr[0] == '-' ? 1 : 0;
    if (i >= k.len || (k.ptr[i] == '0' && k.len > i + 1) || (k.ptr[i] == '0' && i == 1))
        return false;
    for (; i < k.len; i++)
        if (k.ptr[i] < '0' || k.ptr[i] > '9')
            return false;
    return true;
}

static int cmp_names(const void *a, const void *b)
{
    const aps_slice *x = *(const aps_slice *const *)a, *y = *(const aps_slice *const *)b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return memcmp(x->ptr, y->ptr, x->len);
}

/*
 * Refuses an unknown integer key beside an unknown text key of its decimal
 * text (`-1` and `"-1"`): one C value must write to JSON too, where both
 * would be the name "-1". The reader refused equal keys of one kind, so
 * only such a pair can share a name: sorted, found next to each other, in
 * n log n for a map of any width. Run once the map is read (at its head).
 */
static aps_status check_extra_names(cbor_dctx *c, const aps_json_members *x)
{
    const aps_slice **names;
    size_t i, n = 0, ints = 0;
    char q[96];
    for (i = 0; i < x->count; i++)
        ints += x->items[i].cbor_key.ptr != NULL && x->items[i].key.len != 0;
    if (ints == 0 || ints == x->count)
        return APS_OK;
    if ((names = (const aps_slice **)aps_arena_alloc(c->arena, x->count * sizeof *names)) == NULL)
        return fail_nomem(c);
    for (i = 0; i < x->count; i++)
        if (x->items[i].key.len != 0 && (x->items[i].cbor_key.ptr != NULL || is_decimal(x->items[i].key)))
            names[n++] = &x->items[i].key;
    qsort(names, n, sizeof *names, cmp_names);
    for (i = 1; i < n; i++)
        if (cmp_names(&names[i - 1], &names[i]) == 0)
            return aps_cbor_reader_fail(c->r, c->err, APS_E_DUPLICATE, "an integer key and a text key of one JSON name: %s",
                                        aps_schema_priv_quote(q, sizeof q, names[i]->ptr, names[i]->len, '\''));
    return APS_OK;
}

static aps_status fail_member(cbor_dctx *c, aps_status code, const char *what, aps_slice key)
{
    char q[96];
    return aps_cbor_reader_fail(c->r, c->err, code, "%s %s", what,
                                aps_schema_priv_quote(q, sizeof q, key.ptr, key.len, '\''));
}

static aps_status check_required(cbor_dctx *c, const aps_field *f, size_t n, size_t first, const aps_seen_set *s)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (!(f[i].flags & APS_F_OPTIONAL) && !aps_seen_has(s, first + i))
            return aps_cbor_reader_fail(c->r, c->err, APS_E_MISSING, "missing required member '%s'",
                                        aps_schema_priv_key(&f[i], c->key_case));
    }
    return APS_OK;
}

/*
 * The JSON text of the item whose bytes are [from, to) of the input (an
 * unknown variant's whole map), through a reader of its own: what was
 * decoded from it meanwhile stays in the arena.
 */
static aps_status json_of_range(cbor_dctx *c, size_t from, size_t to, aps_json_raw *raw)
{
    aps_cbor_reader sub;
    aps_cbor_reader *outer = c->r;
    aps_status st;
    aps_cbor_reader_init(&sub, outer->begin + from, to - from, c->arena, NULL);
    c->r = &sub;
    st = read_as_json(c, raw);
    c->r = outer;
    return st;
}

/*
 * Decodes the members of a map already entered (its head at `start`) into
 * the struct at base, with the members of its variant union inlined.
 */
static aps_status struct_body(cbor_dctx *c, const aps_type *t, char *base, size_t start)
{
    const aps_type *vt = t->u.st.variants, *alt = NULL;
    const aps_field *pf = t->u.st.fields, *af = NULL;
    size_t np = t->u.st.nfields, na = 0, xcap = 0, i, total = np;
    char *abase = NULL;
    aps_seen_set s;
    aps_json_members *extras = t->u.st.open ? APS_AT(base, t->u.st.extras_offset, aps_json_members) : NULL;
    int kind = 0, more;
    aps_cbor_raw rkey;
    aps_slice key;
    aps_status st;
    s.small = 0;
    s.big = NULL;
    if (vt != NULL) {
        for (i = 0; i < vt->u.un.nalts; i++)
            if (np + vt->u.un.alts[i]->u.st.nfields > total)
                total = np + vt->u.un.alts[i]->u.st.nfields;
    }
    if (total > 64) {
        size_t words = (total + 63) / 64;
        if ((s.big = (uint64_t *)aps_arena_alloc(c->arena, words * sizeof *s.big)) == NULL)
            return fail_nomem(c);
        memset(s.big, 0, words * sizeof *s.big);
    }
    if (vt != NULL) {
        if ((st = pick_variant(c, vt, &kind)) != APS_OK)
            return st;
        *APS_AT(base, t->u.st.variants_offset + vt->u.un.kind_offset, int) = kind;
        if (kind > 0) {
            alt = vt->u.un.alts[kind - 1];
            af = alt->u.st.fields;
            na = alt->u.st.nfields;
            abase = base + t->u.st.variants_offset + vt->u.un.payload_offset;
        }
    }
    for (;;) {
        const aps_field *f;
        char *fbase = base;
        size_t kfrom = aps_cbor_reader_offset(c->r); /* the key's bytes as written: kept if unknown */
        if ((st = aps_cbor_next_entry(c->r, &rkey, &more, c->err)) != APS_OK || !more)
            break;
        if (!aps_cbor_raw_text(rkey, &key)) {
            if ((i = aps_schema_priv_find_keyed(pf, np, rkey)) != SIZE_MAX) {
                f = &pf[i];
            } else if (na != 0 && (i = aps_schema_priv_find_keyed(af, na, rkey)) != SIZE_MAX) {
                f = &af[i];
                fbase = abase;
                i += np;
            } else if (vt != NULL && kind == 0 && extras == NULL) {
                if ((st = aps_cbor_skip(c->r, c->err)) != APS_OK)
                    return st;
                continue;
            } else if (extras != NULL && t->u.st.extras_key != NULL) { /* a tail whose keys may be no text */
                /* integer 4 beside a member named "4": in JSON both would be "4" */
                if ((st = integer_key_name(c, rkey, &key)) != APS_OK)
                    return st;
                if (key.len != 0 && (find_field(pf, np, key, c->key_case) != SIZE_MAX ||
                                     (na != 0 && find_field(af, na, key, c->key_case) != SIZE_MAX)))
                    return fail_member(c, APS_E_DUPLICATE, "an integer key that is the JSON name of a named member:", key);
                if ((st = keep_extra(c, t, extras, &xcap, key, kfrom, aps_cbor_reader_offset(c->r), false)) != APS_OK)
                    return st;
                continue;
            } else {
                return fail_key(c); /* the schema's unknown members are named by text only */
            }
            if (aps_seen_mark(&s, i))
                return aps_cbor_reader_fail(c->r, c->err, APS_E_DUPLICATE, "duplicate member '%s'", f->key);
            if ((st = decode_field(c, f, fbase)) != APS_OK)
                return st;
            continue;
        }
        if ((i = find_field(pf, np, key, c->key_case)) != SIZE_MAX) {
            f = &pf[i];
        } else if (na != 0 && (i = find_field(af, na, key, c->key_case)) != SIZE_MAX) {
            f = &af[i];
            fbase = abase;
            i += np;
        } else if (extras != NULL) {
            /* text "4" beside integer key 4: one C value could not be written to JSON, where both are "4" */
            if (names_keyed(pf, np, key) || names_keyed(af, na, key))
                return fail_member(c, APS_E_DUPLICATE, "a text key that is the JSON name of an integer key:", key);
            if ((st = keep_extra(c, t, extras, &xcap, key, kfrom, aps_cbor_reader_offset(c->r), true)) != APS_OK)
                return st;
            continue;
        } else if (vt != NULL && kind == 0) {
            if ((st = aps_cbor_skip(c->r, c->err)) != APS_OK)
                return st;
            continue;
        } else {
            return fail_member(c, APS_E_UNKNOWN, "unknown member", key);
        }
        if (aps_seen_mark(&s, i))
            return fail_member(c, APS_E_DUPLICATE, "duplicate member (given in both spellings)", key);
        if ((st = decode_field(c, f, fbase)) != APS_OK)
            return st;
    }
    if (st != APS_OK)
        return st;
    c->r->item_start = start;
    if ((st = check_required(c, pf, np, 0, &s)) != APS_OK || (st = check_required(c, af, na, np, &s)) != APS_OK)
        return st;
    if (extras != NULL &&
        (extras->count < t->u.st.extras_min || (t->u.st.extras_max != 0 && extras->count > t->u.st.extras_max)))
        return fail_count(c, extras->count, t->u.st.extras_min, t->u.st.extras_max, "extra member");
    if (extras != NULL && t->u.st.extras_key != NULL && (st = check_extra_names(c, extras)) != APS_OK)
        return st;
    /* an unknown variant goes out again as it came in: its whole map, envelope included, as JSON */
    if (vt != NULL && kind == 0)
        return json_of_range(c, start, aps_cbor_reader_offset(c->r),
                             APS_AT(base, t->u.st.variants_offset + vt->u.un.raw_offset, aps_json_raw));
    return APS_OK;
}

static aps_status decode_struct(cbor_dctx *c, const aps_type *t, char *out)
{
    size_t start = aps_cbor_reader_offset(c->r);
    aps_status st = aps_cbor_read_map(c->r, NULL, c->err);
    return st != APS_OK ? st : struct_body(c, t, out, start);
}

/* ---- unions ---------------------------------------------------------------------- */

static void set_kind(const aps_type *t, char *out, int kind)
{
    aps_json_raw *raw = APS_AT(out, t->u.un.raw_offset, aps_json_raw);
    *APS_AT(out, t->u.un.kind_offset, int) = kind;
    raw->ptr = NULL;
    raw->len = 0;
}

static aps_status decode_discriminated(cbor_dctx *c, const aps_type *t, char *out)
{
    size_t start = aps_cbor_reader_offset(c->r);
    int kind = 0;
    aps_status st;
    if ((st = aps_cbor_read_map(c->r, NULL, c->err)) != APS_OK || (st = pick_variant(c, t, &kind)) != APS_OK)
        return st;
    if (kind == 0) { /* kept as JSON, the whole map */
        int more;
        aps_cbor_raw key;
        while ((st = aps_cbor_next_entry(c->r, &key, &more, c->err)) == APS_OK && more)
            if ((st = aps_cbor_skip(c->r, c->err)) != APS_OK)
                return st;
        if (st != APS_OK)
            return st;
        set_kind(t, out, 0);
        return json_of_range(c, start, aps_cbor_reader_offset(c->r), APS_AT(out, t->u.un.raw_offset, aps_json_raw));
    }
    if (t->u.un.alts[kind - 1]->kind != APS_K_STRUCT)
        return aps_cbor_reader_fail(c->r, c->err, APS_E_ARGUMENT,
                                    "schema error: alternative %d of a discriminated union is no struct", kind);
    if ((st = struct_body(c, t->u.un.alts[kind - 1], out + t->u.un.payload_offset, start)) != APS_OK)
        return st;
    set_kind(t, out, kind);
    return APS_OK;
}

static aps_status decode_untagged(cbor_dctx *c, const aps_type *t, char *out)
{
    aps_error *caller = c->err, best, cur;
    aps_cbor_pos pos;
    size_t i;
    aps_status st, best_st = APS_E_TYPE;
    bool have = false;
    aps_cbor_reader_save(c->r, &pos);
    for (i = 0; i < t->u.un.nalts; i++) {
        const aps_type *alt = t->u.un.alts[i];
        memset(out + t->u.un.payload_offset, 0, alt->size);
        aps_error_clear(&cur);
        c->err = &cur;
        st = decode_value(c, alt, out + t->u.un.payload_offset);
        c->err = caller;
        if (st == APS_OK) {
            set_kind(t, out, (int)(i + 1));
            return APS_OK;
        }
        if (st == APS_E_NOMEM || st == APS_E_LIMIT || st == APS_E_DEPTH || st == APS_E_SYNTAX || st == APS_E_UTF8 ||
            st == APS_E_ARGUMENT) { /* the bytes themselves, or the machine: no alternative can do better */
            if (caller != NULL && caller->code == APS_OK)
                *caller = cur;
            return st;
        }
        if (!have || cur.offset > best.offset) {
            best = cur;
            best_st = st;
            have = true;
        }
        aps_cbor_reader_restore(c->r, &pos);
    }
    if (!have)
        return aps_cbor_reader_fail(c->r, caller, APS_E_TYPE, "%s has no alternatives",
                                    t->name != NULL ? t->name : "the choice");
    if (caller != NULL && caller->code == APS_OK) {
        aps_error_set(caller, best_st, best.offset, "no alternative of %s matches: %s",
                      t->name != NULL ? t->name : "the choice", best.message);
        aps_error_set_pointer(caller, best.pointer);
    }
    return best_st;
}

/* The JSON kind a CBOR item would have as JSON, and whether it is an integer. */
static aps_json_kind json_kind(const aps_cbor_reader *r, bool *is_int)
{
    *is_int = false;
    switch (aps_cbor_peek(r)) {
    case APS_CBOR_UINT:
    case APS_CBOR_NEGINT: *is_int = true; return APS_JSON_NUMBER;
    case APS_CBOR_FLOAT: return APS_JSON_NUMBER;
    case APS_CBOR_TEXT: return APS_JSON_STRING;
    case APS_CBOR_ARRAY: return APS_JSON_ARRAY;
    case APS_CBOR_MAP: return APS_JSON_OBJECT;
    case APS_CBOR_BOOL: return APS_JSON_BOOL;
    case APS_CBOR_NULL: return APS_JSON_NULL;
    default: return APS_JSON_INVALID;
    }
}

static aps_status decode_by_kind(cbor_dctx *c, const aps_type *t, char *out)
{
    bool is_int;
    aps_json_kind jk = json_kind(c->r, &is_int);
    size_t i, j;
    aps_status st;
    for (i = 0; i < t->u.un.nalts; i++) {
        const aps_type *alt = t->u.un.alts[i];
        if (!aps_schema_priv_kind_fits(alt, jk, is_int, 0))
            continue;
        if (alt->kind == APS_K_LITERAL) {
            /* a literal that does not hold leaves the value to a later alternative of its kind */
            for (j = i + 1; j < t->u.un.nalts && !aps_schema_priv_kind_fits(t->u.un.alts[j], jk, is_int, 0); j++)
                ;
            if (j < t->u.un.nalts) {
                aps_cbor_pos pos;
                aps_error cur;
                aps_error_clear(&cur);
                aps_cbor_reader_save(c->r, &pos);
                st = decode_literal(c, &alt->u.lit);
                /* the error's text is the caller's only if it is not "another literal" */
                if (st == APS_E_UNKNOWN) {
                    aps_error_clear(c->err);
                    aps_cbor_reader_restore(c->r, &pos);
                    continue;
                }
                if (st != APS_OK)
                    return st;
                set_kind(t, out, (int)(i + 1));
                return APS_OK;
            }
        }
        if ((st = decode_value(c, alt, out + t->u.un.payload_offset)) != APS_OK)
            return st;
        set_kind(t, out, (int)(i + 1));
        return APS_OK;
    }
    if (jk == APS_JSON_INVALID) {
        /* malformed bytes are a syntax error; an item JSON lacks, a wrong kind */
        if ((st = aps_cbor_skip(c->r, c->err)) != APS_OK)
            return st;
    }
    return aps_cbor_reader_fail(c->r, c->err, APS_E_TYPE, "no alternative of %s takes this kind of item",
                                t->name != NULL ? t->name : "the choice");
}

/* ---- positional arrays -------------------------------------------------------------- */

/*
 * A positional array's entries match its elements in order, with the
 * backtracking RFC 8610 matching implies: an optional entry is tried
 * present and then absent, a repeated entry takes as many elements as it
 * can and gives them back one at a time, a choice of groups tries its
 * alternatives in order, each time until the rest of the array matches
 * too (COSE's Sig_structure has an optional bstr before a bstr). Each
 * trial that fails rewinds the reader to where it began. Every element read
 * counts against a budget proportional to the input, so entries that
 * overlap cannot make hostile input cost exponential time.
 */

/* What is left to match after an entry: the entries from `i` of tuple or group `t` (stored at
 * `base`), then `up`'s. t NULL: the end of one element of a repeated entry. */
typedef struct rest {
    const aps_type *t;
    size_t i;
    char *base;
    const struct rest *up;
} rest;

/* The state of one positional array's match. */
typedef struct matcher {
    int more;          /* the reader stands at an element */
    aps_error far;     /* the failure furthest into the input: what is reported when nothing matches */
    aps_status far_st;
} matcher;

static const rest END_OF_ELEMENT = { NULL, 0, NULL, NULL };

static aps_status match_rest(cbor_dctx *c, const rest *k, matcher *m);
static aps_status match_then(cbor_dctx *c, const aps_type *t, char *out, const rest *k, matcher *m);

/* The bytes or the machine failed: no other reading of the elements can do better. */
static bool hard(aps_status st)
{
    return st == APS_E_NOMEM || st == APS_E_LIMIT || st == APS_E_DEPTH || st == APS_E_SYNTAX || st == APS_E_UTF8 ||
           st == APS_E_ARGUMENT || st == APS_E_STATE;
}

/*
 * Tries `t` at `out` and then the rest `k` (t NULL: the rest alone). *ok
 * says whether it matched; when not, the reader, the element state and
 * the arena are as before and `out` is zeroed, and the failure is kept in
 * m->far if it went further than those before. Only a hard failure is
 * returned.
 */
static aps_status attempt(cbor_dctx *c, const aps_type *t, char *out, const rest *k, matcher *m, bool *ok)
{
    aps_error *caller = c->err, cur;
    aps_cbor_pos pos;
    int more = m->more;
    aps_status st;
    aps_cbor_reader_save(c->r, &pos);
    aps_error_clear(&cur);
    c->err = &cur;
    st = t != NULL ? match_then(c, t, out, k, m) : match_rest(c, k, m);
    c->err = caller;
    *ok = st == APS_OK;
    if (st == APS_OK)
        return APS_OK;
    if (hard(st)) {
        if (caller != NULL && caller->code == APS_OK)
            *caller = cur;
        return st;
    }
    if (cur.code != APS_OK && (m->far_st == APS_OK || cur.offset > m->far.offset)) {
        m->far = cur;
        m->far_st = st;
    }
    aps_cbor_reader_restore(c->r, &pos);
    m->more = more;
    if (out != NULL && t->size != 0)
        memset(out, 0, t->size);
    return APS_OK;
}

static aps_status no_match(cbor_dctx *c, const matcher *m)
{
    if (m->far_st == APS_OK)
        return aps_cbor_reader_fail(c->r, c->err, APS_E_RANGE, "the array's elements match none of its readings");
    if (c->err != NULL && c->err->code == APS_OK)
        *c->err = m->far;
    return m->far_st;
}

/* Is nothing left but the end (of the array or of an element)? Then giving elements back helps nothing. */
static bool rest_is_empty(const rest *k)
{
    for (; k != NULL && k->t != NULL; k = k->up)
        if (k->i < k->t->u.st.nfields)
            return false;
    return true;
}

static aps_status match_rest(cbor_dctx *c, const rest *k, matcher *m)
{
    const aps_field *f;
    rest next;
    char *slot;
    while (k != NULL && k->t != NULL && k->i == k->t->u.st.nfields)
        k = k->up;
    if (k == NULL) { /* the array's end */
        if (!m->more)
            return APS_OK;
        c->r->item_start = aps_cbor_reader_offset(c->r);
        return aps_cbor_reader_fail(c->r, c->err, APS_E_RANGE, "more elements than the array has entries");
    }
    if (k->t == NULL)
        return APS_OK; /* one element of a repeated entry: whatever follows is the next one's */
    f = &k->t->u.st.fields[k->i];
    next.t = k->t;
    next.i = k->i + 1;
    next.base = k->base;
    next.up = k->up;
    slot = k->base + f->offset;
    if (f->flags & APS_F_OPTIONAL) {
        bool ok = false;
        aps_status st;
        if (m->more && (st = attempt(c, f->type, slot, &next, m, &ok)) != APS_OK)
            return st;
        *APS_AT(k->base, f->present_offset, bool) = ok;
        return ok ? APS_OK : match_rest(c, &next, m);
    }
    return match_then(c, f->type, (f->flags & APS_F_LITERAL) ? NULL : slot, &next, m);
}

/* A choice of groups: the first alternative with which the rest matches too. */
static aps_status match_choice(cbor_dctx *c, const aps_type *t, char *out, const rest *k, matcher *m)
{
    size_t i, here = aps_cbor_reader_offset(c->r);
    aps_status st;
    for (i = 0; i < t->u.un.nalts; i++) {
        bool ok;
        if ((st = attempt(c, t->u.un.alts[i], out + t->u.un.payload_offset, k, m, &ok)) != APS_OK)
            return st;
        if (ok) {
            set_kind(t, out, (int)(i + 1));
            return APS_OK;
        }
    }
    if (m->far_st != APS_OK && m->far.offset <= here) { /* none got past this element: say it of the choice */
        char msg[APS_ERROR_MESSAGE_MAX];
        int n = snprintf(msg, sizeof msg, "no alternative of %s matches: ", t->name != NULL ? t->name : "the choice");
        size_t used = n < 0 ? 0 : (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1;
        size_t left = sizeof msg - 1 - used, len = strlen(m->far.message);
        memcpy(msg + used, m->far.message, len < left ? len : left);
        msg[used + (len < left ? len : left)] = '\0';
        memcpy(m->far.message, msg, sizeof msg);
    }
    return no_match(c, m);
}

/* A saved place between two elements of a repeated entry. */
typedef struct place {
    aps_cbor_pos pos;
    int more;
} place;

/*
 * A repeated entry: as many elements as match, each alone; then the rest
 * after them, or after one fewer, down to the entry's minimum. The places
 * between elements are kept only when something follows to give them
 * back to. Rewinding to one keeps the arena as it is (the elements'
 * storage grew after it).
 */
static aps_status match_repeated(cbor_dctx *c, const aps_type *t, aps_array *out, const rest *k, matcher *m)
{
    const aps_type *et = t->u.arr.elem;
    size_t es = et->size, n = 0, cap = 0, pcap = 0;
    char *items = NULL;
    place *places = NULL;
    bool keep = !rest_is_empty(k), ok;
    aps_status st;
    for (;;) {
        if (keep) {
            if (n == pcap && (places = (place *)grow_items(c, places, &pcap, sizeof *places)) == NULL)
                return fail_nomem(c);
            aps_cbor_reader_save(c->r, &places[n].pos);
            places[n].more = m->more;
        }
        if (n >= t->u.arr.max || !m->more)
            break;
        if (es != 0) {
            if (n == cap && (items = (char *)grow_items(c, items, &cap, es)) == NULL)
                return fail_nomem(c);
            memset(items + n * es, 0, es);
        }
        {
            size_t at = aps_cbor_reader_offset(c->r);
            if ((st = attempt(c, et, es != 0 ? items + n * es : NULL, &END_OF_ELEMENT, m, &ok)) != APS_OK)
                return st;
            if (!ok)
                break;
            n++;
            if (aps_cbor_reader_offset(c->r) == at)
                break; /* a group of optional entries that took nothing: it would take nothing again */
        }
    }
    for (;;) {
        if (n >= t->u.arr.min) {
            out->items = n != 0 ? items : NULL;
            out->count = n;
            if (!keep)
                return match_rest(c, k, m);
            if ((st = attempt(c, NULL, NULL, k, m, &ok)) != APS_OK)
                return st;
            if (ok)
                return APS_OK;
        }
        if (!keep || n == 0 || n <= t->u.arr.min)
            break;
        n--;
        places[n].pos.mark = aps_arena_mark(c->arena);
        aps_cbor_reader_restore(c->r, &places[n].pos);
        m->more = places[n].more;
    }
    out->items = NULL;
    out->count = 0;
    if (n < t->u.arr.min && m->far_st == APS_OK)
        return fail_count(c, n, t->u.arr.min, t->u.arr.max, "element");
    return no_match(c, m);
}

static aps_status match_then(cbor_dctx *c, const aps_type *t, char *out, const rest *k, matcher *m)
{
    aps_status st;
    if (aps_schema_priv_in_place(t)) {
        if (++c->depth > APS_SCHEMA_MAX_DEPTH)
            return aps_cbor_reader_fail(c->r, c->err, APS_E_DEPTH, "typed values nested deeper than %d levels",
                                        APS_SCHEMA_MAX_DEPTH);
        if (t->kind == APS_K_TUPLE) {
            rest inner;
            inner.t = t;
            inner.i = 0;
            inner.base = out;
            inner.up = k;
            st = match_rest(c, &inner, m);
        } else if (t->kind == APS_K_ARRAY) {
            st = match_repeated(c, t, (aps_array *)(void *)out, k, m);
        } else {
            st = match_choice(c, t, out, k, m);
        }
        c->depth--;
        return st;
    }
    if (!m->more) {
        if (t->name != NULL)
            return aps_cbor_reader_fail(c->r, c->err, APS_E_RANGE, "the array ends where %s is expected", t->name);
        return aps_cbor_reader_fail(c->r, c->err, APS_E_RANGE, "the array ends before all its entries");
    }
    if (++c->steps > c->budget)
        return aps_cbor_reader_fail(c->r, c->err, APS_E_LIMIT,
                                    "positional arrays took more than %zu element reads to match (entries that "
                                    "overlap, on input made to try them all)", c->budget);
    if ((st = decode_value(c, t, out)) != APS_OK)
        return st;
    if ((st = aps_cbor_next_element(c->r, &m->more, c->err)) != APS_OK)
        return st;
    return match_rest(c, k, m);
}

static aps_status decode_tuple(cbor_dctx *c, const aps_type *t, char *out)
{
    matcher m;
    rest top;
    bool ok;
    aps_status st = aps_cbor_read_array(c->r, NULL, c->err);
    if (st != APS_OK)
        return st;
    m.far_st = APS_OK;
    aps_error_clear(&m.far);
    if ((st = aps_cbor_next_element(c->r, &m.more, c->err)) != APS_OK)
        return st;
    top.t = t;
    top.i = 0;
    top.base = out;
    top.up = NULL;
    if ((st = attempt(c, NULL, NULL, &top, &m, &ok)) != APS_OK)
        return st;
    return ok ? APS_OK : no_match(c, &m);
}

/* ---- dispatch --------------------------------------------------------------------- */

static aps_status decode_nested(cbor_dctx *c, const aps_type *t, char *out)
{
    aps_status st;
    if (++c->depth > APS_SCHEMA_MAX_DEPTH)
        return aps_cbor_reader_fail(c->r, c->err, APS_E_DEPTH, "typed values nested deeper than %d levels",
                                    APS_SCHEMA_MAX_DEPTH);
    switch (t->kind) {
    case APS_K_STRUCT: st = decode_struct(c, t, out); break;
    case APS_K_ARRAY: st = decode_array(c, t, (aps_array *)(void *)out); break;
    case APS_K_MAP: st = decode_map(c, t, (aps_array *)(void *)out); break;
    case APS_K_TAG: st = decode_tag(c, t, out); break;
    case APS_K_TUPLE: st = decode_tuple(c, t, out); break;
    default:
        switch (t->u.un.cls) {
        case APS_U_DISCRIMINATED: st = decode_discriminated(c, t, out); break;
        case APS_U_KIND: st = decode_by_kind(c, t, out); break;
        default: st = decode_untagged(c, t, out); break;
        }
    }
    c->depth--;
    return st;
}

static aps_status decode_value(cbor_dctx *c, const aps_type *t, void *out)
{
    aps_status st;
    c->r->item_start = aps_cbor_reader_offset(c->r);
    switch (t->kind) {
    case APS_K_ANY:
        return read_as_json(c, (aps_json_raw *)out);
    case APS_K_BOOL: {
        int b;
        if ((st = aps_cbor_read_bool(c->r, &b, c->err)) == APS_OK)
            *(bool *)out = b != 0;
        return st;
    }
    case APS_K_INT: return decode_int(c, t, (int64_t *)out);
    case APS_K_UINT: return decode_uint(c, t, (uint64_t *)out);
    case APS_K_FLOAT: return decode_float(c, t, (double *)out);
    case APS_K_TEXT: return decode_text(c, t, (aps_slice *)out);
    case APS_K_LITERAL: return decode_literal(c, &t->u.lit);
    case APS_K_ENUM: return decode_enum(c, t, out);
    case APS_K_STRUCT:
    case APS_K_ARRAY:
    case APS_K_MAP:
    case APS_K_UNION:
    case APS_K_TAG:
    case APS_K_TUPLE:
        return decode_nested(c, t, (char *)out);
    case APS_K_BYTES: return decode_bytes(c, t, (aps_slice *)out);
    }
    return aps_cbor_reader_fail(c->r, c->err, APS_E_ARGUMENT, "malformed type descriptor");
}

/* ---- entry point ------------------------------------------------------------------ */

aps_status aps_schema_decode_cbor(const aps_type *type, const void *cbor, size_t len, aps_arena *arena,
                                  void *out, const aps_decode_options *options, aps_error *err)
{
    cbor_dctx c;
    aps_cbor_reader r;
    aps_cbor_reader_options ro;
    aps_status st;
    aps_error_clear(err);
    if (type == NULL || arena == NULL || (out == NULL && type->size != 0) || (cbor == NULL && len != 0))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no type, arena, input or output");
    if (options != NULL && options->copy_strings && len > 0) {
        void *copy = aps_arena_alloc_aligned(arena, len, 16);
        if (copy == NULL)
            return aps_error_set(err, APS_E_NOMEM, SIZE_MAX, "out of memory copying the input");
        memcpy(copy, cbor, len);
        cbor = copy;
    }
    if (type->size != 0)
        memset(out, 0, type->size);
    memset(&ro, 0, sizeof ro);
    ro.max_depth = options != NULL ? options->max_depth : 0;
    aps_cbor_reader_init(&r, cbor, len, arena, &ro);
    c.r = &r;
    c.arena = arena;
    c.err = err;
    c.key_case = options != NULL ? options->key_case : APS_CASE_EITHER;
    c.strict = options != NULL && options->strict;
    c.depth = 0;
    c.steps = 0;
    c.budget = len < (SIZE_MAX - 4096) / 16 ? 16 * len + 4096 : SIZE_MAX;
    aps_json_writer_init(&c.json, NULL);
    st = decode_value(&c, type, out);
    if (st == APS_OK)
        st = aps_cbor_reader_finish(&r, err);
    aps_json_writer_deinit(&c.json);
    return st;
}
