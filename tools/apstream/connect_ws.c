/*
 * connect_ws.c - `apstream connect` over WebSocket, on the thread client's
 * WebSocket transport (runtime/protocol/client/client_io.h: libwebsockets'
 * client side, the library the thread server is built on; it does the
 * upgrade and RFC 6455 framing; Debian's libcurl has no WebSocket). One
 * connection per subscription (a WebSocket's subscriptions share one
 * stream, so the filtered one needs its own socket); commands go in band on
 * the subscription's socket. A subscription is `subscription.subscribe`;
 * a resume is a new socket, `subscription.subscribe`, then
 * `subscription.reconnect` with the last eventId: the events the subscribe
 * replays before the reconnect's answer are not the resumed stream and are
 * skipped (connect_read.c). Messages are assembled up to max_record bytes;
 * a longer one is an error and closes the socket.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_io.h"
#include "connect.h"

typedef struct ws_conn {
    struct ws_transport *t;
    struct ws_conn *next;
    apc_conn *conn;
    cx_stream *st;            /* NULL once the client let go of it (a resume has a new connection) */
    int gone;                 /* the transport said it ended, or the client closed it */
} ws_conn;

typedef struct ws_transport {
    cx_transport base;
    apc_io *io;
    ws_conn *conns;
} ws_transport;

static void conn_error(ws_conn *c, const char *rule, const char *fmt, const char *detail)
{
    cx_session *s = c->t->base.s;
    if (c->st == NULL || c->st->stop)
        return;
    cx_error(s, c->st->role == CX_MAIN ? s->events : 0, rule, NULL, NULL, fmt, detail);
    c->st->stop = 1;
}

static int on_message(void *user, const char *text, size_t len)
{
    ws_conn *c = user;
    if (c->st == NULL || c->st->stop)
        return 1;
    return cx_ws_message(c->st, text, len) == 0 ? 0 : 1;
}

static void on_done(void *user, const apc_done *d)
{
    ws_conn *c = user;
    c->gone = 1;
    switch (d->end) {
    case APC_END_BINARY:
        conn_error(c, "framing", "%s", "a binary WebSocket message: the protocol sends JSON text");
        return;
    case APC_END_TOO_LARGE:
        conn_error(c, "too-large", "%s", "a WebSocket message over the size bound (--max-event)");
        return;
    case APC_END_STATUS:
    case APC_END_UNREACHABLE:
    case APC_END_FAILED: {
        /* the server answered the upgrade with a status of its own: no protocol route (exit 1), not
           nothing listening (exit 2) */
        unsigned status = (unsigned)d->status;
        if (c->st == NULL)
            return;
        c->st->closed = 1;
        if (!c->st->stop && status == 404) {
            cx_no_endpoint(c->t->base.s, "the WebSocket upgrade", (long)status);
            c->st->stop = 1;
        } else if (!c->st->stop && status != 0) {
            char why[64];
            snprintf(why, sizeof why, "%u", status);
            conn_error(c, "http-status", "the WebSocket upgrade was answered HTTP %s", why);
        } else if (!c->st->stop && !d->established && c->st->role == CX_MAIN && c->t->base.s->events == 0) {
            fprintf(stderr, "apstream: error: %s/threads/%s: WebSocket: %s\n", c->t->base.base, c->t->base.thread,
                    d->why != NULL ? d->why : "the connection failed");
            c->t->base.s->io_error = 1;
            c->st->stop = 1;
        }
        conn_error(c, "connection", "the WebSocket failed: %s", d->why != NULL ? d->why : "(no reason given)");
        return;
    }
    case APC_END_CLOSED:
        if (c->st != NULL) {
            c->st->closed = 1;
            if (!c->st->stop && c->st->role == CX_MAIN)
                conn_error(c, "stream-end", "the server closed the WebSocket before the run's root lifecycle ended%s",
                           "");
            else
                conn_error(c, "stream-end", "the server closed the WebSocket before the run's end%s", "");
        }
        return;
    default: /* STOPPED: the reading path's verdict is said; GONE: nothing more to say */
        return;
    }
}

static ws_transport *of(cx_transport *t)
{
    return (ws_transport *)t;
}

/* A command connect makes itself, pending on `c`'s stream (`send` zero: the socket was refused, so only noted). */
static int own_command(ws_transport *t, ws_conn *c, const char *method, const char *params, int reconnect, int send)
{
    char *text;
    size_t cap = strlen(params) + 128;
    int rc = 0;
    uint64_t id = t->base.s->next_id++;
    if ((text = malloc(cap)) == NULL)
        return -1;
    snprintf(text, cap, "{\"id\":%" PRIu64 ",\"method\":\"%s\",\"params\":%s}", id, method, params);
    if (send)
        rc = apc_ws_send(c->conn, text, strlen(text)) == APS_OK ? 0 : -1;
    free(text);
    if (rc == 0 && cx_pending_add(t->base.s, id, method, c->st, reconnect) != 0)
        rc = -1;
    return rc;
}

/* The params of subscription.reconnect: the run, and the eventId after which to resume. */
static char *reconnect_params(const cx_session *s, const cx_stream *st)
{
    aps_json_writer w;
    const char *id = st->role == CX_PROBE ? s->first_id : s->last_id;
    size_t id_len = st->role == CX_PROBE ? s->first_id_len : s->last_id_len;
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "runId", 5);
    aps_json_write_string(&w, s->run_id, s->run_id_len);
    aps_json_write_key(&w, "lastEventId", 11);
    aps_json_write_string(&w, id, id_len);
    aps_json_write_object_end(&w);
    return cx_json_take(&w);
}

static int ws_open(cx_transport *tp, cx_stream *st, const char *request)
{
    ws_transport *t = of(tp);
    apc_handler h;
    int refused = 0, send;
    ws_conn *c = calloc(1, sizeof *c);
    if (c == NULL)
        return -1;
    c->t = t;
    c->st = st;
    c->next = t->conns;
    t->conns = c;
    h.on_data = on_message;
    h.on_done = on_done;
    h.user = c;
    c->conn = apc_ws_open(t->io, t->base.thread, "stream/events", &h, &refused);
    if (c->conn == NULL && !refused)
        return -1;
    send = c->conn != NULL && !c->gone;
    /* the filter of the request is the subscription's params; a resume is the reconnect after it */
    if (st->role != CX_COMMANDS && own_command(t, c, "subscription.subscribe", request, 0, send) != 0)
        return -1;
    if (st->how == CX_RESUME_RECONNECT) {
        char *params = reconnect_params(t->base.s, st);
        int rc = params != NULL ? own_command(t, c, "subscription.reconnect", params, 1, send) : -1;
        free(params);
        if (rc != 0)
            return -1;
        st->waiting_reconnect = 1;
    }
    if (refused) {
        c->gone = 1;
        st->closed = 1;
        conn_error(c, "connection", "cannot open a WebSocket: %s", "lws_client_connect_via_info failed");
    }
    return 0;
}

static ws_conn *conn_of(ws_transport *t, const cx_stream *st)
{
    ws_conn *c;
    for (c = t->conns; c != NULL; c = c->next)
        if (c->st == st && !c->gone)
            return c;
    return NULL;
}

static int ws_command(cx_transport *tp, cx_stream *on, const char *text, size_t len, uint64_t id)
{
    ws_conn *c = conn_of(of(tp), on);
    (void)id;
    return c != NULL && apc_ws_send(c->conn, text, len) == APS_OK ? 0 : -1;
}

static void ws_pump(cx_transport *tp, int ms)
{
    ws_transport *t = of(tp);
    ws_conn *c;
    int64_t now;
    apc_io_pump(t->io, ms);
    now = cx_now_ms();
    for (c = t->conns; c != NULL; c = c->next) {
        /* a stall only when asked for: silence is no finding of the protocol's */
        if (tp->stall_s == 0 || c->gone || c->st == NULL || c->st->stop ||
            now - apc_conn_last_byte_ms(c->conn) < (int64_t)tp->stall_s * 1000)
            continue;
        if (tp->s->stall_said++ == 0) /* one cause: said for the first socket it stops */
            conn_error(c, "stall", "the WebSocket stalled: no byte for %s", "the stall time (--stall)");
        c->st->stop = 1;
        c->st->closed = 1;
        c->gone = 1;
        apc_conn_close(c->conn);
    }
}

static void ws_close(cx_transport *tp, cx_stream *st)
{
    ws_transport *t = of(tp);
    ws_conn *c;
    for (c = t->conns; c != NULL; c = c->next)
        if (c->st == st) {
            c->st = NULL; /* whatever it still receives is no longer this stream's */
            if (!c->gone)
                apc_conn_close(c->conn);
            c->gone = 1;
        }
    st->stop = st->closed = 1;
}

static void ws_free(cx_transport *tp)
{
    ws_transport *t = of(tp);
    ws_conn *c;
    apc_io_free(t->io); /* no callback from here on */
    while ((c = t->conns) != NULL) {
        t->conns = c->next;
        free(c);
    }
    free(t);
}

static const cx_transport_ops ws_ops = { ws_open, ws_command, ws_pump, ws_close, ws_free };

cx_transport *cx_ws_transport(cx_session *s, const char *base, const char *thread, unsigned stall_s)
{
    aps_error err = APS_ERROR_INIT;
    ws_transport *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    if ((t->io = apc_io_new(base, 1, s->o->max_record, &err)) == NULL) {
        if (err.code == APS_E_ARGUMENT)
            fprintf(stderr, "apstream: error: --transport websocket needs an http://HOST[:PORT] URL, not '%s'\n",
                    base);
        free(t);
        return NULL;
    }
    t->base.ops = &ws_ops;
    t->base.s = s;
    t->base.base = base;
    t->base.thread = thread;
    t->base.stall_s = stall_s;
    return &t->base;
}
