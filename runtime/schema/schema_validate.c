/*
 * schema_validate.c - checks C values against their aps_type descriptors
 * (see aps/schema.h). The constraint checks and messages it shares with the
 * decoder are in schema_checks.c.
 */
#include "aps/json_impl.h"
#include "schema_internal.h"

#include "aps/fast.h"
#include "aps/utf8.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- the validator ---------------------------------------------------------- */

/*
 * Validation usually succeeds, so the walk only tests and returns: messages
 * and the JSON Pointer are made only on failure, in APS_NOINLINE helpers, so
 * that the functions a valid value goes through keep small frames.
 */

/* One step of the path to the failing value: a member name, or (key NULL) an index. */
typedef struct vseg {
    const char *key;
    size_t n;                           /* the key's length (SIZE_MAX: NUL-terminated), or the index */
} vseg;

typedef struct vctx {
    aps_error *err;
    bool strict;
    bool failed;                        /* this run wrote err: collect the path */
    bool any_later;                     /* `any` values are checked as they are written (aps_fast_put_table) */
    size_t nseg;
    /* The path of a failure, innermost step first: each level adds its step
     * as the failure returns through it, and aps_schema_validate writes the
     * JSON Pointer at the end. Checking a valid value records nothing. */
    vseg seg[APS_SCHEMA_MAX_DEPTH + 8];
} vctx;

static APS_NOINLINE aps_status check_struct(vctx *v, const aps_type *t, const char *base, size_t depth);
static APS_NOINLINE aps_status check_array(vctx *v, const aps_type *t, const aps_array *a, size_t depth);
static APS_NOINLINE aps_status check_map(vctx *v, const aps_type *t, const aps_array *a, size_t depth);
static APS_NOINLINE aps_status check_union(vctx *v, const aps_type *t, const char *base, size_t depth);
static APS_NOINLINE aps_status check_entries(vctx *v, const aps_type *t, const char *base, size_t depth);

/* Writes the RFC 6901 pointer of the collected path into out[cap] ("~" and "/" escaped, cut at the end). */
static void format_path(const vctx *v, char *out, size_t cap)
{
    size_t i, n = 0;
    for (i = v->nseg; i > 0 && n + 1 < cap; i--) {
        const vseg *sg = &v->seg[i - 1];
        out[n++] = '/';
        if (sg->key == NULL) {
            int w = snprintf(out + n, cap - n, "%zu", sg->n);
            n += w > 0 ? (size_t)w : 0;
            if (n >= cap)
                n = cap - 1;
        } else {
            size_t len = sg->n == SIZE_MAX ? strlen(sg->key) : sg->n, k;
            for (k = 0; k < len && n + 2 < cap; k++) {
                char c = sg->key[k];
                if (c == '~' || c == '/') {
                    out[n++] = '~';
                    out[n++] = c == '~' ? '0' : '1';
                } else {
                    out[n++] = c;
                }
            }
        }
    }
    out[n < cap ? n : cap - 1] = '\0';
}

static aps_status validate_fail(vctx *v, aps_status code, const char *fmt, ...) APS_PRINTF(3, 4);

/* Records the first failure's message; its path is collected on the way out (see vctx). */
static APS_NOINLINE aps_status validate_fail(vctx *v, aps_status code, const char *fmt, ...)
{
    char msg[APS_ERROR_MESSAGE_MAX];
    va_list ap;
    if (v->err == NULL || v->err->code != APS_OK)
        return code;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    aps_error_set(v->err, code, SIZE_MAX, "%s", msg);
    v->failed = true;
    v->nseg = 0;
    return code;
}

/*
 * Adds the step to member `key` (`len` bytes, SIZE_MAX: NUL-terminated), or
 * to index `len` when key is NULL, to the path of the failure `st` leaving
 * this level; returns st.
 */
static APS_NOINLINE aps_status step(vctx *v, aps_status st, const char *key, size_t len)
{
    if (v->failed && v->nseg < sizeof v->seg / sizeof v->seg[0]) {
        v->seg[v->nseg].key = key;
        v->seg[v->nseg].n = len;
        v->nseg++;
    }
    return st;
}

/* Size bounds and pattern of a string, when aps_schema_priv_text_constrained says they need a look. */
static APS_NOINLINE aps_status check_text_constraints(vctx *v, const aps_type *t, const aps_slice *s)
{
    char msg[APS_ERROR_MESSAGE_MAX];
    aps_status st = aps_schema_priv_check_text(t, s->ptr, s->len, msg, sizeof msg);
    return st == APS_OK ? APS_OK : validate_fail(v, st, "%s", msg);
}

/*
 * A byte string: its size bounds. Embedded CBOR (`.cbor T`) is checked when
 * decoded, not here: this check allocates nothing and reads no CBOR.
 */
static aps_status check_bytes(vctx *v, const aps_type *t, const aps_slice *s)
{
    if (s->ptr == NULL && s->len != 0)
        return validate_fail(v, APS_E_ARGUMENT, "byte string of %zu bytes with a NULL pointer", s->len);
    if (s->len < t->u.bytes.min_len || s->len > t->u.bytes.max_len)
        return validate_fail(v, APS_E_RANGE, "expected a byte string of %zu to %zu bytes; got %zu",
                             t->u.bytes.min_len, t->u.bytes.max_len, s->len);
    return APS_OK;
}

static aps_status check_text(vctx *v, const aps_type *t, const aps_slice *s)
{
    size_t bad;
    if (APS_UNLIKELY(s->ptr == NULL && s->len != 0))
        return validate_fail(v, APS_E_ARGUMENT, "string of %zu bytes with a NULL pointer", s->len);
    if (APS_UNLIKELY((bad = aps_utf8_check((const uint8_t *)s->ptr, s->len)) != SIZE_MAX))
        return validate_fail(v, APS_E_UTF8, "invalid UTF-8 at byte %zu of the string", bad);
    if (t != NULL && aps_schema_priv_text_constrained(t, s->len))
        return check_text_constraints(v, t, s);
    return APS_OK;
}

static APS_NOINLINE aps_status check_raw(vctx *v, const aps_json_raw *raw)
{
    aps_error e = APS_ERROR_INIT;
    if (raw->ptr == NULL || raw->len == 0)
        return validate_fail(v, APS_E_MISSING, "no JSON value");
    if (aps_json_validate(raw->ptr, raw->len, NULL, &e) != APS_OK)
        return validate_fail(v, e.code, "not one valid JSON value: %s", e.message);
    return APS_OK;
}

static aps_status check_count(vctx *v, size_t n, size_t min, size_t max, const char *what)
{
    if (n < min)
        return validate_fail(v, APS_E_RANGE, "expected at least %zu %s%s; got %zu", min, what,
                     min == 1 ? "" : "s", n);
    if (n > max)
        return validate_fail(v, APS_E_RANGE, "expected at most %zu %s%s; got %zu", max, what,
                     max == 1 ? "" : "s", n);
    return APS_OK;
}

/* An integer outside its range (APS_K_INT or APS_K_UINT). */
static APS_NOINLINE aps_status int_range_fail(vctx *v, const aps_type *t, const void *value)
{
    char msg[APS_ERROR_MESSAGE_MAX], got[40];
    int n = t->kind == APS_K_UINT
                ? snprintf(got, sizeof got, "%llu", (unsigned long long)*(const uint64_t *)value)
                : snprintf(got, sizeof got, "%lld", (long long)*(const int64_t *)value);
    aps_schema_priv_int_range(msg, sizeof msg, t, got, (size_t)n);
    return validate_fail(v, APS_E_RANGE, "%s", msg);
}

static APS_NOINLINE aps_status check_float(vctx *v, const aps_type *t, double x)
{
    char msg[APS_ERROR_MESSAGE_MAX];
    aps_status st;
    if (!isfinite(x))
        return validate_fail(v, APS_E_RANGE, "not a finite number");
    if ((st = aps_schema_priv_check_float(t, x, msg, sizeof msg)) != APS_OK)
        return validate_fail(v, st, "%s", msg);
    return APS_OK;
}

/* An enum kind out of range, or 0: a value outside the list, kept as text. */
static APS_NOINLINE aps_status check_enum_other(vctx *v, const aps_type *t, const void *value)
{
    int k = *(const int *)value;
    const aps_slice *s = APS_CAT(value, t->u.enm.other_offset, aps_slice);
    aps_status st;
    size_t i;
    if (k != 0)
        return validate_fail(v, APS_E_ARGUMENT, "enum kind %d is out of range 0..%zu", k, t->u.enm.count);
    if (t->u.enm.other == NULL)
        return validate_fail(v, APS_E_UNKNOWN, "no value of %s chosen (kind 0)",
                     t->name != NULL ? t->name : "the enumeration");
    if ((st = check_text(v, t->u.enm.other, s)) != APS_OK)
        return st;
    if ((i = (size_t)aps_schema_enum_find(t, s->ptr, s->len)) > 0)
        return validate_fail(v, APS_E_ARGUMENT, "other value equal to listed value %zu", i);
    return APS_OK;
}

static inline aps_status check(vctx *v, const aps_type *t, const void *value, size_t depth);

/* A struct, array, map or union that is the depth-th typed container of the path. */
static inline aps_status check_nested(vctx *v, const aps_type *t, const void *value, size_t depth)
{
    if (depth > APS_SCHEMA_MAX_DEPTH)
        return validate_fail(v, APS_E_DEPTH, "typed values nested deeper than %d levels", APS_SCHEMA_MAX_DEPTH);
    switch (t->kind) {
    case APS_K_STRUCT: return check_struct(v, t, (const char *)value, depth);
    case APS_K_ARRAY: return check_array(v, t, (const aps_array *)value, depth);
    case APS_K_MAP: return check_map(v, t, (const aps_array *)value, depth);
    case APS_K_TAG: return check(v, t->u.tag.content, value, depth);
    case APS_K_TUPLE: return check_entries(v, t, (const char *)value, depth);
    default: return check_union(v, t, (const char *)value, depth);
    }
}

/*
 * One value of any type, inside `depth` typed containers. Scalars are tested
 * right here, with no frame to set up; containers go on to their own
 * functions, so only they pay for one. The depth travels as an argument, not
 * as a counter in vctx, which leaves nothing to undo after a call: the calls
 * from one level to the next are tail calls.
 */
static inline aps_status check(vctx *v, const aps_type *t, const void *value, size_t depth)
{
    switch (t->kind) {
    case APS_K_ANY:
        if (v->any_later && ((const aps_json_raw *)value)->ptr != NULL && ((const aps_json_raw *)value)->len != 0)
            return APS_OK;
        return check_raw(v, (const aps_json_raw *)value);
    case APS_K_BOOL:
    case APS_K_LITERAL:
        return APS_OK;
    case APS_K_INT: {
        int64_t x = *(const int64_t *)value;
        return x < t->u.i.min || x > t->u.i.max ? int_range_fail(v, t, value) : APS_OK;
    }
    case APS_K_UINT: {
        uint64_t x = *(const uint64_t *)value;
        return x < t->u.u.min || x > t->u.u.max || (x & t->u.u.forbidden_bits) != 0 ? int_range_fail(v, t, value) : APS_OK;
    }
    case APS_K_FLOAT:
        return check_float(v, t, *(const double *)value);
    case APS_K_TEXT:
        return check_text(v, t, (const aps_slice *)value);
    case APS_K_ENUM: {
        int k = *(const int *)value;
        return k > 0 && (size_t)k <= t->u.enm.count ? APS_OK : check_enum_other(v, t, value);
    }
    case APS_K_STRUCT:
    case APS_K_ARRAY:
    case APS_K_MAP:
    case APS_K_UNION:
    case APS_K_TAG:
    case APS_K_TUPLE:
        return check_nested(v, t, value, depth + 1);
    case APS_K_BYTES:
        return check_bytes(v, t, (const aps_slice *)value);
    }
    return validate_fail(v, APS_E_ARGUMENT, "malformed type descriptor");
}

static APS_NOINLINE aps_status check_array(vctx *v, const aps_type *t, const aps_array *a, size_t depth)
{
    const aps_type *et = t->u.arr.elem;
    size_t i;
    aps_status st;
    if ((st = check_count(v, a->count, t->u.arr.min, t->u.arr.max, "element")) != APS_OK)
        return st;
    if (a->count != 0 && a->items == NULL && et->size != 0)
        return validate_fail(v, APS_E_ARGUMENT, "%zu elements with a NULL pointer", a->count);
    for (i = 0; i < a->count; i++) {
        /* elements of no size (literals: `["test3"]`) may have no storage at all */
        const char *e = a->items != NULL ? (const char *)a->items + i * et->size : NULL;
        if ((st = check(v, et, e, depth)) != APS_OK)
            return step(v, st, NULL, i);
    }
    return APS_OK;
}

static APS_NOINLINE aps_status check_map(vctx *v, const aps_type *t, const aps_array *a, size_t depth)
{
    size_t i, es = t->u.map.entry_size;
    aps_status st;
    if ((st = check_count(v, a->count, t->u.map.min, t->u.map.max, "member")) != APS_OK)
        return st;
    if (a->count != 0 && a->items == NULL)
        return validate_fail(v, APS_E_ARGUMENT, "%zu members with a NULL pointer", a->count);
    for (i = 0; i < a->count; i++) {
        const char *e = (const char *)a->items + i * es;
        const aps_slice *key = (const aps_slice *)(const void *)e;
        if ((st = check_text(v, NULL, key)) != APS_OK)
            return st;
        if ((st = check(v, t->u.map.value, e + t->u.map.value_offset, depth)) != APS_OK)
            return step(v, st, key->ptr, key->len);
    }
    return APS_OK;
}

/*
 * Does an unknown member called `key` duplicate a named field whatever the
 * output spelling? Only names spelled alike in both cases do: a decode in
 * one spelling legitimately keeps the other spelling as an unknown member.
 */
static bool names_field(const aps_field *f, size_t n, const aps_slice *key)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const char *k = f[i].key;
        if ((f[i].snake == NULL || f[i].snake == k || strcmp(f[i].snake, k) == 0) &&
            strlen(k) == key->len && memcmp(k, key->ptr, key->len) == 0)
            return true;
    }
    return false;
}

/*
 * Checks a value of the typed tail `* text => T` by decoding it into
 * scratch space: its raw JSON, or (`cbor`) the CBOR it was decoded from.
 */
static aps_status check_extra_value(vctx *v, const aps_type *xt, const void *data, size_t len, bool cbor)
{
    union {
        char bytes[2048];
        double align;
    } scratch;
    aps_arena_options ao;
    aps_arena arena;
    aps_error e = APS_ERROR_INIT;
    aps_status st;
    void *out;
    memset(&ao, 0, sizeof ao);
    ao.initial = scratch.bytes;
    ao.initial_size = sizeof scratch.bytes;
    aps_arena_init(&arena, &ao);
    out = aps_arena_alloc(&arena, xt->size != 0 ? xt->size : 1);
    st = out == NULL ? APS_E_NOMEM
         : cbor      ? aps_schema_decode_cbor(xt, data, len, &arena, out, NULL, &e)
                     : aps_schema_decode(xt, (const char *)data, len, &arena, out, NULL, &e);
    aps_arena_deinit(&arena);
    if (st != APS_OK)
        return validate_fail(v, st, "%s", e.message[0] != '\0' ? e.message : aps_status_str(st));
    return APS_OK;
}


/*
 * An unknown member kept from CBOR: its key (when no text) and value are
 * one well-formed item each, the key none of a named member's, the value
 * of the typed tail's type. Its JSON text, when it has one, is checked as
 * any other's; the key's type (`extras_key`) was checked when decoded.
 */
static aps_status check_cbor_extra(vctx *v, const aps_type *t, const aps_type *alt, const aps_json_member *m)
{
    aps_status st;
    if (m->cbor_key.ptr != NULL) {
        if (aps_cbor_validate(m->cbor_key.ptr, m->cbor_key.len, NULL, NULL) != APS_OK)
            return validate_fail(v, APS_E_SYNTAX, "the CBOR key of an unknown member is no well-formed item");
        if (aps_schema_priv_find_keyed(t->u.st.fields, t->u.st.nfields, m->cbor_key) != SIZE_MAX ||
            (alt != NULL && aps_schema_priv_find_keyed(alt->u.st.fields, alt->u.st.nfields, m->cbor_key) != SIZE_MAX))
            return validate_fail(v, APS_E_DUPLICATE, "unknown member with the key of a named one");
    }
    if (m->cbor_value.ptr == NULL) { /* a JSON value: checked as any other's */
        if ((st = check_raw(v, &m->value)) != APS_OK)
            return st;
        return t->u.st.extras_type != NULL
                   ? check_extra_value(v, t->u.st.extras_type, m->value.ptr, m->value.len, false)
                   : APS_OK;
    }
    if (aps_cbor_validate(m->cbor_value.ptr, m->cbor_value.len, NULL, NULL) != APS_OK)
        return validate_fail(v, APS_E_SYNTAX, "the CBOR value of an unknown member is no well-formed item");
    if (m->value.ptr != NULL && m->value.len != 0 && (st = check_raw(v, &m->value)) != APS_OK)
        return st;
    return t->u.st.extras_type != NULL
               ? check_extra_value(v, t->u.st.extras_type, m->cbor_value.ptr, m->cbor_value.len, true)
               : APS_OK;
}

/* The unknown members of an open struct (`alt`: its variant's struct, or NULL). */
static APS_NOINLINE aps_status check_extras(vctx *v, const aps_type *t, const aps_type *alt,
                                           const aps_json_members *x)
{
    size_t i;
    aps_status st;
    if (x->items == NULL)
        return validate_fail(v, APS_E_ARGUMENT, "%zu unknown members with a NULL pointer", x->count);
    for (i = 0; i < x->count; i++) {
        const aps_json_member *m = &x->items[i];
        if ((st = check_text(v, NULL, &m->key)) != APS_OK)
            return st;
        if (m->cbor_key.ptr == NULL && (names_field(t->u.st.fields, t->u.st.nfields, &m->key) ||
                                        (alt != NULL && names_field(alt->u.st.fields, alt->u.st.nfields, &m->key))))
            st = validate_fail(v, APS_E_DUPLICATE, "unknown member with the name of a named one");
        else if (m->cbor_key.ptr != NULL || m->cbor_value.ptr != NULL)
            st = check_cbor_extra(v, t, alt, m);
        else if ((st = check_raw(v, &m->value)) == APS_OK && t->u.st.extras_type != NULL)
            st = check_extra_value(v, t->u.st.extras_type, m->value.ptr, m->value.len, false);
        if (st != APS_OK)
            return step(v, st, m->key.ptr, m->key.len);
    }
    return APS_OK;
}

static aps_status check_fields(vctx *v, const aps_field *f, size_t n, const char *base, size_t depth)
{
    size_t i;
    aps_status st;
    for (i = 0; i < n; i++) {
        unsigned fl = f[i].flags;
        if (fl & APS_F_LITERAL)
            continue;
        if ((fl & APS_F_OPTIONAL) && !*APS_CAT(base, f[i].present_offset, bool))
            continue;
        if ((fl & APS_F_NULLABLE) && *APS_CAT(base, f[i].null_offset, bool))
            continue;
        if ((st = check(v, f[i].type, base + f[i].offset, depth)) != APS_OK)
            return step(v, st, f[i].key, SIZE_MAX);
    }
    return APS_OK;
}

/* check_kind's other cases: a kind out of range, or 0 (unknown). */
static APS_NOINLINE aps_status check_unknown_kind(vctx *v, const aps_type *u, const char *base, int kind)
{
    const aps_json_raw *raw = APS_CAT(base, u->u.un.raw_offset, aps_json_raw);
    aps_status st;
    if (kind != 0)
        return validate_fail(v, APS_E_ARGUMENT, "union kind %d is out of range 0..%zu", kind, u->u.un.nalts);
    if (u->u.un.cls != APS_U_DISCRIMINATED)
        return validate_fail(v, APS_E_ARGUMENT, "no alternative of %s chosen (kind 0)",
                     u->name != NULL ? u->name : "the choice");
    if (v->strict)
        st = validate_fail(v, APS_E_UNKNOWN, "unknown variant of %s", u->name != NULL ? u->name : "the choice");
    else if (raw->ptr == NULL || raw->len == 0)
        st = validate_fail(v, APS_E_ARGUMENT, "unknown variant without its raw JSON");
    else
        return check_raw(v, raw);
    return step(v, st, u->u.un.disc_key, SIZE_MAX);
}

/* Kind in range; kind 0 (unknown) is an error when strict or when nothing was kept of it. */
static aps_status check_kind(vctx *v, const aps_type *u, const char *base, int *kind)
{
    *kind = *APS_CAT(base, u->u.un.kind_offset, int);
    if (APS_LIKELY(*kind > 0 && (size_t)*kind <= u->u.un.nalts))
        return APS_OK;
    return check_unknown_kind(v, u, base, *kind);
}

static APS_NOINLINE aps_status check_struct(vctx *v, const aps_type *t, const char *base, size_t depth)
{
    const aps_type *vt = t->u.st.variants, *alt = NULL;
    aps_status st;
    if ((st = check_fields(v, t->u.st.fields, t->u.st.nfields, base, depth)) != APS_OK)
        return st;
    if (vt != NULL) {
        const char *vbase = base + t->u.st.variants_offset;
        int kind;
        if ((st = check_kind(v, vt, vbase, &kind)) != APS_OK)
            return st;
        if (kind > 0) {
            alt = vt->u.un.alts[kind - 1];
            if (alt->kind != APS_K_STRUCT)
                return validate_fail(v, APS_E_ARGUMENT, "variant %d is no struct", kind);
            if ((st = check_struct(v, alt, vbase + vt->u.un.payload_offset, depth)) != APS_OK)
                return st;
        }
    }
    if (t->u.st.open) {
        const aps_json_members *x = APS_CAT(base, t->u.st.extras_offset, aps_json_members);
        if ((st = check_count(v, x->count, t->u.st.extras_min, t->u.st.extras_max ? t->u.st.extras_max : SIZE_MAX,
                              "extra member")) != APS_OK)
            return st;
        if (x->count != 0)
            return check_extras(v, t, alt, x);
    }
    return APS_OK;
}

/*
 * The entries of a positional array or of a group in one: each present
 * entry's value; a repeated entry's count; in a choice of groups, the
 * alternative chosen. The path names the entry by its label or position.
 */
static APS_NOINLINE aps_status check_entries(vctx *v, const aps_type *t, const char *base, size_t depth)
{
    size_t i;
    aps_status st;
    for (i = 0; i < t->u.st.nfields; i++) {
        const aps_field *f = &t->u.st.fields[i];
        if ((f->flags & APS_F_LITERAL) || ((f->flags & APS_F_OPTIONAL) && !*APS_CAT(base, f->present_offset, bool)))
            continue;
        if ((st = check(v, f->type, base + f->offset, depth)) != APS_OK)
            return step(v, st, f->key, SIZE_MAX);
    }
    return APS_OK;
}

static APS_NOINLINE aps_status check_union(vctx *v, const aps_type *t, const char *base, size_t depth)
{
    int kind;
    aps_status st = check_kind(v, t, base, &kind);
    if (st != APS_OK || kind == 0)
        return st;
    return check(v, t->u.un.alts[kind - 1], base + t->u.un.payload_offset, depth);
}

bool aps_fast_utf8_check(const char *s, size_t n)
{
    return aps_utf8_check((const uint8_t *)s, n) == SIZE_MAX;
}

bool aps_fast_text_ok(const aps_type *t, const aps_slice *s)
{
    vctx v;
    memset(&v, 0, offsetof(vctx, seg));
    return check_text(&v, t, s) == APS_OK;
}

bool aps_fast_any_ok(const aps_json_raw *raw)
{
    return raw->ptr != NULL && raw->len != 0 && aps_json_validate(raw->ptr, raw->len, NULL, NULL) == APS_OK;
}

bool aps_fast_put_any_checked(aps_json_writer *w, const aps_json_raw *raw)
{
    const char *end;
    if (raw->ptr == NULL || raw->len == 0)
        return false;
    end = raw->ptr + raw->len;
    /* The room aps_json_validate gives (its default depth): the same verdicts. */
    if (aps_json_impl_skip_compact(raw->ptr, end, APS_JSON_MAX_DEPTH_DEFAULT) == end)
        return aps_json_impl_put(w, raw->ptr, raw->len) != 0;
    return aps_fast_any_ok(raw) && aps_json_impl_put_raw(w, *raw) != 0;
}

bool aps_fast_extras_ok(const aps_type *t, const aps_json_members *x)
{
    vctx v;
    memset(&v, 0, offsetof(vctx, seg));
    return check_extras(&v, t, NULL, x) == APS_OK;
}

bool aps_schema_priv_valid_any_later(const aps_type *t, const void *value, unsigned depth)
{
    vctx v;
    memset(&v, 0, offsetof(vctx, seg));
    v.any_later = true;
    return check(&v, t, value, depth) == APS_OK;
}

bool aps_fast_valid(const aps_type *t, const void *value, bool strict, unsigned depth)
{
    vctx v;
    memset(&v, 0, offsetof(vctx, seg));
    v.strict = strict;
    return check(&v, t, value, depth) == APS_OK;
}

aps_status aps_schema_priv_validate_tables(const aps_type *type, const void *value, bool strict, aps_error *err)
{
    vctx v;
    aps_status st;
    v.err = err;
    v.strict = strict;
    v.failed = false;
    v.any_later = false;
    v.nseg = 0;
    st = check(&v, type, value, 0);
    if (v.failed) {
        char path[APS_ERROR_POINTER_MAX];
        format_path(&v, path, sizeof path);
        aps_error_set_pointer(err, path);
    }
    return st;
}

aps_status aps_schema_validate(const aps_type *type, const void *value, bool strict, aps_error *err)
{
    aps_error_clear(err);
    if (type == NULL || (value == NULL && type->size != 0))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no type or value");
    /* A generated validator answers "valid" in one pass; anything else is
     * the tables' to decide, with the message and the JSON Pointer. */
    if (type->valid != NULL && type->valid(value, strict, 0))
        return APS_OK;
    return aps_schema_priv_validate_tables(type, value, strict, err);
}
