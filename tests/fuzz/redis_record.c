/*
 * redis_record.c - fuzz target for what the Redis replay store reads from
 * outside (runtime/protocol/redis/replay_redis_codec.c). The first byte
 * picks: even, the rest is a redis:// URL; odd, the rest is an event record
 * as read back from a stream entry. A URL that parses is written out again
 * and must parse to the same address; a record that decodes must point
 * inside the input and encode back to exactly the input bytes (the decoder
 * accepts the canonical form only).
 */
#include "aps/replay_redis.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void url(const char *p, size_t n)
{
    aps_replay_redis_url u, again;
    char text[400];
    if (aps_replay_redis_parse_url(p, n, &u, NULL) != APS_OK)
        return;
    if (u.host[0] == '\0' || u.port < 1 || u.port > 65535 || u.db < 0 || u.db > 65535)
        abort();
    snprintf(text, sizeof text, strchr(u.host, ':') ? "redis://[%s]:%d/%d" : "redis://%s:%d/%d",
             u.host, u.port, u.db);
    if (aps_replay_redis_parse_url(text, strlen(text), &again, NULL) != APS_OK ||
        strcmp(u.host, again.host) != 0 || u.port != again.port || u.db != again.db)
        abort();
}

static int inside(const void *ptr, size_t len, const uint8_t *p, size_t n)
{
    const uint8_t *q = (const uint8_t *)ptr;
    return len == 0 || (q >= p && q <= p + n && len <= (size_t)(p + n - q));
}

static void record(const uint8_t *p, size_t n)
{
    aps_replay_event ev;
    uint32_t ends[64];
    aps_slice segs[64];
    aps_replay_meta m;
    uint8_t *back;
    size_t i, size;
    aps_error err = APS_ERROR_INIT;
    memset(&ev, 0, sizeof ev);
    if (aps_replay_redis_record_decode(p, n, &ev, ends, 64, &err) != APS_OK) {
        if (err.message[0] == '\0')
            abort(); /* every rejection says why */
        return;
    }
    if (!inside(ev.bytes, ev.len, p, n) || !inside(ev.custom_name.ptr, ev.custom_name.len, p, n) ||
        !inside(ev.event_id.ptr, ev.event_id.len, p, n) || ev.ns.count > 64 ||
        (ev.ns.count > 0 && !inside(ev.ns.bytes, ev.ns.ends[ev.ns.count - 1], p, n)))
        abort();
    memset(&m, 0, sizeof m);
    m.channel = ev.channel;
    m.custom_name = ev.custom_name;
    m.event_id = ev.event_id;
    for (i = 0; i < ev.ns.count; i++) {
        uint32_t start = i > 0 ? ev.ns.ends[i - 1] : 0;
        segs[i].ptr = ev.ns.bytes + start;
        segs[i].len = ev.ns.ends[i] - start;
    }
    m.ns.items = segs;
    m.ns.count = ev.ns.count;
    size = aps_replay_redis_record_size(&m, ev.len);
    if (size != n)
        abort();
    back = (uint8_t *)malloc(size);
    if (back == NULL)
        return;
    aps_replay_redis_record_encode(back, ev.bytes, ev.len, &m);
    if (memcmp(back, p, n) != 0)
        abort();
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] % 2 == 0)
        url((const char *)data + 1, size - 1);
    else
        record(data + 1, size - 1);
    return 0;
}
