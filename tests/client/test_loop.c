/*
 * test_loop.c - the thread client's loop (ap_client.h) on a real socket of
 * 127.0.0.1: a server thread answers the subscription with headers and one
 * event, then keeps the stream open and silent. Checked:
 *   - ap_client_fd: a loop of the caller's own (poll on the descriptor,
 *     ap_client_step(c, 0), at most ap_client_timeout_ms between steps)
 *     gets the event;
 *   - ap_client_step(c, 300) on a silent stream waits at most 300 ms, and a
 *     loop of them does not spin;
 *   - a callback that calls back into the client gets APS_E_STATE;
 *   - ap_client_cancel from another thread ends a ap_client_run_until_done
 *     with no time limit, with APS_E_STATE "cancelled", within a second;
 *   - close with the stream still open frees everything (the sanitizer
 *     build checks the leaks).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ap_client.h"

static int failures;

#define CHECK(cond, ...)                                                                                              \
    do {                                                                                                              \
        if (!(cond)) {                                                                                                \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                      \
            fprintf(stderr, __VA_ARGS__);                                                                             \
            fputc('\n', stderr);                                                                                      \
            failures++;                                                                                               \
        }                                                                                                             \
    } while (0)

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

typedef struct server {
    int listen_fd;
    int stop; /* __atomic */
} server;

static void *serve(void *arg)
{
    static const char answer[] =
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n"
        "id: e1\nevent: lifecycle\ndata: {\"type\":\"event\",\"eventId\":\"e1\",\"seq\":1,\"method\":\"lifecycle\","
        "\"params\":{\"namespace\":[],\"timestamp\":1800000000000,\"data\":{\"event\":\"running\"}}}\n\n";
    server *s = arg;
    char req[4096];
    int fd = accept(s->listen_fd, NULL, NULL);
    if (fd < 0)
        return NULL;
    if (read(fd, req, sizeof req) <= 0 || write(fd, answer, sizeof answer - 1) < 0) {
        close(fd);
        return NULL;
    }
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
        usleep(10000); /* silent, the stream open */
    close(fd);
    return NULL;
}

typedef struct state {
    ap_client *c;
    unsigned long events;
    aps_status reentered;
} state;

static void on_event(void *user, const ap_event_t *ev, const char *json, size_t len)
{
    state *st = user;
    aps_error err = APS_ERROR_INIT;
    (void)ev, (void)json, (void)len;
    st->events++;
    st->reentered = ap_client_step(st->c, 0, &err); /* not allowed from a callback */
}

static void *cancel_later(void *arg)
{
    usleep(200000);
    ap_client_cancel(arg);
    return NULL;
}

int main(void)
{
    server s;
    state st;
    struct sockaddr_in addr;
    socklen_t alen = sizeof addr;
    pthread_t th, canceller;
    char url[64];
    ap_client_options o;
    ap_client_run_end end = AP_CLIENT_RUN_NONE;
    aps_error err = APS_ERROR_INIT;
    aps_status rc;
    double t0;
    int fd, one = 1;
    memset(&s, 0, sizeof s);
    memset(&st, 0, sizeof st);
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if ((s.listen_fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
        setsockopt(s.listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(s.listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(s.listen_fd, 4) != 0 ||
        getsockname(s.listen_fd, (struct sockaddr *)&addr, &alen) != 0 || pthread_create(&th, NULL, serve, &s) != 0) {
        perror("test_loop: the server");
        return 1;
    }
    snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(addr.sin_port));
    memset(&o, 0, sizeof o);
    o.url = url;
    o.thread_id = "loop";
    o.callbacks.on_event = on_event;
    o.callbacks.user = &st;
    st.c = ap_client_open(&o, &err);
    CHECK(st.c != NULL, "open: %s", err.message);
    if (st.c == NULL)
        return 1;
    CHECK(ap_client_subscribe(st.c, NULL, &err) == APS_OK, "subscribe: %s", err.message);
    fd = ap_client_fd(st.c);
    CHECK(fd >= 0, "ap_client_fd");

    /* the caller's loop: poll the descriptor, step without waiting */
    t0 = now_ms();
    while (st.events == 0 && now_ms() - t0 < 5000) {
        struct pollfd p = { 0 };
        p.fd = fd;
        p.events = POLLIN;
        (void)poll(&p, 1, ap_client_timeout_ms(st.c));
        CHECK(ap_client_step(st.c, 0, &err) == APS_OK, "step: %s", err.message);
    }
    CHECK(st.events == 1, "the loop on ap_client_fd got %lu events, not 1", st.events);
    CHECK(st.reentered == APS_E_STATE, "a step from a callback: %s, not APS_E_STATE", aps_status_str(st.reentered));

    /* a silent stream: a step waits at most its timeout (libcurl may end a wait early for a timer of its own),
       and a loop of steps does not spin */
    {
        int steps = 0;
        t0 = now_ms();
        while (now_ms() - t0 < 1000) {
            double s0 = now_ms();
            CHECK(ap_client_step(st.c, 300, &err) == APS_OK, "step: %s", err.message);
            CHECK(now_ms() - s0 < 800, "step(300) took %.0f ms", now_ms() - s0);
            steps++;
        }
        CHECK(steps <= 100, "%d steps of 300 ms in a second of silence: the loop spins", steps);
        printf("test_loop: %d steps of at most 300 ms in a second of silence\n", steps);
    }

    /* cancelled from another thread while waiting for a run's end with no time limit */
    CHECK(pthread_create(&canceller, NULL, cancel_later, st.c) == 0, "the cancelling thread");
    t0 = now_ms();
    rc = ap_client_run_until_done(st.c, 0, &end, &err);
    CHECK(rc == APS_E_STATE && strcmp(err.message, "cancelled") == 0, "run_until_done: %s (%s)", aps_status_str(rc),
          err.message);
    CHECK(now_ms() - t0 < 1200, "the cancel took %.0f ms", now_ms() - t0);
    CHECK(end == AP_CLIENT_RUN_NONE, "the run's end: %d", (int)end);
    pthread_join(canceller, NULL);

    ap_client_close(st.c);
    __atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    close(s.listen_fd);
    if (failures == 0)
        printf("test_loop: ok\n");
    return failures != 0;
}
