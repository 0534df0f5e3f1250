/*
 * client_internal.h - what the files of the client share, and the reading
 * path without a connection (for the fuzz target, tests/fuzz/client_read.c,
 * and ap-bench client). Not installed.
 */
#ifndef AP_CLIENT_INTERNAL_H
#define AP_CLIENT_INTERNAL_H

#include "ap_client.h"
#include "aps/json.h"

/* ap_client_open, and with `connect` zero no transport: only the reading path below works. */
APS_INTERNAL ap_client *apc_client_new(const ap_client_options *o, int connect, aps_error *err);
/* Starts a new SSE body (the parser's state dropped). */
APS_INTERNAL void apc_client_sse_reset(ap_client *c);
/* Bytes of an SSE body: events to the callbacks. 0, or -1 when the stream cannot go on (said by on_error). */
APS_INTERNAL int apc_client_sse_bytes(ap_client *c, const char *bytes, size_t len);
/* One message (a WebSocket text, an SSE event's data; APS_PADDING readable bytes after it). 0, or -1 (memory). */
APS_INTERNAL int apc_client_message(ap_client *c, const char *text, size_t len, aps_slice sse_id);
/* Makes `id` the command in flight, as ap_client_command does before it waits (the fuzz target's responses). */
APS_INTERNAL void apc_client_await(ap_client *c, uint64_t id);
/* Whether the command in flight got its response, and whether the run ended. */
APS_INTERNAL int apc_client_answered(const ap_client *c);
APS_INTERNAL int apc_client_run_ended(const ap_client *c);
/* What `w` wrote, as a NUL-terminated heap string (NULL: the writer failed); `w` is deinitialised. */
APS_INTERNAL char *apc_json_take(aps_json_writer *w);

#endif
