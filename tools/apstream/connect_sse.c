/*
 * connect_sse.c - `apstream connect` over HTTP: SSE subscriptions
 * (POST …/threads/ID/stream/events, or /stream when the server has only the
 * protocol text's spelling) and commands (POST …/threads/ID/commands), on
 * libcurl's multi interface, so the subscriptions and a command run at once
 * in one loop that connect.c drives. Bytes go to the reading path
 * (connect_read.c) as they arrive; nothing here judges them, except what
 * only the clock or HTTP shows: a response body over the size bound, an
 * HTTP status other than 200, a heartbeat the server set up and then
 * missed, and (only with --stall) a connection silent that long. Silence
 * alone is no finding: the protocol asks for no heartbeat, and a node may
 * think for minutes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "connect.h"

/* Bytes of an error page kept for the finding that quotes it. */
#define ERROR_PAGE_KEPT 160

typedef struct sse_xfer {
    CURL *easy;
    struct sse_xfer *next;
    cx_stream *st;            /* a subscription; NULL: a command */
    int fallback;             /* the subscription went to /stream after /stream/events was not found */
    char *request;            /* the subscription's EventStreamRequest (owned): kept for the fallback */
    char *body;               /* what is POSTed (owned) */
    struct curl_slist *headers;
    uint64_t id;              /* a command's id */
    char method[40];          /* its method, for findings */
    char *resp;               /* a command's response body, at most `max` bytes */
    size_t max;
    size_t resp_len;
    int too_big;
    int64_t last_byte_ms;
    long status;
    /* the heartbeat the server showed: two comments with nothing between, `period_ms` apart */
    uint64_t heartbeats;      /* st->heartbeats when last looked at */
    uint64_t events_then;     /* st->count at the last heartbeat */
    int64_t heartbeat_ms;     /* when the last one came (0: none yet) */
    int64_t period_ms;        /* the longest such gap (0: no heartbeat shown) */
} sse_xfer;

typedef struct sse_transport {
    cx_transport base;
    CURLM *multi;
    sse_xfer *xfers;
} sse_transport;

static size_t on_stream_bytes(char *ptr, size_t size, size_t nmemb, void *user)
{
    sse_xfer *x = user;
    size_t n = size * nmemb;
    x->last_byte_ms = cx_now_ms();
    if (x->status == 0)
        curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
    if (x->status != 200) {
        /* an error page: its start kept for the message (one line, printable), the status said at the end */
        size_t i;
        if (x->resp == NULL && (x->resp = malloc(ERROR_PAGE_KEPT + 1)) == NULL)
            return n;
        for (i = 0; i < n && x->resp_len < ERROR_PAGE_KEPT; i++)
            x->resp[x->resp_len++] = ptr[i] >= 0x20 && ptr[i] < 0x7f ? ptr[i] : ' ';
        x->resp[x->resp_len] = '\0';
        return n;
    }
    /* anything but 0 (go on) ends the transfer: the client is done with it, or cannot go on */
    return cx_sse_push(x->st, ptr, n) == 0 ? n : 0;
}

static sse_transport *of(cx_transport *t)
{
    return (sse_transport *)t;
}

static void xfer_free(sse_transport *t, sse_xfer *x)
{
    sse_xfer **p;
    for (p = &t->xfers; *p != NULL; p = &(*p)->next)
        if (*p == x) {
            *p = x->next;
            break;
        }
    curl_multi_remove_handle(t->multi, x->easy);
    curl_easy_cleanup(x->easy);
    curl_slist_free_all(x->headers);
    free(x->request);
    free(x->body);
    free(x->resp);
    free(x);
}

static sse_xfer *xfer_new(sse_transport *t, const char *path, char *body)
{
    char url[2048];
    char *thread;
    sse_xfer *x = calloc(1, sizeof *x);
    if (x == NULL || (x->easy = curl_easy_init()) == NULL) {
        free(x);
        free(body);
        return NULL;
    }
    /* the thread id is a path segment: escaped, whatever it holds */
    thread = curl_easy_escape(x->easy, t->base.thread, 0);
    snprintf(url, sizeof url, "%s/threads/%s/%s", t->base.base, thread != NULL ? thread : "", path);
    curl_free(thread);
    x->body = body;
    x->last_byte_ms = cx_now_ms();
    x->headers = curl_slist_append(NULL, "content-type: application/json");
    curl_easy_setopt(x->easy, CURLOPT_URL, url);
    curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, x->body);
    curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE, (long)strlen(x->body));
    curl_easy_setopt(x->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(x->easy, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(x->easy, CURLOPT_PRIVATE, x);
    return x;
}

static int xfer_start(sse_transport *t, sse_xfer *x)
{
    curl_easy_setopt(x->easy, CURLOPT_HTTPHEADER, x->headers);
    if (x->headers == NULL || curl_multi_add_handle(t->multi, x->easy) != CURLM_OK) {
        xfer_free(t, x);
        return -1;
    }
    x->next = t->xfers;
    t->xfers = x;
    return 0;
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
    char *body = subscription_body(request, st), *kept = strdup(request);
    if (body == NULL || kept == NULL) {
        free(body);
        free(kept);
        return -1;
    }
    if ((x = xfer_new(t, fallback ? "stream" : "stream/events", body)) == NULL) {
        free(kept);
        return -1;
    }
    x->st = st;
    x->request = kept;
    x->fallback = fallback;
    x->headers = curl_slist_append(x->headers, "accept: text/event-stream");
    if (st->how == CX_RESUME_LAST_EVENT_ID) {
        char h[CX_MAX_ID + 32];
        snprintf(h, sizeof h, "last-event-id: %.*s", (int)st->s->last_id_len, st->s->last_id);
        x->headers = curl_slist_append(x->headers, h);
    }
    curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_stream_bytes);
    curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
    return xfer_start(t, x);
}

static int sse_open(cx_transport *tp, cx_stream *st, const char *request)
{
    return open_path(of(tp), st, request, 0);
}

/* Appends to a command's response body, bounded by max_record. */
static size_t on_command_bytes(char *ptr, size_t size, size_t nmemb, void *user)
{
    sse_xfer *x = user;
    size_t n = size * nmemb;
    char *grown;
    x->last_byte_ms = cx_now_ms();
    if (x->resp_len + n > x->max) {
        x->too_big = 1;
        return 0;
    }
    if ((grown = realloc(x->resp, x->resp_len + n + APS_PADDING)) == NULL)
        return 0;
    x->resp = grown;
    memcpy(x->resp + x->resp_len, ptr, n);
    x->resp_len += n;
    memset(x->resp + x->resp_len, 0, APS_PADDING);
    return n;
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
    if ((x = xfer_new(t, "commands", body)) == NULL)
        return -1;
    x->max = t->base.s->o->max_record;
    x->id = id;
    cx_pending_method(t->base.s, id, x->method, sizeof x->method);
    curl_easy_setopt(x->easy, CURLOPT_WRITEFUNCTION, on_command_bytes);
    curl_easy_setopt(x->easy, CURLOPT_WRITEDATA, x);
    return xfer_start(t, x);
}

/* A transfer is over: say what it ended with. */
static void finished(sse_transport *t, sse_xfer *x, CURLcode rc)
{
    cx_session *s = t->base.s;
    long status = 0;
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
    if (x->st == NULL) {
        cx_pending which;
        if (rc == CURLE_OK && status == 404)
            cx_no_endpoint(s, "POST /commands", status);
        else if (rc == CURLE_OK && status != 200 && status != 400)
            cx_error(s, 0, "http-status", x->method, NULL, "POST /commands (command %" PRIu64 ") answered HTTP %ld",
                     x->id, status);
        if (x->too_big)
            cx_error(s, 0, "too-large", x->method, NULL, "the response to command %" PRIu64 " is over %zu bytes",
                     x->id, s->o->max_record);
        else if (rc != CURLE_OK)
            cx_error(s, 0, "connection", x->method, NULL, "POST /commands (command %" PRIu64 "): %s", x->id,
                     curl_easy_strerror(rc));
        else if (status != 404) /* said above: no answer of the protocol's to check */
            (void)cx_response(s, x->resp != NULL ? x->resp : "", x->resp_len, (int64_t)x->id, &which, NULL);
        if (x->too_big || rc != CURLE_OK || x->resp == NULL || status == 404)
            cx_pending_forget(s, x->id); /* no answer to check: its failure is said */
        return;
    }
    if (rc == CURLE_OK && status == 404 && !x->fallback && !x->st->stop) {
        /* the protocol text's spelling of the stream path */
        if (open_path(t, x->st, x->request, 1) != 0) {
            fprintf(stderr, "apstream: out of memory\n");
            s->io_error = 1;
        }
        return;
    }
    x->st->closed = 1;
    if (x->st->stop)
        return; /* the client dropped it, or its failure was said */
    if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST) {
        if (!s->io_error) /* once, not once per subscription */
            fprintf(stderr, "apstream: error: %s/threads/%s: %s\n", t->base.base, t->base.thread,
                    curl_easy_strerror(rc));
        s->io_error = 1;
        x->st->stop = 1;
    } else if (status == 404) {
        cx_no_endpoint(s, "POST .../stream/events (and .../stream)", status);
        x->st->stop = 1;
    } else if (status >= 400 && status < 500 && x->st->how != CX_RESUME_NONE) {
        /* a way of resuming the server does not take: said once, and the next way is tried */
        cx_error(s, x->st->role == CX_MAIN ? s->events : 0, "resume-refused", cx_resume_key(x->st->how), NULL,
                 "resuming by %s was answered HTTP %ld%s%.*s", cx_resume_name(x->st->how), status,
                 x->resp_len > 0 ? ": " : "", (int)x->resp_len, x->resp != NULL ? x->resp : "");
        s->refused[x->st->how] = 1;
        x->st->stop = 1;
        x->st->dropped = x->st->role == CX_MAIN;
    } else if (status != 200) {
        cx_error(s, 0, "http-status", NULL, NULL, "POST /threads/%s/%s answered HTTP %ld to a subscription",
                 t->base.thread, x->fallback ? "stream" : "stream/events", status);
        x->st->stop = 1;
    } else if (rc != CURLE_OK) {
        cx_error(s, x->st->role == CX_MAIN ? s->events : 0, "connection", NULL, NULL,
                 "the subscription's connection failed: %s", curl_easy_strerror(rc));
        x->st->stop = 1;
    } else {
        cx_sse_end(x->st);
    }
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
    if (st->heartbeats != x->heartbeats) {
        if (x->heartbeat_ms != 0 && st->count == x->events_then && now - x->heartbeat_ms > x->period_ms)
            x->period_ms = now - x->heartbeat_ms;
        x->heartbeats = st->heartbeats;
        x->heartbeat_ms = now;
        x->events_then = st->count;
    }
    if (x->period_ms == 0 || st->stop || now - x->last_byte_ms <= 2 * x->period_ms + 1000)
        return;
    /* the connection is taken for dead: said once for the run, whichever subscription showed it first */
    if (!s->heartbeat_said++)
        cx_error(s, st->role == CX_MAIN ? s->events : 0, "heartbeat-missed", NULL, NULL,
                 "%s: the server sent a heartbeat every %.1f s while idle, then nothing for %.1f s",
                 st->role == CX_MAIN ? "the subscription" : "a subscription", (double)x->period_ms / 1000.0,
                 (double)(now - x->last_byte_ms) / 1000.0);
    st->stop = 1;
}

static void sse_pump(cx_transport *tp, int ms)
{
    sse_transport *t = of(tp);
    CURLMsg *m;
    int running, left;
    sse_xfer *x, *next;
    int64_t now;
    curl_multi_poll(t->multi, NULL, 0, ms, NULL);
    curl_multi_perform(t->multi, &running);
    while ((m = curl_multi_info_read(t->multi, &left)) != NULL) {
        if (m->msg != CURLMSG_DONE)
            continue;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
        finished(t, x, m->data.result);
        xfer_free(t, x);
    }
    now = cx_now_ms();
    for (x = t->xfers; x != NULL; x = next) {
        next = x->next;
        if (x->st != NULL)
            heartbeat(tp->s, x, now);
        /* a stall, only when asked for (--stall): no byte for stall_s */
        if (t->base.stall_s == 0 || now - x->last_byte_ms < (int64_t)t->base.stall_s * 1000)
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
        xfer_free(t, x);
    }
}

static void sse_close(cx_transport *tp, cx_stream *st)
{
    sse_transport *t = of(tp);
    sse_xfer *x;
    for (x = t->xfers; x != NULL; x = x->next)
        if (x->st == st) {
            xfer_free(t, x);
            break;
        }
    st->stop = st->closed = 1;
}

static void sse_free(cx_transport *tp)
{
    sse_transport *t = of(tp);
    while (t->xfers != NULL)
        xfer_free(t, t->xfers);
    curl_multi_cleanup(t->multi);
    curl_global_cleanup();
    free(t);
}

static const cx_transport_ops sse_ops = { sse_open, sse_command, sse_pump, sse_close, sse_free };

cx_transport *cx_sse_transport(cx_session *s, const char *base, const char *thread, unsigned stall_s)
{
    sse_transport *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || (t->multi = curl_multi_init()) == NULL) {
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
