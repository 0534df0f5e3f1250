/*
 * diff.c - `cddlgen diff OLD NEW` (see diff.h).
 *
 * Both schemas go through the whole front end and lowering; the lowered C
 * type models are compared: rules matched by name, members by wire key,
 * alternatives of a choice by discriminant value (or by rule name, literal or
 * JSON kind when the choice has no common discriminant). Output follows the
 * new schema's order, with what was removed placed after what preceded it in
 * the old one.
 *
 * Compatibility policy. Backward: NEW accepts every value OLD accepts (new
 * readers read old writers). Forward: OLD accepts every value NEW accepts
 * (old readers read new writers).
 *
 * Rules
 *   added rule                 ok / ok: a rule matters only through its users,
 *                              and a change of a user is reported at the user.
 *   removed rule OLD used      ok / ok here; its users changed and say so.
 *   removed rule nobody used   backward BREAKS (a message type of its own, such
 *                              as a root, that old writers send and NEW has no
 *                              type for); forward ok.
 *   group rules                inlined into maps, so their changes are reported
 *                              at every map that inlines them; a group choice
 *                              used as a choice of variants (CommandData) is
 *                              compared as that choice, under its own name.
 * Members of a map (by wire key)
 *   added optional             backward ok (old writers never send it); forward
 *                              ok when OLD's map is open and its `* text => T`
 *                              tail takes the value, else BREAKS.
 *   added required             backward BREAKS; forward as for optional.
 *   removed                    backward ok when NEW's map is open and its tail
 *                              takes the value, else BREAKS; forward ok when it
 *                              was optional, BREAKS when required.
 *   renamed                    one removed and one added.
 *   optional -> required       backward BREAKS; required -> optional: forward.
 *   nullable added (T / null)  forward BREAKS; nullable removed: backward.
 *   type changed               backward ok iff NEW's type accepts every value
 *                              of OLD's, forward ok iff OLD's accepts NEW's
 *                              (int -> float: forward only; a changed literal,
 *                              such as a `method` value: both).
 *   closed -> open map         forward BREAKS (old readers reject unknown
 *                              members); open -> closed: backward BREAKS.
 *   An open tail is trusted: a member added to or removed from an open map is
 *   compatible although an old writer could have sent a value of another type
 *   under that key; otherwise no member could ever be added compatibly.
 * Choices, enums, ranges
 *   added alternative          forward BREAKS unless OLD's choice already
 *                              accepted its values; removed alternative:
 *                              backward BREAKS unless NEW still accepts them
 *                              (`int / float` -> `float` is compatible).
 *   changed alternative        compared like any type, at RULE("value") for
 *                              a discriminated choice, RULE/N otherwise.
 *   enum value added/removed   the same as an alternative (a value that OLD's
 *                              text alternative, Channel's `custom:NAME`,
 *                              already matched is no break).
 *   ranges, sizes, occurrences narrowed: backward BREAKS; widened: forward
 *                              BREAKS; shifted: both.
 *   patterns                   compared as text: added breaks backward, removed
 *                              breaks forward, changed breaks both.
 *
 * Whether one type accepts every value of another (accepts()) is decided on
 * the lowered types and conservatively: what it cannot show is reported as a
 * break. A recursive type is assumed to accept itself (coinduction). A member
 * choice inlined into an open map is compared as written: a closed variant
 * map gaining an optional member reports a forward break even where the open
 * map around it would take the member.
 */
#include "diff.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aps/schema.h"
#include "frontend.h"

/* Nesting compared and decided; beyond it a type is left alone (diff) or not accepted (accepts). */
#define DIFF_MAX_DEPTH 48
/* Nesting accepts() follows (through rules too); deeper is not shown to be accepted. */
#define ACCEPT_MAX_DEPTH 256
#define DIFF_PATH_MAX 256
#define DIFF_TEXT_MAX 320
#define NONE SIZE_MAX
/* accepts() steps for the whole run: a hostile schema (choices of choices of
 * ...) cannot make the diff take exponential time; past it, nothing more can
 * be shown and what is left is reported as breaking. */
#define DIFF_STEPS 20000000UL

typedef struct rule_entry {
    ast_str name;
    const char *cname;        /* name, NUL-terminated */
    const sema_symbol *sym;
    src_loc loc;              /* name of its `=` definition */
    const ir_type *type;      /* NULL for a group only inlined, or a generic rule */
} rule_entry;

typedef struct schema {
    cddl_ctx ctx;
    cddl_unit u;              /* the schema, checked and lowered */
    rule_entry *rules;        /* one per name, in order of first appearance */
    size_t nrules;
    unsigned char *is_rule;   /* by ir_type.index: the type of a rule */
} schema;

typedef struct differ {
    schema *o, *n;            /* old, new */
    FILE *out;
    unsigned changes, back_breaks, fwd_breaks;
    const ir_type *seen_a[ACCEPT_MAX_DEPTH + 1], *seen_b[ACCEPT_MAX_DEPTH + 1]; /* pairs accepts() is deciding */
    size_t nseen;
    const ir_type *open_a[DIFF_MAX_DEPTH + 2], *open_b[DIFF_MAX_DEPTH + 2];   /* pairs diff_type is comparing */
    size_t nopen;
    unsigned long steps;      /* accepts() steps left for the whole run */
} differ;

static const ir_type any_type = { .kind = IR_ANY };
static const ir_type null_type = { .kind = IR_LITERAL, .lit = { .kind = IR_LIT_NULL } };

/* ---- text ------------------------------------------------------------------- */

typedef struct sbuf {
    char *p;
    size_t cap, len;
} sbuf;

static void put(sbuf *b, const char *f, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void put(sbuf *b, const char *f, ...)
{
    va_list ap;
    int n;
    if (b->len + 1 >= b->cap)
        return;
    va_start(ap, f);
    n = vsnprintf(b->p + b->len, b->cap - b->len, f, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= b->cap - b->len) {
        b->len = b->cap - 1;
        if (b->cap > 4)
            memcpy(b->p + b->cap - 4, "...", 4);
    } else {
        b->len += (size_t)n;
    }
}

/* Schema text (a key, a literal) on one line: quotes, backslashes and controls escaped. */
static void put_text(sbuf *b, ast_str s, int quoted)
{
    size_t i;
    if (quoted)
        put(b, "\"");
    for (i = 0; i < s.len && i < 80; i++) {
        unsigned char c = (unsigned char)s.ptr[i];
        if (c == '"' && quoted)
            put(b, "\\\"");
        else if (c == '\\')
            put(b, "\\\\");
        else if (c == '\n')
            put(b, "\\n");
        else if (c == '\t')
            put(b, "\\t");
        else if (c < 0x20 || c == 0x7f)
            put(b, "\\u%04x", c);
        else
            put(b, "%c", c);
    }
    if (i < s.len)
        put(b, "...");
    if (quoted)
        put(b, "\"");
}

static ast_str str_of(const char *s)
{
    ast_str r;
    r.ptr = s;
    r.len = strlen(s);
    return r;
}

/* ---- the two schemas ----------------------------------------------------------- */

/* The schema rule `t` is the type of, or NULL for an anonymous type. */
static const char *rule_name(const schema *s, const ir_type *t)
{
    if (t->named && t->index < s->u.mod.count && s->u.mod.types[t->index] == t && s->is_rule[t->index])
        return t->rule;
    return NULL;
}

static int by_offset(const void *pa, const void *pb)
{
    const rule_entry *a = *(const rule_entry *const *)pa, *b = *(const rule_entry *const *)pb;
    return a->loc.offset < b->loc.offset ? -1 : a->loc.offset > b->loc.offset;
}

/* One entry per rule name, and which lowered types are the types of rules. */
static void index_rules(schema *s)
{
    unsigned char *seen = cddl_alloc(&s->ctx, s->u.table.count + 1);
    rule_entry **sorted;
    size_t i;
    for (i = 0; i < s->u.doc->nrules; i++) {
        const sema_symbol *sym = sema_lookup(&s->u.table, s->u.doc->rules[i]->name);
        rule_entry e;
        if (sym == NULL || sym->from_prelude || seen[sym->order])
            continue;
        seen[sym->order] = 1;
        memset(&e, 0, sizeof e);
        e.name = sym->name;
        e.cname = cddl_strdup(&s->ctx, sym->name.ptr, sym->name.len);
        e.sym = sym;
        e.loc = sema_first_rule(sym)->name_loc;
        cddl_push(&s->ctx, &s->rules, &s->nrules, sizeof e, &e);
    }
    /* Lowering gives a rule's type the location of the rule's name, and no other type has it. */
    sorted = cddl_alloc(&s->ctx, (s->nrules + 1) * sizeof *sorted);
    for (i = 0; i < s->nrules; i++)
        sorted[i] = &s->rules[i];
    qsort(sorted, s->nrules, sizeof *sorted, by_offset);
    s->is_rule = cddl_alloc(&s->ctx, s->u.mod.count + 1);
    for (i = 0; i < s->u.mod.count; i++) {
        ir_type *t = s->u.mod.types[i];
        size_t lo = 0, hi = s->nrules;
        if (t->loc.src != &s->u.src)
            continue;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (sorted[mid]->loc.offset < t->loc.offset)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < s->nrules && sorted[lo]->loc.offset == t->loc.offset && sorted[lo]->type == NULL) {
            sorted[lo]->type = t;
            s->is_rule[i] = 1;
        }
    }
}

/* Compiles and lowers one schema, then indexes its rules. Returns 0, or 2 after diagnostics. */
static int load(schema *s, const char *path)
{
    /* Warnings belong to `cddlgen check`; here they would bury the diff. */
    static const cddl_compile_options quiet = { .warn_off = CDDL_WARN_ALL };
    cddl_unit_init_file(&s->u, path);
    if (cddl_compile(&s->ctx, &s->u, &quiet) != CDDL_COMPILE_OK)
        return 2;
    index_rules(s);
    return 0;
}

/* ---- matching by key ----------------------------------------------------------- */

typedef struct keyed {
    ast_str key;
    size_t index;
} keyed;

static int cmp_str(ast_str a, ast_str b)
{
    size_t n = a.len < b.len ? a.len : b.len;
    int c = n ? memcmp(a.ptr, b.ptr, n) : 0;
    return c != 0 ? c : a.len < b.len ? -1 : a.len > b.len;
}

static int by_key(const void *pa, const void *pb)
{
    const keyed *a = pa, *b = pb;
    int c = cmp_str(a->key, b->key);
    return c != 0 ? c : a->index < b->index ? -1 : a->index > b->index;
}

/*
 * Pairs the items of two lists by key (equal keys in order), in the order of
 * `kb`, each unmatched item of `ka` after the matched one before it. Fills
 * ia/ib (room for na + nb; NONE = absent on that side); returns the count.
 */
static size_t merge(differ *D, const ast_str *ka, size_t na, const ast_str *kb, size_t nb, size_t *ia, size_t *ib)
{
    cddl_ctx *ctx = &D->n->ctx;
    keyed *sorted = cddl_alloc(ctx, (na + 1) * sizeof *sorted);
    size_t *taken = cddl_alloc(ctx, (na + 1) * sizeof *taken);
    size_t *match = cddl_alloc(ctx, (nb + 1) * sizeof *match);
    unsigned char *used = cddl_alloc(ctx, na + 1);
    size_t i, j, k = 0, next = 0;
    for (i = 0; i < na; i++) {
        sorted[i].key = ka[i];
        sorted[i].index = i;
    }
    qsort(sorted, na, sizeof *sorted, by_key);
    for (j = 0; j < nb; j++) {
        size_t lo = 0, hi = na;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (cmp_str(sorted[mid].key, kb[j]) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        /* the first of a run of equal keys counts how many of the run are taken */
        match[j] = NONE;
        if (lo + taken[lo] < na && cmp_str(sorted[lo + taken[lo]].key, kb[j]) == 0) {
            match[j] = sorted[lo + taken[lo]].index;
            used[match[j]] = 1;
            taken[lo]++;
        }
    }
    for (j = 0; j < nb; j++) {
        if (match[j] != NONE) {
            for (; next < match[j]; next++)
                if (!used[next])
                    ia[k] = next, ib[k++] = NONE;
            if (next == match[j])
                next++;
        }
        ia[k] = match[j];
        ib[k++] = j;
    }
    for (; next < na; next++)
        if (!used[next])
            ia[k] = next, ib[k++] = NONE;
    return k;
}

/* ---- describing types ------------------------------------------------------------ */

static const ir_type *resolved(const ir_type *t)
{
    int guard = 0;
    while (t->kind == IR_ALIAS && t->target != NULL && guard++ < DIFF_MAX_DEPTH)
        t = t->target;
    return t;
}

/* A float bound written so that it reads as a float (`0.0`, not `0`). */
static void put_double(sbuf *b, double v)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%g", v);
    put(b, "%s%s", tmp, strpbrk(tmp, ".eEni") ? "" : ".0");
}

static void put_literal(sbuf *b, const ir_literal *l)
{
    switch (l->kind) {
    case IR_LIT_TEXT:
        put_text(b, l->text, 1);
        break;
    case IR_LIT_BOOL:
        put(b, "%s", l->i ? "true" : "false");
        break;
    case IR_LIT_NULL:
        put(b, "null");
        break;
    case IR_LIT_INT:
        put(b, "%" PRId64, l->i);
        break;
    case IR_LIT_UINT:
        put(b, "%" PRIu64, l->u);
        break;
    case IR_LIT_FLOAT:
        put_double(b, l->f);
        break;
    case IR_LIT_UNDEFINED: /* CBOR only: the JSON schemas compared never have them */
        put(b, "undefined");
        break;
    case IR_LIT_BYTES:
        put(b, "h'...'");
        break;
    }
}

/* An occurrence as CDDL writes it; `one` is what to write for exactly one. */
static void put_occur(sbuf *b, uint64_t lo, uint64_t hi, const char *one)
{
    if (lo == 1 && hi == 1)
        put(b, "%s", one);
    else if (lo == 0 && hi == 1)
        put(b, "?");
    else if (lo == 0 && hi == AST_OCCUR_INF)
        put(b, "*");
    else if (lo == 1 && hi == AST_OCCUR_INF)
        put(b, "+");
    else if (hi == AST_OCCUR_INF)
        put(b, "%" PRIu64 "*", lo);
    else
        put(b, "%" PRIu64 "*%" PRIu64, lo, hi);
}

static void describe(const schema *s, const ir_type *t, int top, int depth, sbuf *b);

static void describe_field_type(const schema *s, const ir_field *f, int depth, sbuf *b)
{
    describe(s, f->type, 0, depth, b);
    if (f->flags & IR_F_NULLABLE)
        put(b, " / null");
}

/* CDDL-like text for `t`: a rule's name, or the type written out (`top`: even for a rule). */
static void describe(const schema *s, const ir_type *t, int top, int depth, sbuf *b)
{
    const char *name = rule_name(s, t);
    size_t i;
    if (b->len + 1 >= b->cap)
        return;
    if (name != NULL && !top) {
        put(b, "%s", name);
        return;
    }
    if (depth > 3) {
        put(b, "...");
        return;
    }
    switch (t->kind) {
    case IR_ANY: put(b, "any"); break;
    case IR_BOOL: put(b, "bool"); break;
    case IR_ALIAS: describe(s, t->target, 0, depth + 1, b); break;
    case IR_BYTES: put(b, "bstr"); break; /* CBOR only: lowered under --cbor, which diff does not use */
    case IR_TAG: put(b, "#6.%" PRIu64 "(", t->tag); describe(s, t->content, 0, depth + 1, b); put(b, ")"); break;
    case IR_INT:
        if (t->imin == INT64_MIN && t->imax == INT64_MAX)
            put(b, "int");
        else if (t->imin == INT64_MIN)
            put(b, "int .le %" PRId64, t->imax);
        else if (t->imax == INT64_MAX)
            put(b, "int .ge %" PRId64, t->imin);
        else
            put(b, "%" PRId64 "..%" PRId64, t->imin, t->imax);
        break;
    case IR_UINT:
        if (t->umin == 0 && t->umax == UINT64_MAX)
            put(b, "uint");
        else if (t->umax == UINT64_MAX)
            put(b, "uint .ge %" PRIu64, t->umin);
        else
            put(b, "%" PRIu64 "..%" PRIu64, t->umin, t->umax);
        if (t->forbidden_bits != 0)
            put(b, " .bits (clear 0x%" PRIx64 ")", t->forbidden_bits);
        break;
    case IR_FLOAT:
        if (t->has_fmin && t->has_fmax && !t->fmin_excl) {
            put_double(b, t->fmin);
            put(b, "%s", t->fmax_excl ? "..." : "..");
            put_double(b, t->fmax);
        } else {
            put(b, "float");
            if (t->has_fmin) {
                put(b, " .%s ", t->fmin_excl ? "gt" : "ge");
                put_double(b, t->fmin);
            }
            if (t->has_fmax) {
                put(b, " .%s ", t->fmax_excl ? "lt" : "le");
                put_double(b, t->fmax);
            }
        }
        break;
    case IR_TEXT:
        put(b, "text");
        if (t->len_min == t->len_max)
            put(b, " .size %zu", t->len_min);
        else if (t->len_max != SIZE_MAX)
            put(b, " .size (%zu..%zu)", t->len_min, t->len_max);
        else if (t->len_min != 0)
            put(b, " .size (%zu..)", t->len_min);
        if (t->pattern != NULL) {
            put(b, " .regexp ");
            put_text(b, str_of(t->pattern), 1);
        }
        break;
    case IR_LITERAL: put_literal(b, &t->lit); break;
    case IR_ENUM:
        for (i = 0; i < t->nvalues; i++) {
            put(b, "%s", i ? " / " : "");
            put_literal(b, &t->values[i]);
        }
        if (t->other != NULL) {
            put(b, " / ");
            describe(s, t->other, 0, depth + 1, b);
        }
        break;
    case IR_STRUCT:
        put(b, "{");
        for (i = 0; i < t->nfields && i < 8; i++) {
            put(b, "%s%s", i ? ", " : " ", (t->fields[i].flags & IR_F_OPTIONAL) ? "? " : "");
            put_text(b, t->fields[i].key, 0);
        }
        if (i < t->nfields)
            put(b, ", ...");
        if (t->variants != NULL) {
            put(b, "%s", t->nfields ? ", " : " ");
            describe(s, t->variants, 0, depth + 1, b);
        }
        if (t->open)
            put(b, "%s* text => %s", t->nfields || t->variants ? ", " : " ", t->extras_type ? "..." : "any");
        put(b, " }");
        break;
    case IR_ARRAY:
        put(b, "[");
        put_occur(b, t->occ_min, t->occ_max, "");
        put(b, "%s", t->occ_min == 1 && t->occ_max == 1 ? "" : " ");
        describe(s, t->elem, 0, depth + 1, b);
        put(b, "]");
        break;
    case IR_MAP:
        put(b, "{");
        put_occur(b, t->occ_min, t->occ_max, "");
        put(b, "%stext => ", t->occ_min == 1 && t->occ_max == 1 ? "" : " ");
        describe(s, t->elem, 0, depth + 1, b);
        put(b, "}");
        break;
    case IR_UNION:
        for (i = 0; i < t->nalts; i++) {
            put(b, "%s", i ? " / " : "");
            describe(s, t->alts[i], 0, depth + 1, b);
        }
        break;
    }
}

/* ---- acceptance ------------------------------------------------------------------ */

static int accepts(differ *D, const ir_type *a, const ir_type *b, int depth);

static int same_literal(const ir_literal *a, const ir_literal *b)
{
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case IR_LIT_TEXT: return ast_str_same(a->text, b->text);
    case IR_LIT_INT: return a->i == b->i;
    case IR_LIT_UINT: return a->u == b->u;
    case IR_LIT_FLOAT: return a->f == b->f;
    case IR_LIT_BOOL: return (a->i != 0) == (b->i != 0);
    case IR_LIT_NULL: return 1;
    case IR_LIT_UNDEFINED: return 1;
    case IR_LIT_BYTES: return ast_str_same(a->text, b->text);
    }
    return 0;
}

/* An integer as sign and magnitude, so int64 and uint64 bounds compare exactly. */
typedef struct wide {
    int neg;
    uint64_t mag;
} wide;

static wide from_i(int64_t v)
{
    wide w;
    w.neg = v < 0;
    w.mag = v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
    return w;
}

static wide from_u(uint64_t v)
{
    wide w;
    w.neg = 0;
    w.mag = v;
    return w;
}

static int cmp_wide(wide a, wide b)
{
    if (a.neg != b.neg)
        return a.neg ? -1 : 1;
    if (a.mag == b.mag)
        return 0;
    return (a.mag < b.mag) != a.neg ? -1 : 1;
}

static int is_number(const ir_type *t)
{
    return t->kind == IR_INT || t->kind == IR_UINT || t->kind == IR_FLOAT;
}

static wide int_min(const ir_type *t)
{
    return t->kind == IR_INT ? from_i(t->imin) : from_u(t->umin);
}

static wide int_max(const ir_type *t)
{
    return t->kind == IR_INT ? from_i(t->imax) : from_u(t->umax);
}

/* Lower or upper bound of a number type as a double; 0 when it has none. */
static int float_bound(const ir_type *t, int upper, double *v, int *excl)
{
    *excl = 0;
    if (t->kind == IR_FLOAT) {
        if (upper ? !t->has_fmax : !t->has_fmin)
            return 0;
        *v = upper ? t->fmax : t->fmin;
        *excl = upper ? t->fmax_excl : t->fmin_excl;
        return 1;
    }
    if (t->kind == IR_INT)
        *v = (double)(upper ? t->imax : t->imin);
    else
        *v = (double)(upper ? t->umax : t->umin);
    return 1;
}

/*
 * Number type `a` accepts every number `b` does (ints are within floats;
 * floats never within ints). The 64-bit limits of plain int and uint are the
 * runtime's, not the schema's: CDDL's int includes every uint, so a bound at
 * such a limit counts as none.
 */
static int number_accepts(const ir_type *a, const ir_type *b)
{
    int side;
    if (a->kind == IR_UINT && a->forbidden_bits != 0) {
        /* `.bits`: b's values keep a's forbidden bits clear (a point is tested as itself) */
        int point = b->kind == IR_UINT ? b->umin == b->umax : b->kind == IR_INT && b->imin == b->imax && b->imin >= 0;
        uint64_t v = b->kind == IR_UINT ? b->umin : (uint64_t)b->imin;
        if (point ? (v & a->forbidden_bits) != 0
                  : b->kind != IR_UINT || (a->forbidden_bits & ~b->forbidden_bits) != 0)
            return 0;
    }
    if (a->kind != IR_FLOAT) {
        int no_min = a->kind == IR_INT && a->imin == INT64_MIN;
        int no_max = a->kind == IR_INT ? a->imax == INT64_MAX : a->umax == UINT64_MAX;
        return b->kind != IR_FLOAT && (no_min || cmp_wide(int_min(a), int_min(b)) <= 0) &&
               (no_max || cmp_wide(int_max(b), int_max(a)) <= 0);
    }
    for (side = 0; side < 2; side++) {
        double av, bv;
        int aex, bex;
        if (!float_bound(a, side, &av, &aex))
            continue;
        if (!float_bound(b, side, &bv, &bex))
            return 0;
        if (side ? bv > av : bv < av)
            return 0;
        if (bv == av && aex && !bex)
            return 0;
    }
    return 1;
}

static int literal_number_in(const ir_type *a, const ir_literal *l)
{
    ir_type point;
    memset(&point, 0, sizeof point);
    switch (l->kind) {
    case IR_LIT_INT:
        point.kind = IR_INT;
        point.imin = point.imax = l->i;
        break;
    case IR_LIT_UINT:
        point.kind = IR_UINT;
        point.umin = point.umax = l->u;
        break;
    case IR_LIT_FLOAT:
        point.kind = IR_FLOAT;
        point.has_fmin = point.has_fmax = true;
        point.fmin = point.fmax = l->f;
        break;
    default:
        return 0;
    }
    return number_accepts(a, &point);
}

/* `a` accepts the literal value `l`. */
static int accepts_literal(differ *D, const ir_type *a, const ir_literal *l, int depth)
{
    size_t i;
    a = resolved(a);
    switch (a->kind) {
    case IR_ANY: return 1;
    case IR_LITERAL: return same_literal(&a->lit, l);
    case IR_BOOL: return l->kind == IR_LIT_BOOL;
    case IR_INT: case IR_UINT: case IR_FLOAT: return literal_number_in(a, l);
    case IR_TEXT:
        if (l->kind != IR_LIT_TEXT || l->text.len < a->len_min || l->text.len > a->len_max)
            return 0;
        return a->pattern == NULL || aps_regex_match(a->pattern, l->text.ptr, l->text.len) == 1;
    case IR_ENUM:
        for (i = 0; i < a->nvalues; i++)
            if (same_literal(&a->values[i], l))
                return 1;
        return a->other != NULL && accepts_literal(D, a->other, l, depth + 1);
    case IR_UNION:
        for (i = 0; i < a->nalts; i++)
            if (depth < ACCEPT_MAX_DEPTH && accepts_literal(D, a->alts[i], l, depth + 1))
                return 1;
        return 0;
    default:
        return 0;
    }
}

static const ir_field *find_field(const ir_type *s, ast_str key)
{
    size_t i;
    for (i = 0; i < s->nfields; i++)
        if (ast_str_same(s->fields[i].key, key))
            return &s->fields[i];
    return NULL;
}

/* A map tail of type `extras` (NULL: any) takes the values of member `f`. */
static int tail_takes(differ *D, const ir_type *extras, const ir_field *f, int depth)
{
    if (extras == NULL)
        return 1;
    return accepts(D, extras, f->type, depth) &&
           (!(f->flags & IR_F_NULLABLE) || accepts(D, extras, &null_type, depth));
}

static int struct_accepts(differ *D, const ir_type *a, const ir_type *b, int depth)
{
    size_t i;
    for (i = 0; i < a->nfields; i++) {
        const ir_field *fa = &a->fields[i], *fb = find_field(b, fa->key);
        if (fb == NULL) {
            if (!(fa->flags & IR_F_OPTIONAL))
                return 0;
            continue;
        }
        if ((!(fa->flags & IR_F_OPTIONAL) && (fb->flags & IR_F_OPTIONAL)) ||
            ((fb->flags & IR_F_NULLABLE) && !(fa->flags & IR_F_NULLABLE)) || !accepts(D, fa->type, fb->type, depth))
            return 0;
    }
    for (i = 0; i < b->nfields; i++)
        if (find_field(a, b->fields[i].key) == NULL && !(a->open && tail_takes(D, a->extras_type, &b->fields[i], depth)))
            return 0;
    if (b->open && !(a->open && (a->extras_type == NULL ||
                                 (b->extras_type != NULL && accepts(D, a->extras_type, b->extras_type, depth)))))
        return 0;
    if (a->variants != NULL && b->variants != NULL)
        return accepts(D, a->variants, b->variants, depth);
    if (a->variants != NULL)
        return 0;
    /* b's variant members land in a's tail */
    return b->variants == NULL || (a->open && a->extras_type == NULL);
}

static int accepts_step(differ *D, const ir_type *a, const ir_type *b, int depth)
{
    size_t i;
    if (a->kind == IR_ANY)
        return 1;
    if (b->kind == IR_ANY)
        return 0;
    if (b->kind == IR_UNION) {
        for (i = 0; i < b->nalts; i++)
            if (!accepts(D, a, b->alts[i], depth))
                return 0;
        return 1;
    }
    if (b->kind == IR_ENUM) {
        for (i = 0; i < b->nvalues; i++)
            if (!accepts_literal(D, a, &b->values[i], depth))
                return 0;
        return b->other == NULL || accepts(D, a, b->other, depth);
    }
    if (b->kind == IR_LITERAL)
        return accepts_literal(D, a, &b->lit, depth);
    if (a->kind == IR_UNION) {
        for (i = 0; i < a->nalts; i++)
            if (accepts(D, a->alts[i], b, depth))
                return 1;
        return 0;
    }
    switch (a->kind) {
    case IR_BOOL:
        return b->kind == IR_BOOL;
    case IR_INT: case IR_UINT: case IR_FLOAT:
        return is_number(b) && number_accepts(a, b);
    case IR_TEXT:
        return b->kind == IR_TEXT && a->len_min <= b->len_min && b->len_max <= a->len_max &&
               (a->pattern == NULL || (b->pattern != NULL && strcmp(a->pattern, b->pattern) == 0));
    case IR_ENUM:
        return a->other != NULL && accepts(D, a->other, b, depth);
    case IR_ARRAY:
        return b->kind == IR_ARRAY && a->occ_min <= b->occ_min && b->occ_max <= a->occ_max &&
               accepts(D, a->elem, b->elem, depth);
    case IR_MAP:
        if (b->kind == IR_MAP)
            return a->occ_min <= b->occ_min && b->occ_max <= a->occ_max && accepts(D, a->elem, b->elem, depth);
        if (b->kind != IR_STRUCT || a->occ_min > 0 || a->occ_max != AST_OCCUR_INF || b->variants != NULL)
            return 0;
        for (i = 0; i < b->nfields; i++)
            if (!tail_takes(D, a->elem, &b->fields[i], depth))
                return 0;
        return !b->open || accepts(D, a->elem, b->extras_type ? b->extras_type : &any_type, depth);
    case IR_STRUCT:
        if (b->kind == IR_STRUCT)
            return struct_accepts(D, a, b, depth);
        if (b->kind != IR_MAP || !a->open || a->variants != NULL)
            return 0;
        for (i = 0; i < a->nfields; i++)
            if (!(a->fields[i].flags & IR_F_OPTIONAL) || !accepts(D, a->fields[i].type, b->elem, depth))
                return 0;
        return a->extras_type == NULL || accepts(D, a->extras_type, b->elem, depth);
    default:
        return 0;
    }
}

/* True when `a` accepts every value `b` accepts (as far as can be shown). */
static int accepts(differ *D, const ir_type *a, const ir_type *b, int depth)
{
    size_t i;
    int r;
    a = resolved(a);
    b = resolved(b);
    if (a == b)
        return 1;
    if (depth >= ACCEPT_MAX_DEPTH || D->nseen >= ACCEPT_MAX_DEPTH || D->steps == 0)
        return 0;
    D->steps--;
    for (i = 0; i < D->nseen; i++)
        if (D->seen_a[i] == a && D->seen_b[i] == b)
            return 1;
    D->seen_a[D->nseen] = a;
    D->seen_b[D->nseen++] = b;
    r = accepts_step(D, a, b, depth + 1);
    D->nseen--;
    return r;
}

/* ---- reporting ------------------------------------------------------------------- */

static src_loc pick(const schema *s, src_loc loc, src_loc fallback)
{
    return loc.src == &s->u.src ? loc : fallback;
}

static void report(differ *D, src_loc loc, const char *path, const char *verb, int back_ok, int fwd_ok,
                   const char *what)
{
    unsigned line = 0, col = 0;
    cddl_source *src = loc.src == &D->o->u.src ? &D->o->u.src : &D->n->u.src;
    cddl_source_position(src, loc.offset, &line, &col);
    fprintf(D->out, "%s:%u: %s: %s: %s; backward: %s; forward: %s\n", src->name, line, path, verb, what,
            back_ok ? "ok" : "BREAKS", fwd_ok ? "ok" : "BREAKS");
    D->changes++;
    D->back_breaks += !back_ok;
    D->fwd_breaks += !fwd_ok;
}

/* `path` + `sep` + key, the key escaped onto one line. */
static void child_path(char *out, const char *path, const char *sep, ast_str key, int quoted, const char *close)
{
    sbuf b;
    b.p = out;
    b.cap = DIFF_PATH_MAX;
    b.len = 0;
    out[0] = '\0';
    put(&b, "%s%s", path, sep);
    put_text(&b, key, quoted);
    put(&b, "%s", close);
}

/* A change of the type at `path` from `a` (old) to `b` (new), judged by acceptance. */
static void type_change(differ *D, const char *path, const char *word, const ir_type *a, const ir_type *b,
                        src_loc at, int top)
{
    char what[DIFF_TEXT_MAX];
    sbuf w;
    int back = accepts(D, b, a, 0), fwd = accepts(D, a, b, 0);
    w.p = what;
    w.cap = sizeof what;
    w.len = 0;
    what[0] = '\0';
    put(&w, "%s ", word);
    describe(D->o, a, top, 0, &w);
    put(&w, " -> ");
    describe(D->n, b, top, 0, &w);
    report(D, at, path, "changed", back, fwd, what);
}

/* ---- comparing --------------------------------------------------------------------- */

static void diff_type(differ *D, const char *path, const ir_type *a, const ir_type *b, src_loc lo, src_loc ln,
                      int depth);

static void diff_field(differ *D, const char *path, const ir_field *fa, const ir_field *fb, src_loc lo, src_loc ln,
                       int depth)
{
    src_loc at = pick(D->n, fb->loc, ln);
    unsigned oa = fa->flags & IR_F_OPTIONAL, ob = fb->flags & IR_F_OPTIONAL;
    unsigned na = fa->flags & IR_F_NULLABLE, nb = fb->flags & IR_F_NULLABLE;
    if (oa != ob)
        report(D, at, path, "changed", !oa || ob ? 1 : 0, oa || !ob ? 1 : 0,
               oa ? "optional -> required" : "required -> optional");
    if (na != nb)
        report(D, at, path, "changed", nb ? 1 : 0, na ? 1 : 0,
               na ? "nullable -> not nullable" : "not nullable -> nullable");
    diff_type(D, path, fa->type, fb->type, pick(D->o, fa->loc, lo), at, depth + 1);
}

static void member_added_or_removed(differ *D, const char *path, const ir_field *f, const schema *s, int added,
                                    int back, int fwd, src_loc at)
{
    char what[DIFF_TEXT_MAX];
    sbuf w;
    w.p = what;
    w.cap = sizeof what;
    w.len = 0;
    what[0] = '\0';
    put(&w, "%s member (", (f->flags & IR_F_OPTIONAL) ? "optional" : "required");
    describe_field_type(s, f, 0, &w);
    put(&w, ")");
    report(D, at, path, added ? "added" : "removed", back, fwd, what);
}

static void diff_struct(differ *D, const char *path, const ir_type *a, const ir_type *b, src_loc lo, src_loc ln,
                        int depth)
{
    char child[DIFF_PATH_MAX];
    ast_str *ka = cddl_alloc(&D->n->ctx, (a->nfields + 1) * sizeof *ka);
    ast_str *kb = cddl_alloc(&D->n->ctx, (b->nfields + 1) * sizeof *kb);
    size_t *ia = cddl_alloc(&D->n->ctx, (a->nfields + b->nfields + 1) * sizeof *ia);
    size_t *ib = cddl_alloc(&D->n->ctx, (a->nfields + b->nfields + 1) * sizeof *ib);
    size_t i, count;
    src_loc at = pick(D->n, b->loc, ln);
    if (a->open != b->open)
        report(D, at, path, "changed", b->open, a->open, a->open ? "open map -> closed map" : "closed map -> open map");
    if (a->open && b->open && (a->extras_type != NULL || b->extras_type != NULL)) {
        child_path(child, path, ".", str_of("*"), 0, "");
        if (a->extras_type != NULL && b->extras_type != NULL)
            diff_type(D, child, a->extras_type, b->extras_type, lo, at, depth + 1);
        else
            type_change(D, child, "type", a->extras_type ? a->extras_type : &any_type,
                        b->extras_type ? b->extras_type : &any_type, at, 0);
    }
    for (i = 0; i < a->nfields; i++)
        ka[i] = a->fields[i].key;
    for (i = 0; i < b->nfields; i++)
        kb[i] = b->fields[i].key;
    count = merge(D, ka, a->nfields, kb, b->nfields, ia, ib);
    for (i = 0; i < count; i++) {
        const ir_field *fa = ia[i] != NONE ? &a->fields[ia[i]] : NULL;
        const ir_field *fb = ib[i] != NONE ? &b->fields[ib[i]] : NULL;
        child_path(child, path, ".", fa ? fa->key : fb->key, 0, "");
        if (fa != NULL && fb != NULL)
            diff_field(D, child, fa, fb, lo, at, depth);
        else if (fb != NULL)
            member_added_or_removed(D, child, fb, D->n, 1, (fb->flags & IR_F_OPTIONAL) != 0,
                                    a->open && tail_takes(D, a->extras_type, fb, 0), pick(D->n, fb->loc, at));
        else
            member_added_or_removed(D, child, fa, D->o, 0, b->open && tail_takes(D, b->extras_type, fa, 0),
                                    (fa->flags & IR_F_OPTIONAL) != 0, pick(D->o, fa->loc, lo));
    }
    if (a->variants != NULL && b->variants != NULL)
        diff_type(D, path, a->variants, b->variants, lo, at, depth + 1);
    else if (a->variants != NULL || b->variants != NULL)
        report(D, at, path, "changed", accepts(D, b, a, 0), accepts(D, a, b, 0),
               a->variants ? "member choice removed" : "member choice added");
}

static void diff_enum(differ *D, const char *path, const ir_type *a, const ir_type *b, src_loc lo, src_loc ln,
                      int depth)
{
    char what[DIFF_TEXT_MAX];
    ast_str *ka = cddl_alloc(&D->n->ctx, (a->nvalues + 1) * sizeof *ka);
    ast_str *kb = cddl_alloc(&D->n->ctx, (b->nvalues + 1) * sizeof *kb);
    size_t *ia = cddl_alloc(&D->n->ctx, (a->nvalues + b->nvalues + 1) * sizeof *ia);
    size_t *ib = cddl_alloc(&D->n->ctx, (a->nvalues + b->nvalues + 1) * sizeof *ib);
    size_t i, count;
    src_loc at = pick(D->n, b->loc, ln);
    for (i = 0; i < a->nvalues; i++)
        ka[i] = a->values[i].text;
    for (i = 0; i < b->nvalues; i++)
        kb[i] = b->values[i].text;
    count = merge(D, ka, a->nvalues, kb, b->nvalues, ia, ib);
    for (i = 0; i < count; i++) {
        sbuf w;
        const ir_literal *l = ia[i] != NONE ? &a->values[ia[i]] : &b->values[ib[i]];
        if (ia[i] != NONE && ib[i] != NONE)
            continue;
        w.p = what;
        w.cap = sizeof what;
        w.len = 0;
        what[0] = '\0';
        put(&w, "value ");
        put_literal(&w, l);
        if (ib[i] != NONE)
            report(D, at, path, "added", 1, accepts_literal(D, a, l, 0), what);
        else
            report(D, pick(D->o, a->loc, lo), path, "removed", accepts_literal(D, b, l, 0), 1, what);
    }
    if (a->other != NULL && b->other != NULL)
        diff_type(D, path, a->other, b->other, lo, at, depth + 1);
    else if (a->other != NULL || b->other != NULL) {
        sbuf w;
        w.p = what;
        w.cap = sizeof what;
        w.len = 0;
        what[0] = '\0';
        put(&w, "alternative ");
        describe(b->other ? D->n : D->o, b->other ? b->other : a->other, 0, 0, &w);
        if (b->other != NULL)
            report(D, at, path, "added", 1, accepts(D, a, b->other, 0), what);
        else
            report(D, pick(D->o, a->loc, lo), path, "removed", accepts(D, b, a->other, 0), 1, what);
    }
}

/* Key of an alternative of a choice without a shared discriminant: rule, literal or JSON kind. */
static ast_str alt_key(schema *s, const ir_type *t)
{
    char buf[DIFF_TEXT_MAX];
    sbuf b;
    const char *name = rule_name(s, t);
    if (name != NULL)
        return str_of(name);
    t = resolved(t);
    b.p = buf;
    b.cap = sizeof buf;
    b.len = 0;
    buf[0] = '\0';
    switch (t->kind) {
    case IR_LITERAL: put_literal(&b, &t->lit); break;
    case IR_INT: case IR_UINT: case IR_FLOAT: put(&b, "(number)"); break;
    case IR_TEXT: case IR_ENUM: put(&b, "(text)"); break;
    case IR_BOOL: put(&b, "(bool)"); break;
    case IR_ARRAY: put(&b, "(array)"); break;
    case IR_STRUCT: case IR_MAP: put(&b, "(object)"); break;
    case IR_UNION: put(&b, "(choice)"); break;
    default: put(&b, "(any)"); break;
    }
    return str_of(cddl_strdup(&s->ctx, buf, b.len));
}

static void diff_union(differ *D, const char *path, const ir_type *a, const ir_type *b, src_loc lo, src_loc ln,
                       int depth)
{
    char what[DIFF_TEXT_MAX], child[DIFF_PATH_MAX];
    int by_disc = a->cls == IR_U_DISCRIMINATED && b->cls == IR_U_DISCRIMINATED && ast_str_same(a->disc_key, b->disc_key);
    ast_str *ka = cddl_alloc(&D->n->ctx, (a->nalts + 1) * sizeof *ka);
    ast_str *kb = cddl_alloc(&D->n->ctx, (b->nalts + 1) * sizeof *kb);
    size_t *ia = cddl_alloc(&D->n->ctx, (a->nalts + b->nalts + 1) * sizeof *ia);
    size_t *ib = cddl_alloc(&D->n->ctx, (a->nalts + b->nalts + 1) * sizeof *ib);
    size_t i, count;
    src_loc at = pick(D->n, b->loc, ln);
    for (i = 0; i < a->nalts; i++)
        ka[i] = by_disc ? a->disc[i].text : alt_key(D->o, a->alts[i]);
    for (i = 0; i < b->nalts; i++)
        kb[i] = by_disc ? b->disc[i].text : alt_key(D->n, b->alts[i]);
    count = merge(D, ka, a->nalts, kb, b->nalts, ia, ib);
    for (i = 0; i < count; i++) {
        const ir_type *x = ia[i] != NONE ? a->alts[ia[i]] : NULL;
        const ir_type *y = ib[i] != NONE ? b->alts[ib[i]] : NULL;
        sbuf w;
        if (x != NULL && y != NULL) {
            if (by_disc) {
                child_path(child, path, "(", b->disc[ib[i]].text, 1, ")");
            } else {
                char num[32];
                snprintf(num, sizeof num, "%zu", ib[i] + 1);
                child_path(child, path, "/", str_of(num), 0, "");
            }
            diff_type(D, child, x, y, pick(D->o, x->loc, lo), pick(D->n, y->loc, at), depth + 1);
            continue;
        }
        w.p = what;
        w.cap = sizeof what;
        w.len = 0;
        what[0] = '\0';
        put(&w, "alternative ");
        if (by_disc) {
            put_literal(&w, y ? &b->disc[ib[i]] : &a->disc[ia[i]]);
            put(&w, " (");
        }
        describe(y ? D->n : D->o, y ? y : x, 0, 0, &w);
        if (by_disc)
            put(&w, ")");
        if (y != NULL)
            report(D, pick(D->n, y->loc, at), path, "added", 1, accepts(D, a, y, 0), what);
        else
            report(D, pick(D->o, x->loc, lo), path, "removed", accepts(D, b, x, 0), 1, what);
    }
}

static int same_text_type(const ir_type *a, const ir_type *b)
{
    if (a->len_min != b->len_min || a->len_max != b->len_max)
        return 0;
    if (a->pattern == NULL || b->pattern == NULL)
        return a->pattern == b->pattern;
    return strcmp(a->pattern, b->pattern) == 0;
}

static int same_bounds(const ir_type *a, const ir_type *b)
{
    return number_accepts(a, b) && number_accepts(b, a);
}

/* The comparison of diff_type, for a pair not already being compared. */
static void diff_type_step(differ *D, const char *path, const ir_type *a, const ir_type *b, src_loc lo, src_loc ln,
                           int depth)
{
    const char *ra = rule_name(D->o, a), *rb = rule_name(D->n, b);
    char child[DIFF_PATH_MAX];
    if (depth > 0 && (ra != NULL || rb != NULL)) {
        if (ra == NULL || rb == NULL || strcmp(ra, rb) != 0)
            type_change(D, path, "type", a, b, ln, 0);
        return;
    }
    if (a->kind == IR_ALIAS && b->kind == IR_ALIAS) {
        diff_type(D, path, a->target, b->target, lo, ln, depth + 1);
        return;
    }
    if (a->kind != b->kind) {
        type_change(D, path, "type", a, b, ln, depth == 0);
        return;
    }
    switch (a->kind) {
    case IR_INT: case IR_UINT: case IR_FLOAT:
        if (!same_bounds(a, b))
            type_change(D, path, "range", a, b, ln, depth == 0);
        break;
    case IR_TEXT:
        if (!same_text_type(a, b))
            type_change(D, path, "type", a, b, ln, depth == 0);
        break;
    case IR_LITERAL:
        if (!same_literal(&a->lit, &b->lit))
            type_change(D, path, "literal", a, b, ln, depth == 0);
        break;
    case IR_ENUM:
        diff_enum(D, path, a, b, lo, ln, depth);
        break;
    case IR_STRUCT:
        diff_struct(D, path, a, b, lo, ln, depth);
        break;
    case IR_ARRAY: case IR_MAP:
        if (a->occ_min != b->occ_min || a->occ_max != b->occ_max) {
            char what[DIFF_TEXT_MAX];
            sbuf w;
            int back = b->occ_min <= a->occ_min && a->occ_max <= b->occ_max;
            int fwd = a->occ_min <= b->occ_min && b->occ_max <= a->occ_max;
            w.p = what;
            w.cap = sizeof what;
            w.len = 0;
            what[0] = '\0';
            put(&w, "occurrence ");
            put_occur(&w, a->occ_min, a->occ_max, "1");
            put(&w, " -> ");
            put_occur(&w, b->occ_min, b->occ_max, "1");
            report(D, pick(D->n, b->loc, ln), path, "changed", back, fwd, what);
        }
        child_path(child, path, a->kind == IR_ARRAY ? "[]" : ".*", str_of(""), 0, "");
        diff_type(D, child, a->elem, b->elem, lo, pick(D->n, b->loc, ln), depth + 1);
        break;
    case IR_UNION:
        diff_union(D, path, a, b, lo, ln, depth);
        break;
    default:
        break;
    }
}

/*
 * Compares the type at `path`. Below the top, a rule's type is a reference:
 * the same rule on both sides is compared once, where the rule is. A pair
 * met again inside itself (a recursive generic instance) is not compared
 * twice.
 */
static void diff_type(differ *D, const char *path, const ir_type *a, const ir_type *b, src_loc lo, src_loc ln,
                      int depth)
{
    size_t i;
    if (depth > DIFF_MAX_DEPTH || D->nopen > DIFF_MAX_DEPTH)
        return;
    for (i = 0; i < D->nopen; i++)
        if (D->open_a[i] == a && D->open_b[i] == b)
            return;
    D->open_a[D->nopen] = a;
    D->open_b[D->nopen++] = b;
    diff_type_step(D, path, a, b, lo, ln, depth);
    D->nopen--;
}

static void diff_rules(differ *D)
{
    schema *o = D->o, *n = D->n;
    ast_str *ka = cddl_alloc(&n->ctx, (o->nrules + 1) * sizeof *ka);
    ast_str *kb = cddl_alloc(&n->ctx, (n->nrules + 1) * sizeof *kb);
    size_t *ia = cddl_alloc(&n->ctx, (o->nrules + n->nrules + 1) * sizeof *ia);
    size_t *ib = cddl_alloc(&n->ctx, (o->nrules + n->nrules + 1) * sizeof *ib);
    size_t i, count;
    for (i = 0; i < o->nrules; i++)
        ka[i] = o->rules[i].name;
    for (i = 0; i < n->nrules; i++)
        kb[i] = n->rules[i].name;
    count = merge(D, ka, o->nrules, kb, n->nrules, ia, ib);
    for (i = 0; i < count; i++) {
        const rule_entry *ra = ia[i] != NONE ? &o->rules[ia[i]] : NULL;
        const rule_entry *rb = ib[i] != NONE ? &n->rules[ib[i]] : NULL;
        char path[DIFF_PATH_MAX];
        child_path(path, "", "", (ra ? ra : rb)->name, 0, "");
        if (ra != NULL && rb != NULL) {
            /* A rule with a type on one side only (a group that became a choice of
             * variants) changed its users, which report it. */
            if (ra->type != NULL && rb->type != NULL)
                diff_type(D, path, ra->type, rb->type, ra->loc, rb->loc, 0);
        } else if (rb != NULL) {
            report(D, rb->loc, path, "added", 1, 1, "rule");
        } else {
            report(D, ra->loc, path, "removed", ra->sym->referenced, 1,
                   ra->sym->referenced ? "rule" : "rule (nothing used it: a message type of its own)");
        }
    }
}

/* ---- driver ------------------------------------------------------------------------ */

static int run(schema *s, diff_direction dir, FILE *out)
{
    differ D;
    memset(&D, 0, sizeof D);
    D.o = &s[0];
    D.n = &s[1];
    D.out = out;
    D.steps = DIFF_STEPS;
    diff_rules(&D);
    fprintf(out, "%u changes: %u break backward, %u break forward\n", D.changes, D.back_breaks, D.fwd_breaks);
    switch (dir) {
    case DIFF_BACKWARD: return D.back_breaks > 0;
    case DIFF_FORWARD: return D.fwd_breaks > 0;
    default: return D.back_breaks > 0 || D.fwd_breaks > 0;
    }
}

int diff_schemas(const char *old_path, const char *new_path, diff_direction dir, FILE *out, diag_ctx *d)
{
    schema *s = calloc(2, sizeof *s);
    jmp_buf oom;
    volatile int rc = 2;
    if (s == NULL) {
        diag_plain(d, DIAG_ERROR, "cddlgen", "out of memory");
        return 2;
    }
    cddl_ctx_init(&s[0].ctx, d);
    cddl_ctx_init(&s[1].ctx, d);
    if (setjmp(oom) == 0) {
        int e0, e1;
        s[0].ctx.oom = &oom;
        s[1].ctx.oom = &oom;
        /* Both are checked, so one run shows the errors of both. */
        e0 = load(&s[0], old_path);
        e1 = load(&s[1], new_path);
        if (e0 == 0 && e1 == 0)
            rc = run(s, dir, out);
    } else {
        diag_plain(d, DIAG_ERROR, "cddlgen", "out of memory");
        rc = 2;
    }
    cddl_unit_deinit(&s[0].u);
    cddl_unit_deinit(&s[1].u);
    cddl_ctx_deinit(&s[0].ctx);
    cddl_ctx_deinit(&s[1].ctx);
    free(s);
    return rc;
}

int diff_command(int argc, char **argv)
{
    diag_ctx d;
    diff_direction dir = DIFF_BOTH;
    const char *files[2];
    int nfiles = 0, i, rc;
    diag_init(&d, stderr);
    for (i = 0; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--direction") == 0 || strncmp(a, "--direction=", 12) == 0) {
            if (a[11] == '=') {
                v = a + 12;
            } else if (i + 1 < argc) {
                v = argv[++i];
            } else {
                fprintf(stderr, "cddlgen: error: '--direction' needs a value\n");
                return 2;
            }
            if (strcmp(v, "backward") == 0)
                dir = DIFF_BACKWARD;
            else if (strcmp(v, "forward") == 0)
                dir = DIFF_FORWARD;
            else if (strcmp(v, "both") == 0)
                dir = DIFF_BOTH;
            else {
                fprintf(stderr, "cddlgen: error: --direction is backward, forward or both, not '%s'\n", v);
                return 2;
            }
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "cddlgen: error: unknown option '%s' for 'diff'\n", a);
            return 2;
        } else if (nfiles < 2) {
            files[nfiles++] = a;
        } else {
            nfiles++;
        }
    }
    if (nfiles != 2) {
        fprintf(stderr, "cddlgen: error: 'diff' needs OLD and NEW: cddlgen diff [--direction backward|forward] OLD NEW\n");
        return 2;
    }
    rc = diff_schemas(files[0], files[1], dir, stdout, &d);
    if (d.suppressed > 0)
        fprintf(stderr, "cddlgen: %d more errors not shown\n", d.suppressed);
    return rc;
}
