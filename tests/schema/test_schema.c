/* test_schema.c - the schema engine: decode, encode, validate over hand-written descriptors. */
#include "../test.h"
#include "fixture.h"
#include "test_util.h"

#include "aps/utf8.h"

#include <stdlib.h>

static aps_arena arena;
static aps_error err;

static aps_status decode_opts(const aps_type *t, const char *json, void *out, aps_key_case kc, bool strict)
{
    aps_decode_options o;
    memset(&o, 0, sizeof o);
    o.key_case = kc;
    o.strict = strict;
    return aps_schema_decode(t, json, strlen(json), &arena, out, &o, &err);
}

static aps_status decode(const aps_type *t, const char *json, void *out)
{
    return decode_opts(t, json, out, APS_CASE_SCHEMA, true);
}

/* Encodes into a static buffer (NUL-terminated); NULL on failure. */
static const char *encode_case(const aps_type *t, const void *v, aps_key_case kc)
{
    static char buf[8192];
    aps_json_writer w;
    aps_encode_options o;
    aps_status st;
    memset(&o, 0, sizeof o);
    o.key_case = kc;
    aps_json_writer_init_fixed(&w, buf, sizeof buf - 1);
    st = aps_schema_encode(t, v, &w, &o, NULL);
    if (st != APS_OK || aps_json_writer_finish(&w, NULL) != APS_OK)
        return NULL;
    buf[aps_json_writer_len(&w)] = '\0';
    return buf;
}

static const char *encode(const aps_type *t, const void *v)
{
    return encode_case(t, v, APS_CASE_SCHEMA);
}

#define CHECK_ERR(st, code, ptr, msg)              \
    do {                                           \
        CHECK_INT(st, code);                       \
        CHECK_STR(err.pointer, ptr);               \
        if ((msg) != NULL)                         \
            CHECK_STR(err.message, (const char *)(msg)); \
    } while (0)

static bool slice_is(aps_slice s, const char *want)
{
    return s.len == strlen(want) && memcmp(s.ptr, want, s.len) == 0;
}

static bool raw_equal(const char *a, size_t alen, const char *b, size_t blen)
{
    aps_json_raw x, y;
    int eq = 0;
    x.ptr = a;
    x.len = alen;
    y.ptr = b;
    y.len = blen;
    return aps_json_raw_equal(x, y, &eq) == APS_OK && eq;
}

/*
 * decode -> encode -> decode -> encode: both encodings equal, the first
 * JSON-equal to the input (when `same`), and both values validate.
 */
static void round_trip(const aps_type *t, const char *json, size_t size, bool same)
{
    void *a = calloc(1, size), *b = calloc(1, size);
    char first[8192];
    const char *out;
    aps_status st = decode(t, json, a);
    CHECK_INT(st, APS_OK);
    if (st != APS_OK) {
        fprintf(stderr, "  %s: %s at %s\n", json, err.message, err.pointer);
        goto done;
    }
    CHECK_INT(aps_schema_validate(t, a, true, NULL), APS_OK);
    out = encode(t, a);
    CHECK(out != NULL);
    if (out == NULL)
        goto done;
    snprintf(first, sizeof first, "%s", out);
    if (same) {
        CHECK(raw_equal(json, strlen(json), first, strlen(first)));
    }
    CHECK_INT(decode(t, first, b), APS_OK);
    CHECK_INT(aps_schema_validate(t, b, true, NULL), APS_OK);
    out = encode(t, b);
    CHECK(out != NULL && strcmp(out, first) == 0);
done:
    free(a);
    free(b);
}

/* ---- discriminated unions ------------------------------------------------------ */

static void test_discriminated(void)
{
    ContentBlockDelta d;
    aps_status st;
    const char *json = "{\"text\":\"hi\",\"x\":[1,{\"y\":2}],\"type\":\"text-delta\"}";

    /* The discriminant may come last; unknown members of the open map are kept in order. */
    st = decode(&T_ContentBlockDelta, json, &d);
    CHECK_INT(st, APS_OK);
    CHECK_INT(d.kind, CBD_TEXT);
    CHECK(slice_is(d.u.text_delta.text, "hi"));
    CHECK_INT(d.u.text_delta.extras.count, 1);
    CHECK(slice_is(d.u.text_delta.extras.items[0].key, "x"));
    CHECK(d.u.text_delta.extras.items[0].value.len == 11 &&
          memcmp(d.u.text_delta.extras.items[0].value.ptr, "[1,{\"y\":2}]", 11) == 0);
    CHECK(d.raw.ptr == json && d.raw.len == strlen(json));
    CHECK_STR(encode(&T_ContentBlockDelta, &d), "{\"type\":\"text-delta\",\"text\":\"hi\",\"x\":[1,{\"y\":2}]}");

    /* Escaped member names and discriminant values are compared unescaped. */
    st = decode(&T_ContentBlockDelta, "{\"\\u0074ype\":\"reasoning\\u002ddelta\",\"reasoning\":\"r\"}", &d);
    CHECK_INT(st, APS_OK);
    CHECK_INT(d.kind, CBD_REASONING);

    /* Strict: an unknown discriminant is located at the discriminant. */
    st = decode(&T_ContentBlockDelta, "{\"text\":\"hi\",\"type\":\"txt-delta\"}", &d);
    CHECK_ERR(st, APS_E_UNKNOWN, "/type",
              "expected one of \"text-delta\", \"reasoning-delta\", \"data-delta\", \"block-delta\", "
              "\"tool-call-delta\"; got \"txt-delta\"");
    CHECK_INT(err.offset, 20);

    /* Tolerant: kind 0 with the raw object, written back as it came. */
    json = "{\"type\":\"future-delta\",\"n\":1}";
    st = decode_opts(&T_ContentBlockDelta, json, &d, APS_CASE_SCHEMA, false);
    CHECK_INT(st, APS_OK);
    CHECK_INT(d.kind, CBD_UNKNOWN);
    CHECK(d.raw.ptr == json && d.raw.len == strlen(json));
    CHECK_STR(encode(&T_ContentBlockDelta, &d), json);
    CHECK_INT(aps_schema_validate(&T_ContentBlockDelta, &d, false, NULL), APS_OK);
    st = aps_schema_validate(&T_ContentBlockDelta, &d, true, &err);
    CHECK_INT(st, APS_E_UNKNOWN);
    CHECK_STR(err.pointer, "/type");
    /* ... but the tolerant decoder still checks the JSON it skips. */
    st = decode_opts(&T_ContentBlockDelta, "{\"type\":\"future\",\"n\":01}", &d, APS_CASE_SCHEMA, false);
    CHECK_INT(st, APS_E_SYNTAX);

    /* Missing discriminant: reported at the object, in tolerant mode too. */
    st = decode_opts(&T_ContentBlockDelta, "{\"text\":\"hi\"}", &d, APS_CASE_SCHEMA, false);
    CHECK_ERR(st, APS_E_MISSING, "", "missing required member 'type'");
    CHECK_INT(err.offset, 0);

    /* Wrong kinds. */
    st = decode(&T_ContentBlockDelta, "{\"type\":5}", &d);
    CHECK_ERR(st, APS_E_TYPE, "/type", NULL);
    st = decode(&T_ContentBlockDelta, "[\"type\"]", &d);
    CHECK_ERR(st, APS_E_TYPE, "", NULL);

    /* A literal member given twice is the reader's duplicate. */
    st = decode(&T_ContentBlockDelta, "{\"type\":\"text-delta\",\"text\":\"a\",\"type\":\"text-delta\"}", &d);
    CHECK_ERR(st, APS_E_DUPLICATE, "/type", NULL);

    /* Optional literal member. */
    st = decode(&T_ContentBlockDelta, "{\"type\":\"data-delta\",\"data\":\"QQ==\",\"encoding\":\"base64\"}", &d);
    CHECK_INT(st, APS_OK);
    CHECK(d.kind == CBD_DATA && d.u.data_delta.has_encoding);
    CHECK_STR(encode(&T_ContentBlockDelta, &d), "{\"type\":\"data-delta\",\"data\":\"QQ==\",\"encoding\":\"base64\"}");
    st = decode(&T_ContentBlockDelta, "{\"type\":\"data-delta\",\"data\":\"QQ==\",\"encoding\":\"hex\"}", &d);
    CHECK_ERR(st, APS_E_UNKNOWN, "/encoding", "expected \"base64\"; got \"hex\"");

    /* A struct decoded directly checks its literal member. */
    {
        TextDelta t;
        st = decode(&T_TextDelta, "{\"type\":\"text-delta\",\"text\":\"\"}", &t);
        CHECK_INT(st, APS_OK);
        st = decode(&T_TextDelta, "{\"type\":\"reasoning-delta\",\"text\":\"\"}", &t);
        CHECK_ERR(st, APS_E_UNKNOWN, "/type", "expected \"text-delta\"; got \"reasoning-delta\"");
    }
}

/* ---- envelopes with variants ------------------------------------------------------ */

static const char *const delta_event =
    "{\"type\":\"event\",\"eventId\":\"e1\",\"seq\":7,\"method\":\"messages\",\"params\":{\"namespace\":[\"a\",\"b\"],"
    "\"timestamp\":1700000000000,\"node\":\"agent\",\"data\":{\"event\":\"content-block-delta\",\"index\":0,"
    "\"delta\":{\"type\":\"text-delta\",\"text\":\"Hello \\\"w\\u00f6rld\\\"\"}}},\"x-extra\":{\"k\":[true,null]}}";

static void test_envelope(void)
{
    Message m;
    Command c;
    aps_status st;
    const char *json;

    st = decode(&T_Message, delta_event, &m);
    CHECK_INT(st, APS_OK);
    CHECK_INT(m.kind, MSG_EVENT);
    CHECK(m.u.event.has_event_id && slice_is(m.u.event.event_id, "e1"));
    CHECK(m.u.event.has_seq && m.u.event.seq == 7);
    CHECK(!m.u.event.has_run_id);
    CHECK_INT(m.u.event.data.kind, ED_MESSAGES);
    CHECK(m.u.event.data.raw.ptr == delta_event && m.u.event.data.raw.len == strlen(delta_event));
    {
        const MessagesParams *p = &m.u.event.data.u.messages.params;
        CHECK_INT(p->namespace_.count, 2);
        CHECK(slice_is(((const aps_slice *)p->namespace_.items)[1], "b"));
        CHECK(p->timestamp == 1700000000000ull);
        CHECK(p->has_node && slice_is(p->node, "agent"));
        CHECK_INT(p->data.kind, 2);
        CHECK_INT(p->data.u.content_block_delta.delta.kind, CBD_TEXT);
        CHECK(slice_is(p->data.u.content_block_delta.delta.u.text_delta.text, "Hello \"w\xc3\xb6rld\""));
    }
    CHECK_INT(m.u.event.extras.count, 1);
    CHECK(slice_is(m.u.event.extras.items[0].key, "x-extra"));
    round_trip(&T_Message, delta_event, sizeof(Message), true);

    /* The discriminants last, at every level. */
    json = "{\"params\":{\"data\":{\"delta\":{\"text\":\"t\",\"type\":\"text-delta\"},\"index\":3,"
           "\"event\":\"content-block-delta\"},\"timestamp\":1,\"namespace\":[]},\"method\":\"messages\",\"type\":\"event\"}";
    st = decode(&T_Message, json, &m);
    CHECK_INT(st, APS_OK);
    CHECK_STR(encode(&T_Message, &m),
              "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":"
              "{\"event\":\"content-block-delta\",\"index\":3,\"delta\":{\"type\":\"text-delta\",\"text\":\"t\"}}}}");

    /* Errors deep inside are located. */
    json = "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":"
           "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"txt-delta\",\"text\":\"x\"}}}}";
    st = decode(&T_Message, json, &m);
    CHECK_ERR(st, APS_E_UNKNOWN, "/params/data/delta/type",
              "expected one of \"text-delta\", \"reasoning-delta\", \"data-delta\", \"block-delta\", "
              "\"tool-call-delta\"; got \"txt-delta\"");
    json = "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":"
           "{\"event\":\"content-block-delta\",\"index\":\"0\",\"delta\":{\"type\":\"text-delta\",\"text\":\"x\"}}}}";
    st = decode(&T_Message, json, &m);
    CHECK_ERR(st, APS_E_TYPE, "/params/data/index", NULL);
    json = "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":"
           "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\"}}}}";
    st = decode(&T_Message, json, &m);
    CHECK_ERR(st, APS_E_MISSING, "/params/data/delta", "missing required member 'text'");
    json = "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1,\"node\":\"n\","
           "\"data\":{\"event\":\"message-start\",\"id\":\"m\"}}}";
    st = decode(&T_Message, json, &m);
    CHECK_ERR(st, APS_E_MISSING, "/params/data", "missing required member 'role'");
    json = "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1,\"node\":null,"
           "\"data\":{\"event\":\"message-start\",\"id\":\"m\",\"role\":\"ai\"}}}";
    st = decode(&T_Message, json, &m);
    CHECK_ERR(st, APS_E_TYPE, "/params/node", NULL);
    /* Closed params map. */
    json = "{\"type\":\"event\",\"method\":\"values\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{},\"node\":\"x\"}}";
    st = decode(&T_Message, json, &m);
    CHECK_ERR(st, APS_E_UNKNOWN, "/params/node", "unknown member 'node'");
    /* Missing params, reported at the envelope. */
    st = decode(&T_Message, "{\"type\":\"event\",\"method\":\"values\"}", &m);
    CHECK_ERR(st, APS_E_MISSING, "", "missing required member 'params'");

    /* Unknown method: strict error at /method, tolerant keeps the envelope. */
    json = "{\"type\":\"event\",\"seq\":3,\"method\":\"usage\",\"params\":{\"n\":1}}";
    st = decode(&T_Message, json, &m);
    CHECK_ERR(st, APS_E_UNKNOWN, "/method", "expected one of \"messages\", \"values\"; got \"usage\"");
    st = decode_opts(&T_Message, json, &m, APS_CASE_SCHEMA, false);
    CHECK_INT(st, APS_OK);
    CHECK_INT(m.kind, MSG_EVENT);
    CHECK_INT(m.u.event.data.kind, ED_UNKNOWN);
    CHECK(m.u.event.has_seq && m.u.event.seq == 3);
    CHECK_INT(m.u.event.extras.count, 2); /* method and params */
    CHECK(m.u.event.data.raw.ptr == json && m.u.event.data.raw.len == strlen(json));
    CHECK_STR(encode(&T_Message, &m), json);
    /* The envelope's own members are still checked. */
    st = decode_opts(&T_Message, "{\"type\":\"event\",\"seq\":-3,\"method\":\"usage\"}", &m, APS_CASE_SCHEMA, false);
    CHECK_ERR(st, APS_E_RANGE, "/seq", "expected an integer in 0..9007199254740991; got -3");
    st = decode_opts(&T_Message, "{\"type\":\"event\",\"seq\":1}", &m, APS_CASE_SCHEMA, false);
    CHECK_ERR(st, APS_E_MISSING, "", "missing required member 'method'");

    /* Top-level type unknown. */
    st = decode(&T_Message, "{\"type\":\"ok\",\"id\":1}", &m);
    CHECK_ERR(st, APS_E_UNKNOWN, "/type", "expected one of \"success\", \"error\", \"event\"; got \"ok\"");

    /* Commands: id, method, params in any order. */
    json = "{\"params\":{\"input\":{\"messages\":[]},\"assistantId\":\"agent\",\"config\":{\"a\":1,\"b\":[2]}},"
           "\"method\":\"run.start\",\"id\":12}";
    st = decode(&T_Command, json, &c);
    CHECK_INT(st, APS_OK);
    CHECK(c.id == 12 && c.data.kind == CMD_RUN_START);
    CHECK(slice_is(c.data.u.run_start.params.assistant_id, "agent"));
    CHECK(c.data.u.run_start.params.has_config && c.data.u.run_start.params.config.count == 2);
    CHECK(slice_is(((const AnyEntry *)c.data.u.run_start.params.config.items)[1].key, "b"));
    round_trip(&T_Command, json, sizeof(Command), true);
    st = decode(&T_Command, "{\"method\":\"run.start\",\"params\":{\"assistantId\":\"a\",\"input\":null}}", &c);
    CHECK_ERR(st, APS_E_MISSING, "", "missing required member 'id'");
    st = decode(&T_Command, "{\"id\":1,\"method\":\"run.start\"}", &c);
    CHECK_ERR(st, APS_E_MISSING, "", "missing required member 'params'");
    st = decode(&T_Command, "{\"id\":1,\"method\":\"run.start\",\"params\":{\"assistantId\":\"a\"}}", &c);
    CHECK_ERR(st, APS_E_MISSING, "/params", "missing required member 'input'");
    st = decode(&T_Command, "{\"id\":1,\"method\":\"Run.start\",\"params\":{}}", &c);
    CHECK_ERR(st, APS_E_UNKNOWN, "/method", NULL);
    st = decode(&T_Command, "{\"id\":1.0,\"method\":\"run.start\",\"params\":{\"assistantId\":\"a\",\"input\":1}}", &c);
    CHECK_ERR(st, APS_E_TYPE, "/id", "expected an integer, got a number with a fraction");
    st = decode(&T_Command, "{\"id\":9007199254740992,\"method\":\"run.start\",\"params\":{\"assistantId\":\"a\",\"input\":1}}", &c);
    CHECK_ERR(st, APS_E_RANGE, "/id", "expected an integer in 0..9007199254740991; got 9007199254740992");
    st = decode(&T_Command, "{\"id\":1,\"method\":\"run.start\",\"params\":[]}", &c);
    CHECK_ERR(st, APS_E_TYPE, "/params", NULL);
    st = decode(&T_Command, "\"run.start\"", &c);
    CHECK_ERR(st, APS_E_TYPE, "", NULL);
    /* Tolerant unknown command: id decoded, the rest kept. */
    json = "{\"id\":4,\"method\":\"agent.fly\",\"params\":{\"to\":\"moon\"}}";
    st = decode_opts(&T_Command, json, &c, APS_CASE_SCHEMA, false);
    CHECK_INT(st, APS_OK);
    CHECK(c.id == 4 && c.data.kind == CMD_UNKNOWN && c.extras.count == 2);
    CHECK_STR(encode(&T_Command, &c), json);
}

/* ---- key case ------------------------------------------------------------------ */

static void test_key_case(void)
{
    Message m;
    Command c;
    aps_status st;
    const char *snake = "{\"type\":\"event\",\"event_id\":\"e\",\"run_id\":\"r\",\"method\":\"values\","
                        "\"params\":{\"namespace\":[],\"timestamp\":5,\"data\":{\"graph_name\":1}}}";
    const char *camel = "{\"type\":\"event\",\"eventId\":\"e\",\"runId\":\"r\",\"method\":\"values\","
                        "\"params\":{\"namespace\":[],\"timestamp\":5,\"data\":{\"graph_name\":1}}}";

    st = decode_opts(&T_Message, snake, &m, APS_CASE_SNAKE, true);
    CHECK_INT(st, APS_OK);
    CHECK(m.u.event.has_event_id && m.u.event.has_run_id && m.u.event.extras.count == 0);
    CHECK_STR(encode_case(&T_Message, &m, APS_CASE_SNAKE), snake);
    CHECK_STR(encode_case(&T_Message, &m, APS_CASE_SCHEMA), camel);
    /* Schema spelling: the open envelope keeps snake names as unknown members. */
    st = decode_opts(&T_Message, snake, &m, APS_CASE_SCHEMA, true);
    CHECK_INT(st, APS_OK);
    CHECK(!m.u.event.has_event_id && m.u.event.extras.count == 2);
    /* Snake spelling: camelCase names are unknown. */
    st = decode_opts(&T_Message, camel, &m, APS_CASE_SNAKE, true);
    CHECK_INT(st, APS_OK);
    CHECK(!m.u.event.has_event_id && m.u.event.extras.count == 2);
    /* Either: both, but not both at once. */
    st = decode_opts(&T_Message, camel, &m, APS_CASE_EITHER, true);
    CHECK(st == APS_OK && m.u.event.has_event_id);
    st = decode_opts(&T_Message, snake, &m, APS_CASE_EITHER, true);
    CHECK(st == APS_OK && m.u.event.has_event_id);
    st = decode_opts(&T_Message, "{\"type\":\"event\",\"eventId\":\"a\",\"method\":\"values\",\"event_id\":\"b\"}", &m,
                     APS_CASE_EITHER, true);
    CHECK_ERR(st, APS_E_DUPLICATE, "/event_id", "duplicate member (given in both spellings) 'event_id'");

    /* A closed map rejects the other spelling; missing members are named in the expected spelling. */
    st = decode_opts(&T_Command, "{\"id\":1,\"method\":\"run.start\",\"params\":{\"assistant_id\":\"a\",\"input\":1}}", &c,
                     APS_CASE_SCHEMA, true);
    CHECK_ERR(st, APS_E_UNKNOWN, "/params/assistant_id", "unknown member 'assistant_id'");
    st = decode_opts(&T_Command, "{\"id\":1,\"method\":\"run.start\",\"params\":{\"input\":1}}", &c, APS_CASE_SNAKE, true);
    CHECK_ERR(st, APS_E_MISSING, "/params", "missing required member 'assistant_id'");
    st = decode_opts(&T_Command, "{\"id\":1,\"method\":\"run.start\",\"params\":{\"assistant_id\":\"a\",\"input\":1}}", &c,
                     APS_CASE_EITHER, true);
    CHECK_INT(st, APS_OK);
}

/* ---- scalars ------------------------------------------------------------------- */

static void test_scalars(void)
{
    uint64_t u;
    int64_t i;
    double f;
    bool b;
    aps_slice s;
    aps_json_raw raw;
    aps_status st;
    static const aps_type small = { APS_K_INT, "small", 8, { .i = { -5, 10 } }, NULL, NULL, NULL };
    static const aps_type ranged = { APS_K_FLOAT, "ratio", 8, { .f = { 0, 1, true, true, false, true } }, NULL, NULL, NULL };
    static const aps_type sized = { APS_K_TEXT, "id", sizeof(aps_slice), { .text = { 1, 4, NULL } }, NULL, NULL, NULL };
    static const aps_type lit1 = { APS_K_LITERAL, NULL, 0, { .lit = { APS_LIT_INT, NULL, 0, 1, 0, 0 } }, NULL, NULL, NULL };
    static const aps_type litm = { APS_K_LITERAL, NULL, 0, { .lit = { APS_LIT_INT, NULL, 0, -7, 0, 0 } }, NULL, NULL, NULL };
    static const aps_type litf = { APS_K_LITERAL, NULL, 0, { .lit = { APS_LIT_FLOAT, NULL, 0, 0, 0, 1.5 } }, NULL, NULL, NULL };
    static const aps_type litb = { APS_K_LITERAL, NULL, 0, { .lit = { APS_LIT_BOOL, NULL, 0, 1, 0, 0 } }, NULL, NULL, NULL };

    CHECK_INT(decode(&T_uint, "18446744073709551615", &u), APS_OK);
    CHECK(u == UINT64_MAX);
    st = decode(&T_uint, "18446744073709551616", &u);
    CHECK_ERR(st, APS_E_RANGE, "", "integer 18446744073709551616 is outside the 64-bit unsigned range");
    st = decode(&T_uint, "-1", &u);
    CHECK_ERR(st, APS_E_RANGE, "", "expected an integer in 0..18446744073709551615; got -1");
    CHECK_INT(decode(&T_uint, "-0", &u), APS_OK);
    CHECK(u == 0);
    st = decode(&T_uint, "1e3", &u);
    CHECK_ERR(st, APS_E_TYPE, "", "expected an integer, got a number with an exponent");
    CHECK_INT(decode(&T_int, "-9223372036854775808", &i), APS_OK);
    CHECK(i == INT64_MIN);
    st = decode(&T_int, "9223372036854775808", &i);
    CHECK_ERR(st, APS_E_RANGE, "", "integer 9223372036854775808 is outside the 64-bit signed range");
    CHECK_INT(decode(&T_js_int, "-9007199254740991", &i), APS_OK);
    st = decode(&T_js_int, "-9007199254740992", &i);
    CHECK_ERR(st, APS_E_RANGE, "", "expected an integer in -9007199254740991..9007199254740991; got -9007199254740992");
    st = decode(&small, " 11 ", &i);
    CHECK_ERR(st, APS_E_RANGE, "", "expected an integer in -5..10; got 11");
    CHECK_INT(err.offset, 1);
    st = decode(&small, "01", &i);
    CHECK_INT(st, APS_E_SYNTAX);
    st = decode(&small, "\"1\"", &i);
    CHECK_INT(st, APS_E_TYPE);

    CHECK_INT(decode(&T_float, "1e300", &f), APS_OK);
    CHECK(f == 1e300);
    CHECK_INT(decode(&ranged, "0.5", &f), APS_OK);
    st = decode(&ranged, "1", &f);
    CHECK_ERR(st, APS_E_RANGE, "", "expected a number < 1; got 1");
    st = decode(&ranged, "-0.25", &f);
    CHECK_ERR(st, APS_E_RANGE, "", "expected a number >= 0; got -0.25");

    CHECK_INT(decode(&T_bool, "true", &b), APS_OK);
    CHECK(b);
    CHECK_INT(decode(&T_bool, "null", &b), APS_E_TYPE);

    CHECK_INT(decode(&sized, "\"abcd\"", &s), APS_OK);
    st = decode(&sized, "\"\"", &s);
    CHECK_ERR(st, APS_E_RANGE, "", "expected at least 1 byte; got 0");
    st = decode(&sized, "\"abcde\"", &s);
    CHECK_ERR(st, APS_E_RANGE, "", "expected at most 4 bytes; got 5");

    /* any: zero-copy, kept exactly, big numbers included; duplicates inside are rejected. */
    {
        const char *json = " {\"a\":[1e999,123456789012345678901234567890,{}]} ";
        CHECK_INT(decode(&T_any, json, &raw), APS_OK);
        CHECK(raw.ptr == json + 1 && raw.len == strlen(json) - 2);
        st = decode(&T_any, "{\"a\":{\"b\":1,\"b\":2}}", &raw);
        CHECK_ERR(st, APS_E_DUPLICATE, "/a/b", NULL);
    }

    /* Literals: numbers by value, integers only as integers. */
    CHECK_INT(decode(&lit1, "1", NULL), APS_OK);
    st = decode(&lit1, "1.0", NULL);
    CHECK_INT(st, APS_E_TYPE);
    st = decode(&lit1, "2", NULL);
    CHECK_ERR(st, APS_E_UNKNOWN, "", "expected 1; got 2");
    CHECK_INT(decode(&litm, "-7", NULL), APS_OK);
    CHECK_INT(decode(&litm, "7", NULL), APS_E_UNKNOWN);
    CHECK_INT(decode(&litf, "15e-1", NULL), APS_OK);
    CHECK_INT(decode(&litf, "1.25", NULL), APS_E_UNKNOWN);
    CHECK_INT(decode(&litb, "true", NULL), APS_OK);
    st = decode(&litb, "false", NULL);
    CHECK_ERR(st, APS_E_UNKNOWN, "", "expected true; got false");
    CHECK_INT(decode(&T_null, "null", NULL), APS_OK);
    CHECK_INT(decode(&T_null, "0", NULL), APS_E_TYPE);

    /* The JSON text as a whole. */
    CHECK_ERR(decode(&T_uint, "1 2", &u), APS_E_SYNTAX, "", "unexpected bytes after the JSON value");
    CHECK_INT(decode(&T_uint, "", &u), APS_E_SYNTAX);
    CHECK_INT(decode(&T_text, "\"\\ud800\"", &s), APS_E_UTF8);
}

/* ---- optional, nullable, enums -------------------------------------------------- */

static void test_members(void)
{
    Message m;
    aps_status st;
    const char *json = "{\"type\":\"error\",\"id\":null,\"error\":\"no_such_run\",\"message\":\"gone\"}";
    st = decode(&T_Message, json, &m);
    CHECK_INT(st, APS_OK);
    CHECK(m.kind == MSG_ERROR && m.u.error.id_is_null && m.u.error.error == 4 && !m.u.error.has_stacktrace);
    round_trip(&T_Message, json, sizeof m, true);
    json = "{\"type\":\"error\",\"id\":9,\"error\":\"unknown_error\",\"message\":\"m\",\"stacktrace\":\"s\",\"z\":0}";
    st = decode(&T_Message, json, &m);
    CHECK(st == APS_OK && !m.u.error.id_is_null && m.u.error.id == 9 && m.u.error.has_stacktrace);
    round_trip(&T_Message, json, sizeof m, true);
    /* Nullable is not optional. */
    st = decode(&T_Message, "{\"type\":\"error\",\"error\":\"unknown_error\",\"message\":\"m\"}", &m);
    CHECK_ERR(st, APS_E_MISSING, "", "missing required member 'id'");
    st = decode(&T_Message, "{\"type\":\"error\",\"id\":\"null\",\"error\":\"unknown_error\",\"message\":\"m\"}", &m);
    CHECK_ERR(st, APS_E_TYPE, "/id", NULL);
    st = decode(&T_Message, "{\"type\":\"error\",\"id\":1,\"error\":\"timeout\",\"message\":\"m\"}", &m);
    CHECK_ERR(st, APS_E_UNKNOWN, "/error",
              "expected one of \"invalid_argument\", \"unknown_command\", \"unknown_error\", \"no_such_run\"; got \"timeout\"");
}

static void test_enum_other(void)
{
    Command c;
    aps_status st;
    const Channel *ch;
    const char *json = "{\"id\":1,\"method\":\"subscription.subscribe\",\"params\":{\"channels\":[\"values\","
                       "\"custom:my-stream\",\"custom\"],\"depth\":2}}";
    st = decode(&T_Command, json, &c);
    CHECK_INT(st, APS_OK);
    ch = (const Channel *)c.data.u.subscribe.params.channels.items;
    CHECK_INT(c.data.u.subscribe.params.channels.count, 3);
    CHECK_INT(ch[0].kind, 1);
    CHECK_INT(ch[1].kind, 0);
    CHECK(slice_is(ch[1].other, "custom:my-stream"));
    CHECK_INT(ch[2].kind, 9);
    round_trip(&T_Command, json, sizeof c, true);

    st = decode(&T_Command, "{\"id\":1,\"method\":\"subscription.subscribe\",\"params\":{\"channels\":[\"values\",\"custom:\"]}}", &c);
    CHECK_ERR(st, APS_E_UNKNOWN, "/params/channels/1",
              "expected one of \"values\", \"updates\", \"messages\", \"tools\", \"lifecycle\", \"input\", "
              "\"checkpoints\", \"tasks\", ... or a string matching custom:.+; got \"custom:\"");
    st = decode(&T_Command, "{\"id\":1,\"method\":\"subscription.subscribe\",\"params\":{\"channels\":[\"xcustom:a\"]}}", &c);
    CHECK_ERR(st, APS_E_UNKNOWN, "/params/channels/0", NULL);
    st = decode(&T_Command, "{\"id\":1,\"method\":\"subscription.subscribe\",\"params\":{\"channels\":[]}}", &c);
    CHECK_ERR(st, APS_E_RANGE, "/params/channels", "expected at least 1 element; got 0");
    st = decode(&T_Command, "{\"id\":1,\"method\":\"subscription.subscribe\",\"params\":{\"channels\":\"values\"}}", &c);
    CHECK_ERR(st, APS_E_TYPE, "/params/channels", NULL);

    /* Pattern errors of a plain text type. */
    {
        aps_slice s;
        st = decode(&T_ChannelCustom, "\"custom:\"", &s);
        CHECK_ERR(st, APS_E_PATTERN, "", "\"custom:\" does not match custom:.+");
        CHECK_INT(decode(&T_ChannelCustom, "\"custom:\\u00e9\"", &s), APS_OK);
    }
}

/* ---- kind unions, untagged unions -------------------------------------------------- */

static void test_kind_union(void)
{
    BlockIndex bi;
    Goto g;
    MetadataScalar ms;
    aps_status st;

    CHECK_INT(decode(&T_BlockIndex, "-5", &bi), APS_OK);
    CHECK(bi.kind == 1 && bi.u.i == -5 && bi.raw.len == 2);
    CHECK_INT(decode(&T_BlockIndex, "\"lc_1\"", &bi), APS_OK);
    CHECK(bi.kind == 2 && slice_is(bi.u.s, "lc_1"));
    st = decode(&T_BlockIndex, "9007199254740992", &bi);
    CHECK_ERR(st, APS_E_RANGE, "", "expected an integer in -9007199254740991..9007199254740991; got 9007199254740992");
    st = decode(&T_BlockIndex, "1.5", &bi);
    CHECK_ERR(st, APS_E_TYPE, "", "expected an integer or a string; got a number");
    st = decode(&T_BlockIndex, "true", &bi);
    CHECK_ERR(st, APS_E_TYPE, "", "expected an integer or a string; got a boolean");
    CHECK_INT(decode(&T_BlockIndex, "tru", &bi), APS_E_SYNTAX);
    CHECK_INT(decode(&T_BlockIndex, "", &bi), APS_E_SYNTAX);

    CHECK_INT(decode(&T_Goto, "\"node\"", &g), APS_OK);
    CHECK(g.kind == 1);
    CHECK_INT(decode(&T_Goto, "{\"node\":\"n\",\"input\":[1]}", &g), APS_OK);
    CHECK(g.kind == 2 && g.u.send.has_input);
    CHECK_INT(decode(&T_Goto, "[\"a\",{\"node\":\"b\"}]", &g), APS_OK);
    CHECK(g.kind == 3 && g.u.list.count == 2);
    CHECK_INT(((const GotoItem *)g.u.list.items)[1].kind, 2);
    CHECK_STR(encode(&T_Goto, &g), "[\"a\",{\"node\":\"b\"}]");
    st = decode(&T_Goto, "5", &g);
    CHECK_ERR(st, APS_E_TYPE, "", "expected a string, an object or an array; got a number");
    st = decode(&T_Goto, "[\"a\",{\"node\":\"b\"},{\"priority\":1}]", &g);
    CHECK_ERR(st, APS_E_UNKNOWN, "/2/priority", "unknown member 'priority'");
    st = decode(&T_Goto, "[\"a\",{},{}]", &g);
    CHECK_ERR(st, APS_E_MISSING, "/1", "missing required member 'node'");
    st = decode(&T_Goto, "[7]", &g);
    CHECK_ERR(st, APS_E_TYPE, "/0", "expected a string or an object; got a number");

    CHECK_INT(decode(&T_MetadataScalar, "null", &ms), APS_OK);
    CHECK_INT(ms.kind, 1);
    CHECK_INT(decode(&T_MetadataScalar, "false", &ms), APS_OK);
    CHECK_INT(ms.kind, 2);
    CHECK_INT(decode(&T_MetadataScalar, "-12", &ms), APS_OK);
    CHECK(ms.kind == 3 && ms.u.i == -12);
    CHECK_INT(decode(&T_MetadataScalar, "-1.2e1", &ms), APS_OK);
    CHECK(ms.kind == 4 && ms.u.f == -12.0);
    CHECK_INT(decode(&T_MetadataScalar, "\"s\"", &ms), APS_OK);
    CHECK_INT(ms.kind, 5);
    st = decode(&T_MetadataScalar, "{}", &ms);
    CHECK_ERR(st, APS_E_TYPE, "", "expected null, a boolean, an integer, a number or a string; got an object");
}

/* A kind union with literal alternatives of one kind: "auto" / "none" / text. */
static const aps_type L_auto = { APS_K_LITERAL, NULL, 0, { .lit = TXT("auto") }, NULL, NULL, NULL };
static const aps_type L_none = { APS_K_LITERAL, NULL, 0, { .lit = TXT("none") }, NULL, NULL, NULL };
static const aps_type *const Choice_alts[] = { &L_auto, &L_none, &T_ChannelCustom };
typedef struct Choice {
    int kind;
    aps_json_raw raw;
    aps_slice s;
} Choice;
static const aps_type T_Choice = { APS_K_UNION, "Choice", sizeof(Choice),
                                   { .un = { APS_U_KIND, Choice_alts, 3, NULL, NULL, offsetof(Choice, kind),
                                             offsetof(Choice, s), offsetof(Choice, raw) } }, NULL, NULL, NULL };

static void test_kind_literals(void)
{
    Choice c;
    aps_status st;
    CHECK_INT(decode(&T_Choice, "\"auto\"", &c), APS_OK);
    CHECK_INT(c.kind, 1);
    CHECK_INT(decode(&T_Choice, "\"n\\u006fne\"", &c), APS_OK);
    CHECK_INT(c.kind, 2);
    CHECK_INT(decode(&T_Choice, "\"custom:x\"", &c), APS_OK);
    CHECK(c.kind == 3 && slice_is(c.s, "custom:x"));
    CHECK_STR(encode(&T_Choice, &c), "\"custom:x\"");
    c.kind = 2;
    CHECK_STR(encode(&T_Choice, &c), "\"none\"");
    st = decode(&T_Choice, "\"other\"", &c);
    CHECK_ERR(st, APS_E_PATTERN, "", "\"other\" does not match custom:.+");
}

static void test_untagged(void)
{
    Command c;
    Message m;
    aps_status st;
    const char *one = "{\"id\":1,\"method\":\"input.respond\",\"params\":{\"namespace\":[],\"interruptId\":\"i\","
                      "\"response\":{\"ok\":true},\"goto\":[\"a\"]}}";
    const char *many = "{\"id\":1,\"method\":\"input.respond\",\"params\":{\"responses\":[{\"namespace\":[\"s\"],"
                       "\"interruptId\":\"i\",\"response\":1}],\"goto\":{\"node\":\"x\"}}}";
    st = decode(&T_Command, one, &c);
    CHECK_INT(st, APS_OK);
    CHECK_INT(c.data.u.input_respond.params.kind, 1);
    CHECK(c.data.u.input_respond.params.raw.len > 0 && c.data.u.input_respond.params.raw.ptr[0] == '{');
    round_trip(&T_Command, one, sizeof c, true);
    st = decode(&T_Command, many, &c);
    CHECK_INT(st, APS_OK);
    CHECK_INT(c.data.u.input_respond.params.kind, 2);
    CHECK_INT(c.data.u.input_respond.params.u.many.goto_.kind, 2);
    round_trip(&T_Command, many, sizeof c, true);

    /* Neither: the error of the alternative that got furthest, marked as a choice. */
    st = decode(&T_Command, "{\"id\":1,\"method\":\"input.respond\",\"params\":{\"namespace\":[],\"interruptId\":\"i\","
                            "\"response\":1,\"responses\":[]}}", &c);
    CHECK_ERR(st, APS_E_UNKNOWN, "/params/responses",
              "no alternative of InputRespondParams matches: unknown member 'responses'");
    st = decode(&T_Command, "{\"id\":1,\"method\":\"input.respond\",\"params\":{\"responses\":[{\"namespace\":[],"
                            "\"interruptId\":\"i\"}]}}", &c);
    CHECK_ERR(st, APS_E_MISSING, "/params/responses/0",
              "no alternative of InputRespondParams matches: missing required member 'response'");
    st = decode(&T_Command, "{\"id\":1,\"method\":\"input.respond\",\"params\":7}", &c);
    CHECK_INT(st, APS_E_TYPE);
    CHECK_STR(err.pointer, "/params");
    /* Malformed JSON inside is reported as such, not as a failed choice. */
    st = decode(&T_Command, "{\"id\":1,\"method\":\"input.respond\",\"params\":{\"responses\":[{\"namespace\":[],"
                            "\"interruptId\":\"\\q\"}]}}", &c);
    CHECK_INT(st, APS_E_SYNTAX);

    /* ResultData: first alternative that decodes; EmptyResult takes any object. */
    st = decode(&T_Message, "{\"type\":\"success\",\"id\":3,\"result\":{\"runId\":\"r\"}}", &m);
    CHECK(st == APS_OK && m.u.success.result.kind == 1);
    st = decode(&T_Message, "{\"type\":\"success\",\"id\":3,\"result\":{\"tree\":{\"a\":1}}}", &m);
    CHECK(st == APS_OK && m.u.success.result.kind == 2);
    st = decode(&T_Message, "{\"type\":\"success\",\"id\":3,\"result\":{\"runId\":\"r\",\"more\":1}}", &m);
    CHECK(st == APS_OK && m.u.success.result.kind == 3 && m.u.success.result.u.empty.extras.count == 2);
    round_trip(&T_Message, "{\"type\":\"success\",\"id\":3,\"result\":{\"runId\":\"r\",\"more\":1}}", sizeof m, true);
    st = decode(&T_Message, "{\"type\":\"success\",\"id\":3,\"result\":null}", &m);
    CHECK_INT(st, APS_E_TYPE);
    CHECK_STR(err.pointer, "/result");

    /* decode_as: the alternative the application knows from context. */
    {
        ResultData r;
        st = aps_schema_decode_as(&T_ResultData, 2, "{\"runId\":\"r\"}", 13, &arena, &r, NULL, &err);
        CHECK(st == APS_OK && r.kind == 3 && r.u.empty.extras.count == 1);
        CHECK_INT(aps_schema_decode_as(&T_ResultData, 3, "{}", 2, &arena, &r, NULL, NULL), APS_E_ARGUMENT);
        CHECK_INT(aps_schema_decode_as(&T_TextDelta, 0, "{}", 2, &arena, &r, NULL, NULL), APS_E_ARGUMENT);
        aps_error_clear(&err);
        st = aps_schema_decode_as(&T_ResultData, 0, "{\"runId\":1}", 11, &arena, &r, NULL, &err);
        CHECK_ERR(st, APS_E_TYPE, "/runId", NULL);
    }
}

/* ---- open maps with a typed tail, maps ------------------------------------------------ */

static void test_open_typed(void)
{
    Message m;
    aps_status st;
    const char *json = "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1,"
                       "\"data\":{\"event\":\"message-start\",\"role\":\"ai\",\"id\":\"m1\",\"metadata\":{\"provider\":\"p\","
                       "\"temperature\":0.5,\"tier\":\"t\\u00e9\",\"cached\":true,\"n\":3,\"nothing\":null}}}}";
    const MessageMetadata *md;
    st = decode(&T_Message, json, &m);
    CHECK_INT(st, APS_OK);
    md = &m.u.event.data.u.messages.params.data.u.message_start.metadata;
    CHECK(md->has_provider && !md->has_model);
    CHECK_INT(md->extras.count, 5);
    CHECK(slice_is(md->extras.items[1].key, "tier") && md->extras.items[1].value.len == 9);
    round_trip(&T_Message, json, sizeof m, true);

    st = decode(&T_Message, "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1,"
                            "\"data\":{\"event\":\"message-start\",\"role\":\"ai\",\"id\":\"m1\",\"metadata\":{\"region\":[1]}}}}", &m);
    CHECK_ERR(st, APS_E_TYPE, "/params/data/metadata/region",
              "expected null, a boolean, an integer, a number or a string; got an array");
    /* A named member binds its key even in an open map. */
    st = decode(&T_Message, "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1,"
                            "\"data\":{\"event\":\"message-start\",\"role\":\"ai\",\"id\":\"m1\",\"metadata\":{\"provider\":5}}}}", &m);
    CHECK_ERR(st, APS_E_TYPE, "/params/data/metadata/provider", NULL);
    st = decode(&T_Message, "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1,"
                            "\"data\":{\"event\":\"message-start\",\"role\":\"assistant\",\"id\":\"m1\"}}}", &m);
    CHECK_ERR(st, APS_E_UNKNOWN, "/params/data/role", "expected one of \"ai\", \"human\", \"system\"; got \"assistant\"");

    /* Many typed extras: escaped strings in scratch, arena given back. */
    {
        char big[40000];
        size_t n = 0, i;
        MessageMetadata meta;
        n += (size_t)snprintf(big + n, sizeof big - n, "{");
        for (i = 0; i < 1000; i++)
            n += (size_t)snprintf(big + n, sizeof big - n, "%s\"k%zu\":\"v\\n%zu\"", i ? "," : "", i, i);
        snprintf(big + n, sizeof big - n, "}");
        st = decode(&T_MessageMetadata, big, &meta);
        CHECK_INT(st, APS_OK);
        CHECK_INT(meta.extras.count, 1000);
        CHECK(slice_is(meta.extras.items[999].key, "k999"));
        CHECK_INT(aps_schema_validate(&T_MessageMetadata, &meta, true, NULL), APS_OK);
    }
}

static void test_map(void)
{
    static const aps_type bounded = { APS_K_MAP, NULL, sizeof(aps_array),
                                      { .map = { &T_any, sizeof(AnyEntry), offsetof(AnyEntry, value), 1, 2 } }, NULL, NULL, NULL };
    aps_array a;
    aps_status st;
    CHECK_INT(decode(&T_AnyMap, "{}", &a), APS_OK);
    CHECK(a.count == 0);
    CHECK_INT(decode(&T_AnyMap, "{\"a\\/b\":1,\"c\":{\"d\":[]}}", &a), APS_OK);
    CHECK(a.count == 2 && slice_is(((const AnyEntry *)a.items)[0].key, "a/b"));
    CHECK_STR(encode(&T_AnyMap, &a), "{\"a/b\":1,\"c\":{\"d\":[]}}");
    st = decode(&bounded, "{}", &a);
    CHECK_ERR(st, APS_E_RANGE, "", "expected at least 1 member; got 0");
    st = decode(&bounded, "{\"a\":1,\"b\":2,\"c\":3}", &a);
    CHECK_ERR(st, APS_E_RANGE, "", "expected at most 2 members; got 3");
    st = decode(&T_AnyMap, "{\"a\":1,\"a\":2}", &a);
    CHECK_ERR(st, APS_E_DUPLICATE, "/a", NULL);
}

/* ---- member order, large structs -------------------------------------------------- */

static void test_order(void)
{
    static const char *const perms[] = {
        "{\"type\":\"event\",\"method\":\"values\",\"seq\":1,\"params\":{\"namespace\":[\"a\"],\"timestamp\":2,\"data\":[]}}",
        "{\"params\":{\"data\":[],\"timestamp\":2,\"namespace\":[\"a\"]},\"seq\":1,\"method\":\"values\",\"type\":\"event\"}",
        "{\"seq\":1,\"type\":\"event\",\"params\":{\"timestamp\":2,\"namespace\":[\"a\"],\"data\":[]},\"method\":\"values\"}",
    };
    char first[8192]; /* as large as the encoder's buffer: the copy is never cut */
    size_t i;
    Message m;
    for (i = 0; i < 3; i++) {
        const char *out;
        CHECK_INT(decode(&T_Message, perms[i], &m), APS_OK);
        out = encode(&T_Message, &m);
        CHECK(out != NULL);
        if (out == NULL)
            continue;
        if (i == 0)
            snprintf(first, sizeof first, "%s", out);
        else
            CHECK_STR(out, first);
    }
}

#define WIDE 70
typedef struct Wide {
    uint64_t v[WIDE];
    bool has[WIDE];
} Wide;

static void test_wide(void)
{
    aps_field fields[WIDE];
    char names[WIDE][8];
    char json[2048];
    aps_type t;
    Wide w;
    size_t i, n = 0;
    aps_status st;
    for (i = 0; i < WIDE; i++) {
        snprintf(names[i], sizeof names[i], "f%zu", i);
        fields[i].key = fields[i].snake = names[i];
        fields[i].key_len = fields[i].snake_len = strlen(names[i]);
        fields[i].type = &T_uint;
        fields[i].offset = offsetof(Wide, v) + i * sizeof(uint64_t);
        fields[i].present_offset = offsetof(Wide, has) + i;
        fields[i].null_offset = 0;
        fields[i].flags = i % 2 ? APS_F_OPTIONAL : 0;
    }
    memset(&t, 0, sizeof t);
    t.kind = APS_K_STRUCT;
    t.name = "Wide";
    t.size = sizeof(Wide);
    t.u.st.fields = fields;
    t.u.st.nfields = WIDE;
    /* All required members, backwards. */
    n += (size_t)snprintf(json + n, sizeof json - n, "{");
    for (i = WIDE; i-- > 0;)
        if (i % 2 == 0)
            n += (size_t)snprintf(json + n, sizeof json - n, "\"f%zu\":%zu%s", i, i, i > 0 ? "," : "");
    snprintf(json + n, sizeof json - n, "}");
    st = decode(&t, json, &w);
    CHECK_INT(st, APS_OK);
    CHECK(w.v[68] == 68 && w.v[0] == 0 && !w.has[69]);
    /* Without f68: the bitmap past 64 fields still finds it missing. */
    st = decode(&t, "{\"f0\":0}", &w);
    CHECK_ERR(st, APS_E_MISSING, "", "missing required member 'f2'");
    memcpy(json, "{\"f", 3);
    n = 0;
    n += (size_t)snprintf(json + n, sizeof json - n, "{");
    for (i = 0; i < WIDE; i += 2)
        if (i != 68)
            n += (size_t)snprintf(json + n, sizeof json - n, "%s\"f%zu\":1", i ? "," : "", i);
    snprintf(json + n, sizeof json - n, ",\"f69\":1}");
    st = decode(&t, json, &w);
    CHECK_ERR(st, APS_E_MISSING, "", "missing required member 'f68'");
}

/* ---- validation of values built by hand ------------------------------------------------ */

static void test_validate(void)
{
    Message m;
    Command c;
    aps_status st;
    MessagesParams *p;
    Channel *ch;
    char bad_utf8[2] = { (char)0xC3, 0 };

    CHECK_INT(decode(&T_Message, delta_event, &m), APS_OK);
    p = &m.u.event.data.u.messages.params;
    p->data.u.content_block_delta.delta.u.text_delta.text.ptr = NULL;
    aps_error_clear(&err);
    st = aps_schema_validate(&T_Message, &m, true, &err);
    CHECK_ERR(st, APS_E_ARGUMENT, "/params/data/delta/text", NULL);
    CHECK(err.offset == SIZE_MAX);
    p->data.u.content_block_delta.delta.u.text_delta.text.ptr = bad_utf8;
    p->data.u.content_block_delta.delta.u.text_delta.text.len = 1;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Message, &m, true, &err), APS_E_UTF8, "/params/data/delta/text", NULL);
    p->data.u.content_block_delta.delta.u.text_delta.text.len = 0;
    p->data.u.content_block_delta.delta.kind = 9;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Message, &m, true, &err), APS_E_ARGUMENT, "/params/data/delta", NULL);
    CHECK(encode(&T_Message, &m) == NULL);
    p->data.u.content_block_delta.delta.kind = 1;
    m.u.event.seq = 9007199254740992ull;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Message, &m, true, &err), APS_E_RANGE, "/seq",
              "expected an integer in 0..9007199254740991; got 9007199254740992");
    m.u.event.seq = 1;
    CHECK_INT(aps_schema_validate(&T_Message, &m, true, NULL), APS_OK);
    m.u.event.extras.items[0].key.ptr = "runId"; /* the other spelling of run_id: fine */
    m.u.event.extras.items[0].key.len = 5;
    CHECK_INT(aps_schema_validate(&T_Message, &m, true, NULL), APS_OK);
    m.u.event.extras.items[0].key.ptr = "seq"; /* seq in every spelling: a duplicate */
    m.u.event.extras.items[0].key.len = 3;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Message, &m, true, &err), APS_E_DUPLICATE, "/seq", NULL);
    m.u.event.extras.items[0].key.ptr = "a~b/c";
    m.u.event.extras.items[0].key.len = 5;
    m.u.event.extras.items[0].value.ptr = "{\"x\":1,\"x\":2}";
    m.u.event.extras.items[0].value.len = 13;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Message, &m, true, &err), APS_E_DUPLICATE, "/a~0b~1c", NULL);
    m.u.event.extras.count = 0;
    m.u.event.data.kind = 0;
    m.u.event.data.raw.ptr = "{}";
    m.u.event.data.raw.len = 2;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Message, &m, true, &err), APS_E_UNKNOWN, "/method", NULL);
    CHECK_INT(aps_schema_validate(&T_Message, &m, false, NULL), APS_OK);

    CHECK_INT(decode(&T_Command, "{\"id\":1,\"method\":\"subscription.subscribe\",\"params\":{\"channels\":[\"values\"]}}", &c),
              APS_OK);
    ch = (Channel *)c.data.u.subscribe.params.channels.items;
    ch[0].kind = 0;
    ch[0].other.ptr = "custom:";
    ch[0].other.len = 7;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Command, &c, true, &err), APS_E_PATTERN, "/params/channels/0",
              "\"custom:\" does not match custom:.+");
    ch[0].other.ptr = "\xff";
    ch[0].other.len = 1;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Command, &c, true, &err), APS_E_UTF8, "/params/channels/0", NULL);
    ch[0].kind = 10;
    CHECK_INT(aps_schema_validate(&T_Command, &c, true, NULL), APS_E_ARGUMENT);
    ch[0].kind = 1;
    c.data.u.subscribe.params.channels.count = 0;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Command, &c, true, &err), APS_E_RANGE, "/params/channels",
              "expected at least 1 element; got 0");

    /* A value built from scratch. */
    {
        Command b;
        aps_slice ns[1];
        InputRespondEntry e;
        memset(&b, 0, sizeof b);
        memset(&e, 0, sizeof e);
        ns[0].ptr = "x";
        ns[0].len = 1;
        b.id = 5;
        b.data.kind = CMD_INPUT_RESPOND;
        b.data.u.input_respond.params.kind = 2;
        e.namespace_.items = ns;
        e.namespace_.count = 1;
        e.interrupt_id.ptr = "i";
        e.interrupt_id.len = 1;
        aps_error_clear(&err);
        b.data.u.input_respond.params.u.many.responses.items = &e;
        b.data.u.input_respond.params.u.many.responses.count = 1;
        CHECK_ERR(aps_schema_validate(&T_Command, &b, true, &err), APS_E_MISSING, "/params/responses/0/response", NULL);
        CHECK(encode(&T_Command, &b) == NULL);
        e.response.ptr = "[1, 2]";
        e.response.len = 6;
        CHECK_INT(aps_schema_validate(&T_Command, &b, true, NULL), APS_OK);
        CHECK_STR(encode(&T_Command, &b), "{\"id\":5,\"method\":\"input.respond\",\"params\":{\"responses\":"
                                          "[{\"namespace\":[\"x\"],\"interruptId\":\"i\",\"response\":[1,2]}]}}");
        CHECK_STR(encode_case(&T_Command, &b, APS_CASE_SNAKE), "{\"id\":5,\"method\":\"input.respond\",\"params\":"
                  "{\"responses\":[{\"namespace\":[\"x\"],\"interrupt_id\":\"i\",\"response\":[1,2]}]}}");
    }
    CHECK_INT(aps_schema_validate(NULL, &c, true, NULL), APS_E_ARGUMENT);
}

/* ---- UTF-8: the fast paths against an oracle --------------------------------------------- */

/*
 * The oracle learns valid UTF-8 only from aps_utf8_encode: every prefix of
 * the encoding of every scalar value is marked (four-byte sequences are
 * whole, and checked by encoding their value again). A byte is invalid when
 * the sequence up to it is no such prefix; the strict decoder's ranges are
 * not repeated here.
 */
static unsigned char utf8_mark1[1u << 5], utf8_mark2[1u << 13], utf8_mark3[1u << 21];

#define UTF8_BIT(set, i) ((set)[(i) >> 3] & (1u << ((i) & 7)))

static void utf8_oracle_init(void)
{
    uint32_t cp, a, b, c;
    uint8_t e[4];
    size_t n;
    for (cp = 0; cp <= 0x10FFFF; cp++) {
        if ((n = aps_utf8_encode(cp, e)) == 0)
            continue;
        a = e[0];
        b = a << 8 | e[n > 1 ? 1 : 0];
        c = b << 8 | e[n > 2 ? 2 : 0];
        utf8_mark1[a >> 3] |= (unsigned char)(1u << (a & 7));
        if (n > 1)
            utf8_mark2[b >> 3] |= (unsigned char)(1u << (b & 7));
        if (n > 2)
            utf8_mark3[c >> 3] |= (unsigned char)(1u << (c & 7));
    }
}

/* Are the first k bytes of s the start (or the whole) of an encoded scalar value? */
static bool utf8_prefix_ok(const uint8_t *s, size_t k)
{
    uint32_t cp;
    uint8_t e[4];
    if (k == 1)
        return UTF8_BIT(utf8_mark1, s[0]) != 0;
    if (k == 2)
        return UTF8_BIT(utf8_mark2, (uint32_t)s[0] << 8 | s[1]) != 0;
    if (k == 3)
        return UTF8_BIT(utf8_mark3, (uint32_t)s[0] << 16 | (uint32_t)s[1] << 8 | s[2]) != 0;
    cp = (uint32_t)(s[0] & 7) << 18 | (uint32_t)(s[1] & 0x3F) << 12 | (uint32_t)(s[2] & 0x3F) << 6 | (s[3] & 0x3F);
    return aps_utf8_encode(cp, e) == 4 && memcmp(e, s, 4) == 0;
}

/*
 * Offset of the first byte no valid text has there (SIZE_MAX: none); *cut
 * says the text only ends inside a character, whose first byte it is.
 */
static size_t utf8_oracle(const uint8_t *s, size_t len, bool *cut)
{
    size_t i = 0, k, n;
    *cut = false;
    while (i < len) {
        n = s[i] < 0x80 ? 1 : s[i] >= 0xF0 ? 4 : s[i] >= 0xE0 ? 3 : s[i] >= 0xC0 ? 2 : 0;
        if (n == 0 || !utf8_prefix_ok(s + i, 1))
            return i;
        for (k = 1; k < n; k++) {
            if (i + k == len) {
                *cut = true;
                return i;
            }
            if (!utf8_prefix_ok(s + i, k + 1))
                return i + k;
        }
        i += n;
    }
    return SIZE_MAX;
}

/* aps_utf8_feed over s cut at `at` into two chunks; also whether the input ended on a boundary. */
static size_t utf8_feed2(const uint8_t *s, size_t len, size_t at, bool *complete)
{
    aps_utf8_state st = APS_UTF8_STATE_INIT;
    size_t bad = aps_utf8_feed(&st, s, at);
    if (bad == SIZE_MAX && (bad = aps_utf8_feed(&st, s + at, len - at)) != SIZE_MAX)
        bad += at;
    *complete = aps_utf8_complete(&st) != 0;
    return bad;
}

/* aps_utf8_feed one byte at a time, from the state *st. */
static size_t utf8_feed_bytes(aps_utf8_state *st, const uint8_t *s, size_t len)
{
    size_t i;
    for (i = 0; i < len; i++) {
        if (aps_utf8_feed(st, s + i, 1) != SIZE_MAX)
            break;
    }
    return i < len ? i : SIZE_MAX;
}

/*
 * Compares aps_utf8_check, and aps_utf8_feed byte by byte and in two chunks
 * cut at each offset in [from, to], with the oracle; false on a difference.
 */
static bool utf8_agrees(const uint8_t *s, size_t len, size_t from, size_t to)
{
    bool cut, complete;
    size_t want = utf8_oracle(s, len, &cut), want_feed = cut ? SIZE_MAX : want, at;
    aps_utf8_state whole, bytes;
    if (aps_utf8_check(s, len) != want)
        return false;
    /* Whole and byte by byte, from a zeroed state (which the header allows
     * too): the same answer and the same state after it. */
    memset(&whole, 0, sizeof whole);
    memset(&bytes, 0, sizeof bytes);
    if (aps_utf8_feed(&whole, s, len) != want_feed || utf8_feed_bytes(&bytes, s, len) != want_feed ||
        whole.need != bytes.need || whole.lo != bytes.lo || whole.hi != bytes.hi)
        return false;
    complete = aps_utf8_complete(&whole) != 0;
    if ((want == SIZE_MAX && !complete) || (cut && complete))
        return false;
    for (at = from; at <= to; at++) {
        if (utf8_feed2(s, len, at, &complete) != want_feed || (want == SIZE_MAX && !complete) || (cut && complete))
            return false;
    }
    return true;
}

static void test_utf8(void)
{
    /* Bytes where the rules change: ASCII, continuation bounds, every special lead byte. */
    static const uint8_t edge[] = { 0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                    0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF };
    /* Valid characters at the edges of each range, then overlongs, surrogates, values
     * above U+10FFFF, stray and impossible bytes, and truncated sequences. */
    static const char *const probe[] = {
        "\xC2\x80", "\xC3\xA9", "\xDF\xBF", "\xE0\xA0\x80", "\xE2\x82\xAC", "\xED\x9F\xBF", "\xEE\x80\x80",
        "\xEF\xBF\xBF", "\xF0\x90\x80\x80", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF",
        "\xC0\xAF", "\xC1\xBF", "\xE0\x80\xAF", "\xE0\x9F\xBF", "\xF0\x80\x80\xAF", "\xF0\x8F\xBF\xBF",
        "\xED\xA0\x80", "\xED\xBF\xBF", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80", "\xF8\x88\x80\x80\x80",
        "\x80", "\xBF", "\xFE", "\xFF", "\xC3", "\xE2\x82", "\xE2", "\xF0\x9F\x98", "\xF0\x9F", "\xF0",
    };
    uint8_t s[160];
    size_t len, p, i, k, total = 0, failed = 0;
    uint64_t rng = 42;
    uint32_t x;

    utf8_oracle_init();
    /* Exhaustively: every string of up to two bytes, and of three and four edge bytes. */
    for (x = 0; x < 256 + 65536; x++) {
        len = x < 256 ? 1 : 2;
        s[0] = (uint8_t)(x < 256 ? x : (x - 256) >> 8);
        s[1] = (uint8_t)(x - 256);
        failed += !utf8_agrees(s, len, 0, len);
        total++;
    }
    for (len = 3; len <= 4; len++) {
        size_t nedge = sizeof edge, count = len == 3 ? nedge * nedge * nedge : nedge * nedge * nedge * nedge;
        for (x = 0; x < count; x++) {
            uint32_t r = x;
            for (i = 0; i < len; i++, r /= (uint32_t)nedge)
                s[i] = edge[r % nedge];
            failed += !utf8_agrees(s, len, 0, len);
            total++;
        }
    }
    CHECK(aps_utf8_check(NULL, 0) == SIZE_MAX);

    /* Every probe at every offset of ASCII text up to 72 bytes long: before, inside and
     * after each 8- and 16-byte step, and at the very end (where truncated ones are cut). */
    for (len = 0; len <= 72; len++) {
        for (p = 0; p <= len; p++) {
            for (k = 0; k < sizeof probe / sizeof probe[0]; k++) {
                size_t n = strlen(probe[k]);
                for (i = 0; i < len; i++)
                    s[i < p ? i : i + n] = (uint8_t)('a' + i % 26);
                memcpy(s + p, probe[k], n);
                failed += !utf8_agrees(s, len + n, len < 40 ? 0 : len + n, len + n);
                total++;
            }
        }
    }

    /* Random texts: runs of ASCII, probes and random bytes, checked and split at random. */
    for (k = 0; k < 200000; k++) {
        len = 0;
        while (len < 100 && test_rand(&rng) % 8 != 0) {
            uint64_t r = test_rand(&rng);
            if (r % 3 == 0) {
                size_t run = (size_t)(r >> 8) % 24;
                for (i = 0; i < run && len < 140; i++)
                    s[len++] = (uint8_t)(' ' + (r >> (i % 40)) % 95);
            } else if (r % 3 == 1) {
                const char *pr = probe[(r >> 8) % (sizeof probe / sizeof probe[0])];
                if (len + strlen(pr) < sizeof s) {
                    memcpy(s + len, pr, strlen(pr));
                    len += strlen(pr);
                }
            } else {
                s[len++] = (uint8_t)(r >> 8);
            }
        }
        p = (size_t)(test_rand(&rng) % (len + 1));
        failed += !utf8_agrees(s, len, p, p);
        total++;
    }
    CHECK(total > 700000);
    CHECK_INT(failed, 0);
}

/* The validator's string check: a bad byte at every offset, across the fast path's steps. */
static void test_validate_utf8(void)
{
    /* bad sequences, and the offset within them of the byte reported (the truncated
     * E2 82 is reported at the ASCII byte after it, or at its lead byte when it ends the string) */
    static const char *const bad[] = { "\x80", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82" };
    static const size_t bad_at[] = { 0, 0, 1, 1, 2 };
    char text[96], want[96];
    size_t len, p, k;
    Message m;
    aps_slice *t;
    CHECK_INT(decode(&T_Message, delta_event, &m), APS_OK);
    t = &m.u.event.data.u.messages.params.data.u.content_block_delta.delta.u.text_delta.text;
    for (len = 0; len <= 40; len++) {
        for (p = 0; p <= len; p++) {
            for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
                size_t n = strlen(bad[k]), i, at = p + (k == 4 && p == len ? 0 : bad_at[k]);
                for (i = 0; i < len + n; i++)
                    text[i] = (char)('A' + i % 26);
                memcpy(text + p, bad[k], n);
                t->ptr = text;
                t->len = len + n;
                aps_error_clear(&err);
                snprintf(want, sizeof want, "invalid UTF-8 at byte %zu of the string", at);
                CHECK_ERR(aps_schema_validate(&T_Message, &m, true, &err), APS_E_UTF8, "/params/data/delta/text", want);
            }
            /* and a valid character there passes */
            for (k = 0; k < len; k++)
                text[k] = (char)('A' + k % 26);
            memcpy(text + p, "\xF0\x9F\x98\x80", 4);
            t->len = len + 4;
            CHECK_INT(aps_schema_validate(&T_Message, &m, true, NULL), APS_OK);
        }
    }
}

/*
 * The JSON Pointer is put together only when a check fails, from the steps
 * of the levels the failure returns through: member names, indices, map
 * keys, unknown members, discriminants; none for a map key itself or a
 * union's alternative. A pointer longer than the error's buffer is cut at
 * the end; an error already set is left alone.
 */
static void test_validate_paths(void)
{
    enum { CHAIN = 513 };
    TreeNode *nodes = (TreeNode *)calloc(CHAIN, sizeof *nodes), pair[2];
    char want[APS_ERROR_POINTER_MAX * 2], *w;
    AnyEntry entries[2];
    MessageMetadata meta;
    aps_json_member extra;
    aps_array map;
    double f;
    size_t i;
    Message m;

    /* TreeNode nests two containers a level: 512 nodes are 1023, 513 one too many. */
    for (i = 0; i < CHAIN; i++) {
        nodes[i].graph_name.ptr = "g";
        nodes[i].graph_name.len = 1;
        nodes[i].has_children = i + 1 < CHAIN;
        nodes[i].children.items = i + 1 < CHAIN ? &nodes[i + 1] : NULL;
        nodes[i].children.count = i + 1 < CHAIN ? 1 : 0;
    }
    /* Far down, the pointer keeps its outermost steps: 23 whole pairs of 11 bytes fit
     * in 255, then the cut leaves a '/' for each of the two steps that began. */
    for (w = want, i = 0; i < 23; i++)
        w += snprintf(w, sizeof want - (size_t)(w - want), "/children/0");
    strcpy(w, "//");
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_TreeNode, nodes, true, &err), APS_E_DEPTH, want,
              "typed values nested deeper than 1024 levels");
    CHECK_INT(aps_schema_validate(&T_TreeNode, &nodes[1], true, NULL), APS_OK);
    nodes[400].graph_name.ptr = "\xFF";
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_TreeNode, &nodes[1], true, &err), APS_E_UTF8, want, NULL);
    /* Near the top, whole: index steps and member steps. */
    nodes[400].graph_name.ptr = "g";
    nodes[3].graph_name.ptr = "\xFF";
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_TreeNode, &nodes[1], true, &err), APS_E_UTF8, "/children/0/children/0/graphName",
              "invalid UTF-8 at byte 0 of the string");
    nodes[3].graph_name.ptr = "g";
    memset(pair, 0, sizeof pair);
    pair[0].graph_name.ptr = "a";
    pair[0].graph_name.len = 1;
    pair[1].graph_name.len = 3; /* a NULL pointer with a length */
    nodes[2].children.items = pair;
    nodes[2].children.count = 2;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_TreeNode, &nodes[1], true, &err), APS_E_ARGUMENT, "/children/0/children/1/graphName",
              "string of 3 bytes with a NULL pointer");
    /* An error left from an earlier call is cleared, not kept: the record says
     * what this call found. No error record at all is fine too. */
    strcpy(err.pointer, "/kept");
    strcpy(err.message, "kept");
    err.code = APS_E_SYNTAX;
    CHECK_ERR(aps_schema_validate(&T_TreeNode, &nodes[1], true, &err), APS_E_ARGUMENT,
              "/children/0/children/1/graphName", "string of 3 bytes with a NULL pointer");
    CHECK_INT(aps_schema_validate(&T_TreeNode, &nodes[1], true, NULL), APS_E_ARGUMENT);
    free(nodes);

    /* Map values are under their keys; a bad key is the map's own failure. */
    entries[0].key.ptr = "a/b";
    entries[0].key.len = 3;
    entries[0].value.ptr = "[1,]";
    entries[0].value.len = 4;
    entries[1] = entries[0];
    map.items = entries;
    map.count = 1;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_AnyMap, &map, true, &err), APS_E_SYNTAX, "/a~1b", NULL);
    CHECK(strncmp(err.message, "not one valid JSON value: ", 26) == 0);
    entries[0].value.ptr = "{}";
    entries[0].value.len = 2;
    entries[1].key.ptr = "\xC0\xAF";
    entries[1].key.len = 2;
    map.count = 2;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_AnyMap, &map, true, &err), APS_E_UTF8, "", NULL);
    entries[1].key.ptr = "c";
    entries[1].key.len = 1;
    entries[1].value.len = 0;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_AnyMap, &map, true, &err), APS_E_MISSING, "/c", "no JSON value");

    /* Scalars: ranges and numbers, each failure at its member. */
    CHECK_INT(decode(&T_Message, delta_event, &m), APS_OK);
    m.u.event.data.u.messages.params.data.u.content_block_delta.index = 3;
    CHECK_INT(aps_schema_validate(&T_Message, &m, true, NULL), APS_OK);
    m.u.event.data.u.messages.params.data.u.content_block_delta.has_block = true;
    m.u.event.data.u.messages.params.data.u.content_block_delta.block.kind = 1;
    m.u.event.data.u.messages.params.data.u.content_block_delta.block.u.i = -9007199254740992ll;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Message, &m, true, &err), APS_E_RANGE, "/params/data/blockIndex",
              "expected an integer in -9007199254740991..9007199254740991; got -9007199254740992");
    m.u.event.data.u.messages.params.data.u.content_block_delta.block.kind = 3;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Message, &m, true, &err), APS_E_ARGUMENT, "/params/data/blockIndex",
              "union kind 3 is out of range 0..2");
    m.u.event.data.u.messages.params.data.u.content_block_delta.block.kind = 0;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Message, &m, true, &err), APS_E_ARGUMENT, "/params/data/blockIndex",
              "no alternative of BlockIndex chosen (kind 0)");
    m.u.event.data.u.messages.params.data.u.content_block_delta.has_block = false;
    m.u.event.data.u.messages.params.data.u.content_block_delta.delta.kind = 0;
    m.u.event.data.u.messages.params.data.u.content_block_delta.delta.raw.len = 0;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Message, &m, false, &err), APS_E_ARGUMENT, "/params/data/delta/type",
              "unknown variant without its raw JSON");
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Message, &m, true, &err), APS_E_UNKNOWN, "/params/data/delta/type",
              "unknown variant of ContentBlockDelta");
    m.u.event.data.u.messages.params.data.u.content_block_delta.delta.raw.ptr = "{\"type\":1,}";
    m.u.event.data.u.messages.params.data.u.content_block_delta.delta.raw.len = 11;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_Message, &m, false, &err), APS_E_SYNTAX, "/params/data/delta", NULL);

    /* Metadata: floats in a typed tail, enum kinds out of range. */
    memset(&meta, 0, sizeof meta);
    memset(&extra, 0, sizeof extra);
    extra.key.ptr = "temperature";
    extra.key.len = 11;
    extra.value.ptr = "\"hot\"";
    extra.value.len = 5;
    meta.extras.items = &extra;
    meta.extras.count = 1;
    CHECK_INT(aps_schema_validate(&T_MessageMetadata, &meta, true, NULL), APS_OK);
    extra.value.ptr = "[1]";
    extra.value.len = 3;
    aps_error_clear(&err);
    CHECK_INT(aps_schema_validate(&T_MessageMetadata, &meta, true, &err), APS_E_TYPE);
    CHECK_STR(err.pointer, "/temperature");
    extra.key.ptr = "modelType"; /* model_type's other spelling: kept, checked as a MetadataScalar */
    extra.key.len = 9;
    aps_error_clear(&err);
    CHECK_INT(aps_schema_validate(&T_MessageMetadata, &meta, true, &err), APS_E_TYPE);
    CHECK_STR(err.pointer, "/modelType");
    extra.key.ptr = "model";
    extra.key.len = 5;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_MessageMetadata, &meta, true, &err), APS_E_DUPLICATE, "/model",
              "unknown member with the name of a named one");
    meta.extras.items = NULL;
    aps_error_clear(&err);
    CHECK_ERR(aps_schema_validate(&T_MessageMetadata, &meta, true, &err), APS_E_ARGUMENT, "",
              "1 unknown members with a NULL pointer");
    {
        MetadataScalar sc;
        int role = 4;
        memset(&sc, 0, sizeof sc);
        sc.kind = 4;
        f = 0.0;
        sc.u.f = 1.0 / f;
        aps_error_clear(&err);
        CHECK_ERR(aps_schema_validate(&T_MetadataScalar, &sc, true, &err), APS_E_RANGE, "", "not a finite number");
        sc.u.f = 0.5;
        CHECK_INT(aps_schema_validate(&T_MetadataScalar, &sc, true, NULL), APS_OK);
        aps_error_clear(&err);
        CHECK_ERR(aps_schema_validate(&T_MessageRole, &role, true, &err), APS_E_ARGUMENT, "",
                  "enum kind 4 is out of range 0..3");
        role = 0;
        aps_error_clear(&err);
        CHECK_ERR(aps_schema_validate(&T_MessageRole, &role, true, &err), APS_E_UNKNOWN, "",
                  "no value of MessageRole chosen (kind 0)");
        role = 3;
        CHECK_INT(aps_schema_validate(&T_MessageRole, &role, true, NULL), APS_OK);
    }
}

/* ---- nesting ----------------------------------------------------------------------- */

static char *nested_tree(size_t depth)
{
    size_t i, n = 0, cap = depth * 40 + 64;
    char *s = (char *)malloc(cap);
    for (i = 0; i < depth; i++)
        n += (size_t)snprintf(s + n, cap - n, "{\"graphName\":\"g\",\"children\":[");
    n += (size_t)snprintf(s + n, cap - n, "{\"graphName\":\"leaf\"}");
    for (i = 0; i < depth; i++)
        n += (size_t)snprintf(s + n, cap - n, "]}");
    return s;
}

static void test_depth(void)
{
    TreeNode t;
    aps_decode_options o;
    aps_status st;
    char *s = nested_tree(255); /* 511 containers */
    const char *out;
    memset(&o, 0, sizeof o);
    st = decode(&T_TreeNode, s, &t);
    CHECK_INT(st, APS_OK);
    CHECK_INT(aps_schema_validate(&T_TreeNode, &t, true, NULL), APS_OK);
    out = encode(&T_TreeNode, &t);
    CHECK(out != NULL && strcmp(out, s) == 0);
    free(s);
    s = nested_tree(256); /* 513 containers: past the reader's default 512 */
    CHECK_INT(decode(&T_TreeNode, s, &t), APS_E_DEPTH);
    free(s);
    /* With a deeper reader limit the typed nesting limit still holds. */
    s = nested_tree(3000);
    o.max_depth = 100000;
    aps_error_clear(&err);
    st = aps_schema_decode(&T_TreeNode, s, strlen(s), &arena, &t, &o, &err);
    CHECK_INT(st, APS_E_DEPTH);
    free(s);
    /* Deep any values are walked without recursion. */
    {
        size_t depth = 10000, i;
        char *d = (char *)malloc(depth * 2 + 32);
        aps_json_raw raw;
        for (i = 0; i < depth; i++)
            d[i] = '[';
        for (i = 0; i < depth; i++)
            d[depth + i] = ']';
        d[2 * depth] = '\0';
        CHECK_INT(decode(&T_any, d, &raw), APS_E_DEPTH);
        aps_error_clear(&err);
        st = aps_schema_decode(&T_any, d, strlen(d), &arena, &raw, &o, &err);
        CHECK_INT(st, APS_OK);
        free(d);
    }
}

/* ---- encoding into a writer -------------------------------------------------------- */

/*
 * The encoder writes a value wherever the writer stands (after a comma in an
 * array, as a member's value), fills a caller-owned buffer exactly, keeps the
 * writer's nesting limit, and leaves any failure in the writer.
 */
static void test_encode_writer(void)
{
    static char buf[1024];
    const char *want_snake;
    char *want, *tree;
    size_t n, cap;
    Message m;
    TreeNode t;
    aps_json_writer w;
    aps_encode_options snake;
    int i;
    /* Members of every kind, an escaped member name among the extras. */
    const char *json =
        "{\"type\":\"event\",\"eventId\":\"e\\\"1\",\"seq\":18446744073709,\"runId\":\"0123456789abcdef0\","
        "\"method\":\"messages\",\"params\":{\"namespace\":[\"a\",\"\\n\",\"ab\\u0001cd\"],"
        "\"timestamp\":1700000000000,\"node\":\"agent\",\"data\":{\"event\":\"content-block-delta\",\"index\":0,"
        "\"delta\":{\"type\":\"text-delta\",\"text\":\"Hello \\\"w\xc3\xb6rld\\\"\"}}},\"x-\\\"extra\":{\"k\":[true,null]},"
        "\"y\":-1}";

    CHECK_INT(decode_opts(&T_Message, json, &m, APS_CASE_SCHEMA, true), APS_OK);
    want = (char *)malloc(strlen(json) + 1);
    strcpy(want, encode(&T_Message, &m));
    CHECK_STR(want, json);
    n = strlen(want);
    /* Too small by one byte and less, then exactly right. */
    for (cap = 0; cap <= n; cap++) {
        aps_json_writer_init_fixed(&w, buf, cap);
        CHECK_INT(aps_schema_encode(&T_Message, &m, &w, NULL, NULL), cap < n ? APS_E_LIMIT : APS_OK);
        CHECK_INT(aps_json_writer_status(&w), cap < n ? APS_E_LIMIT : APS_OK);
        CHECK(aps_json_writer_len(&w) <= cap);
    }
    CHECK(memcmp(buf, want, n) == 0);
    memset(&snake, 0, sizeof snake);
    snake.key_case = APS_CASE_SNAKE;
    want_snake = encode_case(&T_Message, &m, APS_CASE_SNAKE);
    CHECK(want_snake != NULL && strstr(want_snake, "\"event_id\":\"e\\\"1\",") != NULL);
    n = strlen(want_snake);
    aps_json_writer_init_fixed(&w, buf, n - 1);
    CHECK_INT(aps_schema_encode(&T_Message, &m, &w, &snake, NULL), APS_E_LIMIT);
    aps_json_writer_init_fixed(&w, buf, n);
    CHECK_INT(aps_schema_encode(&T_Message, &m, &w, &snake, NULL), APS_OK);

    /* In an array and as a member's value: the writer's commas and state. */
    aps_json_writer_init(&w, NULL);
    aps_json_write_array_begin(&w);
    CHECK_INT(aps_schema_encode(&T_Message, &m, &w, NULL, NULL), APS_OK);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "m", 1);
    CHECK_INT(aps_schema_encode(&T_Message, &m, &w, NULL, NULL), APS_OK);
    aps_json_write_key(&w, "n", 1);
    aps_json_write_null(&w);
    aps_json_write_object_end(&w);
    aps_json_write_array_end(&w);
    CHECK_INT(aps_json_writer_finish(&w, NULL), APS_OK);
    CHECK(aps_json_writer_len(&w) == 2 * strlen(json) + 18);
    CHECK(memcmp(aps_json_writer_data(&w), "[", 1) == 0);
    CHECK(memcmp(aps_json_writer_data(&w) + 1, json, strlen(json)) == 0);
    CHECK(memcmp(aps_json_writer_data(&w) + 1 + strlen(json), ",{\"m\":", 6) == 0);
    CHECK(memcmp(aps_json_writer_data(&w) + 7 + strlen(json), json, strlen(json)) == 0);
    CHECK(memcmp(aps_json_writer_data(&w) + 7 + 2 * strlen(json), ",\"n\":null}]", 11) == 0);
    /* Where a member name is expected, a value is out of order. */
    aps_json_writer_reset(&w);
    aps_json_write_object_begin(&w);
    CHECK_INT(aps_schema_encode(&T_Message, &m, &w, NULL, NULL), APS_E_STATE);
    CHECK_INT(aps_json_writer_status(&w), APS_E_STATE);

    /* A value that cannot be written fails the writer too: its text is cut short. */
    m.u.event.data.u.messages.params.data.u.content_block_delta.delta.kind = 9;
    aps_json_writer_reset(&w);
    CHECK_INT(aps_schema_encode(&T_Message, &m, &w, NULL, NULL), APS_E_ARGUMENT);
    CHECK_INT(aps_json_writer_finish(&w, NULL), APS_E_ARGUMENT);

    /* The writer's nesting limit counts the containers it already has open. */
    tree = nested_tree(3); /* 7 containers */
    CHECK_INT(decode(&T_TreeNode, tree, &t), APS_OK);
    for (i = 0; i < 2; i++) {
        size_t open = APS_JSON_WRITER_MAX_DEPTH - 7 + (size_t)i, k;
        aps_json_writer_reset(&w);
        for (k = 0; k < open; k++)
            aps_json_write_array_begin(&w);
        CHECK_INT(aps_schema_encode(&T_TreeNode, &t, &w, NULL, NULL), i == 0 ? APS_OK : APS_E_DEPTH);
        CHECK_INT(aps_json_writer_status(&w), i == 0 ? APS_OK : APS_E_DEPTH);
        if (i == 0)
            CHECK(aps_json_writer_len(&w) == open + strlen(tree) &&
                  memcmp(aps_json_writer_data(&w) + open, tree, strlen(tree)) == 0);
    }
    aps_json_writer_deinit(&w);
    free(tree);
    free(want);
}

/* ---- allocation failures -------------------------------------------------------------- */

static void test_nomem(void)
{
    /* Escaped strings, arrays, extras, typed extras, a choice: many allocation points. */
    const char *inputs[] = {
        "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[\"a\\n\",\"b\",\"c\",\"d\",\"e\",\"f\"],"
        "\"timestamp\":1,\"data\":{\"event\":\"message-start\",\"role\":\"ai\",\"id\":\"m\\t1\",\"metadata\":{\"x\\u00e9\":\"y\\n\","
        "\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5}}},\"z\\n\":[1],\"y\":2,\"w\":3,\"v\":4,\"u\":5}",
        "{\"id\":1,\"method\":\"input.respond\",\"params\":{\"responses\":[{\"namespace\":[\"s\\\"\"],\"interruptId\":\"i\\/\","
        "\"response\":1},{\"namespace\":[],\"interruptId\":\"j\",\"response\":2}],\"goto\":[\"a\\n\",{\"node\":\"b\\n\"}]}}",
    };
    const aps_type *types[] = { &T_Message, &T_Command };
    size_t k;
    for (k = 0; k < 2; k++) {
        int limit, ok = 0, clean = 1;
        for (limit = 0; limit < 200 && !ok; limit++) {
            test_alloc b;
            aps_arena_options ao;
            aps_arena a;
            union {
                Message m;
                Command c;
            } out;
            aps_error e = APS_ERROR_INIT;
            aps_status st;
            memset(&ao, 0, sizeof ao);
            test_alloc_init(&b, limit, 1); /* limit allocations succeed, then none */
            ao.allocator = test_alloc_hooks(&b);
            ao.chunk_size = 64;
            aps_arena_init(&a, &ao);
            st = aps_schema_decode(types[k], inputs[k], strlen(inputs[k]), &a, &out, NULL, &e);
            if (st == APS_OK)
                ok = 1;
            else if (st != APS_E_NOMEM || e.code != APS_E_NOMEM)
                clean = 0;
            aps_arena_deinit(&a);
        }
        CHECK(ok);
        CHECK(clean);
        CHECK(limit > 3); /* the loop did exercise failures */
    }
}

/* ---- every error at once (aps_schema_check_all) ------------------------------------ */

typedef struct collected {
    size_t n;
    aps_error e[8];
} collected;

static void collect_error(void *user, const aps_error *e)
{
    collected *c = user;
    if (c->n < 8)
        c->e[c->n] = *e;
    c->n++;
}

static aps_status check_all(const aps_type *t, const char *json, collected *c)
{
    aps_decode_options o;
    memset(&o, 0, sizeof o);
    o.key_case = APS_CASE_SCHEMA;
    o.strict = true;
    memset(c, 0, sizeof *c);
    return aps_schema_check_all(t, json, strlen(json), &arena, &o, collect_error, c);
}

/* The first error collected is the one aps_schema_decode reports: one verdict, however many are named. */
static void check_first_is_decode(const aps_type *t, const char *json)
{
    Message m;
    collected c;
    aps_status all = check_all(t, json, &c), one = decode(t, json, &m);
    CHECK_INT(all, one);
    CHECK(c.n >= 1);
    CHECK_STR(c.e[0].pointer, err.pointer);
    CHECK_STR(c.e[0].message, err.message);
}

static void test_check_all(void)
{
    static const char *const head = "{\"type\":\"event\",\"method\":\"messages\",\"params\":";
    char json[1024];
    collected c;
    aps_status st;

    /* Two missing members of one object: both named, in schema order. */
    snprintf(json, sizeof json, "%s{\"namespace\":[],\"timestamp\":1,\"data\":{\"event\":\"message-start\"}}}",
             head);
    st = check_all(&T_Message, json, &c);
    CHECK_INT(st, APS_E_MISSING);
    CHECK_INT(c.n, 2);
    CHECK_STR(c.e[0].pointer, "/params/data");
    CHECK_STR(c.e[0].message, "missing required member 'role'");
    CHECK_STR(c.e[1].pointer, "/params/data");
    CHECK_STR(c.e[1].message, "missing required member 'id'");
    check_first_is_decode(&T_Message, json);

    /* Errors in several members and array elements, in document order; the siblings after a bad value
     * are still read. */
    snprintf(json, sizeof json,
             "%s{\"namespace\":[1,\"a\",true],\"timestamp\":\"now\",\"bogus\":{\"x\":[1]},"
             "\"data\":{\"event\":\"message-start\",\"role\":\"ai\",\"id\":\"m\"}}}",
             head);
    st = check_all(&T_Message, json, &c);
    CHECK_INT(st, APS_E_TYPE);
    CHECK_INT(c.n, 4);
    CHECK_STR(c.e[0].pointer, "/params/namespace/0");
    CHECK_STR(c.e[1].pointer, "/params/namespace/2");
    CHECK_STR(c.e[2].pointer, "/params/timestamp");
    CHECK_STR(c.e[3].pointer, "/params/bogus");
    CHECK_STR(c.e[3].message, "unknown member 'bogus'");
    check_first_is_decode(&T_Message, json);

    /* A valid value: no call, APS_OK. */
    st = check_all(&T_Message, delta_event, &c);
    CHECK_INT(st, APS_OK);
    CHECK_INT(c.n, 0);

    /* Bad text ends the list: what came before it is kept. */
    snprintf(json, sizeof json, "%s{\"namespace\":[2],\"timestamp\":1,\"data\":{\"event\":\"message-start\",", head);
    st = check_all(&T_Message, json, &c);
    CHECK_INT(st, APS_E_TYPE);
    CHECK_INT(c.n, 2);
    CHECK_STR(c.e[0].pointer, "/params/namespace/0");
    CHECK_INT(c.e[1].code, APS_E_SYNTAX);

    /* An unknown discriminant fails its whole object once; the members around it are still read. */
    snprintf(json, sizeof json,
             "%s{\"namespace\":[],\"timestamp\":-1,\"data\":{\"event\":\"message-stop\",\"role\":1}}}", head);
    st = check_all(&T_Message, json, &c);
    CHECK_INT(c.n, 2);
    CHECK_STR(c.e[0].pointer, "/params/timestamp");
    CHECK_STR(c.e[1].pointer, "/params/data/event");
    check_first_is_decode(&T_Message, json);

    /* No callback: refused. */
    CHECK_INT(aps_schema_check_all(&T_Message, "{}", 2, &arena, NULL, NULL, NULL), APS_E_ARGUMENT);
}

int main(void)
{
    aps_arena_init(&arena, NULL);
    test_discriminated();
    test_envelope();
    test_key_case();
    test_scalars();
    test_members();
    test_enum_other();
    test_kind_union();
    test_kind_literals();
    test_untagged();
    test_open_typed();
    test_map();
    test_order();
    test_wide();
    test_validate();
    test_utf8();
    test_validate_utf8();
    test_validate_paths();
    test_depth();
    test_encode_writer();
    test_nomem();
    test_check_all();
    aps_arena_deinit(&arena);
    return test_report();
}
