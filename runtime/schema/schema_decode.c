/*
 * schema_decode.c - decodes JSON into C values described by aps_type
 * descriptors (see aps/schema.h), checking every constraint on the way.
 *
 * The engine drives the pull reader of aps/json.h. It is part of the runtime
 * and reads three reader fields directly (cur, begin, value_start, all in
 * the public struct) where the reader API has no call for them: the raw
 * text of a union value and the JSON kind of a number need the position of
 * the next byte, and located errors need value_start to name that value.
 */
#include "aps/cbor.h"
#include "aps/fast.h"
#include "aps/json_impl.h"
#include "schema_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct dctx {
    aps_json_reader *r;
    aps_arena *arena;
    aps_error *err;
    aps_key_case key_case;
    bool strict;
    size_t depth; /* typed containers open: bounds the recursion */
    /* aps_schema_check_all: every error, not only the first (NULL: stop at the first) */
    aps_error_fn on_error;
    void *error_user;
    aps_status first;  /* the first collected error's status */
} dctx;

static aps_status decode_value(dctx *c, const aps_type *t, void *out);

/* ---- small helpers --------------------------------------------------------- */

/* Position of the next value (whitespace skipped), recorded as the value errors name. */
static inline const char *value_here(aps_json_reader *r)
{
    (void)aps_json_peek(r);
    r->value_start = (size_t)(r->cur - r->begin);
    return r->cur;
}

static aps_status decode_fail_nomem(dctx *c)
{
    aps_status code = aps_arena_failure(c->arena);
    if (code == APS_OK)
        code = APS_E_NOMEM;
    return aps_json_reader_fail(c->r, c->err, code, "arena allocation failed (%s)",
                                aps_status_str(code));
}

/* Statuses after which no other alternative can succeed: the text itself is bad. */
static bool fatal(aps_status st)
{
    return st == APS_E_NOMEM || st == APS_E_LIMIT || st == APS_E_SYNTAX || st == APS_E_UTF8 ||
           st == APS_E_DEPTH || st == APS_E_STATE || st == APS_E_ARGUMENT;
}

/*
 * Collecting (aps_schema_check_all): hands the error just recorded to the
 * caller and clears it, so that the next one is recorded too. Returns
 * APS_OK to go on; `st` when not collecting, or when the text itself is
 * bad (nothing after it can be read).
 */
static APS_NOINLINE aps_status collect(dctx *c, aps_status st)
{
    if (c->on_error == NULL || fatal(st))
        return st;
    if (c->first == APS_OK)
        c->first = st;
    c->on_error(c->error_user, c->err);
    aps_error_clear(c->err);
    return APS_OK;
}

/*
 * Collecting: the value that started at `before` failed with `st`; after
 * its error is handed over, the reader goes past that value, so its
 * siblings are checked too. Returns `st` when not collecting (or fatal).
 */
static APS_NOINLINE aps_status collect_value(dctx *c, aps_status st, const aps_json_pos *before)
{
    if ((st = collect(c, st)) != APS_OK)
        return st;
    aps_json_reader_restore(c->r, before);
    return aps_json_skip(c->r, c->err);
}

/* Member-name equality against a NUL-terminated schema key, NUL bytes in `k` included. */
static inline bool key_is(const char *fk, const char *k, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++) {
        if (fk[i] != k[i] || fk[i] == '\0')
            return false;
    }
    return fk[len] == '\0';
}

/* Does input name k (len bytes) name field f under key case kc? */
static inline bool field_named(const aps_field *f, const char *k, size_t len, aps_key_case kc)
{
    const char *sn;
    if (kc != APS_CASE_SNAKE && len > 0 && f->key[0] == k[0] && key_is(f->key, k, len))
        return true;
    if (len == 0 && kc != APS_CASE_SNAKE && f->key[0] == '\0')
        return true;
    if (kc == APS_CASE_SCHEMA)
        return false;
    sn = f->snake != NULL ? f->snake : f->key;
    if (kc == APS_CASE_EITHER && sn == f->key)
        return false;
    return key_is(sn, k, len);
}

/*
 * Finds the field named k, starting at *hint: members usually arrive in
 * schema order, so the next field is the likely one. SIZE_MAX if none.
 */
static inline size_t find_field(const aps_field *fields, size_t n, aps_slice k, aps_key_case kc,
                                size_t *hint)
{
    size_t i, h = *hint;
    if (kc == APS_CASE_SCHEMA && k.len != 0) {
        /* The common case without the spelling logic: first byte, then the rest. */
        char k0 = k.ptr[0];
        for (i = h; i < n; i++) {
            if (fields[i].key[0] == k0 && key_is(fields[i].key, k.ptr, k.len))
                goto found;
        }
        for (i = 0; i < h && i < n; i++) {
            if (fields[i].key[0] == k0 && key_is(fields[i].key, k.ptr, k.len))
                goto found;
        }
        return SIZE_MAX;
    }
    for (i = h; i < n; i++) {
        if (field_named(&fields[i], k.ptr, k.len, kc))
            goto found;
    }
    for (i = 0; i < h && i < n; i++) {
        if (field_named(&fields[i], k.ptr, k.len, kc))
            goto found;
    }
    return SIZE_MAX;
found:
    *hint = i + 1;
    return i;
}

/* Grows an arena block of `cap` items of `size` bytes to hold at least one more. */
static void *grow_items(dctx *c, void *items, size_t *cap, size_t size)
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

/* ---- scalars --------------------------------------------------------------- */

/*
 * Reads a JSON integer as sign and magnitude. *overflow is set when the
 * magnitude exceeds 64 bits. A fraction or exponent is APS_E_TYPE.
 */
static aps_status read_integer(dctx *c, bool *neg, uint64_t *mag, bool *overflow, aps_slice *text)
{
    const char *p, *e, *d;
    uint64_t v = 0;
    size_t n;
    aps_status st = aps_json_read_number(c->r, text, c->err);
    if (st != APS_OK)
        return st;
    p = text->ptr;
    e = p + text->len;
    *neg = *p == '-';
    p += *neg;
    for (d = p; d < e && (unsigned)(*d - '0') <= 9; d++)
        ;
    if (APS_UNLIKELY(d != e))
        return aps_json_reader_fail(c->r, c->err, APS_E_TYPE,
                                    "expected an integer, got a number with a%s",
                                    *d == '.' ? " fraction" : "n exponent");
    n = (size_t)(d - p);
    *overflow = false;
    if (n < 20) {
        for (; p < d; p++)
            v = v * 10 + (uint64_t)(*p - '0');
    } else if (n == 20) {
        for (; p < d - 1; p++)
            v = v * 10 + (uint64_t)(*p - '0');
        if (v > 1844674407370955161ull || (v == 1844674407370955161ull && *p > '5'))
            *overflow = true;
        else
            v = v * 10 + (uint64_t)(*p - '0');
    } else {
        *overflow = true;
    }
    *mag = v;
    return APS_OK;
}

static aps_status fail_int_range(dctx *c, const aps_type *t, aps_slice text)
{
    char msg[APS_ERROR_MESSAGE_MAX];
    aps_schema_priv_int_range(msg, sizeof msg, t, text.ptr, text.len);
    return aps_json_reader_fail(c->r, c->err, APS_E_RANGE, "%s", msg);
}

/* Exact path of decode_int and decode_uint: only its errors are needed. */
static APS_NOINLINE aps_status fail_integer(dctx *c, const aps_type *t)
{
    bool neg, overflow;
    uint64_t mag;
    aps_slice text;
    aps_status st;
    /* Back to the number's start: the fast path may have read it already. */
    c->r->cur = c->r->begin + c->r->value_start;
    if (aps_json_peek(c->r) != APS_JSON_NUMBER) {
        int64_t v;
        return aps_json_read_int64(c->r, &v, c->err); /* "expected an integer, got ..." */
    }
    if ((st = read_integer(c, &neg, &mag, &overflow, &text)) != APS_OK)
        return st;
    if (t->kind == APS_K_INT && (overflow || mag > (uint64_t)INT64_MAX + (neg ? 1u : 0u)))
        return aps_json_reader_fail(c->r, c->err, APS_E_RANGE,
                                    "integer %.*s is outside the 64-bit signed range",
                                    (int)(text.len > 40 ? 40 : text.len), text.ptr);
    if (t->kind == APS_K_UINT && overflow)
        return aps_json_reader_fail(c->r, c->err, APS_E_RANGE,
                                    "integer %.*s is outside the 64-bit unsigned range",
                                    (int)(text.len > 40 ? 40 : text.len), text.ptr);
    return fail_int_range(c, t, text);
}

static aps_status decode_int(dctx *c, const aps_type *t, int64_t *out)
{
    int64_t v;
    /* The reader leaves itself where it was on failure, so the exact path can read again. */
    if (APS_UNLIKELY(aps_json_read_int64(c->r, &v, NULL) != APS_OK || v < t->u.i.min || v > t->u.i.max))
        return fail_integer(c, t);
    *out = v;
    return APS_OK;
}

static aps_status decode_uint(dctx *c, const aps_type *t, uint64_t *out)
{
    uint64_t v;
    if (APS_UNLIKELY(aps_json_read_uint64(c->r, &v, NULL) != APS_OK || v < t->u.u.min || v > t->u.u.max ||
                     (v & t->u.u.forbidden_bits) != 0))
        return fail_integer(c, t);
    *out = v;
    return APS_OK;
}

static aps_status decode_float(dctx *c, const aps_type *t, double *out)
{
    double v;
    aps_status st = aps_json_read_double(c->r, &v, c->err);
    if (st != APS_OK)
        return st;
    if (APS_UNLIKELY(t->u.f.has_min || t->u.f.has_max || t->u.f.width != 0)) {
        char msg[APS_ERROR_MESSAGE_MAX];
        if ((st = aps_schema_priv_check_float(t, v, msg, sizeof msg)) != APS_OK)
            return aps_json_reader_fail(c->r, c->err, st, "%s", msg);
    }
    *out = v;
    return APS_OK;
}

static APS_NOINLINE aps_status fail_text(dctx *c, const aps_type *t, aps_slice s)
{
    char msg[APS_ERROR_MESSAGE_MAX];
    aps_status st = aps_schema_priv_check_text(t, s.ptr, s.len, msg, sizeof msg);
    if (st == APS_OK)
        return APS_OK;
    return aps_json_reader_fail(c->r, c->err, st, "%s", msg);
}

static aps_status decode_text(dctx *c, const aps_type *t, aps_slice *out)
{
    aps_slice s;
    aps_status st = aps_json_read_string(c->r, &s, c->err);
    if (st != APS_OK)
        return st;
    if (APS_UNLIKELY(aps_schema_priv_text_constrained(t, s.len)) &&
        (st = fail_text(c, t, s)) != APS_OK)
        return st;
    *out = s;
    return APS_OK;
}

static APS_NOINLINE aps_status fail_one_of(dctx *c, const aps_literal *values, size_t n,
                                           const aps_type *other, aps_slice got)
{
    char list[APS_ERROR_MESSAGE_MAX], q[96];
    aps_schema_priv_one_of(list, sizeof list, values, n, other);
    return aps_json_reader_fail(c->r, c->err, APS_E_UNKNOWN, "%s; got %s", list,
                                aps_schema_priv_quote(q, sizeof q, got.ptr, got.len, '"'));
}

static aps_status decode_enum(dctx *c, const aps_type *t, void *out)
{
    const aps_literal *v = t->u.enm.values;
    size_t n = t->u.enm.count;
    aps_slice s;
    int k;
    aps_status st = aps_schema_priv_enum_of_ints(t) ? aps_json_read_number(c->r, &s, c->err)
                                                    : aps_json_read_string(c->r, &s, c->err);
    if (st != APS_OK)
        return st;
    if ((k = aps_schema_enum_find(t, s.ptr, s.len)) > 0) {
        *(int *)out = k;
        return APS_OK;
    }
    if (t->u.enm.other != NULL) {
        char msg[APS_ERROR_MESSAGE_MAX];
        if (aps_schema_priv_check_text(t->u.enm.other, s.ptr, s.len, msg, sizeof msg) == APS_OK) {
            *(int *)out = 0;
            *APS_AT(out, t->u.enm.other_offset, aps_slice) = s;
            return APS_OK;
        }
    }
    return fail_one_of(c, v, n, t->u.enm.other, s);
}

static APS_NOINLINE aps_status fail_literal(dctx *c, const aps_literal *lit, const char *got,
                                            size_t got_len, bool quote)
{
    char want[96], g[96];
    if (quote)
        aps_schema_priv_quote(g, sizeof g, got, got_len, '"');
    else
        snprintf(g, sizeof g, "%.*s", (int)(got_len > 60 ? 60 : got_len), got);
    return aps_json_reader_fail(c->r, c->err, APS_E_UNKNOWN, "expected %s; got %s",
                                aps_schema_priv_literal(want, sizeof want, lit), g);
}

static aps_status decode_literal(dctx *c, const aps_literal *lit)
{
    aps_status st;
    switch (lit->kind) {
    case APS_LIT_TEXT: {
        aps_slice s;
        if ((st = aps_json_read_string(c->r, &s, c->err)) != APS_OK)
            return st;
        if (!aps_schema_priv_text_is(lit, s.ptr, s.len))
            return fail_literal(c, lit, s.ptr, s.len, true);
        return APS_OK;
    }
    case APS_LIT_INT:
    case APS_LIT_UINT: {
        bool neg, overflow, same;
        uint64_t mag;
        aps_slice text;
        if ((st = read_integer(c, &neg, &mag, &overflow, &text)) != APS_OK)
            return st;
        if (lit->kind == APS_LIT_UINT)
            same = !overflow && (!neg || mag == 0) && mag == lit->u;
        else if (lit->i < 0)
            same = !overflow && neg && mag == (uint64_t)0 - (uint64_t)lit->i;
        else
            same = !overflow && (!neg || mag == 0) && mag == (uint64_t)lit->i;
        return same ? APS_OK : fail_literal(c, lit, text.ptr, text.len, false);
    }
    case APS_LIT_FLOAT: {
        double v;
        aps_slice text;
        if ((st = aps_json_read_number(c->r, &text, c->err)) != APS_OK)
            return st;
        if (!aps_json_impl_to_double(text.ptr, text.ptr + text.len, &v))
            return fail_literal(c, lit, text.ptr, text.len, false);
        return v == lit->f ? APS_OK : fail_literal(c, lit, text.ptr, text.len, false);
    }
    case APS_LIT_BOOL: {
        int b;
        if ((st = aps_json_read_bool(c->r, &b, c->err)) != APS_OK)
            return st;
        return (b != 0) == (lit->i != 0) ? APS_OK
                                         : fail_literal(c, lit, b ? "true" : "false", b ? 4 : 5, false);
    }
    case APS_LIT_NULL:
        return aps_json_read_null(c->r, c->err);
    case APS_LIT_UNDEFINED:
    case APS_LIT_BYTES:
        return aps_json_reader_fail(c->r, c->err, APS_E_TYPE, "%s has no JSON form (CBOR only)",
                                    lit->kind == APS_LIT_BYTES ? "a byte string" : "'undefined'");
    }
    return aps_json_reader_fail(c->r, c->err, APS_E_ARGUMENT, "malformed literal descriptor");
}

/* ---- arrays and maps ------------------------------------------------------------ */

static APS_NOINLINE aps_status fail_count(dctx *c, size_t n, size_t min, size_t max,
                                          const char *what)
{
    if (n < min)
        return aps_json_reader_fail(c->r, c->err, APS_E_RANGE, "expected at least %zu %s%s; got %zu",
                                    min, what, min == 1 ? "" : "s", n);
    return aps_json_reader_fail(c->r, c->err, APS_E_RANGE, "expected at most %zu %s%s; got %zu",
                                max, what, max == 1 ? "" : "s", n);
}

static aps_status decode_array(dctx *c, const aps_type *t, aps_array *out)
{
    const aps_type *et = t->u.arr.elem;
    size_t es = et->size, n = 0, cap = 0;
    char *items = NULL;
    aps_json_pos before; /* collecting: where the element being read starts */
    int more;
    aps_status st = aps_json_read_array(c->r, c->err);
    if (st != APS_OK)
        return st;
    for (;;) {
        if ((st = aps_json_next_element(c->r, &more, c->err)) != APS_OK)
            return st;
        if (!more)
            break;
        if (APS_UNLIKELY(n >= t->u.arr.max)) {
            /* Count the excess without storing it; the error names the array. */
            if ((st = aps_json_skip(c->r, c->err)) != APS_OK)
                return st;
            n++;
            continue;
        }
        if (es != 0) {
            if (n == cap && (items = (char *)grow_items(c, items, &cap, es)) == NULL)
                return decode_fail_nomem(c);
            memset(items + n * es, 0, es);
        }
        if (APS_UNLIKELY(c->on_error != NULL))
            aps_json_reader_save(c->r, &before);
        if ((st = decode_value(c, et, es != 0 ? items + n * es : NULL)) != APS_OK &&
            (st = collect_value(c, st, &before)) != APS_OK)
            return st;
        n++;
    }
    if (APS_UNLIKELY(n < t->u.arr.min || n > t->u.arr.max) &&
        (st = collect(c, fail_count(c, n, t->u.arr.min, t->u.arr.max, "element"))) != APS_OK)
        return st;
    out->items = items;
    out->count = n;
    return APS_OK;
}

static aps_status decode_map(dctx *c, const aps_type *t, aps_array *out)
{
    size_t es = t->u.map.entry_size, n = 0, cap = 0;
    char *items = NULL;
    aps_json_pos before; /* collecting: where the value being read starts */
    aps_slice key;
    int more;
    aps_status st = aps_json_read_object(c->r, c->err);
    if (st != APS_OK)
        return st;
    for (;;) {
        if ((st = aps_json_next_member(c->r, &key, &more, c->err)) != APS_OK)
            return st;
        if (!more)
            break;
        if (APS_UNLIKELY(n >= t->u.map.max)) {
            if ((st = aps_json_skip(c->r, c->err)) != APS_OK)
                return st;
            n++;
            continue;
        }
        if (n == cap && (items = (char *)grow_items(c, items, &cap, es)) == NULL)
            return decode_fail_nomem(c);
        memset(items + n * es, 0, es);
        *(aps_slice *)(void *)(items + n * es) = key;
        if (APS_UNLIKELY(c->on_error != NULL))
            aps_json_reader_save(c->r, &before);
        if ((st = decode_value(c, t->u.map.value, items + n * es + t->u.map.value_offset)) != APS_OK &&
            (st = collect_value(c, st, &before)) != APS_OK)
            return st;
        n++;
    }
    if (APS_UNLIKELY(n < t->u.map.min || n > t->u.map.max) &&
        (st = collect(c, fail_count(c, n, t->u.map.min, t->u.map.max, "member"))) != APS_OK)
        return st;
    out->items = items;
    out->count = n;
    return APS_OK;
}

/* ---- structs ------------------------------------------------------------------ */

/* Equality of two schema strings, usually the same pointer. */
static inline bool same_key(const char *a, const char *b)
{
    return a == b || (a[0] == b[0] && strcmp(a, b) == 0);
}

/* The snake_case spelling of a union's discriminant (from its first alternative). */
static const char *disc_snake(const aps_type *u)
{
    const char *k = u->u.un.disc_key;
    if (u->u.un.nalts > 0 && u->u.un.alts[0]->kind == APS_K_STRUCT) {
        const aps_type *a = u->u.un.alts[0];
        size_t i;
        for (i = 0; i < a->u.st.nfields; i++) {
            if (same_key(a->u.st.fields[i].key, k))
                return a->u.st.fields[i].snake != NULL ? a->u.st.fields[i].snake : k;
        }
    }
    return k;
}

/* Index of the discriminant among an alternative's fields; SIZE_MAX if it has none. */
static size_t disc_index(const aps_type *alt, const char *key)
{
    size_t i;
    for (i = 0; i < alt->u.st.nfields; i++) {
        if (same_key(alt->u.st.fields[i].key, key))
            return i;
    }
    return SIZE_MAX;
}

/*
 * Keeps an unknown member of an open map as raw JSON. With a typed tail
 * (`* text => T`) the value must also decode as T: it is decoded into
 * scratch space that is given back to the arena unless the reader moved its
 * own bookkeeping into the arena meanwhile (then it stays until the reset).
 */
static aps_status keep_extra(dctx *c, const aps_type *t, aps_json_members *x, size_t *cap,
                             aps_slice key)
{
    aps_json_reader *r = c->r;
    aps_json_raw raw;
    aps_status st;
    if (t->u.st.extras_type == NULL) {
        if ((st = aps_json_read_raw(r, &raw, c->err)) != APS_OK)
            return st;
    } else {
        const aps_type *xt = t->u.st.extras_type;
        aps_arena_marker m = aps_arena_mark(c->arena);
        const aps_json_frame *frames = r->frames;
        const aps_slice *keys = r->keys;
        void *scratch = aps_arena_alloc(c->arena, xt->size);
        if (scratch == NULL)
            return decode_fail_nomem(c);
        memset(scratch, 0, xt->size);
        raw.ptr = value_here(r);
        if ((st = decode_value(c, xt, scratch)) != APS_OK)
            return st;
        raw.len = (size_t)(r->cur - raw.ptr);
        if (r->frames == frames && r->keys == keys)
            aps_arena_rollback(c->arena, m);
    }
    if (x->count == *cap) {
        aps_json_member *items = (aps_json_member *)grow_items(c, x->items, cap, sizeof *items);
        if (items == NULL)
            return decode_fail_nomem(c);
        x->items = items;
    }
    memset(&x->items[x->count], 0, sizeof x->items[x->count]); /* no CBOR form kept: JSON is all there is */
    x->items[x->count].key = key;
    x->items[x->count].value = raw;
    x->count++;
    return APS_OK;
}

static aps_status decode_field(dctx *c, const aps_field *f, char *base)
{
    aps_status st;
    unsigned fl = f->flags;
    if ((fl & APS_F_NULLABLE) && aps_json_peek(c->r) == APS_JSON_NULL) {
        if ((st = aps_json_read_null(c->r, c->err)) != APS_OK)
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

static APS_NOINLINE aps_status fail_member(dctx *c, aps_status code, const char *what, aps_slice key)
{
    char q[96];
    return aps_json_reader_fail(c->r, c->err, code, "%s %s", what,
                                aps_schema_priv_quote(q, sizeof q, key.ptr, key.len, '\''));
}

static aps_status check_required(dctx *c, const aps_field *f, size_t n, size_t first, const aps_seen_set *s)
{
    size_t i;
    aps_status st;
    for (i = 0; i < n; i++) {
        if (!(f[i].flags & APS_F_OPTIONAL) && !aps_seen_has(s, first + i) &&
            (st = collect(c, aps_json_reader_fail(c->r, c->err, APS_E_MISSING, "missing required member '%s'",
                                                  aps_schema_priv_key(&f[i], c->key_case)))) != APS_OK)
            return st;
    }
    return APS_OK;
}

/*
 * Chooses the alternative of discriminated union `u` for the object being
 * read, whose members may come in any order. Members of the envelope's own
 * fields `pf` (none for a plain union) that come before the discriminant are
 * decoded on the way; when the discriminant follows only such members,
 * *consumed says the reader stands after it and decoding goes on from
 * there in one pass. Otherwise the rest is skipped up to the discriminant
 * and the reader and arena return to where they were (*consumed false, and
 * the seen set forgets what was decoded here). *kind: 1 + alternative, or
 * 0 for an unknown value in tolerant mode.
 */
static aps_status pick_variant(dctx *c, const aps_type *u, const aps_field *pf, size_t np, char *pbase,
                               size_t pre, aps_seen_set *s, size_t *hint, int *kind, bool *consumed)
{
    aps_json_reader *r = c->r;
    aps_json_pos pos;
    const char *dk, *ds;
    aps_slice key, val;
    /* still decoding in place; collecting, never: the members are read again after the restore, and
       an error found on the way would be reported twice */
    bool ahead = c->on_error == NULL;
    int more;
    size_t i;
    aps_status st;
    dk = u->u.un.disc_key;
    ds = c->key_case == APS_CASE_SCHEMA ? dk : disc_snake(u);
    aps_json_reader_save(r, &pos);
    for (;;) {
        if ((st = aps_json_next_member(r, &key, &more, c->err)) != APS_OK)
            return st;
        if (!more)
            return aps_json_reader_fail(r, c->err, APS_E_MISSING, "missing required member '%s'",
                                        c->key_case == APS_CASE_SNAKE ? ds : dk);
        if ((c->key_case != APS_CASE_SNAKE && key_is(dk, key.ptr, key.len)) ||
            (c->key_case != APS_CASE_SCHEMA && key_is(ds, key.ptr, key.len)))
            break;
        if (ahead && np != 0 && (i = find_field(pf, np, key, c->key_case, hint)) != SIZE_MAX) {
            if (APS_UNLIKELY(aps_seen_mark(s, i)))
                return fail_member(c, APS_E_DUPLICATE, "duplicate member (given in both spellings)", key);
            if ((st = decode_field(c, &pf[i], pbase)) != APS_OK)
                return st;
            continue;
        }
        ahead = false;
        if ((st = aps_json_skip(r, c->err)) != APS_OK)
            return st;
    }
    if ((st = aps_json_read_string(r, &val, c->err)) != APS_OK)
        return st;
    *kind = 0;
    for (i = 0; i < u->u.un.nalts; i++) {
        if (aps_schema_priv_text_is(&u->u.un.disc[i], val.ptr, val.len)) {
            *kind = (int)(i + 1);
            break;
        }
    }
    if (*kind == 0 && c->strict)
        return fail_one_of(c, u->u.un.disc, u->u.un.nalts, NULL, val);
    /* An unknown variant is read again from the start so its members are kept. */
    *consumed = ahead && *kind != 0;
    if (!*consumed) {
        aps_json_reader_restore(r, &pos);
        if (s->big != NULL)
            memset(s->big, 0, ((np + 63) / 64) * sizeof *s->big);
        s->small = 0;
        if (pre != SIZE_MAX)
            (void)aps_seen_mark(s, pre);
        *hint = 0;
    }
    return APS_OK;
}

/*
 * Decodes the members of an object already entered (its '{' at `start`)
 * into the struct at base, with the members of its variant union inlined.
 * `pre` is the index of a field the caller already read (the discriminant
 * that chose this struct), SIZE_MAX if none.
 */
static aps_status struct_body(dctx *c, const aps_type *t, char *base, const char *start, size_t pre)
{
    aps_json_reader *r = c->r;
    const aps_type *vt = t->u.st.variants, *alt = NULL;
    const aps_field *pf = t->u.st.fields, *af = NULL;
    size_t np = t->u.st.nfields, na = 0, phint = 0, ahint = 0, xcap = 0, i, total = np;
    char *abase = NULL;
    aps_seen_set s;
    aps_json_members *extras = t->u.st.open ? APS_AT(base, t->u.st.extras_offset, aps_json_members) : NULL;
    int kind = 0;
    aps_json_pos before; /* collecting: where the member's value being read starts */
    aps_slice key;
    int more;
    aps_status st;
    s.small = 0;
    s.big = NULL;
    if (vt != NULL) {
        for (i = 0; i < vt->u.un.nalts; i++) {
            if (np + vt->u.un.alts[i]->u.st.nfields > total)
                total = np + vt->u.un.alts[i]->u.st.nfields;
        }
    }
    if (APS_UNLIKELY(total > 64)) {
        size_t words = (total + 63) / 64;
        if ((s.big = (uint64_t *)aps_arena_alloc(c->arena, words * sizeof *s.big)) == NULL)
            return decode_fail_nomem(c);
        memset(s.big, 0, words * sizeof *s.big);
    }
    if (pre != SIZE_MAX) {
        (void)aps_seen_mark(&s, pre);
        phint = pre + 1;
    }
    if (vt != NULL) {
        bool consumed;
        if ((st = pick_variant(c, vt, pf, np, base, pre, &s, &phint, &kind, &consumed)) != APS_OK)
            return st;
        *APS_AT(base, t->u.st.variants_offset + vt->u.un.kind_offset, int) = kind;
        if (kind > 0) {
            alt = vt->u.un.alts[kind - 1];
            af = alt->u.st.fields;
            na = alt->u.st.nfields;
            abase = base + t->u.st.variants_offset + vt->u.un.payload_offset;
            if (consumed && (i = disc_index(alt, vt->u.un.disc_key)) != SIZE_MAX) {
                (void)aps_seen_mark(&s, np + i);
                ahint = i + 1;
            }
        }
    }
    for (;;) {
        const aps_field *f;
        char *fbase = base;
        if ((st = aps_json_next_member(r, &key, &more, c->err)) != APS_OK)
            return st;
        if (!more)
            break;
        i = find_field(pf, np, key, c->key_case, &phint);
        if (i != SIZE_MAX) {
            f = &pf[i];
        } else if (na != 0 && (i = find_field(af, na, key, c->key_case, &ahint)) != SIZE_MAX) {
            f = &af[i];
            fbase = abase;
            i += np;
        } else if (extras != NULL) {
            if ((st = keep_extra(c, t, extras, &xcap, key)) != APS_OK)
                return st;
            continue;
        } else if (vt != NULL && kind == 0) {
            if ((st = aps_json_skip(r, c->err)) != APS_OK)
                return st;
            continue;
        } else {
            if ((st = collect(c, fail_member(c, APS_E_UNKNOWN, "unknown member", key))) != APS_OK ||
                (st = aps_json_skip(r, c->err)) != APS_OK)
                return st;
            continue;
        }
        if (APS_UNLIKELY(aps_seen_mark(&s, i))) {
            if ((st = collect(c, fail_member(c, APS_E_DUPLICATE, "duplicate member (given in both spellings)",
                                             key))) != APS_OK ||
                (st = aps_json_skip(r, c->err)) != APS_OK)
                return st;
            continue;
        }
        if (APS_UNLIKELY(c->on_error != NULL))
            aps_json_reader_save(r, &before);
        if ((st = decode_field(c, f, fbase)) != APS_OK && (st = collect_value(c, st, &before)) != APS_OK)
            return st;
    }
    if ((st = check_required(c, pf, np, 0, &s)) != APS_OK || (st = check_required(c, af, na, np, &s)) != APS_OK)
        return st;
    if (extras != NULL && APS_UNLIKELY(extras->count < t->u.st.extras_min ||
                                       (t->u.st.extras_max != 0 && extras->count > t->u.st.extras_max)) &&
        (st = collect(c, fail_count(c, extras->count, t->u.st.extras_min, t->u.st.extras_max, "extra member"))) !=
            APS_OK)
        return st;
    if (vt != NULL) {
        aps_json_raw *raw = APS_AT(base, t->u.st.variants_offset + vt->u.un.raw_offset, aps_json_raw);
        raw->ptr = start;
        raw->len = (size_t)(r->cur - start);
    }
    return APS_OK;
}

static aps_status decode_struct(dctx *c, const aps_type *t, char *out)
{
    const char *start = value_here(c->r);
    aps_status st = aps_json_read_object(c->r, c->err);
    if (st != APS_OK)
        return st;
    return struct_body(c, t, out, start, SIZE_MAX);
}

/* ---- unions ------------------------------------------------------------------- */

static void set_union(const aps_type *t, char *out, int kind, const char *start, const char *end)
{
    aps_json_raw *raw = APS_AT(out, t->u.un.raw_offset, aps_json_raw);
    *APS_AT(out, t->u.un.kind_offset, int) = kind;
    raw->ptr = start;
    raw->len = (size_t)(end - start);
}

static aps_status decode_discriminated(dctx *c, const aps_type *t, char *out)
{
    aps_json_reader *r = c->r;
    const char *start = value_here(r);
    int kind = 0, more;
    bool consumed = false;
    size_t hint = 0;
    aps_seen_set s;
    aps_slice key;
    aps_status st;
    s.small = 0;
    s.big = NULL;
    if ((st = aps_json_read_object(r, c->err)) != APS_OK ||
        (st = pick_variant(c, t, NULL, 0, NULL, SIZE_MAX, &s, &hint, &kind, &consumed)) != APS_OK)
        return st;
    if (kind == 0) {
        for (;;) {
            if ((st = aps_json_next_member(r, &key, &more, c->err)) != APS_OK)
                return st;
            if (!more)
                break;
            if ((st = aps_json_skip(r, c->err)) != APS_OK)
                return st;
        }
    } else {
        const aps_type *alt = t->u.un.alts[kind - 1];
        if (APS_UNLIKELY(alt->kind != APS_K_STRUCT))
            return aps_json_reader_fail(r, c->err, APS_E_ARGUMENT,
                                        "schema error: alternative %d of a discriminated union is no struct", kind);
        st = struct_body(c, alt, out + t->u.un.payload_offset, start,
                         consumed ? disc_index(alt, t->u.un.disc_key) : SIZE_MAX);
        if (st != APS_OK)
            return st;
    }
    set_union(t, out, kind, start, r->cur);
    return APS_OK;
}

/* Passes a trial's error on to the caller's record (first error wins there too). */
static void adopt_error(aps_error *to, const aps_error *from)
{
    if (to != NULL && to->code == APS_OK)
        *to = *from;
}

static APS_NOINLINE aps_status decode_untagged(dctx *c, const aps_type *t, char *out)
{
    aps_json_reader *r = c->r;
    aps_error *caller = c->err, best, cur;
    aps_error_fn on_error = c->on_error;
    aps_json_pos pos;
    const char *start = value_here(r);
    size_t i;
    aps_status st, best_st = APS_E_TYPE;
    bool have = false;
    aps_json_reader_save(r, &pos);
    for (i = 0; i < t->u.un.nalts; i++) {
        const aps_type *alt = t->u.un.alts[i];
        memset(out + t->u.un.payload_offset, 0, alt->size);
        aps_error_clear(&cur);
        /* a trial fails at its first error: collecting, the choice's error is its best trial's */
        c->err = &cur;
        c->on_error = NULL;
        st = decode_value(c, alt, out + t->u.un.payload_offset);
        c->err = caller;
        c->on_error = on_error;
        if (st == APS_OK) {
            set_union(t, out, (int)(i + 1), start, r->cur);
            return APS_OK;
        }
        if (fatal(st)) {
            adopt_error(caller, &cur);
            return st;
        }
        if (!have || cur.offset > best.offset) {
            best = cur;
            best_st = st;
            have = true;
        }
        aps_json_reader_restore(r, &pos);
    }
    if (!have)
        return aps_json_reader_fail(r, caller, APS_E_TYPE, "%s has no alternatives",
                                    t->name != NULL ? t->name : "the choice");
    if (caller != NULL && caller->code == APS_OK) {
        aps_error_set(caller, best_st, best.offset, "no alternative of %s matches: %s",
                      t->name != NULL ? t->name : "the choice", best.message);
        aps_error_set_pointer(caller, best.pointer);
    }
    return best_st;
}

static const char *kind_name(const aps_type *t)
{
    switch (t->kind) {
    case APS_K_BOOL: return "a boolean";
    case APS_K_INT:
    case APS_K_UINT: return "an integer";
    case APS_K_FLOAT: return "a number";
    case APS_K_TEXT: return "a string";
    case APS_K_ENUM: return aps_schema_priv_enum_of_ints(t) ? "an integer" : "a string";
    case APS_K_STRUCT:
    case APS_K_MAP: return "an object";
    case APS_K_ARRAY:
    case APS_K_TUPLE: return "an array";
    case APS_K_LITERAL:
        switch (t->u.lit.kind) {
        case APS_LIT_TEXT: return "a string";
        case APS_LIT_INT:
        case APS_LIT_UINT: return "an integer";
        case APS_LIT_FLOAT: return "a number";
        case APS_LIT_BOOL: return "a boolean";
        case APS_LIT_NULL: return "null";
        case APS_LIT_UNDEFINED: return "undefined";
        case APS_LIT_BYTES: return "a byte string";
        }
        return "a value";
    case APS_K_BYTES: return "a byte string";
    case APS_K_TAG: return kind_name(t->u.tag.content);
    case APS_K_UNION:
        return t->u.un.cls == APS_U_DISCRIMINATED ? "an object" : "a value";
    case APS_K_ANY: return "a value";
    }
    return "a value";
}

static APS_NOINLINE aps_status fail_kind(dctx *c, const aps_type *t, aps_json_kind jk)
{
    static const char *const got_names[] = { "nothing", "null", "a boolean", "a number",
                                             "a string", "an array", "an object" };
    const char *names[16];
    char msg[APS_ERROR_MESSAGE_MAX];
    size_t n = 0, i, j, len = 0;
    for (i = 0; i < t->u.un.nalts && n < 16; i++) {
        const char *k = kind_name(t->u.un.alts[i]);
        for (j = 0; j < n && strcmp(names[j], k) != 0; j++)
            ;
        if (j == n)
            names[n++] = k;
    }
    msg[0] = '\0';
    for (i = 0; i < n && len < sizeof msg; i++) {
        int w = snprintf(msg + len, sizeof msg - len, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
                         names[i]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return aps_json_reader_fail(c->r, c->err, APS_E_TYPE, "expected %s; got %s", msg,
                                got_names[jk <= APS_JSON_OBJECT ? jk : 0]);
}

/*
 * Tries literal alternative `alt` of a kind union on a value of its JSON
 * kind; *matched says whether it held. Only reader-level failures are errors.
 */
static APS_NOINLINE aps_status try_literal(dctx *c, const aps_type *alt, bool *matched)
{
    aps_error *caller = c->err, cur;
    aps_json_pos pos;
    aps_status st;
    aps_json_reader_save(c->r, &pos);
    aps_error_clear(&cur);
    c->err = &cur;
    st = decode_literal(c, &alt->u.lit);
    c->err = caller;
    *matched = st == APS_OK;
    if (st == APS_OK || st == APS_E_UNKNOWN) {
        if (!*matched)
            aps_json_reader_restore(c->r, &pos);
        return APS_OK;
    }
    adopt_error(caller, &cur);
    return st;
}

static aps_status decode_by_kind(dctx *c, const aps_type *t, char *out)
{
    aps_json_reader *r = c->r;
    aps_json_kind jk = aps_json_peek(r);
    const char *start = value_here(r);
    bool is_int = false;
    size_t i, j;
    aps_status st;
    if (jk == APS_JSON_NUMBER) {
        const char *p = start + (*start == '-');
        while (p < r->end && (unsigned)(*p - '0') <= 9)
            p++;
        is_int = !(p < r->end && (*p == '.' || *p == 'e' || *p == 'E'));
    }
    for (i = 0; i < t->u.un.nalts; i++) {
        const aps_type *alt = t->u.un.alts[i];
        if (!aps_schema_priv_kind_fits(alt, jk, is_int, 0))
            continue;
        if (alt->kind == APS_K_LITERAL) {
            /* A literal that does not hold leaves the value to a later alternative of its kind. */
            for (j = i + 1; j < t->u.un.nalts && !aps_schema_priv_kind_fits(t->u.un.alts[j], jk, is_int, 0); j++)
                ;
            if (j < t->u.un.nalts) {
                bool matched;
                if ((st = try_literal(c, alt, &matched)) != APS_OK)
                    return st;
                if (!matched)
                    continue;
                set_union(t, out, (int)(i + 1), start, r->cur);
                return APS_OK;
            }
        }
        if ((st = decode_value(c, alt, out + t->u.un.payload_offset)) != APS_OK)
            return st;
        set_union(t, out, (int)(i + 1), start, r->cur);
        return APS_OK;
    }
    /* Malformed text is a syntax error, not a wrong kind: let the reader judge it first. */
    if ((st = aps_json_skip(r, c->err)) != APS_OK)
        return st;
    r->value_start = (size_t)(start - r->begin);
    return fail_kind(c, t, jk);
}

/*
 * A positional array (APS_K_TUPLE, made under --cbor): its entries are
 * matched by the CBOR decoder's rules, on the array converted to CBOR
 * (aps_json_to_cbor: the same values, the same checks); an error is placed
 * at the array, its path and message those of the element that failed.
 */
static aps_status decode_tuple(dctx *c, const aps_type *t, char *out)
{
    aps_json_reader *r = c->r;
    aps_json_raw raw;
    aps_json_reader sub;
    aps_cbor_writer w;
    aps_decode_options o;
    aps_error e;
    size_t start, len;
    void *bytes;
    aps_status st;
    (void)value_here(r);
    start = r->value_start;
    if (aps_json_peek(r) != APS_JSON_ARRAY) {
        if ((st = aps_json_skip(r, c->err)) != APS_OK)
            return st;
        r->value_start = start;
        return aps_json_reader_fail(r, c->err, APS_E_TYPE, "expected an array");
    }
    if ((st = aps_json_read_raw(r, &raw, c->err)) != APS_OK)
        return st;
    aps_json_reader_init(&sub, raw.ptr, raw.len, c->arena, NULL);
    aps_cbor_writer_init(&w, NULL);
    st = aps_json_to_cbor(&sub, &w, NULL);
    if (st == APS_OK)
        st = aps_cbor_writer_finish(&w, NULL);
    len = aps_cbor_writer_len(&w);
    bytes = st == APS_OK ? aps_arena_alloc_aligned(c->arena, len + 1, 1) : NULL;
    if (bytes != NULL)
        memcpy(bytes, aps_cbor_writer_data(&w), len);
    aps_cbor_writer_deinit(&w);
    r->value_start = start;
    if (st != APS_OK)
        return aps_json_reader_fail(r, c->err, st, "this array has no CBOR form: %s", aps_status_str(st));
    if (bytes == NULL)
        return decode_fail_nomem(c);
    memset(&o, 0, sizeof o);
    o.key_case = c->key_case;
    o.strict = c->strict;
    st = aps_schema_decode_cbor(t, bytes, len, c->arena, out, &o, &e);
    if (st != APS_OK) {
        char at[APS_ERROR_POINTER_MAX];
        size_t n;
        (void)aps_json_reader_fail(r, c->err, st, "%s", e.message);
        if (c->err != NULL && c->err->code == st && (n = strlen(c->err->pointer)) + strlen(e.pointer) < sizeof at) {
            memcpy(at, c->err->pointer, n);
            memcpy(at + n, e.pointer, strlen(e.pointer) + 1);
            aps_error_set_pointer(c->err, at);
        }
    }
    return st;
}

/* ---- dispatch ----------------------------------------------------------------- */

static aps_status decode_nested(dctx *c, const aps_type *t, char *out)
{
    aps_status st;
    if (APS_UNLIKELY(++c->depth > APS_SCHEMA_MAX_DEPTH)) {
        (void)value_here(c->r);
        return aps_json_reader_fail(c->r, c->err, APS_E_DEPTH,
                                    "typed values nested deeper than %d levels", APS_SCHEMA_MAX_DEPTH);
    }
    switch (t->kind) {
    case APS_K_STRUCT: st = decode_struct(c, t, out); break;
    case APS_K_ARRAY: st = decode_array(c, t, (aps_array *)(void *)out); break;
    case APS_K_MAP: st = decode_map(c, t, (aps_array *)(void *)out); break;
    case APS_K_TAG: st = decode_value(c, t->u.tag.content, out); break;
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

static aps_status decode_value(dctx *c, const aps_type *t, void *out)
{
    aps_status st;
    switch (t->kind) {
    case APS_K_ANY:
        return aps_json_read_raw(c->r, (aps_json_raw *)out, c->err);
    case APS_K_BOOL: {
        int b;
        if ((st = aps_json_read_bool(c->r, &b, c->err)) == APS_OK)
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
        return decode_nested(c, t, (char *)out);
    case APS_K_BYTES: /* refused at the value, located, rather than read as something it is not */
        return aps_json_reader_fail(c->r, c->err, APS_E_TYPE, "a byte string has no JSON form (CBOR only)");
    case APS_K_TAG: /* JSON has no tags: the content alone */
    case APS_K_TUPLE:
        return decode_nested(c, t, (char *)out);
    }
    return aps_json_reader_fail(c->r, c->err, APS_E_ARGUMENT, "malformed type descriptor");
}

/* ---- entry points ------------------------------------------------------------- */

static void ctx_init(dctx *c, aps_json_reader *r, const aps_decode_options *o, aps_error *err)
{
    c->r = r;
    c->arena = r->arena;
    c->err = err;
    c->key_case = o != NULL ? o->key_case : APS_CASE_EITHER;
    c->strict = o != NULL && o->strict;
    c->depth = 0;
    c->on_error = NULL;
    c->error_user = NULL;
    c->first = APS_OK;
}

aps_status aps_schema_decode_value(const aps_type *type, aps_json_reader *r, void *out,
                                   const aps_decode_options *options, aps_error *err)
{
    dctx c;
    aps_error_clear(err);
    if (type == NULL || r == NULL || (out == NULL && type->size != 0))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no type, reader or output");
    if (options != NULL && options->copy_strings)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX,
                             "copy_strings needs the whole text (aps_schema_decode); a reader's input is the caller's");
    ctx_init(&c, r, options, err);
    if (type->size != 0)
        memset(out, 0, type->size);
    return decode_value(&c, type, out);
}

static void reader_open(aps_json_reader *r, const char *json, size_t len, aps_arena *arena,
                        const aps_decode_options *options)
{
    aps_json_reader_options ro;
    memset(&ro, 0, sizeof ro);
    ro.max_depth = options != NULL ? options->max_depth : 0;
    aps_json_reader_init(r, json, len, arena, &ro);
}

aps_status aps_schema_priv_decode_exact(const aps_type *type, const char *json, size_t len, aps_arena *arena,
                                        void *out, const aps_decode_options *options, aps_error *err)
{
    aps_json_reader r;
    aps_status st;
    reader_open(&r, json, len, arena, options);
    if ((st = aps_schema_decode_value(type, &r, out, options, err)) != APS_OK)
        return st;
    return aps_json_reader_finish(&r, err);
}

/*
 * For copy_strings: the input copied into the arena, so that everything
 * the decoders borrow from it (see aps/schema.h) is borrowed from the copy.
 * One copy of the text is never more than copies of its strings would be,
 * and no borrowed slice can be missed. NULL when the arena runs out.
 */
static const char *input_copy(aps_arena *arena, const char *json, size_t len, aps_error *err)
{
    char *copy = aps_arena_dup(arena, json, len);
    if (copy == NULL)
        aps_error_set(err, APS_E_NOMEM, SIZE_MAX, "no arena room for a copy of the %zu-byte input", len);
    return copy;
}

/* The decode options without copy_strings, for decoding the copy. */
static const aps_decode_options *options_for_copy(const aps_decode_options *o, aps_decode_options *buf)
{
    *buf = *o;
    buf->copy_strings = false;
    return buf;
}

aps_status aps_schema_decode(const aps_type *type, const char *json, size_t len, aps_arena *arena,
                             void *out, const aps_decode_options *options, aps_error *err)
{
    aps_decode_options copied;
    aps_error_clear(err);
    if (arena == NULL || (json == NULL && len != 0))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no arena or input");
    if (options != NULL && options->copy_strings && len > 0) {
        if ((json = input_copy(arena, json, len, err)) == NULL)
            return APS_E_NOMEM;
        options = options_for_copy(options, &copied);
    }
    /* Well-formed input of the usual shape decodes in one pass without
     * bookkeeping; the rest (and every error) is the exact decoder's. */
    if (type != NULL && (out != NULL || type->size == 0)) {
        aps_arena_marker mark = aps_arena_mark(arena);
        if (aps_schema_priv_decode_fast(type, json, len, arena, out, options, true))
            return APS_OK;
        aps_arena_rollback(arena, mark);
        if (type->fast != NULL)
            return aps_fast_decode_rest(type, json, len, arena, out, options, err);
    }
    return aps_schema_priv_decode_exact(type, json, len, arena, out, options, err);
}

aps_status aps_fast_decode_rest(const aps_type *type, const char *json, size_t len, aps_arena *arena, void *out,
                                const aps_decode_options *options, aps_error *err)
{
    /* Generated decoders give up on a few things the table-driven fast
     * path reads (a discriminant value spelled with escapes): it gets its
     * own try before the exact decoder. */
    aps_arena_marker mark = aps_arena_mark(arena);
    aps_error_clear(err);
    if (aps_schema_priv_decode_fast(type, json, len, arena, out, options, false))
        return APS_OK;
    aps_arena_rollback(arena, mark);
    return aps_schema_priv_decode_exact(type, json, len, arena, out, options, err);
}

aps_status aps_schema_decode_as(const aps_type *type, size_t alt, const char *json, size_t len,
                                aps_arena *arena, void *out, const aps_decode_options *options,
                                aps_error *err)
{
    aps_json_reader r;
    dctx c;
    const char *start;
    aps_decode_options copied;
    aps_status st;
    aps_error_clear(err);
    if (type == NULL || type->kind != APS_K_UNION || alt >= type->u.un.nalts || out == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no union or no such alternative");
    if (arena == NULL || (json == NULL && len != 0))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no arena or input");
    if (options != NULL && options->copy_strings && len > 0) {
        if ((json = input_copy(arena, json, len, err)) == NULL)
            return APS_E_NOMEM;
        options = options_for_copy(options, &copied);
    }
    reader_open(&r, json, len, arena, options);
    ctx_init(&c, &r, options, err);
    memset(out, 0, type->size);
    start = value_here(&r);
    if ((st = decode_value(&c, type->u.un.alts[alt], (char *)out + type->u.un.payload_offset)) != APS_OK)
        return st;
    set_union(type, (char *)out, (int)(alt + 1), start, r.cur);
    return aps_json_reader_finish(&r, err);
}

aps_status aps_schema_check_all(const aps_type *type, const char *json, size_t len, aps_arena *arena,
                                const aps_decode_options *options, aps_error_fn on_error, void *user)
{
    aps_json_reader r;
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    void *out;
    dctx c;
    if (type == NULL || arena == NULL || (json == NULL && len != 0) || on_error == NULL)
        return APS_E_ARGUMENT;
    if ((out = aps_arena_alloc(arena, type->size != 0 ? type->size : 1)) == NULL)
        return APS_E_NOMEM;
    memset(out, 0, type->size);
    reader_open(&r, json, len, arena, options);
    ctx_init(&c, &r, options, &err);
    c.on_error = on_error;
    c.error_user = user;
    st = decode_value(&c, type, out);
    if (st == APS_OK)
        st = aps_json_reader_finish(&r, &err);
    /* what could not be passed over (the top value, bad text) ends the list */
    if (st != APS_OK) {
        /* the only error: in the decoder's words (collecting reads bad text by another path, which
           may word the same fault otherwise) */
        aps_error exact = APS_ERROR_INIT;
        if (c.first == APS_OK && aps_schema_priv_decode_exact(type, json, len, arena, out, options, &exact) != APS_OK) {
            err = exact;
            st = exact.code;
        }
        if (err.code == APS_OK)
            aps_error_set(&err, st, SIZE_MAX, "%s", aps_status_str(st));
        on_error(user, &err);
        return c.first != APS_OK ? c.first : st;
    }
    return c.first;
}
