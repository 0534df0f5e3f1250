/*
 * test_threads.c - one writer, several readers on their own threads, each
 * with its own cursor, on a small ring so that readers fall behind. Every
 * reader checks that it sees seqs strictly increasing with no gap unless it
 * was told it missed events (with the exact count), and that no event is
 * torn (each body spells its own seq). Built twice: normally and under
 * ThreadSanitizer (replay-threads-tsan).
 */
#define _POSIX_C_SOURCE 200809L
#include "../test.h"

#include "aps/replay.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>

#define EVENTS 60000u
#define READERS 4

static aps_replay rb;

/* Deterministic metadata of the event with seq s, so readers can check it. */
static aps_channel channel_of(uint64_t s)
{
    return s % 5 == 0 ? APS_CHANNEL_VALUES : s % 3 == 0 ? APS_CHANNEL_CUSTOM : APS_CHANNEL_MESSAGES;
}

static size_t body_of(uint64_t s, char *out)
{
    /* Length varies with the seq so records wrap at varying offsets. */
    int n = snprintf(out, 96, "{\"seq\":%llu,\"pad\":\"", (unsigned long long)s);
    size_t pad = (size_t)(s % 41), i;
    for (i = 0; i < pad; i++)
        out[n + i] = (char)('a' + (s + i) % 26);
    out[n + pad] = '"';
    out[n + pad + 1] = '}';
    return (size_t)n + pad + 2;
}

static void *writer(void *arg)
{
    char body[96], id[24];
    aps_slice seg[1] = { { "sub", 3 } };
    uint64_t i;
    (void)arg;
    for (i = 0; i < EVENTS; i++) {
        aps_replay_meta m;
        uint64_t s = aps_replay_next_seq(&rb), got = 0;
        memset(&m, 0, sizeof m);
        m.channel = channel_of(s);
        snprintf(id, sizeof id, "id%llu", (unsigned long long)s);
        m.event_id.ptr = id;
        m.event_id.len = strlen(id);
        m.ns.items = seg;
        m.ns.count = s % 2; /* values alternate between two namespaces */
        if (aps_replay_append(&rb, body, body_of(s, body), &m, &got, NULL) != APS_OK || got != s)
            return (void *)1;
        /* Phases where readers can keep up alternate with bursts that lap them. */
        if ((i / 4096) % 2 == 0 && i % 16 == 0)
            sched_yield();
    }
    return NULL;
}

typedef struct reader {
    int id;
    int filtered;     /* only the custom channel */
    uint64_t expect;  /* the next seq this reader must see */
    uint64_t delivered, lost, misses, errors;
} reader;

static int check_event(void *ctx, const aps_replay_event *ev)
{
    reader *r = (reader *)ctx;
    char body[96];
    size_t len = body_of(ev->seq, body);
    uint64_t s;
    if (ev->len != len || memcmp(ev->bytes, body, len) != 0 || ev->channel != channel_of(ev->seq) ||
        ev->ns.count != ev->seq % 2)
        r->errors++;
    if (ev->baseline)
        r->errors++; /* resuming readers never get the baseline */
    /* No gap: a filtered reader may only skip events it does not want. */
    for (s = r->expect; s < ev->seq; s++)
        if (!r->filtered || channel_of(s) == APS_CHANNEL_CUSTOM)
            r->errors++;
    if (ev->seq < r->expect || (r->filtered && ev->channel != APS_CHANNEL_CUSTOM))
        r->errors++;
    r->expect = ev->seq + 1;
    r->delivered++;
    /* Now and then a slow consumer, so the writer laps this reader. */
    if (ev->seq % (997 + 13 * (uint64_t)r->id) == 0) {
        volatile int spin;
        for (spin = 0; spin < 20000; spin++)
            ;
    }
    return 0;
}

static void *run_reader(void *arg)
{
    reader *r = (reader *)arg;
    aps_replay_cursor cur;
    aps_replay_start start;
    aps_filter f;
    aps_filter_spec spec;
    aps_slice ch = { "custom", 6 };
    memset(&spec, 0, sizeof spec);
    spec.channels = &ch;
    spec.channel_count = 1;
    if (aps_filter_init(&f, &spec, NULL, NULL) != APS_OK)
        return (void *)1;
    memset(&start, 0, sizeof start);
    start.from = APS_REPLAY_FROM_SEQ;
    start.seq = 0;
    r->expect = 1;
    if (aps_replay_cursor_init(&cur, &rb, r->filtered ? &f : NULL, &start) != APS_OK)
        r->errors++;
    for (;;) {
        size_t n = 0;
        aps_replay_gap gap;
        /* Read before asking, so an empty read after the last append means done. */
        uint64_t last = aps_replay_last_seq(&rb);
        aps_status st = aps_replay_read(&rb, &cur, 1 + (size_t)r->id * 7, check_event, r, &n, &gap);
        if (st == APS_E_MISSED) {
            /* Exactly the events from the one expected up to the oldest kept;
             * a filtered cursor may already have scanned past some it did not
             * want, and only those may be left out of the count. */
            uint64_t s;
            if (gap.lost == 0 || gap.oldest_seq < r->expect + gap.lost ||
                (!r->filtered && gap.lost != gap.oldest_seq - r->expect))
                r->errors++;
            for (s = r->expect; s < gap.oldest_seq - gap.lost; s++)
                if (channel_of(s) == APS_CHANNEL_CUSTOM)
                    r->errors++;
            r->lost += gap.lost;
            r->misses++;
            r->expect = gap.oldest_seq;
        } else if (st != APS_OK) {
            r->errors++;
            break;
        } else if (n == 0) {
            if (last == EVENTS)
                break;
            sched_yield();
        }
    }
    aps_filter_deinit(&f);
    return NULL;
}

/* New values subscribers keep arriving while the writer runs. */
typedef struct subscriber {
    uint64_t cursors, baselines, errors;
} subscriber;

typedef struct sub_state {
    subscriber *sub;
    uint64_t last;
} sub_state;

static int check_values(void *ctx, const aps_replay_event *ev)
{
    sub_state *s = (sub_state *)ctx;
    char body[96];
    size_t len = body_of(ev->seq, body);
    if (ev->channel != APS_CHANNEL_VALUES || ev->len != len || memcmp(ev->bytes, body, len) != 0 ||
        ev->seq <= s->last)
        s->sub->errors++;
    s->last = ev->seq;
    s->sub->baselines += ev->baseline != 0;
    return 0;
}

static void *run_subscriber(void *arg)
{
    subscriber *sub = (subscriber *)arg;
    aps_filter f;
    aps_filter_spec spec;
    aps_slice ch = { "values", 6 };
    memset(&spec, 0, sizeof spec);
    spec.channels = &ch;
    spec.channel_count = 1;
    if (aps_filter_init(&f, &spec, NULL, NULL) != APS_OK)
        return (void *)1;
    while (aps_replay_last_seq(&rb) < EVENTS) {
        aps_replay_cursor cur;
        sub_state s;
        size_t n = 1;
        int rounds;
        s.sub = sub;
        s.last = 0;
        if (aps_replay_cursor_init(&cur, &rb, &f, NULL) != APS_OK)
            sub->errors++;
        for (rounds = 0; rounds < 20 && n > 0; rounds++) {
            aps_replay_gap gap;
            aps_status st = aps_replay_read(&rb, &cur, 4, check_values, &s, &n, &gap);
            if (st == APS_E_MISSED)
                n = 1; /* told; what follows must still be in order */
            else if (st != APS_OK) {
                sub->errors++;
            }
        }
        sub->cursors++;
    }
    aps_filter_deinit(&f);
    return NULL;
}

int main(void)
{
    aps_replay_options o;
    pthread_t w, rd[READERS], sb;
    reader r[READERS];
    subscriber sub;
    void *wres = NULL;
    int i;
    memset(&o, 0, sizeof o);
    o.max_events = 64;
    o.max_bytes = 4096;
    CHECK_INT(aps_replay_init(&rb, &o, NULL), APS_OK);
    memset(r, 0, sizeof r);
    memset(&sub, 0, sizeof sub);
    for (i = 0; i < READERS; i++) {
        r[i].id = i;
        r[i].filtered = i == READERS - 1;
        CHECK_INT(pthread_create(&rd[i], NULL, run_reader, &r[i]), 0);
    }
    CHECK_INT(pthread_create(&sb, NULL, run_subscriber, &sub), 0);
    CHECK_INT(pthread_create(&w, NULL, writer, NULL), 0);
    CHECK_INT(pthread_join(w, &wres), 0);
    CHECK(wres == NULL);
    for (i = 0; i < READERS; i++) {
        CHECK_INT(pthread_join(rd[i], NULL), 0);
        CHECK_INT(r[i].errors, 0);
        /* Every event is either delivered or counted as lost, never both. */
        if (!r[i].filtered)
            CHECK_INT(r[i].delivered + r[i].lost, EVENTS);
        printf("reader %d: %llu delivered, %llu lost in %llu misses\n", i,
               (unsigned long long)r[i].delivered, (unsigned long long)r[i].lost,
               (unsigned long long)r[i].misses);
    }
    CHECK_INT(pthread_join(sb, NULL), 0);
    CHECK_INT(sub.errors, 0);
    printf("values subscriber: %llu cursors, %llu baseline states\n",
           (unsigned long long)sub.cursors, (unsigned long long)sub.baselines);
    CHECK_INT(aps_replay_last_seq(&rb), EVENTS);
    aps_replay_deinit(&rb);
    return test_report();
}
