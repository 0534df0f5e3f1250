/* ap_response.c - success and error responses to a command (see ap_response.h). */
#include "ap_response.h"

#include <string.h>

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
