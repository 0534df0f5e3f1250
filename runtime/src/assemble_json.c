/*
 * assemble_json.c - one protocol event read straight into an assembler view
 * with the JSON reader, without the schema (see apr_asm_event_from_json).
 */
#include <string.h>

#include "apr_assemble.h"

void apr_asm_reader_init(apr_asm_reader *ad)
{
    memset(ad, 0, sizeof *ad);
    apr_arena_init(&ad->arena, NULL);
}

void apr_asm_reader_deinit(apr_asm_reader *ad)
{
    apr_arena_deinit(&ad->arena);
}

static int key_is(apr_slice k, const char *camel, const char *snake)
{
    size_t n = strlen(camel);
    if (k.len == n && memcmp(k.ptr, camel, n) == 0)
        return 1;
    n = snake ? strlen(snake) : 0;
    return snake && k.len == n && memcmp(k.ptr, snake, n) == 0;
}

static int adapt_string_or_null(apr_json_reader *r, apr_slice *out)
{
    if (apr_json_peek(r) == APR_JSON_NULL) {
        out->ptr = NULL;
        out->len = 0;
        return apr_json_read_null(r, NULL) == APR_OK;
    }
    return apr_json_read_string(r, out, NULL) == APR_OK;
}

static int adapt_delta(apr_json_reader *r, apr_asm_event *ev)
{
    apr_slice key, type = { NULL, 0 };
    int more;
    if (apr_json_read_object(r, NULL) != APR_OK)
        return 0;
    while (apr_json_next_member(r, &key, &more, NULL) == APR_OK) {
        int ok;
        if (!more) {
            if (type.ptr == NULL)
                return 0;
            if (key_is(type, "text-delta", NULL))
                ev->delta = APR_ASM_DELTA_TEXT;
            else if (key_is(type, "reasoning-delta", NULL))
                ev->delta = APR_ASM_DELTA_REASONING;
            else if (key_is(type, "data-delta", NULL))
                ev->delta = APR_ASM_DELTA_DATA;
            else if (key_is(type, "block-delta", NULL))
                ev->delta = APR_ASM_DELTA_BLOCK;
            else if (key_is(type, "tool-call-delta", NULL))
                ev->delta = APR_ASM_DELTA_TOOL_CALL;
            else
                ev->delta = APR_ASM_DELTA_UNKNOWN;
            return 1;
        }
        if (key_is(key, "type", NULL))
            ok = apr_json_read_string(r, &type, NULL) == APR_OK;
        else if (key_is(key, "text", NULL) || key_is(key, "reasoning", NULL) ||
                 key_is(key, "data", NULL) || key_is(key, "args", NULL))
            ok = adapt_string_or_null(r, &ev->text);
        else if (key_is(key, "fields", NULL))
            ok = apr_json_read_raw(r, &ev->fields, NULL) == APR_OK;
        else
            ok = apr_json_skip(r, NULL) == APR_OK;
        if (!ok)
            return 0;
    }
    return 0;
}

static int adapt_data(apr_json_reader *r, apr_asm_event *ev, int tools)
{
    apr_slice key, event = { NULL, 0 };
    int more;
    if (apr_json_read_object(r, NULL) != APR_OK)
        return 0;
    while (apr_json_next_member(r, &key, &more, NULL) == APR_OK) {
        int ok = 1;
        if (!more)
            break;
        if (key_is(key, "event", NULL))
            ok = apr_json_read_string(r, &event, NULL) == APR_OK;
        else if (key_is(key, "id", NULL))
            ok = apr_json_read_string(r, &ev->id, NULL) == APR_OK;
        else if (key_is(key, "role", NULL))
            ok = apr_json_read_string(r, &ev->role, NULL) == APR_OK;
        else if (key_is(key, "metadata", NULL))
            ok = apr_json_read_raw(r, &ev->metadata, NULL) == APR_OK;
        else if (key_is(key, "index", NULL))
            ok = apr_json_read_uint64(r, &ev->index, NULL) == APR_OK;
        else if (key_is(key, "content", NULL))
            ok = apr_json_read_raw(r, &ev->content, NULL) == APR_OK;
        else if (key_is(key, "delta", NULL))
            ok = tools ? apr_json_read_string(r, &ev->text, NULL) == APR_OK : adapt_delta(r, ev);
        else if (key_is(key, "usage", NULL))
            ok = apr_json_read_raw(r, &ev->usage, NULL) == APR_OK;
        else if (key_is(key, "message", NULL))
            ok = apr_json_read_string(r, &ev->message, NULL) == APR_OK;
        else if (key_is(key, "code", NULL))
            ok = apr_json_read_string(r, &ev->code, NULL) == APR_OK;
        else if (key_is(key, "toolCallId", "tool_call_id") && tools)
            ok = apr_json_read_string(r, &ev->tool_call_id, NULL) == APR_OK;
        else if (key_is(key, "toolName", "tool_name"))
            ok = apr_json_read_string(r, &ev->tool_name, NULL) == APR_OK;
        else if (key_is(key, "input", NULL) && tools)
            ok = apr_json_read_raw(r, &ev->input, NULL) == APR_OK;
        else if (key_is(key, "output", NULL))
            ok = apr_json_read_raw(r, &ev->output, NULL) == APR_OK;
        else
            ok = apr_json_skip(r, NULL) == APR_OK;
        if (!ok)
            return 0;
    }
    if (more || event.ptr == NULL)
        return 0;
    if (tools) {
        if (key_is(event, "tool-started", NULL))
            ev->kind = APR_ASM_TOOL_STARTED;
        else if (key_is(event, "tool-output-delta", NULL))
            ev->kind = APR_ASM_TOOL_OUTPUT_DELTA;
        else if (key_is(event, "tool-finished", NULL))
            ev->kind = APR_ASM_TOOL_FINISHED;
        else if (key_is(event, "tool-error", NULL))
            ev->kind = APR_ASM_TOOL_ERROR;
        if (ev->kind != APR_ASM_OTHER && ev->tool_call_id.ptr == NULL)
            return 0;
        return 1;
    }
    if (key_is(event, "message-start", NULL))
        ev->kind = APR_ASM_MESSAGE_START;
    else if (key_is(event, "content-block-start", NULL))
        ev->kind = APR_ASM_BLOCK_START;
    else if (key_is(event, "content-block-delta", NULL))
        ev->kind = APR_ASM_BLOCK_DELTA;
    else if (key_is(event, "content-block-finish", NULL))
        ev->kind = APR_ASM_BLOCK_FINISH;
    else if (key_is(event, "message-finish", NULL))
        ev->kind = APR_ASM_MESSAGE_FINISH;
    else if (key_is(event, "error", NULL))
        ev->kind = APR_ASM_MESSAGE_ERROR;
    return 1;
}

static int adapt_params(apr_asm_reader *ad, apr_json_reader *r, apr_asm_event *ev, int tools)
{
    apr_slice key;
    int more, have_data = 0;
    if (apr_json_read_object(r, NULL) != APR_OK)
        return 0;
    while (apr_json_next_member(r, &key, &more, NULL) == APR_OK) {
        int ok = 1;
        if (!more)
            return have_data;
        if (key_is(key, "namespace", NULL)) {
            int more_el;
            ev->ns = ad->ns;
            ev->ns_len = 0;
            if (apr_json_read_array(r, NULL) != APR_OK)
                return 0;
            while ((ok = apr_json_next_element(r, &more_el, NULL) == APR_OK) && more_el) {
                if (ev->ns_len == APR_ASM_READER_MAX_NS ||
                    apr_json_read_string(r, &ad->ns[ev->ns_len++], NULL) != APR_OK)
                    return 0;
            }
        } else if (key_is(key, "node", NULL)) {
            ok = apr_json_read_string(r, &ev->node, NULL) == APR_OK;
        } else if (key_is(key, "data", NULL)) {
            ok = have_data = adapt_data(r, ev, tools);
        } else {
            ok = apr_json_skip(r, NULL) == APR_OK;
        }
        if (!ok)
            return 0;
    }
    return 0;
}

int apr_asm_event_from_json(apr_asm_reader *ad, const char *line, size_t len, uint64_t position,
                            apr_asm_event *ev)
{
    apr_json_reader r;
    apr_slice key, method = { NULL, 0 };
    int more, params_ok = -1;
    memset(ev, 0, sizeof *ev);
    ev->position = position;
    apr_arena_reset(&ad->arena);
    apr_json_reader_init(&r, line, len, &ad->arena, NULL);
    if (apr_json_read_object(&r, NULL) != APR_OK)
        return -1;
    while (apr_json_next_member(&r, &key, &more, NULL) == APR_OK) {
        if (!more) {
            if (apr_json_reader_finish(&r, NULL) != APR_OK)
                return -1;
            if (method.ptr == NULL)
                return -1;
            if (!key_is(method, "messages", NULL) && !key_is(method, "tools", NULL)) {
                memset(ev, 0, sizeof *ev);
                ev->position = position;
                return 0;
            }
            if (params_ok != 1)
                return -1;
            return ev->kind == APR_ASM_OTHER ? 0 : 1;
        }
        if (key_is(key, "method", NULL)) {
            if (apr_json_read_string(&r, &method, NULL) != APR_OK)
                return -1;
        } else if (key_is(key, "params", NULL)) {
            /* `method` comes first in every trace line; without it, params are skipped. */
            if (method.ptr == NULL) {
                if (apr_json_skip(&r, NULL) != APR_OK)
                    return -1;
                params_ok = 0;
                continue;
            }
            if (!key_is(method, "messages", NULL) && !key_is(method, "tools", NULL)) {
                if (apr_json_skip(&r, NULL) != APR_OK)
                    return -1;
                continue;
            }
            params_ok = adapt_params(ad, &r, ev, key_is(method, "tools", NULL));
            if (!params_ok)
                return -1;
        } else if (apr_json_skip(&r, NULL) != APR_OK) {
            return -1;
        }
    }
    return -1;
}

