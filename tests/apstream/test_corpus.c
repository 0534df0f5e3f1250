/*
 * test_corpus.c - the generated codecs (generated/ap.c) against the protocol
 * corpus (tests/corpus/protocol), with jansson as an independent oracle.
 *
 * valid/   every file, as the rule its MANIFEST.tsv names (Message or Command):
 *          strict decode -> validate -> encode (E1) -> decode -> encode (E2):
 *          E1 == E2 byte for byte, and E1 JSON-equal to the input (jansson;
 *          aps_json_raw_equal as well, and alone where jansson cannot load
 *          the input: integers beyond int64, doubles beyond DBL_MAX).
 *          snake_case: encode with APS_CASE_SNAKE, decode that with
 *          APS_CASE_SNAKE, encode in schema case: == E1 byte for byte.
 * invalid/ every file must fail to decode with err.pointer exactly the
 *          manifest's pointer ("" when the column is empty).
 * renamed  every valid file whose text jansson can load gets its schema keys
 *          renamed to snake_case by a walk of the jansson tree that follows
 *          the type descriptors and the decoded value (so keys inside `any`
 *          values and unknown members of open maps keep their spelling,
 *          exactly what a snake_case server sends). Then:
 *          - APS_CASE_SNAKE and APS_CASE_EITHER decode it, and re-encoding in
 *            schema case gives the same bytes as decoding the unrenamed tree
 *            (dumped by jansson the same way) and re-encoding it;
 *          - the APS_CASE_SNAKE encoding of the original is JSON-equal to it;
 *          - APS_CASE_SCHEMA, when some key changed: the check we pinned is
 *            "a snake key is never read as its camelCase member": decoding
 *            either fails, or succeeds and re-encodes to a value JSON-equal
 *            to the renamed text (every renamed key kept as an unknown
 *            member of an open map). It must fail when a renamed key belongs
 *            to a closed map or is a required member, outside any untagged
 *            choice (where another alternative, like the open EmptyResult,
 *            may legitimately accept the object).
 * inline   cases the corpus lacks: unknown members with nested values and
 *          escaped or non-ASCII names, map keys kept as written under
 *          APS_CASE_SNAKE, one member in both spellings under
 *          APS_CASE_EITHER, the other spelling kept as an unknown member,
 *          unknown variants in strict and tolerant mode.
 *
 * Usage: apstream-corpus CORPUS_DIR (the folder holding valid/ and invalid/).
 * Every failure names its file.
 */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "ap.h"
#include "test_util.h"

/* ---- small helpers -------------------------------------------------------- */

/* The file `name` of the corpus folder `dir` (test_read_file). */
static char *read_all(const char *dir, const char *name, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return test_read_file(path, len);
}

/* A failure about one file: counted by CHECK, explained here. */
static void fail(const char *file, const char *what, const aps_error *err)
{
    ++test_checks_run;
    ++test_checks_failed;
    if (err != NULL)
        fprintf(stderr, "FAIL %s: %s: %s: %s (%s)\n", file, what, err->pointer[0] ? err->pointer : "(root)",
                err->message, aps_status_str(err->code));
    else
        fprintf(stderr, "FAIL %s: %s\n", file, what);
}

static void pass(void)
{
    ++test_checks_run;
}

static const aps_type *rule_type(const char *rule)
{
    if (strcmp(rule, "Message") == 0)
        return &ap_message_type;
    if (strcmp(rule, "Command") == 0)
        return &ap_command_type;
    return NULL;
}

/* Storage for one decoded value of either rule. */
typedef union value_buf {
    ap_message_t message;
    ap_command_t command;
} value_buf;

/*
 * The generated entry points, behind one signature so a table can pick them
 * by rule: they are what applications call, so the test goes through them.
 */
static aps_status decode(const aps_type *t, const char *json, size_t len, aps_arena *a, value_buf *v,
                         aps_key_case kc, bool strict, aps_error *err)
{
    aps_decode_options o;
    memset(&o, 0, sizeof o);
    o.key_case = kc;
    o.strict = strict;
    aps_error_clear(err);
    if (t == &ap_message_type)
        return ap_message_decode_opts(json, len, a, &v->message, &o, err);
    return ap_command_decode_opts(json, len, a, &v->command, &o, err);
}

static aps_status validate(const aps_type *t, const value_buf *v, bool strict, aps_error *err)
{
    aps_error_clear(err);
    if (t == &ap_message_type)
        return ap_message_validate(&v->message, strict, err);
    return ap_command_validate(&v->command, strict, err);
}

/* Encodes into a reset writer and finishes it; APS_OK or the first failure. */
static aps_status encode(const aps_type *t, const value_buf *v, aps_json_writer *w, aps_key_case kc)
{
    aps_encode_options o;
    aps_status st;
    memset(&o, 0, sizeof o);
    o.key_case = kc;
    aps_json_writer_reset(w);
    if (t == &ap_message_type)
        st = ap_message_encode_opts(&v->message, w, &o, NULL);
    else
        st = ap_command_encode_opts(&v->command, w, &o, NULL);
    if (st == APS_OK)
        st = aps_json_writer_finish(w, NULL);
    return st;
}

static int same_bytes(const aps_json_writer *a, const aps_json_writer *b)
{
    return aps_json_writer_len(a) == aps_json_writer_len(b) &&
           memcmp(aps_json_writer_data(a), aps_json_writer_data(b), aps_json_writer_len(a)) == 0;
}

/* jansson's view of a text: NUL in strings allowed, integers must fit json_int_t. */
static json_t *jload(const char *s, size_t len)
{
    json_error_t je;
    return json_loadb(s, len, JSON_ALLOW_NUL, &je);
}

/* The tree as compact text, owned by the caller (free()). */
static char *jdump(const json_t *j, size_t *len)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
    *len = s ? strlen(s) : 0;
    return s;
}

/* jansson JSON equality of a tree and a writer's output. */
static int jequal_writer(const json_t *j, const aps_json_writer *w)
{
    json_t *k = jload(aps_json_writer_data(w), aps_json_writer_len(w));
    int eq = k != NULL && json_equal((json_t *)j, k);
    json_decref(k);
    return eq;
}

/* ---- schema-directed snake_case renaming ------------------------------------ */

typedef struct rename_state {
    int changed;         /* some key changed spelling */
    int must_reject;     /* a changed key sits in a closed map or is required, outside untagged choices */
    int in_untagged;     /* depth of untagged choices around the current value */
} rename_state;

static void rename_value(const aps_type *t, const void *v, json_t *j, rename_state *rs);

/* Renames the named members of the object `j` (a struct of type `t` decoded into `v`) in place. */
static void rename_struct(const aps_type *t, const void *v, json_t *j, rename_state *rs)
{
    const char *base = v;
    size_t i;
    if (!json_is_object(j))
        return;
    for (i = 0; i < t->u.st.nfields; i++) {
        const aps_field *f = &t->u.st.fields[i];
        json_t *member = json_object_get(j, f->key);
        if (member == NULL)
            continue;
        if ((f->flags & APS_F_LITERAL) == 0 && !((f->flags & APS_F_NULLABLE) && *(const bool *)(base + f->null_offset)))
            rename_value(f->type, base + f->offset, member, rs);
        if (strcmp(f->key, f->snake) != 0) {
            /* Rebuild in order, so the renamed key keeps its place. */
            json_t *copy = json_object();
            const char *k;
            json_t *val;
            json_object_foreach(j, k, val) {
                json_object_set(copy, strcmp(k, f->key) == 0 ? f->snake : k, val);
            }
            json_object_clear(j);
            json_object_update(j, copy);
            json_decref(copy);
            rs->changed = 1;
            if (rs->in_untagged == 0 && (!t->u.st.open || (f->flags & APS_F_OPTIONAL) == 0))
                rs->must_reject = 1;
        }
    }
    if (t->u.st.variants != NULL)
        rename_value(t->u.st.variants, base + t->u.st.variants_offset, j, rs);
}

static void rename_value(const aps_type *t, const void *v, json_t *j, rename_state *rs)
{
    const char *base = v;
    size_t i;
    switch (t->kind) {
    case APS_K_STRUCT:
        rename_struct(t, v, j, rs);
        break;
    case APS_K_ARRAY: {
        const aps_array *a = v;
        for (i = 0; i < a->count && i < json_array_size(j); i++)
            rename_value(t->u.arr.elem, (const char *)a->items + i * t->u.arr.elem->size, json_array_get(j, i), rs);
        break;
    }
    case APS_K_MAP: {
        const aps_array *a = v;
        for (i = 0; i < a->count; i++) {
            const char *entry = (const char *)a->items + i * t->u.map.entry_size;
            const aps_slice *key = (const aps_slice *)entry;
            json_t *member = json_object_getn(j, key->ptr, key->len);
            if (member != NULL)
                rename_value(t->u.map.value, entry + t->u.map.value_offset, member, rs);
        }
        break;
    }
    case APS_K_UNION: {
        int kind = *(const int *)(base + t->u.un.kind_offset);
        if (kind < 1 || (size_t)kind > t->u.un.nalts)
            break; /* an unknown variant is kept as raw JSON: nothing named inside */
        if (t->u.un.cls == APS_U_UNTAGGED)
            rs->in_untagged++;
        rename_value(t->u.un.alts[kind - 1], base + t->u.un.payload_offset, j, rs);
        if (t->u.un.cls == APS_U_UNTAGGED)
            rs->in_untagged--;
        break;
    }
    default:
        break; /* scalars, literals, enums and `any` have no member names of the schema */
    }
}

/* ---- valid/ ------------------------------------------------------------------ */

typedef struct ctx {
    aps_arena arena, arena2;
    aps_json_writer e1, e2, es, tmp;
    int jansson_fallbacks;
    int renamed_skipped;
    int renamed_checked;
    int schema_rejected;
    int schema_kept_extras;
} ctx;

/* The renamed-keys checks of one file (see the top comment). */
static void check_renamed(ctx *c, const char *file, const aps_type *t, const value_buf *v, const json_t *orig)
{
    json_t *plain = json_deep_copy(orig), *snake = json_deep_copy(orig);
    rename_state rs;
    char *plain_text = NULL, *snake_text = NULL;
    size_t plain_len, snake_len;
    value_buf w;
    aps_error err = APS_ERROR_INIT;
    static const aps_key_case cases[] = { APS_CASE_SNAKE, APS_CASE_EITHER };
    size_t k;
    memset(&rs, 0, sizeof rs);
    rename_value(t, v, snake, &rs);
    plain_text = jdump(plain, &plain_len);
    snake_text = jdump(snake, &snake_len);
    if (plain_text == NULL || snake_text == NULL) {
        fail(file, "jansson cannot dump the tree", NULL);
        goto out;
    }
    c->renamed_checked++;

    /* The APS_CASE_SNAKE encoding spells the keys as the jansson walk did. */
    if (encode(t, v, &c->es, APS_CASE_SNAKE) != APS_OK || !jequal_writer(snake, &c->es))
        fail(file, "the snake_case encoding is not JSON-equal to the renamed input", NULL);
    else
        pass();

    /* Baseline: the unrenamed tree as jansson prints it, decoded and re-encoded. */
    aps_arena_reset(&c->arena2);
    if (decode(t, plain_text, plain_len, &c->arena2, &w, APS_CASE_SCHEMA, true, &err) != APS_OK ||
        encode(t, &w, &c->e2, APS_CASE_SCHEMA) != APS_OK) {
        fail(file, "jansson's dump of the input does not decode", &err);
        goto out;
    }
    for (k = 0; k < 2; k++) {
        const char *name = cases[k] == APS_CASE_SNAKE ? "APS_CASE_SNAKE" : "APS_CASE_EITHER";
        char what[128];
        aps_arena_reset(&c->arena);
        if (decode(t, snake_text, snake_len, &c->arena, &w, cases[k], true, &err) != APS_OK) {
            snprintf(what, sizeof what, "%s decode of the renamed input", name);
            fail(file, what, &err);
            fprintf(stderr, "     renamed input: %s\n", snake_text);
            continue;
        }
        if (validate(t, &w, true, &err) != APS_OK) {
            snprintf(what, sizeof what, "%s decode of the renamed input does not validate", name);
            fail(file, what, &err);
        } else if (encode(t, &w, &c->tmp, APS_CASE_SCHEMA) != APS_OK || !same_bytes(&c->tmp, &c->e2)) {
            snprintf(what, sizeof what, "%s decode of the renamed input re-encodes differently", name);
            fail(file, what, NULL);
            fprintf(stderr, "     want: %.*s\n     got:  %.*s\n", (int)aps_json_writer_len(&c->e2),
                    aps_json_writer_data(&c->e2), (int)aps_json_writer_len(&c->tmp), aps_json_writer_data(&c->tmp));
        } else {
            pass();
        }
    }

    /* APS_CASE_SCHEMA on the renamed text. */
    aps_arena_reset(&c->arena);
    if (decode(t, snake_text, snake_len, &c->arena, &w, APS_CASE_SCHEMA, true, &err) != APS_OK) {
        if (!rs.changed)
            fail(file, "APS_CASE_SCHEMA rejects a text where no key changed", &err);
        else
            pass(), c->schema_rejected++;
    } else if (validate(t, &w, true, &err) != APS_OK) {
        fail(file, "APS_CASE_SCHEMA decode of the renamed input does not validate", &err);
    } else if (rs.must_reject) {
        fail(file, "APS_CASE_SCHEMA accepts snake_case keys of a closed map or a required member", NULL);
    } else if (encode(t, &w, &c->tmp, APS_CASE_SCHEMA) != APS_OK || !jequal_writer(snake, &c->tmp)) {
        fail(file, "APS_CASE_SCHEMA accepted the renamed text but did not keep every key as written", NULL);
        fprintf(stderr, "     got: %.*s\n", (int)aps_json_writer_len(&c->tmp), aps_json_writer_data(&c->tmp));
    } else {
        pass();
        if (rs.changed)
            c->schema_kept_extras++;
    }
out:
    free(plain_text);
    free(snake_text);
    json_decref(plain);
    json_decref(snake);
}

static void check_valid(ctx *c, const char *dir, const char *file, const aps_type *t)
{
    size_t len;
    char *text = read_all(dir, file, &len);
    value_buf v1, v2, v3;
    aps_error err = APS_ERROR_INIT;
    json_t *jin = NULL, *jout = NULL;
    aps_json_raw a, b;
    int eq = 0;
    if (text == NULL) {
        fail(file, "cannot read", NULL);
        return;
    }
    aps_arena_reset(&c->arena);
    aps_arena_reset(&c->arena2);
    if (decode(t, text, len, &c->arena, &v1, APS_CASE_SCHEMA, true, &err) != APS_OK) {
        fail(file, "strict decode", &err);
        goto out;
    }
    if (validate(t, &v1, true, &err) != APS_OK) {
        fail(file, "validate after decode", &err);
        goto out;
    }
    if (encode(t, &v1, &c->e1, APS_CASE_SCHEMA) != APS_OK) {
        fail(file, "encode", NULL);
        goto out;
    }
    if (decode(t, aps_json_writer_data(&c->e1), aps_json_writer_len(&c->e1), &c->arena2, &v2, APS_CASE_SCHEMA,
               true, &err) != APS_OK) {
        fail(file, "decode of the encoding", &err);
        goto out;
    }
    if (validate(t, &v2, true, &err) != APS_OK)
        fail(file, "validate of the decoded encoding", &err);
    if (encode(t, &v2, &c->e2, APS_CASE_SCHEMA) != APS_OK || !same_bytes(&c->e1, &c->e2)) {
        fail(file, "second encoding differs from the first", NULL);
        fprintf(stderr, "     first:  %.*s\n     second: %.*s\n", (int)aps_json_writer_len(&c->e1),
                aps_json_writer_data(&c->e1), (int)aps_json_writer_len(&c->e2), aps_json_writer_data(&c->e2));
    } else {
        pass();
    }

    /* The encoding says what the input said: jansson first, the runtime's own comparison as well. */
    a.ptr = text;
    a.len = len;
    b.ptr = aps_json_writer_data(&c->e1);
    b.len = aps_json_writer_len(&c->e1);
    if (aps_json_raw_equal(a, b, &eq) != APS_OK || !eq) {
        fail(file, "encoding not JSON-equal to the input (aps_json_raw_equal)", NULL);
        fprintf(stderr, "     input:    %.*s     encoding: %.*s\n", (int)len, text, (int)b.len, b.ptr);
    } else {
        pass();
    }
    jin = jload(text, len);
    if (jin == NULL) {
        c->jansson_fallbacks++;
        printf("note: jansson cannot load %s (number beyond its range): compared by aps_json_raw_equal only\n",
               file);
    } else {
        jout = jload(b.ptr, b.len);
        if (jout == NULL || !json_equal(jin, jout)) {
            fail(file, "encoding not JSON-equal to the input (jansson)", NULL);
            fprintf(stderr, "     input:    %.*s     encoding: %.*s\n", (int)len, text, (int)b.len, b.ptr);
        } else {
            pass();
        }
    }

    /* snake_case out and back in. */
    aps_arena_reset(&c->arena2);
    if (encode(t, &v1, &c->es, APS_CASE_SNAKE) != APS_OK) {
        fail(file, "snake_case encode", NULL);
    } else if (decode(t, aps_json_writer_data(&c->es), aps_json_writer_len(&c->es), &c->arena2, &v3,
                      APS_CASE_SNAKE, true, &err) != APS_OK) {
        fail(file, "APS_CASE_SNAKE decode of the snake_case encoding", &err);
        fprintf(stderr, "     snake: %.*s\n", (int)aps_json_writer_len(&c->es), aps_json_writer_data(&c->es));
    } else if (encode(t, &v3, &c->e2, APS_CASE_SCHEMA) != APS_OK || !same_bytes(&c->e1, &c->e2)) {
        fail(file, "snake_case round trip re-encodes differently", NULL);
    } else {
        pass();
    }

    if (jin != NULL)
        check_renamed(c, file, t, &v1, jin);
    else
        c->renamed_skipped++;
out:
    json_decref(jin);
    json_decref(jout);
    free(text);
}

/* ---- invalid/ ------------------------------------------------------------------ */

static void check_invalid(ctx *c, const char *dir, const char *file, const aps_type *t, const char *pointer)
{
    size_t len;
    char *text = read_all(dir, file, &len);
    value_buf v;
    aps_error err = APS_ERROR_INIT;
    if (text == NULL) {
        fail(file, "cannot read", NULL);
        return;
    }
    aps_arena_reset(&c->arena);
    if (decode(t, text, len, &c->arena, &v, APS_CASE_SCHEMA, true, &err) == APS_OK) {
        if (validate(t, &v, true, &err) == APS_OK)
            fail(file, "invalid input decodes and validates", NULL);
        else
            fail(file, "invalid input decodes; only validate rejects it", &err);
    } else if (strcmp(err.pointer, pointer) != 0) {
        char what[APS_ERROR_POINTER_MAX + 64];
        snprintf(what, sizeof what, "pointer should be \"%s\"", pointer);
        fail(file, what, &err);
    } else {
        pass();
    }
    free(text);
}

/* ---- MANIFEST.tsv ---------------------------------------------------------------- */

/*
 * Calls `fn` for each data row of DIR/MANIFEST.tsv with its tab-separated
 * columns. Columns may be empty (the invalid manifest's root pointer), so the
 * row is split on every tab, never on runs of them.
 */
static int for_each_row(ctx *c, const char *dir, void (*fn)(ctx *, const char *, char **, size_t))
{
    size_t len, rows = 0;
    char *text = read_all(dir, "MANIFEST.tsv", &len), *line, *next;
    if (text == NULL) {
        fprintf(stderr, "FAIL %s/MANIFEST.tsv: cannot read\n", dir);
        return -1;
    }
    for (line = text; line < text + len; line = next) {
        char *cols[8];
        size_t n = 0;
        char *p = line, *nl = memchr(line, '\n', (size_t)(text + len - line));
        next = nl ? nl + 1 : text + len;
        if (nl)
            *nl = '\0';
        if (nl && nl > line && nl[-1] == '\r')
            nl[-1] = '\0';
        if (*line == '\0' || strncmp(line, "file\t", 5) == 0)
            continue;
        for (;;) {
            char *tab = strchr(p, '\t');
            if (n < 8)
                cols[n++] = p;
            if (tab == NULL)
                break;
            *tab = '\0';
            p = tab + 1;
        }
        fn(c, dir, cols, n);
        rows++;
    }
    free(text);
    return (int)rows;
}

static void valid_row(ctx *c, const char *dir, char **cols, size_t n)
{
    const aps_type *t = n >= 2 ? rule_type(cols[1]) : NULL;
    if (t == NULL) {
        fail(n ? cols[0] : "?", "manifest row without a known rule", NULL);
        return;
    }
    check_valid(c, dir, cols[0], t);
}

static void invalid_row(ctx *c, const char *dir, char **cols, size_t n)
{
    const aps_type *t = n >= 3 ? rule_type(cols[1]) : NULL;
    if (t == NULL) {
        fail(n ? cols[0] : "?", "manifest row without a rule and a pointer column", NULL);
        return;
    }
    check_invalid(c, dir, cols[0], t, cols[2]);
}

/* ---- cases the corpus does not hold ------------------------------------------------- */

static void check_text(ctx *c, const char *name, const aps_type *t, const char *json, aps_key_case kc, bool strict,
                       aps_status want, const char *want_pointer, const char *want_encoding)
{
    value_buf v;
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    aps_arena_reset(&c->arena);
    st = decode(t, json, strlen(json), &c->arena, &v, kc, strict, &err);
    if (st != want) {
        char what[96];
        snprintf(what, sizeof what, "decode gave %s, want %s", aps_status_str(st), aps_status_str(want));
        fail(name, what, &err);
        return;
    }
    if (st != APS_OK) {
        if (want_pointer != NULL && strcmp(err.pointer, want_pointer) != 0)
            fail(name, "wrong pointer", &err);
        else
            pass();
        return;
    }
    if (validate(t, &v, strict, &err) != APS_OK) {
        fail(name, "decoded but does not validate", &err);
        return;
    }
    if (want_encoding != NULL) {
        if (encode(t, &v, &c->e1, APS_CASE_SCHEMA) != APS_OK ||
            aps_json_writer_len(&c->e1) != strlen(want_encoding) ||
            memcmp(aps_json_writer_data(&c->e1), want_encoding, strlen(want_encoding)) != 0) {
            fail(name, "encoding differs", NULL);
            fprintf(stderr, "     want: %s\n     got:  %.*s\n", want_encoding, (int)aps_json_writer_len(&c->e1),
                    aps_json_writer_data(&c->e1));
        } else {
            pass();
        }
    }
}

static void check_extra_cases(ctx *c)
{
    const aps_type *M = &ap_message_type, *C = &ap_command_type;
    /* Unknown members of open maps survive, whatever they hold and however their names are written. */
    check_text(c, "extras: nested values, escaped and non-ASCII names", M,
               "{\"type\":\"event\",\"method\":\"custom\",\"x\\u0041\":{\"deep\":[1,2.50,{\"k\":null}],\"e\":\"\\u00e9\"},"
               "\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{\"name\":\"n\",\"payload\":7,"
               "\"caf\xC3\xA9\":true}}}",
               APS_CASE_SCHEMA, true, APS_OK, NULL,
               "{\"type\":\"event\",\"method\":\"custom\",\"params\":{\"namespace\":[],\"timestamp\":1,"
               "\"data\":{\"name\":\"n\",\"payload\":7,\"caf\xC3\xA9\":true}},"
               "\"xA\":{\"deep\":[1,2.50,{\"k\":null}],\"e\":\"\\u00e9\"}}");
    check_text(c, "extras: Command top level, map keys as written, snake spelling", C,
               "{\"id\":3,\"method\":\"run.start\",\"trace_id\":\"t\",\"params\":{\"assistant_id\":\"a\","
               "\"input\":null,\"config\":{\"futureFlag\":[true]}}}",
               APS_CASE_SNAKE, true, APS_OK, NULL,
               "{\"id\":3,\"method\":\"run.start\",\"params\":{\"assistantId\":\"a\",\"input\":null,"
               "\"config\":{\"futureFlag\":[true]}},\"trace_id\":\"t\"}");
    /* One member given in both spellings. */
    check_text(c, "either: both spellings of eventId", M,
               "{\"type\":\"event\",\"eventId\":\"1\",\"event_id\":\"1\",\"method\":\"custom\",\"params\":"
               "{\"namespace\":[],\"timestamp\":1,\"data\":{\"payload\":0}}}",
               APS_CASE_EITHER, true, APS_E_DUPLICATE, "/event_id", NULL);
    /* With the schema spelling, a snake key in an open map is just an unknown member ... */
    check_text(c, "schema case: snake key of an open map is an extra", M,
               "{\"type\":\"event\",\"event_id\":\"1\",\"method\":\"custom\",\"params\":"
               "{\"namespace\":[],\"timestamp\":1,\"data\":{\"payload\":0}}}",
               APS_CASE_SCHEMA, true, APS_OK, NULL,
               "{\"type\":\"event\",\"method\":\"custom\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{\"payload\":0}},"
               "\"event_id\":\"1\"}");
    /* ... and with the snake spelling, a camelCase key is one too. */
    check_text(c, "snake case: camelCase key of an open map is an extra", M,
               "{\"type\":\"event\",\"eventId\":\"1\",\"method\":\"custom\",\"params\":"
               "{\"namespace\":[],\"timestamp\":1,\"data\":{\"payload\":0}}}",
               APS_CASE_SNAKE, true, APS_OK, NULL,
               "{\"type\":\"event\",\"method\":\"custom\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{\"payload\":0}},"
               "\"eventId\":\"1\"}");
    /* Unknown variants: strict rejects at the discriminant, tolerant keeps the raw text. */
    check_text(c, "strict: unknown method", M,
               "{\"type\":\"event\",\"method\":\"telemetry\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{\"payload\":0}}}",
               APS_CASE_SCHEMA, true, APS_E_UNKNOWN, "/method", NULL);
    check_text(c, "tolerant: unknown method kept", M,
               "{\"type\":\"event\",\"method\":\"telemetry\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{\"z\":1}}}",
               APS_CASE_SCHEMA, false, APS_OK, NULL,
               "{\"type\":\"event\",\"method\":\"telemetry\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{\"z\":1}}}");
}

int main(int argc, char **argv)
{
    ctx c;
    char valid[4096], invalid[4096];
    int nv, ni;
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    memset(&c, 0, sizeof c);
    aps_arena_init(&c.arena, NULL);
    aps_arena_init(&c.arena2, NULL);
    aps_json_writer_init(&c.e1, NULL);
    aps_json_writer_init(&c.e2, NULL);
    aps_json_writer_init(&c.es, NULL);
    aps_json_writer_init(&c.tmp, NULL);
    snprintf(valid, sizeof valid, "%s/valid", argv[1]);
    snprintf(invalid, sizeof invalid, "%s/invalid", argv[1]);

    nv = for_each_row(&c, valid, valid_row);
    ni = for_each_row(&c, invalid, invalid_row);
    CHECK(nv > 100);
    CHECK(ni > 50);
    check_extra_cases(&c);
    /* The renamed check must really have run, and seen both outcomes of the schema spelling. */
    CHECK(c.renamed_checked > 100);
    CHECK(c.schema_rejected > 0);
    printf("%d valid and %d invalid files; snake-renamed: %d checked (%d skipped: jansson cannot load), "
           "schema spelling rejected %d, kept snake keys as extras in %d; jansson fallbacks %d\n",
           nv, ni, c.renamed_checked, c.renamed_skipped, c.schema_rejected, c.schema_kept_extras,
           c.jansson_fallbacks);

    aps_json_writer_deinit(&c.e1);
    aps_json_writer_deinit(&c.e2);
    aps_json_writer_deinit(&c.es);
    aps_json_writer_deinit(&c.tmp);
    aps_arena_deinit(&c.arena);
    aps_arena_deinit(&c.arena2);
    return test_report();
}
