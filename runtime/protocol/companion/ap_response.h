/*
 * ap_response.h - answering a command: the success response with the
 * result shape its method implies, or the error response. Part of the
 * protocol companion of the committed bindings ap.h (docs/companion.md).
 *
 *     ap_result_data_t *result = ap_response_success(&msg, &cmd);
 *     aps_slice why = { "unknown command", 15 };
 *     if (result == NULL)
 *         ap_response_error(&msg, &cmd, AP_ERROR_CODE_UNKNOWN_COMMAND, why);
 *     else if (cmd.command_data.kind == AP_COMMAND_DATA_RUN_START)
 *         result->u.run_result.has_run_id = true, result->u.run_result.run_id = run;
 *     ap_message_write_ws(&msg, ...) or another writer of ap_transport.h
 *
 * Thread-safety: reentrant; `msg` is the caller's, strings are borrowed.
 */
#ifndef AP_RESPONSE_H
#define AP_RESPONSE_H

#include "ap.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Makes `msg` (cleared first) the CommandResponse to `cmd`: type success,
 * its id, and a result of the shape the command's method implies (the
 * wire does not name it): run.start a RunResult, subscription.subscribe a
 * SubscribeResult, .reconnect a ReconnectResult, .unsubscribe an
 * EmptyResult, agent.getTree an AgentResult, input.* an InputResult,
 * state.get a StateGetResult, state.listCheckpoints a
 * ListCheckpointsResult, state.fork a StateForkResult; every discriminant
 * on the way is set. Returns the result for the caller to fill, or NULL
 * (msg left cleared) for a command whose method the schema does not know:
 * answer it with ap_response_error and AP_ERROR_CODE_UNKNOWN_COMMAND.
 */
ap_result_data_t *ap_response_success(ap_message_t *msg, const ap_command_t *cmd);

/*
 * Makes `msg` (cleared first) the ErrorResponse to `cmd` (NULL: a command
 * so malformed that its id is unknown: the id is then null) with `code`
 * and the human-readable `message` (borrowed).
 */
void ap_response_error(ap_message_t *msg, const ap_command_t *cmd, ap_error_code_t code, aps_slice message);

/*
 * Makes `msg` (cleared first) the ErrorResponse to the JSON text `text`
 * (`len` bytes) that did not decode as a Command, with `code` and
 * `message` (borrowed): its id is the text's `id` when that can still be
 * read (the text is one JSON object whose `id` member is a js-uint,
 * 0..2^53-1), so that a client waiting for the answer to that id gets it;
 * null otherwise. `arena` takes what the read needs (escaped member
 * names). Returns true when the id was read, false when it is null.
 */
bool ap_response_error_text(ap_message_t *msg, const char *text, size_t len, aps_arena *arena, ap_error_code_t code,
                            aps_slice message);

#ifdef __cplusplus
}
#endif
#endif /* AP_RESPONSE_H */
