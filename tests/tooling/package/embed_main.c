/*
 * Links against the pair `cddlgen generate --embed-runtime` wrote for
 * cddl/protocol.cddl and nothing else: decodes one message, encodes it back
 * and checks that an invalid one is rejected.
 */
#include <stdio.h>
#include <string.h>

#include "ap.h"

static const char event[] =
    "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[],"
    "\"timestamp\":1777587970607,\"data\":{\"event\":\"message-finish\"}}}";
static const char not_a_message[] = "{\"type\":\"event\",\"method\":\"messages\"}";

int main(void)
{
    aps_arena arena;
    aps_error err = APS_ERROR_INIT, err2 = APS_ERROR_INIT;
    aps_json_writer w;
    ap_message_t msg;
    int failed = 0;
    aps_arena_init(&arena, NULL);
    aps_json_writer_init(&w, NULL);
    if (ap_message_decode(event, strlen(event), &arena, &msg, &err) != APS_OK) {
        printf("decode failed at %zu: %s: %s\n", err.offset, err.pointer, err.message);
        failed = 1;
    } else if (msg.kind != AP_MESSAGE_EVENT || msg.u.event.event_data.kind != AP_EVENT_DATA_MESSAGES_EVENT) {
        printf("decoded as the wrong kind\n");
        failed = 1;
    } else if (ap_message_encode(&msg, &w) != APS_OK || aps_json_writer_finish(&w, &err) != APS_OK) {
        printf("encode failed: %s\n", err.message);
        failed = 1;
    } else if (aps_json_writer_len(&w) != strlen(event) || memcmp(aps_json_writer_data(&w), event, strlen(event)) != 0) {
        printf("round trip differs: %.*s\n", (int)aps_json_writer_len(&w), aps_json_writer_data(&w));
        failed = 1;
    } else {
        printf("decoded and re-encoded: %.*s\n", (int)aps_json_writer_len(&w), aps_json_writer_data(&w));
    }
    aps_arena_reset(&arena);
    if (ap_message_decode(not_a_message, strlen(not_a_message), &arena, &msg, &err2) == APS_OK) {
        printf("an event without params was accepted\n");
        failed = 1;
    } else {
        printf("rejected as expected: %s: %s\n", err2.pointer, err2.message);
    }
    aps_json_writer_deinit(&w);
    aps_arena_deinit(&arena);
    return failed;
}
