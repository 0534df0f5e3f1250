/*
 * Links against the pair `cddlgen generate --embed-runtime` wrote for
 * cddl/protocol.cddl and nothing else: decodes one message, encodes it back
 * and checks that an invalid one is rejected. The pair spells the runtime
 * with its prefix in front (ap_aps_arena, AP_APS_OK), as docs/vendoring.md says.
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
    ap_aps_arena arena;
    ap_aps_error err = AP_APS_ERROR_INIT, err2 = AP_APS_ERROR_INIT;
    ap_aps_json_writer w;
    ap_message_t msg;
    int failed = 0;
    ap_aps_arena_init(&arena, NULL);
    ap_aps_json_writer_init(&w, NULL);
    if (ap_message_decode(event, strlen(event), &arena, &msg, &err) != AP_APS_OK) {
        printf("decode failed at %zu: %s: %s\n", err.offset, err.pointer, err.message);
        failed = 1;
    } else if (msg.kind != AP_MESSAGE_EVENT || msg.u.event.event_data.kind != AP_EVENT_DATA_MESSAGES_EVENT) {
        printf("decoded as the wrong kind\n");
        failed = 1;
    } else if (ap_message_encode(&msg, &w, &err) != AP_APS_OK || ap_aps_json_writer_finish(&w, &err) != AP_APS_OK) {
        printf("encode failed: %s\n", err.message);
        failed = 1;
    } else if (ap_aps_json_writer_len(&w) != strlen(event) || memcmp(ap_aps_json_writer_data(&w), event, strlen(event)) != 0) {
        printf("round trip differs: %.*s\n", (int)ap_aps_json_writer_len(&w), ap_aps_json_writer_data(&w));
        failed = 1;
    } else {
        printf("decoded and re-encoded: %.*s\n", (int)ap_aps_json_writer_len(&w), ap_aps_json_writer_data(&w));
    }
    ap_aps_arena_reset(&arena);
    if (ap_message_decode(not_a_message, strlen(not_a_message), &arena, &msg, &err2) == AP_APS_OK) {
        printf("an event without params was accepted\n");
        failed = 1;
    } else {
        printf("rejected as expected: %s: %s\n", err2.pointer, err2.message);
    }
    ap_aps_json_writer_deinit(&w);
    ap_aps_arena_deinit(&arena);
    return failed;
}
