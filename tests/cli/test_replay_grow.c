/*
 * test_replay_grow.c - a replay buffer whose byte ring grows
 * (aps_replay_options.grow, what `apstream replay` uses so that
 * `--capacity 1000` does not reserve 1 GiB): it starts small, keeps every
 * event while they fit in max_bytes and max_events (moving the records as
 * it doubles), evicts as a fixed ring does once it is full size, and falls
 * back to evicting when it cannot get memory to grow.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aps/replay.h"
#include "test_util.h"

static int failures;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (!(cond)) {                                                       \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);           \
            failures++;                                                      \
        }                                                                    \
    } while (0)

/* The text of event `seq`: its length varies so records move across wraps. */
static size_t event_text(uint64_t seq, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "{\"seq\":%llu,\"pad\":\"", (unsigned long long)seq), k;
    for (k = 0; k < (seq * 37) % 700; k++)
        buf[n++] = 'x';
    buf[n++] = '"';
    buf[n++] = '}';
    return n;
}

static int same_event(void *ctx, const aps_replay_event *ev)
{
    char want[1024], id[32];
    size_t n = event_text(ev->seq, want, sizeof want);
    int idn = snprintf(id, sizeof id, "e%llu", (unsigned long long)ev->seq);
    int *bad = ctx;
    if (ev->len != n || memcmp(ev->bytes, want, n) != 0 || ev->event_id.len != (size_t)idn ||
        memcmp(ev->event_id.ptr, id, (size_t)idn) != 0 || ev->ns.count != 1)
        (*bad)++;
    return 0;
}

static void append(aps_replay *rb, uint64_t seq)
{
    char text[1024], id[32];
    size_t n = event_text(seq, text, sizeof text);
    aps_replay_meta m;
    aps_slice seg = { "ns", 2 };
    aps_error err = APS_ERROR_INIT;
    memset(&m, 0, sizeof m);
    m.event_id.ptr = id;
    m.event_id.len = (size_t)snprintf(id, sizeof id, "e%llu", (unsigned long long)seq);
    m.channel = APS_CHANNEL_MESSAGES;
    m.ns.items = &seg;
    m.ns.count = 1;
    CHECK(aps_replay_append(rb, text, n, &m, NULL, &err) == APS_OK);
}

/* Every buffered event is the one appended with its seq. */
static void check_contents(aps_replay *rb)
{
    aps_replay_stats st;
    uint64_t s;
    int bad = 0;
    aps_replay_stats_get(rb, &st);
    for (s = st.oldest_seq; s <= st.last_seq; s++)
        CHECK(aps_replay_get(rb, s, same_event, &bad) == APS_OK);
    CHECK(bad == 0);
}

static void test_grows_then_evicts(void)
{
    aps_replay rb;
    aps_replay_options o;
    aps_replay_stats st;
    aps_error err = APS_ERROR_INIT;
    uint64_t s, found;
    long fixed;
    test_alloc c;
    memset(&o, 0, sizeof o);
    o.max_events = 2000;
    o.max_bytes = 256u << 10;
    o.grow = 1;
    test_alloc_init(&c, -1, 0);
    o.allocator = test_alloc_hooks(&c);
    /* starts at 64 KiB, not max_bytes: what a fixed ring takes at once */
    o.grow = 0;
    CHECK(aps_replay_init(&rb, &o, &err) == APS_OK);
    fixed = c.live;
    aps_replay_deinit(&rb);
    o.grow = 1;
    CHECK(aps_replay_init(&rb, &o, &err) == APS_OK);
    CHECK(fixed - c.live == (long)(o.max_bytes - (64u << 10)));
    /* about 100 KiB of events: all kept, the ring grown and the records moved */
    for (s = 1; s <= 250; s++)
        append(&rb, s);
    aps_replay_stats_get(&rb, &st);
    CHECK(st.oldest_seq == 1 && st.last_seq == 250);
    check_contents(&rb);
    CHECK(aps_replay_find_event_id(&rb, (aps_slice){ "e7", 2 }, &found) == APS_OK && found == 7);
    /* far more than max_bytes: evicts as a fixed ring does, the newest kept */
    for (; s <= 5000; s++)
        append(&rb, s);
    aps_replay_stats_get(&rb, &st);
    CHECK(st.last_seq == 5000 && st.oldest_seq > 1 && st.bytes <= o.max_bytes);
    check_contents(&rb);
    aps_replay_deinit(&rb);
    CHECK(c.live == 0);
}

static void test_no_memory_to_grow(void)
{
    aps_replay rb;
    aps_replay_options o;
    aps_replay_stats st;
    aps_error err = APS_ERROR_INIT;
    uint64_t s;
    test_alloc c;
    memset(&o, 0, sizeof o);
    o.max_events = 2000;
    o.max_bytes = 1u << 20;
    o.grow = 1;
    test_alloc_init(&c, -1, 0);
    o.allocator = test_alloc_hooks(&c);
    CHECK(aps_replay_init(&rb, &o, &err) == APS_OK);
    /* every later allocation fails: the 64 KiB ring evicts instead of growing */
    c.fail_at = c.calls;
    c.fail_rest = 1;
    for (s = 1; s <= 1000; s++)
        append(&rb, s);
    aps_replay_stats_get(&rb, &st);
    CHECK(st.last_seq == 1000 && st.oldest_seq > 1 && st.bytes <= (64u << 10));
    check_contents(&rb);
    aps_replay_deinit(&rb);
    CHECK(c.live == 0);
}

int main(void)
{
    test_grows_then_evicts();
    test_no_memory_to_grow();
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures != 0;
}
