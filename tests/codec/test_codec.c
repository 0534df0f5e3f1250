/*
 * test_codec.c - the generated Message codec's defaults (issue #17, items 3
 * and 4): decoding cannot silently lose a member spelled the other way,
 * every call clears its aps_error, copy_strings makes a value outlive its
 * input, and the encoder refuses what would not be valid JSON of the schema
 * unless told to trust the caller.
 *
 *   codec-test JSONL...   also decodes every line of each JSONL file with
 *                         default options and checks that no open map kept
 *                         a member the schema names (tests/codec/data, and
 *                         the shared real trace when it is there), and that
 *                         the generated encoder writes what the tables write
 */
#include "test.h"

#include "ap.h"

#include "../../runtime/schema/schema_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the generated encoder against the tables ---------------------------------- */

/*
 * Is m's encoding by the generated encoder (checked and trusted) the same
 * text as the table-driven encoder's? The tables write when the descriptor
 * names no generated encoder.
 */
static bool same_as_tables(const ap_message_t *m)
{
    aps_type tables = ap_message_type;
    aps_json_writer a, b, c;
    aps_encode_options trust;
    bool same;
    memset(&trust, 0, sizeof trust);
    trust.trusted = true;
    tables.write = NULL;
    aps_json_writer_init(&a, NULL);
    aps_json_writer_init(&b, NULL);
    aps_json_writer_init(&c, NULL);
    same = ap_message_encode(m, &a, NULL) == APS_OK && aps_schema_encode(&tables, m, &b, NULL, NULL) == APS_OK &&
           ap_message_encode_opts(m, &c, &trust, NULL) == APS_OK && aps_json_writer_len(&a) == aps_json_writer_len(&b) &&
           aps_json_writer_len(&a) == aps_json_writer_len(&c) &&
           memcmp(aps_json_writer_data(&a), aps_json_writer_data(&b), aps_json_writer_len(&a)) == 0 &&
           memcmp(aps_json_writer_data(&a), aps_json_writer_data(&c), aps_json_writer_len(&a)) == 0;
    aps_json_writer_deinit(&a);
    aps_json_writer_deinit(&b);
    aps_json_writer_deinit(&c);
    return same;
}

/* ---- a member the schema names, kept as unknown ---------------------------------- */

/* Is `name` the schema's or the snake_case spelling of one of the n fields? */
static bool names_a_field(const aps_field *f, size_t n, aps_slice name)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if ((f[i].key_len == name.len && memcmp(f[i].key, name.ptr, name.len) == 0) ||
            (f[i].snake != NULL && f[i].snake_len == name.len && memcmp(f[i].snake, name.ptr, name.len) == 0))
            return true;
    }
    return false;
}

/*
 * Counts, in the decoded value v of type t, the unknown members of open
 * maps whose names a field of that map has in either spelling (each
 * printed with `where`): what default decoding must never produce.
 */
static size_t misplaced(const aps_type *t, const void *v, const char *where)
{
    const char *base = (const char *)v;
    size_t n = 0, i;
    switch (t->kind) {
    case APS_K_STRUCT: {
        const aps_field *f = t->u.st.fields;
        const aps_type *vt = t->u.st.variants, *alt = NULL;
        const char *abase = NULL;
        for (i = 0; i < t->u.st.nfields; i++) {
            if ((f[i].flags & APS_F_LITERAL) ||
                ((f[i].flags & APS_F_OPTIONAL) && !*(const bool *)(const void *)(base + f[i].present_offset)) ||
                ((f[i].flags & APS_F_NULLABLE) && *(const bool *)(const void *)(base + f[i].null_offset)))
                continue;
            n += misplaced(f[i].type, base + f[i].offset, where);
        }
        if (vt != NULL) {
            const char *vbase = base + t->u.st.variants_offset;
            int kind = *(const int *)(const void *)(vbase + vt->u.un.kind_offset);
            if (kind > 0) {
                alt = vt->u.un.alts[kind - 1];
                abase = vbase + vt->u.un.payload_offset;
                n += misplaced(alt, abase, where);
            }
        }
        if (t->u.st.open) {
            const aps_json_members *x = (const aps_json_members *)(const void *)(base + t->u.st.extras_offset);
            for (i = 0; i < x->count; i++) {
                if (names_a_field(f, t->u.st.nfields, x->items[i].key) ||
                    (alt != NULL && names_a_field(alt->u.st.fields, alt->u.st.nfields, x->items[i].key))) {
                    fprintf(stderr, "%s: member '%.*s' of %s kept as unknown\n", where, (int)x->items[i].key.len,
                            x->items[i].key.ptr, t->name != NULL ? t->name : "a map");
                    n++;
                }
            }
        }
        return n;
    }
    case APS_K_ARRAY: {
        const aps_array *a = (const aps_array *)v;
        for (i = 0; i < a->count; i++)
            n += misplaced(t->u.arr.elem, (const char *)a->items + i * t->u.arr.elem->size, where);
        return n;
    }
    case APS_K_MAP: {
        const aps_array *a = (const aps_array *)v;
        for (i = 0; i < a->count; i++)
            n += misplaced(t->u.map.value, (const char *)a->items + i * t->u.map.entry_size + t->u.map.value_offset,
                           where);
        return n;
    }
    case APS_K_UNION: {
        int kind = *(const int *)(const void *)(base + t->u.un.kind_offset);
        return kind > 0 ? misplaced(t->u.un.alts[kind - 1], base + t->u.un.payload_offset, where) : 0;
    }
    default:
        return 0;
    }
}

/* The usage of a message-finish event, or NULL when m is no such event or has none. */
static const ap_usage_info_t *finish_usage(const ap_message_t *m)
{
    const ap_event_data_t *d;
    const ap_messages_data_t *md;
    if (m->kind != AP_MESSAGE_EVENT)
        return NULL;
    d = &m->u.event.event_data;
    if (d->kind != AP_EVENT_DATA_MESSAGES_EVENT)
        return NULL;
    md = &d->u.messages_event.params.data;
    if (md->kind != AP_MESSAGES_DATA_MESSAGE_FINISH_DATA || !md->u.message_finish_data.has_usage)
        return NULL;
    return &md->u.message_finish_data.usage;
}

/* A line's text contains `s`? (Lines are NUL-terminated by the reader below.) */
static bool has(const char *line, const char *s)
{
    return strstr(line, s) != NULL;
}

/*
 * Every line of a JSONL file, decoded with default options: lines that
 * decode keep no named member as unknown; an event that spells event_id or
 * input_tokens has it set. Lines the schema rejects for another reason
 * (real servers send what it does not allow) are counted, not checked.
 */
static void check_jsonl(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *line = NULL;
    size_t cap = 0, lineno = 0, decoded = 0, with_id = 0, with_usage = 0;
    aps_arena arena;
    CHECK(f != NULL);
    if (f == NULL)
        return;
    aps_arena_init(&arena, NULL);
    for (;;) {
        size_t len = 0;
        int c;
        char where[64];
        ap_message_t m;
        aps_error err = APS_ERROR_INIT;
        while ((c = fgetc(f)) != EOF && c != '\n') {
            if (len + 2 > cap) {
                char *grown = (char *)realloc(line, cap = cap ? 2 * cap : 4096);
                if (grown == NULL)
                    abort();
                line = grown;
            }
            line[len++] = (char)c;
        }
        if (c == EOF && len == 0)
            break;
        lineno++;
        if (len == 0)
            continue;
        line[len] = '\0';
        snprintf(where, sizeof where, "%s:%zu", path, lineno);
        aps_arena_reset(&arena);
        if (ap_message_decode(line, len, &arena, &m, &err) != APS_OK)
            continue;
        decoded++;
        CHECK_INT(misplaced(&ap_message_type, &m, where), 0);
        CHECK(same_as_tables(&m));
        if (has(line, "\"event_id\"")) {
            with_id++;
            CHECK(m.kind == AP_MESSAGE_EVENT && m.u.event.has_event_id);
        }
        if (has(line, "\"input_tokens\"") && finish_usage(&m) != NULL) {
            with_usage++;
            CHECK(finish_usage(&m)->has_input_tokens && finish_usage(&m)->has_output_tokens &&
                  finish_usage(&m)->has_total_tokens);
        }
    }
    printf("%s: %zu lines, %zu decoded, %zu with event_id, %zu message-finish with snake_case usage\n", path,
           lineno, decoded, with_id, with_usage);
    CHECK(with_id > 0 && with_usage > 0); /* the file tests what it is here for */
    free(line);
    fclose(f);
    aps_arena_deinit(&arena);
}

/* ---- both spellings by default ------------------------------------------------- */

static const char snake_event[] =
    "{\"type\":\"event\",\"event_id\":\"7\",\"seq\":7,\"method\":\"messages\",\"params\":{\"namespace\":[],"
    "\"timestamp\":1,\"data\":{\"event\":\"message-finish\",\"usage\":{\"input_tokens\":10,\"output_tokens\":2,"
    "\"total_tokens\":12,\"input_token_details\":{\"cache_read\":4}},\"run_id\":\"r\"}}}";

static void test_both_spellings(void)
{
    aps_arena arena;
    aps_error err = APS_ERROR_INIT;
    aps_decode_options schema_only;
    ap_message_t m;
    const ap_usage_info_t *u;
    aps_arena_init(&arena, NULL);

    CHECK_INT(ap_message_decode(snake_event, sizeof snake_event - 1, &arena, &m, &err), APS_OK);
    CHECK(m.kind == AP_MESSAGE_EVENT && m.u.event.has_event_id && m.u.event.has_seq && m.u.event.seq == 7);
    CHECK(m.u.event.extras.count == 0);
    u = finish_usage(&m);
    CHECK(u != NULL);
    if (u != NULL) {
        CHECK(u->has_input_tokens && u->input_tokens == 10 && u->has_total_tokens && u->total_tokens == 12);
        CHECK(u->has_input_token_details && u->extras.count == 0);
        CHECK(u->input_token_details.has_cache_read && u->input_token_details.cache_read == 4);
    }
    CHECK_INT(misplaced(&ap_message_type, &m, "snake_event"), 0);

    /* The gate that wants the schema's spelling asks for it, and then sees the other as unknown. */
    memset(&schema_only, 0, sizeof schema_only);
    schema_only.key_case = APS_CASE_SCHEMA;
    CHECK_INT(ap_message_decode_opts(snake_event, sizeof snake_event - 1, &arena, &m, &schema_only, &err), APS_OK);
    CHECK(!m.u.event.has_event_id && m.u.event.extras.count == 1);
    CHECK(misplaced(&ap_message_type, &m, "snake_event, schema spelling only (expected)") > 0);

    /* One member in both spellings is a duplicate, not two values. */
    {
        static const char twice[] = "{\"type\":\"event\",\"eventId\":\"a\",\"event_id\":\"b\",\"method\":\"values\","
                                    "\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{}}}";
        CHECK_INT(ap_message_decode(twice, sizeof twice - 1, &arena, &m, &err), APS_E_DUPLICATE);
        CHECK_STR(err.pointer, "/event_id");
    }
    aps_arena_deinit(&arena);
}

/* ---- one aps_error across calls ---------------------------------------------------- */

static void test_error_reuse(void)
{
    static const char bad_syntax[] = "{\"type\":\"event\",";
    static const char bad_member[] = "{\"type\":\"event\",\"seq\":-1,\"method\":\"values\","
                                     "\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{}}}";
    static const char good[] = "{\"type\":\"event\",\"seq\":1,\"method\":\"values\","
                               "\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{}}}";
    aps_arena arena;
    aps_error err = APS_ERROR_INIT;
    aps_json_writer w;
    ap_message_t m;
    char first[APS_ERROR_MESSAGE_MAX];
    aps_arena_init(&arena, NULL);
    aps_json_writer_init(&w, NULL);

    /* decode: fails, fails otherwise, succeeds */
    CHECK_INT(ap_message_decode(bad_syntax, sizeof bad_syntax - 1, &arena, &m, &err), APS_E_SYNTAX);
    snprintf(first, sizeof first, "%s", err.message);
    CHECK_INT(ap_message_decode(bad_member, sizeof bad_member - 1, &arena, &m, &err), APS_E_RANGE);
    CHECK_STR(err.pointer, "/seq");
    CHECK(strcmp(err.message, first) != 0 && strstr(err.message, "-1") != NULL);
    CHECK_INT(ap_message_decode(good, sizeof good - 1, &arena, &m, &err), APS_OK);
    CHECK(err.code == APS_OK && err.message[0] == '\0' && err.pointer[0] == '\0');

    /* validate: the decoded value spoiled two ways, then mended */
    m.u.event.seq = (uint64_t)1 << 53;
    CHECK_INT(ap_message_validate(&m, false, &err), APS_E_RANGE);
    CHECK_STR(err.pointer, "/seq");
    m.u.event.seq = 1;
    m.u.event.has_run_id = true;
    m.u.event.run_id.ptr = "\xff";
    m.u.event.run_id.len = 1;
    CHECK_INT(ap_message_validate(&m, false, &err), APS_E_UTF8);
    CHECK_STR(err.pointer, "/runId");
    m.u.event.has_run_id = false;
    CHECK_INT(ap_message_validate(&m, false, &err), APS_OK);
    CHECK(err.code == APS_OK && err.message[0] == '\0' && err.pointer[0] == '\0');

    /* encode: the same */
    m.u.event.seq = (uint64_t)1 << 53;
    CHECK_INT(ap_message_encode(&m, &w, &err), APS_E_RANGE);
    CHECK_STR(err.pointer, "/seq");
    m.u.event.seq = 1;
    m.u.event.has_run_id = true;
    aps_json_writer_reset(&w);
    CHECK_INT(ap_message_encode(&m, &w, &err), APS_E_UTF8);
    CHECK_STR(err.pointer, "/runId");
    m.u.event.has_run_id = false;
    aps_json_writer_reset(&w);
    CHECK_INT(ap_message_encode(&m, &w, &err), APS_OK);
    CHECK(err.code == APS_OK && err.message[0] == '\0' && err.pointer[0] == '\0');

    aps_json_writer_deinit(&w);
    aps_arena_deinit(&arena);
}

/* ---- values that outlive their input ---------------------------------------------- */

/* Do the n bytes at p (not NUL-terminated) contain the string s? */
static bool contains(const char *p, size_t n, const char *s)
{
    size_t k = strlen(s), i;
    for (i = 0; p != NULL && i + k <= n; i++) {
        if (memcmp(p + i, s, k) == 0)
            return true;
    }
    return false;
}

/* Does the slice [p, p + n) lie inside the buffer [b, b + len)? */
static bool inside(const void *p, size_t n, const char *b, size_t len)
{
    const char *c = (const char *)p;
    return n != 0 && c >= b && c < b + len;
}

static void test_copy_strings(void)
{
    /* Every kind of borrowed text: plain and escaped strings, an unknown
     * member, an `any` value, an unknown variant kept raw. */
    static const char text[] =
        "{\"type\":\"event\",\"eventId\":\"e-1\",\"runId\":\"r\\u00e9\",\"x_extra\":[1,{\"k\":\"v\"}],"
        "\"method\":\"tools\",\"params\":{\"namespace\":[\"a:1\"],\"timestamp\":5,\"node\":\"tools\","
        "\"data\":{\"event\":\"tool-finished\",\"toolCallId\":\"c-1\",\"output\":{\"sum\":3}}}}"
        "\n{\"type\":\"event\",\"method\":\"future-channel\",\"params\":{\"what\":\"ever\"}}";
    const size_t first_len = (size_t)(strchr(text, '\n') - text);
    aps_arena arena;
    aps_error err = APS_ERROR_INIT;
    aps_decode_options copy;
    ap_message_t m, u;
    char *input;
    const ap_tools_event_params_t *p;
    aps_arena_init(&arena, NULL);
    memset(&copy, 0, sizeof copy);
    copy.copy_strings = true;

    /* Without the option the value borrows from the input (what the option is for). */
    CHECK_INT(ap_message_decode(text, first_len, &arena, &m, &err), APS_OK);
    CHECK(inside(m.u.event.event_id.ptr, m.u.event.event_id.len, text, first_len));

    if ((input = (char *)malloc(sizeof text)) == NULL)
        abort();
    memcpy(input, text, sizeof text);
    CHECK_INT(ap_message_decode_opts(input, first_len, &arena, &m, &copy, &err), APS_OK);
    CHECK_INT(ap_message_decode_opts(input + first_len + 1, sizeof text - first_len - 2, &arena, &u, &copy, &err),
              APS_OK);
    CHECK(!inside(m.u.event.event_id.ptr, m.u.event.event_id.len, input, sizeof text));
    memset(input, '#', sizeof text);
    free(input); /* under ASan, any read of it below is an error */

    CHECK(m.kind == AP_MESSAGE_EVENT && m.u.event.event_data.kind == AP_EVENT_DATA_TOOLS_EVENT);
    p = &m.u.event.event_data.u.tools_event.params;
    CHECK(m.u.event.event_id.len == 3 && memcmp(m.u.event.event_id.ptr, "e-1", 3) == 0);
    CHECK(m.u.event.run_id.len == 3 && memcmp(m.u.event.run_id.ptr, "r\xc3\xa9", 3) == 0);
    CHECK(m.u.event.extras.count == 1);
    if (m.u.event.extras.count == 1) {
        CHECK(m.u.event.extras.items[0].key.len == 7 && memcmp(m.u.event.extras.items[0].key.ptr, "x_extra", 7) == 0);
        CHECK(m.u.event.extras.items[0].value.len == 13 &&
              memcmp(m.u.event.extras.items[0].value.ptr, "[1,{\"k\":\"v\"}]", 13) == 0);
    }
    CHECK(p->namespace_.count == 1 && p->has_node && p->node.len == 5 && memcmp(p->node.ptr, "tools", 5) == 0);
    CHECK(p->data.kind == AP_TOOLS_DATA_TOOL_FINISHED_DATA);
    CHECK(p->data.u.tool_finished_data.tool_call_id.len == 3 &&
          memcmp(p->data.u.tool_finished_data.tool_call_id.ptr, "c-1", 3) == 0);
    CHECK(p->data.u.tool_finished_data.output.len == 9 &&
          memcmp(p->data.u.tool_finished_data.output.ptr, "{\"sum\":3}", 9) == 0);
    CHECK(m.raw.len == first_len && m.raw.ptr[0] == '{' && m.raw.ptr[first_len - 1] == '}');
    /* The unknown channel, kept raw (tolerant decoding). */
    CHECK(u.kind == AP_MESSAGE_EVENT && u.u.event.event_data.kind == AP_EVENT_DATA_UNKNOWN);
    CHECK(u.u.event.event_data.raw.len > 0 && u.u.event.event_data.raw.ptr[0] == '{' &&
          contains(u.u.event.event_data.raw.ptr, u.u.event.event_data.raw.len, "future-channel"));
    /* And the whole value still encodes (checked) to the text decoded. */
    {
        aps_json_writer w;
        aps_json_writer_init(&w, NULL);
        CHECK_INT(ap_message_encode(&u, &w, &err), APS_OK);
        CHECK(aps_json_writer_len(&w) == sizeof text - first_len - 2);
        aps_json_writer_deinit(&w);
    }

    /* The reader-based call cannot copy the caller's input: it says so. */
    {
        aps_json_reader r;
        aps_json_reader_init(&r, "{}", 2, &arena, NULL);
        CHECK_INT(aps_schema_decode_value(&ap_message_type, &r, &m, &copy, &err), APS_E_ARGUMENT);
    }
    aps_arena_deinit(&arena);
}

/* ---- the encoder's checks ------------------------------------------------------------ */

/*
 * Encodes m by default and trusted. The default must fail with `code` at
 * `pointer`, leave the failure in the writer and have written nothing; the
 * trusted encoder writes it, and its text contains `written`.
 */
static void encode_refused(const ap_message_t *m, aps_status code, const char *pointer, const char *written)
{
    aps_json_writer w;
    aps_error err = APS_ERROR_INIT;
    aps_encode_options trust;
    memset(&trust, 0, sizeof trust);
    trust.trusted = true;
    aps_json_writer_init(&w, NULL);
    CHECK_INT(ap_message_encode(m, &w, &err), code);
    CHECK_INT(err.code, code);
    CHECK_STR(err.pointer, pointer);
    CHECK_INT(aps_json_writer_len(&w), 0);
    CHECK_INT(aps_json_writer_status(&w), code);
    aps_json_writer_reset(&w);
    CHECK_INT(ap_message_encode_opts(m, &w, &trust, &err), APS_OK);
    CHECK_INT(err.code, APS_OK);
    CHECK(contains(aps_json_writer_data(&w), aps_json_writer_len(&w), written));
    aps_json_writer_deinit(&w);
}

/*
 * The generated encoder checks as it writes: a value that fails part way
 * leaves the writer as it was before the value (no comma, no half member),
 * with the failure recorded; one that does not fit a fixed buffer fails
 * with APS_E_LIMIT and writes nothing either.
 */
static void test_encode_rollback(const ap_message_t *good, const ap_message_t *bad)
{
    aps_json_writer w;
    aps_error err = APS_ERROR_INIT;
    char small[40];
    size_t before;
    aps_json_writer_init(&w, NULL);
    aps_json_write_array_begin(&w);
    CHECK_INT(ap_message_encode(good, &w, &err), APS_OK);
    before = aps_json_writer_len(&w);
    CHECK_INT(ap_message_encode(bad, &w, &err), APS_E_UTF8);
    CHECK_STR(err.pointer, "/params/data/toolCallId");
    CHECK_INT(aps_json_writer_len(&w), before);
    CHECK_INT(aps_json_writer_status(&w), APS_E_UTF8);
    aps_json_writer_deinit(&w);

    aps_json_writer_init_fixed(&w, small, sizeof small);
    CHECK_INT(ap_message_encode(good, &w, &err), APS_E_LIMIT);
    CHECK_INT(aps_json_writer_status(&w), APS_E_LIMIT);
    aps_json_writer_deinit(&w);
}

static void test_encode_checks(void)
{
    static const char tool[] = "{\"type\":\"event\",\"eventId\":\"e\",\"seq\":3,\"method\":\"tools\",\"params\":{"
                               "\"namespace\":[],\"timestamp\":5,\"data\":{\"event\":\"tool-finished\","
                               "\"toolCallId\":\"c\",\"output\":{\"ok\":true}}}}";
    aps_arena arena;
    aps_error err = APS_ERROR_INIT;
    ap_message_t m;
    ap_tool_finished_data_t *fin;
    aps_arena_init(&arena, NULL);
    CHECK_INT(ap_message_decode(tool, sizeof tool - 1, &arena, &m, &err), APS_OK);
    fin = &m.u.event.event_data.u.tools_event.params.data.u.tool_finished_data;
    {
        /* the tool call's id, a member written late, made invalid UTF-8 in a copy */
        ap_message_t bad = m;
        bad.u.event.event_data.u.tools_event.params.data.u.tool_finished_data.tool_call_id.ptr = "c\xff";
        bad.u.event.event_data.u.tools_event.params.data.u.tool_finished_data.tool_call_id.len = 2;
        test_encode_rollback(&m, &bad);
    }

    /* A raw value that is no JSON: `"output":{oops}` would corrupt the stream. */
    fin->output.ptr = "{oops";
    fin->output.len = 5;
    encode_refused(&m, APS_E_SYNTAX, "/params/data/output", "\"output\":{oops}");
    /* Two values where one goes: an injection. */
    fin->output.ptr = "1,\"eventId\":\"forged\"";
    fin->output.len = strlen(fin->output.ptr);
    encode_refused(&m, APS_E_SYNTAX, "/params/data/output", "\"forged\"");
    fin->output.ptr = "{\"ok\":true}";
    fin->output.len = 11;

    /* A built string that is no UTF-8. */
    m.u.event.event_id.ptr = "ab\xc3";
    m.u.event.event_id.len = 3;
    encode_refused(&m, APS_E_UTF8, "/eventId", "\"eventId\":\"ab\xc3\"");
    m.u.event.event_id.ptr = "e";
    m.u.event.event_id.len = 1;

    /* seq is a js-uint: 2^53 is past what a JavaScript client reads exactly. */
    m.u.event.seq = (uint64_t)1 << 53;
    encode_refused(&m, APS_E_RANGE, "/seq", "\"seq\":9007199254740992");
    m.u.event.seq = ((uint64_t)1 << 53) - 1;
    {
        aps_json_writer w;
        aps_json_writer_init(&w, NULL);
        CHECK_INT(ap_message_encode(&m, &w, &err), APS_OK);
        CHECK(contains(aps_json_writer_data(&w), aps_json_writer_len(&w), "\"seq\":9007199254740991"));
        aps_json_writer_deinit(&w);
    }

    /* A required member never set: the `any` output is empty. */
    fin->output.ptr = NULL;
    fin->output.len = 0;
    {
        aps_json_writer w;
        aps_json_writer_init(&w, NULL);
        CHECK(ap_message_encode(&m, &w, &err) != APS_OK);
        CHECK_STR(err.pointer, "/params/data/output");
        aps_json_writer_deinit(&w);
    }
    aps_arena_deinit(&arena);
}

/*
 * `any` values in a map (an updates event's values, which the generated
 * encoder leaves to the tables): a compact one is checked and copied in one
 * pass as it is written, one with whitespace compacted, and the tables'
 * text is the same; an invalid one or one with a name twice is refused
 * where it is, as before.
 */
static void test_encode_any_in_map(void)
{
    static const char updates[] = "{\"type\":\"event\",\"seq\":4,\"method\":\"updates\",\"params\":{\"namespace\":[],"
                                  "\"timestamp\":6,\"data\":{\"node\":\"agent\",\"values\":{\"agent\":{\"a\":[1,\"x y\"]},"
                                  "\"spaced\":{ \"b\" : [1, 2] ,\"c\":\"d e\"}}}}}";
    aps_arena arena;
    aps_error err = APS_ERROR_INIT;
    aps_json_writer w;
    ap_message_t m;
    aps_json_raw *agent;
    aps_arena_init(&arena, NULL);
    aps_json_writer_init(&w, NULL);
    CHECK_INT(ap_message_decode(updates, sizeof updates - 1, &arena, &m, &err), APS_OK);
    CHECK(same_as_tables(&m));
    CHECK_INT(ap_message_encode(&m, &w, &err), APS_OK);
    CHECK(contains(aps_json_writer_data(&w), aps_json_writer_len(&w),
                   "\"values\":{\"agent\":{\"a\":[1,\"x y\"]},\"spaced\":{\"b\":[1,2],\"c\":\"d e\"}}"));
    agent = &m.u.event.event_data.u.updates_event.params.data.values.items[0].value;
    agent->ptr = "{oops";
    agent->len = 5;
    encode_refused(&m, APS_E_SYNTAX, "/params/data/values/agent", "\"agent\":{oops");
    agent->ptr = "{\"a\":1,\"a\":2}";
    agent->len = strlen(agent->ptr);
    CHECK(ap_message_encode(&m, &w, &err) != APS_OK);
    CHECK_STR(err.pointer, "/params/data/values/agent");
    aps_json_writer_deinit(&w);
    aps_arena_deinit(&arena);
}

/* ---- strings with escapes and UTF-8: the fast path against the exact decoder -------- */

/*
 * Decodes {"type":"text-delta","text":"<text>"} by the exact decoder, then by
 * the fast path with each room from 0 to past the text's length left in
 * the arena's chunk (an escaped string is unescaped into that room, or into
 * a block of its own when it is too small). A valid text must be read by
 * the fast path, to the same bytes; an invalid one must be refused. Returns
 * the failures.
 */
static size_t check_text(const char *text, size_t n)
{
    static char json[256], chunk[1024];
    static const char head[] = "{\"type\":\"text-delta\",\"text\":\"";
    aps_arena_options ao;
    aps_arena exact_arena, fast_arena;
    ap_content_block_delta_t exact, fast;
    size_t len = sizeof head - 1, room, r, failed = 0;
    bool valid, took;
    memcpy(json, head, len);
    memcpy(json + len, text, n);
    memcpy(json + len + n, "\"}", 2);
    len += n + 2;
    aps_arena_init(&exact_arena, NULL);
    valid = aps_schema_priv_decode_exact(&ap_content_block_delta_type, json, len, &exact_arena, &exact, NULL, NULL) ==
            APS_OK;
    memset(&ao, 0, sizeof ao);
    ao.initial = chunk;
    ao.initial_size = sizeof chunk;
    for (r = 0; r <= n + 8; r++) {
        aps_arena_init(&fast_arena, &ao);
        (void)aps_arena_alloc_aligned(&fast_arena, 1, 1); /* the first chunk, then all but r bytes of it */
        (void)aps_arena_room(&fast_arena, &room);
        (void)aps_arena_alloc_aligned(&fast_arena, room - r, 1);
        took = aps_schema_priv_decode_fast(&ap_content_block_delta_type, json, len, &fast_arena, &fast, NULL, true);
        if (took != valid ||
            (valid && (fast.u.text_delta.text.len != exact.u.text_delta.text.len ||
                       memcmp(fast.u.text_delta.text.ptr, exact.u.text_delta.text.ptr, exact.u.text_delta.text.len) != 0))) {
            fprintf(stderr, "text %.*s, room %zu: the fast path %s, the exact decoder %s\n", (int)n, text, r,
                    took ? "took it" : "refused it", valid ? "took it" : "refused it");
            failed++;
        }
        aps_arena_deinit(&fast_arena);
    }
    aps_arena_deinit(&exact_arena);
    return failed;
}

static void test_escaped_strings(void)
{
    /* What makes a string leave the plain path: escapes of each kind,
     * characters past ASCII, and each way of getting them wrong. */
    static const char *const probe[] = {
        "\\n", "\\\\", "\\\"", "\\/", "\\t\\b\\f\\r", "\\u00e9", "\\u0000", "\\ud83d\\ude00", "\xc3\xa9",
        "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\\x", "\\u12", "\\ud83d", "\\ude00", "\\ud83d\\u0041", "\x01",
        "\x7f", "\xc3(", "\xff", "\xe2\x82", "\xed\xa0\x80", "\\", "\"",
    };
    static const char ascii[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    /* Nine characters past ASCII first: past the ones checked one by one. */
    static const char many[] = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
    char text[128];
    size_t len, at, k, pn, n, failed = 0, total = 0;
    int lead;
    for (lead = 0; lead < 2; lead++) {
        for (len = 0; len <= 40; len++) {
            for (at = 0; at <= len; at++) {
                for (k = 0; k < sizeof probe / sizeof probe[0]; k++) {
                    pn = strlen(probe[k]);
                    n = 0;
                    if (lead) {
                        memcpy(text, many, sizeof many - 1);
                        n = sizeof many - 1;
                    }
                    memcpy(text + n, ascii, at);
                    memcpy(text + n + at, probe[k], pn);
                    memcpy(text + n + at + pn, ascii + at, len - at);
                    failed += check_text(text, n + len + pn);
                    total++;
                }
            }
        }
    }
    CHECK(total > 20000);
    CHECK_INT(failed, 0);
}

int main(int argc, char **argv)
{
    int i;
    test_both_spellings();
    test_error_reuse();
    test_copy_strings();
    test_encode_checks();
    test_encode_any_in_map();
    test_escaped_strings();
    for (i = 1; i < argc; i++)
        check_jsonl(argv[i]);
    return test_report();
}
