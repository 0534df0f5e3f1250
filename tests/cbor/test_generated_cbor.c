/*
 * test_generated_cbor.c - the functions `cddlgen generate --cbor` adds, on
 * the protocol (generated here with --size --cbor):
 *
 *   cbor-generated EVENTS.cborseq
 *
 * Every item of the sequence (the engine's CBOR of corpus messages)
 * decodes with ap_message_decode_cbor and encodes back, with
 * ap_message_encode_cbor, to the same bytes; a value built in C goes out
 * as CBOR and comes back; a bad item is refused with its location.
 */
#include "ap.h"

#include "../test.h"
#include "../test_util.h"

#include <stdlib.h>
#include <string.h>

static void sequence(const char *path)
{
    size_t len = 0, at = 0;
    char *in = test_read_file(path, &len);
    int items = 0;
    CHECK(in != NULL && len > 0);
    while (in != NULL && at < len) {
        aps_arena arena;
        aps_cbor_reader r;
        aps_cbor_reader_options o;
        aps_cbor_writer w;
        aps_error err = APS_ERROR_INIT;
        ap_message_t m;
        size_t n;
        aps_arena_init(&arena, NULL);
        memset(&o, 0, sizeof o);
        o.sequence = true;
        aps_cbor_reader_init(&r, in + at, len - at, &arena, &o);
        CHECK_INT(aps_cbor_skip(&r, &err), APS_OK);
        n = aps_cbor_reader_offset(&r);
        CHECK_INT(ap_message_decode_cbor(in + at, n, &arena, &m, NULL, &err), APS_OK);
        aps_cbor_writer_init(&w, NULL);
        CHECK_INT(ap_message_encode_cbor(&m, &w, NULL, &err), APS_OK);
        CHECK(aps_cbor_writer_len(&w) == n && memcmp(aps_cbor_writer_data(&w), in + at, n) == 0);
        aps_cbor_writer_deinit(&w);
        aps_arena_deinit(&arena);
        at += n > 0 ? n : len;
        items++;
    }
    CHECK(items >= 20);
    free(in);
}

static void built_in_c(void)
{
    aps_arena arena;
    aps_cbor_writer w;
    aps_error err = APS_ERROR_INIT;
    ap_command_t c = AP_COMMAND_INIT, back;
    /* {"id": "x", "method": "agent.getTree", "params": {}} */
    static const uint8_t bad[] = { 0xa3, 0x62, 0x69, 0x64, 0x61, 0x78, 0x66, 0x6d, 0x65, 0x74, 0x68, 0x6f, 0x64, 0x6d,
                                   0x61, 0x67, 0x65, 0x6e, 0x74, 0x2e, 0x67, 0x65, 0x74, 0x54, 0x72, 0x65, 0x65, 0x66,
                                   0x70, 0x61, 0x72, 0x61, 0x6d, 0x73, 0xa0 };
    aps_arena_init(&arena, NULL);
    c.id = 42;
    ap_command_as_subscription_unsubscribe(&c)->params.subscription_id = APS_LIT("sub-1");
    aps_cbor_writer_init(&w, NULL);
    CHECK_INT(ap_command_encode_cbor(&c, &w, NULL, &err), APS_OK);
    CHECK_INT(ap_command_decode_cbor(aps_cbor_writer_data(&w), aps_cbor_writer_len(&w), &arena, &back, NULL, &err),
              APS_OK);
    CHECK_INT(back.id, 42);
    CHECK_INT(back.command_data.kind, AP_COMMAND_DATA_SUBSCRIPTION_UNSUBSCRIBE);
    CHECK(back.command_data.u.subscription_unsubscribe.params.subscription_id.len == 5);
    CHECK(ap_command_decode_cbor(bad, sizeof bad, &arena, &back, NULL, &err) != APS_OK);
    CHECK_STR(err.pointer, "/id");
    CHECK_INT(err.offset, 4);
    aps_cbor_writer_deinit(&w);
    aps_arena_deinit(&arena);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cbor-generated EVENTS.cborseq\n");
        return 2;
    }
    sequence(argv[1]);
    built_in_c();
    return test_report();
}
