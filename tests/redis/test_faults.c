/*
 * test_faults.c - the Redis replay store when things go wrong, nothing lost
 * silently. One scenario per run (the ctest name says which):
 *
 *   restart      Redis killed (SIGKILL, no persistence) and restarted in the
 *                middle of a run: appends fail with a clear error when the
 *                caller's retry bound is short, succeed once Redis is back
 *                when it is long enough; a reader resumes with no duplicate,
 *                and what it lost is reported as a miss with the exact count
 *   disconnect   every client connection killed (CLIENT KILL): the producer
 *                and the reader carry on, no duplicate, no gap
 *   slow         a subscriber far slower than its producer: it is told
 *                exactly how much it missed, never blocks the producer
 *   producers    two producer processes and three subscriber threads on one
 *                run: every subscriber sees seqs 1..N in order, each
 *                producer's events in its own order, none lost or repeated
 *   full         Redis at maxmemory with noeviction: the append fails at
 *                once with Redis's reason, no hang
 */
#include "../test.h"
#include "redis_server.h"

#include "aps/replay_redis.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static redis_server srv;

static aps_replay_store *open_run(const char *run, size_t max_events, unsigned retry_ms)
{
    aps_replay_redis_options o;
    aps_replay_store *st = NULL;
    aps_error err = APS_ERROR_INIT;
    memset(&o, 0, sizeof o);
    o.url = srv.url;
    o.run = run;
    o.replay.max_events = max_events;
    o.retry_ms = retry_ms;
    o.connect_timeout_ms = 500;
    o.command_timeout_ms = 2000;
    if (aps_replay_redis_open(&st, &o, &err) != APS_OK) {
        fprintf(stderr, "open: %s\n", err.message);
        exit(1);
    }
    return st;
}

static aps_status append_text(aps_replay_store *st, const char *text, uint64_t *seq,
                              aps_error *err)
{
    aps_replay_meta m;
    memset(&m, 0, sizeof m);
    m.channel = APS_CHANNEL_MESSAGES;
    return aps_replay_store_append(st, text, strlen(text), &m, seq, err);
}

static void sleep_ms(long ms)
{
    struct timespec t;
    t.tv_sec = ms / 1000;
    t.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&t, NULL);
}

/* What a reader got: seqs in order, and the misses it was told. */
typedef struct got {
    uint64_t seq[4096];
    char body[4096][16];
    size_t n;
    uint64_t lost, misses;
    long delay_ms; /* a slow consumer: this long per event */
} got;

static int take(void *ctx, const aps_replay_event *ev)
{
    got *g = (got *)ctx;
    size_t len = ev->len < 15 ? ev->len : 15;
    if (g->n < 4096) {
        g->seq[g->n] = ev->seq;
        memcpy(g->body[g->n], ev->bytes, len);
        g->body[g->n][len] = '\0';
    }
    g->n++;
    if (g->delay_ms > 0)
        sleep_ms(g->delay_ms);
    return 0;
}

/* Reads until caught up; misses are counted; APS_E_IO is returned. */
static aps_status drain(aps_replay_store *st, aps_replay_cursor *cur, got *g, size_t batch)
{
    for (;;) {
        size_t n = 0;
        aps_replay_gap gap;
        aps_error err = APS_ERROR_INIT;
        aps_status s = aps_replay_store_read(st, cur, batch, take, g, &n, &gap, &err);
        if (s == APS_E_MISSED) {
            g->misses++;
            g->lost += gap.lost;
            continue;
        }
        if (s != APS_OK)
            return s;
        if (n == 0)
            return APS_OK;
    }
}

static int strictly_increasing(const got *g)
{
    size_t i;
    for (i = 1; i < g->n && i < 4096; i++)
        if (g->seq[i] <= g->seq[i - 1])
            return 0;
    return 1;
}

/* An append made while Redis is down, on a thread of its own (redis-server
 * must be started by the main thread: it dies with the thread that forked it). */
typedef struct pending {
    aps_replay_store *st;
    const char *text;
    uint64_t seq;
    aps_status status;
    aps_error err;
} pending;

static void *append_later(void *arg)
{
    pending *p = (pending *)arg;
    p->status = append_text(p->st, p->text, &p->seq, &p->err);
    return NULL;
}

static void scenario_restart(void)
{
    aps_replay_store *prod = open_run("restart", 1000, 0), *rd = open_run("restart", 1000, 0);
    aps_replay_cursor cur;
    aps_replay_start from;
    aps_error err = APS_ERROR_INIT;
    got g;
    uint64_t seq = 0, i;
    char body[16];

    memset(&g, 0, sizeof g);
    memset(&from, 0, sizeof from);
    from.from = APS_REPLAY_FROM_SEQ; /* since 0 */
    CHECK_INT(aps_replay_store_cursor_init(rd, &cur, NULL, &from, NULL), APS_OK);
    for (i = 1; i <= 10; i++) {
        snprintf(body, sizeof body, "e%" PRIu64, i);
        CHECK_INT(append_text(prod, body, &seq, NULL), APS_OK);
    }
    CHECK_INT(drain(rd, &cur, &g, 100), APS_OK); /* the reader has 1..10 */
    CHECK_INT(g.n, 10);
    for (i = 11; i <= 15; i++) { /* 11..15: appended, never read, then lost */
        snprintf(body, sizeof body, "e%" PRIu64, i);
        CHECK_INT(append_text(prod, body, &seq, NULL), APS_OK);
    }

    /* Redis dies; with no retry bound the append fails at once, saying why. */
    redis_server_kill(&srv);
    CHECK_INT(append_text(prod, "x", &seq, &err), APS_E_IO);
    CHECK(strstr(err.message, "redis 127.0.0.1:") != NULL);
    printf("append while down: %s\n", err.message);

    /* Redis comes back empty; another replica, which never appended, starts
     * the run again: a new epoch, numbered from 1. */
    CHECK_INT(redis_server_restart(&srv), 0);
    aps_replay_store_close(prod);
    prod = open_run("restart", 1000, 0);
    for (i = 1; i <= 4; i++) {
        snprintf(body, sizeof body, "n%" PRIu64, i);
        CHECK_INT(append_text(prod, body, &seq, NULL), APS_OK);
        CHECK_INT(seq, i);
    }
    /* The reader had 1..10 of the old epoch; the new one reuses those
     * numbers: its position is unknown, so it is told (a miss) and gets the
     * whole new epoch, once, and never an old event again. */
    memset(&g, 0, sizeof g);
    CHECK_INT(drain(rd, &cur, &g, 100), APS_OK);
    CHECK_INT(g.misses, 1);
    CHECK_INT(g.n, 4);
    CHECK(g.n == 4 && strcmp(g.body[0], "n1") == 0 && strcmp(g.body[3], "n4") == 0);
    CHECK(strictly_increasing(&g));
    aps_replay_store_close(prod);
    aps_replay_store_close(rd);
}

/* A producer that keeps its floor across the outage: numbering continues
 * and a reader behind it is told exactly what it lost. */
static void scenario_restart_floor(void)
{
    aps_replay_store *prod = open_run("floor", 1000, 5000), *rd = open_run("floor", 1000, 0);
    aps_replay_cursor cur;
    aps_replay_start from;
    got g;
    uint64_t seq = 0, i;
    char body[16];
    pthread_t t;
    memset(&g, 0, sizeof g);
    memset(&from, 0, sizeof from);
    from.from = APS_REPLAY_FROM_SEQ;
    CHECK_INT(aps_replay_store_cursor_init(rd, &cur, NULL, &from, NULL), APS_OK);
    for (i = 1; i <= 20; i++) {
        snprintf(body, sizeof body, "f%" PRIu64, i);
        CHECK_INT(append_text(prod, body, &seq, NULL), APS_OK);
    }
    CHECK_INT(drain(rd, &cur, &g, 12), APS_OK);
    CHECK_INT(g.n, 20);
    for (i = 21; i <= 25; i++) { /* appended, unread, lost with Redis */
        snprintf(body, sizeof body, "f%" PRIu64, i);
        CHECK_INT(append_text(prod, body, &seq, NULL), APS_OK);
    }
    redis_server_kill(&srv);
    {
        pending p;
        memset(&p, 0, sizeof p);
        p.st = prod;
        p.text = "f26";
        p.err.code = APS_OK;
        CHECK_INT(pthread_create(&t, NULL, append_later, &p), 0);
        sleep_ms(300); /* the append retries meanwhile (bound: 5 s) */
        CHECK_INT(redis_server_restart(&srv), 0);
        pthread_join(t, NULL);
        CHECK_INT(p.status, APS_OK);
        if (p.status != APS_OK)
            fprintf(stderr, "f26: %s\n", p.err.message);
        seq = p.seq;
    }
    CHECK_INT(seq, 26); /* numbering continues after the producer's floor */
    CHECK_INT(append_text(prod, "f27", &seq, NULL), APS_OK);
    memset(&g, 0, sizeof g);
    /* The reader may see the outage as an error first; it retries. */
    for (i = 0; i < 20 && drain(rd, &cur, &g, 12) == APS_E_IO; i++)
        sleep_ms(50);
    CHECK_INT(g.misses, 1);
    CHECK_INT(g.lost, 5); /* 21..25 */
    CHECK_INT(g.n, 2);
    CHECK(g.n == 2 && g.seq[0] == 26 && g.seq[1] == 27);
    aps_replay_store_close(prod);
    aps_replay_store_close(rd);
}

static void scenario_disconnect(void)
{
    aps_replay_store *prod = open_run("disc", 1000, 2000), *rd = open_run("disc", 1000, 0);
    aps_replay_cursor cur;
    aps_replay_start from;
    got g;
    uint64_t seq = 0, i;
    char body[16];
    memset(&g, 0, sizeof g);
    memset(&from, 0, sizeof from);
    from.from = APS_REPLAY_FROM_SEQ;
    CHECK_INT(aps_replay_store_cursor_init(rd, &cur, NULL, &from, NULL), APS_OK);
    for (i = 1; i <= 300; i++) {
        snprintf(body, sizeof body, "d%" PRIu64, i);
        CHECK_INT(append_text(prod, body, &seq, NULL), APS_OK);
        CHECK_INT(seq, i);
        if (i % 100 == 50) {
            /* every client but this one's own connection is cut */
            CHECK_INT(redis_server_command(&srv, "CLIENT KILL TYPE normal"), 0);
            CHECK_INT(drain(rd, &cur, &g, 7), APS_OK);
        }
    }
    CHECK_INT(drain(rd, &cur, &g, 7), APS_OK);
    CHECK_INT(g.misses, 0);
    CHECK_INT(g.n, 300);
    CHECK(strictly_increasing(&g));
    CHECK(g.n == 300 && g.seq[0] == 1 && g.seq[299] == 300);
    aps_replay_store_close(prod);
    aps_replay_store_close(rd);
}

static void scenario_slow(void)
{
    aps_replay_store *prod = open_run("slow", 50, 0), *rd = open_run("slow", 50, 0);
    aps_replay_cursor cur;
    aps_replay_start from;
    got g;
    uint64_t seq = 0, i;
    char body[16];
    memset(&g, 0, sizeof g);
    memset(&from, 0, sizeof from);
    from.from = APS_REPLAY_FROM_SEQ;
    g.delay_ms = 1;
    CHECK_INT(aps_replay_store_cursor_init(rd, &cur, NULL, &from, NULL), APS_OK);
    /* The producer appends 400 while the reader takes 5 at a time, slowly. */
    for (i = 1; i <= 400; i++) {
        size_t n = 0;
        aps_replay_gap gap;
        aps_status s;
        snprintf(body, sizeof body, "s%" PRIu64, i);
        CHECK_INT(append_text(prod, body, &seq, NULL), APS_OK);
        if (i % 10 == 0) {
            s = aps_replay_store_read(rd, &cur, 2, take, &g, &n, &gap, NULL);
            if (s == APS_E_MISSED) {
                g.misses++;
                g.lost += gap.lost;
            } else {
                CHECK_INT(s, APS_OK);
            }
        }
    }
    CHECK_INT(drain(rd, &cur, &g, 5), APS_OK);
    /* Everything is accounted for: delivered + reported lost = appended. */
    CHECK(g.misses > 0);
    CHECK_INT(g.n + g.lost, 400);
    CHECK(strictly_increasing(&g));
    CHECK_INT(g.seq[g.n - 1], 400);
    printf("slow subscriber: %zu delivered, %" PRIu64 " lost in %" PRIu64 " misses\n", g.n,
           g.lost, g.misses);
    aps_replay_store_close(prod);
    aps_replay_store_close(rd);
}

#define PER_PRODUCER 400

static void produce(int who)
{
    aps_replay_store *st = open_run("multi", 10000, 2000);
    char body[16];
    int i;
    for (i = 1; i <= PER_PRODUCER; i++) {
        uint64_t seq;
        snprintf(body, sizeof body, "%c%d", who == 0 ? 'A' : 'B', i);
        if (append_text(st, body, &seq, NULL) != APS_OK)
            _exit(3);
    }
    aps_replay_store_close(st);
    _exit(0);
}

typedef struct subscriber {
    got g;
    int ok;
} subscriber;

/* A live subscriber: XREAD BLOCK between reads, until all events arrived. */
static void *subscribe(void *arg)
{
    subscriber *s = (subscriber *)arg;
    aps_replay_store *st = open_run("multi", 10000, 0);
    aps_replay_cursor cur;
    aps_replay_start from;
    int idle = 0;
    memset(&from, 0, sizeof from);
    from.from = APS_REPLAY_FROM_SEQ;
    s->ok = aps_replay_store_cursor_init(st, &cur, NULL, &from, NULL) == APS_OK;
    while (s->ok && s->g.n < 2 * PER_PRODUCER && idle < 50) {
        if (drain(st, &cur, &s->g, 64) != APS_OK)
            s->ok = 0;
        else if (s->g.n < 2 * PER_PRODUCER &&
                 aps_replay_store_wait(st, &cur, 200, NULL) == APS_E_NOT_FOUND)
            idle++;
    }
    aps_replay_store_close(st);
    return NULL;
}

static void scenario_producers(void)
{
    static subscriber subs[3];
    pthread_t t[3];
    pid_t p[2];
    int i, k, status;
    for (i = 0; i < 3; i++)
        CHECK_INT(pthread_create(&t[i], NULL, subscribe, &subs[i]), 0);
    sleep_ms(50);
    for (k = 0; k < 2; k++) {
        p[k] = fork();
        if (p[k] == 0)
            produce(k);
    }
    for (k = 0; k < 2; k++) {
        CHECK_INT(waitpid(p[k], &status, 0), p[k]);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    for (i = 0; i < 3; i++) {
        got *g = &subs[i].g;
        size_t j;
        int next[2] = { 1, 1 }, in_order = 1;
        pthread_join(t[i], NULL);
        CHECK(subs[i].ok);
        CHECK_INT(g->n, 2 * PER_PRODUCER);
        CHECK_INT(g->misses, 0);
        for (j = 0; j < g->n && j < 4096; j++) {
            int who = g->body[j][0] == 'A' ? 0 : 1;
            if (g->seq[j] != j + 1 || atoi(g->body[j] + 1) != next[who])
                in_order = 0;
            next[who]++;
        }
        CHECK(in_order); /* seqs 1..N gap-free; each producer's events in its order */
        CHECK(i == 0 || memcmp(subs[0].g.seq, g->seq, g->n * sizeof g->seq[0]) == 0);
    }
}

static void scenario_full(void)
{
    aps_replay_store *prod = open_run("full", 100000, 1000);
    aps_error err = APS_ERROR_INIT;
    static char big[20001];
    aps_status s = APS_OK;
    uint64_t seq = 0;
    int i;
    memset(big, 'x', sizeof big - 1);
    for (i = 0; i < 2000 && s == APS_OK; i++) {
        aps_replay_meta m;
        memset(&m, 0, sizeof m);
        m.channel = APS_CHANNEL_MESSAGES;
        s = aps_replay_store_append(prod, big, sizeof big - 1, &m, &seq, &err);
    }
    CHECK_INT(s, APS_E_IO);
    CHECK(strstr(err.message, "OOM") != NULL);
    printf("after %d appends: %s\n", i - 1, err.message);
    CHECK(i > 1 && i < 2000);
    aps_replay_store_close(prod);
}

int main(int argc, char **argv)
{
    static const char *const full[] = { "--maxmemory", "3mb", "--maxmemory-policy", "noeviction", NULL };
    const char *which = argc > 1 ? argv[1] : "";
    int rc = redis_server_start(&srv, strcmp(which, "full") == 0 ? full : NULL);
    if (rc != 0)
        return rc;
    if (strcmp(which, "restart") == 0) {
        scenario_restart();
        scenario_restart_floor();
    } else if (strcmp(which, "disconnect") == 0) {
        scenario_disconnect();
    } else if (strcmp(which, "slow") == 0) {
        scenario_slow();
    } else if (strcmp(which, "producers") == 0) {
        scenario_producers();
    } else if (strcmp(which, "full") == 0) {
        scenario_full();
    } else {
        fprintf(stderr, "usage: redis-faults restart|disconnect|slow|producers|full\n");
        return 2;
    }
    redis_server_stop(&srv);
    return test_report();
}
