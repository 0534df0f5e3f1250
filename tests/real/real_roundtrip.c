/*
 * real_roundtrip.c - runs real protocol messages through the C code cddlgen
 * generated from a real specification (WebDriver BiDi, AT Driver).
 *
 * Usage: real-roundtrip-SPEC TYPE valid|invalid FILE.jsonl
 *
 * TYPE is a rule of the schema, found in the generated table of named types
 * (PREFIX_types), so one driver serves every rule of its schema. For each
 * line of FILE:
 *   valid:   decode (strict: an unknown variant is an error), validate,
 *            encode, decode the encoding again, validate, encode again; the
 *            two encodings must be the same bytes, and the first must be the
 *            same JSON value as the input (jansson, member order ignored,
 *            numbers compared as doubles): nothing dropped, nothing made up.
 *   invalid: decoding or validating must fail.
 * Prints one line per failing message and a count; exits 1 when any failed.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aps/arena.h"
#include "aps/json.h"
#include "aps/schema.h"
#include "aps/types.h"
#include "real.h"
#include "test_util.h"

static const aps_type *find_type(const char *name)
{
    size_t i;
    for (i = 0; i < real_types_count; i++)
        if (strcmp(real_types[i].name, name) == 0)
            return real_types[i].type;
    return NULL;
}

/* Decodes and validates `json`; on success writes its encoding to `w`. */
static aps_status decode_check_encode(const aps_type *t, const char *json, size_t len, aps_arena *arena,
                                      aps_json_writer *w, aps_error *err)
{
    aps_decode_options opt;
    void *value = aps_arena_alloc(arena, t->size ? t->size : 1);
    aps_status st;
    memset(&opt, 0, sizeof opt);
    opt.strict = true;
    if (value == NULL)
        return APS_E_NOMEM;
    if ((st = aps_schema_decode(t, json, len, arena, value, &opt, err)) != APS_OK)
        return st;
    if ((st = aps_schema_validate(t, value, true, err)) != APS_OK)
        return st;
    if ((st = aps_schema_encode(t, value, w, NULL, err)) != APS_OK)
        return st;
    return aps_json_writer_finish(w, err);
}

static int same_json(const char *a, size_t alen, const char *b, size_t blen)
{
    json_t *ja = json_loadb(a, alen, JSON_DECODE_INT_AS_REAL, NULL);
    json_t *jb = json_loadb(b, blen, JSON_DECODE_INT_AS_REAL, NULL);
    int eq = ja != NULL && jb != NULL && json_equal(ja, jb);
    json_decref(ja);
    json_decref(jb);
    return eq;
}

/* Returns NULL when the message behaved as `want_valid` says, else why not. */
static const char *check_line(const aps_type *t, const char *line, size_t len, int want_valid, aps_error *err)
{
    aps_arena arena;
    aps_json_writer w1, w2;
    aps_status st;
    const char *why = NULL;
    aps_arena_init(&arena, NULL);
    aps_json_writer_init(&w1, NULL);
    aps_json_writer_init(&w2, NULL);
    st = decode_check_encode(t, line, len, &arena, &w1, err);
    if (!want_valid) {
        why = st == APS_OK ? "accepted, but it is invalid" : NULL;
    } else if (st != APS_OK) {
        why = "rejected";
    } else if (!same_json(line, len, aps_json_writer_data(&w1), aps_json_writer_len(&w1))) {
        why = "re-encoded as a different JSON value";
    } else if (decode_check_encode(t, aps_json_writer_data(&w1), aps_json_writer_len(&w1), &arena, &w2, err) !=
               APS_OK) {
        why = "its encoding does not decode";
    } else if (aps_json_writer_len(&w1) != aps_json_writer_len(&w2) ||
               memcmp(aps_json_writer_data(&w1), aps_json_writer_data(&w2), aps_json_writer_len(&w1)) != 0) {
        why = "encoding twice gives different bytes";
    }
    if (why != NULL && want_valid && st == APS_OK && aps_json_writer_len(&w1) > 0)
        fprintf(stderr, "  encoded: %.*s\n", (int)aps_json_writer_len(&w1), aps_json_writer_data(&w1));
    aps_json_writer_deinit(&w1);
    aps_json_writer_deinit(&w2);
    aps_arena_deinit(&arena);
    return why;
}

int main(int argc, char **argv)
{
    const aps_type *t;
    char *text, *p, *end;
    size_t len, lineno = 0, passed = 0, failed = 0;
    int want_valid;
    if (argc != 4 || (strcmp(argv[2], "valid") != 0 && strcmp(argv[2], "invalid") != 0)) {
        fprintf(stderr, "usage: %s TYPE valid|invalid FILE.jsonl\n", argv[0]);
        return 2;
    }
    if ((t = find_type(argv[1])) == NULL) {
        fprintf(stderr, "%s: no rule '%s' in the generated table\n", argv[0], argv[1]);
        return 2;
    }
    want_valid = strcmp(argv[2], "valid") == 0;
    if ((text = test_read_file(argv[3], &len)) == NULL) {
        fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[3]);
        return 2;
    }
    for (p = text, end = text + len; p < end; p++) {
        aps_error err = APS_ERROR_INIT;
        const char *why, *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl != NULL ? nl : end) - p);
        lineno++;
        if (n > 0 && (why = check_line(t, p, n, want_valid, &err)) != NULL) {
            failed++;
            printf("%s:%zu: %s", argv[3], lineno, why);
            if (err.code != APS_OK)
                printf(": %s: %s", err.pointer, err.message);
            printf("\n");
        } else if (n > 0) {
            passed++;
        }
        p += n;
    }
    free(text);
    printf("%s: %zu %s messages behaved, %zu did not\n", argv[3], passed, argv[2], failed);
    return failed == 0 && passed > 0 ? 0 : 1;
}
