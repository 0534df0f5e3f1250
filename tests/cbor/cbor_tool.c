/*
 * cbor_tool.c - a test driver for the Python differential (cbor2_diff.py):
 *
 *   cbor-tool copy   a CBOR sequence on standard input, each item copied
 *                    through our pull reader into our writer, to standard output
 *   cbor-tool diag   the sequence's diagnostic notation, one line
 *
 * Exits 1 with the located error on standard error when the input is refused.
 */
#include "aps/cbor.h"
#include "cbor_copy.h"

#include "../test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    size_t len = 0;
    char *in = test_read_file("/dev/stdin", &len);
    aps_arena arena;
    aps_error err = APS_ERROR_INIT;
    aps_cbor_reader_options o;
    aps_status st = APS_OK;
    int copy = argc == 2 && strcmp(argv[1], "copy") == 0;
    if (in == NULL || argc != 2 || (!copy && strcmp(argv[1], "diag") != 0)) {
        fprintf(stderr, "usage: cbor-tool copy|diag < CBOR-SEQUENCE\n");
        return 2;
    }
    memset(&o, 0, sizeof o);
    o.sequence = true;
    aps_arena_init(&arena, NULL);
    if (copy) {
        aps_cbor_reader r;
        aps_cbor_writer w;
        aps_cbor_reader_init(&r, in, len, &arena, &o);
        aps_cbor_writer_init(&w, NULL);
        while (!st && !aps_cbor_reader_at_end(&r)) {
            if (!(st = cbor_copy_item(&r, &w, &err)))
                st = aps_cbor_writer_finish(&w, &err);
            aps_cbor_writer_next(&w);
        }
        if (!st)
            st = aps_cbor_reader_finish(&r, &err);
        if (!st)
            fwrite(aps_cbor_writer_data(&w), 1, aps_cbor_writer_len(&w), stdout);
        aps_cbor_writer_deinit(&w);
    } else {
        aps_slice diag;
        st = aps_cbor_diag(in, len, true, &arena, &diag, &err);
        if (!st)
            printf("%s\n", diag.ptr);
    }
    if (st)
        fprintf(stderr, "cbor-tool: %s at byte %zu, path \"%s\": %s\n", aps_status_str(st), err.offset,
                err.pointer, err.message);
    aps_arena_deinit(&arena);
    free(in);
    return st ? 1 : 0;
}
