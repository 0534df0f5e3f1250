/*
 * decode_fast.c - fuzz target for the decoder's fast paths (the generated
 * decoders of ap.c, the table-driven runtime/schema/schema_fast.c) against
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
 * json_fast.c, the fast path of `any` values and of aps_json_validate):
 * what it accepts the pull reader accepts, under every option set, and
 * aps_json_validate answers as the reader does.
 */
#include "ap.h"

#include "aps/json_impl.h"
#include "../../runtime/schema/schema_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_state {
    int ready;
    aps_arena fast_arena, exact_arena;
    aps_json_writer fast_out, exact_out;
    char *copy; /* the input, spoiled bit by bit for the validators */
    size_t copy_cap;
} fuzz_state;

typedef union any_value {
    ap_message_t message;
    ap_command_t command;
} any_value;

static void encode_or_abort(const aps_type *t, const any_value *v, aps_json_writer *w, aps_key_case kc)
{
    aps_encode_options eo;
    memset(&eo, 0, sizeof eo);
    eo.key_case = kc;
    aps_json_writer_reset(w);
    if (aps_schema_encode(t, v, w, &eo, NULL) != APS_OK || aps_json_writer_finish(w, NULL) != APS_OK)
        abort();
}

static void same_raw(aps_json_raw a, aps_json_raw b)
{
    if (a.ptr != b.ptr || a.len != b.len)
        abort();
}

/* A generated validator's "valid" must be the tables' too. */
static void check_valid(const aps_type *t, const any_value *v, bool strict)
{
    if (t->valid != NULL && t->valid(v, strict, 0) && aps_schema_priv_validate_tables(t, v, strict, NULL) != APS_OK)
        abort();
}

/*
 * Decodes a copy of the input, then spoils bytes of the copy (the strings
 * and `any` values of the decoded value point into it), checking the
 * validators agree at every step.
 */
static void check_validators(fuzz_state *s, const aps_type *t, const char *json, size_t len, bool strict,
                             const aps_decode_options *o)
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
    aps_arena_reset(&s->fast_arena);
    if (aps_schema_decode(t, s->copy, len, &s->fast_arena, &v, o, NULL) != APS_OK)
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

static void check(fuzz_state *s, const aps_type *t, const char *json, size_t len, bool strict, aps_key_case kc,
                  bool generated)
{
    any_value fast, exact;
    aps_decode_options o;
    aps_key_case out_case = kc == APS_CASE_SNAKE ? APS_CASE_SNAKE : APS_CASE_SCHEMA;
    memset(&o, 0, sizeof o);
    o.key_case = kc;
    o.strict = strict;
    aps_arena_reset(&s->fast_arena);
    aps_arena_reset(&s->exact_arena);
    if (!aps_schema_priv_decode_fast(t, json, len, &s->fast_arena, &fast, &o, generated))
        return;
    if (aps_schema_priv_decode_exact(t, json, len, &s->exact_arena, &exact, &o, NULL) != APS_OK)
        abort();
    if (aps_schema_validate(t, &fast, strict, NULL) != APS_OK)
        abort();
    encode_or_abort(t, &fast, &s->fast_out, out_case);
    encode_or_abort(t, &exact, &s->exact_out, out_case);
    if (aps_json_writer_len(&s->fast_out) != aps_json_writer_len(&s->exact_out) ||
        memcmp(aps_json_writer_data(&s->fast_out), aps_json_writer_data(&s->exact_out),
               aps_json_writer_len(&s->fast_out)) != 0)
        abort();
    /* Encodings leave out the raw text of known variants: it must be the same slice too. */
    if (t == &ap_message_type)
        same_raw(fast.message.raw, exact.message.raw);
    else
        same_raw(fast.command.command_data.raw, exact.command.command_data.raw);
}

/*
 * Every vector string scan of the skip (SSE2, NEON, AVX2, AVX-512BW: what this build
 * and CPU have) stops where the scalar one stops, or gives up with it.
 */
static void same_as_scalar(const char *json, const char *end, size_t max_depth, int dup)
{
    static const aps_json_isa isas[] = { APS_JSON_ISA_SSE2, APS_JSON_ISA_NEON, APS_JSON_ISA_AVX2, APS_JSON_ISA_AVX512 };
    const char *start = aps_scan_ws(json, end);
    const char *scalar = aps_json_impl_skip_with(APS_JSON_ISA_SCALAR, start, end, max_depth, dup, 0);
    const char *compact = aps_json_impl_skip_with(APS_JSON_ISA_SCALAR, json, end, max_depth, 0, 1);
    size_t i;
    for (i = 0; i < sizeof isas / sizeof *isas; i++) {
        if (aps_json_impl_skip_isa(isas[i]) != isas[i])
            continue;
        if (aps_json_impl_skip_with(isas[i], start, end, max_depth, dup, 0) != scalar ||
            aps_json_impl_skip_with(isas[i], json, end, max_depth, 0, 1) != compact)
            abort();
    }
}

static void check_validate(fuzz_state *s, const char *json, size_t len, const aps_json_reader_options *o)
{
    size_t max_depth = o->max_depth != 0 ? o->max_depth : APS_JSON_MAX_DEPTH_DEFAULT;
    const char *end = json + len, *p;
    aps_json_reader r;
    aps_status exact;
    aps_arena_reset(&s->exact_arena);
    aps_json_reader_init(&r, json, len, &s->exact_arena, o);
    exact = aps_json_skip(&r, NULL);
    if (exact == APS_OK)
        exact = aps_json_reader_finish(&r, NULL);
    if (aps_json_validate(json, len, o, NULL) != exact)
        abort();
    p = aps_json_impl_skip_fast(aps_scan_ws(json, end), end, max_depth, o->allow_duplicates);
    if (p != NULL && aps_scan_ws(p, end) == end && exact != APS_OK)
        abort();
    same_as_scalar(json, end, max_depth, o->allow_duplicates);
    /* The compact skip (the checked encoder's one pass over a raw value):
     * what it takes the exact reader takes, and compacting leaves as is. */
    if (!o->allow_duplicates && aps_json_impl_skip_compact(json, end, max_depth) == end && len > 0) {
        aps_json_raw raw;
        raw.ptr = json;
        raw.len = len;
        aps_json_writer_reset(&s->fast_out);
        if (exact != APS_OK || !aps_json_impl_put_raw(&s->fast_out, raw) ||
            aps_json_writer_len(&s->fast_out) != len || memcmp(aps_json_writer_data(&s->fast_out), json, len) != 0)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const aps_json_reader_options validate_options[] = { { 0, 0 }, { 0, 1 }, { 3, 0 } };
    static fuzz_state s;
    static const aps_key_case cases[] = { APS_CASE_SCHEMA, APS_CASE_SNAKE, APS_CASE_EITHER };
    size_t i;
    if (!s.ready) {
        aps_arena_init(&s.fast_arena, NULL);
        aps_arena_init(&s.exact_arena, NULL);
        aps_json_writer_init(&s.fast_out, NULL);
        aps_json_writer_init(&s.exact_out, NULL);
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
        aps_decode_options o;
        memset(&o, 0, sizeof o);
        o.key_case = cases[i];
        check_validators(&s, &ap_message_type, (const char *)data, size, true, &o);
        check_validators(&s, &ap_command_type, (const char *)data, size, false, &o);
    }
    return 0;
}
