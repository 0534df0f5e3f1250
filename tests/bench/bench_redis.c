/*
 * bench_redis.c - the replay log on Redis Streams (aps/replay_redis.h)
 * against a redis-server on loopback that this bench starts itself, beside
 * its ceiling and its alternative, all measured in the same run, every row
 * once per repeat (rows interleaved, so load from other processes hits all):
 *
 *   ceiling   redis-benchmark's rate for `XADD key * f <200 bytes>` (no
 *             trimming), pipelined 16 deep (-P 16), with one client and with
 *             its default 50; and, for context, its default unpipelined rate
 *   ours      appends of 200-byte events (a distinct eventId each, one
 *             namespace segment) on a new run each, pipelined through
 *             aps_replay_store_append_many, 256 per call: one connection with
 *             the default MAXLEN ~ 65536; one connection with exact_trim
 *             (MAXLEN = 65536); 2 and 4 producer threads, a store
 *             (connection) each, on one run, together appending as many
 *             events as the one-connection rows (their aggregate rate);
 *             and one append per call (a round trip each)
 *   memory    the same events into the in-memory store (its pages touched first)
 *   replay    a catch-up read of the buffered events, and the live latency
 *             from an append to a blocked subscriber (XREAD BLOCK) having read it
 *
 * Rows give the best and the median rate over the repeats, the ratio to the
 * 50-client -P 16 ceiling (best over best, and the median of the ratios
 * within each repeat), and redis-server's CPU time per append (from
 * /proc/PID/stat; less sensitive to other load than the rates).
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
#include <unistd.h>

#define EVENT_BYTES 200
#define BATCH 256
#define LOG_EVENTS 65536u
#define MAX_PRODUCERS 4
#define MAX_REPEAT 64

typedef struct fixture {
    redis_server srv;
    uint8_t body[EVENT_BYTES];
    aps_slice seg;
    unsigned runs;
} fixture;

/* A store on run bench-N: a new run, or with `same` the last one again. */
static aps_replay_store *open_run(fixture *fx, int exact, int same)
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
    o.exact_trim = exact;
    if (aps_replay_redis_open(&st, &o, &err) != APS_OK) {
        fprintf(stderr, "redis: %s\n", err.message);
        return NULL;
    }
    return st;
}

/*
 * CPU seconds redis-server has used so far (user + system, from
 * /proc/PID/stat, in clock ticks), or -1 where that cannot be read. Load
 * from other processes stretches wall time but not this, so the CPU per
 * append says which side costs what even on a busy machine.
 */
static double server_cpu(const fixture *fx)
{
    char path[64], buf[1024], *p;
    unsigned long ut, st;
    FILE *f;
    size_t got;
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)fx->srv.pid);
    if ((f = fopen(path, "r")) == NULL)
        return -1;
    got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    /* after "PID (comm) ": state is field 3, utime 14, stime 15 */
    if ((p = strrchr(buf, ')')) == NULL ||
        sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* Deletes run bench-N's keys (untimed: a new run per row keeps Redis's memory flat). */
static void drop_run(const fixture *fx)
{
    (void)redis_server_command(&fx->srv, "DEL aps:{bench-%u}:log aps:{bench-%u}:meta", fx->runs,
                               fx->runs);
}

/* One producer: its store, its events, its share of the appends. */
typedef struct producer {
    const fixture *fx;
    aps_replay_store *st;
    aps_replay_store_item items[BATCH];
    char ids[BATCH][16];
    aps_slice seg; /* the namespace's one segment */
    size_t n, batch, first; /* appends, per call, number of its first eventId */
    int failed;
} producer;

static void producer_init(producer *p, const fixture *fx, aps_replay_store *st, size_t n,
                          size_t batch, size_t first)
{
    size_t i;
    memset(p, 0, sizeof *p);
    p->fx = fx;
    p->st = st;
    p->n = n;
    p->batch = batch;
    p->first = first;
    p->seg = fx->seg;
    for (i = 0; i < BATCH; i++) {
        p->items[i].bytes = fx->body;
        p->items[i].len = EVENT_BYTES;
        p->items[i].meta.channel = APS_CHANNEL_MESSAGES;
        p->items[i].meta.ns.items = &p->seg;
        p->items[i].meta.ns.count = 1;
        p->items[i].meta.event_id.ptr = p->ids[i];
        p->items[i].meta.event_id.len = 12;
        snprintf(p->ids[i], sizeof p->ids[i], "evt_%08zx", i);
    }
}

/* Appends the producer's n events, `batch` per call. */
static void *produce(void *arg)
{
    producer *p = (producer *)arg;
    aps_error err = APS_ERROR_INIT;
    size_t done, i;
    for (done = 0; done < p->n; done += p->batch) {
        /* every event its own eventId, as a server numbers them */
        for (i = 0; i < p->batch; i++)
            snprintf(p->ids[i], sizeof p->ids[i], "evt_%08zx",
                     (p->first + done + i) & 0xFFFFFFFu);
        if (aps_replay_store_append_many(p->st, p->items, p->batch, NULL, &err) != APS_OK) {
            fprintf(stderr, "redis: append: %s\n", err.message);
            p->failed = 1;
            break;
        }
    }
    return NULL;
}

/* Appends n events to st, `batch` per call; events per second, or 0 on failure. */
static double append_rate(aps_replay_store *st, const fixture *fx, size_t n, size_t batch)
{
    producer p;
    double t0;
    producer_init(&p, fx, st, n, batch, 0);
    t0 = bench_now();
    produce(&p);
    return p.failed ? 0 : (double)n / (bench_now() - t0);
}

/*
 * `count` producer threads, each with its own store (connection) on one new
 * run, appending n / count events pipelined BATCH per call at the same time:
 * the aggregate events per second, or 0 on failure.
 */
static double producers_rate(fixture *fx, int count, size_t n)
{
    static producer p[MAX_PRODUCERS];
    pthread_t t[MAX_PRODUCERS];
    size_t each = n / (size_t)count / BATCH * BATCH;
    int i, started = 0, failed = 0;
    double t0, rate;
    for (i = 0; i < count; i++) {
        aps_replay_store *st = open_run(fx, 0, i > 0);
        if (st == NULL)
            failed = 1;
        producer_init(&p[i], fx, st, each, BATCH, (size_t)i * each);
    }
    t0 = bench_now();
    for (i = 0; i < count && !failed; i++, started++)
        if (pthread_create(&t[i], NULL, produce, &p[i]) != 0)
            failed = 1;
    for (i = 0; i < started; i++) {
        pthread_join(t[i], NULL);
        failed |= p[i].failed;
    }
    rate = (double)each * (double)count / (bench_now() - t0);
    for (i = 0; i < count; i++)
        if (p[i].st != NULL)
            aps_replay_store_close(p[i].st);
    return failed ? 0 : rate;
}

/* redis-benchmark's XADD rate (requests per second) with `clients` clients
 * each `pipeline` deep, or 0 when it cannot run. */
static double ceiling(const fixture *fx, int clients, int pipeline, size_t n, double *cpu_us)
{
    double cpu0 = server_cpu(fx), cpu1;
    char cmd[1024], line[512], value[EVENT_BYTES + 1];
    FILE *p;
    double best = 0;
    memset(value, 'v', EVENT_BYTES);
    value[EVENT_BYTES] = '\0';
    snprintf(cmd, sizeof cmd,
             "redis-benchmark -h 127.0.0.1 -p %d -c %d -P %d -n %zu --csv XADD benchkey%d '*' f %s "
             "2>/dev/null",
             fx->srv.port, clients, pipeline, n, clients, value);
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
    cpu1 = server_cpu(fx);
    *cpu_us = cpu0 >= 0 && cpu1 >= 0 ? (cpu1 - cpu0) / (double)n * 1e6 : -1;
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
    static producer one;
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
    producer_init(&one, fx, prod, 1, 1, 0);
    for (i = 0; i < rounds && !l.failed; i++) {
        double t0 = bench_now();
        if (aps_replay_store_append(prod, one.items[0].bytes, one.items[0].len, &one.items[0].meta,
                                    NULL, NULL) != APS_OK) {
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

/* The timed repetitions of one row: best and median. */
typedef struct rates {
    double v[MAX_REPEAT];
    double cpu[MAX_REPEAT]; /* redis-server CPU microseconds per event, -1: unknown */
    int n;
} rates;

static void rates_add(rates *r, double v, double cpu_us)
{
    if (r->n < MAX_REPEAT) {
        r->cpu[r->n] = cpu_us;
        r->v[r->n++] = v;
    }
}

/* A row of ours: the rate of `count` producers (1: append_rate on one store, `batch` per
 * call) and redis-server's CPU per append, on a new run deleted afterwards. */
static int measure(fixture *fx, rates *r, int count, int exact, size_t n, size_t batch)
{
    double cpu0 = server_cpu(fx), v, cpu1;
    if (count > 1) {
        v = producers_rate(fx, count, n);
    } else {
        aps_replay_store *st = open_run(fx, exact, 0);
        if (st == NULL)
            return -1;
        v = append_rate(st, fx, n, batch);
        aps_replay_store_close(st);
    }
    cpu1 = server_cpu(fx);
    rates_add(r, v, cpu0 >= 0 && cpu1 >= 0 ? (cpu1 - cpu0) / (double)n * 1e6 : -1);
    drop_run(fx);
    return v > 0 ? 0 : -1;
}

static double rates_best(const rates *r)
{
    double b = 0;
    int i;
    for (i = 0; i < r->n; i++)
        if (r->v[i] > b)
            b = r->v[i];
    return b;
}

static double median_of(const double *v, int n)
{
    double s[MAX_REPEAT];
    if (n == 0)
        return 0;
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, compare_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static double rates_median(const rates *r)
{
    return median_of(r->v, r->n);
}

/* The median redis-server CPU per event of a row, or -1 when unknown. */
static double cpu_median(const rates *r)
{
    int i;
    for (i = 0; i < r->n; i++)
        if (r->cpu[i] < 0)
            return -1;
    return median_of(r->cpu, r->n);
}

/*
 * One row of ours: best rate, median rate, the ratio to the 50-client -P 16
 * ceiling (best over best, and the median of the ratios within each repeat,
 * which load changes between repeats do not skew), redis-server's CPU per append.
 */
static void print_row(const char *label, const rates *r, const rates *ceil50)
{
    rates q;
    int i;
    q.n = 0;
    for (i = 0; i < r->n && i < ceil50->n; i++)
        if (ceil50->v[i] > 0)
            rates_add(&q, r->v[i] / ceil50->v[i], 0);
    printf("%s: %.0f events/s (median %.0f)", label, rates_best(r), rates_median(r));
    if (q.n > 0)
        printf(" = %.2fx the 50-client -P 16 ceiling (median of per-repeat ratios %.2fx)",
               rates_best(ceil50) > 0 ? rates_best(r) / rates_best(ceil50) : 0, rates_median(&q));
    if (cpu_median(r) >= 0)
        printf("; redis-server CPU %.2f us per append", cpu_median(r));
    printf("\n");
}

int bench_redis(const bench_config *cfg)
{
    static fixture fx;
    static rates ceil1, ceil50, ceil50_1, piped, piped_exact, prod2, prod4, single, mem;
    uint64_t rs = cfg->seed;
    size_t i, n = cfg->corpus_bytes / EVENT_BYTES, n1;
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
    n = (n + BATCH * MAX_PRODUCERS - 1) / (BATCH * MAX_PRODUCERS) * (BATCH * MAX_PRODUCERS);
    n1 = n / 10;
    for (i = 0; i < EVENT_BYTES; i++)
        fx.body[i] = (uint8_t)(' ' + test_rand(&rs) % 90);
    fx.seg.ptr = "agent:5f3c";
    fx.seg.len = 10;

    for (r = 0; r < cfg->repeat && r < MAX_REPEAT; r++) {
        double v, cpu;
        v = ceiling(&fx, 1, 16, n, &cpu);
        rates_add(&ceil1, v, cpu);
        v = ceiling(&fx, 50, 16, n, &cpu);
        rates_add(&ceil50, v, cpu);
        v = ceiling(&fx, 50, 1, n, &cpu);
        rates_add(&ceil50_1, v, cpu);
        if (measure(&fx, &piped, 1, 0, n, BATCH) != 0 ||
            measure(&fx, &piped_exact, 1, 1, n, BATCH) != 0 ||
            measure(&fx, &prod2, 2, 0, n, BATCH) != 0 || measure(&fx, &prod4, 4, 0, n, BATCH) != 0)
            return 1;
        if ((st = open_run(&fx, 0, 0)) == NULL)
            return 1;
        rates_add(&single, append_rate(st, &fx, n1, 1), -1);
        /* catch-up replay of what this run holds (min(n1, 65536) events) */
        v = catch_up(st, &caught);
        if (v > 0 && (catch_s < 0 || v < catch_s))
            catch_s = v;
        aps_replay_store_close(st);
        drop_run(&fx);
        {
            aps_replay_options o;
            memset(&o, 0, sizeof o);
            o.max_events = LOG_EVENTS;
            o.max_bytes = 64u << 20;
            if (aps_replay_store_open_memory(&st, &o, NULL) != APS_OK)
                return 1;
            (void)append_rate(st, &fx, n, BATCH); /* first touch of the ring's pages, untimed */
            rates_add(&mem, append_rate(st, &fx, n, BATCH), -1);
            aps_replay_store_close(st);
        }
    }
    if (live_latency(&fx, 2000, &p50, &p99) != 0)
        fprintf(stderr, "redis: live latency could not be measured\n");
    redis_server_stop(&fx.srv);
    if (rates_best(&piped) == 0 || rates_best(&piped_exact) == 0 || rates_best(&prod2) == 0 ||
        rates_best(&prod4) == 0 || rates_best(&single) == 0 || rates_best(&mem) == 0 ||
        catch_s < 0)
        return 1;

    printf("%zu events of %d bytes per row and repeat; best of %d repeats, median beside it\n", n,
           EVENT_BYTES, r);
    printf("ceiling: redis-benchmark XADD key * f <%d bytes> (no trimming), -P 16: %.0f /s with 1 "
           "client (median %.0f), %.0f /s with 50 clients (median %.0f)",
           EVENT_BYTES, rates_best(&ceil1), rates_median(&ceil1), rates_best(&ceil50),
           rates_median(&ceil50));
    if (cpu_median(&ceil50) >= 0)
        printf("; redis-server CPU %.2f us per XADD with 50 clients", cpu_median(&ceil50));
    printf("%s\n", rates_best(&ceil50) == 0 ? " (redis-benchmark did not run)" : "");
    printf("context: redis-benchmark's default, not pipelined, 50 clients: %.0f /s (median %.0f)\n",
           rates_best(&ceil50_1), rates_median(&ceil50_1));
    print_row("append, pipelined, 1 connection (256 per batch, MAXLEN ~ 65536)", &piped, &ceil50);
    print_row("append, pipelined, 1 connection, exact MAXLEN = 65536", &piped_exact, &ceil50);
    print_row("append, pipelined, 2 producers (a connection each, one run, MAXLEN ~)", &prod2,
              &ceil50);
    print_row("append, pipelined, 4 producers (a connection each, one run, MAXLEN ~)", &prod4,
              &ceil50);
    printf("append, one at a time (a round trip each): %.0f events/s = %.1f us per append\n",
           rates_best(&single), 1e6 / rates_best(&single));
    printf("in-memory store, same events and batches: %.0f events/s = %.0fx the pipelined Redis "
           "rate\n",
           rates_best(&mem), rates_best(&mem) / rates_best(&piped));
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
