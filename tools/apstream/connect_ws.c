/*
 * connect_ws.c - `apstream connect` over WebSocket, on libwebsockets'
 * client side (the library the thread server is built on: it does the
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

#include <libwebsockets.h>

#include "connect.h"

#define WS_MAX_QUEUE 8

typedef struct ws_conn {
    struct ws_transport *t;
    struct ws_conn *next;
    struct lws *wsi;
    cx_stream *st;            /* NULL once the client let go of it (a resume has a new connection) */
    char *msg;                /* the message being assembled, APS_PADDING zero bytes after it */
    size_t len, cap;
    char *out[WS_MAX_QUEUE];  /* texts to send, in order (owned) */
    size_t out_len[WS_MAX_QUEUE];
    size_t nout;
    int established, gone, closing;
    int64_t last_byte_ms;
} ws_conn;

typedef struct ws_transport {
    cx_transport base;
    struct lws_context *ctx;
    lws_sorted_usec_list_t tick;
    ws_conn *conns;
    char host[256];
    char host_port[300];
    char prefix[512];
    int port;
    uint64_t next_id;
} ws_transport;

static void conn_error(ws_conn *c, const char *rule, const char *fmt, const char *detail)
{
    cx_session *s = c->t->base.s;
    if (c->st == NULL || c->st->stop)
        return;
    cx_error(s, c->st->role == CX_MAIN ? s->events : 0, rule, NULL, NULL, fmt, detail);
    c->st->stop = 1;
}

static int on_receive(ws_conn *c, const char *in, size_t len)
{
    size_t max = c->t->base.s->o->max_record;
    c->last_byte_ms = cx_now_ms();
    if (c->st == NULL || c->st->stop)
        return -1;
    if (lws_frame_is_binary(c->wsi)) {
        conn_error(c, "framing", "%s", "a binary WebSocket message: the protocol sends JSON text");
        return -1;
    }
    if (c->len + len > max) {
        conn_error(c, "too-large", "%s", "a WebSocket message over the size bound (--max-event)");
        return -1;
    }
    if (c->len + len + APS_PADDING > c->cap) {
        size_t cap = (c->len + len + APS_PADDING) * 2;
        char *grown = realloc(c->msg, cap < max + APS_PADDING ? cap : max + APS_PADDING);
        if (grown == NULL)
            return -1;
        c->msg = grown;
        c->cap = cap < max + APS_PADDING ? cap : max + APS_PADDING;
    }
    memcpy(c->msg + c->len, in, len);
    c->len += len;
    if (!lws_is_final_fragment(c->wsi))
        return 0;
    memset(c->msg + c->len, 0, APS_PADDING);
    len = c->len;
    c->len = 0;
    return cx_ws_message(c->st, c->msg, len) == 0 ? 0 : -1;
}

static int on_writable(ws_conn *c)
{
    unsigned char *buf;
    size_t n, i;
    int wrote;
    if (c->closing || c->nout == 0)
        return c->closing ? -1 : 0;
    n = c->out_len[0];
    if ((buf = malloc(LWS_PRE + n)) == NULL)
        return -1;
    memcpy(buf + LWS_PRE, c->out[0], n);
    wrote = lws_write(c->wsi, buf + LWS_PRE, n, LWS_WRITE_TEXT);
    free(buf);
    free(c->out[0]);
    for (i = 1; i < c->nout; i++) {
        c->out[i - 1] = c->out[i];
        c->out_len[i - 1] = c->out_len[i];
    }
    c->nout--;
    if (wrote < (int)n)
        return -1;
    if (c->nout > 0)
        lws_callback_on_writable(c->wsi);
    return 0;
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    ws_conn *c = user;
    if (c == NULL)
        return 0;
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        c->established = 1;
        c->last_byte_ms = cx_now_ms();
        if (c->nout > 0)
            lws_callback_on_writable(c->wsi);
        return 0;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        return on_receive(c, in, len);
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        return on_writable(c);
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR: {
        /* the server answered the upgrade with a status of its own: no protocol route (exit 1), not
           nothing listening (exit 2) */
        unsigned status = wsi != NULL && !c->established ? lws_http_client_http_response(wsi) : 0;
        c->gone = 1;
        if (c->st == NULL)
            return 0;
        c->st->closed = 1;
        if (!c->st->stop && status == 404) {
            cx_no_endpoint(c->t->base.s, "the WebSocket upgrade", (long)status);
            c->st->stop = 1;
        } else if (!c->st->stop && status != 0) {
            char why[64];
            snprintf(why, sizeof why, "%u", status);
            conn_error(c, "http-status", "the WebSocket upgrade was answered HTTP %s", why);
        } else if (!c->st->stop && !c->established && c->st->role == CX_MAIN && c->t->base.s->events == 0) {
            fprintf(stderr, "apstream: error: %s/threads/%s: WebSocket: %s\n", c->t->base.base, c->t->base.thread,
                    in != NULL ? (const char *)in : "the connection failed");
            c->t->base.s->io_error = 1;
            c->st->stop = 1;
        }
        conn_error(c, "connection", "the WebSocket failed: %s", in != NULL ? (const char *)in : "(no reason given)");
        return 0;
    }
    case LWS_CALLBACK_CLIENT_CLOSED:
        c->gone = 1;
        if (c->st != NULL) {
            c->st->closed = 1;
            if (!c->st->stop && c->st->role == CX_MAIN)
                conn_error(c, "stream-end", "the server closed the WebSocket before the run's root lifecycle ended%s",
                           "");
            else
                conn_error(c, "stream-end", "the server closed the WebSocket before the run's end%s", "");
        }
        return 0;
    case LWS_CALLBACK_WSI_DESTROY:
        c->gone = 1;
        c->wsi = NULL;
        return 0;
    default:
        return 0;
    }
}

static const struct lws_protocols protocols[] = {
    { "apstream-connect", callback, 0, 0, 0, NULL, 0 },
    { NULL, NULL, 0, 0, 0, NULL, 0 },
};

static ws_transport *of(cx_transport *t)
{
    return (ws_transport *)t;
}

static int enqueue(ws_conn *c, const char *text, size_t len)
{
    char *copy;
    if (c->nout == WS_MAX_QUEUE || (copy = malloc(len + 1)) == NULL)
        return -1;
    memcpy(copy, text, len);
    copy[len] = '\0';
    c->out[c->nout] = copy;
    c->out_len[c->nout++] = len;
    if (c->established && c->wsi != NULL)
        lws_callback_on_writable(c->wsi);
    return 0;
}

/* A command connect makes itself, pending on `st`. */
static int own_command(ws_transport *t, ws_conn *c, const char *method, const char *params, int reconnect)
{
    char *text;
    size_t cap = strlen(params) + 128;
    int rc;
    uint64_t id = t->base.s->next_id++;
    if ((text = malloc(cap)) == NULL)
        return -1;
    snprintf(text, cap, "{\"id\":%" PRIu64 ",\"method\":\"%s\",\"params\":%s}", id, method, params);
    rc = enqueue(c, text, strlen(text));
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
    struct lws_client_connect_info ci;
    char path[1024];
    ws_conn *c = calloc(1, sizeof *c);
    if (c == NULL)
        return -1;
    c->t = t;
    c->st = st;
    c->last_byte_ms = cx_now_ms();
    c->next = t->conns;
    t->conns = c;
    /* the filter of the request is the subscription's params; a resume is the reconnect after it */
    if (st->role != CX_COMMANDS && own_command(t, c, "subscription.subscribe", request, 0) != 0)
        return -1;
    if (st->how == CX_RESUME_RECONNECT) {
        char *params = reconnect_params(t->base.s, st);
        int rc = params != NULL ? own_command(t, c, "subscription.reconnect", params, 1) : -1;
        free(params);
        if (rc != 0)
            return -1;
        st->waiting_reconnect = 1;
    }
    snprintf(path, sizeof path, "%s/threads/%s/stream/events", t->prefix, t->base.thread);
    memset(&ci, 0, sizeof ci);
    ci.context = t->ctx;
    ci.address = t->host;
    ci.port = t->port;
    ci.path = path;
    ci.host = t->host_port;
    ci.origin = t->host_port;
    ci.ietf_version_or_minus_one = -1;
    ci.userdata = c;
    ci.local_protocol_name = protocols[0].name;
    ci.pwsi = &c->wsi;
    if (lws_client_connect_via_info(&ci) == NULL && !c->gone) {
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
    return c != NULL ? enqueue(c, text, len) : -1;
}

static void wake(lws_sorted_usec_list_t *sul)
{
    (void)sul; /* only to end lws_service's wait */
}

static void ws_pump(cx_transport *tp, int ms)
{
    ws_transport *t = of(tp);
    ws_conn *c;
    int64_t now;
    lws_sul_schedule(t->ctx, 0, &t->tick, wake, (lws_usec_t)ms * 1000);
    lws_service(t->ctx, ms);
    now = cx_now_ms();
    for (c = t->conns; c != NULL; c = c->next) {
        /* a stall only when asked for: silence is no finding of the protocol's */
        if (tp->stall_s == 0 || c->gone || c->st == NULL || c->st->stop ||
            now - c->last_byte_ms < (int64_t)tp->stall_s * 1000)
            continue;
        if (tp->s->stall_said++ == 0) /* one cause: said for the first socket it stops */
            conn_error(c, "stall", "the WebSocket stalled: no byte for %s", "the stall time (--stall)");
        c->st->stop = 1;
        c->st->closed = 1;
        c->closing = 1;
        if (c->wsi != NULL)
            lws_callback_on_writable(c->wsi);
    }
}

static void ws_close(cx_transport *tp, cx_stream *st)
{
    ws_transport *t = of(tp);
    ws_conn *c;
    for (c = t->conns; c != NULL; c = c->next)
        if (c->st == st) {
            c->st = NULL; /* whatever it still receives is no longer this stream's */
            c->closing = 1;
            if (!c->gone && c->wsi != NULL)
                lws_callback_on_writable(c->wsi);
        }
    st->stop = st->closed = 1;
}

static void ws_free(cx_transport *tp)
{
    ws_transport *t = of(tp);
    ws_conn *c;
    for (c = t->conns; c != NULL; c = c->next)
        c->st = NULL;
    lws_context_destroy(t->ctx);
    while ((c = t->conns) != NULL) {
        size_t i;
        t->conns = c->next;
        for (i = 0; i < c->nout; i++)
            free(c->out[i]);
        free(c->msg);
        free(c);
    }
    free(t);
}

static const cx_transport_ops ws_ops = { ws_open, ws_command, ws_pump, ws_close, ws_free };

/* HOST, PORT and the path prefix of http://HOST[:PORT][/prefix]. -1 when it is not such a URL. */
static int parse_base(ws_transport *t, const char *base)
{
    const char *h, *end, *colon;
    size_t n;
    if (strncmp(base, "http://", 7) != 0)
        return -1;
    h = base + 7;
    end = strchr(h, '/');
    if (end == NULL)
        end = h + strlen(h);
    colon = memchr(h, ':', (size_t)(end - h));
    n = (size_t)((colon != NULL ? colon : end) - h);
    if (n == 0 || n >= sizeof t->host || strlen(end) >= sizeof t->prefix)
        return -1;
    memcpy(t->host, h, n);
    t->host[n] = '\0';
    t->port = colon != NULL ? atoi(colon + 1) : 80;
    if (t->port <= 0 || t->port > 65535)
        return -1;
    snprintf(t->host_port, sizeof t->host_port, "%s:%d", t->host, t->port);
    snprintf(t->prefix, sizeof t->prefix, "%s", end);
    return 0;
}

cx_transport *cx_ws_transport(cx_session *s, const char *base, const char *thread, unsigned stall_s)
{
    struct lws_context_creation_info info;
    ws_transport *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    if (parse_base(t, base) != 0) {
        fprintf(stderr, "apstream: error: --transport websocket needs an http://HOST[:PORT] URL, not '%s'\n", base);
        free(t);
        return NULL;
    }
    lws_set_log_level(0, NULL); /* connect reports what goes wrong itself, once, located */
    memset(&info, 0, sizeof info);
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.gid = -1;
    info.uid = -1;
    if ((t->ctx = lws_create_context(&info)) == NULL) {
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
