/*
 * cbor_copy.h - copies one CBOR item from a pull reader to a writer, for
 * the unit test and the fuzz target: every read call of aps/cbor.h on the
 * way, and the writer asked to reproduce the item's form.
 */
#ifndef CDDLGEN_CBOR_COPY_H
#define CDDLGEN_CBOR_COPY_H

#include "aps/cbor.h"

/*
 * Copies one item from r to w with the pull API, keeping what the writer
 * can express of its form (indefinite lengths, string chunks); every float
 * goes through aps_cbor_write_float (preferred).
 */
static aps_status cbor_copy_item(aps_cbor_reader *r, aps_cbor_writer *w, aps_error *err)
{
    aps_status st = APS_OK;
    const uint8_t *at = r->begin + aps_cbor_reader_offset(r);
    int more = 0;
    switch (aps_cbor_peek(r)) {
    case APS_CBOR_UINT:
    case APS_CBOR_NEGINT: {
        int neg;
        uint64_t v;
        if ((st = aps_cbor_read_integer(r, &neg, &v, err)))
            return st;
        if (neg)
            aps_cbor_write_negint(w, v);
        else
            aps_cbor_write_uint(w, v);
        return APS_OK;
    }
    case APS_CBOR_BYTES:
    case APS_CBOR_TEXT: {
        int text = aps_cbor_peek(r) == APS_CBOR_TEXT;
        if ((at[0] & 31) == 31) { /* chunks: each copied as a chunk */
            aps_slice s;
            const uint8_t *p = at + 1;
            if ((st = text ? aps_cbor_read_text(r, &s, err) : aps_cbor_read_bytes(r, &s, err)))
                return st;
            if (text)
                aps_cbor_write_text_begin(w);
            else
                aps_cbor_write_bytes_begin(w);
            while (*p != 0xff) {
                aps_cbor_reader cr;
                aps_slice chunk;
                aps_arena a;
                size_t used;
                aps_arena_init(&a, NULL);
                aps_cbor_reader_init(&cr, p, (size_t)(r->begin + aps_cbor_reader_offset(r) - p), &a, NULL);
                st = text ? aps_cbor_read_text(&cr, &chunk, err) : aps_cbor_read_bytes(&cr, &chunk, err);
                used = aps_cbor_reader_offset(&cr);
                if (!st) {
                    if (text)
                        aps_cbor_write_text(w, chunk.ptr, chunk.len);
                    else
                        aps_cbor_write_bytes(w, chunk.ptr, chunk.len);
                }
                aps_arena_deinit(&a);
                if (st)
                    return st;
                p += used;
            }
            aps_cbor_write_string_end(w);
        } else {
            aps_slice s;
            if ((st = text ? aps_cbor_read_text(r, &s, err) : aps_cbor_read_bytes(r, &s, err)))
                return st;
            if (text)
                aps_cbor_write_text(w, s.ptr, s.len);
            else
                aps_cbor_write_bytes(w, s.ptr, s.len);
        }
        return APS_OK;
    }
    case APS_CBOR_ARRAY: {
        uint64_t count;
        if ((st = aps_cbor_read_array(r, &count, err)))
            return st;
        aps_cbor_write_array_begin(w, count);
        while (!(st = aps_cbor_next_element(r, &more, err)) && more)
            if ((st = cbor_copy_item(r, w, err)))
                return st;
        aps_cbor_write_array_end(w);
        return st;
    }
    case APS_CBOR_MAP: {
        uint64_t count;
        aps_cbor_raw key;
        if ((st = aps_cbor_read_map(r, &count, err)))
            return st;
        aps_cbor_write_map_begin(w, count);
        for (;;) {
            size_t before = aps_cbor_reader_offset(r);
            if ((st = aps_cbor_next_entry(r, &key, &more, err)) || !more)
                break;
            /* the key as written (next_entry hands out its canonical form) */
            key.ptr = r->begin + before;
            key.len = aps_cbor_reader_offset(r) - before;
            aps_cbor_write_raw(w, key);
            if ((st = cbor_copy_item(r, w, err)))
                return st;
        }
        aps_cbor_write_map_end(w);
        return st;
    }
    case APS_CBOR_TAG: {
        uint64_t tag;
        if ((st = aps_cbor_read_tag(r, &tag, err)))
            return st;
        aps_cbor_write_tag(w, tag);
        return cbor_copy_item(r, w, err);
    }
    case APS_CBOR_BOOL: {
        int b;
        if (!(st = aps_cbor_read_bool(r, &b, err)))
            aps_cbor_write_bool(w, b);
        return st;
    }
    case APS_CBOR_NULL:
        if (!(st = aps_cbor_read_null(r, err)))
            aps_cbor_write_null(w);
        return st;
    case APS_CBOR_UNDEFINED:
        if (!(st = aps_cbor_read_undefined(r, err)))
            aps_cbor_write_undefined(w);
        return st;
    case APS_CBOR_SIMPLE: {
        uint8_t v;
        if (!(st = aps_cbor_read_simple(r, &v, err)))
            aps_cbor_write_simple(w, v);
        return st;
    }
    case APS_CBOR_FLOAT: {
        double d;
        if (!(st = aps_cbor_read_float(r, &d, NULL, err)))
            aps_cbor_write_float(w, d);
        return st;
    }
    default:
        return aps_cbor_skip(r, err); /* reports why nothing starts here */
    }
}

#endif
