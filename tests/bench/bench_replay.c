/*
 * bench_replay.c - the replay buffer: append throughput of 200-byte events
 * (each with an eventId and a one-segment namespace, so the eventId index
 * and evictions are part of the cost), and a filtered replay of 100,000
 * buffered events by a filter that matches about 10% of them by channel and
 * namespace prefix.
 */
#include "bench.h"

#include "aps/replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EVENT_BYTES 200
#define ID_COUNT (1u << 20) /* distinct eventIds, far more than the ring holds */
#define REPLAY_EVENTS 100000u

static const char *const first_segments[] = { "agent_0", "agent_1", "agent_2", "agent_3",
                                              "agent_4" };

static int bench_append(const bench_config *cfg, const uint8_t *body, char (*ids)[16])
{
    size_t n = cfg->corpus_bytes / EVENT_BYTES, i;
    aps_replay_options o;
    aps_replay rb;
    aps_slice seg = { "agent:5f3c", 10 };
    aps_replay_meta m;
    double best = 1e30;
    int r;
    if (n < 100000)
        n = 100000;
    memset(&o, 0, sizeof o);
    o.max_events = 65536;
    o.max_bytes = 16u << 20;
    memset(&m, 0, sizeof m);
    m.channel = APS_CHANNEL_MESSAGES;
    m.ns.items = &seg;
    m.ns.count = 1;
    for (r = 0; r < cfg->repeat; r++) {
        double t0, t;
        if (aps_replay_init(&rb, &o, NULL) != APS_OK)
            return 1;
        t0 = bench_now();
        for (i = 0; i < n; i++) {
            m.event_id.ptr = ids[i & (ID_COUNT - 1)];
            m.event_id.len = 12;
            if (aps_replay_append(&rb, body, EVENT_BYTES, &m, NULL, NULL) != APS_OK) {
                aps_replay_deinit(&rb);
                return 1;
            }
        }
        t = bench_now() - t0;
        if (t < best)
            best = t;
        aps_replay_deinit(&rb);
    }
    printf("append: %zu events of %d bytes into a ring of 65536 events / 16 MiB: "
           "%.1f M events/s, %.0f MB/s of event bytes, %.1f ns/event\n",
           n, EVENT_BYTES, (double)n / best / 1e6, (double)n * EVENT_BYTES / best / 1e6,
           best / (double)n * 1e9);
    return 0;
}

typedef struct sink {
    size_t events, bytes;
} sink;

static int take(void *ctx, const aps_replay_event *ev)
{
    sink *s = (sink *)ctx;
    s->events++;
    s->bytes += ev->len + ev->bytes[0];
    return 0;
}

static int bench_filtered(const bench_config *cfg, const uint8_t *body, char (*ids)[16])
{
    aps_replay_options o;
    aps_replay rb;
    aps_filter f;
    aps_filter_spec spec;
    aps_slice ch = { "messages", 8 }, pre_seg = { "agent_3", 7 };
    aps_namespace pre = { &pre_seg, 1 };
    uint64_t rs = cfg->seed;
    double best = 1e30;
    size_t i, delivered = 0;
    int r;
    memset(&o, 0, sizeof o);
    o.max_events = REPLAY_EVENTS;
    o.max_bytes = 64u << 20;
    if (aps_replay_init(&rb, &o, NULL) != APS_OK)
        return 1;
    for (i = 0; i < REPLAY_EVENTS; i++) {
        /* Half the events on messages, the rest spread over other channels;
         * namespaces one to three segments deep under five roots: ~10% match. */
        aps_slice segs[3];
        aps_replay_meta m;
        uint64_t x = test_rand(&rs);
        memset(&m, 0, sizeof m);
        m.channel = (x & 1) ? APS_CHANNEL_MESSAGES : (aps_channel)((x >> 1) % 9);
        if (m.channel == APS_CHANNEL_MESSAGES && !(x & 1))
            m.channel = APS_CHANNEL_UPDATES;
        segs[0].ptr = first_segments[(x >> 8) % 5];
        segs[0].len = 7;
        segs[1].ptr = "model_request:db60c136";
        segs[1].len = 22;
        segs[2].ptr = "tools:dd864e2c";
        segs[2].len = 14;
        m.ns.items = segs;
        m.ns.count = 1 + (size_t)((x >> 16) % 3);
        m.event_id.ptr = ids[i];
        m.event_id.len = 12;
        if (aps_replay_append(&rb, body, EVENT_BYTES, &m, NULL, NULL) != APS_OK)
            return 1;
    }
    memset(&spec, 0, sizeof spec);
    spec.channels = &ch;
    spec.channel_count = 1;
    spec.namespaces = &pre;
    spec.namespace_count = 1;
    if (aps_filter_init(&f, &spec, NULL, NULL) != APS_OK)
        return 1;
    for (r = 0; r < cfg->repeat * 5; r++) {
        aps_replay_cursor cur;
        aps_replay_start start;
        sink s = { 0, 0 };
        size_t n;
        double t0, t;
        memset(&start, 0, sizeof start);
        start.from = APS_REPLAY_FROM_SEQ;
        t0 = bench_now();
        if (aps_replay_cursor_init(&cur, &rb, &f, &start) != APS_OK)
            return 1;
        do {
            if (aps_replay_read(&rb, &cur, 256, take, &s, &n, NULL) != APS_OK)
                return 1;
        } while (n > 0);
        t = bench_now() - t0;
        if (t < best)
            best = t;
        delivered = s.events;
    }
    printf("filtered replay: %u events scanned, %zu delivered (%.1f%%, channel messages + "
           "prefix [\"agent_3\"]): %.2f ms, %.1f ns per delivered event, %.2f ns per scanned "
           "event\n",
           REPLAY_EVENTS, delivered, 100.0 * (double)delivered / REPLAY_EVENTS, best * 1e3,
           best / (double)delivered * 1e9, best / REPLAY_EVENTS * 1e9);
    aps_filter_deinit(&f);
    aps_replay_deinit(&rb);
    return 0;
}

int bench_replay(const bench_config *cfg)
{
    uint8_t body[EVENT_BYTES];
    char (*ids)[16] = (char (*)[16])malloc(ID_COUNT * sizeof *ids);
    uint64_t rs = cfg->seed;
    size_t i;
    int rc;
    if (ids == NULL)
        return 1;
    for (i = 0; i < EVENT_BYTES; i++)
        body[i] = (uint8_t)(' ' + test_rand(&rs) % 90);
    for (i = 0; i < ID_COUNT; i++)
        snprintf(ids[i], sizeof ids[i], "evt_%08zx", i);
    rc = bench_append(cfg, body, ids);
    rc |= bench_filtered(cfg, body, ids);
    free(ids);
    return rc;
}
