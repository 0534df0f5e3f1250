/*
 * lower.c - from the checked AST to the C type model (see ir.h, lower.h).
 *
 * Every type rule becomes one named ir_type, filled in place so that
 * recursive references (AgentTreeNode.children) point at it while its body is
 * still being lowered. Anonymous maps, arrays and choices become named types
 * too, called after where they appear (`LifecycleEvent.params` ->
 * lifecycle_event_params). Groups are flattened into the struct that uses
 * them; a group choice inside a map becomes the struct's `variants`.
 * Whatever JSON cannot carry (byte strings, tags, .cbor, ...) is a located
 * error naming the feature; lowering then goes on with `any` so one run
 * reports every such place.
 */
#include "lower.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aps/schema.h"
#include "cddl.h"
#include "naming.h"

/* Generic parameters bound to arguments, evaluated in the caller's bindings. */
typedef struct lower_env {
    const ast_rule *rule;
    const ast_type_list *args;
    const struct lower_env *caller;
} lower_env;

typedef struct instance {
    const char *key;
    ir_type *type;
} instance;

typedef struct lower {
    cddl_ctx *ctx;
    diag_ctx *diag;
    const sema_table *table;
    ir_module *mod;
    const ast_document *doc;   /* the user's document, for comments beside enum values */
    ir_type **by_symbol;       /* memo of non-generic rules, by symbol order */
    ir_type **group_unions;    /* memo of group rules read as unions, by symbol order */
    ir_type **group_tuples;    /* --cbor: memo of group rules read as groups of a positional array */
    instance *instances;       /* memo of generic instances */
    size_t ninstances;
    naming_set instance_index; /* instance name -> its position in `instances` */
    const sema_symbol **active;/* generic rules whose instances are being filled, innermost last */
    size_t nactive;
    size_t expanded;           /* types made for generic instances and their arguments */
    int over_limit;            /* an expansion limit was reported: lower nothing more */
    naming_set type_names;     /* the c_name of every named type */
    naming_set members;        /* the members of every struct (see note_member) */
    ir_type prim[6];           /* any, bool, int, uint, float, text */
    ir_type lit_null, lit_true, lit_false;
    int depth;
    const ast_rule **inlining; /* group rules whose members are being inlined, innermost last */
    size_t ninlining;
    size_t *visited;           /* by symbol order: the walk (see begin_walk) that last visited it */
    size_t walk;
    const char *const *features; /* RFC 9165 features enabled beside "json" */
    size_t nfeatures;
    unsigned char *never_state;/* by symbol order: 0 not asked, 1 being asked, 2 some JSON value, 3 none */
    struct never *never_memo;  /* by symbol order, when never_state is 3: why */
    int optional;              /* inside a group entry whose members are all optional (`* $$g`, `? (a, b)`) */
    const ast_entry *optional_entry; /* the innermost such entry */
    int choice_inlined;        /* a choice of member groups was inlined as optional members (and warned about) */
    int cbor;                  /* --cbor: what only CBOR can carry is lowered, not dropped */
    ir_type bytes;             /* bstr, shared (--cbor) */
    ir_type lit_undefined;     /* undefined, shared (--cbor) */
    const unsigned char *cbor_key; /* the non-text key of the member add_field is adding, or NULL */
    size_t cbor_key_len;
} lower;

/*
 * Bounds on generic expansion, so that no schema makes lowering run without
 * end. An instance made while LOWER_MAX_SELF_NESTING instances of its own rule
 * are still being filled has an argument that grows at every level
 * (`X<T> = { ? a: X<[* T]> }`): legitimate recursion meets its own instance
 * again, so the depth of one rule stays small. LOWER_MAX_EXPANSION caps the
 * types made for instances in all (each becomes C: a chain of generics that
 * doubles its argument would otherwise write gigabytes).
 */
#define LOWER_MAX_SELF_NESTING 8
#define LOWER_MAX_EXPANSION 20000

enum { P_ANY, P_BOOL, P_INT, P_UINT, P_FLOAT, P_TEXT };

#define ERR(L, loc, ...) diag_report((L)->diag, DIAG_ERROR, DIAG_W_NONE, (loc), __VA_ARGS__)
#define NAMEF(s) diag_clip((s).len, 64), (s).ptr

/* ---- small helpers --------------------------------------------------------- */

static const char *stem(lower *L, ast_str name)
{
    char buf[256];
    size_t n = naming_snake(name, buf, sizeof buf);
    return cddl_strdup(L->ctx, buf, n);
}

static const char *str0(lower *L, ast_str s)
{
    return cddl_strdup(L->ctx, s.ptr, s.len);
}

static ir_type *new_type(lower *L, ir_kind kind, const char *rule, const char *c_name, src_loc loc)
{
    ir_type *t = cddl_alloc(L->ctx, sizeof *t);
    t->kind = kind;
    t->rule = rule;
    t->c_name = c_name;
    t->loc = loc;
    t->occ_max = AST_OCCUR_INF;
    t->len_max = SIZE_MAX;
    return t;
}

/* Registers a type that gets its own C declaration and descriptor. Two
 * types whose C names would collide (`run.start` and `run_start`, `Message`
 * and `$message`) keep schema order: the later one gets a numeric suffix and
 * a -Wnaming warning. */
static void add_named(lower *L, ir_type *t)
{
    const char *base = t->c_name;
    t->c_name = naming_unique(L->ctx, &L->type_names, base, 2);
    if (t->c_name != base)
        diag_report(L->diag, DIAG_WARNING, DIAG_W_NAMING, t->loc,
                    "'%s' would have the same C name as an earlier type: named '%s'",
                    t->rule ? t->rule : base, t->c_name);
    t->named = true;
    t->index = L->mod->count;
    cddl_push(L->ctx, &L->mod->types, &L->mod->count, sizeof t, &t);
}

static int is_prim(const lower *L, const ir_type *t)
{
    return t >= &L->prim[0] && t < &L->prim[6];
}

static int is_shared(const lower *L, const ir_type *t)
{
    return is_prim(L, t) || t == &L->lit_null || t == &L->lit_true || t == &L->lit_false || t == &L->bytes ||
           t == &L->lit_undefined;
}

/* A fresh copy of `t` that may carry constraints of its own. */
static ir_type *constrained(lower *L, const ir_type *t, const char *rule, const char *c_name)
{
    ir_type *c = cddl_alloc(L->ctx, sizeof *c);
    *c = *t;
    c->named = false;
    c->rule = rule;
    c->c_name = c_name;
    return c;
}

static ir_type *unsupported(lower *L, src_loc loc, const char *what)
{
    ERR(L, loc, "%s cannot be represented in JSON: the C back end does not support it", what);
    return &L->prim[P_ANY];
}

/* Follows aliases to the type that has the representation. */
static const ir_type *resolved(const ir_type *t)
{
    while (t != NULL && t->kind == IR_ALIAS)
        t = t->base != NULL ? t->base : t->target; /* base: long chains cost one step */
    return t;
}

static int find_param(const lower_env *env, ast_str name, const ast_type **arg, const lower_env **caller)
{
    size_t i;
    if (env == NULL || env->rule == NULL)
        return 0;
    for (i = 0; i < env->rule->nparams; i++) {
        if (ast_str_same(env->rule->params[i], name)) {
            *arg = env->args->items[i];
            *caller = env->caller;
            return 1;
        }
    }
    return 0;
}

/*
 * The bindings the bodies of the type rule `sym` are read in when `use`
 * names it from `env`: `inner`, filled with `use`'s arguments, when the
 * rule is generic; NULL when it is not. 0 when `use` (NULL: no use) does
 * not give a generic rule one argument per parameter.
 */
static int rule_env(const sema_symbol *sym, const ast_type *use, const lower_env *env, lower_env *inner,
                    const lower_env **benv)
{
    const ast_rule *def = sema_first_rule(sym);
    if (def->nparams == 0) {
        *benv = NULL;
        return 1;
    }
    if (use == NULL || use->u.name.args.count != def->nparams)
        return 0;
    inner->rule = def;
    inner->args = &use->u.name.args;
    inner->caller = env; /* read before *benv is written: the caller may pass &env as benv */
    *benv = inner;
    return 1;
}

static ir_type *lower_type(lower *L, const ast_type *t, const char *ctx, const char *path,
                           const lower_env *env);
static void fill_array(lower *L, ir_type *node, const ast_type *t, const lower_env *env);
static void fill_struct(lower *L, ir_type *node, const ast_group *g, const lower_env *env);
static void fill_choice(lower *L, ir_type *node, const ast_type *const *items, size_t count,
                        const lower_env *env);
static void fill_enumeration(lower *L, ir_type *node, const ast_type *t, const lower_env *env);
static void classify_union(lower *L, ir_type *node, ir_type **alts, size_t nalts, src_loc *locs);
static void collect_members(lower *L, ir_type *node, const ast_group *g, const lower_env *env, int depth);
static void mark_shared_names(lower *L, ir_type *node);
static void finish_struct(lower *L, ir_type *node);
static const sema_symbol *symbol_of(lower *L, ast_str name);
static unsigned *sorted_values(lower *L, const ir_type *t);

/* ---- constants --------------------------------------------------------------- */

/* The literal a type stands for (`255`, `max-len` naming 255), following names. */
static const ast_value *const_value(lower *L, const ast_type *t, const lower_env *env, int depth)
{
    const ast_type *arg;
    const lower_env *caller;
    const sema_symbol *sym;
    if (depth > 32)
        return NULL;
    if (t->kind == AST_T_VALUE)
        return &t->u.value;
    if (t->kind == AST_T_PAREN && ast_paren_inner(t) != NULL)
        return const_value(L, ast_paren_inner(t), env, depth + 1);
    if (t->kind != AST_T_NAME)
        return NULL;
    if (find_param(env, t->u.name.name, &arg, &caller))
        return const_value(L, arg, caller, depth + 1);
    sym = sema_lookup(L->table, t->u.name.name);
    if (sym == NULL || sym->def == NULL || sym->def->nparams > 0 ||
        sym->def->body->key_kind != AST_KEY_NONE)
        return NULL;
    return const_value(L, sym->def->body->type, NULL, depth + 1);
}

static ir_literal literal_of(const ast_value *v)
{
    ir_literal lit;
    memset(&lit, 0, sizeof lit);
    lit.text = v->text;
    switch (v->kind) {
    case AST_V_TEXT:
        lit.kind = IR_LIT_TEXT;
        break;
    case AST_V_FLOAT:
        lit.kind = IR_LIT_FLOAT;
        lit.f = v->f;
        break;
    default:
        if (v->negative) {
            lit.kind = IR_LIT_INT;
            lit.i = v->magnitude > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)v->magnitude;
        } else {
            lit.kind = IR_LIT_UINT;
            lit.u = v->magnitude;
        }
        break;
    }
    return lit;
}

/* ---- the prelude ------------------------------------------------------------- */

/*
 * --cbor: a prelude type defined as a tag (RFC 8610 Appendix D: `tdate =
 * #6.0(tstr)`, `uri = #6.32(tstr)`, `decfrac = #6.4([e10: int, m:
 * integer])`) is lowered from that definition, the tag on the CBOR wire.
 * The big integers keep their reading as integers (a JSON number; in CBOR
 * an integer item), as do `integer` and `unsigned`.
 */
static int prelude_tagged(const lower *L, ast_str name)
{
    static const char *const tagged[] = {
        "tdate", "time", "decfrac", "bigfloat", "eb64url", "eb64legacy", "eb16", "encoded-cbor", "uri", "b64url",
        "b64legacy", "regexp", "mime-message", "cbor-any",
    };
    size_t i;
    for (i = 0; L->cbor && i < sizeof tagged / sizeof tagged[0]; i++)
        if (ast_str_eq(name, tagged[i]))
            return 1;
    return 0;
}

/* Why a prelude type matches no JSON value (byte strings, tags, undefined), or NULL. */
static const char *prelude_never(lower *L, ast_str name)
{
    static const char *const json[] = {
        "any", "uint", "int", "integer", "float", "float16", "float32", "float64", "float16-32",
        "float32-64", "number", "tstr", "text", "bool", "nint", "null", "nil", "true", "false",
        "biguint", "bigint", "bignint",
    };
    size_t i;
    for (i = 0; i < sizeof json / sizeof json[0]; i++)
        if (ast_str_eq(name, json[i]))
            return NULL;
    if (L->cbor && (ast_str_eq(name, "bstr") || ast_str_eq(name, "bytes") || ast_str_eq(name, "undefined") ||
                    prelude_tagged(L, name)))
        return NULL;
    if (ast_str_eq(name, "bstr") || ast_str_eq(name, "bytes"))
        return "a byte string (bstr)";
    if (ast_str_eq(name, "undefined"))
        return "'undefined'";
    return cddl_fmt(L->ctx, "the tagged prelude type '%.*s'", NAMEF(name));
}

static ir_type *prelude_type(lower *L, ast_str name, src_loc loc)
{
    static const struct { const char *name; int prim; } prims[] = {
        { "any", P_ANY }, { "uint", P_UINT }, { "int", P_INT }, { "integer", P_INT },
        { "float", P_FLOAT }, { "float16", P_FLOAT }, { "float32", P_FLOAT }, { "float64", P_FLOAT },
        { "float16-32", P_FLOAT }, { "float32-64", P_FLOAT }, { "number", P_FLOAT },
        { "tstr", P_TEXT }, { "text", P_TEXT }, { "bool", P_BOOL },
    };
    const char *never_why = prelude_never(L, name);
    size_t i;
    if (L->cbor) {
        static const struct { const char *name; int width; } widths[] = {
            { "float16", 2 }, { "float32", 4 }, { "float64", 8 },
        };
        if (ast_str_eq(name, "bstr") || ast_str_eq(name, "bytes"))
            return &L->bytes;
        if (ast_str_eq(name, "undefined"))
            return &L->lit_undefined;
        for (i = 0; i < sizeof widths / sizeof widths[0]; i++) {
            if (ast_str_eq(name, widths[i].name)) { /* written in exactly that width in CBOR */
                ir_type *t = constrained(L, &L->prim[P_FLOAT], widths[i].name, widths[i].name);
                t->fwidth = widths[i].width;
                return t;
            }
        }
    }
    for (i = 0; i < sizeof prims / sizeof prims[0]; i++)
        if (ast_str_eq(name, prims[i].name))
            return &L->prim[prims[i].prim];
    if (ast_str_eq(name, "nint")) {
        ir_type *t = constrained(L, &L->prim[P_INT], "nint", "nint");
        t->imax = -1;
        return t;
    }
    if (ast_str_eq(name, "null") || ast_str_eq(name, "nil"))
        return &L->lit_null;
    if (ast_str_eq(name, "true"))
        return &L->lit_true;
    if (ast_str_eq(name, "false"))
        return &L->lit_false;
    if (ast_str_eq(name, "biguint"))
        return &L->prim[P_UINT]; /* JSON has no tags: a big integer is a JSON number (see docs/cddl.md) */
    if (ast_str_eq(name, "bigint"))
        return &L->prim[P_INT];
    if (ast_str_eq(name, "bignint")) {
        ir_type *t = constrained(L, &L->prim[P_INT], "bignint", "bignint");
        t->imax = -1;
        return t;
    }
    return unsupported(L, loc, never_why != NULL ? never_why : "this prelude type");
}

/* ---- rules ------------------------------------------------------------------- */

/* The bodies of a rule: its `=` definition and every `/=` extension (a socket's plugs), as one choice. */
static const ast_type **rule_bodies(lower *L, const sema_symbol *sym, size_t *count)
{
    const ast_type **items = cddl_alloc(L->ctx, (sym->nalts + 1) * sizeof *items);
    size_t i, n = 0;
    if (sym->def != NULL)
        items[n++] = sym->def->body->type;
    for (i = 0; i < sym->nalts; i++)
        items[n++] = sym->alts[i]->body->type;
    *count = n;
    return items;
}

/* ---- what no JSON value can match ----------------------------------------------- */

/*
 * A type no JSON value can match: a byte string, a CBOR tag, `undefined`,
 * or something marked with a `.feature` that is not enabled (RFC 9165 4:
 * under JSON, `J .feature "json" / C .feature "cbor"` is J). Such an
 * alternative of a choice changes no verdict on JSON, so it is dropped
 * (with a -Wjson warning naming it, unless a feature says so); it is an
 * error only where nothing else is left (see docs/cddl.md).
 */
typedef struct never {
    const char *why;   /* what the type is; NULL: some JSON value may match it */
    int by_feature;    /* only because of features not enabled: dropped silently */
} never;

static const never SOME_JSON = { NULL, 0 };

static int feature_enabled(const lower *L, ast_str name)
{
    size_t i;
    if (ast_str_eq(name, "json") || (L->cbor && ast_str_eq(name, "cbor")))
        return 1;
    for (i = 0; i < L->nfeatures; i++)
        if (ast_str_eq(name, L->features[i]))
            return 1;
    return 0;
}

/* The name a `.feature` controller gives: a text, or an array whose first entry is one (RFC 9165 4). */
static const ast_value *feature_name(lower *L, const ast_type *arg, const lower_env *env)
{
    const ast_value *v;
    while (ast_paren_inner(arg) != NULL)
        arg = ast_paren_inner(arg);
    v = const_value(L, arg, env, 0);
    if (v == NULL && arg->kind == AST_T_ARRAY && arg->u.group->count == 1 && arg->u.group->choices[0]->count > 0)
        v = const_value(L, arg->u.group->choices[0]->entries[0]->type, env, 0);
    return v != NULL && v->kind == AST_V_TEXT ? v : NULL;
}

/* The content of the tag that `~name` unwraps (`~time`: `number`), with its bindings; NULL when none. */
static const ast_type *unwrapped(lower *L, const ast_type *t, const lower_env *env, lower_env *inner,
                                 const lower_env **out_env)
{
    const ast_type *arg;
    const lower_env *caller;
    const sema_symbol *sym;
    int depth;
    for (depth = 0; depth < 32; depth++) {
        if (t->kind == AST_T_TAG) {
            *out_env = env;
            return t->u.tag.content;
        }
        if (ast_paren_inner(t) != NULL) {
            t = ast_paren_inner(t);
            continue;
        }
        if (t->kind != AST_T_NAME && t->kind != AST_T_UNWRAP)
            return NULL;
        if (find_param(env, t->u.name.name, &arg, &caller)) {
            t = arg;
            env = caller;
            continue;
        }
        sym = symbol_of(L, t->u.name.name);
        if (sym == NULL || sym->def == NULL || sym->nalts > 0 || sym->kind != SEMA_TYPE ||
            sym->def->body->key_kind != AST_KEY_NONE)
            return NULL;
        /* one level of generics (`inner` is reused): enough for `~T` in `JC<text, ~uri>` */
        if (!rule_env(sym, t, env, inner, &env))
            return NULL;
        t = sym->def->body->type;
    }
    return NULL;
}

static never never_of(lower *L, const ast_type *t, const lower_env *env, int depth);

/* Whether every body of a type rule (its `=` and `/=` definitions) matches no JSON value. */
static never never_rule(lower *L, const sema_symbol *sym, const ast_type *use, const lower_env *env, int depth)
{
    const ast_type **items;
    size_t i, count;
    lower_env inner;
    const lower_env *benv = NULL;
    never n = SOME_JSON, first = SOME_JSON;
    int feature_only = 1;
    if (sym->kind != SEMA_TYPE)
        return SOME_JSON;
    if (!rule_env(sym, use, env, &inner, &benv))
        return SOME_JSON;
    if (benv == NULL) {
        /* asked already; or being asked: a rule reached again through itself adds nothing */
        if (L->never_state[sym->order] != 0)
            return L->never_state[sym->order] == 3 ? L->never_memo[sym->order] : SOME_JSON;
        L->never_state[sym->order] = 1;
    }
    items = rule_bodies(L, sym, &count);
    for (i = 0; i < count; i++) {
        n = never_of(L, items[i], benv, depth + 1);
        if (n.why == NULL)
            break;
        if (first.why == NULL)
            first = n;
        feature_only &= n.by_feature;
    }
    if (i < count || count == 0)
        first = SOME_JSON;
    else
        first.by_feature = feature_only;
    if (benv == NULL) {
        L->never_state[sym->order] = first.why != NULL ? 3 : 2;
        L->never_memo[sym->order] = first;
    }
    return first;
}

/*
 * Whether no JSON value can match `t`, and why. Only what is certain
 * counts: a map or array that holds a byte string is left to the places
 * that lower it (each reports its own use).
 */
static never never_of(lower *L, const ast_type *t, const lower_env *env, int depth)
{
    const ast_type *arg;
    const lower_env *caller;
    const sema_symbol *sym;
    never n, first;
    size_t i;
    int feature_only;
    if (depth > CDDL_MAX_DEPTH)
        return SOME_JSON;
    switch (t->kind) {
    case AST_T_VALUE:
        if (t->u.value.kind == AST_V_BYTES && !L->cbor) {
            n.why = "a byte string literal";
            n.by_feature = 0;
            return n;
        }
        return SOME_JSON;
    case AST_T_NAME:
        if (find_param(env, t->u.name.name, &arg, &caller))
            return never_of(L, arg, caller, depth + 1);
        sym = symbol_of(L, t->u.name.name);
        if (sym == NULL)
            return SOME_JSON;
        if (sym->from_prelude) {
            n.why = prelude_never(L, t->u.name.name);
            n.by_feature = 0;
            return n;
        }
        return never_rule(L, sym, t, env, depth);
    case AST_T_PAREN:
        return ast_paren_inner(t) != NULL ? never_of(L, ast_paren_inner(t), env, depth + 1) : SOME_JSON;
    case AST_T_CHOICE:
        first = SOME_JSON;
        feature_only = 1;
        for (i = 0; i < t->u.choice.count; i++) {
            n = never_of(L, t->u.choice.items[i], env, depth + 1);
            if (n.why == NULL)
                return SOME_JSON;
            if (first.why == NULL)
                first = n;
            feature_only &= n.by_feature;
        }
        first.by_feature = feature_only;
        return first;
    case AST_T_CONTROL:
        if (ast_str_eq(t->u.control.op, "feature")) {
            const ast_value *f = feature_name(L, t->u.control.arg, env);
            if (f != NULL && !feature_enabled(L, f->text)) {
                n.why = cddl_fmt(L->ctx, "marked '.feature \"%.*s\"', a feature not enabled", NAMEF(f->text));
                n.by_feature = 1;
                return n;
            }
        }
        n = never_of(L, t->u.control.target, env, depth + 1);
        if (n.why == NULL && (ast_str_eq(t->u.control.op, "and") || ast_str_eq(t->u.control.op, "within")))
            n = never_of(L, t->u.control.arg, env, depth + 1);
        return n;
    case AST_T_TAG:
        if (L->cbor && t->u.tag.has_number && t->u.tag.number_type == NULL)
            return never_of(L, t->u.tag.content, env, depth + 1);
        n.why = t->u.tag.has_number && t->u.tag.number_type == NULL
                    ? cddl_fmt(L->ctx, "a CBOR tag (#6.%.*s)", NAMEF(t->u.tag.number))
                    : "a CBOR tag";
        n.by_feature = 0;
        return n;
    case AST_T_MAJOR:
        if (L->cbor)
            return SOME_JSON; /* lower_major says what it cannot carry */
        n.by_feature = 0;
        n.why = t->u.tag.major == 2 ? "a byte string (#2)"
              : t->u.tag.major == 6 ? "a CBOR tag (#6)"
              : t->u.tag.major == 7 && t->u.tag.has_number && t->u.tag.value == 23 ? "'undefined' (#7.23)"
              : NULL;
        return n;
    case AST_T_UNWRAP: {
        lower_env inner;
        const lower_env *cenv;
        const ast_type *content = unwrapped(L, t, env, &inner, &cenv);
        return content != NULL ? never_of(L, content, cenv, depth + 1) : SOME_JSON;
    }
    default:
        return SOME_JSON;
    }
}

/* The error for a type that matches no JSON value where nothing else is allowed (at that use). */
static ir_type *nothing_left(lower *L, const ast_type *t, never n)
{
    const sema_symbol *sym = t->kind == AST_T_NAME ? symbol_of(L, t->u.name.name) : NULL;
    if (sym != NULL && !sym->from_prelude)
        ERR(L, t->loc, "'%.*s' matches no JSON value (%s), and nothing else is allowed here",
            NAMEF(t->u.name.name), n.why);
    else
        ERR(L, t->loc, "%s matches no JSON value, and nothing else is allowed here", n.why);
    return &L->prim[P_ANY];
}

/*
 * The alternatives of a choice that some JSON value can match, in order;
 * each one dropped gets a -Wjson warning naming it (none when a feature not
 * enabled drops it: that is what was asked). Returns their count; 0 after
 * reporting that nothing is left, at `loc`.
 */
static size_t applicable(lower *L, const ast_type *const *items, size_t count, const lower_env *env,
                         const ast_type **kept, src_loc loc)
{
    size_t i, n = 0;
    never first = SOME_JSON;
    for (i = 0; i < count; i++) {
        never why = never_of(L, items[i], env, 0);
        if (why.why == NULL) {
            kept[n++] = items[i];
            continue;
        }
        if (first.why == NULL || (first.by_feature && !why.by_feature))
            first = why;
        if (!why.by_feature)
            diag_report(L->diag, DIAG_WARNING, DIAG_W_JSON, items[i]->loc,
                        "alternative %s%.*s%s matches no JSON value (%s): dropped",
                        items[i]->kind == AST_T_NAME ? "'" : "",
                        items[i]->kind == AST_T_NAME ? diag_clip(items[i]->u.name.name.len, 64) : 0,
                        items[i]->kind == AST_T_NAME ? items[i]->u.name.name.ptr : "",
                        items[i]->kind == AST_T_NAME ? "'" : "", why.why);
    }
    if (n == 0 && count > 0)
        ERR(L, loc, "no alternative of this choice matches a JSON value (the first: %s)", first.why);
    return n;
}

/* Makes the named `node` stand for `r`: a typedef of a named type, or `r` itself under node's name. */
static void become(lower *L, ir_type *node, ir_type *r)
{
    ir_type keep = *node;
    (void)L;
    if (r == node)
        return;
    if (r->named) {
        node->kind = IR_ALIAS;
        node->target = r;
        node->base = resolved(r);
        return;
    }
    /* A primitive or constrained primitive: this rule is its own typedef. */
    *node = *r;
    node->rule = keep.rule;
    node->c_name = keep.c_name;
    node->doc = keep.doc;
    node->loc = keep.loc;
    node->index = keep.index;
    node->named = true;
}

/* Fills `node` from a rule's body, choosing the representation at the top level. */
static void fill_body(lower *L, ir_type *node, const sema_symbol *sym, const lower_env *env)
{
    size_t count;
    const ast_type **items = rule_bodies(L, sym, &count);
    const ast_type *t;
    if (count == 0)
        return;
    t = items[0];
    while (count == 1 && ast_paren_inner(t) != NULL)
        t = ast_paren_inner(t);
    if (count > 1 || t->kind == AST_T_CHOICE) {
        if (count == 1)
            fill_choice(L, node, (const ast_type *const *)t->u.choice.items, t->u.choice.count, env);
        else
            fill_choice(L, node, items, count, env);
        return;
    }
    if (t->kind == AST_T_MAP) {
        fill_struct(L, node, t->u.group, env);
        return;
    }
    if (t->kind == AST_T_ENUM || t->kind == AST_T_ENUM_NAME) {
        fill_enumeration(L, node, t, env);
        return;
    }
    if (t->kind == AST_T_ARRAY) {
        fill_array(L, node, t, env);
        return;
    }
    become(L, node, lower_type(L, t, node->c_name, node->rule, env));
}

static const sema_symbol *symbol_of(lower *L, ast_str name)
{
    return sema_lookup(L->table, name);
}

/* How a generic argument shows in an instance's name: `Page<uint>` -> page_uint. */
static const char *arg_stem(lower *L, const ir_type *a)
{
    static const char *const prims[] = { "any", "bool", "int", "uint", "float", "text" };
    if (is_prim(L, a))
        return prims[a - L->prim];
    if (a == &L->lit_null)
        return "null";
    if (a == &L->lit_true || a == &L->lit_false)
        return a->lit.i ? "true" : "false";
    if (a->kind == IR_LITERAL && a->lit.kind == IR_LIT_TEXT) { /* `JC<"low", 2>`: jc_low_2 */
        char buf[64];
        size_t n = naming_snake(a->lit.text, buf, sizeof buf);
        if (n > 0)
            return cddl_strdup(L->ctx, buf, n);
    }
    if (a->kind == IR_LITERAL && (a->lit.kind == IR_LIT_UINT || a->lit.kind == IR_LIT_INT))
        return a->lit.kind == IR_LIT_UINT ? cddl_fmt(L->ctx, "%llu", (unsigned long long)a->lit.u)
                                          : cddl_fmt(L->ctx, "minus%llu", (unsigned long long)-(a->lit.i + 1) + 1);
    if (a->c_name != NULL)
        return a->c_name;
    return "arg";
}

/* The text of an instance name; one too long is cut, and says so. */
typedef struct name_buf {
    char text[512];
    size_t len;
    int cut;
} name_buf;

static void name_put(name_buf *b, const char *s, size_t n)
{
    if (n > sizeof b->text - 1 - b->len) {
        n = sizeof b->text - 1 - b->len;
        b->cut = 1;
    }
    memcpy(b->text + b->len, s, n);
    b->len += n;
}

static void name_put_arg(name_buf *b, const ast_type *t, const lower_env *env);

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int ident_start(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '@' || c == '_' || c == '$';
}

static int ident_char(char c)
{
    return ident_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

/* Whether the identifier ending at p is a member key (`T: int` is the text key "T", not a type). */
static int bareword_key(const char *p, const char *end)
{
    while (p < end && blank(*p))
        p++;
    return p < end && *p == ':';
}

/*
 * A type's source text: each run of whitespace or comments one space,
 * string literals as written, and a parameter of the rule it is written in
 * replaced by what it stands for (`[* T]` -> `[* uint]`).
 */
static void name_put_source(name_buf *b, src_loc loc, const lower_env *env)
{
    const char *p = loc.src->text + loc.offset, *end = loc.src->text + loc.end;
    int space = 0;
    while (p < end && !b->cut) {
        const char *q = p + 1;
        if (*p == ';') {
            while (p < end && *p != '\n')
                p++;
            space = 1;
            continue;
        }
        if (blank(*p)) {
            p++;
            space = 1;
            continue;
        }
        if (space)
            name_put(b, " ", 1);
        space = 0;
        if (*p == '"' || *p == '\'') {
            while (q < end && *q != *p)
                q += *q == '\\' && q + 1 < end ? 2 : 1;
            if (q < end)
                q++;
        } else if (ident_start(*p)) {
            ast_str name;
            const ast_type *arg;
            const lower_env *caller;
            while (q < end && ident_char(*q))
                q++;
            while (q[-1] == '-' || q[-1] == '.') /* an identifier ends with neither */
                q--;
            name.ptr = p;
            name.len = (size_t)(q - p);
            if (!bareword_key(q, end) && find_param(env, name, &arg, &caller)) {
                name_put_arg(b, arg, caller);
                p = q;
                continue;
            }
        }
        name_put(b, p, (size_t)(q - p));
        p = q;
    }
}

static void name_put_args(name_buf *b, const ast_type_list *args, const lower_env *env);

/*
 * A generic argument as a person would write it once the parameters are
 * substituted: `T` in an instance made for `Page<User, text>` is spelled
 * `User`. Other types keep their source text, parameters in it replaced.
 */
static void name_put_arg(name_buf *b, const ast_type *t, const lower_env *env)
{
    const ast_type *arg;
    const lower_env *caller;
    if (b->cut)
        return; /* arguments that double at every level must not cost more than the name keeps */
    if (t->kind != AST_T_NAME) {
        name_put_source(b, t->loc, env);
        return;
    }
    if (t->u.name.args.count == 0 && find_param(env, t->u.name.name, &arg, &caller)) {
        name_put_arg(b, arg, caller);
        return;
    }
    name_put(b, t->u.name.name.ptr, t->u.name.name.len);
    if (t->u.name.args.count != 0)
        name_put_args(b, &t->u.name.args, env);
}

static void name_put_args(name_buf *b, const ast_type_list *args, const lower_env *env)
{
    size_t i;
    name_put(b, "<", 1);
    for (i = 0; i < args->count && !b->cut; i++) {
        if (i != 0)
            name_put(b, ", ", 2);
        name_put_arg(b, args->items[i], env);
    }
    name_put(b, ">", 1);
}

/* An argument's spelling: the name of an anonymous argument type (`[* text]`). */
static const char *arg_spelling(lower *L, const ast_type *t, const lower_env *env)
{
    name_buf b;
    b.len = 0;
    b.cut = 0;
    name_put_arg(&b, t, env);
    return cddl_strdup(L->ctx, b.text, b.len);
}

/*
 * How an instance of a generic rule is named in descriptors, messages and
 * the named-type table: with its arguments, parameters replaced by what
 * they stand for, `Page<User, text>`. Names are global in CDDL, so the
 * name says what the instance is; *cut is set when it was too long to
 * keep whole.
 */
static const char *instance_name(lower *L, ast_str rule, const ast_type_list *args, const lower_env *env, int *cut)
{
    name_buf b;
    b.len = 0;
    b.cut = 0;
    name_put(&b, rule.ptr, rule.len);
    name_put_args(&b, args, env);
    *cut = b.cut;
    return cddl_strdup(L->ctx, b.text, b.len);
}

/* The rule that a plain rule only renames (`a = b`, `a = (b)`), or NULL. */
static const sema_symbol *alias_of(lower *L, const sema_symbol *sym)
{
    const ast_type *t;
    const sema_symbol *to;
    if (sym->def == NULL || sym->nalts > 0 || sym->def->nparams > 0 ||
        sym->def->body->key_kind != AST_KEY_NONE || sym->def->body->has_occur)
        return NULL;
    t = sym->def->body->type;
    while (ast_paren_inner(t) != NULL)
        t = ast_paren_inner(t);
    if (t->kind != AST_T_NAME || t->u.name.args.count != 0 || (to = symbol_of(L, t->u.name.name)) == NULL ||
        to->from_prelude || to->kind != SEMA_TYPE || sema_first_rule(to)->nparams > 0)
        return NULL;
    return to;
}

/* Counts one type made for a generic instance; past the limit, reports it once and says stop. */
static int expand(lower *L, src_loc loc, const char *what)
{
    if (L->over_limit)
        return 0;
    if (++L->expanded <= LOWER_MAX_EXPANSION)
        return 1;
    ERR(L, loc, "generic rules expand to more than %d types here (at '%.*s'): the C would be too large to compile",
        LOWER_MAX_EXPANSION, diag_clip(strlen(what), 80), what);
    L->over_limit = 1;
    return 0;
}

static ir_type *lower_rule_of(lower *L, const sema_symbol *sym, const ast_type *use, const lower_env *env);

/* A named type is made once (memoized), so the groups it inlines start a fresh inlining stack. */
static ir_type *lower_rule(lower *L, const sema_symbol *sym, const ast_type *use, const lower_env *env)
{
    const ast_rule **outer = L->inlining;
    size_t nouter = L->ninlining;
    ir_type *r;
    L->inlining = NULL;
    L->ninlining = 0;
    r = lower_rule_of(L, sym, use, env);
    L->inlining = outer;
    L->ninlining = nouter;
    return r;
}

static ir_type *lower_rule_of(lower *L, const sema_symbol *sym, const ast_type *use, const lower_env *env)
{
    const ast_rule *def = sema_first_rule(sym);
    ir_type *node;
    lower_env inner;
    const char *c_name = stem(L, sym->name);
    size_t i;
    if (def->nparams == 0) {
        /*
         * A chain of aliases (`r0 = r1`, `r1 = r2`, ...) is filled from its
         * far end, so aliases nest nothing: however long the chain, neither
         * the C stack nor the nesting limit sees it. The types are made in
         * schema order first, as if each had been met in turn.
         */
        const sema_symbol *cur;
        const sema_symbol **chain = NULL;
        size_t n = 0;
        if (L->by_symbol[sym->order] != NULL)
            return L->by_symbol[sym->order];
        for (cur = sym; cur != NULL && L->by_symbol[cur->order] == NULL; cur = alias_of(L, cur)) {
            const ast_rule *d = sema_first_rule(cur);
            node = new_type(L, IR_ANY, str0(L, cur->name), stem(L, cur->name), d->name_loc);
            node->doc = d->doc;
            L->by_symbol[cur->order] = node;
            add_named(L, node);
            cddl_push(L->ctx, &chain, &n, sizeof cur, &cur);
        }
        while (n-- > 0)
            fill_body(L, L->by_symbol[chain[n]->order], chain[n], NULL);
        return L->by_symbol[sym->order];
    }
    /*
     * A generic instance, made once per instance name: the same arguments
     * spelled the same, after parameters are replaced, are the same type,
     * and a recursive rule (`Tree<T> = { ? l: Tree<T> }`) meets its own
     * instance again. Its C name is the rule's with the arguments' stems.
     */
    {
        char key[512];
        int cut;
        const char *name = instance_name(L, sym->name, &use->u.name.args, env, &cut);
        size_t n = (size_t)snprintf(key, sizeof key, "%s", c_name);
        size_t self = 0, at;
        if (!cut && naming_set_get(&L->instance_index, name, &at))
            return L->instances[at].type;
        for (i = 0; i < L->nactive; i++)
            self += L->active[i] == sym;
        if (self >= LOWER_MAX_SELF_NESTING) {
            ERR(L, use->loc, "'%.*s' instantiates itself with an argument that grows at every level (here %.*s%s): "
                "its expansion never ends", NAMEF(sym->name), diag_clip(strlen(name), 80), name,
                strlen(name) > 80 ? "..." : "");
            return &L->prim[P_ANY];
        }
        if (!expand(L, use->loc, name))
            return &L->prim[P_ANY];
        for (i = 0; i < use->u.name.args.count && n < sizeof key; i++) {
            const ast_type *arg = use->u.name.args.items[i];
            const ir_type *a;
            if (never_of(L, arg, env, 0).why != NULL) {
                /* `JC<text, bstr>`: an argument JSON cannot carry is lowered only where it is used */
                n += (size_t)snprintf(key + n, sizeof key - n, "_none");
                continue;
            }
            a = lower_type(L, arg, cddl_fmt(L->ctx, "%s_arg%zu", c_name, i + 1), arg_spelling(L, arg, env), env);
            n += (size_t)snprintf(key + n, sizeof key - n, "_%s", arg_stem(L, a));
        }
        if (n >= sizeof key)
            n = sizeof key - 1;
        node = new_type(L, IR_ANY, name, cddl_strdup(L->ctx, key, n), use->loc);
        node->doc = def->doc;
        if (!cut) { /* a name cut short could be another's: such an instance is made at each use */
            instance in;
            in.key = name;
            in.type = node;
            naming_set_put(L->ctx, &L->instance_index, name, L->ninstances);
            cddl_push(L->ctx, &L->instances, &L->ninstances, sizeof in, &in);
        }
        add_named(L, node);
        inner.rule = def;
        inner.args = &use->u.name.args;
        inner.caller = env;
        cddl_push(L->ctx, &L->active, &L->nactive, sizeof sym, &sym);
        fill_body(L, node, sym, &inner);
        L->nactive--;
        return node;
    }
}

/* True when a group choice is one keyless entry without occurrence: a type. */
static int choice_is_type(const ast_grpchoice *ch)
{
    return ch->count == 1 && ch->entries[0]->key_kind == AST_KEY_NONE && !ch->entries[0]->has_occur;
}

/* A group choice of members (`method: "a", params: P`) read as the map of those members. */
static ir_type *members_as_struct(lower *L, const ast_grpchoice *ch, const char *c_name, const char *path,
                                  const lower_env *env)
{
    ast_grpchoice *chp = (ast_grpchoice *)ch;
    ast_group one;
    ir_type *s = new_type(L, IR_STRUCT, path, c_name, ch->loc);
    add_named(L, s);
    one.loc = ch->loc;
    one.choices = &chp;
    one.count = 1;
    collect_members(L, s, &one, env, 0);
    finish_struct(L, s);
    return s;
}

/*
 * A group used where a type belongs (`result: ResultData`, the alternatives
 * of `CommandData = ( A // B )`): a union of its alternatives. An
 * alternative that is a single type stands for that type; one made of
 * members stands for the map of those members, which is what it is when the
 * group is inlined into a map (RFC 8610 2.1: a group in a map is its
 * members).
 */
static ir_type *group_as_type(lower *L, const ast_group *g, const char *c_name, const char *path,
                              src_loc loc, const lower_env *env)
{
    ir_type **alts = NULL;
    src_loc *locs = NULL;
    size_t c, n = 0, nlocs = 0;
    ir_type *node;
    const ast_type *items[256];
    if (g->count == 1 && !choice_is_type(g->choices[0]))
        return members_as_struct(L, g->choices[0], c_name, path, env); /* `(coordinates: C)` */
    node = new_type(L, IR_UNION, path, c_name, loc);
    add_named(L, node);
    for (c = 0; c < g->count && c < 256; c++)
        if (choice_is_type(g->choices[c]))
            items[n++] = g->choices[c]->entries[0]->type;
    if (n == g->count) { /* a choice of types: literal enums and all */
        fill_choice(L, node, items, n, env);
        return node;
    }
    n = 0;
    for (c = 0; c < g->count; c++) {
        const ast_grpchoice *ch = g->choices[c];
        const char *an = cddl_fmt(L->ctx, "%s_alt%zu", c_name, c + 1);
        const char *ap = cddl_fmt(L->ctx, "%s/%zu", path, c + 1);
        ir_type *a = choice_is_type(ch) ? lower_type(L, ch->entries[0]->type, an, ap, env)
                                        : members_as_struct(L, ch, an, ap, env);
        cddl_push(L->ctx, &alts, &n, sizeof a, &a);
        cddl_push(L->ctx, &locs, &nlocs, sizeof ch->loc, &ch->loc);
    }
    classify_union(L, node, alts, n, locs);
    return node;
}

static ir_type *lower_group_rule(lower *L, const sema_symbol *sym, const lower_env *env)
{
    const ast_type *body = sym->def ? sym->def->body->type : NULL;
    ir_type *u;
    if (L->group_unions[sym->order] != NULL)
        return L->group_unions[sym->order];
    if (body == NULL || body->kind != AST_T_PAREN) {
        ERR(L, sema_first_rule(sym)->name_loc,
            "group '%.*s' cannot be read as a type", NAMEF(sym->name));
        return &L->prim[P_ANY];
    }
    if (body->u.group->count == 1 && !choice_is_type(body->u.group->choices[0])) {
        /* `browser.Close = ( method: "browser.close", params: P )`: one map of members */
        L->group_unions[sym->order] = u = new_type(L, IR_STRUCT, str0(L, sym->name), stem(L, sym->name),
                                                   sym->def->name_loc);
        u->doc = sym->def->doc;
        add_named(L, u);
        collect_members(L, u, body->u.group, env, 0);
        finish_struct(L, u);
        return u;
    }
    u = group_as_type(L, body->u.group, stem(L, sym->name), str0(L, sym->name), sym->def->name_loc, env);
    u->doc = sym->def->doc;
    L->group_unions[sym->order] = u;
    return u;
}

/* ---- enumerations and bit numbers ----------------------------------------------- */

/*
 * The walks below visit each rule once per walk: a rule met again adds
 * nothing new (a choice or a set of bits is the same taken twice), so
 * cycles end and a diamond of rules costs its size, not 2^depth.
 */
static void begin_walk(lower *L)
{
    L->walk++;
}

static int first_visit(lower *L, const sema_symbol *sym)
{
    if (L->visited[sym->order] == L->walk)
        return 0;
    L->visited[sym->order] = L->walk;
    return 1;
}

static void enum_group(lower *L, const ast_group *g, const ast_type ***items, size_t *n, int depth);

/* The types one entry of an enumerated group adds: its own, or a named or parenthesised group's. */
static void enum_entry(lower *L, const ast_entry *e, const ast_type ***items, size_t *n, int depth)
{
    const sema_symbol *sym;
    size_t i;
    if (depth > CDDL_MAX_DEPTH) {
        ERR(L, e->loc, "an enumeration nested this deeply is not supported");
        return;
    }
    if (e->key_kind == AST_KEY_NONE && e->type->kind == AST_T_PAREN && ast_paren_inner(e->type) == NULL) {
        enum_group(L, e->type->u.group, items, n, depth + 1);
        return;
    }
    if (e->key_kind == AST_KEY_NONE && e->type->kind == AST_T_NAME &&
        (sym = symbol_of(L, e->type->u.name.name)) != NULL && sym->kind == SEMA_GROUP && !sym->from_prelude) {
        if (sema_first_rule(sym)->nparams > 0) {
            ERR(L, e->type->loc, "an enumeration of a generic group is not supported");
            return;
        }
        if (!first_visit(L, sym))
            return;
        if (sym->def != NULL)
            enum_entry(L, sym->def->body, items, n, depth + 1);
        for (i = 0; i < sym->nalts; i++)
            enum_entry(L, sym->alts[i]->body, items, n, depth + 1);
        return;
    }
    cddl_push(L->ctx, items, n, sizeof e->type, &e->type);
}

static void enum_group(lower *L, const ast_group *g, const ast_type ***items, size_t *n, int depth)
{
    size_t i, j;
    for (i = 0; i < g->count; i++)
        for (j = 0; j < g->choices[i]->count; j++)
            enum_entry(L, g->choices[i]->entries[j], items, n, depth);
}

/*
 * The types an enumeration chooses from (RFC 8610 3.5.4): `&( group )` and
 * `&name` are the choice of the group's entry types, keys and occurrences
 * aside. Returns their count; 0 after an error.
 */
static size_t enum_items(lower *L, const ast_type *t, const ast_type ***items)
{
    unsigned before = L->diag->errors;
    size_t n = 0;
    ast_entry e;
    ast_type *name;
    *items = NULL;
    if (t->kind == AST_T_ENUM) {
        enum_group(L, t->u.group, items, &n, 0);
    } else {
        name = cddl_alloc(L->ctx, sizeof *name); /* `&name`: as the group entry `name` */
        *name = *t;
        name->kind = AST_T_NAME;
        memset(&e, 0, sizeof e);
        e.loc = t->loc;
        e.type = name;
        enum_entry(L, &e, items, &n, 0);
        if (n == 1 && (*items)[0] == name) {
            ERR(L, t->loc, "'&%.*s' needs a group", NAMEF(t->u.name.name));
            return 0;
        }
    }
    if (n == 0 && L->diag->errors == before)
        ERR(L, t->loc, "an enumeration of no values matches nothing");
    return L->diag->errors == before ? n : 0;
}

/*
 * Sets in *allowed the bit numbers a `.bits` controller names (RFC 8610
 * 3.8.2): unsigned integers, ranges of them, and choices, enumerations and
 * rules made of those. Bits past 63 cannot be set in a 64-bit integer and
 * add nothing. Returns 0 when the controller is something else.
 */
static int bit_numbers(lower *L, const ast_type *t, const lower_env *env, uint64_t *allowed, int depth)
{
    const ast_type *arg, **items;
    const lower_env *caller;
    const sema_symbol *sym;
    const ast_value *lo, *hi;
    size_t i, n;
    uint64_t b, last;
    if (depth > CDDL_MAX_DEPTH)
        return 0;
    switch (t->kind) {
    case AST_T_VALUE:
        if (t->u.value.kind != AST_V_INT || t->u.value.negative)
            return 0;
        if (!t->u.value.overflow && t->u.value.magnitude < 64)
            *allowed |= (uint64_t)1 << t->u.value.magnitude;
        return 1;
    case AST_T_RANGE:
        lo = const_value(L, t->u.range.lo, env, 0);
        hi = const_value(L, t->u.range.hi, env, 0);
        if (lo == NULL || hi == NULL || lo->kind != AST_V_INT || hi->kind != AST_V_INT || lo->negative ||
            hi->negative)
            return 0;
        last = hi->overflow || hi->magnitude > 63 ? 63 : hi->magnitude - (t->u.range.inclusive ? 0 : 1);
        if (!t->u.range.inclusive && !hi->overflow && hi->magnitude == 0)
            return 1; /* `0...0` is empty */
        for (b = lo->overflow ? 64 : lo->magnitude; b <= last; b++)
            *allowed |= (uint64_t)1 << b;
        return 1;
    case AST_T_CHOICE:
        for (i = 0; i < t->u.choice.count; i++)
            if (!bit_numbers(L, t->u.choice.items[i], env, allowed, depth + 1))
                return 0;
        return 1;
    case AST_T_PAREN:
        return ast_paren_inner(t) != NULL && bit_numbers(L, ast_paren_inner(t), env, allowed, depth + 1);
    case AST_T_ENUM:
    case AST_T_ENUM_NAME:
        if ((n = enum_items(L, t, &items)) == 0)
            return 1; /* reported */
        for (i = 0; i < n; i++)
            if (!bit_numbers(L, items[i], env, allowed, depth + 1))
                return 0;
        return 1;
    case AST_T_NAME:
        if (find_param(env, t->u.name.name, &arg, &caller))
            return bit_numbers(L, arg, caller, allowed, depth + 1);
        sym = symbol_of(L, t->u.name.name);
        if (sym == NULL || sym->from_prelude || sym->kind != SEMA_TYPE ||
            sema_first_rule(sym)->nparams > 0)
            return 0;
        if (!first_visit(L, sym))
            return 1;
        if (sym->def != NULL && !bit_numbers(L, sym->def->body->type, NULL, allowed, depth + 1))
            return 0;
        for (i = 0; i < sym->nalts; i++)
            if (!bit_numbers(L, sym->alts[i]->body->type, NULL, allowed, depth + 1))
                return 0;
        return 1;
    default:
        return 0;
    }
}

/* `uint .bits Flags`: an unsigned integer whose set bits are all among Flags' bit numbers. */
static void apply_bits(lower *L, ir_type *t, const ast_type *arg, const lower_env *env, src_loc op_loc,
                       unsigned errors_before)
{
    uint64_t allowed = 0;
    if (t->kind != IR_UINT) {
        if (L->diag->errors == errors_before) /* a `bstr` target has been reported already */
            ERR(L, op_loc, "'.bits' applies to unsigned integers (and to byte strings, which JSON does not have)");
        return;
    }
    begin_walk(L);
    if (!bit_numbers(L, arg, env, &allowed, 0)) {
        ERR(L, arg->loc, "'.bits' needs bit numbers: unsigned integers, ranges of them, or a choice or "
                         "enumeration ('&') of them");
        return;
    }
    t->forbidden_bits |= ~allowed;
}

/* ---- type expressions ---------------------------------------------------------- */

static void apply_size(lower *L, ir_type *t, const ast_type *arg, const lower_env *env, src_loc loc)
{
    const ast_value *v;
    uint64_t lo, hi;
    while (ast_paren_inner(arg) != NULL)
        arg = ast_paren_inner(arg); /* `.size (1..16)`: the only way to write a size range */
    v = const_value(L, arg, env, 0);
    if (v != NULL && v->kind == AST_V_INT && !v->negative) {
        lo = hi = v->magnitude;
    } else if (arg->kind == AST_T_RANGE && const_value(L, arg->u.range.lo, env, 0) &&
               const_value(L, arg->u.range.hi, env, 0)) {
        lo = const_value(L, arg->u.range.lo, env, 0)->magnitude;
        hi = const_value(L, arg->u.range.hi, env, 0)->magnitude;
        if (!arg->u.range.inclusive && hi > 0)
            hi--;
    } else {
        ERR(L, arg->loc, "'.size' needs an unsigned integer or an integer range");
        return;
    }
    if (t->kind == IR_TEXT || t->kind == IR_BYTES) {
        t->len_min = (size_t)lo;
        t->len_max = (size_t)hi;
    } else if (t->kind == IR_UINT && hi <= 8) {
        t->umax = hi >= 8 ? UINT64_MAX : (((uint64_t)1 << (8 * hi)) - 1);
    } else if (t->kind == IR_INT && hi <= 8) {
        /* as CBOR writes an int: its argument (n, or -1-n) fits in `hi` bytes; int64_t caps it */
        t->imax = hi >= 8 ? INT64_MAX : (int64_t)(((uint64_t)1 << (8 * hi)) - 1);
        t->imin = hi >= 8 ? INT64_MIN : -(int64_t)((uint64_t)1 << (8 * hi));
    } else {
        ERR(L, loc, "'.size' applies to text%s and integers here", L->cbor ? ", byte strings" : "");
    }
}

static void apply_bound(lower *L, ir_type *t, const char *op, const ast_value *v, src_loc loc)
{
    int lower_bound = op[0] == 'g';
    int strict = op[1] == 't';
    ir_literal lit;
    if (v == NULL || (v->kind != AST_V_INT && v->kind != AST_V_FLOAT)) {
        ERR(L, loc, "'.%s' needs a number", op);
        return;
    }
    lit = literal_of(v);
    if (t->kind == IR_FLOAT) {
        double f = lit.kind == IR_LIT_FLOAT ? lit.f : lit.kind == IR_LIT_INT ? (double)lit.i : (double)lit.u;
        if (lower_bound)
            t->fmin = f, t->has_fmin = true, t->fmin_excl = strict;
        else
            t->fmax = f, t->has_fmax = true, t->fmax_excl = strict;
    } else if (t->kind == IR_INT && lit.kind != IR_LIT_FLOAT) {
        int64_t x = lit.kind == IR_LIT_INT ? lit.i : (int64_t)lit.u;
        if (lower_bound)
            t->imin = strict ? x + 1 : x;
        else
            t->imax = strict ? x - 1 : x;
    } else if (t->kind == IR_UINT && lit.kind == IR_LIT_UINT) {
        if (lower_bound)
            t->umin = strict ? lit.u + 1 : lit.u;
        else
            t->umax = strict ? lit.u - 1 : lit.u;
    } else {
        ERR(L, loc, "'.%s' applies to numbers of the same kind", op);
    }
}

/* `s` with tabs expanded to columns of 8 and the common leading spaces of its non-blank lines removed, appended to `out`. */
static void put_dedented(lower *L, char **out, size_t *n, ast_str s)
{
    size_t i, col = 0, indent = (size_t)-1, skip = 0;
    int at_start = 1;
    char *wide = NULL;
    size_t nwide = 0;
    for (i = 0; i < s.len; i++) { /* detab */
        char sp = ' ';
        if (s.ptr[i] == '\t') {
            do
                cddl_push(L->ctx, &wide, &nwide, 1, &sp);
            while (++col % 8 != 0);
            continue;
        }
        cddl_push(L->ctx, &wide, &nwide, 1, &s.ptr[i]);
        col = s.ptr[i] == '\n' ? 0 : col + 1;
    }
    for (i = 0, col = 0; i < nwide; i++) { /* the smallest indent of a non-blank line */
        if (wide[i] == '\n') {
            col = 0, at_start = 1;
        } else if (at_start && wide[i] == ' ') {
            col++;
        } else if (at_start) {
            at_start = 0;
            if (col < indent)
                indent = col;
        }
    }
    if (indent == (size_t)-1)
        indent = 0;
    for (i = 0; i < nwide; i++) {
        if (skip < indent && wide[i] == ' ') {
            skip++;
            continue;
        }
        skip = wide[i] == '\n' ? 0 : indent;
        cddl_push(L->ctx, out, n, 1, &wide[i]);
    }
}

/* RFC 9165 `.det`: `.cat` of the two texts, each detabbed and dedented first. */
static ast_str detab_dedent_cat(lower *L, ast_str a, ast_str b)
{
    char *out = NULL;
    size_t n = 0;
    ast_str r;
    put_dedented(L, &out, &n, a);
    put_dedented(L, &out, &n, b);
    r.ptr = out != NULL ? out : "";
    r.len = n;
    return r;
}

/* ---- `.and` and `.within` ------------------------------------------------------ */

/* Does the literal `lit` satisfy the scalar type `t` (kind, bounds, size, pattern)? */
static int literal_fits(const ir_literal *lit, const ir_type *t)
{
    double f;
    switch (t->kind) {
    case IR_ANY:
        return 1;
    case IR_TEXT:
        return lit->kind == IR_LIT_TEXT && lit->text.len >= t->len_min && lit->text.len <= t->len_max &&
               (t->pattern == NULL || aps_regex_match(t->pattern, lit->text.ptr, lit->text.len) == 1);
    case IR_UINT:
        return lit->kind == IR_LIT_UINT && lit->u >= t->umin && lit->u <= t->umax && !(lit->u & t->forbidden_bits);
    case IR_INT:
        return (lit->kind == IR_LIT_INT && lit->i >= t->imin && lit->i <= t->imax) ||
               (lit->kind == IR_LIT_UINT && lit->u <= (uint64_t)INT64_MAX && (int64_t)lit->u >= t->imin &&
                (int64_t)lit->u <= t->imax);
    case IR_FLOAT:
        if (lit->kind != IR_LIT_FLOAT && lit->kind != IR_LIT_INT && lit->kind != IR_LIT_UINT)
            return 0;
        f = lit->kind == IR_LIT_FLOAT ? lit->f : lit->kind == IR_LIT_INT ? (double)lit->i : (double)lit->u;
        return !(t->has_fmin && (t->fmin_excl ? f <= t->fmin : f < t->fmin)) &&
               !(t->has_fmax && (t->fmax_excl ? f >= t->fmax : f > t->fmax));
    case IR_BOOL:
        return lit->kind == IR_LIT_BOOL;
    case IR_LITERAL:
        return lit->kind == t->lit.kind && ast_str_same(lit->text, t->lit.text) && lit->i == t->lit.i &&
               lit->u == t->lit.u;
    default:
        return 0;
    }
}

/* floor and ceil for bounds (no libm): values past 2^63 are whole already. */
static double floor_d(double x)
{
    double t;
    if (x >= 9.2e18 || x <= -9.2e18 || x != x)
        return x;
    t = (double)(long long)x;
    return t > x ? t - 1 : t;
}

static double ceil_d(double x)
{
    return -floor_d(-x);
}

static int is_integer(const ir_type *t)
{
    return t->kind == IR_INT || t->kind == IR_UINT;
}

/* The integers of `t` (an IR_INT or IR_UINT) as an IR_INT-style interval, widened to 128 bits' worth of sense. */
static void int_bounds(const ir_type *t, int *lo_neg, uint64_t *lo_mag, int64_t *hi_i, uint64_t *hi_u, int *hi_signed)
{
    if (t->kind == IR_UINT) {
        *lo_neg = 0, *lo_mag = t->umin, *hi_signed = 0, *hi_u = t->umax, *hi_i = 0;
    } else {
        *lo_neg = t->imin < 0;
        *lo_mag = t->imin < 0 ? (uint64_t)(-(t->imin + 1)) + 1 : (uint64_t)t->imin;
        *hi_signed = t->imax < 0, *hi_i = t->imax, *hi_u = t->imax < 0 ? 0 : (uint64_t)t->imax;
    }
}

/* Two integer types: the integers both accept (uint when either is one, or when the lower bound is >= 0). */
static ir_type *and_integers(lower *L, const ir_type *a, const ir_type *b, const char *ctx, const char *path)
{
    int aneg, bneg, ahs, bhs;
    uint64_t alo, blo, ahu, bhu;
    int64_t ahi, bhi;
    ir_type *r;
    int_bounds(a, &aneg, &alo, &ahi, &ahu, &ahs);
    int_bounds(b, &bneg, &blo, &bhi, &bhu, &bhs);
    if (!aneg || !bneg) { /* the lower bound is >= 0: an unsigned result */
        uint64_t lo = aneg ? blo : bneg ? alo : (alo > blo ? alo : blo);
        uint64_t hi;
        if (ahs || bhs)
            return NULL; /* one ends below 0, the other starts at 0 or above */
        hi = ahu < bhu ? ahu : bhu;
        if (lo > hi)
            return NULL;
        r = constrained(L, &L->prim[P_UINT], path, ctx);
        r->umin = lo;
        r->umax = hi;
        r->forbidden_bits = (a->kind == IR_UINT ? a->forbidden_bits : 0) | (b->kind == IR_UINT ? b->forbidden_bits : 0);
        return r;
    }
    r = constrained(L, &L->prim[P_INT], path, ctx);
    r->imin = a->imin > b->imin ? a->imin : b->imin;
    r->imax = a->imax < b->imax ? a->imax : b->imax;
    return r->imin > r->imax ? NULL : r;
}

/* Float bounds of `b` applied to a copy of the float or integer type `a`. */
static ir_type *and_float_bounds(lower *L, const ir_type *a, const ir_type *b, const char *ctx, const char *path)
{
    ir_type *r = constrained(L, a, path, ctx);
    if (a->kind == IR_FLOAT) {
        if (b->has_fmin && (!r->has_fmin || b->fmin > r->fmin || (b->fmin == r->fmin && b->fmin_excl)))
            r->fmin = b->fmin, r->has_fmin = true, r->fmin_excl = b->fmin_excl;
        if (b->has_fmax && (!r->has_fmax || b->fmax < r->fmax || (b->fmax == r->fmax && b->fmax_excl)))
            r->fmax = b->fmax, r->has_fmax = true, r->fmax_excl = b->fmax_excl;
        return r->has_fmin && r->has_fmax && (r->fmin > r->fmax || (r->fmin == r->fmax && (r->fmin_excl || r->fmax_excl)))
                   ? NULL : r;
    }
    /* an integer type within float bounds: the integers inside them */
    if (b->has_fmin) {
        double lo = ceil_d(b->fmin);
        if (b->fmin_excl && lo == b->fmin)
            lo += 1;
        if (lo >= 18446744073709551616.0)
            return NULL;
        if (r->kind == IR_UINT && lo > (double)r->umin)
            r->umin = lo <= 0 ? 0 : (uint64_t)lo;
        else if (r->kind == IR_INT && lo > (double)r->imin)
            r->imin = lo >= 9223372036854775807.0 ? INT64_MAX : (int64_t)lo;
    }
    if (b->has_fmax) {
        double hi = floor_d(b->fmax);
        if (b->fmax_excl && hi == b->fmax)
            hi -= 1;
        if (r->kind == IR_UINT && (hi < 0 || hi < (double)r->umax))
            r->umax = hi < 0 ? 0 : (uint64_t)hi, r->umin = hi < 0 ? 1 : r->umin;
        else if (r->kind == IR_INT && hi < (double)r->imax)
            r->imax = hi <= -9223372036854775808.0 ? INT64_MIN : (int64_t)hi;
    }
    return (r->kind == IR_UINT && r->umin > r->umax) || (r->kind == IR_INT && r->imin > r->imax) ? NULL : r;
}

/*
 * `A .and B` (RFC 8610 3.8.5) and `A .within B`, which validates the same
 * way (B only states that A is within it): the values both accept. Worked
 * out for scalars (numbers with their ranges, text with its size and
 * pattern, literals and enumerations checked against the other side);
 * `any` on either side is the other. Returns NULL, after reporting, for
 * what is not worked out or leaves no value.
 */
static ir_type *and_types(lower *L, const ast_type *t, ir_type *a, ir_type *b, const char *ctx, const char *path)
{
    const ir_type *ra = resolved(a), *rb = resolved(b);
    const char *op = cddl_fmt(L->ctx, ".%.*s", NAMEF(t->u.control.op));
    ir_type *r = NULL;
    size_t i, n;
    if (ra->kind == IR_LITERAL || ra->kind == IR_ENUM) { /* the value side first */
        const ir_type *x = ra;
        ir_type *y = a;
        ra = rb, a = b, rb = x, b = y;
    }
    if (ra == rb || rb->kind == IR_ANY)
        return a;
    if (ra->kind == IR_ANY)
        return b;
    if (rb->kind == IR_LITERAL && (ra->kind == IR_LITERAL || ra->kind <= IR_TEXT)) {
        if (literal_fits(&rb->lit, ra))
            return b;
        ERR(L, t->loc, "'%s' leaves no value: the literal %.*s is not a value of the other side", op,
            NAMEF(rb->lit.text));
        return NULL;
    }
    if (rb->kind == IR_ENUM && rb->other == NULL && ra->kind <= IR_TEXT) {
        /* a choice written here (its rule is this path) is filtered in place; a named one is copied */
        int here = rb == b && b->rule != NULL && path != NULL && strcmp(b->rule, path) == 0;
        const ir_literal *values = rb->values;
        size_t count = rb->nvalues;
        r = here ? b : constrained(L, rb, path, ctx);
        r->values = cddl_alloc(L->ctx, (count ? count : 1) * sizeof *r->values);
        for (i = n = 0; i < count; i++)
            if (literal_fits(&values[i], ra))
                r->values[n++] = values[i];
        r->nvalues = n;
        r->sorted = n > IR_WIDE_ENUM ? sorted_values(L, r) : NULL;
        if (n == 0) {
            ERR(L, t->loc, "'%s' leaves no value: no value of the choice is a value of the other side", op);
            return NULL;
        }
        r->named = here;
        return r;
    }
    if (is_integer(ra) && is_integer(rb))
        r = and_integers(L, ra, rb, ctx, path);
    else if ((ra->kind == IR_FLOAT || is_integer(ra)) && rb->kind == IR_FLOAT)
        r = and_float_bounds(L, ra, rb, ctx, path);
    else if (ra->kind == IR_FLOAT && is_integer(rb))
        r = and_float_bounds(L, rb, ra, ctx, path);
    else if (ra->kind == IR_TEXT && rb->kind == IR_TEXT) {
        if (ra->pattern != NULL && rb->pattern != NULL && strcmp(ra->pattern, rb->pattern) != 0) {
            ERR(L, t->loc, "'%s' of two text types with different patterns is not supported: write one pattern", op);
            return NULL;
        }
        r = constrained(L, ra, path, ctx);
        r->len_min = ra->len_min > rb->len_min ? ra->len_min : rb->len_min;
        r->len_max = ra->len_max < rb->len_max ? ra->len_max : rb->len_max;
        if (r->pattern == NULL)
            r->pattern = rb->pattern;
        if (r->len_min > r->len_max)
            r = NULL;
    } else if (ra->kind == IR_BOOL && rb->kind == IR_BOOL) {
        return a;
    } else {
        ERR(L, t->loc, "'%s' is supported between numbers, texts, literals and their choices, or with any: "
                       "write the type both sides accept", op);
        return NULL;
    }
    if (r == NULL)
        ERR(L, t->loc, "'%s' leaves no value: the two sides have no value in common", op);
    return r;
}

static ir_type *lower_control(lower *L, const ast_type *t, const char *ctx, const char *path,
                              const lower_env *env)
{
    ast_str op = t->u.control.op;
    const ir_type *base;
    ir_type *target, *c;
    const ast_value *v;
    unsigned errors_before = L->diag->errors;
    /* under `.and`, a choice written on the left is a type of its own: it must not take the rule's name */
    target = lower_type(L, t->u.control.target,
                        ast_str_eq(op, "and") || ast_str_eq(op, "within") ? cddl_fmt(L->ctx, "%s_values", ctx) : ctx,
                        path, env);
    base = resolved(target);
    if (ast_str_eq(op, "feature") && feature_name(L, t->u.control.arg, env) == NULL)
        ERR(L, t->u.control.arg->loc, "'.feature' needs a feature name: a text, or an array whose first entry is one");
    /* `.default` says nothing about which values are valid; an enabled `.feature` neither
     * (one not enabled never gets here: see never_of) */
    if (ast_str_eq(op, "default") || ast_str_eq(op, "feature"))
        return target;
    if (ast_str_eq(op, "and") || ast_str_eq(op, "within")) {
        ir_type *r = and_types(L, t, target, lower_type(L, t->u.control.arg, cddl_fmt(L->ctx, "%s_and", ctx),
                                                         cddl_fmt(L->ctx, "%s(and)", path), env), ctx, path);
        return r != NULL ? r : &L->prim[P_ANY];
    }
    if (ast_str_eq(op, "abnf") && base != NULL && base->kind == IR_TEXT) {
        diag_report(L->diag, DIAG_WARNING, DIAG_W_LOOSE, t->u.control.op_loc,
                    "'.abnf' read as its text type: the ABNF grammar is not checked");
        return target;
    }
    if (L->cbor && (ast_str_eq(op, "cbor") || ast_str_eq(op, "cborseq")) && base != NULL && base->kind == IR_BYTES) {
        /* the embedded item's type is lowered as a type of its own: it is what a product decodes the bytes as */
        c = constrained(L, base, path, ctx);
        c->sequence = op.ptr[4] == 's';
        c->embedded = lower_type(L, t->u.control.arg, cddl_fmt(L->ctx, "%s_cbor", ctx),
                                 cddl_fmt(L->ctx, "%s(cbor)", path), env);
        return c;
    }
    if (ast_str_eq(op, "cbor") || ast_str_eq(op, "cborseq") ||
        ast_str_eq(op, "abnf") || ast_str_eq(op, "abnfb") || ast_str_eq(op, "ne"))
        return unsupported(L, t->u.control.op_loc, cddl_fmt(L->ctx, "the control operator '.%.*s'", NAMEF(op)));
    if (ast_str_eq(op, "eq")) {
        v = const_value(L, t->u.control.arg, env, 0);
        if (v == NULL)
            return unsupported(L, t->u.control.arg->loc, "'.eq' with a non-literal value");
        c = new_type(L, IR_LITERAL, path, ctx, t->loc);
        c->lit = literal_of(v);
        return c;
    }
    if (ast_str_eq(op, "det")) {
        const ast_value *a = const_value(L, t->u.control.target, env, 0);
        const ast_value *b = const_value(L, t->u.control.arg, env, 0);
        if (a == NULL || b == NULL || a->kind != AST_V_TEXT || b->kind != AST_V_TEXT)
            return unsupported(L, t->u.control.op_loc, "'.det' on these operands");
        c = new_type(L, IR_LITERAL, path, ctx, t->loc);
        c->lit.kind = IR_LIT_TEXT;
        c->lit.text = detab_dedent_cat(L, a->text, b->text);
        return c;
    }
    if (ast_str_eq(op, "cat") || ast_str_eq(op, "plus")) {
        const ast_value *a = const_value(L, t->u.control.target, env, 0);
        const ast_value *b = const_value(L, t->u.control.arg, env, 0);
        c = new_type(L, IR_LITERAL, path, ctx, t->loc);
        if (a != NULL && b != NULL && op.ptr[0] == 'c' && a->kind == AST_V_TEXT && b->kind == AST_V_TEXT) {
            char *s = cddl_alloc(L->ctx, a->text.len + b->text.len + 1);
            memcpy(s, a->text.ptr, a->text.len);
            memcpy(s + a->text.len, b->text.ptr, b->text.len);
            c->lit.kind = IR_LIT_TEXT;
            c->lit.text.ptr = s;
            c->lit.text.len = a->text.len + b->text.len;
            return c;
        }
        if (a != NULL && b != NULL && op.ptr[0] == 'p' && a->kind == AST_V_INT && b->kind == AST_V_INT &&
            !a->negative && !b->negative) {
            c->lit.kind = IR_LIT_UINT;
            c->lit.u = a->magnitude + b->magnitude;
            return c;
        }
        return unsupported(L, t->u.control.op_loc, cddl_fmt(L->ctx, "'.%.*s' on these operands", NAMEF(op)));
    }
    if (base == NULL || is_shared(L, target) || target->named)
        c = constrained(L, base ? base : target, path, ctx);
    else
        c = target;
    if (ast_str_eq(op, "size")) {
        apply_size(L, c, t->u.control.arg, env, t->loc);
    } else if (ast_str_eq(op, "bits")) {
        apply_bits(L, c, t->u.control.arg, env, t->u.control.op_loc, errors_before);
    } else if (ast_str_eq(op, "regexp") || ast_str_eq(op, "pcre")) {
        v = const_value(L, t->u.control.arg, env, 0);
        if (c->kind != IR_TEXT || v == NULL || v->kind != AST_V_TEXT) {
            ERR(L, t->loc, "'.%.*s' needs a text type and a text pattern", NAMEF(op));
        } else {
            c->pattern = str0(L, v->text);
            if (aps_regex_match(c->pattern, "", 0) < 0)
                ERR(L, t->u.control.arg->loc, "pattern \"%s\" uses regular expression syntax the runtime does not support",
                    c->pattern);
        }
    } else if (ast_str_eq(op, "lt") || ast_str_eq(op, "le") || ast_str_eq(op, "gt") || ast_str_eq(op, "ge")) {
        apply_bound(L, c, str0(L, op), const_value(L, t->u.control.arg, env, 0), t->loc);
    } else {
        ERR(L, t->u.control.op_loc, "unknown control operator '.%.*s'", NAMEF(op));
    }
    return c;
}

static int hex_digit(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int b64_digit(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' || c == '-' ? 62 : c == '/' || c == '_' ? 63 : -1;
}

/* A byte string literal (`h'0102'`, `b64'AQI'`, `'text'`) as an IR_LIT_BYTES literal (--cbor). */
static ir_type *bytes_literal(lower *L, const ast_value *v, const char *ctx, const char *path, src_loc loc)
{
    ir_type *r = new_type(L, IR_LITERAL, path, ctx, loc);
    char *out = cddl_alloc(L->ctx, v->text.len + 1);
    size_t i, n = 0;
    unsigned acc = 0, bits = 0;
    int half = -1;
    for (i = 0; i < v->text.len; i++) {
        int c = (unsigned char)v->text.ptr[i], d;
        if (v->qual == AST_BYTES_PLAIN) {
            if (c == '\\' && i + 1 < v->text.len)
                c = (unsigned char)v->text.ptr[++i];
            out[n++] = (char)c;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '=')
            continue; /* RFC 8610 G.1: whitespace inside h'' and b64'' */
        if (v->qual == AST_BYTES_HEX) {
            if ((d = hex_digit(c)) < 0)
                break;
            if (half < 0) {
                half = d;
            } else {
                out[n++] = (char)(half * 16 + d);
                half = -1;
            }
            continue;
        }
        if ((d = b64_digit(c)) < 0)
            break;
        acc = (acc << 6) | (unsigned)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (char)((acc >> bits) & 0xff);
        }
    }
    if (i < v->text.len || half >= 0)
        ERR(L, loc, "this byte string literal is not well-formed %s", v->qual == AST_BYTES_HEX ? "hex" : "base64");
    r->lit.kind = IR_LIT_BYTES;
    r->lit.text.ptr = out;
    r->lit.text.len = n;
    return r;
}

static ir_type *lower_range(lower *L, const ast_type *t, const char *ctx, const char *path,
                            const lower_env *env)
{
    const ast_value *lo = const_value(L, t->u.range.lo, env, 0);
    const ast_value *hi = const_value(L, t->u.range.hi, env, 0);
    ir_type *r;
    if (lo == NULL || hi == NULL)
        return unsupported(L, t->loc, "a range without literal bounds");
    if (lo->kind == AST_V_FLOAT || hi->kind == AST_V_FLOAT) {
        ir_literal a = literal_of(lo), b = literal_of(hi);
        r = constrained(L, &L->prim[P_FLOAT], path, ctx);
        r->fmin = a.kind == IR_LIT_FLOAT ? a.f : a.kind == IR_LIT_INT ? (double)a.i : (double)a.u;
        r->fmax = b.kind == IR_LIT_FLOAT ? b.f : b.kind == IR_LIT_INT ? (double)b.i : (double)b.u;
        r->has_fmin = r->has_fmax = true;
        r->fmax_excl = !t->u.range.inclusive;
        if (r->fmin != r->fmin || r->fmax != r->fmax || r->fmin * 0 != 0 || r->fmax * 0 != 0)
            return unsupported(L, t->loc, "a float bound beyond the range of double");
        return r;
    }
    if (lo->overflow || hi->overflow || (lo->negative && lo->magnitude > (uint64_t)INT64_MAX + 1))
        return unsupported(L, t->loc, "an integer range beyond 64 bits");
    if (!lo->negative) {
        r = constrained(L, &L->prim[P_UINT], path, ctx);
        r->umin = lo->magnitude;
        r->umax = hi->magnitude - (t->u.range.inclusive || hi->magnitude == 0 ? 0 : 1);
    } else {
        ir_literal a = literal_of(lo), b = literal_of(hi);
        r = constrained(L, &L->prim[P_INT], path, ctx);
        r->imin = a.i;
        r->imax = b.kind == IR_LIT_INT ? b.i : (b.u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)b.u);
        if (!t->u.range.inclusive)
            r->imax--;
    }
    return r;
}

static ir_type *lower_major(lower *L, const ast_type *t, const char *ctx, const char *path)
{
    unsigned m = t->u.tag.major;
    uint64_t n = t->u.tag.value;
    int has = t->u.tag.has_number && t->u.tag.number_type == NULL;
    if (L->cbor && m == 2 && !has)
        return &L->bytes;
    if (L->cbor && m == 6 && has) { /* `#6.n`: tag n with any content */
        ir_type *r = new_type(L, IR_TAG, path, ctx, t->loc);
        r->tag = n;
        r->content = &L->prim[P_ANY];
        return r;
    }
    if (L->cbor && m == 7 && has && n == 23)
        return &L->lit_undefined;
    if (L->cbor && m == 7 && has && n >= 25 && n <= 27) {
        ir_type *r = constrained(L, &L->prim[P_FLOAT], path, ctx);
        r->fwidth = n == 25 ? 2 : n == 26 ? 4 : 8;
        return r;
    }
    if (m == 0 && !has)
        return &L->prim[P_UINT];
    if (m == 3 && !has)
        return &L->prim[P_TEXT];
    if (m == 7 && has && n == 20)
        return &L->lit_false;
    if (m == 7 && has && n == 21)
        return &L->lit_true;
    if (m == 7 && has && n == 22)
        return &L->lit_null;
    if (m == 7 && has && n >= 25 && n <= 27)
        return &L->prim[P_FLOAT];
    return unsupported(L, t->loc, cddl_fmt(L->ctx, "the CBOR major type #%u", m));
}

static ir_type *lower_type(lower *L, const ast_type *t, const char *ctx, const char *path,
                           const lower_env *env)
{
    const ast_type *arg, *inner;
    const lower_env *caller;
    const sema_symbol *sym;
    ir_type *node, *r;
    never none;
    if (L->over_limit)
        return &L->prim[P_ANY];
    /* a choice drops what JSON cannot match before it gets here: what is left is required */
    if ((none = never_of(L, t, env, 0)).why != NULL)
        return nothing_left(L, t, none);
    if (env != NULL && (t->kind == AST_T_MAP || t->kind == AST_T_ARRAY || t->kind == AST_T_CHOICE) &&
        !expand(L, t->loc, path))
        return &L->prim[P_ANY];
    if (++L->depth > CDDL_MAX_DEPTH * 4) {
        L->depth--;
        return unsupported(L, t->loc, "a type nested this deeply");
    }
    switch (t->kind) {
    case AST_T_VALUE:
        if (t->u.value.kind == AST_V_BYTES) {
            r = L->cbor ? bytes_literal(L, &t->u.value, ctx, path, t->loc)
                        : unsupported(L, t->loc, "a byte string literal");
            break;
        }
        r = new_type(L, IR_LITERAL, path, ctx, t->loc);
        r->lit = literal_of(&t->u.value);
        break;
    case AST_T_NAME:
        if (find_param(env, t->u.name.name, &arg, &caller)) {
            r = lower_type(L, arg, ctx, path, caller);
            break;
        }
        sym = symbol_of(L, t->u.name.name);
        if (sym == NULL && t->u.name.name.len > 0 && t->u.name.name.ptr[0] == '$') {
            /* RFC 8610 3.9 leaves it empty; a schema names a socket to be plugged elsewhere (another
             * file, a later draft), and zcbor leaves it out: read as any, loosely (docs/cddl.md) */
            diag_report(L->diag, DIAG_WARNING, DIAG_W_LOOSE, t->loc,
                        "the socket '%.*s', which nothing in this schema extends, read as any: its plugs are "
                        "elsewhere (alone it would match nothing)", NAMEF(t->u.name.name));
            r = &L->prim[P_ANY];
        } else if (sym == NULL) {
            r = &L->prim[P_ANY];
        } else if (sym->from_prelude && prelude_tagged(L, t->u.name.name)) {
            r = lower_rule(L, sym, t, env); /* --cbor: `uri = #6.32(tstr)`, its tag and all */
        } else if (sym->from_prelude) {
            r = prelude_type(L, t->u.name.name, t->loc);
        } else if (sym->kind == SEMA_GROUP) {
            r = lower_group_rule(L, sym, env);
        } else {
            r = lower_rule(L, sym, t, env);
        }
        break;
    case AST_T_PAREN:
        inner = ast_paren_inner(t);
        if (inner != NULL)
            r = lower_type(L, inner, ctx, path, env);
        else
            r = group_as_type(L, t->u.group, ctx, path, t->loc, env);
        break;
    case AST_T_MAP:
        node = new_type(L, IR_STRUCT, path, ctx, t->loc);
        add_named(L, node);
        fill_struct(L, node, t->u.group, env);
        r = node;
        break;
    case AST_T_ARRAY:
        node = new_type(L, IR_ARRAY, path, ctx, t->loc);
        add_named(L, node);
        fill_array(L, node, t, env);
        r = node;
        break;
    case AST_T_CHOICE:
        node = new_type(L, IR_UNION, path, ctx, t->loc);
        add_named(L, node);
        fill_choice(L, node, (const ast_type *const *)t->u.choice.items, t->u.choice.count, env);
        r = node;
        break;
    case AST_T_RANGE:
        r = lower_range(L, t, ctx, path, env);
        break;
    case AST_T_CONTROL:
        r = lower_control(L, t, ctx, path, env);
        break;
    case AST_T_ANY:
        r = &L->prim[P_ANY];
        break;
    case AST_T_MAJOR:
        r = lower_major(L, t, ctx, path);
        break;
    case AST_T_TAG:
        if (L->cbor && t->u.tag.has_number && t->u.tag.number_type == NULL && t->u.tag.number.len > 0 &&
            !(t->u.tag.value == 0 && !(t->u.tag.number.len == 1 && t->u.tag.number.ptr[0] == '0'))) {
            r = new_type(L, IR_TAG, path, ctx, t->loc);
            r->tag = t->u.tag.value;
            r->content = lower_type(L, t->u.tag.content, cddl_fmt(L->ctx, "%s_content", ctx),
                                    cddl_fmt(L->ctx, "%s(content)", path), env);
            break;
        }
        r = unsupported(L, t->loc, L->cbor ? "a CBOR tag whose number is not one 64-bit literal" : "a CBOR tag");
        break;
    case AST_T_UNWRAP: {
        /* `~time` is the tag's content (RFC 8610 3.7): in JSON, which has no tags, the value itself */
        lower_env inner_env;
        const lower_env *cenv;
        const ast_type *content = unwrapped(L, t, env, &inner_env, &cenv);
        r = content != NULL ? lower_type(L, content, ctx, path, cenv)
                            : unsupported(L, t->loc, "an unwrapped type that is not a tag ('~' used as a type)");
        break;
    }
    case AST_T_ENUM:
    case AST_T_ENUM_NAME:
        node = new_type(L, IR_UNION, path, ctx, t->loc);
        add_named(L, node);
        fill_enumeration(L, node, t, env);
        r = node;
        break;
    default:
        r = unsupported(L, t->loc, "this type");
        break;
    }
    L->depth--;
    return r;
}

/* ---- arrays and structs ------------------------------------------------------- */

static int accepts_every(lower *L, const ir_type *a, const ir_type *b);
static int may_accept_every(lower *L, const ir_type *a);

/*
 * An array of several entries (`[(X / text), X]`, `[a: int, b: text]`):
 * the C model has one element type, so it is read as an array of any of
 * the entries' types (keys in arrays are names only, RFC 8610 3.4), as long
 * as the entries together allow. Which position holds which type is not
 * checked: a -Wloose warning says so.
 */
/*
 * --cbor: an array of several entries, or of groups, read by position
 * (RFC 8610 2.1: a group in an array stands for its entries). Its C type is
 * a struct of its entries in order (APS_K_TUPLE): an entry of one element
 * is a member, `?` an optional one, a repeated entry an array of its
 * elements, a group written in place its own entries, and a choice of
 * groups (`[+ (SUIT_Condition // SUIT_Directive)]`) a union whose
 * alternatives take the elements in place. The runtime matches the entries
 * with backtracking (docs/cbor.md, "Positional arrays").
 */
static void tuple_entries(lower *L, ir_type *node, const ast_grpchoice *ch, const lower_env *env, int depth);
static void name_alternatives(lower *L, ir_type *node);
static int field_name_taken(lower *L, const ir_type *node, const char *c_name);
static void push_member(lower *L, ir_type *node, const ir_field *f);

/*
 * The group an array entry stands for: `( ... )` written there, or a group
 * rule's definition and `//=` alternatives, as one group choice (a group
 * socket nothing plugs is the empty group); NULL for a type. `*sym_out` is
 * the rule, for the memo.
 */
static const ast_group *entry_group(lower *L, const ast_entry *e, const sema_symbol **sym_out)
{
    const ast_type *t = e->type;
    const sema_symbol *sym;
    ast_group *g;
    size_t i, b, nbodies;
    const ast_type **bodies;
    static const ast_group empty;
    *sym_out = NULL;
    if (e->key_kind != AST_KEY_NONE && e->key_kind != AST_KEY_BAREWORD)
        return NULL;
    if (t->kind == AST_T_PAREN && ast_paren_inner(t) == NULL)
        return t->u.group;
    if (t->kind == AST_T_NAME && t->u.name.name.len > 1 && t->u.name.name.ptr[0] == '$' &&
        t->u.name.name.ptr[1] == '$' && symbol_of(L, t->u.name.name) == NULL)
        return &empty; /* a group socket nothing plugs: the empty group (RFC 8610 3.9) */
    if (t->kind != AST_T_NAME || t->u.name.has_args || (sym = symbol_of(L, t->u.name.name)) == NULL ||
        sym->kind != SEMA_GROUP || sym->from_prelude || (sym->def != NULL && sym->def->nparams != 0))
        return NULL;
    *sym_out = sym;
    g = cddl_alloc(L->ctx, sizeof *g);
    g->loc = t->loc;
    bodies = rule_bodies(L, sym, &nbodies);
    for (b = 0; b < nbodies; b++) {
        const ast_type *bt = bodies[b];
        const ast_entry *be = b == 0 && sym->def != NULL ? sym->def->body : sym->alts[b - (sym->def != NULL)]->body;
        if (bt->kind == AST_T_PAREN && ast_paren_inner(bt) == NULL && be->key_kind == AST_KEY_NONE && !be->has_occur) {
            for (i = 0; i < bt->u.group->count; i++)
                cddl_push(L->ctx, &g->choices, &g->count, sizeof *g->choices, &bt->u.group->choices[i]);
        } else { /* `G //= (a => b)` read as the group of that one entry */
            ast_grpchoice *one = cddl_alloc(L->ctx, sizeof *one);
            one->loc = be->loc;
            one->count = 1;
            one->entries = cddl_alloc(L->ctx, sizeof *one->entries);
            one->entries[0] = (ast_entry *)be;
            cddl_push(L->ctx, &g->choices, &g->count, sizeof *g->choices, &one);
        }
    }
    return g;
}

/* A group of a positional array as one element type: its entries in a struct written in place. */
static ir_type *group_tuple(lower *L, const ast_grpchoice *ch, const char *c_name, const char *rule,
                            const lower_env *env, int depth)
{
    ir_type *s = new_type(L, IR_STRUCT, rule, c_name, ch->loc);
    add_named(L, s);
    s->positional = s->group = true;
    tuple_entries(L, s, ch, env, depth + 1);
    return s;
}

static ir_type *group_element(lower *L, const ast_group *g, const char *c_name, const char *rule, src_loc loc,
                              const lower_env *env, int depth);

/* One alternative of a choice of groups: a single plain entry is its type, else a group. */
static ir_type *group_alternative(lower *L, const ast_grpchoice *ch, const char *c_name, const char *rule,
                                  const lower_env *env, int depth)
{
    if (ch->count == 1 && !ch->entries[0]->has_occur) {
        const sema_symbol *sym;
        const ast_group *g = entry_group(L, ch->entries[0], &sym);
        if (g == NULL && ch->entries[0]->key_kind != AST_KEY_TYPE && ch->entries[0]->key_kind != AST_KEY_VALUE)
            return lower_type(L, ch->entries[0]->type, c_name, rule, env);
        if (g != NULL && sym != NULL) {
            if (L->group_tuples[sym->order] == NULL)
                L->group_tuples[sym->order] = group_element(L, g, stem(L, sym->name), str0(L, sym->name),
                                                            ch->loc, env, depth + 1);
            return L->group_tuples[sym->order];
        }
        if (g != NULL)
            return group_element(L, g, c_name, rule, ch->loc, env, depth + 1);
    }
    return group_tuple(L, ch, c_name, rule, env, depth);
}

/* A group as the element type of an entry: a group, or a choice of groups tried in order. */
static ir_type *group_element(lower *L, const ast_group *g, const char *c_name, const char *rule, src_loc loc,
                              const lower_env *env, int depth)
{
    ir_type *u;
    size_t c;
    if (depth > 64) {
        ERR(L, loc, "groups nested too deep in an array");
        return &L->prim[P_ANY];
    }
    if (g->count == 1)
        return group_tuple(L, g->choices[0], c_name, rule, env, depth);
    u = new_type(L, IR_UNION, rule, c_name, loc);
    add_named(L, u);
    u->cls = IR_U_GROUPS;
    u->json_class = 5 + 1;
    for (c = 0; c < g->count; c++) {
        ir_type *a = group_alternative(L, g->choices[c], cddl_fmt(L->ctx, "%s_alt%zu", c_name, c + 1),
                                       cddl_fmt(L->ctx, "%s/%zu", rule, c + 1), env, depth);
        cddl_push(L->ctx, &u->alts, &u->nalts, sizeof a, &a);
    }
    name_alternatives(L, u);
    return u;
}

/* The C member name of an entry: its label, the group rule it names, or its position. */
static const char *entry_c_name(lower *L, const ir_type *node, const ast_entry *e, const sema_symbol *sym)
{
    char buf[256];
    size_t n;
    if (e->key_kind == AST_KEY_BAREWORD)
        n = naming_snake(e->bareword, buf, sizeof buf);
    else if (sym != NULL)
        n = naming_snake(sym->name, buf, sizeof buf);
    else
        n = (size_t)snprintf(buf, sizeof buf, "item%zu", node->nfields + 1);
    if (naming_is_reserved(buf) && n + 1 < sizeof buf)
        buf[n++] = '_', buf[n] = '\0';
    return cddl_strdup(L->ctx, buf, n);
}

static void push_entry(lower *L, ir_type *node, const ast_entry *e, const char *c_name, ir_type *type)
{
    ir_field f;
    uint64_t min = e->has_occur ? e->occur_min : 1, max = e->has_occur ? e->occur_max : 1;
    memset(&f, 0, sizeof f);
    f.doc = e->doc;
    f.loc = e->loc;
    f.c_name = c_name;
    if (field_name_taken(L, node, f.c_name)) {
        size_t suffix = 2;
        do
            f.c_name = cddl_fmt(L->ctx, "%s_%zu", c_name, suffix++);
        while (field_name_taken(L, node, f.c_name));
    }
    f.key.ptr = f.c_name;
    f.key.len = strlen(f.c_name);
    f.snake = f.c_name;
    f.type = type;
    if (min == 0 && max == 1) {
        f.flags |= IR_F_OPTIONAL;
    } else if (min != 1 || max != 1) {
        ir_type *a = new_type(L, IR_ARRAY, cddl_fmt(L->ctx, "%s.%s", node->rule, f.c_name),
                              cddl_fmt(L->ctx, "%s_%s", node->c_name, f.c_name), e->loc);
        add_named(L, a);
        a->elem = type;
        a->occ_min = min;
        a->occ_max = max;
        a->spread = true;
        f.type = a;
    }
    if (f.type->kind == IR_LITERAL)
        f.flags |= IR_F_LITERAL;
    push_member(L, node, &f);
}

static void tuple_entries(lower *L, ir_type *node, const ast_grpchoice *ch, const lower_env *env, int depth)
{
    size_t k;
    if (depth > 64) {
        ERR(L, ch->loc, "groups nested too deep in an array");
        return;
    }
    for (k = 0; k < ch->count; k++) {
        const ast_entry *e = ch->entries[k];
        const sema_symbol *sym;
        const ast_group *g = entry_group(L, e, &sym);
        const char *c_name;
        ir_type *t;
        if (e->key_kind == AST_KEY_TYPE || e->key_kind == AST_KEY_VALUE) {
            ERR(L, e->loc, "a computed key has no place in an array (RFC 8610 3.4: keys in arrays are names)");
            continue;
        }
        if (g != NULL && g->count == 0)
            continue; /* a group socket nothing plugs: no entries */
        if (g != NULL && g->count == 1 && !e->has_occur) {
            tuple_entries(L, node, g->choices[0], env, depth + 1); /* `(a, b)` once: its entries here */
            continue;
        }
        c_name = entry_c_name(L, node, e, sym);
        if (g != NULL && sym != NULL) {
            if (L->group_tuples[sym->order] == NULL)
                L->group_tuples[sym->order] = group_element(L, g, stem(L, sym->name), str0(L, sym->name), e->loc,
                                                            env, depth);
            t = L->group_tuples[sym->order];
        } else if (g != NULL) { /* `_group`: the entry's own name is its array's when repeated */
            t = group_element(L, g, cddl_fmt(L->ctx, "%s_%s_group", node->c_name, c_name),
                              cddl_fmt(L->ctx, "%s.%s", node->rule, c_name), e->loc, env, depth);
        } else {
            t = lower_type(L, e->type, cddl_fmt(L->ctx, "%s_%s", node->c_name, c_name),
                           cddl_fmt(L->ctx, "%s.%s", node->rule, c_name), env);
        }
        push_entry(L, node, e, c_name, t);
    }
}

/* Does the array need positions: several entries, or a group among them? */
static int needs_positions(lower *L, const ast_group *g)
{
    const sema_symbol *sym;
    if (g->count != 1)
        return 0;
    if (g->choices[0]->count > 1)
        return 1;
    return g->choices[0]->count == 1 && entry_group(L, g->choices[0]->entries[0], &sym) != NULL;
}

static void fill_tuple(lower *L, ir_type *node, const ast_type *t, const lower_env *env)
{
    node->kind = IR_STRUCT;
    node->positional = true;
    tuple_entries(L, node, t->u.group->choices[0], env, 0);
    finish_struct(L, node);
}

static void fill_mixed_array(lower *L, ir_type *node, const ast_type *t, const lower_env *env)
{
    const ast_grpchoice *ch = t->u.group->choices[0];
    const ast_entry **entries = NULL;
    size_t nentries = 0;
    ir_type **alts = NULL;
    src_loc *locs = NULL;
    size_t k, j, n = 0, nlocs = 0, nwide = 0;
    size_t *wide = NULL; /* the entries kept that may accept all of another's values */
    uint64_t lo = 0, hi = 0;
    entries = (const ast_entry **)ch->entries;
    nentries = ch->count;
    for (k = 0; k < nentries; k++) {
        const ast_entry *e = entries[k];
        ir_type *a = lower_type(L, e->type, cddl_fmt(L->ctx, "%s_item%zu", node->c_name, k + 1),
                                cddl_fmt(L->ctx, "%s[%zu]", node->rule, k), env);
        uint64_t emin = e->has_occur ? e->occur_min : 1, emax = e->has_occur ? e->occur_max : 1;
        lo = lo > AST_OCCUR_INF - emin ? AST_OCCUR_INF : lo + emin;
        hi = hi > AST_OCCUR_INF - emax ? AST_OCCUR_INF : hi + emax;
        for (j = 0; j < nwide && !accepts_every(L, alts[wide[j]], a); j++)
            ;
        if (j < nwide)
            continue; /* `[(X / text), X]`: X adds nothing to the element type */
        begin_walk(L);
        if (may_accept_every(L, a)) /* only those are compared: 20,000 closed maps cost their length */
            cddl_push(L->ctx, &wide, &nwide, sizeof n, &n);
        cddl_push(L->ctx, &alts, &n, sizeof a, &a);
        cddl_push(L->ctx, &locs, &nlocs, sizeof e->loc, &e->loc);
    }
    diag_report(L->diag, DIAG_WARNING, DIAG_W_LOOSE, t->loc,
                "an array of several member kinds read as an array of any of their types: "
                "which position holds which is not checked");
    node->occ_min = lo;
    node->occ_max = hi;
    if (n == 1) {
        node->elem = alts[0];
        return;
    }
    node->elem = new_type(L, IR_UNION, cddl_fmt(L->ctx, "%s[]", node->rule), cddl_fmt(L->ctx, "%s_item", node->c_name), t->loc);
    add_named(L, node->elem);
    classify_union(L, node->elem, alts, n, locs);
}

/*
 * `[ A // B ]`: an array of either group's shape (RFC 8610 2.1), which
 * JSON tells apart only by trying: an untagged union of one array type per
 * alternative, tried in order, as CDDL reads a choice.
 */
static void fill_array_choice(lower *L, ir_type *node, const ast_type *t, const lower_env *env)
{
    const ast_group *g = t->u.group;
    ir_type **alts = NULL;
    src_loc *locs = NULL;
    size_t c, n = 0, nlocs = 0;
    for (c = 0; c < g->count; c++) {
        ast_group *one = cddl_alloc(L->ctx, sizeof *one);
        ast_type *arr = cddl_alloc(L->ctx, sizeof *arr);
        ir_type *a;
        one->loc = g->choices[c]->loc;
        one->choices = &g->choices[c];
        one->count = 1;
        *arr = *t;
        arr->loc = g->choices[c]->loc;
        arr->u.group = one;
        a = lower_type(L, arr, cddl_fmt(L->ctx, "%s_alt%zu", node->c_name, c + 1),
                       cddl_fmt(L->ctx, "%s/%zu", node->rule, c + 1), env);
        cddl_push(L->ctx, &alts, &n, sizeof a, &a);
        cddl_push(L->ctx, &locs, &nlocs, sizeof one->loc, &one->loc);
    }
    classify_union(L, node, alts, n, locs);
}

/* `[* T]`, `[+ T]`, `[n*m T]`, `[T]`, `[]`: one element type with occurrence bounds. */
static void fill_array(lower *L, ir_type *node, const ast_type *t, const lower_env *env)
{
    const ast_group *g = t->u.group;
    const ast_entry *e = g->count == 1 && g->choices[0]->count == 1 ? g->choices[0]->entries[0] : NULL;
    node->kind = IR_ARRAY;
    if (g->count > 1) {
        fill_array_choice(L, node, t, env);
        return;
    }
    if (L->cbor && needs_positions(L, g)) { /* JSON's loose reading is unchanged, byte for byte in its goldens */
        fill_tuple(L, node, t, env);
        return;
    }
    if (g->count == 1 && g->choices[0]->count == 0) {
        node->occ_min = node->occ_max = 0; /* `[]`: only the empty array; its elements are never read */
        node->elem = &L->prim[P_ANY];
        return;
    }
    if (e == NULL && g->count == 1 && g->choices[0]->count > 1) {
        fill_mixed_array(L, node, t, env);
        return;
    }
    if (e == NULL || e->key_kind == AST_KEY_TYPE) {
        node->elem = unsupported(L, t->loc, "an array of computed keys");
        return;
    }
    node->occ_min = e->has_occur ? e->occur_min : 1;
    node->occ_max = e->has_occur ? e->occur_max : 1;
    node->elem = lower_type(L, e->type, cddl_fmt(L->ctx, "%s_item", node->c_name), cddl_fmt(L->ctx, "%s[]", node->rule), env);
}


/*
 * The members of every struct, in one set: "<struct address>K<key>" for
 * each wire key, "<address>P<name>" for each C member name and
 * "<address>A<name>" for it and its flags has_<name> and <name>_is_null.
 * Lookups instead of scans keep a map of 60,000 members linear.
 */
static const char *member_entry(lower *L, const ir_type *node, char what, const char *s, size_t len)
{
    return cddl_fmt(L->ctx, "%p%c%.*s", (const void *)node, what, (int)len, s);
}

/* Keys that fit the set: not cut by cddl_fmt, no NUL inside. */
static int key_indexable(ast_str key)
{
    return key.len < 1024 && memchr(key.ptr, '\0', key.len) == NULL;
}

static void note_member(lower *L, const ir_type *node, const ir_field *f)
{
    const char *c = f->c_name;
    if (key_indexable(f->key))
        naming_set_add(L->ctx, &L->members, member_entry(L, node, 'K', f->key.ptr, f->key.len));
    naming_set_add(L->ctx, &L->members, member_entry(L, node, 'P', c, strlen(c)));
    naming_set_add(L->ctx, &L->members, member_entry(L, node, 'A', c, strlen(c)));
    naming_set_add(L->ctx, &L->members, cddl_fmt(L->ctx, "%pAhas_%s", (const void *)node, c));
    naming_set_add(L->ctx, &L->members, cddl_fmt(L->ctx, "%pA%s_is_null", (const void *)node, c));
}

static void push_member(lower *L, ir_type *node, const ir_field *f)
{
    cddl_push(L->ctx, &node->fields, &node->nfields, sizeof *f, f);
    note_member(L, node, f);
}

/* True when `key` is already a member of `node`. */
static int key_taken(lower *L, const ir_type *node, ast_str key)
{
    size_t i;
    if (key_indexable(key))
        return naming_set_has(&L->members, member_entry(L, node, 'K', key.ptr, key.len));
    for (i = 0; i < node->nfields; i++)
        if (ast_str_same(node->fields[i].key, key))
            return 1;
    return 0;
}

/* True when `c_name`, or the has_/_is_null flags a member of that name may
 * get, is already a C member name of `node` (its own or a flag's). */
static int field_name_taken(lower *L, const ir_type *node, const char *c_name)
{
    return naming_set_has(&L->members, member_entry(L, node, 'A', c_name, strlen(c_name))) ||
           naming_set_has(&L->members, cddl_fmt(L->ctx, "%pPhas_%s", (const void *)node, c_name)) ||
           naming_set_has(&L->members, cddl_fmt(L->ctx, "%pP%s_is_null", (const void *)node, c_name));
}

/* Printable ASCII other than '"' and '\\': JSON writes it as it is. */
static int plain_name(const char *s, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++) {
        if (s[i] < 0x20 || s[i] > 0x7E || s[i] == '"' || s[i] == '\\')
            return 0;
    }
    return 1;
}

int ir_fields_clash(const ir_field *a, const ir_field *b)
{
    size_t as = strlen(a->snake), bs = strlen(b->snake);
    return (a->key.len == b->key.len && memcmp(a->key.ptr, b->key.ptr, a->key.len) == 0) ||
           (as == bs && memcmp(a->snake, b->snake, as) == 0) ||
           (a->key.len == bs && memcmp(a->key.ptr, b->snake, bs) == 0) ||
           (b->key.len == as && memcmp(b->key.ptr, a->snake, as) == 0);
}

static void drop_member(lower *L, const ast_entry *e, const char *what, never n);

/*
 * --cbor: `? 7 => A` and, in the same map, `? 7 => B` (SUIT's severable
 * members and their digests, from two groups): a map holds a key once, so
 * that is `? 7 => (A / B)`, the one member taking either type. Only two
 * optional members are merged; any other repeat stays an error.
 */
static int merge_optional(lower *L, ir_type *node, ast_str key, const ast_entry *e, const lower_env *env)
{
    ir_field *old = NULL;
    ir_type *u, *b, **alts;
    src_loc *locs;
    size_t i;
    for (i = 0; i < node->nfields && old == NULL; i++)
        if (ast_str_same(node->fields[i].key, key))
            old = &node->fields[i];
    if (old == NULL || !(old->flags & IR_F_OPTIONAL) || (old->flags & (IR_F_LITERAL | IR_F_NULLABLE)) ||
        !e->has_occur || e->occur_min != 0 || e->occur_max != 1)
        return 0;
    b = lower_type(L, e->type, cddl_fmt(L->ctx, "%s_%s_alt2", node->c_name, old->c_name),
                   cddl_fmt(L->ctx, "%s.%.*s/2", node->rule, NAMEF(key)), env);
    u = new_type(L, IR_UNION, cddl_fmt(L->ctx, "%s.%.*s", node->rule, NAMEF(key)),
                 cddl_fmt(L->ctx, "%s_%s", node->c_name, old->c_name), e->loc);
    add_named(L, u);
    alts = cddl_alloc(L->ctx, 2 * sizeof *alts);
    locs = cddl_alloc(L->ctx, 2 * sizeof *locs);
    alts[0] = old->type;
    alts[1] = b;
    locs[0] = old->loc;
    locs[1] = e->loc;
    classify_union(L, u, alts, 2, locs);
    old->type = u;
    return 1;
}

static void add_field(lower *L, ir_type *node, ast_str key, const ast_entry *e, const lower_env *env)
{
    ir_field f;
    char buf[256];
    size_t n;
    const ast_type *vt = e->type;
    never none = never_of(L, vt, env, 0);
    if (none.why != NULL) {
        drop_member(L, e, cddl_fmt(L->ctx, "member '%.*s'", NAMEF(key)), none);
        return;
    }
    memset(&f, 0, sizeof f);
    f.key = key;
    f.doc = e->doc;
    f.loc = e->loc;
    f.cbor_key = L->cbor_key;
    f.cbor_key_len = L->cbor_key_len;
    L->cbor_key = NULL; /* the value's own members, lowered below, have their own keys */
    L->cbor_key_len = 0;
    n = naming_key_snake(key, buf, sizeof buf);
    f.snake = cddl_strdup(L->ctx, buf, n);
    if (f.cbor_key != NULL) /* an integer key: `key_1`, `key_m1` in C */
        n = (size_t)snprintf(buf, sizeof buf, "key_%s%.*s", key.ptr[0] == '-' ? "m" : "",
                             (int)(key.len - (key.ptr[0] == '-')), key.ptr + (key.ptr[0] == '-'));
    else
        n = naming_snake(key, buf, sizeof buf);
    if (naming_is_reserved(buf) && n + 1 < sizeof buf)
        buf[n++] = '_', buf[n] = '\0';
    f.c_name = cddl_strdup(L->ctx, buf, n);
    if (key_taken(L, node, key)) {
        if (L->cbor && merge_optional(L, node, key, e, env))
            return;
        ERR(L, e->loc, "member '%.*s' appears twice in this map", NAMEF(key));
        return;
    }
    if (e->has_occur && e->occur_min == 0)
        f.flags |= IR_F_OPTIONAL;
    if (plain_name(key.ptr, key.len) && plain_name(f.snake, strlen(f.snake)))
        f.flags |= IR_F_PLAIN_NAMES;
    if (field_name_taken(L, node, f.c_name)) {
        const char *base = f.c_name;
        size_t suffix = 2;
        do
            f.c_name = cddl_fmt(L->ctx, "%s_%zu", base, suffix++);
        while (field_name_taken(L, node, f.c_name));
        diag_report(L->diag, DIAG_WARNING, DIAG_W_NAMING, e->loc,
                    "member '%.*s' would clash with another member's C name: named '%s'", NAMEF(key), f.c_name);
    }
    /* `T / null`: a nullable T rather than a union with a null alternative. */
    if (vt->kind == AST_T_CHOICE) {
        const ast_type *rest[64];
        size_t k, m = 0, nulls = 0;
        for (k = 0; k < vt->u.choice.count && m < 64; k++) {
            const ast_type *a = vt->u.choice.items[k];
            if (a->kind == AST_T_NAME && (ast_str_eq(a->u.name.name, "null") || ast_str_eq(a->u.name.name, "nil")) &&
                symbol_of(L, a->u.name.name) != NULL && symbol_of(L, a->u.name.name)->from_prelude)
                nulls++;
            else
                rest[m++] = a;
        }
        for (k = 0; k < m; k++)
            if (never_of(L, rest[k], env, 0).why != NULL)
                nulls = 0; /* `bstr / text / null`: the choice drops bstr (fill_choice), null stays an alternative */
        if (nulls > 0 && m > 0) {
            f.flags |= IR_F_NULLABLE;
            if (m == 1) {
                f.type = lower_type(L, rest[0], cddl_fmt(L->ctx, "%s_%s", node->c_name, f.c_name),
                                    cddl_fmt(L->ctx, "%s.%.*s", node->rule, NAMEF(key)), env);
                if (resolved(f.type)->kind == IR_LITERAL) { /* `true / null`: nothing stored but which */
                    f.flags &= ~(unsigned)IR_F_NULLABLE;
                    f.type = NULL;
                }
            } else {
                ir_type *u = new_type(L, IR_UNION, cddl_fmt(L->ctx, "%s.%.*s", node->rule, NAMEF(key)),
                                      cddl_fmt(L->ctx, "%s_%s", node->c_name, f.c_name), vt->loc);
                add_named(L, u);
                fill_choice(L, u, rest, m, env);
                f.type = u;
            }
        }
    }
    if (f.type == NULL)
        f.type = lower_type(L, vt, cddl_fmt(L->ctx, "%s_%s", node->c_name, f.c_name),
                            cddl_fmt(L->ctx, "%s.%.*s", node->rule, NAMEF(key)), env);
    if (f.type->kind == IR_LITERAL)
        f.flags |= IR_F_LITERAL;
    push_member(L, node, &f);
}

/*
 * A member keyed by a literal: a text is its name; an integer (--cbor:
 * COSE's and SUIT's labels) is written on the CBOR wire as that integer,
 * its canonical bytes kept in the member, and named in JSON and C by its
 * decimal text (RFC 8949 6.1 turns such keys into text the same way).
 */
static void add_value_field(lower *L, ir_type *node, const ast_value *v, const ast_entry *e, const lower_env *env)
{
    unsigned char *kb;
    uint64_t arg;
    size_t n, i;
    ast_str name;
    if (v->kind != AST_V_INT) {
        add_field(L, node, v->text, e, env);
        return;
    }
    arg = v->negative && v->magnitude > 0 ? v->magnitude - 1 : v->magnitude; /* -1 - n */
    kb = cddl_alloc(L->ctx, 9);
    kb[0] = (unsigned char)((v->negative && v->magnitude > 0 ? 1 : 0) << 5);
    n = arg < 24 ? 0 : arg <= 0xff ? 1 : arg <= 0xffff ? 2 : arg <= 0xffffffffu ? 4 : 8;
    kb[0] |= (unsigned char)(n == 0 ? arg : n == 1 ? 24 : n == 2 ? 25 : n == 4 ? 26 : 27);
    for (i = 0; i < n; i++)
        kb[1 + i] = (unsigned char)(arg >> (8 * (n - 1 - i)));
    name.ptr = v->negative && v->magnitude > 0
                   ? cddl_fmt(L->ctx, "-%llu", (unsigned long long)v->magnitude)
                   : cddl_fmt(L->ctx, "%llu", (unsigned long long)v->magnitude);
    name.len = strlen(name.ptr);
    L->cbor_key = kb;
    L->cbor_key_len = n + 1;
    add_field(L, node, name, e, env);
    L->cbor_key = NULL;
    L->cbor_key_len = 0;
}

/* ---- computed keys ------------------------------------------------------------ */

/* What a key type can name in JSON, where member names are text. */
typedef struct key_walk {
    const ast_value **texts; /* the text literals, in order */
    size_t ntext;
    int other;               /* some text type (`tstr`, `tstr .regexp ...`): a computed key */
    int constrained;         /* ... with a pattern or size, which keys are not checked against */
    int warned;              /* an alternative was dropped with a -Wjson warning */
    int nontext;             /* --cbor: an alternative is no text and no integer literal (`int`,
                                `bstr`, `["a"]`, `[tstr]`): the key is a type of CBOR keys */
} key_walk;

/*
 * Walks a key type's alternatives through names, generic arguments,
 * parentheses, choices and `.feature`: text literals and text types are
 * kept; what cannot name a JSON member (an integer key beside text keys,
 * bytes) gets a -Wjson warning and is dropped, and an alternative marked
 * with a feature not enabled is dropped without one. Under --cbor such an
 * alternative is kept instead (k->nontext): CBOR keys may be any item.
 */
static void key_alts(lower *L, const ast_type *t, const lower_env *env, key_walk *k, int depth)
{
    const ast_type *arg;
    const lower_env *caller;
    const sema_symbol *sym;
    lower_env inner;
    size_t i, count;
    const ast_type **items;
    if (depth > 32) {
        k->other = 1;
        return;
    }
    switch (t->kind) {
    case AST_T_VALUE:
        if (t->u.value.kind == AST_V_TEXT || (L->cbor && t->u.value.kind == AST_V_INT && !t->u.value.overflow)) {
            const ast_value *v = &t->u.value; /* an integer (--cbor): a member of its own, see add_value_field */
            cddl_push(L->ctx, &k->texts, &k->ntext, sizeof v, &v);
            return;
        }
        if (L->cbor) {
            k->nontext = 1;
            return;
        }
        diag_report(L->diag, DIAG_WARNING, DIAG_W_JSON, t->loc,
                    "key %.*s cannot name a member of a JSON object, whose names are text: dropped",
                    NAMEF(t->u.value.text));
        k->warned = 1;
        return;
    case AST_T_PAREN:
        if (ast_paren_inner(t) != NULL) {
            key_alts(L, ast_paren_inner(t), env, k, depth + 1);
            return;
        }
        break;
    case AST_T_CHOICE:
        for (i = 0; i < t->u.choice.count; i++)
            key_alts(L, t->u.choice.items[i], env, k, depth + 1);
        return;
    case AST_T_CONTROL:
        if (ast_str_eq(t->u.control.op, "feature")) {
            const ast_value *f = feature_name(L, t->u.control.arg, env);
            if (f != NULL && !feature_enabled(L, f->text))
                return; /* not applicable: dropped without a word */
            key_alts(L, t->u.control.target, env, k, depth + 1);
            return;
        }
        break;
    case AST_T_NAME:
        if (find_param(env, t->u.name.name, &arg, &caller)) {
            key_alts(L, arg, caller, k, depth + 1);
            return;
        }
        sym = symbol_of(L, t->u.name.name);
        if (sym == NULL || sym->kind != SEMA_TYPE)
            break;
        if (sym->from_prelude) {
            if (prelude_never(L, t->u.name.name) == NULL && !ast_str_eq(t->u.name.name, "tstr") &&
                !ast_str_eq(t->u.name.name, "text") && !ast_str_eq(t->u.name.name, "any")) {
                if (L->cbor) {
                    k->nontext = 1;
                    return;
                }
                diag_report(L->diag, DIAG_WARNING, DIAG_W_JSON, t->loc,
                            "key type '%.*s' cannot name a member of a JSON object, whose names are text: dropped",
                            NAMEF(t->u.name.name));
                k->warned = 1;
                return;
            }
            break;
        }
        if (!rule_env(sym, t, env, &inner, &env))
            break;
        items = rule_bodies(L, sym, &count);
        for (i = 0; i < count; i++)
            key_alts(L, items[i], env, k, depth + 1);
        return;
    case AST_T_RANGE:
        if (L->cbor) {
            k->nontext = 1;
            return;
        }
        diag_report(L->diag, DIAG_WARNING, DIAG_W_JSON, t->loc,
                    "a range of numbers cannot name a member of a JSON object, whose names are text: dropped");
        k->warned = 1;
        return;
    default:
        break;
    }
    {
        never n = never_of(L, t, env, 0);
        const ir_type *kt;
        if (n.why != NULL) {
            if (!n.by_feature)
                diag_report(L->diag, DIAG_WARNING, DIAG_W_JSON, t->loc,
                            "key type %s cannot name a member of a JSON object: dropped", n.why);
            k->warned |= !n.by_feature;
            return;
        }
        if (L->cbor && (t->kind == AST_T_ARRAY || t->kind == AST_T_MAP)) {
            k->nontext = 1; /* `[tstr] => T`: never a text; lowered once, as the key's type */
            return;
        }
        kt = resolved(lower_type(L, t, "key", "key", env));
        if (kt->kind == IR_TEXT || kt->kind == IR_ANY) {
            k->other = 1;
            k->constrained |= kt->kind == IR_TEXT && (kt->pattern != NULL || kt->len_min != 0 || kt->len_max != SIZE_MAX);
            return;
        }
        if (L->cbor) {
            k->nontext = 1;
            return;
        }
        diag_report(L->diag, DIAG_WARNING, DIAG_W_JSON, t->loc,
                    "this key type is not text and cannot name a member of a JSON object: dropped");
        k->warned = 1;
    }
}

/*
 * A member no JSON object can have (its key is not text, or its value
 * matches no JSON value): where it may be absent it is dropped, with a
 * -Wjson warning unless a feature not enabled is why; where it is
 * required, no JSON object matches the map: an error there.
 */
static void drop_member(lower *L, const ast_entry *e, const char *what, never n)
{
    if ((e->has_occur && e->occur_min == 0) || L->optional) {
        if (!n.by_feature)
            diag_report(L->diag, DIAG_WARNING, DIAG_W_JSON, e->loc, "%s can never be in a JSON object (%s): dropped",
                        what, n.why);
        return;
    }
    ERR(L, e->loc, "%s is required, but no JSON object can have it (%s)", what, n.why);
}

static void collect_members(lower *L, ir_type *node, const ast_group *g, const lower_env *env, int depth);
static void inline_optional_choice(lower *L, ir_type *node, const ast_grpchoice *const *alts, size_t n,
                                   const lower_env *env, int depth);

/* Inlines a group rule whose body is one entry (`g = b: int`, `$$g //= (b: int)`). */
static void inline_group_entry(lower *L, ir_type *node, const ast_rule *r, const lower_env *env, int depth)
{
    ast_entry *only = r->body;
    ast_grpchoice ch, *chp = &ch;
    ast_group one;
    ch.loc = r->loc;
    ch.entries = &only;
    ch.count = 1;
    one.loc = r->loc;
    one.choices = &chp;
    one.count = 1;
    collect_members(L, node, &one, env, depth + 1);
}

static void inline_entry_of(lower *L, ir_type *node, const ast_entry *e, const lower_env *env, int depth);

/*
 * A keyless entry of a map: a group to inline, or a map type read as its
 * members. A group rule met again while its own members are being inlined
 * sits in a map or array written inside it (`g = ( ? m: [* { g }] )`; sema
 * refuses it directly inside itself): each inlining would make one more
 * anonymous map, without end.
 */
static void inline_entry(lower *L, ir_type *node, const ast_entry *e, const lower_env *env, int depth)
{
    const ast_type *t = e->type;
    const ast_type *arg;
    const lower_env *caller;
    const sema_symbol *sym;
    size_t i;
    if ((t->kind != AST_T_NAME && t->kind != AST_T_UNWRAP) ||
        (t->kind == AST_T_NAME && find_param(env, t->u.name.name, &arg, &caller)) ||
        (sym = symbol_of(L, t->u.name.name)) == NULL || sym->def == NULL || sym->from_prelude) {
        inline_entry_of(L, node, e, env, depth);
        return;
    }
    for (i = 0; i < L->ninlining; i++) {
        if (L->inlining[i] == sym->def) {
            ERR(L, e->loc, "'%.*s' is inlined inside itself, in a map or array written within it: "
                "make that map or array a rule of its own", NAMEF(sym->name));
            return;
        }
    }
    cddl_push(L->ctx, &L->inlining, &L->ninlining, sizeof sym->def, &sym->def);
    inline_entry_of(L, node, e, env, depth);
    L->ninlining--;
}

static void inline_entry_of(lower *L, ir_type *node, const ast_entry *e, const lower_env *env, int depth)
{
    const ast_type *t = e->type;
    const ast_type *arg;
    const lower_env *caller;
    const sema_symbol *sym;
    if (t->kind == AST_T_NAME && find_param(env, t->u.name.name, &arg, &caller)) {
        ast_entry copy = *e;
        copy.type = (ast_type *)arg;
        inline_entry(L, node, &copy, caller, depth + 1);
        return;
    }
    if (t->kind == AST_T_PAREN) {
        collect_members(L, node, t->u.group, env, depth + 1);
        return;
    }
    if (t->kind == AST_T_NAME && symbol_of(L, t->u.name.name) == NULL && t->u.name.name.len > 2 &&
        memcmp(t->u.name.name.ptr, "$$", 2) == 0)
        return; /* a group socket nothing plugs adds no member (RFC 8610 3.9) */
    if (t->kind == AST_T_MAP) {
        collect_members(L, node, t->u.group, env, depth + 1);
        return;
    }
    if (t->kind == AST_T_NAME && (sym = symbol_of(L, t->u.name.name)) != NULL && sym->def == NULL &&
        sym->nalts == 1 && sym->kind == SEMA_GROUP) {
        /* a group socket made of one `//=` extension: `$$header //= (trace: text)` */
        inline_group_entry(L, node, sym->alts[0], env, depth);
        return;
    }
    if (t->kind == AST_T_NAME && (sym = symbol_of(L, t->u.name.name)) != NULL && sym->def == NULL &&
        sym->nalts > 1 && sym->kind == SEMA_GROUP) {
        /* `$$extra //= (a: int)`, `//= (b: tstr)`: the group choice of its plugs */
        ast_grpchoice **alts = cddl_alloc(L->ctx, sym->nalts * sizeof *alts);
        ast_group g;
        size_t i;
        for (i = 0; i < sym->nalts; i++) {
            alts[i] = cddl_alloc(L->ctx, sizeof *alts[i]);
            alts[i]->loc = sym->alts[i]->loc;
            alts[i]->entries = &sym->alts[i]->body;
            alts[i]->count = 1;
        }
        g.loc = e->loc;
        g.choices = alts;
        g.count = sym->nalts;
        collect_members(L, node, &g, env, depth + 1);
        return;
    }
    if ((t->kind == AST_T_NAME || t->kind == AST_T_UNWRAP) && (sym = symbol_of(L, t->u.name.name)) != NULL &&
        sym->def != NULL && !sym->from_prelude) {
        lower_env inner;
        const ast_type *body = sym->def->body->type;
        inner.rule = sym->def;
        inner.args = &t->u.name.args;
        inner.caller = env;
        if (sym->def->body->key_kind != AST_KEY_NONE || sym->def->body->has_occur) {
            inline_group_entry(L, node, sym->def, &inner, depth);
            return;
        }
        while (ast_paren_inner(body) != NULL && ast_paren_inner(body)->kind != AST_T_NAME)
            body = ast_paren_inner(body);
        if (body->kind == AST_T_PAREN && body->u.group->count > 1 && L->optional) {
            collect_members(L, node, body->u.group, &inner, depth + 1);
            return;
        }
        if (body->kind == AST_T_PAREN && body->u.group->count > 1) {
            ir_type *u = lower_group_rule(L, sym, env);
            if (node->variants != NULL)
                ERR(L, e->loc, "a map can inline only one choice of member groups");
            else {
                node->variants = u;
                node->variants_c_name = stem(L, sym->name);
            }
            return;
        }
        if (body->kind == AST_T_PAREN || body->kind == AST_T_MAP) {
            collect_members(L, node, body->u.group, &inner, depth + 1);
            return;
        }
        if (body->kind == AST_T_NAME || body->kind == AST_T_CHOICE) {
            /* an alias of a map, or a type choice of maps: inline or make variants */
            ir_type *r = lower_type(L, t, cddl_fmt(L->ctx, "%s_%s", node->c_name, stem(L, sym->name)), str0(L, sym->name), env);
            const ir_type *rr = resolved(r);
            if (rr->kind == IR_STRUCT) {
                size_t k;
                for (k = 0; k < rr->nfields; k++)
                    push_member(L, node, &rr->fields[k]);
                node->open |= rr->open;
                if (rr->extras_type != NULL)
                    node->extras_type = rr->extras_type;
                if (rr->extras_key != NULL)
                    node->extras_key = rr->extras_key;
                return;
            }
            if (rr->kind == IR_UNION && rr->cls == IR_U_DISCRIMINATED && node->variants == NULL) {
                node->variants = r;
                node->variants_c_name = stem(L, sym->name);
                return;
            }
        }
    }
    ERR(L, e->loc, "this keyless map entry cannot be inlined as members");
}

/*
 * --cbor: a member whose key may be other than text (`* label => values`
 * with label = int / tstr, COSE's; `["test3"] => T`; `[tstr] => [tstr]`)
 * is the map's tail, whose keys are checked against the key's type and
 * kept as CBOR (aps_json_member.cbor_key), counted within the occurrence:
 * any CBOR item can be a key, and one C shape holds them all.
 */
/* The choice of two types (`a` itself when they are one), named after `node` and `what`. */
static ir_type *either(lower *L, ir_type *node, const char *what, ir_type *a, ir_type *b, src_loc loc)
{
    ir_type *u, **alts;
    src_loc *locs;
    if (resolved(a) == resolved(b))
        return a;
    u = new_type(L, IR_UNION, cddl_fmt(L->ctx, "%s.%s", node->rule, what),
                 cddl_fmt(L->ctx, "%s_%s", node->c_name, what), loc);
    add_named(L, u);
    alts = cddl_alloc(L->ctx, 2 * sizeof *alts);
    locs = cddl_alloc(L->ctx, 2 * sizeof *locs);
    alts[0] = a;
    alts[1] = b;
    locs[0] = locs[1] = loc;
    classify_union(L, u, alts, 2, locs);
    return u;
}

/*
 * --cbor: a second tail of computed keys beside one whose keys may be no
 * text (SUIT's envelope: `* (suit-integrated-payload-key => bstr)`, `*
 * (int => bstr)`): one C tail holds both, its keys the choice of both keys
 * and its values the choice of both values. Which key goes with which
 * value is not checked: a -Wloose warning says so.
 */
static void merge_tail(lower *L, ir_type *node, const ast_entry *e, const lower_env *env, ir_type *key, uint64_t lo,
                       uint64_t hi)
{
    ir_type *old_key = node->extras_key != NULL ? node->extras_key : &L->prim[P_TEXT];
    ir_type *value = lower_type(L, e->type, cddl_fmt(L->ctx, "%s_extra2", node->c_name),
                                cddl_fmt(L->ctx, "%s.*2", node->rule), env);
    diag_report(L->diag, DIAG_WARNING, DIAG_W_LOOSE, e->loc,
                "a second tail of computed keys read with the first as one (keys of either type, values of "
                "either type): which key takes which value is not checked");
    node->extras_key = either(L, node, "keys", old_key, key, e->loc);
    node->extras_type = node->extras_type == NULL || resolved(value)->kind == IR_ANY
                            ? NULL
                            : either(L, node, "extras", node->extras_type, value, e->loc);
    node->extras_min += lo;
    node->extras_max = node->extras_max == 0 || hi == AST_OCCUR_INF ? 0 : node->extras_max + hi;
}

static void cbor_tail(lower *L, ir_type *node, const ast_entry *e, const lower_env *env, uint64_t lo, uint64_t hi)
{
    ir_type *vt;
    if (hi == 0)
        return; /* `0*0 int => T`: no such member */
    if (node->open) { /* one aps_json_members, one key type */
        merge_tail(L, node, e, env,
                   lower_type(L, e->key, cddl_fmt(L->ctx, "%s_key2", node->c_name),
                              cddl_fmt(L->ctx, "%s.key2", node->rule), env),
                   lo, hi);
        return;
    }
    node->open = true;
    node->extras_min = lo;
    node->extras_max = hi == AST_OCCUR_INF ? 0 : hi;
    node->extras_key = lower_type(L, e->key, cddl_fmt(L->ctx, "%s_key", node->c_name),
                                  cddl_fmt(L->ctx, "%s.key", node->rule), env);
    vt = lower_type(L, e->type, cddl_fmt(L->ctx, "%s_extra", node->c_name), cddl_fmt(L->ctx, "%s.*", node->rule), env);
    node->extras_type = resolved(vt)->kind == IR_ANY ? NULL : vt;
}

/*
 * A member whose key is a type (`label => T`, `* tstr => T`): a key that
 * stands for one text (through names, generic arguments and `.feature`,
 * EAT's `JC<"iss", 1>`) is that member's name; several texts with `*` are
 * as many optional members; a text type is the map's tail of computed
 * keys, counted within the occurrence (`1*3 tstr => uint`).
 */
static void computed_key(lower *L, ir_type *node, const ast_entry *e, const lower_env *env)
{
    key_walk k;
    uint64_t lo = e->has_occur ? e->occur_min : 1, hi = e->has_occur ? e->occur_max : 1;
    size_t i;
    if (L->optional && L->cbor)
        lo = 0; /* `* key-value-pair` naming `(label => value)` (SenML): the tail may be empty */
    memset(&k, 0, sizeof k);
    key_alts(L, e->key, env, &k, 0);
    if (k.nontext) {
        cbor_tail(L, node, e, env, lo, hi);
        return;
    }
    if (k.ntext == 0 && !k.other) {
        never n;
        n.why = "no alternative of its key names a JSON member";
        n.by_feature = !k.warned;
        drop_member(L, e, "this member", n);
        return;
    }
    if (!k.other && k.ntext == 1 && hi <= 1) {
        add_value_field(L, node, k.texts[0], e, env); /* `"name" => T`, `1 => T` */
        return;
    }
    if (!k.other) {
        if (lo != 0 || hi < k.ntext) {
            ERR(L, e->loc, "a key of %zu texts is read as that many optional members: write it with '*'", k.ntext);
            return;
        }
        L->optional++;
        for (i = 0; i < k.ntext; i++)
            add_value_field(L, node, k.texts[i], e, env);
        L->optional--;
        return;
    }
    if (k.ntext > 0)
        diag_report(L->diag, DIAG_WARNING, DIAG_W_LOOSE, e->key->loc,
                    "a key of texts and text types read as any text: the texts add nothing");
    if (k.constrained)
        diag_report(L->diag, DIAG_WARNING, DIAG_W_LOOSE, e->key->loc,
                    "the key's pattern or size is not checked: every text key is taken");
    if (hi == 0)
        return; /* `0*0 tstr => T`: no such member */
    if (node->extras_key != NULL) { /* --cbor: a text tail beside one of other keys */
        merge_tail(L, node, e, env, &L->prim[P_TEXT], lo, hi);
        return;
    }
    node->open = true;
    node->extras_min = lo;
    node->extras_max = hi == AST_OCCUR_INF ? 0 : hi;
    {
        ir_type *vt = lower_type(L, e->type, cddl_fmt(L->ctx, "%s_extra", node->c_name),
                                 cddl_fmt(L->ctx, "%s.*", node->rule), env);
        node->extras_type = resolved(vt)->kind == IR_ANY ? NULL : vt;
    }
}

/*
 * A choice of member groups that may come any number of times (`*
 * $$extra`, `* (a: int // b: tstr)`): as map members cannot repeat, each
 * group may come or not, so each member is optional (RFC 8610 3.2), typed.
 * What that does not check gets a -Wloose warning: that a group of several
 * members comes whole, and under `?` that at most one group comes.
 */
static void inline_optional_choice(lower *L, ir_type *node, const ast_grpchoice *const *alts, size_t n,
                                   const lower_env *env, int depth)
{
    size_t c, wide = 0;
    const ast_entry *e = L->optional_entry;
    for (c = 0; c < n; c++) {
        ast_grpchoice *one = (ast_grpchoice *)alts[c];
        ast_group g;
        size_t before = node->nfields;
        g.loc = one->loc;
        g.choices = &one;
        g.count = 1;
        collect_members(L, node, &g, env, depth + 1);
        wide += node->nfields > before + 1;
    }
    if (e != NULL && wide > 0)
        diag_report(L->diag, DIAG_WARNING, DIAG_W_LOOSE, e->loc,
                    "a choice of member groups read as optional members: that a group's members come together "
                    "is not checked");
    if (e != NULL && e->occur_max == 1 && n > 1)
        diag_report(L->diag, DIAG_WARNING, DIAG_W_LOOSE, e->loc,
                    "an optional choice of member groups read as optional members: that at most one group "
                    "comes is not checked");
    L->choice_inlined = 1;
}

static void collect_members(lower *L, ir_type *node, const ast_group *g, const lower_env *env, int depth)
{
    size_t k;
    const ast_grpchoice *ch;
    if (depth > 64) {
        ERR(L, g->loc, "groups nested too deeply to inline");
        return;
    }
    if (g->count != 1 && L->optional) {
        inline_optional_choice(L, node, (const ast_grpchoice *const *)g->choices, g->count, env, depth);
        return;
    }
    if (g->count != 1) {
        ir_type *u = group_as_type(L, g, cddl_fmt(L->ctx, "%s_variants", node->c_name), cddl_fmt(L->ctx, "%s(variants)", node->rule),
                                   g->loc, env);
        if (node->variants != NULL)
            ERR(L, g->loc, "a map can inline only one choice of member groups");
        node->variants = u;
        node->variants_c_name = "variants";
        return;
    }
    ch = g->choices[0];
    for (k = 0; k < ch->count; k++) {
        const ast_entry *e = ch->entries[k];
        switch (e->key_kind) {
        case AST_KEY_BAREWORD:
            add_field(L, node, e->bareword, e, env);
            break;
        case AST_KEY_VALUE:
            if (L->cbor && e->key->u.value.kind == AST_V_INT && !e->key->u.value.overflow) {
                add_value_field(L, node, &e->key->u.value, e, env);
            } else if (e->key->u.value.kind != AST_V_TEXT) {
                never n = { "JSON member names are text", 0 };
                drop_member(L, e, cddl_fmt(L->ctx, "member %.*s", NAMEF(e->key->u.value.text)), n);
            } else {
                add_field(L, node, e->key->u.value.text, e, env);
            }
            break;
        case AST_KEY_TYPE:
            computed_key(L, node, e, env);
            break;
        case AST_KEY_NONE: {
            size_t before = node->nfields, f;
            /* --cbor: `{1*10 SUIT_Parameter}`, a repeated choice of members, is each of them optional */
            int repeated = L->cbor && e->has_occur && e->occur_max > 1;
            int optional = e->has_occur && (e->occur_min == 0 || repeated);
            const ast_entry *outer = L->optional_entry;
            L->optional += optional;
            L->optional_entry = optional ? e : outer;
            L->choice_inlined = 0;
            inline_entry(L, node, e, env, depth);
            L->optional -= optional;
            L->optional_entry = outer;
            if (e->has_occur && e->occur_min == 0 && node->nfields > before + 1 && !L->choice_inlined)
                diag_report(L->diag, DIAG_WARNING, DIAG_W_LOOSE, e->loc,
                            "an optional group read as optional members: that they come all or none is not checked");
            if (repeated && e->occur_min > 0)
                diag_report(L->diag, DIAG_WARNING, DIAG_W_LOOSE, e->loc,
                            "a repeated group read as optional members: that at least %llu of them come is not "
                            "checked", (unsigned long long)e->occur_min);
            for (f = before; optional && f < node->nfields; f++)
                node->fields[f].flags |= IR_F_OPTIONAL;
            break;
        }
        }
    }
}

/*
 * Flags the members of a complete struct (its own and those inlined from
 * other maps) that share a spelling with another (fooBar and foo_bar in
 * snake_case): the runtime's fast path and generated decoders step aside.
 */
static void mark_shared_names(lower *L, ir_type *node)
{
    size_t i, j, k, owner;
    naming_set spellings;
    for (i = 0; i < node->nfields; i++)
        node->fields[i].flags &= ~(unsigned)IR_F_SHARED_NAME; /* an inlined member's flag was for its own map */
    /* Members clash when their spellings (key, snake_case) meet: each spelling
     * remembers the first member that had it, and a later one marks both.
     * Keys the set cannot hold go the quadratic way. */
    memset(&spellings, 0, sizeof spellings);
    for (i = 0; i < node->nfields && key_indexable(node->fields[i].key); i++) {
        const ir_field *f = &node->fields[i];
        const char *sp[2];
        sp[0] = cddl_fmt(L->ctx, "%.*s", (int)f->key.len, f->key.ptr);
        sp[1] = f->snake;
        for (k = 0; k < 2; k++) {
            if (naming_set_get(&spellings, sp[k], &owner)) {
                if (owner == i)
                    continue; /* its key is its snake_case spelling */
                node->fields[owner].flags |= IR_F_SHARED_NAME;
                node->fields[i].flags |= IR_F_SHARED_NAME;
            } else {
                naming_set_put(L->ctx, &spellings, sp[k], i);
            }
        }
    }
    if (i == node->nfields)
        return;
    for (i = 0; i < node->nfields; i++)
        for (j = i + 1; j < node->nfields; j++)
            if (ir_fields_clash(&node->fields[i], &node->fields[j])) {
                node->fields[i].flags |= IR_F_SHARED_NAME;
                node->fields[j].flags |= IR_F_SHARED_NAME;
            }
}

/*
 * A map whose choice of member groups has no discriminating member
 * (`{ (A // B) }` where A and B share no literal member) is the choice of
 * maps it stands for (RFC 8610 2.1): one struct per alternative, holding
 * the map's own members and that alternative's, in an untagged union that
 * takes the first alternative that decodes, in schema order.
 */
static void expand_variants(lower *L, ir_type *node)
{
    ir_type *u = (ir_type *)resolved(node->variants);
    ir_type **alts = NULL;
    src_loc *locs = NULL;
    size_t i, k, n = 0, nlocs = 0;
    for (i = 0; i < u->nalts; i++) {
        const ir_type *a = resolved(u->alts[i]);
        ir_type *s;
        if (a->kind != IR_STRUCT || a->variants != NULL) {
            ERR(L, a->loc.src != NULL ? a->loc : node->loc,
                "an alternative of a choice of member groups inside a map must be members or a map");
            continue;
        }
        s = new_type(L, IR_STRUCT, cddl_fmt(L->ctx, "%s/%zu", node->rule, i + 1),
                     cddl_fmt(L->ctx, "%s_%s", node->c_name, u->alt_c_names[i]), a->loc);
        add_named(L, s);
        s->doc = a->doc;
        for (k = 0; k < node->nfields; k++)
            cddl_push(L->ctx, &s->fields, &s->nfields, sizeof node->fields[k], &node->fields[k]);
        for (k = 0; k < a->nfields; k++) {
            size_t j;
            for (j = 0; j < node->nfields && !ast_str_same(node->fields[j].key, a->fields[k].key); j++)
                ;
            if (j < node->nfields) {
                ERR(L, a->fields[k].loc, "member '%.*s' appears twice in this map", NAMEF(a->fields[k].key));
                continue;
            }
            cddl_push(L->ctx, &s->fields, &s->nfields, sizeof a->fields[k], &a->fields[k]);
        }
        s->open = node->open || a->open;
        s->extras_type = node->extras_type != NULL ? node->extras_type : a->extras_type;
        s->extras_key = node->extras_key != NULL ? node->extras_key : a->extras_key;
        mark_shared_names(L, s);
        cddl_push(L->ctx, &alts, &n, sizeof s, &s);
        cddl_push(L->ctx, &locs, &nlocs, sizeof a->loc, &a->loc);
    }
    node->fields = NULL;
    node->nfields = 0;
    node->variants = NULL;
    node->open = false;
    node->extras_type = NULL;
    node->extras_key = NULL;
    classify_union(L, node, alts, n, locs);
}

/* Completes a struct whose members are collected. */
static void finish_struct(lower *L, ir_type *node)
{
    mark_shared_names(L, node);
    if (node->variants != NULL && resolved(node->variants)->kind == IR_UNION &&
        resolved(node->variants)->cls != IR_U_DISCRIMINATED)
        expand_variants(L, node);
}

static void fill_struct(lower *L, ir_type *node, const ast_group *g, const lower_env *env)
{
    const ast_entry *only = g->count == 1 && g->choices[0]->count == 1 ? g->choices[0]->entries[0] : NULL;
    node->kind = IR_STRUCT;
    /* `{* text => T}`, `{ 1*3 tstr => T }` alone: a map with computed keys, not a struct. */
    if (only != NULL && only->key_kind == AST_KEY_TYPE && (only->has_occur ? only->occur_max : 1) > 0) {
        key_walk k;
        memset(&k, 0, sizeof k);
        key_alts(L, only->key, env, &k, 0);
        if (k.other && !k.nontext) {
            if (k.constrained)
                diag_report(L->diag, DIAG_WARNING, DIAG_W_LOOSE, only->key->loc,
                            "the key's pattern or size is not checked: every text key is taken");
            node->kind = IR_MAP;
            node->occ_min = only->has_occur ? only->occur_min : 1;
            node->occ_max = only->has_occur ? only->occur_max : 1;
            node->elem = lower_type(L, only->type, cddl_fmt(L->ctx, "%s_value", node->c_name), cddl_fmt(L->ctx, "%s.*", node->rule), env);
            return;
        }
    }
    collect_members(L, node, g, env, 0);
    finish_struct(L, node);
}

/* ---- choices ---------------------------------------------------------------- */

static int json_class(const ir_type *t)
{
    t = resolved(t);
    switch (t->kind) {
    case IR_ANY: return 0;
    case IR_BOOL: return 1;
    case IR_INT: case IR_UINT: return 2;
    case IR_FLOAT: return 3;
    case IR_TEXT: return 4;
    case IR_ENUM: return t->nvalues > 0 && t->values[0].kind != IR_LIT_TEXT ? 2 : 4; /* `200 / 404`: integers */
    case IR_ARRAY: return 5;
    case IR_STRUCT: return t->positional ? 5 : 6;
    case IR_MAP: return 6;
    case IR_BYTES: case IR_TAG: return 8; /* --cbor: no JSON kind; a choice tries them in order */
    case IR_LITERAL:
        switch (t->lit.kind) {
        case IR_LIT_NULL: return 7;
        case IR_LIT_UNDEFINED: case IR_LIT_BYTES: return 8;
        case IR_LIT_BOOL: return 1;
        case IR_LIT_TEXT: return 4;
        case IR_LIT_FLOAT: return 3;
        default: return 2;
        }
    case IR_UNION: {
        size_t i;
        int c = -1;
        if (t->json_class != 0)
            return t->json_class - 1; /* classified: choices sharing alternatives cost their size */
        for (i = 0; i < t->nalts; i++) {
            int k = json_class(t->alts[i]);
            if (c == -1)
                c = k;
            else if (c != k)
                return 0;
        }
        return c < 0 ? 0 : c;
    }
    default: return 0;
    }
}

/* True when `a` accepts every JSON value `b` accepts (so `b` after `a` is never chosen). */
static int accepts_every_walk(lower *L, const ir_type *a, const ir_type *b)
{
    size_t i;
    a = resolved(a);
    b = resolved(b);
    if (a->kind == IR_ANY)
        return 1;
    if (a->kind == IR_UNION) {
        if (a->walk == L->walk)
            return 0; /* seen in this walk, so it did not (a choice shared by several is walked once) */
        ((ir_type *)a)->walk = L->walk;
        for (i = 0; i < a->nalts; i++)
            if (accepts_every_walk(L, a->alts[i], b))
                return 1;
        return 0;
    }
    if (a->kind == IR_STRUCT && a->open && a->variants == NULL && a->extras_type == NULL && a->extras_key == NULL &&
        json_class(b) == 6) {
        for (i = 0; i < a->nfields; i++)
            if (!(a->fields[i].flags & IR_F_OPTIONAL))
                return 0;
        return 1;
    }
    if (a->kind == IR_MAP && a->occ_min == 0 && a->occ_max == AST_OCCUR_INF && resolved(a->elem)->kind == IR_ANY)
        return json_class(b) == 6; /* `{* text => any}` */
    if (a->kind == IR_TEXT && a->pattern == NULL && a->len_min == 0 && a->len_max == SIZE_MAX)
        return json_class(b) == 4;
    return 0;
}

static int accepts_every(lower *L, const ir_type *a, const ir_type *b)
{
    begin_walk(L);
    return accepts_every_walk(L, a, b);
}

/*
 * Could `a` accept every value of some other type, by accepts_every? Only
 * such alternatives are compared with later ones, so a choice of 20,000
 * closed maps costs its length, not its square.
 */
static int may_accept_every(lower *L, const ir_type *a)
{
    size_t i;
    a = resolved(a);
    if (a->kind == IR_UNION) {
        if (a->walk == L->walk)
            return 0; /* seen in this walk: its answer was no */
        ((ir_type *)a)->walk = L->walk;
        for (i = 0; i < a->nalts; i++)
            if (may_accept_every(L, a->alts[i]))
                return 1;
        return 0;
    }
    if (a->kind == IR_STRUCT && a->open && a->variants == NULL && a->extras_type == NULL && a->extras_key == NULL) {
        for (i = 0; i < a->nfields; i++)
            if (!(a->fields[i].flags & IR_F_OPTIONAL))
                return 0;
        return 1;
    }
    return a->kind == IR_ANY ||
           (a->kind == IR_MAP && a->occ_min == 0 && a->occ_max == AST_OCCUR_INF && resolved(a->elem)->kind == IR_ANY) ||
           (a->kind == IR_TEXT && a->pattern == NULL && a->len_min == 0 && a->len_max == SIZE_MAX);
}

/* Leaves of a choice of structs: nested unions of structs are flattened, each leaf once. */
static void leaves(lower *L, ir_type *t, ir_type ***out, size_t *n, naming_set *seen, int depth)
{
    ir_type *r = (ir_type *)resolved(t);
    size_t i;
    if (depth > 32)
        return;
    if (r->kind == IR_UNION && r->cls == IR_U_DISCRIMINATED) {
        for (i = 0; i < r->nalts; i++)
            leaves(L, r->alts[i], out, n, seen, depth + 1);
        return;
    }
    if (r->kind == IR_STRUCT && r->nfields == 0 && !r->open && r->variants != NULL) {
        leaves(L, r->variants, out, n, seen, depth + 1); /* `{ A // B }` is the choice of A and B */
        return;
    }
    /* Only a named or shared type can come twice (a literal is made afresh at each use):
     * those are told apart by address, through a set (a scan per leaf is quadratic). */
    if (r->named || is_shared(L, r)) {
        const char *key = cddl_fmt(L->ctx, "%p", (void *)r);
        if (naming_set_has(seen, key))
            return;
        naming_set_add(L->ctx, seen, key);
    }
    cddl_push(L->ctx, out, n, sizeof r, &r);
}

static const ir_field *literal_field(const ir_type *s, ast_str key)
{
    size_t i;
    for (i = 0; i < s->nfields; i++)
        if ((s->fields[i].flags & IR_F_LITERAL) && ast_str_same(s->fields[i].key, key))
            return &s->fields[i];
    return NULL;
}

static int same_literal(const ir_literal *a, const ir_literal *b)
{
    return a->kind == b->kind && ast_str_same(a->text, b->text);
}

/* A discriminant and the alternative it names, ordered by kind and spelling to find equal ones. */
typedef struct disc_entry {
    const ir_literal *lit;
    size_t alt;
} disc_entry;

static int compare_disc(const void *pa, const void *pb)
{
    const disc_entry *a = pa, *b = pb;
    size_t n = a->lit->text.len < b->lit->text.len ? a->lit->text.len : b->lit->text.len;
    int c;
    if (a->lit->kind != b->lit->kind)
        return a->lit->kind < b->lit->kind ? -1 : 1;
    if ((c = memcmp(a->lit->text.ptr, b->lit->text.ptr, n)) != 0)
        return c;
    if (a->lit->text.len != b->lit->text.len)
        return a->lit->text.len < b->lit->text.len ? -1 : 1;
    return a->alt < b->alt ? -1 : a->alt > b->alt; /* equal ones in schema order */
}

/*
 * Two alternatives whose literal member `key` is the same, by sorting the
 * literals (a choice of 100,000 alternatives costs n log n, not n^2):
 * returns 1 and, of the alternatives sharing theirs with a later one, the
 * first, with the next that shares it.
 */
static int shared_discriminant(lower *L, ir_type **lv, size_t n, ast_str key, size_t *dup_a, size_t *dup_b)
{
    disc_entry *d = cddl_alloc(L->ctx, n * sizeof *d);
    size_t i, found = 0;
    for (i = 0; i < n; i++) {
        d[i].lit = &literal_field(lv[i], key)->type->lit;
        d[i].alt = i;
    }
    qsort(d, n, sizeof *d, compare_disc);
    for (i = 1; i < n; i++) {
        /* the first of a run of equal literals is its earliest alternative */
        if (!same_literal(d[i - 1].lit, d[i].lit) || (i >= 2 && same_literal(d[i - 2].lit, d[i].lit)) ||
            (found && d[i - 1].alt >= *dup_a))
            continue;
        *dup_a = d[i - 1].alt;
        *dup_b = d[i].alt;
        found = 1;
    }
    return (int)found;
}

/* Tries to discriminate the leaves by one literal member; returns 1 and fills `node`. */
static int try_discriminated(lower *L, ir_type *node, ir_type **lv, size_t n, src_loc loc)
{
    size_t k, i;
    const ir_type *first;
    if (n < 1)
        return 0;
    for (i = 0; i < n; i++)
        if (lv[i]->kind != IR_STRUCT || lv[i]->positional)
            return 0;
    first = lv[0];
    for (k = 0; k < first->nfields; k++) {
        ast_str key = first->fields[k].key;
        int all = 1;
        size_t dup_a = 0, dup_b = 0;
        if (!(first->fields[k].flags & IR_F_LITERAL))
            continue;
        for (i = 0; i < n && all; i++)
            if (literal_field(lv[i], key) == NULL || (literal_field(lv[i], key)->flags & IR_F_OPTIONAL))
                all = 0;
        if (!all)
            continue;
        if (shared_discriminant(L, lv, n, key, &dup_a, &dup_b)) {
            diag_report(L->diag, DIAG_WARNING, DIAG_W_CHOICE, loc,
                        "alternatives '%s' and '%s' share the discriminant %.*s = \"%.*s\"",
                        lv[dup_a]->rule, lv[dup_b]->rule, NAMEF(key),
                        NAMEF(literal_field(lv[dup_a], key)->type->lit.text));
            continue;
        }
        node->cls = IR_U_DISCRIMINATED;
        node->disc_key = key;
        node->alts = lv;
        node->nalts = n;
        node->disc = cddl_alloc(L->ctx, n * sizeof *node->disc);
        for (i = 0; i < n; i++)
            node->disc[i] = literal_field(lv[i], key)->type->lit;
        return 1;
    }
    return 0;
}

/* Is alternative a of node written in place (its rule "Node/N", its C name "node_...")? */
static bool written_in_place(const ir_type *node, const ir_type *a)
{
    size_t n = strlen(node->c_name), r = node->rule ? strlen(node->rule) : 0;
    return a->rule != NULL && r > 0 && strncmp(a->rule, node->rule, r) == 0 && a->rule[r] == '/' &&
           strncmp(a->c_name, node->c_name, n) == 0 && a->c_name[n] == '_';
}

static const char *alt_stem(lower *L, const ir_type *node, const ir_type *a, size_t index)
{
    static const char *const by_class[] = { "any", "boolean", "integer", "number", "text", "array", "object", "null" };
    if (a->named && a->c_name != NULL && written_in_place(node, a)) {
        /* named by its kind or discriminant (anonymous_alt_name, name_alternatives): the member is that name */
        const char *rest = a->c_name + strlen(node->c_name) + 1;
        if (strncmp(rest, "alt", 3) != 0 || strspn(rest + 3, "0123456789") != strlen(rest + 3))
            return naming_is_reserved(rest) ? cddl_fmt(L->ctx, "%s_", rest) : rest;
    }
    if (a->named && a->c_name != NULL) /* a rule named `int` or `union`: a member int_ */
        return naming_is_reserved(a->c_name) ? cddl_fmt(L->ctx, "%s_", a->c_name) : a->c_name;
    if (a->kind == IR_LITERAL && a->lit.kind == IR_LIT_TEXT) {
        char buf[128];
        size_t n = naming_snake(a->lit.text, buf, sizeof buf);
        if (naming_is_reserved(buf) && n + 1 < sizeof buf)
            buf[n++] = '_', buf[n] = '\0';
        return cddl_strdup(L->ctx, buf, n);
    }
    if (a->kind == IR_LITERAL && a->lit.kind == IR_LIT_BOOL)
        return a->lit.i ? "true_" : "false_";
    if (json_class(a) >= 0 && json_class(a) <= 7 && (json_class(a) != 0 || a->kind == IR_ANY))
        return by_class[json_class(a)];
    return cddl_fmt(L->ctx, "alt%zu", index + 1);
}

static void name_alternatives(lower *L, ir_type *node)
{
    size_t i;
    naming_set taken;
    memset(&taken, 0, sizeof taken);
    node->alt_c_names = cddl_alloc(L->ctx, (node->nalts ? node->nalts : 1) * sizeof *node->alt_c_names);
    for (i = 0; i < node->nalts; i++) {
        const char *s;
        ir_type *a = node->alts[i];
        if (node->cls == IR_U_DISCRIMINATED && node->disc[i].kind == IR_LIT_TEXT && a->named &&
            a->c_name != NULL && written_in_place(node, a)) {
            /* a map written in place in a choice told apart by a member: named by its discriminant */
            char buf[128];
            naming_snake(node->disc[i].text, buf, sizeof buf);
            a->c_name = naming_unique(L->ctx, &L->type_names, cddl_fmt(L->ctx, "%s_%s", node->c_name, buf), 2);
        }
        s = alt_stem(L, node, a, i);
        if (strcmp(s, "init") == 0) /* PREFIX_T_INIT is the initializer macro's */
            s = "init_";
        /* a repeated stem is numbered by its position: integer_2 is the second alternative */
        if (naming_set_has(&taken, s))
            s = naming_unique(L->ctx, &taken, cddl_fmt(L->ctx, "%s_%zu", s, i + 1), 2);
        else
            naming_set_add(L->ctx, &taken, s);
        node->alt_c_names[i] = s;
    }
}

/*
 * qsort's order of two of an enum's values, given as pointers into its
 * array (qsort passes no context, so the element carries it): integers by
 * value, texts by length then bytes, ties by position in the array (one
 * array, so the pointers compare).
 */
static int compare_values(const void *pa, const void *pb)
{
    const ir_literal *a = *(const ir_literal *const *)pa, *b = *(const ir_literal *const *)pb;
    int by_place = (a > b) - (a < b), c;
    if (a->kind != IR_LIT_TEXT) { /* integers: by value (INT holds the negative ones) */
        int an = a->kind == IR_LIT_INT && a->i < 0, bn = b->kind == IR_LIT_INT && b->i < 0;
        if (an != bn)
            return an ? -1 : 1;
        if (an)
            return a->i != b->i ? (a->i < b->i ? -1 : 1) : by_place;
        {
            uint64_t au = a->kind == IR_LIT_INT ? (uint64_t)a->i : a->u, bu = b->kind == IR_LIT_INT ? (uint64_t)b->i : b->u;
            return au != bu ? (au < bu ? -1 : 1) : by_place;
        }
    }
    if (a->text.len != b->text.len)
        return a->text.len < b->text.len ? -1 : 1;
    c = a->text.len == 0 ? 0 : memcmp(a->text.ptr, b->text.ptr, a->text.len);
    return c != 0 ? c : by_place;
}

/* A wide enum's index, ordered as aps_schema_enum_find searches it: by length, then bytes. */
static unsigned *sorted_values(lower *L, const ir_type *t)
{
    size_t i, n = t->nvalues ? t->nvalues : 1;
    unsigned *idx = cddl_alloc(L->ctx, n * sizeof *idx);
    const ir_literal **order = cddl_alloc(L->ctx, n * sizeof *order);
    for (i = 0; i < t->nvalues; i++)
        order[i] = &t->values[i];
    qsort(order, t->nvalues, sizeof *order, compare_values);
    for (i = 0; i < t->nvalues; i++)
        idx[i] = (unsigned)(order[i] - t->values);
    return idx;
}

static void fill_enum(lower *L, ir_type *node, const ast_type *const *items, size_t count, ir_type *other)
{
    size_t i, n = 0;
    naming_set taken;
    memset(&taken, 0, sizeof taken);
    node->kind = IR_ENUM;
    node->other = other;
    node->values = cddl_alloc(L->ctx, count * sizeof *node->values);
    for (i = 0; i < count; i++) {
        const ast_type *it = items[i];
        char buf[128];
        size_t len;
        ir_literal lit;
        if (it->kind != AST_T_VALUE)
            continue;
        lit = literal_of(&it->u.value);
        len = naming_constant(lit.text, buf, sizeof buf);
        lit.c_name = cddl_strdup(L->ctx, buf, len);
        /* `"root" / "none"`: NONE is the zeroed value's; INIT is the PREFIX_T_INIT macro's */
        if (strcmp(lit.c_name, "NONE") == 0 || strcmp(lit.c_name, "INIT") == 0)
            lit.c_name = cddl_fmt(L->ctx, "%s_%zu", lit.c_name, n + 1);
        /* a repeated constant is numbered by its position, as alternatives are */
        if (naming_set_has(&taken, lit.c_name))
            lit.c_name = naming_unique(L->ctx, &taken, cddl_fmt(L->ctx, "%s_%zu", lit.c_name, n + 1), 2);
        else
            naming_set_add(L->ctx, &taken, lit.c_name);
        if (L->doc != NULL && it->loc.src == L->doc->src)
            lit.doc = cddl_doc_beside(L->ctx, L->doc, it->loc.end);
        node->values[n++] = lit;
    }
    node->nvalues = n;
    if (n > IR_WIDE_ENUM)
        node->sorted = sorted_values(L, node);
}

/*
 * The C name of alternative i of a choice when it is written in place: by
 * its JSON kind when it is the choice's only array or only map
 * (`Goto = text / RunSend / [* (text / RunSend)]` -> goto_array), else by
 * its position.
 */
static const char *anonymous_alt_name(lower *L, const ir_type *node, const ast_type *const *items, size_t count,
                                       size_t i)
{
    size_t j, same = 0;
    if (items[i]->kind != AST_T_ARRAY && items[i]->kind != AST_T_MAP)
        return cddl_fmt(L->ctx, "%s_alt%zu", node->c_name, i + 1);
    for (j = 0; j < count; j++)
        same += items[j]->kind == items[i]->kind;
    if (same > 1)
        return cddl_fmt(L->ctx, "%s_alt%zu", node->c_name, i + 1);
    return cddl_fmt(L->ctx, "%s_%s", node->c_name, items[i]->kind == AST_T_ARRAY ? "array" : "object");
}

/*
 * The text literal a type stands for once what JSON cannot match is
 * dropped: `ds-enabled = JC<"enabled", 0>` is "enabled". Follows names,
 * generic arguments, parentheses, enabled features and choices left with
 * one alternative. NULL for anything else.
 */
static const ast_type *text_literal(lower *L, const ast_type *t, const lower_env *env, int depth)
{
    const ast_type *arg, *one = NULL, **items;
    const lower_env *caller;
    const sema_symbol *sym;
    lower_env inner;
    size_t i, n, count;
    if (depth > 16)
        return NULL;
    switch (t->kind) {
    case AST_T_VALUE:
        return t->u.value.kind == AST_V_TEXT ? t : NULL;
    case AST_T_PAREN:
        return ast_paren_inner(t) != NULL ? text_literal(L, ast_paren_inner(t), env, depth + 1) : NULL;
    case AST_T_CONTROL:
        return ast_str_eq(t->u.control.op, "feature") ? text_literal(L, t->u.control.target, env, depth + 1) : NULL;
    case AST_T_CHOICE:
        items = (const ast_type **)t->u.choice.items;
        count = t->u.choice.count;
        break;
    case AST_T_NAME:
        if (find_param(env, t->u.name.name, &arg, &caller))
            return text_literal(L, arg, caller, depth + 1);
        sym = symbol_of(L, t->u.name.name);
        if (sym == NULL || sym->from_prelude || sym->kind != SEMA_TYPE)
            return NULL;
        if (!rule_env(sym, t, env, &inner, &env))
            return NULL;
        items = rule_bodies(L, sym, &count);
        break;
    default:
        return NULL;
    }
    for (i = n = 0; i < count; i++) {
        if (never_of(L, items[i], env, depth + 1).why != NULL)
            continue;
        one = items[i];
        n++;
    }
    return n == 1 ? text_literal(L, one, env, depth + 1) : NULL;
}

static void fill_choice(lower *L, ir_type *node, const ast_type *const *items, size_t count,
                        const lower_env *env)
{
    ir_type **alts = NULL;
    src_loc *locs = NULL;
    size_t i, nalts = 0, nlocs = 0, texts = 0, written = count;
    ir_type *other = NULL;
    const ast_type **kept = cddl_alloc(L->ctx, (count ? count : 1) * sizeof *kept);
    node->kind = IR_UNION;
    /* What JSON cannot match is dropped first (see `applicable`); one alternative left is that type. */
    count = applicable(L, items, count, env, kept, node->loc);
    items = kept;
    if (count == 0) {
        node->kind = IR_ANY; /* reported */
        return;
    }
    if (count == 1 && written > 1) {
        become(L, node, lower_type(L, items[0], cddl_fmt(L->ctx, "%s_alt1", node->c_name),
                                   cddl_fmt(L->ctx, "%s/1", node->rule), env));
        return;
    }
    /* `200 / 404 / 500`: an enumeration of integers, one table however many there are */
    for (i = 0; i < count && items[i]->kind == AST_T_VALUE && items[i]->u.value.kind == AST_V_INT &&
                !items[i]->u.value.overflow; i++)
        ;
    if (i == count) {
        fill_enum(L, node, items, count, NULL);
        return;
    }
    /* `ds-enabled / disabled / ...`, each `JC<"enabled", 0>`: the text literals they stand for */
    for (i = 0; i < count && (items[i]->kind != AST_T_VALUE || items[i]->u.value.kind == AST_V_TEXT) &&
                text_literal(L, items[i], env, 0) != NULL; i++)
        ;
    if (i == count) {
        const ast_type **lits = cddl_alloc(L->ctx, count * sizeof *lits);
        for (i = 0; i < count; i++)
            lits[i] = text_literal(L, items[i], env, 0);
        fill_enum(L, node, lits, count, NULL);
        return;
    }
    /* Literal enums: text literals, plus at most one text type for the rest (Channel). */
    for (i = 0; i < count; i++)
        if (items[i]->kind == AST_T_VALUE && items[i]->u.value.kind == AST_V_TEXT)
            texts++;
    if (texts > 0 && texts + 1 >= count) {
        for (i = 0; i < count; i++) {
            if (items[i]->kind == AST_T_VALUE && items[i]->u.value.kind == AST_V_TEXT)
                continue;
            other = lower_type(L, items[i], cddl_fmt(L->ctx, "%s_other", node->c_name), cddl_fmt(L->ctx, "%s(other)", node->rule), env);
            if (resolved(other)->kind != IR_TEXT)
                other = NULL;
        }
        if (texts == count || other != NULL) {
            fill_enum(L, node, items, count, other);
            return;
        }
    }
    for (i = 0; i < count; i++) {
        ir_type *a = lower_type(L, items[i], anonymous_alt_name(L, node, items, count, i),
                                cddl_fmt(L->ctx, "%s/%zu", node->rule, i + 1), env);
        /* `A = A / B` matches what B matches: the choice itself as an
         * alternative adds nothing, and following it would never end */
        if (resolved(a) == node)
            continue;
        cddl_push(L->ctx, &alts, &nalts, sizeof a, &a);
        cddl_push(L->ctx, &locs, &nlocs, sizeof items[i]->loc, &items[i]->loc);
    }
    classify_union(L, node, alts, nalts, locs);
}

/* `&( group )` or `&name` as a type: the choice of the group's entry types. */
static void fill_enumeration(lower *L, ir_type *node, const ast_type *t, const lower_env *env)
{
    const ast_type **items;
    size_t n;
    begin_walk(L);
    n = enum_items(L, t, &items);
    if (n == 0) {
        node->kind = IR_ANY; /* reported */
        return;
    }
    fill_choice(L, node, items, n, env);
}

/* Does t, through aliases and alternatives of choices, reach `target`? */
static int union_reaches(lower *L, const ir_type *t, const ir_type *target)
{
    size_t i;
    t = resolved(t);
    if (t == target)
        return 1;
    if (t == NULL || t->kind != IR_UNION || t->walk == L->walk)
        return 0; /* a choice seen in this walk did not reach it: diamonds cost their size */
    ((ir_type *)t)->walk = L->walk;
    for (i = 0; i < t->nalts; i++)
        if (union_reaches(L, t->alts[i], target))
            return 1;
    return 0;
}

/* Classifies a union of lowered alternatives: by a discriminating literal member, by JSON kind, or untagged. */
static void classify_union(lower *L, ir_type *node, ir_type **alts, size_t nalts, src_loc *locs)
{
    ir_type **lv = NULL;
    size_t i, j, nlv = 0, nwide = 0;
    size_t *wide = NULL;     /* alternatives that may accept every value of a later one */
    unsigned classes = 0;    /* JSON classes of the alternatives so far, as bits */
    naming_set seen;
    memset(&seen, 0, sizeof seen);
    node->kind = IR_UNION;
    /* `A = B / C` with `B = A / D`: a choice that is its own alternative
     * through another is refused, and the alternative left out, so choices
     * stay acyclic (every walk over them ends); a union completed earlier
     * cannot reach this one, so only this one's alternatives are checked */
    begin_walk(L);
    for (i = 0; i < nalts; i++) {
        if (!union_reaches(L, alts[i], node))
            continue;
        ERR(L, locs[i], "choice '%s' is its own alternative through '%s': write the alternatives it stands for",
            node->rule ? node->rule : "?", alts[i]->rule ? alts[i]->rule : "?");
        memmove(alts + i, alts + i + 1, (nalts - i - 1) * sizeof *alts);
        memmove(locs + i, locs + i + 1, (nalts - i - 1) * sizeof *locs);
        nalts--;
        i--;
    }
    for (i = 0; i < nalts; i++)
        leaves(L, alts[i], &lv, &nlv, &seen, 0);
    if (try_discriminated(L, node, lv, nlv, node->loc)) {
        name_alternatives(L, node);
        node->json_class = json_class(node) + 1;
        return;
    }
    node->alts = alts;
    node->nalts = nalts;
    node->cls = IR_U_KIND;
    for (i = 0; i < nalts && node->cls == IR_U_KIND; i++) {
        int ci = json_class(alts[i]);
        /* int before float is the one overlap a kind test resolves: integers go to int */
        if (ci == 0 || ci == 8 || (classes & (1u << ci)) || (ci == 2 && (classes & (1u << 3))))
            node->cls = IR_U_UNTAGGED;
        classes |= 1u << ci;
    }
    /* Only an alternative that may accept all of another's values (any, all
     * text, every object, ...) is compared with the later ones, and one that
     * an earlier alternative shadows adds nothing to compare with: a choice
     * of 100,000 literals or 20,000 closed maps costs no more than its length. */
    for (i = 0; i < nalts; i++) {
        for (j = 0; j < nwide; j++) {
            if (accepts_every(L, alts[wide[j]], alts[i])) {
                diag_report(L->diag, DIAG_WARNING, DIAG_W_CHOICE, locs[i],
                            "alternative '%s' of '%s' can never be chosen: '%s' before it accepts all its values",
                            alts[i]->rule ? alts[i]->rule : "?", node->rule,
                            alts[wide[j]]->rule ? alts[wide[j]]->rule : "?");
                break;
            }
        }
        begin_walk(L);
        if (j == nwide && may_accept_every(L, alts[i]))
            cddl_push(L->ctx, &wide, &nwide, sizeof i, &i);
    }
    name_alternatives(L, node);
    node->json_class = json_class(node) + 1;
}

/* ---- driver ------------------------------------------------------------------ */

static void init_prims(lower *L)
{
    static const ir_kind kinds[6] = { IR_ANY, IR_BOOL, IR_INT, IR_UINT, IR_FLOAT, IR_TEXT };
    int i;
    for (i = 0; i < 6; i++) {
        memset(&L->prim[i], 0, sizeof L->prim[i]);
        L->prim[i].kind = kinds[i];
        L->prim[i].len_max = SIZE_MAX;
    }
    L->prim[P_INT].imin = INT64_MIN;
    L->prim[P_INT].imax = INT64_MAX;
    L->prim[P_UINT].umax = UINT64_MAX;
    memset(&L->lit_null, 0, sizeof L->lit_null);
    L->lit_null.kind = IR_LITERAL;
    L->lit_null.lit.kind = IR_LIT_NULL;
    L->lit_true = L->lit_null;
    L->lit_true.lit.kind = IR_LIT_BOOL;
    L->lit_true.lit.i = 1;
    L->lit_false = L->lit_true;
    L->lit_false.lit.i = 0;
    memset(&L->bytes, 0, sizeof L->bytes);
    L->bytes.kind = IR_BYTES;
    L->bytes.len_max = SIZE_MAX;
    L->lit_undefined = L->lit_null;
    L->lit_undefined.lit.kind = IR_LIT_UNDEFINED;
}

/* A group rule `( A // B )` whose alternatives are all single types: it reads as their type choice. */
/*
 * --cbor: does the group hold an entry with neither key nor group, directly or through the
 * groups it names (`(suit-condition-vendor-identifier, nil)`)? Then it is a group of array
 * positions, read where an array names it, and no type of its own.
 */
static int positional_group(lower *L, const sema_symbol *sym, int depth)
{
    size_t b, c, k, n;
    const ast_type **bodies = rule_bodies(L, sym, &n);
    for (b = 0; b < n && depth < 16; b++) {
        const ast_type *bt = bodies[b];
        if (bt->kind != AST_T_PAREN || ast_paren_inner(bt) != NULL)
            continue;
        for (c = 0; c < bt->u.group->count; c++) {
            const ast_grpchoice *ch = bt->u.group->choices[c];
            for (k = 0; k < ch->count; k++) {
                const ast_entry *e = ch->entries[k];
                const sema_symbol *g;
                if (e->key_kind != AST_KEY_NONE)
                    continue;
                if (e->type->kind == AST_T_NAME && (g = symbol_of(L, e->type->u.name.name)) != NULL &&
                    g->kind == SEMA_GROUP && !g->from_prelude) {
                    if (positional_group(L, g, depth + 1))
                        return 1;
                } else if (e->type->kind != AST_T_PAREN || ast_paren_inner(e->type) != NULL) {
                    return 1;
                }
            }
        }
    }
    return 0;
}

static int group_of_types(lower *L, const sema_symbol *sym)
{
    const ast_type *body = sym->def != NULL && sym->nalts == 0 ? sym->def->body->type : NULL;
    size_t c;
    if (body == NULL || body->kind != AST_T_PAREN || body->u.group->count < 2)
        return 0;
    for (c = 0; c < body->u.group->count; c++) {
        const ast_type *t;
        const sema_symbol *g;
        if (!choice_is_type(body->u.group->choices[c]))
            return 0;
        t = body->u.group->choices[c]->entries[0]->type;
        if (L->cbor && t->kind == AST_T_NAME && (g = symbol_of(L, t->u.name.name)) != NULL && g->kind == SEMA_GROUP &&
            !g->from_prelude && positional_group(L, g, 0))
            return 0; /* `SUIT_Command = (SUIT_Condition // SUIT_Directive)`: positions, no type */
    }
    return 1;
}

/*
 * A C struct cannot hold itself: an optional or nullable member through
 * which a type would contain itself by value (`NodeProperties.shadowRoot:
 * NodeRemoteValue / null` inside NodeRemoteValue) is kept as raw JSON,
 * with a -Wloose warning. The walk follows what the emitter declares by
 * value (see by_value_deps in emit.c); a required member in such a cycle
 * is left for the emitter to report, since no finite value has it.
 */
static void break_value_cycles(lower *L, ir_type *t, int depth)
{
    size_t i;
    if (t->order_state != 0 || depth > 256)
        return;
    t->order_state = 1;
    switch (t->kind) {
    case IR_STRUCT:
        for (i = 0; i < t->nfields; i++) {
            ir_field *f = &t->fields[i];
            if (!f->type->named || (f->flags & IR_F_LITERAL))
                continue;
            if (f->type->order_state == 1 && (f->flags & (IR_F_OPTIONAL | IR_F_NULLABLE))) {
                diag_report(L->diag, DIAG_WARNING, DIAG_W_LOOSE, f->loc,
                            "member '%.*s' would make '%s' contain itself by value: kept as raw JSON, not checked",
                            NAMEF(f->key), f->type->rule ? f->type->rule : f->type->c_name);
                f->type = &L->prim[P_ANY];
                continue;
            }
            break_value_cycles(L, f->type, depth + 1);
        }
        if (t->variants != NULL)
            break_value_cycles(L, t->variants, depth + 1);
        break;
    case IR_UNION:
        for (i = 0; i < t->nalts; i++)
            if (t->alts[i]->named)
                break_value_cycles(L, t->alts[i], depth + 1);
        break;
    case IR_MAP:
        if (t->elem->named)
            break_value_cycles(L, t->elem, depth + 1);
        break;
    case IR_ALIAS:
        break_value_cycles(L, t->target, depth + 1);
        break;
    default:
        break;
    }
    t->order_state = 2;
}

/*
 * A rule no JSON value can match (`oid = #6.111(bstr)`, `cbor-only = C .feature
 * "cbor"`) gets no C type: a -Wjson warning says so (none for a feature not
 * enabled), and each use of it where nothing else is allowed is an error
 * there. Returns 1 when the rule is to be skipped.
 */
static int skip_rule(lower *L, const sema_symbol *sym, int asked)
{
    const ast_rule *def = sema_first_rule(sym);
    never n = never_rule(L, sym, NULL, NULL, 0);
    if (n.why == NULL)
        return 0;
    if (asked)
        ERR(L, def->name_loc, "'%.*s' matches no JSON value (%s): there is nothing to generate",
            NAMEF(sym->name), n.why);
    else if (!n.by_feature)
        diag_report(L->diag, DIAG_WARNING, DIAG_W_JSON, def->name_loc,
                    "'%.*s' matches no JSON value (%s): no C type is generated for it", NAMEF(sym->name), n.why);
    return 1;
}

int lower_module(cddl_ctx *ctx, const sema_table *table, const ast_document *doc,
                 const lower_options *o, ir_module *out)
{
    static const lower_options defaults;
    lower *L = cddl_alloc(ctx, sizeof *L);
    unsigned before = ctx->diag->errors;
    size_t i, skipped = 0;
    const char *const *roots;
    size_t nroots;
    if (o == NULL)
        o = &defaults;
    roots = o->roots;
    nroots = o->nroots;
    memset(out, 0, sizeof *out);
    L->ctx = ctx;
    L->diag = ctx->diag;
    L->table = table;
    L->mod = out;
    L->doc = doc;
    L->by_symbol = cddl_alloc(ctx, (table->count + 1) * sizeof *L->by_symbol);
    L->group_unions = cddl_alloc(ctx, (table->count + 1) * sizeof *L->group_unions);
    L->group_tuples = cddl_alloc(ctx, (table->count + 1) * sizeof *L->group_tuples);
    L->visited = cddl_alloc(ctx, (table->count + 1) * sizeof *L->visited);
    L->never_state = cddl_alloc(ctx, (table->count + 1) * sizeof *L->never_state);
    L->never_memo = cddl_alloc(ctx, (table->count + 1) * sizeof *L->never_memo);
    L->features = o->features;
    L->nfeatures = o->nfeatures;
    L->cbor = o->cbor;
    init_prims(L);
    if (nroots > 0) {
        for (i = 0; i < nroots; i++) {
            ast_str name = { roots[i], strlen(roots[i]) };
            const sema_symbol *sym = sema_lookup(table, name);
            if (sym == NULL || sym->from_prelude) {
                diag_plain(ctx->diag, DIAG_ERROR, "cddlgen", "--root %s: no such rule in the schema", roots[i]);
                continue;
            }
            if (sym->kind == SEMA_GROUP)
                lower_group_rule(L, sym, NULL);
            else if (sema_first_rule(sym)->nparams > 0)
                diag_plain(ctx->diag, DIAG_ERROR, "cddlgen", "--root %s: a generic rule needs arguments", roots[i]);
            else if (!skip_rule(L, sym, 1))
                lower_rule(L, sym, NULL, NULL);
        }
    } else {
        for (i = 0; i < doc->nrules; i++) {
            const sema_symbol *sym = sema_lookup(table, doc->rules[i]->name);
            if (sym == NULL || doc->rules[i]->nparams > 0)
                continue;
            if (sym->kind == SEMA_TYPE && skip_rule(L, sym, 0))
                skipped++;
            else if (sym->kind == SEMA_TYPE)
                lower_rule(L, sym, NULL, NULL);
            else if (group_of_types(L, sym))
                lower_group_rule(L, sym, NULL); /* `Message = ( Response // Event )` is a type too */
        }
    }
    if (skipped > 0 && out->count == 0 && ctx->diag->errors == before)
        diag_plain(ctx->diag, DIAG_ERROR, "cddlgen", "no rule of this schema matches a JSON value: there is nothing to generate");
    for (i = 0; i < out->count; i++)
        break_value_cycles(L, out->types[i], 0);
    for (i = 0; i < out->count; i++)
        out->types[i]->order_state = 0; /* the emitter's walk starts afresh */
    /* every identifier the types will declare, reserved once their kinds are known */
    naming_reserve_types(ctx, out, &L->type_names);
    return (int)(ctx->diag->errors - before);
}
