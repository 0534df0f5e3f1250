/*
 * test_sse.c - the SSE encoder and parser, rule by rule against the WHATWG
 * "Interpreting an event stream" section, chunking invariance, and, given
 * its two captures, the real trace (in the shared test material's traces/).
 * Usage: test_sse [TRACE.sse TRACE.jsonl]
 */
#include "aps/jsonl.h"
#include "aps/sse.h"
#include "chunking.h"
#include "test_util.h"

/* ------------------------------------------------------------------------ */
/* Parsing into a log: [type][data][last id][retry] per event, !CODE@offset   */
/* per error.                                                                 */
/* ------------------------------------------------------------------------ */

typedef struct sse_ctx {
    tlog *log;
    int with_offsets;
    int stop_after; /* stop the parser after this many events (0: never) */
    int events;
} sse_ctx;

static aps_status on_event(void *user, const aps_sse_event *ev)
{
    sse_ctx *c = user;
    tlog_add(c->log, "[", 1);
    tlog_escaped(c->log, ev->type, ev->type_len);
    tlog_add(c->log, "][", 2);
    tlog_escaped(c->log, ev->data, ev->data_len);
    tlog_add(c->log, "][", 2);
    tlog_escaped(c->log, ev->last_id, ev->last_id_len);
    tlog_add(c->log, "]", 1);
    if (ev->retry >= 0)
        tlog_printf(c->log, "retry=%lld", (long long)ev->retry);
    if (c->with_offsets)
        tlog_printf(c->log, "@%llu,%llu", (unsigned long long)ev->offset,
                    (unsigned long long)ev->data_offset);
    tlog_add(c->log, "\n", 1);
    if (++c->events == c->stop_after)
        return APS_E_STATE;
    return APS_OK;
}

static aps_status on_error(void *user, const aps_error *err)
{
    sse_ctx *c = user;
    tlog_printf(c->log, "!%s@%zu\n", err->code == APS_E_LIMIT ? "LIMIT" : "UTF8", err->offset);
    return APS_OK;
}

/* Comments, when asked for (g_comments), logged as #[text]@offset; stop at one that reads "stop". */
static aps_status on_comment(void *user, const char *text, size_t len, uint64_t offset)
{
    sse_ctx *c = user;
    tlog_add(c->log, "#[", 2);
    tlog_escaped(c->log, text, len);
    tlog_printf(c->log, "]@%llu\n", (unsigned long long)offset);
    return len == 4 && memcmp(text, "stop", 4) == 0 ? APS_E_STATE : APS_OK;
}

static size_t g_cap = 1 << 16;
static aps_sse_options g_opts;
static int g_comments;

static void sse_chunked(const uint8_t *in, size_t len, const size_t *cuts, size_t ncuts,
                        tlog *out)
{
    static char storage[1 << 20];
    aps_sse_parser p;
    sse_ctx c = { 0 };
    size_t i, at = 0;
    c.log = out;
    aps_sse_parser_init(&p, storage, g_cap, &g_opts, on_event, on_error, &c);
    if (g_comments)
        aps_sse_parser_on_comment(&p, on_comment);
    for (i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : len;
        if (aps_sse_parser_push(&p, in + at, end - at, NULL) != APS_OK)
            tlog_add(out, "!PUSH\n", 6);
        at = end;
    }
    if (aps_sse_parser_finish(&p, NULL) != APS_OK)
        tlog_add(out, "!FINISH\n", 8);
}

/* Parses `in` whole and in every chunking; checks the log is `want`. */
#define EXPECT(in, want) expect_sse(__LINE__, in, sizeof(in) - 1, want)

static void expect_sse(int line, const char *in, size_t len, const char *want)
{
    tlog got = check_split_invariance("sse", (const uint8_t *)in, len, sse_chunked, 4096);
    const char *g = got.s ? got.s : "";
    ++test_checks_run;
    if (strcmp(g, want) != 0) {
        ++test_checks_failed;
        fprintf(stderr, "%s:%d: SSE log differs\n  want: %s\n  got:  %s\n", __FILE__, line,
                want, g);
    }
    tlog_free(&got);
}

static void test_fields(void)
{
    /* data, one optional space removed */
    EXPECT("data: hello\n\n", "[message][hello][]\n");
    EXPECT("data:hello\n\n", "[message][hello][]\n");
    EXPECT("data:  two\n\n", "[message][ two][]\n");
    EXPECT("data: a:b: c\n\n", "[message][a:b: c][]\n");
    /* several data lines are joined with LF; the final LF is removed */
    EXPECT("data: a\ndata: b\n\n", "[message][a\\nb][]\n");
    EXPECT("data: a\ndata\n\n", "[message][a\\n][]\n");
    /* a field without a colon: the line is the name, the value empty */
    EXPECT("data\n\n", "[message][][]\n");
    EXPECT("data\ndata\n\n", "[message][\\n][]\n");
    EXPECT("data:\n\n", "[message][][]\n");
    /* event sets the type for this event only; empty means message */
    EXPECT("event: add\ndata: 1\n\ndata: 2\n\n", "[add][1][]\n[message][2][]\n");
    EXPECT("event:\ndata: x\n\n", "[message][x][]\n");
    EXPECT("event\ndata: x\n\n", "[message][x][]\n");
    EXPECT("event: a\nevent: b\ndata: x\n\n", "[b][x][]\n");
    EXPECT("data: x\nevent: late\n\n", "[late][x][]\n");
    /* a block without data dispatches nothing and forgets its type */
    EXPECT("event: a\n\ndata: x\n\n", "[message][x][]\n");
    /* names are case-sensitive and exact; unknown fields are ignored */
    EXPECT("Data: x\ndatas: y\ndat: z\n data: w\nfoo: bar\nfoobarbaz: q\n\n", "");
    EXPECT("foo: bar\ndata: x\nfoobarbaz\n\n", "[message][x][]\n");
    /* comments */
    EXPECT(": hello\n:\n\n", "");
    EXPECT(": comment\ndata: x\n: between\ndata: y\n\n", "[message][x\\ny][]\n");
    /* NUL and other bytes pass through data */
    EXPECT("data: a\0b\n\n", "[message][a\\x00b][]\n");
}

static void test_ids(void)
{
    /* id persists across events and is reported on each */
    EXPECT("id: 7\ndata: x\n\ndata: y\n\n", "[message][x][7]\n[message][y][7]\n");
    /* an id containing NUL is ignored */
    EXPECT("id: 1\ndata: x\n\nid: a\0b\ndata: y\n\n", "[message][x][1]\n[message][y][1]\n");
    /* an empty id resets it */
    EXPECT("id: 1\ndata: x\n\nid\ndata: y\n\nid:\ndata: z\n\n",
           "[message][x][1]\n[message][y][]\n[message][z][]\n");
    /* an id in a block without data still sets the last event id */
    EXPECT("id: 5\n\ndata: y\n\n", "[message][y][5]\n");
    EXPECT("id:  5\ndata: y\n\n", "[message][y][ 5]\n");
    /* the last id line of an event wins */
    EXPECT("id: 1\nid: 2\ndata: y\n\n", "[message][y][2]\n");
}

static void test_retry(void)
{
    EXPECT("retry: 3000\ndata: x\n\ndata: y\n\n",
           "[message][x][]retry=3000\n[message][y][]\n");
    EXPECT("retry:10\ndata: x\n\n", "[message][x][]retry=10\n");
    /* only all-ASCII-digit values count */
    EXPECT("retry: 30a\ndata: x\n\n", "[message][x][]\n");
    EXPECT("retry: -1\ndata: x\n\n", "[message][x][]\n");
    EXPECT("retry:  5\ndata: x\n\n", "[message][x][]\n");
    EXPECT("retry: 5 \ndata: x\n\n", "[message][x][]\n");
    EXPECT("retry\ndata: x\n\n", "[message][x][]\n");
    EXPECT("retry:\ndata: x\n\n", "[message][x][]\n");
    EXPECT("retry: 99999999999999999999999\ndata: x\n\n", "[message][x][]\n");
    EXPECT("retry: 9223372036854775807\ndata: x\n\n",
           "[message][x][]retry=9223372036854775807\n");
    /* a retry in a block without data is reported with the next event */
    EXPECT("retry: 7\n\ndata: x\n\n", "[message][x][]retry=7\n");
}

static void test_line_ends(void)
{
    EXPECT("data: a\rdata: b\r\r", "[message][a\\nb][]\n");
    EXPECT("data: a\r\ndata: b\r\n\r\n", "[message][a\\nb][]\n");
    EXPECT("data: a\ndata: b\r\ndata: c\r\rdata: d\n\r\n",
           "[message][a\\nb\\nc][]\n[message][d][]\n");
    /* LF CR is two line ends: the CR is a blank line */
    EXPECT("data: a\n\rdata: b\n\n", "[message][a][]\n[message][b][]\n");
    /* blank lines before the first event do nothing */
    EXPECT("\n\r\n\rdata: x\n\n", "[message][x][]\n");
}

static void test_cr_at_chunk_end(void)
{
    /* CR at the end of one push, LF at the start of the next: one line end.
     * An extra blank line would dispatch "a" alone. */
    static char storage[64];
    tlog log = { 0 };
    sse_ctx c = { 0 };
    aps_sse_parser p;
    c.log = &log;
    aps_sse_parser_init(&p, storage, sizeof storage, NULL, on_event, on_error, &c);
    CHECK(aps_sse_parser_push(&p, "data: a\r", 8, NULL) == APS_OK);
    CHECK(aps_sse_parser_push(&p, "\ndata: b\r", 9, NULL) == APS_OK);
    CHECK(aps_sse_parser_push(&p, "\n", 1, NULL) == APS_OK);
    CHECK_INT(log.len, 0);
    CHECK(aps_sse_parser_push(&p, "\r", 1, NULL) == APS_OK);
    CHECK_STR(log.s, "[message][a\\nb][]\n");
    CHECK(aps_sse_parser_push(&p, "\n", 1, NULL) == APS_OK);
    CHECK_STR(log.s, "[message][a\\nb][]\n");
    CHECK(aps_sse_parser_finish(&p, NULL) == APS_OK);
    tlog_free(&log);
}

static void test_bom(void)
{
    EXPECT("\xEF\xBB\xBF" "data: x\n\n", "[message][x][]\n");
    /* only one BOM is stripped: the second makes the name unknown */
    EXPECT("\xEF\xBB\xBF\xEF\xBB\xBF" "data: x\n\ndata: y\n\n", "[message][y][]\n");
    /* a partial BOM is content */
    EXPECT("\xEF\xBB" "data: x\n\ndata: y\n\n", "[message][y][]\n");
    /* a BOM later in the stream is content */
    EXPECT("data: x\n\n\xEF\xBB\xBF" "data: y\n\n", "[message][x][]\n");
    EXPECT("\xEF\xBB\xBF", "");
    EXPECT("\xEF", "");
}

static void test_end_of_stream(void)
{
    static char storage[64];
    aps_sse_parser p;
    tlog log = { 0 };
    sse_ctx c = { 0 };
    /* the trailing incomplete event is discarded */
    EXPECT("data: x\n\ndata: y\n", "[message][x][]\n");
    EXPECT("data: x\n\ndata: y", "[message][x][]\n");
    EXPECT("data: x\n\ndata: y\r", "[message][x][]\n");
    c.log = &log;
    aps_sse_parser_init(&p, storage, sizeof storage, NULL, on_event, on_error, &c);
    CHECK(!aps_sse_parser_pending(&p));
    CHECK(aps_sse_parser_push(&p, "id: 3\ndata: x\n\n", 15, NULL) == APS_OK);
    CHECK(!aps_sse_parser_pending(&p));
    CHECK(aps_sse_parser_push(&p, ": ping", 6, NULL) == APS_OK);
    CHECK(aps_sse_parser_pending(&p));
    CHECK(aps_sse_parser_push(&p, "\ndata: y\n", 9, NULL) == APS_OK);
    CHECK(aps_sse_parser_pending(&p));
    CHECK(aps_sse_parser_finish(&p, NULL) == APS_OK);
    CHECK(!aps_sse_parser_pending(&p));
    CHECK_STR(log.s, "[message][x][3]\n");
    /* reset starts a new stream: the Last-Event-ID to send is kept, but the
     * new stream's id buffer starts empty, as the spec says */
    aps_sse_parser_reset(&p);
    CHECK(aps_sse_parser_last_id(&p, NULL)[0] == '3');
    CHECK(aps_sse_parser_push(&p, "\xEF\xBB\xBF" "data: z\n\n", 12, NULL) == APS_OK);
    CHECK_STR(log.s, "[message][x][3]\n[message][z][]\n");
    tlog_free(&log);
}

static void test_limits(void)
{
    char name[APS_SSE_NAME_MAX + 40];
    tlog got = { 0 };
    size_t n;
    g_cap = 8;
    /* data longer than the storage: reported at the first byte that does not
     * fit, the event dropped, the parser back in step at the blank line */
    EXPECT("data: 123456789\ndata: more\n\ndata: ok\n\n",
           "!LIMIT@14\n[message][ok][]\n");
    EXPECT("data: 12345678\n\n", "[message][12345678][]\n");
    /* the joining LF counts */
    EXPECT("data: 1234\ndata: 567\n\n", "[message][1234\\n567][]\n");
    EXPECT("data: 1234\ndata: 5678\n\ndata: ok\n\n", "!LIMIT@20\n[message][ok][]\n");
    EXPECT("data: 12345678\ndata\n\ndata: ok\n\n", "!LIMIT@19\n[message][ok][]\n");
    /* an id in the dropped event's later lines is skipped */
    EXPECT("id: 1\ndata: 123456789\nid: 2\n\ndata: ok\n\n", "!LIMIT@20\n[message][ok][1]\n");
    /* long comment and unknown lines cost no storage */
    EXPECT(": a very long comment line that is far longer than eight bytes\n"
           "unknownfield: also much longer than the storage\ndata: ok\n\n",
           "[message][ok][]\n");
    g_cap = 1 << 16;

    /* event type and id are limited to APS_SSE_NAME_MAX */
    memcpy(name, "event: ", 7);
    memset(name + 7, 'e', APS_SSE_NAME_MAX);
    memcpy(name + 7 + APS_SSE_NAME_MAX, "\ndata: x\n\n", 10);
    n = 7 + APS_SSE_NAME_MAX + 10;
    got = check_split_invariance("sse-type", (const uint8_t *)name, n, sse_chunked, 0);
    CHECK(got.s != NULL && strncmp(got.s, "[eeee", 5) == 0);
    tlog_free(&got);
    name[7 + APS_SSE_NAME_MAX] = 'e';
    memcpy(name + 8 + APS_SSE_NAME_MAX, "\ndata: x\n\ndata: ok\n\n", 20);
    got = check_split_invariance("sse-type", (const uint8_t *)name, n + 11, sse_chunked, 0);
    CHECK_STR(got.s, "!LIMIT@263\n[message][ok][]\n");
    tlog_free(&got);
    memcpy(name, "id: ", 4);
    memset(name + 4, '1', APS_SSE_NAME_MAX + 1);
    memcpy(name + 5 + APS_SSE_NAME_MAX, "\ndata: x\n\ndata: ok\n\n", 20);
    got = check_split_invariance("sse-id", (const uint8_t *)name, 25 + APS_SSE_NAME_MAX,
                                 sse_chunked, 0);
    CHECK_STR(got.s, "!LIMIT@260\n[message][ok][]\n");
    tlog_free(&got);
}

static void test_utf8(void)
{
    /* invalid UTF-8 in data: reported at the bad byte, the event dropped */
    EXPECT("data: ok\xC3\xA9\n\ndata: a\xC3(\n\ndata: b\n\n",
           "[message][ok\xC3\xA9][]\n!UTF8@20\n[message][b][]\n");
    EXPECT("data: \xED\xA0\x80\n\n", "!UTF8@7\n");
    EXPECT("event: \xFF\ndata: x\n\ndata: y\n\n", "!UTF8@0\n[message][y][]\n");
    /* an invalid id is not taken */
    EXPECT("id: 1\ndata: x\n\nid: \xC0\xAF\ndata: y\n\ndata: z\n\n",
           "[message][x][1]\n!UTF8@15\n[message][z][1]\n");
    /* the check can be left to the next stage */
    g_opts.skip_utf8_check = 1;
    EXPECT("data: a\xC3(\n\n", "[message][a\xC3(][]\n");
    g_opts.skip_utf8_check = 0;
}

static void test_offsets_and_stop(void)
{
    static char storage[64];
    tlog log = { 0 };
    sse_ctx c = { 0 };
    aps_sse_parser p;
    aps_error err = APS_ERROR_INIT;
    const char *in = ": hb\nid: 1\ndata: x\n\nevent: e\ndata:yz\n\ndata: w\n\n";
    c.log = &log;
    c.with_offsets = 1;
    c.stop_after = 2;
    aps_sse_parser_init(&p, storage, sizeof storage, NULL, on_event, on_error, &c);
    CHECK(aps_sse_parser_push(&p, in, strlen(in), &err) == APS_E_STATE);
    CHECK_INT(err.code, APS_E_STATE);
    CHECK_STR(log.s, "[message][x][1]@5,17\n[e][yz][1]@20,34\n");
    CHECK(aps_sse_parser_push(&p, "data: v\n\n", 9, NULL) == APS_E_STATE);
    CHECK(aps_sse_parser_finish(&p, NULL) == APS_E_STATE);
    CHECK_STR(log.s, "[message][x][1]@5,17\n[e][yz][1]@20,34\n");
    CHECK_INT(aps_sse_parser_retry(&p), -1);
    tlog_free(&log);
}

/* Comment lines, when a callback asks for them: whole in any chunking, in stream order, cut at APS_SSE_NAME_MAX. */
static void test_comments(void)
{
    char longer[APS_SSE_NAME_MAX + 64], want[2 * APS_SSE_NAME_MAX];
    g_comments = 1;
    EXPECT(": hb\ndata: x\n\n:\n: missed 3 events; oldest seq 5\r\ndata: y\n:in \xC3 event\n\n",
           "#[ hb]@0\n[message][x][]\n#[]@14\n#[ missed 3 events; oldest seq 5]@16\n#[in \xC3 event]@57\n"
           "[message][y][]\n");
    /* an event dropped for its size still has its comments read; a comment starts no event */
    g_cap = 4;
    EXPECT("data: 12345\n: note\ndata: 6\n\n:x\n", "!LIMIT@10\n#[ note]@12\n#[x]@28\n");
    g_cap = 1 << 16;
    /* a callback's status stops the parser, whole or split inside the comment */
    {
        tlog log = { 0 };
        size_t cut = 3;
        sse_chunked((const uint8_t *)":stop\ndata: x\n\n", 15, NULL, 0, &log);
        sse_chunked((const uint8_t *)":stop\ndata: x\n\n", 15, &cut, 1, &log);
        CHECK_STR(log.s, "#[stop]@0\n!PUSH\n!FINISH\n#[stop]@0\n!PUSH\n!FINISH\n");
        tlog_free(&log);
    }
    /* the first APS_SSE_NAME_MAX bytes of a longer one */
    longer[0] = ':';
    memset(longer + 1, 'a', sizeof longer - 2);
    longer[sizeof longer - 1] = '\n';
    memcpy(want, "#[", 2);
    memset(want + 2, 'a', APS_SSE_NAME_MAX);
    memcpy(want + 2 + APS_SSE_NAME_MAX, "]@0\n", 5);
    expect_sse(__LINE__, longer, sizeof longer, want);
    g_comments = 0;
    /* and without a callback they are skipped, as before */
    EXPECT(": hb\ndata: x\n\n", "[message][x][]\n");
}

static void test_getters(void)
{
    static char storage[16];
    aps_sse_parser p;
    size_t n = 99;
    const char *id;
    aps_sse_parser_init(&p, storage, sizeof storage, NULL, NULL, NULL, NULL);
    id = aps_sse_parser_last_id(&p, &n);
    CHECK(id != NULL && n == 0);
    CHECK(aps_sse_parser_push(&p, "id: abc\nretry: 15\n\n", 19, NULL) == APS_OK);
    id = aps_sse_parser_last_id(&p, &n);
    CHECK(n == 3 && memcmp(id, "abc", 3) == 0);
    CHECK_INT(aps_sse_parser_retry(&p), 15);
    /* an id counts only once a blank line follows it */
    CHECK(aps_sse_parser_push(&p, "id: 9\n", 6, NULL) == APS_OK);
    CHECK(aps_sse_parser_finish(&p, NULL) == APS_OK);
    id = aps_sse_parser_last_id(&p, &n);
    CHECK(n == 3 && memcmp(id, "abc", 3) == 0);
    /* no storage at all: only empty data fits */
    aps_sse_parser_init(&p, NULL, 0, NULL, NULL, NULL, NULL);
    CHECK(aps_sse_parser_push(&p, "data\n\ndata: x\n\n", 15, NULL) == APS_OK);
}

/* ------------------------------------------------------------------------ */
/* Encoder                                                                  */
/* ------------------------------------------------------------------------ */

static aps_status sink_into(void *user, const char *bytes, size_t len)
{
    tlog_add(user, bytes, len);
    return APS_OK;
}

static aps_status sink_fails(void *user, const char *bytes, size_t len)
{
    (void)user;
    (void)bytes;
    (void)len;
    return APS_E_NOMEM;
}

static void test_encoder(void)
{
    char buf[256];
    aps_sse_writer w;
    aps_error err = APS_ERROR_INIT;
    tlog sunk = { 0 };
    const char *json = "{\"type\":\"event\",\"seq\":1}";

    aps_sse_writer_init_buffer(&w, buf, sizeof buf);
    CHECK(aps_sse_write_event(&w, "7", 1, "messages", 8, json, strlen(json), &err) == APS_OK);
    buf[aps_sse_writer_length(&w)] = '\0';
    CHECK_STR(buf, "id: 7\nevent: messages\ndata: {\"type\":\"event\",\"seq\":1}\n\n");
    CHECK_INT(aps_sse_writer_length(&w), strlen(buf));

    aps_sse_writer_reset(&w);
    CHECK(aps_sse_write_event(&w, NULL, 0, NULL, 0, "a\nb\r\nc\rd", 8, &err) == APS_OK);
    buf[aps_sse_writer_length(&w)] = '\0';
    CHECK_STR(buf, "data: a\ndata: b\ndata: c\ndata: d\n\n");

    aps_sse_writer_reset(&w);
    CHECK(aps_sse_write_event(&w, "", 0, "", 0, NULL, 0, &err) == APS_OK);
    CHECK(aps_sse_write_event(&w, NULL, 0, NULL, 0, "x\n", 2, &err) == APS_OK);
    CHECK(aps_sse_write_comment(&w, "keepalive", 9, &err) == APS_OK);
    CHECK(aps_sse_write_comment(&w, NULL, 0, &err) == APS_OK);
    CHECK(aps_sse_write_retry(&w, 3000, &err) == APS_OK);
    CHECK(aps_sse_write_retry(&w, 0, &err) == APS_OK);
    buf[aps_sse_writer_length(&w)] = '\0';
    CHECK_STR(buf, "id: \nevent: \ndata: \n\ndata: x\ndata: \n\n: keepalive\n:\n"
                   "retry: 3000\nretry: 0\n");

    /* fields that cannot be represented */
    aps_sse_writer_reset(&w);
    CHECK(aps_sse_write_event(&w, "1\n2", 3, NULL, 0, "x", 1, &err) == APS_E_ARGUMENT);
    CHECK(aps_sse_write_event(&w, "1\r", 2, NULL, 0, "x", 1, NULL) == APS_E_ARGUMENT);
    CHECK(aps_sse_write_event(&w, "1\0", 2, NULL, 0, "x", 1, NULL) == APS_E_ARGUMENT);
    CHECK(aps_sse_write_event(&w, NULL, 0, "a\0b", 3, "x", 1, NULL) == APS_E_ARGUMENT);
    CHECK(aps_sse_write_event(&w, NULL, 0, "a\nb", 3, "x", 1, NULL) == APS_E_ARGUMENT);
    CHECK(aps_sse_write_comment(&w, "a\rb", 3, NULL) == APS_E_ARGUMENT);
    CHECK_INT(aps_sse_writer_length(&w), 0);
    CHECK_INT(err.code, APS_E_ARGUMENT);

    /* a full buffer leaves it as it was */
    aps_sse_writer_init_buffer(&w, buf, 20);
    CHECK(aps_sse_write_event(&w, NULL, 0, NULL, 0, "abc", 3, NULL) == APS_OK);
    CHECK_INT(aps_sse_writer_length(&w), 11);
    CHECK(aps_sse_write_event(&w, NULL, 0, NULL, 0, "abc", 3, NULL) == APS_E_LIMIT);
    CHECK_INT(aps_sse_writer_length(&w), 11);
    CHECK(aps_sse_write_retry(&w, 1234567, NULL) == APS_E_LIMIT);
    CHECK(aps_sse_write_comment(&w, "abcdefg", 7, NULL) == APS_E_LIMIT);
    CHECK(aps_sse_write_comment(&w, "abcdef", 6, NULL) == APS_OK);
    CHECK_INT(aps_sse_writer_length(&w), 20);
    aps_sse_writer_init_buffer(&w, NULL, 0);
    CHECK(aps_sse_write_comment(&w, NULL, 0, NULL) == APS_E_LIMIT);

    /* sink mode writes the same bytes */
    aps_sse_writer_init_sink(&w, sink_into, &sunk);
    CHECK(aps_sse_write_event(&w, "7", 1, "messages", 8, json, strlen(json), NULL) == APS_OK);
    CHECK_STR(sunk.s, "id: 7\nevent: messages\ndata: {\"type\":\"event\",\"seq\":1}\n\n");
    CHECK_INT(aps_sse_writer_length(&w), 0);
    aps_sse_writer_init_sink(&w, sink_fails, NULL);
    CHECK(aps_sse_write_event(&w, "7", 1, NULL, 0, "x", 1, NULL) == APS_E_NOMEM);
    tlog_free(&sunk);
}

/* Encoded events parse back to the same fields (line breaks become LF). */
static void test_round_trip(void)
{
    static char out[1 << 16];
    static const char alphabet[] = "ab :\n\r\t\xC3\xA9{}\"";
    aps_sse_writer w;
    tlog want = { 0 }, got = { 0 };
    uint64_t seed = 7;
    int i;
    aps_sse_writer_init_buffer(&w, out, sizeof out);
    for (i = 0; i < 300; i++) {
        char data[64], id[8], type[8], norm[64];
        size_t dn = (size_t)(test_rand(&seed) % 40), k, nn = 0;
        size_t idn = (size_t)(test_rand(&seed) % 4), tn = 1 + (size_t)(test_rand(&seed) % 5);
        for (k = 0; k < dn; k++) {
            /* whole characters only, so the data stays valid UTF-8 */
            size_t pick = (size_t)(test_rand(&seed) % (sizeof alphabet - 1));
            if (alphabet[pick] == '\xC3' || alphabet[pick] == '\xA9') {
                if (k + 1 < dn) {
                    data[k++] = '\xC3';
                    data[k] = '\xA9';
                } else {
                    data[k] = 'z';
                }
            } else {
                data[k] = alphabet[pick];
            }
        }
        for (k = 0; k < idn; k++)
            id[k] = (char)('0' + test_rand(&seed) % 10);
        for (k = 0; k < tn; k++)
            type[k] = (char)('a' + test_rand(&seed) % 26);
        for (k = 0; k < dn; k++) {
            if (data[k] == '\r' && k + 1 < dn && data[k + 1] == '\n')
                k++;
            norm[nn++] = data[k] == '\r' ? '\n' : data[k];
        }
        CHECK(aps_sse_write_event(&w, id, idn, type, tn, data, dn, NULL) == APS_OK);
        tlog_add(&want, "[", 1);
        tlog_escaped(&want, type, tn);
        tlog_add(&want, "][", 2);
        tlog_escaped(&want, norm, nn);
        tlog_add(&want, "][", 2);
        tlog_escaped(&want, id, idn);
        tlog_add(&want, "]\n", 2);
        if (i % 10 == 0)
            CHECK(aps_sse_write_comment(&w, "keepalive", 9, NULL) == APS_OK);
    }
    got = check_split_invariance("sse-roundtrip", (const uint8_t *)out,
                                 aps_sse_writer_length(&w), sse_chunked, 0);
    CHECK_STR(got.s, want.s);
    tlog_free(&want);
    tlog_free(&got);
}

/* ------------------------------------------------------------------------ */
/* The recorded trace                                                       */
/* ------------------------------------------------------------------------ */

/* JSON text without the whitespace outside strings (the JSONL is spaced). */
static void compact_json(const char *s, size_t n, tlog *out)
{
    size_t i;
    int in_string = 0;
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (in_string) {
            tlog_add(out, &c, 1);
            if (c == '\\' && i + 1 < n)
                tlog_add(out, &s[++i], 1);
            else if (c == '"')
                in_string = 0;
        } else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
            in_string = c == '"';
            tlog_add(out, &c, 1);
        }
    }
}

static aps_status jsonl_line(void *user, const aps_jsonl_line *line)
{
    tlog *l = user;
    compact_json(line->text, line->len, l);
    tlog_add(l, "\n", 1);
    return APS_OK;
}

typedef struct trace_ctx {
    tlog data;
    int events, bindings_ok;
} trace_ctx;

static aps_status trace_event(void *user, const aps_sse_event *ev)
{
    trace_ctx *t = user;
    char want[300];
    int n;
    tlog_add(&t->data, ev->data, ev->data_len);
    tlog_add(&t->data, "\n", 1);
    t->events++;
    /* the SSE fields carry the message's method and event_id */
    n = snprintf(want, sizeof want, "\"method\":\"%.*s\"", (int)ev->type_len, ev->type);
    if (n > 0 && strstr(t->data.s + t->data.len - ev->data_len - 1, want) != NULL) {
        n = snprintf(want, sizeof want, "\"event_id\":\"%.*s\"", (int)ev->last_id_len,
                     ev->last_id);
        if (n > 0 && strstr(t->data.s + t->data.len - ev->data_len - 1, want) != NULL)
            t->bindings_ok++;
    }
    return APS_OK;
}

static void trace_chunked(const uint8_t *in, size_t len, const size_t *cuts, size_t ncuts,
                          tlog *out)
{
    sse_chunked(in, len, cuts, ncuts, out);
}

/* The trace's SSE capture gives the events of its JSONL capture, in any chunking. */
static void test_trace(const char *sse_path, const char *jsonl_path)
{
    size_t sse_len = 0, jsonl_len = 0;
    char *sse = test_read_file(sse_path, &sse_len);
    char *jsonl = test_read_file(jsonl_path, &jsonl_len);
    static char storage[1 << 16], line_storage[1 << 16];
    aps_sse_parser p;
    aps_jsonl_splitter s;
    trace_ctx t = { { 0 }, 0, 0 };
    tlog lines = { 0 }, split = { 0 };
    CHECK(sse != NULL && jsonl != NULL);
    if (sse == NULL || jsonl == NULL) {
        free(sse);
        free(jsonl);
        return;
    }
    aps_sse_parser_init(&p, storage, sizeof storage, NULL, trace_event, NULL, &t);
    CHECK(aps_sse_parser_push(&p, sse, sse_len, NULL) == APS_OK);
    CHECK(aps_sse_parser_finish(&p, NULL) == APS_OK);
    aps_jsonl_splitter_init(&s, line_storage, sizeof line_storage, jsonl_line, NULL, &lines);
    CHECK(aps_jsonl_splitter_push(&s, jsonl, jsonl_len, NULL) == APS_OK);
    CHECK(aps_jsonl_splitter_finish(&s, NULL) == APS_OK);
    CHECK_INT(t.events, 59);
    CHECK_INT(t.bindings_ok, 59);
    CHECK(t.data.s != NULL && lines.s != NULL && strcmp(t.data.s, lines.s) == 0);
    /* and the same events in every chunking: byte at a time, random, and
     * (all two-way splits of 25 KB would be slow) cut around each line end */
    split = check_split_invariance("trace", (const uint8_t *)sse, sse_len, trace_chunked, 0);
    CHECK(split.s != NULL && strncmp(split.s, "[lifecycle][{\"type\":\"event\"", 27) == 0);
    {
        tlog got = { 0 };
        size_t i, cut, bad = 0;
        for (i = 0; i < sse_len; i++) {
            if (sse[i] != '\n')
                continue;
            for (cut = i; cut <= i + 2 && cut <= sse_len; cut++) {
                tlog_clear(&got);
                trace_chunked((const uint8_t *)sse, sse_len, &cut, 1, &got);
                bad += strcmp(got.s, split.s) != 0;
            }
        }
        CHECK_INT(bad, 0);
        tlog_free(&got);
    }
    tlog_free(&split);
    tlog_free(&t.data);
    tlog_free(&lines);
    free(sse);
    free(jsonl);
}

int main(int argc, char **argv)
{
    if (argc != 1 && argc != 3) {
        fprintf(stderr, "usage: test_sse [TRACE.sse TRACE.jsonl]\n");
        return 2;
    }
    test_fields();
    test_ids();
    test_retry();
    test_line_ends();
    test_cr_at_chunk_end();
    test_comments();
    test_bom();
    test_end_of_stream();
    test_limits();
    test_utf8();
    test_offsets_and_stop();
    test_getters();
    test_encoder();
    test_round_trip();
    if (argc == 3)
        test_trace(argv[1], argv[2]);
    return test_report();
}
