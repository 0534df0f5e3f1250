/*
 * json_reader.c - fuzz target for the JSON reader and writer. Whatever
 * aps_json_validate accepts is walked with the pull reader and re-encoded
 * with the writer; the output must validate and be JSON-equal to the input.
 * Numbers also go through int64/uint64/double reads, each double must come
 * back from the writer unchanged.
 */
#include "aps/json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DEPTH 64

/* Aborts unless the writer holds the number `text` (by value); frees the writer. */
static void same_value(aps_slice text, aps_json_writer *w)
{
    aps_json_raw a, b;
    int eq = 0;
    a.ptr = text.ptr;
    a.len = text.len;
    b.ptr = aps_json_writer_data(w);
    b.len = aps_json_writer_len(w);
    if (aps_json_writer_finish(w, NULL) != APS_OK || aps_json_raw_equal(a, b, &eq) != APS_OK || !eq)
        abort();
    aps_json_writer_deinit(w);
}

static void check_number(aps_slice text)
{
    aps_arena a;
    aps_json_reader r;
    aps_json_writer w;
    int64_t i;
    uint64_t u;
    double d, back;
    aps_arena_init(&a, NULL);
    /* An integer that reads must print back as the same value. */
    aps_json_reader_init(&r, text.ptr, text.len, &a, NULL);
    if (aps_json_read_int64(&r, &i, NULL) == APS_OK) {
        aps_json_writer_init(&w, NULL);
        aps_json_write_int64(&w, i);
        same_value(text, &w);
    }
    aps_json_reader_init(&r, text.ptr, text.len, &a, NULL);
    if (aps_json_read_uint64(&r, &u, NULL) == APS_OK) {
        aps_json_writer_init(&w, NULL);
        aps_json_write_uint64(&w, u);
        same_value(text, &w);
    }
    aps_json_reader_init(&r, text.ptr, text.len, &a, NULL);
    if (aps_json_read_double(&r, &d, NULL) == APS_OK) {
        aps_json_writer_init(&w, NULL);
        aps_json_write_double(&w, d);
        if (aps_json_writer_finish(&w, NULL) != APS_OK)
            abort();
        aps_json_reader_init(&r, aps_json_writer_data(&w), aps_json_writer_len(&w), &a, NULL);
        if (aps_json_read_double(&r, &back, NULL) != APS_OK || back != d)
            abort();
        aps_json_writer_deinit(&w);
    }
    aps_arena_deinit(&a);
}

/* Re-encodes the text with reader calls only; returns 0 when it is too deep for this walk. */
static int reencode(const char *json, size_t len, aps_arena *a, aps_json_writer *w)
{
    aps_json_reader r;
    unsigned char is_obj[MAX_DEPTH + 1];
    size_t depth = 0;
    aps_json_reader_options opt = { MAX_DEPTH, 0 };
    aps_json_reader_init(&r, json, len, a, &opt);
    for (;;) {
        aps_slice s;
        int more = 1, b;
        /* Move to the next value, closing finished containers. */
        while (depth > 0) {
            if (is_obj[depth]) {
                if (aps_json_next_member(&r, &s, &more, NULL) != APS_OK)
                    return 0;
                if (more) {
                    aps_json_write_key(w, s.ptr, s.len);
                    break;
                }
                aps_json_write_object_end(w);
            } else {
                if (aps_json_next_element(&r, &more, NULL) != APS_OK)
                    return 0;
                if (more)
                    break;
                aps_json_write_array_end(w);
            }
            depth--;
        }
        if (depth == 0 && aps_json_writer_len(w) > 0)
            break;
        switch (aps_json_peek(&r)) {
        case APS_JSON_OBJECT:
            if (aps_json_read_object(&r, NULL) != APS_OK)
                return 0;
            aps_json_write_object_begin(w);
            is_obj[++depth] = 1;
            break;
        case APS_JSON_ARRAY:
            if (aps_json_read_array(&r, NULL) != APS_OK)
                return 0;
            aps_json_write_array_begin(w);
            is_obj[++depth] = 0;
            break;
        case APS_JSON_STRING:
            if (aps_json_read_string(&r, &s, NULL) != APS_OK)
                abort();
            aps_json_write_string(w, s.ptr, s.len);
            break;
        case APS_JSON_NUMBER: {
            aps_json_raw raw;
            if (aps_json_read_number(&r, &s, NULL) != APS_OK)
                abort();
            check_number(s);
            raw.ptr = s.ptr;
            raw.len = s.len;
            aps_json_write_raw(w, raw);
            break;
        }
        case APS_JSON_BOOL:
            if (aps_json_read_bool(&r, &b, NULL) != APS_OK)
                abort();
            aps_json_write_bool(w, b);
            break;
        case APS_JSON_NULL:
            if (aps_json_read_null(&r, NULL) != APS_OK)
                abort();
            aps_json_write_null(w);
            break;
        default:
            abort();
        }
        if (depth == 0)
            break;
    }
    if (aps_json_reader_finish(&r, NULL) != APS_OK)
        abort();
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *json = (const char *)data;
    aps_arena a;
    aps_json_writer w;
    aps_json_raw in, out;
    aps_error err = APS_ERROR_INIT;
    int eq = 0;
    aps_status st = aps_json_validate(json, size, NULL, &err);
    if (st != APS_OK) {
        if (err.code != st || err.offset > size)
            abort();
        return 0;
    }
    aps_arena_init(&a, NULL);
    aps_json_writer_init(&w, NULL);
    if (reencode(json, size, &a, &w)) {
        if (aps_json_writer_finish(&w, NULL) != APS_OK)
            abort();
        if (aps_json_validate(aps_json_writer_data(&w), aps_json_writer_len(&w), NULL, NULL) != APS_OK)
            abort();
        /* Compare without surrounding whitespace, as raw values are. */
        {
            aps_json_reader r;
            aps_json_reader_init(&r, json, size, &a, NULL);
            if (aps_json_read_raw(&r, &in, NULL) != APS_OK)
                abort();
        }
        out.ptr = aps_json_writer_data(&w);
        out.len = aps_json_writer_len(&w);
        st = aps_json_raw_equal(in, out, &eq);
        if (st == APS_OK && !eq)
            abort();
        if (st == APS_OK && (aps_json_raw_equal(out, in, &eq) != APS_OK || !eq))
            abort();
    }
    aps_json_writer_deinit(&w);
    aps_arena_deinit(&a);
    return 0;
}
