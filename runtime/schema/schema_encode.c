/*
 * schema_encode.c - writes C values described by aps_type descriptors as
 * compact JSON (see aps/schema.h).
 *
 * The value is accounted for once in the writer's state (a comma, the
 * member it is the value of); everything inside it is written straight into
 * the writer's buffer with the writer's own primitives (aps/json_impl.h).
 * The descriptors already say where every comma, colon and bracket goes, so
 * the state machine of the public write calls would only repeat it, at a
 * call and a state check per value. Any failure is left in the writer, so a
 * value cut short never passes for a finished text.
 *
 * Types that cddlgen gave a straight-line encoder (aps_type.write) are
 * written by it first, with the checks folded into the one pass; whatever
 * it gives up on is rolled back and written here, after the validator.
 */
#include "aps/fast.h"
#include "aps/json_impl.h"
#include "schema_internal.h"

#include <string.h>

typedef struct ectx {
    aps_json_writer *w;
    bool snake;
    size_t depth;      /* typed nesting, against APS_SCHEMA_MAX_DEPTH */
    size_t containers; /* open arrays and objects, the writer's own included */
    bool check_any;    /* `any` values are checked here, as they are written (aps_fast_put_table) */
} ectx;

static aps_status encode(ectx *c, const aps_type *t, const void *value);

/* Every helper below returns APS_OK or the failure, which stops the encoding. */

static aps_status put_literal(aps_json_writer *w, const aps_literal *lit)
{
    int ok = 0;
    switch (lit->kind) {
    case APS_LIT_TEXT: ok = aps_json_impl_put_string(w, lit->text, lit->len); break;
    case APS_LIT_INT: ok = aps_json_impl_put_int(w, lit->i); break;
    case APS_LIT_UINT: ok = aps_json_impl_put_uint(w, lit->u, 0); break;
    case APS_LIT_FLOAT: ok = aps_json_impl_put_double(w, lit->f); break;
    case APS_LIT_BOOL: ok = aps_json_impl_put_bool(w, lit->i != 0); break;
    case APS_LIT_NULL: ok = aps_json_impl_put(w, "null", 4); break;
    case APS_LIT_UNDEFINED:
    case APS_LIT_BYTES: return APS_E_TYPE; /* no JSON form (CBOR only) */
    }
    return ok ? APS_OK : w->status;
}

static aps_status put_raw(aps_json_writer *w, const aps_json_raw *raw)
{
    if (raw->ptr == NULL || raw->len == 0)
        return APS_E_ARGUMENT;
    return aps_json_impl_put_raw(w, *raw) ? APS_OK : w->status;
}

/*
 * One unknown member, name and value. One decoded from CBOR may have no
 * JSON form: a key that is neither text nor an integer (an integer is its
 * decimal text, RFC 8949 6.1), a value that is a byte string or a tag.
 * Such a member is APS_E_TYPE, as every CBOR-only value: nothing is made up.
 */
static aps_status put_member(aps_json_writer *w, const aps_json_member *m, bool comma)
{
    char num[24];
    aps_slice name;
    if (!aps_schema_priv_member_name(m, num, sizeof num, &name) ||
        (m->cbor_value.ptr != NULL && (m->value.ptr == NULL || m->value.len == 0)))
        return APS_E_TYPE;
    if (!aps_json_impl_put_key(w, name.ptr, name.len, comma))
        return w->status;
    return put_raw(w, &m->value);
}

/* Opens an array or object (`open` is '[' or '{'), within the writer's depth limit. */
static aps_status open_container(ectx *c, char open)
{
    if (c->containers >= APS_JSON_WRITER_MAX_DEPTH) {
        aps_json_impl_fail(c->w, APS_E_DEPTH);
        return APS_E_DEPTH;
    }
    c->containers++;
    return aps_json_impl_put_byte(c->w, open) ? APS_OK : c->w->status;
}

static aps_status close_container(ectx *c, char close)
{
    c->containers--;
    return aps_json_impl_put_byte(c->w, close) ? APS_OK : c->w->status;
}

/*
 * Writes the present members of f[0..n) of the struct at base, each after
 * a comma unless it is the object's first: the object's members start at
 * buffer offset `first`.
 */
static aps_status put_fields(ectx *c, const aps_field *f, size_t n, const char *base, size_t first)
{
    aps_json_writer *w = c->w;
    size_t i;
    aps_status st;
    for (i = 0; i < n; i++) {
        unsigned fl = f[i].flags;
        bool snake = c->snake && f[i].snake != NULL;
        if ((fl & APS_F_OPTIONAL) && !*APS_CAT(base, f[i].present_offset, bool))
            continue;
        if (!aps_json_impl_put_key(w, snake ? f[i].snake : f[i].key, snake ? f[i].snake_len : f[i].key_len,
                                   w->len != first))
            return w->status;
        if ((fl & APS_F_NULLABLE) && *APS_CAT(base, f[i].null_offset, bool))
            st = aps_json_impl_put(w, "null", 4) ? APS_OK : w->status;
        else if (fl & APS_F_LITERAL)
            st = put_literal(w, &f[i].type->u.lit);
        else
            st = encode(c, f[i].type, base + f[i].offset);
        if (st != APS_OK)
            return st;
    }
    return APS_OK;
}

static aps_status encode_struct(ectx *c, const aps_type *t, const char *base)
{
    aps_json_writer *w = c->w;
    const aps_type *vt = t->u.st.variants;
    const char *vbase = NULL;
    int kind = 0;
    aps_status st;
    size_t i, first;
    if (vt != NULL) {
        vbase = base + t->u.st.variants_offset;
        kind = *APS_CAT(vbase, vt->u.un.kind_offset, int);
        if (kind < 0 || (size_t)kind > vt->u.un.nalts)
            return APS_E_ARGUMENT;
        /* An unknown variant goes out as it came in, envelope included. */
        if (kind == 0)
            return put_raw(w, APS_CAT(vbase, vt->u.un.raw_offset, aps_json_raw));
    }
    if ((st = open_container(c, '{')) != APS_OK)
        return st;
    first = w->len;
    if ((st = put_fields(c, t->u.st.fields, t->u.st.nfields, base, first)) != APS_OK)
        return st;
    if (vt != NULL) {
        const aps_type *alt = vt->u.un.alts[kind - 1];
        if (alt->kind != APS_K_STRUCT)
            return APS_E_ARGUMENT;
        if ((st = put_fields(c, alt->u.st.fields, alt->u.st.nfields, vbase + vt->u.un.payload_offset,
                             first)) != APS_OK)
            return st;
    }
    if (t->u.st.open) {
        const aps_json_members *x = APS_CAT(base, t->u.st.extras_offset, aps_json_members);
        for (i = 0; i < x->count; i++)
            if ((st = put_member(w, &x->items[i], w->len != first)) != APS_OK)
                return st;
    }
    return close_container(c, '}');
}

static aps_status encode_array(ectx *c, const aps_type *t, const aps_array *a)
{
    const aps_type *et = t->u.arr.elem;
    size_t i;
    aps_status st;
    if ((st = open_container(c, '[')) != APS_OK)
        return st;
    for (i = 0; i < a->count; i++) {
        if (i > 0 && !aps_json_impl_put_byte(c->w, ','))
            return c->w->status;
        if (et->kind == APS_K_LITERAL)
            st = put_literal(c->w, &et->u.lit);
        else
            st = encode(c, et, (const char *)a->items + i * et->size);
        if (st != APS_OK)
            return st;
    }
    return close_container(c, ']');
}

static aps_status encode_map(ectx *c, const aps_type *t, const aps_array *a)
{
    size_t i, es = t->u.map.entry_size;
    aps_status st;
    if ((st = open_container(c, '{')) != APS_OK)
        return st;
    for (i = 0; i < a->count; i++) {
        const char *e = (const char *)a->items + i * es;
        const aps_slice *key = (const aps_slice *)(const void *)e;
        if (!aps_json_impl_put_key(c->w, key->ptr, key->len, i > 0))
            return c->w->status;
        if ((st = encode(c, t->u.map.value, e + t->u.map.value_offset)) != APS_OK)
            return st;
    }
    return close_container(c, '}');
}

static aps_status encode_union(ectx *c, const aps_type *t, const char *base)
{
    int kind = *APS_CAT(base, t->u.un.kind_offset, int);
    if (kind < 0 || (size_t)kind > t->u.un.nalts)
        return APS_E_ARGUMENT;
    if (kind == 0)
        return put_raw(c->w, APS_CAT(base, t->u.un.raw_offset, aps_json_raw));
    return encode(c, t->u.un.alts[kind - 1], base + t->u.un.payload_offset);
}

/* One entry's value inside a positional array: its elements, in place when it is a group; *n
 * counts the elements written, for the commas. */
static aps_status put_element(ectx *c, const aps_type *t, const char *v, size_t *n);

static aps_status put_entries(ectx *c, const aps_type *t, const char *base, size_t *n)
{
    size_t i;
    aps_status st;
    for (i = 0; i < t->u.st.nfields; i++) {
        const aps_field *f = &t->u.st.fields[i];
        if ((f->flags & APS_F_OPTIONAL) && !*APS_CAT(base, f->present_offset, bool))
            continue;
        if ((st = put_element(c, f->type, base + f->offset, n)) != APS_OK)
            return st;
    }
    return APS_OK;
}

static aps_status put_element(ectx *c, const aps_type *t, const char *v, size_t *n)
{
    aps_status st = APS_OK;
    size_t i;
    if (!aps_schema_priv_in_place(t)) {
        if ((*n)++ > 0 && !aps_json_impl_put_byte(c->w, ','))
            return c->w->status;
        return t->kind == APS_K_LITERAL ? put_literal(c->w, &t->u.lit) : encode(c, t, v);
    }
    if (++c->depth > APS_SCHEMA_MAX_DEPTH)
        return APS_E_DEPTH;
    if (t->kind == APS_K_TUPLE) {
        st = put_entries(c, t, v, n);
    } else if (t->kind == APS_K_ARRAY) {
        const aps_array *a = (const aps_array *)(const void *)v;
        for (i = 0; i < a->count && st == APS_OK; i++)
            st = put_element(c, t->u.arr.elem,
                             t->u.arr.elem->size != 0 ? (const char *)a->items + i * t->u.arr.elem->size : NULL, n);
    } else {
        int kind = *APS_CAT(v, t->u.un.kind_offset, int);
        st = kind < 1 || (size_t)kind > t->u.un.nalts
                 ? APS_E_ARGUMENT
                 : put_element(c, t->u.un.alts[kind - 1], v + t->u.un.payload_offset, n);
    }
    c->depth--;
    return st;
}

static aps_status encode_tuple(ectx *c, const aps_type *t, const char *base)
{
    size_t n = 0;
    aps_status st;
    if ((st = open_container(c, '[')) != APS_OK)
        return st;
    if ((st = put_entries(c, t, base, &n)) != APS_OK)
        return st;
    return close_container(c, ']');
}

static aps_status encode_nested(ectx *c, const aps_type *t, const void *value)
{
    aps_status st;
    if (++c->depth > APS_SCHEMA_MAX_DEPTH)
        return APS_E_DEPTH;
    switch (t->kind) {
    case APS_K_STRUCT: st = encode_struct(c, t, (const char *)value); break;
    case APS_K_ARRAY: st = encode_array(c, t, (const aps_array *)value); break;
    case APS_K_MAP: st = encode_map(c, t, (const aps_array *)value); break;
    case APS_K_TAG: st = encode(c, t->u.tag.content, value); break;
    case APS_K_TUPLE: st = encode_tuple(c, t, (const char *)value); break;
    default: st = encode_union(c, t, (const char *)value); break;
    }
    c->depth--;
    return st;
}

static aps_status encode(ectx *c, const aps_type *t, const void *value)
{
    aps_json_writer *w = c->w;
    int ok;
    switch (t->kind) {
    case APS_K_ANY:
        if (c->check_any)
            return aps_fast_put_any_checked(w, (const aps_json_raw *)value) ? APS_OK : APS_E_SYNTAX;
        return put_raw(w, (const aps_json_raw *)value);
    case APS_K_BOOL: ok = aps_json_impl_put_bool(w, *(const bool *)value); break;
    case APS_K_INT: ok = aps_json_impl_put_int(w, *(const int64_t *)value); break;
    case APS_K_UINT: ok = aps_json_impl_put_uint(w, *(const uint64_t *)value, 0); break;
    case APS_K_FLOAT: ok = aps_json_impl_put_double(w, *(const double *)value); break;
    case APS_K_TEXT: {
        const aps_slice *s = (const aps_slice *)value;
        ok = aps_json_impl_put_string(w, s->ptr, s->len);
        break;
    }
    case APS_K_LITERAL: return put_literal(w, &t->u.lit);
    case APS_K_ENUM: {
        int k = *(const int *)value;
        const aps_slice *s;
        if (k > 0 && (size_t)k <= t->u.enm.count) {
            const aps_literal *lit = &t->u.enm.values[k - 1];
            if (lit->kind != APS_LIT_TEXT)
                return put_literal(w, lit);
            ok = aps_json_impl_put_string(w, lit->text, lit->len);
            break;
        }
        if (k != 0 || t->u.enm.other == NULL)
            return APS_E_ARGUMENT;
        s = APS_CAT(value, t->u.enm.other_offset, aps_slice);
        ok = aps_json_impl_put_string(w, s->ptr, s->len);
        break;
    }
    case APS_K_STRUCT:
    case APS_K_ARRAY:
    case APS_K_MAP:
    case APS_K_UNION:
        return encode_nested(c, t, value);
    case APS_K_TAG: /* JSON has no tags: the content alone */
    case APS_K_TUPLE:
        return encode_nested(c, t, value);
    case APS_K_BYTES: /* no JSON form (CBOR only): refused, nothing is made up */
        return APS_E_TYPE;
    default:
        return APS_E_ARGUMENT;
    }
    return ok ? APS_OK : w->status;
}

bool aps_fast_put_table(aps_json_writer *w, const aps_type *t, const void *value, unsigned depth, bool trusted)
{
    ectx c;
    if (!trusted && !aps_schema_priv_valid_any_later(t, value, depth))
        return false;
    c.w = w;
    c.snake = false;
    c.check_any = !trusted;
    c.depth = depth;
    /* every typed level opens at most one container: a bound on those the caller has open */
    c.containers = w->depth + depth;
    return encode(&c, t, value) == APS_OK;
}

bool aps_fast_put_extras(aps_json_writer *w, const aps_type *t, const aps_json_members *x, bool trusted, size_t first)
{
    size_t i;
    if (!trusted && !aps_fast_extras_ok(t, x))
        return false;
    for (i = 0; i < x->count; i++)
        if (put_member(w, &x->items[i], w->len != first) != APS_OK)
            return false;
    return true;
}

/*
 * The generated encoder of `type`, where it has one and the options allow
 * (it writes the schema's spelling): true when it wrote the value. Else
 * the writer is as it was, failure included, for the tables to start over.
 */
static bool encode_generated(const aps_type *type, const void *value, aps_json_writer *w,
                             const aps_encode_options *options)
{
    size_t len = w->len;
    unsigned state = w->state;
    bool trusted = options != NULL && options->trusted;
    if (type->write == NULL || w->status != APS_OK || (options != NULL && options->key_case == APS_CASE_SNAKE) ||
        w->depth + APS_FAST_MAX_TYPED >= APS_JSON_WRITER_MAX_DEPTH)
        return false;
    if (aps_json_impl_before_value(w) && type->write(w, value, 0, trusted))
        return true;
    w->len = len;
    w->state = state;
    w->status = APS_OK;
    return false;
}

aps_status aps_schema_encode(const aps_type *type, const void *value, aps_json_writer *w,
                             const aps_encode_options *options, aps_error *err)
{
    ectx c;
    aps_status st;
    aps_error_clear(err);
    if (type == NULL || w == NULL || (value == NULL && type->size != 0))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no type, writer or value");
    if (encode_generated(type, value, w, options))
        return APS_OK;
    /* The check before the first byte: a value that fails it leaves no
     * half-written member behind, and the validator says where it fails. */
    if ((options == NULL || !options->trusted) && (st = aps_schema_validate(type, value, false, err)) != APS_OK) {
        aps_json_impl_fail(w, st);
        return st;
    }
    if (!aps_json_impl_before_value(w))
        return aps_error_set(err, w->status, SIZE_MAX, "the writer cannot take a value here: %s",
                             aps_status_str(w->status));
    c.w = w;
    c.check_any = false; /* checked above, before the first byte */
    c.snake = options != NULL && options->key_case == APS_CASE_SNAKE;
    c.depth = 0;
    c.containers = w->depth;
    st = encode(&c, type, value);
    /* The writer already counts the value as written: it must not pass for whole. */
    if (st != APS_OK) {
        aps_json_impl_fail(w, st);
        aps_error_set(err, st, SIZE_MAX, "encoding failed: %s", aps_status_str(st));
    }
    return st;
}
