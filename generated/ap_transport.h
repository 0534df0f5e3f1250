/*
 * ap_transport.h - protocol messages over SSE and WebSocket, for the types
 * of ap.h. Hand-written companion of the generated ap.h (not generated):
 * the binding between the transport fields and the message is protocol
 * knowledge, not schema.
 *
 * SSE: one message is one event; `id:` is its eventId (or, without one, its
 * seq), `event:` its method (events only), `data:` its compact JSON.
 * WebSocket: one message is one text frame holding its compact JSON.
 *
 * Thread-safety: reentrant; callers own every buffer and arena.
 */
#ifndef AP_TRANSPORT_H
#define AP_TRANSPORT_H

#include "ap.h"
#include "apr_sse.h"
#include "apr_websocket.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The method of a decoded event (its EventData alternative): "messages", ...; empty when unknown. */
apr_slice ap_event_method(const ap_event_t *ev);

/*
 * The SSE `id:` and `event:` values of a message: for an event, its eventId
 * (or its seq, written into `seq_buf`) and its method; otherwise none.
 * A field the message has no value for comes back with ptr NULL.
 */
void ap_message_sse_fields(const ap_message_t *msg, char seq_buf[24], apr_slice *id, apr_slice *event);

/*
 * Checks that a received event's transport fields agree with its message:
 * `event:` is the method, `id:` the eventId (or the seq when it has none).
 * Other messages pass. APR_E_STATE with the pointer of the member that
 * disagrees ("/method", "/eventId", "/seq") otherwise.
 */
APR_NODISCARD apr_status ap_message_check_sse_binding(const ap_message_t *msg, apr_slice sse_event,
                                                      apr_slice sse_id, apr_error *err);

/*
 * Writes `msg` as one SSE event to `sse`. `json` is a scratch writer for the
 * compact JSON (reset here; keep one per connection so it stays warm);
 * `options` may be NULL (schema spelling). Returns the encoder's or the SSE
 * writer's status.
 */
APR_NODISCARD apr_status ap_message_write_sse(const ap_message_t *msg, apr_sse_writer *sse,
                                              apr_json_writer *json, const apr_encode_options *options,
                                              apr_error *err);

/*
 * Decodes the data of a received SSE event as a Message into `out`.
 * With `check_binding`, also ap_message_check_sse_binding. Slices in `out` may point into
 * ev->data, which is only valid during the parser's callback: decode there.
 */
APR_NODISCARD apr_status ap_message_from_sse(const apr_sse_event *ev, int check_binding, apr_arena *arena,
                                             ap_message_t *out, const apr_decode_options *options,
                                             apr_error *err);

/*
 * Writes `msg` as one WebSocket text frame into frame[0..cap), its size in
 * *frame_len. `mask_key`: NULL for a server, four unpredictable bytes for a
 * client (RFC 6455 5.3). `json`: scratch writer as above.
 * Returns APR_OK, the encoder's status, or APR_E_LIMIT when cap is too small.
 */
APR_NODISCARD apr_status ap_message_write_ws(const ap_message_t *msg, apr_json_writer *json,
                                             uint8_t *frame, size_t cap, size_t *frame_len,
                                             const uint8_t *mask_key, const apr_encode_options *options,
                                             apr_error *err);

/* Decodes a received WebSocket text message as a Message (APR_E_TYPE for any other opcode). */
APR_NODISCARD apr_status ap_message_from_ws(const apr_ws_message *m, apr_arena *arena, ap_message_t *out,
                                            const apr_decode_options *options, apr_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AP_TRANSPORT_H */
