/*
 * test_fast_path.c - which inputs the decoder's fast paths take (the
 * generated decoders of generated/ap.c, then the table-driven one of
 * runtime/schema/schema_fast.c), and that the full decode gives the same
 * answer either way; and that the generated validators pass decoded
 * traffic and leave what is wrong to the tables' located errors.
 *
 * The fast path is a performance promise: the messages a server usually
 * sends (compact or not, names in either spelling, escapes and non-ASCII in
 * values) must decode in it. It gives up on what it cannot be sure of, and
 * the exact decoder answers instead: those inputs are listed here too, so a
 * change that makes the fast path give up on common traffic, or take
 * something it must not, fails a test. (That the two decoders agree on every
 * input is the decode_fast fuzz target's job; its seed corpus replays as a
 * ctest in every build.)
 *
 * Usage: apstream-fast-path CORPUS_DIR [TRACE.jsonl [TRACE.sse]]
 *   every valid corpus file and every trace line (snake_case) the exact
 *   decoder accepts strictly must take the fast path, with the same encoding;
 *   each corpus value, encoded again (compact, the schema's spelling),
 *   must be read by the reader of the compact form without it giving up;
 *   and every strictly valid event of the SSE trace (the server's own
 *   bytes) by the compact readers, but for one object read again.
 * Usage: apstream-fast-path --validate DIR...
 *   aps_json_validate's fast path (the validating skip of json_fast.c)
 *   against the pull reader on every file in the directories, under
 *   several options: what the skip accepts the reader accepts, and
 *   aps_json_validate answers as the reader does, with the same offset.
 */
#define _POSIX_C_SOURCE 200809L
#include "ap.h"

#include "aps/fast.h"
#include "aps/json_impl.h"
#include "aps/sse.h"
#include "../../runtime/schema/schema_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static int failures;

#define CHECK(cond, what)                                                      \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, what, #cond); \
            failures++;                                                        \
        }                                                                      \
    } while (0)

typedef union any_value {
    ap_message_t message;
    ap_command_t command;
} any_value;

static aps_arena arena;

/* Compact schema-spelling encoding of v into a fresh buffer (caller frees). */
static char *encode_as(const aps_type *t, const any_value *v, aps_key_case kc)
{
    aps_json_writer w;
    aps_encode_options eo;
    char *out = NULL;
    memset(&eo, 0, sizeof eo);
    eo.key_case = kc;
    aps_json_writer_init(&w, NULL);
    if (aps_schema_encode(t, v, &w, &eo, NULL) == APS_OK && aps_json_writer_finish(&w, NULL) == APS_OK) {
        size_t n = aps_json_writer_len(&w);
        out = malloc(n + 1);
        if (out != NULL) {
            memcpy(out, aps_json_writer_data(&w), n);
            out[n] = '\0';
        }
    }
    aps_json_writer_deinit(&w);
    return out;
}

/* The value's JSON in the schema's spelling. */
static char *encode(const aps_type *t, const any_value *v)
{
    return encode_as(t, v, APS_CASE_SCHEMA);
}

/* Which path decodes an input first: fast_takes' answer. */
enum { TAKES_EXACT, TAKES_TABLE, TAKES_GENERATED };

/*
 * Decodes `json` as t every way aps_schema_decode may. Returns the first
 * path that takes it, as aps_schema_decode tries them: the generated
 * decoders, the table-driven fast path, the exact decoder. Checks that a
 * fast path's value encodes as the exact decoder's, and that
 * aps_schema_decode's answer is the exact decoder's.
 */
static int fast_takes(const aps_type *t, const char *json, size_t len, aps_key_case kc, bool strict,
                      const char *name)
{
    any_value fast, exact, full;
    aps_decode_options o;
    aps_status st_exact, st_full;
    int took = TAKES_EXACT;
    memset(&o, 0, sizeof o);
    o.key_case = kc;
    o.strict = strict;
    aps_arena_reset(&arena);
    st_exact = aps_schema_priv_decode_exact(t, json, len, &arena, &exact, &o, NULL);
    st_full = aps_schema_decode(t, json, len, &arena, &full, &o, NULL);
    CHECK(st_full == st_exact, name);
    if (aps_schema_priv_decode_fast(t, json, len, &arena, &fast, &o, true))
        took = TAKES_GENERATED;
    else if (aps_schema_priv_decode_fast(t, json, len, &arena, &fast, &o, false))
        took = TAKES_TABLE;
    if (took != TAKES_EXACT) {
        char *a = encode(t, &fast), *b = encode(t, &exact);
        CHECK(st_exact == APS_OK, name);
        CHECK(a != NULL && b != NULL && strcmp(a, b) == 0, name);
        free(a);
        free(b);
    }
    return took;
}

#define DELTA "{\"type\":\"event\",\"eventId\":\"7\",\"seq\":7,\"method\":\"messages\",\"params\":{\"namespace\":[\"a\"]," \
              "\"timestamp\":1777587969651,\"node\":\"agent\",\"data\":{\"event\":\"content-block-delta\",\"index\":0," \
              "\"delta\":{\"type\":\"text-delta\",\"text\":\"%s\"}}}}"

static int fast_takes_delta(const char *text)
{
    char buf[1024];
    snprintf(buf, sizeof buf, DELTA, text);
    return fast_takes(&ap_message_type, buf, strlen(buf), APS_CASE_SCHEMA, true, buf);
}

/*
 * How the generated decoder reads `json` (whole) by its reader of the
 * compact form: -1 when that gave up on the message (aps_fast_compact),
 * else the number of objects inside it read again member by member
 * (aps_fast_compact_retry).
 */
static int compact_read(const aps_type *t, const char *json, size_t len, aps_key_case kc)
{
    any_value v;
    aps_fast_ctx c;
    const char *end;
    memset(&c, 0, sizeof c);
    c.begin = json;
    c.end = json + len;
    c.arena = &arena;
    c.key_case = kc;
    c.max_depth = APS_JSON_MAX_DEPTH_DEFAULT;
    c.generated = true;
    memset(&v, 0, sizeof v);
    aps_arena_reset(&arena);
    end = t->fast(&c, json, &v);
    return end == c.end && c.compact_misses == 0 ? (int)c.compact_retries : -1;
}

/* Does the reader of the compact form take `json` whole, without giving up on any of it? */
static bool compact_reads(const aps_type *t, const char *json, size_t len, aps_key_case kc)
{
    return compact_read(t, json, len, kc) == 0;
}

static void test_inline(void)
{
    static const char *const taken[] = {
        /* member order differs from the schema's; the discriminant last */
        "{\"params\":{\"data\":{\"graphName\":\"g\",\"event\":\"running\"},\"timestamp\":1,\"namespace\":[]},"
        "\"method\":\"lifecycle\",\"type\":\"event\"}",
        /* whitespace everywhere JSON allows it */
        " { \"type\" : \"event\" , \"method\" : \"values\" , \"params\" : { \"namespace\" : [ ] , "
        "\"timestamp\" : 1 , \"data\" : { \"a\" : [ 1 , 2.5e3 , true , null ] } } } \n",
        /* unknown members of open maps, with nested values */
        "{\"type\":\"event\",\"x\":{\"y\":[{\"z\":1}]},\"method\":\"custom\",\"params\":{\"namespace\":[],"
        "\"timestamp\":1,\"data\":{\"name\":\"n\",\"payload\":{}}}}",
        "{\"type\":\"success\",\"id\":1,\"result\":{\"runId\":\"r\"},\"meta\":{\"appliedThroughSeq\":3}}",
        "{\"type\":\"error\",\"id\":null,\"error\":\"invalid_argument\",\"message\":\"m\"}",
    };
    static const char *const given_up[] = {
        /* an escaped member name: unescaping changes what duplicates are */
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"timestamp\":1,\"\\u0064ata\":{}}}",
        /* an unknown variant (the exact decoder keeps or rejects it) */
        "{\"type\":\"event\",\"method\":\"nope\",\"params\":{}}",
        /* duplicates, known and unknown, and inside `any` */
        "{\"type\":\"event\",\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{}}}",
        "{\"type\":\"event\",\"u\":1,\"u\":2,\"method\":\"values\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{}}}",
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{\"a\":1,\"a\":1}}}",
        /* errors of every kind */
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"timestamp\":-1,\"data\":{}}}",
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"timestamp\":1.5,\"data\":{}}}",
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"timestamp\":01,\"data\":{}}}",
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{}}} x",
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{}}",
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"data\":{}}}",
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[\"\\ud800\"],\"timestamp\":1,\"data\":{}}}",
        /* 19 digits and more: near 64 bits, judged by the exact decoder */
        "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"timestamp\":1234567890123456789,\"data\":{}}}",
    };
    char deep[400];
    size_t i;
    for (i = 0; i < sizeof taken / sizeof *taken; i++)
        CHECK(fast_takes(&ap_message_type, taken[i], strlen(taken[i]), APS_CASE_SCHEMA, true, taken[i]), taken[i]);
    for (i = 0; i < sizeof given_up / sizeof *given_up; i++)
        CHECK(!fast_takes(&ap_message_type, given_up[i], strlen(given_up[i]), APS_CASE_SCHEMA, false, given_up[i]),
              given_up[i]);
    /* Values with escapes, non-ASCII and lengths around the 16-byte scan steps. */
    CHECK(fast_takes_delta("") == TAKES_GENERATED, "empty text");
    CHECK(fast_takes_delta("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80") == TAKES_GENERATED, "non-ASCII text");
    CHECK(fast_takes_delta("line\\nbreak \\\"quoted\\\" \\u00e9 \\ud83d\\ude00 \\\\") == TAKES_GENERATED, "escaped text");
    CHECK(fast_takes_delta("0123456789abcde") == TAKES_GENERATED, "15 bytes");
    CHECK(fast_takes_delta("0123456789abcdef") == TAKES_GENERATED, "16 bytes");
    CHECK(fast_takes_delta("0123456789abcdef0123456789abcdef\\t") == TAKES_GENERATED, "escape after 32 bytes");
    CHECK(!fast_takes_delta("bad \xC3"), "truncated UTF-8");
    CHECK(!fast_takes_delta("ctl \x01"), "control character");
    /* \u escapes of one, two and three UTF-8 bytes, either case, NUL; bad digits and lone surrogates. */
    CHECK(fast_takes_delta("\\u0041\\u00E9\\u20ac\\u0000\\uFFFF\\u07ff\\u0800") == TAKES_GENERATED, "\\u escapes");
    CHECK(!fast_takes_delta("\\u00g9"), "a bad hex digit");
    CHECK(!fast_takes_delta("\\u00e"), "three hex digits");
    CHECK(!fast_takes_delta("\\udc00"), "a lone low surrogate");
    CHECK(!fast_takes_delta("\\ud83d x"), "a lone high surrogate");
    CHECK(!fast_takes_delta("\\q"), "an unknown escape letter");
    /* Escapes at every distance from the input's end (the unescaping copy's last steps). */
    for (i = 0; i < 40; i++) {
        char text[64], name[80];
        memset(text, 'a', i);
        strcpy(text + i, i % 3 == 0 ? "\\n" : i % 3 == 1 ? "\\u00e9b" : "\\\\\xC3\xA9");
        snprintf(name, sizeof name, "an escape after %zu bytes", i);
        CHECK(fast_takes_delta(text) == TAKES_GENERATED, name);
        strcat(text, "\x01");
        CHECK(!fast_takes_delta(text), name);
    }
    /* Nesting past the fast path's limit goes to the exact decoder, which takes it. */
    memset(deep, 0, sizeof deep);
    strcpy(deep, "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":");
    for (i = 0; i < 80; i++)
        strcat(deep, "[");
    for (i = 0; i < 80; i++)
        strcat(deep, "]");
    strcat(deep, "}}");
    CHECK(!fast_takes(&ap_message_type, deep, strlen(deep), APS_CASE_SCHEMA, true, "deep"), "deep");
    /* Both spellings. */
    {
        static const char snake[] = "{\"type\":\"event\",\"event_id\":\"1\",\"method\":\"tools\",\"params\":{\"namespace\":[],"
                                    "\"timestamp\":1,\"data\":{\"event\":\"tool-started\",\"tool_call_id\":\"t\","
                                    "\"tool_name\":\"calc\",\"input\":{\"a\":1}}}}";
        CHECK(fast_takes(&ap_message_type, snake, strlen(snake), APS_CASE_SNAKE, true, snake) == TAKES_GENERATED,
              "snake");
        CHECK(fast_takes(&ap_message_type, snake, strlen(snake), APS_CASE_EITHER, true, snake) == TAKES_GENERATED,
              "either");
    }
}

#define MESSAGES_EVENT(data) \
    "{\"type\":\"event\",\"eventId\":\"7\",\"seq\":7,\"method\":\"messages\",\"params\":{\"namespace\":[\"a\"]," \
    "\"timestamp\":1,\"data\":" data "}}"

/*
 * An object inside a compact message with its members in another order
 * than the schema's, as the real langgraph-api server writes some (see
 * traces/), is read again alone, member by member, and the rest of the
 * message stays compact; the value is the exact decoder's. A second such
 * object sends the whole message to the member-by-member reader.
 */
static void test_retry(void)
{
    static const char *const once[] = {
        /* a content block with `index` before its discriminant */
        MESSAGES_EVENT("{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"index\":0,\"type\":\"text\","
                       "\"text\":\"\"}}"),
        /* a block-delta's fields with `type` last */
        MESSAGES_EVENT("{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"block-delta\","
                       "\"fields\":{\"index\":0,\"input\":\"{\\\"a\",\"type\":\"input_json_delta\"}}}"),
        /* a member the schema does not name before one it does */
        MESSAGES_EVENT("{\"event\":\"message-finish\",\"reason\":\"stop\",\"usage\":{\"inputTokens\":1,"
                       "\"outputTokens\":2}}"),
    };
    static const char twice[] =
        MESSAGES_EVENT("{\"event\":\"message-finish\",\"usage\":{\"inputTokens\":1,\"inputTokenDetails\":{\"x\":1,"
                       "\"audio\":1},\"outputTokenDetails\":{\"x\":1,\"audio\":1}}}");
    size_t i;
    for (i = 0; i < sizeof once / sizeof *once; i++) {
        CHECK(fast_takes(&ap_message_type, once[i], strlen(once[i]), APS_CASE_SCHEMA, true, once[i]) ==
                  TAKES_GENERATED,
              once[i]);
        CHECK(compact_read(&ap_message_type, once[i], strlen(once[i]), APS_CASE_SCHEMA) == 1, once[i]);
    }
    CHECK(fast_takes(&ap_message_type, twice, strlen(twice), APS_CASE_SCHEMA, true, twice) == TAKES_GENERATED, twice);
    CHECK(compact_read(&ap_message_type, twice, strlen(twice), APS_CASE_SCHEMA) == -1, twice);
}

/*
 * Valid corpus files the fast path leaves to the exact decoder, and why.
 * Every other valid file must take it.
 */
static const char *const exact_only[] = {
    /* an untagged choice whose first fitting alternative does not match
     * (ResultData, InputRespondParams): only the exact decoder goes on */
    "command-input.respond-many.json", "command-input.respond-many-all.json",
    "response-success-subscribe.json", "response-success-subscribe-minimal.json",
    "response-success-reconnect.json", "response-success-reconnect-minimal.json",
    "response-success-agent-tree.json", "response-success-state-get.json",
    "response-success-state-get-no-checkpoint.json", "response-success-list-checkpoints.json",
    "response-success-list-checkpoints-empty.json", "response-success-state-fork.json",
    "response-success-extra.json", "order-response-type-last.json",
    /* an escaped member name */
    "escape-key-type.json",
    /* integers of 19 digits and more */
    "int-limits-uint64.json", "int-limits-int64.json", "int-limits-usage-large.json",
    /* nesting deeper than the fast path's 64 levels */
    "any-deep-array.json", "any-deep-object.json",
};

/*
 * Valid corpus files the generated decoders leave to the table-driven fast
 * path, and why. Every other file the fast paths take, the generated
 * decoders take.
 */
static const char *const table_only[] = {
    /* a discriminant value spelled with escapes */
    "escape-method-value.json",
};

/*
 * Valid corpus files whose re-encoding the compact reader leaves to the
 * member-by-member one: members the schema does not name on an object
 * whose members include a union's (the message and command envelopes),
 * which the compact reader does not take. Members the schema does not name
 * on other objects (Extensible maps, `* text => any` maps) it takes after
 * the named ones. Every other file the generated decoders take, re-encoded,
 * the compact reader takes.
 */
static const char *const not_compact[] = {
    "command-extra-members.json",
    "extra-members-everywhere.json",
};

static int listed(const char *const *list, size_t n, const char *file)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (strcmp(list[i], file) == 0)
            return 1;
    }
    return 0;
}

/* The MANIFEST.tsv of the corpus directory dir/kind ("valid" or "invalid"), or NULL (a failed check). */
static FILE *manifest_open(const char *dir, const char *kind)
{
    char path[4096];
    FILE *manifest;
    snprintf(path, sizeof path, "%s/%s/MANIFEST.tsv", dir, kind);
    manifest = fopen(path, "r");
    CHECK(manifest != NULL, path);
    return manifest;
}

/* The next file of a manifest and its rule, past the header; false at the end. */
static bool manifest_next(FILE *manifest, char file[256], char rule[64])
{
    char line[512];
    while (fgets(line, sizeof line, manifest) != NULL) {
        if (sscanf(line, "%255s %63s", file, rule) == 2 && strcmp(file, "file") != 0)
            return true;
    }
    return false;
}

/*
 * Every valid corpus file takes the generated decoders, but those listed
 * above; and what our encoder writes of each (compact, the schema's
 * spelling and order) the compact reader takes, as servers send it.
 */
static void test_corpus(const char *dir)
{
    char path[4096], file[256], rule[64];
    FILE *manifest = manifest_open(dir, "valid");
    size_t taken = 0, generated = 0, compact = 0, total = 0, snake_differs = 0;
    if (manifest == NULL)
        return;
    while (manifest_next(manifest, file, rule)) {
        const aps_type *t;
        size_t len;
        char *json;
        t = strcmp(rule, "Command") == 0 ? &ap_command_type : &ap_message_type;
        snprintf(path, sizeof path, "%s/valid/%s", dir, file);
        json = test_read_file(path, &len);
        CHECK(json != NULL, path);
        if (json == NULL)
            continue;
        total++;
        switch (fast_takes(t, json, len, APS_CASE_SCHEMA, true, path)) {
        case TAKES_GENERATED: {
            any_value v;
            char *encoded, *snake;
            generated++;
            taken++;
            CHECK(!listed(table_only, sizeof table_only / sizeof *table_only, file), path);
            aps_arena_reset(&arena);
            CHECK(aps_schema_decode(t, json, len, &arena, &v, NULL, NULL) == APS_OK, path);
            encoded = encode(t, &v);
            snake = encode_as(t, &v, APS_CASE_SNAKE);
            CHECK(encoded != NULL && snake != NULL, path);
            if (encoded != NULL && compact_reads(t, encoded, strlen(encoded), APS_CASE_SCHEMA)) {
                compact++;
                CHECK(!listed(not_compact, sizeof not_compact / sizeof *not_compact, file), path);
                /* in snake_case, as a server in Python writes it: read compactly too */
                CHECK(snake != NULL && compact_reads(t, snake, strlen(snake), APS_CASE_SNAKE) &&
                          compact_reads(t, snake, strlen(snake), APS_CASE_EITHER),
                      path);
                snake_differs += snake != NULL && strcmp(snake, encoded) != 0;
            } else {
                CHECK(listed(not_compact, sizeof not_compact / sizeof *not_compact, file), path);
            }
            free(encoded);
            free(snake);
            break;
        }
        case TAKES_TABLE:
            taken++;
            CHECK(listed(table_only, sizeof table_only / sizeof *table_only, file), path);
            break;
        default: CHECK(listed(exact_only, sizeof exact_only / sizeof *exact_only, file), path); break;
        }
        free(json);
    }
    fclose(manifest);
    printf("valid corpus: %zu of %zu files took a fast path, %zu the generated decoders; the compact reader "
           "took %zu of those re-encoded, and in snake_case (%zu spelled differently)\n",
           taken, total, generated, compact, snake_differs);
    CHECK(total > 100, "the corpus was read");
    CHECK(snake_differs > 10, "the snake_case spelling was tried where it differs");
}

/*
 * The generated PREFIX_T_decode_opts, whose usual case runs inline
 * (aps_fast_decode), answers as aps_schema_decode on the file at path, in
 * key case kc: the same status, error, value and arena use, with an error
 * struct that held another error before. Returns the status.
 */
static aps_status entry_agrees(const char *path, bool command, const char *json, size_t len, aps_key_case kc)
{
    const aps_type *t = command ? &ap_command_type : &ap_message_type;
    any_value a, b;
    aps_decode_options o;
    aps_error ea = APS_ERROR_INIT, eb;
    aps_status sa, sb;
    size_t used_a, used_b;
    memset(&o, 0, sizeof o);
    o.key_case = kc;
    o.strict = true;
    aps_arena_reset(&arena);
    sb = aps_schema_decode(t, json, len, &arena, &b, &o, &eb);
    used_b = aps_arena_used(&arena);
    aps_arena_reset(&arena);
    aps_error_set(&ea, APS_E_SYNTAX, 7, "an error left from before");
    aps_error_set_pointer(&ea, "/stale");
    sa = command ? ap_command_decode_opts(json, len, &arena, &a.command, &o, &ea)
                 : ap_message_decode_opts(json, len, &arena, &a.message, &o, &ea);
    used_a = aps_arena_used(&arena);
    CHECK(sa == sb && ea.code == eb.code && ea.offset == eb.offset && strcmp(ea.pointer, eb.pointer) == 0 &&
              strcmp(ea.message, eb.message) == 0,
          path);
    CHECK(used_a == used_b, path);
    if (sa == APS_OK && sb == APS_OK) {
        char *ta = encode(t, &a), *tb = encode(t, &b);
        CHECK(ta != NULL && tb != NULL && strcmp(ta, tb) == 0, path);
        free(ta);
        free(tb);
    }
    return sa;
}

/* entry_agrees on every corpus file, valid and invalid, in each key case. */
static void test_entry(const char *dir)
{
    static const char *const kinds[] = { "valid", "invalid" };
    static const aps_key_case cases[] = { APS_CASE_SCHEMA, APS_CASE_SNAKE, APS_CASE_EITHER };
    size_t files = 0, failed = 0, k, i;
    for (k = 0; k < 2; k++) {
        char path[4096], file[256], rule[64];
        FILE *manifest = manifest_open(dir, kinds[k]);
        if (manifest == NULL)
            continue;
        while (manifest_next(manifest, file, rule)) {
            size_t len;
            char *json;
            snprintf(path, sizeof path, "%s/%s/%s", dir, kinds[k], file);
            json = test_read_file(path, &len);
            CHECK(json != NULL, path);
            if (json == NULL)
                continue;
            files++;
            for (i = 0; i < sizeof cases / sizeof *cases; i++)
                failed += entry_agrees(path, strcmp(rule, "Command") == 0, json, len, cases[i]) != APS_OK;
            free(json);
        }
        fclose(manifest);
    }
    printf("generated entry: %zu files, %zu decodes failing as aps_schema_decode's do\n", files, failed);
    CHECK(files > 200 && failed > 100, "the valid and invalid corpus were read");
}

/* The recorded trace, snake_case: every line the exact decoder accepts strictly. */
static void test_trace(const char *file)
{
    size_t len, taken = 0, accepted = 0, passed = 0;
    char *all = test_read_file(file, &len), *line, *next;
    CHECK(all != NULL, file);
    if (all == NULL)
        return;
    for (line = all; *line != '\0'; line = next) {
        any_value v;
        aps_decode_options o;
        size_t n;
        next = strchr(line, '\n');
        n = next != NULL ? (size_t)(next - line) : strlen(line);
        next = next != NULL ? next + 1 : line + n;
        memset(&o, 0, sizeof o);
        o.key_case = APS_CASE_SNAKE;
        o.strict = true;
        aps_arena_reset(&arena);
        if (n == 0 || aps_schema_priv_decode_exact(&ap_message_type, line, n, &arena, &v, &o, NULL) != APS_OK)
            continue;
        accepted++;
        taken += fast_takes(&ap_message_type, line, n, APS_CASE_SNAKE, true, "trace line") == TAKES_GENERATED;
        passed += ap_message_type.valid(&v.message, true, 0);
    }
    printf("trace: %zu of %zu strictly valid lines took the generated decoders; the generated validator "
           "passed %zu\n", taken, accepted, passed);
    CHECK(accepted > 0 && taken == accepted, "every strictly valid trace line takes the generated decoders");
    CHECK(passed == accepted, "the generated validator passes every strictly valid trace line");
    free(all);
}

/* Counts of test_trace_sse. */
typedef struct sse_counts {
    size_t accepted, compact, retried;
} sse_counts;

static aps_status count_compact(void *user, const aps_sse_event *ev)
{
    sse_counts *n = (sse_counts *)user;
    any_value v;
    aps_decode_options o;
    memset(&o, 0, sizeof o);
    o.key_case = APS_CASE_SNAKE;
    o.strict = true;
    aps_arena_reset(&arena);
    if (aps_schema_priv_decode_exact(&ap_message_type, ev->data, ev->data_len, &arena, &v, &o, NULL) != APS_OK)
        return APS_OK;
    n->accepted++;
    switch (compact_read(&ap_message_type, ev->data, ev->data_len, APS_CASE_SNAKE)) {
    case 0: n->compact++; break;
    case 1: n->retried++; break;
    default: break;
    }
    return APS_OK;
}

/*
 * The trace as the server sent it (SSE, compact JSON in snake_case): every
 * strictly valid event is read by the readers of the compact form, but for
 * at most one object whose members the server writes in another order
 * (test_retry).
 */
static void test_trace_sse(const char *file)
{
    static char storage[1 << 16];
    size_t len;
    char *all = test_read_file(file, &len);
    aps_sse_parser p;
    sse_counts n = { 0, 0, 0 };
    CHECK(all != NULL, file);
    if (all == NULL)
        return;
    aps_sse_parser_init(&p, storage, sizeof storage, NULL, count_compact, NULL, &n);
    CHECK(aps_sse_parser_push(&p, all, len, NULL) == APS_OK && aps_sse_parser_finish(&p, NULL) == APS_OK, file);
    printf("trace (SSE): %zu of %zu strictly valid events read compactly, %zu of them with one object read "
           "again\n", n.compact + n.retried, n.accepted, n.retried);
    CHECK(n.accepted > 0 && n.compact + n.retried == n.accepted, "every strictly valid event is read compactly");
    free(all);
}

/*
 * The generated validators: they pass what the decoders produce from usual
 * traffic, and whatever they do not pass, the tables judge, with the same
 * error and JSON Pointer as ever.
 */
static void expect_invalid(const ap_message_t *m, aps_status code, const char *pointer, const char *what)
{
    aps_error e = APS_ERROR_INIT, t = APS_ERROR_INIT;
    CHECK(!ap_message_type.valid(m, true, 0), what);
    CHECK(ap_message_validate(m, true, &e) == code, what);
    CHECK(aps_schema_priv_validate_tables(&ap_message_type, m, true, &t) == code, what);
    CHECK(strcmp(e.pointer, pointer) == 0 && strcmp(t.pointer, pointer) == 0, what);
    CHECK(strcmp(e.message, t.message) == 0, what);
}

static void test_validators(void)
{
    char buf[1024];
    ap_message_t m;
    ap_messages_event_params_t *params;
    aps_decode_options o;
    memset(&o, 0, sizeof o);
    o.strict = true;
    snprintf(buf, sizeof buf, DELTA, "caf\\u00e9 \xE2\x82\xAC");
    aps_arena_reset(&arena);
    CHECK(ap_message_decode_opts(buf, strlen(buf), &arena, &m, &o, NULL) == APS_OK, "delta decodes");
    CHECK(ap_message_type.valid(&m, true, 0), "a decoded delta passes the generated validator");
    params = &m.u.event.event_data.u.messages_event.params;
    params->data.u.content_block_delta_data.delta.u.text_delta.text.ptr = "\xC3(";
    params->data.u.content_block_delta_data.delta.u.text_delta.text.len = 2;
    expect_invalid(&m, APS_E_UTF8, "/params/data/delta/text", "invalid UTF-8 in a text");
    params->data.u.content_block_delta_data.delta.u.text_delta.text.ptr = NULL;
    expect_invalid(&m, APS_E_ARGUMENT, "/params/data/delta/text", "a text without its bytes");
    params->data.u.content_block_delta_data.delta.u.text_delta.text.len = 0;
    CHECK(ap_message_type.valid(&m, true, 0), "an empty text");
    m.u.event.seq = (uint64_t)1 << 53;
    expect_invalid(&m, APS_E_RANGE, "/seq", "seq past js-uint");
    m.u.event.seq = 7;
    params->namespace_.items[0].ptr = "\xFF";
    params->namespace_.items[0].len = 1;
    expect_invalid(&m, APS_E_UTF8, "/params/namespace/0", "invalid UTF-8 in an array item");
    params->namespace_.count = 0;
    CHECK(ap_message_type.valid(&m, true, 0), "an empty namespace");
    params->data.u.content_block_delta_data.delta.kind = AP_CONTENT_BLOCK_DELTA_UNKNOWN;
    expect_invalid(&m, APS_E_UNKNOWN, "/params/data/delta/type", "an unknown variant, strictly");
    params->data.kind = (ap_messages_data_kind)99;
    expect_invalid(&m, APS_E_ARGUMENT, "/params/data", "a kind out of range");
}

/* The reader alone, as aps_json_validate was before its fast path. */
static aps_status reader_validate(const char *json, size_t len, const aps_json_reader_options *o, aps_error *err)
{
    aps_json_reader r;
    aps_status st;
    aps_arena_reset(&arena);
    aps_json_reader_init(&r, json, len, &arena, o);
    st = aps_json_skip(&r, err);
    if (st == APS_OK)
        st = aps_json_reader_finish(&r, err);
    return st;
}

/* One text under one set of options; returns whether the skip took it. */
static int validate_agrees(const char *json, size_t len, const aps_json_reader_options *o, const char *name)
{
    aps_error exact_err, err;
    aps_status exact, st;
    size_t max_depth = o->max_depth != 0 ? o->max_depth : APS_JSON_MAX_DEPTH_DEFAULT;
    const char *end = json + len,
               *p = aps_json_impl_skip_fast(aps_scan_ws(json, end), end, max_depth, o->allow_duplicates);
    int took = p != NULL && aps_scan_ws(p, end) == end;
    memset(&exact_err, 0, sizeof exact_err);
    memset(&err, 0, sizeof err);
    exact = reader_validate(json, len, o, &exact_err);
    st = aps_json_validate(json, len, o, &err);
    CHECK(!took || exact == APS_OK, name);
    CHECK(st == exact, name);
    CHECK(st == APS_OK || (err.offset == exact_err.offset && strcmp(err.message, exact_err.message) == 0), name);
    return took;
}

/* What the files of --validate gave. */
typedef struct validate_counts {
    size_t files, valid, taken;
} validate_counts;

static const aps_json_reader_options validate_options[] = { { 0, 0 }, { 0, 1 }, { 1, 0 }, { 3, 0 }, { 3, 1 } };

/* One file, under every set of options. */
static void validate_file(void *ctx, const char *path, const char *name)
{
    validate_counts *c = (validate_counts *)ctx;
    size_t len, k;
    char *json = test_read_file(path, &len);
    (void)name;
    if (json == NULL)
        return;
    c->files++;
    for (k = 0; k < sizeof validate_options / sizeof *validate_options; k++)
        c->taken += (size_t)validate_agrees(json, len, &validate_options[k], path);
    c->valid += aps_json_validate(json, len, NULL, NULL) == APS_OK;
    free(json);
}

/* Every file of each directory, as the differential check above says. */
static void test_validate(char **dirs, int n)
{
    validate_counts c = { 0, 0, 0 };
    int d;
    for (d = 0; d < n; d++)
        CHECK(test_for_each_file(dirs[d], NULL, validate_file, &c) >= 0, dirs[d]);
    printf("validate: %zu files (%zu valid), %zu of %zu checks took the fast path\n", c.files, c.valid, c.taken,
           c.files * (sizeof validate_options / sizeof *validate_options));
    CHECK(c.files > 100 && c.taken > 0, "the files were read and some took the fast path");
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--validate") == 0) {
        aps_arena_init(&arena, NULL);
        test_validate(argv + 2, argc - 2);
        aps_arena_deinit(&arena);
        if (failures != 0)
            fprintf(stderr, "%d check(s) failed\n", failures);
        return failures != 0;
    }
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: %s CORPUS_DIR [TRACE.jsonl [TRACE.sse]]\n", argv[0]);
        return 2;
    }
    aps_arena_init(&arena, NULL);
    test_inline();
    test_retry();
    test_validators();
    test_corpus(argv[1]);
    test_entry(argv[1]);
    if (argc >= 3)
        test_trace(argv[2]);
    if (argc == 4)
        test_trace_sse(argv[3]);
    aps_arena_deinit(&arena);
    if (failures != 0)
        fprintf(stderr, "%d check(s) failed\n", failures);
    return failures != 0;
}
