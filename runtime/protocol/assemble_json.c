/*
 * assemble_json.c - one protocol event read straight into an assembler view
 * with the JSON reader, without the schema (see aps_asm_event_from_json).
 */
#include <string.h>

#include "aps/asm.h"

void aps_asm_reader_init(aps_asm_reader *ad)
{
    memset(ad, 0, sizeof *ad);
    aps_arena_init(&ad->arena, NULL);
}

void aps_asm_reader_deinit(aps_asm_reader *ad)
{
    aps_arena_deinit(&ad->arena);
}

static int key_is(aps_slice k, const char *camel, const char *snake)
{
    size_t n = strlen(camel);
    if (k.len == n && memcmp(k.ptr, camel, n) == 0)
        return 1;
    n = snake ? strlen(snake) : 0;
    return snake && k.len == n && memcmp(k.ptr, snake, n) == 0;
}

static int adapt_string_or_null(aps_json_reader *r, aps_slice *out)
{
    if (aps_json_peek(r) == APS_JSON_NULL) {
        out->ptr = NULL;
        out->len = 0;
        return aps_json_read_null(r, NULL) == APS_OK;
    }
    return aps_json_read_string(r, out, NULL) == APS_OK;
}

static int adapt_delta(aps_json_reader *r, aps_asm_event *ev)
{
    aps_slice key, type = { NULL, 0 };
    int more;
    if (aps_json_read_object(r, NULL) != APS_OK)
        return 0;
    while (aps_json_next_member(r, &key, &more, NULL) == APS_OK) {
        int ok;
        if (!more) {
            if (type.ptr == NULL)
                return 0;
            if (key_is(type, "text-delta", NULL))
                ev->delta = APS_ASM_DELTA_TEXT;
            else if (key_is(type, "reasoning-delta", NULL))
                ev->delta = APS_ASM_DELTA_REASONING;
            else if (key_is(type, "data-delta", NULL))
                ev->delta = APS_ASM_DELTA_DATA;
            else if (key_is(type, "block-delta", NULL))
                ev->delta = APS_ASM_DELTA_BLOCK;
            else if (key_is(type, "tool-call-delta", NULL))
                ev->delta = APS_ASM_DELTA_TOOL_CALL;
            else
                ev->delta = APS_ASM_DELTA_UNKNOWN;
            return 1;
        }
        if (key_is(key, "type", NULL))
            ok = aps_json_read_string(r, &type, NULL) == APS_OK;
        else if (key_is(key, "text", NULL) || key_is(key, "reasoning", NULL) ||
                 key_is(key, "data", NULL) || key_is(key, "args", NULL))
            ok = adapt_string_or_null(r, &ev->text);
        else if (key_is(key, "fields", NULL))
            ok = aps_json_read_raw(r, &ev->fields, NULL) == APS_OK;
        else
            ok = aps_json_skip(r, NULL) == APS_OK;
        if (!ok)
            return 0;
    }
    return 0;
}

static int adapt_data(aps_json_reader *r, aps_asm_event *ev, int tools)
{
    aps_slice key, event = { NULL, 0 };
    int more;
    if (aps_json_read_object(r, NULL) != APS_OK)
        return 0;
    while (aps_json_next_member(r, &key, &more, NULL) == APS_OK) {
        int ok = 1;
        if (!more)
            break;
        if (key_is(key, "event", NULL))
            ok = aps_json_read_string(r, &event, NULL) == APS_OK;
        else if (key_is(key, "id", NULL))
            ok = aps_json_read_string(r, &ev->id, NULL) == APS_OK;
        else if (key_is(key, "role", NULL))
            ok = aps_json_read_string(r, &ev->role, NULL) == APS_OK;
        else if (key_is(key, "metadata", NULL))
            ok = aps_json_read_raw(r, &ev->metadata, NULL) == APS_OK;
        else if (key_is(key, "index", NULL))
            ok = aps_json_read_uint64(r, &ev->index, NULL) == APS_OK;
        else if (key_is(key, "content", NULL))
            ok = aps_json_read_raw(r, &ev->content, NULL) == APS_OK;
        else if (key_is(key, "delta", NULL))
            ok = tools ? aps_json_read_string(r, &ev->text, NULL) == APS_OK : adapt_delta(r, ev);
        else if (key_is(key, "usage", NULL))
            ok = aps_json_read_raw(r, &ev->usage, NULL) == APS_OK;
        else if (key_is(key, "message", NULL))
            ok = aps_json_read_string(r, &ev->message, NULL) == APS_OK;
        else if (key_is(key, "code", NULL))
            ok = aps_json_read_string(r, &ev->code, NULL) == APS_OK;
        else if (key_is(key, "toolCallId", "tool_call_id") && tools)
            ok = aps_json_read_string(r, &ev->tool_call_id, NULL) == APS_OK;
        else if (key_is(key, "toolName", "tool_name"))
            ok = aps_json_read_string(r, &ev->tool_name, NULL) == APS_OK;
        else if (key_is(key, "input", NULL) && tools)
            ok = aps_json_read_raw(r, &ev->input, NULL) == APS_OK;
        else if (key_is(key, "output", NULL))
            ok = aps_json_read_raw(r, &ev->output, NULL) == APS_OK;
        else if (key_is(key, "run_id", NULL) && !tools && aps_json_peek(r) == APS_JSON_STRING)
            ok = aps_json_read_string(r, &ev->run_id, NULL) == APS_OK; /* another value: no run id */
        else
            ok = aps_json_skip(r, NULL) == APS_OK;
        if (!ok)
            return 0;
    }
    if (more || event.ptr == NULL)
        return 0;
    if (tools) {
        if (key_is(event, "tool-started", NULL))
            ev->kind = APS_ASM_TOOL_STARTED;
        else if (key_is(event, "tool-output-delta", NULL))
            ev->kind = APS_ASM_TOOL_OUTPUT_DELTA;
        else if (key_is(event, "tool-finished", NULL))
            ev->kind = APS_ASM_TOOL_FINISHED;
        else if (key_is(event, "tool-error", NULL))
            ev->kind = APS_ASM_TOOL_ERROR;
        if (ev->kind != APS_ASM_OTHER && ev->tool_call_id.ptr == NULL)
            return 0;
        return 1;
    }
    if (key_is(event, "message-start", NULL))
        ev->kind = APS_ASM_MESSAGE_START;
    else if (key_is(event, "content-block-start", NULL))
        ev->kind = APS_ASM_BLOCK_START;
    else if (key_is(event, "content-block-delta", NULL))
        ev->kind = APS_ASM_BLOCK_DELTA;
    else if (key_is(event, "content-block-finish", NULL))
        ev->kind = APS_ASM_BLOCK_FINISH;
    else if (key_is(event, "message-finish", NULL))
        ev->kind = APS_ASM_MESSAGE_FINISH;
    else if (key_is(event, "error", NULL))
        ev->kind = APS_ASM_MESSAGE_ERROR;
    else if (key_is(event, "usage", NULL))
        ev->kind = APS_ASM_MESSAGE_USAGE;
    if (ev->kind == APS_ASM_BLOCK_DELTA && ev->content.ptr != NULL && aps_json_raw_kind(ev->content) == APS_JSON_NULL)
        ev->content.ptr = NULL, ev->content.len = 0; /* `content: null` is no content-shaped delta */
    if ((ev->kind == APS_ASM_MESSAGE_START || ev->kind == APS_ASM_MESSAGE_FINISH) && ev->usage.ptr != NULL &&
        aps_json_raw_kind(ev->usage) != APS_JSON_OBJECT)
        ev->usage.ptr = NULL, ev->usage.len = 0; /* only an object is a usage */
    return 1;
}

static int adapt_params(aps_asm_reader *ad, aps_json_reader *r, aps_asm_event *ev, int tools)
{
    aps_slice key;
    int more, have_data = 0;
    if (aps_json_read_object(r, NULL) != APS_OK)
        return 0;
    while (aps_json_next_member(r, &key, &more, NULL) == APS_OK) {
        int ok = 1;
        if (!more)
            return have_data;
        if (key_is(key, "namespace", NULL)) {
            int more_el;
            ev->ns = ad->ns;
            ev->ns_len = 0;
            if (aps_json_read_array(r, NULL) != APS_OK)
                return 0;
            while ((ok = aps_json_next_element(r, &more_el, NULL) == APS_OK) && more_el) {
                if (ev->ns_len == APS_ASM_READER_MAX_NS ||
                    aps_json_read_string(r, &ad->ns[ev->ns_len++], NULL) != APS_OK)
                    return 0;
            }
        } else if (key_is(key, "node", NULL)) {
            ok = aps_json_read_string(r, &ev->node, NULL) == APS_OK;
        } else if (key_is(key, "data", NULL)) {
            ok = have_data = adapt_data(r, ev, tools);
        } else {
            ok = aps_json_skip(r, NULL) == APS_OK;
        }
        if (!ok)
            return 0;
    }
    return 0;
}

/* `params` kept whole because it came before `method`, read now that the method is known. */
static int adapt_params_text(aps_asm_reader *ad, aps_json_raw text, aps_asm_event *ev, int tools)
{
    aps_json_reader r;
    aps_json_reader_init(&r, text.ptr, text.len, &ad->arena, NULL);
    return adapt_params(ad, &r, ev, tools) && aps_json_reader_finish(&r, NULL) == APS_OK;
}

int aps_asm_event_from_json(aps_asm_reader *ad, const char *line, size_t len, uint64_t position,
                            aps_asm_event *ev)
{
    aps_json_reader r;
    aps_slice key, method = { NULL, 0 };
    aps_json_raw early_params = { NULL, 0 };
    int more, params_ok = -1;
    memset(ev, 0, sizeof *ev);
    ev->position = position;
    aps_arena_reset(&ad->arena);
    aps_json_reader_init(&r, line, len, &ad->arena, NULL);
    if (aps_json_read_object(&r, NULL) != APS_OK)
        return -1;
    while (aps_json_next_member(&r, &key, &more, NULL) == APS_OK) {
        if (!more) {
            if (aps_json_reader_finish(&r, NULL) != APS_OK)
                return -1;
            if (method.ptr == NULL)
                return -1;
            if (!key_is(method, "messages", NULL) && !key_is(method, "tools", NULL)) {
                memset(ev, 0, sizeof *ev);
                ev->position = position;
                return 0;
            }
            if (early_params.ptr != NULL)
                params_ok = adapt_params_text(ad, early_params, ev, key_is(method, "tools", NULL));
            if (params_ok != 1)
                return -1;
            return ev->kind == APS_ASM_OTHER ? 0 : 1;
        }
        if (key_is(key, "method", NULL)) {
            if (aps_json_read_string(&r, &method, NULL) != APS_OK)
                return -1;
        } else if (key_is(key, "params", NULL)) {
            /* `method` comes first in every trace line, but JSON members
             * have no order: params before it are kept whole (checked as
             * JSON) and read at the end, when the method is known. */
            if (method.ptr == NULL) {
                if (aps_json_read_raw(&r, &early_params, NULL) != APS_OK)
                    return -1;
                continue;
            }
            if (!key_is(method, "messages", NULL) && !key_is(method, "tools", NULL)) {
                if (aps_json_skip(&r, NULL) != APS_OK)
                    return -1;
                continue;
            }
            params_ok = adapt_params(ad, &r, ev, key_is(method, "tools", NULL));
            if (!params_ok)
                return -1;
        } else if (aps_json_skip(&r, NULL) != APS_OK) {
            return -1;
        }
    }
    return -1;
}

