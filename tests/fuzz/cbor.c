/*
 * cbor.c - fuzz target for the CBOR reader, writer and diagnostic notation
 * (aps/cbor.h). The first byte picks the reader's options (deterministic,
 * duplicates allowed, a sequence); the rest is the input. Whatever
 * aps_cbor_validate accepts as one item is copied through the pull reader
 * into the writer (cbor_copy.h): the copy must be accepted too and print
 * the same diagnostic notation, and copying the copy must give the same
 * bytes. The notation of anything accepted must be printable.
 */
#include "aps/cbor.h"

#include "../cbor/cbor_copy.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Copies `in` into w; APS_OK or why not. */
static aps_status copy(const uint8_t *in, size_t n, const aps_cbor_reader_options *o, aps_arena *a,
                       aps_cbor_writer *w)
{
    aps_cbor_reader r;
    aps_status st;
    aps_cbor_reader_init(&r, in, n, a, o);
    if ((st = cbor_copy_item(&r, w, NULL)) || (st = aps_cbor_reader_finish(&r, NULL)))
        return st;
    return aps_cbor_writer_finish(w, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    aps_cbor_reader_options o;
    aps_arena arena;
    aps_slice diag, diag2;
    aps_cbor_writer w, w2;
    aps_error err = APS_ERROR_INIT;
    aps_status st;
    if (size < 1)
        return 0;
    memset(&o, 0, sizeof o);
    o.deterministic = (data[0] & 1) != 0;
    o.allow_duplicates = (data[0] & 2) != 0;
    o.sequence = (data[0] & 4) != 0;
    o.max_depth = 64; /* cbor_copy_item recurses */
    data++;
    size--;
    st = aps_cbor_validate(data, size, &o, &err);
    if ((st == APS_OK) != (err.code == APS_OK) || (st != APS_OK && err.offset > size))
        abort();
    aps_arena_init(&arena, NULL);
    if (st == APS_OK && !o.allow_duplicates) {
        /* duplicates are what the notation shows, not what it refuses */
        if (aps_cbor_diag(data, size, o.sequence, &arena, &diag, NULL) != APS_OK || strlen(diag.ptr) != diag.len)
            abort();
    }
    if (st == APS_OK && !o.sequence && !o.allow_duplicates) {
        aps_cbor_writer_init(&w, NULL);
        aps_cbor_writer_init(&w2, NULL);
        if (copy(data, size, &o, &arena, &w) != APS_OK)
            abort();
        if (aps_cbor_validate(aps_cbor_writer_data(&w), aps_cbor_writer_len(&w), NULL, NULL) != APS_OK)
            abort();
        if (aps_cbor_diag(aps_cbor_writer_data(&w), aps_cbor_writer_len(&w), false, &arena, &diag2, NULL) != APS_OK ||
            diag.len != diag2.len || memcmp(diag.ptr, diag2.ptr, diag.len) != 0)
            abort();
        if (copy(aps_cbor_writer_data(&w), aps_cbor_writer_len(&w), NULL, &arena, &w2) != APS_OK ||
            aps_cbor_writer_len(&w) != aps_cbor_writer_len(&w2) ||
            memcmp(aps_cbor_writer_data(&w), aps_cbor_writer_data(&w2), aps_cbor_writer_len(&w)) != 0)
            abort();
        aps_cbor_writer_deinit(&w);
        aps_cbor_writer_deinit(&w2);
    }
    aps_arena_deinit(&arena);
    return 0;
}
