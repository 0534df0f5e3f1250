/*
 * ap_server.c - the thread server on libwebsockets (see ap_server.h and
 * docs/server.md).
 *
 * One service thread runs the lws loop; every connection's state lives in
 * its lws session data (`conn`). A thread of the product's is a replay log
 * (ap_server_threads.c) of its events, kept as SSE records whose `id:`,
 * `eventId` and `seq` are written as they are sent (ap_server_records.c): an
 * SSE subscriber is sent the records, a WebSocket subscriber their JSON.
 * Subscribers are cursors on the log (aps_replay_cursor), so publishing
 * never waits for a subscriber and a slow one costs no memory but its
 * cursor: it falls behind until it is `max_lag` events behind, and is then
 * disconnected. Publishing appends under the thread's lock and wakes the
 * loop (lws_cancel_service), which asks every subscriber that is behind for
 * a writable callback; a shared log's watcher wakes it for the appends of
 * other replicas.
 */
#include "server_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ap_replay.h"
#include "ap_response.h"
#include "ap_route.h"

#define CHUNK_BYTES (64u * 1024u)   /* what one writable callback sends at most, but one bigger event */
#define WS_MESSAGES_PER_WRITE 32u   /* WebSocket frames per writable callback */
#define SSE_WRITES_PER_CALLBACK 8u  /* chunks one SSE writable callback may send */

/* ---- connections ---------------------------------------------------------------- */

/* R_BAD_ID: a thread route whose id is not 1-255 bytes of printable UTF-8 (422) */
typedef enum route_kind { R_NONE, R_STREAM, R_COMMANDS, R_STATE, R_API, R_BAD_ID } route_kind;
/* C_FEED: an SSE stream of a feed; C_WAIT: a long poll on one (both of the REST hook) */
typedef enum conn_kind { C_HTTP, C_SSE, C_WS, C_FEED, C_WAIT } conn_kind;

typedef struct sub {
    char id[32];
    aps_filter filter;
    aps_replay_cursor cur;
    aps_replay_gap gap;
    int peeked;                 /* WebSocket: the cursor stands on an event of seq peek_seq */
    uint64_t peek_seq;
} sub;

typedef struct conn {
    struct lws *wsi;
    conn_kind kind;
    route_kind route;
    srv_thread *thread;
    int counted;                /* counted in srv->connections */
    int cors;                   /* the request's Origin is allowed: echo it */
    int extra_route;            /* an embedder's route (opt.routes) answers: no-store, nosniff */
    char origin[MAX_ID];
    char last_event_id[MAX_ID];
    char *body;                 /* request body, or WebSocket message being received */
    size_t body_len;
    int body_too_large;
    char *out;                  /* HTTP: the response body; WS: queued messages, each a 4-byte length and bytes */
    size_t out_len, out_off;
    sub *subs;                  /* SSE: one; WS: up to max_subscriptions */
    size_t nsubs;
    uint64_t events_sent;
    uint64_t drop_base;         /* drop_after: the thread's furthest seq streamed when this stream opened */
    uint64_t new_events;        /* drop_after: events sent past drop_base */
    uint64_t last_write_ms;
    int written;                /* SSE: the stream has written (its miss, if it started with one) */
    int closing;                /* close after what is queued is written */
    int answered;               /* R_API: the hook was asked */
    struct conn *prev, *next;   /* streams: SSE, WS, feed and wait connections */
    int method;                 /* R_API: the request's, kept for a long poll's second call */
    char *path, *query;
    ap_server_feed *feed;       /* C_FEED, C_WAIT: a reference */
    uint64_t feed_next;
    uint32_t feed_mask;
    char token[96];
    char content_location[320]; /* R_API: a Content-Location header to send ("": none) */
} conn;

static uint64_t mono_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* ---- requests ------------------------------------------------------------------ */

/* Constant-time comparison: how long a prefix matched must not show in the time taken. */
static int secret_equal(const char *a, size_t alen, const char *b, size_t blen)
{
    unsigned char diff = (unsigned char)(alen != blen);
    size_t i;
    for (i = 0; i < blen; i++)
        diff |= (unsigned char)(((const unsigned char *)b)[i] ^ (i < alen ? ((const unsigned char *)a)[i] : 0));
    return diff == 0;
}

/* Copies header `h` (a token, or a custom name ending in ':') into buf; its length, -1 when absent. */
static int header(struct lws *wsi, enum lws_token_indexes h, const char *custom, char *buf, size_t cap)
{
    int n;
    if (custom != NULL) {
        n = lws_hdr_custom_length(wsi, custom, (int)strlen(custom));
        if (n < 0 || (size_t)n >= cap)
            return -1;
        return lws_hdr_custom_copy(wsi, buf, (int)cap, custom, (int)strlen(custom));
    }
    n = lws_hdr_total_length(wsi, h);
    if (n <= 0 || (size_t)n >= cap)
        return -1;
    return lws_hdr_copy(wsi, buf, (int)cap, h);
}

static int authorized(ap_server *s, struct lws *wsi)
{
    char v[MAX_ID];
    int n;
    size_t klen;
    if (s->api_key == NULL)
        return 1;
    klen = strlen(s->api_key);
    if ((n = header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION, NULL, v, sizeof v)) > 7 && strncmp(v, "Bearer ", 7) == 0 &&
        secret_equal(v + 7, (size_t)n - 7, s->api_key, klen))
        return 1;
    n = header(wsi, WSI_TOKEN_COUNT, "x-api-key:", v, sizeof v);
    return n >= 0 && secret_equal(v, (size_t)n, s->api_key, klen);
}

/* Whether `origin` is allowed by the comma-separated list. */
static int origin_allowed(const ap_server *s, const char *origin)
{
    const char *p = s->cors;
    size_t n = strlen(origin);
    if (p == NULL)
        return 0;
    while (*p != '\0') {
        const char *e = strchr(p, ',');
        size_t len = e != NULL ? (size_t)(e - p) : strlen(p);
        while (len > 0 && p[0] == ' ')
            p++, len--;
        while (len > 0 && p[len - 1] == ' ')
            len--;
        if ((len == 1 && p[0] == '*') || (len == n && memcmp(p, origin, n) == 0))
            return 1;
        if (e == NULL)
            break;
        p = e + 1;
    }
    return 0;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/*
 * Splits "/threads/{id}/rest" into the id (percent-decoded into `id`) and
 * the route. R_NONE when the path is none of ours; R_BAD_ID when it is one
 * of the thread routes but its id is too long, has a NUL, or is not
 * printable UTF-8 (what the log would print raw, and a shared log would
 * name a key by).
 */
static route_kind parse_path(const char *uri, char *id, size_t cap, size_t *id_len)
{
    const char *p, *slash;
    size_t n = 0, k, step = 1;
    int bad = 0;
    if (strncmp(uri, "/threads/", 9) != 0)
        return R_NONE;
    p = uri + 9;
    if ((slash = strchr(p, '/')) == NULL || slash == p)
        return R_NONE;
    while (p < slash) {
        char c = *p++;
        if (c == '%') {
            int hi = slash - p >= 2 ? hex_digit(p[0]) : -1, lo = slash - p >= 2 ? hex_digit(p[1]) : -1;
            if (hi < 0 || lo < 0)
                return R_NONE;
            c = (char)(hi * 16 + lo);
            p += 2;
        }
        if (n + 1 >= cap || c == '\0') {
            bad = 1;
            break;
        }
        id[n++] = c;
    }
    id[n] = '\0';
    *id_len = n;
    for (k = 0; !bad && k < n; k += step)
        if ((step = server_utf8_char((const unsigned char *)id + k, n - k)) == 0)
            bad = 1;
    if (strcmp(slash, "/stream/events") == 0 || strcmp(slash, "/stream") == 0)
        return bad ? R_BAD_ID : R_STREAM;
    if (strcmp(slash, "/commands") == 0)
        return bad ? R_BAD_ID : R_COMMANDS;
    if (strcmp(slash, "/state") == 0)
        return bad ? R_BAD_ID : R_STATE;
    return R_NONE;
}

/* ---- responses ------------------------------------------------------------------- */

static int add_header(struct lws *wsi, const char *name, const char *value, unsigned char **p, unsigned char *end)
{
    return lws_add_http_header_by_name(wsi, (const unsigned char *)name, (const unsigned char *)value,
                                       (int)strlen(value), p, end);
}

static int add_cors(const conn *c, struct lws *wsi, unsigned char **p, unsigned char *end)
{
    if (!c->cors)
        return 0;
    return add_header(wsi, "access-control-allow-origin:", c->origin, p, end) ||
           add_header(wsi, "vary:", "Origin", p, end) ||
           (c->route == R_API && add_header(wsi, "access-control-expose-headers:", "content-location", p, end));
}

/*
 * Writes the headers of a response whose body (`body`, copied) follows in
 * the next writable callback; `len` SIZE_MAX: an event stream. 0, or -1
 * to close the connection.
 */
static int respond(conn *c, unsigned status, const char *type, const char *body, size_t len)
{
    unsigned char buf[LWS_PRE + 2048], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    int stream = len == SIZE_MAX;
    if (!stream) {
        free(c->out);
        c->out = len > 0 ? malloc(len) : NULL;
        if (len > 0 && c->out == NULL)
            return -1;
        if (len > 0)
            memcpy(c->out, body, len);
        c->out_len = len;
        c->out_off = 0;
    }
    if (status == 204)
        type = NULL; /* no content, so no content type (lws leaves the header out for NULL) */
    if (lws_add_http_common_headers(c->wsi, status, type, stream ? LWS_ILLEGAL_HTTP_CONTENT_LEN : len, &p, end) ||
        add_cors(c, c->wsi, &p, end) ||
        (c->content_location[0] != '\0' && add_header(c->wsi, "content-location:", c->content_location, &p, end)) ||
        (c->extra_route && (add_header(c->wsi, "cache-control:", "no-store", &p, end) ||
                            add_header(c->wsi, "x-content-type-options:", "nosniff", &p, end))) ||
        (stream && (add_header(c->wsi, "cache-control:", "no-cache", &p, end) ||
                    add_header(c->wsi, "x-accel-buffering:", "no", &p, end))) ||
        lws_finalize_write_http_header(c->wsi, start, &p, end))
        return -1;
    if (!stream && len == 0) /* no body to write: the next request of a kept-alive connection may come */
        return lws_http_transaction_completed(c->wsi) ? -1 : 0;
    lws_callback_on_writable(c->wsi);
    return 0;
}

/* An ErrorResponse (id of `cmd`, or null) with `code` and the message, as the response body. */
static int respond_error(ap_server *s, conn *c, unsigned status, const ap_command_t *cmd, ap_error_code_t code,
                         const char *fmt, ...)
{
    char text[512];
    aps_slice why;
    ap_message_t msg;
    aps_json_writer w;
    aps_encode_options eo;
    va_list ap;
    int rc = -1;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    why.ptr = text;
    why.len = strlen(text);
    ap_response_error(&msg, cmd, code, why);
    memset(&eo, 0, sizeof eo);
    eo.key_case = s->opt.key_case;
    aps_json_writer_init(&w, NULL);
    if (ap_message_encode_opts(&msg, &w, &eo, NULL) == APS_OK)
        rc = respond(c, status, "application/json", aps_json_writer_data(&w), aps_json_writer_len(&w));
    aps_json_writer_deinit(&w);
    server_log(s, "%s %u: %s", c->thread != NULL ? c->thread->id : "-", status, text);
    return rc;
}

/* Writes what is left of an HTTP response body; 0 to keep the connection, -1 to close it. */
static int write_body(conn *c)
{
    size_t n = c->out_len - c->out_off;
    unsigned char *buf;
    int rc;
    if (n > CHUNK_BYTES)
        n = CHUNK_BYTES;
    buf = malloc(LWS_PRE + n + 1);
    if (buf == NULL)
        return -1;
    if (n > 0)
        memcpy(buf + LWS_PRE, c->out + c->out_off, n);
    c->out_off += n;
    rc = lws_write(c->wsi, buf + LWS_PRE, n,
                   c->out_off == c->out_len ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < (int)n ? -1 : 0;
    free(buf);
    if (rc != 0)
        return -1;
    if (c->out_off < c->out_len) {
        lws_callback_on_writable(c->wsi);
        return 0;
    }
    free(c->out);
    c->out = NULL;
    c->out_len = c->out_off = 0;
    return lws_http_transaction_completed(c->wsi) ? -1 : 0;
}

/* ---- subscriptions --------------------------------------------------------------- */

/*
 * Lists an event stream (SSE or WebSocket). With the drop_after test knob,
 * a stream is closed once it has sent drop_after events past the furthest
 * any earlier stream of its thread got: what a reconnecting client is
 * replayed does not count, so each connection gets further.
 */
static void stream_add(ap_server *s, conn *c)
{
    c->drop_base = c->thread != NULL ? c->thread->seq_streamed : 0;
    c->next = s->streams;
    c->prev = NULL;
    if (s->streams != NULL)
        s->streams->prev = c;
    s->streams = c;
}

static void stream_remove(ap_server *s, conn *c)
{
    if (c->prev != NULL)
        c->prev->next = c->next;
    else if (s->streams == c)
        s->streams = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

static void subs_free(conn *c)
{
    size_t i;
    for (i = 0; i < c->nsubs; i++)
        aps_filter_deinit(&c->subs[i].filter);
    free(c->subs);
    c->subs = NULL;
    c->nsubs = 0;
}

/* A new subscription of `c` with `filter` (taken) from `start`; NULL when full or out of memory. */
static sub *sub_add(ap_server *s, conn *c, aps_filter *filter, const aps_replay_start *start, aps_error *err)
{
    sub *grown, *u;
    size_t cap = c->kind == C_SSE ? 1 : s->opt.max_subscriptions;
    if (c->nsubs >= cap) {
        aps_error_set(err, APS_E_LIMIT, 0, "at most %zu subscriptions per connection", cap);
        return NULL;
    }
    if ((grown = realloc(c->subs, (c->nsubs + 1) * sizeof *grown)) == NULL) {
        aps_error_set(err, APS_E_NOMEM, 0, "no memory for the subscription");
        return NULL;
    }
    c->subs = grown;
    /* each cursor points at its own filter, which may just have moved */
    for (size_t i = 0; i < c->nsubs; i++)
        c->subs[i].cur.filter = &c->subs[i].filter;
    u = &c->subs[c->nsubs];
    memset(u, 0, sizeof *u);
    u->filter = *filter;
    if (aps_replay_store_cursor_init(c->thread->log, &u->cur, &u->filter, start, err) != APS_OK)
        return NULL;
    snprintf(u->id, sizeof u->id, "sub-%" PRIu64, ++s->next_sub_id);
    c->nsubs++;
    return u;
}

/* Whether any subscription of `c` has events to send (or a miss to report). */
static int behind(const conn *c)
{
    uint64_t last = __atomic_load_n(&c->thread->last_seq, __ATOMIC_ACQUIRE);
    size_t i;
    for (i = 0; i < c->nsubs; i++)
        if (c->subs[i].cur.next_seq <= last || c->subs[i].cur.baseline_before != 0 ||
            c->subs[i].cur.unknown_point)
            return 1;
    return 0;
}

/* How far the slowest subscription of `c` is behind its thread. */
static uint64_t lag(const conn *c)
{
    uint64_t last = __atomic_load_n(&c->thread->last_seq, __ATOMIC_ACQUIRE), worst = 0;
    size_t i;
    for (i = 0; i < c->nsubs; i++)
        if (c->subs[i].cur.next_seq <= last && last - c->subs[i].cur.next_seq + 1 > worst)
            worst = last - c->subs[i].cur.next_seq + 1;
    return worst;
}

/* ---- writing events ------------------------------------------------------------- */

typedef struct chunk_fill {
    ap_server *s;
    conn *c;
    size_t len;     /* bytes in s->chunk after LWS_PRE */
    size_t count;
    uint64_t drop_after; /* the knob: stop at this many events past c->drop_base (0: never) */
    int websocket;  /* 1: take the `data:` JSON only, one event; 2: take one event and drop it */
} chunk_fill;

/* Room for `n` more bytes in the server's chunk; 0, or -1 out of memory. */
static int chunk_room(ap_server *s, size_t used, size_t n)
{
    if (LWS_PRE + used + n > s->chunk_cap) {
        size_t cap = LWS_PRE + used + n;
        unsigned char *grown;
        if (cap < LWS_PRE + CHUNK_BYTES)
            cap = LWS_PRE + CHUNK_BYTES;
        if ((grown = realloc(s->chunk, cap)) == NULL)
            return -1;
        s->chunk = grown;
        s->chunk_cap = cap;
    }
    return 0;
}

static int take_event(void *ctx, const aps_replay_event *ev)
{
    chunk_fill *f = ctx;
    size_t n = server_event_size(ev);
    if (f->websocket == 2)
        return f->count++ > 0;
    if (f->websocket) {
        if (f->count > 0)
            return 1;
    } else if ((f->len > 0 && f->len + n > CHUNK_BYTES) ||
               (f->drop_after != 0 && f->c->new_events >= f->drop_after)) {
        return 1; /* the next write */
    }
    if (chunk_room(f->s, f->len, n) != 0)
        return 1;
    n = server_event_put((char *)f->s->chunk + LWS_PRE + f->len, ev, !f->websocket, f->s->opt.key_case);
    if (n == 0)
        return 0; /* not ours: skipped */
    f->len += n;
    f->count++;
    if (ev->seq > f->c->drop_base && !ev->baseline)
        f->c->new_events++;
    if (ev->seq > f->c->thread->seq_streamed && !ev->baseline)
        f->c->thread->seq_streamed = ev->seq;
    return 0;
}

/*
 * Whether a stream fell too far behind (it is closed: it reconnects and
 * resumes, or is told it missed). Not before an SSE stream's first write:
 * one that starts from before the log (an old `since`) is first told its
 * miss, and is then as far behind as the log is long.
 */
static int too_slow(ap_server *s, conn *c)
{
    uint64_t behind_by;
    if (c->kind == C_SSE && !c->written)
        return 0;
    behind_by = lag(c);
    if (behind_by <= s->opt.max_lag)
        return 0;
    server_log(s, "%s: disconnecting a subscriber %" PRIu64 " events behind (max_lag %zu)", c->thread->id, behind_by,
         s->opt.max_lag);
    return 1;
}

/*
 * SSE: what the subscription is owed, a chunk a write, while the socket
 * takes them (at most SSE_WRITES_PER_CALLBACK: other connections wait for
 * this loop); or a miss comment; or a heartbeat. 0 or -1 (close).
 */
static int write_sse(ap_server *s, conn *c)
{
    sub *u = &c->subs[0];
    unsigned writes;
    if (too_slow(s, c))
        return -1;
    for (writes = 0; writes < SSE_WRITES_PER_CALLBACK; writes++) {
        chunk_fill f;
        size_t n = 0;
        aps_status st;
        memset(&f, 0, sizeof f);
        f.s = s;
        f.c = c;
        f.drop_after = s->opt.drop_after;
        st = aps_replay_store_read(c->thread->log, &u->cur, 4096, take_event, &f, &n, &u->gap, NULL);
        if (st == APS_E_MISSED) {
            char line[160];
            int m = snprintf(line, sizeof line, ": missed %" PRIu64 " events; oldest seq %" PRIu64 "\n\n",
                             u->gap.lost, u->gap.oldest_seq);
            if (chunk_room(s, 0, (size_t)m) != 0)
                return -1;
            memcpy(s->chunk + LWS_PRE, line, (size_t)m);
            f.len = (size_t)m;
            server_log(s, "%s: a stream missed %" PRIu64 " events", c->thread->id, u->gap.lost);
        } else if (st != APS_OK) {
            return -1;
        } else if (f.len == 0) {
            if (writes > 0)
                break;
            if (s->stopping && !behind(c))
                return -1;
            if (mono_ms() - c->last_write_ms < s->opt.heartbeat_ms)
                return 0;
            if (chunk_room(s, 0, 16) != 0)
                return -1;
            memcpy(s->chunk + LWS_PRE, ": heartbeat\n\n", 13);
            f.len = 13;
        }
        if (lws_write(c->wsi, s->chunk + LWS_PRE, f.len, LWS_WRITE_HTTP) < (int)f.len)
            return -1;
        c->written = 1;
        c->last_write_ms = mono_ms();
        c->events_sent += f.count;
        if (s->opt.drop_after != 0 && c->new_events >= s->opt.drop_after) {
            server_log(s, "%s: dropping a stream after %" PRIu64 " events (drop_after)", c->thread->id,
                       c->events_sent);
            return -1;
        }
        /* (lws keeps what the socket did not take, and says choked until it is sent) */
        if (!behind(c) || lws_send_pipe_choked(c->wsi))
            break;
    }
    if (behind(c) || s->stopping)
        lws_callback_on_writable(c->wsi);
    return 0;
}

static int note_seq(void *ctx, const aps_replay_event *ev)
{
    *(uint64_t *)ctx = ev->seq;
    return 1; /* not taken: the next read offers it again */
}

/*
 * Where the subscription's next event is (u->peeked, u->peek_seq), without
 * taking it: the read stops on it. A miss is logged (a WebSocket has no
 * message for it; subscription.reconnect reports one). 0, or -1 to close.
 */
static int peek(ap_server *s, conn *c, sub *u)
{
    int tries;
    if (u->peeked)
        return 0;
    for (tries = 0; tries < 2; tries++) {
        uint64_t seq = 0;
        size_t n = 0;
        aps_status st = aps_replay_store_read(c->thread->log, &u->cur, 1, note_seq, &seq, &n, &u->gap, NULL);
        if (st == APS_E_MISSED) {
            server_log(s, "%s: subscription %s missed %" PRIu64 " events", c->thread->id, u->id, u->gap.lost);
            continue;
        }
        if (st != APS_OK)
            return -1;
        u->peeked = seq != 0;
        u->peek_seq = seq;
        return 0;
    }
    return 0;
}

/* Queues one WebSocket message (JSON) on `c`; 0, or -1 out of memory. */
static int ws_queue(conn *c, const char *json, size_t len)
{
    char *grown = realloc(c->out, c->out_len + 4 + len);
    uint32_t n = (uint32_t)len;
    if (grown == NULL)
        return -1;
    c->out = grown;
    memcpy(c->out + c->out_len, &n, 4);
    memcpy(c->out + c->out_len + 4, json, len);
    c->out_len += 4 + len;
    lws_callback_on_writable(c->wsi);
    return 0;
}

/* WebSocket: queued responses first, then events round robin over the subscriptions. 0 or -1. */
static int write_ws(ap_server *s, conn *c)
{
    unsigned sent = 0;
    while (c->out_off < c->out_len && sent < WS_MESSAGES_PER_WRITE && !lws_send_pipe_choked(c->wsi)) {
        uint32_t n;
        memcpy(&n, c->out + c->out_off, 4);
        if (chunk_room(s, 0, n) != 0)
            return -1;
        memcpy(s->chunk + LWS_PRE, c->out + c->out_off + 4, n);
        c->out_off += 4 + n;
        if (lws_write(c->wsi, s->chunk + LWS_PRE, n, LWS_WRITE_TEXT) < (int)n)
            return -1;
        sent++;
    }
    if (c->out_off == c->out_len) {
        free(c->out);
        c->out = NULL;
        c->out_len = c->out_off = 0;
    } else {
        lws_callback_on_writable(c->wsi);
        return 0;
    }
    if (c->closing)
        return -1;
    if (c->nsubs > 0 && too_slow(s, c))
        return -1;
    while (sent < WS_MESSAGES_PER_WRITE && !lws_send_pipe_choked(c->wsi)) {
        size_t i, best = SIZE_MAX;
        uint64_t best_seq = 0;
        chunk_fill f;
        size_t n = 0;
        /* the connection's one stream: the next event of any subscription, in seq order, once */
        for (i = 0; i < c->nsubs; i++) {
            sub *u = &c->subs[i];
            if (peek(s, c, u) != 0)
                return -1;
            if (u->peeked && (best == SIZE_MAX || u->peek_seq < best_seq)) {
                best = i;
                best_seq = u->peek_seq;
            }
        }
        if (best == SIZE_MAX)
            break;
        memset(&f, 0, sizeof f);
        f.s = s;
        f.c = c;
        f.websocket = 1;
        if (aps_replay_store_read(c->thread->log, &c->subs[best].cur, 1, take_event, &f, &n, &c->subs[best].gap,
                                  NULL) != APS_OK)
            continue; /* evicted since the peek: the next peek says the miss */
        c->subs[best].peeked = 0;
        for (i = 0; i < c->nsubs; i++)
            if (i != best && c->subs[i].peeked && c->subs[i].peek_seq == best_seq) {
                /* the same event, matched by another subscription: sent once */
                chunk_fill skip;
                memset(&skip, 0, sizeof skip);
                skip.s = s;
                skip.c = c;
                skip.websocket = 2;
                if (aps_replay_store_read(c->thread->log, &c->subs[i].cur, 1, take_event, &skip, &n,
                                          &c->subs[i].gap, NULL) != APS_OK)
                    server_log(s, "%s: subscription %s lost its place", c->thread->id, c->subs[i].id);
                c->subs[i].peeked = 0;
            }
        if (f.len == 0)
            continue;
        if (lws_write(c->wsi, s->chunk + LWS_PRE, f.len, LWS_WRITE_TEXT) < (int)f.len)
            return -1;
        c->events_sent++;
        sent++;
        if (s->opt.drop_after != 0 && c->new_events >= s->opt.drop_after) {
            server_log(s, "%s: dropping a WebSocket after %" PRIu64 " events (drop_after)", c->thread->id, c->events_sent);
            return -1;
        }
    }
    if (c->out_len > 0 || behind(c))
        lws_callback_on_writable(c->wsi);
    c->last_write_ms = mono_ms();
    return 0;
}

/* ---- commands -------------------------------------------------------------------- */

/* The filter of SubscribeParams: the same fields as an EventStreamRequest. */
static aps_status subscribe_filter(const ap_subscribe_params_t *p, aps_filter *f, aps_arena *arena, aps_error *err)
{
    ap_event_stream_request_t req;
    memset(&req, 0, sizeof req);
    req.channels.items = p->channels.items;
    req.channels.count = p->channels.count;
    req.has_namespaces = p->has_namespaces;
    req.namespaces.items = p->namespaces.items;
    req.namespaces.count = p->namespaces.count;
    req.has_depth = p->has_depth;
    req.depth = p->depth;
    return ap_filter_init_request(f, &req, arena, err);
}

static int count_event(void *ctx, const aps_replay_event *ev)
{
    (void)ev;
    ++*(uint64_t *)ctx;
    return 0;
}

/* The events a subscription from `start` with `filter` would be replayed now (a dry read). */
static uint64_t replay_count(srv_thread *t, const aps_filter *filter, const aps_replay_start *start)
{
    aps_replay_cursor cur;
    uint64_t n = 0;
    size_t got = 1;
    aps_replay_gap gap;
    if (aps_replay_store_cursor_init(t->log, &cur, filter, start, NULL) != APS_OK)
        return 0;
    while (got > 0) {
        aps_status st = aps_replay_store_read(t->log, &cur, 4096, count_event, &n, &got, &gap, NULL);
        if (st == APS_E_MISSED) {
            got = 1;
            continue;
        }
        if (st != APS_OK)
            break;
    }
    return n;
}

/* The WebSocket's own commands: subscription.*. Fills `response`. */
/*
 * `text` copied into the arena: an error message the response keeps, which
 * is written after the function that made the message has returned (a
 * slice of its stack would be read after the stack was reused).
 */
static aps_slice arena_text(aps_arena *arena, const char *text)
{
    aps_slice out;
    out.len = strlen(text);
    out.ptr = aps_arena_dup(arena, text, out.len);
    if (out.ptr == NULL) {
        out.ptr = "out of memory";
        out.len = strlen(out.ptr);
    }
    return out;
}

static void ws_subscription_command(ap_server *s, conn *c, const ap_command_t *cmd, ap_message_t *response,
                                    aps_arena *arena)
{
    const ap_command_data_t *d = &cmd->command_data;
    aps_error err = APS_ERROR_INIT;
    char why[640];
    size_t i;
    if (d->kind == AP_COMMAND_DATA_SUBSCRIPTION_SUBSCRIBE) {
        aps_filter f;
        aps_replay_start start;
        sub *u;
        ap_result_data_t *r;
        memset(&start, 0, sizeof start);
        start.from = APS_REPLAY_FROM_RUN;
        if (subscribe_filter(&d->u.subscription_subscribe.params, &f, arena, &err) != APS_OK) {
            snprintf(why, sizeof why, "%s", err.message);
            goto invalid;
        }
        if ((u = sub_add(s, c, &f, &start, &err)) == NULL) {
            aps_filter_deinit(&f);
            snprintf(why, sizeof why, "%s", err.message);
            goto invalid;
        }
        r = ap_response_success(response, cmd);
        r->u.subscription_result.u.subscribe_result.subscription_id.ptr = u->id;
        r->u.subscription_result.u.subscribe_result.subscription_id.len = strlen(u->id);
        r->u.subscription_result.u.subscribe_result.has_replayed_events = true;
        r->u.subscription_result.u.subscribe_result.replayed_events = replay_count(c->thread, &u->filter, &start);
        server_log(s, "%s: websocket subscribed %s", c->thread->id, u->id);
        return;
    }
    if (d->kind == AP_COMMAND_DATA_SUBSCRIPTION_UNSUBSCRIBE) {
        aps_slice id = d->u.subscription_unsubscribe.params.subscription_id;
        for (i = 0; i < c->nsubs; i++)
            if (strlen(c->subs[i].id) == id.len && memcmp(c->subs[i].id, id.ptr, id.len) == 0)
                break;
        if (i == c->nsubs) {
            snprintf(why, sizeof why, "no subscription %.*s on this connection", (int)(id.len > 64 ? 64 : id.len),
                     id.ptr);
            ap_response_error(response, cmd, AP_ERROR_CODE_NO_SUCH_SUBSCRIPTION, arena_text(arena, why));
            return;
        }
        aps_filter_deinit(&c->subs[i].filter);
        /* cursors point at their own filter: move the last one into the hole, and fix its pointer */
        if (i + 1 < c->nsubs) {
            c->subs[i] = c->subs[c->nsubs - 1];
            c->subs[i].cur.filter = &c->subs[i].filter;
        }
        c->nsubs--;
        (void)ap_response_success(response, cmd);
        return;
    }
    /* subscription.reconnect: this connection's subscriptions resume after lastEventId */
    {
        const ap_reconnect_params_t *p = &d->u.subscription_reconnect.params;
        ap_result_data_t *r;
        aps_replay_start start;
        uint64_t missed = 0;
        int restored = 1;
        memset(&start, 0, sizeof start);
        if (p->has_last_event_id) {
            start.from = APS_REPLAY_FROM_EVENT_ID;
            start.event_id = p->last_event_id;
            server_resume_point(c->thread, &start);
        } else {
            start.from = APS_REPLAY_FROM_RUN;
        }
        if (p->has_subscriptions)
            for (i = 0; i < p->subscriptions.count; i++) {
                size_t k;
                for (k = 0; k < c->nsubs; k++)
                    if (strlen(c->subs[k].id) == p->subscriptions.items[i].len &&
                        memcmp(c->subs[k].id, p->subscriptions.items[i].ptr, p->subscriptions.items[i].len) == 0)
                        break;
                if (k == c->nsubs)
                    restored = 0;
            }
        for (i = 0; i < c->nsubs; i++) {
            aps_replay_gap gap;
            size_t got = 0;
            c->subs[i].peeked = 0;
            if (aps_replay_store_cursor_init(c->thread->log, &c->subs[i].cur, &c->subs[i].filter, &start, NULL) !=
                APS_OK)
                continue;
            /* the miss, if any, is the first read's answer: take it now for the result */
            if (aps_replay_store_read(c->thread->log, &c->subs[i].cur, 0, count_event, &got, &got, &gap, NULL) ==
                    APS_E_MISSED &&
                gap.lost > missed)
                missed = gap.lost;
        }
        r = ap_response_success(response, cmd);
        r->u.subscription_result.u.reconnect_result.restored = restored && c->nsubs > 0;
        r->u.subscription_result.u.reconnect_result.has_missed_events = true;
        r->u.subscription_result.u.reconnect_result.missed_events = missed;
        return;
    }
invalid:
    ap_response_error(response, cmd, AP_ERROR_CODE_INVALID_ARGUMENT, arena_text(arena, why));
}

/*
 * Answers the command in `text` into `out` (JSON): subscription.* on a
 * WebSocket here, everything else through on_command. 0; 1 when the text
 * is no command (the answer is an ErrorResponse with the text's id when it
 * can be read, else a null id); -1 out of memory.
 */
static int answer_command(ap_server *s, conn *c, const char *text, size_t len, aps_json_writer *out)
{
    aps_arena arena;
    aps_decode_options dopt;
    aps_encode_options eo;
    aps_error err = APS_ERROR_INIT;
    ap_command_t cmd;
    ap_message_t response;
    aps_slice why;
    char msg[640];
    int rc = 0;
    aps_arena_init(&arena, NULL);
    memset(&dopt, 0, sizeof dopt);
    memset(&eo, 0, sizeof eo);
    eo.key_case = s->opt.key_case;
    memset(&response, 0, sizeof response);
    if (ap_command_decode_opts(text, len, &arena, &cmd, &dopt, &err) != APS_OK) {
        snprintf(msg, sizeof msg, "not a command: %s%s%s", err.pointer[0] ? err.pointer : "", err.pointer[0] ? ": " : "",
                 err.message);
        why.ptr = msg;
        why.len = strlen(msg);
        /* a command whose params are wrong still has its id: the client waits for an answer to it */
        (void)ap_response_error_text(&response, text, len, &arena, AP_ERROR_CODE_INVALID_ARGUMENT, why);
        server_log(s, "%s: command refused: %s", c->thread->id, msg);
        rc = 1;
    } else if (cmd.command_data.kind == AP_COMMAND_DATA_SUBSCRIPTION_SUBSCRIBE ||
               cmd.command_data.kind == AP_COMMAND_DATA_SUBSCRIPTION_UNSUBSCRIBE ||
               cmd.command_data.kind == AP_COMMAND_DATA_SUBSCRIPTION_RECONNECT) {
        if (c->kind == C_WS) {
            ws_subscription_command(s, c, &cmd, &response, &arena);
        } else {
            why.ptr = "subscription commands are for a WebSocket: over HTTP, each event stream is a subscription";
            why.len = strlen(why.ptr);
            ap_response_error(&response, &cmd, AP_ERROR_CODE_NOT_SUPPORTED, why);
        }
        server_log(s, "%s: command %" PRIu64 " %s", c->thread->id, (uint64_t)cmd.id,
             ap_command_data_kind_name(cmd.command_data.kind));
    } else {
        ap_server_command sc;
        aps_status st = APS_E_NOT_FOUND;
        sc.thread_id.ptr = c->thread->id;
        sc.thread_id.len = c->thread->id_len;
        sc.command = &cmd;
        sc.text.ptr = text;
        sc.text.len = len;
        sc.websocket = c->kind == C_WS;
        if (s->opt.on_command != NULL)
            st = s->opt.on_command(s->opt.user, s, &sc, &response, &arena);
        if (s->opt.on_command == NULL) {
            why.ptr = "this server answers no commands but subscriptions";
            why.len = strlen(why.ptr);
            ap_response_error(&response, &cmd, AP_ERROR_CODE_UNKNOWN_COMMAND, why);
        } else if (st != APS_OK) {
            why.ptr = aps_status_str(st);
            why.len = strlen(why.ptr);
            ap_response_error(&response, &cmd, AP_ERROR_CODE_UNKNOWN_ERROR, why);
        }
        server_log(s, "%s: command %" PRIu64 " %s: %s", c->thread->id, (uint64_t)cmd.id,
             ap_command_data_kind_name(cmd.command_data.kind),
             response.kind == AP_MESSAGE_ERROR_RESPONSE ? "error" : "success");
    }
    if (ap_message_encode_opts(&response, out, &eo, &err) != APS_OK) {
        /* the product's response does not encode: say so instead */
        snprintf(msg, sizeof msg, "the server's response did not encode: %s", err.message);
        why.ptr = msg;
        why.len = strlen(msg);
        ap_response_error(&response, cmd.command_data.kind != AP_COMMAND_DATA_UNKNOWN ? &cmd : NULL,
                          AP_ERROR_CODE_UNKNOWN_ERROR, why);
        aps_json_writer_reset(out);
        if (ap_message_encode_opts(&response, out, &eo, NULL) != APS_OK)
            rc = -1;
    }
    aps_arena_deinit(&arena);
    return rc;
}

/* ---- HTTP requests ---------------------------------------------------------------- */

/* Opens the SSE stream of a POST …/stream whose body is in c->body. 0, or -1 to close. */
static int open_sse(ap_server *s, conn *c)
{
    aps_arena arena;
    aps_decode_options dopt;
    aps_error err = APS_ERROR_INIT;
    ap_event_stream_request_t req;
    aps_filter f;
    aps_replay_start start;
    int rc;
    aps_arena_init(&arena, NULL);
    memset(&dopt, 0, sizeof dopt);
    if (ap_event_stream_request_decode_opts(c->body != NULL ? c->body : "", c->body_len, &arena, &req, &dopt, &err) !=
        APS_OK) {
        rc = respond_error(s, c, 400, NULL, AP_ERROR_CODE_INVALID_ARGUMENT, "not an EventStreamRequest: %s%s%s",
                           err.pointer, err.pointer[0] ? ": " : "", err.message);
        aps_arena_deinit(&arena);
        return rc;
    }
    if (ap_filter_init_request(&f, &req, &arena, &err) != APS_OK) {
        rc = respond_error(s, c, 400, NULL, AP_ERROR_CODE_INVALID_ARGUMENT, "%s", err.message);
        aps_arena_deinit(&arena);
        return rc;
    }
    start = ap_replay_start_request(&req);
    if (start.from == APS_REPLAY_FROM_RUN && c->last_event_id[0] != '\0') {
        start.from = APS_REPLAY_FROM_EVENT_ID;
        start.event_id.ptr = c->last_event_id;
        start.event_id.len = strlen(c->last_event_id);
    }
    server_resume_point(c->thread, &start);
    c->kind = C_SSE;
    if (sub_add(s, c, &f, &start, &err) == NULL) {
        aps_filter_deinit(&f);
        c->kind = C_HTTP;
        rc = respond_error(s, c, 503, NULL, AP_ERROR_CODE_UNKNOWN_ERROR, "%s", err.message);
        aps_arena_deinit(&arena);
        return rc;
    }
    aps_arena_deinit(&arena);
    stream_add(s, c);
    lws_set_timeout(c->wsi, NO_PENDING_TIMEOUT, 0);
    c->last_write_ms = mono_ms();
    server_log(s, "%s: SSE stream opened (%s)", c->thread->id,
         start.from == APS_REPLAY_FROM_RUN ? "the current run" : start.from == APS_REPLAY_FROM_SEQ ? "since" : "after an eventId");
    return respond(c, 200, "text/event-stream", NULL, SIZE_MAX);
}

/* A request's body is complete: answer it. 0, or -1 to close. */
static int request_done(ap_server *s, conn *c)
{
    aps_json_writer w;
    int rc;
    if (c->body_too_large)
        return respond_error(s, c, 413, NULL, AP_ERROR_CODE_INVALID_ARGUMENT, "the body is over %zu bytes",
                             s->opt.max_body);
    if (c->route == R_STREAM)
        return open_sse(s, c);
    aps_json_writer_init(&w, NULL);
    rc = answer_command(s, c, c->body != NULL ? c->body : "", c->body_len, &w);
    if (rc >= 0) /* a command answered, even with an error: 200; no command at all: 400 */
        rc = respond(c, rc == 0 ? 200 : 400, "application/json", aps_json_writer_data(&w), aps_json_writer_len(&w));
    aps_json_writer_deinit(&w);
    return rc;
}

/* The embedder's route for `path` (opt.routes), NULL when none matches. */
static const ap_server_route *find_route(const ap_server *s, const char *path)
{
    size_t i;
    for (i = 0; i < s->opt.nroutes; i++) {
        const char *p = s->opt.routes[i].path;
        size_t n = p != NULL ? strlen(p) : 0;
        if (n > 0 && s->opt.routes[i].fn != NULL &&
            (p[n - 1] == '/' ? strncmp(path, p, n) == 0 : strcmp(path, p) == 0))
            return &s->opt.routes[i];
    }
    return NULL;
}

/* A GET of an embedder's route: read-only, same-origin, the API key unless the route is open. 0 or -1. */
static int answer_route(ap_server *s, conn *c, int method, const char *path, const ap_server_route *r)
{
    ap_server_reply reply;
    int rc;
    c->cors = 0;
    c->extra_route = 1;
    if (method != LWSHUMETH_GET)
        return respond_error(s, c, 405, NULL, AP_ERROR_CODE_INVALID_ARGUMENT, "%.200s is read-only: GET it", path);
    if (!r->open && !authorized(s, c->wsi))
        return respond_error(s, c, 401, NULL, AP_ERROR_CODE_PERMISSION_DENIED,
                             "an API key is required (x-api-key or Authorization: Bearer)");
    memset(&reply, 0, sizeof reply);
    r->fn(s->opt.user, s, path, &reply);
    if (reply.status == 0) {
        free(reply.body);
        return respond_error(s, c, 404, NULL, AP_ERROR_CODE_INVALID_ARGUMENT, "no such endpoint: %.200s", path);
    }
    rc = respond(c, reply.status, reply.content_type != NULL ? reply.content_type : "application/octet-stream",
                 reply.body, reply.body != NULL ? reply.len : 0);
    free(reply.body);
    return rc;
}


/* ---- the REST hook (opt.api) ------------------------------------------------------ */

static const char *method_name(int method)
{
    switch (method) {
    case LWSHUMETH_GET: return "GET";
    case LWSHUMETH_POST: return "POST";
    case LWSHUMETH_PUT: return "PUT";
    case LWSHUMETH_PATCH: return "PATCH";
    case LWSHUMETH_DELETE: return "DELETE";
    case LWSHUMETH_HEAD: return "HEAD";
    default: return "OTHER";
    }
}

/* A REST refusal: {"detail": why}, the body the reference server and client use. 0 or -1. */
static int api_error(ap_server *s, conn *c, unsigned status, const char *fmt, ...)
{
    char text[512];
    aps_json_writer w;
    va_list ap;
    int rc = -1;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    aps_json_writer_init(&w, NULL);
    aps_json_write_object_begin(&w);
    aps_json_write_key(&w, "detail", 6);
    aps_json_write_string(&w, text, strlen(text));
    aps_json_write_object_end(&w);
    if (aps_json_writer_status(&w) == APS_OK)
        rc = respond(c, status, "application/json", aps_json_writer_data(&w), aps_json_writer_len(&w));
    aps_json_writer_deinit(&w);
    server_log(s, "%s %s %u: %s", method_name(c->method), c->path != NULL ? c->path : "-", status, text);
    return rc;
}

/* Acts on the hook's reply: a body, a stream of a feed, or a long poll. 0, or -1 to close. */
static int api_reply(ap_server *s, conn *c, ap_server_reply *reply)
{
    int rc;
    memcpy(c->content_location, reply->content_location, sizeof c->content_location);
    c->content_location[sizeof c->content_location - 1] = '\0';
    if (reply->feed != NULL && reply->status == 200) {
        free(reply->body);
        c->feed = reply->feed;
        c->feed_next = reply->feed_from;
        c->feed_mask = reply->feed_mask != 0 ? reply->feed_mask : ~(uint32_t)0;
        lws_set_timeout(c->wsi, NO_PENDING_TIMEOUT, 0);
        c->last_write_ms = mono_ms();
        if (reply->feed_wait) {
            c->kind = C_WAIT;
            memcpy(c->token, reply->token, sizeof c->token);
            c->token[sizeof c->token - 1] = '\0';
            stream_add(s, c);
            lws_callback_on_writable(c->wsi); /* (the feed may be closed already) */
            return 0;
        }
        c->kind = C_FEED;
        stream_add(s, c);
        server_log(s, "%s %s: stream from record %" PRIu64, method_name(c->method), c->path, c->feed_next);
        return respond(c, 200, "text/event-stream", NULL, SIZE_MAX);
    }
    ap_server_feed_unref(reply->feed);
    if (reply->status == 0) {
        free(reply->body);
        return api_error(s, c, 404, "no such endpoint: %s %.200s", method_name(c->method), c->path);
    }
    rc = respond(c, reply->status, reply->content_type != NULL ? reply->content_type : "application/json",
                 reply->body, reply->body != NULL ? reply->len : 0);
    if (reply->status >= 400)
        server_log(s, "%s %s %u", method_name(c->method), c->path, reply->status);
    free(reply->body);
    return rc;
}

/* Asks the hook (its long poll's second call when `token` is not NULL). 0, or -1 to close. */
static int api_answer(ap_server *s, conn *c, const char *token)
{
    ap_server_request req;
    ap_server_reply reply;
    memset(&req, 0, sizeof req);
    memset(&reply, 0, sizeof reply);
    req.method = c->method == LWSHUMETH_GET      ? AP_SERVER_GET
                 : c->method == LWSHUMETH_POST   ? AP_SERVER_POST
                 : c->method == LWSHUMETH_PUT    ? AP_SERVER_PUT
                 : c->method == LWSHUMETH_PATCH  ? AP_SERVER_PATCH
                 : c->method == LWSHUMETH_DELETE ? AP_SERVER_DELETE
                 : c->method == LWSHUMETH_HEAD   ? AP_SERVER_HEAD
                                                 : AP_SERVER_OTHER;
    req.method_name = method_name(c->method);
    req.path = c->path;
    req.query = c->query != NULL ? c->query : "";
    req.body = c->body != NULL ? c->body : "";
    req.body_len = c->body_len;
    req.last_event_id = c->last_event_id;
    req.token = token;
    c->answered = 1;
    s->opt.api(s->opt.user, s, &req, &reply);
    return api_reply(s, c, &reply);
}

/* A long poll's feed closed: the hook answers it. 0, or -1 to close. */
static int api_wait_done(ap_server *s, conn *c)
{
    char token[sizeof c->token];
    if (!ap_server_feed_closed(c->feed, NULL))
        return 0;
    stream_remove(s, c);
    c->kind = C_HTTP;
    ap_server_feed_unref(c->feed);
    c->feed = NULL;
    memcpy(token, c->token, sizeof token);
    return api_answer(s, c, token);
}

/*
 * A feed's SSE stream: what it is owed, a chunk a write, while the socket
 * takes them; a heartbeat when quiet; the end (the connection closes once
 * what lws holds is sent) when the feed is closed and read. 0 or -1.
 */
static int write_feed(ap_server *s, conn *c)
{
    unsigned writes;
    for (writes = 0; writes < SSE_WRITES_PER_CALLBACK; writes++) {
        size_t n, need = 0;
        int done = 0;
        if (chunk_room(s, 0, CHUNK_BYTES) != 0)
            return -1;
        n = server_feed_put(c->feed, &c->feed_next, c->feed_mask, (char *)s->chunk + LWS_PRE,
                            s->chunk_cap - LWS_PRE, &need, &done);
        if (need > 0) {
            if (chunk_room(s, 0, need) != 0)
                return -1;
            continue;
        }
        if (n == 0) {
            if (done || s->stopping) {
                if (lws_partial_buffered(c->wsi)) {
                    lws_callback_on_writable(c->wsi);
                    return 0;
                }
                return -1; /* the stream ends: its body is delimited by the close */
            }
            if (writes > 0 || mono_ms() - c->last_write_ms < s->opt.heartbeat_ms)
                return 0;
            memcpy(s->chunk + LWS_PRE, ": heartbeat\n\n", 13);
            n = 13;
        }
        if (lws_write(c->wsi, s->chunk + LWS_PRE, n, LWS_WRITE_HTTP) < (int)n)
            return -1;
        c->last_write_ms = mono_ms();
        if (lws_send_pipe_choked(c->wsi))
            break;
    }
    lws_callback_on_writable(c->wsi);
    return 0;
}

/* A request for the REST hook: its path, query and Last-Event-ID kept; the body awaited. 0 or -1. */
static int api_start(ap_server *s, conn *c, int method, const char *uri)
{
    char length[32];
    int n;
    unsigned long long declared = 0;
    c->route = R_API;
    c->method = method;
    if ((c->path = strdup(uri)) == NULL)
        return -1;
    /* each argument is a fragment of its own (lws_hdr_copy would run them together): joined by '&' */
    n = lws_hdr_total_length(c->wsi, WSI_TOKEN_HTTP_URI_ARGS);
    if ((c->query = calloc(1, (size_t)(n > 0 ? 2 * n + 2 : 1))) == NULL)
        return -1;
    if (n > 0) {
        size_t used = 0;
        int frag, got;
        for (frag = 0; (got = lws_hdr_copy_fragment(c->wsi, c->query + used + (used > 0), (int)(2 * (size_t)n + 2 - used - 1),
                                                    WSI_TOKEN_HTTP_URI_ARGS, frag)) >= 0; frag++) {
            if (got == 0)
                continue;
            if (used > 0)
                c->query[used++] = '&';
            used += (size_t)got;
        }
        c->query[used] = '\0';
    }
    if (header(c->wsi, WSI_TOKEN_COUNT, "last-event-id:", c->last_event_id, sizeof c->last_event_id) < 0 &&
        lws_hdr_custom_length(c->wsi, "last-event-id:", 14) >= (int)sizeof c->last_event_id)
        return api_error(s, c, 431, "a Last-Event-ID over %zu bytes", sizeof c->last_event_id - 1);
    if (!authorized(s, c->wsi))
        return api_error(s, c, 401, "an API key is required (x-api-key or Authorization: Bearer)");
    if (header(c->wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, NULL, length, sizeof length) > 0)
        declared = strtoull(length, NULL, 10);
    if (declared > s->opt.max_body)
        return api_error(s, c, 413, "the body is over %zu bytes", s->opt.max_body);
    if (declared > 0 && method != LWSHUMETH_GET && method != LWSHUMETH_HEAD)
        return 0; /* the body follows */
    return api_answer(s, c, NULL);
}

/* The headers of a request have arrived. 0, or -1 to close. */
static int request_start(ap_server *s, conn *c, int method, const char *uri)
{
    char id[MAX_ID], length[32];
    size_t id_len = 0;
    const ap_server_route *r;
    c->route = parse_path(uri, id, sizeof id, &id_len);
    if (header(c->wsi, WSI_TOKEN_ORIGIN, NULL, c->origin, sizeof c->origin) > 0)
        c->cors = origin_allowed(s, c->origin);
    if (method == LWSHUMETH_OPTIONS) {
        unsigned char buf[LWS_PRE + 1024], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
        if (lws_add_http_common_headers(c->wsi, 204, "text/plain", 0, &p, end) || add_cors(c, c->wsi, &p, end) ||
            (c->cors && (add_header(c->wsi, "access-control-allow-methods:",
                                    s->opt.api != NULL ? "GET, POST, PUT, PATCH, DELETE, OPTIONS" : "GET, POST, OPTIONS", &p, end) ||
                         add_header(c->wsi, "access-control-allow-headers:",
                                    "content-type, accept, authorization, x-api-key, last-event-id", &p, end) ||
                         add_header(c->wsi, "access-control-max-age:", "600", &p, end))) ||
            lws_finalize_write_http_header(c->wsi, start, &p, end))
            return -1;
        server_log(s, "OPTIONS %s: preflight %s", uri, c->cors ? "allowed" : "refused (origin not allowed)");
        return lws_http_transaction_completed(c->wsi) ? -1 : 0;
    }
    if (c->route == R_NONE && (r = find_route(s, uri)) != NULL)
        return answer_route(s, c, method, uri, r);
    /* (GET /state with a REST API is the API's: it refuses a bad id in its own words) */
    if (c->route == R_BAD_ID && (s->opt.api == NULL || strlen(uri) < 6 || strcmp(uri + strlen(uri) - 6, "/state") != 0))
        return respond_error(s, c, 422, NULL, AP_ERROR_CODE_INVALID_ARGUMENT,
                             "a thread id is 1 to %u bytes of printable UTF-8", MAX_ID - 1);
    if (s->opt.api != NULL && c->route != R_STREAM && c->route != R_COMMANDS)
        return api_start(s, c, method, uri);
    if (!authorized(s, c->wsi))
        return respond_error(s, c, 401, NULL, AP_ERROR_CODE_PERMISSION_DENIED,
                             "an API key is required (x-api-key or Authorization: Bearer)");
    if (c->route == R_NONE)
        return respond_error(s, c, 404, NULL, AP_ERROR_CODE_INVALID_ARGUMENT, "no such endpoint: %.200s", uri);
    /* (a state request makes no thread, but a shared log may have it from another replica) */
    if ((c->thread = server_thread(s, id, id_len, c->route != R_STATE || s->opt.open_log != NULL)) == NULL) {
        if (c->route == R_STATE)
            return respond_error(s, c, 404, NULL, AP_ERROR_CODE_NO_SUCH_RUN, "no thread %.200s", id);
        return respond_error(s, c, 503, NULL, AP_ERROR_CODE_UNKNOWN_ERROR, "too many threads (%zu)",
                             s->opt.max_threads);
    }
    if (c->route == R_STATE) {
        char *json, *body;
        size_t len;
        int rc;
        if (method != LWSHUMETH_GET)
            return respond_error(s, c, 405, NULL, AP_ERROR_CODE_INVALID_ARGUMENT, "GET the state");
        aps_slice tid;
        tid.ptr = c->thread->id;
        tid.len = c->thread->id_len;
        if (ap_server_state(s, tid, &json, &len) != APS_OK)
            return respond_error(s, c, 404, NULL, AP_ERROR_CODE_NO_SUCH_RUN, "thread %s has no state yet",
                                 c->thread->id);
        body = malloc(len + 64);
        if (body == NULL) {
            free(json);
            return -1;
        }
        /* the shape of langgraph-api's thread state, with what a mock knows */
        snprintf(body, len + 64, "{\"values\":%s,\"next\":[],\"tasks\":[],\"metadata\":{}}", json);
        rc = respond(c, 200, "application/json", body, strlen(body));
        free(body);
        free(json);
        return rc;
    }
    if (method != LWSHUMETH_POST)
        return respond_error(s, c, 405, NULL, AP_ERROR_CODE_INVALID_ARGUMENT,
                             "POST here (GET with Upgrade: websocket for a WebSocket)");
    if (header(c->wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH, NULL, length, sizeof length) > 0 &&
        strtoull(length, NULL, 10) > s->opt.max_body)
        return respond_error(s, c, 413, NULL, AP_ERROR_CODE_INVALID_ARGUMENT, "the body is over %zu bytes",
                             s->opt.max_body);
    (void)header(c->wsi, WSI_TOKEN_COUNT, "last-event-id:", c->last_event_id, sizeof c->last_event_id);
    return 0; /* the body follows */
}

static int body_append(ap_server *s, conn *c, const void *in, size_t len)
{
    char *grown;
    if (c->body_too_large || c->body_len + len > s->opt.max_body) {
        c->body_too_large = 1;
        return 0;
    }
    if ((grown = realloc(c->body, c->body_len + len + 1)) == NULL)
        return -1;
    c->body = grown;
    if (len > 0) /* (libwebsockets may call with no bytes and no pointer) */
        memcpy(c->body + c->body_len, in, len);
    c->body_len += len;
    c->body[c->body_len] = '\0';
    return 0;
}

/* Frees what a connection holds and takes it off the stream list. */
static void conn_release(ap_server *s, conn *c)
{
    if (c->kind == C_SSE || c->kind == C_WS || c->kind == C_FEED || c->kind == C_WAIT)
        stream_remove(s, c);
    subs_free(c);
    free(c->body);
    free(c->out);
    free(c->path);
    free(c->query);
    ap_server_feed_unref(c->feed);
    c->feed = NULL;
    c->path = c->query = NULL;
    c->body = c->out = NULL;
    if (c->counted) {
        s->connections--;
        c->counted = 0;
    }
}

/* Forgets the previous request of a kept-alive connection (it stays counted). */
static void conn_reset(ap_server *s, conn *c)
{
    int counted = c->counted;
    c->counted = 0;
    conn_release(s, c);
    memset(c, 0, sizeof *c);
    c->counted = counted;
}

/* ---- the loop ---------------------------------------------------------------------- */

static void heartbeat_cb(lws_sorted_usec_list_t *sul)
{
    ap_server *s = lws_container_of(sul, ap_server, heartbeat);
    conn *c;
    uint64_t now = mono_ms();
    for (c = s->streams; c != NULL; c = c->next)
        if (now - c->last_write_ms >= s->opt.heartbeat_ms) {
            if (c->kind == C_SSE || c->kind == C_FEED)
                lws_callback_on_writable(c->wsi);
        }
    lws_sul_schedule(s->ctx, 0, &s->heartbeat, heartbeat_cb, (lws_usec_t)s->opt.heartbeat_ms * 250);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len)
{
    struct lws_context *ctx = lws_get_context(wsi);
    ap_server *s = ctx != NULL ? lws_context_user(ctx) : NULL;
    conn *c = user;
    switch (reason) {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED: {
        conn *k;
        if (s == NULL)
            return 0;
        /* every publish from now on wakes the loop again, since this pass may miss it; the
           exchange also acquires what the publishers that skipped their wake-up appended */
        (void)__atomic_exchange_n(&s->wake_pending, 0, __ATOMIC_ACQ_REL);
        for (k = s->streams; k != NULL; k = k->next) {
            if (k->kind == C_FEED || k->kind == C_WAIT) {
                if (server_feed_behind(k->feed, k->feed_next) || s->stopping)
                    lws_callback_on_writable(k->wsi);
                continue;
            }
            /* a subscriber whose socket is full gets no writable callback: judged here */
            if (!k->closing && k->nsubs > 0 && too_slow(s, k)) {
                k->closing = 1;
                lws_set_timeout(k->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
            } else if (behind(k) || s->stopping || k->out_len > 0) {
                lws_callback_on_writable(k->wsi);
            }
        }
        return 0;
    }
    case LWS_CALLBACK_HTTP: {
        char *uri = NULL;
        int uri_len = 0, method = lws_http_get_uri_and_method(wsi, &uri, &uri_len);
        char path[1024];
        if (c == NULL)
            return -1;
        /* a kept-alive connection's next request starts afresh */
        conn_reset(s, c);
        c->wsi = wsi;
        if (!c->counted) {
            c->counted = 1;
            s->connections++;
        }
        if (s->stopping || s->connections > s->opt.max_connections) {
            server_log(s, "refusing a request: %s", s->stopping ? "stopping" : "too many connections");
            return respond_error(s, c, 503, NULL, AP_ERROR_CODE_UNKNOWN_ERROR,
                                 s->stopping ? "the server is stopping" : "too many connections");
        }
        if (method >= 0 && uri != NULL && (size_t)uri_len >= sizeof path)
            return respond_error(s, c, 414, NULL, AP_ERROR_CODE_INVALID_ARGUMENT, "a path over %zu bytes",
                                 sizeof path - 1);
        if (method < 0 || uri == NULL || uri_len <= 0)
            return respond_error(s, c, 400, NULL, AP_ERROR_CODE_INVALID_ARGUMENT, "a request line we cannot read");
        memcpy(path, uri, (size_t)uri_len);
        path[uri_len] = '\0';
        return request_start(s, c, method, path);
    }
    case LWS_CALLBACK_HTTP_BODY:
        if (c == NULL || (c->route != R_API && (c->route == R_NONE || c->thread == NULL)))
            return 0;
        return body_append(s, c, in, len);
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        if (c != NULL && c->route == R_API) {
            if (c->answered || c->kind != C_HTTP)
                return 0;
            if (c->body_too_large)
                return api_error(s, c, 413, "the body is over %zu bytes", s->opt.max_body);
            return api_answer(s, c, NULL);
        }
        if (c == NULL || c->thread == NULL || c->out != NULL || c->kind != C_HTTP)
            return 0;
        return request_done(s, c);
    case LWS_CALLBACK_HTTP_WRITEABLE:
        if (c == NULL)
            return -1;
        if (c->kind == C_SSE)
            return write_sse(s, c);
        if (c->kind == C_FEED)
            return write_feed(s, c);
        if (c->kind == C_WAIT)
            return api_wait_done(s, c);
        if (c->out != NULL)
            return write_body(c);
        return 0;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION: {
        /* a WebSocket upgrade: the same checks as a request */
        char path[1024], id[MAX_ID];
        size_t id_len = 0;
        if (s->stopping || s->connections >= s->opt.max_connections ||
            header(wsi, WSI_TOKEN_GET_URI, NULL, path, sizeof path) <= 0 ||
            parse_path(path, id, sizeof id, &id_len) != R_STREAM || !authorized(s, wsi)) {
            server_log(s, "refusing a WebSocket upgrade");
            return 1;
        }
        return 0;
    }
    case LWS_CALLBACK_ESTABLISHED: {
        char path[1024], id[MAX_ID];
        size_t id_len = 0;
        memset(c, 0, sizeof *c);
        c->wsi = wsi;
        c->kind = C_WS;
        c->counted = 1;
        s->connections++;
        if (header(wsi, WSI_TOKEN_GET_URI, NULL, path, sizeof path) <= 0 ||
            parse_path(path, id, sizeof id, &id_len) != R_STREAM ||
            (c->thread = server_thread(s, id, id_len, 1)) == NULL)
            return -1;
        stream_add(s, c);
        c->last_write_ms = mono_ms();
        server_log(s, "%s: WebSocket opened", c->thread->id);
        return 0;
    }
    case LWS_CALLBACK_RECEIVE: {
        aps_json_writer w;
        int rc;
        if (c == NULL || c->thread == NULL)
            return -1;
        if (body_append(s, c, in, len) != 0)
            return -1;
        if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi) > 0)
            return 0;
        if (c->body_too_large) {
            server_log(s, "%s: closing a WebSocket: a message over %zu bytes", c->thread->id, s->opt.max_body);
            lws_close_reason(wsi, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, (unsigned char *)"message too large", 17);
            return -1;
        }
        aps_json_writer_init(&w, NULL);
        rc = answer_command(s, c, c->body != NULL ? c->body : "", c->body_len, &w);
        if (rc >= 0)
            rc = ws_queue(c, aps_json_writer_data(&w), aps_json_writer_len(&w));
        aps_json_writer_deinit(&w);
        free(c->body);
        c->body = NULL;
        c->body_len = 0;
        return rc;
    }
    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (c == NULL || c->thread == NULL)
            return -1;
        if (s->stopping && !behind(c) && c->out_len == 0)
            return -1;
        return write_ws(s, c);
    case LWS_CALLBACK_CLOSED:
    case LWS_CALLBACK_CLOSED_HTTP:
        if (c != NULL) {
            if (c->thread != NULL && (c->kind == C_SSE || c->kind == C_WS))
                server_log(s, "%s: %s closed after %" PRIu64 " events", c->thread->id,
                     c->kind == C_SSE ? "SSE stream" : "WebSocket", c->events_sent);
            conn_release(s, c);
        }
        return 0;
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        if (c != NULL)
            conn_release(s, c);
        return 0;
    default:
        return 0;
    }
}

/*
 * tx_packet_size: a write goes to send() whole (up to a chunk). At 0 lws
 * sends rx_buffer_size (4 KiB by default) at a time and copies the rest of
 * every write into a buffer of its own to send later: at 1,000 subscribers
 * the sends averaged 4 KB against the epoll ceiling's 62 KB, and the kernel's
 * cost is per send (perf, syscall tracing).
 */
static const struct lws_protocols protocols[] = {
    { "agent-stream", callback, sizeof(conn), 0, 0, NULL, CHUNK_BYTES },
    { NULL, NULL, 0, 0, 0, NULL, 0 }
};

static void *loop_main(void *arg)
{
    ap_server *s = arg;
    while (!s->stopping || (mono_ms() < s->stop_deadline_ms && s->streams != NULL))
        if (lws_service(s->ctx, 0) < 0)
            break;
    return NULL;
}

static void lws_quiet(int level, const char *line)
{
    (void)level;
    (void)line;
}

aps_status ap_server_start(ap_server **out, const ap_server_options *opt, aps_error *err)
{
    struct lws_context_creation_info info;
    ap_server *s;
    if (out == NULL || opt == NULL)
        return aps_error_set(err, APS_E_ARGUMENT, 0, "ap_server_start needs options");
    *out = NULL;
    if ((s = calloc(1, sizeof *s)) == NULL)
        return aps_error_set(err, APS_E_NOMEM, 0, "no memory for the server");
    s->opt = *opt;
    if (s->opt.host == NULL)
        s->opt.host = "127.0.0.1";
    if (s->opt.max_body == 0)
        s->opt.max_body = AP_SERVER_DEFAULT_MAX_BODY;
    if (s->opt.max_connections == 0)
        s->opt.max_connections = AP_SERVER_DEFAULT_MAX_CONNECTIONS;
    if (s->opt.max_subscriptions == 0)
        s->opt.max_subscriptions = AP_SERVER_DEFAULT_MAX_SUBSCRIPTIONS;
    if (s->opt.max_threads == 0)
        s->opt.max_threads = AP_SERVER_DEFAULT_MAX_THREADS;
    if (s->opt.heartbeat_ms == 0)
        s->opt.heartbeat_ms = AP_SERVER_DEFAULT_HEARTBEAT_MS;
    if (s->opt.timeout_s == 0)
        s->opt.timeout_s = AP_SERVER_DEFAULT_TIMEOUT_S;
    if (s->opt.key_case == APS_CASE_EITHER)
        s->opt.key_case = APS_CASE_SNAKE;
    if (s->opt.replay.max_events == 0)
        s->opt.replay.max_events = APS_REPLAY_DEFAULT_EVENTS;
    if (s->opt.max_lag == 0)
        s->opt.max_lag = s->opt.replay.max_events;
    s->cors = opt->cors_origins != NULL ? strdup(opt->cors_origins) : NULL;
    s->api_key = opt->api_key != NULL ? strdup(opt->api_key) : NULL;
    pthread_mutex_init(&s->lock, NULL);
    lws_set_log_level(LLL_ERR, lws_quiet);

    memset(&info, 0, sizeof info);
    info.port = (int)s->opt.port;
    info.iface = s->opt.host;
    info.protocols = protocols;
    info.user = s;
    info.gid = (gid_t)-1;
    info.uid = (uid_t)-1;
    info.timeout_secs = s->opt.timeout_s;
    info.timeout_secs_ah_idle = s->opt.timeout_s;
    /* fd_limit_per_thread stays 0, the process's descriptor limit: a smaller one makes lws find
       each connection by a linear scan of its table on every socket event (lws 4.1's wsi_from_fd
       when the limit is "unrelated to ulimit"), 94% of that function's time and 4.5% of the
       server's at 1,000 subscribers (perf); max_connections is ours to enforce */
    info.max_http_header_data = 8192;
    info.vhost_name = "default";
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
    if ((s->ctx = lws_create_context(&info)) == NULL) {
        aps_error_set(err, APS_E_IO, 0, "cannot listen on %s:%u", s->opt.host, s->opt.port);
        ap_server_stop(s);
        return APS_E_IO;
    }
    s->vhost = lws_get_vhost_by_name(s->ctx, "default");
    s->port = s->vhost != NULL ? (unsigned)lws_get_vhost_listen_port(s->vhost) : s->opt.port;
    lws_sul_schedule(s->ctx, 0, &s->heartbeat, heartbeat_cb, (lws_usec_t)s->opt.heartbeat_ms * 250);
    if (pthread_create(&s->loop, NULL, loop_main, s) != 0) {
        ap_server_stop(s);
        return aps_error_set(err, APS_E_NOMEM, 0, "cannot start the service thread");
    }
    s->loop_started = 1;
    *out = s;
    return APS_OK;
}

unsigned ap_server_port(const ap_server *s)
{
    return s != NULL ? s->port : 0;
}

void ap_server_stop(ap_server *s)
{
    if (s == NULL)
        return;
    if (s->loop_started) {
        s->stop_deadline_ms = mono_ms() + 1000;
        __atomic_store_n(&s->stopping, 1, __ATOMIC_RELEASE);
        lws_cancel_service(s->ctx);
        pthread_join(s->loop, NULL);
    }
    server_threads_unwatch(s); /* (they wake the loop: before its context goes) */
    if (s->ctx != NULL)
        lws_context_destroy(s->ctx);
    server_threads_free(s);
    pthread_mutex_destroy(&s->lock);
    free(s->chunk);
    free(s->cors);
    free(s->api_key);
    free(s);
}
