/*
 * ap_replay.h - decoded events into the replay buffer (aps/replay.h), and
 * a subscriber's EventStreamRequest into its filter and starting point.
 * Part of the protocol companion of the committed bindings ap.h
 * (docs/companion.md).
 *
 * Producer: each event numbered by the buffer, framed as SSE and kept:
 *
 *     ap_message_t msg = ...;                 (an event; its seq may be left unset)
 *     if (ap_replay_append_sse(&rb, &msg, &sse, &json, NULL, &err) != APS_OK) ...
 *     send(buf, aps_sse_writer_length(&sse)); (sse: a buffer-mode writer)
 *
 * A reconnecting client's request:
 *
 *     if (ap_replay_subscribe(&cur, &filter, &rb, &req, &arena, &err) != APS_OK) ... answer invalid_argument
 *     then aps_replay_read(&rb, &cur, ...): the stored bytes are SSE; aps_filter_deinit(&filter) at the end
 *
 * Thread-safety: reentrant; appends follow the rules of aps/replay.h (one
 * writer: ap_replay_append_sse reads the next seq, then appends).
 */
#ifndef AP_REPLAY_H
#define AP_REPLAY_H

#include "ap.h"
#include "aps/filter.h"
#include "aps/replay.h"
#include "aps/sse.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What the replay buffer keeps beside a decoded event (aps_replay_meta):
 * its eventId (ptr NULL without one), channel, custom name and namespace,
 * all borrowed from `ev`, and for a lifecycle event of the root namespace
 * its run mark (`started`, `running`: APS_RUN_ACTIVE; `completed`,
 * `failed`, `interrupted`: APS_RUN_END). Thread-safe.
 */
void ap_event_replay_meta(const ap_event_t *ev, aps_replay_meta *meta);

/*
 * The replay meta of an event's JSON text `json` (`len` bytes), whatever the
 * schema says of it: ap_event_replay_meta of `ev` when it is decoded and of a
 * known kind; else (`ev` NULL, the schema rejected the text, or a tolerant
 * decode left its kind unknown) from its envelope: `method`, `eventId` or
 * `event_id`, `params.namespace`, and `params.data.name` (custom) or
 * `.event` (a root lifecycle's run mark). So an event the schema does not
 * define (the reference client's `input.answered`, a newer server's method)
 * is still routed by its method and namespace, as the reference routes it.
 * Slices borrow from `json`, `ev` or `arena` (unescaped strings, segments).
 * Returns APS_OK, or APS_E_SYNTAX when the text has no string `method` or no
 * `params.namespace` of strings. Thread-safe.
 */
APS_NODISCARD aps_status ap_event_replay_meta_text(const char *json, size_t len, const ap_event_t *ev,
                                                   aps_arena *arena, aps_replay_meta *meta, aps_error *err);

/*
 * Numbers the event `msg` with the buffer's next seq when it has no seq
 * (setting it in `msg`), writes it as one SSE event into `sse` (reset
 * first: a buffer-mode writer, whose bytes are that event afterwards; the
 * SSE id is the eventId, or without one the seq, so a client resumes by
 * either) and appends those bytes to `rb` with the event's meta
 * (ap_event_replay_meta). *seq (may be NULL) gets the seq. Returns APS_OK;
 * APS_E_ARGUMENT when `msg` is not an event; the encoder's, the SSE
 * writer's (APS_E_LIMIT: the buffer is too small) or aps_replay_append's
 * status. The JSON has the schema's spelling (camelCase).
 */
APS_NODISCARD aps_status ap_replay_append_sse(aps_replay *rb, ap_message_t *msg, aps_sse_writer *sse,
                                              aps_json_writer *json, uint64_t *seq, aps_error *err);

/*
 * ap_replay_append_sse with encode options (NULL: the schema's spelling):
 * `key_case` APS_CASE_SNAKE writes `event_id`, `run_id`, ... as
 * langgraph-api does and the reference client reads (docs/companion.md).
 */
APS_NODISCARD aps_status ap_replay_append_sse_opts(aps_replay *rb, ap_message_t *msg, aps_sse_writer *sse,
                                                   aps_json_writer *json, const aps_encode_options *options,
                                                   uint64_t *seq, aps_error *err);

/*
 * Compiles the channels, namespaces and depth of an EventStreamRequest into
 * `f` (aps_filter_init; release it with aps_filter_deinit). `arena` holds
 * the spec while compiling (the filter copies what it keeps). Returns
 * APS_OK, APS_E_NOMEM, or aps_filter_init's status for channels the
 * protocol does not have (answer invalid_argument).
 */
APS_NODISCARD aps_status ap_filter_init_request(aps_filter *f, const ap_event_stream_request_t *req,
                                                aps_arena *arena, aps_error *err);

/*
 * Where an EventStreamRequest resumes: after `since` (a seq), else after
 * `sinceEventId`, else a new subscriber to the current run (FROM_RUN: the
 * values baseline, then the run's events from its start, then live: what
 * the reference client expects when it opens a stream after `run.start`,
 * docs/interpretations.md). The event id is borrowed from `req`.
 * Thread-safe.
 */
aps_replay_start ap_replay_start_request(const ap_event_stream_request_t *req);

/*
 * A subscriber's request in one call: compiles its filter into `filter`
 * (ap_filter_init_request; the caller releases it with aps_filter_deinit
 * after the cursor's last use) and starts `cur` on `rb` where it resumes
 * (ap_replay_start_request). Returns APS_OK, ap_filter_init_request's
 * statuses, or aps_replay_cursor_init's (the filter is then released).
 */
APS_NODISCARD aps_status ap_replay_subscribe(aps_replay_cursor *cur, aps_filter *filter, aps_replay *rb,
                                             const ap_event_stream_request_t *req, aps_arena *arena,
                                             aps_error *err);

#ifdef __cplusplus
}
#endif
#endif /* AP_REPLAY_H */
