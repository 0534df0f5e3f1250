/*
 * json_reader.c - fuzz target for the JSON reader and writer. Whatever
 * apr_json_validate accepts is walked with the pull reader and re-encoded
 * with the writer; the output must validate and be JSON-equal to the input.
 * Numbers also go through int64/uint64/double reads, each double must come
 * back from the writer unchanged.
 */
#include "apr_json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DEPTH 64

/* Aborts unless the writer holds the number `text` (by value); frees the writer. */
static void same_value(apr_slice text, apr_json_writer *w)
{
    apr_json_raw a, b;
    int eq = 0;
    a.ptr = text.ptr;
    a.len = text.len;
    b.ptr = apr_json_writer_data(w);
    b.len = apr_json_writer_len(w);
    if (apr_json_writer_finish(w, NULL) != APR_OK || apr_json_raw_equal(a, b, &eq) != APR_OK || !eq)
        abort();
    apr_json_writer_deinit(w);
}

static void check_number(apr_slice text)
{
    apr_arena a;
    apr_json_reader r;
    apr_json_writer w;
    int64_t i;
    uint64_t u;
    double d, back;
    apr_arena_init(&a, NULL);
    /* An integer that reads must print back as the same value. */
    apr_json_reader_init(&r, text.ptr, text.len, &a, NULL);
    if (apr_json_read_int64(&r, &i, NULL) == APR_OK) {
        apr_json_writer_init(&w, NULL);
        apr_json_write_int64(&w, i);
        same_value(text, &w);
    }
    apr_json_reader_init(&r, text.ptr, text.len, &a, NULL);
    if (apr_json_read_uint64(&r, &u, NULL) == APR_OK) {
        apr_json_writer_init(&w, NULL);
        apr_json_write_uint64(&w, u);
        same_value(text, &w);
    }
    apr_json_reader_init(&r, text.ptr, text.len, &a, NULL);
    if (apr_json_read_double(&r, &d, NULL) == APR_OK) {
        apr_json_writer_init(&w, NULL);
        apr_json_write_double(&w, d);
        if (apr_json_writer_finish(&w, NULL) != APR_OK)
            abort();
        apr_json_reader_init(&r, apr_json_writer_data(&w), apr_json_writer_len(&w), &a, NULL);
        if (apr_json_read_double(&r, &back, NULL) != APR_OK || back != d)
            abort();
        apr_json_writer_deinit(&w);
    }
    apr_arena_deinit(&a);
}

/* Re-encodes the text with reader calls only; returns 0 when it is too deep for this walk. */
static int reencode(const char *json, size_t len, apr_arena *a, apr_json_writer *w)
{
    apr_json_reader r;
    unsigned char is_obj[MAX_DEPTH + 1];
    size_t depth = 0;
    apr_json_reader_options opt = { MAX_DEPTH, 0 };
    apr_json_reader_init(&r, json, len, a, &opt);
    for (;;) {
        apr_slice s;
        int more = 1, b;
        /* Move to the next value, closing finished containers. */
        while (depth > 0) {
            if (is_obj[depth]) {
                if (apr_json_next_member(&r, &s, &more, NULL) != APR_OK)
                    return 0;
                if (more) {
                    apr_json_write_key(w, s.ptr, s.len);
                    break;
                }
                apr_json_write_object_end(w);
            } else {
                if (apr_json_next_element(&r, &more, NULL) != APR_OK)
                    return 0;
                if (more)
                    break;
                apr_json_write_array_end(w);
            }
            depth--;
        }
        if (depth == 0 && apr_json_writer_len(w) > 0)
            break;
        switch (apr_json_peek(&r)) {
        case APR_JSON_OBJECT:
            if (apr_json_read_object(&r, NULL) != APR_OK)
                return 0;
            apr_json_write_object_begin(w);
            is_obj[++depth] = 1;
            break;
        case APR_JSON_ARRAY:
            if (apr_json_read_array(&r, NULL) != APR_OK)
                return 0;
            apr_json_write_array_begin(w);
            is_obj[++depth] = 0;
            break;
        case APR_JSON_STRING:
            if (apr_json_read_string(&r, &s, NULL) != APR_OK)
                abort();
            apr_json_write_string(w, s.ptr, s.len);
            break;
        case APR_JSON_NUMBER: {
            apr_json_raw raw;
            if (apr_json_read_number(&r, &s, NULL) != APR_OK)
                abort();
            check_number(s);
            raw.ptr = s.ptr;
            raw.len = s.len;
            apr_json_write_raw(w, raw);
            break;
        }
        case APR_JSON_BOOL:
            if (apr_json_read_bool(&r, &b, NULL) != APR_OK)
                abort();
            apr_json_write_bool(w, b);
            break;
        case APR_JSON_NULL:
            if (apr_json_read_null(&r, NULL) != APR_OK)
                abort();
            apr_json_write_null(w);
            break;
        default:
            abort();
        }
        if (depth == 0)
            break;
    }
    if (apr_json_reader_finish(&r, NULL) != APR_OK)
        abort();
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *json = (const char *)data;
    apr_arena a;
    apr_json_writer w;
    apr_json_raw in, out;
    apr_error err = APR_ERROR_INIT;
    int eq = 0;
    apr_status st = apr_json_validate(json, size, NULL, &err);
    if (st != APR_OK) {
        if (err.code != st || err.offset > size)
            abort();
        return 0;
    }
    apr_arena_init(&a, NULL);
    apr_json_writer_init(&w, NULL);
    if (reencode(json, size, &a, &w)) {
        if (apr_json_writer_finish(&w, NULL) != APR_OK)
            abort();
        if (apr_json_validate(apr_json_writer_data(&w), apr_json_writer_len(&w), NULL, NULL) != APR_OK)
            abort();
        /* Compare without surrounding whitespace, as raw values are. */
        {
            apr_json_reader r;
            apr_json_reader_init(&r, json, size, &a, NULL);
            if (apr_json_read_raw(&r, &in, NULL) != APR_OK)
                abort();
        }
        out.ptr = apr_json_writer_data(&w);
        out.len = apr_json_writer_len(&w);
        st = apr_json_raw_equal(in, out, &eq);
        if (st == APR_OK && !eq)
            abort();
        if (st == APR_OK && (apr_json_raw_equal(out, in, &eq) != APR_OK || !eq))
            abort();
    }
    apr_json_writer_deinit(&w);
    apr_arena_deinit(&a);
    return 0;
}
