/* ap_replay.c - decoded events into the replay buffer, requests into filters (see ap_replay.h). */
#include "ap_replay.h"

#include <string.h>

#include "ap_route.h"
#include "ap_transport.h"

void ap_event_replay_meta(const ap_event_t *ev, aps_replay_meta *meta)
{
    memset(meta, 0, sizeof *meta);
    if (ev->has_event_id)
        meta->event_id = ev->event_id;
    meta->channel = ap_event_channel(ev);
    meta->custom_name = ap_event_custom_name(ev);
    meta->ns = ap_event_namespace(ev);
}

aps_status ap_replay_append_sse(aps_replay *rb, ap_message_t *msg, aps_sse_writer *sse, aps_json_writer *json,
                                uint64_t *seq, aps_error *err)
{
    aps_replay_meta meta;
    aps_status st;
    if (msg->kind != AP_MESSAGE_EVENT)
        return aps_error_set(err, APS_E_ARGUMENT, 0, "only events are kept for replay");
    if (!msg->u.event.has_seq) {
        msg->u.event.has_seq = true;
        msg->u.event.seq = aps_replay_next_seq(rb);
    }
    aps_sse_writer_reset(sse);
    if ((st = ap_message_write_sse(msg, sse, json, NULL, err)) != APS_OK)
        return st;
    ap_event_replay_meta(&msg->u.event, &meta);
    return aps_replay_append(rb, sse->buf, aps_sse_writer_length(sse), &meta, seq, err);
}

aps_status ap_filter_init_request(aps_filter *f, const ap_event_stream_request_t *req, aps_arena *arena,
                                  aps_error *err)
{
    aps_filter_spec spec;
    aps_slice *names;
    size_t i;
    memset(&spec, 0, sizeof spec);
    names = aps_arena_alloc(arena, (req->channels.count + 1) * sizeof *names);
    if (names == NULL)
        return aps_error_set(err, APS_E_NOMEM, 0, "out of memory");
    for (i = 0; i < req->channels.count; i++)
        names[i] = ap_channel_name(&req->channels.items[i]); /* the schema's spelling, or the text */
    spec.channels = names;
    spec.channel_count = req->channels.count;
    if (req->has_namespaces && req->namespaces.count > 0) {
        spec.namespaces = req->namespaces.items; /* ap_namespace_t is aps_namespace */
        spec.namespace_count = req->namespaces.count;
    }
    spec.has_depth = req->has_depth;
    spec.depth = req->depth;
    return aps_filter_init(f, &spec, NULL, err);
}

aps_replay_start ap_replay_start_request(const ap_event_stream_request_t *req)
{
    aps_replay_start start;
    memset(&start, 0, sizeof start);
    if (req->has_since) {
        start.from = APS_REPLAY_FROM_SEQ;
        start.seq = req->since;
    } else if (req->has_since_event_id) {
        start.from = APS_REPLAY_FROM_EVENT_ID;
        start.event_id = req->since_event_id;
    }
    return start;
}

aps_status ap_replay_subscribe(aps_replay_cursor *cur, aps_filter *filter, aps_replay *rb,
                               const ap_event_stream_request_t *req, aps_arena *arena, aps_error *err)
{
    aps_replay_start from = ap_replay_start_request(req);
    aps_status st = ap_filter_init_request(filter, req, arena, err);
    if (st != APS_OK)
        return st;
    if ((st = aps_replay_cursor_init(cur, rb, filter, &from)) != APS_OK) {
        aps_filter_deinit(filter);
        return aps_error_set(err, st, 0, "the replay cursor could not start: %s", aps_status_str(st));
    }
    return APS_OK;
}
