/*
 * interp.c - runtime descriptors built in memory from the C type model, so
 * `cddlgen validate` checks instances against any schema with the same
 * engine, semantics and messages as generated code, without compiling.
 *
 * No C struct exists for these descriptors: the layout is computed here the
 * way a C compiler lays out the generated types (the same members in the
 * same order, each aligned to its size), which is all the engine needs.
 */
#include "interp.h"

#include <string.h>

#include "aps/types.h"

typedef struct interp {
    cddl_ctx *ctx;
    const ir_type **keys;
    aps_type **values;
    size_t count;
    /* Elements of arrays and maps, held by pointer: filled once the type
     * that reached them is, so a union element holding that type by value
     * (`R = { ? v: [* (R / text)] }`) sees its final size. */
    const ir_type **later;
    size_t nlater;
    unsigned char *filled; /* per key: filled (or being filled) */
    aps_type **maps;   /* maps whose entry layout waits for their value's size */
    size_t nmaps;
} interp;

static size_t align_up(size_t n, size_t a)
{
    return (n + a - 1) & ~(a - 1);
}

/* Alignment of a value of `t` (its descriptor's size tells the rest). */
static size_t align_of(const aps_type *t)
{
    switch (t->kind) {
    case APS_K_BOOL: return 1;
    case APS_K_LITERAL: return 1;
    case APS_K_ENUM: return t->u.enm.other ? sizeof(void *) : sizeof(int);
    case APS_K_TAG: return align_of(t->u.tag.content);
    default: return t->size >= 8 ? 8 : t->size ? t->size : 1;
    }
}

static aps_type *get(interp *I, const ir_type *t);
static aps_type *get_later(interp *I, const ir_type *t);

static aps_literal literal_of(interp *I, const ir_literal *l)
{
    aps_literal out;
    memset(&out, 0, sizeof out);
    switch (l->kind) {
    case IR_LIT_TEXT:
        out.kind = APS_LIT_TEXT;
        out.text = cddl_strdup(I->ctx, l->text.ptr, l->text.len);
        out.len = l->text.len;
        break;
    case IR_LIT_INT: out.kind = APS_LIT_INT; out.i = l->i; break;
    case IR_LIT_UINT: out.kind = APS_LIT_UINT; out.u = l->u; break;
    case IR_LIT_FLOAT: out.kind = APS_LIT_FLOAT; out.f = l->f; break;
    case IR_LIT_BOOL: out.kind = APS_LIT_BOOL; out.i = l->i; break;
    case IR_LIT_NULL: out.kind = APS_LIT_NULL; break;
    case IR_LIT_UNDEFINED: out.kind = APS_LIT_UNDEFINED; break;
    case IR_LIT_BYTES:
        out.kind = APS_LIT_BYTES;
        out.text = cddl_strdup(I->ctx, l->text.ptr, l->text.len);
        out.len = l->text.len;
        break;
    }
    return out;
}

static const char *name_of(interp *I, const ir_type *t)
{
    return t->rule ? cddl_strdup(I->ctx, t->rule, strlen(t->rule)) : NULL;
}

static void fill_struct(interp *I, const ir_type *t, aps_type *d)
{
    aps_field *fields = cddl_alloc(I->ctx, (t->nfields ? t->nfields : 1) * sizeof *fields);
    size_t off = 0, max_align = 1, i;
    for (i = 0; i < t->nfields; i++) {
        const ir_field *f = &t->fields[i];
        aps_field *o = &fields[i];
        const aps_type *ft = get(I, f->type);
        o->key = cddl_strdup(I->ctx, f->key.ptr, f->key.len);
        o->key_len = f->key.len;
        o->snake = cddl_strdup(I->ctx, f->snake, strlen(f->snake));
        o->snake_len = strlen(f->snake);
        o->type = ft;
        o->flags = f->flags; /* IR_F_* are the runtime's APS_F_* */
        o->cbor_key = f->cbor_key;
        o->cbor_key_len = f->cbor_key_len;
        /* the generated struct: bool has_x; bool x_is_null; T x; */
        if (f->flags & IR_F_OPTIONAL)
            o->present_offset = off++;
        if (f->flags & IR_F_LITERAL)
            continue;
        if (f->flags & IR_F_NULLABLE)
            o->null_offset = off++;
        off = align_up(off, align_of(ft));
        o->offset = off;
        off += ft->size;
        if (align_of(ft) > max_align)
            max_align = align_of(ft);
    }
    d->u.st.fields = fields;
    d->u.st.nfields = t->nfields;
    if (t->variants != NULL) {
        const aps_type *v = get(I, t->variants);
        off = align_up(off, align_of(v));
        d->u.st.variants = v;
        d->u.st.variants_offset = off;
        off += v->size;
        if (align_of(v) > max_align)
            max_align = align_of(v);
    }
    if (t->open) {
        off = align_up(off, 8);
        d->u.st.open = true;
        d->u.st.extras_offset = off;
        d->u.st.extras_type = t->extras_type ? get(I, t->extras_type) : NULL;
        d->u.st.extras_key = t->extras_key ? get(I, t->extras_key) : NULL;
        d->u.st.extras_min = (size_t)t->extras_min;
        d->u.st.extras_max = (size_t)t->extras_max;
        off += sizeof(aps_json_members);
        max_align = 8;
    }
    d->size = align_up(off ? off : 1, max_align);
}

static void fill_union(interp *I, const ir_type *t, aps_type *d)
{
    const aps_type **alts = cddl_alloc(I->ctx, (t->nalts ? t->nalts : 1) * sizeof *alts);
    aps_literal *disc = NULL;
    size_t i, payload = 0, align = 8;
    for (i = 0; i < t->nalts; i++) {
        alts[i] = get(I, t->alts[i]);
        if (alts[i]->size > payload)
            payload = alts[i]->size;
        if (align_of(alts[i]) > align)
            align = align_of(alts[i]);
    }
    if (t->cls == IR_U_DISCRIMINATED) {
        disc = cddl_alloc(I->ctx, (t->nalts ? t->nalts : 1) * sizeof *disc);
        for (i = 0; i < t->nalts; i++)
            disc[i] = literal_of(I, &t->disc[i]);
        d->u.un.disc_key = cddl_strdup(I->ctx, t->disc_key.ptr, t->disc_key.len);
    }
    /* struct { int kind; union { ... } u; aps_json_raw raw; } */
    d->u.un.cls = t->cls == IR_U_DISCRIMINATED ? APS_U_DISCRIMINATED
                  : t->cls == IR_U_KIND ? APS_U_KIND : t->cls == IR_U_GROUPS ? APS_U_GROUPS : APS_U_UNTAGGED;
    d->u.un.alts = alts;
    d->u.un.nalts = t->nalts;
    d->u.un.disc = disc;
    d->u.un.kind_offset = 0;
    d->u.un.payload_offset = align_up(sizeof(int), align);
    d->u.un.raw_offset = align_up(d->u.un.payload_offset + (payload ? payload : 1), 8);
    d->size = align_up(d->u.un.raw_offset + sizeof(aps_json_raw), align);
}

static void fill(interp *I, const ir_type *t, aps_type *d)
{
    size_t i;
    d->name = name_of(I, t);
    switch (t->kind) {
    case IR_ANY: d->kind = APS_K_ANY; d->size = sizeof(aps_json_raw); break;
    case IR_BOOL: d->kind = APS_K_BOOL; d->size = sizeof(bool); break;
    case IR_INT:
        d->kind = APS_K_INT;
        d->size = sizeof(int64_t);
        d->u.i.min = t->imin;
        d->u.i.max = t->imax;
        break;
    case IR_UINT:
        d->kind = APS_K_UINT;
        d->size = sizeof(uint64_t);
        d->u.u.min = t->umin;
        d->u.u.max = t->umax;
        d->u.u.forbidden_bits = t->forbidden_bits;
        break;
    case IR_FLOAT:
        d->kind = APS_K_FLOAT;
        d->size = sizeof(double);
        d->u.f.min = t->fmin;
        d->u.f.max = t->fmax;
        d->u.f.has_min = t->has_fmin;
        d->u.f.has_max = t->has_fmax;
        d->u.f.min_exclusive = t->fmin_excl;
        d->u.f.max_exclusive = t->fmax_excl;
        d->u.f.width = (unsigned char)t->fwidth;
        break;
    case IR_BYTES:
        d->kind = APS_K_BYTES;
        d->size = sizeof(aps_slice);
        d->u.bytes.min_len = t->len_min;
        d->u.bytes.max_len = t->len_max;
        d->u.bytes.embedded = t->embedded != NULL ? get_later(I, t->embedded) : NULL;
        d->u.bytes.sequence = t->sequence;
        break;
    case IR_TAG:
        d->kind = APS_K_TAG;
        d->u.tag.number = t->tag;
        d->u.tag.content = get(I, t->content);
        d->size = d->u.tag.content->size;
        break;
    case IR_TEXT:
        d->kind = APS_K_TEXT;
        d->size = sizeof(aps_slice);
        d->u.text.min_len = t->len_min;
        d->u.text.max_len = t->len_max;
        d->u.text.pattern = t->pattern;
        break;
    case IR_LITERAL:
        d->kind = APS_K_LITERAL;
        d->size = 0;
        d->u.lit = literal_of(I, &t->lit);
        break;
    case IR_ENUM: {
        aps_literal *values = cddl_alloc(I->ctx, (t->nvalues ? t->nvalues : 1) * sizeof *values);
        for (i = 0; i < t->nvalues; i++)
            values[i] = literal_of(I, &t->values[i]);
        d->kind = APS_K_ENUM;
        d->u.enm.values = values;
        d->u.enm.count = t->nvalues;
        d->u.enm.sorted = t->sorted;
        if (t->other != NULL) {
            /* struct { enum kind; aps_slice other; } */
            d->u.enm.other = get(I, t->other);
            d->u.enm.other_offset = align_up(sizeof(int), sizeof(void *));
            d->size = d->u.enm.other_offset + sizeof(aps_slice);
        } else {
            d->size = sizeof(int);
        }
        break;
    }
    case IR_STRUCT:
        d->kind = t->positional ? APS_K_TUPLE : APS_K_STRUCT;
        fill_struct(I, t, d);
        d->u.st.group = t->group;
        break;
    case IR_ARRAY:
        d->kind = APS_K_ARRAY;
        d->size = sizeof(aps_array);
        d->u.arr.elem = get_later(I, t->elem);
        d->u.arr.min = (size_t)t->occ_min;
        d->u.arr.max = t->occ_max == AST_OCCUR_INF ? SIZE_MAX : (size_t)t->occ_max;
        d->u.arr.spread = t->spread;
        break;
    case IR_MAP: {
        size_t n = I->nmaps;
        d->kind = APS_K_MAP;
        d->size = sizeof(aps_array);
        d->u.map.value = get_later(I, t->elem);
        cddl_push(I->ctx, &I->maps, &n, sizeof d, &d);
        I->nmaps = n;
        d->u.map.min = (size_t)t->occ_min;
        d->u.map.max = t->occ_max == AST_OCCUR_INF ? SIZE_MAX : (size_t)t->occ_max;
        break;
    }
    case IR_UNION:
        d->kind = APS_K_UNION;
        fill_union(I, t, d);
        break;
    case IR_ALIAS:
        break; /* get() resolves aliases before calling fill */
    }
}

static aps_type *register_type(interp *I, const ir_type *t, unsigned char filled)
{
    aps_type *d = cddl_alloc(I->ctx, sizeof *d);
    size_t n = I->count;
    cddl_push(I->ctx, &I->keys, &n, sizeof t, &t);
    n = I->count;
    cddl_push(I->ctx, &I->filled, &n, 1, &filled);
    cddl_push(I->ctx, &I->values, &I->count, sizeof d, &d);
    return d;
}

static aps_type *get(interp *I, const ir_type *t)
{
    aps_type *d;
    size_t i;
    while (t->kind == IR_ALIAS)
        t = t->target;
    for (i = 0; i < I->count; i++) {
        if (I->keys[i] == t) {
            if (!I->filled[i]) { /* deferred as an element, now needed by value */
                I->filled[i] = 1;
                fill(I, t, I->values[i]);
            }
            return I->values[i];
        }
    }
    /* registered before it is filled: recursive references point at it */
    d = register_type(I, t, 1);
    fill(I, t, d);
    return d;
}

/* The descriptor of `t`, registered now and filled by finish(). */
static aps_type *get_later(interp *I, const ir_type *t)
{
    size_t i, n;
    aps_type *d;
    while (t->kind == IR_ALIAS)
        t = t->target;
    for (i = 0; i < I->count; i++)
        if (I->keys[i] == t)
            return I->values[i];
    d = register_type(I, t, 0);
    n = I->nlater;
    cddl_push(I->ctx, &I->later, &n, sizeof t, &t);
    I->nlater = n;
    return d;
}

/* Fills the deferred elements (which may defer more), then lays out map entries. */
static void finish(interp *I)
{
    size_t i, j;
    for (i = 0; i < I->nlater; i++)
        for (j = 0; j < I->count; j++)
            if (I->keys[j] == I->later[i]) {
                if (!I->filled[j]) {
                    I->filled[j] = 1;
                    fill(I, I->later[i], I->values[j]);
                }
                break;
            }
    for (i = 0; i < I->nmaps; i++) {
        aps_type *d = I->maps[i];
        const aps_type *v = d->u.map.value;
        d->u.map.value_offset = align_up(sizeof(aps_slice), align_of(v));
        d->u.map.entry_size = align_up(d->u.map.value_offset + v->size, 8);
    }
}

const aps_type *interp_type(cddl_ctx *ctx, const ir_module *mod, const char *rule)
{
    interp I;
    size_t i;
    memset(&I, 0, sizeof I);
    I.ctx = ctx;
    for (i = 0; i < mod->count; i++) {
        if (mod->types[i]->rule != NULL && strcmp(mod->types[i]->rule, rule) == 0) {
            aps_type *d = get(&I, mod->types[i]);
            finish(&I);
            return d;
        }
    }
    return NULL;
}
