/*
 * test_lenient.c - the default mode's rules (the reference client's,
 * docs/assembly.md), each case a stream of protocol events read by
 * aps_asm_event_from_json as apstream reads a record the schema rejects.
 * Each case is assembled in both modes and checks what is delivered (the
 * content) and what is reported (the warnings, the errors in strict mode):
 * the default mode keeps the content strict mode loses, and reports the
 * same deviations.
 */
#include "../test.h"
#include "asm_test.h"

/* One protocol event line on the messages channel at namespace NS (a JSON array), node "model". */
#define EV(ns, data) \
    "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":" ns ",\"node\":\"model\",\"timestamp\":1,\"data\":" data "}}\n"
#define TOOL(data) \
    "{\"type\":\"event\",\"method\":\"tools\",\"params\":{\"namespace\":[\"tools:1\"],\"timestamp\":1,\"data\":" data "}}\n"

/* What a stream gives in one mode. */
typedef struct outcome {
    collector c;
} outcome;

/* Assembles `lines` (one event per line, positions are line numbers). */
static void run(const char *lines, int strict, outcome *o)
{
    aps_asm_reader rd;
    aps_asm_options opt;
    aps_asm_callbacks cb;
    aps_assembler a;
    uint64_t line = 0;
    const char *p = lines;
    memset(o, 0, sizeof *o);
    memset(&opt, 0, sizeof opt);
    opt.strict = strict;
    cb = col_callbacks(&o->c);
    aps_asm_init(&a, &opt, &cb);
    aps_asm_reader_init(&rd);
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        aps_asm_event ev;
        int got = aps_asm_event_from_json(&rd, p, len, ++line, &ev);
        CHECK(got >= 0);
        if (got == 1)
            CHECK_INT(aps_asm_feed(&a, &ev, NULL), APS_OK);
        p += len + (nl != NULL);
    }
    aps_asm_finish(&a);
    aps_asm_reader_deinit(&rd);
    aps_asm_deinit(&a);
}

static void outcome_free(outcome *o)
{
    col_free(&o->c);
}

/* The "content" arrays of the delivered messages, one per line, in delivery order. */
static void contents(const outcome *o, tlog *out)
{
    const char *s = tlog_get((tlog *)&o->c.out);
    const char *line;
    for (line = s; *line; line = strchr(line, '\n') + 1) {
        const char *c = strstr(line, "\"content\":"), *end = strstr(line, ",\"usage\":");
        const char *nl = strchr(line, '\n');
        if (c != NULL && end != NULL && end < nl) {
            tlog_add(out, c + 10, (size_t)(end - (c + 10)));
            tlog_str(out, "\n");
        }
    }
}

/* Checks a stream in both modes: contents and reports of each. */
static void check(const char *lines, const char *content, const char *warnings, const char *strict_content,
                  const char *errors)
{
    outcome d, s;
    tlog dc, sc;
    memset(&dc, 0, sizeof dc);
    memset(&sc, 0, sizeof sc);
    run(lines, 0, &d);
    run(lines, 1, &s);
    contents(&d, &dc);
    contents(&s, &sc);
    CHECK_STR(tlog_get(&dc), content);
    CHECK_STR(tlog_get(&d.c.violations), warnings);
    CHECK_STR(tlog_get(&sc), strict_content);
    CHECK_STR(tlog_get(&s.c.violations), errors);
    tlog_free(&dc);
    tlog_free(&sc);
    outcome_free(&d);
    outcome_free(&s);
}

/*
 * A reasoning model interleaving two reasoning blocks and a text block on
 * an index the text reuses (the real capture's shape): three blocks, where
 * strict mode keeps the first and fails the message.
 */
static void test_interleaved_reasoning(void)
{
    check(EV("[]", "{\"event\":\"message-start\",\"id\":\"m\"}")
          EV("[]", "{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"type\":\"reasoning\",\"reasoning\":\"\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"reasoning-delta\",\"reasoning\":\"add \"}}")
          EV("[]", "{\"event\":\"content-block-start\",\"index\":1,\"content\":{\"type\":\"reasoning\",\"reasoning\":\"\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":1,\"delta\":{\"type\":\"reasoning-delta\",\"reasoning\":\"check\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"reasoning-delta\",\"reasoning\":\"them\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"80\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"235\"}}")
          EV("[]", "{\"event\":\"content-block-finish\",\"index\":0,\"content\":{\"type\":\"reasoning\",\"reasoning\":\"add them\"}}")
          EV("[]", "{\"event\":\"content-block-finish\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"80235\"}}")
          EV("[]", "{\"event\":\"content-block-finish\",\"index\":1,\"content\":{\"type\":\"reasoning\",\"reasoning\":\"check\"}}")
          EV("[]", "{\"event\":\"message-finish\"}"),
          "[{\"type\":\"reasoning\",\"reasoning\":\"add them\"},{\"type\":\"reasoning\",\"reasoning\":\"check\"},"
          "{\"type\":\"text\",\"text\":\"80235\"}]\n",
          /* the run of two text deltas is reported at its first; the second finish of index 0 goes to the text block */
          "4 block-open: content-block-start for block 1 while block 0 is open (message \"m\")\n"
          "7 delta-mismatch: content-block-delta for block 0, whose type does not take it: assembled as block 2 (message \"m\")\n"
          "10 block-finished: content-block-finish for block 0, which is already finished (message \"m\")\n",
          "[{\"type\":\"reasoning\",\"reasoning\":\"add \"}]\n",
          "4 block-open: content-block-start for block 1 while block 0 is open (message \"m\")\n");
}

/* Run ids route: a second message-start moves the place on, the first message keeps its run's events. */
static void test_run_ids(void)
{
    check(EV("[]", "{\"event\":\"message-start\",\"id\":\"a\",\"run_id\":\"ra\"}")
          EV("[]", "{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"\"},\"run_id\":\"ra\"}")
          EV("[]", "{\"event\":\"message-start\",\"id\":\"b\",\"run_id\":\"rb\"}")
          EV("[]", "{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"B\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"A\"},\"run_id\":\"ra\"}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"b\"},\"run_id\":\"rb\"}")
          EV("[]", "{\"event\":\"message-finish\",\"run_id\":\"ra\"}")
          EV("[]", "{\"event\":\"message-finish\",\"run_id\":\"rb\"}"),
          "[{\"type\":\"text\",\"text\":\"A\"}]\n[{\"type\":\"text\",\"text\":\"Bb\"}]\n",
          "3 message-open: message-start of \"b\" while this message is open (it stays open) (message \"a\")\n"
          "8 finish-block-open: message-finish while block 0 is open (message \"a\")\n"
          "9 finish-block-open: message-finish while block 0 is open (message \"b\")\n",
          /* strict routes by place alone: b fails a (empty), takes a's delta, and fails at a finish */
          "[{\"type\":\"text\",\"text\":\"\"}]\n[{\"type\":\"text\",\"text\":\"BAb\"}]\n",
          "3 message-open: message-start of \"b\" while this message is open (message \"a\")\n"
          "8 finish-block-open: message-finish while block 0 is open (message \"b\")\n");
}

/* Events after message-finish open a message of their own, abandoned at the end as the reference reports it. */
static void test_after_finish(void)
{
    outcome d;
    check(EV("[\"a\"]", "{\"event\":\"message-start\",\"id\":\"m\"}")
          EV("[\"a\"]", "{\"event\":\"message-finish\",\"usage\":{\"input_tokens\":1}}")
          EV("[\"a\"]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"late\"}}")
          EV("[\"a\"]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"r\"}}"),
          "[]\n[{\"type\":\"text\",\"text\":\"later\"}]\n",
          "3 no-message: content-block-delta with no open message: a message is opened for it\n"
          "3 block-not-started: content-block-delta for block 0, which was never started (message \"\")\n",
          "[]\n",
          "3 message-finished: content-block-delta after the message finished or failed\n");
    run(EV("[\"a\"]", "{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"x\"}}"), 0, &d);
    CHECK_STR(tlog_get(&d.c.out),
              "{\"kind\":\"message\",\"id\":null,\"namespace\":[\"a\"],\"node\":\"model\",\"role\":null,\"metadata\":null,"
              "\"status\":\"error\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}],\"usage\":null,"
              "\"error\":{\"message\":\"message stream ended before message-finish\",\"code\":\"aborted\"}}\n");
    outcome_free(&d);
}

/* Content-shaped deltas; provider-native tool-call chunks sharing an index with tool_use. */
static void test_legacy_and_native(void)
{
    check(EV("[]", "{\"event\":\"message-start\",\"id\":\"m\"}")
          EV("[]", "{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"calc\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"content\":{\"type\":\"input_json_delta\",\"args\":\"{}\"}}")
          EV("[]", "{\"event\":\"content-block-finish\",\"index\":0,\"content\":{\"type\":\"tool_call\",\"id\":\"t1\",\"name\":\"calc\",\"args\":{}}}")
          EV("[]", "{\"event\":\"content-block-start\",\"index\":1,\"content\":{\"type\":\"tool_call_chunk\",\"id\":\"c\",\"name\":\"f\",\"args\":\"\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":1,\"content\":{\"type\":\"tool_call_chunk\",\"id\":null,\"name\":null,\"args\":\"{\\\"q\\\":\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":1,\"content\":{\"type\":\"tool_call_chunk\",\"args\":\"1}\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":1,\"content\":null,\"delta\":{\"type\":\"tool-call-delta\",\"args\":\" \"}}")
          EV("[]", "{\"event\":\"content-block-finish\",\"index\":1,\"content\":{\"type\":\"tool_call_chunk\",\"id\":\"c\",\"name\":\"f\",\"args\":\"{\\\"q\\\":1} \"}}")
          EV("[]", "{\"event\":\"content-block-start\",\"index\":2,\"content\":{\"type\":\"text\",\"text\":\"a\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":2,\"content\":{\"type\":\"text\",\"text\":\"b\",\"id\":\"x\"}}")
          EV("[]", "{\"event\":\"message-finish\"}"),
          /* tool_use took the input_json_delta chunk (one family) whole; the chunk kept id and name */
          "[{\"type\":\"tool_call\",\"id\":\"t1\",\"name\":\"calc\",\"args\":{}},"
          "{\"type\":\"tool_call_chunk\",\"id\":\"c\",\"name\":\"f\",\"args\":\"{\\\"q\\\":1} \"},"
          "{\"type\":\"text\",\"text\":\"ab\",\"id\":\"x\"}]\n",
          "3 legacy-delta: content-block-delta with `content` instead of `delta` (message \"m\")\n"
          "6 legacy-delta: content-block-delta with `content` instead of `delta` (message \"m\")\n"
          "7 legacy-delta: content-block-delta with `content` instead of `delta` (message \"m\")\n"
          "11 legacy-delta: content-block-delta with `content` instead of `delta` (message \"m\")\n"
          "12 finish-block-open: message-finish while block 2 is open (message \"m\")\n",
          "[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"calc\"}]\n",
          "3 legacy-delta: content-block-delta with `content` instead of `delta` (message \"m\")\n");
}

/* data-delta: `data` as the reference client appends it, `base64` as the protocol text says; block-delta. */
static void test_data_and_fields(void)
{
    check(EV("[]", "{\"event\":\"message-start\",\"id\":\"m\"}")
          EV("[]", "{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"type\":\"image\",\"mime_type\":\"image/png\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"data-delta\",\"data\":\"QU\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"data-delta\",\"data\":\"JD\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"block-delta\",\"fields\":{\"type\":\"image\",\"id\":\"i\"}}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"block-delta\",\"fields\":{\"note\":\"n\"}}}")
          EV("[]", "{\"event\":\"content-block-finish\",\"index\":0,\"content\":{\"type\":\"image\",\"base64\":\"QUJD\"}}")
          EV("[]", "{\"event\":\"message-finish\"}"),
          /* fields without a type are no image: a block of their own, as in the reference client */
          "[{\"type\":\"image\",\"base64\":\"QUJD\"},{\"note\":\"n\"}]\n",
          "6 delta-mismatch: content-block-delta for block 0, whose type does not take it: assembled as block 1 (message \"m\")\n"
          "8 finish-block-open: message-finish while block 1 is open (message \"m\")\n",
          "[{\"type\":\"image\",\"base64\":\"QUJD\"}]\n",
          "");
    check(EV("[]", "{\"event\":\"message-start\",\"id\":\"m\"}")
          EV("[]", "{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"type\":\"image\"}}")
          EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"data-delta\",\"data\":\"QU\"}}"),
          "[{\"type\":\"image\",\"data\":\"QU\"}]\n", "", "[{\"type\":\"image\",\"base64\":\"QU\"}]\n", "");
}

/* A run of ignored deltas is reported once, as a coalesced run would be; usage events set the usage. */
static void test_ignored_run_and_usage(void)
{
    outcome d;
    const char *lines =
        EV("[]", "{\"event\":\"message-start\",\"id\":\"m\",\"usage\":{\"input_tokens\":1}}")
        EV("[]", "{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"t\"}}")
        EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"tool-call-delta\",\"args\":\"x\"}}")
        EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"tool-call-delta\",\"args\":\"y\"}}")
        EV("[]", "{\"event\":\"usage\",\"usage\":{\"input_tokens\":1,\"output_tokens\":2}}")
        EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"tool-call-delta\",\"args\":\"z\"}}")
        EV("[]", "{\"event\":\"content-block-finish\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"t\"}}")
        EV("[]", "{\"event\":\"message-finish\"}");
    check(lines, "[{\"type\":\"text\",\"text\":\"t\"}]\n",
          "3 delta-mismatch: tool-call-delta on block 0, which is no tool call chunk: ignored (message \"m\")\n"
          "6 delta-mismatch: tool-call-delta on block 0, which is no tool call chunk: ignored (message \"m\")\n",
          "[{\"type\":\"text\",\"text\":\"t\"}]\n",
          "3 delta-mismatch: tool-call-delta on block 0, whose type does not take it (message \"m\")\n");
    run(lines, 0, &d);
    CHECK(strstr(tlog_get(&d.c.out), "\"usage\":{\"input_tokens\":1,\"output_tokens\":2}") != NULL);
    outcome_free(&d);
}

/* Tools: an event for an unknown toolCallId opens a run; outputDelta is "" without deltas. */
static void test_tools(void)
{
    outcome d, s;
    const char *lines = TOOL("{\"event\":\"tool-output-delta\",\"toolCallId\":\"c\",\"delta\":\"x\"}")
                        TOOL("{\"event\":\"tool-finished\",\"toolCallId\":\"c\",\"output\":1}")
                        TOOL("{\"event\":\"tool-started\",\"toolCallId\":\"d\",\"toolName\":\"f\"}")
                        TOOL("{\"event\":\"tool-finished\",\"toolCallId\":\"d\",\"output\":2}");
    run(lines, 0, &d);
    run(lines, 1, &s);
    CHECK_STR(tlog_get(&d.c.out),
              "{\"kind\":\"tool\",\"toolCallId\":\"c\",\"namespace\":[\"tools:1\"],\"node\":null,\"toolName\":null,"
              "\"input\":null,\"status\":\"finished\",\"outputDelta\":\"x\",\"output\":1,\"error\":null}\n"
              "{\"kind\":\"tool\",\"toolCallId\":\"d\",\"namespace\":[\"tools:1\"],\"node\":null,\"toolName\":\"f\","
              "\"input\":null,\"status\":\"finished\",\"outputDelta\":\"\",\"output\":2,\"error\":null}\n");
    CHECK_STR(tlog_get(&d.c.violations),
              "1 tool-unknown: tool-output-delta for toolCallId \"c\" with no tool started: a tool run is opened for it\n");
    CHECK_STR(tlog_get(&s.c.violations), "1 tool-unknown: tool-output-delta with no tool started\n");
    CHECK(strstr(tlog_get(&s.c.out), "\"toolCallId\":\"c\"") == NULL);
    outcome_free(&d);
    outcome_free(&s);
}

/*
 * JSON members have no order: every discriminant last (the method after
 * params, the event after the rest of data, the delta's type after its
 * text) reads as the usual order does.
 */
static void test_member_order(void)
{
    outcome usual, reversed;
#define LAST(method, params_rest, data) \
    "{\"params\":{\"data\":" data "," params_rest "},\"method\":\"" method "\",\"type\":\"event\"}\n"
#define MSG_LAST(data) LAST("messages", "\"timestamp\":1,\"node\":\"model\",\"namespace\":[]", data)
#define TOOL_LAST(data) LAST("tools", "\"timestamp\":1,\"namespace\":[\"tools:1\"]", data)
    const char *reversed_lines =
        MSG_LAST("{\"id\":\"m\",\"role\":\"ai\",\"event\":\"message-start\"}")
        MSG_LAST("{\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"\"},\"event\":\"content-block-start\"}")
        MSG_LAST("{\"index\":0,\"delta\":{\"text\":\"hi\",\"type\":\"text-delta\"},\"event\":\"content-block-delta\"}")
        MSG_LAST("{\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"hi\"},\"event\":\"content-block-finish\"}")
        MSG_LAST("{\"event\":\"message-finish\"}")
        TOOL_LAST("{\"toolName\":\"f\",\"toolCallId\":\"c\",\"event\":\"tool-started\"}")
        TOOL_LAST("{\"output\":2,\"toolCallId\":\"c\",\"event\":\"tool-finished\"}")
        LAST("values", "\"timestamp\":1,\"namespace\":[]", "{\"x\":1}");
#undef TOOL_LAST
#undef MSG_LAST
#undef LAST
    const char *usual_lines =
        EV("[]", "{\"event\":\"message-start\",\"id\":\"m\",\"role\":\"ai\"}")
        EV("[]", "{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"\"}}")
        EV("[]", "{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"hi\"}}")
        EV("[]", "{\"event\":\"content-block-finish\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"hi\"}}")
        EV("[]", "{\"event\":\"message-finish\"}")
        TOOL("{\"event\":\"tool-started\",\"toolCallId\":\"c\",\"toolName\":\"f\"}")
        TOOL("{\"event\":\"tool-finished\",\"toolCallId\":\"c\",\"output\":2}");
    run(reversed_lines, 1, &reversed);
    run(usual_lines, 1, &usual);
    CHECK(strstr(tlog_get(&usual.c.out), "\"status\":\"finished\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]") != NULL);
    CHECK(strstr(tlog_get(&usual.c.out), "\"output\":2") != NULL);
    CHECK_STR(tlog_get(&reversed.c.out), tlog_get(&usual.c.out));
    CHECK_STR(tlog_get(&reversed.c.violations), "");
    CHECK_STR(tlog_get(&usual.c.violations), "");
    outcome_free(&usual);
    outcome_free(&reversed);
}

int main(void)
{
    test_interleaved_reasoning();
    test_run_ids();
    test_after_finish();
    test_legacy_and_native();
    test_data_and_fields();
    test_ignored_run_and_usage();
    test_tools();
    test_member_order();
    return test_report();
}
