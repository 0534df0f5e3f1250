/*
 * test_jsonl.c - the JSON Lines splitter: line ends, blank lines, the final
 * line, the length limit and its resynchronisation, chunking invariance.
 */
#include "aps/jsonl.h"
#include "chunking.h"

typedef struct line_ctx {
    tlog *log;
    int stop_after;
    int lines;
} line_ctx;

static aps_status on_line(void *user, const aps_jsonl_line *line)
{
    line_ctx *c = user;
    tlog_printf(c->log, "%llu@%llu:", (unsigned long long)line->line_no,
                (unsigned long long)line->offset);
    tlog_escaped(c->log, line->text, line->len);
    tlog_add(c->log, "\n", 1);
    if (++c->lines == c->stop_after)
        return APS_E_TYPE;
    return APS_OK;
}

static aps_status on_error(void *user, const aps_error *err)
{
    line_ctx *c = user;
    tlog_printf(c->log, "!%zu %s\n", err->offset, err->message);
    return err->code == APS_E_LIMIT ? APS_OK : APS_E_STATE;
}

static size_t g_cap = 1 << 12;

static void jsonl_chunked(const uint8_t *in, size_t len, const size_t *cuts, size_t ncuts,
                          tlog *out)
{
    static char storage[1 << 12];
    aps_jsonl_splitter s;
    line_ctx c = { 0 };
    size_t i, at = 0;
    c.log = out;
    aps_jsonl_splitter_init(&s, storage, g_cap, on_line, on_error, &c);
    for (i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : len;
        if (aps_jsonl_splitter_push(&s, in + at, end - at, NULL) != APS_OK)
            tlog_add(out, "!PUSH\n", 6);
        at = end;
    }
    if (aps_jsonl_splitter_finish(&s, NULL) != APS_OK)
        tlog_add(out, "!FINISH\n", 8);
}

#define EXPECT(in, want) expect_jsonl(__LINE__, in, sizeof(in) - 1, want)

static void expect_jsonl(int line, const char *in, size_t len, const char *want)
{
    tlog got = check_split_invariance("jsonl", (const uint8_t *)in, len, jsonl_chunked, 4096);
    const char *g = got.s ? got.s : "";
    ++test_checks_run;
    if (strcmp(g, want) != 0) {
        ++test_checks_failed;
        fprintf(stderr, "%s:%d: JSONL log differs\n  want: %s\n  got:  %s\n", __FILE__, line,
                want, g);
    }
    tlog_free(&got);
}

static void test_lines(void)
{
    EXPECT("{\"a\":1}\n[2]\n", "1@0:{\"a\":1}\n2@8:[2]\n");
    /* CRLF: the CR before the LF is stripped, other CRs stay */
    EXPECT("1\r\n2\r\n", "1@0:1\n2@3:2\n");
    EXPECT("1\r2\n", "1@0:1\\r2\n");
    EXPECT("1\r\r\n", "1@0:1\\r\n");
    EXPECT("\r1\n", "1@0:\\r1\n");
    /* a final line without LF is accepted; a final CR is stripped too */
    EXPECT("1\n2", "1@0:1\n2@2:2\n");
    EXPECT("1\n2\r", "1@0:1\n2@2:2\n");
    /* blank and whitespace-only lines are skipped but counted */
    EXPECT("1\n\n \t\r\n\r\n2\n", "1@0:1\n5@9:2\n");
    EXPECT("\n\n", "");
    EXPECT("", "");
    EXPECT(" ", "");
    /* the splitter does not judge JSON or UTF-8 */
    EXPECT("not json\n\xFF\n", "1@0:not json\n2@9:\xFF\n");
    EXPECT("a\0b\n", "1@0:a\\x00b\n");
}

static void test_limit(void)
{
    g_cap = 4;
    EXPECT("abcd\nabcde\nxy\n",
           "1@0:abcd\n!5 JSONL line 2 is longer than the maximum of 4 bytes; line skipped\n"
           "3@11:xy\n");
    /* the CR of a CRLF does not count; a CR inside does */
    EXPECT("abcd\r\nab\rcd\r\nz", "1@0:abcd\n!6 JSONL line 2 is longer than the maximum of 4 "
                                  "bytes; line skipped\n3@13:z\n");
    /* the final line too, and whitespace-only lines */
    EXPECT("ok\nabcdefgh", "1@0:ok\n!3 JSONL line 2 is longer than the maximum of 4 bytes; "
                           "line skipped\n");
    EXPECT("      \nok\n", "!0 JSONL line 1 is longer than the maximum of 4 bytes; line "
                           "skipped\n2@7:ok\n");
    g_cap = 0;
    EXPECT("\n\nx\n", "!2 JSONL line 3 is longer than the maximum of 0 bytes; line skipped\n");
    g_cap = 1 << 12;
}

static void test_stop(void)
{
    static char storage[16];
    tlog log = { 0 };
    line_ctx c = { 0 };
    aps_jsonl_splitter s;
    aps_error err = APS_ERROR_INIT;
    c.log = &log;
    c.stop_after = 2;
    aps_jsonl_splitter_init(&s, storage, sizeof storage, on_line, on_error, &c);
    CHECK(aps_jsonl_splitter_push(&s, "1\n2\n3\n", 6, &err) == APS_E_TYPE);
    CHECK_INT(err.code, APS_E_TYPE);
    CHECK_STR(log.s, "1@0:1\n2@2:2\n");
    CHECK(aps_jsonl_splitter_push(&s, "4\n", 2, NULL) == APS_E_STATE);
    CHECK(aps_jsonl_splitter_finish(&s, NULL) == APS_E_STATE);
    /* reset starts over at line 1 */
    aps_jsonl_splitter_reset(&s);
    c.stop_after = 0;
    tlog_clear(&log);
    CHECK(aps_jsonl_splitter_push(&s, "x\ny", 3, NULL) == APS_OK);
    CHECK(aps_jsonl_splitter_finish(&s, NULL) == APS_OK);
    CHECK_STR(log.s, "1@0:x\n2@2:y\n");
    /* a stop at finish */
    aps_jsonl_splitter_reset(&s);
    c.stop_after = c.lines + 1;
    CHECK(aps_jsonl_splitter_push(&s, "z", 1, NULL) == APS_OK);
    CHECK(aps_jsonl_splitter_finish(&s, NULL) == APS_E_TYPE);
    /* no callbacks at all */
    aps_jsonl_splitter_init(&s, NULL, 0, NULL, NULL, NULL);
    CHECK(aps_jsonl_splitter_push(&s, "1\n22\n", 5, NULL) == APS_OK);
    CHECK(aps_jsonl_splitter_finish(&s, NULL) == APS_OK);
    tlog_free(&log);
}

static void test_random(void)
{
    static const char alphabet[] = "ab\n\r \t{}";
    char in[3000];
    uint64_t seed = 99;
    size_t i;
    tlog got;
    for (i = 0; i < sizeof in; i++)
        in[i] = alphabet[test_rand(&seed) % (sizeof alphabet - 1)];
    g_cap = 16;
    got = check_split_invariance("jsonl-random", (const uint8_t *)in, sizeof in, jsonl_chunked,
                                 sizeof in);
    CHECK(got.len > 0);
    tlog_free(&got);
    g_cap = 1 << 12;
}

int main(void)
{
    test_lines();
    test_limit();
    test_stop();
    test_random();
    return test_report();
}
