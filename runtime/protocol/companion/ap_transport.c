/* ap_transport.c - protocol messages over SSE, JSONL and WebSocket (see ap_transport.h). */
#include "ap_transport.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void ap_message_sse_fields(const ap_message_t *msg, char seq_buf[24], aps_slice *id, aps_slice *event)
{
    const ap_event_t *ev = &msg->u.event;
    id->ptr = event->ptr = NULL;
    id->len = event->len = 0;
    if (msg->kind != AP_MESSAGE_EVENT)
        return;
    *event = ap_event_method(ev);
    if (ev->has_event_id) {
        *id = ev->event_id;
    } else if (ev->has_seq) {
        id->len = (size_t)snprintf(seq_buf, 24, "%" PRIu64, ev->seq);
        id->ptr = seq_buf;
    }
}

static aps_status encode(const ap_message_t *msg, aps_json_writer *json, const aps_encode_options *options,
                         aps_error *err)
{
    aps_json_writer_reset(json);
    return ap_message_encode_opts(msg, json, options, err); /* err says which member, and why */
}

aps_status ap_message_write_sse(const ap_message_t *msg, aps_sse_writer *sse, aps_json_writer *json,
                                const aps_encode_options *options, aps_error *err)
{
    char seq_buf[24];
    aps_slice id, event;
    aps_status st = encode(msg, json, options, err);
    if (st != APS_OK)
        return st;
    ap_message_sse_fields(msg, seq_buf, &id, &event);
    return aps_sse_write_event(sse, id.ptr, id.len, event.len ? event.ptr : NULL, event.len,
                               aps_json_writer_data(json), aps_json_writer_len(json), err);
}

aps_status ap_message_write_jsonl(const ap_message_t *msg, aps_json_writer *json, char *line, size_t cap,
                                  size_t *line_len, const aps_encode_options *options, aps_error *err)
{
    size_t n;
    aps_status st = encode(msg, json, options, err);
    if (st != APS_OK)
        return st;
    n = aps_json_writer_len(json);
    if (n + 1 > cap)
        return aps_error_set(err, APS_E_LIMIT, 0, "a line of %zu bytes does not fit in %zu", n + 1, cap);
    memcpy(line, aps_json_writer_data(json), n);
    line[n] = '\n';
    *line_len = n + 1;
    return APS_OK;
}

static int same(const char *a, size_t alen, const char *b, size_t blen)
{
    return alen == blen && (alen == 0 || memcmp(a, b, alen) == 0);
}

aps_status ap_message_check_sse_binding(const ap_message_t *msg, aps_slice sse_event, aps_slice sse_id,
                                        aps_error *err)
{
    char seq_buf[24];
    aps_slice id, event;
    if (msg->kind != AP_MESSAGE_EVENT)
        return APS_OK;
    ap_message_sse_fields(msg, seq_buf, &id, &event);
    if (!same(sse_event.ptr, sse_event.len, event.ptr, event.len)) {
        aps_error_set_pointer(err, "/method");
        return aps_error_set(err, APS_E_STATE, 0, "SSE event type \"%.*s\" does not match the method \"%.*s\"",
                             (int)sse_event.len, sse_event.ptr, (int)event.len, event.ptr);
    }
    if (id.ptr != NULL && !same(sse_id.ptr, sse_id.len, id.ptr, id.len)) {
        int by_id = msg->u.event.has_event_id;
        aps_error_set_pointer(err, by_id ? "/eventId" : "/seq");
        return aps_error_set(err, APS_E_STATE, 0, "SSE id \"%.*s\" does not match the %s \"%.*s\"",
                             (int)sse_id.len, sse_id.ptr, by_id ? "eventId" : "seq", (int)id.len, id.ptr);
    }
    return APS_OK;
}

aps_status ap_message_from_sse(const aps_sse_event *ev, int check_binding, aps_arena *arena, ap_message_t *out,
                               const aps_decode_options *options, aps_error *err)
{
    aps_slice type = { ev->type, ev->type_len }, id = { ev->last_id, ev->last_id_len };
    aps_status st = ap_message_decode_opts(ev->data, ev->data_len, arena, out, options, err);
    if (st != APS_OK || !check_binding)
        return st;
    return ap_message_check_sse_binding(out, type, id, err);
}

aps_status ap_message_write_ws(const ap_message_t *msg, aps_json_writer *json, uint8_t *frame, size_t cap,
                               size_t *frame_len, const uint8_t *mask_key, const aps_encode_options *options,
                               aps_error *err)
{
    aps_status st = encode(msg, json, options, err);
    if (st != APS_OK)
        return st;
    return aps_ws_encode_frame(frame, cap, frame_len, 1, APS_WS_TEXT, aps_json_writer_data(json),
                               aps_json_writer_len(json), mask_key, err);
}

aps_status ap_message_from_ws(const aps_ws_message *m, aps_arena *arena, ap_message_t *out,
                              const aps_decode_options *options, aps_error *err)
{
    if (m->opcode != APS_WS_TEXT)
        return aps_error_set(err, APS_E_TYPE, (size_t)m->offset, "protocol messages travel in text frames");
    return ap_message_decode_opts((const char *)m->payload, m->len, arena, out, options, err);
}
