/*
 * bench_client.c - the thread client (ap_client.h) reading a run from a
 * loopback socket, against `apstream assemble`'s path on the same bytes in
 * memory (issue 42's bar: at most 1.5x).
 *
 * The run is a token stream as a model sends it: a root lifecycle
 * `running`, then messages of 200 text deltas each (tokens of 1 to 8
 * bytes), each event with its eventId as the thread server writes them
 * (`id:`, `event:`, `data:`), and a root `completed` at the end.
 *
 *   baseline  the path of `apstream assemble` (and examples/consumer.c): the
 *             SSE parser in 64 KiB pushes, each event decoded by the
 *             bindings (ap_message_from_sse), described for the assembler
 *             (ap_asm_event_from_message) and fed (aps_asm_feed)
 *   client    a server thread on 127.0.0.1 answers the client's POST
 *             .../stream/events with the same bytes; the client subscribes
 *             over SSE (libcurl) and ap_client_run_until_done returns at the
 *             root's `completed`: framing, decoding, de-duplication by
 *             eventId, the run's bookkeeping and the same assembler, with
 *             on_message_finish counting the messages
 *
 * Both sides must assemble every message; the best of `repeat` runs of each
 * is reported, and the ratio of the two in CPU time of the reading thread
 * (CLOCK_THREAD_CPUTIME_ID: the cost of reading, system calls included,
 * whatever else the machine runs; the server thread writing the socket is
 * not the client's cost), and in wall time.
 */
#include "bench.h"

#ifndef APS_BENCH_NO_CLIENT
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ap_client.h"
#include "ap_companion.h"

#define DELTAS 200 /* per message */
#define PUSH_BYTES (64u << 10)

/* CPU seconds of the calling thread. */
static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct timing {
    double cpu, wall;
} timing;

typedef struct corpus {
    char *bytes;
    size_t len, messages, events;
} corpus;

static size_t event(char *dst, uint64_t n, const char *method, const char *ns, const char *data)
{
    return (size_t)sprintf(dst,
                           "id: e%llu\nevent: %s\ndata: {\"type\":\"event\",\"eventId\":\"e%llu\",\"seq\":%llu,"
                           "\"method\":\"%s\",\"params\":{\"namespace\":[%s],\"timestamp\":%llu,%s}}\n\n",
                           (unsigned long long)n, method, (unsigned long long)n, (unsigned long long)n, method, ns,
                           1800000000000ull + n, data);
}

static int corpus_build(corpus *c, size_t bytes, uint64_t seed)
{
    static const char ns[] = "\"model_request:0b5c4a3e-3d1f-4c2a-9b7e-5f8e6d4c3b2a\"";
    char data[256], token[16];
    size_t cap = bytes + (1u << 16), m, d;
    uint64_t rng = seed, n = 0;
    memset(c, 0, sizeof *c);
    if ((c->bytes = malloc(cap)) == NULL)
        return -1;
    c->len += event(c->bytes + c->len, ++n, "lifecycle", "", "\"data\":{\"event\":\"running\",\"graph_name\":\"agent\"}");
    for (m = 0; c->len + (DELTAS + 8) * 400 < bytes; m++) {
        snprintf(data, sizeof data, "\"node\":\"model\",\"data\":{\"event\":\"message-start\",\"id\":\"msg-%zu\",\"role\":\"ai\"}",
                 m);
        c->len += event(c->bytes + c->len, ++n, "messages", ns, data);
        c->len += event(c->bytes + c->len, ++n, "messages", ns,
                        "\"node\":\"model\",\"data\":{\"event\":\"content-block-start\",\"index\":0,"
                        "\"content\":{\"type\":\"text\",\"text\":\"\"}}");
        for (d = 0; d < DELTAS; d++) {
            size_t len = 1 + test_rand(&rng) % 8, i;
            for (i = 0; i < len; i++)
                token[i] = (char)('a' + test_rand(&rng) % 26);
            token[0] = d % 3 == 0 ? ' ' : token[0];
            token[len] = '\0';
            snprintf(data, sizeof data,
                     "\"node\":\"model\",\"data\":{\"event\":\"content-block-delta\",\"index\":0,"
                     "\"delta\":{\"type\":\"text-delta\",\"text\":\"%s\"}}",
                     token);
            c->len += event(c->bytes + c->len, ++n, "messages", ns, data);
        }
        c->len += event(c->bytes + c->len, ++n, "messages", ns,
                        "\"node\":\"model\",\"data\":{\"event\":\"message-finish\"}");
    }
    c->len += event(c->bytes + c->len, ++n, "lifecycle", "", "\"data\":{\"event\":\"completed\",\"graph_name\":\"agent\"}");
    c->messages = m;
    c->events = (size_t)n;
    return 0;
}

/* ---- the baseline: apstream assemble's path on bytes in memory ---------------------- */

typedef struct baseline {
    aps_assembler a;
    aps_arena arena;
    size_t messages;
    uint64_t position;
    int failed;
} baseline;

static void count_message(void *ctx, const aps_asm_message *m)
{
    baseline *b = ctx;
    b->messages += aps_asm_message_state(m) == APS_ASM_FINISHED;
}

static aps_status baseline_event(void *user, const aps_sse_event *sse)
{
    baseline *b = user;
    ap_message_t msg;
    aps_asm_event ev;
    aps_arena_reset(&b->arena);
    if (ap_message_from_sse(sse, 1, &b->arena, &msg, NULL, NULL) != APS_OK ||
        ap_asm_event_from_message(&msg, 0, &b->arena, &ev) != APS_OK) {
        b->failed = 1;
        return APS_OK;
    }
    ev.position = ++b->position;
    return aps_asm_feed(&b->a, &ev, NULL);
}

static timing run_baseline(const corpus *c, size_t *messages)
{
    timing t;
    double c0;
    static char storage[1 << 20];
    baseline b;
    aps_asm_callbacks cb;
    aps_sse_parser p;
    size_t at;
    double t0;
    memset(&b, 0, sizeof b);
    c0 = thread_cpu();
    memset(&cb, 0, sizeof cb);
    cb.on_message_done = count_message;
    cb.ctx = &b;
    t0 = bench_now();
    aps_asm_init(&b.a, NULL, &cb);
    aps_arena_init(&b.arena, NULL);
    aps_sse_parser_init(&p, storage, sizeof storage, NULL, baseline_event, NULL, &b);
    for (at = 0; at < c->len; at += PUSH_BYTES) {
        size_t n = c->len - at < PUSH_BYTES ? c->len - at : PUSH_BYTES;
        if (aps_sse_parser_push(&p, c->bytes + at, n, NULL) != APS_OK)
            b.failed = 1;
    }
    if (aps_sse_parser_finish(&p, NULL) != APS_OK)
        b.failed = 1;
    aps_asm_finish(&b.a);
    aps_asm_deinit(&b.a);
    aps_arena_deinit(&b.arena);
    *messages = b.failed ? 0 : b.messages;
    t.wall = bench_now() - t0;
    t.cpu = thread_cpu() - c0;
    return t;
}

/* ---- the client, from a loopback socket ---------------------------------------------- */

typedef struct server {
    int listen_fd, port;
    const corpus *c;
} server;

/* Answers one POST with the corpus as an SSE body, then closes. */
static void *serve_one(void *arg)
{
    server *s = arg;
    char req[8192];
    size_t got = 0, at;
    int fd = accept(s->listen_fd, NULL, NULL);
    static const char head[] = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    if (fd < 0)
        return NULL;
    /* the request: headers, then a small JSON body (what is read of it does not matter) */
    while (got < sizeof req - 1) {
        ssize_t n = read(fd, req + got, sizeof req - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
        req[got] = '\0';
        if (strstr(req, "\r\n\r\n") != NULL && req[got - 1] == '}')
            break;
    }
    if (write(fd, head, sizeof head - 1) < 0) {
        close(fd);
        return NULL;
    }
    for (at = 0; at < s->c->len;) {
        ssize_t n = write(fd, s->c->bytes + at, s->c->len - at);
        if (n <= 0)
            break;
        at += (size_t)n;
    }
    close(fd);
    return NULL;
}

static void client_message(void *user, const aps_asm_message *m)
{
    size_t *n = user;
    *n += aps_asm_message_state(m) == APS_ASM_FINISHED;
}

static timing run_client(const corpus *c, size_t *messages)
{
    timing t = { -1, -1 };
    double c0;
    server s;
    struct sockaddr_in addr;
    socklen_t alen = sizeof addr;
    pthread_t th;
    char url[64];
    ap_client_options o;
    ap_client *cl;
    ap_client_run_end end = AP_CLIENT_RUN_NONE;
    aps_error err = APS_ERROR_INIT;
    double t0;
    int one = 1;
    *messages = 0;
    memset(&s, 0, sizeof s);
    s.c = c;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if ((s.listen_fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
        setsockopt(s.listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(s.listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(s.listen_fd, 4) != 0 ||
        getsockname(s.listen_fd, (struct sockaddr *)&addr, &alen) != 0 ||
        pthread_create(&th, NULL, serve_one, &s) != 0) {
        if (s.listen_fd >= 0)
            close(s.listen_fd);
        return t;
    }
    snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(addr.sin_port));
    memset(&o, 0, sizeof o);
    o.url = url;
    o.thread_id = "bench";
    o.callbacks.on_message_finish = client_message;
    o.callbacks.user = messages;
    t0 = bench_now();
    c0 = thread_cpu();
    if ((cl = ap_client_open(&o, &err)) != NULL && ap_client_subscribe(cl, NULL, &err) == APS_OK &&
        ap_client_run_until_done(cl, 60000, &end, &err) == APS_OK && end == AP_CLIENT_RUN_COMPLETED) {
        t.cpu = thread_cpu() - c0;
        t.wall = bench_now() - t0;
    }
    else
        fprintf(stderr, "client: %s\n", err.message);
    ap_client_close(cl);
    pthread_join(th, NULL);
    close(s.listen_fd);
    return t;
}

int bench_client(const bench_config *cfg)
{
    corpus c;
    size_t bytes = cfg->corpus_bytes < (64u << 20) ? cfg->corpus_bytes : (64u << 20), mb, mc;
    timing best_b = { 1e30, 1e30 }, best_c = { 1e30, 1e30 };
    int i, rc = 0;
    printf("== client: loopback socket to assembled messages, against apstream assemble's path ==\n");
    if (corpus_build(&c, bytes, cfg->seed) != 0)
        return 1;
    for (i = 0; i < cfg->repeat; i++) {
        timing tb = run_baseline(&c, &mb), tc = run_client(&c, &mc);
        if (mb != c.messages || mc != c.messages || tc.cpu < 0) {
            fprintf(stderr, "client: %zu messages in the stream, the baseline assembled %zu, the client %zu\n",
                    c.messages, mb, mc);
            rc = 1;
            break;
        }
        best_b.cpu = tb.cpu < best_b.cpu ? tb.cpu : best_b.cpu;
        best_b.wall = tb.wall < best_b.wall ? tb.wall : best_b.wall;
        best_c.cpu = tc.cpu < best_c.cpu ? tc.cpu : best_c.cpu;
        best_c.wall = tc.wall < best_c.wall ? tc.wall : best_c.wall;
    }
    if (rc == 0) {
        printf("%-44s %8.1f MB/s %8.0f ns/event CPU (wall %.0f)\n", "apstream assemble's path, bytes in memory",
               (double)c.len / best_b.cpu / 1e6, best_b.cpu * 1e9 / (double)c.events,
               best_b.wall * 1e9 / (double)c.events);
        printf("%-44s %8.1f MB/s %8.0f ns/event CPU (wall %.0f)\n", "ap_client over SSE, loopback socket",
               (double)c.len / best_c.cpu / 1e6, best_c.cpu * 1e9 / (double)c.events,
               best_c.wall * 1e9 / (double)c.events);
        printf("ratio client/assemble %.2f CPU, %.2f wall (%zu events, %zu messages, %.1f MB)\n",
               best_c.cpu / best_b.cpu, best_c.wall / best_b.wall, c.events, c.messages, (double)c.len / 1e6);
    }
    free(c.bytes);
    return rc;
}
#else
typedef int bench_client_not_built; /* ISO C wants something in a translation unit */
#endif
