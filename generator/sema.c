/*
 * sema.c - binds names and checks a parsed schema (see sema.h).
 *
 * Passes, in order: collect definitions into the symbol table; classify each
 * rule as type or group (a fixed point, since `a = b` is whatever b is);
 * walk every user rule checking each name use and each type/group position;
 * find rules that can never match (a fixed point over "productive"); report
 * unused rules when asked. Each pass only reads what earlier passes built.
 */
#include "sema.h"

#include <stdlib.h>
#include <string.h>

/* Where an expression stands, which decides what it may be. */
typedef enum position {
    POS_TYPE,        /* a type is required: member value, operand, choice item */
    POS_ENTRY,       /* a group entry whose container is not known (a group rule body) */
    POS_ENTRY_ARRAY, /* an entry of an array */
    POS_ENTRY_MAP,   /* an entry of a map: it needs a key */
    POS_ARG          /* a generic argument: a type or a group */
} position;

typedef struct sema {
    cddl_ctx *ctx;
    diag_ctx *diag;
    sema_table *table;
    const ast_rule *scope;  /* rule being checked, for its generic parameters */
    const ast_group **walked; /* groups find_keyless_maps has entered in this walk */
    size_t nwalked;
} sema;

#define ERROR(s, loc, ...) diag_report((s)->diag, DIAG_ERROR, DIAG_W_NONE, (loc), __VA_ARGS__)
#define NOTE(s, loc, ...) diag_report((s)->diag, DIAG_NOTE, DIAG_W_NONE, (loc), __VA_ARGS__)
#define NAMEF(str) diag_clip((str).len, 64), (str).ptr

/* Marks on entries, so a group inlined in many maps is reported once. */
enum { ENTRY_KEYLESS_REPORTED = 1 };

/* ---- symbol table --------------------------------------------------------- */

static size_t hash_name(ast_str s)
{
    size_t h = 1469598103934665603ull & (size_t)-1, i;
    for (i = 0; i < s.len; i++)
        h = (h ^ (unsigned char)s.ptr[i]) * (size_t)1099511628211ull;
    return h;
}

sema_symbol *sema_lookup(const sema_table *t, ast_str name)
{
    size_t i;
    if (t->nbuckets == 0)
        return NULL;
    for (i = hash_name(name) & (t->nbuckets - 1);; i = (i + 1) & (t->nbuckets - 1)) {
        size_t slot = t->buckets[i];
        if (slot == 0)
            return NULL;
        if (ast_str_same(t->symbols[slot - 1]->name, name))
            return t->symbols[slot - 1];
    }
}

static void table_rehash(sema *s, size_t nbuckets)
{
    sema_table *t = s->table;
    size_t k;
    t->buckets = cddl_alloc(s->ctx, nbuckets * sizeof *t->buckets);
    t->nbuckets = nbuckets;
    for (k = 0; k < t->count; k++) {
        size_t i = hash_name(t->symbols[k]->name) & (nbuckets - 1);
        while (t->buckets[i] != 0)
            i = (i + 1) & (nbuckets - 1);
        t->buckets[i] = k + 1;
    }
}

static sema_symbol *table_add(sema *s, ast_str name)
{
    sema_table *t = s->table;
    sema_symbol *sym = cddl_alloc(s->ctx, sizeof *sym);
    sym->name = name;
    sym->order = t->count;
    cddl_push(s->ctx, &t->symbols, &t->count, sizeof sym, &sym);
    if (t->count * 2 > t->nbuckets)
        table_rehash(s, t->nbuckets ? t->nbuckets * 4 : 256);
    else {
        size_t i = hash_name(name) & (t->nbuckets - 1);
        while (t->buckets[i] != 0)
            i = (i + 1) & (t->nbuckets - 1);
        t->buckets[i] = t->count;
    }
    return sym;
}

static const char *assign_text(ast_assign a)
{
    return a == AST_ASSIGN_DEFINE ? "=" : a == AST_ASSIGN_TYPE_ALT ? "/=" : "//=";
}

static void collect(sema *s, ast_document *doc)
{
    size_t i, k;
    for (i = 0; i < doc->nrules; i++) {
        ast_rule *r = doc->rules[i];
        sema_symbol *sym = sema_lookup(s->table, r->name);
        for (k = 0; k < r->nparams; k++) {
            size_t j;
            for (j = 0; j < k; j++)
                if (ast_str_same(r->params[j], r->params[k]))
                    ERROR(s, r->param_locs[k], "generic parameter '%.*s' declared twice", NAMEF(r->params[k]));
        }
        if (sym == NULL) {
            sym = table_add(s, r->name);
            sym->from_prelude = r->from_prelude;
        }
        if (r->assign != AST_ASSIGN_DEFINE) {
            cddl_push(s->ctx, &sym->alts, &sym->nalts, sizeof r, &r);
            continue;
        }
        if (sym->def != NULL && sym->def->from_prelude && !r->from_prelude) {
            diag_report(s->diag, DIAG_WARNING, DIAG_W_SHADOW, r->name_loc,
                        "rule '%.*s' replaces the prelude definition", NAMEF(r->name));
            sym->from_prelude = 0;
        } else if (sym->def != NULL && ast_rule_equal(sym->def, r)) {
            /* RFC 8610 3.1 forbids only a different re-definition; an identical one adds nothing */
            diag_report(s->diag, DIAG_NOTE, DIAG_W_NONE, r->name_loc,
                        "rule '%.*s' defined again, identically: the repetition is ignored", NAMEF(r->name));
            continue;
        } else if (sym->def != NULL) {
            ERROR(s, r->name_loc, "rule '%.*s' defined twice with '='", NAMEF(r->name));
            NOTE(s, sym->def->name_loc, "first defined here");
            continue;
        }
        sym->def = r;
    }
}

/* The definition that fixes a symbol's shape: `=`, or the first extension. */
static const ast_rule *primary(const sema_symbol *sym)
{
    return sym->def != NULL ? sym->def : sym->nalts > 0 ? sym->alts[0] : NULL;
}

/* ---- classification ------------------------------------------------------- */

static int is_param(const ast_rule *scope, ast_str name)
{
    size_t i;
    if (scope == NULL)
        return 0;
    for (i = 0; i < scope->nparams; i++)
        if (ast_str_same(scope->params[i], name))
            return 1;
    return 0;
}

static const ast_type *unwrap_target(const sema_table *t, const ast_type *type);

sema_kind sema_type_kind(const sema_table *t, const ast_rule *scope, const ast_type *type)
{
    const ast_type *inner;
    const sema_symbol *sym;
    switch (type->kind) {
    case AST_T_UNWRAP:
        /* ~map and ~array give a group; ~tag gives the tagged type (RFC 8610 3.7) */
        inner = unwrap_target(t, type);
        return inner != NULL && inner->kind == AST_T_TAG ? SEMA_TYPE : SEMA_GROUP;
    case AST_T_NAME:
        if (is_param(scope, type->u.name.name))
            return SEMA_TYPE;
        sym = sema_lookup(t, type->u.name.name);
        return sym ? sym->kind : SEMA_TYPE;
    case AST_T_PAREN:
        inner = ast_paren_inner(type);
        return inner ? sema_type_kind(t, scope, inner) : SEMA_GROUP;
    default:
        return SEMA_TYPE;
    }
}

static sema_kind rule_kind(const sema_table *t, const ast_rule *r)
{
    if (r->assign == AST_ASSIGN_GROUP_ALT)
        return SEMA_GROUP;
    if (r->assign == AST_ASSIGN_TYPE_ALT)
        return SEMA_TYPE;
    if (r->body->key_kind != AST_KEY_NONE || r->body->has_occur)
        return SEMA_GROUP;
    return sema_type_kind(t, r, r->body->type);
}

/* The symbol an alias rule's kind waits for (`a = b`, `a = (b)`), or NULL. */
static sema_symbol *kind_source(const sema_table *t, const ast_rule *r)
{
    const ast_type *type = r->body->type;
    while (type->kind == AST_T_PAREN && ast_paren_inner(type) != NULL)
        type = ast_paren_inner(type);
    if (type->kind != AST_T_NAME || is_param(r, type->u.name.name))
        return NULL;
    return sema_lookup(t, type->u.name.name);
}

static void classify(sema *s)
{
    size_t i, n;
    sema_symbol **chain = NULL;
    size_t pushed = 0;
    /*
     * A rule's kind is its alias target's: follow each chain of aliases to
     * its end once and set the kinds on the way back, so a chain of n
     * aliases costs n steps, not n passes over the table.
     */
    for (i = 0; i < s->table->count; i++) {
        sema_symbol *sym = s->table->symbols[i];
        sema_kind k = SEMA_UNKNOWN;
        n = 0;
        while (sym != NULL && sym->kind == SEMA_UNKNOWN && primary(sym) != NULL && !sym->visiting) {
            k = rule_kind(s->table, primary(sym));
            if (k != SEMA_UNKNOWN) {
                sym->kind = k;
                break;
            }
            sym->visiting = 1;
            cddl_push(s->ctx, &chain, &pushed, sizeof sym, &sym);
            n++;
            sym = kind_source(s->table, primary(sym));
        }
        k = sym != NULL && !sym->visiting ? sym->kind : SEMA_UNKNOWN;
        while (n-- > 0) {
            sema_symbol *c = chain[--pushed];
            c->visiting = 0;
            /* a cycle of aliases has no kind: a type, as below, now, so no later walk retraces it */
            c->kind = k != SEMA_UNKNOWN ? rule_kind(s->table, primary(c)) : SEMA_TYPE;
        }
    }
    /* What is left are aliases of each other with no definition behind them;
     * the productivity check reports them, call them types meanwhile. */
    for (i = 0; i < s->table->count; i++)
        if (s->table->symbols[i]->kind == SEMA_UNKNOWN)
            s->table->symbols[i]->kind = SEMA_TYPE;
}

/* ---- suggestions ---------------------------------------------------------- */

static size_t edit_distance(ast_str a, ast_str b, size_t limit)
{
    size_t row[65], i, j;
    if (a.len > 64 || b.len > 64)
        return limit + 1;
    for (j = 0; j <= b.len; j++)
        row[j] = j;
    for (i = 1; i <= a.len; i++) {
        size_t diag = row[0], best;
        row[0] = i;
        best = row[0];
        for (j = 1; j <= b.len; j++) {
            size_t up = row[j];
            char ca = a.ptr[i - 1], cb = b.ptr[j - 1];
            size_t cost = ca == cb ? 0 : ((ca | 0x20) == (cb | 0x20) ? 0 : 1);
            size_t v = diag + cost;
            if (up + 1 < v)
                v = up + 1;
            if (row[j - 1] + 1 < v)
                v = row[j - 1] + 1;
            diag = up;
            row[j] = v;
            if (v < best)
                best = v;
        }
        if (best > limit)
            return limit + 1;
    }
    return row[b.len];
}

/* The known name closest to `name`, within a third of its length, into *out; 0 if none. */
static int suggest(const sema *s, ast_str name, ast_str *out)
{
    size_t i, best = (name.len + 2) / 3, d;
    int found = 0;
    if (best == 0)
        best = 1;
    for (i = 0; i < s->table->count; i++) {
        d = edit_distance(name, s->table->symbols[i]->name, best);
        if (d <= best && (!found || d < best)) {
            *out = s->table->symbols[i]->name;
            found = 1;
            best = d;
        }
    }
    for (i = 0; s->scope != NULL && i < s->scope->nparams; i++) {
        d = edit_distance(name, s->scope->params[i], best);
        if (d <= best && (!found || d < best)) {
            *out = s->scope->params[i];
            found = 1;
            best = d;
        }
    }
    return found;
}

/* ---- the checking walk ---------------------------------------------------- */

static void check_type(sema *s, ast_type *t, position pos);
static int zcbor_group_choice(sema *s, ast_type **type);

/* The -Wloose warning of a zcbor form sema reads (the token-level ones are parser.y's). */
static void zcbor_warning(sema *s, src_loc at, const char *what)
{
    diag_report(s->diag, DIAG_WARNING, DIAG_W_LOOSE, at, "%s: not RFC 8610 CDDL but zcbor's, read as zcbor reads it", what);
}

/* Whether t is a group: a parenthesized one, or the name of one (not a generic parameter). */
static int names_group(const sema *s, const ast_type *t)
{
    const sema_symbol *sym;
    if (t->kind == AST_T_PAREN)
        return ast_paren_inner(t) == NULL;
    if (t->kind != AST_T_NAME || is_param(s->scope, t->u.name.name))
        return 0;
    sym = sema_lookup(s->table, t->u.name.name);
    return sym != NULL && sym->kind == SEMA_GROUP;
}

static void check_group(sema *s, ast_group *g, position pos);

/* Follows aliases (`a = b`, `a = (b)`) to the expression that defines a type. */
static const ast_type *resolve_alias(const sema_table *t, const ast_type *type, int depth)
{
    while (depth-- > 0) {
        const ast_type *inner = ast_paren_inner(type);
        const sema_symbol *sym;
        if (inner != NULL) {
            type = inner;
            continue;
        }
        if (type->kind != AST_T_NAME)
            return type;
        sym = sema_lookup(t, type->u.name.name);
        if (sym == NULL || sym->def == NULL || sym->def->nparams > 0 ||
            sym->def->body->key_kind != AST_KEY_NONE || sym->def->body->has_occur)
            return type;
        type = sym->def->body->type;
    }
    return type;
}

/* What `~name` unwraps: the map, array or tag that `name` stands for, or NULL. */
static const ast_type *unwrap_target(const sema_table *t, const ast_type *type)
{
    const sema_symbol *sym = sema_lookup(t, type->u.name.name);
    const ast_type *target;
    if (sym == NULL || sym->def == NULL || sym->def->body->key_kind != AST_KEY_NONE)
        return NULL;
    target = resolve_alias(t, sym->def->body->type, 16);
    return target->kind == AST_T_MAP || target->kind == AST_T_ARRAY || target->kind == AST_T_TAG ? target : NULL;
}

/* True when every alternative of `type` is a map (through aliases and choices). */
static int is_map_type(const sema_table *t, const ast_type *type, int depth)
{
    size_t i;
    if (depth <= 0)
        return 0;
    type = resolve_alias(t, type, 16);
    if (type->kind == AST_T_MAP)
        return 1;
    if (type->kind == AST_T_CHOICE) {
        for (i = 0; i < type->u.choice.count; i++)
            if (!is_map_type(t, type->u.choice.items[i], depth - 1))
                return 0;
        return 1;
    }
    return 0;
}

/* A group whose every choice is one plain type: `(A // B // C)`. */
static int is_choice_of_types(const sema_table *t, const ast_rule *scope, const ast_group *g)
{
    size_t c;
    for (c = 0; c < g->count; c++) {
        const ast_grpchoice *ch = g->choices[c];
        const ast_entry *e;
        if (ch->count != 1)
            return 0;
        e = ch->entries[0];
        if (e->has_occur || e->key_kind != AST_KEY_NONE || sema_type_kind(t, scope, e->type) != SEMA_TYPE)
            return 0;
    }
    return 1;
}

/* The group a group-valued expression stands for, when it is a plain one. */
static const ast_group *group_of(const sema_table *t, const ast_type *type)
{
    const sema_symbol *sym;
    if (type->kind == AST_T_PAREN)
        return type->u.group;
    if (type->kind != AST_T_NAME)
        return NULL;
    sym = sema_lookup(t, type->u.name.name);
    if (sym == NULL || sym->def == NULL || sym->def->body->key_kind != AST_KEY_NONE ||
        sym->def->body->has_occur)
        return NULL;
    return sym->def->body->type->kind == AST_T_PAREN ? sym->def->body->type->u.group : NULL;
}

/*
 * A keyless entry inside a map must be a group. The real schema also puts
 * names of map types there (`{ id: uint, CommandData }` where CommandData
 * is a choice of map rules): read as their members inlined, like `~` would.
 * Returns whether such a map type was found below `e`; any other type there
 * is an error (reported once per entry, however often its group is used).
 */
static int find_keyless_maps(sema *s, ast_entry *e, int depth)
{
    const ast_group *g;
    size_t c, k;
    int found = 0;
    if (depth > CDDL_MAX_DEPTH)
        return 0;
    if (e->type->kind == AST_T_NAME && is_param(s->scope, e->type->u.name.name))
        return 0; /* `G<T> = { x: int, T }`: a group argument, inlined where it is instantiated */
    if (e->type->kind == AST_T_NAME && e->type->u.name.name.len > 2 && memcmp(e->type->u.name.name.ptr, "$$", 2) == 0 &&
        sema_lookup(s->table, e->type->u.name.name) == NULL)
        return 0; /* a group socket nothing plugs: the empty choice (RFC 8610 3.9) */
    if (sema_type_kind(s->table, s->scope, e->type) == SEMA_GROUP) {
        g = group_of(s->table, e->type);
        /* each group once per walk: groups naming groups twice each would
         * otherwise cost 2^depth, and what a second visit finds is known */
        for (c = 0; g != NULL && c < s->nwalked; c++)
            if (s->walked[c] == g)
                return 0;
        if (g != NULL)
            cddl_push(s->ctx, &s->walked, &s->nwalked, sizeof g, &g);
        for (c = 0; g != NULL && c < g->count; c++)
            for (k = 0; k < g->choices[c]->count; k++)
                if (g->choices[c]->entries[k]->key_kind == AST_KEY_NONE)
                    found |= find_keyless_maps(s, g->choices[c]->entries[k], depth + 1);
        return found;
    }
    if (is_map_type(s->table, e->type, 16))
        return 1;
    if (!(e->sema_marks & ENTRY_KEYLESS_REPORTED)) {
        e->sema_marks |= ENTRY_KEYLESS_REPORTED;
        ERROR(s, e->type->loc, "a map entry needs a key ('name: type' or 'type => type')");
    }
    return 0;
}

static void check_keyless_in_map(sema *s, ast_entry *e)
{
    s->walked = NULL;
    s->nwalked = 0;
    if (!find_keyless_maps(s, e, 0))
        return;
    if (e->type->kind == AST_T_NAME && sema_type_kind(s->table, s->scope, e->type) == SEMA_GROUP)
        diag_report(s->diag, DIAG_WARNING, DIAG_W_LOOSE, e->type->loc,
                    "the alternatives of '%.*s' are map types used as keyless map entries: "
                    "read as their members inlined, as '~' would", NAMEF(e->type->u.name.name));
    else
        diag_report(s->diag, DIAG_WARNING, DIAG_W_LOOSE, e->type->loc,
                    "map type used as a keyless map entry: read as its members inlined, as '~' would");
}

static void check_name(sema *s, ast_type *t, position pos)
{
    ast_str name = t->u.name.name;
    sema_symbol *sym;
    const ast_rule *def;
    size_t i;
    for (i = 0; i < t->u.name.args.count; i++)
        check_type(s, t->u.name.args.items[i], POS_ARG);
    if (is_param(s->scope, name)) {
        if (t->u.name.args.count > 0)
            ERROR(s, t->u.name.name_loc, "generic parameter '%.*s' takes no arguments", NAMEF(name));
        return;
    }
    sym = sema_lookup(s->table, name);
    if (sym == NULL && name.len > 0 && name.ptr[0] == '$')
        return; /* a socket nobody extends is empty, not undefined (RFC 8610 3.9) */
    if (sym == NULL) {
        ast_str hint;
        /* a suggestion searches every name: only for errors that will be shown */
        if (diag_will_show(s->diag, DIAG_ERROR) && suggest(s, name, &hint))
            ERROR(s, t->u.name.name_loc, "undefined name '%.*s'; did you mean '%.*s'?", NAMEF(name), NAMEF(hint));
        else
            ERROR(s, t->u.name.name_loc, "undefined name '%.*s'", NAMEF(name));
        return;
    }
    sym->referenced = 1;
    def = primary(sym);
    if (def != NULL && def->nparams != t->u.name.args.count) {
        if (def->nparams == 0)
            ERROR(s, t->u.name.name_loc, "'%.*s' is not generic but is given %zu argument%s", NAMEF(name),
                  t->u.name.args.count, t->u.name.args.count == 1 ? "" : "s");
        else
            ERROR(s, t->u.name.name_loc, "'%.*s' takes %zu generic argument%s, %zu given", NAMEF(name),
                  def->nparams, def->nparams == 1 ? "" : "s", t->u.name.args.count);
        if (!def->from_prelude)
            NOTE(s, def->name_loc, "'%.*s' defined here", NAMEF(name));
        return;
    }
    if (pos == POS_TYPE && sym->kind == SEMA_GROUP) {
        const ast_group *g = group_of(s->table, t);
        if (g != NULL && is_choice_of_types(s->table, def, g))
            diag_report(s->diag, DIAG_WARNING, DIAG_W_LOOSE, t->u.name.name_loc,
                        "group choice '%.*s' used where a type is expected: read as a type choice of its alternatives",
                        NAMEF(name));
        else
            ERROR(s, t->u.name.name_loc, "group '%.*s' used where a type is expected", NAMEF(name));
    }
}

static const char *const known_controls[] = {
    "size", "bits", "regexp", "pcre", "cbor", "cborseq", "within", "and", "lt", "le", "gt",
    "ge", "eq", "ne", "default", "plus", "cat", "det", "abnf", "abnfb", "feature", NULL
};

static void check_control(sema *s, ast_type *t)
{
    size_t i, best = 3, d;
    const char *hint = NULL;
    ast_str op = t->u.control.op;
    check_type(s, t->u.control.target, POS_TYPE);
    check_type(s, t->u.control.arg, POS_TYPE);
    for (i = 0; known_controls[i] != NULL; i++) {
        ast_str k = { known_controls[i], strlen(known_controls[i]) };
        if (ast_str_same(k, op))
            return;
        d = edit_distance(op, k, best);
        if (d < best)
            best = d, hint = known_controls[i];
    }
    if (hint != NULL)
        ERROR(s, t->u.control.op_loc, "unknown control operator '.%.*s'; did you mean '.%s'?", NAMEF(op), hint);
    else
        ERROR(s, t->u.control.op_loc, "unknown control operator '.%.*s'", NAMEF(op));
}

/* A range bound must be a number, or name one (`max = 255`). Returns its kind, or -1. */
static int range_bound(sema *s, const ast_type *b)
{
    if (b->kind == AST_T_NAME && is_param(s->scope, b->u.name.name))
        return AST_V_INT; /* unknown until instantiated */
    b = resolve_alias(s->table, b, 16);
    if (b->kind == AST_T_VALUE && (b->u.value.kind == AST_V_INT || b->u.value.kind == AST_V_FLOAT))
        return (int)b->u.value.kind;
    return -1;
}

static void check_range(sema *s, ast_type *t)
{
    int lo, hi;
    check_type(s, t->u.range.lo, POS_TYPE);
    check_type(s, t->u.range.hi, POS_TYPE);
    lo = range_bound(s, t->u.range.lo);
    hi = range_bound(s, t->u.range.hi);
    if (lo < 0)
        ERROR(s, t->u.range.lo->loc, "range bound must be a number or name one");
    if (hi < 0)
        ERROR(s, t->u.range.hi->loc, "range bound must be a number or name one");
    if (lo >= 0 && hi >= 0 && lo != hi)
        diag_report(s->diag, DIAG_WARNING, DIAG_W_RANGE, t->loc,
                    "range mixes an integer and a floating-point bound; RFC 8610 leaves its meaning undefined");
}

static void check_type(sema *s, ast_type *t, position pos)
{
    size_t i;
    ast_type *inner;
    const sema_symbol *sym;
    switch (t->kind) {
    case AST_T_VALUE: case AST_T_ANY: case AST_T_MAJOR:
        break;
    case AST_T_NAME:
        check_name(s, t, pos);
        break;
    case AST_T_PAREN:
        inner = ast_paren_inner(t);
        if (inner != NULL && inner->kind == AST_T_CHOICE && pos != POS_TYPE && zcbor_group_choice(s, &t))
            inner = ast_paren_inner(t); /* `( (1 => a) / (2 => b) )` among entries: now the group choice */
        if (inner != NULL) {
            check_type(s, inner, pos);
        } else if (pos == POS_TYPE) {
            if (is_choice_of_types(s->table, s->scope, t->u.group)) {
                diag_report(s->diag, DIAG_WARNING, DIAG_W_LOOSE, t->loc,
                            "group choice used where a type is expected: read as a type choice of its alternatives");
                check_group(s, t->u.group, POS_ENTRY);
            } else if (t->u.group->count == 1 && t->u.group->choices[0]->count == 1 &&
                       t->u.group->choices[0]->entries[0]->key_kind == AST_KEY_BAREWORD &&
                       !t->u.group->choices[0]->entries[0]->has_occur) {
                /* `(cat: 1)` where a type belongs: zcbor's labelled value */
                zcbor_warning(s, t->loc, "a labelled value in parentheses (the label is dropped)");
                t->u.group->choices[0]->entries[0]->key_kind = AST_KEY_NONE;
                t->u.group->choices[0]->entries[0]->bareword.ptr = NULL;
                t->u.group->choices[0]->entries[0]->bareword.len = 0;
                check_type(s, t, pos);
            } else {
                ERROR(s, t->loc, "a group cannot be used where a type is expected");
            }
        } else {
            check_group(s, t->u.group, pos == POS_ARG ? POS_ENTRY : pos);
        }
        break;
    case AST_T_MAP:
        check_group(s, t->u.group, POS_ENTRY_MAP);
        break;
    case AST_T_ARRAY:
        check_group(s, t->u.group, POS_ENTRY_ARRAY);
        break;
    case AST_T_ENUM:
        check_group(s, t->u.group, POS_ENTRY);
        break;
    case AST_T_UNWRAP: case AST_T_ENUM_NAME:
        check_name(s, t, POS_ARG);
        sym = is_param(s->scope, t->u.name.name) ? NULL : sema_lookup(s->table, t->u.name.name);
        if (sym != NULL && t->kind == AST_T_UNWRAP) {
            const ast_type *target = unwrap_target(s->table, t);
            if (target == NULL && (sym->def == NULL || sym->def->nparams == 0))
                ERROR(s, t->loc, "'~' unwraps a map, array or tag type, and '%.*s' is none of these",
                      NAMEF(t->u.name.name));
            else if (pos == POS_TYPE && target != NULL && target->kind != AST_T_TAG)
                ERROR(s, t->loc, "an unwrapped group cannot be used where a type is expected");
        } else if (sym != NULL && sym->kind != SEMA_GROUP && !is_map_type(s->table, t, 16)) {
            ERROR(s, t->loc, "'&' takes a group, and '%.*s' is a type", NAMEF(t->u.name.name));
        }
        break;
    case AST_T_TAG:
        if (t->u.tag.number_type != NULL)
            check_type(s, t->u.tag.number_type, POS_TYPE);
        check_type(s, t->u.tag.content, POS_TYPE);
        break;
    case AST_T_RANGE:
        check_range(s, t);
        break;
    case AST_T_CONTROL:
        check_control(s, t);
        break;
    case AST_T_CHOICE:
        for (i = 0; i < t->u.choice.count; i++)
            check_type(s, t->u.choice.items[i], POS_TYPE);
        break;
    }
}

/*
 * zcbor reads `A / B` between groups (names of groups, or groups in
 * parentheses; all of the alternatives) as the group choice `A // B`
 * (SUIT's `{ SUIT_Condition / SUIT_Directive }`, `{ (1 => a) / (2 => b) }`).
 * RFC 8610 has no such reading: a group is no alternative of a type
 * choice. Returns the group choice of `choice`'s alternatives, with a
 * -Wloose warning, or NULL when it is not one of those.
 */
static ast_group *zcbor_choice_group(sema *s, const ast_type *choice)
{
    ast_group *g;
    size_t i, groups = 0;
    for (i = 0; i < choice->u.choice.count; i++)
        groups += (size_t)names_group(s, choice->u.choice.items[i]);
    if (groups < choice->u.choice.count)
        return NULL; /* a type among them: no group choice, and `int / g` stays the error it is */
    zcbor_warning(s, choice->loc, "a type choice between groups (read as the group choice '//')");
    g = cddl_alloc(s->ctx, sizeof *g);
    g->loc = choice->loc;
    g->count = choice->u.choice.count;
    g->choices = cddl_alloc(s->ctx, g->count * sizeof *g->choices);
    for (i = 0; i < g->count; i++) {
        ast_grpchoice *c;
        ast_entry *alt;
        const ast_type *item = choice->u.choice.items[i];
        if (item->kind == AST_T_PAREN && ast_paren_inner(item) == NULL && item->u.group->count == 1) {
            g->choices[i] = item->u.group->choices[0]; /* `(1 => "one") / ...`: that group's entries */
            continue;
        }
        c = cddl_alloc(s->ctx, sizeof *c);
        alt = cddl_alloc(s->ctx, sizeof *alt);
        alt->loc = choice->u.choice.items[i]->loc;
        alt->occur_min = alt->occur_max = 1;
        alt->key_kind = AST_KEY_NONE;
        alt->type = choice->u.choice.items[i];
        c->loc = alt->loc;
        c->count = 1;
        c->entries = cddl_alloc(s->ctx, sizeof *c->entries);
        c->entries[0] = alt;
        g->choices[i] = c;
    }
    return g;
}

/*
 * A keyless entry `A / B` between groups: its type becomes the
 * parenthesized group choice; `( A / B )` (the one entry of a
 * parenthesized group) becomes that group choice itself. 1 when rewritten.
 */
static int zcbor_group_choice(sema *s, ast_type **type)
{
    ast_type *t = *type, *inner = t->kind == AST_T_PAREN ? ast_paren_inner(t) : NULL;
    ast_group *g;
    if (inner != NULL && inner->kind == AST_T_CHOICE && (g = zcbor_choice_group(s, inner)) != NULL) {
        t->u.group = g;
        return 1;
    }
    if (t->kind == AST_T_CHOICE && (g = zcbor_choice_group(s, t)) != NULL) {
        ast_type *paren = cddl_alloc(s->ctx, sizeof *paren);
        paren->kind = AST_T_PAREN;
        paren->loc = t->loc;
        paren->u.group = g;
        *type = paren;
        return 1;
    }
    return 0;
}

/*
 * Rules whose body is such a choice (`SUIT_Command = (SUIT_Condition /
 * SUIT_Directive)`) are rewritten before anything reads their kind, which
 * then is a group's. A rewrite can make another rule's alternative a
 * group, so this repeats until nothing changes, classifying again each
 * time (at most once per rule).
 */
static void zcbor_rule_choices(sema *s, ast_document *doc)
{
    size_t i, rounds;
    for (rounds = 0; rounds <= doc->nrules; rounds++) {
        int changed = 0;
        for (i = 0; i < doc->nrules; i++) {
            ast_entry *e = doc->rules[i]->body;
            s->scope = doc->rules[i];
            if (e->key_kind == AST_KEY_NONE && !e->has_occur)
                changed |= zcbor_group_choice(s, &e->type);
        }
        s->scope = NULL;
        if (!changed)
            return;
        for (i = 0; i < s->table->count; i++)
            s->table->symbols[i]->kind = SEMA_UNKNOWN;
        classify(s);
    }
}

static void check_entry(sema *s, ast_entry *e, position pos)
{
    if (e->has_occur && e->occur_min > e->occur_max)
        ERROR(s, e->loc, "occurrence '%.*s' has a minimum above its maximum", NAMEF(e->occur_text));
    if (e->key_kind == AST_KEY_BAREWORD && e->type->kind == AST_T_PAREN && ast_paren_inner(e->type) == NULL) {
        /* `Label: (1 => uuid)`: a group cannot be a member's value, so the name is zcbor's label */
        zcbor_warning(s, e->loc, "a label on a group (the label is dropped)");
        e->key_kind = AST_KEY_NONE;
        e->bareword.ptr = NULL;
        e->bareword.len = 0;
    }
    if (e->key_kind == AST_KEY_TYPE)
        check_type(s, e->key, POS_TYPE);
    if (e->key_kind != AST_KEY_NONE) {
        check_type(s, e->type, POS_TYPE);
        return;
    }
    if (pos != POS_TYPE)
        (void)zcbor_group_choice(s, &e->type);
    check_type(s, e->type, pos);
    if (pos == POS_ENTRY_MAP)
        check_keyless_in_map(s, e);
}

static void check_group(sema *s, ast_group *g, position pos)
{
    size_t c, e;
    for (c = 0; c < g->count; c++)
        for (e = 0; e < g->choices[c]->count; e++)
            check_entry(s, g->choices[c]->entries[e], pos);
}

static void check_rule(sema *s, const sema_symbol *sym, ast_rule *r)
{
    const ast_rule *first = primary(sym);
    s->scope = r;
    if (r->assign == AST_ASSIGN_TYPE_ALT && sym->kind == SEMA_GROUP)
        ERROR(s, r->assign_loc, "'/=' adds a type alternative, but '%.*s' is a group (use '//=')", NAMEF(r->name));
    if (r->assign == AST_ASSIGN_GROUP_ALT && sym->kind == SEMA_TYPE)
        ERROR(s, r->assign_loc, "'//=' adds a group alternative, but '%.*s' is a type (use '/=')", NAMEF(r->name));
    if (first != r && first != NULL && first->nparams != r->nparams)
        ERROR(s, r->name_loc, "'%.*s %s' has %zu generic parameters, its first definition %zu", NAMEF(r->name),
              assign_text(r->assign), r->nparams, first->nparams);
    if (sym->kind == SEMA_GROUP)
        check_entry(s, r->body, POS_ENTRY);
    else
        check_type(s, r->body->type, POS_TYPE);
    s->scope = NULL;
}

/* ---- productivity --------------------------------------------------------- */

static int type_productive(const sema *s, const ast_rule *scope, const ast_type *t);

static int group_productive(const sema *s, const ast_rule *scope, const ast_group *g)
{
    size_t c, e;
    for (c = 0; c < g->count; c++) {
        int ok = 1;
        for (e = 0; ok && e < g->choices[c]->count; e++) {
            const ast_entry *en = g->choices[c]->entries[e];
            if (en->occur_min == 0)
                continue;
            ok = type_productive(s, scope, en->type) &&
                 (en->key_kind != AST_KEY_TYPE || type_productive(s, scope, en->key));
        }
        if (ok)
            return 1;
    }
    return 0;
}

static int type_productive(const sema *s, const ast_rule *scope, const ast_type *t)
{
    size_t i;
    const sema_symbol *sym;
    switch (t->kind) {
    case AST_T_NAME: case AST_T_UNWRAP:
        if (is_param(scope, t->u.name.name))
            return 1;
        sym = sema_lookup(s->table, t->u.name.name);
        return sym == NULL || sym->productive;
    case AST_T_PAREN: case AST_T_MAP: case AST_T_ARRAY:
        return group_productive(s, scope, t->u.group);
    case AST_T_TAG:
        return type_productive(s, scope, t->u.tag.content);
    case AST_T_CONTROL:
        return type_productive(s, scope, t->u.control.target);
    case AST_T_CHOICE:
        for (i = 0; i < t->u.choice.count; i++)
            if (type_productive(s, scope, t->u.choice.items[i]))
                return 1;
        return 0;
    default:
        return 1;
    }
}

static int rule_productive(const sema *s, const ast_rule *r)
{
    if (r->body->occur_min == 0)
        return 1;
    return type_productive(s, r, r->body->type) &&
           (r->body->key_kind != AST_KEY_TYPE || type_productive(s, r, r->body->key));
}

static void check_productive(sema *s)
{
    size_t i, k, pass = 0;
    int changed = 1;
    /* Passes alternate in direction, so a chain of rules in either order settles in two. */
    while (changed) {
        changed = 0;
        for (k = 0; k < s->table->count; k++) {
            sema_symbol *sym = s->table->symbols[pass % 2 == 0 ? k : s->table->count - 1 - k];
            size_t a;
            int ok = 0;
            if (sym->productive)
                continue;
            if (sym->def != NULL)
                ok = rule_productive(s, sym->def);
            for (a = 0; !ok && a < sym->nalts; a++)
                ok = rule_productive(s, sym->alts[a]);
            if (ok) {
                sym->productive = 1;
                changed = 1;
            }
        }
        pass++;
    }
    for (i = 0; i < s->table->count; i++) {
        const sema_symbol *sym = s->table->symbols[i];
        const ast_rule *r = primary(sym);
        if (!sym->productive && r != NULL)
            ERROR(s, r->name_loc,
                  "rule '%.*s' can never match: each of its instances would have to contain another (no base case)",
                  NAMEF(sym->name));
    }
}

/* ---- driver --------------------------------------------------------------- */

int sema_check(cddl_ctx *ctx, ast_document *prelude, ast_document *doc, sema_table *out)
{
    sema s;
    size_t i;
    unsigned before = ctx->diag->errors;
    memset(out, 0, sizeof *out);
    memset(&s, 0, sizeof s);
    s.ctx = ctx;
    s.diag = ctx->diag;
    s.table = out;
    if (prelude != NULL)
        collect(&s, prelude);
    collect(&s, doc);
    classify(&s);
    zcbor_rule_choices(&s, doc);
    for (i = 0; i < doc->nrules; i++)
        check_rule(&s, sema_lookup(out, doc->rules[i]->name), doc->rules[i]);
    check_productive(&s);
    if (doc->nrules > 0) {
        sema_symbol *root = sema_lookup(out, doc->rules[0]->name);
        for (i = 0; i < out->count; i++) {
            const sema_symbol *sym = out->symbols[i];
            const ast_rule *r = primary(sym);
            if (sym != root && !sym->referenced && !sym->from_prelude && r != NULL)
                diag_report(s.diag, DIAG_WARNING, DIAG_W_UNUSED, r->name_loc,
                            "rule '%.*s' is never used", NAMEF(sym->name));
        }
    }
    return (int)(ctx->diag->errors - before);
}
