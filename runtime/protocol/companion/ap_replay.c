/* ap_replay.c - decoded events into the replay buffer, requests into filters (see ap_replay.h). */
#include "ap_replay.h"

#include <string.h>

#include "ap_route.h"
#include "ap_transport.h"

/* What a lifecycle status of the root namespace says about the thread's runs. */
static aps_replay_run_mark run_mark_of(ap_agent_status_t status)
{
    switch (status) {
    case AP_AGENT_STATUS_STARTED:
    case AP_AGENT_STATUS_RUNNING: return APS_RUN_ACTIVE;
    case AP_AGENT_STATUS_COMPLETED:
    case AP_AGENT_STATUS_FAILED:
    case AP_AGENT_STATUS_INTERRUPTED: return APS_RUN_END;
    default: return APS_RUN_NONE;
    }
}

static aps_replay_run_mark run_mark(const ap_event_t *ev)
{
    const ap_event_data_t *d = &ev->event_data;
    if (d->kind != AP_EVENT_DATA_LIFECYCLE_EVENT || d->u.lifecycle_event.params.namespace_.count != 0)
        return APS_RUN_NONE;
    return run_mark_of(d->u.lifecycle_event.params.data.event);
}

void ap_event_replay_meta(const ap_event_t *ev, aps_replay_meta *meta)
{
    memset(meta, 0, sizeof *meta);
    if (ev->has_event_id)
        meta->event_id = ev->event_id;
    meta->channel = ap_event_channel(ev);
    meta->custom_name = ap_event_custom_name(ev);
    meta->ns = ap_event_namespace(ev);
    meta->run = run_mark(ev);
}

/* A string member of a raw object, unescaped into `arena`; 0 when absent or not a string. */
static int raw_string(aps_json_raw obj, const char *name, aps_arena *arena, aps_slice *out)
{
    aps_json_raw v;
    aps_json_reader r;
    if (aps_json_raw_member(obj, name, strlen(name), arena, &v, NULL) != APS_OK)
        return 0;
    aps_json_raw_reader(&r, v, arena);
    return aps_json_read_string(&r, out, NULL) == APS_OK;
}

/* params.namespace of an envelope: its segments into `arena`. 0, or -1 when it is not an array of strings. */
static int raw_namespace(aps_json_raw params, aps_arena *arena, aps_namespace *ns)
{
    aps_json_raw nsraw;
    aps_json_reader r;
    aps_slice seg, *segs = NULL;
    size_t cap = 0;
    int more;
    ns->items = NULL;
    ns->count = 0;
    if (aps_json_raw_member(params, "namespace", 9, arena, &nsraw, NULL) != APS_OK)
        return -1;
    aps_json_raw_reader(&r, nsraw, arena);
    if (aps_json_read_array(&r, NULL) != APS_OK)
        return -1;
    for (;;) {
        if (aps_json_next_element(&r, &more, NULL) != APS_OK)
            return -1;
        if (!more)
            break;
        if (aps_json_read_string(&r, &seg, NULL) != APS_OK)
            return -1;
        if (ns->count == cap) {
            size_t grown_cap = cap == 0 ? 4 : 2 * cap;
            aps_slice *grown = aps_arena_realloc(arena, segs, cap * sizeof *segs, grown_cap * sizeof *segs,
                                                 sizeof(void *));
            if (grown == NULL)
                return -1;
            segs = grown;
            cap = grown_cap;
        }
        segs[ns->count++] = seg;
    }
    ns->items = segs;
    return 0;
}

aps_status ap_event_replay_meta_text(const char *json, size_t len, const ap_event_t *ev, aps_arena *arena,
                                     aps_replay_meta *meta, aps_error *err)
{
    aps_json_raw root = { json, len }, params, data, event;
    aps_slice method;
    ap_agent_status_t status;
    if (ev != NULL && ev->event_data.kind != AP_EVENT_DATA_UNKNOWN) {
        ap_event_replay_meta(ev, meta);
        return APS_OK;
    }
    memset(meta, 0, sizeof *meta);
    if (aps_json_validate(json, len, NULL, NULL) != APS_OK || !raw_string(root, "method", arena, &method) ||
        aps_json_raw_member(root, "params", 6, arena, &params, NULL) != APS_OK ||
        raw_namespace(params, arena, &meta->ns) != 0)
        return aps_error_set(err, APS_E_SYNTAX, 0,
                             "not an event: no string `method`, or no `params.namespace` of strings");
    meta->channel = aps_channel_of_method(method.ptr, method.len);
    if (!raw_string(root, "eventId", arena, &meta->event_id))
        (void)raw_string(root, "event_id", arena, &meta->event_id);
    if (aps_json_raw_member(params, "data", 4, arena, &data, NULL) == APS_OK) {
        if (meta->channel == APS_CHANNEL_CUSTOM)
            (void)raw_string(data, "name", arena, &meta->custom_name);
        if (meta->channel == APS_CHANNEL_LIFECYCLE && meta->ns.count == 0 &&
            aps_json_raw_member(data, "event", 5, arena, &event, NULL) == APS_OK &&
            ap_agent_status_decode(event.ptr, event.len, arena, &status, NULL) == APS_OK)
            meta->run = run_mark_of(status);
    }
    return APS_OK;
}

aps_status ap_replay_append_sse(aps_replay *rb, ap_message_t *msg, aps_sse_writer *sse, aps_json_writer *json,
                                uint64_t *seq, aps_error *err)
{
    return ap_replay_append_sse_opts(rb, msg, sse, json, NULL, seq, err);
}

aps_status ap_replay_append_sse_opts(aps_replay *rb, ap_message_t *msg, aps_sse_writer *sse,
                                     aps_json_writer *json, const aps_encode_options *options, uint64_t *seq,
                                     aps_error *err)
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
    if ((st = ap_message_write_sse(msg, sse, json, options, err)) != APS_OK)
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
    start.from = APS_REPLAY_FROM_RUN;
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
