/*
 * test_builders.c - the generated builders (issue #16, item 2). Builds the
 * producer's ten events (one assistant message: message-start, a text block
 * start, three text deltas, the block's finish, message-finish with usage;
 * one tool run: started, output delta, finished) with AP_MESSAGE_INIT,
 * APS_LIT and ap_message_as_X, then checks that
 *   - the building code (between the BUILD markers) is at most 40 lines,
 *     counted in this file's own text (argv[1]);
 *   - each event encodes to the expected JSON line;
 *   - each line decodes back to a value that encodes to the same line, with
 *     the kinds the builders set;
 *   - the enum and kind name functions spell the wire values and parse them.
 */
#include "test.h"

#include "ap.h"

#include <stdio.h>
#include <string.h>

#define NEVENTS 10

/* BUILD begin */
static void build(ap_message_t ev[NEVENTS])
{
    ap_message_start_data_t *start = ap_message_as_message_start_data(&ev[0]);
    ap_message_finish_data_t *finish = ap_message_as_message_finish_data(&ev[6]);
    ap_tool_started_data_t *tool = ap_message_as_tool_started_data(&ev[7]);
    ap_tool_output_delta_data_t *out = ap_message_as_tool_output_delta_data(&ev[8]);
    ap_tool_finished_data_t *done = ap_message_as_tool_finished_data(&ev[9]);
    size_t i;
    start->role = AP_MESSAGE_ROLE_AI;
    start->id = APS_LIT("msg-1");
    ap_message_as_content_block_start_data_text_content_block(&ev[1])->text = APS_LIT("");
    ap_message_as_text_delta(&ev[2])->text = APS_LIT("Hel");
    ap_message_as_text_delta(&ev[3])->text = APS_LIT("lo, ");
    ap_message_as_text_delta(&ev[4])->text = APS_LIT("world");
    ap_message_as_content_block_finish_data_text_content_block(&ev[5])->text = APS_LIT("Hello, world");
    finish->has_usage = finish->usage.has_input_tokens = finish->usage.has_output_tokens = true;
    finish->usage.input_tokens = 12;
    finish->usage.output_tokens = 3;
    tool->tool_call_id = out->tool_call_id = done->tool_call_id = APS_LIT("call-1");
    tool->tool_name = APS_LIT("search");
    out->delta = APS_LIT("2 hits");
    done->output = APS_RAW_LIT("{\"hits\":2}");
    for (i = 0; i < NEVENTS; i++) {
        ev[i].u.event.has_seq = true;
        ev[i].u.event.seq = i + 1;
        if (i < 7)
            ap_message_as_messages_event(&ev[i])->params.timestamp = 1700000000000 + i;
        else
            ap_message_as_tools_event(&ev[i])->params.timestamp = 1700000000000 + i;
    }
}
/* BUILD end */

static const char *const expected[NEVENTS] = {
    "{\"type\":\"event\",\"seq\":1,\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1700000000000,"
    "\"data\":{\"event\":\"message-start\",\"role\":\"ai\",\"id\":\"msg-1\"}}}",
    "{\"type\":\"event\",\"seq\":2,\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1700000000001,"
    "\"data\":{\"event\":\"content-block-start\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"\"}}}}",
    "{\"type\":\"event\",\"seq\":3,\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1700000000002,"
    "\"data\":{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"Hel\"}}}}",
    "{\"type\":\"event\",\"seq\":4,\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1700000000003,"
    "\"data\":{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"lo, \"}}}}",
    "{\"type\":\"event\",\"seq\":5,\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1700000000004,"
    "\"data\":{\"event\":\"content-block-delta\",\"index\":0,\"delta\":{\"type\":\"text-delta\",\"text\":\"world\"}}}}",
    "{\"type\":\"event\",\"seq\":6,\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1700000000005,"
    "\"data\":{\"event\":\"content-block-finish\",\"index\":0,\"content\":{\"type\":\"text\",\"text\":\"Hello, world\"}}}}",
    "{\"type\":\"event\",\"seq\":7,\"method\":\"messages\",\"params\":{\"namespace\":[],\"timestamp\":1700000000006,"
    "\"data\":{\"event\":\"message-finish\",\"usage\":{\"inputTokens\":12,\"outputTokens\":3}}}}",
    "{\"type\":\"event\",\"seq\":8,\"method\":\"tools\",\"params\":{\"namespace\":[],\"timestamp\":1700000000007,"
    "\"data\":{\"event\":\"tool-started\",\"toolCallId\":\"call-1\",\"toolName\":\"search\"}}}",
    "{\"type\":\"event\",\"seq\":9,\"method\":\"tools\",\"params\":{\"namespace\":[],\"timestamp\":1700000000008,"
    "\"data\":{\"event\":\"tool-output-delta\",\"toolCallId\":\"call-1\",\"delta\":\"2 hits\"}}}",
    "{\"type\":\"event\",\"seq\":10,\"method\":\"tools\",\"params\":{\"namespace\":[],\"timestamp\":1700000000009,"
    "\"data\":{\"event\":\"tool-finished\",\"toolCallId\":\"call-1\",\"output\":{\"hits\":2}}}}",
};

/* Lines strictly between the BUILD markers of `path`, or -1 when it cannot be read. */
static int build_lines(const char *path)
{
    char line[512];
    int n = 0, inside = 0;
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strstr(line, "/* BUILD ") == line) {
            inside = strstr(line, "begin") != NULL;
            continue;
        }
        n += inside;
    }
    fclose(f);
    return n;
}

/* Encodes m into w (reset first); NULL-terminated text or NULL on failure. */
static const char *encode(const ap_message_t *m, aps_json_writer *w, char *buf, size_t cap)
{
    aps_error err;
    aps_json_writer_reset(w);
    if (ap_message_encode(m, w, &err) != APS_OK || aps_json_writer_finish(w, &err) != APS_OK ||
        aps_json_writer_len(w) >= cap) {
        fprintf(stderr, "encode: %s at %s\n", err.message, err.pointer);
        return NULL;
    }
    memcpy(buf, aps_json_writer_data(w), aps_json_writer_len(w));
    buf[aps_json_writer_len(w)] = '\0';
    return buf;
}

static void check_events(void)
{
    ap_message_t ev[NEVENTS];
    aps_json_writer w;
    aps_arena arena;
    char text[1024], again[1024];
    size_t i;
    for (i = 0; i < NEVENTS; i++) {
        ap_message_t init = AP_MESSAGE_INIT;
        ev[i] = init;
    }
    build(ev);
    aps_json_writer_init(&w, NULL);
    aps_arena_init(&arena, NULL);
    for (i = 0; i < NEVENTS; i++) {
        ap_message_t back = AP_MESSAGE_INIT;
        aps_error err;
        const char *line = encode(&ev[i], &w, text, sizeof text);
        CHECK(line != NULL);
        if (line == NULL)
            continue;
        CHECK_STR(line, expected[i]);
        CHECK_INT(ap_message_decode(line, strlen(line), &arena, &back, &err), APS_OK);
        CHECK_INT(back.kind, AP_MESSAGE_EVENT);
        CHECK_INT(back.u.event.event_data.kind, i < 7 ? AP_EVENT_DATA_MESSAGES_EVENT : AP_EVENT_DATA_TOOLS_EVENT);
        CHECK_STR(encode(&back, &w, again, sizeof again), expected[i]);
    }
    CHECK_INT(ev[3].u.event.event_data.u.messages_event.params.data.u.content_block_delta_data.delta.kind,
              AP_CONTENT_BLOCK_DELTA_TEXT_DELTA);
    aps_arena_deinit(&arena);
    aps_json_writer_deinit(&w);
}

static void check_names(void)
{
    ap_channel_t custom = ap_channel_parse("custom:mine", 11), messages = ap_channel_parse("messages", 8);
    aps_slice spelled = ap_channel_name(&messages);
    CHECK_STR(ap_message_role_name(AP_MESSAGE_ROLE_HUMAN), "human");
    CHECK_STR(ap_message_role_name(AP_MESSAGE_ROLE_NONE), "");
    CHECK_INT(ap_message_role_parse("system", 6), AP_MESSAGE_ROLE_SYSTEM);
    CHECK_INT(ap_message_role_parse("systems", 7), AP_MESSAGE_ROLE_NONE);
    CHECK_STR(ap_event_data_kind_name(AP_EVENT_DATA_MESSAGES_EVENT), "messages");
    CHECK_STR(ap_content_block_delta_kind_name(AP_CONTENT_BLOCK_DELTA_TEXT_DELTA), "text-delta");
    CHECK_STR(ap_messages_data_kind_name((ap_messages_data_kind)0), "");
    CHECK_INT(messages.kind, AP_CHANNEL_MESSAGES);
    CHECK(spelled.len == 8 && memcmp(spelled.ptr, "messages", 8) == 0);
    CHECK_INT(custom.kind, AP_CHANNEL_OTHER);
    spelled = ap_channel_name(&custom);
    CHECK(spelled.len == 11 && memcmp(spelled.ptr, "custom:mine", 11) == 0);
}

/* APS_LIT_INIT where C asks for constant expressions: a static table. */
static const aps_slice greetings[] = { APS_LIT_INIT("Hel"), APS_LIT_INIT(""), APS_LIT_INIT("lo, \"world\"") };

static void check_static_slices(void)
{
    CHECK(greetings[0].len == 3 && memcmp(greetings[0].ptr, "Hel", 3) == 0);
    CHECK(greetings[1].len == 0 && greetings[1].ptr != NULL);
    CHECK(greetings[2].len == 11 && memcmp(greetings[2].ptr, "lo, \"world\"", 11) == 0);
}

int main(int argc, char **argv)
{
    int lines = argc > 1 ? build_lines(argv[1]) : -1;
    printf("building the ten events: %d lines\n", lines);
    CHECK(lines > 0 && lines <= 40);
    check_events();
    check_names();
    check_static_slices();
    return test_report();
}
