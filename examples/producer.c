/*
 * producer.c - one assistant turn of the Agent Streaming Protocol built in
 * C: a message (start, a text block with three deltas, finish, usage) and
 * a tool run (started, output, finished). The replay buffer numbers and
 * keeps each event as SSE; the client gets them live until it drops after
 * the fifth, then reconnects asking for what followed, and is replayed the
 * rest. Standard output is what the client received: the whole turn, once.
 */
#include <stdio.h>
#include <string.h>

#include "ap_companion.h"

static aps_replay replay;
static char frame[1 << 12];
static aps_sse_writer sse;
static aps_json_writer json;
static aps_slice ns[] = { { "agent:1", 7 } };

/* Places `m` (namespace ["agent:1"], node "agent"); the replay buffer numbers and keeps it as SSE; the
 * client, until it drops after the fifth, gets it at once. `m` is emptied for the next event. */
static void send(ap_message_t *m)
{
    static const aps_namespace where = { ns, 1 };
    static int sent;
    aps_error err = APS_ERROR_INIT;
    if (ap_event_set_place(&m->u.event, where, APS_LIT("agent"), 1767225600000) != APS_OK ||
        ap_replay_append_sse(&replay, m, &sse, &json, NULL, &err) != APS_OK)
        fprintf(stderr, "%s: %s\n", err.pointer, err.message);
    else if (++sent <= 5)
        fwrite(frame, 1, aps_sse_writer_length(&sse), stdout);
    memset(m, 0, sizeof *m);
}

static int deliver(void *ctx, const aps_replay_event *ev)
{
    return (void)ctx, fwrite(ev->bytes, 1, ev->len, stdout) != ev->len;
}

/* The client is back with `request` (after the last id it saw): it is replayed what followed. */
static int reconnect(const char *request)
{
    ap_event_stream_request_t req;
    aps_filter filter;
    aps_replay_cursor cursor;
    aps_replay_gap gap;
    aps_arena arena;
    size_t n = 1;
    aps_status st;
    aps_arena_init(&arena, NULL);
    if ((st = ap_event_stream_request_decode(request, strlen(request), &arena, &req, NULL)) == APS_OK &&
        (st = ap_replay_subscribe(&cursor, &filter, &replay, &req, &arena, NULL)) == APS_OK) {
        while (n > 0 && (st = aps_replay_read(&replay, &cursor, 64, deliver, NULL, &n, &gap)) == APS_OK)
            ;
        aps_filter_deinit(&filter);
    }
    aps_arena_deinit(&arena);
    return st != APS_OK;
}

int main(void)
{
    const aps_slice deltas[] = { APS_LIT("Lyon to Turin "), APS_LIT("is about 312 km "), APS_LIT("by road.") };
    ap_message_t m = AP_MESSAGE_INIT;
    int i;
    aps_sse_writer_init_buffer(&sse, frame, sizeof frame);
    aps_json_writer_init(&json, NULL);
    if (aps_replay_init(&replay, NULL, NULL) != APS_OK)
        return 1;
    ap_message_start_data_t *start = ap_message_as_message_start_data(&m);
    start->id = APS_LIT("msg-1"), start->role = AP_MESSAGE_ROLE_AI;
    send(&m);
    ap_message_as_content_block_start_data_text_content_block(&m);
    send(&m);
    for (i = 0; i < 3; i++)
        ap_message_as_text_delta(&m)->text = deltas[i], send(&m);
    ap_message_as_content_block_finish_data_text_content_block(&m)->text = APS_LIT("Lyon to Turin is about 312 km by road.");
    send(&m);
    ap_message_finish_data_t *finish = ap_message_as_message_finish_data(&m);
    finish->has_usage = true, finish->usage.has_input_tokens = true, finish->usage.input_tokens = 170;
    finish->usage.has_output_tokens = true, finish->usage.output_tokens = 12;
    send(&m);
    ap_tool_started_data_t *tool = ap_message_as_tool_started_data(&m);
    tool->tool_call_id = APS_LIT("call-1"), tool->tool_name = APS_LIT("distance");
    tool->has_input = true, tool->input = APS_RAW_LIT("{\"from\":\"Lyon\",\"to\":\"Turin\"}");
    send(&m);
    ap_tool_output_delta_data_t *out = ap_message_as_tool_output_delta_data(&m);
    out->tool_call_id = APS_LIT("call-1"), out->delta = APS_LIT("ok\n");
    send(&m);
    ap_tool_finished_data_t *done = ap_message_as_tool_finished_data(&m);
    done->tool_call_id = APS_LIT("call-1"), done->output = APS_RAW_LIT("{\"km\":312}");
    send(&m);
    i = reconnect("{\"channels\":[\"messages\",\"tools\"],\"since\":5}"); /* 5: the last id the client saw */
    aps_replay_deinit(&replay);
    aps_json_writer_deinit(&json);
    return i;
}
