/*
 * Fuzz target: the schema engine on hostile input. Decodes the bytes as
 * Message and Command (fixture.h's hand-written descriptors) in every key
 * case, strict and tolerant; whatever decodes must validate, encode, decode
 * again and encode to the same bytes. What does not decode is listed by
 * aps_schema_check_all, whose first error must be the decoder's.
 */
#include "../schema/fixture.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct first_error {
    size_t n;
    aps_error first;
} first_error;

static void on_error(void *user, const aps_error *e)
{
    first_error *f = user;
    if (f->n++ == 0)
        f->first = *e;
    if (e->code == APS_OK || e->message[0] == '\0')
        abort();
}

static void check(const aps_type *t, const char *json, size_t len, aps_key_case kc, bool strict)
{
    union {
        Message m;
        Command c;
    } a, b;
    aps_decode_options o;
    aps_encode_options eo;
    aps_arena arena;
    aps_json_writer w1, w2;
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    memset(&o, 0, sizeof o);
    o.key_case = kc;
    o.strict = strict;
    memset(&eo, 0, sizeof eo);
    eo.key_case = kc == APS_CASE_SNAKE ? APS_CASE_SNAKE : APS_CASE_SCHEMA;
    aps_arena_init(&arena, NULL);
    st = aps_schema_decode(t, json, len, &arena, &a, &o, &err);
    if (st != APS_OK) {
        /* Every failure is located and worded. */
        first_error f;
        if (err.code != st || err.message[0] == '\0' || (err.offset > len && err.offset != SIZE_MAX))
            abort();
        /* Listing them all starts with the same one. */
        memset(&f, 0, sizeof f);
        if (aps_schema_check_all(t, json, len, &arena, &o, on_error, &f) != st || f.n == 0 ||
            f.first.code != err.code || strcmp(f.first.pointer, err.pointer) != 0 ||
            strcmp(f.first.message, err.message) != 0)
            abort();
        aps_arena_deinit(&arena);
        return;
    }
    if (aps_schema_validate(t, &a, strict, NULL) != APS_OK)
        abort();
    aps_json_writer_init(&w1, NULL);
    aps_json_writer_init(&w2, NULL);
    if (aps_schema_encode(t, &a, &w1, &eo, NULL) != APS_OK || aps_json_writer_finish(&w1, NULL) != APS_OK)
        abort();
    /* Re-read in the spelling written; unknown variants come back as they were. */
    o.key_case = eo.key_case;
    if (aps_schema_decode(t, aps_json_writer_data(&w1), aps_json_writer_len(&w1), &arena, &b, &o, NULL) != APS_OK)
        abort();
    if (aps_schema_encode(t, &b, &w2, &eo, NULL) != APS_OK || aps_json_writer_finish(&w2, NULL) != APS_OK)
        abort();
    if (aps_json_writer_len(&w1) != aps_json_writer_len(&w2) ||
        memcmp(aps_json_writer_data(&w1), aps_json_writer_data(&w2), aps_json_writer_len(&w1)) != 0)
        abort();
    aps_json_writer_deinit(&w1);
    aps_json_writer_deinit(&w2);
    aps_arena_deinit(&arena);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *json = (const char *)data;
    int i;
    for (i = 0; i < 6; i++) {
        aps_key_case kc = (aps_key_case)(i % 3);
        check(&T_Message, json, size, kc, i < 3);
        check(&T_Command, json, size, kc, i < 3);
    }
    /* The regex engine on the same bytes, as pattern and as subject. */
    if (size < 200) {
        char pat[201];
        memcpy(pat, data, size);
        pat[size] = '\0';
        (void)aps_regex_match(pat, "custom:abc", 10);
        (void)aps_regex_match("(a|b)*c{2,3}[^x-z]\\d+.", json, size);
    }
    return 0;
}
