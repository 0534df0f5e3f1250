/*
 * schema_cbor_encode.c - writes C values described by aps_type descriptors
 * as CBOR (see aps/schema.h, aps_schema_encode_cbor).
 *
 * The JSON encoder's walk, with one difference CBOR imposes: a map's head
 * holds its number of entries, so a struct's present members are counted
 * before they are written. What the C types keep as JSON text (`any`
 * values, unknown members, an unknown variant's raw value) is converted
 * with aps_json_to_cbor, except an unknown member decoded from CBOR, whose
 * bytes were kept and are written as they were.
 */
#include "aps/cbor.h"
#include "schema_internal.h"

#include <string.h>

typedef struct cbor_ectx {
    aps_cbor_writer *w;
    aps_arena arena; /* the JSON readers' bookkeeping while converting raw values */
    bool snake;
    size_t depth;
} cbor_ectx;

static aps_status encode(cbor_ectx *c, const aps_type *t, const void *value);

static aps_status status(const cbor_ectx *c)
{
    return aps_cbor_writer_status(c->w);
}

static void put_literal(aps_cbor_writer *w, const aps_literal *lit)
{
    switch (lit->kind) {
    case APS_LIT_TEXT: aps_cbor_write_text(w, lit->text, lit->len); break;
    case APS_LIT_INT: aps_cbor_write_int(w, lit->i); break;
    case APS_LIT_UINT: aps_cbor_write_uint(w, lit->u); break;
    case APS_LIT_FLOAT: aps_cbor_write_float(w, lit->f); break;
    case APS_LIT_BOOL: aps_cbor_write_bool(w, lit->i != 0); break;
    case APS_LIT_NULL: aps_cbor_write_null(w); break;
    case APS_LIT_UNDEFINED: aps_cbor_write_undefined(w); break;
    case APS_LIT_BYTES: aps_cbor_write_bytes(w, lit->text, lit->len); break;
    }
}

/* A JSON text (an `any`, an unknown member or variant) as the CBOR item it converts to. */
static aps_status put_raw(cbor_ectx *c, const aps_json_raw *raw)
{
    aps_json_reader r;
    aps_status st;
    if (raw->ptr == NULL || raw->len == 0)
        return APS_E_ARGUMENT;
    aps_arena_reset(&c->arena);
    aps_json_reader_init(&r, raw->ptr, raw->len, &c->arena, NULL);
    if ((st = aps_json_to_cbor(&r, c->w, NULL)) != APS_OK)
        return st;
    return status(c);
}

/*
 * Can bytes kept from the input be written as they are? Always, except to
 * a deterministic writer, which sorts the maps it writes but not those
 * inside a raw item: the bytes must be deterministic already (RFC 8949
 * 4.2.1), as what a deterministic reader accepted is.
 */
static bool raw_fits(const cbor_ectx *c, aps_cbor_raw raw)
{
    aps_cbor_reader_options o;
    if (!c->w->deterministic)
        return true;
    memset(&o, 0, sizeof o);
    o.deterministic = true;
    return aps_cbor_validate(raw.ptr, raw.len, &o, NULL) == APS_OK;
}

/*
 * One unknown member. What was decoded from CBOR goes out as it came in,
 * key and value, byte for byte. A deterministic writer given kept bytes
 * that are not deterministic converts the value's JSON text instead; a key,
 * or a value with no JSON text, it cannot rewrite: APS_E_TYPE.
 */
static aps_status put_cbor_member(cbor_ectx *c, const aps_json_member *m)
{
    if (m->cbor_key.ptr != NULL) {
        if (!raw_fits(c, m->cbor_key))
            return APS_E_TYPE;
        aps_cbor_write_raw(c->w, m->cbor_key);
    } else {
        aps_cbor_write_text(c->w, m->key.ptr, m->key.len);
    }
    if (m->cbor_value.ptr != NULL && raw_fits(c, m->cbor_value)) {
        aps_cbor_write_raw(c->w, m->cbor_value);
        return status(c);
    }
    if (m->cbor_value.ptr != NULL && (m->value.ptr == NULL || m->value.len == 0))
        return APS_E_TYPE;
    return put_raw(c, &m->value);
}

/* The number of members f[0..n) of the struct at base writes. */
static size_t present(const aps_field *f, size_t n, const char *base)
{
    size_t i, count = 0;
    for (i = 0; i < n; i++)
        if (!(f[i].flags & APS_F_OPTIONAL) || *APS_CAT(base, f[i].present_offset, bool))
            count++;
    return count;
}

static aps_status put_fields(cbor_ectx *c, const aps_field *f, size_t n, const char *base)
{
    size_t i;
    aps_status st;
    for (i = 0; i < n; i++) {
        unsigned fl = f[i].flags;
        bool snake = c->snake && f[i].snake != NULL;
        if ((fl & APS_F_OPTIONAL) && !*APS_CAT(base, f[i].present_offset, bool))
            continue;
        if (f[i].cbor_key != NULL) { /* `1 => T`: the key's canonical bytes */
            aps_cbor_raw k;
            k.ptr = f[i].cbor_key;
            k.len = f[i].cbor_key_len;
            aps_cbor_write_raw(c->w, k);
        } else {
            aps_cbor_write_text(c->w, snake ? f[i].snake : f[i].key, snake ? f[i].snake_len : f[i].key_len);
        }
        if ((fl & APS_F_NULLABLE) && *APS_CAT(base, f[i].null_offset, bool))
            aps_cbor_write_null(c->w);
        else if (fl & APS_F_LITERAL)
            put_literal(c->w, &f[i].type->u.lit);
        else if ((st = encode(c, f[i].type, base + f[i].offset)) != APS_OK)
            return st;
    }
    return status(c);
}

static aps_status encode_struct(cbor_ectx *c, const aps_type *t, const char *base)
{
    const aps_type *vt = t->u.st.variants, *alt = NULL;
    const char *vbase = NULL, *abase = NULL;
    const aps_json_members *x = t->u.st.open ? APS_CAT(base, t->u.st.extras_offset, aps_json_members) : NULL;
    size_t i, count;
    aps_status st;
    if (vt != NULL) {
        int kind;
        vbase = base + t->u.st.variants_offset;
        kind = *APS_CAT(vbase, vt->u.un.kind_offset, int);
        if (kind < 0 || (size_t)kind > vt->u.un.nalts)
            return APS_E_ARGUMENT;
        /* an unknown variant goes out as it came in, envelope included */
        if (kind == 0)
            return put_raw(c, APS_CAT(vbase, vt->u.un.raw_offset, aps_json_raw));
        alt = vt->u.un.alts[kind - 1];
        if (alt->kind != APS_K_STRUCT)
            return APS_E_ARGUMENT;
        abase = vbase + vt->u.un.payload_offset;
    }
    count = present(t->u.st.fields, t->u.st.nfields, base) +
            (alt != NULL ? present(alt->u.st.fields, alt->u.st.nfields, abase) : 0) + (x != NULL ? x->count : 0);
    aps_cbor_write_map_begin(c->w, count);
    if ((st = put_fields(c, t->u.st.fields, t->u.st.nfields, base)) != APS_OK)
        return st;
    if (alt != NULL && (st = put_fields(c, alt->u.st.fields, alt->u.st.nfields, abase)) != APS_OK)
        return st;
    for (i = 0; x != NULL && i < x->count; i++)
        if ((st = put_cbor_member(c, &x->items[i])) != APS_OK)
            return st;
    aps_cbor_write_map_end(c->w);
    return status(c);
}

static aps_status encode_array(cbor_ectx *c, const aps_type *t, const aps_array *a)
{
    const aps_type *et = t->u.arr.elem;
    size_t i;
    aps_status st;
    aps_cbor_write_array_begin(c->w, a->count);
    for (i = 0; i < a->count; i++) {
        if (et->kind == APS_K_LITERAL)
            put_literal(c->w, &et->u.lit);
        else if ((st = encode(c, et, (const char *)a->items + i * et->size)) != APS_OK)
            return st;
    }
    aps_cbor_write_array_end(c->w);
    return status(c);
}

static aps_status encode_map(cbor_ectx *c, const aps_type *t, const aps_array *a)
{
    size_t i, es = t->u.map.entry_size;
    aps_status st;
    aps_cbor_write_map_begin(c->w, a->count);
    for (i = 0; i < a->count; i++) {
        const char *e = (const char *)a->items + i * es;
        const aps_slice *key = (const aps_slice *)(const void *)e;
        aps_cbor_write_text(c->w, key->ptr, key->len);
        if ((st = encode(c, t->u.map.value, e + t->u.map.value_offset)) != APS_OK)
            return st;
    }
    aps_cbor_write_map_end(c->w);
    return status(c);
}

static aps_status encode_union(cbor_ectx *c, const aps_type *t, const char *base)
{
    int kind = *APS_CAT(base, t->u.un.kind_offset, int);
    if (kind < 0 || (size_t)kind > t->u.un.nalts)
        return APS_E_ARGUMENT;
    if (kind == 0)
        return put_raw(c, APS_CAT(base, t->u.un.raw_offset, aps_json_raw));
    return encode(c, t->u.un.alts[kind - 1], base + t->u.un.payload_offset);
}

/* One entry's value inside a positional array: its elements, in place when it is a group. */
static aps_status put_element(cbor_ectx *c, const aps_type *t, const char *v);

static aps_status put_entries(cbor_ectx *c, const aps_type *t, const char *base)
{
    size_t i;
    aps_status st;
    for (i = 0; i < t->u.st.nfields; i++) {
        const aps_field *f = &t->u.st.fields[i];
        if ((f->flags & APS_F_OPTIONAL) && !*APS_CAT(base, f->present_offset, bool))
            continue;
        if ((st = put_element(c, f->type, base + f->offset)) != APS_OK)
            return st;
    }
    return status(c);
}

static aps_status put_element(cbor_ectx *c, const aps_type *t, const char *v)
{
    aps_status st = APS_OK;
    size_t i;
    if (t->kind == APS_K_LITERAL) {
        put_literal(c->w, &t->u.lit);
        return status(c);
    }
    if (!aps_schema_priv_in_place(t))
        return encode(c, t, v);
    if (++c->depth > APS_SCHEMA_MAX_DEPTH)
        return APS_E_DEPTH;
    if (t->kind == APS_K_TUPLE) {
        st = put_entries(c, t, v);
    } else if (t->kind == APS_K_ARRAY) {
        const aps_array *a = (const aps_array *)(const void *)v;
        for (i = 0; i < a->count && st == APS_OK; i++)
            st = put_element(c, t->u.arr.elem,
                             t->u.arr.elem->size != 0 ? (const char *)a->items + i * t->u.arr.elem->size : NULL);
    } else {
        int kind = *APS_CAT(v, t->u.un.kind_offset, int);
        st = kind < 1 || (size_t)kind > t->u.un.nalts
                 ? APS_E_ARGUMENT
                 : put_element(c, t->u.un.alts[kind - 1], v + t->u.un.payload_offset);
    }
    c->depth--;
    return st;
}

/* A positional array: its length first, counted over the entries present. */
static aps_status encode_tuple(cbor_ectx *c, const aps_type *t, const char *base)
{
    size_t n = aps_schema_priv_elements(t, base);
    aps_status st;
    if (n == SIZE_MAX)
        return APS_E_ARGUMENT;
    aps_cbor_write_array_begin(c->w, n);
    if ((st = put_entries(c, t, base)) != APS_OK)
        return st;
    aps_cbor_write_array_end(c->w);
    return status(c);
}

static aps_status encode_nested(cbor_ectx *c, const aps_type *t, const void *value)
{
    aps_status st;
    if (++c->depth > APS_SCHEMA_MAX_DEPTH)
        return APS_E_DEPTH;
    switch (t->kind) {
    case APS_K_STRUCT: st = encode_struct(c, t, (const char *)value); break;
    case APS_K_ARRAY: st = encode_array(c, t, (const aps_array *)value); break;
    case APS_K_MAP: st = encode_map(c, t, (const aps_array *)value); break;
    case APS_K_TAG:
        aps_cbor_write_tag(c->w, t->u.tag.number);
        st = encode(c, t->u.tag.content, value);
        break;
    case APS_K_TUPLE: st = encode_tuple(c, t, (const char *)value); break;
    default: st = encode_union(c, t, (const char *)value); break;
    }
    c->depth--;
    return st;
}

static aps_status encode(cbor_ectx *c, const aps_type *t, const void *value)
{
    aps_cbor_writer *w = c->w;
    switch (t->kind) {
    case APS_K_ANY: return put_raw(c, (const aps_json_raw *)value);
    case APS_K_BOOL: aps_cbor_write_bool(w, *(const bool *)value); break;
    case APS_K_INT: aps_cbor_write_int(w, *(const int64_t *)value); break;
    case APS_K_UINT: aps_cbor_write_uint(w, *(const uint64_t *)value); break;
    case APS_K_FLOAT:
        if (t->u.f.width != 0) /* `float16` / `float32` / `float64`: exactly that width */
            aps_cbor_write_float_width(w, *(const double *)value, t->u.f.width);
        else
            aps_cbor_write_float(w, *(const double *)value);
        break;
    case APS_K_BYTES: {
        const aps_slice *s = (const aps_slice *)value;
        aps_cbor_write_bytes(w, s->ptr, s->len);
        break;
    }
    case APS_K_TEXT: {
        const aps_slice *s = (const aps_slice *)value;
        aps_cbor_write_text(w, s->ptr, s->len);
        break;
    }
    case APS_K_LITERAL: put_literal(w, &t->u.lit); break;
    case APS_K_ENUM: {
        int k = *(const int *)value;
        const aps_slice *s;
        if (k > 0 && (size_t)k <= t->u.enm.count) {
            put_literal(w, &t->u.enm.values[k - 1]);
            break;
        }
        if (k != 0 || t->u.enm.other == NULL)
            return APS_E_ARGUMENT;
        s = APS_CAT(value, t->u.enm.other_offset, aps_slice);
        aps_cbor_write_text(w, s->ptr, s->len);
        break;
    }
    case APS_K_STRUCT:
    case APS_K_ARRAY:
    case APS_K_MAP:
    case APS_K_UNION:
    case APS_K_TAG:
    case APS_K_TUPLE:
        return encode_nested(c, t, value);
    default:
        return APS_E_ARGUMENT;
    }
    return status(c);
}

aps_status aps_schema_encode_cbor(const aps_type *type, const void *value, aps_cbor_writer *w,
                                  const aps_encode_options *options, aps_error *err)
{
    cbor_ectx c;
    aps_status st;
    aps_error_clear(err);
    if (type == NULL || w == NULL || (value == NULL && type->size != 0))
        return aps_error_set(err, APS_E_ARGUMENT, SIZE_MAX, "no type, writer or value");
    /* the check before the first byte: a failing value leaves no half-written item */
    if ((options == NULL || !options->trusted) && (st = aps_schema_validate(type, value, false, err)) != APS_OK)
        return st;
    if ((st = aps_cbor_writer_status(w)) != APS_OK)
        return aps_error_set(err, st, SIZE_MAX, "the writer failed before: %s", aps_status_str(st));
    c.w = w;
    c.snake = options != NULL && options->key_case == APS_CASE_SNAKE;
    c.depth = 0;
    aps_arena_init(&c.arena, NULL);
    st = encode(&c, type, value);
    aps_arena_deinit(&c.arena);
    if (st == APS_OK)
        st = aps_cbor_writer_status(w);
    if (st != APS_OK)
        aps_error_set(err, st, SIZE_MAX, "encoding failed: %s", aps_status_str(st));
    return st;
}
