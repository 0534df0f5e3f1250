/*
 * bench_server.c - fan-out of the thread server (ap_server.h) over SSE on
 * loopback, against this machine's ceiling measured in the same run:
 *
 *   ceiling   a minimal epoll writer: one thread, the same number of plain
 *             TCP connections, every event's bytes (an SSE record shaped as
 *             the server writes it) appended to one shared log by the
 *             publisher, which wakes the writer through an eventfd; the
 *             writer sends each connection what it is owed, up to 64 KiB a
 *             send, until EAGAIN, then waits for EPOLLOUT (armed then, one-shot)
 *   server    ap_server_start on 127.0.0.1 (a free port), SUBS subscribers
 *             each `POST /threads/{id}/stream/events` with
 *             `{"channels":["custom"]}`; the publisher calls
 *             ap_server_publish_json for each custom event
 *
 * Each side runs EVENTS events twice: flat out (the publisher as fast as it
 * can; deliveries/s = SUBS x EVENTS over the time from the first
 * publish to the last event received by the last subscriber), then paced at
 * half of the server's flat-out rate of that repeat (the latency rows: a
 * flat-out run's latency is its queue). Each event carries its publish time
 * (CLOCK_MONOTONIC ns, `"t":`) in its payload; the receivers, one client
 * thread of this process with an epoll over non-blocking sockets, split SSE
 * records with memchr and parse `t` from each, so latency is publish call to
 * read() returning the event, in a histogram (1 us buckets below 131 ms).
 * The receivers split records and find `"t":` with memchr: a first version
 * with memmem spent 14% of the process's time there (perf).
 *
 * Memory: RSS (/proc/self/statm) and malloc'd bytes (mallinfo2) of the
 * process before the subscribers connect, once they are connected, and
 * after the flat-out run; the client's own state is allocated and touched
 * before the first reading, so the differences are the server's. Then IDLE
 * more SSE connections on a thread without events, their client ends in a
 * child process: the server's memory per connection.
 *
 * --mb 1 (bench-smoke): 20 subscribers x 200 events, 200 idle connections.
 * Linux only (epoll, eventfd, fork); raises RLIMIT_NOFILE for its sockets.
 */
#ifdef __linux__
#define _GNU_SOURCE 1 /* accept4, mallinfo2 */
#endif
#include "bench.h"

#include <stdio.h>

#if defined(APS_BENCH_HAVE_SERVER) && defined(__linux__)
#include "ap_server.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <unistd.h>

#define CARRY 1024u                  /* bytes of an unfinished record (or response head) kept per connection */
#define READ_BYTES (256u * 1024u)    /* one read */
#define SEND_BYTES (64u * 1024u)     /* one send of the ceiling: the server's CHUNK_BYTES */
#define H_FINE 131072u               /* histogram: 1 us buckets below this many us */
#define H_COARSE 65536u              /* then 1 ms buckets */
#define CONNECT_BATCH 256u
#define MAX_REPEAT 16

static uint64_t mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* ---- sizes -------------------------------------------------------------------------- */

typedef struct sizes {
    size_t subs, events, idle;
    double run_s; /* bound on one run's time */
} sizes;

typedef struct mem {
    double rss;  /* bytes */
    double heap; /* malloc'd bytes in use */
} mem;

static mem mem_now(void)
{
    mem m = { 0, 0 };
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    struct mallinfo2 mi = mallinfo2();
    if (f != NULL) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    m.rss = (double)resident * (double)sysconf(_SC_PAGESIZE);
    m.heap = (double)mi.uordblks + (double)mi.hblkhd;
    return m;
}

/* ---- receivers -------------------------------------------------------------------- */

typedef struct rconn {
    int fd;
    int streaming;      /* past the response head */
    uint32_t carry_len;
    uint64_t events;
    char carry[CARRY];
} rconn;

typedef struct client {
    int ep;
    rconn *conns;
    size_t n;
    uint64_t expect;        /* events each connection is to receive in this run */
    size_t done;            /* connections that have them */
    uint64_t delivered, bytes, errors;
    uint64_t last_ns;       /* when the last event arrived */
    uint64_t deadline_ns;
    uint32_t *hist;         /* H_FINE + H_COARSE buckets of latency */
    char *buf;              /* CARRY + READ_BYTES */
} client;

static void hist_add(uint32_t *h, uint64_t ns)
{
    uint64_t us = ns / 1000u, ms;
    if (us < H_FINE) {
        h[us]++;
        return;
    }
    ms = (us - H_FINE) / 1000u;
    h[H_FINE + (ms < H_COARSE - 1 ? ms : H_COARSE - 1)]++;
}

/* The latency (ms) below which a fraction q of the samples fall. */
static double hist_quantile(const uint32_t *h, uint64_t total, double q)
{
    uint64_t want = (uint64_t)((double)total * q), seen = 0;
    size_t i;
    if (want >= total && total > 0)
        want = total - 1;
    for (i = 0; i < H_FINE + H_COARSE; i++) {
        seen += h[i];
        if (seen > want)
            return i < H_FINE ? (double)i / 1000.0 : (double)(H_FINE + (i - H_FINE) * 1000u) / 1000.0;
    }
    return -1;
}

/* The digits after `"t":` in [p, e), found by memchr on 't' (the few other t's are rejected at once). */
static const char *find_t(const char *p, const char *e)
{
    const char *q = p;
    while (e - q > 3 && (q = memchr(q + 1, 't', (size_t)(e - q - 1) - 3)) != NULL)
        if (q[-1] == '"' && q[1] == '"' && q[2] == ':')
            return q + 3;
    return NULL;
}

/* One SSE record [p, e): an event with `"t":NANOS` in it, or a comment. */
static void on_record(client *cl, rconn *c, const char *p, const char *e, uint64_t now)
{
    const char *t;
    uint64_t v = 0;
    if (p < e && *p == ':') {
        if (e - p > 8 && memcmp(p, ": missed", 8) == 0)
            cl->errors++; /* heartbeats are fine; a miss is not */
        return;
    }
    if ((t = find_t(p, e)) == NULL) {
        cl->errors++;
        return;
    }
    for (; t < e && *t >= '0' && *t <= '9'; t++)
        v = v * 10u + (uint64_t)(*t - '0');
    hist_add(cl->hist, now > v ? now - v : 0);
    cl->delivered++;
    if (++c->events == cl->expect)
        cl->done++;
}

/*
 * Splits buf[0, len) into records at each blank line (memchr on '\n', SIMD
 * in glibc: a record has three lines); what is left of an unfinished one
 * goes back to the carry. -1: no room.
 */
static int on_bytes(client *cl, rconn *c, char *buf, size_t len, uint64_t now)
{
    const char *p = buf, *end = buf + len, *q = buf, *e;
    while ((e = memchr(q, '\n', (size_t)(end - q))) != NULL && e + 1 < end) {
        if (e[1] != '\n') {
            q = e + 1;
            continue;
        }
        on_record(cl, c, p, e, now);
        p = q = e + 2;
    }
    if ((size_t)(end - p) > CARRY)
        return -1;
    memcpy(c->carry, p, (size_t)(end - p));
    c->carry_len = (uint32_t)(end - p);
    return 0;
}

/* Reads what connection c has; -1 when it closed or broke. */
static int client_read(client *cl, rconn *c)
{
    for (;;) {
        ssize_t n;
        memcpy(cl->buf, c->carry, c->carry_len);
        n = read(c->fd, cl->buf + c->carry_len, READ_BYTES);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return 0;
        if (n <= 0)
            return -1;
        cl->bytes += (uint64_t)n;
        if (on_bytes(cl, c, cl->buf, c->carry_len + (size_t)n, mono_ns()) != 0)
            return -1;
        if ((size_t)n < READ_BYTES)
            return 0;
    }
}

static void *client_main(void *arg)
{
    client *cl = arg;
    struct epoll_event ev[256];
    while (cl->done < cl->n) {
        int i, k = epoll_wait(cl->ep, ev, 256, 20);
        for (i = 0; i < k; i++) {
            rconn *c = ev[i].data.ptr;
            if (client_read(cl, c) != 0) {
                cl->errors++;
                epoll_ctl(cl->ep, EPOLL_CTL_DEL, c->fd, NULL);
                if (c->events < cl->expect)
                    cl->done++; /* it will get no more */
                c->events = cl->expect + 1;
            }
        }
        if (k > 0)
            cl->last_ns = mono_ns();
        if (mono_ns() > cl->deadline_ns)
            break;
    }
    return NULL;
}

static int client_init(client *cl, size_t n)
{
    memset(cl, 0, sizeof *cl);
    cl->conns = calloc(n, sizeof *cl->conns);
    cl->hist = calloc(H_FINE + H_COARSE, sizeof *cl->hist);
    cl->buf = malloc(CARRY + READ_BYTES);
    if ((cl->ep = epoll_create1(0)) < 0 || cl->conns == NULL || cl->hist == NULL || cl->buf == NULL)
        return -1;
    /* touched now, so that the memory readings that follow are the server's */
    memset(cl->conns, 0, n * sizeof *cl->conns);
    memset(cl->buf, 0, CARRY + READ_BYTES);
    return 0;
}

static void client_close_all(client *cl)
{
    size_t i;
    for (i = 0; i < cl->n; i++)
        if (cl->conns[i].fd > 0)
            close(cl->conns[i].fd);
    cl->n = 0;
}

static void client_deinit(client *cl)
{
    client_close_all(cl);
    if (cl->ep >= 0)
        close(cl->ep);
    free(cl->conns);
    free(cl->hist);
    free(cl->buf);
}

/* ---- connections ------------------------------------------------------------------ */

static int set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int tcp_connect(unsigned port)
{
    struct sockaddr_in a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/*
 * Opens subscribers cl->conns[cl->n, cl->n + count) on thread `thread`:
 * each sends its request and reads the response head (200, text/event-stream),
 * CONNECT_BATCH at a time so that the listen queue never overflows. They are
 * then in cl->ep for the client thread. 0, or -1.
 */
static int open_subscribers(client *cl, unsigned port, const char *thread, size_t count)
{
    static const char body[] = "{\"channels\":[\"custom\"]}";
    char req[512];
    int len = snprintf(req, sizeof req,
                       "POST /threads/%s/stream/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
                       "Content-Type: application/json\r\nContent-Length: %u\r\n\r\n%s",
                       thread, (unsigned)(sizeof body - 1), body);
    size_t first = cl->n, i, end = first + count;
    int wait_ep = epoll_create1(0);
    if (wait_ep < 0)
        return -1;
    for (i = first; i < end;) {
        size_t b = i, stop = i + CONNECT_BATCH < end ? i + CONNECT_BATCH : end, pending = 0;
        uint64_t deadline = mono_ns() + 10000000000u;
        for (; i < stop; i++) {
            rconn *c = &cl->conns[i];
            struct epoll_event ev;
            memset(c, 0, sizeof *c);
            if ((c->fd = tcp_connect(port)) < 0 || write(c->fd, req, (size_t)len) != len || set_nonblock(c->fd) != 0)
                goto fail;
            ev.events = EPOLLIN;
            ev.data.ptr = c;
            if (epoll_ctl(wait_ep, EPOLL_CTL_ADD, c->fd, &ev) != 0)
                goto fail;
            cl->n = i + 1;
            pending++;
        }
        while (pending > 0 && mono_ns() < deadline) {
            struct epoll_event ev[64];
            int k = epoll_wait(wait_ep, ev, 64, 100), j;
            for (j = 0; j < k; j++) {
                rconn *c = ev[j].data.ptr;
                ssize_t n = read(c->fd, c->carry + c->carry_len, CARRY - 1 - c->carry_len);
                char *head;
                if (n <= 0)
                    goto fail;
                c->carry_len += (uint32_t)n;
                c->carry[c->carry_len] = '\0';
                if ((head = strstr(c->carry, "\r\n\r\n")) == NULL)
                    continue;
                if (strncmp(c->carry, "HTTP/1.1 200", 12) != 0 || strstr(c->carry, "text/event-stream") == NULL) {
                    fprintf(stderr, "server: a subscriber got: %.80s\n", c->carry);
                    goto fail;
                }
                head += 4;
                c->carry_len -= (uint32_t)(head - c->carry);
                memmove(c->carry, head, c->carry_len);
                c->streaming = 1;
                epoll_ctl(wait_ep, EPOLL_CTL_DEL, c->fd, NULL);
                pending--;
            }
        }
        if (pending > 0) {
            fprintf(stderr, "server: %zu of %zu subscribers got no response head in 10 s\n", pending, stop - b);
            goto fail;
        }
    }
    close(wait_ep);
    for (i = first; i < end; i++) {
        struct epoll_event ev;
        ev.events = EPOLLIN;
        ev.data.ptr = &cl->conns[i];
        if (epoll_ctl(cl->ep, EPOLL_CTL_ADD, cl->conns[i].fd, &ev) != 0)
            return -1;
    }
    return 0;
fail:
    close(wait_ep);
    return -1;
}

/* Makes thread `thread` on the server (a POST of a command it answers `unknown_command`). */
static int make_thread(unsigned port, const char *thread)
{
    static const char body[] = "{\"id\":1,\"method\":\"state.get\",\"params\":{}}";
    char req[512], resp[2048];
    int len = snprintf(req, sizeof req,
                       "POST /threads/%s/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                       "Content-Length: %u\r\nConnection: close\r\n\r\n%s",
                       thread, (unsigned)(sizeof body - 1), body);
    int fd = tcp_connect(port), ok;
    ssize_t n;
    if (fd < 0)
        return -1;
    ok = write(fd, req, (size_t)len) == len && (n = read(fd, resp, sizeof resp - 1)) > 12 &&
         strncmp(resp, "HTTP/1.1 ", 9) == 0;
    close(fd);
    return ok ? 0 : -1;
}

/* ---- the events ------------------------------------------------------------------- */

/* The pad that makes the event ~200 bytes as the server writes it (its data: line). */
static const char pad[] = "lorem-ipsum-dolor-sit-amet-consectetur-adipi";

static int event_json(char *out, size_t cap, uint64_t t)
{
    return snprintf(out, cap,
                    "{\"type\":\"event\",\"method\":\"custom\",\"params\":{\"namespace\":[],\"timestamp\":0,"
                    "\"data\":{\"name\":\"bench\",\"payload\":{\"t\":%llu,\"pad\":\"%s\"}}}}",
                    (unsigned long long)t, pad);
}

/* The same event as the server frames it (ap_server_publish_json, snake_case), for the ceiling. */
static int event_record(char *out, size_t cap, uint64_t seq, uint64_t t)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now); /* the server's `timestamp`: ms since the epoch */
    return snprintf(out, cap,
                    "id: %llu\nevent: custom\ndata: {\"type\":\"event\",\"event_id\":\"%llu\",\"seq\":%llu,"
                    "\"method\":\"custom\",\"params\":{\"namespace\":[],\"data\":{\"name\":\"bench\",\"payload\":"
                    "{\"t\":%llu,\"pad\":\"%s\"}},\"timestamp\":%llu}}\n\n",
                    (unsigned long long)seq, (unsigned long long)seq, (unsigned long long)seq,
                    (unsigned long long)t, pad,
                    (unsigned long long)now.tv_sec * 1000u + (unsigned long long)now.tv_nsec / 1000000u);
}

/* Sleeps until monotonic time `ns`. */
static void sleep_until(uint64_t ns)
{
    struct timespec t;
    t.tv_sec = (time_t)(ns / 1000000000u);
    t.tv_nsec = (long)(ns % 1000000000u);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
        ;
}

/* ---- the ceiling: a minimal epoll writer ------------------------------------------- */

typedef struct wconn {
    int fd;
    int blocked;
    size_t off;
} wconn;

typedef struct writer {
    int ep, efd;
    wconn *c;
    size_t n;
    char *log;               /* every record, back to back */
    size_t cap;
    size_t published;        /* bytes of log complete (atomic) */
    size_t total;            /* what the run publishes: SIZE_MAX until the publisher is done (atomic) */
    uint64_t deadline_ns;
    int failed;
} writer;

static void *writer_main(void *arg)
{
    writer *w = arg;
    struct epoll_event ev[512];
    size_t done = 0, i, total;
    while (done < w->n && mono_ns() < w->deadline_ns) {
        int k = epoll_wait(w->ep, ev, 512, 20), j;
        size_t pub;
        for (j = 0; j < k; j++) {
            if (ev[j].data.ptr == NULL) {
                uint64_t v;
                if (read(w->efd, &v, sizeof v) < 0 && errno != EAGAIN)
                    w->failed = 1;
            } else {
                ((wconn *)ev[j].data.ptr)->blocked = 0;
            }
        }
        pub = __atomic_load_n(&w->published, __ATOMIC_ACQUIRE);
        for (i = 0; i < w->n; i++) {
            wconn *c = &w->c[i];
            while (!c->blocked && c->off < pub) {
                size_t want = pub - c->off < SEND_BYTES ? pub - c->off : SEND_BYTES;
                ssize_t s = send(c->fd, w->log + c->off, want, MSG_NOSIGNAL);
                if (s > 0)
                    c->off += (size_t)s;
                else if (s < 0 && (errno == EAGAIN || errno == EINTR)) {
                    /* armed only now, once: an EPOLLOUT left armed wakes the writer at every ACK */
                    struct epoll_event ev1;
                    ev1.events = EPOLLOUT | EPOLLONESHOT;
                    ev1.data.ptr = c;
                    c->blocked = 1;
                    if (epoll_ctl(w->ep, EPOLL_CTL_MOD, c->fd, &ev1) != 0)
                        w->failed = 1;
                } else {
                    w->failed = 1;
                    c->blocked = 1;
                    c->off = SIZE_MAX; /* given up */
                }
            }
        }
        total = __atomic_load_n(&w->total, __ATOMIC_ACQUIRE);
        for (done = 0, i = 0; i < w->n; i++)
            done += w->c[i].off == total;
    }
    return NULL;
}

/*
 * Accepts n connections of the client's on a listening socket of its own:
 * they are the ceiling's connections (no HTTP: the bytes are the stream).
 */
static int ceiling_open(writer *w, client *cl, size_t n)
{
    struct sockaddr_in a;
    socklen_t alen = sizeof a;
    int lfd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    size_t i;
    struct epoll_event ev;
    memset(w, 0, sizeof *w);
    w->ep = w->efd = -1;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(lfd, 4096) != 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &alen) != 0)
        goto fail;
    if ((w->c = calloc(n, sizeof *w->c)) == NULL || (w->ep = epoll_create1(0)) < 0 ||
        (w->efd = eventfd(0, EFD_NONBLOCK)) < 0)
        goto fail;
    ev.events = EPOLLIN;
    ev.data.ptr = NULL;
    if (epoll_ctl(w->ep, EPOLL_CTL_ADD, w->efd, &ev) != 0)
        goto fail;
    for (i = 0; i < n; i++) {
        rconn *c = &cl->conns[cl->n];
        memset(c, 0, sizeof *c);
        if ((c->fd = tcp_connect(ntohs(a.sin_port))) < 0 || set_nonblock(c->fd) != 0)
            goto fail;
        c->streaming = 1;
        ev.events = EPOLLIN;
        ev.data.ptr = c;
        if (epoll_ctl(cl->ep, EPOLL_CTL_ADD, c->fd, &ev) != 0)
            goto fail;
        cl->n++;
        if ((w->c[i].fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) < 0)
            goto fail;
        /* as lws does: without it, Nagle holds an event behind the last one's delayed ACK (40 ms) */
        if (setsockopt(w->c[i].fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
            goto fail;
        w->n = i + 1;
        ev.events = 0; /* EPOLLOUT once a send would block */
        ev.data.ptr = &w->c[i];
        if (epoll_ctl(w->ep, EPOLL_CTL_ADD, w->c[i].fd, &ev) != 0)
            goto fail;
    }
    close(lfd);
    return 0;
fail:
    perror("server: the ceiling's connections");
    if (lfd >= 0)
        close(lfd);
    return -1;
}

static void ceiling_close(writer *w)
{
    size_t i;
    for (i = 0; i < w->n; i++)
        close(w->c[i].fd);
    if (w->ep >= 0)
        close(w->ep);
    if (w->efd >= 0)
        close(w->efd);
    free(w->c);
    free(w->log);
}

/* ---- one run ------------------------------------------------------------------------ */

typedef struct result {
    double rate;        /* events delivered per second, all subscribers */
    double p50, p99;    /* ms */
    double bytes_per_event;
    double seconds;
    uint64_t delivered, errors;
} result;

typedef struct side {
    ap_server *srv;     /* NULL: the ceiling */
    writer *w;
    const char *thread;
    uint64_t seq;       /* the ceiling's last seq */
} side;

/* Publishes `events` events (paced at `per_s` events/s, 0 flat out) while the client thread receives. */
static int run(side *sd, client *cl, const sizes *z, size_t events, double per_s, result *r)
{
    pthread_t ct, wt;
    uint64_t t0, i, expect = (uint64_t)events;
    char json[512];
    aps_error err = APS_ERROR_INIT;
    aps_slice tid, none = { NULL, 0 };
    size_t k;
    int rc = 0;
    memset(r, 0, sizeof *r);
    tid.ptr = sd->thread;
    tid.len = sd->thread != NULL ? strlen(sd->thread) : 0;
    for (k = 0; k < cl->n; k++)
        cl->conns[k].events = 0;
    memset(cl->hist, 0, (H_FINE + H_COARSE) * sizeof *cl->hist);
    cl->expect = expect;
    cl->done = 0;
    cl->delivered = cl->bytes = cl->errors = 0;
    cl->deadline_ns = mono_ns() + (uint64_t)(z->run_s * 1e9);
    if (sd->srv == NULL) {
        writer *w = sd->w;
        w->published = 0;
        w->total = SIZE_MAX; /* until the publisher is done */
        w->failed = 0;
        for (k = 0; k < w->n; k++) {
            w->c[k].off = 0;
            w->c[k].blocked = 0;
        }
        if (w->cap < expect * 512u) { /* a record is under 300 bytes */
            free(w->log);
            w->cap = expect * 512u;
            if ((w->log = malloc(w->cap)) == NULL)
                return -1;
        }
        w->deadline_ns = cl->deadline_ns;
        if (pthread_create(&wt, NULL, writer_main, w) != 0)
            return -1;
    }
    if (pthread_create(&ct, NULL, client_main, cl) != 0)
        return -1;
    t0 = mono_ns();
    for (i = 0; i < expect; i++) {
        uint64_t t;
        if (per_s > 0)
            sleep_until(t0 + (uint64_t)((double)i * 1e9 / per_s));
        t = mono_ns();
        if (sd->srv != NULL) {
            int n = event_json(json, sizeof json, t);
            if (ap_server_publish_json(sd->srv, tid, json, (size_t)n, none, NULL, &err) != APS_OK) {
                fprintf(stderr, "server: publish: %s\n", err.message);
                rc = -1;
                break;
            }
        } else {
            writer *w = sd->w;
            uint64_t one = 1;
            size_t at = w->published;
            int n = event_record(w->log + at, w->cap - at, ++sd->seq, t);
            __atomic_store_n(&w->published, at + (size_t)n, __ATOMIC_RELEASE);
            if (write(w->efd, &one, sizeof one) < 0)
                rc = -1;
        }
    }
    if (sd->srv == NULL) {
        __atomic_store_n(&sd->w->total, sd->w->published, __ATOMIC_RELEASE);
        {
            uint64_t one = 1;
            if (write(sd->w->efd, &one, sizeof one) < 0)
                rc = -1;
        }
    }
    pthread_join(ct, NULL);
    if (sd->srv == NULL) {
        pthread_join(wt, NULL);
        if (sd->w->failed)
            rc = -1;
    }
    r->delivered = cl->delivered;
    r->errors = cl->errors;
    r->seconds = (double)(cl->last_ns - t0) * 1e-9;
    r->rate = r->seconds > 0 ? (double)cl->delivered / r->seconds : 0;
    r->p50 = hist_quantile(cl->hist, cl->delivered, 0.50);
    r->p99 = hist_quantile(cl->hist, cl->delivered, 0.99);
    r->bytes_per_event = cl->delivered > 0 ? (double)cl->bytes / (double)cl->delivered : 0;
    if (cl->delivered != expect * cl->n || cl->errors != 0) {
        fprintf(stderr, "server: %s run incomplete: %llu of %llu events delivered, %llu errors\n",
                sd->srv != NULL ? "server" : "ceiling", (unsigned long long)cl->delivered,
                (unsigned long long)(expect * cl->n), (unsigned long long)cl->errors);
        rc = -1;
    }
    return rc;
}

static void print_run(const char *what, const result *r)
{
    printf("  %-22s %12.0f deliveries/s  %6.2f s  p50 %8.3f ms  p99 %8.3f ms  %5.1f B/event\n", what, r->rate,
           r->seconds, r->p50, r->p99, r->bytes_per_event);
    fflush(stdout);
}

/* ---- the area ------------------------------------------------------------------------ */

static int raise_nofile(size_t want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -1;
    if (rl.rlim_cur >= want)
        return 0;
    rl.rlim_cur = want;
    if (rl.rlim_max < want)
        rl.rlim_max = want; /* as root; otherwise this fails and the sizes shrink */
    if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
        return 0;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
    }
    return -1;
}

static size_t nofile(void)
{
    struct rlimit rl;
    return getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (size_t)rl.rlim_cur : 1024;
}

static unsigned long dropped; /* subscribers the server disconnected (its log says so) */

static void quiet_log(void *user, const char *line)
{
    (void)user;
    /* a line per connection would be 22,000 lines of noise: only a disconnection counts */
    if (strstr(line, "disconnecting") != NULL)
        __atomic_add_fetch(&dropped, 1, __ATOMIC_RELAXED);
}

/*
 * Holds `idle` SSE connections on a thread without events and prints the
 * server's memory per connection. The client ends live in a child process
 * (fork), so that both ends fit under an RLIMIT_NOFILE of 20,000 and the
 * readings are the server's alone.
 */
static int idle_connections(ap_server *srv, client *cl, size_t idle)
{
    mem m0, m1;
    int ready[2], hold[2], status = 0;
    char ok = 'n';
    pid_t pid;
    if (make_thread(ap_server_port(srv), "idle") != 0 || pipe(ready) != 0)
        return -1;
    if (pipe(hold) != 0) {
        close(ready[0]);
        close(ready[1]);
        return -1;
    }
    fflush(stdout);
    m0 = mem_now();
    if ((pid = fork()) < 0)
        return -1;
    if (pid == 0) {
        char c;
        close(ready[0]);
        close(hold[1]);
        close(cl->ep);
        cl->ep = epoll_create1(0);
        c = cl->ep >= 0 && open_subscribers(cl, ap_server_port(srv), "idle", idle) == 0 ? 'y' : 'n';
        if (write(ready[1], &c, 1) != 1 || read(hold[0], &c, 1) < 0)
            _exit(1);
        _exit(0); /* the connections close with it */
    }
    close(ready[1]);
    close(hold[0]);
    if (read(ready[0], &ok, 1) != 1)
        ok = 'n';
    m1 = mem_now();
    close(hold[1]);
    close(ready[0]);
    (void)waitpid(pid, &status, 0);
    if (ok != 'y') {
        fprintf(stderr, "server: the idle connections could not all be opened\n");
        return -1;
    }
    printf("idle SSE connections: %zu held; server memory per connection: RSS %.2f KiB, malloc'd %.2f KiB\n", idle,
           (m1.rss - m0.rss) / (double)idle / 1024.0, (m1.heap - m0.heap) / (double)idle / 1024.0);
    return 0;
}

static void print_summary(int repeat, const result *rs, const result *rc_, const double *ratios)
{
    result best_s = rs[0], best_c = rc_[0];
    int i;
    for (i = 1; i < repeat; i++) {
        if (rc_[i].rate > best_c.rate)
            best_c = rc_[i];
        if (rs[i].rate > best_s.rate)
            best_s = rs[i];
    }
    printf("best of %d, flat out: server %.0f deliveries/s, ceiling %.0f deliveries/s: ratio server/ceiling %.2f "
           "(per repeat:",
           repeat, best_s.rate, best_c.rate, best_c.rate > 0 ? best_s.rate / best_c.rate : 0);
    for (i = 0; i < repeat; i++)
        printf(" %.2f", ratios[i]);
    printf(")\n");
}

/* One repeat: each side flat out, then each paced at a half and a tenth of the server's flat-out rate. */
static int one_repeat(ap_server *srv, writer *w, client *cs, client *cc, const sizes *z, result *r_srv,
                      result *r_ceil, double *ratio, mem *after)
{
    side s_srv = { NULL, NULL, "fan", 0 }, s_ceil = { NULL, NULL, NULL, 0 };
    static uint64_t ceil_seq;
    result paced_s, paced_c;
    int rc = 0, k;
    s_srv.srv = srv;
    s_ceil.w = w;
    s_ceil.seq = ceil_seq;
    rc |= run(&s_ceil, cc, z, z->events, 0, r_ceil);
    print_run("ceiling, flat out", r_ceil);
    rc |= run(&s_srv, cs, z, z->events, 0, r_srv);
    if (after != NULL)
        *after = mem_now();
    print_run("server, flat out", r_srv);
    *ratio = r_ceil->rate > 0 ? r_srv->rate / r_ceil->rate : 0;
    printf("  ratio server/ceiling %.2f\n", *ratio);
    if (rc != 0)
        return rc;
    for (k = 0; k < 2 && rc == 0; k++) {
        /* half the server's flat-out rate, then a tenth; runs of about 5.5 s each */
        static const double share[2] = { 0.5, 0.1 };
        double pace = share[k] * r_srv->rate / (double)z->subs;
        size_t n = (size_t)(pace * 5.5);
        if (n < 20)
            n = 20;
        if (n > z->events)
            n = z->events;
        printf("  paced at %.0f events/s (%.0f%% of the server's flat-out rate: %.0f deliveries/s), %zu events:\n",
               pace, share[k] * 100, pace * (double)z->subs, n);
        rc |= run(&s_srv, cs, z, n, pace, &paced_s);
        print_run("server, paced", &paced_s);
        rc |= run(&s_ceil, cc, z, n, pace, &paced_c);
        print_run("ceiling, paced", &paced_c);
    }
    ceil_seq = s_ceil.seq;
    return rc;
}

int bench_server(const bench_config *cfg)
{
    sizes z;
    ap_server *srv = NULL;
    ap_server_options o;
    aps_error err = APS_ERROR_INIT;
    client cs, cc; /* the server's subscribers (then the idle connections), the ceiling's receivers */
    writer w;
    result rs[MAX_REPEAT], rc_[MAX_REPEAT];
    double ratios[MAX_REPEAT];
    int repeat = cfg->repeat < MAX_REPEAT ? cfg->repeat : MAX_REPEAT, rep, rc = 0, have_w = 0;
    mem m0, m1, m2;
    size_t need;
    if (cfg->corpus_bytes <= (8u << 20)) {
        z.subs = 20;
        z.events = 200;
        z.idle = 200;
        z.run_s = 20;
    } else {
        z.subs = 1000;
        z.events = 10000;
        z.idle = 10000;
        z.run_s = 120;
    }
    /* both ends of the fan-out's connections are in this process, the idle ones' client ends in a child */
    need = (4 * z.subs > z.idle ? 4 * z.subs : z.idle) + 256;
    (void)raise_nofile(need);
    if (nofile() < need) {
        size_t room = nofile() > 4 * z.subs + 256 ? nofile() - 256 : 0;
        printf("RLIMIT_NOFILE %zu: idle connections cut from %zu to %zu\n", nofile(), z.idle, room);
        z.idle = room;
    }
    memset(rs, 0, sizeof rs);
    memset(rc_, 0, sizeof rc_);
    memset(&o, 0, sizeof o);
    o.replay.max_events = z.events + 1024; /* a flat-out run's events all stay in the log */
    o.replay.max_bytes = (z.events + 1024) * 512u;
    o.max_connections = 2 * z.subs + z.idle + 64;
    o.log = quiet_log;
    if (client_init(&cs, z.subs > z.idle ? z.subs : z.idle) != 0 || client_init(&cc, z.subs) != 0) {
        fprintf(stderr, "server: no memory for the client\n");
        return 1;
    }
    if (ap_server_start(&srv, &o, &err) != APS_OK) {
        fprintf(stderr, "server: ap_server_start: %s\n", err.message);
        client_deinit(&cs);
        client_deinit(&cc);
        return 1;
    }
    printf("%zu subscribers x %zu events (%zu deliveries), 127.0.0.1:%u; ceiling: a minimal epoll writer, same "
           "bytes, %zu plain TCP connections; every figure below from this run\n",
           z.subs, z.events, z.subs * z.events, ap_server_port(srv), z.subs);
    if (make_thread(ap_server_port(srv), "fan") != 0) {
        fprintf(stderr, "server: cannot make the thread\n");
        rc = 1;
        goto done;
    }
    m0 = mem_now();
    if (open_subscribers(&cs, ap_server_port(srv), "fan", z.subs) != 0) {
        rc = 1;
        goto done;
    }
    m1 = mem_now();
    if (ceiling_open(&w, &cc, z.subs) != 0) {
        rc = 1;
        goto done;
    }
    have_w = 1;
    m2 = m1;
    for (rep = 0; rep < repeat && rc == 0; rep++) {
        printf("repeat %d\n", rep + 1);
        rc |= one_repeat(srv, &w, &cs, &cc, &z, &rs[rep], &rc_[rep], &ratios[rep], rep == 0 ? &m2 : NULL);
    }
    if (rc == 0) {
        print_summary(repeat, rs, rc_, ratios);
        printf("server memory per subscriber: RSS %.2f KiB, malloc'd %.2f KiB once connected; after the first "
               "flat-out run RSS %.2f KiB, malloc'd %.2f KiB (RSS includes the thread log's records, ~%.2f KiB per "
               "subscriber)\n",
               (m1.rss - m0.rss) / (double)z.subs / 1024.0, (m1.heap - m0.heap) / (double)z.subs / 1024.0,
               (m2.rss - m0.rss) / (double)z.subs / 1024.0, (m2.heap - m0.heap) / (double)z.subs / 1024.0,
               (double)z.events * rs[0].bytes_per_event / (double)z.subs / 1024.0);
    }
    if (dropped != 0)
        printf("the server disconnected %lu slow subscribers\n", dropped);
    /* the subscribers go; the idle connections follow, on a thread without events */
    client_close_all(&cs);
    if (rc == 0 && z.idle > 0)
        rc |= idle_connections(srv, &cs, z.idle);
done:
    if (have_w)
        ceiling_close(&w);
    ap_server_stop(srv);
    client_deinit(&cs);
    client_deinit(&cc);
    return rc != 0;
}

#else

int bench_server(const bench_config *cfg)
{
    (void)cfg;
    printf("skipped: the thread server (libwebsockets) is not built here\n");
    return 0;
}

#endif
