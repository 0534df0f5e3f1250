/*
 * test_transport.c - protocol messages through SSE and WebSocket and back
 * (generated/ap_transport.h): every valid corpus message is written as an
 * SSE event and as a masked client text frame, read back with the runtime's
 * parsers, decoded, and must re-encode to the same bytes; the SSE fields
 * must carry the method and eventId (or seq); a tampered binding is caught.
 * Usage: framing-transport CORPUS_DIR
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test.h"
#include "ap_transport.h"

typedef struct got {
    aps_arena *arena;
    ap_message_t msg;
    int events;
    aps_status st;
    aps_error err;
    char type[64], id[64];
} got;

static aps_status on_sse(void *user, const aps_sse_event *ev)
{
    got *g = user;
    g->events++;
    snprintf(g->type, sizeof g->type, "%.*s", (int)ev->type_len, ev->type);
    snprintf(g->id, sizeof g->id, "%.*s", (int)ev->last_id_len, ev->last_id);
    g->st = ap_message_from_sse(ev, 1, g->arena, &g->msg, NULL, &g->err);
    return APS_OK;
}

static aps_status on_ws(void *user, const aps_ws_message *m)
{
    got *g = user;
    g->events++;
    g->st = ap_message_from_ws(m, g->arena, &g->msg, NULL, &g->err);
    return APS_OK;
}

/* Compact JSON of a decoded message, for comparing two decodings. */
static char *encoded(const ap_message_t *m, size_t *len)
{
    aps_json_writer w;
    char *copy = NULL;
    aps_json_writer_init(&w, NULL);
    if (ap_message_encode(m, &w, NULL) == APS_OK && (copy = malloc(aps_json_writer_len(&w) + 1)) != NULL) {
        memcpy(copy, aps_json_writer_data(&w), aps_json_writer_len(&w));
        *len = aps_json_writer_len(&w);
    }
    aps_json_writer_deinit(&w);
    return copy;
}

static void check_one(const char *name, const char *json, size_t len)
{
    aps_arena a, b;
    ap_message_t msg;
    aps_error err = APS_ERROR_INIT;
    aps_json_writer scratch;
    static char sse_buf[1 << 20];
    static uint8_t frame[1 << 20], storage[1 << 20];
    aps_sse_writer sw;
    aps_sse_parser sp;
    aps_ws_decoder wd;
    size_t flen = 0, l1 = 0, l2 = 0;
    char *e1, *e2;
    got g;
    static const uint8_t key[4] = { 0x37, 0xfa, 0x21, 0x3d };
    aps_arena_init(&a, NULL);
    aps_arena_init(&b, NULL);
    aps_json_writer_init(&scratch, NULL);
    if (ap_message_decode(json, len, &a, &msg, &err) != APS_OK)
        goto done; /* Commands live in this corpus too */
    e1 = encoded(&msg, &l1);

    /* SSE */
    aps_sse_writer_init_buffer(&sw, sse_buf, sizeof sse_buf);
    CHECK(ap_message_write_sse(&msg, &sw, &scratch, NULL, &err) == APS_OK);
    memset(&g, 0, sizeof g);
    g.arena = &b;
    aps_sse_parser_init(&sp, storage, sizeof storage, NULL, on_sse, NULL, &g);
    CHECK(aps_sse_parser_push(&sp, sse_buf, aps_sse_writer_length(&sw), NULL) == APS_OK);
    CHECK(aps_sse_parser_finish(&sp, NULL) == APS_OK);
    CHECK_INT(g.events, 1);
    CHECK_INT(g.st, APS_OK);
    if (g.st != APS_OK)
        fprintf(stderr, "%s: %s: %s\n", name, g.err.pointer, g.err.message);
    e2 = encoded(&g.msg, &l2);
    CHECK(e1 && e2 && l1 == l2 && memcmp(e1, e2, l1) == 0);
    free(e2);
    if (msg.kind == AP_MESSAGE_EVENT) {
        aps_slice m = ap_event_method(&msg.u.event);
        CHECK(strlen(g.type) == m.len && memcmp(g.type, m.ptr, m.len) == 0);
        if (msg.u.event.has_event_id)
            CHECK(strlen(g.id) == msg.u.event.event_id.len &&
                  memcmp(g.id, msg.u.event.event_id.ptr, msg.u.event.event_id.len) == 0);
    }

    /* WebSocket: a client's masked text frame, read by a server */
    CHECK(ap_message_write_ws(&msg, &scratch, frame, sizeof frame, &flen, key, NULL, &err) == APS_OK);
    memset(&g, 0, sizeof g);
    g.arena = &b;
    aps_arena_reset(&b);
    aps_ws_decoder_init(&wd, APS_WS_SERVER, storage, sizeof storage, on_ws, &g);
    CHECK(aps_ws_decoder_push(&wd, frame, flen, NULL) == APS_OK);
    CHECK_INT(g.events, 1);
    CHECK_INT(g.st, APS_OK);
    e2 = encoded(&g.msg, &l2);
    CHECK(e1 && e2 && l1 == l2 && memcmp(e1, e2, l1) == 0);
    free(e2);
    free(e1);
done:
    aps_json_writer_deinit(&scratch);
    aps_arena_deinit(&a);
    aps_arena_deinit(&b);
}

/* A stream whose event: and id: lines disagree with the message is caught. */
static void check_binding(void)
{
    static const char bad_type[] =
        "event: values\nid: 1\n"
        "data: {\"type\":\"event\",\"eventId\":\"1\",\"method\":\"tasks\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{}}}\n\n";
    static const char bad_id[] =
        "event: tasks\nid: 2\n"
        "data: {\"type\":\"event\",\"eventId\":\"1\",\"method\":\"tasks\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{}}}\n\n";
    static const char nul_id[] =
        "event: tasks\nid: 1\0x\n"
        "data: {\"type\":\"event\",\"eventId\":\"1\\u0000x\",\"method\":\"tasks\",\"params\":{\"namespace\":[],\"timestamp\":1,\"data\":{}}}\n\n";
    static uint8_t storage[4096];
    const char *streams[] = { bad_type, bad_id, nul_id };
    size_t lens[] = { sizeof bad_type - 1, sizeof bad_id - 1, sizeof nul_id - 1 };
    const char *pointers[] = { "/method", "/eventId", "/eventId" };
    int i;
    for (i = 0; i < 3; i++) {
        aps_arena a;
        aps_sse_parser sp;
        got g;
        aps_arena_init(&a, NULL);
        memset(&g, 0, sizeof g);
        g.arena = &a;
        aps_sse_parser_init(&sp, storage, sizeof storage, NULL, on_sse, NULL, &g);
        CHECK(aps_sse_parser_push(&sp, streams[i], lens[i], NULL) == APS_OK);
        CHECK_INT(g.events, 1);
        CHECK_INT(g.st, APS_E_STATE);
        CHECK_STR(g.err.pointer, pointers[i]);
        aps_arena_deinit(&a);
    }
}

int main(int argc, char **argv)
{
    DIR *dir;
    struct dirent *e;
    int files = 0;
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    dir = opendir(argv[1]);
    CHECK(dir != NULL);
    while (dir != NULL && (e = readdir(dir)) != NULL) {
        char path[4096], buf[1 << 16];
        FILE *f;
        size_t n;
        if (strstr(e->d_name, ".json") == NULL)
            continue;
        snprintf(path, sizeof path, "%s/%s", argv[1], e->d_name);
        if ((f = fopen(path, "rb")) == NULL)
            continue;
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        check_one(e->d_name, buf, n);
        files++;
    }
    if (dir != NULL)
        closedir(dir);
    CHECK(files > 100);
    check_binding();
    return test_report();
}
