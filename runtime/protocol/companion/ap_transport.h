/*
 * ap_transport.h - protocol messages over SSE, JSONL and WebSocket, for the
 * types of ap.h. Part of the protocol companion of the committed bindings
 * (docs/companion.md); hand-written, not generated: the binding between
 * the transport fields and the message is protocol knowledge, not schema.
 *
 * SSE: one message is one event; `id:` is its eventId (or, without one, its
 * seq), `event:` its method (events only), `data:` its compact JSON.
 * JSONL: one message is one line of compact JSON.
 * WebSocket: one message is one text frame holding its compact JSON.
 *
 * Thread-safety: reentrant; callers own every buffer and arena.
 */
#ifndef AP_TRANSPORT_H
#define AP_TRANSPORT_H

#include "ap.h"
#include "ap_route.h"
#include "aps/sse.h"
#include "aps/ws.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The SSE `id:` and `event:` values of a message: for an event, its eventId
 * (or its seq, written into `seq_buf`) and its method; otherwise none.
 * A field the message has no value for comes back with ptr NULL.
 */
void ap_message_sse_fields(const ap_message_t *msg, char seq_buf[24], aps_slice *id, aps_slice *event);

/*
 * Checks that a received event's transport fields agree with its message:
 * `event:` is the method, `id:` the eventId (or the seq when it has none).
 * Other messages pass. APS_E_STATE with the pointer of the member that
 * disagrees ("/method", "/eventId", "/seq") otherwise.
 */
APS_NODISCARD aps_status ap_message_check_sse_binding(const ap_message_t *msg, aps_slice sse_event,
                                                      aps_slice sse_id, aps_error *err);

/*
 * Writes `msg` as one SSE event to `sse`. `json` is a scratch writer for the
 * compact JSON (reset here; keep one per connection so it stays warm);
 * `options` may be NULL (schema spelling). Returns the encoder's or the SSE
 * writer's status.
 */
APS_NODISCARD aps_status ap_message_write_sse(const ap_message_t *msg, aps_sse_writer *sse,
                                              aps_json_writer *json, const aps_encode_options *options,
                                              aps_error *err);

/*
 * Writes `msg` as one JSONL line into line[0..cap): its compact JSON (which
 * never contains a line feed) and a line feed; its size in *line_len.
 * `json`: scratch writer as for SSE; `options` may be NULL (schema spelling).
 * Returns APS_OK, the encoder's status, or APS_E_LIMIT when cap is too
 * small (nothing written).
 */
APS_NODISCARD aps_status ap_message_write_jsonl(const ap_message_t *msg, aps_json_writer *json, char *line,
                                                size_t cap, size_t *line_len, const aps_encode_options *options,
                                                aps_error *err);

/*
 * Decodes the data of a received SSE event as a Message into `out`.
 * With `check_binding`, also ap_message_check_sse_binding. Slices in `out` may point into
 * ev->data, which is only valid during the parser's callback: decode there.
 */
APS_NODISCARD aps_status ap_message_from_sse(const aps_sse_event *ev, int check_binding, aps_arena *arena,
                                             ap_message_t *out, const aps_decode_options *options,
                                             aps_error *err);

/*
 * Writes `msg` as one WebSocket text frame into frame[0..cap), its size in
 * *frame_len. `mask_key`: NULL for a server, four unpredictable bytes for a
 * client (RFC 6455 5.3). `json`: scratch writer as above.
 * Returns APS_OK, the encoder's status, or APS_E_LIMIT when cap is too small.
 */
APS_NODISCARD aps_status ap_message_write_ws(const ap_message_t *msg, aps_json_writer *json,
                                             uint8_t *frame, size_t cap, size_t *frame_len,
                                             const uint8_t *mask_key, const aps_encode_options *options,
                                             aps_error *err);

/* Decodes a received WebSocket text message as a Message (APS_E_TYPE for any other opcode). */
APS_NODISCARD aps_status ap_message_from_ws(const aps_ws_message *m, aps_arena *arena, ap_message_t *out,
                                            const aps_decode_options *options, aps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AP_TRANSPORT_H */
