/*
 * ap_companion.h - the protocol companion of the committed bindings ap.h,
 * in one include: what every sender and receiver of the Agent Streaming
 * Protocol writes otherwise (docs/companion.md).
 *
 *   ap_route.h     an event's method, channel, namespace, custom name
 *   ap_transport.h a message as an SSE event, a JSONL line, a WebSocket
 *                  frame, and back; SSE `id:`/`event:` checks
 *   ap_assemble.h  a decoded message as the assembler's input (aps/asm.h)
 *   ap_replay.h    events into the replay buffer; a request's filter and start
 *   ap_response.h  success and error responses to a command
 */
#ifndef AP_COMPANION_H
#define AP_COMPANION_H

#include "ap_assemble.h"
#include "ap_replay.h"
#include "ap_response.h"
#include "ap_route.h"
#include "ap_transport.h"

#endif /* AP_COMPANION_H */
