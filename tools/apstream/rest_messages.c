/*
 * rest_messages.c - messages as the classic API shows them. A script's
 * `values` come from the protocol stream, where a message's content is a
 * list of content blocks (LangChain's output version "v1") and empty
 * members are left out. The reference server's classic routes (state,
 * runs.stream values and updates, runs.wait) show the same messages as
 * LangChain serializes them: text content as one string, tool calls only
 * in `tool_calls`, and `additional_kwargs`, `response_metadata` (and, on
 * an AI message, `tool_calls` and `invalid_tool_calls`) always there. UIs
 * built on useStream read that form, so serve writes it (docs/rest.md,
 * "Messages"; the REST differential checks it against the reference).
 */
#include "rest_internal.h"

#include <stdlib.h>
#include <string.h>

/* Whether slice s spells the NUL-terminated name. */
static int is(aps_slice s, const char *name)
{
    return s.len == strlen(name) && memcmp(s.ptr, name, s.len) == 0;
}

/* A string member of raw object obj, or an empty slice. */
static aps_slice string_member(aps_json_raw obj, const char *name, aps_arena *a)
{
    aps_json_raw v;
    aps_json_reader r;
    aps_slice s = { "", 0 };
    if (aps_json_raw_member(obj, name, strlen(name), a, &v, NULL) == APS_OK && aps_json_raw_kind(v) == APS_JSON_STRING) {
        aps_json_raw_reader(&r, v, a);
        if (aps_json_read_string(&r, &s, NULL) != APS_OK)
            s.len = 0;
    }
    return s;
}

/*
 * The text of content blocks `blocks` joined into one malloc'd string
 * (*len bytes; NULL for none) when every block is text or a tool call
 * (which `tool_calls` already holds). Returns 0 when another kind of block
 * (a reasoning block, an image) needs the list kept, or out of memory.
 */
static int text_content(aps_json_raw blocks, aps_arena *a, char **out, size_t *len)
{
    aps_json_reader r;
    aps_json_raw block;
    char *text = NULL;
    size_t n = 0;
    int more = 0, ok = 1;
    aps_json_raw_reader(&r, blocks, a);
    if (aps_json_read_array(&r, NULL) != APS_OK)
        return 0;
    while (ok && aps_json_next_element(&r, &more, NULL) == APS_OK && more) {
        aps_slice type;
        if (aps_json_read_raw(&r, &block, NULL) != APS_OK || aps_json_raw_kind(block) != APS_JSON_OBJECT) {
            ok = 0;
            break;
        }
        type = string_member(block, "type", a);
        if (is(type, "text")) {
            aps_slice t = string_member(block, "text", a);
            char *grown = realloc(text, n + t.len + 1);
            if (grown == NULL) {
                ok = 0;
                break;
            }
            text = grown;
            memcpy(text + n, t.ptr, t.len);
            n += t.len;
        } else if (!is(type, "tool_call") && !is(type, "tool_call_chunk")) {
            ok = 0;
        }
    }
    if (!ok) {
        free(text);
        return 0;
    }
    *out = text;
    *len = n;
    return 1;
}

/* Object `obj` without its member `drop`. */
static void write_without(aps_json_raw obj, const char *drop, aps_json_writer *w, aps_arena *a)
{
    aps_json_reader r;
    aps_slice key;
    aps_json_raw v;
    int more = 0;
    aps_json_raw_reader(&r, obj, a);
    aps_json_write_object_begin(w);
    if (aps_json_read_object(&r, NULL) == APS_OK)
        while (aps_json_next_member(&r, &key, &more, NULL) == APS_OK && more && aps_json_read_raw(&r, &v, NULL) == APS_OK)
            if (!is(key, drop)) {
                aps_json_write_key(w, key.ptr, key.len);
                aps_json_write_raw(w, v);
            }
    aps_json_write_object_end(w);
}

/* Writes member `name` with the JSON `value` when `present` is 0. */
static void write_default(aps_json_writer *w, int present, const char *name, const char *value)
{
    if (present)
        return;
    aps_json_write_key(w, name, strlen(name));
    aps_json_write_raw(w, (aps_json_raw){ value, strlen(value) });
}

/* One message (anything else as it is) in the classic form. */
static void write_message(aps_json_raw m, aps_json_writer *w, aps_arena *a)
{
    aps_json_reader r;
    aps_slice key, type;
    aps_json_raw v, content;
    char *joined = NULL; /* the content as one string, when it converts */
    size_t joined_len = 0;
    int more = 0, text = 0, has_kwargs = 0, has_meta = 0, has_calls = 0, has_invalid = 0;
    if (aps_json_raw_kind(m) != APS_JSON_OBJECT) {
        aps_json_write_raw(w, m);
        return;
    }
    type = string_member(m, "type", a);
    /* whether the content converts decides what response_metadata says */
    if (aps_json_raw_member(m, "content", 7, a, &content, NULL) == APS_OK && aps_json_raw_kind(content) == APS_JSON_ARRAY)
        text = text_content(content, a, &joined, &joined_len);
    aps_json_raw_reader(&r, m, a);
    aps_json_write_object_begin(w);
    if (aps_json_read_object(&r, NULL) == APS_OK)
        while (aps_json_next_member(&r, &key, &more, NULL) == APS_OK && more && aps_json_read_raw(&r, &v, NULL) == APS_OK) {
            aps_json_write_key(w, key.ptr, key.len);
            if (is(key, "content") && text)
                aps_json_write_string(w, joined != NULL ? joined : "", joined_len);
            else if (is(key, "response_metadata") && text && aps_json_raw_kind(v) == APS_JSON_OBJECT)
                write_without(v, "output_version", w, a); /* the content is no longer v1 blocks */
            else
                aps_json_write_raw(w, v);
            has_kwargs |= is(key, "additional_kwargs");
            has_meta |= is(key, "response_metadata");
            has_calls |= is(key, "tool_calls");
            has_invalid |= is(key, "invalid_tool_calls");
        }
    write_default(w, has_kwargs, "additional_kwargs", "{}");
    write_default(w, has_meta, "response_metadata", "{}");
    if (is(type, "ai")) {
        write_default(w, has_calls, "tool_calls", "[]");
        write_default(w, has_invalid, "invalid_tool_calls", "[]");
    }
    aps_json_write_object_end(w);
    free(joined);
}

void rest_classic_values(aps_json_raw values, aps_json_writer *w)
{
    aps_arena a;
    aps_json_reader r;
    aps_slice key;
    aps_json_raw v, m;
    int more = 0, more_messages = 0;
    if (aps_json_raw_kind(values) != APS_JSON_OBJECT) {
        aps_json_write_raw(w, values);
        return;
    }
    aps_arena_init(&a, NULL);
    aps_json_raw_reader(&r, values, &a);
    aps_json_write_object_begin(w);
    if (aps_json_read_object(&r, NULL) == APS_OK)
        while (aps_json_next_member(&r, &key, &more, NULL) == APS_OK && more && aps_json_read_raw(&r, &v, NULL) == APS_OK) {
            aps_json_reader list;
            aps_json_write_key(w, key.ptr, key.len);
            if (!is(key, "messages") || aps_json_raw_kind(v) != APS_JSON_ARRAY) {
                aps_json_write_raw(w, v);
                continue;
            }
            aps_json_raw_reader(&list, v, &a);
            aps_json_write_array_begin(w);
            if (aps_json_read_array(&list, NULL) == APS_OK)
                while (aps_json_next_element(&list, &more_messages, NULL) == APS_OK && more_messages &&
                       aps_json_read_raw(&list, &m, NULL) == APS_OK)
                    write_message(m, w, &a);
            aps_json_write_array_end(w);
        }
    aps_json_write_object_end(w);
    aps_arena_deinit(&a);
}
