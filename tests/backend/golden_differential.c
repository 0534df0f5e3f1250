/*
 * golden_differential.c - generated code run: every golden schema's, the
 * ten upstream schemas' and our own.
 *
 * Each golden schema's committed output (golden/NAME.expected.{h,c}, which
 * backend-golden-NAME keeps equal to what cddlgen writes), the output for
 * each upstream schema (generated at build time) and generated/ap.c are
 * compiled in, with their straight-line decoders and validators. The same schema is also
 * interpreted: descriptors built in memory from the lowered model, which
 * have no generated code (what `cddlgen validate` runs). For every named
 * type of every schema, random instances are written from the type's
 * descriptor (mostly valid: members in schema order or shuffled, optional
 * ones present or not, both key spellings), and seeded mutations of each.
 * Both sides must give the same status, JSON Pointer, message and offset,
 * strict and tolerant, in every key case; a value both decode must encode
 * to the same bytes and pass validation on both sides. On the generated
 * side each decode path is also run alone (schema_internal.h): whatever
 * the generated decoders or the table-driven fast path accept, the exact
 * decoder accepts with a value that encodes the same; and whatever the
 * generated validators call valid, the tables do too.
 *
 * The table `goldens` (golden_table.h) is written by CMake from the golden
 * and upstream directories, so a new schema is tested without editing this
 * file.
 *
 * With arguments, `NAME TYPE valid|invalid FILE.jsonl`, it runs hand-written
 * instances instead: each line of FILE through golden NAME's generated
 * decoder for TYPE must be accepted (valid: then it validates, and encodes
 * to bytes that decode and encode to the same bytes) or refused (invalid),
 * and each decode path alone must agree with the exact decoder; the same
 * through NAME's --size output (plain build).
 *
 * The --size output of every schema (sz_NAME_types, descriptors only) runs
 * too, in the plain build: on every instance above it must give what the
 * fast output gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aps/schema.h"
#include "aps/types.h"
#include "schema_internal.h"
#include "cddl.h"
#include "frontend.h"
#include "interp.h"
#include "mutate.h"
#include "test.h"

typedef struct golden {
    const char *name;             /* the schema's name, also the prefix */
    const char *path;             /* NAME.cddl */
    const aps_named_type *types;  /* NAME_types, from the generated code */
    const size_t *count;
    const char *roots[4];         /* from NAME.args (`--root R`), NULL-terminated */
    const aps_named_type *size_types; /* sz_NAME_types: the same schema generated with --size */
    const size_t *size_count;
} golden;

#include "golden_table.h"

/* Instances per type: many for the small golden schemas, fewer for the big ones, whose types nest the small ones. */
enum { INSTANCES = 120, INSTANCES_BIG = 12, BIG = 50, MUTATIONS = 16, MAX_DEPTH = 6 };

static int chance(unsigned percent)
{
    return next_rand() % 100 < percent;
}

/* ---- instances --------------------------------------------------------------- */

/* A member name in the spelling `snake` asks for. */
static void write_name(aps_json_writer *w, const aps_field *f, int snake)
{
    if (snake)
        aps_json_write_key(w, f->snake, f->snake_len);
    else
        aps_json_write_key(w, f->key, f->key_len);
}

static void write_literal(aps_json_writer *w, const aps_literal *l)
{
    switch (l->kind) {
    case APS_LIT_TEXT:
        aps_json_write_string(w, l->text, l->len);
        break;
    case APS_LIT_INT:
        aps_json_write_int64(w, l->i);
        break;
    case APS_LIT_UINT:
        aps_json_write_uint64(w, l->u);
        break;
    case APS_LIT_FLOAT:
        aps_json_write_double(w, l->f);
        break;
    case APS_LIT_BOOL:
        aps_json_write_bool(w, l->i != 0);
        break;
    default:
        aps_json_write_null(w);
        break;
    }
}

/* A text of `n` bytes: ASCII mostly, some characters to escape, some UTF-8. */
static void write_text(aps_json_writer *w, size_t n)
{
    static const char *const pieces[] = { "a", "b", "Z", "0", "_", "-", ":", " ", "\"", "\\", "\n", "\xc3\xa9" };
    char buf[64];
    size_t at = 0;
    while (at < n && at < sizeof buf) {
        const char *p = pieces[next_rand() % (sizeof pieces / sizeof pieces[0])];
        size_t k = strlen(p);
        if (at + k > n || at + k > sizeof buf) { /* a piece that does not fit: one ASCII byte instead */
            p = "x";
            k = 1;
        }
        memcpy(buf + at, p, k);
        at += k;
    }
    aps_json_write_string(w, buf, at);
}

/* A count in [min, max], small. */
static size_t some_count(size_t min, size_t max)
{
    size_t hi = max - min > 3 ? min + 3 : max;
    return min + (size_t)(next_rand() % (hi - min + 1));
}

static void write_value(aps_json_writer *w, const aps_type *t, int snake, int depth);

static void write_any(aps_json_writer *w, int depth)
{
    switch (next_rand() % (depth < MAX_DEPTH ? 6 : 4)) {
    case 0:
        aps_json_write_null(w);
        break;
    case 1:
        aps_json_write_int64(w, (int64_t)(next_rand() % 2001) - 1000);
        break;
    case 2:
        write_text(w, next_rand() % 6);
        break;
    case 3:
        aps_json_write_bool(w, chance(50));
        break;
    case 4:
        aps_json_write_array_begin(w);
        write_any(w, depth + 1);
        aps_json_write_array_end(w);
        break;
    default:
        aps_json_write_object_begin(w);
        aps_json_write_key(w, "k", 1);
        write_any(w, depth + 1);
        aps_json_write_object_end(w);
        break;
    }
}

/* The members of struct `t` (and of a variant inlined into it), in schema order or shuffled. */
static void write_members(aps_json_writer *w, const aps_type *t, int snake, int depth, int open_object)
{
    const aps_field *order[64];
    size_t n = 0, i;
    const aps_type *variant = NULL;
    if (open_object)
        aps_json_write_object_begin(w);
    for (i = 0; i < t->u.st.nfields && n < 64; i++) {
        const aps_field *f = &t->u.st.fields[i];
        if ((f->flags & APS_F_OPTIONAL) && (depth >= MAX_DEPTH || chance(40)))
            continue;
        order[n++] = f;
    }
    if (chance(25)) /* members in another order: discriminants late, names out of turn */
        for (i = n; i > 1; i--) {
            size_t j = (size_t)(next_rand() % i);
            const aps_field *tmp = order[i - 1];
            order[i - 1] = order[j];
            order[j] = tmp;
        }
    for (i = 0; i < n; i++) {
        const aps_field *f = order[i];
        write_name(w, f, snake);
        if ((f->flags & APS_F_NULLABLE) && chance(20))
            aps_json_write_null(w);
        else
            write_value(w, f->type, snake, depth + 1);
    }
    if (t->u.st.variants != NULL && t->u.st.variants->u.un.nalts != 0) {
        const aps_type *un = t->u.st.variants;
        variant = un->u.un.alts[next_rand() % un->u.un.nalts];
        if (variant->kind == APS_K_STRUCT)
            write_members(w, variant, snake, depth, 0);
    }
    if (t->u.st.open && chance(30)) {
        aps_json_write_key(w, "zzExtra", 7);
        if (t->u.st.extras_type != NULL)
            write_value(w, t->u.st.extras_type, snake, depth + 1);
        else
            write_any(w, depth + 1);
    }
    if (open_object)
        aps_json_write_object_end(w);
}

static void write_value(aps_json_writer *w, const aps_type *t, int snake, int depth)
{
    size_t i, n;
    switch (t->kind) {
    case APS_K_ANY:
        write_any(w, depth);
        break;
    case APS_K_BOOL:
        aps_json_write_bool(w, chance(50));
        break;
    case APS_K_INT:
        if (chance(30))
            aps_json_write_int64(w, chance(50) ? t->u.i.min : t->u.i.max);
        else if (t->u.i.min <= 0 && t->u.i.max >= 100)
            aps_json_write_int64(w, (int64_t)(next_rand() % 100));
        else
            aps_json_write_int64(w, t->u.i.min);
        break;
    case APS_K_UINT:
        if (chance(30))
            aps_json_write_uint64(w, chance(50) ? t->u.u.min : t->u.u.max);
        else
            aps_json_write_uint64(w, t->u.u.min + next_rand() % 100 <= t->u.u.max ? t->u.u.min + next_rand() % 100
                                                                                  : t->u.u.min);
        break;
    case APS_K_FLOAT:
        if (t->u.f.has_min && !t->u.f.min_exclusive && chance(30))
            aps_json_write_double(w, t->u.f.min);
        else
            aps_json_write_double(w, t->u.f.has_min ? t->u.f.min + 0.5 : (double)(next_rand() % 1000) / 8.0);
        break;
    case APS_K_TEXT: {
        size_t max = t->u.text.max_len < t->u.text.min_len + 12 ? t->u.text.max_len : t->u.text.min_len + 12;
        write_text(w, t->u.text.min_len + (size_t)(next_rand() % (max - t->u.text.min_len + 1)));
        break;
    }
    case APS_K_LITERAL:
        write_literal(w, &t->u.lit);
        break;
    case APS_K_ENUM:
        if (t->u.enm.count == 0 || (t->u.enm.other != NULL && chance(20)))
            write_text(w, 4);
        else
            write_literal(w, &t->u.enm.values[next_rand() % t->u.enm.count]);
        break;
    case APS_K_STRUCT:
        write_members(w, t, snake, depth, 1);
        break;
    case APS_K_ARRAY:
        n = some_count(t->u.arr.min, t->u.arr.max);
        if (depth >= MAX_DEPTH)
            n = t->u.arr.min;
        aps_json_write_array_begin(w);
        for (i = 0; i < n; i++)
            write_value(w, t->u.arr.elem, snake, depth + 1);
        aps_json_write_array_end(w);
        break;
    case APS_K_MAP:
        n = some_count(t->u.map.min, t->u.map.max);
        if (depth >= MAX_DEPTH)
            n = t->u.map.min;
        aps_json_write_object_begin(w);
        for (i = 0; i < n; i++) {
            char key[16];
            int len = snprintf(key, sizeof key, "key%zu", i);
            aps_json_write_key(w, key, (size_t)len);
            write_value(w, t->u.map.value, snake, depth + 1);
        }
        aps_json_write_object_end(w);
        break;
    case APS_K_UNION:
        if (t->u.un.nalts == 0) {
            aps_json_write_null(w);
            break;
        }
        write_value(w, t->u.un.alts[next_rand() % t->u.un.nalts], snake, depth + 1);
        break;
    default:
        aps_json_write_null(w);
        break;
    }
}

/* ---- comparing --------------------------------------------------------------- */

/* The compact JSON of `value` (malloc'd, NULL when it cannot be encoded). */
static char *encode(const aps_type *t, const void *value, aps_key_case kc, size_t *len)
{
    aps_json_writer w;
    aps_encode_options eo;
    char *out = NULL;
    memset(&eo, 0, sizeof eo);
    eo.key_case = kc == APS_CASE_SNAKE ? APS_CASE_SNAKE : APS_CASE_SCHEMA;
    aps_json_writer_init(&w, NULL);
    if (aps_schema_encode(t, value, &w, &eo, NULL) == APS_OK && aps_json_writer_finish(&w, NULL) == APS_OK) {
        *len = aps_json_writer_len(&w);
        out = (char *)malloc(*len + 1);
        if (out != NULL)
            memcpy(out, aps_json_writer_data(&w), *len);
    }
    aps_json_writer_deinit(&w);
    return out;
}

static long generated_taken, table_taken;

/*
 * The generated type's fast paths alone, against its exact decoder: what a
 * fast path accepts, the exact decoder accepts, with the same value; what
 * the generated validator calls valid, the tables call valid.
 */
static int paths_agree(const aps_type *t, const char *json, size_t len, const aps_decode_options *opt,
                       aps_arena *arena)
{
    void *exact, *fast;
    aps_status st;
    size_t elen = 0, flen = 0;
    char *e, *f;
    int pass, ok = 1;
    aps_arena_reset(arena);
    exact = aps_arena_alloc(arena, t->size ? t->size : 1);
    fast = aps_arena_alloc(arena, t->size ? t->size : 1);
    if (exact == NULL || fast == NULL)
        return 0;
    st = aps_schema_priv_decode_exact(t, json, len, arena, exact, opt, NULL);
    e = st == APS_OK ? encode(t, exact, opt->key_case, &elen) : NULL;
    for (pass = 0; pass < 2; pass++) {
        bool generated = pass == 0;
        if (generated && t->fast == NULL)
            continue;
        memset(fast, 0, t->size ? t->size : 1);
        if (!aps_schema_priv_decode_fast(t, json, len, arena, fast, opt, generated))
            continue;
        if (generated)
            generated_taken++;
        else
            table_taken++;
        f = encode(t, fast, opt->key_case, &flen);
        if (st != APS_OK || e == NULL || f == NULL || flen != elen || memcmp(e, f, elen) != 0)
            ok = 0;
        if (t->valid != NULL && t->valid(fast, opt->strict, 0) &&
            aps_schema_priv_validate_tables(t, fast, opt->strict, NULL) != APS_OK)
            ok = 0;
        free(f);
    }
    free(e);
    return ok;
}

typedef struct outcome {
    aps_status status;
    aps_error err;
    char *encoded; /* malloc'd, when decoded */
    size_t encoded_len;
    aps_status valid;
} outcome;

static outcome run(const aps_type *t, const char *json, size_t len, const aps_decode_options *opt,
                   aps_arena *arena)
{
    outcome o;
    void *value;
    memset(&o, 0, sizeof o);
    aps_arena_reset(arena);
    value = aps_arena_alloc(arena, t->size ? t->size : 1);
    o.status = aps_schema_decode(t, json, len, arena, value, opt, &o.err);
    if (o.status == APS_OK) {
        o.valid = aps_schema_validate(t, value, opt->strict, NULL);
        o.encoded = encode(t, value, opt->key_case, &o.encoded_len);
    }
    return o;
}

static long compared, decoded, differed;

static void compare(const golden *g, const char *type, const aps_type *gen, const aps_type *interp,
                    const char *const labels[2], const char *json, size_t len, aps_arena *arena)
{
    int strict, kc;
    for (strict = 0; strict < 2; strict++) {
        for (kc = 0; kc < 3; kc++) {
            aps_decode_options opt;
            outcome a, b;
            memset(&opt, 0, sizeof opt);
            opt.strict = strict != 0;
            opt.key_case = (aps_key_case)kc;
            a = run(gen, json, len, &opt, arena);
            b = run(interp, json, len, &opt, arena);
            compared++;
            decoded += a.status == APS_OK;
            if (!paths_agree(gen, json, len, &opt, arena) && differed++ < 20)
                fprintf(stderr, "%s %s (%s, case %d): a fast path disagrees with the exact decoder on %.*s\n",
                        g->name, type, strict ? "strict" : "tolerant", kc, (int)(len < 300 ? len : 300), json);
            if (a.status != b.status || strcmp(a.err.pointer, b.err.pointer) != 0 ||
                strcmp(a.err.message, b.err.message) != 0 || a.err.offset != b.err.offset ||
                a.valid != b.valid || a.valid != APS_OK || a.encoded_len != b.encoded_len ||
                (a.encoded_len && memcmp(a.encoded, b.encoded, a.encoded_len) != 0)) {
                if (differed++ < 20)
                    fprintf(stderr,
                            "%s %s (%s, case %d) on %.*s\n  %s: %s at '%s' [%zu] %s; %.*s\n"
                            "  %s: %s at '%s' [%zu] %s; %.*s\n",
                            g->name, type, strict ? "strict" : "tolerant", kc, (int)(len < 300 ? len : 300), json,
                            labels[0], aps_status_str(a.status), a.err.pointer, a.err.offset, a.err.message,
                            (int)a.encoded_len, a.encoded ? a.encoded : "", labels[1], aps_status_str(b.status),
                            b.err.pointer, b.err.offset, b.err.message, (int)b.encoded_len,
                            b.encoded ? b.encoded : "");
            }
            free(a.encoded);
            free(b.encoded);
        }
    }
}

static long size_compared;

/*
 * Type i of schema g on one input: the fast output against the schema
 * interpreted, and the --size output (descriptors only) against the fast
 * output, so that both modes give the same statuses, errors, encodings and
 * verdicts on every instance.
 */
static void both(const golden *g, size_t i, const aps_type *interp, const char *json, size_t len, aps_arena *arena)
{
    static const char *const against_interp[2] = { "generated", "interpreted" };
    static const char *const against_fast[2] = { "--size", "fast" };
    const aps_named_type *nt = &g->types[i];
    long c = compared, d = decoded;
    compare(g, nt->name, nt->type, interp, against_interp, json, len, arena);
    if (g->size_types != NULL) {
        compare(g, nt->name, g->size_types[i].type, nt->type, against_fast, json, len, arena);
        /* main's shares of paths taken are of the first comparison's decodes */
        compared = c + (compared - c) / 2;
        decoded = d + (decoded - d) / 2;
        size_compared++;
    }
}

/* ---- schemas ------------------------------------------------------------------- */

/*
 * The interpreted type for entry `i` of the generated table. Instances of a
 * generic rule have names of their own (`Page<User, text>`), but a name can
 * still be listed twice (an anonymous generic argument, `[* text]`, lowered
 * once for each instance it is passed to); entries are in the module's
 * order, so the n-th entry of a name is the n-th type of the module with
 * that rule.
 */
static const aps_type *interpreted(cddl_ctx *ctx, const ir_module *mod, const golden *g, size_t i)
{
    ir_module from = *mod;
    size_t seen = 0, j;
    for (j = 0; j < i; j++)
        seen += strcmp(g->types[j].name, g->types[i].name) == 0;
    for (j = 0; j < mod->count; j++) {
        if (mod->types[j]->rule == NULL || strcmp(mod->types[j]->rule, g->types[i].name) != 0)
            continue;
        if (seen-- == 0) {
            from.types = mod->types + j;
            from.count = mod->count - j;
            return interp_type(ctx, &from, g->types[i].name);
        }
    }
    return NULL;
}

static int test_schema(const golden *g, aps_arena *arena, long *types_tested)
{
    /* the golden stderr files hold the warnings; errors still show */
    cddl_compile_options copt = { .roots = g->roots, .warn_off = CDDL_WARN_ALL };
    diag_ctx d;
    cddl_ctx ctx;
    jmp_buf oom;
    cddl_unit u;
    size_t i;
    int k, m, instances = *g->count > BIG ? INSTANCES_BIG : INSTANCES;
    while (copt.nroots < 4 && g->roots[copt.nroots] != NULL)
        copt.nroots++;
    diag_init(&d, stderr);
    cddl_ctx_init(&ctx, &d);
    cddl_unit_init_file(&u, g->path);
    if (cddl_compile(&ctx, &u, &copt) != CDDL_COMPILE_OK) {
        cddl_unit_deinit(&u);
        cddl_ctx_deinit(&ctx);
        return 1;
    }
    /* interp_type allocates from the arena too */
    if (setjmp(oom) != 0)
        return 1;
    ctx.oom = &oom;
    for (i = 0; i < *g->count; i++) {
        const aps_named_type *nt = &g->types[i];
        const aps_type *interp = interpreted(&ctx, &u.mod, g, i);
        if (interp == NULL)
            continue; /* a path such as "Event.params", reached through its parent */
        /* the --size output lists the same types in the same order */
        if (g->size_types != NULL &&
            (*g->size_count != *g->count || strcmp(g->size_types[i].name, nt->name) != 0)) {
            fprintf(stderr, "%s: the --size output's types differ from the fast output's at %zu\n", g->name, i);
            return 1;
        }
        (*types_tested)++;
        for (k = 0; k < instances; k++) {
            aps_json_writer w;
            char *mut;
            int snake = chance(30);
            aps_json_writer_init(&w, NULL);
            write_value(&w, interp, snake, 0);
            if (aps_json_writer_finish(&w, NULL) != APS_OK) {
                aps_json_writer_deinit(&w);
                continue;
            }
            both(g, i, interp, aps_json_writer_data(&w), aps_json_writer_len(&w), arena);
            mut = (char *)malloc(2 * aps_json_writer_len(&w) + 16);
            for (m = 0; mut != NULL && m < MUTATIONS; m++) {
                size_t n = mutate(aps_json_writer_data(&w), aps_json_writer_len(&w), mut);
                both(g, i, interp, mut, n, arena);
            }
            free(mut);
            aps_json_writer_deinit(&w);
        }
    }
    cddl_unit_deinit(&u);
    cddl_ctx_deinit(&ctx);
    return 0;
}

/* One line of an instances file: its verdict as the generated code gives it. Returns 0 when as wanted. */
static int instance(const aps_type *t, const char *json, size_t len, int want_valid, aps_arena *arena)
{
    void *v = calloc(1, t->size ? t->size : 1), *again = calloc(1, t->size ? t->size : 1);
    aps_decode_options opt;
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    int ok = 1;
    memset(&opt, 0, sizeof opt);
    opt.strict = true;
    aps_arena_reset(arena);
    st = aps_schema_decode(t, json, len, arena, v, &opt, &err);
    if ((st == APS_OK) != want_valid) {
        fprintf(stderr, "  %.*s: %s (%s)\n", (int)len, json, st == APS_OK ? "accepted" : "refused", err.message);
        ok = 0;
    } else if (st == APS_OK) {
        size_t n1 = 0, n2 = 0;
        char *e1 = NULL, *e2 = NULL;
        ok = aps_schema_validate(t, v, true, &err) == APS_OK && (e1 = encode(t, v, APS_CASE_SCHEMA, &n1)) != NULL &&
             aps_schema_decode(t, e1, n1, arena, again, &opt, &err) == APS_OK &&
             (e2 = encode(t, again, APS_CASE_SCHEMA, &n2)) != NULL && n1 == n2 && memcmp(e1, e2, n1) == 0;
        if (!ok)
            fprintf(stderr, "  %.*s: does not validate or round-trip (%s)\n", (int)len, json, err.message);
        free(e1);
        free(e2);
    }
    if (!paths_agree(t, json, len, &opt, arena)) {
        fprintf(stderr, "  %.*s: a fast path and the exact decoder disagree\n", (int)len, json);
        ok = 0;
    }
    free(v);
    free(again);
    return ok ? 0 : 1;
}

/* `NAME TYPE valid|invalid FILE`: see the header comment. */
static int run_instances(char **argv)
{
    const golden *g = NULL;
    const aps_type *t = NULL, *sz = NULL;
    size_t i, n, lines = 0, failed = 0;
    char line[65536];
    aps_arena arena;
    FILE *f;
    for (i = 0; i < sizeof goldens / sizeof goldens[0]; i++)
        if (strcmp(goldens[i].name, argv[1]) == 0)
            g = &goldens[i];
    for (i = 0; g != NULL && i < *g->count; i++) {
        if (strcmp(g->types[i].name, argv[2]) == 0) {
            t = g->types[i].type;
            /* the --size output of the same schema (when built): its types listed in the same order,
             * or the comparison would be of different types, which is a failure, not a skip */
            if (g->size_types != NULL) {
                if (*g->size_count != *g->count || strcmp(g->size_types[i].name, argv[2]) != 0) {
                    fprintf(stderr, "golden %s: the --size output lists its types differently "
                                    "(%zu types against %zu)\n",
                            argv[1], (size_t)*g->size_count, (size_t)*g->count);
                    return 1;
                }
                sz = g->size_types[i].type;
            }
        }
    }
    if (t == NULL || (f = fopen(argv[4], "r")) == NULL) {
        fprintf(stderr, "no golden %s with type %s, or no file %s\n", argv[1], argv[2], argv[4]);
        return 2;
    }
    aps_arena_init(&arena, NULL);
    while (fgets(line, sizeof line, f) != NULL) {
        n = strlen(line);
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            n--;
        if (n == 0)
            continue;
        lines++;
        failed += (size_t)instance(t, line, n, strcmp(argv[3], "valid") == 0, &arena);
        if (sz != NULL && instance(sz, line, n, strcmp(argv[3], "valid") == 0, &arena) != 0) {
            fprintf(stderr, "  (the --size output's verdict, above)\n");
            failed++;
        }
    }
    fclose(f);
    aps_arena_deinit(&arena);
    printf("%s %s: %zu lines%s, %zu not %s\n", argv[1], argv[2], lines,
           sz != NULL ? " (each through the fast and the --size output)" : "", failed, argv[3]);
    return failed == 0 && lines > 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    aps_arena arena;
    size_t i;
    long types = 0;
    if (argc == 5)
        return run_instances(argv);
    aps_arena_init(&arena, NULL);
    for (i = 0; i < sizeof goldens / sizeof goldens[0]; i++) {
        long before = types;
        CHECK_INT(test_schema(&goldens[i], &arena, &types), 0);
        CHECK(types > before); /* every schema has a named type the interpreter knows */
    }
    printf("%zu schemas, %ld types, %ld comparisons, %ld decoded (generated decoders took %ld, the "
           "table-driven fast path %ld), %ld inputs also through the --size output, %ld differences\n",
           sizeof goldens / sizeof goldens[0], types, compared, decoded, generated_taken, table_taken,
           size_compared, differed);
    /* the instances are valid often enough that every path is exercised */
    CHECK(decoded > compared / 10);
    CHECK(generated_taken > decoded / 4);
    CHECK(table_taken > decoded / 4);
    for (i = 0; i < sizeof goldens / sizeof goldens[0]; i++)
        if (goldens[i].size_types != NULL) {
            CHECK(size_compared > 0); /* built with --size rows (not in the sanitizer build) */
            break;
        }
    CHECK(differed == 0);
    aps_arena_deinit(&arena);
    return test_report();
}
