/*
 * test_hostile.c - the thread server (ap_server.h) against hostile clients,
 * on real sockets on 127.0.0.1 (a free port): every refusal is a clear
 * answer (400/401/404/405/413 with an ErrorResponse), a client that sends
 * its headers a byte at a time is closed after the timeout, 2,000
 * connections opened and dropped leave the server answering, and a
 * subscriber that never reads while 100,000 events are published is
 * disconnected at its bound while another subscriber gets every event and
 * the process's memory stays bounded (measured: VmRSS).
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../test.h"
#include "ap_response.h"
#include "ap_server.h"

static unsigned port;
static char last_log[1024];
static int lag_disconnects;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_log(void *user, const char *line)
{
    (void)user;
    pthread_mutex_lock(&log_lock);
    snprintf(last_log, sizeof last_log, "%s", line);
    if (strstr(line, "disconnecting a subscriber") != NULL)
        lag_disconnects++;
    pthread_mutex_unlock(&log_lock);
}

static aps_status on_command(void *user, ap_server *srv, const ap_server_command *c, ap_message_t *response,
                             aps_arena *arena)
{
    (void)user;
    (void)srv;
    (void)arena;
    if (ap_response_success(response, c->command) == NULL) {
        aps_slice why = { "unknown", 7 };
        ap_response_error(response, c->command, AP_ERROR_CODE_UNKNOWN_COMMAND, why);
    }
    return APS_OK;
}

static int subscribe(const char *thread, int rcvbuf);

static uint64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

static int dial(void)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(0x7f000001);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0)
            return;
        p += k;
        n -= (size_t)k;
    }
}

/* Reads until the peer closes, `want` bytes arrived, or timeout_ms passed; the byte count. */
static size_t read_some(int fd, char *buf, size_t cap, size_t want, unsigned timeout_ms, int *closed)
{
    size_t n = 0;
    uint64_t end = now_ms() + timeout_ms;
    *closed = 0;
    while (n < want && n + 1 < cap && now_ms() < end) {
        struct pollfd p = { fd, POLLIN, 0 };
        ssize_t k;
        if (poll(&p, 1, (int)(end - now_ms())) <= 0)
            continue;
        k = recv(fd, buf + n, cap - 1 - n, 0);
        if (k <= 0) {
            *closed = 1;
            break;
        }
        n += (size_t)k;
    }
    buf[n] = '\0';
    return n;
}

/* One request; the response's status code (0: none) and its text in buf. */
static int request(const char *method, const char *path, const char *extra_headers, const char *body, char *buf,
                   size_t cap)
{
    char head[1024];
    int fd = dial(), closed, status = 0;
    size_t body_len = body != NULL ? strlen(body) : 0;
    CHECK(fd >= 0);
    if (fd < 0)
        return 0;
    snprintf(head, sizeof head,
             "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n%s"
             "Content-Length: %zu\r\n\r\n",
             method, path, extra_headers != NULL ? extra_headers : "", body_len);
    send_all(fd, head, strlen(head));
    if (body_len > 0)
        send_all(fd, body, body_len);
    read_some(fd, buf, cap, cap, 3000, &closed);
    close(fd);
    sscanf(buf, "HTTP/1.1 %d", &status);
    return status;
}

static void check_refusals(void)
{
    static char buf[1 << 16];
    char big_head[128];
    int fd, closed;
    /* not JSON, not an EventStreamRequest: 400 with an ErrorResponse */
    CHECK_INT(request("POST", "/threads/t1/stream/events", NULL, "not json", buf, sizeof buf), 400);
    CHECK(strstr(buf, "\"type\":\"error\"") != NULL && strstr(buf, "invalid_argument") != NULL);
    CHECK_INT(request("POST", "/threads/t1/stream/events", NULL, "{\"channels\":[]}", buf, sizeof buf), 400);
    CHECK_INT(request("POST", "/threads/t1/stream/events", NULL, "{\"channels\":[\"nope\"]}", buf, sizeof buf), 400);
    CHECK(strstr(buf, "/channels/0") != NULL);
    /* a command that is no command: 400; a command answered: 200 */
    CHECK_INT(request("POST", "/threads/t1/commands", NULL, "{\"id\":", buf, sizeof buf), 400);
    CHECK(strstr(buf, "\"id\":null") != NULL);
    /* no command by the schema (state.get needs a namespace), but its id is there: the answer carries it */
    CHECK_INT(request("POST", "/threads/t1/commands", NULL, "{\"id\":7,\"method\":\"state.get\",\"params\":{}}", buf,
                      sizeof buf),
              400);
    CHECK(strstr(buf, "\"id\":7,") != NULL && strstr(buf, "invalid_argument") != NULL);
    /* the product's response to agent.getTree lacks its tree: the server says so (200, unknown_error) */
    CHECK_INT(request("POST", "/threads/t1/commands", NULL,
                      "{\"id\":4,\"method\":\"agent.getTree\",\"params\":{}}", buf, sizeof buf), 200);
    CHECK(strstr(buf, "\"id\":4") != NULL && strstr(buf, "unknown_error") != NULL);
    CHECK_INT(request("POST", "/threads/t1/commands", NULL,
                      "{\"id\":5,\"method\":\"subscription.subscribe\",\"params\":{\"channels\":[\"values\"]}}", buf,
                      sizeof buf),
              200);
    CHECK(strstr(buf, "not_supported") != NULL);
    /* wrong endpoint, wrong method */
    CHECK_INT(request("GET", "/nowhere", NULL, NULL, buf, sizeof buf), 404);
    CHECK_INT(request("GET", "/threads/t1/commands", NULL, NULL, buf, sizeof buf), 405);
    CHECK_INT(request("GET", "/threads/unknown-thread/state", NULL, NULL, buf, sizeof buf), 404);
    /* too large, said by Content-Length: 413 before a byte of the body is read */
    fd = dial();
    CHECK(fd >= 0);
    snprintf(big_head, sizeof big_head,
             "POST /threads/t1/commands HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", 2 << 20);
    send_all(fd, big_head, strlen(big_head));
    read_some(fd, buf, sizeof buf, sizeof buf, 3000, &closed);
    close(fd);
    CHECK(strncmp(buf, "HTTP/1.1 413", 12) == 0);
    CHECK(strstr(buf, "\"type\":\"error\"") != NULL);
}

/* A second server with its own options: the requests below go to it until stop_aside. */
static ap_server *start_aside(ap_server_options *o, unsigned *saved_port)
{
    ap_server *srv = NULL;
    aps_error err = APS_ERROR_INIT;
    o->log = on_log;
    CHECK_INT(ap_server_start(&srv, o, &err), APS_OK);
    *saved_port = port;
    port = ap_server_port(srv);
    return srv;
}

static void stop_aside(ap_server *srv, unsigned saved_port)
{
    ap_server_stop(srv);
    port = saved_port;
}

#define RUN_START "{\"id\":1,\"method\":\"run.start\",\"params\":{\"assistant_id\":\"a\",\"input\":null}}"

static void check_api_key(void)
{
    static char buf[1 << 14];
    ap_server *srv;
    ap_server_options o;
    unsigned saved;
    memset(&o, 0, sizeof o);
    o.api_key = "s3cret";
    srv = start_aside(&o, &saved);
    CHECK_INT(request("POST", "/threads/t/commands", NULL, RUN_START, buf,
                      sizeof buf),
              401);
    CHECK(strstr(buf, "permission_denied") != NULL);
    CHECK_INT(request("POST", "/threads/t/commands", "x-api-key: s3creT\r\n",
                      RUN_START, buf, sizeof buf),
              401);
    CHECK_INT(request("POST", "/threads/t/commands", "x-api-key: s3cret\r\n",
                      RUN_START, buf, sizeof buf),
              200);
    CHECK_INT(request("POST", "/threads/t/commands", "Authorization: Bearer s3cret\r\n",
                      RUN_START, buf, sizeof buf),
              200);
    stop_aside(srv, saved);
}

/*
 * A quiet stream gets a heartbeat comment; a CORS preflight from an allowed
 * origin is answered with the allow headers, from another with none.
 */
static void check_heartbeat_and_cors(void)
{
    static char buf[1 << 14];
    ap_server *srv;
    ap_server_options o;
    unsigned saved;
    int fd, closed;
    memset(&o, 0, sizeof o);
    o.heartbeat_ms = 200;
    o.cors_origins = "http://ui.example, http://127.0.0.1:9";
    srv = start_aside(&o, &saved);
    fd = subscribe("quiet", 0);
    read_some(fd, buf, sizeof buf, sizeof buf, 900, &closed);
    CHECK(strstr(buf, ": heartbeat\n\n") != NULL && !closed);
    close(fd);
    CHECK_INT(request("OPTIONS", "/threads/t/stream/events",
                      "Origin: http://127.0.0.1:9\r\nAccess-Control-Request-Method: POST\r\n", NULL, buf, sizeof buf),
              204);
    CHECK(strstr(buf, "access-control-allow-origin: http://127.0.0.1:9") != NULL);
    CHECK(strstr(buf, "access-control-allow-headers:") != NULL);
    CHECK_INT(request("OPTIONS", "/threads/t/stream/events",
                      "Origin: http://elsewhere.example\r\nAccess-Control-Request-Method: POST\r\n", NULL, buf,
                      sizeof buf),
              204);
    CHECK(strstr(buf, "access-control-allow-origin") == NULL);
    CHECK_INT(request("GET", "/threads/t/state", "Origin: http://ui.example\r\n", NULL, buf, sizeof buf), 404);
    CHECK(strstr(buf, "access-control-allow-origin: http://ui.example") != NULL);
    stop_aside(srv, saved);
}

/* Headers a byte at a time, 100 ms apart: closed after the server's timeout (2 s here), not kept forever. */
static void check_slow_headers(void)
{
    static const char head[] = "POST /threads/t1/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n";
    char buf[256];
    int fd = dial(), closed = 0;
    size_t i;
    uint64_t start = now_ms();
    CHECK(fd >= 0);
    for (i = 0; i < sizeof head - 1 && now_ms() - start < 8000; i++) {
        struct pollfd p = { fd, POLLIN, 0 };
        send_all(fd, head + i, 1);
        if (poll(&p, 1, 100) > 0 && recv(fd, buf, sizeof buf, 0) <= 0) {
            closed = 1;
            break;
        }
    }
    if (!closed)
        read_some(fd, buf, sizeof buf, sizeof buf, 6000, &closed);
    close(fd);
    CHECK(closed);
    CHECK(now_ms() - start < 9000);
}

/* 2,000 connections opened (half with part of a request) and dropped; then a request still gets its answer. */
static void check_churn(void)
{
    static char buf[4096];
    int fds[2000], i, opened = 0;
    for (i = 0; i < 2000; i++) {
        fds[i] = dial();
        if (fds[i] >= 0) {
            opened++;
            if (i % 2 == 0)
                send_all(fds[i], "POST /threads/x/stream/events HTTP/1.1\r\nContent-Le", 51);
        }
    }
    CHECK_INT(opened, 2000);
    for (i = 0; i < 2000; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    CHECK_INT(request("GET", "/threads/t1/state", NULL, NULL, buf, sizeof buf), 404);
}

static long rss_kb(void)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
            break;
    if (f != NULL)
        fclose(f);
    return kb;
}

/* Opens an SSE subscription to `thread`; the socket (its response headers read). */
/* Sends the request of an event stream of `thread` whose body is `body` on `fd`. */
static void send_stream_request(int fd, const char *thread, const char *body)
{
    char head[512];
    snprintf(head, sizeof head,
             "POST /threads/%s/stream/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
             "Content-Length: %zu\r\n\r\n%s",
             thread, strlen(body), body);
    send_all(fd, head, strlen(head));
}

static int subscribe(const char *thread, int rcvbuf)
{
    char buf[2048];
    int fd = dial(), closed;
    if (fd < 0)
        return -1;
    if (rcvbuf > 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    send_stream_request(fd, thread, "{\"channels\":[\"custom\"]}");
    read_some(fd, buf, sizeof buf, 40, 3000, &closed);
    CHECK(strncmp(buf, "HTTP/1.1 200", 12) == 0);
    return fd;
}

typedef struct reader {
    int fd;
    volatile uint64_t events;  /* "\n\n" record ends seen */
    volatile int closed;
    volatile int stop;
} reader;

static void *read_events(void *arg)
{
    reader *r = arg;
    static char buf[1 << 16];
    char prev = 0;
    while (!r->stop) {
        struct pollfd p = { r->fd, POLLIN, 0 };
        ssize_t k, i;
        if (poll(&p, 1, 100) <= 0)
            continue;
        if ((k = recv(r->fd, buf, sizeof buf, 0)) <= 0) {
            r->closed = 1;
            break;
        }
        for (i = 0; i < k; i++) {
            if (buf[i] == '\n' && prev == '\n')
                r->events++;
            prev = buf[i];
        }
    }
    return NULL;
}

/*
 * 100,000 events of ~200 bytes on one thread: a subscriber that never
 * reads is disconnected once 20,000 events behind; one that reads gets all
 * of them (the publisher waits for it after each thousand, so only the
 * idle one falls behind); memory stays within the log's bound.
 */
static void check_slow_subscriber(ap_server *srv)
{
    static const char pad[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
                              "0123456789abcdef0123456789abcdef";
    reader good;
    pthread_t t;
    int idle = subscribe("busy", 4096), i;
    long rss_before, rss_after;
    aps_error err = APS_ERROR_INIT;
    uint64_t deadline;
    char json[512];
    aps_slice thread = { "busy", 4 }, no_run = { NULL, 0 };
    memset(&good, 0, sizeof good);
    good.fd = subscribe("busy", 0);
    CHECK(idle >= 0 && good.fd >= 0);
    pthread_create(&t, NULL, read_events, &good);
    rss_before = rss_kb();
    for (i = 0; i < 100000; i++) {
        int n = snprintf(json, sizeof json,
                         "{\"type\":\"event\",\"method\":\"custom\",\"params\":{\"namespace\":[],\"data\":"
                         "{\"name\":\"tick\",\"payload\":{\"i\":%d,\"pad\":\"%s\"}}}}",
                         i, pad);
        if (ap_server_publish_json(srv, thread, json, (size_t)n, no_run, NULL, &err) != APS_OK) {
            fprintf(stderr, "publish %d: %s\n", i, err.message);
            CHECK(0);
            break;
        }
        if (i % 1000 == 999) {
            deadline = now_ms() + 10000;
            while (good.events < (uint64_t)i + 1 && !good.closed && now_ms() < deadline)
                usleep(1000);
        }
    }
    deadline = now_ms() + 10000;
    while (good.events < 100000 && !good.closed && now_ms() < deadline)
        usleep(1000);
    rss_after = rss_kb();
    good.stop = 1;
    pthread_join(t, NULL);
    CHECK_INT(good.events, 100000);
    CHECK(!good.closed);
    pthread_mutex_lock(&log_lock);
    CHECK_INT(lag_disconnects, 1);
    pthread_mutex_unlock(&log_lock);
    /* the log holds at most 16 MiB of events; the rest is per-connection buffers */
    printf("slow subscriber: disconnected at its bound; RSS %ld kB before, %ld kB after 100,000 events\n",
           rss_before, rss_after);
    CHECK(rss_after - rss_before < 48 * 1024);
    close(idle);
    close(good.fd);
}

/*
 * A new stream that resumes from before the log (`since` older than its 8
 * events), on a server whose max_lag is the default (the log's length): it
 * is told its miss first, then gets the log, and is not closed as too slow.
 */
static void check_old_since(void)
{
    static char buf[1 << 14];
    const aps_slice thread = { "old", 3 }, no_run = { NULL, 0 };
    aps_error err = APS_ERROR_INIT;
    ap_server *srv;
    ap_server_options o;
    char json[160];
    unsigned saved;
    int fd, i, closed;
    memset(&o, 0, sizeof o);
    o.replay.max_events = 8;
    srv = start_aside(&o, &saved);
    for (i = 1; i <= 20; i++) {
        int n = snprintf(json, sizeof json,
                         "{\"type\":\"event\",\"method\":\"custom\",\"params\":{\"namespace\":[],\"data\":%d}}", i);
        CHECK_INT(ap_server_publish_json(srv, thread, json, (size_t)n, no_run, NULL, &err), APS_OK);
    }
    fd = dial();
    CHECK(fd >= 0);
    send_stream_request(fd, "old", "{\"channels\":[\"custom\"],\"since\":2}");
    read_some(fd, buf, sizeof buf, sizeof buf, 1000, &closed);
    CHECK(!closed);
    CHECK(strstr(buf, ": missed 10 events; oldest seq 13\n\n") != NULL);
    CHECK(strstr(buf, "\"seq\":13,") != NULL && strstr(buf, "\"seq\":20,") != NULL);
    CHECK(strstr(buf, "\"seq\":12,") == NULL);
    close(fd);
    stop_aside(srv, saved);
}

/*
 * A resume from a point the log does not know, on a thread that has no
 * event yet: nothing was missed, so no miss comment (it said "missed 0
 * events"), and the thread's first event arrives as seq 1. On a thread with
 * events, the same unknown point is still a miss: the client's place is lost.
 */
static void check_empty_resume(ap_server *srv)
{
    static const char *const bodies[] = {
        "{\"channels\":[\"custom\"],\"sinceEventId\":\"no-such-event\"}",
        "{\"channels\":[\"custom\"],\"since\":5}",
    };
    static const char event[] = "{\"type\":\"event\",\"method\":\"custom\",\"params\":{\"namespace\":[],\"data\":1}}";
    static char buf[1 << 14];
    aps_error err = APS_ERROR_INIT;
    char thread[16];
    size_t i;
    int fd, closed;
    for (i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        aps_slice tid, no_run = { NULL, 0 };
        snprintf(thread, sizeof thread, "empty%zu", i);
        tid.ptr = thread;
        tid.len = strlen(thread);
        fd = dial();
        CHECK(fd >= 0);
        send_stream_request(fd, thread, bodies[i]);
        memset(buf, 0, sizeof buf);
        read_some(fd, buf, sizeof buf, sizeof buf, 300, &closed);
        CHECK(strncmp(buf, "HTTP/1.1 200", 12) == 0);
        CHECK_INT(ap_server_publish_json(srv, tid, event, strlen(event), no_run, NULL, &err), APS_OK);
        read_some(fd, buf + strlen(buf), sizeof buf - strlen(buf) - 1, sizeof buf - strlen(buf) - 1, 500, &closed);
        if (strstr(buf, ": missed") != NULL || strstr(buf, "\"seq\":1,") == NULL)
            fprintf(stderr, "resume of an empty thread (%s):\n%s\n", bodies[i], buf);
        CHECK(strstr(buf, ": missed") == NULL);
        CHECK(strstr(buf, "\"seq\":1,") != NULL);
        close(fd);
        /* the thread has an event now: the same unknown point is a miss */
        fd = dial();
        CHECK(fd >= 0);
        send_stream_request(fd, thread, bodies[i]);
        memset(buf, 0, sizeof buf);
        read_some(fd, buf, sizeof buf, sizeof buf, 300, &closed);
        CHECK(strstr(buf, ": missed") != NULL && strstr(buf, "\"seq\":1,") != NULL);
        close(fd);
    }
}

int main(void)
{
    ap_server *srv;
    ap_server_options o;
    aps_error err = APS_ERROR_INIT;
    struct rlimit rl;
    signal(SIGPIPE, SIG_IGN);
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 4096) {
        rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    memset(&o, 0, sizeof o);
    o.timeout_s = 2;
    o.on_command = on_command;
    o.log = on_log;
    o.replay.max_events = 50000;
    o.replay.max_bytes = 16u << 20;
    o.max_lag = 20000;
    CHECK_INT(ap_server_start(&srv, &o, &err), APS_OK);
    port = ap_server_port(srv);
    CHECK(port > 0);
    check_refusals();
    check_api_key();
    check_heartbeat_and_cors();
    check_old_since();
    check_empty_resume(srv);
    check_slow_headers();
    check_churn();
    check_slow_subscriber(srv);
    ap_server_stop(srv);
    return test_report();
}
