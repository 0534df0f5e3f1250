/*
 * fuzz_cddl.c - fuzz target decode_cbor_cddl: the schema engine's CBOR
 * codec on the CBOR-only kinds cddlgen --cbor generates (byte strings with
 * sizes and embedded CBOR, tags, integer keys, float widths, undefined and
 * byte-string literals), through the CBOR-first schemas of cddl_types.h.
 * The first byte picks the type; the rest is the CBOR. An error must lie
 * inside the input. Whenever the decode succeeds: the value validates, it
 * encodes to CBOR, that CBOR decodes again (from a heap copy freed right
 * after, with copy_strings) and encodes to the same bytes; and the JSON
 * encoder writes it or refuses it with APS_E_TYPE (no JSON form).
 */
#include "cddl_types.h"

#include "aps/cbor.h"
#include "aps/schema.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    static aps_arena arena;
    static aps_cbor_writer c1, c2;
    static aps_json_writer j;
    const aps_type *t;
    aps_decode_options o;
    aps_error err = APS_ERROR_INIT;
    void *v1, *v2;
    uint8_t *copy;
    aps_status st;
    if (!ready) {
        aps_arena_init(&arena, NULL);
        aps_cbor_writer_init(&c1, NULL);
        aps_cbor_writer_init(&c2, NULL);
        aps_json_writer_init(&j, NULL);
        ready = 1;
    }
    if (size < 1)
        return 0;
    t = types[data[0] % (sizeof types / sizeof types[0])].type;
    data++;
    size--;
    aps_arena_reset(&arena);
    if ((v1 = aps_arena_alloc(&arena, t->size + 1)) == NULL || (v2 = aps_arena_alloc(&arena, t->size + 1)) == NULL)
        abort();
    memset(&o, 0, sizeof o);
    if (aps_schema_decode_cbor(t, data, size, &arena, v1, &o, &err) != APS_OK) {
        if (err.code == APS_OK || (err.offset != SIZE_MAX && err.offset > size))
            abort();
        return 0;
    }
    if (aps_schema_validate(t, v1, false, NULL) != APS_OK)
        abort();
    aps_cbor_writer_reset(&c1);
    if (aps_schema_encode_cbor(t, v1, &c1, NULL, NULL) != APS_OK || aps_cbor_writer_finish(&c1, NULL) != APS_OK)
        abort();
    if ((copy = (uint8_t *)malloc(aps_cbor_writer_len(&c1) + 1)) == NULL)
        abort();
    memcpy(copy, aps_cbor_writer_data(&c1), aps_cbor_writer_len(&c1));
    o.copy_strings = true;
    st = aps_schema_decode_cbor(t, copy, aps_cbor_writer_len(&c1), &arena, v2, &o, NULL);
    free(copy);
    if (st != APS_OK)
        abort();
    aps_cbor_writer_reset(&c2);
    if (aps_schema_encode_cbor(t, v2, &c2, NULL, NULL) != APS_OK || aps_cbor_writer_finish(&c2, NULL) != APS_OK ||
        aps_cbor_writer_len(&c1) != aps_cbor_writer_len(&c2) ||
        memcmp(aps_cbor_writer_data(&c1), aps_cbor_writer_data(&c2), aps_cbor_writer_len(&c1)) != 0)
        abort();
    aps_json_writer_reset(&j);
    st = aps_schema_encode(t, v2, &j, NULL, NULL);
    if (st != APS_OK && st != APS_E_TYPE)
        abort();
    return 0;
}
