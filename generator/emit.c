/*
 * emit.c - fills the templates (templates/NAME.tmpl) from the C type model.
 *
 * This file computes what the templates cannot: C type names, descriptor
 * names, offsetof expressions, escaped string literals, doc comment blocks
 * and the declaration order (each type after the types it holds by value).
 * All C syntax lives in the templates, except the designated initializers
 * of a descriptor's union member and of literals (`{ .min = 0, .max = 9 }`),
 * whose fields depend on the kind and leave zeros out.
 */
#include "emit.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "aps/fast.h"
#include "lower.h"
#include "naming.h"
#include "outfile.h"
#include "tmpl.h"

typedef struct emitter {
    cddl_ctx *ctx;
    const ir_module *mod;
    const emit_options *opt;
    char upper_prefix[64];
    const char **desc_names;  /* by type pointer, via a small table */
    const ir_type **desc_types;
    size_t ndescs;
    size_t *desc_slots;       /* hash of desc_types: index + 1, 0 empty */
    size_t ndesc_slots;
    naming_set desc_set;      /* desc_names, as a set */
    tmpl_value *statics;      /* descriptors declared static in the source */
    tmpl_value *descs;        /* every descriptor, in definition order */
    tmpl_value *map_entries;  /* the entry structs of maps, defined after every other type */
} emitter;

static const char *upper(emitter *E, const char *s)
{
    size_t i, n = strlen(s);
    char *u = cddl_alloc(E->ctx, n + 1);
    for (i = 0; i < n; i++)
        u[i] = (char)toupper((unsigned char)s[i]);
    return u;
}

/* A C string literal for `len` bytes of `s` (octal escapes: never greedy). */
static const char *c_string(emitter *E, const char *s, size_t len)
{
    char *out = cddl_alloc(E->ctx, len * 4 + 3), *w = out;
    size_t i;
    *w++ = '"';
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            *w++ = '\\';
            *w++ = (char)c;
        } else if (c < 0x20 || c >= 0x7F || c == '?') {
            /* '?' too, so no trigraph can form */
            w += sprintf(w, "\\%03o", c);
        } else {
            *w++ = (char)c;
        }
    }
    *w++ = '"';
    *w = '\0';
    return out;
}

/* A doc comment block: "/ **\n * line\n ...\n * /" with `indent` spaces, or "" if no text. */
static const char *doc_block(emitter *E, ast_doc doc, const char *extra, int indent)
{
    size_t cap = doc.len * 2 + (extra ? strlen(extra) * 2 : 0) + 64 + (size_t)indent * 8, n = 0;
    char *out = cddl_alloc(E->ctx, cap);
    const char *p = doc.ptr, *end = doc.len ? doc.ptr + doc.len : doc.ptr;
    int lines = 0;
    if (doc.len == 0 && extra == NULL)
        return "";
    n += (size_t)sprintf(out + n, "%*s/**\n", indent, "");
    while (p != NULL && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *stop = nl ? nl : end, *q;
        n += (size_t)sprintf(out + n, "%*s *%s", indent, "", stop > p ? " " : "");
        for (q = p; q < stop; q++) {
            /* a comment must not end early */
            if (q[0] == '*' && q + 1 < stop && q[1] == '/') {
                out[n++] = '*';
                out[n++] = ' ';
                continue;
            }
            out[n++] = *q;
        }
        out[n++] = '\n';
        lines++;
        p = nl ? nl + 1 : end;
    }
    if (extra != NULL) {
        if (lines > 0)
            n += (size_t)sprintf(out + n, "%*s *\n", indent, "");
        n += (size_t)sprintf(out + n, "%*s * %s\n", indent, "", extra);
    }
    n += (size_t)sprintf(out + n, "%*s */", indent, "");
    out[n] = '\0';
    return out;
}

/* Schema text placed inside a C comment: "*" "/" would end it early. */
static const char *comment_text(emitter *E, const char *s, size_t len)
{
    char *out = cddl_alloc(E->ctx, len * 2 + 1), *w = out;
    size_t i;
    for (i = 0; i < len; i++) {
        *w++ = s[i];
        if (s[i] == '*' && i + 1 < len && s[i + 1] == '/')
            *w++ = ' ';
        if (s[i] == '/' && i + 1 < len && s[i + 1] == '*')
            *w++ = ' '; /* nor may one start inside it */
    }
    *w = '\0';
    return out;
}

/* A type's schema name, for a C comment: an instance's arguments may be text literals holding "*" "/". */
static const char *rule_comment(emitter *E, const ir_type *t)
{
    const char *rule = t->rule ? t->rule : t->c_name;
    return comment_text(E, rule, strlen(rule));
}

/* A literal as the schema spells it, for comments: "text" quoted, numbers as written. */
static const char *literal_comment(emitter *E, const ir_literal *l)
{
    if (l->kind == IR_LIT_TEXT)
        return cddl_fmt(E->ctx, "\"%s\"", comment_text(E, l->text.ptr, l->text.len));
    if (l->kind == IR_LIT_NULL)
        return "null";
    if (l->kind == IR_LIT_BOOL)
        return l->i ? "true" : "false";
    if (l->kind == IR_LIT_UNDEFINED)
        return "undefined";
    if (l->kind == IR_LIT_BYTES)
        return "a byte string";
    return comment_text(E, l->text.ptr, l->text.len);
}

/* One-line member doc: "/ **< text * /" (first line only when the doc has several). */
static const char *member_doc(emitter *E, ast_doc doc, int indent)
{
    if (doc.len == 0)
        return "";
    if (memchr(doc.ptr, '\n', doc.len) == NULL) {
        char *s = cddl_fmt(E->ctx, "%*s/** %.*s */", indent, "", (int)doc.len, doc.ptr), *q;
        /* keep "*" "/" out of the text */
        for (q = s + indent + 3; q[0] != '\0' && q[1] != '\0' && q[2] != '\0'; q++)
            if (q[0] == '*' && q[1] == '/' && q[2] != '\0')
                q[1] = ' ';
        return s;
    }
    return doc_block(E, doc, NULL, indent);
}

static const ir_type *resolved(const ir_type *t)
{
    while (t != NULL && t->kind == IR_ALIAS)
        t = t->base != NULL ? t->base : t->target; /* base: long chains cost one step */
    return t;
}

/* The C type that holds a value of `t`. */
static const char *ctype(emitter *E, const ir_type *t)
{
    if (t->named)
        return cddl_fmt(E->ctx, "%s_%s_t", E->opt->prefix, t->c_name);
    switch (t->kind) {
    case IR_ANY: return "aps_json_raw";
    case IR_BOOL: return "bool";
    case IR_INT: return "int64_t";
    case IR_UINT: return "uint64_t";
    case IR_FLOAT: return "double";
    case IR_TEXT: return "aps_slice";
    case IR_BYTES: return "aps_slice";
    case IR_TAG: return ctype(E, t->content); /* the tag is on the wire only */
    default: return "aps_json_raw";
    }
}

/* A text type without size bounds or pattern: only UTF-8 to check. */
static bool unconstrained_text(const ir_type *t)
{
    return t->pattern == NULL && t->len_min == 0 && t->len_max == SIZE_MAX;
}

/* Is `t` one of lowering's shared primitives? Then the runtime has its descriptor. */
static const char *runtime_desc(const ir_type *t)
{
    if (t->named || t->rule != NULL)
        return NULL;
    switch (t->kind) {
    case IR_ANY: return "aps_any_type";
    case IR_BOOL: return "aps_bool_type";
    case IR_INT: return t->imin == INT64_MIN && t->imax == INT64_MAX ? "aps_int_type" : NULL;
    case IR_UINT: return t->umin == 0 && t->umax == UINT64_MAX && t->forbidden_bits == 0 ? "aps_uint_type" : NULL;
    case IR_FLOAT: return !t->has_fmin && !t->has_fmax && t->fwidth == 0 ? "aps_float_type" : NULL;
    case IR_TEXT: return unconstrained_text(t) ? "aps_text_type" : NULL;
    case IR_LITERAL:
        if (t->lit.kind == IR_LIT_NULL)
            return "aps_null_type";
        if (t->lit.kind == IR_LIT_BOOL)
            return t->lit.i ? "aps_true_type" : "aps_false_type";
        return NULL;
    default: return NULL;
    }
}

static const char *desc_of(emitter *E, const ir_type *t);

static const char *int_lit(emitter *E, int64_t v)
{
    if (v == INT64_MIN)
        return "INT64_MIN";
    return cddl_fmt(E->ctx, "INT64_C(%lld)", (long long)v);
}

static const char *uint_lit(emitter *E, uint64_t v)
{
    if (v == UINT64_MAX)
        return "UINT64_MAX";
    return cddl_fmt(E->ctx, "UINT64_C(%llu)", (unsigned long long)v);
}

static const char *size_lit(emitter *E, uint64_t v)
{
    return v == AST_OCCUR_INF || v == SIZE_MAX ? "SIZE_MAX" : cddl_fmt(E->ctx, "%llu", (unsigned long long)v);
}

/* The parts given, each ".field = value", joined by `sep`; NULL parts (fields left zero) skipped. */
static const char *joined(emitter *E, const char *const *parts, size_t n, const char *sep)
{
    const char *s = "";
    size_t i;
    for (i = 0; i < n; i++)
        if (parts[i] != NULL)
            s = s[0] ? cddl_fmt(E->ctx, "%s%s%s", s, sep, parts[i]) : parts[i];
    return s;
}

/* The designated initializer `{ .a = x, .b = y }` of the parts given (see joined). */
static const char *designated(emitter *E, const char *const *parts, size_t n)
{
    return cddl_fmt(E->ctx, "{ %s }", joined(E, parts, n, ", "));
}

/*
 * The same for the `u` member of a descriptor, which desc.c.tmpl writes
 * four columns in: on one line when it fits in about 100 columns, else one
 * field per line, so a reader finds each field without scrolling sideways.
 */
static const char *designated_u(emitter *E, const char *const *parts, size_t n)
{
    const char *one = designated(E, parts, n), *s = "{\n";
    size_t i;
    if (strlen(one) <= 80)
        return one;
    for (i = 0; i < n; i++)
        if (parts[i] != NULL)
            s = cddl_fmt(E->ctx, "%s        %s,\n", s, parts[i]);
    return cddl_fmt(E->ctx, "%s    }", s);
}

/* ".name = value" for designated(), or NULL (left zero) when `cond` is false. */
static const char *field_if(emitter *E, int cond, const char *name, const char *value)
{
    return cond ? cddl_fmt(E->ctx, ".%s = %s", name, value) : NULL;
}

/* An aps_literal initializer: its kind and the one value that kind uses. */
static const char *literal_init(emitter *E, const ir_literal *l)
{
    static const char *const kinds[] = { "APS_LIT_TEXT", "APS_LIT_INT", "APS_LIT_UINT", "APS_LIT_FLOAT",
                                         "APS_LIT_BOOL", "APS_LIT_NULL", "APS_LIT_UNDEFINED", "APS_LIT_BYTES" };
    const char *parts[3] = { NULL, NULL, NULL };
    parts[0] = field_if(E, 1, "kind", kinds[l->kind]);
    if (l->kind == IR_LIT_UNDEFINED)
        return designated(E, parts, 3);
    if (l->kind == IR_LIT_TEXT || l->kind == IR_LIT_BYTES) {
        parts[1] = field_if(E, 1, "text", c_string(E, l->text.ptr, l->text.len));
        parts[2] = field_if(E, 1, "len", cddl_fmt(E->ctx, "%zu", l->text.len));
    } else if (l->kind == IR_LIT_FLOAT) {
        parts[1] = field_if(E, 1, "f", cddl_fmt(E->ctx, "%.17g", l->f));
    } else if (l->kind == IR_LIT_UINT) {
        parts[1] = field_if(E, 1, "u", uint_lit(E, l->u));
    } else if (l->kind != IR_LIT_NULL) {
        parts[1] = field_if(E, 1, "i", int_lit(E, l->i));
    }
    return designated(E, parts, 3);
}

/* ---- generated decoders --------------------------------------------------------
 * Structs, arrays and discriminated unions get a straight-line decoder each
 * (templates/fast_*.c.tmpl, aps/fast.h): member names
 * compared as constants, values read by inline scans. A type gets one only
 * where its reading cannot differ from the table-driven fast path's; the
 * rest is left to that path (fields of such types call aps_fast_value).
 */

/* Most members a generated decoder tracks, as the runtime's fast path does. */
#define FAST_MAX_FIELDS APS_FAST_MAX_FIELDS

/* Printable ASCII without '"' or '\\': input bytes equal to it, then '"', are a string with exactly this text. */
static bool plain_text(const ast_str *s)
{
    size_t i;
    for (i = 0; i < s->len; i++) {
        unsigned char c = (unsigned char)s->ptr[i];
        if (c < 0x20 || c > 0x7E || c == '"' || c == '\\')
            return false;
    }
    return true;
}

static bool same_text(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && memcmp(a, b, alen) == 0;
}

/* Index of the member of struct `alt` named `key`, or -1. */
static long field_index(const ir_type *alt, ast_str key)
{
    size_t i;
    for (i = 0; i < alt->nfields; i++)
        if (same_text(alt->fields[i].key.ptr, alt->fields[i].key.len, key.ptr, key.len))
            return (long)i;
    return -1;
}

/* A struct's own members: few enough for the seen-set word, no two spelled alike. */
static bool fast_fields_ok(const ir_type *t)
{
    size_t i;
    if (t->kind != IR_STRUCT || t->nfields > FAST_MAX_FIELDS)
        return false;
    for (i = 0; i < t->nfields; i++)
        if (t->fields[i].flags & IR_F_SHARED_NAME)
            return false;
    return true;
}

/* How deep struct variants and union alternatives may nest for a generated decoder: bounds the checks on cyclic schemas. */
#define FAST_MAX_NESTING 16

static bool fast_struct_ok_at(const ir_type *t, int depth);
static const ir_field *disc_field(const ir_type *u);
static bool plain_name(const ir_field *f);

/*
 * A discriminated union whose alternatives are structs with generated
 * decoders, each with the discriminant as a member, picked by plain text
 * literals; the discriminant's name is plain too (it is compared as bytes).
 */
static bool fast_union_ok_at(const ir_type *u, int depth)
{
    size_t i;
    if (u == NULL || u->kind != IR_UNION || u->cls != IR_U_DISCRIMINATED || u->nalts == 0 || depth > FAST_MAX_NESTING)
        return false;
    for (i = 0; i < u->nalts; i++) {
        const ir_type *a = resolved(u->alts[i]);
        if (a->kind != IR_STRUCT || !fast_struct_ok_at(a, depth + 1) ||
            field_index(a, u->disc_key) < 0 || u->disc[i].kind != IR_LIT_TEXT || !plain_text(&u->disc[i].text))
            return false;
    }
    return plain_name(disc_field(u));
}

/* The discriminant member of union u (its first alternative's, as the runtime takes it). */
static const ir_field *disc_field(const ir_type *u)
{
    const ir_type *a = resolved(u->alts[0]);
    return &a->fields[field_index(a, u->disc_key)];
}

/*
 * Does struct t get a generated decoder? Its members, and with variants,
 * a readable union whose discriminant and alternatives' members no member
 * of t is spelled like (the runtime gives such a name to the discriminant
 * while none is chosen, to t's member after; a generated decoder reading
 * members in schema order could give it to the alternative).
 */
static bool fast_struct_ok_at(const ir_type *t, int depth)
{
    const ir_type *v;
    size_t i, j, k;
    if (t->positional) /* --cbor: the table engine matches positions (schema_cbor_decode.c) */
        return false;
    if (!fast_fields_ok(t) || t->extras_min != 0 || t->extras_max != 0)
        return false; /* a counted tail is counted by the tables */
    if (t->variants == NULL)
        return true;
    if (!fast_union_ok_at(v = resolved(t->variants), depth + 1))
        return false;
    for (i = 0; i < t->nfields; i++) {
        if (ir_fields_clash(&t->fields[i], disc_field(v)))
            return false;
        for (j = 0; j < v->nalts; j++) {
            const ir_type *a = resolved(v->alts[j]);
            for (k = 0; k < a->nfields; k++)
                if (ir_fields_clash(&t->fields[i], &a->fields[k]))
                    return false;
        }
    }
    return true;
}

static bool fast_struct_ok(const ir_type *t)
{
    return fast_struct_ok_at(t, 0);
}

static bool fast_union_ok(const ir_type *u)
{
    return fast_union_ok_at(u, 0);
}

/* An array whose items are stored (not literals, which take no room; `[]` has none). */
static bool fast_array_ok(const ir_type *t)
{
    return t->kind == IR_ARRAY && !t->spread && resolved(t->elem)->kind != IR_LITERAL && t->occ_max != 0;
}

static bool has_fast(const ir_type *t)
{
    t = resolved(t);
    switch (t->kind) {
    case IR_STRUCT: return fast_struct_ok(t);
    case IR_UNION: return fast_union_ok(t);
    case IR_ARRAY: return fast_array_ok(t);
    default: return false;
    }
}

/*
 * Does the output give t a generated reader, validator and encoder? Never
 * with --size: the descriptors alone go out, and the runtime's table engine
 * (aps_schema_decode, _validate, _encode) does what those functions would,
 * with the same results (the engine is what they fall back to anyway).
 */
static bool emits_fast(const emitter *E, const ir_type *t)
{
    return !E->opt->tables_only && has_fast(t);
}

/*
 * Does t get a reader of the compact form (members in the schema's order
 * and spelling, no whitespace, nothing unknown: what servers write)? A
 * struct with a generated decoder whose member names are all plain, and
 * whose variants, if any, are such a union; a discriminated union whose
 * alternatives are such structs.
 */
static bool compact_ok_at(const ir_type *t, int depth)
{
    size_t i;
    t = resolved(t);
    if (depth > FAST_MAX_NESTING || !has_fast(t))
        return false;
    if (t->kind == IR_UNION) {
        for (i = 0; i < t->nalts; i++)
            if (!compact_ok_at(t->alts[i], depth + 1))
                return false;
        return true;
    }
    if (t->kind != IR_STRUCT)
        return false;
    for (i = 0; i < t->nfields; i++)
        if (!plain_name(&t->fields[i]))
            return false;
    return t->variants == NULL || compact_ok_at(t->variants, depth + 1);
}

static bool compact_ok(const ir_type *t)
{
    return compact_ok_at(t, 0);
}

/* A text literal of plain bytes: the input's bytes between '"'s equal to it are this literal. */
static bool plain_literal(const ir_type *t)
{
    return t->lit.kind == IR_LIT_TEXT && plain_text(&t->lit.text);
}

/* Is member f a text literal compared together with its name in the compact form (`"type":"event"`)? */
static bool fused_member(const ir_field *f)
{
    return (f->flags & IR_F_LITERAL) && !(f->flags & (IR_F_NULLABLE | IR_F_OPTIONAL)) &&
           plain_literal(resolved(f->type));
}

/* Is alternative a of union u a struct whose first member is u's discriminant, fused? */
static bool starts_with_disc(const ir_type *a, const ir_type *u)
{
    a = resolved(a);
    return a->kind == IR_STRUCT && a->nfields > 0 &&
           same_text(a->fields[0].key.ptr, a->fields[0].key.len, u->disc_key.ptr, u->disc_key.len) &&
           fused_member(&a->fields[0]);
}

/* The name stem of t's generated decoder functions. */
static const char *fast_fn(emitter *E, const ir_type *t)
{
    return cddl_fmt(E->ctx, "%s_%s_fast", E->opt->prefix, resolved(t)->c_name);
}

/* Bits of the members that must be present. */
static uint64_t required_bits(const ir_type *t)
{
    uint64_t m = 0;
    size_t i;
    for (i = 0; i < t->nfields; i++)
        if (!(t->fields[i].flags & IR_F_OPTIONAL))
            m |= (uint64_t)1 << i;
    return m;
}

/* A uint64_t mask as a C constant. */
static const char *mask_lit(emitter *E, uint64_t m)
{
    return cddl_fmt(E->ctx, "UINT64_C(0x%llx)", (unsigned long long)m);
}

/*
 * A value of a type that is neither scalar nor text: by t's generated
 * function (flag `generated`, its name in "read_fn") when it has one, else
 * by the tables (flag `table`). `compact`: by its reader of the compact form
 * when it has one (a compact reader's member).
 */
static void generated_or_table(emitter *E, const ir_type *t, const char *generated, const char *table, bool compact,
                               tmpl_value *v)
{
    if (has_fast(t)) {
        tmpl_flag(E->ctx, v, generated, 1);
        tmpl_set(E->ctx, v, "read_fn", compact && compact_ok(t) ? cddl_fmt(E->ctx, "%s_compact", fast_fn(E, t))
                                                                : fast_fn(E, t));
    } else {
        tmpl_flag(E->ctx, v, table, 1);
    }
}

/*
 * How a value of type `type` is read into `target` (a C expression of its
 * address): one flag section of templates/fast_read.c.tmpl, with what it
 * needs. `literal`: the value is checked against the type's literal only;
 * `compact`: structs and unions by their readers of the compact form.
 */
static void fast_read(emitter *E, const ir_type *type, bool literal, bool compact, const char *target,
                      tmpl_value *v)
{
    cddl_ctx *C = E->ctx;
    const ir_type *t = resolved(type);
    tmpl_set(C, v, "desc", desc_of(E, type));
    tmpl_set(C, v, "target", target);
    if (literal) {
        bool plain = plain_literal(t);
        tmpl_flag(C, v, plain ? "read_literal" : "read_literal_table", 1);
        if (plain) {
            tmpl_set(C, v, "lit", c_string(E, t->lit.text.ptr, t->lit.text.len));
            tmpl_setf(C, v, "lit_len", "%zu", t->lit.text.len);
        }
        return;
    }
    switch (t->kind) {
    case IR_TEXT:
        tmpl_flag(C, v, unconstrained_text(t) ? "read_string" : "read_text", 1);
        break;
    case IR_UINT:
        if (t->forbidden_bits != 0) { /* `.bits`: the descriptor's path checks them */
            tmpl_flag(C, v, "read_table", 1);
            break;
        }
        tmpl_flag(C, v, "read_uint", 1);
        tmpl_set(C, v, "min", uint_lit(E, t->umin));
        tmpl_set(C, v, "max", uint_lit(E, t->umax));
        break;
    case IR_INT:
        tmpl_flag(C, v, "read_int", 1);
        tmpl_set(C, v, "min", int_lit(E, t->imin));
        tmpl_set(C, v, "max", int_lit(E, t->imax));
        break;
    case IR_BOOL: tmpl_flag(C, v, "read_bool", 1); break;
    case IR_ANY: tmpl_flag(C, v, "read_any", 1); break;
    default: generated_or_table(E, t, "read_generated", "read_table", compact, v); break;
    }
}

/*
 * How a value of type `type` at `target` (a C lvalue) is validated: one
 * flag section of templates/fast_check.c.tmpl, indented by `indent`.
 * Returns false when nothing needs checking (booleans, literals).
 */
static bool fast_check(emitter *E, const ir_type *type, const char *target, const char *indent, tmpl_value *v)
{
    cddl_ctx *C = E->ctx;
    const ir_type *t = resolved(type);
    bool lo, hi;
    tmpl_set(C, v, "desc", desc_of(E, type));
    tmpl_set(C, v, "target", target);
    tmpl_set(C, v, "indent", indent);
    switch (t->kind) {
    case IR_BOOL:
    case IR_LITERAL: return false;
    case IR_TEXT:
        tmpl_flag(C, v, unconstrained_text(t) ? "check_string" : "check_text", 1);
        return true;
    case IR_INT:
    case IR_UINT:
        if (t->kind == IR_UINT && t->forbidden_bits != 0) { /* `.bits`: the descriptor's path checks them */
            tmpl_flag(C, v, "check_table", 1);
            return true;
        }
        lo = t->kind == IR_INT ? t->imin > INT64_MIN : t->umin > 0;
        hi = t->kind == IR_INT ? t->imax < INT64_MAX : t->umax < UINT64_MAX;
        tmpl_set(C, v, "min", t->kind == IR_INT ? int_lit(E, t->imin) : uint_lit(E, t->umin));
        tmpl_set(C, v, "max", t->kind == IR_INT ? int_lit(E, t->imax) : uint_lit(E, t->umax));
        tmpl_flag(C, v, lo && hi ? "check_min_max" : lo ? "check_min" : "check_max", lo || hi);
        return lo || hi;
    case IR_ANY: tmpl_flag(C, v, "check_any", 1); return true;
    default: generated_or_table(E, t, "check_generated", "check_table", false, v); return true;
    }
}

/* Can member f's names be recognised by comparing bytes (aps_fast_key)? */
static bool plain_name(const ir_field *f)
{
    return (f->flags & IR_F_PLAIN_NAMES) != 0; /* lowering checked both spellings */
}

/* `"key":` and `"snake":` of member f as C strings: PREFIXtoken, PREFIXstoken and their lengths. */
static void set_tokens(emitter *E, tmpl_value *v, const char *prefix, const ir_field *f)
{
    cddl_ctx *C = E->ctx;
    const char *key = cddl_fmt(C, "\"%.*s\":", (int)f->key.len, f->key.ptr);
    const char *snake = cddl_fmt(C, "\"%s\":", f->snake);
    tmpl_set(C, v, cddl_fmt(C, "%stoken", prefix), c_string(E, key, strlen(key)));
    tmpl_setf(C, v, cddl_fmt(C, "%stoken_len", prefix), "%zu", strlen(key));
    tmpl_set(C, v, cddl_fmt(C, "%sstoken", prefix), c_string(E, snake, strlen(snake)));
    tmpl_setf(C, v, cddl_fmt(C, "%sstoken_len", prefix), "%zu", strlen(snake));
}

/* The struct's inlined variants (its choice of member groups), for a template's "variants" section. */
static void put_variants(emitter *E, const ir_type *t, tmpl_value *d)
{
    tmpl_value *v;
    if (t->variants == NULL)
        return;
    v = tmpl_object(E->ctx);
    tmpl_set(E->ctx, v, "vfn", fast_fn(E, t->variants));
    tmpl_set(E->ctx, v, "vmember", t->variants_c_name);
    tmpl_put(E->ctx, d, "variants", v);
}

/* Template data of struct t's generated decoder (templates/fast_struct.c.tmpl). */
static tmpl_value *fast_struct(emitter *E, const ir_type *t)
{
    cddl_ctx *C = E->ctx;
    tmpl_value *d = tmpl_object(C), *fields = tmpl_list(C), *ordered = tmpl_list(C), *checks = tmpl_list(C);
    tmpl_value *compact_fields = tmpl_list(C);
    bool stores = false, one_spelling_only = true, compact = compact_ok(t), compact_two_spellings = false;
    /* a discriminant first is compared apart: a union that chose t by it reads on after it */
    bool disc_first = compact && t->nfields > 0 && fused_member(&t->fields[0]), members_store = false;
    /* whether the compact reader's separator is ',' for certain (read after
     * the discriminant, or after a required member): then it is compared
     * with the name as one token */
    bool after_comma = disc_first, sep_read = false;
    size_t i;
    tmpl_set(C, d, "fn", fast_fn(E, t));
    tmpl_set(C, d, "ctype", ctype(E, t));
    tmpl_set(C, d, "rule", rule_comment(E, t));
    tmpl_set(C, d, "desc", desc_of(E, t));
    for (i = 0; i < t->nfields; i++) {
        const ir_field *f = &t->fields[i];
        tmpl_value *v = tmpl_object(C);
        tmpl_set(C, v, "key", c_string(E, f->key.ptr, f->key.len));
        tmpl_setf(C, v, "key_len", "%zu", f->key.len);
        tmpl_set(C, v, "snake", c_string(E, f->snake, strlen(f->snake)));
        tmpl_setf(C, v, "snake_len", "%zu", strlen(f->snake));
        tmpl_set(C, v, "member", f->c_name);
        tmpl_setf(C, v, "bit", "%zu", i);
        tmpl_flag(C, v, "one_spelling", same_text(f->key.ptr, f->key.len, f->snake, strlen(f->snake)));
        one_spelling_only &= same_text(f->key.ptr, f->key.len, f->snake, strlen(f->snake));
        tmpl_flag(C, v, "optional", (f->flags & IR_F_OPTIONAL) != 0);
        tmpl_flag(C, v, "nullable", (f->flags & IR_F_NULLABLE) != 0);
        fast_read(E, f->type, (f->flags & IR_F_LITERAL) != 0, false, cddl_fmt(C, "&out->%s", f->c_name), v);
        stores |= (f->flags & (IR_F_OPTIONAL | IR_F_NULLABLE)) != 0 || !(f->flags & IR_F_LITERAL);
        tmpl_append(C, fields, v);
        if (!(f->flags & IR_F_LITERAL)) {
            tmpl_value *k = tmpl_object(C);
            tmpl_set(C, k, "member", f->c_name);
            tmpl_flag(C, k, "optional", (f->flags & IR_F_OPTIONAL) != 0);
            tmpl_flag(C, k, "nullable", (f->flags & IR_F_NULLABLE) != 0);
            if (fast_check(E, f->type, cddl_fmt(C, "v->%s", f->c_name), "    ", k))
                tmpl_append(C, checks, k);
        }
        if (compact) {
            tmpl_value *k = tmpl_object(C);
            const ir_type *ft = resolved(f->type);
            /* a plain text literal (a discriminant) is compared with its name: `"type":"event"` */
            bool fused = (f->flags & IR_F_LITERAL) && !(f->flags & IR_F_NULLABLE) && plain_literal(ft);
            bool two = !same_text(f->key.ptr, f->key.len, f->snake, strlen(f->snake));
            const char *token = fused ? cddl_fmt(C, "\"%.*s\":\"%.*s\"", (int)f->key.len, f->key.ptr,
                                                 (int)ft->lit.text.len, ft->lit.text.ptr)
                                      : cddl_fmt(C, "\"%.*s\":", (int)f->key.len, f->key.ptr);
            /* the snake_case spelling too, where it differs: what servers in Python write */
            const char *snake = fused ? cddl_fmt(C, "\"%s\":\"%.*s\"", f->snake, (int)ft->lit.text.len,
                                                 ft->lit.text.ptr)
                                      : cddl_fmt(C, "\"%s\":", f->snake);
            if (i == 0 && disc_first) { /* compared by _compact and _compact_members, not _compact_rest */
                tmpl_set(C, d, "first_token", c_string(E, token, strlen(token)));
                tmpl_setf(C, d, "first_token_len", "%zu", strlen(token));
                tmpl_set(C, d, "first_snake", c_string(E, snake, strlen(snake)));
                tmpl_setf(C, d, "first_snake_len", "%zu", strlen(snake));
                tmpl_flag(C, d, "first_two_spellings", two);
                continue;
            }
            if (after_comma) {
                token = cddl_fmt(C, ",%s", token);
                snake = cddl_fmt(C, ",%s", snake);
            }
            tmpl_flag(C, k, "comma", after_comma);
            sep_read |= !after_comma;
            after_comma |= !(f->flags & IR_F_OPTIONAL);
            tmpl_set(C, k, "ctoken", c_string(E, token, strlen(token)));
            tmpl_setf(C, k, "ctoken_len", "%zu", strlen(token));
            tmpl_flag(C, k, "two_spellings", two);
            compact_two_spellings |= two;
            members_store |= (f->flags & (IR_F_OPTIONAL | IR_F_NULLABLE)) != 0 || !(f->flags & IR_F_LITERAL);
            tmpl_set(C, k, "csnake", c_string(E, snake, strlen(snake)));
            tmpl_setf(C, k, "csnake_len", "%zu", strlen(snake));
            tmpl_set(C, k, "member", f->c_name);
            tmpl_flag(C, k, "fused", fused);
            tmpl_flag(C, k, "optional", (f->flags & IR_F_OPTIONAL) != 0);
            tmpl_flag(C, k, "nullable", (f->flags & IR_F_NULLABLE) != 0);
            if (!fused)
                fast_read(E, f->type, (f->flags & IR_F_LITERAL) != 0, true, cddl_fmt(C, "&out->%s", f->c_name), k);
            tmpl_append(C, compact_fields, k);
        }
        if (plain_name(f)) {
            tmpl_value *o = tmpl_object(C);
            tmpl_setf(C, o, "bit", "%zu", i);
            /* a literal member may be a discriminant, read before this is called: then no compare */
            tmpl_flag(C, o, "literal", (f->flags & IR_F_LITERAL) != 0);
            tmpl_set(C, o, "mask", mask_lit(E, (uint64_t)1 << i));
            set_tokens(E, o, "", f);
            tmpl_append(C, ordered, o);
        }
    }
    tmpl_put(C, d, "fields", fields);
    tmpl_put(C, d, "ordered", ordered);
    tmpl_put(C, d, "checks", checks);
    tmpl_flag(C, d, "compact", compact);
    tmpl_put(C, d, "compact_fields", compact_fields);
    tmpl_flag(C, d, "compact_two_spellings", compact_two_spellings);
    tmpl_flag(C, d, "disc_first", disc_first);
    tmpl_set(C, d, "members_fn", disc_first ? "rest" : "members");
    /* what the members function (_rest or _members) leaves unused */
    tmpl_flag(C, d, "members_read_none", tmpl_count(compact_fields) == 0 && t->variants == NULL);
    tmpl_flag(C, d, "members_store_nothing", tmpl_count(compact_fields) != 0 && !members_store && t->variants == NULL);
    tmpl_flag(C, d, "members_sep_unused", tmpl_count(compact_fields) != 0 && !sep_read && t->variants == NULL);
    tmpl_flag(C, d, "no_fields", t->nfields == 0);
    tmpl_flag(C, d, "one_spelling_only", t->nfields > 0 && one_spelling_only);
    tmpl_flag(C, d, "stores_nothing", t->nfields > 0 && !stores);
    tmpl_flag(C, d, "open", t->open);
    tmpl_set(C, d, "required", mask_lit(E, required_bits(t)));
    tmpl_flag(C, d, "has_required", required_bits(t) != 0);
    put_variants(E, t, d);
    return d;
}

/* Template data of array t's generated decoder (templates/fast_array.c.tmpl). */
static tmpl_value *fast_array(emitter *E, const ir_type *t)
{
    cddl_ctx *C = E->ctx;
    tmpl_value *d = tmpl_object(C);
    tmpl_set(C, d, "fn", fast_fn(E, t));
    tmpl_set(C, d, "ctype", ctype(E, t));
    tmpl_set(C, d, "elem_ctype", ctype(E, t->elem));
    tmpl_set(C, d, "rule", rule_comment(E, t));
    tmpl_flag(C, d, "bounded", t->occ_max != AST_OCCUR_INF && t->occ_max != SIZE_MAX);
    tmpl_set(C, d, "occ_max", size_lit(E, t->occ_max));
    tmpl_flag(C, d, "has_min", t->occ_min > 0);
    tmpl_set(C, d, "occ_min", size_lit(E, t->occ_min));
    fast_read(E, t->elem, false, false, "&out->items[out->count]", d);
    {
        tmpl_value *checks = tmpl_list(C), *k = tmpl_object(C);
        if (fast_check(E, t->elem, "v->items[i]", "        ", k))
            tmpl_append(C, checks, k);
        tmpl_put(C, d, "checks", checks);
    }
    return d;
}

/* Template data of discriminated union u's generated decoder (templates/fast_union.c.tmpl). */
static tmpl_value *fast_union(emitter *E, const ir_type *u, bool as_variants, bool as_compact_variants)
{
    cddl_ctx *C = E->ctx;
    tmpl_value *d = tmpl_object(C), *alts = tmpl_list(C);
    const ir_field *df = disc_field(u);
    const char *NAME = upper(E, u->c_name);
    bool from_disc, any_from_disc = false;
    size_t i;
    tmpl_set(C, d, "fn", fast_fn(E, u));
    tmpl_set(C, d, "ctype", ctype(E, u));
    tmpl_set(C, d, "rule", rule_comment(E, u));
    tmpl_set(C, d, "dkey", c_string(E, df->key.ptr, df->key.len));
    tmpl_setf(C, d, "dkey_len", "%zu", df->key.len);
    tmpl_set(C, d, "dsnake", c_string(E, df->snake, strlen(df->snake)));
    tmpl_setf(C, d, "dsnake_len", "%zu", strlen(df->snake));
    tmpl_flag(C, d, "as_variants", as_variants);
    tmpl_flag(C, d, "compact", compact_ok(u));
    tmpl_flag(C, d, "as_compact_variants", as_compact_variants);
    tmpl_set(C, d, "PREFIX", upper(E, E->opt->prefix));
    tmpl_set(C, d, "NAME", NAME);
    set_tokens(E, d, "d", df);
    tmpl_flag(C, d, "dtwo_spellings", !same_text(df->key.ptr, df->key.len, df->snake, strlen(df->snake)));
    for (i = 0; i < u->nalts; i++) {
        const ir_type *a = resolved(u->alts[i]);
        tmpl_value *v = tmpl_object(C);
        tmpl_setf(C, v, "KIND", "%s_%s_%s", upper(E, E->opt->prefix), NAME, upper(E, u->alt_c_names[i]));
        tmpl_set(C, v, "alt", u->alt_c_names[i]);
        tmpl_set(C, v, "alt_fn", fast_fn(E, a));
        tmpl_set(C, v, "lit", c_string(E, u->disc[i].text.ptr, u->disc[i].text.len));
        tmpl_setf(C, v, "lit_len", "%zu", u->disc[i].text.len);
        tmpl_set(C, v, "disc_bit", mask_lit(E, (uint64_t)1 << field_index(a, u->disc_key)));
        tmpl_set(C, v, "alt_required", mask_lit(E, required_bits(a)));
        from_disc = starts_with_disc(a, u);
        tmpl_flag(C, v, "from_disc", from_disc);
        any_from_disc |= from_disc;
        tmpl_append(C, alts, v);
    }
    tmpl_put(C, d, "alts", alts);
    tmpl_flag(C, d, "any_from_disc", any_from_disc);
    return d;
}

/* "&NAME" of the descriptor of `t`, for a pointer member of an initializer. */
static const char *desc_ref(emitter *E, const ir_type *t)
{
    return cddl_fmt(E->ctx, "&%s", desc_of(E, t));
}

/* The `u` member of a numeric or text descriptor: "union_member" and its "init". */
static void describe_scalar(emitter *E, const ir_type *t, tmpl_value *d)
{
    cddl_ctx *C = E->ctx;
    const char *p[7] = { NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    switch (t->kind) {
    case IR_INT:
        p[0] = field_if(E, 1, "min", int_lit(E, t->imin));
        p[1] = field_if(E, 1, "max", int_lit(E, t->imax));
        tmpl_set(C, d, "union_member", "i");
        break;
    case IR_UINT:
        p[0] = field_if(E, 1, "min", uint_lit(E, t->umin));
        p[1] = field_if(E, 1, "max", uint_lit(E, t->umax));
        p[2] = field_if(E, t->forbidden_bits != 0, "forbidden_bits", mask_lit(E, t->forbidden_bits));
        tmpl_set(C, d, "union_member", "u");
        break;
    case IR_FLOAT:
        p[0] = field_if(E, 1, "min", cddl_fmt(C, "%.17g", t->fmin));
        p[1] = field_if(E, 1, "max", cddl_fmt(C, "%.17g", t->fmax));
        p[2] = field_if(E, t->has_fmin, "has_min", "true");
        p[3] = field_if(E, t->has_fmax, "has_max", "true");
        p[4] = field_if(E, t->fmin_excl, "min_exclusive", "true");
        p[5] = field_if(E, t->fmax_excl, "max_exclusive", "true");
        p[6] = field_if(E, t->fwidth != 0, "width", cddl_fmt(C, "%d", t->fwidth));
        tmpl_set(C, d, "union_member", "f");
        break;
    case IR_BYTES:
        p[0] = field_if(E, 1, "min_len", cddl_fmt(C, "%zu", t->len_min));
        p[1] = field_if(E, 1, "max_len", size_lit(E, t->len_max));
        p[2] = field_if(E, t->embedded != NULL, "embedded", t->embedded ? desc_ref(E, t->embedded) : "");
        p[3] = field_if(E, t->sequence, "sequence", "true");
        tmpl_set(C, d, "union_member", "bytes");
        break;
    default: /* IR_TEXT */
        p[0] = field_if(E, 1, "min_len", cddl_fmt(C, "%zu", t->len_min));
        p[1] = field_if(E, 1, "max_len", size_lit(E, t->len_max));
        p[2] = field_if(E, t->pattern != NULL, "pattern",
                        t->pattern ? c_string(E, t->pattern, strlen(t->pattern)) : "");
        tmpl_set(C, d, "union_member", "text");
        break;
    }
    tmpl_set(C, d, "init", designated_u(E, p, 7));
}

/* The rows of a struct's member table (`struct_fields`): each an aps_field initializer. */
static tmpl_value *describe_fields(emitter *E, const ir_type *t, const char *ct)
{
    static const char *const names[] = { "APS_F_OPTIONAL", "APS_F_LITERAL", "APS_F_NULLABLE",
                                         "APS_F_PLAIN_NAMES", "APS_F_SHARED_NAME" };
    cddl_ctx *C = E->ctx;
    tmpl_value *fields = tmpl_list(C);
    size_t i, b;
    for (i = 0; i < t->nfields; i++) {
        const ir_field *f = &t->fields[i];
        tmpl_value *v = tmpl_object(C);
        char flags[120] = "";
        const char *p[5];
        for (b = 0; b < sizeof names / sizeof names[0]; b++)
            if (f->flags & (1u << b))
                snprintf(flags + strlen(flags), sizeof flags - strlen(flags), "%s%s", flags[0] ? " | " : "",
                         names[b]);
        tmpl_set(C, v, "key", c_string(E, f->key.ptr, f->key.len));
        tmpl_setf(C, v, "key_len", "%zu", f->key.len);
        tmpl_set(C, v, "snake", c_string(E, f->snake, strlen(f->snake)));
        tmpl_setf(C, v, "snake_len", "%zu", strlen(f->snake));
        tmpl_set(C, v, "type", desc_ref(E, f->type));
        /* the rest of the row, a line each: its flags and where the value lives, zeros left out */
        p[0] = field_if(E, flags[0] != '\0', "flags", flags);
        p[1] = field_if(E, !(f->flags & IR_F_LITERAL), "offset", cddl_fmt(C, "offsetof(%s, %s)", ct, f->c_name));
        p[2] = field_if(E, (f->flags & IR_F_OPTIONAL) != 0, "present_offset",
                        cddl_fmt(C, "offsetof(%s, has_%s)", ct, f->c_name));
        p[3] = field_if(E, (f->flags & IR_F_NULLABLE) != 0, "null_offset",
                        cddl_fmt(C, "offsetof(%s, %s_is_null)", ct, f->c_name));
        p[4] = f->cbor_key == NULL ? NULL
               : cddl_fmt(C, ".cbor_key = (const unsigned char *)%s, .cbor_key_len = %zu",
                          c_string(E, (const char *)f->cbor_key, f->cbor_key_len), f->cbor_key_len);
        tmpl_set(C, v, "rest", joined(E, p, 5, ",\n      "));
        tmpl_append(C, fields, v);
    }
    return fields;
}

/* A wide enumeration (its values sorted by lowering): matched through tables, not code per value. */
static bool wide_enum(const ir_type *t)
{
    return t->kind == IR_ENUM && t->sorted != NULL;
}

/* The descriptor's initializer and the auxiliary arrays it needs, as template data. */
static tmpl_value *describe(emitter *E, const ir_type *t, const char *name)
{
    cddl_ctx *C = E->ctx;
    tmpl_value *d = tmpl_object(C);
    const char *ct = t->named ? ctype(E, t) : NULL;
    const char *p[11] = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    size_t i;
    tmpl_set(C, d, "desc", name);
    tmpl_set(C, d, "rule_name", t->rule ? c_string(E, t->rule, strlen(t->rule)) : "");
    tmpl_set(C, d, "size", t->kind == IR_LITERAL ? "" : cddl_fmt(E->ctx, "sizeof(%s)", ctype(E, t)));
    tmpl_flag(C, d, "external", t->named);
    tmpl_set(C, d, "fast", emits_fast(E, t) ? fast_fn(E, t) : "");
    tmpl_set(C, d, "valid", emits_fast(E, t) ? cddl_fmt(C, "%s_valid", fast_fn(E, t)) : "");
    tmpl_set(C, d, "write", emits_fast(E, t) ? cddl_fmt(C, "%s_write", fast_fn(E, t)) : "");
    tmpl_set(C, d, "union_member", "");
    tmpl_set(C, d, "init", "");
    switch (t->kind) {
    case IR_ANY: case IR_BOOL:
        tmpl_set(C, d, "kind", t->kind == IR_ANY ? "APS_K_ANY" : "APS_K_BOOL");
        break;
    case IR_INT: case IR_UINT: case IR_FLOAT: case IR_TEXT: case IR_BYTES:
        tmpl_set(C, d, "kind", t->kind == IR_INT ? "APS_K_INT" : t->kind == IR_UINT ? "APS_K_UINT"
                               : t->kind == IR_FLOAT ? "APS_K_FLOAT" : t->kind == IR_BYTES ? "APS_K_BYTES" : "APS_K_TEXT");
        describe_scalar(E, t, d);
        break;
    case IR_TAG:
        tmpl_set(C, d, "kind", "APS_K_TAG");
        p[0] = field_if(E, 1, "number", uint_lit(E, t->tag));
        p[1] = field_if(E, 1, "content", desc_ref(E, t->content));
        tmpl_set(C, d, "union_member", "tag");
        tmpl_set(C, d, "init", designated_u(E, p, 2));
        break;
    case IR_LITERAL:
        tmpl_set(C, d, "kind", "APS_K_LITERAL");
        tmpl_set(C, d, "union_member", "lit");
        tmpl_set(C, d, "init", literal_init(E, &t->lit));
        break;
    case IR_ENUM: {
        tmpl_value *vals = tmpl_list(C);
        for (i = 0; i < t->nvalues; i++) {
            tmpl_value *v = tmpl_object(C);
            tmpl_set(C, v, "literal", literal_init(E, &t->values[i]));
            tmpl_append(C, vals, v);
        }
        tmpl_put(C, d, "enum_values", vals);
        tmpl_flag(C, d, "has_values", t->nvalues > 0);
        if (wide_enum(t)) {
            const unsigned *idx = t->sorted;
            tmpl_value *rows = tmpl_list(C);
            for (i = 0; i < t->nvalues; i += 16) { /* sixteen indices a line */
                tmpl_value *v = tmpl_object(C);
                const char *row = "";
                size_t j;
                for (j = i; j < t->nvalues && j < i + 16; j++)
                    row = cddl_fmt(C, "%s%s%u,", row, j == i ? "" : " ", idx[j]);
                tmpl_set(C, v, "row", row);
                tmpl_append(C, rows, v);
            }
            tmpl_put(C, d, "sorted_rows", rows);
        }
        tmpl_flag(C, d, "has_sorted", wide_enum(t));
        tmpl_set(C, d, "kind", "APS_K_ENUM");
        p[0] = field_if(E, t->nvalues > 0, "values", cddl_fmt(C, "%s_values", name));
        p[1] = field_if(E, 1, "count", cddl_fmt(C, "%zu", t->nvalues));
        p[2] = field_if(E, wide_enum(t), "sorted", cddl_fmt(C, "%s_sorted", name));
        p[3] = field_if(E, t->other != NULL, "other", t->other ? desc_ref(E, t->other) : "");
        p[4] = field_if(E, t->other != NULL, "other_offset", t->other ? cddl_fmt(C, "offsetof(%s, other)", ct) : "");
        tmpl_set(C, d, "union_member", "enm");
        tmpl_set(C, d, "init", designated_u(E, p, 5));
        break;
    }
    case IR_STRUCT:
        tmpl_put(C, d, "struct_fields", describe_fields(E, t, ct));
        tmpl_flag(C, d, "has_fields", t->nfields > 0);
        tmpl_set(C, d, "kind", t->positional ? "APS_K_TUPLE" : "APS_K_STRUCT");
        p[0] = field_if(E, t->nfields > 0, "fields", cddl_fmt(C, "%s_fields", name));
        p[1] = field_if(E, 1, "nfields", cddl_fmt(C, "%zu", t->nfields));
        p[2] = field_if(E, t->open, "open", "true");
        p[3] = field_if(E, t->open, "extras_offset", t->open ? cddl_fmt(C, "offsetof(%s, extras)", ct) : "");
        p[4] = field_if(E, t->extras_type != NULL, "extras_type", t->extras_type ? desc_ref(E, t->extras_type) : "");
        p[7] = field_if(E, t->extras_min != 0, "extras_min", cddl_fmt(C, "%llu", (unsigned long long)t->extras_min));
        p[8] = field_if(E, t->extras_max != 0, "extras_max", cddl_fmt(C, "%llu", (unsigned long long)t->extras_max));
        p[5] = field_if(E, t->variants != NULL, "variants", t->variants ? desc_ref(E, resolved(t->variants)) : "");
        p[6] = field_if(E, t->variants != NULL, "variants_offset",
                        t->variants ? cddl_fmt(C, "offsetof(%s, %s)", ct, t->variants_c_name) : "");
        p[9] = field_if(E, t->group, "group", "true");
        p[10] = field_if(E, t->extras_key != NULL, "extras_key", t->extras_key ? desc_ref(E, t->extras_key) : "");
        tmpl_set(C, d, "union_member", "st");
        tmpl_set(C, d, "init", designated_u(E, p, 11));
        break;
    case IR_ARRAY:
        tmpl_set(C, d, "kind", "APS_K_ARRAY");
        p[0] = field_if(E, 1, "elem", desc_ref(E, t->elem));
        p[1] = field_if(E, 1, "min", size_lit(E, t->occ_min));
        p[2] = field_if(E, 1, "max", size_lit(E, t->occ_max));
        p[3] = field_if(E, t->spread, "spread", "true");
        tmpl_set(C, d, "union_member", "arr");
        tmpl_set(C, d, "init", designated_u(E, p, 4));
        break;
    case IR_MAP:
        tmpl_set(C, d, "kind", "APS_K_MAP");
        p[0] = field_if(E, 1, "value", desc_ref(E, t->elem));
        p[1] = field_if(E, 1, "entry_size", cddl_fmt(C, "sizeof(%s_%s_entry_t)", E->opt->prefix, t->c_name));
        p[2] = field_if(E, 1, "value_offset", cddl_fmt(C, "offsetof(%s_%s_entry_t, value)", E->opt->prefix, t->c_name));
        p[3] = field_if(E, 1, "min", size_lit(E, t->occ_min));
        p[4] = field_if(E, 1, "max", size_lit(E, t->occ_max));
        tmpl_set(C, d, "union_member", "map");
        tmpl_set(C, d, "init", designated_u(E, p, 5));
        break;
    case IR_UNION: {
        tmpl_value *alts = tmpl_list(C), *disc = tmpl_list(C);
        static const char *const cls[] = { "APS_U_DISCRIMINATED", "APS_U_KIND", "APS_U_UNTAGGED", "APS_U_GROUPS" };
        int by_disc = t->cls == IR_U_DISCRIMINATED;
        for (i = 0; i < t->nalts; i++) {
            tmpl_value *v = tmpl_object(C);
            tmpl_set(C, v, "alt", desc_ref(E, resolved(t->alts[i])));
            tmpl_append(C, alts, v);
            if (by_disc) {
                v = tmpl_object(C);
                tmpl_set(C, v, "literal", literal_init(E, &t->disc[i]));
                tmpl_append(C, disc, v);
            }
        }
        tmpl_put(C, d, "union_alts", alts);
        tmpl_put(C, d, "union_disc", disc);
        tmpl_flag(C, d, "has_alts", t->nalts > 0);
        tmpl_flag(C, d, "has_disc", by_disc);
        tmpl_set(C, d, "kind", "APS_K_UNION");
        p[0] = field_if(E, 1, "cls", cls[t->cls]);
        p[1] = field_if(E, 1, "alts", cddl_fmt(C, "%s_alts", name));
        p[2] = field_if(E, 1, "nalts", cddl_fmt(C, "%zu", t->nalts));
        p[3] = field_if(E, by_disc, "disc_key", by_disc ? c_string(E, t->disc_key.ptr, t->disc_key.len) : "");
        p[4] = field_if(E, by_disc, "disc", by_disc ? cddl_fmt(C, "%s_disc", name) : "");
        p[5] = field_if(E, 1, "kind_offset", cddl_fmt(C, "offsetof(%s, kind)", ct));
        p[6] = field_if(E, 1, "payload_offset", cddl_fmt(C, "offsetof(%s, u)", ct));
        p[7] = field_if(E, 1, "raw_offset", cddl_fmt(C, "offsetof(%s, raw)", ct));
        tmpl_set(C, d, "union_member", "un");
        tmpl_set(C, d, "init", designated_u(E, p, 8));
        break;
    }
    case IR_ALIAS:
        break;
    }
    return d;
}

static size_t hash_ptr(const void *p)
{
    size_t h = (size_t)(uintptr_t)p;
    return (h >> 4) * (size_t)0x9E3779B97F4A7C15ull;
}

/* The index of t's descriptor when it has one already, in constant time; else SIZE_MAX. */
static size_t desc_pos(const emitter *E, const ir_type *t)
{
    size_t i;
    if (E->ndesc_slots == 0)
        return SIZE_MAX;
    for (i = hash_ptr(t) & (E->ndesc_slots - 1); E->desc_slots[i] != 0; i = (i + 1) & (E->ndesc_slots - 1))
        if (E->desc_types[E->desc_slots[i] - 1] == t)
            return E->desc_slots[i] - 1;
    return SIZE_MAX;
}

static const char *desc_find(const emitter *E, const ir_type *t)
{
    size_t i = desc_pos(E, t);
    return i == SIZE_MAX ? NULL : E->desc_names[i];
}

/* Puts the last descriptor into the hash, growing it to keep it half empty. */
static void desc_index(emitter *E)
{
    size_t i, k, from = E->ndescs - 1;
    if (E->ndescs * 2 > E->ndesc_slots) {
        E->ndesc_slots = E->ndesc_slots ? E->ndesc_slots * 2 : 256;
        E->desc_slots = cddl_alloc(E->ctx, E->ndesc_slots * sizeof *E->desc_slots);
        from = 0;
    }
    for (k = from; k < E->ndescs; k++) {
        for (i = hash_ptr(E->desc_types[k]) & (E->ndesc_slots - 1); E->desc_slots[i] != 0;
             i = (i + 1) & (E->ndesc_slots - 1))
            ;
        E->desc_slots[i] = k + 1;
    }
}

/* The descriptor name of `t`, defining it on first use. */
static const char *desc_of(emitter *E, const ir_type *t)
{
    const char *rt = runtime_desc(t), *name;

    t = resolved(t);
    if (rt != NULL)
        return rt;
    if ((rt = runtime_desc(t)) != NULL)
        return rt;
    if ((name = desc_find(E, t)) != NULL)
        return name;
    name = t->named ? cddl_fmt(E->ctx, "%s_%s_type", E->opt->prefix, t->c_name)
                    : cddl_fmt(E->ctx, "%s_%s_type", E->opt->prefix, t->c_name ? t->c_name : "anon");
    if (naming_set_has(&E->desc_set, name))
        name = cddl_fmt(E->ctx, "%s_%zu", name, E->ndescs);
    naming_set_add(E->ctx, &E->desc_set, name);
    {
        size_t n = E->ndescs;
        cddl_push(E->ctx, &E->desc_types, &n, sizeof t, &t);
        cddl_push(E->ctx, &E->desc_names, &E->ndescs, sizeof name, &name);
        desc_index(E);
    }
    if (!t->named) {
        tmpl_value *s = tmpl_object(E->ctx);
        tmpl_set(E->ctx, s, "desc", name);
        tmpl_append(E->ctx, E->statics, s);
    }
    tmpl_append(E->ctx, E->descs, describe(E, t, name));
    return name;
}

/* ---- declarations ------------------------------------------------------------ */

static void decl_order(emitter *E, ir_type *t, tmpl_value *out);

/* Types that `t` holds by value must be declared first. */
static void by_value_deps(emitter *E, const ir_type *t, tmpl_value *out)
{
    size_t i;
    switch (t->kind) {
    case IR_STRUCT:
        for (i = 0; i < t->nfields; i++)
            if (t->fields[i].type->named && !(t->fields[i].flags & IR_F_LITERAL))
                decl_order(E, t->fields[i].type, out);
            else if (t->fields[i].type->kind == IR_TAG && !(t->fields[i].flags & IR_F_LITERAL))
                by_value_deps(E, t->fields[i].type, out);
        if (t->variants != NULL)
            decl_order(E, t->variants, out);
        break;
    case IR_UNION:
        for (i = 0; i < t->nalts; i++)
            if (t->alts[i]->named)
                decl_order(E, t->alts[i], out);
            else if (t->alts[i]->kind == IR_TAG)
                by_value_deps(E, t->alts[i], out);
        break;
    case IR_MAP: /* held by pointer to entries, which are defined last: as an array */
    case IR_ARRAY: {
        /* held by pointer, but a typedef (enum, named primitive) has no forward declaration */
        const ir_type *el = t->elem, *target = t->elem;
        while (target->kind == IR_ALIAS)
            target = target->target;
        if (el->kind == IR_ALIAS && target->order_state == 1)
            break; /* an alias of a type being declared: left for decl_order to report */
        if (el->named && (el->kind == IR_ALIAS ||
                          (el->kind != IR_STRUCT && el->kind != IR_UNION && el->kind != IR_ARRAY &&
                           el->kind != IR_MAP && !(el->kind == IR_ENUM && el->other != NULL))))
            decl_order(E, t->elem, out);
        break;
    }
    case IR_ALIAS:
        decl_order(E, t->target, out);
        break;
    case IR_TAG: /* a typedef of its content's C type, or a member holding it */
        if (t->content->named)
            decl_order(E, t->content, out);
        else
            by_value_deps(E, t->content, out);
        break;
    default:
        break;
    }
}

static tmpl_value *declaration(emitter *E, const ir_type *t);

static void decl_order(emitter *E, ir_type *t, tmpl_value *out)
{
    if (t->order_state == 2)
        return;
    if (t->order_state == 1) {
        diag_report(E->ctx->diag, DIAG_ERROR, DIAG_W_NONE, t->loc,
                    "'%s' contains itself by value: put an array or map between (a C struct cannot hold itself)",
                    t->rule ? t->rule : t->c_name);
        return;
    }
    if (t->kind == IR_ALIAS) {
        /* a chain of aliases in a loop, not on the C stack: each typedef after the one it names */
        ir_type **chain = NULL, *a;
        size_t n = 0;
        for (a = t; a->kind == IR_ALIAS && a->order_state == 0; a = a->target) {
            a->order_state = 1;
            cddl_push(E->ctx, &chain, &n, sizeof a, &a);
        }
        decl_order(E, a, out);
        while (n-- > 0) {
            chain[n]->order_state = 2;
            tmpl_append(E->ctx, out, declaration(E, chain[n]));
        }
        return;
    }
    t->order_state = 1;
    by_value_deps(E, t, out);
    t->order_state = 2;
    tmpl_append(E->ctx, out, declaration(E, t));
}

static const char *schema_ref(emitter *E, const ir_type *t)
{
    unsigned line = 0, col = 0;
    const char *file;
    if (t->loc.src == NULL)
        return cddl_fmt(E->ctx, "Schema: `%s`.", rule_comment(E, t));
    cddl_source_position((cddl_source *)t->loc.src, t->loc.offset, &line, &col);
    file = strrchr(t->loc.src->name, '/');
    file = file ? file + 1 : t->loc.src->name;
    return cddl_fmt(E->ctx, "Schema: `%s` (%s:%u).", rule_comment(E, t), file, line);
}

/*
 * The runtime type a rule stands for, from a line `@c-type NAME HEADER` in
 * its comment (protocol.cddl: `Namespace` is aps_namespace, aps/namespace.h):
 * the header then declares `typedef NAME P_rule_t;` instead of a struct of
 * its own, so the generated code and the runtime share one type. NAME must
 * have the members the generated struct would have (for an array, `items`
 * and `count`); the C compiler checks every access. NULL when absent.
 */
static const char *extern_ctype(emitter *E, const ir_type *t, const char **header, bool report)
{
    const char *p = t->doc.ptr, *end;
    char name[128], path[256];
    if (E->opt->embed_runtime || p == NULL) /* no comment: no @c-type */
        return NULL;
    end = p + t->doc.len;
    while (p != NULL && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p)), *stop = nl ? nl : end;
        const char *line = cddl_fmt(E->ctx, "%.*s", (int)(stop - p), p);
        line += strspn(line, " \t");
        if (strncmp(line, "@c-type ", 8) == 0) {
            /* NAME an identifier, HEADER a path that can be written between quotes */
            if (sscanf(line + 8, "%127s %255s", name, path) != 2 ||
                strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(name) ||
                (name[0] >= '0' && name[0] <= '9') || strpbrk(path, "\"\\") != NULL ||
                t->kind != IR_ARRAY) {
                if (report)
                    diag_report(E->ctx->diag, DIAG_ERROR, DIAG_W_NONE, t->loc,
                                "'@c-type NAME HEADER' names the runtime type of an array rule: '%s' is not "
                                "one, or NAME is not a C identifier, or HEADER is missing or has quotes",
                                t->rule ? t->rule : t->c_name);
                return NULL;
            }
            *header = cddl_strdup(E->ctx, path, strlen(path));
            return cddl_strdup(E->ctx, name, strlen(name));
        }
        p = nl ? nl + 1 : end;
    }
    return NULL;
}

static tmpl_value *declaration(emitter *E, const ir_type *t)
{
    cddl_ctx *C = E->ctx;
    tmpl_value *d = tmpl_object(C);
    const char *NAME = upper(E, t->c_name), *header = NULL;
    size_t i, stored = 0;
    tmpl_set(C, d, "name", t->c_name);
    tmpl_set(C, d, "NAME", NAME);
    tmpl_set(C, d, "ctype", ctype(E, t));
    tmpl_set(C, d, "doc", doc_block(E, t->doc, schema_ref(E, t), 0));
    switch (t->kind) {
    case IR_STRUCT: {
        tmpl_value *fields = tmpl_list(C);
        tmpl_flag(C, d, "is_struct", 1);
        for (i = 0; i < t->nfields; i++) {
            const ir_field *f = &t->fields[i];
            tmpl_value *v;
            if ((f->flags & IR_F_LITERAL) && !(f->flags & IR_F_OPTIONAL))
                continue;
            v = tmpl_object(C);
            tmpl_flag(C, v, "presence_only", (f->flags & IR_F_LITERAL) != 0);
            if (f->flags & IR_F_LITERAL)
                tmpl_set(C, v, "literal_text", literal_comment(E, &f->type->lit));
            tmpl_set(C, v, "field", f->c_name);
            tmpl_set(C, v, "field_ctype", ctype(E, f->type));
            tmpl_set(C, v, "field_doc", member_doc(E, f->doc, 4));
            tmpl_set(C, v, "key", comment_text(E, f->key.ptr, f->key.len));
            tmpl_flag(C, v, "optional", (f->flags & IR_F_OPTIONAL) != 0);
            tmpl_flag(C, v, "nullable", (f->flags & IR_F_NULLABLE) != 0);
            tmpl_append(C, fields, v);
            stored++;
        }
        tmpl_put(C, d, "fields", fields);
        if (t->variants != NULL) {
            tmpl_set(C, d, "variants_ctype", ctype(E, t->variants));
            tmpl_set(C, d, "variants_name", t->variants_c_name);
            stored++;
        }
        tmpl_flag(C, d, "open", t->open);
        tmpl_flag(C, d, "empty", stored == 0 && !t->open);
        {
            tmpl_value *lits = tmpl_list(C);
            for (i = 0; i < t->nfields; i++) {
                const ir_field *f = &t->fields[i];
                tmpl_value *v;
                if (!(f->flags & IR_F_LITERAL) || (f->flags & IR_F_OPTIONAL))
                    continue; /* optional ones are documented at their presence flag */
                v = tmpl_object(C);
                tmpl_set(C, v, "lit_key", comment_text(E, f->key.ptr, f->key.len));
                tmpl_set(C, v, "lit_value", literal_comment(E, &f->type->lit));
                tmpl_set(C, v, "lit_doc", member_doc(E, f->doc, 4));
                tmpl_append(C, lits, v);
            }
            tmpl_put(C, d, "literals", lits);
        }
        break;
    }
    case IR_UNION: {
        tmpl_value *alts = tmpl_list(C), *payloads = tmpl_list(C);
        static const char *const how[] = { "by the member", "by the JSON kind of the value",
                                           "by trying each alternative in order (untagged)",
                                           "by the first group of alternatives whose entries match the elements" };
        tmpl_flag(C, d, "is_union", 1);
        tmpl_set(C, d, "how", how[t->cls]);
        if (t->cls == IR_U_DISCRIMINATED)
            tmpl_setf(C, d, "disc_key", " \"%s\"", comment_text(E, t->disc_key.ptr, t->disc_key.len));
        else
            tmpl_set(C, d, "disc_key", "");
        tmpl_flag(C, d, "untagged", t->cls == IR_U_UNTAGGED);
        for (i = 0; i < t->nalts; i++) {
            tmpl_value *v = tmpl_object(C);
            const ir_type *a = t->alts[i];
            tmpl_set(C, v, "alt", t->alt_c_names[i]);
            tmpl_set(C, v, "ALT", upper(E, t->alt_c_names[i]));
            tmpl_setf(C, v, "n", "%zu", i + 1);
            if (t->cls == IR_U_DISCRIMINATED)
                tmpl_setf(C, v, "alt_note", "%s = %s", comment_text(E, t->disc_key.ptr, t->disc_key.len),
                          literal_comment(E, &t->disc[i]));
            else
                tmpl_set(C, v, "alt_note", a->rule ? comment_text(E, a->rule, strlen(a->rule)) : t->alt_c_names[i]);
            tmpl_append(C, alts, v);
            if (resolved(a)->kind != IR_LITERAL) {
                v = tmpl_object(C);
                tmpl_set(C, v, "alt", t->alt_c_names[i]);
                tmpl_set(C, v, "alt_ctype", ctype(E, a));
                tmpl_append(C, payloads, v);
            }
        }
        tmpl_put(C, d, "alts", alts);
        tmpl_put(C, d, "payloads", payloads);
        break;
    }
    case IR_ENUM: {
        tmpl_value *vals = tmpl_list(C);
        tmpl_flag(C, d, "is_enum", t->other == NULL);
        tmpl_flag(C, d, "is_open_enum", t->other != NULL);
        for (i = 0; i < t->nvalues; i++) {
            tmpl_value *v = tmpl_object(C);
            tmpl_set(C, v, "VALUE", t->values[i].c_name);
            tmpl_setf(C, v, "n", "%zu", i + 1);
            tmpl_set(C, v, "literal", literal_comment(E, &t->values[i]));
            if (t->values[i].doc.len > 0)
                tmpl_setf(C, v, "value_doc", ": %s", comment_text(E, t->values[i].doc.ptr, t->values[i].doc.len));
            else
                tmpl_set(C, v, "value_doc", "");
            tmpl_append(C, vals, v);
        }
        tmpl_put(C, d, "values", vals);
        if (t->other != NULL)
            tmpl_set(C, d, "other_pattern", t->other->pattern ? comment_text(E, t->other->pattern, strlen(t->other->pattern))
                                                               : "any other text");
        break;
    }
    case IR_ARRAY:
        if (extern_ctype(E, t, &header, false) != NULL)
            break; /* declared with its doc among the forward typedefs */
        tmpl_flag(C, d, "is_array", 1);
        tmpl_set(C, d, "elem_ctype", ctype(E, t->elem));
        break;
    case IR_MAP: {
        /* the entry holds the value type by value, the map only points at entries: the entry is
         * defined after every type, so that the value's type may itself hold the map */
        tmpl_value *entry = tmpl_object(C);
        tmpl_flag(C, d, "is_map", 1);
        tmpl_set(C, entry, "name", t->c_name);
        tmpl_set(C, entry, "ctype", ctype(E, t));
        tmpl_set(C, entry, "elem_ctype", ctype(E, t->elem));
        tmpl_append(C, E->map_entries, entry);
        break;
    }
    case IR_ALIAS:
        tmpl_flag(C, d, "is_typedef", 1);
        tmpl_set(C, d, "base_ctype", ctype(E, t->target));
        break;
    case IR_LITERAL:
        /* a rule that is one literal: nothing to store */
        tmpl_flag(C, d, "is_typedef", 1);
        tmpl_set(C, d, "base_ctype", "aps_json_raw");
        break;
    default: {
        ir_type base = *t;
        base.named = false;
        base.rule = NULL;
        tmpl_flag(C, d, "is_typedef", 1);
        tmpl_set(C, d, "base_ctype", ctype(E, &base));
        break;
    }
    }
    return d;
}

/* Whether some struct whose reader_ok (fast_struct_ok, compact_ok) holds inlines union `u` as its variants. */
static bool used_as_variants(const emitter *E, const ir_type *u, bool (*reader_ok)(const ir_type *))
{
    size_t j;
    for (j = 0; j < E->ndescs; j++) {
        const ir_type *s = E->desc_types[j];
        if (s->kind == IR_STRUCT && s->variants != NULL && resolved(s->variants) == u && reader_ok(s))
            return true;
    }
    return false;
}

/*
 * The generated decoders of every type whose descriptor names one, in
 * descriptor order: "fast_structs", "fast_arrays" and "fast_unions" (a union that some
 * struct inlines as its variants also gets the functions that read it
 * member by member).
 */
static void fast_decoders(emitter *E, tmpl_value *data)
{
    cddl_ctx *C = E->ctx;
    tmpl_value *structs = tmpl_list(C), *unions = tmpl_list(C), *arrays = tmpl_list(C);
    size_t i, nmarked;
    bool *as_variants, *as_compact_variants;
    for (i = 0; i < E->ndescs; i++) { /* fast_struct may add descriptors: ndescs grows */
        const ir_type *t = E->desc_types[i];
        if (t->kind == IR_STRUCT && fast_struct_ok(t))
            tmpl_append(C, structs, fast_struct(E, t));
        else if (fast_array_ok(t))
            tmpl_append(C, arrays, fast_array(E, t));
    }
    /* the unions some struct inlines, marked in one pass (a scan per union is quadratic) */
    nmarked = E->ndescs;
    as_variants = cddl_alloc(C, (nmarked + 1) * sizeof *as_variants);
    as_compact_variants = cddl_alloc(C, (nmarked + 1) * sizeof *as_compact_variants);
    for (i = 0; i < E->ndescs; i++) {
        const ir_type *s = E->desc_types[i];
        size_t u;
        if (s->kind == IR_STRUCT && s->variants != NULL && fast_struct_ok(s) &&
            (u = desc_pos(E, resolved(s->variants))) != SIZE_MAX) {
            as_variants[u] = true;
            as_compact_variants[u] |= compact_ok(s);
        }
    }
    for (i = 0; i < E->ndescs; i++) {
        const ir_type *t = E->desc_types[i];
        if (t->kind != IR_UNION || !fast_union_ok(t))
            continue;
        tmpl_append(C, unions, fast_union(E, t, i < nmarked ? as_variants[i] : used_as_variants(E, t, fast_struct_ok),
                                          i < nmarked ? as_compact_variants[i] : used_as_variants(E, t, compact_ok)));
    }
    tmpl_put(C, data, "fast_structs", structs);
    tmpl_put(C, data, "fast_unions", unions);
    tmpl_put(C, data, "fast_arrays", arrays);
}

/* ---- builders, _INIT macros and names of kinds (templates/builders.h, names.c) ---- */

/* How a step of a builder picks its alternative, for its doc: `"type": "event"` or the alternative's name. */
static const char *hop_note(emitter *E, const ir_hop *h)
{
    const ir_type *u = h->in;
    if (u->cls == IR_U_DISCRIMINATED)
        return cddl_fmt(E->ctx, "\"%s\": %s", comment_text(E, u->disc_key.ptr, u->disc_key.len),
                        literal_comment(E, &u->disc[h->alt]));
    return u->alt_c_names[h->alt];
}

/* One builder: straight-line code that sets each union's kind on the way down. */
static tmpl_value *builder(emitter *E, const ir_type *owner, const ir_builder *b)
{
    cddl_ctx *C = E->ctx;
    tmpl_value *v = tmpl_object(C), *steps = tmpl_list(C);
    const char *path = NULL, *prev = "v";
    const ir_hop *last = &b->hops[b->nhops - 1];
    size_t i;
    for (i = 0; i < b->nhops; i++) {
        const ir_hop *h = &b->hops[i];
        tmpl_value *s = tmpl_object(C);
        const char *from = i == 0 ? (h->access[0] ? cddl_fmt(C, "&v->%s", h->access + 1) : "v")
                                  : cddl_fmt(C, "&%s->u.%s%s", prev, b->hops[i - 1].in->alt_c_names[b->hops[i - 1].alt],
                                             h->access);
        const char *var = cddl_fmt(C, "u%zu", i);
        tmpl_set(C, s, "var", var);
        tmpl_set(C, s, "from", from);
        tmpl_set(C, s, "union_ctype", ctype(E, h->in));
        tmpl_setf(C, s, "KIND", "%s_%s_%s", upper(E, E->opt->prefix), upper(E, h->in->c_name),
                  upper(E, h->in->alt_c_names[h->alt]));
        tmpl_append(C, steps, s);
        path = path ? cddl_fmt(C, "%s > %s", path, hop_note(E, h)) : hop_note(E, h);
        prev = var;
    }
    tmpl_setf(C, v, "fn", "%s_%s_as_%s", E->opt->prefix, owner->c_name, b->name);
    tmpl_set(C, v, "owner_ctype", ctype(E, owner));
    tmpl_set(C, v, "ret_ctype", ctype(E, last->in->alts[last->alt]));
    tmpl_set(C, v, "path", path);
    tmpl_put(C, v, "steps", steps);
    tmpl_setf(C, v, "ret", "&%s->u.%s", prev, last->in->alt_c_names[last->alt]);
    return v;
}

/* The spelling of each value of an enum, or of each kind of a union, for its _name function. */
static tmpl_value *kind_names(emitter *E, const ir_type *t)
{
    cddl_ctx *C = E->ctx;
    tmpl_value *names = tmpl_list(C);
    size_t i, n = t->kind == IR_ENUM ? t->nvalues : t->nalts;
    for (i = 0; i < n; i++) {
        tmpl_value *v = tmpl_object(C);
        const char *up = t->kind == IR_ENUM ? t->values[i].c_name : upper(E, t->alt_c_names[i]);
        const ir_literal *lit = t->kind == IR_ENUM ? &t->values[i]
                                : t->cls == IR_U_DISCRIMINATED ? &t->disc[i] : NULL;
        const char *text = lit != NULL ? lit->text.ptr : t->alts[i]->rule ? t->alts[i]->rule : t->alt_c_names[i];
        size_t len = lit != NULL ? lit->text.len : strlen(text);
        tmpl_setf(C, v, "CONST", "%s_%s_%s", upper(E, E->opt->prefix), upper(E, t->c_name), up);
        tmpl_set(C, v, "text", c_string(E, text, len));
        tmpl_setf(C, v, "len", "%zu", len);
        tmpl_append(C, names, v);
    }
    return names;
}

/* What templates/builders.h and names.c need of type t: its _INIT macro, builders, name functions. */
static void type_extras(emitter *E, const ir_type *t, tmpl_value *v)
{
    cddl_ctx *C = E->ctx;
    tmpl_value *bs = tmpl_list(C);
    size_t i;
    tmpl_set(C, v, "NAME", upper(E, t->c_name));
    tmpl_setf(C, v, "INIT", "%s_%s_INIT", upper(E, E->opt->prefix), upper(E, t->c_name));
    for (i = 0; i < t->nbuilders; i++)
        tmpl_append(C, bs, builder(E, t, &t->builders[i]));
    tmpl_put(C, v, "builders", bs);
    if (t->kind == IR_ENUM && t->other == NULL) {
        tmpl_value *e = tmpl_object(C);
        tmpl_flag(C, e, "wide", wide_enum(t));
        tmpl_flag(C, e, "narrow", !wide_enum(t));
        if (wide_enum(t)) {
            tmpl_set(C, e, "desc", cddl_fmt(C, "%s_%s_type", E->opt->prefix, t->c_name));
            tmpl_setf(C, e, "count", "%zu", t->nvalues);
        } else {
            tmpl_put(C, e, "names", kind_names(E, t));
        }
        tmpl_put(C, v, "enum_names", e);
    } else if (t->kind == IR_ENUM) {
        tmpl_value *e = tmpl_object(C);
        tmpl_put(C, e, "names", kind_names(E, t));
        tmpl_put(C, v, "open_enum_names", e);
    } else if (t->kind == IR_UNION) {
        tmpl_value *e = tmpl_object(C);
        tmpl_put(C, e, "names", kind_names(E, t));
        tmpl_flag(C, e, "discriminated", t->cls == IR_U_DISCRIMINATED);
        tmpl_put(C, v, "kind_names", e);
    }
}

/* ---- generated encoders --------------------------------------------------------
 * Every type with a generated decoder also gets a straight-line encoder
 * (templates/write_*.c.tmpl, aps/fast.h): member names and literal values
 * written as constant bytes, values by the writer's inline primitives, each
 * checked as it is written (the validator's checks, folded into the one
 * pass); what it gives up on, the tables write.
 */

/* s as a JSON string: quoted, with '"', '\\' and control characters escaped. */
static const char *json_quoted(emitter *E, const char *s, size_t len)
{
    char *out = cddl_alloc(E->ctx, len * 6 + 3), *w = out;
    size_t i;
    *w++ = '"';
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            *w++ = '\\';
            *w++ = (char)c;
        } else if (c < 0x20) {
            w += sprintf(w, "\\u%04x", c);
        } else {
            *w++ = (char)c;
        }
    }
    *w++ = '"';
    *w = '\0';
    return out;
}

/* The JSON text of literal l as the tables write it, or NULL where only they know it (floats). */
static const char *literal_json(emitter *E, const ir_literal *l)
{
    switch (l->kind) {
    case IR_LIT_TEXT: return json_quoted(E, l->text.ptr, l->text.len);
    case IR_LIT_INT: return cddl_fmt(E->ctx, "%lld", (long long)l->i);
    case IR_LIT_UINT: return cddl_fmt(E->ctx, "%llu", (unsigned long long)l->u);
    case IR_LIT_BOOL: return l->i ? "true" : "false";
    case IR_LIT_NULL: return "null";
    default: return NULL;
    }
}

/* `,"name":` of member f and what follows it (`tail`), as a C string: "NAMEtoken" and "NAMEtoken_len". */
static void set_write_token(emitter *E, tmpl_value *v, const char *name, const ir_field *f, const char *tail)
{
    cddl_ctx *C = E->ctx;
    const char *tok = cddl_fmt(C, ",%s:%s", json_quoted(E, f->key.ptr, f->key.len), tail);
    tmpl_set(C, v, name, c_string(E, tok, strlen(tok)));
    tmpl_setf(C, v, cddl_fmt(C, "%s_len", name), "%zu", strlen(tok));
}

/*
 * The range test of an integer, true when `target` is out of range or (for
 * `.bits`) has a bit set that must be clear; "" when any value fits.
 */
static const char *int_range(emitter *E, const ir_type *t, const char *target)
{
    bool lo = t->kind == IR_INT ? t->imin > INT64_MIN : t->umin > 0;
    bool hi = t->kind == IR_INT ? t->imax < INT64_MAX : t->umax < UINT64_MAX;
    const char *min = t->kind == IR_INT ? int_lit(E, t->imin) : uint_lit(E, t->umin);
    const char *max = t->kind == IR_INT ? int_lit(E, t->imax) : uint_lit(E, t->umax);
    const char *range = lo && hi ? cddl_fmt(E->ctx, "%s < %s || %s > %s", target, min, target, max)
                        : lo || hi ? cddl_fmt(E->ctx, "%s %s %s", target, lo ? "<" : ">", lo ? min : max)
                        : "";
    if (t->kind == IR_UINT && t->forbidden_bits != 0)
        return cddl_fmt(E->ctx, "%s%s(%s & %s) != 0", range, *range ? " || " : "", target,
                        mask_lit(E, t->forbidden_bits));
    return range;
}

/*
 * How a value of type `type` at `target` (a C lvalue; NULL for a literal
 * member, which has none) is written: one flag section of
 * templates/write_value.c.tmpl, indented by `indent`.
 */
static void write_value(emitter *E, const ir_type *type, const char *target, const char *indent, tmpl_value *v)
{
    cddl_ctx *C = E->ctx;
    const ir_type *t = resolved(type);
    tmpl_set(C, v, "desc", desc_of(E, type));
    tmpl_set(C, v, "target", target != NULL ? target : "");
    tmpl_set(C, v, "ptr", target != NULL ? cddl_fmt(C, "&%s", target) : "NULL");
    tmpl_set(C, v, "indent", indent);
    if (target == NULL) {
        tmpl_flag(C, v, "put_table", 1);
        return;
    }
    switch (t->kind) {
    case IR_TEXT: tmpl_flag(C, v, unconstrained_text(t) ? "put_text" : "put_checked_text", 1); break;
    case IR_UINT:
    case IR_INT:
        tmpl_flag(C, v, t->kind == IR_UINT ? "put_uint" : "put_int", 1);
        tmpl_set(C, v, "range", int_range(E, t, target));
        break;
    case IR_BOOL: tmpl_flag(C, v, "put_bool", 1); break;
    case IR_ANY: tmpl_flag(C, v, "put_any", 1); break;
    default:
        if (has_fast(t)) {
            tmpl_flag(C, v, "put_generated", 1);
            tmpl_set(C, v, "write_fn", fast_fn(E, t));
        } else {
            tmpl_flag(C, v, "put_table", 1);
        }
        break;
    }
}

/* Template data of struct t's generated encoder (templates/write_struct.c.tmpl). */
static tmpl_value *write_struct(emitter *E, const ir_type *t)
{
    cddl_ctx *C = E->ctx;
    tmpl_value *d = tmpl_object(C), *members = tmpl_list(C);
    bool written = false; /* a member before this one is always written: a comma is always due */
    size_t i;
    tmpl_set(C, d, "fn", fast_fn(E, t));
    tmpl_set(C, d, "ctype", ctype(E, t));
    tmpl_set(C, d, "rule", rule_comment(E, t));
    tmpl_set(C, d, "desc", desc_of(E, t));
    for (i = 0; i < t->nfields; i++) {
        const ir_field *f = &t->fields[i];
        tmpl_value *v = tmpl_object(C);
        bool optional = (f->flags & IR_F_OPTIONAL) != 0, nullable = (f->flags & IR_F_NULLABLE) != 0;
        const char *lit = (f->flags & IR_F_LITERAL) && !nullable ? literal_json(E, &resolved(f->type)->lit) : NULL;
        const char *indent = optional ? "        " : "    ";
        tmpl_set(C, v, "member", f->c_name);
        tmpl_flag(C, v, "optional", optional);
        tmpl_flag(C, v, "nullable", nullable);
        tmpl_set(C, v, "indent", indent);
        tmpl_set(C, v, "comma", written ? "1" : "w->len != first");
        set_write_token(E, v, "token", f, lit != NULL ? lit : "");
        set_write_token(E, v, "null_token", f, "null");
        tmpl_flag(C, v, "has_value", lit == NULL);
        if (lit == NULL)
            write_value(E, f->type, (f->flags & IR_F_LITERAL) ? NULL : cddl_fmt(C, "v->%s", f->c_name), indent, v);
        written |= !optional;
        tmpl_append(C, members, v);
    }
    tmpl_put(C, d, "members", members);
    tmpl_flag(C, d, "open", t->open);
    put_variants(E, t, d);
    return d;
}

/* Template data of array t's generated encoder (templates/write_array.c.tmpl). */
static tmpl_value *write_array(emitter *E, const ir_type *t)
{
    cddl_ctx *C = E->ctx;
    tmpl_value *d = tmpl_object(C);
    tmpl_set(C, d, "fn", fast_fn(E, t));
    tmpl_set(C, d, "ctype", ctype(E, t));
    tmpl_set(C, d, "rule", rule_comment(E, t));
    tmpl_flag(C, d, "bounded", t->occ_max != AST_OCCUR_INF && t->occ_max != SIZE_MAX);
    tmpl_set(C, d, "occ_max", size_lit(E, t->occ_max));
    tmpl_flag(C, d, "has_min", t->occ_min > 0);
    tmpl_set(C, d, "occ_min", size_lit(E, t->occ_min));
    write_value(E, t->elem, "v->items[i]", "        ", d);
    return d;
}

/* Template data of discriminated union u's generated encoder (templates/write_union.c.tmpl). */
static tmpl_value *write_union(emitter *E, const ir_type *u, bool as_variants)
{
    cddl_ctx *C = E->ctx;
    tmpl_value *d = tmpl_object(C), *alts = tmpl_list(C);
    const char *NAME = upper(E, u->c_name);
    size_t i;
    tmpl_set(C, d, "fn", fast_fn(E, u));
    tmpl_set(C, d, "ctype", ctype(E, u));
    tmpl_set(C, d, "rule", rule_comment(E, u));
    tmpl_flag(C, d, "as_variants", as_variants);
    for (i = 0; i < u->nalts; i++) {
        const ir_type *a = resolved(u->alts[i]);
        tmpl_value *v = tmpl_object(C);
        tmpl_setf(C, v, "KIND", "%s_%s_%s", upper(E, E->opt->prefix), NAME, upper(E, u->alt_c_names[i]));
        tmpl_set(C, v, "alt", u->alt_c_names[i]);
        tmpl_set(C, v, "alt_fn", fast_fn(E, a));
        tmpl_flag(C, v, "alt_plain", a->variants == NULL);
        tmpl_flag(C, v, "alt_open", a->open);
        tmpl_append(C, alts, v);
    }
    tmpl_put(C, d, "alts", alts);
    return d;
}

/*
 * The generated encoders, for the types with generated decoders, in
 * descriptor order: "write_structs", "write_arrays" and "write_unions" (a
 * union that some struct inlines as its variants also gets the function
 * that writes its members into that struct's object).
 */
static void fast_encoders(emitter *E, tmpl_value *data)
{
    cddl_ctx *C = E->ctx;
    tmpl_value *structs = tmpl_list(C), *unions = tmpl_list(C), *arrays = tmpl_list(C);
    size_t i;
    for (i = 0; i < E->ndescs; i++) {
        const ir_type *t = E->desc_types[i];
        if (t->kind == IR_STRUCT && fast_struct_ok(t))
            tmpl_append(C, structs, write_struct(E, t));
        else if (fast_array_ok(t))
            tmpl_append(C, arrays, write_array(E, t));
        else if (t->kind == IR_UNION && fast_union_ok(t))
            tmpl_append(C, unions, write_union(E, t, used_as_variants(E, t, fast_struct_ok)));
    }
    tmpl_put(C, data, "write_structs", structs);
    tmpl_put(C, data, "write_unions", unions);
    tmpl_put(C, data, "write_arrays", arrays);
}

int emit_module(cddl_ctx *ctx, const ir_module *mod, const emit_options *opt)
{
    emitter E;
    tmpl_value *data = tmpl_object(ctx), *decls = tmpl_list(ctx), *types = tmpl_list(ctx),
               *forwards = tmpl_list(ctx), *includes = tmpl_list(ctx);
    tmpl_source src;
    char path[4096];
    size_t i;
    int errors = 0;
    unsigned before = ctx->diag->errors;
    cddl_outfile out;
    memset(&E, 0, sizeof E);
    E.ctx = ctx;
    E.mod = mod;
    E.opt = opt;
    E.statics = tmpl_list(ctx);
    E.descs = tmpl_list(ctx);
    E.map_entries = tmpl_list(ctx);
    src.dir = opt->templates_dir;
    tmpl_set(ctx, data, "prefix", opt->prefix);
    tmpl_set(ctx, data, "PREFIX", upper(&E, opt->prefix));
    tmpl_set(ctx, data, "version", CDDLGEN_VERSION);
    /* the runtime cddlgen was built with is the one its output is for (header.h.tmpl checks it) */
    tmpl_set(ctx, data, "runtime_version", APS_VERSION_STRING);
    tmpl_setf(ctx, data, "runtime_major", "%d", APS_VERSION_MAJOR);
    tmpl_setf(ctx, data, "runtime_minor", "%d", APS_VERSION_MINOR);
    tmpl_set(ctx, data, "schema", mod->schema_name);
    tmpl_setf(ctx, data, "header", "%s.h", opt->prefix);
    tmpl_setf(ctx, data, "GUARD", "%s_H", upper(&E, opt->prefix));
    for (i = 0; i < mod->count; i++) {
        ir_type *t = mod->types[i];
        tmpl_value *v;
        if (t->kind == IR_STRUCT || t->kind == IR_UNION || t->kind == IR_ARRAY || t->kind == IR_MAP ||
            (t->kind == IR_ENUM && t->other != NULL)) {
            const char *header = NULL, *ext = extern_ctype(&E, t, &header, true); /* says once what is wrong */
            v = tmpl_object(ctx);
            tmpl_set(ctx, v, "name", t->c_name);
            tmpl_set(ctx, v, "ctype", ctype(&E, t));
            if (ext != NULL) {
                tmpl_value *h = tmpl_object(ctx);
                tmpl_set(ctx, v, "extern_ctype", ext);
                tmpl_set(ctx, v, "doc", doc_block(&E, t->doc, schema_ref(&E, t), 0));
                tmpl_set(ctx, h, "path", header);
                tmpl_append(ctx, includes, h);
            }
            tmpl_append(ctx, forwards, v);
        }
    }
    for (i = 0; i < mod->count; i++)
        decl_order(&E, mod->types[i], decls);
    for (i = 0; i < mod->count; i++) {
        const ir_type *t = mod->types[i];
        tmpl_value *v = tmpl_object(ctx);
        tmpl_set(ctx, v, "name", t->c_name);
        tmpl_set(ctx, v, "ctype", ctype(&E, t));
        tmpl_set(ctx, v, "rule", rule_comment(&E, t));
        tmpl_set(ctx, v, "rule_lit", c_string(&E, t->rule ? t->rule : t->c_name, strlen(t->rule ? t->rule : t->c_name)));
        tmpl_set(ctx, v, "desc", desc_of(&E, t));
        tmpl_set(ctx, v, "fast", emits_fast(&E, t) ? fast_fn(&E, t) : "");
        tmpl_flag(ctx, v, "alias", t->kind == IR_ALIAS);
        tmpl_flag(ctx, v, "untagged", resolved(t)->kind == IR_UNION && resolved(t)->cls == IR_U_UNTAGGED);
        if (t->kind == IR_ALIAS)
            tmpl_set(ctx, v, "alias_kind", resolved(t)->kind == IR_UNION ? cddl_fmt(E.ctx, "%s_kind", ctype(&E, resolved(t))) : "int");
        if (resolved(t)->kind == IR_UNION)
            tmpl_setf(ctx, v, "kind_type", "%s_%s_kind", opt->prefix, resolved(t)->c_name);
        tmpl_flag(ctx, v, "cbor", opt->cbor);
        type_extras(&E, t, v);
        tmpl_append(ctx, types, v);
    }
    tmpl_flag(ctx, data, "tables_only", opt->tables_only);
    tmpl_flag(ctx, data, "cbor", opt->cbor);
    if (!opt->tables_only) {
        fast_decoders(&E, data);
        fast_encoders(&E, data);
    }
    tmpl_put(ctx, data, "forwards", forwards);
    tmpl_put(ctx, data, "includes", includes);
    tmpl_put(ctx, data, "decls", decls);
    tmpl_put(ctx, data, "map_entries", E.map_entries);
    tmpl_put(ctx, data, "types", types);
    tmpl_put(ctx, data, "statics", E.statics);
    tmpl_put(ctx, data, "descs", E.descs);
    if (ctx->diag->errors > before)
        return (int)(ctx->diag->errors - before);
    if (opt->out_dir == NULL)
        return 0; /* `check`: the emitter's own checks (declaration order) ran, nothing is written */

    /* cddlgen's main makes the folder and its parents (mkdir -p); this covers other callers */
    if (mkdir(opt->out_dir, 0777) != 0 && errno != EEXIST) {
        diag_plain(ctx->diag, DIAG_ERROR, opt->out_dir, "cannot create the --out folder: %s", strerror(errno));
        return 1;
    }
    /* each file whole or not at all: written beside its target, then renamed over it */
    snprintf(path, sizeof path, "%s/%s.h", opt->out_dir, opt->prefix);
    if (cddl_outfile_open(ctx, &out, path) == NULL)
        return 1;
    errors += tmpl_render(ctx, &src, "header.h", data, out.f, path, CDDL_MAX_OUTPUT);
    errors += cddl_outfile_commit(ctx, &out, errors == 0);
    if (errors != 0)
        return errors;
    snprintf(path, sizeof path, "%s/%s.c", opt->out_dir, opt->prefix);
    if (cddl_outfile_open(ctx, &out, path) == NULL)
        return 1;
    errors += tmpl_render(ctx, &src, "source.c", data, out.f, path, CDDL_MAX_OUTPUT);
    errors += cddl_outfile_commit(ctx, &out, errors == 0);
    return errors;
}
