/*
 * test_codec.c - the redis:// URL parser and the record codec of the Redis
 * replay store on good and bad bytes: every rejection names the byte where
 * the input went wrong (no redis-server needed).
 */
#include "../test.h"

#include "aps/replay_redis.h"

static void url_ok(const char *u, const char *host, int port, int db)
{
    aps_replay_redis_url out;
    CHECK_INT(aps_replay_redis_parse_url(u, strlen(u), &out, NULL), APS_OK);
    CHECK_STR(out.host, host);
    CHECK_INT(out.port, port);
    CHECK_INT(out.db, db);
}

static void url_bad(const char *u, size_t offset, const char *says)
{
    aps_replay_redis_url out;
    aps_error err = APS_ERROR_INIT;
    CHECK_INT(aps_replay_redis_parse_url(u, strlen(u), &out, &err), APS_E_SYNTAX);
    CHECK_INT(err.offset, offset);
    CHECK(strstr(err.message, says) != NULL);
    if (strstr(err.message, says) == NULL)
        fprintf(stderr, "  %s: %s\n", u, err.message);
}

static void test_urls(void)
{
    url_ok("redis://127.0.0.1:6380/2", "127.0.0.1", 6380, 2);
    url_ok("redis://cache", "cache", 6379, 0);
    url_ok("redis://[::1]:7000", "::1", 7000, 0);
    url_ok("redis://h/15", "h", 6379, 15);
    url_bad("http://h", 0, "must start with redis://");
    url_bad("redis://", 8, "expected a host");
    url_bad("redis://h:0", 10, "port at byte 11");
    url_bad("redis://h:65536", 10, "port");
    url_bad("redis://h:12x", 12, "unexpected byte at 13");
    url_bad("redis://h/db", 10, "database at byte 11");
    url_bad("redis://user:pw@h", 13, "port at byte 14");
    url_bad("redis://[::1", 12, "IPv6");
    url_bad("redis://h:1/2/", 13, "unexpected byte at 14");
}

static void test_records(void)
{
    aps_replay_meta m;
    aps_slice segs[2] = { { "agent", 5 }, { "t:1", 3 } };
    uint8_t buf[128], bad[128];
    aps_replay_event ev;
    uint32_t ends[4];
    aps_error err = APS_ERROR_INIT;
    size_t n;
    memset(&m, 0, sizeof m);
    m.channel = APS_CHANNEL_CUSTOM;
    m.custom_name.ptr = "progress";
    m.custom_name.len = 8;
    m.event_id.ptr = "e1";
    m.event_id.len = 2;
    m.ns.items = segs;
    m.ns.count = 2;
    n = aps_replay_redis_record_size(&m, 4);
    CHECK_INT(n, 20 + 8 + 8 + 8 + 2 + 4);
    aps_replay_redis_record_encode(buf, "body", 4, &m);
    CHECK_INT(aps_replay_redis_record_decode(buf, n, &ev, ends, 4, NULL), APS_OK);
    CHECK_INT(ev.channel, APS_CHANNEL_CUSTOM);
    CHECK_INT(ev.ns.count, 2);
    CHECK_INT(ev.ns.ends[1], 8);
    CHECK(memcmp(ev.ns.bytes, "agentt:1", 8) == 0);
    CHECK(ev.custom_name.len == 8 && memcmp(ev.custom_name.ptr, "progress", 8) == 0);
    CHECK(ev.event_id.len == 2 && memcmp(ev.event_id.ptr, "e1", 2) == 0);
    CHECK(ev.len == 4 && memcmp(ev.bytes, "body", 4) == 0);
    /* Too few ends of room, a cut record, a wrong magic, ends out of order, an unknown channel. */
    CHECK_INT(aps_replay_redis_record_decode(buf, n, &ev, ends, 1, &err), APS_E_LIMIT);
    err.code = APS_OK;
    CHECK_INT(aps_replay_redis_record_decode(buf, 30, &ev, ends, 4, &err), APS_E_SYNTAX);
    CHECK(strstr(err.message, "exceed") != NULL);
    memcpy(bad, buf, n);
    bad[1] = '2';
    err.code = APS_OK;
    CHECK_INT(aps_replay_redis_record_decode(bad, n, &ev, ends, 4, &err), APS_E_SYNTAX);
    CHECK_INT(err.offset, 0);
    memcpy(bad, buf, n);
    bad[20] = 9; /* the first end beyond the 8 segment bytes */
    err.code = APS_OK;
    CHECK_INT(aps_replay_redis_record_decode(bad, n, &ev, ends, 4, &err), APS_E_SYNTAX);
    CHECK_INT(err.offset, 20);
    memcpy(bad, buf, n);
    bad[20] = 6;
    bad[24] = 5; /* the second end before the first */
    err.code = APS_OK;
    CHECK_INT(aps_replay_redis_record_decode(bad, n, &ev, ends, 4, &err), APS_E_SYNTAX);
    CHECK_INT(err.offset, 24);
    memcpy(bad, buf, n);
    bad[2] = 200;
    err.code = APS_OK;
    CHECK_INT(aps_replay_redis_record_decode(bad, n, &ev, ends, 4, &err), APS_E_SYNTAX);
    CHECK_INT(err.offset, 2);
    memcpy(bad, buf, n);
    bad[2] = APS_CHANNEL_MESSAGES; /* a custom name on a non-custom event */
    err.code = APS_OK;
    CHECK_INT(aps_replay_redis_record_decode(bad, n, &ev, ends, 4, &err), APS_E_SYNTAX);
    CHECK_INT(err.offset, 12);
}

int main(void)
{
    test_urls();
    test_records();
    return test_report();
}
