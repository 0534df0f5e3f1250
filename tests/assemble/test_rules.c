/*
 * test_rules.c - every delta rule and every lifecycle violation of the
 * assembler, one by one; interleaved messages; an image in base64 chunks;
 * tools and their link to tool_call blocks; limits; aps_asm_finish.
 */
#include "../test.h"
#include "asm_test.h"

typedef struct T {
    aps_assembler a;
    collector c;
    uint64_t pos;
    place p;
} T;

/* These are strict mode's rules (the protocol text's); test_lenient.c has the default mode's. */
static void t_init(T *t, const aps_asm_options *o)
{
    aps_asm_callbacks cb;
    aps_asm_options so;
    memset(t, 0, sizeof *t);
    if (o != NULL)
        so = *o;
    else
        memset(&so, 0, sizeof so);
    so.strict = 1;
    cb = col_callbacks(&t->c);
    aps_asm_init(&t->a, &so, &cb);
    t->p = P(NULL, NULL, NULL);
}

static void t_done(T *t)
{
    aps_asm_deinit(&t->a);
    col_free(&t->c);
}

static aps_status feed(T *t, aps_asm_event *e)
{
    return aps_asm_feed(&t->a, e, NULL);
}

#define FEED(t, e) CHECK_INT(feed((t), &(e)), APS_OK)

static void start(T *t, const char *id, const char *role, const char *meta)
{
    aps_asm_event e = E(&t->p, APS_ASM_MESSAGE_START, ++t->pos);
    e.id = S(id);
    e.role = S(role);
    e.metadata = R(meta);
    FEED(t, e);
}

static void bstart(T *t, uint64_t i, const char *content)
{
    aps_asm_event e = E(&t->p, APS_ASM_BLOCK_START, ++t->pos);
    e.index = i;
    e.content = R(content);
    FEED(t, e);
}

static void delta(T *t, uint64_t i, aps_asm_delta k, const char *text)
{
    aps_asm_event e = E(&t->p, APS_ASM_BLOCK_DELTA, ++t->pos);
    e.index = i;
    e.delta = k;
    e.text = S(text);
    FEED(t, e);
}

static void text(T *t, uint64_t i, const char *s)
{
    delta(t, i, APS_ASM_DELTA_TEXT, s);
}

static void bdelta(T *t, uint64_t i, const char *fields)
{
    aps_asm_event e = E(&t->p, APS_ASM_BLOCK_DELTA, ++t->pos);
    e.index = i;
    e.delta = APS_ASM_DELTA_BLOCK;
    e.fields = R(fields);
    FEED(t, e);
}

static void bfinish(T *t, uint64_t i, const char *content)
{
    aps_asm_event e = E(&t->p, APS_ASM_BLOCK_FINISH, ++t->pos);
    e.index = i;
    e.content = R(content);
    FEED(t, e);
}

static void mfinish(T *t, const char *usage)
{
    aps_asm_event e = E(&t->p, APS_ASM_MESSAGE_FINISH, ++t->pos);
    e.usage = R(usage);
    FEED(t, e);
}

static void merror(T *t, const char *msg, const char *code)
{
    aps_asm_event e = E(&t->p, APS_ASM_MESSAGE_ERROR, ++t->pos);
    e.message = S(msg);
    e.code = S(code);
    FEED(t, e);
}

static void tstart(T *t, const char *id, const char *name, const char *input)
{
    aps_asm_event e = E(&t->p, APS_ASM_TOOL_STARTED, ++t->pos);
    e.tool_call_id = S(id);
    e.tool_name = S(name);
    e.input = R(input);
    FEED(t, e);
}

static void tdelta(T *t, const char *id, const char *s)
{
    aps_asm_event e = E(&t->p, APS_ASM_TOOL_OUTPUT_DELTA, ++t->pos);
    e.tool_call_id = S(id);
    e.text = S(s);
    FEED(t, e);
}

static void tfinish(T *t, const char *id, const char *output)
{
    aps_asm_event e = E(&t->p, APS_ASM_TOOL_FINISHED, ++t->pos);
    e.tool_call_id = S(id);
    e.output = R(output);
    FEED(t, e);
}

static void terror(T *t, const char *id, const char *msg, const char *code)
{
    aps_asm_event e = E(&t->p, APS_ASM_TOOL_ERROR, ++t->pos);
    e.tool_call_id = S(id);
    e.message = S(msg);
    e.code = S(code);
    FEED(t, e);
}

#define MSG_HEAD(id, ns, node, role) \
    "{\"kind\":\"message\",\"id\":\"" id "\",\"namespace\":" ns ",\"node\":" node ",\"role\":" role

/* ---- rules ------------------------------------------------------------ */

static void test_text_message(void)
{
    T t;
    t_init(&t, NULL);
    start(&t, "m1", "ai", "{\"model\":\"x\"}");
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    text(&t, 0, "Hel");
    text(&t, 0, "lo");
    bfinish(&t, 0, "{\"type\":\"text\",\"text\":\"Hello\"}");
    mfinish(&t, "{\"inputTokens\":1}");
    CHECK_STR(tlog_get(&t.c.out),
              MSG_HEAD("m1", "[]", "null", "\"ai\"")
              ",\"metadata\":{\"model\":\"x\"},\"status\":\"finished\","
              "\"content\":[{\"type\":\"text\",\"text\":\"Hello\"}],"
              "\"usage\":{\"inputTokens\":1},\"error\":null}\n");
    CHECK_STR(tlog_get(&t.c.appended), "Hello");
    CHECK_INT(t.c.appends, 2);
    CHECK_STR(tlog_get(&t.c.violations), "");
    t_done(&t);
}

/* What the deltas built, seen through aps_asm_finish (blocks not finished). */
static void test_append_rules(void)
{
    T t;
    t_init(&t, NULL);
    t.p = P("a", NULL, "agent");
    start(&t, "m2", NULL, NULL);
    /* text: the initial text (with escapes) is extended; output is escaped again */
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"pre\\u0041\",\"id\":\"t1\"}");
    text(&t, 0, "x\"\n");
    text(&t, 0, "");
    bfinish(&t, 0, "{\"type\":\"text\",\"text\":\"done\"}");
    /* reasoning: absent member starts empty */
    bstart(&t, 1, "{\"type\":\"reasoning\"}");
    delta(&t, 1, APS_ASM_DELTA_REASONING, "think");
    delta(&t, 1, APS_ASM_DELTA_REASONING, "ing");
    bfinish(&t, 1, "{\"type\":\"reasoning\",\"reasoning\":\"thinking\"}");
    /* tool_call_chunk: null args start empty; absent delta args appends nothing */
    bstart(&t, 2, "{\"type\":\"tool_call_chunk\",\"id\":\"c1\",\"name\":null,\"args\":null}");
    delta(&t, 2, APS_ASM_DELTA_TOOL_CALL, "{\"q\":");
    delta(&t, 2, APS_ASM_DELTA_TOOL_CALL, NULL);
    delta(&t, 2, APS_ASM_DELTA_TOOL_CALL, "1}");
    aps_asm_finish(&t.a);
    CHECK_STR(tlog_get(&t.c.out),
              MSG_HEAD("m2", "[\"a\"]", "\"agent\"", "null")
              ",\"metadata\":null,\"status\":\"open\",\"content\":["
              "{\"type\":\"text\",\"text\":\"done\"},"
              "{\"type\":\"reasoning\",\"reasoning\":\"thinking\"},"
              "{\"type\":\"tool_call_chunk\",\"id\":\"c1\",\"name\":null,\"args\":\"{\\\"q\\\":1}\"}"
              "],\"usage\":null,\"error\":null}\n");
    t_done(&t);

    /* the same, without the finishes: the built text shows */
    t_init(&t, NULL);
    start(&t, "m3", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"pre\\u0041\",\"id\":\"t1\"}");
    text(&t, 0, "x\"\n");
    aps_asm_finish(&t.a);
    CHECK_STR(tlog_get(&t.c.out),
              MSG_HEAD("m3", "[]", "null", "\"ai\"")
              ",\"metadata\":null,\"status\":\"open\",\"content\":["
              "{\"type\":\"text\",\"text\":\"preAx\\\"\\n\",\"id\":\"t1\"}"
              "],\"usage\":null,\"error\":null}\n");
    t_done(&t);

    /* server_tool_call_chunk without args; a tool-call-delta on it */
    t_init(&t, NULL);
    start(&t, "m4", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"server_tool_call_chunk\"}");
    delta(&t, 0, APS_ASM_DELTA_TOOL_CALL, "{}");
    aps_asm_finish(&t.a);
    CHECK(strstr(tlog_get(&t.c.out),
                 "\"content\":[{\"type\":\"server_tool_call_chunk\",\"args\":\"{}\"}]") != NULL);
    t_done(&t);
}

/* block-delta: shallow merge, replacing supplied keys, `type` included. */
static void test_block_delta(void)
{
    T t;
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"tool_use\",\"id\":\"x\",\"input\":\"\",\"caller\":{\"type\":\"direct\"}}");
    bdelta(&t, 0, "{\"type\":\"tool_call_chunk\",\"name\":\"calc\",\"args\":\"{\\\"a\\\"\"}");
    delta(&t, 0, APS_ASM_DELTA_TOOL_CALL, ":1}");
    bdelta(&t, 0, "{\"type\":\"tool_call_chunk\",\"caller\":null,\"extra\":[1,2]}");
    delta(&t, 0, APS_ASM_DELTA_TOOL_CALL, " ");
    aps_asm_finish(&t.a);
    CHECK(strstr(tlog_get(&t.c.out),
                 "\"content\":[{\"type\":\"tool_call_chunk\",\"id\":\"x\",\"input\":\"\","
                 "\"caller\":null,\"name\":\"calc\",\"args\":\"{\\\"a\\\":1} \",\"extra\":[1,2]}]") != NULL);
    CHECK_STR(tlog_get(&t.c.violations), "");
    t_done(&t);

    /* a block-delta that replaces the appended member: later appends extend the new value */
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    text(&t, 0, "abc");
    bdelta(&t, 0, "{\"type\":\"text\",\"text\":\"X\"}");
    text(&t, 0, "Y");
    /* the type changes away from text: a text-delta no longer fits */
    bdelta(&t, 0, "{\"type\":\"reasoning\"}");
    delta(&t, 0, APS_ASM_DELTA_REASONING, "r");
    aps_asm_finish(&t.a);
    CHECK(strstr(tlog_get(&t.c.out),
                 "\"content\":[{\"type\":\"reasoning\",\"text\":\"XY\",\"reasoning\":\"r\"}]") != NULL);
    CHECK_STR(tlog_get(&t.c.violations), "");
    t_done(&t);
}

static void test_unknown_delta_skipped(void)
{
    T t;
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"a\"}");
    delta(&t, 0, APS_ASM_DELTA_UNKNOWN, "ignored");
    text(&t, 0, "b");
    {
        aps_asm_event e = E(&t.p, APS_ASM_OTHER, ++t.pos); /* e.g. the trace's "usage" event */
        FEED(&t, e);
    }
    bfinish(&t, 0, "{\"type\":\"text\",\"text\":\"ab\"}");
    mfinish(&t, NULL);
    CHECK(strstr(tlog_get(&t.c.out), "\"status\":\"finished\",\"content\":[{\"type\":\"text\",\"text\":\"ab\"}]") != NULL);
    CHECK_STR(tlog_get(&t.c.violations), "");
    t_done(&t);
}

static void test_error_event(void)
{
    T t;
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    text(&t, 0, "partial");
    merror(&t, "model overloaded", "overloaded");
    CHECK_STR(tlog_get(&t.c.out),
              MSG_HEAD("m", "[]", "null", "\"ai\"")
              ",\"metadata\":null,\"status\":\"error\",\"content\":["
              "{\"type\":\"text\",\"text\":\"partial\"}],\"usage\":null,"
              "\"error\":{\"message\":\"model overloaded\",\"code\":\"overloaded\"}}\n");
    /* an event after the error is a violation, reported once */
    mfinish(&t, NULL);
    mfinish(&t, NULL);
    CHECK_STR(tlog_get(&t.c.violations),
              "5 message-finished: message-finish after the message finished or failed\n");
    t_done(&t);

    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    merror(&t, "boom", NULL);
    CHECK(strstr(tlog_get(&t.c.out), "\"error\":{\"message\":\"boom\",\"code\":null}") != NULL);
    t_done(&t);
}

/* An image streamed in base64 chunks of every size from 1 to 7 bytes. */
static void test_image_base64(void)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned char png[300];
    char encoded[512], chunk[8], expect[700];
    size_t i, n = 0, at = 0, step = 1;
    T t;
    for (i = 0; i < sizeof png; i++)
        png[i] = (unsigned char)(i * 37 + 11);
    for (i = 0; i < sizeof png; i += 3) {
        unsigned v = (unsigned)png[i] << 16 | (unsigned)png[i + 1] << 8 | png[i + 2];
        encoded[n++] = b64[v >> 18 & 63];
        encoded[n++] = b64[v >> 12 & 63];
        encoded[n++] = b64[v >> 6 & 63];
        encoded[n++] = b64[v & 63];
    }
    encoded[n] = 0;
    t_init(&t, NULL);
    start(&t, "img", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"image\",\"mimeType\":\"image/png\"}");
    while (at < n) {
        size_t k = step < n - at ? step : n - at;
        memcpy(chunk, encoded + at, k);
        chunk[k] = 0;
        delta(&t, 0, APS_ASM_DELTA_DATA, chunk);
        at += k;
        step = step % 7 + 1;
    }
    aps_asm_finish(&t.a);
    snprintf(expect, sizeof expect,
             "\"content\":[{\"type\":\"image\",\"mimeType\":\"image/png\",\"base64\":\"%s\"}]",
             encoded);
    CHECK(strstr(tlog_get(&t.c.out), expect) != NULL);
    CHECK_STR(tlog_get(&t.c.appended), encoded);
    t_done(&t);

    /* the other data types take data-delta too; a partially given base64 is extended */
    {
        static const char *const types[] = { "audio", "video", "file" };
        for (i = 0; i < 3; i++) {
            char content[80];
            t_init(&t, NULL);
            start(&t, "d", "ai", NULL);
            snprintf(content, sizeof content, "{\"type\":\"%s\",\"base64\":\"AA\"}", types[i]);
            bstart(&t, 0, content);
            delta(&t, 0, APS_ASM_DELTA_DATA, "==");
            aps_asm_finish(&t.a);
            CHECK(strstr(tlog_get(&t.c.out), "\"base64\":\"AA==\"}]") != NULL);
            CHECK_STR(tlog_get(&t.c.violations), "");
            t_done(&t);
        }
    }
}

/* Three messages in different namespaces and nodes, interleaved event by event. */
static void test_interleaved(void)
{
    place pl[3];
    T t;
    int i;
    pl[0] = P(NULL, NULL, NULL);
    pl[1] = P("sub", NULL, NULL);
    pl[2] = P("sub", NULL, "n2"); /* same namespace, another node: another message */
    t_init(&t, NULL);
    for (i = 0; i < 3; i++) {
        char id[8];
        snprintf(id, sizeof id, "m%d", i);
        t.p = pl[i];
        start(&t, id, "ai", NULL);
    }
    for (i = 0; i < 3; i++) {
        t.p = pl[i];
        bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    }
    for (i = 0; i < 30; i++) {
        char s[4];
        snprintf(s, sizeof s, "%c", 'a' + i % 3);
        t.p = pl[i % 3];
        text(&t, 0, s);
    }
    /* finish in another order: 2, 0, 1 */
    t.p = pl[2];
    bfinish(&t, 0, "{\"type\":\"text\",\"text\":\"cccccccccc\"}");
    mfinish(&t, NULL);
    t.p = pl[0];
    mfinish(&t, NULL); /* block 0 still open: violation for m0 only */
    t.p = pl[1];
    text(&t, 0, "!");
    aps_asm_finish(&t.a);
    CHECK_STR(tlog_get(&t.c.out),
              MSG_HEAD("m2", "[\"sub\"]", "\"n2\"", "\"ai\"")
              ",\"metadata\":null,\"status\":\"finished\",\"content\":[{\"type\":\"text\",\"text\":\"cccccccccc\"}],\"usage\":null,\"error\":null}\n"
              MSG_HEAD("m0", "[]", "null", "\"ai\"")
              ",\"metadata\":null,\"status\":\"error\",\"content\":[{\"type\":\"text\",\"text\":\"aaaaaaaaaa\"}],\"usage\":null,"
              "\"error\":{\"message\":\"message-finish while block 0 is open (message \\\"m0\\\")\",\"code\":\"finish-block-open\"}}\n"
              MSG_HEAD("m1", "[\"sub\"]", "null", "\"ai\"")
              ",\"metadata\":null,\"status\":\"open\",\"content\":[{\"type\":\"text\",\"text\":\"bbbbbbbbbb!\"}],\"usage\":null,\"error\":null}\n");
    CHECK_STR(tlog_get(&t.c.violations),
              "39 finish-block-open: message-finish while block 0 is open (message \"m0\")\n");
    t_done(&t);
}

/* ---- violations, one by one ---------------------------------------------------- */

/* Runs `setup` then checks the violation lines and the delivered output. */
static void expect_violations(T *t, const char *violations)
{
    CHECK_STR(tlog_get(&t->c.violations), violations);
}

static void test_violations_messages(void)
{
    T t;

    /* events before message-start: reported once per (namespace, node) */
    t_init(&t, NULL);
    text(&t, 0, "x");
    text(&t, 0, "y");
    mfinish(&t, NULL);
    expect_violations(&t, "1 no-message: content-block-delta with no message started\n");
    /* a message-start then works normally */
    start(&t, "m", "ai", NULL);
    mfinish(&t, NULL);
    CHECK(strstr(tlog_get(&t.c.out), "\"status\":\"finished\"") != NULL);
    CHECK_INT(aps_asm_violations(&t.a), 1);
    t_done(&t);

    /* a second finish */
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    mfinish(&t, NULL);
    mfinish(&t, NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    expect_violations(&t, "3 message-finished: message-finish after the message finished or failed\n");
    t_done(&t);

    /* a second message-start while one is open: the open one fails, the new one goes on */
    t_init(&t, NULL);
    start(&t, "m1", "ai", NULL);
    start(&t, "m2", "ai", NULL);
    mfinish(&t, NULL);
    expect_violations(&t, "2 message-open: message-start of \"m2\" while this message is open (message \"m1\")\n");
    CHECK(strstr(tlog_get(&t.c.out), "\"id\":\"m1\"") < strstr(tlog_get(&t.c.out), "\"id\":\"m2\""));
    CHECK(strstr(tlog_get(&t.c.out), "\"code\":\"message-open\"") != NULL);
    CHECK(strstr(tlog_get(&t.c.out), "\"id\":\"m2\",\"namespace\":[],\"node\":null,\"role\":\"ai\",\"metadata\":null,\"status\":\"finished\"") != NULL);
    t_done(&t);

    /* block N+1 started before block N finished */
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    bstart(&t, 1, "{\"type\":\"text\",\"text\":\"\"}");
    text(&t, 0, "ignored");
    expect_violations(&t, "3 block-open: content-block-start for block 1 while block 0 is open (message \"m\")\n");
    CHECK(strstr(tlog_get(&t.c.out), "\"status\":\"error\"") != NULL);
    t_done(&t);

    /* a start whose index is not the next one */
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 1, "{\"type\":\"text\",\"text\":\"\"}");
    expect_violations(&t, "2 block-index: content-block-start for block 1, expected block 0 (message \"m\")\n");
    t_done(&t);
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    bfinish(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    expect_violations(&t, "4 block-index: content-block-start for block 0, expected block 1 (message \"m\")\n");
    t_done(&t);

    /* delta or finish for a block never started */
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    text(&t, 0, "x");
    expect_violations(&t, "2 block-not-started: content-block-delta for block 0, which was never started (message \"m\")\n");
    t_done(&t);
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    bfinish(&t, 3, "{\"type\":\"text\",\"text\":\"\"}");
    expect_violations(&t, "3 block-not-started: content-block-finish for block 3, which was never started (message \"m\")\n");
    t_done(&t);

    /* delta or finish for a block already finished */
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    bfinish(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    text(&t, 0, "late");
    expect_violations(&t, "4 block-finished: content-block-delta for block 0, which is already finished (message \"m\")\n");
    t_done(&t);
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    bfinish(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    bstart(&t, 1, "{\"type\":\"text\",\"text\":\"\"}");
    bfinish(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    expect_violations(&t, "5 block-finished: content-block-finish for block 0, which is already finished (message \"m\")\n");
    t_done(&t);

    /* message-finish with a block open */
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    mfinish(&t, NULL);
    expect_violations(&t, "3 finish-block-open: message-finish while block 0 is open (message \"m\")\n");
    t_done(&t);

    /* content or fields that are not objects */
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "[1]");
    expect_violations(&t, "2 not-object: content-block-start whose content is not an object (message \"m\")\n");
    t_done(&t);
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    bdelta(&t, 0, "\"text\"");
    expect_violations(&t, "3 not-object: block-delta whose fields are not an object (message \"m\")\n");
    t_done(&t);
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    bfinish(&t, 0, "null");
    expect_violations(&t, "3 not-object: content-block-finish whose content is not an object (message \"m\")\n");
    t_done(&t);

    /* an append to a member that is neither a string nor null */
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":5}");
    text(&t, 0, "x");
    expect_violations(&t, "3 field-type: text-delta appends to member \"text\", which is neither a string nor null\n");
    t_done(&t);
}

static void test_delta_mismatch(void)
{
    static const struct {
        const char *content;
        aps_asm_delta kind;
        const char *name;
    } cases[] = {
        { "{\"type\":\"reasoning\"}", APS_ASM_DELTA_TEXT, "text-delta" },
        { "{\"type\":\"tool_call_chunk\",\"id\":null,\"name\":null,\"args\":null}", APS_ASM_DELTA_TEXT, "text-delta" },
        { "{\"type\":\"text\",\"text\":\"\"}", APS_ASM_DELTA_REASONING, "reasoning-delta" },
        { "{\"type\":\"text\",\"text\":\"\"}", APS_ASM_DELTA_DATA, "data-delta" },
        { "{\"type\":\"non_standard\",\"value\":{}}", APS_ASM_DELTA_DATA, "data-delta" },
        { "{\"type\":\"tool_call\",\"id\":null,\"name\":\"f\",\"args\":{}}", APS_ASM_DELTA_TOOL_CALL, "tool-call-delta" },
        { "{\"type\":\"image\"}", APS_ASM_DELTA_TOOL_CALL, "tool-call-delta" },
        { "{\"text\":\"\"}", APS_ASM_DELTA_TEXT, "text-delta" }, /* no type at all */
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        T t;
        char expect[200];
        t_init(&t, NULL);
        start(&t, "m", "ai", NULL);
        bstart(&t, 0, cases[i].content);
        delta(&t, 0, cases[i].kind, "x");
        delta(&t, 0, cases[i].kind, "y"); /* ignored: the message failed */
        snprintf(expect, sizeof expect,
                 "3 delta-mismatch: %s on block 0, whose type does not take it (message \"m\")\n",
                 cases[i].name);
        expect_violations(&t, expect);
        CHECK(strstr(tlog_get(&t.c.out), "\"code\":\"delta-mismatch\"") != NULL);
        t_done(&t);
    }
}

/* A violation fails its own message only; the others assemble. */
static void test_poison_isolated(void)
{
    place a = P("a", NULL, NULL), b = P("b", NULL, NULL);
    T t;
    t_init(&t, NULL);
    t.p = a;
    start(&t, "ma", "ai", NULL);
    t.p = b;
    start(&t, "mb", "ai", NULL);
    t.p = a;
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    t.p = b;
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    t.p = a;
    delta(&t, 0, APS_ASM_DELTA_REASONING, "bad");
    t.p = b;
    text(&t, 0, "good");
    t.p = a;
    text(&t, 0, "ignored");
    bfinish(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    mfinish(&t, NULL);
    t.p = b;
    bfinish(&t, 0, "{\"type\":\"text\",\"text\":\"good\"}");
    mfinish(&t, NULL);
    CHECK_INT(aps_asm_violations(&t.a), 1);
    CHECK(strstr(tlog_get(&t.c.out), "\"id\":\"ma\"") != NULL);
    CHECK(strstr(tlog_get(&t.c.out), "\"status\":\"finished\",\"content\":[{\"type\":\"text\",\"text\":\"good\"}]") != NULL);
    /* a new message-start in the failed place starts afresh */
    t.p = a;
    start(&t, "ma2", "ai", NULL);
    mfinish(&t, NULL);
    CHECK(strstr(tlog_get(&t.c.out), "\"id\":\"ma2\",\"namespace\":[\"a\"],\"node\":null,\"role\":\"ai\",\"metadata\":null,\"status\":\"finished\"") != NULL);
    CHECK_INT(aps_asm_violations(&t.a), 1);
    t_done(&t);
}

/* ---- tools ------------------------------------------------------------------ */

static void test_tools(void)
{
    T t;
    t_init(&t, NULL);
    /* the tool_call block of an AI message, then its execution */
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"tool_call_chunk\",\"id\":\"call_1\",\"name\":\"calc\",\"args\":\"\"}");
    delta(&t, 0, APS_ASM_DELTA_TOOL_CALL, "{\"x\":1}");
    bfinish(&t, 0, "{\"type\":\"tool_call\",\"id\":\"call_1\",\"name\":\"calc\",\"args\":{\"x\":1}}");
    mfinish(&t, NULL);
    t.p = P("tools", NULL, "tools");
    tstart(&t, "call_1", "calc", "{\"x\":1}");
    tstart(&t, "call_2", "search", NULL);
    tdelta(&t, "call_1", "par");
    tdelta(&t, "call_1", "tial");
    tfinish(&t, "call_1", "{\"v\":2}");
    terror(&t, "call_2", "timed out", "timeout");
    CHECK_STR(strchr(tlog_get(&t.c.out), '\n') + 1,
              "{\"kind\":\"tool\",\"toolCallId\":\"call_1\",\"namespace\":[\"tools\"],\"node\":\"tools\","
              "\"toolName\":\"calc\",\"input\":{\"x\":1},\"status\":\"finished\",\"outputDelta\":\"partial\","
              "\"output\":{\"v\":2},\"error\":null}\n"
              "{\"kind\":\"tool\",\"toolCallId\":\"call_2\",\"namespace\":[\"tools\"],\"node\":\"tools\","
              "\"toolName\":\"search\",\"input\":null,\"status\":\"error\",\"outputDelta\":\"\","
              "\"output\":null,\"error\":{\"message\":\"timed out\",\"code\":\"timeout\"}}\n");
    CHECK_INT(t.c.links, 1);
    CHECK_STR(tlog_get(&t.c.link_json),
              "{\"type\":\"tool_call\",\"id\":\"call_1\",\"name\":\"calc\",\"args\":{\"x\":1}}\n");
    CHECK_STR(tlog_get(&t.c.violations), "");

    /* tool violations: unknown id, events after finish (reported once), a second start */
    tdelta(&t, "nope", "x");
    tfinish(&t, "nope", "1");
    tdelta(&t, "call_1", "late");
    tfinish(&t, "call_1", "2");
    tstart(&t, "call_3", "f", NULL);
    tstart(&t, "call_3", "f", NULL);
    tfinish(&t, "call_3", "3");
    expect_violations(&t,
                      "12 tool-unknown: tool-output-delta with no tool started\n"
                      "14 tool-finished: tool-output-delta after the tool finished or failed\n"
                      "17 tool-started: tool-started for toolCallId \"call_3\", which is already running\n");
    /* the first call_3 failed; the second ran to its end */
    CHECK(strstr(tlog_get(&t.c.out), "\"toolCallId\":\"call_3\",\"namespace\":[\"tools\"],\"node\":\"tools\",\"toolName\":\"f\",\"input\":null,\"status\":\"error\"") != NULL);
    CHECK(strstr(tlog_get(&t.c.out), "\"status\":\"finished\",\"outputDelta\":\"\",\"output\":3,\"error\":null}\n") != NULL);
    /* tool-started for an id that already finished */
    tstart(&t, "call_2", "search", NULL);
    CHECK(strstr(tlog_get(&t.c.violations), "19 tool-finished: tool-started after the tool finished or failed\n") != NULL);
    /* a running tool at the end is delivered as started, with no link */
    tstart(&t, "call_9", "slow", "[]");
    tdelta(&t, "call_9", "");
    aps_asm_finish(&t.a);
    CHECK(strstr(tlog_get(&t.c.out), "\"toolCallId\":\"call_9\",\"namespace\":[\"tools\"],\"node\":\"tools\",\"toolName\":\"slow\",\"input\":[],\"status\":\"started\",\"outputDelta\":\"\",\"output\":null,\"error\":null}") != NULL);
    CHECK_INT(t.c.links, 1);
    t_done(&t);
}

/* Which finished blocks link to a tool: by id, any type but the non-tool ones, the latest wins. */
static void test_links(void)
{
    T t;
    t_init(&t, NULL);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\",\"id\":\"t\"}");
    bfinish(&t, 0, "{\"type\":\"text\",\"text\":\"hi\",\"id\":\"t\"}");
    bstart(&t, 1, "{\"type\":\"tool_use\",\"id\":\"u\"}");
    bfinish(&t, 1, "{\"type\":\"input_json_delta\",\"id\":\"u\",\"args\":\"{}\"}");
    bstart(&t, 2, "{\"type\":\"tool_call_chunk\",\"id\":\"u\",\"name\":null,\"args\":null}");
    bfinish(&t, 2, "{\"type\":\"tool_call\",\"id\":\"u\",\"name\":\"f\",\"args\":{}}");
    mfinish(&t, NULL);
    tstart(&t, "t", "x", NULL);
    tfinish(&t, "t", "null");
    tstart(&t, "u", "f", NULL);
    tfinish(&t, "u", "null");
    CHECK_INT(t.c.links, 1);
    CHECK_STR(tlog_get(&t.c.link_json), "{\"type\":\"tool_call\",\"id\":\"u\",\"name\":\"f\",\"args\":{}}\n");
    t_done(&t);
}

/* ---- limits, finish order, bad views ------------------------------------------ */

static void test_limits(void)
{
    aps_asm_options o;
    T t;
    memset(&o, 0, sizeof o);
    o.max_open_messages = 1;
    o.max_open_tools = 1;
    t_init(&t, &o);
    start(&t, "m1", "ai", NULL);
    t.p = P("x", NULL, NULL);
    start(&t, "m2", "ai", NULL);
    text(&t, 0, "ignored");
    tstart(&t, "a", "f", NULL);
    tstart(&t, "b", "f", NULL);
    tdelta(&t, "b", "ignored");
    expect_violations(&t,
                      "2 limit: message-start of \"m2\": more than 1 messages open\n"
                      "5 limit: tool-started for \"b\": more than 1 tools running\n");
    t_done(&t);

    /* bytes per message: the message that grows too big fails, alone */
    memset(&o, 0, sizeof o);
    o.max_item_bytes = 4096;
    t_init(&t, &o);
    start(&t, "big", "ai", NULL);
    t.p = P("other", NULL, NULL);
    start(&t, "small", "ai", NULL);
    t.p = P(NULL, NULL, NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\"}");
    {
        char chunk[101];
        int i;
        memset(chunk, 'z', 100);
        chunk[100] = 0;
        for (i = 0; i < 100; i++)
            text(&t, 0, chunk);
    }
    CHECK(strstr(tlog_get(&t.c.violations), "limit: message exceeds the assembler's size limits (message \"big\")\n") != NULL);
    CHECK_INT(aps_asm_violations(&t.a), 1);
    t.p = P("other", NULL, NULL);
    mfinish(&t, NULL);
    CHECK(strstr(tlog_get(&t.c.out), "\"id\":\"small\",\"namespace\":[\"other\"],\"node\":null,\"role\":\"ai\",\"metadata\":null,\"status\":\"finished\"") != NULL);
    t_done(&t);

    /* members per block */
    memset(&o, 0, sizeof o);
    o.max_block_members = 3;
    t_init(&t, &o);
    start(&t, "m", "ai", NULL);
    bstart(&t, 0, "{\"type\":\"text\",\"text\":\"\",\"a\":1}");
    bdelta(&t, 0, "{\"type\":\"text\",\"b\":2}");
    CHECK(strstr(tlog_get(&t.c.violations), "3 limit: ") != NULL);
    t_done(&t);

    /* remembered finished places: once forgotten, a late event reads as "no message" */
    memset(&o, 0, sizeof o);
    o.max_closed = 2;
    t_init(&t, &o);
    {
        int i;
        for (i = 0; i < 3; i++) {
            char seg[8];
            snprintf(seg, sizeof seg, "n%d", i);
            t.p = P(seg, NULL, NULL);
            start(&t, "m", "ai", NULL);
            mfinish(&t, NULL);
        }
    }
    t.p = P("n0", NULL, NULL);
    mfinish(&t, NULL);
    t.p = P("n2", NULL, NULL);
    mfinish(&t, NULL);
    expect_violations(&t,
                      "7 no-message: message-finish with no message started\n"
                      "8 message-finished: message-finish after the message finished or failed\n");
    t_done(&t);

    /* link bytes: an old link is dropped when newer ones fill the budget */
    memset(&o, 0, sizeof o);
    o.max_link_bytes = 300;
    t_init(&t, &o);
    start(&t, "m", "ai", NULL);
    {
        int i;
        for (i = 0; i < 6; i++) {
            char c[120];
            snprintf(c, sizeof c, "{\"type\":\"tool_call\",\"id\":\"c%d\",\"name\":\"f\",\"args\":{}}", i);
            bstart(&t, (uint64_t)i, c);
            bfinish(&t, (uint64_t)i, c);
        }
    }
    mfinish(&t, NULL);
    tstart(&t, "c0", "f", NULL);
    tfinish(&t, "c0", "0");
    tstart(&t, "c5", "f", NULL);
    tfinish(&t, "c5", "0");
    CHECK_INT(t.c.links, 1);
    CHECK(strstr(tlog_get(&t.c.link_json), "\"c5\"") != NULL);
    t_done(&t);
}

static void test_finish_order_and_reuse(void)
{
    T t;
    t_init(&t, NULL);
    t.p = P("a", NULL, NULL);
    start(&t, "first", "ai", NULL);
    tstart(&t, "tool", "f", NULL);
    t.p = P("b", NULL, NULL);
    start(&t, "second", "human", NULL);
    aps_asm_finish(&t.a);
    {
        const char *out = tlog_get(&t.c.out);
        const char *a = strstr(out, "\"first\""), *b = strstr(out, "\"tool\""), *c = strstr(out, "\"second\"");
        CHECK(a != NULL && b != NULL && c != NULL && a < b && b < c);
    }
    /* after finish the assembler starts over: the same place takes a new message */
    tlog_free(&t.c.out);
    t.p = P("a", NULL, NULL);
    start(&t, "again", "ai", NULL);
    mfinish(&t, NULL);
    CHECK(strstr(tlog_get(&t.c.out), "\"again\"") != NULL);
    CHECK_INT(aps_asm_violations(&t.a), 0);
    t_done(&t);
}

static void test_bad_views(void)
{
    T t;
    aps_asm_event e;
    aps_error err = APS_ERROR_INIT;
    t_init(&t, NULL);
    e = E(&t.p, APS_ASM_MESSAGE_START, 1);
    e.id.len = 3; /* NULL with a length */
    CHECK_INT(aps_asm_feed(&t.a, &e, &err), APS_E_ARGUMENT);
    e = E(&t.p, (aps_asm_kind)99, 2);
    CHECK_INT(aps_asm_feed(&t.a, &e, NULL), APS_E_ARGUMENT);
    e = E(&t.p, APS_ASM_MESSAGE_START, 3);
    e.ns_len = 2; /* ns NULL */
    CHECK_INT(aps_asm_feed(&t.a, &e, NULL), APS_E_ARGUMENT);
    CHECK_INT(aps_asm_feed(&t.a, NULL, NULL), APS_E_ARGUMENT);
    CHECK_STR(tlog_get(&t.c.out), "");
    t_done(&t);
}

/* Accessors give what the JSON line shows, inside the callback. */
static void check_accessors(void *ctx, const aps_asm_message *m)
{
    const aps_slice *segs;
    aps_slice msg, code;
    aps_json_raw raw;
    int *ok = (int *)ctx;
    *ok = aps_asm_message_namespace(m, &segs) == 1 && segs[0].len == 2 &&
          memcmp(segs[0].ptr, "ns", 2) == 0 && aps_asm_message_node(m).len == 4 &&
          aps_asm_message_id(m).len == 2 && aps_asm_message_role(m).ptr == NULL &&
          aps_asm_message_metadata(m).len == 2 && aps_asm_message_usage(m).ptr == NULL &&
          aps_asm_message_state(m) == APS_ASM_ERROR && aps_asm_message_block_count(m) == 2 &&
          aps_asm_message_block_final(m, 0, &raw) && raw.len == 20 &&
          !aps_asm_message_block_final(m, 1, NULL) && !aps_asm_message_block_final(m, 2, NULL) &&
          aps_asm_message_error(m, &msg, &code) && msg.len == 4 && code.ptr == NULL;
}

static void test_accessors(void)
{
    aps_asm_callbacks cb;
    aps_assembler a;
    aps_asm_event e;
    aps_slice ns[1];
    int ok = 0;
    memset(&cb, 0, sizeof cb);
    cb.on_message_done = check_accessors;
    cb.ctx = &ok;
    aps_asm_init(&a, NULL, &cb);
    ns[0] = S("ns");
    memset(&e, 0, sizeof e);
    e.ns = ns;
    e.ns_len = 1;
    e.node = S("node");
    e.kind = APS_ASM_MESSAGE_START;
    e.id = S("id");
    e.metadata = R("{}");
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_OK);
    e.kind = APS_ASM_BLOCK_START;
    e.content = R("{\"type\":\"text\",\"text\":\"\"}");
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_OK);
    e.kind = APS_ASM_BLOCK_FINISH;
    e.content = R("{\"type\":\"reasoning\"}");
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_OK);
    e.kind = APS_ASM_BLOCK_START;
    e.index = 1;
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_OK);
    e.kind = APS_ASM_MESSAGE_ERROR;
    e.message = S("oops");
    CHECK_INT(aps_asm_feed(&a, &e, NULL), APS_OK);
    CHECK(ok);
    aps_asm_deinit(&a);
}

int main(void)
{
    test_text_message();
    test_append_rules();
    test_block_delta();
    test_unknown_delta_skipped();
    test_error_event();
    test_image_base64();
    test_interleaved();
    test_violations_messages();
    test_delta_mismatch();
    test_poison_isolated();
    test_tools();
    test_links();
    test_limits();
    test_finish_order_and_reuse();
    test_bad_views();
    test_accessors();
    return test_report();
}
