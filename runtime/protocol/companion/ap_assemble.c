/*
 * ap_assemble.c - a decoded message as an assembler view (see ap_assemble.h).
 * One function per channel; the members the assembler wants as JSON text
 * come either from the raw text the decoder kept (unknown members real
 * servers add) or from encoding the decoded struct again into the arena.
 */
#include "ap_assemble.h"

#include <string.h>

/* Allocator hooks that take memory from an arena: a writer's buffer then goes with the arena's next reset. */
static void *arena_alloc(void *ctx, size_t size)
{
    return aps_arena_alloc(ctx, size);
}

static void arena_free(void *ctx, void *ptr, size_t size)
{
    (void)ctx, (void)ptr, (void)size; /* freed with the arena */
}

/* The JSON of a decoded value, encoded into the arena (padded, as the assembler's fast path wants). */
static aps_status encode_raw(aps_arena *arena, const aps_type *type, const void *value, aps_json_raw *out)
{
    aps_allocator in_arena;
    aps_json_writer w;
    aps_status st;
    in_arena.alloc = arena_alloc;
    in_arena.free = arena_free;
    in_arena.ctx = arena;
    aps_json_writer_init(&w, &in_arena);
    st = aps_schema_encode(type, value, &w, NULL, NULL);
    if (st == APS_OK) {
        out->ptr = aps_arena_dup(arena, aps_json_writer_data(&w), aps_json_writer_len(&w));
        out->len = aps_json_writer_len(&w);
        st = out->ptr != NULL ? APS_OK : APS_E_NOMEM;
    }
    aps_json_writer_deinit(&w);
    return st;
}

/* A content block's JSON: the text it was decoded from, or, for one built in C (no raw text), encoded. */
static aps_status block_raw(aps_arena *arena, const aps_type *type, const void *block, aps_json_raw raw,
                            aps_json_raw *out)
{
    if (raw.ptr != NULL) {
        *out = raw;
        return APS_OK;
    }
    return encode_raw(arena, type, block, out);
}

static aps_slice optional(bool has, aps_slice s)
{
    aps_slice none = { NULL, 0 };
    return has ? s : none;
}

/* Member `name` of a raw object when it is a string (unescaped into the arena); absent otherwise. */
static aps_slice raw_string(aps_arena *arena, aps_json_raw obj, const char *name, size_t name_len)
{
    aps_slice s = { NULL, 0 };
    aps_json_raw raw;
    aps_json_reader rd;
    if (obj.ptr == NULL || aps_json_raw_member(obj, name, name_len, arena, &raw, NULL) != APS_OK ||
        aps_json_raw_kind(raw) != APS_JSON_STRING)
        return s;
    aps_json_raw_reader(&rd, raw, arena);
    if (aps_json_read_string(&rd, &s, NULL) != APS_OK)
        s.ptr = NULL, s.len = 0;
    return s;
}

/* Member `name` of a raw object when it is an object; absent otherwise. */
static aps_json_raw raw_object(aps_arena *arena, aps_json_raw obj, const char *name, size_t name_len)
{
    aps_json_raw none = { NULL, 0 }, raw;
    if (obj.ptr == NULL || aps_json_raw_member(obj, name, name_len, arena, &raw, NULL) != APS_OK ||
        aps_json_raw_kind(raw) != APS_JSON_OBJECT)
        return none;
    return raw;
}

/* The role as the wire spells it; absent (ptr NULL) for none. */
static aps_slice role_name(ap_message_role_t role)
{
    aps_slice s = { NULL, 0 };
    const char *name = ap_message_role_name(role);
    if (name[0] != '\0')
        s.ptr = name, s.len = strlen(name);
    return s;
}

static aps_status delta_view(aps_arena *arena, const ap_content_block_delta_t *delta, aps_asm_event *ev)
{
    switch (delta->kind) {
    case AP_CONTENT_BLOCK_DELTA_TEXT_DELTA:
        ev->delta = APS_ASM_DELTA_TEXT;
        ev->text = delta->u.text_delta.text;
        return APS_OK;
    case AP_CONTENT_BLOCK_DELTA_REASONING_DELTA:
        ev->delta = APS_ASM_DELTA_REASONING;
        ev->text = delta->u.reasoning_delta.reasoning;
        return APS_OK;
    case AP_CONTENT_BLOCK_DELTA_DATA_DELTA:
        ev->delta = APS_ASM_DELTA_DATA;
        ev->text = delta->u.data_delta.data;
        return APS_OK;
    case AP_CONTENT_BLOCK_DELTA_BLOCK_DELTA:
        ev->delta = APS_ASM_DELTA_BLOCK;
        return encode_raw(arena, &ap_block_delta_fields_type, &delta->u.block_delta.fields, &ev->fields);
    case AP_CONTENT_BLOCK_DELTA_TOOL_CALL_DELTA:
        ev->delta = APS_ASM_DELTA_TOOL_CALL;
        ev->text = delta->u.tool_call_delta.args;
        return APS_OK;
    default:
        ev->delta = APS_ASM_DELTA_UNKNOWN; /* a delta type this schema does not know: skipped */
        return APS_OK;
    }
}

/* An event the schema does not name: real servers send "usage" events. */
static void unknown_messages_event(aps_arena *arena, const ap_messages_data_t *d, aps_asm_event *ev)
{
    aps_slice event = raw_string(arena, d->raw, "event", 5);
    ev->kind = APS_ASM_OTHER;
    if (event.len == 5 && memcmp(event.ptr, "usage", 5) == 0) {
        ev->kind = APS_ASM_MESSAGE_USAGE; /* its `usage` as it is: the assembler checks it */
        if (aps_json_raw_member(d->raw, "usage", 5, arena, &ev->usage, NULL) != APS_OK)
            ev->usage.ptr = NULL, ev->usage.len = 0;
    }
}

static aps_status messages_view(aps_arena *arena, const ap_messages_data_t *d, int strict, aps_asm_event *ev)
{
    if (!strict) {
        /* Real servers add run_id to message events, and usage to message-start; the schema keeps them
         * among the unknown members, so they are read from the raw text the decoder kept. */
        ev->run_id = raw_string(arena, d->raw, "run_id", 6);
        if (d->kind == AP_MESSAGES_DATA_MESSAGE_START_DATA)
            ev->usage = raw_object(arena, d->raw, "usage", 5);
    }
    switch (d->kind) {
    case AP_MESSAGES_DATA_MESSAGE_START_DATA: {
        const ap_message_start_data_t *s = &d->u.message_start_data;
        ev->kind = APS_ASM_MESSAGE_START;
        ev->id = s->id;
        ev->role = role_name(s->role);
        return s->has_metadata ? encode_raw(arena, &ap_message_metadata_type, &s->metadata, &ev->metadata) : APS_OK;
    }
    case AP_MESSAGES_DATA_CONTENT_BLOCK_START_DATA:
        ev->kind = APS_ASM_BLOCK_START;
        ev->index = d->u.content_block_start_data.index;
        return block_raw(arena, &ap_content_block_type, &d->u.content_block_start_data.content,
                         d->u.content_block_start_data.content.raw, &ev->content);
    case AP_MESSAGES_DATA_CONTENT_BLOCK_DELTA_DATA:
        ev->kind = APS_ASM_BLOCK_DELTA;
        ev->index = d->u.content_block_delta_data.index;
        return delta_view(arena, &d->u.content_block_delta_data.delta, ev);
    case AP_MESSAGES_DATA_CONTENT_BLOCK_FINISH_DATA:
        ev->kind = APS_ASM_BLOCK_FINISH;
        ev->index = d->u.content_block_finish_data.index;
        return block_raw(arena, &ap_finalized_content_block_type, &d->u.content_block_finish_data.content,
                         d->u.content_block_finish_data.content.raw, &ev->content);
    case AP_MESSAGES_DATA_MESSAGE_FINISH_DATA:
        ev->kind = APS_ASM_MESSAGE_FINISH;
        if (!d->u.message_finish_data.has_usage)
            return APS_OK;
        return encode_raw(arena, &ap_usage_info_type, &d->u.message_finish_data.usage, &ev->usage);
    case AP_MESSAGES_DATA_MESSAGE_ERROR_DATA:
        ev->kind = APS_ASM_MESSAGE_ERROR;
        ev->message = d->u.message_error_data.message;
        ev->code = optional(d->u.message_error_data.has_code, d->u.message_error_data.code);
        return APS_OK;
    default:
        unknown_messages_event(arena, d, ev);
        return APS_OK;
    }
}

static void tools_view(const ap_tools_data_t *d, aps_asm_event *ev)
{
    switch (d->kind) {
    case AP_TOOLS_DATA_TOOL_STARTED_DATA:
        ev->kind = APS_ASM_TOOL_STARTED;
        ev->tool_call_id = d->u.tool_started_data.tool_call_id;
        ev->tool_name = d->u.tool_started_data.tool_name;
        if (d->u.tool_started_data.has_input)
            ev->input = d->u.tool_started_data.input;
        break;
    case AP_TOOLS_DATA_TOOL_OUTPUT_DELTA_DATA:
        ev->kind = APS_ASM_TOOL_OUTPUT_DELTA;
        ev->tool_call_id = d->u.tool_output_delta_data.tool_call_id;
        ev->text = d->u.tool_output_delta_data.delta;
        break;
    case AP_TOOLS_DATA_TOOL_FINISHED_DATA:
        ev->kind = APS_ASM_TOOL_FINISHED;
        ev->tool_call_id = d->u.tool_finished_data.tool_call_id;
        ev->output = d->u.tool_finished_data.output;
        break;
    case AP_TOOLS_DATA_TOOL_ERROR_DATA:
        ev->kind = APS_ASM_TOOL_ERROR;
        ev->tool_call_id = d->u.tool_error_data.tool_call_id;
        ev->message = d->u.tool_error_data.message;
        ev->code = optional(d->u.tool_error_data.has_code, d->u.tool_error_data.code);
        break;
    default:
        ev->kind = APS_ASM_OTHER;
        break;
    }
}

aps_status ap_asm_event_from_message(const ap_message_t *msg, int strict, aps_arena *arena, aps_asm_event *ev)
{
    const ap_event_data_t *d = &msg->u.event.event_data;
    memset(ev, 0, sizeof *ev);
    if (msg->kind != AP_MESSAGE_EVENT)
        return APS_OK;
    if (d->kind == AP_EVENT_DATA_MESSAGES_EVENT) {
        const ap_messages_event_params_t *p = &d->u.messages_event.params;
        ev->ns = p->namespace_.items;
        ev->ns_len = p->namespace_.count;
        ev->node = optional(p->has_node, p->node);
        return messages_view(arena, &p->data, strict, ev);
    }
    if (d->kind == AP_EVENT_DATA_TOOLS_EVENT) {
        const ap_tools_event_params_t *p = &d->u.tools_event.params;
        ev->ns = p->namespace_.items;
        ev->ns_len = p->namespace_.count;
        ev->node = optional(p->has_node, p->node);
        tools_view(&p->data, ev);
    }
    return APS_OK; /* other channels carry nothing to assemble */
}
