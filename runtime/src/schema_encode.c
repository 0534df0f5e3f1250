/*
 * schema_encode.c - writes C values described by apr_type descriptors as
 * compact JSON (see apr_schema.h).
 */
#include "schema_internal.h"

#include <string.h>

typedef struct ectx {
    apr_json_writer *w;
    apr_key_case key_case;
    size_t depth;
} ectx;

static apr_status encode(ectx *c, const apr_type *t, const void *value);

static void put_literal(apr_json_writer *w, const apr_literal *lit)
{
    switch (lit->kind) {
    case APR_LIT_TEXT: apr_json_write_string(w, lit->text, lit->len); break;
    case APR_LIT_INT: apr_json_write_int64(w, lit->i); break;
    case APR_LIT_UINT: apr_json_write_uint64(w, lit->u); break;
    case APR_LIT_FLOAT: apr_json_write_double(w, lit->f); break;
    case APR_LIT_BOOL: apr_json_write_bool(w, lit->i != 0); break;
    case APR_LIT_NULL: apr_json_write_null(w); break;
    }
}

static apr_status put_raw(ectx *c, const apr_json_raw *raw)
{
    if (raw->ptr == NULL || raw->len == 0)
        return APR_E_ARGUMENT;
    apr_json_write_raw(c->w, *raw);
    return APR_OK;
}

static apr_status put_fields(ectx *c, const apr_field *f, size_t n, const char *base)
{
    apr_json_writer *w = c->w;
    bool snake = c->key_case == APR_CASE_SNAKE;
    size_t i;
    apr_status st;
    for (i = 0; i < n; i++) {
        unsigned fl = f[i].flags;
        const char *key = snake && f[i].snake != NULL ? f[i].snake : f[i].key;
        if ((fl & APR_F_OPTIONAL) && !*APR_CAT(base, f[i].present_offset, bool))
            continue;
        apr_json_write_key(w, key, strlen(key));
        if ((fl & APR_F_NULLABLE) && *APR_CAT(base, f[i].null_offset, bool))
            apr_json_write_null(w);
        else if (fl & APR_F_LITERAL)
            put_literal(w, &f[i].type->u.lit);
        else if ((st = encode(c, f[i].type, base + f[i].offset)) != APR_OK)
            return st;
    }
    return APR_OK;
}

static apr_status encode_struct(ectx *c, const apr_type *t, const char *base)
{
    apr_json_writer *w = c->w;
    const apr_type *vt = t->u.st.variants;
    const char *vbase = NULL;
    int kind = 0;
    apr_status st;
    size_t i;
    if (vt != NULL) {
        vbase = base + t->u.st.variants_offset;
        kind = *APR_CAT(vbase, vt->u.un.kind_offset, int);
        if (kind < 0 || (size_t)kind > vt->u.un.nalts)
            return APR_E_ARGUMENT;
        /* An unknown variant goes out as it came in, envelope included. */
        if (kind == 0)
            return put_raw(c, APR_CAT(vbase, vt->u.un.raw_offset, apr_json_raw));
    }
    apr_json_write_object_begin(w);
    if ((st = put_fields(c, t->u.st.fields, t->u.st.nfields, base)) != APR_OK)
        return st;
    if (vt != NULL) {
        const apr_type *alt = vt->u.un.alts[kind - 1];
        if (alt->kind != APR_K_STRUCT)
            return APR_E_ARGUMENT;
        if ((st = put_fields(c, alt->u.st.fields, alt->u.st.nfields, vbase + vt->u.un.payload_offset)) != APR_OK)
            return st;
    }
    if (t->u.st.open) {
        const apr_json_members *x = APR_CAT(base, t->u.st.extras_offset, apr_json_members);
        for (i = 0; i < x->count; i++) {
            apr_json_write_key(w, x->items[i].key.ptr, x->items[i].key.len);
            if ((st = put_raw(c, &x->items[i].value)) != APR_OK)
                return st;
        }
    }
    apr_json_write_object_end(w);
    return apr_json_writer_status(w);
}

static apr_status encode_array(ectx *c, const apr_type *t, const apr_array *a)
{
    const apr_type *et = t->u.arr.elem;
    size_t i;
    apr_status st;
    apr_json_write_array_begin(c->w);
    for (i = 0; i < a->count; i++) {
        if (et->kind == APR_K_LITERAL)
            put_literal(c->w, &et->u.lit);
        else if ((st = encode(c, et, (const char *)a->items + i * et->size)) != APR_OK)
            return st;
    }
    apr_json_write_array_end(c->w);
    return apr_json_writer_status(c->w);
}

static apr_status encode_map(ectx *c, const apr_type *t, const apr_array *a)
{
    size_t i, es = t->u.map.entry_size;
    apr_status st;
    apr_json_write_object_begin(c->w);
    for (i = 0; i < a->count; i++) {
        const char *e = (const char *)a->items + i * es;
        const apr_slice *key = (const apr_slice *)(const void *)e;
        apr_json_write_key(c->w, key->ptr, key->len);
        if ((st = encode(c, t->u.map.value, e + t->u.map.value_offset)) != APR_OK)
            return st;
    }
    apr_json_write_object_end(c->w);
    return apr_json_writer_status(c->w);
}

static apr_status encode_union(ectx *c, const apr_type *t, const char *base)
{
    int kind = *APR_CAT(base, t->u.un.kind_offset, int);
    if (kind < 0 || (size_t)kind > t->u.un.nalts)
        return APR_E_ARGUMENT;
    if (kind == 0)
        return put_raw(c, APR_CAT(base, t->u.un.raw_offset, apr_json_raw));
    return encode(c, t->u.un.alts[kind - 1], base + t->u.un.payload_offset);
}

static apr_status encode_nested(ectx *c, const apr_type *t, const void *value)
{
    apr_status st;
    if (++c->depth > APR_SCHEMA_MAX_DEPTH)
        return APR_E_DEPTH;
    switch (t->kind) {
    case APR_K_STRUCT: st = encode_struct(c, t, (const char *)value); break;
    case APR_K_ARRAY: st = encode_array(c, t, (const apr_array *)value); break;
    case APR_K_MAP: st = encode_map(c, t, (const apr_array *)value); break;
    default: st = encode_union(c, t, (const char *)value); break;
    }
    c->depth--;
    return st;
}

static apr_status encode(ectx *c, const apr_type *t, const void *value)
{
    apr_json_writer *w = c->w;
    switch (t->kind) {
    case APR_K_ANY: return put_raw(c, (const apr_json_raw *)value);
    case APR_K_BOOL: apr_json_write_bool(w, *(const bool *)value); return APR_OK;
    case APR_K_INT: apr_json_write_int64(w, *(const int64_t *)value); return APR_OK;
    case APR_K_UINT: apr_json_write_uint64(w, *(const uint64_t *)value); return APR_OK;
    case APR_K_FLOAT: apr_json_write_double(w, *(const double *)value); return APR_OK;
    case APR_K_TEXT: {
        const apr_slice *s = (const apr_slice *)value;
        apr_json_write_string(w, s->ptr, s->len);
        return APR_OK;
    }
    case APR_K_LITERAL: put_literal(w, &t->u.lit); return APR_OK;
    case APR_K_ENUM: {
        int k = *(const int *)value;
        if (k > 0 && (size_t)k <= t->u.enm.count) {
            const apr_literal *lit = &t->u.enm.values[k - 1];
            apr_json_write_string(w, lit->text, lit->len);
        } else if (k == 0 && t->u.enm.other != NULL) {
            const apr_slice *s = APR_CAT(value, t->u.enm.other_offset, apr_slice);
            apr_json_write_string(w, s->ptr, s->len);
        } else {
            return APR_E_ARGUMENT;
        }
        return APR_OK;
    }
    case APR_K_STRUCT:
    case APR_K_ARRAY:
    case APR_K_MAP:
    case APR_K_UNION:
        return encode_nested(c, t, value);
    }
    return APR_E_ARGUMENT;
}

apr_status apr_schema_encode(const apr_type *type, const void *value, apr_json_writer *w,
                             const apr_encode_options *options)
{
    ectx c;
    apr_status st;
    if (type == NULL || w == NULL || (value == NULL && type->size != 0))
        return APR_E_ARGUMENT;
    c.w = w;
    c.key_case = options != NULL ? options->key_case : APR_CASE_SCHEMA;
    c.depth = 0;
    st = encode(&c, type, value);
    return st != APR_OK ? st : apr_json_writer_status(w);
}
