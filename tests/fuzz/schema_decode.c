/*
 * Fuzz target: the schema engine on hostile input. Decodes the bytes as
 * Message and Command (fixture.h's hand-written descriptors) in every key
 * case, strict and tolerant; whatever decodes must validate, encode, decode
 * again and encode to the same bytes.
 */
#include "../schema/fixture.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const apr_type *t, const char *json, size_t len, apr_key_case kc, bool strict)
{
    union {
        Message m;
        Command c;
    } a, b;
    apr_decode_options o;
    apr_encode_options eo;
    apr_arena arena;
    apr_json_writer w1, w2;
    apr_error err = APR_ERROR_INIT;
    apr_status st;
    memset(&o, 0, sizeof o);
    o.key_case = kc;
    o.strict = strict;
    eo.key_case = kc == APR_CASE_SNAKE ? APR_CASE_SNAKE : APR_CASE_SCHEMA;
    apr_arena_init(&arena, NULL);
    st = apr_schema_decode(t, json, len, &arena, &a, &o, &err);
    if (st != APR_OK) {
        /* Every failure is located and worded. */
        if (err.code != st || err.message[0] == '\0' || (err.offset > len && err.offset != SIZE_MAX))
            abort();
        apr_arena_deinit(&arena);
        return;
    }
    if (apr_schema_validate(t, &a, strict, NULL) != APR_OK)
        abort();
    apr_json_writer_init(&w1, NULL);
    apr_json_writer_init(&w2, NULL);
    if (apr_schema_encode(t, &a, &w1, &eo) != APR_OK || apr_json_writer_finish(&w1, NULL) != APR_OK)
        abort();
    /* Re-read in the spelling written; unknown variants come back as they were. */
    o.key_case = eo.key_case;
    if (apr_schema_decode(t, apr_json_writer_data(&w1), apr_json_writer_len(&w1), &arena, &b, &o, NULL) != APR_OK)
        abort();
    if (apr_schema_encode(t, &b, &w2, &eo) != APR_OK || apr_json_writer_finish(&w2, NULL) != APR_OK)
        abort();
    if (apr_json_writer_len(&w1) != apr_json_writer_len(&w2) ||
        memcmp(apr_json_writer_data(&w1), apr_json_writer_data(&w2), apr_json_writer_len(&w1)) != 0)
        abort();
    apr_json_writer_deinit(&w1);
    apr_json_writer_deinit(&w2);
    apr_arena_deinit(&arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *json = (const char *)data;
    int i;
    for (i = 0; i < 6; i++) {
        apr_key_case kc = (apr_key_case)(i % 3);
        check(&T_Message, json, size, kc, i < 3);
        check(&T_Command, json, size, kc, i < 3);
    }
    /* The regex engine on the same bytes, as pattern and as subject. */
    if (size < 200) {
        char pat[201];
        memcpy(pat, data, size);
        pat[size] = '\0';
        (void)apr_regex_match(pat, "custom:abc", 10);
        (void)apr_regex_match("(a|b)*c{2,3}[^x-z]\\d+.", json, size);
    }
    return 0;
}
