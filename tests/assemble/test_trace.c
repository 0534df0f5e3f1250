/*
 * test_trace.c - the real trace (react agent with a tool call, snake_case
 * members, message-start without role, an unknown "usage" event) read with
 * the runtime JSON reader and assembled; then hostile variants of its lines
 * (every truncation, byte flips, garbage) go through the same adapter and
 * assembler without harm.
 * Usage: assemble-trace TRACE.jsonl (the shared test material's
 * traces/react-agent-tool-result-events.jsonl)
 */
#include "../test.h"
#include "asm_test.h"


typedef struct run_stats {
    size_t used, other, bad;
} run_stats;

/* Feeds every line of `text` through the adapter into `a`. */
static void run_lines(aps_assembler *a, adapter *ad, const char *text, size_t len, run_stats *st)
{
    size_t at = 0;
    uint64_t line = 0;
    while (at < len) {
        const char *nl = (const char *)memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        aps_asm_event ev;
        int r;
        line++;
        r = adapt_line(ad, text + at, n, line, &ev);
        if (r < 0)
            st->bad++;
        else if (r == 0)
            st->other++;
        else
            st->used++;
        if (r >= 0) {
            aps_status s = aps_asm_feed(a, &ev, NULL);
            CHECK(s == APS_OK);
        }
        at += n + 1;
    }
}

static void test_trace(const char *trace)
{
    size_t len;
    char *text = test_read_file(trace, &len);
    collector c;
    aps_asm_callbacks cb;
    aps_assembler a;
    adapter ad;
    run_stats st = { 0, 0, 0 };
    const char *out, *m1, *tool, *m2, *m3;
    CHECK(text != NULL);
    if (text == NULL)
        return;
    memset(&c, 0, sizeof c);
    memset(&ad, 0, sizeof ad);
    aps_asm_reader_init(&ad);
    cb = col_callbacks(&c);
    aps_asm_init(&a, NULL, &cb);
    run_lines(&a, &ad, text, len, &st);
    aps_asm_finish(&a);
    CHECK_INT(st.bad, 0);
    /* 43 messages and tools events, among them 2 "usage" events (MESSAGE_USAGE: real servers send them) */
    CHECK_INT(st.used, 43);
    CHECK_INT(st.other, 59 - 43);
    CHECK_STR(tlog_get(&c.violations), "");
    out = tlog_get(&c.out);
    /* completion order: the AI tool-call message, the tool, the tool message, the answer */
    m1 = strstr(out, "{\"kind\":\"message\",\"id\":\"msg_01U6vGrPqjfRQ8DbeuebcCxY\","
                     "\"namespace\":[\"model_request:db60c136-bbdc-5c76-a665-4bd487797692\"],"
                     "\"node\":null,\"role\":null,\"metadata\":null,\"status\":\"finished\","
                     "\"content\":[{\"index\":0,\"type\":\"input_json_delta\",\"id\":\"toolu_01RYpmgSmXeKZcyJWFNzNEt4\","
                     "\"name\":\"calculator\",\"input\":\"\\\"}\",\"caller\":{\"type\":\"direct\"},"
                     "\"args\":\"{\\\"expression\\\": \\\"12345 + 67890\\\"}\"}],"
                     "\"usage\":{\"input_tokens\":1003,\"output_tokens\":116,\"total_tokens\":1119},\"error\":null}\n");
    tool = strstr(out, "{\"kind\":\"tool\",\"toolCallId\":\"toolu_01RYpmgSmXeKZcyJWFNzNEt4\","
                       "\"namespace\":[\"tools:dd864e2c-ffd0-5630-8613-603347e3a46e\"],\"node\":null,"
                       "\"toolName\":\"calculator\",\"input\":\"{\\\"expression\\\":\\\"12345 + 67890\\\"}\","
                       "\"status\":\"finished\",\"outputDelta\":\"\",\"output\":{\"status\":\"success\",");
    m2 = strstr(out, "{\"kind\":\"message\",\"id\":\"run-019de07f-e2ba-761f-8ead-103bab194544-tool-toolu_01RYpmgSmXeKZcyJWFNzNEt4\","
                     "\"namespace\":[\"tools:dd864e2c-ffd0-5630-8613-603347e3a46e\"],\"node\":null,"
                     "\"role\":\"tool\",\"metadata\":null,\"status\":\"finished\","
                     "\"content\":[{\"type\":\"text\",\"text\":\"{\\\"expression\\\":\\\"12345 + 67890\\\",\\\"value\\\":80235}\"}],"
                     "\"usage\":null,\"error\":null}\n");
    m3 = strstr(out, "{\"kind\":\"message\",\"id\":\"msg_01M6YsZj7Wn3ivDWCFZFrmt7\"");
    CHECK(m1 != NULL && tool != NULL && m2 != NULL && m3 != NULL);
    CHECK(m1 < tool && tool < m2 && m2 < m3);
    CHECK(m3 != NULL && strstr(m3, "\"status\":\"finished\"") != NULL);
    /* the tool links to the finished block with its id (type input_json_delta in this trace),
       returned as the producer wrote it */
    CHECK_INT(c.links, 1);
    CHECK(strncmp(tlog_get(&c.link_json), "{\"index\": 0, \"type\": \"input_json_delta\", \"id\": \"toolu_01RYpmgSmXeKZcyJWFNzNEt4\"", 79) == 0);
    /* the streamed text of the answer is exactly its finished text */
    if (m3 != NULL) {
        aps_json_raw line, content, block, text_raw;
        aps_json_reader r;
        aps_slice s;
        aps_arena arena;
        int more = 0;
        const char *app = strstr(tlog_get(&c.appended), "The result is **80,235**.");
        aps_arena_init(&arena, NULL);
        line.ptr = m3;
        line.len = strcspn(m3, "\n");
        CHECK(aps_json_raw_member(line, "content", 7, &arena, &content, NULL) == APS_OK);
        aps_json_raw_reader(&r, content, &arena);
        CHECK(aps_json_read_array(&r, NULL) == APS_OK);
        CHECK(aps_json_next_element(&r, &more, NULL) == APS_OK && more);
        CHECK(aps_json_read_raw(&r, &block, NULL) == APS_OK);
        CHECK(aps_json_raw_member(block, "text", 4, &arena, &text_raw, NULL) == APS_OK);
        aps_json_raw_reader(&r, text_raw, &arena);
        CHECK(aps_json_read_string(&r, &s, NULL) == APS_OK);
        CHECK(app != NULL && s.len == strlen(app) && memcmp(s.ptr, app, s.len) == 0);
        CHECK_INT(s.len, 882);
        aps_arena_deinit(&arena);
    }
    aps_asm_deinit(&a);
    aps_asm_reader_deinit(&ad);
    col_free(&c);
    free(text);
}

/* Every truncation of every line, byte flips and garbage: nothing crashes, all is freed. */
static void test_hostile_lines(const char *trace)
{
    size_t len, at = 0, lines = 0;
    char *text = test_read_file(trace, &len);
    collector c;
    aps_asm_callbacks cb;
    aps_assembler a;
    adapter ad;
    run_stats st = { 0, 0, 0 };
    uint64_t seed = 7;
    static const char *const crafted[] = {
        "", "{", "[]", "null", "{\"method\":\"messages\"}",
        "{\"method\":\"messages\",\"params\":{\"namespace\":[],\"data\":{}}}",
        "{\"method\":\"messages\",\"params\":{\"namespace\":[1],\"data\":{\"event\":\"message-start\",\"id\":\"x\"}}}",
        "{\"method\":\"messages\",\"params\":{\"namespace\":[],\"data\":{\"event\":\"content-block-delta\",\"index\":-1,\"delta\":{\"type\":\"text-delta\",\"text\":\"x\"}}}}",
        "{\"method\":\"messages\",\"params\":{\"namespace\":[],\"data\":{\"event\":\"content-block-start\",\"index\":0,\"content\":\"str\"}}}",
        "{\"method\":\"messages\",\"params\":{\"namespace\":[],\"data\":{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"block-delta\",\"fields\":[[[[]]]]}}}}",
        "{\"method\":\"messages\",\"params\":{\"namespace\":[\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\"],\"data\":{\"event\":\"message-start\",\"id\":\"x\"}}}",
        "{\"method\":\"tools\",\"params\":{\"namespace\":[],\"data\":{\"event\":\"tool-output-delta\",\"delta\":\"x\"}}}",
        "{\"method\":\"tools\",\"params\":{\"namespace\":[],\"data\":{\"event\":\"tool-started\",\"tool_call_id\":\"\\u0000\",\"toolName\":\"f\"}}}",
        "{\"method\":\"messages\",\"method\":\"tools\"}",
        "{\"method\":\"messages\",\"params\":{\"namespace\":[],\"data\":{\"event\":\"message-start\",\"id\":\"\\ud800\"}}}",
    };
    size_t i;
    CHECK(text != NULL);
    if (text == NULL)
        return;
    memset(&c, 0, sizeof c);
    memset(&ad, 0, sizeof ad);
    aps_asm_reader_init(&ad);
    cb = col_callbacks(&c);
    aps_asm_init(&a, NULL, &cb);
    for (i = 0; i < sizeof crafted / sizeof crafted[0]; i++)
        run_lines(&a, &ad, crafted[i], strlen(crafted[i]), &st);
    CHECK(st.bad >= 10);
    while (at < len) {
        const char *nl = (const char *)memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at, k;
        char *copy = (char *)malloc(n + 1);
        lines++;
        /* every prefix of the line: only the whole line is valid JSON */
        for (k = 0; k < n; k += (n > 400 ? 3 : 1)) {
            memcpy(copy, text + at, k);
            run_lines(&a, &ad, copy, k, &st);
        }
        /* 20 random byte flips, each alone, then all at once */
        for (k = 0; k < 20; k++) {
            size_t pos;
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            pos = (size_t)(seed >> 33) % (n ? n : 1);
            memcpy(copy, text + at, n);
            if (n)
                copy[pos] = (char)(seed >> 17);
            run_lines(&a, &ad, copy, n, &st);
        }
        free(copy);
        at += n + 1;
    }
    CHECK_INT(lines, 59);
    CHECK(st.bad > 59 * 50);
    aps_asm_finish(&a);
    aps_asm_deinit(&a);
    aps_asm_reader_deinit(&ad);
    col_free(&c);
    free(text);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: assemble-trace TRACE.jsonl\n");
        return 2;
    }
    test_trace(argv[1]);
    test_hostile_lines(argv[1]);
    return test_report();
}
