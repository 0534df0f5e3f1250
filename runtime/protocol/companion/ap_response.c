/* ap_response.c - success and error responses to a command (see ap_response.h). */
#include "ap_response.h"

#include <string.h>

/* js-uint (cddl/protocol.cddl): the integers a JavaScript number holds exactly */
#define JS_UINT_MAX 9007199254740991u

/* Sets the discriminants of the result `method` implies; 0 for a method the schema does not know. */
static int shape_result(ap_command_data_kind method, ap_result_data_t *r)
{
    switch (method) {
    case AP_COMMAND_DATA_RUN_START: r->kind = AP_RESULT_DATA_RUN_RESULT; return 1;
    case AP_COMMAND_DATA_SUBSCRIPTION_SUBSCRIBE:
        r->kind = AP_RESULT_DATA_SUBSCRIPTION_RESULT;
        r->u.subscription_result.kind = AP_SUBSCRIPTION_RESULT_SUBSCRIBE_RESULT;
        return 1;
    case AP_COMMAND_DATA_SUBSCRIPTION_UNSUBSCRIBE:
        r->kind = AP_RESULT_DATA_SUBSCRIPTION_RESULT;
        r->u.subscription_result.kind = AP_SUBSCRIPTION_RESULT_EMPTY_RESULT;
        return 1;
    case AP_COMMAND_DATA_SUBSCRIPTION_RECONNECT:
        r->kind = AP_RESULT_DATA_SUBSCRIPTION_RESULT;
        r->u.subscription_result.kind = AP_SUBSCRIPTION_RESULT_RECONNECT_RESULT;
        return 1;
    case AP_COMMAND_DATA_AGENT_GET_TREE: r->kind = AP_RESULT_DATA_AGENT_RESULT; return 1;
    case AP_COMMAND_DATA_INPUT_RESPOND:
    case AP_COMMAND_DATA_INPUT_INJECT: r->kind = AP_RESULT_DATA_INPUT_RESULT; return 1;
    case AP_COMMAND_DATA_STATE_GET:
        r->kind = AP_RESULT_DATA_STATE_RESULT;
        r->u.state_result.kind = AP_STATE_RESULT_STATE_GET_RESULT;
        return 1;
    case AP_COMMAND_DATA_STATE_LIST_CHECKPOINTS:
        r->kind = AP_RESULT_DATA_STATE_RESULT;
        r->u.state_result.kind = AP_STATE_RESULT_LIST_CHECKPOINTS_RESULT;
        return 1;
    case AP_COMMAND_DATA_STATE_FORK:
        r->kind = AP_RESULT_DATA_STATE_RESULT;
        r->u.state_result.kind = AP_STATE_RESULT_STATE_FORK_RESULT;
        return 1;
    default: return 0;
    }
}

ap_result_data_t *ap_response_success(ap_message_t *msg, const ap_command_t *cmd)
{
    ap_command_response_t *r = &msg->u.command_response;
    memset(msg, 0, sizeof *msg);
    if (!shape_result(cmd->command_data.kind, &r->result)) {
        memset(msg, 0, sizeof *msg);
        return NULL;
    }
    msg->kind = AP_MESSAGE_COMMAND_RESPONSE;
    r->id = cmd->id;
    return &r->result;
}

void ap_response_error(ap_message_t *msg, const ap_command_t *cmd, ap_error_code_t code, aps_slice message)
{
    ap_error_response_t *e = &msg->u.error_response;
    memset(msg, 0, sizeof *msg);
    msg->kind = AP_MESSAGE_ERROR_RESPONSE;
    e->id_is_null = cmd == NULL;
    e->id = cmd != NULL ? cmd->id : 0;
    e->error = code;
    e->message = message;
}

/* The `id` of a JSON object that is well-formed throughout, when it is a js-uint; false when it is not. */
static bool read_id(const char *text, size_t len, aps_arena *arena, uint64_t *id)
{
    aps_json_reader r;
    aps_slice key;
    int more = 1, found = 0;
    aps_json_reader_init(&r, text, len, arena, NULL);
    if (aps_json_read_object(&r, NULL) != APS_OK)
        return false;
    while (more) {
        if (aps_json_next_member(&r, &key, &more, NULL) != APS_OK)
            return false; /* (a duplicate `id` among them: which one would be the command's?) */
        if (!more)
            break;
        if (key.len == 2 && memcmp(key.ptr, "id", 2) == 0) {
            if (aps_json_read_uint64(&r, id, NULL) != APS_OK || *id > JS_UINT_MAX)
                return false;
            found = 1;
        } else if (aps_json_skip(&r, NULL) != APS_OK) {
            return false;
        }
    }
    /* a text cut short or with bytes after the object says nothing certain about its id */
    return found && aps_json_reader_finish(&r, NULL) == APS_OK;
}

bool ap_response_error_text(ap_message_t *msg, const char *text, size_t len, aps_arena *arena, ap_error_code_t code,
                            aps_slice message)
{
    ap_command_t cmd;
    memset(&cmd, 0, sizeof cmd);
    if (text == NULL || !read_id(text, len, arena, &cmd.id)) {
        ap_response_error(msg, NULL, code, message);
        return false;
    }
    ap_response_error(msg, &cmd, code, message);
    return true;
}
