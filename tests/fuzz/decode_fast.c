/*
 * decode_fast.c - fuzz target for the decoder's fast paths (the generated
 * decoders of ap.c, the table-driven runtime/src/schema_fast.c) against
 * the exact decoder, on the generated Message and Command types in every
 * option set.
 *
 * A fast path's one rule: what it accepts, the exact decoder accepts,
 * with the same value. So whenever the fast path decodes an input, the
 * exact decoder must decode it too, and both values must validate and
 * encode to the same bytes (in the spelling decoded), with the same raw
 * text of the outermost union. Anything else aborts.
 *
 * Both fast paths are held to it: the generated decoders of ap.c (with
 * the table-driven path under them) and the table-driven path alone.
 *
 * Generated validators have a rule of the same kind: when one says a value
 * is valid, the table-driven validator agrees. Each decoded value is
 * checked, then checked again after bytes of the input its strings and
 * `any` values point into are spoiled.
 *
 * The same rule holds for the validating skip under both (runtime/src/
 * json_fast.c, the fast path of `any` values and of apr_json_validate):
 * what it accepts the pull reader accepts, under every option set, and
 * apr_json_validate answers as the reader does.
 */
#include "ap.h"

#include "../../runtime/src/json_internal.h"
#include "../../runtime/src/schema_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_state {
    int ready;
    apr_arena fast_arena, exact_arena;
    apr_json_writer fast_out, exact_out;
    char *copy; /* the input, spoiled bit by bit for the validators */
    size_t copy_cap;
} fuzz_state;

typedef union any_value {
    ap_message_t message;
    ap_command_t command;
} any_value;

static void encode_or_abort(const apr_type *t, const any_value *v, apr_json_writer *w, apr_key_case kc)
{
    apr_encode_options eo;
    memset(&eo, 0, sizeof eo);
    eo.key_case = kc;
    apr_json_writer_reset(w);
    if (apr_schema_encode(t, v, w, &eo) != APR_OK || apr_json_writer_finish(w, NULL) != APR_OK)
        abort();
}

static void same_raw(apr_json_raw a, apr_json_raw b)
{
    if (a.ptr != b.ptr || a.len != b.len)
        abort();
}

/* A generated validator's "valid" must be the tables' too. */
static void check_valid(const apr_type *t, const any_value *v, bool strict)
{
    if (t->valid != NULL && t->valid(v, strict, 0) && apr_schema_priv_validate_tables(t, v, strict, NULL) != APR_OK)
        abort();
}

/*
 * Decodes a copy of the input, then spoils bytes of the copy (the strings
 * and `any` values of the decoded value point into it), checking the
 * validators agree at every step.
 */
static void check_validators(fuzz_state *s, const apr_type *t, const char *json, size_t len, bool strict,
                             const apr_decode_options *o)
{
    any_value v;
    size_t i, h = len;
    if (len == 0)
        return;
    if (len > s->copy_cap) {
        char *grown = (char *)realloc(s->copy, len);
        if (grown == NULL)
            return;
        s->copy = grown;
        s->copy_cap = len;
    }
    memcpy(s->copy, json, len);
    apr_arena_reset(&s->fast_arena);
    if (apr_schema_decode(t, s->copy, len, &s->fast_arena, &v, o, NULL) != APR_OK)
        return;
    check_valid(t, &v, strict);
    check_valid(t, &v, !strict);
    for (i = 0; i < 4; i++) {
        static const unsigned char spoil[] = { 0x80, 0xFF, 0xC3, '"' };
        h = h * 31u + (unsigned char)json[(h >> 3) % len];
        s->copy[h % len] = (char)spoil[i];
        check_valid(t, &v, strict);
    }
}

static void check(fuzz_state *s, const apr_type *t, const char *json, size_t len, bool strict, apr_key_case kc,
                  bool generated)
{
    any_value fast, exact;
    apr_decode_options o;
    apr_key_case out_case = kc == APR_CASE_SNAKE ? APR_CASE_SNAKE : APR_CASE_SCHEMA;
    memset(&o, 0, sizeof o);
    o.key_case = kc;
    o.strict = strict;
    apr_arena_reset(&s->fast_arena);
    apr_arena_reset(&s->exact_arena);
    if (!apr_schema_priv_decode_fast(t, json, len, &s->fast_arena, &fast, &o, generated))
        return;
    if (apr_schema_priv_decode_exact(t, json, len, &s->exact_arena, &exact, &o, NULL) != APR_OK)
        abort();
    if (apr_schema_validate(t, &fast, strict, NULL) != APR_OK)
        abort();
    encode_or_abort(t, &fast, &s->fast_out, out_case);
    encode_or_abort(t, &exact, &s->exact_out, out_case);
    if (apr_json_writer_len(&s->fast_out) != apr_json_writer_len(&s->exact_out) ||
        memcmp(apr_json_writer_data(&s->fast_out), apr_json_writer_data(&s->exact_out),
               apr_json_writer_len(&s->fast_out)) != 0)
        abort();
    /* Encodings leave out the raw text of known variants: it must be the same slice too. */
    if (t == &ap_message_type)
        same_raw(fast.message.raw, exact.message.raw);
    else
        same_raw(fast.command.command_data.raw, exact.command.command_data.raw);
}

static void check_validate(fuzz_state *s, const char *json, size_t len, const apr_json_reader_options *o)
{
    size_t max_depth = o->max_depth != 0 ? o->max_depth : APR_JSON_MAX_DEPTH_DEFAULT;
    const char *end = json + len, *p;
    apr_json_reader r;
    apr_status exact;
    apr_arena_reset(&s->exact_arena);
    apr_json_reader_init(&r, json, len, &s->exact_arena, o);
    exact = apr_json_skip(&r, NULL);
    if (exact == APR_OK)
        exact = apr_json_reader_finish(&r, NULL);
    if (apr_json_validate(json, len, o, NULL) != exact)
        abort();
    p = apr_json_priv_skip_fast(apr_fast_ws(json, end), end, max_depth, o->allow_duplicates);
    if (p != NULL && apr_fast_ws(p, end) == end && exact != APR_OK)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const apr_json_reader_options validate_options[] = { { 0, 0 }, { 0, 1 }, { 3, 0 } };
    static fuzz_state s;
    static const apr_key_case cases[] = { APR_CASE_SCHEMA, APR_CASE_SNAKE, APR_CASE_EITHER };
    size_t i;
    if (!s.ready) {
        apr_arena_init(&s.fast_arena, NULL);
        apr_arena_init(&s.exact_arena, NULL);
        apr_json_writer_init(&s.fast_out, NULL);
        apr_json_writer_init(&s.exact_out, NULL);
        s.ready = 1;
    }
    for (i = 0; i < sizeof validate_options / sizeof *validate_options; i++)
        check_validate(&s, (const char *)data, size, &validate_options[i]);
    for (i = 0; i < 6; i++) {
        bool generated = i < 3;
        check(&s, &ap_message_type, (const char *)data, size, true, cases[i % 3], generated);
        check(&s, &ap_message_type, (const char *)data, size, false, cases[i % 3], generated);
        check(&s, &ap_command_type, (const char *)data, size, true, cases[i % 3], generated);
        check(&s, &ap_command_type, (const char *)data, size, false, cases[i % 3], generated);
    }
    for (i = 0; i < 3; i++) {
        apr_decode_options o;
        memset(&o, 0, sizeof o);
        o.key_case = cases[i];
        check_validators(&s, &ap_message_type, (const char *)data, size, true, &o);
        check_validators(&s, &ap_command_type, (const char *)data, size, false, &o);
    }
    return 0;
}
