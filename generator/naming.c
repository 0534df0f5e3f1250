/*
 * naming.c - the one place C identifiers are derived from schema names.
 *
 * Rule and member names become snake_case stems (`run.start` -> run_start,
 * `ContentBlockDeltaData` -> content_block_delta_data, `eventId` -> event_id),
 * literals become constant suffixes (`"text-delta"` -> TEXT_DELTA). Names
 * that are C or C++ keywords get a trailing underscore; collisions get a
 * numeric suffix in schema order, and the caller reports both.
 */
#include "naming.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char *const reserved[] = {
    /* C99 */
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
    "typedef", "union", "unsigned", "void", "volatile", "while", "bool", "true", "false",
    /* C++, since the generated header is also compiled as C++ */
    "and", "asm", "catch", "class", "delete", "explicit", "export", "friend", "mutable",
    "namespace", "new", "not", "operator", "or", "private", "protected", "public",
    "template", "this", "throw", "try", "typeid", "typename", "using", "virtual", "xor",
    /* what the generated code itself uses inside structs */
    "kind", "u", "raw", "extras", NULL
};

int naming_is_reserved(const char *s)
{
    size_t i;
    for (i = 0; reserved[i] != NULL; i++)
        if (strcmp(reserved[i], s) == 0)
            return 1;
    return 0;
}

/* Appends c to out[*n] unless full. */
static void put(char *out, size_t cap, size_t *n, char c)
{
    if (*n + 1 < cap)
        out[(*n)++] = c;
}

size_t naming_snake(ast_str name, char *out, size_t cap)
{
    size_t i, n = 0;
    for (i = 0; i < name.len; i++) {
        unsigned char c = (unsigned char)name.ptr[i];
        unsigned char prev = i > 0 ? (unsigned char)name.ptr[i - 1] : 0;
        unsigned char next = i + 1 < name.len ? (unsigned char)name.ptr[i + 1] : 0;
        if (isupper(c)) {
            /* word boundary: aB -> a_b, 1B -> 1_b, ABc -> a_bc */
            if (n > 0 && out[n - 1] != '_' &&
                (islower(prev) || isdigit(prev) || (isupper(prev) && islower(next))))
                put(out, cap, &n, '_');
            put(out, cap, &n, (char)tolower(c));
        } else if (isalnum(c)) {
            put(out, cap, &n, (char)c);
        } else if (n > 0 && out[n - 1] != '_') {
            put(out, cap, &n, '_');
        }
    }
    while (n > 0 && out[n - 1] == '_')
        n--;
    if (n == 0)
        put(out, cap, &n, 'x');
    if (isdigit((unsigned char)out[0])) {
        if (n + 2 < cap) {
            memmove(out + 2, out, n);
            out[0] = 'n', out[1] = '_';
            n += 2;
        }
    }
    out[n] = '\0';
    return n;
}

size_t naming_constant(ast_str text, char *out, size_t cap)
{
    size_t i, n = naming_snake(text, out, cap);
    for (i = 0; i < n; i++)
        out[i] = (char)toupper((unsigned char)out[i]);
    if (text.len == 0) {
        strncpy(out, "EMPTY", cap - 1);
        out[cap - 1] = '\0';
        n = strlen(out);
    }
    return n;
}

size_t naming_key_snake(ast_str key, char *out, size_t cap)
{
    /* The wire's snake_case: only camelCase humps become '_', nothing else changes. */
    size_t i, n = 0;
    for (i = 0; i < key.len; i++) {
        unsigned char c = (unsigned char)key.ptr[i];
        unsigned char prev = i > 0 ? (unsigned char)key.ptr[i - 1] : 0;
        if (isupper(c) && (islower(prev) || isdigit(prev))) {
            put(out, cap, &n, '_');
            put(out, cap, &n, (char)tolower(c));
        } else if (isupper(c) && isupper(prev) && i + 1 < key.len && islower((unsigned char)key.ptr[i + 1])) {
            put(out, cap, &n, '_');
            put(out, cap, &n, (char)tolower(c));
        } else {
            put(out, cap, &n, (char)(isupper(c) ? tolower(c) : c));
        }
    }
    out[n] = '\0';
    return n;
}

/* ---- sets of identifiers ------------------------------------------------------ */

struct naming_slot {
    const char *name;  /* NULL: empty */
    size_t next;       /* the next suffix naming_unique tries on this base */
    size_t value;      /* naming_set_put's */
};

static size_t hash_text(const char *s)
{
    size_t h = (size_t)1469598103934665603ull;
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * (size_t)1099511628211ull;
    return h;
}

static struct naming_slot *find_slot(const naming_set *s, const char *name)
{
    size_t i = hash_text(name) & (s->cap - 1);
    while (s->slots[i].name != NULL && strcmp(s->slots[i].name, name) != 0)
        i = (i + 1) & (s->cap - 1);
    return &s->slots[i];
}

int naming_set_has(const naming_set *s, const char *name)
{
    return s->cap != 0 && find_slot(s, name)->name != NULL;
}

void naming_set_add(cddl_ctx *ctx, naming_set *s, const char *name)
{
    struct naming_slot *slot;
    if ((s->count + 1) * 2 > s->cap) {
        struct naming_slot *old = s->slots;
        size_t i, oldcap = s->cap;
        s->cap = oldcap ? oldcap * 2 : 8; /* most sets hold a few names: one per small struct */
        s->slots = cddl_alloc(ctx, s->cap * sizeof *s->slots); /* zeroed */
        for (i = 0; i < oldcap; i++)
            if (old[i].name != NULL)
                *find_slot(s, old[i].name) = old[i];
    }
    slot = find_slot(s, name);
    if (slot->name == NULL) {
        slot->name = name;
        slot->next = 0;
        s->count++;
    }
}

void naming_set_put(cddl_ctx *ctx, naming_set *s, const char *name, size_t value)
{
    naming_set_add(ctx, s, name);
    find_slot(s, name)->value = value;
}

int naming_set_get(const naming_set *s, const char *name, size_t *value)
{
    const struct naming_slot *slot;
    if (s->cap == 0 || (slot = find_slot(s, name))->name == NULL)
        return 0;
    *value = slot->value;
    return 1;
}

const char *naming_unique(cddl_ctx *ctx, naming_set *s, const char *base, size_t first)
{
    struct naming_slot *slot;
    const char *name = base;
    size_t n;
    if (!naming_set_has(s, base)) {
        naming_set_add(ctx, s, base);
        return base;
    }
    slot = find_slot(s, base);
    n = slot->next > first ? slot->next : first;
    do
        name = cddl_fmt(ctx, "%s_%zu", base, n++);
    while (naming_set_has(s, name));
    find_slot(s, base)->next = n;
    naming_set_add(ctx, s, name);
    return name;
}

/* ---- the identifiers of a named type ---------------------------------------- */

/* Suffixes of the stem in the ordinary namespace that every named type may declare. */
static const char *const ordinary_suffixes[] = {
    "_t", "_type", "_decode", "_decode_opts", "_decode_as", "_encode", "_encode_opts", "_validate", "_fast",
};

static void upper_into(char *out, size_t cap, const char *s)
{
    size_t i;
    for (i = 0; s[i] != '\0' && i + 1 < cap; i++)
        out[i] = (char)toupper((unsigned char)s[i]);
    out[i] = '\0';
}

/*
 * The identifiers a type named `stem` declares, each with its namespace:
 * "t:" struct and enum tags, "o:" typedefs, functions, objects and enum
 * constants (C's ordinary identifiers). The templates decide the spelling;
 * this list follows them (tests/pipeline checks the output compiles).
 */
static void type_identifiers(cddl_ctx *ctx, const ir_type *t, const char *stem, const char ***out, size_t *n)
{
    char up[512];
    const char *id;
    size_t i;
    int tagged = t->kind == IR_STRUCT || t->kind == IR_UNION || t->kind == IR_ARRAY || t->kind == IR_MAP ||
                 t->kind == IR_ENUM;
    *n = 0;
#define ADD(...) (id = cddl_fmt(ctx, __VA_ARGS__), cddl_push(ctx, out, n, sizeof id, &id))
    for (i = 0; i < sizeof ordinary_suffixes / sizeof ordinary_suffixes[0]; i++)
        ADD("o:%s%s", stem, ordinary_suffixes[i]);
    if (tagged)
        ADD("t:%s", stem);
    upper_into(up, sizeof up, stem);
    if (t->kind == IR_UNION || (t->kind == IR_ENUM && t->other != NULL)) {
        ADD("t:%s_kind", stem);
        ADD("o:%s_kind", stem);
        ADD("o:%s_UNKNOWN", up);
        ADD("o:%s_OTHER", up);
    }
    if (t->kind == IR_MAP) {
        ADD("t:%s_entry", stem);
        ADD("o:%s_entry_t", stem);
    }
    if (t->kind == IR_ENUM) {
        ADD("o:%s_NONE", up);
        for (i = 0; i < t->nvalues; i++)
            ADD("o:%s_%s", up, t->values[i].c_name);
    }
    for (i = 0; t->kind == IR_UNION && i < t->nalts; i++) {
        char alt[256];
        upper_into(alt, sizeof alt, t->alt_c_names[i]);
        ADD("o:%s_%s", up, alt);
    }
#undef ADD
}

void naming_reserve_types(cddl_ctx *ctx, ir_module *mod, naming_set *stems)
{
    naming_set taken;
    size_t i, k, n, suffix;
    memset(&taken, 0, sizeof taken);
    for (i = 0; i < mod->count; i++) {
        ir_type *t = mod->types[i];
        const char *stem = t->c_name, **ids = NULL;
        int clash = 1;
        for (suffix = 2; clash; suffix++) {
            type_identifiers(ctx, t, stem, &ids, &n);
            clash = 0;
            for (k = 0; k < n && !clash; k++)
                clash = naming_set_has(&taken, ids[k]);
            if (clash) {
                do
                    stem = cddl_fmt(ctx, "%s_%zu", t->c_name, suffix++);
                while (naming_set_has(stems, stem));
                suffix--;
                ids = NULL;
            }
        }
        for (k = 0; k < n; k++)
            naming_set_add(ctx, &taken, ids[k]);
        if (stem != t->c_name) {
            diag_report(ctx->diag, DIAG_WARNING, DIAG_W_NAMING, t->loc,
                        "the C names of '%s' would meet those of an earlier type (its kind enum, entry "
                        "struct or constants): named '%s'",
                        t->rule ? t->rule : t->c_name, stem);
            naming_set_add(ctx, stems, stem);
            t->c_name = stem;
        }
    }
}
