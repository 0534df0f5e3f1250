/*
 * bench_redis.c - the replay log on Redis Streams (aps/replay_redis.h)
 * against a redis-server on loopback that this bench starts itself, beside
 * its ceiling and its alternative, all measured in the same run:
 *
 *   ceiling   redis-benchmark's rate for `XADD key * f <200 bytes>`, pipelined
 *             16 deep (-P 16), with one client and with its default 50
 *   ours      appends of 200-byte events (a distinct eventId each, one namespace segment,
 *             MAXLEN = 65536), pipelined (aps_replay_store_append_many, 256
 *             per batch, one connection) and one at a time; MAXLEN ~ too
 *   memory    the same events into the in-memory store (its pages touched first)
 *   replay    a catch-up read of 65,536 buffered events, and the live
 *             latency from an append to a blocked subscriber (XREAD BLOCK)
 *             having read it
 *
 * Skipped with a message when hiredis or redis-server is missing.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef APS_BENCH_HAVE_REDIS
#include "aps/replay_redis.h"
#include "redis_server.h"

#include <pthread.h>
#include <time.h>

#define EVENT_BYTES 200
#define BATCH 256
#define LOG_EVENTS 65536u

typedef struct fixture {
    redis_server srv;
    uint8_t body[EVENT_BYTES];
    char ids[BATCH][16];
    aps_slice seg;
    unsigned runs;
} fixture;

/* A store on run bench-N: a new run, or with `same` the last one again. */
static aps_replay_store *open_run(fixture *fx, int approximate, int same)
{
    aps_replay_redis_options o;
    aps_replay_store *st = NULL;
    aps_error err = APS_ERROR_INIT;
    char run[32];
    memset(&o, 0, sizeof o);
    snprintf(run, sizeof run, "bench-%u", same ? fx->runs : ++fx->runs);
    o.url = fx->srv.url;
    o.run = run;
    o.replay.max_events = LOG_EVENTS;
    o.approximate_trim = approximate;
    if (aps_replay_redis_open(&st, &o, &err) != APS_OK) {
        fprintf(stderr, "redis: %s\n", err.message);
        return NULL;
    }
    return st;
}

static void fill_items(fixture *fx, aps_replay_store_item *items)
{
    size_t i;
    for (i = 0; i < BATCH; i++) {
        memset(&items[i], 0, sizeof items[i]);
        items[i].bytes = fx->body;
        items[i].len = EVENT_BYTES;
        items[i].meta.channel = APS_CHANNEL_MESSAGES;
        items[i].meta.ns.items = &fx->seg;
        items[i].meta.ns.count = 1;
        items[i].meta.event_id.ptr = fx->ids[i];
        items[i].meta.event_id.len = 12;
    }
}

/* Appends n events to st, `batch` per call; events per second, or 0 on failure. */
static double append_rate(aps_replay_store *st, fixture *fx, size_t n, size_t batch)
{
    aps_replay_store_item items[BATCH];
    aps_error err = APS_ERROR_INIT;
    size_t done;
    double t0;
    size_t i;
    fill_items(fx, items);
    t0 = bench_now();
    for (done = 0; done < n; done += batch) {
        /* every event its own eventId, as a server numbers them */
        for (i = 0; i < batch; i++)
            snprintf(fx->ids[i], sizeof fx->ids[i], "evt_%08zx", (done + i) & 0xFFFFFFFu);
        if (aps_replay_store_append_many(st, items, batch, NULL, &err) != APS_OK) {
            fprintf(stderr, "redis: append: %s\n", err.message);
            return 0;
        }
    }
    return (double)done / (bench_now() - t0);
}

/* redis-benchmark's XADD rate (requests per second), or 0 when it cannot run. */
static double ceiling(const fixture *fx, int clients, size_t n)
{
    char cmd[1024], line[512], value[EVENT_BYTES + 1];
    FILE *p;
    double best = 0;
    memset(value, 'v', EVENT_BYTES);
    value[EVENT_BYTES] = '\0';
    snprintf(cmd, sizeof cmd,
             "redis-benchmark -h 127.0.0.1 -p %d -c %d -P 16 -n %zu --csv XADD benchkey%d '*' f %s "
             "2>/dev/null",
             fx->srv.port, clients, n, clients, value);
    p = popen(cmd, "r");
    if (p == NULL)
        return 0;
    while (fgets(line, sizeof line, p) != NULL) {
        /* "XADD ...","584795.31",... : the second field is requests/s */
        char *q = strstr(line, "\",\"");
        if (q != NULL && strncmp(line, "\"XADD", 5) == 0)
            best = strtod(q + 3, NULL);
    }
    pclose(p);
    (void)redis_server_command(&fx->srv, "DEL benchkey%d", clients);
    return best;
}

typedef struct sink {
    size_t events;
    uint64_t last;
} sink;

static int take(void *ctx, const aps_replay_event *ev)
{
    sink *s = (sink *)ctx;
    s->events++;
    s->last = ev->seq;
    return 0;
}

/* A catch-up read of everything buffered: seconds, events in *n. */
static double catch_up(aps_replay_store *st, size_t *n)
{
    aps_replay_cursor cur;
    aps_replay_start start;
    sink s = { 0, 0 };
    size_t got;
    aps_status rc;
    double t0;
    memset(&start, 0, sizeof start);
    start.from = APS_REPLAY_FROM_OLDEST;
    t0 = bench_now();
    if (aps_replay_store_cursor_init(st, &cur, NULL, &start, NULL) != APS_OK)
        return -1;
    do
        rc = aps_replay_store_read(st, &cur, 512, take, &s, &got, NULL, NULL);
    while (rc == APS_OK && got > 0);
    *n = s.events;
    return rc == APS_OK ? bench_now() - t0 : -1;
}

/* The live tail: a subscriber blocked in XREAD BLOCK, the producer appending one event at a time. */
typedef struct live {
    aps_replay_store *st;
    volatile uint64_t seen;
    size_t rounds;
    int failed;
} live;

static void *subscriber(void *arg)
{
    live *l = (live *)arg;
    aps_replay_cursor cur;
    sink s = { 0, 0 };
    size_t got;
    if (aps_replay_store_cursor_init(l->st, &cur, NULL, NULL, NULL) != APS_OK) {
        l->failed = 1;
        return NULL;
    }
    while (s.events < l->rounds && !l->failed) {
        if (aps_replay_store_wait(l->st, &cur, 2000, NULL) == APS_E_NOT_FOUND) {
            l->failed = 1;
            break;
        }
        if (aps_replay_store_read(l->st, &cur, 64, take, &s, &got, NULL, NULL) != APS_OK)
            l->failed = 1;
        __atomic_store_n(&l->seen, s.events, __ATOMIC_RELEASE);
    }
    return NULL;
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median and 99th percentile of append-to-delivered latency, in microseconds. */
static int live_latency(fixture *fx, size_t rounds, double *p50, double *p99)
{
    live l;
    pthread_t t;
    aps_replay_store_item items[BATCH];
    double *lat = (double *)malloc(rounds * sizeof *lat);
    size_t i;
    aps_replay_store *prod = open_run(fx, 0, 0);
    memset(&l, 0, sizeof l);
    l.st = open_run(fx, 0, 1); /* the subscriber shares the producer's run */
    l.rounds = rounds;
    if (lat == NULL || prod == NULL || l.st == NULL || pthread_create(&t, NULL, subscriber, &l) != 0) {
        free(lat);
        return -1;
    }
    {
        struct timespec pause = { 0, 100000000 };
        nanosleep(&pause, NULL); /* let it block */
    }
    fill_items(fx, items);
    for (i = 0; i < rounds && !l.failed; i++) {
        double t0 = bench_now();
        if (aps_replay_store_append(prod, items[0].bytes, items[0].len, &items[0].meta, NULL,
                                    NULL) != APS_OK) {
            l.failed = 1;
            break;
        }
        while (__atomic_load_n(&l.seen, __ATOMIC_ACQUIRE) < i + 1 && !l.failed)
            ;
        lat[i] = (bench_now() - t0) * 1e6;
    }
    pthread_join(t, NULL);
    aps_replay_store_close(prod);
    aps_replay_store_close(l.st);
    if (l.failed) {
        free(lat);
        return -1;
    }
    qsort(lat, rounds, sizeof *lat, compare_double);
    *p50 = lat[rounds / 2];
    *p99 = lat[rounds * 99 / 100];
    free(lat);
    return 0;
}

int bench_redis(const bench_config *cfg)
{
    static fixture fx;
    uint64_t rs = cfg->seed;
    size_t i, n = cfg->corpus_bytes / EVENT_BYTES, n1;
    double ceil1 = 0, ceil50 = 0, piped = 0, piped_approx = 0, single = 0, mem = 0;
    double catch_s = -1, p50 = 0, p99 = 0;
    size_t caught = 0;
    int r, rc;
    aps_replay_store *st;

    rc = redis_server_start(&fx.srv, NULL);
    if (rc == 77)
        return 0; /* the skip message is printed */
    if (rc != 0)
        return 1;
    if (n < 20000)
        n = 20000;
    n = (n + BATCH - 1) / BATCH * BATCH;
    n1 = n / 10;
    for (i = 0; i < EVENT_BYTES; i++)
        fx.body[i] = (uint8_t)(' ' + test_rand(&rs) % 90);
    for (i = 0; i < BATCH; i++)
        snprintf(fx.ids[i], sizeof fx.ids[i], "evt_%08zx", i);
    fx.seg.ptr = "agent:5f3c";
    fx.seg.len = 10;

    for (r = 0; r < cfg->repeat; r++) {
        double v;
        if ((v = ceiling(&fx, 1, n)) > ceil1)
            ceil1 = v;
        if ((v = ceiling(&fx, 50, n)) > ceil50)
            ceil50 = v;
        if ((st = open_run(&fx, 0, 0)) == NULL)
            return 1;
        if ((v = append_rate(st, &fx, n, BATCH)) > piped)
            piped = v;
        aps_replay_store_close(st);
        if ((st = open_run(&fx, 1, 0)) == NULL)
            return 1;
        if ((v = append_rate(st, &fx, n, BATCH)) > piped_approx)
            piped_approx = v;
        aps_replay_store_close(st);
        if ((st = open_run(&fx, 0, 0)) == NULL)
            return 1;
        if ((v = append_rate(st, &fx, n1, 1)) > single)
            single = v;
        /* catch-up replay of what this run holds (min(n1, 65536) events) */
        v = catch_up(st, &caught);
        if (v > 0 && (catch_s < 0 || v < catch_s))
            catch_s = v;
        aps_replay_store_close(st);
        {
            aps_replay_options o;
            memset(&o, 0, sizeof o);
            o.max_events = LOG_EVENTS;
            o.max_bytes = 64u << 20;
            if (aps_replay_store_open_memory(&st, &o, NULL) != APS_OK)
                return 1;
            (void)append_rate(st, &fx, n, BATCH); /* first touch of the ring's pages, untimed */
            if ((v = append_rate(st, &fx, n, BATCH)) > mem)
                mem = v;
            aps_replay_store_close(st);
        }
    }
    if (live_latency(&fx, 2000, &p50, &p99) != 0)
        fprintf(stderr, "redis: live latency could not be measured\n");
    redis_server_stop(&fx.srv);
    if (piped == 0 || single == 0 || mem == 0 || catch_s < 0)
        return 1;

    printf("ceiling: redis-benchmark XADD key * f <%d bytes>, -P 16: %.0f /s with 1 client, "
           "%.0f /s with 50 clients%s\n",
           EVENT_BYTES, ceil1, ceil50, ceil1 == 0 ? " (redis-benchmark did not run)" : "");
    printf("append, pipelined (%d per batch, 1 connection, MAXLEN = %u): %.0f events/s = %.2fx "
           "the 1-client ceiling, %.2fx the 50-client one\n",
           BATCH, LOG_EVENTS, piped, ceil1 > 0 ? piped / ceil1 : 0, ceil50 > 0 ? piped / ceil50 : 0);
    printf("append, pipelined, MAXLEN ~: %.0f events/s\n", piped_approx);
    printf("append, one at a time (a round trip each): %.0f events/s = %.1f us per append\n",
           single, 1e6 / single);
    printf("in-memory store, same events and batches: %.0f events/s = %.0fx the pipelined Redis "
           "rate\n",
           mem, mem / piped);
    printf("replay: catch-up read of %zu events in batches of 512: %.2f ms, %.2f us per event\n",
           caught, catch_s * 1e3, catch_s / (double)caught * 1e6);
    printf("replay: live tail (XREAD BLOCK), append to delivered: p50 %.0f us, p99 %.0f us "
           "(2000 events)\n",
           p50, p99);
    return 0;
}
#else
int bench_redis(const bench_config *cfg)
{
    (void)cfg;
    printf("skipped: built without hiredis (libhiredis-dev)\n");
    return 0;
}
#endif
