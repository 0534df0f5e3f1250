/*
 * decode_cbor.c - fuzz target for the schema engine's CBOR codec on the
 * protocol's Message (aps_schema_decode_cbor / _encode_cbor). The first
 * byte picks the options (strict, the key spelling); the rest is the
 * CBOR. An error must lie inside the input. Whenever the decode succeeds:
 * the value validates, encodes to CBOR and to JSON; the CBOR decodes again
 * (from a heap copy freed right after, with copy_strings: under ASan a
 * value still borrowing its input is a use after free) to a value whose
 * JSON is the same value (numbers by exact decimal value: a decimal
 * fraction written with trailing zeros comes back normalized); and the
 * JSON decodes to a value whose CBOR is the same, byte for byte.
 */
#include "ap.h"
#include "aps/cbor.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Encodings in the spelling the value was read in (snake_case, or the schema's), so that reading them back
   with the same options finds the same members: an unknown member stays unknown. */
static void cbor_of(const ap_message_t *m, aps_cbor_writer *w, const aps_encode_options *eo)
{
    aps_cbor_writer_reset(w);
    if (aps_schema_encode_cbor(&ap_message_type, m, w, eo, NULL) != APS_OK || aps_cbor_writer_finish(w, NULL) != APS_OK)
        abort();
}

static void json_of(const ap_message_t *m, aps_json_writer *w, const aps_encode_options *eo)
{
    aps_json_writer_reset(w);
    if (ap_message_encode_opts(m, w, eo, NULL) != APS_OK || aps_json_writer_finish(w, NULL) != APS_OK)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    static aps_arena arena;
    static aps_cbor_writer c1, c2;
    static aps_json_writer j1, j2;
    static const aps_key_case cases[] = { APS_CASE_EITHER, APS_CASE_SCHEMA, APS_CASE_SNAKE, APS_CASE_EITHER };
    aps_decode_options o;
    aps_encode_options eo;
    aps_error err = APS_ERROR_INIT;
    ap_message_t m, back;
    aps_json_raw a, b;
    int equal = 0;
    uint8_t *copy;
    if (!ready) {
        aps_arena_init(&arena, NULL);
        aps_cbor_writer_init(&c1, NULL);
        aps_cbor_writer_init(&c2, NULL);
        aps_json_writer_init(&j1, NULL);
        aps_json_writer_init(&j2, NULL);
        ready = 1;
    }
    if (size < 1)
        return 0;
    memset(&o, 0, sizeof o);
    o.strict = (data[0] & 1) != 0;
    o.key_case = cases[(data[0] >> 1) & 3];
    memset(&eo, 0, sizeof eo);
    eo.key_case = o.key_case == APS_CASE_SNAKE ? APS_CASE_SNAKE : APS_CASE_SCHEMA;
    data++;
    size--;
    aps_arena_reset(&arena);
    if (aps_schema_decode_cbor(&ap_message_type, data, size, &arena, &m, &o, &err) != APS_OK) {
        if (err.code == APS_OK || (err.offset != SIZE_MAX && err.offset > size))
            abort();
        return 0;
    }
    if (ap_message_validate(&m, o.strict, NULL) != APS_OK)
        abort();
    cbor_of(&m, &c1, &eo);
    json_of(&m, &j1, &eo);
    if ((copy = (uint8_t *)malloc(aps_cbor_writer_len(&c1))) == NULL)
        abort();
    memcpy(copy, aps_cbor_writer_data(&c1), aps_cbor_writer_len(&c1));
    o.copy_strings = true;
    if (aps_schema_decode_cbor(&ap_message_type, copy, aps_cbor_writer_len(&c1), &arena, &back, &o, NULL) != APS_OK)
        abort();
    free(copy);
    json_of(&back, &j2, &eo);
    /* equal as JSON values: a decimal fraction written with trailing zeros comes back normalized */
    a.ptr = aps_json_writer_data(&j1);
    a.len = aps_json_writer_len(&j1);
    b.ptr = aps_json_writer_data(&j2);
    b.len = aps_json_writer_len(&j2);
    if (aps_json_raw_equal(a, b, &equal) != APS_OK || !equal)
        abort();
    if (ap_message_decode_opts(aps_json_writer_data(&j1), aps_json_writer_len(&j1), &arena, &back, &o, NULL) != APS_OK)
        abort();
    cbor_of(&back, &c2, &eo);
    if (aps_cbor_writer_len(&c1) != aps_cbor_writer_len(&c2) ||
        memcmp(aps_cbor_writer_data(&c1), aps_cbor_writer_data(&c2), aps_cbor_writer_len(&c1)) != 0)
        abort();
    return 0;
}
