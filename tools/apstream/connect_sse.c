/*
 * connect_sse.c - `apstream connect` over HTTP: SSE subscriptions
 * (POST …/threads/ID/stream/events, or /stream when the server has only the
 * protocol text's spelling) and commands (POST …/threads/ID/commands), on
 * the thread client's HTTP transport (runtime/protocol/client/client_io.h,
 * libcurl's multi interface), so the subscriptions and a command run at
 * once in one loop that connect.c drives. Bytes go to the reading path
 * (connect_read.c) as they arrive; the transport judges nothing, and here
 * is only what the clock or HTTP shows: a response body over the size
 * bound, an HTTP status other than 200, a heartbeat the server set up and
 * then missed, and (only with --stall) a connection silent that long.
 * Silence alone is no finding: the protocol asks for no heartbeat, and a
 * node may think for minutes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_io.h"
#include "connect.h"

typedef struct sse_xfer {
    struct sse_transport *t;
    struct sse_xfer *next;
    apc_conn *conn;
    cx_stream *st;            /* a subscription; NULL: a command */
    int fallback;             /* the subscription went to /stream after /stream/events was not found */
    char *request;            /* the subscription's EventStreamRequest (owned): kept for the fallback */
    uint64_t id;              /* a command's id */
    char method[40];          /* its method, for findings */
    /* the heartbeat the server showed: two comments with nothing between, `period_ms` apart */
    uint64_t heartbeats;      /* st->heartbeats when last looked at */
    uint64_t events_then;     /* st->count at the last heartbeat */
    int64_t heartbeat_ms;     /* when the last one came (0: none yet) */
    int64_t period_ms;        /* the longest such gap (0: no heartbeat shown) */
} sse_xfer;

typedef struct sse_transport {
    cx_transport base;
    apc_io *io;
    sse_xfer *xfers;
} sse_transport;

static sse_transport *of(cx_transport *t)
{
    return (sse_transport *)t;
}

/* Forgets `x`; its connection is closed unless the transport is done with it already. */
static void xfer_free(sse_transport *t, sse_xfer *x, int close)
{
    sse_xfer **p;
    for (p = &t->xfers; *p != NULL; p = &(*p)->next)
        if (*p == x) {
            *p = x->next;
            break;
        }
    if (close)
        apc_conn_close(x->conn);
    free(x->request);
    free(x);
}

static int on_stream_bytes(void *user, const char *bytes, size_t len)
{
    sse_xfer *x = user;
    /* anything but 0 (go on) ends the transfer: the client is done with it, or cannot go on */
    return cx_sse_push(x->st, bytes, len) == 0 ? 0 : 1;
}

static void finished(void *user, const apc_done *d);

static sse_xfer *xfer_start(sse_transport *t, const char *path, const char *body, const char *const *headers,
                            cx_stream *st)
{
    apc_handler h;
    sse_xfer *x = calloc(1, sizeof *x);
    if (x == NULL)
        return NULL;
    x->t = t;
    x->st = st;
    h.on_data = st != NULL ? on_stream_bytes : NULL;
    h.on_done = finished;
    h.user = x;
    if ((x->conn = apc_http_post(t->io, t->base.thread, path, body, strlen(body), headers, st != NULL, &h)) == NULL) {
        free(x);
        return NULL;
    }
    x->next = t->xfers;
    t->xfers = x;
    return x;
}

/* The body of a subscription: the request, with `since` or `sinceEventId` when it resumes so. */
static char *subscription_body(const char *request, const cx_stream *st)
{
    const char *close = strrchr(request, '}');
    size_t head = close != NULL ? (size_t)(close - request) : 0, cap = strlen(request) + CX_MAX_ID * 6 + 64;
    char *body = close != NULL ? malloc(cap) : NULL;
    if (body == NULL)
        return NULL;
    memcpy(body, request, head);
    body[head] = '\0';
    if (st->how == CX_RESUME_SINCE) {
        snprintf(body + head, cap - head, ",\"since\":%" PRIu64 "}", st->after_seq);
    } else if (st->how == CX_RESUME_SINCE_EVENT_ID) {
        aps_json_writer w;
        aps_json_writer_init(&w, NULL);
        aps_json_write_string(&w, st->s->last_id, st->s->last_id_len);
        snprintf(body + head, cap - head, ",\"sinceEventId\":%.*s}", (int)aps_json_writer_len(&w),
                 aps_json_writer_data(&w));
        aps_json_writer_deinit(&w);
    } else {
        snprintf(body + head, cap - head, "}");
    }
    return body;
}

static int open_path(sse_transport *t, cx_stream *st, const char *request, int fallback)
{
    sse_xfer *x;
    const char *headers[2] = { NULL, NULL };
    char h[CX_MAX_ID + 32];
    char *body = subscription_body(request, st), *kept = strdup(request);
    if (body == NULL || kept == NULL) {
        free(body);
        free(kept);
        return -1;
    }
    if (st->how == CX_RESUME_LAST_EVENT_ID) {
        snprintf(h, sizeof h, "last-event-id: %.*s", (int)st->s->last_id_len, st->s->last_id);
        headers[0] = h;
    }
    x = xfer_start(t, fallback ? "stream" : "stream/events", body, headers, st);
    free(body);
    if (x == NULL) {
        free(kept);
        return -1;
    }
    x->request = kept;
    x->fallback = fallback;
    return 0;
}

static int sse_open(cx_transport *tp, cx_stream *st, const char *request)
{
    return open_path(of(tp), st, request, 0);
}

static int sse_command(cx_transport *tp, cx_stream *on, const char *text, size_t len, uint64_t id)
{
    sse_transport *t = of(tp);
    char *body = malloc(len + 1);
    sse_xfer *x;
    (void)on;
    if (body == NULL)
        return -1;
    memcpy(body, text, len);
    body[len] = '\0';
    x = xfer_start(t, "commands", body, NULL, NULL);
    free(body);
    if (x == NULL)
        return -1;
    x->id = id;
    cx_pending_method(t->base.s, id, x->method, sizeof x->method);
    return 0;
}

/* A command's transfer is over: say what it ended with. */
static void command_finished(sse_transport *t, sse_xfer *x, const apc_done *d)
{
    cx_session *s = t->base.s;
    cx_pending which;
    int ok = d->end == APC_END_CLOSED; /* libcurl ended it well */
    if (ok && d->status == 404)
        cx_no_endpoint(s, "POST /commands", d->status);
    else if (ok && d->status != 200 && d->status != 400)
        cx_error(s, 0, "http-status", x->method, NULL, "POST /commands (command %" PRIu64 ") answered HTTP %ld",
                 x->id, d->status);
    if (d->end == APC_END_TOO_LARGE)
        cx_error(s, 0, "too-large", x->method, NULL, "the response to command %" PRIu64 " is over %zu bytes", x->id,
                 s->o->max_record);
    else if (!ok)
        cx_error(s, 0, "connection", x->method, NULL, "POST /commands (command %" PRIu64 "): %s", x->id,
                 d->why != NULL ? d->why : "the transfer failed");
    else if (d->status != 404) /* said above: no answer of the protocol's to check */
        (void)cx_response(s, d->body != NULL ? d->body : "", d->len, (int64_t)x->id, &which, NULL);
    if (!ok || d->body == NULL || d->status == 404)
        cx_pending_forget(s, x->id); /* no answer to check: its failure is said */
}

/* A transfer is over: say what it ended with. */
static void finished(void *user, const apc_done *d)
{
    sse_xfer *x = user;
    sse_transport *t = x->t;
    cx_session *s = t->base.s;
    long status = d->status;
    if (x->st == NULL) {
        command_finished(t, x, d);
        xfer_free(t, x, 0);
        return;
    }
    if (d->end == APC_END_STATUS && status == 404 && !x->fallback && !x->st->stop) {
        /* the protocol text's spelling of the stream path */
        if (open_path(t, x->st, x->request, 1) != 0) {
            fprintf(stderr, "apstream: out of memory\n");
            s->io_error = 1;
        }
        xfer_free(t, x, 0);
        return;
    }
    x->st->closed = 1;
    if (x->st->stop) {
        xfer_free(t, x, 0);
        return; /* the client dropped it, or its failure was said */
    }
    if (d->end == APC_END_UNREACHABLE) {
        if (!s->io_error) /* once, not once per subscription */
            fprintf(stderr, "apstream: error: %s/threads/%s: %s\n", t->base.base, t->base.thread, d->why);
        s->io_error = 1;
        x->st->stop = 1;
    } else if (status == 404) {
        cx_no_endpoint(s, "POST .../stream/events (and .../stream)", status);
        x->st->stop = 1;
    } else if (status >= 400 && status < 500 && x->st->how != CX_RESUME_NONE) {
        /* a way of resuming the server does not take: said once, and the next way is tried */
        cx_error(s, x->st->role == CX_MAIN ? s->events : 0, "resume-refused", cx_resume_key(x->st->how), NULL,
                 "resuming by %s was answered HTTP %ld%s%.*s", cx_resume_name(x->st->how), status,
                 d->len > 0 ? ": " : "", (int)d->len, d->body != NULL ? d->body : "");
        s->refused[x->st->how] = 1;
        x->st->stop = 1;
        x->st->dropped = x->st->role == CX_MAIN;
    } else if (status != 200) {
        cx_error(s, 0, "http-status", NULL, NULL, "POST /threads/%s/%s answered HTTP %ld to a subscription",
                 t->base.thread, x->fallback ? "stream" : "stream/events", status);
        x->st->stop = 1;
    } else if (d->end != APC_END_CLOSED) {
        cx_error(s, x->st->role == CX_MAIN ? s->events : 0, "connection", NULL, NULL,
                 "the subscription's connection failed: %s", d->why != NULL ? d->why : "the transfer failed");
        x->st->stop = 1;
    } else {
        cx_sse_end(x->st);
    }
    xfer_free(t, x, 0);
}

/*
 * The heartbeat a server sets up, and misses: a period is known once two
 * heartbeat comments came with no event between them (a server sending
 * one every P s while idle); then silence for more than twice the longest
 * such period, plus a second for the scheduler, is a missed heartbeat:
 * the connection is taken for dead (said once for the run).
 */
static void heartbeat(cx_session *s, sse_xfer *x, int64_t now)
{
    cx_stream *st = x->st;
    int64_t last_byte_ms = apc_conn_last_byte_ms(x->conn);
    if (st->heartbeats != x->heartbeats) {
        if (x->heartbeat_ms != 0 && st->count == x->events_then && now - x->heartbeat_ms > x->period_ms)
            x->period_ms = now - x->heartbeat_ms;
        x->heartbeats = st->heartbeats;
        x->heartbeat_ms = now;
        x->events_then = st->count;
    }
    if (x->period_ms == 0 || st->stop || now - last_byte_ms <= 2 * x->period_ms + 1000)
        return;
    /* the connection is taken for dead: said once for the run, whichever subscription showed it first */
    if (!s->heartbeat_said++)
        cx_error(s, st->role == CX_MAIN ? s->events : 0, "heartbeat-missed", NULL, NULL,
                 "%s: the server sent a heartbeat every %.1f s while idle, then nothing for %.1f s",
                 st->role == CX_MAIN ? "the subscription" : "a subscription", (double)x->period_ms / 1000.0,
                 (double)(now - last_byte_ms) / 1000.0);
    st->stop = 1;
}

static void sse_pump(cx_transport *tp, int ms)
{
    sse_transport *t = of(tp);
    sse_xfer *x, *next;
    int64_t now;
    apc_io_pump(t->io, ms);
    now = cx_now_ms();
    for (x = t->xfers; x != NULL; x = next) {
        next = x->next;
        if (x->st != NULL)
            heartbeat(tp->s, x, now);
        /* a stall, only when asked for (--stall): no byte for stall_s */
        if (t->base.stall_s == 0 || now - apc_conn_last_byte_ms(x->conn) < (int64_t)t->base.stall_s * 1000)
            continue;
        if (x->st != NULL) {
            if (!x->st->stop && !tp->s->stall_said++)
                cx_error(tp->s, x->st->role == CX_MAIN ? tp->s->events : 0, "stall", NULL, NULL,
                         "%s stalled: no byte for %u s (--stall)",
                         x->st->role == CX_MAIN ? "the subscription" : "a subscription", t->base.stall_s);
            x->st->stop = x->st->closed = 1;
        } else {
            cx_error(tp->s, 0, "stall", x->method, NULL, "command %" PRIu64 ": no response for %u s (--stall)", x->id,
                     t->base.stall_s);
            cx_pending_forget(tp->s, x->id);
        }
        xfer_free(t, x, 1);
    }
}

static void sse_close(cx_transport *tp, cx_stream *st)
{
    sse_transport *t = of(tp);
    sse_xfer *x;
    for (x = t->xfers; x != NULL; x = x->next)
        if (x->st == st) {
            xfer_free(t, x, 1);
            break;
        }
    st->stop = st->closed = 1;
}

static void sse_free(cx_transport *tp)
{
    sse_transport *t = of(tp);
    apc_io_free(t->io); /* no callback from here on */
    while (t->xfers != NULL)
        xfer_free(t, t->xfers, 0);
    free(t);
}

static const cx_transport_ops sse_ops = { sse_open, sse_command, sse_pump, sse_close, sse_free };

cx_transport *cx_sse_transport(cx_session *s, const char *base, const char *thread, unsigned stall_s)
{
    sse_transport *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    if ((t->io = apc_io_new(base, 0, s->o->max_record, NULL)) == NULL) {
        free(t);
        return NULL;
    }
    t->base.ops = &sse_ops;
    t->base.s = s;
    t->base.base = base;
    t->base.thread = thread;
    t->base.stall_s = stall_s;
    return &t->base;
}
