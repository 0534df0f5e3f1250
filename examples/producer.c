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
static aps_slice ns[] = { { "agent:1", 7 } }, node = { "agent", 5 };

static aps_slice text(const char *s)
{
    aps_slice v = { s, strlen(s) };
    return v;
}

/* Places `m` (namespace ["agent:1"], node "agent"); the replay buffer numbers and keeps it as SSE; the
 * client, until it drops after the fifth, gets it at once. `m` is emptied for the next event. */
static void send(ap_message_t *m)
{
    static const aps_namespace where = { ns, 1 };
    static int sent;
    aps_error err = APS_ERROR_INIT;
    if (ap_event_set_place(&m->u.event, where, node, 1767225600000) != APS_OK ||
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
    static const char *deltas[] = { "Lyon to Turin ", "is about 312 km ", "by road." };
    static const aps_json_raw input = { "{\"from\":\"Lyon\",\"to\":\"Turin\"}", 28 }, output = { "{\"km\":312}", 10 };
    ap_message_t m = { 0 };
    ap_messages_data_t *d = &m.u.event.event_data.u.messages_event.params.data;
    ap_tools_data_t *t = &m.u.event.event_data.u.tools_event.params.data;
    int i;
    aps_sse_writer_init_buffer(&sse, frame, sizeof frame);
    aps_json_writer_init(&json, NULL);
    if (aps_replay_init(&replay, NULL, NULL) != APS_OK)
        return 1;
    m.kind = AP_MESSAGE_EVENT, m.u.event.event_data.kind = AP_EVENT_DATA_MESSAGES_EVENT;
    d->kind = AP_MESSAGES_DATA_MESSAGE_START_DATA;
    d->u.message_start_data.id = text("msg-1"), d->u.message_start_data.role = AP_MESSAGE_ROLE_AI;
    send(&m);
    m.kind = AP_MESSAGE_EVENT, m.u.event.event_data.kind = AP_EVENT_DATA_MESSAGES_EVENT;
    d->kind = AP_MESSAGES_DATA_CONTENT_BLOCK_START_DATA;
    d->u.content_block_start_data.content.kind = AP_CONTENT_BLOCK_TEXT_CONTENT_BLOCK;
    send(&m);
    for (i = 0; i < 3; i++) {
        m.kind = AP_MESSAGE_EVENT, m.u.event.event_data.kind = AP_EVENT_DATA_MESSAGES_EVENT;
        d->kind = AP_MESSAGES_DATA_CONTENT_BLOCK_DELTA_DATA;
        d->u.content_block_delta_data.delta.kind = AP_CONTENT_BLOCK_DELTA_TEXT_DELTA;
        d->u.content_block_delta_data.delta.u.text_delta.text = text(deltas[i]);
        send(&m);
    }
    m.kind = AP_MESSAGE_EVENT, m.u.event.event_data.kind = AP_EVENT_DATA_MESSAGES_EVENT;
    d->kind = AP_MESSAGES_DATA_CONTENT_BLOCK_FINISH_DATA;
    d->u.content_block_finish_data.content.kind = AP_FINALIZED_CONTENT_BLOCK_TEXT_CONTENT_BLOCK;
    d->u.content_block_finish_data.content.u.text_content_block.text = text("Lyon to Turin is about 312 km by road.");
    send(&m);
    m.kind = AP_MESSAGE_EVENT, m.u.event.event_data.kind = AP_EVENT_DATA_MESSAGES_EVENT;
    d->kind = AP_MESSAGES_DATA_MESSAGE_FINISH_DATA;
    d->u.message_finish_data.has_usage = true;
    d->u.message_finish_data.usage.has_input_tokens = true, d->u.message_finish_data.usage.input_tokens = 170;
    d->u.message_finish_data.usage.has_output_tokens = true, d->u.message_finish_data.usage.output_tokens = 12;
    send(&m);
    m.kind = AP_MESSAGE_EVENT, m.u.event.event_data.kind = AP_EVENT_DATA_TOOLS_EVENT;
    t->kind = AP_TOOLS_DATA_TOOL_STARTED_DATA;
    t->u.tool_started_data.tool_call_id = text("call-1"), t->u.tool_started_data.tool_name = text("distance");
    t->u.tool_started_data.has_input = true, t->u.tool_started_data.input = input;
    send(&m);
    m.kind = AP_MESSAGE_EVENT, m.u.event.event_data.kind = AP_EVENT_DATA_TOOLS_EVENT;
    t->kind = AP_TOOLS_DATA_TOOL_OUTPUT_DELTA_DATA;
    t->u.tool_output_delta_data.tool_call_id = text("call-1"), t->u.tool_output_delta_data.delta = text("ok\n");
    send(&m);
    m.kind = AP_MESSAGE_EVENT, m.u.event.event_data.kind = AP_EVENT_DATA_TOOLS_EVENT;
    t->kind = AP_TOOLS_DATA_TOOL_FINISHED_DATA;
    t->u.tool_finished_data.tool_call_id = text("call-1"), t->u.tool_finished_data.output = output;
    send(&m);
    i = reconnect("{\"channels\":[\"messages\",\"tools\"],\"since\":5}"); /* 5: the last id it saw */
    aps_replay_deinit(&replay);
    aps_json_writer_deinit(&json);
    return i;
}
