/*
 * Links two pairs that `cddlgen generate --embed-runtime` wrote for two
 * schemas (cddl/protocol.cddl as ap.h/ap.c, consumer/greeting.cddl as
 * hello.h/hello.c) and nothing else, both headers in this one file: each
 * pair carries the runtime under its own prefix (ap_aps_*, hello_aps_*), so
 * neither the declarations here nor the definitions at link time collide.
 * Decodes and re-encodes a value with each, and has each reject a bad one.
 */
#include <stdio.h>
#include <string.h>

#include "ap.h"
#include "hello.h"

static const char event[] =
    "{\"type\":\"event\",\"method\":\"messages\",\"params\":{\"namespace\":[],"
    "\"timestamp\":1777587970607,\"data\":{\"event\":\"message-finish\"}}}";
static const char greeting[] = "{\"name\":\"ada\",\"count\":2}";
static const char too_many[] = "{\"name\":\"ada\",\"count\":11}";

/* Did the writer end up holding exactly `want`? Says what it holds when not. */
static int same_text(const char *what, const char *got, size_t len, const char *want)
{
    if (len == strlen(want) && memcmp(got, want, len) == 0) {
        printf("%s: decoded and re-encoded: %.*s\n", what, (int)len, got);
        return 1;
    }
    printf("%s: round trip differs: %.*s\n", what, (int)len, got);
    return 0;
}

/* The protocol pair: one event through decode and encode. */
static int protocol_round_trip(void)
{
    ap_aps_arena arena;
    ap_aps_error err = AP_APS_ERROR_INIT;
    ap_aps_json_writer w;
    ap_message_t msg;
    int ok = 0;
    ap_aps_arena_init(&arena, NULL);
    ap_aps_json_writer_init(&w, NULL);
    if (ap_message_decode(event, strlen(event), &arena, &msg, &err) != AP_APS_OK)
        printf("ap: decode failed at %zu: %s: %s\n", err.offset, err.pointer, err.message);
    else if (msg.kind != AP_MESSAGE_EVENT)
        printf("ap: decoded as the wrong kind\n");
    else if (ap_message_encode(&msg, &w, &err) != AP_APS_OK || ap_aps_json_writer_finish(&w, &err) != AP_APS_OK)
        printf("ap: encode failed: %s\n", err.message);
    else
        ok = same_text("ap", ap_aps_json_writer_data(&w), ap_aps_json_writer_len(&w), event);
    ap_aps_json_writer_deinit(&w);
    ap_aps_arena_deinit(&arena);
    return ok;
}

/* The greeting pair: a greeting through decode and encode, and one over its bound rejected. */
static int greeting_round_trip(void)
{
    hello_aps_arena arena;
    hello_aps_error err = HELLO_APS_ERROR_INIT, err2 = HELLO_APS_ERROR_INIT;
    hello_aps_json_writer w;
    hello_greeting_t g;
    int ok = 0;
    hello_aps_arena_init(&arena, NULL);
    hello_aps_json_writer_init(&w, NULL);
    if (hello_greeting_decode(greeting, strlen(greeting), &arena, &g, &err) != HELLO_APS_OK)
        printf("hello: decode failed at %zu: %s: %s\n", err.offset, err.pointer, err.message);
    else if (hello_greeting_encode(&g, &w, &err) != HELLO_APS_OK || hello_aps_json_writer_finish(&w, &err) != HELLO_APS_OK)
        printf("hello: encode failed: %s\n", err.message);
    else
        ok = same_text("hello", hello_aps_json_writer_data(&w), hello_aps_json_writer_len(&w), greeting);
    hello_aps_arena_reset(&arena);
    if (hello_greeting_decode(too_many, strlen(too_many), &arena, &g, &err2) == HELLO_APS_OK) {
        printf("hello: count 11 was accepted\n");
        ok = 0;
    } else {
        printf("hello: rejected as expected: %s: %s\n", err2.pointer, err2.message);
    }
    hello_aps_json_writer_deinit(&w);
    hello_aps_arena_deinit(&arena);
    return ok;
}

int main(void)
{
    int ok = protocol_round_trip();
    ok &= greeting_round_trip();
    return ok ? 0 : 1;
}
