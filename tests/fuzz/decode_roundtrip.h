/*
 * decode_roundtrip.h - the body of the generated-codec fuzz targets
 * (decode_message.c, decode_command.c), for the type they name with
 * RT_TYPE, RT_DESC (its descriptor), RT_DECODE, RT_ENCODE and RT_VALIDATE
 * before including it.
 *
 * The input is decoded in each of the six option sets (strict and tolerant,
 * each key spelling), by RT_DECODE and by aps_schema_decode on RT_DESC:
 * the two must give the same status and error, and equal values. Whenever
 * a decode succeeds: validation (strict when the decode was) must
 * succeed, encoding (snake_case for a snake_case decode, the schema's
 * spelling otherwise) must succeed, and decoding that encoding with the
 * same options must succeed and encode to the same bytes. That second
 * decode uses copy_strings on a heap copy of the encoding freed right
 * after it, so under ASan a value still borrowing from its input is a use
 * after free. The encoding in the schema's spelling, by the generated
 * encoder, must equal the table-driven encoder's, and the trusted one's.
 * Anything else aborts. The arena is reset for every decode; its chunks and
 * the writers' buffers are kept across inputs, as a server would keep them.
 */
#include "ap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_state {
    int ready;
    aps_arena arena;
    aps_json_writer first, second, tables;
    aps_type no_generated; /* RT_DESC without its generated encoder: the tables write */
} fuzz_state;

/* Encodes into `w` (reset first); aborts unless it succeeds. */
static void encode_or_abort(const RT_TYPE *v, aps_json_writer *w, aps_key_case kc)
{
    aps_encode_options eo;
    memset(&eo, 0, sizeof eo);
    eo.key_case = kc;
    aps_json_writer_reset(w);
    if (RT_ENCODE(v, w, &eo, NULL) != APS_OK || aps_json_writer_finish(w, NULL) != APS_OK)
        abort();
}

static bool same_text(const aps_json_writer *a, const aps_json_writer *b)
{
    return aps_json_writer_len(a) == aps_json_writer_len(b) &&
           memcmp(aps_json_writer_data(a), aps_json_writer_data(b), aps_json_writer_len(a)) == 0;
}

/* The generated encoder's text in s->first against the tables' and the trusted generated encoder's. */
static void same_as_tables(fuzz_state *s, const RT_TYPE *v)
{
    aps_encode_options eo;
    memset(&eo, 0, sizeof eo);
    aps_json_writer_reset(&s->tables);
    if (aps_schema_encode(&s->no_generated, v, &s->tables, &eo, NULL) != APS_OK || !same_text(&s->first, &s->tables))
        abort();
    eo.trusted = true;
    aps_json_writer_reset(&s->tables);
    if (RT_ENCODE(v, &s->tables, &eo, NULL) != APS_OK || !same_text(&s->first, &s->tables))
        abort();
}

static bool same_error(const aps_error *a, const aps_error *b)
{
    return a->code == b->code && a->offset == b->offset && strcmp(a->pointer, b->pointer) == 0 &&
           strcmp(a->message, b->message) == 0;
}

static void check(fuzz_state *s, const char *json, size_t len, bool strict, aps_key_case kc)
{
    RT_TYPE v1, v2;
    aps_decode_options o;
    aps_error e1, e2;
    char *copy;
    aps_status st;
    aps_key_case out_case = kc == APS_CASE_SNAKE ? APS_CASE_SNAKE : APS_CASE_SCHEMA;
    memset(&o, 0, sizeof o);
    o.key_case = kc;
    o.strict = strict;
    aps_arena_reset(&s->arena);
    /* The generated entry (its usual case inline) answers as the engine's
     * aps_schema_decode does, error and all. */
    st = aps_schema_decode(&RT_DESC, json, len, &s->arena, &v2, &o, &e2);
    if (RT_DECODE(json, len, &s->arena, &v1, &o, &e1) != st || !same_error(&e1, &e2))
        abort();
    if (st != APS_OK)
        return;
    if (RT_VALIDATE(&v1, strict, NULL) != APS_OK)
        abort();
    encode_or_abort(&v1, &s->first, out_case);
    encode_or_abort(&v2, &s->second, out_case);
    if (!same_text(&s->first, &s->second))
        abort();
    if (out_case == APS_CASE_SCHEMA)
        same_as_tables(s, &v1);
    if ((copy = (char *)malloc(aps_json_writer_len(&s->first) + 1)) == NULL)
        abort();
    memcpy(copy, aps_json_writer_data(&s->first), aps_json_writer_len(&s->first));
    o.copy_strings = true;
    st = RT_DECODE(copy, aps_json_writer_len(&s->first), &s->arena, &v2, &o, NULL);
    free(copy);
    if (st != APS_OK)
        abort();
    encode_or_abort(&v2, &s->second, out_case);
    if (!same_text(&s->first, &s->second))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_state s;
    static const aps_key_case cases[] = { APS_CASE_SCHEMA, APS_CASE_SNAKE, APS_CASE_EITHER };
    size_t i;
    if (!s.ready) {
        aps_arena_init(&s.arena, NULL);
        aps_json_writer_init(&s.first, NULL);
        aps_json_writer_init(&s.second, NULL);
        aps_json_writer_init(&s.tables, NULL);
        s.no_generated = RT_DESC;
        s.no_generated.write = NULL;
        s.ready = 1;
    }
    for (i = 0; i < 3; i++) {
        check(&s, (const char *)data, size, true, cases[i]);
        check(&s, (const char *)data, size, false, cases[i]);
    }
    return 0;
}
