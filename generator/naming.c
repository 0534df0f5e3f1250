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
#include <stdbool.h>
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

/* ---- builders: paths of discriminants -------------------------------------- */

/*
 * A builder sets the kinds of a chain of unions and returns the payload at
 * its end, so `ap_message_as_text_delta(&m)->text = ...` stands for four
 * `kind =` lines and a long member path. The chain follows the spine of
 * each alternative: the one place inside it that holds a further union.
 *
 * The spine of a type (resolved through aliases):
 *   - a union: the union itself (access "");
 *   - a struct whose members inline a union (Command's CommandData): that
 *     union, at ".<variants member>";
 *   - another struct: through its only required member that is a union or
 *     a struct with a spine (".params.data"); none when there are two.
 * Literal alternatives carry no payload and end no builder (set their kind).
 */
#define SPINE_DEPTH 8

static const ir_type *base_of(const ir_type *t)
{
    while (t != NULL && t->kind == IR_ALIAS)
        t = t->base != NULL ? t->base : t->target;
    return t;
}

static bool has_payload(const ir_type *alt)
{
    return base_of(alt)->kind != IR_LITERAL;
}

/* The union on the spine of t and how to reach it (*access), or NULL. */
static const ir_type *spine(cddl_ctx *ctx, const ir_type *t, const char **access, int depth)
{
    const ir_type *found = NULL;
    const char *found_access = NULL;
    size_t i;
    t = base_of(t);
    *access = "";
    if (t == NULL || depth > SPINE_DEPTH)
        return NULL;
    if (t->kind == IR_UNION)
        return t;
    if (t->kind != IR_STRUCT)
        return NULL;
    if (t->variants != NULL && base_of(t->variants)->kind == IR_UNION) {
        *access = cddl_fmt(ctx, ".%s", t->variants_c_name);
        return base_of(t->variants);
    }
    for (i = 0; i < t->nfields; i++) {
        const ir_field *f = &t->fields[i];
        const ir_type *u;
        const char *sub;
        if (f->flags & (IR_F_OPTIONAL | IR_F_LITERAL | IR_F_NULLABLE))
            continue;
        if ((u = spine(ctx, f->type, &sub, depth + 1)) == NULL)
            continue;
        if (found != NULL)
            return NULL; /* two ways down: the user says which */
        found = u;
        found_access = cddl_fmt(ctx, ".%s%s", f->c_name, sub);
    }
    *access = found_access ? found_access : "";
    return found;
}

typedef struct builder_walk {
    cddl_ctx *ctx;
    ir_builder *out;
    size_t n;
    ir_hop path[SPINE_DEPTH];
} builder_walk;

/* Records a builder for every alternative of u with a payload, then follows each one's spine. */
static void walk_union(builder_walk *w, const ir_type *u, const char *access, size_t depth, bool deep)
{
    size_t i, k;
    for (i = 0; i < u->nalts; i++) {
        ir_builder b;
        const ir_type *next;
        const char *next_access;
        bool on_path = false;
        if (!has_payload(u->alts[i]))
            continue;
        w->path[depth].in = u;
        w->path[depth].alt = i;
        w->path[depth].access = access;
        memset(&b, 0, sizeof b);
        b.nhops = depth + 1;
        b.hops = cddl_alloc(w->ctx, b.nhops * sizeof *b.hops);
        memcpy(b.hops, w->path, b.nhops * sizeof *b.hops);
        cddl_push(w->ctx, &w->out, &w->n, sizeof b, &b);
        if (!deep || depth + 1 >= SPINE_DEPTH || (next = spine(w->ctx, u->alts[i], &next_access, 0)) == NULL)
            continue;
        for (k = 0; k <= depth; k++)
            on_path = on_path || w->path[k].in == next;
        if (!on_path) /* a recursive schema: each union once per path */
            walk_union(w, next, next_access, depth + 1, deep);
    }
}

/* The alternative names of b's last `k` hops, joined by '_'. */
static const char *builder_suffix(cddl_ctx *ctx, const ir_builder *b, size_t k)
{
    const char *s = NULL;
    size_t i;
    for (i = b->nhops - k; i < b->nhops; i++) {
        const char *alt = b->hops[i].in->alt_c_names[b->hops[i].alt];
        s = s ? cddl_fmt(ctx, "%s_%s", s, alt) : alt;
    }
    return s;
}

/*
 * Names the builders of one type: each by its last alternative, or by as
 * many of the last ones as it takes to tell it from the others
 * (content_block_start_data_text_content_block where text_content_block is
 * reachable twice).
 */
static void name_builders(cddl_ctx *ctx, ir_builder *b, size_t n)
{
    size_t *k = cddl_alloc(ctx, (n + 1) * sizeof *k), i;
    naming_set names;
    bool changed = true;
    for (i = 0; i < n; i++) {
        k[i] = 1;
        b[i].name = builder_suffix(ctx, &b[i], 1);
    }
    while (changed) {
        /* every builder of a shared name grows at once, so none keeps the short name by order */
        naming_set once, twice;
        memset(&once, 0, sizeof once);
        memset(&twice, 0, sizeof twice);
        for (i = 0; i < n; i++) {
            if (naming_set_has(&once, b[i].name))
                naming_set_add(ctx, &twice, b[i].name);
            naming_set_add(ctx, &once, b[i].name);
        }
        changed = false;
        for (i = 0; i < n; i++) {
            if (naming_set_has(&twice, b[i].name) && k[i] < b[i].nhops) {
                b[i].name = builder_suffix(ctx, &b[i], ++k[i]);
                changed = true;
            }
        }
    }
    /* two full paths that spell the same (a_b + c vs a + b_c): numbered */
    memset(&names, 0, sizeof names);
    for (i = 0; i < n; i++)
        b[i].name = naming_unique(ctx, &names, b[i].name, 2);
}

/* The key of a type in a set of types. */
static const char *type_key(cddl_ctx *ctx, const ir_type *t)
{
    return cddl_fmt(ctx, "%p", (const void *)base_of(t));
}

/* Marks what some union or spine reaches: those types are built from above, not on their own. */
static void mark_reached(cddl_ctx *ctx, const ir_type *t, naming_set *reached)
{
    const char *access;
    const ir_type *u;
    size_t i;
    t = base_of(t);
    if (t->kind == IR_STRUCT) {
        /* every struct on the spine, down to the union */
        for (i = 0; i < t->nfields; i++) {
            const ir_field *f = &t->fields[i];
            if (!(f->flags & (IR_F_OPTIONAL | IR_F_LITERAL | IR_F_NULLABLE)) &&
                spine(ctx, f->type, &access, 1) != NULL && base_of(f->type)->kind == IR_STRUCT)
                naming_set_add(ctx, reached, type_key(ctx, f->type));
        }
    }
    if ((u = spine(ctx, t, &access, 0)) != NULL && u != t)
        naming_set_add(ctx, reached, type_key(ctx, u));
    if (t->kind != IR_UNION)
        return;
    for (i = 0; i < t->nalts; i++) {
        const ir_type *a = base_of(t->alts[i]);
        naming_set_add(ctx, reached, type_key(ctx, a));
        if ((u = spine(ctx, a, &access, 0)) != NULL && u != a)
            naming_set_add(ctx, reached, type_key(ctx, u));
    }
}

/*
 * Every union gets a builder per alternative (one level: calls chain). A
 * root, a union or struct with a spine that no other union or spine
 * reaches (Message, Command), also gets one for every alternative below
 * it, so the usual message is one call away.
 */
static void naming_builders(cddl_ctx *ctx, ir_module *mod)
{
    naming_set reached;
    size_t i;
    memset(&reached, 0, sizeof reached);
    for (i = 0; i < mod->count; i++)
        if (mod->types[i]->kind == IR_UNION || mod->types[i]->kind == IR_STRUCT)
            mark_reached(ctx, mod->types[i], &reached);
    for (i = 0; i < mod->count; i++) {
        ir_type *t = mod->types[i];
        builder_walk w;
        const char *access;
        const ir_type *u;
        bool root = !naming_set_has(&reached, type_key(ctx, t));
        if (t->kind != IR_UNION && t->kind != IR_STRUCT)
            continue;
        if ((u = spine(ctx, t, &access, 0)) == NULL || (t->kind == IR_STRUCT && !root))
            continue;
        memset(&w, 0, sizeof w);
        w.ctx = ctx;
        walk_union(&w, u, access, 0, root);
        name_builders(ctx, w.out, w.n);
        t->builders = w.out;
        t->nbuilders = w.n;
    }
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
    ADD("o:%s_INIT", up);
    for (i = 0; i < t->nbuilders; i++)
        ADD("o:%s_as_%s", stem, t->builders[i].name);
    if (t->kind == IR_ENUM) {
        ADD("o:%s_name", stem);
        ADD("o:%s_parse", stem);
    }
    if (t->kind == IR_UNION)
        ADD("o:%s_kind_name", stem);
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
    naming_builders(ctx, mod);
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
